//! `action.yml`: static guards (no expression inside `run:`, every step's `env:` is what its
//! script reads, every input declared and used) and the composite steps run with a fake
//! runner environment (see `runner`) on a repository with drift: annotations, SARIF, job
//! summary, outputs, the upload decision and the job's exit code.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::fixture::{self, SETTINGS, SETTINGS_LINE, commit_all, git, root};
use super::runner::{ActionRun, Runner, action, steps};

/// The script a `run:` step calls: `bash "$GITHUB_ACTION_PATH/action/NAME.sh"`.
fn script_of(step: &Value) -> Option<PathBuf> {
    let run = step.get("run")?.as_str()?;
    let rel = run.trim().strip_prefix("bash \"$GITHUB_ACTION_PATH/")?.strip_suffix('"')?;
    Some(root().join(rel))
}

#[test]
fn no_expression_inside_run() {
    let action = action();
    for step in steps(&action) {
        if let Some(run) = step.get("run") {
            let run = run.as_str().unwrap();
            assert!(!run.contains("${{"), "step `{}` expands an expression in its script: {run}", step["id"]);
            assert!(
                script_of(step).is_some(),
                "step `{}` runs its logic from action/*.sh, not inline: {run}",
                step["id"]
            );
        }
    }
}

#[test]
fn each_step_env_is_what_its_script_reads() {
    let action = action();
    let var = regex::Regex::new(r"\$\{?((?:INPUT|STEP|EVENT)_[A-Z0-9_]+)").unwrap();
    let mut scripts = 0;
    for step in steps(&action) {
        let Some(script) = script_of(step) else { continue };
        scripts += 1;
        let text = std::fs::read_to_string(&script).unwrap_or_else(|e| panic!("{}: {e}", script.display()));
        let read: BTreeSet<String> = var.captures_iter(&text).map(|c| c[1].to_string()).collect();
        let given: BTreeSet<String> =
            step.get("env").and_then(Value::as_object).map(|m| m.keys().cloned().collect()).unwrap_or_default();
        assert_eq!(given, read, "step `{}`: env keys vs variables read by {}", step["id"], script.display());
        for (key, value) in step.get("env").and_then(Value::as_object).into_iter().flatten() {
            let value = value.as_str().unwrap();
            assert!(
                value.starts_with("${{") && value.ends_with("}}") && value.matches("${{").count() == 1,
                "env {key} of step `{}` is one expression: {value}",
                step["id"]
            );
        }
    }
    assert_eq!(scripts, 4, "prepare, install, check, finish");
}

#[test]
fn every_third_party_action_is_pinned_by_commit_with_its_version() {
    // action.yml and the repository's workflows: `uses: OWNER/REPO[/PATH]@<40 hex> # vX.Y.Z`
    // (a tag or branch can be moved to other code; a commit cannot). Local actions (`./`) are
    // the checkout itself.
    let pinned = regex::Regex::new(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$").unwrap();
    let mut files = vec![root().join("action.yml")];
    for entry in std::fs::read_dir(root().join(".github/workflows")).unwrap() {
        files.push(entry.unwrap().path());
    }
    let mut seen = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            let Some(uses) = line.trim_start().trim_start_matches("- ").strip_prefix("uses: ") else { continue };
            if uses.starts_with("./") {
                continue;
            }
            seen += 1;
            assert!(
                pinned.is_match(uses),
                "{}: `{uses}` is not pinned by commit with a version comment",
                file.display()
            );
            // upload-sarif v3 is deprecated (December 2026).
            assert!(!uses.contains("upload-sarif@") || uses.contains("# v4."), "{uses}");
        }
    }
    assert!(seen >= 4, "the checks saw the actions ({seen})");
}

