//! A parts depot and a garage served over MCP, written as a user writes a
//! server under strict lints: every mcp-light attribute, on free functions
//! and on the methods of a `#[mcp_tools]` impl, a dispatcher and
//! `tools![...]`. What the macros generate must add no warning here,
//! `clippy::pedantic` and `clippy::nursery` included; the crate's own code
//! is kept as clean.
//!
//! The garage's methods are written as an rmcp `#[tool_router]` server
//! writes them (`&self`, `Parameters<T>`, `Json<T>`, `ErrorData`, `async`
//! without an `.await`), since that is the code a move to mcp-light keeps.

#![warn(clippy::pedantic, clippy::nursery)]
#![deny(clippy::all, unreachable_pub, missing_docs)]
#![warn(clippy::allow_attributes_without_reason)]

use std::sync::{Mutex, MutexGuard, PoisonError};

use mcp_light::prelude::*;
use mcp_light::{BuildError, CallToolResult, ItemStream};
use rmcp::ErrorData;

pub mod garage;

/// A part kept in the depot; a write's envelope names its SKU and bin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, LightKey)]
#[light_key(sku, bin)]
pub struct Part {
    /// The part's number in the depot.
    pub id: u64,
    /// The stock-keeping unit.
    pub sku: String,
    /// The bin the part is kept in.
    pub bin: String,
    /// How many are in stock.
    pub count: u32,
}

/// A part to add to the depot.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct NewPart {
    /// The stock-keeping unit.
    pub sku: String,
    /// The bin the part goes in.
    pub bin: String,
    /// How many arrive; none when left out.
    #[serde(default)]
    pub count: u32,
}

/// The fields of a part to change; those left out keep their values.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PartPatch {
    /// A new bin.
    pub bin: Option<String>,
    /// A new count.
    pub count: Option<u32>,
}

/// A new count for one part.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Recount {
    /// The part's number.
    pub id: u64,
    /// How many are in stock now.
    pub count: u32,
}

/// The host's parts, shared by every call.
#[derive(Debug, Default)]
pub struct Depot {
    parts: Mutex<Vec<Part>>,
}

impl Depot {
    /// The parts, even after a call panicked while holding them: each
    /// write leaves the list whole.
    fn parts(&self) -> MutexGuard<'_, Vec<Part>> {
        self.parts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `new` under the next free number.
    fn add(parts: &mut Vec<Part>, new: NewPart) -> Part {
        let part = Part {
            id: parts.last().map_or(1, |last| last.id + 1),
            sku: new.sku,
            bin: new.bin,
            count: new.count,
        };
        parts.push(part.clone());
        part
    }
}

/// The error of a part number the depot does not hold.
fn no_part(id: u64) -> ToolError {
    ToolError::new(format!("no part has the number {id}"))
}

/// Fetches one part by its number; also a tool, whose description is its
/// attribute's, so that this section stays out of what clients read.
///
/// # Errors
///
/// When the depot holds no part numbered `id`.
#[mcp_tool(
    resource = "part",
    action = "retrieve",
    description = "Fetch one part by its number."
)]
pub fn part_get(State(depot): State<Depot>, id: u64) -> Result<Part, ToolError> {
    let parts = depot.parts();
    parts
        .iter()
        .find(|part| part.id == id)
        .cloned()
        .ok_or_else(|| no_part(id))
}

/// Add one part.
#[mcp_light(create, resource = "part", retrieve = part_get)]
pub async fn part_create(
    State(depot): State<Depot>,
    ctx: &Context,
    /// The stock-keeping unit.
    sku: String,
    /// The bin the part goes in.
    bin: String,
    /// How many arrive.
    #[serde(default)]
    count: u32,
) -> Part {
    ctx.progress(1.0, Some(1.0), Some("stored")).await;
    Depot::add(&mut depot.parts(), NewPart { sku, bin, count })
}

/// Replace a part's bin and count.
#[mcp_light(update, resource = "part", retrieve = part_get)]
fn part_update(
    State(depot): State<Depot>,
    id: u64,
    bin: String,
    count: u32,
) -> Result<Part, ToolError> {
    let mut parts = depot.parts();
    let part = parts
        .iter_mut()
        .find(|part| part.id == id)
        .ok_or_else(|| no_part(id))?;
    part.bin = bin;
    part.count = count;
    let updated = part.clone();
    drop(parts);
    Ok(updated)
}

