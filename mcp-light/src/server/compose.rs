//! Serving mcp-light's tools beside an rmcp [`ServerHandler`] that answers
//! everything else: prompts, resources and their templates, subscriptions,
//! completions, skills, tasks, custom requests, every notification, and
//! tools of its own.
//!
//! mcp-light has tools and nothing more. A server that also needs prompts
//! or resources writes them with rmcp (by hand or with its prompt router)
//! and hands the handler to
//! [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler): tools go to
//! mcp-light, every other request and notification to the handler, and the
//! capabilities the client sees are the handler's with mcp-light's tools
//! added.
//!
//! A handler that advertises tools (an rmcp `#[tool_router]` server being
//! ported one tool at a time) has them served too, after mcp-light's:
//! `tools/list` lists mcp-light's tools then the handler's, and a call of a
//! name mcp-light does not serve goes to the handler when its `get_tool`
//! knows the name. A name both serve is refused ([`served_twice`]).
//!
//! Which `ServerHandler` methods reach the handler is written once, in
//! `composed_methods!`: the object-safe `Delegate` that `Server` holds and
//! the forwarding methods of the served rmcp handler (`McpHandler`) are
//! both generated from that list, so the two cannot disagree.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CancelledNotificationParam,
    CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult,
    DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};

use crate::error::tool::BuildError;
use crate::store::BoxFuture;

