//! Builds spanned [`Node`] trees from `saphyr-parser` events, one [`Document`] per YAML
//! document, with go-yaml v2 semantics for scalars, anchors, aliases and merge keys.
//!
//! This module owns the entry points (which try `spanned`'s fast path first), positions (saphyr
//! counts characters; we keep byte offsets), the enforcement of [`Limits`] and the per-document
//! anchor table. The stream's types live in `stream`, scalar typing in `scalar`, mapping
//! assembly in `mapping`.

use std::collections::HashMap;
use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle as SaphyrStyle, ScanError, Span, Tag};

use crate::error::{Error, ErrorKind, Warning};
use crate::line_index::LineIndex;
use crate::mapping::build_mapping;
use crate::node::{Node, NodeValue, ScalarStyle};
use crate::scalar::{Scalar, Tagged, decode_binary, parse_scalar, resolve_tagged};
use crate::stream::{Document, Draw, Limits, Stream, dash_before, scalar_node};
use crate::{flow, quoted};

/// Loads every document of `text` with the default [`Limits`].
#[must_use]
pub fn parse_stream(text: &str) -> Stream {
    parse_stream_with(text, &Limits::default())
}

/// Loads every document of `text`. Never panics; see [`Stream`] for partial results.
///
/// Plain block YAML (what machines and most people write) is read by a line-based loader
/// (`spanned`) that builds the same [`Stream`] without the general parser; anything outside
/// its subset goes to the general loader.
#[must_use]
pub fn parse_stream_with(text: &str, limits: &Limits) -> Stream {
    parse_stream_counted(text, limits).0
}

/// [`parse_stream_with`], and, when the text was read whole without an error, how many nodes
/// its loading made: the count [`Limits::max_nodes`] holds a stream to (every scalar,
/// collection and alias copy, those that merge keys and duplicate keys fold away included).
/// A stream's count is the sum of its documents', so texts loaded apart can be held to one
/// budget.
#[must_use]
pub fn parse_stream_counted(text: &str, limits: &Limits) -> (Stream, Option<usize>) {
    if let Some(stream) = size_error(text, limits) {
        return (stream, None);
    }
    match limits.nodes.as_deref() {
        Some(draw) => load_drawn(text, limits, draw),
        None => match crate::spanned::parse_plain(text, limits) {
            Some((stream, made)) => (stream, Some(made)),
            None => {
                let (stream, _, made) = load_events(text, limits);
                (stream, made)
            }
        },
    }
}

/// Whether the general loader refuses `text` before reading it, for holding more flow
/// entries (`,` `[` `{`) than half of [`Limits::max_nodes`] (see `crowded`); such a text
/// never goes to the fast path either.
#[must_use]
pub fn too_many_flow_entries(text: &str, limits: &Limits) -> bool {
    crowded(text, limits.max_nodes / 2).is_some()
}

/// The flow entries of `text` as [`too_many_flow_entries`] counts them. The count of a text is
/// the sum of its parts' counts, so a text read in pieces is judged by theirs
/// ([`flow_entries_refused`]).
#[must_use]
pub fn flow_entries(text: &str) -> usize {
    text.as_bytes().chunks(FLOW_BLOCK).map(flow_in_block).sum()
}

/// Whether a text with `count` flow entries ([`flow_entries`]) is refused before it is read, as
/// [`too_many_flow_entries`] says of it.
#[must_use]
pub fn flow_entries_refused(count: usize, limits: &Limits) -> bool {
    count > limits.max_nodes / 2
}

/// How many nodes the general loader draws from a [`Draw`] at a time: few enough that what
/// a load holds unused is small beside the pool, many enough that parallel loads seldom
/// meet on the pool's counter.
const DRAW_CHUNK: usize = 16 * 1024;

