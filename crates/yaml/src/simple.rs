//! A fast loader for the plain block YAML that machines write (`kubectl get -o yaml`, rendered
//! templates, this crate's own writer), building `serde_json` values directly.
//!
//! [`parse_stream`](crate::parse_stream) + [`Node::to_json`](crate::Node::to_json) keeps spans
//! and runs a general YAML parser; callers that only want the JSON values of well-behaved text
//! can try [`parse_simple`] first. It understands a deliberately small subset and answers
//! `None` for anything else, so that the caller falls back to the full loader. Whenever it
//! answers `Some`, the full loader would have read the same text without error or warning and
//! produced exactly the same values (same key order, same numbers).
//!
//! The subset, line by line (LF line endings; no tabs, no control characters):
//! * blank lines, whole-line `#` comments, comments after a value, and `---` alone at column
//!   0 starting a document;
//! * block mappings whose keys are plain scalars resolving to strings (not `<<`, not `yes`,
//!   `1`, `null`, …) or quote-free one-line quoted scalars, written once each;
//! * block sequences `- item`, including the indentless form under a key, `- key: v` opening a
//!   mapping at the item's column, and `-` alone followed by a nested block;
//! * values: plain one-line scalars resolved by [`parse_scalar`] as the full loader resolves
//!   them, `"…"` without `\` or `"` inside, `'…'` without `'` inside, `{}`, one-line flow
//!   sequences of such scalars (`[a, "b"]`, `[]`, as the spanned fast path takes them), and
//!   block scalars (`|`, `>`) as mapping values and sequence items (read by the `block` module
//!   that the spanned fast path shares).
//!
//! Everything else — `...`, directives, anchors, aliases, tags, other flow collections,
//! escapes, multi-line scalars, unusual indentation — gives `None`.

use serde_json::{Map, Value};

use crate::block::block_scalar;
use crate::inline::{
    FlowSequence, allowed_chars, comment_or_end, find_pair, find_value_colon, flow_items, has_pair, node_bound,
    plain_ok, quoted,
};
use crate::node::float_to_json;
use crate::scalar::{Scalar, parse_scalar};
use crate::stream::Limits;

/// Nesting beyond this many collections is left to the full loader (and its depth limit).
const MAX_DEPTH: usize = 100;
/// Longest key (in bytes) taken here; YAML limits implicit keys to 1024 characters.
const MAX_KEY: usize = 1000;
/// Largest input taken here (the full loader's default size limit is 64 MiB).
const MAX_BYTES: usize = 32 << 20;

/// Every document of `text` as JSON values, or `None` when `text` is outside the subset
/// described in the [module documentation](self).
///
/// `Some(values)` means: [`crate::parse_stream`] reads `text` without error and without
/// warnings, into as many documents, whose [`crate::Node::to_json`] equal `values`.
///
/// ```
/// use driftlint_yaml::parse_simple;
/// use serde_json::json;
/// let v = parse_simple("a: 1\nb:\n- x\n- 0755\n---\n").unwrap();
/// assert_eq!(v, vec![json!({"a": 1, "b": ["x", 493]}), json!(null)]);
/// assert_eq!(parse_simple("a: &x 1\n"), None);
/// ```
#[must_use]
pub fn parse_simple(text: &str) -> Option<Vec<Value>> {
    parse_simple_documents(text, usize::MAX)
}

/// Like [`parse_simple`], but reads at most `limit` documents: once the `limit`-th document
/// is closed by the next `---` line, the rest of the text is not looked at (it may hold
/// anything, even invalid YAML). The full loader agrees on those first documents, because it
/// finishes a document before it reads the next.
///
/// With `limit` 1 this is "the first document, if any" (an empty `Vec` when the text holds
/// only blank lines and comments).
#[must_use]
pub fn parse_simple_documents(text: &str, limit: usize) -> Option<Vec<Value>> {
    read(text, limit, &mut Values).map(|(docs, _)| docs.into_iter().map(|(value, _)| value).collect())
}

