//! A line-based loader for plain block YAML that builds the same spanned [`Stream`] as the
//! general loader in `load` (which runs `saphyr-parser`), several times faster.
//!
//! `driftlint check` loads every manifest with spans; most manifests are plain block YAML, for
//! which the general scanner and parser do far more work than needed. This module reads that
//! subset line by line and answers `None` for anything else, so that the caller falls back
//! to the general loader. Whenever it answers, the [`Stream`] is the one the general loader
//! gives: same documents and ranges, same nodes with the same spans, styles and raw texts,
//! same warnings (it shares scalar resolution, the node builders of `stream` and mapping
//! assembly with `load`), and never an error (texts that would fail are left to the general
//! loader).
//!
//! The subset (LF line endings; no tabs, carriage returns or other control characters):
//! * blank lines, whole-line comments, comments after a value, and `---` alone at column 0;
//! * block mappings with plain or quoted one-line keys (any resolution: mapping assembly
//!   handles null keys, duplicates and `<<` exactly as the general loader does);
//! * block sequences, including the indentless form under a key and `- key: v` items;
//! * one-line plain scalars, `"…"` without `\` or `"` inside, `'…'` without `'` inside,
//!   `{}`, and one-line flow sequences of such scalars (`[a, "b"]`, `[ a ]`);
//! * block scalars (`|`, `>`, any indicators) as a mapping value or a sequence item, read by
//!   `block` as saphyr's scanner reads them (not at a document's root, where saphyr's span
//!   of one starts at its content).
//!
//! Where the general loader's spans are quirky, this module reproduces the quirk: the span of
//! a quoted scalar or an empty flow collection runs to the end of its line (saphyr's scanner
//! skips the blanks and comment after the closing quote or bracket before it marks the end),
//! a quoted key's span runs to its `:`, an empty value sits where the previous scalar ended,
//! an empty explicit document's root is the next `---`, a block scalar's span runs from
//! its header over its trailing blank lines to the indentation of the line that ends it, and
//! a flow sequence opened by `[ ` is spanned as a block one, from its first item to its last
//! (see `inline::FlowSequence`).

use crate::block::block_scalar;
use crate::error::Warning;
pub(crate) use crate::inline::node_bound;
use crate::inline::{
    allowed_chars, comment_or_end, find_pair, find_value_colon, flow_items, has_pair, plain_ok, quoted,
};
use crate::mapping::build_mapping;
use crate::node::{Node, NodeValue, ScalarStyle};
use crate::scalar::{Scalar, parse_scalar};
use crate::stream::{Document, Limits, Stream, dash_before, scalar_node};

/// Nesting beyond this many collections is left to the general loader (which enforces
/// [`Limits::max_depth`] with an error); it also bounds this module's recursion.
const MAX_DEPTH: usize = 100;
/// Longest key (in bytes) taken here; YAML limits implicit keys to 1024 characters.
const MAX_KEY: usize = 1000;

/// The stream of `text` if it is in the subset described in the [module docs](self), and how
/// many nodes it was made of (as the general loader counts them: every scalar and collection,
/// those that mapping assembly folds away included).
pub(crate) fn parse_plain(text: &str, limits: &Limits) -> Option<(Stream, usize)> {
    parse_plain_bounded(text, limits, node_bound(text))
}

/// [`parse_plain`] with the text's [`node_bound`] already known.
pub(crate) fn parse_plain_bounded(text: &str, limits: &Limits, bound: usize) -> Option<(Stream, usize)> {
    if !allowed_chars(text) || bound > limits.max_nodes {
        return None;
    }
    let (lines, segments) = split_lines(text, bound)?;
    let mut loader = Loader {
        text,
        lines: &lines,
        pos: 0,
        end: 0,
        depth: 0,
        max_depth: limits.max_depth.min(MAX_DEPTH),
        prev_end: 0,
        warnings: Vec::new(),
        made: 0,
        spaced_flow: false,
    };
    let mut documents = Vec::with_capacity(segments.len());
    for (i, segment) in segments.iter().enumerate() {
        let next = segments.get(i + 1);
        loader.pos = segment.first;
        loader.end = next.map_or(lines.len(), |s| s.first);
        let empty = loader.pos == loader.end;
        if segment.marker.is_none() && empty {
            continue; // Only comments before the first `---`: no document.
        }
        // What the general loader's document start event leaves as the previous token end.
        loader.prev_end = segment.marker.map_or_else(|| lines[loader.pos].start, |m| m + 3);
        let root = if empty {
            // saphyr gives an empty document's null the span of the token that ends it: the
            // next `---`, or the (empty) end of the stream.
            let span = next.and_then(|s| s.marker).map_or(loader.prev_end..loader.prev_end, |m| m..m + 3);
            loader.scalar("", ScalarStyle::Plain, span)
        } else {
            let root = loader.block(0, None)?;
            if loader.pos != loader.end {
                return None;
            }
            root
        };
        let start = segment.marker.unwrap_or(root.span.start);
        let range = start..root.span.end.max(start);
        documents.push(Document { root, range, warnings: std::mem::take(&mut loader.warnings) });
    }
    Some((Stream { documents, error: None }, loader.made))
}

