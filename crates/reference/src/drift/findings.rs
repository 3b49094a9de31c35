//! Findings: the engine's per-CR facts and the reference's validation summary turned into
//! located [`Diagnostic`]s, one rule id per kind of problem.
//!
//! Severities here are the defaults; `rules:` in the configuration changes them afterwards
//! ([`super::suppress`]). This module decides *what* is reported and *where*; it does not
//! filter, suppress or sort.

use driftlint_gotmpl::Value as GoValue;
use serde_json::Value;

use super::locate;
use crate::compare::FieldDiff;
use crate::engine::{Comparison, CrResult, Engine, Status, View};
use crate::report::summary::{self, component_rule};
use crate::{Compiled, LoadError};
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::document::{Collection, Document, Identity};
use driftlint_core::input::SourcePath;
use driftlint_core::locate::FieldDiffKind;
use driftlint_core::locate::{Files, manifest_location, node_range, origin_help};

/// One diagnostic per problem of a reference that failed to load or compile.
pub fn invalid_reference(err: &LoadError, severity: Severity) -> Vec<Diagnostic> {
    err.problems
        .iter()
        .map(|p| {
            let d = Diagnostic::new(
                Rule::InvalidReference,
                severity,
                SourcePath::File(err.path.clone()),
                p.span.clone(),
                p.message.clone(),
            );
            // The message is Go's, word for word (kube-compare prints it); say why a path that
            // exists can still match nothing.
            if p.message.contains("pattern matches no files") {
                d.with_help(
                    "only files inside the reference directory are read: absolute paths, `..` and symlinks \
                     leading out of it match nothing",
                )
            } else {
                d
            }
        })
        .collect()
}

/// Every finding about the compared objects: field drift, unmatched and ambiguous objects,
/// comparison failures.
pub fn object_findings(
    engine: &Engine<'_>,
    comparison: &Comparison,
    coll: &Collection,
    files: &mut Files,
    view: Option<&View>,
) -> Vec<Diagnostic> {
    // What lookups see when a differing object's template is rendered again for locations:
    // fresh values of the members (so the render changes nothing), as omitted so far; built
    // only when a render needs them. Only members can be returned by a lookup (see `View`).
    let lookups = std::cell::LazyCell::new(|| match view.and_then(View::fresh_values) {
        Some(values) => values,
        None if engine.uses_lookups() => {
            comparison.crs.iter().filter(|c| engine.in_view(&c.object)).map(|c| GoValue::from_json(&c.object)).collect()
        }
        None => Vec::new(),
    });
    let mut out = Vec::new();
    for result in &comparison.results {
        let Some(doc) = coll.documents.get(result.cr) else { continue };
        let first = out.len();
        object_findings_of(engine, comparison, coll, files, &lookups, result, doc, &mut out);
        let source = &coll.sources[doc.source];
        for d in &mut out[first..] {
            if let Some(help) = origin_help(doc, &d.primary.path) {
                d.help.push(help);
            }
            // Located in the renderer's source (a chart template, a kustomize origin file):
            // the rendered line on standard input goes with it.
            if d.primary.path != source.path && source.path == SourcePath::Stdin && doc.origin.is_some() {
                let pointer = d.field.as_deref().unwrap_or("/metadata/name");
                let range = node_range(&doc.node, pointer, FieldDiffKind::Changed);
                d.secondary.push(driftlint_core::diagnostic::Label {
                    path: source.path.clone(),
                    range: Some(range),
                    message: Some(driftlint_core::locate::AS_RENDERED.into()),
                });
            }
        }
    }
    out
}

