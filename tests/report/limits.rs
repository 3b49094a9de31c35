//! GitHub's limits (SARIF results and size, annotations per level, step-summary size) and the
//! escaping of workflow commands.

use driftlint::report::{self, Format, Limits, SourceResolver, escape_data, escape_property, render};
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::input::SourcePath;

use super::limits_opts;

fn many(n: usize, severity: Severity) -> Vec<Diagnostic> {
    (0..n)
        .map(|i| {
            Diagnostic::new(
                Rule::ValueDrift,
                severity,
                SourcePath::File(format!("m/{i:03}.yaml").into()),
                None,
                format!("drift {i}"),
            )
        })
        .collect()
}

#[test]
fn workflow_command_escaping() {
    assert_eq!(escape_data("100% done\r\nnext: a,b"), "100%25 done%0D%0Anext: a,b");
    assert_eq!(escape_property("a: b, 5%\n"), "a%3A b%2C 5%25%0A");
    let d = Diagnostic::error(Rule::IoError, SourcePath::File("dir/a:b,c%.yaml".into()), None, "bad\nnews: 50%");
    let out = render(Format::Github, &[d], &SourceResolver::new(), &limits_opts(Limits::default())).unwrap();
    assert_eq!(out, "::error file=dir/a%3Ab%2Cc%25.yaml,title=driftlint(io-error)::bad%0Anews: 50%25\n");
}

#[test]
fn github_annotations_fit_ten_per_level() {
    let mut diags = many(12, Severity::Error);
    diags.extend(many(3, Severity::Warning));
    diags.extend(many(11, Severity::Note));
    let out = render(Format::Github, &diags, &SourceResolver::new(), &limits_opts(Limits::default())).unwrap();
    let count = |prefix: &str| out.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(count("::error "), 10);
    assert_eq!(count("::warning "), 3);
    // Nine notices plus the closing one that counts the rest: 2 errors + 2 notes.
    assert_eq!(count("::notice "), 10);
    assert!(out.ends_with("::notice title=driftlint::4 more findings not shown as annotations (GitHub shows 10 per level); see the job log or the SARIF report\n"), "{out}");
    // The first (most important) errors are the ones shown.
    assert!(
        out.contains("m/000.yaml")
            && !out.contains("file=m/011.yaml,title=driftlint(value-drift)::drift 11\n::warning")
    );
}

#[test]
fn github_closing_notice_makes_room() {
    let mut diags = many(11, Severity::Error);
    diags.extend(many(10, Severity::Note));
    let out = render(Format::Github, &diags, &SourceResolver::new(), &limits_opts(Limits::default())).unwrap();
    assert_eq!(out.lines().filter(|l| l.starts_with("::notice ")).count(), 10);
    assert!(out.ends_with("::2 more findings not shown as annotations (GitHub shows 10 per level); see the job log or the SARIF report\n"), "{out}");
}

#[test]
fn sarif_truncates_by_count_with_a_note() {
    let mut diags = many(10, Severity::Warning);
    diags.extend(many(3, Severity::Error));
    let limits = Limits { sarif_results: 5, ..Limits::default() };
    let out = render(Format::Sarif, &diags, &SourceResolver::new(), &limits_opts(limits)).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = doc["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    let levels: Vec<&str> = results.iter().map(|r| r["level"].as_str().unwrap()).collect();
    assert_eq!(levels.iter().filter(|l| **l == "error").count(), 3, "errors are kept first: {levels:?}");
    let note = results.last().unwrap();
    assert_eq!(note["level"], "note");
    assert!(note["message"]["text"].as_str().unwrap().contains("9 more results"), "{note}");
}

#[test]
fn sarif_truncates_by_size() {
    // The rules table (every rule's documentation) is a fixed part of the size: the limit is
    // that plus room for some results.
    let diags = many(200, Severity::Error);
    let fixed = render(Format::Sarif, &[], &SourceResolver::new(), &limits_opts(Limits::default())).unwrap().len();
    let limit = fixed + 20_000;
    let limits = Limits { sarif_bytes: limit, ..Limits::default() };
    let out = render(Format::Sarif, &diags, &SourceResolver::new(), &limits_opts(limits)).unwrap();
    assert!(out.len() <= limit, "{} bytes", out.len());
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = doc["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() > 1 && results.len() < 200);
    assert!(results.last().unwrap()["message"]["text"].as_str().unwrap().contains("more results"));
}

#[test]
fn markdown_truncates_rows_with_a_note() {
    let diags = many(500, Severity::Error);
    let limits = Limits { markdown_bytes: 8 * 1024, ..Limits::default() };
    let out = render(Format::Markdown, &diags, &SourceResolver::new(), &limits_opts(limits)).unwrap();
    assert!(out.len() <= 8 * 1024, "{} bytes", out.len());
    let rows = out.lines().filter(|l| l.starts_with("| error ")).count();
    assert!(rows > 10 && rows < 500, "{rows} rows");
    assert!(out.contains(&format!("_{} more findings left out", 500 - rows)), "{out}");
}

#[test]
fn markdown_user_template() {
    let diags = many(2, Severity::Warning);
    let opts = report::Options {
        markdown_template: Some("{{ summary.line }}: {% for d in diagnostics %}{{ d.location }} {% endfor %}"),
        ..limits_opts(Limits::default())
    };
    let out = render(Format::Markdown, &diags, &SourceResolver::new(), &opts).unwrap();
    // Strings printed without `cell`/`code` are escaped for Markdown all the same (issue 22,
    // H10): a user's template cannot pass a file name's links or HTML through.
    assert_eq!(out, "found 2 warnings: m/000\\.yaml m/001\\.yaml ");
    let bad = report::Options { markdown_template: Some("{% for %}"), ..limits_opts(Limits::default()) };
    let err = render(Format::Markdown, &diags, &SourceResolver::new(), &bad).unwrap_err();
    assert!(matches!(err, report::Error::Template(_)), "{err}");
}

#[test]
#[allow(clippy::reversed_empty_ranges)] // a reversed range is one of the cases
fn no_panic_on_ranges_outside_the_text() {
    let mut resolver = SourceResolver::new();
    resolver.insert(SourcePath::Stdin, "a: é\n");
    let diags = vec![
        Diagnostic::error(Rule::ValueDrift, SourcePath::Stdin, Some(4..5), "inside a character"),
        Diagnostic::error(Rule::ValueDrift, SourcePath::Stdin, Some(50..2), "reversed and past the end"),
        Diagnostic::error(Rule::ValueDrift, SourcePath::File("unknown.yaml".into()), Some(3..9), "unknown text"),
    ];
    for format in Format::ALL {
        render(format, &diags, &resolver, &limits_opts(Limits::default())).unwrap();
    }
}
