//! `driftlint check` with schemas: the design doc's Compositions (fixtures/crossplane) in both
//! modes with and without schemas, instances against XRD-derived schemas, bad schemas, and the
//! `schemas:` / `schema-mode:` configuration keys.

use std::path::Path;

use super::{json, root, run, run_in};

/// (rule, severity, file:line) of every diagnostic of a JSON report, in report order.
fn findings(v: &serde_json::Value) -> Vec<(String, String, String)> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let file = d["file"].as_str().unwrap_or("");
            let file = file.rsplit('/').next().unwrap_or(file);
            (
                d["rule"].as_str().unwrap().into(),
                d["severity"].as_str().unwrap().into(),
                format!("{file}:{}", d["line"]),
            )
        })
        .collect()
}

fn owned(v: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    v.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect()
}

/// `driftlint check --isolated --format json [--schemas fixtures/crossplane/schemas] ARGS`.
fn check(schemas: bool, args: &[&str]) -> (i32, Vec<(String, String, String)>) {
    let mut all = vec!["check", "--isolated", "--format", "json"];
    if schemas {
        all.extend(["--schemas", "fixtures/crossplane/schemas"]);
    }
    all.extend(args);
    let r = run(&all);
    (r.code, findings(&json(&r)))
}

const FIVE_ERRORS: [(&str, &str, &str); 5] = [
    ("composition-required-field", "error", "invalid.yaml:17"),
    ("schema-unknown-field", "error", "invalid.yaml:20"),
    ("composition-patch-path", "error", "invalid.yaml:29"),
    ("composition-patch-type", "error", "invalid.yaml:31"),
    ("composition-patch-path", "error", "invalid.yaml:32"),
];

#[test]
fn design_doc_compositions_with_schemas_in_both_modes() {
    for mode in ["loose", "strict"] {
        let (code, found) = check(true, &["--schema-mode", mode, "fixtures/crossplane/valid.yaml"]);
        assert_eq!((code, found), (0, vec![]), "{mode}");
        let (code, found) = check(true, &["--schema-mode", mode, "fixtures/crossplane/invalid.yaml"]);
        assert_eq!((code, found), (1, owned(&FIVE_ERRORS)), "{mode}");
    }
}

#[test]
fn design_doc_compositions_without_schemas() {
    // Loose (the default): each missing schema is a warning, every check needing it skipped.
    for file in ["valid", "invalid"] {
        let path = format!("fixtures/crossplane/{file}.yaml");
        let (code, found) = check(false, &[&path]);
        let warnings = owned(&[
            ("schema-not-found", "warning", &format!("{file}.yaml:{}", if file == "valid" { 12 } else { 10 })),
            ("schema-not-found", "warning", &format!("{file}.yaml:{}", if file == "valid" { 17 } else { 15 })),
        ]);
        assert_eq!((code, found), (0, warnings), "{file}");
    }
    // Strict: errors.
    let (code, found) = check(false, &["--schema-mode", "strict", "fixtures/crossplane/invalid.yaml"]);
    assert_eq!(
        (code, found),
        (
            1,
            owned(&[
                ("schema-not-found", "error", "invalid.yaml:10"),
                ("schema-not-found", "error", "invalid.yaml:15")
            ])
        )
    );
}

#[test]
fn instances_against_the_xrd_derived_schema() {
    let (code, found) = check(true, &["fixtures/crossplane/xr.yaml"]);
    assert_eq!(
        (code, found),
        (
            1,
            owned(&[
                ("schema-type-mismatch", "error", "xr.yaml:8"),
                ("schema-invalid-value", "error", "xr.yaml:9"),
                ("schema-required-missing", "error", "xr.yaml:10"),
            ])
        )
    );
}

