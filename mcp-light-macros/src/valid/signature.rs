//! Checks of the function's signature (receiver, generics, qualifiers) and
//! of each parameter by its role: arguments, rmcp's `Parameters<T>`, what
//! is taken from the call, and a destroy's identifying parameter.

use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{ReceiverKind, Safety, Type, TypeReference};

use super::{DestroyId, Kind};
use crate::ast::{Param, Role, Tool, ungroup};
use crate::attr::WriteKind;
use crate::ctxt::Ctxt;
use crate::symbol::{NEGOTIATION_FIELDS, VERIFY};

pub(super) fn check_signature(cx: &Ctxt, tool: &Tool) {
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

/// Checks each parameter for its role; answers rmcp's `Parameters<T>`
/// when the tool takes its arguments whole.
pub(super) fn check_params<'a>(cx: &Ctxt, tool: &'a Tool, kind: Kind) -> Option<&'a Param> {
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
            Kind::Write {
                kind: WriteKind::BulkCreate | WriteKind::BulkUpdate,
                ..
            } if NEGOTIATION_FIELDS.contains(&key.as_str()) => cx.error_spanned_by(
                ident,
                format_args!(
                    "`{key}` is one of the fields mcp-light adds to a bulk write's schema ({}), \
                     through which the caller pages what the write kept, so a bulk write takes \
                     no argument of that name: keep this tool a `#[mcp_tool]`, which publishes \
                     its arguments as they are",
                    NEGOTIATION_FIELDS.join(", ")
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
pub(super) fn destroy_id<'a>(
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
