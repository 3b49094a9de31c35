//! Conversions shared by the function library: spf13/cast's `ToInt64`/`ToInt`/`ToFloat64` (as
//! Sprig v3.3.0 uses them through cast v1.7), Sprig's `strval`, and the pieces of Go's `strconv`
//! they rest on (`ParseInt` with base prefixes and underscores, `ParseFloat`).
//!
//! cast never fails from a template's point of view: every unconvertible value becomes 0. That is
//! why `add "abc" 1` is 1 and `int "08"` is 0 (base-0 `ParseInt` reads a leading 0 as octal).
//! This module knows Go's conversion rules only; it does not register any function.

use crate::fmt::sprint_value;
use crate::value::{IntKind, Value};

/// spf13/cast `ToInt64`: integers and floats convert (floats truncate), strings go through
/// `strconv.ParseInt(trimZeroDecimal(s), 0, 0)`, booleans are 1/0, nil and anything else 0.
pub fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i, _) => *i,
        Value::Float(f) => float_to_int64(*f),
        Value::String(s) => parse_go_int(trim_zero_decimal(s), 0).unwrap_or(0),
        Value::Bool(b) => i64::from(*b),
        Value::Object(o) => o.int_value().unwrap_or(0),
        _ => 0,
    }
}

/// spf13/cast `ToInt`: the same rules as [`to_int64`]; Go's `int` is 64 bits wide here.
pub fn to_int(v: &Value) -> i64 {
    to_int64(v)
}

/// spf13/cast `ToFloat64`: numbers convert, strings go through `strconv.ParseFloat` (so `"NaN"`
/// and `"-inf"` are accepted, `"1e400"` is an error and gives 0), booleans are 1/0.
pub fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Int(i, k) => {
            if k.is_unsigned() {
                (*i as u64) as f64
            } else {
                *i as f64
            }
        }
        Value::Float(f) => *f,
        Value::String(s) => parse_go_float(s).unwrap_or(0.0),
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Object(o) => o.int_value().map_or(0.0, |n| n as f64),
        _ => 0.0,
    }
}

/// Sprig's `strval`: strings as they are, `Stringer`/`error` values through their method,
/// everything else with `%v`.
pub fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Object(o) => o.display(),
        other => sprint_value(other),
    }
}

/// Go's `int64(f)` on amd64: truncation toward zero; NaN and out-of-range values give the
/// "integer indefinite" value `math.MinInt64` (CVTTSD2SI), which is what Go programs observe.
pub fn float_to_int64(f: f64) -> i64 {
    // 2^63 as f64; every finite float strictly inside (-2^63, 2^63) converts exactly.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() || !(-LIMIT..LIMIT).contains(&f) { i64::MIN } else { f.trunc() as i64 }
}

/// spf13/cast's `trimZeroDecimal`: `"12.00"` → `"12"`, `"12.01"` unchanged, `"12."` unchanged.
pub fn trim_zero_decimal(s: &str) -> &str {
    let b = s.as_bytes();
    let mut found_zero = false;
    for i in (0..b.len()).rev() {
        match b[i] {
            b'.' => {
                if found_zero {
                    return &s[..i];
                }
            }
            b'0' => found_zero = true,
            _ => return s,
        }
    }
    s
}

/// Go's `strconv.ParseInt(s, base, 64)`. Base 0 reads the `0x`/`0o`/`0b`/`0` prefixes and allows
/// `_` between digits as Go literals do. `None` on syntax or range errors.
pub fn parse_go_int(s: &str, base: u32) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let un = parse_go_uint(body, base)?;
    if neg {
        if un > 1u64 << 63 {
            return None;
        }
        Some((un as i64).wrapping_neg())
    } else {
        i64::try_from(un).ok()
    }
}