/// Like [`parse_simple`], with where each document ends as the full loader's
/// [`Document::range`](crate::Document) does: at the end of its last value (`None` for a
/// document without content). `None` also when the last content line of a document is an
/// empty sequence item (`-`), where the full loader's end is elsewhere.
///
/// ```
/// use driftlint_yaml::{parse_simple_ends, parse_stream};
/// let text = "a: 1\nb: \"x\"\n# note\n---\n---\nc: []\n";
/// let ends: Vec<_> = parse_simple_ends(text).unwrap().into_iter().map(|(_, end)| end).collect();
/// assert_eq!(ends, [Some(11), None, Some(32)]);
/// let full: Vec<_> = parse_stream(text).documents.iter().map(|d| d.range.end).collect();
/// assert_eq!(full[0], 11);
/// assert_eq!(full[2], 32);
/// assert_eq!(parse_simple_ends("a:\n  b:\n").unwrap()[0].1, Some(6));
/// assert_eq!(parse_simple_ends("- a\n-\n"), None);
/// ```
#[must_use]
pub fn parse_simple_ends(text: &str) -> Option<Vec<(Value, Option<usize>)>> {
    read(text, usize::MAX, &mut Values).and_then(|(docs, known)| known.then_some(docs))
}

/// [`parse_simple_ends`] without the values: each document's [`Shape`] (what the value is and
/// how many values it holds) and end, `Some` exactly when `parse_simple_ends` is `Some`. No
/// value is built (no string, no map), at a fraction of the cost: for callers that only need
/// to know where documents end and how large they are.
///
/// ```
/// use driftlint_yaml::{Shape, scan_simple_ends};
/// let docs = scan_simple_ends("a: 1\nb:\n- x\n- y\n---\n7\n").unwrap();
/// assert_eq!(docs[0], (Shape::Collection(7), Some(15)));
/// assert_eq!(docs[1], (Shape::Scalar, Some(21)));
/// assert_eq!(scan_simple_ends("a: 1\na: 2\n"), None);
/// ```
#[must_use]
pub fn scan_simple_ends(text: &str) -> Option<Vec<(Shape, Option<usize>)>> {
    read(text, usize::MAX, &mut Shapes::default()).and_then(|(docs, known)| known.then_some(docs))
}

/// What a document's value is, as [`scan_simple_ends`] tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// An empty document, or `null`.
    Null,
    /// Any other scalar.
    Scalar,
    /// A mapping or a sequence holding this many values, itself included: one for each item,
    /// two for each entry (its key and its value), counted through every level.
    Collection(usize),
}

impl Shape {
    /// The shape of a value (what [`scan_simple_ends`] gives for the text that
    /// [`parse_simple_ends`] reads as `value`).
    #[must_use]
    pub fn of(value: &Value) -> Shape {
        fn values(v: &Value) -> usize {
            1 + match v {
                Value::Array(items) => items.iter().map(values).sum(),
                Value::Object(entries) => entries.values().map(|v| 1 + values(v)).sum(),
                _ => 0,
            }
        }
        match value {
            Value::Null => Shape::Null,
            Value::Array(_) | Value::Object(_) => Shape::Collection(values(value)),
            _ => Shape::Scalar,
        }
    }

    /// The values it holds, itself included.
    #[must_use]
    pub fn values(self) -> usize {
        match self {
            Shape::Null | Shape::Scalar => 1,
            Shape::Collection(n) => n,
        }
    }
}

/// What the parser makes of what it reads: JSON values ([`Values`]) or their shapes
/// ([`Shapes`]). The parser accepts and refuses the same texts whatever it builds, except for a
/// key written twice, which each builder refuses itself.
trait Build<'a> {
    type Out;
    fn null(&mut self) -> Self::Out;
    fn scalar(&mut self, scalar: Simple<'a>) -> Self::Out;
    fn sequence(&mut self, items: std::vec::Drain<'_, Self::Out>) -> Self::Out;
    /// `None` when a key is written twice.
    fn mapping(&mut self, entries: std::vec::Drain<'_, (&'a str, Self::Out)>) -> Option<Self::Out>;
}

