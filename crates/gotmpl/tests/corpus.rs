//! Runs the golden corpus (`shared/conformance/gotemplate`) in process through
//! [`driftlint_gotmpl::case::eval_case`], with the scorer's pass rule.
//!
//! The engine's own areas (`language`, `builtins`, `printing`) must pass completely; every
//! other case must pass when `tests/conformance/passing-gotemplate.txt` (the scorer's ratchet)
//! lists it. Both need the corpus: `#[ignore]`d on a plain clone, run by `.ci/run`
//! (`cargo test -p driftlint-gotmpl --test corpus -- --ignored` runs them alone).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use driftlint_gotmpl::case::eval_case;

/// Cases in the corpus, and in the engine's own areas, counted when this was written.
const MIN_CASES: usize = 1151;
const MIN_ENGINE_CASES: usize = 432;

/// One area's cases: (name, failure), the failure `None` when the case passed.
fn run_area(dir: &Path, area: &str) -> Vec<(String, Option<String>)> {
    let text = std::fs::read_to_string(dir.join("json").join(format!("{area}.json"))).expect("corpus area file");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("corpus JSON");
    let mut out = Vec::new();
    for case in doc["cases"].as_array().expect("cases") {
        let mut input = serde_json::json!({
            "template": case["template"],
            "defines": case["defines"],
            "data": case["data"],
        });
        if let Some(crs) = case.get("crs") {
            input["crs"] = crs.clone();
        }
        let got: serde_json::Value =
            serde_json::from_str(&eval_case(&input.to_string())).expect("eval_case prints JSON");
        let ok = match (case.get("output"), case.get("error")) {
            (Some(serde_json::Value::Null), _) => got.get("output").is_some(),
            (Some(want), _) => got.get("output") == Some(want),
            (None, Some(err)) => got.pointer("/error/phase") == err.get("phase"),
            _ => false,
        };
        let name = case["name"].as_str().expect("a case name").to_owned();
        let failure = (!ok).then(|| format!("{area}/{name}: got {got}"));
        out.push((name, failure));
    }
    out
}

/// The corpus' areas (`json/<area>.json`), sorted.
fn areas(dir: &Path) -> Vec<String> {
    let mut areas: Vec<String> = std::fs::read_dir(dir.join("json"))
        .expect("json dir")
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".json").map(String::from))
        .collect();
    areas.sort();
    areas
}

/// The cases the scorer's ratchet lists as passing.
fn ratchet() -> BTreeSet<String> {
    let path: PathBuf = driftlint_test_support::repo_root().join("tests/conformance/passing-gotemplate.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(String::from).collect()
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn engine_areas_match_go() {
    let Some(dir) = driftlint_test_support::corpus("engine_areas_match_go", "gotemplate") else { return };
    let mut checked = 0;
    for area in ["language", "builtins", "printing"] {
        let results = run_area(&dir, area);
        checked += results.len();
        let failures: Vec<&String> = results.iter().filter_map(|(_, f)| f.as_ref()).collect();
        assert!(failures.is_empty(), "{area}: {} of {} failed:\n{failures:#?}", failures.len(), results.len());
    }
    driftlint_test_support::assert_min_cases("engine cases", checked, MIN_ENGINE_CASES);
}

/// Every area, in process: a case the ratchet lists must pass (the scorer checks the same
/// through the CLI). Slow in debug builds (key generation).
#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn every_area() {
    let Some(dir) = driftlint_test_support::corpus("every_area", "gotemplate") else { return };
    let listed = ratchet();
    let (mut checked, mut passed, mut regressions) = (0, 0, Vec::new());
    for area in areas(&dir) {
        let results = run_area(&dir, &area);
        let failed = results.iter().filter(|(_, f)| f.is_some()).count();
        println!("{area:20} {:5} passed {failed:5} failed", results.len() - failed);
        for (name, failure) in results {
            checked += 1;
            match failure {
                None => passed += 1,
                Some(f) if listed.contains(&name) => regressions.push(f),
                Some(f) => println!("    {f}"),
            }
        }
    }
    println!("{passed} of {checked} passed");
    assert!(regressions.is_empty(), "{} listed cases fail:\n{}", regressions.len(), regressions.join("\n"));
    driftlint_test_support::assert_min_cases("gotemplate cases", checked, MIN_CASES);
}
