//! conftest's own acceptance tests on YAML/JSON input, translated: each test runs, in
//! `fixtures/policy/conftest-suite/` (conftest's files at their paths, see its README), the
//! `driftlint` command equivalent to a conftest test and expects conftest's verdict. The
//! conftest test is named in each comment (`acceptance.bats` or `tests/NAME/test.bats`).

use std::path::PathBuf;

use super::{json, root, run_in};

fn suite() -> PathBuf {
    root().join("fixtures/policy/conftest-suite")
}

/// `check --format concise …` in the suite: exit code and the findings' lines, without the
/// schema pass' notes about conftest's made-up kinds.
fn check(args: &[&str]) -> (i32, Vec<String>) {
    let mut all = vec!["check", "--isolated", "--format", "concise"];
    all.extend_from_slice(args);
    let r = run_in(&suite(), &all, None);
    let lines = r.stdout.lines().filter(|l| l.contains("[policy-")).map(str::to_string).collect();
    (r.code, lines)
}

/// tests/problematic-if/test.bats: "Test works as expected using contains and if" (1 failure),
/// "Bare deny rule can be used without contains or if" (passes), "Error is raised when if is
/// used without contains" (conftest refuses the policy: `deny[msg] if` is an object in Rego v1,
/// so it could never report anything).
#[test]
fn problematic_if() {
    let (code, lines) =
        check(&["--policy", "tests/problematic-if/policy/valid.rego", "tests/problematic-if/data.yaml"]);
    assert_eq!((code, lines.len()), (1, 1), "{lines:?}");
    assert!(lines[0].contains("error[policy-deny]: foo"), "{lines:?}");
    let (code, lines) =
        check(&["--policy", "tests/problematic-if/policy/valid_bare_deny.rego", "tests/problematic-if/data.yaml"]);
    assert_eq!((code, lines.len()), (0, 0), "{lines:?}");
    let (code, lines) =
        check(&["--policy", "tests/problematic-if/policy/invalid.rego", "tests/problematic-if/data.yaml"]);
    assert_eq!(code, 1);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("tests/problematic-if/policy/invalid.rego:5:1: error[policy-error]: rule `deny[msg]` is using 'if' keyword without 'contains' keyword"),
        "{lines:?}"
    );
    // conftest verify loads the policies the same way.
    let r = run_in(&suite(), &["policy", "test", "tests/problematic-if/policy/invalid.rego"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("invalid.rego:5: rule `deny[msg]` is using 'if' keyword without 'contains'"),
        "{}",
        r.stderr
    );
    // `policy eval` is OPA's evaluation, which accepts it (an object).
    let r = run_in(
        &suite(),
        &["policy", "eval", "--policies", "tests/problematic-if/policy/invalid.rego", "data.main.deny"],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(json(&r)["result"][0]["expressions"][0]["value"], serde_json::json!({"foo": true}));
}

/// acceptance.bats: "Can combine yaml files" and "Combining multi-document yaml file has same
/// result": 1 failure (the users jane.doe is not among the users), the other rule passes.
#[test]
fn combine() {
    for files in [
        &["examples/combine/team.yaml", "examples/combine/user1.yaml", "examples/combine/user2.yaml"][..],
        &["examples/combine/team.yaml", "examples/combine/users.yaml"][..],
    ] {
        let mut args = vec!["--policy", "examples/combine/policy", "--combine"];
        args.extend_from_slice(files);
        let (code, lines) = check(&args);
        assert_eq!(code, 1, "{lines:?}");
        assert_eq!(
            lines,
            [
                "examples/combine/team.yaml:1:1: error[policy-deny]: Existing users [\"jan.doe@example.com\", \"john.doe@example.com\"] | Configured users [\"jane.doe@example.com\", \"john.doe@example.com\"] | Missing users [\"jane.doe@example.com\"]"
            ],
            "{files:?}"
        );
    }
}

/// acceptance.bats: "Should fail if an opa function is not defined given capabilities file":
/// both `opa.runtime` and `http.send` are named, each at its line.
#[test]
fn capabilities_name_every_refused_builtin() {
    let (code, lines) = check(&[
        "examples/kubernetes/deployment.yaml",
        "--policy",
        "examples/capabilities/malicious.rego",
        "--capabilities",
        "examples/capabilities/capabilities.json",
    ]);
    assert_eq!(code, 1);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("examples/capabilities/malicious.rego:8:1:")
            && lines[0].contains("undefined function opa.runtime"),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with("examples/capabilities/malicious.rego:10:1:")
            && lines[1].contains("undefined function http.send"),
        "{lines:?}"
    );
}

