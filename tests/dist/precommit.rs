//! The hooks of `.pre-commit-hooks.yaml`, installed with the real `pre-commit` (from PyPI;
//! `.ci/run` installs it) into a temporary repository whose `.pre-commit-config.yaml` points at
//! this checkout at its HEAD commit: a drifting commit is refused with the finding in the
//! hook's output, a clean one goes through. Both tests are `#[ignore]`d on a plain clone
//! (they need pre-commit); `.ci/run` installs it and runs them, and under `CI=true` a missing
//! pre-commit fails them.
//!
//! The `driftlint` hook is `language: rust`: pre-commit clones this repository into its store
//! and builds it with `cargo install --path` (release profile). To keep that affordable:
//!
//! * the build uses the target directory the tests were built in, so compiled dependencies are
//!   reused (from one run to the next, and by `.ci/run`'s later `cargo build --release`). This
//!   does not deadlock: `cargo test` locks only its own profile's directory.
//! * the store is in the test's temporary directory, never under the target directory: cargo
//!   records source paths under the target directory relative to it, so a clone kept there
//!   would make a later clone's changed sources look fresh.
//! * a `.cargo/config.toml` above the store (cargo reads it for `install --path`) gives this
//!   repository's own three crates `opt-level = 1`. That is cheaper, and it gives them their
//!   own artifacts: with the release profile unchanged they would share file names with the
//!   checkout's release build, whose sources may be newer than HEAD (uncommitted edits) yet
//!   older than the hook's build, and `cargo build --release` would take the hook's artifacts
//!   as up to date.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use super::fixture::{self, SETTINGS, SETTINGS_LINE, git, git_command, root};

/// How to run pre-commit here: `pre-commit` on PATH, else `python3 -m pre_commit`. `None`
/// (after a `SKIPPED` line) when it is missing outside CI; a panic when it is missing in CI.
fn pre_commit(test: &str) -> Option<Vec<String>> {
    let candidates: [&[&str]; 2] = [&["pre-commit"], &["python3", "-m", "pre_commit"]];
    for candidate in candidates {
        let works = Command::new(candidate[0])
            .args(&candidate[1..])
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if works {
            return Some(candidate.iter().map(|s| s.to_string()).collect());
        }
    }
    driftlint_test_support::skip(
        test,
        "pre-commit is not installed (`python3 -m pip install --user pre-commit`; .ci/run does this)",
    );
    None
}

/// The target directory these tests were built in (`…/target/debug/driftlint` → `…/target`).
fn target_dir() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_driftlint"));
    bin.parent().and_then(Path::parent).expect("the binary is in <target>/<profile>/").to_path_buf()
}

/// This checkout's HEAD commit, the `rev` the test repository's hook configuration pins.
/// Uncommitted changes are not part of what pre-commit installs, so they are pointed out.
fn head(test: &str) -> Option<String> {
    let out = git_command(&root()).args(["rev-parse", "HEAD"]).output().ok()?;
    if !out.status.success() {
        let why =
            format!("{} is not a git checkout, and pre-commit installs hooks from a git commit", root().display());
        driftlint_test_support::skip(test, &why);
        return None;
    }
    let status = git(&root(), &["status", "--porcelain", "--untracked-files=no"]);
    if !status.is_empty() {
        eprintln!("note: uncommitted changes in {} are not in the hook under test (HEAD is)", root().display());
    }
    Some(String::from_utf8(out.stdout).unwrap().trim().to_string())
}

/// The hook configuration of the test repository: README's `.pre-commit-config.yaml` snippet
/// as a user copies it, with its placeholders replaced: the repository by this checkout, the
/// revision by `rev`, the hook by `id`.
fn hook_config(rev: &str, id: &str) -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("```yaml\n# .pre-commit-config.yaml\n").expect("README has the pre-commit snippet");
    let body = &readme[start + "```yaml\n".len()..];
    let body = &body[..body.find("```").unwrap()];
    let config = body
        .replace("https://github.com/OWNER/driftlint", &root().display().to_string())
        .replace("<COMMIT-SHA>", rev)
        .replace("- id: driftlint ", &format!("- id: {id} "));
    assert!(
        config.contains(&format!("- id: {id} ")) && config.contains(rev),
        "README's snippet changed shape:\n{config}"
    );
    config
}

