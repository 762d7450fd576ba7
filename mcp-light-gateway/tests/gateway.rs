//! The gateway in front of a server written with rmcp alone, both in this
//! process, each behind an in-memory pipe: the downstream client sees the
//! upstream's tools, resources and prompts; an answer that fits passes
//! untouched, a larger one answers a probe whose token pages it back.

use mcp_light::transport::StdioOptions;
use mcp_light_gateway::config::Config;
use mcp_light_gateway::{Upstream, gateway};
use rmcp::handler::server::ServerHandler;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, ListPromptsResult, ListResourcesResult, PaginatedRequestParams, Prompt,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::{ErrorData, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value, json};

/// Which shelf.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Shelved {
    shelf: u32,
}

/// A records room written for rmcp, whose tools answer everything at once.
#[derive(Clone)]
struct Records {
    tool_router: ToolRouter<Records>,
}

/// How many records.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Count {
    count: usize,
}

fn record(n: usize) -> Value {
    json!({"id": n, "shelf": format!("shelf-{}", n % 4), "note": "kept since the flood"})
}

/// `count` lines of a log, the last without its newline.
fn log(count: usize) -> String {
    (1..=count)
        .map(|n| match n % 10 {
            0 => format!(
                "2026-12-04 10:{:02}:00 WARN shelf {} is full",
                n % 60,
                n % 4
            ),
            _ => format!("2026-12-04 10:{:02}:00 INFO record {n} filed", n % 60),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tool_router]
impl Records {
    fn new() -> Records {
        Records {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Lists records")]
    fn records_list(&self, Parameters(Count { count }): Parameters<Count>) -> CallToolResult {
        let records: Vec<Value> = (1..=count).map(record).collect();
        let mut result =
            CallToolResult::success(vec![ContentBlock::text(format!("{count} records"))]);
        result.structured_content = Some(json!({ "records": records }));
        result
    }

    #[tool(description = "The room's log, as plain text")]
    fn records_log(&self, Parameters(Count { count }): Parameters<Count>) -> String {
        log(count)
    }

    #[tool(description = "Files new records and answers each")]
    fn records_file(&self, Parameters(Count { count }): Parameters<Count>) -> CallToolResult {
        let filed: Vec<Value> = (1..=count).map(record).collect();
        let text = serde_json::to_string_pretty(&filed).unwrap();
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(json!({ "filed": filed }));
        result
    }

    #[tool(description = "Removes a record")]
    fn records_remove(&self, Parameters(Shelved { shelf }): Parameters<Shelved>) -> String {
        json!({"removed": shelf, "left": (0..500).collect::<Vec<_>>()}).to_string()
    }

    #[tool(description = "Notes a record, answering its number as JSON text")]
    fn records_note(&self, Parameters(Count { count }): Parameters<Count>) -> String {
        json!({"number": count, "note": "x".repeat(count)}).to_string()
    }

    #[tool(description = "Sleeps, then says how long")]
    async fn records_slow(&self, Parameters(Count { count }): Parameters<Count>) -> String {
        tokio::time::sleep(std::time::Duration::from_millis(count as u64)).await;
        format!("slept {count} ms")
    }

    #[tool(description = "Refuses, as the upstream does")]
    fn records_sealed(&self) -> Result<String, ErrorData> {
        Err(ErrorData::invalid_params("the records are sealed", None))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Records {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        let mut config = ServerConfig::new(capabilities);
        config.instructions = Some("The records room.".to_owned());
        config
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            "records://index",
            "index",
        )]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let text = ResourceContents::text("shelves 0 to 3", request.uri);
        Ok(ReadResourceResult::new(vec![text]).into())
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "file",
            Some("File a record"),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let text = format!("File it under {}.", request.name);
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).into())
    }
}

type Client = RunningService<RoleClient, ()>;

/// The records room alone, as a client reaches it directly.
async fn direct() -> Client {
    let (client_io, server_io) = tokio::io::duplex(1 << 22);
    tokio::spawn(async move {
        let running = Records::new().serve(server_io).await.expect("starts");
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.expect("the handshake succeeds")
}

/// The records room behind the gateway.
async fn through_gateway() -> Client {
    through_gateway_with("").await
}

/// The records room behind the gateway configured by `config` (TOML).
async fn through_gateway_with(config: &str) -> Client {
    let (upstream_io, records_io) = tokio::io::duplex(1 << 22);
    tokio::spawn(async move {
        let running = Records::new().serve(records_io).await.expect("starts");
        let _ = running.waiting().await;
    });
    let upstream = Upstream::connect(upstream_io).await.expect("connects");
    let config = Config::parse(config).expect("a valid configuration");
    let server = config
        .apply(&upstream, gateway(upstream.clone()))
        .build()
        .expect("builds");
    let (client_io, server_io) = tokio::io::duplex(1 << 22);
    let (reader, writer) = tokio::io::split(server_io);
    tokio::spawn(server.serve_lines(reader, writer, StdioOptions::new()));
    ().serve(client_io).await.expect("the handshake succeeds")
}

fn call(tool: &'static str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(tool).with_arguments(args.as_object().unwrap().clone())
}

#[tokio::test]
async fn resources_prompts_and_small_answers_pass_through_untouched() {
    let (direct, gateway) = (direct().await, through_gateway().await);
    let info = gateway.peer_info().unwrap();
    assert!(info.capabilities.resources.is_some() && info.capabilities.prompts.is_some());
    assert_eq!(info.instructions.as_deref(), Some("The records room."));

    // Built with mcp-light's `apps` feature (a workspace build with every
    // feature turns it on), the gateway adds its viewer of kept results to
    // the upstream's resources, and nothing else.
    let (viewer, upstream): (Vec<_>, Vec<_>) = gateway
        .list_all_resources()
        .await
        .unwrap()
        .into_iter()
        .partition(|resource| resource.uri == "ui://mcp-light/viewer.html");
    assert_eq!(upstream, direct.list_all_resources().await.unwrap());
    assert!(viewer.len() <= 1, "one viewer at most: {viewer:?}");
    let read = ReadResourceRequestParams::new("records://index");
    assert_eq!(
        gateway.read_resource(read.clone()).await.unwrap(),
        direct.read_resource(read).await.unwrap()
    );
    assert_eq!(
        gateway.list_all_prompts().await.unwrap(),
        direct.list_all_prompts().await.unwrap()
    );
    let prompt = GetPromptRequestParams::new("file");
    assert_eq!(
        gateway.get_prompt(prompt.clone()).await.unwrap(),
        direct.get_prompt(prompt).await.unwrap()
    );

    let small = call("records_list", json!({"count": 5}));
    assert_eq!(
        gateway.call_tool(small.clone()).await.unwrap(),
        direct.call_tool(small).await.unwrap()
    );
    // The upstream's own JSON-RPC error comes back as it sent it.
    let sealed = CallToolRequestParams::new("records_sealed");
    let (theirs, ours) = (
        direct.call_tool(sealed.clone()).await.unwrap_err(),
        gateway.call_tool(sealed).await.unwrap_err(),
    );
    assert_eq!(ours.to_string(), theirs.to_string());
}

#[tokio::test]
async fn a_large_answer_answers_a_probe_whose_pages_join_into_the_upstreams() {
    let (direct, gateway) = (direct().await, through_gateway().await);
    let tools = gateway.list_all_tools().await.unwrap();
    let list = tools
        .iter()
        .find(|tool| tool.name == "records_list")
        .unwrap();
    assert!(
        list.input_schema["properties"]
            .as_object()
            .unwrap()
            .contains_key("continuation_token")
    );

    let large = call("records_list", json!({"count": 2_000}));
    let whole = direct.call_tool(large.clone()).await.unwrap();
    let whole = whole.structured_content.unwrap()["records"].clone();
    let probe = gateway.call_tool(large).await.unwrap();
    let probe = probe.structured_content.unwrap();
    assert!(probe.to_string().len() < 2_000, "{probe}");
    let token = probe["continuation_token"].as_str().expect("a token");
    let mut paged = Vec::new();
    for page in 1..=200 {
        let asked = json!({"continuation_token": token, "page": page});
        let answer = gateway
            .call_tool(call("records_list", asked))
            .await
            .unwrap();
        let answer = answer.structured_content.unwrap();
        assert!(answer.to_string().len() <= 10_000);
        paged.extend(answer["items"].as_array().unwrap().iter().cloned());
        if answer["has_more"] == false {
            break;
        }
    }
    assert_eq!(Value::Array(paged), whole);
}

/// The bearer the records room asks of every HTTP request.
const RECORDS_SECRET: &str = "records-secret-for-the-gateway-tests";

/// The records room served over Streamable HTTP on loopback, every request
/// authenticated with [`RECORDS_SECRET`]: its endpoint's URL.
async fn records_over_http() -> String {
    use mcp_light::auth::Auth;
    use mcp_light::transport::HttpOptions;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = mcp_light::Server::from_tools([])
        .with_handler(Records::new())
        .build()
        .unwrap();
    let auth = Auth::new()
        .with_bearer_token("gateway", RECORDS_SECRET)
        .unwrap();
    let options = HttpOptions::new().with_auth(auth);
    tokio::spawn(server.serve_http_with(listener, options, std::future::pending()));
    format!("http://{addr}/mcp")
}

/// The gateway's binary, as a host starts it.
fn binary() -> tokio::process::Command {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-light-gateway"))
}

#[tokio::test]
async fn the_binary_reaches_an_http_upstream_with_its_bearer_from_the_environment() {
    use rmcp::transport::TokioChildProcess;

    let url = records_over_http().await;
    let mut command = binary();
    command
        .args([
            "--upstream-url",
            &url,
            "--upstream-bearer-env",
            "RECORDS_TOKEN",
        ])
        .args(["--upstream-header", "X-Records-Client: gateway-test"])
        .env("RECORDS_TOKEN", RECORDS_SECRET)
        .stderr(std::process::Stdio::null());
    let gateway = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let direct = direct().await;

    let tools = gateway.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|tool| tool.name.to_string()).collect();
    assert_eq!(
        names,
        [
            "records_file",
            "records_list",
            "records_log",
            "records_note",
            "records_remove",
            "records_sealed",
            "records_slow"
        ]
    );
    let small = call("records_list", json!({"count": 3}));
    assert_eq!(
        gateway.call_tool(small.clone()).await.unwrap(),
        direct.call_tool(small).await.unwrap()
    );
    let probe = gateway
        .call_tool(call("records_list", json!({"count": 2_000})))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    let token = probe["continuation_token"].as_str().expect("a token");
    let page = gateway
        .call_tool(call("records_list", json!({"continuation_token": token})))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_eq!(page["items"][0], record(1));
    gateway.cancel().await.unwrap();
}

#[tokio::test]
async fn without_the_upstreams_bearer_the_binary_exits_naming_the_upstream() {
    let url = records_over_http().await;
    let output = binary()
        .args(["--upstream-url", &url])
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&url), "{stderr}");
    assert!(stderr.contains("handshake"), "{stderr}");
}

