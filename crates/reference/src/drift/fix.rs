//! Repairs of drift findings: the edit that makes a manifest say what the reference says,
//! made only where the reference's expectation is one fixed value.
//!
//! A value is fixed when every byte the template rendered for it is template text
//! ([`locate::RenderedTemplate::literal_value`]): a `{{ .spec.x }}` parameter, a function's
//! output, or a field compared by an inline diff function (`regex`, `capturegroups`: a pattern,
//! not a value) gives no fix; template text a condition chose (inside an `if` or `with`)
//! gives an unsafe fix. What is written and how it is quoted is the YAML layer's
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
/// one: a changed or missing value only where the reference fixes it exactly as `expected`
/// (fixed template text, no inline diff function over it). Standard input has no file to
/// write: a document rendered there gets the fix made in the source its renderer named
/// ([`driftlint_core::locate::rendered_fix`]), or none.
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
    let stdin = source.path == SourcePath::Stdin;
    if stdin && doc.origin.as_ref().is_none_or(|o| o.resolved.is_none()) {
        return None;
    }
    let fix = if kind == FieldDiffKind::Extra {
        extra_fix(doc, source, pointer)
    } else {
        let (rendered, expected) = (rendered?, expected?);
        if inline_compared(compiled, template, pointer) {
            return None;
        }
        let (literal, conditional) = rendered.literal_value(compiled, template, pointer, files)?;
        if &literal != expected {
            return None;
        }
        let fix = match kind {
            FieldDiffKind::Changed => value_fix(doc, source, pointer, expected),
            _ => missing_fix(doc, source, pointer, expected),
        };
        // Text a condition chose (`{{ if … }}false{{ else }}true{{ end }}`) is what the
        // reference expects of this object as the repository stands; a person decides whether
        // the condition, not the value, is what should change.
        if conditional { fix.map(unsafe_fix) } else { fix }
    }?;
    if stdin { driftlint_core::locate::rendered_fix(doc, &source.text, &fix, files) } else { Some(fix) }
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
/// (a scalar, or a whole mapping or sequence, written in block style) and the mapping is in
/// block style. When the manifest lacks the mapping too, the nearest block mapping above it
/// that it has gets the missing mappings, down to the field.
fn missing_fix(doc: &Document, source: &Source, pointer: &str, expected: &Value) -> Option<Box<Fix>> {
    let (mut parent, key) = driftlint_core::locate::split_pointer(pointer);
    let mut key = unescape(key);
    let mut expected = expected.clone();
    let mapping = loop {
        match doc.node.pointer(parent) {
            Some(node) => break node,
            None if !parent.is_empty() => {
                let (up, name) = driftlint_core::locate::split_pointer(parent);
                let mut wrapped = serde_json::Map::new();
                wrapped.insert(std::mem::replace(&mut key, unescape(name)), expected);
                expected = Value::Object(wrapped);
                parent = up;
            }
            None => return None,
        }
    };
    let expected = &expected;
    let (from, to) = doc.lines_in(&source.text);
    if mapping.span.start < from || mapping.span.end > to {
        return None;
    }
    let slice = source.text.get(from..to)?;
    let range = mapping.span.start - from..mapping.span.end - from;
    let (at, text) = driftlint_yaml::insert_entry(slice, range, &key, expected)?;
    // A block of lines is named by its field, not printed into a one-line help.
    let lines = text.trim().lines().count();
    let shown = if lines > 1 { format!("{pointer}` ({lines} lines)") } else { format!("{}`", text.trim()) };
    Some(Box::new(Fix {
        safety: FixSafety::Safe,
        message: format!("add `{shown}"),
        edits: vec![Edit {
            path: source.path.clone(),
            range: from + at..from + at,
            expected: String::new(),
            replacement: text,
        }],
    }))
}

/// `fix` offered with `--unsafe-fixes` only, its message saying why.
fn unsafe_fix(mut fix: Box<Fix>) -> Box<Fix> {
    fix.safety = FixSafety::Unsafe;
    fix.message.push_str(" (the template chooses this value by a condition)");
    fix
}

/// A JSON pointer's token as the key it names.
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
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

/// Whether a per-field inline diff function of the template compares `pointer`, a field above
/// it or, for a mapping or sequence, a field inside it: its expectation is a pattern, not a
/// value to write.
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
        pointer == p || pointer.starts_with(&format!("{p}/")) || p.starts_with(&format!("{pointer}/"))
    })
}
