//! `mode: Pipeline` Compositions whose steps are function-patch-and-transform: each is the
//! mirror of a Resources-mode Composition (its `resources`, `patchSets` and environment
//! patches moved into a step's `Resources` input, nothing else changed), and gets the same
//! findings at the moved lines. The mirror is made by [`to_pipeline`] from the design doc's
//! Compositions (`fixtures/crossplane`) and from every case of the shared Crossplane corpus
//! whose shape a patch-and-transform input can hold.

use std::collections::BTreeMap;
use std::path::Path;

use super::{json, root, run_in};

/// The nine rules of the Crossplane corpus (others, such as `composition-skipped`, are notes
/// about coverage).
const RULES: [&str; 9] = [
    "composition-invalid",
    "composition-patch-path",
    "composition-patch-type",
    "composition-required-field",
    "schema-unknown-field",
    "schema-type-mismatch",
    "schema-required-missing",
    "schema-invalid-value",
    "schema-not-found",
];

/// The keys of a Resources-mode spec that move into the step's input.
const MOVED: [&str; 3] = ["resources", "patchSets", "environment"];

/// The Pipeline mirror of a file's Resources-mode Compositions, and where each line of the
/// original went (index: 1-based original line; value: 1-based line in the mirror). `None`
/// when a Composition cannot be mirrored (legacy `spec.functions`, environment sources,
/// flow-style spec) or none is in the file.
pub fn to_pipeline(text: &str) -> Option<(String, Vec<usize>)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut map = vec![0; lines.len() + 1];
    let mut mirrored = false;
    let mut i = 0;
    // Document by document.
    while i < lines.len() {
        let end = (i + 1..lines.len()).find(|&j| lines[j].starts_with("---")).unwrap_or(lines.len());
        let doc = &lines[i..end];
        let composition = doc.iter().any(|l| l.trim_end() == "kind: Composition");
        let spec = doc.iter().position(|l| l.trim_end() == "spec:");
        match (composition, spec) {
            (true, Some(s)) => {
                mirror_document(doc, i, s, &mut out, &mut map)?;
                mirrored = true;
            }
            (true, None) => return None,
            _ => {
                for (k, l) in doc.iter().enumerate() {
                    out.push(l.to_string());
                    map[i + k + 1] = out.len();
                }
            }
        }
        i = end;
    }
    mirrored.then(|| (out.join("\n") + "\n", map))
}

fn mirror_document(doc: &[&str], first: usize, spec: usize, out: &mut Vec<String>, map: &mut [usize]) -> Option<()> {
    let emit = |k: usize, line: String, out: &mut Vec<String>, map: &mut [usize]| {
        out.push(line);
        map[first + k + 1] = out.len();
    };
    for (k, l) in doc.iter().enumerate().take(spec + 1) {
        emit(k, l.to_string(), out, map);
    }
    // The spec's children: (key, first line, end line).
    let spec_end = (spec + 1..doc.len())
        .find(|&j| !doc[j].is_empty() && !doc[j].starts_with(' ') && !doc[j].starts_with('#'))
        .unwrap_or(doc.len());
    let mut children: Vec<(String, usize, usize)> = Vec::new();
    for (j, l) in doc.iter().enumerate().take(spec_end).skip(spec + 1) {
        if l.starts_with("  ") && !l.starts_with("   ") && !l.trim_start().starts_with('#') {
            let key = l.trim_start().split(':').next().unwrap_or_default().to_string();
            if let Some(last) = children.last_mut() {
                last.2 = j;
            }
            children.push((key, j, spec_end));
        }
    }
    let has = |key: &str| children.iter().any(|c| c.0 == key);
    if has("functions") || (has("mode") && !doc.iter().any(|l| l.trim() == "mode: Resources")) {
        return None;
    }
    if children.iter().any(|c| c.0 == "environment" && (c.1..c.2).any(|j| doc[j].contains("environmentConfigs"))) {
        return None;
    }
    let mut header_done = false;
    for (key, start, end) in &children {
        if MOVED.contains(&key.as_str()) {
            if header_done {
                continue;
            }
            header_done = true;
            if !has("mode") {
                out.push("  mode: Pipeline".into());
            }
            for h in [
                "  pipeline:",
                "    - step: patch-and-transform",
                "      functionRef:",
                "        name: function-patch-and-transform",
                "      input:",
                "        apiVersion: pt.fn.crossplane.io/v1beta1",
                "        kind: Resources",
            ] {
                out.push(h.into());
            }
            for (_, start, end) in children.iter().filter(|c| MOVED.contains(&c.0.as_str())) {
                for (j, l) in doc.iter().enumerate().take(*end).skip(*start) {
                    emit(j, if l.is_empty() { String::new() } else { format!("      {l}") }, out, map);
                }
            }
            continue;
        }
        for (j, l) in doc.iter().enumerate().take(*end).skip(*start) {
            let l = if key == "mode" { l.replace("mode: Resources", "mode: Pipeline") } else { l.to_string() };
            emit(j, l, out, map);
        }
    }
    // Comment and blank lines between `spec:` and its first child, then the rest.
    let first_child = children.first().map_or(spec_end, |c| c.1);
    for j in spec + 1..first_child {
        map[first + j + 1] = map[first + spec + 1];
    }
    for (k, l) in doc.iter().enumerate().skip(spec_end) {
        emit(k, l.to_string(), out, map);
    }
    Some(())
}

