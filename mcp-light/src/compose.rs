//! Serving mcp-light's tools beside an rmcp [`ServerHandler`] that answers
//! everything else: prompts, resources and their templates, subscriptions,
//! completions.
//!
//! mcp-light has tools and nothing more. A server that also needs prompts
//! or resources writes them with rmcp (by hand or with its prompt router)
//! and hands the handler to
//! [`Server::with_handler`](crate::Server::with_handler): tools go to
//! mcp-light, every other request to the handler, and the capabilities the
//! client sees are the handler's with mcp-light's tools added.

use std::sync::Arc;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult,
    GetPromptRequestParams, GetPromptResponse, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerConfig, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};

use crate::store::BoxFuture;

type Answer<'a, T> = BoxFuture<'a, Result<T, rmcp::ErrorData>>;

/// The handler's methods that mcp-light does not answer itself, boxed so
/// that [`Server`] holds any handler without a type parameter.
pub(crate) trait Delegate: Send + Sync + 'static {
    fn info(&self) -> ServerConfig;
    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, CompleteResult>;
    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, GetPromptResponse>;
    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListPromptsResult>;
    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListResourcesResult>;
    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListResourceTemplatesResult>;
    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ReadResourceResponse>;
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter>;
    fn listen(&self, context: SubscriptionContext) -> Answer<'_, ()>;
    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ()>;
    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ()>;
    fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, CustomResult>;
    fn on_initialized(&self, context: NotificationContext<RoleServer>) -> BoxFuture<'_, ()>;
    fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) -> BoxFuture<'_, ()>;
    fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) -> BoxFuture<'_, ()>;
}

impl<H: ServerHandler> Delegate for H {
    fn info(&self) -> ServerConfig {
        self.get_info()
    }

    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, CompleteResult> {
        Box::pin(ServerHandler::complete(self, request, context))
    }

    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, GetPromptResponse> {
        Box::pin(ServerHandler::get_prompt(self, request, context))
    }

    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListPromptsResult> {
        Box::pin(ServerHandler::list_prompts(self, request, context))
    }

    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListResourcesResult> {
        Box::pin(ServerHandler::list_resources(self, request, context))
    }

    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListResourceTemplatesResult> {
        Box::pin(ServerHandler::list_resource_templates(
            self, request, context,
        ))
    }

    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ReadResourceResponse> {
        Box::pin(ServerHandler::read_resource(self, request, context))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        ServerHandler::accepted_subscription_filter(self, requested)
    }

    fn listen(&self, context: SubscriptionContext) -> Answer<'_, ()> {
        Box::pin(ServerHandler::listen(self, context))
    }

    #[allow(deprecated)] // Still what a client on 2025-11-25 sends.
    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ()> {
        Box::pin(ServerHandler::subscribe(self, request, context))
    }

    #[allow(deprecated)] // Still what a client on 2025-11-25 sends.
    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ()> {
        Box::pin(ServerHandler::unsubscribe(self, request, context))
    }

    fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, CustomResult> {
        Box::pin(ServerHandler::on_custom_request(self, request, context))
    }

    fn on_initialized(&self, context: NotificationContext<RoleServer>) -> BoxFuture<'_, ()> {
        Box::pin(ServerHandler::on_initialized(self, context))
    }

    fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) -> BoxFuture<'_, ()> {
        Box::pin(ServerHandler::on_roots_list_changed(self, context))
    }

    fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) -> BoxFuture<'_, ()> {
        Box::pin(ServerHandler::on_custom_notification(
            self,
            notification,
            context,
        ))
    }
}

/// What a server without a handler delegates to: rmcp's defaults, which
/// advertise nothing and answer every request "method not found".
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NoHandler;

impl ServerHandler for NoHandler {}

/// The delegate of a server that composes nothing.
pub(crate) fn no_handler() -> Arc<dyn Delegate> {
    Arc::new(NoHandler)
}
