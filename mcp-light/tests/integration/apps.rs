//! The MCP Apps viewer (the `apps` feature), over rmcp's client: what a
//! client that declares the extension is shown, what every other client
//! is not, and the viewer's own tools, bound to the token's owner.

use mcp_light::apps::{EXTENSION_ID, VIEWER_HTML, VIEWER_MIME_TYPE, VIEWER_URI};
use mcp_light::prelude::*;
use mcp_light::{Caller, Principal, Server};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion, ReadResourceRequestParams, ResourceContents, Tool,
};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

use crate::fixtures::{Harness, error_text, new_devices, ok_json};

/// A write whose attribute turns its view off.
#[mcp_light(create, resource = "unviewed", view = false)]
pub fn unviewed_create(name: String) -> Value {
    json!({"id": 7, "name": name})
}

/// Rows a caller needs a scope to read: too many to answer inline.
#[mcp_heavy(scopes = ["rows:read"])]
pub fn scoped_rows() -> Vec<String> {
    (0..2_000)
        .map(|i| format!("row {i:06} of the scoped list"))
        .collect()
}

type Client = RunningService<RoleClient, ClientConfig>;

/// A client's capabilities: with the extension declared, or none.
fn capabilities(declares: bool) -> ClientCapabilities {
    match declares {
        true => serde_json::from_value(json!({
            "extensions": {EXTENSION_ID: {"mimeTypes": [VIEWER_MIME_TYPE]}}
        }))
        .unwrap(),
        false => ClientCapabilities::default(),
    }
}

/// A client of `server` that is `caller`, declaring the extension or not,
/// on `version`.
async fn connect(
    server: Server,
    caller: Caller,
    declares: bool,
    version: ProtocolVersion,
) -> Client {
    let client_io = crate::fixtures::pipe(server.into_handler(caller));
    let client = ClientConfig::new(capabilities(declares), Implementation::new("host", "1.0.0"));
    let lifecycle = crate::fixtures::lifecycle(version);
    rmcp::ClientServiceExt::serve_with_lifecycle(client, client_io, lifecycle)
        .await
        .expect("the client connects")
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .expect("tools/call answers")
}

fn view_of(tool: &Tool) -> Option<&Value> {
    tool.meta.as_ref().and_then(|meta| meta.0.get("ui"))
}

const VIEW_TOOLS: [&str; 4] = ["view_page", "view_filter", "view_summary", "view_fetch"];

#[tokio::test]
async fn without_the_declaration_tools_list_is_the_list_as_built() {
    let h = Harness::new();
    let server = h.dispatched();
    for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let client = connect(server.clone(), Caller::Process, false, version.clone()).await;
        let listed = client.list_all_tools().await.unwrap();
        assert_eq!(
            serde_json::to_string(&listed).unwrap(),
            serde_json::to_string(server.tools()).unwrap(),
            "{version:?}"
        );
        assert!(listed.iter().all(|tool| tool.meta.is_none()));
        assert!(
            !listed
                .iter()
                .any(|tool| VIEW_TOOLS.contains(&tool.name.as_ref()))
        );
    }
}

#[tokio::test]
async fn a_declaring_client_is_pointed_at_the_viewer_by_heavy_reads_writes_and_dispatchers() {
    let h = Harness::new();
    let server = h.dispatched();
    for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let client = connect(server.clone(), Caller::Process, true, version.clone()).await;
        let listed = client.list_all_tools().await.unwrap();
        let find = |name: &str| {
            listed
                .iter()
                .find(|tool| tool.name == name)
                .unwrap_or_else(|| panic!("{name} is listed"))
        };
        let viewer = json!({"resourceUri": VIEWER_URI});
        for viewed in [
            "device_list",
            "device_create",
            "device_bulk_create",
            "inventory",
        ] {
            assert_eq!(
                view_of(find(viewed)),
                Some(&viewer),
                "{viewed} on {version:?}"
            );
        }
        for unviewed in ["device_get", "count", "unviewed_create"] {
            assert_eq!(view_of(find(unviewed)), None, "{unviewed}");
        }
        for app_only in VIEW_TOOLS {
            assert_eq!(
                view_of(find(app_only)),
                Some(&json!({"visibility": ["app"]})),
                "{app_only}"
            );
        }
        // Past the viewer's meta and tools, the list is every other client's.
        let mut without: Vec<Tool> = listed
            .into_iter()
            .filter(|tool| !VIEW_TOOLS.contains(&tool.name.as_ref()))
            .collect();
        for tool in &mut without {
            tool.meta = None;
        }
        assert_eq!(
            serde_json::to_string(&without).unwrap(),
            serde_json::to_string(server.tools()).unwrap()
        );
    }
}

