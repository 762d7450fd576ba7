//! `tools![a, module::b]`: the definitions of the named tool functions, for
//! a registry that serves exactly those.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Path, PathArguments, Token};

use crate::ctxt::Ctxt;
use crate::handle;

/// Parses the list, checks each path, and expands to an array of the
/// tools' handles, `[&'static ToolDef; N]`. A path that names no tool
/// fails to resolve at the name the user wrote.
pub fn expand(input: TokenStream) -> TokenStream {
    let paths = match Punctuated::<Path, Token![,]>::parse_terminated.parse2(input) {
        Ok(paths) => paths,
        Err(error) => {
            let message = format!(
                "{error}: `tools!` takes the paths of tool functions, separated by commas, \
                 such as `tools![device_get, sites::site_list]`"
            );
            return syn::Error::new(error.span(), message).into_compile_error();
        }
    };
    let cx = Ctxt::new();
    for path in &paths {
        for segment in &path.segments {
            if !matches!(segment.arguments, PathArguments::None) {
                cx.error_spanned_by(
                    &segment.arguments,
                    "a tool function is never generic: name it by its path alone, \
                     without `::<...>`",
                );
            }
        }
    }
    let errors = cx.into_compile_errors();
    if !errors.is_empty() {
        return errors;
    }
    let handles = paths.iter().map(handle::path);
    quote!([#(&#handles),*])
}