/// A load whose nodes are drawn from `draw` ([`Limits::nodes`]) as they are made; the draw is
/// settled to the nodes the load made for the stream it gives, or given back whole when the
/// pool refused it.
fn load_drawn(text: &str, limits: &Limits, draw: &Draw) -> (Stream, Option<usize>) {
    let bound = crate::spanned::node_bound(text);
    let (stream, taken, made) = if bound > limits.max_nodes {
        load_events(text, limits)
    } else if draw.cap().is_some() {
        // A capped draw is held to exact counts (so that where it stops does not depend on
        // what other loads hold for a moment): the fast path's nodes are taken once made, and
        // a text they do not fit is left to the general loader, which stops at the node that
        // crosses the cap.
        match crate::spanned::parse_plain_bounded(text, limits, bound) {
            Some((stream, made)) if draw.take(made) => (stream, made, Some(made)),
            Some((stream, _)) => {
                drop(stream);
                load_events(text, limits)
            }
            None => load_events(text, limits),
        }
    } else if !draw.take(bound) {
        // The fast path builds a whole tree before it could count it: its upper bound is
        // drawn first.
        return (deferred(text), None);
    } else {
        match crate::spanned::parse_plain_bounded(text, limits, bound) {
            Some((stream, made)) => (stream, bound, Some(made)),
            None => {
                draw.give(bound);
                load_events(text, limits)
            }
        }
    };
    if draw.refused() {
        draw.give(taken);
        return (deferred(text), None);
    }
    // What the loader made when it read the whole text, else the trees' nodes.
    let held = made.unwrap_or_else(|| stream.documents.iter().map(|d| d.root.tree_size()).sum());
    match taken.checked_sub(held) {
        Some(unused) => draw.give(unused),
        None => draw.take_anyway(held - taken),
    }
    (stream, made)
}

const DEFERRED: &str = "deferred: the run's node pool is held by other loads";

/// The stream of a load the pool refused: empty, with an [`ErrorKind::Deferred`] error.
fn deferred(text: &str) -> Stream {
    let message = DEFERRED.to_owned();
    Stream { documents: Vec::new(), error: Some(located(text, ErrorKind::Deferred, message, 0, 0)) }
}

/// The general loader alone, bypassing the fast path; for tests and benchmarks that compare
/// the two.
#[doc(hidden)]
#[must_use]
pub fn parse_stream_general(text: &str, limits: &Limits) -> Stream {
    size_error(text, limits).unwrap_or_else(|| load_events(text, limits).0)
}

/// The fast path alone: `None` when `text` is outside its subset; for tests and benchmarks.
#[doc(hidden)]
#[must_use]
pub fn parse_stream_plain(text: &str, limits: &Limits) -> Option<Stream> {
    match size_error(text, limits) {
        Some(_) => None,
        None => crate::spanned::parse_plain(text, limits).map(|(stream, _)| stream),
    }
}

/// The stream for a text above the size limit.
fn size_error(text: &str, limits: &Limits) -> Option<Stream> {
    if text.len() <= limits.max_bytes {
        return None;
    }
    let message = format!("input is {} bytes, larger than the limit of {} bytes", text.len(), limits.max_bytes);
    let error = located(text, ErrorKind::SizeLimit, message, limits.max_bytes, 0);
    Some(Stream { documents: Vec::new(), error: Some(error) })
}

/// Loads `text` from `saphyr-parser`'s events; also gives how many nodes its last reading
/// took from [`Limits::nodes`] (what it did not use included; an earlier reading's are given
/// back) and, when it read the whole text without an error, how many nodes its documents were
/// made of.
fn load_events(text: &str, limits: &Limits) -> (Stream, usize, Option<usize>) {
    if let Some(at) = crowded(text, limits.max_nodes / 2) {
        let message = format!(
            "more than {} flow entries (`,` `[` `{{`): the YAML scanner would hold all of their tokens at once (a limit on memory)",
            limits.max_nodes / 2
        );
        let error = located(text, ErrorKind::NodeLimit, message, at, 0);
        return (Stream { documents: Vec::new(), error: Some(error) }, 0, Some(0));
    }
    // What go-yaml reads and saphyr does not, the text is read again, changed where that
    // leaves the value as it is: a quoted scalar's continuation line indented less than its
    // block (`quoted`); in a flow collection a line indented less than its block, the colons
    // of a plain scalar that saphyr ends before a flow indicator, a blank after a `?` that
    // starts a plain scalar; a tab after a `:`, and NEL as a line break (`flow`). Offsets are
    // mapped back to `text` after each reading.
    let mut padding = quoted::Padding::default();
    let mut masks = flow::Masks::new(text);
    let mut reading = read_events(&masks.apply(text, true), None, limits);
    let mut readings = 1;
    while padding.may_read_again(readings, text.len()) {
        let base = masks.apply(text, false);
        let colon_ends: Vec<usize> = reading.colon_ends.iter().map(|&s| padding.original(s)).collect();
        let questions: Vec<usize> = reading.question_starts.iter().map(|&s| padding.original(s)).collect();
        // Every `?` of the reading gets its blank (not only the first).
        let mut blanks = false;
        for at in questions {
            blanks |= padding.insert_blank(at);
        }
        let again = masks.add_scalars(&base, colon_ends)
            || blanks
            || reading.error.as_ref().is_some_and(|e| {
                (e.message == quoted::MESSAGE && padding.pad_scalar(&base, e.offset))
                    || (e.message == flow::TAB_AFTER_COLON && masks.add_tab(&base, e.offset))
                    || (flow::is_indentation(&e.message)
                        && reading.flow_column.is_some_and(|column| padding.pad_line(&base, e.offset, column + 1)))
            });
        if !again {
            break;
        }
        let read = padding.apply(&masks.apply(text, true));
        let unmasked = masks.has_colons().then(|| padding.apply(&masks.apply(text, false)));
        // The last reading's trees go, and their nodes back to the pool, before the next.
        drop(std::mem::take(&mut reading.documents));
        if let Some(draw) = &limits.nodes {
            draw.give(reading.taken);
        }
        reading = read_events(&read, unmasked.as_deref(), limits);
        readings += 1;
        padding.documents(&mut reading.documents);
        if let Some(e) = &mut reading.error {
            *e = located(text, e.kind, std::mem::take(&mut e.message), padding.error_offset(e), e.document);
        }
    }
    let Reading { mut documents, mut error, taken, made, .. } = reading;
    // A character YAML does not allow (NUL, ESC, …): go-yaml stops reading there ("control
    // characters are not allowed"), and saphyr either stops with whatever it expected next
    // ("unexpected end of stream") or reads on. Either way: the error is that character, and
    // only the documents before it count.
    if let Some((at, c)) = text.char_indices().find(|&(_, c)| !is_printable(c))
        && error.as_ref().is_none_or(|e| at <= e.offset)
    {
        let what = match c {
            '\0' => "NUL".to_owned(),
            c => format!("U+{:04X}", u32::from(c)),
        };
        let message = format!("invalid character {what}: YAML allows only printable characters, tab and line breaks");
        documents.retain(|d| d.range.end <= at);
        error = Some(located(text, ErrorKind::Syntax, message, at, documents.len()));
    }
    let made = error.is_none().then_some(made);
    (Stream { documents, error }, taken, made)
}

