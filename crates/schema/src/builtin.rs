//! Kubernetes' built-in kinds as schemas of the [`Registry`](super::Registry): the JSON schemas
//! bundled by `driftlint-kube-schemas` for the chosen Kubernetes version, compiled into the
//! same [`Schema`] model as a CRD's `openAPIV3Schema`, lazily (only the kinds a run meets, each
//! once per run).
//!
//! The bundled schemas are JSON Schema (kubernetes-validate's strict variant), not structural
//! OpenAPI: `type` may be a list with `"null"` (nullable), an object without
//! `additionalProperties` accepts any key (so an explicit `false` is what closes it: every
//! object with `properties` in the strict variant), and `oneOf` of two types stands for
//! `IntOrString` (string or integer) and `Quantity` (string or number). This module also says
//! what is wrong with an apiVersion/kind of a built-in group that the version does not serve:
//! the closest kind (did-you-mean), or the Kubernetes version that removed it.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use driftlint_kube_schemas as bundled;
use serde_json::Value;

use super::model::{Schema, Type};

/// How deep one chain of definitions is followed: Kubernetes' own nest about 15 deep; a
/// recursive one (`JSONSchemaProps`) is cut where it repeats.
const MAX_DEPTH: usize = 64;

/// `(group, version, kind)` → its schema, compiled on first use.
type Table = HashMap<(String, String, String), OnceLock<Arc<Schema>>>;

/// The built-in kinds of one Kubernetes version, compiled on first use.
#[derive(Debug, Default)]
pub struct Builtins {
    /// `None`: the newest bundled version.
    version: Option<&'static str>,
}

/// The table of `version`'s kinds, one for the process: built on first use (it needs the
/// bundle's index), each schema compiled on its kind's first lookup, whichever registry or
/// thread asks (an editor's session holds a registry per configuration; [`prewarm`] compiles
/// ahead, on another thread, what a run will ask for). The bundle is part of the binary, so
/// a compiled schema is the same whoever compiles it.
fn shared_table(version: &'static str) -> &'static Table {
    static TABLES: OnceLock<Mutex<HashMap<&'static str, &'static Table>>> = OnceLock::new();
    let mut tables = TABLES.get_or_init(Mutex::default).lock().unwrap_or_else(|e| e.into_inner());
    tables.entry(version).or_insert_with(|| {
        let table: Table = bundled::kinds(version)
            .into_iter()
            .map(|k| ((k.group.clone(), k.version.clone(), k.kind.clone()), OnceLock::new()))
            .collect();
        // One table a bundled version, for the life of the process.
        Box::leak(Box::new(table))
    })
}

/// Compiles, for Kubernetes `version` (`None`: the newest bundled one), the built-in kinds
/// named `kinds` (of any group and version), as a run's lookups later would: a run that
/// calls it on another thread while it prepares the rest finds them compiled.
pub fn prewarm(version: Option<&'static str>, kinds: &HashSet<String>) {
    let builtins = Builtins { version };
    for ((group, api_version, kind), _) in
        shared_table(builtins.version()).iter().filter(|((_, _, k), _)| kinds.contains(k))
    {
        builtins.lookup(group, api_version, kind);
    }
}

/// Why a built-in group's apiVersion/kind has no bundled schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unknown {
    /// Kubernetes removed it: in which version, and what replaces it.
    Removed { removed_in: String, replacement: Option<String> },
    /// Served only from a later bundled version.
    NotYet { added_in: &'static str },
    /// Never a kind of this apiVersion; the closest ones, as `apiVersion kind`.
    NoSuchKind { suggestions: Vec<(String, String)> },
}

impl Builtins {
    pub fn new(version: &'static str) -> Builtins {
        Builtins { version: Some(version) }
    }

    /// The Kubernetes version whose kinds these are.
    pub fn version(&self) -> &'static str {
        self.version.unwrap_or_else(bundled::default_version)
    }

    fn table(&self) -> &'static Table {
        shared_table(self.version())
    }

    /// The schema of a built-in kind, compiled on first use; `None` when this version has none.
    pub fn lookup(&self, group: &str, version: &str, kind: &str) -> Option<&Schema> {
        let cell = self.table().get(&(group.to_string(), version.to_string(), kind.to_string()))?;
        let schema = cell.get_or_init(|| {
            let bundled = bundled::schema(self.version(), group, version, kind);
            Arc::new(bundled.map_or_else(Schema::any, |b| compile(&b)))
        });
        Some(schema)
    }

    /// Whether `group` is an API group of this version's built-in kinds.
    pub fn has_group(&self, group: &str) -> bool {
        self.table().keys().any(|(g, _, _)| g == group)
    }

    /// For an apiVersion/kind that this version does not serve, in a built-in API group (or an
    /// apiVersion Kubernetes removed with its whole group, as `extensions/v1beta1`): why.
    /// `None` for other groups.
    pub fn unknown(&self, group: &str, version: &str, kind: &str) -> Option<Unknown> {
        let kube = self.version();
        if let Some(r) = bundled::removal(kube, group, version, kind) {
            return Some(Unknown::Removed { removed_in: r.removed_in, replacement: r.replacement });
        }
        if !self.has_group(group) {
            return None;
        }
        if let Some(bundled::Whereabouts::Added { added_in }) = bundled::whereabouts(kube, group, version, kind) {
            return Some(Unknown::NotYet { added_in });
        }
        Some(Unknown::NoSuchKind { suggestions: suggestions(self.table().keys(), group, version, kind) })
    }
}

