//! One tool attribute's arguments ([`ToolArgs`]): parsing `#[attr(...)]`,
//! dispatching each argument to its value parser, and the error for an
//! argument the attribute does not take.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Attribute, LitStr, Meta, Path, Token};

use super::value::{
    crate_arg, inline_budget_arg, path_arg, path_to_string, scopes_arg, skip_value, status_arg,
    string_arg, task_arg, view_arg,
};
use super::{Annotations, Attr, TaskArg, WriteKind};
use crate::ctxt::Ctxt;
use crate::suggest;
use crate::symbol::*;

/// One tool attribute's arguments, as written.
pub struct ToolArgs {
    pub attr: Attr,
    /// The attribute itself, for errors about it as a whole (empty for the
    /// attribute being expanded, whose errors go to the call site).
    pub tokens: TokenStream,
    pub kind: Option<(WriteKind, Span)>,
    pub name: Option<LitStr>,
    /// `description = "..."`, which the doc comment is otherwise.
    pub description: Option<LitStr>,
    pub resource: Option<LitStr>,
    pub action: Option<LitStr>,
    pub retrieve: Option<Path>,
    pub status: Option<(u16, Span)>,
    /// `crate = path`: where mcp-light is reachable, for crates that
    /// re-export it.
    pub krate: Option<Path>,
    /// `inline`: a synchronous function runs on the async worker that
    /// calls it, not on the blocking pool. The word's span.
    pub inline: Option<Span>,
    /// `inline = N` (`#[mcp_heavy]` only): the heavy read's inline budget
    /// in bytes, and the argument's span.
    pub inline_budget: Option<(usize, Span)>,
    /// `task` or `task = "optional" | "required"`: whether a call may, or
    /// must, become a task. The argument's span.
    pub task: Option<(TaskArg, Span)>,
    /// `schema = "as_written"`: the input schema is published as schemars
    /// writes it, not compacted. The argument's span.
    pub schema_as_written: Option<Span>,
    /// `scopes = ["...", ...]`: the OAuth scopes a call of the tool needs,
    /// each checked, and the argument's span.
    pub scopes: Option<(Vec<LitStr>, Span)>,
    /// `view = false`: the tool names no viewer for a client that shows
    /// views. The argument's span.
    pub no_view: Option<Span>,
    /// `annotations(...)`: the MCP annotations the author states, which
    /// win over what the macros derive.
    pub annotations: Option<Annotations>,
}

impl ToolArgs {
    /// Parses the arguments of `#[attr(...)]`, recording every mistake in
    /// `cx` and keeping what is valid.
    pub fn parse(cx: &Ctxt, attr: Attr, spanned: TokenStream, tokens: TokenStream) -> ToolArgs {
        let mut args = ToolArgs {
            attr,
            tokens: spanned,
            kind: None,
            name: None,
            description: None,
            resource: None,
            action: None,
            retrieve: None,
            status: None,
            krate: None,
            inline: None,
            inline_budget: None,
            task: None,
            schema_as_written: None,
            scopes: None,
            no_view: None,
            annotations: None,
        };
        let parser = syn::meta::parser(|meta| args.parse_one(cx, meta));
        if let Err(error) = parser.parse2(tokens) {
            cx.push(error);
        }
        args
    }

    /// Parses the arguments of a tool attribute found on the function.
    pub fn parse_attribute(cx: &Ctxt, attr: Attr, attribute: &Attribute) -> ToolArgs {
        let spanned = attribute.to_token_stream();
        match &attribute.meta {
            Meta::Path(_) => ToolArgs::parse(cx, attr, spanned, TokenStream::new()),
            Meta::List(list) => ToolArgs::parse(cx, attr, spanned, list.tokens.clone()),
            Meta::NameValue(nv) => {
                cx.error_spanned_by(
                    &nv.value,
                    format_args!("write the arguments in parentheses: `#[{attr}(...)]`"),
                );
                ToolArgs::parse(cx, attr, spanned, TokenStream::new())
            }
        }
    }

    fn parse_one(&mut self, cx: &Ctxt, meta: ParseNestedMeta) -> syn::Result<()> {
        let path = &meta.path;
        let has_value = meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren);
        if self.attr == Attr::Light
            && !has_value
            && let Some(kind) = path
                .get_ident()
                .and_then(|i| WriteKind::from_name(&i.to_string()))
        {
            if let Some((first, _)) = self.kind {
                cx.error_spanned_by(
                    path,
                    format_args!(
                        "a tool has one write kind, and this one already says `{}`: remove `{}` \
                         or `{}`",
                        first.as_str(),
                        kind.as_str(),
                        first.as_str()
                    ),
                );
            } else {
                self.kind = Some((kind, path.span()));
            }
            return Ok(());
        }

