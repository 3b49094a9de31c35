//! One collected cluster CR, its id and kube-compare's skip warning: what the collection, the
//! packing and the stream decoder all speak of.

use serde_json::Value;

/// One collected cluster CR.
#[derive(Clone, Debug, PartialEq)]
pub struct Cr {
    /// `apiVersion_kind[_namespace]_name` (§ conventions).
    pub id: String,
    /// The object as JSON (Kubernetes' YAML 1.1 rules, integers kept).
    pub object: Value,
    /// Where it came from: the path as walked, `STDIN`, or the URL.
    pub source: String,
}

/// kube-compare's `skipInvalidResources` format.
#[must_use]
pub fn skip_warning(token: &str, error: &str) -> String {
    format!(
        "Skipping {token} Input contains additional files from supported file extensions (json/yaml) that do not \
         contain a valid resource, error: {error}.\n In case this file is expected to be a valid resource modify it \
         accordingly. "
    )
}

/// The CR id of an object (§ conventions): non-string fields count as empty.
#[must_use]
pub fn cr_id(object: &Value) -> String {
    fn s(v: Option<&Value>) -> &str {
        v.and_then(Value::as_str).unwrap_or_default()
    }
    let meta = object.get("metadata");
    let (api, kind) = (s(object.get("apiVersion")), s(object.get("kind")));
    let (ns, name) = (s(meta.and_then(|m| m.get("namespace"))), s(meta.and_then(|m| m.get("name"))));
    if ns.is_empty() { format!("{api}_{kind}_{name}") } else { format!("{api}_{kind}_{ns}_{name}") }
}
