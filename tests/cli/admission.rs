//! ValidatingAdmissionPolicies in the checked repository, end to end through `driftlint check`:
//! the policies, bindings and Namespaces anywhere in the inputs (read before the batches), every
//! object checked against them, findings at the object's `kind:` line.
//!
//! The expectations are the API server's, as the `driftlint-admission` crate's tests establish
//! them (Deny → error, Warn → warning; a namespaceSelector reads the Namespace's labels).

use std::path::Path;

use super::{json, run_in};

const POLICY: &str = "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [apps]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [deployments]
  validations:
    - expression: object.spec.replicas <= 5
      message: at most 5 replicas
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-test
spec:
  policyName: replica-limit
  validationActions: [ACTION]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
";

fn deployment(ns: &str, name: &str, replicas: u32) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: {ns}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n      labels: {{app: {name}}}\n    spec:\n      containers:\n        - name: app\n          image: nginx:1.27\n"
    )
}

/// A repository with the policy bound with `action`, two Namespaces (one selected), and
/// Deployments in both, some over the limit, spread over several files.
fn repository(dir: &Path, action: &str) {
    let write = |rel: &str, text: &str| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("policies/replicas.yaml", &POLICY.replace("ACTION", action));
    write(
        "namespaces.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: test\n  labels: {environment: test}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: prod\n  labels: {environment: prod}\n",
    );
    write("apps/big-test.yaml", &deployment("test", "big", 10));
    write("apps/small-test.yaml", &deployment("test", "small", 2));
    write("apps/big-prod.yaml", &deployment("prod", "big", 10));
}

/// (rule, severity, file:line, message) of each finding.
fn findings(dir: &Path) -> (i32, Vec<(String, String, String, String)>) {
    let r = run_in(dir, &["check", ".", "--format", "json"], None);
    let v = json(&r);
    let found = v["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{}{}", r.stdout, r.stderr))
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap_or_default().to_string(),
                d["severity"].as_str().unwrap_or_default().to_string(),
                format!("{}:{}", d["file"].as_str().unwrap_or_default(), d["line"]),
                d["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    (r.code, found)
}

#[test]
fn a_denying_binding_makes_violations_errors_at_the_object() {
    let tmp = tempfile::tempdir().unwrap();
    repository(tmp.path(), "Deny");
    let (code, found) = findings(tmp.path());
    let admission: Vec<_> = found.iter().filter(|f| f.0.starts_with("admission-")).collect();
    assert_eq!(admission.len(), 1, "{found:#?}");
    let (rule, severity, at, message) = admission[0];
    assert_eq!(
        (rule.as_str(), severity.as_str(), at.as_str()),
        ("admission-violation", "error", "apps/big-test.yaml:2")
    );
    assert!(message.contains("at most 5 replicas") && message.contains("replica-limit"), "{message}");
    assert_eq!(code, 1);
}

#[test]
fn a_warning_binding_makes_violations_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    repository(tmp.path(), "Warn");
    let (code, found) = findings(tmp.path());
    let admission: Vec<_> = found.iter().filter(|f| f.0.starts_with("admission-")).collect();
    assert_eq!(admission.len(), 1, "{found:#?}");
    assert_eq!((admission[0].1.as_str(), admission[0].2.as_str()), ("warning", "apps/big-test.yaml:2"));
    assert_eq!(code, 0, "{found:#?}");
}

#[test]
fn without_policies_nothing_is_said_about_admission() {
    let tmp = tempfile::tempdir().unwrap();
    repository(tmp.path(), "Deny");
    std::fs::remove_file(tmp.path().join("policies/replicas.yaml")).unwrap();
    let (code, found) = findings(tmp.path());
    assert!(!found.iter().any(|f| f.0.starts_with("admission-")), "{found:#?}");
    assert_eq!(code, 0, "{found:#?}");
}

