//! The logical problems of a Composition as they are found (a byte range and a message each),
//! shared by the checks of its structure ([`crate::logical`]) and of its patches and
//! transforms ([`crate::patch_rules`]).

use std::ops::Range;

use driftlint_yaml::Node;

/// The problems found so far.
#[derive(Debug, Default)]
pub struct Problems(pub Vec<(Range<usize>, String)>);

impl Problems {
    pub fn add(&mut self, span: &Range<usize>, message: impl Into<String>) {
        self.0.push((span.clone(), message.into()));
    }

    /// A field path that must parse, at its key.
    pub fn path(&mut self, parent: &Node, key: &str) {
        if let Some((k, v)) = parent.entry(key) {
            let path = v.as_str().unwrap_or_default();
            if let Err(e) = crate::fieldpath::parse(path) {
                self.add(&k.span, format!("`{key}: {path}` is not a valid field path: {e}"));
            }
        }
    }
}
