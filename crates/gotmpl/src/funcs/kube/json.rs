//! Go's `encoding/json` for template values: `json.Marshal`, `json.MarshalIndent`, an encoder
//! without HTML escaping (Sprig's `toRawJson`), and `json.Unmarshal` into `interface{}`.
//!
//! Templates print these strings, so every byte matters: map keys sorted, `<>&` escaped as
//! `\u003c` unless raw, U+2028/U+2029 always escaped, floats in Go's `'f'`/`'e'` choice with
//! the exponent cleanup (`1e-7`, not `1e-07`), nil maps and slices as `null`. The decoder
//! reproduces Go's scanner error texts (`invalid character 'b' looking for beginning of object
//! key string`, `unexpected end of JSON input`) because kube-compare's `fromJson` puts them into
//! the map it returns. It knows nothing about templates or YAML.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::fmt::format_float;
use crate::value::{Map, Value};

/// Go's scanner limit (`maxNestingDepth`); deeper input is a syntax error there too.
const MAX_DECODE_DEPTH: usize = 10_000;

/// Beyond this nesting the encoders (JSON, YAML, TOML) give up instead of risking the stack.
/// Go has no limit (its stacks grow), but only a template building a list in a loop gets here.
pub(crate) const MAX_ENCODE_DEPTH: usize = 1_000;

/// How to lay out the encoding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Style {
    /// `json.Marshal` escapes `<`, `>`, `&`; `Encoder.SetEscapeHTML(false)` does not.
    pub escape_html: bool,
    /// `MarshalIndent(v, "", "  ")`.
    pub pretty: bool,
}

impl Style {
    pub(crate) const MARSHAL: Style = Style { escape_html: true, pretty: false };
    pub(crate) const RAW: Style = Style { escape_html: false, pretty: false };
    pub(crate) const PRETTY: Style = Style { escape_html: true, pretty: true };
}

/// `json.Marshal` with the given style. The error is Go's message
/// (`json: unsupported value: NaN`).
pub(crate) fn marshal(v: &Value, style: Style) -> Result<String, String> {
    let mut e = Encoder { out: String::new(), style, maps: Vec::new() };
    e.value(v, 0)?;
    Ok(e.out)
}

struct Encoder {
    out: String,
    style: Style,
    /// Maps being encoded, to report a cycle (made with `set`) the way Go does instead of
    /// recursing forever.
    maps: Vec<*const ()>,
}

impl Encoder {
    fn value(&mut self, v: &Value, depth: usize) -> Result<(), String> {
        if depth > MAX_ENCODE_DEPTH {
            return Err("json: unsupported value: nesting too deep".into());
        }
        match v {
            Value::Invalid | Value::Nil => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i, k) => {
                // Unsigned kinds hold their bits in an i64; nothing in templates reaches 2^63.
                if k.is_unsigned() && *i < 0 {
                    self.out.push_str(&(*i as u64).to_string());
                } else {
                    self.out.push_str(&i.to_string());
                }
            }
            Value::Float(f) => self.out.push_str(&float(*f)?),
            Value::Complex(..) => return Err("json: unsupported type: complex128".into()),
            Value::String(s) => quote_into(&mut self.out, s, self.style.escape_html),
            Value::List(l) => {
                if l.nil {
                    self.out.push_str("null");
                } else {
                    self.seq(&l.items, depth)?;
                }
            }
            Value::Map(m) => self.map(m, v, depth)?,
            Value::Object(o) => {
                let obj = object_json(o.as_ref())?;
                self.value(&obj, depth)?;
            }
        }
        Ok(())
    }

    fn seq(&mut self, items: &[Value], depth: usize) -> Result<(), String> {
        if items.is_empty() {
            self.out.push_str("[]");
            return Ok(());
        }
        self.out.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.newline(depth + 1);
            self.value(item, depth + 1)?;
        }
        self.newline(depth);
        self.out.push(']');
        Ok(())
    }

    fn map(&mut self, m: &Map, whole: &Value, depth: usize) -> Result<(), String> {
        if m.nil {
            self.out.push_str("null");
            return Ok(());
        }
        let id = Rc::as_ptr(&m.entries).cast::<()>();
        if self.maps.contains(&id) {
            return Err(format!("json: unsupported value: encountered a cycle via {}", whole.type_name()));
        }
        let entries = m.entries.borrow();
        if entries.is_empty() {
            self.out.push_str("{}");
            return Ok(());
        }
        self.maps.push(id);
        self.out.push('{');
        // BTreeMap order is byte order, which is Go's sort of map keys.
        for (i, (k, item)) in entries.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.newline(depth + 1);
            quote_into(&mut self.out, k, self.style.escape_html);
            self.out.push(':');
            if self.style.pretty {
                self.out.push(' ');
            }
            self.value(item, depth + 1)?;
        }
        self.maps.pop();
        self.newline(depth);
        self.out.push('}');
        Ok(())
    }

    fn newline(&mut self, depth: usize) {
        if self.style.pretty {
            self.out.push('\n');
            for _ in 0..depth {
                self.out.push_str("  ");
            }
        }
    }
}

