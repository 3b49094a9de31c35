//! The parts of Go's `strconv` the engine needs: literal parsing with Go's syntax (base
//! prefixes, `_` separators, hex floats, escapes) for the parser, and `Quote`/`QuoteRune` for
//! `%q`. Kept apart from `fmt` and `parse` because both use it.

/// `strconv.Unquote` for `"…"`, `` `…` `` and `'…'` literals. Bytes from `\x` and octal
/// escapes that do not form UTF-8 become U+FFFD (a Rust `String` cannot hold them).
pub fn unquote(s: &str) -> Result<String, String> {
    let bad = || "invalid syntax".to_string();
    let quote = s.chars().next().ok_or_else(bad)?;
    if s.len() < 2 || !s.ends_with(quote) {
        return Err(bad());
    }
    let body = &s[1..s.len() - 1];
    match quote {
        '`' => {
            if body.contains('`') {
                return Err(bad());
            }
            Ok(body.replace('\r', ""))
        }
        '"' | '\'' => {
            let mut bytes: Vec<u8> = Vec::new();
            let mut rest = body;
            let mut count = 0;
            while !rest.is_empty() {
                if rest.starts_with(quote) && quote == '\'' {
                    return Err(bad());
                }
                let (piece, tail) = unquote_char(rest, quote)?;
                match piece {
                    Piece::Char(c) => {
                        let mut b = [0u8; 4];
                        bytes.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
                    }
                    Piece::Byte(b) => bytes.push(b),
                }
                count += 1;
                rest = tail;
            }
            if quote == '\'' && count != 1 {
                return Err(bad());
            }
            Ok(String::from_utf8_lossy(&bytes).into_owned())
        }
        _ => Err(bad()),
    }
}

/// One decoded unit of a quoted literal.
pub enum Piece {
    Char(char),
    Byte(u8),
}

/// `strconv.UnquoteChar`: decodes the first character or escape of `s`, quoted by `quote`.
pub fn unquote_char(s: &str, quote: char) -> Result<(Piece, &str), String> {
    let bad = || "invalid syntax".to_string();
    let mut it = s.chars();
    let c = it.next().ok_or_else(bad)?;
    if c == quote && (quote == '\'' || quote == '"') {
        return Err(bad());
    }
    if c != '\\' {
        if c == '\n' {
            return Err(bad());
        }
        return Ok((Piece::Char(c), it.as_str()));
    }
    let e = it.next().ok_or_else(bad)?;
    let rest = it.as_str();
    let simple = match e {
        'a' => Some('\u{7}'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\u{b}'),
        '\\' => Some('\\'),
        '\'' | '"' => {
            if e != quote {
                return Err(bad());
            }
            Some(e)
        }
        _ => None,
    };
    if let Some(c) = simple {
        return Ok((Piece::Char(c), rest));
    }
    let hex = |n: usize| -> Result<(u32, &str), String> {
        if rest.len() < n || !rest.is_char_boundary(n) {
            return Err(bad());
        }
        let v = u32::from_str_radix(&rest[..n], 16).map_err(|_| bad())?;
        if !rest[..n].bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        Ok((v, &rest[n..]))
    };
    match e {
        'x' => {
            let (v, tail) = hex(2)?;
            Ok((Piece::Byte(v as u8), tail))
        }
        'u' | 'U' => {
            let (v, tail) = hex(if e == 'u' { 4 } else { 8 })?;
            let c = char::from_u32(v).ok_or_else(bad)?;
            Ok((Piece::Char(c), tail))
        }
        '0'..='7' => {
            if rest.len() < 2 || !rest.is_char_boundary(2) {
                return Err(bad());
            }
            let digits = format!("{e}{}", &rest[..2]);
            if !digits.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
                return Err(bad());
            }
            let v = u32::from_str_radix(&digits, 8).map_err(|_| bad())?;
            if v > 255 {
                return Err(bad());
            }
            Ok((Piece::Byte(v as u8), &rest[2..]))
        }
        _ => Err(bad()),
    }
}

/// Go's `underscoreOK`: `_` only between digits, or after a base prefix.
fn underscore_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if !b.is_empty() && (b[0] == b'+' || b[0] == b'-') {
        i = 1;
    }
    // 'saw' is '^' at the start, '0' after a prefix or digit, '_' after an underscore, '!' else.
    let mut saw = b'^';
    let mut hex = false;
    if b.len() - i >= 2 && b[i] == b'0' && matches!(b[i + 1] | 0x20, b'x' | b'o' | b'b') {
        hex = b[i + 1] | 0x20 == b'x';
        i += 2;
        saw = b'0';
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
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
        i += 1;
    }
    saw != b'_'
}

