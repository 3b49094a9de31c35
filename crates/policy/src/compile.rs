//! Compile-time checks that OPA makes and regorus leaves to evaluation (or never makes), run
//! over regorus' syntax trees once every module is parsed, before any input is evaluated:
//!
//! - calls: an undefined function (`rego_type_error: undefined function f`), a built-in
//!   outside the capabilities ([`super::capabilities`]), a call with the wrong number of
//!   arguments (`rego_type_error: f: arity mismatch`);
//! - recursion between rules and functions (`rego_recursion_error: rule data.p.a is
//!   recursive: data.p.a -> data.p.b -> data.p.a`);
//! - with `--strict`, OPA's strict mode: duplicate and unused imports, a local assigned with
//!   `:=` and never used, a function argument no body or value uses, deprecated built-ins
//!   (`rego_compile_error`, `rego_type_error`);
//! - a rule, local or function argument named `input` or `data` (`rego_compile_error`);
//! - a data document with a value where a rule is (`{"main": {"deny_latest": []}}`): OPA
//!   refuses data that conflicts with a rule's path, and a data file must not silence a rule.
//!
//! Messages start with OPA's error class so users (and the differential tests) recognise
//! them. What it does not know: types (OPA's type checker), and unsafe variables, which
//! regorus' own analysis reports when the engine is prepared.

use std::collections::{BTreeMap, BTreeSet};

use regorus::unstable::{BUILTINS, Expr, Literal, Module, Query, Ref, Rule, RuleHead};

use super::capabilities::Capabilities;

/// A compile-time problem at a module line.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    pub path: String,
    pub line: u32,
    pub message: String,
}

/// What the checks need to know besides the modules.
pub struct Settings<'a> {
    pub capabilities: &'a Capabilities,
    pub fixed_clock: bool,
    pub strict: bool,
    /// Built-ins we register ourselves (extensions), with their arity.
    pub extensions: &'a [(&'a str, u8)],
}

/// Built-ins OPA's strict mode refuses as deprecated.
const DEPRECATED: [&str; 11] = [
    "any",
    "all",
    "re_match",
    "net.cidr_overlap",
    "set_diff",
    "cast_array",
    "cast_set",
    "cast_string",
    "cast_boolean",
    "cast_null",
    "cast_object",
];

