//! The hostile-input matrix (docs/security.md): what a pull request nobody reviewed can put in a
//! repository — a configuration, file names, manifests, a reference — run through the real
//! binary. Every run is bounded by resource limits (`ulimit -t` CPU seconds, `ulimit -v`
//! address space), never by wall-clock assertions: a run that loops or balloons is killed by the
//! kernel and the test fails on the signal.

use std::path::Path;
use std::process::{Command, Stdio};

use super::{Run, copy_dir, root};

/// CPU seconds a run may use: generous for a debug build on a loaded 2-core machine, far below
/// what a quadratic or unbounded run needs.
const CPU_SECONDS: u32 = 60;
/// Address space a run may use (KiB).
const MEMORY_KIB: u64 = 3 * 1024 * 1024;

/// Runs `driftlint ARGS` in `dir` under the limits, standard input from `stdin` (a file) or
/// nothing. Panics when the kernel killed it (the limits were hit).
fn run_limited(dir: &Path, args: &[&str], stdin: Option<&Path>) -> Run {
    run_limited_to(dir, args, stdin, MEMORY_KIB)
}

/// [`run_limited`] with an address-space limit of `memory_kib`.
fn run_limited_to(dir: &Path, args: &[&str], stdin: Option<&Path>, memory_kib: u64) -> Run {
    run_limited_env(dir, args, stdin, memory_kib, &[])
}

