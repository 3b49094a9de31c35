//! Compiling one `openAPIV3Schema` from the spanned YAML tree into the [`Schema`] model, within
//! budgets.
//!
//! A problem in the schema itself (a keyword of the wrong type, a `pattern` that does not
//! compile, a `$ref` that loops or points nowhere, a CEL rule that does not compile) is
//! reported at its place in the schema's file, and the node concerned accepts anything, so one
//! bad schema never stops the other checks.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use crate::model::{Bound, ListType, Pattern, Schema, SchemaProblem, Type};
use driftlint_goregex::GoRegex;
use driftlint_yaml::{Node, NodeValue};

/// How deep a schema may nest (and how many `$ref`s one chain may follow): real CRDs stay far
/// below; a hostile one cannot make compilation run away.
const MAX_DEPTH: usize = 128;

// Compilation budgets (docs/security.md, "Stalling"). Without `$ref` a compiled schema is no
// larger than its YAML; a `$ref` expands its target in place, so a graph of references that
// each use the next twice grows exponentially. Crossing a budget is a problem at the place it
// was crossed (an `invalid-schema` error at the CRD's line), and that part accepts anything.

/// `$ref` expansions per `openAPIV3Schema`.
pub const MAX_REF_EXPANSIONS: usize = 1_000;
/// Compiled schema nodes per `openAPIV3Schema` (the largest provider CRDs have a few thousand).
pub const MAX_NODES: usize = 200_000;
/// Values of one `enum` (each instance value is compared with every one of them).
pub const MAX_ENUM_VALUES: usize = 10_000;
/// Bytes of one `pattern`.
pub const MAX_PATTERN_BYTES: usize = 16 * 1024;
/// The regex crate's compiled-size limit for one `pattern` (its `size_limit`).
pub const MAX_PATTERN_COMPILED: usize = 4 << 20;
/// What compiling every distinct `pattern` of a run may cost, counted by the size tier each
/// one compiled within (16 KiB, 256 KiB or [`MAX_PATTERN_COMPILED`]).
pub const MAX_PATTERNS_COMPILED_TOTAL: usize = 512 << 20;

/// What compiling a run's schemas shares. Compiled `pattern`s by source: provider CRDs repeat
/// the same few patterns across kinds and versions, and compiling a regex costs more than the
/// rest of a schema. Also what compiling them has cost so far, against
/// [`MAX_PATTERNS_COMPILED_TOTAL`], and the CEL rule text compiled so far ([`crate::cel::Sources`]).
#[derive(Debug, Default)]
pub struct Patterns {
    compiled: HashMap<String, Result<Arc<GoRegex>, String>>,
    spent: usize,
    rules: crate::cel::Sources,
}

impl Patterns {
    /// `pattern`, compiled once per run within the limits.
    pub fn compile(&mut self, pattern: &str) -> Result<Arc<GoRegex>, String> {
        if let Some(hit) = self.compiled.get(pattern) {
            return hit.clone();
        }
        let result = self.compile_new(pattern);
        self.compiled.insert(pattern.to_string(), result.clone());
        result
    }

    fn compile_new(&mut self, pattern: &str) -> Result<Arc<GoRegex>, String> {
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(format!("it is {} bytes long, more than the {MAX_PATTERN_BYTES} allowed", pattern.len()));
        }
        // Small tiers first: the cost charged is the tier the pattern fits in.
        for tier in [16 << 10, 256 << 10, MAX_PATTERN_COMPILED] {
            if self.spent + tier > MAX_PATTERNS_COMPILED_TOTAL {
                return Err(format!(
                    "the run's patterns would need more than {} MiB compiled",
                    MAX_PATTERNS_COMPILED_TOTAL >> 20
                ));
            }
            match driftlint_goregex::compile_limited(pattern, tier) {
                Ok(regex) => {
                    self.spent += tier;
                    return Ok(Arc::new(regex));
                }
                Err(e) if e.contains("expression too large") => {}
                Err(e) => return Err(e),
            }
        }
        // Failing the largest tier cost it too (the compiler got that far).
        self.spent += MAX_PATTERN_COMPILED;
        Err(format!("it compiles to more than {} MiB", MAX_PATTERN_COMPILED >> 20))
    }
}