/// One reading of a text by saphyr.
struct Reading {
    /// The documents before the first error, and that error.
    documents: Vec<Document>,
    error: Option<Error>,
    /// The nodes taken from [`Limits::nodes`], and the nodes made.
    taken: usize,
    made: usize,
    /// Where each plain scalar starts that saphyr ended at a `:` before a flow indicator.
    colon_ends: Vec<usize>,
    /// Right after the `?` of each plain scalar in flow context that starts with one.
    question_starts: Vec<usize>,
    /// At an indentation error, the column of the outermost flow collection open there.
    flow_column: Option<usize>,
}

/// Reads `text` with saphyr. `unmasked` is `text` with the colons `flow::Masks` replaced
/// put back, when there are any.
fn read_events(text: &str, unmasked: Option<&str>, limits: &Limits) -> Reading {
    let mut documents = Vec::new();
    let mut loader = Loader::new(text, limits);
    loader.unmasked = unmasked;
    // saphyr-parser has internal `unwrap`s; a panic there must not take the linter down, so it
    // becomes an error at the end of what was read (the documents before it are kept).
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader.run(&mut documents).err()));
    let error = run.unwrap_or_else(|_| {
        let message = "internal YAML parser error".to_owned();
        Some(located(text, ErrorKind::Syntax, message, text.len(), documents.len()))
    });
    let flow_column = error
        .as_ref()
        .filter(|e| flow::is_indentation(&e.message))
        .and_then(|e| open_flow_column(text, e.offset, limits));
    Reading {
        documents,
        error,
        taken: loader.taken,
        made: loader.stream_nodes,
        colon_ends: loader.colon_ends,
        question_starts: loader.question_starts,
        flow_column,
    }
}

/// The column of the outermost flow collection open at `at`: those left open when the text
/// before `at` is read. (At saphyr's error the loader may not have seen a collection's start
/// yet: saphyr queues a flow collection's tokens while it could still be a key.)
fn open_flow_column(text: &str, at: usize, limits: &Limits) -> Option<usize> {
    let prefix = text.get(..at)?;
    let limits = Limits { nodes: None, ..limits.clone() };
    let mut loader = Loader::new(prefix, &limits);
    let mut documents = Vec::new();
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader.run(&mut documents)));
    let start = loader.stack.iter().find(|f| f.flow)?.start;
    let line_start = prefix[..start].rfind('\n').map_or(0, |i| i + 1);
    Some(prefix[line_start..start].chars().count())
}

