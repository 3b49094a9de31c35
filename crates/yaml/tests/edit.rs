//! A property test of [`driftlint_yaml::replace_scalar`] and [`driftlint_yaml::insert_entry`]
//! (scalars, and mappings and sequences in block style) over generated YAML: block and flow collections, every scalar style, comments, CRLF, block
//! scalars, anchors and aliases. Whatever the document, an offered replacement lands exactly
//! on its span (every other byte is the original's), and the result loads to the original
//! object with that one field set to the new value. Seeded, so a failure repeats.

use driftlint_yaml::{Node, NodeValue, ScalarStyle, insert_entry, parse_stream, replace_scalar};
use serde_json::{Value, json};

/// Values a fix may have to write: Kubernetes' YAML 1.1 traps among them.
fn values() -> Vec<Value> {
    let strings = [
        "plain",
        "0755",
        "true",
        "yes",
        "on",
        "y",
        "N",
        "1.0",
        "null",
        "~",
        "0x1f",
        "1e3",
        "1_000",
        "12:30",
        "",
        " lead",
        "trail ",
        "a: b",
        "a #b",
        "a, b",
        "[x]",
        "{x}",
        "-",
        "- x",
        "it's",
        "say \"hi\"",
        "back\\slash",
        "two\nlines",
        "tab\there",
        "ünïcode",
        "&anchor",
        "*alias",
        "!tag",
        "%x",
        "@x",
        "`x",
        "?",
        "? x",
        "---",
        "...",
        "#",
        "=",
        "<<",
        "2024-01-01",
    ];
    let mut out: Vec<Value> = strings.iter().map(|s| json!(s)).collect();
    out.extend([json!(0), json!(9000), json!(-3), json!(1.5), json!(true), json!(false), Value::Null]);
    out
}

/// A scalar's text in `style` for the generator (the value is whatever it loads as).
fn scalar(rng: &mut fastrand::Rng, flow: bool) -> String {
    let words = ["a", "b c", "0755", "yes", "x-y", "1.5", "~", "it''s", "q\\\"q", "80"];
    let w = words[rng.usize(..words.len())];
    match rng.u8(..if flow { 3 } else { 4 }) {
        0 if !w.contains('\'') && !w.contains('"') => w.to_string(),
        0 | 1 if !w.contains('"') => format!("'{w}'"),
        1 | 2 => format!("\"{}\"", w.replace("''", "'")),
        _ => format!("\"{}\"", w.replace("''", "'")),
    }
}

/// A generated document: a mapping of entries of every kind, lines ending in `eol`.
fn document(rng: &mut fastrand::Rng, eol: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    if rng.bool() {
        lines.push("# a comment".into());
    }
    let mut anchored = false;
    for i in 0..rng.usize(3..9) {
        let comment = if rng.u8(..4) == 0 { "  # note" } else { "" };
        match rng.u8(..8) {
            0 => lines.push(format!("k{i}: {{a: {}, b: {}}}{comment}", scalar(rng, true), scalar(rng, true))),
            1 => lines.push(format!("k{i}: [{}, {}]{comment}", scalar(rng, true), scalar(rng, true))),
            2 => {
                lines.push(format!("k{i}: |"));
                lines.push("  block text".into());
                lines.push("  more".into());
            }
            3 => {
                lines.push(format!("k{i}:"));
                lines.push(format!("  - {}{comment}", scalar(rng, false)));
                lines.push(format!("  - n: {}", scalar(rng, false)));
                lines.push(format!("    m: {}", scalar(rng, false)));
            }
            4 if !anchored => {
                anchored = true;
                lines.push(format!("k{i}: &shared {}", scalar(rng, false)));
                lines.push(format!("u{i}: *shared"));
            }
            5 => {
                lines.push(format!("k{i}:"));
                lines.push(format!("  inner: {}{comment}", scalar(rng, false)));
            }
            _ => lines.push(format!("k{i}: {}{comment}", scalar(rng, false))),
        }
    }
    let mut text = lines.join(eol);
    if rng.bool() {
        text.push_str(eol);
    }
    text
}

