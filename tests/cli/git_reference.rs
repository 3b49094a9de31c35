//! References read from git (`git:REV:PATH`, `git+file:///repo@REV:PATH`) and pinned in
//! `driftlint.lock`: fixtures are temporary repositories built with the `git` CLI, and
//! driftlint runs in them as a user would.

use std::path::{Path, PathBuf};

use super::{Run, json, run_in};

const METADATA: &str = "apiVersion: v2\nparts:\n  - name: app\n    components:\n      - name: settings\n        allOf:\n          - path: cm.yaml\n";

fn template(level: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata:\n  level: {level}\n")
}

fn manifest(level: &str) -> String {
    template(level)
}

/// `git ARGS` in `dir`, its output without the final newline.
fn git(dir: &Path, args: &[&str]) -> String {
    super::git(dir, args).trim().to_owned()
}

use super::write_files as write;

fn commit(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// A repository whose `reference/` expects `level: info` at tag `v1` (returned: the commit).
fn repository() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    write(
        dir.path(),
        &[
            ("reference/metadata.yaml", METADATA),
            ("reference/cm.yaml", &template("info")),
            ("manifests/cm.yaml", &manifest("info")),
        ],
    );
    let v1 = commit(dir.path(), "reference v1");
    git(dir.path(), &["tag", "v1"]);
    (dir, v1)
}

fn check(dir: &Path, reference: &str, extra: &[&str]) -> Run {
    let mut args = vec!["check", "--isolated", "-r", reference, "manifests"];
    args.extend_from_slice(extra);
    run_in(dir, &args, None)
}

/// (rule, file:line) of every diagnostic of a JSON run.
fn findings(r: &Run) -> Vec<(String, String)> {
    json(r)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["rule"].as_str().unwrap().to_owned(), format!("{}:{}", d["file"].as_str().unwrap(), d["line"])))
        .collect()
}

#[test]
fn at_a_tag_the_pinned_content_wins_over_the_work_tree() {
    let (dir, _) = repository();
    let d = dir.path();
    // The work tree's reference now says `debug`: only the directory reference sees it.
    write(d, &[("reference/cm.yaml", &template("debug"))]);
    let r = check(d, "git:v1:reference", &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(check(d, "reference", &[]).code, 1);
    assert_eq!(check(d, "git:refs/tags/v1:reference/metadata.yaml", &[]).code, 0);

    // Drift against the pinned template: the secondary label names the git location and
    // shows the blob's line, not the work tree's.
    write(d, &[("manifests/cm.yaml", &manifest("warn"))]);
    let r = check(d, "git:v1:reference", &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("::: git:v1:reference/cm.yaml:7:3"), "{}", r.stdout);
    assert!(r.stdout.contains("7 |   level: info"), "{}", r.stdout);
    assert!(!r.stdout.contains("level: debug"), "{}", r.stdout);

    // A required template with no object points at its entry in the pinned metadata.yaml.
    std::fs::remove_file(d.join("manifests/cm.yaml")).unwrap();
    write(d, &[("manifests/other.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n")]);
    let r = check(d, "git:v1:reference", &["--format", "json"]);
    assert!(
        findings(&r).contains(&("missing-resource".into(), "git:v1:reference/metadata.yaml:7".into())),
        "{}",
        r.stdout
    );
}

#[test]
fn at_a_commit_full_short_and_relative() {
    let (dir, v1) = repository();
    let d = dir.path();
    write(d, &[("reference/cm.yaml", &template("debug"))]);
    commit(d, "reference v2");
    assert_eq!(check(d, "git:HEAD:reference", &[]).code, 1);
    for rev in [v1.as_str(), &v1[..10], "HEAD~1", "main~1"] {
        let r = check(d, &format!("git:{rev}:reference"), &[]);
        assert_eq!(r.code, 0, "{rev}: {}{}", r.stdout, r.stderr);
    }
}

#[test]
fn another_repository_through_git_file() {
    let (refs, _) = repository();
    // The checked directory is not a repository at all.
    let work = tempfile::tempdir().unwrap();
    write(work.path(), &[("manifests/cm.yaml", &manifest("info"))]);
    let location = format!("git+file://{}@v1:reference", refs.path().display());
    let r = check(work.path(), &location, &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    write(work.path(), &[("manifests/cm.yaml", &manifest("warn"))]);
    let r = check(work.path(), &location, &[]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains(&format!("{}/cm.yaml:7:3", location)), "{}", r.stdout);
    // `compare` accepts git locations too (an extension of kube-compare's -r).
    let meta = format!("git+file://{}@v1:reference/metadata.yaml", refs.path().display());
    let r = run_in(work.path(), &["compare", "-r", &meta, "-f", "manifests"], None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("-  level: info\n+  level: warn"), "{}", r.stdout);
}

#[test]
fn bad_locations_are_clear_errors() {
    let (dir, _) = repository();
    let d = dir.path();
    let cases = [
        ("git:v9:reference", "cannot resolve revision `v9` in"),
        ("git:v1:nowhere", "path `nowhere` does not exist at revision `v1`"),
        ("git:v1:manifests", "path `manifests/metadata.yaml` does not exist at revision `v1`"),
        ("git:v1", "missing `:PATH` after the revision `v1`"),
        ("git+file:///nonexistent/repo@v1:reference", "/nonexistent/repo is not in a git repository"),
    ];
    for (location, message) in cases {
        let r = check(d, location, &[]);
        assert_eq!(r.code, 2, "{location}: {}", r.stdout);
        assert!(r.stderr.contains(message), "{location}: {}", r.stderr);
    }
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), &[("manifests/cm.yaml", &manifest("info"))]);
    let r = check(outside.path(), "git:v1:reference", &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("is not in a git repository"), "{}", r.stderr);
}

