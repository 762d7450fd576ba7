//! Generates a tool's registration from its checked [`Plan`], and nothing
//! else: the function itself is emitted as written, minus the attributes the
//! macros consumed.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Ident, Item, LitStr, Path};

use crate::ast::{Role, Tool};
use crate::attr::{self, Attr, WriteKind};
use crate::ctxt::Ctxt;
use crate::handle;
use crate::symbol;
use crate::valid::{self, Kind, Plan};

mod invoke;

use invoke::{Taken, all_taken, invoke_fn};

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
    let plan = valid::check(&cx, &tool);
    let errors = cx.into_compile_errors();
    match plan {
        Some(plan) if errors.is_empty() => generate(&plan),
        _ => {
            let item = &tool.item;
            quote!(#item #errors)
        }
    }
}

/// `(verify, [negotiation fields])`, the names [`valid`] refuses, as string
/// literals: what `__reserved_fields!()` expands to. It takes no input.
pub fn reserved_fields(input: TokenStream) -> TokenStream {
    if let Some(extra) = input.into_iter().next() {
        return syn::Error::new_spanned(extra, "`__reserved_fields!()` takes no input")
            .into_compile_error();
    }
    let verify = symbol::VERIFY;
    let negotiation = symbol::NEGOTIATION_FIELDS;
    quote!((#verify, [#(#negotiation),*]))
}

fn generate(plan: &Plan) -> TokenStream {
    let item = &plan.tool.item;
    let krate = &plan.krate;
    let (vis, handle) = (&item.vis, handle::ident(&item.sig.ident));
    let cfgs = &plan.tool.cfgs;
    let definition = definition_block(plan);
    let function = function(plan);
    quote! {
        #function
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(
            non_upper_case_globals,
            unreachable_pub,
            reason = "a tool's handle is named after its function and is as visible as it"
        )]
        #[#krate::__private::linkme::distributed_slice(#krate::__private::TOOLS)]
        #[linkme(crate = #krate::__private::linkme)]
        #vis static #handle: #krate::__private::ToolDef = #definition;
    }
}

/// A method's registration, in two places: beside the method, in its
/// `impl`, a hidden constant holding the definition under the handle's
/// name (so `tools![Type::method]` and `retrieve = Self::method` reach it
/// as they reach a function's); after the `impl`, in an anonymous block,
/// the static that registers a copy of it.
pub struct MethodTokens {
    pub in_impl: TokenStream,
    pub after_impl: TokenStream,
}

pub fn generate_method(plan: &Plan, self_ty: &syn::Type) -> MethodTokens {
    let item = &plan.tool.item;
    let krate = &plan.krate;
    let (vis, handle) = (&item.vis, handle::ident(&item.sig.ident));
    let cfgs = &plan.tool.cfgs;
    let definition = definition_block(plan);
    let function = function(plan);
    MethodTokens {
        in_impl: quote! {
            #function
            #(#cfgs)*
            #[doc(hidden)]
            #[allow(
                non_upper_case_globals,
                unreachable_pub,
                reason = "a tool's handle is named after its method and is as visible as it"
            )]
            #vis const #handle: #krate::__private::ToolDef = #definition;
        },
        after_impl: quote! {
            #(#cfgs)*
            const _: () = {
                #[#krate::__private::linkme::distributed_slice(#krate::__private::TOOLS)]
                #[linkme(crate = #krate::__private::linkme)]
                static __MCP_LIGHT_TOOL: #krate::__private::ToolDef = <#self_ty>::#handle;
            };
        },
    }
}

