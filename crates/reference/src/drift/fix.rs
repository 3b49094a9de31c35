//! Repairs of drift findings: the edit that makes a manifest say what the reference says,
//! made only where the reference's expectation is one fixed value.
//!
//! A value is fixed when every byte the template rendered for it is template text
//! ([`locate::RenderedTemplate::literal_value`]): a `{{ .spec.x }}` parameter, a function's
//! output, or a field compared by an inline diff function (`regex`, `capturegroups`: a pattern,
//! not a value) gives no fix. What is written and how it is quoted is the YAML layer's
//! ([`driftlint_yaml::replace_scalar`]), which checks the edited text reads back as the value.

use serde_json::Value;

use super::locate;
use crate::Compiled;
use driftlint_core::diagnostic::{Edit, Fix, FixSafety};
use driftlint_core::document::Document;
use driftlint_core::input::SourcePath;
use driftlint_core::locate::{FieldDiffKind, Files};
use driftlint_core::source::Source;

/// The fix of a drift finding of `kind` at `pointer` of `doc` (in `source`), when there is
/// one: only a file's own text is rewritten (standard input has no file to write), and a
/// changed or missing value only where the reference fixes it exactly as `expected` (fixed
/// template text, no inline diff function over it).
#[allow(clippy::too_many_arguments)]
pub fn of_field(
    kind: FieldDiffKind,
    doc: &Document,
    source: &Source,
    compiled: &Compiled,
    template: usize,
    rendered: Option<&locate::RenderedTemplate<'_>>,
    pointer: &str,
    expected: Option<&Value>,
    files: &mut Files,
) -> Option<Box<Fix>> {
    if !matches!(source.path, SourcePath::File(_)) {
        return None;
    }
    if kind == FieldDiffKind::Extra {
        return extra_fix(doc, source, pointer);
    }
    let (rendered, expected) = (rendered?, expected?);
    if inline_compared(compiled, template, pointer)
        || rendered.literal_value(compiled, template, pointer, files).as_ref() != Some(expected)
    {
        return None;
    }
    match kind {
        FieldDiffKind::Changed => value_fix(doc, source, pointer, expected),
        _ => missing_fix(doc, source, pointer, expected),
    }
}

/// The safe fix of a `value-drift` finding at `pointer` of `doc`: the manifest's scalar
/// rewritten in place.
fn value_fix(doc: &Document, source: &Source, pointer: &str, expected: &Value) -> Option<Box<Fix>> {
    let node = doc.node.pointer(pointer)?;
    let style = node.style?;
    // The object's own lines are loaded again to check the edit, not the whole file.
    let (from, to) = doc.lines_in(&source.text);
    let (start, end) = (node.span.start, node.span.end);
    if start < from || end > to {
        return None;
    }
    let slice = source.text.get(from..to)?;
    let (range, replacement) = driftlint_yaml::replace_scalar(slice, start - from..end - from, style, expected)?;
    let range = from + range.start..from + range.end;
    Some(Box::new(Fix {
        safety: FixSafety::Safe,
        message: format!("set `{pointer}` to {replacement}"),
        edits: vec![Edit {
            path: source.path.clone(),
            expected: source.text.get(range.clone())?.to_owned(),
            range,
            replacement,
        }],
    }))
}

/// The safe fix of a `missing-field` finding at `pointer`: the field inserted as the last
/// entry of its mapping, at that mapping's indentation, when the reference fixes its value
/// (a scalar), the mapping is in block style and the manifest holds it.
fn missing_fix(doc: &Document, source: &Source, pointer: &str, expected: &Value) -> Option<Box<Fix>> {
    let (parent, key) = driftlint_core::locate::split_pointer(pointer);
    let key = key.replace("~1", "/").replace("~0", "~");
    let mapping = doc.node.pointer(parent)?;
    let (from, to) = doc.lines_in(&source.text);
    if mapping.span.start < from || mapping.span.end > to {
        return None;
    }
    let slice = source.text.get(from..to)?;
    let range = mapping.span.start - from..mapping.span.end - from;
    let (at, text) = driftlint_yaml::insert_entry(slice, range, &key, expected)?;
    let shown = text.trim();
    Some(Box::new(Fix {
        safety: FixSafety::Safe,
        message: format!("add `{shown}`"),
        edits: vec![Edit {
            path: source.path.clone(),
            range: from + at..from + at,
            expected: String::new(),
            replacement: text,
        }],
    }))
}

/// The unsafe fix of an `unexpected-field` finding: the entry's lines removed (the reference
/// compares every field, so it has no place for this one). Unsafe: a removal may drop what a
/// person added on purpose.
fn extra_fix(doc: &Document, source: &Source, pointer: &str) -> Option<Box<Fix>> {
    let (Some(key), _) = doc.node.pointer_entry(pointer)? else { return None };
    let (from, to) = doc.lines_in(&source.text);
    if key.span.start < from || key.span.end > to {
        return None;
    }
    let slice = source.text.get(from..to)?;
    let removed = driftlint_yaml::remove_entry(slice, key.span.start - from..key.span.end - from)?;
    let range = from + removed.start..from + removed.end;
    Some(Box::new(Fix {
        safety: FixSafety::Unsafe,
        message: format!("remove `{pointer}`"),
        edits: vec![Edit {
            path: source.path.clone(),
            expected: source.text.get(range.clone())?.to_owned(),
            range,
            replacement: String::new(),
        }],
    }))
}

/// Whether a per-field inline diff function of the template compares `pointer` (or a field
/// above it): its expectation is a pattern, not a value to write.
fn inline_compared(compiled: &Compiled, template: usize, pointer: &str) -> bool {
    let Some(entry) = compiled.templates.get(template).and_then(|t| compiled.reference.templates.get(t.entry)) else {
        return true;
    };
    entry.config.per_field.iter().any(|pf| {
        let Ok(segments) = crate::parse_path_to_key(&pf.path_to_key) else { return true };
        let mut p = String::new();
        for s in &segments {
            p.push('/');
            p.push_str(&s.replace('~', "~0").replace('/', "~1"));
        }
        pointer == p || pointer.starts_with(&format!("{p}/"))
    })
}
