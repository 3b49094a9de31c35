//! Reference loading against the kube-compare conformance corpus: every reference a case uses
//! loads when kube-compare got past loading, and the load-time error cases fail with
//! kube-compare's exact message (`expected.stderr` is `error: <message>`). The corpus tests
//! are `#[ignore]`d on a plain clone (`.ci/run` runs them); the others use their own files.

use std::path::{Path, PathBuf};

use driftlint_reference::userconfig::load_user_config;
use driftlint_reference::{ComponentKind, Group, Version, load_reference};

/// Case folders in the corpus, and cases with a user config (`diffConfig`), counted when this
/// was written: fewer means the corpus was emptied, moved or misread.
const MIN_CASES: usize = 117;
const MIN_USER_CONFIGS: usize = 5;

struct Case {
    dir: PathBuf,
    name: String,
    reference: Option<String>,
    diff_config: Option<String>,
    expect_exit: i64,
    stderr: String,
}

/// The corpus' cases, sorted; `None` when the corpus is absent (see `driftlint_test_support::corpus`).
fn cases(test: &str) -> Option<Vec<Case>> {
    let root = driftlint_test_support::corpus(test, "kube-compare")?;
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root).unwrap().filter_map(|e| Some(e.ok()?.path())).collect();
    dirs.sort();
    for dir in dirs {
        let Ok(text) = std::fs::read_to_string(dir.join("case.yaml")) else {
            continue;
        };
        let doc = driftlint_yaml::parse_stream(&text).documents.remove(0).root;
        let s = |k: &str| doc.get(k).and_then(|n| n.as_str()).map(str::to_owned);
        let expect_exit = match doc.get("expectExit").map(|n| &n.value) {
            Some(driftlint_yaml::NodeValue::Int(i)) => *i,
            _ => panic!("{}: no expectExit", dir.display()),
        };
        out.push(Case {
            name: dir.file_name().unwrap().to_string_lossy().into_owned(),
            reference: s("reference"),
            diff_config: s("diffConfig"),
            expect_exit,
            stderr: std::fs::read_to_string(dir.join("expected.stderr")).unwrap_or_default(),
            dir,
        });
    }
    driftlint_test_support::assert_min_cases("kube-compare case folders", out.len(), MIN_CASES);
    Some(out)
}

