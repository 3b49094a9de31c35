//! The compiled reference: every template parsed once into a [`TemplateSet`] and pre-executed
//! with an empty map (kube-compare §3.1, §3.6), with the load-time checks of §2.7 and §2.9.
//!
//! This module owns turning template *text* into something executable and the checks that
//! need a render; it knows nothing about cluster CRs beyond handing them to the engine.
//! Correlation reads [`CompiledTemplate::metadata`] and [`Fixed`]; comparison calls
//! [`Compiled::render`].

use std::ops::Range;

use driftlint_gotmpl::{Error as TmplError, ErrorKind, Limits, Rendered, SharedFiles, TemplateSet, Value};
use serde_json::Value as Json;

use super::error::{LoadError, Problem};
use super::model::go_base;
use super::{Reference, SourceFile, TemplateEntry, Version, parse_path_to_key};
use crate::compare::inline::InlineDiff;

/// kube-compare's `noValue`: removed from every render before YAML parsing (§3.2 step 2).
const NO_VALUE: &str = "<no value>";

/// A reference whose templates all parsed and passed the empty-map pre-execution.
#[derive(Debug)]
pub struct Compiled {
    pub reference: Reference,
    /// One per [`Reference::templates`] entry, same order.
    pub templates: Vec<CompiledTemplate>,
    /// The limits every render of this reference runs under; their budget is the run's one
    /// template budget, shared by the empty-map pre-executions, every render of a CR (on
    /// every thread) and `go-template` overrides (see [`Compiled::limits`]).
    limits: Limits,
}

/// One parsed template entry.
#[derive(Debug)]
pub struct CompiledTemplate {
    /// Index in [`Reference::templates`].
    pub entry: usize,
    /// The template set: the entry's file(s), then the function files (§3.1).
    pub set: TemplateSet,
    /// The empty-map render as a JSON object: the template's metadata (§3.6).
    pub metadata: Json,
    /// The correlation fields that do not depend on the CR.
    pub fixed: Fixed,
    /// An execution may change its data ([`TemplateSet::may_mutate_data`]): each render
    /// needs data of its own.
    pub mutates_data: bool,
    /// What a render can read of the CR ([`TemplateSet::data_paths`]); `None`: all of it.
    pub reads: Option<driftlint_gotmpl::DataPaths>,
}

/// Correlation fields that render to a non-empty string with an empty map (§3.6); `None`
/// means "templated" (null, `""`, a non-string or absent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fixed {
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
}

impl Compiled {
    /// The entry a compiled template came from.
    pub fn entry(&self, idx: usize) -> Option<&TemplateEntry> {
        let t = self.templates.get(idx)?;
        self.reference.templates.get(t.entry)
    }

    /// Executes template `idx` with `cr` as data and `crs` as what `lookupCR(s)` sees. The raw
    /// output is returned (before `<no value>` stripping, which the caller does, §3.2).
    // The engine's error is returned as is so callers can tell doNotMatch from failures.
    #[allow(clippy::result_large_err)]
    pub fn render(&self, idx: usize, cr: &Json, crs: &[Value]) -> Result<Rendered, TmplError> {
        let Some(t) = self.templates.get(idx) else {
            return Err(exec_error("", format!("no template with index {idx}")));
        };
        t.set.execute(&Value::from_json(cr), &self.limits, crs)
    }

    /// The text of [`Compiled::render`], with the CR already converted to a template value
    /// (see [`Value::from_json`]). Unless [`CompiledTemplate::mutates_data`], `cr` is left as
    /// it was, so one conversion can serve several renders.
    #[allow(clippy::result_large_err)]
    pub fn render_text(&self, idx: usize, cr: &Value, crs: &[Value]) -> Result<String, TmplError> {
        let Some(t) = self.templates.get(idx) else {
            return Err(exec_error("", format!("no template with index {idx}")));
        };
        t.set.execute_text(cr, &self.limits, crs)
    }

    /// The limits (and so the run's template budget) renders of this reference run under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
}

