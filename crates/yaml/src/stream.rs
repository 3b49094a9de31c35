//! What loading YAML gives and is bounded by: a [`Stream`] of [`Document`]s, the [`Limits`]
//! for untrusted input, and the node builders both loaders share (`load`'s general loader on
//! `saphyr-parser` events and `spanned`'s line-based fast path), so that both make the same
//! nodes.
//!
//! It also holds the [`NodePool`], a budget of live parsed nodes shared by every load of a
//! run: a loader given a [`Draw`] (through [`Limits::nodes`]) takes its nodes from the pool as
//! it counts them, and the holder of the draw gives them back by dropping it with its trees.
//!
//! This module holds data and small constructors only; it knows neither loader.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::error::{Error, Warning};
use crate::node::{Node, NodeValue, ScalarStyle};
use crate::scalar::Scalar;

/// Resource limits for untrusted input. Exceeding one stops the stream with an [`Error`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Maximum nesting of sequences and mappings, counted after alias expansion (default 256).
    pub max_depth: usize,
    /// Maximum input size in bytes (default 64 MiB).
    pub max_bytes: usize,
    /// Maximum number of nodes created by alias expansion in one document (default 1,000,000).
    pub max_alias_nodes: usize,
    /// Alias expansion may create at most this many nodes per node written in the document,
    /// once past `max_alias_nodes / 100` nodes (default 100). go-yaml v2 has a similar ratio
    /// check ("document contains excessive aliasing").
    pub alias_ratio: usize,
    /// Maximum number of nodes in one stream (all its documents, written and made by alias
    /// expansion; default 2,000,000). The parsed form costs far more than its text — a JSON
    /// flow sequence `[0,0,…]` is two bytes per node in the file and a few hundred bytes per
    /// node in memory — so it is bounded by nodes, not bytes.
    pub max_nodes: usize,
    /// Where the loaded nodes are drawn from, when they count against a run-wide
    /// [`NodePool`] (default: they do not). A draw the pool refuses stops the load with an
    /// [`crate::ErrorKind::Deferred`] error and an empty stream; the per-text limits above
    /// are unchanged by it.
    pub nodes: Option<Arc<Draw>>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 256,
            max_bytes: 64 << 20,
            max_alias_nodes: 1_000_000,
            alias_ratio: 100,
            max_nodes: 2_000_000,
            nodes: None,
        }
    }
}

/// A run-wide budget of live parsed nodes: a capacity and the nodes drawn from it by the
/// [`Draw`]s alive.
///
/// The pool bounds work done *ahead*: an opportunistic draw ([`NodePool::draw`]) is refused
/// once it would take the pool past its capacity, and its holder is expected to give its
/// nodes back (drop the draw with whatever it loaded) and load the text again later with a
/// forced draw ([`NodePool::draw_forced`]), which is counted but never refused. What a text
/// loads is therefore never decided by the pool — only when it is loaded — so output does not
/// depend on timing or on how many threads share the pool. Nothing ever waits for the pool.
#[derive(Debug)]
pub struct NodePool {
    capacity: usize,
    used: AtomicUsize,
}

impl NodePool {
    /// A pool of `capacity` nodes.
    #[must_use]
    pub fn new(capacity: usize) -> Arc<NodePool> {
        Arc::new(NodePool { capacity, used: AtomicUsize::new(0) })
    }

    /// How many nodes the pool holds at most for opportunistic draws.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many nodes the draws alive hold (forced ones included).
    #[must_use]
    pub fn in_use(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }

    /// A draw that the pool refuses past its capacity.
    #[must_use]
    pub fn draw(self: &Arc<Self>) -> Arc<Draw> {
        Arc::new(Draw::new(self, Mode::Opportunistic))
    }

    /// A draw that is counted but never refused (the load that must happen now).
    #[must_use]
    pub fn draw_forced(self: &Arc<Self>) -> Arc<Draw> {
        Arc::new(Draw::new(self, Mode::Forced))
    }

    /// A draw that is counted and holds at most `cap` nodes itself, whatever the others hold:
    /// a holder that must keep every document of a run at once, loaded one text after the
    /// other so that where it stops does not depend on timing. A load it refuses stops with an
    /// [`crate::ErrorKind::NodeLimit`] error at the node that crosses the cap (its documents
    /// before that node are kept); a later text loads as far as what is left allows.
    #[must_use]
    pub fn draw_capped(self: &Arc<Self>, cap: usize) -> Arc<Draw> {
        Arc::new(Draw::new(self, Mode::Capped(cap)))
    }

