//! `immutable-field-changed` (issue 25, point 6): a scoped run (`--base`, `--staged`) in a
//! real git repository flags a change to a field the API server will not update, at the
//! head's line of the field, naming the base's value.

use std::path::Path;

use super::{Run, git, json, run_in};

/// A Deployment (selector on line 7), a Service (clusterIP on line 17), a StatefulSet, a
/// PVC, a Job and an immutable Secret and ConfigMap.
const BASE: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
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
          image: nginx:1.27
";

const SERVICE: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  clusterIP: 10.0.0.10
  selector:
    app: web
  ports:
    - port: 80
";

const STATEFUL: &str = "\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
        - name: db
          image: postgres:16
  volumeClaimTemplates:
    - metadata:
        name: data
      spec:
        accessModes: [ReadWriteOnce]
        resources:
          requests:
            storage: 1Gi
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: cache
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources:
    requests:
      storage: 1Gi
";

const CONFIG: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
immutable: true
data:
  mode: blue
  level: debug
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
immutable: true
stringData:
  password: hunter2
";

struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let repo = Repo { dir: tempfile::tempdir().unwrap() };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.write("app/web.yaml", BASE);
        repo.write("app/service.yaml", SERVICE);
        repo.write("db/stateful.yaml", STATEFUL);
        repo.write("config.yaml", CONFIG);
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "base"]);
        repo
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn git(&self, args: &[&str]) -> String {
        git(self.path(), args)
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = std::fs::read_to_string(self.path().join(rel)).unwrap();
        assert_eq!(text.matches(from).count(), 1, "`{from}` in {rel}");
        self.write(rel, &text.replacen(from, to, 1));
    }

    fn check(&self, args: &[&str]) -> Run {
        let mut all = vec!["check", "--format", "json"];
        all.extend_from_slice(args);
        run_in(self.path(), &all, None)
    }
}

/// `file:line message` of every `immutable-field-changed` finding.
fn immutable(r: &Run) -> Vec<String> {
    json(r)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "immutable-field-changed")
        .map(|d| format!("{}:{} {}", d["file"].as_str().unwrap(), d["line"], d["message"].as_str().unwrap()))
        .collect()
}