/// The function as written, with the one lint allowed on it that fires
/// only because of what its signature means to mcp-light:
///
/// - an `async fn` without an `.await` is how a tool says it runs on the
///   async worker that serves the call (a synchronous one goes to the
///   blocking pool), so `unused_async`'s fix would move the tool (rmcp's
///   `#[tool]` rewrites an `async fn` into one returning a boxed future,
///   so clippy never sees it there either);
/// - a named parameter of a synchronous tool is an argument, parsed from
///   the call and owned by the tool: `needless_pass_by_value`'s reference
///   would make it a value borrowed from the call instead, which an
///   argument cannot be.
///
/// Anything else clippy finds in the function (an unused `&self` of a
/// synchronous method included, as on rmcp) it reports as it would in a
/// function the macros never saw.
fn function(plan: &Plan) -> TokenStream {
    let tool = plan.tool;
    let item = &tool.item;
    let (lint, reason) = if item.sig.asyncness.is_some() {
        (
            quote!(clippy::unused_async),
            "mcp-light runs an `async` tool on the async workers, a synchronous one on the \
             blocking pool",
        )
    } else if tool.params.iter().any(|p| matches!(p.role, Role::Arg)) {
        (
            quote!(clippy::needless_pass_by_value),
            "an argument is parsed from the call and owned by the tool",
        )
    } else {
        return quote!(#item);
    };
    quote! {
        #[allow(#lint, reason = #reason)]
        #item
    }
}

/// The definition's initializer: the definition and everything it is
/// built from sit inside it, where no name they use reaches the user's
/// scope.
fn definition_block(plan: &Plan) -> TokenStream {
    let light_key_check = light_key_check(plan);
    let args_struct = args_struct(plan);
    let invoke = invoke_fn(plan);
    let definition = definition(plan);
    let header_checks = header_checks(plan);
    quote!({
        #header_checks
        #light_key_check
        #args_struct
        #invoke
        #definition
    })
}

/// Where errors about the success type point: the type as written, or the
/// function's name when it returns nothing.
fn success_span(plan: &Plan) -> Span {
    let tool = plan.tool;
    match &tool.output.ty {
        Some(_) => tool.output.span(),
        None => tool.item.sig.ident.span(),
    }
}

/// A success type the responder cannot take gets a sentence at the
/// user's type. The checks take the converted result, so they see the type
/// the compiler inferred through any alias; they sit in the body that calls
/// the responder, so that rustc reports the responder's own bound (implied
/// by them, at the same span) no more.
fn result_assertions(plan: &Plan) -> TokenStream {
    let span = success_span(plan);
    let krate = respan(&plan.krate, span);
    let kind_check = match plan.kind {
        Kind::Write { kind, .. } if kind.is_bulk() => {
            Some(quote_spanned!(span=> __assert_bulk(&__out);))
        }
        Kind::Write { kind, .. } if kind != WriteKind::Destroy => {
            Some(quote_spanned!(span=> __assert_light_key(&__out);))
        }
        _ => None,
    };
    // A read answers JSON or content, as the compiler decides in `respond`;
    // a heavy read and a write answer JSON only. A heavy read's result is
    // checked by the way `respond` takes it (a stream, an iterator, a
    // value); anywhere else a stream or an iterator is refused.
    let json_check = match plan.kind {
        Kind::Read => None,
        Kind::Heavy => {
            let answer = Dispatch::Answer.import(&krate, span);
            Some(quote_spanned! {span=>
                {
                    #answer
                    (&__out).tool_answer_kind().json_only(&__out);
                }
            })
        }
        Kind::Write { .. } => {
            let answer = Dispatch::Answer.import(&krate, span);
            Some(quote_spanned! {span=>
                #krate::__private::assert_tool_result(&__out);
                {
                    #answer
                    (&__out).tool_answer_kind().json_only(&__out);
                }
            })
        }
    };
    let heavy_check = (plan.kind != Kind::Heavy).then(|| {
        let heavy = Dispatch::Heavy.import(&krate, span);
        quote_spanned! {span=>
            {
                #heavy
                (&&&&__out).heavy_kind().only_heavy(&__out);
            }
        }
    });
    quote_spanned! {span=>
        #heavy_check
        #json_check
        #kind_check
    }
}

/// An argument mirrored in a header (`#[header("Name")]`) has a string,
/// integer or boolean type, checked at the type.
fn header_checks(plan: &Plan) -> TokenStream {
    plan.tool
        .params
        .iter()
        .filter(|p| p.attrs.header.is_some() && matches!(p.role, Role::Arg))
        .map(|p| {
            let (ty, span) = (&p.ty, p.ty.span());
            let krate = respan(&plan.krate, span);
            quote_spanned!(span=> const _: fn() = #krate::__private::assert_header_argument::<#ty>;)
        })
        .collect()
}

/// A write's result names its identifying fields: a single write's result
/// is `LightKey`, a bulk write's is a list of `LightKey` items
/// (`BulkResult`). The checks are local functions, so that a failing one
/// is reported at the user's type and attribute, not in mcp-light. A single
/// write's sentence lives on a local trait, so that it speaks of the write
/// rather than of `LightKey` in general; a bulk write's is `BulkResult`'s,
/// or `BulkItem`'s for a list whose items lack `LightKey`.
fn light_key_check(plan: &Plan) -> Option<TokenStream> {
    let Kind::Write { kind, .. } = plan.kind else {
        return None;
    };
    let krate = &plan.krate;
    if kind.is_bulk() {
        return Some(quote! {
            fn __assert_bulk<T: #krate::BulkResult>(
                _: &::core::result::Result<T, #krate::ToolError>,
            ) {
            }
        });
    }
    if kind == WriteKind::Destroy {
        return None;
    }
    Some(quote! {
        #[diagnostic::on_unimplemented(
            message = "the result `{Self}` of a single write must implement `LightKey`, which names the fields that identify it in the envelope",
            label = "this type is not `LightKey`",
            note = "add `#[derive(LightKey)]` to `{Self}` (and `#[light_key(...)]` for fields beyond id, url and name), or return a `serde_json::Value`",
            note = "a write that returns a list is `#[mcp_light(bulk_create)]` or `#[mcp_light(bulk_update)]`"
        )]
        trait __LightKeyResult: #krate::LightKey {}
        impl<T: #krate::LightKey + ?::core::marker::Sized> __LightKeyResult for T {}
        fn __assert_light_key<T: __LightKeyResult>(
            _: &::core::result::Result<T, #krate::ToolError>,
        ) {
        }
    })
}

