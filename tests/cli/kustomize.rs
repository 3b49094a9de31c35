//! kustomize's files read for the role their kustomization gives them: resources are
//! manifests, patches are checked as patches of the kind they patch, kustomize's own
//! configuration is one note per kustomization, and what a kustomization sets on its
//! resources counts as set. Each case is a minimal layout written here after what real
//! repositories showed (kubernetes-sigs/metrics-server `5ed5d3a`, GoogleCloudPlatform/
//! microservices-demo `34ffea9`, argoproj/argo-rollouts `9f8d111`).

use std::path::Path;

use super::write_files as write;
use super::{json, run_in};

/// `check --format json` of `dir`: the findings as (rule, severity, file, line, message).
fn check(dir: &Path) -> Vec<(String, String, String, u64, String)> {
    let r = run_in(dir, &["check", "--isolated", "--format", "json", "."], None);
    let v = json(&r);
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("rule"), s("severity"), s("file"), d["line"].as_u64().unwrap_or(0), s("message"))
        })
        .collect()
}

/// The findings other than the kustomizations' own note (which every layout here gets).
fn findings(dir: &Path) -> Vec<(String, String, String, u64, String)> {
    check(dir).into_iter().filter(|f| !f.4.contains("file(s) of kustomize configuration")).collect()
}

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx\n          resources:\n            limits: {cpu: 100m}\n";

/// A strategic-merge patch is a partial object with directives: no required field demanded,
/// `$patch` understood; its field names and types are still checked against the kind's schema.
#[test]
fn strategic_merge_patches_are_checked_as_patches() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("app/deployment.yaml", DEPLOYMENT),
            (
                "app/kustomization.yaml",
                "resources:\n  - deployment.yaml\npatches:\n  - path: delete.yaml\n  - path: resources.yaml\npatchesStrategicMerge:\n  - typo.yaml\n",
            ),
            // microservices-demo's form: delete an object.
            ("app/delete.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n$patch: delete\n"),
            // metrics-server's form: a container's resources deleted, a partial container.
            (
                "app/resources.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          resources:\n            $patch: delete\n      $setElementOrder/containers:\n        - name: web\n      $retainKeys: [containers]\n",
            ),
            (
                "app/typo.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replica: 2\n  template:\n    spec:\n      $patch: remove\n      containers:\n        - name: web\n          ports:\n            - containerPort: http\n",
            ),
        ],
    );
    let found = findings(tmp.path());
    let seen: Vec<(&str, &str, u64)> = found.iter().map(|f| (f.0.as_str(), f.2.as_str(), f.3)).collect();
    assert_eq!(
        seen,
        [
            ("schema-unknown-field", "app/typo.yaml", 6),
            ("schema-invalid-value", "app/typo.yaml", 9),
            ("schema-type-mismatch", "app/typo.yaml", 13),
        ],
        "{found:#?}"
    );
    assert!(found.iter().all(|f| f.1 == "error"), "{found:#?}");
}

/// A JSON 6902 patch's operations: a `path` the kind's schema does not have is reported at
/// the operation, a `value` of the wrong type too; a list's `-` and indexes are paths.
#[test]
fn json_6902_operations_are_checked_against_the_target_schema() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("app/deployment.yaml", DEPLOYMENT),
            (
                "app/kustomization.yaml",
                "resources:\n  - deployment.yaml\npatchesJson6902:\n  - target: {group: apps, version: v1, kind: Deployment, name: web}\n    path: ops.yaml\npatches:\n  - path: version.yaml\n    target:\n      kind: Deployment\n",
            ),
            (
                "app/ops.yaml",
                "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --v=4\n- op: replace\n  path: /spec/replicas\n  value: three\n- op: add\n  path: /spec/template/spec/containers/0/imagePullPolcy\n  value: Never\n- op: remove\n  path: /metadata/labels/app\n",
            ),
            // A target without a version: the version served for the kind.
            (
                "app/version.yaml",
                "- op: replace\n  path: /apiVersion\n  value: apps/v1\n- op: frobnicate\n  path: /spec\n",
            ),
        ],
    );
    let found = findings(tmp.path());
    let seen: Vec<(&str, &str, u64)> = found.iter().map(|f| (f.0.as_str(), f.2.as_str(), f.3)).collect();
    assert_eq!(
        seen,
        [
            ("schema-type-mismatch", "app/ops.yaml", 6),
            ("schema-unknown-field", "app/ops.yaml", 8),
            ("schema-invalid-value", "app/version.yaml", 4),
        ],
        "{found:#?}"
    );
    assert!(found[1].4.contains("no field `imagePullPolcy`"), "{found:#?}");
}

