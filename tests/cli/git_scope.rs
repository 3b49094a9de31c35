//! `driftlint check --staged / --base / --diff-filter / --new-only` in temporary git
//! repositories built with the `git` CLI: the reference and a few manifests from `fixtures/`.

use std::path::{Path, PathBuf};

use super::{Run, json, root, run_in};

/// A temporary repository: `reference/` (a copy of `fixtures/reference`), `namespace.yaml`,
/// `app/frontend.yaml` and `config/settings.yaml` (clean), committed on `main`.
struct Repo {
    dir: tempfile::TempDir,
}

const CONFIG: &str = "reference: reference\nexclude:\n  - reference/\nrules:\n  unmatched-resource: warning\n";

impl Repo {
    fn new() -> Repo {
        let repo = Repo { dir: tempfile::tempdir().unwrap() };
        repo.git(&["init", "-q", "-b", "main"]);
        let reference = root().join("fixtures/reference");
        for entry in std::fs::read_dir(&reference).unwrap() {
            let entry = entry.unwrap();
            repo.write(&format!("reference/{}", entry.file_name().to_string_lossy()), &read(&entry.path()));
        }
        repo.write(".driftlint.yaml", CONFIG);
        repo.write("namespace.yaml", &read(&root().join("fixtures/clean-repo/namespace.yaml")));
        repo.write("app/frontend.yaml", FRONTEND);
        repo.write("config/settings.yaml", &read(&root().join("fixtures/clean-repo/config/settings.yaml")));
        repo.commit("clean");
        repo
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn git(&self, args: &[&str]) -> String {
        super::git(self.path(), args)
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Replaces `from` by `to` in a file of the work tree (exactly once).
    fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = read(&self.path().join(rel));
        assert_eq!(text.matches(from).count(), 1, "`{from}` in {rel}");
        self.write(rel, &text.replacen(from, to, 1));
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    fn check(&self, args: &[&str]) -> Run {
        let mut all = vec!["check"];
        all.extend_from_slice(args);
        run_in(self.path(), &all, None)
    }
}

/// `fixtures/clean-repo/app/frontend.yaml`: the Deployment's image on line 19, its port on
/// line 21, its memory limit on line 24.
const FRONTEND: &str = include_str!("../../fixtures/clean-repo/app/frontend.yaml");

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `rule file:line` of every reported finding.
fn findings(r: &Run) -> Vec<String> {
    json(r)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{} {}:{}", d["rule"].as_str().unwrap(), d["file"].as_str().unwrap_or(""), d["line"]))
        .collect()
}

#[test]
fn staged_checks_the_index_not_the_work_tree() {
    let repo = Repo::new();
    // settings.yaml: the staged version drifts; the work tree reverts that and adds a key.
    repo.edit("config/settings.yaml", "log-level: info", "log-level: debug");
    repo.git(&["add", "config/settings.yaml"]);
    repo.edit("config/settings.yaml", "log-level: debug", "log-level: info\n  feature: enabled");
    // frontend.yaml: the staged version is clean (replicas is free); the work tree drifts.
    repo.edit("app/frontend.yaml", "replicas: 3", "replicas: 4");
    repo.git(&["add", "app/frontend.yaml"]);
    repo.edit("app/frontend.yaml", "memory: 256Mi", "memory: 512Mi");

    let staged = repo.check(&["--staged", "--format", "json"]);
    assert_eq!(staged.code, 1, "{}", staged.stderr);
    assert_eq!(findings(&staged), ["value-drift config/settings.yaml:7"]);
    let work_tree = repo.check(&["--format", "json"]);
    assert_eq!(work_tree.code, 1, "{}", work_tree.stderr);
    assert_eq!(findings(&work_tree), ["value-drift app/frontend.yaml:24"]);

    // Staging the work tree's settings.yaml fixes the commit; the unstaged drift stays out.
    repo.git(&["add", "config/settings.yaml"]);
    let fixed = repo.check(&["--staged", "--format", "json"]);
    assert_eq!(fixed.code, 0, "{}{}", fixed.stdout, fixed.stderr);
    assert_eq!(findings(&fixed), Vec::<String>::new());
}

#[test]
fn staged_paths_as_given_and_a_repository_without_commits() {
    let dir = tempfile::tempdir().unwrap();
    super::git(dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(dir.path().join("manifests")).unwrap();
    std::fs::write(
        dir.path().join("manifests/settings.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata:\n  log-level: debug\n",
    )
    .unwrap();
    super::git(dir.path(), &["add", "manifests"]);
    let reference = root().join("fixtures/reference");
    let r = run_in(
        dir.path(),
        &["check", "--isolated", "-r", reference.to_str().unwrap(), "manifests", "--staged", "--format", "json"],
        None,
    );
    // Every line is new against the unborn HEAD. The objects the reference misses (namespace,
    // deployment, service) belong to components the ConfigMap does not touch.
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(findings(&r), ["value-drift manifests/settings.yaml:7"]);
    assert!(r.stderr.contains("note: 3 findings outside the change against HEAD not shown"), "{}", r.stderr);
    // A path that is nowhere is a usage error whatever the change, as in an unscoped run.
    let r =
        run_in(dir.path(), &["check", "--isolated", "-r", reference.to_str().unwrap(), "nothere", "--staged"], None);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(r.stderr.contains("input path nothere does not exist in the work tree, the index or HEAD"), "{}", r.stderr);
}

#[test]
fn a_named_path_is_checked_where_it_is_and_a_path_nowhere_is_a_usage_error() {
    let repo = Repo::new();
    let reference = root().join("fixtures/reference");
    let check = |args: &[&str]| {
        let mut all = vec!["check", "--isolated", "-r", reference.to_str().unwrap(), "--format", "json"];
        all.extend_from_slice(args);
        run_in(repo.path(), &all, None)
    };
    // A typo, with either scope: exit 2, no report.
    for scope in [&["--staged"][..], &["--base", "main"]] {
        let mut args = vec!["app/nothere.yaml"];
        args.extend_from_slice(scope);
        let r = check(&args);
        assert_eq!(r.code, 2, "{scope:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        assert!(r.stderr.contains("input path app/nothere.yaml does not exist in the work tree, the index or"));
    }
    // A file the branch removed exists in the base: the head holds nothing there and nothing
    // is an error (the reference's missing objects are outside the change's lines).
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.git(&["rm", "-q", "app/frontend.yaml"]);
    repo.commit("remove the frontend");
    let r = check(&["app/frontend.yaml", "--base", "main"]);
    assert_ne!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("io-error"), "{}", r.stdout);
    // `--isolated` reads the base's configuration no more than the branch's: nothing weakened.
    assert!(!r.stdout.contains("config-weakened"), "{}", r.stdout);
    // Removed from the work tree only, it is still in the index and HEAD.
    repo.git(&["checkout", "-q", "main"]);
    std::fs::remove_file(repo.path().join("app/frontend.yaml")).unwrap();
    let r = check(&["app/frontend.yaml", "--staged"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("io-error"), "{}", r.stdout);
    // A file new in the index is nowhere in HEAD: the base holds nothing there.
    std::fs::write(repo.path().join("app/extra.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n")
        .unwrap();
    repo.git(&["add", "app/extra.yaml"]);
    std::fs::remove_file(repo.path().join("app/extra.yaml")).unwrap();
    let r = check(&["app/extra.yaml", "--staged"]);
    assert_ne!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("io-error"), "{}", r.stdout);
}

#[test]
fn base_diffs_against_the_merge_base_not_the_tip() {
    let repo = Repo::new();
    // Drift that predates the branch, on line 19.
    repo.edit("app/frontend.yaml", "frontend:1.4", "frontend:1.3");
    repo.commit("old drift");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.edit("app/frontend.yaml", "memory: 256Mi", "memory: 512Mi");
    repo.commit("feature: more memory");
    // main moves on after the branch point: it fixes line 19.
    repo.git(&["checkout", "-q", "main"]);
    repo.edit("app/frontend.yaml", "frontend:1.3", "frontend:1.4");
    repo.commit("main: fix the image");
    repo.git(&["checkout", "-q", "feature"]);

    let r = repo.check(&["--base", "main", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // Against main's tip line 19 would look changed; against the merge-base it is not.
    assert_eq!(findings(&r), ["value-drift app/frontend.yaml:24"]);
    assert!(r.stderr.contains("note: 1 finding outside the change against merge-base"), "{}", r.stderr);
    assert!(r.stderr.contains("of main not shown (--diff-filter added;"), "{}", r.stderr);

    let unknown = repo.check(&["--base", "origin/nope"]);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("unknown revision `origin/nope`"), "{}", unknown.stderr);
}

#[test]
fn each_diff_filter_mode() {
    let repo = Repo::new();
    // Drift before the change: line 19 (far from the change), line 21 (in its context), and
    // an unchanged file.
    repo.edit("app/frontend.yaml", "frontend:1.4", "frontend:1.3");
    repo.edit("app/frontend.yaml", "containerPort: 8080", "containerPort: 8081");
    repo.edit("config/settings.yaml", "log-level: info", "log-level: debug");
    repo.commit("old drift");
    // The change (uncommitted: part of it with --base): drift on an added line 24.
    repo.edit("app/frontend.yaml", "memory: 256Mi", "memory: 512Mi");

    let with = |mode: &str| {
        let r = repo.check(&["--base", "HEAD", "--diff-filter", mode, "--format", "json"]);
        assert_eq!(r.code, 1, "{mode}: {}", r.stderr);
        (findings(&r), r.stderr)
    };
    let (added, note) = with("added");
    assert_eq!(added, ["value-drift app/frontend.yaml:24"]);
    assert!(note.contains("note: 3 findings outside the change"), "{note}");
    assert_eq!(with("diff_context").0, ["value-drift app/frontend.yaml:21", "value-drift app/frontend.yaml:24"]);
    assert_eq!(
        with("file").0,
        ["value-drift app/frontend.yaml:19", "value-drift app/frontend.yaml:21", "value-drift app/frontend.yaml:24"]
    );
    let (all, note) = with("nofilter");
    assert_eq!(
        all,
        [
            "value-drift app/frontend.yaml:19",
            "value-drift app/frontend.yaml:21",
            "value-drift app/frontend.yaml:24",
            "value-drift config/settings.yaml:7"
        ]
    );
    assert!(!note.contains("not shown"), "{note}");
    // The Markdown summary and the GitHub annotations say what was left out too.
    let out = tempfile::tempdir().unwrap();
    let annotations = out.path().join("annotations.txt");
    let r = repo.check(&["--base", "HEAD", "--format", &format!("markdown,github={}", annotations.display())]);
    assert!(
        r.stdout.contains("_3 findings outside the change against merge-base ")
            && r.stdout.contains(" of HEAD not shown (--diff-filter added; `--diff-filter nofilter` shows them)._"),
        "{}",
        r.stdout
    );
    let annotations = std::fs::read_to_string(annotations).unwrap();
    assert!(
        annotations.lines().any(|l| l.starts_with("::notice title=driftlint::3 findings outside the change")),
        "{annotations}"
    );
    let r = repo.check(&["--base", "HEAD", "--diff-filter", "nofilter", "--format", "markdown"]);
    assert!(!r.stdout.contains("not shown"), "{}", r.stdout);
    // The default is `added`.
    assert_eq!(findings(&repo.check(&["--base", "HEAD", "--format", "json"])), added);

    // Without the drift on line 24 nothing in the change fails: exit 0 under `added`.
    repo.edit("app/frontend.yaml", "memory: 512Mi", "memory: 256Mi");
    repo.edit("app/frontend.yaml", "replicas: 3", "replicas: 5");
    let r = repo.check(&["--base", "HEAD", "--format", "json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

#[test]
fn missing_resource_is_shown_when_the_change_touches_its_component() {
    let repo = Repo::new();
    repo.git(&["checkout", "-q", "-b", "drop-namespace"]);
    repo.git(&["rm", "-q", "namespace.yaml"]);
    repo.commit("drop the namespace");
    let r = repo.check(&["--base", "main", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(findings(&r), ["missing-resource reference/metadata.yaml:8"]);

    // On a branch where the namespace is long gone, an unrelated change does not show it …
    repo.git(&["checkout", "-q", "-b", "unrelated"]);
    repo.edit("app/frontend.yaml", "replicas: 3", "replicas: 4");
    repo.commit("scale");
    let r = repo.check(&["--base", "drop-namespace", "--format", "json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(findings(&r), Vec::<String>::new());
    assert!(r.stderr.contains("note: 1 finding outside the change"), "{}", r.stderr);
    // … nor does editing the ConfigMap, another component; a change of the reference does.
    repo.edit("config/settings.yaml", "log-level: info", "log-level: info\n  feature: enabled");
    assert_eq!(repo.check(&["--base", "drop-namespace", "--format", "json"]).code, 0);
    repo.edit("reference/metadata.yaml", "The web application", "The web app");
    let r = repo.check(&["--base", "drop-namespace", "--format", "json"]);
    assert_eq!(findings(&r), ["missing-resource reference/metadata.yaml:8"]);
}

#[test]
fn new_only_hides_drift_that_was_already_there() {
    let repo = Repo::new();
    repo.edit("app/frontend.yaml", "frontend:1.4", "frontend:1.3");
    repo.edit("config/settings.yaml", "log-level: info", "log-level: debug");
    repo.commit("old drift");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    // New drift, old drift edited on its line, old drift moved down by two lines.
    repo.edit("app/frontend.yaml", "memory: 256Mi", "memory: 512Mi");
    repo.edit("config/settings.yaml", "log-level: debug", "log-level: trace");
    repo.edit("app/frontend.yaml", "# The web", "# Owned by the web team.\n#\n# The web");
    repo.commit("feature");

    let r = repo.check(&["--base", "main", "--format", "json"]);
    assert_eq!(findings(&r), ["value-drift app/frontend.yaml:26", "value-drift config/settings.yaml:7"]);
    let r = repo.check(&["--base", "main", "--new-only", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(findings(&r), ["value-drift app/frontend.yaml:26"]);
    assert!(r.stderr.contains("note: 2 findings already present at merge-base"), "{}", r.stderr);
    let r = repo.check(&["--base", "main", "--new-only", "--diff-filter", "nofilter", "--format", "json"]);
    assert_eq!(findings(&r), ["value-drift app/frontend.yaml:26"]);
    assert!(r.stderr.contains("note: 2 findings already present"), "{}", r.stderr);

    // A renamed file keeps its old drift old.
    repo.git(&["mv", "config/settings.yaml", "config/app-settings.yaml"]);
    let r = repo.check(&["--staged", "--new-only", "--diff-filter", "file", "--format", "json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let r = repo.check(&["--staged", "--diff-filter", "file", "--format", "json"]);
    assert_eq!(findings(&r), ["value-drift config/app-settings.yaml:7"]);
    // With --staged the base is HEAD: nothing staged is new.
    repo.git(&["mv", "config/app-settings.yaml", "config/settings.yaml"]);
    let r = repo.check(&["--staged", "--new-only", "--diff-filter", "nofilter", "--format", "json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

#[test]
fn shallow_clone_says_how_to_fetch_history() {
    let origin = Repo::new();
    origin.git(&["checkout", "-q", "-b", "feature"]);
    origin.edit("app/frontend.yaml", "memory: 256Mi", "memory: 512Mi");
    origin.commit("feature");
    origin.git(&["checkout", "-q", "main"]);
    origin.edit("app/frontend.yaml", "replicas: 3", "replicas: 4");
    origin.commit("main moves on");

    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", origin.path().display());
    super::git(dir.path(), &["clone", "-q", "--depth", "1", "--branch", "feature", &url, "clone"]);
    let clone = dir.path().join("clone");
    let expect_shallow_error = |r: &Run| {
        assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("cannot find the merge-base of origin/main and HEAD: the clone is shallow"),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("fetch-depth: 0"), "{}", r.stderr);
    };
    // The base branch was not fetched at all (actions/checkout's default).
    expect_shallow_error(&run_in(&clone, &["check", "--base", "origin/main"], None));
    // Fetched, but without the history down to the merge-base.
    super::git(&clone, &["fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main"]);
    expect_shallow_error(&run_in(&clone, &["check", "--base", "origin/main"], None));
    // With the history, it works.
    super::git(&clone, &["fetch", "-q", "--unshallow", "origin", "main:refs/remotes/origin/main"]);
    let r = run_in(&clone, &["check", "--base", "origin/main", "--format", "json"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(findings(&r), ["value-drift app/frontend.yaml:24"]);
}

#[test]
fn scope_usage_errors_exit_2() {
    let repo = Repo::new();
    let usage = |args: &[&str], says: &str| {
        let r = repo.check(args);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
    };
    usage(&["--staged", "--base", "main"], "cannot be used with");
    usage(&["--diff-filter", "file"], "--staged");
    usage(&["--new-only"], "--staged");
    usage(&["--staged", "--diff-filter", "lines"], "invalid value 'lines'");
    usage(&["--staged", "-"], "standard input (`-`) has no git state");

    let outside = tempfile::tempdir().unwrap();
    let reference = root().join("fixtures/reference");
    let r = run_in(
        outside.path(),
        &["check", "--isolated", "-r", reference.to_str().unwrap(), "--staged", PathBuf::from(".").to_str().unwrap()],
        None,
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("is not in a git repository (--staged and --base need one)"), "{}", r.stderr);
}

#[test]
fn a_crlf_checkout_of_lf_files_changes_no_line() {
    let repo = Repo::new();
    repo.edit("app/frontend.yaml", "frontend:1.4", "frontend:1.3");
    repo.commit("old drift on line 19");
    // The work tree as a `core.autocrlf` checkout writes it, plus one real edit on line 24.
    repo.edit("app/frontend.yaml", "memory: 256Mi", "memory: 512Mi");
    let text = read(&repo.path().join("app/frontend.yaml"));
    repo.write("app/frontend.yaml", &text.replace('\n', "\r\n"));
    let r = repo.check(&["--base", "HEAD", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(findings(&r), ["value-drift app/frontend.yaml:24"]);
    assert!(r.stderr.contains("note: 1 finding outside the change"), "{}", r.stderr);
}

#[test]
fn a_staged_blob_over_the_size_limit_is_refused_unread() {
    let repo = Repo::new();
    // A sparse work-tree file one byte over 64 MiB, staged: git stores it compressed; the
    // check reads the blob's size from its header and refuses it without inflating it.
    std::fs::File::create(repo.path().join("big.yaml")).unwrap().set_len((64 << 20) + 1).unwrap();
    repo.git(&["add", "big.yaml"]);
    let r = repo.check(&["--staged", "big.yaml"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("cannot read big.yaml from git: larger than the limit of 64 MiB (67108864 bytes)"),
        "{}",
        r.stdout
    );
}