/// Change some fields of a part.
#[mcp_light(partial_update, resource = "part", retrieve = part_get, inline)]
fn part_partial_update(
    State(depot): State<Depot>,
    id: u64,
    changes: PartPatch,
) -> Result<Part, ToolError> {
    let mut parts = depot.parts();
    let part = parts
        .iter_mut()
        .find(|part| part.id == id)
        .ok_or_else(|| no_part(id))?;
    if let Some(bin) = changes.bin {
        part.bin = bin;
    }
    if let Some(count) = changes.count {
        part.count = count;
    }
    let patched = part.clone();
    drop(parts);
    Ok(patched)
}

/// Remove a part; answers it as it was.
#[mcp_light(destroy, resource = "part")]
fn part_destroy(State(depot): State<Depot>, id: u64) -> Result<Part, ToolError> {
    let mut parts = depot.parts();
    let at = parts
        .iter()
        .position(|part| part.id == id)
        .ok_or_else(|| no_part(id))?;
    Ok(parts.remove(at))
}

/// Add many parts at once.
#[mcp_light(bulk_create, resource = "part", retrieve = part_get)]
#[must_use]
pub fn part_bulk_create(State(depot): State<Depot>, parts: Vec<NewPart>) -> Vec<Part> {
    let mut stored = depot.parts();
    parts
        .into_iter()
        .map(|new| Depot::add(&mut stored, new))
        .collect()
}

/// Recount many parts at once.
#[mcp_light(bulk_update, resource = "part", retrieve = part_get)]
async fn part_bulk_update(
    State(depot): State<Depot>,
    counts: Vec<Recount>,
) -> Result<Vec<Part>, ToolError> {
    tokio::task::yield_now().await;
    let mut parts = depot.parts();
    counts
        .into_iter()
        .map(|Recount { id, count }| {
            let part = parts
                .iter_mut()
                .find(|part| part.id == id)
                .ok_or_else(|| no_part(id))?;
            part.count = count;
            Ok(part.clone())
        })
        .collect()
}

/// Every part, as one value.
#[mcp_heavy(resource = "part", action = "list")]
#[must_use]
pub fn part_list(State(depot): State<Depot>) -> Vec<Part> {
    depot.parts().clone()
}

/// The parts of one bin, one at a time.
#[mcp_heavy]
fn part_list_in_bin(
    State(depot): State<Depot>,
    bin: String,
) -> impl Iterator<Item = Part> + Send + 'static {
    let parts = depot.parts().clone();
    parts.into_iter().filter(move |part| part.bin == bin)
}

/// The parts numbered from `first`, one at a time; a number past the end
/// is refused.
#[mcp_heavy(inline)]
fn part_list_from(
    State(depot): State<Depot>,
    first: u64,
) -> impl Iterator<Item = Result<Part, ToolError>> + Send + 'static {
    let parts = depot.parts().clone();
    let known = parts.last().map_or(0, |last| last.id);
    let refused = (first > known).then(|| Err(no_part(first)));
    refused.into_iter().chain(
        parts
            .into_iter()
            .filter(move |part| part.id >= first)
            .map(Ok),
    )
}

/// The SKUs of the depot, as a stream.
#[mcp_heavy]
async fn part_skus(State(depot): State<Depot>) -> ItemStream<String> {
    tokio::task::yield_now().await;
    let skus: Vec<String> = depot.parts().iter().map(|part| part.sku.clone()).collect();
    ItemStream::iter(skus)
}

/// The stock of every part, counted by a producer that pushes them; an
/// empty depot is refused.
#[mcp_heavy(inline = 4_096)]
fn part_stock(State(depot): State<Depot>) -> Result<ItemStream<u32>, ToolError> {
    let counts: Vec<u32> = depot.parts().iter().map(|part| part.count).collect();
    if counts.is_empty() {
        return Err(ToolError::new("the depot holds no part"));
    }
    Ok(ItemStream::blocking(move |sender| {
        for count in counts {
            sender.send(count)?;
        }
        Ok(())
    }))
}

/// Say who calls.
#[mcp_tool(inline)]
pub(crate) fn whoami(caller: &Caller) -> String {
    caller.identity()
}

