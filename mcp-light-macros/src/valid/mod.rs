//! Checks a tool model and decides what it is. Every mistake is recorded
//! with its span and a sentence saying how to fix it; nothing here emits
//! code. Here the plan a checked tool registers and [`check`], which runs
//! the checks; in [`args`] the checks of the tool attributes' arguments,
//! alone and across the function's attributes; in [`signature`] the
//! checks of the function's signature and of each parameter by its role.

use syn::Path;
use syn::ext::IdentExt;

use crate::ast::{Param, Role, Tool};
use crate::attr::{self, Annotations, Attr, TaskArg, WriteKind};
use crate::ctxt::Ctxt;

mod args;
mod signature;

use args::{
    check_annotations, check_combination, check_inline, check_retrieve, check_scopes, check_task,
    check_tool_name, merged, merged_crate, write_kind,
};
use signature::{check_params, check_signature, destroy_id};

/// What a checked tool registers.
pub struct Plan<'a> {
    pub tool: &'a Tool,
    pub name: String,
    /// `description = "..."`, else the doc comment.
    pub description: String,
    pub kind: Kind,
    pub resource: Option<String>,
    pub action: Option<String>,
    /// `retrieve = path`, a method's `Self::` resolved to the impl's type.
    pub retrieve: Option<Path>,
    /// What a destroy's envelope confirms as the id of what it deleted.
    pub destroy_id: Option<DestroyId<'a>>,
    /// rmcp's `Parameters<T>`, when the tool takes its arguments whole.
    pub whole: Option<&'a Param>,
    /// The path generated code reaches mcp-light by (`crate = path`).
    pub krate: Path,
    /// A synchronous function runs on the calling worker (`inline`), not
    /// on the blocking pool. Always `false` for an `async fn`.
    pub inline: bool,
    /// `task` on any of the tool's attributes.
    pub task: Option<TaskArg>,
    /// `schema = "as_written"` on any of the tool's attributes.
    pub schema_as_written: bool,
    /// `scopes = [...]` on one of the tool's attributes: the OAuth scopes a
    /// call needs, in the order written.
    pub scopes: Vec<String>,
    /// `view = false` on one of the tool's attributes.
    pub no_view: bool,
    /// `inline = N` on `#[mcp_heavy]`: the heavy read's own inline budget
    /// in bytes.
    pub inline_budget: Option<usize>,
    /// `annotations(...)`: what the author states, which wins over what
    /// the attribute implies.
    pub annotations: Option<&'a Annotations>,
}

/// Where a destroy's envelope takes its `id` from.
pub enum DestroyId<'a> {
    /// The identifying parameter, and its key in the input.
    Argument(&'a Param, String),
    /// The call's `id` (else `pk`) argument: the destroy takes rmcp's
    /// `Parameters<T>`, whose fields the macros cannot see.
    Called,
}

#[derive(Copy, Clone, PartialEq, Eq)]
pub enum Kind {
    Read,
    Heavy,
    Write { kind: WriteKind, status: u16 },
}

/// Checks `tool`; `None` when it has errors (recorded in `cx`).
pub fn check<'a>(cx: &Ctxt, tool: &'a Tool) -> Option<Plan<'a>> {
    check_combination(cx, &tool.attrs);
    check_signature(cx, tool);

    let light = tool.attrs.iter().find(|a| a.attr == Attr::Light);
    let heavy = tool.attrs.iter().any(|a| a.attr == Attr::Heavy);
    let write_kind = light.and_then(|light| write_kind(cx, tool, light));
    let kind = match (heavy, light, write_kind) {
        (true, _, _) => Kind::Heavy,
        (false, Some(light), Some((kind, _))) => Kind::Write {
            kind,
            status: light
                .status
                .map_or_else(|| kind.default_status(), |(code, _)| code),
        },
        _ => Kind::Read,
    };

    let name = merged(cx, &tool.attrs, |a| a.name.as_ref(), "name")
        .unwrap_or_else(|| tool.item.sig.ident.unraw().to_string());
    let description = merged(cx, &tool.attrs, |a| a.description.as_ref(), "description")
        .unwrap_or_else(|| tool.docs.clone());
    check_tool_name(cx, &tool.attrs, &name);
    let resource = merged(cx, &tool.attrs, |a| a.resource.as_ref(), "resource");
    let action = merged(cx, &tool.attrs, |a| a.action.as_ref(), "action")
        .or_else(|| write_kind.map(|(kind, _)| kind.as_str().to_owned()));
    let retrieve = light
        .and_then(|light| light.retrieve.as_ref())
        .and_then(|path| check_retrieve(cx, tool, path));
    let krate = attr::krate(
        merged_crate(cx, &tool.attrs).or(tool.owner.as_ref().and_then(|o| o.krate.as_ref())),
    );
    let inline = check_inline(cx, tool);
    let task = check_task(cx, tool);
    let scopes = check_scopes(cx, tool);
    let annotations = check_annotations(cx, tool, kind);

    let whole = check_params(cx, tool, kind);
    let destroy_id = match (kind, write_kind) {
        (
            Kind::Write {
                kind: WriteKind::Destroy,
                ..
            },
            Some(_),
        ) if whole.is_some() => Some(DestroyId::Called),
        (
            Kind::Write {
                kind: WriteKind::Destroy,
                ..
            },
            Some((_, span)),
        ) => destroy_id(cx, tool, span),
        _ => {
            let mut args = tool.params.iter().filter(|p| matches!(p.role, Role::Arg));
            if let Some(id) = args.find_map(|p| p.attrs.id.as_ref()) {
                cx.push(syn::Error::new_spanned(
                    id,
                    "`#[id]` marks the identifier of a `#[mcp_light(destroy)]` tool, and this tool \
                     is not a destroy: remove `#[id]`",
                ));
            }
            None
        }
    };

    if cx.has_errors() {
        return None;
    }
    Some(Plan {
        tool,
        name,
        description,
        kind,
        resource,
        action,
        retrieve,
        destroy_id,
        whole,
        krate,
        inline,
        task,
        schema_as_written: tool
            .attrs
            .iter()
            .any(|args| args.schema_as_written.is_some()),
        scopes,
        no_view: tool.attrs.iter().any(|args| args.no_view.is_some()),
        // Only `#[mcp_heavy]` takes it, and a function has one of those.
        inline_budget: tool
            .attrs
            .iter()
            .find_map(|args| args.inline_budget.map(|(budget, _)| budget)),
        annotations,
    })
}
