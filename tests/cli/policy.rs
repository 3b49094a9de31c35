//! Rego policies: the policy pass of `check` against conftest's conventions (the expected
//! findings are those conftest's `policy/engine.go` gives for the same policies and manifests,
//! see each test), and `driftlint policy decide` / `policy eval`.

use std::path::Path;

use super::{git, json, run, run_in};

const FIXTURE: &str = "fixtures/policy/conftest";

/// (rule, file:line, message, suppressed reason) of every diagnostic.
pub(super) fn findings(v: &serde_json::Value) -> Vec<(String, String, String, String)> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                format!("{}:{}", d["file"].as_str().unwrap_or(""), d["line"]),
                d["message"].as_str().unwrap().to_string(),
                d["suppressed"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn strs(v: &[(&str, &str, &str, &str)]) -> Vec<(String, String, String, String)> {
    v.iter().map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string())).collect()
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

fn check_json(dir: &Path, args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["check", "--format", "json", "--isolated"];
    all.extend_from_slice(args);
    let r = run_in(dir, &all, None);
    assert!(r.code == 0 || r.code == 1, "exit {}: {}", r.code, r.stderr);
    (r.code, json(&r))
}

#[test]
fn conftest_rules_give_findings_at_fields_and_kind_lines() {
    let policy = format!("{FIXTURE}/policy");
    let data = format!("{FIXTURE}/data");
    let manifests = format!("{FIXTURE}/manifests");
    let r = run(&["check", "--isolated", "--format", "json", "--policy", &policy, "--data", &data, &manifests]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let m = |f: &str| format!("{FIXTURE}/manifests/{f}");
    // conftest: deny_latest_tag fails for `web` and is an exception for `legacy`; `deny` fails
    // for web's replicas (data.limits.min_replicas = 2); warn_no_limits warns for container
    // web; `violation` fails for the NodePort service; `denylist` is not a rule.
    assert_eq!(
        findings(&json(&r)),
        strs(&[
            (
                "policy-deny",
                &format!("{}:11", m("legacy.yaml")),
                "container app uses a :latest image",
                "policy exception `data.main.exception` names `latest_tag`"
            ),
            ("policy-deny", &format!("{}:17", m("legacy.yaml")), "NodePort services are not allowed", ""),
            ("policy-warn", &format!("{}:2", m("web.yaml")), "container web has no resource limits", ""),
            ("policy-deny", &format!("{}:8", m("web.yaml")), "web has 1 replicas, fewer than 2", ""),
            ("policy-deny", &format!("{}:13", m("web.yaml")), "container web uses a :latest image", ""),
        ])
    );
}

#[test]
fn namespaces_replace_main_and_subpackages_are_separate() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("p/main.rego", "package main\ndeny contains \"main\" if { true }\n"),
            ("p/extra.rego", "package main.extra\ndeny contains \"extra\" if { true }\n"),
            ("p/other.rego", "package other\nwarn_x contains \"other\" if { true }\n"),
            ("m.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"),
        ],
    );
    let messages = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["--policy", "p", "m.yaml"];
        all.extend_from_slice(args);
        findings(&check_json(dir.path(), &all).1).into_iter().map(|f| f.2).collect()
    };
    assert_eq!(messages(&[]), ["main"]);
    assert_eq!(messages(&["--namespace", "other"]), ["other"]);
    let mut both = messages(&["--namespace", "main.extra", "--namespace", "other"]);
    both.sort();
    assert_eq!(both, ["extra", "other"]);
}

#[test]
fn message_shapes_follow_conftest() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "p/main.rego",
                r#"package main
# strings and objects with a string msg are findings; other elements are not
deny_set contains m if { m := "plain" }
deny_set contains m if { m := {"msg": "object", "field": "metadata.name"} }
deny_set contains m if { m := 42 }
# an array rule: duplicates give one finding
deny_array = ["twice", "twice"]
# a non-collection value gives nothing
deny_bool = true
warn_once contains m if { m := "plain" }
deny1 contains m if { m := "not a rule name" }
warning contains m if { m := "not a rule name either" }
"#,
            ),
            ("m.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"),
        ],
    );
    let (code, v) = check_json(dir.path(), &["--policy", "p", "m.yaml"]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&v),
        strs(&[
            ("policy-deny", "m.yaml:2", "plain", ""),
            ("policy-deny", "m.yaml:2", "twice", ""),
            ("policy-warn", "m.yaml:2", "plain", ""),
            ("policy-deny", "m.yaml:4", "object", ""),
        ])
    );
    assert_eq!(v["diagnostics"][3]["field"], "/metadata/name");
}

