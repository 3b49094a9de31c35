//! driftlint against kubeconform's recorded verdicts on the same bundled schemas
//! (fixtures/kubeconform-parity, see its README): document for document, with and without
//! unknown fields counting, and each invalid document's errors at the expected lines.

use std::collections::{BTreeMap, BTreeSet};

use super::{json, root, run_in};

const SET: &str = "fixtures/kubeconform-parity";

/// The rules of what kubeconform checks: the schema's, and kinds without a schema or a type.
/// (driftlint's server-side rules, `selector-mismatch` and the like, go beyond it.)
const KUBECONFORM_RULES: [&str; 7] = [
    "schema-unknown-field",
    "schema-type-mismatch",
    "schema-required-missing",
    "schema-invalid-value",
    "unknown-kind",
    "removed-api-version",
    "not-kubernetes-object",
];

/// Per file: (rule, line) of each error.
type Errors = BTreeMap<String, Vec<(String, u64)>>;

/// Per file of one version directory: (rule, line) of each error driftlint reports of the
/// rules kubeconform has.
fn errors(version: &str) -> Errors {
    let dir = root().join(SET);
    let r = run_in(&dir, &["check", "--isolated", "--format", "json", "--kubernetes-version", version, version], None);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let mut out: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
    for d in json(&r)["diagnostics"].as_array().unwrap() {
        if d["severity"] == "error" && KUBECONFORM_RULES.contains(&d["rule"].as_str().unwrap()) {
            let file = d["file"].as_str().unwrap().to_string();
            out.entry(file).or_default().push((d["rule"].as_str().unwrap().into(), d["line"].as_u64().unwrap()));
        }
    }
    out
}

#[test]
fn driftlint_agrees_with_kubeconform_document_for_document() {
    let verdicts = std::fs::read_to_string(root().join(SET).join("verdicts.tsv")).unwrap();
    let rows: Vec<Vec<&str>> =
        verdicts.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).map(|l| l.split('\t').collect()).collect();
    assert!(rows.len() >= 30, "the set has at least 30 documents");
    let versions: BTreeSet<&str> = rows.iter().map(|r| r[1]).collect();
    let found: BTreeMap<&str, Errors> = versions.iter().map(|v| (*v, errors(v))).collect();
    let mut disagreements = Vec::new();
    let (mut valid, mut invalid, mut loose_only) = (0, 0, 0);
    for row in &rows {
        let [file, version, strict, loose, lines] = row[..] else { panic!("bad row {row:?}") };
        let errs = found[version].get(file).cloned().unwrap_or_default();
        let strict_ok = errs.is_empty();
        let loose_ok = errs.iter().all(|(rule, _)| rule == "schema-unknown-field");
        if strict_ok != (strict == "valid") || loose_ok != (loose == "valid") {
            disagreements
                .push(format!("{file}: kubeconform -strict {strict}, kubeconform {loose}; driftlint {errs:?}"));
        }
        let expected: BTreeSet<u64> = lines.split(',').filter(|l| *l != "-").map(|l| l.parse().unwrap()).collect();
        let got: BTreeSet<u64> = errs.iter().map(|(_, l)| *l).collect();
        if expected != got {
            disagreements.push(format!("{file}: errors at lines {got:?}, expected {expected:?} ({errs:?})"));
        }
        match (strict, loose) {
            ("valid", _) => valid += 1,
            (_, "valid") => loose_only += 1,
            _ => invalid += 1,
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    // The set covers each case: valid, invalid both ways, invalid only for -strict.
    assert!(valid >= 10 && invalid >= 10 && loose_only >= 3, "{valid} {invalid} {loose_only}");
}

/// kubeconform's own acceptance suite, translated: the tests of `acceptance.bats` and
/// `acceptance-nonetwork.bats` (yannh/kubeconform at e65429b) that read local files or local
/// schemas, with their fixtures in fixtures/kubeconform-acceptance (copied from kubeconform's
/// `fixtures/`). Left out: the schema cache and HTTP proxy tests, the remote openshift schemas
/// and the 100,000-resource file (network or size only; driftlint reads no network).
const ACCEPTANCE: &str = "fixtures/kubeconform-acceptance";

/// One translated bats test.
struct Case {
    /// The bats test's name.
    name: &'static str,
    /// kubeconform's exit status in it.
    kubeconform: i32,
    /// driftlint's arguments after `check --isolated --format json`, in the fixture directory.
    args: &'static [&'static str],
    /// What is piped into standard input (a fixture's name), if anything.
    stdin: Option<&'static str>,
    /// driftlint's exit status.
    exit: i32,
    /// Objects validated against a schema (kubeconform's "Valid" plus "Invalid"), for the tests
    /// that check `-summary`.
    validated: Option<u64>,
    /// Text the output (or the error) must contain.
    says: &'static str,
    /// Why driftlint deliberately answers otherwise (docs/kubeconform.md lists each).
    differs: Option<&'static str>,
}