/// [`run_limited_to`] with `env` set.
fn run_limited_env(dir: &Path, args: &[&str], stdin: Option<&Path>, memory_kib: u64, env: &[(&str, &str)]) -> Run {
    let script = format!("ulimit -t {CPU_SECONDS} && ulimit -v {memory_kib} && exec \"$0\" \"$@\"");
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_driftlint"))
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .env_remove("GITHUB_ACTIONS")
        .stdin(match stdin {
            Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
            None => Stdio::null(),
        })
        .output()
        .expect("sh runs");
    let code = out
        .status
        .code()
        .unwrap_or_else(|| panic!("driftlint {args:?} was killed ({:?}): it hit the CPU or memory limit", out.status));
    Run {
        code,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A temporary repository (`git init`) with the fixture reference in `reference/` and the given
/// configuration.
fn repository(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    super::git(dir.path(), &["init", "-q"]);
    copy_dir(&root().join("fixtures/reference"), &dir.path().join("reference"));
    std::fs::write(dir.path().join(".driftlint.yaml"), config).unwrap();
    dir
}

const DRIFTING_CONFIGMAP: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata:\n  log-level: debug\n";

// 1. Arbitrary file write.

#[test]
fn the_configuration_cannot_choose_output_files() {
    let dir = repository("reference: reference\nformat: human,concise=victim.sh\n");
    let victim = dir.path().join("victim.sh");
    std::fs::write(&victim, "echo untouched\n").unwrap();
    std::fs::write(dir.path().join("cm.yaml"), DRIFTING_CONFIGMAP).unwrap();
    let r = run_limited(dir.path(), &["check"], None);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains(".driftlint.yaml:2:9: `format:` names formats only"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "echo untouched\n");
    // Formats alone are fine, and the command line still names files.
    std::fs::write(dir.path().join(".driftlint.yaml"), "reference: reference\nformat: concise\n").unwrap();
    let r = run_limited(dir.path(), &["check"], None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("cm.yaml:7:14: error[value-drift]"), "{}", r.stdout);
    let r = run_limited(dir.path(), &["check", "--format", "json=out.json"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(dir.path().join("out.json").is_file());
}

// 2. Arbitrary file read.

#[test]
fn configured_paths_stay_inside_the_repository() {
    let dir = repository("");
    std::fs::write(dir.path().join("cm.yaml"), DRIFTING_CONFIGMAP).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("passwd.yaml")).unwrap();
    std::fs::create_dir_all(dir.path().join("sub")).unwrap();
    let cases = [
        ("diff-config: /etc/passwd\n", "is an absolute path"),
        ("diff-config: ../../../../../../etc/passwd\n", "leaves the repository"),
        ("overrides: .git/config\n", "is inside .git"),
        ("overrides: sub/../.git/config\n", "is inside .git"),
        ("diff-config: passwd.yaml\n", "leads out of the repository through a symlink"),
        ("reference: /etc\n", "is an absolute path"),
        ("reference: git+file:///etc@HEAD:x\n", "reads another repository on this machine"),
        ("markdown-template: /proc/self/environ\n", "accepted on the command line only"),
    ];
    for (config, why) in cases {
        let text = if config.starts_with("reference") {
            config.to_string()
        } else {
            format!("reference: reference\n{config}")
        };
        std::fs::write(dir.path().join(".driftlint.yaml"), &text).unwrap();
        let r = run_limited(dir.path(), &["check", "--format", "concise"], None);
        assert_eq!(r.code, 2, "{config}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(".driftlint.yaml:") && r.stderr.contains(why), "{config}: {}", r.stderr);
        assert!(!r.stderr.contains("root:") && !r.stdout.contains("root:"), "{config} leaked a file");
    }
    // The command line may name any file: the person running driftlint chose it.
    std::fs::write(dir.path().join(".driftlint.yaml"), "reference: reference\n").unwrap();
    let empty = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(empty.path(), "[]\n").unwrap();
    let r = run_limited(
        dir.path(),
        &["check", "cm.yaml", "--overrides", empty.path().to_str().unwrap(), "--format", "concise"],
        None,
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
}

// 3. Workflow-command and terminal injection.

/// A manifest file name that tries to start a workflow command and move the cursor.
const HOSTILE_NAME: &str = "x\n::error file=README.md,line=1,title=SECURITY::pwned\n\u{1b}[1A\u{1b}[2Kz.yaml";

/// A drifting ConfigMap whose values, keys and suppression reason carry escapes.
const HOSTILE_CONFIGMAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\n  annotations:\n    driftlint.io/ignore: \"unexpected-field: \\e[31mfine\\r\\n::warning::suppressed\"\ndata:\n  log-level: \"\\e[2K\\e[1Adebug\\n::error file=README.md::injected\"\n  \"\\e]0;title\\a\": \"\\u202Eevil\"\n";

fn assert_clean(format: &str, text: &str) {
    assert!(!text.contains('\u{1b}'), "{format}: raw ESC in\n{text}");
    assert!(!text.contains('\u{7}'), "{format}: raw BEL in\n{text}");
    assert!(!text.contains('\u{202e}'), "{format}: raw bidi override in\n{text}");
    assert!(!text.contains("\r\n::") && !text.contains('\r'), "{format}: raw CR in\n{text}");
    for line in text.lines() {
        // ` ::: file:line` is the human format's marker of a secondary location: its command
        // name would be `:`, which is no command.
        let command = line.trim_start().starts_with("::") && !line.trim_start().starts_with(":::");
        if format == "github" {
            // One command per line, whose `file` property is the hostile file's own name.
            let props = line.split_once(' ').and_then(|(_, rest)| rest.split_once("::")).map_or("", |(p, _)| p);
            for prop in props.split(',') {
                assert_ne!(prop, "file=README.md", "{format}: injected command {line:?}");
            }
        } else {
            assert!(!command, "{format}: a line GitHub reads as a workflow command: {line:?}");
        }
    }
}

#[test]
fn no_output_lets_repository_text_reach_the_terminal_or_the_log_raw() {
    let dir = repository("reference: reference\n");
    std::fs::write(dir.path().join(HOSTILE_NAME), HOSTILE_CONFIGMAP).unwrap();
    for format in ["human", "concise", "github", "markdown", "junit"] {
        let r = run_limited(dir.path(), &["check", "--format", format], None);
        assert_eq!(r.code, 1, "{format}: {}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("debug") || format == "github" || format == "junit", "{format}:\n{}", r.stdout);
        assert_clean(format, &r.stdout);
        assert_clean(format, &r.stderr);
    }
    let r = run_limited(dir.path(), &["check", "--format", "concise"], None);
    assert!(r.stdout.contains("x\\n::error file=README.md"), "the name is shown, escaped:\n{}", r.stdout);
    // Human output on a terminal colours: still no raw escape from the repository's text.
    let r = run_limited(dir.path(), &["ls"], None);
    assert_clean("ls", &r.stdout);
    assert_clean("ls", &r.stderr);
}

#[test]
fn errors_quoting_configured_values_are_escaped_too() {
    let dir = repository("reference: \"no\\n::error file=README.md::pwned\\e[2K\"\n");
    let r = run_limited(dir.path(), &["check"], None);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert_clean("stderr", &r.stderr);
    assert!(r.stderr.contains("\\n::error") || r.stderr.contains("\\x1b"), "{}", r.stderr);
}

// 4. Quadratic time: one file of many objects.

#[test]
fn one_file_of_many_objects_is_checked_in_linear_time() {
    let dir = repository("reference: reference\n");
    let mut text = String::new();
    for i in 0..20_000 {
        text.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{i}\n  namespace: web\ndata:\n  k: v{i}\n"
        ));
    }
    std::fs::write(dir.path().join("many.yaml"), text).unwrap();
    // Scoped runs go through the change filter too.
    super::git(dir.path(), &["add", "-A"]);
    super::git(dir.path(), &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "many"]);
    let r = run_limited(dir.path(), &["check", "--format", "concise"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("many.yaml:159997:9: warning[unmatched-resource]"), "the last object's line is right");
    assert!(
        r.stdout.ends_with("found 3 errors, 20000 warnings; 20000 objects: 20000 validated against a schema\n"),
        "{}",
        &r.stdout[r.stdout.len().saturating_sub(200)..]
    );
    let r =
        run_limited(dir.path(), &["check", "--base", "HEAD", "--diff-filter", "nofilter", "--format", "json"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
}

// Inputs that already held, kept so they keep holding.

#[test]
fn hostile_yaml_gets_a_diagnostic_not_a_crash() {
    let dir = repository("reference: reference\n");
    let d = dir.path();
    // Billion laughs: nine levels of nine aliases.
    let mut laughs = String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"].iter().zip(["b", "c", "d", "e", "f", "g", "h", "i"]) {
        laughs.push_str(&format!(
            "{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
        ));
    }
    let deep = "[".repeat(100_000);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("laughs.yaml", format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\n{laughs}").into_bytes()),
        ("deep.yaml", format!("apiVersion: v1\nkind: ConfigMap\ndata: {deep}\n").into_bytes()),
        ("nul.yaml", b"apiVersion: v1\nkind: Config\0Map\n".to_vec()),
        ("latin1.yaml", b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caf\xe9}\n".to_vec()),
        ("long.yaml", format!("apiVersion: v1\nkind: ConfigMap\ndata:\n  k: {}\n", "x".repeat(10 << 20)).into_bytes()),
    ];
    for (name, bytes) in &cases {
        std::fs::write(d.join(name), bytes).unwrap();
    }
    std::fs::write(d.join("bom.yaml"), format!("\u{feff}{DRIFTING_CONFIGMAP}")).unwrap();
    let r = run_limited(d, &["check", "--format", "json"], None);
    assert!(r.code == 1, "{}", r.stderr);
    let v = super::json(&r);
    let diags = v["diagnostics"].as_array().unwrap();
    for (name, _) in &cases {
        if *name == "long.yaml" {
            continue;
        }
        // Invalid UTF-8 has no text to point into (yet: issue 15 asks for its line too).
        let needs_line = *name != "latin1.yaml";
        assert!(
            diags.iter().any(|d| d["file"] == *name && d["severity"] == "error" && (d["line"].is_u64() || !needs_line)),
            "{name}: no error with a line in {}",
            r.stdout
        );
    }
    assert!(diags.iter().any(
        |d| d["file"] == "latin1.yaml" && d["message"].as_str().unwrap().contains("byte 0xe9 at line 3, column 21")
    ));
    // A 10 MB line is read and checked like any other value.
    assert!(!diags.iter().any(|d| d["file"] == "long.yaml" && d["severity"] == "error"), "{}", r.stdout);
    // The BOM file is read as the manifest it is.
    assert!(diags.iter().any(|d| d["file"] == "bom.yaml" && d["rule"] == "value-drift"), "{}", r.stdout);
}

#[test]
fn a_reference_in_the_repository_cannot_reach_outside() {
    let dir = repository("reference: reference\n");
    let d = dir.path();
    std::fs::write(d.join("cm.yaml"), DRIFTING_CONFIGMAP).unwrap();
    // Templates that ask for the environment, the network or files outside the reference.
    std::fs::write(
        d.join("reference/configmap.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata:\n  log-level: {{ env \"HOME\" }}{{ expandenv \"$HOME\" }}{{ getHostByName \"example.com\" }}\n",
    )
    .unwrap();
    let r = run_limited(d, &["check", "--format", "json"], None);
    assert!(
        !r.stdout.contains("/root") && !r.stdout.contains(&std::env::var("HOME").unwrap_or("/root".into())),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("function \\\"env\\\" not defined") || r.stdout.contains("\"env\" not defined"),
        "{}",
        r.stdout
    );

    for pattern in ["../cm.yaml", "/etc/passwd", "link.yaml"] {
        std::os::unix::fs::symlink("/etc/passwd", d.join("reference/link.yaml")).ok();
        let metadata = format!(
            "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: {pattern}\n"
        );
        std::fs::write(d.join("reference/metadata.yaml"), metadata).unwrap();
        let r = run_limited(d, &["check", "--format", "json"], None);
        assert!(!r.stdout.contains("root:x:0"), "{pattern}: {}", r.stdout);
        let v = super::json(&r);
        assert!(
            v["diagnostics"].as_array().unwrap().iter().any(|x| x["rule"] == "invalid-reference"
                && x["help"][0].as_str().unwrap_or_default().contains("only files inside the reference directory")),
            "{pattern}: {}",
            r.stdout
        );
    }
}

/// Rendered standard input names its source files (kustomize's origin annotation, helm's
/// `# Source:`): those may lead to files in the repository, never out of it.
#[test]
fn origin_paths_on_standard_input_stay_in_the_repository() {
    let outside = tempfile::tempdir().unwrap();
    let secret = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata:\n  log-level: TOPSECRET\n";
    std::fs::write(outside.path().join("secret.yaml"), secret).unwrap();
    let dir = repository("reference: reference\n");
    std::os::unix::fs::symlink(outside.path().join("secret.yaml"), dir.path().join("link.yaml")).unwrap();
    let stdin = dir.path().join("rendered.yaml");
    for origin in [
        outside.path().join("secret.yaml").display().to_string(),
        format!("../{}/secret.yaml", outside.path().file_name().unwrap().to_string_lossy()),
        "link.yaml".to_string(),
        ".git/config".to_string(),
    ] {
        let text = format!(
            "# Source: {origin}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\n  annotations:\n    config.kubernetes.io/origin: |\n      path: {origin}\ndata:\n  log-level: debug\n"
        );
        std::fs::write(&stdin, text).unwrap();
        let r = run_limited(dir.path(), &["check", "-", "--origin-root", ".", "--format", "human"], Some(&stdin));
        assert_eq!(r.code, 1, "{origin}: {}{}", r.stdout, r.stderr);
        assert!(
            !r.stdout.contains("TOPSECRET") && !r.stdout.contains("[core]"),
            "{origin} was followed:\n{}",
            r.stdout
        );
        assert!(r.stdout.contains("--> <stdin>:"), "{origin}: the finding stays on stdin:\n{}", r.stdout);
    }
}

/// A policy kept in the repository is untrusted too: one that doubles a value until memory runs
/// out is stopped with an error naming it (the memory watchdog), one that loops by the time
/// limit (a `policy-error`); neither can read the environment.
#[test]
fn a_policy_cannot_exhaust_memory_or_time_or_read_the_environment() {
    let dir = repository("");
    let d = dir.path();
    std::fs::write(d.join("cm.yaml"), DRIFTING_CONFIGMAP).unwrap();
    std::fs::create_dir_all(d.join("policy")).unwrap();
    // (`array.concat` is capped at a million elements; strings double without a cap.)
    let mut doubling = String::from("package main\n\nx0 := \"12345678\"\n");
    for i in 1..=40 {
        doubling.push_str(&format!("x{i} := concat(\"\", [x{0}, x{0}])\n", i - 1));
    }
    doubling.push_str("\ndeny contains msg if {\n  count(x40) > 0\n  msg := \"big\"\n}\n");
    std::fs::write(d.join("policy/huge.rego"), doubling).unwrap();
    let r = run_limited(d, &["check", "--policy", "policy", "cm.yaml", "--format", "json"], None);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("policy/huge.rego") && r.stderr.contains("MiB of memory; stopped"), "{}", r.stderr);

    std::fs::write(
        d.join("policy/huge.rego"),
        "package main\n\ndeny contains msg if {\n  some i, j, k\n  numbers.range(1, 900000)[i]\n  numbers.range(1, 900000)[j]\n  numbers.range(1, 900000)[k]\n  msg := \"never\"\n}\n\nwarn contains msg if {\n  msg := opa.runtime().env.HOME\n}\n",
    )
    .unwrap();
    let r = run_limited(d, &["check", "--policy", "policy", "cm.yaml", "--format", "json"], None);
    let v = super::json(&r);
    let rules: Vec<&str> = v["diagnostics"].as_array().unwrap().iter().filter_map(|x| x["rule"].as_str()).collect();
    assert!(rules.contains(&"policy-error"), "{}", r.stdout);
    assert!(!r.stdout.contains("/root") && !r.stdout.contains("\"warn\""), "{}", r.stdout);
}

/// One selection rule for every mode: submodules are not walked (a note says so), a symlink to a
/// file in the repository is read once (under its own name when the walk reaches the target,
/// else under the link's), a symlink out of the repository is refused, named or walked.
#[test]
fn symlinks_and_submodules_are_selected_alike_everywhere() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.yaml"), "apiVersion: v1\nkind: Secret\nmetadata: {name: TOPSECRET}\n")
        .unwrap();
    let dir = repository("reference: reference\n");
    let d = dir.path();
    for sub in ["manifests/vendored", "common"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    std::fs::write(d.join("manifests/cm.yaml"), DRIFTING_CONFIGMAP).unwrap();
    std::fs::write(d.join("common/shared.yaml"), DRIFTING_CONFIGMAP.replace("name: settings", "name: shared")).unwrap();
    std::os::unix::fs::symlink("../common/shared.yaml", d.join("manifests/shared.yaml")).unwrap();
    std::os::unix::fs::symlink("cm.yaml", d.join("manifests/again.yaml")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.yaml"), d.join("manifests/out.yaml")).unwrap();
    // A nested repository with a commit: `git add` records it as a gitlink, as a submodule.
    std::fs::write(d.join("manifests/vendored/broken.yaml"), "kind: [\n").unwrap();
    super::git(&d.join("manifests/vendored"), &["init", "-q"]);
    super::git(&d.join("manifests/vendored"), &["add", "-A"]);
    super::git(&d.join("manifests/vendored"), &["commit", "-qm", "vendored"]);
    let r = run_limited(d, &["check", "manifests", "--format", "json"], None);
    let found = findings(&r);
    let has =
        |rule: &str, severity: &str, file: &str| found.iter().any(|f| f.0 == rule && f.1 == severity && f.2 == file);
    assert!(has("io-error", "error", "manifests/out.yaml"), "{found:?}");
    assert!(has("io-error", "note", "manifests/vendored"), "{found:?}");
    assert!(!found.iter().any(|f| f.2.contains("vendored/broken.yaml")), "{found:?}");
    // Read once: the link into the walk is not a second copy; the link out of it is read.
    assert!(!found.iter().any(|f| f.2 == "manifests/again.yaml"), "{found:?}");
    assert!(has("unmatched-resource", "warning", "manifests/shared.yaml"), "{found:?}");
    assert!(!r.stdout.contains("TOPSECRET"), "{}", r.stdout);
    // The index (`--staged`) selects the same files, links and submodules alike.
    super::git(d, &["add", "-A"]);
    let staged =
        run_limited(d, &["check", "--staged", "--diff-filter", "nofilter", "manifests", "--format", "json"], None);
    let mut in_index = findings(&staged);
    let mut in_tree = found.clone();
    in_index.sort();
    in_tree.sort();
    assert_eq!(in_index, in_tree, "{}", staged.stdout);
    // Named explicitly (as pre-commit names committed files), the link out is refused too.
    let r = run_limited(d, &["check", "manifests/out.yaml", "--format", "json"], None);
    assert!(
        r.stdout.contains("symlink leads out of the repository") && !r.stdout.contains("TOPSECRET"),
        "{}",
        r.stdout
    );
}

/// (rule, severity, file) of every diagnostic of a JSON run.
fn findings(r: &Run) -> Vec<(String, String, String)> {
    let v = super::json(r);
    let field = |x: &serde_json::Value, k: &str| x[k].as_str().unwrap_or_default().to_string();
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (field(x, "rule"), field(x, "severity"), field(x, "file")))
        .collect()
}

// 5. Markdown and HTML in the step summary (issue 22, H10).

/// A file name and a value that try to put an image, a link and HTML into the job summary.
#[test]
fn the_markdown_summary_shows_repository_text_as_text() {
    let dir = repository("reference: reference\n");
    let name = "[x](javascript:alert(1))<img src=x onerror=alert(1)>`|![y](http:evil.example).yaml";
    let value = "![x](http://evil.example/a.png) <img src=x onerror=alert(1)> `a``b` [z](javascript:alert(2)) \\\\|![w](http://evil.example/w.png)";
    let manifest = DRIFTING_CONFIGMAP.replace("log-level: debug", &format!("log-level: \"{value}\""));
    std::fs::write(dir.path().join(name), manifest).unwrap();
    let r = run_limited(dir.path(), &["check", "--format", "markdown"], None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("onerror"), "the finding is there:\n{}", r.stdout);
    for raw in ["<img", "](javascript", "](http:evil", "](http://evil", "![x](", "![y](", "![w]("] {
        assert!(!r.stdout.contains(raw), "{raw:?} reaches the summary raw:\n{}", r.stdout);
    }
    // Every table row keeps its five cells: no pipe from the repository splits one.
    for row in r.stdout.lines().filter(|l| l.starts_with("| error") || l.starts_with("| warning")) {
        let unescaped_pipes = row
            .char_indices()
            .filter(|&(i, c)| c == '|' && row[..i].chars().rev().take_while(|&b| b == '\\').count() % 2 == 0)
            .count();
        assert_eq!(unescaped_pipes, 6, "{row}");
    }
}

// 6. Trust order for schemas (issue 22, H7; N1).

/// A CRD for `group`/`kind` whose `spec.size` is an integer (`typed`), or anything.
fn crd(group: &str, kind: &str, typed: bool) -> String {
    let spec = if typed {
        "{type: object, properties: {size: {type: integer}}}"
    } else {
        "{type: object, x-kubernetes-preserve-unknown-fields: true}"
    };
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x.{group}\nspec:\n  group: {group}\n  names:\n    kind: {kind}\n    plural: xs\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec: {spec}\n"
    )
}

const WIDGET: &str = "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  size: big\n";

/// (rule, severity, file, message) of every diagnostic of a JSON run.
fn messages(r: &Run) -> Vec<(String, String, String, String)> {
    let v = super::json(r);
    let field = |x: &serde_json::Value, k: &str| x[k].as_str().unwrap_or_default().to_string();
    let all = v["diagnostics"].as_array().unwrap().iter();
    all.map(|x| (field(x, "rule"), field(x, "severity"), field(x, "file"), field(x, "message"))).collect()
}

#[test]
fn a_checked_crd_cannot_replace_a_trusted_or_built_in_schema() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("schemas")).unwrap();
    std::fs::create_dir_all(d.join("pr")).unwrap();
    std::fs::write(d.join("schemas/widget.yaml"), crd("example.io", "Widget", true)).unwrap();
    // The pull request: a Widget CRD accepting anything, one for apps/v1 Deployment, and two
    // different Gadget CRDs.
    std::fs::write(d.join("pr/override.yaml"), crd("example.io", "Widget", false)).unwrap();
    std::fs::write(d.join("pr/deployment.yaml"), crd("apps", "Deployment", false)).unwrap();
    std::fs::write(d.join("pr/gadget-a.yaml"), crd("other.io", "Gadget", true)).unwrap();
    std::fs::write(d.join("pr/gadget-b.yaml"), crd("other.io", "Gadget", false)).unwrap();
    std::fs::write(d.join("pr/widget.yaml"), WIDGET).unwrap();
    let r = run_limited(d, &["check", "--isolated", "--format", "json", "--schemas", "schemas", "pr"], None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let found = messages(&r);
    let has = |rule: &str, severity: &str, file: &str, words: &[&str]| {
        found.iter().any(|(r, s, f, m)| r == rule && s == severity && f == file && words.iter().all(|w| m.contains(w)))
    };
    // The trusted schema validates the Widget.
    assert!(has("schema-type-mismatch", "error", "pr/widget.yaml", &[]), "{found:#?}");
    assert!(
        has("invalid-schema", "error", "pr/override.yaml", &["example.io/Widget", "schemas/widget.yaml"]),
        "{found:#?}"
    );
    assert!(has("invalid-schema", "error", "pr/deployment.yaml", &["apps/Deployment", "built-in"]), "{found:#?}");
    // Two checked definitions are the pull request's own: a warning, not a refusal.
    assert!(
        has("duplicate-definition", "warning", "pr/gadget-b.yaml", &["other.io/Gadget", "pr/gadget-a.yaml"]),
        "{found:#?}"
    );
}

/// A git directory of schemas is read whole: a CRD after 10,000 other files is still used
/// (it was dropped silently).
#[test]
fn a_large_git_schema_directory_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("defs")).unwrap();
    for i in 0..10_050 {
        std::fs::write(d.join(format!("defs/a{i:05}.yaml")), "").unwrap();
    }
    std::fs::write(d.join("defs/zz-widget.yaml"), crd("example.io", "Widget", true)).unwrap();
    super::git(d, &["init", "-q"]);
    super::git(d, &["add", "defs"]);
    super::git(d, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "schemas"]);
    std::fs::write(d.join("widget.yaml"), WIDGET).unwrap();
    let r =
        run_limited(d, &["check", "--isolated", "--format", "json", "--schemas", "git:HEAD:defs", "widget.yaml"], None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let found = messages(&r);
    assert!(found.iter().any(|f| f.0 == "schema-type-mismatch" && f.2 == "widget.yaml"), "{found:#?}");
}

// 7. Memory bounded by the parsed form, not the file size (issue 22, H5, N3), and schema
//    compilation bounded (H6).

/// A JSON array of `n` numbers in a ConfigMap, on one line or one number per line.
fn numbers(n: usize, separator: &str) -> String {
    let items = vec!["0"; n].join(separator);
    format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"x\"}}, \"data\": {{\"a\": [{items}]}}}}\n"
    )
}