/// Compiles `node` (an `openAPIV3Schema`); `$ref`s resolve as JSON pointers inside it.
pub fn compile(node: &Node) -> (Schema, Vec<SchemaProblem>) {
    compile_with(node, &mut Patterns::default())
}

/// [`compile`], reusing (and adding to) the patterns compiled so far.
pub fn compile_with(node: &Node, patterns: &mut Patterns) -> (Schema, Vec<SchemaProblem>) {
    let mut c = Compiler {
        root: node,
        problems: Vec::new(),
        refs: Vec::new(),
        patterns,
        nodes: 0,
        expansions: 0,
        exhausted: false,
        rule_bytes: 0,
    };
    let schema = c.node(node, 0);
    (schema, c.problems)
}

struct Compiler<'a, 'p> {
    root: &'a Node,
    problems: Vec<SchemaProblem>,
    /// The `$ref`s being expanded (a loop if one repeats).
    refs: Vec<String>,
    patterns: &'p mut Patterns,
    /// Nodes compiled and `$ref`s expanded so far, against [`MAX_NODES`] and
    /// [`MAX_REF_EXPANSIONS`]; `exhausted` once either was crossed (reported once).
    nodes: usize,
    expansions: usize,
    exhausted: bool,
    /// Bytes of CEL rules compiled for this schema, against [`crate::cel::MAX_SCHEMA_RULE_BYTES`].
    rule_bytes: usize,
}

