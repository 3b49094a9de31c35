//! Inline diff functions (v2 `perField`, §5.5): `regex` and `capturegroups` rewrite string
//! fields of the rendered template so that values matching the pattern compare equal.
//!
//! [`run_inline_diff_funcs`] is kube-compare's `runInlineDiffFuncs`: fields sorted by
//! `pathToKey`, a first pass that validates and fills the **shared** capture map, and a
//! second pass that writes each result, so same-named groups must agree across fields.

mod capturegroups;
mod regex;

use indexmap::IndexMap;
use serde_json::Value;

pub use capturegroups::{CapturegroupInfo, capturegroup_index, capturegroup_quote_meta};

use crate::parse_path_to_key;

/// The two inline diff functions (`inlineDiffFunc`, case-sensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InlineDiff {
    Regex,
    Capturegroups,
}

impl InlineDiff {
    /// `regex` or `capturegroups`; anything else is `None` (a load error, §2.7).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "regex" => Some(InlineDiff::Regex),
            "capturegroups" => Some(InlineDiff::Capturegroups),
            _ => None,
        }
    }

    /// Go's `Validate(pattern)`; the error is its text (used at load, §2.9, and in pass 1).
    pub fn validate(self, pattern: &str) -> Result<(), String> {
        match self {
            InlineDiff::Regex => regex::validate(pattern),
            InlineDiff::Capturegroups => capturegroups::validate(pattern),
        }
    }

    /// What Go's `Diff(pattern, value, shared)` derives from `pattern` and `value` alone, for
    /// calls with those strings ([`Prepared::diff`]).
    fn prepare(self, pattern: &str, value: &str) -> Prepared {
        match self {
            InlineDiff::Regex => Prepared::Regex,
            InlineDiff::Capturegroups => Prepared::Capturegroups(capturegroups::split(pattern, value)),
        }
    }
}

/// A function prepared for one pattern and value ([`InlineDiff::prepare`]).
enum Prepared {
    Regex,
    Capturegroups(capturegroups::Split),
}

impl Prepared {
    /// Go's `Diff(pattern, value, shared)`, with the strings this was prepared for: the string
    /// to put in the template. `Err` only where kube-compare panics (§10 #2).
    fn diff(&self, pattern: &str, value: &str, shared: &mut Captures) -> Result<String, String> {
        match self {
            Prepared::Regex => regex::diff(pattern, value, shared),
            Prepared::Capturegroups(split) => Ok(split.apply(pattern, shared)),
        }
    }
}

/// The shared captured-group map (`CapturedValues`): name → distinct values in order.
///
/// Go iterates this map in random order for the warnings; we use first-capture order, which
/// is one of Go's possible orders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captures {
    caps: IndexMap<String, Vec<String>>,
}

impl Captures {
    /// Records a value unless the name already has it.
    pub fn add(&mut self, name: &str, value: &str) {
        let values = self.caps.entry(name.to_owned()).or_default();
        if !values.iter().any(|v| v == value) {
            values.push(value.to_owned());
        }
    }

    /// The values recorded for `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&[String]> {
        self.caps.get(name).map(Vec::as_slice)
    }

    /// `groupValues`: the one value, `(?<name>=first)` when there are several, else `""`.
    #[must_use]
    pub fn group_values(&self, name: &str) -> String {
        match self.caps.get(name).map(Vec::as_slice) {
            Some([one]) => one.clone(),
            Some([first, ..]) => format!("(?<{name}>={first})"),
            _ => String::new(),
        }
    }

    /// `getWarnings`: one line per name with several values.
    #[must_use]
    pub fn warnings(&self) -> String {
        let mut out = String::new();
        for (name, values) in &self.caps {
            if values.len() > 1 {
                out.push_str(&format!(
                    "\nWARNING: Capturegroup (?<{name}>\u{2026}) matched multiple values: \u{ab} {} \u{bb}",
                    values.join(" | ")
                ));
            }
        }
        out
    }
}

/// One configured field: its `pathToKey` and function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldFunc {
    pub path_to_key: String,
    pub func: InlineDiff,
}

