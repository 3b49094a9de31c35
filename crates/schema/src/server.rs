//! What the API server rejects in a built-in object beyond its OpenAPI schema: the most
//! common of Kubernetes' own validations (`k8s.io/kubernetes/pkg/apis/*/validation`,
//! `apimachinery/pkg/util/validation`), offline, each as a rule of its own:
//!
//! - `selector-mismatch`: a Deployment's, StatefulSet's, DaemonSet's or ReplicaSet's
//!   `spec.selector` that is empty or does not select its own pod template's labels
//!   (`ValidateDeploymentSpec`: "selector does not match template labels");
//! - `duplicate-name`: two containers (init and ephemeral ones included), volumes, or named
//!   ports of one container with the same name ("Duplicate value");
//! - `invalid-name`: an object name that is no DNS-1123 subdomain (a DNS-1035 label for a
//!   Service, a DNS-1123 label for a Namespace), a container name that is no DNS-1123 label, a
//!   port name that is no IANA service name;
//! - `invalid-label`: label keys and values, annotation keys, of the wrong syntax or length;
//! - `invalid-port`: port numbers out of 1–65535, protocols other than TCP, UDP, SCTP, a
//!   Service with several ports not all named;
//! - `invalid-resources`: requests and limits that are no quantities, or a request above its
//!   limit.
//!
//! It reads the spanned tree of an object whose built-in schema was found (so the types are
//! checked elsewhere: a value of the wrong type is skipped here) and knows nothing of files.

use std::collections::HashMap;
use std::ops::Range;

use driftlint_yaml::{Node, NodeValue};

use driftlint_core::diagnostic::Rule;

/// One finding: rule, where, what.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub rule: Rule,
    pub span: Range<usize>,
    pub message: String,
    /// The field, as a JSON pointer.
    pub pointer: String,
}

/// The server-side findings of an object of `group`/`kind`.
pub fn check(root: &Node, group: &str, kind: &str) -> Vec<Finding> {
    let mut c = Checker { out: Vec::new() };
    if let Some((k, meta)) = root.entry("metadata") {
        c.object_name(meta, group, kind);
        c.metadata(k, meta, "/metadata");
    }
    let spec = root.get("spec");
    match (group, kind) {
        ("apps", "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet") => {
            if let Some(spec) = spec {
                c.selector(spec);
                c.template(spec, "/spec/template");
            }
        }
        ("", "ReplicationController" | "PodTemplate") | ("batch", "Job") => {
            let template = if kind == "PodTemplate" { Some(root) } else { spec };
            if let Some(t) = template {
                c.template(t, if kind == "PodTemplate" { "/template" } else { "/spec/template" });
            }
        }
        ("batch", "CronJob") => {
            if let Some(job) = spec.and_then(|s| s.get("jobTemplate")).and_then(|j| j.get("spec")) {
                c.template(job, "/spec/jobTemplate/spec/template");
            }
        }
        ("", "Pod") => {
            if let Some(spec) = spec {
                c.pod_spec(spec, "/spec");
            }
        }
        ("", "Service") => {
            if let Some(spec) = spec {
                c.service(spec);
            }
        }
        _ => {}
    }
    c.out
}

struct Checker {
    out: Vec<Finding>,
}

/// `/a/b` → `a.b` for messages.
fn show(pointer: &str) -> String {
    super::validate::show(pointer)
}

fn items(node: Option<&Node>) -> &[Node] {
    match node.map(|n| &n.value) {
        Some(NodeValue::Sequence(items)) => items,
        _ => &[],
    }
}

fn entries(node: Option<&Node>) -> &[(Node, Node)] {
    match node.map(|n| &n.value) {
        Some(NodeValue::Mapping(entries)) => entries,
        _ => &[],
    }
}

/// The span of `key`'s value in `node` (else of the key, else of the node).
fn value_span(node: &Node, key: &str) -> Range<usize> {
    node.entry(key).map_or_else(|| node.span.clone(), |(_, v)| v.span.clone())
}

impl Checker {
    fn push(&mut self, rule: Rule, span: Range<usize>, pointer: String, message: String) {
        self.out.push(Finding { rule, span, message, pointer });
    }

