//! `driftlint template …`.

use super::{root, run, run_in};

#[test]
fn render_uses_the_manifest_as_data() {
    let r = run(&[
        "template",
        "render",
        "fixtures/reference/configmap.yaml",
        "--data",
        "fixtures/repo/config/settings.yaml",
    ]);
    // settings.yaml is a List: its top-level metadata has no name, so the default applies.
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("name: settings\n"), "{}", r.stdout);
}

#[test]
fn render_reports_template_errors_with_location() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.yaml"), "a: {{ .x | nosuchfunc }}\n").unwrap();
    let r = run_in(dir.path(), &["template", "render", "t.yaml"], None);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("t.yaml:1"), "{}", r.stderr);
    assert!(r.stderr.contains("nosuchfunc"), "{}", r.stderr);
}

#[test]
fn eval_case_speaks_the_conformance_protocol() {
    let case = r#"{"template": "{{ .a }}-{{ printf \"%T\" .a }}", "defines": [], "data": {"a": 3}}"#;
    let r = run_in(&root(), &["template", "eval-case"], Some(case));
    assert_eq!(r.code, 0);
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["output"], "3-int64");
    let bad = r#"{"template": "{{ env \"HOME\" }}", "defines": [], "data": {}}"#;
    let r = run_in(&root(), &["template", "eval-case"], Some(bad));
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["error"]["phase"], "parse");
}

#[test]
fn functions_lists_kube_compare_and_sprig_functions() {
    let r = run(&["template", "functions"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.starts_with("Available Template Functions\n============================\n\n"));
    assert!(r.stdout.contains("toYaml:\n  Render incoming data of any type as a YAML document string\n"));
    assert!(!r.stdout.contains("env,"), "env is deliberately absent");
}