/// Runs the inline diff functions on `rendered` against `cluster` (§5.1 step 5). Several
/// entries for one path: the last wins (Go builds a map). The error is the joined text that
/// follows `failed to properly run inline diff functions for <name> some diff may be
/// incorrect: `.
pub fn run_inline_diff_funcs(rendered: &mut Value, cluster: &Value, fields: &[FieldFunc]) -> Result<(), String> {
    let mut by_path: IndexMap<&str, InlineDiff> = IndexMap::new();
    for f in fields {
        by_path.insert(&f.path_to_key, f.func);
    }
    let mut paths: Vec<&str> = by_path.keys().copied().collect();
    paths.sort_unstable();

    let mut errors = Vec::new();
    let mut shared = Captures::default();
    let mut prepared = Vec::new();
    for p in paths {
        let func = by_path[p];
        let segments = match parse_path_to_key(p) {
            Ok(s) => s,
            Err(e) => {
                errors.push(format!("failed to parse path of field {p} that uses inline diff func: {e}"));
                continue;
            }
        };
        let value = match nested_string(rendered, &segments) {
            Ok(Some(v)) => v.to_owned(),
            Ok(None) => {
                errors.push(format!(
                    "failed to acces value in template of field {p} that uses inline diff func: Not found"
                ));
                continue;
            }
            Err(e) => {
                errors.push(format!("failed to acces value in template of field {p} that uses inline diff func: {e}"));
                continue;
            }
        };
        let cluster_value = match nested_string(cluster, &segments) {
            Ok(Some(v)) => v.to_owned(),
            Ok(None) => continue, // shows as a diff anyway
            Err(e) => {
                errors
                    .push(format!("failed to acces value in cluster cr of field {p} that uses inline diff func: {e}"));
                continue;
            }
        };
        if let Err(e) = func.validate(&value) {
            errors.push(format!("failed to validate the inline diff for field {p}, {e}"));
            continue;
        }
        let func = func.prepare(&value, &cluster_value);
        if let Err(e) = func.diff(&value, &cluster_value, &mut shared) {
            errors.push(e);
            continue;
        }
        prepared.push((p, segments, value, cluster_value, func));
    }
    // Pass 2 with pass 1's preparation: the same strings give the same diff.
    for (p, segments, value, cluster_value, func) in prepared {
        let result = match func.diff(&value, &cluster_value, &mut shared) {
            Ok(r) => r,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        if let Err(e) = set_nested_string(rendered, &segments, result) {
            errors.push(format!("failed to update value of inline diff func result for field {p}, {e}"));
        }
    }
    if errors.is_empty() { Ok(()) } else { Err(errors.join("\n")) }
}

/// kube-compare's `NestedField`: maps by key, lists by decimal index.
fn nested<'a>(obj: &'a Value, path: &[String]) -> Option<&'a Value> {
    let mut cur = obj;
    for seg in path {
        cur = match cur {
            Value::Object(m) => m.get(seg)?,
            Value::Array(a) => a.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// kube-compare's `NestedString`: missing is `Ok(None)`; a non-string is an accessor error.
fn nested_string<'a>(obj: &'a Value, path: &[String]) -> Result<Option<&'a str>, String> {
    match nested(obj, path) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(format!(
            ".{} accessor error: {} is of the type {}, expected string",
            path.join("."),
            crate::compare::render::go_print(v),
            crate::compare::render::go_type(v)
        )),
    }
}

fn set_nested_string(obj: &mut Value, path: &[String], value: String) -> Result<(), String> {
    let Some((last, parent_path)) = path.split_last() else { return Err("empty path".to_owned()) };
    let mut cur = obj;
    for seg in parent_path {
        cur = match cur {
            Value::Object(m) => m.get_mut(seg),
            Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| format!("value cannot be set because .{} does not exist", parent_path.join(".")))?;
    }
    match cur {
        Value::Object(m) => {
            m.insert(last.clone(), Value::String(value));
            Ok(())
        }
        _ => Err(format!("value cannot be set because .{} is not a map", parent_path.join("."))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shared_captures_across_fields_two_passes() {
        let mut rendered =
            json!({"spec": {"first": "user (?<username>[a-z]+)", "list": [{"b": "by (?<username>[a-z]+)"}]}});
        let cluster = json!({"spec": {"first": "user mismatchuser", "list": [{"b": "by exampleuser"}]}});
        let fields = [
            FieldFunc { path_to_key: "spec.first".into(), func: InlineDiff::Capturegroups },
            FieldFunc { path_to_key: "spec.list.0.b".into(), func: InlineDiff::Capturegroups },
        ];
        run_inline_diff_funcs(&mut rendered, &cluster, &fields).unwrap();
        let warn = "\nWARNING: Capturegroup (?<username>\u{2026}) matched multiple values: \u{ab} mismatchuser | exampleuser \u{bb}";
        assert_eq!(rendered["spec"]["first"], format!("user (?<username>=mismatchuser){warn}"));
        assert_eq!(rendered["spec"]["list"][0]["b"], format!("by (?<username>=mismatchuser){warn}"));
    }

    #[test]
    fn missing_and_wrong_types() {
        let mut rendered = json!({"a": "x", "n": 3});
        let cluster = json!({"n": "3"});
        let f = |p: &str| FieldFunc { path_to_key: p.into(), func: InlineDiff::Regex };
        // Missing in the cluster: skipped silently.
        run_inline_diff_funcs(&mut rendered, &cluster, &[f("a")]).unwrap();
        let e = run_inline_diff_funcs(&mut rendered, &cluster, &[f("n"), f("zz")]).unwrap_err();
        assert_eq!(
            e,
            "failed to acces value in template of field n that uses inline diff func: .n accessor error: 3 is of the type float64, expected string\n\
             failed to acces value in template of field zz that uses inline diff func: Not found"
        );
    }
}