/// A pull request that removes the binding silences the violation it gave at the base: the
/// scoped check reports that as `config-weakened` at the object (the policies live in the
/// repository under review), though the object's file did not change.
#[test]
fn a_pull_request_removing_the_binding_is_a_weakening_at_the_object() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    super::git(dir, &["init", "-q", "-b", "main"]);
    repository(dir, "Deny");
    super::git(dir, &["add", "-A"]);
    super::git(dir, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base"]);
    super::git(dir, &["checkout", "-q", "-b", "feature"]);
    let policy = POLICY.replace("ACTION", "Deny");
    let without_binding = &policy[..policy.find("---\n").unwrap()];
    std::fs::write(dir.join("policies/replicas.yaml"), without_binding).unwrap();
    super::git(dir, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "drop the binding"]);
    let r = run_in(dir, &["check", "--base", "main", "--format", "json"], None);
    let v = json(&r);
    let weakened: Vec<String> = v["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{}{}", r.stdout, r.stderr))
        .iter()
        .filter(|d| d["rule"] == "config-weakened")
        .map(|d| format!("{}:{} {}", d["file"].as_str().unwrap_or_default(), d["line"], d["message"]))
        .collect();
    assert_eq!(weakened.len(), 1, "{weakened:#?}\n{}", r.stderr);
    assert!(
        weakened[0].starts_with("apps/big-test.yaml:2 ") && weakened[0].contains("at most 5 replicas"),
        "{weakened:#?}"
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
}

/// A checked copy of a trusted policy's name, however near the objects, never replaces it: a
/// pull request cannot loosen a platform policy by adding its own definition beside the
/// objects. The copy is refused where it is written.
#[test]
fn a_checked_copy_never_replaces_a_trusted_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    repository(dir, "Deny");
    std::fs::create_dir_all(dir.join("platform")).unwrap();
    std::fs::rename(dir.join("policies/replicas.yaml"), dir.join("platform/replicas.yaml")).unwrap();
    let policy_only = POLICY.split("---").next().unwrap().replace("object.spec.replicas <= 5", "true");
    std::fs::write(dir.join("apps/loosened.yaml"), policy_only).unwrap();
    let r = run_in(dir, &["check", "--schemas", "platform", "--format", "json", "apps", "namespaces.yaml"], None);
    let v = json(&r);
    let found: Vec<(String, String)> = v["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{}{}", r.stdout, r.stderr))
        .iter()
        .filter(|d| d["rule"].as_str().is_some_and(|r| r.starts_with("admission-")))
        .map(|d| (d["rule"].as_str().unwrap().to_string(), d["file"].as_str().unwrap_or_default().to_string()))
        .collect();
    assert!(found.contains(&("admission-violation".into(), "apps/big-test.yaml".into())), "{found:#?}");
    assert!(found.contains(&("admission-invalid".into(), "apps/loosened.yaml".into())), "{found:#?}");
    assert_eq!(r.code, 1);
}

/// A policy and binding kept with the configured schemas (`--schemas`, trusted, outside the
/// checked paths) govern the checked objects as those in the repository do, and are not
/// reported as schema files that hold no definition.
#[test]
fn policies_in_the_configured_schema_locations_govern_the_checked_objects() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    repository(dir, "Deny");
    std::fs::create_dir_all(dir.join("platform")).unwrap();
    std::fs::rename(dir.join("policies/replicas.yaml"), dir.join("platform/replicas.yaml")).unwrap();
    let r = run_in(dir, &["check", "--schemas", "platform", "--format", "json", "apps", "namespaces.yaml"], None);
    let v = json(&r);
    let found: Vec<(String, String, String)> = v["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{}{}", r.stdout, r.stderr))
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("rule"), format!("{}:{}", s("file"), d["line"]), s("message"))
        })
        .collect();
    let admission: Vec<_> = found.iter().filter(|f| f.0.starts_with("admission-")).collect();
    assert_eq!(admission.len(), 1, "{found:#?}");
    assert_eq!(admission[0].1, "apps/big-test.yaml:2", "{found:#?}");
    assert!(!found.iter().any(|f| f.2.contains("not used as a schema")), "{found:#?}");
    assert_eq!(r.code, 1);
}
