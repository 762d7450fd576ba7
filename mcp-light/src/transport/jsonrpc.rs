//! Messages rmcp would mishandle, answered with JSON-RPC errors before they
//! reach it.
//!
//! rmcp parses an incoming message into its model types. What it cannot
//! parse it answers badly or not at all: over HTTP with `415 Unsupported
//! Media Type` and plain text, over stdio not at all (a client waiting on
//! that request's id waits forever). And a request for a method it knows
//! but with params of the wrong shape (`tools/call` with an array) falls
//! through to its catch-all custom request, answered `-32601 method not
//! found`. Both transports check each message here first:
//!
//! - not JSON (bad syntax, invalid UTF-8, a number out of range, nesting
//!   deeper than 128 levels): `-32700` parse error;
//! - JSON, but no JSON-RPC message (an array, no `method`, an `id` that is
//!   neither a string nor a number): `-32600` invalid request, with the id
//!   when one can be read;
//! - a request for a method the protocol defines whose params do not fit
//!   it: `-32602` invalid params, with the request's id.
//!
//! The error objects are rmcp's own ([`ErrorData`], sent as a
//! [`ServerJsonRpcMessage`] error).

use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, CancelTaskMethod, ClientJsonRpcMessage,
    ClientRequest, CompleteRequestMethod, ConstString, DiscoverRequestMethod, ErrorData,
    GetPromptRequestMethod, GetTaskMethod, ListPromptsRequestMethod,
    ListResourceTemplatesRequestMethod, ListResourcesRequestMethod, ListToolsRequestMethod,
    ReadResourceRequestMethod, RequestId, ServerJsonRpcMessage, UpdateTaskMethod,
};
use serde_json::Value;

use crate::call::args;

/// The request methods the protocol defines and rmcp serves only when it
/// can read their params. A request naming one of them that rmcp parsed
/// as a custom request had params it could not read. Left out are the
/// methods protocol 2026-07-28 removed (`initialize`, `ping`,
/// `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe`):
/// rmcp answers those itself as the request's protocol version says
/// (`404` and `-32601` on a stateless request).
const PROTOCOL_METHODS: &[&str] = &[
    DiscoverRequestMethod::VALUE,
    CompleteRequestMethod::VALUE,
    GetPromptRequestMethod::VALUE,
    ListPromptsRequestMethod::VALUE,
    ListResourcesRequestMethod::VALUE,
    ListResourceTemplatesRequestMethod::VALUE,
    ReadResourceRequestMethod::VALUE,
    CallToolRequestMethod::VALUE,
    ListToolsRequestMethod::VALUE,
    GetTaskMethod::VALUE,
    UpdateTaskMethod::VALUE,
    CancelTaskMethod::VALUE,
];

/// A message refused before rmcp saw it: the JSON-RPC error, and the id of
/// the request it answers when one could be read.
#[derive(Debug)]
pub(crate) struct MessageRefusal {
    pub(crate) id: Option<RequestId>,
    pub(crate) error: ErrorData,
}

impl MessageRefusal {
    /// A parse error (`-32700`): the bytes are not JSON.
    pub(crate) fn parse_error(detail: impl std::fmt::Display) -> MessageRefusal {
        MessageRefusal {
            id: None,
            error: ErrorData::parse_error(format!("the message is not valid JSON: {detail}"), None),
        }
    }

    /// An invalid request (`-32600`) answering `id`.
    pub(crate) fn invalid_request(id: Option<RequestId>, message: String) -> MessageRefusal {
        MessageRefusal {
            id,
            error: ErrorData::invalid_request(message, None),
        }
    }

    /// A request the server cannot take now (`-32000`, a server error):
    /// it holds as much as it was told to, and `message` says what and
    /// what the client can do. Only HTTP bounds sessions.
    #[cfg(feature = "http")]
    pub(crate) fn busy(id: RequestId, message: String) -> MessageRefusal {
        MessageRefusal {
            id: Some(id),
            error: ErrorData::new(rmcp::model::ErrorCode(-32000), message, None),
        }
    }

    /// The refusal as the JSON-RPC error message sent back.
    pub(crate) fn into_message(self) -> ServerJsonRpcMessage {
        ServerJsonRpcMessage::error(self.error, self.id)
    }
}

/// What the HTTP guard learned of a message rmcp may read.
#[cfg(feature = "http")]
#[derive(Debug)]
pub(crate) enum Checked {
    /// rmcp reads the bytes as they are.
    AsIs,
    /// A `tools/call` whose arguments, at `span` of the bytes, are parsed
    /// already: rmcp is handed the message with `{}` there, and the call
    /// takes these.
    Arguments {
        span: std::ops::Range<usize>,
        arguments: rmcp::model::JsonObject,
    },
    /// An `initialize` request, with its id: without a session header it
    /// opens a session, which the HTTP transport counts.
    Initialize(RequestId),
}

