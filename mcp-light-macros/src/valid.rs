//! Checks a tool model and decides what it is. Every mistake is recorded
//! with its span and a sentence saying how to fix it; nothing here emits
//! code.

use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{LitStr, Path, ReceiverKind, Safety, Type, TypeReference};

use crate::ast::{Param, Role, Tool, ungroup};
use crate::attr::{self, Attr, TaskArg, ToolArgs, WriteKind};
use crate::ctxt::Ctxt;
use crate::symbol::{NEGOTIATION_FIELDS, VERIFY};

/// What a checked tool registers.
pub struct Plan<'a> {
    pub tool: &'a Tool,
    pub name: String,
    /// `description = "..."`, else the doc comment.
    pub description: String,
    pub kind: Kind,
    pub resource: Option<String>,
    pub action: Option<String>,
    /// `retrieve = path`, a method's `Self::` resolved to the impl's type.
    pub retrieve: Option<Path>,
    /// What a destroy's envelope confirms as the id of what it deleted.
    pub destroy_id: Option<DestroyId<'a>>,
    /// rmcp's `Parameters<T>`, when the tool takes its arguments whole.
    pub whole: Option<&'a Param>,
    /// The path generated code reaches mcp-light by (`crate = path`).
    pub krate: Path,
    /// A synchronous function runs on the calling worker (`inline`), not
    /// on the blocking pool. Always `false` for an `async fn`.
    pub inline: bool,
    /// `task` on any of the tool's attributes.
    pub task: Option<TaskArg>,
    /// `schema = "as_written"` on any of the tool's attributes.
    pub schema_as_written: bool,
    /// `scopes = [...]` on one of the tool's attributes: the OAuth scopes a
    /// call needs, in the order written.
    pub scopes: Vec<String>,
    /// `view = false` on one of the tool's attributes.
    pub no_view: bool,
    /// `inline = N` on `#[mcp_heavy]`: the heavy read's own inline budget
    /// in bytes.
    pub inline_budget: Option<usize>,
}

/// Where a destroy's envelope takes its `id` from.
pub enum DestroyId<'a> {
    /// The identifying parameter, and its key in the input.
    Argument(&'a Param, String),
    /// The call's `id` (else `pk`) argument: the destroy takes rmcp's
    /// `Parameters<T>`, whose fields the macros cannot see.
    Called,
}

#[derive(Copy, Clone, PartialEq, Eq)]
pub enum Kind {
    Read,
    Heavy,
    Write { kind: WriteKind, status: u16 },
}

