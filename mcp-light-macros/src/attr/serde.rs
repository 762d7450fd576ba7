//! The few serde arguments the macros honor, read leniently: serde_derive
//! reports malformed serde attributes itself.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, LitStr, Path, Token};

use super::skip_value;
use crate::symbol::*;

/// The serde arguments of one field that decide how it serializes. Read
/// leniently: serde_derive reports malformed serde attributes itself.
#[derive(Default)]
pub struct SerdeField {
    /// `rename = "x"` or `rename(serialize = "x")`.
    pub rename_ser: Option<String>,
    /// `rename = "x"` or `rename(deserialize = "x")`.
    pub rename_de: Option<String>,
    /// `skip` or `skip_serializing`, with the attribute's span.
    pub skip_ser: Option<Span>,
    /// `skip_serializing_if = "path"`.
    pub skip_ser_if: Option<Path>,
    /// `with = "..."` or `serialize_with = "..."`, with the argument's span.
    pub ser_with: Option<Span>,
    /// `flatten`, with its span.
    pub flatten: Option<Span>,
}

impl SerdeField {
    pub fn parse(attrs: &[Attribute]) -> SerdeField {
        let mut out = SerdeField::default();
        for attr in attrs.iter().filter(|attr| attr.path() == SERDE) {
            let _ = attr.parse_nested_meta(|meta| {
                let path = &meta.path;
                if path == RENAME {
                    if meta.input.peek(Token![=]) {
                        let name = meta.value()?.parse::<LitStr>()?.value();
                        out.rename_ser = Some(name.clone());
                        out.rename_de = Some(name);
                    } else {
                        let (ser, de) = ser_de(&meta)?;
                        out.rename_ser = ser.or(out.rename_ser.take());
                        out.rename_de = de.or(out.rename_de.take());
                    }
                } else if path == SKIP || path == SKIP_SERIALIZING {
                    out.skip_ser = Some(path.span());
                } else if path == SKIP_SERIALIZING_IF {
                    out.skip_ser_if = Some(meta.value()?.parse::<LitStr>()?.parse()?);
                } else if path == WITH || path == SERIALIZE_WITH {
                    out.ser_with = Some(path.span());
                    skip_value(&meta)?;
                } else if path == FLATTEN {
                    out.flatten = Some(path.span());
                } else {
                    skip_value(&meta)?;
                }
                Ok(())
            });
        }
        out
    }
}

/// The serde arguments of a struct that decide its fields' names.
#[derive(Default)]
pub struct SerdeContainer {
    /// `rename_all = "..."` or `rename_all(serialize = "...")`.
    pub rename_all: Option<String>,
}

impl SerdeContainer {
    pub fn parse(attrs: &[Attribute]) -> SerdeContainer {
        let mut out = SerdeContainer::default();
        for attr in attrs.iter().filter(|attr| attr.path() == SERDE) {
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path == RENAME_ALL {
                    if meta.input.peek(Token![=]) {
                        out.rename_all = Some(meta.value()?.parse::<LitStr>()?.value());
                    } else if let (Some(ser), _) = ser_de(&meta)? {
                        out.rename_all = Some(ser);
                    }
                } else {
                    skip_value(&meta)?;
                }
                Ok(())
            });
        }
        out
    }
}

/// `(serialize = "a", deserialize = "b")`.
fn ser_de(meta: &ParseNestedMeta) -> syn::Result<(Option<String>, Option<String>)> {
    let (mut ser, mut de) = (None, None);
    meta.parse_nested_meta(|inner| {
        let value = inner.value()?.parse::<LitStr>()?.value();
        if inner.path == SERIALIZE {
            ser = Some(value);
        } else {
            de = Some(value);
        }
        Ok(())
    })?;
    Ok((ser, de))
}
