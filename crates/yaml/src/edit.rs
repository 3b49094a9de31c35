//! Scalar replacement text: what to write over a scalar so that the file reads back as a given
//! value, with Kubernetes' (go-yaml v2) resolution rules and the scalar's own quoting style
//! kept where it can hold the value.
//!
//! A repair tool must never change the type of what it writes: the string `"0755"` written
//! plain is the octal integer 493 to Kubernetes, `"yes"` plain is `true`, `"~"` plain is null.
//! Every candidate is therefore checked by loading the edited text again ([`replace_scalar`]),
//! never by a second copy of the resolution table. This module knows YAML only: which value
//! to write comes from the caller.

use std::ops::Range;

use serde_json::Value;

use crate::emit_scalar::{Style, quick_style};
use crate::node::{Node, NodeValue, ScalarStyle};

/// The text to write over the scalar at `span` of `text` so that, loaded again, the node at
/// that place is `value` and nothing else in the stream changed shape; `None` when no
/// replacement is certain (a block scalar, a tagged, anchored or aliased node, a collection
/// value, text that does not load).
///
/// The scalar's style is kept when it can hold the value (a single-quoted string stays
/// single-quoted); a plain string that would read back as another type (`yes`, `0755`,
/// `1e3`, `~`) is double-quoted, as is any string that plain style cannot hold in its place
/// (`a, b` inside a flow sequence). Numbers, booleans and null are written plain.
///
/// Returns the range to replace (the scalar itself: a node's span may run on over a comment
/// after a quoted scalar, which stays) and the text to write there.
#[must_use]
pub fn replace_scalar(
    text: &str,
    span: Range<usize>,
    style: ScalarStyle,
    value: &Value,
) -> Option<(Range<usize>, String)> {
    let old = text.get(span.clone())?;
    let before = crate::parse_stream(text);
    if before.error.is_some() {
        return None;
    }
    let (count, node) = nodes_at(&before.documents, span.start);
    let node = node.filter(|n| count == 1 && n.span == span && n.tag().is_none() && n.alias().is_none())?;
    if matches!(node.value, NodeValue::Sequence(_) | NodeValue::Mapping(_)) || old.starts_with(['&', '!', '*']) {
        return None;
    }
    let range = scalar_extent(text, &span, style)?;
    let size: usize = before.documents.iter().map(|d| d.root.tree_size()).sum();
    let replacement = candidates(style, value)?.into_iter().find(|candidate| {
        let mut edited = String::with_capacity(text.len() + candidate.len());
        edited.push_str(&text[..range.start]);
        edited.push_str(candidate);
        edited.push_str(&text[range.end..]);
        let after = crate::parse_stream(&edited);
        if after.error.is_some() || after.documents.len() != before.documents.len() {
            return false;
        }
        let (count, node) = nodes_at(&after.documents, range.start);
        count == 1
            && node.is_some_and(|n| {
                n.style.and_then(|s| scalar_extent(&edited, &n.span, s))
                    == Some(range.start..range.start + candidate.len())
                    && n.to_json() == *value
            })
            && after.documents.iter().map(|d| d.root.tree_size()).sum::<usize>() == size
            && same_but(&before.documents, &after.documents, range.start, Target::Scalar, &|v| *v = value.clone())
    })?;
    Some((range, replacement))
}

/// The bytes of the scalar at `span` itself: a quoted scalar ends at its closing quote (the
/// loader's span runs on to the end of the line, over a comment); a plain one has no blank at
/// its end. `None` for a block scalar or a quote that does not close inside the span.
fn scalar_extent(text: &str, span: &Range<usize>, style: ScalarStyle) -> Option<Range<usize>> {
    let s = text.get(span.clone())?;
    let len = match style {
        ScalarStyle::Plain => s.trim_end_matches([' ', '\t']).len(),
        ScalarStyle::DoubleQuoted => {
            let b = s.as_bytes();
            if b.first() != Some(&b'"') {
                return None;
            }
            let mut i = 1;
            loop {
                match b.get(i)? {
                    b'\\' => i += 2,
                    b'"' => break i + 1,
                    _ => i += 1,
                }
            }
        }
        ScalarStyle::SingleQuoted => {
            let b = s.as_bytes();
            if b.first() != Some(&b'\'') {
                return None;
            }
            let mut i = 1;
            loop {
                match (b.get(i)?, b.get(i + 1)) {
                    (b'\'', Some(b'\'')) => i += 2,
                    (b'\'', _) => break i + 1,
                    _ => i += 1,
                }
            }
        }
        ScalarStyle::Literal | ScalarStyle::Folded => return None,
    };
    Some(span.start..span.start + len)
}

