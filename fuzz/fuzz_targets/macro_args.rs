//! Arbitrary token streams as the arguments of `#[mcp_tool]`,
//! `#[mcp_light]`, `#[mcp_heavy]`, `#[mcp_tools]`, `#[light_key(...)]`
//! and `tools!`, expanded as the macros expand them.
//!
//! A proc-macro crate exports nothing but its macros, and a macro runs
//! only inside a compiler. So this target compiles the macros' own
//! modules (`#[path]`, the files as they are, with `proc_macro2` standing
//! in for the compiler's token streams, as it does in the macros' unit
//! tests) and calls the entry points `lib.rs` calls: nothing in the macro
//! crate is changed or exposed for it.
//!
//! Holds: no input panics; every expansion is Rust syntax (items and
//! `compile_error!`s, or for `tools!` an expression); every error has a
//! message. Where an error points cannot be checked
//! here: `proc_macro2` keeps no span locations when built for fuzzing
//! (`cfg(fuzzing)`), so the compile-fail suite (`ui-tests/`) remains the
//! check of spans.

#![no_main]
#![allow(dead_code, unreachable_pub, clippy::all)]

#[path = "../../mcp-light-macros/src/ast.rs"]
mod ast;
#[path = "../../mcp-light-macros/src/attr/mod.rs"]
mod attr;
#[path = "../../mcp-light-macros/src/ctxt.rs"]
mod ctxt;
#[path = "../../mcp-light-macros/src/expand/mod.rs"]
mod expand;
#[path = "../../mcp-light-macros/src/handle.rs"]
mod handle;
#[path = "../../mcp-light-macros/src/impl_block.rs"]
mod impl_block;
#[path = "../../mcp-light-macros/src/light_key/mod.rs"]
mod light_key;
#[path = "../../mcp-light-macros/src/suggest.rs"]
mod suggest;
#[path = "../../mcp-light-macros/src/symbol.rs"]
mod symbol;
#[path = "../../mcp-light-macros/src/tools.rs"]
mod tools;
#[path = "../../mcp-light-macros/src/valid/mod.rs"]
mod valid;

use std::str::FromStr;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_light_fuzz::{Form, first_line, form};
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;

/// Functions and blocks the attributes go on, as users write them.
const ITEMS: &[&str] = &[
    "/// Doubles `n`.\nfn double(n: u32) -> u32 { n * 2 }",
    "/// Fetch one device by id.\npub async fn device_retrieve(ctx: &Context, id: Uuid) -> Result<Device, ToolError> { todo!() }",
    "/// Create devices.\npub async fn device_bulk_create(ctx: &Context, devices: Vec<NewDevice>) -> Result<Vec<Device>, ToolError> { todo!() }",
    "/// Lists rows.\nfn rows(n: usize, #[serde(default)] skip: Option<u32>) -> ItemStream<Value> { todo!() }",
    "/// Update.\nfn vehicle_update(id: u32, #[serde(flatten)] patch: VehiclePatch) -> u32 { id }",
    "fn undocumented() {}",
    "/// Not a function.\nstruct NotAFunction;",
];

const IMPLS: &[&str] = &[
    "impl Fleet {\n/// Counts.\n#[mcp_tool]\nfn count(&self, n: u32) -> u32 { n }\n/// Writes.\n#[mcp_light(create)]\nasync fn create(&self, v: NewVehicle) -> Result<Vehicle, ToolError> { todo!() }\n}",
    "impl Fleet { fn helper(&self) {} }",
];

#[derive(Arbitrary, Debug)]
enum Item {
    Known(u8),
    Text(String),
}

#[derive(Arbitrary, Debug)]
enum Macro {
    Tool(Item),
    Light(Item),
    Heavy(Item),
    /// `#[mcp_tools(args)]` on an impl block, or the args as a method's
    /// attribute inside it.
    Tools {
        inner: u8,
        impl_block: u8,
    },
    /// `tools![args]`.
    ToolList,
    /// `#[light_key(args)]` on a struct.
    LightKey,
}

#[derive(Arbitrary, Debug)]
struct Input {
    r#macro: Macro,
    args: String,
}

fn lex(text: &str) -> Option<TokenStream> {
    TokenStream::from_str(text).ok()
}

