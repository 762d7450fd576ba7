//! The generated `__invoke`: a call's arguments parsed, the parameters
//! taken from the call, the function run (in place, awaited, or on the
//! blocking pool) and its result handed to the responder.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use super::{Dispatch, argument_bounds, respan, result_assertions, success_span};
use crate::ast::{Param, Role};
use crate::attr::WriteKind;
use crate::valid::{DestroyId, Kind, Plan};

/// How a parameter taken from the call is taken: the trait, qualified by the
/// type it is taken as, and its method, spanned at the parameter's type so
/// that a type the call cannot provide is reported there. `None` for an
/// argument.
pub(super) struct Taken {
    pub(super) span: Span,
    /// `<T as FromCall>` or `<T as FromCallRef>`.
    pub(super) from: TokenStream,
    pub(super) method: Ident,
}

/// What every parameter taken from the call is taken as, `&self` first:
/// the server's state of the impl's type, as `State<Self>` would take it.
pub(super) fn all_taken<'a>(plan: &'a Plan) -> impl Iterator<Item = Taken> + 'a {
    receiver_taken(plan).into_iter().chain(
        plan.tool
            .params
            .iter()
            .filter_map(|param| taken(plan, param)),
    )
}

/// How a method's `&self` is taken: as `State<Self>`, of the impl's type.
fn receiver_taken(plan: &Plan) -> Option<Taken> {
    let receiver = plan.tool.receiver.as_ref()?;
    let self_ty = &plan.tool.owner.as_ref()?.self_ty;
    let span = receiver.span();
    let krate = respan(&plan.krate, span);
    Some(Taken {
        span,
        from: quote_spanned!(span=> <#krate::State<#self_ty> as #krate::__private::FromCall>),
        method: Ident::new("from_call", span),
    })
}

pub(super) fn taken(plan: &Plan, param: &Param) -> Option<Taken> {
    let span = param.ty.span();
    let krate = respan(&plan.krate, span);
    let (from, method) = match &param.role {
        Role::Arg | Role::Whole => return None,
        Role::Borrowed(reference) => {
            let elem = &reference.elem;
            (
                quote_spanned!(span=> <#elem as #krate::__private::FromCallRef>),
                "from_call_ref",
            )
        }
        Role::Extracted => {
            let ty = &param.ty;
            (
                quote_spanned!(span=> <#ty as #krate::__private::FromCall>),
                "from_call",
            )
        }
        Role::Unnamed => unreachable!("a parameter without a role is refused by `valid`"),
    };
    Some(Taken {
        span,
        from,
        method: Ident::new(method, span),
    })
}

pub(super) fn invoke_fn(plan: &Plan) -> TokenStream {
    let krate = &plan.krate;
    let Bindings {
        fields,
        arg_bindings,
        extractions,
        call_args,
        whole_binding,
    } = bindings(plan);
    let call = call(plan, &extractions, &call_args);
    let out = output(plan);
    let (early_id, id_binding, id_args) = destroy_id(plan);
    let in_place = answers_in_place(plan);
    let respond = respond(plan, id_args, in_place);
    let assertions = result_assertions(plan);
    let bounds = argument_bounds(plan);

    // The arguments are parsed before any future is made: refused ones
    // answer in place, and the future of a tool that waits holds only what
    // its run needs (the parsed arguments, the responder, the call's
    // context if a parameter takes it), not the call's argument map.
    let (parse, bind) = match (plan.whole, whole_binding) {
        (Some(whole), Some(binding)) => {
            let ty = &whole.ty;
            (quote!(parse_whole::<#ty>), quote!(let #binding = __args;))
        }
        _ => (
            quote!(parse::<__Args<'static>>),
            quote!(let __Args { #(#fields: #arg_bindings,)* .. } = __args;),
        ),
    };
    let head = quote! {
        #early_id
        let (__ctx, __args, __responder) = match __invocation.#parse() {
            ::core::result::Result::Ok(parsed) => parsed,
            ::core::result::Result::Err(reply) => {
                return #krate::__private::Answering::from(reply);
            }
        };
        #id_binding
        #bind
    };
    let run = quote! {
        #call
        #out
        #assertions
        #respond
    };
    // A tool that never waits answers in place; any other, a boxed future.
    let run = if in_place {
        run
    } else {
        quote!(#krate::__private::Answering::Later(::std::boxed::Box::pin(async move { #run })))
    };
    quote! {
        fn __invoke(
            __invocation: #krate::__private::Invocation,
        ) -> #krate::__private::Answering
        where
            #(#bounds,)*
        {
            #head
            #run
        }
    }
}

/// What the generated function binds each parameter to: a field of the
/// parsed arguments, the whole arguments, or a value taken from the call.
struct Bindings<'a> {
    /// The argument fields the parsed arguments are taken apart into...
    fields: Vec<&'a Option<Ident>>,
    /// ...and the names they are bound to, in the same order.
    arg_bindings: Vec<Ident>,
    /// Each value taken from the call, and how it is taken.
    extractions: Vec<(Ident, TokenStream)>,
    /// What the function is called with, in its parameters' order.
    call_args: Vec<TokenStream>,
    /// The name the whole arguments are bound to, for a tool that takes
    /// them whole.
    whole_binding: Option<Ident>,
}

/// Binds each parameter to a fresh name, so a parameter named like the
/// function (or like anything else here) shadows nothing.
fn bindings<'a>(plan: &Plan<'a>) -> Bindings<'a> {
    let mut bindings = Bindings {
        fields: Vec::new(),
        arg_bindings: Vec::new(),
        extractions: Vec::new(),
        call_args: Vec::new(),
        whole_binding: None,
    };
    // A method's `&self`: the server's state, borrowed from its `State`.
    if let Some(Taken { span, from, method }) = receiver_taken(plan) {
        let binding = format_ident!("__self");
        bindings.extractions.push((
            binding.clone(),
            quote_spanned!(span=> #from::#method(&__ctx)),
        ));
        bindings.call_args.push(quote!(&*#binding));
    }
    for (index, param) in plan.tool.params.iter().enumerate() {
        let binding = format_ident!("__arg{}", index);
        match taken(plan, param) {
            None if matches!(param.role, Role::Whole) => {
                bindings.whole_binding = Some(binding.clone());
            }
            None => {
                bindings.fields.push(&param.ident);
                bindings.arg_bindings.push(binding.clone());
            }
            Some(Taken { span, from, method }) => {
                let taken = quote_spanned!(span=> #from::#method(&__ctx));
                bindings.extractions.push((binding.clone(), taken));
            }
        }
        bindings.call_args.push(quote!(#binding));
    }
    bindings
}

/// The return value turned into the tool's output: the compiler decides
/// whether it is a `Result` (its error converted) or the success itself
/// (see `mcp_light::__private::kind`), and rmcp's `Json<T>` answers as
/// `T`, whatever alias it is written with. Spanned at the return type,
/// which an unconvertible error names.
fn output(plan: &Plan) -> TokenStream {
    let output_span = plan
        .tool
        .output
        .ty
        .as_ref()
        .map_or_else(|| plan.tool.item.sig.ident.span(), |ty| ty.span());
    let output_krate = respan(&plan.krate, output_span);
    let output = Dispatch::Output.import(&output_krate, output_span);
    let json = Dispatch::Json.import(&output_krate, output_span);
    // A heavy read or a write that builds its own `CallToolResult` answers
    // the JSON it carries (see `mcp_light::__private::built_kind`).
    let built = match plan.kind {
        Kind::Read => None,
        Kind::Heavy | Kind::Write { .. } => {
            let method = match plan.kind {
                Kind::Heavy => format_ident!("heavy", span = output_span),
                _ => format_ident!("write", span = output_span),
            };
            let import = Dispatch::Built.import(&output_krate, output_span);
            Some(quote_spanned! {output_span=>
                let __out = {
                    #import
                    (&__out).tool_built_kind().#method(__out)
                };
            })
        }
    };
    quote_spanned! {output_span=>
        let __out = {
            #output
            (&__ret).tool_output_kind().into_output(__ret)
        };
        let __out = {
            #json
            (&__out).tool_json_kind().unwrap_json(__out)
        };
        #built
    }
}

/// Where a destroy envelope's id comes from: an argument, read before the
/// arguments move into the call, or the call's own arguments, read before
/// they are parsed. The code that reads it early, the binding after the
/// parse, and the id's arguments to the responder.
fn destroy_id(
    plan: &Plan,
) -> (
    Option<TokenStream>,
    Option<TokenStream>,
    Option<TokenStream>,
) {
    let krate = &plan.krate;
    match &plan.destroy_id {
        Some(DestroyId::Argument(param, key)) => {
            let ident = &param.ident;
            (
                None,
                Some(quote!(let __id = #krate::__private::id_value(&__args.#ident);)),
                Some(quote!(#key, __id,)),
            )
        }
        Some(DestroyId::Called) => (
            Some(quote!(let (__id_key, __id) = __invocation.identifier();)),
            None,
            Some(quote!(__id_key, __id,)),
        ),
        None => (None, None, None),
    }
}

/// How the output answers: through the responder's method for the tool's
/// kind, spanned at the success type like the assertions before it; a read
/// that answers `in_place` answers without awaiting.
fn respond(plan: &Plan, id_args: Option<TokenStream>, in_place: bool) -> TokenStream {
    let krate = &plan.krate;
    let method = match plan.kind {
        Kind::Read | Kind::Heavy => "read",
        Kind::Write { kind, .. } if kind.is_bulk() => "bulk",
        Kind::Write {
            kind: WriteKind::Destroy,
            ..
        } => "destroy",
        Kind::Write { .. } => "single",
    };
    let span = success_span(plan);
    let method = format_ident!("{}", method, span = span);
    match plan.kind {
        // JSON or content, whichever the success type is.
        Kind::Read => {
            let krate = respan(krate, span);
            let answer = Dispatch::Answer.import(&krate, span);
            let read = quote_spanned! {span=>
                {
                    #answer
                    (&__out).tool_answer_kind().read(__responder, __out)
                }
            };
            if in_place {
                read
            } else {
                // Taken apart rather than awaited whole: an answer made in
                // place leaves at once, and only a future still to await is
                // held across the await (a scrutinee would hold the whole
                // `Answering` there, answer and all, in the tool's future).
                quote_spanned! {span=>
                    let __later = match #read {
                        #krate::__private::Answering::Now(ready) => return ready.into_inner(),
                        #krate::__private::Answering::Later(later) => later,
                    };
                    __later.await
                }
            }
        }
        // A stream, an iterator or a value, whichever the success type is.
        Kind::Heavy => {
            let krate = respan(krate, span);
            let heavy = Dispatch::Heavy.import(&krate, span);
            quote_spanned! {span=>
                {
                    #heavy
                    (&&&&__out).heavy_kind().heavy(__responder, __out)
                }
                .await
            }
        }
        _ => quote_spanned!(span=> __responder.#method(#id_args __out).await),
    }
}

/// Whether the tool answers in place, without a future: an `inline`
/// synchronous read, which never waits (nothing it does can: its function
/// is not `async`, and its answer is the result itself or content, stored
/// only when a probe stands for it).
fn answers_in_place(plan: &Plan) -> bool {
    plan.inline && plan.tool.item.sig.asyncness.is_none() && plan.kind == Kind::Read
}

/// `early`, an answer made before the tool's own (a parameter the call
/// cannot provide, such as missing state), as the generated invoke returns
/// it: as it is from the future of a tool that waits, as an [`Answering`]
/// from one that answers in place.
fn answered(plan: &Plan, early: TokenStream) -> TokenStream {
    let krate = &plan.krate;
    if answers_in_place(plan) {
        quote!(#krate::__private::Answering::from(#early))
    } else {
        early
    }
}

/// Takes the parameters from the call and calls the function, binding
/// `__ret`; a failed extraction answers the call, and the function does not
/// run. A synchronous function runs, with its extractions, where blocking
/// is allowed (`mcp_light::__private::run_sync`), unless it is `inline`,
/// and a panic there answers the call as an error; an `async fn` is
/// awaited where it is.
fn call(plan: &Plan, extractions: &[(Ident, TokenStream)], args: &[TokenStream]) -> TokenStream {
    let krate = &plan.krate;
    let fn_ident = super::callee(plan);
    if plan.tool.item.sig.asyncness.is_some() || plan.inline {
        let rejected = answered(
            plan,
            quote!(#krate::__private::rejected(&__responder, error)),
        );
        let rejected = quote! {
            ::core::result::Result::Err(error) => {
                return #rejected;
            }
        };
        let await_ = plan.tool.item.sig.asyncness.map(|_| quote!(.await));
        let extractions = extractions.iter().map(|(binding, taken)| {
            quote! {
                let #binding = match #taken {
                    ::core::result::Result::Ok(taken) => taken,
                    #rejected
                };
            }
        });
        return quote! {
            #(#extractions)*
            let __ret = #fn_ident(#(#args),*) #await_;
        };
    }
    // The call's context and arguments move to the blocking thread; the
    // borrows and extractions are taken there. The result leaves the
    // closure spanned at the return type, which a result that borrows what
    // the closure owns (an `impl Trait` capturing `&self`) is reported at.
    let extractions = extractions
        .iter()
        .map(|(binding, taken)| quote!(let #binding = #taken?;));
    let returned =
        quote_spanned!(success_span(plan)=> ::core::result::Result::Ok(#fn_ident(#(#args),*)));
    quote! {
        let __ret = match #krate::__private::run_sync(
            move || -> ::core::result::Result<_, #krate::ToolError> {
                #(#extractions)*
                #returned
            },
        )
        .await
        {
            ::core::result::Result::Ok(::core::result::Result::Ok(ret)) => ret,
            ::core::result::Result::Ok(::core::result::Result::Err(error)) => {
                return #krate::__private::rejected(&__responder, error);
            }
            ::core::result::Result::Err(unfinished) => {
                return #krate::__private::unfinished(&__responder, unfinished);
            }
        };
    }
}
