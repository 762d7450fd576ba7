//! Structure-aware JSON arguments into every inventory tool, by name and
//! through the `inventory` dispatcher.
//!
//! Holds: every answer reads as JSON or as a refusal that names what is
//! wrong; a refusal, and any call of a read tool, leaves the database as
//! it was; every call ends within the bound.

#![no_main]

use std::sync::Mutex;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_light::Caller;
use mcp_light_fuzz::inventory_env::{Inventory, READS, TOOLS};
use mcp_light_fuzz::json::{Json, Text};
use mcp_light_fuzz::{Form, answer, first_line, form, run_bounded};
use serde_json::{Map, Value};

#[derive(Arbitrary, Debug)]
enum Tool {
    Known(u8),
    Other(Text),
}

#[derive(Arbitrary, Debug)]
enum Route {
    /// The tool by its own name.
    Flat,
    /// Through the dispatcher: `resource`, `action`, `params`.
    Dispatched {
        resource: Text,
        action: Text,
        extra: Vec<(Text, Json)>,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    tool: Tool,
    route: Route,
    arguments: Json,
}

static INVENTORY: Mutex<Option<Inventory>> = Mutex::new(None);

fuzz_target!(|data: &[u8]| {
    let Some((tool, arguments)) = call(data) else {
        return;
    };
    check(tool, arguments);
});

/// The tool and its arguments: a raw input is the tool's name on its
/// first line, then the arguments' JSON.
fn call(data: &[u8]) -> Option<(String, Value)> {
    let input = match form::<Input>(data)? {
        Form::Raw(raw) => {
            let (tool, arguments) = first_line(raw);
            return Some((tool, serde_json::from_slice(arguments).ok()?));
        }
        Form::Built(input) => input,
    };
    let arguments = input.arguments.to_value()?;
    Some(match input.route {
        Route::Flat => {
            let tool = match &input.tool {
                Tool::Known(i) => TOOLS[usize::from(*i) % TOOLS.len()].to_owned(),
                Tool::Other(text) => text.to_text(),
            };
            (tool, arguments)
        }
        Route::Dispatched {
            resource,
            action,
            extra,
        } => {
            let mut routed = Map::new();
            routed.insert("resource".into(), Value::String(resource.to_text()));
            routed.insert("action".into(), Value::String(action.to_text()));
            routed.insert("params".into(), arguments);
            for (key, value) in extra {
                if let Some(value) = value.to_value() {
                    routed.insert(key.to_text(), value);
                }
            }
            (inventory::DISPATCHER.to_owned(), Value::Object(routed))
        }
    })
}

fn check(tool: String, arguments: Value) {
    let mut slot = INVENTORY.lock().unwrap_or_else(|e| e.into_inner());
    if slot
        .as_ref()
        .is_none_or(|inventory| inventory.devices() > 300)
    {
        *slot = Some(Inventory::seeded(8));
    }
    let inventory = slot.as_ref().expect("seeded above");

    let before = inventory.snapshot();
    let asked = format!("{tool} with {arguments}");
    let answer = run_bounded(
        &asked,
        inventory
            .server
            .call(&tool, arguments.clone(), Caller::Process),
    );
    let succeeded = answer::tool_result(&answer, &asked).is_some();
    if !succeeded || READS.contains(&tool.as_str()) {
        assert_eq!(
            inventory.snapshot(),
            before,
            "{asked} changed the database without a successful write"
        );
    }
}
