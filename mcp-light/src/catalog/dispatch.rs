//! Group dispatchers: one published tool that routes `resource` and
//! `action` to the registered tools.
//!
//! A dispatcher's schema carries `continuation_token`, so writes routed
//! through it take outcome 1; everything else — envelope, outcome decision,
//! redemption — is the flat path's own code, consulted with the
//! dispatcher's schema instead of the tool's.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use crate::call::args;
use crate::catalog::registry::{PublishedTool, Registry};
use crate::error::tool::BuildError;
use crate::heavy::{self, HeavyConfig};
use crate::invoke::RoutedAction;
use crate::tool::output_schema::Described;
use crate::tool::schema::{self, PublishedSchema, VERIFY};

/// The top-level field naming the resource.
const RESOURCE: &str = "resource";
/// The top-level field naming the action.
const ACTION: &str = "action";
/// The top-level field carrying the routed tool's arguments.
const PARAMS: &str = "params";
/// The top-level flag that asks for an action's `params` schema instead of
/// running it.
const DESCRIBE: &str = "describe";

/// What a call through a dispatcher asks for.
pub(crate) enum Route<'r> {
    /// Run `tool` with `args`.
    Run {
        tool: &'r PublishedTool,
        args: Map<String, Value>,
        routed: RoutedAction,
    },
    /// `describe: true`: the action's `params` schema, nothing run; `tool`
    /// is the tool the action reaches, whose scopes a caller needs to read
    /// it.
    Describe {
        tool: &'r PublishedTool,
        answer: Described<'r>,
    },
}

/// One tool that reaches many: `{resource, action, params, verify, ...}`.
///
/// Build it with [`ServerBuilder::with_dispatcher`](crate::ServerBuilder::with_dispatcher).
#[derive(Debug, Clone)]
pub struct Dispatcher {
    name: String,
    description: String,
    input_schema: PublishedSchema,
    /// resource → action → tool name.
    routes: BTreeMap<&'static str, BTreeMap<&'static str, &'static str>>,
}

impl Dispatcher {
    /// A dispatcher named `name` over every tool of `registry` that has both
    /// a resource and an action.
    pub(crate) fn build(
        name: String,
        registry: &Registry,
        heavy: &HeavyConfig,
    ) -> Result<Dispatcher, BuildError> {
        if let Some(tool) = registry.get(&name) {
            return Err(BuildError::DispatcherNameTaken {
                name,
                function: tool.def().function().to_owned(),
            });
        }
        let mut routes: BTreeMap<&'static str, BTreeMap<&'static str, &'static str>> =
            BTreeMap::new();
        for tool in registry.iter() {
            let def = tool.def();
            let (Some(resource), Some(action)) = (def.resource(), def.action()) else {
                continue;
            };
            if let Some(first) = routes
                .entry(resource)
                .or_default()
                .insert(action, def.name())
            {
                return Err(BuildError::AmbiguousRoute {
                    dispatcher: name,
                    resource: resource.to_owned(),
                    action: action.to_owned(),
                    first: registry
                        .get(first)
                        .map_or(first, |t| t.def().function())
                        .to_owned(),
                    second: def.function().to_owned(),
                });
            }
        }
        let description = describe(&routes);
        let input_schema = PublishedSchema::new(input_schema(&routes, heavy));
        Ok(Dispatcher {
            name,
            description,
            input_schema,
            routes,
        })
    }

    /// A dispatcher named `name` over `routes` (resource → action → tool
    /// name): the tools of a composed handler, whose names are known only
    /// when the server is built.
    pub(crate) fn over(
        name: String,
        routes: BTreeMap<&'static str, BTreeMap<&'static str, &'static str>>,
        heavy: &HeavyConfig,
    ) -> Dispatcher {
        Dispatcher {
            description: describe(&routes),
            input_schema: PublishedSchema::new(input_schema(&routes, heavy)),
            name,
            routes,
        }
    }

