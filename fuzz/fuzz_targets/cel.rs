//! CEL rules: the input's first line is JSON (`self`), the rest a rule. Whatever compiles is
//! evaluated twice, each time within a fresh run budget of a few per-expression budgets:
//! never a panic, never past its budget (a run's budget only shrinks, and an evaluation
//! takes at most the per-expression bound), and the same outcome and cost both times (what a
//! rule may do within its budget must not depend on what ran before, such as a regular
//! expression compiled and kept by the first evaluation).
#![no_main]

use driftlint_cel::cost::{Budget, MAX_STEPS};
use driftlint_cel::{Input, RuleSpec, Untyped};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (json, rule) = text.split_once('\n').unwrap_or(("{}", text));
    let value = serde_json::from_str::<serde_json::Value>(json).unwrap_or(serde_json::Value::Null);
    let spec = RuleSpec { rule, message_expression: Some("'message: ' + string(self)"), ..RuleSpec::default() };
    let Ok(compiled) = driftlint_cel::compile(&spec) else {
        return;
    };
    let _ = compiled.self_paths();
    let input = Input::new::<Untyped>(&value, None);
    let mut seen = None;
    for _ in 0..2 {
        let run = 3 * MAX_STEPS;
        let mut budget = Budget::with_run(run);
        let outcome = compiled.evaluate(&input, &mut budget);
        let spent = run - budget.run_left();
        // The rule and its message, each within the per-expression bound.
        assert!(spent <= 2 * MAX_STEPS, "{spent} steps");
        let now = (format!("{outcome:?}"), spent);
        if let Some(first) = &seen {
            assert_eq!(first, &now, "a second evaluation differs");
        }
        seen = Some(now);
    }
});