/// An inline patch is checked where it is written: its finding on the kustomization's line.
#[test]
fn inline_patches_are_checked_in_their_kustomization() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("app/deployment.yaml", DEPLOYMENT),
            (
                "app/kustomization.yaml",
                "resources:\n  - deployment.yaml\npatches:\n  - patch: |-\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata:\n        name: web\n      spec:\n        replicaz: 3\n",
            ),
        ],
    );
    let found = findings(tmp.path());
    let seen: Vec<(&str, &str, u64)> = found.iter().map(|f| (f.0.as_str(), f.2.as_str(), f.3)).collect();
    assert_eq!(seen, [("schema-unknown-field", "app/kustomization.yaml", 10)], "{found:#?}");
}

/// Transformers, generators and field configurations are kustomize's own files: one note for
/// the kustomization that names them, not an `unknown-kind` each.
#[test]
fn kustomize_configuration_is_one_note_per_kustomization() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("app/deployment.yaml", DEPLOYMENT),
            (
                "app/kustomization.yaml",
                "resources:\n  - deployment.yaml\ntransformers:\n  - labels.yaml\n  - prefix.yaml\nconfigurations:\n  - rollout-transform.yaml\nconfigMapGenerator:\n  - name: conf\n    files: [config.yaml]\n",
            ),
            ("app/labels.yaml", "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: l\nlabels: {a: b}\n"),
            (
                "app/prefix.yaml",
                "apiVersion: example.com/v1\nkind: PrefixTransformer\nmetadata:\n  name: p\nprefix: x-\n",
            ),
            (
                "app/rollout-transform.yaml",
                "images:\n  - path: spec/template/spec/containers[]/image\n    kind: Rollout\n",
            ),
            ("app/config.yaml", "server:\n  port: 8080\n"),
        ],
    );
    let found = findings(tmp.path());
    assert_eq!(found.len(), 1, "{found:#?}");
    let (rule, severity, file, line, message) = &found[0];
    assert_eq!(
        (rule.as_str(), severity.as_str(), file.as_str(), *line),
        ("not-kubernetes-object", "note", "app/kustomization.yaml", 4)
    );
    assert!(message.starts_with("4 file(s) named here are kustomize's own configuration"), "{message}");
}

/// A field the kustomization sets is not missing from its resources: the selector that
/// `commonLabels` or `labels` with `includeSelectors: true` adds, also from an overlay over
/// the base; without such a kustomization the error stays.
#[test]
fn fields_a_kustomization_sets_count_as_set() {
    let tmp = tempfile::tempdir().unwrap();
    let no_selector = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx\n";
    write(
        tmp.path(),
        &[
            ("common/deployment.yaml", no_selector),
            ("common/kustomization.yaml", "commonLabels:\n  app: web\nresources:\n  - deployment.yaml\n"),
            ("labels/deployment.yaml", no_selector),
            (
                "labels/kustomization.yaml",
                "labels:\n  - pairs: {app: web}\n    includeSelectors: true\nresources:\n  - deployment.yaml\n",
            ),
            ("base/deployment.yaml", no_selector),
            ("base/kustomization.yaml", "resources:\n  - deployment.yaml\n"),
            ("overlay/kustomization.yaml", "commonLabels: {app: web}\nresources:\n  - ../base\n"),
            // Labels without includeSelectors add no selector.
            ("plain/deployment.yaml", no_selector),
            ("plain/kustomization.yaml", "labels:\n  - pairs: {app: web}\nresources:\n  - deployment.yaml\n"),
            ("loose/deployment.yaml", no_selector),
        ],
    );
    let found = findings(tmp.path());
    let seen: Vec<(&str, &str)> = found.iter().map(|f| (f.0.as_str(), f.2.as_str())).collect();
    assert_eq!(
        seen,
        [("schema-required-missing", "loose/deployment.yaml"), ("schema-required-missing", "plain/deployment.yaml")],
        "{found:#?}"
    );
}

