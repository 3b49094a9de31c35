//! Scalar analysis and the four scalar writers of go-yaml v2's emitter
//! (`yaml_emitter_analyze_scalar`, `write_plain_scalar`, `write_single_quoted_scalar`,
//! `write_double_quoted_scalar`, `write_literal_scalar`), including the 80-column folding.

use crate::emit_writer::{INDENT, WIDTH, Writer};
use crate::scalar::{is_base60_float, parse_scalar};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// go-yaml's `stringv` test: plain only if the text resolves to a string and is not a YAML 1.1
/// sexagesimal number.
pub(crate) fn plain_allowed_by_resolver(s: &str) -> bool {
    parse_scalar(s).is_string() && !is_base60_float(s)
}

/// The style of a string that is one line of printable ASCII with no indicator, decided
/// without the full analysis; `None` for anything else.
///
/// Exact for the text it accepts, in any context: printable ASCII and single spaces inside
/// (no tab, no break, no space at either end); a first character that is no indicator (`-`
/// only when followed by a non-blank and not as `---`, `.` not as `...`); no `:` at the end
/// or before a space, no `#` after a space. For such text [`Analysis::of`] finds no breaks,
/// no special characters, no leading or trailing space and no indicator, so plain style is
/// allowed everywhere and the only question left is the resolver's: plain when the text reads
/// back as a string, else double quotes, which nothing then overrides.
pub(crate) fn quick_style(s: &str) -> Option<Style> {
    let b = s.as_bytes();
    let (&first, &last) = (b.first()?, b.last()?);
    let first_ok = match first {
        b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\'' | b'"' | b'%' | b'@'
        | b'`' | b'?' | b':' => false,
        b'-' => b.len() >= 2 && b[1] != b' ' && !s.starts_with("---"),
        b'.' => !s.starts_with("..."),
        c => c.is_ascii_graphic(),
    };
    if !first_ok || last == b' ' || last == b':' {
        return None;
    }
    for i in 1..b.len() {
        let c = b[i];
        if ORDINARY[usize::from(c)] {
            continue;
        }
        let ok = match c {
            b' ' => b[i - 1] != b':',
            b'#' => b[i - 1] != b' ',
            _ => false,
        };
        if !ok {
            return None;
        }
    }
    // Only a sign, a digit, `.`, `~` or one of `yYnNtTfFoO` can start a non-string for the
    // resolver (`parse_scalar`'s hint), and only a sign or a digit a sexagesimal number.
    let resolver_free = first.is_ascii_alphabetic() && !b"yYnNtTfFoO".contains(&first)
        || matches!(first, b'$' | b'(' | b')' | b'/' | b';' | b'<' | b'=' | b'\\' | b'^' | b'_');
    Some(if resolver_free || plain_allowed_by_resolver(s) { Style::Plain } else { Style::DoubleQuoted })
}

/// Bytes that need no further look inside a [`quick_style`] word: printable ASCII but `#`.
static ORDINARY: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x21;
    while b < 0x7f {
        table[b] = b != b'#' as usize;
        b += 1;
    }
    table
};

/// `is_printable` of go-yaml: `\n`, printable ASCII, U+00A0–U+D7FF, U+E000–U+FFFD except the
/// BOM. Characters outside the BMP (emoji) are *not* printable for go-yaml v2.
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | '\x20'..='\x7e' | '\u{a0}'..='\u{d7ff}')
        || (('\u{e000}'..='\u{fffd}').contains(&c) && c != '\u{feff}')
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// What `yaml_emitter_analyze_scalar` concludes (block context only: `Marshal` never emits
/// scalars inside flow collections).
pub(crate) struct Analysis {
    pub(crate) multiline: bool,
    pub(crate) block_plain_allowed: bool,
    pub(crate) single_quoted_allowed: bool,
    pub(crate) block_allowed: bool,
}

impl Analysis {
    pub(crate) fn of(value: &str) -> Analysis {
        if value.is_empty() {
            return Analysis {
                multiline: false,
                block_plain_allowed: true,
                single_quoted_allowed: true,
                block_allowed: false,
            };
        }
        // ASCII text (most of it) is scanned byte by byte, without UTF-8 decoding.
        if value.is_ascii() {
            Analysis::scan(value, value.bytes().map(char::from))
        } else {
            Analysis::scan(value, value.chars())
        }
    }

