//! mcp-light's tools composed with an rmcp handler for the rest of MCP,
//! behind rmcp's own client.

use mcp_light::prelude::*;
use rmcp::ServiceExt;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    ArgumentInfo, CallToolRequestParams, CompleteRequestParams, CompleteResult, CompletionInfo,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ListResourcesResult, PaginatedRequestParams, Prompt, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Reference, Resource, ResourceContents, Role,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use serde_json::json;

/// Prompts, one resource and completions, written with rmcp.
#[derive(Clone)]
struct Library;

impl ServerHandler for Library {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_prompts()
            .enable_resources()
            .enable_completions()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.instructions = Some("Ask the librarian.".to_owned());
        info
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, rmcp::ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "summarize",
            Some("Summarize a book"),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, rmcp::ErrorData> {
        let text = format!("Summarize {}.", request.name);
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).into())
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, rmcp::ErrorData> {
        let shelf = Resource::new("library://shelf", "shelf");
        Ok(ListResourcesResult::with_all_items(vec![shelf]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, rmcp::ErrorData> {
        match request.uri.as_str() {
            "library://shelf" => Ok(ReadResourceResult::new(vec![ResourceContents::text(
                "three books",
                "library://shelf",
            )])
            .into()),
            other => Err(rmcp::ErrorData::resource_not_found(
                format!("no resource {other}"),
                None,
            )),
        }
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, rmcp::ErrorData> {
        let values = ["dune", "dracula"]
            .into_iter()
            .filter(|title| title.starts_with(&request.argument.value))
            .map(str::to_owned)
            .collect();
        Ok(CompleteResult::new(CompletionInfo::new(values).unwrap()))
    }
}

/// Counts the books on the shelf.
#[mcp_tool]
fn compose_count_books() -> u32 {
    3
}

async fn connect(server: Server) -> RunningService<RoleClient, ()> {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let handler = server.into_handler(mcp_light::Caller::Process);
    tokio::spawn(async move {
        let running = handler.serve(server_io).await.expect("the server starts");
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.expect("the handshake succeeds")
}

#[tokio::test]
async fn the_handler_answers_everything_but_tools_and_capabilities_are_merged() {
    let server = Server::from_registry()
        .unwrap()
        .with_implementation("library", "1.2.3")
        .with_handler(Library);
    let client = connect(server).await;

    let info = client.peer_info().expect("the server introduced itself");
    assert!(info.capabilities.tools.is_some(), "{info:?}");
    assert!(info.capabilities.prompts.is_some(), "{info:?}");
    assert!(info.capabilities.resources.is_some(), "{info:?}");
    assert!(info.capabilities.completions.is_some(), "{info:?}");
    assert_eq!(info.server_info.as_ref().unwrap().name, "library");
    assert_eq!(info.instructions.as_deref(), Some("Ask the librarian."));

    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "compose_count_books"));
    let count = client
        .call_tool(CallToolRequestParams::new("compose_count_books"))
        .await
        .unwrap();
    assert_eq!(count.structured_content, Some(json!({"result": 3})));

    let prompts = client.list_prompts(None).await.unwrap();
    assert_eq!(prompts.prompts[0].name, "summarize");
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("summarize"))
        .await
        .unwrap();
    assert_eq!(
        prompt.messages[0].content.as_text().unwrap().text,
        "Summarize summarize."
    );

    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources[0].uri, "library://shelf");
    let shelf = client
        .read_resource(ReadResourceRequestParams::new("library://shelf"))
        .await
        .unwrap();
    assert_eq!(
        shelf.contents[0],
        ResourceContents::text("three books", "library://shelf")
    );
    assert!(
        client
            .read_resource(ReadResourceRequestParams::new("library://attic"))
            .await
            .is_err()
    );

    let completed = client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("summarize"),
            ArgumentInfo::new("title", "dr"),
        ))
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["dracula"]);
}

#[tokio::test]
async fn a_server_without_a_handler_has_tools_only() {
    let client = connect(Server::from_registry().unwrap()).await;
    let info = client.peer_info().unwrap();
    assert!(info.capabilities.tools.is_some());
    assert!(info.capabilities.prompts.is_none(), "{info:?}");
    assert!(info.capabilities.resources.is_none(), "{info:?}");
    assert!(client.list_prompts(None).await.is_err());
    assert!(
        client
            .read_resource(ReadResourceRequestParams::new("library://shelf"))
            .await
            .is_err()
    );
}
