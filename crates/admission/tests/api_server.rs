//! A repository of policies, bindings, parameters, Namespaces and objects, and exactly the
//! findings the API server gives when each object is created. How each expectation was
//! established is said at it: the API server's source (k8s.io/apiserver
//! `pkg/admission/plugin/policy/validating/{dispatcher,validator}.go`,
//! `…/policy/generic/policy_matcher.go`, `…/policy/matching/matching.go`,
//! `…/webhook/predicates/{namespace,object,rules}/matcher.go`) and the Kubernetes
//! documentation of ValidatingAdmissionPolicy (concepts/cluster-administration/
//! validating-admission-policy).

use driftlint_admission::{Object, check};
use driftlint_cel::cost::Budget;
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity, SourcePath};
use serde_json::Value as Json;

/// Parses `docs` (YAML documents as JSON lines, one object per entry) into objects at
/// `FILE:INDEX`, so that a finding's place names its object.
fn objects(docs: &[(&str, Json)]) -> Vec<(SourcePath, Json)> {
    docs.iter().map(|(name, v)| (SourcePath::File(name.into()), v.clone())).collect()
}

fn run(docs: &[(&str, Json)]) -> Vec<Diagnostic> {
    let owned = objects(docs);
    let all: Vec<Object<'_>> = owned.iter().map(|(p, v)| Object { value: v, path: p, range: None }).collect();
    check(&all, &all, &mut Budget::default())
}

/// (rule, severity, file, message) of each finding, sorted by file and message.
fn summary(found: &[Diagnostic]) -> Vec<(Rule, Severity, String, String)> {
    let mut v: Vec<_> =
        found.iter().map(|d| (d.rule, d.severity, d.primary.path.display(), d.message.clone())).collect();
    v.sort_by(|a, b| (&a.2, &a.3).cmp(&(&b.2, &b.3)));
    v
}

fn policy(name: &str, spec: Json) -> Json {
    serde_json::json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name}, "spec": spec})
}

fn binding(name: &str, spec: Json) -> Json {
    serde_json::json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name}, "spec": spec})
}

fn deployment(ns: &str, name: &str, replicas: i64, labels: Json) -> Json {
    serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns, "labels": labels}, "spec": {"replicas": replicas}})
}

fn namespace(name: &str, labels: Json) -> Json {
    serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}})
}

fn deployments_rule() -> Json {
    serde_json::json!({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]}]})
}

/// The documentation's example: a replica limit, bound with Deny in namespaces labelled
/// `environment: test`. The binding's namespaceSelector reads the Namespace's labels
/// (namespace/matcher.go `MatchNamespaceSelector`, which gets the Namespace from the
/// lister); the validation false gives the policy's message; Deny makes it a rejection
/// (validator.go: `ActionDeny`), shown as an error.
#[test]
fn deny_in_selected_namespaces_only() {
    let found = run(&[
        (
            "policy.yaml",
            policy(
                "demo-policy.example.com",
                serde_json::json!({"failurePolicy": "Fail", "matchConstraints": deployments_rule(), "validations": [{"expression": "object.spec.replicas <= 5", "message": "at most 5 replicas"}]}),
            ),
        ),
        (
            "binding.yaml",
            binding(
                "demo-binding-test.example.com",
                serde_json::json!({"policyName": "demo-policy.example.com", "validationActions": ["Deny"], "matchResources": {"namespaceSelector": {"matchLabels": {"environment": "test"}}}}),
            ),
        ),
        ("ns.yaml", namespace("test", serde_json::json!({"environment": "test"}))),
        ("ns-prod.yaml", namespace("prod", serde_json::json!({"environment": "prod"}))),
        ("too-many.yaml", deployment("test", "web", 10, serde_json::json!({}))),
        ("fine.yaml", deployment("test", "api", 3, serde_json::json!({}))),
        // Not selected: the prod Namespace's labels do not match.
        ("prod.yaml", deployment("prod", "web", 10, serde_json::json!({}))),
    ]);
    assert_eq!(
        summary(&found),
        [(
            Rule::AdmissionViolation,
            Severity::Error,
            "too-many.yaml".to_string(),
            "ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: at most 5 replicas (reason: Invalid)".to_string()
        )]
    );
}

