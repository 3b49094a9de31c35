//! conftest's configuration built-ins (conftest's `builtins/parse_config.go`), for the
//! formats driftlint reads:
//!
//! - `parse_config(parser, text)`: `text` parsed as `yaml` (`yml`) or `json`;
//! - `parse_config_file(path)`: the file at `path`, relative to the directory of the policy
//!   that calls it (as conftest joins it), parsed by its extension (`.yaml`, `.yml`, `.json`);
//! - `parse_combined_config_files(paths)`: each file so, as `[{"path": …, "contents": …}]`
//!   sorted by path (conftest's `CombineConfigurations`: a file that parses to a list, the
//!   documents of a YAML stream or a top-level array, gives one entry per element).
//!
//! Any other parser or extension is an evaluation error naming it (conftest's HCL, TOML,
//! Dockerfile, … parsers are not part of driftlint), never undefined.
//!
//! The policy is untrusted, and so is every path it names: a file is read only through
//! [`driftlint_core::confine`], inside the repository that holds the calling policy, bounded
//! in size like every input ([`driftlint_core::input::MAX_FILE_BYTES`]); a refusal is an
//! evaluation error that names the path relative to the repository and nothing of where it
//! leads. A policy read from git (`git:REV:PATH`) has no directory on disk to read from.
//!
//! regorus' extensions do not know who calls them, so each policy directory gets its own
//! copy of the two file built-ins (`parse_config_file__f0`, …) and the calls in a module are
//! renamed to its directory's copy before regorus compiles it ([`super::rewrite`]); messages
//! name the built-ins by their own names ([`super::tags`]).

use std::path::{Path, PathBuf};

use driftlint_core::confine::{Boundary, confine};
use regorus::Value;

use super::PolicyError;

use super::tags::{FILE_BUILTINS, for_dir};

/// The parsers driftlint has.
const PARSERS: [&str; 3] = ["yaml", "yml", "json"];

/// Registers `parse_config` and, for each of `dirs` (by index), its copies of the file
/// built-ins. `None`: a policy without a directory on disk (read from git).
pub fn register(engine: &mut regorus::Engine, dirs: &[Option<PathBuf>]) -> Result<(), PolicyError> {
    let fail = |e: anyhow::Error| PolicyError::Data { message: e.to_string() };
    engine
        .add_extension(
            "parse_config".into(),
            2,
            Box::new(|args: Vec<Value>| {
                let (Ok(parser), Ok(text)) = (string(&args, 0), string(&args, 1)) else {
                    anyhow::bail!("parse_config: the parser name and the configuration must be strings");
                };
                parse("parse_config", &parser, &text)
            }),
        )
        .map_err(fail)?;
    for (i, dir) in dirs.iter().enumerate() {
        let d = dir.clone();
        engine
            .add_extension(
                for_dir(FILE_BUILTINS[0].0, i),
                1,
                Box::new(move |args: Vec<Value>| {
                    let path = string(&args, 0)
                        .map_err(|_| anyhow::anyhow!("parse_config_file: the path must be a string"))?;
                    let (_, value) = read("parse_config_file", d.as_deref(), &path)?;
                    Ok(value)
                }),
            )
            .map_err(fail)?;
        let d = dir.clone();
        engine
            .add_extension(
                for_dir(FILE_BUILTINS[1].0, i),
                1,
                Box::new(move |args: Vec<Value>| {
                    let name = "parse_combined_config_files";
                    let paths = args
                        .first()
                        .and_then(|a| a.as_array().ok())
                        .ok_or_else(|| anyhow::anyhow!("{name}: the argument must be an array of paths"))?;
                    let mut out = Vec::with_capacity(paths.len());
                    for p in paths.iter() {
                        let path = p.as_string().map_err(|_| anyhow::anyhow!("{name}: every path must be a string"))?;
                        let (joined, contents) = read(name, d.as_deref(), path)?;
                        // conftest's CombineConfigurations: a list (the documents of a YAML
                        // stream, or a top-level array) is one entry per element.
                        let parts = match &contents {
                            Value::Array(items) => items.iter().cloned().collect(),
                            _ => vec![contents],
                        };
                        for part in parts {
                            let mut entry = Value::new_object();
                            let map = entry.as_object_mut()?;
                            map.insert(Value::from("path"), Value::from(joined.clone()));
                            map.insert(Value::from("contents"), part);
                            out.push((joined.clone(), entry));
                        }
                    }
                    // Sorted by path, as conftest sorts them (stable: documents keep their order).
                    out.sort_by(|a, b| a.0.cmp(&b.0));
                    Ok(Value::from(out.into_iter().map(|(_, e)| e).collect::<Vec<_>>()))
                }),
            )
            .map_err(fail)?;
    }
    Ok(())
}

fn string(args: &[Value], i: usize) -> anyhow::Result<String> {
    Ok(args.get(i).ok_or_else(|| anyhow::anyhow!("missing argument"))?.as_string()?.to_string())
}

