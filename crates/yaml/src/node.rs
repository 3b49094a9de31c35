//! The owned, spanned YAML tree and its conversions (JSON pointer lookup, `serde_json`).
//!
//! A [`Node`] is what go-yaml v2 would decode into `interface{}` (after anchors, aliases and
//! merge keys are resolved), plus where each piece came from in the file. It must not know how
//! it was parsed; `load` builds it.

use std::ops::Range;

use serde_json::{Map, Number, Value};

use crate::gofmt;
use crate::scalar::{Scalar, parse_scalar};

/// How a scalar was written in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarStyle {
    /// `value`
    Plain,
    /// `'value'`
    SingleQuoted,
    /// `"value"`
    DoubleQuoted,
    /// `|` block
    Literal,
    /// `>` block
    Folded,
}

/// The typed value of a node, as go-yaml v2 resolves it.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeValue {
    /// `~`, `null`, empty.
    Null,
    /// `true`, `yes`, `on`, `y` … (YAML 1.1).
    Bool(bool),
    /// An integer that fits `int64`.
    Int(i64),
    /// A float. Integers above `int64` land here too, since Kubernetes' JSON decoding turns
    /// them into `float64`.
    Float(f64),
    /// A string (quoted scalars, block scalars, timestamps, and plain text).
    String(String),
    /// A sequence.
    Sequence(Vec<Node>),
    /// A mapping as `(key, value)` pairs in document order, after merge keys were applied and
    /// duplicate keys reduced to the last one (see [`crate::Warning::DuplicateKey`]).
    Mapping(Vec<(Node, Node)>),
}

/// One node of the tree with its byte range in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The typed value.
    pub value: NodeValue,
    /// Byte range in the source text (file-relative, even in multi-document streams).
    /// For nodes copied by an alias or a merge key, this is the range of the original.
    pub span: Range<usize>,
    /// The scalar style, `None` for collections.
    pub style: Option<ScalarStyle>,
    /// The scalar text before type resolution, kept when the value is not a
    /// [`NodeValue::String`] (for strings the text *is* the value); see [`Node::raw`].
    pub(crate) raw: Option<Box<str>>,
    /// What few nodes have (a tag, an alias), apart: a large stream makes nodes by the
    /// hundred thousand, and these inline made each 112 bytes instead of 80 (every tree built,
    /// moved into its parent, shifted and freed touched that much more memory).
    extra: Option<Box<Extra>>,
}

/// The rarely set parts of a [`Node`].
#[derive(Debug, Clone, PartialEq, Default)]
struct Extra {
    tag: Option<Box<str>>,
    alias: Option<Range<usize>>,
}

impl Node {
    pub(crate) fn new(value: NodeValue, span: Range<usize>) -> Self {
        Node { value, span, style: None, raw: None, extra: None }
    }

    /// The explicit tag in short form (`!!str`, `!custom`), if any.
    #[must_use]
    pub fn tag(&self) -> Option<&str> {
        self.extra.as_ref().and_then(|e| e.tag.as_deref())
    }

    /// For the root of a copy made by an alias (`*name`), the range of the alias itself.
    #[must_use]
    pub fn alias(&self) -> Option<&Range<usize>> {
        self.extra.as_ref().and_then(|e| e.alias.as_ref())
    }

    pub(crate) fn set_tag(&mut self, tag: Option<Box<str>>) {
        if tag.is_some() || self.extra.is_some() {
            self.extra.get_or_insert_with(Box::default).tag = tag;
        }
    }

    pub(crate) fn set_alias(&mut self, alias: Option<Range<usize>>) {
        if alias.is_some() || self.extra.is_some() {
            self.extra.get_or_insert_with(Box::default).alias = alias;
        }
    }

    /// The alias's range, to be moved with the node's span.
    pub(crate) fn alias_mut(&mut self) -> Option<&mut Range<usize>> {
        self.extra.as_mut().and_then(|e| e.alias.as_mut())
    }

