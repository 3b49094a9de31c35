//! Spanned YAML with Kubernetes' scalar rules (go-yaml v2, YAML 1.1 flavour), and a writer
//! that reproduces `sigs.k8s.io/yaml.Marshal` byte for byte.
//!
//! Kubernetes reads manifests with `sigs.k8s.io/yaml`: go-yaml **v2** (YAML 1.1: `on`/`yes`
//! are booleans, `0755` is octal, `1_000` is a number), then JSON. This crate loads YAML the
//! same way while keeping every key, value and sequence item's byte range, so a finding about
//! a JSON pointer can point at a line of the file.
//!
//! * [`parse_stream`] → [`Stream`] of [`Document`]s (each with a root [`Node`], its byte
//!   range and [`Warning`]s), stopping at the first [`Error`] but keeping earlier documents.
//!   Plain block YAML is read by a line-based fast path that builds the identical stream
//!   (spans included); everything else by the general loader on `saphyr-parser` events.
//! * [`Node::pointer`] follows a JSON pointer; [`Node::to_json`] gives the `serde_json` value
//!   Kubernetes would see (whole floats become integers).
//! * [`parse_scalar`] is go-yaml v2's plain-scalar resolution table.
//! * [`to_yaml_string`] writes a JSON value like `sigs.k8s.io/yaml.Marshal` (natural key
//!   order, go-yaml v2 quoting, literal blocks, 80-column folding); [`key_less`] is its order.
//! * [`parse_simple`] is a fast path for plain block YAML straight to `serde_json` values; it
//!   answers `None` outside its subset, and otherwise exactly what the full loader gives.
//! * [`replace_scalar`] is the text to write over a scalar so that it reads back as a given
//!   value (quoting as go-yaml v2 needs, the scalar's style kept where it can be).
//! * [`LineIndex`] turns byte offsets into 1-based lines and columns for display.
//!
//! This crate knows YAML and Kubernetes' decoding rules, nothing about references,
//! templates or diagnostics.
//!
//! # Where this differs from Kubernetes, on purpose
//!
//! * Keys Kubernetes cannot turn into JSON keys (null, integers above `int64`, sequences,
//!   mappings) make `sigs.k8s.io/yaml` reject the document; here they become strings (`null`,
//!   the decimal text, compact JSON) and a [`Warning::UnsupportedKey`] is recorded.
//! * `.nan`/`.inf` values, which Kubernetes' JSON encoding rejects, become `null` in
//!   [`Node::to_json`] with a [`Warning::NonFiniteFloat`].
//! * Two keys that give the same JSON key: Go keeps one at random (map order); here the
//!   later one wins, with a [`Warning::DuplicateKey`].
//!
//! Faithful to go-yaml v2 even where it surprises: a quoted scalar's continuation lines may
//! sit at any column (YAML 1.2 and saphyr-parser want them indented; see `quoted`); a merge
//! key `<<` is applied where it stands, so an explicit key written *before* `<<` is
//! overwritten by the merged value; `<<` as a string value or key is written plain; characters outside the BMP are written as
//! `\U` escapes; mapping keys longer than 128 bytes are written as `? key` complex keys.
//! Inside flow collections go-yaml v2 does not look at indentation, ends a plain scalar at
//! `:` only before a blank (`[001:db8::]` holds a string) and at any `?`, and reads a `?`
//! that starts a token as a key indicator; a tab after `:` separates, NEL breaks a line and
//! `\/` is no escape (see `flow`). `tests/k8s_truth.rs` compares every loader with what
//! `sigs.k8s.io/yaml` made of a recorded set of cases.

mod block;
mod edit;
mod emit;
mod emit_scalar;
mod emit_writer;
mod error;
mod flow;
mod gofmt;
mod inline;
mod line_index;
mod load;
mod mapping;
mod node;
mod pieces;
mod quoted;
mod scalar;
mod simple;
mod sort;
mod spanned;
mod stream;
#[cfg(test)]
mod test_rng;

pub use edit::{double_quoted, insert_entry, remove_entry, rename_key, replace_scalar};
pub use emit::to_yaml_string;
pub use error::{Error, ErrorKind, Warning};
pub use gofmt::{format_g as format_float_g, format_json_float};
pub use line_index::{LineColumn, LineIndex};
pub use load::{
    flow_entries, flow_entries_refused, parse_stream, parse_stream_counted, parse_stream_general, parse_stream_plain,
    parse_stream_with, too_many_flow_entries,
};
pub use node::{MAX_COLLECTION_KEY, Node, NodeValue, ScalarStyle, float_to_json};
pub use pieces::{document_pieces, ends_open, join_pieces, may_escape};
pub use scalar::{Scalar, is_base60_float, is_timestamp, parse_scalar};
pub use simple::{Shape, parse_simple, parse_simple_documents, parse_simple_ends, scan_simple_ends};
pub use sort::{key_cmp, key_less};
pub use stream::{Document, Draw, Limits, NodePool, Stream};
