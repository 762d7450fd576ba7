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
//! ```
//!
//! A tool the file does not name is kept (an answer larger than the client
//! keeps is answered with a probe), as without a file. Each named tool says
//! exactly one of `heavy` (with `items`, a JSON pointer to the list to page
//! in what the answer carries; without it, the whole answer), `pass` or
//! `hide`.

use std::collections::BTreeMap;
use std::path::Path;

use mcp_light::{HandlerTool, ServerBuilder};
use serde::Deserialize;

use crate::Upstream;

/// The configuration file's contents, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    tools: BTreeMap<String, ToolAnswer>,
}

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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolEntry {
    heavy: Option<HeavyEntry>,
    pass: Option<bool>,
    hide: Option<bool>,
    write: Option<toml::Value>,
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
                ToolEntry { write: Some(_), .. } => {
                    return Err(format!(
                        "[tools.{name}]: `write` is not yet supported by this gateway; say \
                         `pass = true` to answer it untouched, or leave the tool out to keep \
                         its large answers"
                    ));
                }
                ToolEntry {
                    heavy: Some(heavy),
                    pass: None,
                    hide: None,
                    ..
                } => {
                    if let Some(pointer) = &heavy.items
                        && !pointer.is_empty()
                        && !pointer.starts_with('/')
                    {
                        return Err(format!(
                            "[tools.{name}]: heavy.items = {pointer:?} is not a JSON pointer; \
                             write it from the answer's top, such as \"/entities\" or \
                             \"/0/children\""
                        ));
                    }
                    ToolAnswer::Heavy { items: heavy.items }
                }
                ToolEntry {
                    heavy: None,
                    pass: Some(true),
                    hide: None,
                    ..
                } => ToolAnswer::Pass,
                ToolEntry {
                    heavy: None,
                    pass: None,
                    hide: Some(true),
                    ..
                } => ToolAnswer::Hide,
                _ => {
                    return Err(format!(
                        "[tools.{name}] says none or several of `heavy`, `pass` and `hide`; say \
                         exactly one of `heavy = {{ items = \"/pointer\" }}`, `pass = true` \
                         and `hide = true`"
                    ));
                }
            };
            tools.insert(name, answer);
        }
        Ok(Config { tools })
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
        self.tools
            .keys()
            .filter(|name| !listed.iter().any(|tool| tool.name == **name))
            .cloned()
            .collect()
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
                ToolAnswer::Pass => {
                    builder = builder.with_handler_tool(name, HandlerTool::AsAnswered);
                }
                ToolAnswer::Hide => upstream.hide(name),
            }
        }
        builder
    }
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
            "#,
        )
        .unwrap();
        let tools: Vec<_> = config.tools().collect();
        assert_eq!(
            tools,
            [
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
        let write = Config::parse("[tools.a]\nwrite = { kind = \"create\" }\n").unwrap_err();
        assert!(
            write.contains("not yet supported") && write.contains("pass = true"),
            "{write}"
        );
        let unknown = Config::parse("[tools.a]\nheavvy = {}\n").unwrap_err();
        assert!(unknown.contains("heavvy"), "{unknown}");
        let not_true = Config::parse("[tools.a]\npass = false\n").unwrap_err();
        assert!(not_true.contains("exactly one of"), "{not_true}");
    }
}
