//! `driftlint check --fix / --diff / --unsafe-fixes`: fixes written where the reference fixes
//! a value, every other byte kept; the diff; what is never written (standard input,
//! symlinks, a partially staged file); permissions kept; every report carries the fix.

use std::path::Path;

use super::{Run, copy_dir, git, json, root, run_in, write_files};

/// A reference of one ConfigMap template with `data` (its values fixed unless an action renders
/// them), and a manifest `manifests/cm.yaml`.
fn project(manifest: &str, data: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let template =
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata:\n{data}");
    write_files(
        dir.path(),
        &[
            (
                "reference/metadata.yaml",
                "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n            config:\n              ignore-unspecified-fields: true\n",
            ),
            ("reference/cm.yaml", &template),
            ("manifests/cm.yaml", manifest),
            (".driftlint.yaml", "reference: reference\nexclude:\n  - reference/\n"),
        ],
    );
    dir
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn check(dir: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["check", "manifests", "--isolated", "-r", "reference", "--format", "json"];
    args.extend_from_slice(extra);
    run_in(dir, &args, None)
}

fn rules(run: &Run) -> Vec<(String, String)> {
    json(run)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["rule"].as_str().unwrap().to_string(), d["field"].as_str().unwrap_or("").to_string()))
        .collect()
}

const HEAD: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\n";

/// The example repository of the README: `--fix` repairs both drifts (one in a `kind: List`
/// item), the second check is clean, a second `--fix` changes nothing, and each file differs
/// from the original only in the replaced values.
#[test]
fn fix_then_check_again_finds_nothing_to_fix() {
    let tmp = tempfile::tempdir().unwrap();
    // One repository holds both, as this one does (the configuration's `../reference`).
    git(tmp.path(), &["init", "-q"]);
    copy_dir(&root().join("fixtures/repo"), &tmp.path().join("repo"));
    copy_dir(&root().join("fixtures/reference"), &tmp.path().join("reference"));
    let repo = tmp.path().join("repo");
    let before_app = read(&repo.join("app/frontend.yaml"));
    let before_settings = read(&repo.join("config/settings.yaml"));
    let first = run_in(&repo, &["check", "--fix"], None);
    assert_eq!(first.code, 0, "only the unmatched-resource warning is left:\n{}\n{}", first.stdout, first.stderr);
    assert!(first.stderr.contains("fixed 2 findings in 2 files; 1 finding left"), "{}", first.stderr);
    assert!(!first.stdout.contains("value-drift"), "{}", first.stdout);
    assert_eq!(read(&repo.join("app/frontend.yaml")), before_app.replace("memory: 512Mi", "memory: 256Mi"));
    assert_eq!(
        read(&repo.join("config/settings.yaml")),
        before_settings.replace("log-level: debug", "log-level: info")
    );
    let again = run_in(&repo, &["check", "--format", "json"], None);
    assert_eq!(rules(&again).iter().filter(|(r, _)| r == "value-drift").count(), 0, "{}", again.stdout);
    let second = run_in(&repo, &["check", "--fix"], None);
    assert!(second.stderr.contains("fixed 0 findings in 0 files"), "{}", second.stderr);
    assert_eq!(read(&repo.join("app/frontend.yaml")), before_app.replace("memory: 512Mi", "memory: 256Mi"));
}

/// Strings that YAML 1.1 (Kubernetes' go-yaml v2) would read as another type are quoted; a
/// single-quoted value stays single-quoted; numbers and booleans are written plain; a value
/// an action renders (`computed`) gets no fix.
#[test]
fn fixed_values_keep_their_type() {
    let data = "  mode: \"0755\"\n  flag: \"yes\"\n  onv: \"on\"\n  yv: \"y\"\n  ver: \"1.0\"\n  nothing: \"null\"\n  tilde: \"~\"\n  hex: \"0x1f\"\n  exp: \"1e3\"\n  t: \"true\"\n  quoted: \"it's\"\n  plain: abc\n  computed: {{ \"info\" }}\n";
    let manifest = format!(
        "{HEAD}data:\n  mode: x\n  flag: x\n  onv: x\n  yv: x\n  ver: x\n  nothing: x\n  tilde: x\n  hex: x\n  exp: x\n  t: x\n  quoted: 'x'\n  plain: \"x\"\n  computed: debug\n"
    );
    let dir = project(&manifest, data);
    let before = check(dir.path(), &[]);
    assert_eq!(rules(&before).len(), 13, "{}", before.stdout);
    let fixed = check(dir.path(), &["--fix"]);
    assert_eq!(fixed.code, 1, "`computed` is left: {}", fixed.stderr);
    let text = read(&dir.path().join("manifests/cm.yaml"));
    assert_eq!(
        text,
        format!(
            "{HEAD}data:\n  mode: \"0755\"\n  flag: \"yes\"\n  onv: \"on\"\n  yv: \"y\"\n  ver: \"1.0\"\n  nothing: \"null\"\n  tilde: \"~\"\n  hex: \"0x1f\"\n  exp: \"1e3\"\n  t: \"true\"\n  quoted: 'it''s'\n  plain: \"abc\"\n  computed: debug\n"
        )
    );
    assert_eq!(rules(&check(dir.path(), &[])), vec![("value-drift".to_string(), "/data/computed".to_string())]);
}

