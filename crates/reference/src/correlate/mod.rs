//! Correlation: choosing template candidates for each cluster CR (kube-compare spec §4).
//!
//! The chain is kube-compare's (§4.1): manual pairs from `-c`, then the [`group`] correlator
//! over the templates' fixed fields, then the ownerReference and RBAC-subject indexes of
//! [`reference`]. The [`overrides`] module reuses the group correlator for `-p` entries.
//! This module knows template metadata and CR JSON only; rendering and diffing happen later.

pub mod group;
pub mod overrides;
pub mod reference;

use std::collections::HashMap;

use serde_json::Value;

pub use group::{DECLARED_ORDER, EFFECTIVE_ORDER, Field, FixedFields, GroupCorrelator, OVERLAP_SHORT};
pub use overrides::{OverrideCorrelator, OverrideFields};
pub use reference::ReferenceIndex;

/// A template as correlation sees it, in reference order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateMeta {
    /// The template identifier (its `path` in `metadata.yaml`).
    pub path: String,
    /// Fixed values from the empty-map render (§3.6): `Some` only for non-empty strings.
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
}

impl TemplateMeta {
    /// The template's metadata id (`apiKindNamespaceName` of its empty-map render).
    #[must_use]
    pub fn metadata_id(&self) -> String {
        let s = |v: &Option<String>| v.clone().unwrap_or_default();
        let (api, kind, ns, name) = (s(&self.api_version), s(&self.kind), s(&self.namespace), s(&self.name));
        if ns.is_empty() { format!("{api}_{kind}_{name}") } else { format!("{api}_{kind}_{ns}_{name}") }
    }
}

impl FixedFields for TemplateMeta {
    fn fixed(&self, field: Field) -> Option<&str> {
        let v = match field {
            Field::ApiVersion => &self.api_version,
            Field::Kind => &self.kind,
            Field::Name => &self.name,
            Field::Namespace => &self.namespace,
        };
        v.as_deref().filter(|s| !s.is_empty())
    }
}

/// A `-c` pair names a template that does not exist (§2.8).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("error in template manual matching for resource: {cr} no template in the name of {template}")]
pub struct ManualError {
    pub cr: String,
    pub template: String,
}

/// Which link of the chain produced the candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    Manual,
    Group,
    OwnerReference,
    Subject,
}

/// The template correlator chain.
pub struct Correlator {
    manual: HashMap<String, usize>,
    group: GroupCorrelator,
    /// metadata id → templates, for the reference-index links.
    by_metadata_id: HashMap<String, Vec<usize>>,
}

impl Correlator {
    /// Builds the chain. `manual_pairs` are `-c` `correlationPairs` (CR id → template path) in
    /// file order; a template path listed twice in the reference resolves to its last entry,
    /// as kube-compare's map does.
    ///
    /// # Errors
    /// The first pair naming an unknown template.
    pub fn new(templates: &[TemplateMeta], manual_pairs: &[(String, String)]) -> Result<Correlator, ManualError> {
        let by_path: HashMap<&str, usize> = templates.iter().enumerate().map(|(i, t)| (t.path.as_str(), i)).collect();
        let mut manual = HashMap::new();
        for (cr, path) in manual_pairs {
            let Some(&i) = by_path.get(path.as_str()) else {
                return Err(ManualError { cr: cr.clone(), template: path.clone() });
            };
            manual.insert(cr.clone(), i);
        }
        let mut by_metadata_id: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, t) in templates.iter().enumerate() {
            by_metadata_id.entry(t.metadata_id()).or_default().push(i);
        }
        Ok(Correlator { manual, group: GroupCorrelator::new(&EFFECTIVE_ORDER, templates), by_metadata_id })
    }

    /// The group correlator (for its overlap warnings).
    #[must_use]
    pub fn group(&self) -> &GroupCorrelator {
        &self.group
    }

    /// Candidates for `cr` (indices into the templates, reference order), or `None` when no
    /// link matched (kube-compare's `UnknownMatch`). `cr_id` is the CR's id; `refs` are the
    /// reference indexes once CRs are loaded.
    #[must_use]
    pub fn candidates(&self, cr: &Value, cr_id: &str, refs: Option<&ReferenceIndex>) -> Option<(Vec<usize>, Via)> {
        match self.without_index(cr, cr_id) {
            Ok(found) => found,
            Err(temps) => {
                let refs = refs?;
                if refs.owners.contains(cr_id) {
                    return Some((temps.to_vec(), Via::OwnerReference));
                }
                if refs.subjects.contains(cr_id) {
                    return Some((temps.to_vec(), Via::Subject));
                }
                None
            }
        }
    }

    /// [`Correlator::candidates`] when the reference indexes cannot change the answer (no
    /// template has the CR's id as its metadata id, or an earlier link matched): a CR can
    /// then be compared before every CR is loaded. `Err` with the templates the indexes
    /// would link otherwise.
    ///
    /// # Errors
    /// The templates whose metadata id is the CR's, when only the indexes can decide.
    pub fn without_index(&self, cr: &Value, cr_id: &str) -> Result<Option<(Vec<usize>, Via)>, &[usize]> {
        if let Some(&i) = self.manual.get(cr_id) {
            return Ok(Some((vec![i], Via::Manual)));
        }
        if let Some(c) = self.group.candidates(cr) {
            return Ok(Some((c.to_vec(), Via::Group)));
        }
        match self.by_metadata_id.get(cr_id) {
            Some(temps) => Err(temps),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests;
