//! Go `encoding/json`-style struct decoding on the spanned YAML tree.
//!
//! kube-compare reads `metadata.yaml` with `sigs.k8s.io/yaml.UnmarshalStrict` (§2.2): go-yaml v2
//! turns the YAML into JSON, then `encoding/json` decodes it into Go structs with
//! `DisallowUnknownFields`. This module reproduces the parts of that which decide whether a
//! reference loads and which message it fails with:
//!
//! * key matching: a key spelled exactly like the field wins, otherwise ASCII case-insensitive
//!   (`Parts:`, `pathTokey`), as Go's `EqualFold` field lookup;
//! * unknown keys: `json: unknown field "k"` when strict (everything except the v2 template
//!   lists, which kube-compare decodes with a plain `json.Unmarshal`);
//! * type mismatches: `json: cannot unmarshal string into Go struct field PartV1.parts.name of
//!   type string`, with Go's type names; the first error in document order wins, as Go's
//!   decoder keeps the first saved error;
//! * scalars into string fields are stringified, as `sigs.k8s.io/yaml` does when the target
//!   is a string (`name: 123` is `"123"`), except below a custom `UnmarshalJSON` (the v2 groups);
//! * `null` leaves the zero value.
//!
//! It knows nothing about the reference model; `metadata` drives it field by field.

use std::ops::Range;

use driftlint_yaml::{Node, NodeValue, format_float_g};

/// A decoding failure: Go's message (without kube-compare's prefix) and where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DecodeError {
    pub message: String,
    pub span: Range<usize>,
}

pub(crate) type Result<T> = std::result::Result<T, DecodeError>;

/// The decoding context: Go's `errorContext` (innermost struct type and JSON field stack),
/// strictness, and whether scalars may be stringified.
#[derive(Clone)]
pub(crate) struct Ctx {
    strict: bool,
    stringify: bool,
    struct_name: &'static str,
    stack: Vec<&'static str>,
}

impl Ctx {
    /// The context at the top of a strict `UnmarshalStrict` (reference, user config).
    pub fn strict() -> Self {
        Ctx { strict: true, stringify: true, struct_name: "", stack: Vec::new() }
    }

    /// The context of kube-compare's v2 group `UnmarshalJSON`: a fresh, non-strict
    /// `json.Unmarshal` into `[]*ReferenceTemplateV2`, below which `sigs.k8s.io/yaml` no longer
    /// knows the target types (so no stringification).
    pub fn lenient() -> Self {
        Ctx { strict: false, stringify: false, struct_name: "", stack: Vec::new() }
    }

    /// Decodes a struct: calls `visit(ctx, field_index, value)` for each key, in document
    /// order, matching `fields` (Go JSON names) exactly first, then case-insensitively.
    /// `go_type` is the Go type name used in type errors for a non-object value.
    pub fn object<'n>(
        &self,
        node: &'n Node,
        struct_name: &'static str,
        go_type: &str,
        fields: &[&'static str],
        mut visit: impl FnMut(&Ctx, usize, &'n Node, &'n Node) -> Result<()>,
    ) -> Result<()> {
        let entries = match &node.value {
            NodeValue::Null => return Ok(()),
            NodeValue::Mapping(entries) => entries,
            _ => return Err(self.type_error(node, go_type)),
        };
        for (key, value) in entries {
            let name = key.json_key();
            let index = fields
                .iter()
                .position(|f| *f == name)
                .or_else(|| fields.iter().position(|f| f.eq_ignore_ascii_case(&name)));
            match index {
                Some(i) => {
                    let mut inner = self.clone();
                    inner.struct_name = struct_name;
                    inner.stack.push(fields[i]);
                    visit(&inner, i, key, value)?;
                }
                None if self.strict => {
                    return Err(DecodeError {
                        message: format!("json: unknown field {}", go_quote(&name)),
                        span: key.span.clone(),
                    });
                }
                None => {}
            }
        }
        Ok(())
    }

