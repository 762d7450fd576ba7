//! The runtime's imports flow one way: a reader follows a call from the
//! server down to the store without coming back up. These tests read the
//! sources of `mcp-light/src`, one node per file as rustc finds them from
//! `lib.rs`, and fail on an import cycle between files (a folder's
//! `mod.rs` counts like any file: what it defines, its children may not
//! import while it imports them) or on an import from one of the crate's
//! folders into a folder that is not below it in [`FOLDERS`], naming it. A
//! name taken from the crate root's re-exports (`crate::Server`) is taken
//! from `lib.rs`, the top: inside the crate, a file imports it from the
//! module that defines it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::PathBuf;
use std::slice;

use syn::buffer::{Cursor, TokenBuffer};
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{
    Arm, Attribute, Expr, ExprLit, Field, ImplItem, Item, ItemMod, ItemUse, Lit, Macro, Meta, Path,
    Stmt, Token, TraitItem, UseTree, Variant, Visibility,
};

/// The crate's top-level modules (a file or a folder under `src`), lowest
/// first. A file may import from its own folder and from the folders before
/// it, never from a later one. `lib` is the crate root, which, like
/// `__private` and `docs`, only re-exports for users, generated code and
/// readers.
const FOLDERS: &[&str] = &[
    // Every default, named once.
    "defaults",
    // What everything raises: a tool's errors, a store's, a setting's.
    "error",
    // What an audit found: stores and authentication report it.
    "finding",
    // What each known client keeps of an answer.
    "clients",
    // Who an authenticated request comes from.
    "principal",
    // The boxed future the stores return, and work for the blocking pool.
    "runtime",
    // A call's arguments and answers, decided where they are made.
    "call",
    "testing",
    // What an answer cost, the metrics, and the bounds on every call.
    "usage",
    "telemetry",
    "limits",
    // Tokens, and where results and tasks are kept by them.
    "token",
    "store",
    // The shapes of answers: envelopes, heavy reads, published schemas.
    "writes",
    "heavy",
    "tool",
    // What a call carries and what a tool takes from it.
    "context",
    "extract",
    "state",
    // Results kept for a token, and tasks.
    "continuation",
    "tasks",
    // Calling one tool, and what its answer becomes.
    "invoke",
    "output",
    "items",
    // The catalogue of tools: definitions, registry, dispatchers.
    "catalog",
    // The viewer, authentication, the server and what serves it.
    "apps",
    "auth",
    "server",
    "transport",
    // Auditing a built server and where it will serve.
    "audit",
    // The documentation, what generated code reaches, the crate root.
    "docs",
    "__private",
    "lib",
];

/// One module backed by a file of its own, as rustc reads it outside
/// tests. A module inside it is named by its path from the file's own:
/// `[]`, or `["kind"]` for an inline `mod kind { … }`.
#[derive(Debug, Default)]
struct Module {
    /// The file, relative to `src` (`heavy/observe.rs`).
    file: String,
    /// The modules it declares with `mod name;`, each a file: the module,
    /// and the file its `#[path]` names, if any.
    children: Vec<(Vec<String>, Option<String>)>,
    /// Each path a `use` imports: the module the `use` is in, the path as
    /// written, and the name it brings in scope (none for a glob or `_`).
    uses: Vec<(Vec<String>, Vec<String>, Option<String>)>,
    /// Each path of two segments or more in the code (`a::b::C`), macro
    /// inputs included, with the module it is in.
    paths: Vec<(Vec<String>, Vec<String>)>,
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
    /// The path takes its name from the crate root's re-exports
    /// (`crate::Server`), so the edge runs to `lib.rs`: the path to write
    /// instead, through the module that defines the name
    /// (`crate::server::Server`).
    through_root: Option<String>,
}

/// The crate's modules by their path from the root (`[]` is `lib.rs`).
type Tree = BTreeMap<Vec<String>, Module>;

/// Every module rustc builds outside tests, from the files of `src`.
fn load_tree() -> Tree {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    tree_of(&|file| fs::read_to_string(src.join(file)).ok())
}

