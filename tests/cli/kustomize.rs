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
