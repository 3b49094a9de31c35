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

/// Lines of a text, found from the count of line feeds before each block of [`BLOCK`] bytes.
/// Lines end at `\n` (so `\r\n` counts once).
///
/// Not every line start is kept: a file of 60 million blank lines would need 480 MB for them
/// (and twice that while the vector grows), about 8× the text; the counts take 8 bytes per
/// 4 KiB. Both the index and a lookup count line feeds a vector at a time (`memchr`'s count),
/// not one line at a time: a lookup counts at most a block, and scans back over the line it
/// lands in, which computing a column reads anyway. (Indexed a line at a time, a 5 MB stream's
/// index was several milliseconds of the end of a run, while every thread waited for it.)
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// `before[k]`: the line feeds in the text's first `k * BLOCK` bytes.
    before: Vec<usize>,
    lines: usize,
    ascii: bool,
    len: usize,
}

/// The bytes of a block of [`LineIndex`].
const BLOCK: usize = 4096;
/// The bytes counted at a time when looking for a line's start inside a block.
const STEP: usize = 256;

impl LineIndex {
    /// Indexes `text`.
    #[must_use]
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut before = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut feeds = 0;
        before.push(0);
        for block in bytes.chunks(BLOCK) {
            feeds += count_feeds(block);
            before.push(feeds);
        }
        LineIndex { before, lines: feeds + 1, ascii: text.is_ascii(), len: text.len() }
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
        let bytes = text.as_bytes();
        let block = offset / BLOCK;
        let line = self.before[block] + count_feeds(&bytes[block * BLOCK..offset]);
        let start = memchr::memrchr(b'\n', &bytes[..offset]).map_or(0, |i| i + 1);
        let column = if self.ascii { offset - start } else { text[start..offset].chars().count() };
        LineColumn { line: line + 1, column: column + 1 }
    }

    /// [`LineIndex::line_column`] of `offset`, given that of an earlier offset `from` (`at`):
    /// read from there when both are on one line (the end of a range, most often), else
    /// looked up.
    #[must_use]
    pub fn line_column_from(&self, text: &str, from: usize, at: LineColumn, offset: usize) -> LineColumn {
        let boundary = |mut o: usize| {
            o = o.min(self.len);
            while !text.is_char_boundary(o) {
                o -= 1;
            }
            o
        };
        let (from, offset) = (boundary(from), boundary(offset));
        match text.get(from..offset) {
            Some(between) if memchr::memchr(b'\n', between.as_bytes()).is_none() => {
                let chars = if self.ascii { between.len() } else { between.chars().count() };
                LineColumn { line: at.line, column: at.column + chars }
            }
            _ => self.line_column(text, offset),
        }
    }

    /// The byte range of 1-based `line` without its line terminator, if the line exists.
    #[must_use]
    pub fn line_range(&self, text: &str, line: usize) -> Option<Range<usize>> {
        let target = line.checked_sub(1).filter(|&l| l < self.lines)?;
        let bytes = text.as_bytes();
        let start = match target {
            0 => 0,
            _ => {
                // The block holding the line's own feed (the `target`-th), then that feed.
                let block = self.before.partition_point(|&b| b < target) - 1;
                nth_feed(bytes, block * BLOCK, target - self.before[block])? + 1
            }
        };
        let mut end = memchr::memchr(b'\n', &bytes[start..]).map_or(self.len, |i| start + i);
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

/// The line feeds in `bytes`.
fn count_feeds(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// The offset of the `n`-th (1-based) line feed of `bytes` from `from`: counted [`STEP`]
/// bytes at a time, then found in the step that holds it.
fn nth_feed(bytes: &[u8], from: usize, mut n: usize) -> Option<usize> {
    let mut at = from;
    while at < bytes.len() {
        let step = &bytes[at..(at + STEP).min(bytes.len())];
        let feeds = count_feeds(step);
        if feeds >= n {
            return memchr::memchr_iter(b'\n', step).nth(n - 1).map(|i| at + i);
        }
        n -= feeds;
        at += step.len();
    }
    None
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
        // A million blank lines: one count per block, and lines found inside a block of feeds.
        let blank = "\n".repeat(1_000_000);
        let index = LineIndex::new(&blank);
        assert!(index.before.len() <= 1_000_000 / BLOCK + 2, "{}", index.before.len());
        assert_eq!(index.line_column(&blank, 999_999), LineColumn { line: 1_000_000, column: 1 });
        for line in [1, 2, 4_096, 4_097, 4_098, 999_999, 1_000_000, 1_000_001] {
            assert_eq!(index.line_range(&blank, line), Some(line - 1..line - 1), "line {line}");
        }
        assert_eq!(index.line_range(&blank, 1_000_002), None);
    }

    /// From an earlier offset's line and column, a later one's are those looked up, on one
    /// line or across lines, in ASCII and non-ASCII text, inside characters and past the end.
    #[test]
    fn line_column_from_an_earlier_offset_agrees_with_a_lookup() {
        for text in ["ab: c\nd\r\n\nef: gh", "é: ü\n  – x\ny"] {
            let index = LineIndex::new(text);
            for from in 0..=text.len() + 1 {
                let at = index.line_column(text, from);
                for offset in from..=text.len() + 2 {
                    assert_eq!(
                        index.line_column_from(text, from, at, offset),
                        index.line_column(text, offset),
                        "{text:?} {from} {offset}"
                    );
                }
            }
        }
    }
}
