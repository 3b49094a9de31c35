//! The crate layout of docs/architecture.md, held: which workspace crate may depend on which,
//! and no import circle between the modules of any crate (found by `.ci/cycles.py`, the one
//! implementation of that rule).
//!
//! A new crate fails [`crates_depend_only_downwards`] until it is given its place in
//! [`LAYERS`]; a new `use` that closes a circle fails [`no_module_imports_another_in_a_circle`]
//! with the circle's files named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

/// Each workspace crate and the workspace crates it may depend on (normal dependencies).
const LAYERS: &[(&str, &[&str])] = &[
    // Leaves: formats we implement ourselves.
    ("driftlint-yaml", &[]),
    ("driftlint-goregex", &[]),
    ("driftlint-gotmpl", &["driftlint-yaml", "driftlint-goregex"]),
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
            "driftlint-goregex",
            "driftlint-cel",
            "driftlint-kube-schemas",
        ],
    ),
    ("driftlint-crossplane", &["driftlint-core", "driftlint-schema", "driftlint-yaml", "driftlint-goregex"]),
    ("driftlint-policy", &["driftlint-core", "driftlint-git", "driftlint-yaml"]),
    ("driftlint-admission", &["driftlint-core", "driftlint-cel"]),
    (
        "driftlint-reference",
        &["driftlint-core", "driftlint-git", "driftlint-yaml", "driftlint-gotmpl", "driftlint-goregex"],
    ),
    // What the tests share: no workspace crate below it, and only tests above it.
    ("driftlint-test-support", &[]),
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
            "driftlint-admission",
            "driftlint-cel",
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

/// The circles `.ci/cycles.py` finds in the crates whose source roots are `sources`: one line
/// each (`ROOT [a, b]`), or `None` (after a `SKIPPED` line) when there is no `python3`.
///
/// The circle rule has one implementation, the script (it follows `use` trees, re-exports
/// and paths through a module's children, and leaves out test code); this test runs it so
/// that `cargo test` holds the rule as `.ci/run` does.
fn circles(sources: &[PathBuf]) -> Option<Vec<String>> {
    let script = root().join(".ci/cycles.py");
    let out = match Command::new("python3").arg(&script).args(sources).output() {
        Ok(out) => out,
        Err(e) => {
            driftlint_test_support::skip(
                "import circles",
                &format!("python3 cannot run ({e}): the circle check needs it"),
            );
            return None;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{} failed: {}{}",
        script.display(),
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    Some(stdout.lines().map(str::to_string).collect())
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
    let Some(report) = circles(&sources) else { return };
    assert!(report.is_empty(), "import circles (move the shared piece down a layer):\n{}", report.join("\n"));
}

#[test]
fn the_circle_finder_sees_a_circle() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod c;\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::b::B;\npub struct A;\n").unwrap();
    std::fs::write(src.join("b.rs"), "use super::{a::A, c};\npub struct B;\n").unwrap();
    std::fs::write(src.join("c.rs"), "// use crate::a;\npub fn f() {}\n#[cfg(test)]\nmod t { use crate::a::A; }\n")
        .unwrap();
    let Some(found) = circles(std::slice::from_ref(&src)) else { return };
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("'a'") && found[0].contains("'b'") && !found[0].contains("'c'"), "{found:?}");
    // A child using its parent's items is no circle.
    std::fs::create_dir(src.join("d")).unwrap();
    std::fs::write(src.join("b.rs"), "use super::c;\npub struct B;\n").unwrap();
    std::fs::write(src.join("d/mod.rs"), "mod e;\nuse e::E;\npub struct D;\n").unwrap();
    std::fs::write(src.join("d/e.rs"), "use super::D;\npub struct E;\n").unwrap();
    assert_eq!(circles(&[src]), Some(Vec::new()));
}

/// One name per module: the root crate re-exports no workspace crate (nor any of its items),
/// so every path in the code names the crate that owns what it uses.
#[test]
fn the_root_crate_re_exports_no_workspace_crate() {
    let mut found = Vec::new();
    let mut stack = vec![root().join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (i, line) in text.lines().enumerate() {
                    let code = line.trim_start();
                    let re_export = ["pub use ", "pub(crate) use "].iter().any(|p| code.starts_with(p));
                    if re_export && code.contains("driftlint_") {
                        found.push(format!("{}:{}: {code}", path.strip_prefix(root()).unwrap().display(), i + 1));
                    }
                }
            }
        }
    }
    found.sort();
    assert!(found.is_empty(), "re-exports of workspace crates in the root crate:\n{}", found.join("\n"));
}