/// A one-line value the subset takes, checked, not built yet.
enum Simple<'a> {
    EmptyMap,
    /// A quoted scalar's text between its quotes (which needs no unescaping).
    Quoted(&'a str),
    /// A plain scalar and how it resolves (never a non-finite float).
    Plain(&'a str, Scalar),
    /// A block scalar's value (always a string).
    Block(String),
}

/// Builds `serde_json` values.
struct Values;

impl<'a> Build<'a> for Values {
    type Out = Value;

    fn null(&mut self) -> Value {
        Value::Null
    }

    fn scalar(&mut self, scalar: Simple<'a>) -> Value {
        match scalar {
            Simple::EmptyMap => Value::Object(Map::new()),
            Simple::Quoted(text) => Value::String(text.to_owned()),
            Simple::Block(text) => Value::String(text),
            Simple::Plain(text, resolved) => match resolved {
                Scalar::Null => Value::Null,
                Scalar::Bool(b) => Value::Bool(b),
                Scalar::Int(i) => Value::Number(i.into()),
                Scalar::Uint(u) => float_to_json(u as f64),
                Scalar::Float(f) => float_to_json(f),
                Scalar::Timestamp | Scalar::String => Value::String(text.to_owned()),
            },
        }
    }

    fn sequence(&mut self, items: std::vec::Drain<'_, Value>) -> Value {
        Value::Array(items.collect())
    }

    fn mapping(&mut self, entries: std::vec::Drain<'_, (&'a str, Value)>) -> Option<Value> {
        let mut map = Map::with_capacity(entries.len());
        for (key, value) in entries {
            // A key written twice is left to the full loader.
            if map.insert(key.to_owned(), value).is_some() {
                return None;
            }
        }
        Some(Value::Object(map))
    }
}

/// Builds [`Shape`]s.
#[derive(Default)]
struct Shapes<'a> {
    /// The keys of a large mapping, to find one written twice (kept for its allocation).
    seen: std::collections::HashSet<&'a str>,
}

impl<'a> Build<'a> for Shapes<'a> {
    type Out = Shape;

    fn null(&mut self) -> Shape {
        Shape::Null
    }

    fn scalar(&mut self, scalar: Simple<'a>) -> Shape {
        match scalar {
            Simple::EmptyMap => Shape::Collection(1),
            Simple::Plain(_, Scalar::Null) => Shape::Null,
            Simple::Quoted(_) | Simple::Plain(..) | Simple::Block(_) => Shape::Scalar,
        }
    }

    fn sequence(&mut self, items: std::vec::Drain<'_, Shape>) -> Shape {
        Shape::Collection(1 + items.map(Shape::values).sum::<usize>())
    }

    fn mapping(&mut self, entries: std::vec::Drain<'_, (&'a str, Shape)>) -> Option<Shape> {
        let keys = entries.as_slice();
        // Few keys: compared pairwise, which is cheaper than hashing them.
        let twice = if keys.len() <= 16 {
            keys.iter().enumerate().any(|(i, (k, _))| keys[..i].iter().any(|(seen, _)| seen == k))
        } else {
            self.seen.clear();
            !keys.iter().all(|(k, _)| self.seen.insert(k))
        };
        if twice {
            return None;
        }
        Some(Shape::Collection(1 + entries.map(|(_, v)| 1 + v.values()).sum::<usize>()))
    }
}

/// The documents read by [`read`], each with where the full loader ends it (`None` for a
/// document without content, and for one whose last line is an empty sequence item, which the
/// full loader places where the scalar before it ended), and whether every document with
/// content has its end.
type Read<T> = (Vec<(T, Option<usize>)>, bool);