/// What `json.Marshal` sees of a named type: `*semver.Version` and `time.Time` have
/// `MarshalJSON` methods giving a string, Sprig's certificate is a plain struct with exported
/// `Cert` and `Key` fields.
pub(crate) fn object_json(o: &dyn crate::value::Object) -> Result<Value, String> {
    let name = o.type_name();
    if o.is_nil() {
        return Ok(Value::Nil);
    }
    match name {
        "*semver.Version" => Ok(Value::str(o.display())),
        "time.Time" => match o.call_method("Format", &[Value::str(RFC3339_NANO)]) {
            Some(Ok(Value::String(s))) => {
                // Time.MarshalJSON refuses years outside [0,9999].
                let year_ok =
                    s.len() > 4 && s.as_bytes()[..4].iter().all(u8::is_ascii_digit) && s.as_bytes()[4] == b'-';
                if year_ok {
                    Ok(Value::String(s))
                } else {
                    Err("json: error calling MarshalJSON for type time.Time: Time.MarshalJSON: year outside of range [0,9999]".into())
                }
            }
            _ => Err(format!("json: unsupported type: {name}")),
        },
        _ => {
            let (Some(cert), Some(key)) = (o.field("Cert"), o.field("Key")) else {
                return Err(format!("json: unsupported type: {name}"));
            };
            // A struct: fields in declaration order, which for {Cert, Key} is also sorted.
            let mut m = BTreeMap::new();
            m.insert("Cert".to_string(), cert);
            m.insert("Key".to_string(), key);
            Ok(Value::map(m))
        }
    }
}

/// Go's `time.RFC3339Nano` layout (what `Time.MarshalJSON` uses).
pub(crate) const RFC3339_NANO: &str = "2006-01-02T15:04:05.999999999Z07:00";

