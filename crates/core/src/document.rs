//! Kubernetes objects in sources: splitting multi-document streams, unwrapping `kind: List`,
//! identity, spans, and mapping rendered stdin back to its helm or kustomize source.
//!
//! A [`Document`] is one Kubernetes object with its spanned YAML tree (for locations) and its
//! JSON form (for comparison). Everything that is not an object becomes a diagnostic: a syntax
//! error, a duplicate key, a YAML document without `apiVersion`/`kind` — never a silent skip.
//!
//! The one exception: when the policy pass runs, a document that is no Kubernetes object in a
//! file that is a policy input ([`PolicyInputs`]: named on the command line, or matched by
//! `policy-inputs:`) is kept in [`Collection::inputs`] for that pass alone (conftest evaluates
//! any YAML/JSON document), instead of the `not-kubernetes-object` note. The other passes never
//! see those documents.

use std::ops::Range;
use std::path::{Path, PathBuf};

use driftlint_yaml::{Node, NodeValue};
use serde::Serialize;

use crate::diagnostic::{Diagnostic, Rule};
use crate::input::{Source, SourcePath};

/// The annotation by which an object suppresses findings on itself (`driftlint.io/ignore`);
/// what its value means is the `check` runner's business.
pub const SUPPRESS_ANNOTATION: &str = "driftlint.io/ignore";

/// What identifies a Kubernetes object (kube-compare's "apiKindNamespaceName").
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Identity {
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    pub name: String,
}

impl Identity {
    /// The identity of the object `node` is (empty strings where it has no such string), read
    /// from the tree: a mapping's few keys are compared in order where the object's JSON map
    /// hashes each key looked up (for every document of a run). The tree and its JSON hold the
    /// same keys and strings.
    fn of(node: &Node) -> Identity {
        let s = |v: Option<&Node>| v.and_then(Node::as_str).unwrap_or_default().to_string();
        let meta = node.get("metadata");
        Identity {
            api_version: s(node.get("apiVersion")),
            kind: s(node.get("kind")),
            namespace: s(meta.and_then(|m| m.get("namespace"))),
            name: s(meta.and_then(|m| m.get("name"))),
        }
    }

    /// kube-compare's CR id: `apiVersion_kind_namespace_name`, or `apiVersion_kind_name` when
    /// the object has no namespace.
    pub fn cr_id(&self) -> String {
        // Joined into one allocation of the final size: made for every object and finding of
        // a run, where `format!` grew the string a part at a time.
        let (api, kind, ns, name) = (&self.api_version, &self.kind, &self.namespace, &self.name);
        let mut id = String::with_capacity(api.len() + kind.len() + ns.len() + name.len() + 3);
        for part in [api, kind] {
            id.push_str(part);
            id.push('_');
        }
        if !ns.is_empty() {
            id.push_str(ns);
            id.push('_');
        }
        id.push_str(name);
        id
    }
}

/// Which tool rendered a stdin document, and where its source is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OriginKind {
    /// `# Source: chart/templates/x.yaml` from `helm template`.
    Helm,
    /// `config.kubernetes.io/origin` from `kustomize build` with origin annotations.
    Kustomize,
}

/// The file a rendered document came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Origin {
    pub kind: OriginKind,
    /// The path as the renderer wrote it.
    pub path: String,
    /// When the source file could be read and the object found in it: that file and the byte
    /// range of the object there.
    #[serde(skip)]
    pub resolved: Option<(PathBuf, Range<usize>)>,
}

/// One Kubernetes object.
#[derive(Clone, Debug)]
pub struct Document {
    /// Index of its source in [`Collection::sources`].
    pub source: usize,
    /// 0-based index of the YAML document in its file or stream.
    pub doc_index: usize,
    /// Index inside a `kind: List`'s `items`, when it was unwrapped from one.
    pub item_index: Option<usize>,
    /// Byte range of the object in its source.
    pub range: Range<usize>,
    pub identity: Identity,
    /// The spanned tree, for locations.
    pub node: Node,
    /// The object as Kubernetes reads it (go-yaml v2 scalars, JSON numbers). A check moves
    /// it into the comparison once it is no longer needed here (`Null` then).
    pub object: serde_json::Value,
    /// The value of its `driftlint.io/ignore` annotation, when it is a string.
    pub suppression: Option<String>,
    pub origin: Option<Origin>,
}

/// Every source read, the objects found in them and the diagnostics met on the way.
#[derive(Debug, Default)]
pub struct Collection {
    pub sources: Vec<Source>,
    pub documents: Vec<Document>,
    pub diagnostics: Vec<Diagnostic>,
    /// Documents that are no Kubernetes objects, kept for the policy pass alone (see
    /// [`PolicyInputs`]); their [`Document::identity`] is empty. Empty without a policy pass.
    pub inputs: Vec<Document>,
}