/// Go's `strconv.ParseUint(s, base, 64)`; see [`parse_go_int`].
pub fn parse_go_uint(s0: &str, base: u32) -> Option<u64> {
    if s0.is_empty() {
        return None;
    }
    let b0 = s0.as_bytes();
    let base0 = base == 0;
    let (base, digits) = if base0 {
        if b0[0] == b'0' {
            match b0.get(1).map(u8::to_ascii_lowercase) {
                Some(b'b') if b0.len() >= 3 => (2, &b0[2..]),
                Some(b'o') if b0.len() >= 3 => (8, &b0[2..]),
                Some(b'x') if b0.len() >= 3 => (16, &b0[2..]),
                _ => (8, &b0[1..]),
            }
        } else {
            (10, b0)
        }
    } else {
        if !(2..=36).contains(&base) {
            return None;
        }
        (base, b0)
    };
    let mut n: u64 = 0;
    let mut underscores = false;
    for &c in digits {
        let d = match c {
            b'_' if base0 => {
                underscores = true;
                continue;
            }
            b'0'..=b'9' => u32::from(c - b'0'),
            b'a'..=b'z' => u32::from(c - b'a') + 10,
            b'A'..=b'Z' => u32::from(c - b'A') + 10,
            _ => return None,
        };
        if d >= base {
            return None;
        }
        n = n.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    if underscores && !underscore_ok(s0) {
        return None;
    }
    Some(n)
}

/// Go's `strconv.underscoreOK`: underscores only between digits (or after a base prefix).
fn underscore_ok(s: &str) -> bool {
    let mut b = s.as_bytes();
    if let Some(b'+' | b'-') = b.first() {
        b = &b[1..];
    }
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = b[1].eq_ignore_ascii_case(&b'x');
    }
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c.is_ascii_digit() || hex && c.is_ascii_hexdigit() {
            saw = b'0';
            continue;
        }
        if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
            continue;
        }
        if saw == b'_' {
            return false;
        }
        saw = b'!';
    }
    saw != b'_'
}

/// Go's `strconv.ParseFloat(s, 64)` for decimal input: `inf`/`infinity`/`nan` in any case,
/// digits with `_` separators, an optional exponent. Overflow is an error (`None`), as in Go.
/// Hexadecimal floats (`0x1p4`) are not supported and read as errors.
pub fn parse_go_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let (sign, rest, signed) = match b.first()? {
        b'+' => (1.0, &s[1..], true),
        b'-' => (-1.0, &s[1..], true),
        _ => (1.0, s, false),
    };
    let lower = rest.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(sign * f64::INFINITY);
    }
    // Go accepts "nan" only without a sign.
    if lower == "nan" {
        return if signed { None } else { Some(f64::NAN) };
    }
    // Only the characters of Go's decimal float syntax; Rust's parser would accept "inf" forms
    // and such that we handled above, and nothing beyond them.
    if !rest.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-' | b'_')) {
        return None;
    }
    if !rest.bytes().next().is_some_and(|c| c.is_ascii_digit() || c == b'.') {
        return None;
    }
    let cleaned;
    let text = if rest.contains('_') {
        // underscoreOK works on the mantissa/exponent text as a whole in Go.
        if !underscore_ok(rest) {
            return None;
        }
        cleaned = rest.replace('_', "");
        cleaned.as_str()
    } else {
        rest
    };
    let f: f64 = text.parse().ok()?;
    if f.is_infinite() {
        return None;
    }
    Some(sign * f)
}

/// The `int` kinds a Go type switch `case int, int32, int64` would accept, as `i64`.
pub(crate) fn int_of_kinds(v: &Value, kinds: &[IntKind]) -> Option<i64> {
    match v {
        Value::Int(i, k) if kinds.contains(k) => Some(*i),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_to_int64_follows_parseint_base0() {
        for (s, want) in [
            ("0x10", 16),
            ("010", 8),
            (" 5", 0),
            ("1_000", 1000),
            ("1e3", 0),
            ("3.9", 0),
            ("3.0", 3),
            ("0o17", 15),
            ("0b11", 3),
            ("08", 0),
            ("-12", -12),
            ("_1", 0),
            ("1__0", 0),
            ("9223372036854775808", 0),
            ("-9223372036854775808", i64::MIN),
        ] {
            assert_eq!(to_int64(&Value::str(s)), want, "{s}");
        }
    }

    #[test]
    fn float_conversion_matches_amd64() {
        assert_eq!(float_to_int64(2.9), 2);
        assert_eq!(float_to_int64(-2.5), -2);
        assert_eq!(float_to_int64(f64::NAN), i64::MIN);
        assert_eq!(float_to_int64(1e300), i64::MIN);
    }

    #[test]
    fn parse_float_go_rules() {
        assert_eq!(parse_go_float("1e3"), Some(1000.0));
        assert!(parse_go_float("NaN").unwrap().is_nan());
        assert_eq!(parse_go_float("-inf"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_go_float("+Infinity"), Some(f64::INFINITY));
        assert_eq!(parse_go_float("1e400"), None);
        assert_eq!(parse_go_float("x"), None);
        assert_eq!(parse_go_float("+nan"), None);
        assert_eq!(parse_go_float(" 1"), None);
        assert_eq!(parse_go_float("1_000.5"), Some(1000.5));
    }
}