/// The kinds closest to `kind`: the same kind in other API versions first (`v1 Deployment` is
/// `apps/v1`), then similar names in the same apiVersion, then in the same group.
fn suggestions<'a>(
    known: impl Iterator<Item = &'a (String, String, String)>,
    group: &str,
    version: &str,
    kind: &str,
) -> Vec<(String, String)> {
    let api_version = |g: &str, v: &str| if g.is_empty() { v.to_string() } else { format!("{g}/{v}") };
    let lower = kind.to_ascii_lowercase();
    let mut scored: Vec<(u8, f64, String, String)> = Vec::new();
    for (g, v, k) in known {
        if k.ends_with("List") && !kind.ends_with("List") {
            continue;
        }
        let same_name = k.to_ascii_lowercase() == lower;
        let similarity = strsim::jaro_winkler(&lower, &k.to_ascii_lowercase());
        let rank = if same_name {
            0
        } else if g == group && v == version && similarity > 0.85 {
            1
        } else if g == group && similarity > 0.9 {
            2
        } else {
            continue;
        };
        scored.push((rank, -similarity, api_version(g, v), k.clone()));
    }
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    // Only the best tier, and in it the names about as close as the closest.
    let Some((best_rank, best)) = scored.first().map(|s| (s.0, s.1)) else { return Vec::new() };
    let mut seen = HashSet::new();
    scored
        .into_iter()
        .filter(|(rank, sim, _, _)| *rank == best_rank && *sim <= best + 0.03)
        .filter(|(_, _, av, k)| seen.insert((av.clone(), k.clone())))
        .take(3)
        .map(|(_, _, av, k)| (av, k))
        .collect()
}

/// Why `text` is no bundled Kubernetes version, naming the bundled ones.
pub fn unknown_version_message(text: &str) -> String {
    format!(
        "Kubernetes version `{text}` is not bundled (driftlint has the built-in kinds of {})",
        bundled::versions().join(", ")
    )
}

/// Whether `group` is the API group of a built-in kind in any bundled Kubernetes version.
pub fn is_bundled_group(group: &str) -> bool {
    bundled::groups().contains(group)
}

