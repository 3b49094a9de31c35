//! Quoted scalars whose continuation lines sit at any column, as go-yaml reads them.
//!
//! go-yaml's scanner (`yaml_parser_scan_flow_scalar`, v2 and v3) checks only two things on a
//! continuation line of a single- or double-quoted scalar: it must not start with a document
//! marker (`---`/`...` at column 0), and the stream must not end inside the scalar. The
//! line's indentation is not looked at: leading blanks are dropped when the line is folded.
//! saphyr-parser follows the YAML 1.2 text instead and stops with "invalid indentation in
//! quoted scalar" when a continuation line is indented less than the enclosing block (a CRD
//! description written `description: "…` with its next line at the key's column).
//!
//! So that Kubernetes' own reading wins, the loader reads such a text again with blanks added
//! at the start of those continuation lines (which the folding drops: the value is the same),
//! and maps every byte offset back to the original text. Each reading fixes the scalar saphyr
//! stopped at; the readings are bounded ([`MAX_READINGS`]), past which the error stands.
//! The same padding serves lines inside flow collections (`flow`), whose indentation go-yaml
//! does not look at either.

use std::ops::Range;

use crate::error::{Error, Warning};
use crate::node::{Node, NodeValue};
use crate::stream::Document;

/// The message saphyr-parser gives for an under-indented continuation line.
pub(crate) const MESSAGE: &str = "invalid indentation in quoted scalar";

/// How many readings one text may take, and how many bytes they may read in all (so that a
/// text of many such scalars costs a bounded multiple of its size, not its size squared).
const MAX_READINGS: usize = 256;
const MAX_BYTES_READ: usize = 64 << 20;

/// Whether the double-quoted scalar at the start of `source` holds the escape `\/`, which
/// YAML 1.2 added and go-yaml v2 refuses ("found unknown escape character").
pub(crate) fn has_slash_escape(source: &str) -> bool {
    let bytes = source.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'/') => return true,
            b'\\' => i += 2,
            b'"' => return false,
            _ => i += 1,
        }
    }
    false
}

/// Blanks added to a text: `(offset in the original, count)`, sorted by offset.
#[derive(Debug, Default)]
pub(crate) struct Padding {
    inserts: Vec<(usize, usize)>,
}

impl Padding {
    /// Whether another reading of a text of `len` bytes is within the budget.
    pub(crate) fn may_read_again(&self, readings: usize, len: usize) -> bool {
        readings < MAX_READINGS && readings.saturating_mul(len.max(1)) < MAX_BYTES_READ.max(len.saturating_mul(4))
    }

    /// The padded text.
    pub(crate) fn apply(&self, text: &str) -> String {
        let added: usize = self.inserts.iter().map(|(_, n)| n).sum();
        let mut out = String::with_capacity(text.len() + added);
        let mut at = 0;
        for &(offset, n) in &self.inserts {
            out.push_str(&text[at..offset]);
            out.extend(std::iter::repeat_n(' ', n));
            at = offset;
        }
        out.push_str(&text[at..]);
        out
    }

    /// The offset in the original text of `padded`, an offset in the padded text (an offset
    /// inside added blanks maps to where they were added).
    pub(crate) fn original(&self, padded: usize) -> usize {
        let mut added = 0;
        for &(offset, n) in &self.inserts {
            let start = offset + added;
            if padded < start {
                break;
            }
            if padded < start + n {
                return offset;
            }
            added += n;
        }
        padded - added
    }