#[test]
fn human_output_names_file_line_and_rule() {
    let r =
        run(&["check", "--isolated", "--schemas", "fixtures/crossplane/schemas", "fixtures/crossplane/invalid.yaml"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("error[composition-patch-type]"), "{}", r.stdout);
    assert!(r.stdout.contains("fixtures/crossplane/invalid.yaml:31:11"), "{}", r.stdout);
    assert!(r.stdout.contains("found 5 errors"), "{}", r.stdout);
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const CRD_HEAD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.org\nspec:\n  group: example.org\n  names: {kind: Widget, plural: widgets}\n";

#[test]
fn bad_schemas_are_diagnostics_at_their_line_and_other_checks_still_run() {
    let dir = tempfile::tempdir().unwrap();
    // A schema file that is not YAML, a $ref loop, an XRD without versions.
    write(dir.path(), "schemas/broken.yaml", "apiVersion: v1\nkind: [\n");
    write(
        dir.path(),
        "schemas/loop.yaml",
        &format!(
            "{CRD_HEAD}  versions:\n    - name: v1\n      served: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              properties:\n                a: {{$ref: '#/properties/spec/properties/b'}}\n                b: {{$ref: '#/properties/spec/properties/a'}}\n                size: {{type: integer}}\n"
        ),
    );
    write(
        dir.path(),
        "schemas/xrd.yaml",
        "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: xs.example.org\nspec:\n  group: example.org\n  names: {kind: X, plural: xs}\n",
    );
    write(
        dir.path(),
        "widget.yaml",
        // An object of the XRD's kind: configured definitions of kinds no input uses are not
        // read (nor are their problems reported).
        "apiVersion: example.org/v1\nkind: Widget\nspec:\n  size: big\n  a: {anything: 1}\n---\napiVersion: example.org/v1\nkind: X\n",
    );
    let r =
        run_in(dir.path(), &["check", "--isolated", "--format", "json", "--schemas", "schemas", "widget.yaml"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let found = findings(&json(&r));
    for expected in [
        ("yaml-syntax-error", "error", "broken.yaml:3"),
        ("invalid-schema", "error", "loop.yaml:18"),
        ("invalid-schema", "error", "xrd.yaml:5"),
        // The rest of the loop's schema still validates the instance.
        ("schema-type-mismatch", "error", "widget.yaml:4"),
    ] {
        assert!(
            found.contains(&(expected.0.into(), expected.1.into(), expected.2.into())),
            "{expected:?} in {found:?}"
        );
    }
    // The $ref loop accepts anything below it: no finding for `a`.
    assert!(!found.iter().any(|f| f.2 == "widget.yaml:5"), "{found:?}");
}

#[test]
fn configuration_keys_and_no_reference_behaviour() {
    let dir = tempfile::tempdir().unwrap();
    // Paths in the configuration stay inside its repository: the schemas are copied in.
    super::copy_dir(&root().join("fixtures/crossplane/schemas"), &dir.path().join("schemas"));
    write(dir.path(), ".driftlint.yaml", "schemas: [schemas]\nschema-mode: strict\n");
    write(
        dir.path(),
        "x.yaml",
        "apiVersion: database.example.org/v1alpha1\nkind: XPostgreSQLInstance\nmetadata: {name: a}\nspec:\n  parameters: {storageGB: 20}\n---\napiVersion: example.org/v1\nkind: Unknown\nmetadata: {name: b}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    );
    // Strict from the file: the unknown custom kind is an error; the built-in kind has its
    // bundled schema (and is valid).
    let r = run_in(dir.path(), &["check", "--format", "json"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(findings(&json(&r)), owned(&[("schema-not-found", "error", "x.yaml:8")]));
    // The flag wins over the file; loose leaves built-in kinds alone.
    let r = run_in(dir.path(), &["check", "--format", "json", "--schema-mode", "loose"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(findings(&json(&r)), owned(&[("schema-not-found", "warning", "x.yaml:8")]));
    // An unknown mode in the file is a configuration error.
    write(dir.path(), ".driftlint.yaml", "schema-mode: lax\n");
    let r = run_in(dir.path(), &["check"], None);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains(".driftlint.yaml:1:14: unknown schema mode `lax`"), "{}", r.stderr);
}

#[test]
fn schemas_from_a_git_location_and_pipeline_note() {
    let dir = tempfile::tempdir().unwrap();
    let schemas = root().join("fixtures/crossplane/schemas");
    for f in ["rdsinstance.crd.yaml", "xpostgresqlinstance.xrd.yaml"] {
        std::fs::create_dir_all(dir.path().join("defs")).unwrap();
        std::fs::copy(schemas.join(f), dir.path().join("defs").join(f)).unwrap();
    }
    super::git(dir.path(), &["init", "-q"]);
    super::git(dir.path(), &["add", "."]);
    super::git(dir.path(), &["commit", "-q", "-m", "schemas"]);
    // The work tree's copy is gone: the schemas come from the commit.
    std::fs::remove_dir_all(dir.path().join("defs")).unwrap();
    std::fs::copy(root().join("fixtures/crossplane/invalid.yaml"), dir.path().join("invalid.yaml")).unwrap();
    let r = run_in(
        dir.path(),
        &["check", "--isolated", "--format", "json", "--schemas", "git:HEAD:defs", "invalid.yaml"],
        None,
    );
    assert_eq!((r.code, findings(&json(&r))), (1, owned(&FIVE_ERRORS)), "{}", r.stderr);
    // A revision that does not exist stops the run.
    let r = run_in(dir.path(), &["check", "--isolated", "--schemas", "git:nope:defs", "invalid.yaml"], None);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    // mode: Pipeline with a function driftlint cannot see into: only the logical checks, and a
    // note names the step (strict, no schemas: no error).
    write(
        dir.path(),
        "pipeline.yaml",
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: p}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XThing}\n  mode: Pipeline\n  pipeline:\n    - step: render\n      functionRef: {name: function-go-templating}\n",
    );
    let r = run_in(
        dir.path(),
        &["check", "--isolated", "--format", "json", "--schema-mode", "strict", "pipeline.yaml"],
        None,
    );
    assert_eq!((r.code, findings(&json(&r))), (0, owned(&[("composition-skipped", "note", "pipeline.yaml:8")])));
}
