//! CEL validation rules (`x-kubernetes-validations`) of a schema level: compiled with the
//! schema, once per run, and evaluated on every whole object validated against it (the walk
//! in [`super::validate`] binds `self` at each level that has rules).
//!
//! The language and Kubernetes' libraries are the `driftlint-cel` crate's. Here: reading the
//! rules from the CRD, the [`driftlint_cel::Shape`] view of a compiled [`Schema`], and
//! resolving a rule's `fieldPath` to a place in the object. A rule that does not compile is a
//! problem of the schema (`invalid-schema` at the rule's line); a transition rule (`oldSelf`)
//! or one calling a function driftlint lacks is kept as skipped, and the schema pass notes it
//! once per run.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::Arc;

use driftlint_cel::{CompileError, RuleSpec};
use driftlint_yaml::{Node, NodeValue};
use serde_json::Value;

use super::model::{Schema, SchemaProblem, Type};
pub use super::model::{Skipped, Validation};

/// Weighted bytes of CEL text (rules and message expressions) one `openAPIV3Schema` may
/// compile: about 0.65 s of parsing at most.
pub const MAX_SCHEMA_RULE_BYTES: usize = 256 << 10;
/// Weighted bytes of CEL text every definition of a run may compile in all: about 2.6 s of
/// parsing at most (a run compiles only the definitions of the kinds its inputs use).
pub const MAX_RUN_RULE_BYTES: usize = 1 << 20;

/// The CEL text compiled so far in a run, against [`MAX_RUN_RULE_BYTES`]. A text is charged the
/// first time the run compiles it: provider CRDs repeat the same rules across versions and
/// kinds, and a repeat costs nothing (the compiled rule is cached).
#[derive(Debug, Default)]
pub struct Sources {
    seen: HashSet<u64>,
    run: usize,
}

impl Sources {
    /// Takes the run to have compiled `bytes` so far (for tests of the bound).
    #[cfg(test)]
    pub fn charge_run(&mut self, bytes: usize) {
        self.run = bytes;
    }
}

/// What compiling a rule of one `openAPIV3Schema` charges: that schema's bytes, and the run's.
pub struct Charge<'a> {
    pub sources: &'a mut Sources,
    pub schema: usize,
}

impl Charge<'_> {
    /// Charges `texts` (a rule and its message expression), unless the run compiled them
    /// before; a message when a budget would be exceeded (nothing is charged then).
    fn charge(&mut self, texts: &[&str]) -> Result<(), String> {
        let key = {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            texts.hash(&mut h);
            h.finish()
        };
        if self.sources.seen.contains(&key) {
            return Ok(());
        }
        // A text over the expression limit is refused before it is parsed: it costs nothing.
        let bytes = texts
            .iter()
            .filter(|t| !t.is_empty() && t.len() <= driftlint_cel::MAX_EXPRESSION_BYTES)
            .map(|t| driftlint_cel::compile_weight(t))
            .sum::<usize>();
        if self.schema + bytes > MAX_SCHEMA_RULE_BYTES {
            return Err(format!(
                "the schema's CEL rules would be more than {} KiB to compile (a bound against runaway definitions)",
                MAX_SCHEMA_RULE_BYTES >> 10
            ));
        }
        if self.sources.run + bytes > MAX_RUN_RULE_BYTES {
            return Err(format!(
                "the run's CEL rules would be more than {} KiB to compile (a bound against runaway definitions)",
                MAX_RUN_RULE_BYTES >> 10
            ));
        }
        self.schema += bytes;
        self.sources.run += bytes;
        self.sources.seen.insert(key);
        Ok(())
    }
}

/// The rules of `node` (an `x-kubernetes-validations` list), problems into `problems`; each
/// rule compiled is charged to `charge`, and one over its budget is a problem, not compiled.
pub fn compile_rules(
    node: &Node,
    key: &Node,
    charge: &mut Charge<'_>,
    problems: &mut Vec<SchemaProblem>,
) -> Vec<Arc<Validation>> {
    let NodeValue::Sequence(items) = &node.value else {
        problems.push(SchemaProblem {
            span: key.span.clone(),
            message: "`x-kubernetes-validations` must be a list".into(),
        });
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let text = |k: &str| item.get(k).and_then(Node::as_str);
        let Some((rule_key, rule)) = item.entry("rule") else {
            problems
                .push(SchemaProblem { span: item.span.clone(), message: "a validation rule without `rule`".into() });
            continue;
        };
        let Some(source) = rule.as_str() else {
            problems.push(SchemaProblem { span: rule_key.span.clone(), message: "`rule` must be a string".into() });
            continue;
        };
        let spec = RuleSpec {
            rule: source,
            message: text("message"),
            message_expression: text("messageExpression"),
            field_path: text("fieldPath"),
            reason: text("reason"),
        };
        if let Some(fp) = spec.field_path
            && parse_field_path(fp).is_none()
        {
            let span = item.entry("fieldPath").map_or(rule_key.span.clone(), |(k, _)| k.span.clone());
            problems.push(SchemaProblem { span, message: format!("`fieldPath: {fp}` is not a valid field path") });
            continue;
        }
        if let Err(why) = charge.charge(&[source, spec.message_expression.unwrap_or_default()]) {
            problems.push(SchemaProblem {
                span: rule_key.span.clone(),
                message: format!("CEL rule `{}` is not compiled nor evaluated: {why}", short(source)),
            });
            continue;
        }
        let compiled = match driftlint_cel::compile(&spec) {
            Ok(rule) => Ok(rule),
            Err(CompileError::Transition) => Err(Skipped::Transition),
            Err(CompileError::Unsupported(why)) => Err(Skipped::Unsupported(why)),
            Err(CompileError::Invalid(why)) => {
                problems.push(SchemaProblem {
                    span: rule_key.span.clone(),
                    message: format!("CEL rule `{source}`: {why}"),
                });
                continue;
            }
        };
        out.push(Arc::new(Validation { source: source.to_string(), span: rule_key.span.clone(), compiled }));
    }
    out
}