/// Compiles one kind's JSON schema (bundled, or from a `--schema-location`) into the model.
/// A definition is expanded in place wherever it is used, within [`MAX_NODES`] nodes in all
/// (the largest built-in kind, PodList, has about 2,100): a graph of definitions that each
/// use the next twice is cut there and accepts anything below, rather than growing
/// exponentially.
pub fn compile(kind: &bundled::KindSchema) -> Schema {
    compile_bounded(kind).0
}

/// [`compile`], and which limit was crossed, if one was: [`MAX_NODES`] compiled nodes or
/// [`MAX_REF_EXPANSIONS`] `$ref`s followed (a copy of a definition compiled before counts as
/// one), the limits a CRD's schema has. A schema from a `--schema-location` file that
/// crosses one is refused with that message rather than used cut.
pub fn compile_bounded(kind: &bundled::KindSchema) -> (Schema, Option<String>) {
    // How often each definition is referred to: one used once is compiled where it is used
    // and not kept for copies (most of a kind's tree, whose copy cost as much as compiling it).
    let mut c = Compiler::new(&kind.definitions);
    let s = c.definition(&kind.root);
    (s, c.exhausted)
}

/// Adds every `$ref` target in `v` to `uses`.
fn count_refs<'a>(v: &'a Value, uses: &mut HashMap<&'a str, usize>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                match (k.as_str(), child) {
                    ("$ref", Value::String(target)) => *uses.entry(target.as_str()).or_default() += 1,
                    _ => count_refs(child, uses),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| count_refs(i, uses)),
        _ => {}
    }
}

/// Compiled nodes per kind, copies of reused definitions included.
pub const MAX_NODES: usize = crate::compile::MAX_NODES;
/// `$ref`s followed per kind (a CRD's limit).
pub const MAX_REF_EXPANSIONS: usize = crate::compile::MAX_REF_EXPANSIONS;

struct Compiler<'a> {
    definitions: &'a HashMap<String, Arc<Value>>,
    /// The definitions being compiled (a repeat is a recursive type: cut there).
    stack: Vec<&'a str>,
    /// Definitions compiled so far (outside any cut) and their node counts, reused by copy.
    done: HashMap<&'a str, (Schema, usize)>,
    /// Nodes made so far, against [`MAX_NODES`].
    nodes: usize,
    /// `$ref`s to each definition in the kind's definitions: only those used more than once
    /// are kept in `done`.
    uses: HashMap<&'a str, usize>,
    /// `$ref`s followed so far, against [`MAX_REF_EXPANSIONS`].
    expansions: usize,
    /// The first limit crossed, in words.
    exhausted: Option<String>,
}

