//! The runtime's modules import one way: a reader follows a call from the
//! server down to the store without coming back up. These tests read the
//! sources of `mcp-light/src` and fail on an import cycle, naming it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module of the runtime (a file, or a folder) and the
/// top-level modules its non-test code names through `crate::`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            files.entry(stem).or_default().extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") && stem != "lib" {
            files.entry(stem).or_default().push(path);
        }
    }
    let root_items = root_reexports(&fs::read_to_string(src.join("lib.rs")).unwrap(), &files);
    files
        .iter()
        .map(|(module, paths)| {
            let code: String = paths.iter().map(|p| code_of(p)).collect();
            let deps = crate_paths(&code)
                .into_iter()
                .filter_map(|first| {
                    if files.contains_key(&first) {
                        Some(first)
                    } else {
                        root_items.get(&first).cloned()
                    }
                })
                .filter(|dep| dep != module)
                .collect();
            (module.clone(), deps)
        })
        .collect()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// A file's code without comments and without its unit tests, which may
/// reach anywhere.
fn code_of(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// The first segment of every `crate::…` path, including each top-level
/// name of a `crate::{a, b::c}` group.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut name = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.insert(first_segment(&name));
                        name.clear();
                    }
                    c if depth == 0 => name.push(c),
                    _ => {}
                }
            }
            names.insert(first_segment(&name));
        } else {
            names.insert(first_segment(rest));
        }
    }
    names.remove("");
    names
}

fn first_segment(path: &str) -> String {
    path.trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Names the crate root re-exports (`pub use module::{A, B}`), mapped to
/// the module they come from, so `crate::Server` counts as `server`.
fn root_reexports(lib: &str, modules: &BTreeMap<String, Vec<PathBuf>>) -> BTreeMap<String, String> {
    let mut items = BTreeMap::new();
    for statement in lib.split(';') {
        let Some(used) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = used.split_once("::") else {
            continue;
        };
        if !modules.contains_key(module) {
            continue;
        }
        for name in names.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !name.is_empty() {
                items.insert(name.to_owned(), module.to_owned());
            }
        }
    }
    items
}

fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == module) {
            let mut cycle = path[start..].to_vec();
            cycle.push(module.to_owned());
            return Some(cycle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_owned());
        for dep in graph.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(dep, graph, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(module.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|module| visit(module, graph, &mut done, &mut Vec::new()))
}

#[test]
fn the_runtime_has_no_import_cycles() {
    let graph = module_graph();
    assert!(graph.len() > 10, "the modules were not found: {graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle in mcp-light/src: {}", cycle.join(" -> "));
    }
}

#[test]
fn a_call_goes_down_from_server_to_store() {
    let graph = module_graph();
    for (upper, lower) in [
        ("server", "dispatch"),
        ("dispatch", "registry"),
        ("server", "invoke"),
        ("invoke", "continuation"),
        ("continuation", "store"),
    ] {
        assert!(
            graph[upper].contains(lower),
            "`{upper}` should reach `{lower}`: {:?}",
            graph[upper]
        );
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let graph = BTreeMap::from([
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["c".to_owned()])),
        ("c".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]);
    assert_eq!(find_cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
    assert_eq!(
        crate_paths("use crate::{x::{Y, Z}, w};\ncrate::v::f()"),
        BTreeSet::from(["v".into(), "w".into(), "x".into()])
    );
}
