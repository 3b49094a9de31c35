//! A small git repository with a `.driftlint.yaml`, a copy of the example reference and
//! manifests that match it, plus helpers to run `git` and to break a manifest.

use std::path::{Path, PathBuf};
use std::process::Command;

/// This checkout (the repository under test).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The configuration at the fixture repository's root.
pub const CONFIG: &str = "\
# driftlint configuration of the test repository.
reference: reference
exclude:
  - reference/
  - .pre-commit-config.yaml
";

/// The manifest that [`drift`] changes, and the line of the value it changes.
pub const SETTINGS: &str = "manifests/config/settings.yaml";
pub const SETTINGS_LINE: usize = 7;

/// `git ARGS` in `dir` with a fixed identity and no user or system configuration; panics
/// with git's output when it fails. Returns standard output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_command(dir).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim_end().to_string()
}

/// A `git` command with the test identity and environment, to add arguments to.
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir);
    with_test_git_env(&mut cmd);
    cmd
}

/// The test identity and a git without user or system configuration, for `cmd` and every git
/// it starts (pre-commit runs git itself).
pub fn with_test_git_env(cmd: &mut Command) -> &mut Command {
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Writes the fixture into `dir` (created) and runs `git init` on branch `main`; nothing is
/// committed.
pub fn write_repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join(".driftlint.yaml"), CONFIG).unwrap();
    copy_dir(&root().join("fixtures/reference"), &dir.join("reference"));
    copy_dir(&root().join("fixtures/clean-repo/app"), &dir.join("manifests/app"));
    copy_dir(&root().join("fixtures/clean-repo/config"), &dir.join("manifests/config"));
    std::fs::copy(root().join("fixtures/clean-repo/namespace.yaml"), dir.join("manifests/namespace.yaml")).unwrap();
    std::fs::write(dir.join("README.md"), "# test repository\n").unwrap();
}

/// Changes the ConfigMap's `log-level` from `info` (the reference's) to `debug`.
pub fn drift(dir: &Path) {
    let path = dir.join(SETTINGS);
    let text = std::fs::read_to_string(&path).unwrap();
    let changed = text.replace("log-level: info", "log-level: debug");
    assert_ne!(text, changed, "the fixture has `log-level: info`");
    assert_eq!(changed.lines().nth(SETTINGS_LINE - 1), Some("  log-level: debug"));
    std::fs::write(path, changed).unwrap();
}

/// Stages everything and commits without hooks; returns the new commit's id.
pub fn commit_all(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "--no-verify", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// A Helm chart and kustomize files beside the manifests, as README's layouts have them.
pub fn add_layouts(dir: &Path) {
    let files = [
        ("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n"),
        ("charts/web/values.yaml", "replicas: 2\n"),
        (
            "charts/web/templates/deploy.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  replicas: {{ .Values.replicas }}\n",
        ),
        (
            "manifests/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - namespace.yaml\n",
        ),
    ];
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A manifest with a misspelt built-in kind (`kind: Servce`), at `manifests/typo.yaml`.
pub const TYPO: &str = "manifests/typo.yaml";

pub fn add_typo(dir: &Path) {
    std::fs::write(
        dir.join(TYPO),
        "apiVersion: v1\nkind: Servce\nmetadata:\n  name: web\n  namespace: web\nspec:\n  ports:\n    - port: 80\n",
    )
    .unwrap();
}