/// Where the text's flow indicators (`,` `[` `{`) first number more than `limit`, if they do.
///
/// saphyr's scanner queues every token of a flow collection that starts in block context
/// before it gives the collection's first event (the collection could still be an implicit
/// key), about 70 bytes per token and across lines: a JSON array of 6 million numbers asked
/// for 1.7 GB in one allocation before the node budget could count a node. Every flow node
/// but one follows one of these indicators, so this bounds the queue and the flow nodes alike.
///
/// Counted a block of 64 bytes at a time (a count without a stop inside the block, which the
/// compiler vectorises); the block where the limit is crossed is read again for the byte.
fn crowded(text: &str, limit: usize) -> Option<usize> {
    let mut count = 0;
    for (n, block) in text.as_bytes().chunks(FLOW_BLOCK).enumerate() {
        let here = flow_in_block(block);
        if count + here > limit {
            let (i, _) = block.iter().enumerate().filter(|(_, b)| is_flow(**b)).nth(limit - count)?;
            return Some(n * FLOW_BLOCK + i);
        }
        count += here;
    }
    None
}

/// The bytes [`crowded`] counts a block of at a time.
const FLOW_BLOCK: usize = crate::inline::BLOCK;

fn is_flow(b: u8) -> bool {
    matches!(b, b',' | b'[' | b'{')
}

/// The flow indicators of a block of at most [`FLOW_BLOCK`] bytes.
fn flow_in_block(block: &[u8]) -> usize {
    crate::inline::count_in_block(block, is_flow)
}

/// YAML's `c-printable`: tab, line feed, carriage return, printable ASCII, NEL and the
/// printable ranges of Unicode (the byte order mark included).
fn is_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
        || c >= '\u{10000}'
}

/// Builds an [`Error`] with its line and column.
fn located(text: &str, kind: ErrorKind, message: String, offset: usize, document: usize) -> Error {
    let at = LineIndex::new(text).line_column(text, offset);
    let offset = offset.min(text.len());
    Error { kind, message, offset, line: at.line, column: at.column, document }
}

/// Converts saphyr's character indices to byte offsets. ASCII text maps one to one; otherwise
/// a checkpoint every `STRIDE` characters bounds the walk.
struct Offsets<'a> {
    text: &'a str,
    checkpoints: Option<Vec<usize>>,
}

const STRIDE: usize = 32;

impl<'a> Offsets<'a> {
    fn new(text: &'a str) -> Self {
        let checkpoints = (!text.is_ascii()).then(|| text.char_indices().step_by(STRIDE).map(|(i, _)| i).collect());
        Offsets { text, checkpoints }
    }

    fn byte(&self, char_index: usize) -> usize {
        let Some(checkpoints) = &self.checkpoints else {
            return char_index.min(self.text.len());
        };
        let Some(&base) = checkpoints.get(char_index / STRIDE) else {
            return self.text.len();
        };
        let skip = char_index % STRIDE;
        let rest = &self.text[base..];
        base + rest.char_indices().nth(skip).map_or(rest.len(), |(i, _)| i)
    }

    fn range(&self, span: Span) -> Range<usize> {
        let start = self.byte(span.start.index());
        start..self.byte(span.end.index()).max(start)
    }
}

/// An open collection.
struct Frame {
    kind: FrameKind,
    /// Byte offset where the collection starts, and whether it is a flow collection.
    start: usize,
    flow: bool,
    anchor: usize,
    tag: Option<Box<str>>,
    /// 1 + the largest height among children.
    height: usize,
    /// 1 + the nodes of all children (prices alias expansion of this collection).
    nodes: usize,
}

enum FrameKind {
    Sequence(Vec<Node>),
    Mapping { pairs: Vec<(Node, Node)>, key: Option<Node> },
}

/// A finished anchored node, kept for aliases.
struct Anchored {
    node: Node,
    nodes: usize,
    height: usize,
}

struct Loader<'a> {
    text: &'a str,
    offsets: Offsets<'a>,
    limits: &'a Limits,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Anchored>,
    warnings: Vec<Warning>,
    /// Nodes written in the document, and nodes created by alias expansion.
    real_nodes: usize,
    alias_nodes: usize,
    /// Nodes of the whole stream, against [`Limits::max_nodes`].
    stream_nodes: usize,
    /// Nodes taken from [`Limits::nodes`] (in chunks), and how many of them are not used yet.
    taken: usize,
    reserve: usize,
    /// End of the last scalar, alias or flow token: where a block scalar header is searched.
    prev_end: usize,
    document: usize,
    doc_start: Option<(usize, bool)>,
    root: Option<Node>,
    /// Open flow collections.
    flow_depth: usize,
    /// See [`Reading::colon_ends`] and [`Reading::question_starts`].
    colon_ends: Vec<usize>,
    question_starts: Vec<usize>,
    /// The text with masked colons put back (see `flow`), when some are masked.
    unmasked: Option<&'a str>,
}