/// A line with content (not blank, not a whole-line comment).
struct Line<'a> {
    /// Leading spaces.
    indent: usize,
    /// Byte offset of the first non-blank character.
    start: usize,
    /// Byte offset of the end of the line (before its `\n`, after any trailing blanks).
    end: usize,
    /// From the first non-blank character, trailing blanks removed.
    text: &'a str,
}

/// The lines of one document: from `first` to the next segment's `first`.
struct Segment {
    first: usize,
    /// Byte offset of the `---` that opened the document, if any.
    marker: Option<usize>,
}

/// Content lines and documents of `text` (whose [`node_bound`] is `bound`); `None` for
/// document-end markers, directives' neighbours and `---` lines with anything after them.
fn split_lines(text: &str, bound: usize) -> Option<(Vec<Line<'_>>, Vec<Segment>)> {
    // The bound counts two for each line break, among other marks: half of it is room for
    // every line, made once rather than grown line by line.
    let mut lines = Vec::with_capacity(bound / 2);
    let mut segments = vec![Segment { first: 0, marker: None }];
    let mut offset = 0;
    for raw in crate::inline::split_lines(text) {
        let line_start = offset;
        offset += raw.len() + 1;
        let body = raw.trim_start_matches(' ');
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let indent = raw.len() - body.len();
        let body = body.trim_end_matches(' ');
        if indent == 0 && (body.starts_with("---") || body.starts_with("...")) {
            if body != "---" {
                return None;
            }
            segments.push(Segment { first: lines.len(), marker: Some(line_start) });
            continue;
        }
        let start = line_start + indent;
        lines.push(Line { indent, start, end: line_start + raw.len(), text: body });
    }
    Some((lines, segments))
}

struct Loader<'t, 'l> {
    text: &'t str,
    lines: &'l [Line<'t>],
    /// The line being read, and the end of the document's lines.
    pos: usize,
    end: usize,
    /// Open collections, and how many may be open.
    depth: usize,
    max_depth: usize,
    /// End of the last scalar or flow collection: where an empty value is placed.
    prev_end: usize,
    warnings: Vec<Warning>,
    /// Nodes made (see [`parse_plain`]).
    made: usize,
    /// A flow sequence opened by `[ ` was read: saphyr's marks after one are not followed
    /// here for block scalars (a later block scalar's span starts at its content there).
    spaced_flow: bool,
}

/// A mapping key found on a line.
struct Key<'a> {
    text: &'a str,
    style: ScalarStyle,
    span: std::ops::Range<usize>,
    /// Where the value starts in the line's text; `None` when nothing (or a comment) follows.
    value: Option<usize>,
}

impl<'t, 'l> Loader<'t, 'l> {
    fn line(&self) -> &'l Line<'t> {
        &self.lines[self.pos]
    }

    fn peek(&self) -> Option<&'l Line<'t>> {
        (self.pos < self.end).then(|| &self.lines[self.pos])
    }

    fn scalar(&mut self, value: &str, style: ScalarStyle, span: std::ops::Range<usize>) -> Node {
        self.made += 1;
        self.prev_end = self.prev_end.max(span.end);
        let resolved = if style == ScalarStyle::Plain { parse_scalar(value) } else { Scalar::String };
        scalar_node(value.to_owned(), resolved, style, span, &mut self.warnings)
    }

    fn open(&mut self) -> Option<()> {
        (self.depth < self.max_depth).then(|| self.depth += 1)
    }

    /// After a one-line value: the next line must not be indented beyond `parent` (YAML
    /// would continue the scalar there, or fail).
    fn end_scalar(&mut self, parent: Option<usize>) -> Option<()> {
        self.pos += 1;
        match (self.peek(), parent) {
            (None, _) => Some(()),
            (Some(_), None) => None,
            (Some(l), Some(p)) => (l.indent <= p).then_some(()),
        }
    }

    /// The node at byte `off` of the current line's text; `parent` is the column of the
    /// enclosing collection (`None` at the root).
    fn block(&mut self, off: usize, parent: Option<usize>) -> Option<Node> {
        let line = self.line();
        if is_entry(&line.text[off..]) {
            return self.sequence(off);
        }
        if let Some(key) = split_key(line, off)? {
            return self.mapping(line.indent + off, key);
        }
        let node = self.value(off, parent)?;
        self.end_scalar(parent)?;
        Some(node)
    }

