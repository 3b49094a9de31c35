//! `crossplane beta validate`'s own tests, translated: the table cases of crossplane/cli
//! (commit 3d72f93) `pkg/validate/validate_test.go` (TestSchemaValidate, TestResultError),
//! `pkg/validate/apply_defaults_test.go`, `pkg/validate/unknown_fields_test.go`,
//! `cmd/crossplane/validate/validate_test.go` (TestConvertToCRDs) and
//! `cmd/crossplane/validate/validate_integration_test.go` (TestRun), as
//! `driftlint check --schemas SCHEMAS RESOURCES` over fixtures/crossplane-validate (one
//! directory per case; `cmd/` is TestRun's testdata). Each case holds driftlint to
//! Crossplane's verdict, or to the deliberate difference docs/crossplane-validate.md states.
//! The defaulting cases are observed through `required` and CEL rules over the defaulted
//! fields (driftlint does not print the defaulted object).

use super::{json, root, run_in};

const SET: &str = "fixtures/crossplane-validate";

/// One translated case.
struct Case {
    /// `file: TestName/CaseName` in crossplane/cli.
    source: &'static str,
    /// Schema files and resources, relative to the set.
    schemas: Vec<String>,
    resources: Vec<String>,
    extra: &'static [&'static str],
    /// Whether `crossplane beta validate` fails (or its table marks the resource invalid).
    crossplane_fails: bool,
    exit: i32,
    /// (rule, severity) of every finding, in report order.
    findings: &'static [(&'static str, &'static str)],
    /// Objects validated against a schema.
    validated: u64,
    /// Why driftlint deliberately answers otherwise.
    differs: Option<&'static str>,
}

const BUILTINS: &str = "built-in kinds are validated against their schema and the API server's own rules; `beta validate` only decodes them strictly";