type Step<T = ()> = Result<T, Error>;

impl<'a> Loader<'a> {
    fn new(text: &'a str, limits: &'a Limits) -> Self {
        Loader {
            text,
            offsets: Offsets::new(text),
            limits,
            stack: Vec::new(),
            anchors: HashMap::new(),
            warnings: Vec::new(),
            real_nodes: 0,
            alias_nodes: 0,
            stream_nodes: 0,
            taken: 0,
            reserve: 0,
            prev_end: 0,
            document: 0,
            doc_start: None,
            root: None,
            flow_depth: 0,
            colon_ends: Vec::new(),
            question_starts: Vec::new(),
            unmasked: None,
        }
    }

    fn error(&self, kind: ErrorKind, message: impl Into<String>, offset: usize) -> Error {
        located(self.text, kind, message.into(), offset, self.document)
    }

    fn scan_error(&self, e: &ScanError) -> Error {
        let offset = self.offsets.byte(e.marker().index());
        // saphyr guards its own recursion; report that like our depth limit.
        let kind = if e.info().contains("recursion limit") { ErrorKind::DepthLimit } else { ErrorKind::Syntax };
        self.error(kind, e.info().to_owned(), offset)
    }

    fn run(&mut self, documents: &mut Vec<Document>) -> Step {
        let mut parser = Parser::new_from_str(self.text);
        while let Some(next) = parser.next_event() {
            let (event, span) = next.map_err(|e| self.scan_error(&e))?;
            let range = self.offsets.range(span);
            match event {
                Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
                Event::DocumentStart(explicit) => {
                    self.doc_start = Some((range.start, explicit));
                    self.prev_end = range.end;
                }
                Event::DocumentEnd => documents.push(self.finish_document(range)),
                Event::Alias(id) => self.alias(id, range)?,
                Event::Scalar(value, style, anchor, tag) => {
                    self.scalar(value.into_owned(), style, anchor, tag.as_deref(), range)?;
                }
                Event::SequenceStart(anchor, tag) => {
                    self.open(FrameKind::Sequence(Vec::new()), anchor, tag.as_deref(), range)?;
                }
                Event::MappingStart(anchor, tag) => {
                    let kind = FrameKind::Mapping { pairs: Vec::new(), key: None };
                    self.open(kind, anchor, tag.as_deref(), range)?;
                }
                Event::SequenceEnd | Event::MappingEnd => self.close(range)?,
            }
        }
        Ok(())
    }

    fn finish_document(&mut self, end: Range<usize>) -> Document {
        let root = self.root.take().unwrap_or_else(|| Node::new(NodeValue::Null, 0..0));
        let (start, explicit) = self.doc_start.take().unwrap_or((root.span.start, false));
        let start = if explicit { start } else { root.span.start };
        // An explicit `...` ends the document; an implicit end sits at the next token.
        let explicit_end = self.text.get(end.clone()).is_some_and(|t| t.starts_with("..."));
        let end = if explicit_end { end.end.max(root.span.end) } else { root.span.end };
        self.anchors.clear();
        self.real_nodes = 0;
        self.alias_nodes = 0;
        self.document += 1;
        Document { range: start..end.max(start), root, warnings: std::mem::take(&mut self.warnings) }
    }

    /// Counts `n` more nodes of the stream, at `offset`.
    fn count_nodes(&mut self, n: usize, offset: usize) -> Step {
        self.stream_nodes = self.stream_nodes.saturating_add(n);
        if self.stream_nodes > self.limits.max_nodes {
            return Err(self.node_limit(offset));
        }
        self.draw_nodes(n, offset)
    }

    /// Takes `n` nodes from the run's pool ([`Limits::nodes`]), a chunk at a time; a refusal
    /// stops the load (the caller gives everything back and defers the text).
    fn draw_nodes(&mut self, n: usize, offset: usize) -> Step {
        let Some(draw) = self.limits.nodes.as_deref() else { return Ok(()) };
        if self.reserve < n {
            // A capped draw is taken node by node, so that the node it stops at does not
            // depend on chunks.
            let chunk = if draw.cap().is_some() { n - self.reserve } else { (n - self.reserve).max(DRAW_CHUNK) };
            if !draw.take(chunk) {
                return Err(match draw.cap() {
                    Some(cap) => {
                        let msg = format!(
                            "the run's documents would hold more than {cap} YAML nodes at once (a limit on memory for a run that keeps every document: a combined policy input, or lookups over every object)"
                        );
                        self.error(ErrorKind::NodeLimit, msg, offset)
                    }
                    None => self.error(ErrorKind::Deferred, DEFERRED, offset),
                });
            }
            self.taken += chunk;
            self.reserve += chunk;
        }
        self.reserve -= n;
        Ok(())
    }

