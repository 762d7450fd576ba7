// The crate's documentation is the repository's README (crates.io shows the
// same page; `README.md` here is a link to it). Its links point where they
// work on GitHub; the definitions below come first, and the first definition
// of a link wins, so rustdoc sends them to this build's pages instead.
//! [the contract]: crate::docs::contract
//! [recipes]: crate::docs::recipes
//! [writes]: crate::docs::writes
//! [heavy reads]: crate::docs::heavy_reads
//! [deploying]: crate::docs::deploying
//! [operating]: crate::docs::operating
//! [axum]: crate::docs::axum
//! [http by hand]: crate::docs::http_by_hand
//! [talking back]: crate::docs::talking_back
//! [tasks]: crate::docs::tasks
//! [content]: crate::docs::content
//! [coming from rmcp]: crate::docs::coming_from_rmcp
//! [conformance]: crate::docs::conformance
//! [docs]: crate::docs
//! [BENCHMARKS.md]: https://github.com/mcp-light/mcp-light/blob/main/BENCHMARKS.md
//! [inventory]: https://github.com/mcp-light/mcp-light/blob/main/examples/inventory/README.md
//! [apache]: https://github.com/mcp-light/mcp-light/blob/main/LICENSE-APACHE
//! [mit]: https://github.com/mcp-light/mcp-light/blob/main/LICENSE-MIT
//! [rmcp]: https://docs.rs/rmcp/3.11
#![doc = include_str!("../README.md")]
// docs.rs marks what each feature adds (`stdio`, `http`).
#![cfg_attr(docsrs, feature(doc_cfg))]
// The docs link to what the `http` feature adds (its transport, `auth`, the
// audit's HTTP checks). Without the feature those links read as plain
// names; a build with every feature (docs.rs's, and CI's) resolves each
// link, so one that is wrong fails there.
#![cfg_attr(not(feature = "http"), allow(rustdoc::broken_intra_doc_links))]
#![warn(missing_docs)]

// The runtime's modules, lowest layer first: each imports only from the
// ones above it in this list (the layering test keeps the order). Public
// modules are declared here, where their sources are.
#[cfg(feature = "apps")]
pub mod apps;
pub mod audit;
#[cfg(feature = "http")]
pub mod auth;
mod call;
pub mod catalog;
pub mod clients;
pub mod context;
mod continuation;
pub mod defaults;
pub mod docs;
mod error;
pub mod extract;
mod finding;
pub mod heavy;
mod invoke;
pub mod items;
mod limits;
mod output;
mod principal;
mod runtime;
mod server;
mod state;
pub mod store;
pub mod tasks;
pub mod telemetry;
pub mod testing;
pub mod token;
mod tool;
pub mod transport;
mod usage;
mod writes;

#[doc(hidden)]
pub mod __private;

pub use call::content::{Content, ContentAnswer};
pub use context::{Caller, Context};
pub use error::config::ConfigError;
pub use error::tool::{BuildError, ToolError};
pub use items::ItemStream;
pub use principal::Principal;
pub use server::{HandlerTool, HandlerTools, HandlerWrite, Server, ServerBuilder};
pub use state::State;
pub use writes::light_key::{BulkResult, KeyFields, LightKey};

