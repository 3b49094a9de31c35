//! `policy-cases:`: Fybrik scenarios replayed in `check` against the `adminconfig` policies,
//! so that a change of the policies shows its effect in review.
//!
//! A cases directory holds EvaluatorInputs (`NAME.input.json`, `.yaml` or `.yml`), the
//! infrastructure data they share (`data.json`/`data.yaml`/`data.yml`, optional) and, for any
//! scenario, the decisions it should get (`NAME.expected.json`/`.yaml`/`.yml`: an
//! EvaluatorOutput, or its `ConfigDecisions` alone). A conflict is a `policy-conflict` at the
//! `config` rules that made the conflicting decisions (found by the policy IDs they declare);
//! a decision that differs from the expected one is a `policy-decision-changed` at the
//! capability in the expected file.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::fybrik::{self, Outcome};
use super::{Module, Policies, PolicyError, load};
use crate::diagnostics::{error_diagnostic, line_range};
use driftlint_core::confine::{Boundary, confine};
use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::input::SourcePath;
use driftlint_core::locate::Files;

const EXTS: [&str; 3] = ["json", "yaml", "yml"];
/// The most scenarios one directory may hold.
const MAX_CASES: usize = 1_000;

/// Replays every scenario of `dir`.
pub fn run(
    dir: &Path,
    modules: &[Module],
    options: &super::engine::Options,
    files: &mut Files,
) -> Result<Vec<Diagnostic>, PolicyError> {
    let read_err = |message: String| PolicyError::Read { path: dir.display().to_string(), message };
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| read_err(e.to_string()))?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    if names.len() > MAX_CASES * 3 {
        return Err(read_err(format!("more than {MAX_CASES} scenarios")));
    }
    let find = |stem: &str| EXTS.iter().map(|e| format!("{stem}.{e}")).find(|n| names.contains(n));
    // Every file is confined to the repository holding the directory: a case file linked to
    // `~/.kube/config` is refused (an `io-error` at the file), never read.
    let boundary = Boundary::around(dir);
    let mut out = Vec::new();
    let data = match find("data") {
        Some(n) => match read_doc(&dir.join(n), &boundary, files)? {
            Ok((v, _)) => Some(v),
            // The scenarios' decisions depend on the data: none is replayed without it.
            Err(refused) => return Ok(vec![refused]),
        },
        None => None,
    };
    let mut policies = match Policies::compile(modules.to_vec(), data, options, super::engine::RegoVersion::V1) {
        Ok(p) => p,
        // The conftest pass reports the same compile error.
        Err(_) => return Ok(Vec::new()),
    };
    for name in &names {
        let Some(scenario) = EXTS.iter().find_map(|e| name.strip_suffix(&format!(".input.{e}"))) else { continue };
        let input_path = dir.join(name);
        let (input, _) = match read_doc(&input_path, &boundary, files)? {
            Ok(read) => read,
            Err(refused) => {
                out.push(refused);
                continue;
            }
        };
        let decided = fybrik::decide(&mut policies, &input);
        super::print::show(&policies.take_prints());
        let outcome = match decided {
            Ok(o) => o,
            Err(e) => {
                let mut d = error_diagnostic(&e, modules, None);
                d.message = format!("scenario `{scenario}`: {}", d.message);
                out.push(d.with_help(format!("scenario input: {}", input_path.display())));
                continue;
            }
        };
        if let Some(c) = &outcome.conflict {
            out.push(conflict(scenario, &input_path, c, &policies));
        }
        if let Some(expected_name) = find(&format!("{scenario}.expected")) {
            let path = dir.join(expected_name);
            match read_doc(&path, &boundary, files)? {
                Ok((expected, text)) => out.extend(changes(scenario, &path, &text, &expected, &outcome)),
                Err(refused) => out.push(refused),
            }
        }
    }
    Ok(out)
}

/// The document at `path` and its text, or the `io-error` of a path [`confine`] refused (at
/// the path as named; the refusal names it relative to the repository).
fn read_doc(
    path: &Path,
    boundary: &Boundary,
    files: &mut Files,
) -> Result<Result<(Value, String), Diagnostic>, PolicyError> {
    let shown = path.display().to_string();
    let real = match confine(path, boundary) {
        Ok(real) => real,
        Err(refusal) => {
            let sp = SourcePath::File(path.to_path_buf());
            return Ok(Err(Diagnostic::error(Rule::IoError, sp, None, refusal.to_string())));
        }
    };
    let text = driftlint_core::input::read_bounded_to_string(&real, driftlint_core::input::MAX_FILE_BYTES)
        .map_err(|e| PolicyError::Read { path: shown.clone(), message: e.to_string() })?;
    let value = load::parse_document(&shown, text.as_bytes())?;
    files.preset(path.to_path_buf(), text.clone());
    Ok(Ok((value, text)))
}

/// A `policy-conflict` at the rule of the decision that conflicted, with the rules of the
/// decisions it conflicted with as secondary labels.
fn conflict(scenario: &str, input: &Path, c: &fybrik::Conflict, policies: &Policies) -> Diagnostic {
    let mut ids = c.stored_ids.clone();
    ids.push(c.new_id.clone());
    let message = format!("scenario `{scenario}`: `{}`: {} ({})", c.capability, c.reason, ids.join("; "));
    let (path, range) = rule_of(policies, &c.new_id);
    let mut d = Diagnostic::error(Rule::PolicyConflict, path, range, message);
    for id in &c.stored_ids {
        let (p, r) = rule_of(policies, id);
        d = d.with_secondary(p, r, format!("decision `{id}`"));
    }
    d.with_help(format!("scenario input: {}", input.display()))
}