    /// One pass over `chars` (the characters of `value`) with a one-character look-ahead.
    fn scan(value: &str, chars: impl Iterator<Item = char>) -> Analysis {
        let mut chars = chars.peekable();
        let mut block_indicators = value.starts_with("---") || value.starts_with("...");
        let (mut line_breaks, mut special) = (false, false);
        let (mut leading_space, mut leading_break) = (false, false);
        let (mut trailing_space, mut trailing_break) = (false, false);
        let (mut break_space, mut space_break) = (false, false);
        let (mut previous_space, mut previous_break) = (false, false);
        let mut preceded_by_ws = true;
        let mut i = 0usize;
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            let last = next.is_none();
            let followed_by_ws = next.is_none_or(is_blank);
            if i == 0 {
                match c {
                    '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%' | '@' | '`' => {
                        block_indicators = true
                    }
                    '?' | ':' | '-' if followed_by_ws => block_indicators = true,
                    _ => {}
                }
            } else {
                match c {
                    ':' if followed_by_ws => block_indicators = true,
                    '#' if preceded_by_ws => block_indicators = true,
                    _ => {}
                }
            }
            if !is_printable(c) {
                special = true;
            }
            if c == ' ' {
                leading_space |= i == 0;
                trailing_space |= last;
                break_space |= previous_break;
                previous_space = true;
                previous_break = false;
            } else if is_break(c) {
                line_breaks = true;
                leading_break |= i == 0;
                trailing_break |= last;
                space_break |= previous_space;
                previous_space = false;
                previous_break = true;
            } else {
                previous_space = false;
                previous_break = false;
            }
            preceded_by_ws = is_blank(c) || is_break(c) || c == '\0';
            i += 1;
        }
        let mut a = Analysis {
            multiline: line_breaks,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: true,
        };
        if leading_space || leading_break || trailing_space || trailing_break || line_breaks {
            a.block_plain_allowed = false;
        }
        if trailing_space {
            a.block_allowed = false;
        }
        if break_space {
            a.block_plain_allowed = false;
            a.single_quoted_allowed = false;
        }
        if space_break || special {
            a.block_plain_allowed = false;
            a.single_quoted_allowed = false;
            a.block_allowed = false;
        }
        if block_indicators {
            a.block_plain_allowed = false;
        }
        a
    }
}

impl Writer {
    /// go-yaml's `write`: one character, one column.
    fn write_char(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    /// go-yaml's `write_break`: `\n` is a line break; LS/PS/NEL are copied and reset the column.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.write_char(c);
            self.column = 0;
        }
    }

    pub(crate) fn write_plain(&mut self, value: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let mut chars = value.chars().peekable();
        let (mut spaces, mut breaks) = (false, false);
        while let Some(c) = chars.next() {
            if c == ' ' {
                let next_space = chars.peek() == Some(&' ');
                if allow_breaks && !spaces && self.column > WIDTH && !next_space {
                    self.write_indent();
                } else {
                    self.write_char(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write_char(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    pub(crate) fn write_single_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let mut chars = value.chars().peekable();
        let (mut spaces, mut breaks) = (false, false);
        let mut first = true;
        while let Some(c) = chars.next() {
            let inner = !std::mem::replace(&mut first, false) && chars.peek().is_some();
            if c == ' ' {
                let next_space = chars.peek() == Some(&' ');
                if allow_breaks && !spaces && self.column > WIDTH && inner && !next_space {
                    self.write_indent();
                } else {
                    self.write_char(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.write_char(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    pub(crate) fn write_double_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        // go-yaml's `is_bom(value, i)` looks at the start of the value whatever `i` is, so a
        // value starting with a BOM gets every character escaped.
        let bom = value.starts_with('\u{feff}');
        let mut chars = value.chars().peekable();
        let mut spaces = false;
        let mut first = true;
        while let Some(c) = chars.next() {
            let inner = !std::mem::replace(&mut first, false) && chars.peek().is_some();
            if !is_printable(c) || bom || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                match c {
                    '\0' => self.put('0'),
                    '\x07' => self.put('a'),
                    '\x08' => self.put('b'),
                    '\t' => self.put('t'),
                    '\n' => self.put('n'),
                    '\x0b' => self.put('v'),
                    '\x0c' => self.put('f'),
                    '\r' => self.put('r'),
                    '\x1b' => self.put('e'),
                    '"' => self.put('"'),
                    '\\' => self.put('\\'),
                    '\u{85}' => self.put('N'),
                    '\u{a0}' => self.put('_'),
                    '\u{2028}' => self.put('L'),
                    '\u{2029}' => self.put('P'),
                    _ => {
                        let v = u32::from(c);
                        let (letter, width) = match v {
                            0..=0xff => ('x', 2),
                            0x100..=0xffff => ('u', 4),
                            _ => ('U', 8),
                        };
                        self.put(letter);
                        for k in (0..width).rev() {
                            let digit = (v >> (4 * k)) & 0xf;
                            self.put(char::from_digit(digit, 16).unwrap_or('0').to_ascii_uppercase());
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > WIDTH && inner {
                    self.write_indent();
                    if chars.peek() == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.write_char(c);
                }
                spaces = true;
            } else {
                self.write_char(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    pub(crate) fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        // Block scalar hints: an indentation indicator when the text starts with a space or a
        // break, and the chomping indicator from how the text ends.
        if value.chars().next().is_some_and(|c| c == ' ' || is_break(c)) {
            let hint = char::from_digit(INDENT as u32, 10).unwrap_or('2');
            self.write_indicator(&hint.to_string(), false, false, false);
        }
        let mut from_end = value.chars().rev();
        let chomp = match (from_end.next(), from_end.next()) {
            (None, _) => Some("-"),
            (Some(last), _) if !is_break(last) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(before)) if is_break(before) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in value.chars() {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write_char(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}