/// (rule, severity, file base name, line) of the corpus's rules, sorted.
fn findings(v: &serde_json::Value) -> Vec<(String, String, String, u64)> {
    let mut found: Vec<_> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| RULES.contains(&d["rule"].as_str().unwrap_or_default()))
        .map(|d| {
            let file = d["file"].as_str().unwrap_or_default();
            (
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                file.rsplit('/').next().unwrap_or(file).to_string(),
                d["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    found.sort();
    found
}

/// Runs driftlint over `inputs` in `dir` (with `schemas/` when present) and gives its exit
/// code and findings.
fn check(dir: &Path, mode: Option<&str>, inputs: &[String]) -> (i32, Vec<(String, String, String, u64)>) {
    let mut args = vec!["check", "--isolated", "--format", "json"];
    if dir.join("schemas").is_dir() {
        args.extend(["--schemas", "schemas"]);
    }
    if let Some(m) = mode {
        args.extend(["--schema-mode", m]);
    }
    args.extend(inputs.iter().map(String::as_str));
    let r = run_in(dir, &args, None);
    (r.code, findings(&json(&r)))
}

/// Mirrors every input of `case` (a folder with inputs and maybe `schemas/`) into `into`;
/// `None` when no input holds a mirrorable Composition. Gives the line maps by input.
fn mirror_case(case: &Path, inputs: &[String], into: &Path) -> Option<BTreeMap<String, Vec<usize>>> {
    if case.join("schemas").is_dir() {
        super::copy_dir(&case.join("schemas"), &into.join("schemas"));
    }
    let mut maps = BTreeMap::new();
    for input in inputs {
        let text = std::fs::read_to_string(case.join(input)).unwrap();
        match to_pipeline(&text) {
            Some((mirror, map)) => {
                std::fs::write(into.join(input), mirror).unwrap();
                maps.insert(input.clone(), map);
            }
            None if text.contains("kind: Composition") => return None,
            None => std::fs::write(into.join(input), text).unwrap(),
        }
    }
    (!maps.is_empty()).then_some(maps)
}

/// The original's findings with their lines moved as the mirror moved them.
fn moved(
    found: &[(String, String, String, u64)],
    maps: &BTreeMap<String, Vec<usize>>,
) -> Vec<(String, String, String, u64)> {
    let mut out: Vec<_> = found
        .iter()
        .map(|(r, s, f, l)| {
            let line = maps.get(f).map_or(*l, |m| m[*l as usize] as u64);
            (r.clone(), s.clone(), f.clone(), line)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_mirror_moves_lines_as_it_says() {
    let text = "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nspec:\n  compositeTypeRef: {apiVersion: a/v1, kind: X}\n  resources:\n    - name: r\n      base: {}\n  writeConnectionSecretsToNamespace: ns\n";
    let (mirror, map) = to_pipeline(text).unwrap();
    let lines: Vec<&str> = mirror.lines().collect();
    assert_eq!(lines[map[6] - 1], "          - name: r");
    assert_eq!(lines[map[8] - 1], "  writeConnectionSecretsToNamespace: ns");
    assert!(mirror.contains("  mode: Pipeline\n  pipeline:\n"), "{mirror}");
}

/// The design doc's valid and invalid Compositions as Pipelines: the same findings (the five
/// errors at their moved lines), in both modes, with and without schemas.
#[test]
fn design_doc_compositions_as_pipelines() {
    let fixtures = root().join("fixtures/crossplane");
    for schemas in [true, false] {
        for file in ["valid.yaml", "invalid.yaml"] {
            for mode in ["loose", "strict"] {
                let native = tempfile::tempdir().unwrap();
                let mirror = tempfile::tempdir().unwrap();
                std::fs::copy(fixtures.join(file), native.path().join(file)).unwrap();
                if schemas {
                    super::copy_dir(&fixtures.join("schemas"), &native.path().join("schemas"));
                }
                let inputs = vec![file.to_string()];
                let maps = mirror_case(native.path(), &inputs, mirror.path()).unwrap();
                let (code, found) = check(native.path(), Some(mode), &inputs);
                let (mcode, mfound) = check(mirror.path(), Some(mode), &inputs);
                assert!(!found.is_empty() || file == "valid.yaml" && schemas, "{file} {mode} {schemas}: nothing found");
                assert_eq!((mcode, mfound), (code, moved(&found, &maps)), "{file} {mode} schemas: {schemas}");
            }
        }
    }
}

/// Cases whose native shape a patch-and-transform input cannot hold, or whose expectation
/// rests on a rule the function has otherwise: their mirror is not compared.
const NOT_MIRRORED: [(&str, &str); 4] = [
    ("logical-mixed-anonymous-then-named", "the function needs every resource named"),
    ("logical-mixed-named-then-anonymous", "the function needs every resource named"),
    ("logical-mode-without-content", "an empty Resources spec is an error, an empty input a warning"),
    ("logical-duplicate-names", "anonymous resources are errors under the function"),
];

/// Every case of the shared Crossplane corpus with a Resources-mode Composition, mirrored as a
/// Pipeline: the same exit code and findings at the moved lines (the expectation is the
/// corpus's own, so the native run must match it too).
#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn conformance_cases_as_pipelines() {
    let Some(corpus) = driftlint_test_support::corpus("conformance_cases_as_pipelines", "crossplane") else { return };
    let mut cases: Vec<_> = std::fs::read_dir(corpus.join("cases")).unwrap().map(|e| e.unwrap().path()).collect();
    cases.sort();
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        if NOT_MIRRORED.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(case.join("case.json")).unwrap()).unwrap();
        let inputs: Vec<String> =
            meta["inputs"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        let mode = meta["mode_flag"].as_str();
        let dir = tempfile::tempdir().unwrap();
        let Some(maps) = mirror_case(&case, &inputs, dir.path()) else { continue };
        let mut expected: Vec<(String, String, String, u64)> = meta["expect"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap().to_string(),
                    f["severity"].as_str().unwrap().to_string(),
                    f["file"].as_str().unwrap().to_string(),
                    f["line"].as_u64().unwrap(),
                )
            })
            .collect();
        expected.sort();
        let exit = meta["expect"]["exit"].as_i64().unwrap() as i32;
        let got = check(dir.path(), mode, &inputs);
        if got != (exit, moved(&expected, &maps)) {
            failures.push(format!("{name}: expected {:?}, got {got:?}", (exit, moved(&expected, &maps))));
        }
        checked += 1;
    }
    eprintln!("mirrored cases: {checked}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    driftlint_test_support::assert_min_cases("mirrored Crossplane cases", checked, 50);
}

/// A Pipeline of several functions: the patch-and-transform step is checked (its bad path
/// found at its line, environment patches of the function's six types accepted), each other
/// step gets a note naming it, and no schema is asked for because of them.
#[test]
fn steps_of_other_functions_are_notes_and_bad_inputs_errors() {
    let dir = tempfile::tempdir().unwrap();
    super::copy_dir(&root().join("fixtures/crossplane/schemas"), &dir.path().join("schemas"));
    let head = "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: p\nspec:\n  compositeTypeRef:\n    apiVersion: database.example.org/v1alpha1\n    kind: XPostgreSQLInstance\n  mode: Pipeline\n  pipeline:\n";
    let steps = "    - step: environment\n      functionRef: {name: function-environment-configs}\n    - step: patch-and-transform\n      functionRef: {name: crossplane-contrib-function-patch-and-transform}\n      input:\n        apiVersion: pt.fn.crossplane.io/v1beta1\n        kind: Resources\n        environment:\n          patches:\n            - type: FromEnvironmentFieldPath\n              fromFieldPath: tier\n              toFieldPath: spec.parameters.storageGB\n            - type: ToEnvironmentFieldPath\n              fromFieldPath: spec.parameters.nope\n              toFieldPath: size\n        resources:\n          - name: rds\n            base:\n              apiVersion: database.aws.crossplane.io/v1beta1\n              kind: RDSInstance\n              spec:\n                forProvider:\n                  dbInstanceClass: db.t2.small\n                  masterUsername: masteruser\n                  engine: postgres\n            patches:\n              - fromFieldPath: spec.parameters.storageGB\n                toFieldPath: spec.forProvider.allocatedStorag\n    - step: ready\n      functionRef: {name: function-auto-ready}\n";
    std::fs::write(dir.path().join("c.yaml"), format!("{head}{steps}")).unwrap();
    let (code, found) = check(dir.path(), Some("strict"), &["c.yaml".into()]);
    let e = |rule: &str, line: u64| (rule.to_string(), "error".to_string(), "c.yaml".to_string(), line);
    // The bad source path of the ToEnvironmentFieldPath patch; the misspelt destination, and
    // so the required field it was meant to set (as in the Resources-mode fixture).
    assert_eq!(
        (code, found),
        (
            1,
            vec![e("composition-patch-path", 24), e("composition-patch-path", 38), e("composition-required-field", 32)]
        )
    );
    let r = run_in(dir.path(), &["check", "--isolated", "--format", "json", "--schemas", "schemas", "c.yaml"], None);
    let notes: Vec<(u64, String)> = json(&r)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "composition-skipped")
        .map(|d| (d["line"].as_u64().unwrap(), d["message"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(notes[0].0, 11);
    assert!(notes[0].1.contains("`environment`") && notes[0].1.contains("function-environment-configs"), "{notes:?}");
    assert_eq!(notes[1].0, 39);
    // An input the function does not take, and a resource without a name: logical errors (and
    // so nothing else is looked at).
    let bad = steps.replace("kind: Resources", "kind: Resource").replace("- name: rds\n            base", "- base");
    std::fs::write(dir.path().join("c.yaml"), format!("{head}{bad}")).unwrap();
    let (code, found) = check(dir.path(), Some("strict"), &["c.yaml".into()]);
    assert_eq!((code, found), (1, vec![e("composition-invalid", 17)]));
    // No input, or an input with nothing in it: the function fails at run time, but Crossplane's
    // webhook does not look into inputs: a warning each, not a logical error.
    let empty = "    - step: nothing\n      functionRef: {name: function-patch-and-transform}\n    - step: empty\n      functionRef: {name: function-patch-and-transform}\n      input: {apiVersion: pt.fn.crossplane.io/v1beta1, kind: Resources, resources: []}\n";
    std::fs::write(dir.path().join("c.yaml"), format!("{head}{empty}")).unwrap();
    let r = run_in(dir.path(), &["check", "--isolated", "--format", "json", "--schemas", "schemas", "c.yaml"], None);
    let warnings: Vec<(String, u64)> = json(&r)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                format!("{}/{}", d["rule"].as_str().unwrap(), d["severity"].as_str().unwrap()),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        (r.code, warnings),
        (0, vec![("composition-skipped/warning".into(), 11), ("composition-skipped/warning".into(), 15)])
    );
    let unnamed = steps.replace("- name: rds\n            base", "- base");
    std::fs::write(dir.path().join("c.yaml"), format!("{head}{unnamed}")).unwrap();
    let (code, found) = check(dir.path(), Some("strict"), &["c.yaml".into()]);
    assert_eq!((code, found), (1, vec![e("composition-invalid", 27)]));
}
