//! Crossplane 2: `apiextensions.crossplane.io/v2` XRDs (scopes, machinery under
//! `spec.crossplane`, no claims), Compositions without `mode` read as Pipelines, and the
//! `crossplane-version:` configuration key.

use std::path::Path;

use super::{json, run_in};

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Exit code and (rule, severity, file:line) of every diagnostic but notes.
fn check(dir: &Path, args: &[&str]) -> (i32, Vec<(String, String, String)>) {
    let r = run_in(dir, &[&["check", "--format", "json"], args].concat(), None);
    let found = json(&r)["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", r.stderr))
        .iter()
        .filter(|d| d["severity"] != "note")
        .map(super::placed)
        .collect();
    (r.code, found)
}

fn owned(v: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    v.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect()
}

fn xrd(api: &str, scope: &str) -> String {
    format!(
        "apiVersion: apiextensions.crossplane.io/{api}\nkind: CompositeResourceDefinition\nmetadata:\n  name: xnetworks.example.org\nspec:\n  group: example.org\n  names: {{kind: XNetwork, plural: xnetworks}}\n{scope}  versions:\n    - name: v1alpha1\n      served: true\n      referenceable: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              required: [region]\n              properties:\n                region: {{type: string}}\n"
    )
}

const CONFIGMAP_CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.org\nspec:\n  group: example.org\n  names: {kind: Thing, plural: things}\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              properties:\n                region: {type: string}\n                composition: {type: string}\n";

/// A Composition of XNetwork without `mode`, its one patch-and-transform step copying
/// `from` into the composed Thing's `spec.composition`.
fn composition(from: &str) -> String {
    format!(
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xnetworks\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1alpha1\n    kind: XNetwork\n  pipeline:\n    - step: resources\n      functionRef: {{name: function-patch-and-transform}}\n      input:\n        apiVersion: pt.fn.crossplane.io/v1beta1\n        kind: Resources\n        resources:\n          - name: thing\n            base: {{apiVersion: example.org/v1, kind: Thing, spec: {{}}}}\n            patches:\n              - fromFieldPath: {from}\n                toFieldPath: spec.composition\n"
    )
}

/// A namespaced v2 XR: its machinery under `spec.crossplane` (a patch from
/// `spec.compositionRef.name` is a bad path, from `spec.crossplane.compositionRef.name` fine);
/// the Composition without `mode` is a Pipeline because its XRD is v2; instances validate.
#[test]
fn v2_namespaced_xr_and_a_composition_without_mode() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "schemas/xrd.yaml", &xrd("v2", ""));
    write(dir.path(), "schemas/crd.yaml", CONFIGMAP_CRD);
    write(dir.path(), "composition.yaml", &composition("spec.crossplane.compositionRef.name"));
    write(
        dir.path(),
        "xr.yaml",
        "apiVersion: example.org/v1alpha1\nkind: XNetwork\nmetadata: {name: n, namespace: team}\nspec:\n  region: eu\n  crossplane:\n    compositionRef: {name: xnetworks}\n  compositionRef: {name: xnetworks}\n",
    );
    let (code, found) = check(
        dir.path(),
        &["--isolated", "--schema-mode", "strict", "--schemas", "schemas", "composition.yaml", "xr.yaml"],
    );
    assert_eq!((code, found), (1, owned(&[("schema-unknown-field", "error", "xr.yaml:8")])));
    write(dir.path(), "composition.yaml", &composition("spec.compositionRef.name"));
    let (code, found) = check(dir.path(), &["--isolated", "--schemas", "schemas", "composition.yaml"]);
    assert_eq!((code, found), (1, owned(&[("composition-patch-path", "error", "composition.yaml:19")])));
    // The same XRD as v1: the Composition without `mode` is Resources mode, which needs
    // `spec.resources`.
    write(dir.path(), "schemas/xrd.yaml", &xrd("v1", ""));
    let (code, found) = check(dir.path(), &["--isolated", "--schemas", "schemas", "composition.yaml"]);
    assert_eq!((code, found), (1, owned(&[("composition-invalid", "error", "composition.yaml:5")])));
}

