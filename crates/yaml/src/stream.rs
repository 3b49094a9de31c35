//! What loading YAML gives and is bounded by: a [`Stream`] of [`Document`]s, the [`Limits`]
//! for untrusted input, and the node builders both loaders share (`load`'s general loader on
//! `saphyr-parser` events and `spanned`'s line-based fast path), so that both make the same
//! nodes.
//!
//! This module holds data and small constructors only; it knows neither loader.

use std::ops::Range;

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
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 256,
            max_bytes: 64 << 20,
            max_alias_nodes: 1_000_000,
            alias_ratio: 100,
            max_nodes: 2_000_000,
        }
    }
}

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
