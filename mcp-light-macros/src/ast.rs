//! A tool function, turned into the crate's own model.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, Expr, ExprLit, FnArg, GenericArgument, Ident, ItemFn, Lit, Meta, Pat, Path,
    PathArguments, Receiver, ReturnType, Type, TypePath, TypeReference,
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
    /// `self` as the function takes it, for a method.
    pub receiver: Option<Receiver>,
    /// The `impl` block a method is declared in (`#[mcp_tools]`); `None`
    /// for a free function.
    pub owner: Option<Owner>,
}

/// The `impl` block of a method in `#[mcp_tools]`.
pub struct Owner {
    /// The impl's type, which generated code names where the method's own
    /// `Self` is out of reach (items nested in the tool's definition).
    pub self_ty: Type,
    /// The impl's methods that carry a tool attribute, which a write's
    /// `retrieve = Self::...` may name.
    pub tools: Vec<ToolMethod>,
    /// `#[mcp_tools(crate = path)]`: where mcp-light is reachable, for every
    /// tool of the impl that does not say.
    pub krate: Option<Path>,
}

impl Owner {
    /// `ty` with every `Self` in it replaced by the impl's type.
    pub fn resolve_type(&self, ty: &Type) -> Type {
        let mut ty = ty.clone();
        ReplaceSelf(&self.self_ty).visit_type_mut(&mut ty);
        ty
    }

    /// `path` with a leading `Self` replaced by the impl's type path, when
    /// it is one: `Self::device_get` becomes `Fleet::device_get`.
    pub fn resolve_path(&self, path: &Path) -> Path {
        let mut path = path.clone();
        ReplaceSelf(&self.self_ty).visit_path_mut(&mut path);
        path
    }
}

/// A method of a `#[mcp_tools]` impl that carries a tool attribute.
#[derive(Clone)]
pub struct ToolMethod {
    pub ident: Ident,
    /// Whether its attribute says `action = "retrieve"`.
    pub retrieve: bool,
}

/// Replaces `Self`, as a type and as a path's first segment, by the impl's
/// type.
struct ReplaceSelf<'a>(&'a Type);

impl VisitMut for ReplaceSelf<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(TypePath {
            qself: None, path, ..
        }) = ty
            && path.is_ident("Self")
        {
            *ty = self.0.clone();
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    fn visit_path_mut(&mut self, path: &mut Path) {
        if path.segments.len() > 1
            && path.leading_colon.is_none()
            && path.segments[0].ident == "Self"
            && let Type::Path(TypePath {
                qself: None,
                path: owner,
                ..
            }) = self.0
        {
            let rest: Vec<_> = path.segments.iter().skip(1).cloned().collect();
            let mut resolved = owner.clone();
            resolved.segments.extend(rest);
            *path = resolved;
        }
        syn::visit_mut::visit_path_mut(self, path);
    }
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
    /// rmcp's `Parameters<T>`, under any pattern (`Parameters(req)`,
    /// `params`): the whole arguments object, `T`'s schema the tool's input
    /// schema. Read from the type's name; generated code has the compiler
    /// confirm the type is rmcp's.
    Whole,
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
    /// Builds the model of the free function `item`, annotated with
    /// `attr(args)`.
    pub fn from_item(cx: &Ctxt, attr: Attr, args: TokenStream, item: ItemFn) -> Tool {
        let first = ToolArgs::parse(cx, attr, TokenStream::new(), args);
        Tool::build(cx, vec![first], item, None)
    }

    /// Builds the model of a method of a `#[mcp_tools]` impl, whose tool
    /// attributes are all on it.
    pub fn from_method(cx: &Ctxt, item: ItemFn, owner: Owner) -> Tool {
        Tool::build(cx, Vec::new(), item, Some(owner))
    }

    fn build(cx: &Ctxt, mut attrs: Vec<ToolArgs>, mut item: ItemFn, owner: Option<Owner>) -> Tool {
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
        let mut receiver = None;
        let params = item
            .sig
            .inputs
            .iter_mut()
            .filter_map(|input| match input {
                FnArg::Typed(typed) => {
                    let taken = std::mem::take(&mut typed.attrs);
                    let attrs = ParamAttrs::parse(cx, taken);
                    typed.attrs = attrs.kept.clone();
                    let ty = match &owner {
                        Some(owner) => owner.resolve_type(&typed.ty),
                        None => (*typed.ty).clone(),
                    };
                    Some(Param::new(&typed.pat, &ty, attrs))
                }
                FnArg::Receiver(own) => {
                    receiver = Some(own.clone());
                    None
                }
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
            receiver,
            owner,
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
            _ if is_parameters(ty) => Role::Whole,
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

/// Whether `ty` is written `Parameters<T>` (any path to it): rmcp's
/// whole-arguments wrapper, as generated code has the compiler confirm.
fn is_parameters(ty: &Type) -> bool {
    matches!(
        last_segment(ty),
        Some((ident, PathArguments::AngleBracketed(args)))
            if ident == "Parameters" && args.args.len() == 1
    )
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
