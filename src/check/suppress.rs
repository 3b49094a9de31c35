//! Rule levels and reviewer-visible suppressions.
//!
//! `rules:` turns a rule off or changes its severity. A suppression silences findings but
//! keeps them, with the reason, in every output that lists suppressed findings (JSON, SARIF):
//! a reviewer sees what was silenced and why. Two places can say so:
//!
//! * the object itself, in an annotation (`driftlint.io/ignore: "value-drift: scaled by the
//!   HPA"`; several lines, several comma-separated rules per line, `*` for every rule);
//! * the configuration's `ignore:` list (object id or glob, rule, optional field, reason).
//!
//! A reason is mandatory: an annotation line without one suppresses nothing, and each finding
//! it would have silenced says so in a help note, pointing at the annotation.

use std::collections::BTreeMap;

use super::config::{IgnoreEntry, Level};
use crate::diagnostic::{Diagnostic, Rule};
use crate::document::Document;

/// The annotation key.
pub const ANNOTATION: &str = "driftlint.io/ignore";

/// One line of the annotation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnnotationEntry {
    /// Rule ids, or `*`.
    pub rules: Vec<String>,
    /// `None` when the line gives none (an invalid suppression).
    pub reason: Option<String>,
    /// Unknown rule ids on the line.
    pub unknown: Vec<String>,
}

/// Parses an annotation value: `rule[, rule…]: reason` per line.
pub fn parse_annotation(value: &str) -> Vec<AnnotationEntry> {
    value
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|line| {
            let (rules, reason) = match line.split_once(':') {
                Some((r, reason)) => (r, Some(reason.trim().to_string()).filter(|s| !s.is_empty())),
                None => (line, None),
            };
            let rules: Vec<String> = rules.split(',').map(|r| r.trim().to_string()).filter(|r| !r.is_empty()).collect();
            let unknown = rules.iter().filter(|r| *r != "*" && Rule::from_id(r).is_none()).cloned().collect();
            AnnotationEntry { rules, reason, unknown }
        })
        .collect()
}

/// Applies `rules:` levels: findings of an `off` rule are dropped, others take the severity
/// set for their rule.
pub fn apply_levels(diags: &mut Vec<Diagnostic>, rules: &BTreeMap<Rule, Level>) {
    diags.retain_mut(|d| match rules.get(&d.rule) {
        Some(Level::Off) => false,
        Some(Level::On(s)) => {
            d.severity = *s;
            true
        }
        None => true,
    });
}

/// Marks findings silenced by an annotation on their object or by a configuration entry.
/// `docs` are the compared objects (for their annotations).
pub fn apply_suppressions(diags: &mut [Diagnostic], docs: &[Document], ignores: &[IgnoreEntry]) {
    let mut annotations: BTreeMap<String, Vec<AnnotationEntry>> = BTreeMap::new();
    for doc in docs {
        let value =
            doc.object.pointer("/metadata/annotations").and_then(|a| a.get(ANNOTATION)).and_then(|v| v.as_str());
        if let Some(v) = value {
            annotations.insert(doc.identity.cr_id(), parse_annotation(v));
        }
    }
    for d in diags.iter_mut() {
        let Some(object) = d.object.clone() else { continue };
        if let Some(entries) = annotations.get(&object) {
            for e in entries.iter().filter(|e| e.rules.iter().any(|r| r == "*" || r == d.rule.id())) {
                match &e.reason {
                    Some(reason) => {
                        d.suppressed = Some(reason.clone());
                        break;
                    }
                    None => {
                        d.help.push(format!(
                            "the `{ANNOTATION}` annotation on this object does not apply: a suppression needs a reason (`{}: why`)",
                            e.rules.join(", ")
                        ));
                    }
                }
            }
        }
        if d.suppressed.is_some() {
            continue;
        }
        if let Some(entry) = ignores.iter().find(|i| matches_entry(i, d, &object)) {
            d.suppressed = Some(entry.reason.clone());
        }
    }
}

fn matches_entry(entry: &IgnoreEntry, d: &Diagnostic, object: &str) -> bool {
    (entry.rule == "*" || entry.rule == d.rule.id())
        && glob_match(&entry.object, object)
        && entry.field.as_deref().is_none_or(|f| {
            let field = d.field.as_deref().unwrap_or("");
            // A pointer covers itself and everything below it, on token boundaries.
            field == f || field.strip_prefix(f).is_some_and(|rest| rest.starts_with('/')) || f == "/"
        })
}

/// `*` (any run of characters, `/` included: CR ids contain `apps/v1`) and `?` (one).
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // Iterative matcher with single-star backtracking: linear in practice, no recursion.
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;
    use crate::input::SourcePath;

    fn diag(rule: Rule, object: &str, field: Option<&str>) -> Diagnostic {
        Diagnostic::new(rule, Severity::Error, SourcePath::Stdin, None, "m")
            .with_object(object, field.map(String::from))
    }

    #[test]
    fn parses_annotation_lines() {
        let e = parse_annotation("value-drift, missing-field: scaled by HPA\n*: legacy\nunexpected-field\nbogus: x");
        assert_eq!(e[0].rules, ["value-drift", "missing-field"]);
        assert_eq!(e[0].reason.as_deref(), Some("scaled by HPA"));
        assert_eq!(e[1].rules, ["*"]);
        assert_eq!(e[2].reason, None);
        assert_eq!(e[3].unknown, ["bogus"]);
        assert_eq!(parse_annotation("value-drift:   ")[0].reason, None);
    }

    #[test]
    fn globs() {
        assert!(glob_match("apps/v1_Deployment_*", "apps/v1_Deployment_web_frontend"));
        assert!(glob_match("*_ConfigMap_web_?ettings", "v1_ConfigMap_web_settings"));
        assert!(!glob_match("v1_*_x", "v1_ConfigMap_y"));
        assert!(glob_match("*", ""));
    }

    #[test]
    fn config_entries_match_rule_object_and_field_prefix() {
        let entry = IgnoreEntry {
            object: "v1_*".into(),
            rule: "value-drift".into(),
            field: Some("/data".into()),
            reason: "ok".into(),
        };
        let mut ds = vec![
            diag(Rule::ValueDrift, "v1_ConfigMap_web_a", Some("/data/x")),
            diag(Rule::ValueDrift, "v1_ConfigMap_web_a", Some("/database")),
            diag(Rule::MissingField, "v1_ConfigMap_web_a", Some("/data/x")),
        ];
        apply_suppressions(&mut ds, &[], &[entry]);
        let got: Vec<bool> = ds.iter().map(|d| d.suppressed.is_some()).collect();
        assert_eq!(got, [true, false, false]);
    }

    #[test]
    fn levels_drop_and_change_severity() {
        let mut ds = vec![diag(Rule::ValueDrift, "a", None), diag(Rule::UnexpectedField, "a", None)];
        let rules =
            BTreeMap::from([(Rule::ValueDrift, Level::On(Severity::Warning)), (Rule::UnexpectedField, Level::Off)]);
        apply_levels(&mut ds, &rules);
        assert_eq!(ds.len(), 1);
        assert_eq!(ds[0].severity, Severity::Warning);
    }
}
