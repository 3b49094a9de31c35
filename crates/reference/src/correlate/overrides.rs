//! Correlating user overrides (`-p`) with a CR (spec §6.2).
//!
//! kube-compare runs an exact-match correlator (`exactMatch` → override) and then a group
//! correlator over the overrides' `{apiVersion, kind, name, namespace}`, in the groups'
//! **declared** order (the second sort of the shared slice restores it, §4.2). The first link
//! that matches returns all its overrides. This module is generic: the override model lives
//! with the comparison and passes its fields here.

use std::collections::HashMap;

use serde_json::Value;

use super::group::{DECLARED_ORDER, Field, FixedFields, GroupCorrelator};

/// The correlation fields of one override; empty strings mean "not fixed".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OverrideFields {
    pub exact_match: String,
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

impl FixedFields for OverrideFields {
    fn fixed(&self, field: Field) -> Option<&str> {
        let v = match field {
            Field::ApiVersion => &self.api_version,
            Field::Kind => &self.kind,
            Field::Name => &self.name,
            Field::Namespace => &self.namespace,
        };
        Some(v.as_str()).filter(|s| !s.is_empty())
    }
}

/// The override correlator chain.
pub struct OverrideCorrelator {
    exact: HashMap<String, usize>,
    group: GroupCorrelator,
}

impl OverrideCorrelator {
    /// Builds the chain over `overrides` in file order. When several overrides share an
    /// `exactMatch`, the last one wins (kube-compare fills a map).
    #[must_use]
    pub fn new(overrides: &[OverrideFields]) -> OverrideCorrelator {
        let mut exact = HashMap::new();
        for (i, o) in overrides.iter().enumerate() {
            if !o.exact_match.is_empty() {
                exact.insert(o.exact_match.clone(), i);
            }
        }
        OverrideCorrelator { exact, group: GroupCorrelator::new(&DECLARED_ORDER, overrides) }
    }

    /// The group correlator (for its overlap warnings).
    #[must_use]
    pub fn group(&self) -> &GroupCorrelator {
        &self.group
    }

    /// Indices of the overrides that apply to `cr` (id `cr_id`); empty when none.
    #[must_use]
    pub fn candidates(&self, cr: &Value, cr_id: &str) -> Vec<usize> {
        if let Some(&i) = self.exact.get(cr_id) {
            return vec![i];
        }
        self.group.candidates(cr).map(<[usize]>::to_vec).unwrap_or_default()
    }
}

/// Go's `fmt.Sprintf("%v", override)` for kube-compare's `UserOverride` struct, which is the
/// identifier printed in the overrides' overlap warnings: field values in struct order
/// (name, apiVersion, kind, namespace, exactMatch, reason, type, patch, templatePath)
/// separated by spaces, in braces.
#[must_use]
pub fn go_identifier(values: &[&str; 9]) -> String {
    format!("{{{}}}", values.join(" "))
}