/// Arguments at least this long are parsed by the guard and handed to the
/// call, rather than read by rmcp (whose reading of a whole message first
/// buffers every value, then copies each into place): below it, either
/// costs about the same.
#[cfg(feature = "http")]
const TAKEN_ARGUMENTS_BYTES: usize = 2048;

/// Checks one message before rmcp reads it: what to hand rmcp, or the
/// refusal that answers the message.
///
/// A `tools/call` of the usual shape (a `name`, `arguments` that are an
/// object) and any message whose method rmcp cannot mistake for a custom
/// request pass after a scan of their bytes that builds nothing, so they
/// are parsed once, by rmcp; with `take_arguments`, a `tools/call`'s long
/// arguments are parsed here instead, straight into a map, and handed to
/// the call. Bytes that turn out not to be a message rmcp can read are
/// classified after rmcp refused them ([`parse`], which the HTTP guard
/// calls on rmcp's refusal). Every other message is parsed here first.
#[cfg(feature = "http")]
pub(crate) fn check(bytes: &[u8], take_arguments: bool) -> Result<Checked, Box<MessageRefusal>> {
    match plainly_served(bytes, take_arguments) {
        Some(checked) => Ok(checked),
        None => parse(bytes).map(|message| match message {
            ClientJsonRpcMessage::Request(request)
                if matches!(request.request, ClientRequest::InitializeRequest(_)) =>
            {
                Checked::Initialize(request.id)
            }
            _ => Checked::AsIs,
        }),
    }
}

/// What to hand rmcp when `bytes` are a message it serves as what it is,
/// or refuses as unreadable, judged from a scan that allocates nothing: no
/// request for a protocol method whose params rmcp could not read, which it
/// would take for a custom request. `None` when unsure.
#[cfg(feature = "http")]
fn plainly_served(bytes: &[u8], take_arguments: bool) -> Option<Checked> {
    use serde::Deserialize;
    use serde_json::value::RawValue;

    /// The part of a message that says what it is.
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        method: Option<&'a str>,
        #[serde(borrow)]
        params: Option<&'a RawValue>,
    }

    /// `tools/call`'s params as rmcp reads them, the arguments left
    /// unread.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[expect(dead_code, reason = "read only to check that they parse")]
    struct CallParams<'a> {
        /// Any JSON object, as rmcp reads it: checked to be one, not
        /// built.
        #[serde(rename = "_meta", borrow)]
        meta: Option<&'a RawValue>,
        #[serde(borrow)]
        name: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        arguments: Option<&'a RawValue>,
        input_responses: Option<rmcp::model::InputResponses>,
        request_state: Option<String>,
    }

    // Not JSON, not an object, or an escaped method name: unsure.
    let head = serde_json::from_slice::<Head<'_>>(bytes).ok()?;
    match head.method {
        // A notification, or a response to one of the server's requests.
        None => Some(Checked::AsIs),
        // Once a session: parsed, for its id.
        Some(method) if method == rmcp::model::InitializeResultMethod::VALUE => None,
        // An empty method is refused by `parse`, with a sentence.
        Some("") => None,
        Some(method) if !PROTOCOL_METHODS.contains(&method) => Some(Checked::AsIs),
        Some(method) if method == CallToolRequestMethod::VALUE => {
            let params = serde_json::from_str::<CallParams<'_>>(head.params?.get()).ok()?;
            if params.meta.is_some_and(|meta| !meta.get().starts_with('{')) {
                return None;
            }
            let Some(arguments) = params.arguments else {
                return Some(Checked::AsIs);
            };
            let raw = arguments.get();
            if raw == "null" {
                return Some(Checked::AsIs);
            }
            if !raw.starts_with('{') {
                return None;
            }
            if !take_arguments || raw.len() < TAKEN_ARGUMENTS_BYTES {
                return Some(Checked::AsIs);
            }
            // Arguments that do not parse (a number out of range, nesting
            // too deep) are refused as the whole message is.
            let parsed = serde_json::from_str(raw).ok()?;
            // `raw` borrows from `bytes`: its place in them.
            let start = raw.as_ptr() as usize - bytes.as_ptr() as usize;
            Some(Checked::Arguments {
                span: start..start + raw.len(),
                arguments: parsed,
            })
        }
        Some(_) => None,
    }
}

/// Parses one message, or the refusal that answers it (boxed: a parsed
/// message is the common case, and a small `Result` moves cheaply).
pub(crate) fn parse(bytes: &[u8]) -> Result<ClientJsonRpcMessage, Box<MessageRefusal>> {
    match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(message) => check_params(message),
        Err(error) => Err(Box::new(classify(bytes, error))),
    }
}

