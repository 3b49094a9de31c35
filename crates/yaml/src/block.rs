//! Block scalars (`|` literal, `>` folded) for both fast loaders (`spanned` and `simple`):
//! their header, content lines, folding and chomping, and where the general loader's span of
//! them ends.
//!
//! This reproduces `saphyr-parser`'s block scalar scanner (which the general loader runs) step
//! by step, not the YAML specification's prose, because the fast loaders must give exactly
//! what the general loader gives, quirks included: a text that ends in an indented blank line
//! gains a line break (`|\n  x\n  ` is `"x\n\n"`), and the span ends after the indentation the
//! scanner read on the line that ends the scalar. Whatever the scanner would refuse (a `0` or
//! doubled indicator, text after the header, a blank line indented beyond the content) is
//! refused here (`None`), so that the caller falls back to the general loader, which reports
//! it. Only the lines of the text are read: tabs, carriage returns and the other characters
//! both fast loaders refuse never reach this module.
//!
//! It knows nothing of nodes, spans of other values or documents.

/// A block scalar read from its header to its last line.
pub(crate) struct Block {
    /// The scalar's value, folded and chomped.
    pub(crate) value: String,
    /// `|` (else `>`).
    pub(crate) literal: bool,
    /// Where the general loader's span of the scalar ends: where its scanner stopped, after
    /// the line breaks it consumed and the indentation it read on the line that ends the
    /// scalar (that line's start, or the text's end).
    pub(crate) end: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomping {
    Strip,
    Clip,
    Keep,
}

/// The block scalar whose header (`|` or `>`) is at byte `header` of `text`, inside a block
/// collection at column `parent` (the scanner's indentation: a mapping's key column or a
/// sequence's `-` column). `None` for anything the scanner would refuse, and for a header that
/// is not at the end of its line (apart from blanks and a comment).
pub(crate) fn block_scalar(text: &str, header: usize, parent: usize) -> Option<Block> {
    let b = text.as_bytes();
    let literal = match b.get(header)? {
        b'|' => true,
        b'>' => false,
        _ => return None,
    };
    let mut i = header + 1;
    let mut chomping = Chomping::Clip;
    let mut increment = 0;
    // Chomping and indentation indicators, in either order, each at most once.
    for _ in 0..2 {
        match b.get(i) {
            Some(b'-') if chomping == Chomping::Clip => chomping = Chomping::Strip,
            Some(b'+') if chomping == Chomping::Clip => chomping = Chomping::Keep,
            Some(&d @ b'1'..=b'9') if increment == 0 => increment = usize::from(d - b'0'),
            _ => break,
        }
        i += 1;
    }
    // Blanks and a comment (after a blank) may follow the header; nothing else.
    let line_end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k);
    let rest = &text[i..line_end];
    if !(rest.is_empty()
        || (rest.starts_with(' ') && matches!(rest.trim_start_matches(' ').as_bytes().first(), None | Some(b'#'))))
    {
        return None;
    }
    if line_end == b.len() {
        // The header ends the text: an empty scalar, whatever its chomping.
        return Some(Block { value: String::new(), literal, end: line_end });
    }
    let mut s = Scan { b, pos: line_end + 1, line_start: line_end + 1 };
    let mut trailing_breaks = String::new();
    let indent = if increment > 0 {
        let indent = parent + increment;
        s.indent_breaks(indent, &mut trailing_breaks);
        indent
    } else {
        s.first_line_indent(parent, &mut trailing_breaks)
    };
    if s.pos == b.len() {
        // No content line: only the line breaks after the header, for `+`.
        let value = match chomping {
            Chomping::Strip | Chomping::Clip => String::new(),
            // An unterminated line of blanks counts as a line.
            Chomping::Keep if trailing_breaks.is_empty() && s.col() > 0 => "\n".to_owned(),
            Chomping::Keep => trailing_breaks,
        };
        return Some(Block { value, literal, end: s.pos });
    }
    if s.col() < indent && s.col() > parent {
        return None; // "wrongly indented line in block scalar"
    }
    let mut value = String::new();
    let mut leading_break = false;
    let mut leading_blank = false;
    while s.col() == indent && s.pos < b.len() && b[s.pos] != b'\n' {
        let trailing_blank = b[s.pos] == b' ';
        if !literal && leading_break && !leading_blank && !trailing_blank {
            // Folded: a single line break between two lines that do not start with a blank
            // becomes a space; blank lines between them stay line breaks.
            if trailing_breaks.is_empty() {
                value.push(' ');
            }
        } else if leading_break {
            value.push('\n');
        }
        value.push_str(&trailing_breaks);
        leading_break = false;
        trailing_breaks.clear();
        leading_blank = trailing_blank;
        let eol = memchr::memchr(b'\n', &b[s.pos..]).map_or(b.len(), |k| s.pos + k);
        value.push_str(&text[s.pos..eol]);
        s.pos = eol;
        if s.pos == b.len() {
            break;
        }
        s.pos += 1;
        s.line_start = s.pos;
        leading_break = true;
        s.indent_breaks(indent, &mut trailing_breaks);
    }
    if chomping != Chomping::Strip {
        if leading_break {
            value.push('\n');
        }
        // The scanner's own rule: a text that ends on a line indented at least as far as the
        // content gains a line break.
        if s.pos == b.len() && s.col() >= indent.max(1) {
            value.push('\n');
        }
    }
    if chomping == Chomping::Keep {
        value.push_str(&trailing_breaks);
    }
    Some(Block { value, literal, end: s.pos })
}

/// The scanner's position in the lines after a header.
struct Scan<'a> {
    b: &'a [u8],
    pos: usize,
    line_start: usize,
}

impl Scan<'_> {
    fn col(&self) -> usize {
        self.pos - self.line_start
    }

    fn at_break(&self) -> bool {
        self.b.get(self.pos) == Some(&b'\n')
    }

    fn take_break(&mut self, breaks: &mut String) {
        breaks.push('\n');
        self.pos += 1;
        self.line_start = self.pos;
    }

    /// Skips blank lines and each line's indentation up to `indent` spaces (saphyr's
    /// `skip_block_scalar_indent`), collecting the line breaks.
    fn indent_breaks(&mut self, indent: usize, breaks: &mut String) {
        loop {
            while self.col() < indent && self.b.get(self.pos) == Some(&b' ') {
                self.pos += 1;
            }
            if !self.at_break() {
                return;
            }
            self.take_break(breaks);
        }
    }

    /// Skips the blank lines before the first content line and that line's indentation, and
    /// gives the content's indentation: the deepest of those lines', at least one more than
    /// `parent` (saphyr's `skip_block_scalar_first_line_indent`).
    fn first_line_indent(&mut self, parent: usize, breaks: &mut String) -> usize {
        let mut max_indent = 0;
        loop {
            while self.b.get(self.pos) == Some(&b' ') {
                self.pos += 1;
            }
            max_indent = max_indent.max(self.col());
            if !self.at_break() {
                return max_indent.max(parent + 1);
            }
            self.take_break(breaks);
        }
    }
}