/// Registers a plain tool.
///
/// ```text
/// #[mcp_tool(name = "...", description = "...", resource = "...", action = "...", crate = path,
///            inline, task, schema = "as_written", scopes = ["..."])]   // all optional
/// ```
///
/// The function's doc comment becomes the tool's description (unless
/// `description = "..."` says it, as on rmcp's `#[tool]`) and its result
/// the answer. `name` defaults to the function's name. On a method, the
/// attribute goes inside a [`mcp_tools`] impl. `resource` and
/// `action` let a dispatcher route to it; a tool with `action = "retrieve"`
/// can be named by a write's `retrieve = path`. `crate = path` names
/// mcp-light for a crate that re-exports it (`crate = my_api::mcp_light`):
/// every path the generated code uses goes through it. `inline` keeps a
/// synchronous function on the async worker that serves the call (see
/// below). `task` lets a long call answer as a task the client follows
/// by its id, and `task = "required"` runs the tool only as one
/// ([`tasks`]). `schema = "as_written"` publishes the input
/// schema as schemars writes it (`$schema`, `$defs`, titles, a nullable
/// value's `"type": [T, "null"]`) instead of compacting it and making it
/// portable ([`catalog::split_type_unions`]); the function's own `#[schemars(...)]` attributes (say
/// `#[schemars(extend("anyOf" = [...]))]`) describe its arguments as a
/// whole, with or without it. `scopes = ["inventory:read"]` names the
/// OAuth scopes a call needs: over HTTP with OAuth, a caller whose access
/// token lacks one is answered `403 insufficient_scope` naming it, before
/// the tool runs, whether it calls the tool or a dispatcher that routes to
/// it (see [`auth`]); without OAuth nothing is checked. All of these apply
/// to [`mcp_light`](macro@mcp_light) and [`mcp_heavy`](macro@mcp_heavy) too.
///
/// # Where it runs
///
/// An `async fn` runs on the runtime's async workers, like any future: it
/// must not block them. A synchronous `fn` may block (a database driver,
/// file IO, heavy computation), so it runs, with what it takes from the
/// call, on a thread of tokio's blocking pool (`spawn_blocking`), on a
/// multi-thread and a current-thread runtime alike: the workers go on
/// serving other calls meanwhile, and the server's tool deadline
/// ([`ServerBuilder::with_tool_deadline`](crate::ServerBuilder::with_tool_deadline)) answers the call on time even while
/// the function runs on (it cannot be stopped, and finishes in the
/// background). Outside any tokio runtime it runs inline. A panic answers
/// an `isError` result either way. Its arguments move to that thread, so
/// their types are `Send`.
///
/// The hand-off (a thread of the pool woken, the deadline's timer armed)
/// costs each call about 5,000 instructions and some microseconds: more
/// than the rest of a call to a trivial tool, nothing beside a query or a
/// file read. `inline` (`#[mcp_tool(inline)]`, also
/// `#[mcp_light(<kind>, inline)]` and `#[mcp_heavy(inline)]`) skips it for
/// a function that never blocks, one that only computes on its arguments
/// or reads memory: it then runs on the worker that polls the call, and a
/// slow one stalls every call that worker serves (the tool deadline cannot
/// answer for it: nothing waits beside it). An `inline` read answers in
/// place, without a future of its own, the cheapest call there is. `inline`
/// on an `async fn` does not compile.
///
/// # Parameters
///
/// A parameter's form says where its value comes from, and the compiler
/// checks that its type can play that role:
///
/// * a plain name with an owned type (`id: u64`, `mut name: String`,
///   `device: NewDevice`) is an **argument**: a field of the tool's input
///   schema (one JSON object), parsed from the call. Its type implements
///   `Deserialize` and `JsonSchema`; the parameter may carry `#[serde(...)]`
///   and `#[schemars(...)]`, and `#[header("Name")]` to have HTTP clients
///   mirror it in the `Mcp-Param-Name` header (`x-mcp-header`), which
///   rmcp's HTTP server checks against the argument on protocol 2026-07-28
///   (a required string, integer or boolean). A doc comment on it is the
///   argument's description.
/// * rmcp's `Parameters<T>`, under any pattern, is **the whole arguments
///   object**: `T`'s schema is the input schema, flat, and an argument `T`
///   does not declare is refused, naming the ones it does ([`mcp_tools`]).
/// * a reference (`ctx: &Context`, `caller: &Caller`) is **borrowed from the
///   call** ([`FromCallRef`](extract::FromCallRef)).
/// * a destructuring pattern (`State(db): State<Db>`) is **taken from the
///   call** ([`FromCall`](extract::FromCall)). [`State`] hands the tool host state registered
///   with [`ServerBuilder::with_state`](crate::ServerBuilder::with_state); [`ServerBuilder::build`] refuses a server
///   that lacks it.
///
/// # Result
///
/// A tool returns either a `Result<T, E>` whose error converts into
/// [`ToolError`] (`ToolError` itself, any `std::error::Error + Send + Sync +
/// 'static`, `Box<dyn Error + Send + Sync>`, `anyhow::Error`), whatever alias
/// it is written with (`ApiResult<T>`, `anyhow::Result<T>`,
/// `io::Result<T>`), where an `Err` answers an `isError` result carrying its
/// message; or any other `Serialize` type (`()` included), which is the
/// answer itself. A success that is MCP content ([`Content`],
/// `Vec<Content>`, [`CallToolResult`], any [`ContentAnswer`]) is answered as
/// content rather than JSON.
///
/// ```standalone_crate
/// use mcp_light::prelude::*;
/// use mcp_light::testing::AnswerExt;
/// use serde_json::json;
///
/// /// The application's own result alias.
/// type ApiResult<T> = Result<T, ToolError>;
///
/// /// The host's state.
/// struct Db {
///     sites: Vec<String>,
/// }
///
/// /// Fetch one site by slug.
/// #[mcp_tool(resource = "site", action = "retrieve")]
/// async fn site_retrieve(
///     State(db): State<Db>,
///     slug: String,
///     #[serde(default)] with_racks: bool,
/// ) -> ApiResult<String> {
///     match db.sites.iter().find(|site| **site == slug) {
///         Some(site) => Ok(format!("{site} {with_racks}")),
///         None => Err(ToolError::new(format!("no site {slug}"))),
///     }
/// }
///
/// /// Say who calls.
/// #[mcp_tool]
/// fn whoami(caller: &Caller) -> String {
///     caller.identity()
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = Server::from_registry().with_state(Db { sites: vec!["hq".into()] }).build()?;
/// let found = server.call("site_retrieve", json!({"slug": "hq"}), Caller::Process).await;
/// assert_eq!(found.json().unwrap(), json!({"result": "hq false"}));
/// let missing = server.call("site_retrieve", json!({"slug": "dc"}), Caller::Process).await;
/// assert_eq!(missing.error_text().unwrap(), "`site_retrieve` failed: no site dc");
/// let who = server.call("whoami", json!({}), Caller::Process).await;
/// assert_eq!(who.json().unwrap(), json!({"result": "process"}));
/// # Ok::<(), mcp_light::BuildError>(())
/// # }).unwrap();
/// ```
pub use mcp_light_macros::mcp_tool;

