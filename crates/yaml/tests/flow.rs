//! Flow collections read as go-yaml v2 (Kubernetes) reads them where YAML 1.2 reads them
//! otherwise, with every span on the original text. Minimal reproductions of istio manifests
//! (`manifests/charts/gateways/*/templates/deployment.yaml`'s `args: [` … `]` and a
//! Service's `externalIPs` with an IPv6 address).

use driftlint_yaml::{NodeValue, ScalarStyle, parse_stream};
use serde_json::json;

fn at<'a>(text: &'a str, span: &std::ops::Range<usize>) -> &'a str {
    &text[span.clone()]
}

#[test]
fn a_flow_sequence_closed_at_its_keys_column() {
    let text = "spec:\n  args: [\n    \"-a\", \"b\",\n  ]\n  other: 1\nlast: [\n  x,\n]\n";
    let stream = parse_stream(text);
    assert_eq!(stream.error, None);
    let root = &stream.documents[0].root;
    assert_eq!(root.to_json(), json!({"spec": {"args": ["-a", "b"], "other": 1}, "last": ["x"]}));
    let args = root.pointer("/spec/args").unwrap();
    assert_eq!(at(text, &args.span), "[\n    \"-a\", \"b\",\n  ]");
    assert!(at(text, &root.pointer("/spec/args/0").unwrap().span).starts_with("\"-a\""));
    assert!(at(text, &root.pointer("/spec/args/1").unwrap().span).starts_with("\"b\""));
    let (key, value) = root.pointer_entry("/spec/other").unwrap();
    assert_eq!((at(text, &key.unwrap().span), at(text, &value.span)), ("other", "1"));
    let last = root.pointer("/last").unwrap();
    assert_eq!(at(text, &last.span), "[\n  x,\n]");
    assert_eq!(at(text, &root.pointer("/last/0").unwrap().span), "x");
    assert_eq!(stream.documents[0].range, 0..text.len() - 1);
}

#[test]
fn a_flow_sequence_inside_a_block_sequence_closed_below_its_dash() {
    let text = "k:\n  - [\n    a,\n]\n  - b\n";
    let stream = parse_stream(text);
    assert_eq!(stream.error, None);
    let root = &stream.documents[0].root;
    assert_eq!(root.to_json(), json!({"k": [["a"], "b"]}));
    assert_eq!(at(text, &root.pointer("/k/0").unwrap().span), "[\n    a,\n]");
    assert_eq!(at(text, &root.pointer("/k/1").unwrap().span), "b");
}

#[test]
fn colons_inside_a_plain_scalar_in_a_flow_sequence() {
    let text = "spec:\n  externalIPs: [1.2.3.4, 001:db8::, \"x\"]\n  ports: {a:: 1, b: c:}\n";
    let stream = parse_stream(text);
    assert_eq!(stream.error, None);
    let root = &stream.documents[0].root;
    assert_eq!(
        root.to_json(),
        json!({"spec": {"externalIPs": ["1.2.3.4", "001:db8::", "x"], "ports": {"a:": 1, "b": "c:"}}})
    );
    let ip = root.pointer("/spec/externalIPs/1").unwrap();
    assert_eq!(at(text, &ip.span), "001:db8::");
    assert_eq!(ip.style, Some(ScalarStyle::Plain));
    assert_eq!(ip.value, NodeValue::String("001:db8::".into()));
    let (key, _) = root.pointer_entry("/spec/ports/a:").unwrap();
    assert_eq!(at(text, &key.unwrap().span), "a:");
    assert_eq!(at(text, &root.pointer("/spec/ports/b").unwrap().span), "c:");
}

#[test]
fn what_go_yaml_refuses_in_flow_context_is_refused() {
    for (text, at) in [("a: [x?y]\n", 4), ("a: [::1]\n", 4), ("a: {b: |c}\n", 7), ("a: [?]\n", 4), ("a: \"\\/\"\n", 3)]
    {
        let stream = parse_stream(text);
        let error = stream.error.unwrap_or_else(|| panic!("{text:?} was read"));
        assert_eq!(error.offset, at, "{text:?}: {error:?}");
    }
}

#[test]
fn a_leading_question_mark_is_a_key_indicator() {
    let text = "a: [?b, x, ?c: d]\n";
    let stream = parse_stream(text);
    assert_eq!(stream.error, None);
    let root = &stream.documents[0].root;
    assert_eq!(root.to_json(), json!({"a": [{"b": null}, "x", {"c": "d"}]}));
    assert_eq!(at(text, &root.pointer("/a/1").unwrap().span), "x");
    let (key, value) = root.pointer("/a/2").unwrap().pointer_entry("/c").unwrap();
    assert_eq!((at(text, &key.unwrap().span), at(text, &value.span)), ("c", "d"));
}

#[test]
fn a_tab_after_a_colon_separates() {
    let stream = parse_stream("a:\t1\nb:\n  c:\t\"x\"\n");
    assert_eq!(stream.error, None);
    assert_eq!(stream.documents[0].root.to_json(), json!({"a": 1, "b": {"c": "x"}}));
}

#[test]
fn a_tab_right_after_a_dash_or_an_explicit_values_colon_is_refused() {
    for (text, at) in [("-\ta\n", 2), ("k:\n  - \tb: 1\n", 8), ("? a\n:\tb\n", 6)] {
        let stream = parse_stream(text);
        let error = stream.error.unwrap_or_else(|| panic!("{text:?} was read"));
        assert_eq!(error.offset, at, "{text:?}: {error:?}");
    }
    let stream = parse_stream("- &x\ta\n- a # \tb\n");
    assert_eq!(stream.error, None);
    assert_eq!(stream.documents[0].root.to_json(), json!(["a", "a"]));
}