impl<'a> Compiler<'a, '_> {
    fn problem(&mut self, span: &Range<usize>, message: String) {
        self.problems.push(SchemaProblem { span: span.clone(), message });
    }

    fn node(&mut self, node: &'a Node, depth: usize) -> Schema {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return self.exhaust(&node.span, format!("schema compiles to more than {MAX_NODES} nodes"));
        }
        if depth > MAX_DEPTH {
            self.problem(&node.span, format!("schema nested deeper than {MAX_DEPTH} levels: not checked below"));
            return Schema::any();
        }
        let NodeValue::Mapping(entries) = &node.value else {
            // `additionalProperties: true/false` is handled by the caller; anything else here is
            // not a schema.
            self.problem(&node.span, "a schema must be a mapping".into());
            return Schema::any();
        };
        if let Some(r) = node.get("$ref") {
            return self.reference(node, r, depth);
        }
        let mut s = Schema::default();
        for (k, v) in entries {
            let key = k.json_key();
            match key.as_ref() {
                "type" => match v.as_str().and_then(Type::parse) {
                    Some(t) => s.ty = Some(t),
                    None => self.problem(&k.span, format!("unknown schema type `{}`", scalar_text(v))),
                },
                "properties" => match &v.value {
                    NodeValue::Mapping(props) => {
                        for (pk, pv) in props {
                            let child = self.node(pv, depth + 1);
                            s.properties.insert(pk.json_key().into_owned(), child);
                        }
                    }
                    _ => self.problem(&k.span, "`properties` must be a mapping".into()),
                },
                "additionalProperties" => match &v.value {
                    NodeValue::Bool(true) => s.additional = Some(Box::new(Schema::any())),
                    NodeValue::Bool(false) => {}
                    _ => s.additional = Some(Box::new(self.node(v, depth + 1))),
                },
                "items" => s.items = Some(Box::new(self.node(v, depth + 1))),
                "required" => match &v.value {
                    NodeValue::Sequence(items) => {
                        s.required = items.iter().filter_map(|i| i.as_str().map(str::to_string)).collect();
                    }
                    _ => self.problem(&k.span, "`required` must be a list of field names".into()),
                },
                "enum" => match &v.value {
                    NodeValue::Sequence(items) if items.len() > MAX_ENUM_VALUES => self.problem(
                        &k.span,
                        format!(
                            "`enum` has {} values, more than the {MAX_ENUM_VALUES} allowed: not checked",
                            items.len()
                        ),
                    ),
                    NodeValue::Sequence(items) => s.enumeration = items.iter().map(Node::to_json).collect(),
                    _ => self.problem(&k.span, "`enum` must be a list".into()),
                },
                "pattern" => match v.as_str() {
                    Some(p) => {
                        let compiled = self.patterns.compile(p);
                        match compiled {
                            Ok(regex) => s.pattern = Some(Pattern { source: p.to_string(), regex }),
                            Err(e) => self.problem(&k.span, format!("`pattern` does not compile: {e}")),
                        }
                    }
                    None => self.problem(&k.span, "`pattern` must be a string".into()),
                },
                "minimum" => s.minimum = self.number(k, v).map(|value| Bound { value, exclusive: false }),
                "maximum" => s.maximum = self.number(k, v).map(|value| Bound { value, exclusive: false }),
                "minLength" => s.min_length = self.count(k, v),
                "maxLength" => s.max_length = self.count(k, v),
                "minItems" => s.min_items = self.count(k, v),
                "maxItems" => s.max_items = self.count(k, v),
                "format" => s.format = v.as_str().map(str::to_string),
                "nullable" => s.nullable = self.flag(k, v),
                "x-kubernetes-int-or-string" => s.int_or_string = self.flag(k, v),
                "x-kubernetes-preserve-unknown-fields" => s.preserve_unknown = self.flag(k, v),
                "x-kubernetes-embedded-resource" => s.embedded_resource = self.flag(k, v),
                "default" => s.default = Some(v.to_json()),
                "x-kubernetes-list-type" => {
                    s.list_type = match v.as_str() {
                        Some("map") => Some(ListType::Map),
                        Some("set") => Some(ListType::Set),
                        _ => None,
                    }
                }
                "x-kubernetes-list-map-keys" => {
                    if let NodeValue::Sequence(keys) = &v.value {
                        s.list_map_keys = keys.iter().filter_map(|k| k.as_str().map(str::to_string)).collect();
                    }
                }
                "x-kubernetes-validations" => {
                    let mut charge = crate::cel::Charge { sources: &mut self.patterns.rules, schema: self.rule_bytes };
                    s.validations = crate::cel::compile_rules(v, k, &mut charge, &mut self.problems);
                    self.rule_bytes = charge.schema;
                }
                _ => {}
            }
        }
        // CEL rules naming a field the level does not have (now that its properties are known).
        crate::cel::check_fields(&mut s, depth == 0, &mut self.problems);
        // The exclusive flags qualify the bounds, whatever their order in the mapping.
        if let Some(b) = &mut s.minimum {
            b.exclusive = node.get("exclusiveMinimum").is_some_and(|v| v.value == NodeValue::Bool(true));
        }
        if let Some(b) = &mut s.maximum {
            b.exclusive = node.get("exclusiveMaximum").is_some_and(|v| v.value == NodeValue::Bool(true));
        }
        s
    }

    /// `$ref: '#/…'`: the schema at that JSON pointer of the root, expanded in place.
    fn reference(&mut self, node: &'a Node, r: &'a Node, depth: usize) -> Schema {
        let Some(target) = r.as_str() else {
            self.problem(&r.span, "`$ref` must be a string".into());
            return Schema::any();
        };
        if self.refs.iter().any(|t| t == target) {
            self.problem(&r.span, format!("`$ref: {target}` loops back to itself: not checked below"));
            return Schema::any();
        }
        let Some(found) = target.strip_prefix('#').and_then(|p| self.root.pointer(p)) else {
            self.problem(&r.span, format!("`$ref: {target}` points to nothing in this schema"));
            return Schema::any();
        };
        if std::ptr::eq(found, node) {
            self.problem(&r.span, format!("`$ref: {target}` points to itself"));
            return Schema::any();
        }
        self.expansions += 1;
        if self.expansions > MAX_REF_EXPANSIONS {
            return self.exhaust(&r.span, format!("schema expands more than {MAX_REF_EXPANSIONS} `$ref`s"));
        }
        self.refs.push(target.to_string());
        let s = self.node(found, depth + 1);
        self.refs.pop();
        s
    }

    /// A budget was crossed at `span`: reported the first time, and the part accepts anything.
    fn exhaust(&mut self, span: &Range<usize>, what: String) -> Schema {
        if !self.exhausted {
            self.exhausted = true;
            self.problem(span, format!("{what} (a limit against runaway schemas): not checked from here on"));
        }
        Schema::any()
    }

    fn number(&mut self, k: &Node, v: &Node) -> Option<f64> {
        match v.value {
            NodeValue::Int(i) => Some(i as f64),
            NodeValue::Float(f) => Some(f),
            _ => {
                self.problem(&k.span, format!("`{}` must be a number", k.json_key()));
                None
            }
        }
    }

    fn count(&mut self, k: &Node, v: &Node) -> Option<u64> {
        match v.value {
            NodeValue::Int(i) if i >= 0 => Some(i as u64),
            _ => {
                self.problem(&k.span, format!("`{}` must be a non-negative integer", k.json_key()));
                None
            }
        }
    }

    fn flag(&mut self, k: &Node, v: &Node) -> bool {
        match v.value {
            NodeValue::Bool(b) => b,
            _ => {
                self.problem(&k.span, format!("`{}` must be true or false", k.json_key()));
                false
            }
        }
    }
}

