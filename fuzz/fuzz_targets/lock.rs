//! `driftlint.lock`, which a pull request can edit: any text parses or fails with an error,
//! never panics; a parsed lock written back parses to the same lock.
#![no_main]

use std::path::Path;

use driftlint_reference::lock;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(file) = lock::parse_lock(Path::new("repo/driftlint.lock"), text.to_string()) {
        let written = lock::to_text(&file.lock);
        let again = lock::parse_lock(Path::new("repo/driftlint.lock"), written.clone())
            .unwrap_or_else(|e| panic!("written lock does not parse: {e}\n{written}"));
        assert_eq!(format!("{:?}", again.lock), format!("{:?}", file.lock), "{written}");
    }
});
