//! Hostile pull requests against a scoped check (`--base`, `--staged`), issue 22 H1 and H9: a
//! change must not hide the findings it causes by placing them on lines it did not touch, and
//! must not weaken the check through configuration or layout without a `config-weakened`
//! finding. Each case exited 0 before the fix.

use std::path::Path;

use super::{Run, json, run_in};

/// A temporary repository committed on `main`, with a feature branch checked out.
struct Repo {
    dir: tempfile::TempDir,
}

/// A Deployment: `kind:` on line 2, `replicas` on line 6, `selector:` on lines 7–9.
const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: registry.example.com/web:1.0
";

const POLICY: &str = "package main

import rego.v1

deny contains msg if {
  input.kind == \"Deployment\"
  input.spec.replicas < 2
  msg := sprintf(\"%s has fewer than 2 replicas\", [input.metadata.name])
}
";

impl Repo {
    /// `files` committed on `main`, then a `feature` branch.
    fn new(files: &[(&str, &str)]) -> Repo {
        let repo = Repo { dir: tempfile::tempdir().unwrap() };
        repo.git(&["init", "-q", "-b", "main"]);
        for (path, text) in files {
            repo.write(path, text);
        }
        repo.commit("base");
        repo.git(&["checkout", "-q", "-b", "feature"]);
        repo
    }

    /// A repository with a policy and a Deployment, checked by the schema and policy passes.
    fn with_policy() -> Repo {
        Repo::new(&[
            (".driftlint.yaml", "policies: [policy]\n"),
            ("policy/main.rego", POLICY),
            ("app/web.yaml", DEPLOYMENT),
        ])
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

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).unwrap()
    }

    fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = self.read(rel);
        assert_eq!(text.matches(from).count(), 1, "`{from}` in {rel}");
        self.write(rel, &text.replacen(from, to, 1));
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    fn check(&self, args: &[&str]) -> Run {
        let mut all = vec!["check", "--format", "json"];
        all.extend_from_slice(args);
        run_in(self.path(), &all, None)
    }
}

/// `rule file:line` of every reported finding.
fn findings(r: &Run) -> Vec<String> {
    json(r)["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{}{}", r.stdout, r.stderr))
        .iter()
        .map(|d| format!("{} {}:{}", d["rule"].as_str().unwrap(), d["file"].as_str().unwrap_or(""), d["line"]))
        .collect()
}

/// The messages of the `config-weakened` findings, as `file:line message`.
fn weakened(r: &Run) -> Vec<String> {
    json(r)["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{}{}", r.stdout, r.stderr))
        .iter()
        .filter(|d| d["rule"] == "config-weakened")
        .map(|d| format!("{}:{} {}", d["file"].as_str().unwrap_or(""), d["line"], d["message"].as_str().unwrap()))
        .collect()
}

fn has(found: &[String], want: &str) -> bool {
    found.iter().any(|f| f.contains(want))
}

// ---- H1: findings the change causes, wherever their line is ----------------------------------

#[test]
fn a_policy_deny_on_the_kind_line_caused_by_another_line() {
    let repo = Repo::with_policy();
    repo.edit("app/web.yaml", "replicas: 3", "replicas: 1");
    repo.commit("scale down");
    for filter in ["added", "diff_context", "file"] {
        let r = repo.check(&["--base", "main", "--diff-filter", filter]);
        assert_eq!(r.code, 1, "{filter}: {}{}", r.stdout, r.stderr);
        assert_eq!(findings(&r), ["policy-deny app/web.yaml:2"], "{filter}");
    }
    let r = repo.check(&["--base", "main", "--new-only"]);
    assert_eq!((r.code, findings(&r)), (1, vec!["policy-deny app/web.yaml:2".to_string()]), "{}", r.stderr);
    // Staged the same way.
    repo.git(&["reset", "-q", "--soft", "main"]);
    let r = repo.check(&["--staged"]);
    assert_eq!((r.code, findings(&r)), (1, vec!["policy-deny app/web.yaml:2".to_string()]), "{}", r.stderr);
}

