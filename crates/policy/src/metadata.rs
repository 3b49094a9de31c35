//! OPA's `rego.metadata.rule()` and `rego.metadata.chain()`, from the modules' METADATA
//! annotations (`# METADATA` followed by YAML in comments, right before a `package` or a
//! rule):
//!
//! - `rule()`: the annotations of scope `rule` of the calling rule (`{}` without any), with
//!   their `scope`;
//! - `chain()`: from the calling rule outwards: the rule (`{"path": […]}`, with its
//!   annotations when it has rule-scoped ones), the `document`-scoped annotations of its
//!   path, its package's `package`-scoped ones, then the `subpackages`-scoped ones of each
//!   enclosing package, each `{"path": […], "annotations": {…}}` (the path without `data`).
//!
//! The default scope is `package` before a `package` line, `rule` before a rule. The YAML is
//! read as YAML 1.2, as OPA reads it (OPA also normalises `authors` and `related_resources`
//! strings into objects; that is not done here).
//!
//! regorus has neither built-in, and an extension does not know who calls it: each calling
//! rule's calls are renamed to a copy of its own that returns the constant value
//! ([`super::rewrite`] renames, [`register`] adds the copies).

use std::collections::BTreeMap;

use regorus::Value;
use regorus::unstable::{Expr, Module, Ref, Rule, RuleHead};
use serde_json::{Map, Value as Json};

use super::PolicyError;

use super::tags::{METADATA_BUILTINS as BUILTINS, for_rule as tagged};

/// One METADATA block: the line of the statement it annotates and its fields.
#[derive(Clone, Debug)]
struct Block {
    target: u32,
    fields: Map<String, Json>,
}

/// The METADATA blocks of a module's text; a block whose YAML does not parse is an error at
/// its line (as OPA's parser makes it).
fn blocks(path: &str, text: &str) -> Result<Vec<Block>, PolicyError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim();
        if l.strip_prefix('#').map(str::trim) != Some("METADATA") {
            i += 1;
            continue;
        }
        let start = i;
        let mut yaml = String::new();
        i += 1;
        while i < lines.len() && lines[i].trim_start().starts_with('#') {
            let c = lines[i].trim_start().strip_prefix('#').unwrap_or("");
            yaml.push_str(c.strip_prefix(' ').unwrap_or(c));
            yaml.push('\n');
            i += 1;
        }
        let line = u32::try_from(start + 1).unwrap_or(u32::MAX);
        let error = |message: String| PolicyError::Parse {
            location: Some(super::Location { path: path.to_string(), line }),
            message: format!("rego_parse_error: invalid METADATA block: {message}"),
        };
        let fields = match driftlint_yaml::parse_stream(&yaml).into_result() {
            Ok(docs) => match docs.first().map(|d| yaml_1_2(&d.root)) {
                Some(Json::Object(map)) => map,
                None | Some(Json::Null) => Map::new(),
                Some(_) => return Err(error("not a mapping".into())),
            },
            Err(e) => return Err(error(e.to_string())),
        };
        // The annotated statement is the next line after the comments.
        out.push(Block { target: u32::try_from(i + 1).unwrap_or(u32::MAX), fields });
    }
    Ok(out)
}

/// A METADATA block's YAML as OPA reads it (YAML 1.2: `n`, `yes`, `on` are strings, keys
/// included), not with Kubernetes' YAML 1.1 scalars that manifests are read with.
fn yaml_1_2(node: &driftlint_yaml::Node) -> Json {
    use driftlint_yaml::NodeValue;
    let text = |n: &driftlint_yaml::Node| n.raw().map(str::to_string);
    match &node.value {
        NodeValue::Bool(_) if !matches!(node.raw(), Some("true" | "false" | "True" | "False" | "TRUE" | "FALSE")) => {
            text(node).map_or(Json::Null, Json::String)
        }
        // A plain date is a timestamp, which OPA's YAML reader turns into RFC 3339.
        NodeValue::String(t)
            if node.style == Some(driftlint_yaml::ScalarStyle::Plain)
                && t.len() == 10
                && t.bytes()
                    .enumerate()
                    .all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() }) =>
        {
            Json::String(format!("{t}T00:00:00Z"))
        }
        NodeValue::Sequence(items) => Json::Array(items.iter().map(yaml_1_2).collect()),
        NodeValue::Mapping(entries) => {
            let mut map = Map::with_capacity(entries.len());
            for (k, v) in entries {
                let key = match &k.value {
                    NodeValue::String(s) => s.clone(),
                    _ => text(k).unwrap_or_else(|| k.json_key().into_owned()),
                };
                map.insert(key, yaml_1_2(v));
            }
            Json::Object(map)
        }
        _ => node.to_json(),
    }
}

/// A rule's path below `data`: its package and the static start of its head.
fn rule_path(package: &[String], rule: &Ref<Rule>) -> Vec<String> {
    let refr = match rule.as_ref() {
        Rule::Spec {
            head: RuleHead::Compr { refr, .. } | RuleHead::Set { refr, .. } | RuleHead::Func { refr, .. },
            ..
        } => refr,
        Rule::Default { refr, .. } => refr,
    };
    let mut parts = Vec::new();
    let mut at = refr;
    let mut rev = Vec::new();
    loop {
        match at.as_ref() {
            Expr::Var { span, .. } => {
                rev.push(Some(span.text().to_string()));
                break;
            }
            Expr::RefDot { refr, field, .. } => {
                rev.push(Some(field.0.text().to_string()));
                at = refr;
            }
            Expr::RefBrack { refr, index, .. } => {
                rev.push(match index.as_ref() {
                    Expr::String { value, .. } => value.as_string().ok().map(|s| s.to_string()),
                    _ => None,
                });
                at = refr;
            }
            _ => break,
        }
    }
    rev.reverse();
    parts.extend(package.iter().cloned());
    parts.extend(rev.into_iter().map_while(|p| p));
    parts
}