/// Every module rustc builds outside tests, found from `lib.rs` through
/// each `mod name;` as rustc finds its file: `name.rs` or `name/mod.rs`
/// beside a `lib.rs` or `mod.rs`, in the folder `foo/` of a `foo.rs`, or
/// where its `#[path]` says. `read` gives the text of a file by its path
/// from `src`, `None` when there is no such file.
fn tree_of(read: &dyn Fn(&str) -> Option<String>) -> Tree {
    let folder = |file: &str| file[..file.rfind('/').map_or(0, |at| at + 1)].to_owned();
    let mut tree = Tree::new();
    let mut queue = vec![(Vec::new(), "lib.rs".to_owned(), String::new())];
    while let Some((path, file, dir)) = queue.pop() {
        let text = read(&file).unwrap_or_else(|| panic!("{file} was not found"));
        let module = read_module(&text).unwrap_or_else(|error| panic!("{file}: {error}"));
        for (child, attribute) in &module.children {
            let (name, inline) = child.split_last().unwrap();
            let base = inline
                .iter()
                .fold(dir.clone(), |base, m| format!("{base}{m}/"));
            let flat = format!("{base}{name}.rs");
            let child_file = match attribute {
                Some(named) if inline.is_empty() => format!("{}{named}", folder(&file)),
                Some(named) => format!("{base}{named}"),
                None if read(&flat).is_some() => flat,
                None => format!("{base}{name}/mod.rs"),
            };
            // A file a `#[path]` names keeps its submodules beside it, as a
            // `mod.rs` does.
            let sub = match attribute {
                Some(_) => folder(&child_file),
                None => format!("{base}{name}/"),
            };
            queue.push(([&path[..], child].concat(), child_file, sub));
        }
        tree.insert(path, Module { file, ..module });
    }
    tree
}

/// What a file says, parsed as rustc parses it.
fn read_module(text: &str) -> syn::Result<Module> {
    let mut reader = Reader::default();
    reader.visit_file(&syn::parse_file(text)?);
    Ok(reader.module)
}

/// Walks the items of one file into its [`Module`].
#[derive(Default)]
struct Reader {
    module: Module,
    /// The inline module being read, from the file's own.
    scope: Vec<String>,
    /// Inside a node under `#[cfg(test)]` or `#[test]`: what is read there
    /// is left out.
    in_test: bool,
}

/// Visit methods that read a node, then forget whether a test attribute
/// was on it. syn visits a node's attributes before anything else in it,
/// so a test attribute leaves out the rest of its own node only.
macro_rules! in_node {
    ($($method:ident($node:ident)),*) => {$(
        fn $method(&mut self, node: &'ast $node) {
            let in_test = self.in_test;
            visit::$method(self, node);
            self.in_test = in_test;
        }
    )*};
}

/// What the reader keeps of a file outside its test code: each `mod`
/// declaration, each `use` tree, each path in the code and in macro inputs.
impl<'ast> Visit<'ast> for Reader {
    in_node! {
        visit_item(Item), visit_impl_item(ImplItem), visit_trait_item(TraitItem),
        visit_stmt(Stmt), visit_field(Field), visit_variant(Variant), visit_arm(Arm)
    }

    fn visit_attribute(&mut self, attribute: &'ast Attribute) {
        self.in_test |= test_only(attribute);
        visit::visit_attribute(self, attribute);
    }

    fn visit_item_mod(&mut self, module: &'ast ItemMod) {
        module.attrs.iter().for_each(|a| self.visit_attribute(a));
        if self.in_test {
            return;
        }
        self.scope.push(module.ident.to_string());
        match &module.content {
            None => {
                let path = module.attrs.iter().find_map(path_attribute);
                self.module.children.push((self.scope.clone(), path));
            }
            Some((_, items)) => items.iter().for_each(|item| self.visit_item(item)),
        }
        self.scope.pop();
    }