/// Every problem of `modules`, sorted by file and line.
pub fn check(modules: &[Ref<Module>], settings: &Settings) -> Vec<Problem> {
    let index = Index::new(modules);
    let mut out = Vec::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut weights: BTreeMap<String, usize> = BTreeMap::new();
    for (mi, module) in modules.iter().enumerate() {
        let path = module.package.span.source.get_path().to_string();
        let pkg = &index.packages[mi];
        let imports = imports_of(module);
        if settings.strict {
            strict_imports(module, &imports, &path, &mut out);
        }
        for rule in &module.policy {
            let exprs = rule_exprs(rule);
            let queries = rule_queries(rule);
            let Some(key) = rule_key(pkg, rule) else { continue };
            let locals = locals_of(rule);
            let weight = queries.iter().map(|q| statements(q)).sum::<usize>() + 1;
            let w = weights.entry(key.clone()).or_default();
            *w = (*w).max(weight);
            let mut calls = Vec::new();
            let mut vars: BTreeMap<String, usize> = BTreeMap::new();
            let mut visit = |e: &Ref<Expr>| {
                match e.as_ref() {
                    Expr::Call { span, fcn, params, .. } => calls.push((span.line, fcn.clone(), params.len())),
                    Expr::Var { span, .. } => *vars.entry(span.text().to_string()).or_default() += 1,
                    _ => {}
                }
                if let Some(chain) = dotted(e)
                    && chain.first().is_some_and(|c| c == "data")
                    && let Some(target) = index.rule_prefix(&chain)
                {
                    edges.entry(key.clone()).or_default().insert(target);
                }
            };
            for e in &exprs {
                walk(e, &mut visit);
            }
            for q in &queries {
                walk_query(q, &mut visit);
            }
            for name in vars.keys() {
                if locals.contains(name) {
                    continue;
                }
                let target = format!("{pkg}.{name}");
                if index.rules.contains_key(&target) {
                    edges.entry(key.clone()).or_default().insert(target);
                }
            }
            for (line, fcn, n) in calls {
                let Some(name) = dotted(&fcn) else { continue };
                let at = |message: String| Problem { path: path.clone(), line, message };
                match index.resolve(pkg, &imports, &name) {
                    Some(full) => {
                        edges.entry(key.clone()).or_default().insert(full.clone());
                        if let Some(arities) = index.functions.get(&full)
                            && !arities.contains(&n)
                        {
                            let want = arities.iter().map(ToString::to_string).collect::<Vec<_>>().join(" or ");
                            out.push(at(format!(
                                "rego_type_error: {full}: arity mismatch: {n} arguments given, {want} expected"
                            )));
                        }
                    }
                    None => {
                        let name = name.join(".");
                        if let Some(p) = builtin_problem(&name, n, settings) {
                            out.push(at(p));
                        }
                    }
                }
            }
            if settings.strict {
                strict_locals(&queries, &vars, &path, &mut out);
                strict_args(rule, &vars, &path, &mut out);
            }
            root_overrides(rule, &queries, &path, &mut out);
        }
    }
    let components = components(&edges);
    if !recursion(&index, &edges, &components, &mut out) {
        depth(&index, &edges, &components, &weights, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// The problem with calling built-in `name` with `n` arguments, if any.
fn builtin_problem(name: &str, n: usize, settings: &Settings) -> Option<String> {
    if name == "print" {
        return None;
    }
    let (tagged, name) = (name, super::tags::public_name(name));
    let arity = settings
        .extensions
        .iter()
        .find(|(e, _)| *e == tagged)
        .map(|(_, a)| *a)
        .or_else(|| BUILTINS.get(name).map(|(_, a)| *a));
    let Some(arity) = arity else {
        return Some(format!("rego_type_error: undefined function {name}"));
    };
    if !settings.capabilities.allows(name, settings.fixed_clock) {
        return Some(format!(
            "rego_type_error: undefined function {name}: not allowed by the capabilities: {}",
            settings.capabilities.why_not(name)
        ));
    }
    if settings.strict && DEPRECATED.contains(&name) {
        return Some(format!("rego_type_error: deprecated built-in function calls in expression: {name}"));
    }
    // OPA also accepts one more argument: the output, unified with the result.
    let arity = usize::from(arity);
    if n != arity && n != arity + 1 {
        return Some(format!("rego_type_error: {name}: arity mismatch: {n} arguments given, {arity} expected"));
    }
    None
}

/// Rules and functions of every module, by path (`data.p.rule`).
struct Index {
    /// Per module: `data.<package>`.
    packages: Vec<String>,
    /// The first declaration of each rule: (path, line).
    rules: BTreeMap<String, (String, u32)>,
    /// Function paths and the arities they are declared with.
    functions: BTreeMap<String, BTreeSet<usize>>,
}

impl Index {
    fn new(modules: &[Ref<Module>]) -> Index {
        let mut index = Index { packages: Vec::new(), rules: BTreeMap::new(), functions: BTreeMap::new() };
        for module in modules {
            let pkg = match dotted(&module.package.refr) {
                Some(c) => format!("data.{}", c.join(".")),
                None => "data".to_string(),
            };
            let path = module.package.span.source.get_path().to_string();
            for rule in &module.policy {
                let Some(key) = rule_key(&pkg, rule) else { continue };
                index.rules.entry(key).or_insert((path.clone(), rule.span().line));
                let (refr, args) = match rule.as_ref() {
                    Rule::Spec { head: RuleHead::Func { refr, args, .. }, .. } => (refr, args.len()),
                    Rule::Default { refr, args, .. } if !args.is_empty() => (refr, args.len()),
                    _ => continue,
                };
                if let Some(c) = dotted(refr) {
                    index.functions.entry(format!("{pkg}.{}", c.join("."))).or_default().insert(args);
                }
            }
            index.packages.push(pkg);
        }
        index
    }

    /// The user function a call names, as a full path.
    fn resolve(&self, pkg: &str, imports: &BTreeMap<String, Vec<String>>, name: &[String]) -> Option<String> {
        let first = name.first()?;
        let full = if first == "data" {
            name.join(".")
        } else if let Some(target) = imports.get(first) {
            target.iter().chain(&name[1..]).cloned().collect::<Vec<_>>().join(".")
        } else {
            format!("{pkg}.{}", name.join("."))
        };
        self.functions.contains_key(&full).then_some(full)
    }

    /// The rule a `data.…` reference reaches (its longest prefix that is a rule).
    fn rule_prefix(&self, chain: &[String]) -> Option<String> {
        (2..=chain.len()).rev().map(|n| chain[..n].join(".")).find(|p| self.rules.contains_key(p))
    }
}

/// A rule's path: its package and the first part of its head (`data.main.deny`).
fn rule_key(pkg: &str, rule: &Ref<Rule>) -> Option<String> {
    let refr = match rule.as_ref() {
        Rule::Spec { head, .. } => match head {
            RuleHead::Compr { refr, .. } | RuleHead::Set { refr, .. } | RuleHead::Func { refr, .. } => refr,
        },
        Rule::Default { refr, .. } => refr,
    };
    let comps = regorus::unstable::Parser::get_path_ref_components(refr).ok()?;
    Some(format!("{pkg}.{}", comps.first()?.text()))
}

/// A reference as its static parts: `a.b["c"]` is `[a, b, c]`; `None` when a part is not static.
fn dotted(e: &Ref<Expr>) -> Option<Vec<String>> {
    match e.as_ref() {
        Expr::Var { span, .. } => Some(vec![span.text().to_string()]),
        Expr::RefDot { refr, field, .. } => {
            let mut c = dotted(refr)?;
            c.push(field.0.text().to_string());
            Some(c)
        }
        Expr::RefBrack { refr, index, .. } => {
            let mut c = dotted(refr)?;
            match index.as_ref() {
                Expr::String { value, .. } => c.push(value.as_string().ok()?.to_string()),
                _ => return None,
            }
            Some(c)
        }
        _ => None,
    }
}

/// A call's function as its dotted name (`rego.metadata.rule`), when it is static.
pub(super) fn dotted_name(e: &Ref<Expr>) -> Option<String> {
    dotted(e).map(|c| c.join("."))
}

/// A module's imports by the name they bind: `import data.lib` binds `lib` to `data.lib`.
fn imports_of(module: &Module) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for import in &module.imports {
        let Some(path) = dotted(&import.refr) else { continue };
        let name = match &import.r#as {
            Some(alias) => alias.text().to_string(),
            None => path.last().cloned().unwrap_or_default(),
        };
        out.insert(name, path);
    }
    out
}

/// The expressions of a rule outside its bodies' queries (not the name it declares).
pub(super) fn rule_exprs(rule: &Ref<Rule>) -> Vec<Ref<Expr>> {
    let mut out = Vec::new();
    match rule.as_ref() {
        Rule::Spec { head, bodies, .. } => {
            match head {
                RuleHead::Compr { assign, .. } => {
                    out.extend(assign.iter().map(|a| a.value.clone()));
                }
                RuleHead::Set { key, .. } => {
                    out.extend(key.iter().cloned());
                }
                RuleHead::Func { args, assign, .. } => {
                    out.extend(args.iter().cloned());
                    out.extend(assign.iter().map(|a| a.value.clone()));
                }
            }
            for b in bodies {
                out.extend(b.assign.iter().map(|a| a.value.clone()));
            }
        }
        Rule::Default { args, value, .. } => {
            out.extend(args.iter().cloned());
            out.push(value.clone());
        }
    }
    out
}

pub(super) fn rule_queries(rule: &Ref<Rule>) -> Vec<Ref<Query>> {
    match rule.as_ref() {
        Rule::Spec { bodies, .. } => bodies.iter().map(|b| b.query.clone()).collect(),
        Rule::Default { .. } => Vec::new(),
    }
}

/// Names a rule binds itself (function arguments, `:=`, `some`, `every`): they shadow rules.
fn locals_of(rule: &Ref<Rule>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let vars_in = |e: &Ref<Expr>, out: &mut BTreeSet<String>| {
        walk(e, &mut |x| {
            if let Expr::Var { span, .. } = x.as_ref() {
                out.insert(span.text().to_string());
            }
        })
    };
    if let Rule::Spec { head: RuleHead::Func { args, .. }, .. } | Rule::Default { args, .. } = rule.as_ref() {
        for a in args {
            vars_in(a, &mut out);
        }
    }
    let mut bound = Vec::new();
    for q in rule_queries(rule) {
        walk_query(&q, &mut |e| {
            if let Expr::AssignExpr { op: regorus::unstable::AssignOp::ColEq, lhs, .. } = e.as_ref() {
                bound.push(lhs.clone());
            }
        });
        collect_some(&q, &mut out);
    }
    for b in bound {
        vars_in(&b, &mut out);
    }
    out
}

fn collect_some(q: &Query, out: &mut BTreeSet<String>) {
    for stmt in &q.stmts {
        match &stmt.literal {
            Literal::SomeVars { vars, .. } => out.extend(vars.iter().map(|v| v.text().to_string())),
            Literal::SomeIn { key, value, .. } => {
                for e in key.iter().chain(std::iter::once(value)) {
                    walk(e, &mut |x| {
                        if let Expr::Var { span, .. } = x.as_ref() {
                            out.insert(span.text().to_string());
                        }
                    });
                }
            }
            Literal::Every { key, value, query, .. } => {
                out.extend(key.iter().map(|k| k.text().to_string()));
                out.insert(value.text().to_string());
                collect_some(query, out);
            }
            _ => {}
        }
    }
}

/// Visits `e` and every expression inside it (comprehension bodies included).
pub(super) fn walk(e: &Ref<Expr>, f: &mut dyn FnMut(&Ref<Expr>)) {
    f(e);
    match e.as_ref() {
        Expr::Array { items, .. } | Expr::Set { items, .. } => items.iter().for_each(|i| walk(i, f)),
        Expr::Object { fields, .. } => {
            for (_, k, v) in fields {
                walk(k, f);
                walk(v, f);
            }
        }
        Expr::ArrayCompr { term, query, .. } | Expr::SetCompr { term, query, .. } => {
            walk(term, f);
            walk_query(query, f);
        }
        Expr::ObjectCompr { key, value, query, .. } => {
            walk(key, f);
            walk(value, f);
            walk_query(query, f);
        }
        Expr::Call { fcn, params, .. } => {
            walk(fcn, f);
            params.iter().for_each(|p| walk(p, f));
        }
        Expr::UnaryExpr { expr, .. } => walk(expr, f),
        Expr::RefDot { refr, .. } => walk(refr, f),
        Expr::RefBrack { refr, index, .. } => {
            walk(refr, f);
            walk(index, f);
        }
        Expr::BinExpr { lhs, rhs, .. }
        | Expr::BoolExpr { lhs, rhs, .. }
        | Expr::ArithExpr { lhs, rhs, .. }
        | Expr::AssignExpr { lhs, rhs, .. } => {
            walk(lhs, f);
            walk(rhs, f);
        }
        Expr::Membership { key, value, collection, .. } => {
            if let Some(k) = key {
                walk(k, f);
            }
            walk(value, f);
            walk(collection, f);
        }
        _ => {}
    }
}

pub(super) fn walk_query(q: &Query, f: &mut dyn FnMut(&Ref<Expr>)) {
    for stmt in &q.stmts {
        walk_literal(&stmt.literal, f);
        for w in &stmt.with_mods {
            walk(&w.refr, f);
            walk(&w.r#as, f);
        }
    }
}

/// Every expression of a literal, nested queries included.
pub(super) fn walk_literal(literal: &Literal, f: &mut dyn FnMut(&Ref<Expr>)) {
    match literal {
        Literal::SomeVars { .. } => {}
        Literal::SomeIn { key, value, collection, .. } => {
            if let Some(k) = key {
                walk(k, f);
            }
            walk(value, f);
            walk(collection, f);
        }
        Literal::Expr { expr, .. } | Literal::NotExpr { expr, .. } => walk(expr, f),
        Literal::Every { domain, query, .. } => {
            walk(domain, f);
            walk_query(query, f);
        }
    }
}

/// The most rules of one cycle reported each with its own path; the rest of a larger cycle
/// (only a generated or hostile policy has one) are counted in one problem.
const MAX_CYCLE_REPORTS: usize = 64;

/// Rules that depend on themselves, each reported at its first declaration with the cycle.
/// Reports each rule that can reach itself, with the path OPA's compiler would show: a
/// depth-first search from the rule, first visit wins, neighbours in name order. The search
/// runs only inside the rule's strongly connected component (a path back to the rule cannot
/// leave it), with parent links instead of copied trails, so a long chain of rules costs
/// linear time rather than cubic.
/// Returns whether there was a cycle.
fn recursion(
    index: &Index,
    edges: &BTreeMap<String, BTreeSet<String>>,
    components: &[Vec<String>],
    out: &mut Vec<Problem>,
) -> bool {
    let mut any = false;
    for component in components {
        let members: BTreeSet<&str> = component.iter().map(String::as_str).collect();
        let cyclic = component.len() > 1 || edges.get(&component[0]).is_some_and(|n| n.contains(&component[0]));
        if !cyclic {
            continue;
        }
        any = true;
        for (reported, start) in members.iter().enumerate() {
            if reported == MAX_CYCLE_REPORTS {
                let (path, line) = index.rules.get(*start).cloned().unwrap_or_default();
                out.push(Problem {
                    path,
                    line,
                    message: format!(
                        "rego_recursion_error: {} more rules are recursive in the same cycle",
                        members.len() - MAX_CYCLE_REPORTS
                    ),
                });
                break;
            }
            if let Some(cycle) = cycle_from(start, edges, &members)
                && let Some((path, line)) = index.rules.get(*start)
            {
                out.push(Problem {
                    path: path.clone(),
                    line: *line,
                    message: format!("rego_recursion_error: rule {start} is recursive: {}", cycle.join(" -> ")),
                });
            }
        }
    }
    any
}

/// The path from `start` back to itself found by the depth-first search described above,
/// staying inside `members`.
fn cycle_from<'a>(
    start: &'a str,
    edges: &'a BTreeMap<String, BTreeSet<String>>,
    members: &BTreeSet<&'a str>,
) -> Option<Vec<&'a str>> {
    let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut stack = vec![start];
    while let Some(node) = stack.pop() {
        let Some(next) = edges.get(node) else { continue };
        if next.contains(start) {
            let mut trail = vec![start, node];
            let mut at = node;
            while at != start {
                at = parent[at];
                trail.push(at);
            }
            trail.reverse();
            return Some(trail);
        }
        for n in next.iter().rev() {
            if members.contains(n.as_str()) && seen.insert(n.as_str()) {
                parent.insert(n.as_str(), node);
                stack.push(n.as_str());
            }
        }
    }
    None
}