    fn object_name(&mut self, meta: &Node, group: &str, kind: &str) {
        let Some(name) = meta.get("name").and_then(Node::as_str) else { return };
        // RBAC objects take path-segment names (`system:controller:x`); they are not checked.
        let (what, problem) = match (group, kind) {
            ("rbac.authorization.k8s.io", _) => return,
            ("", "Service") => ("a DNS-1035 label", dns1035_label(name)),
            ("", "Namespace") => ("a DNS-1123 label", dns1123_label(name)),
            _ => ("a DNS-1123 subdomain", dns1123_subdomain(name)),
        };
        if let Some(why) = problem {
            let msg = format!("the name {name:?} of this {kind} is not {what}: {why}");
            self.push(Rule::InvalidName, value_span(meta, "name"), "/metadata/name".into(), msg);
        }
    }

    /// Label keys and values, annotation keys, of a `metadata`.
    fn metadata(&mut self, _key: &Node, meta: &Node, pointer: &str) {
        self.labels(meta.get("labels"), &format!("{pointer}/labels"), "label");
        for (k, _) in entries(meta.get("annotations")) {
            if let Some(key) = k.as_str()
                && let Some(why) = label_key(key)
            {
                let p = format!("{pointer}/annotations/{}", escape(key));
                self.push(Rule::InvalidLabel, k.span.clone(), p, format!("annotation key {key:?}: {why}"));
            }
        }
    }

    fn labels(&mut self, labels: Option<&Node>, pointer: &str, what: &str) {
        for (k, v) in entries(labels) {
            let Some(key) = k.as_str() else { continue };
            let p = format!("{pointer}/{}", escape(key));
            if let Some(why) = label_key(key) {
                self.push(Rule::InvalidLabel, k.span.clone(), p.clone(), format!("{what} key {key:?}: {why}"));
            }
            if let Some(value) = v.as_str()
                && let Some(why) = label_value(value)
            {
                self.push(Rule::InvalidLabel, v.span.clone(), p, format!("{what} value {value:?} of `{key}`: {why}"));
            }
        }
    }

    /// `spec.selector` of a workload against `spec.template.metadata.labels`.
    fn selector(&mut self, spec: &Node) {
        let Some((key, selector)) = spec.entry("selector") else { return };
        let labels: HashMap<&str, &str> =
            entries(spec.get("template").and_then(|t| t.get("metadata")).and_then(|m| m.get("labels")))
                .iter()
                .filter_map(|(k, v)| Some((k.as_str()?, v.as_str().unwrap_or(""))))
                .collect();
        self.labels(selector.get("matchLabels"), "/spec/selector/matchLabels", "selector");
        let match_labels = entries(selector.get("matchLabels"));
        let expressions = items(selector.get("matchExpressions"));
        if match_labels.is_empty() && expressions.is_empty() {
            let msg = "`spec.selector` is empty: it must select the pod template's labels".to_string();
            self.push(Rule::SelectorMismatch, key.span.clone(), "/spec/selector".into(), msg);
            return;
        }
        let mut unmet = Vec::new();
        for (k, v) in match_labels {
            let (Some(k), Some(v)) = (k.as_str(), v.as_str()) else { continue };
            if labels.get(k) != Some(&v) {
                unmet.push(format!("`{k}: {v}`"));
            }
        }
        for e in expressions {
            let (Some(k), Some(op)) = (e.get("key").and_then(Node::as_str), e.get("operator").and_then(Node::as_str))
            else {
                continue;
            };
            let values: Vec<&str> = items(e.get("values")).iter().filter_map(Node::as_str).collect();
            let has = labels.get(k);
            let met = match op {
                "In" => has.is_some_and(|v| values.contains(v)),
                "NotIn" => !has.is_some_and(|v| values.contains(v)),
                "Exists" => has.is_some(),
                "DoesNotExist" => has.is_none(),
                _ => true,
            };
            if !met {
                unmet.push(format!("`{k} {op} [{}]`", values.join(", ")));
            }
        }
        if !unmet.is_empty() {
            let msg = format!(
                "`spec.selector` does not select the pod template's labels (`spec.template.metadata.labels`): {} not met",
                unmet.join(", ")
            );
            self.push(Rule::SelectorMismatch, key.span.clone(), "/spec/selector".into(), msg);
        }
    }

