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

/// [`to_go_json`] appending to `out`.
pub fn write_go_json(out: &mut String, value: &Value) {
    write_value(out, value);
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

/// Writes a JSON string literal with Go's escaping (`json.Marshal`: `<>&` and U+2028/9 escaped).
pub fn write_string(out: &mut String, s: &str) {
    driftlint_gotmpl::funcs::go_json_quote(out, s, true);
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
