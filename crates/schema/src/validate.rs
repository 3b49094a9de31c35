//! Structural validation of one object (an instance, or a Composition's base) against its
//! compiled schema, as the API server applies a CRD's schema: unknown fields (what pruning
//! would drop), JSON types, `required` after defaults, and the value keywords.
//!
//! Findings carry the byte range they are about, chosen by the corpus's line conventions: the
//! key of a wrong or unknown value, the item for a list item without a key, and for a missing
//! required field the key of the mapping that lacks it (its item for a list item, its first key
//! for the document). It knows nothing of files or rule levels: the pass makes diagnostics.

use std::ops::Range;

use driftlint_yaml::{Node, NodeValue};
use serde_json::Value;

use super::cel::{self as schema_cel, Validation};
use super::format;
use super::model::{Bound, ListType, Schema, Type};
use driftlint_cel::cost::{Budget, Limit};
use driftlint_core::diagnostic::{Rule, Severity};

/// How deep an instance is followed (YAML nesting is bounded by the parser; this bounds the
/// walk whatever the parser allows).
const MAX_DEPTH: usize = 256;

/// One problem of an object.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub rule: Rule,
    pub span: Range<usize>,
    pub message: String,
    /// The field concerned, as a JSON pointer.
    pub pointer: String,
    /// Errors but for CEL rules: a rule whose operands' types no overload takes is a warning
    /// (see [`driftlint_cel::Outcome::Mismatch`]), one that is not evaluated at all a note.
    pub severity: Severity,
    /// For a note about a rule that is not evaluated: that rule (its address), so that the
    /// pass notes it once per run rather than once per object.
    pub once: Option<usize>,
    /// For an unknown field: the one field of the schema it is a likely misspelling of.
    pub rename: Option<String>,
}

/// What the walk reports.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Report missing required fields as `schema-required-missing` (a Composition's base has
    /// its own rule for them, computed with its patches), and evaluate the schema's CEL rules:
    /// both are about the whole object, which a base is not (patches fill it in).
    pub required: bool,
}

/// Validates a whole object (`root` is its mapping) against its schema. Its CEL rules spend
/// `budget`: a fresh object budget, and what is left of the run's.
pub fn validate_object(root: &Node, schema: &Schema, opts: Options, budget: &mut Budget) -> Vec<Finding> {
    budget.start_object();
    let anchor = first_key_span(root);
    let mut w = Walker { opts, patch: false, out: Vec::new(), budget, unevaluated: (0, Vec::new()), spent: None };
    w.value(root, schema, &root.span, &anchor, &mut String::new(), 0, true);
    w.finish(&anchor);
    w.out
}

/// Validates one field of an object: `value` against `schema`, problems of the value itself at
/// `key`, at JSON pointer `pointer` (a built-in kind's `metadata`, which [`validate_object`]
/// leaves to the API server for custom resources). Its CEL rules spend what is left of the
/// object's `budget`.
pub fn validate_field(
    key: &Node,
    value: &Node,
    schema: &Schema,
    pointer: &str,
    opts: Options,
    budget: &mut Budget,
) -> Vec<Finding> {
    let mut w = Walker { opts, patch: false, out: Vec::new(), budget, unevaluated: (0, Vec::new()), spent: None };
    w.value(value, schema, &key.span, &key.span, &mut pointer.to_string(), 1, false);
    w.finish(&key.span);
    w.out
}

/// Validates a strategic-merge patch (`root` is its mapping) against the schema of the kind it
/// patches, as a partial object: field names, types and values are checked, required fields
/// and CEL rules are not (the patched object has them), and the patch directives are
/// understood as kustomize's strategic merge applies them: `$patch` (`merge`, `replace`,
/// `delete`), `$retainKeys`, `$setElementOrder/FIELD` and `$deleteFromPrimitiveList/FIELD`,
/// whose fields must be the mapping's own.
pub fn validate_patch(root: &Node, schema: &Schema) -> Vec<Finding> {
    let anchor = first_key_span(root);
    let mut budget = Budget::default();
    let opts = Options { required: false };
    let mut w =
        Walker { opts, patch: true, out: Vec::new(), budget: &mut budget, unevaluated: (0, Vec::new()), spent: None };
    w.value(root, schema, &root.span, &anchor, &mut String::new(), 0, true);
    w.out
}