/// Options for turning sources into documents.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Directory that relative kustomize origin paths are resolved against.
    pub origin_root: Option<PathBuf>,
    /// Which sources' other documents the policy pass takes (`None`: no policy pass).
    pub policy_inputs: Option<std::sync::Arc<PolicyInputs>>,
    /// Where the parsed nodes are drawn from, when they count against a run-wide pool
    /// ([`driftlint_yaml::Limits::nodes`]; `None`: they do not). When the pool refuses the
    /// draw, what was parsed with these options is incomplete ([`Options::deferred`]) and is
    /// to be dropped and parsed again with a forced draw.
    pub nodes: Option<std::sync::Arc<driftlint_yaml::Draw>>,
}

impl Document {
    /// The object's own lines in `text` (its source's): from the start of the line it begins
    /// on, so that indentation reads as in the file, to the end of its last line with its line
    /// break, so that an entry added after the last line goes before what follows. What a fix's
    /// edit is checked on.
    pub fn lines_in(&self, text: &str) -> (usize, usize) {
        whole_lines(text, &self.range)
    }
}

/// From the start of the line holding `range.start` to the end of the line `range` ends on,
/// its line break included (clamped to `text`).
pub(crate) fn whole_lines(text: &str, range: &Range<usize>) -> (usize, usize) {
    let start = range.start.min(text.len());
    let end = range.end.clamp(start, text.len());
    let from = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let to = if end > 0 && text.as_bytes()[end - 1] == b'\n' {
        end
    } else {
        text[end..].find('\n').map_or(text.len(), |i| end + i + 1)
    };
    (from, to)
}

impl Options {
    /// The loader's limits: the defaults, drawing from [`Options::nodes`].
    fn limits(&self) -> driftlint_yaml::Limits {
        driftlint_yaml::Limits { nodes: self.nodes.clone(), ..driftlint_yaml::Limits::default() }
    }

    /// Whether the pool refused [`Options::nodes`]: what was parsed with these options is
    /// incomplete (streams cut short with a `Deferred` error) and must not be reported.
    pub fn deferred(&self) -> bool {
        self.nodes.as_ref().is_some_and(|d| d.refused())
    }
}

/// The sources whose documents are all policy inputs, as conftest takes any YAML or JSON
/// document: files named on the command line (and standard input), and files matched by the
/// `policy-inputs:` globs (gitignore syntax, relative to `root`).
#[derive(Clone, Debug, Default)]
pub struct PolicyInputs {
    pub named: std::collections::HashSet<SourcePath>,
    pub globs: Option<ignore::gitignore::Gitignore>,
    pub root: PathBuf,
}

impl PolicyInputs {
    /// Whether the documents of `path` are policy inputs.
    pub fn takes(&self, path: &SourcePath) -> bool {
        if self.named.contains(path) {
            return true;
        }
        match (path, &self.globs) {
            (SourcePath::File(p), Some(globs)) => {
                // The matcher wants paths below its root: others are not matched.
                let rel = p.strip_prefix(&self.root).unwrap_or(p);
                !rel.has_root() && globs.matched_path_or_any_parents(rel, false).is_ignore()
            }
            _ => false,
        }
    }
}

/// Splits every source into Kubernetes objects.
pub fn collect(sources: Vec<Source>, opts: &Options) -> Collection {
    let (documents, diagnostics, inputs) = parse_sources(&sources, opts);
    Collection { sources, documents, diagnostics, inputs }
}

/// What [`parse_sources`] finds: the objects, the diagnostics, the policy-only documents.
pub type Parsed = (Vec<Document>, Vec<Diagnostic>, Vec<Document>);

/// The objects of `sources` and the diagnostics met on the way, in source order
/// ([`Document::source`] indexes `sources`), and the documents kept for the policy pass alone.
pub fn parse_sources(sources: &[Source], opts: &Options) -> Parsed {
    use rayon::prelude::*;
    // Sources are parsed in parallel (rayon's pool: `--jobs`); documents and diagnostics are
    // then joined in source order, as a serial run yields them.
    let parsed: Vec<Parsed> = sources
        .par_iter()
        .enumerate()
        .map(|(i, source)| {
            let mut out = Parsed::default();
            parse_source(i, source, opts, true, &mut out);
            out
        })
        .collect();
    let mut out = Parsed::default();
    for (mut docs, mut diags, mut inputs) in parsed {
        out.0.append(&mut docs);
        out.1.append(&mut diags);
        out.2.append(&mut inputs);
    }
    out
}

/// [`parse_sources`] on the calling thread, for every source of `sources`.
pub fn parse_sources_here(sources: &[Source], opts: &Options) -> Parsed {
    let mut out = Parsed::default();
    for (i, source) in sources.iter().enumerate() {
        parse_source(i, source, opts, false, &mut out);
    }
    out
}

/// A text at least this large is loaded a few documents at a time on the pool, when asked.
const PIECES_FROM: usize = 64 * 1024;

/// `parallel`: a large multi-document text is loaded piece by piece on rayon's pool.
fn parse_source(idx: usize, source: &Source, opts: &Options, parallel: bool, out: &mut Parsed) {
    let limits = opts.limits();
    let stream = if parallel {
        load_in_pieces(&source.text, &limits)
    } else {
        driftlint_yaml::parse_stream_with(&source.text, &limits)
    };
    let policy_input = opts.policy_inputs.as_ref().is_some_and(|p| p.takes(&source.path));
    take_stream(idx, source, Place::default(), stream, policy_input, opts, out);
}

