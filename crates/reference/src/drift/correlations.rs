//! Which templates each compared object correlated with, and which components list each
//! template: what a changed-file scope needs to tell whether a change touches a component
//! (a required object moved, a template edited).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

use driftlint_core::document::Collection;
use driftlint_core::input::SourcePath;
use driftlint_yaml::LineIndex;

use crate::Compiled;
use crate::engine::{Comparison, Status as CrStatus};

/// The correlations of a run.
#[derive(Clone, Debug, Default)]
pub struct Correlations {
    pub objects: Vec<ObjectCorrelation>,
    /// Template path → the components (`part/component`) that list it.
    pub components: BTreeMap<String, BTreeSet<String>>,
}

/// One compared object.
#[derive(Clone, Debug)]
pub struct ObjectCorrelation {
    pub path: SourcePath,
    /// The object's lines in its source (1-based, half-open).
    pub lines: Range<usize>,
    /// The template it matched; every candidate when none won (failed or declined).
    pub templates: Vec<String>,
}

/// Records the correlations of a comparison.
pub fn correlations(compiled: &Compiled, comparison: &Comparison, coll: &Collection) -> Correlations {
    let r = &compiled.reference;
    let mut components: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for part in &r.parts {
        for comp in &part.components {
            for i in comp.template_indices() {
                if let Some(t) = r.templates.get(i) {
                    components.entry(t.path.clone()).or_default().insert(format!("{}/{}", part.name, comp.name));
                }
            }
        }
    }
    let name = |t: usize| compiled.entry(t).map(|e| e.path.clone());
    // One line index per source, built when an object of it is first seen: counting newlines
    // from the start of the file for every object was quadratic in a file of many objects.
    let mut indexes: HashMap<usize, LineIndex> = HashMap::new();
    let objects = comparison
        .results
        .iter()
        .filter_map(|result| {
            let doc = coll.documents.get(result.cr)?;
            let source = coll.sources.get(doc.source)?;
            let templates: Vec<String> = match &result.status {
                CrStatus::Compared(c) => name(c.template).into_iter().collect(),
                CrStatus::Unmatched => Vec::new(),
                _ => result.tried.iter().filter_map(|t| name(t.template)).collect(),
            };
            let index = indexes.entry(doc.source).or_insert_with(|| LineIndex::new(&source.text));
            let lines = index.line_column(&source.text, doc.range.start).line
                ..index.line_column(&source.text, doc.range.end).line + 1;
            Some(ObjectCorrelation { path: source.path.clone(), lines, templates })
        })
        .collect();
    Correlations { objects, components }
}