/// CRLF line endings, a flow mapping and a trailing comment are kept around the new value.
#[test]
fn line_endings_flow_style_and_comments_are_kept() {
    let manifest = format!("{HEAD}data: {{level: debug, other: keep}}\n").replace('\n', "\r\n") + "# end\r\n";
    let dir = project(&manifest, "  level: info\n");
    let fixed = check(dir.path(), &["--fix"]);
    assert!(fixed.stderr.contains("fixed 1 finding"), "{}", fixed.stderr);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), manifest.replace("level: debug", "level: info"));

    let manifest = format!("{HEAD}data:\n  level: debug   # the team's choice\n  other: keep\n");
    let dir = project(&manifest, "  level: \"a, b\"\n");
    check(dir.path(), &["--fix"]);
    assert_eq!(
        read(&dir.path().join("manifests/cm.yaml")),
        manifest.replace("level: debug", "level: a, b"),
        "plain style holds `a, b` in a block mapping"
    );
    let manifest = format!("{HEAD}data: {{level: debug}}\n");
    let dir = project(&manifest, "  level: \"a, b\"\n");
    check(dir.path(), &["--fix"]);
    assert_eq!(
        read(&dir.path().join("manifests/cm.yaml")),
        manifest.replace("debug", "\"a, b\""),
        "in a flow mapping it is quoted"
    );
    assert!(rules(&check(dir.path(), &[])).is_empty());
}

/// `--diff` prints a unified diff, writes nothing, and exits 1 when there is something to fix
/// (0 when not).
#[test]
fn diff_prints_and_writes_nothing() {
    let manifest = format!("{HEAD}data:\n  level: debug\n");
    let dir = project(&manifest, "  level: info\n");
    let diff = run_in(dir.path(), &["check", "manifests", "-r", "reference", "--diff"], None);
    assert_eq!(diff.code, 1, "{}", diff.stderr);
    assert_eq!(
        diff.stdout,
        "--- a/manifests/cm.yaml\n+++ b/manifests/cm.yaml\n@@ -4,4 +4,4 @@\n   name: settings\n   namespace: web\n data:\n-  level: debug\n+  level: info\n"
    );
    assert!(diff.stderr.contains("would fix 1 finding in 1 file"), "{}", diff.stderr);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), manifest);
    // The diff applies with git as it is.
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join("fix.patch"), &diff.stdout).unwrap();
    git(dir.path(), &["apply", "fix.patch"]);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), manifest.replace("debug", "info"));
    let clean = run_in(dir.path(), &["check", "manifests", "-r", "reference", "--diff"], None);
    assert_eq!((clean.code, clean.stdout.as_str()), (0, ""), "{}", clean.stderr);
}

/// Standard input is never written; a symbolic link is not written through; a file keeps its
/// permissions.
#[test]
fn stdin_and_symlinks_are_not_written_and_permissions_are_kept() {
    let manifest = format!("{HEAD}data:\n  level: debug\n");
    let dir = project(&manifest, "  level: info\n");
    let piped = run_in(dir.path(), &["check", "-", "-r", "reference", "--fix"], Some(&manifest));
    assert_eq!(piped.code, 1, "{}", piped.stderr);
    assert!(piped.stderr.contains("fixed 0 findings"), "{}", piped.stderr);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), manifest);

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::os::unix::fs::symlink("manifests/cm.yaml", dir.path().join("link.yaml")).unwrap();
        let linked = run_in(dir.path(), &["check", "link.yaml", "--isolated", "-r", "reference", "--fix"], None);
        assert!(linked.stderr.contains("is a symbolic link"), "{}", linked.stderr);
        assert_eq!(read(&dir.path().join("manifests/cm.yaml")), manifest);
        assert!(dir.path().join("link.yaml").symlink_metadata().unwrap().file_type().is_symlink());

        let file = dir.path().join("manifests/cm.yaml");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        check(dir.path(), &["--fix"]);
        assert_eq!(read(&file), manifest.replace("debug", "info"));
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o640);
        // No temporary file is left behind.
        let names: Vec<_> =
            std::fs::read_dir(dir.path().join("manifests")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["cm.yaml"]);
    }
}

/// Many files fixed at once: `--jobs 1` and `--jobs 2` write the same bytes and print the same
/// report and summary, and the summary counts findings and files exactly (a file with two
/// fixes is one file; a clean file is not written).
#[test]
fn many_files_fix_the_same_on_one_thread_and_two() {
    let fixed = |jobs: &str| {
        let dir = project(&format!("{HEAD}data:\n  level: info\n  mode: slow\n"), "  level: info\n  mode: slow\n");
        let mut files = Vec::new();
        for i in 0..40 {
            let (level, mode) = match i % 4 {
                0 => ("debug", "slow"),
                1 => ("debug", "fast"),
                2 => ("info", "fast"),
                _ => ("info", "slow"),
            };
            let name = format!("manifests/cm-{i:02}.yaml");
            std::fs::write(dir.path().join(&name), format!("{HEAD}data:\n  level: {level}\n  mode: {mode}\n")).unwrap();
            files.push(name);
        }
        let run = check(dir.path(), &["--fix", "--jobs", jobs]);
        let texts: Vec<String> = files.iter().map(|f| read(&dir.path().join(f))).collect();
        let again = check(dir.path(), &["--fix", "--jobs", jobs]);
        (run, texts, again, dir)
    };
    let (one, one_texts, one_again, _a) = fixed("1");
    let (two, two_texts, two_again, _b) = fixed("2");
    // 30 of the 40 files drift (10 of them twice): 40 fixes in 30 files, nothing left.
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert!(one.stderr.contains("fixed 40 findings in 30 files; 0 findings left"), "{}", one.stderr);
    assert_eq!((one.code, &one.stdout, &one.stderr), (two.code, &two.stdout, &two.stderr));
    assert_eq!(one_texts, two_texts);
    for text in &one_texts {
        assert_eq!(text, &format!("{HEAD}data:\n  level: info\n  mode: slow\n"));
    }
    // A second run has nothing to write.
    assert!(one_again.stderr.contains("fixed 0 findings in 0 files; 0 findings left"), "{}", one_again.stderr);
    assert_eq!((&one_again.stdout, &one_again.stderr), (&two_again.stdout, &two_again.stderr));
}

