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
use serde_json::Value;

use crate::diagnostic::{Diagnostic, Edit, Fix, Label};
use crate::document::{Document, OriginKind, whole_lines};
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
    /// The fixes made on the rendered document, each with the same change in the source
    /// ([`rendered_fix`]; `None` when it cannot be made there).
    pub fixes: Vec<(Fix, Option<Box<Fix>>)>,
}

/// The label a finding moved from standard input to its source keeps for the rendered line.
pub const AS_RENDERED: &str = "as rendered";

/// Whether `d` was found in a document rendered to standard input and moved to its source
/// ([`Rendered::apply`], or a drift finding located there): its fix edits a file that no input
/// named.
pub fn is_rendered(d: &Diagnostic) -> bool {
    d.secondary.iter().any(|l| l.path == SourcePath::Stdin && l.message.as_deref() == Some(AS_RENDERED))
}

impl Rendered {
    /// Moves `d` to the source, keeping the rendered place as a secondary label; without a
    /// source, `d` stays and says which source the renderer named. A fix that edits standard
    /// input becomes its source's ([`Rendered::fixes`]) or goes: nothing writes standard input.
    pub fn apply(&self, d: &mut Diagnostic) {
        if d.fix.as_ref().is_some_and(|f| f.edits.iter().any(|e| e.path == SourcePath::Stdin)) {
            let fix = d.fix.take();
            d.fix = self.fixes.iter().find(|(on, _)| Some(on) == fix.as_deref()).and_then(|(_, mapped)| mapped.clone());
        }
        match &self.source {
            Some((path, range)) => {
                let rendered = std::mem::replace(
                    &mut d.primary,
                    Label { path: SourcePath::File(path.clone()), range: Some(range.clone()), message: None },
                );
                // A family that added the renderer's source as help (drift) no longer needs it.
                d.help.retain(|h| *h != self.help);
                d.secondary.push(Label { message: Some(AS_RENDERED.into()), ..rendered });
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
    Some(Rendered { source, help, fixes: Vec::new() })
}

/// A fix made on a document rendered to standard input, as the same change made to the
/// source the renderer named — `None` when it cannot be made there exactly.
///
/// The change is read off the rendered document before and after the fix's one edit (a
/// scalar set, an entry added, removed or renamed: one field, found by its JSON pointer).
/// In a kustomize origin file (YAML) the field must be at the same pointer, the bytes the
/// edit replaces must be exactly the bytes there (for a removal: the same value), and the
/// source's edit is made by the YAML layer, which checks the edited object loads back as
/// the original with that one change. In a helm chart template (Go-templated text, not
/// parsed) only a scalar set or a key rename is made, and only when the pointer leads to one
/// `key:` line of the template — no other line of that key in its block (an `if`/`else`
/// writing it twice), no list index below a `range`, the template file holding one document
/// of the object's kind — whose text after the key is exactly the bytes the edit replaces
/// (so no action renders it). The edit then writes the same replacement, which was chosen
/// for the same bytes in the same place.
pub fn rendered_fix(doc: &Document, text: &str, fix: &Fix, files: &mut Files) -> Option<Box<Fix>> {
    let [edit] = fix.edits.as_slice() else { return None };
    if edit.path != SourcePath::Stdin || doc.item_index.is_some() {
        return None;
    }
    let origin = doc.origin.as_ref()?;
    let (path, object) = origin.resolved.as_ref()?;
    let (from, to) = doc.lines_in(text);
    if edit.range.start < from || edit.range.end > to {
        return None;
    }
    let slice = text.get(from..to)?;
    let (start, end) = (edit.range.start - from, edit.range.end - from);
    let edited = format!("{}{}{}", slice.get(..start)?, edit.replacement, slice.get(end..)?);
    let before = one_document(slice)?.to_json();
    let change = change(&before, &one_document(&edited)?.to_json(), String::new())?;
    let source = files.text(path)?;
    let (range, replacement) = match origin.kind {
        OriginKind::Kustomize => kustomize_edit(source, object, &change, &before, &edit.expected)?,
        OriginKind::Helm => helm_edit(source, object, &change, &doc.identity.kind, edit)?,
    };
    Some(Box::new(Fix {
        safety: fix.safety,
        message: fix.message.clone(),
        edits: vec![Edit {
            path: SourcePath::File(path.clone()),
            expected: source.get(range.clone())?.to_owned(),
            range,
            replacement,
        }],
    }))
}

/// The root of `text` when it loads, without error, as exactly one document.
fn one_document(text: &str) -> Option<Node> {
    let stream = driftlint_yaml::parse_stream(text);
    if stream.error.is_some() || stream.documents.len() != 1 {
        return None;
    }
    stream.documents.into_iter().next().map(|d| d.root)
}

/// What one fix does to a document, as a JSON pointer and the values involved.
#[derive(Debug, Clone, PartialEq)]
enum Change {
    /// The scalar at the pointer becomes this value.
    Set(String, Value),
    /// The mapping at the pointer gains the entry `key: value`.
    Add(String, String, Value),
    /// The entry at the pointer goes.
    Remove(String),
    /// In the mapping at the pointer, key `old` becomes `new`, its value kept.
    Rename(String, String, String),
}

/// The one change that turns `before` into `after` (at `at`), if there is exactly one.
fn change(before: &Value, after: &Value, at: String) -> Option<Change> {
    let token = |k: &str| format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            let gone: Vec<&String> = b.keys().filter(|k| !a.contains_key(*k)).collect();
            let new: Vec<&String> = a.keys().filter(|k| !b.contains_key(*k)).collect();
            let differ: Vec<&String> =
                b.iter().filter(|(k, v)| a.get(*k).is_some_and(|w| w != *v)).map(|(k, _)| k).collect();
            match (gone.as_slice(), new.as_slice(), differ.as_slice()) {
                ([], [], [k]) => change(&b[*k], &a[*k], token(k)),
                ([], [k], []) => Some(Change::Add(at, (*k).clone(), a[*k].clone())),
                ([k], [], []) => Some(Change::Remove(token(k))),
                ([old], [new], []) if b[*old] == a[*new] => Some(Change::Rename(at, (*old).clone(), (*new).clone())),
                _ => None,
            }
        }
        (Value::Array(b), Value::Array(a)) if b.len() == a.len() => {
            let mut differ = b.iter().zip(a).enumerate().filter(|(_, (x, y))| x != y);
            let (i, (x, y)) = differ.next()?;
            differ.next().is_none().then(|| change(x, y, format!("{at}/{i}")))?
        }
        (Value::Object(_) | Value::Array(_), _) | (_, Value::Object(_) | Value::Array(_)) => None,
        _ => (before != after).then(|| Change::Set(at, after.clone())),
    }
}

/// The edit that makes `change` in the kustomize origin file `source`, whose object spans
/// `object`: the range (in `source`) and the text to write there.
fn kustomize_edit(
    source: &str,
    object: &Range<usize>,
    change: &Change,
    before: &Value,
    expected: &str,
) -> Option<(Range<usize>, String)> {
    let (from, to) = whole_lines(source, object);
    let slice = source.get(from..to)?;
    let root = one_document(slice)?;
    let same = |pointer: &str| root.pointer(pointer).map(Node::to_json) == before.pointer(pointer).cloned();
    let (range, replacement) = match change {
        Change::Set(pointer, value) => {
            let node = root.pointer(pointer)?;
            let (range, text) = driftlint_yaml::replace_scalar(slice, node.span.clone(), node.style?, value)?;
            let old = slice.get(range.clone())?;
            (same(pointer) && old == expected && !old.contains('\n')).then_some((range, text))?
        }
        Change::Rename(pointer, old, new) => {
            let entry = format!("{pointer}/{}", old.replace('~', "~0").replace('/', "~1"));
            let (Some(key), _) = root.pointer_entry(&entry)? else { return None };
            let (range, text) = driftlint_yaml::rename_key(slice, key.span.clone(), new)?;
            (same(&entry) && slice.get(range.clone())? == expected).then_some((range, text))?
        }
        Change::Add(pointer, key, value) => {
            let mapping = root.pointer(pointer)?;
            let (at, text) = driftlint_yaml::insert_entry(slice, mapping.span.clone(), key, value)?;
            (at..at, text)
        }
        Change::Remove(pointer) => {
            let (Some(key), _) = root.pointer_entry(pointer)? else { return None };
            let range = driftlint_yaml::remove_entry(slice, key.span.clone())?;
            (same(pointer).then_some((range, String::new())))?
        }
    };
    Some((from + range.start..from + range.end, replacement))
}

/// The edit that makes `change` in the helm chart template `source`, whose document for the
/// object spans `object`: a scalar set or a key renamed where the template writes the bytes
/// `edit` replaces on one line.
fn helm_edit(
    source: &str,
    object: &Range<usize>,
    change: &Change,
    kind: &str,
    edit: &Edit,
) -> Option<(Range<usize>, String)> {
    if documents_of_kind(source, kind) != 1 {
        return None;
    }
    let range = match change {
        Change::Set(pointer, _) => template_entry(source, object.clone(), pointer)?.1,
        Change::Rename(pointer, old, _) => {
            template_entry(source, object.clone(), &format!("{pointer}/{}", old.replace('~', "~0").replace('/', "~1")))?
                .0
        }
        Change::Add(..) | Change::Remove(_) => return None,
    };
    let range = range.start..range.start + edit.expected.len();
    let rest = source.get(range.end..)?;
    let rest = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let trailing = rest.trim_start_matches([' ', '\t']);
    let ends = trailing.is_empty()
        || trailing == "\r"
        || (trailing.starts_with('#') && rest.len() > trailing.len())
        || (matches!(change, Change::Rename(..)) && rest.starts_with(':'));
    (source.get(range.clone())? == edit.expected && !edit.expected.contains("{{") && ends)
        .then_some((range, edit.replacement.clone()))
}

/// How many `---`-separated documents of a chart template have a top-level `kind: KIND` line.
fn documents_of_kind(text: &str, kind: &str) -> usize {
    let mut count = 0;
    let mut seen = false;
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" || line.starts_with("--- ") {
            seen = false;
        } else if !seen
            && line.strip_prefix("kind:").is_some_and(|v| v.trim().trim_matches(|c| c == '"' || c == '\'') == kind)
        {
            seen = true;
            count += 1;
        }
    }
    count
}

