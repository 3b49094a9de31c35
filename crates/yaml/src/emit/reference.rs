//! The writer as it was before the fast paths (test oracle only).
//!
//! A straightforward transcription of go-yaml v2's emitter: full scalar analysis for every
//! scalar, a `Vec<char>` per written string, a merge sort with `key_less` on `Vec<char>`s for
//! every mapping. `differential` checks that the optimised writer gives the same bytes.

use serde_json::{Number, Value};

use crate::gofmt::{format_g, format_json_float};
use crate::scalar::{Scalar, is_base60_float, parse_scalar};

const INDENT: isize = 2;
const WIDTH: usize = 80;

/// The old `to_yaml_string`.
pub(crate) fn to_yaml_string(value: &Value) -> String {
    let mut e = Emitter::new();
    e.node(value, Context::ROOT);
    // DOCUMENT-END: go-yaml writes an indent, i.e. the final line break.
    e.indent = -1;
    e.write_indent();
    e.out
}

#[derive(Clone, Copy)]
struct Context {
    mapping: bool,
    simple_key: bool,
}

impl Context {
    const ROOT: Context = Context { mapping: false, simple_key: false };
    const ITEM: Context = Context { mapping: false, simple_key: false };
    const VALUE: Context = Context { mapping: true, simple_key: false };
    const SIMPLE_KEY: Context = Context { mapping: true, simple_key: true };
}

struct Emitter {
    out: String,
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: isize,
    indents: Vec<isize>,
}

impl Emitter {
    fn new() -> Self {
        Emitter { out: String::new(), column: 0, whitespace: true, indention: true, indent: -1, indents: Vec::new() }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { INDENT } else { 0 };
        } else if !indentless {
            self.indent += INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(&mut self, s: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        for c in s.chars() {
            self.put(c);
        }
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
    }

    fn node(&mut self, value: &Value, ctx: Context) {
        match value {
            Value::Null => self.scalar("null", Style::Plain, ctx),
            Value::Bool(b) => self.scalar(if *b { "true" } else { "false" }, Style::Plain, ctx),
            Value::Number(n) => self.scalar(&number_text(n), Style::Plain, ctx),
            Value::String(s) => self.scalar(s, string_style(s), ctx),
            Value::Array(items) if items.is_empty() => self.empty_flow("[", "]"),
            Value::Object(map) if map.is_empty() => self.empty_flow("{", "}"),
            Value::Array(items) => {
                // A sequence that is a mapping value right after `key:` is not indented.
                let indentless = ctx.mapping && !self.indention;
                self.increase_indent(false, indentless);
                for item in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, Context::ITEM);
                }
                self.pop_indent();
            }
            Value::Object(map) => {
                self.increase_indent(false, false);
                let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
                sort_keys(&mut keys);
                for key in keys {
                    self.write_indent();
                    if is_simple_key(key) {
                        self.scalar(key, string_style(key), Context::SIMPLE_KEY);
                        self.write_indicator(":", false, false, false);
                    } else {
                        // go-yaml's check_simple_key: multi-line or longer than 128 bytes.
                        self.write_indicator("?", true, false, true);
                        self.scalar(key, string_style(key), Context::VALUE);
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    if let Some(v) = map.get(key) {
                        self.node(v, Context::VALUE);
                    }
                }
                self.pop_indent();
            }
        }
    }

    fn empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn scalar(&mut self, value: &str, requested: Style, ctx: Context) {
        let a = Analysis::of(value);
        let mut style = requested;
        if ctx.simple_key && a.multiline {
            style = Style::DoubleQuoted;
        }
        if style == Style::Plain && (!a.block_plain_allowed || (value.is_empty() && ctx.simple_key)) {
            style = Style::SingleQuoted;
        }
        if style == Style::SingleQuoted && !a.single_quoted_allowed {
            style = Style::DoubleQuoted;
        }
        if style == Style::Literal && (!a.block_allowed || ctx.simple_key) {
            style = Style::DoubleQuoted;
        }
        self.increase_indent(true, false);
        let breaks = !ctx.simple_key;
        match style {
            Style::Plain => self.write_plain(value, breaks),
            Style::SingleQuoted => self.write_single_quoted(value, breaks),
            Style::DoubleQuoted => self.write_double_quoted(value, breaks),
            Style::Literal => self.write_literal(value),
        }
        self.pop_indent();
    }
}