impl<'a> Compiler<'a> {
    fn new(definitions: &'a HashMap<String, Arc<Value>>) -> Compiler<'a> {
        let mut uses = HashMap::new();
        for body in definitions.values() {
            count_refs(body, &mut uses);
        }
        Compiler {
            definitions,
            stack: Vec::new(),
            done: HashMap::new(),
            nodes: 0,
            uses,
            expansions: 0,
            exhausted: None,
        }
    }

    /// A limit was crossed: the part accepts anything, and the first crossing is kept.
    fn exhaust(&mut self, expansions: bool) -> Schema {
        if self.exhausted.is_none() {
            let what = if expansions {
                format!("expands more than {MAX_REF_EXPANSIONS} `$ref`s")
            } else {
                format!("compiles to more than {MAX_NODES} nodes")
            };
            self.exhausted = Some(format!("the schema {what} (a limit against runaway schemas)"));
        }
        Schema::any()
    }

    fn definition(&mut self, name: &'a str) -> Schema {
        if !self.stack.is_empty() {
            self.expansions += 1;
            if self.expansions > MAX_REF_EXPANSIONS {
                return self.exhaust(true);
            }
        }
        if let Some((s, n)) = self.done.get(name) {
            if self.nodes + n > MAX_NODES {
                return self.exhaust(false);
            }
            self.nodes += n;
            return s.clone();
        }
        let Some(body) = self.definitions.get(name) else { return Schema::any() };
        if self.stack.contains(&name) || self.stack.len() > MAX_DEPTH {
            return Schema::any();
        }
        self.stack.push(name);
        let before = self.nodes;
        let s = self.node(body);
        self.stack.pop();
        // Kept for copies only while a copy could still fit the budget: `nodes` only grows, so
        // one that does not fit now never will, and keeping it would hold a near-budget tree
        // per level of a graph of definitions that each use the next several times (a
        // schema-location file of 40 such levels held 2.8 GB in copies nobody could use).
        let made = self.nodes - before;
        if self.uses.get(name).is_some_and(|n| *n > 1) && self.nodes + made <= MAX_NODES {
            self.done.insert(name, (s.clone(), made));
        }
        s
    }

    fn node(&mut self, v: &'a Value) -> Schema {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return self.exhaust(false);
        }
        let Value::Object(map) = v else { return Schema::any() };
        if let Some(Value::String(target)) = map.get("$ref") {
            return self.definition(target);
        }
        let mut s = Schema::default();
        match map.get("type") {
            Some(Value::String(t)) => s.ty = Type::parse(t),
            Some(Value::Array(ts)) => {
                let named: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
                s.nullable = named.contains(&"null");
                let mut real = named.iter().filter(|t| **t != "null");
                if let (Some(t), None) = (real.next(), real.next()) {
                    s.ty = Type::parse(t);
                }
            }
            _ => {}
        }
        if let Some(Value::Array(alternatives)) = map.get("oneOf") {
            one_of(&mut s, alternatives);
        }
        if let Some(Value::Object(props)) = map.get("properties") {
            for (k, p) in props {
                let child = self.node(p);
                s.properties.insert(k.clone(), child);
            }
        }
        s.additional = match map.get("additionalProperties") {
            Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) | None => Some(Box::new(Schema::any())),
            Some(other) => Some(Box::new(self.node(other))),
        };
        if let Some(items) = map.get("items") {
            s.items = Some(Box::new(self.node(items)));
        }
        if let Some(Value::Array(required)) = map.get("required") {
            s.required = required.iter().filter_map(|r| r.as_str().map(str::to_string)).collect();
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            s.enumeration = values.iter().filter(|v| !v.is_null()).cloned().collect();
        }
        s.format = map.get("format").and_then(Value::as_str).map(str::to_string);
        s
    }
}

