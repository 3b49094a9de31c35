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
            } else if class.is_some() && ours.is_some() && ours.as_deref() != class && !OWN_WORDING.contains(&name.as_str()) {
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
        let outcome = outcome.and_then(|()| if prints == want { Ok(()) } else { Err(format!("prints {prints:?}, expected {want:?}")) });
        if let Err(e) = outcome {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