/// A 12 MB one-line JSON array of 6 million numbers needed 3+ GB (the scanner's token queue,
/// then ~400 bytes per node), 3 million numbers one per line about 1.5 GB: each is now an
/// `unsupported-yaml` error at the line where it crosses 1,000,000 flow entries.
#[test]
fn documents_are_bounded_by_their_parsed_size() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("line.json"), numbers(6_000_000, ",")).unwrap();
    std::fs::write(d.join("lines.json"), numbers(3_000_000, ",\n")).unwrap();
    let r = run_limited(d, &["check", "--isolated", "--format", "json", "line.json", "lines.json"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = super::json(&r);
    for (file, line) in [("line.json", 1), ("lines.json", 1_000_000)] {
        assert!(
            v["diagnostics"].as_array().unwrap().iter().any(|x| x["file"] == file
                && x["rule"] == "unsupported-yaml"
                && x["severity"] == "error"
                && x["line"].as_u64().is_some_and(|l| l.abs_diff(line) < 100)),
            "{file}: {}",
            r.stdout
        );
    }
}

/// A ConfigMap whose `x.b` is fifty aliases of a 19,000-number flow list `x.a`: 969,000 nodes
/// from 40 KB (about 200 MB in memory), half the per-text budget.
fn aliased(name: &str) -> String {
    let (items, aliases) = (vec!["1"; 19_000].join(","), vec!["*a"; 50].join(","));
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\nx:\n  a: &a [{items}]\n  b: [{aliases}]\n")
}

/// Many files each near the per-text node budget (issue 22): the batches staged ahead hold
/// at most the run's node pool (4,000,000 nodes) together, so eight threads stay within
/// 2.5 GiB of address space (each thread reserves a 64 MiB stack) where one batch ahead a
/// thread aborted even under 3 GiB; and the output is the one of a single thread — also when
/// the pool defers every batch staged ahead, and for a text over the per-text budget, whose
/// error stays at its line.
#[test]
fn parsed_nodes_are_bounded_per_run_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for i in 0..12 {
        std::fs::write(d.join(format!("f{i:02}.yaml")), aliased(&format!("c{i}"))).unwrap();
    }
    // Three such documents in one text: one load stops at the third (line 23), over the
    // per-text budget of 2,000,000 nodes.
    let over = [aliased("o1"), aliased("o2"), aliased("o3")].join("---\n");
    std::fs::write(d.join("over.yaml"), over).unwrap();
    let args = ["check", "--isolated", "--format", "json", "."];
    let serial = run_limited(d, &[&args[..], &["--jobs", "1"]].concat(), None);
    assert_eq!(serial.code, 1, "{}", serial.stderr);
    let found: Vec<_> = super::json(&serial)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["file"].as_str().unwrap().to_owned(),
                x["line"].as_u64().unwrap(),
                x["rule"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for i in 0..12 {
        assert!(found.contains(&(format!("f{i:02}.yaml"), 5, "schema-unknown-field".to_owned())), "{found:#?}");
    }
    assert!(found.contains(&("over.yaml".to_owned(), 23, "unsupported-yaml".to_owned())), "{found:#?}");
    assert_eq!(found.len(), 15, "{found:#?}");
    let runs = [
        ("4", MEMORY_KIB, &[][..]),
        ("8", 2560 * 1024, &[][..]),
        ("4", MEMORY_KIB, &[("DRIFTLINT_NODE_POOL", "0")][..]),
    ];
    for (jobs, memory, env) in runs {
        let parallel = run_limited_env(d, &[&args[..], &["--jobs", jobs]].concat(), None, memory, env);
        assert_eq!(parallel.stdout, serial.stdout, "--jobs {jobs} {env:?}: {}", parallel.stderr);
        assert_eq!(parallel.code, 1);
    }
    // The text alone (one batch, loaded in parallel pieces): the same error at the same line.
    let alone = run_limited(d, &["check", "--isolated", "--format", "concise", "--jobs", "2", "over.yaml"], None);
    assert!(alone.stdout.contains("over.yaml:23:13: error[unsupported-yaml]"), "{}", alone.stdout);
}

/// A combined policy input holds every document at once: its trees are capped run-wide (the
/// pool's size, here set to 40 nodes), the files loaded one after the other in input order, so
/// the file that crosses the cap is an `unsupported-yaml` error at the node that crosses it,
/// whatever `--jobs` is, and the policy sees the documents before it.
#[test]
fn a_combined_input_is_capped_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("p")).unwrap();
    let policy =
        "package main\nimport rego.v1\ndeny contains msg if {\n  msg := sprintf(\"%d objects\", [count(input)])\n}\n";
    std::fs::write(d.join("p/main.rego"), policy).unwrap();
    // 17 nodes each; `name` on line 4 is the 8th node of a file.
    let names: Vec<String> = (0..5).map(|i| format!("m{i}.yaml")).collect();
    for (i, name) in names.iter().enumerate() {
        let object = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  a: \"1\"\n  b: \"2\"\n  c: \"3\"\n"
        );
        std::fs::write(d.join(name), object).unwrap();
    }
    let mut args = vec!["check", "--isolated", "--policy", "p", "--combine", "--format", "concise"];
    args.extend(names.iter().map(String::as_str));
    let capped = [("DRIFTLINT_NODE_POOL", "40")];
    let serial = run_limited_env(d, &[&args[..], &["--jobs", "1"]].concat(), None, MEMORY_KIB, &capped);
    assert_eq!(serial.code, 1, "{}", serial.stderr);
    assert!(serial.stdout.contains("m0.yaml:1:1: error[policy-deny]: 2 objects"), "{}", serial.stdout);
    for name in &names[2..] {
        let line =
            format!("{name}:4:3: error[unsupported-yaml]: the run's documents would hold more than 40 YAML nodes");
        assert!(serial.stdout.contains(&line), "{}", serial.stdout);
    }
    let parallel = run_limited_env(d, &[&args[..], &["--jobs", "4"]].concat(), None, MEMORY_KIB, &capped);
    assert_eq!(parallel.stdout, serial.stdout);
    // Under the default cap, every object is in the input.
    let all = run_limited(d, &args, None);
    assert!(all.stdout.contains("m0.yaml:1:1: error[policy-deny]: 5 objects"), "{}", all.stdout);
    assert!(!all.stdout.contains("unsupported-yaml"), "{}", all.stdout);
}

