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

/// Lines of a text, found from checkpoints: the start offset and number of one line in every
/// [`CHECK_LINES`] lines (or sooner, after [`CHECK_BYTES`] bytes). Lines end at `\n` (so
/// `\r\n` counts once).
///
/// Not every line start is kept: a file of 60 million blank lines would need 480 MB for them
/// (and twice that while the vector grows), about 8× the text. The checkpoints
/// take at most 16 bytes per 64 lines, and a lookup scans at most `CHECK_BYTES` plus the line
/// it lands in, which computing a column reads anyway.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// `(byte offset of a line start, 0-based line number)`, ascending; the first is `(0, 0)`.
    checkpoints: Vec<(usize, usize)>,
    lines: usize,
    ascii: bool,
    len: usize,
}

/// At most this many lines between two checkpoints.
const CHECK_LINES: usize = 64;
/// A checkpoint at the first line start this many bytes after the previous one.
const CHECK_BYTES: usize = 4096;

impl LineIndex {
    /// Indexes `text`.
    #[must_use]
    pub fn new(text: &str) -> Self {
        let mut checkpoints = vec![(0, 0)];
        let (mut last_start, mut last_line) = (0, 0);
        let mut line = 0;
        for start in newline_ends(text.as_bytes(), 0) {
            line += 1;
            if line - last_line >= CHECK_LINES || start - last_start >= CHECK_BYTES {
                checkpoints.push((start, line));
                (last_start, last_line) = (start, line);
            }
        }
        LineIndex { checkpoints, lines: line + 1, ascii: text.is_ascii(), len: text.len() }
    }

    /// Number of lines (a trailing newline starts a last, empty line).
    #[must_use]
    pub fn line_count(&self) -> usize {
        self.lines
    }

    /// The 1-based line and column of `offset`, which is clamped to the text and moved back
    /// to a character boundary. `text` must be the indexed text.
    #[must_use]
    pub fn line_column(&self, text: &str, offset: usize) -> LineColumn {
        let mut offset = offset.min(self.len);
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let k = self.checkpoints.partition_point(|&(start, _)| start <= offset) - 1;
        let (mut start, mut line) = self.checkpoints[k];
        let between = &text.as_bytes()[start..offset];
        if let Some(last) = memchr::memrchr(b'\n', between) {
            line += memchr::memchr_iter(b'\n', between).count();
            start += last + 1;
        }
        let column = if self.ascii { offset - start } else { text[start..offset].chars().count() };
        LineColumn { line: line + 1, column: column + 1 }
    }

    /// The byte range of 1-based `line` without its line terminator, if the line exists.
    #[must_use]
    pub fn line_range(&self, text: &str, line: usize) -> Option<Range<usize>> {
        let target = line.checked_sub(1).filter(|&l| l < self.lines)?;
        let k = self.checkpoints.partition_point(|&(_, l)| l <= target) - 1;
        let (from, at) = self.checkpoints[k];
        let bytes = text.as_bytes();
        // One scan from the checkpoint: the line's start, then its end.
        let mut ends = newline_ends(&bytes[from..], from);
        let start = if at < target { ends.nth(target - at - 1)? } else { from };
        let mut end = ends.next().map_or(self.len, |next| next - 1);
        if end > start && bytes.get(end - 1) == Some(&b'\r') {
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

/// The offsets just after each `\n` of `bytes`, which start at offset `base` of the text.
fn newline_ends(bytes: &[u8], base: usize) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(b'\n', bytes).map(move |i| base + i + 1)
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

    /// Every offset and line agrees with a full list of line starts, across checkpoints made
    /// by line count (short lines) and by bytes (long lines), and the index stays small.
    #[test]
    fn checkpoints_agree_with_every_line_start() {
        let mut text = String::new();
        for i in 0..2_000 {
            match i % 7 {
                0 => text.push_str(&"x".repeat(5_000)),
                1 => text.push_str("é\r"),
                _ => {}
            }
            text.push('\n');
        }
        text.push_str("tail");
        let index = LineIndex::new(&text);
        let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        assert_eq!(index.line_count(), starts.len());
        for (n, &start) in starts.iter().enumerate() {
            assert_eq!(index.line_column(&text, start), LineColumn { line: n + 1, column: 1 }, "line {}", n + 1);
            let end = starts.get(n + 1).map_or(text.len(), |next| next - 1);
            let end = if text[..end].ends_with('\r') { end - 1 } else { end };
            assert_eq!(index.line_range(&text, n + 1), Some(start..end), "line {}", n + 1);
            if end > start + 2 {
                assert_eq!(index.line_column(&text, start + 2).line, n + 1);
            }
        }
        assert_eq!(index.line_range(&text, starts.len() + 1), None);
        assert_eq!(index.line_range(&text, 0), None);
        // A million blank lines: checkpoints every 64 lines.
        let blank = "\n".repeat(1_000_000);
        let index = LineIndex::new(&blank);
        assert!(index.checkpoints.len() <= 1_000_000 / CHECK_LINES + 1, "{}", index.checkpoints.len());
        assert_eq!(index.line_column(&blank, 999_999), LineColumn { line: 1_000_000, column: 1 });
    }
}
