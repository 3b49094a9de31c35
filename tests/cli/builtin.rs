//! Kubernetes' built-in kinds validated offline (issue 25): the issue's own example, the
//! version flag and key, unknown and removed kinds, the trust order against `--schemas`, and
//! what the reports say was validated.

use std::path::Path;

use super::{json, run_in};

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// (rule, line) of every error of a JSON report.
fn errors(v: &serde_json::Value) -> Vec<(String, u64)> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| (d["rule"].as_str().unwrap().to_string(), d["line"].as_u64().unwrap()))
        .collect()
}

const ISSUE: &str = "apiVersion: v1\nkind: Servce\nmetadata:\n  name: web\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: \"two\"\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      contaners:\n        - name: web\n          image: nginx\n";

#[test]
fn the_issues_manifest_no_longer_passes() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.yaml", ISSUE);
    let r = run_in(dir.path(), &["check", "--isolated", "--format", "json", "m.yaml"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = json(&r);
    let owned = |v: &[(&str, u64)]| v.iter().map(|(r, l)| (r.to_string(), *l)).collect::<Vec<_>>();
    assert_eq!(
        errors(&v),
        owned(&[
            ("unknown-kind", 2),
            ("schema-type-mismatch", 11),
            ("schema-required-missing", 17),
            ("schema-unknown-field", 18),
        ])
    );
    let servce = &v["diagnostics"][0];
    assert_eq!(servce["help"][0], "did you mean `v1 Service`?", "{servce}");
    assert_eq!(v["summary"]["objects"]["validated"], 1);
    assert_eq!(v["summary"]["objects"]["without_schema_by_kind"]["v1 Servce"], 1);
    // The human summary says what was validated.
    let r = run_in(dir.path(), &["check", "--isolated", "--format", "concise", "m.yaml"], None);
    assert!(
        r.stdout.ends_with("found 4 errors; 2 objects: 1 validated against a schema, 1 without one (v1 Servce: 1)\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn kubernetes_version_flag_and_key_choose_the_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let flow = "apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\nkind: FlowSchema\nmetadata:\n  name: f\nspec:\n  priorityLevelConfiguration: {name: p}\n";
    write(dir.path(), "f.yaml", flow);
    let check = |args: &[&str]| {
        let mut all = vec!["check", "--format", "json"];
        all.extend(args);
        all.push("f.yaml");
        run_in(dir.path(), &all, None)
    };
    // Newest by default: removed in 1.32, with its replacement.
    let r = check(&["--isolated"]);
    assert_eq!(r.code, 1);
    let d = &json(&r)["diagnostics"][0];
    assert_eq!(d["rule"], "removed-api-version");
    assert_eq!(d["line"], 1);
    assert!(
        d["message"].as_str().unwrap().contains("removed in Kubernetes 1.32 (use flowcontrol.apiserver.k8s.io/v1)"),
        "{d}"
    );
    // Served by 1.31, by flag or by configuration key.
    assert_eq!(check(&["--isolated", "--kubernetes-version", "1.31"]).code, 0);
    write(dir.path(), ".driftlint.yaml", "kubernetes-version: \"1.31\"\n");
    assert_eq!(check(&[]).code, 0);
    // The flag wins over the key.
    assert_eq!(check(&["--kubernetes-version", "v1.33.2"]).code, 1);
    // A version driftlint does not bundle is a usage error naming the ones it has.
    let r = check(&["--isolated", "--kubernetes-version", "1.12"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("Kubernetes version `1.12` is not bundled (driftlint has the built-in kinds of 1.30,"),
        "{}",
        r.stderr
    );
}

#[test]
fn trusted_schemas_come_before_the_bundled_ones_and_checked_ones_cannot_replace_them() {
    let dir = tempfile::tempdir().unwrap();
    // A trusted CRD for apps/v1 Deployment that accepts anything in `spec`.
    std::fs::create_dir(dir.path().join("crds")).unwrap();
    write(
        &dir.path().join("crds"),
        "deployment.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: deployments.apps}\nspec:\n  group: apps\n  names: {kind: Deployment}\n  versions:\n    - name: v1\n      served: true\n      schema:\n        openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}\n",
    );
    let bad = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  anything: 1\n";
    write(dir.path(), "d.yaml", bad);
    let r = run_in(dir.path(), &["check", "--isolated", "--format", "json", "--schemas", "crds", "d.yaml"], None);
    assert_eq!(errors(&json(&r)), vec![], "{}", r.stdout);
    // Without it, the bundled schema applies.
    let r = run_in(dir.path(), &["check", "--isolated", "--format", "json", "d.yaml"], None);
    let found = errors(&json(&r));
    assert!(found.contains(&("schema-unknown-field".to_string(), 5)), "{found:?}");
    // The same CRD among the checked files is refused: the bundled schema still applies.
    let crd = std::fs::read_to_string(dir.path().join("crds/deployment.yaml")).unwrap();
    write(dir.path(), "d.yaml", &format!("{crd}---\n{bad}"));
    let r = run_in(dir.path(), &["check", "--isolated", "--format", "json", "d.yaml"], None);
    let found = errors(&json(&r));
    assert!(found.iter().any(|(rule, _)| rule == "invalid-schema"), "{found:?}");
    assert!(found.iter().any(|(rule, _)| rule == "schema-unknown-field"), "{found:?}");
}

#[test]
fn reports_say_what_was_validated() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "c.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n");
    write(dir.path(), "w.yaml", "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w}\n");
    let concise = |file: &str| run_in(dir.path(), &["check", "--isolated", "--format", "concise", file], None).stdout;
    assert_eq!(concise("c.yaml"), "no problems found; 1 object: 1 validated against a schema\n");
    // Nothing validated: not "no problems found" (the warning is a schema-not-found).
    assert!(
        concise("w.yaml")
            .ends_with("found 1 warning; 1 object, none validated: no schema for example.org/v1 Widget: 1\n"),
        "{}",
        concise("w.yaml")
    );
    let r = run_in(dir.path(), &["check", "--isolated", "--format", "sarif", "c.yaml", "w.yaml"], None);
    let props = &json(&r)["runs"][0]["properties"]["objects"];
    assert_eq!(props["validated"], 1, "{props}");
    assert_eq!(props["without_schema_by_kind"]["example.org/v1 Widget"], 1, "{props}");
    // `ls` says which schema each object gets.
    let r = run_in(dir.path(), &["ls", "--isolated", "c.yaml", "w.yaml"], None);
    let builtin = format!(
        "c.yaml:1:1: v1 ConfigMap c [schema: Kubernetes {} built-in]",
        driftlint_kube_schemas::default_version()
    );
    assert!(r.stdout.contains(&builtin), "{}", r.stdout);
    assert!(r.stdout.contains("w.yaml:1:1: example.org/v1 Widget w [schema: none]"), "{}", r.stdout);
    // With the warning turned off, the summary still does not say "no problems found".
    std::fs::remove_file(dir.path().join("c.yaml")).unwrap();
    write(dir.path(), ".driftlint.yaml", "rules: {schema-not-found: off}\n");
    let r = run_in(dir.path(), &["check", "--format", "concise", "w.yaml"], None);
    assert_eq!(r.stdout, "1 object, none validated: no schema for example.org/v1 Widget: 1\n", "{}", r.stderr);
}

#[test]
fn what_the_api_server_rejects_beyond_the_schema_has_rules_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "d.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: Web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: api}\n    spec:\n      containers:\n        - name: web\n          image: nginx\n          resources:\n            requests: {memory: 1Gb}\n        - name: web\n          image: envoy\n          ports: [{containerPort: 80800}]\n",
    );
    let r = run_in(dir.path(), &["check", "--isolated", "--format", "json", "d.yaml"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let owned = |v: &[(&str, u64)]| v.iter().map(|(r, l)| (r.to_string(), *l)).collect::<Vec<_>>();
    assert_eq!(
        errors(&json(&r)),
        owned(&[
            ("invalid-name", 4),
            ("selector-mismatch", 6),
            ("invalid-resources", 16),
            ("duplicate-name", 17),
            ("invalid-port", 19),
        ])
    );
    // Each is explained.
    let r = run_in(dir.path(), &["explain", "selector-mismatch"], None);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("ValidateDeploymentSpec"), "{}", r.stdout);
}

#[test]
fn kubeconform_style_schema_locations_are_trusted_local_schemas() {
    let dir = tempfile::tempdir().unwrap();
    super::copy_dir(&super::root().join("fixtures/schema-location"), &dir.path().join("schemas"));
    write(
        dir.path(),
        "w.yaml",
        "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w, labels: {a: b}}\nspec:\n  size: \"3\"\n  colour: green\n  port: http\n  extra: 1\n",
    );
    let template = "schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json";
    let r =
        run_in(dir.path(), &["check", "--isolated", "--format", "json", "--schema-location", template, "w.yaml"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let owned = |v: &[(&str, u64)]| v.iter().map(|(r, l)| (r.to_string(), *l)).collect::<Vec<_>>();
    assert_eq!(
        errors(&json(&r)),
        owned(&[("schema-type-mismatch", 5), ("schema-invalid-value", 6), ("schema-unknown-field", 8)])
    );
    // From the configuration file too (relative to it); `ls` names the source.
    write(dir.path(), ".driftlint.yaml", &format!("schema-locations: ['{template}']\n"));
    let r = run_in(dir.path(), &["check", "--format", "json", "w.yaml"], None);
    assert_eq!(errors(&json(&r)).len(), 3, "{}", r.stdout);
    let r = run_in(dir.path(), &["ls", "w.yaml"], None);
    assert!(r.stdout.contains("[schema: a --schema-location file (trusted)]"), "{}", r.stdout);
    // Remote locations are refused.
    let r =
        run_in(dir.path(), &["check", "--isolated", "--schema-location", "https://example.org/s.json", "w.yaml"], None);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("only local directories and files are read"), "{}", r.stderr);
}

/// README's layout: manifests beside a `.driftlint.yaml` that names a reference.
fn readme_layout() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = super::root();
    super::copy_dir(&root.join("fixtures/repo"), &tmp.path().join("repo"));
    super::copy_dir(&root.join("fixtures/reference"), &tmp.path().join("reference"));
    super::git(tmp.path(), &["init", "-q"]);
    tmp
}

const TYPOS: &str = "apiVersion: v1\nkind: Servce\nmetadata:\n  name: web\n  namespace: web\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: web\nspec:\n  containers:\n    - name: c\n      image: nginx\n      imagePullPolcy: Always\n      ports:\n        - containerPort: 70000\n";

#[test]
fn built_in_kinds_are_validated_with_a_reference_configured() {
    let tmp = readme_layout();
    let repo = tmp.path().join("repo");
    write(&repo, "typos.yaml", TYPOS);
    let r = run_in(&repo, &["check", "--format", "json", "."], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = json(&r);
    let typos: Vec<(String, u64)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"].as_str().unwrap().ends_with("typos.yaml") && d["severity"] == "error")
        .map(|d| (d["rule"].as_str().unwrap().to_string(), d["line"].as_u64().unwrap()))
        .collect();
    let owned = |v: &[(&str, u64)]| v.iter().map(|(r, l)| (r.to_string(), *l)).collect::<Vec<_>>();
    assert_eq!(typos, owned(&[("unknown-kind", 2), ("schema-unknown-field", 16), ("invalid-port", 18)]), "{v}");
    // The custom kinds a reference is about are not flooded with `schema-not-found`.
    assert!(!r.stdout.contains("schema-not-found"), "{}", r.stdout);
    // The pre-commit hook's form (named files) fails on them too.
    let r = run_in(&repo, &["check", "typos.yaml"], None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("error[unknown-kind]"), "{}", r.stdout);
    // Turned off explicitly: the flag, and the key.
    let r = run_in(&repo, &["check", "--format", "json", "--no-builtin-schemas", "typos.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let config = std::fs::read_to_string(repo.join(".driftlint.yaml")).unwrap();
    write(&repo, ".driftlint.yaml", &format!("{config}builtin-schemas: false\n"));
    let r = run_in(&repo, &["check", "--format", "json", "typos.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(!r.stdout.contains("unknown-kind"), "{}", r.stdout);
}

#[test]
fn turning_built_in_kinds_off_is_a_weakening_and_writing_the_default_is_not() {
    let tmp = readme_layout();
    let dir = tmp.path();
    super::git(dir, &["add", "-A"]);
    super::git(dir, &["commit", "-q", "-m", "base"]);
    let config = std::fs::read_to_string(dir.join("repo/.driftlint.yaml")).unwrap();
    let weakened = |extra: &str| -> Vec<String> {
        write(&dir.join("repo"), ".driftlint.yaml", &format!("{config}{extra}"));
        super::git(dir, &["add", "-A"]);
        let r = run_in(&dir.join("repo"), &["check", "--format", "json", "--staged", "."], None);
        json(&r)["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"] == "config-weakened")
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect()
    };
    let default = driftlint_kube_schemas::default_version();
    assert_eq!(weakened(&format!("kubernetes-version: \"{default}\"\nbuiltin-schemas: true\n")), Vec::<String>::new());
    assert_eq!(weakened("schema-mode: loose\n"), Vec::<String>::new());
    let found = weakened("builtin-schemas: false\n");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`builtin-schemas` turned off"), "{found:?}");
}
