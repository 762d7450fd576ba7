//! The runtime's imports flow one way: a reader follows a call from the
//! server down to the store without coming back up. These tests read the
//! sources of `mcp-light/src`, one node per file as rustc finds them from
//! `lib.rs`, and fail on an import cycle between files or on an import that
//! runs up the layers of [`LAYERS`], naming it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The runtime's modules, lowest layer first. A file may import from its
/// own layer and the ones before it, never from a later one. An entry names
/// a module by its path from the crate root (`heavy`, or `heavy::summary`
/// to place one file apart from its folder); a file takes the layer of the
/// longest entry its module path starts with. `lib` is the crate root,
/// which, like `__private`, only re-exports for users and generated code.
const LAYERS: &[&[&str]] = &[
    // Definitions that depend on nothing of the runtime: errors, kinds,
    // tokens, who calls, arguments and the answers built from them.
    &[
        "error",
        "config",
        "kind",
        "token",
        "principal",
        "usage",
        "outcome",
        "surface",
        "roundtrip",
        "light_key",
        "content",
        "args",
        "answer",
        // rmcp's `Parameters<T>` and `Json<T>`, taken as they are.
        "wrappers",
        // Every default, named once, beside nothing it could import.
        "defaults",
        // What an audit found: the stores and the authentication report
        // in it, the audit of the whole server gathers it.
        "audit::finding",
    ],
    // Bounds, the blocking pool and the metrics, under everything that runs.
    &["limits", "offload", "telemetry"],
    // Where results and tasks are kept.
    &["store"],
    // The shapes of answers and their schemas: heavy reads, envelopes.
    &["heavy", "schema", "envelope", "output_schema"],
    // What a call carries and what a tool takes from it.
    &["context", "extract", "state"],
    // Results kept for a token, and tasks.
    &["continuation", "keep", "tasks"],
    // Calling one tool: the call the generated code answers through.
    &["invoke", "output", "items"],
    // What a tool is (its definition carries the `InvokeFn` that calls it,
    // so it sits on the call), and the catalogue of tools.
    &["tool", "registry", "dispatch"],
    // The server, what it composes, and what serves it; what the MCP Apps
    // viewer is.
    &["compose", "auth", "apps"],
    &["server", "transport"],
    // Auditing a built server and where it will serve.
    &["audit"],
    // Re-exports for users and generated code, and the documentation.
    &["catalog", "testing", "docs", "__private", "lib"],
];

/// One module backed by a file of its own.
struct Module {
    /// The file, relative to `src` (`heavy/observe.rs`).
    file: String,
    /// Its code without comments, string contents and test-only items.
    code: String,
    /// The modules it declares with `mod name;`, each a file.
    children: BTreeSet<String>,
    /// What each name a `use` brings in scope stands for, by the module
    /// (this file's, or an inline one inside it) the `use` is in: an
    /// absolute path inside the crate, or `None` for another crate's item.
    imports: BTreeMap<Vec<String>, BTreeMap<String, Option<Vec<String>>>>,
}

/// One import of one file: the file it names an item of, and how.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: String,
    to: String,
    /// The path as written (`crate::invoke::InvokeFn`, `super::summary`).
    path: String,
    /// The import runs from a module's file into one of its own submodules
    /// (`context/mod.rs` naming `peer::Talk`): the module tree going down.
    into_own: bool,
}

