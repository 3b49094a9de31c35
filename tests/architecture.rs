//! The crate layout of docs/architecture.md, held: which workspace crate may depend on which,
//! and no import circle between the modules of any crate.
//!
//! A new crate fails [`crates_depend_only_downwards`] until it is given its place in
//! [`LAYERS`]; a new `use` that closes a circle fails [`no_module_imports_another_in_a_circle`]
//! with the circle's files named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Each workspace crate and the workspace crates it may depend on (normal dependencies).
const LAYERS: &[(&str, &[&str])] = &[
    // Leaves: formats we implement ourselves.
    ("driftlint-yaml", &[]),
    ("driftlint-gotmpl", &["driftlint-yaml"]),
    // Kubernetes' CEL environment over the `cel` crate.
    ("driftlint-cel", &[]),
    // Kubernetes' built-in kinds' schemas, bundled per version.
    ("driftlint-kube-schemas", &[]),
    // The ground.
    ("driftlint-core", &["driftlint-yaml"]),
    ("driftlint-git", &["driftlint-core"]),
    // The check families.
    (
        "driftlint-schema",
        &[
            "driftlint-core",
            "driftlint-git",
            "driftlint-yaml",
            "driftlint-gotmpl",
            "driftlint-cel",
            "driftlint-kube-schemas",
        ],
    ),
    ("driftlint-crossplane", &["driftlint-core", "driftlint-schema", "driftlint-yaml", "driftlint-gotmpl"]),
    ("driftlint-policy", &["driftlint-core", "driftlint-git", "driftlint-yaml"]),
    ("driftlint-admission", &["driftlint-core", "driftlint-cel"]),
    ("driftlint-reference", &["driftlint-core", "driftlint-git", "driftlint-yaml", "driftlint-gotmpl"]),
    // The binary: the runner, git scopes, reports and the command line over everything.
    (
        "driftlint",
        &[
            "driftlint-core",
            "driftlint-git",
            "driftlint-yaml",
            "driftlint-gotmpl",
            "driftlint-schema",
            "driftlint-crossplane",
            "driftlint-policy",
            "driftlint-reference",
            "driftlint-kube-schemas",
        ],
    ),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn crates_depend_only_downwards() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let allowed: BTreeMap<&str, BTreeSet<&str>> =
        LAYERS.iter().map(|(name, deps)| (*name, deps.iter().copied().collect())).collect();
    let mut seen = BTreeSet::new();
    let mut wrong = Vec::new();
    for package in meta["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        if name.ends_with("-fuzz") {
            continue;
        }
        seen.insert(name.to_string());
        let Some(may) = allowed.get(name) else {
            wrong.push(format!("{name}: not in LAYERS (tests/architecture.rs): give it its place"));
            continue;
        };
        for dep in package["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            let normal = dep["kind"].is_null();
            if normal && dep_name.starts_with("driftlint") && !may.contains(dep_name) {
                wrong.push(format!("{name} depends on {dep_name}, which is not below it"));
            }
        }
    }
    for (name, _) in LAYERS {
        assert!(seen.contains(*name), "{name} is in LAYERS but not in the workspace");
    }
    assert!(wrong.is_empty(), "the crate layering is broken:\n{}", wrong.join("\n"));
}

/// A module of a crate: its path (`engine::collect`) and the text of its file, without test
/// code (`#[cfg(test)]` and after) and comments.
struct Module {
    path: Vec<String>,
    text: String,
}

fn modules(src: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                parts.pop();
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let code: String =
                code.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n");
            out.push(Module { path: parts, text: code });
        }
    }
    out
}

/// The paths a module's code names through `crate::` or `super::` (a `{…}` group expanded
/// one level), as absolute module paths.
fn named_paths(m: &Module) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = m.text.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    for anchor in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = m.text[from..].find(anchor) {
            let start = from + at;
            from = start + anchor.len();
            if start > 0 && ident(bytes[start - 1]) {
                continue;
            }
            let mut base: Vec<String> =
                if anchor == "crate::" { Vec::new() } else { m.path[..m.path.len().saturating_sub(1)].to_vec() };
            let rest = &m.text[from..];
            // `super::super::x`
            let mut rest = rest;
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            let mut segments = Vec::new();
            let mut r = rest;
            loop {
                let len = r.bytes().take_while(|b| ident(*b)).count();
                if len == 0 {
                    break;
                }
                segments.push(r[..len].to_string());
                r = &r[len..];
                match r.strip_prefix("::") {
                    Some(next) => r = next,
                    None => break,
                }
            }
            if let Some(group) = r.strip_prefix('{') {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                for item in group.split(',') {
                    let first =
                        item.trim().split("::").next().unwrap_or_default().split(' ').next().unwrap_or_default();
                    if !first.is_empty() && first != "self" {
                        let mut p = base.clone();
                        p.extend(segments.iter().cloned());
                        p.push(first.to_string());
                        out.push(p);
                    }
                }
            }
            let mut p = base;
            p.extend(segments);
            out.push(p);
        }
    }
    out
}

