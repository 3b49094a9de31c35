//! Locations of drift in the reference: the template line that produced an expected value.
//! (The manifest side — the node a JSON pointer names — is the ground's
//! [`driftlint_core::locate`], re-exported here.)
//!
//! The winning template is rendered again (with the CR as omitted by the comparison), the
//! same pointer is followed in the *rendered* YAML, and the rendered offset is mapped back
//! through the engine's provenance table to a template file and byte range. A field the
//! template does not render at all (an unexpected field) is shown at the nearest ancestor the
//! template does render. kube-compare strips `<no value>` from the output before parsing it
//! (§3.2), so offsets in the parsed text are shifted back by the removed occurrences first.

use std::ops::Range;
use std::path::PathBuf;

use driftlint_gotmpl::Rendered;
use driftlint_yaml::{Node, NodeValue};

use driftlint_core::locate::{Files, split_pointer};

use crate::Compiled;
use driftlint_core::locate::FieldDiffKind;

const NO_VALUE: &str = "<no value>";

/// A template's rendering for one CR, parsed once, to locate any number of fields in it.
pub struct RenderedTemplate<'r> {
    rendered: &'r Rendered,
    /// The rendered text after kube-compare's `<no value>` removal, parsed.
    root: Option<Node>,
}

impl<'r> RenderedTemplate<'r> {
    pub fn new(rendered: &'r Rendered) -> Self {
        let root = if rendered.text.contains(NO_VALUE) {
            driftlint_yaml::parse_stream(&rendered.text.replace(NO_VALUE, "")).documents.into_iter().next()
        } else {
            driftlint_yaml::parse_stream(&rendered.text).documents.into_iter().next()
        }
        .map(|d| d.root);
        RenderedTemplate { rendered, root }
    }

    /// The template file and byte range that produced the rendered value at `pointer`, if it
    /// is in the rendered output at all (a value set by an override or a merge is not).
    pub fn location(
        &self,
        compiled: &Compiled,
        template: usize,
        pointer: &str,
        kind: FieldDiffKind,
        files: &mut Files,
    ) -> Option<(PathBuf, Range<usize>)> {
        let (key, value) = self.root.as_ref()?.pointer_entry(pointer)?;
        // The value carries the expectation; for a missing block (a mapping or list) the key
        // line is the one a reader recognises.
        let node = match (&value.value, key) {
            (NodeValue::Mapping(_) | NodeValue::Sequence(_), Some(k)) => k,
            _ if kind == FieldDiffKind::Missing && key.is_some() => key.unwrap_or(value),
            _ => value,
        };
        self.source_of(compiled, template, raw_offset(&self.rendered.text, node.span.start), files)
    }

    /// The value the template renders at `pointer` when every byte of it is template text
    /// (no action, so no parameter of the CR and no function produced any of it), and
    /// whether some of that text is conditional (inside an `if` or `with`: which branch is
    /// written depends on the object or on the objects a lookup returns). Unconditional, the
    /// expectation is the same for every object, and a fix may write it. A mapping or
    /// sequence qualifies only when every byte of its whole subtree does.
    pub fn literal_value(
        &self,
        compiled: &Compiled,
        template: usize,
        pointer: &str,
        files: &mut Files,
    ) -> Option<(serde_json::Value, bool)> {
        let (_, value) = self.root.as_ref()?.pointer_entry(pointer)?;
        if value.span.is_empty() {
            return None;
        }
        let rendered = self.rendered;
        let start = raw_offset(&rendered.text, value.span.start);
        let end = raw_offset(&rendered.text, value.span.end - 1) + 1;
        let t = compiled.templates.get(template)?;
        let first = rendered.provenance.partition_point(|(s, _)| *s <= start).checked_sub(1)?;
        let mut conditional = false;
        for (i, (out_start, span)) in rendered.provenance.iter().enumerate().skip(first) {
            if *out_start >= end {
                break;
            }
            let out_end = rendered.provenance.get(i + 1).map_or(rendered.text.len(), |(s, _)| *s);
            let path = template_file(compiled, t.entry, t.set.file_name(span.file))?;
            let text = files.text(&path)?;
            // A text node's output is its own bytes; an action's is whatever it evaluated to.
            if text.get(span.start as usize..span.end as usize) != rendered.text.get(*out_start..out_end) {
                return None;
            }
            conditional = conditional || t.set.text_is_conditional(*span);
        }
        Some((value.to_json(), conditional))
    }

