//! Generates a tool's registration from its checked [`Plan`], and nothing
//! else: the function itself is emitted as written, minus the attributes the
//! macros consumed.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Item, Path};

use crate::ast::{Output, Role, Tool};
use crate::attr::{Attr, WriteKind};
use crate::ctxt::Ctxt;
use crate::valid::{self, Kind, Plan};

/// The whole pipeline of one tool attribute: parse, check, generate. On
/// invalid input the function is still emitted, beside the errors, so the
/// user sees the real mistakes and no follow-on ones.
pub fn tool(attr: Attr, args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match syn::parse2::<Item>(input.clone()) {
        Ok(Item::Fn(item)) => item,
        Ok(other) => {
            let error = syn::Error::new_spanned(
                &other,
                format_args!(
                    "`#[{attr}]` registers a function as an MCP tool: put it on a free `fn` or \
                     `async fn`"
                ),
            );
            return quote!(#other)
                .into_iter()
                .chain(error.into_compile_error())
                .collect();
        }
        Err(error) => {
            return input
                .into_iter()
                .chain(error.into_compile_error())
                .collect();
        }
    };
    let cx = Ctxt::new();
    let tool = Tool::from_item(&cx, attr, args, item);
    match valid::check(&cx, &tool) {
        Some(plan) => generate(&plan),
        None => {
            let item = &tool.item;
            let errors = cx.into_compile_errors();
            quote!(#item #errors)
        }
    }
}

fn generate(plan: &Plan) -> TokenStream {
    let tool = plan.tool;
    let item = &tool.item;
    let companion = companion(plan);
    let light_key_check = light_key_check(plan);
    let args_struct = args_struct(tool);
    let invoke = invoke_fn(plan);
    let definition = definition(plan);
    quote! {
        #item
        #companion
        const _: () = {
            #light_key_check
            #args_struct
            #invoke
            #definition
        };
    }
}

/// A braced struct named like the function (type namespace only, so it does
/// not clash with the function), through which `retrieve = path` is checked
/// by the compiler (C13). Only a retrieve tool implements `RetrieveTool`;
/// naming any other tool gets the trait's sentence.
fn companion(plan: &Plan) -> TokenStream {
    let item = &plan.tool.item;
    let (vis, ident) = (&item.vis, &item.sig.ident);
    let is_retrieve = plan.tool.attrs[0].attr == Attr::Tool
        && plan.kind == Kind::Read
        && plan.action.as_deref() == Some("retrieve");
    let retrieve_impl = is_retrieve.then(|| {
        let name = &plan.name;
        let resource = option_str(plan.resource.as_deref());
        quote! {
            impl ::mcp_light::__private::RetrieveTool for #ident {
                const NAME: &'static str = #name;
                const RESOURCE: ::core::option::Option<&'static str> = #resource;
            }
        }
    });
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}
        #retrieve_impl
    }
}

/// C25: a result type the responder cannot take gets a sentence at the
/// user's type. The checks sit in the body that calls the responder, so that
/// rustc reports the responder's own bound (implied by them, at the same
/// span) no more.
fn result_assertions(plan: &Plan) -> Option<TokenStream> {
    let ty = plan.tool.output.success_type()?;
    let light_key = matches!(plan.kind, Kind::Write { kind, .. } if !kind.is_bulk() && kind != WriteKind::Destroy);
    let light_key = light_key.then(|| quote_spanned! {ty.span()=> __assert_light_key::<#ty>();});
    Some(quote_spanned! {ty.span()=>
        ::mcp_light::__private::assert_tool_result::<#ty>();
        #light_key
    })
}

/// A single write's result names its identifying fields. `LightKey` itself
/// carries no `on_unimplemented`, so the sentence lives on a local trait.
fn light_key_check(plan: &Plan) -> Option<TokenStream> {
    let Kind::Write { kind, .. } = plan.kind else {
        return None;
    };
    if kind.is_bulk() || kind == WriteKind::Destroy {
        return None;
    }
    Some(quote! {
        #[diagnostic::on_unimplemented(
            message = "the result `{Self}` of a single write must implement `LightKey`, which names the fields that identify it in the envelope",
            label = "this type is not `LightKey`",
            note = "add `#[derive(LightKey)]` to `{Self}` (and `#[light_key(...)]` for fields beyond id, url and name), or return a `serde_json::Value`"
        )]
        trait __LightKeyResult: ::mcp_light::LightKey {}
        impl<T: ::mcp_light::LightKey + ?::core::marker::Sized> __LightKeyResult for T {}
        fn __assert_light_key<T: __LightKeyResult + ?::core::marker::Sized>() {}
    })
}