/// encoding/json's float format: `'f'` unless the exponent is below -6 or at least 21, then
/// `'e'` with a one-digit negative exponent written without the leading zero (`1e-7`).
pub(crate) fn float(f: f64) -> Result<String, String> {
    if f.is_nan() || f.is_infinite() {
        return Err(format!("json: unsupported value: {}", format_float(f, 'g', -1)));
    }
    let a = f.abs();
    if a != 0.0 && !(1e-6..1e21).contains(&a) {
        let mut s = format_float(f, 'e', -1);
        let n = s.len();
        if n >= 4 && &s[n - 4..n - 1] == "e-0" {
            s.remove(n - 2);
        }
        Ok(s)
    } else {
        Ok(shortest_fixed(f))
    }
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`: the shortest round-trip digits (Rust's `{:e}` picks
/// the same ones) laid out without an exponent. Also used by the TOML encoder.
pub(crate) fn shortest_fixed(f: f64) -> String {
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // |f| = 0.d1d2… × 10^point
    let point = exp.parse::<i32>().unwrap_or(0) + 1;
    let mut s = String::new();
    if f.is_sign_negative() {
        s.push('-');
    }
    if digits == "0" {
        s.push('0');
    } else if point <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
        s.push_str(&digits);
    } else if point as usize >= digits.len() {
        s.push_str(&digits);
        s.extend(std::iter::repeat_n('0', point as usize - digits.len()));
    } else {
        s.push_str(&digits[..point as usize]);
        s.push('.');
        s.push_str(&digits[point as usize..]);
    }
    s
}

/// Appends `s` as a JSON string the way encoding/json's `appendString` does.
pub fn quote_into(out: &mut String, s: &str, escape_html: bool) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' if escape_html => {
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 0xf] as char);
            }
            c if (c as u32) < 0x20 => {
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 0xf] as char);
            }
            // JSONP safety: Go escapes the line and paragraph separators in every mode.
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out.push('"');
}

// ---------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------

/// `json.Unmarshal` into an `interface{}`: objects become `map[string]interface {}`, arrays
/// `[]interface {}`, every number `float64`, `null` the nil interface ([`Value::Nil`]).
///
/// `Err` is a syntax error (Go checks the whole input before decoding anything, so nothing is
/// decoded then). `Ok((value, Some(msg)))` is a value decoded despite a later-reported error:
/// Go keeps decoding after a number that overflows `float64` (leaving nil) and returns the
/// first such error at the end.
pub(crate) fn unmarshal(input: &str) -> Result<(Value, Option<String>), String> {
    Decoder { s: input.as_bytes(), i: 0, saved: None }.run()
}

/// The top-level JSON kind as Go names it in `UnmarshalTypeError`.
pub(crate) fn kind_word(v: &Value) -> &'static str {
    match v {
        Value::Map(_) => "object",
        Value::List(_) => "array",
        Value::String(_) => "string",
        Value::Float(_) | Value::Int(..) => "number",
        Value::Bool(_) => "bool",
        _ => "null",
    }
}

enum Frame {
    Array(Vec<Value>),
    Object(BTreeMap<String, Value>, String),
}

struct Decoder<'a> {
    s: &'a [u8],
    i: usize,
    saved: Option<String>,
}

const EOF: &str = "unexpected end of JSON input";

fn invalid(c: u8, context: &str) -> String {
    format!("invalid character {} {context}", quote_char(c))
}

/// Go's `quoteChar`: the byte as a rune (so a UTF-8 lead byte 0xC3 shows as `'Ã'`), quoted by
/// `strconv.Quote` rules, inside single quotes.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".into(),
        b'"' => "'\"'".into(),
        0x07 => "'\\a'".into(),
        0x08 => "'\\b'".into(),
        0x0c => "'\\f'".into(),
        b'\n' => "'\\n'".into(),
        b'\r' => "'\\r'".into(),
        b'\t' => "'\\t'".into(),
        0x0b => "'\\v'".into(),
        b'\\' => "'\\\\'".into(),
        c if c < 0x20 || c == 0x7f => format!("'\\x{c:02x}'"),
        c if (0x80..0xa0).contains(&c) || c == 0xa0 || c == 0xad => format!("'\\u{c:04x}'"),
        c => format!("'{}'", char::from(c)),
    }
}

impl Decoder<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    /// The next non-space byte, or the end-of-input error.
    fn next_token(&mut self) -> Result<u8, String> {
        self.skip_ws();
        self.peek().ok_or_else(|| EOF.to_string())
    }

    fn run(mut self) -> Result<(Value, Option<String>), String> {
        let mut stack: Vec<Frame> = Vec::new();
        loop {
            // Expecting a value.
            let c = self.next_token()?;
            let mut v = match c {
                b'{' | b'[' => {
                    if stack.len() >= MAX_DECODE_DEPTH {
                        return Err("exceeded max depth".into());
                    }
                    self.i += 1;
                    let d = self.next_token()?;
                    if c == b'[' {
                        if d == b']' {
                            self.i += 1;
                            Value::list(Vec::new())
                        } else {
                            stack.push(Frame::Array(Vec::new()));
                            continue;
                        }
                    } else if d == b'}' {
                        self.i += 1;
                        Value::map(BTreeMap::new())
                    } else {
                        let key = self.key()?;
                        stack.push(Frame::Object(BTreeMap::new(), key));
                        continue;
                    }
                }
                b'"' => Value::str(self.string()?),
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal("true", Value::Bool(true))?,
                b'f' => self.literal("false", Value::Bool(false))?,
                b'n' => self.literal("null", Value::Nil)?,
                c => return Err(invalid(c, "looking for beginning of value")),
            };
            // Attach the finished value to its container, closing containers as they end.
            loop {
                match stack.last_mut() {
                    None => {
                        self.skip_ws();
                        if let Some(c) = self.peek() {
                            return Err(invalid(c, "after top-level value"));
                        }
                        return Ok((v, self.saved));
                    }
                    Some(Frame::Array(items)) => {
                        items.push(v);
                        match self.next_token()? {
                            b',' => {
                                self.i += 1;
                                break;
                            }
                            b']' => {
                                self.i += 1;
                                v = match stack.pop() {
                                    Some(Frame::Array(items)) => Value::list(items),
                                    _ => Value::Nil,
                                };
                            }
                            c => return Err(invalid(c, "after array element")),
                        }
                    }
                    Some(Frame::Object(map, key)) => {
                        // Duplicate keys: the last one wins, as Go's map assignment does.
                        map.insert(std::mem::take(key), v);
                        match self.next_token()? {
                            b',' => {
                                self.i += 1;
                                self.next_token()?;
                                *key = self.key()?;
                                break;
                            }
                            b'}' => {
                                self.i += 1;
                                v = match stack.pop() {
                                    Some(Frame::Object(map, _)) => Value::map(map),
                                    _ => Value::Nil,
                                };
                            }
                            c => return Err(invalid(c, "after object key:value pair")),
                        }
                    }
                }
            }
        }
    }

    /// An object key and its colon; the cursor is on the first non-space byte.
    fn key(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(b'"') => {}
            Some(c) => return Err(invalid(c, "looking for beginning of object key string")),
            None => return Err(EOF.into()),
        }
        let k = self.string()?;
        match self.next_token()? {
            b':' => {
                self.i += 1;
                Ok(k)
            }
            c => Err(invalid(c, "after object key")),
        }
    }

    fn literal(&mut self, word: &'static str, v: Value) -> Result<Value, String> {
        for (n, want) in word.bytes().enumerate().skip(1) {
            match self.s.get(self.i + n) {
                None => return Err(EOF.into()),
                Some(&c) if c != want => {
                    return Err(invalid(c, &format!("in literal {word} (expecting {})", quote_char(want))));
                }
                Some(_) => {}
            }
        }
        self.i += word.len();
        Ok(v)
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
            match self.peek() {
                None => return Err(EOF.into()),
                Some(b'0'..=b'9') => {}
                Some(c) => return Err(invalid(c, "in numeric literal")),
            }
        }
        if self.peek() == Some(b'0') {
            self.i += 1;
        } else {
            self.digits();
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            match self.peek() {
                None => return Err(EOF.into()),
                Some(b'0'..=b'9') => self.digits(),
                Some(c) => return Err(invalid(c, "after decimal point in numeric literal")),
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            match self.peek() {
                None => return Err(EOF.into()),
                Some(b'0'..=b'9') => self.digits(),
                Some(c) => return Err(invalid(c, "in exponent of numeric literal")),
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("0");
        // Both Go's ParseFloat and Rust's parse round correctly; Go reports overflow, leaves
        // nil in place and carries on.
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Value::Float(f)),
            _ => {
                if self.saved.is_none() {
                    self.saved = Some(format!("json: cannot unmarshal number {text} into Go value of type float64"));
                }
                Ok(Value::Nil)
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut r = 0u32;
        for _ in 0..4 {
            let c = self.peek().ok_or_else(|| EOF.to_string())?;
            let d = (c as char).to_digit(16).ok_or_else(|| invalid(c, "in \\u hexadecimal character escape"))?;
            r = r * 16 + d;
            self.i += 1;
        }
        Ok(r)
    }

    /// A string literal; the cursor is on the opening quote.
    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let c = self.peek().ok_or_else(|| EOF.to_string())?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = self.peek().ok_or_else(|| EOF.to_string())?;
                    self.i += 1;
                    let simple = match e {
                        b'"' => Some(b'"'),
                        b'\\' => Some(b'\\'),
                        b'/' => Some(b'/'),
                        b'b' => Some(8),
                        b'f' => Some(12),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        b'u' => None,
                        e => return Err(invalid(e, "in string escape code")),
                    };
                    if let Some(b) = simple {
                        out.push(b);
                        continue;
                    }
                    let r = self.hex4()?;
                    let ch = if (0xd800..0xdc00).contains(&r) && self.s.get(self.i..self.i + 2) == Some(b"\\u") {
                        // A high surrogate joins a following low one; Go's unquote consumes the
                        // second escape only when the pair is valid.
                        let save = self.i;
                        self.i += 2;
                        match self.hex4() {
                            Ok(lo) if (0xdc00..0xe000).contains(&lo) => {
                                char::from_u32(0x10000 + ((r - 0xd800) << 10) + (lo - 0xdc00))
                            }
                            Ok(_) => {
                                self.i = save;
                                None
                            }
                            Err(e) => return Err(e),
                        }
                    } else {
                        char::from_u32(r)
                    };
                    let ch = ch.unwrap_or('\u{fffd}');
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c if c < 0x20 => return Err(invalid(c, "in string literal")),
                c => out.push(c),
            }
        }
        // The input is UTF-8 and escapes produce valid characters, so this cannot fail.
        Ok(String::from_utf8(out).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(v: &Value) -> String {
        marshal(v, Style::MARSHAL).unwrap()
    }

    #[test]
    fn floats_follow_encoding_json() {
        assert_eq!(float(3.0).unwrap(), "3");
        assert_eq!(float(1e21).unwrap(), "1e+21");
        assert_eq!(float(1e20).unwrap(), "100000000000000000000");
        assert_eq!(float(0.000001).unwrap(), "0.000001");
        assert_eq!(float(1e-7).unwrap(), "1e-7");
        assert_eq!(float(1.5e-10).unwrap(), "1.5e-10");
        assert_eq!(float(-0.0).unwrap(), "-0");
        assert_eq!(float(123.456).unwrap(), "123.456");
        assert_eq!(float(-0.5).unwrap(), "-0.5");
        assert_eq!(float(1.2345678901e10).unwrap(), "12345678901");
        assert_eq!(float(f64::NAN).unwrap_err(), "json: unsupported value: NaN");
        assert_eq!(float(f64::NEG_INFINITY).unwrap_err(), "json: unsupported value: -Inf");
    }

    #[test]
    fn strings_escape_like_go() {
        assert_eq!(enc(&Value::str("<a>&\u{2028}\u{1}\u{8}")), r#""\u003ca\u003e\u0026\u2028\u0001\b""#);
        assert_eq!(marshal(&Value::str("<a>"), Style::RAW).unwrap(), r#""<a>""#);
    }

    #[test]
    fn decode_errors_match_go() {
        assert_eq!(unmarshal("").unwrap_err(), "unexpected end of JSON input");
        assert_eq!(
            unmarshal("{bad json}").unwrap_err(),
            "invalid character 'b' looking for beginning of object key string"
        );
        assert_eq!(unmarshal("{\"a\":1} x").unwrap_err(), "invalid character 'x' after top-level value");
        assert_eq!(unmarshal("[1 2]").unwrap_err(), "invalid character '2' after array element");
        assert_eq!(unmarshal("{\"a\" 1}").unwrap_err(), "invalid character '1' after object key");
        assert_eq!(unmarshal("{\"a\":1 \"b\"}").unwrap_err(), "invalid character '\"' after object key:value pair");
        assert_eq!(unmarshal("tru").unwrap_err(), "unexpected end of JSON input");
        assert_eq!(unmarshal("trux").unwrap_err(), "invalid character 'x' in literal true (expecting 'e')");
        assert_eq!(unmarshal("é").unwrap_err(), "invalid character 'Ã' looking for beginning of value");
        assert_eq!(unmarshal("\"a\nb\"").unwrap_err(), "invalid character '\\n' in string literal");
        assert_eq!(unmarshal("1.x").unwrap_err(), "invalid character 'x' after decimal point in numeric literal");
        assert_eq!(unmarshal("01").unwrap_err(), "invalid character '1' after top-level value");
    }

    #[test]
    fn decode_values() {
        let (v, e) = unmarshal(r#"{"a":1,"a":2,"s":"\ud83d\ude00\u00e9","n":null,"l":[true,1e400]}"#).unwrap();
        assert_eq!(e.as_deref(), Some("json: cannot unmarshal number 1e400 into Go value of type float64"));
        assert_eq!(crate::fmt::sprint_value(&v), "map[a:2 l:[true <nil>] n:<nil> s:😀é]");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let (v, _) = unmarshal(&deep).unwrap();
        assert!(marshal(&v, Style::MARSHAL).is_err());
        // Tear down without deep recursion in the test thread's small stack.
        let mut cur = v;
        while let Value::List(l) = cur {
            cur = l.items.first().cloned().unwrap_or(Value::Nil);
        }
        let mut list = Value::list(vec![]);
        for _ in 0..MAX_ENCODE_DEPTH + 5 {
            list = Value::list(vec![list]);
        }
        assert!(marshal(&list, Style::PRETTY).is_err());
        assert_eq!(crate::funcs::kube::yaml::to_yaml(&list), "");
        let mut list = Value::list(vec![]);
        for _ in 0..MAX_ENCODE_DEPTH - 5 {
            list = Value::list(vec![list]);
        }
        assert!(marshal(&list, Style::PRETTY).is_ok());
        let too_deep = format!("{}{}", "[".repeat(10_001), "]".repeat(10_001));
        assert_eq!(unmarshal(&too_deep).unwrap_err(), "exceeded max depth");
    }

    #[test]
    fn pretty_layout() {
        let (v, _) = unmarshal(r#"{"b":[1,2],"a":{"c":"<x>"},"e":{},"f":[]}"#).unwrap();
        assert_eq!(
            marshal(&v, Style::PRETTY).unwrap(),
            "{\n  \"a\": {\n    \"c\": \"\\u003cx\\u003e\"\n  },\n  \"b\": [\n    1,\n    2\n  ],\n  \"e\": {},\n  \"f\": []\n}"
        );
    }

    #[test]
    fn cycles_are_errors() {
        let m = Value::map(BTreeMap::new());
        if let Value::Map(inner) = &m {
            inner.entries.borrow_mut().insert("self".into(), m.clone());
        }
        assert!(marshal(&m, Style::MARSHAL).unwrap_err().contains("encountered a cycle"));
        assert_eq!(crate::funcs::kube::yaml::to_yaml(&m), "");
        // Break the cycle so the test does not leak.
        if let Value::Map(inner) = &m {
            inner.entries.borrow_mut().clear();
        }
    }
}
