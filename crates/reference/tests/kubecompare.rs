//! Byte-level parity of the kube-compare outputs and input collection, against the recorded
//! conformance corpus (`../shared/conformance/kube-compare`).
//!
//! Each case's `expected.json` is read back into the report model and rendered again: the
//! JSON must match byte for byte, and so must the text report (`expected.txt`), the YAML and
//! JUnit reports where recorded, and the generate-patches list. The CRs collected from each
//! case's inputs must cover every `CRName` and unmatched id of the report.
//!
//! Every test needs the corpus, so each is `#[ignore]`d on a plain clone; `.ci/run` runs them.

use std::collections::BTreeSet;
use std::path::PathBuf;

use driftlint_reference::engine::collect::collect_crs;
use driftlint_reference::report::{self, Output};
use serde_json::Value;

/// Case folders in the corpus, and of them those with an `expected.json` (counted when this
/// was written; the corpus only grows, so fewer means it was emptied, moved or misread).
const MIN_CASES: usize = 117;
const MIN_RECORDED: usize = 95;

struct Case {
    name: String,
    dir: PathBuf,
    meta: Value,
}

/// The corpus' cases, sorted; `None` when the corpus is absent (see `driftlint_test_support::corpus`). The
/// folder is canonical, because collected paths are cleaned like Go's `filepath.Join` does.
fn cases(test: &str) -> Option<Vec<Case>> {
    let root = driftlint_test_support::corpus(test, "kube-compare")?;
    let mut out: Vec<Case> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().join("case.yaml").is_file())
        .map(|e| {
            let dir = e.path();
            let text = std::fs::read_to_string(dir.join("case.yaml")).unwrap();
            let stream = driftlint_yaml::parse_stream(&text);
            let meta = stream.documents[0].root.to_json();
            Case { name: e.file_name().to_string_lossy().into_owned(), dir, meta }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    driftlint_test_support::assert_min_cases("kube-compare case folders", out.len(), MIN_CASES);
    Some(out)
}

fn read(case: &Case, file: &str) -> Option<String> {
    std::fs::read_to_string(case.dir.join(file)).ok()
}

fn output(case: &Case) -> Option<(String, Output)> {
    let json = read(case, "expected.json")?;
    let value: Value = serde_json::from_str(&json).unwrap();
    Some((json, Output::from_value(&value).unwrap()))
}

/// Compares and collects a readable failure instead of stopping at the first case.
fn check(failures: &mut Vec<String>, case: &str, what: &str, got: &str, want: &str) {
    if got != want {
        let line = got.lines().zip(want.lines()).position(|(a, b)| a != b).unwrap_or(0);
        failures.push(format!(
            "{case} {what}: first difference at line {}\n got: {:?}\nwant: {:?}",
            line + 1,
            got.lines().nth(line),
            want.lines().nth(line)
        ));
    }
}

/// Fails on any failure, and when fewer than `min` cases were checked.
fn finish(what: &str, failures: Vec<String>, checked: usize, min: usize) {
    assert!(failures.is_empty(), "{} of {checked} failed:\n{}", failures.len(), failures.join("\n"));
    driftlint_test_support::assert_min_cases(what, checked, min);
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn json_round_trips_byte_for_byte() {
    let Some(cases) = cases("json_round_trips_byte_for_byte") else { return };
    let mut failures = Vec::new();
    let mut n = 0;
    for case in cases {
        let Some((json, out)) = output(&case) else {
            continue;
        };
        n += 1;
        check(&mut failures, &case.name, "json", &report::to_json(&out), &json);
        let code = case.meta["expectExit"].as_i64().unwrap_or(-1);
        if out.exit_code() != i32::try_from(code).unwrap_or(-1) {
            failures.push(format!("{}: exit {} != {code}", case.name, out.exit_code()));
        }
    }
    finish("json reports", failures, n, MIN_RECORDED);
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn text_report_matches() {
    let Some(cases) = cases("text_report_matches") else { return };
    let mut failures = Vec::new();
    let mut n = 0;
    for case in cases {
        let (Some((_, out)), Some(txt)) = (output(&case), read(&case, "expected.txt")) else {
            continue;
        };
        n += 1;
        let verbose = case.meta["verbose"].as_bool().unwrap_or(false);
        check(&mut failures, &case.name, "text", &report::text::to_text(&out, verbose), &txt);
    }
    finish("text reports", failures, n, MIN_RECORDED);
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn native_formats_match() {
    let Some(cases) = cases("native_formats_match") else { return };
    let mut failures = Vec::new();
    let mut n = 0;
    for case in cases {
        let Some((_, out)) = output(&case) else {
            continue;
        };
        if let Some(yaml) = read(&case, "expected.native.yaml") {
            n += 1;
            // The corpus shortened temp paths and dates *after* go-yaml folded long strings at
            // 80 columns, so folded DiffOutput lines cannot match byte for byte: compare the
            // values, and the bytes when no diff text is folded.
            let got = report::to_yaml(&out);
            let parse = |s: &str| driftlint_yaml::parse_stream(s).documents[0].root.to_json();
            if parse(&got) != parse(&yaml) {
                failures.push(format!("{}: yaml values differ", case.name));
            }
            if out.diffs.iter().all(|d| d.diff_output.is_empty()) {
                check(&mut failures, &case.name, "yaml", &got, &yaml);
            }
        }
        if let Some(xml) = read(&case, "expected.native.junit.xml") {
            n += 1;
            check(&mut failures, &case.name, "junit", &report::junit::to_junit(&out, "TIME"), &xml);
        }
    }
    finish("native YAML and JUnit reports", failures, n, 2);
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn generate_patches_round_trip() {
    let Some(cases) = cases("generate_patches_round_trip") else { return };
    let mut n = 0;
    for case in cases {
        let Some(want) = read(&case, "expected.native.patches.yaml").filter(|s| !s.is_empty()) else {
            continue;
        };
        n += 1;
        let entries = driftlint_yaml::parse_stream(&want).documents[0].root.to_json();
        let list = entries.as_array().cloned().unwrap_or_default();
        let (loaded, new) = list.split_at(list.len() / 2);
        assert_eq!(report::patches::generate_patches_yaml(loaded, new), want, "{}", case.name);
    }
    driftlint_test_support::assert_min_cases("generate-patches lists", n, 1);
}

fn inputs(case: &Case) -> Vec<String> {
    case.meta["inputs"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).map(|s| case.dir.join(s).display().to_string()).collect())
        .unwrap_or_default()
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn collection_covers_reported_crs() {
    let Some(cases) = cases("collection_covers_reported_crs") else { return };
    let mut failures = Vec::new();
    let mut n = 0;
    for case in cases {
        let Some((_, out)) = output(&case) else {
            continue;
        };
        let recursive = case.meta["recursive"].as_bool().unwrap_or(false);
        let collected = match collect_crs(&inputs(&case), recursive) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{}: {e}", case.name));
                continue;
            }
        };
        n += 1;
        let ids: BTreeSet<&str> = collected.crs.iter().map(|c| c.id.as_str()).collect();
        let reported: BTreeSet<&str> = out
            .diffs
            .iter()
            .map(|d| d.cr_name.as_str())
            .chain(out.summary.unmatched_crs.iter().map(String::as_str))
            .collect();
        if !reported.is_subset(&ids) {
            failures.push(format!("{}: reported but not collected: {:?}", case.name, reported.difference(&ids)));
        }
        if case.meta["allResources"].as_bool() == Some(true) && reported != ids {
            failures.push(format!("{}: -A but collected {ids:?} != reported {reported:?}", case.name));
        }
        // Skip warnings: same text as the recorded stderr once the case folder is made relative.
        if let Some(stderr) = read(&case, "expected.stderr") {
            let prefix = format!("{}/", case.dir.display());
            for w in &collected.warnings {
                let rel = w.replace(&prefix, "");
                if !stderr.contains(&rel) {
                    failures.push(format!("{}: warning not in stderr: {rel:?}", case.name));
                }
            }
        }
    }
    finish("collections", failures, n, MIN_RECORDED);
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn collection_errors_match_recorded_stderr() {
    let Some(cases) = cases("collection_errors_match_recorded_stderr") else { return };
    let mut n = 0;
    for case in cases {
        let Some(stderr) = read(&case, "expected.stderr") else {
            continue;
        };
        let Some(line) = stderr.lines().find(|l| l.starts_with("error: failed to collect resources")) else {
            continue;
        };
        n += 1;
        let recursive = case.meta["recursive"].as_bool().unwrap_or(false);
        let err = collect_crs(&inputs(&case), recursive).unwrap_err();
        let prefix = format!("{}/", case.dir.display());
        assert_eq!(format!("error: {err}").replace(&prefix, ""), line, "{}", case.name);
    }
    driftlint_test_support::assert_min_cases("collection errors", n, 1);
}