/// Checks `tool`; `None` when it has errors (recorded in `cx`).
pub fn check<'a>(cx: &Ctxt, tool: &'a Tool) -> Option<Plan<'a>> {
    check_combination(cx, &tool.attrs);
    check_signature(cx, tool);

    let light = tool.attrs.iter().find(|a| a.attr == Attr::Light);
    let heavy = tool.attrs.iter().any(|a| a.attr == Attr::Heavy);
    let write_kind = light.and_then(|light| write_kind(cx, tool, light));
    let kind = match (heavy, light, write_kind) {
        (true, _, _) => Kind::Heavy,
        (false, Some(light), Some((kind, _))) => Kind::Write {
            kind,
            status: light
                .status
                .map_or_else(|| kind.default_status(), |(code, _)| code),
        },
        _ => Kind::Read,
    };

    let name = merged(cx, &tool.attrs, |a| a.name.as_ref(), "name")
        .unwrap_or_else(|| tool.item.sig.ident.unraw().to_string());
    let description = merged(cx, &tool.attrs, |a| a.description.as_ref(), "description")
        .unwrap_or_else(|| tool.docs.clone());
    check_tool_name(cx, &tool.attrs, &name);
    let resource = merged(cx, &tool.attrs, |a| a.resource.as_ref(), "resource");
    let action = merged(cx, &tool.attrs, |a| a.action.as_ref(), "action")
        .or_else(|| write_kind.map(|(kind, _)| kind.as_str().to_owned()));
    let retrieve = light
        .and_then(|light| light.retrieve.as_ref())
        .and_then(|path| check_retrieve(cx, tool, path));
    let krate = attr::krate(
        merged_crate(cx, &tool.attrs).or(tool.owner.as_ref().and_then(|o| o.krate.as_ref())),
    );
    let inline = check_inline(cx, tool);
    let task = check_task(cx, tool);
    let scopes = check_scopes(cx, tool);

    let whole = check_params(cx, tool, kind);
    let destroy_id = match (kind, write_kind) {
        (
            Kind::Write {
                kind: WriteKind::Destroy,
                ..
            },
            Some(_),
        ) if whole.is_some() => Some(DestroyId::Called),
        (
            Kind::Write {
                kind: WriteKind::Destroy,
                ..
            },
            Some((_, span)),
        ) => destroy_id(cx, tool, span),
        _ => {
            let mut args = tool.params.iter().filter(|p| matches!(p.role, Role::Arg));
            if let Some(id) = args.find_map(|p| p.attrs.id.as_ref()) {
                cx.push(syn::Error::new_spanned(
                    id,
                    "`#[id]` marks the identifier of a `#[mcp_light(destroy)]` tool, and this tool \
                     is not a destroy: remove `#[id]`",
                ));
            }
            None
        }
    };

    if cx.has_errors() {
        return None;
    }
    Some(Plan {
        tool,
        name,
        description,
        kind,
        resource,
        action,
        retrieve,
        destroy_id,
        whole,
        krate,
        inline,
        task,
        schema_as_written: tool
            .attrs
            .iter()
            .any(|args| args.schema_as_written.is_some()),
        scopes,
        no_view: tool.attrs.iter().any(|args| args.no_view.is_some()),
        // Only `#[mcp_heavy]` takes it, and a function has one of those.
        inline_budget: tool
            .attrs
            .iter()
            .find_map(|args| args.inline_budget.map(|(budget, _)| budget)),
    })
}

/// `scopes` on one of the tool's attributes, at most: two lists would leave
/// a reader guessing whether a call needs both or either.
fn check_scopes(cx: &Ctxt, tool: &Tool) -> Vec<String> {
    let mut given = tool.attrs.iter().filter_map(|args| args.scopes.as_ref());
    let Some((scopes, _)) = given.next() else {
        return Vec::new();
    };
    if let Some((_, again)) = given.next() {
        cx.push(syn::Error::new(
            *again,
            "`scopes` is given twice: give every scope the tool needs in one attribute's \
             `scopes = [...]`",
        ));
    }
    scopes.iter().map(LitStr::value).collect()
}

/// `task` on one of the tool's attributes, at most: a task is a call
/// that waits, so an `inline` tool, which never does, cannot be one.
fn check_task(cx: &Ctxt, tool: &Tool) -> Option<TaskArg> {
    let mut given = tool.attrs.iter().filter_map(|args| args.task);
    let (task, span) = given.next()?;
    if let Some((_, again)) = given.next() {
        cx.push(syn::Error::new(
            again,
            "`task` is given twice: give it in one attribute",
        ));
    }
    if tool.attrs.iter().any(|args| args.inline.is_some()) {
        cx.push(syn::Error::new(
            span,
            "an `inline` tool answers at once and never becomes a task: remove `task` or `inline`",
        ));
    }
    Some(task)
}

/// `inline` on any of the tool's attributes; on an `async fn`, which
/// always runs on the async workers, it is a mistake.
fn check_inline(cx: &Ctxt, tool: &Tool) -> bool {
    let mut spans = tool.attrs.iter().filter_map(|args| args.inline);
    let Some(first) = spans.next() else {
        return false;
    };
    if tool.item.sig.asyncness.is_some() {
        cx.push(syn::Error::new(
            first,
            format_args!(
                "`inline` applies only to a synchronous function, which otherwise runs on the \
                 runtime's blocking pool; `{}` is an `async fn`, which always runs on the \
                 async workers: remove `inline`",
                tool.item.sig.ident.unraw()
            ),
        ));
        return false;
    }
    true
}