#[test]
fn an_object_without_msg_and_a_broken_policy_are_policy_errors() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("p/main.rego", "package main\n\ndeny contains m if {\n  m := {\"message\": \"no msg\"}\n}\n"),
            ("q/main.rego", "package main\n\ndeny contains m if {\n  m := 1\n"),
            (
                "r/main.rego",
                "package main\n\ndeny contains m if {\n  count(numbers.range(1, 1000000000000)) > 0\n  m := \"x\"\n}\n",
            ),
            (
                "m.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
            ),
        ],
    );
    for (dir_name, line, needle) in [("p", 3, "without a string `msg`"), ("q", 4, ""), ("r", 4, "more than the limit")]
    {
        let (code, v) = check_json(dir.path(), &["--policy", dir_name, "m.yaml"]);
        assert_eq!(code, 1, "{dir_name}");
        let f = findings(&v);
        assert_eq!(f.len(), 1, "one error for both objects: {f:?}");
        assert_eq!((f[0].0.as_str(), f[0].1.as_str()), ("policy-error", &*format!("{dir_name}/main.rego:{line}")));
        assert!(f[0].2.contains(needle), "{f:?}");
    }
}

#[test]
fn combine_mode_sees_every_object_and_reports_at_the_first_file() {
    let policy = format!("{FIXTURE}/policy");
    let manifests = format!("{FIXTURE}/manifests");
    let r = run(&[
        "check",
        "--isolated",
        "--format",
        "json",
        "--policy",
        &policy,
        "--combine",
        "--namespace",
        "combined",
        &manifests,
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // conftest --combine: one input, [{path, contents}] over every document in path order.
    assert_eq!(
        findings(&json(&r)),
        strs(&[(
            "policy-deny",
            &format!("{FIXTURE}/manifests/legacy.yaml:1"),
            &format!("Service legacy is defined in both {m}/legacy.yaml and {m}/web-copy.yaml", m = manifests),
            ""
        )])
    );
}

#[test]
fn configuration_keys_and_data_files() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (".driftlint.yaml", "policies: [policy]\npolicy-data: [limits.json]\npolicy-namespaces: [k8s]\n"),
            (
                "policy/k8s.rego",
                "package k8s\nimport rego.v1\nwarn contains m if {\n  input.spec.replicas > data.max\n  m := \"too many\"\n}\n",
            ),
            ("limits.json", "{\"max\": 3}"),
            (
                "m.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\nspec:\n  replicas: 5\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n",
            ),
        ],
    );
    let r = run_in(dir.path(), &["check", "--format", "json", "m.yaml"], None);
    assert_eq!(r.code, 0, "a warning does not fail the run: {}", r.stderr);
    assert_eq!(findings(&json(&r)), strs(&[("policy-warn", "m.yaml:2", "too many", "")]));
}

#[test]
fn policies_at_a_git_revision() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    write(dir.path(), &[("policy/main.rego", "package main\ndeny contains \"from git\" if { true }\n")]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-qm", "policy"]);
    // The work tree's copy differs: the committed one is used.
    write(
        dir.path(),
        &[
            ("policy/main.rego", "package main\ndeny contains \"from the work tree\" if { true }\n"),
            ("m.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"),
        ],
    );
    let (_, v) = check_json(dir.path(), &["--policy", "git:HEAD:policy", "m.yaml"]);
    let f = findings(&v);
    assert_eq!(f.iter().map(|f| f.2.as_str()).collect::<Vec<_>>(), ["from git"]);
    assert_eq!(v["diagnostics"][0]["labels"][1]["file"], "git:HEAD:policy/main.rego");
}

#[test]
fn decide_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "ok/p.rego",
                "package adminconfig\nconfig[{\"read\": d}] { d := {\"deploy\": true, \"policy\": {\"ID\": \"a\"}} }\nconfig[{\"read\": d}] { d := {\"deploy\": false, \"policy\": {\"ID\": \"b\"}} }\n",
            ),
            ("bad/p.rego", "package adminconfig\nconfig[x] {\n"),
            ("input.json", "{\"workload\": {\"uuid\": \"u1\"}, \"request\": {\"datasetID\": \"d\"}}"),
            ("data.json", "{\"clusters\": []}"),
        ],
    );
    let decide = |p: &str, input: &str| {
        run_in(dir.path(), &["policy", "decide", "--policies", p, "--data", "data.json", "--input", input], None)
    };
    let r = decide("ok", "input.json");
    assert_eq!(r.code, 0, "a conflict is a result: {}", r.stderr);
    let v = json(&r);
    assert_eq!(
        (v["Valid"].as_bool(), v["UUID"].as_str(), v["DatasetID"].as_str()),
        (Some(false), Some("u1"), Some("d"))
    );
    let r = decide("bad", "input.json");
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("bad/p.rego:"), "{}", r.stderr);
    assert_eq!(decide("ok", "missing.json").code, 2);
    assert_eq!(decide("nowhere", "input.json").code, 2);
}