/// Where a chart template writes the field at `pointer` (the whole pointer, not an
/// ancestor), followed line by line as [`template_key_range`] does: the key (or a list item's
/// dash) and the text after it on its line. `None` when any key of the pointer has a second
/// line at its column in its block (the template writes it twice, in an `if` and its `else`),
/// when the pointer holds a list index and the document a `range` action (its items are not
/// its lines), or when a step is not found.
fn template_entry(text: &str, range: Range<usize>, pointer: &str) -> Option<(Range<usize>, Range<usize>)> {
    let range = range.start.min(text.len())..range.end.min(text.len());
    let doc = &text[range.clone()];
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut offset = range.start;
    for line in doc.split_inclusive('\n') {
        lines.push((offset, line.trim_end_matches(['\n', '\r'])));
        offset += line.len();
    }
    let content = |l: &str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#') && !t.starts_with("---") && !t.starts_with("{{")
    };
    let ranged = lines.iter().any(|(_, l)| l.trim_start().starts_with("{{") && l.contains("range "));
    let (mut next, mut indent) = (0usize, None::<usize>);
    let mut found = None;
    for segment in pointer.split('/').skip(1) {
        let key = segment.replace("~1", "/").replace("~0", "~");
        // Lines of the current block, from `next` until one at or left of its indentation,
        // with the column of their key (after a list item's dash).
        let block: Vec<(usize, usize, usize, &str)> = lines
            .iter()
            .enumerate()
            .skip(next)
            .filter(|(_, (_, l))| content(l))
            .map(|(i, (at, l))| {
                let trimmed = l.trim_start();
                let body = trimmed.strip_prefix("- ").map_or(trimmed, str::trim_start);
                (i, *at, l.len() - body.len(), *l)
            })
            .take_while(|(_, _, col, l)| {
                let dash = l.len() - l.trim_start().len();
                indent.is_none_or(|d| dash > d || (l.trim_start().starts_with("- ") && *col > d))
            })
            .collect();
        let hits: Vec<(usize, usize, Range<usize>, usize)> = if let Ok(n) = key.parse::<usize>() {
            if ranged {
                return None;
            }
            let items: Vec<_> = block
                .iter()
                .filter(|(_, _, _, l)| l.trim_start().starts_with("- ") || l.trim_start() == "-")
                .map(|(i, at, _, l)| (*i, l.len() - l.trim_start().len(), *at, *l))
                .collect();
            let col = items.first()?.1;
            let (i, col, at, l) = items.into_iter().filter(|(_, c, _, _)| *c == col).nth(n)?;
            let value = (at + col + 2).min(at + l.len());
            vec![(i, col, at + col..at + col + 1, value)]
        } else {
            // The block's keys are at the column of its first line; deeper lines are not its.
            let keys_at = block.first()?.2;
            block
                .iter()
                .filter(|(_, _, col, _)| *col == keys_at)
                .filter_map(|(i, at, col, l)| {
                    let body = &l[*col..];
                    let written =
                        [format!("{key}:"), format!("\"{key}\":")].into_iter().find(|k| body.starts_with(k))?;
                    let after = &body[written.len()..];
                    let value = at + col + written.len() + (after.len() - after.trim_start_matches([' ', '\t']).len());
                    Some((*i + 1, *col, at + col..at + col + written.len() - 1, value))
                })
                .collect()
        };
        // A second line of the key in the block: the template writes it twice (an `if` and
        // its `else`), and which one rendered is not known.
        let (i, col, key_range, value) = hits.first()?.clone();
        if hits.len() > 1 {
            return None;
        }
        (next, indent) = (i, Some(col));
        found = Some((key_range, value..value));
    }
    found
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

    /// A fix's change is read as one operation at one pointer; two changes are none.
    #[test]
    fn a_fix_is_one_change_at_one_pointer() {
        use serde_json::json;
        let before = json!({"a": {"b": 1, "c": [1, 2]}, "d": "x"});
        let at = |v: Value| change(&before, &v, String::new());
        assert_eq!(at(json!({"a": {"b": 2, "c": [1, 2]}, "d": "x"})), Some(Change::Set("/a/b".into(), json!(2))));
        assert_eq!(at(json!({"a": {"b": 1, "c": [1, 3]}, "d": "x"})), Some(Change::Set("/a/c/1".into(), json!(3))));
        assert_eq!(
            at(json!({"a": {"b": 1, "c": [1, 2], "e": {"f": 1}}, "d": "x"})),
            Some(Change::Add("/a".into(), "e".into(), json!({"f": 1})))
        );
        assert_eq!(at(json!({"a": {"c": [1, 2]}, "d": "x"})), Some(Change::Remove("/a/b".into())));
        assert_eq!(
            at(json!({"a": {"bb": 1, "c": [1, 2]}, "d": "x"})),
            Some(Change::Rename("/a".into(), "b".into(), "bb".into()))
        );
        assert_eq!(at(json!({"a": {"b": 2, "c": [1, 2]}, "d": "y"})), None, "two changes");
        assert_eq!(at(json!({"a": 1, "d": "x"})), None, "a mapping replaced");
    }

    /// A key of a chart template is found on its one line; written twice in a block (an `if`
    /// and its `else`), or below a `range` by index, it is not.
    #[test]
    fn template_entries_are_found_only_where_one_line_writes_them() {
        let text = "apiVersion: v1\nkind: ConfigMap\ndata:\n  nested:\n    level: a\n  level: debug  # c\n  items:\n    - x\n    - name: y\n";
        let at = |p: &str| template_entry(text, 0..text.len(), p).map(|(k, v)| (&text[k], &text[v.start..]));
        assert_eq!(at("/data/level").map(|(k, v)| (k, &v[..5])), Some(("level", "debug")));
        assert_eq!(at("/data/nested/level").map(|(k, v)| (k, &v[..1])), Some(("level", "a")));
        assert_eq!(at("/data/items/0").map(|(k, v)| (k, &v[..1])), Some(("-", "x")));
        assert_eq!(at("/data/items/1/name").map(|(k, v)| (k, &v[..1])), Some(("name", "y")));
        assert_eq!(at("/data/absent"), None);
        let twice = "data:\n{{- if .Values.a }}\n  level: x\n{{- else }}\n  level: y\n{{- end }}\n";
        assert_eq!(template_entry(twice, 0..twice.len(), "/data/level"), None);
        let ranged = "data:\n  items:\n  {{- range .Values.items }}\n    - x\n  {{- end }}\n";
        assert_eq!(template_entry(ranged, 0..ranged.len(), "/data/items/0"), None);
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

    /// The node at a byte of the rendered tree, as a pointer: a key is shown as a key, a
    /// scalar as a value, a list's dash as the list's item, nothing as the document.
    #[test]
    fn a_place_in_the_tree_is_read_back_as_a_pointer() {
        let text = "metadata:\n  name: web\n  labels:\n    a/b: x\nspec:\n  ports:\n    - 80\n    - name: http\n";
        let root = tree(text);
        let at = |needle: &str| pointer_at(&root, text.find(needle).unwrap());
        assert_eq!(at("name: web"), ("/metadata/name".into(), FieldDiffKind::Extra));
        assert_eq!(at("web"), ("/metadata/name".into(), FieldDiffKind::Changed));
        // A key with a slash is escaped as JSON pointers require.
        assert_eq!(at("x\n"), ("/metadata/labels/a~1b".into(), FieldDiffKind::Changed));
        assert_eq!(at("80"), ("/spec/ports/0".into(), FieldDiffKind::Changed));
        assert_eq!(at("http"), ("/spec/ports/1/name".into(), FieldDiffKind::Changed));
        assert_eq!(pointer_at(&root, text.len() + 10), ("/".into(), FieldDiffKind::Missing));
        // Each pointer leads back to the node it was read from.
        let (pointer, kind) = at("web");
        assert_eq!(&text[node_range(&root, &pointer, kind)], "web");
        let (pointer, kind) = at("name: web");
        assert_eq!(&text[node_range(&root, &pointer, kind)], "name");
    }

    /// A helm chart template is followed line by line: a changed field at its key, a missing
    /// one at its parent, a list item at its line from the dash, the deepest part written when the
    /// rest is not, the first line that is not a comment when nothing is.
    #[test]
    fn chart_templates_are_followed_line_by_line() {
        let text = "# Source: chart/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      containers:\n        - name: web\n          image: {{ .Values.image }}\n        - name: sidecar\n";
        let whole = 0..text.len();
        let at = |p: &str, kind| {
            let r = template_key_range(text, whole.clone(), p, kind);
            (&text[r.clone()], line_of(text, &r))
        };
        assert_eq!(at("/spec/replicas", FieldDiffKind::Changed), ("replicas", 5));
        assert_eq!(at("/spec/template/spec/containers/0/image", FieldDiffKind::Changed), ("image", 10));
        assert_eq!(at("/spec/template/spec/containers/1", FieldDiffKind::Extra), ("- name: sidecar", 11));
        assert_eq!(at("/spec/template/spec/containers/1/name", FieldDiffKind::Changed), ("name", 11));
        // Missing: where it should go, its parent (its key, or a list item's line).
        assert_eq!(at("/spec/template/spec/containers/0/ports", FieldDiffKind::Missing), ("- name: web", 9));
        assert_eq!(at("/spec/selector", FieldDiffKind::Missing), ("spec", 4));
        // Not written below `spec/template`: the deepest part that is.
        assert_eq!(at("/spec/template/metadata/labels", FieldDiffKind::Changed), ("template", 6));
        assert_eq!(at("/status/phase", FieldDiffKind::Changed), ("apiVersion: apps/v1", 2));
        // Only the object's own document is searched.
        let second = text.find("kind").unwrap()..text.len();
        let r = template_key_range(text, second, "/apiVersion", FieldDiffKind::Changed);
        assert_eq!(&text[r], "kind: Deployment");
    }

    #[test]
    fn a_chart_template_counts_the_documents_of_a_kind() {
        let text = "kind: ConfigMap\n---\nkind: \"ConfigMap\"\n---\nkind: Secret\n--- # x\n  kind: ConfigMap\n";
        assert_eq!(documents_of_kind(text, "ConfigMap"), 2);
        assert_eq!(documents_of_kind(text, "Secret"), 1);
        assert_eq!(documents_of_kind(text, "Service"), 0);
    }

    fn stdin_edit(range: Range<usize>, expected: &str, replacement: &str) -> Edit {
        Edit { path: SourcePath::Stdin, range, expected: expected.into(), replacement: replacement.into() }
    }

    /// A kustomize origin file gets the rendered change at the same pointer, only where it
    /// holds the bytes the rendered edit replaced.
    #[test]
    fn kustomize_sources_get_the_same_change_where_they_hold_the_same_bytes() {
        use serde_json::json;
        let source = "# base\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  level: debug  # why\n  mode: \"fast\"\n  old: x\n";
        let object = source.find("apiVersion").unwrap()..source.len();
        let before = tree(&source[object.clone()]).to_json();
        let edit = |change: &Change, expected: &str| {
            kustomize_edit(source, &object, change, &before, expected)
                .map(|(r, text)| format!("{}{text}{}", &source[..r.start], &source[r.end..]))
        };
        let set = Change::Set("/data/level".into(), json!("info"));
        assert_eq!(edit(&set, "debug").unwrap(), source.replace("level: debug", "level: info"));
        // The rendered edit replaced other bytes than the source holds (an overlay set them).
        assert_eq!(edit(&set, "trace"), None);
        // The source's quoting is the source's: the replacement keeps its style.
        let quoted = Change::Set("/data/mode".into(), json!("slow"));
        assert_eq!(edit(&quoted, "\"fast\"").unwrap(), source.replace("\"fast\"", "\"slow\""));
        let rename = Change::Rename("/data".into(), "old".into(), "new".into());
        assert_eq!(edit(&rename, "old").unwrap(), source.replace("  old: x", "  new: x"));
        let remove = Change::Remove("/data/old".into());
        assert_eq!(edit(&remove, "  old: x\n").unwrap(), source.replace("  old: x\n", ""));
        let add = Change::Add("/metadata".into(), "namespace".into(), json!("web"));
        let added = edit(&add, "").unwrap();
        assert!(added.contains("  name: c\n  namespace: web\n"), "{added}");
        // A field the source does not have (a patch added it): no edit.
        assert_eq!(edit(&Change::Set("/data/absent".into(), json!("x")), "y"), None);
        // A removal of a value the source holds differently: no edit.
        let other = tree("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  old: y\n").to_json();
        assert_eq!(kustomize_edit(source, &object, &remove, &other, "  old: x\n"), None);
    }

    /// A chart template gets a set or rename only on the one line that writes the rendered
    /// bytes: not over an action, not where the kind has two documents, never an addition or
    /// a removal.
    #[test]
    fn chart_templates_get_a_set_or_rename_only_on_the_line_that_writes_it() {
        use serde_json::json;
        let source =
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  level: debug # why\n  image: {{ .Values.image }}\n  old: x\n";
        let object = 0..source.len();
        let set = Change::Set("/data/level".into(), json!("info"));
        let made = |change: &Change, edit: &Edit| helm_edit(source, &object, change, "ConfigMap", edit);
        let (r, text) = made(&set, &stdin_edit(0..0, "debug", "info")).unwrap();
        assert_eq!((&source[r], text.as_str()), ("debug", "info"));
        // The rendered bytes are not what the template writes there (an action renders them).
        let image = Change::Set("/data/image".into(), json!("nginx:2"));
        assert_eq!(made(&image, &stdin_edit(0..0, "nginx:1", "nginx:2")), None);
        assert_eq!(made(&image, &stdin_edit(0..0, "{{ .Values.image }}", "x")), None);
        let rename = Change::Rename("/data".into(), "old".into(), "new".into());
        let (r, text) = made(&rename, &stdin_edit(0..0, "old", "new")).unwrap();
        assert_eq!((&source[r], text.as_str()), ("old", "new"));
        assert_eq!(made(&Change::Remove("/data/old".into()), &stdin_edit(0..0, "  old: x\n", "")), None);
        let add = Change::Add("/data".into(), "mode".into(), json!("fast"));
        assert_eq!(made(&add, &stdin_edit(0..0, "", "  mode: fast\n")), None);
        // Two documents of the kind in the template: which one rendered is not known.
        let twice = format!("{source}---\n{source}");
        let whole = 0..twice.len();
        assert_eq!(helm_edit(&twice, &whole, &set, "ConfigMap", &stdin_edit(0..0, "debug", "info")), None);
    }

    /// A finding moved to its source keeps the rendered place as a secondary label, and its
    /// fix becomes the source's; without a source it stays and names it, once.
    #[test]
    fn a_rendered_finding_moves_to_its_source_with_its_fix() {
        use crate::diagnostic::{FixSafety, Rule, Severity};
        let on_stdin =
            Fix { safety: FixSafety::Safe, message: "set".into(), edits: vec![stdin_edit(40..45, "debug", "info")] };
        let in_source = Fix {
            safety: FixSafety::Safe,
            message: "set".into(),
            edits: vec![Edit {
                path: SourcePath::File("base/cm.yaml".into()),
                range: 7..12,
                expected: "debug".into(),
                replacement: "info".into(),
            }],
        };
        let help = "rendered by kustomize from `base/cm.yaml` (`config.kubernetes.io/origin`)".to_string();
        let finding = || {
            let mut d = Diagnostic::new(Rule::ValueDrift, Severity::Error, SourcePath::Stdin, Some(40..45), "drift");
            d.fix = Some(Box::new(on_stdin.clone()));
            d
        };
        let rendered = Rendered {
            source: Some(("base/cm.yaml".into(), 7..12)),
            help: help.clone(),
            fixes: vec![(on_stdin.clone(), Some(Box::new(in_source.clone())))],
        };
        let mut d = finding();
        rendered.apply(&mut d);
        assert_eq!(d.primary.path, SourcePath::File("base/cm.yaml".into()));
        assert_eq!(d.primary.range, Some(7..12));
        assert_eq!(d.secondary.len(), 1);
        assert_eq!((&d.secondary[0].path, &d.secondary[0].range), (&SourcePath::Stdin, &Some(40..45)));
        assert!(is_rendered(&d));
        assert_eq!(d.fix.as_deref(), Some(&in_source));
        // A fix that cannot be made in the source goes: standard input is never written.
        let mut d = finding();
        Rendered { fixes: vec![(on_stdin.clone(), None)], ..rendered.clone() }.apply(&mut d);
        assert!(d.fix.is_none() && is_rendered(&d));
        // No source found: the finding stays where it is and names its source once.
        let lost = Rendered { source: None, help: help.clone(), fixes: Vec::new() };
        let mut d = finding();
        lost.apply(&mut d);
        lost.apply(&mut d);
        assert_eq!((d.primary.path.clone(), d.help.clone()), (SourcePath::Stdin, vec![help]));
        assert!(!is_rendered(&d) && d.fix.is_none());
    }
}