/// The documents of `text` (at most `limit`); see [`Read`].
fn read<'a, B: Build<'a>>(text: &'a str, limit: usize, build: &mut B) -> Option<Read<B::Out>> {
    // Past the general loader's node limit (or its limit on flow indicators), it fails.
    if text.len() > MAX_BYTES || !allowed_chars(text) || node_bound(text) > Limits::default().max_nodes {
        return None;
    }
    let mut documents = Vec::new();
    // At most one entry a line: sized once instead of grown line by line.
    let mut lines: Vec<Line<'_>> = Vec::with_capacity(memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1);
    // Whether every document's end is known (see `Read`).
    let mut known = true;
    // Whether a document is open: an explicit `---` was seen, or content came before any.
    let mut open = false;
    let mut at = 0;
    for raw in crate::inline::split_lines(text) {
        let line_start = at;
        at += raw.len() + 1;
        let body = raw.trim_start_matches(' ');
        let indent = raw.len() - body.len();
        let body = body.trim_end_matches(' ');
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        if indent == 0 && body == "---" {
            if open {
                let (value, end) = document(text, &lines, build)?;
                known &= end.is_some() || lines.is_empty();
                documents.push((value, end));
                lines.clear();
                if documents.len() >= limit {
                    return Some((documents, known));
                }
            }
            open = true;
            continue;
        }
        if body.starts_with("---") || body.starts_with("...") {
            return None;
        }
        open = true;
        lines.push(Line { indent, start: line_start + indent, text: body });
    }
    if open && documents.len() < limit {
        let (value, end) = document(text, &lines, build)?;
        known &= end.is_some() || lines.is_empty();
        documents.push((value, end));
    }
    Some((documents, known))
}

/// A line with content: its indentation, the byte offset of its text, and its text without
/// the indentation and trailing blanks (never empty, never a comment).
struct Line<'a> {
    indent: usize,
    start: usize,
    text: &'a str,
}

/// One document's content lines (of `text`) to its value, and where the document ends when
/// its last line ends with a value (see [`Parser::last_end`]).
fn document<'a, B: Build<'a>>(text: &'a str, lines: &[Line<'a>], build: &mut B) -> Option<(B::Out, Option<usize>)> {
    let Some(first) = lines.first() else {
        return Some((build.null(), None));
    };
    let mut parser =
        Parser { text, lines, pos: 0, depth: 0, entries: Vec::new(), items: Vec::new(), last_end: None, build };
    let value = parser.block(first.indent, first.text, None)?;
    let end = parser.last_end;
    (parser.pos == lines.len()).then_some((value, end))
}

struct Parser<'l, 'a, 'b, B: Build<'a>> {
    /// The whole text (block scalars are read from it, not from `lines`).
    text: &'a str,
    lines: &'l [Line<'a>],
    /// The line being read.
    pos: usize,
    /// Open collections.
    depth: usize,
    /// The entries of the open mappings, innermost last: a mapping is built once complete,
    /// at its exact size (no growing of its table entry by entry).
    entries: Vec<(&'a str, B::Out)>,
    /// The same for the items of the open sequences.
    items: Vec<B::Out>,
    /// Where the general loader ends the value read last, when it ends the document's last
    /// line: a block scalar's end, a plain scalar's last character, or the end of the line
    /// (trailing blanks and comment included) after a quoted scalar, `{}` or a flow sequence,
    /// whose spans saphyr's scanner ends there, or the key's end for an empty value.
    last_end: Option<usize>,
    build: &'b mut B,
}

