//! What kube-compare does with a template's output (§3.2): strip `<no value>`, read the
//! first YAML document with sigs.k8s.io/yaml into a map, numbers as float64.
//!
//! Also the small Go-flavoured helpers the other steps need: float64 number semantics for
//! JSON values ([`normalize_numbers`], [`json_eq`]) and Go's `%v`/`%T` of a decoded value for
//! accessor errors.

use serde_json::{Number, Value};

/// Error for output that is not a YAML mapping; `Display` is kube-compare's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "template: {template} isn't a yaml file after injection. yaml unmarshal error: {detail}. The Template After Execution: {raw}"
)]
pub struct NotYaml {
    pub template: String,
    pub detail: String,
    /// The output after `<no value>` removal.
    pub raw: String,
}

/// Turns a template's raw output into the rendered object (§3.2 steps 2–3). An empty
/// document gives an empty object (Go's nil map).
pub fn parse_rendered(template: &str, raw: &str) -> Result<Value, NotYaml> {
    // Most renders have no `<no value>`: no copy then.
    let text: std::borrow::Cow<'_, str> =
        if raw.contains("<no value>") { raw.replace("<no value>", "").into() } else { raw.into() };
    // Plain block YAML (most template output) is read by the fast loader, which answers only
    // when the full loader would give the same first document; everything else, and every
    // error text, comes from the full loader below.
    if let Some(documents) = driftlint_yaml::parse_simple_documents(&text, 1) {
        match documents.into_iter().next() {
            None | Some(Value::Null) => return Ok(Value::Object(serde_json::Map::new())),
            Some(mut value @ Value::Object(_)) => {
                normalize_numbers(&mut value);
                return Ok(value);
            }
            Some(_) => {}
        }
    }
    let err = |detail: String| NotYaml { template: template.to_owned(), detail, raw: text.clone().into_owned() };
    let stream = driftlint_yaml::parse_stream(&text);
    // Only the first document counts; an error in a later one is ignored like Go does.
    let first = match (stream.documents.into_iter().next(), stream.error) {
        (Some(d), _) => d.root.to_json(),
        (None, Some(e)) => {
            return Err(err(format!("error converting YAML to JSON: yaml: line {}: {}", e.line, e.message)));
        }
        (None, None) => Value::Object(serde_json::Map::new()),
    };
    let mut value = match first {
        Value::Object(_) => first,
        Value::Null => Value::Object(serde_json::Map::new()),
        other => {
            return Err(err(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                json_kind(&other)
            )));
        }
    };
    normalize_numbers(&mut value);
    Ok(value)
}

/// Go's JSON-decoder name for a value's type (`cannot unmarshal <kind>`).
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Gives every number float64 precision, as Go's decoding into `interface{}` does:
/// integers beyond ±2^53 are rounded (`9007199254740993` → `9007199254740992`), and whole
/// floats below 2^63 become integers so they print as Go prints them (`3`, not `3.0`).
pub fn normalize_numbers(v: &mut Value) {
    match v {
        Value::Number(n) => *v = Value::Number(float64_number(n)),
        Value::Array(a) => a.iter_mut().for_each(normalize_numbers),
        Value::Object(m) => m.values_mut().for_each(normalize_numbers),
        _ => {}
    }
}

const TWO_53: u64 = 1 << 53;

fn float64_number(n: &Number) -> Number {
    if let Some(i) = n.as_i64()
        && i.unsigned_abs() <= TWO_53
    {
        return n.clone();
    }
    let f = n.as_f64().unwrap_or(0.0);
    match driftlint_yaml::float_to_json(f) {
        Value::Number(n) => n,
        _ => n.clone(),
    }
}

/// Equality with Go's float64 view of numbers (`1` equals `1.0`).
#[must_use]
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Go's `%T` of a JSON-decoded value.
pub(crate) fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "float64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `%v` of a JSON-decoded value (scalars; containers compactly).
pub(crate) fn go_print(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), |f| driftlint_yaml::format_float_g(f, false)),
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(go_print).collect::<Vec<_>>().join(" ")),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            format!("map[{}]", keys.iter().map(|k| format!("{k}:{}", go_print(&m[*k]))).collect::<Vec<_>>().join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strips_no_value_and_reads_first_document() {
        let v = parse_rendered("t.yaml", "kind: X\nname: <no value>\nnum: 9007199254740993\nf: 3.0\n---\nkind: Y\n")
            .unwrap();
        assert_eq!(v, json!({"kind": "X", "name": null, "num": 9007199254740992u64, "f": 3}));
        assert_eq!(driftlint_yaml::to_yaml_string(&v), "f: 3\nkind: X\nname: null\nnum: 9007199254740992\n");
    }

    #[test]
    fn not_a_mapping() {
        let e = parse_rendered("t.yaml", "- a\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "template: t.yaml isn't a yaml file after injection. yaml unmarshal error: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}. The Template After Execution: - a\n"
        );
        assert!(parse_rendered("t.yaml", "a: [\n").is_err());
        assert_eq!(parse_rendered("t.yaml", "").unwrap(), json!({}));
    }

    #[test]
    fn fast_and_full_loader_agree() {
        // Read by the fast loader: the first document only, a later broken one ignored.
        assert_eq!(parse_rendered("t.yaml", "# c\n---\na: 1\n---\nb: [\n").unwrap(), json!({"a": 1}));
        assert_eq!(parse_rendered("t.yaml", "---\n").unwrap(), json!({}));
        // Outside the fast loader's subset: the full loader gives the same kind of answers.
        assert_eq!(parse_rendered("t.yaml", "a: &x 1\nb: *x\n---\nb: [\n").unwrap(), json!({"a": 1, "b": 1}));
        assert_eq!(parse_rendered("t.yaml", "a: 1\na: 2\n").unwrap(), json!({"a": 2}));
        let e = parse_rendered("t.yaml", "'x'\n").unwrap_err();
        assert!(e.detail.ends_with("cannot unmarshal string into Go value of type map[string]interface {}"), "{e}");
    }

    #[test]
    fn float_equality() {
        assert!(json_eq(&json!({"a": [1]}), &json!({"a": [1.0]})));
        assert!(!json_eq(&json!({"a": "1"}), &json!({"a": 1})));
    }
}