    // `pub(in crate::heavy)` names where an item is seen, not what it uses.
    fn visit_visibility(&mut self, _: &'ast Visibility) {}

    fn visit_item_use(&mut self, item: &'ast ItemUse) {
        item.attrs.iter().for_each(|a| self.visit_attribute(a));
        // `use ::name::…` names another crate.
        if !self.in_test && item.leading_colon.is_none() {
            self.use_tree(&item.tree, Vec::new());
        }
    }

    fn visit_path(&mut self, path: &'ast Path) {
        if !self.in_test && path.leading_colon.is_none() && path.segments.len() > 1 {
            let segments = path.segments.iter().map(|s| s.ident.to_string());
            self.module
                .paths
                .push((self.scope.clone(), segments.collect()));
        }
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        if !self.in_test {
            let tokens = TokenBuffer::new2(mac.tokens.clone());
            token_paths(tokens.begin(), &self.scope, &mut self.module.paths);
        }
        visit::visit_macro(self, mac);
    }
}

impl Reader {
    /// Records each path of a use tree (`crate::{a, b::{C, D as E}, f::*}`)
    /// with the name it brings in scope.
    fn use_tree(&mut self, tree: &UseTree, prefix: Vec<String>) {
        let (ident, alias) = match tree {
            UseTree::Path(path) => {
                let prefix = [prefix, vec![path.ident.to_string()]].concat();
                return self.use_tree(&path.tree, prefix);
            }
            UseTree::Group(group) => {
                let trees = group.items.iter();
                return trees.for_each(|tree| self.use_tree(tree, prefix.clone()));
            }
            // A glob imports what `prefix::{self as _}` names, and no name.
            UseTree::Glob(_) => ("self".to_owned(), "_".to_owned()),
            UseTree::Name(name) => (name.ident.to_string(), name.ident.to_string()),
            UseTree::Rename(rename) => (rename.ident.to_string(), rename.rename.to_string()),
        };
        let path = match ident.as_str() {
            "self" => prefix,
            _ => [prefix, vec![ident]].concat(),
        };
        let name = match alias.as_str() {
            "self" => path.last().cloned(),
            "_" => None,
            _ => Some(alias),
        };
        self.module.uses.push((self.scope.clone(), path, name));
    }
}

/// Whether an attribute makes its node test code: `#[test]` (or an async
/// runtime's `#[tokio::test]`), or a `#[cfg]` that holds only in tests.
fn test_only(attribute: &Attribute) -> bool {
    let path = attribute.path();
    path.segments.last().is_some_and(|s| s.ident == "test")
        || path.is_ident("cfg") && attribute.parse_args().is_ok_and(|meta| needs_test(&meta))
}

/// Whether a `cfg` predicate holds only in tests: `test`, an `all(…)` with
/// such a predicate in it, an `any(…)` of such predicates only.
fn needs_test(meta: &Meta) -> bool {
    let parse = Punctuated::<Meta, Token![,]>::parse_terminated;
    let list = meta
        .require_list()
        .and_then(|list| list.parse_args_with(parse));
    let nested: Vec<_> = list.into_iter().flatten().collect();
    match meta.path() {
        path if path.is_ident("all") => nested.iter().any(needs_test),
        path if path.is_ident("any") => !nested.is_empty() && nested.iter().all(needs_test),
        path => path.is_ident("test") && matches!(meta, Meta::Path(_)),
    }
}

/// The file a `#[path = "…"]` attribute names.
fn path_attribute(attribute: &Attribute) -> Option<String> {
    let meta = attribute.meta.require_name_value().ok()?;
    match &meta.value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(file),
            ..
        }) if meta.path.is_ident("path") => Some(file.value()),
        _ => None,
    }
}

/// Each path of two segments or more in a macro's input, which stays
/// tokens until the macro expands it; `$crate::` in a `macro_rules!`
/// counts as `crate::`.
fn token_paths(mut cursor: Cursor, scope: &[String], out: &mut Vec<(Vec<String>, Vec<String>)>) {
    let (mut path, mut colons) = (Vec::new(), 0);
    while let Some((_, next)) = cursor.token_tree() {
        match (cursor.ident(), cursor.punct()) {
            (_, Some((p, _))) if p.as_char() == ':' && !path.is_empty() => colons += 1,
            (Some((ident, _)), _) if colons == 2 => {
                path.push(ident.to_string());
                colons = 0;
            }
            (ident, _) => {
                if path.len() > 1 {
                    out.push((scope.to_vec(), path));
                }
                path = ident
                    .map(|(ident, _)| ident.to_string())
                    .into_iter()
                    .collect();
                colons = 0;
                if let Some((inside, ..)) = cursor.any_group() {
                    token_paths(inside, scope, out);
                }
            }
        }
        cursor = next;
    }
    if path.len() > 1 {
        out.push((scope.to_vec(), path));
    }
}