/// Which node an edit at an offset changes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Scalar,
    Mapping,
}

/// Whether the stream `after` loads to exactly `before` with `change` made to the node of
/// kind `target` starting at `at`: no other value, anywhere, moved or changed.
fn same_but(
    before: &[crate::stream::Document],
    after: &[crate::stream::Document],
    at: usize,
    target: Target,
    change: &dyn Fn(&mut Value),
) -> bool {
    fn json(n: &Node, at: usize, target: Target, change: &dyn Fn(&mut Value)) -> Value {
        let hit = n.span.start == at
            && match (&n.value, target) {
                (NodeValue::Mapping(_), Target::Mapping) => true,
                (NodeValue::Mapping(_) | NodeValue::Sequence(_), _) | (_, Target::Mapping) => false,
                _ => true,
            };
        let mut v = match &n.value {
            NodeValue::Sequence(items) => Value::Array(items.iter().map(|i| json(i, at, target, change)).collect()),
            NodeValue::Mapping(entries) => Value::Object(
                entries.iter().map(|(k, v)| (k.json_key().into_owned(), json(v, at, target, change))).collect(),
            ),
            _ => n.to_json(),
        };
        if hit {
            change(&mut v);
        }
        v
    }
    before.len() == after.len()
        && before.iter().zip(after).all(|(b, a)| json(&b.root, at, target, change) == a.root.to_json())
}

/// Where and what to insert so that the block mapping at `mapping` (a node's span in `text`)
/// gains the entry `key: value` as its last entry, at its keys' indentation, with the line
/// ending the file uses; `None` for a flow or empty mapping, or text that would not load back
/// with exactly that entry added.
///
/// A mapping or sequence value is written in block style below the key, each level as many
/// columns deeper as the file nests blocks there (two when it does not say), a sequence's
/// dashes indented under their key, its entries in the value's order; an empty one as `{}`
/// or `[]`.
#[must_use]
pub fn insert_entry(text: &str, mapping: Range<usize>, key: &str, value: &Value) -> Option<(usize, String)> {
    let before = crate::parse_stream(text);
    if before.error.is_some() {
        return None;
    }
    let node = find_collection(&before.documents, &mapping)?;
    let NodeValue::Mapping(entries) = &node.value else { return None };
    let (first_key, _) = entries.first()?;
    let (_, last_value) = entries.last()?;
    // A block mapping starts at its first key; a flow mapping at its `{`.
    if text.as_bytes().get(mapping.start) == Some(&b'{') || first_key.span.start != node.span.start {
        return None;
    }
    // (A mapping used through an alias too would grow twice: the size check below refuses it.)
    if node.alias().is_some() || entries.iter().any(|(k, _)| k.json_key() == key) {
        return None;
    }
    let line_start = text[..first_key.span.start].rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..first_key.span.start].chars().count();
    let eol = if text[..last_value.span.end.max(1)].contains("\r\n") || text.contains("\r\n") { "\r\n" } else { "\n" };
    // After the line the last value ends on (a block scalar's span already holds its break).
    let end = last_value.span.end;
    let (at, lead) = if end > 0 && text.as_bytes()[end - 1] == b'\n' {
        (end, "")
    } else {
        match text[end..].find('\n') {
            Some(i) => (end + i + 1, ""),
            None => (text.len(), eol),
        }
    };
    let key_text = key_text(key);
    let size: usize = before.documents.iter().map(|d| d.root.tree_size()).sum();
    let step = nesting_step(text, entries, column, line_start);
    let inserts = match value {
        Value::Object(m) if !m.is_empty() => vec![block_entry(&key_text, value, column, step, lead, eol)],
        Value::Array(a) if !a.is_empty() => vec![block_entry(&key_text, value, column, step, lead, eol)],
        _ => candidates(ScalarStyle::Plain, value)
            .unwrap_or_else(|| vec![leaf(value)])
            .into_iter()
            .map(|v| format!("{lead}{}{key_text}: {v}{eol}", " ".repeat(column)))
            .collect(),
    };
    inserts.into_iter().find_map(|insert| {
        let mut edited = String::with_capacity(text.len() + insert.len());
        edited.push_str(&text[..at]);
        edited.push_str(&insert);
        edited.push_str(&text[at..]);
        let after = crate::parse_stream(&edited);
        let grown = after.documents.iter().map(|d| d.root.tree_size()).sum::<usize>() == size + 1 + json_size(value);
        let added = find_collection(&after.documents, &(mapping.start..mapping.end))
            .and_then(|m| m.get(key))
            .is_some_and(|n| n.to_json() == *value);
        let same = same_but(&before.documents, &after.documents, mapping.start, Target::Mapping, &|m| {
            if let Value::Object(m) = m {
                m.insert(key.to_owned(), value.clone());
            }
        });
        (after.error.is_none() && grown && added && same).then_some((at, insert))
    })
}

