//! The differential table: expressions × inputs whose expected values were recorded from a
//! second CEL implementation, cel-python (`scripts/record-cel.py`; the version is in the
//! table's `recorded_with`). Where Kubernetes' cel-go differs from cel-python, the case says
//! so (`kubernetes`, `why`) and the Kubernetes result is expected.

use serde_json::Value;

#[test]
fn our_cel_agrees_with_the_recorded_table() {
    let table: Value = serde_json::from_str(include_str!("data/differential.json")).unwrap();
    let cases = table["cases"].as_array().unwrap();
    assert!(cases.len() >= 60, "the table has {} cases", cases.len());
    assert!(table["recorded_with"].as_str().is_some_and(|r| r.starts_with("cel-python")));
    let mut failures = Vec::new();
    for case in cases {
        let expr = case["expr"].as_str().unwrap();
        let input = &table["inputs"][case["input"].as_str().unwrap()];
        let want = case.get("kubernetes").unwrap_or(&case["expect"]).as_str().unwrap();
        let got = match driftlint_cel::value_untyped(expr, input) {
            Ok(Ok(v)) => v,
            Ok(Err(_)) => "error".to_string(),
            Err(e) => format!("compile error: {e}"),
        };
        if got != want {
            failures.push(format!("{expr}  (self = {})\n    want {want}\n    got  {got}", case["input"]));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
