//! `driftlint ls`: what driftlint sees, with file and line.

use super::{json, root, run, run_in};

/// (file, line, kind, name) of every listed object.
fn objects(v: &serde_json::Value) -> Vec<(String, u64, String, String)> {
    v["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["file"].as_str().unwrap().to_string(),
                o["line"].as_u64().unwrap(),
                o["kind"].as_str().unwrap().to_string(),
                o["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn lists_multi_document_and_list_wrapped_objects_with_lines() {
    let r = run(&["ls", "fixtures/repo", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    let got = objects(&v);
    let want = [
        ("fixtures/repo/app/frontend.yaml", 2, "Deployment", "frontend"),
        ("fixtures/repo/app/frontend.yaml", 26, "Service", "frontend"),
        ("fixtures/repo/config/settings.yaml", 4, "ConfigMap", "settings"),
        ("fixtures/repo/config/settings.yaml", 11, "ConfigMap", "feature-flags"),
        ("fixtures/repo/namespace.yaml", 1, "Namespace", "web"),
    ];
    let want: Vec<_> = want.iter().map(|(f, l, k, n)| (f.to_string(), *l, k.to_string(), n.to_string())).collect();
    assert_eq!(got, want);
    // List items keep their index, and the namespace is part of the identity.
    assert_eq!(v["objects"][3]["item"], 1);
    assert_eq!(v["objects"][0]["namespace"], "web");
    assert_eq!(v["objects"][1]["document"], 1);
}

#[test]
fn non_kubernetes_yaml_is_noted_not_silently_skipped() {
    // The example's configuration excludes that file (as `check` does); `--isolated` shows it.
    let r = run(&["ls", "fixtures/repo", "--format", "json"]);
    let v = json(&r);
    assert!(v["diagnostics"].as_array().unwrap().is_empty(), "excluded by fixtures/repo/.driftlint.yaml");
    let r = run(&["ls", "fixtures/repo", "--isolated", "--format", "json"]);
    let v = json(&r);
    let diags = v["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["rule"], "not-kubernetes-object");
    assert_eq!(diags[0]["severity"], "note");
    assert_eq!(diags[0]["file"], "fixtures/repo/config/values.yaml");
    assert_eq!(diags[0]["line"], 2);
}

#[test]
fn human_output_has_file_line_and_identity() {
    let r = run(&["ls", "fixtures/repo/app/frontend.yaml"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains("fixtures/repo/app/frontend.yaml:2:1: apps/v1 Deployment web/frontend [schema: Kubernetes "),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("fixtures/repo/app/frontend.yaml:26:1: v1 Service web/frontend [schema: "),
        "{}",
        r.stdout
    );
    assert!(r.stdout.ends_with("2 object(s) in 1 source(s)\n"), "{}", r.stdout);
}

#[test]
fn syntax_error_reports_file_line_and_column() {
    let r = run(&["ls", "fixtures/broken/bad-indent.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "a syntax error fails the run");
    let v = json(&r);
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "yaml-syntax-error");
    assert_eq!(d["file"], "fixtures/broken/bad-indent.yaml");
    assert_eq!(d["line"], 5, "{d}");
    assert!(d["column"].as_u64().unwrap() >= 1);
}

#[test]
fn duplicate_key_is_reported_with_both_locations_and_last_wins() {
    let r = run(&["ls", "fixtures/broken/duplicate-key.yaml", "--format", "json"]);
    // A duplicate key is an error `check` fails on, and `ls` exits as `check` does.
    assert_eq!(r.code, 1, "a duplicate key fails ls as it fails check");
    let v = json(&r);
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "duplicate-key");
    assert_eq!(d["severity"], "error", "the rules table's default");
    assert_eq!(d["line"], 8);
    assert_eq!(objects(&v).len(), 1);
}

#[test]
fn helm_rendered_stdin_maps_to_chart_files() {
    let text = std::fs::read_to_string(root().join("fixtures/stdin/helm-rendered.yaml")).unwrap();
    let r = run_in(&root(), &["ls", "-", "--format", "json"], Some(&text));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    let objs = v["objects"].as_array().unwrap();
    assert_eq!(objs.len(), 2);
    assert_eq!(objs[0]["file"], "<stdin>");
    assert_eq!(objs[0]["line"], 3);
    assert_eq!(objs[0]["origin"]["kind"], "helm");
    assert_eq!(objs[0]["origin"]["path"], "frontend/templates/service.yaml");
    assert_eq!(objs[1]["origin"]["path"], "frontend/templates/deployment.yaml");
    assert_eq!(objs[1]["line"], 16);
}

#[test]
fn kustomize_rendered_stdin_maps_to_origin_file_and_line() {
    let text = std::fs::read_to_string(root().join("fixtures/stdin/kustomize-rendered.yaml")).unwrap();
    let r = run_in(
        &root(),
        &["ls", "-", "--format", "json", "--origin-root", "fixtures/kustomize/overlays/prod"],
        Some(&text),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    let objs = v["objects"].as_array().unwrap();
    assert_eq!(objs.len(), 2);
    assert_eq!(objs[0]["origin"]["kind"], "kustomize");
    assert_eq!(objs[0]["origin"]["file"], "fixtures/kustomize/base/service.yaml");
    assert_eq!(objs[0]["origin"]["line"], 1);
    assert_eq!(objs[1]["origin"]["file"], "fixtures/kustomize/base/deployment.yaml");
    assert_eq!(objs[1]["line"], 16, "the stdin line is kept too");
}

#[test]
fn walk_honours_gitignore_and_explicit_files_are_always_read() {
    let dir = tempfile::tempdir().unwrap();
    let obj = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
    std::fs::write(dir.path().join(".gitignore"), "ignored.yaml\n").unwrap();
    std::fs::write(dir.path().join("ignored.yaml"), obj).unwrap();
    std::fs::write(dir.path().join("kept.yml"), obj).unwrap();
    std::fs::write(dir.path().join("notes.txt"), obj).unwrap();
    std::fs::write(dir.path().join(".hidden.yaml"), obj).unwrap();
    std::fs::create_dir(dir.path().join(".github")).unwrap();
    std::fs::write(dir.path().join(".github/workflow.yaml"), obj).unwrap();
    let r = run_in(dir.path(), &["ls", ".", "--format", "json"], None);
    let files: Vec<_> = objects(&json(&r)).into_iter().map(|o| o.0).collect();
    assert_eq!(files, ["kept.yml"]);
    let r = run_in(dir.path(), &["ls", "ignored.yaml", "notes.txt", "--format", "json"], None);
    assert_eq!(objects(&json(&r)).len(), 2);
    let r = run_in(dir.path(), &["ls", ".", "--no-ignore", "--format", "json"], None);
    assert_eq!(objects(&json(&r)).len(), 2, "hidden files stay out even without ignore files");
}

#[test]
fn missing_path_is_a_usage_error_with_its_path() {
    // As a missing reference is (exit 2): a typo is not a finding in a file.
    for cmd in ["ls", "check"] {
        let r = run(&[cmd, "fixtures/does-not-exist.yaml", "--format", "json"]);
        assert_eq!(r.code, 2, "{cmd}: {}", r.stderr);
        assert!(r.stderr.contains("input path fixtures/does-not-exist.yaml does not exist"), "{cmd}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{cmd}: {}", r.stdout);
    }
}

#[test]
fn kubernetes_scalars_are_read_as_kubernetes_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cm.yaml"), "apiVersion: v1\nkind: Secret\nmetadata:\n  name: on\n").unwrap();
    // `name: on` is the boolean true for Kubernetes (YAML 1.1), so the object has no name.
    let r = run_in(dir.path(), &["ls", "cm.yaml", "--format", "json"], None);
    assert_eq!(json(&r)["objects"][0]["name"], "");
}

#[test]
fn ls_and_check_leave_out_the_same_inputs() {
    // `exclude:` of the configuration and `--exclude` on the command line, for both commands;
    // `check` shows what it read through a policy that denies every ConfigMap by name.
    let dir = tempfile::tempdir().unwrap();
    let cm = |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n");
    for (path, name) in [("app/a.yaml", "a"), ("tmp/b.yaml", "b"), ("app/gen/c.yaml", "c"), ("d.yaml", "d")] {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, cm(name)).unwrap();
    }
    std::fs::create_dir(dir.path().join("policy")).unwrap();
    std::fs::write(
        dir.path().join("policy/all.rego"),
        "package main\nimport rego.v1\ndeny contains msg if {\n  input.kind == \"ConfigMap\"\n  msg := input.metadata.name\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join(".driftlint.yaml"), "exclude: [tmp/]\n").unwrap();
    let listed = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["ls", "--format", "json"];
        all.extend_from_slice(args);
        let r = run_in(dir.path(), &all, None);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let mut names: Vec<String> = objects(&json(&r)).into_iter().map(|o| o.3).collect();
        names.sort();
        names
    };
    let checked = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["check", "--format", "json", "--policy", "policy"];
        all.extend_from_slice(args);
        let r = run_in(dir.path(), &all, None);
        let mut names: Vec<String> = json(&r)["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"] == "policy-deny")
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    };
    for (args, expected) in [
        (&[][..], &["a", "c", "d"][..]),
        (&["--exclude", "gen/"][..], &["a", "d"][..]),
        (&["--exclude", "/d.yaml", "--exclude", "gen/"][..], &["a"][..]),
        (&["--isolated"][..], &["a", "b", "c", "d"][..]),
    ] {
        assert_eq!(listed(args), expected, "ls {args:?}");
        assert_eq!(checked(args), expected, "check {args:?}");
    }
}

/// `ls` lists what `check` checks: not the reference's templates kept in the repository, not a
/// chart's sources; with the schema each object really gets; and it exits as `check` does.
#[test]
fn ls_lists_exactly_what_check_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    super::copy_dir(&super::root().join("fixtures/reference"), &dir.join("reference"));
    super::write_files(
        dir,
        &[
            (".driftlint.yaml", "reference: reference\n"),
            ("app/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-settings, namespace: web}\n"),
            ("charts/x/Chart.yaml", "apiVersion: v2\nname: x\nversion: 0.1.0\n"),
            ("charts/x/templates/d.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"),
        ],
    );
    super::git(dir, &["init", "-q"]);
    let r = super::run_in(dir, &["ls", "--format", "json"], None);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v = super::json(&r);
    let files: Vec<&str> = v["objects"].as_array().unwrap().iter().map(|o| o["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["app/cm.yaml"], "{v}");
    assert_eq!(v["objects"][0]["schema"], format!("Kubernetes {} built-in", driftlint_kube_schemas::default_version()));
    // Built-in kinds turned off: `ls` says so, as `check` validates none.
    super::write_files(dir, &[(".driftlint.yaml", "reference: reference\nbuiltin-schemas: false\n")]);
    let v = super::json(&super::run_in(dir, &["ls", "--format", "json"], None));
    assert_eq!(v["objects"][0]["schema"], "none (built-in kinds turned off: builtin-schemas: false)");
    // An error `check` fails on fails `ls` too.
    super::write_files(dir, &[("app/bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n  x: [\n")]);
    let r = super::run_in(dir, &["ls", "--format", "json"], None);
    assert_eq!(r.code, 1, "{}", r.stdout);
}
