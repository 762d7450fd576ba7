//! `#[mcp_tools]` on an `impl` block: its methods that carry `#[mcp_tool]`,
//! `#[mcp_light]` or `#[mcp_heavy]` become tools, as rmcp's
//! `#[tool_router]` makes them, and stay ordinary methods.
//!
//! The outer attribute expands first, so it sees the tool attributes on
//! the methods and takes them off: each method goes through the same
//! stages as a free function (model, checks, code), with the impl as its
//! [`Owner`]. What a free function keeps in a static beside it, a method
//! keeps in a hidden associated constant beside it, and a static after the
//! impl registers a copy.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::parse::Parser;
use syn::{ImplItem, ImplItemFn, ItemFn, ItemImpl, Path};

use crate::ast::{Owner, Tool, ToolMethod};
use crate::attr::{self, Attr, ToolArgs};
use crate::ctxt::Ctxt;
use crate::expand::{self, MethodTokens};
use crate::symbol::CRATE;
use crate::valid;

/// The whole pipeline of `#[mcp_tools(args)]` on `input`. On invalid input
/// the impl is still emitted, beside the errors, its methods as written
/// minus the tool attributes.
pub fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let cx = Ctxt::new();
    let krate = parse_args(&cx, args);
    let mut item = match syn::parse2::<ItemImpl>(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new_spanned(
                &input,
                "`#[mcp_tools]` goes on an `impl` block whose methods are tools, where rmcp has \
                 `#[tool_router]`: `#[mcp_tools] impl MyServer { ... }`",
            );
            // The arguments' errors too, or they would be lost.
            return input
                .into_iter()
                .chain(cx.into_compile_errors())
                .chain(error.into_compile_error())
                .collect();
        }
    };
    check_impl(&cx, &item);
    let tools = tool_methods(&item);
    let self_ty = (*item.self_ty).clone();
    let owner = || Owner {
        self_ty: self_ty.clone(),
        tools: tools.clone(),
        krate: krate.clone(),
    };
    let valid_impl = !cx.has_errors();
    let mut errors = cx.into_compile_errors();
    let mut after = TokenStream::new();
    let mut items = Vec::with_capacity(item.items.len());
    for impl_item in std::mem::take(&mut item.items) {
        let function = match &impl_item {
            ImplItem::Fn(method) if is_tool(method) => {
                // A method's tokens are a function's, unless it is a
                // specializing `default fn`, which no tool is.
                syn::parse2::<ItemFn>(method.to_token_stream())
            }
            _ => {
                items.push(impl_item);
                continue;
            }
        };
        let function = match function {
            Ok(function) => function,
            Err(error) => {
                errors.extend(error.into_compile_error());
                items.push(impl_item);
                continue;
            }
        };
        let cx = Ctxt::new();
        let tool = Tool::from_method(&cx, function, owner());
        let plan = valid::check(&cx, &tool);
        let tool_errors = cx.into_compile_errors();
        match plan.filter(|_| valid_impl && tool_errors.is_empty()) {
            Some(plan) => {
                let MethodTokens {
                    in_impl,
                    after_impl,
                } = expand::generate_method(&plan, &self_ty);
                items.push(ImplItem::Verbatim(in_impl));
                after.extend(after_impl);
            }
            None => {
                items.push(ImplItem::Verbatim(tool.item.to_token_stream()));
                errors.extend(tool_errors);
            }
        }
    }
    item.items = items;
    quote! {
        #item
        #after
        #errors
    }
}

/// `crate = path`, the one argument.
fn parse_args(cx: &Ctxt, args: TokenStream) -> Option<Path> {
    let mut krate = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path == CRATE {
            if let Some(path) = attr::crate_arg(cx, &meta)? {
                krate = Some(path);
            }
            Ok(())
        } else {
            cx.error_spanned_by(
                &meta.path,
                "`#[mcp_tools]` takes only `crate = path` (where mcp-light is reachable): each \
                 method says what kind of tool it is with `#[mcp_tool]`, `#[mcp_light]` or \
                 `#[mcp_heavy]`",
            );
            attr::skip_value(&meta)
        }
    });
    if let Err(error) = parser.parse2(args) {
        cx.push(error);
    }
    krate
}

/// An inherent impl of one concrete type: the type is the server's state,
/// given once with `with_state`.
fn check_impl(cx: &Ctxt, item: &ItemImpl) {
    if let Some((path, _)) = &item.trait_ {
        cx.error_spanned_by(
            path,
            "`#[mcp_tools]` goes on the type's own `impl` block (`impl MyServer { ... }`), not on \
             a trait's: move the tool methods into `impl MyServer`",
        );
    }
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &item.generics,
            "the type of a `#[mcp_tools]` impl is the server's state, given once with \
             `with_state`, so it is one concrete type: remove the impl's generic parameters",
        );
    }
}

/// The methods that carry a tool attribute, and whether each says it is a
/// retrieve tool (`action = "retrieve"`), read leniently: each method's
/// own checks report what is wrong with its attributes.
fn tool_methods(item: &ItemImpl) -> Vec<ToolMethod> {
    item.items
        .iter()
        .filter_map(|impl_item| match impl_item {
            ImplItem::Fn(method) if is_tool(method) => Some(ToolMethod {
                ident: method.sig.ident.clone(),
                retrieve: method.attrs.iter().any(|attribute| {
                    Attr::from_path(attribute.path()).is_some_and(|attr| {
                        // Parsed again only to read the action: the tool's
                        // own expansion reports what is wrong with it.
                        let cx = Ctxt::new();
                        let args = ToolArgs::parse_attribute(&cx, attr, attribute);
                        cx.discard();
                        args.action
                            .is_some_and(|action| action.value() == "retrieve")
                    })
                }),
            }),
            _ => None,
        })
        .collect()
}

/// Whether a method carries a tool attribute.
fn is_tool(method: &ImplItemFn) -> bool {
    method
        .attrs
        .iter()
        .any(|attr| Attr::from_path(attr.path()).is_some())
}