#[test]
fn an_old_finding_off_the_changed_lines_stays_hidden() {
    // The deny predates the change: an unrelated edit does not show it (and says so).
    let repo = Repo::with_policy();
    repo.git(&["checkout", "-q", "main"]);
    repo.edit("app/web.yaml", "replicas: 3", "replicas: 1");
    repo.commit("old deny");
    repo.git(&["checkout", "-q", "-B", "feature"]);
    repo.edit("app/web.yaml", "web:1.0", "web:1.1");
    repo.commit("new image");
    let r = repo.check(&["--base", "main"]);
    assert_eq!((r.code, findings(&r)), (0, Vec::new()), "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("1 finding outside the change"), "{}", r.stderr);
}

#[test]
fn a_required_field_deleted_is_a_new_finding_on_an_unchanged_line() {
    let repo = Repo::new(&[
        (".driftlint.yaml", "schemas: [crds]\n"),
        (
            "crds/widget.yaml",
            driftlint_test_support::fixtures::widget_crd_requiring(
                "[size]",
                "                size: {type: integer}\n                color: {type: string}\n",
            )
            .as_str(),
        ),
        (
            "app/widget.yaml",
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n  color: red\n",
        ),
    ]);
    repo.edit("app/widget.yaml", "  size: 3\n", "");
    repo.commit("drop the size");
    let r = repo.check(&["--base", "main"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(findings(&r), ["schema-required-missing app/widget.yaml:5"]);
}

#[test]
fn an_api_version_change_shows_what_it_causes_on_the_kind_line() {
    let repo = Repo::new(&[(".driftlint.yaml", "schema-mode: strict\n"), ("app/web.yaml", DEPLOYMENT)]);
    repo.edit("app/web.yaml", "apiVersion: apps/v1", "apiVersion: example.com/v1");
    repo.commit("another group");
    let r = repo.check(&["--base", "main"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(findings(&r), ["schema-not-found app/web.yaml:2"]);
}

#[test]
fn a_reference_change_shows_drift_on_untouched_lines() {
    let repo = Repo::new(&[
        (".driftlint.yaml", "reference: reference\nexclude: [reference/]\nrules: {unmatched-resource: off}\n"),
        ("app/web.yaml", DEPLOYMENT),
    ]);
    // The reference comes with the change: in the base, there was none.
    repo.git(&["checkout", "-q", "main"]);
    repo.write(
        "reference/metadata.yaml",
        "apiVersion: v2\nparts:\n  - name: web\n    components:\n      - name: web\n        allOf:\n          - path: deployment.yaml\n",
    );
    repo.write(
        "reference/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: registry.example.com/web:1.0\n",
    );
    repo.commit("reference");
    repo.git(&["checkout", "-q", "-B", "feature"]);
    repo.edit("reference/deployment.yaml", "web:1.0", "web:2.0");
    repo.commit("expect another image");
    let r = repo.check(&["--base", "main"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(has(&findings(&r), "value-drift app/web.yaml:17"), "{:?}", findings(&r));
}

#[test]
fn a_policy_that_now_errors_is_shown() {
    let repo = Repo::with_policy();
    repo.edit(
        "policy/main.rego",
        "package main\n",
        "package main\n\ndeny contains msg if {\n  msg := undefined_fn(input)\n}\n",
    );
    repo.commit("broken policy");
    let r = repo.check(&["--base", "main"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let found = findings(&r);
    assert!(found.iter().any(|f| f.starts_with("policy-error policy/main.rego")), "{found:?}");
}

// ---- H9: configuration and layout changes that weaken checking -------------------------------

#[test]
fn weakenings_are_errors_by_default() {
    let repo = Repo::with_policy();
    repo.write(".driftlint.yaml", "policies: [policy]\nrules:\n  policy-deny: off\n");
    repo.commit("silence");
    let r = repo.check(&["--base", "main"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(has(&weakened(&r), ".driftlint.yaml:3 rule `policy-deny` turned off"), "{:?}", weakened(&r));
    // A reviewed base can lower the rule; the change cannot.
    let repo = Repo::new(&[(".driftlint.yaml", "rules: {config-weakened: warning}\n"), ("app/web.yaml", DEPLOYMENT)]);
    repo.write(".driftlint.yaml", "rules: {config-weakened: warning, schema-unknown-field: off}\n");
    repo.commit("lower");
    assert_eq!(repo.check(&["--base", "main"]).code, 0);
}

#[test]
fn a_new_configuration_file_in_a_subdirectory_is_compared_with_the_one_it_replaces() {
    let repo = Repo::with_policy();
    repo.write("app/.driftlint.yaml", "rules: {schema-unknown-field: off}\n");
    repo.commit("sub config");
    // Run from the subdirectory, its file is the configuration in effect…
    let r = run_in(&repo.path().join("app"), &["check", "--format", "json", "--base", "main"], None);
    let found = weakened(&r);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(has(&found, "`policies` no longer lists `policy`"), "{found:?}");
    assert!(has(&found, "rule `schema-unknown-field` turned off"), "{found:?}");
    // … and from the root it is listed as well.
    let r = repo.check(&["--base", "main"]);
    assert!(has(&weakened(&r), "app/.driftlint.yaml:1 rule `schema-unknown-field` turned off"), "{:?}", weakened(&r));
}

#[test]
fn reference_removed_combine_and_namespaces_changed_data_added() {
    let repo = Repo::new(&[
        (
            ".driftlint.yaml",
            "reference: reference\npolicies: [policy]\npolicy-namespaces: [main, extra]\npolicy-data: [data]\n",
        ),
        ("policy/main.rego", POLICY),
        ("data/ok.yaml", "limits: {replicas: 2}\n"),
        ("reference/metadata.yaml", "apiVersion: v2\nparts: []\n"),
        ("app/web.yaml", DEPLOYMENT),
    ]);
    repo.write(
        ".driftlint.yaml",
        "policies: [policy]\npolicy-namespaces: [main]\npolicy-combine: true\npolicy-data: [data, more.yaml]\n",
    );
    repo.write("data/override.yaml", "main: {deny: []}\n");
    repo.write("more.yaml", "x: 1\n");
    repo.commit("weaken");
    let r = repo.check(&["--base", "main"]);
    let found = weakened(&r);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(has(&found, "`reference` removed (it was `reference`)"), "{found:?}");
    assert!(has(&found, ".driftlint.yaml:2 `policy-namespaces` no longer lists `extra`"), "{found:?}");
    assert!(has(&found, ".driftlint.yaml:3 `policy-combine` changed"), "{found:?}");
    assert!(has(&found, ".driftlint.yaml:4 `policy-data` adds `more.yaml`"), "{found:?}");
    assert!(has(&found, "data/override.yaml:null policy data file data/override.yaml added"), "{found:?}");
}

#[test]
fn a_repinned_or_deleted_lock_is_reported() {
    let repo = Repo::new(&[("driftlint.lock", "version = 2\n"), ("app/web.yaml", DEPLOYMENT)]);
    repo.write("driftlint.lock", "version = 2\n# another pin\n");
    repo.commit("repin");
    assert!(has(&weakened(&repo.check(&["--base", "main"])), "driftlint.lock re-pinned"));
    repo.git(&["rm", "-q", "driftlint.lock"]);
    repo.commit("unpin");
    assert!(has(&weakened(&repo.check(&["--base", "main"])), "driftlint.lock deleted"));
}

#[test]
fn files_the_change_stops_checking_are_listed() {
    let repo = Repo::new(&[
        (".driftlint.yaml", "rules: {schema-not-found: off}\n"),
        ("app/web.yaml", DEPLOYMENT),
        ("app/hidden.yaml", &DEPLOYMENT.replace("name: web\n", "name: hidden\n")),
        ("app/moved.yaml", &DEPLOYMENT.replace("name: web\n", "name: moved\n")),
        ("app/excluded.yaml", &DEPLOYMENT.replace("name: web\n", "name: excluded\n")),
    ]);
    // An ignore file hides a manifest (and a new one the change adds with it), one moves into a
    // dot-directory (and is edited on the way), one is excluded.
    repo.write(".gitignore", "hidden.yaml\nsneaky.yaml\n");
    repo.write("app/sneaky.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: 7}\n");
    repo.git(&["add", "-f", "app/sneaky.yaml"]);
    repo.git(&["mv", "app/moved.yaml", "app/.stash.yaml"]);
    std::fs::create_dir_all(repo.path().join(".old")).unwrap();
    repo.git(&["mv", "app/.stash.yaml", ".old/moved.yaml"]);
    repo.edit(".old/moved.yaml", "replicas: 3", "replicas: 0");
    repo.write(".driftlint.yaml", "rules: {schema-not-found: off}\nexclude: [app/excluded.yaml]\n");
    repo.commit("hide");
    let r = repo.check(&["--base", "main"]);
    let found = weakened(&r);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(has(&found, "app/hidden.yaml is not checked any more: the walk passes it over"), "{found:?}");
    assert!(has(&found, "app/sneaky.yaml is not checked any more"), "{found:?}");
    assert!(has(&found, ".old/moved.yaml:null app/moved.yaml moved to .old/moved.yaml"), "{found:?}");
    assert!(has(&found, "app/excluded.yaml is not checked any more: an `exclude` glob"), "{found:?}");
    assert!(has(&found, "new `exclude` glob `app/excluded.yaml`"), "{found:?}");
    assert!(!has(&found, "app/web.yaml"), "{found:?}");
}

#[test]
fn a_base_that_cannot_be_checked_hides_nothing() {
    // At the base, `reference/` has no metadata.yaml: the base cannot be checked, so every
    // finding of the head is shown, with a note saying why.
    let repo = Repo::new(&[
        (".driftlint.yaml", "reference: reference\nexclude: [reference/]\nrules: {unexpected-field: off}\n"),
        (
            "reference/deployment.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: registry.example.com/web:1.0\n",
        ),
        ("app/web.yaml", &DEPLOYMENT.replace("web:1.0", "web:0.9")),
    ]);
    repo.write(
        "reference/metadata.yaml",
        "apiVersion: v2\nparts:\n  - name: web\n    components:\n      - name: web\n        allOf:\n          - path: deployment.yaml\n",
    );
    repo.commit("metadata");
    let r = repo.check(&["--base", "main"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(findings(&r), ["value-drift app/web.yaml:17"]);
    assert!(r.stderr.contains("could not be checked, so every finding is shown as new"), "{}", r.stderr);
}

#[test]
fn a_file_ignored_at_the_base_already_is_not_listed() {
    // A tracked manifest that an ignore file of the base hides already: not the change's doing.
    let repo = Repo::new(&[
        (".gitignore", "old.yaml\n"),
        (".driftlint.yaml", "rules: {schema-not-found: off}\n"),
        ("app/web.yaml", DEPLOYMENT),
    ]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("app/old.yaml", DEPLOYMENT);
    repo.git(&["add", "-f", "app/old.yaml"]);
    repo.commit("tracked but ignored");
    repo.git(&["checkout", "-q", "-B", "feature"]);
    repo.edit("app/web.yaml", "web:1.0", "web:1.1");
    repo.commit("new image");
    let r = repo.check(&["--base", "main"]);
    assert_eq!((r.code, weakened(&r)), (0, Vec::new()), "{}{}", r.stdout, r.stderr);
}

#[test]
fn the_first_commit_weakens_nothing() {
    // No commit yet: no reviewed configuration to weaken (the pre-commit hook's first commit).
    let dir = tempfile::tempdir().unwrap();
    super::git(dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(dir.path().join(".driftlint.yaml"), "exclude: [vendor/]\nrules: {schema-not-found: off}\n").unwrap();
    std::fs::create_dir_all(dir.path().join("vendor")).unwrap();
    std::fs::write(dir.path().join("vendor/x.yaml"), DEPLOYMENT).unwrap();
    super::git(dir.path(), &["add", "-A"]);
    let r = run_in(dir.path(), &["check", "--format", "json", "--staged"], None);
    assert_eq!((r.code, weakened(&r)), (0, Vec::new()), "{}{}", r.stdout, r.stderr);
}

#[test]
fn a_chart_or_tool_file_added_over_manifests_is_listed() {
    // Chart sources and kustomize files are not linted: a `Chart.yaml` the change drops beside
    // manifests, or a manifest renamed `kustomization.yaml`, stops checking them.
    let repo = Repo::new(&[
        (".driftlint.yaml", "rules: {schema-not-found: off}\n"),
        ("app/web.yaml", DEPLOYMENT),
        ("other/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"),
    ]);
    repo.write("app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n");
    repo.git(&["mv", "other/cm.yaml", "other/kustomization.yaml"]);
    repo.commit("a chart");
    let r = repo.check(&["--base", "main"]);
    let found = weakened(&r);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(has(&found, "app/web.yaml is not checked any more: a Helm chart's `Chart.yaml`"), "{found:?}");
    assert!(has(&found, "other/cm.yaml moved to other/kustomization.yaml, which is not checked"), "{found:?}");
}

#[test]
fn an_edited_location_schema_is_a_weakening_and_policy_namespaces_left_default_count() {
    let widget = "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  size: 3\n  colour: green\n  port: http\n";
    let repo = with_location_schemas("policies: [policy]\n", widget, &[("policy/main.rego", POLICY)]);
    // Unchanged: nothing weakened.
    repo.write("notes.md", "x\n");
    repo.commit("notes");
    assert_eq!(weakened(&repo.check(&["--base", "main"])), Vec::<String>::new());
    // The change edits a trusted location schema.
    let text = repo.read("schemas/widget-example-v1.json");
    repo.write("schemas/widget-example-v1.json", &text.replacen('{', "{\"description\": \"laxer\",", 1));
    repo.commit("edit the schema");
    let found = weakened(&repo.check(&["--base", "main"]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("schemas/widget-example-v1.json:"), "{found:?}");
    assert!(found[0].contains("trusted schema file schemas/widget-example-v1.json changed"), "{found:?}");
    // Narrowing the namespaces from the default `main` silences the policies: a weakening.
    repo.write(".driftlint.yaml", &format!("{}policy-namespaces: [unused]\n", repo.read(".driftlint.yaml")));
    repo.commit("namespaces");
    let found = weakened(&repo.check(&["--base", "main"]));
    assert!(has(&found, "`policy-namespaces` no longer lists `main`"), "{found:?}");
}

#[test]
fn a_policy_that_fails_at_the_base_and_the_head_is_still_an_error() {
    let broken = "package main\n\nimport rego.v1\n\ndeny contains msg if {\n  input.kind == \"Deployment\"\n  msg := undefined_fn(1)\n}\n";
    let repo = Repo::new(&[
        (".driftlint.yaml", "policies: [policy]\n"),
        ("policy/main.rego", broken),
        ("app/web.yaml", DEPLOYMENT),
    ]);
    repo.write("app/other.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n");
    repo.commit("another file");
    let r = repo.check(&["--base", "main"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(has(&findings(&r), "policy-error policy/main.rego:7"), "{:?}", findings(&r));
}

#[test]
fn a_manifest_deleted_while_an_unchecked_file_is_added_is_reported_whatever_its_name() {
    let repo = Repo::new(&[
        (".driftlint.yaml", "reference: reference\nrules: {unmatched-resource: off}\n"),
        ("reference/metadata.yaml", "apiVersion: v2\nparts: []\n"),
        ("app/web.yaml", DEPLOYMENT),
        ("app/db.yaml", &DEPLOYMENT.replace("name: web\n", "name: db\n")),
    ]);
    // Moved into a dot-directory under another name and edited.
    std::fs::remove_file(repo.path().join("app/web.yaml")).unwrap();
    repo.write(".stash/w2.yaml", &DEPLOYMENT.replace("replicas: 3", "replicas: 0"));
    repo.commit("stash");
    let found = weakened(&repo.check(&["--base", "main"]));
    assert!(has(&found, "app/web.yaml was checked and is deleted, while the change adds .stash/w2.yaml"), "{found:?}");
    // Moved into the reference's directory, renamed and edited.
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["checkout", "-q", "-b", "into-reference"]);
    std::fs::remove_file(repo.path().join("app/db.yaml")).unwrap();
    repo.write("reference/extra.yaml", &DEPLOYMENT.replace("name: web\n", "name: elsewhere\n"));
    repo.commit("into the reference");
    let found = weakened(&repo.check(&["--base", "main"]));
    assert!(
        has(&found, "app/db.yaml was checked and is deleted, while the change adds reference/extra.yaml"),
        "{found:?}"
    );
    // A deletion with only a README added: nothing.
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["checkout", "-q", "-b", "plain-delete"]);
    std::fs::remove_file(repo.path().join("app/db.yaml")).unwrap();
    repo.write("README.md", "docs\n");
    repo.commit("delete");
    assert_eq!(weakened(&repo.check(&["--base", "main"])), Vec::<String>::new());
}

#[test]
fn the_base_is_checked_with_the_base_location_schemas() {
    let widget = "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  size: 3\n  colour: blue\n";
    let repo = with_location_schemas("", widget, &[]);
    assert!(!has(&findings(&repo.check(&["--base", "main"])), "schema-invalid-value"));
    // The change drops `blue` from the enum: the unchanged `colour: blue` breaks, and the
    // finding is the change's (the base, read with its own schemas, has none).
    repo.edit("schemas/_definitions.json", "\"red\", \"blue\", null", "\"red\", null");
    repo.commit("narrow the enum");
    let r = repo.check(&["--base", "main"]);
    let found = findings(&r);
    assert!(has(&found, "schema-invalid-value w.yaml:6"), "{found:?}\n{}", r.stderr);
}

/// A repository whose configuration names `fixtures/schema-location` (copied to `schemas/`) as
/// a schema location, plus `config_extra`, with `widget` in `w.yaml` and `more` files.
fn with_location_schemas(config_extra: &str, widget: &str, more: &[(&str, &str)]) -> Repo {
    let config =
        format!("schema-locations: ['schemas/{{{{ .ResourceKind }}}}{{{{ .KindSuffix }}}}.json']\n{config_extra}");
    let mut files: Vec<(String, String)> = vec![(".driftlint.yaml".into(), config), ("w.yaml".into(), widget.into())];
    files.extend(more.iter().map(|(p, t)| (p.to_string(), t.to_string())));
    for entry in std::fs::read_dir(super::root().join("fixtures/schema-location")).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().to_string();
        files.push((format!("schemas/{name}"), std::fs::read_to_string(entry.path()).unwrap()));
    }
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    Repo::new(&borrowed)
}
