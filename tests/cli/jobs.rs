//! `--jobs`: a many-file repository gives the same bytes with one thread and with several
//! (files are read, parsed and compared in parallel; results must come out in input order).

use std::fmt::Write as _;
use std::path::Path;

use regex::Regex;

use super::{Run, root, run_in};

/// Writes `files` small manifests in nested directories: Deployments, Services and ConfigMaps
/// of the bench reference (every fifth drifted), unknown Secrets, a few files with two
/// documents, a few with a YAML error and one document that is no object.
fn layout(dir: &Path, files: usize) {
    for f in 0..files {
        let sub = dir.join(format!("c{}/team-{}/d{}", f % 3, f % 5, f / 40));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("m-{f}.yaml")), manifest(f)).unwrap();
    }
}

/// The text of [`layout`]'s file number `f`.
fn manifest(f: usize) -> String {
    let mut text = String::new();
    let drift = f.is_multiple_of(5);
    let ns = format!("team-{}", f % 5);
    match f % 4 {
        0 => {
            let replicas = if drift { 3 } else { 2 };
            let _ = write!(
                text,
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{f}\n  namespace: {ns}\n  labels:\n    app: web-{f}\n    tier: web\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: web-{f}\n  template:\n    metadata:\n      labels:\n        app: web-{f}\n        tier: web\n    spec:\n      containers:\n        - name: web\n          image: registry.example.com/web:1.4\n"
            );
        }
        1 => {
            let port = if drift { 9090 } else { 8080 };
            let _ = write!(
                text,
                "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{f}\n  namespace: {ns}\nspec:\n  type: ClusterIP\n  selector:\n    app: svc-{f}\n  ports:\n    - name: http\n      port: 80\n      protocol: TCP\n      targetPort: {port}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: token-{f}\n  namespace: {ns}\n"
            );
        }
        2 => {
            let level = if drift { "debug" } else { "info" };
            let _ = write!(
                text,
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{f}\n  namespace: {ns}\ndata:\n  log-level: {level}\n  endpoint: https://api-{f}.example.com/api\n  feature-flags: \"a,b,c\"\n"
            );
        }
        _ if f % 40 == 3 => text.push_str("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [broken\n"),
        _ if f % 40 == 7 => text.push_str("just: a mapping\n"),
        _ => {
            let _ = write!(text, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: token-{f}\n  namespace: {ns}\n");
        }
    }
    text
}

/// kube-compare's diff headers carry random temp directories and the time, its JUnit report
/// the time of the run: masked.
fn masked(run: &Run) -> String {
    let temp = Regex::new(r"\S*/(MERGED|LIVE)-\d+").unwrap();
    let time = Regex::new(r#"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [+-]\d{4}|timestamp="[^"]*""#).unwrap();
    let out = temp.replace_all(&run.stdout, "TEMP");
    format!("exit {}\n{}\n--- stderr\n{}", run.code, time.replace_all(&out, "TIME"), run.stderr)
}

#[test]
fn many_files_give_the_same_bytes_with_one_thread_and_with_several() {
    let dir = tempfile::tempdir().unwrap();
    layout(dir.path(), 400);
    let reference = root().join("fixtures/bench-reference");
    let reference = reference.to_str().unwrap();
    let meta = format!("{reference}/metadata.yaml");
    for format in ["json", "human", "sarif", "junit"] {
        let args = ["check", ".", "--isolated", "-r", reference, "--format", format];
        let serial = run_in(dir.path(), &[&args[..], &["--jobs", "1"]].concat(), None);
        assert_eq!(serial.code, 1, "drift and broken files fail the check: {}", serial.stderr);
        if format == "json" {
            // Per-file errors keep their file and line.
            assert!(serial.stdout.contains("m-3.yaml"), "the broken file is named");
            assert!(serial.stdout.contains("m-7.yaml"), "the non-object is named");
        }
        for jobs in ["4", "2"] {
            let parallel = run_in(dir.path(), &[&args[..], &["--jobs", jobs]].concat(), None);
            assert_eq!(masked(&serial), masked(&parallel), "check --format {format}, --jobs 1 vs {jobs}");
        }
        let default = run_in(dir.path(), &args, None);
        assert_eq!(masked(&serial), masked(&default), "check --format {format}, --jobs 1 vs the default");
    }
    // compare refuses the broken files as kube-compare does; without them it compares.
    for f in (3..400).step_by(40).chain((7..400).step_by(40)) {
        let sub = dir.path().join(format!("c{}/team-{}/d{}", f % 3, f % 5, f / 40));
        std::fs::remove_file(sub.join(format!("m-{f}.yaml"))).unwrap();
    }
    // Not `-o yaml`: it folds long lines, and where it folds depends on the random temp names.
    for output in ["json", "junit", ""] {
        let args = ["compare", "-r", &meta, "-f", ".", "-R", "-o", output];
        let serial = run_in(dir.path(), &[&args[..], &["--jobs", "1"]].concat(), None);
        assert_eq!(serial.code, 1, "drift is found: {}", serial.stderr);
        assert!(serial.stdout.contains("svc-5"), "a drifted Service is reported:\n{}", serial.stdout);
        let parallel = run_in(dir.path(), &[&args[..], &["--jobs", "4"]].concat(), None);
        assert_eq!(masked(&serial), masked(&parallel), "compare -o {output:?}, --jobs 1 vs 4");
    }
}

#[test]
fn jobs_must_be_a_positive_number() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["check", ".", "--isolated", "--jobs", "0"][..], &["compare", "-r", "x", "--jobs", "none"]] {
        let r = run_in(dir.path(), args, None);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("--jobs"), "{args:?} names the flag: {}", r.stderr);
    }
}