#[test]
fn inputs_are_declared_and_used() {
    let action = action();
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let used: BTreeSet<String> = regex::Regex::new(r"\binputs\.([a-z][a-z0-9-]*)")
        .unwrap()
        .captures_iter(&text)
        .map(|c| c[1].to_string())
        .collect();
    let declared: BTreeSet<String> = action["inputs"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(used, declared);
    for (name, input) in action["inputs"].as_object().unwrap() {
        assert!(input["description"].is_string(), "input {name} has a description");
        assert!(input["default"].is_string(), "input {name} has a default");
    }
    assert_eq!(action["runs"]["using"], "composite");
}

/// A workspace: `main` clean, `feature` (checked out) one commit ahead with drift. Returns
/// (scratch dir guard, workspace, main's commit).
fn pr_workspace() -> (tempfile::TempDir, PathBuf, String) {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    fixture::write_repo(&ws);
    let main = commit_all(&ws, "manifests matching the reference");
    git(&ws, &["checkout", "-q", "-b", "feature"]);
    fixture::drift(&ws);
    commit_all(&ws, "debug logging");
    (tmp, ws, main)
}

/// A runner using the driftlint these tests were built with (no build step).
fn prebuilt(ws: &Path, scratch: &Path) -> Runner {
    let mut runner = Runner::new(ws, scratch);
    runner.input("binary", env!("CARGO_BIN_EXE_driftlint"));
    runner
}

fn assert_drift_reported(run: &ActionRun, runner: &Runner) {
    let check = run.step("check");
    let annotation = format!("::error file={SETTINGS},line={SETTINGS_LINE},");
    assert!(check.stdout.contains(&annotation), "annotation {annotation} in:\n{}\n{}", check.stdout, check.stderr);
    assert!(check.stdout.contains("title=driftlint(value-drift)::`/data/log-level` is `debug`"), "{}", check.stdout);
    // Human output in the log, next to the annotations, printed while the runner ignores
    // workflow commands (`::stop-commands::TOKEN` … `::TOKEN::`, a random token).
    assert!(check.stdout.contains(&format!("--> {SETTINGS}:{SETTINGS_LINE}:")), "{}", check.stdout);
    let token = check
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("::stop-commands::"))
        .unwrap_or_else(|| panic!("no ::stop-commands:: in:\n{}", check.stdout));
    assert!(token.starts_with("driftlint-") && token.len() > 20, "{token}");
    let (stop, resume) = (format!("::stop-commands::{token}"), format!("::{token}::"));
    let (start, end) = (check.stdout.find(&stop).unwrap(), check.stdout.find(&resume).unwrap_or(0));
    let report = check.stdout.find(&format!("--> {SETTINGS}:{SETTINGS_LINE}:")).unwrap();
    assert!(start < report && report < end, "the report is not between the markers:\n{}", check.stdout);
    assert_eq!(check.outputs["exit-code"], "1");
    let sarif_path = runner.temp.join("driftlint.sarif");
    assert_eq!(check.outputs["sarif"], sarif_path.display().to_string());
    let sarif: Value = serde_json::from_str(&std::fs::read_to_string(&sarif_path).unwrap()).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let located: Vec<(String, i64)> = results
        .iter()
        .map(|r| {
            let loc = &r["locations"][0]["physicalLocation"];
            (loc["artifactLocation"]["uri"].as_str().unwrap().to_string(), loc["region"]["startLine"].as_i64().unwrap())
        })
        .collect();
    assert_eq!(located, [(SETTINGS.to_string(), SETTINGS_LINE as i64)], "repository-relative SARIF locations");
    assert!(run.summary.starts_with("## driftlint"), "{}", run.summary);
    assert!(run.summary.contains(&format!("`{SETTINGS}:{SETTINGS_LINE}:")), "{}", run.summary);
    // The job fails with driftlint's code, after the upload step had its turn.
    let finish = run.step("finish");
    assert!(finish.ran);
    assert_eq!(finish.code, 1, "{}{}", finish.stdout, finish.stderr);
    assert_eq!(run.code, 1);
}

#[test]
fn pull_request_from_the_same_repository_uploads_sarif() {
    let (tmp, ws, main) = pr_workspace();
    let mut runner = prebuilt(&ws, tmp.path());
    runner.pull_request(&main, "owner/repo");
    let run = runner.run();
    assert!(!run.step("cache").ran, "no build, no cache");
    let check = run.step("check");
    assert!(check.stdout.contains(&format!(" --base {main}")), "the PR base is passed: {}", check.stdout);
    assert_drift_reported(&run, &runner);
    assert_eq!(check.outputs["upload"], "true");
    let upload = run.step("upload");
    assert!(upload.ran);
    assert!(
        upload.uses.as_deref().is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@")),
        "{:?}",
        upload.uses
    );
    assert_eq!(upload.with["sarif_file"], runner.temp.join("driftlint.sarif").display().to_string());
    assert!(upload.continue_on_error, "upload-sarif: auto does not fail the job on a refused upload");
}