    /// The nodes of the tree it roots, itself included (alias copies are copies: each counts).
    #[must_use]
    pub fn tree_size(&self) -> usize {
        1 + match &self.value {
            NodeValue::Sequence(items) => items.iter().map(Node::tree_size).sum(),
            NodeValue::Mapping(entries) => entries.iter().map(|(k, v)| k.tree_size() + v.tree_size()).sum(),
            _ => 0,
        }
    }

    /// The scalar text as written (after unescaping), for scalars; `None` for collections.
    /// `0755` gives `"0755"` although the value is `Int(493)`.
    #[must_use]
    pub fn raw(&self) -> Option<&str> {
        match (&self.value, &self.raw) {
            (NodeValue::String(s), _) => Some(s),
            (_, Some(r)) => Some(r),
            _ => None,
        }
    }

    /// The string value, if this is a string node.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            NodeValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value for `key` (compared as a JSON key string), if this is a mapping.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// The `(key, value)` entry for `key`, if this is a mapping.
    #[must_use]
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        match &self.value {
            NodeValue::Mapping(entries) => entries.iter().find(|(k, _)| k.json_key() == key).map(|(k, v)| (k, v)),
            _ => None,
        }
    }

    /// Follows an RFC 6901 JSON pointer (`/spec/containers/0/image`, `~1` = `/`, `~0` = `~`).
    /// The empty pointer is the node itself.
    #[must_use]
    pub fn pointer(&self, pointer: &str) -> Option<&Node> {
        self.pointer_entry(pointer).map(|(_, v)| v)
    }

    /// Like [`Node::pointer`] but also returns the mapping key node of the last step (`None`
    /// for the root and for sequence items). Diagnostics about a key point at the key.
    #[must_use]
    pub fn pointer_entry(&self, pointer: &str) -> Option<(Option<&Node>, &Node)> {
        if pointer.is_empty() {
            return Some((None, self));
        }
        let rest = pointer.strip_prefix('/')?;
        let mut current = (None, self);
        for token in rest.split('/') {
            let token = unescape_token(token);
            let node = current.1;
            current = match &node.value {
                NodeValue::Mapping(_) => {
                    let (k, v) = node.entry(&token)?;
                    (Some(k), v)
                }
                NodeValue::Sequence(items) => (None, items.get(parse_index(&token)?)?),
                _ => return None,
            };
        }
        Some(current)
    }

    /// The key string this node becomes when used as a mapping key in JSON, as
    /// `sigs.k8s.io/yaml` converts it: ints in decimal, bools as `true`/`false`, floats with
    /// Go's `FormatFloat(f, 'g', -1, 32)`. Kubernetes rejects null, `uint64` and collection
    /// keys; this returns `null`, the decimal text and the compact JSON text for them (the
    /// loader records a [`crate::Warning::UnsupportedKey`]). A collection key's text is cut
    /// after [`MAX_COLLECTION_KEY`] bytes: keys nested in keys are escaped once more at each
    /// level, so uncut they grow exponentially with the nesting (78 bytes of `? ? ? …` made
    /// gigabytes).
    #[must_use]
    pub fn json_key(&self) -> std::borrow::Cow<'_, str> {
        use std::borrow::Cow;
        match &self.value {
            NodeValue::String(s) => Cow::Borrowed(s),
            NodeValue::Null => Cow::Borrowed("null"),
            NodeValue::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
            NodeValue::Int(i) => Cow::Owned(i.to_string()),
            NodeValue::Float(f) => {
                if let Some(Scalar::Uint(u)) = self.uint_source() {
                    return Cow::Owned(u.to_string());
                }
                Cow::Owned(match gofmt::format_g(*f, true).as_str() {
                    "+Inf" => ".inf".to_owned(),
                    "-Inf" => "-.inf".to_owned(),
                    "NaN" => ".nan".to_owned(),
                    s => s.to_owned(),
                })
            }
            NodeValue::Sequence(_) | NodeValue::Mapping(_) => Cow::Owned(capped_key(self.to_json().to_string())),
        }
    }

    /// For a float node that go-yaml read as `uint64`, that resolution.
    pub(crate) fn uint_source(&self) -> Option<Scalar> {
        if self.style != Some(ScalarStyle::Plain) || self.tag().is_some() {
            return None;
        }
        match parse_scalar(self.raw.as_deref()?) {
            u @ Scalar::Uint(_) => Some(u),
            _ => None,
        }
    }

    /// Converts to the JSON value Kubernetes works with: `sigs.k8s.io/yaml.YAMLToJSON`, then
    /// JSON decoding that keeps integers (`UnmarshalCaseSensitivePreserveInts`).
    ///
    /// So a whole-valued float becomes a JSON integer when it fits `int64` (YAML `3.0` is `3`,
    /// `1e3` is `1000`), other floats stay floats (`1e21`, `1.5`), and `uint64`-sized integers
    /// become floats. Keys become strings ([`Node::json_key`]); when two keys give the same
    /// string the later one wins. NaN and infinities, which Kubernetes refuses to encode,
    /// become `null`.
    #[must_use]
    pub fn to_json(&self) -> Value {
        match &self.value {
            NodeValue::Null => Value::Null,
            NodeValue::Bool(b) => Value::Bool(*b),
            NodeValue::Int(i) => Value::Number((*i).into()),
            NodeValue::Float(f) => float_to_json(*f),
            NodeValue::String(s) => Value::String(s.clone()),
            NodeValue::Sequence(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeValue::Mapping(entries) => {
                let mut map = Map::with_capacity(entries.len());
                for (k, v) in entries {
                    map.insert(k.json_key().into_owned(), v.to_json());
                }
                Value::Object(map)
            }
        }
    }
}