        if path == NAME {
            let value = string_arg(cx, self.attr, &meta)?;
            set_once(cx, &mut self.name, value, path);
        } else if path == DESCRIPTION {
            let value = string_arg(cx, self.attr, &meta)?;
            set_once(cx, &mut self.description, value, path);
        } else if path == RESOURCE {
            let value = string_arg(cx, self.attr, &meta)?;
            set_once(cx, &mut self.resource, value, path);
        } else if path == ACTION {
            let value = string_arg(cx, self.attr, &meta)?;
            set_once(cx, &mut self.action, value, path);
        } else if path == RETRIEVE && self.attr == Attr::Light {
            let value = path_arg(cx, &meta)?;
            set_once(cx, &mut self.retrieve, value, path);
        } else if path == STATUS && self.attr == Attr::Light {
            let value = status_arg(cx, &meta)?;
            set_once(cx, &mut self.status, value, path);
        } else if path == CRATE {
            let value = crate_arg(cx, &meta)?;
            set_once(cx, &mut self.krate, value, path);
        } else if path == INLINE {
            if meta.input.peek(Token![=]) {
                let value = inline_budget_arg(cx, self.attr, &meta)?;
                set_once(cx, &mut self.inline_budget, value, path);
            } else if has_value {
                cx.error_spanned_by(
                    path,
                    "`inline` takes no list: write `inline`, or `inline = 4096` for a \
                     `#[mcp_heavy]` read's inline budget",
                );
                skip_value(&meta)?;
            } else {
                set_once(cx, &mut self.inline, Some(path.span()), path);
            }
        } else if path == SCHEMA {
            let value = string_arg(cx, self.attr, &meta)?;
            let value = value.and_then(|lit| {
                if lit.value() == "as_written" {
                    Some(lit.span())
                } else {
                    cx.error_spanned_by(
                        &lit,
                        "`schema` takes \"as_written\": write `schema = \"as_written\"` to \
                         publish the input schema as schemars writes it, or leave `schema` out \
                         for the compact one",
                    );
                    None
                }
            });
            set_once(cx, &mut self.schema_as_written, value, path);
        } else if path == TASK {
            let value = task_arg(cx, &meta)?;
            set_once(cx, &mut self.task, value, path);
        } else if path == VIEW {
            let value = view_arg(cx, self.attr, &meta)?;
            set_once(cx, &mut self.no_view, value, path);
        } else if path == ANNOTATIONS {
            let value = Annotations::parse(cx, &meta)?;
            set_once(cx, &mut self.annotations, Some(value), path);
        } else if path == SCOPES {
            let value = scopes_arg(cx, &meta)?;
            set_once(cx, &mut self.scopes, value, path);
        } else {
            cx.error_spanned_by(path, self.unknown_argument(path));
            skip_value(&meta)?;
        }
        Ok(())
    }

    fn unknown_argument(&self, path: &Path) -> String {
        let written = path_to_string(path);
        let mut candidates: Vec<&str> = self.attr.arguments().iter().map(|s| s.0).collect();
        if self.attr == Attr::Light {
            candidates.extend(WriteKind::ALL.iter().map(|kind| kind.as_str()));
        }
        let hint = match suggest::closest(&written, candidates) {
            Some(close) => format!("did you mean `{close}`? "),
            None => String::new(),
        };
        let elsewhere = match written.as_str() {
            "retrieve" | "status" => " (`retrieve` and `status` belong to `#[mcp_light]` writes)",
            w if WriteKind::from_name(w).is_some() => " (write kinds belong to `#[mcp_light]`)",
            _ => "",
        };
        format!(
            "unknown argument `{written}`{elsewhere}: {hint}{}",
            self.attr.accepted()
        )
    }
}

fn set_once<T>(cx: &Ctxt, slot: &mut Option<T>, value: Option<T>, path: &Path) {
    let Some(value) = value else { return };
    if slot.is_some() {
        cx.error_spanned_by(
            path,
            format_args!(
                "duplicate argument `{}`: give it once",
                path_to_string(path)
            ),
        );
    } else {
        *slot = Some(value);
    }
}
