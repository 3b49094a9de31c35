//! `driftlint init`: a commented `.driftlint.yaml` from what the repository holds, that
//! `driftlint check` accepts, written once.

use super::{copy_dir, json, root, run_in, write_files};

const CHART: [(&str, &str); 3] = [
    ("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n"),
    ("charts/web/values.yaml", "replicas: 2\n"),
    (
        "charts/web/templates/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  replicas: {{ .Values.replicas }}\n",
    ),
];

const KUSTOMIZATION: [(&str, &str); 2] = [
    ("deploy/base/kustomization.yaml", "resources:\n  - service.yaml\n"),
    (
        "deploy/base/service.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n  namespace: web\nspec:\n  ports:\n    - port: 80\n",
    ),
];

const CRDS: [(&str, &str); 2] = [
    (
        "crds/widgets.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n\
         spec:\n  group: example.com\n  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}\n\
         \x20 scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n\
         \x20       openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n\
         \x20             properties:\n                size: {type: integer}\n",
    ),
    (
        "widget.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: web\nspec:\n  size: 3\n",
    ),
];

/// A repository with a reference, manifests that drift from it, a chart, a kustomization,
/// CRDs and a Rego policy directory.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("fixtures/reference"), &dir.path().join("reference"));
    copy_dir(&root().join("fixtures/repo/app"), &dir.path().join("app"));
    std::fs::copy(root().join("fixtures/repo/namespace.yaml"), dir.path().join("namespace.yaml")).unwrap();
    write_files(dir.path(), &CHART);
    write_files(dir.path(), &KUSTOMIZATION);
    write_files(dir.path(), &CRDS);
    write_files(
        dir.path(),
        &[(
            "policy/main.rego",
            "package main\n\ndeny contains msg if {\n\tinput.kind == \"Secret\"\n\tmsg := \"no secrets\"\n}\n",
        )],
    );
    dir
}

#[test]
fn init_writes_a_configuration_check_accepts_and_refuses_to_overwrite_it() {
    let dir = repository();
    let r = run_in(dir.path(), &["init"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let written = std::fs::read_to_string(dir.path().join(".driftlint.yaml")).unwrap();
    for want in [
        "# yaml-language-server: $schema=https://",
        "reference: \"reference\"",
        "#   helm template \"charts/web\" | driftlint check -",
        "#   kustomize build \"deploy/base\" | driftlint check -",
        "#   CustomResourceDefinitions in crds/widgets.yaml",
        "policies:\n  - \"policy\"",
        "fail-level: error",
    ] {
        assert!(written.contains(want), "no {want:?} in:\n{written}");
    }
    // The manifests use APIs the newest bundled version serves: the default, commented out.
    assert!(written.contains("\n# kubernetes-version: \""), "{written}");
    // What was found, and the next two commands.
    assert!(
        r.stdout.starts_with("wrote .driftlint.yaml (reference reference, 1 Helm chart, 1 kustomization"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("\n  driftlint check ") && r.stdout.contains("\n  driftlint check --base origin/main "),
        "{}",
        r.stdout
    );

    // `check` takes the file: the reference is used (drift found), the CRD validates the Widget,
    // the chart and the kustomization are noted, not linted.
    let check = run_in(dir.path(), &["check", "--format", "json"], None);
    assert_eq!(check.code, 1, "{}\n{}", check.stdout, check.stderr);
    let rules: Vec<String> = json(&check)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect();
    assert!(rules.iter().any(|r| r == "value-drift"), "{rules:?}");
    assert!(!rules.iter().any(|r| r.starts_with("schema-") || r == "yaml-syntax-error"), "{rules:?}");

    // A second run refuses, and leaves the file alone; `--force` replaces it.
    std::fs::write(dir.path().join(".driftlint.yaml"), "fail-level: warning\n").unwrap();
    let again = run_in(dir.path(), &["init"], None);
    assert_eq!(again.code, 2, "{}", again.stdout);
    assert!(
        again.stderr.contains(".driftlint.yaml already exists") && again.stderr.contains("--force"),
        "{}",
        again.stderr
    );
    assert_eq!(std::fs::read_to_string(dir.path().join(".driftlint.yaml")).unwrap(), "fail-level: warning\n");
    let forced = run_in(dir.path(), &["init", "--force"], None);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_eq!(std::fs::read_to_string(dir.path().join(".driftlint.yaml")).unwrap(), written);
}

#[test]
fn init_writes_only_into_the_directory_named() {
    let dir = repository();
    let before = listing(dir.path());
    let r = run_in(&root(), &["init", dir.path().to_str().unwrap()], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut after = listing(dir.path());
    after.retain(|p| p != ".driftlint.yaml");
    assert_eq!(before, after, "init wrote something besides .driftlint.yaml");
    assert!(r.stdout.contains("\n  cd "), "{}", r.stdout);
    // Without a reference, the key is there to fill in, commented; the file is still valid.
    let bare = tempfile::tempdir().unwrap();
    write_files(bare.path(), &KUSTOMIZATION);
    let r = run_in(bare.path(), &["init"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let written = std::fs::read_to_string(bare.path().join(".driftlint.yaml")).unwrap();
    assert!(written.contains("\n# reference: path/to/reference\n"), "{written}");
    let check = run_in(bare.path(), &["check"], None);
    assert_eq!(check.code, 0, "{}\n{}", check.stdout, check.stderr);
}

/// A Kubernetes version older than the newest is chosen when a manifest uses an API the newer
/// versions no longer serve, with the reason in a comment.
#[test]
fn init_picks_the_kubernetes_version_the_manifests_apis_need() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[(
            "flow.yaml",
            "apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\nkind: FlowSchema\nmetadata:\n  name: f\nspec:\n  priorityLevelConfiguration: {name: p}\n",
        )],
    );
    let r = run_in(dir.path(), &["init"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let written = std::fs::read_to_string(dir.path().join(".driftlint.yaml")).unwrap();
    assert!(written.contains("\nkubernetes-version: \"1.31\"\n"), "{written}");
    assert!(
        written.contains(
            "flow.yaml uses flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema, which Kubernetes 1.32 no longer serves"
        ),
        "{written}"
    );
    let check = run_in(dir.path(), &["check", "--format", "json"], None);
    assert!(check.code == 0 || check.code == 1, "{}", check.stderr);

    // An API no bundled version serves: the default, commented, saying which API it is.
    write_files(
        dir.path(),
        &[("ingress.yaml", "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: i\n")],
    );
    let r = run_in(dir.path(), &["init", "--force"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let written = std::fs::read_to_string(dir.path().join(".driftlint.yaml")).unwrap();
    assert!(written.contains("(ingress.yaml uses extensions/v1beta1 Ingress)"), "{written}");
    assert!(written.contains("\n# kubernetes-version: \""), "{written}");
}

fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
        }
    }
    out.sort();
    out
}