/// Where a piece of a larger text is (see [`parse_piece`]); all offsets are the whole text's.
#[derive(Clone, Debug, Default)]
pub struct Place {
    /// Where the text held by the piece's [`Source`] starts in the whole text.
    pub base: usize,
    /// The piece's byte range in the whole text (`base <= start`).
    pub piece: Range<usize>,
    /// How many YAML documents the whole text has before the piece.
    pub first_doc: usize,
    /// Where the whole text's document before the piece ends (the text between it and the
    /// piece's first document may hold helm's `# Source:`); `base` is at most this.
    pub prev_end: usize,
    /// Where the next piece starts, when there is one.
    pub next: Option<usize>,
    /// The text is a policy input ([`PolicyInputs`]) that holds Kubernetes objects: its
    /// other documents are inputs of the policy pass, its empty ones are not.
    pub policy_input: bool,
}

/// The objects of one piece of a large text, as one load of the whole text gives them: the
/// same documents and warnings, byte ranges in the whole text, document numbers and helm
/// origins. `source` holds the whole text's bytes from `place.base` to (at least) the piece's end. The
/// caller has made sure the whole text loads without an error, that the piece ends with no scalar root
/// (see [`driftlint_yaml::join_pieces`]) and, for a policy input, that it holds an object
/// ([`Place::policy_input`]); `None` when
/// the piece turns out otherwise.
pub fn parse_piece(idx: usize, source: &Source, place: &Place, opts: &Options) -> Option<Parsed> {
    parse_run(idx, source, place, opts).map(|(parsed, _)| parsed)
}

/// What loading a run of pieces tells about the whole text, for a caller that cut the text
/// before knowing how it loads and checks, run after run in order, that the runs load as the
/// whole text does: every run loaded without an error and ends with no scalar root unless it
/// ends the text ([`parse_run`] gives `None` otherwise), each run's first document is the
/// one after the documents of the runs before it ([`Place::first_doc`]), and the runs' nodes
/// add up to at most the whole load's budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Its YAML documents (empty ones and those that are no objects included).
    pub documents: usize,
    /// Where its last document ends in the whole text (an empty one at the next piece's `---`).
    pub last_end: Option<usize>,
    /// Its nodes as the loader counts them ([`driftlint_yaml::parse_stream_counted`]), `None`
    /// when the loader did not tell.
    pub nodes: Option<usize>,
}

/// [`parse_piece`] for a caller that checks the run's place afterwards ([`Loaded`]): `None`
/// also when the run ends with a scalar root and is not the end of the text.
pub fn parse_run(idx: usize, source: &Source, place: &Place, opts: &Options) -> Option<(Parsed, Loaded)> {
    let from = place.piece.start.checked_sub(place.base)?;
    // The piece alone, whether the source ends with it or holds the rest of the text too.
    let text = source.text.get(from..place.piece.end.checked_sub(place.base)?)?;
    let (stream, warnings, nodes) = load_run(text, place.piece.start, &opts.limits());
    let mut stream = stream?;
    if place.next.is_some() && stream.documents.last().is_some_and(driftlint_yaml::ends_open) {
        return None;
    }
    for (doc, warnings) in stream.documents.iter_mut().zip(warnings) {
        doc.warnings = warnings;
    }
    // An empty document at the piece's end is, loaded whole, the next piece's `---`.
    if let (Some(next), Some(doc)) = (place.next, stream.documents.last_mut())
        && matches!(doc.root.value, NodeValue::Null)
        && doc.root.span.is_empty()
    {
        doc.range.end = next + 3;
        doc.root.span = next..next + 3;
    }
    let loaded =
        Loaded { documents: stream.documents.len(), last_end: stream.documents.last().map(|d| d.range.end), nodes };
    let mut out = Parsed::default();
    take_stream(idx, source, place.clone(), stream, place.policy_input, opts, &mut out);
    Some((out, loaded))
}

/// The stream of a run of pieces (`text`, at `at` in the whole text: the stream's ranges are
/// the whole text's), `None` when it does not load without an error; each document's warnings
/// set aside (`join_pieces` takes none: a warning is about its document's own content, which
/// the whole load reads alike), and the nodes its loads made. Its pieces are loaded one by one
/// and joined, so that one piece outside the fast loader's subset (a block scalar, a flow
/// mapping) does not send the whole run to the general loader; when they do not join, the run
/// is loaded at once.
fn load_run(
    text: &str,
    at: usize,
    limits: &driftlint_yaml::Limits,
) -> (Option<driftlint_yaml::Stream>, Vec<Vec<driftlint_yaml::Warning>>, Option<usize>) {
    fn set_aside(stream: &mut driftlint_yaml::Stream, by: usize, out: &mut Vec<Vec<driftlint_yaml::Warning>>) {
        for d in &mut stream.documents {
            out.push(std::mem::take(&mut d.warnings).into_iter().map(|w| shifted(w, by)).collect());
        }
    }
    let pieces = driftlint_yaml::document_pieces(text);
    if pieces.len() > 1 {
        let mut warnings = Vec::new();
        let mut nodes = Some(0);
        let streams = pieces
            .iter()
            .map(|p| {
                let (mut stream, made) = driftlint_yaml::parse_stream_counted(&text[p.clone()], limits);
                nodes = nodes.zip(made).map(|(a, b)| a + b);
                set_aside(&mut stream, at + p.start, &mut warnings);
                stream
            })
            .collect();
        // Joined where the pieces are in the whole text: their ranges are shifted once.
        let placed: Vec<_> = pieces.iter().map(|p| at + p.start..at + p.end).collect();
        if let Some(joined) = driftlint_yaml::join_pieces(&placed, streams) {
            return (Some(joined), warnings, nodes);
        }
    }
    let (mut stream, nodes) = driftlint_yaml::parse_stream_counted(text, limits);
    let mut warnings = Vec::new();
    set_aside(&mut stream, at, &mut warnings);
    (driftlint_yaml::join_pieces(std::slice::from_ref(&(at..at + text.len())), vec![stream]), warnings, nodes)
}

