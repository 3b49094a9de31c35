//! Errors and warnings of the loader.
//!
//! An [`Error`] stops the stream at the document where it happened (earlier documents are
//! kept); a [`Warning`] is something Kubernetes accepts or handles silently but a linter should
//! show (duplicate keys). Both carry byte offsets; line and column are filled in for errors
//! because they are printed on their own.

use std::ops::Range;

/// What went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text is not valid YAML.
    Syntax,
    /// A scalar cannot be read as its explicit tag (`!!int abc`).
    Tag,
    /// An alias refers to a node that contains it (`&a [*a]`).
    RecursiveAlias,
    /// A merge key (`<<`) whose value is not a mapping or a sequence of mappings.
    Merge,
    /// Nesting deeper than [`crate::Limits::max_depth`].
    DepthLimit,
    /// Alias expansion produced more nodes than [`crate::Limits`] allow ("billion laughs").
    AliasLimit,
    /// The input is larger than [`crate::Limits::max_bytes`].
    SizeLimit,
    /// The stream has more nodes than [`crate::Limits::max_nodes`].
    NodeLimit,
    /// The run-wide [`crate::NodePool`] refused the nodes of an opportunistic load
    /// ([`crate::Limits::nodes`]): nothing is wrong with the text, it is to be loaded again
    /// with a forced draw. The stream is empty and holds no nodes.
    Deferred,
}

/// A loader error with its location. Lines and columns are 1-based; columns count characters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at line {line} column {column}")]
pub struct Error {
    /// The category.
    pub kind: ErrorKind,
    /// Human-readable detail, without the location.
    pub message: String,
    /// Byte offset in the text.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// 0-based index of the document in the stream where the error happened.
    pub document: usize,
}

/// A problem that does not stop loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// A mapping has the same key twice; the later one wins, as in Kubernetes
    /// (`sigs.k8s.io/yaml` with go-yaml v2 and JSON decoding).
    DuplicateKey {
        /// The key as a JSON string.
        key: String,
        /// The key that was overridden.
        first: Range<usize>,
        /// The key that won.
        duplicate: Range<usize>,
    },
    /// A key Kubernetes cannot turn into a JSON key (null, a number above `int64`, a sequence
    /// or a mapping): `sigs.k8s.io/yaml` rejects the whole document. Kept here as a string.
    UnsupportedKey {
        /// The key as this crate stringifies it.
        key: String,
        /// Where it is.
        span: Range<usize>,
    },
    /// `.nan` / `.inf`: valid YAML, but Kubernetes' JSON encoding rejects it. Converted to
    /// `null` by [`crate::Node::to_json`].
    NonFiniteFloat {
        /// Where it is.
        span: Range<usize>,
    },
}

impl Warning {
    /// The primary location of the warning.
    #[must_use]
    pub fn span(&self) -> Range<usize> {
        match self {
            Warning::DuplicateKey { duplicate, .. } => duplicate.clone(),
            Warning::UnsupportedKey { span, .. } | Warning::NonFiniteFloat { span } => span.clone(),
        }
    }

    /// A one-line description.
    #[must_use]
    pub fn message(&self) -> String {
        match self {
            Warning::DuplicateKey { key, .. } => {
                format!("duplicate key `{key}`; the last occurrence wins")
            }
            Warning::UnsupportedKey { key, .. } => {
                format!("mapping key `{key}` cannot be converted to a JSON key by Kubernetes")
            }
            Warning::NonFiniteFloat { .. } => {
                "NaN or infinite number cannot be encoded as JSON by Kubernetes".to_owned()
            }
        }
    }
}
