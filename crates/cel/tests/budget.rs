//! The budgets beyond one evaluation: Kubernetes' per-object budget shared by every rule
//! evaluated on one object, the run's shared by every object, regular expressions charged
//! what compiling them may cost, and how an evaluation that fails is told from one whose
//! operands' types no overload takes.

use driftlint_cel::cost::{Budget, Limit, MAX_STEPS, OBJECT_STEPS};
use driftlint_cel::{Input, Outcome, RuleSpec, Untyped, compile};
use serde_json::json;

fn rule(text: &str) -> driftlint_cel::Rule {
    compile(&RuleSpec { rule: text, ..RuleSpec::default() }).unwrap()
}

/// A rule costing about a third of the per-expression budget whatever `self` is.
fn third_of_a_call() -> driftlint_cel::Rule {
    let list = format!("[{}]", (0..200).map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
    rule(&format!("{list}.all(a, {list}.all(b, a + b >= 0))"))
}

#[test]
fn an_objects_evaluations_share_its_budget_and_the_next_object_starts_afresh() {
    let r = third_of_a_call();
    let input = Input::new::<Untyped>(&json!("x"), None);
    let mut budget = Budget::default();
    let mut ok = 0;
    let stopped = loop {
        match r.evaluate(&input, &mut budget) {
            Outcome::Ok => ok += 1,
            other => break other,
        }
        assert!(ok < 1000, "never stopped");
    };
    assert_eq!(stopped, Outcome::OverBudget(Limit::Object));
    let per_call = (OBJECT_STEPS / ok as u64) as f64;
    assert!(per_call > MAX_STEPS as f64 / 4.0 && per_call < MAX_STEPS as f64, "{ok} evaluations");
    // Spent: nothing more runs on this object.
    assert_eq!(budget.spent(), Some(Limit::Object));
    assert_eq!(r.evaluate(&input, &mut budget), Outcome::OverBudget(Limit::Object));
    budget.start_object();
    assert_eq!(r.evaluate(&input, &mut budget), Outcome::Ok);
}

#[test]
fn the_runs_budget_outlasts_objects() {
    let r = third_of_a_call();
    let input = Input::new::<Untyped>(&json!("x"), None);
    let one = {
        let mut b = Budget::default();
        assert_eq!(r.evaluate(&input, &mut b), Outcome::Ok);
        Budget::default().run_left() - b.run_left()
    };
    // A run of two and a half evaluations, one object each.
    let mut budget = Budget::with_run(one * 5 / 2);
    let mut outcomes = Vec::new();
    for _ in 0..4 {
        budget.start_object();
        outcomes.push(r.evaluate(&input, &mut budget));
    }
    let stopped = Outcome::OverBudget(Limit::Run);
    assert_eq!(outcomes, [Outcome::Ok, Outcome::Ok, stopped.clone(), stopped], "{one} steps each");
    assert_eq!(budget.run_left(), 0);
    budget.start_object();
    assert_eq!(budget.spent(), Some(Limit::Run));
}

/// The review's shape: 100 patterns near the compiled-size limit in one rule took 7.5 s,
/// charged a step each. Each pattern is distinct (nothing compiled is reused).
#[test]
fn a_hundred_near_limit_regular_expressions_stop_at_the_expression_budget() {
    let calls: Vec<String> = (0..100).map(|i| format!("self.matches('\\\\pL{{60}}{i}')")).collect();
    let r = rule(&calls.join(" || "));
    let input = Input::new::<Untyped>(&json!("x"), None);
    let mut budget = Budget::default();
    assert_eq!(r.evaluate(&input, &mut budget), Outcome::OverBudget(Limit::Expression));
    // The same with `find`, and as `matches(s, re)`.
    let calls: Vec<String> = (0..100).map(|i| format!("self.find('\\\\pL{{60}}{i}') == ''")).collect();
    assert_eq!(rule(&calls.join(" && ")).evaluate(&input, &mut budget), Outcome::OverBudget(Limit::Expression));
    // A small pattern costs its first tier, compiled or kept, and once per object: 2,000
    // items matched cost little more than one.
    let spent = |text: &str, json: serde_json::Value| {
        let mut fresh = Budget::default();
        assert_eq!(rule(text).evaluate(&Input::new::<Untyped>(&json, None), &mut fresh), Outcome::Ok);
        Budget::default().run_left() - fresh.run_left()
    };
    for _ in 0..2 {
        let one = spent("matches(self, '^[a-z]+$')", json!("x"));
        assert!((2_000..3_000).contains(&one), "{one}");
    }
    let items: Vec<String> = (0..2000).map(|i| format!("item{i}")).collect();
    let all = spent("self.all(x, x.matches('^item[0-9]+$'))", json!(items));
    assert!(all < 2_000 * 150 + 3_000, "{all}");
}

#[test]
fn a_pattern_past_the_compiled_size_limit_is_an_error() {
    let input = Input::new::<Untyped>(&json!("x"), None);
    let o = rule("self.matches('\\\\pL{1000}\\\\pL{1000}')").evaluate(&input, &mut Budget::default());
    assert!(matches!(&o, Outcome::Error(m) if m.contains("invalid regular expression")), "{o:?}");
    let o = rule("self.matches('(')").evaluate(&input, &mut Budget::default());
    assert!(matches!(&o, Outcome::Error(m) if m.contains("invalid regular expression")), "{o:?}");
}

#[test]
fn failures_and_type_mismatches_are_told_apart() {
    let input = Input::new::<Untyped>(&json!({"a": "2030-01-01T00:00:00Z", "n": 0}), None);
    let mut budget = Budget::default();
    for failing in ["self.missing == 'x'", "1 / self.n > 0", "[1][3] == 1"] {
        let o = rule(failing).evaluate(&input, &mut budget);
        assert!(matches!(o, Outcome::Error(_)), "{failing}: {o:?}");
    }
    for mismatch in ["self.a < timestamp('2031-01-01T00:00:00Z')", "self.a + 1 == 2"] {
        let o = rule(mismatch).evaluate(&input, &mut budget);
        assert!(matches!(o, Outcome::Mismatch(_)), "{mismatch}: {o:?}");
    }
}

/// A list built from a number (`lists.range`) is bounded (the `cel` crate refuses more than a
/// million items) and two-variable comprehensions are charged as they go: each stops at the
/// expression budget instead of running on.
#[test]
fn ranges_and_two_variable_comprehensions_stop_at_the_expression_budget() {
    let input = Input::new::<Untyped>(&json!("x"), None);
    let o = rule("size(lists.range(100000000)) > 0").evaluate(&input, &mut Budget::default());
    assert!(matches!(&o, Outcome::Error(m) if m.contains("exceeds maximum allowed")), "{o:?}");
    for text in [
        "size(lists.range(1000000)) > 0 && lists.range(1000000).all(x, x >= 0)",
        "lists.range(100000).all(i, v, i == v)",
        "lists.range(100000).transformMap(i, v, v * 2).size() > 0",
        "lists.range(1000).transformList(i, v, lists.range(100000)).size() > 0",
    ] {
        let o = rule(text).evaluate(&input, &mut Budget::default());
        assert_eq!(o, Outcome::OverBudget(Limit::Expression), "{text}");
    }
}
