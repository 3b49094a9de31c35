//! The RE2-to-Rust regex translation (references' inline `regex` diffs, CRD `pattern`s,
//! Sprig's regex functions): any pattern translates and compiles or fails with an error,
//! never panics; a compiled pattern runs on a few subjects.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(pattern) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(re) = driftlint_goregex::compile(pattern) {
        for subject in ["", "a", "abc-123", pattern, "\u{e9}\n\t"] {
            let _ = re.is_match(subject);
        }
    }
});