/// Warn is a warning, Audit a note (validator.go maps each action; the dispatcher returns
/// warnings for Warn and audit annotations for Audit, and rejects only for Deny). The
/// `kubernetes.io/metadata.name` label is on every Namespace (set by the API server:
/// namespace registry strategy), so a selector on it matches by name.
#[test]
fn warn_and_audit_actions_and_the_namespace_name_label() {
    let p = policy(
        "limit",
        serde_json::json!({"matchConstraints": deployments_rule(), "validations": [{"expression": "object.spec.replicas <= 5", "messageExpression": "'replicas ' + string(object.spec.replicas) + ' > 5'", "reason": "Forbidden"}]}),
    );
    let found = run(&[
        ("p.yaml", p),
        (
            "warn.yaml",
            binding(
                "warn",
                serde_json::json!({"policyName": "limit", "validationActions": ["Warn"], "matchResources": {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "a"}}}}),
            ),
        ),
        (
            "audit.yaml",
            binding(
                "audit",
                serde_json::json!({"policyName": "limit", "validationActions": ["Audit"], "matchResources": {"namespaceSelector": {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["b"]}]}}}),
            ),
        ),
        ("a.yaml", namespace("a", serde_json::json!(null))),
        ("b.yaml", namespace("b", serde_json::json!(null))),
        ("in-a.yaml", deployment("a", "x", 7, serde_json::json!({}))),
        ("in-b.yaml", deployment("b", "x", 8, serde_json::json!({}))),
    ]);
    assert_eq!(
        summary(&found),
        [
            (
                Rule::AdmissionViolation,
                Severity::Warning,
                "in-a.yaml".to_string(),
                "ValidatingAdmissionPolicy 'limit' with binding 'warn' warns: replicas 7 > 5 (reason: Forbidden)"
                    .to_string()
            ),
            (
                Rule::AdmissionViolation,
                Severity::Note,
                "in-b.yaml".to_string(),
                "ValidatingAdmissionPolicy 'limit' with binding 'audit' audit: replicas 8 > 5 (reason: Forbidden)"
                    .to_string()
            ),
        ]
    );
}

/// Parameters by name and by selector: the documentation's ReplicaLimit example. With a
/// selector every matching parameter is evaluated and each failure is its own rejection
/// (dispatcher.go evaluates per param, "all params must pass"). A parameter not in the
/// repository with `parameterNotFoundAction: Deny` (the default) rejects in the cluster only
/// if none exists there either: undecided, reported once for the binding. With `Allow`
/// nothing is checked (dispatcher.go skips the binding).
#[test]
fn params_by_name_and_selector_and_missing() {
    let limit = |name: &str, max: i64, labels: Json| serde_json::json!({"apiVersion": "rules.example.com/v1", "kind": "ReplicaLimit", "metadata": {"name": name, "namespace": "default", "labels": labels}, "maxReplicas": max});
    let found = run(&[
        (
            "p.yaml",
            policy(
                "replicalimit",
                serde_json::json!({"paramKind": {"apiVersion": "rules.example.com/v1", "kind": "ReplicaLimit"}, "matchConstraints": deployments_rule(), "validations": [{"expression": "object.spec.replicas <= params.maxReplicas", "messageExpression": "'object.spec.replicas must be no greater than ' + string(params.maxReplicas)"}]}),
            ),
        ),
        (
            "by-name.yaml",
            binding(
                "by-name",
                serde_json::json!({"policyName": "replicalimit", "validationActions": ["Deny"], "paramRef": {"name": "small", "namespace": "default"}}),
            ),
        ),
        (
            "by-selector.yaml",
            binding(
                "by-selector",
                serde_json::json!({"policyName": "replicalimit", "validationActions": ["Warn"], "paramRef": {"selector": {"matchLabels": {"tier": "x"}}, "namespace": "default"}}),
            ),
        ),
        (
            "missing.yaml",
            binding(
                "missing",
                serde_json::json!({"policyName": "replicalimit", "validationActions": ["Deny"], "paramRef": {"name": "nope", "namespace": "default"}}),
            ),
        ),
        (
            "allow.yaml",
            binding(
                "allow",
                serde_json::json!({"policyName": "replicalimit", "validationActions": ["Deny"], "paramRef": {"name": "nope", "namespace": "default", "parameterNotFoundAction": "Allow"}}),
            ),
        ),
        ("small.yaml", limit("small", 3, serde_json::json!({"tier": "x"}))),
        ("large.yaml", limit("large", 6, serde_json::json!({"tier": "x"}))),
        ("other.yaml", limit("other", 1, serde_json::json!({"tier": "y"}))),
        ("d.yaml", deployment("default", "d", 5, serde_json::json!({}))),
    ]);
    assert_eq!(
        summary(&found),
        [
            (
                Rule::AdmissionViolation,
                Severity::Error,
                "d.yaml".to_string(),
                "ValidatingAdmissionPolicy 'replicalimit' with binding 'by-name' denied request: object.spec.replicas must be no greater than 3 (reason: Invalid)".to_string()
            ),
            (
                Rule::AdmissionViolation,
                Severity::Warning,
                "d.yaml".to_string(),
                "ValidatingAdmissionPolicy 'replicalimit' with binding 'by-selector' warns: object.spec.replicas must be no greater than 3 (reason: Invalid)".to_string()
            ),
            (
                Rule::AdmissionUndecided,
                Severity::Note,
                "missing.yaml".to_string(),
                "ValidatingAdmissionPolicy 'replicalimit' with binding 'missing' cannot be decided offline: no ReplicaLimit parameter in the repository named 'nope' in namespace 'default'".to_string()
            ),
        ]
    );
}

