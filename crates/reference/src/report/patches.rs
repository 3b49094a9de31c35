//! `-o generate-patches` output (spec §6.3): the loaded overrides (`-p`) followed by the new
//! ones, as `sigs.k8s.io/yaml.Marshal([]*UserOverride)`.
//!
//! kube-compare's `UserOverride` JSON tags make `name`, `namespace`, `apiVersion`, `kind` and
//! `exactMatch` `omitempty`, while `reason`, `type`, `patch` and `templatePath` are always
//! written. Computing the merge patch itself belongs to the comparison; this module only
//! shapes the list.

use serde_json::{Map, Value};

const OPTIONAL: [&str; 5] = ["apiVersion", "kind", "name", "namespace", "exactMatch"];
const ALWAYS: [&str; 4] = ["reason", "type", "patch", "templatePath"];

/// One override entry as kube-compare serialises it. Non-string values count as empty, as
/// they cannot occur in kube-compare's typed struct.
#[must_use]
pub fn override_to_value(entry: &Value) -> Value {
    let get = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut m = Map::new();
    for k in OPTIONAL {
        let v = get(k);
        if !v.is_empty() {
            m.insert(k.to_owned(), Value::String(v));
        }
    }
    for k in ALWAYS {
        m.insert(k.to_owned(), Value::String(get(k)));
    }
    Value::Object(m)
}

/// Renders the patch list. An empty list is Go's nil slice, which marshals as `null`.
#[must_use]
pub fn generate_patches_yaml(loaded: &[Value], new: &[Value]) -> String {
    if loaded.is_empty() && new.is_empty() {
        return "null\n".to_owned();
    }
    let list: Vec<Value> = loaded.iter().chain(new).map(override_to_value).collect();
    driftlint_yaml::to_yaml_string(&Value::Array(list))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_entries_like_kube_compare() {
        let new = [json!({
            "apiVersion": "v1", "kind": "Namespace", "name": "ns", "namespace": "",
            "type": "mergepatch", "reason": "For the test", "templatePath": "namespace.yaml",
            "patch": "{}"
        })];
        assert_eq!(
            generate_patches_yaml(&[], &new),
            "- apiVersion: v1\n  kind: Namespace\n  name: ns\n  patch: '{}'\n  reason: For the test\n  \
             templatePath: namespace.yaml\n  type: mergepatch\n"
        );
        assert_eq!(generate_patches_yaml(&[], &[]), "null\n");
        let bare = generate_patches_yaml(&[json!({"exactMatch": "v1_X_y", "reason": "r"})], &[]);
        assert_eq!(bare, "- exactMatch: v1_X_y\n  patch: \"\"\n  reason: r\n  templatePath: \"\"\n  type: \"\"\n");
    }
}
