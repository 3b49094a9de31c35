mod admission;
mod batches;
mod builtin;
mod cel_budget;
mod check;
mod compare;
mod crossplane;
mod crossplane_crds;
mod crossplane_pipeline;
mod crossplane_shapes;
mod crossplane_v2;
mod crossplane_validate_parity;
mod definitions;
mod everyday;
mod fix;
mod git_reference;
mod git_scope;
mod hostile;
mod hostile_confine;
mod hostile_scope;
mod immutable;
mod init;
mod jobs;
mod kubeconform_parity;
mod kustomize;
mod schema_cel;

mod layouts;
mod ls;
mod lsp;
mod man;
mod named;
mod policy;
mod policy_conftest;
mod policy_conftest_suite;
mod policy_engine;
mod policy_stress;
mod real_layouts;
mod rendered;
mod special_files;
mod stream_batches;
mod template;
mod template_budget;
mod yaml_k8s;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The output of one run of the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `driftlint ARGS` in `dir` with `stdin` as standard input.
pub fn run_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_driftlint"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the driftlint binary runs");
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

pub fn run(args: &[&str]) -> Run {
    run_in(&root(), args, None)
}

pub fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", run.stdout, run.stderr))
}

/// A JSON diagnostic as (rule, severity, `FILE:LINE`), the file by its base name: what the
/// Crossplane and schema tests compare.
pub fn placed(d: &serde_json::Value) -> (String, String, String) {
    let file = d["file"].as_str().unwrap_or("");
    (
        d["rule"].as_str().unwrap().to_string(),
        d["severity"].as_str().unwrap().to_string(),
        format!("{}:{}", file.rsplit('/').next().unwrap_or(file), d["line"]),
    )
}

/// Runs `git ARGS` in `dir` with a fixed identity, no signing and no user or system
/// configuration (so a developer's settings cannot change a test); panics with git's error
/// when it fails. Returns standard output as printed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=driftlint", "-c", "user.email=driftlint@example.com", "-c", "commit.gpgsign=false"])
        .args(["-c", "tag.gpgsign=false", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Writes `files` (path relative to `dir`, text) under `dir`, creating their directories.
pub fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// `check --isolated --format json .` in `dir`: each finding as (rule, severity, file, message).
pub fn findings(dir: &Path) -> Vec<(String, String, String, String)> {
    let r = run_in(dir, &["check", "--isolated", "--format", "json", "."], None);
    json(&r)["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{}{}", r.stdout, r.stderr))
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("rule"), s("severity"), s("file"), s("message"))
        })
        .collect()
}

/// Copies a directory tree (regular files and directories).
pub fn copy_dir(from: &Path, to: &Path) {
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
