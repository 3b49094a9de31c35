//! The Rego engine as OPA 1.x compiles it, through the CLI: the differential set
//! (`fixtures/policy/opa-differential/`, OPA's answers recorded by its `record.py`), and the
//! engine options end to end (`--rego-version`, `rego-version:`, `--capabilities`, `--now`,
//! `--strict`, `print()`, data that shadows a rule) through `check` and `policy eval`.

use std::path::Path;

use serde_json::{Value, json};

use super::{json, root, run_in};

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// The location `policy.rego:LINE` appears in `text` (not as a prefix of a longer number).
fn names_line(text: &str, line: u64) -> bool {
    let needle = format!("policy.rego:{line}");
    text.match_indices(&needle).any(|(i, _)| !text[i + needle.len()..].starts_with(|c: char| c.is_ascii_digit()))
}

/// The class (`rego_type_error`, …) driftlint's message names, if any.
fn class_of(stderr: &str) -> Option<String> {
    let at = stderr.find("rego_")?;
    Some(stderr[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect())
}

/// Where regorus' own analysis words an error differently from OPA (the error and its line
/// agree; the class does not).
const OWN_WORDING: [&str; 2] = ["comprehension-unsafe", "unsafe-variable"];

#[test]
fn the_differential_set_agrees_with_opa() {
    let base = root().join("fixtures/policy/opa-differential");
    let mut cases: Vec<_> = std::fs::read_dir(&base).unwrap().flatten().filter(|e| e.path().is_dir()).collect();
    cases.sort_by_key(|e| e.file_name());
    assert!(cases.len() >= 20, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let dir = case.path();
        let name = case.file_name().to_string_lossy().to_string();
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
        let expected: Value = match read("expected-driftlint.json") {
            Some(own) => json!({"opa": serde_json::from_str::<Value>(&own).unwrap(), "prints": []}),
            None => serde_json::from_str(&read("expected.json").expect("recorded truth")).unwrap(),
        };
        let query = format!("data.{}", read("query.txt").unwrap_or_else(|| "main.deny".into()).trim());
        let mut args = vec!["policy", "eval", "--policies", "policy.rego", "--input", "input.json"];
        if dir.join("data.json").exists() {
            args.extend(["--data", "data.json"]);
        }
        args.push(&query);
        let r = run_in(&dir, &args, None);
        let opa = &expected["opa"];
        let outcome = if let Some(error) = opa.get("error") {
            let line = error["line"].as_u64().unwrap();
            let class = error["class"].as_str();
            let ours = class_of(&r.stderr);
            if r.code != 1 || !names_line(&r.stderr, line) {
                Err(format!("expected an error at policy.rego:{line}, got exit {}: {}", r.code, r.stderr))
            } else if class.is_some()
                && ours.is_some()
                && ours.as_deref() != class
                && !OWN_WORDING.contains(&name.as_str())
            {
                Err(format!("expected {class:?}, got {ours:?}: {}", r.stderr))
            } else {
                Ok(())
            }
        } else if r.code != 0 {
            Err(format!("exit {}: {}", r.code, r.stderr))
        } else {
            let got = json(&r);
            let value = &got["result"][0]["expressions"][0]["value"];
            match opa.get("result") {
                Some(want) if want == value => Ok(()),
                Some(want) => Err(format!("expected {want}, got {value}")),
                None if got == json!({}) => Ok(()),
                None => Err(format!("expected undefined, got {got}")),
            }
        };
        let prints: Vec<&str> = r.stderr.lines().filter(|l| l.starts_with("policy.rego:")).collect();
        let want: Vec<&str> = expected["prints"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        let outcome = outcome
            .and_then(|()| if prints == want { Ok(()) } else { Err(format!("prints {prints:?}, expected {want:?}")) });
        if let Err(e) = outcome {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// A complete Deployment: the built-in kinds are validated too (issue 25).
const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n";

/// `check --format json` in `dir` with `args` after the policy flags; the findings as
/// (rule, file:line, message).
fn check(dir: &Path, args: &[&str]) -> (i32, Vec<(String, String, String)>, String) {
    let mut all = vec!["check", "--isolated", "--format", "json"];
    all.extend(args);
    let r = run_in(dir, &all, None);
    let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}\n{}", r.stdout, r.stderr));
    let findings = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let l = &d["labels"][0];
            (
                d["rule"].as_str().unwrap_or_default().to_string(),
                format!("{}:{}", l["file"].as_str().unwrap_or_default(), l["line"]),
                d["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    (r.code, findings, r.stderr)
}

#[test]
fn rego_version_v1_by_default_v0_by_flag_or_configuration() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("m.yaml", DEPLOYMENT),
            ("p/v0.rego", "package main\n\ndeny[msg] {\n  input.kind == \"Deployment\"\n  msg := \"v0 rule\"\n}\n"),
        ],
    );
    let (_, f, stderr) = check(dir.path(), &["--policy", "p", "m.yaml"]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].0.as_str(), f[0].1.as_str()), ("policy-error", "p/v0.rego:3"), "{f:?}");
    assert!(f[0].2.contains("rego_parse_error"), "{f:?}");
    assert!(!stderr.contains("warning"), "no parse noise: {stderr}");
    let (_, f, stderr) = check(dir.path(), &["--policy", "p", "--rego-version", "v0", "m.yaml"]);
    assert_eq!(f.iter().map(|x| x.2.as_str()).collect::<Vec<_>>(), ["v0 rule"], "{f:?}");
    assert!(stderr.is_empty(), "{stderr}");
    write(dir.path(), &[(".driftlint.yaml", "policies: [p]\nrego-version: v0\n")]);
    let r = run_in(dir.path(), &["check", "--format", "json", "m.yaml"], None);
    assert!(r.stdout.contains("v0 rule"), "{}", r.stdout);
    write(dir.path(), &[(".driftlint.yaml", "policies: [p]\nrego-version: v2\n")]);
    let r = run_in(dir.path(), &["check", "--format", "json", "m.yaml"], None);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(".driftlint.yaml:2") && r.stderr.contains("v0 or v1"), "{}", r.stderr);
    // A v0 module using a v1 keyword without its import: an error, never the engine's warnings.
    write(dir.path(), &[("q/k.rego", "package main\n\ndeny contains \"x\" if { true }\n")]);
    let (_, f, stderr) = check(dir.path(), &["--policy", "q", "--rego-version", "v0", "m.yaml"]);
    assert_eq!(f[0].1, "q/k.rego:3", "{f:?}");
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn compile_errors_are_reported_before_any_input_and_capabilities_decide_builtins() {
    let dir = tempfile::tempdir().unwrap();
    let policy = "package main\n\ndeny contains msg if {\n  input.kind == \"NeverMatches\"\n  msg := sprintf(\"%d\", [rand.intn(\"k\", 10)])\n}\n";
    write(
        dir.path(),
        &[
            ("m.yaml", DEPLOYMENT),
            ("p/r.rego", policy),
            ("caps.json", "{\"builtins\": [{\"name\": \"rand.intn\"}, {\"name\": \"sprintf\"}]}"),
        ],
    );
    let (_, f, _) = check(dir.path(), &["--policy", "p", "m.yaml"]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].1, "p/r.rego:5", "{f:?}");
    assert!(f[0].2.contains("rand.intn") && f[0].2.contains("capabilities"), "{f:?}");
    // No input at all: still the compile error.
    let r = run_in(dir.path(), &["policy", "eval", "--policies", "p", "data.main.deny"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("p/r.rego:5"), "{}", r.stderr);
    let (code, f, _) = check(dir.path(), &["--policy", "p", "--capabilities", "caps.json", "m.yaml"]);
    assert!(f.is_empty() && code == 0, "{f:?}");
    // A capabilities file that leaves out `input.kind ==`'s neighbours: `sprintf` alone is named.
    write(dir.path(), &[("narrow.json", "{\"builtins\": [{\"name\": \"rand.intn\"}]}")]);
    let (_, f, _) = check(dir.path(), &["--policy", "p", "--capabilities", "narrow.json", "m.yaml"]);
    assert!(f[0].2.contains("undefined function sprintf"), "{f:?}");
    let r =
        run_in(dir.path(), &["check", "--isolated", "--policy", "p", "--capabilities", "missing.json", "m.yaml"], None);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn a_fixed_clock_makes_time_now_ns_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[("p.rego", "package main\n\nnow := time.now_ns()\n\nday := time.date([time.now_ns(), \"Local\"])\n")],
    );
    let eval = |args: &[&str]| {
        let mut all = vec!["policy", "eval", "--policies", "p.rego"];
        all.extend(args);
        run_in(dir.path(), &all, None)
    };
    let r = eval(&["data.main.now"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("time.now_ns") && r.stderr.contains("--now"), "{}", r.stderr);
    let r = eval(&["--now", "2024-02-03T04:05:06Z", "data.main.now"]);
    assert_eq!(json(&r)["result"][0]["expressions"][0]["value"], json!(1_706_933_106_000_000_000_i64));
    // The local time zone never changes a result: `Local` reads as UTC.
    let r = eval(&["--now", "2024-02-03T23:30:00Z", "data.main.day"]);
    assert_eq!(json(&r)["result"][0]["expressions"][0]["value"], json!([2024, 2, 3]), "{}", r.stderr);
    let r = eval(&["--now", "yesterday", "data.main.now"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn strict_mode_makes_unused_imports_and_locals_errors() {
    let dir = tempfile::tempdir().unwrap();
    let policy = "package main\n\nimport data.lib\n\ndeny contains \"x\" if {\n  unused := input.kind\n  input.kind == \"Deployment\"\n}\n";
    write(dir.path(), &[("m.yaml", DEPLOYMENT), ("p/s.rego", policy)]);
    let (_, f, _) = check(dir.path(), &["--policy", "p", "m.yaml"]);
    assert_eq!(f.iter().map(|x| x.2.as_str()).collect::<Vec<_>>(), ["x"], "{f:?}");
    // Every error, each at its line (OPA prints all of them), in every format.
    let (_, f, _) = check(dir.path(), &["--policy", "p", "--strict", "m.yaml"]);
    let got: Vec<(&str, &str)> = f.iter().map(|x| (x.1.as_str(), x.2.as_str())).collect();
    assert_eq!(
        got,
        [
            ("p/s.rego:3", "rego_compile_error: import data.lib unused"),
            ("p/s.rego:6", "rego_compile_error: assigned var unused unused")
        ],
        "{f:?}"
    );
    let r = run_in(
        dir.path(),
        &["check", "--isolated", "--format", "concise", "--policy", "p", "--strict", "m.yaml"],
        None,
    );
    assert!(r.stdout.contains("p/s.rego:3:") && r.stdout.contains("p/s.rego:6:"), "{}", r.stdout);
    assert!(!r.stdout.contains("more compile error"), "{}", r.stdout);
    // conftest's examples/strict-rules (open-policy-agent/conftest acceptance.bats, "Should fail if
    // strict is set and there are unused variables in the policy"): an unused function argument
    // too, at the function's head; `policy test --strict` refuses the same.
    let lenient = "package main\n\nallow if {\n  input.b == \"foo\"\n  a := 1\n  b := 2\n  a == 1\n}\n\nvalidate(x, y) if {\n  input.test == x\n} else := false if {\n  allow\n}\n\ndeny contains \"v\" if validate(\"foo\", \"bar\")\n";
    write(dir.path(), &[("q/lenient.rego", lenient)]);
    let (_, f, _) = check(dir.path(), &["--policy", "q", "--strict", "m.yaml"]);
    let got: Vec<(&str, &str)> = f.iter().map(|x| (x.1.as_str(), x.2.as_str())).collect();
    assert_eq!(
        got,
        [
            ("q/lenient.rego:6", "rego_compile_error: assigned var b unused"),
            ("q/lenient.rego:10", "rego_compile_error: unused argument y. (hint: use _ (wildcard variable) instead)")
        ],
        "{f:?}"
    );
    let r = run_in(dir.path(), &["policy", "test", "--strict", "q"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("q/lenient.rego:6: rego_compile_error: assigned var b unused"), "{}", r.stderr);
    assert!(r.stderr.contains("q/lenient.rego:10: rego_compile_error: unused argument y"), "{}", r.stderr);
}

#[test]
fn prints_are_escaped_ordered_and_never_workflow_commands() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![(
        "p/print.rego".to_string(),
        "package main\n\ndeny contains \"d\" if {\n  print(sprintf(\"\\n::error file=x::%s\\u001b[31m\", [input.metadata.name]))\n  false\n}\n"
            .to_string(),
    )];
    for i in 0..40 {
        files.push((format!("m/{i:02}.yaml"), DEPLOYMENT.replace("web", &format!("web{i:02}"))));
    }
    let files: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    write(dir.path(), &files);
    let mut outputs = Vec::new();
    for jobs in ["1", "4"] {
        let r = run_in(dir.path(), &["check", "--isolated", "--jobs", jobs, "--policy", "p", "m"], None);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let prints: Vec<&str> = r.stderr.lines().filter(|l| l.starts_with("p/print.rego:4: ")).collect();
        assert_eq!(prints.len(), 40, "{}", r.stderr);
        assert!(prints[0].contains("\\n::error") && prints[0].contains("\\x1b[31m"), "{}", prints[0]);
        assert!(!r.stderr.lines().any(|l| l.trim_start().starts_with("::")), "{}", r.stderr);
        assert!(!r.stdout.contains("::error") && !r.stdout.contains("print.rego:4"), "{}", r.stdout);
        outputs.push(r.stderr);
    }
    assert_eq!(outputs[0], outputs[1], "the same prints in the same order for every --jobs");
}

#[test]
fn a_data_file_that_shadows_a_rule_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("m.yaml", DEPLOYMENT),
            ("p/l.rego", "package main\n\ndeny_latest contains \"latest\" if { input.kind == \"Deployment\" }\n"),
            ("d/override.json", "{\"main\": {\"deny_latest\": []}}"),
        ],
    );
    let (code, f, stderr) = check(dir.path(), &["--policy", "p", "--data", "d", "m.yaml"]);
    let all = format!("{f:?} {stderr}");
    assert!(code != 0, "{all}");
    assert_eq!(f.len(), 1, "{all}");
    assert_eq!((f[0].0.as_str(), f[0].1.as_str()), ("policy-error", "p/l.rego:3"), "{all}");
    assert!(f[0].2.contains("`main.deny_latest`") && f[0].2.contains("d/override.json"), "{all}");
}

#[test]
fn huge_sprintf_widths_and_deep_nesting_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("package main\n\nx := {}1{}\n", "[".repeat(40), "]".repeat(40));
    write(dir.path(), &[("deep.rego", &deep), ("wide.rego", "package main\n\nx := sprintf(\"%04000000000d\", [1])\n")]);
    let r = run_in(dir.path(), &["policy", "eval", "--policies", "deep.rego", "data.main.x"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("deep.rego:3") && r.stderr.contains("nested more than"), "{}", r.stderr);
    let r = run_in(dir.path(), &["policy", "eval", "--policies", "wide.rego", "data.main.x"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("more than the limit"), "{}", r.stderr);
}
