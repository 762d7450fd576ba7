//! The `LightKey` impl, from the checked plan only.

use proc_macro2::TokenStream;
use quote::quote;

use super::ast::{Field, Input};
use super::valid::Plan;
use crate::attr::krate;

pub fn light_key(input: &Input, plan: &Plan) -> TokenStream {
    let ident = input.ident;
    let krate = krate(input.args.krate.as_ref());
    let mut generics = input.generics.clone();
    if !generics.params.is_empty() {
        // Each field the envelope reads must serialize, whatever the
        // parameters are.
        let where_clause = generics.make_where_clause();
        for field in plan.id.iter().chain(&plan.fields) {
            let ty = field.ty;
            where_clause
                .predicates
                .push(syn::parse_quote!(#ty: #krate::__private::serde::Serialize));
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    let id_call = plan.id.map(|field| {
        let (name, member) = (&field.name, field.ident);
        guarded(field, quote!(__out.id(#name, &self.#member);))
    });
    let field_calls = plan.fields.iter().map(|field| {
        let (name, member) = (&field.name, field.ident);
        guarded(field, quote!(__out.field(#name, &self.#member);))
    });
    let light_id = match plan.id {
        Some(field) => {
            let member = field.ident;
            let skipped = field.serde.skip_ser_if.as_ref().map(|skip_if| {
                quote! {
                    if #skip_if(&self.#member) {
                        return ::core::option::Option::None;
                    }
                }
            });
            quote! {
                #skipped
                let __id = #krate::__private::id_value(&self.#member);
                if __id.is_null() {
                    ::core::option::Option::None
                } else {
                    ::core::option::Option::Some(__id)
                }
            }
        }
        None => quote!(::core::option::Option::None),
    };

    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::LightKey for #ident #ty_generics #where_clause {
            fn light_key(&self, __out: &mut #krate::KeyFields) {
                #id_call
                #(#field_calls)*
            }

            fn light_id(
                &self,
            ) -> ::core::option::Option<#krate::__private::serde_json::Value> {
                #light_id
            }
        }
    }
}

/// A field with `skip_serializing_if` is left out when serde leaves it out.
fn guarded(field: &Field, call: TokenStream) -> TokenStream {
    match &field.serde.skip_ser_if {
        Some(skip_if) => {
            let member = field.ident;
            quote! {
                if !#skip_if(&self.#member) {
                    #call
                }
            }
        }
        None => call,
    }
}

/// An impl that identifies nothing, emitted beside the errors of an invalid
/// input.
pub fn fallback(input: &Input) -> TokenStream {
    let ident = input.ident;
    let krate = krate(input.args.krate.as_ref());
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        impl #impl_generics #krate::LightKey for #ident #ty_generics #where_clause {
            fn light_key(&self, _: &mut #krate::KeyFields) {}

            fn light_id(
                &self,
            ) -> ::core::option::Option<#krate::__private::serde_json::Value> {
                ::core::option::Option::None
            }
        }
    }
}
