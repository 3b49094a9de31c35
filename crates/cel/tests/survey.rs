//! Compiles every rule of a survey file (a JSON list of `x-kubernetes-validations` entries,
//! gathered from provider CRDs by hand; see docs/schemas.md) and counts the outcomes.
//! Ignored by default: `CEL_SURVEY=rules.json cargo test -p driftlint-cel --test survey -- --ignored --nocapture`.

use std::collections::BTreeMap;

#[test]
#[ignore]
fn compile_every_surveyed_rule() {
    let Ok(path) = std::env::var("CEL_SURVEY") else { return };
    let rules: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let started = std::time::Instant::now();
    for r in &rules {
        let spec = driftlint_cel::RuleSpec {
            rule: r["rule"].as_str().unwrap_or_default(),
            message: r["message"].as_str(),
            message_expression: r["messageExpression"].as_str(),
            field_path: r["fieldPath"].as_str(),
            reason: r["reason"].as_str(),
        };
        let key = match driftlint_cel::compile(&spec) {
            Ok(_) => "compiled".to_string(),
            Err(e) => format!("{e:?}"),
        };
        *outcomes.entry(key).or_default() += 1;
    }
    println!("{} rules in {:?}", rules.len(), started.elapsed());
    for (k, n) in outcomes {
        println!("{n:6}  {k}");
    }
}
