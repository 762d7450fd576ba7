//! The garage: tools as methods of a `#[mcp_tools]` impl, written as an
//! rmcp `#[tool_router]` server writes them. The impl's type is the
//! server's state.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use mcp_light::catalog::ToolDef;
use mcp_light::prelude::*;
use mcp_light::{CallToolResult, ItemStream};
use rmcp::ErrorData;

/// A bay of the garage, identified by its number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, LightKey)]
#[light_key(label, id = number)]
pub struct Bay {
    /// The bay's number.
    pub number: u32,
    /// What the bay is called.
    pub label: String,
    /// Whether cars are taken in.
    pub open: bool,
}

/// Which bay.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BayNumber {
    /// The bay's number.
    pub number: u32,
}

/// A bay to open.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewBay {
    /// What the bay is called.
    pub label: String,
}

/// Bays to open at once.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewBays {
    /// What each bay is called.
    pub labels: Vec<String>,
}

/// A bay's new label.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Relabel {
    /// The bay's number.
    pub number: u32,
    /// What the bay is called from now on.
    pub label: String,
}

/// Bays' new labels.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Relabels {
    /// Each bay and its new label.
    pub bays: Vec<Relabel>,
}

/// The fields of a bay to change; those left out keep their values.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BayPatch {
    /// The bay's number.
    pub number: u32,
    /// A new label.
    pub label: Option<String>,
    /// Whether cars are taken in.
    pub open: Option<bool>,
}

/// When the garage is open, in whole hours of the day.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Hours {
    /// The hour the garage opens.
    pub opens: u8,
    /// The hour it closes.
    pub closes: u8,
}

/// The garage's bays, shared by its clones.
#[derive(Debug, Clone, Default)]
pub struct Garage {
    bays: Arc<Mutex<Vec<Bay>>>,
}

impl Garage {
    /// The bays, even after a call panicked while holding them.
    fn bays(&self) -> MutexGuard<'_, Vec<Bay>> {
        self.bays.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens a bay called `label` under the next free number.
    fn open(bays: &mut Vec<Bay>, label: String) -> Bay {
        let number = bays.last().map_or(1, |last| last.number + 1);
        let bay = Bay {
            number,
            label,
            open: true,
        };
        bays.push(bay.clone());
        bay
    }

    /// The error of a bay number the garage does not have.
    fn no_bay(number: u32) -> ErrorData {
        ErrorData::invalid_params(format!("no bay has the number {number}"), None)
    }

    /// Renames bay `number` in `bays`.
    fn rename(bays: &mut [Bay], number: u32, label: String) -> Result<Bay, ErrorData> {
        let bay = bays
            .iter_mut()
            .find(|bay| bay.number == number)
            .ok_or_else(|| Self::no_bay(number))?;
        bay.label = label;
        Ok(bay.clone())
    }
}

