//! The lean write path on flat tools. A single write's flat schema gives
//! no slot for a token, so it takes outcome 2 or 3 and stores nothing; a
//! bulk write's schema has one, so with a store it answers a token (and
//! its ids while they fit the envelope), and only a server without a store
//! answers every id (outcome 2) or the full result (outcome 3).

use mcp_light::{Caller, Server};
use serde_json::{Value, json};

use crate::fixtures::{Harness, error_text, keys, new_devices, ok_json};

/// A server over `h`'s tools and inventory that keeps no store: a bulk
/// write there can mint no token, so it takes outcome 2 or 3.
fn storeless(h: &Harness) -> Server {
    h.builder().with_shared_store(None).build().unwrap()
}

/// `tool` called on `server` as the harness calls.
async fn call_on(server: &Server, tool: &str, args: Value) -> mcp_light::CallToolResult {
    server
        .call(tool, args, Caller::Session("alice".into()))
        .await
}

#[tokio::test]
async fn single_create_answers_the_tokenless_envelope_in_key_order() {
    let h = Harness::new();
    let args = json!({"device": {"name": "edge-01", "site_slug": "hq-1", "role": "leaf"}});
    let envelope = ok_json(&h.call("device_create", args).await);

    assert_eq!(
        keys(&envelope),
        [
            "id",
            "url",
            "name",
            "site_slug",
            "role",
            "status_code",
            "data_size"
        ]
    );
    let device = h.inventory.devices.lock().unwrap()[0].clone();
    assert_eq!(envelope["id"], json!(device.id));
    assert_eq!(envelope["url"], json!(device.url));
    assert_eq!(envelope["name"], "edge-01");
    assert_eq!(envelope["site_slug"], "hq-1");
    assert_eq!(envelope["role"], "leaf");
    assert_eq!(envelope["status_code"], 201);
    assert_eq!(
        envelope["data_size"],
        serde_json::to_vec(&device).unwrap().len()
    );
    assert!(h.store.is_empty(), "outcome 2 stores nothing");
}

#[tokio::test]
async fn without_a_store_bulk_create_answers_every_id_in_input_order() {
    let h = Harness::new();
    let server = storeless(&h);
    let envelope = ok_json(
        &call_on(
            &server,
            "device_bulk_create",
            json!({"devices": new_devices(60)}),
        )
        .await,
    );

    assert_eq!(
        keys(&envelope),
        ["accepted", "status_code", "data_size", "ids"]
    );
    assert_eq!(envelope["accepted"], 60);
    assert_eq!(envelope["status_code"], 201);
    let devices = h.inventory.devices.lock().unwrap().clone();
    let names: Vec<&str> = devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names[..3],
        ["edge-00", "edge-01", "edge-02"],
        "devices were written in input order"
    );
    let ids: Vec<Value> = devices.iter().map(|d| json!(d.id)).collect();
    assert_eq!(envelope["ids"], Value::Array(ids));
    assert_eq!(
        envelope["data_size"],
        serde_json::to_vec(&devices).unwrap().len()
    );
    assert!(envelope.get("continuation_token").is_none());
}

#[tokio::test]
async fn with_a_store_bulk_create_answers_a_token_that_pages_every_id_in_input_order() {
    let h = Harness::new();
    let envelope = ok_json(
        &h.call("device_bulk_create", json!({"devices": new_devices(60)}))
            .await,
    );

    // 60 UUIDs would take the envelope past its 1,024 bytes: the token alone.
    assert_eq!(
        keys(&envelope),
        ["accepted", "status_code", "data_size", "continuation_token"]
    );
    assert!(envelope.to_string().len() <= mcp_light::defaults::ENVELOPE_BYTES);
    assert_eq!(envelope["accepted"], 60);
    assert_eq!(envelope["status_code"], 201);
    let devices = h.inventory.devices.lock().unwrap().clone();
    assert_eq!(
        envelope["data_size"],
        serde_json::to_vec(&devices).unwrap().len()
    );
    assert_eq!(h.store.len(), 1, "outcome 1 keeps the result");

    let runs = h.runs();
    let page = ok_json(
        &h.call(
            "device_bulk_create",
            json!({
                "continuation_token": envelope["continuation_token"],
                "mode": "filtered",
                "filter_keys": ["id"],
            }),
        )
        .await,
    );
    assert_eq!(h.runs(), runs, "redeeming runs nothing again");
    assert_eq!(page["has_more"], false, "60 ids fit one page: {page}");
    let ids: Vec<Value> = devices.iter().map(|d| json!({"id": d.id})).collect();
    assert_eq!(page["items"], Value::Array(ids), "every id, in input order");
}

