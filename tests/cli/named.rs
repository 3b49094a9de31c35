//! `driftlint check FILE…` in a repository with a configuration: the repository as a whole is
//! the context (a required object is missing only when the repository lacks it), the named
//! files are what is reported — what pre-commit means by the file names it passes.

use std::path::Path;

use super::{copy_dir, json, root, run_in};

/// The bundled example as a repository of its own: manifests, the reference beside them.
fn repository() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("fixtures/repo"), tmp.path());
    copy_dir(&root().join("fixtures/reference"), &tmp.path().join("reference"));
    std::fs::write(
        tmp.path().join(".driftlint.yaml"),
        "reference: reference\nexclude:\n  - config/values.yaml\nrules:\n  unmatched-resource: warning\n",
    )
    .unwrap();
    tmp
}

/// (rule, file) of every finding, and the run's stderr.
fn check(dir: &Path, paths: &[&str]) -> (Vec<(String, String)>, String) {
    let mut args = vec!["check", "--format", "json"];
    args.extend_from_slice(paths);
    let r = run_in(dir, &args, None);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let found = json(&r)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["rule"].as_str().unwrap().to_string(), d["file"].as_str().unwrap_or("").to_string()))
        .collect();
    (found, r.stderr)
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn named_files_are_reported_against_the_whole_repository() {
    let tmp = repository();
    let dir = tmp.path();
    // One file named: its own findings; the other file's drift is counted, not shown; no
    // required object is "missing" because the other files hold them.
    let (found, stderr) = check(dir, &["config/settings.yaml"]);
    assert_eq!(
        found,
        pairs(&[("value-drift", "config/settings.yaml"), ("unmatched-resource", "config/settings.yaml")])
    );
    assert!(stderr.contains("note: 1 finding in files not named here not shown"), "{stderr}");
    let (found, _) = check(dir, &["app/frontend.yaml"]);
    assert_eq!(found, pairs(&[("value-drift", "app/frontend.yaml")]));
    // Every file named (`pre-commit run --all-files`) is the whole check.
    let (all, stderr) = check(dir, &["app/frontend.yaml", "config/settings.yaml", "namespace.yaml"]);
    let (whole, _) = check(dir, &[]);
    assert_eq!(all, whole);
    assert_eq!(all.len(), 3, "{all:?}");
    assert!(!stderr.contains("not shown"), "{stderr}");
}

#[test]
fn a_missing_required_object_shows_for_the_files_of_its_component() {
    let tmp = repository();
    let dir = tmp.path();
    std::fs::remove_file(dir.join("namespace.yaml")).unwrap();
    // The repository lacks the Namespace: the whole check says so …
    let (whole, _) = check(dir, &[]);
    assert!(whole.contains(&("missing-resource".to_string(), "reference/metadata.yaml".to_string())), "{whole:?}");
    // … a file of another component does not answer for it …
    let (found, _) = check(dir, &["config/settings.yaml"]);
    assert!(found.iter().all(|(rule, _)| rule != "missing-resource"), "{found:?}");
    // … while a file whose objects belong to the component does: the Service of `app` is
    // taken out of the Deployment's file, which still holds the component's Deployment.
    let frontend = std::fs::read_to_string(dir.join("app/frontend.yaml")).unwrap();
    let deployment_only = frontend.split("\n---\n").next().unwrap().to_string() + "\n";
    std::fs::write(dir.join("app/frontend.yaml"), deployment_only).unwrap();
    let (found, _) = check(dir, &["app/frontend.yaml"]);
    let missing: Vec<_> = found.iter().filter(|(rule, _)| rule == "missing-resource").collect();
    assert_eq!(missing.len(), 1, "the Service of component `app`, not the Namespace: {found:?}");
    let (found, _) = check(dir, &["config/settings.yaml"]);
    assert!(found.iter().all(|(rule, _)| rule != "missing-resource"), "{found:?}");
}