fn cases() -> Vec<Case> {
    // A case directory: its schemas.yaml (when it has one) and resources.yaml.
    let c = |source: &'static str, dir: &str, crossplane_fails, exit, findings, validated| Case {
        source,
        schemas: if root().join(SET).join(dir).join("schemas.yaml").exists() {
            vec![format!("{dir}/schemas.yaml")]
        } else {
            Vec::new()
        },
        resources: vec![format!("{dir}/resources.yaml")],
        extra: &[],
        crossplane_fails,
        exit,
        findings,
        validated,
        differs: None,
    };
    let cmd = |files: &[&str]| files.iter().map(|f| format!("cmd/{f}")).collect::<Vec<_>>();
    const TYPE: (&str, &str) = ("schema-type-mismatch", "error");
    const NOT_FOUND: (&str, &str) = ("schema-not-found", "warning");
    const UNKNOWN: (&str, &str) = ("schema-unknown-field", "error");
    const CEL: (&str, &str) = ("schema-cel-violation", "error");
    const REQUIRED: (&str, &str) = ("schema-required-missing", "error");
    const DUPLICATE_DEF: (&str, &str) = ("duplicate-definition", "warning");
    const BUILTIN_REDEFINED: (&str, &str) = ("invalid-schema", "error");
    const V1ALPHA1: (&str, &str) = ("invalid-schema", "warning");
    vec![
        c("pkg/validate/validate_test.go: TestSchemaValidate/Valid", "Valid", false, 0, &[], 1),
        c("pkg/validate/validate_test.go: TestSchemaValidate/InvalidSchema", "InvalidSchema", true, 1, &[TYPE], 1),
        c("pkg/validate/validate_test.go: TestSchemaValidate/InvalidCEL", "InvalidCEL", true, 1, &[CEL], 1),
        c(
            "pkg/validate/validate_test.go: TestSchemaValidate/MissingSchema",
            "MissingSchema",
            false,
            0,
            &[NOT_FOUND],
            0,
        ),
        Case {
            differs: Some(BUILTINS),
            ..c(
                "pkg/validate/validate_test.go: TestSchemaValidate/KubernetesBuiltIn (Secret, Deployment without spec, APIService)",
                "KubernetesBuiltIn",
                false,
                1,
                &[REQUIRED],
                3,
            )
        },
        Case {
            differs: Some(
                "a CustomResourceDefinition among the checked files is read as a definition: one without `spec` is an invalid-schema error",
            ),
            ..c(
                "pkg/validate/validate_test.go: TestSchemaValidate/KubernetesBuiltIn (CustomResourceDefinition)",
                "KubernetesBuiltInCRD",
                false,
                1,
                &[BUILTIN_REDEFINED],
                0,
            )
        },
        c(
            "pkg/validate/validate_test.go: TestSchemaValidate/KubernetesBuiltInInvalid",
            "KubernetesBuiltInInvalid",
            true,
            1,
            &[UNKNOWN, REQUIRED, REQUIRED, TYPE],
            2,
        ),
        c("pkg/validate/validate_test.go: TestSchemaValidate/UnknownField", "UnknownField", true, 1, &[UNKNOWN], 1),
        c(
            "pkg/validate/validate_test.go: TestSchemaValidate/DefaultingFailureOnly",
            "DefaultingFailureOnly",
            false,
            0,
            &[DUPLICATE_DEF],
            1,
        ),
        c(
            "pkg/validate/validate_test.go: TestSchemaValidate/DefaultingFailureWithSchemaError",
            "DefaultingFailureWithSchemaError",
            true,
            1,
            &[TYPE, DUPLICATE_DEF],
            1,
        ),
        c("pkg/validate/validate_test.go: TestSchemaValidate/Empty", "Empty", false, 0, &[], 0),
        c("pkg/validate/validate_test.go: TestSchemaValidate/MixedOrder", "MixedOrder", true, 1, &[TYPE, NOT_FOUND], 2),
        c("pkg/validate/apply_defaults_test.go: TestApplyDefaults/NoCRDFound", "NoCRDFound", false, 0, &[NOT_FOUND], 0),
        c(
            "pkg/validate/apply_defaults_test.go: TestApplyDefaults/ApplySimpleDefault",
            "ApplySimpleDefault",
            false,
            0,
            &[],
            1,
        ),
        // The CEL rule expects the default: a value written is kept, so the rule fails.
        c(
            "pkg/validate/apply_defaults_test.go: TestApplyDefaults/DoNotOverrideExisting",
            "DoNotOverrideExisting",
            true,
            1,
            &[CEL],
            1,
        ),
        c("pkg/validate/apply_defaults_test.go: TestApplyDefaults/NestedDefaults", "NestedDefaults", false, 0, &[], 1),
        c(
            "pkg/validate/apply_defaults_test.go: TestApplyDefaults/ComplexDefaults",
            "ComplexDefaults",
            false,
            0,
            &[],
            1,
        ),
        c(
            "pkg/validate/unknown_fields_test.go: TestValidateUnknownFields/UnknownFieldPresent",
            "UnknownFieldPresent",
            true,
            1,
            &[UNKNOWN],
            1,
        ),
        c(
            "pkg/validate/unknown_fields_test.go: TestValidateUnknownFields/UnknownFieldNotPresent",
            "UnknownFieldNotPresent",
            false,
            0,
            &[],
            1,
        ),
        // TestConvertToCRDs: an apiextensions.crossplane.io/v1alpha1 XRD is converted as v1
        // (an XR and a claim of it, one valid and one not, show the derived schema is used).
        c(
            "cmd/crossplane/validate/validate_test.go: TestConvertToCRDs/UnstructuredXRD",
            "UnstructuredXRD",
            true,
            1,
            &[TYPE, V1ALPHA1],
            2,
        ),
        c(
            "cmd/crossplane/validate/validate_test.go: TestConvertToCRDs/UnstructuredXRDWithClaim",
            "UnstructuredXRDWithClaim",
            true,
            1,
            &[TYPE, V1ALPHA1],
            2,
        ),
        c(
            "cmd/crossplane/validate/validate_test.go: TestConvertToCRDs/WrongKind",
            "WrongKind",
            false,
            0,
            &[("invalid-schema", "note")],
            1,
        ),
        Case {
            schemas: cmd(&["crd.yaml"]),
            resources: cmd(&["resources_valid.yaml"]),
            ..c(
                "cmd/crossplane/validate/validate_test.go: TestConvertToCRDs/UnstructuredCRD; validate_integration_test.go: TestRun/DefaultTextValid, JSONValid, YAMLValid, SkipSuccessResults*; validate_test.go: TestResultError/Clean",
                "Valid",
                false,
                0,
                &[],
                1,
            )
        },
        Case {
            schemas: cmd(&["crd.yaml"]),
            resources: cmd(&["resources_invalid.yaml"]),
            ..c(
                "validate_integration_test.go: TestRun/TextInvalidExitsNonZero, JSONInvalidExitsNonZero; validate_test.go: TestResultError/InvalidPresent",
                "InvalidSchema",
                true,
                1,
                &[TYPE],
                1,
            )
        },
        Case {
            schemas: cmd(&["crd.yaml"]),
            resources: cmd(&["resources_missing.yaml"]),
            ..c(
                "validate_integration_test.go: TestRun/JSONMissingSchemaNoFlag; validate_test.go: TestResultError/MissingIgnored",
                "MissingSchema",
                false,
                0,
                &[NOT_FOUND],
                0,
            )
        },
        Case {
            schemas: cmd(&["crd.yaml"]),
            resources: cmd(&["resources_missing.yaml"]),
            extra: &["--schema-mode", "strict"],
            ..c(
                "validate_integration_test.go: TestRun/JSONMissingSchemaWithFlag (--error-on-missing-schemas); validate_test.go: TestResultError/MissingWithFlag",
                "MissingSchema",
                true,
                1,
                &[("schema-not-found", "error")],
                0,
            )
        },
        Case {
            schemas: cmd(&["crd.yaml"]),
            resources: cmd(&["resources_invalid.yaml", "resources_missing.yaml"]),
            extra: &["--schema-mode", "strict"],
            ..c(
                "validate_test.go: TestResultError/InvalidAndMissing",
                "InvalidSchema",
                true,
                1,
                &[TYPE, ("schema-not-found", "error")],
                1,
            )
        },
    ]
}

