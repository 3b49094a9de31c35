//! Report emitters: one shared fixture set of diagnostics rendered by every format and compared
//! with the expected files in `tests/report/` (ruff's render tests), the SARIF 2.1.0 schema,
//! GitHub escaping and limits, truncation, and the generated `docs/rules.md`.
//!
//! `DRIFTLINT_BLESS=1 cargo test --test report` rewrites the expected files;
//! `DRIFTLINT_BLESS=1 cargo test --test report` rewrites `docs/rules.md`. Only `1` rewrites, and
//! never under `CI=true` (see the `driftlint-test-support` crate).

use std::path::{Path, PathBuf};

use driftlint::report::{self, Format, Limits, Options, SourceResolver};
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::input::{Source, SourcePath};

const DEPLOY: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: router
  namespace: ingress
  labels:
    team: réseau
spec:
  replicas: 1
  paused: true
  template:
    spec:
      containers:
        - name: router
          image: quay.io/router:4.14
";

const TEMPLATE: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: router
  namespace: ingress
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: router
          image: quay.io/router:4.16
";

const METADATA: &str = "\
apiVersion: v2
parts:
  - name: networking
    components:
      - name: router
        allOf:
          - path: Deployment.yaml
          - path: Service.yaml
";

const VALUES: &str = "replicaCount: 3\n";

fn file(p: &str) -> SourcePath {
    SourcePath::File(PathBuf::from(p))
}

/// Byte range of the `nth` (0-based) occurrence of `needle` in `text`.
fn at(text: &str, needle: &str, nth: usize) -> std::ops::Range<usize> {
    let start = text.match_indices(needle).nth(nth).map(|(i, _)| i).expect("needle in fixture");
    start..start + needle.len()
}

fn sources() -> Vec<Source> {
    vec![
        Source { path: file("manifests/deploy.yaml"), text: DEPLOY.into() },
        Source { path: file("reference/Deployment.yaml"), text: TEMPLATE.into() },
        Source { path: file("reference/metadata.yaml"), text: METADATA.into() },
        Source { path: file("manifests/values.yaml"), text: VALUES.into() },
        Source { path: SourcePath::Stdin, text: "kind: [\n".into() },
    ]
}

/// The shared fixture: one finding of each shape an emitter must handle. Given out of order on
/// purpose; every emitter sorts.
fn diagnostics() -> Vec<Diagnostic> {
    let deploy = file("manifests/deploy.yaml");
    let object = "apps/v1_Deployment_ingress_router";
    vec![
        Diagnostic::new(
            Rule::UnexpectedField,
            Severity::Warning,
            deploy.clone(),
            Some(at(DEPLOY, "paused: true", 0)),
            "unexpected field `spec.paused`",
        )
        .with_object(object, Some("/spec/paused".into()))
        .with_help("the reference does not set this field; remove it or add it to the template"),
        Diagnostic::error(
            Rule::ValueDrift,
            deploy.clone(),
            Some(at(DEPLOY, "1", 1)),
            "`spec.replicas` is 1, the reference expects 3",
        )
        .with_secondary(file("reference/Deployment.yaml"), Some(at(TEMPLATE, "3", 0)), "expected by the reference")
        .with_object(object, Some("/spec/replicas".into()))
        .with_help("field: /spec/replicas"),
        Diagnostic::error(
            Rule::ValueDrift,
            deploy.clone(),
            Some(at(DEPLOY, "quay.io/router:4.14", 0)),
            "image differs: 100% of pods run `4.14`, the reference expects `4.16`",
        )
        .with_secondary(
            file("reference/Deployment.yaml"),
            Some(at(TEMPLATE, "quay.io/router:4.16", 0)),
            "expected by the reference",
        )
        .with_object(object, Some("/spec/template/spec/containers/0/image".into())),
        Diagnostic::new(
            Rule::MissingField,
            Severity::Warning,
            deploy.clone(),
            Some(at(DEPLOY, "réseau", 0)),
            "label `app` is missing",
        )
        .with_object(object, Some("/metadata/labels/app".into())),
        Diagnostic::error(
            Rule::MissingResource,
            file("reference/metadata.yaml"),
            Some(at(METADATA, "path: Service.yaml", 0)),
            "no manifest matches required template `Service.yaml`",
        )
        .with_help("run `driftlint ls` to see the objects driftlint found"),
        {
            let mut d = Diagnostic::new(
                Rule::UnmatchedResource,
                Severity::Warning,
                deploy.clone(),
                Some(0..19),
                "no reference template matches this object",
            )
            .with_object("v1_ConfigMap_ingress_tweaks", None);
            d.suppressed = Some("tracked in TICKET-12, removed in the next release".into());
            d
        },
        Diagnostic::new(
            Rule::NotKubernetesObject,
            Severity::Note,
            file("manifests/values.yaml"),
            Some(0..12),
            "document has no `apiVersion` and `kind`; skipped",
        ),
        Diagnostic::error(
            Rule::IoError,
            file("manifests/secret, final:v2.yaml"),
            None,
            "cannot read manifests/secret, final:v2.yaml: Permission denied",
        ),
        Diagnostic::error(
            Rule::YamlSyntaxError,
            SourcePath::Stdin,
            Some(7..8),
            "did not find expected node content\r\nwhile parsing a flow sequence",
        ),
        // A stale range past the end of the file: clamped, never a panic.
        Diagnostic::error(
            Rule::DuplicateKey,
            file("manifests/values.yaml"),
            Some(400..9000),
            "duplicate key `replicaCount`",
        ),
    ]
}