    /// Pads the continuation lines of the quoted scalar whose opening quote is at `quote` (an
    /// offset in the original `text`) up to the quote's column. `false` when there is nothing
    /// to pad (then reading again would fail the same way).
    pub(crate) fn pad_scalar(&mut self, text: &str, quote: usize) -> bool {
        let bytes = text.as_bytes();
        let Some(&open) = bytes.get(quote) else { return false };
        if open != b'"' && open != b'\'' {
            return false;
        }
        let line_start = text[..quote].rfind('\n').map_or(0, |i| i + 1);
        let column = text[line_start..quote].chars().count();
        let mut added = Vec::new();
        let mut i = quote + 1;
        while i < bytes.len() {
            match bytes[i] {
                // An escaped line break still starts a line that saphyr measures.
                b'\\' if open == b'"' => i += if matches!(bytes.get(i + 1), Some(b'\n' | b'\r')) { 1 } else { 2 },
                b'\'' if open == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
                c if c == open => break,
                b'\n' => {
                    i += 1;
                    let blanks = bytes[i..].iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
                    // A document marker at column 0 ends the scalar with an error in go-yaml
                    // too: it is not padded away.
                    let rest = &bytes[i..];
                    let marker = (rest.starts_with(b"---") || rest.starts_with(b"..."))
                        && rest.get(3).is_none_or(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
                    if blanks < column && !marker {
                        added.push((i, column - blanks));
                    }
                    i += blanks;
                }
                _ => i += 1,
            }
        }
        if added.is_empty() || added.iter().any(|a| self.inserts.iter().any(|b| b.0 == a.0)) {
            return false;
        }
        self.inserts.extend(added);
        self.inserts.sort_unstable();
        true
    }

    /// Adds a blank at `at` (an offset in the original text); `false` when one was added
    /// there already.
    pub(crate) fn insert_blank(&mut self, at: usize) -> bool {
        if self.inserts.iter().any(|&(offset, _)| offset == at) {
            return false;
        }
        self.inserts.push((at, 1));
        self.inserts.sort_unstable();
        true
    }

    /// Pads the line of `at` (an offset in the original `text`, with only blanks before it on
    /// its line) so that it starts at `column` in the padded text: a line inside a flow
    /// collection, where go-yaml does not look at indentation (see `flow`). `false` when the
    /// line is already that deep or `at` is not its first token.
    pub(crate) fn pad_line(&mut self, text: &str, at: usize, column: usize) -> bool {
        let Some(before) = text.get(..at) else { return false };
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        if !before[line_start..].bytes().all(|b| b == b' ') {
            return false;
        }
        let existing = self.inserts.iter().position(|&(offset, _)| offset == line_start);
        let current = (at - line_start) + existing.map_or(0, |i| self.inserts[i].1);
        if current >= column {
            return false;
        }
        match existing {
            Some(i) => self.inserts[i].1 += column - current,
            None => {
                self.inserts.push((line_start, column - current));
                self.inserts.sort_unstable();
            }
        }
        true
    }

    fn range(&self, r: &Range<usize>) -> Range<usize> {
        let start = self.original(r.start);
        start..self.original(r.end).max(start)
    }

    /// Maps every offset of documents read from the padded text back to the original.
    pub(crate) fn documents(&self, documents: &mut [Document]) {
        for d in documents {
            d.range = self.range(&d.range);
            self.node(&mut d.root);
            for w in &mut d.warnings {
                match w {
                    Warning::DuplicateKey { first, duplicate, .. } => {
                        *first = self.range(first);
                        *duplicate = self.range(duplicate);
                    }
                    Warning::UnsupportedKey { span, .. } | Warning::NonFiniteFloat { span } => {
                        *span = self.range(span);
                    }
                }
            }
        }
    }

    fn node(&self, node: &mut Node) {
        node.span = self.range(&node.span);
        if let Some(a) = node.alias_mut() {
            *a = self.range(a);
        }
        match &mut node.value {
            NodeValue::Sequence(items) => items.iter_mut().for_each(|n| self.node(n)),
            NodeValue::Mapping(pairs) => {
                for (k, v) in pairs {
                    self.node(k);
                    self.node(v);
                }
            }
            _ => {}
        }
    }

    /// The error's offset in the original text (its line and column are recomputed by the
    /// caller).
    pub(crate) fn error_offset(&self, e: &Error) -> usize {
        self.original(e.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_and_maps_back() {
        let text = "a:\n  b: \"x\n  y\n\n---z\"\n";
        let mut p = Padding::default();
        assert!(p.pad_scalar(text, text.find('"').unwrap()));
        let padded = p.apply(text);
        // The quote is at column 5: the two lines with content below it get 3 and 5 blanks;
        // the `---z` line is no marker (no blank after it) and is padded too.
        assert_eq!(padded, "a:\n  b: \"x\n     y\n     \n     ---z\"\n");
        assert_eq!(p.original(padded.find('y').unwrap()), text.find('y').unwrap());
        assert_eq!(p.original(padded.find('z').unwrap()), text.find('z').unwrap());
        // Inside added blanks: where they were added.
        assert_eq!(p.original(padded.find("     y").unwrap() + 1), text.find("  y").unwrap());
        // The same scalar again: nothing more to do.
        assert!(!p.pad_scalar(text, text.find('"').unwrap()));
    }

    #[test]
    fn finds_the_slash_escape_inside_the_quotes_only() {
        assert!(has_slash_escape(r#""a\/b""#));
        assert!(!has_slash_escape(r#""a\\/b""#));
        assert!(!has_slash_escape(r#""a/b" # \/"#));
    }
}
