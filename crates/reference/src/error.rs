//! Load errors: kube-compare's message text plus where the problem is in `metadata.yaml`.
//!
//! kube-compare joins independent problems with `errors.Join` and prints the result after
//! `error: ` (§2.5, §2.9). [`LoadError`] keeps each joined part as a [`Problem`] so the linter
//! can report each one at its own line, while `Display` gives the exact joined text.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use driftlint_yaml::{LineColumn, LineIndex};

/// One problem: kube-compare's message and, where known, the byte range of the offending
/// entry in the metadata (or user config) file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub message: String,
    pub span: Option<Range<usize>>,
    /// 1-based line and column of `span.start`.
    pub location: Option<LineColumn>,
}

impl Problem {
    pub fn new(message: impl Into<String>, span: Option<Range<usize>>) -> Self {
        Problem { message: message.into(), span, location: None }
    }
}

/// A reference (or user config) that cannot be used. `Display` is kube-compare's message,
/// the parts joined by newlines like Go's `errors.Join`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct LoadError {
    /// The file the spans refer to (`metadata.yaml` or the user config).
    pub path: PathBuf,
    /// The joined problems, in kube-compare's order (never empty).
    pub problems: Vec<Problem>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            f.write_str(&p.message)?;
        }
        Ok(())
    }
}

impl LoadError {
    /// `path:line:col: message` per problem (just the message where it has no location), one
    /// per line: how a command that stops on the error prints it.
    pub fn to_lines(&self) -> String {
        self.problems
            .iter()
            .map(|p| match p.location {
                Some(at) => format!("{}:{}:{}: {}", self.path.display(), at.line, at.column, p.message),
                None => p.message.clone(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// One problem without a location.
    pub fn plain(path: &Path, message: impl Into<String>) -> Self {
        LoadError { path: path.to_path_buf(), problems: vec![Problem::new(message, None)] }
    }

    /// Builds the error and fills in lines and columns from the file's text.
    pub(crate) fn located(path: &Path, text: &str, mut problems: Vec<Problem>) -> Self {
        let index = LineIndex::new(text);
        for p in &mut problems {
            p.location = p.span.as_ref().map(|s| index.line_column(text, s.start.min(text.len())));
        }
        LoadError { path: path.to_path_buf(), problems }
    }

    /// The first located problem's line and column, for a one-line report.
    pub fn location(&self) -> Option<LineColumn> {
        self.problems.iter().find_map(|p| p.location)
    }
}