fn options<'a>(objects: &'a [String]) -> Options<'a> {
    Options {
        root: Some(Path::new("/repo")),
        cwd: Some(Path::new("/repo")),
        tool_version: "0.1.0",
        objects,
        ..Options::default()
    }
}

fn objects() -> Vec<String> {
    vec!["apps/v1_Deployment_ingress_router".into(), "v1_Service_ingress_router".into()]
}

/// Compares `actual` with `tests/report/<name>`, or rewrites it under `DRIFTLINT_BLESS=1`.
fn expect(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/report").join(name);
    if driftlint_test_support::rewrite_requested() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with DRIFTLINT_BLESS=1)", path.display()));
    if expected != actual {
        panic!(
            "{} differs from the rendered output (run with DRIFTLINT_BLESS=1 to accept):\n--- rendered ---\n{actual}",
            path.display()
        );
    }
}

fn render(format: Format) -> String {
    let sources = sources();
    let resolver = SourceResolver::from_sources(&sources);
    let objects = objects();
    report::render(format, &diagnostics(), &resolver, &options(&objects)).unwrap()
}

#[test]
fn human() {
    expect("human.txt", &render(Format::Human));
}

#[test]
fn human_in_colour() {
    let sources = sources();
    let resolver = SourceResolver::from_sources(&sources);
    let objects = objects();
    let opts = Options { color: true, ..options(&objects) };
    let out = report::render(Format::Human, &diagnostics(), &resolver, &opts).unwrap();
    assert!(out.contains("\u{1b}["), "no ANSI escapes in coloured output");
    expect("human-color.txt", &out);
}

#[test]
fn concise() {
    expect("concise.txt", &render(Format::Concise));
}

#[test]
fn json() {
    let out = render(Format::Json);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["diagnostics"].as_array().unwrap().len(), diagnostics().len());
    expect("json.json", &out);
}

#[test]
fn sarif() {
    expect("sarif.json", &render(Format::Sarif));
}

#[test]
fn github() {
    expect("github.txt", &render(Format::Github));
}

#[test]
fn markdown() {
    expect("markdown.md", &render(Format::Markdown));
}

#[test]
fn junit() {
    expect("junit.xml", &render(Format::Junit));
}