/// Refuses a request for a protocol method whose params rmcp could not
/// read (it fell through to the custom request).
fn check_params(
    message: ClientJsonRpcMessage,
) -> Result<ClientJsonRpcMessage, Box<MessageRefusal>> {
    let ClientJsonRpcMessage::Request(request) = &message else {
        return Ok(message);
    };
    let ClientRequest::CustomRequest(custom) = &request.request else {
        return Ok(message);
    };
    let method = custom.method.as_str();
    // rmcp answers an unknown method -32601 with the method's name as the
    // whole message: for an empty name, an empty message.
    if method.is_empty() {
        return Err(Box::new(MessageRefusal::invalid_request(
            Some(request.id.clone()),
            "a request's `method` names what to do, and it is empty".to_owned(),
        )));
    }
    if !PROTOCOL_METHODS.contains(&method) {
        return Ok(message);
    }
    Err(Box::new(MessageRefusal {
        id: Some(request.id.clone()),
        error: ErrorData::invalid_params(params_problem(method, custom.params.as_ref()), None),
    }))
}

/// What is wrong with `params` for `method`, which could not read them.
fn params_problem(method: &str, params: Option<&Value>) -> String {
    match params {
        None => format!("`{method}` takes params, and the request has none"),
        Some(params) if method == CallToolRequestMethod::VALUE => {
            match serde_json::from_value::<CallToolRequestParams>(params.clone()) {
                Err(error) => format!(
                    "the params of `{method}` must be an object with the tool's `name` and its \
                     `arguments` as an object: {}",
                    args::json_terms(&error.to_string())
                ),
                Ok(_) => format!("the params of `{method}` do not have the shape it takes"),
            }
        }
        Some(params) if !params.is_object() => {
            format!("the params of `{method}` must be a JSON object")
        }
        Some(_) => format!("the params of `{method}` do not have the shape it takes"),
    }
}

/// Why `bytes` are no message: not JSON at all, or JSON that is no JSON-RPC
/// message.
fn classify(bytes: &[u8], error: serde_json::Error) -> MessageRefusal {
    let value = match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => value,
        Err(syntax) => return MessageRefusal::parse_error(syntax),
    };
    let Value::Object(object) = &value else {
        let message = if value.is_array() {
            "a batch (a JSON array) is not accepted; send one JSON-RPC message at a time".to_owned()
        } else {
            "a JSON-RPC message is a JSON object".to_owned()
        };
        return MessageRefusal::invalid_request(None, message);
    };
    let id = object
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let message = if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        "a JSON-RPC message needs `\"jsonrpc\": \"2.0\"`".to_owned()
    } else if object
        .get("id")
        .is_some_and(|raw| id.is_none() && !raw.is_null())
    {
        "a request's `id` is a string or an integer".to_owned()
    } else if let Some(method) = object.get("method")
        && !method.is_string()
    {
        "a request's `method` is a string".to_owned()
    } else if !object.contains_key("method")
        && !object.contains_key("result")
        && !object.contains_key("error")
    {
        "the message has no `method`: it is neither a request nor a notification".to_owned()
    } else if let Some(Value::String(method)) = object.get("method")
        && object
            .get("params")
            .is_some_and(|params| !params.is_object() && !params.is_null())
    {
        // MCP's params are always an object; rmcp reads no other kind.
        return MessageRefusal {
            id,
            error: ErrorData::invalid_params(params_problem(method, object.get("params")), None),
        };
    } else {
        format!(
            "the message is not a JSON-RPC request, notification or response this server reads: {}",
            args::json_terms(&error.to_string())
        )
    };
    MessageRefusal::invalid_request(id, message)
}

#[cfg(test)]
mod tests {
    use rmcp::model::ErrorCode;

    use super::*;

    fn refused(bytes: &[u8]) -> MessageRefusal {
        *parse(bytes).expect_err("refused")
    }

