//! Where schemas come from: the files and directories of `--schemas` and `schemas:` (plain
//! paths, or git locations `git:REV:PATH` read from the object database, whole), then CRDs
//! and XRDs among the checked documents. Each source is read and parsed once; the texts are
//! kept so that diagnostics in schema files can be shown with their lines.
//!
//! The order is the trust order (docs/security.md): the configured schemas are read first and
//! win; a checked definition of a kind they (or Kubernetes itself) define is an error, see
//! [`Registry::add_document`].
//!
//! A provider's CRDs are thousands of files (provider-upjet-aws: 2,065 files, 102 MB), or one
//! file bundling them all, of which a repository uses a few kinds. When the kinds the inputs
//! name are known ([`kinds_named`]), each configured file is cut into its documents
//! ([`driftlint_yaml::document_pieces`]) and each document's header read by a line scan
//! ([`crate::index`]); a definition of none of those kinds is neither parsed nor compiled
//! (its definitions could not be looked up anyway, and its own problems are not reported), and
//! a file left with none is not kept.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use super::{Registry, Trust, index};
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
    /// Configured definitions neither parsed nor compiled: they define no kind the inputs name.
    pub skipped: usize,
    /// ValidatingAdmissionPolicies and their bindings in the schema files: the trusted part of
    /// the admission context, as (object, file, the range of its `kind:`).
    pub admission: Vec<(serde_json::Value, SourcePath, std::ops::Range<usize>)>,
}

/// Loads the definitions at `locations` (as written: a path, or a git location found from
/// `git_start`; trusted), then those among `coll`'s documents (checked).
pub fn load(locations: &[String], git_start: &Path, coll: &Collection) -> Result<Loaded, git::Error> {
    load_for(locations, git_start, coll, None)
}

/// [`load`], where `used` (from [`kinds_named`] over every input) are the only kinds the run
/// can look up: configured definitions of none of them are skipped, at any size.
pub fn load_for(
    locations: &[String],
    git_start: &Path,
    coll: &Collection,
    used: Option<&HashSet<String>>,
) -> Result<Loaded, git::Error> {
    let mut out = load_trusted(locations, git_start, used)?;
    add_checked(&mut out, coll);
    Ok(out)
}

/// The trusted half of [`load_for`]: the definitions (and admission policies) at `locations`,
/// read before any checked file is, so that the run knows what they hold before its pre-pass.
pub fn load_trusted(
    locations: &[String],
    git_start: &Path,
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
    for source in all {
        match used {
            Some(used) => add_used(&mut out, source, used),
            None => add_source(&mut out, source),
        }
    }
    Ok(out)
}

