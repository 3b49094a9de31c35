//! `sigs.k8s.io/yaml.Marshal` for a `serde_json::Value`: Go JSON encoding, then go-yaml v2's
//! emitter (`emitterc.go`) in block style.
//!
//! This is not a general YAML emitter. It reproduces go-yaml's emitter for exactly the events
//! `yaml.Marshal` produces from JSON data, so that diffs against kube-compare's output match
//! byte for byte. Scalar analysis and the scalar writers live in `emit_scalar`, the state
//! go-yaml keeps about the output (column, `whitespace`, `indention`, the indent stack) in
//! `emit_writer`.
//!
//! It runs twice per candidate template and CR in `driftlint compare`, so the common case is
//! cut short where the outcome is provably the same: one-line ASCII words skip the full scalar
//! analysis (`quick_style`) and are copied in one piece, `null`/booleans/numbers are never
//! analysed, mappings whose keys cannot hit go-yaml's digit-run rules are sorted by a byte
//! ranking. The straightforward writer is kept as the oracle of the differential tests
//! (`emit/reference.rs`, `emit/differential.rs`).

use std::fmt::Write as _;

use serde_json::{Number, Value};

use crate::emit_scalar::{Analysis, Style, plain_allowed_by_resolver, quick_style};
use crate::emit_writer::{WIDTH, Writer};
use crate::gofmt::{format_g, format_json_float};
use crate::scalar::{Scalar, parse_scalar};
use crate::sort::sort_keys_by;

#[cfg(test)]
mod differential;
#[cfg(test)]
mod reference;

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
    e.w.indent = -1;
    e.w.write_indent();
    e.w.out
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

pub(crate) struct Emitter<'a> {
    /// The text written so far and go-yaml's state about it.
    w: Writer,
    /// The entries of the mappings being written, innermost last (one buffer for all levels).
    entries: Vec<(&'a str, &'a Value)>,
}

impl<'a> Emitter<'a> {
    fn new() -> Self {
        // The entries' capacity stays below glibc's large-chunk size, as the writer's do.
        Emitter { w: Writer::new(), entries: Vec::with_capacity(40) }
    }

    fn node(&mut self, value: &'a Value, ctx: Context) {
        match value {
            // These never need quotes or analysis: the style stays plain (no spaces, breaks or
            // indicators; numbers start with a digit or `-` and a digit).
            Value::Null => self.write_word("null"),
            Value::Bool(b) => self.write_word(if *b { "true" } else { "false" }),
            Value::Number(n) => self.write_number(n),
            Value::String(s) => self.string(s, ctx),
            Value::Array(items) if items.is_empty() => self.empty_flow("[", "]"),
            Value::Object(map) if map.is_empty() => self.empty_flow("{", "}"),
            Value::Array(items) => {
                // A sequence that is a mapping value right after `key:` is not indented.
                let indentless = ctx.mapping && !self.w.indention;
                self.w.increase_indent(false, indentless);
                for item in items {
                    self.w.write_indent();
                    self.w.write_indicator("-", true, false, true);
                    self.node(item, Context::ITEM);
                }
                self.w.pop_indent();
            }
            Value::Object(map) => {
                self.w.increase_indent(false, false);
                let start = self.entries.len();
                self.entries.extend(map.iter().map(|(k, v)| (k.as_str(), v)));
                sort_keys_by(&mut self.entries[start..], |(k, _)| k);
                for i in start..self.entries.len() {
                    let (key, v) = self.entries[i];
                    self.w.write_indent();
                    self.key(key);
                    self.node(v, Context::VALUE);
                }
                self.entries.truncate(start);
                self.w.pop_indent();
            }
        }
    }