/// A part's label, as text content.
#[mcp_tool(name = "part_label", scopes = ["depot:read"])]
fn label(State(depot): State<Depot>, id: u64) -> Result<CallToolResult, ToolError> {
    let text = depot
        .parts()
        .iter()
        .find(|part| part.id == id)
        .map(|part| format!("{} in bin {}", part.sku, part.bin))
        .ok_or_else(|| no_part(id))?;
    Ok(CallToolResult::success(vec![Content::text(text)]))
}

/// A greeting, as one content block: an `async fn` that never waits, so
/// that it runs on the async worker that serves the call.
#[mcp_tool(description = "Greet someone by name.")]
async fn greet(#[header("Name")] name: String) -> Content {
    Content::text(format!("Hello, {name}!"))
}

/// Count the parts, refusing an empty depot with rmcp's error.
#[mcp_tool(task)]
fn part_count(State(depot): State<Depot>) -> Result<usize, ErrorData> {
    let count = depot.parts().len();
    match count {
        0 => Err(ErrorData::invalid_request("the depot holds no part", None)),
        count => Ok(count),
    }
}

/// Add to a part's stock, answering as rmcp's examples do: a line of text
/// beside the part as structured content, which the envelope is made from.
///
/// # Errors
///
/// When no part has the number.
#[mcp_light(
    update,
    resource = "part",
    action = "restock",
    retrieve = part_get,
    annotations(idempotent_hint = false)
)]
pub fn part_restock(
    State(depot): State<Depot>,
    id: u64,
    more: u32,
) -> Result<CallToolResult, ErrorData> {
    let mut parts = depot.parts();
    let part = parts
        .iter_mut()
        .find(|part| part.id == id)
        .ok_or_else(|| ErrorData::invalid_params(format!("no part {id}"), None))?;
    part.count += more;
    let restocked = part.clone();
    drop(parts);
    let mut result = CallToolResult::success(vec![Content::text(format!(
        "{} now holds {}",
        restocked.sku, restocked.count
    ))]);
    result.structured_content = Some(serde_json::json!(restocked));
    Ok(result)
}

/// Every part, as one JSON text block built by hand.
#[mcp_heavy(
    resource = "part",
    action = "report",
    annotations(title = "Parts report")
)]
fn part_report(State(depot): State<Depot>) -> CallToolResult {
    let text = serde_json::to_string(&*depot.parts()).unwrap_or_default();
    CallToolResult::success(vec![Content::text(text)])
}

/// The server of the depot and the garage: every tool above, routed by
/// one dispatcher too.
///
/// # Errors
///
/// When the tools or the dispatcher do not fit together (a name taken
/// twice, two tools for one resource and action).
pub fn server(depot: Depot, garage: garage::Garage) -> Result<Server, BuildError> {
    let depot_tools = tools![
        part_get,
        part_create,
        part_update,
        part_partial_update,
        part_destroy,
        part_bulk_create,
        part_bulk_update,
        part_list,
        part_list_in_bin,
        part_list_from,
        part_skus,
        part_stock,
        whoami,
        label,
        greet,
        part_count,
        part_restock,
        part_report,
    ];
    Server::from_tools(depot_tools.into_iter().chain(garage::tools()))
        .with_state(depot)
        .with_state(garage)
        .with_dispatcher("depot")
        .build()
}

#[cfg(test)]
mod tests {
    use mcp_light::testing::AnswerExt;
    use serde_json::json;

    use super::*;
    use crate::garage::{Garage, NewBay};

    #[tokio::test]
    async fn a_created_part_is_found_by_its_number_directly_and_through_the_dispatcher() {
        let server = server(Depot::default(), Garage::default()).unwrap();
        let new = json!({"sku": "M6-BOLT", "bin": "A1", "count": 40});
        let created = server.call("part_create", new, Caller::Process).await;
        assert_eq!(created.json().unwrap()["sku"], "M6-BOLT");
        let found = server
            .call("part_get", json!({"id": 1}), Caller::Process)
            .await;
        assert_eq!(found.json().unwrap()["count"], 40);
        let routed = json!({"resource": "part", "action": "retrieve", "params": {"id": 1}});
        let found = server.call("depot", routed, Caller::Process).await;
        assert_eq!(found.json().unwrap()["bin"], "A1");
    }

    #[tokio::test]
    async fn the_garage_methods_stay_methods() {
        let garage = Garage::default();
        let new = NewBay {
            label: "pit".into(),
        };
        let Json(bay) = garage.bay_create(Parameters(new)).await;
        assert_eq!(bay.number, 1);
        assert!(Garage::label_valid("lift".into()));
    }
}