/// `--fix --staged` fixes a file whose work tree text is the staged text it checked, and
/// refuses a partially staged one.
#[test]
fn staged_fixes_only_files_without_unstaged_changes() {
    let manifest = format!("{HEAD}data:\n  level: info\n");
    let dir = project(&manifest, "  level: info\n");
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "clean"]);
    let drifted = manifest.replace("info", "debug");
    std::fs::write(dir.path().join("manifests/cm.yaml"), &drifted).unwrap();
    git(dir.path(), &["add", "manifests/cm.yaml"]);
    let partial = format!("{drifted}# not staged\n");
    std::fs::write(dir.path().join("manifests/cm.yaml"), &partial).unwrap();
    let refused = run_in(dir.path(), &["check", "--staged", "--fix"], None);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stderr.contains("partially staged"), "{}", refused.stderr);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), partial);

    std::fs::write(dir.path().join("manifests/cm.yaml"), &drifted).unwrap();
    let fixed = run_in(dir.path(), &["check", "--staged", "--fix"], None);
    assert_eq!(fixed.code, 0, "{}\n{}", fixed.stdout, fixed.stderr);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), manifest);
}

/// Every format says a finding is fixable: the human help line, the JSON `fix` with its edit,
/// SARIF `fixes` with `artifactChanges` and `replacements`.
#[test]
fn reports_carry_the_fix() {
    let manifest = format!("{HEAD}data:\n  level: debug\n");
    let dir = project(&manifest, "  level: info\n");
    let human = run_in(dir.path(), &["check", "manifests", "-r", "reference"], None);
    assert!(human.stdout.contains("help: fixable with --fix: set `/data/level` to info"), "{}", human.stdout);
    let report = json(&check(dir.path(), &[]));
    let fix = &report["diagnostics"][0]["fix"];
    assert_eq!(fix["safety"], "safe");
    let edit = &fix["edits"][0];
    assert_eq!((edit["line"].as_u64(), edit["column"].as_u64()), (Some(7), Some(10)));
    assert_eq!((edit["expected"].as_str(), edit["replacement"].as_str()), (Some("debug"), Some("info")));
    assert_eq!(&manifest[edit["start"].as_u64().unwrap() as usize..edit["end"].as_u64().unwrap() as usize], "debug");
    let sarif = run_in(dir.path(), &["check", "manifests", "-r", "reference", "--format", "sarif"], None);
    let sarif: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    let change = &sarif["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0];
    assert_eq!(change["artifactLocation"]["uri"], "manifests/cm.yaml");
    let replacement = &change["replacements"][0];
    assert_eq!(replacement["insertedContent"]["text"], "info");
    assert_eq!(replacement["deletedRegion"]["startLine"], 7);
    assert_eq!(replacement["deletedRegion"]["startColumn"], 10);
    assert_eq!(replacement["deletedRegion"]["endColumn"], 15);
}

/// A missing field whose value the reference fixes is added as the last entry of its mapping,
/// at its indentation, with the file's line endings; in a flow mapping it is not.
#[test]
fn missing_fields_are_added_to_block_mappings() {
    let manifest = format!("{HEAD}data:\n  other: keep   # a comment\n# trailing\n");
    let dir = project(&manifest, "  level: \"0755\"\n");
    let fixed = check(dir.path(), &["--fix"]);
    assert!(fixed.stderr.contains("fixed 1 finding"), "{}", fixed.stderr);
    assert_eq!(
        read(&dir.path().join("manifests/cm.yaml")),
        manifest.replace("# a comment\n", "# a comment\n  level: \"0755\"\n")
    );
    assert!(rules(&check(dir.path(), &[])).is_empty());

    let manifest = format!("{HEAD}data:\n    other: keep").replace('\n', "\r\n");
    let dir = project(&manifest, "  level: info\n");
    check(dir.path(), &["--fix"]);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), format!("{manifest}\r\n    level: info\r\n"));

    let manifest = format!("{HEAD}data: {{other: keep}}\n");
    let dir = project(&manifest, "  level: info\n");
    let left = check(dir.path(), &["--fix"]);
    assert_eq!(rules(&left), vec![("missing-field".to_string(), "/data/level".to_string())]);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), manifest);
}

/// Every fix a finding carries is one the rule table documents (`driftlint explain` and
/// docs/rules.md say so from that table), with the same safety.
#[test]
fn findings_carry_only_documented_fixes() {
    use driftlint_core::rules::{FIXES, Fixable};
    let manifest = format!("{HEAD}data:\n  level: debug\n");
    let dir = project(&manifest, "  level: info\n  extra: x\n");
    let report = json(&check(dir.path(), &[]));
    let mut seen = 0;
    for d in report["diagnostics"].as_array().unwrap() {
        let Some(safety) = d["fix"]["safety"].as_str() else { continue };
        let safety = if safety == "safe" { Fixable::Safe } else { Fixable::Unsafe };
        assert!(FIXES.iter().any(|(r, s, _)| r.id() == d["rule"].as_str().unwrap() && *s == safety), "{d}");
        seen += 1;
    }
    assert_eq!(seen, 2);
    let explain = super::run(&["explain", "value-drift"]);
    assert!(explain.stdout.contains("Fixable: yes, a safe fix"), "{}", explain.stdout);
    let explain = super::run(&["explain", "yaml-syntax-error"]);
    assert!(explain.stdout.contains("Fixable: no"), "{}", explain.stdout);
}

