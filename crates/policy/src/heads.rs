//! Rule heads that OPA's compiler refuses although each rule parses, and the rule shape
//! conftest refuses on top of OPA:
//!
//! - rules of one path that are not of one kind: a multi-value rule (`p contains x`) beside a
//!   single-value one (`p := 1`), a function beside a rule, functions of different arities
//!   (`rego_type_error: conflicting rules data.a.p found`, at the first of them, as OPA's
//!   `checkRuleConflicts`);
//! - more than one `default` rule for one path (`rego_type_error: multiple default rules
//!   data.a.p found at FILE:LINE, …`, at the module's `package` line, as OPA reports it);
//! - conftest only: a failure or warning rule written `deny[msg] if { … }`. In Rego v1 that
//!   is a single-value rule whose value is `true` at key `msg` (an object), not a set of
//!   messages, so it could never report anything. conftest refuses it at load time
//!   (`problematicIf` in conftest's `policy/engine.go`); OPA itself accepts it.
//!
//! Knows regorus' syntax trees and OPA's messages; nothing of evaluation or output.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regorus::unstable::{Expr, Module, Ref, Rule, RuleHead};

use super::compile::Problem;

/// conftest's failure rules: `deny`, `violation`, with `_suffix`.
pub(crate) static FAILURE: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new("^(deny|violation)(_[a-zA-Z0-9]+)*$").expect("valid regex"));
/// conftest's warning rules: `warn`, with `_suffix`.
pub(crate) static WARNING: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new("^warn(_[a-zA-Z0-9]+)*$").expect("valid regex"));

/// Whether conftest reports rule `name`'s results: a failure or a warning rule.
pub(crate) fn is_reporting_rule(name: &str) -> bool {
    FAILURE.is_match(name) || WARNING.is_match(name)
}

/// What a rule is, for OPA's conflict check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `p := v`, `p if …`, `p[k] := v`, `default p := v`.
    Single,
    /// `p contains x`.
    Multi,
    /// A function of this many arguments (its `default` included).
    Function(usize),
}

/// The conflicting and multiple-default rules of `modules` (sorted by the caller).
pub fn check(modules: &[Ref<Module>]) -> Vec<Problem> {
    // Per rule path (`data.a.p`): each rule's kind, file and line, in module order.
    let mut rules: BTreeMap<String, Vec<(Kind, String, u32)>> = BTreeMap::new();
    // Per rule path: the `default` rules, and the module line to report them at.
    let mut defaults: BTreeMap<String, (String, u32, Vec<String>)> = BTreeMap::new();
    for module in modules {
        let path = module.package.span.source.get_path().to_string();
        let Some(pkg) = package_path(module) else { continue };
        for rule in &module.policy {
            let (refr, kind) = match rule.as_ref() {
                Rule::Spec { head: RuleHead::Compr { refr, .. }, .. } => (refr, Kind::Single),
                Rule::Spec { head: RuleHead::Set { refr, .. }, .. } => (refr, Kind::Multi),
                Rule::Spec { head: RuleHead::Func { refr, args, .. }, .. } => (refr, Kind::Function(args.len())),
                Rule::Default { refr, args, .. } if !args.is_empty() => (refr, Kind::Function(args.len())),
                Rule::Default { refr, .. } => (refr, Kind::Single),
            };
            let Some(ground) = ground_prefix(refr) else { continue };
            let full = format!("{pkg}.{}", ground.join("."));
            let line = rule.span().line;
            if let Rule::Default { .. } = rule.as_ref() {
                let entry = defaults
                    .entry(full.clone())
                    .or_insert_with(|| (path.clone(), module.package.span.line, Vec::new()));
                entry.2.push(format!("{path}:{line}"));
            }
            rules.entry(full).or_default().push((kind, path.clone(), line));
        }
    }
    let mut out = Vec::new();
    for (full, list) in &rules {
        let Some((first, path, line)) = list.first() else { continue };
        if list.iter().any(|(k, _, _)| k != first) {
            out.push(Problem {
                path: path.clone(),
                line: *line,
                message: format!("rego_type_error: conflicting rules {full} found"),
            });
        }
    }
    for (full, (path, line, at)) in defaults {
        if at.len() > 1 {
            out.push(Problem {
                path,
                line,
                message: format!("rego_type_error: multiple default rules {full} found at {}", at.join(", ")),
            });
        }
    }
    out
}

/// conftest's refusal of failure and warning rules written `deny[msg] if { … }` (see the
/// module header): one problem per such rule, at its head.
pub fn conftest_if_without_contains(modules: &[Ref<Module>]) -> Vec<Problem> {
    let mut out = Vec::new();
    for module in modules {
        let path = module.package.span.source.get_path().to_string();
        for rule in &module.policy {
            let Rule::Spec { head: RuleHead::Compr { refr, assign, span }, .. } = rule.as_ref() else { continue };
            // `deny if …` (a plain name) is a boolean rule, which conftest accepts.
            if matches!(refr.as_ref(), Expr::Var { .. }) {
                continue;
            }
            let value_is_true = match assign {
                None => true,
                Some(a) => matches!(a.value.as_ref(), Expr::Bool { value, .. } if *value == regorus::Value::Bool(true)),
            };
            let Some(name) = first_name(refr) else { continue };
            if value_is_true && is_reporting_rule(&name) {
                out.push(Problem {
                    path: path.clone(),
                    line: span.line,
                    message: format!(
                        "rule `{}` is using 'if' keyword without 'contains' keyword: in Rego v1 it is an object, \
                         not a set of messages, so it never reports anything (write `{name} contains …`)",
                        span.text()
                    ),
                });
            }
        }
    }
    out
}

/// `a.b` of `package a.b`.
fn package_path(module: &Module) -> Option<String> {
    let comps = ground_prefix(&module.package.refr)?;
    Some(format!("data.{}", comps.join(".")))
}

/// The first name of a rule head's reference (`deny` of `deny[msg]`).
fn first_name(refr: &Ref<Expr>) -> Option<String> {
    match refr.as_ref() {
        Expr::Var { span, .. } => Some(span.text().to_string()),
        Expr::RefDot { refr, .. } | Expr::RefBrack { refr, .. } => first_name(refr),
        _ => None,
    }
}

/// The leading parts of a reference that are names or strings (`p.q` of `p.q[x].r`).
fn ground_prefix(refr: &Ref<Expr>) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut at = refr;
    // Walk down to the root, remembering each part; a variable part cuts what came after it.
    loop {
        match at.as_ref() {
            Expr::Var { span, .. } => {
                parts.push(Some(span.text().to_string()));
                break;
            }
            Expr::RefDot { refr, field, .. } => {
                parts.push(Some(field.0.text().to_string()));
                at = refr;
            }
            Expr::RefBrack { refr, index, .. } => {
                let part = match index.as_ref() {
                    Expr::String { value, .. } => value.as_string().ok().map(|s| s.to_string()),
                    _ => None,
                };
                parts.push(part);
                at = refr;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.into_iter().map_while(|p| p).collect())
}
