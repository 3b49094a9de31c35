//! BurntSushi/toml v1.4 `Encoder.Encode` for template values (kube-compare's `toToml`).
//!
//! The layout is the encoder's, not a canonical TOML printer's: in each table the plain keys
//! come first and the sub-tables and arrays of tables after, each group sorted; nested tables
//! are indented two spaces per level; top-level tables are preceded by a blank line; nil values
//! are skipped. A top-level scalar or array is written bare, without `key = ` and without a
//! newline. Errors are Go's texts; `toToml` prints them as its result, except for a nil
//! argument, which panics in Go (`reflect: call of reflect.Value.Type on zero Value`).

use crate::value::{Object, Value};

/// Why encoding stopped.
pub(crate) enum TomlError {
    /// An error `Encode` returns (printed by `toToml`).
    Encode(String),
    /// A runtime panic inside the encoder (an exec error in the template).
    Panic(String),
}

const ERR_NIL_ELEMENT: &str = "toml: cannot encode array with nil element";
const ERR_NO_KEY: &str = "toml: top-level values must be Go maps or structs";

/// The TOML type of a value, as `tomlTypeOfGo` classifies it; `None` for nil.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Scalar,
    Array,
    Hash,
    ArrayHash,
}

/// Encodes `v` as `toml.NewEncoder(buf).Encode(v)` would.
pub(crate) fn encode(v: &Value) -> Result<String, TomlError> {
    if matches!(v, Value::Invalid | Value::Nil) {
        return Err(TomlError::Panic("reflect: call of reflect.Value.Type on zero Value".into()));
    }
    let mut e = Encoder { out: String::new(), written: false };
    e.encode(&[], v, 0)?;
    Ok(e.out)
}

struct Encoder {
    out: String,
    /// `hasWritten`: a newline before the first output is suppressed.
    written: bool,
}

/// Values nested deeper than this are refused rather than risking the stack.
const MAX_DEPTH: usize = super::json::MAX_ENCODE_DEPTH;

fn too_deep() -> TomlError {
    TomlError::Encode("toml: value nested too deeply".into())
}

fn is_nil(v: &Value) -> bool {
    match v {
        Value::Invalid | Value::Nil => true,
        Value::List(l) => l.nil,
        Value::Map(m) => m.nil,
        Value::Object(o) => o.is_nil(),
        _ => false,
    }
}

/// Objects with a text form (`time.Time`, `*semver.Version` implement `TextMarshaler`) are
/// scalars; Sprig's certificate struct is a table.
fn object_fields(o: &dyn Object) -> Option<Vec<(&'static str, Value)>> {
    match o.type_name() {
        "time.Time" | "*semver.Version" => None,
        _ => Some(vec![("Cert", o.field("Cert")?), ("Key", o.field("Key")?)]),
    }
}

fn kind(v: &Value, depth: usize) -> Result<Option<Kind>, TomlError> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    if is_nil(v) {
        return Ok(None);
    }
    Ok(Some(match v {
        Value::Map(_) => Kind::Hash,
        Value::Object(o) if object_fields(o.as_ref()).is_some() => Kind::Hash,
        Value::List(l) => {
            if is_table_array(&l.items, depth)? {
                Kind::ArrayHash
            } else {
                Kind::Array
            }
        }
        Value::Complex(..) => return Err(TomlError::Encode("unsupported type: complex128".into())),
        _ => Kind::Scalar,
    }))
}

/// `isTableArray`: non-empty and every element a table; any nil element is an error.
fn is_table_array(items: &[Value], depth: usize) -> Result<bool, TomlError> {
    if items.is_empty() {
        return Ok(false);
    }
    let mut all = true;
    for item in items {
        match kind(item, depth + 1)? {
            None => return Err(TomlError::Encode(ERR_NIL_ELEMENT.into())),
            Some(Kind::Hash) => {}
            Some(_) => all = false,
        }
    }
    Ok(all)
}

/// `Key.maybeQuoted`: bare keys are `A-Za-z0-9_-`; anything else is a quoted string.
fn key_part(k: &str) -> String {
    if !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        k.to_string()
    } else {
        let mut s = String::from("\"");
        escape_into(&mut s, k);
        s.push('"');
        s
    }
}

fn key_path(key: &[String]) -> String {
    key.iter().map(|k| key_part(k)).collect::<Vec<_>>().join(".")
}

/// `dblQuotedReplacer`: quotes, backslashes and control characters.
fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

impl Encoder {
    fn wf(&mut self, s: &str) {
        self.out.push_str(s);
        self.written = true;
    }

