//! A pull request that removes a binding, or turns its Deny into Warn, silences what the
//! base's policies find on the checked objects: `config-weakened`, as for every other input
//! that makes driftlint check less.

use driftlint_admission::{Object, silenced};
use driftlint_cel::cost::Budget;
use driftlint_core::diagnostic::{Rule, SourcePath};
use serde_json::{Value as Json, json};

fn objects<'a>(docs: &'a [Json], path: &'a SourcePath) -> Vec<Object<'a>> {
    docs.iter().map(|v| Object { value: v, path, range: None }).collect()
}

fn policy() -> Json {
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "limit"},
        "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}]},
            "validations": [{"expression": "object.spec.replicas <= 5", "message": "at most 5 replicas"}]}})
}

fn binding(action: &str) -> Json {
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "limit"},
        "spec": {"policyName": "limit", "validationActions": [action]}})
}

fn deployment() -> Json {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "a"}, "spec": {"replicas": 9}})
}

#[test]
fn removing_a_binding_or_weakening_its_action_is_config_weakened() {
    let path = SourcePath::File("repo.yaml".into());
    let base_docs = [policy(), binding("Deny")];
    let targets_docs = [deployment()];
    let targets = objects(&targets_docs, &path);
    let base = objects(&base_docs, &path);

    // The binding removed.
    let head_docs = [policy()];
    let found = silenced(&base, &objects(&head_docs, &path), &targets, &mut Budget::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, Rule::ConfigWeakened);
    assert!(found[0].message.contains("denied request: at most 5 replicas"), "{}", found[0].message);

    // Deny turned into Warn: the error the base gave is gone (a warning stays).
    let head_docs = [policy(), binding("Warn")];
    let found = silenced(&base, &objects(&head_docs, &path), &targets, &mut Budget::default());
    assert_eq!(found.len(), 1, "{found:?}");

    // Unchanged: nothing silenced.
    let found = silenced(&base, &base, &targets, &mut Budget::default());
    assert_eq!(found, vec![]);
}
