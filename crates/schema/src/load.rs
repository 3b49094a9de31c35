//! Where schemas come from: the files and directories of `--schemas` and `schemas:` (plain
//! paths, or git locations `git:REV:PATH` read from the object database, whole), then CRDs
//! and XRDs among the checked documents. Each source is read and parsed once; the texts are
//! kept so that diagnostics in schema files can be shown with their lines.
//!
//! The order is the trust order (docs/security.md): the configured schemas are read first and
//! win; a checked definition of a kind they (or Kubernetes itself) define is an error, see
//! [`Registry::add_document`].

use std::path::{Path, PathBuf};

use super::{Registry, Trust};
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::document::Collection;
use driftlint_core::input::{self, Source, SourcePath, WalkOptions};
use driftlint_git as git;

/// The schemas of a run and what loading them found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub registry: Registry,
    pub diagnostics: Vec<Diagnostic>,
    /// The schema files read (not inputs), for showing diagnostics in them.
    pub sources: Vec<Source>,
}

/// Loads the definitions at `locations` (as written: a path, or a git location found from
/// `git_start`; trusted), then those among `coll`'s documents (checked).
pub fn load(locations: &[String], git_start: &Path, coll: &Collection) -> Result<Loaded, git::Error> {
    let mut out = Loaded::default();
    for written in locations {
        let sources = match git::parse_location(written)? {
            Some(location) => git_sources(&location, git_start)?,
            None => {
                let collected = input::load_sources(&[PathBuf::from(written)], &WalkOptions::default());
                out.diagnostics.extend(collected.diagnostics);
                collected.sources
            }
        };
        for source in sources {
            add_source(&mut out, source);
        }
    }
    for doc in &coll.documents {
        let path = &coll.sources[doc.source].path;
        out.registry.add_document(path, &doc.node, Trust::Checked, &mut out.diagnostics);
    }
    Ok(out)
}

/// Adds every definition in one schema file.
fn add_source(out: &mut Loaded, source: Source) {
    let stream = driftlint_yaml::parse_stream(&source.text);
    for doc in &stream.documents {
        if matches!(doc.root.value, driftlint_yaml::NodeValue::Null) {
            continue;
        }
        if !out.registry.add_document(&source.path, &doc.root, Trust::Trusted, &mut out.diagnostics) {
            out.diagnostics.push(Diagnostic::new(
                Rule::InvalidSchema,
                Severity::Note,
                source.path.clone(),
                Some(doc.root.span.start..doc.root.span.start),
                "not a CustomResourceDefinition or CompositeResourceDefinition: not used as a schema",
            ));
        }
    }
    if let Some(err) = &stream.error {
        out.diagnostics.push(Diagnostic::error(
            Rule::YamlSyntaxError,
            source.path.clone(),
            Some(err.offset..err.offset),
            format!("schema file: {}", err.message),
        ));
    }
    out.sources.push(source);
}

/// The YAML and JSON files a git location names: the file, or every one below the directory.
fn git_sources(location: &git::Location, start: &Path) -> Result<Vec<Source>, git::Error> {
    let snapshot = git::load_snapshot(location, start)?;
    let shown = |name: &str| {
        let path = if snapshot.dir.is_empty() { name.to_string() } else { format!("{}/{name}", snapshot.dir) };
        SourcePath::File(PathBuf::from(format!("{}{path}", location.prefix)))
    };
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    // A location naming a file: the snapshot holds its directory.
    let named_file = location.path.rsplit('/').next().is_some_and(|n| n == snapshot.file)
        && snapshot.tree.read(&snapshot.file).is_ok();
    if named_file {
        let bytes = snapshot.tree.read(&snapshot.file).unwrap_or_default();
        return Ok(vec![Source { path: shown(&snapshot.file), text: text(bytes) }]);
    }
    // Read whole: the snapshot itself is bounded (git::read::MAX_ENTRIES paths,
    // git::read::MAX_BYTES bytes) and refused with an error beyond, so no file is dropped
    // silently here. Symlinked directories can loop or alias: each real directory is walked once.
    let mut out = Vec::new();
    let mut pending = vec![String::new()];
    let mut walked = std::collections::HashSet::new();
    while let Some(dir) = pending.pop() {
        if !snapshot.tree.resolve(&dir).is_some_and(|real| walked.insert(real)) {
            continue;
        }
        for name in snapshot.tree.read_dir(&dir).unwrap_or_default() {
            let path = if dir.is_empty() { name } else { format!("{dir}/{name}") };
            match snapshot.tree.read(&path) {
                Ok(bytes) if [".yaml", ".yml", ".json"].iter().any(|e| path.ends_with(e)) => {
                    out.push(Source { path: shown(&path), text: text(bytes) });
                }
                Ok(_) => {}
                Err(_) if snapshot.tree.read_dir(&path).is_some() => pending.push(path),
                Err(_) => {}
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}
