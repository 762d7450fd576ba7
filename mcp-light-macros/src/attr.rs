//! Attribute arguments, parsed into plain data: here the tool attributes'
//! `name = "..."`-style arguments; in [`param`] the attributes a tool
//! parameter may carry; in [`serde`] the few serde arguments the macros
//! honor.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, Lit, LitInt, LitStr, Meta, Path, Token};

use crate::ctxt::Ctxt;
use crate::suggest;
use crate::symbol::*;

mod param;
mod serde;

pub use param::ParamAttrs;
pub use serde::{SerdeContainer, SerdeField};

/// Which of the three tool attributes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Attr {
    Tool,
    Light,
    Heavy,
}

impl Attr {
    pub const ALL: [Attr; 3] = [Attr::Tool, Attr::Light, Attr::Heavy];

    pub fn symbol(self) -> Symbol {
        match self {
            Attr::Tool => MCP_TOOL,
            Attr::Light => MCP_LIGHT,
            Attr::Heavy => MCP_HEAVY,
        }
    }

    /// The tool attribute an attribute path names, by its last segment, so
    /// that `#[mcp_light::mcp_heavy]` counts as well as `#[mcp_heavy]`.
    pub fn from_path(path: &Path) -> Option<Attr> {
        let last = &path.segments.last()?.ident;
        Attr::ALL.into_iter().find(|attr| last == attr.symbol())
    }

    /// The named arguments the attribute takes.
    fn arguments(self) -> &'static [Symbol] {
        match self {
            Attr::Tool => &[
                NAME,
                DESCRIPTION,
                RESOURCE,
                ACTION,
                CRATE,
                INLINE,
                TASK,
                SCHEMA,
                SCOPES,
            ],
            Attr::Heavy => &[
                NAME,
                DESCRIPTION,
                RESOURCE,
                ACTION,
                CRATE,
                INLINE,
                TASK,
                SCHEMA,
                SCOPES,
                VIEW,
            ],
            Attr::Light => &[
                NAME,
                DESCRIPTION,
                RESOURCE,
                ACTION,
                RETRIEVE,
                STATUS,
                CRATE,
                INLINE,
                TASK,
                SCOPES,
                VIEW,
            ],
        }
    }

    /// What the attribute accepts, for error messages.
    fn accepted(self) -> String {
        let named = "`name = \"...\"`, `description = \"...\"`, `resource = \"...\"`, \
                     `action = \"...\"`";
        match self {
            Attr::Tool => format!(
                "`#[{self}]` accepts {named}, `crate = path`, `inline`, `task`, \
                 `schema = \"as_written\"`, `scopes = [\"...\"]`"
            ),
            Attr::Heavy => format!(
                "`#[{self}]` accepts {named}, `crate = path`, `inline`, `inline = 4096`, `task`, \
                 `schema = \"as_written\"`, `scopes = [\"...\"]`, `view = false`"
            ),
            Attr::Light => format!(
                "`#[mcp_light]` accepts a write kind ({}) and {named}, `retrieve = path`, \
                 `status = 201`, `crate = path`, `inline`, `task`, `schema = \"as_written\"`, \
                 `scopes = [\"...\"]`, `view = false`",
                WriteKind::list()
            ),
        }
    }
}

impl std::fmt::Display for Attr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.symbol().fmt(f)
    }
}

/// The write kinds of `#[mcp_light(<kind>)]`, mirroring
/// `mcp_light::catalog::WriteKind`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum WriteKind {
    Create,
    Update,
    PartialUpdate,
    Destroy,
    BulkCreate,
    BulkUpdate,
}

impl WriteKind {
    pub const ALL: [WriteKind; 6] = [
        WriteKind::Create,
        WriteKind::Update,
        WriteKind::PartialUpdate,
        WriteKind::Destroy,
        WriteKind::BulkCreate,
        WriteKind::BulkUpdate,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WriteKind::Create => "create",
            WriteKind::Update => "update",
            WriteKind::PartialUpdate => "partial_update",
            WriteKind::Destroy => "destroy",
            WriteKind::BulkCreate => "bulk_create",
            WriteKind::BulkUpdate => "bulk_update",
        }
    }

    /// The name of the `mcp_light::catalog::WriteKind` variant.
    pub fn variant(self) -> &'static str {
        match self {
            WriteKind::Create => "Create",
            WriteKind::Update => "Update",
            WriteKind::PartialUpdate => "PartialUpdate",
            WriteKind::Destroy => "Destroy",
            WriteKind::BulkCreate => "BulkCreate",
            WriteKind::BulkUpdate => "BulkUpdate",
        }
    }

    pub fn default_status(self) -> u16 {
        match self {
            WriteKind::Create | WriteKind::BulkCreate => 201,
            WriteKind::Update | WriteKind::PartialUpdate | WriteKind::BulkUpdate => 200,
            WriteKind::Destroy => 204,
        }
    }

    pub fn is_bulk(self) -> bool {
        matches!(self, WriteKind::BulkCreate | WriteKind::BulkUpdate)
    }

    fn from_name(name: &str) -> Option<WriteKind> {
        WriteKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }

    /// `create | update | ...`, for error messages.
    pub fn list() -> String {
        let names: Vec<_> = WriteKind::ALL.iter().map(|kind| kind.as_str()).collect();
        names.join(" | ")
    }
}

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
}

