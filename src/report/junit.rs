//! JUnit XML for CI systems that chart test results: one test suite with a test case per
//! compared object (failing when any unsuppressed warning or error concerns it), and one with a
//! test case per finding (failing for warnings and errors, skipped when suppressed, passing
//! with the text in `system-out` for notes).

use std::fmt::Write;

use super::{SourceResolver, escape, sorted};
use crate::diagnostic::{Diagnostic, Severity};

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

fn fails(d: &Diagnostic) -> bool {
    d.suppressed.is_none() && d.severity >= Severity::Warning
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

/// The JUnit document: `objects` are the ids of every compared object.
pub fn render_junit(objects: &[String], diags: &[Diagnostic], sources: &SourceResolver) -> String {
    let ordered = sorted(diags);
    let mut objects: Vec<&str> = objects.iter().map(String::as_str).collect();
    objects.sort_unstable();
    objects.dedup();

    let mut object_cases = String::new();
    let mut object_failures = 0;
    for id in &objects {
        let failing: Vec<&&Diagnostic> =
            ordered.iter().filter(|d| d.object.as_deref() == Some(*id) && fails(d)).collect();
        let _ = write!(object_cases, "    <testcase classname=\"driftlint.objects\" name=\"{}\"", escape_xml(id));
        if failing.is_empty() {
            object_cases.push_str("/>\n");
            continue;
        }
        object_failures += 1;
        let n = failing.len();
        let body: Vec<String> = failing.iter().map(|d| details(d, sources)).collect();
        let _ = write!(
            object_cases,
            ">\n      <failure message=\"{n} finding{}\" type=\"drift\">{}</failure>\n    </testcase>\n",
            if n == 1 { "" } else { "s" },
            escape_xml(&body.join("\n"))
        );
    }

    let mut finding_cases = String::new();
    let (mut failures, mut skipped) = (0, 0);
    for d in &ordered {
        let name = format!("{}: {}", position(d, sources), d.message);
        let _ = write!(
            finding_cases,
            "    <testcase classname=\"driftlint.{}\" name=\"{}\" file=\"{}\"",
            d.rule,
            escape_xml(&name),
            escape_xml(&d.primary.path.display())
        );
        if let Some(loc) = sources.location(&d.primary) {
            let _ = write!(finding_cases, " line=\"{}\"", loc.line);
        }
        finding_cases.push_str(">\n");
        if let Some(reason) = &d.suppressed {
            skipped += 1;
            let _ = writeln!(finding_cases, "      <skipped message=\"suppressed: {}\"/>", escape_xml(reason));
        } else if fails(d) {
            failures += 1;
            let _ = writeln!(
                finding_cases,
                "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                escape_xml(&d.message),
                d.rule,
                escape_xml(&details(d, sources))
            );
        } else {
            let _ = writeln!(finding_cases, "      <system-out>{}</system-out>", escape_xml(&details(d, sources)));
        }
        finding_cases.push_str("    </testcase>\n");
    }

    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"driftlint\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{skipped}\">",
        objects.len() + ordered.len(),
        object_failures + failures
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"objects\" tests=\"{}\" failures=\"{object_failures}\" errors=\"0\" skipped=\"0\">",
        objects.len()
    );
    out.push_str(&object_cases);
    out.push_str("  </testsuite>\n");
    let _ = writeln!(
        out,
        "  <testsuite name=\"findings\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">",
        ordered.len()
    );
    out.push_str(&finding_cases);
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escaping_drops_characters_xml_cannot_hold() {
        assert_eq!(
            escape_xml("<a href=\"x\">'&'</a>\u{1}\t\u{1b}[2K\u{202e}\u{FFFF}\n::x"),
            "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;\\x01\\t\\x1b[2K\\u{202e}\u{FFFD}\n\\x3a:x"
        );
    }
}
