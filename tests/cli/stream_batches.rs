//! One large stream on standard input (or one large file) is checked a run of documents at a
//! time (`src/check/pieces.rs`); what is reported must be byte for byte what checking it as one
//! batch reports, in every format. `DRIFTLINT_PIECE_BYTES` (a hidden knob) sets the size of a
//! run here: `0` never cuts a text (one batch, as before), a small number cuts this stream into
//! many runs.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

const METADATA: &str = "apiVersion: v2
parts:
  - name: base
    components:
      - name: settings
        anyOf:
          - path: configmap.yaml
";
const CONFIGMAP: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .metadata.name }}
  namespace: {{ .metadata.namespace }}
data:
  level: info
";
const POLICY: &str = "package main

import rego.v1

deny contains msg if {
\tinput.kind == \"ConfigMap\"
\tinput.data.level == \"trace\"
\tmsg := sprintf(\"%s traces\", [input.metadata.name])
}
";

/// A reference, a policy, the files helm's and kustomize's comments name, and a rendered
/// stream: drifted ConfigMaps (one suppressed by its annotation, one by an annotation without
/// a reason), ones a policy denies, helm `# Source:` comments and kustomize origins,
/// Widgets against a CRD in the stream, a duplicate key, a document that is no object, and
/// empty documents.
fn layout(dir: &Path) -> String {
    std::fs::create_dir_all(dir.join("reference")).unwrap();
    std::fs::write(dir.join("reference/metadata.yaml"), METADATA).unwrap();
    std::fs::write(dir.join("reference/configmap.yaml"), CONFIGMAP).unwrap();
    std::fs::create_dir_all(dir.join("policy")).unwrap();
    std::fs::write(dir.join("policy/trace.rego"), POLICY).unwrap();
    std::fs::create_dir_all(dir.join("chart/templates")).unwrap();
    std::fs::write(
        dir.join("chart/templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\ndata:\n  level: {{ .Values.level }}\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("base")).unwrap();
    let mut base = String::new();
    let mut stream = String::from("# rendered\n");
    for i in 0..60 {
        let level = match i % 7 {
            0 => "debug",
            3 => "trace",
            _ => "info",
        };
        let mut annotations = String::new();
        if i == 14 {
            annotations.push_str("    driftlint.io/ignore: \"value-drift: known\"\n");
        }
        if i == 21 {
            annotations.push_str("    driftlint.io/ignore: \"value-drift\"\n");
        }
        match i % 3 {
            0 => {
                let _ = write!(stream, "---\n# Source: chart/templates/cm.yaml\n");
            }
            1 => {
                stream.push_str("---\n");
                annotations.push_str("    config.kubernetes.io/origin: |\n      path: base/cms.yaml\n");
                let _ = write!(
                    base,
                    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  level: x\n"
                );
            }
            _ => stream.push_str("---\n"),
        }
        let annotations = if annotations.is_empty() { String::new() } else { format!("  annotations:\n{annotations}") };
        let _ = write!(
            stream,
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: apps\n{annotations}data:\n  level: {level}\n"
        );
        if i == 10 {
            stream.push_str("---\n---\n# only a comment\n");
        }
        if i == 30 {
            let _ = write!(stream, "---\n{}", driftlint_test_support::fixtures::widget_crd(SIZE));
            stream.push_str("---\nreplicaCount: 3\n");
        }
        if i % 11 == 5 {
            let _ = write!(
                stream,
                "---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-{i}\n  namespace: apps\nspec:\n  size: big\n  size: huge\n"
            );
        }
    }
    std::fs::write(dir.join("base/cms.yaml"), base).unwrap();
    stream
}

/// `driftlint ARGS` in `dir` with `stdin`, `DRIFTLINT_PIECE_BYTES` set to `pieces`: exit code
/// and standard output.
fn check(dir: &Path, pieces: usize, args: &[&str], stdin: &str) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_driftlint"))
        .arg("check")
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .env("DRIFTLINT_PIECE_BYTES", pieces.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.stderr.is_empty() || out.status.code() == Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    (out.status.code(), String::from_utf8(out.stdout).unwrap())
}

/// Every format, for the stream on stdin and as a file, cut (in runs of a few documents, with
/// one job and with the default) and whole: the same bytes.
fn same_cut_and_whole(dir: &Path, stream: &str) {
    same_cut_and_whole_in(dir, stream, &["json", "sarif", "human", "concise", "junit", "markdown", "github"]);
}

fn same_cut_and_whole_in(dir: &Path, stream: &str, formats: &[&str]) {
    std::fs::write(dir.join("rendered.yaml"), stream).unwrap();
    // With the policy pass the input's documents that are no objects are policy inputs (and
    // the text is verified before it is cut); without a reference they are notes that name
    // their document's number.
    let formats = formats.iter().copied();
    let passes: [&[&str]; 3] = [&["-r", "reference", "--policy", "policy"], &["-r", "reference"], &[]];
    for (format, passes) in formats.into_iter().flat_map(|f| passes.map(|p| (f, p))) {
        for input in ["-", "rendered.yaml"] {
            let args: Vec<&str> =
                ["--isolated", "--format", format, input].into_iter().chain(passes.iter().copied()).collect();
            let whole = check(dir, 0, &args, stream);
            assert_eq!(whole.0, Some(1), "{format}: {}", whole.1);
            for run in [150, 400] {
                let cut = check(dir, run, &args, stream);
                assert_eq!(cut, whole, "{format} of {input}, cut in runs of {run} bytes");
                let one_job: Vec<&str> = ["--jobs", "1"].into_iter().chain(args.iter().copied()).collect();
                assert_eq!(check(dir, run, &one_job, stream), whole, "{format} of {input}, one job, runs of {run}");
            }
        }
    }
}

#[test]
fn a_stream_checked_in_runs_reports_what_one_batch_reports() {
    let dir = tempfile::tempdir().unwrap();
    let stream = layout(dir.path());
    same_cut_and_whole(dir.path(), &stream);
    // The stream has what the comparison is about: every pass found something.
    let (_, json) = check(
        dir.path(),
        150,
        &["--isolated", "-r", "reference", "--policy", "policy", "--format", "json", "-"],
        &stream,
    );
    for rule in [
        "value-drift",
        "schema-type-mismatch",
        "policy-deny",
        "duplicate-key",
        "invalid-suppression",
        "unmatched-resource",
    ] {
        assert!(json.contains(&format!("\"{rule}\"")), "no {rule}:\n{json}");
    }
    assert!(json.contains("base/cms.yaml") && json.contains("chart/templates/cm.yaml"), "{json}");
    assert!(json.contains("\"suppressed\": \"known\""), "the annotation suppressed a finding:\n{json}");
    let (_, json) = check(dir.path(), 150, &["--isolated", "--format", "json", "-"], &stream);
    assert!(json.contains("document 38 is not a Kubernetes object"), "{json}");
}

#[test]
fn a_stream_with_a_yaml_error_is_read_in_one_go() {
    let dir = tempfile::tempdir().unwrap();
    let stream = layout(dir.path());
    // A broken document in the middle: a single load stops there, and so does the cut run.
    let at = stream.find("name: cm-33\n").unwrap();
    let broken = format!("{}  labels: {{a: [\n{}", &stream[..at], &stream[at..]);
    same_cut_and_whole(dir.path(), &broken);
    let (_, json) = check(dir.path(), 150, &["--isolated", "-r", "reference", "--format", "json", "-"], &broken);
    assert!(json.contains("\"yaml-syntax-error\""), "{json}");
    assert!(!json.contains("cm-40"), "documents after the error are not read:\n{json}");
}

/// A stream is cut before it is known how its runs load (`pieces::cut_unverified`): each run's
/// place is predicted from its text and checked once the run is loaded. Where a run loads
/// otherwise than predicted, the checks are done again with the text verified before it is
/// cut, so that what is reported is still what one load of the whole stream gives.
#[test]
fn a_stream_whose_runs_load_otherwise_than_predicted_reports_what_one_batch_reports() {
    let dir = tempfile::tempdir().unwrap();
    let stream = layout(dir.path());
    let before =
        |name: &str| stream.find(&format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n")).unwrap();
    // An end marker and a bare document after it: a piece that holds two documents, so the
    // documents after it are numbered one further than the prediction.
    let at = before("cm-21");
    let two = format!("{}\n...\nbare: document\n---\n{}", &stream[..at].trim_end_matches("---\n"), &stream[at..]);
    // helm's `# Source:` at the end of the document before a `---` (which is not how helm
    // writes it): it is in the text before the next document, outside that document's run.
    let at = before("cm-35");
    let source_before =
        format!("{}# Source: chart/templates/cm.yaml\n---\n{}", &stream[..at].trim_end_matches("---\n"), &stream[at..]);
    // A scalar at a document's root, which one load reads on past the next `---` line.
    let at = before("cm-44");
    let open = format!("{}---\n >\nfolded\n---\n{}", &stream[..at].trim_end_matches("---\n"), &stream[at..]);
    for (what, changed) in
        [("two documents in a piece", two), ("# Source: before ---", source_before), ("open scalar", open)]
    {
        assert_ne!(changed, stream, "{what}: the stream is changed");
        same_cut_and_whole_in(dir.path(), &changed, &["json", "human"]);
    }
}

/// With `lookupCRs` in the reference, the objects it returns are read before the batches
/// (`pieces::collect_holding`), from the runs that may hold them or other cross-object keys
/// (`subjects` here): each run's objects once, never the rest of the stream with it, so
/// every lookup sees each object once, as one load of the stream gives them.
#[test]
fn lookups_see_each_object_of_a_cut_stream_once() {
    let dir = tempfile::tempdir().unwrap();
    super::write_files(
        &dir.path().join("reference"),
        &[
            (
                "metadata.yaml",
                "apiVersion: v2\nparts:\n  - name: base\n    components:\n      - name: settings\n        anyOf:\n          - path: configmap.yaml\n          - path: binding.yaml\n          - path: quota.yaml\n",
            ),
            // Every ConfigMap must name how many quotas there are: 3 in the stream.
            (
                "configmap.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .metadata.name }}\ndata:\n  quotas: \"{{ len (lookupCRs \"v1\" \"ResourceQuota\" \"*\" \"*\") }}\"\n",
            ),
            (
                "binding.yaml",
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: {{ .metadata.name }}\n  namespace: {{ .metadata.namespace }}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: reader\nsubjects:\n  - kind: ServiceAccount\n    name: reader\n",
            ),
            (
                "quota.yaml",
                "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: {{ .metadata.name }}\n  namespace: {{ .metadata.namespace }}\n",
            ),
        ],
    );
    let mut stream = String::new();
    for i in 0..40 {
        let quotas = if i == 35 { 4 } else { 3 };
        let _ = write!(
            stream,
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb-{i}\n  namespace: apps\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: reader\nsubjects:\n  - kind: ServiceAccount\n    name: reader\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  quotas: \"{quotas}\"\n"
        );
        if i % 13 == 7 {
            let _ = write!(
                stream,
                "---\napiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: q-{i}\n  namespace: apps\n"
            );
        }
    }
    let args = ["--isolated", "-r", "reference", "--format", "json", "-"];
    let whole = check(dir.path(), 0, &args, &stream);
    // Only cm-35 says otherwise: the three quotas were each seen once.
    assert_eq!(whole.0, Some(1), "{}", whole.1);
    assert_eq!(whole.1.matches("\"rule\": \"value-drift\"").count(), 1, "{}", whole.1);
    assert!(whole.1.contains("cm-35"), "{}", whole.1);
    for run in [200, 700] {
        assert_eq!(check(dir.path(), run, &args, &stream), whole, "runs of {run} bytes");
        let one_job = ["--jobs", "1"].into_iter().chain(args).collect::<Vec<_>>();
        assert_eq!(check(dir.path(), run, &one_job, &stream), whole, "one job, runs of {run} bytes");
    }
}

/// The Widget CRD's `spec` properties: `size`, an integer.
const SIZE: &str = "                size:\n                  type: integer\n";