/// A removed apiVersion is replaced when the replacement's bundled schema accepts the object
/// unchanged (PodDisruptionBudget policy/v1beta1 → policy/v1); when it does not (an Ingress of
/// extensions/v1beta1 with `backend.serviceName`), there is no fix and the finding says why.
#[test]
fn removed_api_versions_are_replaced_only_when_the_new_schema_accepts_the_object() {
    let dir = tempfile::tempdir().unwrap();
    let pdb = "apiVersion: policy/v1beta1   # old\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels:\n      app: web\n";
    let ingress = "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: web\nspec:\n  backend:\n    serviceName: web\n    servicePort: 80\n";
    write_files(dir.path(), &[("pdb.yaml", pdb), ("ingress.yaml", ingress)]);
    let before = run_in(dir.path(), &["check", ".", "--isolated", "--format", "json"], None);
    let report = json(&before);
    let findings = report["diagnostics"].as_array().unwrap();
    let ingress_finding = findings.iter().find(|d| d["file"].as_str().unwrap().ends_with("ingress.yaml")).unwrap();
    assert!(ingress_finding["fix"].is_null(), "{ingress_finding}");
    let help = ingress_finding["help"].to_string();
    assert!(help.contains("does not accept this object unchanged") && help.contains("backend"), "{help}");
    let fixed = run_in(dir.path(), &["check", ".", "--isolated", "--fix"], None);
    assert!(fixed.stderr.contains("fixed 1 finding in 1 file"), "{}", fixed.stderr);
    assert_eq!(read(&dir.path().join("pdb.yaml")), pdb.replace("policy/v1beta1", "policy/v1"));
    assert_eq!(read(&dir.path().join("ingress.yaml")), ingress);
    let after = run_in(dir.path(), &["check", "pdb.yaml", "--isolated"], None);
    assert_eq!(after.code, 0, "{}", after.stdout);
}

/// The unsafe fixes are offered, not applied by `--fix` alone: a misspelt field with one
/// close match is renamed, a field the reference has no place for is removed, with
/// `--unsafe-fixes`.
#[test]
fn unsafe_fixes_need_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      contaners:\n        - name: web\n          image: web:1\n";
    write_files(dir.path(), &[("deploy.yaml", deployment)]);
    let first = run_in(dir.path(), &["check", ".", "--isolated", "--fix"], None);
    assert!(
        first.stderr.contains("fixed 0 findings") && first.stderr.contains("fixable with --unsafe-fixes"),
        "{}",
        first.stderr
    );
    assert!(first.stdout.contains("did you mean `containers`?"), "{}", first.stdout);
    assert_eq!(read(&dir.path().join("deploy.yaml")), deployment);
    let diff = run_in(dir.path(), &["check", ".", "--isolated", "--diff", "--unsafe-fixes"], None);
    assert!(diff.stdout.contains("-      contaners:\n+      containers:\n"), "{}", diff.stdout);
    run_in(dir.path(), &["check", ".", "--isolated", "--fix", "--unsafe-fixes"], None);
    assert_eq!(read(&dir.path().join("deploy.yaml")), deployment.replace("contaners", "containers"));

    let manifest = format!("{HEAD}  labels:\n    team: a  # why\ndata:\n  level: info\n  other: z\n");
    let dir = project(&manifest, "  level: info\n");
    // Without ignore-unspecified-fields every field is compared.
    let meta = dir.path().join("reference/metadata.yaml");
    std::fs::write(
        &meta,
        read(&meta).replace("            config:\n              ignore-unspecified-fields: true\n", ""),
    )
    .unwrap();
    let found = rules(&check(dir.path(), &[]));
    assert_eq!(found.len(), 2, "{found:?}");
    check(dir.path(), &["--fix"]);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), manifest);
    check(dir.path(), &["--fix", "--unsafe-fixes"]);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), format!("{HEAD}data:\n  level: info\n"));
    assert!(rules(&check(dir.path(), &[])).is_empty());
}

/// A value the template chooses by a condition (`{{ if … }}a{{ else }}b{{ end }}`) is what the
/// reference expects of this object, but whether the value or the condition's input is wrong
/// is a person's call: its fix is unsafe. The same value written unconditionally is safe.
#[test]
fn values_a_condition_chooses_are_unsafe_fixes() {
    let manifest = format!("{HEAD}data:\n  level: debug\n  mode: slow\n");
    let dir = project(&manifest, "  level: {{ if .metadata.labels }}warn{{ else }}info{{ end }}\n  mode: fast\n");
    let run = check(dir.path(), &[]);
    let safety: Vec<(String, String)> = json(&run)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (d["field"].as_str().unwrap_or("").to_string(), d["fix"]["safety"].as_str().unwrap_or("none").to_string())
        })
        .collect();
    assert!(safety.contains(&("/data/level".into(), "unsafe".into())), "{safety:?}");
    assert!(safety.contains(&("/data/mode".into(), "safe".into())), "{safety:?}");
    check(dir.path(), &["--fix"]);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), manifest.replace("slow", "fast"));
    check(dir.path(), &["--fix", "--unsafe-fixes"]);
    assert_eq!(read(&dir.path().join("manifests/cm.yaml")), manifest.replace("slow", "fast").replace("debug", "info"));
    assert!(rules(&check(dir.path(), &[])).is_empty());
}