/// Calls `$then!` with every `ServerHandler` method whose call reaches the
/// composed handler, a request's with its MCP method (`= "prompts/get"`)
/// for its span ([`crate::telemetry`]), in four groups: `passed_on` methods are the handler's
/// to answer; `completed` ones are answered by the handler and then given
/// mcp-light's tools, logging and name, or (the tools, for a handler that
/// advertises tools) answered by mcp-light and by the handler for what
/// mcp-light does not serve; `async` methods answer a future, `sync` ones a
/// value. The one other method, `logging/setLevel`, is mcp-light's alone.
///
/// A method rmcp adds to `ServerHandler` belongs here, unless mcp-light
/// answers it itself: clippy refuses the served handler while it is in
/// neither place, and the forwarding tests drive each method listed.
macro_rules! composed_methods {
    ($then:ident) => {
        $then! {
            passed_on async {
                fn ping(context: RequestContext<RoleServer>) -> Result<(), ErrorData> = "ping";
                fn complete(
                    request: CompleteRequestParams,
                    context: RequestContext<RoleServer>
                ) -> Result<CompleteResult, ErrorData> = "completion/complete";
                fn get_prompt(
                    request: GetPromptRequestParams,
                    context: RequestContext<RoleServer>
                ) -> Result<GetPromptResponse, ErrorData> = "prompts/get";
                fn list_prompts(
                    request: Option<PaginatedRequestParams>,
                    context: RequestContext<RoleServer>
                ) -> Result<ListPromptsResult, ErrorData> = "prompts/list";
                fn list_resource_templates(
                    request: Option<PaginatedRequestParams>,
                    context: RequestContext<RoleServer>
                ) -> Result<ListResourceTemplatesResult, ErrorData> = "resources/templates/list";
                fn read_resource_directory(
                    request: ReadResourceDirectoryRequestParams,
                    context: RequestContext<RoleServer>
                ) -> Result<ReadResourceDirectoryResult, ErrorData> = "resources/directory/read";
                fn listen(context: SubscriptionContext) -> Result<(), ErrorData>;
                // Still what a client on 2025-11-25 sends.
                #[allow(deprecated)]
                fn subscribe(
                    request: SubscribeRequestParams,
                    context: RequestContext<RoleServer>
                ) -> Result<(), ErrorData> = "resources/subscribe";
                #[allow(deprecated)]
                fn unsubscribe(
                    request: UnsubscribeRequestParams,
                    context: RequestContext<RoleServer>
                ) -> Result<(), ErrorData> = "resources/unsubscribe";
                fn list_skills(
                    request: Option<PaginatedRequestParams>,
                    context: RequestContext<RoleServer>
                ) -> Result<ListSkillsResult, ErrorData> = "skills/list";
                fn get_skill(
                    request: GetSkillRequestParams,
                    context: RequestContext<RoleServer>
                ) -> Result<GetSkillResult, ErrorData> = "skills/get";
                fn on_custom_request(
                    request: CustomRequest,
                    context: RequestContext<RoleServer>
                ) -> Result<CustomResult, ErrorData>;
                // rmcp has already cancelled the call's token (a running
                // tool sees it) when the handler hears of it.
                fn on_cancelled(
                    notification: CancelledNotificationParam,
                    context: NotificationContext<RoleServer>
                ) -> ();
                fn on_progress(
                    notification: ProgressNotificationParam,
                    context: NotificationContext<RoleServer>
                ) -> ();
                fn on_initialized(context: NotificationContext<RoleServer>) -> ();
                fn on_roots_list_changed(context: NotificationContext<RoleServer>) -> ();
                fn on_custom_notification(
                    notification: CustomNotification,
                    context: NotificationContext<RoleServer>
                ) -> ();
            }
            passed_on sync {
                fn supported_protocol_versions() -> Cow<'static, [ProtocolVersion]>;
                fn accepted_subscription_filter(
                    requested: &SubscriptionFilter
                ) -> Option<SubscriptionFilter>;
            }
            completed async {
                // With the `apps` feature, the viewer is a resource too.
                fn list_resources(
                    request: Option<PaginatedRequestParams>,
                    context: RequestContext<RoleServer>
                ) -> Result<ListResourcesResult, ErrorData> = "resources/list";
                fn read_resource(
                    request: ReadResourceRequestParams,
                    context: RequestContext<RoleServer>
                ) -> Result<ReadResourceResponse, ErrorData> = "resources/read";
                fn initialize(
                    request: InitializeRequestParams,
                    context: RequestContext<RoleServer>
                ) -> Result<InitializeResult, ErrorData>;
                fn discover(context: RequestContext<RoleServer>) -> Result<DiscoverResult, ErrorData>;
                // mcp-light's own when a tool may answer as a task.
                fn get_task(
                    request: GetTaskParams,
                    context: RequestContext<RoleServer>
                ) -> Result<GetTaskResult, ErrorData>;
                fn update_task(
                    request: UpdateTaskParams,
                    context: RequestContext<RoleServer>
                ) -> Result<(), ErrorData>;
                fn cancel_task(
                    request: CancelTaskParams,
                    context: RequestContext<RoleServer>
                ) -> Result<(), ErrorData>;
                // The handler's tools after mcp-light's, and its calls.
                fn list_tools(
                    request: Option<PaginatedRequestParams>,
                    context: RequestContext<RoleServer>
                ) -> Result<ListToolsResult, ErrorData>;
                fn call_tool(
                    request: CallToolRequestParams,
                    context: RequestContext<RoleServer>
                ) -> Result<CallToolResponse, ErrorData>;
            }
            completed sync {
                fn get_tool(name: &str) -> Option<Tool>;
                fn get_info() -> ServerConfig;
                fn negotiate_initialize(
                    request: &InitializeRequestParams
                ) -> Result<InitializeResult, ErrorData>;
            }
        }
    };
}
pub(crate) use composed_methods;