// Compile-time guarantee for the parallel pipeline: a compiled reference is shared by threads.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Compiled>();
};

/// Parses and pre-executes every template of `reference`, collecting every problem in
/// kube-compare's order (`ParseV1Templates`/`ParseV2Templates`, §2.9): per template, parse →
/// empty-map render → v2 perField checks → kind.
pub fn compile(reference: &Reference) -> Result<Compiled, LoadError> {
    compile_owned(reference.clone())
}

/// [`compile`] taking ownership (no copy of the reference).
pub fn compile_owned(reference: Reference) -> Result<Compiled, LoadError> {
    let pending = vec![Pending::default(); reference.templates.len()];
    compile_with(reference, pending)
}

/// Problems the loader found for one template, placed where kube-compare reports them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pending {
    /// The pattern or a function file failed to load: the template is skipped (Go `continue`).
    pub skip: Option<Problem>,
    /// Unknown `fieldsToOmitRefs`: reported after the render and perField checks.
    pub omit_refs: Vec<Problem>,
}

pub(crate) fn compile_with(reference: Reference, pending: Vec<Pending>) -> Result<Compiled, LoadError> {
    // The run's template budget starts here: a reference in the repository is untrusted, and
    // its pre-executions are template work like any other.
    let limits = Limits::default();
    // Parsed once, shared by every template's set.
    let function_files = SharedFiles::new(
        reference
            .function_files
            .iter()
            .flat_map(|f| f.source.files.iter())
            .map(|f| (go_base(&f.name).to_owned(), f.text.clone()))
            .collect(),
    );
    let mut problems = Vec::new();
    let mut templates = Vec::with_capacity(reference.templates.len());
    for (idx, entry) in reference.templates.iter().enumerate() {
        let pend = pending.get(idx).cloned().unwrap_or_default();
        let span = Some(entry.span.clone());
        if let Some(p) = pend.skip {
            problems.push(p);
            continue;
        }
        let set = match parse_entry(entry, &function_files) {
            Ok(set) => set,
            Err(message) => {
                problems.push(Problem::new(message, span));
                continue;
            }
        };
        let metadata = match pre_execute(entry, &set, &limits) {
            Ok(m) => Some(m),
            Err(message) => {
                problems.push(Problem::new(
                    format!("failed to parse template {} with empty data: {message}", entry.path),
                    span.clone(),
                ));
                None
            }
        };
        if reference.version == Version::V2 {
            // kube-compare dereferences the nil metadata here when the render failed and
            // perField is set (a panic); we skip the check instead.
            if let Some(m) = &metadata
                && let Err(message) = check_per_field(entry, m)
            {
                problems.push(Problem::new(message, per_field_span(entry).or(span.clone())));
            }
        }
        problems.extend(pend.omit_refs);
        let Some(metadata) = metadata else { continue };
        let fixed = fixed_fields(&metadata);
        if fixed.kind.is_none() {
            problems.push(Problem::new(format!("template missing kind: {}", entry.path), span));
            continue;
        }
        let mutates_data = set.may_mutate_data();
        let reads = set.data_paths();
        templates.push(CompiledTemplate { entry: idx, set, metadata, fixed, mutates_data, reads });
    }
    if !problems.is_empty() {
        return Err(LoadError::located(&reference.path, &reference.text, problems));
    }
    Ok(Compiled { reference, templates, limits })
}

/// Go's `template.New(base(path)).ParseFS(fsys, path)` then `ParseFS(function files…)`.
///
/// Every matched file is parsed as a template named after its base name; the one named like
/// the set is the main template (§3.1). The error is kube-compare's message.
fn parse_entry(entry: &TemplateEntry, function_files: &SharedFiles) -> Result<TemplateSet, String> {
    let base = entry.base_name();
    let (main, others) = split_main(base, &entry.source.files);
    let own: Vec<(&str, &str)> = others.iter().map(|f| (go_base(&f.name), f.text.as_str())).collect();
    TemplateSet::parse_shared(base, main, &own, function_files).map_err(|e| {
        let own = e.file == base || own.iter().any(|(n, _)| *n == e.file);
        if own || function_files.is_empty() {
            format!("an error occurred while parsing template: {} specified in the config. error: {e}", entry.path)
        } else {
            format!("an error occurred while parsing the template function files specified in the config. error: {e}")
        }
    })
}

