//! The configuration file (`--config`, TOML): what a maintainer knows of
//! the upstream's tools, per tool.
//!
//! ```toml
//! # The graph's items are its entities: a large answer pages them.
//! [tools.read_graph]
//! heavy = { items = "/entities" }
//!
//! # Always read whole, whatever its size.
//! [tools.list_allowed_directories]
//! pass = true
//!
//! # Neither listed nor called.
//! [tools.move_file]
//! hide = true
//!
//! # A write: answered with a lean envelope naming what it wrote.
//! [tools.create_entities]
//! write = { kind = "bulk_create", id = "name", items = "/entities" }
//! ```
//!
//! With `surface = "dispatcher"`, `tools/list` shows one tool instead of
//! the upstream's (named by `dispatcher`, else `upstream`), which takes
//! `resource` (a group), `action` (a tool's name), `params` (its
//! arguments) and `describe` (answer the action's schema). The groups are
//! the file's, and every tool it groups nowhere is in `tools`:
//!
//! ```toml
//! surface = "dispatcher"
//! dispatcher = "files"
//!
//! [groups]
//! read = ["read_text_file", "read_multiple_files", "directory_tree"]
//! write = ["write_file", "edit_file"]
//! ```
//!
//! A tool the file does not name is kept (an answer larger than the client
//! keeps is answered with a probe), as without a file. Each named tool says
//! exactly one of `heavy` (with `items`, a JSON pointer to the list to page
//! in what the answer carries; without it, the whole answer), `write`,
//! `pass` or `hide`.
//!
//! `write` takes `kind` (`create`, `update`, `partial_update`, `destroy`,
//! `bulk_create` or `bulk_update`), and optionally `id` (the field that
//! identifies a written object, or a list of fields, the identifier first;
//! without it `id`/`pk`, `url` and `name`/`display` are looked for),
//! `items` (a bulk write's list, as a JSON pointer) and `status` (the
//! status code the envelope reports, else the kind's). The tool's schema
//! then publishes `verify` and `continuation_token`: a successful answer
//! that carries JSON is answered with `{id, …, status_code, data_size,
//! continuation_token}` (a bulk one `{accepted, status_code, data_size,
//! continuation_token, ids}`), its token standing for the whole answer, and
//! `verify: true` answers the whole answer where it fits the client. A
//! destroy answers `{<id>: …, deleted: true, status_code}`, the id taken
//! from the call's arguments.

use std::collections::BTreeMap;
use std::path::Path;

use mcp_light::catalog::WriteKind;
use mcp_light::{HandlerTool, HandlerWrite, ServerBuilder};
use serde::Deserialize;

use crate::Upstream;

/// The configuration file's contents, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    tools: BTreeMap<String, ToolAnswer>,
    surface: Surface,
}

/// Which tools `tools/list` shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Surface {
    /// Every tool of the upstream's the file does not hide (the default).
    #[default]
    Flat,
    /// One tool, `name`, that reaches every tool not hidden: by group
    /// (`resource`) and tool name (`action`), the file's groups first and
    /// every other tool in the group `tools`.
    Dispatcher {
        /// The dispatcher's tool name.
        name: String,
        /// Each group's name and its tools, as the file lists them.
        groups: BTreeMap<String, Vec<String>>,
    },
}

/// The group a dispatcher puts the tools the file groups nowhere in.
pub const UNGROUPED: &str = "tools";

/// The dispatcher's tool name when the file names none.
pub const DISPATCHER: &str = "upstream";

/// What the gateway does with one upstream tool.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolAnswer {
    /// Kept: a large answer is answered with a probe; its items the list
    /// at the JSON pointer, when one is given.
    Heavy {
        /// The JSON pointer (RFC 6901) to the list in what the answer
        /// carries; `None`: the whole answer.
        items: Option<String>,
    },
    /// A write, answered with a lean envelope.
    Write(HandlerWrite),
    /// Passed untouched, whatever its size.
    Pass,
    /// Neither listed nor called.
    Hide,
}

