//! `toYaml`, `fromYaml` and `fromYamlArray` through `sigs.k8s.io/yaml`, which kube-compare
//! (like Helm) uses: YAML is always a detour through JSON.
//!
//! * `toYaml` is `json.Marshal`, then go-yaml v2 reads that JSON (typing each number afresh:
//!   integer text is an int, anything else a float) and writes it back as YAML. We build the
//!   JSON value go-yaml would have read and hand it to `driftlint_yaml::to_yaml_string`.
//! * `fromYaml` reads the first YAML document with go-yaml v2 (YAML 1.1), converts it to JSON
//!   (keys become strings) and decodes that JSON into the Go target with `encoding/json`, so
//!   every number is a `float64`.
//!
//! Error texts are Go's where the YAML loader lets us reconstruct them (see [`yaml_error`]).

use std::collections::BTreeMap;

use driftlint_yaml::{Warning, parse_stream};

use super::json;
use crate::value::{Type, Value};

/// Values nested deeper than this are refused rather than risking the stack.
const MAX_DEPTH: usize = super::json::MAX_ENCODE_DEPTH;

/// `toYaml`: the YAML text without its final newline, or `""` when `json.Marshal` fails
/// (NaN, a cycle, an unsupported type).
pub(crate) fn to_yaml(v: &Value) -> String {
    // json.Marshal first: it finds what Go refuses (NaN, cycles, unsupported types) cheaply.
    if json::marshal(v, json::Style::MARSHAL).is_err() {
        return String::new();
    }
    match go_yaml_view(v, 0) {
        Ok(j) => {
            let mut s = driftlint_yaml::to_yaml_string(&j);
            if s.ends_with('\n') {
                s.pop();
            }
            s
        }
        Err(()) => String::new(),
    }
}

/// The value go-yaml v2 gets when it unmarshals `json.Marshal(v)`: the JSON text of a float
/// decides its YAML type, so a whole float below 1e21 (`3`) comes back as an integer (`int`,
/// or `uint64` when it is too large for `int64`), everything else as a float.
fn go_yaml_view(v: &Value, depth: usize) -> Result<serde_json::Value, ()> {
    use serde_json::{Number, Value as J};
    if depth > MAX_DEPTH {
        return Err(());
    }
    Ok(match v {
        Value::Invalid | Value::Nil => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i, k) => {
            if k.is_unsigned() && *i < 0 {
                J::Number(Number::from(*i as u64))
            } else {
                J::Number(Number::from(*i))
            }
        }
        Value::Float(f) => {
            let text = json::float(*f).map_err(|_| ())?;
            if let Ok(i) = text.parse::<i64>() {
                J::Number(Number::from(i))
            } else if let Ok(u) = text.parse::<u64>() {
                J::Number(Number::from(u))
            } else {
                Number::from_f64(*f).map(J::Number).ok_or(())?
            }
        }
        Value::Complex(..) => return Err(()),
        Value::String(s) => J::String(s.to_string()),
        Value::List(l) => {
            if l.nil {
                J::Null
            } else {
                J::Array(l.items.iter().map(|x| go_yaml_view(x, depth + 1)).collect::<Result<_, _>>()?)
            }
        }
        Value::Map(m) => {
            if m.nil {
                J::Null
            } else {
                let mut out = serde_json::Map::new();
                for (k, x) in m.entries.borrow().iter() {
                    out.insert(k.clone(), go_yaml_view(x, depth + 1)?);
                }
                J::Object(out)
            }
        }
        Value::Object(o) => go_yaml_view(&json::object_json(o.as_ref()).map_err(|_| ())?, depth + 1)?,
    })
}

/// The decoded first document, or sigs.k8s.io/yaml's error text.
fn load(s: &str) -> Result<Value, String> {
    let stream = parse_stream(s);
    // go-yaml's Unmarshal reads only the first document; an error further on is never seen.
    let Some(doc) = stream.documents.into_iter().next() else {
        return match stream.error {
            Some(e) => Err(format!("error converting YAML to JSON: {}", yaml_error(s, &e))),
            None => Ok(Value::Nil),
        };
    };
    for w in &doc.warnings {
        match w {
            // json.Marshal of the converted document fails on NaN and infinities.
            Warning::NonFiniteFloat { span } => {
                let raw = s.get(span.clone()).unwrap_or("").trim().to_ascii_lowercase();
                let what = if raw.contains("nan") {
                    "NaN"
                } else if raw.starts_with('-') {
                    "-Inf"
                } else {
                    "+Inf"
                };
                return Err(format!("error converting YAML to JSON: json: unsupported value: {what}"));
            }
            Warning::UnsupportedKey { key, .. } => {
                return Err(format!("error converting YAML to JSON: unsupported map key of type: {key}"));
            }
            Warning::DuplicateKey { .. } => {}
        }
    }
    Ok(from_json_value(&doc.root.to_json()))
}