    fn newline(&mut self) {
        if self.written {
            self.wf("\n");
        }
    }

    fn indent(&mut self, key: &[String]) {
        for _ in 1..key.len() {
            self.wf("  ");
        }
    }

    fn encode(&mut self, key: &[String], v: &Value, depth: usize) -> Result<(), TomlError> {
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        match v {
            Value::Invalid | Value::Nil => Ok(()),
            Value::Map(m) if m.nil => Ok(()),
            Value::Map(_) => self.table(key, v, depth),
            Value::Object(o) if o.is_nil() => Ok(()),
            Value::Object(o) if object_fields(o.as_ref()).is_some() => self.table(key, v, depth),
            Value::List(l) => {
                if kind(v, depth)? == Some(Kind::ArrayHash) {
                    if key.is_empty() {
                        return Err(TomlError::Encode(ERR_NO_KEY.into()));
                    }
                    for item in l.items.iter() {
                        if is_nil(item) {
                            continue;
                        }
                        self.newline();
                        self.indent(key);
                        self.wf(&format!("[[{}]]", key_path(key)));
                        self.newline();
                        self.fields(key, item, false, depth + 1)?;
                    }
                    Ok(())
                } else {
                    self.key_value(key, v, false, depth)
                }
            }
            Value::Complex(..) => {
                Err(TomlError::Encode(format!("unsupported type for key '{}': complex128", key_path(key))))
            }
            _ => self.key_value(key, v, false, depth),
        }
    }

    fn table(&mut self, key: &[String], v: &Value, depth: usize) -> Result<(), TomlError> {
        if key.len() == 1 {
            self.newline();
        }
        if !key.is_empty() {
            self.indent(key);
            self.wf(&format!("[{}]", key_path(key)));
            self.newline();
        }
        self.fields(key, v, false, depth)
    }

    /// `eMap` / `eStruct`: direct keys first, then sub-tables, each sorted.
    fn fields(&mut self, key: &[String], v: &Value, inline: bool, depth: usize) -> Result<(), TomlError> {
        let entries: Vec<(String, Value)> = match v {
            Value::Map(m) => m.entries.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            Value::Object(o) => {
                object_fields(o.as_ref()).unwrap_or_default().into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            }
            _ => Vec::new(),
        };
        let (mut direct, mut sub) = (Vec::new(), Vec::new());
        for (k, item) in entries {
            if matches!(kind(&item, depth + 1)?, Some(Kind::Hash | Kind::ArrayHash)) {
                sub.push((k, item));
            } else {
                direct.push((k, item));
            }
        }
        if inline {
            self.wf("{");
        }
        let trailing_comma = !sub.is_empty();
        for (group, trail) in [(direct, trailing_comma), (sub, false)] {
            let n = group.len();
            for (i, (k, item)) in group.into_iter().enumerate() {
                if is_nil(&item) {
                    continue;
                }
                if inline {
                    self.key_value(&[k], &item, true, depth + 1)?;
                    if trail || i != n - 1 {
                        self.wf(", ");
                    }
                } else {
                    let mut child = key.to_vec();
                    child.push(k);
                    self.encode(&child, &item, depth + 1)?;
                }
            }
        }
        if inline {
            self.wf("}");
        }
        Ok(())
    }

    /// `writeKeyValue`: with an empty key (a top-level scalar) only the element is written.
    fn key_value(&mut self, key: &[String], v: &Value, inline: bool, depth: usize) -> Result<(), TomlError> {
        let Some(last) = key.last() else {
            return self.element(v, depth);
        };
        self.indent(key);
        self.wf(&format!("{} = ", key_part(last)));
        self.element(v, depth)?;
        if !inline {
            self.newline();
        }
        Ok(())
    }

