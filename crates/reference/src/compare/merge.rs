//! JSON merge patches as evanphx/json-patch v5 applies and creates them.
//!
//! * [`merge_patch`] is `jsonpatch.MergePatch(doc, patch)` (RFC 7386) used for
//!   `ignore-unspecified-fields` (§5.3, patch = the rendered template, doc = the CR) and for
//!   `mergepatch` overrides (§6.2). It differs from the `json-patch` crate's `merge` in one
//!   visible way: when a patch value is written where the document had no object (new key,
//!   null, scalar or list), evanphx prunes `null`s from it **recursively, including inside
//!   objects in lists**; when both sides are objects the merge recurses; a list patch over an
//!   object is copied without pruning.
//! * [`create_merge_patch`] is `jsonpatch.CreateMergePatch(original, modified)` for
//!   `-o generate-patches` (§6.3): changed or added keys, `null` for removed keys, recursing
//!   into objects present on both sides; lists are replaced whole.
//!
//! Numbers: Go re-decodes the merged JSON as float64. Integers up to 2^53 print the same
//! either way, and larger ones were already rounded when the template was parsed
//! ([`super::render::normalize_numbers`]); CR integers above 2^53 merged through here would be
//! rounded by Go too, so [`merge_patch`]'s output is normalised the same way.

use serde_json::{Map, Value};

use super::render::normalize_numbers;

/// `MergePatch(doc, patch)`; both are JSON documents. Returns the merged document.
#[must_use]
pub fn merge_patch(doc: &Value, patch: &Value) -> Value {
    let mut out = merge_value(Some(doc.clone()), patch);
    normalize_numbers(&mut out);
    out
}

fn merge_value(cur: Option<Value>, patch: &Value) -> Value {
    match (cur, patch) {
        (Some(Value::Object(mut doc)), Value::Object(p)) => {
            merge_docs(&mut doc, p);
            Value::Object(doc)
        }
        // The patch is not an object: it replaces (evanphx does not prune it if the document
        // was an object, but prunes when the document was anything else).
        (Some(Value::Object(_)), p) => p.clone(),
        (_, p) => pruned(p),
    }
}

fn merge_docs(doc: &mut Map<String, Value>, patch: &Map<String, Value>) {
    for (k, v) in patch {
        if v.is_null() {
            doc.shift_remove(k);
            continue;
        }
        let cur = doc.get(k).cloned();
        let merged = match cur {
            None | Some(Value::Null) => pruned(v),
            Some(c) => merge_value(Some(c), v),
        };
        doc.insert(k.clone(), merged);
    }
}

/// evanphx `pruneNulls`: drop `null` values of objects, recursively through lists.
fn pruned(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), pruned(v))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(pruned).collect()),
        other => other.clone(),
    }
}

/// `CreateMergePatch(original, modified)` for two objects, keys sorted as Go's JSON writes
/// them (serialise with [`patch_to_string`]).
#[must_use]
pub fn create_merge_patch(original: &Value, modified: &Value) -> Value {
    match (original, modified) {
        (Value::Object(a), Value::Object(b)) => Value::Object(diff_objects(a, b)),
        _ => modified.clone(),
    }
}

fn diff_objects(a: &Map<String, Value>, b: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, bv) in b {
        match a.get(k) {
            Some(av) if super::render::json_eq(av, bv) => {}
            Some(Value::Object(ao)) if bv.is_object() => {
                let sub = diff_objects(ao, bv.as_object().unwrap_or(&Map::new()));
                if !sub.is_empty() {
                    out.insert(k.clone(), Value::Object(sub));
                }
            }
            _ => {
                out.insert(k.clone(), bv.clone());
            }
        }
    }
    for k in a.keys() {
        if !b.contains_key(k) {
            out.insert(k.clone(), Value::Null);
        }
    }
    out
}

/// Go's `json.Marshal` of a patch: compact, keys sorted by bytes at every level, `<>&`
/// escaped as `\u003c`-style sequences.
#[must_use]
pub fn patch_to_string(v: &Value) -> String {
    let text = serde_json::to_string(&sorted(v)).unwrap_or_default();
    text.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&m[k]))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rfc7386_examples() {
        let cases = [
            (json!({"a": "b"}), json!({"a": "c"}), json!({"a": "c"})),
            (json!({"a": "b"}), json!({"b": "c"}), json!({"a": "b", "b": "c"})),
            (json!({"a": "b"}), json!({"a": null}), json!({})),
            (json!({"a": "b", "b": "c"}), json!({"a": null}), json!({"b": "c"})),
            (json!({"a": ["b"]}), json!({"a": "c"}), json!({"a": "c"})),
            (json!({"a": {"b": "c"}}), json!({"a": {"b": "d", "c": null}}), json!({"a": {"b": "d"}})),
            (json!({"a": [{"b": "c"}]}), json!({"a": [1]}), json!({"a": [1]})),
            (json!({"e": null}), json!({"a": 1}), json!({"e": null, "a": 1})),
            (json!({}), json!({"a": {"bb": {"ccc": null}}}), json!({"a": {"bb": {}}})),
        ];
        for (doc, patch, want) in cases {
            assert_eq!(merge_patch(&doc, &patch), want, "{doc} + {patch}");
        }
    }

    #[test]
    fn evanphx_prunes_nulls_inside_lists_over_non_objects() {
        let doc = json!({"c": [{"name": "a", "x": 1}]});
        let patch = json!({"c": [{"name": "a", "x": null}]});
        assert_eq!(merge_patch(&doc, &patch), json!({"c": [{"name": "a"}]}));
        // A list over an object is copied as is.
        let doc = json!({"c": {"k": 1}});
        assert_eq!(merge_patch(&doc, &patch), patch);
    }

    #[test]
    fn ignore_unspecified_fields_keeps_template_values() {
        let cr = json!({"metadata": {"labels": {"a": "1", "b": "false"}, "name": "n"}});
        let tpl = json!({"metadata": {"labels": {"b": "true"}}});
        assert_eq!(merge_patch(&cr, &tpl), json!({"metadata": {"labels": {"a": "1", "b": "true"}, "name": "n"}}));
    }

    #[test]
    fn create_patch_sorted_with_nulls() {
        let merged = json!({"metadata": {"annotations": {"z": "1", "w": "x"}}, "spec": {"f": ["a"]}});
        let live = json!({"metadata": {"annotations": {"z": "1", "a": "<b>"}}, "spec": {"f": ["kubernetes"]}});
        let p = create_merge_patch(&merged, &live);
        assert_eq!(
            patch_to_string(&p),
            r#"{"metadata":{"annotations":{"a":"\u003cb\u003e","w":null}},"spec":{"f":["kubernetes"]}}"#
        );
        assert_eq!(patch_to_string(&create_merge_patch(&live, &live)), "{}");
    }
}