/// The main template's text (the last matched file named like the set, as later `Parse`
/// calls replace it) and the other matched files.
fn split_main<'a>(base: &str, files: &'a [SourceFile]) -> (&'a str, Vec<&'a SourceFile>) {
    let main = files.iter().rposition(|f| go_base(&f.name) == base);
    let others = files
        .iter()
        .enumerate()
        .filter(|(i, f)| Some(*i) != main && go_base(&f.name) != base)
        .map(|(_, f)| f)
        .collect();
    (main.map_or("", |i| files[i].text.as_str()), others)
}

/// The empty-map render parsed as YAML (§3.2, §3.6); the error is kube-compare's text after
/// `with empty data: `.
fn pre_execute(entry: &TemplateEntry, set: &TemplateSet, limits: &Limits) -> Result<Json, String> {
    let base = entry.base_name();
    if !entry.source.files.iter().any(|f| go_base(&f.name) == base) {
        // A glob whose matches have other names leaves the set's own template undefined.
        return Err(format!(
            "failed to constuct template: template: {base}: {base:?} is an incomplete or empty template"
        ));
    }
    let empty = Value::from_json(&Json::Object(serde_json::Map::new()));
    let rendered = set.execute(&empty, limits, &[]).map_err(|e| format!("failed to constuct template: {e}"))?;
    parse_rendered(&entry.path, &rendered.text)
}

/// kube-compare's `Exec` after execution: strip `<no value>`, take the first YAML document,
/// require a mapping (sigs.k8s.io/yaml into `map[string]any`).
pub fn parse_rendered(identifier: &str, raw: &str) -> Result<Json, String> {
    let text = raw.replace(NO_VALUE, "");
    let fail = |e: String| {
        format!(
            "template: {identifier} isn't a yaml file after injection. yaml unmarshal error: {e}. The Template After Execution: {raw}"
        )
    };
    let stream = driftlint_yaml::parse_stream(&text);
    let first = match (stream.documents.into_iter().next(), stream.error) {
        (Some(doc), _) => Some(doc.root.to_json()),
        (None, Some(e)) => {
            return Err(fail(format!("error converting YAML to JSON: yaml: line {}: {}", e.line, e.message)));
        }
        (None, None) => None,
    };
    match first {
        // An empty document leaves Go's map empty, without error.
        None | Some(Json::Null) => Ok(Json::Object(serde_json::Map::new())),
        Some(m @ Json::Object(_)) => Ok(m),
        Some(other) => Err(fail(format!(
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            json_kind(&other)
        ))),
    }
}

