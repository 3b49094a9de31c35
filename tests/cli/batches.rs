//! `check` reads its inputs a batch at a time (a few hundred files each, so memory holds the
//! texts and the findings, not every object's tree). What crosses files must still hold when
//! the files are in different batches: RBAC subjects that match a template by reference only
//! (§4.5), CRDs that give later or earlier files their schemas, suppression annotations, and
//! one JUnit test case per object of the whole run.

use std::fmt::Write as _;
use std::path::Path;

use super::run_in;

/// Files of filler ConfigMaps: far more than one batch holds.
const FILLER: usize = 1_200;

const METADATA: &str = "apiVersion: v2
parts:
  - name: base
    components:
      - name: settings
        anyOf:
          - path: configmap.yaml
      - name: identity
        allOf:
          - path: serviceaccount.yaml
";
const CONFIGMAP: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .metadata.name }}
  namespace: {{ .metadata.namespace }}
data:
  level: info
";
const SERVICEACCOUNT: &str = "apiVersion: v1
kind: ServiceAccount
metadata:
  name: builder
  namespace: ci
";
const ROLEBINDING: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: builder
  namespace: ci
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: builder
subjects:
  - kind: ServiceAccount
    name: builder
    namespace: ci
";

/// A reference in `dir/reference` and a repository in `dir/repo`: a Widget with a wrong type
/// in the first file, two drifted ConfigMaps at the start (one suppressed by its annotation),
/// filler, and in the last files the CRD for Widgets and (`with_binding`) a RoleBinding whose
/// subject is the reference's ServiceAccount.
fn layout(dir: &Path, with_binding: bool) {
    let reference = dir.join("reference");
    std::fs::create_dir_all(&reference).unwrap();
    std::fs::write(reference.join("metadata.yaml"), METADATA).unwrap();
    std::fs::write(reference.join("configmap.yaml"), CONFIGMAP).unwrap();
    std::fs::write(reference.join("serviceaccount.yaml"), SERVICEACCOUNT).unwrap();
    let repo = dir.join("repo");
    for sub in ["a", "m", "zz"] {
        std::fs::create_dir_all(repo.join(sub)).unwrap();
    }
    std::fs::write(
        repo.join("a/0-widget.yaml"),
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: apps\nspec:\n  size: big\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("a/1-drifted.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loud\n  namespace: apps\ndata:\n  level: debug\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("a/2-suppressed.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: quiet\n  namespace: apps\n  annotations:\n    driftlint.io/ignore: \"value-drift: debugging this one\"\ndata:\n  level: debug\n",
    )
    .unwrap();
    for i in 0..FILLER {
        let mut text = String::new();
        let _ = write!(
            text,
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: apps\ndata:\n  level: info\n"
        );
        std::fs::write(repo.join(format!("m/cm-{i:04}.yaml")), text).unwrap();
    }
    std::fs::write(repo.join("zz/crd.yaml"), driftlint_test_support::fixtures::widget_crd(SIZE)).unwrap();
    if with_binding {
        std::fs::write(repo.join("zz/rolebinding.yaml"), ROLEBINDING).unwrap();
    }
}

fn check(dir: &Path, format: &str) -> super::Run {
    run_in(dir, &["check", "repo", "--isolated", "-r", "reference", "--format", format], None)
}

#[test]
fn what_crosses_files_holds_across_batches() {
    let dir = tempfile::tempdir().unwrap();
    layout(dir.path(), true);
    let run = check(dir.path(), "json");
    assert_eq!(run.code, 1, "drift fails the check: {}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = report["diagnostics"].as_array().expect("diagnostics");
    let of = |rule: &str| -> Vec<&serde_json::Value> { findings.iter().filter(|d| d["rule"] == rule).collect() };

    // The CRD is in the last batch; the Widget in the first is checked against it.
    let types = of("schema-type-mismatch");
    assert_eq!(types.len(), 1, "{findings:#?}");
    assert!(types[0]["file"].as_str().unwrap().ends_with("a/0-widget.yaml"), "{:#?}", types[0]);
    // The RoleBinding, in the last batch, matches the ServiceAccount template by reference.
    assert!(of("missing-resource").is_empty(), "{findings:#?}");
    // The drift in the first batch, one of the two suppressed by its annotation.
    let drift = of("value-drift");
    assert_eq!(drift.len(), 2, "{drift:#?}");
    let suppressed: Vec<_> = drift.iter().filter(|d| !d["suppressed"].is_null()).collect();
    assert_eq!(suppressed.len(), 1, "{drift:#?}");
    assert!(suppressed[0]["object"].as_str().unwrap().ends_with("_quiet"), "{:#?}", suppressed[0]);
    // Every object of every batch is a JUnit test case: 3 + filler + CRD + RoleBinding.
    let junit = check(dir.path(), "junit");
    let cases = junit.stdout.matches("<testcase ").count();
    assert!(cases >= FILLER + 5, "{cases} test cases:\n{}", &junit.stdout[..junit.stdout.len().min(2000)]);
}

#[test]
fn without_the_binding_the_service_account_is_missing() {
    // The control for the test above: the reference-only match is what hides the finding.
    let dir = tempfile::tempdir().unwrap();
    layout(dir.path(), false);
    let run = check(dir.path(), "json");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let missing: Vec<_> =
        report["diagnostics"].as_array().unwrap().iter().filter(|d| d["rule"] == "missing-resource").collect();
    assert_eq!(missing.len(), 1, "{missing:#?}");
    assert!(missing[0]["message"].as_str().unwrap().contains("serviceaccount.yaml"), "{missing:#?}");
}

/// A reference whose template reads another object with `lookupCR`: the objects a lookup can
/// return (the ConfigMaps) are read before the batches, and the objects they connect are
/// compared in input order while the batches stay apart.
fn lookup_layout(dir: &Path, level: &str) {
    let reference = dir.join("reference");
    std::fs::create_dir_all(&reference).unwrap();
    std::fs::write(
        reference.join("metadata.yaml"),
        "apiVersion: v2\nparts:\n  - name: base\n    components:\n      - name: settings\n        anyOf:\n          - path: configmap.yaml\n",
    )
    .unwrap();
    std::fs::write(
        reference.join("configmap.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .metadata.name }}\n  namespace: {{ .metadata.namespace }}\ndata:\n  level: {{ (lookupCR \"v1\" \"ConfigMap\" \"apps\" \"zz-settings\").data.level }}\n",
    )
    .unwrap();
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("m")).unwrap();
    for i in 0..FILLER / 4 {
        let text = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: apps\ndata:\n  level: info\n"
        );
        std::fs::write(repo.join(format!("m/cm-{i:04}.yaml")), text).unwrap();
    }
    std::fs::create_dir_all(repo.join("zz")).unwrap();
    let settings = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: zz-settings\n  namespace: apps\ndata:\n  level: {level}\n"
    );
    std::fs::write(repo.join("zz/settings.yaml"), settings).unwrap();
}

