//! What a hostile repository cannot make the admission check do: compile without bound, or
//! match and evaluate bindings × objects without bound. And what the cluster alone knows
//! (the requesting user) is undecided, not guessed.

use driftlint_admission::{MAX_COMPILE_BYTES, Object, check};
use driftlint_cel::cost::Budget;
use driftlint_core::diagnostic::{Diagnostic, Rule, SourcePath};
use serde_json::{Value as Json, json};

fn run_with(docs: &[Json], budget: &mut Budget) -> Vec<Diagnostic> {
    let path = SourcePath::File("repo.yaml".into());
    let all: Vec<Object<'_>> = docs.iter().map(|v| Object { value: v, path: &path, range: None }).collect();
    check(&all, &all, budget)
}

fn policy(name: &str, expression: &str) -> Json {
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
        "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]},
            "validations": [{"expression": expression}]}})
}

fn binding(name: &str, policy: &str) -> Json {
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
        "spec": {"policyName": policy, "validationActions": ["Deny"]}})
}

fn config_map(i: usize) -> Json {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("c{i}"), "namespace": "ns"}, "data": {"k": "v"}})
}

#[test]
fn policies_past_the_compile_bound_are_not_compiled() {
    let long = format!("'{}' != ''", "a".repeat(15_000));
    let n = MAX_COMPILE_BYTES / 15_000 + 10;
    let docs: Vec<Json> = (0..n).map(|i| policy(&format!("p{i}"), &long)).collect();
    let found = run_with(&docs, &mut Budget::default());
    let refused =
        found.iter().filter(|d| d.rule == Rule::AdmissionInvalid && d.message.contains("not compiled")).count();
    assert!(refused > 0 && refused < n, "{refused} of {n} refused");
    assert!(found.iter().all(|d| d.rule == Rule::AdmissionInvalid), "{found:?}");
}

#[test]
fn bindings_times_objects_stop_at_the_runs_budget_and_say_so() {
    let mut docs = vec![policy("p", "object.data.k == 'v'"), binding("b", "p")];
    docs.extend((0..1000).map(config_map));
    // Unbounded, every object passes: nothing to report.
    assert_eq!(run_with(&docs, &mut Budget::default()), vec![]);
    // With a small run budget: the object it ran out on (when mid-evaluation), then once the
    // count of objects left unchecked.
    let found = run_with(&docs, &mut Budget::with_run(2_000));
    assert!(!found.is_empty() && found.len() <= 2, "{found:?}");
    assert!(found.iter().all(|d| d.rule == Rule::AdmissionUndecided), "{found:?}");
    let last = &found[found.len() - 1].message;
    assert!(last.contains("objects were not checked"), "{last}");
}

/// `request.userInfo` is the user creating the object, which only a request has: the binding
/// is undecided, and no object gets a finding from it.
#[test]
fn reading_the_requesting_user_is_undecided() {
    let docs =
        vec![policy("p", "request.userInfo.username == 'admin'"), binding("b", "p"), config_map(1), config_map(2)];
    let found = run_with(&docs, &mut Budget::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, Rule::AdmissionUndecided);
    assert!(found[0].message.contains("reads the requesting user"), "{}", found[0].message);
}

/// A CREATE has no old object and names its operation (the `request` variable of the API
/// server's `CreateAdmissionRequest`).
#[test]
fn a_create_has_no_old_object() {
    let docs = vec![
        policy("p", "oldObject == null && request.operation == 'CREATE' && request.resource.resource == 'configmaps'"),
        binding("b", "p"),
        config_map(1),
    ];
    assert_eq!(run_with(&docs, &mut Budget::default()), vec![]);
}

/// `namespaceObject` of an object without `metadata.namespace` is the Namespace it is applied
/// to, which the repository does not say: undecided, not null.
#[test]
fn the_namespace_of_an_object_without_one_is_undecided() {
    let mut cm = config_map(1);
    cm["metadata"].as_object_mut().unwrap().remove("namespace");
    let docs = vec![policy("p", "namespaceObject.metadata.name != 'default'"), binding("b", "p"), cm];
    let found = run_with(&docs, &mut Budget::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, Rule::AdmissionUndecided);
    assert!(found[0].message.contains("reads `namespaceObject`"), "{}", found[0].message);
}