/// Go `encoding/json`'s name for a JSON value in `cannot unmarshal X into …`.
fn json_kind(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "bool",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// §3.6: the fixed correlation fields.
fn fixed_fields(metadata: &Json) -> Fixed {
    let get = |path: &[&str]| -> Option<String> {
        let mut cur = metadata;
        for seg in path {
            cur = cur.as_object()?.get(*seg)?;
        }
        cur.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
    };
    Fixed {
        api_version: get(&["apiVersion"]),
        kind: get(&["kind"]),
        name: get(&["metadata", "name"]),
        namespace: get(&["metadata", "namespace"]),
    }
}

/// §2.7 v2 perField load checks: only the first failure is reported. kube-compare walks a
/// map (last entry per path wins) in random order; we use first-appearance order.
fn check_per_field(entry: &TemplateEntry, metadata: &Json) -> Result<(), String> {
    let mut funcs: Vec<(&str, &str)> = Vec::new();
    for pf in &entry.config.per_field {
        match funcs.iter_mut().find(|(p, _)| *p == pf.path_to_key) {
            Some(slot) => slot.1 = &pf.inline_diff_func,
            None => funcs.push((&pf.path_to_key, &pf.inline_diff_func)),
        }
    }
    for (path, func) in funcs {
        let segments = parse_path_to_key(path).map_err(|e| {
            format!(
                "reference contains template with config per field with pathToKey that is not in supoorted format. path: {path}. error: {e}"
            )
        })?;
        if InlineDiff::from_name(func).is_none() {
            return Err(format!(
                "reference contains template with config per field with InlineDiffFunc that does not exist. InlineDiffFunc: {func}"
            ));
        }
        // Absent (e.g. inside a `range`): checked at runtime instead.
        if let Some(value) = nested_string(metadata, &segments)?
            && let Err(e) = validate_inline(func, value)
        {
            return Err(format!(
                "reference contains template with config per field with InlineDiffFunc that fails validation. InlineDiffFunc: {func}. error: {e}"
            ));
        }
    }
    Ok(())
}

/// Where to point a perField problem: the first perField entry.
fn per_field_span(entry: &TemplateEntry) -> Option<Range<usize>> {
    entry.config.per_field.first().map(|p| p.span.clone())
}

/// kube-compare's `NestedString` over `NestedField` (maps by key, lists by decimal index):
/// absent is `Ok(None)`, a non-string or a scalar in the way is its accessor error.
fn nested_string<'a>(obj: &'a Json, path: &[String]) -> Result<Option<&'a str>, String> {
    let json_path = |n: usize| format!(".{}", path[..n].join("."));
    let mut cur = obj;
    for (i, seg) in path.iter().enumerate() {
        cur = match cur {
            Json::Null => return Ok(None),
            Json::Object(m) => match m.get(seg) {
                Some(v) => v,
                None => return Ok(None),
            },
            Json::Array(a) => {
                let index = go_atoi(seg).map_err(|e| {
                    format!(
                        "{} accessor error: found slice but index {seg} could not be converted into an int: {e}",
                        json_path(i + 1)
                    )
                })?;
                match usize::try_from(index).ok().and_then(|i| a.get(i)) {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
            other => {
                return Err(format!(
                    "{} accessor error: {} is of the type {}, expected map[string]any or []any",
                    json_path(i + 1),
                    go_print(other),
                    go_type(other)
                ));
            }
        };
    }
    match cur {
        Json::String(s) => Ok(Some(s)),
        other => Err(format!(
            "{} accessor error: {} is of the type {}, expected string",
            json_path(path.len()),
            go_print(other),
            go_type(other)
        )),
    }
}

/// Go's `strconv.Atoi`, with its error text.
fn go_atoi(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("strconv.Atoi: parsing {s:?}: invalid syntax"));
    }
    s.parse::<i64>().map_err(|_| format!("strconv.Atoi: parsing {s:?}: value out of range"))
}

/// Go `%v` of a value decoded by sigs.k8s.io/yaml (numbers are `float64`).
fn go_print(v: &Json) -> String {
    let as_go = match v {
        Json::Number(n) => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        other => Value::from_json(other),
    };
    driftlint_gotmpl::fmt::sprint_value(&as_go)
}

/// Go `%T` of such a value.
fn go_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "<nil>",
        Json::Bool(_) => "bool",
        Json::Number(_) => "float64",
        Json::String(_) => "string",
        Json::Array(_) => "[]interface {}",
        Json::Object(_) => "map[string]interface {}",
    }
}

/// The inline diff function's `Validate` (§5.5), shared with the runtime pass so load and
/// compare word RE2 errors identically.
fn validate_inline(func: &str, pattern: &str) -> Result<(), String> {
    match InlineDiff::from_name(func) {
        Some(f) => f.validate(pattern),
        None => Ok(()),
    }
}

fn exec_error(template: &str, message: String) -> TmplError {
    TmplError {
        kind: ErrorKind::Exec,
        template: template.to_owned(),
        file: template.to_owned(),
        line: 0,
        col: None,
        context: None,
        message,
        span: None,
    }
}