/// `#[mcp_heavy]` and `#[mcp_light]` combine; `#[mcp_tool]` combines
/// with neither; no attribute is given twice.
fn check_combination(cx: &Ctxt, attrs: &[ToolArgs]) {
    for (i, args) in attrs.iter().enumerate().skip(1) {
        let earlier = &attrs[..i];
        if earlier.iter().any(|a| a.attr == args.attr) {
            cx.push(syn::Error::new_spanned(
                &args.tokens,
                format_args!(
                    "`#[{}]` is given twice on this function: keep one",
                    args.attr
                ),
            ));
        } else if args.attr == Attr::Tool || earlier.iter().any(|a| a.attr == Attr::Tool) {
            cx.push(syn::Error::new_spanned(
                &args.tokens,
                "use one of `#[mcp_tool]` (a plain read tool), `#[mcp_heavy]` (a heavy read) or \
                 `#[mcp_light]` (a write): only `#[mcp_heavy]` and `#[mcp_light]` combine, \
                 into a heavy tool",
            ));
        }
    }
}

fn check_signature(cx: &Ctxt, tool: &Tool) {
    let sig = &tool.item.sig;
    let what = format!("`#[{}]`", tool.attrs[0].attr);
    match (&tool.receiver, &tool.owner) {
        (Some(receiver), None) => cx.error_spanned_by(
            receiver,
            format_args!(
                "{what} on a method registers it when its `impl` block carries `#[mcp_tools]`: \
                 put `#[mcp_tools]` on the `impl` block (where rmcp has `#[tool_router]`)"
            ),
        ),
        (Some(receiver), Some(_)) => match receiver.kind {
            ReceiverKind::Reference(_, _, None) => {}
            ReceiverKind::Reference(_, _, Some(_)) => cx.error_spanned_by(
                receiver,
                "a tool's `&self` is the server's state, which every call shares, so it is \
                 never borrowed mutably: take `&self`, and keep what changes behind a `Mutex` \
                 or an atomic",
            ),
            _ => cx.error_spanned_by(
                receiver,
                "a tool's `self` is the server's state, which every call shares, so the tool \
                 borrows it: take `&self`",
            ),
        },
        (None, _) => {}
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            "a tool cannot be generic: its parameter and result types make its published schema, \
             so they must be concrete types; remove the generic parameters",
        );
    }
    if let Some(constness) = &sig.constness {
        cx.error_spanned_by(constness, "a tool cannot be a `const fn`: remove `const`");
    }
    if let Safety::Unsafe(unsafety) = &sig.safety {
        cx.error_spanned_by(
            unsafety,
            "a tool cannot be an `unsafe fn`, since nothing can promise its safety contract \
             when a client calls it: remove `unsafe` and use an `unsafe` block inside",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(
            abi,
            "a tool is called by mcp-light, not across an ABI: remove the `extern`",
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(
            variadic,
            "a tool cannot be variadic: take a `Vec<T>` parameter instead",
        );
    }
}

/// The write kind of `#[mcp_light]`, required, and consistent with a `Vec`
/// result (ambiguity is a compile error, not a guess).
fn write_kind(cx: &Ctxt, tool: &Tool, light: &ToolArgs) -> Option<(WriteKind, proc_macro2::Span)> {
    let heavy = tool.attrs.iter().any(|a| a.attr == Attr::Heavy);
    let Some((kind, span)) = light.kind else {
        let hint = if tool.output.returns_vec() {
            "this function returns a Vec, so it writes a list: \
             `#[mcp_light(bulk_create, ...)]` or `#[mcp_light(bulk_update, ...)]`"
        } else if tool.output.returns_unit() {
            "this function returns nothing, as a delete does: `#[mcp_light(destroy, ...)]`?"
        } else {
            "for example `#[mcp_light(create, resource = \"device\")]`"
        };
        cx.push(syn::Error::new_spanned(
            &light.tokens,
            format_args!(
                "`#[mcp_light]` needs the kind of write, one of {}; {hint}",
                WriteKind::list()
            ),
        ));
        return None;
    };
    // A heavy tool answers a probe whatever the write kind says.
    if !heavy && tool.output.returns_vec() && !kind.is_bulk() && kind != WriteKind::Destroy {
        cx.push(syn::Error::new(
            span,
            format_args!(
                "`{}` returns a Vec, so it writes a list: use bulk_create or bulk_update \
                 instead of `{}`",
                tool.item.sig.ident,
                kind.as_str()
            ),
        ));
    }
    Some((kind, span))
}

/// One value of `key` from all the attributes; two different values are an
/// error.
fn merged(
    cx: &Ctxt,
    attrs: &[ToolArgs],
    get: impl Fn(&ToolArgs) -> Option<&LitStr>,
    key: &str,
) -> Option<String> {
    let mut found: Option<(&ToolArgs, &LitStr)> = None;
    for args in attrs {
        let Some(lit) = get(args) else { continue };
        match found {
            None => found = Some((args, lit)),
            Some((first, first_lit)) if first_lit.value() != lit.value() => {
                cx.error_spanned_by(
                    lit,
                    format_args!(
                        "conflicting `{key}`: `#[{}]` says {:?} and `#[{}]` says {:?}; \
                         give `{key}` in one attribute",
                        first.attr,
                        first_lit.value(),
                        args.attr,
                        lit.value()
                    ),
                );
            }
            Some(_) => {}
        }
    }
    found.map(|(_, lit)| lit.value())
}

/// One `crate = path` from all the attributes; two different paths are an
/// error.
fn merged_crate<'a>(cx: &Ctxt, attrs: &'a [ToolArgs]) -> Option<&'a Path> {
    let mut found: Option<(&ToolArgs, &Path)> = None;
    for args in attrs {
        let Some(path) = &args.krate else { continue };
        match found {
            None => found = Some((args, path)),
            Some((first, first_path)) if !same_path(first_path, path) => {
                cx.error_spanned_by(
                    path,
                    format_args!(
                        "conflicting `crate`: `#[{}]` and `#[{}]` name different paths; \
                         give `crate` in one attribute",
                        first.attr, args.attr
                    ),
                );
            }
            Some(_) => {}
        }
    }
    found.map(|(_, path)| path)
}

