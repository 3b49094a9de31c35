//! README's snippets are copy-paste correct: the pre-commit configuration and the workflow name
//! this repository (its `Cargo.toml` `repository`), hooks that `.pre-commit-hooks.yaml` defines
//! and inputs that `action.yml` declares, and pin a revision that exists (a tag or commit of
//! this repository) or the placeholder README explains; the install commands name the same
//! repository; and the test commands README gives are the ones `.ci/run` runs.

use std::collections::BTreeSet;

use super::fixture::{git_command, root};
use super::runner::action;

/// The placeholder README's snippets use for a revision, explained next to them.
const PLACEHOLDER: &str = "<COMMIT-SHA>";

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// The fenced code blocks of `text` as (info string, body).
fn code_blocks(text: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim().to_string(), String::new())),
            (Some(_), Some(_)) => blocks.extend(open.take()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "README.md: a code block is not closed");
    blocks
}

/// The placeholder README's snippets use for driftlint's own repository until it has a public
/// home of its own (explained next to them): a name nobody can mistake for a real repository.
const REPOSITORY: &str = "OWNER/driftlint";

/// The value after `key:` on a YAML line (comment and quotes removed), if the line has it.
fn yaml_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = line.trim_start().trim_start_matches("- ").strip_prefix(key)?.strip_prefix(':')?;
    Some(rest.split(" #").next().unwrap_or("").trim().trim_matches('"').trim_matches('\''))
}

/// Whether `rev` names something that exists: a tag or a commit of this repository, or the
/// explained placeholder. `mutable_ok` also admits the default branch (`main`).
fn check_rev(rev: &str, mutable_ok: bool, failures: &mut Vec<String>, what: &str) {
    if rev == PLACEHOLDER {
        return;
    }
    if mutable_ok && rev == "main" {
        return;
    }
    let exists = |spec: &str| git_command(&root()).args(["rev-parse", "--verify", "--quiet", spec]).output();
    let found = if rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit()) {
        exists(&format!("{rev}^{{commit}}"))
    } else {
        exists(&format!("refs/tags/{rev}"))
    };
    if !found.is_ok_and(|o| o.status.success()) {
        failures.push(format!("{what}: `{rev}` is neither a tag nor a commit of this repository"));
    }
}

#[test]
fn pre_commit_and_action_snippets_pin_what_exists() {
    let readme = readme();
    let url = format!("https://github.com/{REPOSITORY}");
    let slug = REPOSITORY.to_string();
    let hooks = std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).unwrap();
    let hook_ids: BTreeSet<&str> = hooks.lines().filter_map(|l| yaml_value(l, "id")).collect();
    let action = action();
    let inputs: BTreeSet<&str> = action["inputs"].as_object().unwrap().keys().map(String::as_str).collect();
    let (mut revs, mut uses, mut failures) = (0, 0, Vec::new());
    for (info, body) in code_blocks(&readme).iter().filter(|(info, _)| info == "yaml") {
        let lines: Vec<&str> = body.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if let Some(repo) = yaml_value(line, "repo") {
                if repo != url {
                    failures.push(format!("pre-commit `repo: {repo}` is not {url}"));
                }
                let rev = lines.get(i + 1).and_then(|l| yaml_value(l, "rev"));
                let rev = rev.unwrap_or_else(|| panic!("README {info} block: no `rev:` after `repo: {repo}`"));
                check_rev(rev, false, &mut failures, "pre-commit `rev:`");
                revs += 1;
            }
            if let Some(id) = yaml_value(line, "id").filter(|_| body.contains("repos:"))
                && !hook_ids.contains(id)
            {
                failures.push(format!("pre-commit hook `{id}` is not in .pre-commit-hooks.yaml"));
            }
            if let Some(used) = yaml_value(line, "uses").and_then(|u| u.strip_prefix(&format!("{slug}@"))) {
                check_rev(used, true, &mut failures, "action `uses:`");
                uses += 1;
                // `with:` and the inputs shown below it, commented out or not.
                for next in lines[i + 1..].iter().map(|l| l.trim_start().trim_start_matches('#').trim_start()) {
                    let Some((key, _)) = next.split_once(':') else { break };
                    if key == "with" || key.is_empty() {
                        continue;
                    }
                    if key.contains(' ') || key.starts_with('-') {
                        break;
                    }
                    if !inputs.contains(key) {
                        failures.push(format!("action input `{key}` is not declared in action.yml"));
                    }
                }
            }
        }
    }
    assert_eq!((revs, uses), (1, 1), "README's pre-commit and workflow snippets were not found");
    if readme.contains(PLACEHOLDER) {
        assert!(readme.contains("REPLACE: a release tag"), "README uses {PLACEHOLDER} without saying how");
    }
    assert!(readme.contains(&format!("Replace `{REPOSITORY}`")), "README uses {REPOSITORY} without saying how");
    assert!(failures.is_empty(), "README.md:\n{}", failures.join("\n"));
}