/// [`validate_patch`] for one field of a patch (a built-in kind's `metadata`), as
/// [`validate_field`] is for an object; also the value of a JSON 6902 operation, at `at`.
pub fn validate_patch_value(at: &Range<usize>, value: &Node, schema: &Schema, pointer: &str) -> Vec<Finding> {
    let mut budget = Budget::default();
    let opts = Options { required: false };
    let mut w =
        Walker { opts, patch: true, out: Vec::new(), budget: &mut budget, unevaluated: (0, Vec::new()), spent: None };
    w.value(value, schema, at, at, &mut pointer.to_string(), 1, false);
    w.out
}

/// Where a JSON pointer (RFC 6901, as a JSON 6902 patch's `path`) leads in an object of
/// `schema`: `Ok(Some(schema))` of the value there, `Ok(None)` when a level on the way takes
/// any field (preserved unknown fields, an untyped value, an object's `metadata` that the API
/// server owns), `Err(i)` when token `i` (0-based) names no field the schema has. A list's
/// token is an index or `-` (the end, where `add` appends).
pub fn schema_at<'s>(schema: &'s Schema, pointer: &str) -> Result<Option<&'s Schema>, usize> {
    if pointer.is_empty() {
        return Ok(Some(schema));
    }
    let Some(rest) = pointer.strip_prefix('/') else { return Err(0) };
    let mut at = schema;
    // Whether `at` is an object of its own kind (the root, an embedded resource).
    let mut resource = true;
    for (i, token) in rest.split('/').enumerate() {
        let token = token.replace("~1", "/").replace("~0", "~");
        let list = at.items.is_some() || at.ty == Some(Type::Array);
        if list {
            let index = token == "-" || (!token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()));
            if !index {
                return Err(i);
            }
            match at.items.as_deref() {
                Some(items) => at = items,
                None => return Ok(None),
            }
            resource = at.embedded_resource;
            continue;
        }
        if resource && matches!(token.as_str(), "apiVersion" | "kind" | "metadata") {
            match at.properties.get(token.as_str()) {
                Some(s) if !s.properties.is_empty() => at = s,
                _ => return Ok(None),
            }
            resource = false;
            continue;
        }
        match at.property(&token) {
            Some(s) => at = s,
            None if at.preserve_unknown || (at.ty.is_none() && at.properties.is_empty()) => return Ok(None),
            None => return Err(i),
        }
        resource = at.embedded_resource;
    }
    Ok(Some(at))
}

/// How many of the CEL rules left unevaluated by a spent budget a finding names (the count
/// says how many more).
const SHOWN_UNEVALUATED: usize = 5;

/// The span that stands for a mapping without a key of its own: its first key (the document's
/// first line that is not a comment or `---`), else the node.
pub fn first_key_span(node: &Node) -> Range<usize> {
    match &node.value {
        NodeValue::Mapping(entries) if !entries.is_empty() => entries[0].0.span.clone(),
        _ => node.span.clone(),
    }
}

/// The JSON type of a YAML value as Kubernetes decodes it (`None` for null).
pub fn json_type(node: &Node) -> Option<Type> {
    Some(match &node.value {
        NodeValue::Null => return None,
        NodeValue::Bool(_) => Type::Boolean,
        NodeValue::Int(_) => Type::Integer,
        NodeValue::Float(f) => match driftlint_yaml::float_to_json(*f) {
            Value::Number(n) if n.is_i64() || n.is_u64() => Type::Integer,
            Value::Null => return None,
            _ => Type::Number,
        },
        NodeValue::String(_) => Type::String,
        NodeValue::Sequence(_) => Type::Array,
        NodeValue::Mapping(_) => Type::Object,
    })
}

/// Whether a value of type `actual` is accepted where `schema` is.
pub fn type_accepts(schema: &Schema, actual: Type) -> bool {
    if schema.int_or_string && matches!(actual, Type::Integer | Type::String) {
        return true;
    }
    match schema.ty {
        None => true,
        Some(Type::Number) => matches!(actual, Type::Number | Type::Integer),
        Some(t) => t == actual,
    }
}

