//! The probe a first call to a heavy tool answers instead of its result.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::digest::ResultShape;
use super::{HeavyConfig, Mode};
use crate::token::Token;

/// The probe a first call to a heavy tool answers instead of the result:
/// `{preview, total_size, total_items?, available_modes, continuation_token,
/// usage}`, in that order.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "probe")]
pub(crate) struct Probe {
    /// The result cut short, still JSON.
    preview: Value,
    /// The stored result's size in bytes.
    total_size: u64,
    /// How many items the stored list holds (what a page calls `total`);
    /// absent for a result that does not page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    total_items: Option<usize>,
    /// The field of an object whose list pages (the longest, where it has
    /// several); absent for a list or a result that does not page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    paged: Option<String>,
    available_modes: Vec<Mode>,
    continuation_token: String,
    /// How to call again, in a sentence or two.
    usage: String,
}

/// The probe of a result the store would not keep: `{preview, total_size,
/// summary, why_no_token, usage}`, in that order.
#[derive(Debug, Serialize)]
pub(crate) struct UnkeptProbe {
    preview: Value,
    total_size: u64,
    /// The summary of the whole result, as [`Mode::Summary`] answers it.
    summary: Value,
    /// The store's reason.
    why_no_token: String,
    usage: String,
}

/// The probe a first call to a heavy tool answers instead of the result.
///
/// * `preview` is the value cut short, as real JSON (not a string holding
///   it), at most [`HeavyConfig::preview_chars`] characters when written as
///   compact JSON. Containers keep as many leading items (list) or entries
///   (object) as fit whole; only when not even the first fits is that one
///   shortened the same way, down to its first keys or a string prefix
///   ending in `…`. Values are never converted to strings.
/// * `total_size` is passed through: the stored result's size in bytes.
/// * `total_items` is the item count of a list, or of the list an object
///   wraps: what `paginated` pages through, so a caller reads the count as
///   a number instead of from the `usage` sentence.
/// * `paged` names the field of an object whose list pages: its one list
///   field, or the longest of several.
/// * `available_modes` lists the modes that do something useful with this
///   value: `paginated` only for pageable values, `filtered` only for
///   objects and lists holding objects.
/// * `usage` is two sentences naming `tool`, where `continuation_token` and
///   `mode` go, and what omitting `mode` returns.
///
/// The probe stands for a read ([`Origin::Read`](crate::store::Origin::Read));
/// writes answer envelopes.
pub(crate) fn probe(
    tool: &str,
    preview: Value,
    shape: &ResultShape,
    total_size: u64,
    token: &Token,
    config: &HeavyConfig,
) -> Probe {
    let available_modes = available_modes(shape);
    Probe {
        preview,
        total_size,
        total_items: shape.item_count(),
        paged: match shape {
            ResultShape::Wrapper { key, .. } => Some(key.clone()),
            _ => None,
        },
        usage: usage(tool, shape, &available_modes, config),
        available_modes,
        continuation_token: token.as_str().to_owned(),
    }
}

/// The probe of a result the store would not keep (too large for it, or
/// the store failing), answered instead of the result when that is over
/// the size backstop.
///
/// There is no token, so no mode can be asked of this result later; the
/// `summary` ([`Mode::Summary`], bounded in size) describes all of it now,
/// `why_no_token` is the store's reason, and `usage` says to narrow the
/// read with the tool's own arguments.
pub(crate) fn unkept_probe(
    tool: &str,
    preview: Value,
    summary: Value,
    total_size: u64,
    why: &str,
) -> UnkeptProbe {
    UnkeptProbe {
        preview,
        total_size,
        summary,
        why_no_token: why.to_owned(),
        usage: format!(
            "This result was not kept, so there is no token and no mode to ask for: \
             narrow the read with {tool}'s own arguments so that it selects less, and call it again. \
             summary describes the whole result."
        ),
    }
}

/// The modes worth offering for a value of `shape`, in [`Mode::ALL`] order.
fn available_modes(shape: &ResultShape) -> Vec<Mode> {
    Mode::ALL
        .into_iter()
        .filter(|mode| match mode {
            Mode::Summary | Mode::Full => true,
            Mode::Paginated => shape.is_pageable(),
            Mode::Filtered => shape.is_filterable(),
        })
        .collect()
}

