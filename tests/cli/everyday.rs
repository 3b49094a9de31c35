//! What a newcomer meets in a first hour with the command line: `--quiet`, `--color`, shell
//! completions, `--diff-filter diff-context`, configuration mistakes reported at their line
//! with a suggestion, and paths shown from the directory the command runs in.

use std::path::Path;
use std::process::Command;

use super::{copy_dir, git, root, run, run_in, write_files};

/// Runs the binary in the repository root with `envs` set (and no CI or colour variables of
/// the caller's).
fn run_env(args: &[&str], envs: &[(&str, &str)]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_driftlint"))
        .args(args)
        .current_dir(root())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn quiet_prints_findings_without_the_summary() {
    let loud = run(&["check", "fixtures/repo", "--format", "concise"]);
    let quiet = run(&["check", "fixtures/repo", "--format", "concise", "-q"]);
    assert_eq!((loud.code, quiet.code), (1, 1));
    // The summary line is the last line of the report, and the only one `-q` leaves out.
    let (findings, summary) = loud.stdout.trim_end().rsplit_once('\n').unwrap();
    assert!(summary.starts_with("found 2 errors, 1 warning"), "{}", loud.stdout);
    assert_eq!(quiet.stdout, format!("{findings}\n"));
    let human = run(&["check", "fixtures/repo", "--quiet"]);
    assert!(
        human.stdout.contains("error[value-drift]") && !human.stdout.contains("found 2 errors"),
        "{}",
        human.stdout
    );
    // A clean run says nothing at all.
    let clean = run(&["check", "fixtures/clean-repo", "-q"]);
    assert_eq!((clean.code, clean.stdout.as_str(), clean.stderr.as_str()), (0, "", ""));
    // The flag is documented as ruff documents its `-q`.
    let help = run(&["check", "--help"]);
    assert!(help.stdout.contains("-q, --quiet") && help.stdout.contains("no summary line"), "{}", help.stdout);
}

#[test]
fn color_always_and_never_override_detection() {
    let args = ["check", "fixtures/repo"];
    let (_, piped) = run_env(&args, &[]);
    assert!(!piped.contains('\x1b'), "a pipe is not coloured by default");
    let (_, always) = run_env(&[&args[..], &["--color", "always"]].concat(), &[("NO_COLOR", "1")]);
    assert!(always.contains("\x1b["), "--color always colours a pipe, NO_COLOR or not:\n{always}");
    let (_, never) = run_env(&[&args[..], &["--color=never"]].concat(), &[("CLICOLOR_FORCE", "1")]);
    assert!(!never.contains('\x1b'), "--color never wins over CLICOLOR_FORCE:\n{never}");
    let (_, forced) = run_env(&args, &[("CLICOLOR_FORCE", "1")]);
    assert!(forced.contains("\x1b["), "auto keeps CLICOLOR_FORCE");
    let bad = run(&["check", "--color", "sometimes"]);
    assert_eq!(bad.code, 2);
}

#[test]
fn completions_for_every_shell() {
    for (shell, marker) in [
        ("bash", "complete -F _driftlint"),
        ("zsh", "#compdef driftlint"),
        ("fish", "complete -c driftlint"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[driftlint]"),
    ] {
        let r = run(&["completions", shell]);
        assert_eq!(r.code, 0, "{shell}: {}", r.stderr);
        assert!(r.stdout.contains(marker), "{shell}: no {marker:?}");
        assert!(r.stdout.contains("fail-level") && r.stdout.contains("init"), "{shell}: a flag or command missing");
        // The shells whose scripts list flag values offer the kebab-case spelling.
        if ["bash", "zsh", "fish"].contains(&shell) {
            assert!(r.stdout.contains("diff-context"), "{shell}: no --diff-filter values");
        }
    }
    assert_eq!(run(&["completions", "tcsh"]).code, 2);
}

#[test]
fn diff_filter_is_kebab_case_and_keeps_the_snake_case_alias() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("fixtures/clean-repo"), &dir.path().join("repo"));
    copy_dir(&root().join("fixtures/reference"), &dir.path().join("reference"));
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "init"]);
    let repo = dir.path().join("repo");
    for value in ["diff-context", "diff_context"] {
        let r = run_in(&repo, &["check", "--staged", "--diff-filter", value], None);
        assert_eq!(r.code, 0, "{value}: {}", r.stderr);
    }
    let help = run(&["check", "--help"]);
    assert!(help.stdout.contains("diff-context") && !help.stdout.contains("diff_context"), "{}", help.stdout);
}

