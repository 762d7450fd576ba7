//! Decides which fields identify the object, recording every mistake
//! with the span of the name that causes it.

use syn::Ident;
use syn::ext::IdentExt;

use super::ast::{Field, Input};
use crate::ctxt::Ctxt;
use crate::suggest;

/// The identifying fields, in envelope order.
pub struct Plan<'m, 'a> {
    /// `id`, else `pk`, else the field named by `id = ...`.
    pub id: Option<&'m Field<'a>>,
    /// `url`, then `name` or `display`, then the listed fields.
    pub fields: Vec<&'m Field<'a>>,
}

pub fn check<'m, 'a>(cx: &Ctxt, input: &'m Input<'a>) -> Option<Plan<'m, 'a>> {
    let fields = input.fields.as_ref()?;
    let by_key = |key: &str| fields.iter().find(|f| f.is_serialized() && f.name == key);

    let id = match &input.args.id {
        Some(written) => usable(cx, fields, written, "choose another field with `id = ...`"),
        None => match (by_key("id"), by_key("pk")) {
            (Some(_), Some(pk)) => {
                cx.error_spanned_by(
                    pk.ident,
                    format_args!(
                        "two id fields: `id` and `pk` both serialize, and an envelope has one \
                         identifier; choose one with `#[light_key(id = pk)]` or \
                         `#[light_key(id = id)]` on `{}`",
                        input.ident
                    ),
                );
                None
            }
            (id, pk) => id.or(pk),
        },
    };

    let mut identifying: Vec<&Field> = Vec::new();
    identifying.extend(by_key("url"));
    identifying.extend(by_key("name").or_else(|| by_key("display")));
    for written in &input.args.fields {
        identifying.extend(usable(cx, fields, written, "remove it from light_key"));
    }
    Some(Plan {
        id,
        fields: identifying,
    })
}

/// The field `written` names, if it can identify the object in an envelope.
fn usable<'m, 'a>(
    cx: &Ctxt,
    fields: &'m [Field<'a>],
    written: &Ident,
    fix: &str,
) -> Option<&'m Field<'a>> {
    let Some(field) = fields.iter().find(|f| f.is_named(written)) else {
        let written_text = written.unraw().to_string();
        let candidates = fields
            .iter()
            .flat_map(|f| [f.ident.to_string(), f.name.clone()])
            .collect::<Vec<_>>();
        let hint = match suggest::closest(&written_text, candidates.iter().map(String::as_str)) {
            Some(close) => format!("did you mean `{close}`?"),
            None => format!("{fix}, or add the field"),
        };
        cx.error_spanned_by(
            written,
            format_args!("the struct has no field `{written_text}`: {hint}"),
        );
        return None;
    };
    let name = field.ident;
    if field.serde.skip_ser.is_some() {
        cx.error_spanned_by(
            written,
            format_args!(
                "`{name}` is never serialized (`#[serde(skip)]`), so it cannot identify the \
                 object in an envelope: {fix}"
            ),
        );
        None
    } else if field.serde.flatten.is_some() {
        cx.error_spanned_by(
            written,
            format_args!(
                "`{name}` is `#[serde(flatten)]`: its fields land in the parent object and it \
                 has no key of its own: {fix}"
            ),
        );
        None
    } else if field.serde.ser_with.is_some() {
        cx.error_spanned_by(
            written,
            format_args!(
                "LightKey serializes the field by its own type, but `{name}` is serialized \
                 `with` another function, so the envelope and the full result would disagree: \
                 {fix}, or drop the `with`"
            ),
        );
        None
    } else {
        Some(field)
    }
}
