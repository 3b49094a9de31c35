//! The documentation of every rule: what it flags, why it matters, an example and how to fix
//! it. `driftlint explain RULE`, the SARIF rules table and `docs/rules.md` are all generated
//! from this one table, so they cannot disagree (a test checks `docs/rules.md`).
//!
//! This module holds text only; which rule a finding gets is decided where it is produced.

use std::fmt::Write;

use crate::rule::{Rule, Severity};

/// One rule's documentation.
#[derive(Debug)]
pub struct RuleDoc {
    pub rule: Rule,
    /// The severity findings of this rule have unless configured otherwise.
    pub default_severity: Severity,
    /// One sentence, no trailing period (SARIF `shortDescription`).
    pub summary: &'static str,
    /// What the rule flags.
    pub what: &'static str,
    /// Why it matters.
    pub why: &'static str,
    /// The language of the example's code block (`yaml`, `text`).
    pub example_lang: &'static str,
    pub example: &'static str,
    pub fix: &'static str,
}

mod text;

/// Severities a rule has besides its default, each with when: every other finding of a rule has
/// its [`RuleDoc::default_severity`] (a test checks what the linter emits against this table).
pub const VARIANTS: &[(Rule, Severity, &str)] = &[
    (
        Rule::AmbiguousCorrelation,
        Severity::Note,
        "when the overlapping templates differ in how well they match and the closest one was used (a choice, not a tie)",
    ),
    (Rule::UnmatchedResource, Severity::Note, "when every candidate template declined the object with `doNotMatch`"),
    (
        Rule::NotKubernetesObject,
        Severity::Error,
        "when the document has `apiVersion`, `kind`, `metadata` or `spec` but lacks `apiVersion` or `kind`: a manifest missing its type",
    ),
    (Rule::InvalidReference, Severity::Warning, "for what kube-compare only warns about in a reference"),
    (
        Rule::IoError,
        Severity::Note,
        "for what a directory walk leaves out on purpose: a nested git repository (submodule), a symlinked directory, and (one note a run) the directories passed over that hold manifests",
    ),
    (Rule::InvalidSchema, Severity::Note, "for a file given as schemas that holds no definition (it is not used)"),
    (Rule::InvalidSchema, Severity::Warning, "for an `apiextensions.crossplane.io/v1alpha1` XRD, read as v1"),
    (Rule::DuplicateDefinition, Severity::Note, "when the two definitions are identical"),
    (Rule::SchemaNotFound, Severity::Error, "in strict mode (`--schema-mode strict`, or the Composition's annotation)"),
    (
        Rule::SchemaCelViolation,
        Severity::Warning,
        "when the rule's operands have types no overload takes, which Kubernetes refuses when the CRD is created: a difference in how driftlint types the value",
    ),
    (
        Rule::SchemaCelViolation,
        Severity::Note,
        "once per run for a rule not evaluated: a transition rule (`oldSelf`), or one calling a function driftlint does not provide",
    ),
    (Rule::AdmissionViolation, Severity::Warning, "when the binding's `validationActions` is Warn (and not Deny)"),
    (Rule::AdmissionViolation, Severity::Note, "when the binding's `validationActions` is Audit alone"),
    (
        Rule::CompositionRequiredField,
        Severity::Warning,
        "when the field is set only by patches whose composite-resource source is not required",
    ),
];

/// How a rule's findings can be repaired by `driftlint check --fix`, as the rule table tells
/// it (the finding model's own `FixSafety` sits above this module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixable {
    /// Applied by `--fix`.
    Safe,
    /// Applied by `--fix --unsafe-fixes` only.
    Unsafe,
}

/// The rules whose findings carry a fix, each with when it does (a finding of another rule
/// never does; a test checks the findings against this table). docs/fixing.md tells more.
pub const FIXES: &[(Rule, Fixable, &str)] = &[
    (
        Rule::ValueDrift,
        Fixable::Safe,
        "the reference's expected value is template text (no template parameter or function, no inline diff function) and \
     the manifest's value is a scalar outside a block scalar, anchor or tag: the value is replaced in place, quoted as \
     Kubernetes' YAML needs to keep its type",
    ),
    (
        Rule::MissingField,
        Fixable::Safe,
        "the reference's expected value is template text (as for `value-drift`; a whole mapping or sequence only when \
         no byte of it is rendered by an action) and the mapping that should hold the field is in block style: the \
         field is added as the mapping's last entry, at its indentation (a mapping or sequence in block style, the \
         mappings missing above it created)",
    ),
    (
        Rule::RemovedApiVersion,
        Fixable::Safe,
        "Kubernetes names a replacement and the replacement version's bundled schema (and the API server's own \
         checks) accept the object unchanged: `apiVersion` is set to it (policy/v1beta1 → policy/v1 \
         PodDisruptionBudget); else the finding says what the replacement refuses",
    ),
    (
        Rule::SchemaUnknownField,
        Fixable::Unsafe,
        "the key is a likely misspelling of exactly one field of the schema that the mapping does not set (at most two \
         edits, ignoring case: `contaners` → `containers`): the key is renamed, its value kept",
    ),
    (
        Rule::UnexpectedField,
        Fixable::Unsafe,
        "the entry has its lines to itself in a block mapping that keeps another entry (also when other removals \
         are applied in the same run): those lines are removed",
    ),
];

/// The fixes `rule`'s findings may carry.
pub fn fixes(rule: Rule) -> impl Iterator<Item = (Fixable, &'static str)> {
    FIXES.iter().filter(move |(r, _, _)| *r == rule).map(|(_, f, when)| (*f, *when))
}

