//! Tools as methods of a `#[mcp_tools]` impl, written as rmcp writes them,
//! behind rmcp's own client, beside the same tool served by rmcp's
//! `#[tool_router]`: what a client sees does not change when a tool moves.

use std::sync::Mutex;

use mcp_light::prelude::*;
use rmcp::model::{CallToolRequestParams, ErrorCode};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value, json};

/// A garage's slot, as both servers answer it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, LightKey)]
pub struct Slot {
    pub id: u32,
    pub label: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SlotId {
    /// The slot's number.
    pub id: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewSlot {
    /// What the slot is called.
    pub label: String,
}

/// The garage both servers serve.
pub struct Garage {
    slots: Mutex<Vec<Slot>>,
}

impl Default for Garage {
    fn default() -> Self {
        Garage {
            slots: Mutex::new(vec![Slot {
                id: 1,
                label: "bay one".into(),
            }]),
        }
    }
}

impl Garage {
    fn slot(&self, id: u32) -> Result<Slot, ErrorData> {
        let slots = self.slots.lock().unwrap();
        slots
            .iter()
            .find(|slot| slot.id == id)
            .cloned()
            .ok_or_else(|| {
                ErrorData::invalid_params(format!("no slot {id}"), Some(json!({"id": id})))
            })
    }
}

#[mcp_tools]
impl Garage {
    #[mcp_tool(
        resource = "slot",
        action = "retrieve",
        description = "Fetch one slot."
    )]
    async fn slot_get(
        &self,
        Parameters(SlotId { id }): Parameters<SlotId>,
    ) -> Result<Json<Slot>, ErrorData> {
        self.slot(id).map(Json)
    }

    #[mcp_light(create, resource = "slot", retrieve = Self::slot_get, description = "Add a slot.")]
    fn slot_create(&self, Parameters(new): Parameters<NewSlot>) -> Result<Json<Slot>, ErrorData> {
        let mut slots = self.slots.lock().unwrap();
        let slot = Slot {
            id: slots.len() as u32 + 1,
            label: new.label,
        };
        slots.push(slot.clone());
        Ok(Json(slot))
    }
}

/// The same retrieve, written for rmcp's `#[tool_router]`.
#[derive(Clone)]
struct RmcpGarage;

#[tool_router]
impl RmcpGarage {
    #[tool(description = "Fetch one slot.")]
    async fn slot_get(
        &self,
        rmcp::handler::server::wrapper::Parameters(SlotId { id }): rmcp::handler::server::wrapper::Parameters<SlotId>,
    ) -> Result<rmcp::Json<Slot>, ErrorData> {
        Garage::default().slot(id).map(rmcp::Json)
    }
}

#[tool_handler]
impl ServerHandler for RmcpGarage {}

async fn rmcp_client() -> RunningService<RoleClient, ()> {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let garage = RmcpGarage;
    tokio::spawn(async move {
        let running = garage.serve(server_io).await.expect("the server starts");
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.expect("the handshake succeeds")
}

async fn light_client() -> RunningService<RoleClient, ()> {
    let server = Server::from_tools(tools![Garage::slot_get, Garage::slot_create])
        .with_state(Garage::default())
        .build()
        .unwrap();
    crate::fixtures::connect(server).await
}

fn params(tool: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    CallToolRequestParams::new(tool.to_owned()).with_arguments(args)
}

/// A tool's `Err(ErrorData)` reaches the client as the JSON-RPC error rmcp
/// sends for it: the same code, message and data.
#[tokio::test]
async fn an_error_data_answers_as_the_json_rpc_error_rmcp_sends() {
    let call = params("slot_get", json!({"id": 9}));
    let rmcp = rmcp_client().await.call_tool(call.clone()).await;
    let light = light_client().await.call_tool(call).await;
    let error = |answer: Result<_, ServiceError>| match answer {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("a JSON-RPC error, not {other:?}"),
    };
    let (rmcp, light) = (error(rmcp), error(light));
    assert_eq!(light, rmcp);
    assert_eq!(light.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(light.message, "no slot 9");
    assert_eq!(light.data, Some(json!({"id": 9})));
}

/// A success answers what rmcp answers for `Json<T>`: the object, as
/// structured content and as text.
#[tokio::test]
async fn a_json_success_answers_the_object_as_rmcp_does() {
    let call = params("slot_get", json!({"id": 1}));
    let rmcp = rmcp_client().await.call_tool(call.clone()).await.unwrap();
    let light = light_client().await.call_tool(call).await.unwrap();
    assert_eq!(light.structured_content, rmcp.structured_content);
    assert_eq!(
        light.structured_content,
        Some(json!({"id": 1, "label": "bay one"}))
    );
    assert_eq!(light.is_error, Some(false));
}

/// rmcp's `Parameters<T>` drops an argument `T` does not declare and
/// answers success; the moved tool refuses it, naming what it takes.
#[tokio::test]
async fn an_undeclared_argument_is_refused_where_rmcp_ignored_it() {
    let wrapped = params("slot_get", json!({"id": 1, "data": {"label": "x"}}));
    let rmcp = rmcp_client()
        .await
        .call_tool(wrapped.clone())
        .await
        .unwrap();
    assert_eq!(rmcp.is_error, Some(false), "rmcp ignores `data`");
    let light = light_client().await.call_tool(wrapped).await.unwrap();
    assert_eq!(light.is_error, Some(true));
    let text = serde_json::to_string(&light.content).unwrap();
    assert!(
        text.contains(
            "invalid arguments for `slot_get`: unknown field `data`; `slot_get` takes `id`; \
             send them at the top level, not inside `data`"
        ),
        "{text}"
    );
}

/// The input schema is `T`'s, flat, as rmcp publishes it: the same
/// properties, required list and descriptions, plus `verify` on a write.
#[tokio::test]
async fn the_input_schema_is_the_structs_as_rmcp_publishes_it() {
    let rmcp = rmcp_client().await.list_all_tools().await.unwrap();
    let light = light_client().await.list_all_tools().await.unwrap();
    let schema = |tools: &[rmcp::model::Tool], name: &str| {
        let tool = tools.iter().find(|tool| tool.name == name).unwrap();
        (
            Value::Object((*tool.input_schema).clone()),
            tool.description.clone(),
        )
    };
    let (rmcp_get, rmcp_description) = schema(&rmcp, "slot_get");
    let (light_get, light_description) = schema(&light, "slot_get");
    assert_eq!(light_description, rmcp_description);
    assert_eq!(light_get["properties"], rmcp_get["properties"]);
    assert_eq!(light_get["required"], rmcp_get["required"]);
    let (create, _) = schema(&light, "slot_create");
    assert_eq!(create["required"], json!(["label"]));
    assert_eq!(
        create["properties"]["label"]["description"],
        "What the slot is called."
    );
    assert!(create["properties"]["verify"].is_object(), "{create}");
}

/// A write moved by its attributes answers the lean envelope.
#[tokio::test]
async fn a_moved_write_answers_its_envelope() {
    let client = light_client().await;
    let created = client
        .call_tool(params("slot_create", json!({"label": "bay two"})))
        .await
        .unwrap();
    assert_eq!(
        created.structured_content,
        Some(json!({"id": 2, "status_code": 201, "data_size": 26}))
    );
}