    /// The value after `key:` or `-` with nothing else on its line (at column `col`): a more
    /// indented block, an indentless sequence (if `indentless`), or an empty null.
    fn nested(&mut self, col: usize, indentless: bool) -> Option<Node> {
        self.pos += 1;
        match self.peek() {
            Some(l) if l.indent > col => self.block(0, Some(col)),
            Some(l) if indentless && l.indent == col && is_entry(l.text) => self.sequence(0),
            _ => Some(self.scalar("", ScalarStyle::Plain, self.prev_end..self.prev_end)),
        }
    }

    /// A block sequence whose first `-` is at byte `off` of the current line.
    fn sequence(&mut self, mut off: usize) -> Option<Node> {
        self.open()?;
        let col = self.line().indent + off;
        let mut items = Vec::new();
        loop {
            let text = self.line().text;
            let rest = off + 1 + text[off + 1..].len() - text[off + 1..].trim_start_matches(' ').len();
            let item = match text.as_bytes().get(rest) {
                None | Some(b'#') => self.nested(col, false)?,
                _ if is_entry(&text[rest..]) => return None,
                _ => self.block(rest, Some(col))?,
            };
            items.push(item);
            match self.peek() {
                Some(l) if l.indent == col && is_entry(l.text) => off = 0,
                Some(l) if l.indent > col => return None,
                _ => break,
            }
        }
        self.depth -= 1;
        let start = dash_before(self.text, items[0].span.start);
        let end = items[items.len() - 1].span.end;
        self.made += 1;
        Some(Node::new(NodeValue::Sequence(items), start..end.max(start)))
    }

    /// A block mapping whose first key (`key`) is at column `col` of the current line.
    fn mapping(&mut self, col: usize, mut key: Key<'t>) -> Option<Node> {
        self.open()?;
        let mut pairs = Vec::new();
        loop {
            let key_node = self.scalar(key.text, key.style, key.span.clone());
            let value = match key.value {
                None => self.nested(col, true)?,
                Some(off) => {
                    let node = self.value(off, Some(col))?;
                    self.end_scalar(Some(col))?;
                    node
                }
            };
            pairs.push((key_node, value));
            match self.peek() {
                Some(l) if l.indent == col => key = split_key(l, 0)??,
                Some(l) if l.indent > col => return None,
                _ => break,
            }
        }
        self.depth -= 1;
        let start = pairs[0].0.span.start;
        let end = pairs[pairs.len() - 1].1.span.end;
        let entries =
            if distinct_string_keys(&pairs) { pairs } else { build_mapping(pairs, &mut self.warnings).ok()? };
        self.made += 1;
        Some(Node::new(NodeValue::Mapping(entries), start..end.max(start)))
    }

    /// A value at byte `off` of the current line, in a collection at column `parent`: a block
    /// scalar (then the current line becomes its last line), or a one-line value: `{}`, `[]`, a
    /// simple quoted scalar or a plain scalar, optionally followed by a comment.
    fn value(&mut self, off: usize, parent: Option<usize>) -> Option<Node> {
        let line = self.line();
        let text = &line.text[off..];
        let at = line.start + off;
        match text.as_bytes()[0] {
            b'{' if text.as_bytes().get(1) == Some(&b'}') && comment_or_end(&text[2..]) => {
                self.open()?;
                self.depth -= 1;
                // Like a quoted scalar's, the closing bracket's span runs over a comment.
                self.prev_end = line.end;
                self.made += 1;
                Some(Node::new(NodeValue::Mapping(Vec::new()), at..line.end))
            }
            b'[' => self.flow_sequence(off),
            // At the root, saphyr's span of a block scalar starts at its content: left to it.
            b'|' | b'>' => self.block_scalar(at, parent?),
            q @ (b'"' | b'\'') => {
                let (inner, close) = quoted(text, q)?;
                if !comment_or_end(&text[close + 1..]) {
                    return None;
                }
                let style = if q == b'"' { ScalarStyle::DoubleQuoted } else { ScalarStyle::SingleQuoted };
                Some(self.scalar(inner, style, at..line.end))
            }
            _ => {
                let value = find_pair(text, b' ', b'#').map_or(text, |c| text[..c].trim_end_matches(' '));
                if !plain_ok(value) || has_pair(value, b':', b' ') || value.ends_with(':') {
                    return None;
                }
                Some(self.scalar(value, ScalarStyle::Plain, at..at + value.len()))
            }
        }
    }
}