/// A path a kustomization names that leaves the repository is an error at the kustomization's
/// line, one that does not exist a warning (a step before the build may write it), and
/// nothing outside is read.
#[test]
fn paths_outside_the_repository_or_missing_are_reported_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    write(
        tmp.path(),
        &[
            ("outside.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secret-outside\n"),
            ("repo/.git/HEAD", "ref: refs/heads/main\n"),
            ("repo/app/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
            (
                "repo/app/kustomization.yaml",
                "resources:\n  - cm.yaml\n  - ../../outside.yaml\n  - missing.yaml\npatches:\n  - path: /etc/passwd\n",
            ),
        ],
    );
    let found = findings(&repo);
    let seen: Vec<(&str, &str, &str, u64)> =
        found.iter().map(|f| (f.0.as_str(), f.1.as_str(), f.2.as_str(), f.3)).collect();
    assert_eq!(
        seen,
        [
            ("io-error", "error", "app/kustomization.yaml", 3),
            ("io-error", "warning", "app/kustomization.yaml", 4),
            ("io-error", "error", "app/kustomization.yaml", 6),
        ],
        "{found:#?}"
    );
    assert!(found[0].4.contains("leaves the repository"), "{found:#?}");
    assert!(found[1].4.contains("`missing.yaml` does not exist"), "{found:#?}");
    assert!(found.iter().all(|f| !f.4.contains("secret-outside") && !f.4.contains("root:")), "{found:#?}");
}

/// `ls` shows the role kustomize gives each file.
#[test]
fn ls_shows_each_files_role() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("app/deployment.yaml", DEPLOYMENT),
            (
                "app/kustomization.yaml",
                "resources: [deployment.yaml]\npatches:\n  - path: patch.yaml\ntransformers: [labels.yaml]\n",
            ),
            ("app/patch.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"),
            ("app/labels.yaml", "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: l\n"),
        ],
    );
    let r = run_in(tmp.path(), &["ls", "--isolated", "--format", "json", "."], None);
    let v = json(&r);
    let objects = v["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 1, "{v:#}");
    assert_eq!(objects[0]["file"], "app/deployment.yaml");
    assert_eq!(objects[0]["role"], "resource");
    let roles: Vec<(String, String)> = v["kustomize"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["file"].as_str().unwrap().to_string(), e["role"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        roles,
        [
            ("app/deployment.yaml".to_string(), "resource".to_string()),
            ("app/kustomization.yaml".to_string(), "kustomization".to_string()),
            ("app/labels.yaml".to_string(), "kustomize configuration".to_string()),
            ("app/patch.yaml".to_string(), "patch".to_string()),
        ]
    );
    let human = run_in(tmp.path(), &["ls", "--isolated", "."], None);
    assert!(human.stdout.contains("app/patch.yaml: kustomize patch"), "{}", human.stdout);
}

/// A Deployment without a selector, which its kustomizations add.
const NO_SELECTOR: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx\n";

/// base/ + overlays/prod/, tied together by a kustomization at the root: the overlay's
/// `commonLabels` add the base Deployment's selector, the overlay names a patch (with an
/// unknown field) and a transformer's configuration; `loose/` has no kustomization.
fn overlay_layout(dir: &Path) {
    write(
        dir,
        &[
            ("kustomization.yaml", "resources:\n  - overlays/prod\n"),
            ("base/deployment.yaml", NO_SELECTOR),
            ("base/kustomization.yaml", "resources:\n  - deployment.yaml\n"),
            (
                "overlays/prod/kustomization.yaml",
                "commonLabels:\n  app: web\nresources:\n  - ../../base\npatches:\n  - path: replicas.yaml\ntransformers:\n  - labels.yaml\n",
            ),
            (
                "overlays/prod/replicas.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicaz: 3\n",
            ),
            (
                "overlays/prod/labels.yaml",
                "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: l\nlabels: {a: b}\n",
            ),
            ("loose/deployment.yaml", NO_SELECTOR),
        ],
    );
}

/// The files the tests below name, as pre-commit names them.
const NAMED: [&str; 4] =
    ["base/deployment.yaml", "overlays/prod/replicas.yaml", "overlays/prod/labels.yaml", "loose/deployment.yaml"];

/// `ARGS… --format json NAMED…` in `dir`: the findings as (rule, file, line).
fn named_findings(dir: &Path, args: &[&str]) -> Vec<(String, String, u64)> {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--format", "json"]);
    all.extend(NAMED);
    rule_file_lines(&run_in(dir, &all, None), |_| true)
}

/// The findings of a `--format json` run's `r` that `keep` keeps, as (rule, file, line), sorted.
fn rule_file_lines(r: &super::Run, keep: impl Fn(&serde_json::Value) -> bool) -> Vec<(String, String, u64)> {
    let mut found: Vec<(String, String, u64)> = json(r)["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{}{}", r.stdout, r.stderr))
        .iter()
        .filter(|d| keep(d))
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("rule"), s("file"), d["line"].as_u64().unwrap_or(0))
        })
        .collect();
    found.sort();
    found
}

