//! Procedural macros of mcp-light. Use them through the `mcp-light` crate.
use proc_macro::TokenStream;
/// See `mcp_light::mcp_tool`.
#[proc_macro_attribute]
pub fn mcp_tool(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}
/// See `mcp_light::mcp_light`.
#[proc_macro_attribute]
pub fn mcp_light(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}
/// See `mcp_light::mcp_heavy`.
#[proc_macro_attribute]
pub fn mcp_heavy(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}
/// See `mcp_light::LightKey`.
#[proc_macro_derive(LightKey, attributes(light_key))]
pub fn derive_light_key(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