struct Walker<'b> {
    opts: Options,
    /// A strategic-merge patch: its directives (`$patch`, `$retainKeys`, …) are understood.
    patch: bool,
    out: Vec<Finding>,
    budget: &'b mut Budget,
    /// CEL rule evaluations not done because the object's or the run's budget was spent
    /// (`spent` says which): how many, and the first few as (rule, the value's pointer), the
    /// rule empty when it is the one before's, reported together by [`Walker::finish`].
    unevaluated: (usize, Vec<(String, String)>),
    spent: Option<Limit>,
}

impl Walker<'_> {
    fn push(&mut self, rule: Rule, span: &Range<usize>, pointer: &str, message: String) {
        self.out.push(Finding {
            rule,
            span: span.clone(),
            message,
            pointer: pointer.to_string(),
            severity: Severity::Error,
            once: None,
            rename: None,
        });
    }

    /// Evaluates the CEL rules of `schema` with `self` bound to `node`.
    fn cel(&mut self, node: &Node, schema: &Schema, at: &Range<usize>, pointer: &str) {
        // Once the object's or the run's budget is spent, no value is converted either.
        let mut input = None;
        for v in &schema.validations {
            let rule = match &v.compiled {
                Ok(rule) => rule,
                Err(skipped) => {
                    let msg = format!(
                        "CEL rule `{}` of {}'s schema is not evaluated: {}",
                        v.source,
                        show(pointer),
                        skipped.why()
                    );
                    self.note(v, at, pointer, msg);
                    continue;
                }
            };
            if let Some(limit) = self.budget.spent() {
                self.not_evaluated(limit, &v.source, pointer);
                continue;
            }
            let input = input.get_or_insert_with(|| driftlint_cel::Input::new(&node.to_json(), Some(schema)));
            match rule.evaluate(input, self.budget) {
                driftlint_cel::Outcome::Ok => {}
                driftlint_cel::Outcome::Violated(message) => {
                    let span = rule.field_path.as_deref().and_then(|fp| schema_cel::field_path_span(node, fp));
                    let reason = rule.reason.as_deref().map_or_else(String::new, |r| format!(" ({r})"));
                    let msg = format!("{}: {message}{reason} (CEL rule `{}`)", show(pointer), v.source);
                    self.push(Rule::SchemaCelViolation, span.as_ref().unwrap_or(at), pointer, msg);
                }
                driftlint_cel::Outcome::Error(e) => {
                    let msg = format!(
                        "CEL rule `{}` fails on {}: {e} (the API server rejects the object)",
                        v.source,
                        show(pointer)
                    );
                    self.push(Rule::SchemaCelViolation, at, pointer, msg);
                }
                driftlint_cel::Outcome::Mismatch(e) => {
                    let msg = format!(
                        "CEL rule `{}` could not be evaluated on {}: {e} (Kubernetes type-checks rules when the CRD is created; this mismatch comes from how driftlint types the value)",
                        v.source,
                        show(pointer)
                    );
                    self.out.push(Finding {
                        rule: Rule::SchemaCelViolation,
                        span: at.clone(),
                        message: msg,
                        pointer: pointer.to_string(),
                        severity: Severity::Warning,
                        once: None,
                        rename: None,
                    });
                }
                driftlint_cel::Outcome::OverBudget(Limit::Expression) => {
                    let msg = format!(
                        "CEL rule `{}` was not evaluated to the end on {}: {}",
                        v.source,
                        show(pointer),
                        driftlint_cel::budget_text(Limit::Expression)
                    );
                    self.push(Rule::SchemaCelBudget, at, pointer, msg);
                }
                driftlint_cel::Outcome::OverBudget(limit) => self.not_evaluated(limit, &v.source, pointer),
            }
        }
    }

    fn not_evaluated(&mut self, limit: Limit, source: &str, pointer: &str) {
        // The run's budget may run out after the object's: the run's is what stops the rest.
        self.spent = Some(match (self.spent, limit) {
            (Some(Limit::Run), _) | (_, Limit::Run) => Limit::Run,
            _ => limit,
        });
        let (n, shown) = &mut self.unevaluated;
        *n += 1;
        if shown.len() < SHOWN_UNEVALUATED {
            // The rule's text once for the values it repeats on (a rule on a list's items).
            let repeated = shown.iter().rev().find(|(r, _)| !r.is_empty()).is_some_and(|(r, _)| r == source);
            let rule = if repeated { String::new() } else { source.to_string() };
            shown.push((rule, pointer.to_string()));
        }
    }

    /// One finding at `anchor` (the object's first key) for the rules a spent budget left
    /// unevaluated, naming them.
    fn finish(&mut self, anchor: &Range<usize>) {
        let Some(limit) = self.spent else { return };
        let (n, shown) = &self.unevaluated;
        let n = *n;
        let mut named: Vec<String> = shown
            .iter()
            .map(|(rule, pointer)| match rule.as_str() {
                "" => show(pointer),
                rule => format!("`{}` on {}", schema_cel::short(rule), show(pointer)),
            })
            .collect();
        if n > shown.len() {
            named.push(format!("and {} more", n - shown.len()));
        }
        let msg = format!(
            "{n} CEL rule evaluation{} of this object {} not done: {}: {}",
            if n == 1 { "" } else { "s" },
            if n == 1 { "was" } else { "were" },
            driftlint_cel::budget_text(limit),
            named.join(", ")
        );
        self.push(Rule::SchemaCelBudget, anchor, "", msg);
    }

    fn note(&mut self, v: &std::sync::Arc<Validation>, at: &Range<usize>, pointer: &str, message: String) {
        self.out.push(Finding {
            rule: Rule::SchemaCelViolation,
            span: at.clone(),
            message,
            pointer: pointer.to_string(),
            severity: Severity::Note,
            once: Some(std::sync::Arc::as_ptr(v) as usize),
            rename: None,
        });
    }

    /// A strategic-merge directive `key` (value `v`) of a mapping of `schema` at `pointer`,
    /// checked as the API machinery reads it (k8s.io/apimachinery `strategicpatch`): whether
    /// `key` is one (else it is an ordinary field name).
    #[allow(clippy::too_many_arguments)]
    fn directive(&mut self, key: &str, k: &Node, v: &Node, schema: &Schema, pointer: &str, depth: usize) -> bool {
        let field = |name: &str| schema.properties.get(name).or(schema.additional.as_deref());
        let open = schema.preserve_unknown || (schema.ty.is_none() && schema.properties.is_empty());
        let mut at = pointer.to_string();
        match key {
            "$patch" => {
                const ALLOWED: [&str; 3] = ["merge", "replace", "delete"];
                if !v.as_str().is_some_and(|s| ALLOWED.contains(&s)) {
                    let msg = format!(
                        "`$patch` in {} must be `merge`, `replace` or `delete`, not {}",
                        show(pointer),
                        v.to_json()
                    );
                    self.push(Rule::SchemaInvalidValue, &k.span, pointer, msg);
                }
            }
            "$retainKeys" => {
                let NodeValue::Sequence(names) = &v.value else {
                    let msg = format!("`$retainKeys` in {} must be a list of field names", show(pointer));
                    self.push(Rule::SchemaTypeMismatch, &k.span, pointer, msg);
                    return true;
                };
                for n in names {
                    match n.as_str() {
                        Some(name) if open || field(name).is_some() => {}
                        _ => {
                            let msg = format!("`$retainKeys` names {}, not a field of {}", n.to_json(), show(pointer));
                            self.push(Rule::SchemaUnknownField, &n.span, pointer, msg);
                        }
                    }
                }
            }
            _ => {
                let Some((directive, name)) = key
                    .strip_prefix("$setElementOrder/")
                    .map(|n| ("$setElementOrder", n))
                    .or_else(|| key.strip_prefix("$deleteFromPrimitiveList/").map(|n| ("$deleteFromPrimitiveList", n)))
                else {
                    return false;
                };
                at.push('/');
                push_escaped(&mut at, name);
                match field(name) {
                    // The order lists the items' merge keys; the deleted values are the
                    // list's own: both are lists of the field's items (partial ones).
                    Some(s) => self.value(v, s, &k.span, &k.span, &mut at, depth + 1, false),
                    None if open => {}
                    None => {
                        let msg = format!("`{directive}/{name}`: unknown field `{name}` in {}", show(pointer));
                        self.push(Rule::SchemaUnknownField, &k.span, &at, msg);
                    }
                }
            }
        }
        true
    }

    /// `at` is where a problem of this value is shown; `anchor` where a field missing from it is.
    #[allow(clippy::too_many_arguments)]
    fn value(
        &mut self,
        node: &Node,
        schema: &Schema,
        at: &Range<usize>,
        anchor: &Range<usize>,
        // The JSON pointer of `node`: one buffer for the whole walk, each level appending its
        // token and truncating it again (no string built per node).
        pointer: &mut String,
        depth: usize,
        resource: bool,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        // A null is pruned by the API server (then defaulted): it is no value of any type.
        let Some(actual) = json_type(node) else { return };
        if !type_accepts(schema, actual) {
            let expected = match (schema.int_or_string, schema.ty) {
                // A quantity (`oneOf` string or number in Kubernetes' JSON schemas).
                (true, Some(Type::Number)) => "number or string",
                (true, _) => "integer or string",
                (false, ty) => ty.map_or("", Type::name),
            };
            let msg = format!("{} must be {expected}, not {}", show(pointer), actual.name());
            self.push(Rule::SchemaTypeMismatch, at, pointer, msg);
            return;
        }
        if let Some(problem) = value_problem(node, schema) {
            self.push(Rule::SchemaInvalidValue, at, pointer, format!("{}: {problem}", show(pointer)));
        }
        if self.opts.required && !schema.validations.is_empty() {
            // The document's own rules are shown at its first key, as a missing field is.
            self.cel(node, schema, if pointer.is_empty() { anchor } else { at }, pointer);
        }
        match &node.value {
            NodeValue::Mapping(entries) => {
                let resource = resource || schema.embedded_resource;
                let parent = pointer.len();
                for (k, v) in entries {
                    let key = k.json_key();
                    pointer.push('/');
                    push_escaped(pointer, &key);
                    // The API server owns an object's metadata; apiVersion and kind are the type.
                    if resource && matches!(key.as_ref(), "apiVersion" | "kind" | "metadata") {
                        if let Some(s) = schema.properties.get(key.as_ref()).filter(|_| key != "metadata") {
                            self.value(v, s, &k.span, &k.span, pointer, depth + 1, false);
                        }
                        pointer.truncate(parent);
                        continue;
                    }
                    if self.patch
                        && key.starts_with('$')
                        && self.directive(&key, k, v, schema, &pointer[..parent], depth)
                    {
                        pointer.truncate(parent);
                        continue;
                    }
                    match schema.property(&key) {
                        Some(s) => self.value(v, s, &k.span, &k.span, pointer, depth + 1, false),
                        None if schema.preserve_unknown => {}
                        None => {
                            let msg = format!("unknown field `{key}` in {}", show(&pointer[..parent]));
                            self.push(Rule::SchemaUnknownField, &k.span, pointer, msg);
                            let rename = did_you_mean(&key, schema, entries);
                            if let Some(f) = self.out.last_mut() {
                                f.rename = rename;
                            }
                        }
                    }
                    pointer.truncate(parent);
                }
                if self.opts.required {
                    for r in &schema.required {
                        let present = node.get(r).is_some_and(|v| v.value != NodeValue::Null);
                        let defaulted = schema.properties.get(r).is_some_and(|p| p.default.is_some());
                        if !present && !defaulted {
                            let msg = format!("required field `{r}` is missing in {}", show(pointer));
                            self.push(Rule::SchemaRequiredMissing, anchor, &format!("{pointer}/{}", escape(r)), msg);
                        }
                    }
                }
            }
            NodeValue::Sequence(items) => {
                if let Some(item_schema) = schema.items.as_deref() {
                    let parent = pointer.len();
                    for (i, item) in items.iter().enumerate() {
                        use std::fmt::Write as _;
                        let _ = write!(pointer, "/{i}");
                        self.value(item, item_schema, &item.span, &item.span, pointer, depth + 1, false);
                        pointer.truncate(parent);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The first value keyword `node` (of an accepted type) breaks, as a message.
pub fn value_problem(node: &Node, schema: &Schema) -> Option<String> {
    // The JSON form is built only for what needs it (an enum, a message): collections are not
    // copied at every level of the walk.
    if !schema.enumeration.is_empty() {
        let json = node.to_json();
        if !schema.enumeration.iter().any(|e| json_equal(e, &json)) {
            let allowed: Vec<String> = schema.enumeration.iter().map(Value::to_string).collect();
            return Some(format!("{json} is not one of {}", allowed.join(", ")));
        }
    }
    let shown = || node.to_json().to_string();
    match &node.value {
        NodeValue::String(s) => {
            let len = s.chars().count() as u64;
            if let Some(min) = schema.min_length.filter(|m| len < *m) {
                return Some(format!("{} is shorter than {min} characters", shown()));
            }
            if let Some(max) = schema.max_length.filter(|m| len > *m) {
                return Some(format!("{} is longer than {max} characters", shown()));
            }
            if let Some(p) = &schema.pattern
                && !p.regex.is_match(s)
            {
                return Some(format!("{} does not match the pattern `{}`", shown(), p.source));
            }
            if let Some(f) = &schema.format
                && let Some(false) = format::check(f, s)
            {
                return Some(format!("{} is not a valid {f}", shown()));
            }
        }
        NodeValue::Int(_) | NodeValue::Float(_) => {
            let v = match node.value {
                NodeValue::Int(i) => i as f64,
                NodeValue::Float(f) => f,
                _ => return None,
            };
            if let Some(b) = schema.minimum.filter(|b| below(v, b)) {
                return Some(format!("{} is less than the minimum {}", shown(), bound_text(&b)));
            }
            if let Some(b) = schema.maximum.filter(|b| above(v, b)) {
                return Some(format!("{} is greater than the maximum {}", shown(), bound_text(&b)));
            }
        }
        NodeValue::Sequence(items) => {
            let len = items.len() as u64;
            if let Some(min) = schema.min_items.filter(|m| len < *m) {
                return Some(format!("has {len} items, fewer than {min}"));
            }
            if let Some(max) = schema.max_items.filter(|m| len > *m) {
                return Some(format!("has {len} items, more than {max}"));
            }
            if let Some(problem) = duplicate_item(items, schema) {
                return Some(problem);
            }
        }
        _ => {}
    }
    None
}

/// The first item of a `map` list with the keys of an earlier one, or of a `set` list equal to
/// an earlier one (the API server's `Duplicate value` for a CRD). A key an item leaves out
/// counts with its schema default (else as null), as the server defaults it first.
fn duplicate_item(items: &[Node], schema: &Schema) -> Option<String> {
    let list_type = schema.list_type?;
    let item_schema = schema.items.as_deref();
    // By the identity's JSON text: linear in the items (a hostile list must not be quadratic).
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let identity = match list_type {
            ListType::Set => item.to_json(),
            ListType::Map if schema.list_map_keys.is_empty() => return None,
            ListType::Map => {
                let mut key = serde_json::Map::new();
                for k in &schema.list_map_keys {
                    let value = item
                        .get(k)
                        .map(Node::to_json)
                        .or_else(|| item_schema.and_then(|s| s.properties.get(k)).and_then(|p| p.default.clone()));
                    key.insert(k.clone(), value.unwrap_or(Value::Null));
                }
                Value::Object(key)
            }
        };
        let text = identity.to_string();
        if let Some(first) = seen.get(&text) {
            let what = match list_type {
                ListType::Set => "x-kubernetes-list-type: set".to_string(),
                ListType::Map => format!("x-kubernetes-list-map-keys: {}", schema.list_map_keys.join(", ")),
            };
            return Some(format!("item {i} repeats item {first} ({identity}): duplicate value ({what})"));
        }
        seen.insert(text, i);
    }
    None
}

fn below(v: f64, b: &Bound) -> bool {
    if b.exclusive { v <= b.value } else { v < b.value }
}

fn above(v: f64, b: &Bound) -> bool {
    if b.exclusive { v >= b.value } else { v > b.value }
}

fn bound_text(b: &Bound) -> String {
    let v = driftlint_yaml::float_to_json(b.value);
    if b.exclusive { format!("{v} (exclusive)") } else { v.to_string() }
}

/// JSON equality with numbers compared by value (`1` equals `1.0`).
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// `/a/b` → `a.b` for messages; the root is "the object".
pub fn show(pointer: &str) -> String {
    if pointer.is_empty() {
        return "the object".into();
    }
    format!(
        "`{}`",
        pointer[1..].split('/').map(|s| s.replace("~1", "/").replace("~0", "~")).collect::<Vec<_>>().join(".")
    )
}

fn escape(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    push_escaped(&mut out, key);
    out
}

/// `key` as a JSON pointer token (`~` → `~0`, `/` → `~1`), appended to `out`.
/// The one property of `schema` that `key` most likely misspells (`contaners` →
/// `containers`, `Image` → `image`): among the properties the mapping does not set, the only
/// one at the smallest edit distance, at most 2 edits and fewer than a third of the key's
/// length. `None` when two are as close: a guess between them is no fix.
fn did_you_mean(key: &str, schema: &Schema, entries: &[(Node, Node)]) -> Option<String> {
    let lower = key.to_ascii_lowercase();
    let mut best: Option<(usize, &str)> = None;
    let mut tie = false;
    for name in schema.properties.keys() {
        if entries.iter().any(|(k, _)| k.json_key() == name.as_str()) {
            continue;
        }
        let d = strsim::damerau_levenshtein(&lower, &name.to_ascii_lowercase());
        if d > 2 || d * 3 >= key.chars().count().max(1) {
            continue;
        }
        match best {
            Some((b, _)) if d > b => {}
            Some((b, _)) if d == b => tie = true,
            _ => {
                best = Some((d, name));
                tie = false;
            }
        }
    }
    best.filter(|_| !tie).map(|(_, n)| n.to_owned())
}

fn push_escaped(out: &mut String, key: &str) {
    if !key.contains('~') && !key.contains('/') {
        out.push_str(key);
        return;
    }
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCHED: &str = "type: object\nproperties:\n  metadata: {type: object}\n  spec:\n    type: object\n    required: [name]\n    properties:\n      name: {type: string}\n      items:\n        type: array\n        items: {type: object, properties: {num: {type: integer}}}\n      free: {type: object, x-kubernetes-preserve-unknown-fields: true}\n";

    fn compiled(schema: &str) -> Schema {
        let root = driftlint_yaml::parse_stream(schema).documents.remove(0).root;
        crate::compile::compile(&root).0
    }

    #[test]
    fn a_json_pointer_is_followed_through_the_schema() {
        let schema = compiled(PATCHED);
        assert!(schema_at(&schema, "/spec/items/-").unwrap().is_some());
        assert!(schema_at(&schema, "/spec/items/0/num").unwrap().is_some());
        assert_eq!(schema_at(&schema, "/spec/items/x").map(|s| s.is_some()), Err(2));
        assert_eq!(schema_at(&schema, "/spec/nmae").map(|s| s.is_some()), Err(1));
        // Preserved unknown fields and a custom resource's metadata take any path.
        assert!(schema_at(&schema, "/spec/free/a/b").unwrap().is_none());
        assert!(schema_at(&schema, "/metadata/labels/app").unwrap().is_none());
        assert_eq!(schema_at(&schema, "spec").map(|s| s.is_some()), Err(0));
    }

    #[test]
    fn a_strategic_merge_patch_is_a_partial_object_with_directives() {
        let schema = compiled(PATCHED);
        let text = "spec:\n  items:\n    - $patch: delete\n      num: 1\n  $setElementOrder/items: [{num: 1}]\n  $retainKeys: [name, nope]\n  $deleteFromPrimitiveList/nope: [a]\n  $patch: remove\n  free: {$patch: replace}\n";
        let root = driftlint_yaml::parse_stream(text).documents.remove(0).root;
        let found: Vec<(Rule, usize)> = validate_patch(&root, &schema)
            .iter()
            .map(|f| (f.rule, text[..f.span.start].matches('\n').count() + 1))
            .collect();
        // No `name` demanded; the directives' own problems reported where they are.
        assert_eq!(
            found,
            [(Rule::SchemaUnknownField, 6), (Rule::SchemaUnknownField, 7), (Rule::SchemaInvalidValue, 8)]
        );
    }

    fn lines(text: &str, schema: &str) -> Vec<(Rule, usize)> {
        let schema_root = driftlint_yaml::parse_stream(schema).documents.remove(0).root;
        let (schema, problems) = crate::compile::compile(&schema_root);
        assert!(problems.is_empty());
        let root = driftlint_yaml::parse_stream(text).documents.remove(0).root;
        validate_object(&root, &schema, Options { required: true }, &mut Default::default())
            .iter()
            .map(|f| (f.rule, text[..f.span.start].matches('\n').count() + 1))
            .collect()
    }

    #[test]
    fn map_and_set_lists_refuse_duplicate_items() {
        let schema = "type: object\nproperties:\n  ports:\n    type: array\n    x-kubernetes-list-type: map\n    x-kubernetes-list-map-keys: [port, protocol]\n    items:\n      type: object\n      properties:\n        port: {type: integer}\n        protocol: {type: string, default: TCP}\n  tags:\n    type: array\n    x-kubernetes-list-type: set\n    items: {type: string}\n  any:\n    type: array\n    x-kubernetes-list-type: atomic\n    items: {type: string}\n";
        // The same port with the defaulted protocol and with it written out: one entry.
        let dup = "ports:\n  - port: 80\n  - port: 80\n    protocol: TCP\ntags: [a, b, a]\nany: [x, x]\n";
        assert_eq!(lines(dup, schema), vec![(Rule::SchemaInvalidValue, 1), (Rule::SchemaInvalidValue, 5)]);
        let fine = "ports:\n  - port: 80\n  - port: 80\n    protocol: UDP\ntags: [a, b]\n";
        assert!(lines(fine, schema).is_empty());
    }

    const SCHEMA: &str = "type: object\nrequired: [spec]\nproperties:\n  spec:\n    type: object\n    required: [size, mode]\n    properties:\n      size: {type: integer, minimum: 1}\n      mode: {type: string, default: a, enum: [a, b]}\n      ratio: {type: number}\n      port: {x-kubernetes-int-or-string: true}\n      tags:\n        type: array\n        maxItems: 2\n        items: {type: object, required: [key], properties: {key: {type: string}}}\n      free: {type: object, x-kubernetes-preserve-unknown-fields: true}\n";

    #[test]
    fn finds_each_kind_of_problem_at_its_line() {
        let text = "apiVersion: x/v1\nkind: X\nmetadata:\n  anything: 1\nspec:\n  size: 0\n  ratio: 2\n  port: \"80\"\n  mode: c\n  extra: 1\n  free: {a: {b: 1}}\n  tags:\n    - key: 1\n    - value: x\n";
        assert_eq!(
            lines(text, SCHEMA),
            [
                (Rule::SchemaInvalidValue, 6),
                (Rule::SchemaInvalidValue, 9),
                (Rule::SchemaUnknownField, 10),
                (Rule::SchemaTypeMismatch, 13),
                (Rule::SchemaUnknownField, 14),
                (Rule::SchemaRequiredMissing, 14),
            ]
        );
    }

    #[test]
    fn required_at_root_defaults_and_wrong_types_only_once() {
        // Missing spec: at the document's first key.
        assert_eq!(lines("# c\napiVersion: x/v1\nkind: X\n", SCHEMA), [(Rule::SchemaRequiredMissing, 2)]);
        // mode has a default; a string where an integer goes is only a type problem.
        assert_eq!(lines("kind: X\nspec:\n  size: \"0\"\n", SCHEMA), [(Rule::SchemaTypeMismatch, 3)]);
        // Too many items is a value problem at the list's key.
        assert_eq!(
            lines("kind: X\nspec:\n  size: 1\n  tags: [{key: a}, {key: b}, {key: c}]\n", SCHEMA),
            [(Rule::SchemaInvalidValue, 4)]
        );
    }
}