    /// A pod template (`template:` of `parent`).
    fn template(&mut self, parent: &Node, pointer: &str) {
        let Some(template) = parent.get("template") else { return };
        if let Some((k, meta)) = template.entry("metadata") {
            self.metadata(k, meta, &format!("{pointer}/metadata"));
        }
        if let Some(spec) = template.get("spec") {
            self.pod_spec(spec, &format!("{pointer}/spec"));
        }
    }

    fn pod_spec(&mut self, spec: &Node, pointer: &str) {
        let mut containers: HashMap<String, Range<usize>> = HashMap::new();
        for list in ["initContainers", "containers", "ephemeralContainers"] {
            for (i, c) in items(spec.get(list)).iter().enumerate() {
                let at = format!("{pointer}/{list}/{i}");
                if let Some(name) = c.get("name").and_then(Node::as_str) {
                    let span = value_span(c, "name");
                    if let Some(why) = dns1123_label(name) {
                        let msg = format!("container name {name:?} is not a DNS-1123 label: {why}");
                        self.push(Rule::InvalidName, span.clone(), format!("{at}/name"), msg);
                    }
                    if containers.insert(name.to_string(), span.clone()).is_some() {
                        let msg = format!("a second container named {name:?} in `{}`", show(pointer).trim_matches('`'));
                        self.push(Rule::DuplicateName, span, format!("{at}/name"), msg);
                    }
                }
                self.container(c, &at);
            }
        }
        let mut volumes = HashMap::new();
        for (i, v) in items(spec.get("volumes")).iter().enumerate() {
            if let Some(name) = v.get("name").and_then(Node::as_str)
                && volumes.insert(name.to_string(), ()).is_some()
            {
                let msg = format!("a second volume named {name:?}");
                self.push(Rule::DuplicateName, value_span(v, "name"), format!("{pointer}/volumes/{i}/name"), msg);
            }
        }
    }

    fn container(&mut self, c: &Node, pointer: &str) {
        let mut names = HashMap::new();
        for (i, p) in items(c.get("ports")).iter().enumerate() {
            let at = format!("{pointer}/ports/{i}");
            for key in ["containerPort", "hostPort"] {
                if let Some(NodeValue::Int(n)) = p.get(key).map(|v| &v.value)
                    && !(1..=65535).contains(n)
                    && !(key == "hostPort" && *n == 0)
                {
                    let msg = format!("`{key}: {n}` is not a port number (1 to 65535)");
                    self.push(Rule::InvalidPort, value_span(p, key), format!("{at}/{key}"), msg);
                }
            }
            self.protocol(p, &at);
            if let Some(name) = p.get("name").and_then(Node::as_str) {
                if let Some(why) = iana_svc_name(name) {
                    let msg = format!("port name {name:?} is not an IANA service name: {why}");
                    self.push(Rule::InvalidName, value_span(p, "name"), format!("{at}/name"), msg);
                }
                if names.insert(name.to_string(), ()).is_some() {
                    let msg = format!("a second port named {name:?} in this container");
                    self.push(Rule::DuplicateName, value_span(p, "name"), format!("{at}/name"), msg);
                }
            }
        }
        self.resources(c, pointer);
    }

    fn protocol(&mut self, port: &Node, pointer: &str) {
        if let Some(p) = port.get("protocol").and_then(Node::as_str)
            && !matches!(p, "TCP" | "UDP" | "SCTP")
        {
            let msg = format!("protocol {p:?} is not one of TCP, UDP, SCTP");
            self.push(Rule::InvalidPort, value_span(port, "protocol"), format!("{pointer}/protocol"), msg);
        }
    }

