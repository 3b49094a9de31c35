//! What a repository's text can do to the outputs a CI runner and a reviewer read: any file
//! name, message, help text and object name goes through the Markdown summary, the GitHub
//! annotations and the human report. Never a panic; no line a runner reads as a workflow
//! command but driftlint's own; no control character in a terminal; no link, image or HTML tag
//! in the summary but the template's own.
#![no_main]

use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::input::{Source, SourcePath};
use driftlint::report::{self, Format, Options, SourceResolver};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The input's parts: file name | message | help | object (missing parts are empty).
    let mut parts = text.splitn(4, '|');
    let (name, message, help, object) =
        (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = SourcePath::File(format!("repo/{name}").into());
    let source = Source { path: path.clone(), text: format!("{message}\n{help}\n") };
    let mut d = Diagnostic::of(Rule::ValueDrift, path, Some(0..message.len().min(source.text.len())), message)
        .with_help(help.to_string());
    d.object = Some(object.to_string());
    let diags = vec![d];
    let sources = vec![source];
    let resolver = SourceResolver::from_sources(&sources);
    let opts = Options::default();

    let github = report::render(Format::Github, &diags, &resolver, &opts).unwrap();
    for line in github.lines() {
        assert!(
            !line.starts_with("::") || line.starts_with("::error ") || line.starts_with("::warning ") || line.starts_with("::notice "),
            "a workflow command of the input's: {line:?}"
        );
    }
    let human = report::render(Format::Human, &diags, &resolver, &opts).unwrap();
    assert!(!human.chars().any(|c| c.is_control() && c != '\n' && c != '\t'), "a control character in the terminal: {human:?}");
    let markdown = report::render(Format::Markdown, &diags, &resolver, &opts).unwrap();
    let mut rest = markdown.clone();
    for own in ["<br>", "<details>", "</details>", "<summary>", "</summary>", "<code>", "</code>"] {
        rest = rest.replace(own, "");
    }
    let bytes = rest.as_bytes();
    for (i, w) in bytes.windows(2).enumerate() {
        let escaped = i > 0 && bytes[i - 1] == b'\\';
        assert!(!(w[0] == b'<' && (w[1].is_ascii_alphabetic() || w[1] == b'/' || w[1] == b'!')), "an HTML tag: {markdown}");
        assert!(escaped || w != b"](", "a link: {markdown}");
        assert!(escaped || w != b"![", "an image: {markdown}");
    }
});
