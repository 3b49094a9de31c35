//! CEL rules (`x-kubernetes-validations`) within their budgets, as a hostile repository meets
//! them: a rule on a list's items costs once per item, so an object's rules share Kubernetes'
//! per-object budget and a run's objects share the run's; a regular expression is charged
//! what compiling it may cost; a CRD's rules are compiled within a bound on their text. Going
//! over any of them is a finding naming what was not evaluated. Also: a rule that fails on
//! an object is an error (the API server rejects the object), and a transition rule is noted
//! once per run however many batches the run has. Runs are bounded by `ulimit -t` CPU
//! seconds, never by wall-clock assertions: a run that does not stop is killed and the test
//! fails on the signal.

use std::path::Path;
use std::process::{Command, Stdio};

use super::{Run, json};

/// CPU seconds a run may use: ample for a debug build within the budgets, far below what the
/// unbounded runs took (a 2 KB manifest took 16 s of a release build).
const CPU_SECONDS: u32 = 60;

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Runs `driftlint check --format json --schemas schemas FILES` in `dir` under the CPU limit;
/// panics when the kernel killed it.
fn check(dir: &Path, files: &[&str]) -> (i32, Vec<(String, String, String, String)>) {
    let script = format!("ulimit -t {CPU_SECONDS} && exec \"$0\" \"$@\"");
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_driftlint"))
        .args(["check", "--isolated", "--format", "json", "--schemas", "schemas"])
        .args(files)
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    let code =
        out.status.code().unwrap_or_else(|| panic!("driftlint was killed ({:?}): it hit the CPU limit", out.status));
    let r =
        Run { code, stdout: String::from_utf8(out.stdout).unwrap(), stderr: String::from_utf8(out.stderr).unwrap() };
    let found = json(&r)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let (rule, severity, at) = super::placed(d);
            (rule, severity, at, d["message"].as_str().unwrap().to_string())
        })
        .collect();
    (r.code, found)
}

fn crd(kind: &str, schema: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    let schema: String = schema.lines().map(|l| format!("          {l}\n")).collect();
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {lower}s.test.org\nspec:\n  group: test.org\n  names: {{kind: {kind}, plural: {lower}s}}\n  scope: Cluster\n  versions:\n    - name: v1alpha1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n{schema}"
    )
}

fn summary(found: &[(String, String, String, String)]) -> Vec<(&str, &str, &str)> {
    found.iter().map(|f| (f.0.as_str(), f.1.as_str(), f.2.as_str())).collect()
}

/// A rule on the items of a list of strings that costs about a third of the per-expression
/// budget whatever the item (it walks two literal lists of 200 numbers): cheap per item, but
/// evaluated once per item. The review's shape: a 2 KB manifest of 500 items took 16 s.
fn item_rule_crd() -> String {
    let numbers: Vec<String> = (0..200).map(|i| i.to_string()).collect();
    let list = format!("[{}]", numbers.join(", "));
    let rule = format!("{list}.all(a, {list}.all(b, a + b >= 0)) && self != ''");
    let schema = format!(
        "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      names:\n        type: array\n        items:\n          type: string\n          x-kubernetes-validations:\n            - rule: \"{rule}\"\n"
    );
    crd("Items", &schema)
}

fn items_object(name: &str, n: usize) -> String {
    let items: String = (0..n).map(|i| format!("    - n{i}\n")).collect();
    format!("apiVersion: test.org/v1alpha1\nkind: Items\nmetadata:\n  name: {name}\nspec:\n  names:\n{items}")
}