/// What `task` says.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TaskArg {
    Optional,
    Required,
}

impl TaskArg {
    /// The name of the `mcp_light::tasks::TaskSupport` variant.
    pub fn variant(self) -> &'static str {
        match self {
            TaskArg::Optional => "Optional",
            TaskArg::Required => "Required",
        }
    }
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

fn path_to_string(path: &Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segments.join("::")
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

/// The `= value` after an argument, or `None` (error recorded) when it is
/// missing.
fn value_expr(cx: &Ctxt, meta: &ParseNestedMeta, example: &str) -> syn::Result<Option<Expr>> {
    if !meta.input.peek(Token![=]) {
        cx.error_spanned_by(
            &meta.path,
            format_args!(
                "`{}` takes a value: write `{example}`",
                path_to_string(&meta.path)
            ),
        );
        skip_value(meta)?;
        return Ok(None);
    }
    Ok(Some(meta.value()?.parse()?))
}

/// `inline = N`, a `#[mcp_heavy]` read's inline budget in bytes: a whole
/// number, unsuffixed or `usize`. Elsewhere the value is refused, since a
/// bare `inline` (the worker flag) is what a plain read or a write takes.
fn inline_budget_arg(
    cx: &Ctxt,
    attr: Attr,
    meta: &ParseNestedMeta,
) -> syn::Result<Option<(usize, Span)>> {
    let value: Expr = meta.value()?.parse()?;
    if attr != Attr::Heavy {
        let answers = match attr {
            Attr::Light => "a `#[mcp_light]` write answers its envelope",
            _ => "a `#[mcp_tool]` read answers its result whole",
        };
        cx.error_spanned_by(
            &value,
            format_args!(
                "`inline = N` is the inline budget of a `#[mcp_heavy]` read, and {answers}: \
                 remove `= {}` (a bare `inline` runs a synchronous function on the async \
                 worker)",
                value.to_token_stream()
            ),
        );
        return Ok(None);
    }
    let budget = match &value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) if matches!(int.suffix(), "" | "usize") => int.base10_parse::<usize>().ok(),
        _ => None,
    };
    if budget.is_none() {
        cx.error_spanned_by(
            &value,
            "`inline = N` takes the inline budget in bytes, a whole number: write \
             `inline = 4096`, or `inline = 0` to answer a probe for every result larger than \
             its preview",
        );
    }
    Ok(budget.map(|budget| (budget, meta.path.span())))
}

/// `view = false`, the one value `view` takes: a heavy read's or a
/// write's view is on unless turned off, and a plain read has none.
fn view_arg(cx: &Ctxt, attr: Attr, meta: &ParseNestedMeta) -> syn::Result<Option<Span>> {
    if attr == Attr::Tool {
        cx.error_spanned_by(
            &meta.path,
            "a `#[mcp_tool]` read answers in full and names no viewer: `view = false` turns off \
             the view of a `#[mcp_heavy]` or `#[mcp_light]` tool; remove `view`",
        );
        skip_value(meta)?;
        return Ok(None);
    }
    Ok(match value_expr(cx, meta, "view = false")? {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        })) if !b.value => Some(meta.path.span()),
        Some(other) => {
            cx.error_spanned_by(
                &other,
                "a view is on unless turned off, so `view` takes `false`: write `view = false`, \
                 or leave `view` out to keep the view",
            );
            None
        }
        None => None,
    })
}

/// `task` alone, or `task = "optional"` / `task = "required"`.
fn task_arg(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<(TaskArg, Span)>> {
    let span = meta.path.span();
    if !meta.input.peek(Token![=]) {
        if meta.input.peek(syn::token::Paren) {
            cx.error_spanned_by(
                &meta.path,
                "write `task`, or `task = \"required\"` for a tool that runs only as a task",
            );
            skip_value(meta)?;
            return Ok(None);
        }
        return Ok(Some((TaskArg::Optional, span)));
    }
    let value: Expr = meta.value()?.parse()?;
    Ok(match &value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) if s.value() == "optional" => Some((TaskArg::Optional, span)),
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) if s.value() == "required" => Some((TaskArg::Required, span)),
        other => {
            cx.error_spanned_by(
                other,
                "`task` is `\"optional\"` (a call may become a task) or `\"required\"` (it runs \
                 only as one): write `task` or `task = \"required\"`",
            );
            None
        }
    })
}

