//! Arbitrary redemptions against real stored entries: a heavy read's
//! (`device_list` over 60 devices) and a write's (`device_bulk_create` of
//! 40), with fuzzed tokens (the real ones, one byte off, cut short, any
//! text), modes, `page`, `page_size`, `filter_keys` and other fields, by
//! the caller who owns them or another.
//!
//! Holds: every answer reads as JSON or as a refusal naming what is
//! wrong; a token that is not the one minted, or a caller that is not its
//! owner, is refused; after any redemption both entries still redeem to
//! what they held; every call ends within the bound.

#![no_main]

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_light::Caller;
use mcp_light::testing::AnswerExt;
use mcp_light_fuzz::inventory_env::Inventory;
use mcp_light_fuzz::json::{Json, Text};
use mcp_light_fuzz::{Form, answer, first_line, form, run_bounded};
use serde_json::{Map, Value, json};

const MODES: [&str; 5] = ["summary", "paginated", "filtered", "full", "Summary"];

#[derive(Arbitrary, Debug)]
enum Entry {
    Heavy,
    Write,
}

#[derive(Arbitrary, Debug)]
enum Token {
    Absent,
    Real(Entry),
    /// The real token with one byte replaced.
    OneOff(Entry, u16, u8),
    /// The real token cut to its first bytes.
    Cut(Entry, u16),
    /// The real token with something after it.
    Longer(Entry, Text),
    Text(Text),
    Json(Json),
}

#[derive(Arbitrary, Debug)]
enum Field {
    Absent,
    Known(u8),
    Json(Json),
}

#[derive(Arbitrary, Debug)]
enum Tool {
    DeviceList,
    DeviceBulkCreate,
    Dispatcher,
    Other(Text),
}

#[derive(Arbitrary, Debug)]
struct Input {
    tool: Tool,
    token: Token,
    mode: Field,
    page: Option<Json>,
    page_size: Option<Json>,
    filter_keys: Option<Json>,
    extra: Vec<(Text, Json)>,
    /// A caller other than the one the tokens were minted for.
    stranger: bool,
}

struct Stored {
    inventory: Inventory,
    heavy: String,
    write: String,
    /// Each token's first page, as minted.
    heavy_page: Value,
    write_page: Value,
}

fn page_of(inventory: &Inventory, tool: &str, token: &str) -> Value {
    let args = json!({"continuation_token": token, "mode": "paginated", "page": 1});
    let answer = run_bounded("a page", inventory.server.call(tool, args, Caller::Process));
    answer::tool_result(&answer, "a page").unwrap_or_else(|| {
        panic!(
            "the minted token no longer redeems: {:?}",
            answer.error_text()
        )
    })
}

/// Entries older than this are minted again: the store's own TTL
/// (`mcp_light::defaults::STORE_TTL`, 300 s) would expire them mid-run,
/// and an expired token is rightly refused.
const FRESH_FOR: Duration = Duration::from_secs(200);

/// Inputs served from one set of entries. Each first call of
/// `device_list` an input makes keeps a probe's result for the same
/// caller, and past the caller's share of the store
/// (`mcp_light::defaults::STORE_CALLER_SHARE_PERCENT`) its oldest
/// entries make room, as the store is bounded to do: a few thousand
/// inputs in, the minted ones were gone.
const INPUTS_PER_MINT: u32 = 500;

struct Minted {
    at: Instant,
    inputs: u32,
    stored: Stored,
}

fn stored() -> MutexGuard<'static, Option<Minted>> {
    static STORED: Mutex<Option<Minted>> = Mutex::new(None);
    let mut slot = STORED.lock().unwrap_or_else(|e| e.into_inner());
    if slot
        .as_ref()
        .is_none_or(|m| m.at.elapsed() > FRESH_FOR || m.inputs >= INPUTS_PER_MINT)
    {
        *slot = Some(Minted {
            at: Instant::now(),
            inputs: 0,
            stored: mint(),
        });
    }
    if let Some(minted) = slot.as_mut() {
        minted.inputs += 1;
    }
    slot
}

fn mint() -> Stored {
    let inventory = Inventory::seeded(60);
    let probe = run_bounded(
        "the heavy read",
        inventory
            .server
            .call("device_list", json!({}), Caller::Process),
    );
    let probe = answer::tool_result(&probe, "device_list").expect("a probe");
    let heavy = probe["continuation_token"]
        .as_str()
        .expect("a heavy token")
        .to_owned();
    let devices: Vec<Value> = (0..40)
            .map(|i| {
                json!({"name": format!("fuzz-{i}"), "site_slug": "ams1", "role": "leaf", "device_type": "qfx5120"})
            })
            .collect();
    let envelope = run_bounded(
        "the write",
        inventory.server.call(
            "device_bulk_create",
            json!({"devices": devices}),
            Caller::Process,
        ),
    );
    let envelope = answer::tool_result(&envelope, "device_bulk_create").expect("an envelope");
    let write = envelope["continuation_token"]
        .as_str()
        .expect("a write token")
        .to_owned();
    let heavy_page = page_of(&inventory, "device_list", &heavy);
    let write_page = page_of(&inventory, "device_bulk_create", &write);
    Stored {
        inventory,
        heavy,
        write,
        heavy_page,
        write_page,
    }
}