#[tokio::test]
async fn the_binary_serves_streamable_http_and_its_check_names_the_upstream() {
    use rmcp::transport::StreamableHttpClientTransport;
    use tokio::io::AsyncBufReadExt;

    let url = records_over_http().await;
    let check = binary()
        .args([
            "--check",
            "--upstream-url",
            &url,
            "--upstream-bearer-env",
            "RECORDS_TOKEN",
        ])
        .env("RECORDS_TOKEN", RECORDS_SECRET)
        .output()
        .await
        .unwrap();
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{report}");
    assert!(
        report.contains("upstream:") && report.contains("lists 7 tools"),
        "{report}"
    );

    let mut served = binary()
        .args(["--http", "127.0.0.1:0", "--upstream-url", &url])
        .args(["--upstream-bearer-env", "RECORDS_TOKEN"])
        .env("RECORDS_TOKEN", RECORDS_SECRET)
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(served.stderr.take().unwrap()).lines();
    let endpoint = loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the address served");
        if let Some(at) = line.split(" at ").nth(1) {
            break at.to_owned();
        }
    };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let transport = StreamableHttpClientTransport::from_uri(endpoint.as_str());
    let client = ().serve(transport).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 7);
    let small = call("records_list", json!({"count": 2}));
    let answer = client.call_tool(small).await.unwrap();
    assert_eq!(answer.structured_content.unwrap()["records"][1], record(2));
}