/// The findings of one compared object, appended to `out`.
#[allow(clippy::too_many_arguments)]
fn object_findings_of(
    engine: &Engine<'_>,
    comparison: &Comparison,
    coll: &Collection,
    files: &mut Files,
    lookups: &std::cell::LazyCell<Vec<GoValue>, impl FnOnce() -> Vec<GoValue>>,
    result: &CrResult,
    doc: &Document,
    out: &mut Vec<Diagnostic>,
) {
    let compiled = engine.compiled();
    // Made only for a finding: most objects have none.
    let id = || doc.identity.cr_id();
    // Joined in one allocation: most of a large run's findings are such messages.
    let what = || {
        let Identity { kind, namespace, name, .. } = &doc.identity;
        let slash = if namespace.is_empty() { "" } else { "/" };
        [kind.as_str(), " `", namespace, slash, name, "`"].concat()
    };
    let anchor = |files: &mut Files| object_anchor(doc, coll, files);
    match &result.status {
        Status::Unmatched => {
            let (path, range) = anchor(files);
            out.push(
                Diagnostic::new(
                    Rule::UnmatchedResource,
                    Rule::UnmatchedResource.default_severity(),
                    path,
                    Some(range),
                    ["no reference template matches ", &what()].concat(),
                )
                .with_object(id(), None),
            );
        }
        Status::AllDoNotMatch => {
            let (path, range) = anchor(files);
            out.push(
                Diagnostic::new(
                    Rule::UnmatchedResource,
                    // A variant the rules table documents: the reference declined it on purpose.
                    Severity::Note,
                    path,
                    Some(range),
                    format!("every candidate template declined {} (doNotMatch)", what()),
                )
                .with_object(id(), None),
            );
        }
        Status::Downgraded { warning } | Status::Failed(warning) => {
            let (path, range) = anchor(files);
            let first = warning.lines().next().unwrap_or_default();
            let mut d = Diagnostic::of(
                Rule::TemplateRenderError,
                path,
                Some(range),
                format!("cannot compare {}: {first}", what()),
            )
            .with_object(id(), None);
            for t in failed_templates(result, compiled) {
                d = d.with_help(format!("candidate template: {t}"));
            }
            out.push(d);
        }
        Status::Compared(c) => {
            let ambiguous = result.ambiguous();
            if ambiguous.len() > 1 {
                let names: Vec<String> =
                    ambiguous.iter().filter_map(|&t| compiled.entry(t)).map(|e| format!("`{}`", e.path)).collect();
                let (path, range) = anchor(files);
                out.push(
                    Diagnostic::new(Rule::AmbiguousCorrelation, Rule::AmbiguousCorrelation.default_severity(), path, Some(range),
                        format!("{} matches {} templates equally well: {}; the first was used", what(), names.len(), names.join(", ")))
                        .with_help("pair it with one template in a diff config (`diff-config:`, kube-compare's correlationSettings)")
                        .with_object(id(), None),
                );
            }
            if ambiguous.len() <= 1
                && let Some(d) = overlap_note(result, c.template, compiled, what, || anchor(files))
            {
                out.push(d.with_object(id(), None));
            }
            let diffs = c.outcome.field_diffs();
            if diffs.is_empty() {
                return;
            }
            let rendered =
                comparison.crs.get(result.cr).and_then(|cr| compiled.render(c.template, &cr.object, lookups).ok());
            let tree = rendered.as_ref().map(locate::RenderedTemplate::new);
            let id = id();
            for diff in &diffs {
                out.push(field_finding(doc, coll, compiled, c.template, tree.as_ref(), diff, &id, files));
            }
        }
    }
}

/// The reference's overlapping definitions (kube-compare's load-time warning, §4.7) as they
/// affect one object with differences: several templates were candidates for it and the one
/// with the fewest differences was used. A note, since the choice is well defined (a tie is
/// the `ambiguous-correlation` warning instead), and only for objects with differences, where
/// the choice explains what is reported.
fn overlap_note(
    result: &CrResult,
    winner: usize,
    compiled: &Compiled,
    what: impl FnOnce() -> String,
    anchor: impl FnOnce() -> (SourcePath, std::ops::Range<usize>),
) -> Option<Diagnostic> {
    use crate::engine::TriedResult;
    let scored: Vec<(usize, Option<usize>)> = result
        .tried
        .iter()
        .filter_map(|t| match t.result {
            TriedResult::Score(s) => Some((t.template, s)),
            _ => None,
        })
        .collect();
    // Without differences the choice changed nothing a reader sees.
    if scored.len() < 2 || scored.iter().any(|&(t, s)| t == winner && s == Some(0)) {
        return None;
    }
    let name = |t: usize| compiled.entry(t).map_or_else(|| format!("#{t}"), |e| format!("`{}`", e.path));
    let others: Vec<String> = scored.iter().filter(|(t, _)| *t != winner).map(|&(t, _)| name(t)).collect();
    let (path, range) = anchor();
    Some(
        Diagnostic::new(
            Rule::AmbiguousCorrelation,
            // A variant the rules table documents: a choice by differences, not a tie.
            Severity::Note,
            path,
            Some(range),
            format!(
                "{} could be compared with {} templates; {} was used, having the fewest differences",
                what(),
                scored.len(),
                name(winner)
            ),
        )
        .with_help(format!(
            "the reference has overlapping definitions: {} also matched; pair the object with one template in a diff config to choose",
            others.join(", ")
        )),
    )
}

/// The names of the templates whose comparison failed for a CR.
fn failed_templates<'c>(result: &CrResult, compiled: &'c Compiled) -> Vec<&'c str> {
    use crate::engine::TriedResult;
    result
        .tried
        .iter()
        .filter(|t| matches!(t.result, TriedResult::Error(_)))
        .filter_map(|t| compiled.entry(t.template).map(|e| e.path.as_str()))
        .collect()
}

/// Where a finding about a whole object points: its `metadata.name`, the line a reader
/// recognises the object by (the object's start when it has no name).
fn object_anchor(doc: &Document, coll: &Collection, files: &mut Files) -> (SourcePath, std::ops::Range<usize>) {
    let source = &coll.sources[doc.source];
    manifest_location(doc, source, "/metadata/name", FieldDiffKind::Changed, files)
}

