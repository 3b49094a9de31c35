//! One template budget per run (issue 14): a reference kept in the repository is untrusted, and
//! a template that is merely expensive per object must not make the run's cost grow with the
//! number of objects. Ten objects each asking for work worth an eighth of the run's budget:
//! the first ones render, the rest end with a `template-render-error` naming the budget and
//! the template. Nothing here asserts how long the run took.

use std::path::Path;

use super::{json, run_in};

/// A reference whose ConfigMap template builds a megabyte string a thousand times per render
/// (cheap in real time, about 62.5 million weighted steps of the 500 million a run has).
fn expensive_reference(dir: &Path) {
    std::fs::create_dir_all(dir.join("ref")).unwrap();
    std::fs::write(
        dir.join("ref/metadata.yaml"),
        "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("ref/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .metadata.name }}\n  namespace: web\n\
         {{- range until 1000 }}{{ $x := repeat 1000000 \"x\" }}{{ end }}\ndata:\n  level: info\n",
    )
    .unwrap();
    let mut crs = String::new();
    for i in 0..10 {
        crs.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: web\ndata:\n  level: info\n"
        ));
    }
    std::fs::write(dir.join("crs.yaml"), crs).unwrap();
}

#[test]
fn check_stops_rendering_when_the_run_budget_is_spent() {
    let dir = tempfile::tempdir().unwrap();
    expensive_reference(dir.path());
    let r =
        run_in(dir.path(), &["check", "--isolated", "-r", "ref/metadata.yaml", "crs.yaml", "--format", "json"], None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let budget: Vec<_> = diagnostics.iter().filter(|d| d["rule"] == "template-render-error").collect();
    assert!(!budget.is_empty() && budget.len() < 10, "{}", r.stdout);
    for d in &budget {
        let message = d["message"].as_str().unwrap();
        assert!(message.contains("exceeded the run's budget of 500000000 weighted steps"), "{message}");
        assert!(message.contains("cm.yaml"), "the message names the template: {message}");
    }
    // The objects rendered before the budget ran out were compared: no other finding.
    assert_eq!(diagnostics.len(), budget.len(), "{}", r.stdout);
}

#[test]
fn compare_reports_the_budget_in_kube_compare_error_text() {
    let dir = tempfile::tempdir().unwrap();
    expensive_reference(dir.path());
    let r = run_in(dir.path(), &["compare", "-r", "ref/metadata.yaml", "-f", "crs.yaml"], None);
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(all.contains("failed to constuct template: template: cm.yaml:"), "{all}");
    assert!(all.contains("exceeded the run's budget of 500000000 weighted steps"), "{all}");
}