    fn node_limit(&self, offset: usize) -> Error {
        let msg = format!(
            "the parsed form would hold more than {} YAML nodes (a limit on memory; the text is {} bytes)",
            self.limits.max_nodes,
            self.text.len()
        );
        self.error(ErrorKind::NodeLimit, msg, offset)
    }

    fn open(&mut self, kind: FrameKind, anchor: usize, tag: Option<&Tag>, range: Range<usize>) -> Step {
        if self.stack.len() >= self.limits.max_depth {
            let msg = format!("nesting deeper than the limit of {}", self.limits.max_depth);
            return Err(self.error(ErrorKind::DepthLimit, msg, range.start));
        }
        self.count_nodes(1, range.start)?;
        self.real_nodes += 1;
        // Flow collections start with their bracket; block ones have an empty (or
        // properties-only) start span and end where their last child ends.
        let flow =
            matches!(self.text.as_bytes().get(range.end.wrapping_sub(1)), Some(b'[' | b'{')) && !range.is_empty();
        if flow {
            self.prev_end = range.end;
            self.flow_depth += 1;
        }
        let tag = tag.map(short_tag);
        self.stack.push(Frame { kind, start: range.start, flow, anchor, tag, height: 1, nodes: 1 });
        Ok(())
    }

    fn close(&mut self, range: Range<usize>) -> Step {
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        let (value, end, first) = match frame.kind {
            FrameKind::Sequence(items) => {
                let end = items.last().map(|n| n.span.end);
                let first = items.first().map(|n| n.span.start);
                (NodeValue::Sequence(items), end, first)
            }
            FrameKind::Mapping { pairs, .. } => {
                let end = pairs.last().map(|(_, v)| v.span.end);
                let first = pairs.first().map(|(k, _)| k.span.start);
                let entries = build_mapping(pairs, &mut self.warnings)
                    .map_err(|(msg, at)| self.error(ErrorKind::Merge, msg, at))?;
                (NodeValue::Mapping(entries), end, first)
            }
        };
        let span = if frame.flow {
            self.flow_depth -= 1;
            self.prev_end = range.end;
            frame.start..range.end
        } else {
            let start = match (&value, first) {
                (NodeValue::Sequence(_), Some(first)) => dash_before(self.text, first),
                (_, Some(first)) => frame.start.min(first),
                _ => frame.start,
            };
            start..end.unwrap_or(frame.start).max(start)
        };
        let mut node = Node::new(value, span);
        node.set_tag(frame.tag);
        self.complete(node, frame.anchor, frame.height, frame.nodes)
    }