#[tokio::test]
async fn verify_returns_the_full_objects_and_stores_nothing() {
    let h = Harness::new();
    let result = ok_json(
        &h.call(
            "device_bulk_create",
            json!({"devices": new_devices(3), "verify": true}),
        )
        .await,
    );

    let devices = h.inventory.devices.lock().unwrap().clone();
    assert_eq!(result, serde_json::to_value(&devices).unwrap());
    assert_eq!(result[2]["serial"], "SN000002");
    assert!(h.store.is_empty());
}

#[tokio::test]
async fn verify_false_is_the_default_envelope() {
    let h = Harness::new();
    let args = json!({"device": {"name": "a", "site_slug": "s", "role": "r"}, "verify": false});
    let envelope = ok_json(&h.call("device_create", args).await);
    assert_eq!(envelope["status_code"], 201);
    assert!(envelope.get("serial").is_none());
}

#[tokio::test]
async fn destroy_takes_its_id_from_the_arguments() {
    let h = Harness::new();
    let created = ok_json(
        &h.call(
            "device_create",
            json!({"device": {"name": "a", "site_slug": "s", "role": "r"}}),
        )
        .await,
    );
    let id = created["id"].clone();

    let envelope = ok_json(&h.call("device_destroy", json!({"id": id})).await);
    assert_eq!(
        envelope.to_string(),
        format!(r#"{{"id":{id},"deleted":true,"status_code":204}}"#)
    );
    assert_eq!(h.device_count(), 0);
}

#[tokio::test]
async fn partial_update_reports_200() {
    let h = Harness::new();
    let created = ok_json(
        &h.call(
            "device_create",
            json!({"device": {"name": "a", "site_slug": "s", "role": "r"}}),
        )
        .await,
    );
    let envelope = ok_json(
        &h.call("device_rename", json!({"id": created["id"], "name": "b"}))
            .await,
    );
    assert_eq!(envelope["name"], "b");
    assert_eq!(envelope["status_code"], 200);
}

#[tokio::test]
async fn a_write_without_a_retrieve_tool_returns_the_full_result() {
    let h = Harness::new();
    let args = json!({"device": {"name": "g", "site_slug": "s", "role": "r", "serial": "Q1"}});
    let result = ok_json(&h.call("gadget_create", args).await);
    assert_eq!(result["serial"], "Q1", "outcome 3 returns the object whole");
    assert!(result.get("status_code").is_none());
    assert!(h.store.is_empty());
}

#[tokio::test]
async fn a_result_without_an_id_returns_the_full_result() {
    let h = Harness::new();
    let result = ok_json(&h.call("receipt_create", json!({"name": "r-1"})).await);
    assert_eq!(result, json!({"name": "r-1", "lines": ["one", "two"]}));
}

#[tokio::test]
async fn a_serde_renamed_id_keeps_its_serialized_name() {
    let h = Harness::new();
    let envelope = ok_json(&h.call("renamed_create", json!({"pk": 5})).await);
    let size = serde_json::to_vec(&crate::fixtures::renamed_get(5))
        .unwrap()
        .len();
    assert_eq!(
        envelope.to_string(),
        format!(
            r#"{{"pk":5,"display":"record 5","siteSlug":"hq","status_code":201,"data_size":{size}}}"#
        )
    );
}

#[tokio::test]
async fn a_value_result_is_keyed_by_the_same_names_at_run_time() {
    let h = Harness::new();
    let record = json!({"name": "n", "blob": "x".repeat(100), "url": "/r/3", "id": 3});
    let envelope = ok_json(&h.call("record_create", json!({"record": record})).await);
    assert_eq!(
        envelope.to_string(),
        format!(
            r#"{{"id":3,"url":"/r/3","name":"n","status_code":201,"data_size":{}}}"#,
            record.to_string().len()
        )
    );
}

#[tokio::test]
async fn a_value_result_without_an_id_returns_the_full_result() {
    let h = Harness::new();
    let record = json!({"name": "n"});
    let result = ok_json(&h.call("record_create", json!({"record": record})).await);
    assert_eq!(result, record);
}

#[tokio::test]
async fn a_bulk_result_with_one_element_lacking_an_id_returns_everything_and_no_partial_ids() {
    let h = Harness::new();
    let records = json!([{"id": 1}, {"id": 2}, {"name": "no id"}, {"id": 4}]);
    let result = ok_json(
        &call_on(
            &storeless(&h),
            "record_bulk_create",
            json!({"records": records}),
        )
        .await,
    );
    assert_eq!(
        result, records,
        "outcome 3: the full list, not an envelope with ids"
    );

    // With a store, the token reaches everything: still no partial ids.
    let envelope = ok_json(
        &h.call("record_bulk_create", json!({"records": records}))
            .await,
    );
    assert_eq!(
        keys(&envelope),
        ["accepted", "status_code", "data_size", "continuation_token"]
    );
    assert_eq!(envelope["accepted"], 4);
    let whole = ok_json(
        &h.call(
            "record_bulk_create",
            json!({"continuation_token": envelope["continuation_token"], "mode": "full"}),
        )
        .await,
    );
    assert_eq!(whole, records, "the token answers everything");
}

#[tokio::test]
async fn a_bulk_result_with_a_null_id_counts_as_lacking_one() {
    let h = Harness::new();
    let records = json!([{"id": 1}, {"id": null}]);
    let result = ok_json(
        &call_on(
            &storeless(&h),
            "record_bulk_create",
            json!({"records": records}),
        )
        .await,
    );
    assert_eq!(result, records, "outcome 3: the full list");

    let envelope = ok_json(
        &h.call("record_bulk_create", json!({"records": records}))
            .await,
    );
    assert!(envelope.get("ids").is_none(), "no partial ids: {envelope}");
    assert!(envelope["continuation_token"].is_string());
}

#[tokio::test]
async fn a_bulk_value_result_with_all_ids_answers_them_in_order() {
    let h = Harness::new();
    let records = json!([{"pk": "c"}, {"pk": "a"}, {"pk": "b"}]);
    let size = records.to_string().len();

    // With a store: the token, and the ids beside it, in order.
    let envelope = ok_json(
        &h.call("record_bulk_create", json!({"records": records}))
            .await,
    );
    let token = envelope["continuation_token"].as_str().expect("a token");
    assert_eq!(
        envelope.to_string(),
        format!(
            r#"{{"accepted":3,"status_code":201,"data_size":{size},"continuation_token":"{token}","ids":["c","a","b"]}}"#
        )
    );

    // Without one: the ids alone (outcome 2).
    let envelope = ok_json(
        &call_on(
            &storeless(&h),
            "record_bulk_create",
            json!({"records": records}),
        )
        .await,
    );
    assert_eq!(
        envelope.to_string(),
        format!(r#"{{"accepted":3,"status_code":201,"data_size":{size},"ids":["c","a","b"]}}"#)
    );
}

#[tokio::test]
async fn an_empty_bulk_write_accepts_zero() {
    let h = Harness::new();
    let envelope = ok_json(&h.call("device_bulk_create", json!({"devices": []})).await);
    let token = envelope["continuation_token"].as_str().expect("a token");
    assert_eq!(
        envelope.to_string(),
        format!(
            r#"{{"accepted":0,"status_code":201,"data_size":2,"continuation_token":"{token}","ids":[]}}"#
        )
    );

    let envelope =
        ok_json(&call_on(&storeless(&h), "device_bulk_create", json!({"devices": []})).await);
    assert_eq!(
        envelope.to_string(),
        r#"{"accepted":0,"status_code":201,"data_size":2,"ids":[]}"#
    );
}

#[tokio::test]
async fn a_tool_returning_err_is_an_error_result_with_its_message() {
    let h = Harness::new();
    let text = error_text(&h.call("broken_create", json!({"reason": "quota"})).await);
    assert_eq!(text, "`broken_create` failed: the inventory refused: quota");
}
