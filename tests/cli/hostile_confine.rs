//! One confinement for every file read on a repository's behalf (docs/security.md, "Reading"):
//! for each reader a repository with a way out — a symlink on any component, a template
//! variable that expands to `..` — and the same assertions over every output format: the
//! outside file's marker never appears, no absolute path of the machine appears, and the
//! refusal names the path as written, relative to the repository.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Stdio};

use super::{Run, copy_dir, git, root, write_files};

/// Text only the files outside the repository hold.
const MARKER: &str = "OUTSIDE-MARKER-7f3a";

/// Every report format of `check`.
const FORMATS: [&str; 7] = ["human", "concise", "json", "sarif", "github", "markdown", "junit"];

/// A checkout at `T/repo` (a git work tree) and files outside it, in `T/outside` and in `T`
/// itself (two levels above `repo/schemas/`), each holding [`MARKER`].
struct Setup {
    _dir: tempfile::TempDir,
    top: std::path::PathBuf,
    repo: std::path::PathBuf,
    outside: std::path::PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().canonicalize().unwrap();
    let repo = top.join("repo");
    let outside = top.join("outside");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    // A schema whose enum and property names would be quoted in findings.
    let schema = format!(
        r#"{{"type":"object","properties":{{"spec":{{"type":"object","properties":{{"mode":{{"enum":["{MARKER}"]}}}},"additionalProperties":false}}}}}}"#
    );
    let defs = format!(
        r#"{{"definitions":{{"Spec":{{"type":"object","properties":{{"mode":{{"enum":["{MARKER}"]}}}},"additionalProperties":false}}}}}}"#
    );
    write_files(
        &top,
        &[
            ("secret.json", &schema),
            ("outside/secret.yaml", &format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {MARKER}\n")),
            ("outside/schema.json", &schema),
            ("outside/defs.json", &defs),
            ("outside/kubeconfig", &format!("apiVersion: v1\nkind: Config\nusers:\n- name: {MARKER}\n  token: [\n")),
            (
                "outside/expected.json",
                &format!(
                    r#"{{"{MARKER}": {{"deploy": "True", "restrictions": {{}}, "policy": {{"ID": "{MARKER}"}}}}}}"#
                ),
            ),
            ("outside/metadata.yaml", &format!("apiVersion: v2\nparts:\n- name: {MARKER}\n  components: [\n")),
        ],
    );
    Setup { _dir: dir, top, repo, outside }
}

/// A widget whose `spec.mode` no schema allows, and whose kind and apiVersion are as given.
fn widget(api_version: &str, kind: &str) -> String {
    format!(
        "apiVersion: {api_version}\nkind: \"{kind}\"\nmetadata:\n  name: w\n  namespace: n\nspec:\n  mode: plain\n  extra: 1\n"
    )
}

/// One reader's way out: what the repository holds, the arguments of `check`, and the path the
/// refusal must name (as written, relative to the repository).
struct Case {
    name: &'static str,
    prepare: fn(&Setup),
    args: &'static [&'static str],
    refusal: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "a manifest named through a symlinked directory",
        prepare: |s| symlink(&s.outside, s.repo.join("dirlink")).unwrap(),
        args: &["--isolated", "dirlink/secret.yaml"],
        refusal: "`dirlink/secret.yaml`",
    },
    Case {
        name: "a manifest linked out, met by a walk",
        prepare: |s| {
            std::fs::create_dir_all(s.repo.join("manifests")).unwrap();
            symlink(s.outside.join("secret.yaml"), s.repo.join("manifests/out.yaml")).unwrap();
        },
        args: &["--isolated", "manifests"],
        refusal: "`manifests/out.yaml`",
    },
    Case {
        name: "a schema location whose kind `.` expands to `..`",
        prepare: |s| {
            write_files(
                &s.repo,
                &[
                    (
                        ".driftlint.yaml",
                        "schema-locations:\n  - 'schemas/{{ .ResourceKind }}{{ .ResourceKind }}/{{ .ResourceKind }}{{ .ResourceKind }}/secret.json'\n",
                    ),
                    ("schemas/.keep", ""),
                    ("w.yaml", &widget("example.com/v1", ".")),
                ],
            );
        },
        args: &["w.yaml"],
        refusal: "the kind `.` would name a directory",
    },
    Case {
        name: "a schema location whose group `.` expands to `..`",
        prepare: |s| {
            write_files(
                &s.repo,
                &[
                    (
                        ".driftlint.yaml",
                        "schema-locations:\n  - 'schemas/{{ .Group }}{{ .Group }}/{{.Group}}{{.Group}}/secret.json'\n",
                    ),
                    ("schemas/.keep", ""),
                    ("w.yaml", &widget("./v1", "Widget")),
                ],
            );
        },
        args: &["w.yaml"],
        refusal: "the apiVersion group `.` would name a directory",
    },
    Case {
        name: "a symlinked directory inside a schema location",
        prepare: |s| {
            write_files(
                &s.repo,
                &[
                    (".driftlint.yaml", "schema-locations:\n  - 'schemas/{{ .ResourceKind }}/schema.json'\n"),
                    ("schemas/.keep", ""),
                    ("w.yaml", &widget("example.com/v1", "Widget")),
                ],
            );
            symlink(&s.outside, s.repo.join("schemas/widget")).unwrap();
        },
        args: &["w.yaml"],
        refusal: "`schemas/widget/schema.json`",
    },
    Case {
        name: "a location schema's `$ref` to a sibling linked out",
        prepare: |s| {
            write_files(
                &s.repo,
                &[
                    (".driftlint.yaml", "schema-locations:\n  - 'schemas/{{ .ResourceKind }}.json'\n"),
                    (
                        "schemas/widget.json",
                        r##"{"type":"object","properties":{"spec":{"$ref":"_defs.json#/definitions/Spec"}}}"##,
                    ),
                    ("w.yaml", &widget("example.com/v1", "Widget")),
                ],
            );
            symlink(s.outside.join("defs.json"), s.repo.join("schemas/_defs.json")).unwrap();
        },
        args: &["w.yaml"],
        refusal: "`schemas/_defs.json`",
    },
    Case {
        name: "policy cases' shared data linked out",
        prepare: |s| {
            fybrik(&s.repo);
            std::fs::remove_file(s.repo.join("cases/data.json")).unwrap();
            symlink(s.outside.join("kubeconfig"), s.repo.join("cases/data.yaml")).unwrap();
        },
        args: &["."],
        refusal: "`cases/data.yaml`",
    },
    Case {
        name: "a policy case's input linked out",
        prepare: |s| {
            fybrik(&s.repo);
            std::fs::remove_file(s.repo.join("cases/local-read.input.json")).unwrap();
            symlink(s.outside.join("kubeconfig"), s.repo.join("cases/local-read.input.json")).unwrap();
        },
        args: &["."],
        refusal: "`cases/local-read.input.json`",
    },
    Case {
        name: "a policy case's expected decisions linked out",
        prepare: |s| {
            fybrik(&s.repo);
            std::fs::remove_file(s.repo.join("cases/local-read.expected.json")).unwrap();
            symlink(s.outside.join("expected.json"), s.repo.join("cases/local-read.expected.json")).unwrap();
        },
        args: &["."],
        refusal: "`cases/local-read.expected.json`",
    },
    Case {
        name: "a reference's metadata file linked out",
        prepare: |s| {
            copy_dir(&root().join("fixtures/reference"), &s.repo.join("reference"));
            std::fs::remove_file(s.repo.join("reference/metadata.yaml")).unwrap();
            symlink(s.outside.join("metadata.yaml"), s.repo.join("reference/metadata.yaml")).unwrap();
            write_files(
                &s.repo,
                &[
                    (".driftlint.yaml", "reference: reference\nexclude: [reference/]\n"),
                    ("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: n\n"),
                ],
            );
        },
        args: &["cm.yaml"],
        refusal: "`metadata.yaml`",
    },
    Case {
        name: "a CRD in a `schemas:` directory linked out",
        prepare: |s| {
            std::fs::create_dir_all(s.repo.join("crds")).unwrap();
            symlink(s.outside.join("secret.yaml"), s.repo.join("crds/crd.yaml")).unwrap();
            write_files(
                &s.repo,
                &[(".driftlint.yaml", "schemas: [crds]\n"), ("w.yaml", &widget("example.com/v1", "Widget"))],
            );
        },
        args: &["w.yaml"],
        refusal: "`crds/crd.yaml`",
    },
];