#[test]
fn crossplane_beta_validate_tests_translated() {
    let dir = root().join(SET);
    let mut wrong = Vec::new();
    for c in cases() {
        let mut args = vec!["check", "--isolated", "--format", "json"];
        for s in &c.schemas {
            args.extend(["--schemas", s.as_str()]);
        }
        args.extend(c.extra);
        args.extend(c.resources.iter().map(String::as_str));
        let r = run_in(&dir, &args, None);
        let mut problems = Vec::new();
        if r.code != c.exit {
            problems.push(format!("exit {} (expected {})", r.code, c.exit));
        }
        if c.differs.is_none() && (c.exit != 0) != c.crossplane_fails {
            problems.push("Crossplane's verdict differs and the case does not say why".to_string());
        }
        if r.code == 0 || r.code == 1 {
            let report = json(&r);
            let found: Vec<(String, String)> = report["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| (d["rule"].as_str().unwrap().to_string(), d["severity"].as_str().unwrap().to_string()))
                .collect();
            let expected: Vec<(String, String)> =
                c.findings.iter().map(|(r, s)| (r.to_string(), s.to_string())).collect();
            if found != expected {
                problems.push(format!("findings {found:?}, expected {expected:?}"));
            }
            let validated = report["summary"]["objects"]["validated"].as_u64().unwrap_or(0);
            if validated != c.validated {
                problems.push(format!("{validated} objects validated (expected {})", c.validated));
            }
        }
        if !problems.is_empty() {
            wrong.push(format!("{}: {}\n{}{}", c.source, problems.join("; "), r.stdout, r.stderr));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