/// `w` with its ranges moved `by` bytes on.
fn shifted(w: driftlint_yaml::Warning, by: usize) -> driftlint_yaml::Warning {
    use driftlint_yaml::Warning;
    let shift = |r: Range<usize>| r.start + by..r.end + by;
    match w {
        Warning::DuplicateKey { key, first, duplicate } => {
            Warning::DuplicateKey { key, first: shift(first), duplicate: shift(duplicate) }
        }
        Warning::UnsupportedKey { key, span } => Warning::UnsupportedKey { key, span: shift(span) },
        Warning::NonFiniteFloat { span } => Warning::NonFiniteFloat { span: shift(span) },
    }
}

/// The objects and diagnostics of a loaded `stream` of `source` (whose text starts at
/// `place.base` of the whole text).
fn take_stream(
    idx: usize,
    source: &Source,
    place: Place,
    stream: driftlint_yaml::Stream,
    policy_input: bool,
    opts: &Options,
    out: &mut Parsed,
) {
    let (docs, diags, inputs) = out;
    // A piece of a policy input with objects elsewhere in the text keeps no empty document.
    let Place { base, first_doc, mut prev_end, policy_input: objects_elsewhere, .. } = place;
    let (objects_before, inputs_before) = (docs.len(), inputs.len());
    // A policy input's empty documents are `null` inputs (conftest), unless the file holds
    // Kubernetes objects: a manifest's stray `---` keeps today's treatment (no input).
    let mut empties = Vec::new();
    // Documents are large: grown by doubling, a run's were copied over and over.
    docs.reserve(stream.documents.len());
    for (doc_index, doc) in stream.documents.into_iter().enumerate() {
        let doc_index = first_doc + doc_index;
        for w in &doc.warnings {
            diags.push(warning(&source.path, w));
        }
        // The text between the previous document and this object holds helm's `# Source:`.
        let lead = source
            .text
            .get(prev_end.min(doc.root.span.start).saturating_sub(base)..doc.root.span.start.saturating_sub(base))
            .unwrap_or_default();
        prev_end = doc.range.end;
        if policy_input && matches!(doc.root.value, NodeValue::Null) {
            empties.push((inputs.len(), policy_document(idx, doc_index, None, doc.root)));
            continue;
        }
        let helm = if source.path == SourcePath::Stdin { helm_source(lead) } else { None };
        let (node, sink) = (doc.root, Sink { policy_input, inputs: &mut *inputs });
        take_object(idx, source, doc_index, None, node, helm.as_deref(), opts, docs, diags, sink);
    }
    if docs.len() == objects_before && !objects_elsewhere {
        // Each empty document in its place among the file's other inputs.
        for (at, doc) in empties.into_iter().rev() {
            inputs.insert(at.max(inputs_before), doc);
        }
        // A file without any document (empty, or comments only) is one `null` input, as
        // conftest reads it.
        if policy_input
            && inputs.len() == inputs_before
            && stream.error.is_none()
            && let Some(mut null) = driftlint_yaml::parse_stream("null").documents.pop().map(|d| d.root)
        {
            null.span = 0..0;
            inputs.push(policy_document(idx, 0, None, null));
        }
    }
    if let Some(err) = &stream.error {
        // Over the parsed-form budget the text may be valid YAML: it is not supported.
        let rule = if err.kind == driftlint_yaml::ErrorKind::NodeLimit {
            Rule::UnsupportedYaml
        } else {
            Rule::YamlSyntaxError
        };
        diags.push(Diagnostic::error(rule, source.path.clone(), Some(err.offset..err.offset), err.message.clone()));
    }
}

