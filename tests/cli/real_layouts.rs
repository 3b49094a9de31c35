//! What real repositories hold beside manifests, and where the API server is stricter than a
//! quiet linter: template text, other tools' files, data files, custom resources of
//! `*.k8s.io` groups without their CRD, removed kinds, group-less apiVersions, runs that find
//! no object. Each case is a minimal layout written here.

use super::write_files as write;
use super::{json, run_in};

use super::findings as check;

fn rules(found: &[(String, String, String, String)]) -> Vec<(&str, &str, &str)> {
    found.iter().map(|(r, s, f, _)| (r.as_str(), s.as_str(), f.as_str())).collect()
}

#[test]
fn template_text_is_one_note_per_file_not_three_errors() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            (
                "cells/rc.yaml",
                "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: app-{{cell}}\nspec:\n  selector:\n    app: {{cell}}\n  template:\n    metadata:\n      labels:\n        app: {{cell}}\n    spec:\n      containers:\n        - name: app\n          image: nginx\n",
            ),
            (
                "cells/svc.yaml",
                "apiVersion: v1\nkind: Service\nmetadata:\n  name: etcd-{{cell}}\nspec:\n  ports:\n    - port: 80\n",
            ),
            (
                "rules.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: alerts\ndata:\n  summary: Instance {{ $labels.instance }} down\n  tmpl: |\n    {{ .Name }}\n",
            ),
        ],
    );
    let found = check(tmp.path());
    assert_eq!(
        rules(&found),
        [("not-kubernetes-object", "note", "cells/rc.yaml"), ("not-kubernetes-object", "note", "cells/svc.yaml")],
        "{found:?}"
    );
    assert!(found.iter().all(|f| f.3.contains("unrendered template text")), "{found:?}");
}

#[test]
fn other_tools_files_are_notes_that_read_true() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("grafana/datasources.yaml", "apiVersion: 1\ndatasources:\n  - name: prom\n    type: prometheus\n"),
            ("kind/kind.yaml", "apiVersion: kind.x-k8s.io/v1alpha4\nkind: Cluster\nnodes:\n  - role: control-plane\n"),
            (
                "overlay/labels.yaml",
                "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: l\nlabels:\n  a: b\n",
            ),
            (
                "sched/sched.yaml",
                "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: []\n",
            ),
            // A patch is a fragment; a manifest without its type keeps its error.
            ("patches/patch.yaml", "# scrape it\nspec:\n  template:\n    metadata: {}\n"),
            ("broken.yaml", "metadata:\n  name: x\nspec:\n  replicas: 1\n"),
            ("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
        ],
    );
    let found = check(tmp.path());
    let mut got = rules(&found);
    got.sort();
    assert_eq!(
        got,
        [
            ("not-kubernetes-object", "error", "broken.yaml"),
            ("not-kubernetes-object", "note", "grafana/datasources.yaml"),
            ("not-kubernetes-object", "note", "kind/kind.yaml"),
            ("not-kubernetes-object", "note", "overlay/labels.yaml"),
            ("not-kubernetes-object", "note", "patches/patch.yaml"),
            ("not-kubernetes-object", "note", "sched/sched.yaml"),
        ],
        "{found:?}"
    );
    let message = |file: &str| found.iter().find(|f| f.2 == file).unwrap().3.clone();
    assert!(message("grafana/datasources.yaml").contains("`apiVersion: 1`, which is no Kubernetes API version"));
    assert!(message("kind/kind.yaml").contains("kind (Kubernetes in Docker) cluster configuration"));
    assert!(message("overlay/labels.yaml").contains("kustomize built-in transformer"));
    assert!(!message("grafana/datasources.yaml").contains("but no `apiVersion`"));
    assert!(message("patches/patch.yaml").contains("a patch or a fragment"));
    assert!(message("broken.yaml").contains("a manifest without its type"));
}