/// The `config` rule in package `adminconfig` that declares policy `id` (the rule around
/// the first `"id"` literal), else the first `config` rule.
fn rule_of(policies: &Policies, id: &str) -> (SourcePath, Option<Range<usize>>) {
    let rules = policies.rules_in("adminconfig");
    let configs: Vec<_> = rules.iter().filter(|d| d.name == "config").collect();
    let literal = serde_json::to_string(id).unwrap_or_default();
    for m_index in configs.iter().map(|d| d.module).collect::<BTreeSet<_>>() {
        let Some(m) = policies.modules().get(m_index) else { continue };
        let Some(at) = (!id.is_empty()).then(|| m.text.find(&literal)).flatten() else { continue };
        let line = u32::try_from(m.text[..at].matches('\n').count() + 1).unwrap_or(u32::MAX);
        if let Some(rule) = configs.iter().filter(|d| d.module == m_index && d.line <= line).max_by_key(|d| d.line) {
            return (SourcePath::File(PathBuf::from(&m.path)), Some(line_range(&m.text, rule.line)));
        }
    }
    match configs.first().and_then(|d| policies.modules().get(d.module).map(|m| (m, d.line))) {
        Some((m, line)) => (SourcePath::File(PathBuf::from(&m.path)), Some(line_range(&m.text, line))),
        None => (SourcePath::File(PathBuf::new()), None),
    }
}

/// `policy-decision-changed` findings: each capability whose decision differs from the
/// expected one, at its key in the expected file (else the file's first line).
fn changes(scenario: &str, path: &Path, text: &str, expected: &Value, outcome: &Outcome) -> Vec<Diagnostic> {
    let (expected_valid, decisions, prefix) = match expected.get("ConfigDecisions") {
        Some(d) => (expected.get("Valid").and_then(Value::as_bool).unwrap_or(true), d.clone(), "/ConfigDecisions"),
        None => (true, expected.clone(), ""),
    };
    let at = |cap: Option<&str>| -> Option<Range<usize>> {
        let stream = driftlint_yaml::parse_stream(text);
        let root = &stream.documents.first()?.root;
        let pointer = match cap {
            Some(c) => format!("{prefix}/{}", c.replace('~', "~0").replace('/', "~1")),
            None => String::new(),
        };
        match root.pointer_entry(&pointer) {
            Some((Some(k), _)) => Some(k.span.clone()),
            _ => Some(line_range(text, 1)),
        }
    };
    let diag = |cap: Option<&str>, message: String| {
        Diagnostic::error(Rule::PolicyDecisionChanged, SourcePath::File(path.to_path_buf()), at(cap), message)
    };
    if outcome.conflict.is_some() {
        // Reported as a conflict; the partial decisions say nothing.
        return Vec::new();
    }
    if !expected_valid {
        return vec![diag(None, format!("scenario `{scenario}`: a conflict was expected, the decisions now merge"))];
    }
    let now = fybrik::decisions_map(outcome);
    let want: BTreeMap<String, Value> =
        decisions.as_object().map(|o| o.clone().into_iter().collect()).unwrap_or_default();
    let caps: BTreeSet<&String> = now.keys().chain(want.keys()).collect();
    let mut out = Vec::new();
    for cap in caps {
        let (a, b) = (want.get(cap).map(summary), now.get(cap).map(summary));
        if a == b {
            continue;
        }
        let show = |s: &Option<String>| s.clone().unwrap_or_else(|| "not decided".into());
        out.push(diag(
            want.contains_key(cap).then_some(cap.as_str()),
            format!("scenario `{scenario}`: `{cap}` was {}; now {}", show(&a), show(&b)),
        ));
    }
    out
}

/// A decision in a form that ignores order (clusters, `;`-joined policy IDs) and absent vs
/// empty fields, as the Fybrik corpus compares them.
fn summary(d: &Value) -> String {
    let deploy = d.get("deploy").and_then(Value::as_str).unwrap_or("Unknown");
    let r = d.get("restrictions");
    let clusters = r.and_then(|r| r.get("clusters")).and_then(Value::as_array).map(|c| {
        let set: BTreeSet<String> =
            c.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)).collect();
        set.into_iter().collect::<Vec<_>>().join(", ")
    });
    let modules: BTreeMap<String, String> = r
        .and_then(|r| r.get("modules"))
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string))).collect())
        .unwrap_or_default();
    let ids: BTreeSet<&str> =
        d.pointer("/policy/ID").and_then(Value::as_str).unwrap_or("").split(';').filter(|s| !s.is_empty()).collect();
    let mut s = format!("deploy {deploy}");
    if let Some(c) = clusters {
        s.push_str(&format!(", clusters [{c}]"));
    }
    if !modules.is_empty() {
        let m: Vec<String> = modules.iter().map(|(k, v)| format!("{k}={v}")).collect();
        s.push_str(&format!(", modules {{{}}}", m.join(", ")));
    }
    if !ids.is_empty() {
        s.push_str(&format!(" (policies {})", ids.into_iter().collect::<Vec<_>>().join(", ")));
    }
    s
}
