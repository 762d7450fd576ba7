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
mod light_key;
mod suggest;
mod symbol;
mod tools;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

use crate::attr::Attr;

/// Registers a plain (read) tool: `#[mcp_tool(name = "...", resource = "...",
/// action = "...")]`, every argument optional. `action = "retrieve"` makes it
/// the target of a write's `retrieve = path`.
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(Attr::Tool, args.into(), item.into()).into()
}

/// Registers a write tool that answers a lean envelope:
/// `#[mcp_light(<kind>, name = "...", resource = "...", action = "...",
/// retrieve = path, status = 201)]`, where `<kind>` is one of `create`,
/// `update`, `partial_update`, `destroy`, `bulk_create`, `bulk_update`.
#[proc_macro_attribute]
pub fn mcp_light(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(Attr::Light, args.into(), item.into()).into()
}

/// Registers a heavy read tool that answers a probe and a continuation token:
/// `#[mcp_heavy(name = "...", resource = "...", action = "...")]`. Together
/// with `#[mcp_light]`, in either order, the tool is heavy.
#[proc_macro_attribute]
pub fn mcp_heavy(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(Attr::Heavy, args.into(), item.into()).into()
}

/// The definitions of the named tool functions, for a registry that serves
/// exactly those: `tools![device_get, sites::site_list]`.
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    tools::expand(input.into()).into()
}

/// Derives `LightKey` for a struct with named fields:
/// `#[light_key(field, ..., id = field)]` lists the fields that identify an
/// object in an envelope after `id`/`pk`, `url` and `name`/`display`.
#[proc_macro_derive(LightKey, attributes(light_key))]
pub fn derive_light_key(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    light_key::derive(&input).into()
}