/// The entry `key:` with a non-empty collection `value` below it in block style: the key at
/// `column`, each level `step` columns deeper, every line ending in `eol` (`lead` first: the
/// line break a file without a final one needs).
fn block_entry(key_text: &str, value: &Value, column: usize, step: usize, lead: &str, eol: &str) -> String {
    let mut out = format!("{lead}{}{key_text}:{eol}", " ".repeat(column));
    block(value, column + step, step, eol, &mut out);
    out
}

/// The lines of the non-empty collection `value` at `indent` columns.
fn block(value: &Value, indent: usize, step: usize, eol: &str, out: &mut String) {
    let pad = " ".repeat(indent);
    let nested =
        |v: &Value| matches!(v, Value::Object(m) if !m.is_empty()) || matches!(v, Value::Array(a) if !a.is_empty());
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push_str(&pad);
                out.push_str(&key_text(k));
                out.push(':');
                if nested(v) {
                    out.push_str(eol);
                    block(v, indent + step, step, eol, out);
                } else {
                    out.push(' ');
                    out.push_str(&leaf(v));
                    out.push_str(eol);
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                out.push_str(&pad);
                out.push('-');
                match v {
                    // `- k: v`, the item's other entries aligned under its first.
                    Value::Object(_) if nested(v) => {
                        let mut inner = String::new();
                        block(v, indent + 2, step, eol, &mut inner);
                        out.push(' ');
                        out.push_str(&inner[indent + 2..]);
                    }
                    Value::Array(_) if nested(v) => {
                        out.push_str(eol);
                        block(v, indent + step, step, eol, out);
                    }
                    _ => {
                        out.push(' ');
                        out.push_str(&leaf(v));
                        out.push_str(eol);
                    }
                }
            }
        }
        _ => {}
    }
}

/// How many columns deeper the file nests a block below its key, judged at the mapping whose
/// keys are at `column` and whose first key's line starts at `line_start`: a value of its own
/// nested on the next lines, else the line above that holds its parent; 2 when neither says
/// (or says something odd).
fn nesting_step(text: &str, entries: &[(Node, Node)], column: usize, line_start: usize) -> usize {
    let col = |at: usize| at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    let own = entries.iter().find_map(|(k, v)| match &v.value {
        NodeValue::Mapping(e) if !e.is_empty() && text.get(k.span.end..e[0].0.span.start)?.contains('\n') => {
            col(e[0].0.span.start).checked_sub(column)
        }
        _ => None,
    });
    let parent = || {
        text[..line_start].lines().rev().find_map(|l| {
            let t = l.trim_start();
            let indent = l.len() - t.len();
            (!t.is_empty() && !t.starts_with('#') && indent < column).then(|| column - indent)
        })
    };
    own.or_else(parent).filter(|s| (2..=8).contains(s)).unwrap_or(2)
}

