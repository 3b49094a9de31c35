//! Loader behaviour: spans, multi-document streams, pointers, anchors, merge keys,
//! duplicate keys, errors and limits.

use driftlint_yaml::{
    ErrorKind, Limits, LineIndex, NodeValue, ScalarStyle, Warning, parse_stream, parse_stream_general,
    parse_stream_with,
};
use serde_json::json;

fn at<'a>(text: &'a str, span: &std::ops::Range<usize>) -> &'a str {
    &text[span.clone()]
}

const MULTI: &str = "\
# leading comment
apiVersion: v1
kind: ConfigMap
metadata:
  name: first
data:
  key: value
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: second  # trailing comment
spec:
  template:
    spec:
      containers:
        - name: app
          image: \"nginx:1.25\"
          ports:
          - containerPort: 80
        - name: sidecar
          image: busybox
          args: [sleep, '3600']
";

#[test]
fn spans_of_nested_keys_and_items_across_documents() {
    let stream = parse_stream(MULTI);
    assert_eq!(stream.error, None);
    assert_eq!(stream.documents.len(), 2);
    let (d1, d2) = (&stream.documents[0], &stream.documents[1]);
    assert!(at(MULTI, &d1.range).starts_with("apiVersion: v1"));
    assert!(at(MULTI, &d1.range).ends_with("key: value"));
    assert!(at(MULTI, &d2.range).starts_with("---\napiVersion: apps/v1"));
    assert!(at(MULTI, &d2.range).ends_with("'3600']"));

    let (key, value) = d2.root.pointer_entry("/metadata/name").unwrap();
    assert_eq!(at(MULTI, &key.unwrap().span), "name");
    assert_eq!(at(MULTI, &value.span), "second");
    let index = LineIndex::new(MULTI);
    assert_eq!(index.line_column(MULTI, value.span.start).line, 12);

    let image = d2.root.pointer("/spec/template/spec/containers/0/image").unwrap();
    assert_eq!(at(MULTI, &image.span), "\"nginx:1.25\"");
    assert_eq!(image.style, Some(ScalarStyle::DoubleQuoted));
    assert_eq!(image.as_str(), Some("nginx:1.25"));

    let second = d2.root.pointer("/spec/template/spec/containers/1").unwrap();
    assert!(at(MULTI, &second.span).starts_with("name: sidecar"));
    assert!(at(MULTI, &second.span).ends_with("'3600']"));

    let containers = d2.root.pointer("/spec/template/spec/containers").unwrap();
    assert!(at(MULTI, &containers.span).starts_with("- name: app"));

    let port = d2.root.pointer("/spec/template/spec/containers/0/ports/0/containerPort").unwrap();
    assert_eq!(port.value, NodeValue::Int(80));
    assert_eq!(index.line_column(MULTI, port.span.start).line, 20);
    let ports = d2.root.pointer("/spec/template/spec/containers/0/ports").unwrap();
    assert!(at(MULTI, &ports.span).starts_with("- containerPort"));

    let arg = d2.root.pointer("/spec/template/spec/containers/1/args/1").unwrap();
    assert_eq!(at(MULTI, &arg.span), "'3600'");
    let args = d2.root.pointer("/spec/template/spec/containers/1/args").unwrap();
    assert_eq!(at(MULTI, &args.span), "[sleep, '3600']");

    assert_eq!(d1.root.pointer("/data/key").unwrap().as_str(), Some("value"));
    assert!(d1.root.pointer("/data/missing").is_none());
    assert!(d1.root.pointer("/data/key/0").is_none());
    assert!(d1.root.pointer("data").is_none());
    assert_eq!(d1.root.pointer("").unwrap().span, d1.root.span);
}

