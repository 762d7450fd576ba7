//! Properties over arbitrary input, from a fixed seed, so every run tries
//! the same cases (the first `PROPTEST_CASES` of them, 1,000 by default;
//! `.ci/run` tries 10,000): binding and the dispatcher never panic,
//! a bulk write's envelope measures and names what was written, redemption
//! never runs the tool, pages add up to the list, and `filtered` and
//! `summary` answers keep to their bounds.

use std::collections::HashSet;

use mcp_light::heavy::HeavyConfig;
use mcp_light::{CallToolResult, Caller};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};
use tokio::runtime::Runtime;

use crate::fixtures::{Harness, ok_json};

/// How many cases each property tries: `PROPTEST_CASES`, or 1,000. A
/// local `cargo test` stays quick; CI sets 10,000.
fn cases() -> u32 {
    match std::env::var("PROPTEST_CASES") {
        Ok(cases) => cases
            .parse()
            .unwrap_or_else(|_| panic!("PROPTEST_CASES={cases:?} is not a number of cases")),
        Err(_) => 1_000,
    }
}

/// Runs `test` on `cases()` values of `strategy`, drawn from a fixed seed
/// and never persisted: a failure names its (shrunk) input.
fn check<S: Strategy>(strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::XorShift,
        rng_seed: RngSeed::Fixed(0x6d63_702d_6c69_6768),
        ..Config::default()
    };
    if let Err(failure) = TestRunner::new(config).run(&strategy, test) {
        panic!("{failure}");
    }
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Field names the tools know, and a few they do not, so that arbitrary
/// arguments sometimes bind.
const NAMES: [&str; 16] = [
    "id",
    "pk",
    "name",
    "role",
    "n",
    "skip",
    "width",
    "records",
    "record",
    "devices",
    "device",
    "site_slug",
    "serial",
    "depth",
    "url",
    "zz",
];

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(&NAMES[..]).prop_map(str::to_owned),
        1 => word(),
    ]
}

/// A short string, from a pool: drawing from a regex costs more than a
/// call, and cases must be cheap.
fn word() -> impl Strategy<Value = String> {
    const WORDS: [&str; 10] = [
        "", "a", "hq", "leaf", "spine 2", "x_y", "Zürich", "é\"q", "n0", "tab\t",
    ];
    (proptest::sample::select(&WORDS[..]), 0u8..4).prop_map(|(word, n)| format!("{word}{n}"))
}

/// A string of 30 to 60 letters: longer than a summary shows.
fn long_word() -> impl Strategy<Value = String> {
    (30usize..60, 0u8..26).prop_map(|(len, first)| {
        (0..len)
            .map(|i| char::from(b'a' + (first + i as u8) % 26))
            .collect()
    })
}

/// Any JSON value, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        // Three decimals: serde_json without `float_roundtrip` reads some
        // 17-digit floats back one bit off, which would fail the check that
        // text and `structuredContent` agree for a reason of the parser's.
        (-1e6f64..1e6).prop_map(|f| Value::from((f * 1e3).round() / 1e3)),
        word().prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 12, 3, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            btree_map(name(), inner, 0..4).prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|content| content.as_text())
        .map(|text| text.text.clone())
        .unwrap_or_default()
}

#[test]
fn arbitrary_arguments_never_panic_binding_or_the_dispatcher() {
    let rt = runtime();
    let h = Harness::new();
    let server = h.dispatched();
    let mut tools: Vec<String> = server
        .tools()
        .iter()
        .map(|tool| tool.name.to_string())
        // The tools whose job is to panic, and those that wait for a
        // cancellation no caller here sends.
        .filter(|name| !name.starts_with("explode"))
        .filter(|name| !name.contains("forever") && !name.ends_with("until_cancelled"))
        .collect();
    tools.push("no_such_tool".to_owned());
    let routed = (
        proptest::sample::select(vec!["device", "record", "row", "export", "nope"]),
        proptest::sample::select(vec!["list", "create", "bulk_create", "retrieve", "x"]),
        json_value(),
        prop_oneof![Just(Value::Null), any::<bool>().prop_map(Value::from)],
    )
        .prop_map(|(resource, action, params, describe)| {
            json!({"resource": resource, "action": action, "params": params, "describe": describe})
        });
    let call = (
        proptest::sample::select(tools),
        prop_oneof![3 => json_value(), 1 => routed],
    );
    check(call, |(tool, arguments)| {
        let tool = if arguments.get("resource").is_some() {
            "inventory".to_owned()
        } else {
            tool
        };
        let result = rt.block_on(server.call(&tool, arguments, Caller::Process));
        let said = text(&result);
        prop_assert!(!said.contains("panicked"), "{tool}: {said}");
        // A content tool may answer an image: something, not text.
        let answered = result
            .content
            .first()
            .is_some_and(|content| content.as_text().is_none_or(|text| !text.text.is_empty()));
        prop_assert!(answered, "{tool} answered nothing");
        Ok(())
    });
}

