//! Byte offset → 1-based line and column (model: ruff's `line_index.rs`).
//!
//! Everything else in the crate keeps byte ranges; this converts only when a location is shown.
//! Build one per file when first needed (it is a single pass over the text) and keep it.

use std::ops::Range;

/// A 1-based line and column; the column counts characters (Unicode scalar values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineColumn {
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters.
    pub column: usize,
}

/// Start offsets of every line of a text. Lines end at `\n` (so `\r\n` counts once).
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    ascii: bool,
    len: usize,
}

impl LineIndex {
    /// Indexes `text`.
    #[must_use]
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr_newlines(text.as_bytes()));
        LineIndex { line_starts, ascii: text.is_ascii(), len: text.len() }
    }

    /// Number of lines (a trailing newline starts a last, empty line).
    #[must_use]
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The 1-based line and column of `offset`, which is clamped to the text and moved back
    /// to a character boundary. `text` must be the indexed text.
    #[must_use]
    pub fn line_column(&self, text: &str, offset: usize) -> LineColumn {
        let mut offset = offset.min(self.len);
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        let column = if self.ascii { offset - start } else { text[start..offset].chars().count() };
        LineColumn { line: line + 1, column: column + 1 }
    }

    /// The byte range of 1-based `line` without its line terminator, if the line exists.
    #[must_use]
    pub fn line_range(&self, text: &str, line: usize) -> Option<Range<usize>> {
        let start = *self.line_starts.get(line.checked_sub(1)?)?;
        let mut end = self.line_starts.get(line).map_or(self.len, |next| next - 1);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        Some(start..end)
    }

    /// The byte offset of a 1-based line and character column (clamped to the line end).
    #[must_use]
    pub fn offset(&self, text: &str, at: LineColumn) -> Option<usize> {
        let range = self.line_range(text, at.line)?;
        let line = &text[range.clone()];
        let skip = at.column.saturating_sub(1);
        Some(range.start + line.char_indices().nth(skip).map_or(line.len(), |(i, _)| i))
    }
}

fn memchr_newlines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes.iter().enumerate().filter(|&(_, &b)| b == b'\n').map(|(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns() {
        let text = "a: 1\nbé: ü\r\nc";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 3);
        assert_eq!(index.line_column(text, 0), LineColumn { line: 1, column: 1 });
        assert_eq!(index.line_column(text, 5), LineColumn { line: 2, column: 1 });
        // `ü` starts after "bé: " = 5 bytes but 4 characters.
        assert_eq!(index.line_column(text, 10), LineColumn { line: 2, column: 5 });
        assert_eq!(index.line_range(text, 2), Some(5..12));
        assert_eq!(index.offset(text, LineColumn { line: 2, column: 5 }), Some(10));
        assert_eq!(index.line_column(text, 999), LineColumn { line: 3, column: 2 });
    }
}