#[tokio::test]
async fn a_large_plain_text_answer_is_summarized_in_lines_and_its_pages_join_into_the_text() {
    let gateway = through_gateway().await;
    let text = log(3_000);
    let probe = gateway
        .call_tool(call("records_log", json!({"count": 3_000})))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    let token = probe["continuation_token"].as_str().expect("a token");
    let redeem = |args: Value| {
        let gateway = &gateway;
        async move {
            let answer = gateway.call_tool(call("records_log", args)).await.unwrap();
            answer.structured_content.unwrap()
        }
    };
    let summary = redeem(json!({"continuation_token": token, "mode": "summary"})).await;
    assert!(summary.to_string().len() < 4_000, "{summary}");
    let lines = &summary["text"];
    assert_eq!(lines["lines"], 3_000, "{summary}");
    assert_eq!(lines["bytes"], text.len());
    assert_eq!(lines["head"][0], "2026-12-04 10:01:00 INFO record 1 filed");
    assert_eq!(lines["starts"]["values"]["####-##-##"], 3_000);
    let longest = text.lines().map(str::len).max().unwrap();
    assert_eq!(lines["longest_line"], longest);

    let mut joined = String::new();
    for page in 1..=200 {
        let answer = redeem(json!({"continuation_token": token, "page": page})).await;
        for piece in answer["items"].as_array().unwrap() {
            joined.push_str(piece.as_str().unwrap());
        }
        if answer["has_more"] == false {
            break;
        }
    }
    assert_eq!(joined, text);
}