/// Records of arbitrary fields; some carry an `id` or a `pk`, null or not.
fn records() -> impl Strategy<Value = Vec<Value>> {
    let id = prop_oneof![
        Just(None),
        Just(Some(Value::Null)),
        any::<u32>().prop_map(|id| Some(Value::from(id))),
        word().prop_map(|id| Some(Value::from(id))),
    ];
    let record = (
        proptest::sample::select(vec!["id", "pk"]),
        id,
        btree_map(word(), json_value(), 0..4),
    )
        .prop_map(|(key, id, fields)| {
            let mut record: Map<String, Value> = fields.into_iter().collect();
            if let Some(id) = id {
                record.insert(key.to_owned(), id);
            }
            Value::Object(record)
        });
    vec(record, 0..6)
}

#[test]
fn a_bulk_envelope_measures_the_result_and_names_every_id_in_order_or_answers_it_whole() {
    let rt = runtime();
    let h = Harness::new();
    let server = h.dispatched();
    let storeless = h.builder().with_shared_store(None).build().unwrap();
    check(records(), |records| {
        let size = serde_json::to_vec(&records).unwrap().len();
        let ids: Option<Vec<Value>> = records
            .iter()
            .map(|record| {
                ["id", "pk"]
                    .iter()
                    .find_map(|key| record.get(key).filter(|id| !id.is_null()).cloned())
            })
            .collect();
        // Without a store no token can be minted: outcome 2 or 3.
        let answer = ok_json(&rt.block_on(storeless.call(
            "record_bulk_create",
            json!({"records": records}),
            Caller::Process,
        )));
        match &ids {
            Some(ids) => prop_assert_eq!(
                answer,
                json!({"accepted": records.len(), "status_code": 201, "data_size": size, "ids": ids})
            ),
            None => prop_assert_eq!(answer, Value::Array(records.clone())),
        }
        // Flat, with a store: the schema has a slot, so a token (outcome
        // 1), with every id in order while the envelope stays within its
        // bound, and never a partial list.
        let envelope = ok_json(&rt.block_on(h.server.call(
            "record_bulk_create",
            json!({"records": records}),
            Caller::Process,
        )));
        let token = envelope["continuation_token"].clone();
        prop_assert!(token.is_string(), "{}", envelope);
        let bare = json!({
            "accepted": records.len(), "status_code": 201, "data_size": size,
            "continuation_token": token,
        });
        let listed = ids.as_ref().map(|ids| {
            let mut listed = bare.clone();
            listed["ids"] = json!(ids);
            listed
        });
        match listed {
            Some(listed) if listed.to_string().len() <= mcp_light::defaults::ENVELOPE_BYTES => {
                prop_assert_eq!(&envelope, &listed)
            }
            _ => prop_assert_eq!(&envelope, &bare),
        }
        // The token answers the result whole.
        let whole = ok_json(&rt.block_on(h.server.call(
            "record_bulk_create",
            json!({"continuation_token": token, "mode": "full"}),
            Caller::Process,
        )));
        prop_assert_eq!(whole, Value::Array(records.clone()));
        // Through the dispatcher a token comes back too: outcome 1.
        let routed =
            json!({"resource": "record", "action": "bulk_create", "params": {"records": records}});
        let envelope = ok_json(&rt.block_on(server.call("inventory", routed, Caller::Process)));
        prop_assert_eq!(&envelope["data_size"], &json!(size));
        prop_assert!(envelope["continuation_token"].is_string(), "{}", envelope);
        Ok(())
    });
}

/// A negotiation, well formed or not.
fn negotiation() -> impl Strategy<Value = Map<String, Value>> {
    let mode = prop_oneof![
        4 => proptest::sample::select(vec!["summary", "paginated", "filtered", "full"]).prop_map(Value::from),
        1 => json_value(),
    ];
    let page = prop_oneof![3 => (1u64..6).prop_map(Value::from), 1 => json_value()];
    let page_size = prop_oneof![3 => (1u64..250).prop_map(Value::from), 1 => json_value()];
    let keys = prop_oneof![
        3 => vec(name(), 0..5).prop_map(|keys| keys.into_iter().map(Value::from).collect()),
        1 => json_value(),
    ];
    (
        proptest::option::of(mode),
        proptest::option::of(page),
        proptest::option::of(page_size),
        proptest::option::of(keys),
    )
        .prop_map(|(mode, page, page_size, keys)| {
            let mut args = Map::new();
            for (field, value) in [
                ("mode", mode),
                ("page", page),
                ("page_size", page_size),
                ("filter_keys", keys),
            ] {
                if let Some(value) = value {
                    args.insert(field.to_owned(), value);
                }
            }
            args
        })
}

