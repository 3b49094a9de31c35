//! Go `encoding/json` compact output for a [`serde_json::Value`].
//!
//! serde_json escapes differently from Go: Go writes `<`, `>`, `&` as `\u003c`, `\u003e`,
//! `\u0026` (HTML-safe by default) and U+2028/U+2029 as `\u2028`/`\u2029`, and uses `\b`/`\f`
//! (Go ≥ 1.22) and lower-case `\u00xx` for other control characters (spec §7.2). Object keys
//! are written in the value's order; callers build maps in Go's order (struct order, sorted
//! map keys).

use serde_json::Value;

/// Serialises `value` the way Go's `json.Marshal` does (no trailing newline).
#[must_use]
pub fn to_go_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if n.is_f64() {
                // Go prints floats with strconv 'f'/'e' rules; the yaml crate has that formatter.
                out.push_str(&driftlint_yaml::format_json_float(n.as_f64().unwrap_or_default()));
            } else {
                out.push_str(&n.to_string());
            }
        }
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, v);
            }
            out.push('}');
        }
    }
}

/// Writes a JSON string literal with Go's escaping.
pub fn write_string(out: &mut String, s: &str) {
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
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 || matches!(c, '<' | '>' | '&') => {
                let b = c as u32;
                out.push_str("\\u00");
                out.push(char::from(HEX[(b >> 4) as usize & 0xf]));
                out.push(char::from(HEX[b as usize & 0xf]));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escapes_like_go() {
        let v = json!({"a": "(?<u>[0-9]+) & \u{1} \u{2028}\t\"\\", "b": [1, -2, 1.5], "c": null});
        assert_eq!(
            to_go_json(&v),
            r#"{"a":"(?\u003cu\u003e[0-9]+) \u0026 \u0001 \u2028\t\"\\","b":[1,-2,1.5],"c":null}"#
        );
    }
}