#[test]
fn lookups_see_objects_of_every_file() {
    // The looked-up object is in the last file: the first files agree with it...
    let dir = tempfile::tempdir().unwrap();
    lookup_layout(dir.path(), "info");
    let run = check(dir.path(), "json");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let drift = report["diagnostics"].as_array().unwrap().iter().filter(|d| d["rule"] == "value-drift").count();
    assert_eq!((run.code, drift), (0, 0), "{}", &run.stdout[..run.stdout.len().min(3000)]);
    // ...and disagree when it says otherwise (every file but its own).
    let dir = tempfile::tempdir().unwrap();
    lookup_layout(dir.path(), "debug");
    let run = check(dir.path(), "json");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let drift = report["diagnostics"].as_array().unwrap().iter().filter(|d| d["rule"] == "value-drift").count();
    assert_eq!((run.code, drift), (1, FILLER / 4), "{}", &run.stdout[..run.stdout.len().min(3000)]);
}

#[test]
fn lookups_answer_alike_with_one_job_and_many() {
    // Batches compared apart on several workers, the connected objects on the reporting
    // thread: the report is the one of a single worker, for check and compare alike.
    let dir = tempfile::tempdir().unwrap();
    lookup_layout(dir.path(), "debug");
    let check_args = ["check", "repo", "--isolated", "-r", "reference", "--format", "json"];
    let compare_args = ["compare", "-r", "reference/metadata.yaml", "-f", "repo", "-R", "-o", "json"];
    for args in [&check_args[..], &compare_args[..]] {
        let many = run_in(dir.path(), args, None);
        let one = run_in(dir.path(), &[args, &["--jobs", "1"][..]].concat(), None);
        assert_eq!((many.code, &many.stderr), (one.code, &one.stderr), "{args:?}");
        // kube-compare's diff headers name fresh temp dirs and times at every run.
        let stable = |out: &str| -> String {
            out.split("\\n")
                .filter(|l| !l.contains("/tmp/MERGED-") && !l.contains("/tmp/LIVE-") && !l.contains("diff -u"))
                .collect::<Vec<_>>()
                .join("\\n")
        };
        assert!(stable(&many.stdout) == stable(&one.stdout), "{args:?}: the reports differ");
        assert_eq!(many.code, 1, "{args:?}: the drift is found: {}", &many.stdout[..many.stdout.len().min(2000)]);
    }
}

/// The Widget CRD's `spec` properties: `size`, an integer.
const SIZE: &str = "                size:\n                  type: integer\n";