    fn resources(&mut self, c: &Node, pointer: &str) {
        let Some(resources) = c.get("resources") else { return };
        let mut parsed: HashMap<(&str, String), f64> = HashMap::new();
        for which in ["requests", "limits"] {
            for (k, v) in entries(resources.get(which)) {
                let Some(name) = k.as_str() else { continue };
                let text = match &v.value {
                    NodeValue::String(s) => s.clone(),
                    NodeValue::Int(i) => i.to_string(),
                    NodeValue::Float(f) => f.to_string(),
                    _ => continue,
                };
                let at = format!("{pointer}/resources/{which}/{}", escape(name));
                match quantity(&text) {
                    Some(q) if q < 0.0 => {
                        let msg = format!("{which} of `{name}`: {text:?} is negative");
                        self.push(Rule::InvalidResources, v.span.clone(), at, msg);
                    }
                    Some(q) => {
                        parsed.insert((which, name.to_string()), q);
                    }
                    None => {
                        let msg =
                            format!("{which} of `{name}`: {text:?} is not a quantity (such as 500m, 1.5, 128Mi, 1G)");
                        self.push(Rule::InvalidResources, v.span.clone(), at, msg);
                    }
                }
            }
        }
        for (k, v) in entries(resources.get("requests")) {
            let Some(name) = k.as_str() else { continue };
            if let (Some(req), Some(lim)) =
                (parsed.get(&("requests", name.to_string())), parsed.get(&("limits", name.to_string())))
                && req > lim
            {
                let msg = format!("the request of `{name}` is above its limit (a request must be at most the limit)");
                let at = format!("{pointer}/resources/requests/{}", escape(name));
                self.push(Rule::InvalidResources, v.span.clone(), at, msg);
            }
        }
    }

