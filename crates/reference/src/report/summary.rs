//! Validation issues and `NumMissing` (spec §2.4 for v1 components, §2.5 for v2 groups).
//!
//! The input is a flat list of [`ComponentRule`]s in reference order, which the caller maps
//! from the reference model, and a match-count lookup by template path (the count includes
//! reference-only matches, §4.5). Descriptions are passed already resolved: v1 uses only the
//! template's own, v2 falls back template → component → part (§2.5).

use std::collections::BTreeMap;

use super::{CrMetadata, ValidationIssue};
pub use crate::Group;
use crate::{Compiled, Component, ComponentKind, Version};

/// A template as the rules see it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateRef {
    /// The template identifier (its `path` as written in `metadata.yaml`).
    pub path: String,
    /// The effective description (see the module docs); empty for none.
    pub description: String,
}

impl TemplateRef {
    /// A template without a description.
    #[must_use]
    pub fn new(path: impl Into<String>) -> TemplateRef {
        TemplateRef { path: path.into(), description: String::new() }
    }
}

/// What a component requires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rule {
    /// v1: `type` as written (only `Required` and `Optional` are ever reported) and the
    /// `requiredTemplates` (optional templates are never reported, so they are not needed).
    V1 { type_: String, required: Vec<TemplateRef> },
    /// v2: the component's group key and its templates.
    V2 { group: Group, templates: Vec<TemplateRef> },
}

/// One component of one part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentRule {
    pub part: String,
    pub component: String,
    pub rule: Rule,
}

/// The rules of every component of the reference, in reference order.
#[must_use]
pub fn component_rules(compiled: &Compiled) -> Vec<ComponentRule> {
    let r = &compiled.reference;
    r.parts
        .iter()
        .flat_map(|part| part.components.iter().map(|comp| component_rule(compiled, &part.name, comp)))
        .collect()
}

/// One component's rule: v1 uses only a template's own description, v2 the effective one
/// (template → component → part, §2.5).
#[must_use]
pub fn component_rule(compiled: &Compiled, part: &str, comp: &Component) -> ComponentRule {
    let r = &compiled.reference;
    let tref = |i: usize, v2: bool| {
        let e = &r.templates[i];
        TemplateRef {
            path: e.path.clone(),
            description: if v2 { e.effective_description.clone() } else { e.description.clone() },
        }
    };
    let rule = match &comp.kind {
        ComponentKind::V1 { type_, required, .. } => {
            Rule::V1 { type_: type_.clone(), required: required.iter().map(|&i| tref(i, false)).collect() }
        }
        ComponentKind::V2 { group, templates } => Rule::V2 {
            group: *group,
            templates: templates.iter().map(|&i| tref(i, r.version == Version::V2)).collect(),
        },
    };
    ComponentRule { part: part.to_string(), component: comp.name.clone(), rule }
}

/// part → component → issue, as in `Summary.ValidationIssuses`.
pub type Issues = BTreeMap<String, BTreeMap<String, ValidationIssue>>;

const MISSING: &str = "Missing CRs";
const ONE_REQUIRED: &str = "One of the following is required";
const ONLY_ONE: &str = "Should only match one but matched";
const NONE_EXPECTED: &str = "These should not have been matched";

/// Computes the validation issues and `NumMissing`.
///
/// A component is listed only when its issue names at least one template, and a part only
/// when it has a listed component. Components with the same part and name (possible in a
/// hand-written reference) overwrite each other like kube-compare's map assignments.
pub fn validation_issues(rules: &[ComponentRule], match_count: impl Fn(&str) -> usize) -> (Issues, i64) {
    let matched = |t: &TemplateRef| match_count(&t.path) > 0;
    let mut issues = Issues::new();
    let mut num_missing: i64 = 0;
    for rule in rules {
        let (issue, count) = match &rule.rule {
            Rule::V1 { type_, required } => v1_issue(type_, required, &matched),
            Rule::V2 { group, templates } => v2_issue(*group, templates, &matched),
        };
        let Some(issue) = issue else { continue };
        if issue.crs.is_empty() {
            continue;
        }
        num_missing += count;
        issues.entry(rule.part.clone()).or_default().insert(rule.component.clone(), issue);
    }
    (issues, num_missing)
}

/// An issue listing `templates`, with descriptions as `crMetadata` when `with_metadata`.
fn issue(msg: &str, templates: &[&TemplateRef], with_metadata: bool) -> ValidationIssue {
    let mut cr_metadata = BTreeMap::new();
    if with_metadata {
        for t in templates.iter().filter(|t| !t.description.is_empty()) {
            cr_metadata.insert(t.path.clone(), CrMetadata { description: t.description.clone() });
        }
    }
    ValidationIssue { msg: msg.to_owned(), crs: templates.iter().map(|t| t.path.clone()).collect(), cr_metadata }
}