/// acceptance.bats: "Should fail if strict is set and there are unused variables in the
/// policy" and "Should fail when verifying if strict is set …": assigned vars b, x, c unused,
/// unused argument y.
#[test]
fn strict_rules() {
    let expected = [
        "lenient.rego:7: rego_compile_error: assigned var b unused",
        "lenient.rego:8: rego_compile_error: assigned var x unused",
        "lenient.rego:12: rego_compile_error: assigned var c unused",
        "lenient.rego:15: rego_compile_error: unused argument y",
    ];
    let (code, lines) =
        check(&["--policy", "examples/strict-rules/policy/", "examples/kubernetes/deployment.yaml", "--strict"]);
    assert_eq!(code, 1);
    assert_eq!(lines.len(), 4, "{lines:?}");
    for (line, want) in lines.iter().zip(expected) {
        let (file_line, message) = want.split_once(": ").unwrap();
        let (file, n) = file_line.split_once(':').unwrap();
        assert!(
            line.starts_with(&format!("examples/strict-rules/policy/{file}:{n}:1: ")) && line.contains(message),
            "{line}"
        );
    }
    let r = run_in(&suite(), &["policy", "test", "--policy", "examples/strict-rules/policy/", "--strict"], None);
    assert_eq!(r.code, 1);
    for want in expected {
        assert!(r.stderr.contains(want), "{want}: {}", r.stderr);
    }
    // Without --strict the policy compiles (conftest's lenient example).
    let (code, _) = check(&["--policy", "examples/strict-rules/policy/", "examples/kubernetes/deployment.yaml"]);
    assert_eq!(code, 0);
}

/// acceptance.bats: "Can verify rego tests that uses parse_combined_config_files": 2 tests,
/// 2 passed (the files are read beside the test's policy, a multi-document file one entry per
/// document).
#[test]
fn verify_with_parse_combined_config_files() {
    let r = run_in(&suite(), &["policy", "test", "--policy", "./examples/kubernetes/combine"], None);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("2 tests, 2 passed"), "{}", r.stdout);
}

/// acceptance.bats: "Verify command has report flag - success with print output": the test
/// passes and what the policy printed (`sample`) is shown with it.
#[test]
fn verify_shows_prints_per_test() {
    let args =
        ["policy", "test", "--policy", "./examples/report/policy_print", "--policy", "./examples/report/success"];
    let r = run_in(&suite(), &args, None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "PRNT  ./examples/report/policy_print/labels.rego:14: sample\n\
         PASS ./examples/report/success/success_test.rego:8: data.main.test_no_missing_label\n\
         \n1 test, 1 passed, 0 failures, 0 errors, 0 skipped\n"
    );
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let r = run_in(&suite(), &json_args, None);
    assert_eq!(
        json(&r)["tests"][0]["prints"],
        serde_json::json!(["./examples/report/policy_print/labels.rego:14: sample"])
    );
    let mut junit_args = args.to_vec();
    junit_args.extend(["--format", "junit"]);
    let r = run_in(&suite(), &junit_args, None);
    assert!(
        r.stdout.contains("<system-out>./examples/report/policy_print/labels.rego:14: sample</system-out>"),
        "{}",
        r.stdout
    );
}

