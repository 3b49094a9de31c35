//! Where regorus reads valid Rego differently from OPA, the module text is rewritten (by us,
//! before regorus compiles it) into an equivalent one regorus reads as OPA does. Lines never
//! move, so every location stays right.
//!
//! **`import input`** (without `as`) is blanked out: it changes nothing in OPA, and regorus
//! would print a raw warning quoting the line to standard error.
//!
//! **Comprehension locals declared later**. OPA scopes a variable declared
//! with `:=` from its declaration on; a comprehension earlier in the same body that uses the
//! name has its own local of that name (conftest's `examples/combine` shape:
//! `names := {n | input[n]}; n := count(names)`). regorus sees one variable used before its
//! definition and refuses the module. The rewrite gives the comprehension's variable a name of
//! its own (`n` becomes `n__c1`), which is what OPA's compiler does internally.

use std::collections::{BTreeMap, BTreeSet};

use regorus::unstable::{AssignOp, Expr, Literal, Module, Query, Ref, Rule};

use super::compile::{walk, walk_literal};

/// The module text rewritten, or `None` when nothing needs it. `dir`: the index of the
/// module's directory, whose copies of conftest's file built-ins its calls are renamed to
/// ([`super::files`]); `index`: the module's, whose rules' calls of `rego.metadata.*` are
/// renamed to each rule's copy ([`super::metadata`]).
pub fn module(text: &str, module: &Module, dir: usize, index: usize) -> Option<String> {
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    file_call_edits(module, dir, &mut edits);
    metadata_call_edits(module, index, &mut edits);
    for import in &module.imports {
        if import.r#as.is_none()
            && let Expr::Var { span, .. } = import.refr.as_ref()
            && span.text() == "input"
        {
            let (start, end) = (import.span.start as usize, import.span.end as usize);
            edits.push((start, end, " ".repeat(end.saturating_sub(start))));
        }
    }
    let mut counter = 0usize;
    for rule in &module.policy {
        if let Rule::Spec { bodies, .. } = rule.as_ref() {
            for body in bodies {
                body_edits(&body.query, &BTreeSet::new(), &mut edits, &mut counter);
            }
        }
    }
    if edits.is_empty() {
        return None;
    }
    edits.sort();
    edits.dedup_by(|a, b| a.0 == b.0);
    let mut out = String::with_capacity(text.len() + edits.len() * 4);
    let mut at = 0;
    for (start, end, name) in edits {
        if start < at || end > text.len() || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            return None;
        }
        out.push_str(&text[at..start]);
        out.push_str(&name);
        at = end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// Calls of conftest's file built-ins renamed to the copy for directory `dir`.
fn file_call_edits(module: &Module, dir: usize, edits: &mut Vec<(usize, usize, String)>) {
    let mut visit = |e: &Ref<Expr>| {
        if let Expr::Call { fcn, .. } = e.as_ref()
            && let Expr::Var { span, .. } = fcn.as_ref()
            && let Some((base, _)) = super::tags::FILE_BUILTINS.iter().find(|(b, _)| *b == span.text())
        {
            edits.push((span.start as usize, span.end as usize, super::tags::for_dir(base, dir)));
        }
    };
    for rule in &module.policy {
        for e in super::compile::rule_exprs(rule) {
            walk(&e, &mut visit);
        }
        for q in super::compile::rule_queries(rule) {
            super::compile::walk_query(&q, &mut visit);
        }
    }
}

/// Calls of `rego.metadata.rule`/`chain` renamed to the calling rule's copy.
fn metadata_call_edits(module: &Module, index: usize, edits: &mut Vec<(usize, usize, String)>) {
    for (ri, rule) in module.policy.iter().enumerate() {
        let mut visit = |e: &Ref<Expr>| {
            if let Expr::Call { fcn, .. } = e.as_ref()
                && let Some(name) = super::compile::dotted_name(fcn)
                && super::tags::METADATA_BUILTINS.contains(&name.as_str())
            {
                let span = fcn.span();
                edits.push((span.start as usize, span.end as usize, super::tags::for_rule(&name, index, ri)));
            }
        };
        for e in super::compile::rule_exprs(rule) {
            walk(&e, &mut visit);
        }
        for q in super::compile::rule_queries(rule) {
            super::compile::walk_query(&q, &mut visit);
        }
    }
}

fn body_edits(query: &Query, outer: &BTreeSet<String>, edits: &mut Vec<(usize, usize, String)>, counter: &mut usize) {
    let stmts = &query.stmts;
    // How many later statements declare each name with `:=` (kept current as `k` advances),
    // and the names the body used before statement `k`: those are the body's own.
    let declared: Vec<BTreeSet<String>> = stmts.iter().map(|s| declares(&s.literal)).collect();
    let mut later: BTreeMap<String, usize> = BTreeMap::new();
    for name in declared.iter().flatten() {
        *later.entry(name.clone()).or_default() += 1;
    }
    unbound_some_edits(query, edits);
    let mut before = BTreeSet::new();
    for (k, stmt) in stmts.iter().enumerate() {
        for name in &declared[k] {
            if let Some(n) = later.get_mut(name) {
                *n -= 1;
            }
        }
        let declared_later = |name: &str| later.get(name).is_some_and(|n| *n > 0);
        let mut comprehensions = Vec::new();
        let mut outside = BTreeSet::new();
        top_level(&stmt.literal, &mut comprehensions, &mut outside);
        for c in &comprehensions {
            let mut occurrences: Vec<(String, usize, usize)> = Vec::new();
            walk(c, &mut |e| {
                if let Expr::Var { span, .. } = e.as_ref() {
                    occurrences.push((span.text().to_string(), span.start as usize, span.end as usize));
                }
            });
            let names: BTreeSet<&String> = occurrences.iter().map(|o| &o.0).collect();
            for name in names {
                if name == "_" || !declared_later(name) || before.contains(name) || outside.contains(name) {
                    continue;
                }
                *counter += 1;
                let fresh = format!("{name}__c{counter}");
                for (n, start, end) in &occurrences {
                    if n == name {
                        edits.push((*start, *end, fresh.clone()));
                    }
                }
            }
        }
        // The names this body has declared so far (this statement's included: its right-hand
        // side comes first, but a comprehension in it cannot see a later `:=` anyway).
        let mut in_scope = outer.clone();
        for earlier in &stmts[..=k] {
            in_scope.extend(declares(&earlier.literal));
            if let Literal::SomeVars { vars, .. } = &earlier.literal {
                in_scope.extend(vars.iter().map(|v| v.text().to_string()));
            }
        }
        // The comprehensions' own bodies get the same treatment.
        for c in &comprehensions {
            if let Expr::ArrayCompr { query, .. } | Expr::SetCompr { query, .. } | Expr::ObjectCompr { query, .. } =
                c.as_ref()
            {
                shadowing_edits(c, query, &in_scope, edits, counter);
                body_edits(query, &in_scope, edits, counter);
            }
        }
        literal_vars(&stmt.literal, &mut before);
    }
}

/// `some i` in a body that uses `i` only inside comprehensions, each of which binds it
/// (conftest's `examples/combine`: `some i` then `[u | input[i].kind == "team"; …]`). OPA
/// reads each comprehension's `i` as bound by that comprehension; regorus cannot schedule
/// the outer declaration, which nothing binds. The declaration becomes `true`.
fn unbound_some_edits(query: &Query, edits: &mut Vec<(usize, usize, String)>) {
    let mut outside = BTreeSet::new();
    let mut inside = BTreeSet::new();
    for stmt in &query.stmts {
        if matches!(stmt.literal, Literal::SomeVars { .. }) {
            continue;
        }
        let mut comprehensions = Vec::new();
        top_level(&stmt.literal, &mut comprehensions, &mut outside);
        for c in &comprehensions {
            walk(c, &mut |e| {
                if let Expr::Var { span, .. } = e.as_ref() {
                    inside.insert(span.text().to_string());
                }
            });
        }
        if let Literal::Every { .. } = stmt.literal {
            literal_vars(&stmt.literal, &mut outside);
        }
    }
    for stmt in &query.stmts {
        if let Literal::SomeVars { span, vars } = &stmt.literal
            && !vars.is_empty()
            && vars.iter().all(|v| !outside.contains(v.text()) && inside.contains(v.text()))
        {
            let (start, end) = (span.start as usize, span.end as usize);
            if end >= start + 4 {
                edits.push((start, end, format!("true{}", " ".repeat(end - start - 4))));
            }
        }
    }
}

/// A comprehension that declares with `:=` a name its enclosing body declared (`outer`), after
/// using that name: the statements before the `:=` read the enclosing body's variable, the
/// `:=` and everything after it (and the comprehension's term) a new local of the
/// comprehension, as OPA scopes them (conftest's `examples/combine`: `name := …; [name | …
/// input[i].contents.metadata.name == name; name := input[i].metadata.name]`). regorus sees
/// one variable used before its definition; the new local gets a name of its own.
fn shadowing_edits(
    compr: &Ref<Expr>,
    query: &Query,
    outer: &BTreeSet<String>,
    edits: &mut Vec<(usize, usize, String)>,
    counter: &mut usize,
) {
    let mut used = BTreeSet::new();
    for (j, stmt) in query.stmts.iter().enumerate() {
        // `some x` in a comprehension always declares a local of its own; `x :=` does where
        // it would otherwise be refused as a use before definition.
        let mut names: Vec<String> = match &stmt.literal {
            Literal::SomeVars { vars, .. } => vars.iter().map(|v| v.text().to_string()).collect(),
            _ => Vec::new(),
        };
        names.extend(declares(&stmt.literal).into_iter().filter(|n| used.contains(n)));
        for name in names {
            if name == "_" || !outer.contains(&name) {
                continue;
            }
            *counter += 1;
            let fresh = format!("{name}__c{counter}");
            let mut spans: Vec<(usize, usize)> = Vec::new();
            let mut rename = |e: &Ref<Expr>| {
                if let Expr::Var { span, .. } = e.as_ref()
                    && span.text() == name
                {
                    spans.push((span.start as usize, span.end as usize));
                }
            };
            for later in &query.stmts[j..] {
                walk_literal(&later.literal, &mut rename);
            }
            match compr.as_ref() {
                Expr::ArrayCompr { term, .. } | Expr::SetCompr { term, .. } => walk(term, &mut rename),
                Expr::ObjectCompr { key, value, .. } => {
                    walk(key, &mut rename);
                    walk(value, &mut rename);
                }
                _ => {}
            }
            for later in &query.stmts[j..] {
                if let Literal::SomeVars { vars, .. } = &later.literal {
                    spans.extend(vars.iter().filter(|v| v.text() == name).map(|v| (v.start as usize, v.end as usize)));
                }
            }
            edits.extend(spans.into_iter().map(|(start, end)| (start, end, fresh.clone())));
        }
        literal_vars(&stmt.literal, &mut used);
    }
}

/// The names a statement declares with `:=`.
fn declares(literal: &Literal) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Literal::Expr { expr, .. } = literal
        && let Expr::AssignExpr { op: AssignOp::ColEq, lhs, .. } = expr.as_ref()
    {
        walk(lhs, &mut |e| {
            if let Expr::Var { span, .. } = e.as_ref() {
                out.insert(span.text().to_string());
            }
        });
    }
    out
}