    fn service(&mut self, spec: &Node) {
        let ports = items(spec.get("ports"));
        let mut names = HashMap::new();
        for (i, p) in ports.iter().enumerate() {
            let at = format!("/spec/ports/{i}");
            for key in ["port", "targetPort", "nodePort"] {
                if let Some(NodeValue::Int(n)) = p.get(key).map(|v| &v.value)
                    && !(1..=65535).contains(n)
                    && !(key == "nodePort" && *n == 0)
                {
                    let msg = format!("`{key}: {n}` is not a port number (1 to 65535)");
                    self.push(Rule::InvalidPort, value_span(p, key), format!("{at}/{key}"), msg);
                }
            }
            if let Some(name) = p.get("targetPort").and_then(Node::as_str)
                && let Some(why) = iana_svc_name(name)
            {
                let msg = format!("`targetPort: {name}` is neither a port number nor an IANA service name: {why}");
                self.push(Rule::InvalidPort, value_span(p, "targetPort"), format!("{at}/targetPort"), msg);
            }
            self.protocol(p, &at);
            match p.get("name").and_then(Node::as_str) {
                Some(name) => {
                    if let Some(why) = dns1123_label(name) {
                        let msg = format!("Service port name {name:?} is not a DNS-1123 label: {why}");
                        self.push(Rule::InvalidName, value_span(p, "name"), format!("{at}/name"), msg);
                    }
                    if names.insert(name.to_string(), ()).is_some() {
                        let msg = format!("a second Service port named {name:?}");
                        self.push(Rule::DuplicateName, value_span(p, "name"), format!("{at}/name"), msg);
                    }
                }
                None if ports.len() > 1 => {
                    let msg = "a Service with several ports must name each of them".to_string();
                    self.push(Rule::InvalidPort, p.span.clone(), at, msg);
                }
                None => {}
            }
        }
    }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn is_alnum_lower(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// Why `s` is no DNS-1123 label (RFC 1123: at most 63 of `a-z0-9-`, alphanumeric at both ends).
pub fn dns1123_label(s: &str) -> Option<String> {
    if s.is_empty() {
        return Some("it is empty".into());
    }
    if s.len() > 63 {
        return Some(format!("it is {} characters long, more than 63", s.len()));
    }
    let b = s.as_bytes();
    if !b.iter().all(|c| is_alnum_lower(*c) || *c == b'-') {
        return Some("only lowercase letters, digits and '-' are allowed".into());
    }
    if !is_alnum_lower(b[0]) || !is_alnum_lower(b[b.len() - 1]) {
        return Some("it must start and end with a lowercase letter or digit".into());
    }
    None
}

/// Why `s` is no DNS-1035 label (a DNS-1123 label that starts with a letter).
pub fn dns1035_label(s: &str) -> Option<String> {
    dns1123_label(s).or_else(|| {
        (!s.as_bytes()[0].is_ascii_lowercase()).then(|| "it must start with a lowercase letter".to_string())
    })
}

/// Why `s` is no DNS-1123 subdomain (at most 253 characters of dot-separated labels).
pub fn dns1123_subdomain(s: &str) -> Option<String> {
    if s.is_empty() {
        return Some("it is empty".into());
    }
    if s.len() > 253 {
        return Some(format!("it is {} characters long, more than 253", s.len()));
    }
    let b = s.as_bytes();
    if !b.iter().all(|c| is_alnum_lower(*c) || *c == b'-' || *c == b'.') {
        return Some("only lowercase letters, digits, '-' and '.' are allowed".into());
    }
    if s.split('.').any(|part| {
        part.is_empty() || !is_alnum_lower(part.as_bytes()[0]) || !is_alnum_lower(part.as_bytes()[part.len() - 1])
    }) {
        return Some("each dot-separated part must start and end with a lowercase letter or digit".into());
    }
    None
}

/// Why `s` is no label name part (at most 63 of `A-Za-z0-9-_.`, alphanumeric at both ends).
fn qualified_name_part(s: &str) -> Option<String> {
    if s.is_empty() {
        return Some("the name part is empty".into());
    }
    if s.len() > 63 {
        return Some(format!("the name part is {} characters long, more than 63", s.len()));
    }
    let b = s.as_bytes();
    if !b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')) {
        return Some("only letters, digits, '-', '_' and '.' are allowed".into());
    }
    if !b[0].is_ascii_alphanumeric() || !b[b.len() - 1].is_ascii_alphanumeric() {
        return Some("it must start and end with a letter or digit".into());
    }
    None
}

/// Why `key` is no label or annotation key (`[prefix/]name`, the prefix a DNS-1123 subdomain).
pub fn label_key(key: &str) -> Option<String> {
    match key.split_once('/') {
        Some((prefix, name)) => dns1123_subdomain(prefix)
            .map(|why| format!("the prefix {prefix:?} is not a DNS-1123 subdomain: {why}"))
            .or_else(|| qualified_name_part(name)),
        None => qualified_name_part(key),
    }
}

/// Why `value` is no label value (empty, or a name part).
pub fn label_value(value: &str) -> Option<String> {
    if value.is_empty() { None } else { qualified_name_part(value).map(|w| w.replace("the name part", "it")) }
}

/// Why `s` is no IANA service name (at most 15 of `a-z0-9-`, a letter among them, no `--`,
/// alphanumeric at both ends).
pub fn iana_svc_name(s: &str) -> Option<String> {
    if s.is_empty() {
        return Some("it is empty".into());
    }
    if s.len() > 15 {
        return Some(format!("it is {} characters long, more than 15", s.len()));
    }
    let b = s.as_bytes();
    if !b.iter().all(|c| is_alnum_lower(*c) || *c == b'-') {
        return Some("only lowercase letters, digits and '-' are allowed".into());
    }
    if !b.iter().any(u8::is_ascii_lowercase) {
        return Some("it must contain a letter".into());
    }
    if s.contains("--") || b[0] == b'-' || b[b.len() - 1] == b'-' {
        return Some("'-' may not start or end it, nor be doubled".into());
    }
    None
}

/// A Kubernetes quantity's value (`500m` = 0.5, `1Gi` = 2^30, `1e3` = 1000), or `None` when
/// `s` is none (`resource.ParseQuantity`'s grammar).
pub fn quantity(s: &str) -> Option<f64> {
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1.0, &s[1..]),
        b'-' => (-1.0, &s[1..]),
        _ => (1.0, s),
    };
    let digits_end = rest.bytes().position(|b| !(b.is_ascii_digit() || b == b'.')).unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(digits_end);
    if number.is_empty() || number == "." || number.matches('.').count() > 1 {
        return None;
    }
    let n: f64 = number.parse().ok()?;
    let factor = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024f64,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        e if e.starts_with(['e', 'E']) => {
            let exp = &e[1..];
            let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            10f64.powi(exp.parse::<i32>().ok()?)
        }
        _ => return None,
    };
    Some(sign * n * factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(Rule, usize)> {
        let root = driftlint_yaml::parse_stream(text).documents.remove(0).root;
        let av = root.get("apiVersion").and_then(Node::as_str).unwrap_or_default();
        let kind = root.get("kind").and_then(Node::as_str).unwrap_or_default();
        let (group, _) = crate::split_api_version(av);
        check(&root, group, kind).iter().map(|f| (f.rule, text[..f.span.start].matches('\n').count() + 1)).collect()
    }

    #[test]
    fn a_deployment_the_api_server_would_reject() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: Web_1\n  labels: {app/x/y: ok, tier: -bad}\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: api}\n    spec:\n      containers:\n        - name: web\n          image: nginx\n          ports:\n            - {name: http, containerPort: 80}\n            - {name: http, containerPort: 70000, protocol: tcp}\n          resources:\n            requests: {cpu: 2, memory: 1Gb}\n            limits: {cpu: 500m}\n        - name: web\n          image: nginx\n";
        assert_eq!(
            found(text),
            [
                (Rule::InvalidName, 4),
                (Rule::InvalidLabel, 5),
                (Rule::InvalidLabel, 5),
                (Rule::SelectorMismatch, 7),
                (Rule::InvalidPort, 18),
                (Rule::InvalidPort, 18),
                (Rule::DuplicateName, 18),
                (Rule::InvalidResources, 20),
                (Rule::InvalidResources, 20),
                (Rule::DuplicateName, 22),
            ]
        );
    }

    #[test]
    fn valid_objects_have_no_findings() {
        let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web.v2\n  labels: {app.kubernetes.io/name: web}\n  annotations: {example.com/owner: x}\nspec:\n  selector:\n    matchLabels: {app: web}\n    matchExpressions: [{key: tier, operator: In, values: [front]}, {key: canary, operator: DoesNotExist}]\n  template:\n    metadata:\n      labels: {app: web, tier: front}\n    spec:\n      initContainers: [{name: init, image: i}]\n      containers:\n        - name: web\n          image: nginx\n          ports: [{name: http, containerPort: 80}, {name: metrics, containerPort: 9090, protocol: UDP}]\n          resources:\n            requests: {cpu: 100m, memory: 64Mi}\n            limits: {cpu: 0.5, memory: 1e9}\n";
        assert_eq!(found(deployment), []);
        let service = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports: [{name: http, port: 80, targetPort: http}, {name: https, port: 443, targetPort: 8443}]\n";
        assert_eq!(found(service), []);
        let role =
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: 'system:controller:x'}\n";
        assert_eq!(found(role), []);
    }

    #[test]
    fn services_and_empty_selectors() {
        let service = "apiVersion: v1\nkind: Service\nmetadata: {name: 1web}\nspec:\n  ports:\n    - {port: 80, targetPort: Http_Port}\n    - {port: 0}\n";
        assert_eq!(
            found(service),
            [
                (Rule::InvalidName, 3),
                (Rule::InvalidPort, 6),
                (Rule::InvalidPort, 6),
                (Rule::InvalidPort, 7),
                (Rule::InvalidPort, 7)
            ]
        );
        let empty = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  selector: {}\n  template: {metadata: {labels: {a: b}}}\n";
        assert_eq!(found(empty), [(Rule::SelectorMismatch, 5)]);
    }

    #[test]
    fn quantities() {
        assert_eq!(quantity("500m"), Some(0.5));
        assert_eq!(quantity("1Gi"), Some(1073741824.0));
        assert_eq!(quantity("1e3"), Some(1000.0));
        assert_eq!(quantity("+.5"), Some(0.5));
        for bad in ["", "1Gb", "m", "1.2.3", "1e", "1 Gi", "Gi"] {
            assert_eq!(quantity(bad), None, "{bad}");
        }
    }
}
