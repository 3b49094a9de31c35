//! `driftlint check` with CEL validation rules (`x-kubernetes-validations`) in CRD and XRD
//! schemas: Crossplane's own "InvalidWithCEL" case, rules at every level with `fieldPath`,
//! `messageExpression` and `reason`, upjet's generated rules (with the schema default they
//! rely on), XRDs validating their XR and claim, rules that do not compile, rules that are not
//! evaluated (noted once), and the cost bound.

use std::path::Path;

use super::{json, run_in};

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// (rule, severity, file:line, message) of every diagnostic, in report order.
fn check(dir: &Path, files: &[&str]) -> (i32, Vec<(String, String, String, String)>) {
    let mut args = vec!["check", "--isolated", "--format", "json", "--schemas", "schemas"];
    args.extend(files);
    let r = run_in(dir, &args, None);
    let v = json(&r);
    let found = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let (rule, severity, at) = super::placed(d);
            (rule, severity, at, d["message"].as_str().unwrap().to_string())
        })
        .collect();
    (r.code, found)
}

fn crd(kind: &str, schema: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    let schema: String = schema.lines().map(|l| format!("          {l}\n")).collect();
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {lower}s.test.org\nspec:\n  group: test.org\n  names: {{kind: {kind}, plural: {lower}s}}\n  scope: Cluster\n  versions:\n    - name: v1alpha1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n{schema}"
    )
}

/// The shape of `crossplane beta validate`'s test case "InvalidWithCEL": a rule on `spec`
/// that the object breaks (replicas 50 outside 3..10).
const REPLICAS_SCHEMA: &str = "type: object\nproperties:\n  spec:\n    type: object\n    x-kubernetes-validations:\n      - rule: self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas\n        message: replicas should be in between minReplicas and maxReplicas\n    properties:\n      replicas: {type: integer}\n      minReplicas: {type: integer}\n      maxReplicas: {type: integer}\n";

#[test]
fn crossplanes_invalid_with_cel_case_is_an_error_at_the_objects_line() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "schemas/test.yaml", &crd("Test", REPLICAS_SCHEMA));
    write(
        dir.path(),
        "bad.yaml",
        "apiVersion: test.org/v1alpha1\nkind: Test\nmetadata:\n  name: test\nspec:\n  replicas: 50\n  minReplicas: 3\n  maxReplicas: 10\n",
    );
    write(
        dir.path(),
        "good.yaml",
        "apiVersion: test.org/v1alpha1\nkind: Test\nmetadata:\n  name: test\nspec:\n  replicas: 5\n  minReplicas: 3\n  maxReplicas: 10\n",
    );
    let (code, found) = check(dir.path(), &["bad.yaml"]);
    assert_eq!(code, 1, "{found:?}");
    assert_eq!(found.len(), 1, "{found:?}");
    let (rule, severity, at, message) = &found[0];
    assert_eq!((rule.as_str(), severity.as_str(), at.as_str()), ("schema-cel-violation", "error", "bad.yaml:5"));
    assert!(message.contains("replicas should be in between minReplicas and maxReplicas"), "{message}");
    assert!(message.starts_with("`spec`"), "{message}");
    assert_eq!(check(dir.path(), &["good.yaml"]), (0, vec![]));
}

#[test]
fn rules_at_every_level_with_field_path_message_expression_and_reason() {
    let dir = tempfile::tempdir().unwrap();
    let schema = "type: object\nx-kubernetes-validations:\n  - rule: self.metadata.name.startsWith('w-')\n    message: names start with w-\nproperties:\n  metadata: {type: object}\n  spec:\n    type: object\n    x-kubernetes-validations:\n      - rule: \"!has(self.tls) || self.tls.enabled || !has(self.tls.cert)\"\n        message: a certificate needs tls enabled\n        fieldPath: .tls.cert\n        reason: FieldValueForbidden\n    properties:\n      ratio:\n        type: number\n        x-kubernetes-validations:\n          - rule: self <= 1.0\n            messageExpression: \"'ratio ' + string(self) + ' is above 1'\"\n          - rule: type(self) == double\n      tls:\n        type: object\n        properties:\n          enabled: {type: boolean}\n          cert: {type: string}\n      ports:\n        type: array\n        items:\n          type: object\n          x-kubernetes-validations:\n            - rule: self.port > 0 && self.port < 65536\n          properties:\n            port: {type: integer}\n";
    write(dir.path(), "schemas/widget.yaml", &crd("Widget", schema));
    // Line 3 (metadata.name) breaks the root rule, shown at the document's first key; the
    // tls rule points at `cert` (line 9); ratio 2 is written as an integer in a number field
    // (Kubernetes makes it a double); the second port breaks the items' rule.
    write(
        dir.path(),
        "w.yaml",
        "apiVersion: test.org/v1alpha1\nkind: Widget\nmetadata:\n  name: x\nspec:\n  ratio: 2\n  tls:\n    enabled: false\n    cert: abc\n  ports:\n    - port: 80\n    - port: 0\n",
    );
    let (code, found) = check(dir.path(), &["w.yaml"]);
    assert_eq!(code, 1, "{found:?}");
    let at: Vec<(&str, &str, &str)> = found.iter().map(|f| (f.0.as_str(), f.1.as_str(), f.2.as_str())).collect();
    assert_eq!(
        at,
        [
            ("schema-cel-violation", "error", "w.yaml:1"),
            ("schema-cel-violation", "error", "w.yaml:6"),
            ("schema-cel-violation", "error", "w.yaml:9"),
            ("schema-cel-violation", "error", "w.yaml:12"),
        ],
        "{found:?}"
    );
    assert!(found[0].3.contains("names start with w-"), "{found:?}");
    // (`string(2.0)` is "2" in cel-go too; the second rule on ratio, `type(self) == double`,
    // holds: no finding for it.)
    assert!(found[1].3.contains("ratio 2 is above 1"), "{found:?}");
    assert!(found[2].3.contains("a certificate needs tls enabled (FieldValueForbidden)"), "{found:?}");
    // Without `message`, Kubernetes' default names the rule.
    assert!(found[3].3.contains("failed rule: self.port > 0 && self.port < 65536"), "{found:?}");
}

