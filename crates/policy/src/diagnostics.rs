//! A [`PolicyError`] as a `policy-error` diagnostic at the module line it names, for every
//! pass that evaluates policies (conftest's rules, Fybrik's cases).

use std::ops::Range;
use std::path::PathBuf;

use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::input::SourcePath;

use crate::{Module, PolicyError};

/// A `policy-error` at the module line the error names, else at the rule being evaluated
/// (`at`: module index and line), else at the first module.
pub(crate) fn error_diagnostic(e: &PolicyError, modules: &[Module], at: Option<(usize, u32)>) -> Diagnostic {
    let (module, line) = match e.location() {
        Some(l) => (modules.iter().find(|m| m.path == l.path), l.line),
        None => match at {
            Some((i, line)) => (modules.get(i), line),
            None => (modules.first(), 1),
        },
    };
    let (path, range) = match module {
        Some(m) => (m.path.clone(), Some(line_range(&m.text, line))),
        None => (e.location().map(|l| l.path.clone()).unwrap_or_default(), None),
    };
    let mut d = Diagnostic::error(Rule::PolicyError, SourcePath::File(PathBuf::from(path)), range, e.message());
    if let PolicyError::Limit { .. } = e {
        d = d.with_help("the policy pass stopped here; the other passes ran");
    }
    d
}

/// The byte range of 1-based line `line` of `text` (without its line break).
pub fn line_range(text: &str, line: u32) -> Range<usize> {
    let mut start = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line as usize {
            let trimmed = l.trim_end_matches(['\n', '\r']).len();
            return start..start + trimmed;
        }
        start += l.len();
    }
    text.len()..text.len()
}