#[test]
fn symlinks_in_the_tree_stay_inside_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q"]);
    let meta = METADATA.replace("cm.yaml", "link.yaml") + "          - path: out.yaml\n";
    write(d, &[("reference/metadata.yaml", &meta), ("reference/real.yaml", &template("info"))]);
    write(d, &[("secret.yaml", &template("stolen")), ("manifests/cm.yaml", &manifest("info"))]);
    std::os::unix::fs::symlink("real.yaml", d.join("reference/link.yaml")).unwrap();
    std::os::unix::fs::symlink("../secret.yaml", d.join("reference/out.yaml")).unwrap();
    commit(d, "links");
    let r = check(d, "git:HEAD:reference", &["--format", "json"]);
    let v = json(&r);
    let diags = v["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{}", r.stdout);
    assert_eq!(diags[0]["rule"], "invalid-reference");
    assert_eq!(diags[0]["file"], "git:HEAD:reference/metadata.yaml");
    let message = diags[0]["message"].as_str().unwrap();
    assert!(message.contains("template: out.yaml") && message.contains("pattern matches no files"), "{message}");
}

fn config_repo() -> (tempfile::TempDir, PathBuf) {
    let (dir, _) = repository();
    write(dir.path(), &[(".driftlint.yaml", "reference: git:v1:reference\n")]);
    let lock = dir.path().join("driftlint.lock");
    (dir, lock)
}