/// Upjet's generated rule (one of thousands in provider CRDs): a required parameter unless
/// the management policies leave creation out. `managementPolicies` has a default, which the
/// API server applies before it evaluates the rule.
#[test]
fn upjet_required_parameter_rules_see_schema_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let schema = "type: object\nproperties:\n  spec:\n    type: object\n    x-kubernetes-validations:\n      - message: spec.forProvider.region is a required parameter\n        rule: \"!('*' in self.managementPolicies || 'Create' in self.managementPolicies || 'Update' in self.managementPolicies) || has(self.forProvider.region) || (has(self.initProvider) && has(self.initProvider.region))\"\n    properties:\n      managementPolicies:\n        type: array\n        default: ['*']\n        items: {type: string}\n      forProvider:\n        type: object\n        properties:\n          region: {type: string}\n      initProvider:\n        type: object\n        properties:\n          region: {type: string}\n";
    write(dir.path(), "schemas/bucket.yaml", &crd("Bucket", schema));
    let doc = |spec: &str| format!("apiVersion: test.org/v1alpha1\nkind: Bucket\nmetadata:\n  name: b\nspec:\n{spec}");
    write(dir.path(), "missing.yaml", &doc("  forProvider: {}\n"));
    write(dir.path(), "set.yaml", &doc("  forProvider:\n    region: us-east-1\n"));
    write(dir.path(), "init.yaml", &doc("  forProvider: {}\n  initProvider:\n    region: us-east-1\n"));
    write(dir.path(), "observe.yaml", &doc("  managementPolicies: [Observe]\n  forProvider: {}\n"));
    let (code, found) = check(dir.path(), &["missing.yaml"]);
    assert_eq!(code, 1);
    assert_eq!((found.len(), found[0].2.as_str()), (1, "missing.yaml:5"), "{found:?}");
    assert!(found[0].3.contains("spec.forProvider.region is a required parameter"), "{found:?}");
    for ok in ["set.yaml", "init.yaml", "observe.yaml"] {
        assert_eq!(check(dir.path(), &[ok]), (0, vec![]), "{ok}");
    }
}

