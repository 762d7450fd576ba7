//! A server is built once: `build` checks every setting together, and what
//! the built server publishes is what it serves.

use mcp_light::catalog::Surface;
use mcp_light::clients::ClientTable;
use mcp_light::heavy::HeavyConfig;
use mcp_light::{BuildError, Caller, ConfigError};
use serde_json::json;

use crate::fixtures::{Harness, error_text, ok_json};

/// The page sizes a server publishes are the ones it serves by: one
/// `HeavyConfig`, whatever order the settings were given in.
#[tokio::test]
async fn a_published_page_size_maximum_is_the_one_a_redemption_is_held_to() {
    let h = Harness::new();
    let heavy = HeavyConfig::new().with_max_page_size(500).unwrap();
    // A caller that keeps a page of 300 rows whole (some 31 KB): what it
    // may ask is held to the published maximum, not to what it keeps.
    let clients = ClientTable::new().with_unknown_client(1 << 20).unwrap();
    // The dispatcher is added before the limits and the store after them:
    // every schema still publishes the one configuration.
    let server = h
        .builder()
        .with_dispatcher("inventory")
        .with_heavy_config(heavy)
        .with_shared_store(Some(h.store.clone()))
        .with_clients(clients)
        .build()
        .unwrap();
    for name in ["device_list", "inventory"] {
        let tool = server.tool(name).unwrap();
        assert_eq!(
            tool.input_schema["properties"]["page_size"]["maximum"], 500,
            "{name}"
        );
    }

    let probe = ok_json(
        &server
            .call(
                "inventory",
                json!({"resource": "row", "action": "list", "params": {"n": 1_000, "width": 100}}),
                Caller::Process,
            )
            .await,
    );
    let token = probe["continuation_token"].clone();
    let page = ok_json(
        &server
            .call(
                "inventory",
                json!({"continuation_token": token, "page_size": 300}),
                Caller::Process,
            )
            .await,
    );
    assert_eq!(page["items"].as_array().unwrap().len(), 300);
    assert_eq!(
        (&page["page_size"], &page["total"]),
        (&json!(300), &json!(1_000))
    );

    let refused = error_text(
        &server
            .call(
                "inventory",
                json!({"continuation_token": token, "page_size": 501}),
                Caller::Process,
            )
            .await,
    );
    assert!(refused.contains("500"), "{refused}");
}

#[test]
fn page_sizes_that_do_not_fit_together_are_refused_by_build() {
    let mut heavy = HeavyConfig::new().with_max_page_size(10).unwrap();
    heavy.default_page_size = 50;
    let error = Harness::new()
        .builder()
        .with_heavy_config(heavy)
        .build()
        .unwrap_err();
    let BuildError::Config(ConfigError::OutOfRange {
        setting,
        value,
        max,
        ..
    }) = &error
    else {
        panic!("expected a page-size error, got {error:?}");
    };
    assert_eq!(
        (*setting, *value, *max),
        ("HeavyConfig::default_page_size", 50, Some(10))
    );

    // A field set to 0 behind the setters' back is refused as they would.
    let mut zero = HeavyConfig::new();
    zero.max_page_size = 0;
    let error = Harness::new()
        .builder()
        .with_heavy_config(zero)
        .build()
        .unwrap_err();
    assert!(
        error.to_string().contains("HeavyConfig::max_page_size"),
        "{error}"
    );
}

#[test]
fn two_dispatchers_of_one_name_are_refused_by_build() {
    let error = Harness::new()
        .builder()
        .with_dispatcher("inventory")
        .with_dispatcher("inventory")
        .build()
        .unwrap_err();
    assert!(
        matches!(&error, BuildError::DuplicateName { name, .. } if name == "inventory"),
        "{error:?}"
    );
}

/// `tool` finds what `tools` lists, and nothing it does not.
#[test]
fn a_name_finds_the_tool_tools_list_shows_and_an_unpublished_one_finds_nothing() {
    let h = Harness::new();
    let server = h
        .builder()
        .with_dispatcher("inventory")
        .with_surface(Surface::Dispatcher)
        .build()
        .unwrap();
    for listed in server.tools() {
        assert_eq!(server.tool(&listed.name), Some(listed));
    }
    // `row_list` is reached through the dispatcher only on this surface.
    assert!(server.registry().get("row_list").is_some());
    assert!(server.tool("row_list").is_none());
    assert!(server.tool("inventory").is_some());
    assert!(server.tool("no_such_tool").is_none());
}

/// A clone is the same frozen server: what one answers, the other does,
/// tokens included.
#[tokio::test]
async fn a_clone_of_a_built_server_shares_its_store_and_tools() {
    let h = Harness::with_devices(30).await;
    let server = h.dispatched();
    let clone = server.clone();
    assert_eq!(server.tools(), clone.tools());
    let route = json!({"resource": "device", "action": "list", "params": {}});
    let probe = ok_json(&server.call("inventory", route, Caller::Process).await);
    let page = ok_json(
        &clone
            .call(
                "inventory",
                json!({"continuation_token": probe["continuation_token"]}),
                Caller::Process,
            )
            .await,
    );
    assert_eq!(page["total"], 30);
}
