//! `sigs.k8s.io/yaml.Marshal` for a `serde_json::Value`: Go JSON encoding, then go-yaml v2's
//! emitter (`emitterc.go`) in block style.
//!
//! This is not a general YAML emitter. It reproduces the state go-yaml's emitter keeps (column,
//! `whitespace`, `indention`, the indent stack) for exactly the events `yaml.Marshal` produces
//! from JSON data, so that diffs against kube-compare's output match byte for byte. Scalar
//! style decisions live in `emit_scalar`.

use serde_json::{Number, Value};

use crate::emit_scalar::{Analysis, Style, plain_allowed_by_resolver};
use crate::gofmt::{format_g, format_json_float};
use crate::scalar::{Scalar, parse_scalar};
use crate::sort::sort_keys;

#[cfg(test)]
mod differential;
#[cfg(test)]
mod reference;

/// go-yaml's `best_indent` and `best_width`.
pub(crate) const INDENT: isize = 2;
pub(crate) const WIDTH: usize = 80;

/// Writes `value` as `sigs.k8s.io/yaml.Marshal` does, including the final newline.
///
/// Keys are sorted in go-yaml v2's natural order ([`crate::key_less`]), strings are quoted
/// when they would read back as another type, multi-line strings become literal blocks, long
/// strings are folded at 80 columns, numbers follow Go (`1e+21`, `1e-06`, `3` for 3.0).
///
/// ```
/// let v = serde_json::json!({"b": [1, "yes"], "a": {"x": null}, "c": "two\nlines"});
/// assert_eq!(
///     driftlint_yaml::to_yaml_string(&v),
///     "a:\n  x: null\nb:\n- 1\n- \"yes\"\nc: |-\n  two\n  lines\n"
/// );
/// ```
#[must_use]
pub fn to_yaml_string(value: &Value) -> String {
    let mut e = Emitter::new();
    e.node(value, Context::ROOT);
    // DOCUMENT-END: go-yaml writes an indent, i.e. the final line break.
    e.indent = -1;
    e.write_indent();
    e.out
}

/// Where a node sits (go-yaml's `root_context`, `mapping_context`, `simple_key_context`).
#[derive(Clone, Copy)]
pub(crate) struct Context {
    mapping: bool,
    simple_key: bool,
}

impl Context {
    const ROOT: Context = Context { mapping: false, simple_key: false };
    const ITEM: Context = Context { mapping: false, simple_key: false };
    const VALUE: Context = Context { mapping: true, simple_key: false };
    const SIMPLE_KEY: Context = Context { mapping: true, simple_key: true };
}

pub(crate) struct Emitter {
    pub(crate) out: String,
    /// Column in characters.
    pub(crate) column: usize,
    /// The last thing written was whitespace (or nothing): indicators need no space before.
    pub(crate) whitespace: bool,
    /// Only indentation has been written on this line so far.
    pub(crate) indention: bool,
    pub(crate) indent: isize,
    indents: Vec<isize>,
}

impl Emitter {
    fn new() -> Self {
        Emitter { out: String::new(), column: 0, whitespace: true, indention: true, indent: -1, indents: Vec::new() }
    }

    /// `yaml_emitter_increase_indent`.
    pub(crate) fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { INDENT } else { 0 };
        } else if !indentless {
            self.indent += INDENT;
        }
    }

    pub(crate) fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    pub(crate) fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    pub(crate) fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// `yaml_emitter_write_indent`: a line break unless we are at a fresh indentation, then
    /// spaces up to the indent.
    pub(crate) fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    /// `yaml_emitter_write_indicator`.
    pub(crate) fn write_indicator(&mut self, s: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        for c in s.chars() {
            self.put(c);
        }
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
    }

    fn node(&mut self, value: &Value, ctx: Context) {
        match value {
            Value::Null => self.scalar("null", Style::Plain, ctx),
            Value::Bool(b) => self.scalar(if *b { "true" } else { "false" }, Style::Plain, ctx),
            Value::Number(n) => self.scalar(&number_text(n), Style::Plain, ctx),
            Value::String(s) => self.scalar(s, string_style(s), ctx),
            Value::Array(items) if items.is_empty() => self.empty_flow("[", "]"),
            Value::Object(map) if map.is_empty() => self.empty_flow("{", "}"),
            Value::Array(items) => {
                // A sequence that is a mapping value right after `key:` is not indented.
                let indentless = ctx.mapping && !self.indention;
                self.increase_indent(false, indentless);
                for item in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, Context::ITEM);
                }
                self.pop_indent();
            }
            Value::Object(map) => {
                self.increase_indent(false, false);
                let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
                sort_keys(&mut keys);
                for key in keys {
                    self.write_indent();
                    if is_simple_key(key) {
                        self.scalar(key, string_style(key), Context::SIMPLE_KEY);
                        self.write_indicator(":", false, false, false);
                    } else {
                        // go-yaml's check_simple_key: multi-line or longer than 128 bytes.
                        self.write_indicator("?", true, false, true);
                        self.scalar(key, string_style(key), Context::VALUE);
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    if let Some(v) = map.get(key) {
                        self.node(v, Context::VALUE);
                    }
                }
                self.pop_indent();
            }
        }
    }

    /// `[]` and `{}`: go-yaml switches to flow style for empty collections.
    fn empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    /// `yaml_emitter_emit_scalar` with `yaml_emitter_select_scalar_style`.
    fn scalar(&mut self, value: &str, requested: Style, ctx: Context) {
        let a = Analysis::of(value);
        let mut style = requested;
        if ctx.simple_key && a.multiline {
            style = Style::DoubleQuoted;
        }
        if style == Style::Plain && (!a.block_plain_allowed || (value.is_empty() && ctx.simple_key)) {
            style = Style::SingleQuoted;
        }
        if style == Style::SingleQuoted && !a.single_quoted_allowed {
            style = Style::DoubleQuoted;
        }
        if style == Style::Literal && (!a.block_allowed || ctx.simple_key) {
            style = Style::DoubleQuoted;
        }
        self.increase_indent(true, false);
        let breaks = !ctx.simple_key;
        match style {
            Style::Plain => self.write_plain(value, breaks),
            Style::SingleQuoted => self.write_single_quoted(value, breaks),
            Style::DoubleQuoted => self.write_double_quoted(value, breaks),
            Style::Literal => self.write_literal(value),
        }
        self.pop_indent();
    }
}

/// go-yaml's `check_simple_key` for a scalar key: single line and at most 128 bytes.
fn is_simple_key(key: &str) -> bool {
    !Analysis::of(key).multiline && key.len() <= 128
}

/// go-yaml's `stringv`: a literal block for text with `\n`, plain when the text would read
/// back as a string, else double quotes.
fn string_style(s: &str) -> Style {
    if s.contains('\n') {
        Style::Literal
    } else if plain_allowed_by_resolver(s) {
        Style::Plain
    } else {
        Style::DoubleQuoted
    }
}

/// A JSON number as Marshal prints it: encoding/json's text, read back by go-yaml
/// (int/uint stay, anything else is a float64) and printed with `FormatFloat(f, 'g', -1, 64)`.
fn number_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let json = format_json_float(n.as_f64().unwrap_or(0.0));
    match parse_scalar(&json) {
        Scalar::Int(i) => i.to_string(),
        Scalar::Uint(u) => u.to_string(),
        Scalar::Float(f) => format_g(f, false),
        _ => json,
    }
}
