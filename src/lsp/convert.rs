//! driftlint's data in the protocol's terms: byte offsets as LSP positions (lines and UTF-16
//! columns, the protocol's default `positionEncoding`), files as `file://` URIs, a
//! [`Diagnostic`] as an LSP diagnostic, a [`Fix`] as a workspace edit.
//!
//! Byte ranges stay byte ranges everywhere else; they become lines and columns only here,
//! with a line index built once per text (as the report's renderers do).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use driftlint_core::diagnostic::{Diagnostic, Fix, Severity, SourcePath};
use lsp_types as lsp;

/// Line starts of a text, to turn byte offsets into LSP positions and back.
pub struct LineIndex<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> LineIndex<'t> {
    pub fn new(text: &'t str) -> LineIndex<'t> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts }
    }

    /// The position of byte `offset` (clamped to the text, and back to a character boundary):
    /// zero-based line, and the column in UTF-16 code units from the line's start.
    pub fn position(&self, offset: usize) -> lsp::Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let column: usize = self.text[start..offset].chars().map(char::len_utf16).sum();
        lsp::Position::new(to_u32(line), to_u32(column))
    }

    pub fn range(&self, range: &Range<usize>) -> lsp::Range {
        lsp::Range::new(self.position(range.start), self.position(range.end))
    }

    /// The byte offset of an LSP position: a column past the line's end is its end (as the
    /// specification asks), a line past the text is the text's end.
    pub fn offset(&self, position: lsp::Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else { return self.text.len() };
        let end = self.starts.get(position.line as usize + 1).map_or(self.text.len(), |&next| next - 1);
        let mut units = 0;
        for (i, c) in self.text[start..end].char_indices() {
            if units >= position.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        end
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The `file://` URI of a path (made absolute against the working directory), with every byte
/// outside RFC 3986's unreserved set and `/` percent-encoded.
pub fn uri_of(path: &Path) -> Option<lsp::Uri> {
    let path = std::path::absolute(path).ok()?;
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    lsp::Uri::from_str(&out).ok()
}

/// The path a `file://` URI names (percent-decoded); `None` for another scheme, a remote host,
/// or a path that is not valid UTF-8 once decoded.
pub fn path_of(uri: &lsp::Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text.strip_prefix("file://")?;
    // `file:///p` or `file://localhost/p`; any other host is another machine's file.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = rest.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).ok().map(PathBuf::from)
}

/// A finding's path made absolute (the runner names files as its walk met them: relative to
/// the working directory when the configuration was found below it).
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The texts findings point into, by absolute path, for the positions of labels in other files
/// (a reference template's line).
pub type Texts<'a> = HashMap<PathBuf, &'a str>;

/// A finding as an LSP diagnostic in the document `index` indexes (built once for all its
/// findings: a line index per finding made a file of many findings quadratic); secondary labels
/// become related information when their file's text is in `texts`.
pub fn to_lsp_diagnostic(d: &Diagnostic, index: &LineIndex<'_>, texts: &Texts<'_>) -> lsp::Diagnostic {
    let range = d.primary.range.as_ref().map_or_else(lsp::Range::default, |r| index.range(r));
    let mut message = d.message.clone();
    if let Some(label) = &d.primary.message {
        message.push_str(&format!(" ({label})"));
    }
    for help in &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let related: Vec<lsp::DiagnosticRelatedInformation> = d
        .secondary
        .iter()
        .filter_map(|label| {
            let SourcePath::File(path) = &label.path else { return None };
            let path = absolute(path);
            let uri = uri_of(&path)?;
            let range = match (&label.range, texts.get(&path)) {
                (Some(r), Some(text)) => LineIndex::new(text).range(r),
                _ => lsp::Range::default(),
            };
            Some(lsp::DiagnosticRelatedInformation {
                location: lsp::Location { uri, range },
                message: label.message.clone().unwrap_or_default(),
            })
        })
        .collect();
    lsp::Diagnostic {
        range,
        severity: Some(severity(d.severity)),
        code: Some(lsp::NumberOrString::String(d.rule.id().to_string())),
        code_description: driftlint_core::rules::doc_url(d.rule)
            .and_then(|u| lsp::Uri::from_str(&u).ok())
            .map(|href| lsp::CodeDescription { href }),
        source: Some("driftlint".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

pub fn severity(s: Severity) -> lsp::DiagnosticSeverity {
    match s {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Note => lsp::DiagnosticSeverity::INFORMATION,
    }
}

/// A fix as a workspace edit, when every edit still applies: each file's text (from `text_of`,
/// the open buffer or the file on disk) holds at the edit's range the bytes the fix expected
/// there. A buffer changed since the check gives `None`, never a stale edit.
// The protocol's `changes` map is keyed by URI (lsp-types' `Uri` caches parsed parts inside,
// which its hash and equality do not read).
#[allow(clippy::mutable_key_type)]
pub fn to_workspace_edit(fix: &Fix, text_of: &dyn Fn(&Path) -> Option<String>) -> Option<lsp::WorkspaceEdit> {
    let mut changes: HashMap<lsp::Uri, Vec<lsp::TextEdit>> = HashMap::new();
    let mut texts: HashMap<PathBuf, String> = HashMap::new();
    for edit in &fix.edits {
        let SourcePath::File(path) = &edit.path else { return None };
        let path = absolute(path);
        if !texts.contains_key(&path) {
            texts.insert(path.clone(), text_of(&path)?);
        }
        let text = texts.get(&path)?;
        if text.get(edit.range.clone())? != edit.expected {
            return None;
        }
        let range = LineIndex::new(text).range(&edit.range);
        changes.entry(uri_of(&path)?).or_default().push(lsp::TextEdit { range, new_text: edit.replacement.clone() });
    }
    Some(lsp::WorkspaceEdit { changes: Some(changes), ..lsp::WorkspaceEdit::default() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlint_core::diagnostic::{Edit, FixSafety, Rule};

    #[test]
    fn positions_count_utf16_units_and_round_trip() {
        // `é` is 2 bytes and 1 unit, `😀` 4 bytes and 2 units.
        let text = "a: é😀x\nb: 1\n";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(index.position(x), lsp::Position::new(0, 6));
        assert_eq!(index.offset(lsp::Position::new(0, 6)), x);
        let b = text.find('b').unwrap();
        assert_eq!(index.position(b), lsp::Position::new(1, 0));
        assert_eq!(index.offset(lsp::Position::new(1, 0)), b);
        // Past a line's end is its end; past the text, the text's end.
        assert_eq!(index.offset(lsp::Position::new(1, 99)), text.len() - 1);
        assert_eq!(index.offset(lsp::Position::new(9, 0)), text.len());
        // Inside a character: back to its start.
        assert_eq!(index.position(text.find('😀').unwrap() + 1), lsp::Position::new(0, 4));
        assert_eq!(index.position(usize::MAX), lsp::Position::new(2, 0));
    }

    #[test]
    fn uris_and_paths_round_trip_with_encoding() {
        let path = Path::new("/tmp/a dir/é#x.yaml");
        let uri = uri_of(path).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20dir/%C3%A9%23x.yaml");
        assert_eq!(path_of(&uri).unwrap(), path);
        assert_eq!(path_of(&lsp::Uri::from_str("file://localhost/x.yaml").unwrap()).unwrap(), Path::new("/x.yaml"));
        assert!(path_of(&lsp::Uri::from_str("untitled:Untitled-1").unwrap()).is_none());
        assert!(path_of(&lsp::Uri::from_str("file://host/x.yaml").unwrap()).is_none());
    }

    #[test]
    #[allow(clippy::mutable_key_type)] // `WorkspaceEdit::changes`, as above.
    fn a_fix_becomes_an_edit_only_where_the_text_still_holds_what_it_replaces() {
        let text = "spec:\n  replicas: 3\n";
        let at = text.find('3').unwrap();
        let fix = Fix {
            safety: FixSafety::Safe,
            message: "set `replicas` to `2`".into(),
            edits: vec![Edit {
                path: SourcePath::File("/repo/app.yaml".into()),
                range: at..at + 1,
                expected: "3".into(),
                replacement: "2".into(),
            }],
        };
        let edit = to_workspace_edit(&fix, &|_| Some(text.to_string())).unwrap();
        let changes = edit.changes.unwrap();
        let edits = &changes[&uri_of(Path::new("/repo/app.yaml")).unwrap()];
        assert_eq!(edits.len(), 1);
        assert_eq!(edits[0].range, lsp::Range::new(lsp::Position::new(1, 12), lsp::Position::new(1, 13)));
        assert_eq!(edits[0].new_text, "2");
        // The buffer changed since: no edit.
        assert!(to_workspace_edit(&fix, &|_| Some("spec:\n  replicas: 4\n".into())).is_none());
    }

    #[test]
    fn a_finding_keeps_rule_severity_help_and_its_template_line() {
        let manifest = "data:\n  mtu: \"1500\"\n";
        let template = "data:\n  mtu: \"9000\"\n";
        let at = manifest.find("\"1500\"").unwrap();
        let t = template.find("\"9000\"").unwrap();
        let d = Diagnostic::new(
            Rule::ValueDrift,
            Severity::Warning,
            SourcePath::File("/repo/cm.yaml".into()),
            Some(at..at + 6),
            "`mtu` is `1500`, the reference expects `9000`",
        )
        .with_secondary(SourcePath::File("/repo/ref/cm.yaml".into()), Some(t..t + 6), "expected here")
        .with_help("field /data/mtu");
        let texts: Texts<'_> = HashMap::from([(PathBuf::from("/repo/ref/cm.yaml"), template)]);
        let l = to_lsp_diagnostic(&d, &LineIndex::new(manifest), &texts);
        assert_eq!(l.range, lsp::Range::new(lsp::Position::new(1, 7), lsp::Position::new(1, 13)));
        assert_eq!(l.severity, Some(lsp::DiagnosticSeverity::WARNING));
        assert_eq!(l.code, Some(lsp::NumberOrString::String("value-drift".into())));
        assert!(l.message.ends_with("\nhelp: field /data/mtu"), "{}", l.message);
        let related = l.related_information.unwrap();
        assert_eq!(related[0].location.uri.as_str(), "file:///repo/ref/cm.yaml");
        assert_eq!(related[0].location.range.start, lsp::Position::new(1, 7));
        assert_eq!(related[0].message, "expected here");
    }
}