#[test]
fn pull_request_from_a_fork_gives_annotations_only() {
    let (tmp, ws, main) = pr_workspace();
    let mut runner = prebuilt(&ws, tmp.path());
    runner.pull_request(&main, "someone-else/repo");
    let run = runner.run();
    assert_drift_reported(&run, &runner);
    let check = run.step("check");
    assert_eq!(check.outputs["upload"], "false");
    assert!(
        check.stdout.contains("SARIF not uploaded: pull request from the fork someone-else/repo"),
        "{}",
        check.stdout
    );
    assert!(!run.step("upload").ran);
}

#[test]
fn push_checks_the_whole_repository_and_passes_when_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    fixture::write_repo(&ws);
    commit_all(&ws, "clean");
    let runner = prebuilt(&ws, tmp.path());
    let run = runner.run();
    let check = run.step("check");
    assert!(!check.stdout.contains("--base"), "{}", check.stdout);
    assert!(!check.stdout.contains("::error"), "{}", check.stdout);
    assert_eq!(check.outputs["exit-code"], "0");
    assert_eq!(check.outputs["upload"], "true");
    assert!(run.summary.contains("no problems found") || run.summary.contains("## driftlint"), "{}", run.summary);
    assert_eq!(run.step("finish").code, 0);
    assert_eq!(run.code, 0);
    // The binary's directory is on PATH for later steps.
    assert!(run.step("install").stdout.contains("driftlint 0.1.0"), "{}", run.step("install").stdout);
}

#[test]
fn inputs_are_data_not_shell() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    fixture::write_repo(&ws);
    commit_all(&ws, "clean");
    let mut runner = prebuilt(&ws, tmp.path());
    runner
        .input("paths", "manifests $(touch pwned-paths) `touch pwned-tick`")
        .input("args", "--no-ignore;touch pwned-args")
        .input("reference", "reference\"; touch pwned-ref; \"");
    let run = runner.run();
    for name in ["pwned-paths", "pwned-tick", "pwned-args", "pwned-ref"] {
        assert!(!ws.join(name).exists(), "{name} was created: an input ran as shell");
    }
    // The words reached driftlint as arguments, which refuses them: exit 2.
    assert_eq!(run.step("check").outputs["exit-code"], "2", "{}{}", run.step("check").stdout, run.step("check").stderr);
    assert_eq!(run.code, 2);
}

/// `paths:` and `args:` given as YAML blocks (`paths: |`, one item per line, CRLF line ends
/// too) are read whole: every path is checked and every argument passed, not just the first
/// line's (issue 22, H12).
#[test]
fn multi_line_inputs_are_read_whole() {
    let (tmp, ws, main) = pr_workspace();
    let mut runner = prebuilt(&ws, tmp.path());
    runner.pull_request(&main, "owner/repo");
    // The drifting file sits under the second line; the fail level's value on its own line.
    runner.input("paths", "manifests/app\r\nmanifests/config\n  manifests/namespace.yaml\n\n");
    runner.input("args", "--fail-level\nerror\n");
    let run = runner.run();
    let check = run.step("check");
    assert!(
        check.stdout.contains(" check manifests/app manifests/config manifests/namespace.yaml --format "),
        "every line's path is passed: {}",
        check.stdout
    );
    assert!(check.stdout.contains(" --fail-level error"), "{}", check.stdout);
    assert_drift_reported(&run, &runner);
}

#[test]
fn an_invalid_upload_sarif_value_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    fixture::write_repo(&ws);
    commit_all(&ws, "clean");
    let mut runner = prebuilt(&ws, tmp.path());
    runner.input("upload-sarif", "yes");
    let run = runner.run();
    let check = run.step("check");
    assert!(check.stdout.contains("::error title=driftlint action::input upload-sarif: `yes`"), "{}", check.stdout);
    assert_eq!(check.outputs["exit-code"], "2");
    assert!(!run.step("upload").ran);
    assert_eq!(run.code, 2);
}

/// The pull request's base is not in a shallow clone (actions/checkout's default): the check
/// step fetches the history it needs from `origin`.
#[test]
fn shallow_clone_fetches_the_base() {
    let (tmp, origin, main) = pr_workspace();
    let ws = tmp.path().join("clone");
    let url = format!("file://{}", origin.display());
    git(tmp.path(), &["clone", "-q", "--depth", "1", "--branch", "feature", &url, ws.to_str().unwrap()]);
    assert!(
        std::process::Command::new("git")
            .args(["cat-file", "-e", &format!("{main}^{{commit}}")])
            .current_dir(&ws)
            .status()
            .is_ok_and(|s| !s.success())
    );
    let mut runner = prebuilt(&ws, tmp.path());
    runner.pull_request(&main, "owner/repo");
    let run = runner.run();
    assert!(run.step("check").stdout.contains("shallow clone; fetching"), "{}", run.step("check").stdout);
    assert_drift_reported(&run, &runner);
}