fn same_path(a: &Path, b: &Path) -> bool {
    a.to_token_stream().to_string() == b.to_token_stream().to_string()
}

/// MCP tool names: letters, digits, `_`, `-`, `.`; 1 to 64 characters.
fn check_tool_name(cx: &Ctxt, attrs: &[ToolArgs], name: &str) {
    let valid = name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !valid && let Some(lit) = attrs.iter().find_map(|a| a.name.as_ref()) {
        cx.error_spanned_by(
            lit,
            "a tool name has at most 64 characters, each a letter, a digit, `_`, `-` or `.`: \
             choose another `name`",
        );
    }
}

/// Checks each parameter for its role; answers rmcp's `Parameters<T>`
/// when the tool takes its arguments whole.
fn check_params<'a>(cx: &Ctxt, tool: &'a Tool, kind: Kind) -> Option<&'a Param> {
    check_headers(cx, tool);
    let whole = check_whole(cx, tool);
    for param in &tool.params {
        let ident = match &param.role {
            Role::Whole => continue,
            Role::Arg if whole.is_some() => {
                cx.error_spanned_by(
                    &param.pat,
                    format_args!(
                        "rmcp's `Parameters<T>` is the whole arguments object of this tool, so \
                         `{}` cannot be an argument beside it: make it a field of `T`, where the \
                         client already sends it at the top level",
                        param.pat.to_token_stream()
                    ),
                );
                continue;
            }
            Role::Arg => param.ident.as_ref(),
            Role::Borrowed(reference) => {
                check_borrowed(cx, param, reference);
                check_not_an_argument(cx, param);
                continue;
            }
            Role::Extracted => {
                check_not_an_argument(cx, param);
                continue;
            }
            Role::Unnamed => None,
        };
        let Some(ident) = ident else {
            cx.error_spanned_by(
                &param.pat,
                "give this parameter a plain name, such as `device: NewDevice`, to make it an \
                 argument (the name is its key in the tool's input schema); or take it from \
                 the call: borrow it (`ctx: &Context`) or destructure it (`State(db): State<Db>`)",
            );
            continue;
        };
        check_arg_type(cx, ident, &param.ty);
        let key = param.key().unwrap_or_default();
        match kind {
            Kind::Write { .. } if key == VERIFY => cx.error_spanned_by(
                ident,
                format_args!(
                    "`{VERIFY}` is injected by mcp-light into every write tool's schema \
                     (`{VERIFY}: true` returns the full result), so a write takes no argument of \
                     that name: keep this tool a `#[mcp_tool]`, which publishes its arguments as \
                     they are"
                ),
            ),
            Kind::Heavy if NEGOTIATION_FIELDS.contains(&key.as_str()) => cx.error_spanned_by(
                ident,
                format_args!(
                    "`{key}` is one of the negotiation fields `#[mcp_heavy]` adds to the tool's \
                     schema ({}), so a heavy read takes no argument of that name: keep this tool \
                     a `#[mcp_tool]`, which publishes its arguments as they are",
                    NEGOTIATION_FIELDS.join(", ")
                ),
            ),
            _ => {}
        }
    }
    whole
}

