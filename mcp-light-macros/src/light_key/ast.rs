//! The struct `LightKey` is derived for, with each field's serialized name.

use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields, Generics, Ident, Type};

use super::attr::LightKeyArgs;
use super::case::RenameRule;
use crate::attr::{SerdeContainer, SerdeField};
use crate::ctxt::Ctxt;

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    /// The named fields; `None` for anything but a struct with named fields
    /// (the error is recorded).
    pub fields: Option<Vec<Field<'a>>>,
    pub args: LightKeyArgs,
}

pub struct Field<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    /// The key serde writes the field under.
    pub name: String,
    pub serde: SerdeField,
}

impl Field<'_> {
    /// Whether the field appears in the serialized object under its own key.
    pub fn is_serialized(&self) -> bool {
        self.serde.skip_ser.is_none() && self.serde.flatten.is_none()
    }

    /// Whether `written` names this field, by its Rust or serialized name.
    pub fn is_named(&self, written: &Ident) -> bool {
        let written = written.unraw().to_string();
        self.ident.unraw() == written || self.name == written
    }
}

impl<'a> Input<'a> {
    pub fn from_syn(cx: &Ctxt, input: &'a DeriveInput) -> Input<'a> {
        let args = LightKeyArgs::parse(cx, &input.attrs);
        let ident = &input.ident;
        let not_named = |what: &str, keyword: &dyn quote::ToTokens, fix: &str| {
            cx.error_spanned_by(
                quote::quote!(#keyword #ident),
                format_args!(
                    "LightKey needs a struct with named fields; `{ident}` is {what}: {fix}, \
                     or implement `LightKey` by hand"
                ),
            );
            None
        };
        let fields = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => {
                    let container = SerdeContainer::parse(&input.attrs);
                    let rule = container
                        .rename_all
                        .as_deref()
                        .and_then(RenameRule::from_str);
                    Some(named.named.iter().map(|f| Field::new(f, rule)).collect())
                }
                Fields::Unnamed(_) => not_named(
                    "a tuple struct, whose fields have no names to serve as envelope keys",
                    &data.struct_token,
                    "name its fields (`struct Key { id: u64 }`)",
                ),
                Fields::Unit => not_named(
                    "a unit struct, with no fields to identify it",
                    &data.struct_token,
                    "give it named fields",
                ),
            },
            Data::Enum(data) => not_named(
                "an enum",
                &data.enum_token,
                "derive LightKey on the structs its variants hold",
            ),
            Data::Union(data) => not_named("a union", &data.union_token, "use a struct"),
        };
        Input {
            ident,
            generics: &input.generics,
            fields,
            args,
        }
    }
}

impl<'a> Field<'a> {
    fn new(field: &'a syn::Field, rule: Option<RenameRule>) -> Field<'a> {
        let ident = field.ident.as_ref().expect("named field");
        let serde = SerdeField::parse(&field.attrs);
        let name = serde.rename_ser.clone().unwrap_or_else(|| {
            let rust_name = ident.unraw().to_string();
            rule.map_or_else(|| rust_name.clone(), |rule| rule.apply_to_field(&rust_name))
        });
        Field {
            ident,
            ty: &field.ty,
            name,
            serde,
        }
    }
}