/// One sentence on whether and how `rule`'s findings are fixed (`driftlint explain`).
pub fn fixable_text(rule: Rule) -> String {
    let mut parts: Vec<String> = fixes(rule)
        .map(|(f, when)| match f {
            Fixable::Safe => format!("yes, a safe fix applied by `driftlint check --fix`, when {when}"),
            Fixable::Unsafe => {
                format!("yes, an unsafe fix applied by `driftlint check --fix --unsafe-fixes`, when {when}")
            }
        })
        .collect();
    if parts.is_empty() {
        parts.push("no, `driftlint check --fix` leaves it to a person".to_string());
    }
    format!("Fixable: {}.", parts.join("; "))
}

/// The severities `rule` may be emitted with: its default, then its [`VARIANTS`].
pub fn severities(rule: Rule) -> Vec<Severity> {
    let mut out = vec![doc(rule).default_severity];
    out.extend(VARIANTS.iter().filter(|(r, _, _)| *r == rule).map(|(_, s, _)| *s));
    out
}

impl Rule {
    /// The severity a finding of this rule has unless the configuration's `rules:` says
    /// otherwise (the rule table's).
    #[must_use]
    pub fn default_severity(self) -> Severity {
        doc(self).default_severity
    }
}

/// The documentation of `rule`.
pub fn doc(rule: Rule) -> &'static RuleDoc {
    // `text::DOCS` lists the rules in `Rule::ALL` order (checked by a test); the search keeps a
    // reordering from ever returning the wrong text.
    text::DOCS.iter().find(|d| d.rule == rule).unwrap_or(&text::DOCS[0])
}

/// Where a rule's documentation is published (its section of `docs/rules.md` in the
/// package's `repository`), when driftlint has a public home; `None` until then, so that no
/// output links to a repository this project does not control.
pub fn doc_url(rule: Rule) -> Option<String> {
    let repository = option_env!("CARGO_PKG_REPOSITORY").filter(|r| !r.is_empty())?;
    Some(format!("{repository}/blob/main/docs/rules.md#{}", rule.id()))
}

/// `driftlint explain RULE`: the documentation as plain text for a terminal.
pub fn explain_text(rule: Rule) -> String {
    let d = doc(rule);
    let mut out = format!("{} ({} by default)\n\n{}.\n", rule.id(), d.default_severity.as_str(), d.summary);
    for (_, severity, when) in VARIANTS.iter().filter(|(r, _, _)| *r == rule) {
        let _ = writeln!(out, "Also {} {when}.", severity.as_str());
    }
    let _ = writeln!(out, "{}", fixable_text(rule));
    for (heading, body) in [("What it flags", d.what), ("Why it matters", d.why)] {
        let _ = write!(out, "\n{heading}\n\n{}\n", body.trim_end());
    }
    let _ = write!(out, "\nExample\n\n");
    for line in d.example.trim_end().lines() {
        let _ = writeln!(out, "    {line}");
    }
    let _ = write!(out, "\nHow to fix\n\n{}\n", d.fix.trim_end());
    out
}

/// One rule's documentation as Markdown (a `docs/rules.md` section and SARIF `help.markdown`),
/// with headings at `level` (`##` is 2).
pub fn explain_markdown(rule: Rule, level: usize) -> String {
    let d = doc(rule);
    let h = "#".repeat(level);
    let mut out = format!("{h} {}\n\n{}. Default severity: **{}**", rule.id(), d.summary, d.default_severity.as_str());
    for (_, severity, when) in VARIANTS.iter().filter(|(r, _, _)| *r == rule) {
        let _ = write!(out, "; **{}** {when}", severity.as_str());
    }
    out.push_str(".\n\n");
    let _ = write!(out, "{}\n\n", fixable_text(rule));
    let _ = write!(out, "{h}# What it flags\n\n{}\n\n", d.what.trim_end());
    let _ = write!(out, "{h}# Why it matters\n\n{}\n\n", d.why.trim_end());
    let _ = write!(out, "{h}# Example\n\n```{}\n{}\n```\n\n", d.example_lang, d.example.trim_end());
    let _ = write!(out, "{h}# How to fix\n\n{}\n", d.fix.trim_end());
    out
}

/// The whole of `docs/rules.md`.
pub fn rules_markdown() -> String {
    let mut out = String::from(
        "<!-- Generated from crates/core/src/rules/text.rs by `DRIFTLINT_BLESS=1 cargo test --test report`; do not edit. -->\n\n# driftlint rules\n\n\
         Every finding carries one of these rule ids, in every output format, in suppressions and in \
         `driftlint explain RULE`. The Fix column says which findings `driftlint check --fix` can repair \
         (safe; unsafe ones with `--unsafe-fixes`; docs/fixing.md).\n\n| Rule | Default | Fix | Summary |\n| --- | --- | --- | --- |\n",
    );
    for rule in Rule::ALL {
        let d = doc(rule);
        let fix: Vec<&str> = fixes(rule)
            .map(|(f, _)| match f {
                Fixable::Safe => "safe",
                Fixable::Unsafe => "unsafe",
            })
            .collect();
        let _ = writeln!(
            out,
            "| [`{0}`](#{0}) | {1} | {2} | {3} |",
            rule.id(),
            d.default_severity.as_str(),
            fix.join(", "),
            d.summary
        );
    }
    for rule in Rule::ALL {
        out.push('\n');
        out.push_str(&explain_markdown(rule, 2));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_documented_once_in_order() {
        let rules: Vec<Rule> = text::DOCS.iter().map(|d| d.rule).collect();
        assert_eq!(rules, Rule::ALL.to_vec());
        for d in &text::DOCS {
            assert!(!d.summary.ends_with('.'), "{}: summary ends with a period", d.rule);
            for part in [d.summary, d.what, d.why, d.example, d.fix] {
                assert!(!part.trim().is_empty(), "{}: empty section", d.rule);
            }
        }
    }
}