/// The crate's modules by their path from the root (`[]` is `lib.rs`).
type Tree = BTreeMap<Vec<String>, Module>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every module rustc builds outside tests, found from `lib.rs` through
/// each `mod name;` as rustc finds its file: `name.rs` or `name/mod.rs`
/// beside a `lib.rs` or `mod.rs`, and in the folder `foo/` of a `foo.rs`.
fn load_tree() -> Tree {
    fn load(tree: &mut Tree, path: Vec<String>, file: PathBuf, dir: PathBuf) {
        let code = code_of(&fs::read_to_string(&file).unwrap());
        let children = declared_modules(&code);
        let relative = file.strip_prefix(src()).unwrap();
        let module = Module {
            file: relative.to_string_lossy().replace('\\', "/"),
            code,
            children: children.iter().cloned().collect(),
            imports: BTreeMap::new(),
        };
        tree.insert(path.clone(), module);
        for child in children {
            let flat = dir.join(format!("{child}.rs"));
            let (file, sub) = if flat.exists() {
                (flat, dir.join(&child))
            } else {
                (dir.join(&child).join("mod.rs"), dir.join(&child))
            };
            let mut child_path = path.clone();
            child_path.push(child);
            load(tree, child_path, file, sub);
        }
    }
    let mut tree = Tree::new();
    load(&mut tree, Vec::new(), src().join("lib.rs"), src());
    // Imports are read once every module is known, so that a `use` can
    // tell a module of this crate from another crate.
    let paths: Vec<_> = tree.keys().cloned().collect();
    for path in paths {
        let code = tree[&path].code.clone();
        for (at, _, trees) in use_statements(&code) {
            let here = module_at(&path, &code, at);
            for (segments, name) in trees {
                let target = absolute(&tree, &here, &segments);
                if let Some(name) = name {
                    let module = tree.get_mut(&path).unwrap();
                    module
                        .imports
                        .entry(here.clone())
                        .or_default()
                        .insert(name, target);
                }
            }
        }
    }
    tree
}

/// The code of a file as the compiler sees it outside tests, without
/// comments (doc links included), without the contents of string and
/// character literals, and without items under `#[cfg(test)]` (a `mod
/// tests`, a helper, a test-only submodule).
fn code_of(text: &str) -> String {
    strip_test_items(&strip_comments(text))
}

fn strip_comments(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && matches!(next, Some('"' | '#')) && (i == 0 || !is_ident(chars[i - 1]))
        {
            // A raw string: `r"…"`, `r#"…"#`.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal; a lifetime (`'a`) has no closing quote.
            i += 1;
            if chars.get(i) == Some(&'\\') {
                i += 1;
            }
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Removes every item under a `#[cfg(...)]` that needs `test`: up to its
/// `;`, or through its braces.
fn strip_test_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(") {
        let attribute_end = at + matching(&rest[at + 1..], '[', ']') + 2;
        let attribute = &rest[at..attribute_end];
        let needs_test = words(attribute).any(|w| w == "test") && !attribute.contains("not(");
        if !needs_test {
            out.push_str(&rest[..attribute_end]);
            rest = &rest[attribute_end..];
            continue;
        }
        out.push_str(&rest[..at]);
        let item = &rest[attribute_end..];
        let semicolon = item.find(';').unwrap_or(item.len());
        let brace = item.find('{').unwrap_or(item.len());
        let end = if semicolon < brace {
            semicolon + 1
        } else if brace < item.len() {
            brace + matching(&item[brace..], '{', '}') + 1
        } else {
            item.len()
        };
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The offset of the bracket that closes the one `text` starts with.
fn matching(text: &str, open: char, close: char) -> usize {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return i;
            }
        }
    }
    text.len() - 1
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_ident(c)).filter(|w| !w.is_empty())
}

/// Every `mod name` of a file: the name, and the code right after it
/// (`;` for a declaration, `{` for an inline module).
fn modules(code: &str) -> impl Iterator<Item = (String, &str)> {
    code.match_indices("mod ").filter_map(|(at, _)| {
        if at > 0 && is_ident(code[..at].chars().next_back().unwrap()) {
            return None;
        }
        let rest = code[at + 4..].trim_start();
        let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
        let after = rest[name.len()..].trim_start();
        (!name.is_empty()).then_some((name, after))
    })
}

/// The names of the `mod name;` declarations of a file.
fn declared_modules(code: &str) -> Vec<String> {
    modules(code)
        .filter(|(_, after)| after.starts_with(';'))
        .map(|(name, _)| name)
        .collect()
}