/// LegacyCluster keeps the machinery at the top of `spec` (with the connection secret
/// reference); `claimNames` and an unknown scope are schema errors at their lines.
#[test]
fn v2_legacy_cluster_claims_and_scopes() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "schemas/xrd.yaml", &xrd("v2", "  scope: LegacyCluster\n"));
    write(dir.path(), "schemas/crd.yaml", CONFIGMAP_CRD);
    write(dir.path(), "composition.yaml", &composition("spec.writeConnectionSecretToRef.name"));
    let (code, found) = check(dir.path(), &["--isolated", "--schemas", "schemas", "composition.yaml"]);
    assert_eq!((code, found), (0, vec![]));
    write(dir.path(), "composition.yaml", &composition("spec.crossplane.compositionRef.name"));
    let (code, found) = check(dir.path(), &["--isolated", "--schemas", "schemas", "composition.yaml"]);
    assert_eq!((code, found), (1, owned(&[("composition-patch-path", "error", "composition.yaml:19")])));
    write(
        dir.path(),
        "schemas/xrd.yaml",
        &xrd("v2", "  scope: Global\n  claimNames: {kind: Network, plural: networks}\n"),
    );
    let (code, found) = check(dir.path(), &["--isolated", "--schemas", "schemas", "composition.yaml"]);
    assert_eq!(
        (code, found),
        (1, owned(&[("invalid-schema", "error", "xrd.yaml:8"), ("invalid-schema", "error", "xrd.yaml:9")]))
    );
}

/// `crossplane-version: 2` reads a Composition of a v1 XRD's type without `mode` as a
/// Pipeline, refuses `mode: Resources`; an unknown version is a configuration error.
#[test]
fn crossplane_version_in_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "schemas/xrd.yaml", &xrd("v1", ""));
    write(dir.path(), "schemas/crd.yaml", CONFIGMAP_CRD);
    write(dir.path(), "composition.yaml", &composition("spec.region"));
    write(dir.path(), ".driftlint.yaml", "schemas: [schemas]\ncrossplane-version: 2\n");
    let (code, found) = check(dir.path(), &["composition.yaml"]);
    assert_eq!((code, found), (0, vec![]));
    let resources = composition("spec.region").replace("  pipeline:", "  mode: Resources\n  pipeline:");
    write(dir.path(), "composition.yaml", &resources);
    let (code, found) = check(dir.path(), &["composition.yaml"]);
    assert_eq!((code, found), (1, owned(&[("composition-invalid", "error", "composition.yaml:9")])));
    write(dir.path(), ".driftlint.yaml", "schemas: [schemas]\ncrossplane-version: 3\n");
    let r = run_in(dir.path(), &["check", "composition.yaml"], None);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains(".driftlint.yaml:2:21: unknown Crossplane version `3` (expected 1 or 2)"),
        "{}",
        r.stderr
    );
}

/// Two XRDs for one kind among the checked files: identical, a warning naming both files and
/// the one used; different, an error; the first one is used either way.
#[test]
fn duplicate_xrds_name_both_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/xrd.yaml", &xrd("v2", ""));
    write(dir.path(), "b/xrd.yaml", &xrd("v2", ""));
    let r = run_in(dir.path(), &["check", "--isolated", "--format", "json", "a", "b"], None);
    let v = json(&r);
    let d = &v["diagnostics"][0];
    assert_eq!((r.code, d["rule"].as_str(), d["severity"].as_str()), (0, Some("duplicate-definition"), Some("note")));
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("example.org/XNetwork") && message.contains("identically, as a/xrd.yaml does"),
        "{message}"
    );
    write(dir.path(), "b/xrd.yaml", &xrd("v2", "").replace("region: {type: string}", "region: {type: integer}"));
    let (code, found) = check(dir.path(), &["--isolated", "a", "b"]);
    assert_eq!((code, found), (0, owned(&[("duplicate-definition", "warning", "xrd.yaml:7")])));
}