/// Without a prebuilt binary the action builds its own source with `cargo install --locked`
/// (a stub `cargo` here, recording its arguments), keyed by a hash of the sources, and reuses
/// the cached build when the key matches.
#[test]
fn builds_from_source_once_per_source_hash() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    fixture::write_repo(&ws);
    commit_all(&ws, "clean");
    let stub = tmp.path().join("stub");
    std::fs::create_dir_all(&stub).unwrap();
    let calls = tmp.path().join("cargo-calls");
    let cargo = format!(
        "#!/usr/bin/env bash\nprintf '%s\\n' \"$*\" >> '{calls}'\n\
         [ \"$1\" = install ] || exit 0\n\
         root=; while [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=$2; shift; done\n\
         mkdir -p \"$root/bin\" && cp '{bin}' \"$root/bin/driftlint\"\n",
        calls = calls.display(),
        bin = env!("CARGO_BIN_EXE_driftlint"),
    );
    std::fs::write(stub.join("cargo"), cargo).unwrap();
    std::fs::write(stub.join("rustc"), "#!/bin/sh\necho 'rustc 1.95.0 (stub)'\n").unwrap();
    for f in ["cargo", "rustc"] {
        std::process::Command::new("chmod").arg("+x").arg(stub.join(f)).status().unwrap();
    }
    let mut runner = Runner::new(&ws, tmp.path());
    runner.path.push(stub.clone());

    let run = runner.run();
    let prepare = run.step("prepare");
    assert_eq!(prepare.outputs["build"], "true", "{}{}", prepare.stdout, prepare.stderr);
    let key = &prepare.outputs["cache-key"];
    assert!(key.starts_with(&prepare.outputs["cache-prefix"]) && key.starts_with("driftlint-Linux-X64-"), "{key}");
    let cache = run.step("cache");
    assert!(cache.ran);
    assert_eq!(cache.with["key"], *key);
    let installed = runner.home.join(".cache/driftlint-action/bin/driftlint");
    assert_eq!(run.step("install").outputs["driftlint"], installed.display().to_string());
    let logged = std::fs::read_to_string(&calls).unwrap();
    let expected = format!(
        "install --locked --force --path {} --root {root} --target-dir {root}/target",
        root().display(),
        root = runner.home.join(".cache/driftlint-action").display()
    );
    assert_eq!(logged.lines().collect::<Vec<_>>(), [expected.as_str()]);
    assert_eq!(run.code, 0, "{:#?}", run.steps);

    // Same sources, same key: the cached binary is reused, cargo is not run again.
    let again = runner.run();
    assert_eq!(again.step("prepare").outputs["cache-key"], *key);
    assert!(again.step("install").stdout.contains("cached build of these sources is reused"));
    assert_eq!(std::fs::read_to_string(&calls).unwrap(), logged);
    assert_eq!(again.code, 0);
}

/// A release directory as release.yml publishes it (the Linux x86_64 archive of the driftlint
/// these tests were built with), its SHA256SUMS written to `sums`; and `sh`, running a script
/// in it.
fn release_dir(scratch: &Path, sums: &str) -> (PathBuf, impl Fn(&str)) {
    let release = scratch.join("release");
    let packaged = release.join("driftlint-x86_64-unknown-linux-musl");
    std::fs::create_dir_all(&packaged).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_driftlint"), packaged.join("driftlint")).unwrap();
    let dir = release.clone();
    let sh = move |script: &str| {
        let out = std::process::Command::new("bash").arg("-c").arg(script).current_dir(&dir).output().unwrap();
        assert!(out.status.success(), "{script}: {}", String::from_utf8_lossy(&out.stderr));
    };
    sh(&format!(
        "tar czf driftlint-x86_64-unknown-linux-musl.tar.gz driftlint-x86_64-unknown-linux-musl && rm -r driftlint-x86_64-unknown-linux-musl && sha256sum driftlint-* > {sums}"
    ));
    (release, sh)
}