/// Every variable name a literal mentions (inside comprehensions too).
fn literal_vars(literal: &Literal, out: &mut BTreeSet<String>) {
    if let Literal::SomeVars { vars, .. } = literal {
        out.extend(vars.iter().map(|v| v.text().to_string()));
    }
    walk_literal(literal, &mut |e| {
        if let Expr::Var { span, .. } = e.as_ref() {
            out.insert(span.text().to_string());
        }
    });
}

/// The outermost comprehensions of a literal, and the variable names outside them.
fn top_level(literal: &Literal, comprehensions: &mut Vec<Ref<Expr>>, outside: &mut BTreeSet<String>) {
    fn visit(e: &Ref<Expr>, comprehensions: &mut Vec<Ref<Expr>>, outside: &mut BTreeSet<String>) {
        match e.as_ref() {
            Expr::ArrayCompr { .. } | Expr::SetCompr { .. } | Expr::ObjectCompr { .. } => {
                comprehensions.push(e.clone())
            }
            Expr::Var { span, .. } => {
                outside.insert(span.text().to_string());
            }
            _ => children(e, &mut |c| visit(c, comprehensions, outside)),
        }
    }
    let mut roots = Vec::new();
    match literal {
        Literal::SomeVars { vars, .. } => outside.extend(vars.iter().map(|v| v.text().to_string())),
        Literal::SomeIn { key, value, collection, .. } => {
            roots.extend(key.iter().cloned());
            roots.push(value.clone());
            roots.push(collection.clone());
        }
        Literal::Expr { expr, .. } | Literal::NotExpr { expr, .. } => roots.push(expr.clone()),
        // `every` has a body of its own.
        Literal::Every { .. } => return,
    }
    for r in roots {
        visit(&r, comprehensions, outside);
    }
}