/// What a run at the root finds in [`overlay_layout`], and what every run on the named files
/// must find: the patch's unknown field, the configuration's note, the loose Deployment's
/// missing selector — and no missing selector in the base, nor a patch read as a Deployment.
fn expected() -> Vec<(String, String, u64)> {
    [
        ("not-kubernetes-object", "overlays/prod/kustomization.yaml", 8),
        ("schema-required-missing", "loose/deployment.yaml", 5),
        ("schema-unknown-field", "overlays/prod/replicas.yaml", 6),
    ]
    .iter()
    .map(|(r, f, l)| (r.to_string(), f.to_string(), *l))
    .collect()
}

/// A file named alone (`driftlint check base/deployment.yaml`, what the pre-commit hook runs)
/// gets the role and the fields set that its kustomizations give it at the root: they are
/// looked for in its directory and above, up to the repository root, and followed through
/// `resources:`. Without a configuration, with one (the repository is the context), and in
/// `ls`.
#[test]
fn named_files_get_the_roles_their_kustomizations_give() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join(".git")).unwrap();
    overlay_layout(tmp.path());
    // At the root, for comparison (less the kustomizations' summary note).
    let root: Vec<(String, String, u64)> = {
        let mut f: Vec<_> = check(tmp.path())
            .into_iter()
            .filter(|f| !f.4.contains("file(s) of kustomize configuration"))
            .map(|f| (f.0, f.2, f.3))
            .collect();
        f.sort();
        f
    };
    assert_eq!(root, expected());
    assert_eq!(named_findings(tmp.path(), &["check", "--isolated"]), expected());
    // With a configuration the repository is checked as a whole and the named files shown.
    write(tmp.path(), &[(".driftlint.yaml", "rules: {}\n")]);
    assert_eq!(named_findings(tmp.path(), &["check"]), expected());
    // A patch's findings are its file's: not shown when another file is named.
    let r = run_in(tmp.path(), &["check", "--format", "json", "overlays/prod/labels.yaml"], None);
    let files: Vec<String> = json(&r)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(files, ["overlays/prod/kustomization.yaml"], "{}", r.stdout);

    let r = run_in(tmp.path(), &["ls", "--isolated", "base/deployment.yaml", "overlays/prod/replicas.yaml"], None);
    assert!(r.stdout.contains("base/deployment.yaml:1:1: apps/v1 Deployment web"), "{}", r.stdout);
    assert!(r.stdout.contains("[kustomize: resource]"), "{}", r.stdout);
    assert!(r.stdout.contains("overlays/prod/replicas.yaml: kustomize patch"), "{}", r.stdout);
    // Only the named files' roles: not every file the kustomizations above them name.
    assert!(!r.stdout.contains("labels.yaml"), "{}", r.stdout);
    assert!(r.stdout.contains("1 object(s) in 1 source(s)"), "{}", r.stdout);
}

