//! SARIF output validated against the official SARIF 2.1.0 JSON schema, which the
//! `serde-sarif` crate ships as `src/schema.json` (its types are generated from it). The file
//! is found through `cargo metadata`, so no copy of the schema lives in this repository.

use std::path::PathBuf;
use std::process::Command;

use driftlint::report::{Format, Limits, SourceResolver, render};
use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::input::SourcePath;

use super::{fixture, limits_opts};

fn schema_path() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "serde-sarif")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("serde-sarif in cargo metadata");
    PathBuf::from(manifest).parent().unwrap().join("src/schema.json")
}

fn validate(sarif: &str) {
    let path = schema_path();
    let mut schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
            .unwrap();
    fix_language_pattern(&mut schema);
    assert!(schema["title"].as_str().unwrap_or("").contains("2.1.0"), "not the SARIF 2.1.0 schema");
    let validator = jsonschema::draft7::options().should_validate_formats(true).build(&schema).unwrap();
    let instance: serde_json::Value = serde_json::from_str(sarif).unwrap();
    let errors: Vec<String> =
        validator.iter_errors(&instance).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "SARIF does not validate:\n{}", errors.join("\n"));
}

/// The published schema's `language` pattern has a stray `]`
/// (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`) that the draft-07 meta-schema's `regex` format
/// rejects, so the schema would not load. It is corrected in memory only, to the pattern the
/// SARIF spec describes (an RFC 5646 `xx` or `xx-XX` tag); nothing else is touched.
fn fix_language_pattern(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            if map.get("pattern").and_then(|p| p.as_str()) == Some("^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$") {
                map.insert("pattern".into(), "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".into());
            }
            map.values_mut().for_each(fix_language_pattern);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(fix_language_pattern),
        _ => {}
    }
}

#[test]
fn fixture_sarif_validates() {
    let (sources, diags) = fixture();
    let resolver = SourceResolver::from_sources(&sources);
    validate(&render(Format::Sarif, &diags, &resolver, &limits_opts(Limits::default())).unwrap());
}

#[test]
fn empty_and_truncated_sarif_validate() {
    let resolver = SourceResolver::new();
    validate(&render(Format::Sarif, &[], &resolver, &limits_opts(Limits::default())).unwrap());
    let many: Vec<Diagnostic> = (0..20)
        .map(|i| Diagnostic::error(Rule::ValueDrift, SourcePath::File(format!("m/{i}.yaml").into()), None, "drift"))
        .collect();
    let limits = Limits { sarif_results: 5, ..Limits::default() };
    validate(&render(Format::Sarif, &many, &resolver, &limits_opts(limits)).unwrap());
}

#[test]
fn the_validator_rejects_invalid_sarif() {
    // Guards the test itself: a line 0 and a missing `message` must not validate.
    let (sources, diags) = fixture();
    let resolver = SourceResolver::from_sources(&sources);
    let good = render(Format::Sarif, &diags, &resolver, &limits_opts(Limits::default())).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&good).unwrap();
    doc["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0.into();
    let path = schema_path();
    let mut schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    fix_language_pattern(&mut schema);
    let validator = jsonschema::draft7::options().build(&schema).unwrap();
    assert!(!validator.is_valid(&doc));
    let mut doc: serde_json::Value = serde_json::from_str(&good).unwrap();
    doc["runs"][0]["results"][0].as_object_mut().unwrap().remove("message");
    assert!(!validator.is_valid(&doc));
}