/// acceptance.bats, `conftest test` on examples/kubernetes, examples/data and
/// examples/exceptions: (conftest test, the equivalent arguments, conftest's exit code, the
/// findings conftest reports as failures/warnings/exceptions).
#[test]
fn test_command_verdicts() {
    let deny_root = "error[policy-deny]: Containers must not run as root in Deployment hello-kubernetes";
    let cases: [(&str, &[&str], i32, &[&str]); 8] = [
        (
            "Not fail when testing a service with a warning",
            &["--policy", "examples/kubernetes/policy", "examples/kubernetes/service.yaml"],
            0,
            &["warning[policy-warn]: Found service hello-kubernetes but services are not allowed"],
        ),
        (
            "Fail when testing a service with warnings (--fail-on-warn)",
            &["--fail-level", "warning", "--policy", "examples/kubernetes/policy", "examples/kubernetes/service.yaml"],
            1,
            &["warning[policy-warn]: Found service hello-kubernetes but services are not allowed"],
        ),
        (
            "Fail when testing a deployment with root containers",
            &["--policy", "examples/kubernetes/policy", "examples/kubernetes/deployment.yaml"],
            1,
            &[
                deny_root,
                "error[policy-deny]: Deployment hello-kubernetes must provide app/release labels for pod selectors",
                "error[policy-deny]: Found deployment hello-kubernetes but deployments are not allowed",
                "error[policy-deny]: hello-kubernetes must include Kubernetes recommended labels",
            ],
        ),
        (
            // conftest: 0 and silence; driftlint warns that nothing declares the namespace.
            "Pass when testing a blank namespace",
            &[
                "--namespace",
                "notpresent",
                "--policy",
                "examples/kubernetes/policy",
                "examples/kubernetes/deployment.yaml",
            ],
            0,
            &["warning[policy-error]: no policy declares package `notpresent`"],
        ),
        (
            "Multi-file tests correctly fail when last file is fine",
            &[
                "--policy",
                "examples/kubernetes/policy",
                "examples/kubernetes/deployment.yaml",
                "examples/kubernetes/service.yaml",
            ],
            1,
            &[deny_root],
        ),
        (
            "Can load data along with rego policies",
            &["--policy", "examples/data/policy", "--data", "examples/data/exclusions", "examples/data/service.yaml"],
            1,
            &["error[policy-deny]: Cannot expose port 22 on LoadBalancer. Denied ports: [22, 21]"],
        ),
        (
            "Exceptions reported correctly (1 failure, 1 exception)",
            &["--policy", "examples/exceptions/policy", "examples/exceptions/deployments.yaml"],
            1,
            &[
                "error[policy-deny]: Containers must not run as root in Deployment cannot-run-as-root",
                "suppressed[policy-deny]: Containers must not run as root in Deployment can-run-as-root",
            ],
        ),
        (
            "Fail when testing a deployment with root containers (--all-namespaces)",
            &["--all-namespaces", "--policy", "examples/kubernetes/policy", "examples/kubernetes/deployment.yaml"],
            1,
            &[deny_root],
        ),
    ];
    for (name, args, code, expected) in cases {
        let (got_code, lines) = check(args);
        assert_eq!(got_code, code, "{name}: {lines:?}");
        for want in expected {
            assert!(lines.iter().any(|l| l.contains(want)), "{name}: {want} not in {lines:?}");
        }
    }
}

/// acceptance.bats, `conftest verify`: (conftest test, arguments, exit code, summary).
#[test]
fn verify_command_verdicts() {
    let cases: [(&str, &[&str], i32, &str); 5] = [
        ("Can verify rego tests", &["--policy", "./examples/kubernetes/policy"], 0, "4 tests, 4 passed"),
        (
            "Verify command matches a namespace literally",
            &["--policy", "./examples/kubernetes/policy", "--namespace", "main"],
            0,
            "4 tests, 4 passed",
        ),
        (
            "Verify command matches namespaces with a wildcard",
            &["--policy", "./examples/kubernetes/policy", "--namespace", "ma*"],
            0,
            "4 tests, 4 passed",
        ),
        (
            "Verify command filters out non-matching namespaces",
            &["--policy", "./examples/kubernetes/policy", "--namespace", "doesnotexist"],
            0,
            "0 tests, 0 passed",
        ),
        (
            "Can load data in unit tests",
            &["-p", "examples/data/policy", "-d", "examples/data/exclusions"],
            0,
            "1 test, 1 passed, 0 failures",
        ),
    ];
    for (name, args, code, summary) in cases {
        let mut all = vec!["policy", "test"];
        all.extend_from_slice(args);
        let r = run_in(&suite(), &all, None);
        assert_eq!(r.code, code, "{name}: {}\n{}", r.stdout, r.stderr);
        assert!(r.stdout.contains(summary), "{name}: {}", r.stdout);
    }
    // "Verify command has report flag - failure with report fails": the failing test is named.
    let r = run_in(
        &suite(),
        &["policy", "test", "--policy", "./examples/report/policy", "--policy", "./examples/report/fail"],
        None,
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("FAIL ./examples/report/fail/failing_test.rego:8: data.main.test_missing_required_label_fail"),
        "{}",
        r.stdout
    );
}