#[test]
fn an_objects_rules_share_the_per_object_budget() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "schemas/items.yaml", &item_rule_crd());
    write(dir.path(), "items.yaml", &items_object("many", 500));
    let (code, found) = check(dir.path(), &["items.yaml"]);
    assert_eq!((code, summary(&found)), (1, vec![("schema-cel-budget", "error", "items.yaml:1")]), "{found:?}");
    let message = &found[0].3;
    assert!(message.contains("the object's cost budget of 10000000 steps"), "{message}");
    // It names the rule (once, shortened) and the first items left unevaluated.
    assert_eq!(message.matches("`[0, 1, 2, 3").count(), 1, "{message}");
    assert!(message.contains("…` on `spec.names."), "{message}");
    assert!(message.contains(" more"), "{message}");
    // A short list stays within the budget: no finding.
    write(dir.path(), "few.yaml", &items_object("few", 5));
    assert_eq!(check(dir.path(), &["few.yaml"]), (0, vec![]));
}

/// Three such objects: the first spends its own budget, the second what is left of the run's
/// (twice an object's), and the third finds it spent. Each says which budget stopped it.
#[test]
fn a_runs_objects_share_the_runs_budget() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "schemas/items.yaml", &item_rule_crd());
    let objects: Vec<String> = (0..3).map(|i| items_object(&format!("o{i}"), 500)).collect();
    write(dir.path(), "items.yaml", &objects.join("---\n"));
    let (code, found) = check(dir.path(), &["items.yaml"]);
    let lines: Vec<String> = (0..3).map(|i| format!("items.yaml:{}", 1 + i * 507)).collect();
    let want: Vec<(&str, &str, &str)> = lines.iter().map(|l| ("schema-cel-budget", "error", l.as_str())).collect();
    assert_eq!((code, summary(&found)), (1, want), "{found:?}");
    assert!(found[0].3.contains("the object's cost budget of 10000000 steps"), "{found:?}");
    for f in &found[1..] {
        assert!(f.3.contains("the run's cost budget of 20000000 steps"), "{f:?}");
    }
    // The third object had nothing evaluated: all its 500 items are named or counted.
    assert!(found[2].3.starts_with("500 CEL rule evaluations"), "{:?}", found[2]);
}

/// The review's regular-expression shape: 100 distinct patterns near the compiled-size limit
/// in one rule took 7.5 s, each charged a step. Now each is charged its size tiers before it
/// is compiled, and the rule stops at its own budget.
#[test]
fn a_hundred_near_limit_regular_expressions_stop_at_the_rules_budget() {
    let dir = tempfile::tempdir().unwrap();
    let calls: Vec<String> = (0..100).map(|i| format!("self.name.matches('\\\\\\\\pL{{60}}{i}')")).collect();
    let schema = format!(
        "type: object\nproperties:\n  spec:\n    type: object\n    x-kubernetes-validations:\n      - rule: \"{}\"\n    properties:\n      name: {{type: string}}\n",
        calls.join(" || ")
    );
    write(dir.path(), "schemas/r.yaml", &crd("R", &schema));
    write(dir.path(), "r.yaml", "apiVersion: test.org/v1alpha1\nkind: R\nmetadata:\n  name: r\nspec:\n  name: x\n");
    let (code, found) = check(dir.path(), &["r.yaml"]);
    assert_eq!((code, summary(&found)), (1, vec![("schema-cel-budget", "error", "r.yaml:5")]), "{found:?}");
    assert!(found[0].3.contains("its cost budget of 1000000 steps"), "{found:?}");
}