/// No kustomization above ties them together: `overlays/prod` builds on `base/`, adds its
/// selector with `commonLabels`, and names a patch kept in `patches/`, a sibling of both (the
/// layout of kube-prometheus's examples and of many GitOps repositories). A kustomization
/// outside the repository names the patch too, and is never read.
fn sibling_layout(dir: &Path) {
    write(
        dir,
        &[
            ("repo/base/deployment.yaml", NO_SELECTOR),
            ("repo/base/kustomization.yaml", "resources:\n  - deployment.yaml\n"),
            (
                "repo/overlays/prod/kustomization.yaml",
                "commonLabels:\n  app: web\nresources:\n  - ../../base\npatches:\n  - path: ../../patches/replicas.yaml\n",
            ),
            (
                "repo/patches/replicas.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicaz: 3\n",
            ),
            ("repo/loose/deployment.yaml", NO_SELECTOR),
            ("kustomization.yaml", "resources:\n  - repo/loose/deployment.yaml\ncommonLabels:\n  app: web\n"),
        ],
    );
    std::fs::create_dir(dir.join("repo/.git")).unwrap();
}

/// A file named alone gets the findings the run at the root gives it when the kustomization
/// that names it (or builds on its own) is in a sibling directory that no kustomization above
/// the file reaches: the patch is checked as a patch (its unknown field, no missing required
/// field), the base Deployment has the selector the overlay adds. Outside the repository
/// nothing is read: the loose Deployment keeps its missing selector.
#[test]
fn a_file_named_alone_sees_the_kustomizations_in_sibling_directories() {
    let tmp = tempfile::tempdir().unwrap();
    sibling_layout(tmp.path());
    let repo = tmp.path().join("repo");
    let of = |file: &str, args: &[&str]| -> Vec<(String, String, u64)> {
        let mut all = vec!["check", "--isolated", "--format", "json"];
        all.extend(args);
        rule_file_lines(&run_in(&repo, &all, None), |d| d["file"] == file)
    };
    let patch = of("patches/replicas.yaml", &["."]);
    assert_eq!(patch, [("schema-unknown-field".to_string(), "patches/replicas.yaml".to_string(), 6)]);
    assert_eq!(of("base/deployment.yaml", &["."]), []);
    let loose = of("loose/deployment.yaml", &["."]);
    assert_eq!(loose, [("schema-required-missing".to_string(), "loose/deployment.yaml".to_string(), 5)]);
    for file in ["patches/replicas.yaml", "base/deployment.yaml", "loose/deployment.yaml"] {
        assert_eq!(of(file, &[file]), of(file, &["."]), "{file} named alone");
    }
    // As the pre-commit hook names them, together; and from inside a directory of the
    // repository, as `../` paths.
    let together = ["patches/replicas.yaml", "base/deployment.yaml", "loose/deployment.yaml"];
    assert_eq!(of("patches/replicas.yaml", &together), patch);
    let r = run_in(&repo.join("patches"), &["check", "--isolated", "--format", "json", "replicas.yaml"], None);
    let v = json(&r);
    let rules: Vec<&str> = v["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["rule"].as_str()).collect();
    assert_eq!(rules, ["schema-unknown-field"], "{}", r.stdout);
    let r = run_in(&repo, &["ls", "--isolated", "patches/replicas.yaml"], None);
    assert!(r.stdout.contains("patches/replicas.yaml: kustomize patch"), "{}", r.stdout);
    // A named directory is a tree the user chose: checked with the kustomizations in and above
    // it, without a walk of the whole repository (whose cost every directory run would pay).
    let r = run_in(&repo, &["ls", "--isolated", "patches"], None);
    assert!(r.stdout.contains("patches/replicas.yaml:1:1: apps/v1 Deployment web"), "{}", r.stdout);
}

/// The search elsewhere walks the repository as the run does: an overlay that the run leaves
/// out (`--exclude`, `exclude:`) or that git ignores gives a file named alone no role, as it
/// gives none in a run at the root; with `--no-ignore` the ignored overlay is read by both.
#[test]
fn a_file_named_alone_gets_no_role_from_a_kustomization_the_run_leaves_out() {
    let tmp = tempfile::tempdir().unwrap();
    sibling_layout(tmp.path());
    let repo = tmp.path().join("repo");
    let of = |args: &[&str], named: &str| -> Vec<(String, String, u64)> {
        let mut all = vec!["check", "--format", "json"];
        all.extend(args);
        all.push(named);
        rule_file_lines(&run_in(&repo, &all, None), |d| d["file"] == "patches/replicas.yaml")
    };
    let as_patch = vec![("schema-unknown-field".to_string(), "patches/replicas.yaml".to_string(), 6)];
    assert_eq!(of(&["--isolated"], "patches/replicas.yaml"), as_patch);
    let left_out = |args: &[&str]| {
        let alone = of(args, "patches/replicas.yaml");
        assert_eq!(alone, of(args, "."), "{args:?}: named alone as in a run at the root");
        alone
    };
    // No kustomization names it: a Deployment with an unknown field and no selector.
    let as_manifest = left_out(&["--isolated", "--exclude", "overlays/"]);
    assert_ne!(as_manifest, as_patch);
    assert!(as_manifest.iter().any(|(rule, _, _)| rule == "schema-required-missing"), "{as_manifest:?}");
    // `exclude:` of the configuration (read without --isolated).
    write(&repo, &[(".driftlint.yaml", "exclude:\n  - overlays/prod/\n")]);
    assert_eq!(left_out(&[]), as_manifest, "exclude: in the configuration");
    std::fs::remove_file(repo.join(".driftlint.yaml")).unwrap();
    write(&repo, &[(".gitignore", "overlays/\n")]);
    assert_eq!(left_out(&["--isolated"]), as_manifest, "an ignored overlay");
    assert_eq!(left_out(&["--isolated", "--no-ignore"]), as_patch, "read with --no-ignore");
}

/// `--staged` and `--base` on named files read the kustomizations too: the files added by the
/// change get the roles a run at the root gives them.
#[test]
fn scoped_runs_on_named_files_read_the_kustomizations() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    super::git(dir, &["init", "-q"]);
    write(dir, &[("README.md", "x\n")]);
    super::git(dir, &["add", "-A"]);
    super::git(dir, &["commit", "-q", "-m", "start"]);
    overlay_layout(dir);
    super::git(dir, &["add", "-A"]);
    assert_eq!(named_findings(dir, &["check", "--isolated", "--staged"]), expected());
    assert_eq!(named_findings(dir, &["check", "--isolated", "--base", "HEAD"]), expected());
}

