//! Cost of Rego policies (goal: at most 15 µs per object-rule end to end on the
//! 2-core CI machine): 10,000 objects × 10 conftest rules.
//!
//! Prints, after a warm-up:
//!
//! - `convert`: an object turned into a regorus value (driftlint's share of each evaluation);
//! - `evaluate`: `data.main.<rule>` for one object and one rule (regorus' share: query
//!   parsing, evaluation, the result set), the mean over every object-rule pair;
//! - `pass`: `driftlint check --policy` in-process over the objects (reading, YAML, rules,
//!   locations, report sorting), total and per object-rule;
//! - `binary`: the `driftlint` binary end to end (`check --policy --format json`, output to a
//!   pipe), with `--jobs 1` and with the default jobs, the best of three runs each; also the
//!   same run without policies, so the policies' own share per object-rule shows.
//!
//! ```text
//! cargo bench --bench policy            # 10,000 objects
//! cargo bench --bench policy -- 2000    # 2,000 objects
//! ```

use std::fmt::Write as _;
use std::time::Instant;

use driftlint::check;
use driftlint::config::Settings;
use driftlint_policy::{Module, Policies, engine};

const RULES: [&str; 10] = [
    "deny_latest_tag",
    "deny_replicas",
    "warn_no_limits",
    "deny_host_path",
    "warn_team_label",
    "deny_privileged",
    "warn_no_probe",
    "deny_default_namespace",
    "violation_host_network",
    "warn_image_registry",
];

const POLICY: &str = r#"package main
import rego.v1

deny_latest_tag contains msg if {
	some i, c in input.spec.template.spec.containers
	endswith(c.image, ":latest")
	msg := {"msg": sprintf("container %s uses a :latest image", [c.name]), "field": sprintf("/spec/template/spec/containers/%d/image", [i])}
}

deny_replicas contains msg if {
	input.kind == "Deployment"
	input.spec.replicas < 2
	msg := {"msg": sprintf("%s has %d replicas", [input.metadata.name, input.spec.replicas]), "field": "spec.replicas"}
}

warn_no_limits contains msg if {
	some c in input.spec.template.spec.containers
	not c.resources.limits
	msg := sprintf("container %s has no resource limits", [c.name])
}

deny_host_path contains msg if {
	some v in input.spec.template.spec.volumes
	v.hostPath
	msg := sprintf("volume %s mounts a host path", [v.name])
}

warn_team_label contains msg if {
	not input.metadata.labels.team
	msg := "no team label"
}

deny_privileged contains msg if {
	some c in input.spec.template.spec.containers
	c.securityContext.privileged == true
	msg := sprintf("container %s is privileged", [c.name])
}

warn_no_probe contains msg if {
	some c in input.spec.template.spec.containers
	not c.readinessProbe
	msg := sprintf("container %s has no readiness probe", [c.name])
}

deny_default_namespace contains msg if {
	input.metadata.namespace == "default"
	msg := "objects may not live in the default namespace"
}

violation_host_network contains msg if {
	input.spec.template.spec.hostNetwork == true
	msg := "host network"
}

warn_image_registry contains msg if {
	some c in input.spec.template.spec.containers
	not startswith(c.image, "registry.example/")
	msg := sprintf("container %s pulls from an unknown registry", [c.name])
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
        Policies::compile(vec![module], None, &Default::default(), driftlint_policy::engine::RegoVersion::V1)
            .expect("the policy compiles");

    // Warm-up.
    for v in values.iter().take(100) {
        for r in RULES {
            let _ = policies.query(&format!("data.main.{r}"), engine::to_value(v).ok());
        }
    }

    let t = Instant::now();
    let inputs: Vec<_> = values.iter().map(|v| engine::to_value(v).expect("converts")).collect();
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
        policy: driftlint_policy::conftest::Settings {
            policies: vec![dir.path().join("policy.rego").display().to_string()],
            ..Default::default()
        },
        ..Settings::default()
    };
    let t = Instant::now();
    let report = check::check(&settings).expect("the check runs");
    let pass = t.elapsed();

    // The binary, end to end, best of three runs.
    let binary = env!("CARGO_BIN_EXE_driftlint");
    let policy_file = dir.path().join("policy.rego").display().to_string();
    let manifests = dir.path().display().to_string();
    let timed = |args: &[&str]| -> std::time::Duration {
        (0..3)
            .map(|_| {
                let t = Instant::now();
                let out = std::process::Command::new(binary)
                    .args(["check", "--isolated", "--format", "json"])
                    .args(args)
                    .arg(&manifests)
                    .output()
                    .expect("the binary runs");
                let took = t.elapsed();
                assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
                took
            })
            .min()
            .unwrap_or_default()
    };
    let with_one = timed(&["--jobs", "1", "--policy", &policy_file]);
    let without_one = timed(&["--jobs", "1"]);
    let with_default = timed(&["--policy", &policy_file]);
    let without_default = timed(&[]);
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());

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
    for (label, with, without) in
        [("--jobs 1".to_string(), with_one, without_one), (format!("jobs {jobs}"), with_default, without_default)]
    {
        let _ = writeln!(
            out,
            "  binary {label:<9} {:>7.1} ms total  {:>7.2} us per object-rule end to end ({:>7.2} us without the {:.1} ms of a run without policies)",
            with.as_secs_f64() * 1e3,
            per(with, pairs),
            per(with.saturating_sub(without), pairs),
            without.as_secs_f64() * 1e3,
        );
    }
    print!("{out}");
}
