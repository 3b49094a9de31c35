//! `driftlint check -` on rendered input: every family's findings on `kustomize build` output
//! (origin annotations) and `helm template` output (`# Source:` comments) are shown at the
//! source file and the field's line there, with the rendered line kept as a secondary label;
//! a source that cannot be read leaves the finding on standard input, naming its source.

use std::path::Path;

use super::{json, run_in, write_files};

/// Comment lines at the top of each source file: kustomize and helm drop them, so a source
/// line and its rendered line differ.
const HEAD: &str =
    "# Source kept by the team.\n# Rendered by kustomize and helm.\n# Lines differ from the rendered ones.\n";

/// The source `object` as `kustomize build` prints it with `buildMetadata: [originAnnotations]`
/// (the origin annotation first under `metadata`, as kustomize sorts keys).
fn kustomized(object: &str, path: &str) -> String {
    let origin = format!("    config.kubernetes.io/origin: |\n      path: {path}\n");
    if object.contains("  annotations:\n") {
        object.replacen("  annotations:\n", &format!("  annotations:\n{origin}"), 1)
    } else {
        object.replacen("metadata:\n", &format!("metadata:\n  annotations:\n{origin}"), 1)
    }
}

/// The source `object` as `helm template` prints it.
fn helmed(object: &str, path: &str) -> String {
    format!("---\n# Source: {path}\n{object}")
}

/// The 1-based line of the first occurrence of `needle` in `text`.
fn line_of(text: &str, needle: &str) -> u64 {
    let at = text.find(needle).unwrap_or_else(|| panic!("`{needle}` not in:\n{text}"));
    text[..at].matches('\n').count() as u64 + 1
}

/// Runs `check -` in `dir` with `stdin` and `args` (JSON), returning (exit code, findings).
fn check(dir: &Path, stdin: &str, args: &[&str]) -> (i32, Vec<serde_json::Value>) {
    let mut all = vec!["check", "-", "--isolated", "--origin-root", ".", "--format", "json"];
    all.extend_from_slice(args);
    let r = run_in(dir, &all, Some(stdin));
    let v = json(&r);
    (r.code, v["diagnostics"].as_array().unwrap().clone())
}

/// The finding of `rule` in `found`.
fn finding<'a>(found: &'a [serde_json::Value], rule: &str) -> &'a serde_json::Value {
    found
        .iter()
        .find(|d| d["rule"] == rule)
        .unwrap_or_else(|| panic!("no `{rule}` in {}", serde_json::to_string_pretty(found).unwrap()))
}

/// Asserts that `d` is at `file`:`line` and keeps its rendered place on standard input at
/// `rendered_line`.
fn assert_mapped(d: &serde_json::Value, file: &str, line: u64, rendered_line: u64) {
    let pretty = serde_json::to_string_pretty(d).unwrap();
    assert_eq!((d["file"].as_str(), d["line"].as_u64()), (Some(file), Some(line)), "{pretty}");
    if d["rule"] == "invalid-suppression" || d["rule"] == "policy-deny" {
        // Located in the source by the family itself (no rendered label).
        return;
    }
    let labels = d["labels"].as_array().unwrap_or_else(|| panic!("no labels: {pretty}"));
    assert!(
        labels.iter().any(|l| l["primary"] == false
            && l["file"] == "<stdin>"
            && l["line"] == rendered_line
            && l["message"] == "as rendered"),
        "{pretty}"
    );
}

/// Checks `object` (a source file's text after [`HEAD`]) rendered by kustomize and by helm, and
/// asserts that the finding of `rule` is at the source line holding `needle`, with the
/// rendered line kept. `files` are written beside the sources (schemas, policies).
fn maps_back(object: &str, rule: &str, needle: &str, files: &[(&str, &str)], args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let source = format!("{HEAD}{object}");
    write_files(dir.path(), files);
    write_files(dir.path(), &[("base/object.yaml", &source), ("chart/templates/object.yaml", &source)]);
    for stdin in [kustomized(object, "base/object.yaml"), helmed(object, "chart/templates/object.yaml")] {
        let file = if stdin.starts_with("---") { "chart/templates/object.yaml" } else { "base/object.yaml" };
        let (_, found) = check(dir.path(), &stdin, args);
        assert_mapped(finding(&found, rule), file, line_of(&source, needle), line_of(&stdin, needle));
    }
}

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: web:1.0
";

#[test]
fn schema_findings_map_to_the_field_in_the_source() {
    let object = DEPLOYMENT.replace("replicas: 2", "replicas: two");
    maps_back(&object, "schema-type-mismatch", "replicas: two", &[], &[]);
}

#[test]
fn api_server_rule_findings_map_to_the_field_in_the_source() {
    // The selector does not select the template's labels: the API server rejects it; the
    // finding is at the `selector:` key.
    let object = DEPLOYMENT.replace(
        "      app: web
  template",
        "      app: api
  template",
    );
    maps_back(&object, "selector-mismatch", "selector:", &[], &[]);
}

/// A CRD whose `spec` has a CEL rule `self.size <= 10`.
const WIDGET_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.org
spec:
  group: test.org
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: self.size <= 10
                  message: size is at most 10
                  fieldPath: .size
              properties:
                size: {type: integer}
";

#[test]
fn cel_findings_map_to_the_field_in_the_source() {
    let object = "apiVersion: test.org/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 50\n";
    maps_back(
        object,
        "schema-cel-violation",
        "size: 50",
        &[("schemas/widget.yaml", WIDGET_CRD)],
        &["--schemas", "schemas"],
    );
}