    /// A mapping key and its `:`: a simple key, or go-yaml's `? key` form when the key is
    /// multi-line or longer than 128 bytes (`check_simple_key`).
    fn key(&mut self, key: &str) {
        let short = key.len() <= 128;
        let (style, simple) = match quick_style(key) {
            Some(Style::Plain) if short => {
                // A simple key is written without line folding.
                self.write_word(key);
                self.w.write_indicator(":", false, false, false);
                return;
            }
            // Quick-style text has no breaks.
            Some(style) => (style, short),
            None => {
                let a = Analysis::of(key);
                let simple = !a.multiline && short;
                (select_style(key, &a, if simple { Context::SIMPLE_KEY } else { Context::VALUE }), simple)
            }
        };
        if simple {
            self.write_scalar(key, style, Context::SIMPLE_KEY);
            self.w.write_indicator(":", false, false, false);
        } else {
            self.w.write_indicator("?", true, false, true);
            self.write_scalar(key, style, Context::VALUE);
            self.w.write_indent();
            self.w.write_indicator(":", true, false, true);
        }
    }

    /// A string value or sequence item.
    fn string(&mut self, value: &str, ctx: Context) {
        let style = match quick_style(value) {
            // Folding happens only at a space past column 80: none when the text ends before.
            Some(Style::Plain) if self.w.column + 1 + value.len() <= WIDTH || !value.contains(' ') => {
                return self.write_word(value);
            }
            Some(style) => style,
            None => select_style(value, &Analysis::of(value), ctx),
        };
        self.write_scalar(value, style, ctx);
    }

    /// A plain ASCII scalar without breaks and without a space where a line could be folded:
    /// what `write_plain` does for it, in one go (bytes are columns).
    fn write_word(&mut self, word: &str) {
        debug_assert!(word.is_ascii());
        if !self.w.whitespace {
            self.w.put(' ');
        }
        self.w.out.push_str(word);
        self.w.column += word.len();
        self.w.whitespace = false;
        self.w.indention = false;
    }

    fn write_number(&mut self, n: &Number) {
        if !self.w.whitespace {
            self.w.put(' ');
        }
        let before = self.w.out.len();
        if let Some(i) = n.as_i64() {
            let _ = write!(self.w.out, "{i}");
        } else if let Some(u) = n.as_u64() {
            let _ = write!(self.w.out, "{u}");
        } else {
            self.w.out.push_str(&float_text(n.as_f64().unwrap_or(0.0)));
        }
        // Number text is ASCII: bytes are columns.
        self.w.column += self.w.out.len() - before;
        self.w.whitespace = false;
        self.w.indention = false;
    }

    /// `[]` and `{}`: go-yaml switches to flow style for empty collections.
    fn empty_flow(&mut self, open: &str, close: &str) {
        self.w.write_indicator(open, true, true, false);
        self.w.write_indicator(close, false, false, false);
    }

    /// `yaml_emitter_emit_scalar` once the style is chosen.
    fn write_scalar(&mut self, value: &str, style: Style, ctx: Context) {
        self.w.increase_indent(true, false);
        let breaks = !ctx.simple_key;
        match style {
            Style::Plain => self.w.write_plain(value, breaks),
            Style::SingleQuoted => self.w.write_single_quoted(value, breaks),
            Style::DoubleQuoted => self.w.write_double_quoted(value, breaks),
            Style::Literal => self.w.write_literal(value),
        }
        self.w.pop_indent();
    }
}

/// `yaml_emitter_select_scalar_style` for a string, from its analysis.
fn select_style(value: &str, a: &Analysis, ctx: Context) -> Style {
    let mut style = string_style(value);
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
    style
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

/// A JSON float as Marshal prints it: encoding/json's text, read back by go-yaml (an
/// integer stays one, anything else is a float64) and printed with
/// `FormatFloat(f, 'g', -1, 64)`.
fn float_text(f: f64) -> String {
    let json = format_json_float(f);
    match parse_scalar(&json) {
        Scalar::Int(i) => i.to_string(),
        Scalar::Uint(u) => u.to_string(),
        Scalar::Float(f) => format_g(f, false),
        _ => json,
    }
}