/// The direct sub-expressions of `e` (comprehension bodies excluded).
fn children(e: &Ref<Expr>, f: &mut dyn FnMut(&Ref<Expr>)) {
    match e.as_ref() {
        Expr::Array { items, .. } | Expr::Set { items, .. } => items.iter().for_each(&mut *f),
        Expr::Object { fields, .. } => {
            for (_, k, v) in fields {
                f(k);
                f(v);
            }
        }
        Expr::Call { fcn, params, .. } => {
            f(fcn);
            params.iter().for_each(&mut *f);
        }
        Expr::UnaryExpr { expr, .. } => f(expr),
        Expr::RefDot { refr, .. } => f(refr),
        Expr::RefBrack { refr, index, .. } => {
            f(refr);
            f(index);
        }
        Expr::BinExpr { lhs, rhs, .. }
        | Expr::BoolExpr { lhs, rhs, .. }
        | Expr::ArithExpr { lhs, rhs, .. }
        | Expr::AssignExpr { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        Expr::Membership { key, value, collection, .. } => {
            if let Some(k) = key {
                f(k);
            }
            f(value);
            f(collection);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(body: &str) -> Option<String> {
        let text = format!("package a\ndeny contains msg if {{ {body} }}");
        let source = regorus::unstable::Source::from_contents("p.rego".into(), text.clone()).unwrap();
        let mut parser = regorus::unstable::Parser::new(&source).unwrap();
        parser.enable_rego_v1().unwrap();
        let parsed = parser.parse().unwrap();
        module(&text, &parsed, 0, 0).map(|t| t.lines().nth(1).unwrap().to_string())
    }

    #[test]
    fn import_input_is_blanked() {
        let text = "package a\nimport input\nx := 1";
        let source = regorus::unstable::Source::from_contents("p.rego".into(), text.into()).unwrap();
        let mut parser = regorus::unstable::Parser::new(&source).unwrap();
        parser.enable_rego_v1().unwrap();
        let parsed = parser.parse().unwrap();
        assert_eq!(module(text, &parsed, 0, 0).as_deref(), Some("package a\n            \nx := 1"));
    }

    #[test]
    fn comprehension_locals_declared_later_get_their_own_name() {
        assert_eq!(
            rewrite("names := {n | input[n]}; n := count(names); msg := n").as_deref(),
            Some("deny contains msg if { names := {n__c1 | input[n__c1]}; n := count(names); msg := n }")
        );
        assert_eq!(rewrite("msg := 1"), None);
        // A name the body used before is the body's own (a closure), and nothing else moves.
        assert_eq!(rewrite("input[n]; names := {n | input[n]}; msg := count(names)"), None);
        assert_eq!(rewrite("names := {x | input[x]}; msg := count(names)"), None);
    }

    #[test]
    fn a_comprehension_local_that_shadows_an_outer_one_after_reading_it_gets_its_own_name() {
        // conftest's examples/combine/policy/duplicate.rego, first rule.
        assert_eq!(
            rewrite("name := input[_].n; o := [name | input[i].m == name; name := input[i].k]; msg := count(o)")
                .as_deref(),
            Some(
                "deny contains msg if { name := input[_].n; o := [name__c1 | input[i].m == name; name__c1 := input[i].k]; msg := count(o) }"
            )
        );
        // conftest's examples/combine, second rule: an outer `some i` that only comprehensions
        // use (each binds its own), and a comprehension's own `some i`.
        assert_eq!(
            rewrite("some i; e := {m | some i; m := input[i].e}; o := [u | input[i].k == 1; u := input[i].o]; msg := count(e - {x | x := o[_]})")
                .as_deref(),
            Some(
                "deny contains msg if { true  ; e := {m | some i__c1; m := input[i__c1].e}; o := [u | input[i].k == 1; u := input[i].o]; msg := count(e - {x | x := o[_]}) }"
            )
        );
        // Declared in the comprehension before any use: nothing to do.
        assert_eq!(rewrite("name := 1; o := [name | name := input[_]]; msg := count(o)"), None);
    }
}