    /// Decodes a JSON array; `null` is an empty list.
    pub fn array<'n>(&self, node: &'n Node, go_type: &str) -> Result<&'n [Node]> {
        match &node.value {
            NodeValue::Null => Ok(&[]),
            NodeValue::Sequence(items) => Ok(items),
            _ => Err(self.type_error(node, go_type)),
        }
    }

    /// Decodes a map with string keys (`map[string]T`): the entries, later duplicates kept
    /// (the YAML layer already rejected real duplicates).
    pub fn map<'n>(&self, node: &'n Node, go_type: &str) -> Result<&'n [(Node, Node)]> {
        match &node.value {
            NodeValue::Null => Ok(&[]),
            NodeValue::Mapping(entries) => Ok(entries),
            _ => Err(self.type_error(node, go_type)),
        }
    }

    /// Decodes a string field (`go_type` is `string` or a named string type).
    pub fn string(&self, node: &Node, go_type: &str) -> Result<String> {
        match &node.value {
            NodeValue::Null => Ok(String::new()),
            NodeValue::String(s) => Ok(s.clone()),
            // sigs.k8s.io/yaml converts scalars to strings when the Go target is a string.
            NodeValue::Bool(b) if self.stringify => Ok(b.to_string()),
            NodeValue::Int(i) if self.stringify => Ok(i.to_string()),
            NodeValue::Float(f) if self.stringify => Ok(format_float_g(*f, false)),
            _ => Err(self.type_error(node, go_type)),
        }
    }

    /// Decodes a bool field.
    pub fn bool(&self, node: &Node) -> Result<bool> {
        match &node.value {
            NodeValue::Null => Ok(false),
            NodeValue::Bool(b) => Ok(*b),
            _ => Err(self.type_error(node, "bool")),
        }
    }

    /// Decodes a `[]string`.
    pub fn strings(&self, node: &Node) -> Result<Vec<(String, Range<usize>)>> {
        self.array(node, "[]string")?.iter().map(|item| Ok((self.string(item, "string")?, item.span.clone()))).collect()
    }

    /// Go's `UnmarshalTypeError` text for `node` decoded into `go_type` here.
    pub fn type_error(&self, node: &Node, go_type: &str) -> DecodeError {
        let value = match &node.value {
            NodeValue::Null => "null",
            NodeValue::Bool(_) => "bool",
            NodeValue::Int(_) | NodeValue::Float(_) => "number",
            NodeValue::String(_) => "string",
            NodeValue::Sequence(_) => "array",
            NodeValue::Mapping(_) => "object",
        };
        let message = if self.stack.is_empty() {
            format!("json: cannot unmarshal {value} into Go value of type {go_type}")
        } else {
            format!(
                "json: cannot unmarshal {value} into Go struct field {}.{} of type {go_type}",
                self.struct_name,
                self.stack.join(".")
            )
        };
        DecodeError { message, span: node.span.clone() }
    }
}

/// Go's `%q` for a string: double quotes with Go escapes.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `%#q`: a back-quoted string when `strconv.CanBackquote` allows it, else `%q`.
pub(crate) fn go_backquote(s: &str) -> String {
    let can = !s.chars().any(|c| c == '`' || c == '\u{feff}' || (c.is_control() && c != '\t'));
    if can { format!("`{s}`") } else { go_quote(s) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlint_yaml::parse_stream;

    fn root(text: &str) -> Node {
        parse_stream(text).documents.remove(0).root
    }

    #[test]
    fn exact_then_case_insensitive_and_unknown() {
        let node = root("Name: a\nname: b\nfoo: 1\n");
        let mut seen = Vec::new();
        let err = Ctx::strict()
            .object(&node, "PartV1", "compare.PartV1", &["name"], |ctx, i, _, v| {
                seen.push((i, ctx.string(v, "string")?));
                Ok(())
            })
            .unwrap_err();
        assert_eq!(seen, vec![(0, "a".to_owned()), (0, "b".to_owned())]);
        assert_eq!(err.message, r#"json: unknown field "foo""#);
    }

    #[test]
    fn type_errors_name_the_field_path() {
        let node = root("name: [1]\n");
        let err = Ctx::strict()
            .object(&node, "PartV1", "compare.PartV1", &["name"], |ctx, _, _, v| ctx.string(v, "string").map(drop))
            .unwrap_err();
        assert_eq!(err.message, "json: cannot unmarshal array into Go struct field PartV1.name of type string");
        assert_eq!(Ctx::strict().string(&root("12"), "string").unwrap(), "12");
        assert!(Ctx::lenient().string(&root("12"), "string").is_err());
    }

    #[test]
    fn quoting() {
        assert_eq!(go_backquote("a.yaml"), "`a.yaml`");
        assert_eq!(go_backquote("a`b"), "\"a`b\"");
    }
}