/// A directory with a `cargo` that fails (a build would fail the job) and a `rustc`.
fn failing_cargo(scratch: &Path) -> PathBuf {
    let stub = scratch.join("stub");
    std::fs::create_dir_all(&stub).unwrap();
    std::fs::write(stub.join("cargo"), "#!/bin/sh\necho 'stub cargo called' >&2\nexit 3\n").unwrap();
    std::fs::write(stub.join("rustc"), "#!/bin/sh\necho 'rustc 1.95.0 (stub)'\n").unwrap();
    for f in ["cargo", "rustc"] {
        std::process::Command::new("chmod").arg("+x").arg(stub.join(f)).status().unwrap();
    }
    stub
}

/// A release of the action (`uses: OWNER/driftlint@v1.2.3`): the archive for the runner's OS
/// and architecture is downloaded with SHA256SUMS and used when its checksum matches (no
/// build); a tampered archive fails the step; a release without the archive, or an unreleased
/// ref, builds from source.
#[test]
fn a_release_ref_downloads_the_verified_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    fixture::write_repo(&ws);
    commit_all(&ws, "clean");
    let (release, sh) = release_dir(tmp.path(), "SHA256SUMS");
    let stub = failing_cargo(tmp.path());
    let runner_for = |reference: &str| {
        let mut runner = Runner::new(&ws, tmp.path());
        runner.path.push(stub.clone());
        runner.env.insert("GITHUB_ACTION_REPOSITORY".into(), "owner/driftlint".into());
        runner.env.insert("GITHUB_ACTION_REF".into(), reference.into());
        runner.env.insert("DRIFTLINT_RELEASE_URL".into(), format!("file://{}", release.display()));
        runner
    };
    let run = runner_for("v1.2.3").run();
    let prepare = run.step("prepare");
    assert_eq!(prepare.outputs["build"], "false", "{}{}", prepare.stdout, prepare.stderr);
    assert!(prepare.stdout.contains("using release v1.2.3 of owner/driftlint"), "{}", prepare.stdout);
    assert!(!run.step("cache").ran, "nothing to build");
    assert!(run.step("install").outputs["driftlint"].ends_with("driftlint-x86_64-unknown-linux-musl/driftlint"));
    assert_eq!(run.step("check").outputs["exit-code"], "0", "{}", run.step("check").stderr);

    // A tampered archive is refused, never run.
    sh("printf x >> driftlint-x86_64-unknown-linux-musl.tar.gz");
    let run = runner_for("v1.2.3").run();
    let prepare = run.step("prepare");
    assert_eq!(prepare.code, 2, "{}", prepare.stdout);
    assert!(prepare.stdout.contains("does not match its SHA256SUMS"), "{}", prepare.stdout);
    assert!(!run.step("check").ran);

    // An unreleased ref (a commit) and a release without this runner's archive build from
    // source (here with the failing stub cargo).
    sh("rm driftlint-x86_64-unknown-linux-musl.tar.gz");
    for reference in ["v1.2.3", "0123456789abcdef0123456789abcdef01234567"] {
        let run = runner_for(reference).run();
        let prepare = run.step("prepare");
        assert_eq!(prepare.outputs["build"], "true", "{reference}: {}", prepare.stdout);
        assert_eq!(
            reference.starts_with('v'),
            prepare.stdout.contains("no driftlint-x86_64-unknown-linux-musl.tar.gz in release"),
            "{reference}: {}",
            prepare.stdout
        );
        assert!(run.step("install").stderr.contains("stub cargo called"), "{reference}");
    }
}

/// The action's sources as a release commit has them: a copy of what goes into the build and
/// `action/`, with `action/release.txt` written by `action/release-file.sh` from `sums`.
fn release_commit(dir: &Path, version: &str, sums: &Path) -> PathBuf {
    let copy = dir.join("action-source");
    std::fs::create_dir_all(&copy).unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(
            "tar cf - --exclude=target --exclude=fuzz Cargo.toml Cargo.lock src crates action action.yml | tar xf - -C \"$1\"",
        )
        .arg("-")
        .arg(&copy)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = std::process::Command::new("bash")
        .arg(copy.join("action/release-file.sh"))
        .arg(version)
        .arg(sums)
        .output()
        .unwrap();
    assert!(file.status.success(), "{}", String::from_utf8_lossy(&file.stderr));
    std::fs::write(copy.join("action/release.txt"), &file.stdout).unwrap();
    copy
}

