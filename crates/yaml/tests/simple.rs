//! The fast loader ([`parse_simple`]) against the full loader on real files: every YAML file
//! of the repository's fixtures and tests and of the kube-compare corpus, and the writer's own
//! output for varied values. Whenever the fast path answers, it must answer exactly what the
//! full loader gives, and it must answer often enough to be worth having. The corpus test is
//! `#[ignore]`d on a plain clone (`.ci/run` runs it).

use std::fs;
use std::path::{Path, PathBuf};

use driftlint_yaml::{parse_simple, parse_simple_documents, parse_stream, to_yaml_string};
use serde_json::{Value, json};

mod common;

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    common::files_with(dir, &["yaml", "yml"], out);
}

/// Checks the contract on `text`; true when the fast path answered.
fn agrees(text: &str, what: &str) -> bool {
    let stream = parse_stream(text);
    if let Some(first) = parse_simple_documents(text, 1) {
        let full_first = stream.documents.first().map(|d| (d.root.to_json(), d.warnings.is_empty()));
        match (first.first(), full_first) {
            (None, None) => assert!(stream.error.is_none(), "{what}: an error the fast path did not see"),
            (Some(v), Some((w, clean))) => {
                assert!(clean, "{what}: first document has warnings");
                assert_eq!(v, &w, "{what}: first document differs");
                assert_eq!(v.to_string(), w.to_string(), "{what}: first document prints differently");
            }
            (f, w) => panic!("{what}: first document: fast {f:?}, full {w:?}"),
        }
    }
    let Some(fast) = parse_simple(text) else { return false };
    assert!(stream.error.is_none(), "{what}: fast path accepted text with an error: {:?}", stream.error);
    for d in &stream.documents {
        assert!(d.warnings.is_empty(), "{what}: fast path accepted text with warnings {:?}", d.warnings);
    }
    let full: Vec<Value> = stream.documents.iter().map(|d| d.root.to_json()).collect();
    assert_eq!(fast, full, "{what}: values differ");
    let printed = |v: &[Value]| v.iter().map(Value::to_string).collect::<Vec<_>>();
    assert_eq!(printed(&fast), printed(&full), "{what}: values print differently");
    true
}

/// Checks every file of `files`; returns how many the fast path answered.
fn taken_of(files: &[PathBuf]) -> usize {
    let mut taken = 0;
    for path in files {
        let Ok(text) = fs::read_to_string(path) else { continue };
        if agrees(&text, &path.display().to_string()) {
            taken += 1;
        }
    }
    taken
}

#[test]
fn repository_files() {
    let root = driftlint_test_support::repo_root();
    let mut files = Vec::new();
    for dir in ["fixtures", "tests"] {
        yaml_files(&root.join(dir), &mut files);
    }
    let taken = taken_of(&files);
    eprintln!("fast path took {taken} of {} repository files", files.len());
    // 24 of 40 files when this was written: most plain manifests, not the deliberately odd YAML.
    driftlint_test_support::assert_min_cases("repository YAML files", files.len(), 40);
    assert!(taken >= 20 && taken * 3 >= files.len(), "fast path took only {taken} of {} files", files.len());
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn corpus_files() {
    let Some(corpus) = driftlint_test_support::corpus("corpus_files", "kube-compare") else { return };
    let mut files = Vec::new();
    yaml_files(&corpus, &mut files);
    let taken = taken_of(&files);
    eprintln!("fast path took {taken} of {} corpus files", files.len());
    driftlint_test_support::assert_min_cases("corpus YAML files", files.len(), MIN_CORPUS_FILES);
    // 826 of 1360 when this was written.
    assert!(taken >= 800 && taken * 3 >= files.len(), "fast path took only {taken} of {} files", files.len());
}

/// YAML files in the kube-compare corpus, counted when this was written.
const MIN_CORPUS_FILES: usize = 1360;

/// Values of the kinds the engine writes and reads back: manifests, odd strings and numbers.
fn samples() -> Vec<Value> {
    let strings = [
        "plain",
        "",
        " lead",
        "trail ",
        "yes",
        "No",
        "null",
        "~",
        "0755",
        "1e3",
        "1_000",
        "0x1F",
        ".5",
        "-",
        "- x",
        "a: b",
        "a #b",
        "#c",
        "a:b",
        "x,y",
        "[a]",
        "{a}",
        "it's",
        "say \"hi\"",
        "back\\slash",
        "é",
        "日本",
        "line\nbreak",
        "tab\there",
        "2001-12-14",
        "12:30",
        "---",
        "...",
        "@at",
        "`tick",
        "%p",
        "&a",
        "*a",
        "!t",
        "|",
        ">",
        "?",
        ":",
        "'",
        "\"",
        "<<",
        "=",
        "true",
        "3.0",
        "-1",
        "+1",
    ];
    let long = "word ".repeat(30);
    let mut values = vec![
        json!({}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "y"}, "data": {"k": "v"}}),
        json!({"spec": {"containers": [{"name": "a", "image": "r/a:1", "args": ["--x=1", "-v"], "ports": [{"containerPort": 80}]}]}}),
        json!({"a": [], "b": {}, "c": null, "d": [[1, 2], [], [{}]], "e": [{"x": [{"y": []}]}]}),
        json!({"n": [0, -1, 1.5, 1e21, 1e-7, 9_007_199_254_740_993_u64, 18_446_744_073_709_551_615_u64, -9_223_372_036_854_775_808_i64]}),
        json!({"long": long, "key with spaces": 1, "8080": "port", "y": "n", "a/b.c-d_e": true}),
        json!({ "k".repeat(200): 1 }),
        json!(["top", {"level": "sequence"}]),
        json!("just a string"),
        json!(42),
    ];
    for s in strings {
        values.extend([json!({ "value": s }), json!({ s: 1 }), json!({"list": [s, {"k": s}]})]);
    }
    values
}

#[test]
fn writer_output() {
    let samples = samples();
    let mut taken = 0;
    for v in &samples {
        let text = to_yaml_string(v);
        if agrees(&text, &format!("writer output of {v}")) {
            taken += 1;
        }
    }
    // Only the ones with escapes, block scalars, folded lines, `''` or odd keys are refused.
    eprintln!("fast path took {taken} of {} writer outputs", samples.len());
    assert!(taken * 10 >= samples.len() * 8, "fast path took only {taken} of {} writer outputs", samples.len());
}