/// The path written where a `use` in module `at` brings `name` in scope.
fn imported<'a>(tree: &'a Tree, at: &[String], name: &str) -> Option<&'a [String]> {
    let mut file = at.to_vec();
    while !tree.contains_key(&file) {
        file.pop();
    }
    let scope = &at[file.len()..];
    let uses = &tree[&file].uses;
    uses.iter()
        .find(|(s, _, n)| s == scope && n.as_deref() == Some(name))
        .map(|(_, path, _)| path.as_slice())
}

/// A path written in module `here` as a path from the crate root, or
/// `None` when it names another crate. A name a `use` brings in scope
/// stands for the path that `use` names (`use rmcp;` names the crate).
fn absolute(
    tree: &Tree,
    here: &[String],
    segments: &[String],
    depth: usize,
) -> Option<Vec<String>> {
    let (first, mut rest) = segments.split_first()?;
    let child = [here, slice::from_ref(first)].concat();
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => here.to_vec(),
        "super" => here[..here.len().checked_sub(1)?].to_vec(),
        _ if tree.contains_key(&child) => child,
        name if depth < 8 => absolute(tree, here, imported(tree, here, name)?, depth + 1)?,
        _ => return None,
    };
    while let Some((_, tail)) = rest.split_first().filter(|(s, _)| *s == "super") {
        base.pop();
        rest = tail;
    }
    Some([base, rest.to_vec()].concat())
}

/// The module whose file defines what an absolute path names, following
/// the re-exports of the modules on the way (`crate::heavy::Summary` is
/// defined in `heavy/summary.rs`), but not the crate root's: a name taken
/// from those (`crate::ToolError`) is taken from `lib.rs`. `None` for
/// another crate's item.
fn defining_module(tree: &Tree, path: &[String], depth: usize) -> Option<Vec<String>> {
    let mut module = Vec::new();
    for (i, segment) in path.iter().enumerate() {
        let child = [&module[..], slice::from_ref(segment)].concat();
        if tree.contains_key(&child) {
            module = child;
            continue;
        }
        let reexport = imported(tree, &module, segment).filter(|_| !module.is_empty());
        if let Some(written) = reexport.filter(|_| depth < 16) {
            let through = absolute(tree, &module, written, 0)?;
            return defining_module(tree, &[&through[..], &path[i + 1..]].concat(), depth + 1);
        }
        break;
    }
    Some(module)
}

/// For an absolute path whose first name is one of the crate root's
/// re-exports (`crate::Server`), the path through what that re-export
/// names: the module that defines it (`crate::server::Server`), or the
/// other crate it comes from.
fn through_root(tree: &Tree, path: &[String]) -> Option<String> {
    let (first, rest) = path.split_first()?;
    let written = imported(tree, &[], first)?;
    let through = match absolute(tree, &[], written, 0) {
        Some(target) => [vec!["crate".to_owned()], target].concat(),
        None => written.to_vec(),
    };
    Some([&through[..], rest].concat().join("::"))
}

/// Every import between files of the crate: each path a `use` names, and
/// each path in the code that starts at `crate`, `super`, `self`, a
/// submodule or an imported name.
fn edges(tree: &Tree) -> BTreeSet<Edge> {
    let mut edges = BTreeSet::new();
    for (path, module) in tree {
        let uses = module
            .uses
            .iter()
            .map(|(scope, written, _)| (scope, written));
        for (scope, written) in uses.chain(module.paths.iter().map(|(s, w)| (s, w))) {
            let Some(target) = absolute(tree, &[&path[..], scope].concat(), written, 0) else {
                continue;
            };
            let Some(defined) = defining_module(tree, &target, 0) else {
                continue;
            };
            let to = &tree[&defined].file;
            if *to != module.file {
                edges.insert(Edge {
                    from: module.file.clone(),
                    to: to.clone(),
                    path: written.join("::"),
                    into_own: defined.starts_with(path),
                    through_root: through_root(tree, &target).filter(|_| defined.is_empty()),
                });
            }
        }
    }
    edges
}