/// `scopes = ["inventory:read", ...]`: a list of OAuth scope names, each a
/// non-empty string of the characters RFC 6749 allows in a scope (no
/// spaces, quotes or backslashes), none given twice.
fn scopes_arg(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<(Vec<LitStr>, Span)>> {
    const EXAMPLE: &str = "scopes = [\"inventory:read\"]";
    let span = meta.path.span();
    let Some(value) = value_expr(cx, meta, EXAMPLE)? else {
        return Ok(None);
    };
    let Expr::Array(array) = &value else {
        let example = match &value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(one), ..
            }) => format!("scopes = [{}]", one.to_token_stream()),
            _ => EXAMPLE.to_owned(),
        };
        cx.error_spanned_by(
            &value,
            format_args!(
                "`scopes` takes a list of string literals, the OAuth scopes a call needs: \
                 write `{example}`"
            ),
        );
        return Ok(None);
    };
    if array.elems.is_empty() {
        cx.error_spanned_by(
            &value,
            format_args!(
                "`scopes = []` names no scope, so it requires nothing: name the scopes a call \
                 needs, such as `{EXAMPLE}`, or remove `scopes`"
            ),
        );
        return Ok(None);
    }
    let mut scopes: Vec<LitStr> = Vec::with_capacity(array.elems.len());
    let mut valid = true;
    for element in &array.elems {
        let Expr::Lit(ExprLit {
            lit: Lit::Str(scope),
            ..
        }) = element
        else {
            cx.error_spanned_by(
                element,
                format_args!("each scope is a string literal: write `{EXAMPLE}`"),
            );
            valid = false;
            continue;
        };
        let text = scope.value();
        // RFC 6749, section 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
        let scope_char = |c: char| c.is_ascii_graphic() && c != '"' && c != '\\';
        if text.is_empty() {
            cx.error_spanned_by(
                scope,
                "a scope cannot be empty: write its name, such as `\"inventory:read\"`, or \
                 remove it",
            );
            valid = false;
        } else if !text.chars().all(scope_char) {
            cx.error_spanned_by(
                scope,
                format_args!(
                    "`{text}` is not an OAuth scope: a scope is one word of visible ASCII \
                     characters without `\"` or `\\`; write each scope as its own string, \
                     such as `scopes = [\"inventory:read\", \"inventory:write\"]`"
                ),
            );
            valid = false;
        } else if scopes.iter().any(|seen| seen.value() == text) {
            cx.error_spanned_by(
                scope,
                format_args!("the scope `{text}` is named twice: name it once"),
            );
            valid = false;
        } else {
            scopes.push(scope.clone());
        }
    }
    Ok(valid.then_some((scopes, span)))
}

fn string_arg(cx: &Ctxt, attr: Attr, meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    let key = path_to_string(&meta.path);
    let example = format!("{key} = \"...\"");
    Ok(match value_expr(cx, meta, &example)? {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        })) => {
            if s.value().is_empty() {
                cx.error_spanned_by(&s, format_args!("`{key}` of `#[{attr}]` cannot be empty"));
                None
            } else {
                Some(s)
            }
        }
        Some(other) => {
            cx.error_spanned_by(
                &other,
                format_args!("`{key}` takes a string literal: write `{example}`"),
            );
            None
        }
        None => None,
    })
}

fn path_arg(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<Path>> {
    Ok(match value_expr(cx, meta, "retrieve = device_get")? {
        Some(Expr::Path(p)) if p.qself.is_none() => Some(p.path),
        Some(other) => {
            cx.error_spanned_by(
                &other,
                "`retrieve` takes the path of the retrieve tool's function, unquoted: \
                 write `retrieve = device_get`, or `retrieve = Self::device_get` for a method",
            );
            None
        }
        None => None,
    })
}

/// The path generated code reaches mcp-light by: `crate = path`, else
/// `::mcp_light`.
pub fn krate(written: Option<&Path>) -> Path {
    written
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(::mcp_light))
}

/// `crate = path`, the path under which mcp-light is reachable. Shared with
/// `#[light_key(crate = path)]`.
pub fn crate_arg(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<Path>> {
    let usage = "`crate` takes the path mcp-light is reachable under, unquoted: \
                 write `crate = my_api::mcp_light`";
    Ok(match value_expr(cx, meta, "crate = my_api::mcp_light")? {
        Some(Expr::Path(p))
            if p.qself.is_none()
                && p.path
                    .segments
                    .iter()
                    .all(|segment| segment.arguments.is_none()) =>
        {
            Some(p.path)
        }
        Some(other) => {
            cx.error_spanned_by(&other, usage);
            None
        }
        None => None,
    })
}

fn status_arg(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<(u16, Span)>> {
    let invalid = "`status` takes an HTTP status code between 100 and 599: write `status = 201`";
    Ok(match value_expr(cx, meta, "status = 201")? {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        })) => match status_code(&int) {
            Some(code) => Some((code, int.span())),
            None => {
                cx.error_spanned_by(&int, invalid);
                None
            }
        },
        Some(other) => {
            cx.error_spanned_by(&other, invalid);
            None
        }
        None => None,
    })
}

fn status_code(int: &LitInt) -> Option<u16> {
    let code = int.base10_parse::<u16>().ok()?;
    (100..=599).contains(&code).then_some(code)
}

/// Consumes whatever follows an argument's name (`= value` or `(...)`), so
/// parsing can go on after an error.
pub fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<TokenTree>()?;
    }
    Ok(())
}