/// Every scalar value node (not keys) with its JSON pointer.
fn scalars<'n>(n: &'n Node, pointer: String, out: &mut Vec<(String, &'n Node)>) {
    match &n.value {
        NodeValue::Mapping(entries) => {
            for (k, v) in entries {
                scalars(v, format!("{pointer}/{}", k.json_key().replace('~', "~0").replace('/', "~1")), out);
            }
        }
        NodeValue::Sequence(items) => {
            for (i, v) in items.iter().enumerate() {
                scalars(v, format!("{pointer}/{i}"), out);
            }
        }
        _ => out.push((pointer, n)),
    }
}

#[test]
fn replacements_land_on_their_span_and_load_to_the_value() {
    let mut rng = fastrand::Rng::with_seed(0x5eed_f1c5);
    let values = values();
    let (mut offered, mut tried) = (0, 0);
    for _ in 0..1500 {
        let eol = if rng.bool() { "\r\n" } else { "\n" };
        let text = document(&mut rng, eol);
        let stream = parse_stream(&text);
        assert!(stream.error.is_none(), "the generator wrote invalid YAML:\n{text}");
        let root = &stream.documents[0].root;
        let mut found = Vec::new();
        scalars(root, String::new(), &mut found);
        let (pointer, node) = &found[rng.usize(..found.len())];
        let value = &values[rng.usize(..values.len())];
        tried += 1;
        let Some((range, replacement)) = replace_scalar(&text, node.span.clone(), node.style.unwrap(), value) else {
            // Only what cannot be rewritten in place is declined.
            let aliased = found.iter().filter(|(_, n)| n.span == node.span).count() > 1;
            assert!(
                aliased || matches!(node.style, Some(ScalarStyle::Literal | ScalarStyle::Folded)),
                "declined {value} at {pointer} in:\n{text}"
            );
            continue;
        };
        offered += 1;
        assert!(range.start == node.span.start && range.end <= node.span.end, "{range:?} {:?}", node.span);
        let mut edited = text.clone();
        edited.replace_range(range.clone(), &replacement);
        assert_eq!(&edited[..range.start], &text[..range.start]);
        assert_eq!(&edited[range.start + replacement.len()..], &text[range.end..]);
        // A comment after the value stays.
        assert_eq!(edited.matches("# note").count(), text.matches("# note").count(), "{text}\n=>\n{edited}");
        let after = parse_stream(&edited);
        assert!(after.error.is_none(), "{edited}");
        let mut expected = root.to_json();
        *expected.pointer_mut(pointer).unwrap() = value.clone();
        assert_eq!(after.documents[0].root.to_json(), expected, "{value} at {pointer}:\n{text}\n=>\n{edited}");
        assert!(!replacement.contains('\n') && !replacement.contains('\r'), "{replacement:?}");
    }
    assert!(offered * 10 > tried * 7, "only {offered} of {tried} replacements offered");
}

#[test]
fn inserted_entries_join_their_mapping() {
    let mut rng = fastrand::Rng::with_seed(0x001e_5e47);
    let values = values();
    let mut offered = 0;
    for _ in 0..600 {
        let eol = if rng.bool() { "\r\n" } else { "\n" };
        let text = document(&mut rng, eol);
        let root = parse_stream(&text).documents.remove(0).root;
        let value = &values[rng.usize(..values.len())];
        let Some((at, insert)) = insert_entry(&text, root.span.clone(), "added", value) else { continue };
        offered += 1;
        let mut edited = text.clone();
        edited.insert_str(at, &insert);
        assert!(insert.ends_with(eol), "{insert:?}");
        assert!(
            !text.contains("\r\n") || !edited.replace("\r\n", "").contains('\n'),
            "mixed line endings:\n{edited:?}"
        );
        let mut expected = root.to_json();
        expected.as_object_mut().unwrap().insert("added".into(), value.clone());
        assert_eq!(parse_stream(&edited).documents[0].root.to_json(), expected, "{text}\n=>\n{edited}");
    }
    // Every generated document is a block mapping: all are offered.
    assert_eq!(offered, 600);
}

