//! Errors say what is wrong, where: characters YAML does not allow, and aliases that cannot
//! resolve.

use driftlint_yaml::{ErrorKind, parse_stream};

fn error(text: &str) -> (String, usize, usize) {
    let e = parse_stream(text).error.unwrap_or_else(|| panic!("{text:?} parsed"));
    (e.message, e.line, e.column)
}

#[test]
fn characters_yaml_does_not_allow_are_named_at_their_place() {
    let (message, line, column) = error("apiVersion: v1\nkind: Config\0Map\n");
    assert_eq!(message, "invalid character NUL: YAML allows only printable characters, tab and line breaks");
    assert_eq!((line, column), (2, 13));
    let (message, line, column) = error("a: 1\nb: x\u{1b}[2Ky\n");
    assert!(message.starts_with("invalid character U+001B"), "{message}");
    assert_eq!((line, column), (2, 5));
    // The documents before it are kept.
    let stream = parse_stream("a: 1\n---\nb: \0\n");
    assert_eq!(stream.documents.len(), 1);
    // Printable text is untouched, and a real syntax error keeps its own message.
    let printable = parse_stream("a: ü € x\tz\n");
    assert!(printable.error.is_none(), "{:?}", printable.error);
    let (message, _, _) = error("a: [\n");
    assert!(!message.contains("invalid character"), "{message}");
}

#[test]
fn aliases_that_cannot_resolve_say_why() {
    let (message, line, _) = error("a: &x 1\n---\nb: *x\n");
    assert_eq!(message, "unknown anchor 'x' referenced (anchors do not reach across documents)");
    assert_eq!(line, 3);
    let e = parse_stream("a: &x [1, *x]\n").error.unwrap();
    assert_eq!(e.kind, ErrorKind::RecursiveAlias);
    assert_eq!(e.message, "alias refers to a node that contains it");
}