/// A rule's text in a message that may name many: its first line, at most 200 characters.
pub(crate) fn short(source: &str) -> String {
    let line = source.trim().lines().next().unwrap_or_default();
    match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None if line.len() < source.trim().len() => format!("{line}…"),
        None => line.to_string(),
    }
}

/// Drops the rules of `schema` (a level just compiled) that select a field its schema does
/// not have, as a problem at the rule's line: Kubernetes refuses such a CRD ("undefined
/// field"). Only levels that list their `properties` and accept nothing else are checked, and
/// only `self.a.b` chains; a map, `x-kubernetes-preserve-unknown-fields`, an untyped or
/// embedded level ends the check (anything may be there). At the root (`root`), Kubernetes
/// adds `apiVersion`, `kind` and `metadata` whatever the schema lists.
pub fn check_fields(schema: &mut Schema, root: bool, problems: &mut Vec<SchemaProblem>) {
    if schema.validations.is_empty() {
        return;
    }
    let mut kept = Vec::with_capacity(schema.validations.len());
    for v in std::mem::take(&mut schema.validations) {
        let undefined = match &v.compiled {
            Ok(rule) => rule
                .self_paths()
                .into_iter()
                .filter(|p| {
                    !(root && p.first().is_some_and(|f| matches!(f.as_str(), "apiVersion" | "kind" | "metadata")))
                })
                .find_map(|path| undefined_field(schema, &path)),
            Err(_) => None,
        };
        match undefined {
            Some(field) => problems.push(SchemaProblem {
                span: v.span.clone(),
                message: format!(
                    "CEL rule `{}`: undefined field `{field}` (the schema has no such property)",
                    v.source
                ),
            }),
            None => kept.push(v),
        }
    }
    schema.validations = kept;
}

/// The first name of `path` that a closed object level of `schema` does not define.
fn undefined_field(schema: &Schema, path: &[String]) -> Option<String> {
    let mut at = schema;
    for name in path {
        let closed = at.ty == Some(Type::Object)
            && !at.properties.is_empty()
            && at.additional.is_none()
            && !at.preserve_unknown
            && !at.embedded_resource
            && !at.int_or_string;
        if !closed {
            return None;
        }
        let found = at.properties.iter().find(|(k, _)| driftlint_cel::value::escape(k) == *name);
        match found {
            Some((_, child)) => at = child,
            None => return Some(name.clone()),
        }
    }
    None
}

impl driftlint_cel::Shape for Schema {
    fn is_number(&self) -> bool {
        self.ty == Some(Type::Number)
    }
    fn property(&self, key: &str) -> Option<&Self> {
        Schema::property(self, key)
    }
    fn items(&self) -> Option<&Self> {
        self.items.as_deref()
    }
    fn is_named(&self, key: &str) -> bool {
        self.properties.contains_key(key)
    }
    fn defaults(&self, f: &mut dyn FnMut(&str, &Value)) {
        for (k, p) in &self.properties {
            if let Some(d) = &p.default {
                f(k, d);
            }
        }
    }
}

/// A step of a `fieldPath` (`.a`, `['a.b']`, `[0]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// Kubernetes' `fieldPath` syntax: a JSON path of keys (`.name` or `['name']`) and indices.
pub fn parse_field_path(text: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Key(r[..end].to_string()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("['") {
            let end = r.find("']")?;
            steps.push(Step::Key(r[..end].to_string()));
            rest = &r[end + 2..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            steps.push(Step::Index(r[..end].parse().ok()?));
            rest = &r[end + 1..];
        } else {
            return None;
        }
    }
    (!steps.is_empty()).then_some(steps)
}

/// The span a violation at `field_path` below `node` is shown at: the last key (or item) of
/// the path that exists in the object (a rule often flags a field that is missing), `None`
/// when not even the first does.
pub fn field_path_span(node: &Node, field_path: &str) -> Option<Range<usize>> {
    let steps = parse_field_path(field_path)?;
    let mut at = node;
    let mut span = None;
    for step in steps {
        match (step, &at.value) {
            (Step::Key(k), NodeValue::Mapping(_)) => {
                let Some((key, value)) = at.entry(&k) else { break };
                span = Some(key.span.clone());
                at = value;
            }
            (Step::Index(i), NodeValue::Sequence(items)) => {
                let Some(item) = items.get(i) else { break };
                span = Some(item.span.clone());
                at = item;
            }
            _ => break,
        }
    }
    span
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_parse_and_resolve() {
        assert_eq!(
            parse_field_path(".a['b.c'][2].d"),
            Some(vec![Step::Key("a".into()), Step::Key("b.c".into()), Step::Index(2), Step::Key("d".into())])
        );
        assert_eq!(parse_field_path("a"), None);
        assert_eq!(parse_field_path(".a[x]"), None);
        let text = "a:\n  b:\n    - x\n    - y\n";
        let root = driftlint_yaml::parse_stream(text).documents.remove(0).root;
        let line = |s: Range<usize>| text[..s.start].matches('\n').count() + 1;
        assert_eq!(field_path_span(&root, ".a.b[1]").map(line), Some(4));
        // A path leaving the object stops at the last part that exists.
        assert_eq!(field_path_span(&root, ".a.missing").map(line), Some(1));
        assert_eq!(field_path_span(&root, ".missing").map(line), None);
        assert_eq!(field_path_span(&root, ".a.b[1].z").map(line), Some(4));
    }
}