/// A scoped run tells what the change stops checking: a kustomization that starts naming a
/// manifest as kustomize's own configuration (or as a patch) takes it out of the manifests,
/// which `config-weakened` says, as it says of a `Chart.yaml` added over manifests. A file
/// that was a patch before and after is no such change.
#[test]
fn a_kustomization_claiming_a_manifest_is_a_weakened_check() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    super::git(dir, &["init", "-q"]);
    write(
        dir,
        &[
            ("app/deployment.yaml", DEPLOYMENT),
            ("app/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
            ("app/patch.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"),
            ("app/kustomization.yaml", "resources: [deployment.yaml, cm.yaml]\npatches:\n  - path: patch.yaml\n"),
        ],
    );
    super::git(dir, &["add", "-A"]);
    super::git(dir, &["commit", "-q", "-m", "start"]);
    let weakened = |dir: &Path| -> Vec<(String, String)> {
        let r = run_in(dir, &["check", "--isolated", "--staged", "--format", "json"], None);
        json(&r)["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"] == "config-weakened")
            .map(|d| (d["file"].as_str().unwrap().to_string(), d["message"].as_str().unwrap().to_string()))
            .collect()
    };
    assert_eq!(weakened(dir), []);
    write(
        dir,
        &[(
            "app/kustomization.yaml",
            "resources: [deployment.yaml]\npatches:\n  - path: patch.yaml\ntransformers: [cm.yaml]\n",
        )],
    );
    super::git(dir, &["add", "-A"]);
    let found = weakened(dir);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, "app/cm.yaml");
    assert!(
        found[0].1.contains("a kustomization naming it as a patch or as kustomize's own configuration"),
        "{found:#?}"
    );
}