/// The inline modules of a file (`mod kind { … }`): their name and the
/// span of their braces.
fn inline_modules(code: &str) -> Vec<(String, usize, usize)> {
    modules(code)
        .filter(|(_, after)| after.starts_with('{'))
        .map(|(name, after)| {
            let open = code.len() - after.len();
            (name, open, open + matching(after, '{', '}'))
        })
        .collect()
}

/// The module a place in a file's code belongs to: the file's own, or an
/// inline module inside it.
fn module_at(file_module: &[String], code: &str, at: usize) -> Vec<String> {
    let mut path = file_module.to_vec();
    for (name, open, close) in inline_modules(code) {
        if open < at && at < close {
            path.push(name);
        }
    }
    path
}

type UseStatement = (usize, usize, Vec<(Vec<String>, Option<String>)>);

/// Every `use` declaration of a file: where it starts and ends, and each
/// path it imports with the name it brings in scope (none for a glob).
fn use_statements(code: &str) -> Vec<UseStatement> {
    let mut statements = Vec::new();
    for (at, _) in code.match_indices("use ") {
        if at > 0 && is_ident(code[..at].chars().next_back().unwrap()) {
            continue;
        }
        let Some(length) = code[at..].find(';') else {
            continue;
        };
        let body = &code[at + 4..at + length];
        let mut trees = Vec::new();
        use_tree(body, &mut Vec::new(), &mut trees);
        statements.push((at, at + length, trees));
    }
    statements
}

/// Flattens one use tree (`crate::{a, b::{C, D as E}, f::*}`) into its
/// paths.
fn use_tree(text: &str, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let text = text.trim();
    if let Some(group) = text.strip_prefix('{') {
        let group = group.strip_suffix('}').unwrap_or(group);
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_tree(&group[start..i], &mut prefix.clone(), out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        use_tree(&group[start..], &mut prefix.clone(), out);
        return;
    }
    let text = text.trim_start_matches("::");
    if text.is_empty() {
        return;
    }
    if text == "*" {
        out.push((prefix.clone(), None));
        return;
    }
    if let Some((head, tail)) = text.split_once("::")
        && !head.contains([' ', '{'])
    {
        prefix.push(head.trim().to_owned());
        use_tree(tail, prefix, out);
        return;
    }
    let (segment, alias) = match text.split_once(" as ") {
        Some((segment, alias)) => (segment.trim(), alias.trim()),
        None => (text, text),
    };
    if segment == "self" {
        let name = prefix.last().cloned();
        out.push((prefix.clone(), name.filter(|_| alias == "self")));
        if alias != "self" {
            out.last_mut().unwrap().1 = Some(alias.to_owned());
        }
        return;
    }
    let mut path = prefix.clone();
    path.push(segment.to_owned());
    out.push((path, Some(alias.to_owned()).filter(|a| a != "_")));
}

/// A path written in module `here` as a path from the crate root, or
/// `None` when it names another crate.
fn absolute(tree: &Tree, here: &[String], segments: &[String]) -> Option<Vec<String>> {
    let (first, rest) = segments.split_first()?;
    let file = file_module(tree, here);
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => here.to_vec(),
        "super" => here[..here.len().checked_sub(1)?].to_vec(),
        name if here.len() == file.len() && tree[&file].children.contains(name) => {
            let mut base = here.to_vec();
            base.push(name.to_owned());
            base
        }
        name => match imported(&tree[&file], here, name) {
            Some(Some(target)) => target.clone(),
            _ => return None,
        },
    };
    let mut rest = rest;
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// What `name` stands for where module `at` of a file imports it.
fn imported<'a>(file: &'a Module, at: &[String], name: &str) -> Option<&'a Option<Vec<String>>> {
    file.imports.get(at)?.get(name)
}

/// The nearest module of `path` that has a file of its own.
fn file_module(tree: &Tree, path: &[String]) -> Vec<String> {
    let mut path = path.to_vec();
    while !tree.contains_key(&path) {
        path.pop();
    }
    path
}

