//! Fuzz the YAML loader and writer: any UTF-8 text must load without panicking, and whatever
//! loads must convert to JSON, answer pointer look-ups and be written back without panicking.
#![no_main]

use driftlint_yaml::{LineIndex, parse_stream, to_yaml_string};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let stream = parse_stream(text);
    let index = LineIndex::new(text);
    if let Some(error) = &stream.error {
        assert!(error.offset <= text.len());
        assert!(error.line >= 1 && error.column >= 1);
    }
    for doc in &stream.documents {
        assert!(doc.range.start <= doc.range.end && doc.range.end <= text.len());
        assert!(text.is_char_boundary(doc.root.span.start) && text.is_char_boundary(doc.root.span.end));
        let _ = index.line_column(text, doc.root.span.start);
        let json = doc.root.to_json();
        let _ = doc.root.pointer("/metadata/name");
        let _ = doc.root.pointer("/0/a~1b/1");
        let written = to_yaml_string(&json);
        // The writer's output is YAML again (it may differ in value only where go-yaml v2's
        // own emitter does not round-trip, e.g. a `<<` key).
        let _ = parse_stream(&written);
    }
});
