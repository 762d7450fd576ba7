//! The name of a tool's handle: the hidden static that holds the tool's
//! definition, emitted beside the function. `tools![...]` and a write's
//! `retrieve = path` name the function; they reach its handle through this
//! name alone.
//!
//! The handle lives in the value namespace, where the function already
//! holds the function's own name, under a prefix no one writes: a module,
//! a type or another item named like the function stays the user's.

use syn::ext::IdentExt;
use syn::{Ident, Path};

/// What every handle's name starts with.
const PREFIX: &str = "__mcp_light_tool_";

/// The handle of the function named `function` (a raw identifier loses its
/// `r#`), spanned like it, so that a name that resolves to no tool is
/// reported where the user wrote it.
pub fn ident(function: &Ident) -> Ident {
    Ident::new(&format!("{PREFIX}{}", function.unraw()), function.span())
}

/// The path of the handle of the function at `function`: the same path,
/// its last segment renamed.
pub fn path(function: &Path) -> Path {
    let mut path = function.clone();
    if let Some(last) = path.segments.last_mut() {
        last.ident = ident(&last.ident);
    }
    path
}

#[cfg(test)]
mod tests {
    use quote::{ToTokens, format_ident};

    use super::*;

    #[test]
    fn a_handle_is_the_function_name_behind_a_prefix() {
        assert_eq!(
            ident(&format_ident!("devices")).to_string(),
            "__mcp_light_tool_devices"
        );
        assert_eq!(
            ident(&format_ident!("r#type")).to_string(),
            "__mcp_light_tool_type"
        );
    }

    #[test]
    fn a_path_keeps_its_modules() {
        let path: Path = syn::parse_quote!(crate::tools::device_get);
        assert_eq!(
            super::path(&path).to_token_stream().to_string(),
            "crate :: tools :: __mcp_light_tool_device_get"
        );
    }
}