fuzz_target!(|data: &[u8]| {
    let slot = stored();
    let stored = &slot.as_ref().expect("minted above").stored;
    let (tool, arguments, stranger) = match form::<Input>(data) {
        None => return,
        Some(Form::Raw(raw)) => {
            // `tool` (or `tool stranger`), then the arguments, where
            // `$HEAVY` and `$WRITE` stand for the minted tokens.
            let (first, arguments) = first_line(raw);
            let arguments = String::from_utf8_lossy(arguments)
                .replace("$HEAVY", &stored.heavy)
                .replace("$WRITE", &stored.write);
            let Ok(arguments) = serde_json::from_str(&arguments) else {
                return;
            };
            let (tool, stranger) = match first.strip_suffix(" stranger") {
                Some(tool) => (tool.to_owned(), true),
                None => (first, false),
            };
            (tool, arguments, stranger)
        }
        Some(Form::Built(input)) => built(&input, stored),
    };
    check(stored, &tool, arguments, stranger);
});

fn built(input: &Input, stored: &Stored) -> (String, Value, bool) {
    let real = |entry: &Entry| match entry {
        Entry::Heavy => stored.heavy.as_str(),
        Entry::Write => stored.write.as_str(),
    };
    let token: Option<Value> = match &input.token {
        Token::Absent => None,
        Token::Real(entry) => Some(Value::from(real(entry))),
        Token::OneOff(entry, at, byte) => {
            let mut bytes = real(entry).as_bytes().to_vec();
            let at = usize::from(*at) % bytes.len();
            bytes[at] = *byte;
            Some(Value::from(String::from_utf8_lossy(&bytes).into_owned()))
        }
        Token::Cut(entry, n) => {
            let text = real(entry);
            Some(Value::from(&text[..usize::from(*n) % text.len()]))
        }
        Token::Longer(entry, more) => {
            Some(Value::from(format!("{}{}", real(entry), more.to_text())))
        }
        Token::Text(text) => Some(Value::from(text.to_text())),
        Token::Json(json) => json.to_value(),
    };
    let tool = match &input.tool {
        Tool::DeviceList => "device_list".to_owned(),
        Tool::DeviceBulkCreate => "device_bulk_create".to_owned(),
        Tool::Dispatcher => inventory::DISPATCHER.to_owned(),
        Tool::Other(text) => text.to_text(),
    };

    let mut arguments = Map::new();
    for (key, value) in &input.extra {
        if let Some(value) = value.to_value() {
            arguments.insert(key.to_text(), value);
        }
    }
    if let Some(token) = &token {
        arguments.insert("continuation_token".into(), token.clone());
    }
    match &input.mode {
        Field::Absent => {}
        Field::Known(i) => {
            arguments.insert(
                "mode".into(),
                Value::from(MODES[usize::from(*i) % MODES.len()]),
            );
        }
        Field::Json(json) => {
            if let Some(mode) = json.to_value() {
                arguments.insert("mode".into(), mode);
            }
        }
    }
    for (key, field) in [
        ("page", &input.page),
        ("page_size", &input.page_size),
        ("filter_keys", &input.filter_keys),
    ] {
        if let Some(value) = field.as_ref().and_then(Json::to_value) {
            arguments.insert(key.into(), value);
        }
    }

    (tool, Value::Object(arguments), input.stranger)
}

fn check(stored: &Stored, tool: &str, arguments: Value, stranger: bool) {
    let caller = if stranger {
        Caller::Session("stranger".into())
    } else {
        Caller::Process
    };
    let asked = format!("{tool} with {arguments}");
    let answer = run_bounded(
        &asked,
        stored
            .inventory
            .server
            .call(tool, arguments.clone(), caller),
    );
    let succeeded = answer::tool_result(&answer, &asked).is_some();

    // A token redeems only as minted, and only for its owner.
    // A `null` token is no token: the call runs as a first call.
    if let Some(sent) = arguments.get("continuation_token").filter(|t| !t.is_null()) {
        let minted = sent == stored.heavy.as_str() || sent == stored.write.as_str();
        assert!(
            !succeeded || (minted && !stranger),
            "{asked} was answered, with a token that is not its caller's or not one minted"
        );
    }

    // Nothing kept was lost or changed.
    assert_eq!(
        page_of(&stored.inventory, "device_list", &stored.heavy),
        stored.heavy_page
    );
    assert_eq!(
        page_of(&stored.inventory, "device_bulk_create", &stored.write),
        stored.write_page
    );
}