/// In `dir`: `check CHECK_ARGS --format json`, then `check CHECK_ARGS --fix FLAGS…`; asserts that
/// exactly the files' bytes of the fixes the JSON report carried changed (every other byte
/// kept), that the fixed findings are gone, and that `driftlint compare COMPARE_ARGS -o json`
/// shows no diff for an object whose every finding was fixed. Returns how many were fixed.
fn fix_then_compare(dir: &Path, check_args: &[&str], compare_args: &[&str], flags: &[&str], case: &str) -> usize {
    let unsafe_too = flags.contains(&"--unsafe-fixes");
    let Some(report) = serde_json::from_str::<serde_json::Value>(
        &run_in(dir, &[check_args, &["--format", "json"]].concat(), None).stdout,
    )
    .ok() else {
        return 0;
    };
    let diags = report["diagnostics"].as_array().unwrap();
    let fixes: Vec<&serde_json::Value> = diags
        .iter()
        .filter(|d| {
            (d["fix"]["safety"] == "safe" || (unsafe_too && d["fix"]["safety"] == "unsafe"))
                && d["suppressed"].is_null()
        })
        .collect();
    if fixes.is_empty() {
        return 0;
    }
    // What the files must hold after: the edits the report carried, applied here.
    let mut expected: std::collections::BTreeMap<String, Vec<(usize, usize, String)>> = Default::default();
    for d in &fixes {
        for e in d["fix"]["edits"].as_array().unwrap() {
            let (start, end) = (e["start"].as_u64().unwrap() as usize, e["end"].as_u64().unwrap() as usize);
            expected.entry(e["file"].as_str().unwrap().to_string()).or_default().push((
                start,
                end,
                e["replacement"].as_str().unwrap().to_string(),
            ));
        }
    }
    let originals: Vec<(String, String)> = expected.keys().map(|f| (f.clone(), read(&dir.join(f)))).collect();
    let fixed = run_in(dir, &[check_args, &["--fix"], flags].concat(), None);
    assert!(fixed.stderr.contains(&format!("fixed {} finding", fixes.len())), "{case}: {}", fixed.stderr);
    for (file, original) in originals {
        let mut edits = expected[&file].clone();
        // Insertions at one place go in report order.
        edits.sort_by_key(|(start, end, _)| (*start, *end));
        let mut want = String::new();
        let mut at = 0;
        for (start, end, replacement) in edits {
            want.push_str(&original[at..start]);
            want.push_str(&replacement);
            at = end;
        }
        want.push_str(&original[at..]);
        assert_eq!(read(&dir.join(&file)), want, "{case}: {file}");
    }
    let after = json(&run_in(dir, &[check_args, &["--format", "json"]].concat(), None));
    let left: Vec<(String, String)> = after["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["object"].as_str().unwrap_or("").to_string(), d["field"].as_str().unwrap_or("").to_string()))
        .collect();
    for d in &fixes {
        let id = (d["object"].as_str().unwrap().to_string(), d["field"].as_str().unwrap().to_string());
        assert!(!left.contains(&id), "{case}: {id:?} still reported");
    }
    let compare = run_in(dir, &[&["compare"][..], compare_args, &["-o", "json"]].concat(), None);
    let compare: serde_json::Value = serde_json::from_str(&compare.stdout).unwrap_or_default();
    let mut compared = 0;
    for diff in compare["Diffs"].as_array().into_iter().flatten() {
        let cr = diff["CRName"].as_str().unwrap_or("");
        let all_fixed = fixes.iter().any(|d| d["object"] == cr) && !left.iter().any(|(o, _)| o == cr);
        compared += usize::from(all_fixed);
        assert!(!all_fixed || diff["DiffOutput"].as_str().unwrap_or("").is_empty(), "{case}: {diff}");
    }
    assert!(
        compared > 0 || fixes.iter().all(|d| left.iter().any(|(o, _)| d["object"] == o.as_str())),
        "{case}: no fixed object compared"
    );
    fixes.len()
}

/// The kube-compare corpus: in every case with fixable findings (no diff config, no
/// overrides), `check --fix` changes exactly the bytes of the fixes the JSON report carried,
/// the fixed findings are gone, and `driftlint compare` shows no diff for an object whose
/// every finding was fixed.
#[test]
fn kube_compare_corpus_fixes_leave_no_diff() {
    let Some(corpus) = driftlint_test_support::corpus("kube_compare_corpus_fixes_leave_no_diff", "kube-compare") else {
        return;
    };
    let (mut cases, mut fixed_total) = (0, 0);
    let mut names: Vec<_> = std::fs::read_dir(&corpus).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    for case in names.into_iter().filter(|p| p.join("case.yaml").is_file()) {
        let meta = read(&case.join("case.yaml"));
        if !meta.contains("diffConfig: null") || !meta.contains("overrides: null") || !case.join("resources").is_dir() {
            continue;
        }
        let Some(reference) =
            meta.lines().find_map(|l| l.strip_prefix("reference: ")).map(|r| r.trim_matches('"').to_string())
        else {
            continue;
        };
        let tmp = tempfile::tempdir().unwrap();
        copy_dir(&case, tmp.path());
        let check = [
            "check",
            "resources",
            "-r",
            reference.as_str(),
            "--isolated",
            "--no-builtin-schemas",
            "--schema-mode",
            "ignore",
        ];
        let compare = ["-r", reference.as_str(), "-f", "resources", "-R"];
        let fixed = fix_then_compare(tmp.path(), &check, &compare, &[], &case.display().to_string());
        cases += usize::from(fixed > 0);
        fixed_total += fixed;
    }
    driftlint_test_support::assert_min_cases("kube-compare cases with fixes", cases, 5);
    assert!(fixed_total >= cases);
}

/// The layout bench's telco layout (one directory of it: `cargo bench --bench layout --
/// --emit DIR 10000` wrote `repo/cluster/part-100/`, objects 5000–5049 with the
/// Infrastructure singleton the templates look up) against `fixtures/bench-reference-telco`:
/// `--fix --unsafe-fixes` changes exactly the fixes' bytes and `compare` then shows no diff
/// for any object whose findings were all fixed.
#[test]
fn telco_layout_fixes_leave_no_diff() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("tests/fixtures/fix-telco"), &tmp.path().join("repo"));
    copy_dir(&root().join("fixtures/bench-reference-telco"), &tmp.path().join("reference"));
    let check = ["check", "repo", "-r", "reference", "--isolated", "--no-builtin-schemas", "--schema-mode", "ignore"];
    let compare = ["-r", "reference/metadata.yaml", "-f", "repo", "-R"];
    let fixed = fix_then_compare(tmp.path(), &check, &compare, &["--unsafe-fixes"], "telco");
    assert!(fixed >= 10, "{fixed}");
}

