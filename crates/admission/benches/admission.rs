//! 1,000 objects × 10 policies (each with its binding, a match condition, a variable and two
//! validations, one Deny binding with a namespace selector): the time one `check` takes.
//! `cargo bench -p driftlint-admission` prints it; the bound asked of it is 0.5 s.

use std::time::Instant;

use driftlint_admission::{Object, check};
use driftlint_cel::cost::Budget;
use driftlint_core::diagnostic::SourcePath;
use serde_json::json;

fn main() {
    let mut docs = Vec::new();
    for i in 0..10 {
        docs.push(json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": format!("p{i}")},
            "spec": {
                "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}]},
                "matchConditions": [{"name": "labelled", "expression": "has(object.metadata.labels)"}],
                "variables": [{"name": "containers", "expression": "object.spec.template.spec.containers"}],
                "validations": [
                    {"expression": format!("object.spec.replicas <= {}", 5 + i), "message": "too many replicas"},
                    {"expression": "variables.containers.all(c, c.image.contains(':') && !c.image.endsWith(':latest'))", "messageExpression": "'images need a tag: ' + object.metadata.name"}
                ]}}));
        docs.push(json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": format!("b{i}")},
            "spec": {"policyName": format!("p{i}"), "validationActions": [if i % 2 == 0 { "Deny" } else { "Warn" }],
                "matchResources": {"namespaceSelector": {"matchLabels": {"env": "prod"}}}}}));
    }
    for n in 0..10 {
        docs.push(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": format!("ns{n}"), "labels": {"env": "prod"}}}));
    }
    for o in 0..1000 {
        docs.push(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": format!("app{o}"), "namespace": format!("ns{}", o % 10), "labels": {"app": format!("app{o}")}},
            "spec": {"replicas": o % 12, "template": {"spec": {"containers": [
                {"name": "main", "image": if o % 7 == 0 { "nginx:latest".to_string() } else { format!("registry/app{o}:1.2.3") }},
                {"name": "sidecar", "image": "envoy:1.30"}
            ]}}}}));
    }
    let path = SourcePath::File("bench.yaml".into());
    let objects: Vec<Object<'_>> = docs.iter().map(|v| Object { value: v, path: &path, range: None }).collect();
    let mut best = f64::MAX;
    let mut findings = 0;
    for _ in 0..5 {
        let start = Instant::now();
        findings = check(&objects, &objects, &mut Budget::default()).len();
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!("admission: 1,000 objects x 10 policies: {findings} findings, best of 5: {:.3} s", best);
}