    /// Takes `n` nodes if they fit under the capacity.
    fn try_take(&self, n: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(n).filter(|&total| total <= self.capacity)
            })
            .is_ok()
    }

    fn take(&self, n: usize) {
        self.used.fetch_add(n, Ordering::AcqRel);
    }

    fn give(&self, n: usize) {
        // Never below zero, whatever a caller gives back.
        let _ = self.used.fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| Some(used.saturating_sub(n)));
    }
}

/// The nodes one holder (all the texts of one batch) has drawn from a [`NodePool`]; they go
/// back to the pool when the draw is dropped, so it is dropped after the trees it paid for.
///
/// Shared (`Arc`) by the loads of the holder's texts, which may run in parallel. Once
/// refused, an opportunistic draw stays refused: every load that uses it stops at its next
/// draw.
#[derive(Debug)]
pub struct Draw {
    pool: Arc<NodePool>,
    held: AtomicUsize,
    mode: Mode,
    refused: AtomicBool,
}

/// When a [`Draw`] is refused.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// Past the pool's capacity.
    Opportunistic,
    /// Never.
    Forced,
    /// Past this many nodes held by the draw itself.
    Capped(usize),
}

impl Draw {
    fn new(pool: &Arc<NodePool>, mode: Mode) -> Draw {
        Draw { pool: Arc::clone(pool), held: AtomicUsize::new(0), mode, refused: AtomicBool::new(false) }
    }

    /// Takes `n` more nodes from the pool; `false` when they are refused: an opportunistic
    /// draw past the pool's capacity (and from then on), a capped draw past its cap, a forced
    /// draw never.
    pub fn take(&self, n: usize) -> bool {
        match self.mode {
            Mode::Forced => {
                self.pool.take(n);
                self.held.fetch_add(n, Ordering::AcqRel);
            }
            Mode::Capped(cap) => {
                let fits = |held: usize| held.checked_add(n).filter(|&total| total <= cap);
                if self.held.fetch_update(Ordering::AcqRel, Ordering::Acquire, fits).is_err() {
                    return false;
                }
                self.pool.take(n);
            }
            Mode::Opportunistic => {
                if self.refused.load(Ordering::Acquire) || !self.pool.try_take(n) {
                    self.refused.store(true, Ordering::Release);
                    return false;
                }
                self.held.fetch_add(n, Ordering::AcqRel);
            }
        }
        true
    }

    /// Takes `n` more nodes whatever the pool holds (nodes already loaded, settled after the
    /// fact).
    pub fn take_anyway(&self, n: usize) {
        self.pool.take(n);
        self.held.fetch_add(n, Ordering::AcqRel);
    }

    /// Gives back `n` of the nodes held (at most all of them).
    pub fn give(&self, n: usize) {
        let mut given = 0;
        let _ = self.held.fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
            given = n.min(held);
            Some(held - given)
        });
        self.pool.give(given);
    }

    /// How many nodes this draw holds.
    #[must_use]
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }

    /// Whether the pool refused this opportunistic draw: what was loaded with it is
    /// incomplete, and is to be loaded again later.
    #[must_use]
    pub fn refused(&self) -> bool {
        self.refused.load(Ordering::Acquire)
    }

    /// The cap of a capped draw ([`NodePool::draw_capped`]).
    #[must_use]
    pub fn cap(&self) -> Option<usize> {
        match self.mode {
            Mode::Capped(cap) => Some(cap),
            _ => None,
        }
    }
}

impl Drop for Draw {
    fn drop(&mut self) {
        self.pool.give(*self.held.get_mut());
    }
}

/// Draws are equal only to themselves (so that [`Limits`] compare as values otherwise).
impl PartialEq for Draw {
    fn eq(&self, other: &Draw) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Draw {}

/// One YAML document of a stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The root node (`Null` for an empty document).
    pub root: Node,
    /// The byte range of the document in the file, from its `---` (if any) to the end of its
    /// content (or its `...`).
    pub range: Range<usize>,
    /// Problems that did not stop loading (duplicate keys, …).
    pub warnings: Vec<Warning>,
}

/// The result of loading a stream: every document read before the first error, and that error.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    /// Complete documents, in order.
    pub documents: Vec<Document>,
    /// The error that stopped loading, if any. The document it happened in is not included.
    pub error: Option<Error>,
}

