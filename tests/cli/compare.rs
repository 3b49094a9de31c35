//! `driftlint compare` against the kube-compare corpus, in the formats the JSON scorer does not
//! check: the default text report and the formats upstream's own tests used (YAML, JUnit,
//! generate-patches). Every case listed in `tests/conformance/passing-kube-compare.txt` must
//! reproduce kube-compare's bytes after the corpus' own normalisation (temp paths → `TEMP`,
//! dates → `DATE`, JUnit timestamps → `TIME`, case folder → `.`).

use std::path::Path;

use regex::Regex;

use super::{root, run_in};

fn passing_cases() -> Vec<String> {
    std::fs::read_to_string(root().join("tests/conformance/passing-kube-compare.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// A case's invocation, read from its `case.yaml`.
struct Case {
    args: Vec<String>,
    env: Vec<(String, String)>,
    native: Option<(String, String, i64)>,
}

fn read_case(dir: &Path) -> Case {
    let text = std::fs::read_to_string(dir.join("case.yaml")).unwrap();
    let stream = driftlint_yaml::parse_stream(&text);
    let v = stream.documents[0].root.to_json();
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let b = |k: &str| v.get(k).and_then(serde_json::Value::as_bool).unwrap_or(false);
    let mut args = vec!["compare".to_string()];
    if let Some(r) = s("reference") {
        args.extend(["-r".into(), r]);
    }
    for i in v.get("inputs").and_then(|x| x.as_array()).into_iter().flatten() {
        args.extend(["-f".into(), i.as_str().unwrap().to_string()]);
    }
    for (flag, key) in [("-R", "recursive"), ("-A", "allResources"), ("-v", "verbose")] {
        if b(key) {
            args.push(flag.into());
        }
    }
    for (flag, key) in [("-c", "diffConfig"), ("-p", "overrides"), ("--override-reason", "overrideReason")] {
        if let Some(x) = s(key) {
            args.extend([flag.into(), x]);
        }
    }
    for g in v.get("generateOverrideFor").and_then(|x| x.as_array()).into_iter().flatten() {
        args.extend(["--generate-override-for".into(), g.as_str().unwrap().to_string()]);
    }
    let env = v
        .get("env")
        .and_then(|e| e.as_object())
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect())
        .unwrap_or_default();
    let native = v.get("native").filter(|n| n.is_object()).map(|n| {
        (
            n["output"].as_str().unwrap().to_string(),
            n.get("file").and_then(|f| f.as_str()).unwrap_or_default().to_string(),
            n["expectExit"].as_i64().unwrap(),
        )
    });
    Case { args, env, native }
}

fn normalise(out: &str, dir: &Path) -> String {
    let temp = Regex::new(r"\S*/(MERGED|LIVE)-\d+").unwrap();
    let date = Regex::new(r"\d{4}-\d{2}-\d{2}\s*\d{2}:\d{2}:\d{2}(:?\.\d{9} [+-]\d{4})?").unwrap();
    let out = temp.replace_all(out, "TEMP");
    let out = date.replace_all(&out, "DATE");
    let d = dir.to_string_lossy();
    out.replace(&format!("{d}/"), "./").replace(d.as_ref(), ".")
}

fn run_case(dir: &Path, args: &[String], env: &[(String, String)]) -> super::Run {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_driftlint"));
    cmd.args(args).current_dir(dir).envs(env.iter().cloned()).env_remove("KUBECTL_EXTERNAL_DIFF");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    super::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn text_and_native_outputs_match_kube_compare() {
    let Some(dir) = driftlint_test_support::corpus("text_and_native_outputs_match_kube_compare", "kube-compare") else {
        return;
    };
    let junit_time = Regex::new(r#"timestamp="[^"]+""#).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for name in passing_cases() {
        let case_dir = std::fs::canonicalize(dir.join(&name)).unwrap();
        let case = read_case(&case_dir);
        if let Ok(want) = std::fs::read_to_string(case_dir.join("expected.txt")) {
            let r = run_case(&case_dir, &case.args, &case.env);
            checked += 1;
            if normalise(&r.stdout, &case_dir) != want {
                failures.push(format!("{name}: text output differs"));
            }
        }
        if let Some((format, file, exit)) = &case.native {
            let mut args = case.args.clone();
            args.extend(["-o".into(), format.clone()]);
            let r = run_case(&case_dir, &args, &case.env);
            let want =
                if file.is_empty() { String::new() } else { std::fs::read_to_string(case_dir.join(file)).unwrap() };
            let want = junit_time.replace_all(&want, r#"timestamp="TIME""#);
            let got = normalise(&r.stdout, &case_dir);
            let got = junit_time.replace_all(&got, r#"timestamp="TIME""#);
            checked += 1;
            if got != want || i64::from(r.code) != *exit {
                failures.push(format!("{name}: -o {format} differs (exit {} want {exit})", r.code));
            }
        }
    }
    // 122 outputs when this was written (the ratchet only grows).
    driftlint_test_support::assert_min_cases("outputs of cases in passing-kube-compare.txt", checked, 122);
    assert!(failures.is_empty(), "{} of {checked} outputs differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn usage_errors_exit_2_with_kube_compares_text() {
    let r = run_in(&root(), &["compare", "-f", "fixtures/repo"], None);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "error: \"Reference config file is required\"\nSee 'cluster-compare -h' for help and examples\n"
    );
    let r = run_in(&root(), &["compare", "-r", "fixtures/nope/metadata.yaml", "-f", "fixtures/repo"], None);
    assert_eq!(r.code, 2);
    assert_eq!(r.stderr, "error: \"Reference config file doesn't exist\"\n");
}

#[test]
fn bundled_example_reports_drift_with_exit_1() {
    let r = run_in(
        &root(),
        &["compare", "-r", "fixtures/reference/metadata.yaml", "-f", "fixtures/repo", "-R", "-o", "json"],
        None,
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let diffs = v["Diffs"].as_array().unwrap();
    let deploy =
        diffs.iter().find(|d| d["CRName"] == "apps/v1_Deployment_web_frontend").expect("the Deployment is compared");
    let out = deploy["DiffOutput"].as_str().unwrap();
    assert!(out.contains("-            memory: 256Mi\n") && out.contains("+            memory: 512Mi\n"), "{out}");
}
