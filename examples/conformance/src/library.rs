//! What the suite expects beyond tools, written with rmcp (through
//! `mcp_light::rmcp`, the version mcp-light serves): resources and a
//! resource template, subscriptions, prompts (one of them asking the client
//! for input on 2026-07-28) and completions. `main` composes it with the
//! mcp-light tools through `ServerBuilder::with_handler`.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use mcp_light::rmcp::ErrorData;
use mcp_light::rmcp::handler::server::ServerHandler;
use mcp_light::rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, InputRequiredResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams, Prompt,
    PromptArgument, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use mcp_light::rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use crate::tools::PNG;

const STATIC_TEXT: &str = "test://static-text";
const STATIC_BINARY: &str = "test://static-binary";
const WATCHED: &str = "test://watched-resource";
const TEMPLATE: &str = "test://template/{id}/data";

/// The resources, prompts and completions of the conformance server, and
/// the URIs a session subscribed to.
#[derive(Clone, Default)]
pub struct Library {
    subscriptions: Arc<Mutex<BTreeSet<String>>>,
}

impl Library {
    /// The URIs subscribed to.
    fn subscriptions(&self) -> MutexGuard<'_, BTreeSet<String>> {
        self.subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl ServerHandler for Library {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_prompts()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_completions()
            .build();
        ServerConfig::new(capabilities)
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resource = |uri: &str, name: &str, title: &str, mime: &str| {
            Resource::new(uri, name)
                .with_title(title)
                .with_mime_type(mime)
        };
        Ok(ListResourcesResult::with_all_items(vec![
            resource(
                STATIC_TEXT,
                "static-text",
                "Static Text Resource",
                "text/plain",
            ),
            resource(
                STATIC_BINARY,
                "static-binary",
                "Static Binary Resource",
                "image/png",
            ),
            resource(
                WATCHED,
                "watched-resource",
                "Watched Resource",
                "text/plain",
            ),
        ]))
    }

    async fn list_resource_templates(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let template = ResourceTemplate::new(TEMPLATE, "template")
            .with_title("Resource Template")
            .with_description("A resource template with parameter substitution")
            .with_mime_type("application/json");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let contents = match uri.as_str() {
            STATIC_TEXT => {
                ResourceContents::text("This is the content of the static text resource.", &uri)
                    .with_mime_type("text/plain")
            }
            STATIC_BINARY => ResourceContents::blob(PNG, &uri).with_mime_type("image/png"),
            WATCHED => ResourceContents::text("Watched resource content", &uri)
                .with_mime_type("text/plain"),
            _ => match template_id(&uri) {
                Some(id) => {
                    let data = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                    ResourceContents::text(data.to_string(), &uri)
                        .with_mime_type("application/json")
                }
                None => {
                    return Err(ErrorData::resource_not_found(
                        format!("Resource not found: {uri}"),
                        Some(json!({"uri": uri})),
                    ));
                }
            },
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    /// A 2026-07-28 `subscriptions/listen` stream gets whatever it asks
    /// for that the server advertises (rmcp narrows it to that), and stays
    /// open until the client closes it.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions().insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions().remove(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let argument = |name: &str, description: &str| {
            let mut argument = PromptArgument::new(name).with_description(description);
            argument.required = Some(true);
            argument
        };
        Ok(ListPromptsResult::with_all_items(vec![
            Prompt::new(
                "test_simple_prompt",
                Some("A simple prompt without arguments"),
                None,
            ),
            Prompt::new(
                "test_prompt_with_arguments",
                Some("A prompt with required arguments"),
                Some(vec![
                    argument("arg1", "First test argument"),
                    argument("arg2", "Second test argument"),
                ]),
            ),
            Prompt::new(
                "test_prompt_with_embedded_resource",
                Some("A prompt that includes an embedded resource"),
                Some(vec![argument(
                    "resourceUri",
                    "URI of the resource to embed",
                )]),
            ),
            Prompt::new(
                "test_prompt_with_image",
                Some("A prompt that includes image content"),
                None,
            ),
            Prompt::new(
                "test_input_required_result_prompt",
                Some("MRTR: prompt that requires elicitation input"),
                None,
            ),
        ]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let argument = |name: &str| {
            request
                .arguments
                .as_ref()
                .and_then(|arguments| arguments.get(name))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let user = |content| PromptMessage::new(Role::User, content);
        let messages = match request.name.as_str() {
            "test_simple_prompt" => vec![PromptMessage::new_text(
                Role::User,
                "This is a simple prompt for testing.",
            )],
            "test_prompt_with_arguments" => vec![PromptMessage::new_text(
                Role::User,
                format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    argument("arg1"),
                    argument("arg2")
                ),
            )],
            "test_prompt_with_embedded_resource" => vec![
                user(mcp_light::Content::resource(
                    ResourceContents::text(
                        "Embedded resource content for testing.",
                        argument("resourceUri"),
                    )
                    .with_mime_type("text/plain"),
                )),
                PromptMessage::new_text(Role::User, "Please process the embedded resource above."),
            ],
            "test_prompt_with_image" => vec![
                user(mcp_light::Content::image(PNG, "image/png")),
                PromptMessage::new_text(Role::User, "Please analyze the image above."),
            ],
            "test_input_required_result_prompt" => {
                let answer = request
                    .input_responses
                    .as_ref()
                    .and_then(|responses| responses.get("user_context"));
                let Some(answer) = answer else {
                    return Ok(ask_for_context()?.into());
                };
                let context = answer["content"]["context"].as_str().unwrap_or("unknown");
                vec![PromptMessage::new_text(
                    Role::User,
                    format!("Prompt with context: {context}"),
                )]
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no prompt named `{other}`"),
                    None,
                ));
            }
        };
        Ok(GetPromptResult::new(messages).into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let typed = request.argument.value;
        let values: Vec<String> = ["paris", "park", "party", "test-value"]
            .into_iter()
            .filter(|value| value.starts_with(typed.as_str()))
            .map(str::to_owned)
            .collect();
        let mut completion = CompletionInfo::new(values)
            .map_err(|problem| ErrorData::internal_error(problem, None))?;
        completion.total = Some(completion.values.len() as u32);
        completion.has_more = Some(false);
        Ok(CompleteResult::new(completion))
    }
}

/// The id in `test://template/{id}/data`, if `uri` is one.
fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix("test://template/")?
        .strip_suffix("/data")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

/// The input-required result of `test_input_required_result_prompt`'s
/// first round: one elicitation, keyed `user_context`.
fn ask_for_context() -> Result<InputRequiredResult, ErrorData> {
    serde_json::from_value(json!({
        "resultType": "input_required",
        "inputRequests": {
            "user_context": {
                "method": "elicitation/create",
                "params": {
                    "message": "What context should the prompt use?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"context": {"type": "string"}},
                        "required": ["context"],
                    },
                },
            },
        },
    }))
    .map_err(|error| ErrorData::internal_error(error.to_string(), None))
}