/// Makes a write tool answer a lean confirmation envelope.
///
/// ```text
/// #[mcp_light(<kind>, retrieve = path, resource = "...", action = "...", name = "...", description = "...",
///             status = 201, crate = path, inline, task, schema = "as_written", scopes = ["..."], view = false)]
/// ```
///
/// `<kind>` is one of `create`, `update`, `partial_update`, `destroy`,
/// `bulk_create`, `bulk_update`; it decides the envelope's shape and its
/// default `status_code` (201, 200, 200, 204, 201, 200). `retrieve` names the
/// `#[mcp_tool(action = "retrieve")]` function that reads what was written;
/// the compiler checks it, and without it a write whose schema gives no slot
/// for a continuation token answers its full result.
///
/// The tool's schema gains `verify: {"type": "boolean", "default": false}`;
/// `verify: true` answers the full result.
///
/// Parameters and results take their roles as with [`mcp_tool`]: a plainly
/// named parameter is an argument, `&Context`, `&Caller` and `State(db):
/// State<Db>` are taken from the call, and any `Result` whose error converts
/// into [`ToolError`] (an `ApiResult<T>` alias too) answers `Err` as an
/// `isError` result. The success type is checked where the function names
/// it: a single write's implements [`LightKey`]; a bulk write's is a list
/// ([`BulkResult`]); a destroy takes an `id` (or `pk`, or an argument marked
/// `#[id]`) and answers `{id, deleted: true, status_code}`. A synchronous
/// function runs on the blocking pool unless it is `inline`, as
/// [`mcp_tool`](mcp_tool#where-it-runs) says.
///
/// ```standalone_crate
/// use std::sync::Mutex;
///
/// use mcp_light::prelude::*;
///
/// /// The application's own result alias.
/// type ApiResult<T> = Result<T, ToolError>;
///
/// #[derive(Serialize, Deserialize, JsonSchema, LightKey)]
/// pub struct Site { pub id: u32, pub slug: String, pub name: String }
///
/// /// The host's state.
/// #[derive(Default)]
/// pub struct Sites(Mutex<Vec<u32>>);
///
/// /// Fetch one site.
/// #[mcp_tool(resource = "site", action = "retrieve")]
/// fn site_get(id: u32) -> ApiResult<Site> {
///     Ok(Site { id, slug: "hq".into(), name: "Head office".into() })
/// }
///
/// /// Create sites.
/// #[mcp_light(bulk_create, resource = "site", retrieve = site_get)]
/// fn site_bulk_create(State(sites): State<Sites>, names: Vec<String>) -> Vec<Site> {
///     let mut ids = sites.0.lock().unwrap();
///     names.into_iter()
///         .map(|name| {
///             let id = ids.len() as u32 + 1;
///             ids.push(id);
///             Site { id, slug: name.to_lowercase(), name }
///         })
///         .collect()
/// }
///
/// /// Delete a site.
/// #[mcp_light(destroy, resource = "site")]
/// fn site_delete(State(sites): State<Sites>, id: u32) -> ApiResult<()> {
///     let mut ids = sites.0.lock().unwrap();
///     let before = ids.len();
///     ids.retain(|&kept| kept != id);
///     match ids.len() < before {
///         true => Ok(()),
///         false => Err(ToolError::new(format!("no site {id}"))),
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = Server::from_registry().with_state(Sites::default()).build()?;
/// let bulk = server.call("site_bulk_create", serde_json::json!({"names": ["HQ", "DC"]}), Caller::Process).await;
/// let envelope = bulk.structured_content.unwrap();
/// // The count, the ids while they are few, and the token that pages the sites.
/// assert_eq!((&envelope["accepted"], &envelope["ids"]), (&2.into(), &serde_json::json!([1, 2])));
/// assert!(envelope["continuation_token"].is_string());
/// let gone = server.call("site_delete", serde_json::json!({"id": 2}), Caller::Process).await;
/// assert_eq!(gone.structured_content.unwrap().to_string(), r#"{"id":2,"deleted":true,"status_code":204}"#);
/// let again = server.call("site_delete", serde_json::json!({"id": 2}), Caller::Process).await;
/// assert_eq!(again.is_error, Some(true));
/// # Ok::<(), mcp_light::BuildError>(())
/// # }).unwrap();
/// ```
pub use mcp_light_macros::mcp_light;