const fn case(name: &'static str, kubeconform: i32, args: &'static [&'static str], exit: i32) -> Case {
    Case { name, kubeconform, args, stdin: None, exit, validated: None, says: "", differs: None }
}

impl Case {
    const fn validated(mut self, n: u64) -> Case {
        self.validated = Some(n);
        self
    }
    const fn says(mut self, text: &'static str) -> Case {
        self.says = text;
        self
    }
    const fn stdin(mut self, file: &'static str) -> Case {
        self.stdin = Some(file);
        self
    }
    const fn differs(mut self, why: &'static str) -> Case {
        self.differs = Some(why);
        self
    }
}

const UNKNOWN_FIELDS: &str =
    "unknown fields are always errors (kubectl's strict field validation); kubeconform needs -strict";
const NOT_MANIFEST: &str = "a document with no apiVersion, kind, metadata or spec is no manifest (a repository's other YAML): a note, not an error";
const LOOSE: &str =
    "a kind without a schema is a warning in the default loose mode; --schema-mode strict is kubeconform's default";

fn acceptance_cases() -> Vec<Case> {
    vec![
        case("Pass when displaying help with -h", 0, &["-h"], 0).says("Usage: driftlint check"),
        case("Fail and display help when using an incorrect flag", 1, &["-xyz"], 2).says("unexpected argument"),
        case("Pass when parsing a valid Kubernetes config YAML file", 0, &["valid.yaml"], 0).validated(1),
        case("Pass when parsing a folder containing valid YAML files", 0, &["folder"], 0).validated(7),
        case("Pass when parsing a valid Kubernetes config file with int_to_string vars", 0, &["int_or_string.yaml"], 0)
            .validated(1),
        case("Pass when parsing a valid Kubernetes config JSON file", 0, &["--kubernetes-version", "1.30.0", "valid.json"], 0)
            .validated(1)
            .differs("driftlint bundles Kubernetes 1.30-1.37: kubeconform's -kubernetes-version 1.20.0 is 1.30.0 here"),
        case("Pass when parsing a valid Kubernetes config YAML file with generate name", 0, &["generate_name.yaml"], 0)
            .validated(1),
        case("Pass when parsing a Kubernetes file with string and integer quantities", 0, &["quantity.yaml"], 0).validated(1),
        case("Pass when parsing a valid Kubernetes config file with null arrays", 0, &["null_string.yaml"], 0).validated(1),
        case("Pass when parsing a valid Kubernetes config file with null strings", 0, &["null_string.yaml"], 0).validated(1),
        case("Pass when parsing a multi-document config file", 0, &["multi_valid.yaml"], 0).validated(6),
        case("Fail when parsing a multi-document config file with one invalid resource", 1, &["multi_invalid.yaml"], 1)
            .says("schema-type-mismatch"),
        case("Fail when parsing an invalid Kubernetes config file", 1, &["invalid.yaml"], 1).says("`spec.replicas` must be integer"),
        case("Return relevant error for non-existent file", 1, &["not-here"], 2).says("input path not-here does not exist"),
        case("Pass when parsing a blank config file", 0, &["blank.yaml"], 0).validated(0),
        case("Pass when parsing a blank config file with a comment", 0, &["comment.yaml"], 0).validated(0),
        case("Fail when parsing a config that is missing a Kind", 1, &["missing_kind.yaml"], 0)
            .says("not a Kubernetes object")
            .differs(NOT_MANIFEST),
        case("Fail when parsing a config that is missing an apiVersion", 1, &["missing_apiversion.yaml"], 1)
            .says("but no `apiVersion`"),
        case("Fail when parsing a config that is missing a Kind value", 1, &["missing_kind_value.yaml"], 0)
            .says("not a Kubernetes object")
            .differs(NOT_MANIFEST),
        case("Fail when parsing a config with CRD", 1, &["test_crd.yaml"], 0).says("schema-not-found").differs(LOOSE),
        case("Fail when parsing a config with CRD (kubeconform's default: --schema-mode strict)", 1, &["--schema-mode", "strict", "test_crd.yaml"], 1)
            .says("schema-not-found"),
        case("Pass when parsing a config with Custom Resource and ignoring missing schemas", 0, &["--schema-mode", "ignore", "test_crd.yaml"], 0)
            .validated(0),
        case("Pass when parsing a config with additional properties", 0, &["extra_property.yaml"], 1)
            .says("unknown field `replicas` in `spec`")
            .differs(UNKNOWN_FIELDS),
        case("Fail when parsing a config with additional properties and strict set", 1, &["extra_property.yaml"], 1)
            .says("unknown field `replicas` in `spec`"),
        case("Fail when parsing a config with duplicate properties and strict set", 1, &["duplicate_property.yaml"], 1)
            .says("duplicate key `containers`"),
        case("Pass when parsing a config with duplicate properties and strict NOT set", 0, &["duplicate_property.yaml"], 1)
            .says("duplicate key `containers`")
            .differs("a duplicate key is always an error (the API server's strict decoding refuses it); kubeconform needs -strict"),
        case("Pass when using a valid, preset -schema-location", 0, &["--schema-location", "default", "valid.yaml"], 0).validated(1),
        case("Pass when using a valid HTTP -schema-location", 0, &["--schema-location", "https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json", "valid.yaml"], 2)
            .says("driftlint reads no network")
            .differs("driftlint reads no network: the bundled schemas are its `default`"),
        case("Fail when using an invalid HTTP -schema-location", 1, &["--schema-location", "http://foo", "valid.yaml"], 2)
            .says("driftlint reads no network"),
        case("Fail when using an invalid non-HTTP -schema-location", 1, &["--schema-location", "foo", "valid.yaml"], 2)
            .says("schema location `foo`: directory `foo` does not exist"),
        case("Fail early when passing a non valid -schema-location template", 1, &["--schema-location", "foo {{ .Foo }}", "valid.yaml"], 2)
            .says("schema location `foo {{ .Foo }}`: unknown variable `{{ .Foo }}`"),
        case("Fail early when passing a non valid -kubernetes-version", 1, &["--kubernetes-version", "1.25", "valid.yaml"], 2)
            .says("Kubernetes version `1.25` is not bundled"),
        case("Pass when parsing a valid Kubernetes config YAML file on stdin", 0, &["-"], 0)
            .stdin("valid.yaml")
            .validated(1)
            .differs("standard input is read when `-` is given; with no paths driftlint checks the working directory"),
        case("Pass when parsing a valid Kubernetes config YAML file explicitly on stdin", 0, &["-"], 0).stdin("valid.yaml").validated(1),
        case("Fail when parsing an invalid Kubernetes config file on stdin", 1, &["-"], 1).stdin("invalid.yaml").says("<stdin>"),
        case("Fail when not passing data to stdin, when explicitly configured to read from stdin", 1, &["-"], 0)
            .stdin("blank.yaml")
            .validated(0)
            .differs("empty input is zero objects, as an empty file is"),
        case("Fail when parsing a resource from a kind to reject", 1, &["--policy", "reject", "valid.yaml"], 1)
            .says("prohibited resource kind ReplicationController"),
        case("Ignores file that match the --ignore-filename-pattern given", 0, &["--exclude", "*crd*", "--exclude", "*invalid*", "multi_invalid.yaml", "list_invalid.yaml", "quantity.yaml", "crd_schema.yaml"], 0)
            .validated(1),
        case("Produces correct TAP output", 0, &["--format", "junit", "valid.yaml"], 0)
            .says("<testsuites")
            .differs("no TAP output: JUnit, SARIF, JSON and the GitHub format serve CI"),
        case("Pass when parsing a file containing a List", 0, &["list_valid.yaml"], 0).validated(6),
        case("Pass when parsing a List resource from stdin", 0, &["-"], 0).stdin("list_valid.yaml").validated(6),
        case("Fail when parsing a List that contains an invalid resource", 1, &["list_invalid.yaml"], 1)
            .validated(2)
            .says("`spec.replicas` must be integer, not string"),
        case("Fail when parsing a List that contains an invalid resource from stdin", 1, &["-"], 1)
            .stdin("list_invalid.yaml")
            .validated(2)
            .says("`spec.replicas` must be integer, not string"),
        case("Pass on valid, empty list", 0, &["list_empty_valid.yaml"], 0).validated(0),
        case("Pass on multi-yaml containing one resource, one list", 0, &["multi_with_list.yaml"], 0).validated(2),
        case("JUnit output can be validated against the Junit schema definition", 0, &["--format", "junit", "valid.yaml"], 0)
            .says("<testsuites"),
        case("passes when trying to use a CRD that does not have the JSONSchema set", 0, &["--schema-location", "default", "httpproxy.yaml"], 0)
            .says("schema-not-found")
            .differs("the datreeio catalog is remote; without its schema the kind is a schema-not-found warning (loose mode)"),
        case("passes when validating duration not in ISO8601", 0, &["--schema-location", "./grafanaalertrulegroup_v1beta1.json", "grafana-alert-rule-group-sample.yaml"], 0)
            .validated(1),
        // acceptance-nonetwork.bats
        case("Pass when parsing a Custom Resource and using a local schema registry with appropriate CRD", 0, &["--schema-location", "./registry/{{ .ResourceKind }}{{ .KindSuffix }}.json", "test_crd.yaml"], 0)
            .validated(1),
        case("Pass when parsing a Custom Resource and specifying several local registries, the last one having the appropriate CRD", 0, &["--schema-location", "{{ .ResourceKind }}.json", "--schema-location", "./registry/{{ .ResourceKind }}{{ .KindSuffix }}.json", "test_crd.yaml"], 0)
            .validated(1),
    ]
}

#[test]
fn kubeconforms_acceptance_tests_translated() {
    let dir = root().join(ACCEPTANCE);
    let mut wrong = Vec::new();
    for c in acceptance_cases() {
        let mut args = vec!["check", "--isolated"];
        if !c.args.contains(&"--format") {
            args.extend(["--format", "json"]);
        }
        args.extend(c.args);
        if c.args.first() == Some(&"-h") || c.args.first() == Some(&"-xyz") {
            args = vec!["check", c.args[0]];
        }
        let stdin = c.stdin.map(|f| std::fs::read_to_string(dir.join(f)).unwrap());
        let r = run_in(&dir, &args, stdin.as_deref());
        let out = format!("{}{}", r.stdout, r.stderr);
        let mut problems = Vec::new();
        if r.code != c.exit {
            problems.push(format!("exit {} (expected {})", r.code, c.exit));
        }
        if c.differs.is_none() && (c.exit == 0) != (c.kubeconform == 0) {
            problems
                .push(format!("kubeconform exits {}, the case expects {} without saying why", c.kubeconform, c.exit));
        }
        if !out.contains(c.says) {
            problems.push(format!("does not say {:?}", c.says));
        }
        if let Some(n) = c.validated {
            let validated = serde_json::from_str::<serde_json::Value>(&r.stdout)
                .ok()
                .and_then(|j| j["summary"]["objects"]["validated"].as_u64());
            if validated.unwrap_or(0) != n {
                problems.push(format!("{validated:?} objects validated (expected {n})"));
            }
        }
        if !problems.is_empty() {
            wrong.push(format!("{}: {}\n{out}", c.name, problems.join("; ")));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// kubeconform's `-skip KIND` and `-skip GROUP/VERSION/KIND` (acceptance.bats, "Skip when
/// parsing a resource from a kind to skip", "... with a GVK to skip", "Do not skip ... where the
/// Kind matches but not the version") as `ignore:` entries: the objects' findings are
/// suppressed with the reason (kubeconform does not validate them at all), an entry for
/// another apiVersion suppresses nothing. On invalid.yaml, so that there is something to skip.
#[test]
fn kubeconforms_skip_is_an_ignore_entry() {
    let invalid = std::fs::read_to_string(root().join(ACCEPTANCE).join("invalid.yaml")).unwrap();
    for (object, suppressed) in [("v1_ReplicationController_*", true), ("v2_ReplicationController_*", false)] {
        let dir = tempfile::tempdir().unwrap();
        let config = format!("ignore:\n  - object: \"{object}\"\n    rule: \"*\"\n    reason: kubeconform -skip\n");
        super::write_files(dir.path(), &[("invalid.yaml", &invalid), (".driftlint.yaml", &config)]);
        let r = run_in(dir.path(), &["check", "--format", "json"], None);
        let summary = &json(&r)["summary"];
        assert_eq!(r.code, if suppressed { 0 } else { 1 }, "{object}: {}", r.stdout);
        assert_eq!(summary["suppressed"], if suppressed { 2 } else { 0 }, "{object}");
    }
}

/// A `schema-locations:` entry of the configuration that does not exist, or whose template
/// names an unknown variable, stops the run naming the file and the location (it was skipped,
/// and the bundled schemas used, exit 0).
#[test]
fn a_configured_schema_location_that_cannot_be_used_stops_the_run() {
    let valid = std::fs::read_to_string(root().join(ACCEPTANCE).join("valid.yaml")).unwrap();
    for (location, says) in [
        ("schemas/missing", "directory"),
        ("schemas/{{ .Foo }}.json", "unknown variable `{{ .Foo }}`"),
        ("schemas/{{ .ResourceKind .json", "unclosed action"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let config = format!("schema-locations: [\"{location}\"]\n");
        super::write_files(dir.path(), &[("valid.yaml", &valid), (".driftlint.yaml", &config), ("schemas/.keep", "")]);
        let r = run_in(dir.path(), &["check"], None);
        assert_eq!(r.code, 2, "{location}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains(&format!(".driftlint.yaml: `schema-locations:` schema location `{location}")),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains(says), "{location}: {}", r.stderr);
    }
}

/// Local schema locations against kubeconform's recorded answers
/// (fixtures/kubeconform-acceptance/locations.tsv, from kubeconform built offline at e65429b):
/// kubeconform's valid is driftlint's exit 0 with the object validated against the location's
/// schema (the bundled ones off); its invalid resource is driftlint's finding (exit 1); a
/// location it refuses when it starts ("failed initialising") or in which it finds no schema
/// ("could not find schema": a directory that does not exist) is driftlint's usage error (exit
/// 2), before any file is read.
#[test]
fn local_schema_locations_agree_with_kubeconforms_recorded_answers() {
    let dir = root().join(ACCEPTANCE);
    let table = std::fs::read_to_string(dir.join("locations.tsv")).unwrap();
    let mut wrong = Vec::new();
    let mut rows = 0;
    for line in table.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let [_flags, location, file, status, said] = line.split('\t').collect::<Vec<_>>()[..] else {
            panic!("bad row {line}")
        };
        rows += 1;
        let args = [
            "check",
            "--isolated",
            "--no-builtin-schemas",
            "--kubernetes-version",
            "1.37",
            "--format",
            "json",
            "--schema-location",
            location,
            file,
        ];
        let r = run_in(&dir, &args, None);
        let expected = match (status, said) {
            ("0", _) => 0,
            (_, s) if s.starts_with("failed initialising") || s.contains("could not find schema") => 2,
            _ => 1,
        };
        let validated = (r.code != 2).then(|| json(&r)["summary"]["objects"]["validated"].as_u64().unwrap_or(0));
        if r.code != expected || (expected == 0 && validated != Some(1)) {
            wrong.push(format!(
                "{location} {file}: exit {} (expected {expected}), validated {validated:?}\n{}{}",
                r.code, r.stdout, r.stderr
            ));
        }
    }
    assert!(rows >= 10 && wrong.is_empty(), "{}", wrong.join("\n\n"));
}