/// A mapping key as written: plain when plain style reads it back as that string.
fn key_text(key: &str) -> String {
    match quick_style(key) {
        Some(Style::Plain) => key.to_owned(),
        _ => double_quoted(key),
    }
}

/// A scalar or an empty collection on one line: a string plain when plain style reads it
/// back as that string, else double-quoted.
fn leaf(value: &Value) -> String {
    match value {
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        Value::String(s) => key_text(s),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
    }
}

/// How many nodes `value` loads as (keys count, as in [`Node::tree_size`]).
fn json_size(value: &Value) -> usize {
    1 + match value {
        Value::Object(m) => m.values().map(|v| 1 + json_size(v)).sum(),
        Value::Array(a) => a.iter().map(json_size).sum(),
        _ => 0,
    }
}

/// The text to write over the mapping key at `key` (its span in `text`) to rename it `new`,
/// the entry's value and place kept; `None` when the mapping has `new` already, the key is
/// an alias, tagged or complex, or the result would not load as exactly that rename.
///
/// Returns the range to replace (the key itself) and the text to write there.
#[must_use]
pub fn rename_key(text: &str, key: Range<usize>, new: &str) -> Option<(Range<usize>, String)> {
    let before = crate::parse_stream(text);
    if before.error.is_some() {
        return None;
    }
    let (mapping, node) = entry_with_key(&before.documents, &key)?;
    let NodeValue::Mapping(entries) = &mapping.value else { return None };
    if node.tag().is_some() || node.alias().is_some() || entries.iter().any(|(k, _)| k.json_key() == new) {
        return None;
    }
    let old = node.json_key().into_owned();
    let mut candidates = Vec::with_capacity(2);
    if node.style == Some(ScalarStyle::Plain) && quick_style(new) == Some(Style::Plain) {
        candidates.push(new.to_owned());
    }
    candidates.push(double_quoted(new));
    let at = mapping.span.start;
    let range = scalar_extent(text, &key, node.style?)?;
    let found = candidates.into_iter().find(|c| {
        let mut edited = String::with_capacity(text.len() + c.len());
        edited.push_str(&text[..range.start]);
        edited.push_str(c);
        edited.push_str(&text[range.end..]);
        let after = crate::parse_stream(&edited);
        after.error.is_none()
            && same_but(&before.documents, &after.documents, at, Target::Mapping, &|m| {
                if let Value::Object(map) = m {
                    *map = std::mem::take(map)
                        .into_iter()
                        .map(|(k, v)| (if k == old { new.to_owned() } else { k }, v))
                        .collect();
                }
            })
    })?;
    Some((range, found))
}

/// The byte range to delete to remove the mapping entry whose key is at `key`: its whole
/// lines, from the key's line to the end of the value's (a comment there included), when
/// the entry has those lines to itself in a block mapping that keeps another entry; `None`
/// otherwise, or when the result would not load as exactly that removal.
#[must_use]
pub fn remove_entry(text: &str, key: Range<usize>) -> Option<Range<usize>> {
    let before = crate::parse_stream(text);
    if before.error.is_some() {
        return None;
    }
    let (mapping, node) = entry_with_key(&before.documents, &key)?;
    let NodeValue::Mapping(entries) = &mapping.value else { return None };
    let (_, value) = entries.iter().find(|(k, _)| k.span == node.span)?;
    if entries.len() < 2 || value.alias().is_some() || text.as_bytes().get(mapping.span.start) == Some(&b'{') {
        return None;
    }
    let line_start = text[..key.start].rfind('\n').map_or(0, |i| i + 1);
    // The key starts its line: no `- ` of a list item, nothing of another entry before it.
    if !text[line_start..key.start].bytes().all(|b| b == b' ') {
        return None;
    }
    let end = value.span.end.max(key.end);
    let end = if end > 0 && text.as_bytes()[end - 1] == b'\n' {
        end
    } else {
        let rest = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
        // Only blanks or a comment may follow the value on its line.
        let tail = text[end..rest].trim_start_matches([' ', '\t']);
        if !(tail.is_empty() || tail.starts_with('#') || tail.starts_with('\n') || tail.starts_with("\r\n")) {
            return None;
        }
        rest
    };
    let removed = line_start..end;
    let old = node.json_key().into_owned();
    let mut edited = String::with_capacity(text.len());
    edited.push_str(&text[..removed.start]);
    edited.push_str(&text[removed.end..]);
    let after = crate::parse_stream(&edited);
    let at = mapping.span.start;
    // The mapping may start later now (its first entry removed): whole documents compared.
    let ok = after.error.is_none() && {
        before.documents.len() == after.documents.len()
            && before.documents.iter().zip(&after.documents).all(|(b, a)| {
                let mut expected = b.root.to_json();
                remove_at(&mut expected, &b.root, at, &old);
                expected == a.root.to_json()
            })
    };
    ok.then_some(removed)
}