/// The position in `folders` of the top-level module a module path is in
/// (`lib` for the crate root).
fn folder_of(folders: &[&str], module: &[String]) -> Option<usize> {
    let top = module.first().map_or("lib", String::as_str);
    folders.iter().position(|folder| *folder == top)
}

/// The imports from one folder into another that is not below it, each
/// as a sentence naming the file, the import and both folders, and for a
/// name taken from the crate root's re-exports, the path to write instead.
fn upward(
    edges: &BTreeSet<Edge>,
    folder_of_file: &dyn Fn(&str) -> usize,
    folders: &[&str],
) -> Vec<String> {
    edges
        .iter()
        .filter(|edge| {
            let (from, to) = (folder_of_file(&edge.from), folder_of_file(&edge.to));
            from != to && to > from
        })
        .map(|edge| {
            let (from, to) = (folder_of_file(&edge.from), folder_of_file(&edge.to));
            let (own, up) = (folders[from], folders[to]);
            let instead = match &edge.through_root {
                Some(through) => format!(
                    ": the name is the crate root's re-export, import it from the module \
                     that defines it instead, `{through}`"
                ),
                None => String::new(),
            };
            format!(
                "{} imports `{}` ({}), in `{up}`, which is not below its own folder \
                 `{own}`{instead}",
                edge.from, edge.path, edge.to
            )
        })
        .collect()
}

/// The files each file imports from, a folder's `mod.rs` like any other:
/// its re-exports reach into its children, so a child that imports what
/// the `mod.rs` defines closes a circle.
fn graph_of(edges: &BTreeSet<Edge>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for edge in edges {
        graph
            .entry(edge.from.clone())
            .or_default()
            .insert(edge.to.clone());
        graph.entry(edge.to.clone()).or_default();
    }
    graph
}

/// The import cycles of a graph: one for each group of files that all
/// reach one another, the shortest through the group's first file.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // From each file, the shortest way to each file it reaches: the file
    // the way comes from.
    let ways: BTreeMap<&str, BTreeMap<&str, &str>> = graph
        .keys()
        .map(|start| {
            let mut from = BTreeMap::new();
            let mut queue = VecDeque::from([start.as_str()]);
            while let Some(node) = queue.pop_front() {
                for next in &graph[node] {
                    from.entry(next.as_str()).or_insert_with(|| {
                        queue.push_back(next);
                        node
                    });
                }
            }
            (start.as_str(), from)
        })
        .collect();
    let mut grouped = BTreeSet::new();
    let mut cycles = Vec::new();
    for (start, from) in &ways {
        if !from.contains_key(start) || !grouped.insert(*start) {
            continue;
        }
        grouped.extend(from.keys().filter(|file| ways[*file].contains_key(start)));
        let mut cycle = vec![start.to_string()];
        while cycle.len() == 1 || cycle.last() != cycle.first() {
            cycle.push(from[cycle.last().unwrap().as_str()].to_owned());
        }
        cycle.reverse();
        cycles.push(cycle);
    }
    cycles
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

/// The position in `folders` of each file of a tree: every top-level
/// module must be in `folders`, and every entry must be one.
fn file_folders(tree: &Tree, folders: &[&str]) -> BTreeMap<String, usize> {
    for folder in folders {
        let path: Vec<String> = match *folder {
            "lib" => Vec::new(),
            folder => vec![folder.to_owned()],
        };
        assert!(
            tree.contains_key(&path),
            "FOLDERS names `{folder}`, which is no top-level module"
        );
    }
    tree.iter()
        .map(|(path, module)| {
            let folder = folder_of(folders, path).unwrap_or_else(|| {
                panic!(
                    "{} is in no folder of FOLDERS: add its top-level module",
                    module.file
                )
            });
            (module.file.clone(), folder)
        })
        .collect()
}

/// The import cycles between the files of a tree and its imports into a
/// folder not below their own, each as a sentence naming the files and
/// the imports.
fn faults(tree: &Tree, folders: &[&str]) -> (Vec<String>, Vec<String>) {
    let edges = edges(tree);
    let cycles = cycles(&graph_of(&edges))
        .iter()
        .map(|cycle| format!("{}\n  {}", cycle.join(" -> "), explain(cycle, &edges)))
        .collect();
    let folder = file_folders(tree, folders);
    (cycles, upward(&edges, &|file| folder[file], folders))
}

