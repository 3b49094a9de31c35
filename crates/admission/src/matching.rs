//! Which objects a policy and a binding select, as the API server decides it for a CREATE
//! request (k8s.io/apiserver `pkg/admission/plugin/policy/generic` and
//! `pkg/admission/plugin/webhook/predicates`: rules, namespace and object selectors).

use serde_json::Value as Json;

/// What a request for creating an object is, as the rules see it.
#[derive(Clone, Debug)]
pub struct Request {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub resource: String,
    pub name: String,
    /// `metadata.namespace`, empty when the object has none.
    pub namespace: String,
    /// Whether the resource is namespaced.
    pub namespaced: bool,
}

/// Kinds of the built-in API that are cluster-scoped (everything else is namespaced unless a
/// CRD in the repository says otherwise).
const CLUSTER_SCOPED: &[&str] = &[
    "Namespace",
    "Node",
    "PersistentVolume",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "StorageClass",
    "PriorityClass",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "APIService",
    "CSIDriver",
    "CSINode",
    "VolumeAttachment",
    "RuntimeClass",
    "IngressClass",
    "CertificateSigningRequest",
    "FlowSchema",
    "PriorityLevelConfiguration",
    "ComponentStatus",
    "DeviceClass",
    "IPAddress",
    "ServiceCIDR",
    "StorageVersionMigration",
    "VolumeAttributesClass",
    "ClusterTrustBundle",
];

/// The plural and scope of custom kinds, from the CRDs among the repository's objects.
#[derive(Default)]
pub struct Kinds {
    /// (group, kind) → (plural, namespaced)
    custom: std::collections::HashMap<(String, String), (String, bool)>,
}

impl Kinds {
    pub fn learn(&mut self, crd: &Json) {
        let spec = &crd["spec"];
        let (Some(group), Some(kind), Some(plural)) =
            (spec["group"].as_str(), spec["names"]["kind"].as_str(), spec["names"]["plural"].as_str())
        else {
            return;
        };
        let namespaced = spec["scope"].as_str() != Some("Cluster");
        self.custom.insert((group.to_string(), kind.to_string()), (plural.to_string(), namespaced));
    }

    /// The request creating `object`.
    pub fn request(&self, object: &Json) -> Request {
        let api_version = object["apiVersion"].as_str().unwrap_or_default();
        let (group, version) = match api_version.split_once('/') {
            Some((g, v)) => (g.to_string(), v.to_string()),
            None => (String::new(), api_version.to_string()),
        };
        let kind = object["kind"].as_str().unwrap_or_default().to_string();
        let (resource, namespaced) = match self.custom.get(&(group.clone(), kind.clone())) {
            Some((plural, namespaced)) => (plural.clone(), *namespaced),
            None => (guess_resource(&kind), !CLUSTER_SCOPED.contains(&kind.as_str())),
        };
        let meta = &object["metadata"];
        Request {
            group,
            version,
            kind,
            resource,
            name: meta["name"].as_str().unwrap_or_default().to_string(),
            namespace: if namespaced {
                meta["namespace"].as_str().unwrap_or_default().to_string()
            } else {
                String::new()
            },
            namespaced,
        }
    }
}

/// apimachinery's `UnsafeGuessKindToResource` (what `kubectl` falls back to), with the one
/// built-in kind it gets wrong.
pub fn guess_resource(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower == "endpoints" {
        return lower;
    }
    if lower.ends_with('s') {
        format!("{lower}es")
    } else if let Some(stem) = lower.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{lower}s")
    }
}

/// Whether one of `rules` (`resourceRules`/`excludeResourceRules` entries) covers the request
/// (operation CREATE). `exact`: `matchPolicy: Exact` (else a rule naming another version of
/// the group's resource matches too, as `Equivalent` converts the request to it).
pub fn rules_match(rules: &Json, request: &Request, exact: bool) -> bool {
    rules.as_array().is_some_and(|rules| rules.iter().any(|r| rule_matches(r, request, exact)))
}

fn strings(v: &Json) -> Vec<&str> {
    v.as_array().map(|a| a.iter().filter_map(Json::as_str).collect()).unwrap_or_default()
}

fn rule_matches(rule: &Json, request: &Request, exact: bool) -> bool {
    let has = |list: &[&str], value: &str| list.iter().any(|x| *x == "*" || *x == value);
    let operations = strings(&rule["operations"]);
    // An exclusion rule without operations excludes every operation.
    if !operations.is_empty() && !has(&operations, "CREATE") {
        return false;
    }
    if !has(&strings(&rule["apiGroups"]), &request.group) {
        return false;
    }
    if exact && !has(&strings(&rule["apiVersions"]), &request.version) {
        return false;
    }
    let resources = strings(&rule["resources"]);
    // `*` is every resource, `*/*` every resource and subresource; `pods/*` subresources only.
    if !resources.iter().any(|r| *r == "*" || *r == "*/*" || *r == request.resource) {
        return false;
    }
    let scope = rule["scope"].as_str().unwrap_or("*");
    let scope_ok = match scope {
        "Cluster" => !request.namespaced,
        "Namespaced" => request.namespaced,
        _ => true,
    };
    if !scope_ok {
        return false;
    }
    let names = strings(&rule["resourceNames"]);
    names.is_empty() || names.contains(&request.name.as_str())
}

/// A `LabelSelector` against `labels`; `None` for a selector that is not one (the API server
/// refuses it).
pub fn selector_matches(selector: &Json, labels: &Json) -> Option<bool> {
    if selector.is_null() {
        return Some(true);
    }
    let label = |k: &str| labels.get(k).and_then(Json::as_str);
    if let Some(m) = selector.get("matchLabels") {
        for (k, v) in m.as_object()? {
            if label(k) != Some(v.as_str()?) {
                return Some(false);
            }
        }
    }
    if let Some(exprs) = selector.get("matchExpressions") {
        for e in exprs.as_array()? {
            let key = e["key"].as_str()?;
            let values = strings(&e["values"]);
            let ok = match e["operator"].as_str()? {
                "In" => label(key).is_some_and(|v| values.contains(&v)),
                "NotIn" => label(key).is_none_or(|v| !values.contains(&v)),
                "Exists" => label(key).is_some(),
                "DoesNotExist" => label(key).is_none(),
                _ => return None,
            };
            if !ok {
                return Some(false);
            }
        }
    }
    Some(true)
}

/// Whether a selector selects everything (absent, or `{}`).
pub fn selects_all(selector: &Json) -> bool {
    match selector {
        Json::Null => true,
        Json::Object(m) => {
            m.get("matchLabels").is_none_or(|l| l.as_object().is_none_or(|o| o.is_empty()))
                && m.get("matchExpressions").is_none_or(|l| l.as_array().is_none_or(|a| a.is_empty()))
        }
        _ => false,
    }
}