/// The deepest chain of rule dependencies a policy set may have, counted in statements
/// (each rule weighs the statements of its bodies, comprehensions and `every` included, plus
/// one). Regorus evaluates a rule it depends on, and each statement after a generator, one
/// stack frame deeper; a generated or hostile policy must get a `policy-error`, not a stack
/// overflow. Real policies stay under a hundred.
pub const MAX_RULE_DEPTH: usize = 4000;

/// The statements of `q`, nested queries included.
fn statements(q: &Query) -> usize {
    let mut n = q.stmts.len();
    for stmt in &q.stmts {
        if let Literal::Every { query, .. } = &stmt.literal {
            n += statements(query);
        }
    }
    walk_query(q, &mut |e| {
        if let Expr::ArrayCompr { query, .. } | Expr::SetCompr { query, .. } | Expr::ObjectCompr { query, .. } =
            e.as_ref()
        {
            n += query.stmts.len();
        }
    });
    n
}

/// Refuses a dependency chain deeper than [`MAX_RULE_DEPTH`] (the rule graph has no cycle:
/// `components` come from Tarjan's algorithm, each after every component it reaches).
fn depth(
    index: &Index,
    edges: &BTreeMap<String, BTreeSet<String>>,
    components: &[Vec<String>],
    weights: &BTreeMap<String, usize>,
    out: &mut Vec<Problem>,
) {
    // Without a cycle each component is one rule, and every rule it reads came before it.
    let mut deepest: BTreeMap<&str, usize> = BTreeMap::new();
    for component in components {
        let rule = component[0].as_str();
        let below = edges
            .get(rule)
            .into_iter()
            .flatten()
            .map(|n| deepest.get(n.as_str()).copied().unwrap_or(0))
            .max()
            .unwrap_or(0);
        let d = weights.get(rule).copied().unwrap_or(1) + below;
        deepest.insert(rule, d);
        if d > MAX_RULE_DEPTH {
            let (path, line) = index.rules.get(rule).cloned().unwrap_or_default();
            out.push(Problem {
                path,
                line,
                message: format!(
                    "rego_compile_error: rule {rule} depends on other rules {d} statements deep (at most {MAX_RULE_DEPTH}: evaluating it could exhaust the stack)"
                ),
            });
            return;
        }
    }
}