#[test]
fn byte_offsets_with_non_ascii_text() {
    let text = "ключ: значение\nemoji: \"🙂 ok\"\nlist:\n- é\n- ü: 1\n";
    let doc = &parse_stream(text).documents[0];
    let (k, v) = doc.root.pointer_entry("/ключ").unwrap();
    assert_eq!(at(text, &k.unwrap().span), "ключ");
    assert_eq!(at(text, &v.span), "значение");
    assert_eq!(at(text, &doc.root.pointer("/emoji").unwrap().span), "\"🙂 ok\"");
    assert_eq!(at(text, &doc.root.pointer("/list/0").unwrap().span), "é");
    let (k, v) = doc.root.pointer_entry("/list/1/ü").unwrap();
    assert_eq!(at(text, &k.unwrap().span), "ü");
    assert_eq!(at(text, &v.span), "1");
    // A byte order mark counts as a character for saphyr and as 3 bytes here.
    let bom = "\u{feff}a: é\nb: x\n";
    let doc = &parse_stream(bom).documents[0];
    assert_eq!(at(bom, &doc.root.pointer("/b").unwrap().span), "x");
}

#[test]
fn json_pointer_escapes() {
    let text = "a/b: 1\n\"m~n\": 2\n\"\": 3\nlist: [x, z]\n";
    let root = &parse_stream(text).documents[0].root;
    assert_eq!(root.pointer("/a~1b").unwrap().value, NodeValue::Int(1));
    assert_eq!(root.pointer("/m~0n").unwrap().value, NodeValue::Int(2));
    assert_eq!(root.pointer("/").unwrap().value, NodeValue::Int(3));
    assert_eq!(root.pointer("/list/1").unwrap().as_str(), Some("z"));
    assert!(root.pointer("/list/01").is_none());
    assert!(root.pointer("/list/-").is_none());
    assert!(root.pointer("/list/2").is_none());
}

#[test]
fn block_scalars_keep_style_and_start_at_the_header() {
    let text = "a: |\n  line1\n  line2\nb: >-\n  folded\n  text\nc: # note\n  |+\n  keep\n\nd: x\n";
    let root = &parse_stream(text).documents[0].root;
    let a = root.get("a").unwrap();
    assert_eq!(a.as_str(), Some("line1\nline2\n"));
    assert_eq!(a.style, Some(ScalarStyle::Literal));
    assert!(at(text, &a.span).starts_with("|\n  line1"));
    let b = root.get("b").unwrap();
    assert_eq!(b.as_str(), Some("folded text"));
    assert_eq!(b.style, Some(ScalarStyle::Folded));
    assert!(at(text, &b.span).starts_with(">-"));
    let c = root.get("c").unwrap();
    assert_eq!(c.as_str(), Some("keep\n\n"));
    assert!(at(text, &c.span).starts_with("|+"));
}

#[test]
fn raw_text_and_styles() {
    let text = "a: 0755\nb: 'x'\nc: on\nd:\n";
    let root = &parse_stream(text).documents[0].root;
    let a = root.get("a").unwrap();
    assert_eq!((a.value.clone(), a.raw()), (NodeValue::Int(493), Some("0755")));
    let b = root.get("b").unwrap();
    assert_eq!((b.as_str(), b.style), (Some("x"), Some(ScalarStyle::SingleQuoted)));
    assert_eq!(at(text, &b.span), "'x'");
    let c = root.get("c").unwrap();
    assert_eq!((c.value.clone(), c.raw()), (NodeValue::Bool(true), Some("on")));
    let d = root.get("d").unwrap();
    assert_eq!(d.value, NodeValue::Null);
    assert_eq!(d.raw(), Some(""));
    // An empty value sits right after its key.
    assert_eq!(d.span, 22..22);
}

#[test]
fn empty_and_comment_only_streams() {
    assert!(parse_stream("").documents.is_empty());
    assert!(parse_stream("# only a comment\n").documents.is_empty());
    let s = parse_stream("---\n---\na: 1\n");
    assert_eq!(s.documents.len(), 2);
    assert_eq!(s.documents[0].root.value, NodeValue::Null);
    assert_eq!(s.documents[1].root.to_json(), json!({"a": 1}));
    let s = parse_stream("a: 1\n...\n---\nb: 2\n");
    assert_eq!(s.documents.len(), 2);
    assert_eq!(at("a: 1\n...\n---\nb: 2\n", &s.documents[0].range), "a: 1\n...");
}