/// Removes `key` from the JSON of the mapping node of `root` that starts at `at`.
fn remove_at(json: &mut Value, node: &Node, at: usize, key: &str) {
    match (&node.value, json) {
        (NodeValue::Mapping(entries), Value::Object(map)) => {
            if node.span.start == at {
                map.shift_remove(key);
                return;
            }
            for (k, v) in entries {
                if let Some(j) = map.get_mut(k.json_key().as_ref()) {
                    remove_at(j, v, at, key);
                }
            }
        }
        (NodeValue::Sequence(items), Value::Array(values)) => {
            for (n, j) in items.iter().zip(values) {
                remove_at(j, n, at, key);
            }
        }
        _ => {}
    }
}

/// The mapping holding the key at `key`, and that key.
fn entry_with_key<'d>(documents: &'d [crate::stream::Document], key: &Range<usize>) -> Option<(&'d Node, &'d Node)> {
    fn walk<'n>(n: &'n Node, key: &Range<usize>) -> Option<(&'n Node, &'n Node)> {
        match &n.value {
            NodeValue::Mapping(e) => {
                e.iter().find_map(|(k, v)| if k.span == *key { Some((n, k)) } else { walk(v, key) })
            }
            NodeValue::Sequence(items) => items.iter().find_map(|i| walk(i, key)),
            _ => None,
        }
    }
    documents.iter().find_map(|d| walk(&d.root, key))
}

/// The collection node of the stream that starts at `span.start` (its end may have moved).
fn find_collection<'d>(documents: &'d [crate::stream::Document], span: &Range<usize>) -> Option<&'d Node> {
    fn walk(n: &Node, at: usize) -> Option<&Node> {
        let here = (n.span.start == at && matches!(n.value, NodeValue::Mapping(_))).then_some(n);
        let inner = match &n.value {
            NodeValue::Sequence(items) => items.iter().find_map(|i| walk(i, at)),
            NodeValue::Mapping(e) => e.iter().find_map(|(_, v)| walk(v, at)),
            _ => None,
        };
        // The outermost mapping starting there: a nested one may share its start only when
        // it is the first value of a flow mapping, which this is not used for.
        here.or(inner)
    }
    documents.iter().find_map(|d| walk(&d.root, span.start))
}

/// The texts to try, best first: the value in the scalar's style, then double-quoted.
fn candidates(style: ScalarStyle, value: &Value) -> Option<Vec<String>> {
    let s = match value {
        Value::String(s) => s,
        Value::Null => return Some(vec!["null".into()]),
        Value::Bool(b) => return Some(vec![b.to_string()]),
        Value::Number(n) => return Some(vec![n.to_string()]),
        Value::Array(_) | Value::Object(_) => return None,
    };
    let mut out = Vec::with_capacity(2);
    match style {
        ScalarStyle::Literal | ScalarStyle::Folded => return None,
        ScalarStyle::SingleQuoted if !s.chars().any(|c| c.is_control()) => {
            out.push(format!("'{}'", s.replace('\'', "''")));
        }
        ScalarStyle::Plain if quick_style(s) == Some(Style::Plain) => out.push(s.clone()),
        _ => {}
    }
    out.push(double_quoted(s));
    Some(out)
}