/// One struct whose fields are the tool's arguments (C2).
fn args_struct(tool: &Tool) -> TokenStream {
    let fields = tool.params.iter().filter(|p| p.role == Role::Arg).map(|p| {
        let (attrs, ident, ty) = (&p.attrs.forwarded, &p.ident, &p.ty);
        quote!(#(#attrs)* #ident: #ty)
    });
    quote! {
        #[derive(
            ::mcp_light::__private::serde::Deserialize,
            ::mcp_light::__private::schemars::JsonSchema,
        )]
        #[serde(crate = "::mcp_light::__private::serde", deny_unknown_fields)]
        #[schemars(crate = "::mcp_light::__private::schemars")]
        struct __Args {
            #(#fields,)*
        }
    }
}

fn invoke_fn(plan: &Plan) -> TokenStream {
    let tool = plan.tool;
    let fn_ident = &tool.item.sig.ident;

    // Each argument is bound to a fresh name, so a parameter named like the
    // function (or like anything else here) shadows nothing.
    let mut fields = Vec::new();
    let mut bindings = Vec::new();
    let mut call_args = Vec::new();
    for (index, param) in tool.params.iter().enumerate() {
        match param.role {
            Role::Context { by_ref: true } => call_args.push(quote!(&__ctx)),
            Role::Context { by_ref: false } => call_args.push(quote!(__ctx)),
            Role::Arg => {
                let binding = format_ident!("__arg{}", index);
                fields.push(&param.ident);
                call_args.push(quote!(#binding));
                bindings.push(binding);
            }
        }
    }

    let await_ = tool.item.sig.asyncness.map(|_| quote!(.await));
    let call = quote!(#fn_ident(#(#call_args),*) #await_);
    let out = match &tool.output {
        Output::Result { .. } => quote!(#call.map_err(::mcp_light::ToolError::from)),
        Output::Plain(_) => quote!(::core::result::Result::<_, ::mcp_light::ToolError>::Ok(#call)),
        Output::Unit => quote!({
            #call;
            ::core::result::Result::<(), ::mcp_light::ToolError>::Ok(())
        }),
    };

    // The destroy envelope's id comes from the arguments, read before they
    // move into the call.
    let (id_binding, id_args) = match &plan.destroy_id {
        Some((param, key)) => {
            let ident = &param.ident;
            (
                Some(quote!(let __id = ::mcp_light::__private::id_value(&__args.#ident);)),
                Some(quote!(#key, __id,)),
            )
        }
        None => (None, None),
    };

    let method = match plan.kind {
        Kind::Read => "read",
        Kind::Heavy => "heavy",
        Kind::Write { kind, .. } if kind.is_bulk() => "bulk",
        Kind::Write {
            kind: WriteKind::Destroy,
            ..
        } => "destroy",
        Kind::Write { .. } => "single",
    };
    // Spanned at the result type, so a missing `LightKey` (single) or a
    // result that is not a list (bulk) is reported there.
    let span = tool
        .output
        .success_type()
        .map_or_else(Span::call_site, |ty| ty.span());
    let method = format_ident!("{}", method, span = span);
    let respond = quote_spanned!(span=> __responder.#method(#id_args __out).await);
    let assertions = result_assertions(plan);

    quote! {
        fn __invoke(
            __invocation: ::mcp_light::__private::Invocation,
        ) -> ::mcp_light::__private::BoxFuture<'static, ::mcp_light::CallToolResult> {
            ::std::boxed::Box::pin(async move {
                let (__ctx, __args, __responder) = match __invocation.parse::<__Args>() {
                    ::core::result::Result::Ok(parsed) => parsed,
                    ::core::result::Result::Err(reply) => return reply,
                };
                #id_binding
                let __Args { #(#fields: #bindings,)* } = __args;
                let __out = #out;
                #assertions
                #respond
            })
        }
    }
}

fn definition(plan: &Plan) -> TokenStream {
    let tool = plan.tool;
    let name = &plan.name;
    let function = tool.item.sig.ident.unraw().to_string();
    let description = &tool.docs;
    let kind = match plan.kind {
        Kind::Read => quote!(::mcp_light::ToolKind::Read),
        Kind::Heavy => quote!(::mcp_light::ToolKind::Heavy),
        Kind::Write { kind, status } => {
            let variant = format_ident!("{}", kind.variant());
            quote!(::mcp_light::ToolKind::Write {
                kind: ::mcp_light::WriteKind::#variant,
                status_code: #status,
            })
        }
    };
    let resource = option_str(plan.resource.as_deref());
    let action = option_str(plan.action.as_deref());
    let (retrieve_const, retrieve) = match plan.retrieve {
        Some(path) => (
            retrieve_const(plan, path),
            quote!(::core::option::Option::Some(__RETRIEVE)),
        ),
        None => (None, quote!(::core::option::Option::None)),
    };
    quote! {
        #retrieve_const

        #[::mcp_light::__private::linkme::distributed_slice(::mcp_light::TOOLS)]
        #[linkme(crate = ::mcp_light::__private::linkme)]
        static __TOOL: ::mcp_light::ToolDef = ::mcp_light::ToolDef::__from_parts(::mcp_light::__private::ToolParts {
            name: #name,
            function: ::core::concat!(::core::module_path!(), "::", #function),
            description: #description,
            kind: #kind,
            resource: #resource,
            action: #action,
            retrieve: #retrieve,
            params_schema: ::mcp_light::__private::params_schema::<__Args>,
            invoke: __invoke,
        });
    }
}

/// The retrieve tool's name, checked by the compiler: `path` must name a
/// `#[mcp_tool(action = "retrieve")]` function, of the write's resource when
/// the write names one.
fn retrieve_const(plan: &Plan, path: &Path) -> Option<TokenStream> {
    let span = path.span();
    let retrieve_tool = quote_spanned!(span=> <#path as ::mcp_light::__private::RetrieveTool>);
    let resource_check = plan.resource.as_deref().map(|resource| {
        let path_text = quote!(#path).to_string().replace(' ', "");
        let message = format!(
            "`retrieve = {path_text}` names the retrieve tool of another resource than this \
             write's `resource = \"{resource}\"`: point `retrieve` at the retrieve tool of \
             \"{resource}\""
        )
        .replace('{', "{{")
        .replace('}', "}}");
        quote_spanned! {span=>
            if !__same_resource(#retrieve_tool::RESOURCE, #resource) {
                ::core::panic!(#message);
            }
        }
    });
    let same_resource = resource_check.is_some().then(|| {
        quote! {
            const fn __same_resource(a: ::core::option::Option<&str>, b: &str) -> bool {
                let ::core::option::Option::Some(a) = a else { return false };
                let (a, b) = (a.as_bytes(), b.as_bytes());
                if a.len() != b.len() {
                    return false;
                }
                let mut i = 0;
                while i < a.len() {
                    if a[i] != b[i] {
                        return false;
                    }
                    i += 1;
                }
                true
            }
        }
    });
    Some(quote_spanned! {span=>
        #same_resource
        const __RETRIEVE: &str = {
            #resource_check
            #retrieve_tool::NAME
        };
    })
}

fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}