/// Object selectors, excluded resources, match conditions, variables and failure policy:
/// - objectSelector reads the object's labels (object/matcher.go);
/// - excludeResourceRules take precedence over resourceRules (matching.go `MatchesResource`);
/// - a false matchCondition skips the policy, an error in one follows failurePolicy
///   (matchconditions/matcher.go);
/// - a variable is visible as `variables.NAME` (composition.go) and its error is the error of
///   the expression using it;
/// - policies and bindings are never matched (rules.IsExemptAdmissionConfigurationResource);
/// - a validation error (a missing field) with failurePolicy Fail rejects with
///   "expression '…' resulted in error"; with Ignore it is dropped (validator.go).
#[test]
fn selectors_exclusions_conditions_variables_and_failure_policy() {
    let found = run(&[
        (
            "p.yaml",
            policy(
                "labels",
                serde_json::json!({
                    "matchConstraints": {
                        "resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"]}],
                        "excludeResourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}],
                        "objectSelector": {"matchExpressions": [{"key": "skip", "operator": "DoesNotExist"}]}
                    },
                    "matchConditions": [{"name": "not-system", "expression": "!object.metadata.name.startsWith('system-')"}],
                    "variables": [{"name": "team", "expression": "object.metadata.labels.team"}, {"name": "ok", "expression": "variables.team in ['a', 'b']"}],
                    "validations": [{"expression": "variables.ok", "messageExpression": "'team ' + variables.team + ' is unknown'"}]
                }),
            ),
        ),
        ("b.yaml", binding("labels", serde_json::json!({"policyName": "labels", "validationActions": ["Deny"]}))),
        (
            "p2.yaml",
            policy(
                "ignored",
                serde_json::json!({"failurePolicy": "Ignore", "matchConstraints": deployments_rule(), "validations": [{"expression": "object.spec.missing.field == 1"}]}),
            ),
        ),
        ("b2.yaml", binding("ignored", serde_json::json!({"policyName": "ignored", "validationActions": ["Deny"]}))),
        ("team-c.yaml", deployment("ns", "web", 1, serde_json::json!({"team": "c"}))),
        ("team-a.yaml", deployment("ns", "api", 1, serde_json::json!({"team": "a"}))),
        ("no-team.yaml", deployment("ns", "job", 1, serde_json::json!({}))),
        ("skipped.yaml", deployment("ns", "skip", 1, serde_json::json!({"team": "c", "skip": "yes"}))),
        ("system.yaml", deployment("ns", "system-x", 1, serde_json::json!({"team": "c"}))),
        (
            "cm.yaml",
            serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "ns"}}),
        ),
    ]);
    let s = summary(&found);
    let places: Vec<(&str, Severity)> = s.iter().map(|f| (f.2.as_str(), f.1)).collect();
    assert_eq!(
        places,
        // The policies and bindings match `*` but are exempt: no policy applies to the
        // admission configuration (rules.IsExemptAdmissionConfigurationResource).
        [("no-team.yaml", Severity::Error), ("team-c.yaml", Severity::Error)],
        "{s:#?}"
    );
    let msg = |f: &str| s.iter().find(|x| x.2 == f).unwrap().3.clone();
    assert_eq!(
        msg("team-c.yaml"),
        "ValidatingAdmissionPolicy 'labels' with binding 'labels' denied request: team c is unknown (reason: Invalid)"
    );
    assert!(
        msg("no-team.yaml")
            .contains("expression 'variables.ok' resulted in error: variable 'ok': variable 'team': No such key: team"),
        "{}",
        msg("no-team.yaml")
    );
    assert!(msg("no-team.yaml").ends_with("(failurePolicy: Fail)"), "{}", msg("no-team.yaml"));
}

