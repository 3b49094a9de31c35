//! Compositions over CRD-heavy schema sets and over Kubernetes' built-in kinds (issue 26):
//! one file bundling many CRDs gives the used kinds' findings and none of the unused ones';
//! a composed `v1 ConfigMap` or `apps/v1 Deployment` is validated against the bundled
//! built-in schema.

use std::path::Path;

use super::{json, run_in};

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// (rule, file:line) of every finding of `driftlint check --isolated --format json ARGS` in `dir`.
fn check(dir: &Path, args: &[&str]) -> (i32, Vec<(String, String)>) {
    let mut all = vec!["check", "--isolated", "--format", "json"];
    all.extend(args);
    let r = run_in(dir, &all, None);
    let found = json(&r)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let file = d["file"].as_str().unwrap_or("");
            let file = file.rsplit('/').next().unwrap_or(file);
            (d["rule"].as_str().unwrap().to_string(), format!("{file}:{}", d["line"]))
        })
        .collect();
    (r.code, found)
}

const XRD: &str = "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata: {name: xapps.example.org}\nspec:\n  group: example.org\n  names: {kind: XApp, plural: xapps}\n  versions:\n    - name: v1\n      served: true\n      referenceable: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              properties:\n                replicas: {type: integer}\n                note: {type: string}\n";

fn crd(kind: &str, size_type: &str) -> String {
    format!(
        "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {kind}s.cloud.example.io\nspec:\n  group: cloud.example.io\n  names:\n    kind: {kind}\n    plural: {kind}s\n  scope: Cluster\n  versions:\n  - name: v1\n    served: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              forProvider:\n                type: object\n                properties:\n                  size: {{type: {size_type}}}\n"
    )
}

/// One file of many CRDs: the composed kind's schema is used (a patch to a field it lacks is
/// an error), an unused CRD's own problem (an unknown type) is not reported, and a used CRD's
/// duplicate in another file still is.
#[test]
fn one_bundled_crd_file_gives_the_used_kinds_findings_only() {
    let dir = tempfile::tempdir().unwrap();
    let bundle: String =
        (0..50).map(|k| crd(&format!("Thing{k}"), if k == 7 { "nonsense" } else { "integer" })).collect();
    write(dir.path(), "crds/all.yaml", &bundle);
    write(dir.path(), "crds/again.yaml", &crd("Thing3", "integer"));
    let composition = format!(
        "{XRD}---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {{name: xapps}}\nspec:\n  compositeTypeRef: {{apiVersion: example.org/v1, kind: XApp}}\n  resources:\n    - name: thing\n      base:\n        apiVersion: cloud.example.io/v1\n        kind: Thing3\n        spec:\n          forProvider: {{size: 1}}\n      patches:\n        - fromFieldPath: spec.replicas\n          toFieldPath: spec.forProvider.count\n"
    );
    write(dir.path(), "platform/composition.yaml", &composition);
    let (code, found) = check(dir.path(), &["--schemas", "crds", "platform"]);
    assert_eq!(code, 1, "{found:?}");
    let mut found = found;
    found.sort();
    assert_eq!(
        found,
        [
            ("composition-patch-path".to_string(), "composition.yaml:35".to_string()),
            // again.yaml is read first: the bundle's Thing3 is the (identical) duplicate.
            ("duplicate-definition".to_string(), "all.yaml:84".to_string()),
        ],
    );
}

/// A composed built-in kind is validated against Kubernetes' bundled schema: an unknown field
/// of a ConfigMap, a patch to a path a ConfigMap lacks, a Deployment's replicas of the wrong
/// type; a patch to a field the kind has is fine.
#[test]
fn composed_builtin_kinds_are_validated_against_the_bundled_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let composition = format!(
        "{XRD}---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {{name: xapps}}\nspec:\n  compositeTypeRef: {{apiVersion: example.org/v1, kind: XApp}}\n  resources:\n    - name: config\n      base:\n        apiVersion: v1\n        kind: ConfigMap\n        data: {{a: b}}\n        spec: {{x: 1}}\n      patches:\n        - fromFieldPath: spec.note\n          toFieldPath: data.note\n        - fromFieldPath: spec.note\n          toFieldPath: datum.note\n    - name: app\n      base:\n        apiVersion: apps/v1\n        kind: Deployment\n        spec:\n          replicas: many\n          selector: {{matchLabels: {{app: a}}}}\n          template:\n            metadata: {{labels: {{app: a}}}}\n            spec:\n              containers: [{{name: a, image: nginx}}]\n      patches:\n        - fromFieldPath: spec.replicas\n          toFieldPath: spec.replicas\n"
    );
    write(dir.path(), "composition.yaml", &composition);
    let (code, mut found) = check(dir.path(), &["composition.yaml"]);
    found.sort();
    assert_eq!(code, 1, "{found:?}");
    assert_eq!(
        found,
        [
            ("composition-patch-path".to_string(), "composition.yaml:37".to_string()),
            ("schema-type-mismatch".to_string(), "composition.yaml:43".to_string()),
            ("schema-unknown-field".to_string(), "composition.yaml:32".to_string()),
        ],
    );
}