/// rmcp's `Parameters<T>`, taken once and bare: what describes the
/// arguments is on `T`, where their schema comes from.
fn check_whole<'a>(cx: &Ctxt, tool: &'a Tool) -> Option<&'a Param> {
    let mut wholes = tool.params.iter().filter(|p| matches!(p.role, Role::Whole));
    let whole = wholes.next()?;
    for again in wholes {
        cx.error_spanned_by(
            &again.ty,
            "rmcp's `Parameters<T>` is the whole arguments object, so a tool takes it once: \
             merge the two structs into one `T`",
        );
    }
    for attr in &whole.attrs.forwarded {
        cx.error_spanned_by(
            attr,
            "rmcp's `Parameters<T>` is the whole arguments object, and its schema is `T`'s: \
             describe the arguments on `T` (doc comments, `#[serde(...)]`, `#[schemars(...)]` \
             on its fields) and remove this attribute",
        );
    }
    if let Some(id) = &whole.attrs.id {
        cx.error_spanned_by(
            id,
            "a destroy that takes rmcp's `Parameters<T>` reads its id from the call's `id` (or \
             `pk`) argument: remove `#[id]`",
        );
    }
    if let Some((header, _)) = &whole.attrs.header {
        cx.error_spanned_by(
            header,
            "`#[header(...)]` mirrors one argument in an HTTP header, and `Parameters<T>` is \
             all of them: remove it",
        );
    }
    Some(whole)
}

/// A write's `retrieve = path`. On a method, `Self::name` names another
/// tool method of the same `impl`, checked here, and resolves to the
/// impl's type; elsewhere `Self` names nothing.
fn check_retrieve(cx: &Ctxt, tool: &Tool, path: &Path) -> Option<Path> {
    let through_self = path.leading_colon.is_none()
        && path
            .segments
            .first()
            .is_some_and(|first| first.ident == "Self");
    if !through_self {
        return Some(path.clone());
    }
    let Some(owner) = &tool.owner else {
        cx.error_spanned_by(
            path,
            "`retrieve = Self::...` names a method of a `#[mcp_tools]` impl, and this function \
             is not in one: name the retrieve tool's function by its path",
        );
        return None;
    };
    let named = match path.segments.iter().nth(1) {
        Some(method) if path.segments.len() == 2 => &method.ident,
        _ => return Some(owner.resolve_path(path)),
    };
    if owner.tools.iter().any(|tool| tool.ident == *named) {
        return Some(owner.resolve_path(path));
    }
    let retrieves: Vec<String> = owner
        .tools
        .iter()
        .filter(|tool| tool.retrieve)
        .map(|tool| format!("`Self::{}`", tool.ident))
        .collect();
    let instead = match retrieves.as_slice() {
        [] => String::new(),
        [one] => format!(", or name this impl's retrieve tool, {one}"),
        many => format!(
            ", or name one of this impl's retrieve tools: {}",
            many.join(", ")
        ),
    };
    cx.error_spanned_by(
        path,
        format_args!(
            "`{}` is not a tool method of this impl: annotate `{named}` with \
             `#[mcp_tool(resource = \"...\", action = \"retrieve\")]`{instead}",
            path.to_token_stream().to_string().replace(' ', ""),
        ),
    );
    None
}

