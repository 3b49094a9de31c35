//! Secret masking before writing (§5.2): kubectl diff's `Masker`.
//!
//! When LIVE is a `v1` `Secret`, the `data` values of both sides are replaced: equal values
//! on both sides become `***`, different ones `*** (before)` in MERGED and `*** (after)` in
//! LIVE, and a key on one side only becomes `***`. `stringData` is not masked.

use serde_json::Value;

/// Whether kubectl would mask this pair (LIVE `kind: Secret`, `apiVersion: v1`).
#[must_use]
pub fn is_secret(live: &Value) -> bool {
    live.get("kind").and_then(Value::as_str) == Some("Secret")
        && live.get("apiVersion").and_then(Value::as_str) == Some("v1")
}

/// Masks `data` in place on both sides when [`is_secret`] holds.
pub fn mask_secrets(merged: &mut Value, live: &mut Value) {
    if !is_secret(live) {
        return;
    }
    let from = data_of(merged);
    let to = data_of(live);
    let mut new_from = from.clone();
    let mut new_to = to.clone();
    if let Some(from) = &from {
        for (k, v) in from {
            let masked = match to.as_ref().and_then(|t| t.get(k)) {
                Some(tv) if tv != v => {
                    set(&mut new_to, k, "*** (after)");
                    "*** (before)"
                }
                Some(_) => {
                    set(&mut new_to, k, "***");
                    "***"
                }
                None => "***",
            };
            set(&mut new_from, k, masked);
        }
    }
    if let Some(to) = &to {
        for k in to.keys() {
            if from.as_ref().is_none_or(|f| !f.contains_key(k)) {
                set(&mut new_to, k, "***");
            }
        }
    }
    put(merged, new_from);
    put(live, new_to);
}

fn data_of(v: &Value) -> Option<serde_json::Map<String, Value>> {
    v.get("data").and_then(Value::as_object).cloned()
}

fn set(m: &mut Option<serde_json::Map<String, Value>>, k: &str, s: &str) {
    if let Some(m) = m {
        m.insert(k.to_owned(), Value::String(s.to_owned()));
    }
}

fn put(obj: &mut Value, data: Option<serde_json::Map<String, Value>>) {
    if let (Some(o), Some(d)) = (obj.as_object_mut(), data) {
        o.insert("data".to_owned(), Value::Object(d));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn masks_like_kubectl() {
        let mut merged = json!({"apiVersion": "v1", "kind": "Secret", "data": {"same": "YQ==", "diff": "Yg==", "onlyM": "x"}, "stringData": {"s": "t"}});
        let mut live =
            json!({"apiVersion": "v1", "kind": "Secret", "data": {"same": "YQ==", "diff": "Yw==", "onlyL": "y"}});
        mask_secrets(&mut merged, &mut live);
        assert_eq!(merged["data"], json!({"same": "***", "diff": "*** (before)", "onlyM": "***"}));
        assert_eq!(live["data"], json!({"same": "***", "diff": "*** (after)", "onlyL": "***"}));
        assert_eq!(merged["stringData"], json!({"s": "t"}));
    }

    #[test]
    fn only_v1_secrets() {
        let mut m = json!({"kind": "ConfigMap", "data": {"a": "1"}});
        let mut l = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "2"}});
        mask_secrets(&mut m, &mut l);
        assert_eq!(l["data"]["a"], "2");
    }
}