/// From `composed_methods!`: the object-safe `Delegate`, its impl for
/// every `ServerHandler`, and the list of the methods' names.
macro_rules! declare_delegate {
    ($(
        $role:ident $kind:tt {$(
            $(#[$attr:meta])*
            fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $out:ty $(= $method:literal)?;
        )*}
    )*) => {
        /// The composed handler's methods that mcp-light calls, boxed so
        /// that [`Server`](crate::Server) holds any handler without a type
        /// parameter.
        pub(crate) trait Delegate: Send + Sync + 'static {
            $($(
                declare_delegate!(@signature $kind $(#[$attr])* $name($($arg: $ty),*) -> $out);
            )*)*
        }

        impl<H: ServerHandler> Delegate for H {
            $($(
                declare_delegate!(@call $kind $(#[$attr])* $name($($arg: $ty),*) -> $out);
            )*)*
        }

        /// The `ServerHandler` methods whose calls reach the composed
        /// handler.
        #[cfg(test)]
        pub(crate) const COMPOSED_METHODS: &[&str] = &[$($(stringify!($name)),*),*];
    };
    (@signature async $(#[$attr:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $out:ty) => {
        $(#[$attr])*
        fn $name(&self, $($arg: $ty),*) -> BoxFuture<'_, $out>;
    };
    (@signature sync $(#[$attr:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $out:ty) => {
        $(#[$attr])*
        fn $name(&self, $($arg: $ty),*) -> $out;
    };
    (@call async $(#[$attr:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $out:ty) => {
        $(#[$attr])*
        fn $name(&self, $($arg: $ty),*) -> BoxFuture<'_, $out> {
            Box::pin(ServerHandler::$name(self, $($arg),*))
        }
    };
    (@call sync $(#[$attr:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $out:ty) => {
        $(#[$attr])*
        fn $name(&self, $($arg: $ty),*) -> $out {
            ServerHandler::$name(self, $($arg),*)
        }
    };
}

composed_methods!(declare_delegate);

/// From `composed_methods!`, inside a `ServerHandler` impl whose type has
/// a `composed(&self) -> &dyn Delegate` method: the `passed_on` methods,
/// each handing its call to the composed handler as it is. The `completed`
/// ones are the impl's own to write.
macro_rules! pass_on {
    ($(
        $role:ident $kind:tt {$(
            $(#[$attr:meta])*
            fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $out:ty $(= $method:literal)?;
        )*}
    )*) => {
        $($(
            pass_on!(@method $role $kind $(#[$attr])* $name($($arg: $ty),*) -> $out $(= $method)?);
        )*)*
    };
    (@method passed_on async $(#[$attr:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $out:ty = $method:literal) => {
        $(#[$attr])*
        async fn $name(&self, $($arg: $ty),*) -> $out {
            let traced = self.traced($method, &pass_on!(@last $($arg),*));
            traced.run(self.composed().$name($($arg),*)).await
        }
    };
    (@method passed_on async $(#[$attr:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $out:ty) => {
        $(#[$attr])*
        async fn $name(&self, $($arg: $ty),*) -> $out {
            self.composed().$name($($arg),*).await
        }
    };
    (@method passed_on sync $(#[$attr:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $out:ty) => {
        $(#[$attr])*
        fn $name(&self, $($arg: $ty),*) -> $out {
            self.composed().$name($($arg),*)
        }
    };
    (@method completed $kind:tt $($rest:tt)*) => {};
    // The last of the arguments: a request's context.
    (@last $arg:ident) => { $arg };
    (@last $arg:ident, $($rest:ident),+) => { pass_on!(@last $($rest),+) };
}
pub(crate) use pass_on;

/// What a server without a handler delegates to: rmcp's defaults, which
/// advertise nothing, answer the handshake and `ping`, and every other
/// request "method not found".
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NoHandler;

impl ServerHandler for NoHandler {}

/// The delegate of a server that composes nothing.
pub(crate) fn no_handler() -> Arc<dyn Delegate> {
    Arc::new(NoHandler)
}

/// How the errors about its tools name the composed handler.
pub(crate) const HANDLER: &str = "the handler composed with `with_handler`";

/// The refusal of a tool name that mcp-light serves as `served_by` (a
/// function's path, a dispatcher, the viewer) and the composed handler
/// serves too: one of the two could never be called. [`ServerBuilder::build`](crate::ServerBuilder::build)
/// answers it when the handler's `get_tool` knows the name, and
/// `tools/list` when only the handler's list shows it.
pub(crate) fn served_twice(name: &str, served_by: String) -> BuildError {
    BuildError::ServedTwice {
        name: name.to_owned(),
        served_by,
    }
}

/// Why [`Server::call`](crate::Server::call) does not call a tool of the
/// composed handler: rmcp's `call_tool` takes the request's context (its
/// peer, its cancellation, its extensions), which a call in process does
/// not have.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReachedOverMcp<'a>(pub(crate) &'a str);

impl std::fmt::Display for ReachedOverMcp<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is a tool of {HANDLER}, which answers its calls over MCP only: Server::call \
             has no request context to hand it; call it through a transport, or through the \
             handler Server::into_handler makes",
            self.0
        )
    }
}

/// The `tools/list` answer of a server whose composed handler advertises
/// tools: `own` (mcp-light's tools, as this client is shown them) then the
/// handler's `listed`, as the handler listed them. The handler's cursor is
/// the answer's: a request that brings one (mcp-light never hands one out)
/// asks for a later page of the handler's, which is answered alone. Its
/// `_meta` is kept; its cache hints are not, since they speak of its tools
/// only and mcp-light's list gives none.
///
/// Refused with [`served_twice`] when the handler lists a name
/// `served_by` says mcp-light serves.
pub(crate) fn listed_beside(
    own: &[Tool],
    mut listed: ListToolsResult,
    first_page: bool,
    served_by: impl Fn(&str) -> Option<String>,
) -> Result<ListToolsResult, BuildError> {
    if let Some((name, served_by)) = listed
        .tools
        .iter()
        .find_map(|tool| served_by(&tool.name).map(|by| (&tool.name, by)))
    {
        return Err(served_twice(name, served_by));
    }
    if first_page {
        listed.tools.splice(0..0, own.iter().cloned());
    }
    listed.ttl_ms = None;
    listed.cache_scope = None;
    Ok(listed)
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CacheScope, JsonObject};

    use super::*;

    fn tool(name: &'static str) -> Tool {
        Tool::new(name, "a tool", Arc::new(JsonObject::new()))
    }

    fn names(listed: &ListToolsResult) -> Vec<&str> {
        listed.tools.iter().map(|tool| &*tool.name).collect()
    }

    fn handlers(tools: Vec<Tool>) -> ListToolsResult {
        ListToolsResult {
            next_cursor: Some("page-2".to_owned()),
            ttl_ms: Some(60_000),
            cache_scope: Some(CacheScope::Public),
            ..ListToolsResult::with_all_items(tools)
        }
    }

    #[test]
    fn the_first_page_lists_mcp_lights_tools_then_the_handlers_with_its_cursor() {
        let own = [tool("count"), tool("inventory")];
        let listed = handlers(vec![tool("legacy_echo"), tool("legacy_sum")]);
        let merged = listed_beside(&own, listed, true, |_| None).unwrap();
        assert_eq!(
            names(&merged),
            ["count", "inventory", "legacy_echo", "legacy_sum"]
        );
        assert_eq!(merged.next_cursor.as_deref(), Some("page-2"));
        // The handler's hints spoke of its tools alone.
        assert_eq!((merged.ttl_ms, merged.cache_scope), (None, None));
    }

    #[test]
    fn a_later_page_is_the_handlers_alone() {
        let listed = handlers(vec![tool("legacy_sum")]);
        let merged = listed_beside(&[tool("count")], listed, false, |_| None).unwrap();
        assert_eq!(names(&merged), ["legacy_sum"]);
    }

    #[test]
    fn a_name_both_serve_is_refused_naming_both() {
        let listed = handlers(vec![tool("legacy_echo"), tool("count")]);
        let served_by = |name: &str| (name == "count").then(|| "tools::count".to_owned());
        let refused = listed_beside(&[tool("count")], listed, true, served_by).unwrap_err();
        let message = refused.to_string();
        assert!(message.contains("`count`"), "{message}");
        assert!(message.contains("tools::count"), "{message}");
        assert!(message.contains(HANDLER), "{message}");
    }

    #[test]
    fn server_call_says_where_a_handlers_tool_is_reached() {
        let message = ReachedOverMcp("legacy_echo").to_string();
        assert!(
            message
                .starts_with("`legacy_echo` is a tool of the handler composed with `with_handler`")
        );
        assert!(message.contains("Server::into_handler"), "{message}");
    }
}
