//! Where a finding about a field is shown: the manifest node a JSON pointer names.
//!
//! A JSON pointer is followed in the document's spanned tree — the value for a
//! changed field, the parent for a missing one, the key for an extra one, the item for list
//! items. A document read from stdin whose kustomize origin was found on disk is located in
//! that file instead, by following the same pointer there.
//!
//! [`rendered_origin`] does the same for any finding on standard input, whatever family made
//! it: the field is found from the finding's range in the rendered tree, then followed in the
//! source the renderer named (kustomize's origin file, helm's chart template).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use driftlint_yaml::{Node, NodeValue};

use crate::diagnostic::{Diagnostic, Label};
use crate::document::{Document, OriginKind};
use crate::input::{Source, SourcePath};

/// How a field differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldDiffKind {
    /// Both sides have the field with different values (or types).
    Changed,
    /// The reference expects the field; the cluster object lacks it.
    Missing,
    /// The cluster object has a field the reference does not.
    Extra,
}

/// Where in a spanned tree a diff at `pointer` should be shown; falls back to the deepest
/// ancestor that exists, so a finding always has a place.
pub fn node_range(root: &Node, pointer: &str, kind: FieldDiffKind) -> Range<usize> {
    let parent = split_pointer(pointer).0;
    let exact = root.pointer_entry(pointer);
    match (kind, exact) {
        // A changed value: the value itself (a list item is its own value).
        (FieldDiffKind::Changed, Some((_, value))) => value.span.clone(),
        // An extra field: its key, so that the line reads `key: …`.
        (FieldDiffKind::Extra, Some((key, value))) => key.map_or_else(|| value.span.clone(), |k| k.span.clone()),
        // A missing field: the mapping (or list) that should hold it, by its key when it has one;
        // a mapping without a key (a list item, the document) by its first key, so that the
        // label is one line rather than the whole block.
        (FieldDiffKind::Missing, _) | (_, None) => {
            let mut p = parent;
            loop {
                if let Some((key, value)) = root.pointer_entry(p) {
                    break match (key, &value.value) {
                        (Some(k), _) => k.span.clone(),
                        (None, NodeValue::Mapping(entries)) if !entries.is_empty() => entries[0].0.span.clone(),
                        (None, _) => value.span.clone(),
                    };
                }
                if p.is_empty() {
                    break root.span.clone();
                }
                p = split_pointer(p).0;
            }
        }
    }
}

/// `("/a/b", "c")` for `/a/b/c`; the parent of a top-level pointer is the root (`""`).
pub fn split_pointer(pointer: &str) -> (&str, &str) {
    pointer.rfind('/').map_or(("", pointer), |i| (&pointer[..i], &pointer[i + 1..]))
}

/// Sources read while locating (kustomize origin files, reference templates), by path.
#[derive(Debug, Default)]
pub struct Files {
    texts: HashMap<PathBuf, Option<String>>,
}

impl Files {
    pub fn text(&mut self, path: &Path) -> Option<&str> {
        self.texts
            .entry(path.to_path_buf())
            .or_insert_with(|| crate::input::read_bounded_to_string(path, crate::input::MAX_FILE_BYTES).ok())
            .as_deref()
    }

    /// Gives the text of `path` instead of reading the file: a reference file as it was
    /// loaded (from git, the blob — the work tree's copy may differ).
    pub fn preset(&mut self, path: PathBuf, text: String) {
        self.texts.insert(path, Some(text));
    }

    /// Every file that was read, as sources for the report.
    pub fn into_sources(self) -> Vec<Source> {
        let mut v: Vec<Source> = self
            .texts
            .into_iter()
            .filter_map(|(p, t)| t.map(|text| Source { path: SourcePath::File(p), text }))
            .collect();
        v.sort_by(|a, b| a.path.cmp(&b.path));
        v
    }
}

/// For a finding located on standard input: the file the renderer said the object came from
/// (helm's `# Source:` comment, a kustomize origin that could not be read), as a help note.
pub fn origin_help(doc: &Document, path: &SourcePath) -> Option<String> {
    let origin = doc.origin.as_ref().filter(|_| *path == SourcePath::Stdin)?;
    Some(match origin.kind {
        crate::document::OriginKind::Helm => format!("rendered by helm from `{}` (`# Source:`)", origin.path),
        crate::document::OriginKind::Kustomize => {
            format!("rendered by kustomize from `{}` (`config.kubernetes.io/origin`)", origin.path)
        }
    })
}

/// Where a finding located in a rendered document on standard input belongs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The source file and the field's range there; `None` when the source could not be
    /// found, read or parsed (the finding then stays at the rendered line).
    pub source: Option<(PathBuf, Range<usize>)>,
    /// Which source the renderer named ([`origin_help`]).
    pub help: String,
}

