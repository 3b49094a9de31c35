//! Argument access and the Go conversions the function families share: Sprig's `strval` and
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
    crate::strconv::quote(s, false)
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