#[test]
fn install_commands_name_no_borrowed_repository() {
    // From a clone, and from a release of the placeholder repository: no install command names
    // a repository this project does not control.
    let readme = readme();
    assert!(readme.contains("cargo install --locked --path ."), "README has no install from a clone");
    for line in readme.lines().filter(|l| l.contains("github.com/")) {
        let after = line.split("github.com/").nth(1).unwrap_or("");
        let owner_repo: String = after.split(['/', ' ', '`', ')']).take(2).collect::<Vec<_>>().join("/");
        assert!(
            owner_repo == REPOSITORY || owner_repo.starts_with("openshift/") || line.contains("actions/checkout"),
            "README names a repository we do not control: {line}"
        );
    }
}

#[test]
fn readme_test_commands_are_what_ci_runs() {
    let readme = readme();
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let ci_lines: Vec<&str> = ci.lines().map(str::trim).collect();
    let sh: Vec<String> = code_blocks(&readme)
        .into_iter()
        .filter(|(info, _)| info == "sh")
        .flat_map(|(_, body)| body.lines().map(str::to_string).collect::<Vec<_>>())
        .collect();
    let plain = "cargo test --workspace --locked";
    assert!(sh.iter().any(|l| l == plain), "README's test command is not `{plain}`");
    assert!(ci_lines.contains(&plain), ".ci/run does not run README's test command");
    let ignored = format!("{plain} -- --ignored");
    assert!(sh.iter().any(|l| l.ends_with(&ignored)), "README does not say how to run the ignored tests");
    assert!(ci_lines.iter().any(|l| l.ends_with(&ignored)), ".ci/run does not run the ignored tests");
}

/// Every `console` block of README.md is a transcript: each `$ driftlint ARGS` line is run from
/// the repository root (the words split at spaces, no shell) and prints exactly the lines that
/// follow it, up to the next `$ ` line.
#[test]
fn console_examples_print_what_readme_shows() {
    let readme = readme();
    let mut ran = 0;
    for (info, body) in code_blocks(&readme) {
        if info != "console" {
            continue;
        }
        let mut runs: Vec<(String, String)> = Vec::new();
        for line in body.lines() {
            match line.strip_prefix("$ ") {
                Some(cmd) => runs.push((cmd.to_string(), String::new())),
                None => {
                    let (_, out) = runs.last_mut().expect("a console block starts with `$ `");
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        for (cmd, expected) in runs {
            let words: Vec<&str> = cmd.split(' ').collect();
            assert_eq!(words[0], "driftlint", "README console command `{cmd}` is not driftlint");
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_driftlint"))
                .args(&words[1..])
                .current_dir(root())
                .env_remove("GITHUB_ACTIONS")
                .env_remove("CLICOLOR_FORCE")
                .output()
                .unwrap();
            let got = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                got,
                expected,
                "README: `$ {cmd}` prints something else (stderr: {})",
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 3, "README's console examples were found ({ran})");
}

/// No tracked file names `github.com/driftlint/…` (an unrelated project owns that name) or
/// any `driftlint/driftlint` action: until this project has a public home of its own, the
/// snippets say `OWNER/driftlint`, and no output links anywhere.
#[test]
fn no_tracked_file_names_a_borrowed_home() {
    let out = git_command(&root()).args(["ls-files", "-z"]).output().unwrap();
    if !out.status.success() {
        eprintln!("SKIPPED: {} is not a git checkout", root().display());
        return;
    }
    let borrowed = ["github.com/driftlint/", "driftlint/driftlint@"];
    let mut found = Vec::new();
    let mut read = 0;
    for name in out.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        // This file names them to look for them.
        if name == "tests/dist/readme.rs" {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root().join(&name)) else { continue };
        read += 1;
        for (i, line) in text.lines().enumerate() {
            if borrowed.iter().any(|b| line.contains(b)) {
                found.push(format!("{name}:{}: {line}", i + 1));
            }
        }
    }
    assert!(read > 100, "the tracked files were read ({read})");
    assert!(found.is_empty(), "tracked files name a repository we do not control:\n{}", found.join("\n"));
}