/// `oneOf` of plain types: string-or-integer is int-or-string; string-or-number a quantity
/// (a number, integer or string); anything else accepts any type (Kubernetes has no other).
fn one_of(s: &mut Schema, alternatives: &[Value]) {
    let mut types = HashSet::new();
    for a in alternatives {
        match a.get("type") {
            Some(Value::String(t)) => {
                types.insert(t.as_str());
            }
            Some(Value::Array(ts)) => types.extend(ts.iter().filter_map(Value::as_str).filter(|t| *t != "null")),
            _ => return,
        }
    }
    let has = |t: &str| types.contains(t);
    match types.len() {
        // The type is what the validator falls back to past int-or-string: no boolean, no list.
        2 if has("string") && has("integer") => {
            s.int_or_string = true;
            s.ty = Some(Type::Integer);
        }
        2 if has("string") && has("number") => {
            s.int_or_string = true;
            s.ty = Some(Type::Number);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{Options, validate_object};
    use driftlint_core::diagnostic::Rule;

    fn findings(kube: &str, text: &str) -> Vec<(Rule, usize)> {
        let b = Builtins::new(bundled::parse_version(kube).unwrap());
        let root = driftlint_yaml::parse_stream(text).documents.remove(0).root;
        let av = root.get("apiVersion").and_then(|n| n.as_str()).unwrap();
        let kind = root.get("kind").and_then(|n| n.as_str()).unwrap();
        let (g, v) = crate::split_api_version(av);
        let schema = b.lookup(g, v, kind).unwrap();
        validate_object(&root, schema, Options { required: true }, &mut Default::default())
            .iter()
            .map(|f| (f.rule, text[..f.span.start].matches('\n').count() + 1))
            .collect()
    }

    #[test]
    fn a_deployment_with_the_issues_mistakes() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: \"two\"\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      contaners:\n        - name: web\n          image: nginx\n";
        assert_eq!(
            findings("1.37", text),
            [(Rule::SchemaTypeMismatch, 6), (Rule::SchemaUnknownField, 13), (Rule::SchemaRequiredMissing, 12)]
        );
    }

    #[test]
    fn int_or_string_quantities_and_open_maps() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: i\n      ports: [{containerPort: 80}]\n      resources:\n        limits: {cpu: 0.5, memory: 1Gi}\n        requests: {cpu: [1]}\n      livenessProbe:\n        httpGet: {port: http}\n      readinessProbe:\n        httpGet: {port: 8080}\n      startupProbe:\n        httpGet: {port: true}\n  nodeSelector: {any-key: v}\n";
        assert_eq!(findings("1.30", text), [(Rule::SchemaTypeMismatch, 12), (Rule::SchemaTypeMismatch, 18)]);
    }

    #[test]
    fn every_bundled_kind_compiles_within_the_node_budget() {
        let mut largest = (0, String::new());
        for kube in [bundled::versions()[0], bundled::default_version()] {
            for k in bundled::kinds(kube) {
                let s = bundled::schema(kube, &k.group, &k.version, &k.kind).unwrap();
                let mut c = Compiler::new(&s.definitions);
                c.definition(&s.root);
                assert!(c.nodes < MAX_NODES / 4, "{kube} {k:?}: {} nodes", c.nodes);
                // The `$ref` limit a location schema has is far from what Kubernetes needs.
                assert!(c.expansions < MAX_REF_EXPANSIONS / 2, "{kube} {k:?}: {} `$ref`s", c.expansions);
                assert_eq!(c.exhausted, None);
                largest = largest.max((c.nodes, format!("{kube} {}", k.kind)));
            }
        }
        // PodList, about 2,100 nodes in 1.37.
        assert!(largest.0 > 1_000, "{largest:?}");
    }

    #[test]
    fn definitions_used_once_are_not_kept_and_compile_the_same() {
        // Keeping every definition for copies (as before) and only those used twice or more
        // give the same trees and node counts.
        let kube = bundled::default_version();
        for kind in ["Deployment", "StatefulSet", "Pod", "Service", "CronJob"] {
            let k = bundled::kinds(kube).into_iter().find(|k| k.kind == kind).unwrap();
            let s = bundled::schema(kube, &k.group, &k.version, &k.kind).unwrap();
            let mut lean = Compiler::new(&s.definitions);
            let lean_tree = format!("{:?}", lean.definition(&s.root));
            let mut all = Compiler::new(&s.definitions);
            all.uses.values_mut().for_each(|n| *n = 2);
            let all_tree = format!("{:?}", all.definition(&s.root));
            assert_eq!((lean.nodes, lean_tree == all_tree), (all.nodes, true), "{kind}");
            assert!(lean.done.len() < all.done.len(), "{kind}: {} kept of {}", lean.done.len(), all.done.len());
        }
    }

    #[test]
    fn an_exponential_definition_graph_is_cut_at_the_node_budget() {
        let mut definitions = HashMap::new();
        for i in 0..40 {
            let next = format!("d{}", i + 1);
            let body = serde_json::json!({"type": "object", "properties": {"a": {"$ref": next}, "b": {"$ref": next}}});
            definitions.insert(format!("d{i}"), Arc::new(body));
        }
        definitions.insert("d40".to_string(), Arc::new(serde_json::json!({"type": "string"})));
        let kind = bundled::KindSchema { root: "d0".into(), definitions };
        let (s, exhausted) = compile_bounded(&kind);
        assert_eq!(s.ty, Some(Type::Object));
        assert!(exhausted.is_some());
    }

    #[test]
    fn prewarmed_kinds_are_compiled_for_every_registry_of_the_version() {
        let version = bundled::versions()[0];
        let key = (String::new(), "v1".to_string(), "PodTemplate".to_string());
        prewarm(Some(version), &HashSet::from(["PodTemplate".to_string(), "NoSuchKind".to_string()]));
        let compiled = shared_table(version).get(&key).and_then(OnceLock::get).expect("compiled ahead");
        // A registry made afterwards finds that schema, not one of its own.
        let registry = Builtins::new(version);
        let found = registry.lookup("", "v1", "PodTemplate").expect("a built-in kind");
        assert!(std::ptr::eq(found, &**compiled));
        assert!(found.properties.contains_key("template"));
    }

    /// Each definition uses the next as two properties, its items and its additional
    /// properties (a schema-location file of this shape took 2.8 GB and 40 s).
    #[test]
    fn a_graph_of_four_uses_per_definition_stays_within_the_budget() {
        let mut definitions = HashMap::new();
        for i in 0..40 {
            let next = serde_json::json!({"$ref": format!("d{}", i + 1)});
            let body = serde_json::json!({"type": "object", "properties": {"a": next, "b": next}, "items": next, "additionalProperties": next});
            definitions.insert(format!("d{i}"), Arc::new(body));
        }
        definitions.insert("d40".to_string(), Arc::new(serde_json::json!({"type": "string"})));
        let mut c = Compiler::new(&definitions);
        let s = c.definition("d0");
        fn count(s: &Schema) -> usize {
            1 + s.properties.values().map(count).sum::<usize>()
                + s.items.as_deref().map_or(0, count)
                + s.additional.as_deref().map_or(0, count)
        }
        assert!(count(&s) <= MAX_NODES, "{} nodes made", count(&s));
        assert!(c.exhausted.is_some());
        // No copy is kept that could not be used again: at most the budget in copies.
        let kept: usize = c.done.values().map(|(_, n)| n).sum();
        assert!(kept <= MAX_NODES, "{kept} nodes kept for copies");
    }

    #[test]
    fn recursive_definitions_are_cut_not_looped() {
        // JSONSchemaProps refers to itself all over.
        let b = Builtins::default();
        let s = b.lookup("apiextensions.k8s.io", "v1", "CustomResourceDefinition").unwrap();
        assert!(s.properties.contains_key("spec"));
    }

    #[test]
    fn unknown_kinds_say_why() {
        let b = Builtins::new("1.30");
        let no_such = |av: &str, k: &str| Some(Unknown::NoSuchKind { suggestions: vec![(av.into(), k.into())] });
        assert_eq!(b.unknown("", "v1", "Servce"), no_such("v1", "Service"));
        assert_eq!(b.unknown("", "v1", "Deployment"), no_such("apps/v1", "Deployment"));
        assert_eq!(
            b.unknown("extensions", "v1beta1", "Ingress"),
            Some(Unknown::Removed { removed_in: "1.22".into(), replacement: Some("networking.k8s.io/v1".into()) })
        );
        assert_eq!(b.unknown("example.com", "v1", "Widget"), None);
        // storage.k8s.io/v1beta1 VolumeAttributesClass: served from 1.31, removed in 1.37.
        assert_eq!(
            b.unknown("storage.k8s.io", "v1beta1", "VolumeAttributesClass"),
            Some(Unknown::NotYet { added_in: "1.31" })
        );
        assert_eq!(
            Builtins::new("1.37").unknown("storage.k8s.io", "v1beta1", "VolumeAttributesClass"),
            Some(Unknown::Removed { removed_in: "1.37".into(), replacement: Some("storage.k8s.io/v1".into()) })
        );
    }
}
