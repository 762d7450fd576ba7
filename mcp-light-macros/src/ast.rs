//! A tool function, turned into the crate's own model.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{
    Attribute, Expr, ExprLit, FnArg, GenericArgument, Ident, ItemFn, Lit, Meta, Pat, PathArguments,
    ReturnType, Type, TypeReference,
};

use crate::attr::{Attr, ParamAttrs, ToolArgs};
use crate::ctxt::Ctxt;
use crate::symbol::{CFG, DOC, SCHEMARS};

/// One annotated function.
pub struct Tool {
    /// The function as it is emitted: tool attributes and parameter
    /// attributes removed.
    pub item: ItemFn,
    /// The arguments of the attribute being expanded, then those of any other
    /// tool attribute found on the function.
    pub attrs: Vec<ToolArgs>,
    /// The doc comment, lines trimmed and joined with `\n`.
    pub docs: String,
    /// The function's `#[cfg(...)]` attributes, which its handle carries
    /// too: a function compiled out takes its handle with it.
    pub cfgs: Vec<Attribute>,
    pub params: Vec<Param>,
    pub output: Output,
    /// The function's own `#[schemars(...)]` attributes, taken off it and
    /// put on its arguments' struct: what the input schema says as a whole.
    pub schemars: Vec<Attribute>,
}

pub struct Param {
    /// The parameter's name, when its pattern is a plain name.
    pub ident: Option<Ident>,
    pub pat: Pat,
    pub ty: Type,
    pub role: Role,
    pub attrs: ParamAttrs,
}

impl Param {
    /// The argument's name in the tool's input: the parameter's name, or its
    /// serde rename.
    pub fn key(&self) -> Option<String> {
        let ident = self.ident.as_ref()?;
        Some(
            self.attrs
                .rename
                .clone()
                .unwrap_or_else(|| ident.unraw().to_string()),
        )
    }
}

/// What a parameter receives, read from its form; the generated code then
/// has the compiler check that its type can play the role.
#[derive(Clone)]
pub enum Role {
    /// A plain name with an owned type (`id: u64`, `mut name: String`): an
    /// argument of the call, a field of the input schema.
    Arg,
    /// A reference (`ctx: &Context`, `caller: &Caller`): borrowed from the
    /// call.
    Borrowed(TypeReference),
    /// A destructuring pattern (`State(db): State<Db>`): taken from the call.
    Extracted,
    /// Any other form (a tuple pattern, `ref x`, `_` with an owned type).
    Unnamed,
}

/// What the function returns, as written. Whether it is a fallible result
/// or a plain value is left to the compiler (the generated code asks trait
/// resolution, so `ApiResult<T>` or `anyhow::Result<T>` work); the written
/// type only aims messages and spans.
pub struct Output {
    /// `None` without `->`.
    pub ty: Option<Type>,
}

impl Output {
    /// Where the success type is written: `T` in a type written
    /// `Result<T, ..>` (`io::Result<T>` too), else the whole type. A guess
    /// that places errors about the success type and words hints; the checks
    /// themselves run on the type the compiler infers.
    pub fn written_success(&self) -> Option<&Type> {
        let ty = self.ty.as_ref()?;
        match last_segment(ty) {
            Some((ident, PathArguments::AngleBracketed(args))) if ident == "Result" => {
                args.args.iter().find_map(|arg| match arg {
                    GenericArgument::Type(ok) => Some(ok),
                    _ => None,
                })
            }
            _ => Some(ty),
        }
    }

    /// The span errors about the success type point at.
    pub fn span(&self) -> Span {
        self.written_success()
            .map_or_else(Span::call_site, |ty| ty.span())
    }

    /// Whether the success type is written `Vec<..>`.
    pub fn returns_vec(&self) -> bool {
        self.written_success()
            .is_some_and(|ty| last_segment(ty).is_some_and(|(ident, _)| ident == "Vec"))
    }

    /// Whether the success type is nothing or `()`.
    pub fn returns_unit(&self) -> bool {
        match self.written_success() {
            None => true,
            Some(Type::Tuple(tuple)) => tuple.elems.is_empty(),
            Some(_) => false,
        }
    }
}

impl Tool {
    /// Builds the model of `item`, annotated with `attr(args)`.
    pub fn from_item(cx: &Ctxt, attr: Attr, args: TokenStream, mut item: ItemFn) -> Tool {
        let mut attrs = vec![ToolArgs::parse(cx, attr, TokenStream::new(), args)];
        item.attrs
            .retain(|attribute| match Attr::from_path(attribute.path()) {
                Some(other) => {
                    attrs.push(ToolArgs::parse_attribute(cx, other, attribute));
                    false
                }
                None => true,
            });
        let mut schemars = Vec::new();
        item.attrs.retain(|attribute| {
            let own = attribute.path() == SCHEMARS;
            if own {
                schemars.push(attribute.clone());
            }
            !own
        });
        let docs = docs(&item.attrs);
        let cfgs = item
            .attrs
            .iter()
            .filter(|attr| attr.path() == CFG)
            .cloned()
            .collect();
        let params = item
            .sig
            .inputs
            .iter_mut()
            .filter_map(|input| match input {
                FnArg::Typed(typed) => {
                    let taken = std::mem::take(&mut typed.attrs);
                    let attrs = ParamAttrs::parse(cx, taken);
                    typed.attrs = attrs.kept.clone();
                    Some(Param::new(&typed.pat, &typed.ty, attrs))
                }
                FnArg::Receiver(_) => None,
            })
            .collect();
        let output = Output {
            ty: match &item.sig.output {
                ReturnType::Default => None,
                ReturnType::Type(_, ty) => Some((**ty).clone()),
            },
        };
        Tool {
            item,
            attrs,
            docs,
            cfgs,
            params,
            output,
            schemars,
        }
    }
}

impl Param {
    fn new(pat: &Pat, ty: &Type, attrs: ParamAttrs) -> Param {
        let ident = match pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
            _ => None,
        };
        let role = match (ungroup(ty), pat) {
            (Type::Reference(reference), _) => Role::Borrowed(reference.clone()),
            (_, Pat::TupleStruct(_) | Pat::Struct(_)) => Role::Extracted,
            _ if ident.is_some() => Role::Arg,
            _ => Role::Unnamed,
        };
        Param {
            ident,
            pat: pat.clone(),
            ty: ty.clone(),
            role,
            attrs,
        }
    }
}

/// Strips invisible groups and parentheses around a type.
pub fn ungroup(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => ungroup(&group.elem),
        Type::Paren(paren) => ungroup(&paren.elem),
        ty => ty,
    }
}

fn last_segment(ty: &Type) -> Option<(&Ident, &PathArguments)> {
    match ungroup(ty) {
        Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last()?;
            Some((&last.ident, &last.arguments))
        }
        _ => None,
    }
}

/// The doc comment: each line trimmed, joined with `\n`, blank lines at the
/// ends dropped (blank lines inside stay, as paragraph breaks).
fn docs(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs {
        if let Meta::NameValue(nv) = &attr.meta
            && nv.path == DOC
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            // `split`, not `lines`: a blank `///` line is a paragraph break.
            lines.extend(s.value().split('\n').map(|line| line.trim().to_owned()));
        }
    }
    let first = lines
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(lines.len());
    let last = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |i| i + 1);
    lines.get(first..last).unwrap_or_default().join("\n")
}