fn package_of(module: &Module) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = &module.package.refr;
    loop {
        match at.as_ref() {
            Expr::Var { span, .. } => {
                out.push(span.text().to_string());
                break;
            }
            Expr::RefDot { refr, field, .. } => {
                out.push(field.0.text().to_string());
                at = refr;
            }
            _ => break,
        }
    }
    out.reverse();
    out
}

fn with_scope(fields: &Map<String, Json>, scope: &str) -> Json {
    let mut m = fields.clone();
    m.insert("scope".into(), Json::from(scope));
    Json::Object(m)
}

/// Whether rule `rule` calls the copy `name`.
fn calls(rule: &Ref<Rule>, name: &str) -> bool {
    let mut found = false;
    let mut visit = |e: &Ref<Expr>| {
        if let Expr::Call { fcn, .. } = e.as_ref()
            && super::compile::dotted_name(fcn).is_some_and(|n| n == name)
        {
            found = true;
        }
    };
    for e in super::compile::rule_exprs(rule) {
        super::compile::walk(&e, &mut visit);
    }
    for q in super::compile::rule_queries(rule) {
        super::compile::walk_query(&q, &mut visit);
    }
    found
}

/// Adds a copy of each built-in for each rule that calls it (the calls already renamed):
/// `modules` are regorus' modules with the texts they were read from. Returns the copies'
/// names.
pub fn register(engine: &mut regorus::Engine, texts: &[(String, String)]) -> Result<Vec<String>, PolicyError> {
    let modules: Vec<Ref<Module>> = engine.get_modules().clone();
    // Per module: its package, its blocks, and which block annotates which statement.
    let mut per_module = Vec::new();
    for (module, (path, text)) in modules.iter().zip(texts) {
        let blocks = if text.contains("METADATA") { blocks(path, text)? } else { Vec::new() };
        per_module.push((package_of(module), blocks));
    }
    // Document- and package-level annotations, by path.
    let mut documents: BTreeMap<Vec<String>, Map<String, Json>> = BTreeMap::new();
    let mut packages: BTreeMap<Vec<String>, Json> = BTreeMap::new();
    let mut subpackages: BTreeMap<Vec<String>, Json> = BTreeMap::new();
    for (module, (package, blocks)) in modules.iter().zip(&per_module) {
        for b in blocks {
            let scope = b.fields.get("scope").and_then(Json::as_str);
            if b.target == module.package.span.line {
                match scope.unwrap_or("package") {
                    "subpackages" => subpackages.insert(package.clone(), with_scope(&b.fields, "subpackages")),
                    _ => packages.insert(package.clone(), with_scope(&b.fields, "package")),
                };
            } else if scope == Some("document")
                && let Some(rule) = module.policy.iter().find(|r| r.span().line == b.target)
            {
                documents.insert(rule_path(package, rule), b.fields.clone());
            }
        }
    }
    let mut names = Vec::new();
    for (mi, (module, (package, blocks))) in modules.iter().zip(&per_module).enumerate() {
        for (ri, rule) in module.policy.iter().enumerate() {
            let (rule_name, chain_name) = (tagged(BUILTINS[0], mi, ri), tagged(BUILTINS[1], mi, ri));
            let (wants_rule, wants_chain) = (calls(rule, &rule_name), calls(rule, &chain_name));
            if !wants_rule && !wants_chain {
                continue;
            }
            let path = rule_path(package, rule);
            let own = blocks
                .iter()
                .find(|b| {
                    b.target == rule.span().line
                        && b.fields.get("scope").and_then(Json::as_str).unwrap_or("rule") == "rule"
                })
                .map(|b| with_scope(&b.fields, "rule"));
            if wants_rule {
                let value = to_value(own.clone().unwrap_or_else(|| Json::Object(Map::new())))?;
                add(engine, &rule_name, value)?;
                names.push(rule_name);
            }
            if wants_chain {
                let mut chain = Vec::new();
                let mut first = Map::new();
                if let Some(a) = &own {
                    first.insert("annotations".into(), a.clone());
                }
                first.insert("path".into(), Json::from(path.clone()));
                chain.push(Json::Object(first));
                if let Some(doc) = documents.get(&path) {
                    chain.push(serde_json::json!({"annotations": with_scope(doc, "document"), "path": path}));
                }
                if let Some(p) = packages.get(package) {
                    chain.push(serde_json::json!({"annotations": p, "path": package}));
                }
                for n in (1..=package.len()).rev() {
                    if let Some(s) = subpackages.get(&package[..n]) {
                        chain.push(serde_json::json!({"annotations": s, "path": &package[..n]}));
                    }
                }
                add(engine, &chain_name, to_value(Json::Array(chain))?)?;
                names.push(chain_name);
            }
        }
    }
    Ok(names)
}

fn to_value(json: Json) -> Result<Value, PolicyError> {
    serde_json::from_value::<Value>(json).map_err(|e| PolicyError::Data { message: e.to_string() })
}

fn add(engine: &mut regorus::Engine, name: &str, value: Value) -> Result<(), PolicyError> {
    engine
        .add_extension(name.to_string(), 0, Box::new(move |_: Vec<Value>| Ok(value.clone())))
        .map_err(|e| PolicyError::Data { message: e.to_string() })
}