/// [`driftlint_yaml::parse_stream`] of a large stream (`kustomize build`, a dump) with its
/// documents loaded in parallel, a run of them at a time ([`driftlint_yaml::document_pieces`]);
/// the result is the whole load's, which is what is done when a piece has an error or a
/// warning (see [`driftlint_yaml::join_pieces`]).
fn load_in_pieces(text: &str, limits: &driftlint_yaml::Limits) -> driftlint_yaml::Stream {
    use rayon::prelude::*;
    if text.len() >= PIECES_FROM {
        let cuts = driftlint_yaml::document_pieces(text);
        if cuts.len() > 1 {
            // About an eighth of a thread's share of the text per run of pieces.
            let target = (text.len() / (rayon::current_num_threads() * 8)).max(PIECES_FROM / 4);
            let runs = group(&cuts, target);
            // Each run gets twice its share (by bytes) of the text's node budget, so that an
            // ordinary run keeps the fast path; a run over it has an error, and the whole text
            // is then loaded at once. The runs' own node counts must add up to at most the
            // whole budget (a stream's count is the sum of its documents'), and a text with
            // more flow entries than one load takes is loaded whole too, so the runs never
            // accept a text that one load refuses. (Without the sum, three documents of
            // 969,000 nodes each went through with several threads, where one load stops at
            // the third: the output depended on `--jobs`.)
            let share = |r: &std::ops::Range<usize>| driftlint_yaml::Limits {
                max_nodes: (2 * limits.max_nodes as u128 * r.len() as u128 / text.len() as u128) as usize + 1_000,
                ..limits.clone()
            };
            if !driftlint_yaml::too_many_flow_entries(text, limits) {
                let loaded: Vec<(driftlint_yaml::Stream, Option<usize>)> = runs
                    .par_iter()
                    .map(|r| driftlint_yaml::parse_stream_counted(&text[r.clone()], &share(r)))
                    .collect();
                let made: Option<usize> = loaded.iter().map(|(_, made)| *made).sum();
                let streams = loaded.into_iter().map(|(stream, _)| stream).collect();
                // (When they do not join, the pieces' nodes stay counted in the draw until its
                // holder drops it: an over-count, never an under-count.)
                if made.is_some_and(|m| m <= limits.max_nodes)
                    && let Some(stream) = driftlint_yaml::join_pieces(&runs, streams)
                {
                    return stream;
                }
            }
        }
    }
    driftlint_yaml::parse_stream_with(text, limits)
}

/// Consecutive `pieces` joined into runs of about `target` bytes (each run starts where a
/// piece does, so it is a piece as [`driftlint_yaml::join_pieces`] takes it).
fn group(pieces: &[std::ops::Range<usize>], target: usize) -> Vec<std::ops::Range<usize>> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for p in pieces {
        match runs.last_mut() {
            Some(last) if last.len() < target => last.end = p.end,
            _ => runs.push(p.clone()),
        }
    }
    runs
}

/// Where a document that is no Kubernetes object goes: the policy pass' inputs when its file
/// is a policy input, else a note.
struct Sink<'a> {
    policy_input: bool,
    inputs: &'a mut Vec<Document>,
}

/// A document kept for the policy pass alone.
fn policy_document(idx: usize, doc_index: usize, item_index: Option<usize>, node: Node) -> Document {
    Document {
        source: idx,
        doc_index,
        item_index,
        range: node.span.clone(),
        identity: Identity::default(),
        object: node.to_json(),
        node,
        suppression: None,
        origin: None,
    }
}

#[allow(clippy::too_many_arguments)]
fn take_object(
    idx: usize,
    source: &Source,
    doc_index: usize,
    item_index: Option<usize>,
    node: Node,
    helm: Option<&str>,
    opts: &Options,
    docs: &mut Vec<Document>,
    diags: &mut Vec<Diagnostic>,
    sink: Sink,
) {
    if matches!(node.value, NodeValue::Null) && item_index.is_none() {
        // An empty document (`---` alone, or only comments) is no object and no mistake.
        return;
    }
    let object = node.to_json();
    let identity = Identity::of(&node);
    let is_object = object.is_object() && !identity.api_version.is_empty() && !identity.kind.is_empty();
    let foreign = if is_object { tool_configuration(&identity) } else { foreign_api_version(&object) };
    if !is_object || foreign.is_some() {
        if sink.policy_input {
            sink.inputs.push(policy_document(idx, doc_index, item_index, node));
            return;
        }
        let what = match item_index {
            Some(i) => format!("item {i} of the List in document {}", doc_index + 1),
            None => format!("document {}", doc_index + 1),
        };
        if let Some(why) = foreign {
            diags.push(Diagnostic::of(
                Rule::NotKubernetesObject,
                source.path.clone(),
                Some(node.span.start..node.span.start),
                format!("{what} {why}, {NOT_AN_OBJECT}"),
            ));
            return;
        }
        // A mapping with an object's parts but no type is a broken manifest, not a values file:
        // the API server (and kubeconform) reject it.
        let parts: Vec<&str> = ["apiVersion", "kind", "metadata", "spec"]
            .into_iter()
            .filter(|k| object.get(*k).is_some_and(|v| !v.is_null()))
            .collect();
        if object.is_object() && looks_like_manifest(&object) {
            let missing: Vec<&str> = [("apiVersion", &identity.api_version), ("kind", &identity.kind)]
                .into_iter()
                .filter(|(_, v)| v.is_empty())
                .map(|(k, _)| k)
                .collect();
            diags.push(Diagnostic::new(
                Rule::NotKubernetesObject,
                crate::diagnostic::Severity::Error,
                source.path.clone(),
                Some(node.span.start..node.span.start),
                format!(
                    "{what} has `{}` but no `{}`: a manifest without its type; skipped",
                    parts.join("`, `"),
                    missing.join("` or `")
                ),
            ));
            return;
        }
        let message = match parts.as_slice() {
            // A patch or a fragment (`spec:` alone, kustomize's and kubectl's patch files).
            [_, ..] => format!(
                "{what} has `{}` but no `apiVersion` or `kind`: a patch or a fragment of an object, {NOT_AN_OBJECT}",
                parts.join("`, `")
            ),
            [] => format!("{what} {PLAIN_DATA}; skipped"),
        };
        diags.push(Diagnostic::of(
            Rule::NotKubernetesObject,
            source.path.clone(),
            Some(node.span.start..node.span.start),
            message,
        ));
        return;
    }
    // `kind: List` and `*List` wrap objects in `items` (kubectl unwraps them too).
    if item_index.is_none()
        && identity.kind.ends_with("List")
        && let Some(items) = mapping_get(&node, "items")
        && let NodeValue::Sequence(_) = &items.value
    {
        let Some(NodeValue::Sequence(seq)) = take_last_value(node, "items") else { return };
        for (i, item) in seq.into_iter().enumerate() {
            let sink = Sink { policy_input: sink.policy_input, inputs: &mut *sink.inputs };
            take_object(idx, source, doc_index, Some(i), item, helm, opts, docs, diags, sink);
        }
        return;
    }
    let origin = if source.path == SourcePath::Stdin {
        helm.map(|p| helm_origin(p, &identity, opts)).or_else(|| kustomize_origin(&node, &identity, opts))
    } else {
        None
    };
    // From the tree, as the identity (`Identity::of`).
    let suppression = annotation(&node, SUPPRESS_ANNOTATION).map(str::to_string);
    docs.push(Document {
        suppression,
        source: idx,
        doc_index,
        item_index,
        range: node.span.clone(),
        identity,
        node,
        object,
        origin,
    });
}

