use serde_json::{Map, json};

use super::*;
use crate::heavy::test_support::{asked, config, rows};
use crate::heavy::{Mode, serve};
use crate::store::Origin;

fn summary_of(value: Value) -> Value {
    serve(value, Origin::Read, &asked(Mode::Summary, 1, 20), &config()).unwrap()
}

/// `n` devices spread over sites and statuses in known proportions.
fn devices(n: usize) -> Value {
    let sites = ["ams1", "fra1", "lon1", "nyc1"];
    let statuses = ["active", "active", "active", "planned", "offline"];
    (0..n)
        .map(|i| {
            json!({
                "id": format!("d-{i:05}"),
                "site_slug": sites[i % sites.len()],
                "status": statuses[i % statuses.len()],
                "position": if i % 10 == 0 { Value::Null } else { json!(i % 42 + 1) },
                "tags": vec!["prod"; i % 4],
                "custom_fields": {"owner": "netops", "vlan": 110},
                "monitored": i % 3 == 0,
            })
        })
        .collect()
}

fn count_of(items: &Value, field: &str, value: &str) -> usize {
    items
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item[field] == value)
        .count()
}

#[test]
fn a_list_summary_counts_devices_per_site_and_per_status_exactly() {
    let value = devices(500);
    let summary = summary_of(value.clone());
    assert_eq!(
        (&summary["type"], &summary["count"]),
        (&json!("list"), &json!(500))
    );
    for (field, names) in [
        ("site_slug", &["ams1", "fra1", "lon1", "nyc1"][..]),
        ("status", &["active", "planned", "offline"][..]),
    ] {
        let values = summary["fields"][field]["values"].as_object().unwrap();
        assert_eq!(values.len(), names.len(), "{field}: {values:?}");
        for name in names {
            assert_eq!(
                values[*name],
                count_of(&value, field, name),
                "{field} {name}"
            );
        }
    }
    // The most frequent first.
    let statuses: Vec<&String> = summary["fields"]["status"]["values"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(statuses, ["active", "offline", "planned"]);
}

#[test]
fn each_field_has_its_type_and_null_count_and_numbers_their_range() {
    let summary = summary_of(devices(500));
    let fields = &summary["fields"];
    assert_eq!(
        fields["position"],
        json!({"type": "number", "nulls": 50, "min": 1, "max": 42})
    );
    assert_eq!(fields["site_slug"]["type"], "string");
    assert_eq!(fields["site_slug"]["nulls"], 0);
    assert_eq!(
        fields["tags"],
        json!({"type": "list", "nulls": 0, "length": {"min": 0, "max": 3}, "values": {"prod": 750}})
    );
    assert_eq!(
        fields["custom_fields"],
        json!({"type": "object", "nulls": 0, "keys": ["owner", "vlan"]})
    );
    assert_eq!(
        fields["monitored"]["values"],
        json!({"false": 333, "true": 167})
    );
}

#[test]
fn a_field_of_distinct_values_lists_none_and_says_how_many() {
    let summary = summary_of(devices(500));
    assert_eq!(
        summary["fields"]["id"],
        json!({"type": "string", "nulls": 0, "distinct": 500})
    );
}

#[test]
fn values_past_the_limit_keep_the_most_frequent_and_count_the_rest_as_other() {
    // 30 racks; rack i holds 30 - i devices, so the top 20 cover most.
    let value: Value = (0..30)
        .flat_map(|rack| (0..30 - rack).map(move |_| json!({"rack": format!("R{rack:02}")})))
        .collect();
    let total = value.as_array().unwrap().len();
    let rack = &summary_of(value)["fields"]["rack"];
    let values = rack["values"].as_object().unwrap();
    assert_eq!(values.len(), MAX_VALUES);
    assert_eq!(values["R00"], 30);
    assert!(!values.contains_key("R20"), "{rack}");
    let listed: u64 = values.values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(rack["other"], total as u64 - listed);
    assert_eq!(rack["other"], (1..=10).sum::<u64>());
    assert_eq!(rack["distinct"], 30);
}

#[test]
fn a_missing_field_is_counted_apart_from_a_null_one() {
    let summary = summary_of(json!([{"a": 1, "b": null}, {"a": 2}, {"a": null, "b": "x"}]));
    assert_eq!(
        summary["fields"]["a"],
        json!({"type": "number", "nulls": 1, "min": 1, "max": 2})
    );
    assert_eq!(
        summary["fields"]["b"],
        json!({"type": "string", "nulls": 1, "missing": 1, "values": {"x": 1}})
    );
}

#[test]
fn mixed_types_are_named_together_and_a_field_always_null_is_null() {
    let summary = summary_of(json!([{"v": 1, "n": null}, {"v": "one", "n": null}]));
    assert_eq!(summary["fields"]["v"]["type"], "string|number");
    assert_eq!(summary["fields"]["n"]["type"], "null");
    assert_eq!(summary["fields"]["n"]["nulls"], 2);
}

#[test]
fn a_list_of_scalars_is_summarized_as_its_items() {
    let summary = summary_of(json!([3, 1.5, null, 7]));
    assert_eq!(
        summary,
        json!({"type": "list", "count": 4,
               "items": {"type": "number", "nulls": 1, "min": 1.5, "max": 7}})
    );
    let mixed = summary_of(json!([{"id": 1}, "loose"]));
    assert_eq!(mixed["fields"]["id"]["type"], "number");
    assert_eq!(mixed["items"]["type"], "string|object");
}

#[test]
fn fields_past_the_limit_are_only_counted() {
    let item: Map<String, Value> = (0..100).map(|i| (format!("f{i:03}"), json!(i))).collect();
    let summary = summary_of(json!([item.clone(), item]));
    let fields = summary["fields"].as_object().unwrap();
    assert_eq!(fields.len(), MAX_FIELDS);
    assert!(fields.contains_key("f000") && !fields.contains_key(&format!("f{MAX_FIELDS:03}")));
    assert_eq!(summary["other_fields"], 100 - MAX_FIELDS);
}

#[test]
fn object_keys_past_the_limit_are_only_counted() {
    let wide: Map<String, Value> = (0..100).map(|i| (format!("k{i}"), json!(i))).collect();
    let summary = summary_of(json!([{ "extra": wide }]));
    let extra = &summary["fields"]["extra"];
    assert_eq!(extra["keys"].as_array().unwrap().len(), MAX_FIELDS);
    assert_eq!(extra["other_keys"], 100 - MAX_FIELDS);
}

#[test]
fn long_values_are_cut_and_values_alike_before_the_cut_count_together() {
    let long = |tail: &str| format!("{}{tail}", "x".repeat(MAX_STRING_CHARS));
    let summary = summary_of(json!([{"note": long("a")}, {"note": long("b")}, {"note": "short"}]));
    let key = format!("{}…", "x".repeat(MAX_STRING_CHARS));
    assert_eq!(
        summary["fields"]["note"]["values"],
        json!({ key: 2, "short": 1 })
    );
}

#[test]
fn the_summary_is_bounded_whatever_the_list() {
    // The worst case: every field at the limit, every value long and
    // repeated, so values are listed for each field.
    let long = |i: usize, v: usize| format!("{i:02}{v:02}{}", "z".repeat(500));
    let value: Value = (0..2_000)
        .map(|n| {
            (0..MAX_FIELDS + 10)
                .map(|i| {
                    (
                        format!("{i:02}{}", "k".repeat(500)),
                        json!(long(i, n % (MAX_VALUES + 5))),
                    )
                })
                .collect::<Map<_, _>>()
        })
        .map(Value::Object)
        .collect();
    let text = summary_of(value).to_string();
    // Per field: its cut name, and per listed value a cut string and a
    // count; plus a few fixed keys.
    let per_value = MAX_STRING_CHARS * 3 + 10;
    let bound = MAX_FIELDS * (MAX_STRING_CHARS * 3 + 100 + MAX_VALUES * per_value) + 200;
    assert!(text.len() <= bound, "{} bytes > {bound}", text.len());
}

#[test]
fn summary_of_an_object_gives_its_keys_and_their_shapes() {
    let value = json!({"id": 7, "name": "edge", "tags": ["a", "b"], "meta": {"x": 1}, "ok": true, "gone": null});
    assert_eq!(
        summary_of(value),
        json!({
            "type": "object", "count": 6,
            "keys": {"id": "number", "name": "string", "tags": "list(2)", "meta": "object(1)", "ok": "bool", "gone": "null"},
            "paged": "tags",
            "list": {"type": "list", "count": 2, "items": {"type": "string", "nulls": 0, "values": {"a": 1, "b": 1}}},
        })
    );
}

#[test]
fn summary_of_a_wrapper_names_the_paged_list_and_summarizes_it() {
    let value = json!({"count": 93, "next": "p2", "previous": null, "results": rows(93)});
    let summary = summary_of(value);
    assert_eq!(summary["keys"]["results"], "list(93)");
    assert_eq!(summary["paged"], "results");
    assert_eq!(summary["list"]["count"], 93);
    assert_eq!(
        summary["list"]["fields"]["site"]["values"],
        json!({"hq": 93})
    );
}

#[test]
fn summary_of_a_single_write_names_no_paged_list() {
    let device = json!({"id": 7, "tags": ["a", "b"]});
    let summary = serve(
        device,
        Origin::SingleWrite,
        &asked(Mode::Summary, 1, 20),
        &config(),
    )
    .unwrap();
    assert!(summary.get("paged").is_none(), "{summary}");
}

#[test]
fn summary_of_a_huge_object_names_at_most_the_field_limit() {
    let value: Value = (0..1000)
        .map(|i| (format!("k{i}"), json!(i)))
        .collect::<Map<_, _>>()
        .into();
    let summary = summary_of(value);
    assert_eq!(summary["count"], 1000);
    assert_eq!(summary["keys"].as_object().unwrap().len(), MAX_FIELDS);
    assert_eq!(summary["other_keys"], 1000 - MAX_FIELDS);
}

#[test]
fn summary_of_scalars() {
    assert_eq!(
        summary_of(json!("y".repeat(5000))),
        json!({"type": "string", "length": 5000, "value": format!("{}…", "y".repeat(MAX_STRING_CHARS))})
    );
    assert_eq!(
        summary_of(json!(42)),
        json!({"type": "number", "value": 42})
    );
    assert_eq!(
        summary_of(json!(null)),
        json!({"type": "null", "value": null})
    );
}