/// The module whose file defines what an absolute path names, following
/// the `use` imports and re-exports on the way (`crate::ToolError` is
/// defined in `error.rs`). `None` for another crate's item.
fn defining_module(tree: &Tree, path: &[String], depth: usize) -> Option<Vec<String>> {
    let mut module = Vec::new();
    for (i, segment) in path.iter().enumerate() {
        let here = &tree[&module];
        if here.children.contains(segment) {
            module.push(segment.clone());
            continue;
        }
        if let Some(target) = imported(here, &module, segment) {
            let target = target.as_ref()?;
            if depth < 16 {
                let mut through: Vec<String> = target.clone();
                through.extend(path[i + 1..].iter().cloned());
                return defining_module(tree, &through, depth + 1);
            }
        }
        return Some(module);
    }
    Some(module)
}

/// Every import between files of the crate: each path a `use` names, and
/// each path in the code that starts at `crate`, `super`, `self`, a
/// submodule or an imported name.
fn edges(tree: &Tree) -> BTreeSet<Edge> {
    let mut edges = BTreeSet::new();
    for (path, module) in tree {
        let code = &module.code;
        let statements = use_statements(code);
        let mut add = |here: &[String], segments: &[String]| {
            let Some(target) = absolute(tree, here, segments) else {
                return;
            };
            let Some(defined) = defining_module(tree, &target, 0) else {
                return;
            };
            let to = &tree[&defined].file;
            if *to != module.file {
                edges.insert(Edge {
                    from: module.file.clone(),
                    to: to.clone(),
                    path: segments.join("::"),
                    into_own: defined.starts_with(path),
                });
            }
        };
        for (at, _, trees) in &statements {
            let here = module_at(path, code, *at);
            for (segments, _) in trees {
                add(&here, segments);
            }
        }
        let in_use = |at: usize| {
            statements
                .iter()
                .any(|(start, end, _)| *start <= at && at < *end)
        };
        for (at, segments) in code_paths(code) {
            if !in_use(at) {
                add(&module_at(path, code, at), &segments);
            }
        }
    }
    edges
}

/// Every path of two segments or more in a piece of code (`a::b::C`), with
/// where it starts; a path that continues one (`x::a::b`) is not counted
/// again.
fn code_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let bytes = code.as_bytes();
    let mut paths = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        let starts = is_ident(c)
            && !c.is_ascii_digit()
            && (i == 0 || !(is_ident(bytes[i - 1] as char) || bytes[i - 1] == b':'));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        let mut segments = Vec::new();
        loop {
            let begin = i;
            while i < bytes.len() && is_ident(bytes[i] as char) {
                i += 1;
            }
            segments.push(code[begin..i].to_owned());
            let after = code[i..].trim_start();
            let skipped = code[i..].len() - after.len();
            if after.starts_with("::")
                && after[2..]
                    .trim_start()
                    .starts_with(|c: char| is_ident(c) && !c.is_ascii_digit())
            {
                i += skipped + 2;
                i += code[i..].len() - code[i..].trim_start().len();
            } else {
                break;
            }
        }
        if segments.len() > 1 {
            paths.push((start, segments));
        }
    }
    paths
}

/// The layer of a module path in [`LAYERS`]: the row of the longest entry
/// the path starts with.
fn layer_of(layers: &[&[&str]], module: &[String]) -> Option<usize> {
    let name = if module.is_empty() {
        "lib".to_owned()
    } else {
        module.join("::")
    };
    let mut best: Option<(usize, usize)> = None;
    for (row, entries) in layers.iter().enumerate() {
        for entry in *entries {
            let covers = name == *entry || name.starts_with(&format!("{entry}::"));
            if covers && best.is_none_or(|(length, _)| entry.len() > length) {
                best = Some((entry.len(), row));
            }
        }
    }
    best.map(|(_, row)| row)
}