impl Stream {
    /// The documents, or the error if there was one.
    ///
    /// # Errors
    /// The error that stopped loading.
    pub fn into_result(self) -> Result<Vec<Document>, Error> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.documents),
        }
    }
}

/// The node of a scalar whose text (after unescaping) is `value` and whose resolution is
/// `resolved`; records a [`Warning::NonFiniteFloat`] for `.nan`/`.inf`. The fast loader
/// (`spanned`) builds its scalars here too, so both paths make the same nodes.
pub(crate) fn scalar_node(
    value: String,
    resolved: Scalar,
    style: ScalarStyle,
    range: Range<usize>,
    warnings: &mut Vec<Warning>,
) -> Node {
    let node_value = match resolved {
        Scalar::Null => NodeValue::Null,
        Scalar::Bool(b) => NodeValue::Bool(b),
        Scalar::Int(i) => NodeValue::Int(i),
        Scalar::Uint(u) => NodeValue::Float(u as f64),
        Scalar::Float(f) => {
            if !f.is_finite() {
                warnings.push(Warning::NonFiniteFloat { span: range.clone() });
            }
            NodeValue::Float(f)
        }
        Scalar::Timestamp | Scalar::String => NodeValue::String(String::new()),
    };
    let mut node = Node::new(node_value, range);
    node.style = Some(style);
    match &mut node.value {
        NodeValue::String(s) => *s = value,
        _ => node.raw = Some(value.into_boxed_str()),
    }
    node
}

