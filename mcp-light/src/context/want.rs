//! What a tool may ask its client for, each kind tied to the answer the
//! client gives it: an elicitation to an elicitation result, a sampling
//! request to a message, a roots request to roots.

use rmcp::model::{
    ClientCapabilities, ClientResult, ElicitRequest, ElicitRequestParams, ElicitResult,
    InputRequest, ServerRequest,
};
#[allow(deprecated)]
use rmcp::model::{
    CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ListRootsRequest,
    ListRootsResult,
};
use serde::de::DeserializeOwned;

/// A request a tool puts to its client, and the answer it gets back.
pub(super) trait Want {
    /// What the client answers this request with.
    type Answer: DeserializeOwned;

    /// What the request is, for messages.
    fn what(&self) -> &'static str;

    /// Why the client cannot answer it, if it cannot: the capability it
    /// did not declare, or a request it would refuse.
    fn unanswerable(&self, capabilities: &ClientCapabilities) -> Option<Unanswerable>;

    /// The request, as an input-required result asks it (protocol
    /// 2026-07-28).
    fn into_input_request(self) -> InputRequest;

    /// The request, as the server sends it (protocol 2025-11-25).
    fn into_server_request(self) -> ServerRequest;

    /// The answer in the client's response, if it is one.
    fn answer(result: ClientResult) -> Option<Self::Answer>;
}

/// Why a client cannot answer an ask.
pub(super) enum Unanswerable {
    /// It did not declare `capability` (a dotted path such as
    /// `sampling.tools`).
    Undeclared {
        capability: &'static str,
        message: String,
    },
    /// It would refuse the request as sent.
    Invalid(String),
}

/// The refusal of `want`, whose client did not declare `capability`.
fn undeclared(want: &impl Want, capability: &'static str) -> Unanswerable {
    Unanswerable::Undeclared {
        capability,
        message: format!(
            "the client did not declare the `{capability}` capability, so it cannot answer \
             {}; check `ctx.client_capabilities()` first, or do without",
            want.what()
        ),
    }
}

/// An elicitation, in form or URL mode.
impl Want for ElicitRequestParams {
    type Answer = ElicitResult;

    fn what(&self) -> &'static str {
        match self {
            ElicitRequestParams::UrlElicitationParams { .. } => {
                "a URL elicitation (elicitation/create)"
            }
            _ => "an elicitation (elicitation/create)",
        }
    }

    fn unanswerable(&self, capabilities: &ClientCapabilities) -> Option<Unanswerable> {
        let elicitation = capabilities.elicitation.as_ref();
        match self {
            ElicitRequestParams::UrlElicitationParams { .. } => elicitation
                .is_none_or(|e| e.url.is_none())
                .then(|| undeclared(self, "elicitation.url")),
            _ => elicitation
                // A bare `elicitation: {}` declares form mode.
                .is_none_or(|e| e.form.is_none() && e.url.is_some())
                .then(|| undeclared(self, "elicitation.form")),
        }
    }

    fn into_input_request(self) -> InputRequest {
        InputRequest::Elicitation(ElicitRequest::new(self))
    }

    fn into_server_request(self) -> ServerRequest {
        ServerRequest::ElicitRequest(ElicitRequest::new(self))
    }

    fn answer(result: ClientResult) -> Option<ElicitResult> {
        match result {
            ClientResult::ElicitResult(result) => Some(result),
            _ => None,
        }
    }
}

/// A sampling request.
#[allow(deprecated)]
impl Want for CreateMessageRequestParams {
    type Answer = CreateMessageResult;

    fn what(&self) -> &'static str {
        "a sampling request (sampling/createMessage)"
    }

    fn unanswerable(&self, capabilities: &ClientCapabilities) -> Option<Unanswerable> {
        match &capabilities.sampling {
            None => Some(undeclared(self, "sampling")),
            Some(sampling)
                if (self.tools.is_some() || self.tool_choice.is_some())
                    && sampling.tools.is_none() =>
            {
                Some(undeclared(self, "sampling.tools"))
            }
            Some(_) => self.validate().err().map(|problem| {
                Unanswerable::Invalid(format!("the sampling request is invalid: {problem}"))
            }),
        }
    }

    fn into_input_request(self) -> InputRequest {
        InputRequest::CreateMessage(CreateMessageRequest::new(self))
    }

    fn into_server_request(self) -> ServerRequest {
        ServerRequest::CreateMessageRequest(CreateMessageRequest::new(self))
    }

    fn answer(result: ClientResult) -> Option<CreateMessageResult> {
        match result {
            ClientResult::CreateMessageResult(result) => Some(*result),
            _ => None,
        }
    }
}

/// A roots request.
pub(super) struct Roots;

#[allow(deprecated)]
impl Want for Roots {
    type Answer = ListRootsResult;

    fn what(&self) -> &'static str {
        "a roots request (roots/list)"
    }

    fn unanswerable(&self, capabilities: &ClientCapabilities) -> Option<Unanswerable> {
        capabilities
            .roots
            .is_none()
            .then(|| undeclared(self, "roots"))
    }

    fn into_input_request(self) -> InputRequest {
        InputRequest::ListRoots(ListRootsRequest::default())
    }

    fn into_server_request(self) -> ServerRequest {
        ServerRequest::ListRootsRequest(ListRootsRequest::default())
    }

    fn answer(result: ClientResult) -> Option<ListRootsResult> {
        match result {
            ClientResult::ListRootsResult(result) => Some(result),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn roots() -> ClientResult {
        ClientResult::ListRootsResult(serde_json::from_value(json!({"roots": []})).unwrap())
    }

    fn declined() -> ClientResult {
        ClientResult::ElicitResult(serde_json::from_value(json!({"action": "decline"})).unwrap())
    }

    #[test]
    fn each_request_takes_only_its_own_kind_of_answer() {
        assert!(Roots::answer(roots()).is_some());
        assert!(Roots::answer(declined()).is_none());
        assert!(ElicitRequestParams::answer(declined()).is_some());
        assert!(ElicitRequestParams::answer(roots()).is_none());
        #[allow(deprecated)]
        let sampled = CreateMessageRequestParams::answer(roots());
        assert!(sampled.is_none());
    }

    #[test]
    fn a_client_without_the_capability_cannot_answer() {
        let none = ClientCapabilities::default();
        let Some(Unanswerable::Undeclared {
            capability,
            message,
        }) = Roots.unanswerable(&none)
        else {
            panic!("roots were answerable without the capability");
        };
        assert_eq!(capability, "roots");
        assert!(
            message.contains("a roots request (roots/list)"),
            "{message}"
        );
        let declared: ClientCapabilities = serde_json::from_value(json!({"roots": {}})).unwrap();
        assert!(Roots.unanswerable(&declared).is_none());
    }
}
