//! JUnit XML for CI systems that chart test results (Jenkins, GitLab, Azure DevOps).
//!
//! The convention: every finding is reported exactly once, so the counts are exact.
//! - `<testsuite name="objects">`: one test case per compared object. It fails when an
//!   unsuppressed finding about it is at or above the run's fail level (its findings are the
//!   failure's text); it is skipped when every finding about it is suppressed; otherwise it
//!   passes, and findings below the fail level are in its `system-out`.
//! - `<testsuite name="files">`: one test case per finding that concerns no object (a YAML
//!   error, a missing resource, a problem of the reference), failing, skipped or passing by the
//!   same rule.
//!
//! Warnings are therefore failures only with `--fail-level warning` (or `note`), as they fail
//! the run only then.

use std::fmt::Write;

use super::{SourceResolver, sorted};
use driftlint_core::diagnostic::{Diagnostic, Severity};
use driftlint_core::escape;

/// Escapes text for XML content and attribute values. Control and bidirectional characters
/// other than tab and line breaks become visible escapes ([`escape::text`]): XML 1.0 cannot
/// hold most of them (a JUnit consumer rejects the whole file), and the rest would reach
/// whatever terminal or page shows the test results.
pub fn escape_xml(s: &str) -> String {
    // Line breaks stay (messages span lines), but no line may start a workflow command when the
    // file is printed in a CI log.
    let s = escape::lines(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if escape::is_unsafe(c) => out.push_str(&escape::text(c.encode_utf8(&mut [0; 4]))),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// `path:line:column` of a finding (or just the path).
fn position(d: &Diagnostic, sources: &SourceResolver) -> String {
    match sources.location(&d.primary) {
        Some(l) => format!("{}:{}:{}", d.primary.path.display(), l.line, l.column),
        None => d.primary.path.display(),
    }
}

fn details(d: &Diagnostic, sources: &SourceResolver) -> String {
    let mut text = format!("{}[{}] {}: {}", d.severity.as_str(), d.rule, position(d, sources), d.message);
    if let Some(object) = &d.object {
        let _ = write!(text, "\nobject: {object}");
    }
    if let Some(field) = &d.field {
        let _ = write!(text, "\nfield: {field}");
    }
    for help in &d.help {
        let _ = write!(text, "\nhelp: {help}");
    }
    text
}

/// What a test case amounts to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Pass,
    Skip,
    Fail,
}

/// The outcome of a test case holding `findings`, for a run failing at `fail_level`.
fn outcome(findings: &[&Diagnostic], fail_level: Severity) -> Outcome {
    if findings.iter().any(|d| d.suppressed.is_none() && d.severity >= fail_level) {
        Outcome::Fail
    } else if !findings.is_empty() && findings.iter().all(|d| d.suppressed.is_some()) {
        Outcome::Skip
    } else {
        Outcome::Pass
    }
}

/// One test case: its body by outcome, the findings as text.
fn testcase(
    out: &mut String,
    open: &str,
    findings: &[&Diagnostic],
    fail_level: Severity,
    sources: &SourceResolver,
) -> Outcome {
    let result = outcome(findings, fail_level);
    out.push_str(open);
    if findings.is_empty() {
        out.push_str(
            "/>
",
        );
        return result;
    }
    out.push_str(
        ">
",
    );
    let text = |ds: &mut dyn Iterator<Item = &&Diagnostic>| {
        ds.map(|d| match &d.suppressed {
            Some(reason) => format!("{}\nsuppressed: {reason}", details(d, sources)),
            None => details(d, sources),
        })
        .collect::<Vec<_>>()
        .join("\n")
    };
    match result {
        Outcome::Fail => {
            let failing: Vec<&&Diagnostic> =
                findings.iter().filter(|d| d.suppressed.is_none() && d.severity >= fail_level).collect();
            let message = match failing.as_slice() {
                [one] => one.message.clone(),
                many => format!("{} findings", many.len()),
            };
            let _ = writeln!(
                out,
                "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                escape_xml(&message),
                failing[0].rule,
                escape_xml(&text(&mut failing.iter().copied()))
            );
            let rest: Vec<&&Diagnostic> =
                findings.iter().filter(|d| !(d.suppressed.is_none() && d.severity >= fail_level)).collect();
            if !rest.is_empty() {
                let _ = writeln!(out, "      <system-out>{}</system-out>", escape_xml(&text(&mut rest.into_iter())));
            }
        }
        Outcome::Skip => {
            let reason = findings[0].suppressed.as_deref().unwrap_or_default();
            let _ = writeln!(out, "      <skipped message=\"suppressed: {}\"/>", escape_xml(reason));
            let _ = writeln!(out, "      <system-out>{}</system-out>", escape_xml(&text(&mut findings.iter())));
        }
        Outcome::Pass => {
            let _ = writeln!(out, "      <system-out>{}</system-out>", escape_xml(&text(&mut findings.iter())));
        }
    }
    out.push_str("    </testcase>\n");
    result
}

/// Counts of one suite.
#[derive(Default)]
struct Suite {
    cases: String,
    tests: usize,
    failures: usize,
    skipped: usize,
}

impl Suite {
    fn add(&mut self, outcome: Outcome) {
        self.tests += 1;
        match outcome {
            Outcome::Fail => self.failures += 1,
            Outcome::Skip => self.skipped += 1,
            Outcome::Pass => {}
        }
    }
}

/// The JUnit document: `objects` are the ids of every compared object; a test case fails at
/// `fail_level` as the run does.
pub fn render_junit(
    objects: &[String],
    diags: &[Diagnostic],
    sources: &SourceResolver,
    fail_level: Severity,
) -> String {
    let ordered = sorted(diags);
    let mut ids: Vec<&str> = objects.iter().map(String::as_str).collect();
    ids.sort_unstable();
    ids.dedup();

    let mut by_object = Suite::default();
    for id in &ids {
        let findings: Vec<&Diagnostic> = ordered.iter().copied().filter(|d| d.object.as_deref() == Some(*id)).collect();
        let open = format!("    <testcase classname=\"driftlint.objects\" name=\"{}\"", escape_xml(id));
        let result = testcase(&mut by_object.cases, &open, &findings, fail_level, sources);
        by_object.add(result);
    }
    let mut by_file = Suite::default();
    // Findings about an object that was not compared (none today) count here too, so nothing is
    // left out.
    for d in ordered.iter().filter(|d| d.object.as_deref().is_none_or(|o| ids.binary_search(&o).is_err())) {
        let mut open = format!(
            "    <testcase classname=\"driftlint.{}\" name=\"{}\" file=\"{}\"",
            d.rule,
            escape_xml(&format!("{}: {}", position(d, sources), d.message)),
            escape_xml(&d.primary.path.display())
        );
        if let Some(loc) = sources.location(&d.primary) {
            let _ = write!(open, " line=\"{}\"", loc.line);
        }
        let result = testcase(&mut by_file.cases, &open, &[*d], fail_level, sources);
        by_file.add(result);
    }

    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"driftlint\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">",
        by_object.tests + by_file.tests,
        by_object.failures + by_file.failures,
        by_object.skipped + by_file.skipped
    );
    for (name, suite) in [("objects", &by_object), ("files", &by_file)] {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">",
            suite.tests, suite.failures, suite.skipped
        );
        out.push_str(&suite.cases);
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlint_core::diagnostic::Rule;
    use driftlint_core::input::SourcePath;

    fn finding(rule: Rule, severity: Severity, object: Option<&str>, suppressed: bool) -> Diagnostic {
        let mut d = Diagnostic::new(rule, severity, SourcePath::File("a.yaml".into()), None, format!("{rule}"));
        d.object = object.map(str::to_owned);
        d.suppressed = suppressed.then(|| "known".to_owned());
        d
    }

    fn attr(xml: &str, name: &str) -> usize {
        let at = xml.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        xml[at..].split('"').next().unwrap().parse().unwrap()
    }

    #[test]
    fn every_finding_counts_once_and_warnings_fail_only_at_warning_level() {
        let diags = [
            finding(Rule::ValueDrift, Severity::Error, Some("x"), false),
            finding(Rule::MissingField, Severity::Warning, Some("x"), false),
            finding(Rule::UnexpectedField, Severity::Warning, Some("y"), false),
            finding(Rule::UnmatchedResource, Severity::Warning, Some("z"), true),
            finding(Rule::YamlSyntaxError, Severity::Error, None, false),
            finding(Rule::DuplicateKey, Severity::Warning, None, false),
            finding(Rule::NotKubernetesObject, Severity::Note, None, false),
        ];
        let objects = ["x", "y", "z", "clean"].map(String::from);
        let sources = SourceResolver::from_sources(&[]);
        let xml = render_junit(&objects, &diags, &sources, Severity::Error);
        // 4 objects + 3 findings about no object; failing: x and the syntax error; skipped: z.
        assert_eq!((attr(&xml, "tests"), attr(&xml, "failures"), attr(&xml, "skipped")), (7, 2, 1), "{xml}");
        assert_eq!(xml.matches("<testcase ").count(), 7);
        assert_eq!(xml.matches("<failure ").count(), 2);
        let xml = render_junit(&objects, &diags, &sources, Severity::Warning);
        assert_eq!((attr(&xml, "tests"), attr(&xml, "failures"), attr(&xml, "skipped")), (7, 4, 1), "{xml}");
    }

    #[test]
    fn xml_escaping_drops_characters_xml_cannot_hold() {
        assert_eq!(
            escape_xml("<a href=\"x\">'&'</a>\u{1}\t\u{1b}[2K\u{202e}\u{FFFF}\n::x"),
            "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;\\x01\\t\\x1b[2K\\u{202e}\u{FFFD}\n\\x3a:x"
        );
    }
}