/// Cases whose error kube-compare raises while loading the metadata (this module's job).
const LOAD_ERRORS: [&str; 6] = [
    "CustomFieldsToOmitDefaultKeyNotFound",
    "CustomFieldsToOmitRefEntryNotFound",
    "ReferenceConfigFileIsntValidYAML",
    "ReferenceContainsTemplatesThatDontExist",
    "ReferenceHasInvalidVersion",
    "ReferenceV2TooManyKeysInComponentGroup",
];

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn corpus_references_load_or_fail_like_kube_compare() {
    let Some(cases) = cases("corpus_references_load_or_fail_like_kube_compare") else { return };
    let mut checked = 0;
    for case in &cases {
        let Some(reference) = &case.reference else {
            continue;
        };
        let path = case.dir.join(reference);
        if !path.exists() {
            continue; // ReferenceConfigFileDoesntExist: the CLI's check, before loading.
        }
        let result = load_reference(&path);
        let expect_error = LOAD_ERRORS.contains(&case.name.as_str())
            || case.name == "ReferenceV2DiffinCustomOmittedFieldsIsntShown__circular_include";
        if expect_error {
            let err = result.expect_err(&case.name);
            let got = format!("error: {err}\n");
            if case.name.ends_with("circular_include") {
                // Go joins these in random map order; we use file order.
                let mut a: Vec<_> = got.lines().collect();
                let mut b: Vec<_> = case.stderr.lines().collect();
                a.sort();
                b.sort();
                assert_eq!(a, b, "{}", case.name);
            } else {
                assert_eq!(got, case.stderr, "{}", case.name);
            }
            assert!(err.problems.iter().all(|p| p.span.is_none() || p.location.is_some()));
        } else {
            let r = result.unwrap_or_else(|e| panic!("{}: {e}", case.name));
            assert!(!r.templates.is_empty() || r.parts.is_empty(), "{}", case.name);
            assert!(r.templates.iter().all(|t| !t.source.files.is_empty()), "{}", case.name);
            assert!(case.expect_exit != 2 || !case.stderr.is_empty(), "{}", case.name);
        }
        checked += 1;
    }
    driftlint_test_support::assert_min_cases("references", checked, 100);
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn corpus_user_configs() {
    let Some(cases) = cases("corpus_user_configs") else { return };
    let mut checked = 0;
    for case in cases {
        let Some(config) = &case.diff_config else {
            continue;
        };
        let (Some(reference), true) = (&case.reference, case.dir.join("case.yaml").exists()) else {
            continue;
        };
        let loaded = load_user_config(&case.dir.join(config));
        match case.name.as_str() {
            "UserConfigDoesntExist" => {
                let e = loaded.unwrap_err().to_string();
                assert!(e.starts_with("User Config File not found. error: open "), "{e}");
                assert!(e.ends_with("userconfig.yaml: no such file or directory"), "{e}");
            }
            "UserConfigIsntCorrectYAML" => {
                assert_eq!(format!("error: {}\n", loaded.unwrap_err()), case.stderr);
            }
            _ => {
                let cfg = loaded.unwrap_or_else(|e| panic!("{}: {e}", case.name));
                let r = load_reference(&case.dir.join(reference)).unwrap();
                let check = cfg.validate(&r);
                if case.name == "UserConfigManualCorrelationContainsTemplateThatDoesntExist" {
                    assert_eq!(format!("error: {}\n", check.unwrap_err()), case.stderr);
                } else {
                    check.unwrap_or_else(|e| panic!("{}: {e}", case.name));
                }
            }
        }
        checked += 1;
    }
    driftlint_test_support::assert_min_cases("user configs", checked, MIN_USER_CONFIGS);
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn model_shapes() {
    let Some(cases) = cases("model_shapes") else { return };
    let reference = |name: &str| {
        let case = cases.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no case {name}"));
        let path = case.dir.join(case.reference.as_deref().unwrap_or_else(|| panic!("{name}: no reference")));
        load_reference(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let r = reference("SomeDiffs");
    assert_eq!(r.version, Version::V1);
    assert_eq!(r.fields_to_omit.default_omit_ref, "cluster-compare-built-in");
    assert_eq!(r.templates[0].omit_paths.len(), 11);
    let r = reference("ReferenceV2All__One_Of");
    assert_eq!(r.version, Version::V2);
    assert!(matches!(r.parts[0].components[0].kind, ComponentKind::V2 { group: Group::OneOf, .. }));
    assert_eq!(r.parts[0].components[0].name, "DemonSets");
}

fn write(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir.join("metadata.yaml")
}

fn load_err(files: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    load_reference(&write(dir.path(), files)).unwrap_err().to_string()
}

#[test]
fn spec_error_texts() {
    let t = ("t.yaml", "kind: A\n");
    let pre = "Reference config isn't in correct format. error: ";
    assert_eq!(
        load_err(&[("metadata.yaml", "parts: []\nparts: []\n"), t]),
        format!(
            "{pre}error converting YAML to JSON: yaml: unmarshal errors:\n  line 2: key \"parts\" already set in map"
        )
    );
    assert_eq!(
        load_err(&[("metadata.yaml", "parts: []\nfoo: 1\n")]),
        format!("{pre}error unmarshaling JSON: while decoding JSON: json: unknown field \"foo\"")
    );
    assert_eq!(load_err(&[("metadata.yaml", "apiVersion: 2\nparts: []\n")]), "unknown reference file apiVersion: '2'");
    assert_eq!(
        load_err(&[("metadata.yaml", "apiVersion:\nparts: []\n")]),
        "unknown reference file apiVersion: '<nil>'"
    );
    let v2 = "apiVersion: v2\nparts:\n- name: p\n  components:\n  - name: a\n    anyOf: [{path: t.yaml}]\n    allOf: [{path: t.yaml}]\n  - name: b\n";
    assert_eq!(
        load_err(&[("metadata.yaml", v2), t]),
        "too many keys (allOf,anyOf) in index 0 of component a\ncomponent b has no templates"
    );
    let v1_per_field = "parts:\n- name: p\n  components:\n  - name: a\n    requiredTemplates:\n    - path: t.yaml\n      config: {perField: []}\n";
    assert_eq!(
        load_err(&[("metadata.yaml", v1_per_field), t]),
        format!("{pre}error unmarshaling JSON: while decoding JSON: json: unknown field \"perField\"")
    );
    assert_eq!(
        load_err(&[(
            "metadata.yaml",
            "parts:\n- name: p\n  components:\n  - name: a\n    requiredTemplates:\n    - path: ../t.yaml\n"
        )]),
        "an error occurred while parsing template: ../t.yaml specified in the config. error: template: pattern matches no files: `../t.yaml`"
    );
    assert_eq!(
        load_err(&[("metadata.yaml", "fieldsToOmit:\n  items:\n    a:\n    - pathToKey: 'a.\"b'\nparts: []\n")]),
        "failed to parse path: parse error on line 1, column 5: extraneous or missing \" in quoted-field"
    );
    assert_eq!(
        load_err(&[("metadata.yaml", "parts:\n- name: [x]\n")]),
        format!(
            "{pre}error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field PartV1.parts.name of type string"
        )
    );
}

#[test]
fn lenient_v2_lists_case_insensitive_keys_and_descriptions() {
    let dir = tempfile::tempdir().unwrap();
    let meta = "APIVersion: v1\nParts:\n- name: p\n  Components:\n  - name: c\n    type: Required\n    requiredTemplates: [{path: 'sub/*.yaml', description: d}]\n";
    let r = load_reference(&write(dir.path(), &[("metadata.yaml", meta), ("sub/a.yaml", "kind: A\n")])).unwrap();
    assert_eq!(r.templates[0].source.files[0].name, "sub/a.yaml");
    assert_eq!(r.templates[0].effective_description, "d");

    let dir = tempfile::tempdir().unwrap();
    let meta = "apiVersion: ' V2 '\nparts:\n- name: p\n  description: pd\n  components:\n  - name: c\n    noneOf:\n    - path: t.yaml\n      whatever: 1\n      config: {perField: [{pathToKey: a.b, inlineDiffFunc: regex, x: 1}]}\n";
    let r = load_reference(&write(dir.path(), &[("metadata.yaml", meta), ("t.yaml", "kind: A\n")])).unwrap();
    assert_eq!(r.version, Version::V2);
    assert_eq!(r.templates[0].effective_description, "pd");
    assert_eq!(r.templates[0].config.per_field[0].inline_diff_func, "regex");
    assert!(matches!(r.parts[0].components[0].kind, ComponentKind::V2 { group: Group::NoneOf, .. }));
}
