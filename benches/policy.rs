//! Cost of Rego policies: one rule evaluated for one object with the policies prepared once
//! (the goal: under 50 µs per object-rule on the 2-core CI machine), and the policy pass of
//! `check` over 10,000 objects × 5 conftest rules.
//!
//! Prints, after a warm-up:
//!
//! - `convert`: an object turned into a regorus value (driftlint's share of each evaluation);
//! - `evaluate`: `data.main.<rule>` for one object and one rule (regorus' share: query
//!   parsing, evaluation, the result set), the mean over every object-rule pair;
//! - `pass`: `driftlint check --policy` in-process over the objects (reading, YAML, rules,
//!   locations, report sorting), total and per object-rule.
//!
//! ```text
//! cargo bench --bench policy            # 10,000 objects
//! cargo bench --bench policy -- 2000    # 2,000 objects
//! ```

use std::fmt::Write as _;
use std::time::Instant;

use driftlint::check::{self, Settings};
use driftlint::policy::{Module, Policies, engine};

const RULES: [&str; 5] = ["deny_latest_tag", "deny_replicas", "warn_no_limits", "deny_host_path", "warn_team_label"];

const POLICY: &str = r#"package main

deny_latest_tag contains msg if {
	c := input.spec.template.spec.containers[i]
	endswith(c.image, ":latest")
	msg := {"msg": sprintf("container %s uses a :latest image", [c.name]), "field": sprintf("/spec/template/spec/containers/%d/image", [i])}
}

deny_replicas contains msg if {
	input.kind == "Deployment"
	input.spec.replicas < 2
	msg := {"msg": sprintf("%s has %d replicas", [input.metadata.name, input.spec.replicas]), "field": "spec.replicas"}
}

warn_no_limits contains msg if {
	c := input.spec.template.spec.containers[_]
	not c.resources.limits
	msg := sprintf("container %s has no resource limits", [c.name])
}

deny_host_path contains msg if {
	v := input.spec.template.spec.volumes[_]
	v.hostPath
	msg := sprintf("volume %s mounts a host path", [v.name])
}

warn_team_label contains msg if {
	not input.metadata.labels.team
	msg := "no team label"
}
"#;

fn object(i: usize) -> String {
    let tag = if i.is_multiple_of(7) { "latest" } else { "1.2.3" };
    let replicas = 1 + i % 3;
    let labels = if i.is_multiple_of(5) { "{}".to_string() } else { "{team: shop}".to_string() };
    let limits = if i.is_multiple_of(4) { "" } else { "\n          resources: {limits: {memory: 128Mi}}" };
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\n  namespace: ns-{}\n  labels: {labels}\nspec:\n  replicas: {replicas}\n  template:\n    spec:\n      containers:\n        - name: app\n          image: registry.example/app:{tag}{limits}\n      volumes:\n        - name: data\n          emptyDir: {{}}\n",
        i % 10
    )
}

fn main() {
    let n: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(10_000);
    let values: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let doc = driftlint_yaml::parse_stream(&object(i)).into_result().expect("valid YAML");
            doc[0].root.to_json()
        })
        .collect();
    let module = Module { path: "policy.rego".into(), text: POLICY.into() };
    let mut policies =
        Policies::compile(vec![module], None, &Default::default(), driftlint::policy::engine::RegoVersion::V1)
            .expect("the policy compiles");

    // Warm-up.
    for v in values.iter().take(100) {
        for r in RULES {
            let _ = policies.query(&format!("data.main.{r}"), engine::to_value(v).ok());
        }
    }

    let t = Instant::now();
    let inputs: Vec<regorus::Value> = values.iter().map(|v| engine::to_value(v).expect("converts")).collect();
    let convert = t.elapsed();

    let queries: Vec<String> = RULES.iter().map(|r| format!("data.main.{r}")).collect();
    let mut results = 0usize;
    let t = Instant::now();
    for input in &inputs {
        for q in &queries {
            if let Ok(Some(v)) = policies.query(q, Some(input.clone())) {
                results += engine::to_json(&v).as_array().map_or(0, Vec::len);
            }
        }
    }
    let evaluate = t.elapsed();
    let pairs = (n * RULES.len()) as f64;

    // The whole pass, through `check`: files of 100 documents each.
    let dir = tempfile::tempdir().expect("a temp dir");
    for (f, chunk) in (0..n).collect::<Vec<_>>().chunks(100).enumerate() {
        let text: String = chunk.iter().map(|&i| format!("---\n{}", object(i))).collect();
        std::fs::write(dir.path().join(format!("m{f:04}.yaml")), text).expect("writes");
    }
    std::fs::write(dir.path().join("policy.rego"), POLICY).expect("writes");
    let settings = Settings {
        paths: vec![dir.path().to_path_buf()],
        exclude_root: dir.path().to_path_buf(),
        policy: driftlint::policy::conftest::Settings {
            policies: vec![dir.path().join("policy.rego").display().to_string()],
            ..Default::default()
        },
        ..Settings::default()
    };
    let t = Instant::now();
    let report = check::check(&settings).expect("the check runs");
    let pass = t.elapsed();

    let mut out = String::new();
    let per = |d: std::time::Duration, k: f64| d.as_secs_f64() * 1e6 / k;
    let _ = writeln!(
        out,
        "policy bench: {n} objects x {} rules ({results} results, {} findings)",
        RULES.len(),
        report.diagnostics.len()
    );
    let _ = writeln!(
        out,
        "  convert   {:>9.1} ms total  {:>7.2} us per object",
        convert.as_secs_f64() * 1e3,
        per(convert, n as f64)
    );
    let _ = writeln!(
        out,
        "  evaluate  {:>9.1} ms total  {:>7.2} us per object-rule",
        evaluate.as_secs_f64() * 1e3,
        per(evaluate, pairs)
    );
    let _ = writeln!(
        out,
        "  pass      {:>9.1} ms total  {:>7.2} us per object-rule (check: read, parse, evaluate, locate)",
        pass.as_secs_f64() * 1e3,
        per(pass, pairs)
    );
    print!("{out}");
}