    /// The dispatcher as a caller sees it who may use only the tools
    /// `allows` names: its other actions gone from its routes, its
    /// description and its schema's enums. It may have none left
    /// ([`Dispatcher::reaches_nothing`]).
    pub(crate) fn only(
        &self,
        registry: &Registry,
        heavy: &HeavyConfig,
        allows: impl Fn(&str) -> bool,
    ) -> Dispatcher {
        let routes: BTreeMap<_, BTreeMap<_, _>> = self
            .routes
            .iter()
            .map(|(resource, actions)| {
                let actions = actions
                    .iter()
                    .filter(|(_, tool)| registry.get(tool).is_some() && allows(tool))
                    .map(|(action, tool)| (*action, *tool))
                    .collect::<BTreeMap<_, _>>();
                (*resource, actions)
            })
            .filter(|(_, actions)| !actions.is_empty())
            .collect();
        Dispatcher {
            name: self.name.clone(),
            description: describe(&routes),
            input_schema: PublishedSchema::new(input_schema(&routes, heavy)),
            routes,
        }
    }

    /// Whether it routes to no tool at all: a cut that allows none of its
    /// actions ([`Dispatcher::only`]), which is not listed.
    pub(crate) fn reaches_nothing(&self) -> bool {
        self.routes.is_empty()
    }

    /// The dispatcher's tool name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The names of the tools this dispatcher reaches.
    pub(crate) fn routed_tools(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.routes
            .values()
            .flat_map(|actions| actions.values().copied())
    }

    /// The resource and action under which this dispatcher reaches the tool
    /// named `tool`, if it does.
    pub(crate) fn route_to(&self, tool: &str) -> Option<(&'static str, &'static str)> {
        self.routes.iter().find_map(|(resource, actions)| {
            actions
                .iter()
                .find(|(_, name)| **name == tool)
                .map(|(action, _)| (*resource, *action))
        })
    }

