//! Plain-scalar resolution exactly as go-yaml v2 (`resolve.go`) does it.
//!
//! Kubernetes reads manifests with `sigs.k8s.io/yaml`, which sits on go-yaml v2: a YAML 1.1
//! flavoured resolver (`yes`/`on`/`y` booleans, `0755` octal, `1_000`, timestamps kept as text).
//! This module owns that table and nothing else; it knows nothing about nodes or spans, so the
//! template engine can reuse it for `fromYaml` and the writer for its quoting decisions.

use std::borrow::Cow;

/// What a plain scalar means to go-yaml v2.
///
/// Variants mirror the Go values `resolve` hands back; callers decide how to fold them into
/// their own model (the tree turns [`Scalar::Uint`] into a float because JSON decoding in
/// Kubernetes does, and [`Scalar::Timestamp`] into a string because go-yaml v2 keeps
/// timestamps as strings when decoding into `interface{}`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// `~`, `null`, `Null`, `NULL` or the empty scalar.
    Null,
    /// One of the YAML 1.1 boolean spellings.
    Bool(bool),
    /// An integer that fits `int64`.
    Int(i64),
    /// An integer above `int64` that still fits `uint64` (go-yaml returns `uint64`).
    Uint(u64),
    /// A float, including `.inf`, `-.Inf`, `.nan` and integers beyond 64 bits.
    Float(f64),
    /// Text that parses as a go-yaml timestamp (`2024-01-01`, RFC 3339); decoded as a string.
    Timestamp,
    /// Anything else: a string.
    String,
}

impl Scalar {
    /// True when the value would be read back as a string (the writer may leave it plain).
    #[must_use]
    pub fn is_string(self) -> bool {
        matches!(self, Scalar::String)
    }
}

/// Resolves an untagged plain scalar the way go-yaml v2 `resolve("", raw)` does.
///
/// ```
/// use driftlint_yaml::{parse_scalar, Scalar};
/// assert_eq!(parse_scalar("on"), Scalar::Bool(true));
/// assert_eq!(parse_scalar("0755"), Scalar::Int(493));
/// assert_eq!(parse_scalar("1e3"), Scalar::Float(1000.0));
/// assert_eq!(parse_scalar("2024-01-01"), Scalar::Timestamp);
/// ```
#[must_use]
pub fn parse_scalar(raw: &str) -> Scalar {
    // go-yaml looks at the first byte to pick a strategy ("hint"); anything that does not start
    // with a sign, a digit, a dot or one of `yYnNtTfFoO~` is a string without further ado.
    // (That includes `<<`: its `resolveMap` entry is unreachable, and merge keys are
    // recognised by their text, not by resolution.)
    let Some(&first) = raw.as_bytes().first() else {
        return Scalar::Null;
    };
    let hint = match first {
        b'+' | b'-' => Hint::Sign,
        b'0'..=b'9' => Hint::Digit,
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => Hint::Map,
        b'.' => Hint::Dot,
        _ => return Scalar::String,
    };
    if let Some(s) = lookup(raw) {
        return s;
    }
    match hint {
        Hint::Map => Scalar::String,
        // Not in the table, so maybe `.5`: Go's ParseFloat on the raw text (no `_` removal).
        Hint::Dot => match parse_dot_float(raw) {
            Some(f) => Scalar::Float(f),
            None => Scalar::String,
        },
        Hint::Sign | Hint::Digit => resolve_number(raw),
    }
}

enum Hint {
    Sign,
    Digit,
    Map,
    Dot,
}