/// A reference of one template `reference/t.yaml` (`template`), compared on every field (no
/// `ignore-unspecified-fields`), and `manifests/m.yaml`.
fn strict_project(template: &str, manifest: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "reference/metadata.yaml",
                "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: t.yaml\n",
            ),
            ("reference/t.yaml", template),
            ("manifests/m.yaml", manifest),
        ],
    );
    dir
}

fn strict_check(dir: &Path, extra: &[&str]) -> Run {
    let mut args =
        vec!["check", "manifests", "--isolated", "-r", "reference", "--schema-mode", "ignore", "--format", "json"];
    args.extend_from_slice(extra);
    run_in(dir, &args, None)
}

/// Two removals that would take every entry of a block mapping are not both applied (the
/// mapping would read as null): the first is, the second is refused and its finding stays.
/// With a missing entry added to the same mapping in the same run, all are applied. A flow
/// mapping gets no removal at all.
#[test]
fn removals_never_leave_an_empty_mapping() {
    const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n";
    // The reference's label is rendered from the object (no fix for it when it is missing).
    let template = format!("{CM}  labels:\n    app: {{{{ .metadata.name }}}}\ndata:\n  level: info\n");
    let manifest =
        format!("{CM}  labels:\n    # who owns it\n    team: a   # a team\n    owner: b\ndata:\n  level: info\n");
    let dir = strict_project(&template, &manifest);
    let found = rules(&strict_check(dir.path(), &[]));
    assert_eq!(found.len(), 3, "{found:?}");
    let fixed = strict_check(dir.path(), &["--fix", "--unsafe-fixes"]);
    assert!(fixed.stderr.contains("fixed 1 finding in 1 file"), "{}", fixed.stderr);
    assert!(fixed.stderr.contains("unexpected-field `/metadata/labels/owner`"), "{}", fixed.stderr);
    assert!(fixed.stderr.contains("which would then read as null"), "{}", fixed.stderr);
    let text = read(&dir.path().join("manifests/m.yaml"));
    assert_eq!(text, manifest.replace("    team: a   # a team\n", ""));
    let after = driftlint_yaml::parse_stream(&text);
    assert!(after.error.is_none());
    assert_eq!(
        after.documents[0].root.pointer("/metadata/labels").unwrap().to_json(),
        serde_json::json!({"owner": "b"})
    );
    // The entry left has no fix: a mapping's last entry is never removed.
    let again = json(&strict_check(dir.path(), &[]));
    let owner =
        again["diagnostics"].as_array().unwrap().iter().find(|d| d["field"] == "/metadata/labels/owner").unwrap();
    assert!(owner["fix"].is_null(), "{owner}");
    let second = strict_check(dir.path(), &["--fix", "--unsafe-fixes"]);
    assert!(second.stderr.contains("fixed 0 findings"), "{}", second.stderr);
    assert_eq!(read(&dir.path().join("manifests/m.yaml")), text);

    // The reference's label is fixed text: added in the same run, the mapping keeps an entry.
    let template = format!("{CM}  labels:\n    app: web\ndata:\n  level: info\n");
    let dir = strict_project(&template, &manifest);
    let fixed = strict_check(dir.path(), &["--fix", "--unsafe-fixes"]);
    assert!(fixed.stderr.contains("fixed 3 findings in 1 file"), "{}", fixed.stderr);
    assert_eq!(
        read(&dir.path().join("manifests/m.yaml")),
        format!("{CM}  labels:\n    # who owns it\n    app: web\ndata:\n  level: info\n")
    );
    assert!(rules(&strict_check(dir.path(), &[])).is_empty());

    // A flow mapping: no removal is offered, nothing is written.
    let manifest = format!("{CM}  labels: {{team: a, owner: b}}\ndata:\n  level: info\n");
    let dir = strict_project(&template, &manifest);
    let report = json(&strict_check(dir.path(), &[]));
    for d in report["diagnostics"].as_array().unwrap().iter().filter(|d| d["rule"] == "unexpected-field") {
        assert!(d["fix"].is_null(), "{d}");
    }
    strict_check(dir.path(), &["--fix", "--unsafe-fixes"]);
    assert_eq!(read(&dir.path().join("manifests/m.yaml")), manifest);
}

/// A missing mapping or sequence that the template writes as text only is added in block
/// style at its parent's indentation, nested as deep as the file nests `spec` (four columns
/// here), two added at one place in report order; one holding
/// a template action anywhere inside gets no fix. The second check has no such finding.
#[test]
fn missing_mappings_and_sequences_are_added_in_block_style() {
    let head = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n";
    let template = format!(
        "{head}spec:\n  replicas: 1\n  resources:\n    limits:\n      cpu: \"1\"\n      memory: 1Gi\n  ports:\n    - name: http\n      port: 80\n    - name: metrics\n      port: 9090\n  owner:\n    team: core\n    name: {{{{ .metadata.name }}}}\n"
    );
    let manifest = format!("{head}spec:\n    replicas: 1   # one\n");
    let dir = strict_project(&template, &manifest);
    let before = json(&strict_check(dir.path(), &[]));
    let fixable: Vec<&str> = before["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| !d["fix"].is_null())
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert_eq!(fixable, ["/spec/ports", "/spec/resources"], "{before}");
    let fixed = strict_check(dir.path(), &["--fix"]);
    assert!(fixed.stderr.contains("fixed 2 findings in 1 file"), "{}", fixed.stderr);
    assert_eq!(
        read(&dir.path().join("manifests/m.yaml")),
        format!(
            "{manifest}    ports:\n        - name: http\n          port: 80\n        - name: metrics\n          port: 9090\n    resources:\n        limits:\n            cpu: \"1\"\n            memory: 1Gi\n"
        )
    );
    assert_eq!(rules(&strict_check(dir.path(), &[])), vec![("missing-field".to_string(), "/spec/owner".to_string())]);
}

/// The reference of [`project`] for rendered input: a ConfigMap whose `level`, `mode` and
/// labels are fixed text.
fn rendered_project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    write_files(
        dir.path(),
        &[
            (
                "reference/metadata.yaml",
                "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n            config:\n              ignore-unspecified-fields: true\n",
            ),
            (
                "reference/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels:\n    app: web\ndata:\n  level: info\n  mode: \"0755\"\n",
            ),
        ],
    );
    write_files(dir.path(), files);
    dir
}

