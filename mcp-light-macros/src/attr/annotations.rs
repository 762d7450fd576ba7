//! `annotations(...)`: the MCP tool annotations the author states, in
//! rmcp's spelling (`title`, `read_only_hint`, `destructive_hint`,
//! `idempotent_hint`, `open_world_hint`), each checked for its type.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitBool, LitStr};

use super::value::{path_to_string, skip_value};
use crate::ctxt::Ctxt;
use crate::suggest;

/// The hints `annotations(...)` takes, each a boolean.
const HINTS: [&str; 4] = [
    "read_only_hint",
    "destructive_hint",
    "idempotent_hint",
    "open_world_hint",
];

/// What the author states in `annotations(...)`; what it leaves out the
/// macros derive from the attribute.
#[derive(Default)]
pub struct Annotations {
    pub title: Option<LitStr>,
    pub read_only: Option<LitBool>,
    pub destructive: Option<LitBool>,
    pub idempotent: Option<LitBool>,
    pub open_world: Option<LitBool>,
    /// The span of `annotations` itself.
    pub span: Option<Span>,
}

impl Annotations {
    /// Parses `annotations(...)`, recording every mistake with its fix.
    pub(super) fn parse(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Annotations> {
        let mut annotations = Annotations {
            span: Some(meta.path.span()),
            ..Annotations::default()
        };
        if !meta.input.peek(syn::token::Paren) {
            cx.error_spanned_by(
                &meta.path,
                "`annotations` takes a list, as rmcp's `#[tool]` does: write \
                 `annotations(idempotent_hint = false)`",
            );
            skip_value(meta)?;
            return Ok(annotations);
        }
        meta.parse_nested_meta(|inner| {
            let key = path_to_string(&inner.path);
            let value: Option<Expr> = if inner.input.peek(syn::Token![=]) {
                Some(inner.value()?.parse()?)
            } else {
                skip_value(&inner)?;
                None
            };
            if key == "title" {
                match value {
                    Some(Expr::Lit(ExprLit {
                        lit: Lit::Str(title),
                        ..
                    })) => set(cx, &mut annotations.title, title, &inner),
                    _ => cx.error_spanned_by(
                        &inner.path,
                        "`title` takes a string literal: write `title = \"Create a task\"`",
                    ),
                }
                return Ok(());
            }
            let slot = match key.as_str() {
                "read_only_hint" => &mut annotations.read_only,
                "destructive_hint" => &mut annotations.destructive,
                "idempotent_hint" => &mut annotations.idempotent,
                "open_world_hint" => &mut annotations.open_world,
                _ => {
                    let close = HINTS
                        .iter()
                        .copied()
                        .find(|hint| hint.starts_with(&key))
                        .or_else(|| suggest::closest(&key, HINTS.iter().copied().chain(["title"])));
                    let hint = match close {
                        Some(close) => format!("did you mean `{close}`? "),
                        None => String::new(),
                    };
                    cx.error_spanned_by(
                        &inner.path,
                        format_args!(
                            "unknown annotation `{key}`: {hint}`annotations(...)` takes \
                             `title = \"...\"`, `read_only_hint`, `destructive_hint`, \
                             `idempotent_hint` and `open_world_hint`, each `= true` or `= false`"
                        ),
                    );
                    return Ok(());
                }
            };
            match value {
                Some(Expr::Lit(ExprLit {
                    lit: Lit::Bool(hint),
                    ..
                })) => set(cx, slot, hint, &inner),
                _ => cx.error_spanned_by(
                    &inner.path,
                    format_args!("`{key}` takes `true` or `false`: write `{key} = false`"),
                ),
            }
            Ok(())
        })?;
        Ok(annotations)
    }
}

fn set<T>(cx: &Ctxt, slot: &mut Option<T>, value: T, meta: &ParseNestedMeta) {
    if slot.is_some() {
        cx.error_spanned_by(
            &meta.path,
            format_args!(
                "duplicate annotation `{}`: state it once",
                path_to_string(&meta.path)
            ),
        );
    } else {
        *slot = Some(value);
    }
}