/// The fixed spellings of go-yaml v2's `resolveMap`.
fn lookup(raw: &str) -> Option<Scalar> {
    Some(match raw {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Scalar::Bool(true),
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Scalar::Bool(false),
        "~" | "null" | "Null" | "NULL" => Scalar::Null,
        ".nan" | ".NaN" | ".NAN" => Scalar::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Scalar::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Scalar::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// The sign/digit branch of `resolve`: timestamp, then `ParseInt(plain, 0, 64)`, then
/// `ParseUint`, then the YAML float regex, where `plain` has every `_` removed.
fn resolve_number(raw: &str) -> Scalar {
    if is_timestamp(raw) {
        return Scalar::Timestamp;
    }
    let plain: Cow<str> = if raw.contains('_') { raw.replace('_', "").into() } else { raw.into() };
    if let Some(i) = go_parse_int(&plain) {
        return Scalar::Int(i);
    }
    if let Some(u) = go_parse_uint(&plain) {
        return Scalar::Uint(u);
    }
    if let Some(f) = is_yaml_float(&plain).then(|| parse_finite(&plain)).flatten() {
        return Scalar::Float(f);
    }
    // go-yaml's extra `0b`/`-0b` branches are already covered by ParseInt's base prefixes.
    Scalar::String
}

/// Go's `strconv.ParseUint(s, 0, 64)`: base from the prefix (`0x`, `0o`, `0b`, leading `0` =
/// octal), no sign, no underscores (the caller removed them).
pub(crate) fn go_parse_uint(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() {
        return None;
    }
    let (radix, digits) = if b[0] == b'0' {
        match b.get(1).map(u8::to_ascii_lowercase) {
            Some(b'b') if b.len() >= 3 => (2, &s[2..]),
            Some(b'o') if b.len() >= 3 => (8, &s[2..]),
            Some(b'x') if b.len() >= 3 => (16, &s[2..]),
            // "0" alone: ParseUint accepts an empty digit run after the octal prefix.
            _ => (8, &s[1..]),
        }
    } else {
        (10, s)
    };
    let mut n: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix)?;
        n = n.checked_mul(u64::from(radix))?.checked_add(u64::from(d))?;
    }
    Some(n)
}

/// Go's `strconv.ParseInt(s, 0, 64)`: an optional sign, then [`go_parse_uint`], range-checked.
pub(crate) fn go_parse_int(s: &str) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let un = go_parse_uint(rest)?;
    if neg { if un <= 1u64 << 63 { Some((un as i64).wrapping_neg()) } else { None } } else { i64::try_from(un).ok() }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`, go-yaml's `yamlStyleFloat`.
pub(crate) fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Parses decimal float text already validated by a grammar; Go's ParseFloat reports an
/// overflow to infinity as an error, and go-yaml then keeps the text as a string.
fn parse_finite(s: &str) -> Option<f64> {
    let f: f64 = s.parse().ok()?;
    f.is_finite().then_some(f)
}

/// Go's `strconv.ParseFloat` for text starting with `.` (go-yaml's `.` hint): a decimal
/// fraction with an optional exponent; underscores allowed only between digits.
fn parse_dot_float(raw: &str) -> Option<f64> {
    if raw.contains('_') && !underscores_ok(raw) {
        return None;
    }
    let plain: String = raw.chars().filter(|&c| c != '_').collect();
    let b = plain.as_bytes();
    // After the dot: at least one digit, then an optional exponent.
    let mut i = 1;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == 1 {
        return None;
    }
    if i < b.len() {
        if !matches!(b[i], b'e' | b'E') {
            return None;
        }
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start || i != b.len() {
            return None;
        }
    }
    parse_finite(&plain)
}

/// Go's `underscoreOK` for base-10 text: every `_` sits between two digits.
fn underscores_ok(s: &str) -> bool {
    let mut saw = b'^';
    for &c in s.as_bytes() {
        if c.is_ascii_digit() {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
    }
    saw != b'_'
}

/// go-yaml's `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
///
/// Such text reads back as a string in go-yaml v2, but the encoder still quotes it (`"12:30"`)
/// for YAML 1.1 parsers that would see a sexagesimal number.
#[must_use]
pub fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        // `[0-5]?[0-9]`: one or two digits, a two-digit group starting with 0-5.
        match (b.get(i), b.get(i + 1)) {
            (Some(d1), Some(d2)) if (b'0'..=b'5').contains(d1) && d2.is_ascii_digit() => i += 2,
            (Some(d1), _) if d1.is_ascii_digit() => i += 1,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// go-yaml v2 `parseTimestamp`: `YYYY-` quick check, then Go's `time.Parse` with the layouts
/// `2006-1-2T15:4:5.999999999Z07:00`, the same with a lower-case `t`,
/// `2006-1-2 15:4:5.999999999` and `2006-1-2`.
#[must_use]
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let Some((year, month, day, rest)) = parse_date(b) else {
        return false;
    };
    if !(1..=12).contains(&month) || day < 1 || day > days_in(month, year) {
        return false;
    }
    if rest.is_empty() {
        return true; // layout "2006-1-2"
    }
    // Layouts with a time: separator `T`, `t`, or (layout 3) one or more spaces.
    match rest[0] {
        b'T' | b't' => parse_clock(&rest[1..], true),
        b' ' => {
            let trimmed = trim_spaces(rest);
            parse_clock(trimmed, false)
        }
        _ => false,
    }
}

fn trim_spaces(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|&&c| c == b' ').count();
    &b[n..]
}

/// `2006-1-2`: four-digit year, one- or two-digit month and day.
fn parse_date(b: &[u8]) -> Option<(u32, u32, u32, &[u8])> {
    let year = b[..4].iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    let (month, rest) = getnum(&b[5..])?;
    let rest = rest.strip_prefix(b"-")?;
    let (day, rest) = getnum(rest)?;
    Some((year, month, day, rest))
}

/// Go's `getnum(s, false)`: one digit, or two if the second is a digit too.
fn getnum(b: &[u8]) -> Option<(u32, &[u8])> {
    let d0 = *b.first().filter(|c| c.is_ascii_digit())?;
    match b.get(1) {
        Some(d1) if d1.is_ascii_digit() => Some((u32::from(d0 - b'0') * 10 + u32::from(d1 - b'0'), &b[2..])),
        _ => Some((u32::from(d0 - b'0'), &b[1..])),
    }
}