/// `s` as a YAML double-quoted scalar on one line.
#[must_use]
pub fn double_quoted(s: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// How many nodes of the stream start at `at` (alias copies keep their original's span, so
/// an anchored value counts once per use), and the first of them.
fn nodes_at(documents: &[crate::stream::Document], at: usize) -> (usize, Option<&Node>) {
    let mut found = (0, None);
    for d in documents.iter().filter(|d| d.root.span.start <= at && at <= d.root.span.end) {
        visit(&d.root, at, &mut found);
    }
    found
}

fn visit<'n>(node: &'n Node, at: usize, found: &mut (usize, Option<&'n Node>)) {
    if node.span.start == at && !matches!(node.value, NodeValue::Sequence(_) | NodeValue::Mapping(_)) {
        found.0 += 1;
        found.1.get_or_insert(node);
    }
    // An alias copy reports its original's span, which may lie anywhere: always descend.
    match &node.value {
        NodeValue::Sequence(items) => items.iter().for_each(|n| visit(n, at, found)),
        NodeValue::Mapping(entries) => entries.iter().for_each(|(k, v)| {
            visit(k, at, found);
            visit(v, at, found);
        }),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The replacement of the scalar ending where `old` ends (its span may hold an anchor).
    fn fix(text: &str, old: &str, value: Value) -> Option<String> {
        let stream = crate::parse_stream(text);
        let end = text.find(old).unwrap() + old.len();
        let node = find(&stream.documents[0].root, end).unwrap();
        replace_scalar(text, node.span.clone(), node.style.unwrap(), &value).map(|(_, text)| text)
    }

    fn find(n: &Node, end: usize) -> Option<&Node> {
        if n.span.end == end && n.style.is_some() {
            return Some(n);
        }
        match &n.value {
            NodeValue::Sequence(items) => items.iter().find_map(|i| find(i, end)),
            NodeValue::Mapping(e) => e.iter().find_map(|(k, v)| find(k, end).or_else(|| find(v, end))),
            _ => None,
        }
    }

    #[test]
    fn strings_keep_their_type() {
        for s in ["0755", "true", "yes", "on", "y", "1.0", "null", "~", "0x1f", "1e3", "", "1_000", "12:30"] {
            assert_eq!(fix("mode: x\n", "x", json!(s)), Some(format!("\"{s}\"")), "{s}");
        }
        assert_eq!(fix("mode: x\n", "x", json!("abc")).as_deref(), Some("abc"));
        assert_eq!(fix("mode: x\n", "x", json!("a: b")).as_deref(), Some("\"a: b\""));
    }

    #[test]
    fn quote_style_is_kept_where_it_holds_the_value() {
        assert_eq!(fix("a: 'x'\n", "'x'", json!("0755")).as_deref(), Some("'0755'"));
        assert_eq!(fix("a: 'x'\n", "'x'", json!("it's")).as_deref(), Some("'it''s'"));
        assert_eq!(fix("a: \"x\"\n", "\"x\"", json!("b\"c")).as_deref(), Some("\"b\\\"c\""));
        assert_eq!(fix("a: 'x'\n", "'x'", json!("a\nb")).as_deref(), Some("\"a\\nb\""));
        // Numbers and booleans are written plain whatever the quotes were.
        assert_eq!(fix("a: \"x\"\n", "\"x\"", json!(9000)).as_deref(), Some("9000"));
        assert_eq!(fix("a: x\n", "x", json!(false)).as_deref(), Some("false"));
    }

    /// A comment after a quoted scalar (which the loader's span runs over) stays.
    #[test]
    fn comments_after_quoted_scalars_stay() {
        let text = "a: \"x\"  # c\nb: 'y' # d\n";
        let stream = crate::parse_stream(text);
        let a = stream.documents[0].root.pointer("/a").unwrap();
        let (range, new) = replace_scalar(text, a.span.clone(), a.style.unwrap(), &json!("#")).unwrap();
        assert_eq!((&text[range], new.as_str()), ("\"x\"", "\"#\""));
        let b = stream.documents[0].root.pointer("/b").unwrap();
        let (range, new) = replace_scalar(text, b.span.clone(), b.style.unwrap(), &json!("z")).unwrap();
        assert_eq!((&text[range], new.as_str()), ("'y'", "'z'"));
    }

    #[test]
    fn flow_collections_quote_what_plain_cannot_hold() {
        assert_eq!(fix("a: [x, y]\n", "x", json!("b, c")).as_deref(), Some("\"b, c\""));
        assert_eq!(fix("a: {k: x}\n", "x", json!("v")).as_deref(), Some("v"));
    }

    /// A mapping or sequence value goes in block style under its key, deeper by two columns
    /// per level, in the value's order; the result loads to the mapping with that entry.
    #[test]
    fn collections_are_inserted_in_block_style() {
        let text = "spec:\n  replicas: 1   # one\n# end\n";
        let root = crate::parse_stream(text).documents.remove(0).root;
        let spec = root.pointer("/spec").unwrap();
        let value = json!({"z": 1, "limits": {"cpu": "0755", "mem": "1Gi"}, "ports": [80, {"name": "http", "port": 8080}], "tags": [], "none": {}});
        let (at, insert) = insert_entry(text, spec.span.clone(), "resources", &value).unwrap();
        assert_eq!(
            insert,
            "  resources:\n    z: 1\n    limits:\n      cpu: \"0755\"\n      mem: 1Gi\n    ports:\n      - 80\n      - name: http\n        port: 8080\n    tags: []\n    none: {}\n"
        );
        let mut edited = text.to_owned();
        edited.insert_str(at, &insert);
        assert_eq!(&edited[..at], &text[..at]);
        assert_eq!(&edited[at + insert.len()..], &text[at..]);
        let after = crate::parse_stream(&edited).documents.remove(0).root;
        assert_eq!(after.pointer("/spec/resources").unwrap().to_json(), value);
        assert_eq!(after.pointer("/spec/replicas").unwrap().to_json(), json!(1));
        // A sequence of sequences, CRLF.
        let text = "a:\r\n  b: 1\r\n";
        let root = crate::parse_stream(text).documents.remove(0).root;
        let a = root.pointer("/a").unwrap();
        let (_, insert) = insert_entry(text, a.span.clone(), "m", &json!([["x", "w"], "z"])).unwrap();
        assert_eq!(insert, "  m:\r\n    -\r\n      - x\r\n      - w\r\n    - z\r\n");
        // A file nesting by four columns gets four, judged by the mapping's parent or its own
        // nested values; a list item's entries stay aligned after its dash.
        let text = "spec:\n    replicas: 1\n";
        let root = crate::parse_stream(text).documents.remove(0).root;
        let spec = root.pointer("/spec").unwrap();
        let (_, insert) = insert_entry(text, spec.span.clone(), "m", &json!({"a": [{"b": 1, "c": 2}]})).unwrap();
        assert_eq!(insert, "    m:\n        a:\n            - b: 1\n              c: 2\n");
        let text = "x:\n    y: 1\n";
        let root = crate::parse_stream(text).documents.remove(0).root;
        let (_, insert) = insert_entry(text, root.span.clone(), "m", &json!({"a": 1})).unwrap();
        assert_eq!(insert, "m:\n    a: 1\n");
    }

    /// A mapping's only entry is not removed: the mapping would read as null.
    #[test]
    fn the_last_entry_of_a_mapping_is_not_removed() {
        let text = "a:\n  only: 1\nb:\n  x: 1  # c\n  y: 2\nc: {p: 1, q: 2}\n";
        let key = |k: &str| {
            let at = text.find(&format!("{k}:")).unwrap();
            at..at + k.len()
        };
        assert_eq!(remove_entry(text, key("only")), None);
        assert_eq!(remove_entry(text, key("x")).map(|r| &text[r]), Some("  x: 1  # c\n"));
        assert_eq!(remove_entry(text, key("p")), None, "a flow mapping");
    }

    #[test]
    fn anchored_tagged_and_block_scalars_are_left_alone() {
        assert_eq!(fix("a: &x v\nb: *x\n", "v", json!("w")), None);
        assert_eq!(fix("a: !!str v\n", "v", json!("w")), None);
        assert_eq!(fix("a: |\n  v\nb: c\n", "  v\n", json!("w")), None);
    }
}
