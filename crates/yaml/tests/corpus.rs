//! Writer conformance against the kube-compare corpus (`shared/conformance/kube-compare`).
//!
//! Each `expected.json` holds unified diffs whose `+`/` ` lines are the LIVE file: the
//! cluster CR from `resources/` written by `sigs.k8s.io/yaml.Marshal` after kube-compare's
//! built-in omissions. We load the same CR, apply the built-in omissions, write it, and check
//! that every hunk's LIVE lines appear in our output — at the exact line number when the case
//! uses only the built-in omissions.
//!
//! Both tests need the corpus: `#[ignore]`d on a plain clone, run by `.ci/run`.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use driftlint_yaml::{parse_stream, to_yaml_string};
use serde_json::Value;

mod common;

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    common::files_with(dir, &["yaml", "yml", "json"], out);
}

/// `apiVersion_kind[_namespace]_name`, kube-compare's CR id.
fn cr_id(obj: &Value) -> Option<String> {
    let s = |p: &str| obj.pointer(p).and_then(Value::as_str).unwrap_or("").to_owned();
    let (api, kind, ns, name) = (s("/apiVersion"), s("/kind"), s("/metadata/namespace"), s("/metadata/name"));
    if kind.is_empty() {
        return None;
    }
    Some(if ns.is_empty() { format!("{api}_{kind}_{name}") } else { format!("{api}_{kind}_{ns}_{name}") })
}

/// kube-compare's built-in omit list (spec §2.6), with the removal of emptied maps.
fn omit_builtin(obj: &mut Value) {
    let paths: &[&[&str]] = &[
        &["metadata", "resourceVersion"],
        &["metadata", "uid"],
        &["metadata", "creationTimestamp"],
        &["metadata", "generation"],
        &["metadata", "managedFields"],
        &["metadata", "selfLink"],
        &["metadata", "generateName"],
        &["metadata", "finalizers"],
        &["kubectl.kubernetes.io/last-applied-configuration"],
        &["metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration"],
        &["status"],
    ];
    for path in paths {
        remove_path(obj, path);
    }
}

/// Removes `path`; then every map on the path left empty is removed too.
fn remove_path(obj: &mut Value, path: &[&str]) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut cur = &mut *obj;
    for p in parents {
        match cur.get_mut(*p) {
            Some(next) if next.is_object() => cur = next,
            _ => return,
        }
    }
    if let Some(map) = cur.as_object_mut() {
        map.remove(*last);
    }
    for depth in (1..=parents.len()).rev() {
        let prefix = &path[..depth];
        let (leaf, up) = prefix.split_last().unwrap();
        let mut cur = &mut *obj;
        for p in up {
            cur = cur.get_mut(*p).unwrap();
        }
        if cur.get(*leaf).is_some_and(|v| v.as_object().is_some_and(serde_json::Map::is_empty)) {
            cur.as_object_mut().unwrap().remove(*leaf);
        }
    }
}

