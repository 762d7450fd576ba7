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
    // 42 positions, about 11 devices each: the 20 most frequent listed.
    let position = &fields["position"];
    assert_eq!(
        (
            &position["type"],
            &position["nulls"],
            &position["min"],
            &position["max"]
        ),
        (&json!("number"), &json!(50), &json!(1), &json!(42))
    );
    assert_eq!(position["distinct"], 42);
    assert_eq!(position["values"].as_object().unwrap().len(), MAX_VALUES);
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
        json!({"type": "string", "nulls": 0, "distinct": 500, "unique": true})
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
        json!({"type": "number", "nulls": 1, "min": 1, "max": 2, "distinct": 2, "unique": true})
    );
    assert_eq!(
        summary["fields"]["b"],
        json!({"type": "string", "nulls": 1, "missing": 1, "distinct": 1, "unique": true})
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
               "items": {"type": "number", "nulls": 1, "min": 1.5, "max": 7, "distinct": 3, "unique": true}})
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
fn long_values_alike_before_the_cut_are_two_values_with_two_labels() {
    // Kept whole (41 characters) or by their hash (300), alike.
    for length in [MAX_STRING_CHARS, 299] {
        long_values_of(length);
    }
}

fn long_values_of(length: usize) {
    let long = |tail: &str| format!("{}{tail}", "x".repeat(length));
    let summary = summary_of(json!([
        {"note": long("a")}, {"note": long("b")}, {"note": long("b")}, {"note": "short"}
    ]));
    let note = &summary["fields"]["note"];
    let values = note["values"].as_object().unwrap();
    assert_eq!(values.len(), 3, "{note}");
    let counts: Vec<u64> = values.values().map(|n| n.as_u64().unwrap()).collect();
    assert_eq!(counts, [2, 1, 1], "{note}");
    assert_eq!(values["short"], 1);
    // Each long label: the first characters, `…#`, and the start of the
    // whole value's SHA-256.
    let head = format!("{}…#", "x".repeat(MAX_STRING_CHARS));
    let cut: Vec<&String> = values
        .keys()
        .filter(|label| label.starts_with(&head))
        .collect();
    assert_eq!(cut.len(), 2, "{note}");
    assert_ne!(cut[0], cut[1]);
    assert_eq!(cut[0].chars().count(), MAX_STRING_CHARS + 2 + 8);
    assert_eq!(note["cut_labels"], true);
    let short = summary_of(json!([{"note": "short"}, {"note": "short"}]));
    assert!(short["fields"]["note"].get("cut_labels").is_none());
}

#[test]
fn a_small_integer_field_counts_each_value_exactly() {
    // Priorities 1 to 4, in unequal numbers: 1 for 40 tasks, 2 for 30, ...
    let value: Value = (1..=4)
        .flat_map(|priority| (0..50 - 10 * priority).map(move |_| json!({"priority": priority})))
        .collect();
    assert_eq!(
        summary_of(value)["fields"]["priority"],
        json!({"type": "number", "nulls": 0, "min": 1, "max": 4,
               "values": {"1": 40, "2": 30, "3": 20, "4": 10}})
    );
}

#[test]
fn numbers_are_told_apart_by_their_json_text() {
    let summary = summary_of(json!([1, 1, 1.0, -1, -1, 2.5, 2.5, 2.5]));
    assert_eq!(
        summary["items"]["values"],
        json!({"2.5": 3, "-1": 2, "1": 2, "1.0": 1})
    );
}

#[test]
fn sixty_urls_alike_in_their_first_40_characters_are_sixty_values() {
    let url = |i: usize| format!("https://netbox.example.com/api/dcim/devices/{}/", 1000 + i);
    assert!(url(0)[..MAX_STRING_CHARS] == url(59)[..MAX_STRING_CHARS]);
    // Each once: every value different.
    let once: Value = (0..60).map(|i| json!({"url": url(i)})).collect();
    assert_eq!(
        summary_of(once)["fields"]["url"],
        json!({"type": "string", "nulls": 0, "distinct": 60, "unique": true})
    );
    // Each twice: 60 values, none listed (the 20 most frequent cover a
    // third of them), never two.
    let twice: Value = (0..120).map(|i| json!({"url": url(i % 60)})).collect();
    assert_eq!(
        summary_of(twice)["fields"]["url"],
        json!({"type": "string", "nulls": 0, "distinct": 60})
    );
    // A label: the first 40 characters, `…#` and the first hex digits of
    // the whole URL's SHA-256.
    let three: Value = (0..5).map(|i| json!({"url": url(i % 2)})).collect();
    let url_field = &summary_of(three)["fields"]["url"];
    assert_eq!(
        url_field["values"],
        json!({
            "https://netbox.example.com/api/dcim/devi…#b58b8c04": 3,
            "https://netbox.example.com/api/dcim/devi…#acc7beec": 2,
        })
    );
    // 15 of them, four times each: listed, each with its own label.
    let listed: Value = (0..60).map(|i| json!({"url": url(i % 15)})).collect();
    let url_field = &summary_of(listed)["fields"]["url"];
    let values = url_field["values"].as_object().unwrap();
    assert_eq!(values.len(), 15, "{url_field}");
    assert!(values.values().all(|n| *n == 4), "{url_field}");
}

#[test]
fn thousands_of_long_comments_alike_in_their_first_40_characters_are_not_one_value() {
    let comment = |i: usize| {
        format!("Checked the uplink on the rack after the maintenance window, ticket {i}")
    };
    let value: Value = (0..2_500).map(|i| json!({"comment": comment(i)})).collect();
    let field = &summary_of(value)["fields"]["comment"];
    // Past the values tracked, how many there are is known from below;
    // nothing is listed, so nothing is charted.
    assert_eq!(
        *field,
        json!({"type": "string", "nulls": 0, "distinct_at_least": MAX_TRACKED_VALUES + 1})
    );
    let few: Value = (0..2_500)
        .map(|i| json!({"comment": comment(i % 5)}))
        .collect();
    let field = &summary_of(few)["fields"]["comment"];
    let values = field["values"].as_object().unwrap();
    assert_eq!(values.len(), 5, "{field}");
    assert!(values.values().all(|n| *n == 500), "{field}");
}

#[test]
fn strings_beside_numbers_are_quoted_so_no_two_labels_are_alike() {
    let summary = summary_of(json!([1, 1, "1", "1", true, "true", "\"1\""]));
    assert_eq!(
        summary["items"]["values"],
        json!({"true": 1, "1": 2, "\"1\"": 2, "\"\\\"1\\\"\"": 1, "\"true\"": 1})
    );
}

#[test]
fn a_field_past_the_tracked_values_counts_the_rest_as_other() {
    // 1,500 distinct values, the first five held by many: those are
    // listed, the others counted in `other`.
    let value: Value = (0..3_000)
        .map(|i| json!({"v": if i < 1_500 { i % 5 } else { i }}))
        .collect();
    let field = &summary_of(value)["fields"]["v"];
    let values = field["values"].as_object().unwrap();
    assert_eq!(values.len(), MAX_VALUES);
    assert_eq!(values["0"], 300);
    let listed: u64 = values.values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(listed + field["other"].as_u64().unwrap(), 3_000);
    assert_eq!(field["distinct_at_least"], MAX_TRACKED_VALUES + 1);
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
            "list": {"type": "list", "count": 2, "items": {"type": "string", "nulls": 0, "distinct": 2, "unique": true}},
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
