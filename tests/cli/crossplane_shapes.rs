//! Shapes from real platform repositories (upbound's platform-ref-* and configuration-*
//! repositories, issue 26) that driftlint used to flag although Crossplane accepts them: each
//! test has the healthy shape (no finding) and a control that shows the check still runs.

use std::path::Path;

use super::{json, run_in};

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// (rule, severity, file:line) of every diagnostic.
fn findings(dir: &Path, args: &[&str]) -> (i32, Vec<(String, String, String)>) {
    let mut all = vec!["check", "--isolated", "--format", "json"];
    all.extend(args);
    let r = run_in(dir, &all, None);
    let v = json(&r);
    let found = v["diagnostics"].as_array().unwrap().iter().map(super::placed).collect();
    (r.code, found)
}

fn owned(v: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    v.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect()
}

/// An upjet-style managed resource: `forProvider.region` required, `providerConfigRef`
/// defaulted to `{name: default}` with `name` required, the connection secret reference with
/// `name` and `namespace` required.
const BUCKET_CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: buckets.s3.aws.upbound.io
spec:
  group: s3.aws.upbound.io
  names: {kind: Bucket, plural: buckets}
  scope: Cluster
  versions:
    - name: v1beta1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [forProvider]
              properties:
                forProvider:
                  type: object
                  required: [region]
                  properties:
                    region: {type: string}
                    tags: {type: object, additionalProperties: {type: string}}
                providerConfigRef:
                  type: object
                  default: {name: default}
                  required: [name]
                  properties:
                    name: {type: string}
                writeConnectionSecretToRef:
                  type: object
                  required: [name, namespace]
                  properties:
                    name: {type: string}
                    namespace: {type: string}
"#;

/// The XRD, its descriptions written the way platform-ref-aws writes some: a double-quoted
/// scalar whose continuation line sits at the key's column.
const XRD: &str = r#"apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xbuckets.platform.example.org
spec:
  group: platform.example.org
  names: {kind: XBucket, plural: xbuckets}
  versions:
    - name: v1alpha1
      served: true
      referenceable: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [parameters]
              properties:
                parameters:
                  type: object
                  description: "Bucket parameters: the region and the provider
                  configuration to use."
                  properties:
                    region:
                      type: string
                      default: us-west-2
                    zone:
                      type: string
                    providerConfigName:
                      type: string
"#;

/// A Composition with `patches` (YAML list items) for its one resource, and `extra` lines at
/// the end of its spec.
fn composition(annotation: &str, patches: &str, extra: &str) -> String {
    format!(
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xbuckets\n{annotation}spec:\n  compositeTypeRef:\n    apiVersion: platform.example.org/v1alpha1\n    kind: XBucket\n  resources:\n    - name: bucket\n      base:\n        apiVersion: s3.aws.upbound.io/v1beta1\n        kind: Bucket\n        spec:\n          forProvider: {{}}\n      patches:\n{patches}{extra}"
    )
}

fn repo(composition_text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "schemas/crd.yaml", BUCKET_CRD);
    write(dir.path(), "apis/definition.yaml", XRD);
    write(dir.path(), "apis/composition.yaml", composition_text);
    dir
}

const REGION: &str =
    "        - fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n";

/// False positive 1: the XRD with the under-indented continuation line is read (so the
/// Composition is checked against it: a bad path is found), not a YAML error.
#[test]
fn xrd_with_a_quoted_description_continued_at_the_key_column() {
    let patches = format!(
        "{REGION}        - fromFieldPath: spec.parameters.nope\n          toFieldPath: spec.forProvider.tags.a\n"
    );
    let dir = repo(&composition("", &patches, ""));
    let (code, found) = findings(dir.path(), &["--schemas", "schemas", "apis"]);
    assert_eq!((code, found), (1, owned(&[("composition-patch-path", "error", "composition.yaml:19")])));
}

/// False positive 2: the validation-mode annotation `warn` (Crossplane's default) is accepted;
/// the schema-aware findings are then warnings.
#[test]
fn validation_mode_warn() {
    let annotation = "  annotations:\n    crossplane.io/composition-schema-aware-validation-mode: warn\n";
    let patches = format!(
        "{REGION}        - fromFieldPath: spec.parameters.nope\n          toFieldPath: spec.forProvider.tags.a\n"
    );
    let dir = repo(&composition(annotation, &patches, ""));
    let (code, found) = findings(dir.path(), &["--schemas", "schemas", "apis"]);
    assert_eq!((code, found), (0, owned(&[("composition-patch-path", "warning", "composition.yaml:21")])));
    // An unknown value is still a logical error.
    let dir = repo(&composition(&annotation.replace("warn", "warning"), REGION, ""));
    let (code, found) = findings(dir.path(), &["--schemas", "schemas", "apis"]);
    assert_eq!((code, found), (1, owned(&[("composition-invalid", "error", "composition.yaml:6")])));
}