#[test]
fn syntax_error_keeps_earlier_documents_and_has_a_location() {
    let text = "a: 1\n---\nb: 2\n---\nc: [1, 2\nd: 3\n";
    let stream = parse_stream(text);
    assert_eq!(stream.documents.len(), 2);
    assert_eq!(stream.documents[1].root.to_json(), json!({"b": 2}));
    let err = stream.error.clone().unwrap();
    assert_eq!(err.kind, ErrorKind::Syntax);
    assert_eq!(err.document, 2);
    assert_eq!((err.line, err.column), (6, 2));
    assert_eq!(err.offset, text.find("d: 3").unwrap() + 1);
    assert!(err.to_string().contains("at line 6 column 2"), "{err}");
    assert!(stream.into_result().is_err());
}

#[test]
fn error_columns_count_characters() {
    let text = "é: ü\n  bad: x\n";
    let err = parse_stream(text).error.unwrap();
    assert_eq!(err.kind, ErrorKind::Syntax);
    assert_eq!(err.line, 2);
    assert_eq!(&text[err.offset..err.offset + 1], ":");
    assert_eq!(err.column, 6);
}

#[test]
fn more_syntax_errors() {
    for (text, line) in [
        ("a: 'unterminated\n", 1),
        ("a: *nope\n", 1),
        ("- a\nb: c\n", 2),
        ("a:\n\t- b\n", 2),
        ("{a: 1", 1),
        ("a: b: c\n", 1),
    ] {
        let err = parse_stream(text).error.unwrap_or_else(|| panic!("no error for {text:?}"));
        assert_eq!(err.kind, ErrorKind::Syntax, "{text:?}");
        assert_eq!(err.line, line, "{text:?}: {err}");
    }
}

#[test]
fn tags() {
    let text = "a: !!str 0755\nb: !!int '12'\nc: !!float 1\nd: !custom x\ne: !!bool yes\nf: !!null ~\n";
    let json = parse_stream(text).documents[0].root.to_json();
    assert_eq!(json, json!({"a": "0755", "b": 12, "c": 1, "d": "x", "e": true, "f": null}));
    let c = parse_stream(text).documents[0].root.get("c").unwrap().clone();
    assert_eq!(c.value, NodeValue::Float(1.0));
    assert_eq!(c.tag(), Some("!!float"));

    let err = parse_stream("a: 1\nb: !!int abc\n").error.unwrap();
    assert_eq!(err.kind, ErrorKind::Tag);
    assert_eq!(err.message, "cannot decode !!str `abc` as a !!int");
    assert_eq!((err.line, err.column), (2, 4));
}

#[test]
fn anchors_and_aliases() {
    let text = "base: &b\n  x: 1\n  w: [a, b]\ncopy: *b\nscalar: &s hello\nagain: *s\n";
    let doc = &parse_stream(text).documents[0];
    let json = doc.root.to_json();
    assert_eq!(json["copy"], json!({"x": 1, "w": ["a", "b"]}));
    assert_eq!(json["again"], "hello");
    let copy = doc.root.get("copy").unwrap();
    assert_eq!(at(text, copy.alias().unwrap()), "*b");
    // Children of a copy point at the original text.
    assert_eq!(doc.root.pointer("/copy/x").unwrap().span, doc.root.pointer("/base/x").unwrap().span);

    let err = parse_stream("a: &a [1, *a]\n").error.unwrap();
    assert!(matches!(err.kind, ErrorKind::RecursiveAlias | ErrorKind::Syntax), "{err:?}");
    // Anchors do not cross documents.
    let s = parse_stream("a: &x 1\n---\nb: *x\n");
    assert_eq!(s.documents.len(), 1);
    assert!(s.error.is_some());
}