#[allow(clippy::too_many_arguments)]
fn field_finding(
    doc: &Document,
    coll: &Collection,
    compiled: &Compiled,
    template: usize,
    rendered: Option<&locate::RenderedTemplate<'_>>,
    diff: &FieldDiff,
    id: &str,
    files: &mut Files,
) -> Diagnostic {
    let source = &coll.sources[doc.source];
    let (path, range) = manifest_location(doc, source, &diff.pointer, diff.kind, files);
    let entry = compiled.entry(template);
    let template_name = entry.map_or("", |e| e.path.as_str());
    let field = &diff.pointer;
    let (rule, message, label) = match diff.kind {
        FieldDiffKind::Changed => (
            Rule::ValueDrift,
            format!(
                "`{field}` is {}, the reference expects {}",
                show(diff.actual.as_ref()),
                show(diff.expected.as_ref())
            ),
            "expected value set here",
        ),
        FieldDiffKind::Missing => (
            Rule::MissingField,
            format!("`{field}` is missing; the reference expects {}", show(diff.expected.as_ref())),
            "required here",
        ),
        FieldDiffKind::Extra => {
            (Rule::UnexpectedField, format!("`{field}` is not in reference template `{template_name}`"), "")
        }
    };
    let mut d = Diagnostic::new(rule, rule.default_severity(), path, Some(range), message);
    // (A finding on standard input moved to the renderer's source gets its fix moved there.)
    if d.primary.path == source.path || source.path == SourcePath::Stdin {
        let expected = diff.expected.as_ref();
        d.fix = super::fix::of_field(diff.kind, doc, source, compiled, template, rendered, field, expected, files);
    }
    if let Some(r) = rendered {
        if diff.kind != FieldDiffKind::Extra {
            if let Some((tpath, trange)) = r.location(compiled, template, &diff.pointer, diff.kind, files) {
                d = d.with_secondary(SourcePath::File(tpath), Some(trange), label);
            }
        } else if let Some((tpath, trange, _)) = r.nearest_ancestor(compiled, template, &diff.pointer, files) {
            d = d.with_secondary(SourcePath::File(tpath), Some(trange), format!("the template has no `{field}`"));
        }
    }
    if let Some(e) = entry {
        let desc = e.effective_description.trim();
        d = d.with_help(if desc.is_empty() {
            format!("template `{}`", e.path)
        } else {
            format!("template `{}`: {desc}", e.path)
        });
    }
    d.with_help(format!("field: {field}")).with_object(id, Some(field.clone()))
}

/// A value as shown in a message: strings in backticks, anything else as compact JSON,
/// shortened so that a message stays one readable line.
fn show(v: Option<&Value>) -> String {
    let text = match v {
        None => return "absent".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let text = text.replace('\n', "\\n");
    if text.chars().count() > 60 {
        format!("`{}…`", text.chars().take(57).collect::<String>())
    } else {
        format!("`{text}`")
    }
}

/// Missing CRs and broken group rules, from kube-compare's validation summary (§2.4, §2.5):
/// a missing CR points at its template entry in `metadata.yaml`, a broken group at its
/// component.
pub fn summary_findings(compiled: &Compiled, comparison: &Comparison) -> Vec<Diagnostic> {
    let r = &compiled.reference;
    let meta = SourcePath::File(r.path.clone());
    let paths: Vec<&str> = compiled.templates.iter().map(|t| r.templates[t.entry].path.as_str()).collect();
    let count_of = |path: &str| -> usize {
        paths.iter().zip(&comparison.match_count).filter(|(p, _)| **p == path).map(|(_, c)| *c).sum()
    };
    let mut out = Vec::new();
    for part in &r.parts {
        for comp in &part.components {
            let rule = component_rule(compiled, &part.name, comp);
            let (issues, _) = summary::validation_issues(std::slice::from_ref(&rule), count_of);
            let Some(issue) = issues.get(&part.name).and_then(|p| p.get(&comp.name)) else { continue };
            let desc = if comp.description.is_empty() { &part.description } else { &comp.description };
            if issue.msg == "Missing CRs" {
                for path in &issue.crs {
                    let entry = comp.template_indices().into_iter().map(|i| &r.templates[i]).find(|e| &e.path == path);
                    let mut d = Diagnostic::of(
                        Rule::MissingResource,
                        meta.clone(),
                        entry.map(|e| e.span.clone()).or(Some(comp.span.clone())),
                        format!(
                            "no object matches required template `{path}` (part `{}`, component `{}`)",
                            part.name, comp.name
                        ),
                    )
                    .with_object(path.clone(), None);
                    if let Some(desc) = entry.map(|e| e.effective_description.as_str()).filter(|s| !s.is_empty()) {
                        d = d.with_help(desc.to_string());
                    }
                    out.push(d);
                }
                continue;
            }
            let list = issue.crs.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
            let message = match issue.msg.as_str() {
                "One of the following is required" => {
                    format!("component `{}` needs one of {list}; none is present", comp.name)
                }
                "Should only match one but matched" => {
                    format!("component `{}` allows one of its templates, but {list} all matched", comp.name)
                }
                _ => format!("component `{}` forbids {list}, but they matched", comp.name),
            };
            let mut d = Diagnostic::of(Rule::CardinalityViolation, meta.clone(), Some(comp.span.clone()), message)
                .with_object(format!("{}/{}", part.name, comp.name), None);
            if !desc.is_empty() {
                d = d.with_help(desc.clone());
            }
            out.push(d);
        }
    }
    out
}