#[test]
fn the_runtime_has_no_import_cycle_between_files() {
    let tree = load_tree();
    assert!(
        tree.len() > 60,
        "the files were not found: {:?}",
        tree.keys()
    );
    let (cycles, _) = faults(&tree, FOLDERS);
    assert!(
        cycles.is_empty(),
        "{} import cycles in mcp-light/src:\n{}",
        cycles.len(),
        cycles.join("\n")
    );
}

#[test]
fn every_import_goes_to_its_own_folder_or_one_below() {
    let (_, upward) = faults(&load_tree(), FOLDERS);
    assert!(
        upward.is_empty(),
        "{} imports run up or across the folders:\n{}",
        upward.len(),
        upward.join("\n")
    );
}

#[test]
fn the_runtime_has_no_cycle_and_no_upward_import() {
    let (cycles, upward) = faults(&load_tree(), FOLDERS);
    assert!(
        cycles.is_empty() && upward.is_empty(),
        "mcp-light/src has {} import cycles between files and {} imports up or across folders:\n{}",
        cycles.len(),
        upward.len(),
        [cycles, upward].concat().join("\n")
    );
}

#[test]
fn a_call_goes_down_from_server_to_store() {
    let edges = edges(&load_tree());
    for (upper, lower) in [
        ("server/call.rs", "catalog/dispatch.rs"),
        ("catalog/dispatch.rs", "catalog/registry.rs"),
        ("server/call.rs", "invoke.rs"),
        ("invoke.rs", "continuation/mod.rs"),
        ("continuation/mod.rs", "store/contract.rs"),
        ("store/contract.rs", "token/mod.rs"),
        // Inside a folder, through `super::`.
        ("heavy/observe/mod.rs", "heavy/summary/mod.rs"),
        ("heavy/summarize.rs", "heavy/observe/mod.rs"),
        ("transport/http.rs", "transport/handler.rs"),
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
        "heavy/observe/mod.rs",
        "heavy/summary/mod.rs",
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
        through_root: None,
    };
    let cyclic = BTreeSet::from([
        edge("a.rs", "b.rs"),
        edge("b.rs", "c.rs"),
        edge("c.rs", "a.rs"),
    ]);
    assert_eq!(
        cycles(&graph_of(&cyclic)),
        [["a.rs", "b.rs", "c.rs", "a.rs"]]
    );
    let acyclic = BTreeSet::from([
        edge("a.rs", "b.rs"),
        edge("b.rs", "c.rs"),
        edge("a.rs", "c.rs"),
    ]);
    assert_eq!(cycles(&graph_of(&acyclic)), Vec::<Vec<String>>::new());
    let two = BTreeSet::from([
        edge("a.rs", "b.rs"),
        edge("b.rs", "a.rs"),
        edge("b.rs", "c.rs"),
        edge("c.rs", "d.rs"),
        edge("d.rs", "c.rs"),
    ]);
    assert_eq!(
        cycles(&graph_of(&two)),
        [["a.rs", "b.rs", "a.rs"], ["c.rs", "d.rs", "c.rs"]]
    );

    let folders: &[&str] = &["c", "b", "x", "a"];
    let folder =
        |file: &str| folder_of(folders, &[file.trim_end_matches(".rs").to_owned()]).unwrap();
    assert_eq!(upward(&acyclic, &folder, folders), Vec::<String>::new());
    let up = BTreeSet::from([
        edge("c.rs", "b.rs"),
        edge("b.rs", "x.rs"),
        edge("a.rs", "x.rs"),
    ]);
    assert_eq!(
        upward(&up, &folder, folders),
        [
            "b.rs imports `crate::x` (x.rs), in `x`, which is not below its own folder `b`",
            "c.rs imports `crate::b` (b.rs), in `b`, which is not below its own folder `c`",
        ]
    );
    assert_eq!(folder_of(folders, &["b".into(), "page".into()]), Some(1));
    assert_eq!(folder_of(&["lib"], &[]), Some(0));
    assert_eq!(folder_of(folders, &["heavyweight".into()]), None);
}