impl<'a, B: Build<'a>> Parser<'_, 'a, '_, B> {
    fn peek(&self) -> Option<&Line<'a>> {
        self.lines.get(self.pos)
    }

    /// After a one-line scalar on the current line: the next line must not be indented
    /// beyond `parent` (YAML would continue the scalar there, or fail).
    fn end_scalar(&mut self, parent: Option<usize>) -> Option<()> {
        self.pos += 1;
        match (self.peek(), parent) {
            (None, _) => Some(()),
            (Some(_), None) => None,
            (Some(l), Some(p)) => (l.indent <= p).then_some(()),
        }
    }

    /// The node that starts at column `col` of the current line with `text`; `parent` is the
    /// column of the enclosing collection (`None` at the root).
    fn block(&mut self, col: usize, text: &'a str, parent: Option<usize>) -> Option<B::Out> {
        if is_entry(text) {
            return self.sequence(col, text);
        }
        if let Some((key, rest)) = split_key(text)? {
            return self.mapping(col, key, rest);
        }
        let value = self.value(text, parent)?;
        self.end_scalar(parent)?;
        Some(value)
    }

    /// The value after `key:` or `-` with nothing else on the line (at column `col`): a
    /// more indented block, an indentless sequence (`indentless`), or null.
    fn nested(&mut self, col: usize, indentless: bool) -> Option<B::Out> {
        self.pos += 1;
        match self.peek() {
            Some(l) if l.indent > col => {
                let (indent, text) = (l.indent, l.text);
                self.block(indent, text, Some(col))
            }
            Some(l) if indentless && l.indent == col && is_entry(l.text) => {
                let text = l.text;
                self.sequence(col, text)
            }
            _ => Some(self.build.null()),
        }
    }

    /// A block sequence whose first `-` is at column `col` of the current line.
    fn sequence(&mut self, col: usize, mut text: &'a str) -> Option<B::Out> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let start = self.items.len();
        loop {
            let rest = text[1..].trim_start_matches(' ');
            let item = if rest.is_empty() || rest.starts_with('#') {
                self.nested(col, false)?
            } else if is_entry(rest) {
                return None;
            } else {
                self.block(col + text.len() - rest.len(), rest, Some(col))?
            };
            self.items.push(item);
            match self.peek() {
                Some(l) if l.indent == col && is_entry(l.text) => text = l.text,
                Some(l) if l.indent > col => return None,
                _ => break,
            }
        }
        self.depth -= 1;
        Some(self.build.sequence(self.items.drain(start..)))
    }

    /// The value `text` (a part of the current line) in a collection at column `parent`: a
    /// block scalar (then the current line becomes its last line; not at a document's root,
    /// which the spanned loader leaves to the general one too), a one-line flow sequence or a
    /// one-line scalar.
    fn value(&mut self, text: &'a str, parent: Option<usize>) -> Option<B::Out> {
        let last = self.pos + 1 == self.lines.len();
        let at = text.as_ptr() as usize - self.text.as_ptr() as usize;
        let line_end = || memchr::memchr(b'\n', &self.text.as_bytes()[at..]).map_or(self.text.len(), |i| at + i);
        match text.as_bytes()[0] {
            b'|' | b'>' => self.block_scalar(at, parent?),
            b'[' => {
                let sequence = flow_items(text)?;
                if last {
                    let span = sequence.span(line_end() - at);
                    self.last_end = Some(at + span.end);
                }
                self.flow_sequence(sequence)
            }
            _ => {
                let value = scalar(text)?;
                if last {
                    self.last_end = Some(match value {
                        Simple::Plain(plain, _) => at + plain.len(),
                        _ => line_end(),
                    });
                }
                Some(self.build.scalar(value))
            }
        }
    }

    /// The block scalar whose header is at byte `header` of the text, in a collection at
    /// column `parent`; the current line becomes its last line.
    fn block_scalar(&mut self, header: usize, parent: usize) -> Option<B::Out> {
        let block = block_scalar(self.text, header, parent)?;
        // The scalar's lines end where the first line that starts at or after its end begins.
        while self.pos + 1 < self.lines.len() && self.lines[self.pos + 1].start < block.end {
            self.pos += 1;
        }
        if self.pos + 1 == self.lines.len() {
            self.last_end = Some(block.end);
        }
        Some(self.build.scalar(Simple::Block(block.value)))
    }

    /// A one-line flow sequence of one-line scalars (`[a, "b"]`, `[]`), as the spanned loader
    /// takes them.
    fn flow_sequence(&mut self, sequence: FlowSequence<'a>) -> Option<B::Out> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        let start = self.items.len();
        for item in sequence.items {
            let scalar = match item.quote {
                Some(_) => Simple::Quoted(item.text),
                None => resolve(item.text)?,
            };
            let value = self.build.scalar(scalar);
            self.items.push(value);
        }
        Some(self.build.sequence(self.items.drain(start..)))
    }

    /// A block mapping whose first key is at column `col` of the current line.
    fn mapping(&mut self, col: usize, mut key: &'a str, mut rest: &'a str) -> Option<B::Out> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let start = self.entries.len();
        loop {
            let value = if rest.is_empty() || rest.starts_with('#') {
                if self.pos + 1 == self.lines.len() {
                    // The general loader places the empty value where the key's span ends:
                    // at the `:` (after a quoted key's closing quote).
                    let end = key.as_ptr() as usize - self.text.as_ptr() as usize + key.len();
                    self.last_end = Some(if self.text.as_bytes()[end] == b':' { end } else { end + 1 });
                }
                self.nested(col, true)?
            } else {
                let v = self.value(rest, Some(col))?;
                self.end_scalar(Some(col))?;
                v
            };
            self.entries.push((key, value));
            match self.peek() {
                Some(l) if l.indent == col => (key, rest) = split_key(l.text)??,
                Some(l) if l.indent > col => return None,
                _ => break,
            }
        }
        self.depth -= 1;
        self.build.mapping(self.entries.drain(start..))
    }
}

