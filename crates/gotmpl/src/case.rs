//! The conformance corpus' candidate protocol: one JSON case in, one JSON result out.
//!
//! Input `{"template", "defines", "data", "crs"?}`; output `{"output": …}` or
//! `{"error": {"phase": "parse"|"exec", "message": …}}`. The main template is `main.yaml`
//! and the function files `defines-1.tmpl`, `defines-2.tmpl`, … as kube-compare names them.

use serde_json::json;

use crate::{ErrorKind, Limits, TemplateSet, Value};

/// Runs one case of the corpus protocol and returns the JSON line to print.
pub fn eval_case(input_json: &str) -> String {
    let input: serde_json::Value = match serde_json::from_str(input_json) {
        Ok(v) => v,
        Err(e) => return json!({"error": {"phase": "input", "message": e.to_string()}}).to_string(),
    };
    let template = input.get("template").and_then(|t| t.as_str()).unwrap_or_default();
    let defines: Vec<(String, String)> = input
        .get("defines")
        .and_then(|d| d.as_array())
        .map(|d| {
            d.iter()
                .enumerate()
                .map(|(i, t)| (format!("defines-{}.tmpl", i + 1), t.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    // Nil data is no value at all for text/template (`reflect.ValueOf(nil)`).
    let data = match input.get("data") {
        None | Some(serde_json::Value::Null) => Value::Invalid,
        Some(d) => Value::from_json(d),
    };
    let crs: Vec<Value> = input
        .get("crs")
        .and_then(|c| c.as_array())
        .map(|c| c.iter().map(Value::from_json).collect())
        .unwrap_or_default();
    let set = match TemplateSet::parse("main.yaml", template, &defines) {
        Ok(s) => s,
        Err(e) => return json!({"error": {"phase": "parse", "message": e.to_string()}}).to_string(),
    };
    match set.execute(&data, &Limits::default(), &crs) {
        Ok(r) => json!({"output": r.text}).to_string(),
        Err(e) => {
            let phase = if e.kind == ErrorKind::Parse { "parse" } else { "exec" };
            json!({"error": {"phase": phase, "message": e.to_string()}}).to_string()
        }
    }
}