    fn scalar(
        &mut self,
        value: String,
        style: SaphyrStyle,
        anchor: usize,
        tag: Option<&Tag>,
        mut range: Range<usize>,
    ) -> Step {
        self.count_nodes(1, range.start)?;
        self.real_nodes += 1;
        let style = match style {
            SaphyrStyle::Plain => ScalarStyle::Plain,
            SaphyrStyle::SingleQuoted => ScalarStyle::SingleQuoted,
            SaphyrStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
            SaphyrStyle::Literal => ScalarStyle::Literal,
            SaphyrStyle::Folded => ScalarStyle::Folded,
        };
        if style == ScalarStyle::DoubleQuoted
            && quoted::has_slash_escape(self.text.get(range.clone()).unwrap_or_default())
        {
            let msg = "found unknown escape character `\\/` (YAML 1.1, which Kubernetes reads, has no such escape: write `/`)";
            return Err(self.error(ErrorKind::Syntax, msg, range.start));
        }
        if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
            range.start = self.block_header(range.start);
        } else if range.is_empty() && value.is_empty() {
            // An empty value (`key:`) has no text; place it right after what precedes it.
            range = self.prev_end..self.prev_end;
        }
        self.prev_end = self.prev_end.max(range.end);
        let mut value = value;
        if self.flow_depth > 0 && style == ScalarStyle::Plain {
            value = self.flow_plain(value, &range)?;
        }
        let tag = tag.map(short_tag);
        // go-yaml v2 decodes `!!binary` to its bytes: the value is their text.
        let value = match tag.as_deref() {
            Some("!!binary") => match decode_binary(&value) {
                Some(text) => text,
                None => {
                    let msg = "!!binary value contains invalid base64 data".to_owned();
                    return Err(self.error(ErrorKind::Tag, msg, range.start));
                }
            },
            _ => value,
        };
        let resolved = match (&tag, style) {
            (Some(t), _) if is_core_tag(t) => match resolve_tagged(t, &value) {
                Tagged::Value(s) => s,
                Tagged::Mismatch { found } => {
                    let msg = format!("cannot decode {found} `{value}` as a {t}");
                    return Err(self.error(ErrorKind::Tag, msg, range.start));
                }
            },
            (None, ScalarStyle::Plain) => parse_scalar(&value),
            _ => Scalar::String,
        };
        let mut node = scalar_node(value, resolved, style, range, &mut self.warnings);
        node.set_tag(tag);
        self.complete(node, anchor, 0, 1)
    }

    /// A plain scalar in flow context, where go-yaml v2 reads otherwise than saphyr (see
    /// `flow`): refused, noted for a reading with its colons masked, or (in that reading)
    /// given back its colons.
    fn flow_plain(&mut self, value: String, range: &Range<usize>) -> Step<String> {
        let source = self.text.get(range.clone()).unwrap_or_default();
        if let Some(why) = flow::go_refuses(source) {
            return Err(self.error(ErrorKind::Syntax, why, range.start));
        }
        if flow::colon_before_flow_indicator(self.text, range.end) {
            self.colon_ends.push(range.start);
        }
        if source.len() > 1 && source.starts_with('?') {
            self.question_starts.push(range.start + 1);
        }
        match self.unmasked.and_then(|u| u.get(range.clone())) {
            Some(original) if original != source => Ok(flow::unmask(&value, source, original)),
            _ => Ok(value),
        }
    }

    /// Block scalar spans from saphyr start at the content; move the start back to the `|`/`>`
    /// header so that a diagnostic lands on the key's line.
    fn block_header(&self, content: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = self.prev_end.min(content);
        while i < content {
            match bytes[i] {
                b' ' | b'\t' | b'\r' | b'\n' | b':' | b'-' | b'?' | b',' => i += 1,
                b'#' => {
                    while i < content && bytes[i] != b'\n' {
                        i += 1;
                    }
                }
                b'|' | b'>' | b'&' | b'!' => return i,
                _ => return content,
            }
        }
        content
    }

    fn alias(&mut self, id: usize, range: Range<usize>) -> Step {
        self.prev_end = self.prev_end.max(range.end);
        let Some(anchored) = self.anchors.get(&id) else {
            // Either the anchor is still open (the alias is inside the node it names), or it is
            // in another document: anchors end at `---`, as go-yaml's do.
            if self.stack.iter().any(|f| f.anchor == id) {
                let msg = "alias refers to a node that contains it";
                return Err(self.error(ErrorKind::RecursiveAlias, msg, range.start));
            }
            let name = self.text.get(range.clone()).unwrap_or_default().trim_start_matches('*');
            let msg = format!("unknown anchor '{name}' referenced (anchors do not reach across documents)");
            return Err(self.error(ErrorKind::Syntax, msg, range.start));
        };
        let (nodes, height) = (anchored.nodes, anchored.height);
        if self.stack.len() + height > self.limits.max_depth {
            let msg = format!("alias expands to nesting deeper than the limit of {}", self.limits.max_depth);
            return Err(self.error(ErrorKind::DepthLimit, msg, range.start));
        }
        self.alias_nodes = self.alias_nodes.saturating_add(nodes);
        let ratio_floor = self.limits.max_alias_nodes / 100;
        if self.alias_nodes > self.limits.max_alias_nodes
            || (self.alias_nodes > ratio_floor && self.alias_nodes / self.limits.alias_ratio.max(1) > self.real_nodes)
        {
            let msg = format!(
                "excessive aliasing: aliases expand to more than {} nodes",
                self.alias_nodes.min(self.limits.max_alias_nodes)
            );
            return Err(self.error(ErrorKind::AliasLimit, msg, range.start));
        }
        self.stream_nodes = self.stream_nodes.saturating_add(nodes);
        if self.stream_nodes > self.limits.max_nodes {
            return Err(self.node_limit(range.start));
        }
        // Drawn before the copy is made; the anchor is still there (the draw does not touch it).
        self.draw_nodes(nodes, range.start)?;
        let Some(mut node) = self.anchors.get(&id).map(|a| a.node.clone()) else { return Ok(()) };
        node.set_alias(Some(range));
        self.complete(node, 0, height, nodes)
    }

    /// Hands a finished node to its parent (or makes it the root), registering its anchor.
    fn complete(&mut self, node: Node, anchor: usize, height: usize, nodes: usize) -> Step {
        if anchor != 0 {
            self.anchors.insert(anchor, Anchored { node: node.clone(), nodes, height });
        }
        let Some(parent) = self.stack.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        // go-yaml does not skip a tab right after a block sequence's `-` (it is where a simple
        // key may start) and stops: "found character that cannot start any token".
        if !parent.flow && matches!(parent.kind, FrameKind::Sequence(_)) && tab_after_dash(self.text, node.span.start) {
            let msg = "found a tab after a block sequence's `-`, which YAML 1.1 (Kubernetes) refuses: use spaces";
            return Err(located(self.text, ErrorKind::Syntax, msg.to_owned(), node.span.start, self.document));
        }
        parent.height = parent.height.max(height + 1);
        parent.nodes = parent.nodes.saturating_add(nodes);
        match &mut parent.kind {
            FrameKind::Sequence(items) => items.push(node),
            FrameKind::Mapping { pairs, key } => match key.take() {
                None => *key = Some(node),
                Some(k) => pairs.push((k, node)),
            },
        }
        Ok(())
    }
}