#[tokio::test]
async fn the_configuration_hides_passes_and_points_at_the_items() {
    let config = r#"
        [tools.records_sealed]
        hide = true
        [tools.records_log]
        pass = true
        [tools.records_list]
        heavy = { items = "/records" }
    "#;
    let (direct, gateway) = (direct().await, through_gateway_with(config).await);
    let tools = gateway.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|tool| tool.name.to_string()).collect();
    assert!(!names.contains(&"records_sealed".to_owned()), "{names:?}");
    assert!(names.contains(&"records_list".to_owned()), "{names:?}");
    // Refused as a tool that does not exist.
    let sealed = gateway
        .call_tool(CallToolRequestParams::new("records_sealed"))
        .await
        .unwrap();
    assert_eq!(sealed.is_error, Some(true));
    let text = &sealed.content[0].as_text().unwrap().text;
    assert!(text.contains("unknown tool `records_sealed`"), "{text}");

    // Passed: its schema as the upstream's, its large answer whole.
    let log = tools
        .iter()
        .find(|tool| tool.name == "records_log")
        .unwrap();
    assert!(
        !log.input_schema["properties"]
            .as_object()
            .unwrap()
            .contains_key("continuation_token")
    );
    let large = call("records_log", json!({"count": 3_000}));
    assert_eq!(
        gateway.call_tool(large.clone()).await.unwrap(),
        direct.call_tool(large).await.unwrap()
    );

    // Pointed: what is kept is the list itself.
    let probe = gateway
        .call_tool(call("records_list", json!({"count": 2_000})))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_eq!(probe["total_items"], 2_000);
    assert!(
        probe.get("paged").is_none(),
        "a list, not a wrapper: {probe}"
    );
}