/// A generated mapping or sequence, up to `depth` levels, of the trap values.
fn collection(rng: &mut fastrand::Rng, values: &[Value], depth: usize) -> Value {
    let n = rng.usize(0..4);
    let item = |rng: &mut fastrand::Rng| {
        if depth > 0 && rng.u8(..3) == 0 {
            collection(rng, values, depth - 1)
        } else {
            values[rng.usize(..values.len())].clone()
        }
    };
    if rng.bool() {
        let mut m = serde_json::Map::new();
        for i in 0..n {
            let keys = ["name", "0755", "yes", "a b", "x: y", "-", "k"];
            let key = format!("{}{i}", keys[rng.usize(..keys.len())]);
            m.insert(key, item(rng));
        }
        Value::Object(m)
    } else {
        Value::Array((0..n).map(|_| item(rng)).collect())
    }
}

/// Every block mapping of the tree (its span and pointer): the root, a nested mapping, a list
/// item's mapping.
fn block_mappings<'n>(n: &'n Node, pointer: String, text: &str, out: &mut Vec<(String, &'n Node)>) {
    match &n.value {
        NodeValue::Mapping(entries) => {
            if text.as_bytes().get(n.span.start) != Some(&b'{') {
                out.push((pointer.clone(), n));
            }
            for (k, v) in entries {
                block_mappings(
                    v,
                    format!("{pointer}/{}", k.json_key().replace('~', "~0").replace('/', "~1")),
                    text,
                    out,
                );
            }
        }
        NodeValue::Sequence(items) => {
            for (i, v) in items.iter().enumerate() {
                block_mappings(v, format!("{pointer}/{i}"), text, out);
            }
        }
        _ => {}
    }
}

/// A whole mapping or sequence is inserted in block style into any block mapping of the
/// document (the root, a nested mapping, a list item's): only the insertion is new, and the
/// result loads to the original with that entry added.
#[test]
fn inserted_collections_join_their_mapping() {
    let mut rng = fastrand::Rng::with_seed(0x00c0_11ec);
    let values = values();
    let (mut offered, mut tried) = (0, 0);
    for _ in 0..600 {
        let eol = if rng.bool() { "\r\n" } else { "\n" };
        let text = document(&mut rng, eol);
        let root = parse_stream(&text).documents.remove(0).root;
        let mut mappings = Vec::new();
        block_mappings(&root, String::new(), &text, &mut mappings);
        let (pointer, mapping) = &mappings[rng.usize(..mappings.len())];
        let value = collection(&mut rng, &values, 2);
        tried += 1;
        // No generated mapping is used through an alias: every insertion is offered.
        let Some((at, insert)) = insert_entry(&text, mapping.span.clone(), "added", &value) else {
            panic!("declined {value} at {pointer:?} in:\n{text}");
        };
        offered += 1;
        let mut edited = text.clone();
        edited.insert_str(at, &insert);
        assert!(insert.ends_with(eol), "{insert:?}");
        assert!(
            !text.contains("\r\n") || !edited.replace("\r\n", "").contains('\n'),
            "mixed line endings:\n{edited:?}"
        );
        let mut expected = root.to_json();
        expected.pointer_mut(pointer).unwrap().as_object_mut().unwrap().insert("added".into(), value.clone());
        let after = parse_stream(&edited);
        assert!(after.error.is_none(), "{text}\n=>\n{edited}");
        assert_eq!(after.documents[0].root.to_json(), expected, "{value} at {pointer:?}:\n{text}\n=>\n{edited}");
    }
    assert_eq!(offered, tried);
}