/// The circles among the modules of the crate at `src`: file-level imports, where a module's
/// use of items of its own ancestors (a child and the module that declares it) does not count.
fn circles(src: &Path) -> Vec<Vec<String>> {
    let mods = modules(src);
    let known: BTreeSet<Vec<String>> = mods.iter().map(|m| m.path.clone()).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for m in &mods {
        for p in named_paths(m) {
            // The longest known module the path names.
            let Some(target) = (0..=p.len()).rev().map(|k| p[..k].to_vec()).find(|c| known.contains(c)) else {
                continue;
            };
            let ancestor = m.path.starts_with(&target);
            if target != m.path && !ancestor {
                edges.entry(m.path.clone()).or_default().insert(target);
            }
        }
    }
    // Strongly connected components (Tarjan's, iterative).
    let nodes: Vec<Vec<String>> = known.iter().cloned().collect();
    let mut index: BTreeMap<&Vec<String>, usize> = BTreeMap::new();
    let mut low: BTreeMap<&Vec<String>, usize> = BTreeMap::new();
    let mut on_stack = BTreeSet::new();
    let mut stack: Vec<&Vec<String>> = Vec::new();
    let mut found = Vec::new();
    let empty = BTreeSet::new();
    for root in &nodes {
        if index.contains_key(root) {
            continue;
        }
        let mut frames = vec![(root, edges.get(root).unwrap_or(&empty).iter())];
        index.insert(root, index.len());
        low.insert(root, index[root]);
        stack.push(root);
        on_stack.insert(root);
        while let Some((node, next)) = frames.last_mut() {
            let node = *node;
            if let Some(n) = next.next() {
                if !index.contains_key(n) {
                    index.insert(n, index.len());
                    low.insert(n, index[n]);
                    stack.push(n);
                    on_stack.insert(n);
                    frames.push((n, edges.get(n).unwrap_or(&empty).iter()));
                } else if on_stack.contains(n) {
                    low.insert(node, low[node].min(index[n]));
                }
                continue;
            }
            frames.pop();
            if let Some((up, _)) = frames.last() {
                low.insert(*up, low[*up].min(low[node]));
            }
            if low[node] == index[node] {
                let mut component = Vec::new();
                while let Some(top) = stack.pop() {
                    on_stack.remove(top);
                    component.push(if top.is_empty() { "(crate root)".to_string() } else { top.join("::") });
                    if top == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    found.push(component);
                }
            }
        }
    }
    found
}

#[test]
fn no_module_imports_another_in_a_circle() {
    let mut sources = vec![root().join("src")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    crates.sort();
    sources.extend(crates);
    let mut report = Vec::new();
    for src in &sources {
        for circle in circles(src) {
            report.push(format!("{}: {}", src.strip_prefix(root()).unwrap().display(), circle.join(" <-> ")));
        }
    }
    assert!(report.is_empty(), "import circles (move the shared piece down a layer):\n{}", report.join("\n"));
}

#[test]
fn the_circle_finder_sees_a_circle() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod c;\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::b::B;\npub struct A;\n").unwrap();
    std::fs::write(src.join("b.rs"), "use super::{a::A, c};\npub struct B;\n").unwrap();
    std::fs::write(src.join("c.rs"), "// use crate::a;\npub fn f() {}\n#[cfg(test)]\nmod t { use crate::a::A; }\n")
        .unwrap();
    assert_eq!(circles(src), vec![vec!["a".to_string(), "b".to_string()]]);
    // A child using its parent's items is no circle.
    std::fs::create_dir(src.join("d")).unwrap();
    std::fs::write(src.join("b.rs"), "use super::c;\npub struct B;\n").unwrap();
    std::fs::write(src.join("d/mod.rs"), "mod e;\nuse e::E;\npub struct D;\n").unwrap();
    std::fs::write(src.join("d/e.rs"), "use super::D;\npub struct E;\n").unwrap();
    assert_eq!(circles(src), Vec::<Vec<String>>::new());
}