#[tokio::test]
async fn a_configured_write_answers_an_envelope_whose_token_redeems_the_upstreams_answer() {
    let config = r#"
        [tools.records_file]
        write = { kind = "bulk_create", id = "id", items = "/filed" }
        [tools.records_note]
        write = { kind = "create", id = ["number"] }
        [tools.records_remove]
        write = { kind = "destroy", id = "shelf" }
        [tools.records_log]
        write = { kind = "update" }
    "#;
    let (direct, gateway) = (direct().await, through_gateway_with(config).await);
    let tools = gateway.list_all_tools().await.unwrap();
    for name in ["records_file", "records_note", "records_remove"] {
        let tool = tools.iter().find(|tool| tool.name == name).unwrap();
        let properties = tool.input_schema["properties"].as_object().unwrap();
        assert!(
            properties.contains_key("verify") && properties.contains_key("continuation_token"),
            "{name}: {properties:?}"
        );
    }

    // A bulk write: the envelope, its size the upstream's list's.
    let filed = call("records_file", json!({"count": 600}));
    let whole = direct.call_tool(filed.clone()).await.unwrap();
    let whole = whole.structured_content.unwrap()["filed"].clone();
    let answer = gateway.call_tool(filed).await.unwrap();
    let envelope = answer.structured_content.unwrap();
    assert_eq!(envelope["accepted"], 600, "{envelope}");
    assert_eq!(envelope["status_code"], 201);
    assert_eq!(envelope["data_size"], whole.to_string().len());
    assert!(envelope.to_string().len() < 10_000, "{envelope}");
    let ids = envelope["ids"].as_array().map_or(0, Vec::len);
    assert!(
        ids == 600 || envelope.get("ids").is_none(),
        "every id or none: {envelope}"
    );
    // Its token pages the upstream's answer back, never calling it again.
    let token = envelope["continuation_token"].as_str().expect("a token");
    let mut paged = Vec::new();
    for page in 1..=100 {
        let asked = json!({"continuation_token": token, "page": page});
        let answer = gateway
            .call_tool(call("records_file", asked))
            .await
            .unwrap();
        let answer = answer.structured_content.unwrap();
        paged.extend(answer["items"].as_array().unwrap().iter().cloned());
        if answer["has_more"] == false {
            break;
        }
    }
    assert_eq!(Value::Array(paged), whole);

    // `verify: true` where the whole answer fits: the answer itself.
    let verified = gateway
        .call_tool(call("records_file", json!({"count": 3, "verify": true})))
        .await
        .unwrap();
    let text = &verified.content[0].as_text().unwrap().text;
    let expected: Vec<Value> = (1..=3).map(record).collect();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        Value::Array(expected)
    );
    // A `verify` that is not a boolean is refused, naming it.
    let refused = gateway
        .call_tool(call("records_file", json!({"count": 3, "verify": "yes"})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(
        refused.content[0]
            .as_text()
            .unwrap()
            .text
            .contains("verify"),
        "{refused:?}"
    );

    // A single write whose JSON is text: named by the field given.
    let noted = gateway
        .call_tool(call("records_note", json!({"count": 4_000})))
        .await
        .unwrap();
    let envelope = noted.structured_content.unwrap();
    assert_eq!(envelope["number"], 4_000, "{envelope}");
    assert_eq!(envelope["status_code"], 201);
    assert!(envelope["continuation_token"].is_string(), "{envelope}");
    assert!(envelope.get("note").is_none(), "an envelope, not an echo");

    // A destroy: its id from the call.
    let removed = gateway
        .call_tool(call("records_remove", json!({"shelf": 3})))
        .await
        .unwrap();
    assert_eq!(
        removed.structured_content.unwrap(),
        json!({"shelf": 3, "deleted": true, "status_code": 204})
    );
    // An answer that carries no JSON, as the upstream answered it.
    let logged = call("records_log", json!({"count": 5}));
    assert_eq!(
        gateway.call_tool(logged.clone()).await.unwrap(),
        direct.call_tool(logged).await.unwrap()
    );
}

#[tokio::test]
async fn the_dispatcher_surface_lists_one_tool_that_reaches_every_other() {
    let config = r#"
        surface = "dispatcher"
        dispatcher = "records"
        [groups]
        read = ["records_list", "records_log"]
        [tools.records_sealed]
        hide = true
        [tools.records_file]
        write = { kind = "bulk_create", items = "/filed" }
    "#;
    let (direct, gateway) = (direct().await, through_gateway_with(config).await);
    let tools = gateway.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|tool| tool.name.to_string()).collect();
    assert_eq!(names, ["records"]);
    let properties = tools[0].input_schema["properties"].as_object().unwrap();
    assert_eq!(properties["resource"]["enum"], json!(["read", "tools"]));
    let actions = properties["action"]["enum"].as_array().unwrap();
    assert!(actions.contains(&json!("records_file")), "{actions:?}");
    assert!(!actions.contains(&json!("records_sealed")), "{actions:?}");
    for field in ["params", "describe", "verify", "continuation_token"] {
        assert!(properties.contains_key(field), "{field}");
    }
    let dispatch = |args: Value| call("records", args);

    // `describe`: the action's own schema and description, nothing run.
    let described = gateway
        .call_tool(dispatch(
            json!({"resource": "read", "action": "records_list", "describe": true}),
        ))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_eq!(described["description"], "Lists records");
    assert!(described["params_schema"]["properties"]["count"].is_object());

    // A small answer passes as the upstream gave it.
    let small = gateway
        .call_tool(dispatch(
            json!({"resource": "read", "action": "records_list", "params": {"count": 2}}),
        ))
        .await
        .unwrap();
    let expected = direct
        .call_tool(call("records_list", json!({"count": 2})))
        .await
        .unwrap();
    assert_eq!(small.structured_content, expected.structured_content);

    // A large one: a probe whose token is the dispatcher's, and pages
    // through it alone.
    let large = json!({"resource": "read", "action": "records_list", "params": {"count": 2_000}});
    let probe = gateway
        .call_tool(dispatch(large))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    let token = probe["continuation_token"].as_str().expect("a token");
    let whole = direct
        .call_tool(call("records_list", json!({"count": 2_000})))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    let mut paged = Vec::new();
    for page in 1..=200 {
        let answer = gateway
            .call_tool(dispatch(json!({"continuation_token": token, "page": page})))
            .await
            .unwrap()
            .structured_content
            .unwrap();
        paged.extend(answer["items"].as_array().unwrap().iter().cloned());
        if answer["has_more"] == false {
            break;
        }
    }
    assert_eq!(json!({"records": paged}), whole);
    // Through another tool, the token is refused.
    let foreign = gateway
        .call_tool(call("records_list", json!({"continuation_token": token})))
        .await
        .unwrap();
    assert_eq!(foreign.is_error, Some(true), "{foreign:?}");

    // A routed write answers its envelope.
    let envelope = gateway
        .call_tool(dispatch(
            json!({"resource": "tools", "action": "records_file", "params": {"count": 600}}),
        ))
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_eq!(envelope["accepted"], 600, "{envelope}");

    // What the dispatcher does not reach is refused with what it does.
    let unknown = gateway
        .call_tool(dispatch(
            json!({"resource": "read", "action": "records_sealed"}),
        ))
        .await
        .unwrap();
    assert_eq!(unknown.is_error, Some(true));
    let text = &unknown.content[0].as_text().unwrap().text;
    assert!(
        text.contains("records_list") && text.contains("records_log"),
        "{text}"
    );
}