/// Makes a read tool answer a probe and a continuation token, or its
/// result whole when that is within the inline budget.
///
/// ```text
/// #[mcp_heavy(name = "...", description = "...", resource = "...", action = "...", crate = path,
///             inline, inline = 4096, task, schema = "as_written", scopes = ["..."],
///             view = false)]   // all optional
/// ```
///
/// `view = false`, here and on `#[mcp_light]`, keeps the tool from naming
/// the MCP Apps viewer to a client that shows views (the `apps` feature and
/// its module, `mcp_light::apps`).
///
/// The tool's schema gains `continuation_token`, `mode`
/// (`summary|paginated|filtered|full`; `filtered` keeps the `filter_keys`
/// fields of every item, it does not select items), `page`, `page_size` and
/// `filter_keys`. A first call answers `{preview, total_size, total_items,
/// available_modes, continuation_token, usage}` (`total_items` for a result
/// that pages) and keeps the result; a call
/// with the token is served from the store, in the `mode` and `page` it
/// asks, without running the tool again. Those fields go with the token: on
/// a first call they are an error that says so.
///
/// A first call whose whole result, as compact JSON, is at most the
/// *inline budget* answers that result itself instead, in one call, with
/// nothing stored and no token: a list of a few items costs less whole than
/// a probe and the page read after it. The budget is the server's
/// ([`HeavyConfig::with_inline_budget`](crate::heavy::HeavyConfig::with_inline_budget),
/// 14 KiB by default, about 20 records of 700 bytes), or the tool's own:
/// `inline = N`, in bytes, takes precedence (`inline = 65_536` for a tool
/// whose callers read everything it answers; `inline = 0` to answer a probe
/// for every result larger than its preview). The bare word `inline` is
/// another setting: where a synchronous function runs (below); the two may
/// be given together.
/// On a function that also carries `#[mcp_light]`, in either order, the
/// heavy behaviour wins. A synchronous function runs on the blocking pool
/// unless it is `inline`, as [`mcp_tool`](mcp_tool#where-it-runs) says.
///
/// The result is serialized item by item into the store, never held whole
/// to be kept: besides a `Vec` (or any value), the tool may answer its
/// items one at a time, as an `impl Iterator` (run on the blocking pool),
/// an `impl futures_core::Stream<Item = Result<T, E>>` or an
/// [`ItemStream`]. While the items stream in, at most the inline budget of
/// them is held back to learn which answer they get; past it they go to the
/// store as they come.
///
/// ```
/// use mcp_light::prelude::*;
///
/// /// List every interface: whole up to 64 KiB.
/// #[mcp_heavy(resource = "interface", action = "list", inline = 65_536)]
/// async fn interface_list() -> Result<Vec<String>, ToolError> {
///     Ok((0..500).map(|i| format!("eth{i}")).collect())
/// }
///
/// /// Every port of every switch, one at a time.
/// #[mcp_heavy(resource = "port", action = "list")]
/// fn port_list(switches: u32) -> impl Iterator<Item = String> + Send + 'static {
///     (0..switches).flat_map(|s| (0..48).map(move |p| format!("sw{s}/eth{p}")))
/// }
/// ```
pub use mcp_light_macros::mcp_heavy;