impl Loader<'_, '_> {
    /// The block scalar whose header is at byte `header`, in a collection at column `parent`;
    /// the current line becomes its last line. Its span runs from the header to where
    /// saphyr's scanner stopped (see [`block_scalar`]).
    fn block_scalar(&mut self, header: usize, parent: usize) -> Option<Node> {
        if self.spaced_flow {
            return None;
        }
        let block = block_scalar(self.text, header, parent)?;
        // The scalar's lines end where the first line that starts at or after its end begins.
        while self.pos + 1 < self.end && self.lines[self.pos + 1].start < block.end {
            self.pos += 1;
        }
        let style = if block.literal { ScalarStyle::Literal } else { ScalarStyle::Folded };
        self.made += 1;
        self.prev_end = self.prev_end.max(block.end);
        Some(scalar_node(block.value, Scalar::String, style, header..block.end, &mut self.warnings))
    }

    /// A one-line flow sequence of one-line scalars at byte `off` of the current line
    /// (`[a, "b", 1]`, `[ a ]`, `[]`), optionally followed by a comment.
    fn flow_sequence(&mut self, off: usize) -> Option<Node> {
        self.open()?;
        let line = self.line();
        let at = line.start + off;
        let sequence = flow_items(&line.text[off..])?;
        let span = sequence.span(line.end - at);
        let mut items = Vec::new();
        for item in sequence.items {
            let style = match item.quote {
                None => ScalarStyle::Plain,
                Some(b'"') => ScalarStyle::DoubleQuoted,
                Some(_) => ScalarStyle::SingleQuoted,
            };
            items.push(self.scalar(item.text, style, at + item.span.start..at + item.span.end));
        }
        self.depth -= 1;
        self.spaced_flow |= sequence.spaced;
        if !sequence.spaced {
            // Like a quoted scalar's, the closing bracket's span runs over a comment.
            self.prev_end = line.end;
        }
        self.made += 1;
        Some(Node::new(NodeValue::Sequence(items), at + span.start..at + span.end))
    }
}

/// Whether every key is a string other than a merge key and no two are equal: then mapping
/// assembly would keep the pairs as they are without a warning, and can be skipped (it
/// builds a hash table of owned key strings, a large part of loading small manifests).
fn distinct_string_keys(pairs: &[(Node, Node)]) -> bool {
    fn key((k, _): &(Node, Node)) -> Option<&str> {
        match &k.value {
            NodeValue::String(s) if !(s == "<<" && k.style == Some(ScalarStyle::Plain)) => Some(s.as_str()),
            _ => None,
        }
    }
    if pairs.len() <= 16 {
        return pairs
            .iter()
            .enumerate()
            .all(|(i, p)| key(p).is_some_and(|k| pairs[..i].iter().all(|q| key(q) != Some(k))));
    }
    let mut seen = std::collections::HashSet::with_capacity(pairs.len());
    pairs.iter().all(|p| key(p).is_some_and(|k| seen.insert(k)))
}

/// A block sequence entry: `-` followed by a space or the end of the line.
fn is_entry(text: &str) -> bool {
    let b = text.as_bytes();
    b.first() == Some(&b'-') && matches!(b.get(1), None | Some(b' '))
}

/// The mapping key at byte `off` of `line`'s text. `Some(None)`: not a mapping entry; `None`:
/// it is one, or might be, in a form left to the general loader.
fn split_key<'a>(line: &Line<'a>, off: usize) -> Option<Option<Key<'a>>> {
    let text = &line.text[off..];
    let b = text.as_bytes();
    let (key, style, colon) = match b[0] {
        q @ (b'"' | b'\'') => {
            let (inner, close) = quoted(text, q)?;
            let after = &text[close + 1..];
            let blanks = after.len() - after.trim_start_matches(' ').len();
            if !after[blanks..].starts_with(':') {
                return Some(None); // A quoted scalar; `value` decides whether it is simple.
            }
            let style = if q == b'"' { ScalarStyle::DoubleQuoted } else { ScalarStyle::SingleQuoted };
            (inner, style, close + 1 + blanks)
        }
        _ => {
            let Some(colon) = find_value_colon(b) else { return Some(None) };
            // A plain scalar followed by a comment: ` #` before the colon (only the key's
            // bytes are searched, not the value's, which may be long).
            if find_pair(&text[..colon], b' ', b'#').is_some() {
                return Some(None);
            }
            let key = &text[..colon];
            if !plain_ok(key) || key.ends_with(' ') {
                return None;
            }
            (key, ScalarStyle::Plain, colon)
        }
    };
    if key.len() > MAX_KEY || !matches!(b.get(colon + 1), None | Some(b' ')) {
        return None;
    }
    let value = colon + 1 + text[colon + 1..].len() - text[colon + 1..].trim_start_matches(' ').len();
    let value = (!matches!(b.get(value), None | Some(b'#'))).then_some(off + value);
    let span = line.start + off..line.start + off + colon;
    let span = if style == ScalarStyle::Plain { span.start..span.start + key.len() } else { span };
    Some(Some(Key { text: key, style, span, value }))
}