/// A client of protocol 2026-07-28 that declares the tasks extension.
#[derive(Clone)]
struct TaskClient;

impl rmcp::ClientHandler for TaskClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let capabilities = rmcp::model::ClientCapabilities::builder()
            .enable_tasks()
            .build();
        rmcp::model::ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("task-client", "1"),
        )
    }
}

#[tokio::test]
async fn a_long_upstream_call_becomes_the_gateways_task_and_a_short_one_is_answered_in_place() {
    use rmcp::model::{CallToolResponse, GetTaskParams, ProtocolVersion, TaskPayload};
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};

    let (upstream_io, records_io) = tokio::io::duplex(1 << 22);
    tokio::spawn(async move {
        let running = Records::new().serve(records_io).await.expect("starts");
        let _ = running.waiting().await;
    });
    let upstream = Upstream::connect(upstream_io).await.expect("connects");
    let server = gateway(upstream)
        .with_task_after(std::time::Duration::from_millis(50))
        .build()
        .expect("builds");
    assert!(
        server.offers_tasks(),
        "the upstream has no tasks of its own"
    );
    let (client_io, server_io) = tokio::io::duplex(1 << 22);
    let (reader, writer) = tokio::io::split(server_io);
    tokio::spawn(server.serve_lines(reader, writer, StdioOptions::new()));
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = TaskClient
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .expect("the client connects");

    let short = client
        .call_tool_once(call("records_list", json!({"count": 2})))
        .await
        .unwrap();
    assert!(matches!(short, CallToolResponse::Complete(_)), "{short:?}");

    let long = client
        .call_tool_once(call("records_slow", json!({"count": 400})))
        .await
        .unwrap();
    let CallToolResponse::Task(task) = long else {
        panic!("a task, got {long:?}");
    };
    let id = task.task.task_id.clone();
    let started = std::time::Instant::now();
    let result = loop {
        let got = client
            .get_task(GetTaskParams::new(id.clone()))
            .await
            .unwrap();
        if got.task.status().is_terminal() {
            break got;
        }
        assert!(started.elapsed().as_secs() < 10, "the task never ended");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let TaskPayload::Completed { result } = &result.task.payload else {
        panic!("completed, got {:?}", result.task.payload);
    };
    let result: CallToolResult = serde_json::from_value(Value::Object(result.clone())).unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "slept 400 ms");
}

