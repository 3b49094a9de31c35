//! The `.driftlint.yaml` decoder: any text must decode or fail with an error naming a line and
//! column inside the text, never panic. A repository's configuration is untrusted input.
#![no_main]

use std::path::Path;

use driftlint::config::ConfigError;
use driftlint::config::parse_config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_config(Path::new("repo/.driftlint.yaml"), text) {
        Ok(config) => {
            let _ = format!("{config:?}");
        }
        Err(ConfigError::Invalid { line, column, message, .. }) => {
            let lines = text.split('\n').count();
            assert!(line >= 1 && line <= lines, "line {line} of {lines}: {message}");
            assert!(column >= 1, "column {column}: {message}");
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