/// Makes the methods of an `impl` block tools, where rmcp has
/// `#[tool_router]`.
///
/// ```text
/// #[mcp_tools(crate = path)]   // `crate` optional
/// impl MyServer { ... }
/// ```
///
/// Inside it, [`mcp_tool`], [`mcp_light`](macro@mcp_light) and
/// [`mcp_heavy`] go on `&self` methods, `async` or not, with every
/// argument they take on a free function. `&self` is the server's state of
/// the impl's type, given with
/// [`ServerBuilder::with_state`](crate::ServerBuilder::with_state) and
/// borrowed as `State(this): State<MyServer>` would be; a method without
/// `self` is a tool too. A write's `retrieve = Self::method` names a tool
/// method of the same impl. The methods stay ordinary methods, with the
/// signatures they are written with: code and tests that call them
/// directly keep compiling. They register as free functions do:
/// [`Server::from_registry`] serves them, and `tools![MyServer::method]`
/// names one. Methods without a tool attribute, and everything else in the
/// block, are left as they are.
///
/// rmcp's idioms mean what they meant there:
///
/// * `Parameters<T>` (rmcp's, `mcp_light::prelude::Parameters` or through
///   an rmcp of the same version), under any pattern (`params`,
///   `Parameters(req)`, `Parameters(Req { id, .. })`), is the whole
///   arguments object: `T`'s schema is the tool's input schema, flat, as
///   rmcp publishes it, plus `verify` on a write and the negotiation fields
///   on a heavy read. An argument `T` does not declare is refused, naming
///   the fields it does: serde alone would drop it, and the tool would
///   answer success having ignored it. A destroy that takes
///   `Parameters<T>` confirms the `id` (or `pk`) the call sent.
/// * `Json<T>` answers as `T`, and `Result<Json<T>, ErrorData>` as
///   `Result<T, E>`; an `Err(ErrorData)` answers over MCP as the JSON-RPC
///   error rmcp would have sent ([`Server::call`] and a task's result
///   carry it as an `isError` result whose `structuredContent` is the
///   error's `code`, `message` and `data`).
/// * `description = "..."` and `name = "..."` on the attribute, as on
///   rmcp's `#[tool]`; without `description`, the doc comment is it.
/// * A doc comment on a named parameter is that argument's description.
///
/// ```standalone_crate
/// use std::sync::Mutex;
///
/// use mcp_light::prelude::*;
/// use mcp_light::rmcp::ErrorData;
/// use mcp_light::testing::AnswerExt;
/// use serde_json::json;
///
/// #[derive(Clone, Serialize, Deserialize, JsonSchema, LightKey)]
/// pub struct Note { pub id: u32, pub title: String }
///
/// #[derive(Deserialize, JsonSchema)]
/// pub struct NoteId { pub id: u32 }
///
/// #[derive(Deserialize, JsonSchema)]
/// pub struct NewNote {
///     /// What the note is about.
///     pub title: String,
/// }
///
/// #[derive(Default)]
/// pub struct Notes(Mutex<Vec<Note>>);
///
/// #[mcp_tools]
/// impl Notes {
///     #[mcp_tool(resource = "note", action = "retrieve", description = "Fetch one note.")]
///     async fn note_get(
///         &self,
///         Parameters(NoteId { id }): Parameters<NoteId>,
///     ) -> Result<Json<Note>, ErrorData> {
///         let notes = self.0.lock().unwrap();
///         match notes.iter().find(|note| note.id == id) {
///             Some(note) => Ok(Json(note.clone())),
///             None => Err(ErrorData::invalid_params(format!("no note {id}"), None)),
///         }
///     }
///
///     #[mcp_light(create, resource = "note", retrieve = Self::note_get, description = "Write a note.")]
///     fn note_create(&self, Parameters(new): Parameters<NewNote>) -> Json<Note> {
///         let mut notes = self.0.lock().unwrap();
///         let note = Note { id: notes.len() as u32 + 1, title: new.title };
///         notes.push(note.clone());
///         Json(note)
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// // Still an ordinary method.
/// let notes = Notes::default();
/// let Json(first) = notes.note_create(Parameters(NewNote { title: "tea".into() }));
/// assert_eq!(first.id, 1);
///
/// let server = Server::from_registry().with_state(notes).build()?;
/// let created = server.call("note_create", json!({"title": "milk"}), Caller::Process).await;
/// assert_eq!(created.json().unwrap(), json!({"id": 2, "status_code": 201, "data_size": 23}));
/// let wrapped = server.call("note_create", json!({"data": {"title": "milk"}}), Caller::Process).await;
/// assert_eq!(
///     wrapped.error_text().unwrap(),
///     "invalid arguments for `note_create`: unknown field `data`; `note_create` takes `title`; \
///      send them at the top level, not inside `data`"
/// );
/// # Ok::<(), mcp_light::BuildError>(())
/// # }).unwrap();
/// ```
pub use mcp_light_macros::mcp_tools;