fn scalar_text(n: &Node) -> String {
    n.raw().map_or_else(|| n.to_json().to_string(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile_text(text: &str) -> (Schema, Vec<SchemaProblem>) {
        let root = driftlint_yaml::parse_stream(text).documents.remove(0).root;
        compile(&root)
    }

    #[test]
    fn compiles_keywords() {
        let (s, problems) = compile_text(
            "type: object\nrequired: [a]\nproperties:\n  a:\n    type: integer\n    minimum: 1\n    exclusiveMaximum: true\n    maximum: 5\n  b:\n    type: string\n    pattern: '^x'\n    enum: [x1, x2]\n  m:\n    type: object\n    additionalProperties: {type: string}\n",
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(s.ty, Some(Type::Object));
        assert_eq!(s.required, ["a"]);
        let a = &s.properties["a"];
        assert_eq!(a.minimum, Some(Bound { value: 1.0, exclusive: false }));
        assert_eq!(a.maximum, Some(Bound { value: 5.0, exclusive: true }));
        assert!(s.properties["b"].pattern.as_ref().unwrap().regex.is_match("xy"));
        assert_eq!(s.properties["m"].property("anything").and_then(|p| p.ty), Some(Type::String));
    }

    #[test]
    fn ref_loops_and_bad_keywords_are_problems_not_failures() {
        let text = "type: object\nproperties:\n  a:\n    $ref: '#/properties/b'\n  b:\n    $ref: '#/properties/a'\n  c:\n    type: strng\n  d:\n    type: string\n    pattern: '(('\n";
        let (s, problems) = compile_text(text);
        let lines: Vec<usize> = problems.iter().map(|p| text[..p.span.start].matches('\n').count() + 1).collect();
        // The loop is met from both of its ends.
        assert_eq!(lines, [4, 6, 8, 11], "{problems:?}");
        assert!(problems[0].message.contains("loops"));
        assert!(s.properties["a"].preserve_unknown);
        assert_eq!(s.properties["c"].ty, None);
        // A reference that resolves is expanded in place.
        let (s, problems) = compile_text(
            "type: object\nproperties:\n  a: {$ref: '#/definitions/x'}\ndefinitions:\n  x: {type: integer}\n",
        );
        assert!(problems.is_empty());
        assert_eq!(s.properties["a"].ty, Some(Type::Integer));
    }

    fn lines_of(text: &str, problems: &[SchemaProblem]) -> Vec<usize> {
        problems.iter().map(|p| text[..p.span.start].matches('\n').count() + 1).collect()
    }

    /// 40 definitions each using the next twice: 2^40 expansions unbounded. The budget stops
    /// it at one problem on the line of the `$ref` that crossed it.
    #[test]
    fn an_exponential_ref_graph_is_cut_at_the_expansion_budget() {
        let mut text = String::from("type: object\nproperties:\n  root: {$ref: '#/definitions/d0'}\ndefinitions:\n");
        for i in 0..40 {
            text.push_str(&format!(
                "  d{i}:\n    type: object\n    properties:\n      a: {{$ref: '#/definitions/d{n}'}}\n      b: {{$ref: '#/definitions/d{n}'}}\n",
                n = i + 1
            ));
        }
        text.push_str("  d40: {type: string}\n");
        let (s, problems) = compile_text(&text);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].message.contains(&format!("more than {MAX_REF_EXPANSIONS} `$ref`s")), "{problems:?}");
        assert!(lines_of(&text, &problems)[0] > 4, "at a `$ref` line");
        assert_eq!(s.properties["root"].ty, Some(Type::Object));
    }

    #[test]
    fn huge_enums_and_patterns_are_problems() {
        let values: Vec<String> = (0..=MAX_ENUM_VALUES).map(|i| format!("v{i}")).collect();
        let text = format!(
            "type: object\nproperties:\n  e:\n    type: string\n    enum: [{}]\n  p:\n    type: string\n    pattern: '{}'\n  q:\n    type: string\n    pattern: '\\pL{{1000}}\\pL{{1000}}\\pL{{1000}}'\n",
            values.join(", "),
            "a".repeat(MAX_PATTERN_BYTES + 1)
        );
        let (s, problems) = compile_text(&text);
        assert_eq!(lines_of(&text, &problems), [5, 8, 11], "{problems:?}");
        assert!(problems[0].message.contains("more than the 10000 allowed"), "{problems:?}");
        assert!(problems[1].message.contains("bytes long"), "{problems:?}");
        assert!(problems[2].message.contains("compiles to more than 4 MiB"), "{problems:?}");
        assert!(s.properties["e"].enumeration.is_empty() && s.properties["q"].pattern.is_none());
    }

    #[test]
    fn the_run_wide_pattern_budget_holds() {
        let mut patterns = Patterns { spent: MAX_PATTERNS_COMPILED_TOTAL - 1, ..Patterns::default() };
        let err = patterns.compile("^a+$").unwrap_err();
        assert!(err.contains("512 MiB"), "{err}");
        let mut fresh = Patterns::default();
        assert!(fresh.compile("^a+$").unwrap().is_match("aaa"));
        assert_eq!(fresh.spent, 16 << 10, "a small pattern is charged the smallest tier");
        fresh.compile("^a+$").unwrap();
        assert_eq!(fresh.spent, 16 << 10, "compiled once");
    }

    /// The review's shape: a CRD of many long, distinct rules took 10.5 s to compile (1.8 MB,
    /// 300 rules). The rules past the schema's bound are each a problem at their line, named,
    /// and the ones before it compile.
    #[test]
    fn rule_text_past_the_schemas_bound_is_left_out_rule_by_rule() {
        let mut text = String::from("type: object\nx-kubernetes-validations:\n");
        // Each rule about 1.5 KB: `self.a == 'x…0' || …`, distinct by its number.
        for i in 0..300 {
            let terms: Vec<String> = (0..30).map(|j| format!("self.a == '{}{i}_{j}'", "x".repeat(30))).collect();
            text.push_str(&format!("  - rule: \"{}\"\n", terms.join(" || ")));
        }
        text.push_str("properties:\n  a: {type: string}\n");
        let (s, problems) = compile_text(&text);
        assert!(!problems.is_empty() && problems.len() < 300, "{}", problems.len());
        assert_eq!(s.validations.len() + problems.len(), 300);
        for p in &problems {
            assert!(p.message.contains("is not compiled nor evaluated"), "{}", p.message);
            assert!(p.message.contains("more than 256 KiB"), "{}", p.message);
            assert!(p.message.contains("self.a == 'xxx"), "{}", p.message);
        }
        // The first rule left out is the one that crossed the bound, at its own line.
        let first = lines_of(&text, &problems)[0];
        assert_eq!(first, 3 + s.validations.len());
    }

    #[test]
    fn rule_text_past_the_runs_bound_is_left_out() {
        let root = driftlint_yaml::parse_stream(
            "type: object\nx-kubernetes-validations:\n  - rule: self.a == 'b'\nproperties:\n  a: {type: string}\n",
        )
        .documents
        .remove(0)
        .root;
        let mut patterns = Patterns::default();
        patterns.rules.charge_run(crate::cel::MAX_RUN_RULE_BYTES - 10);
        let (s, problems) = compile_with(&root, &mut patterns);
        assert_eq!((s.validations.len(), problems.len()), (0, 1), "{problems:?}");
        assert!(problems[0].message.contains("the run's CEL rules would be more than 1024 KiB"), "{problems:?}");
        // A text the run compiled before costs nothing again.
        let mut patterns = Patterns::default();
        let (_, problems) = compile_with(&root, &mut patterns);
        assert!(problems.is_empty());
        patterns.rules.charge_run(crate::cel::MAX_RUN_RULE_BYTES);
        let (s, problems) = compile_with(&root, &mut patterns);
        assert_eq!((s.validations.len(), problems.len()), (1, 0), "{problems:?}");
    }
}