#[test]
fn merge_keys_follow_go_yaml_v2() {
    let text = "\
defaults: &d {a: 1, b: 1}
other: &o {b: 2, c: 2}
after:
  <<: *d
  b: 9
before:
  b: 9
  <<: *d
list:
  <<: [*d, *o]
inline:
  <<: {z: 1}
  w: 2
quoted:
  '<<': 1
";
    let stream = parse_stream(text);
    assert_eq!(stream.error, None);
    let json = stream.documents[0].root.to_json();
    // Explicit keys after `<<` win.
    assert_eq!(json["after"], json!({"a": 1, "b": 9}));
    // go-yaml v2 processes `<<` in place: a key written before it is overwritten.
    assert_eq!(json["before"], json!({"b": 1, "a": 1}));
    // In a list, earlier mappings take precedence.
    assert_eq!(json["list"], json!({"b": 1, "c": 2, "a": 1}));
    assert_eq!(json["inline"], json!({"z": 1, "w": 2}));
    assert_eq!(json["quoted"], json!({"<<": 1}));
    assert!(stream.documents[0].warnings.is_empty(), "{:?}", stream.documents[0].warnings);
    // Merged entries keep the spans of their definition.
    let merged = stream.documents[0].root.pointer("/after/a").unwrap();
    assert_eq!(at(text, &merged.span), "1");
    assert_eq!(merged.span.start, text.find("a: 1").unwrap() + 3);

    for bad in ["a:\n  <<: 1\n", "a:\n  <<: [{x: 1}, 2]\n", "a:\n  <<:\n"] {
        let err = parse_stream(bad).error.unwrap();
        assert_eq!(err.kind, ErrorKind::Merge, "{bad:?}");
    }
}

#[test]
fn duplicate_keys_warn_and_last_wins() {
    let text = "a: 1\nb: 2\na: 3\nnested:\n  k: u\n  k: v\n";
    let doc = &parse_stream(text).documents[0];
    assert_eq!(doc.root.to_json(), json!({"a": 3, "b": 2, "nested": {"k": "v"}}));
    let a = doc.root.entry("a").unwrap();
    assert_eq!(a.0.span, 10..11);
    assert_eq!(
        doc.warnings,
        vec![
            Warning::DuplicateKey { key: "k".into(), first: 25..26, duplicate: 32..33 },
            Warning::DuplicateKey { key: "a".into(), first: 0..1, duplicate: 10..11 },
        ]
    );
    assert!(doc.warnings[0].message().contains("duplicate key `k`"));
}

#[test]
fn depth_limit() {
    let deep = "[".repeat(300) + &"]".repeat(300);
    let err = parse_stream(&deep).error.unwrap();
    // saphyr's own recursion guard may fire first; either way it is a depth error.
    assert_eq!(err.kind, ErrorKind::DepthLimit);
    assert!(err.offset <= 256, "{err:?}");
    let ok = "[".repeat(200) + &"]".repeat(200);
    assert_eq!(parse_stream(&ok).error, None);
    let limits = Limits { max_depth: 3, ..Limits::default() };
    let err = parse_stream_with("a:\n  b:\n    c:\n      d: 1\n", &limits).error.unwrap();
    assert_eq!((err.kind, err.line), (ErrorKind::DepthLimit, 4));
    // Depth after alias expansion counts too.
    let err = parse_stream_with("a: &a [[1]]\nb: [*a]\n", &limits).error.unwrap();
    assert_eq!((err.kind, err.line), (ErrorKind::DepthLimit, 2));
}

#[test]
fn billion_laughs_is_stopped() {
    let mut text = String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        let refs = vec![format!("*{}", w[0]); 9].join(",");
        text.push_str(&format!("{}: &{} [{refs}]\n", w[1], w[1]));
    }
    let start = std::time::Instant::now();
    let stream = parse_stream(&text);
    let err = stream.error.unwrap();
    assert_eq!(err.kind, ErrorKind::AliasLimit);
    assert!(start.elapsed().as_secs() < 5);
    // Moderate reuse is fine.
    let ok = "a: &a [1, 2, 3]\nb: [*a, *a, *a]\n";
    assert_eq!(parse_stream(ok).error, None);
}

#[test]
fn size_limit() {
    let limits = Limits { max_bytes: 10, ..Limits::default() };
    let err = parse_stream_with("a: 1\nb: 2\nc: 3\n", &limits).error.unwrap();
    assert_eq!(err.kind, ErrorKind::SizeLimit);
    assert!(parse_stream_with("a: 1\n", &limits).error.is_none());
}

