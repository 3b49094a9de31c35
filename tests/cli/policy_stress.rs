//! The policy pass never hangs: `check --policy` over hundreds of multi-document files, with
//! 1, 2, 4 and 8 jobs, many times, each run under a watchdog that kills it and fails the test.
//!
//! The hang this guards against: the batches were staged by tasks on rayon's pool that waited
//! (on a condition variable) for the reporting thread to move the window, while the reporting
//! thread ran the policy pass, which asked the same pool for work. Once more batches existed
//! than the window held, every pool thread waited for the reporter and the reporter for the
//! pool. The same shape would hang any pass that the reporter runs in parallel, so the schema
//! and reference passes run here too.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one run may take before it counts as hung (a run takes well under a second; the
/// margin is for a loaded machine and a debug build).
const WATCHDOG: Duration = Duration::from_secs(60);

/// Writes `files` two-document files (a Deployment with a `latest` image every third file, and
/// a ConfigMap) of a few hundred bytes each, so that the run splits into many read batches.
fn layout(dir: &Path, files: usize) {
    for f in 0..files {
        let sub = dir.join(format!("manifests/team-{}", f % 7));
        std::fs::create_dir_all(&sub).unwrap();
        let tag = if f % 3 == 0 { "latest" } else { "1.4.2" };
        let text = format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{f}\n  namespace: team-{ns}\n  labels:\n    app: web-{f}\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web-{f}\n  template:\n    metadata:\n      labels:\n        app: web-{f}\n    spec:\n      containers:\n        - name: web\n          image: registry.example.com/web:{tag}\n          ports:\n            - containerPort: 8080\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{f}\n  namespace: team-{ns}\ndata:\n  LOG_LEVEL: info\n  FEATURE_FLAGS: \"a,b,c,d,e,f,g,h\"\n  PADDING: \"{pad}\"\n",
            ns = f % 7,
            pad = "x".repeat(200 + f % 50),
        );
        std::fs::write(sub.join(format!("app-{f}.yaml")), text).unwrap();
    }
    std::fs::create_dir_all(dir.join("policy")).unwrap();
    std::fs::write(
        dir.join("policy/images.rego"),
        "package main\n\ndeny contains msg if {\n  input.kind == \"Deployment\"\n  some c in input.spec.template.spec.containers\n  endswith(c.image, \":latest\")\n  msg := sprintf(\"container %s uses a latest image\", [c.name])\n}\n\nwarn contains msg if {\n  input.kind == \"ConfigMap\"\n  not input.data.OWNER\n  msg := \"ConfigMap without OWNER\"\n}\n",
    )
    .unwrap();
}

/// Runs `driftlint ARGS` in `dir`; kills it and panics when it runs past [`WATCHDOG`].
fn run_watched(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_driftlint"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the driftlint binary runs");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).unwrap();
        out
    });
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return (status.code().unwrap_or(-1), reader.join().unwrap());
        }
        if start.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`driftlint {}` still ran after {WATCHDOG:?}: hung", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn check_with_policies_finishes_for_every_job_count_every_time() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    layout(dir, 320);
    let mut first: Option<String> = None;
    for jobs in ["1", "2", "4", "8"] {
        for _ in 0..20 {
            let (code, out) = run_watched(
                dir,
                &["check", "--isolated", "--format", "json", "--jobs", jobs, "--policy", "policy", "manifests"],
            );
            assert_eq!(code, 1, "jobs {jobs}: the latest images are findings");
            // Same bytes whatever the job count and the run.
            match &first {
                None => {
                    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
                    let denies = v["diagnostics"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|d| d["message"].as_str().unwrap().contains("latest image"))
                        .count();
                    assert_eq!(denies, 107, "one deny per third Deployment");
                    first = Some(out);
                }
                Some(expected) => assert!(*expected == out, "jobs {jobs}: output differs from the first run"),
            }
        }
    }
}

#[test]
fn check_with_every_pass_finishes_with_many_batches() {
    // The policy pass with the schema pass (a CRD among the inputs) and the combined input
    // (one evaluation over every document): each reporter-side pass with several jobs.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    layout(dir, 400);
    for jobs in ["2", "8"] {
        for extra in [&[][..], &["--combine"][..], &["--schema-mode", "strict"][..]] {
            let mut args = vec!["check", "--isolated", "--format", "json", "--jobs", jobs, "--policy", "policy"];
            args.extend_from_slice(extra);
            args.push("manifests");
            for _ in 0..3 {
                let (code, _) = run_watched(dir, &args);
                assert!(code == 0 || code == 1, "jobs {jobs} {extra:?}: exit {code}");
            }
        }
    }
}

/// Deep but legal policies: a chain of 3,000 rules each reading the next, and a body of 3,000
/// generators. Regorus evaluates both one stack frame deeper per step: on a default 2 MiB
/// thread they overflowed the stack (the process died with SIGSEGV, no finding, no output),
/// and the recursion check took minutes (cubic in the chain). Every thread that evaluates has
/// a large stack now, and the chain is checked in linear time.
#[test]
fn deep_rule_chains_and_long_generator_bodies_evaluate_on_every_job_count() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("manifests")).unwrap();
    std::fs::write(dir.join("manifests/cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n").unwrap();
    let chain: String = (0..3000).map(|i| format!("y{i} := y{}\n", i + 1)).collect();
    let generators: String = (0..3000).map(|i| format!("  some a{i} in [1]\n")).collect();
    let policies = [
        format!("package main\n\ndeny contains \"chain\" if y0\n{chain}y3000 := true\n"),
        format!("package main\n\ndeny contains \"generators\" if {{\n{generators}}}\n"),
    ];
    for text in policies {
        std::fs::create_dir_all(dir.join("policy")).unwrap();
        std::fs::write(dir.join("policy/deep.rego"), &text).unwrap();
        for jobs in ["1", "2"] {
            let (code, out) = run_watched(
                dir,
                &["check", "--isolated", "--format", "json", "--jobs", jobs, "--policy", "policy", "manifests"],
            );
            assert_eq!(code, 1, "jobs {jobs}: {out}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            let rules: Vec<&str> =
                v["diagnostics"].as_array().unwrap().iter().map(|d| d["rule"].as_str().unwrap()).collect();
            assert_eq!(rules, ["policy-deny"], "jobs {jobs}: {out}");
        }
    }
    // Past the bound: a policy error naming the rule, not a crash.
    let chain: String = (0..4500).map(|i| format!("y{i} := y{}\n", i + 1)).collect();
    std::fs::write(
        dir.join("policy/deep.rego"),
        format!("package main\n\ndeny contains \"chain\" if y0\n{chain}y4500 := true\n"),
    )
    .unwrap();
    let (code, out) = run_watched(dir, &["check", "--isolated", "--format", "json", "--policy", "policy", "manifests"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("policy-error") && out.contains("statements deep"), "{out}");
}