/// The Kubernetes number rule: Go's `encoding/json` prints a whole float below 1e21 without a
/// fraction, as the shortest decimal that reads back as the same float, and
/// `UnmarshalCaseSensitivePreserveInts` reads such text back as `int64` when it fits.
/// Everything else stays a float. Up to 2^53 every whole float prints as its exact digits;
/// above, the shortest decimal can be another integer (2^63 − 1024 prints as
/// `9223372036854775000`) or fall outside `int64` (−2^63 prints as `-9223372036854776000`).
#[must_use]
pub fn float_to_json(f: f64) -> Value {
    if !f.is_finite() {
        return Value::Null;
    }
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if f.fract() == 0.0 {
        if f.abs() < EXACT {
            return Value::Number((f as i64).into());
        }
        // Rust's `Display` also prints the shortest decimal that reads back, without exponent.
        if f.abs() < 1e21
            && let Ok(i) = f.to_string().parse::<i64>()
        {
            return Value::Number(i.into());
        }
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

fn unescape_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains('~') {
        std::borrow::Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        std::borrow::Cow::Borrowed(token)
    }
}

/// RFC 6901 array index: `0` or digits without a leading zero.
fn parse_index(token: &str) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    if !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

/// The longest text a sequence or mapping key becomes ([`Node::json_key`]); YAML itself limits
/// implicit keys to 1024 characters. Such keys only ever appear in documents Kubernetes
/// rejects (with a [`crate::Warning::UnsupportedKey`]), so the cut text is only shown.
pub const MAX_COLLECTION_KEY: usize = 1024;

fn capped_key(mut text: String) -> String {
    if text.len() > MAX_COLLECTION_KEY {
        let mut end = MAX_COLLECTION_KEY;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_stays_small_and_keeps_a_tag_and_an_alias_apart() {
        // A large stream makes hundreds of thousands: what few nodes have is boxed.
        assert!(std::mem::size_of::<Node>() <= 80, "{}", std::mem::size_of::<Node>());
        let mut node = Node::new(NodeValue::Null, 0..1);
        assert_eq!((node.tag(), node.alias()), (None, None));
        node.set_tag(None);
        assert!(node.extra.is_none(), "nothing to keep: nothing allocated");
        node.set_alias(Some(5..7));
        node.set_tag(Some("!!str".into()));
        if let Some(a) = node.alias_mut() {
            *a = 15..17;
        }
        assert_eq!((node.tag(), node.alias()), (Some("!!str"), Some(&(15..17))));
    }
}