/// Names the tools a server serves.
///
/// ```text
/// tools![function, module::function, ...]
/// ```
///
/// Expands to the definitions of the named tool functions, an array of
/// `&'static` [`ToolDef`](catalog::ToolDef), for [`Server::from_tools`] or
/// [`Registry::from_tools`](catalog::Registry::from_tools): the server answers those tools and no other,
/// whatever else is linked into the binary (a dependency's tools, a test's,
/// another binary's of the same package). [`Server::from_registry`] is the
/// convenience that serves every tool linked in.
///
/// Each entry is a function annotated with [`mcp_tool`], [`mcp_light`] or
/// [`mcp_heavy`], named by its path from here. Each of those macros keeps
/// the tool's definition in a hidden static beside the function, under a
/// prefixed name that no module, type or function of yours can clash with;
/// `tools!` reaches it through the same path. So name a tool where it is
/// defined, through its module (`inventory::tools::device_get`), or where
/// its module's items are imported with a glob (`use tools::*`): a `use` of
/// the function alone (`use tools::device_get;`) imports the function and
/// not its definition. rustc then says it cannot find
/// `__mcp_light_tool_device_get`, the definition's hidden name, at the name
/// you wrote: name the tool through its module, or check that the function
/// carries a tool attribute.
///
/// ```standalone_crate
/// use mcp_light::prelude::*;
///
/// mod devices {
///     use mcp_light::prelude::*;
///
///     /// Count the devices.
///     #[mcp_tool]
///     pub fn device_count() -> u32 {
///         3
///     }
/// }
///
/// /// Says who calls.
/// #[mcp_tool]
/// fn whoami(caller: &Caller) -> String {
///     caller.identity()
/// }
///
/// /// A tool this program links in but does not serve.
/// #[mcp_tool]
/// fn debug_dump() -> String {
///     String::new()
/// }
///
/// let server = Server::from_tools(tools![devices::device_count, whoami]).build()?;
/// let names: Vec<_> = server.registry().iter().map(|tool| tool.name()).collect();
/// assert_eq!(names, ["device_count", "whoami"]);
/// # Ok::<(), mcp_light::BuildError>(())
/// ```
pub use mcp_light_macros::tools;