/// The Fybrik scenarios of `fixtures/policy/fybrik` in `repo`, replayed by `check`.
fn fybrik(repo: &Path) {
    let src = root().join("fixtures/policy/fybrik");
    copy_dir(&src.join("policies"), &repo.join("policies"));
    copy_dir(&src.join("cases"), &repo.join("cases"));
    write_files(
        repo,
        &[(".driftlint.yaml", "policies: [policies]\npolicy-cases: cases\nexclude: [cases/, policies/]\n")],
    );
}

fn run_check(dir: &Path, args: &[&str], format: &str) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_driftlint"))
        .arg("check")
        .args(args)
        .args(["--format", format])
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null())
        .output()
        .expect("the driftlint binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Every reader, every format: the marker of the file outside never appears, neither does any
/// absolute path of this machine, and the refusal names the path as written.
#[test]
fn no_reader_follows_a_way_out_of_the_repository() {
    let mut failures = Vec::new();
    for case in CASES {
        let s = setup();
        (case.prepare)(&s);
        for format in FORMATS {
            let r = run_check(&s.repo, case.args, format);
            let all = format!("{}{}", r.stdout, r.stderr);
            // SARIF names the checkout itself as its base URI (`originalUriBaseIds`), as code
            // scanning expects; every other absolute path is a leak.
            let checkout = format!("\"uri\": \"file://{}/\"", s.repo.display());
            let without_base = all.replace(&checkout, "");
            let mut wrong = Vec::new();
            if all.contains(MARKER) {
                wrong.push("the outside file's text appears");
            }
            if without_base.contains(&s.top.display().to_string()) {
                wrong.push("an absolute path of the machine appears");
            }
            if r.code != 1 && r.code != 2 {
                wrong.push("the run neither failed nor stopped");
            }
            // The refusal is checked in the plain formats (others escape or encode the text).
            if matches!(format, "human" | "concise" | "json") && !all.contains(case.refusal) {
                wrong.push("the refusal does not name the path as written");
            }
            if !wrong.is_empty() {
                failures.push(format!("{} [{format}]: {wrong:?}\n{all}", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n---\n"));
}

/// A symlink refusal says where the link is, as written, and nothing of where it leads.
#[test]
fn a_refused_symlink_is_named_as_written() {
    let s = setup();
    std::fs::create_dir_all(s.repo.join("manifests")).unwrap();
    symlink(s.outside.join("secret.yaml"), s.repo.join("manifests/out.yaml")).unwrap();
    let r = run_check(&s.repo, &["--isolated", "manifests"], "concise");
    assert!(
        r.stdout.contains(
            "manifests/out.yaml: error[io-error]: `manifests/out.yaml`: symlink leads out of the repository: not read"
        ),
        "{}{}",
        r.stdout,
        r.stderr
    );
    // A linked directory inside the repository is named relative to it.
    std::fs::create_dir_all(s.repo.join("common")).unwrap();
    symlink("../common", s.repo.join("manifests/linked.yaml")).unwrap();
    let r = run_check(&s.repo, &["--isolated", "manifests"], "concise");
    assert!(r.stdout.contains("symlinked directory (to common) not walked"), "{}", r.stdout);
    assert!(!r.stdout.contains(&s.top.display().to_string()), "{}", r.stdout);
}

/// A `$ref` graph of 4^40 paths in a `schema-locations` file and its sibling (each definition
/// uses the next as two properties, its items and its additional properties): a CRD's limits
/// apply, and crossing them is an `invalid-schema` finding, not an abort (before, the run took
/// 2.8 GB and 40 s, and was killed under the address-space limit here). Run under CPU and
/// address-space limits (never wall-clock assertions).
#[test]
fn location_schemas_are_bounded_like_crds() {
    let s = setup();
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = serde_json::json!({"$ref": format!("_defs.json#/definitions/d{}", i + 1)});
        defs.insert(
            format!("d{i}"),
            serde_json::json!({
                "type": "object",
                "properties": {"a": next, "b": next},
                "items": next,
                "additionalProperties": next,
            }),
        );
    }
    defs.insert("d40".into(), serde_json::json!({"type": "string"}));
    let schema = serde_json::json!({"type": "object", "properties": {"spec": {"$ref": "_defs.json#/definitions/d0"}}});
    write_files(
        &s.repo,
        &[
            (".driftlint.yaml", "schema-locations:\n  - 'schemas/{{ .ResourceKind }}.json'\n"),
            ("schemas/widget.json", &schema.to_string()),
            ("schemas/_defs.json", &serde_json::json!({"definitions": defs}).to_string()),
            ("w.yaml", &widget("example.com/v1", "Widget")),
        ],
    );
    let script = "ulimit -t 60 && ulimit -v 3145728 && exec \"$0\" \"$@\"";
    let out = Command::new("sh")
        .args(["-c", script, env!("CARGO_BIN_EXE_driftlint"), "check", "--format", "concise", "w.yaml"])
        .current_dir(&s.repo)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains("w.yaml:2:1: error[invalid-schema]: schema location `schemas/{{ .ResourceKind }}.json`: `schemas/widget.json`: the schema compiles to more than 200000 nodes (a limit against runaway schemas): not used"),
        "{stdout}"
    );
}