#[test]
fn all_clear_outputs() {
    let resolver = SourceResolver::new();
    let opts = Options { tool_version: "0.1.0", ..Options::default() };
    let human = report::render(Format::Human, &[], &resolver, &opts).unwrap();
    assert_eq!(human, "no problems found\n");
    let sarif: serde_json::Value =
        serde_json::from_str(&report::render(Format::Sarif, &[], &resolver, &opts).unwrap()).unwrap();
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]), "results must be present even when empty");
    assert_eq!(report::render(Format::Github, &[], &resolver, &opts).unwrap(), "");
}

#[test]
fn exit_codes() {
    let diags = diagnostics();
    assert_eq!(report::exit_code(&diags, Severity::Error), 1);
    assert_eq!(report::exit_code(&[], Severity::Note), 0);
    let mut only_suppressed = diags[5].clone();
    only_suppressed.severity = Severity::Error;
    assert_eq!(report::exit_code(&[only_suppressed], Severity::Note), 0, "suppressed findings never count");
    let warnings: Vec<Diagnostic> = diags.into_iter().filter(|d| d.severity == Severity::Warning).collect();
    assert_eq!(report::exit_code(&warnings, Severity::Error), 0);
    assert_eq!(report::exit_code(&warnings, Severity::Warning), 1);
}

#[path = "report/docs.rs"]
mod docs;
#[path = "report/limits.rs"]
mod limits;

#[test]
fn writes_each_format_to_its_destination() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!("json={0}/out.json,sarif={0}/out.sarif,junit={0}/junit.xml", dir.path().display());
    let outputs = report::parse_outputs(&spec).unwrap();
    let sources = sources();
    let resolver = SourceResolver::from_sources(&sources);
    let objects = objects();
    // Colour is never written to files, whatever the options say.
    let opts = Options { color: true, ..options(&objects) };
    report::write_outputs(&outputs, &diagnostics(), &resolver, &opts).unwrap();
    let json = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    assert_eq!(json, render(Format::Json));
    assert_eq!(std::fs::read_to_string(dir.path().join("out.sarif")).unwrap(), render(Format::Sarif));
    assert!(std::fs::read_to_string(dir.path().join("junit.xml")).unwrap().starts_with("<?xml"));
}

#[test]
fn explain_subcommand() {
    let bin = env!("CARGO_BIN_EXE_driftlint");
    let out = std::process::Command::new(bin).args(["explain", "value-drift"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), driftlint_core::rules::explain_text(Rule::ValueDrift));
    let list = std::process::Command::new(bin).arg("explain").output().unwrap();
    assert!(String::from_utf8(list.stdout).unwrap().contains("cardinality-violation"));
    let bad = std::process::Command::new(bin).args(["explain", "no-such-rule"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let stderr = String::from_utf8(bad.stderr).unwrap();
    assert!(stderr.contains("unknown rule `no-such-rule`"), "{stderr}");
    assert!(!stderr.contains("did you mean"), "nothing is near: {stderr}");
    // A typo gets the nearest rule, not the list of every rule.
    for (typo, near) in [
        ("value-drif", "value-drift"),
        ("missing_resource", "missing-resource"),
        ("schema-unkown-field", "schema-unknown-field"),
    ] {
        let bad = std::process::Command::new(bin).args(["explain", typo]).output().unwrap();
        assert_eq!(bad.status.code(), Some(2));
        let stderr = String::from_utf8(bad.stderr).unwrap();
        assert!(stderr.contains(&format!("did you mean `{near}`?")), "{typo}: {stderr}");
        assert!(!stderr.contains("cardinality-violation"), "{typo}: {stderr}");
    }
}

#[path = "report/sarif_schema.rs"]
mod sarif_schema;

/// Shared with the submodules.
pub(crate) fn fixture() -> (Vec<Source>, Vec<Diagnostic>) {
    (sources(), diagnostics())
}

pub(crate) fn limits_opts(limits: Limits) -> Options<'static> {
    Options { limits, ..options(&[]) }
}
