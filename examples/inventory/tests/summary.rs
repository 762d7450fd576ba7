//! `device_list`'s `summary` answers the questions an agent asks of an
//! inventory — how many devices per site, per status — exactly, from one
//! redemption instead of paging through every device.

use std::collections::BTreeMap;

use inventory::db::{self, Db};
use inventory::fixture;
use mcp_light::{CallToolResult, Caller};
use serde_json::{Value, json};

/// The 500 fixture devices the report and the Python suite use.
const DEVICES: usize = 500;

fn json_of(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap()
}

/// How many of `values` are each value.
fn tally<'a>(values: impl Iterator<Item = &'a str>) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for value in values {
        *counts.entry(value.to_owned()).or_default() += 1;
    }
    counts
}

fn counts_of(summary: &Value, field: &str) -> BTreeMap<String, u64> {
    summary["fields"][field]["values"]
        .as_object()
        .unwrap_or_else(|| panic!("no value counts for {field}: {summary}"))
        .iter()
        .map(|(value, n)| (value.clone(), n.as_u64().unwrap()))
        .collect()
}

#[tokio::test]
async fn the_500_device_summary_counts_devices_per_site_and_per_status_exactly() {
    let db = Db::open(None).unwrap();
    let devices = fixture::new_devices(DEVICES, 1);
    db.run_now({
        let devices = devices.clone();
        |conn| {
            db::ensure_sites(conn, fixture::new_sites())?;
            db::create_devices(conn, devices)
        }
    })
    .unwrap();
    let server = inventory::server(db).build().unwrap();

    let probe = json_of(&server.call("device_list", json!({}), Caller::Process).await);
    let redeem = json!({"continuation_token": probe["continuation_token"], "mode": "summary"});
    let summary = json_of(&server.call("device_list", redeem, Caller::Process).await);

    assert_eq!(summary["count"], DEVICES);
    assert_eq!(
        counts_of(&summary, "site_slug"),
        tally(devices.iter().map(|d| d.site_slug.as_str()))
    );
    assert_eq!(
        counts_of(&summary, "status"),
        tally(devices.iter().map(|d| d.status.as_str()))
    );
    assert_eq!(
        counts_of(&summary, "role"),
        tally(devices.iter().map(|d| d.role.as_str()))
    );
}