    #[test]
    fn bytes_that_are_not_json_are_a_parse_error_without_an_id() {
        let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
        for bytes in [
            &b"{not json"[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":1e400}}",
            deep.as_bytes(),
        ] {
            let refusal = refused(bytes);
            assert_eq!(refusal.error.code, ErrorCode::PARSE_ERROR, "{refusal:?}");
            assert_eq!(refusal.id, None);
        }
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request_with_the_id_it_has() {
        let refusal = refused(br#"{"jsonrpc":"2.0","id":7,"method":5}"#);
        assert_eq!(refusal.error.code, ErrorCode::INVALID_REQUEST);
        assert_eq!(refusal.id, Some(RequestId::Number(7)));
        assert!(refusal.error.message.contains("`method`"), "{refusal:?}");

        let refusal = refused(br#"{"id":"a","method":"ping"}"#);
        assert_eq!(refusal.error.code, ErrorCode::INVALID_REQUEST);
        assert_eq!(refusal.id, Some(RequestId::String("a".into())));

        let refusal = refused(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
        assert_eq!(refusal.error.code, ErrorCode::INVALID_REQUEST);
        assert!(refusal.error.message.contains("batch"), "{refusal:?}");
    }

    /// Found by the `stdio` fuzz target: `{"jsonrpc":"2.0","id":0,"method":""}`
    /// was answered `{"code":-32601,"message":""}`, an error saying nothing.
    #[test]
    fn an_empty_method_is_an_invalid_request_that_says_so() {
        let bytes = br#"{"jsonrpc":"2.0","id":0,"method":""}"#;
        let refusal = refused(bytes);
        assert_eq!(refusal.error.code, ErrorCode::INVALID_REQUEST);
        assert_eq!(refusal.id, Some(RequestId::Number(0)));
        assert!(refusal.error.message.contains("`method`"), "{refusal:?}");
        #[cfg(feature = "http")]
        assert!(check(bytes, true).is_err(), "HTTP checks it too");
    }

    #[test]
    fn a_protocol_method_with_params_of_the_wrong_shape_is_invalid_params() {
        let refusal = refused(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]}"#);
        assert_eq!(refusal.error.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(refusal.id, Some(RequestId::Number(3)));
        assert!(
            refusal.error.message.contains("expected an object"),
            "{refusal:?}"
        );
        let refusal = refused(
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":[1]}}"#,
        );
        assert_eq!(refusal.error.code, ErrorCode::INVALID_PARAMS);
        // MCP's params are objects, whatever the method.
        let refusal = refused(br#"{"jsonrpc":"2.0","id":5,"method":"vendor/thing","params":[1]}"#);
        assert_eq!(refusal.error.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(refusal.id, Some(RequestId::Number(5)));
    }

    #[cfg(feature = "http")]
    #[test]
    fn the_usual_tools_call_passes_without_a_parse_and_odd_ones_are_parsed() {
        for bytes in [
            &br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"a":[1,{"b":2}]}}}"#[..],
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":1}}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            br#"{"jsonrpc":"2.0","id":9,"method":"vendor/thing","params":[1]}"#,
        ] {
            assert!(
                matches!(plainly_served(bytes, true), Some(Checked::AsIs)),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
        for bytes in [
            &br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]}"#[..],
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":[1]}}"#,
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}"#,
            br#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":7}}"#,
            br#"{not json"#,
        ] {
            assert!(
                plainly_served(bytes, true).is_none(),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
        // Parsed here, they are refused as before.
        let array = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]}"#;
        assert!(check(array, true).is_err());
        let list = br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        assert!(matches!(check(list, true), Ok(Checked::AsIs)));
    }

    #[cfg(feature = "http")]
    #[test]
    fn long_arguments_are_parsed_once_and_handed_over_with_their_place() {
        let long = "x".repeat(TAKEN_ARGUMENTS_BYTES);
        let arguments = format!(r#"{{"note":"{long}","n":[1,2]}}"#);
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"t","arguments":{arguments}}}}}"#
        );
        let Ok(Checked::Arguments {
            span,
            arguments: parsed,
        }) = check(message.as_bytes(), true)
        else {
            panic!("the arguments are taken");
        };
        assert_eq!(&message[span], arguments);
        assert_eq!(parsed["note"], long.as_str());
        assert_eq!(parsed["n"], serde_json::json!([1, 2]));
        // Not taken when the guard may not, or when they are short.
        assert!(matches!(
            check(message.as_bytes(), false),
            Ok(Checked::AsIs)
        ));
        let short = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}}"#;
        assert!(matches!(check(short, true), Ok(Checked::AsIs)));
        // Long arguments that do not parse are refused as a parse error.
        let bad = message.replace(r#""n":[1,2]"#, r#""n":1e400"#);
        let refusal = check(bad.as_bytes(), true).expect_err("refused");
        assert_eq!(refusal.error.code, ErrorCode::PARSE_ERROR);
    }

    #[test]
    fn well_formed_messages_pass() {
        for bytes in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#[..],
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            br#"{"jsonrpc":"2.0","id":9,"method":"vendor/thing","params":{"a":[1]}}"#,
            // Removed in 2026-07-28: rmcp answers it as the version says.
            br#"{"jsonrpc":"2.0","id":10,"method":"ping","params":{"_meta":{}}}"#,
        ] {
            assert!(parse(bytes).is_ok(), "{}", String::from_utf8_lossy(bytes));
        }
    }
}
