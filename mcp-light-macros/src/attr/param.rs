//! The attributes a tool parameter may carry: its doc comment and serde and
//! schemars attributes (copied onto its schema field), `#[id]`,
//! `#[header("Name")]`, and lints.

use syn::{Attribute, LitStr, Meta};

use super::SerdeField;
use crate::ctxt::Ctxt;
use crate::symbol::*;

/// What a tool parameter's attributes ask for.
#[derive(Default)]
pub struct ParamAttrs {
    /// `#[serde(...)]`, `#[schemars(...)]` and the doc comment (the
    /// argument's description), copied onto the field of the generated
    /// argument struct.
    pub forwarded: Vec<Attribute>,
    /// Lint attributes, left on the function's parameter.
    pub kept: Vec<Attribute>,
    /// `#[id]`: the identifying parameter of a destroy.
    pub id: Option<Attribute>,
    /// `#[header("Name")]`: the HTTP header (`Mcp-Param-Name`) a client
    /// mirrors the argument in; the attribute and the name.
    pub header: Option<(Attribute, LitStr)>,
    /// The name serde reads the argument under, if renamed.
    pub rename: Option<String>,
}

impl ParamAttrs {
    pub fn parse(cx: &Ctxt, attrs: Vec<Attribute>) -> ParamAttrs {
        let mut out = ParamAttrs::default();
        for attr in attrs {
            let path = attr.path();
            if path == ID {
                match &attr.meta {
                    Meta::Path(_) if out.id.is_none() => out.id = Some(attr),
                    Meta::Path(_) => cx.error_spanned_by(&attr, "duplicate `#[id]`: give it once"),
                    _ => cx.error_spanned_by(&attr, "`#[id]` takes no arguments: write `#[id]`"),
                }
            } else if path == HEADER {
                if out.header.is_some() {
                    cx.error_spanned_by(&attr, "duplicate `#[header]`: give it once");
                } else if let Some(name) = header_name(cx, &attr) {
                    out.header = Some((attr, name));
                }
            } else if path == SERDE {
                if let Some(rename) = SerdeField::parse(std::slice::from_ref(&attr)).rename_de {
                    out.rename = Some(rename);
                }
                out.forwarded.push(attr);
            } else if path == SCHEMARS || path == DOC {
                out.forwarded.push(attr);
            } else if LINTS.iter().any(|lint| path == *lint) {
                out.kept.push(attr);
            } else if path == CFG {
                cx.error_spanned_by(
                    &attr,
                    "a tool parameter is also a field of the tool's input schema, so it cannot be \
                     configured out: put the `#[cfg]` on the whole function",
                );
                // Kept on the emitted function, so the error stands alone.
                out.kept.push(attr);
            } else {
                cx.error_spanned_by(
                    &attr,
                    "a tool parameter accepts a doc comment (its description), `#[serde(...)]` and \
                     `#[schemars(...)]` (copied onto its schema field), `#[id]` (the identifier of \
                     a destroy) and `#[header(\"Name\")]` (mirrored in an HTTP header): remove \
                     this attribute",
                );
            }
        }
        out
    }
}

/// The name in `#[header("Name")]`: an HTTP token (RFC 9110), which the
/// client sends as the header `Mcp-Param-Name`.
fn header_name(cx: &Ctxt, attr: &Attribute) -> Option<LitStr> {
    const USAGE: &str = "write `#[header(\"Name\")]`, the name of the HTTP header \
                         (`Mcp-Param-Name`) a client mirrors this argument in";
    let name = match &attr.meta {
        Meta::List(_) => match attr.parse_args::<LitStr>() {
            Ok(name) => name,
            Err(_) => {
                cx.error_spanned_by(attr, USAGE);
                return None;
            }
        },
        _ => {
            cx.error_spanned_by(attr, USAGE);
            return None;
        }
    };
    let value = name.value();
    let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if value.is_empty() || !value.chars().all(tchar) {
        cx.error_spanned_by(
            &name,
            format_args!(
                "`{value}` is not an HTTP header name: use letters, digits and `-` \
                 (any RFC 9110 token character), such as `Region`"
            ),
        );
        return None;
    }
    Some(name)
}