/// What the note on a document of plain data (no `apiVersion`, no `kind`) says it is; the
/// `check` runner sums up such notes per directory.
pub const PLAIN_DATA: &str = "is not a Kubernetes object (no apiVersion and kind)";

/// How the note on another tool's document or an object's fragment ends; the `check` runner
/// sums these up per directory too.
pub const NOT_AN_OBJECT: &str = "not a Kubernetes object; skipped";

/// Whether a mapping without a complete type is a broken manifest (the API server and
/// kubeconform reject it): it has part of a type (`apiVersion` or `kind`), or it is named
/// (`metadata.name`) and has an object's content (`spec`, `data` …). A `spec:` alone is a
/// patch or a fragment.
fn looks_like_manifest(object: &serde_json::Value) -> bool {
    let has = |k: &str| object.get(k).is_some_and(|v| !v.is_null());
    let named = object.get("metadata").and_then(|m| m.get("name")).is_some_and(|n| !n.is_null());
    has("apiVersion")
        || has("kind")
        || named && ["spec", "data", "stringData", "rules", "subjects", "roleRef"].into_iter().any(has)
}

/// The configuration kinds of tools around Kubernetes, by API group (and kind, when the group
/// also serves objects): read by their tool, never sent to an API server. `(group, kind or
/// "" for any, what it is)`.
const TOOL_CONFIGURATIONS: &[(&str, &str, &str)] = &[
    ("builtin", "", "a kustomize built-in transformer or generator configuration"),
    ("kustomize.config.k8s.io", "", "kustomize's own configuration"),
    ("kind.x-k8s.io", "", "a kind (Kubernetes in Docker) cluster configuration"),
    ("kubescheduler.config.k8s.io", "", "a kube-scheduler configuration"),
    ("kubelet.config.k8s.io", "", "a kubelet configuration"),
    ("kubeproxy.config.k8s.io", "", "a kube-proxy configuration"),
    ("kubecontrollermanager.config.k8s.io", "", "a kube-controller-manager configuration"),
    ("controllermanager.config.k8s.io", "", "a controller manager configuration"),
    ("cloudcontrollermanager.config.k8s.io", "", "a cloud-controller-manager configuration"),
    ("apiserver.config.k8s.io", "", "a kube-apiserver configuration file"),
    ("apiserver.k8s.io", "", "a kube-apiserver configuration file"),
    ("audit.k8s.io", "", "a kube-apiserver audit configuration"),
    ("kubeadm.k8s.io", "", "a kubeadm configuration"),
    ("client.authentication.k8s.io", "", "a client credential plugin's configuration"),
    ("", "Config", "a kubeconfig file"),
    ("", "Policy", "a kube-scheduler policy file (the scheduler's legacy configuration)"),
    ("k3d.io", "", "a k3d cluster configuration"),
    ("ctlptl.dev", "", "a ctlptl configuration"),
    ("kpt.dev", "", "a kpt package file"),
    ("skaffold", "", "a skaffold configuration"),
    ("gateway.networking.k8s.io", "ConformanceReport", "a Gateway API conformance report"),
    ("internal.gateway.networking.k8s.io", "", "the Gateway API project's own metadata"),
];

