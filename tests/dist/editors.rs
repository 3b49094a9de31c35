//! docs/editors.md is copy-paste correct: its modeline, editor settings and SchemaStore catalog
//! entry name the `$id` of the shipped schema (an https URL editors can fetch, not a `urn:`),
//! its JSON snippets parse, and `driftlint init` writes the same modeline.

use super::fixture::root;

fn schema_id() -> String {
    let text = std::fs::read_to_string(root().join("docs/driftlint.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    schema["$id"].as_str().unwrap().to_string()
}

#[test]
fn editor_snippets_name_the_schemas_id() {
    let id = schema_id();
    assert!(id.starts_with("https://") && id.ends_with("/docs/driftlint.schema.json"), "{id}");
    assert_eq!(id, driftlint::config::SCHEMA_ID);
    let doc = std::fs::read_to_string(root().join("docs/editors.md")).unwrap();
    assert!(doc.contains(&format!("# yaml-language-server: $schema={id}\n")), "no modeline for {id}");
    let mut blocks = Vec::new();
    let mut open: Option<String> = None;
    for line in doc.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some("json")) => open = Some(String::new()),
            (Some(body), Some(_)) => {
                blocks.push(std::mem::take(body));
                open = None;
            }
            (Some(body), None) => {
                body.push_str(line);
                body.push('\n');
            }
            _ => {}
        }
    }
    // Every JSON snippet parses; among them the VS Code settings and the catalog entry.
    let parsed: Vec<serde_json::Value> =
        blocks.iter().map(|b| serde_json::from_str(b).unwrap_or_else(|e| panic!("{e}: {b}"))).collect();
    let settings = parsed.iter().find(|v| v.get("yaml.schemas").is_some()).expect("the VS Code yaml.schemas settings");
    assert_eq!(settings["yaml.schemas"][&id], ".driftlint.yaml");
    let entry = parsed.iter().find(|v| v.get("fileMatch").is_some()).expect("the SchemaStore catalog entry");
    assert_eq!(entry["url"], id.as_str());
    assert_eq!(entry["fileMatch"], serde_json::json!([".driftlint.yaml"]));
    for key in ["name", "description"] {
        assert!(entry[key].as_str().is_some_and(|s| !s.is_empty()), "catalog entry without {key}");
    }

    // `driftlint init` starts the file with the same modeline.
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_driftlint"))
        .args(["init", "--quiet"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written = std::fs::read_to_string(dir.path().join(".driftlint.yaml")).unwrap();
    assert!(written.starts_with(&format!("# yaml-language-server: $schema={id}\n")), "{written}");
}