#[test]
fn a_named_file_stays_a_policy_input_in_the_whole_repository_check() {
    // Named files are policy inputs whatever they hold (conftest's behaviour), also when the
    // repository is the context and they are the scope; a tool's file (kustomization.yaml),
    // otherwise left out with a note, is read when it is a policy input.
    let tmp = repository();
    let dir = tmp.path();
    std::fs::write(dir.join("docker-compose.yaml"), "services:\n  web:\n    image: nginx:latest\n").unwrap();
    std::fs::write(dir.join("kustomization.yaml"), "resources: [app/frontend.yaml]\nnamePrefix: prod-\n").unwrap();
    std::fs::create_dir_all(dir.join("policy")).unwrap();
    std::fs::write(
        dir.join("policy/compose.rego"),
        "package main\nimport rego.v1\n\ndeny contains msg if {\n  some name, svc in input.services\n  endswith(svc.image, \":latest\")\n  msg := sprintf(\"service %s uses a latest image\", [name])\n}\n\ndeny contains msg if {\n  input.namePrefix\n  msg := \"namePrefix renames every object\"\n}\n",
    )
    .unwrap();
    let r = run_in(
        dir,
        &["check", "--format", "json", "--policy", "policy", "docker-compose.yaml", "kustomization.yaml"],
        None,
    );
    let v = json(&r);
    let denies: Vec<(&str, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "policy-deny")
        .map(|d| (d["file"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        denies,
        [
            ("docker-compose.yaml", "service web uses a latest image"),
            ("kustomization.yaml", "namePrefix renames every object")
        ],
        "{v}"
    );
}

#[test]
fn findings_a_named_definition_or_policy_causes_elsewhere_are_shown() {
    let tmp = repository();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("crds")).unwrap();
    std::fs::write(
        dir.join("crds/widget.yaml"),
        driftlint_test_support::fixtures::widget_crd("                size: {type: integer, maximum: 10}\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("w.yaml"),
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: web}\nspec:\n  size: 8\n",
    )
    .unwrap();
    let (found, _) = check(dir, &["crds/widget.yaml"]);
    assert!(!found.iter().any(|(r, _)| r == "schema-invalid-value"), "{found:?}");
    // The commit lowers the maximum and names only the CRD: the instance it breaks is shown.
    std::fs::write(
        dir.join("crds/widget.yaml"),
        driftlint_test_support::fixtures::widget_crd("                size: {type: integer, maximum: 5}\n"),
    )
    .unwrap();
    let (found, _) = check(dir, &["crds/widget.yaml"]);
    assert!(found.contains(&("schema-invalid-value".to_string(), "w.yaml".to_string())), "{found:?}");
    // Other files' unrelated findings stay hidden.
    assert!(!found.iter().any(|(r, _)| r == "value-drift"), "{found:?}");
    // Naming the configuration shows everything.
    let (found, _) = check(dir, &[".driftlint.yaml"]);
    assert!(found.iter().any(|(r, f)| r == "value-drift" && f == "app/frontend.yaml"), "{found:?}");
    // A policy named: its findings everywhere.
    std::fs::create_dir_all(dir.join("policy")).unwrap();
    std::fs::write(
        dir.join("policy/main.rego"),
        "package main\n\nimport rego.v1\n\ndeny contains msg if {\n  input.kind == \"Widget\"\n  msg := \"no widgets\"\n}\n",
    )
    .unwrap();
    let config = std::fs::read_to_string(dir.join(".driftlint.yaml")).unwrap();
    std::fs::write(dir.join(".driftlint.yaml"), format!("{config}policies: [policy]\n")).unwrap();
    let (found, _) = check(dir, &["policy/main.rego"]);
    assert!(found.contains(&("policy-deny".to_string(), "w.yaml".to_string())), "{found:?}");
}

#[test]
fn a_named_manifest_that_is_not_checked_is_an_error_saying_why() {
    let tmp = repository();
    let dir = tmp.path();
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stash, namespace: web}\ndata: {a: b}\n";
    std::fs::create_dir_all(dir.join(".stash")).unwrap();
    std::fs::write(dir.join(".stash/cm.yaml"), cm).unwrap();
    std::fs::write(dir.join("config/values.yaml"), cm).unwrap();
    // Not a manifest: a hidden CI file is passed over quietly.
    std::fs::create_dir_all(dir.join(".github/workflows")).unwrap();
    std::fs::write(dir.join(".github/workflows/ci.yml"), "on: push\njobs: {}\n").unwrap();
    for (path, why) in [
        (".stash/cm.yaml", "it is in a hidden directory"),
        ("config/values.yaml", "an `exclude` glob of the configuration leaves it out"),
    ] {
        let r = run_in(dir, &["check", "--format", "json", path], None);
        assert_eq!(r.code, 1, "{path}: {}{}", r.stdout, r.stderr);
        let v = json(&r);
        let errors: Vec<&serde_json::Value> =
            v["diagnostics"].as_array().unwrap().iter().filter(|d| d["file"] == path).collect();
        assert_eq!(errors.len(), 1, "{v}");
        assert_eq!(errors[0]["severity"], "error");
        assert!(errors[0]["message"].as_str().unwrap().contains(why), "{}", errors[0]);
    }
    let r = run_in(dir, &["check", "--format", "json", ".github/workflows/ci.yml"], None);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

#[test]
fn named_files_under_different_configurations_are_a_usage_error() {
    let tmp = repository();
    let dir = tmp.path();
    // A configuration in a subdirectory that a change adds: it must not stand in for the
    // repository's when files elsewhere are named with one in its directory.
    std::fs::create_dir_all(dir.join("0")).unwrap();
    std::fs::write(dir.join("0/.driftlint.yaml"), "rules:\n  value-drift: off\n").unwrap();
    std::fs::write(dir.join("0/x.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n").unwrap();
    let r = run_in(dir, &["check", "0/x.yaml", "app/frontend.yaml"], None);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("under different configurations"), "{}", r.stderr);
    assert!(r.stderr.contains("0/.driftlint.yaml"), "{}", r.stderr);
    // The repository's own files alone: its configuration, the drift shown.
    let r = run_in(dir, &["check", "app/frontend.yaml"], None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
}