/// One large multi-document stream (a file, and standard input) is loaded in pieces on the
/// pool when there is more than one thread: every format gives the same bytes as one thread,
/// for a clean stream (the pieces are joined), for one with helm's empty `# Source:`
/// documents, and for one with a syntax error in a later document (loaded whole).
#[test]
fn one_large_stream_gives_the_same_bytes_with_one_thread_and_with_several() {
    let dir = tempfile::tempdir().unwrap();
    let texts: Vec<String> = (0..800).map(manifest).collect();
    let broken = |t: &String| t.contains("[broken");
    let clean: String = texts.iter().filter(|t| !broken(t)).map(|t| format!("---\n{t}")).collect();
    let helm: String = texts
        .iter()
        .filter(|t| !broken(t))
        .map(|t| format!("---\n# Source: chart/templates/x.yaml\n---\n{t}"))
        .collect();
    let with_error: String = texts.iter().map(|t| format!("---\n{t}")).collect();
    assert!(clean.len() > 128 * 1024, "large enough to be loaded in pieces");
    let reference = root().join("fixtures/bench-reference");
    let reference = reference.to_str().unwrap();
    for (name, text) in [("clean", &clean), ("helm", &helm), ("error", &with_error)] {
        std::fs::write(dir.path().join("stream.yaml"), text).unwrap();
        for format in ["json", "human"] {
            let args = ["check", "stream.yaml", "--isolated", "-r", reference, "--format", format];
            let serial = run_in(dir.path(), &[&args[..], &["--jobs", "1"]].concat(), None);
            assert_eq!(serial.code, 1, "{name}: {}", serial.stderr);
            let parallel = run_in(dir.path(), &[&args[..], &["--jobs", "2"]].concat(), None);
            assert_eq!(masked(&serial), masked(&parallel), "{name}: check --format {format}, --jobs 1 vs 2");
            if format == "json" && name == "error" {
                assert!(serial.stdout.contains("yaml-syntax-error"), "{name}: the error is reported");
            }
            // Standard input too (helm's `# Source:` comments name the files there).
            let stdin_args = ["check", "-", "--isolated", "-r", reference, "--format", format];
            let serial = run_in(dir.path(), &[&stdin_args[..], &["--jobs", "1"]].concat(), Some(text));
            let parallel = run_in(dir.path(), &[&stdin_args[..], &["--jobs", "2"]].concat(), Some(text));
            assert_eq!(masked(&serial), masked(&parallel), "{name}: check - --format {format}, --jobs 1 vs 2");
        }
    }
}