/// The `-` of a block sequence's first entry, found by walking back over blanks from the
/// entry's start; the start itself when there is none. A block sequence's span starts there.
pub(crate) fn dash_before(text: &str, first: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = first.min(bytes.len());
    while i > 0 && matches!(bytes[i - 1], b' ' | b'\t') {
        i -= 1;
    }
    if i > 0 && bytes[i - 1] == b'-' { i - 1 } else { first }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorKind, parse_stream, parse_stream_with};

    fn drawn(draw: &Arc<Draw>) -> Limits {
        Limits { nodes: Some(Arc::clone(draw)), ..Limits::default() }
    }

    fn tree_nodes(stream: &Stream) -> usize {
        stream.documents.iter().map(|d| d.root.tree_size()).sum()
    }

    #[test]
    fn draws_take_give_back_and_refuse_past_the_capacity() {
        let pool = NodePool::new(100);
        let a = pool.draw();
        assert!(a.take(60));
        let b = pool.draw();
        assert!(!b.take(41), "past the capacity");
        assert!(b.refused());
        assert!(!b.take(1), "a refused draw stays refused");
        assert_eq!((pool.in_use(), b.held()), (60, 0));
        // A forced draw is counted, never refused.
        let forced = pool.draw_forced();
        assert!(forced.take(1000));
        assert_eq!(pool.in_use(), 1060);
        let c = pool.draw();
        assert!(!c.take(1), "the pool is over its capacity");
        drop(forced);
        a.give(20);
        assert_eq!((pool.in_use(), a.held()), (40, 40));
        let d = pool.draw();
        assert!(d.take(60));
        a.give(1000);
        assert_eq!(a.held(), 0, "at most what it holds");
        drop(d);
        drop(a);
        assert_eq!(pool.in_use(), 0, "dropping a draw gives back what it holds");
    }

    #[test]
    fn a_capped_draw_stops_at_its_own_cap_whatever_the_pool_holds() {
        let pool = NodePool::new(0);
        let other = pool.draw_forced();
        assert!(other.take(1_000_000));
        let capped = pool.draw_capped(100);
        assert!(capped.take(60) && !capped.take(41) && capped.take(40));
        assert!(!capped.refused(), "a capped draw is never deferred");
        assert_eq!(pool.in_use(), 1_000_100);
        drop(capped);
        // Texts loaded one after the other: the one that crosses the cap stops at the node
        // that crosses it (its earlier documents kept).
        let capped = pool.draw_capped(50);
        let limits = drawn(&capped);
        let first = parse_stream_with("a: [1, 2, 3]\n", &limits);
        assert_eq!((first.error, capped.held()), (None, 6));
        let text = format!("b: 1\n---\nc: [{}]\n---\nd: 1\n", vec!["1"; 60].join(", "));
        let second = parse_stream_with(&text, &limits);
        let error = second.error.expect("over the cap");
        assert_eq!((error.kind, error.line, second.documents.len()), (ErrorKind::NodeLimit, 3, 1));
        assert!(error.message.contains("more than 50 YAML nodes"), "{}", error.message);
        assert_eq!(capped.held(), 9, "the kept documents' nodes");
        // What the cut text did not keep is free again for the texts after it.
        let third = parse_stream_with("e: 1\n", &limits);
        assert_eq!((third.error, capped.held()), (None, 12));
        let fourth = parse_stream_with(&format!("\n# x\nf: [{}]\n", vec!["1"; 40].join(", ")), &limits);
        assert_eq!(fourth.error.map(|e| (e.kind, e.line)), Some((ErrorKind::NodeLimit, 3)));
    }

    #[test]
    fn a_load_holds_its_nodes_until_its_draw_is_dropped() {
        let pool = NodePool::new(10_000_000);
        // The fast path, the general loader (flow, aliases) and a quoted scalar read again.
        let texts = [
            "a: 1\nb:\n- x\n- y\n---\nc: {}\n".to_owned(),
            format!("x: &a [{}]\ny: [{}]\n", vec!["1"; 5000].join(","), vec!["*a"; 20].join(",")),
            "a:\n  b: \"one\ntwo\"\n".to_owned(),
        ];
        for text in &texts {
            let draw = pool.draw();
            let stream = parse_stream_with(text, &drawn(&draw));
            assert_eq!(stream, parse_stream(text), "{text}");
            assert!(tree_nodes(&stream) > 0);
            assert_eq!(draw.held(), tree_nodes(&stream), "{text}");
            assert_eq!(pool.in_use(), tree_nodes(&stream));
            drop(draw);
            assert_eq!(pool.in_use(), 0);
        }
        // Merge keys fold copies away: the draw keeps what the loader made, never less than
        // the tree holds.
        let merged = "a: &a {x: 1, y: 2}\nb: {<<: [*a, *a], x: 3}\n";
        let draw = pool.draw();
        let stream = parse_stream_with(merged, &drawn(&draw));
        assert_eq!(stream, parse_stream(merged));
        assert!(draw.held() >= tree_nodes(&stream) && draw.held() <= tree_nodes(&stream) + 16, "{}", draw.held());
    }

    #[test]
    fn a_refused_load_is_deferred_and_holds_nothing() {
        let text = format!("x: &a [{}]\ny: [{}]\n", vec!["1"; 5000].join(","), vec!["*a"; 20].join(","));
        let pool = NodePool::new(50_000);
        let other = pool.draw();
        assert!(other.take(40_000));
        let draw = pool.draw();
        let stream = parse_stream_with(&text, &drawn(&draw));
        assert!(stream.documents.is_empty());
        assert_eq!(stream.error.map(|e| e.kind), Some(ErrorKind::Deferred));
        assert!(draw.refused());
        assert_eq!((draw.held(), pool.in_use()), (0, 40_000));
        // Loaded again with a forced draw: the stream of a load without a pool.
        let forced = pool.draw_forced();
        assert_eq!(parse_stream_with(&text, &drawn(&forced)), parse_stream(&text));
        // A plain text whose upper bound does not fit is deferred before it is read.
        let small = pool.draw();
        let plain = "a: 1\n".repeat(5000);
        assert_eq!(parse_stream_with(&plain, &drawn(&small)).error.map(|e| e.kind), Some(ErrorKind::Deferred));
    }

    #[test]
    fn per_text_errors_do_not_depend_on_the_pool() {
        // Over the per-text node cap, and over the alias ratio: the same error, pool or not.
        let many = format!("x: [{}]\n", vec!["1"; 600].join(","));
        let aliased = format!("a: &a [{}]\nb: [{}]\n", vec!["1"; 200].join(","), vec!["*a"; 20_000].join(","));
        let small = Limits { max_nodes: 500, ..Limits::default() };
        let pool = NodePool::new(0);
        for (text, limits) in [(&many, &small), (&aliased, &Limits::default())] {
            let forced = pool.draw_forced();
            let with = Limits { nodes: Some(Arc::clone(&forced)), ..limits.clone() };
            let error = parse_stream_with(text, limits).error.expect("over a limit");
            assert_ne!(error.kind, ErrorKind::Deferred);
            assert_eq!(parse_stream_with(text, &with).error, Some(error));
        }
    }
}
