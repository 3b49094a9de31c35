//! Differential: the fast loader (`parse_simple`) against the full loader. Whenever the fast
//! loader answers, the full loader must read the same text without error or warning into as
//! many documents with exactly the same JSON values (key order and number forms included);
//! `parse_simple_documents(text, n)` must agree with the first `n` of them, and
//! `parse_simple_ends` must give each document's end where the full loader's range ends.
//!
//! And the spanned fast path (`parse_stream_plain`, used inside `parse_stream`) against the
//! general loader alone (`parse_stream_general`): whenever it answers, the same `Stream`
//! (documents, ranges, spans, styles, raw texts, warnings; NaN compared by its `Debug` text).
//!
//! And the piece-wise load (`document_pieces`, `join_pieces`): whenever the pieces are
//! joined, the `Stream` of loading the whole text.
#![no_main]

use driftlint_yaml::{
    Limits, NodeValue, document_pieces, join_pieces, parse_simple, parse_simple_documents, parse_simple_ends, scan_simple_ends,
    parse_stream, parse_stream_general, parse_stream_plain,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let full = || {
        let stream = parse_stream(text);
        assert!(stream.error.is_none(), "fast loader answered, full loader failed: {:?}", stream.error);
        for doc in &stream.documents {
            assert!(doc.warnings.is_empty(), "fast loader answered, full loader warned: {:?}", doc.warnings);
        }
        stream.documents.iter().map(|d| d.root.to_json()).collect::<Vec<Value>>()
    };
    let limits = Limits::default();
    if let Some(fast) = parse_stream_plain(text, &limits) {
        let general = parse_stream_general(text, &limits);
        if fast != general {
            assert_eq!(format!("{fast:?}"), format!("{general:?}"), "spanned fast path differs");
        }
    }
    let pieces = document_pieces(text);
    if pieces.len() > 1 {
        let streams = pieces.iter().map(|r| parse_stream(&text[r.clone()])).collect();
        if let Some(joined) = join_pieces(&pieces, streams) {
            let whole = parse_stream(text);
            if joined != whole {
                assert_eq!(format!("{joined:?}"), format!("{whole:?}"), "joined pieces differ from the whole load");
            }
        }
    }
    if let Some(fast) = parse_simple(text) {
        let full = full();
        // Compare as text too: `Value`'s equality ignores map order and 1 vs 1.0.
        assert_eq!(serde_json::to_string(&fast).unwrap(), serde_json::to_string(&full).unwrap());
        assert_eq!(fast, full);
    }
    let shapes = scan_simple_ends(text);
    assert_eq!(shapes.is_some(), parse_simple_ends(text).is_some(), "scan and values disagree");
    if let Some(ends) = parse_simple_ends(text) {
        let stream = parse_stream(text);
        let shapes = shapes.unwrap_or_default();
        assert_eq!(shapes.len(), ends.len(), "scanned documents");
        for (((_, end), doc), (shape, scanned)) in ends.iter().zip(&stream.documents).zip(shapes) {
            assert_eq!(shape.values(), doc.root.tree_size(), "values of a document");
            assert_eq!(scanned, *end, "scanned end");
        }
        assert_eq!(ends.len(), stream.documents.len(), "documents");
        for ((value, end), doc) in ends.iter().zip(&stream.documents) {
            assert_eq!(serde_json::to_string(value).unwrap(), serde_json::to_string(&doc.root.to_json()).unwrap());
            match end {
                Some(end) => assert_eq!(*end, doc.range.end, "document end"),
                None => assert!(matches!(doc.root.value, NodeValue::Null), "a document without content"),
            }
        }
    }
    if let Some(first) = parse_simple_documents(text, 1) {
        let stream = parse_stream(text);
        let full_first: Vec<Value> = stream.documents.iter().take(1).map(|d| d.root.to_json()).collect();
        assert_eq!(serde_json::to_string(&first).unwrap(), serde_json::to_string(&full_first).unwrap());
        if let Some(d) = stream.documents.first() {
            assert!(d.warnings.is_empty(), "first document warned: {:?}", d.warnings);
        }
    }
});