#[tokio::test]
async fn the_viewer_is_a_resource_with_a_csp_that_reaches_no_origin() {
    let h = Harness::new();
    let client = connect(
        h.server.clone(),
        Caller::Process,
        true,
        ProtocolVersion::V_2025_11_25,
    )
    .await;
    let listed = client.list_all_resources().await.unwrap();
    let entry = listed
        .iter()
        .find(|resource| resource.uri == VIEWER_URI)
        .expect("the viewer is listed");
    assert_eq!(entry.mime_type.as_deref(), Some(VIEWER_MIME_TYPE));

    let read = client
        .read_resource(ReadResourceRequestParams::new(VIEWER_URI))
        .await
        .unwrap();
    let [
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            meta,
        },
    ] = read.contents.as_slice()
    else {
        panic!("one text content: {read:?}")
    };
    assert_eq!(
        (uri.as_str(), mime_type.as_deref()),
        (VIEWER_URI, Some(VIEWER_MIME_TYPE))
    );
    assert_eq!(text, VIEWER_HTML);
    let csp = &meta.as_ref().unwrap().0["ui"]["csp"];
    assert_eq!(csp, &json!({"connectDomains": [], "resourceDomains": []}));

    let other = client
        .read_resource(ReadResourceRequestParams::new("ui://mcp-light/other.html"))
        .await;
    assert!(other.is_err(), "only the viewer is served: {other:?}");
}

#[tokio::test]
async fn the_viewers_tools_are_not_served_to_a_client_that_did_not_declare() {
    let h = Harness::with_devices(3).await;
    let client = connect(
        h.server.clone(),
        Caller::Process,
        false,
        ProtocolVersion::V_2025_11_25,
    )
    .await;
    let probe = ok_json(&call(&client, "device_list", json!({})).await);
    let token = probe["continuation_token"].clone();
    let refused = error_text(
        &call(
            &client,
            "view_page",
            json!({"tool": "device_list", "continuation_token": token}),
        )
        .await,
    );
    assert!(
        refused.contains("unknown tool") || refused.contains("view_page"),
        "{refused}"
    );
}

#[tokio::test]
async fn another_caller_gets_the_refusal_the_model_path_gives() {
    let h = Harness::with_devices(5).await;
    let ada = Caller::Principal(Principal("ada".into()));
    let bob = Caller::Principal(Principal("bob".into()));
    let owner = connect(h.server.clone(), ada, true, ProtocolVersion::V_2025_11_25).await;
    let other = connect(h.server.clone(), bob, true, ProtocolVersion::V_2025_11_25).await;
    let token =
        ok_json(&call(&owner, "device_list", json!({})).await)["continuation_token"].clone();

    let through_model =
        error_text(&call(&other, "device_list", json!({"continuation_token": token})).await);
    for view in ["view_page", "view_summary", "view_fetch"] {
        let through_view = error_text(
            &call(
                &other,
                view,
                json!({"tool": "device_list", "continuation_token": token}),
            )
            .await,
        );
        assert_eq!(through_view, through_model, "{view}");
    }
    // The owner is served.
    let page = ok_json(
        &call(
            &owner,
            "view_page",
            json!({"tool": "device_list", "continuation_token": token}),
        )
        .await,
    );
    assert_eq!(page["total"], 5);
}