const SECRET_REF: &str = "        - fromFieldPath: metadata.uid\n          toFieldPath: spec.writeConnectionSecretToRef.name\n        - fromFieldPath: spec.writeConnectionSecretToRef.namespace\n          toFieldPath: spec.writeConnectionSecretToRef.namespace\n";

/// False positive 3: with `writeConnectionSecretsToNamespace`, Crossplane fills in the XR's
/// `writeConnectionSecretToRef`, so a patch from it sets a required field for sure.
#[test]
fn connection_secret_reference_filled_in_by_crossplane() {
    let patches = format!("{REGION}{SECRET_REF}");
    let dir = repo(&composition("", &patches, "  writeConnectionSecretsToNamespace: crossplane-system\n"));
    let (code, found) = findings(dir.path(), &["--schemas", "schemas", "apis"]);
    assert_eq!((code, found), (0, vec![]));
    // Without it the XR may have no reference: the warning stands.
    let dir = repo(&composition("", &patches, ""));
    let (code, found) = findings(dir.path(), &["--schemas", "schemas", "apis"]);
    assert_eq!((code, found), (0, owned(&[("composition-required-field", "warning", "composition.yaml:22")])));
}

/// False positive 5: the XR's source field has a schema default (region), or the target's
/// parent is defaulted (`providerConfigRef: {name: default}`).
#[test]
fn defaults_on_the_source_or_on_the_target_parent() {
    let provider = "        - fromFieldPath: spec.parameters.providerConfigName\n          toFieldPath: spec.providerConfigRef.name\n";
    let patches = format!("{REGION}{provider}");
    let dir = repo(&composition("", &patches, ""));
    let (code, found) = findings(dir.path(), &["--schemas", "schemas", "apis"]);
    assert_eq!((code, found), (0, vec![]));
    // A source without a default (zone) into a parent without one: the warning stands.
    let zone = "        - fromFieldPath: spec.parameters.zone\n          toFieldPath: spec.forProvider.region\n";
    let dir = repo(&composition("", zone, ""));
    let (code, found) = findings(dir.path(), &["--schemas", "schemas", "apis"]);
    assert_eq!((code, found), (0, owned(&[("composition-required-field", "warning", "composition.yaml:18")])));
}

/// False positive 4: package metadata is no API object: no `schema-not-found`, even strict.
#[test]
fn package_metadata_needs_no_schema() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "crossplane.yaml",
        "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: platform-ref-aws\nspec:\n  crossplane:\n    version: \">=v1.14.1-0\"\n  dependsOn:\n    - provider: xpkg.upbound.io/upbound/provider-aws-s3\n      version: \"v1\"\n---\napiVersion: meta.pkg.crossplane.io/v1beta1\nkind: Function\nmetadata:\n  name: f\n---\napiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: p\n",
    );
    write(
        dir.path(),
        "upbound.yaml",
        "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata:\n  name: platform\nspec:\n  repository: xpkg.upbound.io/example/platform\n",
    );
    write(dir.path(), "other.yaml", "apiVersion: example.org/v1\nkind: Unknown\nmetadata:\n  name: u\n");
    let (code, found) = findings(dir.path(), &["--schema-mode", "strict", "."]);
    assert_eq!((code, found), (1, owned(&[("schema-not-found", "error", "other.yaml:2")])));
}

/// A composed `Usage` (Crossplane's own API, platform-ref-aws v1.3.0): loose mode does not flag
/// its missing schema, as for instances of built-in kinds; strict mode does.
#[test]
fn composed_kinds_of_crossplanes_own_api() {
    let usage = "        - fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n    - name: usage\n      base:\n        apiVersion: apiextensions.crossplane.io/v1alpha1\n        kind: Usage\n        spec:\n          of: {apiVersion: s3.aws.upbound.io/v1beta1, kind: Bucket}\n";
    let dir = repo(&composition("", usage, ""));
    let (code, found) = findings(dir.path(), &["--schemas", "schemas", "apis"]);
    assert_eq!((code, found), (0, vec![]));
    let (code, found) = findings(dir.path(), &["--schemas", "schemas", "--schema-mode", "strict", "apis"]);
    assert_eq!((code, found), (1, owned(&[("schema-not-found", "error", "composition.yaml:22")])));
}