/// `kustomize build` of a base that only lists `path` with `buildMetadata:
/// [originAnnotations]`: the object re-serialised as kustomize does (keys sorted, lists not
/// indented, comments gone) with its origin annotation. (kubectl 1.32's kustomize v5.5.0
/// printed exactly this for these files.)
fn kustomize_build(dir: &Path, path: &str, origin: &str) -> String {
    let text = read(&dir.join(path));
    let mut object = driftlint_yaml::parse_stream(&text).documents.remove(0).root.to_json();
    object["metadata"]["annotations"] = serde_json::json!({"config.kubernetes.io/origin": format!("path: {origin}\n")});
    driftlint_yaml::to_yaml_string(&object)
}

/// Runs `driftlint check - ARGS` on `stdin` in `dir`.
fn check_stdin(dir: &Path, stdin: &str, args: &[&str]) -> Run {
    let mut all = vec!["check", "-", "--isolated", "-r", "reference"];
    all.extend_from_slice(args);
    run_in(dir, &all, Some(stdin))
}

/// Applies a unified diff to the work tree of `dir` with `git apply` (as a user would).
fn apply_patch(dir: &Path, diff: &str) {
    std::fs::write(dir.join("fix.patch"), diff).unwrap();
    git(dir, &["apply", "fix.patch"]);
    std::fs::remove_file(dir.join("fix.patch")).unwrap();
}

/// `kustomize build … | driftlint check - --diff`: the fixes of the rendered object are a diff
/// against the base file the origin annotation names, made where its bytes are the rendered
/// ones (comments and indentation of the source kept, a missing mapping added in block
/// style); the diff applies with `git apply`, and the rendered output built again is clean.
/// `--fix` writes nothing and says to use `--diff`; every report says the fix is in the
/// source.
#[test]
fn rendered_kustomize_output_gets_a_diff_against_the_source() {
    let base = "# the team's settings\napiVersion: v1\nkind: ConfigMap\nmetadata:\n    name: settings\ndata:\n    level: debug   # why\n    mode: \"0644\"\n";
    let dir = rendered_project(&[
        ("base/cm.yaml", base),
        ("base/kustomization.yaml", "resources:\n  - cm.yaml\nbuildMetadata: [originAnnotations]\n"),
    ]);
    let rendered = kustomize_build(dir.path(), "base/cm.yaml", "cm.yaml");
    assert!(rendered.starts_with("apiVersion: v1\ndata:\n  level: debug\n"), "{rendered}");
    let args = ["--origin-root", "base"];

    let fix = check_stdin(dir.path(), &rendered, &[&args[..], &["--fix"]].concat());
    assert_eq!(fix.code, 1, "{}", fix.stderr);
    assert!(fix.stderr.contains("fixed 0 findings in 0 files; 3 findings left"), "{}", fix.stderr);
    assert!(fix.stderr.contains("which --fix does not write: see the change with --diff"), "{}", fix.stderr);
    assert_eq!(read(&dir.path().join("base/cm.yaml")), base);

    let human = check_stdin(dir.path(), &rendered, &args);
    assert!(
        human.stdout.contains("help: fixable in the source with --diff: set `/data/level` to info"),
        "{}",
        human.stdout
    );
    let report = json(&check_stdin(dir.path(), &rendered, &[&args[..], &["--format", "json"]].concat()));
    for d in report["diagnostics"].as_array().unwrap() {
        assert_eq!(d["file"], "base/cm.yaml", "{d}");
        assert_eq!(d["fix"]["edits"][0]["file"], "base/cm.yaml", "{d}");
    }

    let diff = check_stdin(dir.path(), &rendered, &[&args[..], &["--diff"]].concat());
    assert_eq!(diff.code, 1, "{}", diff.stderr);
    assert!(diff.stderr.contains("would fix 3 findings in 1 file"), "{}", diff.stderr);
    assert_eq!(
        diff.stdout,
        "--- a/base/cm.yaml\n+++ b/base/cm.yaml\n@@ -3,6 +3,8 @@\n kind: ConfigMap\n metadata:\n     name: settings\n+    labels:\n+        app: web\n data:\n-    level: debug   # why\n-    mode: \"0644\"\n+    level: info   # why\n+    mode: \"0755\"\n"
    );
    assert_eq!(read(&dir.path().join("base/cm.yaml")), base, "--diff writes nothing");
    apply_patch(dir.path(), &diff.stdout);
    let again = kustomize_build(dir.path(), "base/cm.yaml", "cm.yaml");
    let clean = check_stdin(dir.path(), &again, &[&args[..], &["--diff"]].concat());
    assert_eq!((clean.code, clean.stdout.as_str()), (0, ""), "{}", clean.stderr);
    assert_eq!(check_stdin(dir.path(), &again, &args).code, 0);
}

