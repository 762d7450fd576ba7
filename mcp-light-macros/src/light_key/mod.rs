//! `#[derive(LightKey)]`, in the same stages as the tool attributes:
//! `ast` (the struct and its serialized field names), `attr` (the
//! `#[light_key(...)]` arguments), `valid` (which fields identify the
//! object), `expand` (the impl).

mod ast;
mod attr;
mod case;
mod expand;
mod valid;

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::ctxt::Ctxt;

pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let model = ast::Input::from_syn(&cx, input);
    let plan = valid::check(&cx, &model);
    let errors = cx.into_compile_errors();
    match plan {
        Some(plan) if errors.is_empty() => expand::light_key(&model, &plan),
        _ => {
            // An impl that does nothing, so that uses of the type as a
            // `LightKey` do not add errors to the real one.
            let fallback = expand::fallback(&model);
            quote::quote!(#errors #fallback)
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_crate_path_reaches_every_runtime_path() {
        let input = syn::parse_quote! {
            #[light_key(crate = facade::mcp, site)]
            struct Device<T> { id: T, site: String }
        };
        let out = super::derive(&input).to_string();
        assert!(!out.contains("compile_error"), "{out}");
        assert!(!out.contains("mcp_light"), "{out}");
        assert!(out.contains("facade :: mcp :: LightKey"), "{out}");
    }
}