/// For an object whose apiVersion/kind is a tool's configuration: what it is.
fn tool_configuration(identity: &Identity) -> Option<String> {
    // kustomize's `apiVersion: builtin` has no version: the whole of it names the tool.
    let group = match identity.api_version.rsplit_once('/') {
        Some((group, _)) => group,
        None if identity.api_version == "v1" => "",
        None => identity.api_version.as_str(),
    };
    TOOL_CONFIGURATIONS
        .iter()
        .find(|(g, k, _)| *g == group && (k.is_empty() || *k == identity.kind))
        .map(|(_, _, what)| format!("is `{} {}`, {what}", identity.api_version, identity.kind))
}

/// For a mapping without a type whose `apiVersion` is there but no Kubernetes `group/version`
/// string (Grafana's provisioning files have `apiVersion: 1`): what it is. A document with
/// `metadata.name` and `spec` is a broken manifest instead.
fn foreign_api_version(object: &serde_json::Value) -> Option<String> {
    let value = object.get("apiVersion").filter(|v| !v.is_null())?;
    // A manifest whose type is broken stays one (see the error below).
    let named = object.get("metadata").and_then(|m| m.get("name")).is_some_and(|n| !n.is_null());
    if named && object.get("spec").is_some() {
        return None;
    }
    let shown = match value {
        serde_json::Value::String(s) if is_group_version(s) => return None,
        serde_json::Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    Some(format!(
        "has `apiVersion: {}`, which is no Kubernetes API version (`v1`, `group/version`): another tool's file",
        shown.chars().take(64).collect::<String>()
    ))
}

/// Whether `s` reads as a Kubernetes API version: `version` or `group/version`, the group a
/// DNS subdomain and the version a DNS label.
fn is_group_version(s: &str) -> bool {
    let label = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    let (group, version) = s.rsplit_once('/').unwrap_or(("", s));
    label(version) && (group.is_empty() || (group.len() <= 253 && group.split('.').all(label)))
}

/// The value node of `key` in a mapping node.
pub fn mapping_get<'a>(node: &'a Node, key: &str) -> Option<&'a Node> {
    match &node.value {
        NodeValue::Mapping(entries) => entries.iter().rev().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v),
        _ => None,
    }
}

/// The value of the last `key` entry of a mapping node (the one [`mapping_get`] finds), moved
/// out of the node.
fn take_last_value(node: Node, key: &str) -> Option<NodeValue> {
    match node.value {
        NodeValue::Mapping(entries) => {
            entries.into_iter().rev().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v.value)
        }
        _ => None,
    }
}

/// helm's `# Source: <path>` comment in the text that precedes a document.
fn helm_source(lead: &str) -> Option<String> {
    lead.lines()
        .filter_map(|l| l.trim().strip_prefix("# Source:"))
        .map(|p| p.trim().to_string())
        .next_back()
        .filter(|p| !p.is_empty())
}

/// The string value of the object's annotation `key`.
fn annotation<'n>(node: &'n Node, key: &str) -> Option<&'n str> {
    node.get("metadata")?.get("annotations")?.get(key)?.as_str()
}

/// kustomize's `config.kubernetes.io/origin` annotation (a small YAML document with `path:`),
/// resolved against the origin root and located in its file when that file can be read.
fn kustomize_origin(node: &Node, identity: &Identity, opts: &Options) -> Option<Origin> {
    let text = annotation(node, "config.kubernetes.io/origin")?;
    let origin = parse_yaml_json(text).ok()??;
    let path = origin.get("path")?.as_str()?.to_string();
    let resolved = origin_file(opts, &path).and_then(|file| locate_in_file(&file, identity));
    Some(Origin { kind: OriginKind::Kustomize, path, resolved })
}

/// helm's `# Source:` file, resolved against the origin root like kustomize's, and the range of
/// the template document that renders an object of this kind (the first one; helm names the
/// file of every document it renders from it): the template is Go-templated YAML, so the
/// object is found by its `kind:` line, not parsed.
fn helm_origin(path: &str, identity: &Identity, opts: &Options) -> Origin {
    let resolved = origin_file(opts, path).and_then(|file| {
        let text = crate::input::read_bounded_to_string(&file, crate::input::MAX_FILE_BYTES).ok()?;
        let range = template_document(&text, &identity.kind);
        Some((normalize(&file), range))
    });
    Origin { kind: OriginKind::Helm, path: path.to_string(), resolved }
}

/// The byte range of the `---`-separated document of `text` with a top-level `kind: KIND`
/// line; the first document when none has.
fn template_document(text: &str, kind: &str) -> Range<usize> {
    let mut starts = vec![0];
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        offset += line.len();
        if line.trim_end() == "---" || line.starts_with("--- ") {
            starts.push(offset);
        }
    }
    starts.push(text.len());
    let ranges: Vec<Range<usize>> = starts.windows(2).map(|w| w[0]..w[1]).collect();
    let declares = |r: &Range<usize>| {
        text[r.clone()]
            .lines()
            .any(|l| l.strip_prefix("kind:").is_some_and(|v| v.trim().trim_matches(|c| c == '"' || c == '\'') == kind))
    };
    ranges.iter().find(|r| declares(r)).or(ranges.first()).cloned().unwrap_or(0..0)
}