/// A field absent without `has()` fails the rule: the API server rejects the object, so it is
/// an error (it was a warning, and the run passed). A comparison of a `date-time` string with
/// a timestamp, which Kubernetes types as a timestamp, stays a warning.
#[test]
fn a_rule_that_fails_on_the_object_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let schema = "type: object\nproperties:\n  spec:\n    type: object\n    x-kubernetes-validations:\n      - rule: self.tier == 'gold' && self.size < 10\n    properties:\n      tier: {type: string}\n      size: {type: integer}\n      at: {type: string, format: date-time}\n";
    write(dir.path(), "schemas/f.yaml", &crd("F", schema));
    write(dir.path(), "f.yaml", "apiVersion: test.org/v1alpha1\nkind: F\nmetadata:\n  name: f\nspec:\n  size: 3\n");
    let (code, found) = check(dir.path(), &["f.yaml"]);
    assert_eq!((code, summary(&found)), (1, vec![("schema-cel-violation", "error", "f.yaml:5")]), "{found:?}");
    assert!(found[0].3.contains("No such key: tier"), "{found:?}");
    assert!(found[0].3.contains("the API server rejects the object"), "{found:?}");
    let schema = schema.replace(
        "self.tier == 'gold' && self.size < 10",
        "has(self.at) && self.at < timestamp('2030-01-01T00:00:00Z')",
    );
    write(dir.path(), "schemas/f.yaml", &crd("F", &schema));
    write(
        dir.path(),
        "g.yaml",
        "apiVersion: test.org/v1alpha1\nkind: F\nmetadata:\n  name: g\nspec:\n  at: '2020-01-01T00:00:00Z'\n",
    );
    let (code, found) = check(dir.path(), &["g.yaml"]);
    assert_eq!((code, summary(&found)), (0, vec![("schema-cel-violation", "warning", "g.yaml:5")]), "{found:?}");
}

/// argo-rollouts' CRDs gave a transition rule's note 41 times in one run: once per batch of
/// files. Forty files are more than one batch; the note is given once.
#[test]
fn a_transition_rule_is_noted_once_per_run_across_batches() {
    let dir = tempfile::tempdir().unwrap();
    let schema = "type: object\nproperties:\n  spec:\n    type: object\n    x-kubernetes-validations:\n      - rule: self.name == oldSelf.name\n        message: name is immutable\n    properties:\n      name: {type: string}\n";
    write(dir.path(), "schemas/t.yaml", &crd("T", schema));
    for i in 0..40 {
        write(
            dir.path(),
            &format!("objects/t{i:02}.yaml"),
            &format!("apiVersion: test.org/v1alpha1\nkind: T\nmetadata:\n  name: t{i}\nspec:\n  name: t{i}\n"),
        );
    }
    let (code, found) = check(dir.path(), &["objects"]);
    assert_eq!((code, summary(&found)), (0, vec![("schema-cel-violation", "note", "t00.yaml:5")]), "{found:?}");
    assert!(found[0].3.contains("transition rule"), "{found:?}");
}

/// The review's compile shape, smaller: a CRD of 300 distinct rules of about 1.3 KB each.
/// The rules past the schema's bound are `invalid-schema` at their lines, named; the others
/// are evaluated.
#[test]
fn a_crds_rules_past_the_compile_bound_are_named_and_not_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    let mut schema = String::from(
        "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      a: {type: string}\n    x-kubernetes-validations:\n",
    );
    for i in 0..300 {
        let terms: Vec<String> = (0..30).map(|j| format!("self.a != '{}{i}_{j}'", "x".repeat(30))).collect();
        schema.push_str(&format!("      - rule: \"{}\"\n", terms.join(" && ")));
    }
    write(dir.path(), "schemas/big.yaml", &crd("Big", &schema));
    // The object breaks the first rule (compiled) and the last (left out).
    let first = format!("{}0_0", "x".repeat(30));
    write(
        dir.path(),
        "big.yaml",
        &format!("apiVersion: test.org/v1alpha1\nkind: Big\nmetadata:\n  name: b\nspec:\n  a: {first}\n"),
    );
    let (code, found) = check(dir.path(), &["big.yaml"]);
    assert_eq!(code, 1);
    let left_out: Vec<_> = found.iter().filter(|f| f.0 == "invalid-schema").collect();
    assert!(!left_out.is_empty() && left_out.len() < 300, "{}", left_out.len());
    for f in &left_out {
        assert_eq!(f.1, "error");
        assert!(f.2.starts_with("big.yaml:"), "{f:?}");
        assert!(f.3.contains("is not compiled nor evaluated") && f.3.contains("more than 256 KiB"), "{f:?}");
    }
    let violations: Vec<_> = found.iter().filter(|f| f.0 == "schema-cel-violation").collect();
    assert_eq!(violations.len(), 1, "{found:?}");
    assert_eq!(violations[0].2, "big.yaml:5");
}