/// The checked half of [`load_for`]: the definitions among `coll`'s documents.
pub fn add_checked(out: &mut Loaded, coll: &Collection) {
    for doc in &coll.documents {
        let path = &coll.sources[doc.source].path;
        out.registry.add_document(path, &doc.node, Trust::Checked, &mut out.diagnostics);
    }
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

/// Adds the definitions in one schema file that define a kind of `used`; the file is kept when
/// any document of it was read. A document is read whole unless its header
/// ([`index::scan_header`]) says it is a definition of other kinds only and its text names none
/// of `used` either ([`defines_only_unused`], a second opinion that sees every `kind:`). A piece
/// that does not load alone as it loads in the whole text (an error, a warning) makes the
/// whole file load as [`add_source`] does.
fn add_used(out: &mut Loaded, source: Source, used: &HashSet<String>) {
    let text = &source.text;
    let mut documents = Vec::new();
    let mut skipped = 0;
    for piece in driftlint_yaml::document_pieces(text) {
        let piece_text = &text[piece.clone()];
        if let Some(header) = index::scan_header(piece_text)
            && header.is_definition()
            && !header.defines.iter().any(|k| used.contains(k))
            && defines_only_unused(piece_text, used)
        {
            skipped += 1;
            continue;
        }
        match driftlint_yaml::join_pieces(&[piece], vec![driftlint_yaml::parse_stream(piece_text)]) {
            // A document whose root is a scalar may run on into the next piece in a whole load.
            Some(stream) if !stream.documents.last().is_some_and(driftlint_yaml::ends_open) => {
                documents.extend(stream.documents);
            }
            _ => return add_source(out, source),
        }
    }
    out.skipped += skipped;
    add_documents(out, &source.path, &documents);
    if documents.iter().any(|d| !matches!(d.root.value, driftlint_yaml::NodeValue::Null)) {
        out.sources.push(source);
    }
}

/// Adds every definition in one schema file.
fn add_source(out: &mut Loaded, source: Source) {
    let stream = driftlint_yaml::parse_stream(&source.text);
    add_documents(out, &source.path, &stream.documents);
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

/// Adds the definitions among `documents` of the schema file at `path` (trusted), keeps its
/// admission policies and bindings; a note for any other document.
fn add_documents(out: &mut Loaded, path: &SourcePath, documents: &[driftlint_yaml::Document]) {
    for doc in documents {
        if matches!(doc.root.value, driftlint_yaml::NodeValue::Null) {
            continue;
        }
        if is_admission_policy(&doc.root) {
            let range =
                driftlint_core::locate::node_range(&doc.root, "/kind", driftlint_core::locate::FieldDiffKind::Changed);
            out.admission.push((doc.root.to_json(), path.clone(), range));
            continue;
        }
        if !out.registry.add_document(path, &doc.root, Trust::Trusted, &mut out.diagnostics) {
            out.diagnostics.push(Diagnostic::new(
                Rule::InvalidSchema,
                Severity::Note,
                path.clone(),
                Some(doc.root.span.start..doc.root.span.start),
                "not a CustomResourceDefinition or CompositeResourceDefinition: not used as a schema",
            ));
        }
    }
}

/// A ValidatingAdmissionPolicy or ValidatingAdmissionPolicyBinding of any served version.
fn is_admission_policy(root: &driftlint_yaml::Node) -> bool {
    let text = |k: &str| root.get(k).and_then(driftlint_yaml::Node::as_str).unwrap_or_default();
    text("apiVersion").starts_with("admissionregistration.k8s.io/")
        && matches!(text("kind"), "ValidatingAdmissionPolicy" | "ValidatingAdmissionPolicyBinding")
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

    fn crd(kind: &str, ty: &str) -> String {
        format!(
            "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {kind}s.g.io\nspec:\n  group: g.io\n  names:\n    kind: {kind}\n    plural: {kind}s\n  versions:\n  - name: v1\n    served: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          size: {{type: {ty}}}\n"
        )
    }

    /// One file bundling many CRDs: only the used kind's document is parsed and compiled, at
    /// any size; its problems are reported at their place in the whole file; duplicates of the
    /// used kind are still reported, those of unused kinds are not.
    #[test]
    fn one_bundled_file_compiles_only_the_used_kinds() {
        let dir = tempfile::tempdir().unwrap();
        let bundle = format!(
            "{}{}{}{}",
            crd("Queue", "string"),
            crd("Bucket", "nonsense"),
            crd("Topic", "nonsense"),
            crd("Queue", "integer")
        );
        std::fs::write(dir.path().join("all.yaml"), &bundle).unwrap();
        std::fs::write(dir.path().join("more.yaml"), crd("Bucket", "nonsense") + &crd("Topic", "string")).unwrap();
        let used: HashSet<String> = ["Bucket".to_string()].into();
        let at = [dir.path().display().to_string()];
        let loaded = load_for(&at, dir.path(), &Collection::default(), Some(&used)).unwrap();
        assert_eq!(
            loaded.registry.compilations(),
            1,
            "the first Bucket definition only (an identical duplicate is never compiled)"
        );
        assert_eq!(loaded.skipped, 4);
        assert!(matches!(loaded.registry.lookup("g.io/v1", "Bucket"), crate::Lookup::Found(_)));
        assert!(matches!(loaded.registry.lookup("g.io/v1", "Queue"), crate::Lookup::NoKind));
        let mut found: Vec<(String, String, Severity)> = loaded
            .diagnostics
            .iter()
            .map(|d| {
                let r = d.primary.range.clone().unwrap();
                let text = if d.primary.path.display().ends_with("all.yaml") { &bundle } else { "" };
                (d.primary.path.display(), text.get(r).unwrap_or("").to_string(), d.severity)
            })
            .collect();
        found.sort();
        // The bad type in all.yaml at its own place; the second Bucket named as a duplicate.
        assert_eq!(found.len(), 2, "{:?}", loaded.diagnostics);
        assert!(found.iter().any(|(p, t, _)| p.ends_with("all.yaml") && t == "type"), "{found:?}");
        assert!(
            loaded.diagnostics.iter().any(|d| d.primary.path.display().ends_with("more.yaml")
                && d.message.contains("defines `g.io/Bucket` again")),
            "{:?}",
            loaded.diagnostics
        );
        let used_one = loaded.diagnostics.iter().flat_map(|d| &d.secondary).next().unwrap();
        assert_eq!(&bundle[used_one.range.clone().unwrap()], "Bucket");
        assert_eq!(loaded.sources.len(), 2);
        // Without the kinds of the inputs, everything is read: the differing second Queue and
        // Topic are compiled too (objects meet the nearest definition), the identical second
        // Bucket is not.
        let all = load_for(&at, dir.path(), &Collection::default(), None).unwrap();
        assert_eq!((all.registry.compilations(), all.skipped), (5, 0));
        assert!(all.diagnostics.iter().any(|d| d.message.contains("g.io/Queue")), "{:?}", all.diagnostics);
        // The used kind's problem at the same place as when the whole file is parsed.
        let bucket = |l: &Loaded| {
            l.diagnostics.iter().find(|d| d.message.contains("schema of `Bucket`")).map(|d| d.primary.clone())
        };
        assert_eq!(bucket(&loaded), bucket(&all));
    }

    /// A piece that does not load alone as in the whole text makes the whole file load.
    #[test]
    fn a_file_with_a_syntax_error_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let text = crd("Queue", "string") + "---\nkey: [unclosed\n";
        std::fs::write(dir.path().join("s.yaml"), &text).unwrap();
        let used: HashSet<String> = ["Bucket".to_string()].into();
        let at = [dir.path().display().to_string()];
        let loaded = load_for(&at, dir.path(), &Collection::default(), Some(&used)).unwrap();
        assert!(loaded.diagnostics.iter().any(|d| d.rule == Rule::YamlSyntaxError), "{:?}", loaded.diagnostics);
    }

    /// The header scan stops at `versions`: a claim named below them is still found by the
    /// text scan, and the XRD is read.
    #[test]
    fn a_claim_named_after_the_versions_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let xrd = "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nspec:\n  group: p.org\n  names:\n    kind: XNet\n  versions:\n  - name: v1\n    served: true\n    referenceable: true\n    schema:\n      openAPIV3Schema: {type: object}\n  claimNames:\n    kind: Net\n";
        std::fs::write(dir.path().join("xrd.yaml"), xrd).unwrap();
        let used: HashSet<String> = ["Net".to_string()].into();
        let loaded =
            load_for(&[dir.path().display().to_string()], dir.path(), &Collection::default(), Some(&used)).unwrap();
        assert!(matches!(loaded.registry.lookup("p.org/v1", "Net"), crate::Lookup::Found(_)));
        assert_eq!(loaded.skipped, 0);
    }
}