/// The probe's instructions: what is stored, how to redeem it, and what the
/// default returns for this value.
fn usage(tool: &str, shape: &ResultShape, modes: &[Mode], config: &HeavyConfig) -> String {
    let what = match shape {
        ResultShape::List { count, .. } => format!("a list of {count} items"),
        ResultShape::Wrapper { key, count, .. } => {
            format!("an object whose \"{key}\" lists {count} items")
        }
        ResultShape::Object => "an object".to_owned(),
        ResultShape::Scalar { kind } => kind.clone(),
    };
    let default = if modes.contains(&Mode::Paginated) {
        format!(
            "without mode you get page 1 of up to {} items, and page and page_size pick others",
            config.default_page_size
        )
    } else {
        "without mode you get the whole result".to_owned()
    };
    let filter = if modes.contains(&Mode::Filtered) {
        ", plus filter_keys for filtered"
    } else {
        ""
    };
    format!(
        "Stored: {what}. Call {tool} again with continuation_token at the top \
         level and mode (one of available_modes) beside it{filter}; {default}."
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::heavy::test_support::{config, keys, probe_of, rows, token};

    #[test]
    fn probe_keys_are_in_order() {
        let probe = probe_of("device_list", &rows(100), 4321, &token(), &config());
        assert_eq!(
            keys(&probe),
            [
                "preview",
                "total_size",
                "total_items",
                "available_modes",
                "continuation_token",
                "usage"
            ]
        );
        assert_eq!(probe["total_size"], 4321);
        assert_eq!(probe["total_items"], 100);
    }

    #[test]
    fn a_probe_without_token_summarizes_and_says_why_and_how_to_narrow() {
        let rows = rows(5_000);
        let probe = serde_json::to_value(unkept_probe(
            "device_list",
            crate::heavy::digest::preview_of(&rows, &config()).0,
            crate::heavy::digest::Digest::of(&rows, crate::store::Origin::Read).summary,
            123_456,
            "the result is 123456 bytes, more than the store's limit of 1000 bytes",
        ))
        .unwrap();
        assert_eq!(
            keys(&probe),
            ["preview", "total_size", "summary", "why_no_token", "usage"]
        );
        assert_eq!(probe["summary"]["count"], 5_000);
        assert!(
            probe["why_no_token"]
                .as_str()
                .unwrap()
                .contains("1000 bytes")
        );
        let usage = probe["usage"].as_str().unwrap();
        assert!(
            usage.contains("device_list") && usage.contains("narrow"),
            "{usage}"
        );
        assert!(probe.to_string().len() < 2_000);
    }

    #[test]
    fn the_item_count_is_a_field_of_what_pages_and_absent_otherwise() {
        let wrapper = json!({"site": "hq", "devices": rows(30)});
        let probe = probe_of("site_get", &wrapper, 999, &token(), &config());
        assert_eq!(probe["total_items"], 30);
        let object = json!({"site": "hq", "racks": 4});
        let probe = probe_of("site_get", &object, 999, &token(), &config());
        assert!(probe.get("total_items").is_none(), "{probe}");
    }

    #[test]
    fn probe_carries_the_token() {
        let token = token();
        let probe = probe_of("device_list", &rows(100), 1, &token, &config());
        assert_eq!(probe["continuation_token"], token.as_str());
    }

    #[test]
    fn usage_names_the_tool_the_fields_and_the_real_default() {
        let small = HeavyConfig {
            default_page_size: 15,
            ..config()
        };
        let probe = probe_of("device_list", &rows(100), 1, &token(), &small);
        let usage = probe["usage"].as_str().unwrap();
        for needle in [
            "device_list",
            "continuation_token",
            "top level",
            "mode",
            "page 1 of up to 15 items",
            "100 items",
        ] {
            assert!(usage.contains(needle), "{needle:?} missing from {usage}");
        }
        assert!(usage.split(". ").count() <= 2, "{usage}");
    }

    #[test]
    fn usage_says_a_non_pageable_value_comes_back_whole() {
        let probe = probe_of(
            "device_get",
            &json!({"id": 1, "blob": "z".repeat(30_000)}),
            1,
            &token(),
            &config(),
        );
        let usage = probe["usage"].as_str().unwrap();
        assert!(usage.contains("device_get"), "{usage}");
        assert!(
            usage.contains("without mode you get the whole result"),
            "{usage}"
        );
    }

    #[test]
    fn available_modes_fit_the_value() {
        let modes =
            |value: &Value| probe_of("t", value, 1, &token(), &config())["available_modes"].clone();
        assert_eq!(
            modes(&rows(5)),
            json!(["summary", "paginated", "filtered", "full"])
        );
        assert_eq!(
            modes(&json!([1, 2, 3])),
            json!(["summary", "paginated", "full"])
        );
        assert_eq!(
            modes(&json!({"id": 1, "name": "x"})),
            json!(["summary", "filtered", "full"])
        );
        assert_eq!(
            modes(&json!({"n": 2, "rows": rows(2)})),
            json!(["summary", "paginated", "filtered", "full"])
        );
        assert_eq!(modes(&json!("text")), json!(["summary", "full"]));
    }

    #[test]
    fn the_whole_probe_stays_small() {
        let probe = probe_of("device_list", &rows(10_000), 987_654, &token(), &config());
        let text = probe.to_string();
        assert!(text.len() < 700, "{} bytes: {text}", text.len());
    }

    #[test]
    fn a_list_of_objects_previews_its_leading_items_and_offers_every_mode() {
        let devices: Vec<_> = (1..=500)
            .map(|id| json!({"id": id, "name": format!("edge-{id}")}))
            .collect();
        let value = Value::from(devices);
        let token = Token::mint().unwrap();
        let probe = probe_of(
            "device_list",
            &value,
            12_345,
            &token,
            &HeavyConfig::default(),
        );

        assert_eq!(
            keys(&probe),
            [
                "preview",
                "total_size",
                "total_items",
                "available_modes",
                "continuation_token",
                "usage"
            ]
        );
        assert_eq!(probe["total_items"], 500);
        assert!(
            probe["preview"]
                .to_string()
                .starts_with(r#"[{"id":1,"name":"edge-1"},"#)
        );
        assert!(probe["preview"].to_string().chars().count() <= 200);
        assert_eq!(
            probe["available_modes"],
            json!(["summary", "paginated", "filtered", "full"])
        );
        assert!(probe["usage"].as_str().unwrap().contains("device_list"));
    }
}
