//! The compiler's stages only look forward: read (`tflite`) -> `graph` ->
//! lower (`ops`, `lowering`, `resources`, `quant`) -> schedule (`order`,
//! `schedule`) -> plan (`plan`, `tiling`, `regions`) -> emit (`codegen`, `report`).
//! No module imports one of a later stage, and no two modules import each
//! other through any chain. Read from the sources (`crate::` and `super::`
//! paths outside comments).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`lowering/emit`) -> source text, comments dropped.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap().with_extension("");
                let name = rel.to_string_lossy().replace('\\', "/");
                let name = name.strip_suffix("/mod").unwrap_or(&name).to_string();
                let text = std::fs::read_to_string(&path).unwrap();
                let code: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
                out.insert(name, code.join("\n"));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    walk(&root, &root, &mut out);
    out
}

/// The modules each module imports.
fn imports(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let resolve = |path: &str| -> Option<String> {
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        (1..=parts.len()).rev().map(|k| parts[..k].join("/")).find(|c| mods.contains_key(c))
    };
    let mut edges = BTreeMap::new();
    for (name, code) in mods {
        let mut to = BTreeSet::new();
        let parent = name.rsplit_once('/').map_or("", |(p, _)| p);
        for (prefix, base) in [("crate::", String::new()), ("super::", parent.to_string())] {
            for (at, _) in code.match_indices(prefix) {
                let rest = &code[at + prefix.len()..];
                let path: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
                let full = if base.is_empty() { path } else { format!("{}::{path}", base.replace('/', "::")) };
                if let Some(m) = resolve(&full).filter(|m| m != name) {
                    to.insert(m);
                }
            }
        }
        edges.insert(name.clone(), to);
    }
    edges
}

fn stage(module: &str) -> Option<usize> {
    let top = module.split('/').next().unwrap_or(module);
    Some(match top {
        "tflite" => 0,
        "graph" => 1,
        "ops" | "lowering" | "resources" | "quant" => 2,
        "order" | "schedule" => 3,
        "plan" | "tiling" | "regions" => 4,
        "codegen" | "report" => 5,
        _ => return None,
    })
}

#[test]
fn stages_import_only_earlier_stages() {
    let edges = imports(&modules());
    let backward: Vec<String> = edges
        .iter()
        .flat_map(|(from, to)| to.iter().map(move |t| (from, t)))
        .filter(|(from, to)| matches!((stage(from), stage(to)), (Some(a), Some(b)) if b > a))
        .map(|(from, to)| format!("{from} -> {to}"))
        .collect();
    assert!(backward.is_empty(), "imports from an earlier stage to a later one: {backward:?}");
}

#[test]
fn no_import_cycle() {
    let edges = imports(&modules());
    // Depth-first search for a back edge.
    fn visit<'a>(
        m: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, bool>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        match state.get(m) {
            Some(true) => return None,
            Some(false) => {
                let at = path.iter().position(|p| *p == m).unwrap_or(0);
                return Some(path[at..].iter().map(|s| s.to_string()).chain([m.to_string()]).collect());
            }
            None => {}
        }
        state.insert(m, false);
        path.push(m);
        for next in edges.get(m).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, state, path) {
                return Some(cycle);
            }
        }
        path.pop();
        state.insert(m, true);
        None
    }
    let mut state = BTreeMap::new();
    for m in edges.keys() {
        if let Some(cycle) = visit(m, &edges, &mut state, &mut Vec::new()) {
            panic!("import cycle: {}", cycle.join(" -> "));
        }
    }
    assert!(edges.len() > 50, "the compiler's modules were not found ({})", edges.len());
}

#[test]
fn the_graph_stage_names_no_operator() {
    let mods = modules();
    for (name, code) in mods.iter().filter(|(n, _)| n.starts_with("graph")) {
        for op in ["crate::ops", "circular_buffer", "decode::", "DEQUANTIZE", "READ_VARIABLE", "VAR_HANDLE"] {
            assert!(!code.contains(op), "{name} names {op}");
        }
    }
}
