//! `immutable-field-changed`: in a scoped run, the fields the API server refuses to update,
//! compared between the base's objects and the checked state's: which files changed, read
//! and parsed here; which fields changed, `driftlint_schema::immutable`.
//!
//! Only files that differ between the two states are read — an object whose files are all
//! unchanged cannot have changed — so a change that touches a few files costs a few parses.
//!
//! The findings are shown whatever the diff filter says (the base cannot have them) and take
//! the head's rule levels, `ignore:` entries and suppression annotations.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::check::suppress;
use crate::config::Settings;
use driftlint_core::diagnostic::Diagnostic;
use driftlint_core::document;
use driftlint_core::input::{Source, SourcePath};
use driftlint_git::states::strip_dot;

/// What the comparison found: findings, and the head's sources they point into.
#[derive(Default)]
pub struct Found {
    pub diagnostics: Vec<Diagnostic>,
    pub sources: Vec<Source>,
}

/// The immutable-field changes between `base` and `head` (the inputs of both states, as read).
pub fn changes(settings: &Settings, base: &[Source], head: &[Source]) -> Found {
    let mut out = Found::default();
    let shown = |s: &Source| match &s.path {
        SourcePath::File(p) => Some(strip_dot(p.clone())),
        SourcePath::Stdin => None,
    };
    let before: HashMap<PathBuf, &Source> = base.iter().filter_map(|s| Some((shown(s)?, s))).collect();
    let after: HashMap<PathBuf, &Source> = head.iter().filter_map(|s| Some((shown(s)?, s))).collect();
    let changed = |from: &HashMap<PathBuf, &Source>, other: &HashMap<PathBuf, &Source>| -> Vec<Source> {
        from.iter()
            .filter(|(p, s)| other.get(*p).is_none_or(|o| o.text != s.text))
            .map(|(p, s)| Source { path: SourcePath::File(p.clone()), text: s.text.clone() })
            .collect()
    };
    let (mut base_changed, mut head_changed) = (changed(&before, &after), changed(&after, &before));
    if head_changed.is_empty() || base_changed.is_empty() {
        return out;
    }
    // Deterministic order: the first object of a key wins on each side.
    base_changed.sort_by(|a, b| a.path.cmp(&b.path));
    head_changed.sort_by(|a, b| a.path.cmp(&b.path));
    // `exclude:` and tool files are no manifests of either state.
    let Ok((base_changed, _)) = crate::check::excluded(settings, base_changed) else { return out };
    let Ok((head_changed, _)) = crate::check::excluded(settings, head_changed) else { return out };
    let options = document::Options::default();
    let (base_docs, _, _) = document::parse_sources(&base_changed, &options);
    let (head_docs, _, _) = document::parse_sources(&head_changed, &options);
    let (diagnostics, used) =
        driftlint_schema::immutable::changes((&base_docs, &base_changed), (&head_docs, &head_changed));
    out.diagnostics = diagnostics;
    suppress::apply_levels(&mut out.diagnostics, &settings.rules);
    let mut annotations = suppress::Annotations::new();
    suppress::collect_annotations(&head_docs, &mut annotations);
    suppress::apply_suppressions(&mut out.diagnostics, &annotations, &settings.ignore);
    out.sources = head_changed.into_iter().zip(used).filter_map(|(s, u)| u.then_some(s)).collect();
    out
}