/// A block sequence entry: `-` followed by a space or the end of the line.
fn is_entry(text: &str) -> bool {
    let b = text.as_bytes();
    b.first() == Some(&b'-') && matches!(b.get(1), None | Some(b' '))
}

/// Splits `key: rest` / `key:`. `Some(None)`: the text is not a mapping entry; `None`: it is
/// one, or might be, in a form left to the full loader.
fn split_key(text: &str) -> Option<Option<(&str, &str)>> {
    let b = text.as_bytes();
    let (key, after) = match b[0] {
        q @ (b'"' | b'\'') => {
            let close = 1 + text[1..].find(q as char)?;
            let inner = &text[1..close];
            if !matches!(b.get(close + 1), Some(b':')) {
                // A quoted scalar; `scalar` decides whether it is a simple one.
                return Some(None);
            }
            if q == b'"' && inner.contains('\\') {
                return None;
            }
            (inner, close + 1)
        }
        _ => {
            let Some(colon) = find_value_colon(b) else {
                return Some(None);
            };
            let key = &text[..colon];
            if !plain_ok(key) || key.ends_with(' ') || key == "<<" || !matches!(parse_scalar(key), Scalar::String) {
                return None;
            }
            (key, colon)
        }
    };
    if key.len() > MAX_KEY || !matches!(b.get(after + 1), None | Some(b' ')) {
        return None;
    }
    Some(Some((key, text[after + 1..].trim_start_matches(' '))))
}

/// A one-line scalar: `{}`, a simple quoted scalar or a plain scalar, optionally followed by
/// a comment.
fn scalar(text: &str) -> Option<Simple<'_>> {
    let b = text.as_bytes();
    match b[0] {
        q @ (b'"' | b'\'') => {
            let (inner, close) = quoted(text, q)?;
            comment_or_end(&text[close + 1..]).then_some(Simple::Quoted(inner))
        }
        _ => {
            let text = find_pair(text, b' ', b'#').map_or(text, |c| text[..c].trim_end_matches(' '));
            if text == "{}" {
                return Some(Simple::EmptyMap);
            }
            if !plain_ok(text) || has_pair(text, b':', b' ') || text.ends_with(':') {
                return None;
            }
            resolve(text)
        }
    }
}

/// A plain scalar resolved as the full loader resolves it; `None` for `.nan`/`.inf`, which
/// the full loader reports with a warning.
fn resolve(text: &str) -> Option<Simple<'_>> {
    match parse_scalar(text) {
        Scalar::Float(f) if !f.is_finite() => None,
        resolved => Some(Simple::Plain(text, resolved)),
    }
}

#[cfg(test)]
#[path = "simple_tests.rs"]
mod tests;
