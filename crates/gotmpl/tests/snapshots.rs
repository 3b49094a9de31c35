//! Data-driven snapshots: each `tests/cases/*.case` file holds cases of the form
//!
//! ```text
//! === name
//! --- template
//! {{ .a }}
//! --- data
//! {"a": 1}
//! --- expect
//! 1
//! ```
//!
//! optionally with `--- define` sections (function files, in order). `expect` is the output,
//! or `error: ` and the error as users see it. Sections end at the next `---`/`===` line; the
//! newline before it is not part of the section. `DRIFTLINT_BLESS=1` rewrites the
//! expectations from the engine's current behaviour (review the diff before committing); any
//! other value, or `1` under `CI=true`, fails.

mod common;
use std::fmt::Write as _;
use std::path::Path;

struct Case {
    name: String,
    sections: Vec<(String, String)>,
}

fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("=== ") {
            cases.push(Case { name: name.trim().to_string(), sections: Vec::new() });
        } else if let Some(sec) = line.strip_prefix("--- ") {
            let case = cases.last_mut().expect("a section before any case");
            case.sections.push((sec.trim().to_string(), String::new()));
        } else if let Some(case) = cases.last_mut()
            && let Some((_, body)) = case.sections.last_mut()
        {
            body.push_str(line);
        }
    }
    for case in &mut cases {
        for (_, body) in &mut case.sections {
            if body.ends_with('\n') {
                body.pop();
            }
        }
    }
    cases
}

fn run(case: &Case) -> String {
    let get = |k: &str| case.sections.iter().find(|(n, _)| n == k).map(|(_, b)| b.as_str());
    let template = get("template").unwrap_or_default();
    let data = get("data").unwrap_or("{}");
    let defines: Vec<&str> = case.sections.iter().filter(|(n, _)| n == "define").map(|(_, b)| b.as_str()).collect();
    match common::render_with(template, &defines, data) {
        Ok(out) => out,
        Err(e) => format!("error: {e}"),
    }
}

fn render_file(cases: &[Case], results: &[String]) -> String {
    let mut out = String::new();
    for (case, got) in cases.iter().zip(results) {
        writeln!(out, "=== {}", case.name).unwrap();
        for (name, body) in case.sections.iter().filter(|(n, _)| n != "expect") {
            writeln!(out, "--- {name}\n{body}").unwrap();
        }
        writeln!(out, "--- expect\n{got}").unwrap();
    }
    out
}

#[test]
fn snapshot_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let update = driftlint_test_support::rewrite_requested();
    let mut failures = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "case")) {
        let text = std::fs::read_to_string(path).unwrap();
        let cases = parse_cases(&text);
        let results: Vec<String> = cases.iter().map(run).collect();
        for (case, got) in cases.iter().zip(&results) {
            let want = case.sections.iter().find(|(n, _)| n == "expect").map(|(_, b)| b.as_str());
            if want != Some(got.as_str()) && !update {
                failures.push(format!("{}: {}\n  want: {want:?}\n  got:  {got:?}", path.display(), case.name));
            }
        }
        if update {
            std::fs::write(path, render_file(&cases, &results)).unwrap();
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
