//! The code's shape, held: the core's top-level modules import each other
//! without a circle (a module can be understood from the ones below it),
//! and no source file grows past about 900 lines unless it says why.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without comments (doc links name modules without using
/// them) and without its tests (which may use anything).
fn code_of(source: &str) -> String {
    let source = source.split("#[cfg(test)]").next().unwrap_or("");
    source
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Top-level module of the core each module uses (`crate::x`).
fn core_graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/core/src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let module_of = |p: &Path| -> String {
        let rel = p.strip_prefix(&root).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.trim_end_matches(".rs").to_string()
    };
    let modules: BTreeSet<String> = files
        .iter()
        .map(|p| module_of(p))
        .filter(|m| m != "lib")
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = module_of(file);
        if from == "lib" {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let uses = graph.entry(from.clone()).or_default();
        for (i, _) in code.match_indices("crate::") {
            let name: String = code[i + 7..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name != from && modules.contains(&name) {
                uses.insert(name);
            }
        }
    }
    graph
}

/// A circle through `start`, if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((at, path)) = stack.pop() {
        for next in graph.get(&at).into_iter().flatten() {
            if next == start {
                let mut p = path.clone();
                p.push(next.clone());
                return Some(p);
            }
            if seen.insert(next.clone()) {
                let mut p = path.clone();
                p.push(next.clone());
                stack.push((next.clone(), p));
            }
        }
    }
    None
}

#[test]
fn the_core_modules_import_each_other_without_a_circle() {
    let graph = core_graph();
    assert!(graph.len() > 15, "{} modules found", graph.len());
    assert!(
        graph["browse"].contains("index"),
        "the scan sees imports: {graph:?}"
    );
    for module in graph.keys() {
        if let Some(c) = circle(&graph, module) {
            panic!("import circle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn the_scan_finds_a_circle() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.entry("a".into()).or_default().insert("b".into());
    graph.entry("b".into()).or_default().insert("c".into());
    graph.entry("c".into()).or_default().insert("a".into());
    assert_eq!(circle(&graph, "a").unwrap(), ["a", "b", "c", "a"]);
    graph.get_mut("c").unwrap().clear();
    assert_eq!(circle(&graph, "a"), None);
    assert_eq!(
        code_of("use crate::x; // crate::y\n#[cfg(test)]\nuse crate::z;"),
        "use crate::x; "
    );
}

/// Files over this many lines say why at their top (`// Long because: ...`
/// or a module doc that says so).
const LONG: usize = 900;

#[test]
fn no_source_file_is_longer_than_it_says_it_needs_to_be() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "crates/core/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    let mut long = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines = text.lines().count();
        // Tests at the end of a file do not make its code longer to read.
        let code = text
            .split("\n#[cfg(test)]")
            .next()
            .unwrap_or("")
            .lines()
            .count();
        let head: String = text.lines().take(40).collect::<Vec<_>>().join("\n");
        if code > LONG && !head.contains("Long because") {
            long.push(format!(
                "{} ({lines} lines, {code} before its tests)",
                file.display()
            ));
        }
    }
    assert!(
        long.is_empty(),
        "files over {LONG} lines without a reason:\n{}",
        long.join("\n")
    );
}

/// The worker roles (each a file or folder of `src/web/worker/`) share the
/// runtime and the range port, never each other: a role can be changed
/// without reading another.
#[test]
fn no_worker_role_imports_another() {
    let worker = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/web/worker");
    let roles = ["session", "range", "report", "diff", "warmup"];
    let mut files = Vec::new();
    rust_files(&worker, &mut files);
    let mut found_roles = BTreeSet::new();
    let mut crossings = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&worker).unwrap();
        let role = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if !roles.contains(&role.as_str()) {
            continue;
        }
        found_roles.insert(role.clone());
        // How this file names a sibling of its role under `worker/`.
        let up = if rel.components().count() > 1 {
            "super::super::"
        } else {
            "super::"
        };
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for prefix in ["crate::web::worker::", up] {
            for (i, _) in code.match_indices(prefix) {
                // `super::super::` also matches `super::` at its second half.
                if prefix == "super::" && code[..i].ends_with("super::") {
                    continue;
                }
                let name: String = code[i + prefix.len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if name != role && roles.contains(&name.as_str()) {
                    crossings.push(format!("{} uses {name}", rel.display()));
                }
            }
        }
    }
    assert_eq!(
        found_roles.len(),
        roles.len(),
        "roles found: {found_roles:?}"
    );
    assert!(crossings.is_empty(), "{}", crossings.join("\n"));
}