#[test]
fn xrd_rules_validate_the_composite_and_the_claim() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "schemas/xrd.yaml",
        "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: xdatabases.test.org\nspec:\n  group: test.org\n  names: {kind: XDatabase, plural: xdatabases}\n  claimNames: {kind: Database, plural: databases}\n  versions:\n    - name: v1alpha1\n      served: true\n      referenceable: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-validations:\n            - rule: size(self.metadata.name) <= 10\n              message: names have at most 10 characters\n          properties:\n            spec:\n              type: object\n              x-kubernetes-validations:\n                - rule: \"self.storageGB >= 20 || self.engine != 'postgres'\"\n                  message: postgres needs at least 20 GB\n              properties:\n                engine: {type: string}\n                storageGB: {type: integer}\n",
    );
    write(
        dir.path(),
        "xr.yaml",
        "apiVersion: test.org/v1alpha1\nkind: XDatabase\nmetadata:\n  name: a\nspec:\n  engine: postgres\n  storageGB: 10\n",
    );
    write(
        dir.path(),
        "claim.yaml",
        "apiVersion: test.org/v1alpha1\nkind: Database\nmetadata:\n  name: a\n  namespace: n\nspec:\n  engine: postgres\n  storageGB: 5\n---\napiVersion: test.org/v1alpha1\nkind: Database\nmetadata:\n  name: b\n  namespace: n\nspec:\n  engine: mysql\n  storageGB: 5\n",
    );
    let (code, found) = check(dir.path(), &["xr.yaml", "claim.yaml"]);
    assert_eq!(code, 1);
    let at: Vec<(&str, &str)> = found.iter().map(|f| (f.0.as_str(), f.2.as_str())).collect();
    assert_eq!(at, [("schema-cel-violation", "claim.yaml:6"), ("schema-cel-violation", "xr.yaml:5")], "{found:?}");
    assert!(found.iter().all(|f| f.3.contains("postgres needs at least 20 GB")), "{found:?}");
    // A rule on the XRD's root is the XR's (and the claim's) root rule too.
    write(
        dir.path(),
        "long.yaml",
        "apiVersion: test.org/v1alpha1\nkind: XDatabase\nmetadata:\n  name: a-much-longer-name\nspec:\n  engine: mysql\n",
    );
    let (code, found) = check(dir.path(), &["long.yaml"]);
    let at: Vec<(&str, &str)> = found.iter().map(|f| (f.0.as_str(), f.2.as_str())).collect();
    assert_eq!((code, at), (1, vec![("schema-cel-violation", "long.yaml:1")]), "{found:?}");
    assert!(found[0].3.contains("names have at most 10 characters"), "{found:?}");
}

#[test]
fn a_rule_that_does_not_compile_is_invalid_schema_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let schema = "type: object\nproperties:\n  spec:\n    type: object\n    x-kubernetes-validations:\n      - rule: self.size >\n      - rule: size(self.name) < 10 && other == 1\n      - rule: size(self.name) < 3\n      - rule: has(self.nmae) || self.labels.anything == 'x'\n    properties:\n      name: {type: string}\n      labels: {type: object, additionalProperties: {type: string}}\n";
    write(dir.path(), "schemas/t.yaml", &crd("T", schema));
    write(
        dir.path(),
        "t.yaml",
        "apiVersion: test.org/v1alpha1\nkind: T\nmetadata:\n  name: t\nspec:\n  name: abcdef\n",
    );
    let (code, found) = check(dir.path(), &["t.yaml"]);
    assert_eq!(code, 1);
    let at: Vec<(&str, &str)> = found.iter().map(|f| (f.0.as_str(), f.2.as_str())).collect();
    // Schema lines: the CRD's 14-line head, then the schema (rule keys on its lines 6 and 7).
    assert_eq!(
        at,
        [
            ("invalid-schema", "t.yaml:20"),
            ("invalid-schema", "t.yaml:21"),
            ("invalid-schema", "t.yaml:23"),
            ("schema-cel-violation", "t.yaml:5")
        ],
        "{found:?}"
    );
    assert!(found[0].3.contains("does not compile"), "{found:?}");
    assert!(found[1].3.contains("undeclared reference to `other`"), "{found:?}");
    // A misspelt field is refused as Kubernetes refuses it; a map's keys are not checked.
    assert!(found[2].3.contains("undefined field `nmae`"), "{found:?}");
}

#[test]
fn transition_and_unsupported_rules_are_noted_once_per_run() {
    let dir = tempfile::tempdir().unwrap();
    let schema = "type: object\nproperties:\n  spec:\n    type: object\n    x-kubernetes-validations:\n      - rule: self.name == oldSelf.name\n        message: name is immutable\n      - rule: self.name.someFutureFunction()\n    properties:\n      name: {type: string}\n";
    write(dir.path(), "schemas/t.yaml", &crd("T", schema));
    let obj = |n: &str| format!("apiVersion: test.org/v1alpha1\nkind: T\nmetadata:\n  name: {n}\nspec:\n  name: {n}\n");
    write(dir.path(), "objects.yaml", &format!("{}---\n{}", obj("a"), obj("b")));
    let (code, found) = check(dir.path(), &["objects.yaml"]);
    assert_eq!(code, 0, "{found:?}");
    let at: Vec<(&str, &str, &str)> = found.iter().map(|f| (f.0.as_str(), f.1.as_str(), f.2.as_str())).collect();
    assert_eq!(
        at,
        [("schema-cel-violation", "note", "objects.yaml:5"), ("schema-cel-violation", "note", "objects.yaml:5")],
        "{found:?}"
    );
    assert!(found.iter().any(|f| f.3.contains("transition rule")), "{found:?}");
    assert!(found.iter().any(|f| f.3.contains("`someFutureFunction`")), "{found:?}");
}

