//! The Rego front end as `check --policy` runs it: our scan (nesting depth, v0 keywords),
//! rewrite (comprehension locals) and compile-time checks, then regorus' parser and compiler
//! — for any module text, in both Rego versions: compiled or a `PolicyError`, never a panic.
#![no_main]

use driftlint_policy::engine::{Options, RegoVersion};
use driftlint_policy::{Module, Policies};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for version in [RegoVersion::V1, RegoVersion::V0] {
        let module = Module { path: "policy/fuzz.rego".into(), text: text.to_string() };
        if let Err(e) = Policies::compile(vec![module], None, &Options::default(), version) {
            let _ = e.to_string();
        }
    }
});
