//! Checks of the tool attributes' arguments: which attributes combine,
//! values given on several attributes that must agree, and the arguments
//! checked against the function (`inline` on an `async fn`, a write kind
//! against a `Vec` result, `retrieve = Self::...` against the `impl`), and
//! the author's `annotations(...)` against what the attribute says.

use proc_macro2::Span;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{LitBool, LitStr, Path};

use super::Kind;
use crate::ast::Tool;
use crate::attr::{Annotations, Attr, TaskArg, ToolArgs, WriteKind};
use crate::ctxt::Ctxt;

/// `scopes` on one of the tool's attributes, at most: two lists would leave
/// a reader guessing whether a call needs both or either.
pub(super) fn check_scopes(cx: &Ctxt, tool: &Tool) -> Vec<String> {
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
pub(super) fn check_task(cx: &Ctxt, tool: &Tool) -> Option<TaskArg> {
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
pub(super) fn check_inline(cx: &Ctxt, tool: &Tool) -> bool {
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
pub(super) fn check_combination(cx: &Ctxt, attrs: &[ToolArgs]) {
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

/// The write kind of `#[mcp_light]`, required, and consistent with a `Vec`
/// result (ambiguity is a compile error, not a guess).
pub(super) fn write_kind(
    cx: &Ctxt,
    tool: &Tool,
    light: &ToolArgs,
) -> Option<(WriteKind, proc_macro2::Span)> {
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
pub(super) fn merged(
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
pub(super) fn merged_crate<'a>(cx: &Ctxt, attrs: &'a [ToolArgs]) -> Option<&'a Path> {
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
pub(super) fn check_tool_name(cx: &Ctxt, attrs: &[ToolArgs], name: &str) {
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

/// A write's `retrieve = path`. On a method, `Self::name` names another
/// tool method of the same `impl`, checked here, and resolves to the
/// impl's type; elsewhere `Self` names nothing.
pub(super) fn check_retrieve(cx: &Ctxt, tool: &Tool, path: &Path) -> Option<Path> {
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

/// `annotations(...)` on one of the tool's attributes, at most, checked
/// against what the attribute says the tool is: a write is not read-only,
/// a heavy read is, and a destroy destroys. What a `#[mcp_tool]` states
/// is its author's to say.
pub(super) fn check_annotations<'a>(
    cx: &Ctxt,
    tool: &'a Tool,
    kind: Kind,
) -> Option<&'a Annotations> {
    let mut given = tool
        .attrs
        .iter()
        .filter_map(|args| args.annotations.as_ref());
    let annotations = given.next()?;
    if let Some(again) = given.next() {
        cx.push(syn::Error::new(
            again.span.unwrap_or_else(Span::call_site),
            "`annotations` is given twice: state every annotation in one attribute's \
             `annotations(...)`",
        ));
    }
    let stated = |hint: &Option<LitBool>, value: bool| {
        hint.as_ref().filter(|hint| hint.value == value).cloned()
    };
    match kind {
        Kind::Write { kind, .. } => {
            if let Some(hint) = stated(&annotations.read_only, true) {
                cx.error_spanned_by(
                    hint,
                    format_args!(
                        "`#[mcp_light({})]` is a write, so it is not read-only: remove \
                         `read_only_hint = true`, or, if the tool only reads, make it a \
                         `#[mcp_tool]`",
                        kind.as_str()
                    ),
                );
            }
            if kind == WriteKind::Destroy
                && let Some(hint) = stated(&annotations.destructive, false)
            {
                cx.error_spanned_by(
                    hint,
                    "`#[mcp_light(destroy)]` deletes what it names, which is destructive: \
                     remove `destructive_hint = false`, or, if the tool changes without \
                     deleting, make it `#[mcp_light(update)]`",
                );
            }
        }
        Kind::Heavy => {
            if let Some(hint) = stated(&annotations.read_only, false) {
                cx.error_spanned_by(
                    hint,
                    "`#[mcp_heavy]` is a read: its result is kept and paged without running \
                     the tool again, so the tool must not change anything: remove \
                     `read_only_hint = false`, or, if the tool writes, make it \
                     `#[mcp_light(<kind>)]`",
                );
            }
        }
        Kind::Read => {}
    }
    Some(annotations)
}