/// Derives [`LightKey`](trait@LightKey) for a struct with named fields.
///
/// ```text
/// #[light_key(field, ..., id = field)]   // optional
/// ```
///
/// The identifier is the field serialized as `id` (else `pk`, or the one
/// named by `id = ...`); `url`, `name` (else `display`) follow, then the
/// listed fields. Names are checked at compile time and serialized names are
/// used (serde `rename`, `rename_all`).
pub use mcp_light_macros::LightKey;

/// The rmcp this mcp-light is built on; name its types through
/// `mcp_light::rmcp` so versions match.
///
/// mcp-light's API speaks rmcp's types: the [`CallToolResult`] a tool call
/// answers, the `ServerHandler` composed with [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler), the
/// handler [`Server::into_handler`] serves over any rmcp transport. Naming
/// them through this path needs no rmcp dependency of one's own, whose
/// version could drift from this one. rmcp features mcp-light does not turn
/// on (its client, its `#[prompt_router]` macros) are turned on by
/// depending on rmcp with them as well; cargo unifies the two when their
/// versions are compatible.
///
/// ```
/// use mcp_light::rmcp::model::{ServerCapabilities, ServerConfig};
///
/// let config = ServerConfig::new(ServerCapabilities::builder().enable_prompts().build());
/// assert!(config.capabilities.prompts.is_some());
/// ```
pub use rmcp;

/// The result type of an MCP tool call, as answered on the wire.
pub use rmcp::model::CallToolResult;

/// Everything a tool module needs, in one `use`.
pub mod prelude {
    pub use crate::{
        BulkResult, CallToolResult, Caller, Content, ContentAnswer, Context, KeyFields, LightKey,
        Server, ServerBuilder, State, ToolError, mcp_heavy, mcp_light, mcp_tool, mcp_tools, tools,
    };
    pub use rmcp::handler::server::wrapper::{Json, Parameters};
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}