/// `encoding/json` decoding into `interface{}`: every number is a `float64`.
fn from_json_value(v: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    match v {
        J::Null => Value::Nil,
        J::Bool(b) => Value::Bool(*b),
        // i64 → f64 rounds to nearest like ParseFloat on the JSON digits would.
        J::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        J::String(s) => Value::str(s),
        J::Array(a) => Value::list(a.iter().map(from_json_value).collect()),
        J::Object(o) => Value::map(o.iter().map(|(k, v)| (k.clone(), from_json_value(v))).collect()),
    }
}

const WRAP: &str = "error unmarshaling JSON: while decoding JSON: ";

/// `fromYaml`: `yaml.Unmarshal` into `map[string]any{}`; errors go under `"Error"`.
pub(crate) fn from_yaml(s: &str) -> Value {
    let mut m = BTreeMap::new();
    match load(s) {
        Ok(Value::Map(doc)) => return Value::Map(doc),
        // `null` JSON sets the target map to nil.
        Ok(Value::Nil) => return Value::nil_map(),
        Ok(other) => {
            let e = format!(
                "{WRAP}json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                json::kind_word(&other)
            );
            m.insert("Error".to_string(), Value::str(e));
        }
        Err(e) => {
            m.insert("Error".to_string(), Value::str(e));
        }
    }
    Value::map(m)
}

/// `fromYamlArray`: `yaml.Unmarshal` into `[]any{}`; an error replaces the result by `[msg]`.
pub(crate) fn from_yaml_array(s: &str) -> Value {
    match load(s) {
        Ok(v @ Value::List(_)) => v,
        Ok(Value::Nil) => Value::nil_list(Type::Interface),
        Ok(other) => Value::list(vec![Value::str(format!(
            "{WRAP}json: cannot unmarshal {} into Go value of type []interface {{}}",
            json::kind_word(&other)
        ))]),
        Err(e) => Value::list(vec![Value::str(e)]),
    }
}

/// go-yaml v2's error text (`yaml: line N: <libyaml problem>`) rebuilt from the loader's.
///
/// The loader parses with saphyr, which words most problems like libyaml but prefixes a
/// context (`while parsing a flow sequence, …`) that go-yaml drops, and words a few
/// differently. go-yaml v2 (`parser.fail`) prints `problem_mark.line` for parser errors, which
/// is 0-based, and `problem_mark.line + 1` for scanner errors; a line of 0 is not printed at
/// all. At the end of input libyaml's stream-end token sits on a new line when the last line
/// has no line break, so a parser error there is one line further down.
fn yaml_error(text: &str, e: &driftlint_yaml::Error) -> String {
    let msg = e.message.as_str();
    let strip = |m: &str| match m.find(", ") {
        Some(i) if m.starts_with("while ") => m[i + 2..].to_string(),
        _ => m.to_string(),
    };
    // (problem, is a scanner error, the problem is at the end of input)
    let (problem, scanner, at_eof) = if msg == "while parsing a flow sequence, expected ',' or ']'" {
        ("did not find expected ',' or ']'".to_string(), false, false)
    } else if msg.starts_with("while parsing a ") {
        (strip(msg), false, false)
    } else if msg == "misplaced bracket" {
        // A stray `]` or `}` in block context: libyaml's parser wants the next key there.
        ("did not find expected key".to_string(), false, false)
    } else if msg.contains("found unknown anchor") {
        // go-yaml checks aliases itself and names the anchor, without a line.
        let name: String = text
            .get(e.offset..)
            .unwrap_or("")
            .trim_start_matches('*')
            .chars()
            .take_while(|c| !c.is_whitespace() && !",[]{}".contains(*c))
            .collect();
        return format!("yaml: unknown anchor '{name}' referenced");
    } else if msg.ends_with("found unexpected end of stream") {
        (strip(msg), true, true)
    } else if msg.starts_with("unexpected character") {
        ("found character that cannot start any token".to_string(), true, false)
    } else if msg == "simple key expect ':'" {
        ("could not find expected ':'".to_string(), true, false)
    } else {
        (strip(msg), true, false)
    };
    let mut line = if at_eof { text.matches('\n').count() } else { e.line.saturating_sub(1) };
    if !scanner && e.offset >= text.len() && !text.is_empty() && !text.ends_with('\n') {
        line += 1;
    }
    if line == 0 {
        format!("yaml: {problem}")
    } else if scanner {
        format!("yaml: line {}: {problem}", line + 1)
    } else {
        format!("yaml: line {line}: {problem}")
    }
}
