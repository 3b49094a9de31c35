//! Go's `fmt` formatting of template values: `%v` (what `{{ . }}` prints), `Sprint`,
//! `Sprintln` and `Sprintf` verbs.
//!
//! Owned by the executor work; the function library calls [`sprint_value`], [`sprint`] and
//! [`format_float`] and must not re-implement Go formatting.

mod float;

pub use float::{format_float, format_hex_float};

use crate::strconv::{can_backquote, is_print, quote, quote_rune};
use crate::value::Value;

/// `fmt.Sprint(v)` for one value: Go's `%v`.
pub fn sprint_value(v: &Value) -> String {
    let mut p = Printer::default();
    p.print_arg(v, 'v');
    p.buf
}

/// `fmt.Sprint(args...)`: operands formatted with `%v`, a space added between two operands
/// when neither is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut p = Printer::default();
    for (i, a) in args.iter().enumerate() {
        let is_string = matches!(a, Value::String(_));
        if i > 0 && !is_string && !matches!(args[i - 1], Value::String(_)) {
            p.buf.push(' ');
        }
        p.print_arg(a, 'v');
    }
    p.buf
}

/// `fmt.Sprintln(args...)`: always a space between operands, and a final newline.
pub fn sprintln(args: &[Value]) -> String {
    let mut p = Printer::default();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            p.buf.push(' ');
        }
        p.print_arg(a, 'v');
    }
    p.buf.push('\n');
    p.buf
}

/// `fmt.Sprintf(format, args...)` with Go's verbs, flags, width, precision, argument indexes
/// and its error forms (`%!d(string=x)`, `%!s(MISSING)`, `%!(EXTRA …)`, `%!(NOVERB)`).
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut p = Printer::default();
    p.do_printf(format, args);
    p.buf
}

#[derive(Clone, Copy, Default)]
struct Flags {
    plus: bool,
    minus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    plus_v: bool,
    sharp_v: bool,
    wid: Option<usize>,
    prec: Option<usize>,
}

#[derive(Default)]
struct Printer {
    buf: String,
    f: Flags,
    reordered: bool,
    good_arg_num: bool,
}

/// Nesting beyond which values are not printed (only cyclic data gets there).
const MAX_PRINT_DEPTH: usize = 1000;

const LDIGITS: &[u8; 16] = b"0123456789abcdef";
const UDIGITS: &[u8; 16] = b"0123456789ABCDEF";

/// Go's `parsenum`: a decimal number at `s[i..]`; huge numbers count as absent.
fn parse_num(s: &[u8], mut i: usize) -> (Option<usize>, usize) {
    let start = i;
    let mut n: usize = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        if n > 1_000_000 {
            return (None, s.len());
        }
        n = n * 10 + (s[i] - b'0') as usize;
        i += 1;
    }
    if i == start { (None, i) } else { (Some(n), i) }
}

/// `int` argument for `*` width/precision (any Go integer kind that fits).
fn int_from_arg(args: &[Value], n: usize) -> (Option<i64>, usize) {
    match args.get(n) {
        Some(Value::Int(i, _)) if i.abs() <= 1_000_000 => (Some(*i), n + 1),
        Some(_) => (None, n + 1),
        None => (None, n),
    }
}

impl Printer {
    fn write_padding(&mut self, n: usize) {
        let c = if self.f.zero && !self.f.minus { '0' } else { ' ' };
        self.buf.extend(std::iter::repeat_n(c, n));
    }

    /// Pads to the width (counted in runes), left or right.
    fn pad(&mut self, s: &str) {
        let Some(w) = self.f.wid.filter(|w| *w > 0) else {
            self.buf.push_str(s);
            return;
        };
        let n = w.saturating_sub(s.chars().count());
        if self.f.minus {
            self.buf.push_str(s);
            self.write_padding(n);
        } else {
            self.write_padding(n);
            self.buf.push_str(s);
        }
    }

