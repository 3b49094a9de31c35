//! `-o junit` (spec §7.4): kube-compare's `pkg/junit` model written by Go's
//! `xml.MarshalIndent("", "\t")`, with the XML header and a trailing newline.
//!
//! Three suites: the compared CRs, the reference validation issues and the unmatched CRs.
//! Go's XML escaping is reproduced by [`escape`]; the timestamp is passed in (RFC 3339 local
//! time, taken by the caller when the report is built) so output is testable.

use super::Output;

const SUITES_NAME: &str = "Comparison results of known valid reference configuration and a set of specific cluster CRs";

/// What a test case carries besides its names.
enum Outcome {
    Pass,
    Skipped(String),
    Failure { message: String, kind: &'static str, contents: String },
}

struct Case {
    classname: String,
    name: String,
    outcome: Outcome,
}

struct Suite {
    name: &'static str,
    cases: Vec<Case>,
}

impl Suite {
    fn failures(&self) -> usize {
        self.cases.iter().filter(|c| matches!(c.outcome, Outcome::Failure { .. })).count()
    }
    fn skipped(&self) -> usize {
        self.cases.iter().filter(|c| matches!(c.outcome, Outcome::Skipped(_))).count()
    }
}

/// Go `xml.EscapeText` / attribute escaping (both are the same in `encoding/xml`).
#[must_use]
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\t' => out.push_str("&#x9;"),
            '\n' => out.push_str("&#xA;"),
            '\r' => out.push_str("&#xD;"),
            // Characters outside XML's Char production become U+FFFD (Go `isInCharacterRange`).
            c if !in_char_range(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn in_char_range(c: char) -> bool {
    let r = c as u32;
    r == 0x09
        || r == 0x0A
        || r == 0x0D
        || (0x20..=0xD7FF).contains(&r)
        || (0xE000..=0xFFFD).contains(&r)
        || (0x10000..=0x10FFFF).contains(&r)
}

fn suites(output: &Output) -> Vec<Suite> {
    let diffs = output
        .diffs
        .iter()
        .map(|d| Case {
            classname: format!("Matching Reference CR: {}", d.correlated_template),
            name: format!("CR: {}", d.cr_name),
            outcome: if !d.diff_output.is_empty() {
                Outcome::Failure {
                    message: format!(
                        "Differences found in CR: {}, Compared To Reference CR: {}",
                        d.cr_name, d.correlated_template
                    ),
                    kind: "Difference",
                    contents: d.diff_output.clone(),
                }
            } else if !d.patched.is_empty() {
                Outcome::Skipped(format!(
                    "Patched with {}; Reasons given: {}",
                    d.patched,
                    d.override_reasons.join(", ")
                ))
            } else {
                Outcome::Pass
            },
        })
        .collect();

    let mut validation: Vec<Case> = Vec::new();
    for (part, comps) in &output.summary.validation_issues {
        for (comp, issue) in comps {
            validation.push(Case {
                classname: format!("Part:{part} Component: {comp}"),
                name: "Reference validation failure".to_owned(),
                outcome: Outcome::Failure {
                    message: format!("{}: {}", issue.msg, issue.crs.join(",")),
                    kind: "Validation Issue",
                    contents: String::new(),
                },
            });
        }
    }
    // kube-compare ranges over Go maps, then sorts by classname.
    validation.sort_by(|a, b| a.classname.cmp(&b.classname));
    if validation.is_empty() {
        validation.push(Case {
            classname: String::new(),
            name: "No reference validation issues: All expected CRs exist in the cluster".to_owned(),
            outcome: Outcome::Pass,
        });
    }

    let mut unmatched: Vec<Case> = output
        .summary
        .unmatched_crs
        .iter()
        .map(|cr| Case {
            classname: String::new(),
            name: cr.clone(),
            outcome: Outcome::Failure {
                message: format!("Cluster resource '{cr}' is unmatched."),
                kind: "Unmatched CR",
                contents: String::new(),
            },
        })
        .collect();
    if unmatched.is_empty() {
        unmatched.push(Case {
            classname: String::new(),
            name: "All Cluster CRs are matched to reference CRs ".to_owned(),
            outcome: Outcome::Pass,
        });
    }

    vec![
        Suite { name: "Detected Differences Between Cluster CRs and Expected CRs", cases: diffs },
        Suite { name: "Reference validation", cases: validation },
        Suite { name: "Unmatched Cluster Resources", cases: unmatched },
    ]
}

/// Renders the JUnit report. `timestamp` is written as every suite's `timestamp` attribute.
#[must_use]
pub fn to_junit(output: &Output, timestamp: &str) -> String {
    let suites = suites(output);
    let tests: usize = suites.iter().map(|s| s.cases.len()).sum();
    let failures: usize = suites.iter().map(Suite::failures).sum();
    let skipped: usize = suites.iter().map(Suite::skipped).sum();
    let hash = escape(&output.summary.metadata_hash);
    let total = output.summary.total_crs;
    let ts = escape(timestamp);

    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    x.push_str(&format!(
        "<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"0\">\n",
        escape(SUITES_NAME)
    ));
    for s in &suites {
        x.push_str(&format!(
            "\t<testsuite tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"0\" name=\"{}\" timestamp=\"{ts}\">\n",
            s.cases.len(),
            s.failures(),
            s.skipped(),
            escape(s.name)
        ));
        x.push_str("\t\t<properties>\n");
        x.push_str(&format!("\t\t\t<property name=\"MetadataHash\" value=\"{hash}\"></property>\n"));
        x.push_str(&format!("\t\t\t<property name=\"TotalCRs\" value=\"{total}\"></property>\n"));
        x.push_str("\t\t</properties>\n");
        for c in &s.cases {
            x.push_str(&format!(
                "\t\t<testcase classname=\"{}\" name=\"{}\" time=\"0\">\n",
                escape(&c.classname),
                escape(&c.name)
            ));
            if let Outcome::Skipped(msg) = &c.outcome {
                x.push_str(&format!("\t\t\t<skipped message=\"{}\"></skipped>\n", escape(msg)));
            }
            x.push_str("\t\t\t<properties></properties>\n");
            if let Outcome::Failure { message, kind, contents } = &c.outcome {
                x.push_str(&format!(
                    "\t\t\t<failure message=\"{}\" type=\"{}\">{}</failure>\n",
                    escape(message),
                    escape(kind),
                    escape(contents)
                ));
            }
            x.push_str("\t\t</testcase>\n");
        }
        x.push_str("\t</testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_go_xml() {
        assert_eq!(escape("a'b\"<&>\t\n\r\u{1}"), "a&#39;b&#34;&lt;&amp;&gt;&#x9;&#xA;&#xD;\u{FFFD}");
    }

    #[test]
    fn empty_report_has_passing_cases() {
        let x = to_junit(&Output::default(), "T");
        assert!(x.contains("tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"0\""));
        assert!(x.contains("name=\"All Cluster CRs are matched to reference CRs \""));
        assert!(x.ends_with("</testsuites>\n"));
    }
}
