//! The output side of go-yaml v2's emitter (`emitterc.go`): the text written so far and the
//! state go-yaml keeps about it (column, `whitespace`, `indention`, the indent stack), with its
//! primitive writes (`put`, `put_break`, `write_indent`, `write_indicator`).
//!
//! `emit` walks values and `emit_scalar` writes scalars, both through a [`Writer`]; this module
//! knows neither JSON values nor scalar styles.

/// go-yaml's `best_indent` and `best_width`.
pub(crate) const INDENT: isize = 2;
pub(crate) const WIDTH: usize = 80;

/// Indentation is written from this run of spaces.
const SPACES: &str = "                                                                ";

/// What has been written, and where the writer stands.
pub(crate) struct Writer {
    pub(crate) out: String,
    /// Column in characters.
    pub(crate) column: usize,
    /// The last thing written was whitespace (or nothing): indicators need no space before.
    pub(crate) whitespace: bool,
    /// Only indentation has been written on this line so far.
    pub(crate) indention: bool,
    pub(crate) indent: isize,
    indents: Vec<isize>,
}

impl Writer {
    pub(crate) fn new() -> Self {
        Writer {
            // Capacities stay below glibc's large-chunk size (1 KiB with its header), which
            // cannot come from the per-thread cache and makes malloc consolidate its fast bins
            // (for programs on glibc's allocator; driftlint's binary uses mimalloc).
            out: String::with_capacity(1000),
            column: 0,
            whitespace: true,
            indention: true,
            indent: -1,
            indents: Vec::with_capacity(16),
        }
    }

    /// `yaml_emitter_increase_indent`.
    pub(crate) fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { INDENT } else { 0 };
        } else if !indentless {
            self.indent += INDENT;
        }
    }

    pub(crate) fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    pub(crate) fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    pub(crate) fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// `yaml_emitter_write_indent`: a line break unless we are at a fresh indentation, then
    /// spaces up to the indent.
    pub(crate) fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            let n = (indent - self.column).min(SPACES.len());
            self.out.push_str(&SPACES[..n]);
            self.column += n;
        }
        self.whitespace = true;
        self.indention = true;
    }

    /// `yaml_emitter_write_indicator`.
    pub(crate) fn write_indicator(&mut self, s: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        // Indicators are ASCII: bytes are columns.
        self.out.push_str(s);
        self.column += s.len();
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
    }
}