    /// The name of the tool `resource` and `action` route to, if any.
    pub(crate) fn routed(&self, resource: &str, action: &str) -> Option<&'static str> {
        self.routes.get(resource)?.get(action).copied()
    }

    /// The input schema `tools/list` publishes for it.
    pub fn input_schema(&self) -> &Arc<Map<String, Value>> {
        self.input_schema.schema()
    }

    /// Whether its published schema discloses continuation — it does,
    /// by construction; read from the schema like any tool's.
    pub fn discloses_continuation(&self) -> bool {
        self.input_schema.discloses_continuation()
    }

    /// The tool as `tools/list` describes it.
    pub fn to_tool(&self) -> Tool {
        let mut tool = Tool::new(
            self.name.clone(),
            self.description.clone(),
            Arc::clone(self.input_schema.schema()),
        );
        // It reaches writes and destroys, so it claims no read-only hint.
        let mut annotations = ToolAnnotations::default();
        annotations.read_only_hint = Some(false);
        tool.annotations = Some(annotations);
        tool
    }

    /// Removes the routing fields from a call that redeems a token: the
    /// token names its result, so `resource`, `action` and `params`, if
    /// sent, say nothing more.
    pub(crate) fn drop_routing(&self, args: &mut Map<String, Value>) {
        for field in [RESOURCE, ACTION, PARAMS, DESCRIBE] {
            args::take(args, field);
        }
    }

    /// Picks the tool a call is for and turns the call's arguments into that
    /// tool's: `params`, plus `verify` and the negotiation fields from the
    /// top level. With `describe: true`, answers the action's `params`
    /// schema instead.
    ///
    /// `shown` is the dispatcher as the caller sees it, when that is less
    /// ([`Dispatcher::only`]): a refusal lists only its resources and
    /// actions. A call that names an action the caller is not shown is
    /// still routed, for the caller's scopes to refuse by name.
    pub(crate) fn route<'r>(
        &self,
        registry: &'r Registry,
        mut args: Map<String, Value>,
        shown: Option<&Dispatcher>,
    ) -> Result<Route<'r>, RouteError> {
        let picked = self.pick(&mut args, shown.unwrap_or(self))?;
        let Some(tool) = registry.get(picked.tool) else {
            return Err(RouteError::UnknownAction {
                action: picked.action.to_owned(),
                resource: picked.resource.to_owned(),
                actions: String::new(),
            });
        };
        if picked.describe {
            return Ok(Route::Describe {
                tool,
                answer: describe_action(tool),
            });
        }
        let routed = RoutedAction {
            resource: tool.def().resource().unwrap_or_default(),
            action: tool.def().action().unwrap_or_default(),
            params_schema: Arc::clone(tool.described_schema()),
        };
        let params = self.params(args).map_err(|refused| match refused {
            Refused::Route(error) => error,
            Refused::ParamsNotAnObject(problem) => RouteError::Taught(routed.teach(&problem)),
        })?;
        Ok(Route::Run {
            tool,
            args: params,
            routed,
        })
    }

    /// What a call's `resource`, `action` and `describe` name, taken off
    /// `args`. `shown` is the dispatcher as the caller sees it: an error
    /// lists only what it shows, and a resource it hides is unknown.
    pub(crate) fn pick(
        &self,
        args: &mut Map<String, Value>,
        shown: &Dispatcher,
    ) -> Result<Picked, RouteError> {
        let name = &self.name;
        let resources = || shown.routes.keys().copied().collect::<Vec<_>>().join(", ");
        let resource = match args::take(args, RESOURCE) {
            Some(Value::String(resource)) => resource,
            None => {
                return Err(RouteError::NoResource {
                    dispatcher: name.clone(),
                    resources: resources(),
                });
            }
            Some(other) => {
                return Err(RouteError::ResourceNotAString {
                    resources: resources(),
                    got: other,
                });
            }
        };
        let unknown_resource = |resource| RouteError::UnknownResource {
            dispatcher: name.clone(),
            resource,
            resources: resources(),
        };
        let Some((&resource_name, actions)) = self.routes.get_key_value(resource.as_str()) else {
            return Err(unknown_resource(resource));
        };
        // The actions the caller is shown; none when the whole resource is
        // hidden from it.
        let shown_actions = shown.routes.get(resource.as_str());
        let action_list = || {
            shown_actions
                .into_iter()
                .flat_map(|actions| actions.keys().copied())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let action = match args::take(args, ACTION) {
            Some(Value::String(action)) => action,
            None if shown_actions.is_none() => return Err(unknown_resource(resource)),
            None => {
                return Err(RouteError::NoAction {
                    dispatcher: name.clone(),
                    resource,
                    actions: action_list(),
                });
            }
            Some(_) if shown_actions.is_none() => return Err(unknown_resource(resource)),
            Some(other) => {
                return Err(RouteError::ActionNotAString {
                    resource,
                    actions: action_list(),
                    got: other,
                });
            }
        };
        let Some((&action_name, &tool)) = actions.get_key_value(action.as_str()) else {
            if shown_actions.is_none() {
                return Err(unknown_resource(resource));
            }
            return Err(RouteError::UnknownAction {
                action,
                resource,
                actions: action_list(),
            });
        };
        let describe = match args::take(args, DESCRIBE) {
            Some(Value::Bool(describe)) => describe,
            None | Some(Value::Null) => false,
            Some(other) => return Err(RouteError::DescribeNotABool { got: other }),
        };
        Ok(Picked {
            resource: resource_name,
            action: action_name,
            tool,
            describe,
        })
    }

    /// The routed tool's arguments from what is left of a call's once
    /// [`pick`](Dispatcher::pick) took its routing: `params`, plus
    /// `verify` and the negotiation fields from the top level.
    pub(crate) fn params(
        &self,
        mut args: Map<String, Value>,
    ) -> Result<Map<String, Value>, Refused> {
        let mut params = match args::take(&mut args, PARAMS) {
            Some(Value::Object(params)) => params,
            None | Some(Value::Null) => Map::new(),
            Some(other) => {
                return Err(Refused::ParamsNotAnObject(format!(
                    "`{PARAMS}` must be a JSON object of the action's arguments; got {other}"
                )));
            }
        };
        for field in std::iter::once(VERIFY).chain(heavy::NEGOTIATION_FIELDS) {
            if let Some(value) = args::take(&mut args, field) {
                params.insert(field.to_owned(), value);
            }
        }
        if let Some(unknown) = args.keys().next() {
            return Err(Refused::Route(RouteError::UnknownField {
                dispatcher: self.name.clone(),
                field: unknown.clone(),
            }));
        }
        Ok(params)
    }
}

/// The tool a call through a dispatcher reaches, by the resource and
/// action it names, and whether it asks only for the action's schema.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Picked {
    pub(crate) resource: &'static str,
    pub(crate) action: &'static str,
    pub(crate) tool: &'static str,
    pub(crate) describe: bool,
}