/// The strongly connected components of the rule graph (Tarjan's algorithm, iterative: a
/// chain of many rules must not overflow the stack).
fn components(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let nodes: Vec<&str> = edges.keys().map(String::as_str).collect();
    let mut index_of: BTreeMap<&str, usize> = BTreeMap::new();
    let mut low: BTreeMap<&str, usize> = BTreeMap::new();
    let mut on_stack: BTreeSet<&str> = BTreeSet::new();
    let mut stack: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    let mut counter = 0;
    let empty = BTreeSet::new();
    for root in nodes {
        if index_of.contains_key(root) {
            continue;
        }
        // Each frame: a node and the iterator over its successors.
        let mut frames: Vec<(&str, std::collections::btree_set::Iter<String>)> = Vec::new();
        index_of.insert(root, counter);
        low.insert(root, counter);
        counter += 1;
        stack.push(root);
        on_stack.insert(root);
        frames.push((root, edges.get(root).unwrap_or(&empty).iter()));
        while let Some((node, successors)) = frames.last_mut() {
            let node = *node;
            if let Some(next) = successors.next() {
                let next = next.as_str();
                if !index_of.contains_key(next) {
                    index_of.insert(next, counter);
                    low.insert(next, counter);
                    counter += 1;
                    stack.push(next);
                    on_stack.insert(next);
                    frames.push((next, edges.get(next).unwrap_or(&empty).iter()));
                } else if on_stack.contains(next) {
                    let l = low[node].min(index_of[next]);
                    low.insert(node, l);
                }
                continue;
            }
            frames.pop();
            if let Some((up, _)) = frames.last() {
                let l = low[*up].min(low[node]);
                low.insert(*up, l);
            }
            if low[node] == index_of[node] {
                let mut component = Vec::new();
                while let Some(top) = stack.pop() {
                    on_stack.remove(top);
                    component.push(top.to_string());
                    if top == node {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

fn strict_imports(module: &Module, imports: &BTreeMap<String, Vec<String>>, path: &str, out: &mut Vec<Problem>) {
    let mut used = BTreeSet::new();
    for rule in &module.policy {
        let mut visit = |e: &Ref<Expr>| {
            if let Expr::Var { span, .. } = e.as_ref() {
                used.insert(span.text().to_string());
            }
        };
        for e in rule_exprs(rule) {
            walk(&e, &mut visit);
        }
        for q in rule_queries(rule) {
            walk_query(&q, &mut visit);
        }
    }
    let mut bound: BTreeMap<String, u32> = BTreeMap::new();
    for import in &module.imports {
        let Some(target) = dotted(&import.refr) else { continue };
        if matches!(target.first().map(String::as_str), Some("future" | "rego")) {
            continue;
        }
        let name =
            import.r#as.as_ref().map_or_else(|| target.last().cloned().unwrap_or_default(), |a| a.text().to_string());
        let line = import.span.line;
        if let Some(first) = bound.insert(name.clone(), line) {
            out.push(Problem {
                path: path.into(),
                line,
                message: format!("rego_compile_error: import {} shadows the import at line {first}", target.join(".")),
            });
        } else if !used.contains(&name) && imports.contains_key(&name) {
            out.push(Problem {
                path: path.into(),
                line,
                message: format!("rego_compile_error: import {} unused", target.join(".")),
            });
        }
    }
}

fn strict_locals(queries: &[Ref<Query>], uses: &BTreeMap<String, usize>, path: &str, out: &mut Vec<Problem>) {
    for q in queries {
        walk_query(q, &mut |e| {
            if let Expr::AssignExpr { op: regorus::unstable::AssignOp::ColEq, lhs, span, .. } = e.as_ref()
                && let Expr::Var { span: var, .. } = lhs.as_ref()
                && var.text() != "_"
                && uses.get(var.text()).copied().unwrap_or(0) <= 1
            {
                out.push(Problem {
                    path: path.into(),
                    line: span.line,
                    message: format!("rego_compile_error: assigned var {} unused", var.text()),
                });
            }
        });
    }
}

/// OPA's strict-mode check of function arguments (`rewriteLocalVars`): an argument that no
/// body, `else` branch or value uses is an error at the function's head. `_` is exempt.
/// `uses`: how often each name occurs in the rule, arguments included.
fn strict_args(rule: &Ref<Rule>, uses: &BTreeMap<String, usize>, path: &str, out: &mut Vec<Problem>) {
    let Rule::Spec { head: RuleHead::Func { args, span, .. }, .. } = rule.as_ref() else { return };
    let mut in_args: BTreeMap<String, usize> = BTreeMap::new();
    for a in args {
        walk(a, &mut |e| {
            if let Expr::Var { span, .. } = e.as_ref() {
                *in_args.entry(span.text().to_string()).or_default() += 1;
            }
        });
    }
    for (name, n) in in_args {
        // An argument named `input` or `data` is a reference in OPA, not a variable (and an
        // error of its own, see `root_overrides`).
        if !matches!(name.as_str(), "_" | "input" | "data") && uses.get(&name).copied().unwrap_or(0) <= n {
            out.push(Problem {
                path: path.into(),
                line: span.line,
                message: format!(
                    "rego_compile_error: unused argument {name}. (hint: use _ (wildcard variable) instead)"
                ),
            });
        }
    }
}

/// OPA 1.x's `checkRootDocumentOverrides` (strict or not): a rule, a `:=` local or a
/// function argument named `input` or `data` would hide the document of that name. (regorus
/// refuses the first two when parsing; [`super::engine`] words its error as OPA does.)
fn root_overrides(rule: &Ref<Rule>, queries: &[Ref<Query>], path: &str, out: &mut Vec<Problem>) {
    const ROOTS: [&str; 2] = ["input", "data"];
    let mut at = |line: u32, message: String| out.push(Problem { path: path.into(), line, message });
    let (refr, args) = match rule.as_ref() {
        Rule::Spec { head: RuleHead::Compr { refr, .. } | RuleHead::Set { refr, .. }, .. } => (refr, &[][..]),
        Rule::Spec { head: RuleHead::Func { refr, args, .. }, .. } | Rule::Default { refr, args, .. } => {
            (refr, &args[..])
        }
    };
    if let Some(name) = dotted(refr).and_then(|c| c.first().cloned())
        && ROOTS.contains(&name.as_str())
    {
        at(rule.span().line, format!("rego_compile_error: rules must not shadow {name} (use a different rule name)"));
    }
    for a in args {
        if let Expr::Var { span, .. } = a.as_ref()
            && ROOTS.contains(&span.text())
        {
            at(
                span.line,
                format!("rego_compile_error: args must not shadow {} (use a different variable name)", span.text()),
            );
        }
    }
    for q in queries {
        walk_query(q, &mut |e| {
            if let Expr::AssignExpr { op: regorus::unstable::AssignOp::ColEq, lhs, span, .. } = e.as_ref()
                && let Expr::Var { span: var, .. } = lhs.as_ref()
                && ROOTS.contains(&var.text())
            {
                at(
                    span.line,
                    format!(
                        "rego_compile_error: variables must not shadow {} (use a different variable name)",
                        var.text()
                    ),
                );
            }
        });
    }
}