/// `strconv.ParseUint(s, 0, 64)`.
pub fn parse_uint(s: &str) -> Option<u64> {
    if s.is_empty() || s.starts_with(['+', '-']) {
        return None;
    }
    let (base, digits) = split_base(s);
    if s.contains('_') && !underscore_ok(s) {
        return None;
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() {
        return None;
    }
    u64::from_str_radix(&clean, base).ok()
}

fn split_base(s: &str) -> (u32, &str) {
    let b = s.as_bytes();
    if b.len() >= 2 && b[0] == b'0' {
        match b[1] | 0x20 {
            b'x' => return (16, &s[2..]),
            b'o' => return (8, &s[2..]),
            b'b' => return (2, &s[2..]),
            _ => return (8, &s[1..]),
        }
    }
    (10, s)
}

/// `strconv.ParseInt(s, 0, 64)`.
pub fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let u = parse_uint(body)?;
    if neg {
        if u > 1u64 << 63 {
            return None;
        }
        Some((u as i64).wrapping_neg())
    } else {
        i64::try_from(u).ok()
    }
}

/// `strconv.ParseFloat(s, 64)` with Go's literal syntax (hex mantissa with `p` exponent,
/// `_` separators). Out-of-range values fail, as Go reports `ErrRange`.
pub fn parse_float(s: &str) -> Option<f64> {
    if s.contains('_') && !underscore_ok(s) {
        return None;
    }
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    let (neg, body) = match clean.as_bytes().first() {
        Some(b'-') => (true, &clean[1..]),
        Some(b'+') => (false, &clean[1..]),
        _ => (false, clean.as_str()),
    };
    let v = if body.len() > 2 && body.as_bytes()[0] == b'0' && body.as_bytes()[1] | 0x20 == b'x' {
        parse_hex_float(&body[2..])?
    } else {
        if body.is_empty() || !body.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    if v.is_infinite() {
        return None;
    }
    Some(if neg { -v } else { v })
}

fn parse_hex_float(s: &str) -> Option<f64> {
    // Go requires the `p` exponent on a hexadecimal mantissa.
    let i = s.find(['p', 'P'])?;
    let (mant, exp) = (&s[..i], s[i + 1..].parse::<i32>().ok()?);
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    Some(v * 2f64.powi(exp))
}

/// Go's `strconv.IsPrint` approximation: graphic characters and the ASCII space.
pub fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    // Unassigned/format/private-use ranges Go treats as non-printable.
    !matches!(u, 0xAD | 0x600..=0x605 | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F
        | 0xFEFF | 0xFFF9..=0xFFFB | 0xE000..=0xF8FF | 0xFFFE | 0xFFFF | 0xF0000..)
}

fn push_escaped(out: &mut String, c: char, quote: char, ascii_only: bool) {
    match c {
        c if c == quote || c == '\\' => {
            out.push('\\');
            out.push(c);
        }
        c if (ascii_only && c.is_ascii() && is_print(c)) || (!ascii_only && is_print(c)) => out.push(c),
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
        c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push_str(&format!("\\U{:08x}", c as u32)),
    }
}

/// `strconv.Quote` (or `QuoteToASCII` when `ascii_only`).
pub fn quote(s: &str, ascii_only: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_escaped(&mut out, c, '"', ascii_only);
    }
    out.push('"');
    out
}

/// `strconv.QuoteRune` (or `QuoteRuneToASCII`).
pub fn quote_rune(c: char, ascii_only: bool) -> String {
    let mut out = String::from("'");
    push_escaped(&mut out, c, '\'', ascii_only);
    out.push('\'');
    out
}

/// `strconv.CanBackquote`.
pub fn can_backquote(s: &str) -> bool {
    s.chars().all(|c| c != '`' && c != '\u{FEFF}' && (c == '\t' || !c.is_control()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_number_syntax() {
        assert_eq!(parse_int("0x1F"), Some(31));
        assert_eq!(parse_int("0o17"), Some(15));
        assert_eq!(parse_int("017"), Some(15));
        assert_eq!(parse_int("1_000"), Some(1000));
        assert_eq!(parse_int("-0b101"), Some(-5));
        assert_eq!(parse_int("1__0"), None);
        assert_eq!(parse_int("08"), None);
        assert_eq!(parse_uint("-1"), None);
        assert_eq!(parse_float("0x1p-2"), Some(0.25));
        assert_eq!(parse_float("1e3"), Some(1000.0));
        assert_eq!(parse_float("1e400"), None);
    }

    #[test]
    fn quoting() {
        assert_eq!(unquote(r#""a\tb\u00e9\x41""#).unwrap(), "a\tbéA");
        assert_eq!(unquote("'\\n'").unwrap(), "\n");
        assert!(unquote(r#""\q""#).is_err());
        assert_eq!(quote("a\"b\n", false), r#""a\"b\n""#);
        assert_eq!(quote("é", true), r#""\u00e9""#);
        assert_eq!(quote_rune('A', false), "'A'");
    }
}