/// Why a dispatcher's call has no arguments for the routed tool.
#[derive(Debug)]
pub(crate) enum Refused {
    /// A top-level field the dispatcher does not take.
    Route(RouteError),
    /// `params` is not an object: the sentence saying so, to be taught
    /// with the schema it must match.
    ParamsNotAnObject(String),
}

/// Why a dispatcher could not route a call: each sentence names what is
/// wrong and what the dispatcher takes instead.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RouteError {
    #[error("`{dispatcher}` needs `{RESOURCE}`, one of: {resources}")]
    NoResource {
        dispatcher: String,
        resources: String,
    },
    #[error("`{RESOURCE}` must be a string, one of: {resources}; got {got}")]
    ResourceNotAString { resources: String, got: Value },
    #[error("unknown resource `{resource}` for `{dispatcher}`; resources: {resources}")]
    UnknownResource {
        dispatcher: String,
        resource: String,
        resources: String,
    },
    #[error("`{dispatcher}` needs `{ACTION}`; for `{resource}` one of: {actions}")]
    NoAction {
        dispatcher: String,
        resource: String,
        actions: String,
    },
    #[error("`{ACTION}` must be a string; for `{resource}` one of: {actions}; got {got}")]
    ActionNotAString {
        resource: String,
        actions: String,
        got: Value,
    },
    #[error("unknown action `{action}` for resource `{resource}`; actions: {actions}")]
    UnknownAction {
        action: String,
        resource: String,
        actions: String,
    },
    #[error(
        "`{DESCRIBE}` must be true (to get the action's `{PARAMS}` schema) or false; got {got}"
    )]
    DescribeNotABool { got: Value },
    /// `params` that is no object, with the schema it must match.
    #[error("{0}")]
    Taught(String),
    #[error(
        "unknown field `{field}` for `{dispatcher}`; the top level takes {RESOURCE}, {ACTION}, \
         {PARAMS}, {VERIFY}, {DESCRIBE} and {}, and the action's arguments go in `{PARAMS}`",
        heavy::NEGOTIATION_FIELDS.join(", ")
    )]
    UnknownField { dispatcher: String, field: String },
}

/// What `describe: true` answers: the action's description and the schema
/// its `params` must match — the routed tool's parameters, compact, as its
/// flat tool publishes them without the fields the dispatcher takes at its
/// top level (`verify`, the negotiation fields).
fn describe_action(tool: &PublishedTool) -> Described<'_> {
    let description = tool.def().description();
    Described::new(
        (!description.is_empty()).then_some(description),
        tool.described_schema(),
    )
}

fn describe(routes: &BTreeMap<&'static str, BTreeMap<&'static str, &'static str>>) -> String {
    let per_resource: Vec<String> = routes
        .iter()
        .map(|(resource, actions)| {
            let actions: Vec<&str> = actions.keys().copied().collect();
            format!("{resource}: {}", actions.join(", "))
        })
        .collect();
    format!(
        "Runs an action on a resource ({}). `params` holds the action's arguments.",
        per_resource.join("; ")
    )
}

fn input_schema(
    routes: &BTreeMap<&'static str, BTreeMap<&'static str, &'static str>>,
    heavy: &HeavyConfig,
) -> Map<String, Value> {
    let resources: Vec<&str> = routes.keys().copied().collect();
    let mut actions: Vec<&str> = routes.values().flat_map(|a| a.keys().copied()).collect();
    actions.sort_unstable();
    actions.dedup();
    let mut properties = Map::new();
    properties.insert(
        RESOURCE.into(),
        json!({"type": "string", "enum": resources}),
    );
    properties.insert(ACTION.into(), json!({"type": "string", "enum": actions}));
    properties.insert(PARAMS.into(), json!({"type": "object"}));
    properties.insert(
        DESCRIBE.into(),
        json!({"type": "boolean", "description": "Answer the action's params schema; run nothing."}),
    );
    properties.insert(VERIFY.into(), schema::verify_property());
    properties.extend(heavy::negotiation_properties(heavy));
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("additionalProperties".into(), false.into());
    schema
}