impl Rendered {
    /// Moves `d` to the source, keeping the rendered place as a secondary label; without a
    /// source, `d` stays and says which source the renderer named.
    pub fn apply(&self, d: &mut Diagnostic) {
        match &self.source {
            Some((path, range)) => {
                let rendered = std::mem::replace(
                    &mut d.primary,
                    Label { path: SourcePath::File(path.clone()), range: Some(range.clone()), message: None },
                );
                // A family that added the renderer's source as help (drift) no longer needs it.
                d.help.retain(|h| *h != self.help);
                d.secondary.push(Label { message: Some("as rendered".into()), ..rendered });
            }
            None if !d.help.contains(&self.help) => d.help.push(self.help.clone()),
            None => {}
        }
    }
}

/// For a finding at `at` in `doc`, a document read from standard input that a renderer named
/// the source of: the same field in that source (the node at `at` in the rendered tree, as a
/// JSON pointer, followed in the source — the deepest part of it that the source holds, so a
/// field a patch added points at its parent), or, when the source cannot be read, which
/// source it was. `None` for a document without an origin.
pub fn rendered_origin(doc: &Document, at: &Range<usize>, files: &mut Files) -> Option<Rendered> {
    let origin = doc.origin.as_ref()?;
    let help = origin_help(doc, &SourcePath::Stdin)?;
    let (pointer, kind) = pointer_at(&doc.node, at.start);
    let source = origin.resolved.as_ref().and_then(|(path, range)| {
        let text = files.text(path)?;
        let found = match origin.kind {
            OriginKind::Helm => template_key_range(text, range.clone(), &pointer, kind),
            OriginKind::Kustomize => {
                let stream = driftlint_yaml::parse_stream(text);
                let d = stream.documents.iter().find(|d| d.root.span.start == range.start)?;
                node_range(&d.root, &pointer, kind)
            }
        };
        Some((path.clone(), found))
    });
    Some(Rendered { source, help })
}

/// The JSON pointer of the node of `root` at byte `pos`, and how to show it again: a key as
/// its key ([`FieldDiffKind::Extra`]), a scalar value as its value
/// ([`FieldDiffKind::Changed`]); a place inside a collection that no child holds (a list's
/// dash) as the collection. Outside any node, the document's first key.
fn pointer_at(root: &Node, pos: usize) -> (String, FieldDiffKind) {
    let holds = |span: &Range<usize>| span.contains(&pos) || (span.is_empty() && span.start == pos);
    if !holds(&root.span) {
        return ("/".into(), FieldDiffKind::Missing);
    }
    let mut pointer = String::new();
    let mut node = root;
    loop {
        let next = match &node.value {
            NodeValue::Mapping(entries) => entries.iter().find_map(|(k, v)| {
                let token = k.as_str()?.replace('~', "~0").replace('/', "~1");
                if holds(&k.span) { Some((token, None)) } else { holds(&v.span).then_some((token, Some(v))) }
            }),
            NodeValue::Sequence(items) => {
                items.iter().enumerate().find(|(_, v)| holds(&v.span)).map(|(i, v)| (i.to_string(), Some(v)))
            }
            _ => return (pointer, FieldDiffKind::Changed),
        };
        match next {
            Some((token, child)) => {
                pointer.push('/');
                pointer.push_str(&token);
                match child {
                    Some(child) => node = child,
                    None => return (pointer, FieldDiffKind::Extra),
                }
            }
            None if pointer.is_empty() => return ("/".into(), FieldDiffKind::Missing),
            None => return (pointer, FieldDiffKind::Extra),
        }
    }
}