/// What cannot be decided offline is said once per binding and reason: an `authorizer` call,
/// a binding to a policy not in the repository, a Namespace not in the repository under a
/// namespace selector.
#[test]
fn undecidable_policies_are_reported_once() {
    let found = run(&[
        (
            "p.yaml",
            policy(
                "authz",
                serde_json::json!({"matchConstraints": deployments_rule(), "validations": [{"expression": "authorizer.group('apps').resource('deployments').check('scale').allowed()"}]}),
            ),
        ),
        ("b.yaml", binding("authz", serde_json::json!({"policyName": "authz", "validationActions": ["Deny"]}))),
        (
            "b2.yaml",
            binding("elsewhere", serde_json::json!({"policyName": "in-the-cluster", "validationActions": ["Deny"]})),
        ),
        (
            "p3.yaml",
            policy(
                "plain",
                serde_json::json!({"matchConstraints": deployments_rule(), "validations": [{"expression": "false"}]}),
            ),
        ),
        (
            "b3.yaml",
            binding(
                "by-ns",
                serde_json::json!({"policyName": "plain", "validationActions": ["Deny"], "matchResources": {"namespaceSelector": {"matchLabels": {"x": "y"}}}}),
            ),
        ),
        ("d1.yaml", deployment("unknown", "a", 1, serde_json::json!({}))),
        ("d2.yaml", deployment("unknown", "b", 1, serde_json::json!({}))),
    ]);
    let s = summary(&found);
    let got: Vec<(Rule, &str)> = s.iter().map(|f| (f.0, f.2.as_str())).collect();
    assert_eq!(
        got,
        [
            (Rule::AdmissionUndecided, "b.yaml"),
            (Rule::AdmissionUndecided, "b2.yaml"),
            (Rule::AdmissionUndecided, "b3.yaml")
        ],
        "{s:#?}"
    );
    assert!(s[0].3.contains("asks the authorizer"), "{}", s[0].3);
    assert!(s[1].3.contains("the policy is not in the repository"), "{}", s[1].3);
    assert!(s[2].3.contains("Namespace 'unknown' is not in the repository"), "{}", s[2].3);
}

/// A validation that does not compile: the policy is invalid (once), and each object it
/// matches fails under failurePolicy Fail.
#[test]
fn an_expression_that_does_not_compile() {
    let found = run(&[
        (
            "p.yaml",
            policy(
                "broken",
                serde_json::json!({"matchConstraints": deployments_rule(), "validations": [{"expression": "object.spec.replicas <"}]}),
            ),
        ),
        ("b.yaml", binding("broken", serde_json::json!({"policyName": "broken", "validationActions": ["Deny"]}))),
        ("d.yaml", deployment("ns", "a", 1, serde_json::json!({}))),
    ]);
    let s = summary(&found);
    let got: Vec<(Rule, &str)> = s.iter().map(|f| (f.0, f.2.as_str())).collect();
    assert_eq!(got, [(Rule::AdmissionViolation, "d.yaml"), (Rule::AdmissionInvalid, "p.yaml")], "{s:#?}");
}

/// The same policy and binding defined twice, identically (a copy per release channel, as
/// gateway-api ships them): one cluster-scoped object of each is installed, so a violation is
/// reported once, not once per copy.
#[test]
fn a_policy_and_binding_defined_twice_are_evaluated_once() {
    let limit = || {
        policy(
            "limit",
            serde_json::json!({"matchConstraints": deployments_rule(), "validations": [{"expression": "object.spec.replicas <= 5", "message": "at most 5"}]}),
        )
    };
    let bind = || binding("limit", serde_json::json!({"policyName": "limit", "validationActions": ["Deny"]}));
    let found = run(&[
        ("standard/p.yaml", limit()),
        ("standard/b.yaml", bind()),
        ("experimental/p.yaml", limit()),
        ("experimental/b.yaml", bind()),
        ("d.yaml", deployment("ns", "big", 10, serde_json::json!({}))),
    ]);
    let s = summary(&found);
    assert_eq!(s.len(), 1, "{s:#?}");
    assert_eq!((s[0].0, s[0].1, s[0].2.as_str()), (Rule::AdmissionViolation, Severity::Error, "d.yaml"), "{s:#?}");
}