/// The parsed form is bounded by nodes, not bytes: a flow sequence of two bytes
/// per item, a block sequence (the line-based fast path) and alias copies all count, and the
/// error is at the node that crossed the limit.
#[test]
fn node_limit() {
    let limits = Limits { max_nodes: 100, ..Limits::default() };
    // A flow sequence: at most max_nodes / 2 flow entries, so the scanner never queues more.
    let flow = format!("a: [{}]\n", vec!["0"; 80].join(",\n  "));
    let err = parse_stream_with(&flow, &limits).error.unwrap();
    assert_eq!((err.kind, err.line), (ErrorKind::NodeLimit, 50));
    assert!(err.message.contains("more than 50 flow entries"), "{}", err.message);
    // Nodes are counted too: a block sequence (read by the general loader once it may cross).
    let block = format!("a:\n{}", "- 0\n".repeat(200));
    let err = parse_stream_with(&block, &limits).error.unwrap();
    assert_eq!(err.kind, ErrorKind::NodeLimit);
    assert!(err.line > 90 && err.line < 110, "{err:?}");
    let aliases = format!("a: &a [{}]\nb: [*a, *a, *a]\n", vec!["0"; 40].join(","));
    assert_eq!(parse_stream_with(&aliases, &limits).error.unwrap().kind, ErrorKind::NodeLimit);
    // Under the limit, both loaders answer as before.
    let small = format!("a:\n{}", "- 0\n".repeat(40));
    assert_eq!(parse_stream_with(&small, &limits), parse_stream(&small));
    assert!(parse_stream_with(&small, &limits).error.is_none());
}

#[test]
fn nan_and_inf_warn() {
    let doc = &parse_stream("a: .nan\nb: -.inf\n").documents[0];
    assert_eq!(doc.warnings.len(), 2);
    assert!(matches!(doc.warnings[0], Warning::NonFiniteFloat { .. }));
    assert_eq!(doc.root.to_json(), json!({"a": null, "b": null}));
}

/// go-yaml reads a quoted scalar's continuation lines at any column (only a document marker at
/// column 0 ends it with an error); the shape of upbound's XRD descriptions.
#[test]
fn quoted_continuation_lines_at_the_key_column() {
    let text = "spec:\n  versions:\n  - name: v1\n    description: \"The network to\n    use, with é\n\n    more\"\n    other: 'one\n  two'\n    last: 1\n";
    let stream = parse_stream(text);
    assert_eq!(stream.error, None);
    let root = &stream.documents[0].root;
    assert_eq!(
        root.to_json(),
        json!({"spec": {"versions": [{"name": "v1", "description": "The network to use, with é\nmore", "other": "one two", "last": 1}]}})
    );
    // Spans are offsets of the original text.
    let item = root.pointer("/spec/versions/0").unwrap();
    let description = item.get("description").unwrap();
    assert_eq!(at(text, &description.span), "\"The network to\n    use, with é\n\n    more\"");
    let (last_key, last) = item.entry("last").unwrap();
    assert_eq!((at(text, &last_key.span), at(text, &last.span)), ("last", "1"));
    assert_eq!(LineIndex::new(text).line_column(text, last_key.span.start).line, 10);
    assert_eq!(stream.documents[0].range, 0..text.len() - 1);
    // The fast path agrees with the general loader.
    assert_eq!(parse_stream_general(text, &Limits::default()), stream);
    if let Some(values) = driftlint_yaml::parse_simple(text) {
        assert_eq!(values, vec![root.to_json()]);
    }
    // A later error keeps its place in the original text.
    let broken = "a: \"x\ny\"\nb: [\n";
    let e = parse_stream(broken).error.unwrap();
    assert_eq!((e.line, e.offset <= broken.len()), (4, true), "{e:?}");
    // What go-yaml refuses stays refused: a document marker inside, an unclosed scalar.
    for bad in ["a: \"x\n--- \ny\"\n", "a: \"x\n  y\n"] {
        assert!(parse_stream(bad).error.is_some(), "{bad:?}");
    }
}