#[test]
fn a_name_from_the_crate_roots_reexports_is_an_import_from_lib() {
    let tree_with = |server: &str| {
        let files = BTreeMap::from([
            (
                "lib.rs",
                "mod error; mod server;\n\
                 pub use error::ToolError;\npub use server::{Server, ServerBuilder};\n",
            ),
            ("error.rs", "pub struct ToolError;\n"),
            ("server.rs", server),
        ]);
        tree_of(&|file| files.get(file).map(|text| text.to_string()))
    };
    let folders: &[&str] = &["error", "server", "lib"];
    let through_lib = tree_with(
        "use crate::ToolError;\npub struct Server;\npub struct ServerBuilder;\n\
         fn build() -> Server { crate::ServerBuilder::new(); Server }\n",
    );
    let up = |path: &str, instead: &str| {
        format!(
            "server.rs imports `{path}` (lib.rs), in `lib`, which is not below its own folder \
             `server`: the name is the crate root's re-export, import it from the module \
             that defines it instead, `{instead}`"
        )
    };
    let upward = [
        up(
            "crate::ServerBuilder::new",
            "crate::server::ServerBuilder::new",
        ),
        up("crate::ToolError", "crate::error::ToolError"),
    ];
    // The crate root re-exports `Server`, so the import back closes a circle
    // too.
    let (cycles, up) = faults(&through_lib, folders);
    assert_eq!(up, upward.to_vec());
    assert!(
        cycles.len() == 1 && cycles[0].starts_with("lib.rs -> server.rs -> lib.rs"),
        "{cycles:?}"
    );
    let direct = tree_with(
        "use crate::error::ToolError;\npub struct Server;\npub struct ServerBuilder;\n\
         fn build() -> Server { ServerBuilder::new(); Server }\n",
    );
    assert_eq!(faults(&direct, folders), (vec![], vec![]));
}

#[test]
fn the_reader_sees_imports_as_rustc_does() {
    let module = read_module(
        "//! [`x`](crate::docs::x)\nuse crate::{a::{B, C as D}, e};\nuse super::f::*;\n\
         /// see crate::g\nfn h() { crate::i::j(); let s = \"crate::k::l\"; let c = '{'; }\n\
         #[cfg(test)]\nmod tests { use crate::m::N; }\n#[cfg(test)]\nmod helper;\nmod n;\n\
         #[test]\nfn o() { crate::p::q(); }\n\
         #[cfg(all(test, feature = \"x\"))]\nfn r() { crate::r::r(); }\n\
         impl R { #[cfg(test)]\nfn r() { crate::r::r(); }\nfn q() { crate::w::x(); } }\n\
         #[cfg(not(test))]\nfn s() { format!(\"{}\", crate::t::u()); }\n\
         macro_rules! z { () => { $crate::z::a() }; }\n\
         mod inline { use crate::v::{self as w, X as _}; }\n#[path = \"elsewhere.rs\"]\nmod y;\n",
    )
    .unwrap();
    let path = |p: &str| p.split("::").map(str::to_owned).collect::<Vec<_>>();
    let children: Vec<_> = module
        .children
        .iter()
        .map(|(m, p)| (m.join("::"), p.clone()))
        .collect();
    assert_eq!(
        children,
        [
            ("n".to_owned(), None),
            ("y".to_owned(), Some("elsewhere.rs".to_owned()))
        ]
    );
    assert_eq!(
        module.uses,
        [
            (vec![], path("crate::a::B"), Some("B".to_owned())),
            (vec![], path("crate::a::C"), Some("D".to_owned())),
            (vec![], path("crate::e"), Some("e".to_owned())),
            (vec![], path("super::f"), None),
            (path("inline"), path("crate::v"), Some("w".to_owned())),
            (path("inline"), path("crate::v::X"), None),
        ]
    );
    let in_code: Vec<_> = module.paths.iter().map(|(_, p)| p.join("::")).collect();
    assert_eq!(
        in_code,
        ["crate::i::j", "crate::w::x", "crate::t::u", "crate::z::a"]
    );
}