/// Rules calling Kubernetes' named-format, sets and semver libraries are evaluated: an
/// object breaking all three gets three errors (each rule's own message), one keeping them
/// none. What Kubernetes returns for each call is its library tests' (format_test.go,
/// semver_test.go, cel-go's sets_test.go; see crates/cel/tests/upstream.rs).
#[test]
fn format_sets_and_semver_rules_are_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    let schema = "type: object\nproperties:\n  spec:\n    type: object\n    x-kubernetes-validations:\n      - rule: \"!format.dns1123Label().validate(self.host).hasValue()\"\n        message: host is no DNS label\n      - rule: sets.contains(['a', 'b', 'c'], self.modes)\n        message: unknown mode\n      - rule: isSemver(self.version) && semver(self.version).isGreaterThan(semver('1.0.0'))\n        message: version is no semver above 1.0.0\n    properties:\n      host: {type: string}\n      modes: {type: array, items: {type: string}}\n      version: {type: string}\n";
    write(dir.path(), "schemas/t.yaml", &crd("T", schema));
    let obj = |host: &str, mode: &str, version: &str| {
        format!(
            "apiVersion: test.org/v1alpha1\nkind: T\nmetadata:\n  name: t\nspec:\n  host: {host}\n  modes: [{mode}]\n  version: {version}\n"
        )
    };
    write(dir.path(), "bad.yaml", &obj("Not_A_Label", "z", "v1.2"));
    write(dir.path(), "good.yaml", &obj("my-host", "b", "1.2.0"));
    let (code, found) = check(dir.path(), &["bad.yaml"]);
    assert_eq!(code, 1, "{found:?}");
    let got: Vec<(&str, &str)> = found.iter().map(|f| (f.0.as_str(), f.1.as_str())).collect();
    assert_eq!(got, [("schema-cel-violation", "error"); 3], "{found:?}");
    for m in ["host is no DNS label", "unknown mode", "version is no semver above 1.0.0"] {
        assert!(found.iter().any(|f| f.3.contains(m)), "{m}: {found:?}");
    }
    assert_eq!(check(dir.path(), &["good.yaml"]), (0, vec![]));
}

/// A rule whose cost grows with the cube of a list: Kubernetes would refuse it at CRD
/// creation by its estimated cost, or the object at run time by its per-expression limit;
/// offline it stops at the step budget with an error.
#[test]
fn a_runaway_rule_stops_at_its_cost_bound_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let schema = "type: object\nproperties:\n  spec:\n    type: object\n    x-kubernetes-validations:\n      - rule: self.items.all(a, self.items.all(b, self.items.all(c, a + b + c >= 0)))\n    properties:\n      items: {type: array, items: {type: integer}}\n";
    write(dir.path(), "schemas/t.yaml", &crd("T", schema));
    let items: Vec<String> = (0..500).map(|i| i.to_string()).collect();
    write(
        dir.path(),
        "t.yaml",
        &format!(
            "apiVersion: test.org/v1alpha1\nkind: T\nmetadata:\n  name: t\nspec:\n  items: [{}]\n",
            items.join(", ")
        ),
    );
    let (code, found) = check(dir.path(), &["t.yaml"]);
    let at: Vec<(&str, &str, &str)> = found.iter().map(|f| (f.0.as_str(), f.1.as_str(), f.2.as_str())).collect();
    assert_eq!((code, at), (1, vec![("schema-cel-budget", "error", "t.yaml:5")]), "{found:?}");
    // (125 million iterations unbounded: the run would take minutes.)
    assert!(found[0].3.contains("cost budget of 1000000 steps"), "{found:?}");
}

/// The AWS provider's EKS PodIdentityAssociation: `namespace` is a CEL keyword, so Kubernetes
/// binds the property as `__namespace__`, and upjet's rule reads it so. A map's keys
/// (`additionalProperties`) stay as written.
#[test]
fn escaped_property_names_as_provider_rules_use_them() {
    let dir = tempfile::tempdir().unwrap();
    let schema = "type: object\nproperties:\n  spec:\n    type: object\n    x-kubernetes-validations:\n      - rule: has(self.forProvider.__namespace__) && self.forProvider.tags['a.b'] == 'x'\n        message: spec.forProvider.namespace is a required parameter\n    properties:\n      forProvider:\n        type: object\n        properties:\n          namespace: {type: string}\n          tags: {type: object, additionalProperties: {type: string}}\n";
    write(dir.path(), "schemas/p.yaml", &crd("Pod", schema));
    let doc = |fp: &str| {
        format!("apiVersion: test.org/v1alpha1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  forProvider:\n{fp}")
    };
    write(dir.path(), "ok.yaml", &doc("    namespace: default\n    tags: {a.b: x}\n"));
    write(dir.path(), "bad.yaml", &doc("    tags: {a.b: x}\n"));
    assert_eq!(check(dir.path(), &["ok.yaml"]), (0, vec![]));
    let (code, found) = check(dir.path(), &["bad.yaml"]);
    assert_eq!((code, found.len()), (1, 1), "{found:?}");
    assert!(found[0].3.contains("namespace is a required parameter"), "{found:?}");
}
