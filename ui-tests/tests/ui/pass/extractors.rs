//! Parameters taken from the call: `State(db): State<Db>`, `&Caller`,
//! `&Context`, through aliases and re-exports too, and an extractor of the
//! application's own.
use std::sync::atomic::{AtomicU32, Ordering};

use mcp_light::catalog::{PublishedTool, Registry, ToolDef};
use mcp_light::extract::{FromCall, StateNeed};
use mcp_light::prelude::*;
use serde_json::json;

mod reexported {
    pub use mcp_light::State as HostState;
}

type Ctx = mcp_light::Context;

#[derive(Default)]
pub struct Counter {
    hits: AtomicU32,
}

pub struct Greeting(&'static str);

/// The caller's identity prefixed by the host's greeting.
pub struct Welcome(String);

impl FromCall for Welcome {
    fn from_call(ctx: &Context) -> Result<Self, ToolError> {
        let greeting = ctx.state::<Greeting>()?.0;
        Ok(Welcome(format!("{greeting}, {}", ctx.caller().identity())))
    }

    fn state_needs(needs: &mut Vec<StateNeed>) {
        needs.push(StateNeed::of::<Greeting>());
    }
}

/// Counts a hit.
#[mcp_tool]
fn hit(State(counter): State<Counter>, by: u32) -> u32 {
    counter.hits.fetch_add(by, Ordering::SeqCst) + by
}

/// Says who calls, through an alias of `Context` and a re-export of `State`.
#[mcp_tool]
async fn who(
    caller: &Caller,
    _: &Ctx,
    reexported::HostState(counter): reexported::HostState<Counter>,
) -> String {
    format!(
        "{} after {}",
        caller.identity(),
        counter.hits.load(Ordering::SeqCst)
    )
}

/// Welcomes the caller.
#[mcp_tool]
fn welcome(Welcome(text): Welcome, ctx: &Context) -> Result<String, ToolError> {
    let _ = ctx.state::<Counter>()?;
    Ok(text)
}

/// Every tool linked into this binary, as the registry checks them.
fn linked() -> impl Iterator<Item = &'static ToolDef> {
    let registry = Registry::collect().unwrap();
    registry
        .iter()
        .map(PublishedTool::def)
        .collect::<Vec<_>>()
        .into_iter()
}

fn main() {
    let needs = |name: &str| {
        let def = linked().find(|def| def.name() == name).unwrap();
        let names: Vec<_> = def.state_needs().iter().map(StateNeed::type_name).collect();
        names.join(",")
    };
    assert!(needs("hit").ends_with("::Counter"), "{}", needs("hit"));
    assert!(
        needs("welcome").ends_with("::Greeting"),
        "{}",
        needs("welcome")
    );

    // Only the arguments are in the schema.
    let hit = linked().find(|def| def.name() == "hit").unwrap();
    let schema = serde_json::to_value(hit.params_schema()).unwrap();
    assert_eq!(schema["required"], json!(["by"]));
    let who = linked().find(|def| def.name() == "who").unwrap();
    let schema = serde_json::to_value(who.params_schema()).unwrap();
    assert!(schema.get("required").is_none(), "{schema}");
    assert!(
        schema["properties"]
            .as_object()
            .is_none_or(|p| p.is_empty()),
        "{schema}"
    );

    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(async {
            let missing = Server::from_registry().build().unwrap_err().to_string();
            assert!(missing.contains("ServerBuilder::with_state"), "{missing}");

            let server = Server::from_registry()
                .with_state(Counter::default())
                .with_state(Greeting("hello"))
                .build()
                .unwrap();
            let hit = server.call("hit", json!({"by": 2}), Caller::Process).await;
            assert_eq!(hit.structured_content.unwrap(), json!({"result": 2}));
            let who = server
                .call("who", json!({}), Caller::Principal("ada".into()))
                .await;
            assert_eq!(
                who.structured_content.unwrap(),
                json!({"result": "principal:ada after 2"})
            );
            let welcome = server.call("welcome", json!({}), Caller::Process).await;
            assert_eq!(
                welcome.structured_content.unwrap(),
                json!({"result": "hello, process"})
            );
        });
}