#[test]
fn a_changed_selector_is_an_error_at_its_line_naming_the_base_value() {
    let repo = Repo::new();
    repo.edit("app/web.yaml", "    matchLabels:\n      app: web", "    matchLabels:\n      app: web-v2");
    repo.edit("app/web.yaml", "      labels:\n        app: web", "      labels:\n        app: web-v2");
    let r = repo.check(&["--base", "main", "."]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let found = immutable(&r);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("app/web.yaml:7 `spec.selector` of Deployment web is immutable"), "{found:?}");
    assert!(found[0].contains(r#"{"matchLabels":{"app":"web"}}"#), "{found:?}");
    // Without a scope there is nothing to compare with.
    let plain = repo.check(&["."]);
    assert!(immutable(&plain).is_empty(), "{}", plain.stdout);
}

#[test]
fn staged_changes_are_compared_with_head() {
    let repo = Repo::new();
    repo.edit("app/service.yaml", "clusterIP: 10.0.0.10", "clusterIP: 10.0.0.11");
    repo.git(&["add", "app/service.yaml"]);
    let r = repo.check(&["--staged", "."]);
    let found = immutable(&r);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("app/service.yaml:7 `spec.clusterIP` of Service web is immutable"), "{found:?}");
    assert!(found[0].contains("`\"10.0.0.10\"`"), "{found:?}");
}

#[test]
fn mutable_changes_and_other_objects_are_not_flagged() {
    let repo = Repo::new();
    // The image may change; a Service moved to another namespace is another object; a
    // change that leaves a file's objects as they were is none.
    repo.edit("app/web.yaml", "image: nginx:1.27", "image: nginx:1.28");
    repo.edit("app/service.yaml", "namespace: shop", "namespace: shop2");
    repo.edit("app/service.yaml", "clusterIP: 10.0.0.10", "clusterIP: 10.0.0.99");
    repo.edit("db/stateful.yaml", "storage: 1Gi\n---", "storage: 1Gi\n---\n");
    let r = repo.check(&["--base", "main", "."]);
    assert!(immutable(&r).is_empty(), "{}", r.stdout);
}

#[test]
fn statefulset_and_claim_fields() {
    let repo = Repo::new();
    repo.edit("db/stateful.yaml", "serviceName: db", "serviceName: db-headless");
    repo.edit("db/stateful.yaml", "            storage: 1Gi", "            storage: 5Gi");
    repo.edit("db/stateful.yaml", "storageClassName: fast", "storageClassName: slow");
    repo.edit(
        "db/stateful.yaml",
        "  accessModes: [ReadWriteOnce]\n  storageClassName",
        "  accessModes: [ReadWriteMany]\n  storageClassName",
    );
    let r = repo.check(&["--base", "main", "."]);
    let found = immutable(&r);
    let lines: Vec<&str> = found.iter().map(|f| f.split(' ').next().unwrap()).collect();
    // serviceName (6), volumeClaimTemplates (18), the claim's accessModes (32) and class (33).
    assert_eq!(
        lines,
        ["db/stateful.yaml:6", "db/stateful.yaml:18", "db/stateful.yaml:32", "db/stateful.yaml:33"],
        "{found:?}"
    );
    assert!(found[0].contains("`spec.serviceName` of StatefulSet db is immutable: the base has `\"db\"`"), "{found:?}");
    assert!(found[3].contains("`\"fast\"`"), "{found:?}");
}

#[test]
fn immutable_config_data_changes_and_secret_values_stay_hidden() {
    let repo = Repo::new();
    repo.edit("config.yaml", "mode: blue", "mode: green");
    repo.edit("config.yaml", "password: hunter2", "password: hunter3");
    let r = repo.check(&["--base", "main", "."]);
    let found = immutable(&r);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].starts_with("config.yaml:7 `data.mode` of ConfigMap settings is immutable: the base has `\"blue\"`")
    );
    assert!(found[1].starts_with("config.yaml:16 `stringData.password` of Secret creds is immutable"), "{found:?}");
    assert!(!r.stdout.contains("hunter2"), "a Secret's value leaked: {}", r.stdout);
    // Dropping `immutable: true` is a change of its own.
    repo.edit("config.yaml", "immutable: true\ndata:", "data:");
    let r = repo.check(&["--base", "main", "."]);
    assert!(
        immutable(&r).iter().any(|f| f.contains("`immutable` of ConfigMap settings is immutable and was removed")),
        "{}",
        r.stdout
    );
}

#[test]
fn levels_and_suppressions_apply() {
    let repo = Repo::new();
    repo.edit("app/service.yaml", "clusterIP: 10.0.0.10", "clusterIP: 10.0.0.11");
    repo.write(".driftlint.yaml", "rules:\n  immutable-field-changed: warning\n");
    let r = repo.check(&["--base", "main", "."]);
    let d =
        json(&r)["diagnostics"].as_array().unwrap().iter().find(|d| d["rule"] == "immutable-field-changed").cloned();
    assert_eq!(d.expect("a finding")["severity"], "warning", "{}", r.stdout);
    repo.write(".driftlint.yaml", "rules:\n  immutable-field-changed: off\n");
    assert!(immutable(&repo.check(&["--base", "main", "."])).is_empty());
    repo.write(".driftlint.yaml", "");
    repo.edit(
        "app/service.yaml",
        "  namespace: shop\n",
        "  namespace: shop\n  annotations:\n    driftlint.io/ignore: \"immutable-field-changed: recreated in the release\"\n",
    );
    let r = repo.check(&["--base", "main", "."]);
    let d =
        json(&r)["diagnostics"].as_array().unwrap().iter().find(|d| d["rule"] == "immutable-field-changed").cloned();
    let d = d.expect("the finding, suppressed");
    assert_eq!(d["suppressed"], "recreated in the release", "{}", r.stdout);
    assert_eq!(r.code, 0, "a suppressed finding fails no run: {}", r.stdout);
}
