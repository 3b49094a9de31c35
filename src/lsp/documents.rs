//! The documents the editor has open: their unsaved text and version, edited as the client's
//! incremental changes say, and what the last check of each found (the findings with the
//! texts their labels point into, and which templates its objects matched), which hover,
//! definition and code actions read.

use std::collections::HashMap;
use std::path::PathBuf;

use driftlint_core::diagnostic::Diagnostic;
use driftlint_reference::drift::correlations::ObjectCorrelation;
use lsp_types as lsp;

use super::convert::LineIndex;

/// One open document.
pub struct Document {
    pub uri: lsp::Uri,
    pub text: String,
    pub version: i32,
    /// The last check's results, when one ran.
    pub checked: Option<Checked>,
}

/// What one check of a document found.
#[derive(Default)]
pub struct Checked {
    /// The version of the text checked: a finding's byte ranges are in that text only.
    pub version: i32,
    pub diagnostics: Vec<Diagnostic>,
    /// The texts of other files the findings point into (reference templates), by absolute
    /// path.
    pub texts: HashMap<PathBuf, String>,
    /// Which templates the document's objects matched (their lines in the checked text).
    pub objects: Vec<ObjectCorrelation>,
    /// The reference's directory, which template paths are relative to.
    pub reference_dir: Option<PathBuf>,
    /// The fields the matched templates set, with the value and line each expects (computed
    /// after the findings are published: empty until then).
    pub fields: Vec<super::fields::Field>,
}

impl Document {
    /// Applies the client's changes in order: a change without a range replaces the text, one
    /// with a range replaces that range (positions in the text as the previous change left it).
    pub fn apply(&mut self, version: i32, changes: Vec<lsp::TextDocumentContentChangeEvent>) {
        for change in changes {
            match change.range {
                None => self.text = change.text,
                Some(range) => {
                    let index = LineIndex::new(&self.text);
                    let start = index.offset(range.start);
                    let end = index.offset(range.end).max(start);
                    self.text.replace_range(start..end, &change.text);
                }
            }
        }
        self.version = version;
    }

    /// Whether the last check was of the text as it is now.
    pub fn checked_now(&self) -> Option<&Checked> {
        self.checked.as_ref().filter(|c| c.version == self.version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn incremental_changes_apply_in_order_with_utf16_columns() {
        let mut doc = Document {
            uri: lsp::Uri::from_str("file:///x.yaml").unwrap(),
            text: "a: é1\nb: 2\n".into(),
            version: 1,
            checked: None,
        };
        let at = |line, character| lsp::Position::new(line, character);
        doc.apply(
            2,
            vec![
                // `1` is after `é` (one UTF-16 unit, two bytes).
                lsp::TextDocumentContentChangeEvent {
                    range: Some(lsp::Range::new(at(0, 4), at(0, 5))),
                    range_length: None,
                    text: "9".into(),
                },
                lsp::TextDocumentContentChangeEvent {
                    range: Some(lsp::Range::new(at(2, 0), at(2, 0))),
                    range_length: None,
                    text: "c: 3\n".into(),
                },
            ],
        );
        assert_eq!(doc.text, "a: é9\nb: 2\nc: 3\n");
        assert_eq!(doc.version, 2);
        doc.apply(3, vec![lsp::TextDocumentContentChangeEvent { range: None, range_length: None, text: "x".into() }]);
        assert_eq!(doc.text, "x");
    }
}
