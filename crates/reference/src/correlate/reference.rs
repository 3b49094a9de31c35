//! Reference-only matches (spec §4.5): templates "found" because a loaded CR names them in
//! `metadata.ownerReferences` or, for ServiceAccounts, in an RBAC binding's `subjects`.
//!
//! kube-compare builds both indexes after loading the CRs and, before comparing anything,
//! counts every template whose metadata id is in either index as matched (without
//! validating its content) and lists it in `matchedByReferenceOnly`.

use std::collections::HashSet;

use serde_json::Value;

use super::TemplateMeta;

/// The owner and subject keys found in the loaded CRs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReferenceIndex {
    /// `apiVersion_kind_name` and, for namespaced holders, `apiVersion_kind_<holder ns>_name`.
    pub owners: HashSet<String>,
    /// `v1_ServiceAccount_name` and, with a subject namespace, `v1_ServiceAccount_<ns>_name`.
    pub subjects: HashSet<String>,
}

/// `NestedString`: a missing field is empty, a non-string one an error (`None`).
fn nested_str<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    match v.get(key) {
        None => Some(""),
        Some(Value::String(s)) => Some(s),
        Some(_) => None,
    }
}

fn holder_namespace(cr: &Value) -> &str {
    cr.get("metadata").and_then(|m| m.get("namespace")).and_then(Value::as_str).unwrap_or("")
}

impl ReferenceIndex {
    /// Indexes `crs` (all loaded CRs, after de-duplication).
    pub fn new<'a>(crs: impl IntoIterator<Item = &'a Value>) -> ReferenceIndex {
        let mut idx = ReferenceIndex::default();
        for cr in crs {
            idx.add_owners(cr);
            idx.add_subjects(cr);
        }
        idx
    }

    /// Adds another index's keys (indexes built per CR, merged in load order).
    pub fn extend(&mut self, other: ReferenceIndex) {
        self.owners.extend(other.owners);
        self.subjects.extend(other.subjects);
    }

    fn add_owners(&mut self, cr: &Value) {
        let Some(Value::Array(refs)) = cr.get("metadata").and_then(|m| m.get("ownerReferences")) else {
            return;
        };
        let ns = holder_namespace(cr);
        for r in refs.iter().filter(|r| r.is_object()) {
            let (Some(api), Some(kind), Some(name)) =
                (nested_str(r, "apiVersion"), nested_str(r, "kind"), nested_str(r, "name"))
            else {
                continue;
            };
            if api.is_empty() || kind.is_empty() || name.is_empty() {
                continue;
            }
            self.owners.insert(format!("{api}_{kind}_{name}"));
            if !ns.is_empty() {
                self.owners.insert(format!("{api}_{kind}_{ns}_{name}"));
            }
        }
    }

    fn add_subjects(&mut self, cr: &Value) {
        let kind = cr.get("kind").and_then(Value::as_str).unwrap_or("");
        if kind != "ClusterRoleBinding" && kind != "RoleBinding" {
            return;
        }
        let Some(Value::Array(subjects)) = cr.get("subjects") else {
            return;
        };
        for s in subjects.iter().filter(|s| s.is_object()) {
            let (Some(kind), Some(name), Some(ns)) =
                (nested_str(s, "kind"), nested_str(s, "name"), nested_str(s, "namespace"))
            else {
                continue;
            };
            // Users and Groups have no object to match; only ServiceAccounts count.
            if kind != "ServiceAccount" || name.is_empty() {
                continue;
            }
            self.subjects.insert(format!("v1_ServiceAccount_{name}"));
            if !ns.is_empty() {
                self.subjects.insert(format!("v1_ServiceAccount_{ns}_{name}"));
            }
        }
    }

    /// Templates (indices, reference order) matched by reference only: metadata id in the
    /// owner index, or else in the subject index. Each adds 1 to its match count.
    #[must_use]
    pub fn reference_only(&self, templates: &[TemplateMeta]) -> Vec<usize> {
        templates
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                let id = t.metadata_id();
                self.owners.contains(&id) || self.subjects.contains(&id)
            })
            .map(|(i, _)| i)
            .collect()
    }
}