/// 60 MB of blank lines and one object: its finding is shown at the right line, in under
/// 1 GiB of address space (the line index held every line start: 1 GB).
#[test]
fn blank_lines_cost_no_memory_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A misspelt kind: an error at its line, schema mode or not.
    let object = DRIFTING_CONFIGMAP.replace("kind: ConfigMap", "kind: ConfigMp");
    std::fs::write(d.join("blank.yaml"), format!("{}{object}", "\n".repeat(60_000_000))).unwrap();
    let args = ["check", "--isolated", "--schema-mode", "strict", "--format", "concise", "blank.yaml"];
    let r = run_limited_to(d, &args, None, 1024 * 1024);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("blank.yaml:60000002:1: error[unknown-kind]"), "{}", r.stdout);
}

/// A CRD among the checked files whose `$ref`s double at each of 40 levels: compilation stops
/// at the expansion budget with an `invalid-schema` error at the CRD's line.
#[test]
fn schema_compilation_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut defs = String::new();
    for i in 0..40 {
        defs.push_str(&format!(
            "              d{i}:\n                type: object\n                properties:\n                  a: {{$ref: '#/definitions/d{n}'}}\n                  b: {{$ref: '#/definitions/d{n}'}}\n",
            n = i + 1
        ));
    }
    let crd = crd("example.io", "Widget", true).replace(
        "            spec: {type: object, properties: {size: {type: integer}}}\n",
        &format!("            spec: {{$ref: '#/definitions/d0'}}\n          definitions:\n{defs}              d40: {{type: string}}\n"),
    );
    std::fs::write(d.join("crd.yaml"), &crd).unwrap();
    std::fs::write(d.join("widget.yaml"), WIDGET).unwrap();
    let r = run_limited(d, &["check", "--isolated", "--format", "json", "crd.yaml", "widget.yaml"], None);
    let found = messages(&r);
    assert!(
        found.iter().any(|f| f.0 == "invalid-schema" && f.1 == "error" && f.2 == "crd.yaml" && f.3.contains("`$ref`s")),
        "{found:#?}"
    );
}

