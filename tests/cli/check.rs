//! `driftlint check`: every seeded drift at its file and line with the template line, exit
//! codes, configuration errors, suppressions, and stdin mapped back to helm/kustomize sources.

mod snapshots;

use std::path::Path;

use super::{json, root, run, run_in};

/// (rule, file:line, first secondary label as file:line) of every diagnostic.
fn findings(v: &serde_json::Value) -> Vec<(String, String, String)> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let at = |l: &serde_json::Value| format!("{}:{}", l["file"].as_str().unwrap_or(""), l["line"]);
            let secondary =
                d["labels"].as_array().unwrap().iter().find(|l| l["primary"] == false).map(at).unwrap_or_default();
            (d["rule"].as_str().unwrap().to_string(), at(d), secondary)
        })
        .collect()
}

fn strs(v: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    v.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect()
}

#[test]
fn seeded_drift_is_reported_at_manifest_and_template_lines() {
    let r = run(&["check", "fixtures/repo", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(
        findings(&v),
        strs(&[
            ("value-drift", "fixtures/repo/app/frontend.yaml:24", "fixtures/reference/deployment.yaml:23"),
            ("value-drift", "fixtures/repo/config/settings.yaml:10", "fixtures/reference/configmap.yaml:7"),
            ("unmatched-resource", "fixtures/repo/config/settings.yaml:14", ""),
        ])
    );
    let drift = &v["diagnostics"][0];
    assert_eq!(
        drift["message"],
        "`/spec/template/spec/containers/0/resources/limits/memory` is `512Mi`, the reference expects `256Mi`"
    );
    assert_eq!(drift["object"], "apps/v1_Deployment_web_frontend");
    assert_eq!(drift["field"], "/spec/template/spec/containers/0/resources/limits/memory");
    let help: Vec<&str> = drift["help"].as_array().unwrap().iter().map(|h| h.as_str().unwrap()).collect();
    assert_eq!(
        help,
        [
            "template `deployment.yaml`: Deployment and Service of the web front end",
            "field: /spec/template/spec/containers/0/resources/limits/memory"
        ]
    );
    // `replicas: 3` is not drift: the template takes `.spec.replicas | default 2`.
    assert!(!r.stdout.contains("/spec/replicas"));
}

#[test]
fn human_output_and_exit_codes() {
    let r = run(&["check", "fixtures/repo"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("fixtures/repo/app/frontend.yaml:24:23"), "{}", r.stdout);
    assert!(r.stdout.contains("fixtures/reference/deployment.yaml:23"), "{}", r.stdout);
    let clean = run(&["check", "fixtures/clean-repo"]);
    assert_eq!(clean.code, 0, "{}{}", clean.stdout, clean.stderr);
    assert!(clean.stdout.contains("no problems found"), "{}", clean.stdout);
    // Same exit code whatever the format.
    for f in ["concise", "json", "sarif", "github", "markdown", "junit"] {
        assert_eq!(run(&["check", "fixtures/repo", "--format", f]).code, 1, "{f}");
        assert_eq!(run(&["check", "fixtures/clean-repo", "--format", f]).code, 0, "{f}");
    }
}

#[test]
fn runs_from_inside_the_repository_with_discovered_config() {
    let r = run_in(&root().join("fixtures/repo"), &["check", "--format", "concise"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("app/frontend.yaml:24:23: error[value-drift]"), "{}", r.stdout);
    assert!(r.stdout.contains("config/settings.yaml:14:13: warning[unmatched-resource]"), "{}", r.stdout);
    // `exclude:` leaves the values file out.
    assert!(!r.stdout.contains("values.yaml"), "{}", r.stdout);
}

#[test]
fn usage_and_configuration_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".driftlint.yaml"), "reference: ref\nrefrence: x\n").unwrap();
    let r = run_in(dir.path(), &["check"], None);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains(".driftlint.yaml:2:1: unknown key `refrence`"), "{}", r.stderr);
    std::fs::write(dir.path().join(".driftlint.yaml"), "rules:\n  value-drift: loud\n").unwrap();
    let r = run_in(dir.path(), &["check"], None);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains(".driftlint.yaml:2:16: unknown level `loud`"), "{}", r.stderr);
    // No reference anywhere: no longer an error (issue 11); the schema pass is the check, and
    // a custom kind without a schema is flagged (a warning in the default loose mode).
    let r = run_in(dir.path(), &["check", "--isolated"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // A directory without a manifest says so rather than "no problems found".
    assert!(r.stdout.contains("no Kubernetes object found"), "{}", r.stdout);
    std::fs::write(dir.path().join("w.yaml"), "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w}\n")
        .unwrap();
    let r = run_in(dir.path(), &["check", "--isolated"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("warning[schema-not-found]"), "{}", r.stdout);
    assert_eq!(run(&["check", "fixtures/repo", "--format", "yaml"]).code, 2);
    assert_eq!(run(&["check", "fixtures/repo", "--fail-level", "loud"]).code, 2);
    assert_eq!(run(&["check", "fixtures/repo", "--config", "nope.yaml"]).code, 2);
}

/// A repository with one drifting ConfigMap and the given config and annotation.
fn repo(config: &str, annotation: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // The reference inside the checked directory: a configuration may only name paths inside
    // its repository.
    super::copy_dir(&root().join("fixtures/reference"), &dir.path().join("reference"));
    std::fs::write(dir.path().join(".driftlint.yaml"), format!("reference: reference\n{config}")).unwrap();
    std::fs::copy(root().join("fixtures/repo/namespace.yaml"), dir.path().join("namespace.yaml")).unwrap();
    std::fs::copy(root().join("fixtures/clean-repo/app/frontend.yaml"), dir.path().join("frontend.yaml")).unwrap();
    let annotations =
        annotation.map_or(String::new(), |a| format!("  annotations:\n    driftlint.io/ignore: \"{a}\"\n"));
    std::fs::write(
        dir.path().join("settings.yaml"),
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\n{annotations}data:\n  log-level: debug\n"),
    )
    .unwrap();
    dir
}

fn in_repo(dir: &Path, args: &[&str]) -> super::Run {
    run_in(dir, args, None)
}

#[test]
fn fail_level_and_rule_levels() {
    let dir = repo("rules:\n  value-drift: warning\n", None);
    assert_eq!(in_repo(dir.path(), &["check"]).code, 0);
    assert_eq!(in_repo(dir.path(), &["check", "--fail-level", "warning"]).code, 1);
    let dir = repo("rules:\n  value-drift: off\nfail-level: note\n", None);
    assert_eq!(in_repo(dir.path(), &["check"]).code, 0);
    let dir = repo("", None);
    let r = in_repo(dir.path(), &["check", "--format", "concise"]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("settings.yaml:7:14: error[value-drift]"), "{}", r.stdout);
}

#[test]
fn annotation_suppressions_need_a_reason() {
    let dir = repo("", Some("value-drift: debugging ticket 42"));
    let r = in_repo(dir.path(), &["check", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let v = json(&r);
    assert_eq!(v["diagnostics"][0]["suppressed"], "debugging ticket 42");
    assert_eq!(v["summary"]["suppressed"], 1);
    // The annotation itself is not drift.
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 1, "{v}");

    let dir = repo("", Some("value-drift"));
    let r = in_repo(dir.path(), &["check", "--format", "json"]);
    assert_eq!(r.code, 1);
    let v = json(&r);
    // The annotation line is a finding of its own, and the drift it meant to silence stays.
    assert_eq!(
        findings(&v),
        strs(&[
            ("invalid-suppression", "settings.yaml:7", ""),
            ("value-drift", "settings.yaml:9", "reference/configmap.yaml:7"),
        ])
    );
    let invalid = &v["diagnostics"][0];
    assert_eq!(invalid["severity"], "warning");
    assert_eq!(
        invalid["message"],
        "`driftlint.io/ignore` suppression of `value-drift` has no reason, so it suppresses nothing"
    );
    assert!(invalid["help"][0].as_str().unwrap().contains("`RULE[, RULE…]: reason`"), "{invalid}");
    assert!(v["diagnostics"][1]["help"].to_string().contains("a suppression needs a reason"), "{v}");

    // An unknown rule id: a finding with a suggestion; a valid line next to it still applies,
    // and does not silence the report of the broken one.
    let dir = repo("", Some("value-drfit: typo\\n*: everything, on purpose"));
    let r = in_repo(dir.path(), &["check", "--format", "json"]);
    let v = json(&r);
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "invalid-suppression", "{v}");
    assert_eq!(d["message"], "`driftlint.io/ignore` names unknown rule `value-drfit`; it suppresses nothing");
    assert_eq!(d["help"][1], "did you mean `value-drift`? (`driftlint explain value-drift`)");
    assert_eq!(d["suppressed"], serde_json::Value::Null);
    assert_eq!(r.code, 0, "warnings do not fail the run: {v}");
    assert_eq!(in_repo(dir.path(), &["check", "--fail-level", "warning"]).code, 1);
    // `rules:` turns it off like any rule.
    let dir = repo("rules:\n  invalid-suppression: off\n", Some("value-drift"));
    let v = json(&in_repo(dir.path(), &["check", "--format", "json"]));
    assert_eq!(findings(&v).len(), 1, "{v}");
}

#[test]
fn overlapping_templates_are_noted_at_an_object_with_differences() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir(p.join("ref")).unwrap();
    std::fs::write(
        p.join("ref/metadata.yaml"),
        "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        anyOf:\n          - path: a.yaml\n          - path: b.yaml\n",
    )
    .unwrap();
    let cm = |data: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{{{ .metadata.name }}}}\n  namespace: web\ndata:\n{data}"
        )
    };
    std::fs::write(p.join("ref/a.yaml"), cm("  level: info\n")).unwrap();
    std::fs::write(p.join("ref/b.yaml"), cm("  mode: fast\n  size: big\n")).unwrap();
    let obj = |name: &str, level: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: web\ndata:\n  level: {level}\n"
        )
    };
    std::fs::write(p.join("drifting.yaml"), obj("x", "debug")).unwrap();
    std::fs::write(p.join("clean.yaml"), obj("z", "info")).unwrap();
    let r = run_in(p, &["check", "drifting.yaml", "clean.yaml", "--isolated", "-r", "ref", "--format", "json"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = json(&r);
    let got = findings(&v);
    assert_eq!(
        got,
        strs(&[("ambiguous-correlation", "drifting.yaml:4", ""), ("value-drift", "drifting.yaml:7", "ref/a.yaml:7")])
    );
    let note = &v["diagnostics"][0];
    assert_eq!(note["severity"], "note");
    assert_eq!(
        note["message"],
        "ConfigMap `web/x` could be compared with 2 templates; `a.yaml` was used, having the fewest differences"
    );
    assert!(note["help"][0].as_str().unwrap().contains("`b.yaml` also matched"), "{note}");
}

#[test]
fn config_suppressions() {
    let cfg = "ignore:\n  - object: 'v1_ConfigMap_web_*'\n    rule: value-drift\n    field: /data\n    reason: tuned per cluster\n";
    let dir = repo(cfg, None);
    let r = in_repo(dir.path(), &["check", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(json(&r)["diagnostics"][0]["suppressed"], "tuned per cluster");
    let dir = repo("ignore:\n  - object: x\n    rule: value-drift\n", None);
    let r = in_repo(dir.path(), &["check"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains(".driftlint.yaml:3:5: ignore entry without `reason`"), "{}", r.stderr);
}

#[test]
fn stdin_from_kustomize_maps_to_the_source_files() {
    let stdin = std::fs::read_to_string(root().join("fixtures/stdin/kustomize-rendered.yaml")).unwrap();
    let args = [
        "check",
        "-",
        "--isolated",
        "-r",
        "fixtures/reference",
        "--origin-root",
        "fixtures/kustomize/overlays/prod",
        "--format",
        "json",
    ];
    let r = run_in(&root(), &args, Some(&stdin));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        findings(&json(&r)),
        strs(&[
            ("missing-field", "fixtures/kustomize/base/deployment.yaml:17", "fixtures/reference/deployment.yaml:19"),
            ("missing-field", "fixtures/kustomize/base/deployment.yaml:17", "fixtures/reference/deployment.yaml:21"),
            ("missing-resource", "fixtures/reference/metadata.yaml:8", ""),
        ])
    );
}

#[test]
fn stdin_from_helm_points_at_stdin_lines() {
    let stdin = std::fs::read_to_string(root().join("fixtures/stdin/helm-rendered.yaml")).unwrap();
    let r = run_in(
        &root(),
        &["check", "-", "--isolated", "-r", "fixtures/reference/metadata.yaml", "--format", "json"],
        Some(&stdin),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let got = findings(&json(&r));
    assert!(
        got.contains(&("missing-field".into(), "<stdin>:32".into(), "fixtures/reference/deployment.yaml:19".into())),
        "{got:?}"
    );
}

#[test]
fn config_show_prints_the_effective_configuration() {
    let r = run(&["config", "show", "fixtures/repo"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("# fixtures/repo/.driftlint.yaml\n"), "{}", r.stdout);
    assert!(r.stdout.contains("reference: ../reference\n"), "{}", r.stdout);
    assert!(r.stdout.contains("  unmatched-resource: warning\n"), "{}", r.stdout);
    assert!(r.stdout.contains("  value-drift: error\n"), "{}", r.stdout);
    assert!(r.stdout.contains("fail-level: error\n"), "{}", r.stdout);
}

#[test]
fn github_actions_adds_annotations_unless_a_format_is_given() {
    let on_actions = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_driftlint"))
            .args(args)
            .current_dir(super::root())
            .env("GITHUB_ACTIONS", "true")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let (code, stdout) = on_actions(&["check", "fixtures/repo"]);
    assert_eq!(code, Some(1));
    let first_annotation = stdout.find("::error file=").expect("annotations on GitHub Actions");
    let human = stdout.find("error[value-drift]").expect("the human report too");
    assert!(human < first_annotation, "human report first, then annotations:\n{stdout}");

    let (code, stdout) = on_actions(&["check", "fixtures/repo", "--format", "concise"]);
    assert_eq!(code, Some(1));
    assert!(!stdout.contains("::error"), "an explicit format is obeyed as given:\n{stdout}");

    let plain = super::run(&["check", "fixtures/repo"]);
    assert!(!plain.stdout.contains("::error"), "no annotations outside GitHub Actions");
}

/// A reference kept inside the checked repository is the reference, not a manifest: its Go
/// templates are never parsed as inputs, whether it is named as a directory or pinned in git.
#[test]
fn a_reference_inside_the_checked_tree_is_not_an_input() {
    // `repo` keeps the reference in `reference/` inside the checked directory.
    let dir = repo("", None);
    std::fs::write(dir.path().join(".driftlint.yaml"), "reference: reference\n").unwrap();
    let assert_only_manifests = |r: &super::Run| {
        assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("settings.yaml:7:"), "the seeded drift is found:\n{}", r.stdout);
        assert!(!r.stdout.contains("reference/"), "no finding in the reference's files:\n{}", r.stdout);
    };
    assert_only_manifests(&in_repo(dir.path(), &["check", "--format", "concise"]));

    let git = |args: &[&str]| {
        super::git(dir.path(), args);
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "reference and manifests"]);
    std::fs::write(dir.path().join(".driftlint.yaml"), "reference: git:HEAD:reference\n").unwrap();
    assert_only_manifests(&in_repo(dir.path(), &["check", "--format", "concise"]));
}

#[test]
fn the_markdown_summary_template_can_be_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("summary.md.j2");
    std::fs::write(
        &template,
        "# drift: {{ summary.line }}\n{% for d in diagnostics %}- {{ d.rule }} {{ d.file }}:{{ d.line }}\n{% endfor %}",
    )
    .unwrap();
    let out = dir.path().join("summary.md");
    let spec = format!("markdown={}", out.display());
    let r = run(&["check", "fixtures/repo", "--format", &spec, "--markdown-template", template.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.starts_with("# drift: found 2 errors"), "{md}");
    // The file name comes from the repository: escaped for Markdown even in a user's template.
    assert!(md.contains("- value-drift fixtures/repo/app/frontend\\.yaml:24\n"), "{md}");

    let broken = dir.path().join("broken.j2");
    std::fs::write(&broken, "{% for d in %}").unwrap();
    let r = run(&["check", "fixtures/repo", "--format", "markdown", "--markdown-template", broken.to_str().unwrap()]);
    assert_eq!(r.code, 2, "a template that does not parse is a usage error:\n{}{}", r.stdout, r.stderr);
    let r = run(&["check", "fixtures/repo", "--format", "markdown", "--markdown-template", "no/such.j2"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no/such.j2"), "{}", r.stderr);

    // The configuration cannot set it: its text would be published, and the configuration
    // comes with the checked repository (docs/security.md).
    let conf = dir.path().join("conf");
    std::fs::create_dir_all(&conf).unwrap();
    let config = conf.join(".driftlint.yaml");
    std::fs::write(&config, "format: markdown\nmarkdown-template: /proc/self/environ\n").unwrap();
    let r = run(&["check", "--config", config.to_str().unwrap(), "fixtures/repo/app"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(".driftlint.yaml:2:1: `markdown-template` is accepted on the command line only"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty(), "{}", r.stdout);
}

/// Every finding is emitted with its rule's default severity from the one rules table (or a
/// variant the table documents), whatever produced it: the linter, the YAML layer, the
/// reference loader.
#[test]
fn emitted_severities_are_the_rules_table_defaults() {
    let dir = repo("", Some("no-such-rule: typo"));
    std::fs::write(
        dir.path().join("odd.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: odd\n  namespace: web\ndata:\n  a: x\n  a: y\n  \
         ? [complex]\n  : z\n  nan: .nan\n---\njust: values\n---\nkind: [\n",
    )
    .unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for args in [
        vec!["check", "--format", "json"],
        vec![
            "check",
            "--format",
            "json",
            "--isolated",
            "-r",
            "fixtures/reference",
            "fixtures/drift/plain",
            "fixtures/broken",
        ],
    ] {
        let r = if args.contains(&"--isolated") { run(&args) } else { in_repo(dir.path(), &args) };
        for d in json(&r)["diagnostics"].as_array().unwrap() {
            let rule = driftlint_core::diagnostic::Rule::from_id(d["rule"].as_str().unwrap()).unwrap();
            let allowed: Vec<&str> = driftlint_core::rules::severities(rule).iter().map(|s| s.as_str()).collect();
            let severity = d["severity"].as_str().unwrap();
            assert!(allowed.contains(&severity), "{rule} emitted as {severity}, the table allows {allowed:?}: {d}");
            seen.insert(rule.id());
        }
    }
    for rule in [
        "duplicate-key",
        "unsupported-yaml",
        "not-kubernetes-object",
        "yaml-syntax-error",
        "invalid-suppression",
        "value-drift",
        "missing-resource",
        "unmatched-resource",
    ] {
        assert!(seen.contains(rule), "the fixtures produced no `{rule}` (saw {seen:?})");
    }
}

/// Every finding of a run has its own fingerprint (GitHub merges results that share one), in
/// every fixture, including alike findings on one object.
#[test]
fn fingerprints_are_unique_in_a_run() {
    for input in ["fixtures/drift/plain", "fixtures/drift/multi-document.yaml", "fixtures/broken", "fixtures/repo"] {
        let r = run(&["check", "--isolated", "-r", "fixtures/reference", input, "--format", "sarif"]);
        let v = json(&r);
        let prints: Vec<&str> = v["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["partialFingerprints"]["driftlint/v1"].as_str())
            .collect();
        let unique: std::collections::BTreeSet<&str> = prints.iter().copied().collect();
        assert!(prints.len() > 1, "{input}: {}", r.stdout);
        assert_eq!(unique.len(), prints.len(), "{input}: duplicate fingerprints {prints:?}");
    }
}

/// `!!binary` values are compared as the bytes Kubernetes decodes them to (go-yaml v2), not as
/// their base64 text: `info` is valid base64 for three bytes that are not `info`.
#[test]
fn binary_tagged_values_are_compared_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let cm = |value: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata:\n  log-level: {value}\n"
        )
    };
    std::fs::write(dir.path().join("fooled.yaml"), cm("!!binary info")).unwrap();
    std::fs::write(dir.path().join("real.yaml"), cm("!!binary aW5mbw==")).unwrap();
    let reference = root().join("fixtures/reference");
    let r = run(&[
        "check",
        "--isolated",
        "-r",
        reference.to_str().unwrap(),
        dir.path().join("fooled.yaml").to_str().unwrap(),
        "--format",
        "concise",
    ]);
    assert!(
        r.stdout.contains("fooled.yaml:7:14: error[value-drift]: `/data/log-level` is `\u{fffd}w\u{fffd}`"),
        "{}",
        r.stdout
    );
    let r = run(&[
        "check",
        "--isolated",
        "-r",
        reference.to_str().unwrap(),
        dir.path().join("real.yaml").to_str().unwrap(),
        "--format",
        "concise",
    ]);
    assert!(
        !r.stdout.contains("value-drift") && !r.stdout.contains("unmatched"),
        "base64 of `info` is `info`: {}",
        r.stdout
    );
}

/// Help speaks of what users see: no source file of driftlint's is named there.
#[test]
fn help_names_no_source_files() {
    for command in
        [&["check", "--help"][..], &["compare", "--help"], &["ls", "--help"], &["policy", "--help"], &["--help"]]
    {
        let r = run(command);
        assert_eq!(r.code, 0, "{command:?}: {}", r.stderr);
        assert!(!r.stdout.contains("src/") && !r.stdout.contains(".rs"), "{command:?}:\n{}", r.stdout);
    }
}

/// `KUBECTL_EXTERNAL_DIFF` is `driftlint compare`'s (kube-compare's diff program); `check`
/// reads field differences and starts no program, whatever the environment says.
#[cfg(unix)]
#[test]
fn check_runs_no_external_diff_program() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let script = dir.path().join("diff.sh");
    std::fs::write(&script, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_driftlint"))
            .args(args)
            .current_dir(super::root())
            .env("KUBECTL_EXTERNAL_DIFF", &script)
            .env_remove("GITHUB_ACTIONS")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&["check", "fixtures/repo"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!marker.exists(), "check ran the external diff program");
    // The control: compare runs it (kube-compare does).
    let out = run(&["compare", "-r", "fixtures/reference/metadata.yaml", "-f", "fixtures/repo"]);
    assert!(marker.exists(), "compare did not run it: {}", String::from_utf8_lossy(&out.stderr));
}