/// The imports that run from a layer to a later one, each as a sentence
/// naming the file, the import and both layers.
fn upward(
    edges: &BTreeSet<Edge>,
    layer_of_file: &dyn Fn(&str) -> usize,
    layers: &[&[&str]],
) -> Vec<String> {
    edges
        .iter()
        .filter(|edge| layer_of_file(&edge.to) > layer_of_file(&edge.from))
        .map(|edge| {
            let (from, to) = (layer_of_file(&edge.from), layer_of_file(&edge.to));
            format!(
                "{} imports `{}` ({}), in layer {to} {:?}, above its own layer {from} {:?}",
                edge.from, edge.path, edge.to, layers[to], layers[from]
            )
        })
        .collect()
}

/// The files each file imports from. A module's file reaching into its own
/// submodules (`heavy/mod.rs` calling `page::paginate`, re-exporting
/// `summary::Summary`) is the module tree going down, not an import that
/// could close a circle: those edges are left out. What a submodule takes
/// from its parent (`super::HeavyConfig`), a sibling or another folder
/// counts.
fn graph_of(edges: &BTreeSet<Edge>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for edge in edges.iter().filter(|edge| !edge.into_own) {
        graph
            .entry(edge.from.clone())
            .or_default()
            .insert(edge.to.clone());
        graph.entry(edge.to.clone()).or_default();
    }
    graph
}

fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == node) {
            let mut cycle = path[start..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for dep in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(dep, graph, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut done, &mut Vec::new()))
}