    /// For a field the template does not render (`pointer` is absent from the output): the
    /// line of the nearest ancestor it does render, with that ancestor's pointer; else the
    /// line that produced the first rendered byte, with `""`.
    pub fn nearest_ancestor(
        &self,
        compiled: &Compiled,
        template: usize,
        pointer: &str,
        files: &mut Files,
    ) -> Option<(PathBuf, Range<usize>, String)> {
        let mut p = split_pointer(pointer).0;
        while !p.is_empty() {
            if let Some((path, range)) = self.location(compiled, template, p, FieldDiffKind::Changed, files) {
                return Some((path, range, p.to_string()));
            }
            p = split_pointer(p).0;
        }
        let first = self.rendered.text.len() - self.rendered.text.trim_start().len();
        self.source_of(compiled, template, first, files).map(|(path, range)| (path, range, String::new()))
    }

    /// The template file and range behind byte `offset` of the raw rendered text.
    fn source_of(
        &self,
        compiled: &Compiled,
        template: usize,
        offset: usize,
        files: &mut Files,
    ) -> Option<(PathBuf, Range<usize>)> {
        let rendered = self.rendered;
        let i = rendered.provenance.partition_point(|(start, _)| *start <= offset).checked_sub(1)?;
        let (out_start, span) = rendered.provenance[i];
        let out_end = rendered.provenance.get(i + 1).map_or(rendered.text.len(), |(s, _)| *s);
        let t = compiled.templates.get(template)?;
        let name = t.set.file_name(span.file);
        let path = template_file(compiled, t.entry, name)?;
        let text = files.text(&path)?;
        let (start, end) = (span.start as usize, span.end as usize);
        let produced = rendered.text.get(out_start..out_end)?;
        // A text node is copied verbatim: the offset inside it is the offset in the template,
        // and the line holding it is the label. An action keeps its own span.
        if text.get(start..end) == Some(produced) {
            let at = start + (offset - out_start);
            return Some((path, line_at(text, at)));
        }
        (end <= text.len()).then_some((path, start..end))
    }
}

/// Maps an offset in the text after `<no value>` removal to the raw rendered text.
fn raw_offset(raw: &str, stripped: usize) -> usize {
    let mut removed = 0;
    for (pos, _) in raw.match_indices(NO_VALUE) {
        if pos - removed > stripped {
            break;
        }
        removed += NO_VALUE.len();
    }
    stripped + removed
}

/// The range of the line holding `at`, without its indentation and line break.
fn line_at(text: &str, at: usize) -> Range<usize> {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = &text[start..end];
    let indent = line.len() - line.trim_start().len();
    let trail = line.len() - line.trim_end().len();
    (start + indent).min(end - trail)..end - trail
}

/// The file on disk of template set file `name` (a base name) for entry `entry`: one of the
/// entry's matched files, else a function file.
fn template_file(compiled: &Compiled, entry: usize, name: &str) -> Option<PathBuf> {
    let reference = &compiled.reference;
    let base = |n: &str| n.rsplit('/').next().unwrap_or(n).to_string();
    let own = reference.templates.get(entry)?.source.files.iter().rev().find(|f| base(&f.name) == name);
    let func = || reference.function_files.iter().flat_map(|f| f.source.files.iter()).find(|f| base(&f.name) == name);
    own.or_else(func).map(|f| f.path.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_stripped_offsets_back_to_raw() {
        let raw = "a: <no value>\nb: x<no value>y\n";
        let stripped = raw.replace(NO_VALUE, "");
        let at = stripped.find('y').unwrap();
        assert_eq!(&raw[raw_offset(raw, at)..raw_offset(raw, at) + 1], "y");
        let at = stripped.find('b').unwrap();
        assert_eq!(&raw[raw_offset(raw, at)..raw_offset(raw, at) + 1], "b");
        assert_eq!(raw_offset("abc", 2), 2);
    }

    #[test]
    fn line_without_indentation() {
        let t = "a:\n    memory: 256Mi\nz";
        let r = line_at(t, t.find("256").unwrap());
        assert_eq!(&t[r], "memory: 256Mi");
    }
}