    fn print_arg(&mut self, v: &Value, verb: char) {
        match v {
            Value::Invalid | Value::Nil => match verb {
                'T' | 'v' => self.pad("<nil>"),
                _ => self.bad_verb(v, verb),
            },
            _ if verb == 'T' => {
                let t = v.type_name();
                self.fmt_s(&t);
            }
            _ => self.print_value(v, verb, 0),
        }
    }

    fn bad_verb(&mut self, v: &Value, verb: char) {
        self.buf.push_str("%!");
        self.buf.push(verb);
        self.buf.push('(');
        match v {
            Value::Invalid | Value::Nil => self.buf.push_str("<nil>"),
            v => {
                self.buf.push_str(&v.type_name());
                self.buf.push('=');
                self.print_value(v, 'v', 0);
            }
        }
        self.buf.push(')');
    }

    fn print_value(&mut self, v: &Value, verb: char, depth: usize) {
        // A map that contains itself (`set $d "self" $d`) makes Go's fmt recurse until the
        // goroutine stack is exhausted; we stop instead of overflowing ours.
        if depth > MAX_PRINT_DEPTH {
            self.buf.push_str("<too deep>");
            return;
        }
        match v {
            Value::Invalid if depth == 0 => self.buf.push_str("<invalid reflect.Value>"),
            Value::Invalid | Value::Nil => {
                if self.f.sharp_v {
                    self.buf.push_str("interface {}(nil)");
                } else {
                    self.buf.push_str("<nil>");
                }
            }
            Value::Bool(b) => match verb {
                't' | 'v' => self.pad(if *b { "true" } else { "false" }),
                _ => self.bad_verb(v, verb),
            },
            Value::Int(i, k) => self.fmt_int(v, *i, k.is_unsigned(), verb),
            Value::Float(x) => match verb {
                'v' => self.fmt_float(*x, 'g', None),
                'b' | 'g' | 'G' | 'x' | 'X' => self.fmt_float(*x, verb, None),
                'f' | 'e' | 'E' | 'F' => self.fmt_float(*x, verb, Some(6)),
                _ => self.bad_verb(v, verb),
            },
            Value::Complex(re, im) => {
                let (verb, prec) = match verb {
                    'v' => ('g', None),
                    'b' | 'g' | 'G' | 'x' | 'X' => (verb, None),
                    'f' | 'e' | 'E' | 'F' => (verb, Some(6)),
                    _ => return self.bad_verb(v, verb),
                };
                let old_plus = self.f.plus;
                self.buf.push('(');
                self.fmt_float(*re, verb, prec);
                self.f.plus = true;
                self.fmt_float(*im, verb, prec);
                self.buf.push_str("i)");
                self.f.plus = old_plus;
            }
            Value::String(s) => self.fmt_string(v, s, verb),
            Value::List(l) => {
                if self.f.sharp_v {
                    self.buf.push_str(&v.type_name());
                    if l.nil {
                        self.buf.push_str("(nil)");
                        return;
                    }
                    self.buf.push('{');
                    for (i, item) in l.items.iter().enumerate() {
                        if i > 0 {
                            self.buf.push_str(", ");
                        }
                        self.print_value(item, verb, depth + 1);
                    }
                    self.buf.push('}');
                } else {
                    self.buf.push('[');
                    for (i, item) in l.items.iter().enumerate() {
                        if i > 0 {
                            self.buf.push(' ');
                        }
                        self.print_value(item, verb, depth + 1);
                    }
                    self.buf.push(']');
                }
            }
            Value::Map(m) => {
                if self.f.sharp_v {
                    self.buf.push_str(&v.type_name());
                    if m.nil {
                        self.buf.push_str("(nil)");
                        return;
                    }
                    self.buf.push('{');
                } else {
                    self.buf.push_str("map[");
                }
                // Printing never mutates a map, so holding the borrow is safe.
                let entries = m.entries.borrow();
                for (i, (k, item)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.buf.push_str(if self.f.sharp_v { ", " } else { " " });
                    }
                    if matches!(verb, 'v' | 's') && !self.f.sharp_v && self.f.wid.is_none() && self.f.prec.is_none() {
                        self.buf.push_str(k);
                    } else {
                        self.fmt_string(&Value::str(k), k, verb);
                    }
                    self.buf.push(':');
                    self.print_value(item, verb, depth + 1);
                }
                self.buf.push(if self.f.sharp_v { '}' } else { ']' });
            }
            Value::Object(o) => {
                if self.f.sharp_v {
                    let s = o.go_syntax();
                    self.buf.push_str(&s);
                } else if matches!(verb, 'v' | 's' | 'x' | 'X' | 'q') {
                    // Stringer types print through String() for the string verbs.
                    let s = o.display();
                    self.fmt_string(&Value::str(&s), &s, verb);
                } else {
                    let s = o.display();
                    self.pad(&s);
                }
            }
        }
    }

    fn fmt_string(&mut self, v: &Value, s: &str, verb: char) {
        match verb {
            'v' if self.f.sharp_v => self.fmt_q(s),
            'v' | 's' => self.fmt_s(s),
            'x' => self.fmt_sx(s, LDIGITS),
            'X' => self.fmt_sx(s, UDIGITS),
            'q' => self.fmt_q(s),
            _ => self.bad_verb(v, verb),
        }
    }

    fn truncate<'a>(&self, s: &'a str) -> &'a str {
        match self.f.prec {
            Some(p) => match s.char_indices().nth(p) {
                Some((i, _)) => &s[..i],
                None => s,
            },
            None => s,
        }
    }

    fn fmt_s(&mut self, s: &str) {
        let s = self.truncate(s);
        self.pad(s);
    }

    fn fmt_q(&mut self, s: &str) {
        let s = self.truncate(s);
        if self.f.sharp && can_backquote(s) {
            self.pad(&format!("`{s}`"));
        } else {
            let q = quote(s, self.f.plus);
            self.pad(&q);
        }
    }

    fn fmt_sx(&mut self, s: &str, digits: &[u8; 16]) {
        let b = s.as_bytes();
        let len = self.f.prec.map_or(b.len(), |p| p.min(b.len()));
        let mut width = 2 * len;
        if width == 0 {
            if let Some(w) = self.f.wid {
                self.write_padding(w);
            }
            return;
        }
        if self.f.space {
            if self.f.sharp {
                width *= 2;
            }
            width += len - 1;
        } else if self.f.sharp {
            width += 2;
        }
        let w = self.f.wid.unwrap_or(0);
        if w > width && !self.f.minus {
            self.write_padding(w - width);
        }
        let x = if digits[10] == b'a' { 'x' } else { 'X' };
        if self.f.sharp {
            self.buf.push('0');
            self.buf.push(x);
        }
        for (i, c) in b[..len].iter().enumerate() {
            if self.f.space && i > 0 {
                self.buf.push(' ');
                if self.f.sharp {
                    self.buf.push('0');
                    self.buf.push(x);
                }
            }
            self.buf.push(digits[(c >> 4) as usize] as char);
            self.buf.push(digits[(c & 15) as usize] as char);
        }
        if w > width && self.f.minus {
            self.write_padding(w - width);
        }
    }

    fn fmt_int(&mut self, v: &Value, i: i64, unsigned: bool, verb: char) {
        let digits = LDIGITS;
        match verb {
            'v' if self.f.sharp_v && unsigned => {
                let old = self.f.sharp;
                self.f.sharp = true;
                self.fmt_integer(i, 16, unsigned, 'v', digits);
                self.f.sharp = old;
            }
            'v' | 'd' => self.fmt_integer(i, 10, unsigned, verb, digits),
            'b' => self.fmt_integer(i, 2, unsigned, verb, digits),
            'o' | 'O' => self.fmt_integer(i, 8, unsigned, verb, digits),
            'x' => self.fmt_integer(i, 16, unsigned, verb, digits),
            'X' => self.fmt_integer(i, 16, unsigned, verb, UDIGITS),
            'c' => {
                let c = rune_of(i, unsigned);
                self.pad(c.encode_utf8(&mut [0; 4]));
            }
            'q' => {
                let q = quote_rune(rune_of(i, unsigned), self.f.plus);
                self.pad(&q);
            }
            'U' => self.fmt_unicode(i as u64),
            _ => self.bad_verb(v, verb),
        }
    }

    /// Go's `fmt.fmtInteger`.
    fn fmt_integer(&mut self, i: i64, base: u64, unsigned: bool, verb: char, digits: &[u8; 16]) {
        let negative = !unsigned && i < 0;
        let mut u = if negative { (i as i128).unsigned_abs() as u64 } else { i as u64 };
        let mut prec = 0usize;
        if let Some(p) = self.f.prec {
            prec = p;
            if p == 0 && u == 0 {
                let old = self.f.zero;
                self.f.zero = false;
                let w = self.f.wid.unwrap_or(0);
                self.write_padding(w);
                self.f.zero = old;
                return;
            }
        } else if self.f.zero && !self.f.minus && self.f.wid.is_some() {
            prec = self.f.wid.unwrap_or(0);
            if negative || self.f.plus || self.f.space {
                prec = prec.saturating_sub(1);
            }
        }
        let mut rev: Vec<u8> = Vec::with_capacity(24);
        loop {
            rev.push(digits[(u % base) as usize]);
            u /= base;
            if u == 0 {
                break;
            }
        }
        while rev.len() < prec {
            rev.push(b'0');
        }
        if self.f.sharp {
            match base {
                2 => rev.extend_from_slice(b"b0"),
                8 if rev.last() != Some(&b'0') => rev.push(b'0'),
                16 => {
                    rev.push(digits[15] + (b'x' - b'f'));
                    rev.push(b'0');
                }
                _ => {}
            }
        }
        if verb == 'O' {
            rev.extend_from_slice(b"o0");
        }
        if negative {
            rev.push(b'-');
        } else if self.f.plus {
            rev.push(b'+');
        } else if self.f.space {
            rev.push(b' ');
        }
        rev.reverse();
        let s = String::from_utf8(rev).unwrap_or_default();
        let old = self.f.zero;
        self.f.zero = false;
        self.pad(&s);
        self.f.zero = old;
    }

    fn fmt_unicode(&mut self, u: u64) {
        let prec = self.f.prec.filter(|p| *p > 4).unwrap_or(4);
        let mut s = format!("U+{:0prec$X}", u, prec = prec);
        if self.f.sharp
            && let Some(c) = u32::try_from(u).ok().and_then(char::from_u32)
            && is_print(c)
        {
            s.push_str(&format!(" '{c}'"));
        }
        let old = self.f.zero;
        self.f.zero = false;
        self.pad(&s);
        self.f.zero = old;
    }

    /// Go's `fmt.fmtFloat`.
    fn fmt_float(&mut self, v: f64, verb: char, default_prec: Option<usize>) {
        let prec = self.f.prec.or(default_prec).map_or(-1, |p| p as i32);
        let body = match verb {
            'x' | 'X' => format_hex_float(v, prec, verb == 'X'),
            'F' => format_float(v, 'f', prec),
            'b' => format_float(v, 'g', prec),
            _ => format_float(v, verb, prec),
        };
        let mut num: Vec<char> = Vec::with_capacity(body.len() + 1);
        if !body.starts_with(['-', '+']) {
            num.push('+');
        }
        num.extend(body.chars());
        if self.f.space && num[0] == '+' && !self.f.plus {
            num[0] = ' ';
        }
        if num[1] == 'I' || num[1] == 'N' {
            let old = self.f.zero;
            self.f.zero = false;
            if num[1] == 'N' && !self.f.space && !self.f.plus {
                num.remove(0);
            }
            let s: String = num.into_iter().collect();
            self.pad(&s);
            self.f.zero = old;
            return;
        }
        if self.f.sharp && verb != 'b' {
            let mut digits: i32 = match verb {
                'v' | 'g' | 'G' | 'x' => {
                    if prec == -1 {
                        6
                    } else {
                        prec
                    }
                }
                _ => 0,
            };
            let mut tail: Vec<char> = Vec::new();
            let mut has_point = false;
            let mut saw_nonzero = false;
            let mut i = 1;
            while i < num.len() {
                match num[i] {
                    '.' => has_point = true,
                    'p' | 'P' => {
                        tail = num.split_off(i);
                        break;
                    }
                    'e' | 'E' if verb != 'x' && verb != 'X' => {
                        tail = num.split_off(i);
                        break;
                    }
                    c => {
                        if c != '0' {
                            saw_nonzero = true;
                        }
                        if saw_nonzero {
                            digits -= 1;
                        }
                    }
                }
                i += 1;
            }
            if !has_point {
                if num.len() == 2 && num[1] == '0' {
                    digits -= 1;
                }
                num.push('.');
            }
            while digits > 0 {
                num.push('0');
                digits -= 1;
            }
            num.extend(tail);
        }
        if self.f.plus || num[0] != '+' {
            let w = self.f.wid.unwrap_or(0);
            if self.f.zero && !self.f.minus && w > num.len() {
                self.buf.push(num[0]);
                self.write_padding(w - num.len());
                self.buf.extend(&num[1..]);
                return;
            }
            let s: String = num.into_iter().collect();
            self.pad(&s);
            return;
        }
        let s: String = num[1..].iter().collect();
        self.pad(&s);
    }

    /// Go's `argNumber`: an explicit `[n]` argument index.
    fn arg_number(&mut self, arg_num: usize, format: &[u8], i: usize, num_args: usize) -> (usize, usize, bool) {
        if i >= format.len() || format[i] != b'[' {
            return (arg_num, i, false);
        }
        self.reordered = true;
        // Find the closing bracket.
        let rest = &format[i..];
        if rest.len() < 3 {
            self.good_arg_num = false;
            return (arg_num, i + 1, false);
        }
        for j in 1..rest.len() {
            if rest[j] == b']' {
                let (n, newi) = parse_num(&rest[..j], 1);
                match n {
                    Some(n) if newi == j && n >= 1 && n - 1 < num_args => return (n - 1, i + j + 1, true),
                    Some(_) if newi == j => {
                        self.good_arg_num = false;
                        return (arg_num, i + j + 1, true);
                    }
                    _ => {
                        self.good_arg_num = false;
                        return (arg_num, i + j + 1, false);
                    }
                }
            }
        }
        self.good_arg_num = false;
        (arg_num, i + 1, false)
    }

    fn do_printf(&mut self, format: &str, a: &[Value]) {
        let fb = format.as_bytes();
        let end = fb.len();
        let mut arg_num = 0usize;
        let mut after_index;
        self.reordered = false;
        let mut i = 0;
        while i < end {
            self.good_arg_num = true;
            let lasti = i;
            while i < end && fb[i] != b'%' {
                i += 1;
            }
            if i > lasti {
                self.buf.push_str(&format[lasti..i]);
            }
            if i >= end {
                break;
            }
            i += 1;
            self.f = Flags::default();
            while i < end {
                match fb[i] {
                    b'#' => self.f.sharp = true,
                    b'0' => self.f.zero = !self.f.minus,
                    b'+' => self.f.plus = true,
                    b'-' => {
                        self.f.minus = true;
                        self.f.zero = false;
                    }
                    b' ' => self.f.space = true,
                    _ => break,
                }
                i += 1;
            }
            let (n, ni, found) = self.arg_number(arg_num, fb, i, a.len());
            (arg_num, i, after_index) = (n, ni, found);
            if i < end && fb[i] == b'*' {
                i += 1;
                let (w, n) = int_from_arg(a, arg_num);
                arg_num = n;
                match w {
                    Some(w) => {
                        self.f.wid = Some(w.unsigned_abs() as usize);
                        if w < 0 {
                            self.f.minus = true;
                            self.f.zero = false;
                        }
                    }
                    None => self.buf.push_str("%!(BADWIDTH)"),
                }
                after_index = false;
            } else {
                let (w, ni) = parse_num(fb, i);
                self.f.wid = w;
                i = ni;
                if after_index && w.is_some() {
                    self.good_arg_num = false;
                }
            }
            if i + 1 < end && fb[i] == b'.' {
                i += 1;
                if after_index {
                    self.good_arg_num = false;
                }
                let (n, ni, found) = self.arg_number(arg_num, fb, i, a.len());
                (arg_num, i, after_index) = (n, ni, found);
                if i < end && fb[i] == b'*' {
                    i += 1;
                    let (p, n) = int_from_arg(a, arg_num);
                    arg_num = n;
                    match p {
                        Some(p) if p >= 0 => self.f.prec = Some(p as usize),
                        Some(_) => self.f.prec = None,
                        None => self.buf.push_str("%!(BADPREC)"),
                    }
                    after_index = false;
                } else {
                    let (p, ni) = parse_num(fb, i);
                    self.f.prec = Some(p.unwrap_or(0));
                    i = ni;
                }
            }
            if !after_index {
                let (n, ni, _) = self.arg_number(arg_num, fb, i, a.len());
                (arg_num, i) = (n, ni);
            }
            if i >= end {
                self.buf.push_str("%!(NOVERB)");
                break;
            }
            let verb = format[i..].chars().next().unwrap_or('?');
            i += verb.len_utf8();
            match verb {
                '%' => self.buf.push('%'),
                _ if !self.good_arg_num => {
                    self.buf.push_str(&format!("%!{verb}(BADINDEX)"));
                }
                _ if arg_num >= a.len() => {
                    self.buf.push_str(&format!("%!{verb}(MISSING)"));
                }
                _ => {
                    if verb == 'v' {
                        self.f.sharp_v = self.f.sharp;
                        self.f.sharp = false;
                        self.f.plus_v = self.f.plus;
                        self.f.plus = false;
                    }
                    self.print_arg(&a[arg_num], verb);
                    arg_num += 1;
                }
            }
        }
        if !self.reordered && arg_num < a.len() {
            self.f = Flags::default();
            self.buf.push_str("%!(EXTRA ");
            for (i, arg) in a[arg_num..].iter().enumerate() {
                if i > 0 {
                    self.buf.push_str(", ");
                }
                match arg {
                    Value::Invalid | Value::Nil => self.buf.push_str("<nil>"),
                    arg => {
                        self.buf.push_str(&arg.type_name());
                        self.buf.push('=');
                        self.print_arg(arg, 'v');
                    }
                }
            }
            self.buf.push(')');
        }
    }
}