#[test]
fn redemption_in_every_mode_never_runs_the_tool() {
    let rt = runtime();
    let h = rt.block_on(Harness::with_devices(30));
    let server = h.dispatched();
    let alice = || Caller::Session("alice".into());
    let flat = ok_json(&rt.block_on(h.call("device_list", json!({}))));
    let routed = ok_json(&rt.block_on(server.call(
        "inventory",
        json!({"resource": "device", "action": "list", "params": {}}),
        alice(),
    )));
    let runs = h.runs();
    check((any::<bool>(), negotiation()), |(through, mut args)| {
        let (tool, probe) = if through {
            ("inventory", &routed)
        } else {
            ("device_list", &flat)
        };
        args.insert(
            "continuation_token".to_owned(),
            probe["continuation_token"].clone(),
        );
        let result = rt.block_on(server.call(tool, Value::Object(args), alice()));
        prop_assert!(!text(&result).is_empty());
        prop_assert_eq!(h.runs(), runs, "a redemption ran the tool");
        Ok(())
    });
}

#[test]
fn pages_concatenate_to_the_full_list() {
    let rt = runtime();
    let h = Harness::new();
    // Every result is probed, however small.
    let server = h
        .dispatched_builder()
        .with_heavy_config(HeavyConfig::new().with_size_backstop(Some(0)))
        .build()
        .unwrap();
    check(
        (0usize..60, 1usize..5, 1usize..25),
        |(n, width, page_size)| {
            let rows: Vec<Value> = (0..n)
                .map(|i| Value::from(format!("{i:0width$}")))
                .collect();
            let read =
                json!({"resource": "row", "action": "list", "params": {"n": n, "width": width}});
            let probe = ok_json(&rt.block_on(server.call("inventory", read, Caller::Process)));
            let token = probe["continuation_token"].clone();
            prop_assert!(token.is_string(), "{}", probe);
            let mut items = Vec::new();
            for page in 1.. {
                let ask =
                    json!({"continuation_token": token, "page": page, "page_size": page_size});
                let answer = ok_json(&rt.block_on(server.call("inventory", ask, Caller::Process)));
                let got = answer["items"].as_array().unwrap();
                prop_assert!(got.len() <= page_size);
                prop_assert_eq!(&answer["total"], &json!(n));
                items.extend(got.iter().cloned());
                if answer["has_more"] != true {
                    break;
                }
            }
            prop_assert_eq!(items, rows);
            Ok(())
        },
    );
}

/// Every string and key in `value`, for the summary's bound on them.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
        Value::Object(map) => {
            for (key, field) in map {
                out.push(key.clone());
                strings(field, out);
            }
        }
        _ => {}
    }
}

#[test]
fn filtered_and_summary_answers_stay_within_their_bounds() {
    let rt = runtime();
    let h = Harness::new();
    let server = h.dispatched();
    let long_records = (
        records(),
        vec(long_word(), 0..3),
        vec(name(), 1..5),
        1usize..30,
    );
    check(long_records, |(mut records, long, keys, page_size)| {
        // Some long strings and wide records too.
        for (record, text) in records.iter_mut().zip(&long) {
            record[text.as_str()] = Value::from(text.repeat(2));
        }
        let write =
            json!({"resource": "record", "action": "bulk_create", "params": {"records": records}});
        let envelope = ok_json(&rt.block_on(server.call("inventory", write, Caller::Process)));
        let token = envelope["continuation_token"].clone();

        let summary = ok_json(&rt.block_on(server.call(
            "inventory",
            json!({"continuation_token": token, "mode": "summary"}),
            Caller::Process,
        )));
        prop_assert_eq!(&summary["count"], &json!(records.len()));
        let mut said = Vec::new();
        strings(&summary, &mut said);
        for text in said {
            // At most 40 characters and `…`; a value's label cut so ends
            // with `#` and hex digits of the whole value's SHA-256, which
            // tell two long values apart.
            let shown = match text.split_once("…#") {
                Some((head, digits)) => {
                    prop_assert!(
                        (8..=64).contains(&digits.len())
                            && digits.chars().all(|c| c.is_ascii_hexdigit()),
                        "{} in {}",
                        text,
                        summary
                    );
                    head.chars().count() + 1
                }
                None => text.chars().count(),
            };
            prop_assert!(shown <= 41, "{} in {}", text, summary);
        }

        let asked = json!({"continuation_token": token, "mode": "filtered", "filter_keys": keys, "page_size": page_size});
        let result = rt.block_on(server.call("inventory", asked, Caller::Process));
        if result.is_error == Some(true) {
            // Only keys that match nothing are refused, briefly.
            let said = text(&result);
            prop_assert!(said.contains("matched no field"), "{}", said);
            prop_assert!(said.len() < 600, "{}", said);
            return Ok(());
        }
        let page = ok_json(&result);
        let wanted: HashSet<&str> = keys.iter().map(String::as_str).collect();
        let items = page["items"].as_array().unwrap();
        prop_assert!(items.len() <= page_size);
        prop_assert_eq!(&page["total"], &json!(records.len()));
        for (item, record) in items.iter().zip(&records) {
            let fields = item.as_object().unwrap();
            prop_assert!(fields.keys().all(|key| wanted.contains(key.as_str())));
            for (key, value) in fields {
                prop_assert_eq!(Some(value), record.get(key));
            }
        }
        Ok(())
    });
}
