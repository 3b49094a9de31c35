//! Runs the golden corpus (`shared/conformance/gotemplate`) in process through
//! [`driftlint_gotmpl::case::eval_case`], with the scorer's pass rule.
//!
//! The engine's own areas (`language`, `builtins`, `printing`) must pass completely. The other
//! areas exercise the function library; `every_area` reports them and is run on demand
//! (`cargo test -p driftlint-gotmpl --test corpus -- --ignored`). Skipped, with a note, when the
//! corpus is not beside the repository.

use std::path::PathBuf;

use driftlint_gotmpl::case::eval_case;

fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("GOTEMPLATE_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/gotemplate"),
    };
    dir.join("json").is_dir().then_some(dir)
}

/// Runs one area; returns (passed, failures).
fn run_area(dir: &std::path::Path, area: &str) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(dir.join("json").join(format!("{area}.json"))).expect("corpus area file");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("corpus JSON");
    let mut passed = 0;
    let mut failures = Vec::new();
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
        if ok {
            passed += 1;
        } else {
            failures.push(format!("{}: got {got}", case["name"]));
        }
    }
    (passed, failures)
}

#[test]
fn engine_areas_match_go() {
    let Some(dir) = corpus_dir() else {
        eprintln!("corpus not found beside the repository; skipping");
        return;
    };
    for area in ["language", "builtins", "printing"] {
        let (passed, failures) = run_area(&dir, area);
        assert!(failures.is_empty(), "{area}: {passed} passed, {} failed:\n{}", failures.len(), failures.join("\n"));
    }
}

#[test]
#[ignore = "slow in debug builds (key generation); run with --ignored"]
fn every_area() {
    let Some(dir) = corpus_dir() else { return };
    let mut areas: Vec<String> = std::fs::read_dir(dir.join("json"))
        .expect("json dir")
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".json").map(String::from))
        .collect();
    areas.sort();
    let (mut total_pass, mut total_fail) = (0, 0);
    for area in &areas {
        let (passed, failures) = run_area(&dir, area);
        println!("{area:20} {passed:5} passed {:5} failed", failures.len());
        for f in &failures {
            println!("    {f}");
        }
        total_pass += passed;
        total_fail += failures.len();
    }
    println!("{total_pass} passed, {total_fail} failed");
}
