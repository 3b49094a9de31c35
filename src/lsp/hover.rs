//! Hover and go-to-definition over a document's last check.
//!
//! On a finding's range, hover shows the finding and its rule's explanation (the text of
//! `driftlint explain`, from the rule table); a drift finding names the value the reference
//! expects and the template line that set it, which go-to-definition opens. On any other
//! field a matched template sets, hover shows the value the template renders for it and the
//! template line ([`super::fields`]), which definition opens. Elsewhere in an object that
//! matched a reference template, hover names the template and definition opens it. Both read only what the check found: a text changed since its check has no answer
//! until the next one (its byte ranges would point at other text).

use std::fmt::Write as _;
use std::path::Path;

use driftlint_core::diagnostic::{Diagnostic, SourcePath};
use lsp_types as lsp;

use super::convert::{self, LineIndex};
use super::documents::{Checked, Document};

/// The findings of the last check whose range holds the position, unsuppressed.
fn findings_at<'c>(doc: &Document, checked: &'c Checked, position: lsp::Position) -> Vec<&'c Diagnostic> {
    let offset = LineIndex::new(&doc.text).offset(position);
    checked
        .diagnostics
        .iter()
        .filter(|d| d.suppressed.is_none())
        .filter(|d| d.primary.range.as_ref().is_some_and(|r| r.start <= offset && offset <= r.end))
        .collect()
}

/// The template line a finding's secondary label points at, as a location.
fn template_location(checked: &Checked, d: &Diagnostic) -> Option<(lsp::Location, usize)> {
    d.secondary.iter().find_map(|label| {
        let SourcePath::File(path) = &label.path else { return None };
        let path = convert::absolute(path);
        let text = checked.texts.get(&path)?;
        let index = LineIndex::new(text);
        let range = index.range(label.range.as_ref()?);
        let line = range.start.line as usize + 1;
        Some((lsp::Location { uri: convert::uri_of(&path)?, range }, line))
    })
}

/// The object of the checked text at `position` and the templates it matched.
fn object_at<'c>(checked: &'c Checked, path: &Path, position: lsp::Position) -> Option<&'c [String]> {
    let line = position.line as usize + 1;
    checked
        .objects
        .iter()
        .filter(|o| matches!(&o.path, SourcePath::File(p) if convert::absolute(p) == path))
        .find(|o| o.lines.contains(&line))
        .map(|o| o.templates.as_slice())
}

/// The field a template sets at `position`, innermost first.
fn field_at<'c>(doc: &Document, checked: &'c Checked, position: lsp::Position) -> Option<&'c super::fields::Field> {
    let offset = LineIndex::new(&doc.text).offset(position);
    checked
        .fields
        .iter()
        .filter(|f| f.range.start <= offset && offset <= f.range.end)
        .min_by_key(|f| f.range.end - f.range.start)
}

/// A field's template bytes as a location, and the template's line.
fn field_location(checked: &Checked, field: &super::fields::Field) -> Option<(lsp::Location, usize)> {
    let text = checked.texts.get(&field.template)?;
    let range = LineIndex::new(text).range(&field.template_range);
    let line = range.start.line as usize + 1;
    Some((lsp::Location { uri: convert::uri_of(&field.template)?, range }, line))
}

pub fn hover(doc: &Document, path: &Path, position: lsp::Position) -> Option<lsp::Hover> {
    let checked = doc.checked_now()?;
    let found = findings_at(doc, checked, position);
    let mut out = String::new();
    if found.is_empty()
        && let Some(field) = field_at(doc, checked, position)
        && let Some((location, line)) = field_location(checked, field)
    {
        let shown = shown_path(&field.template, checked);
        let what = if field.fixed { "a fixed value of the template" } else { "rendered for this object" };
        let _ = write!(
            out,
            "The reference expects `{}` at `{}` ({what}).\n\nSet by the reference template at [`{shown}:{line}`]({}#L{line}).",
            field.expected.replace('`', "'"),
            field.pointer,
            location.uri.as_str()
        );
        return Some(markdown(out, Some(LineIndex::new(&doc.text).range(&field.range))));
    }
    if found.is_empty() {
        let templates = object_at(checked, path, position).filter(|t| !t.is_empty())?;
        let names: Vec<String> = templates.iter().map(|t| format!("`{t}`")).collect();
        let verb = if templates.len() == 1 { "matches the reference template" } else { "was tried with the templates" };
        let _ = write!(out, "This object {verb} {}.", names.join(", "));
        return Some(markdown(out, None));
    }
    let mut explained = Vec::new();
    for d in &found {
        let _ = writeln!(out, "**{}** ({}): {}\n", d.rule.id(), d.severity.as_str(), d.message);
        for help in &d.help {
            let _ = writeln!(out, "{help}\n");
        }
        if let Some((location, line)) = template_location(checked, d) {
            let shown = convert::path_of(&location.uri).map(|p| shown_path(&p, checked)).unwrap_or_default();
            let _ = writeln!(
                out,
                "Set by the reference template at [`{shown}:{line}`]({}#L{line}).\n",
                location.uri.as_str()
            );
        }
    }
    for d in &found {
        if !explained.contains(&d.rule) {
            explained.push(d.rule);
            out.push_str("---\n\n");
            out.push_str(&driftlint_core::rules::explain_markdown(d.rule, 3));
        }
    }
    let range = found[0].primary.range.as_ref().map(|r| LineIndex::new(&doc.text).range(r));
    Some(markdown(out, range))
}

/// A template's path as a reader knows it: below the reference's directory when it is there.
fn shown_path(path: &Path, checked: &Checked) -> String {
    checked.reference_dir.as_deref().and_then(|dir| path.strip_prefix(dir).ok()).unwrap_or(path).display().to_string()
}

fn markdown(value: String, range: Option<lsp::Range>) -> lsp::Hover {
    lsp::Hover {
        contents: lsp::HoverContents::Markup(lsp::MarkupContent { kind: lsp::MarkupKind::Markdown, value }),
        range,
    }
}

/// The template line that set the expectation of the finding at `position`; else the template
/// the object there matched.
pub fn definition(doc: &Document, path: &Path, position: lsp::Position) -> Option<lsp::GotoDefinitionResponse> {
    let checked = doc.checked_now()?;
    let locations: Vec<lsp::Location> = findings_at(doc, checked, position)
        .iter()
        .filter_map(|d| template_location(checked, d))
        .map(|(l, _)| l)
        .collect();
    if locations.is_empty()
        && let Some(field) = field_at(doc, checked, position)
        && let Some((location, _)) = field_location(checked, field)
    {
        return Some(lsp::GotoDefinitionResponse::Array(vec![location]));
    }
    if !locations.is_empty() {
        let mut unique: Vec<lsp::Location> = Vec::new();
        for l in locations {
            if !unique.contains(&l) {
                unique.push(l);
            }
        }
        return Some(lsp::GotoDefinitionResponse::Array(unique));
    }
    let dir = checked.reference_dir.as_deref()?;
    let templates = object_at(checked, path, position)?;
    let locations: Vec<lsp::Location> = templates
        .iter()
        .filter_map(|t| convert::uri_of(&dir.join(t)))
        .map(|uri| lsp::Location { uri, range: lsp::Range::default() })
        .collect();
    (!locations.is_empty()).then_some(lsp::GotoDefinitionResponse::Array(locations))
}
