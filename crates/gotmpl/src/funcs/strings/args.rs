//! Argument access and the Go conversions the sprig-a functions share: Sprig's `strval` and
//! `strslice`, Go's `strconv.Quote`, and byte-level string slicing.
//!
//! The executor has already checked every argument against the declared [`Param`]s, so these
//! accessors only fall back to a zero value for robustness; they never panic.
//!
//! [`Param`]: crate::funcs::Param

use crate::fmt::sprint_value;
use crate::value::Value;

/// The string argument at `i` (`""` if absent: the executor guarantees it is there).
pub(in crate::funcs) fn str_arg(args: &[Value], i: usize) -> &str {
    args.get(i).and_then(Value::as_str).unwrap_or("")
}

/// The string argument at `i` as the bytes Go holds (invalid UTF-8 kept, see [`crate::GoStr`]).
pub(in crate::funcs) fn bytes_arg(args: &[Value], i: usize) -> &[u8] {
    match args.get(i) {
        Some(Value::String(s)) => s.as_bytes(),
        _ => &[],
    }
}

/// The integer argument at `i` (any Go integer kind).
pub(in crate::funcs) fn int_arg(args: &[Value], i: usize) -> i64 {
    match args.get(i) {
        Some(Value::Int(n, _)) => *n,
        _ => 0,
    }
}

/// Sprig's `strval`: strings as they are, values with `String()`/`Error()` through them (our
/// objects' `%v` form already honours those), everything else `fmt.Sprintf("%v")`.
pub(in crate::funcs) fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Object(o) => o.display(),
        other => sprint_value(other),
    }
}

/// Sprig's `strslice`: a `[]string` as it is; any other slice element-wise through `strval`,
/// skipping nil interfaces; nil gives an empty slice; any other value a one-element slice.
pub(in crate::funcs) fn strslice(v: &Value) -> Vec<String> {
    match v {
        Value::List(l) => l.items.iter().filter(|i| !matches!(i, Value::Nil | Value::Invalid)).map(strval).collect(),
        Value::Nil | Value::Invalid => Vec::new(),
        other => vec![strval(other)],
    }
}

/// A Go string made of arbitrary bytes. Go strings may hold invalid UTF-8 (after byte slicing
/// or base64 decoding); ours cannot, so each invalid sequence becomes U+FFFD, which is also
/// what Go's `encoding/json` would show for it.
pub(in crate::funcs) fn from_bytes(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Go's `strconv.Quote` (what `%q` prints for a string).
pub(in crate::funcs) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_go_print(c) => out.push(c),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// An approximation of Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols
/// and the ASCII space. Rust has no general-category tables, so format characters, separators
/// other than U+0020, private-use and noncharacters are excluded by range.
pub(in crate::funcs) fn is_go_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    !matches!(u,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E
        | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB | 0xE000..=0xF8FF | 0xFFFE | 0xFFFF
        | 0xF0000..=0x10FFFF | 0xE0001 | 0xE0020..=0xE007F)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_like_strconv() {
        assert_eq!(go_quote("tab\tnl\nuni:é bell:\u{7}"), r#""tab\tnl\nuni:é bell:\a""#);
        assert_eq!(go_quote("say \"hi\"\\"), r#""say \"hi\"\\""#);
        assert_eq!(go_quote("\u{1}\u{7f}\u{a0}\u{feff}"), r#""\x01\x7f\u00a0\ufeff""#);
    }
}