/// Pinned by the release commit's sha (or a branch at it), the action knows its release from
/// `action/release.txt` and verifies the archive against the checksums that commit carries —
/// the release's own SHA256SUMS is not even read. Sources changed since the release build.
#[test]
fn a_release_commit_pinned_by_sha_or_branch_downloads_the_verified_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    fixture::write_repo(&ws);
    commit_all(&ws, "clean");
    let (release, sh) = release_dir(tmp.path(), "../SHA256SUMS");
    let source = release_commit(tmp.path(), "v1.2.3", &tmp.path().join("SHA256SUMS"));
    let recorded = std::fs::read_to_string(source.join("action/release.txt")).unwrap();
    assert!(
        recorded.contains("\nversion v1.2.3\n") && recorded.contains(" driftlint-x86_64-unknown-linux-musl.tar.gz")
    );
    let stub = failing_cargo(tmp.path());
    let runner_for = |reference: &str| {
        let mut runner = Runner::new(&ws, tmp.path());
        runner.path.push(stub.clone());
        runner.action_path = source.clone();
        runner.env.insert("GITHUB_ACTION_REPOSITORY".into(), "owner/driftlint".into());
        runner.env.insert("GITHUB_ACTION_REF".into(), reference.into());
        runner.env.insert("DRIFTLINT_RELEASE_URL".into(), format!("file://{}", release.display()));
        runner
    };
    // No SHA256SUMS in the release directory: the checksum can only come from the commit.
    assert!(!release.join("SHA256SUMS").exists());
    for reference in ["0123456789abcdef0123456789abcdef01234567", "main", "v1.2.3"] {
        let run = runner_for(reference).run();
        let prepare = run.step("prepare");
        assert_eq!(prepare.outputs["build"], "false", "{reference}: {}{}", prepare.stdout, prepare.stderr);
        assert!(prepare.stdout.contains("using release v1.2.3 of owner/driftlint"), "{}", prepare.stdout);
        assert!(!run.step("cache").ran, "nothing to build");
        assert_eq!(run.step("check").outputs["exit-code"], "0", "{}", run.step("check").stderr);
    }
    // A tampered archive is refused against the commit's record.
    sh(
        "cp driftlint-x86_64-unknown-linux-musl.tar.gz ../good.tar.gz && printf x >> driftlint-x86_64-unknown-linux-musl.tar.gz",
    );
    let run = runner_for("0123456789abcdef0123456789abcdef01234567").run();
    let prepare = run.step("prepare");
    assert_eq!(prepare.code, 2, "{}", prepare.stdout);
    assert!(prepare.stdout.contains("does not match action/release.txt of the pinned commit"), "{}", prepare.stdout);
    assert!(!run.step("check").ran);
    sh("mv ../good.tar.gz driftlint-x86_64-unknown-linux-musl.tar.gz");
    // Sources changed since the release (a later commit of a branch): built from source.
    let main_rs = source.join("src/main.rs");
    let text = std::fs::read_to_string(&main_rs).unwrap();
    std::fs::write(&main_rs, format!("{text}// changed after the release\n")).unwrap();
    let run = runner_for("main").run();
    let prepare = run.step("prepare");
    assert_eq!(prepare.outputs["build"], "true", "{}", prepare.stdout);
    assert!(prepare.stdout.contains("records release v1.2.3 of other sources"), "{}", prepare.stdout);
    assert!(run.step("install").stderr.contains("stub cargo called"));
}

/// README's layouts (a reference, a Helm chart, a kustomization): an unchanged pull request
/// passes, one that adds a misspelt built-in kind fails at its line.
#[test]
fn with_a_chart_and_a_kustomization_an_unchanged_pull_request_passes_and_a_typo_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    fixture::write_repo(&ws);
    fixture::add_layouts(&ws);
    let main = commit_all(&ws, "manifests, a chart and a kustomization");
    git(&ws, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(ws.join("README.md"), "# test repository\n\nmore words\n").unwrap();
    commit_all(&ws, "docs only");
    let mut runner = prebuilt(&ws, tmp.path());
    runner.pull_request(&main, "owner/repo");
    let run = runner.run();
    let check = run.step("check");
    assert_eq!(check.outputs["exit-code"], "0", "{}{}", check.stdout, check.stderr);
    assert!(!check.stdout.contains("config-weakened"), "{}", check.stdout);
    assert_eq!(run.code, 0);
    fixture::add_typo(&ws);
    commit_all(&ws, "a typo");
    let run = runner.run();
    let check = run.step("check");
    assert_eq!(check.outputs["exit-code"], "1", "{}{}", check.stdout, check.stderr);
    assert!(check.stdout.contains(&format!("::error file={},line=2,", fixture::TYPO)), "{}", check.stdout);
    assert_eq!(run.code, 1);
}