fn count(v: &[&TemplateRef]) -> i64 {
    i64::try_from(v.len()).unwrap_or(i64::MAX)
}

/// §2.4: `Required` reports any missing required template; `Optional` only a partial set.
fn v1_issue(
    type_: &str,
    required: &[TemplateRef],
    matched: &impl Fn(&TemplateRef) -> bool,
) -> (Option<ValidationIssue>, i64) {
    let missing: Vec<&TemplateRef> = required.iter().filter(|t| !matched(t)).collect();
    let report = match type_ {
        "Required" => !missing.is_empty(),
        "Optional" => !missing.is_empty() && missing.len() < required.len(),
        _ => false,
    };
    if report { (Some(issue(MISSING, &missing, true)), count(&missing)) } else { (None, 0) }
}

/// §2.5's table.
fn v2_issue(
    group: Group,
    templates: &[TemplateRef],
    matched: &impl Fn(&TemplateRef) -> bool,
) -> (Option<ValidationIssue>, i64) {
    let (hit, miss): (Vec<&TemplateRef>, Vec<&TemplateRef>) = templates.iter().partition(|t| matched(t));
    match group {
        Group::AllOf if !miss.is_empty() => (Some(issue(MISSING, &miss, true)), count(&miss)),
        Group::AllOrNoneOf if !hit.is_empty() && !miss.is_empty() => (Some(issue(MISSING, &miss, false)), count(&miss)),
        Group::OneOf if hit.is_empty() => (Some(issue(ONE_REQUIRED, &miss, false)), 1),
        Group::OneOf | Group::AnyOneOf if hit.len() > 1 => (Some(issue(ONLY_ONE, &hit, false)), 0),
        Group::NoneOf if !hit.is_empty() => (Some(issue(NONE_EXPECTED, &hit, false)), 0),
        _ => (None, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(part: &str, comp: &str, rule: Rule) -> ComponentRule {
        ComponentRule { part: part.into(), component: comp.into(), rule }
    }

    fn refs(paths: &[&str]) -> Vec<TemplateRef> {
        paths.iter().map(|p| TemplateRef::new(*p)).collect()
    }

    #[test]
    fn v1_required_and_optional() {
        let mut with_desc = refs(&["a", "b"]);
        with_desc[1].description = "why b".into();
        let rules = [
            rule("P", "req", Rule::V1 { type_: "Required".into(), required: with_desc }),
            rule("P", "opt-all-missing", Rule::V1 { type_: "Optional".into(), required: refs(&["c", "d"]) }),
            rule("P", "opt-partial", Rule::V1 { type_: "Optional".into(), required: refs(&["a", "e"]) }),
            rule("Q", "lower", Rule::V1 { type_: "required".into(), required: refs(&["z"]) }),
        ];
        let (issues, missing) = validation_issues(&rules, |p| usize::from(p == "a"));
        assert_eq!(missing, 2);
        assert_eq!(issues.len(), 1);
        let p = &issues["P"];
        assert_eq!(p["req"].crs, ["b"]);
        assert_eq!(p["req"].cr_metadata["b"].description, "why b");
        assert!(!p.contains_key("opt-all-missing"));
        assert_eq!(p["opt-partial"].crs, ["e"]);
    }

    #[test]
    fn v2_groups() {
        let ts = || refs(&["a", "b", "c"]);
        let hits = |p: &str| usize::from(p != "c");
        let case = |group| validation_issues(&[rule("P", "C", Rule::V2 { group, templates: ts() })], hits);
        let (i, n) = case(Group::AllOf);
        assert_eq!((i["P"]["C"].msg.as_str(), i["P"]["C"].crs.clone(), n), (MISSING, vec!["c".to_owned()], 1));
        let (i, n) = case(Group::AllOrNoneOf);
        assert_eq!((i["P"]["C"].crs.clone(), n), (vec!["c".to_owned()], 1));
        assert!(case(Group::AnyOf).0.is_empty());
        let (i, n) = case(Group::OneOf);
        assert_eq!((i["P"]["C"].msg.as_str(), i["P"]["C"].crs.len(), n), (ONLY_ONE, 2, 0));
        let (i, n) = case(Group::AnyOneOf);
        assert_eq!((i["P"]["C"].crs.len(), n), (2, 0));
        let (i, n) = case(Group::NoneOf);
        assert_eq!((i["P"]["C"].msg.as_str(), n), (NONE_EXPECTED, 0));
        let (i, n) = validation_issues(&[rule("P", "C", Rule::V2 { group: Group::OneOf, templates: ts() })], |_| 0);
        assert_eq!((i["P"]["C"].msg.as_str(), i["P"]["C"].crs.len(), n), (ONE_REQUIRED, 3, 1));
    }
}