/// A policy name is one object in a cluster: a repository that keeps a different copy per
/// release channel (kubernetes-sigs/gateway-api `4564255`: `safe-upgrades` in
/// `config/crd/standard/` refuses the development version the `config/crd/experimental/`
/// copy accepts) installs one beside that channel's objects. Each object meets the copy
/// nearest to it, not whichever was read last.
#[test]
fn each_channel_meets_its_own_copy_of_a_policy() {
    let copy = |limit: i64| {
        policy(
            "safe-upgrades.example.com",
            serde_json::json!({"failurePolicy": "Fail", "matchConstraints": deployments_rule(), "validations": [{"expression": format!("object.spec.replicas <= {limit}"), "message": format!("at most {limit} replicas")}]}),
        )
    };
    let bind = || {
        binding(
            "safe-upgrades.example.com",
            serde_json::json!({"policyName": "safe-upgrades.example.com", "validationActions": ["Deny"]}),
        )
    };
    let found = run(&[
        ("crd/experimental/policy.yaml", copy(10)),
        ("crd/experimental/binding.yaml", bind()),
        ("crd/experimental/web.yaml", deployment("default", "web", 5, serde_json::json!({}))),
        ("crd/standard/policy.yaml", copy(3)),
        ("crd/standard/binding.yaml", bind()),
        ("crd/standard/web.yaml", deployment("default", "web", 5, serde_json::json!({}))),
    ]);
    assert_eq!(
        summary(&found),
        [(
            Rule::AdmissionViolation,
            Severity::Error,
            "crd/standard/web.yaml".to_string(),
            "ValidatingAdmissionPolicy 'safe-upgrades.example.com' with binding 'safe-upgrades.example.com' denied request: at most 3 replicas (reason: Invalid)".to_string()
        )]
    );
}

/// Copies of a policy at the same distance from an object (the same number of leading
/// directories shared with its file): the object meets the last read, as `kubectl apply -f`
/// of the repository leaves the last applied copy of a cluster-scoped name. A directory name
/// shared further down (`examples/standard/` with `crd/standard/`) does not count, where the
/// schema registry's `nearest` counts it and takes the first read: the two rules differ on
/// purpose (see `nearest` in this crate), and this test and
/// `driftlint_schema`'s `objects_meet_the_nearest_differing_definition` keep each as it is.
#[test]
fn copies_at_the_same_distance_meet_the_last_read() {
    let copy = |limit: i64| {
        policy(
            "replica-limit.example.com",
            serde_json::json!({"failurePolicy": "Fail", "matchConstraints": deployments_rule(), "validations": [{"expression": format!("object.spec.replicas <= {limit}"), "message": format!("at most {limit} replicas")}]}),
        )
    };
    let bind = binding(
        "replica-limit.example.com",
        serde_json::json!({"policyName": "replica-limit.example.com", "validationActions": ["Deny"]}),
    );
    let web = || deployment("default", "web", 5, serde_json::json!({}));
    let files = |last: &str| -> Vec<String> {
        let (first, first_limit, then, then_limit) = match last {
            "standard" => ("experimental", 10, "standard", 3),
            _ => ("standard", 3, "experimental", 10),
        };
        let found = run(&[
            ("binding.yaml", bind.clone()),
            (&format!("crd/{first}/policy.yaml"), copy(first_limit)),
            (&format!("crd/{then}/policy.yaml"), copy(then_limit)),
            ("examples/standard/web.yaml", web()),
        ]);
        summary(&found).into_iter().map(|f| f.2).collect()
    };
    // The standard copy (at most 3) read last: it judges the object.
    assert_eq!(files("standard"), ["examples/standard/web.yaml"]);
    // The experimental copy (at most 10) read last, the same directory name notwithstanding.
    assert_eq!(files("experimental"), Vec::<String>::new());
}