#[tokio::test]
async fn an_answer_longer_than_the_gateway_reads_is_an_error_naming_the_limit_and_it_serves_on() {
    let (upstream_io, records_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = Records::new().serve(records_io).await.expect("starts");
        let _ = running.waiting().await;
    });
    // Reads messages of 64 KiB at most.
    let (read, write) = tokio::io::split(upstream_io);
    let upstream = Upstream::connect_lines(read, write, 64 << 10)
        .await
        .expect("connects");
    let server = gateway(upstream).build().expect("builds");
    let (client_io, server_io) = tokio::io::duplex(1 << 22);
    let (reader, writer) = tokio::io::split(server_io);
    tokio::spawn(server.serve_lines(reader, writer, StdioOptions::new()));
    let client = ().serve(client_io).await.expect("the handshake succeeds");

    // About 130 KB of records: dropped unread, and the call says so.
    let refused = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        client.call_tool(call("records_list", json!({"count": 2000}))),
    )
    .await
    .expect("the call ends rather than wait for the dropped answer")
    .unwrap_err()
    .to_string();
    assert!(refused.contains("--max-answer-mib"), "{refused}");

    // The upstream and the gateway serve on.
    let small = client
        .call_tool(call("records_list", json!({"count": 3})))
        .await
        .unwrap();
    assert_eq!(small.structured_content.unwrap()["records"][2]["id"], 3);
}