/// `15:4:5.999999999` followed by `Z07:00` when `zone` is set.
fn parse_clock(b: &[u8], zone: bool) -> bool {
    let parse = || -> Option<&[u8]> {
        let (h, r) = getnum(b)?;
        let r = r.strip_prefix(b":")?;
        let (m, r) = getnum(r)?;
        let r = r.strip_prefix(b":")?;
        let (s, mut r) = getnum(r)?;
        if h >= 24 || m >= 60 || s >= 60 {
            return None;
        }
        // Optional fraction: `.` or `,` followed by at least one digit, then any digits.
        if r.len() >= 2 && matches!(r[0], b'.' | b',') && r[1].is_ascii_digit() {
            let n = 1 + r[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            r = &r[n..];
        }
        if zone {
            r = parse_zone(r)?;
        }
        Some(r)
    };
    parse().is_some_and(<[u8]>::is_empty)
}

/// `Z07:00`: `Z`, or `±hh:mm` with range checks `hh <= 24`, `mm <= 60` as Go applies them.
fn parse_zone(b: &[u8]) -> Option<&[u8]> {
    if let Some(r) = b.strip_prefix(b"Z") {
        return Some(r);
    }
    if b.len() < 6 || b[3] != b':' || !matches!(b[0], b'+' | b'-') {
        return None;
    }
    let two = |x: &[u8]| -> Option<u32> {
        (x[0].is_ascii_digit() && x[1].is_ascii_digit()).then(|| u32::from(x[0] - b'0') * 10 + u32::from(x[1] - b'0'))
    };
    let (hh, mm) = (two(&b[1..3])?, two(&b[4..6])?);
    (hh <= 24 && mm <= 60).then_some(&b[6..])
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The text a `!!binary` scalar stands for, as go-yaml v2 and then `encoding/json` make it:
/// the value is decoded as standard padded base64 (`base64.StdEncoding`, which skips line
/// breaks and allows non-zero trailing bits), and the bytes become a Go string, which JSON
/// encoding turns into UTF-8 by replacing every byte that starts no valid character with
/// U+FFFD. `None` when the text is not base64 (go-yaml: "!!binary value contains invalid
/// base64 data").
pub(crate) fn decode_binary(raw: &str) -> Option<String> {
    use base64::Engine;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const GO_STD: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
    );
    let text: String = raw.chars().filter(|c| *c != '\n' && *c != '\r').collect();
    let bytes = GO_STD.decode(text).ok()?;
    Some(go_utf8_lossy(&bytes))
}

/// Bytes as `encoding/json` writes a Go string: valid UTF-8 kept, each other byte U+FFFD
/// (Go replaces byte by byte, where Rust's `from_utf8_lossy` replaces whole invalid sequences).
fn go_utf8_lossy(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                let bad = e.error_len().unwrap_or(rest.len());
                out.extend(std::iter::repeat_n('\u{fffd}', bad));
                bytes = &rest[bad..];
            }
        }
    }
}

/// The outcome of resolving a scalar carrying an explicit core-schema tag.
pub(crate) enum Tagged {
    Value(Scalar),
    /// The text cannot be read as the tag's type (go-yaml: "cannot decode !!str `x` as a !!int").
    Mismatch {
        found: &'static str,
    },
}

/// go-yaml's `resolve(tag, in)` for the core tags it handles (`!!str`, `!!int`, `!!bool`,
/// `!!float`, `!!null`, `!!timestamp`, `!!binary`). `short` is the tag in `!!x` form.
pub(crate) fn resolve_tagged(short: &str, raw: &str) -> Tagged {
    match short {
        "!!str" | "!!binary" => return Tagged::Value(Scalar::String),
        "!!timestamp" if is_timestamp(raw) => return Tagged::Value(Scalar::Timestamp),
        _ => {}
    }
    let found = parse_scalar(raw);
    let ok = match (short, found) {
        ("!!int", Scalar::Int(_) | Scalar::Uint(_))
        | ("!!bool", Scalar::Bool(_))
        | ("!!null", Scalar::Null)
        | ("!!float", Scalar::Float(_)) => true,
        // An explicit `!!float` on an integer gives a float (resolve's deferred fix-up).
        ("!!float", Scalar::Int(i)) => return Tagged::Value(Scalar::Float(i as f64)),
        ("!!float", Scalar::Uint(u)) => return Tagged::Value(Scalar::Float(u as f64)),
        _ => false,
    };
    if ok {
        Tagged::Value(found)
    } else {
        Tagged::Mismatch {
            found: match found {
                Scalar::Null => "!!null",
                Scalar::Bool(_) => "!!bool",
                Scalar::Int(_) | Scalar::Uint(_) => "!!int",
                Scalar::Float(_) => "!!float",
                Scalar::Timestamp => "!!timestamp",
                Scalar::String => "!!str",
            },
        }
    }
}
