//! Assembling a mapping from its raw `(key, value)` pairs: merge keys and duplicate keys.
//!
//! go-yaml v2 (`decoder.mapping`) walks the pairs in order and stores each one into a Go map,
//! so a later key overwrites an earlier one. A merge key `<<` is processed at its position:
//! the merged mapping's entries are stored right there, which means keys written *after* the
//! `<<` win over merged ones, and (unlike the YAML merge spec and go-yaml v3) keys written
//! *before* it are overwritten. With a sequence of mappings go-yaml steps backwards, so the
//! first mapping of the list wins. Keys compare as the JSON key strings Kubernetes makes.

use std::collections::HashMap;

use crate::error::Warning;
use crate::node::{Node, NodeValue, ScalarStyle};

/// Where an entry of the result came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Written,
    Merged,
}

struct Builder<'w> {
    entries: Vec<(Node, Node)>,
    origins: Vec<Origin>,
    index: HashMap<String, usize>,
    warnings: &'w mut Vec<Warning>,
}

impl Builder<'_> {
    fn insert(&mut self, key: Node, value: Node, origin: Origin) {
        let name = key.json_key().into_owned();
        if let Some(&at) = self.index.get(&name) {
            if origin == Origin::Written && self.origins[at] == Origin::Written {
                self.warnings.push(Warning::DuplicateKey {
                    key: name,
                    first: self.entries[at].0.span.clone(),
                    duplicate: key.span.clone(),
                });
            }
            self.entries[at] = (key, value);
            self.origins[at] = origin;
        } else {
            if origin == Origin::Written {
                check_key(&key, &name, self.warnings);
            }
            self.index.insert(name, self.entries.len());
            self.entries.push((key, value));
            self.origins.push(origin);
        }
    }
}

/// Records keys that `sigs.k8s.io/yaml` cannot turn into JSON keys.
fn check_key(key: &Node, name: &str, warnings: &mut Vec<Warning>) {
    let unsupported = match &key.value {
        NodeValue::Null | NodeValue::Sequence(_) | NodeValue::Mapping(_) => true,
        NodeValue::Float(_) => key.uint_source().is_some(),
        _ => false,
    };
    if unsupported {
        warnings.push(Warning::UnsupportedKey { key: name.to_owned(), span: key.span.clone() });
    }
}

/// go-yaml's `isMerge`: a plain, untagged `<<`, or anything tagged `!!merge`.
fn is_merge_key(key: &Node) -> bool {
    match key.tag() {
        Some(tag) => tag == "!!merge",
        None => key.style == Some(ScalarStyle::Plain) && key.raw() == Some("<<"),
    }
}

/// Builds the final entries of a mapping. The error is go-yaml's message and the offset of
/// the offending merge value.
pub(crate) fn build_mapping(
    pairs: Vec<(Node, Node)>,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<(Node, Node)>, (String, usize)> {
    let mut builder = Builder {
        entries: Vec::with_capacity(pairs.len()),
        origins: Vec::with_capacity(pairs.len()),
        index: HashMap::with_capacity(pairs.len()),
        warnings,
    };
    for (key, value) in pairs {
        if !is_merge_key(&key) {
            builder.insert(key, value, Origin::Written);
            continue;
        }
        const WANT_MAP: &str = "map merge requires map or sequence of maps as the value";
        match value.value {
            NodeValue::Mapping(entries) => {
                for (k, v) in entries {
                    builder.insert(k, v, Origin::Merged);
                }
            }
            NodeValue::Sequence(items) => {
                if let Some(item) = items.iter().find(|n| !matches!(n.value, NodeValue::Mapping(_))) {
                    return Err((WANT_MAP.to_owned(), item.span.start));
                }
                // Step backwards: earlier mappings take precedence.
                for item in items.into_iter().rev() {
                    if let NodeValue::Mapping(entries) = item.value {
                        for (k, v) in entries {
                            builder.insert(k, v, Origin::Merged);
                        }
                    }
                }
            }
            _ => return Err((WANT_MAP.to_owned(), value.span.start)),
        }
    }
    Ok(builder.entries)
}