fn is_simple_key(key: &str) -> bool {
    !Analysis::of(key).multiline && key.len() <= 128
}

fn string_style(s: &str) -> Style {
    if s.contains('\n') {
        Style::Literal
    } else if plain_allowed_by_resolver(s) {
        Style::Plain
    } else {
        Style::DoubleQuoted
    }
}

fn number_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let json = format_json_float(n.as_f64().unwrap_or(0.0));
    match parse_scalar(&json) {
        Scalar::Int(i) => i.to_string(),
        Scalar::Uint(u) => u.to_string(),
        Scalar::Float(f) => format_g(f, false),
        _ => json,
    }
}
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

fn plain_allowed_by_resolver(s: &str) -> bool {
    parse_scalar(s).is_string() && !is_base60_float(s)
}

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

struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

impl Analysis {
    fn of(value: &str) -> Analysis {
        if value.is_empty() {
            return Analysis {
                multiline: false,
                block_plain_allowed: true,
                single_quoted_allowed: true,
                block_allowed: false,
            };
        }
        // One pass with a one-character look-ahead (no buffer: this runs for every scalar).
        let mut chars = value.chars().peekable();
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

impl Emitter {
    fn write_char(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.write_char(c);
            self.column = 0;
        }
    }

    fn write_plain(&mut self, value: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let chars: Vec<char> = value.chars().collect();
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(&' ');
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

    fn write_single_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let n = chars.len();
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks && !spaces && self.column > WIDTH && i > 0 && i + 1 < n && !next_space {
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

    fn write_double_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        // go-yaml's `is_bom(value, i)` looks at the start of the value whatever `i` is, so a
        // value starting with a BOM gets every character escaped.
        let bom = value.starts_with('\u{feff}');
        let chars: Vec<char> = value.chars().collect();
        let n = chars.len();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
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
                if allow_breaks && !spaces && self.column > WIDTH && i > 0 && i + 1 < n {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
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

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        // Block scalar hints: an indentation indicator when the text starts with a space or a
        // break, and the chomping indicator from how the text ends.
        let chars: Vec<char> = value.chars().collect();
        if chars.first().is_some_and(|&c| c == ' ' || is_break(c)) {
            let hint = char::from_digit(INDENT as u32, 10).unwrap_or('2');
            self.write_indicator(&hint.to_string(), false, false, false);
        }
        let chomp = match chars.as_slice() {
            [] => Some("-"),
            [.., last] if !is_break(*last) => Some("-"),
            [_] => Some("+"),
            [.., before, _] if is_break(*before) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for &c in &chars {
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
pub(crate) fn key_less(a: &str, b: &str) -> bool {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (al, bl) = (is_letter(ar[i]), is_letter(br[i]));
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        // A zero after a non-zero digit run is part of a bigger number, not a leading zero.
        if ar[i] == '0' || br[i] == '0' {
            for &c in ar[..i].iter().rev() {
                if !is_digit(c) {
                    break;
                }
                if c != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let (ai, an) = digit_run(&ar, i, an);
        let (bi, bn) = digit_run(&br, i, bn);
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

fn digit_run(r: &[char], mut i: usize, mut n: i64) -> (usize, i64) {
    while i < r.len() && is_digit(r[i]) {
        n = n.wrapping_mul(10).wrapping_add(i64::from(u32::from(r[i])) - i64::from(b'0'));
        i += 1;
    }
    (i, n)
}

fn is_letter(c: char) -> bool {
    if c.is_ascii() { c.is_ascii_alphabetic() } else { c.is_alphabetic() }
}

fn is_digit(c: char) -> bool {
    if c.is_ascii() { c.is_ascii_digit() } else { c.is_numeric() }
}

pub(crate) fn sort_keys(keys: &mut Vec<&str>) {
    if keys.len() < 2 {
        return;
    }
    let mut right = keys.split_off(keys.len() / 2);
    sort_keys(keys);
    sort_keys(&mut right);
    let left = std::mem::take(keys);
    keys.reserve(left.len() + right.len());
    let (mut l, mut r) = (left.into_iter().peekable(), right.into_iter().peekable());
    while let (Some(&x), Some(&y)) = (l.peek(), r.peek()) {
        if key_less(y, x) {
            keys.push(y);
            r.next();
        } else {
            keys.push(x);
            l.next();
        }
    }
    keys.extend(l);
    keys.extend(r);
}