fn rune_of(i: i64, unsigned: bool) -> char {
    // A negative int reinterpreted as unsigned is out of range either way.
    let _ = unsigned;
    let u = i as u64;
    if u > 0x10FFFF { '\u{FFFD}' } else { char::from_u32(u as u32).unwrap_or('\u{FFFD}') }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprint_spacing() {
        let args = [Value::int(1), Value::int(2), Value::str("a"), Value::int(3)];
        assert_eq!(sprint(&args), "1 2a3");
    }

    #[test]
    fn sprintf_verbs_and_errors() {
        let cases: &[(&str, Vec<Value>, &str)] = &[
            ("%5.2f|%-5d|%05d", vec![Value::Float(1.23456), Value::int(42), Value::int(-42)], " 1.23|42   |-0042"),
            (
                "%x %X %#x %o %b",
                vec![Value::int(255), Value::int(255), Value::int(255), Value::int(8), Value::int(5)],
                "ff FF 0xff 10 101",
            ),
            ("%q %v %T", vec![Value::str("a\"b"), Value::Nil, Value::int64(1)], "\"a\\\"b\" <nil> int64"),
            ("%d %s", vec![Value::str("x")], "%!d(string=x) %!s(MISSING)"),
            ("%s", vec![Value::str("a"), Value::int(1)], "a%!(EXTRA int=1)"),
            ("%[2]d %[1]d", vec![Value::int(1), Value::int(2)], "2 1"),
            ("%", vec![], "%!(NOVERB)"),
            ("%c%U", vec![Value::int(0x263a), Value::int(0x263a)], "☺U+263A"),
        ];
        for (f, args, want) in cases {
            assert_eq!(sprintf(f, args), *want, "{f}");
        }
    }
}
