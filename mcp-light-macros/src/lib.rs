//! Procedural macros of mcp-light. Use them through the `mcp-light` crate,
//! which re-exports them with full documentation and examples.
//!
//! Each macro runs in stages, one per module: `ast` (the function or struct
//! as the crate's own model), `attr` (attribute arguments as plain data),
//! `valid` (every mistake, with its span and a fix), `expand` (code from the
//! checked model only). `light_key` holds the same stages for the derive.

mod ast;
mod attr;
mod ctxt;
mod expand;
mod handle;
mod impl_block;
mod light_key;
mod suggest;
mod symbol;
mod tools;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

use crate::attr::Attr;

// Each macro's documentation is on its re-export in mcp-light, with
// examples and links to the runtime's items. rustdoc appends an item's own
// docs to its re-export's, so these are only for this crate's own pages
// (`cfg(doc)`), and mcp-light's pages say everything once.

#[cfg_attr(
    doc,
    doc = "Registers a plain tool. Documented, with examples, as `mcp_light::mcp_tool`."
)]
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(Attr::Tool, args.into(), item.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Makes a write tool answer a lean envelope. Documented, with examples, as \
           `mcp_light::mcp_light`."
)]
#[proc_macro_attribute]
pub fn mcp_light(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(Attr::Light, args.into(), item.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Makes a read tool answer a probe and a continuation token. Documented, with \
           examples, as `mcp_light::mcp_heavy`."
)]
#[proc_macro_attribute]
pub fn mcp_heavy(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(Attr::Heavy, args.into(), item.into()).into()
}

/// The field names mcp-light adds to published input schemas, as these
/// macros refuse them for a tool's parameters: `(verify, [the negotiation
/// fields])`. Not for users; the runtime's tests compare it with the fields
/// the runtime adds, so that neither list can be renamed alone.
#[doc(hidden)]
#[proc_macro]
pub fn __reserved_fields(input: TokenStream) -> TokenStream {
    expand::reserved_fields(input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Makes the tool methods of an `impl` block tools. Documented, with examples, as \
           `mcp_light::mcp_tools`."
)]
#[proc_macro_attribute]
pub fn mcp_tools(args: TokenStream, item: TokenStream) -> TokenStream {
    impl_block::expand(args.into(), item.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Names the tools a server serves. Documented, with examples, as \
           `mcp_light::tools`."
)]
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    tools::expand(input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Derives `LightKey`. Documented, with examples, as `mcp_light::LightKey`."
)]
#[proc_macro_derive(LightKey, attributes(light_key))]
pub fn derive_light_key(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    light_key::derive(&input).into()
}