#[test]
fn pin_writes_the_lock_and_check_verifies_it() {
    let (dir, lock) = config_repo();
    let d = dir.path();
    let v1 = git(d, &["rev-parse", "v1"]);
    let r = run_in(d, &["reference", "pin"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(&lock).unwrap();
    assert!(text.contains(&format!("version: 2\nsource: git:v1:reference\ncommit: {v1}\nmetadata-hash: ")), "{text}");
    assert!(text.contains("\nfiles-hash: "), "{text}");
    // Pinning twice gives the same file.
    run_in(d, &["reference", "pin"], None);
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), text);
    assert_eq!(run_in(d, &["check", "manifests"], None).code, 0);
    assert_eq!(run_in(d, &["reference", "verify"], None).code, 0);

    // The tag moves to a commit with another reference: the same name, another content.
    write(d, &[("reference/cm.yaml", &template("info\n  extra: x"))]);
    commit(d, "reference v1, rewritten");
    git(d, &["tag", "-f", "v1"]);
    let r = run_in(d, &["check", "manifests", "--format", "json"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(findings(&r).contains(&("reference-changed".into(), "driftlint.lock:5".into())), "{}", r.stdout);
    let r = run_in(d, &["check", "manifests"], None);
    assert!(r.stdout.contains("error[reference-changed]: reference `git:v1:reference` now resolves to commit"));
    assert!(r.stdout.contains("run `driftlint reference pin`"), "{}", r.stdout);
    let r = run_in(d, &["reference", "verify"], None);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("--> driftlint.lock:5:9"), "{}", r.stdout);

    // Re-pinning accepts the new reference.
    assert_eq!(run_in(d, &["reference", "pin"], None).code, 0);
    let r = run_in(d, &["check", "manifests", "--format", "json"], None);
    assert!(!findings(&r).iter().any(|(rule, _)| rule == "reference-changed"), "{}", r.stdout);

    // A lock for another reference than the configured one.
    write(d, &[(".driftlint.yaml", "reference: git:main:reference\n")]);
    let r = run_in(d, &["check", "manifests", "--format", "json"], None);
    assert!(findings(&r).contains(&("reference-changed".into(), "driftlint.lock:4".into())), "{}", r.stdout);
    // `--isolated` ignores the lock with every other configuration file.
    let r = run_in(d, &["check", "--isolated", "-r", "git:v1:reference", "manifests", "--format", "json"], None);
    assert_eq!(findings(&r), [("missing-field".to_owned(), "manifests/cm.yaml:6".to_owned())]);
}

#[test]
fn a_directory_lock_compares_the_metadata_hash() {
    let (dir, _) = repository();
    let d = dir.path();
    write(d, &[(".driftlint.yaml", "reference: reference\n")]);
    let r = run_in(d, &["reference", "pin"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(d.join("driftlint.lock")).unwrap();
    assert!(text.contains("source: reference/metadata.yaml\nmetadata-hash: "), "{text}");
    assert!(!text.contains("commit:"));
    assert_eq!(run_in(d, &["check", "manifests"], None).code, 0);
    // `--reference` from another directory names the same reference: no finding.
    let r = run_in(&d.join("manifests"), &["reference", "verify", "-r", "../reference"], None);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    write(d, &[("reference/cm.yaml", &template("info\n  extra: x"))]);
    let r = run_in(d, &["check", "manifests", "--format", "json"], None);
    assert!(findings(&r).contains(&("reference-changed".into(), "driftlint.lock:5".into())), "{}", r.stdout);
    assert!(r.stdout.contains("its metadata hash is now"), "{}", r.stdout);
}

#[test]
fn diff_config_and_overrides_may_be_git_locations() {
    let (dir, _) = repository();
    let d = dir.path();
    let overrides = "- apiVersion: v1\n  kind: ConfigMap\n  name: settings\n  namespace: web\n  type: mergepatch\n  patch: '{\"data\":{\"level\":\"warn\"}}'\n  reason: warn is fine here\n  templatePath: cm.yaml\n";
    write(d, &[("overrides.yaml", overrides)]);
    commit(d, "overrides");
    std::fs::remove_file(d.join("overrides.yaml")).unwrap();
    write(d, &[("manifests/cm.yaml", &manifest("warn"))]);
    assert_eq!(check(d, "git:v1:reference", &[]).code, 1);
    let r = check(d, "git:v1:reference", &["--overrides", "git:HEAD:overrides.yaml"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let r = check(d, "git:v1:reference", &["--overrides", "git:v1:overrides.yaml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("path `overrides.yaml` does not exist at revision `v1`"), "{}", r.stderr);

    // `driftlint compare -p` (and `-c`) take git locations too, like its `-r`.
    let compare = |extra: &[&str]| {
        let mut args = vec!["compare", "-r", "git:v1:reference", "-f", "manifests/cm.yaml", "-o", "json"];
        args.extend_from_slice(extra);
        run_in(d, &args, None)
    };
    assert_eq!(json(&compare(&[]))["Summary"]["NumDiffCRs"], 1);
    let r = compare(&["-p", "git:HEAD:overrides.yaml"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(json(&r)["Summary"]["patchedCRs"], 1);
    let r = compare(&["-p", "git:v1:overrides.yaml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("path `overrides.yaml` does not exist at revision `v1`"), "{}", r.stderr);
    let config =
        "correlationSettings:\n  manualCorrelation:\n    correlationPairs:\n      v1_ConfigMap_web_settings: cm.yaml\n";
    write(d, &[("diff-config.yaml", config)]);
    commit(d, "diff config");
    std::fs::remove_file(d.join("diff-config.yaml")).unwrap();
    let r = compare(&["-c", "git:HEAD:diff-config.yaml"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(json(&r)["Diffs"][0]["CorrelatedTemplate"], "cm.yaml");
    assert_eq!(compare(&["-c", "git:v1:diff-config.yaml"]).code, 2);
}

#[test]
fn sarif_and_annotations_point_at_the_work_tree_copy_of_pinned_files() {
    let (dir, v1) = repository();
    let d = dir.path();
    write(d, &[("manifests/cm.yaml", &manifest("warn"))]);
    let r = check(d, "git:v1:reference", &["--format", "sarif"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let sarif = json(&r);
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "manifests/cm.yaml");
    // The template's line: a repository path GitHub can show, not `git%3Av1%3A…`.
    let related = &result["relatedLocations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(related["uri"], "reference/cm.yaml", "{related}");
    assert_eq!(related["uriBaseId"], "%SRCROOT%");
    assert!(related["description"]["text"].as_str().unwrap().contains(&v1), "{related}");
    assert!(!r.stdout.contains("git%3A"), "{}", r.stdout);

    // A finding whose primary location is the pinned metadata.yaml.
    std::fs::remove_file(d.join("manifests/cm.yaml")).unwrap();
    write(d, &[("manifests/other.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n")]);
    let r = check(d, "git:v1:reference", &["--format", "sarif"]);
    let results = json(&r)["runs"][0]["results"].as_array().unwrap().clone();
    let missing = results.iter().find(|x| x["ruleId"] == "missing-resource").expect("missing-resource");
    let at = &missing["locations"][0]["physicalLocation"];
    assert_eq!(at["artifactLocation"]["uri"], "reference/metadata.yaml");
    assert_eq!(at["region"]["startLine"], 7);
    let r = check(d, "git:v1:reference", &["--format", "github"]);
    assert!(r.stdout.contains("file=reference/metadata.yaml,line=7"), "{}", r.stdout);
    // The human report keeps the pinned name: its lines are the pinned blob's.
    let r = check(d, "git:v1:reference", &[]);
    assert!(r.stdout.contains("git:v1:reference/metadata.yaml:7"), "{}", r.stdout);
}

/// A reference with a template function file, in a directory of the repository: `(dir)`.
fn function_file_repository(level: &str) -> tempfile::TempDir {
    let (dir, _) = repository();
    let d = dir.path();
    let metadata = format!("{METADATA}templateFunctionFiles:\n  - funcs.tmpl\n");
    write(
        d,
        &[
            (".driftlint.yaml", "reference: reference\nrequire-lock: true\n"),
            ("reference/metadata.yaml", &metadata),
            ("reference/funcs.tmpl", &format!("{{{{- define \"level\" -}}}}{level}{{{{- end -}}}}\n")),
            ("reference/cm.yaml", &template("{{ template \"level\" }}")),
            ("manifests/cm.yaml", &manifest("info")),
        ],
    );
    dir
}

#[test]
fn the_lock_covers_function_files() {
    let dir = function_file_repository("info");
    let d = dir.path();
    // `require-lock: true` and no lock: a finding at that line.
    let r = run_in(d, &["check", "manifests", "--format", "json"], None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(findings(&r), [("reference-changed".to_owned(), ".driftlint.yaml:2".to_owned())], "{}", r.stdout);
    assert!(r.stdout.contains("driftlint.lock is missing, but the configuration requires one"), "{}", r.stdout);

    assert_eq!(run_in(d, &["reference", "pin"], None).code, 0);
    assert_eq!(run_in(d, &["check", "manifests"], None).code, 0);
    // Only the function file changes: the metadata hash is the same, the lock notices anyway.
    write(d, &[("reference/funcs.tmpl", "{{- define \"level\" -}}debug{{- end -}}\n")]);
    let r = run_in(d, &["reference", "verify"], None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("a file it reads (a template or a function file) differs"), "{}", r.stdout);
    let r = run_in(d, &["check", "manifests", "--format", "json"], None);
    assert!(findings(&r).contains(&("reference-changed".into(), "driftlint.lock:6".into())), "{}", r.stdout);
}

#[test]
fn a_pull_request_that_weakens_the_configuration_is_pointed_at() {
    let dir = function_file_repository("info");
    let d = dir.path();
    assert_eq!(run_in(d, &["reference", "pin"], None).code, 0);
    write(d, &[(".driftlint.yaml", "reference: reference\nrequire-lock: true\nrules:\n  value-drift: error\n")]);
    let base = commit(d, "configuration and lock");
    // The pull request: drift, and a configuration that hides it, and no lock.
    write(d, &[("manifests/cm.yaml", &manifest("debug"))]);
    write(
        d,
        &[(".driftlint.yaml", "reference: reference\nrules:\n  value-drift: off\nexclude:\n  - manifests/secret/**\n")],
    );
    std::fs::remove_file(d.join("driftlint.lock")).unwrap();
    let r = run_in(d, &["check", "--base", &base, "--format", "json"], None);
    let found = findings(&r);
    for want in [".driftlint.yaml:3", ".driftlint.yaml:5", ".driftlint.yaml:null", "driftlint.lock:null"] {
        assert!(found.contains(&("config-weakened".to_owned(), want.to_owned())), "{want}: {}", r.stdout);
    }
    // The default level is error: a weakening fails the run until it is reviewed.
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let r = run_in(d, &["check", "--base", &base, "--format", "concise"], None);
    assert!(
        r.stdout.contains(".driftlint.yaml:3:3: error[config-weakened]: rule `value-drift` turned off"),
        "{}",
        r.stdout
    );

    // The level comes from the base: a pull request cannot lower it.
    write(d, &[(".driftlint.yaml", "reference: reference\nrules:\n  value-drift: error\n  config-weakened: error\n")]);
    git(d, &["checkout", "-q", "--", "driftlint.lock"]);
    let base = commit(d, "weakening blocks");
    write(d, &[(".driftlint.yaml", "reference: reference\nrules:\n  value-drift: off\n  config-weakened: off\n")]);
    let r = run_in(d, &["check", "--base", &base, "--format", "json"], None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let found = findings(&r);
    assert!(found.contains(&("config-weakened".to_owned(), ".driftlint.yaml:3".to_owned())), "{}", r.stdout);
    assert!(found.contains(&("config-weakened".to_owned(), ".driftlint.yaml:4".to_owned())), "{}", r.stdout);
}
