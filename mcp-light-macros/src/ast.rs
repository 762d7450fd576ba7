//! A tool function, turned into the crate's own model.

use proc_macro2::TokenStream;
use syn::ext::IdentExt;
use syn::{
    Attribute, Expr, ExprLit, FnArg, GenericArgument, Ident, ItemFn, Lit, Meta, Pat, PathArguments,
    ReturnType, Type,
};

use crate::attr::{Attr, ParamAttrs, ToolArgs};
use crate::ctxt::Ctxt;
use crate::symbol::DOC;

/// One annotated function.
pub struct Tool {
    /// The function as it is emitted: tool attributes and parameter
    /// attributes removed.
    pub item: ItemFn,
    /// The arguments of the attribute being expanded, then those of any other
    /// tool attribute found on the function (C19).
    pub attrs: Vec<ToolArgs>,
    /// The doc comment, lines trimmed and joined with `\n`.
    pub docs: String,
    pub params: Vec<Param>,
    pub output: Output,
}

pub struct Param {
    /// The parameter's name; `None` when its pattern is not a plain name.
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

/// What a parameter receives.
#[derive(Copy, Clone, PartialEq, Eq)]
pub enum Role {
    /// An argument of the call: a field of the input schema.
    Arg,
    /// The `mcp_light::Context`, by reference or by value.
    Context { by_ref: bool },
}

/// What the function returns.
pub enum Output {
    /// Nothing.
    Unit,
    /// `Result<T, E>` (any type whose last segment is `Result`); `ok` is `T`
    /// when written.
    Result { ok: Option<Type> },
    /// Any other type.
    Plain(Type),
}

impl Output {
    /// The type a successful call serializes.
    pub fn success_type(&self) -> Option<&Type> {
        match self {
            Output::Unit => None,
            Output::Result { ok } => ok.as_ref(),
            Output::Plain(ty) => Some(ty),
        }
    }

    /// Whether the success type is written `Vec<..>`.
    pub fn returns_vec(&self) -> bool {
        self.success_type()
            .is_some_and(|ty| last_segment(ty).is_some_and(|(ident, _)| ident == "Vec"))
    }

    /// Whether the success type is nothing or `()`.
    pub fn returns_unit(&self) -> bool {
        match self.success_type() {
            None => matches!(self, Output::Unit),
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
        let docs = docs(&item.attrs);
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
        let output = match &item.sig.output {
            ReturnType::Default => Output::Unit,
            ReturnType::Type(_, ty) => Output::new(ty),
        };
        Tool {
            item,
            attrs,
            docs,
            params,
            output,
        }
    }
}

impl Param {
    fn new(pat: &Pat, ty: &Type, attrs: ParamAttrs) -> Param {
        let ident = match pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
            _ => None,
        };
        let role = match ungroup(ty) {
            Type::Reference(r) if is_context(&r.elem) => Role::Context { by_ref: true },
            ty if is_context(ty) => Role::Context { by_ref: false },
            _ => Role::Arg,
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

impl Output {
    fn new(ty: &Type) -> Output {
        match last_segment(ty) {
            Some((ident, arguments)) if ident == "Result" => {
                let ok = match arguments {
                    PathArguments::AngleBracketed(args) => {
                        args.args.iter().find_map(|arg| match arg {
                            GenericArgument::Type(ty) => Some(ty.clone()),
                            _ => None,
                        })
                    }
                    _ => None,
                };
                Output::Result { ok }
            }
            _ => Output::Plain(ty.clone()),
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

fn is_context(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|(ident, _)| ident == "Context")
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