/// Whether the blanks right before `start` hold a tab and follow a `-`.
fn tab_after_dash(text: &str, start: usize) -> bool {
    let bytes = &text.as_bytes()[..start.min(text.len())];
    let blanks = bytes.iter().rev().take_while(|b| matches!(b, b' ' | b'\t')).count();
    let dash = bytes.len() - blanks;
    dash > 0 && bytes[dash - 1] == b'-' && bytes[dash..].contains(&b'\t')
}

fn short_tag(tag: &Tag) -> Box<str> {
    let s = if tag.handle == "tag:yaml.org,2002:" {
        format!("!!{}", tag.suffix)
    } else {
        format!("{}{}", tag.handle, tag.suffix)
    };
    s.into_boxed_str()
}

fn is_core_tag(tag: &str) -> bool {
    matches!(tag, "!!str" | "!!int" | "!!bool" | "!!float" | "!!null" | "!!timestamp" | "!!binary")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_path_counts_the_nodes_the_general_loader_makes() {
        let texts = [
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {}\ndata:\n  a: \"1\"\n",
            "a:\nb: []\nc: [x, 'y', 1]\nd:\n- 1\n- k: v\n  j:\n",
            "a:\nb: []\nc: [x, 'y', 1]\nd:\n- 1\n- - nested\n",
            "base: &x\n  a: 1\n",
            "m:\n  <<:\n    a: 1\n    b: 2\n  a: 3\n",
            "a: 1\nb: 2\na: 3\n",
            "---\n---\n# only a comment\n---\nk: v\n",
            "list:\n- a\n- b\nempty:\n",
        ];
        let mut compared = 0;
        for text in texts {
            let general = load_events(text, &Limits::default());
            assert_eq!(general.0.error, None, "{text}");
            // Outside the fast path's subset (an anchor, a nested entry): nothing to compare.
            if let Some((stream, made)) = crate::spanned::parse_plain(text, &Limits::default()) {
                assert_eq!(stream, general.0, "{text}");
                assert_eq!(Some(made), general.2, "{text}");
                compared += 1;
            }
        }
        assert!(compared >= 5, "{compared}");
    }

    /// Read in blocks, the crossing is the byte a byte-by-byte count stops at, wherever it
    /// falls in a block and whatever the limit.
    #[test]
    fn the_crowding_byte_is_found_in_its_block() {
        fn one_by_one(text: &str, limit: usize) -> Option<usize> {
            let mut count = 0;
            for (i, b) in text.bytes().enumerate() {
                if matches!(b, b',' | b'[' | b'{') {
                    count += 1;
                    if count > limit {
                        return Some(i);
                    }
                }
            }
            None
        }
        let mut next = crate::test_rng::numbers(11);
        for _ in 0..300 {
            let text: String = (0..next() % 400).map(|_| ['a', ',', '[', '{', ' ', '\n'][next() % 6]).collect();
            for limit in [0, 1, 2, 5, 63, 64, 65, next() % 200, usize::MAX] {
                assert_eq!(crowded(&text, limit), one_by_one(&text, limit), "limit {limit}: {text:?}");
            }
            // Counted whole or as the sum of any two parts, the count is the bytes'.
            let cut = next() % (text.len() + 1);
            let bytes = text.bytes().filter(|b| matches!(b, b',' | b'[' | b'{')).count();
            assert_eq!(flow_entries(&text), bytes);
            assert_eq!(flow_entries(&text[..cut]) + flow_entries(&text[cut..]), bytes);
        }
    }
}