/// A renderer's origin path (kustomize's annotation, helm's `# Source:`), resolved against the
/// origin root (`--origin-root`, else the working directory), when it stays inside the
/// repository holding that root (the nearest directory upwards with `.git`, else the root
/// itself): kustomize writes `../../base/x.yaml` for a base, but the path comes from the
/// rendered stream, which the checked repository controls. An absolute path, a `..` or a
/// symlink leading out, or anything in `.git` is not followed (the finding then stays on
/// standard input), so no report can quote a file outside the tree.
fn origin_file(opts: &Options, path: &str) -> Option<PathBuf> {
    if Path::new(path).has_root() {
        return None;
    }
    let root = opts.origin_root.clone().unwrap_or_else(|| PathBuf::from("."));
    let file = root.join(path);
    let real = crate::confine::confine(&file, &crate::confine::Boundary::around(&root)).ok()?;
    real.exists().then_some(file)
}

/// Finds the object with `identity` in a file, ignoring the namespace (kustomize's
/// `namespace:` sets it) and, when no name is equal, the prefixes and suffixes kustomize's
/// `namePrefix:`/`nameSuffix:` add: the object of that kind whose name the rendered name
/// contains between a prefix and a suffix, the longest such name when several do.
fn locate_in_file(path: &Path, identity: &Identity) -> Option<(PathBuf, Range<usize>)> {
    let text = crate::input::read_bounded_to_string(path, crate::input::MAX_FILE_BYTES).ok()?;
    let stream = driftlint_yaml::parse_stream(&text);
    let mut renamed: Option<(usize, Range<usize>)> = None;
    for doc in &stream.documents {
        let id = Identity::of(&doc.root);
        if id.kind != identity.kind || id.name.is_empty() {
            continue;
        }
        if id.name == identity.name {
            return Some((normalize(path), doc.root.span.clone()));
        }
        if renamed.as_ref().is_none_or(|(len, _)| id.name.len() > *len) && is_renamed(&identity.name, &id.name) {
            renamed = Some((id.name.len(), doc.root.span.clone()));
        }
    }
    renamed.map(|(_, span)| (normalize(path), span))
}

/// Whether kustomize may have rendered `source` as `rendered` (`PREFIX` + source + `SUFFIX`).
fn is_renamed(rendered: &str, source: &str) -> bool {
    rendered.len() > source.len() && rendered.match_indices(source).next().is_some()
}

/// `a/b/../c` → `a/c`, without touching the file system (the path exists; symlinks are rare in
/// kustomize trees and the shown path is for humans).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn warning(path: &SourcePath, w: &driftlint_yaml::Warning) -> Diagnostic {
    use driftlint_yaml::Warning;
    match w {
        Warning::DuplicateKey { key, first, duplicate } => Diagnostic::of(
            Rule::DuplicateKey,
            path.clone(),
            Some(duplicate.clone()),
            format!("duplicate key `{key}`: the last value wins"),
        )
        .with_secondary(path.clone(), Some(first.clone()), "first defined here"),
        Warning::UnsupportedKey { key, span } => Diagnostic::of(
            Rule::UnsupportedYaml,
            path.clone(),
            Some(span.clone()),
            format!("key `{key}` cannot be a JSON key: Kubernetes rejects this document"),
        ),
        Warning::NonFiniteFloat { span } => Diagnostic::of(
            Rule::UnsupportedYaml,
            path.clone(),
            Some(span.clone()),
            "`.nan`/`.inf` cannot be encoded as JSON: Kubernetes rejects this value",
        ),
    }
}

/// Parses the first document of a YAML or JSON text into its Kubernetes JSON form; `None` for
/// an empty text.
pub fn parse_yaml_json(text: &str) -> Result<Option<serde_json::Value>, String> {
    let stream = driftlint_yaml::parse_stream(text);
    if let Some(doc) = stream.documents.first() {
        return Ok(Some(doc.root.to_json()));
    }
    match stream.error {
        Some(e) => Err(format!("{}:{}: {}", e.line, e.column, e.message)),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run that ends with a scalar at a document's root, which one load of the whole text
    /// reads on past the next `---`, is not taken as a part of the text: unless it ends it.
    #[test]
    fn a_run_ending_with_a_root_scalar_is_refused_before_the_end_of_the_text() {
        let text = "---\n >\na\n---\nkind: B\n";
        let next = text.rfind("---").unwrap();
        let source = Source { path: SourcePath::Stdin, text: text.to_string() };
        let place = |end: usize, next: Option<usize>| Place { piece: 0..end, next, ..Place::default() };
        let opts = Options::default();
        assert!(parse_run(0, &source, &place(next, Some(next)), &opts).is_none());
        let (_, loaded) = parse_run(0, &source, &place(text.len(), None), &opts).expect("the whole text");
        // Loaded whole, the folded scalar takes in the `---` and what follows: one document.
        assert_eq!(loaded.documents, 1);
    }
}