/// `for<'__bound> T: ToolArgument` for each argument's type `T`, spanned at it:
/// the bound under which the argument struct's derived impls, and the
/// functions that use them, compile. Higher-ranked, so that rustc does not
/// refuse a false one as a trivial bound where it is written but checks it
/// where the functions are registered, with `ToolArgument`'s sentence.
fn argument_bounds(plan: &Plan) -> Vec<TokenStream> {
    plan.tool
        .params
        .iter()
        .filter_map(|p| {
            let (ty, span) = (&p.ty, p.ty.span());
            let krate = respan(&plan.krate, span);
            match p.role {
                Role::Arg => {
                    Some(quote_spanned!(span=> for<'__bound> #ty: #krate::__private::ToolArgument))
                }
                Role::Whole => Some(
                    quote_spanned!(span=> for<'__bound> #ty: #krate::__private::WholeArguments),
                ),
                _ => None,
            }
        })
        .collect()
}

/// Where a type that cannot be an argument is reported: at the argument's
/// type when there is one, else over the whole parameter list (the message
/// names the type, and a note points at its parameter).
fn arguments_span(plan: &Plan) -> Span {
    let mut args = plan
        .tool
        .params
        .iter()
        .filter(|p| matches!(p.role, Role::Arg | Role::Whole));
    match (args.next(), args.next()) {
        (Some(only), None) => only.ty.span(),
        _ => plan.tool.item.sig.paren_token.span.join(),
    }
}

/// One struct whose fields are the tool's arguments. Its lifetime
/// parameter is only there because schemars applies `bound` to generic
/// structs alone; the marker field is skipped by serde and schemars.
fn args_struct(plan: &Plan) -> TokenStream {
    if plan.whole.is_some() {
        return TokenStream::new();
    }
    let krate = &plan.krate;
    let args = plan
        .tool
        .params
        .iter()
        .filter(|p| matches!(p.role, Role::Arg));
    let fields = args.map(|p| {
        let (attrs, ident, ty) = (&p.attrs.forwarded, &p.ident, &p.ty);
        let header = p
            .attrs
            .header
            .as_ref()
            .map(|(_, name)| quote!(#[schemars(extend("x-mcp-header" = #name))]));
        quote!(#(#attrs)* #header #ident: #ty)
    });
    let bounds = argument_bounds(plan)
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let path = path_string(krate);
    let serde = format!("{path}::__private::serde");
    let schemars = format!("{path}::__private::schemars");
    let own = &plan.tool.schemars;
    quote! {
        #[derive(
            #krate::__private::serde::Deserialize,
            #krate::__private::schemars::JsonSchema,
        )]
        #[serde(crate = #serde, deny_unknown_fields, bound = #bounds)]
        #[schemars(crate = #schemars, bound = #bounds)]
        #(#own)*
        struct __Args<'__args> {
            #(#fields,)*
            #[serde(skip)]
            __lifetime: ::core::marker::PhantomData<&'__args ()>,
        }
    }
}

/// Whether a read answers MCP content: the tag its call would pick, read
/// off a future that calls it and is never polled (its arguments are never
/// made). A heavy read or a write answers JSON (content does not compile
/// there).
fn answers_content(plan: &Plan) -> TokenStream {
    let krate = &plan.krate;
    if plan.kind != Kind::Read {
        return quote!(#krate::__private::answers_json);
    }
    let tool = plan.tool;
    let callee = callee(plan);
    let receiver = tool.receiver.iter().map(|_| quote!(::core::unreachable!()));
    let never = receiver.chain(tool.params.iter().map(|_| quote!(::core::unreachable!())));
    let await_ = tool.item.sig.asyncness.map(|_| quote!(.await));
    let (output, json, answer) = (
        Dispatch::Output.import(krate, Span::call_site()),
        Dispatch::Json.import(krate, Span::call_site()),
        Dispatch::Answer.import(krate, Span::call_site()),
    );
    // `output_type`, not `into_output`: the real call reports an error type
    // that does not convert, once.
    quote!({
        #[allow(
            unreachable_code,
            unused_variables,
            clippy::diverging_sub_expression,
            reason = "a probe of the tool's result type, built and never run"
        )]
        fn __answers_content() -> bool {
            let __probe = async move {
                let __ret = #callee(#(#never),*) #await_;
                let __out = {
                    #output
                    (&__ret).tool_output_kind().output_type(__ret)
                };
                let __out = {
                    #json
                    (&__out).tool_json_kind().unwrap_json(__out)
                };
                #answer
                (&__out).tool_answer_kind()
            };
            #krate::__private::answer_kind::answers_content(&__probe)
        }
        __answers_content
    })
}

/// What the tool's extractors read of the host state, which building a
/// server checks.
fn state_needs(plan: &Plan) -> TokenStream {
    let krate = &plan.krate;
    let needs: Vec<_> = all_taken(plan)
        .map(|Taken { span, from, .. }| quote_spanned!(span=> #from::state_needs(__needs);))
        .collect();
    if needs.is_empty() {
        return quote!(#krate::__private::no_state_needs);
    }
    quote!({
        fn __state_needs(__needs: &mut ::std::vec::Vec<#krate::__private::StateNeed>) {
            #(#needs)*
        }
        __state_needs
    })
}

fn definition(plan: &Plan) -> TokenStream {
    let tool = plan.tool;
    let krate = &plan.krate;
    // Evaluated by the compiler: each extractor says whether it reaches
    // the client.
    let needs_client = all_taken(plan)
        .map(|Taken { span, from, .. }| quote_spanned!(span=> || #from::NEEDS_CLIENT));
    let needs_client = quote!(false #(#needs_client)*);
    let name = &plan.name;
    let function = match &tool.owner {
        Some(owner) => format!(
            "{}::{}",
            path_string(&owner.self_ty),
            tool.item.sig.ident.unraw()
        ),
        None => tool.item.sig.ident.unraw().to_string(),
    };
    let description = &plan.description;
    let kind = match plan.kind {
        Kind::Read => quote!(#krate::__private::ToolKind::Read),
        Kind::Heavy => quote!(#krate::__private::ToolKind::Heavy),
        Kind::Write { kind, status } => {
            let variant = format_ident!("{}", kind.variant());
            quote!(#krate::__private::ToolKind::Write {
                kind: #krate::__private::WriteKind::#variant,
                status_code: #status,
            })
        }
    };
    let resource = option_str(plan.resource.as_deref());
    let action = option_str(plan.action.as_deref());
    let (retrieve_const, retrieve) = match &plan.retrieve {
        Some(path) => (
            Some(retrieve_const(plan, path)),
            quote!(::core::option::Option::Some(__RETRIEVE)),
        ),
        None => (None, quote!(::core::option::Option::None)),
    };
    let state_needs = state_needs(plan);
    let answers_content = answers_content(plan);
    let generate = match (plan.whole.is_some(), plan.schema_as_written) {
        (false, false) => format_ident!("params_schema"),
        (false, true) => format_ident!("params_schema_as_written"),
        (true, false) => format_ident!("whole_params_schema"),
        (true, true) => format_ident!("whole_params_schema_as_written"),
    };
    let schema_as_written = plan.schema_as_written;
    let task = match plan.task {
        Some(task) => {
            let variant = format_ident!("{}", task.variant());
            quote!(#krate::tasks::TaskSupport::#variant)
        }
        None => quote!(#krate::tasks::TaskSupport::Forbidden),
    };
    let scopes = &plan.scopes;
    let view = !plan.no_view;
    let inline_budget = match plan.inline_budget {
        Some(budget) => quote!(::core::option::Option::Some(#budget)),
        None => quote!(::core::option::Option::None),
    };
    let annotations = stated_annotations(plan);
    let bounds = argument_bounds(plan);
    // Both references prove the argument bounds at one span, so that rustc
    // reports each type that is not an argument once.
    let args_span = arguments_span(plan);
    let invoke = quote_spanned!(args_span=> __invoke);
    let params_schema = quote_spanned!(args_span=> __params_schema);
    let args_type = match plan.whole {
        Some(whole) => whole.ty.to_token_stream(),
        None => quote!(__Args<'static>),
    };
    quote! {
        #retrieve_const

        fn __params_schema() -> #krate::__private::schemars::Schema
        where
            #(#bounds,)*
        {
            #krate::__private::#generate::<#args_type>()
        }

        #krate::__private::ToolDef::__from_parts(#krate::__private::ToolParts {
            name: #name,
            function: ::core::concat!(::core::module_path!(), "::", #function),
            description: #description,
            kind: #kind,
            resource: #resource,
            action: #action,
            retrieve: #retrieve,
            params_schema: #params_schema,
            state_needs: #state_needs,
            invoke: #invoke,
            answers_content: #answers_content,
            needs_client: #needs_client,
            task: #task,
            schema_as_written: #schema_as_written,
            scopes: &[#(#scopes),*],
            view: #view,
            inline_budget: #inline_budget,
            annotations: #annotations,
        })
    }
}

/// The retrieve tool's name, checked by the compiler: `path` must name a
/// `#[mcp_tool(action = "retrieve")]` function, of the write's resource when
/// the write names one. The checks read the named tool's handle while the
/// constant is evaluated, and a failed one is reported at `path`.
fn retrieve_const(plan: &Plan, path: &Path) -> TokenStream {
    let span = path.span();
    let krate = respan(&plan.krate, span);
    let handle = handle::path(path);
    let path_text = quote!(#path).to_string().replace(' ', "");
    let not_retrieve = format!(
        "`retrieve = {path_text}` names a tool that is not a retrieve tool: annotate the \
         function it names with `#[mcp_tool(resource = \"...\", action = \"retrieve\")]`, \
         or point `retrieve` at one that is"
    );
    let resource_check = plan.resource.as_deref().map(|resource| {
        let other_resource = format!(
            "`retrieve = {path_text}` names the retrieve tool of another resource than this \
             write's `resource = \"{resource}\"`: point `retrieve` at the retrieve tool of \
             \"{resource}\""
        );
        quote_spanned! {span=>
            if !#krate::__private::is_resource(__retrieve, #resource) {
                ::core::panic!("{}", #other_resource);
            }
        }
    });
    quote_spanned! {span=>
        const __RETRIEVE: &str = {
            let __retrieve: &#krate::__private::ToolDef = &#handle;
            if !#krate::__private::is_retrieve_tool(__retrieve) {
                ::core::panic!("{}", #not_retrieve);
            }
            #resource_check
            __retrieve.name()
        };
    }
}

/// One choice the compiler makes for generated code, by autoref: the
/// traits of a module of `mcp_light::__private`, each found at its own
/// autoref step, one of them picked by the method call they are imported
/// around (see `mcp_light::__private::kind`).
#[derive(Clone, Copy)]
enum Dispatch {
    /// A `Result` (its error converted) or the success itself.
    Output,
    /// rmcp's `Json<T>` answers as `T`.
    Json,
    /// MCP content or JSON.
    Answer,
    /// A stream, an iterator of `Result`s, an iterator, or a value.
    Heavy,
    /// A `CallToolResult` the tool built, or any other success.
    Built,
}

impl Dispatch {
    fn module_and_traits(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Dispatch::Output => ("kind", &["ResultKind", "ValueKind"]),
            Dispatch::Json => ("json_kind", &["JsonWrapperKind", "PlainKind"]),
            Dispatch::Answer => ("answer_kind", &["ContentKind", "JsonKind"]),
            Dispatch::Heavy => (
                "heavy_kind",
                &["StreamKind", "TryIterKind", "IterKind", "WholeKind"],
            ),
            Dispatch::Built => ("built_kind", &["BuiltKind", "OtherKind"]),
        }
    }

    /// The `use` that brings the traits into scope, by name and unnamed
    /// (`as _`), so that nothing reaches the user's namespace and no glob
    /// import is left for the user's lints to report. The call picks one
    /// trait, so the import of the others is unused by design.
    fn import(self, krate: &impl ToTokens, span: Span) -> TokenStream {
        let (module, traits) = self.module_and_traits();
        let module = Ident::new(module, span);
        let traits = traits.iter().map(|name| Ident::new(name, span));
        quote_spanned! {span=>
            #[allow(unused_imports, reason = "the call picks one of the traits")]
            use #krate::__private::#module::{#(#traits as _),*};
        }
    }
}

/// `tokens` with every span set to `span`, for paths interpolated where an
/// error should point at the user's code (`quote_spanned!` leaves
/// interpolated tokens as they were).
fn respan(tokens: &impl ToTokens, span: Span) -> TokenStream {
    tokens
        .to_token_stream()
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut inner = Group::new(group.delimiter(), respan(&group.stream(), span));
                inner.set_span(span);
                token = TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

/// A path (or a type) as serde's and schemars' `crate = "..."` take it.
fn path_string(path: &impl ToTokens) -> String {
    quote!(#path).to_string().replace(' ', "")
}

/// What generated code calls: the function, or the method through the
/// impl's type (`Self` is out of reach in the items nested in a
/// definition).
fn callee(plan: &Plan) -> TokenStream {
    let ident = &plan.tool.item.sig.ident;
    match &plan.tool.owner {
        Some(owner) => {
            let self_ty = &owner.self_ty;
            quote!(<#self_ty>::#ident)
        }
        None => quote!(#ident),
    }
}

/// What the author states in `annotations(...)`, each hint `None` where
/// it said nothing.
fn stated_annotations(plan: &Plan) -> TokenStream {
    let krate = &plan.krate;
    let default = attr::Annotations::default();
    let stated = plan.annotations.unwrap_or(&default);
    let title = option_str(stated.title.as_ref().map(LitStr::value).as_deref());
    let hint = |hint: &Option<syn::LitBool>| match hint {
        Some(hint) => quote!(::core::option::Option::Some(#hint)),
        None => quote!(::core::option::Option::None),
    };
    let (read_only, destructive, idempotent, open_world) = (
        hint(&stated.read_only),
        hint(&stated.destructive),
        hint(&stated.idempotent),
        hint(&stated.open_world),
    );
    quote!(#krate::__private::StatedAnnotations {
        title: #title,
        read_only_hint: #read_only,
        destructive_hint: #destructive,
        idempotent_hint: #idempotent,
        open_world_hint: #open_world,
    })
}

fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    /// With `crate = path`, nothing the generated code names goes through
    /// `::mcp_light`, serde's and schemars' `crate = "..."` included.
    #[test]
    fn a_crate_path_reaches_every_runtime_path() {
        let item = quote! {
            /// Add a device.
            fn device_add(
                State(db): State<Db>,
                caller: &Caller,
                #[serde(default)] name: String,
            ) -> ApiResult<Device> {
                todo!()
            }
        };
        let cases = [
            (
                Attr::Light,
                quote!(create, crate = facade::mcp, retrieve = device_get),
            ),
            (
                Attr::Tool,
                quote!(
                    crate = facade::mcp,
                    resource = "device",
                    action = "retrieve"
                ),
            ),
            (Attr::Heavy, quote!(crate = facade::mcp)),
        ];
        for (attr, args) in cases {
            let out = tool(attr, args, item.clone()).to_string();
            assert!(!out.contains("compile_error"), "{out}");
            // As a path (messages may still name the attribute).
            assert!(!out.contains("mcp_light ::"), "{out}");
            assert!(!out.contains("mcp_light::"), "{out}");
            assert!(out.contains("\"facade::mcp::__private::serde\""), "{out}");
            assert!(
                out.contains("facade :: mcp :: __private :: FromCall"),
                "{out}"
            );
        }
    }

    /// A synchronous function goes to the blocking pool unless `inline`;
    /// an `async fn` is awaited where it is.
    #[test]
    fn only_a_sync_function_not_inline_runs_on_the_blocking_pool() {
        let sync = quote!(
            fn ping(caller: &Caller) -> u32 {
                1
            }
        );
        let run_sync = ":: __private :: run_sync";
        let expanded = |args, item| tool(Attr::Tool, args, item).to_string();
        let default = expanded(quote!(), sync.clone());
        assert!(default.contains(run_sync), "{default}");
        let inline = expanded(quote!(inline), sync);
        assert!(!inline.contains(run_sync), "{inline}");
        assert!(!inline.contains("compile_error"), "{inline}");
        let in_async = expanded(
            quote!(),
            quote!(
                async fn ping() -> u32 {
                    1
                }
            ),
        );
        assert!(!in_async.contains(run_sync), "{in_async}");
        assert!(in_async.contains("ping () . await"), "{in_async}");
    }

    /// Nothing is named after the function: beside it, only its handle,
    /// under the prefix, which carries the function's `cfg`.
    #[test]
    fn the_only_item_beside_the_function_is_its_prefixed_handle() {
        let out = tool(
            Attr::Light,
            quote!(create),
            quote!(
                #[cfg(feature = "devices")]
                pub fn devices(name: String) -> Device {
                    todo!()
                }
            ),
        );
        let file: syn::File = syn::parse2(out).unwrap();
        let items: Vec<(String, usize)> = file
            .items
            .iter()
            .map(|item| {
                let cfgs = |attrs: &[syn::Attribute]| {
                    attrs.iter().filter(|a| a.path().is_ident("cfg")).count()
                };
                match item {
                    Item::Fn(f) => (f.sig.ident.to_string(), cfgs(&f.attrs)),
                    Item::Static(s) => (s.ident.to_string(), cfgs(&s.attrs)),
                    other => panic!("an item beside the function: {}", quote!(#other)),
                }
            })
            .collect();
        assert_eq!(
            items,
            [
                ("devices".into(), 1),
                ("__mcp_light_tool_devices".into(), 1)
            ]
        );
    }

    /// The traits of each autoref choice are imported by name, never by a
    /// glob that the user's `wildcard_imports` would report at their type.
    #[test]
    fn no_glob_import_reaches_the_users_crate() {
        let cases = [
            (
                Attr::Tool,
                quote!(),
                quote!(
                    fn a() -> u32 {
                        1
                    }
                ),
            ),
            (
                Attr::Heavy,
                quote!(),
                quote!(
                    fn b() -> Vec<u32> {
                        vec![]
                    }
                ),
            ),
            (
                Attr::Light,
                quote!(destroy),
                quote!(
                    fn c(id: u64) {}
                ),
            ),
        ];
        for (attr, args, item) in cases {
            let out = tool(attr, args, item).to_string();
            assert!(!out.contains("compile_error"), "{out}");
            assert!(!out.contains(":: *"), "{out}");
            assert!(out.contains("ValueKind as _"), "{out}");
        }
    }

    /// Only the lints a tool's shape trips are allowed on its function:
    /// an `async fn`'s, and a synchronous one's with arguments.
    #[test]
    fn the_function_carries_only_the_lints_its_shape_trips() {
        let allows = |item| {
            let out = tool(Attr::Tool, quote!(), item);
            let file: syn::File = syn::parse2(out).unwrap();
            let Item::Fn(function) = &file.items[0] else {
                panic!("the function comes first")
            };
            // The lints allowed, each allow giving its reason.
            let allow = function.attrs.iter().find(|a| a.path().is_ident("allow"));
            allow.map(|a| {
                let written = quote!(#a).to_string();
                let (lints, reason) = written.split_once(", reason = ").expect("a reason");
                assert!(reason.len() > 20, "{reason}");
                format!("{})]", lints.trim_end())
            })
        };
        let in_async = allows(quote!(
            async fn a(name: String) -> String {
                name
            }
        ));
        assert_eq!(
            in_async.as_deref(),
            Some("# [allow (clippy :: unused_async)]")
        );
        let with_argument = allows(quote!(
            fn b(name: String) -> usize {
                name.len()
            }
        ));
        assert_eq!(
            with_argument.as_deref(),
            Some("# [allow (clippy :: needless_pass_by_value)]")
        );
        assert_eq!(
            allows(quote!(
                fn c(caller: &Caller) -> u32 {
                    1
                }
            )),
            None
        );
    }

    #[test]
    fn without_a_crate_path_the_runtime_is_mcp_light() {
        let out = tool(
            Attr::Tool,
            quote!(),
            quote!(
                fn ping() -> u32 {
                    1
                }
            ),
        )
        .to_string();
        assert!(
            out.contains(":: mcp_light :: __private :: ToolDef :: __from_parts"),
            "{out}"
        );
        assert!(out.contains("\"::mcp_light::__private::serde\""), "{out}");
    }
}