/// Where the source does not hold the rendered bytes (an overlay's patch set the value, a
/// `namePrefix` renamed the object), or the origin cannot be read, the finding has no fix and
/// does not say it is fixable; nothing is shown by `--diff`.
#[test]
fn rendered_fields_the_source_does_not_hold_get_no_fix() {
    let base = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels:\n    app: web\ndata:\n  level: debug\n  mode: \"0755\"\n";
    let dir = rendered_project(&[("base/cm.yaml", base)]);
    // An overlay's patch made `level` `warn`: the base's `debug` is not what was checked.
    let patched = kustomize_build(dir.path(), "base/cm.yaml", "cm.yaml").replace("level: debug", "level: warn");
    let missing = patched.replace("path: cm.yaml", "path: absent.yaml");
    for stdin in [patched, missing] {
        let run = check_stdin(dir.path(), &stdin, &["--origin-root", "base"]);
        assert_eq!(run.code, 1, "{}", run.stdout);
        assert!(run.stdout.contains("value-drift") && !run.stdout.contains("fixable"), "{}", run.stdout);
        let diff = check_stdin(dir.path(), &stdin, &["--origin-root", "base", "--diff"]);
        assert_eq!((diff.code, diff.stdout.as_str()), (0, ""), "{}", diff.stderr);
    }
    // Plain standard input (no renderer named a source): no fix either.
    let plain = check_stdin(dir.path(), &base.replace("debug", "warn"), &["--format", "json"]);
    let report = json(&plain);
    assert!(report["diagnostics"].as_array().unwrap().iter().all(|d| d["fix"].is_null()), "{report}");
}

/// `helm template … | driftlint check - --diff`: a value the chart template writes as text on
/// one line is fixed there (its comment kept); one an action renders, one an `if`/`else`
/// writes twice, and a missing field (no place in a template to add it with certainty) get
/// no fix. The diff applies with `git apply`; the chart rendered again is clean for the fixed
/// field.
#[test]
fn rendered_helm_output_gets_a_diff_against_the_template() {
    let template = "{{- if .Values.enabled }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels:\n{{- if .Values.strict }}\n    app: api\n{{- else }}\n    app: api\n{{- end }}\ndata:\n  level: debug  # the chart's default\n  mode: {{ .Values.mode | quote }}\n{{- end }}\n";
    let dir = rendered_project(&[("chart/templates/cm.yaml", template)]);
    // `helm template` with `enabled: true`, `strict: false`, `mode: "0644"`.
    let helm_template = |dir: &Path| {
        let text = read(&dir.join("chart/templates/cm.yaml"));
        let mut out = String::from("---\n# Source: chart/templates/cm.yaml\n");
        let mut skipping = false;
        for line in text.lines() {
            match line.trim() {
                "{{- if .Values.strict }}" => skipping = true,
                "{{- else }}" => skipping = false,
                l if l.starts_with("{{-") => {}
                _ if skipping => {}
                _ => {
                    out.push_str(&line.replace("{{ .Values.mode | quote }}", "\"0644\""));
                    out.push('\n');
                }
            }
        }
        out
    };
    let rendered = helm_template(dir.path());
    let args = ["--origin-root", "."];
    let report = json(&check_stdin(dir.path(), &rendered, &[&args[..], &["--format", "json"]].concat()));
    let fixable: Vec<(&str, &str)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["field"].as_str().unwrap(), if d["fix"].is_null() { "no fix" } else { "fix" }))
        .collect();
    assert_eq!(fixable, [("/metadata/labels/app", "no fix"), ("/data/level", "fix"), ("/data/mode", "no fix")]);
    let diff = check_stdin(dir.path(), &rendered, &[&args[..], &["--diff"]].concat());
    assert_eq!(diff.code, 1, "{}", diff.stderr);
    assert!(
        diff.stdout.contains("-  level: debug  # the chart's default\n+  level: info  # the chart's default\n"),
        "{}",
        diff.stdout
    );
    assert_eq!(diff.stdout.matches("\n-").count(), 1, "{}", diff.stdout);
    apply_patch(dir.path(), &diff.stdout);
    assert_eq!(read(&dir.path().join("chart/templates/cm.yaml")), template.replace("level: debug", "level: info"));
    let again =
        json(&check_stdin(dir.path(), &helm_template(dir.path()), &[&args[..], &["--format", "json"]].concat()));
    let left: Vec<&str> =
        again["diagnostics"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap()).collect();
    assert_eq!(left, ["/metadata/labels/app", "/data/mode"]);
}

/// The schema family's fixes on rendered input are moved the same way: a removed apiVersion
/// replaced and (with `--unsafe-fixes`) a misspelt field renamed in the base files.
#[test]
fn rendered_schema_fixes_are_made_in_the_source() {
    let pdb = "apiVersion: policy/v1beta1   # old\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels:\n      app: web\n";
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      contaners:\n        - name: web\n          image: web:1\n";
    let dir = rendered_project(&[("base/pdb.yaml", pdb), ("base/deploy.yaml", deployment)]);
    let stdin = |dir: &Path| {
        format!(
            "{}---\n{}",
            kustomize_build(dir, "base/pdb.yaml", "pdb.yaml"),
            kustomize_build(dir, "base/deploy.yaml", "deploy.yaml")
        )
    };
    let args = ["--origin-root", "base", "--unsafe-fixes", "--diff"];
    let run = run_in(dir.path(), &[&["check", "-", "--isolated"][..], &args[..]].concat(), Some(&stdin(dir.path())));
    assert!(run.stderr.contains("would fix 2 findings in 2 files"), "{}", run.stderr);
    apply_patch(dir.path(), &run.stdout);
    assert_eq!(read(&dir.path().join("base/pdb.yaml")), pdb.replace("policy/v1beta1", "policy/v1"));
    assert_eq!(read(&dir.path().join("base/deploy.yaml")), deployment.replace("contaners", "containers"));
    let again = run_in(dir.path(), &["check", "-", "--isolated", "--origin-root", "base"], Some(&stdin(dir.path())));
    assert_eq!(again.code, 0, "{}", again.stdout);
}