#[test]
fn data_files_are_summed_up_per_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, String)> =
        (0..7).map(|i| (format!("dashboards/d{i}.yaml"), format!("title: d{i}\npanels: []\n"))).collect();
    for dir in ["a", "b"] {
        files.push((format!("{dir}/kind.yaml"), "apiVersion: kind.x-k8s.io/v1alpha4\nkind: Cluster\n".into()));
    }
    files.push(("lone/values.yaml".into(), "replicas: 2\n---\nother: 1\n".into()));
    files.push(("cm.yaml".into(), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n".into()));
    let files: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    write(tmp.path(), &files);
    let found = check(tmp.path());
    let notes: Vec<&(String, String, String, String)> =
        found.iter().filter(|f| f.0 == "not-kubernetes-object").collect();
    // One note for the directory of seven, one for the tool's type in two directories; the
    // lone file keeps its notes (one per document).
    assert_eq!(notes.len(), 4, "{found:?}");
    assert!(notes[0].3.starts_with("2 files hold `kind.x-k8s.io/v1alpha4 Cluster`, a kind"), "{notes:?}");
    assert!(notes[1].3.starts_with("7 files in dashboards hold no Kubernetes object"), "{notes:?}");
    assert!(notes[1].3.contains("and 2 more"), "{notes:?}");
    assert!(notes[2..].iter().all(|n| n.2 == "lone/values.yaml"), "{notes:?}");
}

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n    - name: v1alpha1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n";

#[test]
fn the_api_servers_verdicts_where_it_is_stricter() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            (
                "route.yaml",
                "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\nspec: {}\n",
            ),
            ("capi.yaml", "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: c\nspec: {}\n"),
            ("metrics.yaml", "apiVersion: metrics.k8s.io/v1beta1\nkind: PodMetrics\nmetadata:\n  name: m\n"),
            (
                "init.yaml",
                "apiVersion: admissionregistration.k8s.io/v1alpha1\nkind: InitializerConfiguration\nmetadata:\n  name: i\n",
            ),
            ("crd.yaml", CRD),
            ("widget.yaml", "apiVersion: v1alpha1\nkind: Widget\nmetadata:\n  name: w\n"),
        ],
    );
    let found = check(tmp.path());
    let mut got = rules(&found);
    got.sort();
    assert_eq!(
        got,
        [
            ("removed-api-version", "error", "init.yaml"),
            ("schema-not-found", "warning", "capi.yaml"),
            ("schema-not-found", "warning", "route.yaml"),
            ("unknown-kind", "error", "widget.yaml"),
        ],
        "{found:?}"
    );
    let message = |file: &str| found.iter().find(|f| f.2 == file).unwrap().3.clone();
    assert!(message("init.yaml").contains("removed in Kubernetes 1.14"), "{found:?}");
    assert!(message("widget.yaml").contains("without a group is the core group's"), "{found:?}");
    let r = run_in(tmp.path(), &["check", "--isolated", "--format", "json", "widget.yaml", "crd.yaml"], None);
    let v = json(&r);
    let help =
        v["diagnostics"].as_array().unwrap().iter().find(|d| d["rule"] == "unknown-kind").unwrap()["help"].to_string();
    assert!(help.contains("example.com/v1alpha1 Widget"), "{help}");
}

#[test]
fn a_run_without_any_object_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("docs/a.yaml", "title: a\n"),
            (".deploy/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
        ],
    );
    let r = run_in(tmp.path(), &["check", "--isolated", "."], None);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("no Kubernetes object found"), "{}", r.stdout);
    assert!(
        r.stdout.contains("1 directory holding Kubernetes manifests not checked: .deploy (hidden)"),
        "{}",
        r.stdout
    );
}

/// A walk names, in one note, the directories it passed over that hold manifests — hidden,
/// hidden by an ignore file, excluded by the configuration — at most eight of them and how
/// many more; directories of other YAML (CI workflows) are not named. A run on named files
/// (their scope is the files) gets no such note.
#[test]
fn skipped_directories_holding_manifests_are_named_in_one_note() {
    let tmp = tempfile::tempdir().unwrap();
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n";
    let mut files = vec![
        ("apps/cm.yaml", cm),
        (".deploy/prod/cm.yaml", cm),
        (".github/workflows/ci.yml", "on: push\njobs: {}\n"),
        ("build/out.yaml", cm),
        ("legacy/old.yaml", cm),
        (".gitignore", "build/\nrendered-*/\n"),
        (".driftlint.yaml", "exclude:\n  - legacy/\n"),
    ];
    let rendered: Vec<String> = (0..7).map(|i| format!("rendered-{i}/all.yaml")).collect();
    files.extend(rendered.iter().map(|p| (p.as_str(), cm)));
    write(tmp.path(), &files);
    let r = run_in(tmp.path(), &["check", "--format", "json", "."], None);
    let v = json(&r);
    let notes: Vec<(String, String, String)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("rule"), s("severity"), s("message"))
        })
        .collect();
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert_eq!((notes[0].0.as_str(), notes[0].1.as_str()), ("io-error", "note"));
    assert_eq!(
        notes[0].2,
        "10 directories holding Kubernetes manifests not checked: .deploy (hidden), build (ignored), legacy (excluded), rendered-0 (ignored), rendered-1 (ignored), rendered-2 (ignored), rendered-3 (ignored), rendered-4 (ignored) and 2 more"
    );
    // Pre-commit's form: the named file is the scope.
    let r = run_in(tmp.path(), &["check", "--format", "json", "apps/cm.yaml"], None);
    assert_eq!(json(&r)["diagnostics"].as_array().unwrap().len(), 0, "{}", r.stdout);
}

/// A walk that finds no manifest file at all says so, as one that finds files without objects
/// does.
#[test]
fn a_run_without_any_manifest_file_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), &[("README.md", "# nothing\n")]);
    let r = run_in(tmp.path(), &["check", "--isolated", "."], None);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("no Kubernetes object found: no manifest file was found to check"), "{}", r.stdout);
    assert!(!r.stdout.contains("no problems found"), "{}", r.stdout);
}
