//! Byte offset → 1-based line and column, computed only when a report is rendered.
//!
//! Columns count characters (Unicode scalar values), as rustc and most editors show them.

/// Start offsets of every line of a text.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// 1-based (line, column) of a byte offset; offsets past the end land on the last line.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let col = text.get(start..offset).map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based() {
        let text = "a: 1\nbé: 2\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), (1, 1));
        assert_eq!(idx.line_col(text, 5), (2, 1));
        // `2` after a two-byte `é`: byte 10, character column 5.
        assert_eq!(idx.line_col(text, 10), (2, 5));
        assert_eq!(idx.line_col(text, 999), (3, 1));
    }
}
