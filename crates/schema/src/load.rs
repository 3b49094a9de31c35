//! Where schemas come from: the files and directories of `--schemas` and `schemas:` (plain
//! paths, or git locations `git:REV:PATH` read from the object database, whole), then CRDs
//! and XRDs among the checked documents. Each source is read and parsed once; the texts are
//! kept so that diagnostics in schema files can be shown with their lines.
//!
//! The order is the trust order (docs/security.md): the configured schemas are read first and
//! win; a checked definition of a kind they (or Kubernetes itself) define is an error, see
//! [`Registry::add_document`].
//!
//! A provider's CRDs are thousands of files (provider-upjet-aws: 2,065 files, 102 MB) of which a
//! repository uses a few kinds. Above [`LARGE_SCHEMAS`] bytes of configured schemas, a file
//! whose text names no kind that an input names ([`kinds_named`]) is neither parsed nor kept:
//! its definitions could not be looked up anyway, and its own problems are not reported.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

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

/// Configured schemas above this many bytes are read only for the kinds the inputs name.
pub const LARGE_SCHEMAS: usize = 16 << 20;

/// Loads the definitions at `locations` (as written: a path, or a git location found from
/// `git_start`; trusted), then those among `coll`'s documents (checked).
pub fn load(locations: &[String], git_start: &Path, coll: &Collection) -> Result<Loaded, git::Error> {
    load_for(locations, git_start, coll, None)
}

/// [`load`], where `used` (from [`kinds_named`] over every input) are the only kinds the run
/// can look up: above [`LARGE_SCHEMAS`], configured files defining none of them are skipped.
pub fn load_for(
    locations: &[String],
    git_start: &Path,
    coll: &Collection,
    used: Option<&HashSet<String>>,
) -> Result<Loaded, git::Error> {
    let mut out = Loaded::default();
    let mut all = Vec::new();
    for written in locations {
        let sources = match git::parse_location(written)? {
            Some(location) => git_sources(&location, git_start)?,
            None => {
                let collected = input::load_sources(&[PathBuf::from(written)], &WalkOptions::default());
                out.diagnostics.extend(collected.diagnostics);
                collected.sources
            }
        };
        all.extend(sources);
    }
    let large = all.iter().map(|s| s.text.len()).sum::<usize>() > LARGE_SCHEMAS;
    for source in all {
        if let (true, Some(used)) = (large, used)
            && defines_only_unused(&source.text, used)
        {
            continue;
        }
        add_source(&mut out, source);
    }
    for doc in &coll.documents {
        let path = &coll.sources[doc.source].path;
        out.registry.add_document(path, &doc.node, Trust::Checked, &mut out.diagnostics);
    }
    Ok(out)
}

/// The kinds the texts name (`kind: X`, `"kind": "X"`, in block or flow style): every kind an
/// instance has, a Composition's `compositeTypeRef` or a base names. `None` when a kind may be
/// written in a way this scan cannot read (an alias, a tag, a block scalar, a template), so
/// that nothing is skipped.
pub fn kinds_named<'a>(texts: impl IntoIterator<Item = &'a str>) -> Option<HashSet<String>> {
    let mut kinds = HashSet::new();
    for text in texts {
        for c in KIND.captures_iter(text) {
            let value = c.get(1).map_or("", |m| m.as_str());
            if value.starts_with("{{") {
                return None;
            }
            match value.chars().next() {
                // A mapping or list at `kind:` (a schema property named kind), or a comment.
                None | Some('#' | '{' | '[') => {}
                Some('*' | '&' | '!' | '|' | '>') => return None,
                Some(_) => {
                    kinds.insert(value.trim_matches(|c| c == '"' || c == '\'').to_string());
                }
            }
        }
    }
    Some(kinds)
}

/// `kind:` as a key (after a line start, blank, `{`, `,` or quote) and its value on that line.
static KIND: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r#"(?m)(?:^|[\s{,])["']?kind["']?[ \t]*:[ \t]*([^\s,}\]]*)"#).expect("a valid regex")
});

/// Whether `text` holds definitions and names none of `used` (the kinds a definition defines
/// are `kind:` values of its text; the definitions' own kinds do not count).
fn defines_only_unused(text: &str, used: &HashSet<String>) -> bool {
    if !text.contains("ResourceDefinition") {
        return false;
    }
    match kinds_named([text]) {
        Some(named) => !named
            .iter()
            .filter(|k| !matches!(k.as_str(), "CustomResourceDefinition" | "CompositeResourceDefinition"))
            .any(|k| used.contains(k)),
        None => false,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_named_in_block_flow_and_json() {
        let kinds = kinds_named([
            "apiVersion: v1\nkind: ConfigMap\n---\nspec:\n  compositeTypeRef: {apiVersion: a/v1, kind: XNet}\n  base:\n    kind: 'Bucket' # c\n",
            "{\"apiVersion\": \"x/v1\", \"kind\": \"Thing\"}",
            "properties:\n  kind:\n    type: string\n  other:\n    properties: {kind: {type: string}}\n",
        ])
        .unwrap();
        let mut sorted: Vec<&str> = kinds.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        assert_eq!(sorted, ["Bucket", "ConfigMap", "Thing", "XNet"]);
        // Kinds this scan cannot read: nothing may be skipped.
        for text in ["kind: *k\n", "kind: !!str X\n", "kind: {{ .Values.kind }}\n", "kind: >\n  X\n"] {
            assert_eq!(kinds_named([text]), None, "{text:?}");
        }
    }

    #[test]
    fn only_files_defining_unused_kinds_are_skipped() {
        let used: HashSet<String> = ["Bucket".to_string(), "CustomResourceDefinition".to_string()].into();
        let crd = |kind: &str| {
            format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g.io\n  names:\n    kind: {kind}\n    plural: xs\n"
            )
        };
        assert!(defines_only_unused(&crd("Queue"), &used));
        assert!(!defines_only_unused(&crd("Bucket"), &used));
        // Not a definition, or kinds the scan cannot read: kept.
        assert!(!defines_only_unused("apiVersion: v1\nkind: Queue\n", &used));
        assert!(!defines_only_unused(&format!("{}  x: {{kind: *a}}\n", crd("Queue")), &used));
    }
}
