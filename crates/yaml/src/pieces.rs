//! A multi-document stream cut into pieces that can be loaded independently (on several
//! threads, by the caller) and joined back into the [`Stream`] one load of the whole text
//! gives.
//!
//! The text is cut before every line that starts with a document start marker (`---`
//! followed by a blank or the end of the line). YAML ends a collection's scalars at such a
//! line and refuses it inside quoted scalars and flow collections, so each piece holds whole
//! documents; anything unusual (a directive before a marker, a scalar or collection left open)
//! shows up as an error or a warning in some piece, and then [`join_pieces`] declines and the
//! caller loads the whole text instead. A scalar at a document's root is the exception (the
//! loader reads a root block scalar on past a `---` line, as `yaml_differential` found):
//! [`join_pieces`] declines a piece that ends with one. Joining only shifts byte ranges: the documents, their
//! order and their values are those of the whole load.

use std::ops::Range;

use crate::node::{Node, NodeValue};
use crate::stream::{Document, Stream};

/// The byte ranges of the pieces of `text`, in order, covering it (one piece when it has no
/// document start marker after its first line).
#[must_use]
pub fn document_pieces(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut cuts = vec![0];
    // A marker starts a line after the first: it follows a line feed.
    for at in memchr::memmem::find_iter(bytes, b"\n---").map(|i| i + 1) {
        if matches!(bytes.get(at + 3), None | Some(b' ' | b'\t' | b'\r' | b'\n')) {
            cuts.push(at);
        }
    }
    cuts.push(text.len());
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// The stream of the whole text from the streams of its `pieces` (as [`document_pieces`]
/// gives them, loaded in the same order), or `None` when a piece had an error or a document a
/// warning: then only a load of the whole text tells what it holds.
#[must_use]
pub fn join_pieces(pieces: &[Range<usize>], streams: Vec<Stream>) -> Option<Stream> {
    if pieces.len() != streams.len()
        || streams.iter().any(|s| s.error.is_some() || s.documents.iter().any(|d| !d.warnings.is_empty()))
    {
        return None;
    }
    // A document whose root is a scalar may go on past the next `---` line when loaded whole
    // (a block scalar at the root has its content at column 0, and the loader keeps reading
    // it); manifests have mappings at their roots, so such a stream is simply loaded whole.
    if streams[..streams.len().saturating_sub(1)].iter().any(|s| s.documents.last().is_some_and(ends_open)) {
        return None;
    }
    let mut documents = Vec::with_capacity(streams.iter().map(|s| s.documents.len()).sum());
    for (i, (piece, stream)) in pieces.iter().zip(streams).enumerate() {
        let count = stream.documents.len();
        for (j, mut doc) in stream.documents.into_iter().enumerate() {
            shift_document(&mut doc, piece.start);
            // An empty document ends where the next one starts: loaded whole, its null node
            // is the next document's `---`; in its own piece it is an empty range at the end.
            if j + 1 == count
                && let Some(next) = pieces.get(i + 1)
                && matches!(doc.root.value, NodeValue::Null)
                && doc.root.span.is_empty()
            {
                let marker = next.start..next.start + 3;
                doc.range.end = marker.end;
                doc.root.span = marker;
            }
            documents.push(doc);
        }
    }
    Some(Stream { documents, error: None })
}

/// Whether `text` holds a backslash, which in a double-quoted scalar may spell any character:
/// a text without one holds each key and value in its plain spelling, so a search for that
/// spelling finds it. For callers that pick, before loading, the texts (or pieces of a large
/// one: every piece of a stream is tested) that may hold something; `memchr`'s vector search.
#[must_use]
pub fn may_escape(text: &str) -> bool {
    memchr::memchr(b'\\', text.as_bytes()).is_some()
}

/// Whether a piece ending with `doc` may not be joined: its root is a scalar, which a load of
/// the whole text can read on past the next `---` line (see the [module documentation](self)).
/// Callers that load pieces their own way apply the same rule.
#[must_use]
pub fn ends_open(doc: &Document) -> bool {
    !matches!(doc.root.value, NodeValue::Null | NodeValue::Sequence(_) | NodeValue::Mapping(_))
}

fn shift_document(doc: &mut Document, by: usize) {
    doc.range = shift(&doc.range, by);
    shift_node(&mut doc.root, by);
}

fn shift(r: &Range<usize>, by: usize) -> Range<usize> {
    r.start + by..r.end + by
}

fn shift_node(node: &mut Node, by: usize) {
    node.span = shift(&node.span, by);
    if let Some(alias) = node.alias_mut() {
        *alias = shift(alias, by);
    }
    match &mut node.value {
        NodeValue::Sequence(items) => items.iter_mut().for_each(|n| shift_node(n, by)),
        NodeValue::Mapping(entries) => entries.iter_mut().for_each(|(k, v)| {
            shift_node(k, by);
            shift_node(v, by);
        }),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_stream;

    #[test]
    fn a_backslash_anywhere_may_escape() {
        assert!(may_escape("name: \"a\\u0041\"\n"));
        assert!(may_escape("\\"));
        assert!(!may_escape("kind: CustomResourceDefinition\nname: é\n"));
        assert!(!may_escape(""));
    }

    fn joined(text: &str) -> Option<Stream> {
        let pieces = document_pieces(text);
        let streams = pieces.iter().map(|r| parse_stream(&text[r.clone()])).collect();
        join_pieces(&pieces, streams)
    }

    #[test]
    fn cuts_at_document_markers_only() {
        let text = "a: 1\n---\nb: |\n  ---\n--- # c\nc: 2\n---x: 1\n---\n";
        let pieces: Vec<&str> = document_pieces(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(pieces, ["a: 1\n", "---\nb: |\n  ---\n", "--- # c\nc: 2\n---x: 1\n", "---\n"]);
        assert_eq!(document_pieces("---\na: 1\n"), vec![0..9]);
        assert_eq!(document_pieces(""), vec![0..0]);
    }

    /// On generated texts, the cuts are the line starts (after the first) that begin with
    /// `---` and a blank, a line end or the text's end.
    #[test]
    fn cuts_are_the_marker_lines() {
        let mut next = crate::test_rng::numbers(7);
        let parts = ["---", "-", "\n", "\r\n", " ", "\t", "a", "--- x", "----", "\n---"];
        for _ in 0..2_000 {
            let text: String = (0..next() % 30).map(|_| parts[next() % parts.len()]).collect();
            let mut starts = vec![0];
            starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
            let mut expected: Vec<usize> = starts
                .into_iter()
                .filter(|&l| l > 0 && text[l..].starts_with("---"))
                .filter(|&l| matches!(text.as_bytes().get(l + 3), None | Some(b' ' | b'\t' | b'\r' | b'\n')))
                .collect();
            expected.insert(0, 0);
            expected.push(text.len());
            let cuts: Vec<usize> = expected.windows(2).map(|w| w[0]).collect();
            let pieces = document_pieces(&text);
            assert_eq!(pieces.iter().map(|r| r.start).collect::<Vec<_>>(), cuts, "{text:?}");
            assert_eq!(pieces.last().map(|r| r.end), Some(text.len()));
        }
    }

    #[test]
    fn joined_pieces_are_the_whole_load() {
        let texts = [
            "a: 1\n",
            "# lead\n---\nkind: A\nmetadata: {name: a, labels: [x, y]}\n---\n---\n# between\nkind: B\nb: &x [1, 2]\nc: *x\n",
            "kind: A\n...\n---\nkind: B\ntext: |\n  line\n\n  ---x\n",
            "- 1\n- 2\n---\n\"q\": 'single'\n---\n? complex\n: key\n",
        ];
        for text in texts {
            let whole = parse_stream(text);
            assert!(whole.error.is_none(), "{text:?}");
            assert_eq!(joined(text), Some(whole), "{text:?}");
        }
    }

    #[test]
    fn pieces_with_errors_or_warnings_are_declined() {
        for text in [
            // An error in a later piece: the whole load keeps the documents before it.
            "kind: A\n---\nkind: [\n---\nkind: C\n",
            // A double-quoted scalar left open across a marker.
            "a: \"x\n---\nb: 1\"\n",
            // A directive before the marker belongs to the next document.
            "a: 1\n%YAML 1.1\n---\nb: 2\n",
            // A folded scalar at a document's root: loaded whole, it goes on past `---`.
            "---\n >\na\n---\nb\n",
            // A duplicate key (a warning).
            "a: 1\n---\nb: 1\nb: 2\n",
        ] {
            assert_eq!(joined(text), None, "{text:?}");
        }
    }
}