/// A Crossplane 2 namespaced managed resource's `providerConfigRef` (crossplane/crossplane
/// apis/core/v2/resource_namespace.go: default `{kind: ClusterProviderConfig, name: default}`,
/// both keys required). A Pipeline Composition that writes neither gets nothing (the default
/// gives both); one patching only `name` from an XR field that may be absent gets a warning at
/// the patch (when it fires the object exists without `kind`, and the API server defaults
/// nothing into a present object); from a required XR field, an error (the default never
/// applies).
#[test]
fn an_object_default_supplies_its_keys_only_while_the_object_is_absent() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: buckets.s3.aws.m.upbound.io\nspec:\n  group: s3.aws.m.upbound.io\n  names: {kind: Bucket, plural: buckets}\n  scope: Namespaced\n  versions:\n    - name: v1beta1\n      served: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              required: [forProvider]\n              properties:\n                forProvider: {type: object, properties: {region: {type: string}}}\n                providerConfigRef:\n                  type: object\n                  default: {kind: ClusterProviderConfig, name: default}\n                  required: [kind, name]\n                  properties: {kind: {type: string}, name: {type: string}}\n";
    let xrd = "apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: xbuckets.example.org\nspec:\n  group: example.org\n  names: {kind: XBucket, plural: xbuckets}\n  versions:\n    - name: v1\n      served: true\n      referenceable: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              required: [account]\n              properties:\n                account: {type: string}\n                providerConfigName: {type: string}\n";
    let composition = |patch: &str| {
        format!(
            "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xbuckets\nspec:\n  compositeTypeRef: {{apiVersion: example.org/v1, kind: XBucket}}\n  mode: Pipeline\n  pipeline:\n    - step: resources\n      functionRef: {{name: function-patch-and-transform}}\n      input:\n        apiVersion: pt.fn.crossplane.io/v1beta1\n        kind: Resources\n        resources:\n          - name: bucket\n            base:\n              apiVersion: s3.aws.m.upbound.io/v1beta1\n              kind: Bucket\n              spec:\n                forProvider: {{region: us-east-1}}\n            patches:\n{patch}"
        )
    };
    let patch = |from: &str| {
        format!("              - fromFieldPath: {from}\n                toFieldPath: spec.providerConfigRef.name\n")
    };
    for (patches, expected) in [
        (
            "              - fromFieldPath: spec.account\n                toFieldPath: metadata.annotations[account]\n"
                .to_string(),
            vec![],
        ),
        (patch("spec.providerConfigName"), vec![("composition-required-field", "warning", "composition.yaml:23")]),
        (patch("spec.account"), vec![("composition-required-field", "error", "composition.yaml:19")]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "schemas/crd.yaml", crd);
        write(dir.path(), "schemas/xrd.yaml", xrd);
        write(dir.path(), "composition.yaml", &composition(&patches));
        let (_, found) = check(dir.path(), &["--isolated", "--schemas", "schemas", "composition.yaml"]);
        assert_eq!(found, owned(&expected), "{patches}");
    }
}

/// `status.conditions[].observedGeneration`, which Crossplane 2 sets on XRs and claims
/// (crossplane-runtime v2 pkg/xcrd `CompositeResourceStatusProps`): accepted for a v1 XRD's XR
/// under `crossplane-version: 2`, an unknown field under Crossplane 1 (its schema has no such
/// field), always accepted for a v2 XRD's XR.
#[test]
fn observed_generation_in_conditions_per_crossplane_version() {
    let status = "status:\n  conditions:\n    - {type: Ready, status: \"True\", reason: Available, lastTransitionTime: \"2025-01-01T00:00:00Z\", observedGeneration: 3}\n";
    for (api, config, expected) in [
        ("v1", "", vec![("schema-unknown-field", "error", "xr.yaml:8")]),
        ("v1", "crossplane-version: 2\n", vec![]),
        ("v2", "", vec![]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "schemas/xrd.yaml", &xrd(api, ""));
        write(dir.path(), ".driftlint.yaml", &format!("schemas: [schemas]\n{config}"));
        let namespace = if api == "v2" { ", namespace: team" } else { "" };
        write(
            dir.path(),
            "xr.yaml",
            &format!(
                "apiVersion: example.org/v1alpha1\nkind: XNetwork\nmetadata: {{name: n{namespace}}}\nspec:\n  region: eu\n{status}"
            ),
        );
        let (_, found) = check(dir.path(), &["xr.yaml"]);
        assert_eq!(found, owned(&expected), "{api} {config}");
    }
}
