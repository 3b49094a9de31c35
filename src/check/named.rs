//! Named files as the reporting scope: `driftlint check FILE…` in a repository with a
//! configuration checks the repository as a whole (its configuration's paths) and shows what
//! the named files are responsible for — pre-commit's meaning of the file names it passes.
//!
//! A required object is "missing" only when the repository as a whole lacks it, and an object
//! that moved to another file is still there: cross-file findings need every manifest in view,
//! so the context is never narrowed to the named files. What is shown:
//!
//! * every finding located in a named file (or below a named directory);
//! * `missing-resource` and `cardinality-violation` (located in the reference) when an object
//!   of a named file matched a template of their component, or when no component can be told;
//! * `io-error` findings, and findings in files that are no manifest input (the reference, the
//!   configuration, the lock, policies): those are about the check itself;
//!
//! and hidden (counted, never silently): findings in other manifest files.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use super::Report;
use crate::diagnostic::{Diagnostic, Rule};
use crate::input::SourcePath;

/// Keeps the findings of `report` that the `named` paths are responsible for; returns how many
/// were hidden.
pub fn keep_named(report: &mut Report, named: &[PathBuf]) -> usize {
    let named: Vec<PathBuf> = named.iter().map(|p| lexical(p)).collect();
    let under = |p: &Path| {
        let p = lexical(p);
        named.iter().any(|n| n.as_os_str().is_empty() || p.starts_with(n))
    };
    let inputs: HashSet<PathBuf> = report.inputs.iter().map(|p| lexical(p)).collect();
    // The components the named files' objects belong to (through the templates they matched).
    let mut templates: BTreeSet<&str> = BTreeSet::new();
    for o in &report.correlations.objects {
        if let SourcePath::File(p) = &o.path
            && under(p)
        {
            templates.extend(o.templates.iter().map(String::as_str));
        }
    }
    let touched: BTreeSet<&str> =
        templates.iter().filter_map(|t| report.correlations.components.get(*t)).flatten().map(String::as_str).collect();
    let shows = |d: &Diagnostic| -> bool {
        match d.rule {
            Rule::IoError => return true,
            Rule::MissingResource => {
                let components = d.object.as_deref().and_then(|t| report.correlations.components.get(t));
                return components.is_none_or(|cs| cs.iter().any(|c| touched.contains(c.as_str())));
            }
            Rule::CardinalityViolation => {
                return d.object.as_deref().is_none_or(|c| touched.contains(c));
            }
            _ => {}
        }
        match &d.primary.path {
            SourcePath::File(p) => under(p) || !inputs.contains(&lexical(p)),
            SourcePath::Stdin => true,
        }
    };
    let before = report.diagnostics.len();
    let kept: Vec<Diagnostic> = report.diagnostics.drain(..).filter(|d| shows(d)).collect();
    report.diagnostics = kept;
    before - report.diagnostics.len()
}

/// `./a/./b` → `a/b` (no file-system access; `..` kept).
pub(crate) fn lexical(p: &Path) -> PathBuf {
    p.components().filter(|c| !matches!(c, std::path::Component::CurDir)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_paths() {
        assert_eq!(lexical(Path::new("./a/./b.yaml")), PathBuf::from("a/b.yaml"));
        assert_eq!(lexical(Path::new(".")), PathBuf::new());
    }
}