/// Where the field at `pointer` is written in a helm chart template (`range` is its document):
/// the Go-templated text cannot be parsed, so the pointer is followed line by line — a key is a
/// later, more indented `key:` line inside the current block, an index the n-th `- ` item of
/// the list. The deepest part found is the location (a missing field's parent, as for parsed
/// YAML); nothing found, the document's first line that is not a comment.
fn template_key_range(text: &str, range: Range<usize>, pointer: &str, kind: FieldDiffKind) -> Range<usize> {
    let range = range.start.min(text.len())..range.end.min(text.len());
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut offset = range.start;
    for line in text[range.clone()].split_inclusive('\n') {
        lines.push((offset, line.trim_end_matches(['\n', '\r'])));
        offset += line.len();
    }
    let content = |l: &str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#') && !t.starts_with("---") && !t.starts_with("{{")
    };
    let mut found = lines
        .iter()
        .find(|(_, l)| content(l))
        .map_or(range.start..range.start, |(at, l)| *at..*at + l.trim_end().len());
    let target = if kind == FieldDiffKind::Missing { split_pointer(pointer).0 } else { pointer };
    // The line to search from, and the column a child must be deeper than (None: the top).
    let (mut next, mut indent) = (0usize, None::<usize>);
    for segment in target.split('/').skip(1) {
        let key = segment.replace("~1", "/").replace("~0", "~");
        let mut hit = None;
        if let Ok(n) = key.parse::<usize>() {
            // The n-th item of the list: `- ` lines at the first such column.
            let mut item_col = None;
            let mut seen = 0;
            for (i, (at, line)) in lines.iter().enumerate().skip(next) {
                let col = line.len() - line.trim_start().len();
                if !content(line) {
                    continue;
                }
                if indent.is_some_and(|d| col <= d) && i > next {
                    break;
                }
                if line.trim_start().starts_with("- ") || line.trim_start() == "-" {
                    let c = *item_col.get_or_insert(col);
                    if col == c {
                        if seen == n {
                            hit = Some((i, col, *at + col..*at + line.trim_end().len()));
                            break;
                        }
                        seen += 1;
                    }
                }
            }
        } else {
            for (i, (at, line)) in lines.iter().enumerate().skip(next) {
                if !content(line) {
                    continue;
                }
                let trimmed = line.trim_start();
                let dash = line.len() - trimmed.len();
                let body = trimmed.strip_prefix("- ").map_or(trimmed, str::trim_start);
                let col = line.len() - body.len();
                // Leaving the current block: the key is not in it.
                if indent.is_some_and(|d| dash <= d && !(trimmed.starts_with("- ") && col > d)) && i > next {
                    break;
                }
                if indent.is_none_or(|d| col > d)
                    && (body.starts_with(&format!("{key}:")) || body.starts_with(&format!("\"{key}\":")))
                {
                    hit = Some((i + 1, col, *at + col..*at + col + key.len()));
                    break;
                }
            }
        }
        let Some((i, col, span)) = hit else { break };
        (next, indent, found) = (i, Some(col), span);
    }
    found
}

/// The manifest location of a diff in `doc`: its own source, or the kustomize origin file or
/// helm chart template when the document came from stdin and its origin could be found.
pub fn manifest_location(
    doc: &Document,
    source: &Source,
    pointer: &str,
    kind: FieldDiffKind,
    files: &mut Files,
) -> (SourcePath, Range<usize>) {
    if let Some(origin) = doc.origin.as_ref().filter(|o| o.kind == crate::document::OriginKind::Helm)
        && let Some((path, range)) = &origin.resolved
        && let Some(text) = files.text(path)
    {
        return (SourcePath::File(path.clone()), template_key_range(text, range.clone(), pointer, kind));
    }
    if let Some((path, range)) = doc.origin.as_ref().and_then(|o| o.resolved.as_ref())
        && let Some(text) = files.text(path)
    {
        let stream = driftlint_yaml::parse_stream(text);
        if let Some(d) = stream.documents.iter().find(|d| d.root.span.start == range.start)
            && d.root.pointer(split_pointer(pointer).0).is_some()
        {
            return (SourcePath::File(path.clone()), node_range(&d.root, pointer, kind));
        }
    }
    (source.path.clone(), node_range(&doc.node, pointer, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Node {
        driftlint_yaml::parse_stream(text).documents.remove(0).root
    }

    fn line_of(text: &str, r: &Range<usize>) -> usize {
        text[..r.start].matches('\n').count() + 1
    }

    #[test]
    fn points_at_value_parent_key_and_item() {
        let text = "spec:\n  replicas: 3\n  template:\n    ports:\n      - 80\n      - 81\n  extra: x\n";
        let root = tree(text);
        let r = node_range(&root, "/spec/replicas", FieldDiffKind::Changed);
        assert_eq!(&text[r.clone()], "3");
        let r = node_range(&root, "/spec/template/resources", FieldDiffKind::Missing);
        assert_eq!(&text[r.clone()], "template");
        let r = node_range(&root, "/spec/extra", FieldDiffKind::Extra);
        assert_eq!(&text[r.clone()], "extra");
        let r = node_range(&root, "/spec/template/ports/1", FieldDiffKind::Extra);
        assert_eq!((&text[r.clone()], line_of(text, &r)), ("81", 6));
        // Missing deep below something absent: the deepest ancestor that exists.
        let r = node_range(&root, "/spec/a/b/c", FieldDiffKind::Missing);
        assert_eq!(&text[r], "spec");
        // Below a list item or the document: the first key of the mapping.
        let text2 = "a: 1\nitems:\n  - name: x\n    image: y\n";
        let root2 = tree(text2);
        let r = node_range(&root2, "/items/0/ports", FieldDiffKind::Missing);
        assert_eq!((&text2[r.clone()], line_of(text2, &r)), ("name", 3));
        let r = node_range(&root2, "/nothing", FieldDiffKind::Missing);
        assert_eq!((&text2[r.clone()], line_of(text2, &r)), ("a", 1));
    }
}