/// A test repository with pre-commit installed for hook `id`. Returns (temp dir, repo).
fn repo_with_hook(pre_commit: &[String], id: &str, rev: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let cargo_config = tmp.path().join(".cargo");
    std::fs::create_dir_all(&cargo_config).unwrap();
    std::fs::write(cargo_config.join("config.toml"), CARGO_CONFIG).unwrap();
    let repo = tmp.path().join("repo");
    fixture::write_repo(&repo);
    std::fs::write(repo.join(".pre-commit-config.yaml"), hook_config(rev, id)).unwrap();
    let out = hook_env(Command::new(&pre_commit[0]), &repo, None)
        .args(&pre_commit[1..])
        .args(["install"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "pre-commit install: {}", text(&out));
    (tmp, repo)
}

/// The profile of the hook's build of this repository's crates (see the module comment).
const CARGO_CONFIG: &str = "\
[profile.release.package.driftlint]
opt-level = 1
[profile.release.package.driftlint-yaml]
opt-level = 1
[profile.release.package.driftlint-gotmpl]
opt-level = 1
";

/// The environment pre-commit and the hook run in: this test's git identity, a pre-commit
/// store beside the repository (`repo/../pre-commit-home`), the shared target directory for
/// `cargo install`, and `extra_path` (a directory) first on PATH.
fn hook_env(cmd: Command, repo: &Path, extra_path: Option<&Path>) -> Command {
    let mut cmd = cmd;
    let target = target_dir();
    cmd.current_dir(repo)
        .env("PRE_COMMIT_HOME", repo.parent().unwrap().join("pre-commit-home"))
        .env("CARGO_TARGET_DIR", &target)
        .env("PRE_COMMIT_COLOR", "never")
        .env_remove("GITHUB_ACTIONS");
    fixture::with_test_git_env(&mut cmd);
    if let Some(dir) = extra_path {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![dir.to_path_buf()];
        dirs.extend(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(dirs).unwrap());
    }
    cmd
}

/// `git commit -m MESSAGE` with the hooks enabled.
fn commit(repo: &Path, message: &str, extra_path: Option<&Path>) -> Output {
    hook_env(Command::new("git"), repo, extra_path).args(["commit", "-m", message]).output().unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Runs the same scenario whichever hook: a clean commit passes, a drifting one is refused
/// with the finding, a file left out of the commit does not count, and a commit without YAML
/// or JSON skips the hook.
fn scenario(repo: &Path, extra_path: Option<&Path>) {
    // 1. The first commit: everything clean.
    git(repo, &["add", "-A"]);
    let start = Instant::now();
    let out = commit(repo, "manifests matching the reference", extra_path);
    eprintln!("first commit (installs the hook environment when new): {:.1?}", start.elapsed());
    assert!(out.status.success(), "a clean commit must pass:\n{}", text(&out));
    assert!(text(&out).contains("Passed"), "{}", text(&out));
    let first = git(repo, &["rev-parse", "HEAD"]);

    // 2. A drifting change is refused, with the finding at the manifest line.
    fixture::drift(repo);
    git(repo, &["add", SETTINGS]);
    let out = commit(repo, "debug logging", extra_path);
    let log = text(&out);
    assert!(!out.status.success(), "a drifting commit must be refused:\n{log}");
    assert!(log.contains("Failed"), "{log}");
    assert!(log.contains("error[value-drift]"), "{log}");
    assert!(log.contains("`/data/log-level` is `debug`, the reference expects `info`"), "{log}");
    assert!(log.contains(&format!("{SETTINGS}:{SETTINGS_LINE}:")), "{log}");
    assert_eq!(git(repo, &["rev-parse", "HEAD"]), first, "nothing was committed");

    // 3. Fixed in the index; a broken, untracked YAML file is not part of the commit and is
    // not checked (`--staged` reads the index, not the working tree).
    git(repo, &["checkout", "HEAD", "--", SETTINGS]);
    std::fs::write(repo.join("manifests/scratch.yaml"), "kind: [unclosed\n").unwrap();
    std::fs::write(repo.join("manifests/namespace.yaml"), "# the web namespace\n".to_string() + &ns(repo)).unwrap();
    git(repo, &["add", "manifests/namespace.yaml"]);
    let out = commit(repo, "comment the namespace", extra_path);
    assert!(out.status.success(), "the staged snapshot is clean:\n{}", text(&out));
    assert_ne!(git(repo, &["rev-parse", "HEAD"]), first);

    // 4. No YAML or JSON in the commit: the hook is skipped (`types_or`).
    std::fs::write(repo.join("README.md"), "# test repository\n\nmore words\n").unwrap();
    git(repo, &["add", "README.md"]);
    let out = commit(repo, "readme", extra_path);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Skipped"), "{}", text(&out));

    // 5. A Helm chart and a kustomization (README's layouts) commit cleanly; a misspelt
    // built-in kind is refused at its line, with a reference configured.
    fixture::add_layouts(repo);
    git(repo, &["add", "charts", "manifests/kustomization.yaml"]);
    let out = commit(repo, "a chart and a kustomization", extra_path);
    assert!(out.status.success(), "layouts commit cleanly:\n{}", text(&out));
    fixture::add_typo(repo);
    git(repo, &["add", fixture::TYPO]);
    let out = commit(repo, "a typo", extra_path);
    let log = text(&out);
    assert!(!out.status.success(), "`kind: Servce` must be refused:\n{log}");
    assert!(log.contains("error[unknown-kind]") && log.contains(&format!("{}:2:", fixture::TYPO)), "{log}");
}

fn ns(repo: &Path) -> String {
    std::fs::read_to_string(repo.join("manifests/namespace.yaml")).unwrap()
}

/// The `driftlint` hook: `language: rust`, built by pre-commit with `cargo install`.
#[test]
#[ignore = "needs pre-commit (PyPI) and a release build of this repository; .ci/run runs it"]
fn rust_hook_blocks_a_drifting_commit_and_passes_a_clean_one() {
    let test = "rust_hook_blocks_a_drifting_commit_and_passes_a_clean_one";
    let (Some(pre_commit), Some(rev)) = (pre_commit(test), head(test)) else { return };
    let (_tmp, repo) = repo_with_hook(&pre_commit, "driftlint", &rev);
    scenario(&repo, None);
}

/// The `driftlint-system` hook: `language: system`, the driftlint found on PATH (here the one
/// these tests were built with).
#[test]
#[ignore = "needs pre-commit (PyPI); .ci/run runs it"]
fn system_hook_uses_driftlint_on_path() {
    let test = "system_hook_uses_driftlint_on_path";
    let (Some(pre_commit), Some(rev)) = (pre_commit(test), head(test)) else { return };
    let (_tmp, repo) = repo_with_hook(&pre_commit, "driftlint-system", &rev);
    let bin_dir = PathBuf::from(env!("CARGO_BIN_EXE_driftlint")).parent().unwrap().to_path_buf();
    scenario(&repo, Some(&bin_dir));
}