#[test]
fn a_misspelt_configuration_key_gets_a_suggestion_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[(".driftlint.yaml", "# tuned\nfail_level: warning\n"), ("cm.yaml", CONFIGMAP)]);
    let r = run_in(dir.path(), &["check"], None);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.starts_with("error: .driftlint.yaml:2:1: unknown key `fail_level` (did you mean `fail-level`?)"),
        "{}",
        r.stderr
    );
    // Nothing near: no suggestion.
    write_files(dir.path(), &[(".driftlint.yaml", "colour: never\n")]);
    let r = run_in(dir.path(), &["check"], None);
    assert!(r.stderr.contains("unknown key `colour` (expected one of:"), "{}", r.stderr);
}

const CONFIGMAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n";

#[test]
fn a_missing_reference_is_a_configuration_error_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[(".driftlint.yaml", "fail-level: error\nreference: refrence\n"), ("cm.yaml", CONFIGMAP)]);
    let r = run_in(dir.path(), &["check"], None);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.starts_with("error: .driftlint.yaml:2:12: `reference: refrence`: refrence does not exist"),
        "{}",
        r.stderr
    );
    // A directory without metadata.yaml is no reference either.
    std::fs::create_dir(dir.path().join("refrence")).unwrap();
    let r = run_in(dir.path(), &["check"], None);
    assert!(
        r.stderr.contains(".driftlint.yaml:2:12: `reference: refrence`: refrence is a directory without metadata.yaml"),
        "{}",
        r.stderr
    );
}

/// Run from a subdirectory, `check` finds the configuration further up and checks the whole
/// repository: the paths it shows are relative to where it runs, never absolute.
#[test]
fn paths_are_relative_to_the_working_directory_in_a_subdirectory() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("fixtures/repo"), &dir.path().join("repo"));
    copy_dir(&root().join("fixtures/reference"), &dir.path().join("reference"));
    git(dir.path(), &["init", "-q"]);
    let app = dir.path().join("repo/app");
    let concise = run_in(&app, &["check", "--format", "concise"], None);
    assert_eq!(concise.code, 1, "{}", concise.stderr);
    assert_eq!(
        concise
            .stdout
            .lines()
            .filter(|l| !l.starts_with("found "))
            .map(|l| l.split(": ").next().unwrap())
            .collect::<Vec<_>>(),
        ["../config/settings.yaml:10:18", "../config/settings.yaml:14:13", "frontend.yaml:24:23"]
    );
    let human = run_in(&app, &["check"], None);
    assert!(human.stdout.contains("  ::: ../../reference/deployment.yaml:23:15"), "{}", human.stdout);
    let json = run_in(&app, &["check", "--format", "json"], None);
    // `ls` lists what `check` reads, and `config show` names the file it found, the same way.
    let ls = run_in(&app, &["ls"], None);
    assert!(ls.stdout.contains("\n../config/settings.yaml:4:5: v1 ConfigMap web/settings"), "{}", ls.stdout);
    assert!(ls.stdout.starts_with("frontend.yaml:2:1: apps/v1 Deployment web/frontend"), "{}", ls.stdout);
    let show = run_in(&app, &["config", "show"], None);
    assert!(show.stdout.starts_with("# ../.driftlint.yaml\n"), "{}", show.stdout);
    let tmp = dir.path().to_str().unwrap();
    for out in [&concise.stdout, &human.stdout, &json.stdout, &ls.stdout, &show.stdout] {
        assert!(!out.contains(tmp), "an absolute path in:\n{out}");
    }
    assert!(Path::new(tmp).is_absolute());
}
