//! The names the crate root makes public, pinned. The root holds what a
//! tool author names; a new name there is a decision, made here in review,
//! not a side effect of a `pub use`. The rest lives in a module named for
//! its concern: introspection and the published surface in `catalog`,
//! limits in `defaults`, heavy-read settings in `heavy`, store plumbing in
//! `store`, the configuration audit in `audit`, serving options and the rmcp handler in `transport`, writing
//! extractors in `extract`, talking back to the client in `context`,
//! streaming a heavy tool's items in `items`, reading answers in tests in
//! `testing`; what generated code needs is
//! in the hidden `__private`.

use std::fs;
use std::path::Path;

/// The names `lib.rs` makes public at the root, sorted: each top-level
/// `pub use` and `pub mod` not marked `#[doc(hidden)]`.
fn root_names(lib: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut hidden = false;
    let mut lines = lib.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("#[doc(hidden)]") {
            hidden = true;
            continue;
        }
        if line.starts_with("#[") || line.starts_with("//") {
            continue;
        }
        let is_item = line.starts_with("pub use ") || line.starts_with("pub mod ");
        if is_item && !hidden {
            let mut statement = line.to_owned();
            while !statement.contains(';') && !statement.contains('{') {
                statement.push_str(lines.next().unwrap_or(";"));
            }
            if statement.starts_with("pub use ") && statement.contains('{') {
                while !statement.contains('}') {
                    statement.push_str(lines.next().unwrap());
                }
            }
            names.extend(declared(&statement));
        }
        hidden = false;
    }
    names.sort();
    names
}

/// The names one `pub use` or `pub mod` statement declares.
fn declared(statement: &str) -> Vec<String> {
    if let Some(module) = statement.strip_prefix("pub mod ") {
        let name = module.split([';', ' ', '{']).next().unwrap();
        return vec![name.to_owned()];
    }
    let used = statement["pub use ".len()..].trim_end_matches(';').trim();
    let list = match (used.find('{'), used.rfind('}')) {
        (Some(open), Some(close)) => &used[open + 1..close],
        _ => used,
    };
    list.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| match item.split_once(" as ") {
            Some((_, alias)) => alias.trim().to_owned(),
            None => item.rsplit("::").next().unwrap().to_owned(),
        })
        .collect()
}

#[test]
fn the_crate_root_names_only_what_a_tool_author_needs() {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let expected = [
        // Modules: by concern, for what a tool author names less often.
        "apps",
        "audit",
        "auth",
        "catalog",
        "clients",
        "context",
        "defaults",
        "docs",
        "extract",
        "heavy",
        "items",
        "prelude",
        "rmcp",
        "store",
        "tasks",
        "telemetry",
        "testing",
        "token",
        "transport",
        // Declaring tools.
        "LightKey",
        "mcp_heavy",
        "mcp_light",
        "mcp_tool",
        "mcp_tools",
        "tools",
        "BulkResult",
        "KeyFields",
        "LightKey",
        // What a tool takes and answers.
        "Caller",
        "Context",
        "Principal",
        "State",
        "ToolError",
        "Content",
        "ContentAnswer",
        "CallToolResult",
        "ItemStream",
        // Building and serving a server.
        "Server",
        "ServerBuilder",
        // What the server does with a composed rmcp handler's tools.
        "HandlerTool",
        "HandlerTools",
        "HandlerWrite",
        "BuildError",
        "ConfigError",
    ];
    let mut expected: Vec<String> = expected.iter().map(|name| name.to_string()).collect();
    expected.sort();
    assert_eq!(
        root_names(&lib),
        expected,
        "the crate root's public names changed: a name a tool author does not \
         write belongs in a module named for its concern (`catalog`, `defaults`, \
         `store`, `transport`, ...) or, for generated code, in `__private`"
    );
}

#[test]
fn the_reader_sees_groups_aliases_and_hidden_items() {
    let lib = "pub mod a;\n#[doc(hidden)]\npub use x::Hidden;\n#[cfg(feature = \"f\")]\n\
               pub use y::{B, c::D as E,\n    F};\npub use z;\n    pub use inner::G;\n";
    assert_eq!(root_names(lib), ["B", "E", "F", "a", "z"]);
}