/// The LIVE lines of each hunk with the hunk's LIVE start line.
fn live_hunks(diff: &str) -> Vec<(usize, Vec<&str>)> {
    let mut hunks = Vec::new();
    for line in diff.lines() {
        if let Some(header) = line.strip_prefix("@@ ") {
            let plus = header.split(' ').find(|p| p.starts_with('+')).unwrap_or("+1");
            let start = plus[1..].split(',').next().unwrap_or("1").parse().unwrap_or(1);
            hunks.push((start, Vec::new()));
        } else if let Some((_, lines)) = hunks.last_mut()
            && let Some(rest) = line.strip_prefix('+').or_else(|| line.strip_prefix(' '))
        {
            lines.push(rest);
        }
    }
    hunks
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn live_side_of_corpus_diffs_matches_our_writer() {
    let Some(corpus) = driftlint_test_support::corpus("live_side_of_corpus_diffs_matches_our_writer", "kube-compare")
    else {
        return;
    };
    let mut cases: Vec<PathBuf> = fs::read_dir(&corpus).unwrap().flatten().map(|e| e.path()).collect();
    cases.sort();
    let (mut exact, mut shifted, mut loose, mut failures) = (0, 0, 0, Vec::new());
    let mut checked_lines = 0;
    for case in cases {
        let Ok(text) = fs::read_to_string(case.join("expected.json")) else { continue };
        let expected: Value = serde_json::from_str(&text).unwrap();
        let diffs = expected["Diffs"].as_array().cloned().unwrap_or_default();
        if diffs.iter().all(|d| d["DiffOutput"].as_str().unwrap_or("").is_empty()) {
            continue;
        }
        let mut files = Vec::new();
        yaml_files(&case.join("resources"), &mut files);
        let mut crs: HashMap<String, Value> = HashMap::new();
        for file in files {
            let Ok(src) = fs::read_to_string(&file) else { continue };
            for doc in parse_stream(&src).documents {
                let obj = doc.root.to_json();
                if let Some(id) = cr_id(&obj) {
                    crs.entry(id).or_insert(obj);
                }
            }
        }
        for diff in diffs {
            let output = diff["DiffOutput"].as_str().unwrap_or("");
            if !output.starts_with("diff -u") {
                continue;
            }
            let name = diff["CRName"].as_str().unwrap_or("");
            let Some(mut cr) = crs.get(name).cloned() else {
                failures.push(format!("{}: CR {name} not found in resources", case.display()));
                continue;
            };
            if cr["kind"] == "Secret" {
                continue; // the kubectl masker rewrites `data`
            }
            // The built-in omissions, or (for cases with a custom omit list that keeps
            // `status`) only `managedFields`, which kube-compare always drops.
            let mut plain = cr.clone();
            remove_path(&mut plain, &["metadata", "managedFields"]);
            omit_builtin(&mut cr);
            let candidates = [to_yaml_string(&cr), to_yaml_string(&plain)];
            for (start, live) in live_hunks(output) {
                checked_lines += live.len();
                let at = start.saturating_sub(1);
                let mut outcome = None;
                for (n, written) in candidates.iter().enumerate() {
                    let ours: Vec<&str> = written.lines().collect();
                    let found = if ours.get(at..at + live.len()) == Some(live.as_slice()) {
                        Some(if n == 0 { 0 } else { 1 })
                    } else if ours.windows(live.len().max(1)).any(|w| w == live.as_slice()) {
                        Some(1)
                    } else if live.iter().all(|l| ours.contains(l)) {
                        Some(2) // a custom omit list removed lines inside the hunk
                    } else {
                        None
                    };
                    if found.is_some() {
                        outcome = found;
                        break;
                    }
                }
                match outcome {
                    Some(0) => exact += 1,
                    Some(1) => shifted += 1,
                    Some(_) => loose += 1,
                    None => {
                        let ours: Vec<&str> = candidates[0].lines().collect();
                        let missing: Vec<&&str> = live.iter().filter(|l| !ours.contains(l)).collect();
                        failures.push(format!(
                            "{} / {name}: lines missing from our output: {missing:?}\n--- ours:\n{}",
                            case.display(),
                            candidates[0]
                        ));
                    }
                }
            }
        }
    }
    println!("corpus hunks: {exact} exact, {shifted} shifted, {loose} loose; {checked_lines} lines");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // 50 hunks (49 at their exact line) when this was written.
    driftlint_test_support::assert_min_cases("diff hunks", exact + shifted + loose, 50);
    assert!(exact >= 45, "too few hunks matched at their exact line: {exact}");
}

/// Every corpus resource survives load → JSON → write → load unchanged, and writing is stable.
#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn corpus_resources_round_trip() {
    let Some(corpus) = driftlint_test_support::corpus("corpus_resources_round_trip", "kube-compare") else { return };
    let mut files = Vec::new();
    for case in fs::read_dir(&corpus).unwrap().flatten() {
        yaml_files(&case.path().join("resources"), &mut files);
    }
    let mut documents = 0;
    for file in &files {
        let Ok(src) = fs::read_to_string(file) else { continue };
        let stream = parse_stream(&src);
        for doc in &stream.documents {
            let json = doc.root.to_json();
            let written = to_yaml_string(&json);
            let reread = parse_stream(&written);
            assert_eq!(reread.error, None, "{}: {written}", file.display());
            let again = reread.documents[0].root.to_json();
            assert_eq!(again, json, "{}", file.display());
            assert_eq!(to_yaml_string(&again), written, "{}", file.display());
            documents += 1;
        }
    }
    println!("round-tripped {documents} documents from {} files", files.len());
    // 474 documents in 332 files when this was written.
    driftlint_test_support::assert_min_cases("corpus resource documents", documents, 474);
}