/// The definitions read before the checks are capped run-wide too (the pool's size, here set
/// to 350 nodes), in input order: the CRD that crosses the cap is left out with an
/// `unsupported-yaml` error at its document, whatever `--jobs` is, and its kind then has no
/// schema. A CRD of 30 properties is about 155 nodes: two fit, the third does not.
#[test]
fn definitions_read_before_the_checks_are_capped_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let properties: String =
        (0..30).map(|p| format!("                p{p}:\n                  type: string\n")).collect();
    for (i, kind) in ["Alpha", "Beta", "Gamma"].iter().enumerate() {
        let lower = kind.to_lowercase();
        let crd = format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {lower}s.example.com\nspec:\n  group: example.com\n  names:\n    kind: {kind}\n    plural: {lower}s\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              properties:\n{properties}"
        );
        std::fs::write(d.join(format!("crd{i}.yaml")), crd).unwrap();
        let object =
            format!("apiVersion: example.com/v1\nkind: {kind}\nmetadata:\n  name: x\n  namespace: n\nspec:\n  p0: 1\n");
        std::fs::write(d.join(format!("obj{i}.yaml")), object).unwrap();
    }
    let pool = [("DRIFTLINT_NODE_POOL", "350")];
    let args = ["check", "--isolated", "--format", "concise", "."];
    let serial = run_limited_env(d, &[&args[..], &["--jobs", "1"]].concat(), None, MEMORY_KIB, &pool);
    assert_eq!(serial.code, 1, "{}{}", serial.stdout, serial.stderr);
    assert!(serial.stdout.contains("crd2.yaml:1:1: error[unsupported-yaml]"), "{}", serial.stdout);
    assert!(serial.stdout.contains("would hold more than 350 YAML nodes"), "{}", serial.stdout);
    assert!(!serial.stdout.contains("crd0.yaml:1:1: error[unsupported-yaml]"), "{}", serial.stdout);
    // The kept definitions' instances are checked against them; the left-out one's are not.
    assert!(serial.stdout.contains("obj0.yaml:7"), "{}", serial.stdout);
    assert!(serial.stdout.contains("obj1.yaml:7"), "{}", serial.stdout);
    assert!(!serial.stdout.contains("obj2.yaml:7"), "{}", serial.stdout);
    for jobs in ["2", "4"] {
        let parallel = run_limited_env(d, &[&args[..], &["--jobs", jobs]].concat(), None, MEMORY_KIB, &pool);
        assert_eq!(parallel.stdout, serial.stdout, "--jobs {jobs}: {}", parallel.stderr);
    }
    // Without the cap every definition is read.
    let free = run_limited(d, &args, None);
    assert!(!free.stdout.contains("unsupported-yaml"), "{}", free.stdout);
    assert!(free.stdout.contains("obj2.yaml:7"), "{}", free.stdout);
}

/// The pre-pass parses the texts that may hold a definition (a backslash is enough) before
/// the batches, in parallel: its loads draw from the same pool, so eight threads stay within
/// 2.5 GiB of address space on files near the per-text budget, with a single thread's output.
#[test]
fn the_pre_pass_draws_from_the_node_pool() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for i in 0..12 {
        std::fs::write(d.join(format!("f{i:02}.yaml")), format!("# a\\b\n{}", aliased(&format!("c{i}")))).unwrap();
    }
    let args = ["check", "--isolated", "--format", "json", "."];
    let serial = run_limited(d, &[&args[..], &["--jobs", "1"]].concat(), None);
    assert_eq!(serial.code, 1, "{}", serial.stderr);
    assert_eq!(serial.stdout.matches("\"schema-unknown-field\"").count(), 12, "{}", serial.stdout);
    let parallel = run_limited_env(d, &[&args[..], &["--jobs", "8"]].concat(), None, 2560 * 1024, &[]);
    assert_eq!(parallel.stdout, serial.stdout, "{}", parallel.stderr);
}
