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
//! A reason is mandatory: an annotation line without one suppresses nothing, each finding it
//! would have silenced says so in a help note, and the line itself is an
//! `invalid-suppression` finding ([`invalid_suppressions`]), as is a line naming an unknown rule.
//! (The configuration's entries are checked when it is read: there a missing reason or an
//! unknown rule is a configuration error with file and line.)

use std::collections::BTreeMap;
use std::ops::Range;

use crate::config::{IgnoreEntry, Level};
use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::document::{Collection, Document};
use driftlint_core::input::SourcePath;
use driftlint_core::locate::FieldDiffKind;
use driftlint_core::locate::{self, Files};

/// The annotation key.
use driftlint_core::document::SUPPRESS_ANNOTATION as ANNOTATION;

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
    annotation_lines(value).map(|(_, e)| e).collect()
}

/// Each non-blank line of an annotation value, trimmed, with its entry.
fn annotation_lines(value: &str) -> impl Iterator<Item = (&str, AnnotationEntry)> {
    value.lines().map(str::trim).filter(|l| !l.is_empty()).map(|line| {
        let (rules, reason) = match line.split_once(':') {
            Some((r, reason)) => (r, Some(reason.trim().to_string()).filter(|s| !s.is_empty())),
            None => (line, None),
        };
        let rules: Vec<String> = rules.split(',').map(|r| r.trim().to_string()).filter(|r| !r.is_empty()).collect();
        let unknown = rules.iter().filter(|r| *r != "*" && Rule::from_id(r).is_none()).cloned().collect();
        (line, AnnotationEntry { rules, reason, unknown })
    })
}

/// The syntax every message about a bad annotation line repeats.
const SYNTAX: &str =
    "expected `RULE[, RULE…]: reason` per line, e.g. `value-drift: scaled by the HPA` (`*` for every rule)";

/// An `invalid-suppression` finding for every annotation line that cannot apply: without a
/// reason, without rule ids, or naming an unknown rule. Each points at its line in the
/// annotation's value (in the kustomize origin file when the object came from one).
pub fn invalid_suppressions(coll: &Collection, files: &mut Files) -> Vec<Diagnostic> {
    let pointer = format!("/metadata/annotations/{}", ANNOTATION.replace('~', "~0").replace('/', "~1"));
    let severity = Rule::InvalidSuppression.default_severity();
    let mut out = Vec::new();
    for doc in &coll.documents {
        let Some(value) = doc.suppression.as_deref() else { continue };
        let mut problems: Vec<(&str, String, Option<String>)> = Vec::new();
        for (line, e) in annotation_lines(value) {
            if e.rules.is_empty() {
                problems.push((line, format!("`{ANNOTATION}` line `{line}` names no rule"), None));
                continue;
            }
            for id in &e.unknown {
                let hint = closest_rule(id).map(|r| format!("did you mean `{r}`? (`driftlint explain {r}`)"));
                problems.push((line, format!("`{ANNOTATION}` names unknown rule `{id}`; it suppresses nothing"), hint));
            }
            if e.reason.is_none() {
                problems.push((
                    line,
                    format!(
                        "`{ANNOTATION}` suppression of `{}` has no reason, so it suppresses nothing",
                        e.rules.join(", ")
                    ),
                    None,
                ));
            }
        }
        if problems.is_empty() {
            continue;
        }
        let (path, range) =
            locate::manifest_location(doc, &coll.sources[doc.source], &pointer, FieldDiffKind::Changed, files);
        let text = match &path {
            SourcePath::File(p) if Some(p) != source_file(coll, doc) => files.text(p).map(str::to_string),
            _ => Some(coll.sources[doc.source].text.clone()),
        };
        for (line, message, hint) in problems {
            let at = text.as_deref().map_or(range.clone(), |t| line_within(t, &range, line));
            let mut d = Diagnostic::new(Rule::InvalidSuppression, severity, path.clone(), Some(at), message)
                .with_help(SYNTAX)
                .with_object(doc.identity.cr_id(), None);
            if let Some(h) = hint {
                d = d.with_help(h);
            }
            if let Some(h) = locate::origin_help(doc, &path) {
                d = d.with_help(h);
            }
            out.push(d);
        }
    }
    out
}

/// The file a document was read from, when it is one.
fn source_file<'c>(coll: &'c Collection, doc: &Document) -> Option<&'c std::path::PathBuf> {
    match &coll.sources[doc.source].path {
        SourcePath::File(p) => Some(p),
        SourcePath::Stdin => None,
    }
}

/// The range of `line` inside the scalar at `range` of `text` (the whole scalar when the
/// line cannot be found, e.g. in a folded or escaped scalar).
fn line_within(text: &str, range: &Range<usize>, line: &str) -> Range<usize> {
    let Some(scalar) = text.get(range.clone()) else { return range.clone() };
    if let Some(i) = scalar.find(line) {
        return range.start + i..range.start + i + line.len();
    }
    // A location that is only the key (a helm chart template, which cannot be parsed): the
    // value's lines follow it.
    let mut end = (range.start + 4096).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let after = text.get(range.start..end).unwrap_or_default();
    after.find(line).map_or(range.clone(), |i| range.start + i..range.start + i + line.len())
}

/// The rule id closest to a misspelt one (edit distance at most 3), if any.
fn closest_rule(id: &str) -> Option<&'static str> {
    Rule::ALL
        .into_iter()
        .map(|r| (edit_distance(id, r.id()), r.id()))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, r)| r)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(prev + usize::from(ca != *cb));
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
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

/// The suppression annotations of `docs`, by object id, added to `into` (an object read later
/// with the same id replaces an earlier one's).
pub fn collect_annotations(docs: &[Document], into: &mut Annotations) {
    for doc in docs {
        if let Some(v) = &doc.suppression {
            into.insert(doc.identity.cr_id(), parse_annotation(v));
        }
    }
}

/// Suppression annotations by object id ([`collect_annotations`]).
pub type Annotations = BTreeMap<String, Vec<AnnotationEntry>>;

/// Marks findings silenced by an annotation on their object or by a configuration entry.
/// `annotations` are the compared objects' ([`collect_annotations`]).
pub fn apply_suppressions(diags: &mut [Diagnostic], annotations: &Annotations, ignores: &[IgnoreEntry]) {
    for d in diags.iter_mut() {
        let Some(object) = d.object.clone() else { continue };
        // A broken annotation must not silence the report of itself (`*: …` on another line).
        if let Some(entries) = annotations.get(&object).filter(|_| d.rule != Rule::InvalidSuppression) {
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
    use driftlint_core::diagnostic::Severity;
    use driftlint_core::input::SourcePath;

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
    fn suggests_the_closest_rule() {
        assert_eq!(closest_rule("value-drfit"), Some("value-drift"));
        assert_eq!(closest_rule("missing-fields"), Some("missing-field"));
        assert_eq!(closest_rule("completely-else"), None);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn finds_the_line_inside_a_block_scalar() {
        let text = "a: |\n  value-drift: ok\n  bogus\n";
        let range = 3..text.len();
        let r = line_within(text, &range, "bogus");
        assert_eq!(&text[r], "bogus");
        assert_eq!(line_within(text, &range, "absent"), range);
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
        apply_suppressions(&mut ds, &Annotations::new(), &[entry]);
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