#[tokio::test]
async fn a_token_alone_is_redeemed_through_the_tool_it_was_kept_for() {
    let h = Harness::with_devices(5).await;
    let ada = Caller::Principal(Principal("ada".into()));
    let bob = Caller::Principal(Principal("bob".into()));
    let server = h.dispatched();
    let owner = connect(server.clone(), ada, true, ProtocolVersion::V_2026_07_28).await;
    let other = connect(server, bob, true, ProtocolVersion::V_2026_07_28).await;
    let token =
        ok_json(&call(&owner, "device_list", json!({})).await)["continuation_token"].clone();
    let alone = json!({"continuation_token": token});

    let page = ok_json(&call(&owner, "view_page", alone.clone()).await);
    assert_eq!(page["total"], 5, "{page}");
    let summary = ok_json(&call(&owner, "view_summary", alone.clone()).await);
    assert_eq!(summary["count"], 5, "{summary}");
    let filtered = ok_json(
        &call(
            &owner,
            "view_filter",
            json!({"continuation_token": token, "filter_keys": ["name"]}),
        )
        .await,
    );
    let first = filtered["items"][0].as_object().unwrap();
    assert_eq!(first.keys().collect::<Vec<_>>(), ["name"]);

    // A dispatcher's token names the dispatcher.
    let bulk = json!({"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(3)}});
    let envelope = ok_json(&call(&owner, "inventory", bulk).await);
    let written = ok_json(
        &call(
            &owner,
            "view_page",
            json!({"continuation_token": envelope["continuation_token"]}),
        )
        .await,
    );
    assert_eq!(written["total"], 3, "{written}");

    // Another caller's live token is refused as a string that is no token.
    let someone_elses = error_text(&call(&other, "view_page", alone).await);
    let no_token = error_text(
        &call(
            &other,
            "view_page",
            json!({"continuation_token": "not-a-token"}),
        )
        .await,
    );
    assert_eq!(someone_elses, no_token);
    assert!(
        someone_elses.contains("continuation token is unknown"),
        "{someone_elses}"
    );

    // Ids name no tool: their write must be named.
    let unnamed = error_text(
        &call(
            &owner,
            "view_fetch",
            json!({"ids": [written["items"][0]["id"]]}),
        )
        .await,
    );
    assert!(unnamed.contains("at `tool`"), "{unnamed}");
}

#[tokio::test]
async fn each_view_tool_serves_its_mode_within_the_bounds_of_every_redemption() {
    let h = Harness::with_devices(30).await;
    let client = connect(
        h.dispatched(),
        Caller::Process,
        true,
        ProtocolVersion::V_2026_07_28,
    )
    .await;
    let token =
        ok_json(&call(&client, "device_list", json!({})).await)["continuation_token"].clone();
    let read = |extra: Value| {
        let mut args = json!({"tool": "device_list", "continuation_token": token});
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        args
    };

    let page = ok_json(
        &call(
            &client,
            "view_page",
            read(json!({"page": 2, "page_size": 10})),
        )
        .await,
    );
    assert_eq!(
        (page["page"].clone(), page["total"].clone()),
        (json!(2), json!(30))
    );
    assert_eq!(page["items"].as_array().unwrap().len(), 10);

    let filtered = ok_json(
        &call(
            &client,
            "view_filter",
            read(json!({"filter_keys": ["name"]})),
        )
        .await,
    );
    let first = filtered["items"][0].as_object().unwrap();
    assert_eq!(first.keys().collect::<Vec<_>>(), ["name"]);

    let summary = ok_json(&call(&client, "view_summary", read(json!({}))).await);
    assert_eq!(
        (summary["type"].clone(), summary["count"].clone()),
        (json!("list"), json!(30))
    );

    // The bounds of every redemption, and hostile input.
    let too_big =
        error_text(&call(&client, "view_page", read(json!({"page_size": 100_000}))).await);
    assert!(too_big.contains("page_size"), "{too_big}");
    let unknown = error_text(&call(&client, "view_page", read(json!({"mode": "full"}))).await);
    assert!(
        unknown.contains("`mode` is not a field of view_page"),
        "{unknown}"
    );
    let plain = error_text(
        &call(
            &client,
            "view_page",
            json!({"tool": "device_get", "continuation_token": token}),
        )
        .await,
    );
    assert!(
        plain.contains("no tool of this server with a view"),
        "{plain}"
    );
    let bad = error_text(
        &call(
            &client,
            "view_summary",
            json!({"tool": "device_list", "continuation_token": "x"}),
        )
        .await,
    );
    assert!(bad.contains("continuation_token"), "{bad}");

    // Through the dispatcher, whose schema takes a token back: a bulk
    // write's objects by its token, and one write's whole object.
    let bulk = json!({"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(12)}});
    let envelope = ok_json(&call(&client, "inventory", bulk).await);
    let written = ok_json(
        &call(
            &client,
            "view_page",
            json!({"tool": "inventory", "continuation_token": envelope["continuation_token"]}),
        )
        .await,
    );
    assert_eq!(written["total"], 12);
    let one =
        json!({"resource": "device", "action": "create", "params": {"device": new_devices(1)[0]}});
    let created = ok_json(&call(&client, "inventory", one).await);
    let whole = ok_json(
        &call(
            &client,
            "view_fetch",
            json!({"tool": "inventory", "continuation_token": created["continuation_token"]}),
        )
        .await,
    );
    assert_eq!(whole["id"], created["id"]);
}

#[tokio::test]
async fn without_a_token_the_written_objects_come_through_the_retrieve_tool() {
    let h = Harness::new();
    let server = h.builder().with_shared_store(None).build().unwrap();
    let client = connect(server, Caller::Process, true, ProtocolVersion::V_2025_11_25).await;
    let envelope = ok_json(
        &call(
            &client,
            "device_bulk_create",
            json!({"devices": new_devices(4)}),
        )
        .await,
    );
    let ids = envelope["ids"].clone();
    assert_eq!(ids.as_array().map(Vec::len), Some(4), "{envelope}");
    let fetched = ok_json(
        &call(
            &client,
            "view_fetch",
            json!({"tool": "device_bulk_create", "ids": ids}),
        )
        .await,
    );
    let fetched_ids: Vec<&Value> = fetched["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| &item["id"])
        .collect();
    assert_eq!(
        fetched_ids,
        envelope["ids"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>()
    );

    let too_many: Vec<u32> = (0..1_000).collect();
    let refused = error_text(
        &call(
            &client,
            "view_fetch",
            json!({"tool": "device_bulk_create", "ids": too_many}),
        )
        .await,
    );
    assert!(refused.contains("a page at a time"), "{refused}");
}

#[tokio::test]
async fn a_view_tool_needs_the_scopes_the_models_redemption_needs() {
    let server = Server::from_tools(mcp_light::tools![scoped_rows])
        .build()
        .unwrap();
    let addr = crate::scopes::serve_granting(server).await;
    // One 2026-07-28 call from a client that declares the extension, with
    // the scopes `granted`.
    let call = |tool: &'static str, arguments: Value, granted: &'static str| async move {
        let declaring = serde_json::to_value(capabilities(true)).unwrap();
        let headers = [("x-test-scopes", granted)];
        let reply = crate::scopes::call_declaring(addr, tool, arguments, declaring, &headers).await;
        crate::scopes::result(&reply)
    };
    let probe = call("scoped_rows", json!({}), "rows:read").await;
    let token = probe["structuredContent"]["continuation_token"].clone();
    assert!(token.is_string(), "{probe}");
    let args = json!({"tool": "scoped_rows", "continuation_token": token});

    let refused = call("view_page", args.clone(), "other:scope").await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        refused["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("rows:read"),
        "{refused}"
    );
    let page = call("view_page", args, "rows:read").await;
    assert_eq!(page["structuredContent"]["total"], 2_000, "{page}");

    // The token alone needs the same scopes.
    let alone = json!({"continuation_token": token});
    let refused = call("view_page", alone.clone(), "other:scope").await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        refused["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("rows:read"),
        "{refused}"
    );
    let page = call("view_page", alone, "rows:read").await;
    assert_eq!(page["structuredContent"]["total"], 2_000, "{page}");
}