    fn element(&mut self, v: &Value, depth: usize) -> Result<(), TomlError> {
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        match v {
            // A nil element inside an inline array: reflect panics on the zero Value.
            Value::Invalid | Value::Nil => {
                return Err(TomlError::Panic("reflect: call of reflect.Value.Interface on zero Value".into()));
            }
            Value::Bool(b) => self.wf(if *b { "true" } else { "false" }),
            Value::Int(i, k) => {
                let s = if k.is_unsigned() && *i < 0 { (*i as u64).to_string() } else { i.to_string() };
                self.wf(&s);
            }
            Value::Float(f) => {
                let s = if f.is_nan() {
                    if f.is_sign_negative() { "-nan".to_string() } else { "nan".to_string() }
                } else if f.is_infinite() {
                    if *f < 0.0 { "-inf".to_string() } else { "inf".to_string() }
                } else {
                    // floatAddDecimal: TOML floats need a decimal point.
                    let s = super::json::shortest_fixed(*f);
                    if s.contains('.') { s } else { s + ".0" }
                };
                self.wf(&s);
            }
            Value::Complex(..) => return Err(TomlError::Encode("unexpected type: complex128".into())),
            Value::String(s) => {
                let mut q = String::from("\"");
                escape_into(&mut q, s);
                q.push('"');
                self.wf(&q);
            }
            Value::List(l) => {
                self.wf("[");
                let n = l.items.len();
                for (i, item) in l.items.iter().enumerate() {
                    self.element(item, depth + 1)?;
                    if i != n - 1 {
                        self.wf(", ");
                    }
                }
                self.wf("]");
            }
            Value::Map(_) => self.fields(&[], v, true, depth)?,
            Value::Object(o) => match o.type_name() {
                // time.Time is written bare in RFC 3339 with nanoseconds.
                "time.Time" => match o.call_method("Format", &[Value::str(super::json::RFC3339_NANO)]) {
                    Some(Ok(Value::String(s))) => self.wf(&s),
                    _ => return Err(TomlError::Encode("toml: cannot format time.Time".into())),
                },
                // TextMarshaler: the text, quoted.
                "*semver.Version" => {
                    let mut q = String::from("\"");
                    escape_into(&mut q, &o.display());
                    q.push('"');
                    self.wf(&q);
                }
                _ => self.fields(&[], v, true, depth)?,
            },
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn toml(v: &Value) -> String {
        match encode(v) {
            Ok(s) => s,
            Err(TomlError::Encode(e) | TomlError::Panic(e)) => format!("ERR {e}"),
        }
    }

    fn m(entries: Vec<(&str, Value)>) -> Value {
        Value::map(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<BTreeMap<_, _>>())
    }

    #[test]
    fn nested_tables_and_arrays_of_tables() {
        let v = m(vec![
            ("title", Value::str("t")),
            (
                "server",
                m(vec![("host", Value::str("h")), ("ports", Value::list(vec![Value::int64(1), Value::int64(2)]))]),
            ),
            ("z", Value::int64(1)),
        ]);
        assert_eq!(toml(&v), "title = \"t\"\nz = 1\n\n[server]\n  host = \"h\"\n  ports = [1, 2]\n");
        let v = m(vec![(
            "items",
            Value::list(vec![
                m(vec![("name", Value::str("a"))]),
                m(vec![("name", Value::str("b")), ("v", Value::int64(2))]),
            ]),
        )]);
        assert_eq!(toml(&v), "[[items]]\n  name = \"a\"\n\n[[items]]\n  name = \"b\"\n  v = 2\n");
    }

    #[test]
    fn top_level_values() {
        assert_eq!(toml(&Value::str("str")), "\"str\"");
        assert_eq!(toml(&Value::list(vec![Value::int(1), Value::int(2)])), "[1, 2]");
        assert_eq!(toml(&m(vec![])), "");
        assert_eq!(toml(&Value::list(vec![m(vec![])])), format!("ERR {ERR_NO_KEY}"));
        assert_eq!(toml(&Value::Nil), "ERR reflect: call of reflect.Value.Type on zero Value");
        assert_eq!(toml(&m(vec![("f", Value::Float(3.0)), ("i", Value::int(3))])), "f = 3.0\ni = 3\n");
        assert_eq!(toml(&Value::Float(f64::INFINITY)), "inf");
        assert_eq!(toml(&Value::Float(1e21)), "1000000000000000000000.0");
        assert_eq!(toml(&Value::nil_list(crate::value::Type::Interface)), "[]");
        assert_eq!(toml(&Value::nil_map()), "");
    }

    #[test]
    fn keys_strings_and_inline_tables() {
        let v = m(vec![("key with space", Value::str("multi\nline")), ("dotted.key", Value::str("q\"uote"))]);
        assert_eq!(toml(&v), "\"dotted.key\" = \"q\\\"uote\"\n\"key with space\" = \"multi\\nline\"\n");
        let v = m(vec![("a", Value::list(vec![m(vec![("x", Value::int(1)), ("y", Value::Nil)]), Value::int(2)]))]);
        // Go writes the comma before it skips the nil value.
        assert_eq!(toml(&v), "a = [{x = 1, }, 2]\n");
        let v = m(vec![("a", Value::list(vec![Value::int(1), Value::Nil]))]);
        assert_eq!(toml(&v), format!("ERR {ERR_NIL_ELEMENT}"));
    }
}
