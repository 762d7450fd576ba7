//! The arguments of `#[light_key(field, ..., id = field)]`.

use syn::{Attribute, Ident, LitStr, Meta, Path, Token};

use crate::attr::crate_arg;
use crate::ctxt::Ctxt;
use crate::symbol::{CRATE, ID, LIGHT_KEY};

#[derive(Default)]
pub struct LightKeyArgs {
    /// The listed fields, in order, as written (Rust or serialized names).
    pub fields: Vec<Ident>,
    /// `id = field`: the identifier, when it is not `id` or `pk`.
    pub id: Option<Ident>,
    /// `crate = path`: where mcp-light is reachable, for crates that
    /// re-export it.
    pub krate: Option<Path>,
}

const USAGE: &str = "`#[light_key(...)]` takes field names, `id = field` and `crate = path`, \
                     e.g. `#[light_key(site, role, id = serial)]`";

impl LightKeyArgs {
    pub fn parse(cx: &Ctxt, attrs: &[Attribute]) -> LightKeyArgs {
        let mut args = LightKeyArgs::default();
        for attr in attrs.iter().filter(|attr| attr.path() == LIGHT_KEY) {
            if let Meta::NameValue(nv) = &attr.meta {
                cx.error_spanned_by(&nv.value, USAGE);
                continue;
            }
            if let Meta::Path(path) = &attr.meta {
                cx.error_spanned_by(path, USAGE);
                continue;
            }
            let result = attr.parse_nested_meta(|meta| {
                let has_value = meta.input.peek(Token![=]);
                match meta.path.get_ident() {
                    Some(ident) if !has_value && !meta.input.peek(syn::token::Paren) => {
                        args.fields.push(ident.clone());
                    }
                    Some(_) if has_value && meta.path == ID => {
                        let value = meta.value()?;
                        let ident = if value.peek(LitStr) {
                            value.parse::<LitStr>()?.parse::<Ident>()?
                        } else {
                            value.parse::<Ident>()?
                        };
                        if args.id.is_some() {
                            cx.error_spanned_by(&ident, "`id = ...` is given twice: give it once");
                        }
                        args.id = Some(ident);
                    }
                    Some(_) if has_value && meta.path == CRATE => {
                        if let Some(path) = crate_arg(cx, &meta)? {
                            if args.krate.is_some() {
                                cx.error_spanned_by(
                                    &meta.path,
                                    "`crate = ...` is given twice: give it once",
                                );
                            }
                            args.krate = Some(path);
                        }
                    }
                    _ => {
                        let written = quote::ToTokens::to_token_stream(&meta.path).to_string();
                        cx.error_spanned_by(
                            &meta.path,
                            format_args!("unknown argument `{written}`: {USAGE}"),
                        );
                        if has_value {
                            meta.value()?.parse::<syn::Expr>()?;
                        } else if meta.input.peek(syn::token::Paren) {
                            meta.input.parse::<proc_macro2::TokenTree>()?;
                        }
                    }
                }
                Ok(())
            });
            if let Err(error) = result {
                cx.push(error);
            }
        }
        args
    }
}