/// Why a configuration file was refused: its path, and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ConfigError {
    path: String,
    message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    tools: BTreeMap<String, ToolEntry>,
    surface: Option<String>,
    dispatcher: Option<String>,
    #[serde(default)]
    groups: BTreeMap<String, Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolEntry {
    heavy: Option<HeavyEntry>,
    pass: Option<bool>,
    hide: Option<bool>,
    write: Option<WriteEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteEntry {
    kind: String,
    id: Option<IdFields>,
    items: Option<String>,
    status: Option<u16>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum IdFields {
    One(String),
    Several(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HeavyEntry {
    items: Option<String>,
}

impl Config {
    /// Reads and checks the file at `path`.
    ///
    /// # Errors
    ///
    /// When it cannot be read, is not TOML of the shape above, or a tool
    /// says other than exactly one of `heavy`, `pass` and `hide`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let refused = |message: String| ConfigError {
            path: path.display().to_string(),
            message,
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| refused(format!("cannot read it: {e}")))?;
        Config::parse(&text).map_err(refused)
    }

    /// Checks `text`, a configuration file's contents.
    ///
    /// # Errors
    ///
    /// As [`Config::load`], in a sentence saying what to write instead.
    pub fn parse(text: &str) -> Result<Config, String> {
        let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut tools = BTreeMap::new();
        for (name, entry) in file.tools {
            let answer = match entry {
                ToolEntry {
                    heavy: Some(heavy),
                    pass: None,
                    hide: None,
                    write: None,
                } => {
                    pointer(&name, "heavy", heavy.items.as_deref())?;
                    ToolAnswer::Heavy { items: heavy.items }
                }
                ToolEntry {
                    heavy: None,
                    pass: None,
                    hide: None,
                    write: Some(write),
                } => ToolAnswer::Write(write_of(&name, write)?),
                ToolEntry {
                    heavy: None,
                    pass: Some(true),
                    hide: None,
                    write: None,
                } => ToolAnswer::Pass,
                ToolEntry {
                    heavy: None,
                    pass: None,
                    hide: Some(true),
                    write: None,
                } => ToolAnswer::Hide,
                _ => {
                    return Err(format!(
                        "[tools.{name}] says none or several of `heavy`, `write`, `pass` and \
                         `hide`; say exactly one of `heavy = {{ items = \"/pointer\" }}`, \
                         `write = {{ kind = \"create\" }}`, `pass = true` and `hide = true`"
                    ));
                }
            };
            tools.insert(name, answer);
        }
        let surface = surface_of(
            file.surface.as_deref(),
            file.dispatcher,
            file.groups,
            &tools,
        )?;
        Ok(Config { tools, surface })
    }

    /// Each tool the file names and what is done with it.
    pub fn tools(&self) -> impl Iterator<Item = (&str, &ToolAnswer)> {
        self.tools
            .iter()
            .map(|(name, answer)| (name.as_str(), answer))
    }

    /// The tools the file names that `upstream` does not list: a typo, or
    /// a tool of another version of the server.
    pub fn unknown_tools(&self, upstream: &Upstream) -> Vec<String> {
        let listed = upstream.tools();
        let grouped = match &self.surface {
            Surface::Dispatcher { groups, .. } => groups.values().flatten().collect(),
            Surface::Flat => Vec::new(),
        };
        let mut unknown: Vec<String> = self
            .tools
            .keys()
            .chain(grouped)
            .filter(|name| !listed.iter().any(|tool| tool.name == **name))
            .cloned()
            .collect();
        unknown.sort();
        unknown.dedup();
        unknown
    }

    /// Which tools `tools/list` shows.
    pub fn surface(&self) -> &Surface {
        &self.surface
    }

    /// `builder` (the [`gateway`](crate::gateway) in front of `upstream`)
    /// with each named tool answered as the file says; the hidden ones
    /// hidden on `upstream`.
    pub fn apply(&self, upstream: &Upstream, mut builder: ServerBuilder) -> ServerBuilder {
        for (name, answer) in &self.tools {
            match answer {
                ToolAnswer::Heavy {
                    items: Some(pointer),
                } => {
                    builder = builder.with_handler_tool(name, HandlerTool::KeptAt(pointer.clone()));
                }
                ToolAnswer::Heavy { items: None } => {}
                ToolAnswer::Write(write) => {
                    builder = builder.with_handler_tool(name, HandlerTool::Write(write.clone()));
                }
                ToolAnswer::Pass => {
                    builder = builder.with_handler_tool(name, HandlerTool::AsAnswered);
                }
                ToolAnswer::Hide => upstream.hide(name),
            }
        }
        if let Surface::Dispatcher { name, groups } = &self.surface {
            builder = builder.with_handler_dispatcher(name, self.routes(upstream, groups));
        }
        builder
    }

    /// The dispatcher's groups over what `upstream` lists: the file's, each
    /// with only the tools listed and not hidden, then every other such tool
    /// in [`UNGROUPED`].
    fn routes(
        &self,
        upstream: &Upstream,
        groups: &BTreeMap<String, Vec<String>>,
    ) -> BTreeMap<String, Vec<String>> {
        let listed: Vec<String> = upstream
            .tools()
            .into_iter()
            .map(|tool| tool.name.to_string())
            .filter(|name| self.tools.get(name) != Some(&ToolAnswer::Hide))
            .collect();
        let mut routes: BTreeMap<String, Vec<String>> = groups
            .iter()
            .map(|(group, tools)| {
                let tools = tools.iter().filter(|tool| listed.contains(tool)).cloned();
                (group.clone(), tools.collect())
            })
            .collect();
        let grouped: Vec<&String> = groups.values().flatten().collect();
        let ungrouped = listed
            .iter()
            .filter(|tool| !grouped.contains(tool))
            .cloned();
        routes
            .entry(UNGROUPED.to_owned())
            .or_default()
            .extend(ungrouped);
        routes.retain(|_, tools| !tools.is_empty());
        routes
    }
}

/// The surface the file's `surface`, `dispatcher` and `groups` say,
/// checked against its tools.
fn surface_of(
    surface: Option<&str>,
    dispatcher: Option<String>,
    groups: BTreeMap<String, Vec<String>>,
    tools: &BTreeMap<String, ToolAnswer>,
) -> Result<Surface, String> {
    match surface {
        None | Some("flat") => {
            if dispatcher.is_some() || !groups.is_empty() {
                return Err(
                    "`dispatcher` and `[groups]` name a dispatcher's tool and its groups; say \
                     surface = \"dispatcher\" to publish one"
                        .to_owned(),
                );
            }
            Ok(Surface::Flat)
        }
        Some("dispatcher") => {
            let name = dispatcher.unwrap_or_else(|| DISPATCHER.to_owned());
            if name.is_empty() {
                return Err(
                    "dispatcher = \"\" is no tool name; name it, such as dispatcher = \"files\""
                        .to_owned(),
                );
            }
            let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
            for (group, members) in &groups {
                for tool in members {
                    if let Some(first) = seen.insert(tool, group) {
                        return Err(format!(
                            "[groups]: `{tool}` is in both `{first}` and `{group}`; a tool is \
                             reached through one group"
                        ));
                    }
                    if tools.get(tool) == Some(&ToolAnswer::Hide) {
                        return Err(format!(
                            "[groups].{group} names `{tool}`, which [tools.{tool}] hides; take it \
                             out of the group, or drop `hide = true`"
                        ));
                    }
                }
            }
            Ok(Surface::Dispatcher { name, groups })
        }
        Some(other) => Err(format!(
            "surface = {other:?} is not a surface; say \"flat\" (every tool, the default) or \
             \"dispatcher\" (one tool that reaches them all)"
        )),
    }
}

/// Refuses `pointer`, the `items` of `[tools.<name>].<entry>`, unless it
/// is a JSON pointer.
fn pointer(name: &str, entry: &str, pointer: Option<&str>) -> Result<(), String> {
    match pointer {
        Some(pointer) if !pointer.is_empty() && !pointer.starts_with('/') => Err(format!(
            "[tools.{name}]: {entry}.items = {pointer:?} is not a JSON pointer; write it from \
             the answer's top, such as \"/entities\" or \"/0/children\""
        )),
        _ => Ok(()),
    }
}

/// The write `[tools.<name>].write` says, checked.
fn write_of(name: &str, entry: WriteEntry) -> Result<HandlerWrite, String> {
    let kinds = || {
        WriteKind::ALL
            .iter()
            .map(|kind| format!("\"{}\"", kind.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let kind = WriteKind::ALL
        .into_iter()
        .find(|kind| kind.as_str() == entry.kind)
        .ok_or_else(|| {
            format!(
                "[tools.{name}]: write.kind = {:?} is not a write kind; say one of {}",
                entry.kind,
                kinds()
            )
        })?;
    pointer(name, "write", entry.items.as_deref())?;
    let bulk = matches!(kind, WriteKind::BulkCreate | WriteKind::BulkUpdate);
    if entry.items.is_some() && !bulk {
        return Err(format!(
            "[tools.{name}]: write.items names a bulk write's list, and kind = {:?} writes one \
             object; say kind = \"bulk_create\" or \"bulk_update\", or leave items out",
            entry.kind
        ));
    }
    if let Some(status) = entry.status
        && !(100..=599).contains(&status)
    {
        return Err(format!(
            "[tools.{name}]: write.status = {status} is not an HTTP status code; say one from \
             100 to 599, or leave it out for the kind's ({})",
            kind.default_status()
        ));
    }
    let id = match entry.id {
        None => Vec::new(),
        Some(IdFields::One(field)) => vec![field],
        Some(IdFields::Several(fields)) => fields,
    };
    if id.iter().any(String::is_empty) {
        return Err(format!(
            "[tools.{name}]: write.id names an empty field; name the field that identifies a \
             written object, such as id = \"name\""
        ));
    }
    let mut write = HandlerWrite::new(kind).identified_by(id);
    if let Some(items) = entry.items {
        write = write.items_at(items);
    }
    if let Some(status) = entry.status {
        write = write.status(status);
    }
    Ok(write)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_says_one_answer() {
        let config = Config::parse(
            r#"
            [tools.read_graph]
            heavy = { items = "/entities" }
            [tools.directory_tree]
            heavy = {}
            [tools.list_allowed_directories]
            pass = true
            [tools.move_file]
            hide = true
            [tools.create_entities]
            write = { kind = "bulk_create", id = "name", items = "/entities" }
            [tools.delete_file]
            write = { kind = "destroy", id = ["path", "kind"], status = 200 }
            "#,
        )
        .unwrap();
        let tools: Vec<_> = config.tools().collect();
        assert_eq!(
            tools,
            [
                (
                    "create_entities",
                    &ToolAnswer::Write(
                        HandlerWrite::new(WriteKind::BulkCreate)
                            .identified_by(["name"])
                            .items_at("/entities")
                    )
                ),
                (
                    "delete_file",
                    &ToolAnswer::Write(
                        HandlerWrite::new(WriteKind::Destroy)
                            .identified_by(["path", "kind"])
                            .status(200)
                    )
                ),
                ("directory_tree", &ToolAnswer::Heavy { items: None }),
                ("list_allowed_directories", &ToolAnswer::Pass),
                ("move_file", &ToolAnswer::Hide),
                (
                    "read_graph",
                    &ToolAnswer::Heavy {
                        items: Some("/entities".to_owned())
                    }
                ),
            ]
        );
        assert_eq!(Config::parse("").unwrap(), Config::default());
    }

    #[test]
    fn every_configuration_of_the_guide_and_this_module_is_accepted() {
        let guide = include_str!("../../docs/gateway.md");
        let module = include_str!("config.rs");
        let module: String = module
            .lines()
            .filter_map(|line| line.strip_prefix("//!"))
            .map(|line| format!("{}\n", line.strip_prefix(' ').unwrap_or(line)))
            .collect();
        let mut checked = 0;
        for page in [guide, module.as_str()] {
            let mut lines = page.lines();
            while let Some(line) = lines.next() {
                if line.trim() != "```toml" {
                    continue;
                }
                let body: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
                let body = body.join("\n");
                // The hosts' own files (Codex's) are not the gateway's.
                if body.contains("[mcp_servers.") {
                    continue;
                }
                Config::parse(&body).unwrap_or_else(|e| panic!("{e}:\n{body}"));
                checked += 1;
            }
        }
        assert!(checked >= 4, "found {checked} configurations");
    }

    #[test]
    fn a_refusal_says_what_to_write_instead() {
        let two = Config::parse("[tools.a]\npass = true\nhide = true\n").unwrap_err();
        assert!(
            two.contains("[tools.a]") && two.contains("exactly one of"),
            "{two}"
        );
        let none = Config::parse("[tools.a]\n").unwrap_err();
        assert!(none.contains("exactly one of"), "{none}");
        let pointer = Config::parse("[tools.a]\nheavy = { items = \"entities\" }\n").unwrap_err();
        assert!(pointer.contains("\"/entities\""), "{pointer}");
        let kind = Config::parse("[tools.a]\nwrite = { kind = \"insert\" }\n").unwrap_err();
        assert!(
            kind.contains("\"insert\"") && kind.contains("\"bulk_create\""),
            "{kind}"
        );
        let items = Config::parse("[tools.a]\nwrite = { kind = \"create\", items = \"/x\" }\n")
            .unwrap_err();
        assert!(items.contains("bulk_create"), "{items}");
        let status =
            Config::parse("[tools.a]\nwrite = { kind = \"create\", status = 42 }\n").unwrap_err();
        assert!(status.contains("100 to 599"), "{status}");
        let both =
            Config::parse("[tools.a]\npass = true\nwrite = { kind = \"create\" }\n").unwrap_err();
        assert!(both.contains("exactly one of"), "{both}");
        let unknown = Config::parse("[tools.a]\nheavvy = {}\n").unwrap_err();
        assert!(unknown.contains("heavvy"), "{unknown}");
        let surface = Config::parse("surface = \"tree\"\n").unwrap_err();
        assert!(surface.contains("\"dispatcher\""), "{surface}");
        let groups_alone = Config::parse("[groups]\nread = [\"a\"]\n").unwrap_err();
        assert!(
            groups_alone.contains("surface = \"dispatcher\""),
            "{groups_alone}"
        );
        let twice =
            Config::parse("surface = \"dispatcher\"\n[groups]\nread = [\"a\"]\nall = [\"a\"]\n")
                .unwrap_err();
        assert!(twice.contains("both"), "{twice}");
        let hidden = Config::parse(
            "surface = \"dispatcher\"\n[groups]\nread = [\"a\"]\n[tools.a]\nhide = true\n",
        )
        .unwrap_err();
        assert!(hidden.contains("hides"), "{hidden}");
        let not_true = Config::parse("[tools.a]\npass = false\n").unwrap_err();
        assert!(not_true.contains("exactly one of"), "{not_true}");
    }
}
