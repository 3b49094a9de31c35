//! Helpers shared by the test binaries.

#![allow(dead_code)]

use driftlint_gotmpl::{Limits, TemplateSet, Value};

/// Decodes JSON data the way kube-compare hands CRs to templates.
pub fn data(json: &str) -> Value {
    Value::from_json(&serde_json::from_str(json).expect("test data is JSON"))
}

/// Parses `main.yaml` plus function files and renders it; errors as users see them.
pub fn render_with(template: &str, defines: &[&str], json: &str) -> Result<String, String> {
    let files: Vec<(String, String)> =
        defines.iter().enumerate().map(|(i, d)| (format!("defines-{}.tmpl", i + 1), d.to_string())).collect();
    let set = TemplateSet::parse("main.yaml", template, &files).map_err(|e| e.to_string())?;
    set.execute(&data(json), &Limits::default(), &[]).map(|r| r.text).map_err(|e| e.to_string())
}

pub fn render(template: &str, json: &str) -> Result<String, String> {
    render_with(template, &[], json)
}
