//! `self` as Kubernetes binds it: the JSON value at a schema level, typed by the schema.
//!
//! What the schema changes (apiextensions-apiserver's `celconfig`/`model`): a `number` field
//! is a `double` even when written `1`; an `integer` is an `int`; a missing property that has
//! a `default` is there with it, since the API server defaults before it validates. Strings
//! with `format: date-time`/`duration` stay strings here (Kubernetes makes them timestamps and
//! durations; a rule comparing them as such is then an evaluation error, shown as a warning).
//! A named property whose name is a CEL keyword or holds `.`, `-`, `/` or `__` is bound under
//! Kubernetes' escaped name (`namespace` → `__namespace__`, `a.b` → `a__dot__b`); the keys of
//! a map (`additionalProperties`) are not escaped.

use std::collections::HashMap;
use std::sync::Arc;

use cel::Value;
use cel::objects::{Key, Map};
use serde_json::Value as Json;

/// What the conversion needs to know of a schema level.
pub trait Shape {
    /// Whether the level is `type: number` (its integers become doubles).
    fn is_number(&self) -> bool;
    /// The schema of property `key` (the named one or `additionalProperties`).
    fn property(&self, key: &str) -> Option<&Self>;
    /// The schema of a list's items.
    fn items(&self) -> Option<&Self>;
    /// Calls `f` for each named property with a `default`.
    fn defaults(&self, f: &mut dyn FnMut(&str, &Json));
    /// Whether `key` is a named property (`properties`), whose name Kubernetes escapes.
    fn is_named(&self, _key: &str) -> bool {
        false
    }
}

/// CEL's reserved words, which Kubernetes escapes as `__word__` in property names.
const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// A property name as a rule names it (apiserver's `cel.Escape`); unchanged when it cannot be
/// escaped (such a property is not accessible by name in Kubernetes either).
pub fn escape(name: &str) -> String {
    if RESERVED.contains(&name) {
        return format!("__{name}__");
    }
    let mut chars = name.chars();
    let valid_first = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || "_.-/".contains(c));
    if !valid_first || !name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-/".contains(c)) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("__") {
            out.push_str("__underscores__");
            rest = r;
            continue;
        }
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// No schema: JSON's own types (used by tests and the differential table).
#[derive(Clone, Copy, Debug, Default)]
pub struct Untyped;

impl Shape for Untyped {
    fn is_number(&self) -> bool {
        false
    }
    fn property(&self, _: &str) -> Option<&Self> {
        Some(self)
    }
    fn items(&self) -> Option<&Self> {
        Some(self)
    }
    fn defaults(&self, _: &mut dyn FnMut(&str, &Json)) {}
}

/// How deep a value is converted (the YAML loader bounds nesting already).
const MAX_DEPTH: usize = 256;

/// `json` as a CEL value, typed by `shape`.
pub fn to_cel<S: Shape>(json: &Json, shape: Option<&S>) -> Value {
    convert(json, shape, 0)
}

fn convert<S: Shape>(json: &Json, shape: Option<&S>, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => {
            if shape.is_some_and(|s| s.is_number()) {
                Value::Float(n.as_f64().unwrap_or(0.0))
            } else if let Some(i) = n.as_i64() {
                Value::Int(i)
            } else if let Some(u) = n.as_u64() {
                Value::UInt(u)
            } else {
                Value::Float(n.as_f64().unwrap_or(0.0))
            }
        }
        Json::String(s) => Value::String(Arc::new(s.clone())),
        Json::Array(items) => {
            let item_shape = shape.and_then(Shape::items);
            Value::List(Arc::new(items.iter().map(|i| convert(i, item_shape, depth + 1)).collect()))
        }
        Json::Object(entries) => {
            let mut map: HashMap<Key, Value> = HashMap::with_capacity(entries.len());
            for (k, v) in entries {
                let child = shape.and_then(|s| s.property(k));
                // A null is pruned (then defaulted) by the API server: no value.
                if v.is_null() {
                    continue;
                }
                map.insert(Key::String(Arc::new(name(shape, k))), convert(v, child, depth + 1));
            }
            if let Some(s) = shape {
                s.defaults(&mut |k, d| {
                    let key = Key::String(Arc::new(name(shape, k)));
                    map.entry(key).or_insert_with(|| convert(d, s.property(k), depth + 1));
                });
            }
            Value::Map(Map { map: Arc::new(map) })
        }
    }
}

fn name<S: Shape>(shape: Option<&S>, key: &str) -> String {
    match shape {
        Some(s) if s.is_named(key) => escape(key),
        _ => key.to_string(),
    }
}
