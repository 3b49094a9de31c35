//! The schema and Composition passes over any YAML stream: CRDs, XRDs, Compositions and
//! instances in one text (as a pull request can put them among the checked files). The
//! definitions are loaded (`$ref`s resolved, patterns translated and compiled, within the
//! schema budgets), every document is validated and every Composition checked: never a panic,
//! and every finding lies inside the text.
#![no_main]

use driftlint_core::document::{self, Options};
use driftlint_core::input::{Source, SourcePath};
use driftlint_schema::{Mode, Registry, Trust};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = SourcePath::File("repo/defs.yaml".into());
    let coll = document::collect(vec![Source { path: path.clone(), text: text.to_string() }], &Options::default());
    let mut registry = Registry::default();
    let mut found = Vec::new();
    // The first half of the documents as trusted schemas, the rest as checked files.
    let half = coll.documents.len() / 2;
    for (i, doc) in coll.documents.iter().enumerate() {
        let trust = if i < half { Trust::Trusted } else { Trust::Checked };
        registry.add_document(&path, &doc.node, trust, &mut found);
    }
    for mode in [Mode::Loose, Mode::Strict] {
        found.extend(driftlint_schema::pass::run(&coll, &registry, mode));
        found.extend(driftlint_crossplane::run(&coll, &registry, mode));
    }
    for d in found {
        if let Some(range) = &d.primary.range {
            assert!(range.start <= range.end && range.end <= text.len(), "{range:?} outside the text: {}", d.message);
        }
    }
});
