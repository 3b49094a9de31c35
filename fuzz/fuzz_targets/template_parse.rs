//! The template lexer and parser: any UTF-8 text, as the main template or as a function file,
//! must parse or fail with a located error, never panic or overflow the stack.
#![no_main]

use driftlint_gotmpl::TemplateSet;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = TemplateSet::parse("main.yaml", text, &[] as &[(&str, &str)]) {
        assert!(e.line >= 1, "{e}");
        let _ = e.to_string();
    }
    let _ = TemplateSet::parse("main.yaml", "{{ template \"x\" . }}", &[("defines-1.tmpl", text)]);
});
