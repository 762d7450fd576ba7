//! The values of the tool attributes' arguments: each parser reads what
//! follows one argument's name, records every mistake with a fix, and
//! answers the value when it is valid.

use proc_macro2::{Span, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitInt, LitStr, Path, Token};

use super::{Attr, TaskArg};
use crate::ctxt::Ctxt;

pub(super) fn path_to_string(path: &Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segments.join("::")
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
pub(super) fn inline_budget_arg(
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
pub(super) fn view_arg(cx: &Ctxt, attr: Attr, meta: &ParseNestedMeta) -> syn::Result<Option<Span>> {
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
pub(super) fn task_arg(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<(TaskArg, Span)>> {
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
pub(super) fn scopes_arg(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
) -> syn::Result<Option<(Vec<LitStr>, Span)>> {
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

pub(super) fn string_arg(
    cx: &Ctxt,
    attr: Attr,
    meta: &ParseNestedMeta,
) -> syn::Result<Option<LitStr>> {
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

pub(super) fn path_arg(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<Path>> {
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

pub(super) fn status_arg(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<(u16, Span)>> {
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
