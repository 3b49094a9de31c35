//! The template executor: the input's first line is JSON data, the rest the template.
//! Whatever parses must execute to output or an error within tight limits and a small run
//! budget (weighted steps, so key generation or a big `until` is refused, not run), without
//! panicking, hanging or overflowing the stack. Each input is executed twice under one budget,
//! as two renders of a run would be.
#![no_main]

use std::time::Duration;

use driftlint_gotmpl::{Budget, Limits, TemplateSet, Value};
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
        budget: Budget::new(2_000_000, Duration::from_secs(5)),
    };
    for _ in 0..2 {
        match set.execute(&data, &limits, &[]) {
            Ok(r) => assert!(r.text.len() <= limits.max_output),
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
});