fn item(item: &Item) -> Option<TokenStream> {
    match item {
        Item::Known(i) => lex(ITEMS[usize::from(*i) % ITEMS.len()]),
        // The user's item is emitted as written beside any error: one that
        // is no Rust item would make any expansion no Rust.
        Item::Text(text) => Some(syn::parse_str::<syn::Item>(text).ok()?.to_token_stream()),
    }
}

/// Every `compile_error!` in `output` says something.
fn errors_say_why(output: &TokenStream, input: &str) {
    let tokens: Vec<TokenTree> = output.clone().into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) if ident == "compile_error" => {
                let message = match tokens.get(i + 2) {
                    Some(TokenTree::Group(group)) => group.stream().to_string(),
                    _ => String::new(),
                };
                // syn's own parse errors are short ("expected `,`") and
                // rely on their span, which fuzzing builds do not keep.
                assert!(
                    message.trim_matches(|c| c == '"' || c == ' ').len() > 2,
                    "an error that says nothing, for {input:?}: {message}"
                );
            }
            TokenTree::Group(group) => errors_say_why(&group.stream(), input),
            _ => {}
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let input = match form::<Input>(data) {
        None => return,
        // The macro on the first line (`mcp_tool`, `mcp_light`,
        // `mcp_heavy`, `mcp_tools`, `tools`, `light_key`), its arguments
        // after it.
        Some(Form::Raw(raw)) => {
            let (name, args) = first_line(raw);
            let on = Item::Known(0);
            let r#macro = match name.as_str() {
                "mcp_tool" => Macro::Tool(on),
                "mcp_light" => Macro::Light(on),
                "mcp_heavy" => Macro::Heavy(on),
                "mcp_tools" => Macro::Tools {
                    inner: 1,
                    impl_block: 0,
                },
                "tools" => Macro::ToolList,
                "light_key" => Macro::LightKey,
                _ => return,
            };
            let args = String::from_utf8_lossy(args).into_owned();
            Input { r#macro, args }
        }
        Some(Form::Built(input)) => input,
    };
    expand_and_check(&input);
});

fn expand_and_check(input: &Input) {
    let Some(args) = lex(&input.args) else {
        return;
    };
    let expanded = match &input.r#macro {
        Macro::Tool(on) => item(on).map(|i| expand::tool(attr::Attr::Tool, args, i)),
        Macro::Light(on) => item(on).map(|i| expand::tool(attr::Attr::Light, args, i)),
        Macro::Heavy(on) => item(on).map(|i| expand::tool(attr::Attr::Heavy, args, i)),
        Macro::Tools { inner, impl_block } => {
            if *inner % 2 == 0 {
                let block = IMPLS[usize::from(*impl_block) % IMPLS.len()];
                lex(block).map(|block| impl_block::expand(args, block))
            } else {
                let attr = ["mcp_tool", "mcp_light", "mcp_heavy"][usize::from(*impl_block) % 3];
                let block = format!(
                    "impl Fleet {{\n/// Counts.\n#[{attr}({})]\nfn count(&self, n: u32) -> u32 {{ n }}\n}}",
                    input.args
                );
                lex(&block).map(|block| impl_block::expand(TokenStream::new(), block))
            }
        }
        Macro::ToolList => Some(tools::expand(args)),
        Macro::LightKey => {
            let text = format!(
                "#[derive(LightKey)]\n#[light_key({})]\nstruct Device {{ id: u32, name: String, site_slug: String }}",
                input.args
            );
            lex(&text)
                .and_then(|tokens| syn::parse2::<syn::DeriveInput>(tokens).ok())
                .map(|derive| light_key::derive(&derive))
        }
    };
    let Some(expanded) = expanded else {
        return;
    };
    // `tools!` is an expression; the attributes and the derive give items.
    let parsed = match input.r#macro {
        Macro::ToolList => syn::parse2::<syn::Expr>(expanded.clone()).map(drop),
        _ => syn::parse2::<syn::File>(expanded.clone()).map(drop),
    };
    if let Err(error) = parsed {
        panic!(
            "the expansion of {:?} is not Rust syntax ({error}): {expanded}",
            input.args
        );
    }
    errors_say_why(&expanded, &input.args);
}
