//! Fuzz parsing plus execution: the input's first line is JSON data, the rest the template.
//! Whatever parses must execute to output or an error within tight limits, without panicking,
//! hanging or overflowing the stack.
//!
//! Run with `cargo +nightly fuzz run execute` from `crates/gotmpl`.
#![no_main]

use driftlint_gotmpl::{Limits, TemplateSet, Value};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (json, template) = text.split_once('\n').unwrap_or(("{}", text));
    let data = serde_json::from_str::<serde_json::Value>(json).map(|v| Value::from_json(&v)).unwrap_or(Value::Invalid);
    let Ok(set) = TemplateSet::parse("main.yaml", template, &[] as &[(&str, &str)]) else {
        return;
    };
    let limits = Limits {
        max_output: 1 << 16,
        max_depth: 200,
        fuel: 20_000,
        max_list_len: 10_000,
        max_string_len: 1 << 16,
    };
    match set.execute(&data, &limits, &[]) {
        Ok(r) => assert!(r.text.len() <= limits.max_output),
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
