//! Crossplane field paths (`spec.forProvider.tags[key]`, `spec.x[0].y`): any text parses or
//! fails with an error, never panics, and what parses prints back to a path that parses to
//! the same segments.
#![no_main]

use driftlint_crossplane::fieldpath;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(path) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(segments) = fieldpath::parse(path) {
        let printed = fieldpath::to_string(&segments);
        let again = fieldpath::parse(&printed).unwrap_or_else(|e| panic!("{printed:?} (from {path:?}) does not parse: {e:?}"));
        assert_eq!(format!("{again:?}"), format!("{segments:?}"), "{path:?} → {printed:?}");
    }
});
