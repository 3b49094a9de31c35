//! The repository layouts people have: a Helm chart and kustomize bases and overlays beside
//! plain manifests. Chart sources and kustomize files are not manifests: one note per chart
//! and per kind of tool file, never syntax errors or unmatched objects.

use std::path::Path;

use super::{json, root, run_in};

use super::write_files as write;

fn gitops(dir: &Path) {
    write(
        dir,
        &[
            ("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n"),
            ("charts/web/values.yaml", "replicas: 2\n"),
            (
                "charts/web/templates/deploy.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  replicas: {{ .Values.replicas }}\n  {{- with .Values.x }}\n  foo: bar\n  {{- end }}\n",
            ),
            (
                "charts/web/crds/widget.yaml",
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n",
            ),
            (
                "base/kustomization.yaml",
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - cm.yaml\n",
            ),
            ("base/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n"),
            ("overlays/prod/kustomization.yaml", "namePrefix: prod-\nresources:\n  - ../../base\n"),
        ],
    );
}

#[test]
fn charts_and_kustomize_files_are_noted_not_linted() {
    let tmp = tempfile::tempdir().unwrap();
    gitops(tmp.path());
    let reference = root().join("fixtures/reference");
    let r = run_in(
        tmp.path(),
        &["check", "--isolated", "--format", "json", "--fail-level", "warning", "-r", reference.to_str().unwrap(), "."],
        None,
    );
    let v = json(&r);
    let diags = v["diagnostics"].as_array().unwrap();
    let at = |rule: &str| -> Vec<String> {
        diags.iter().filter(|d| d["rule"] == rule).map(|d| d["file"].as_str().unwrap().to_string()).collect()
    };
    assert!(at("yaml-syntax-error").is_empty(), "{diags:?}");
    // Only the plain manifests are objects: the ConfigMap and the chart's (untemplated) CRD.
    let mut unmatched = at("unmatched-resource");
    unmatched.sort();
    assert_eq!(unmatched, ["base/cm.yaml", "charts/web/crds/widget.yaml"]);
    assert_eq!(at("not-kubernetes-object"), ["base/kustomization.yaml", "charts/web/Chart.yaml"]);
    let messages: Vec<&str> =
        diags.iter().filter(|d| d["rule"] == "not-kubernetes-object").map(|d| d["message"].as_str().unwrap()).collect();
    assert!(messages[0].contains("2 file(s) of kustomize configuration"), "{messages:?}");
    assert!(messages[0].contains("overlays/prod/kustomization.yaml"), "{messages:?}");
    assert!(messages[1].starts_with("charts/web is a Helm chart: its 3 file(s)"), "{messages:?}");
    // `ls` sees the same.
    let r = run_in(tmp.path(), &["ls", "--isolated", "--format", "json"], None);
    let v = json(&r);
    let files: Vec<&str> = v["objects"].as_array().unwrap().iter().map(|o| o["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["base/cm.yaml", "charts/web/crds/widget.yaml"]);
    // A chart template named alone (as pre-commit names changed files) is known by its chart.
    let r = run_in(tmp.path(), &["check", "--isolated", "--format", "json", "charts/web/templates/deploy.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let v = json(&r);
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["diagnostics"][0]["rule"], "not-kubernetes-object");
}

#[test]
fn kustomize_renames_are_mapped_back_to_the_source_file() {
    // `namePrefix: prod-`, `nameSuffix: -v2` and `namespace: prod` in the overlay: the rendered
    // objects' names differ from the base's, their origin annotations name the base files.
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            (
                "base/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: b\n",
            ),
            ("base/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"),
        ],
    );
    let rendered = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prod-cfg-v2\n  namespace: prod\n  annotations:\n    config.kubernetes.io/origin: |\n      path: base/cm.yaml\ndata:\n  a: b\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: prod-web-v2\n  namespace: prod\n  annotations:\n    config.kubernetes.io/origin: |\n      path: base/svc.yaml\n";
    let r = run_in(tmp.path(), &["ls", "-", "--format", "json"], Some(rendered));
    let v = json(&r);
    let origins: Vec<(String, u64)> = v["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["origin"]["file"].as_str().unwrap_or("").to_string(), o["origin"]["line"].as_u64().unwrap_or(0)))
        .collect();
    assert_eq!(origins, [("base/cm.yaml".to_string(), 6), ("base/svc.yaml".to_string(), 1)], "{v}");
}

/// A repository with a reference, a Helm chart and kustomize files, committed on `main`.
fn committed_gitops() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    gitops(tmp.path());
    super::copy_dir(&root().join("fixtures/reference"), &tmp.path().join("reference"));
    write(tmp.path(), &[(".driftlint.yaml", "reference: reference\n")]);
    super::git(tmp.path(), &["init", "-q"]);
    super::git(tmp.path(), &["add", "-A"]);
    super::git(tmp.path(), &["commit", "-q", "-m", "base"]);
    tmp
}

#[test]
fn an_unchanged_chart_or_kustomization_weakens_nothing_on_a_pull_request() {
    let tmp = committed_gitops();
    let dir = tmp.path();
    super::git(dir, &["checkout", "-q", "-b", "change"]);
    // A change that touches none of the layout's files.
    write(dir, &[("docs/notes.md", "nothing to see\n")]);
    super::git(dir, &["add", "-A"]);
    super::git(dir, &["commit", "-q", "-m", "docs"]);
    for extra in [&[][..], &["--isolated"][..]] {
        for scope in [&["--base", "main"][..], &["--staged"][..]] {
            let mut args = vec!["check", "--format", "json", "--fail-level", "note"];
            args.extend_from_slice(scope);
            args.extend_from_slice(extra);
            if extra.contains(&"--isolated") {
                args.extend_from_slice(&["-r", "reference"]);
            }
            let r = run_in(dir, &args, None);
            let v = json(&r);
            let weakened: Vec<&serde_json::Value> =
                v["diagnostics"].as_array().unwrap().iter().filter(|d| d["rule"] == "config-weakened").collect();
            assert!(weakened.is_empty(), "{args:?}: {weakened:?}");
        }
    }
    // Adding a `Chart.yaml` over plain manifests does stop checking them: still reported.
    write(dir, &[("base/Chart.yaml", "apiVersion: v2\nname: base\nversion: 0.1.0\n")]);
    super::git(dir, &["add", "-A"]);
    super::git(dir, &["commit", "-q", "-m", "chart over the base"]);
    let r = run_in(dir, &["check", "--format", "json", "--base", "main"], None);
    let v = json(&r);
    let weakened: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "config-weakened")
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert_eq!(weakened, ["base/cm.yaml"], "{v}");
}

#[test]
fn layout_notes_are_for_the_files_named() {
    let tmp = committed_gitops();
    let dir = tmp.path();
    let notes = |path: &str| -> Vec<String> {
        let r = run_in(dir, &["check", "--format", "json", path], None);
        json(&r)["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"] == "not-kubernetes-object")
            .map(|d| d["file"].as_str().unwrap().to_string())
            .collect()
    };
    // A commit that touches a plain manifest hears nothing of the chart or the kustomizations.
    assert_eq!(notes("base/cm.yaml"), Vec::<String>::new());
    // One that touches the chart, or a kustomization, hears of it.
    assert_eq!(notes("charts/web/templates/deploy.yaml"), ["charts/web/Chart.yaml"]);
    assert_eq!(notes("overlays/prod/kustomization.yaml"), ["base/kustomization.yaml"]);
    // The whole repository: every note.
    let r = run_in(dir, &["check", "--format", "json"], None);
    let all =
        json(&r)["diagnostics"].as_array().unwrap().iter().filter(|d| d["rule"] == "not-kubernetes-object").count();
    assert_eq!(all, 2);
}