/// `text` parsed by `parser`.
fn parse(builtin: &str, parser: &str, text: &str) -> anyhow::Result<Value> {
    if !PARSERS.contains(&parser) {
        anyhow::bail!("{builtin}: parser `{parser}` is not supported: driftlint reads yaml and json");
    }
    // The loader picks the format by the name's extension.
    let name = if parser == "json" { "config.json" } else { "config.yaml" };
    let json = super::load::parse_document(name, text.as_bytes()).map_err(|e| {
        anyhow::anyhow!(
            "{builtin}: {}",
            e.to_string().trim_start_matches("config.json: ").trim_start_matches("config.yaml: ")
        )
    })?;
    serde_json::from_value::<Value>(json).map_err(|e| anyhow::anyhow!("{builtin}: {e}"))
}

/// The file `path` names relative to `dir` (the calling policy's directory): the joined path
/// as conftest shows it, and the file parsed by its extension.
fn read(builtin: &str, dir: Option<&Path>, path: &str) -> anyhow::Result<(String, Value)> {
    let Some(dir) = dir else {
        anyhow::bail!("{builtin}: `{path}`: the policy was read from git, it has no directory to read files from");
    };
    let joined = if dir.as_os_str().is_empty() { PathBuf::from(path) } else { dir.join(path) };
    let shown = joined.display().to_string();
    let ext = joined.extension().and_then(|e| e.to_str()).unwrap_or("");
    let parser = match ext {
        "yaml" | "yml" => "yaml",
        "json" => "json",
        _ => anyhow::bail!("{builtin}: `{shown}`: no parser for `.{ext}` files: driftlint reads yaml and json"),
    };
    let anchor = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let boundary = Boundary::around(anchor);
    let real = confine(&joined, &boundary).map_err(|refusal| anyhow::anyhow!("{builtin}: {refusal}"))?;
    let bytes = driftlint_core::input::read_bounded(&real, driftlint_core::input::MAX_FILE_BYTES)
        .map_err(|e| anyhow::anyhow!("{builtin}: `{}`: {e}", boundary.show(&joined)))?;
    let text = String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{builtin}: `{shown}`: not UTF-8 text"))?;
    Ok((shown, parse(builtin, parser, &text)?))
}

#[cfg(test)]
mod tests {
    use crate::engine::{Options, RegoVersion, to_json};
    use crate::{Module, Policies, PolicyError};

    fn eval(path: &str, text: &str, query: &str) -> Result<Option<serde_json::Value>, PolicyError> {
        let modules = vec![Module { path: path.into(), text: text.into() }];
        let mut p = Policies::compile(modules, None, &Options::default(), RegoVersion::V1)?;
        p.query(query, None).map(|v| v.map(|v| to_json(&v)))
    }

    #[test]
    fn parse_config_reads_yaml_and_json_and_names_any_other_parser() {
        let text = "package a\ny := parse_config(\"yaml\", \"a: 1\\nb: [x]\")\nj := parse_config(\"json\", \"[1]\")\nh := parse_config(\"hcl2\", \"a = 1\")";
        assert_eq!(eval("p.rego", text, "data.a.y").unwrap(), Some(serde_json::json!({"a": 1, "b": ["x"]})));
        assert_eq!(eval("p.rego", text, "data.a.j").unwrap(), Some(serde_json::json!([1])));
        let e = eval("p.rego", text, "data.a.h").unwrap_err();
        assert!(e.to_string().contains("parser `hcl2` is not supported"), "{e}");
    }

    #[test]
    fn file_builtins_read_beside_the_policy_and_stay_in_the_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("policy")).unwrap();
        std::fs::write(repo.join("policy/conf.yaml"), "a: 1\n---\na: 2\n").unwrap();
        std::fs::write(repo.join("policy/one.json"), "{\"b\": true}").unwrap();
        std::fs::write(repo.join("policy/x.toml"), "a = 1").unwrap();
        std::fs::write(tmp.path().join("secret.yaml"), "token: s3cret\n").unwrap();
        let policy = repo.join("policy/p.rego").display().to_string();
        let text = "package a\n\
            f := parse_config_file(\"one.json\")\n\
            c := parse_combined_config_files([\"one.json\", \"conf.yaml\"])\n\
            out := parse_config_file(\"../../secret.yaml\")\n\
            t := parse_config_file(\"x.toml\")";
        assert_eq!(eval(&policy, text, "data.a.f").unwrap(), Some(serde_json::json!({"b": true})));
        let dir = repo.join("policy");
        let at = |f: &str| dir.join(f).display().to_string();
        // conftest's CombineConfigurations: one entry per document, sorted by path.
        assert_eq!(
            eval(&policy, text, "data.a.c").unwrap(),
            Some(serde_json::json!([
                {"path": at("conf.yaml"), "contents": {"a": 1}},
                {"path": at("conf.yaml"), "contents": {"a": 2}},
                {"path": at("one.json"), "contents": {"b": true}},
            ]))
        );
        let e = eval(&policy, text, "data.a.out").unwrap_err().to_string();
        assert!(e.contains("leaves the repository") && !e.contains("s3cret"), "{e}");
        let e = eval(&policy, text, "data.a.t").unwrap_err().to_string();
        assert!(e.contains("no parser for `.toml` files"), "{e}");
    }
}