#[mcp_tools]
impl Garage {
    #[mcp_tool(
        resource = "bay",
        action = "retrieve",
        description = "Fetch one bay by its number."
    )]
    async fn bay_get(
        &self,
        Parameters(BayNumber { number }): Parameters<BayNumber>,
    ) -> Result<Json<Bay>, ErrorData> {
        let bays = self.bays();
        let found = bays.iter().find(|bay| bay.number == number).cloned();
        drop(bays);
        found.map(Json).ok_or_else(|| Self::no_bay(number))
    }

    /// Open a bay.
    #[mcp_light(create, resource = "bay", retrieve = Self::bay_get)]
    pub async fn bay_create(&self, Parameters(new): Parameters<NewBay>) -> Json<Bay> {
        Json(Self::open(&mut self.bays(), new.label))
    }

    #[mcp_light(
        update,
        resource = "bay",
        retrieve = Self::bay_get,
        description = "Give a bay a new label."
    )]
    fn bay_rename(
        &self,
        Parameters(Relabel { number, label }): Parameters<Relabel>,
    ) -> Result<Json<Bay>, ErrorData> {
        Self::rename(&mut self.bays(), number, label).map(Json)
    }

    /// Change some fields of a bay.
    #[mcp_light(partial_update, name = "bay_patch", resource = "bay", retrieve = Self::bay_get)]
    async fn bay_relabel(
        &self,
        Parameters(patch): Parameters<BayPatch>,
    ) -> Result<Json<Bay>, ErrorData> {
        let mut bays = self.bays();
        let bay = bays
            .iter_mut()
            .find(|bay| bay.number == patch.number)
            .ok_or_else(|| Self::no_bay(patch.number))?;
        if let Some(label) = patch.label {
            bay.label = label;
        }
        if let Some(open) = patch.open {
            bay.open = open;
        }
        let changed = bay.clone();
        drop(bays);
        Ok(Json(changed))
    }

    /// Close a bay for good.
    #[mcp_light(destroy, resource = "bay")]
    async fn bay_close(
        &self,
        Parameters(BayNumber { number }): Parameters<BayNumber>,
    ) -> Result<(), ErrorData> {
        let mut bays = self.bays();
        let before = bays.len();
        bays.retain(|bay| bay.number != number);
        let after = bays.len();
        drop(bays);
        if after == before {
            return Err(Self::no_bay(number));
        }
        Ok(())
    }

    /// Open many bays at once.
    #[mcp_light(bulk_create, resource = "bay", retrieve = Self::bay_get)]
    async fn bay_bulk_open(
        &self,
        Parameters(NewBays { labels }): Parameters<NewBays>,
    ) -> Json<Vec<Bay>> {
        let mut bays = self.bays();
        Json(
            labels
                .into_iter()
                .map(|label| Self::open(&mut bays, label))
                .collect(),
        )
    }

    /// Give many bays new labels at once.
    #[mcp_light(bulk_update, resource = "bay", retrieve = Self::bay_get, inline)]
    fn bay_bulk_rename(
        &self,
        Parameters(Relabels { bays: renamed }): Parameters<Relabels>,
    ) -> Result<Json<Vec<Bay>>, ErrorData> {
        let mut bays = self.bays();
        renamed
            .into_iter()
            .map(|Relabel { number, label }| Self::rename(&mut bays, number, label))
            .collect::<Result<_, _>>()
            .map(Json)
    }

    #[mcp_heavy(
        resource = "bay",
        action = "list",
        description = "Every bay of the garage."
    )]
    async fn bay_list(&self) -> Json<Vec<Bay>> {
        Json(self.bays().clone())
    }

    /// The numbers of the open bays, one at a time. The iterator owns what
    /// it reads (`use<>`): it runs after the call's borrow of the garage.
    #[mcp_heavy]
    fn bay_numbers(&self) -> impl Iterator<Item = u32> + Send + use<> {
        let bays = self.bays().clone();
        bays.into_iter()
            .filter(|bay| bay.open)
            .map(|bay| bay.number)
    }

    /// The labels of the bays, as a stream.
    #[mcp_heavy]
    async fn bay_labels(&self) -> Result<ItemStream<String>, ErrorData> {
        let labels: Vec<String> = self.bays().iter().map(|bay| bay.label.clone()).collect();
        Ok(ItemStream::iter(labels))
    }

    /// A bay's card, as text content.
    #[mcp_tool]
    async fn bay_card(
        &self,
        Parameters(BayNumber { number }): Parameters<BayNumber>,
    ) -> Result<CallToolResult, ErrorData> {
        let Json(bay) = self.bay_get(Parameters(BayNumber { number })).await?;
        let state = if bay.open { "open" } else { "closed" };
        let card = format!("bay {}: {} ({state})", bay.number, bay.label);
        Ok(CallToolResult::success(vec![Content::text(card)]))
    }

    /// Take cars in at a bay again, as rmcp's examples answer: a line of
    /// text beside the bay as structured content.
    #[mcp_light(
        update,
        resource = "bay",
        action = "reopen",
        retrieve = Self::bay_get,
        annotations(idempotent_hint = false, open_world_hint = false)
    )]
    async fn bay_reopen(
        &self,
        Parameters(BayNumber { number }): Parameters<BayNumber>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut bays = self.bays();
        let bay = bays
            .iter_mut()
            .find(|bay| bay.number == number)
            .ok_or_else(|| Self::no_bay(number))?;
        bay.open = true;
        let reopened = bay.clone();
        drop(bays);
        let mut result =
            CallToolResult::success(vec![Content::text(format!("bay {number} is open"))]);
        result.structured_content = Some(serde_json::json!(reopened));
        Ok(result)
    }

    /// The bays, answered as a `CallToolResult` built by hand.
    #[mcp_heavy(resource = "bay", action = "report")]
    async fn bay_report(&self) -> CallToolResult {
        let bays = self.bays().clone();
        let mut result =
            CallToolResult::success(vec![Content::text(format!("{} bays", bays.len()))]);
        result.structured_content = Some(serde_json::json!({ "bays": bays }));
        result
    }

    /// The garage's opening hours: the same for every garage, written as
    /// rmcp servers write a tool, a method of the server that need not read
    /// it.
    #[mcp_tool]
    async fn bay_hours(&self) -> Json<Hours> {
        Json(Hours {
            opens: 7,
            closes: 19,
        })
    }

    /// Whether a label may name a bay: a tool that takes no `self`.
    #[mcp_tool(inline)]
    #[must_use]
    pub fn label_valid(
        /// The label to check.
        label: String,
    ) -> bool {
        !label.trim().is_empty()
    }

    /// How many bays the garage has: not a tool.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bays().len()
    }

    /// Whether the garage has no bay: not a tool.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bays().is_empty()
    }
}

/// The garage's tools, for a server to serve.
pub(crate) const fn tools() -> [&'static ToolDef; 15] {
    tools![
        Garage::bay_get,
        Garage::bay_create,
        Garage::bay_rename,
        Garage::bay_relabel,
        Garage::bay_close,
        Garage::bay_bulk_open,
        Garage::bay_bulk_rename,
        Garage::bay_list,
        Garage::bay_numbers,
        Garage::bay_labels,
        Garage::bay_card,
        Garage::bay_reopen,
        Garage::bay_report,
        Garage::bay_hours,
        Garage::label_valid,
    ]
}