/// A reference is borrowed from the call. `&str` and `&[T]` never are, so
/// they are arguments written as references; what is borrowed is shared by
/// the server's calls, so never `&mut`.
fn check_borrowed(cx: &Ctxt, param: &Param, reference: &TypeReference) {
    let instead = match ungroup(&reference.elem) {
        Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => {
            Some("take `String` instead of `&str`".to_owned())
        }
        Type::Slice(slice) => Some(format!(
            "take `Vec<{}>` instead of `&[{0}]`",
            slice.elem.to_token_stream()
        )),
        _ => None,
    };
    if let Some(instead) = instead {
        let name = match &param.ident {
            Some(ident) => format!("the argument `{ident}`"),
            None => "an argument".to_owned(),
        };
        cx.error_spanned_by(
            &param.ty,
            format_args!("{name} is parsed from the call's JSON, so the tool owns it: {instead}"),
        );
    } else if reference.mutability.is_some() {
        cx.error_spanned_by(
            &param.ty,
            format_args!(
                "what a tool borrows from the call is shared by the server's calls: take \
                 `&{}`",
                reference.elem.to_token_stream()
            ),
        );
    }
}

/// Argument attributes on a parameter taken from the call.
fn check_not_an_argument(cx: &Ctxt, param: &Param) {
    for attr in &param.attrs.forwarded {
        cx.error_spanned_by(
            attr,
            "this parameter is taken from the call, not parsed from the call's JSON, so it has \
             no schema field to configure: remove this attribute",
        );
    }
    if let Some(id) = &param.attrs.id {
        cx.error_spanned_by(
            id,
            "`#[id]` marks an argument, and this parameter is taken from the call: mark the \
             argument that identifies what the destroy deletes",
        );
    }
    if let Some((header, _)) = &param.attrs.header {
        cx.error_spanned_by(
            header,
            "`#[header(...)]` mirrors an argument in an HTTP header, and this parameter is taken \
             from the call, not sent by the client: put it on an argument",
        );
    }
}

/// Two arguments cannot be mirrored in one header (names compare without
/// case, as HTTP's do).
fn check_headers(cx: &Ctxt, tool: &Tool) {
    let mut seen: Vec<String> = Vec::new();
    for (_, name) in tool.params.iter().filter_map(|p| p.attrs.header.as_ref()) {
        let folded = name.value().to_ascii_lowercase();
        if seen.contains(&folded) {
            cx.error_spanned_by(
                name,
                format_args!(
                    "another argument is already mirrored in the header `{}`: give each \
                     `#[header]` its own name",
                    name.value()
                ),
            );
        }
        seen.push(folded);
    }
}

/// Arguments are parsed from JSON into concrete, owned values.
fn check_arg_type(cx: &Ctxt, ident: &syn::Ident, ty: &Type) {
    if let Type::ImplTrait(_) = ungroup(ty) {
        cx.error_spanned_by(
            ty,
            format_args!(
                "the argument `{ident}` needs a concrete type, since its schema is published: \
                 replace `impl ...` with a type that implements `Deserialize` and `JsonSchema`"
            ),
        );
    }
}

/// A destroy's identifying parameter: the one marked `#[id]`, else the one
/// named `id`, else `pk` (the destroy envelope's `id` comes from the
/// call's arguments).
fn destroy_id<'a>(
    cx: &Ctxt,
    tool: &'a Tool,
    kind_span: proc_macro2::Span,
) -> Option<DestroyId<'a>> {
    let args = || tool.params.iter().filter(|p| matches!(p.role, Role::Arg));
    let mut marked = args().filter(|p| p.attrs.id.is_some());
    let param = match (marked.next(), marked.next()) {
        (Some(_), Some(second)) => {
            cx.push(syn::Error::new_spanned(
                &second.attrs.id,
                "a destroy has one identifying parameter: remove one `#[id]`",
            ));
            return None;
        }
        (Some(param), None) => param,
        (None, _) => {
            let named =
                |name: &str| args().find(|p| p.ident.as_ref().is_some_and(|i| i.unraw() == name));
            match named("id").or_else(|| named("pk")) {
                Some(param) => param,
                None => {
                    cx.push(syn::Error::new(
                        kind_span,
                        "destroy needs the id of what it deletes: add an `id` parameter or \
                         mark one `#[id]`",
                    ));
                    return None;
                }
            }
        }
    };
    Some(DestroyId::Argument(param, param.key()?))
}