#[test]
fn eval_prints_opa_style_json() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("p.rego", "package main\ndeny contains m if { m := sprintf(\"%v\", [input.num]) }\n"),
            ("in.yaml", "num: 7\n"),
        ],
    );
    let r =
        run_in(dir.path(), &["policy", "eval", "--policies", "p.rego", "--input", "in.yaml", "data.main.deny"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        json(&r),
        serde_json::json!({"result": [{"expressions": [{"value": ["7"], "text": "data.main.deny"}]}]})
    );
    let r = run_in(dir.path(), &["policy", "eval", "--policies", "p.rego", "data.main.nothing"], None);
    assert_eq!(json(&r), serde_json::json!({}));
}

/// Copies `fixtures/policy/fybrik` into `dir`.
fn fybrik_fixture(dir: &Path) {
    let src = super::root().join("fixtures/policy/fybrik");
    for sub in ["policies", "cases"] {
        for entry in std::fs::read_dir(src.join(sub)).unwrap() {
            let entry = entry.unwrap();
            let to = dir.join(sub).join(entry.file_name());
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(entry.path(), to).unwrap();
        }
    }
    write(dir, &[(".driftlint.yaml", "policies: [policies]\npolicy-cases: cases\nexclude: [cases/, policies/]\n")]);
}

#[test]
fn policy_cases_pass_when_the_decisions_are_the_expected_ones() {
    let dir = tempfile::tempdir().unwrap();
    fybrik_fixture(dir.path());
    let r = run_in(dir.path(), &["check", "--format", "json", "."], None);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(findings(&json(&r)), strs(&[]));
}

#[test]
fn policy_cases_report_conflicts_at_the_rules_and_changed_decisions_at_the_expectation() {
    let dir = tempfile::tempdir().unwrap();
    fybrik_fixture(dir.path());
    write(
        dir.path(),
        &[(
            "policies/never-copy.rego",
            "package adminconfig\n\n# A new rule that forbids every copy.\nconfig contains {\"copy\": d} if {\n  input.request.usage.read == true\n  d := {\"deploy\": false, \"policy\": {\"ID\": \"copy-never\"}}\n}\n",
        )],
    );
    let r = run_in(dir.path(), &["check", "--format", "json", "."], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = json(&r);
    let f = findings(&v);
    // local-read: copy becomes False (copy-default merged with copy-never): a changed decision
    // at `copy` in the expected file. remote-read: copy-remote requires copy, copy-never
    // forbids it: a conflict at one of the two rules, the other one as a secondary label.
    assert_eq!(f.len(), 2, "{f:?}");
    let conflict = f.iter().find(|f| f.0 == "policy-conflict").expect("a conflict");
    assert!(conflict.2.starts_with("scenario `remote-read`: `copy`: one decision requires"), "{conflict:?}");
    let d = v["diagnostics"].as_array().unwrap().iter().find(|d| d["rule"] == "policy-conflict").unwrap();
    let mut at: Vec<String> = d["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| format!("{}:{}", l["file"].as_str().unwrap(), l["line"]))
        .collect();
    at.sort();
    assert!(at.contains(&"policies/never-copy.rego:4".to_string()), "{at:?}");
    assert!(at.contains(&"policies/extended.rego:18".to_string()), "{at:?}");
    assert!(at.iter().all(|a| a.ends_with("never-copy.rego:4")
        || a.ends_with("extended.rego:18")
        || a.ends_with("defaults.rego:30")));
    let changed = f.iter().find(|f| f.0 == "policy-decision-changed").expect("a changed decision");
    assert_eq!(changed.1, "cases/local-read.expected.json:4");
    assert_eq!(
        changed.2,
        "scenario `local-read`: `copy` was deploy Unknown (policies copy-default); now deploy False (policies copy-default, copy-never)"
    );
}

#[test]
fn exceptions_exempt_rules_by_name_without_prefix_warnings_included() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "p/main.rego",
                "package main\ndeny_a contains \"deny a\" if { true }\nwarn_a contains \"warn a\" if { true }\ndeny_b contains \"deny b\" if { true }\n\
                 deny contains \"plain\" if { true }\nexception contains r if { input.metadata.name == \"x\"; r := [\"a\", \"\"] }\n",
            ),
            (
                "m.yaml",
                // Not `y`: a YAML 1.1 boolean, which the built-in schema rejects as a name.
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\n",
            ),
        ],
    );
    let (_, v) = check_json(dir.path(), &["--policy", "p", "m.yaml"]);
    let exempt = "policy exception `data.main.exception` names `a`";
    let plain = "policy exception `data.main.exception` names ``";
    let mut f = findings(&v);
    f.sort();
    assert_eq!(
        f,
        strs(&[
            ("policy-deny", "m.yaml:2", "deny a", exempt),
            ("policy-deny", "m.yaml:2", "deny b", ""),
            ("policy-deny", "m.yaml:2", "plain", plain),
            ("policy-deny", "m.yaml:7", "deny a", ""),
            ("policy-deny", "m.yaml:7", "deny b", ""),
            ("policy-deny", "m.yaml:7", "plain", ""),
            ("policy-warn", "m.yaml:2", "warn a", exempt),
            ("policy-warn", "m.yaml:7", "warn a", ""),
        ])
    );
}