#[test]
fn composition_findings_map_to_the_field_in_the_source() {
    let xrd = std::fs::read_to_string(super::root().join("fixtures/crossplane/schemas/xpostgresqlinstance.xrd.yaml"))
        .unwrap();
    let crd = std::fs::read_to_string(super::root().join("fixtures/crossplane/schemas/rdsinstance.crd.yaml")).unwrap();
    let object = "apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xpostgresqlinstances.example.org
spec:
  compositeTypeRef:
    apiVersion: database.example.org/v1alpha1
    kind: XPostgreSQLInstance
  resources:
    - name: rdsinstance
      base:
        apiVersion: database.aws.crossplane.io/v1beta1
        kind: RDSInstance
        spec:
          forProvider:
            dbInstanceClass: db.t2.small
      patches:
        - fromFieldPath: spec.parameters.wrongParameter
          toFieldPath: spec.forProvider.dbInstanceClass
";
    maps_back(
        object,
        "composition-patch-path",
        "spec.parameters.wrongParameter",
        &[("schemas/xrd.yaml", &xrd), ("schemas/crd.yaml", &crd)],
        &["--schemas", "schemas"],
    );
}

#[test]
fn policy_findings_map_to_the_object_in_the_source() {
    let policy =
        "package main\n\ndeny contains msg if {\n  input.kind == \"Deployment\"\n  msg := \"no Deployments here\"\n}\n";
    maps_back(DEPLOYMENT, "policy-deny", "kind: Deployment", &[("policy/p.rego", policy)], &["--policy", "policy"]);
}

#[test]
fn suppression_findings_map_to_the_annotation_in_the_source() {
    let object = DEPLOYMENT
        .replace("  name: web\n", "  annotations:\n    driftlint.io/ignore: \"schema-type-mismatch\"\n  name: web\n");
    maps_back(&object, "invalid-suppression", "schema-type-mismatch", &[], &[]);
}

#[test]
fn drift_findings_map_to_the_source_through_a_name_prefix() {
    // An overlay's `namePrefix: prod-`: the rendered name is not the source's.
    let root = super::root();
    let dir = tempfile::tempdir().unwrap();
    super::copy_dir(&root.join("fixtures/kustomize"), &dir.path().join("kustomize"));
    super::copy_dir(&root.join("fixtures/reference"), &dir.path().join("reference"));
    let stdin = std::fs::read_to_string(root.join("fixtures/stdin/kustomize-rendered.yaml"))
        .unwrap()
        .replace("  name: frontend\n", "  name: prod-frontend\n");
    let args =
        ["check", "-", "--isolated", "-r", "reference", "--origin-root", "kustomize/overlays/prod", "--format", "json"];
    let r = run_in(dir.path(), &args, Some(&stdin));
    let found = json(&r)["diagnostics"].as_array().unwrap().clone();
    let on_stdin: Vec<_> = found.iter().filter(|d| d["file"] == "<stdin>").collect();
    assert!(on_stdin.is_empty(), "{}", serde_json::to_string_pretty(&on_stdin).unwrap());
    let base = std::fs::read_to_string(dir.path().join("kustomize/base/deployment.yaml")).unwrap();
    let unmatched = finding(&found, "unmatched-resource");
    assert_eq!(unmatched["file"], "kustomize/base/deployment.yaml", "{unmatched}");
    assert_eq!(unmatched["line"].as_u64(), Some(line_of(&base, "name: frontend")), "{unmatched}");
}

#[test]
fn sarif_locations_are_the_source_files() {
    let dir = tempfile::tempdir().unwrap();
    let object = DEPLOYMENT.replace("replicas: 2", "replicas: two");
    let source = format!("{HEAD}{object}");
    write_files(dir.path(), &[("base/object.yaml", &source)]);
    let args = ["check", "-", "--isolated", "--origin-root", ".", "--format", "sarif"];
    let r = run_in(dir.path(), &args, Some(&kustomized(&object, "base/object.yaml")));
    let v = json(&r);
    let location = &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "base/object.yaml", "{}", r.stdout);
    assert_eq!(location["region"]["startLine"].as_u64(), Some(line_of(&source, "replicas: two")), "{}", r.stdout);
    // The human report shows the source line.
    let r = run_in(dir.path(), &args[..5], Some(&kustomized(&object, "base/object.yaml")));
    let at = format!("base/object.yaml:{}:", line_of(&source, "replicas: two"));
    assert!(r.stdout.contains(&at) && r.stdout.contains("as rendered"), "{}", r.stdout);
}

#[test]
fn an_unreadable_source_leaves_the_finding_on_stdin_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let object = DEPLOYMENT.replace("replicas: 2", "replicas: two");
    for (stdin, named) in [
        (kustomized(&object, "base/absent.yaml"), "base/absent.yaml"),
        (kustomized(&object, "../outside.yaml"), "../outside.yaml"),
        (helmed(&object, "chart/templates/absent.yaml"), "chart/templates/absent.yaml"),
    ] {
        let (_, found) = check(dir.path(), &stdin, &[]);
        let d = finding(&found, "schema-type-mismatch");
        assert_eq!((d["file"].as_str(), d["line"].as_u64()), (Some("<stdin>"), Some(line_of(&stdin, "replicas: two"))));
        let help = d["help"].to_string();
        assert!(help.contains(&format!("from `{named}`")), "{d}");
    }
}