/// The edges along a cycle, to show how each file imports the next.
fn explain(cycle: &[String], edges: &BTreeSet<Edge>) -> String {
    cycle
        .windows(2)
        .map(|pair| {
            let paths: Vec<_> = edges
                .iter()
                .filter(|e| e.from == pair[0] && e.to == pair[1])
                .map(|e| format!("`{}`", e.path))
                .collect();
            format!("{} -> {} ({})", pair[0], pair[1], paths.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n  ")
}

fn file_layers(tree: &Tree) -> BTreeMap<String, usize> {
    for entry in LAYERS.iter().flat_map(|row| row.iter()) {
        let path: Vec<String> = match *entry {
            "lib" => Vec::new(),
            entry => entry.split("::").map(str::to_owned).collect(),
        };
        assert!(
            tree.contains_key(&path),
            "LAYERS names `{entry}`, which is no module"
        );
    }
    tree.iter()
        .map(|(path, module)| {
            let layer = layer_of(LAYERS, path).unwrap_or_else(|| {
                panic!("{} is in no layer of LAYERS: add its module", module.file)
            });
            (module.file.clone(), layer)
        })
        .collect()
}

#[test]
fn the_runtime_has_no_import_cycle_between_files() {
    let tree = load_tree();
    assert!(
        tree.len() > 60,
        "the files were not found: {:?}",
        tree.keys()
    );
    let edges = edges(&tree);
    if let Some(cycle) = find_cycle(&graph_of(&edges)) {
        panic!(
            "import cycle in mcp-light/src: {}\n  {}",
            cycle.join(" -> "),
            explain(&cycle, &edges)
        );
    }
}

#[test]
fn every_import_goes_to_the_same_layer_or_a_lower_one() {
    let tree = load_tree();
    let layers = file_layers(&tree);
    let upward = upward(&edges(&tree), &|file| layers[file], LAYERS);
    assert!(
        upward.is_empty(),
        "{} imports run up the layers:\n{}",
        upward.len(),
        upward.join("\n")
    );
}

#[test]
fn a_call_goes_down_from_server_to_store() {
    let edges = edges(&load_tree());
    for (upper, lower) in [
        ("server/call.rs", "dispatch.rs"),
        ("dispatch.rs", "registry.rs"),
        ("server/call.rs", "invoke.rs"),
        ("invoke.rs", "continuation.rs"),
        ("continuation.rs", "store.rs"),
        // Inside a folder, through `super::`.
        ("heavy/observe.rs", "heavy/summary.rs"),
        ("heavy/summarize.rs", "heavy/observe.rs"),
        ("transport/http.rs", "transport/mod.rs"),
    ] {
        assert!(
            edges.iter().any(|e| e.from == upper && e.to == lower),
            "`{upper}` should reach `{lower}`"
        );
    }
}

#[test]
fn test_code_and_test_files_are_left_out() {
    let tree = load_tree();
    let files: BTreeSet<_> = tree.values().map(|m| m.file.as_str()).collect();
    for file in [
        "heavy/observe.rs",
        "heavy/summary.rs",
        "transport/mod.rs",
        "store/memory/state.rs",
    ] {
        assert!(files.contains(file), "{file} was not found: {files:?}");
    }
    for file in [
        "heavy/test_support.rs",
        "heavy/summary/tests.rs",
        "transport/tests.rs",
    ] {
        assert!(!files.contains(file), "{file} is test code");
    }
}

#[test]
fn the_checkers_catch_a_cycle_and_an_upward_import() {
    let edge = |from: &str, to: &str| Edge {
        from: from.into(),
        to: to.into(),
        path: format!("crate::{}", to.trim_end_matches(".rs")),
        into_own: false,
    };
    let cyclic = BTreeSet::from([
        edge("a.rs", "b.rs"),
        edge("b.rs", "c.rs"),
        edge("c.rs", "a.rs"),
    ]);
    assert_eq!(
        find_cycle(&graph_of(&cyclic)).unwrap(),
        ["a.rs", "b.rs", "c.rs", "a.rs"]
    );
    let acyclic = BTreeSet::from([
        edge("a.rs", "b.rs"),
        edge("b.rs", "c.rs"),
        edge("a.rs", "c.rs"),
    ]);
    assert_eq!(find_cycle(&graph_of(&acyclic)), None);

    let layers: &[&[&str]] = &[&["c"], &["b", "x"], &["a"]];
    let layer = |file: &str| layer_of(layers, &[file.trim_end_matches(".rs").to_owned()]).unwrap();
    assert_eq!(upward(&acyclic, &layer, layers), Vec::<String>::new());
    let up = BTreeSet::from([edge("c.rs", "b.rs"), edge("b.rs", "x.rs")]);
    assert_eq!(
        upward(&up, &layer, layers),
        [r#"c.rs imports `crate::b` (b.rs), in layer 1 ["b", "x"], above its own layer 0 ["c"]"#]
    );
    let nested: &[&[&str]] = &[&["heavy::page"], &["heavy"]];
    assert_eq!(layer_of(nested, &["heavy".into(), "page".into()]), Some(0));
    assert_eq!(layer_of(nested, &["heavy".into(), "probe".into()]), Some(1));
    assert_eq!(layer_of(nested, &["heavyweight".into()]), None);
}

#[test]
fn the_reader_sees_imports_as_rustc_does() {
    let code = code_of(
        "//! [`x`](crate::docs::x)\nuse crate::{a::{B, C as D}, e};\nuse super::f::*;\n\
         /// see crate::g\nfn h() { crate::i::j(); let s = \"crate::k::l\"; let c = '{'; }\n\
         #[cfg(test)]\nmod tests { use crate::m::N; }\n#[cfg(test)]\nmod helper;\nmod n;\n",
    );
    assert!(!code.contains("docs") && !code.contains("crate::g") && !code.contains("crate::k"));
    assert!(!code.contains("crate::m") && !code.contains("helper"));
    assert_eq!(declared_modules(&code), ["n"]);
    let uses: Vec<_> = use_statements(&code)
        .into_iter()
        .flat_map(|(_, _, t)| t)
        .collect();
    let path = |p: &str| p.split("::").map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        uses,
        [
            (path("crate::a::B"), Some("B".to_owned())),
            (path("crate::a::C"), Some("D".to_owned())),
            (path("crate::e"), Some("e".to_owned())),
            (path("super::f"), None),
        ]
    );
    let in_code: Vec<_> = code_paths(&code)
        .into_iter()
        .map(|(_, p)| p.join("::"))
        .collect();
    assert!(in_code.contains(&"crate::i::j".to_owned()), "{in_code:?}");
}
