//! One large text (a `kustomize build` or `helm template` stream on standard input, a big
//! rendered file) checked a few documents at a time, as many small files are: its documents
//! are cut into runs of pieces ([`driftlint_yaml::document_pieces`]) and each run is a batch of
//! its own, so only a window of runs' trees is in memory, not the whole stream's.
//!
//! Cutting must not change what is reported: every finding's byte range is the whole text's
//! (lines, snippets, SARIF, suppressions and fingerprints stay those of one load), documents
//! keep their numbers, and helm's `# Source:` comments are read from the whole text. So the
//! loads of a text's runs must agree with one load of it: no run has a YAML error, none but
//! the last ends with a scalar root, and the whole is inside the loader's node budget. (A
//! warning — a duplicate key, a key or number JSON cannot hold — is about one document's own
//! content, which the whole load reads alike: it is kept, its ranges made the whole text's.)
//!
//! That is checked in one of two ways. By default a text is cut *unverified*
//! ([`cut_unverified`]): each run's place (its first document's number) is predicted from the
//! text's lines, and the batch loop checks each run, as it reports the runs in order, against
//! what the runs before it loaded; at the first run that disagrees the batches stop and the
//! run is done again with the text *verified* first ([`cut`]: every piece loaded once, without
//! keeping any tree, before the text is cut). Rendered streams load as predicted, so each
//! piece is loaded once rather than twice; a text that defeats the prediction costs at most
//! one more run. A policy input is always verified first, and cut only when it holds a
//! Kubernetes object (a file without any has its empty documents as inputs of their own,
//! which is known only once the whole file is read). Any other text is one batch, parsed in
//! one go.
//!
//! Owns which texts are cut and where; knows nothing of the passes.

use std::ops::Range;

use driftlint_yaml::Shape;
use rayon::prelude::*;

use driftlint_core::document::{self, Place};
use driftlint_core::input::Source;
use driftlint_reference::correlate::ReferenceIndex;

/// A text at least this large is cut into runs of pieces (when it can be).
const CUT_FROM: usize = 64 * 1024;

/// The sizes of cutting: texts from `from` bytes are cut in runs of about `run` bytes.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub from: usize,
    pub run: usize,
}

impl Sizes {
    /// The run's sizes: runs of about `run_bytes`. `DRIFTLINT_PIECE_BYTES` (hidden, for
    /// tests: `0` never cuts, `N` cuts texts over `N` bytes into runs of `N`) sets both.
    pub fn of_run(run_bytes: usize) -> Option<Sizes> {
        match std::env::var("DRIFTLINT_PIECE_BYTES").ok().and_then(|v| v.parse::<usize>().ok()) {
            Some(0) => None,
            Some(n) => Some(Sizes { from: n + 1, run: n }),
            None => Some(Sizes { from: CUT_FROM, run: run_bytes }),
        }
    }
}

/// One batch of a run: a range of sources, or a run of one source's pieces.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pub sources: Range<usize>,
    /// For a run of a cut source (`sources` is that one source): where the run is.
    pub place: Option<Place>,
    /// For a run of more than one piece: where each of its pieces is, so that the pre-pass
    /// parses only the pieces that may hold what it gathers, not their whole run.
    pub pieces: Vec<Place>,
    /// The run's text was cut before it was known to load as the whole text does, and its
    /// place (first document number, nodes before it) is a prediction: whoever reports the
    /// runs checks each against what the runs before it loaded ([`document::Loaded`]), in
    /// order, and reads the text again uncut when one disagrees.
    pub unverified: bool,
}

/// The batches of `ranges` (of `sources`) with every large source that can be cut replaced
/// by the runs of its pieces. `unverified`: a text that is not a policy input is cut without
/// loading it first ([`Batch::unverified`]); else only a text whose pieces were scanned and
/// found to load as the whole text does.
pub fn plan(
    sources: &[Source],
    ranges: Vec<Range<usize>>,
    opts: &document::Options,
    sizes: Option<Sizes>,
    unverified: bool,
) -> Vec<Batch> {
    let mut out = Vec::with_capacity(ranges.len());
    for range in ranges {
        let single = (range.len() == 1).then(|| &sources[range.start]);
        let places = match (single, sizes) {
            (Some(source), Some(sizes)) if source.text.len() >= sizes.from => {
                let policy_input = opts.policy_inputs.as_ref().is_some_and(|p| p.takes(&source.path));
                if unverified && !policy_input {
                    cut_unverified(&source.text, sizes.run).map(|places| (places, true))
                } else {
                    cut(&source.text, sizes.run, policy_input).map(|places| (places, false))
                }
            }
            _ => None,
        };
        match places {
            Some((places, unverified)) => out.extend(places.into_iter().map(|(place, pieces)| Batch {
                sources: range.clone(),
                place: Some(place),
                pieces,
                unverified,
            })),
            None => out.push(Batch { sources: range, ..Batch::default() }),
        }
    }
    out
}

/// The source a run's batch stages: the whole text's bytes from the run's `base` to its end.
pub fn run_source(whole: &Source, place: &Place) -> Source {
    Source { path: whole.path.clone(), text: whole.text[place.base..place.piece.end].to_string() }
}

/// What loading one piece tells about the whole text.
struct Scan {
    documents: usize,
    /// The end of its last document (whole text's offsets), when it has one.
    last_end: Option<usize>,
    /// Its last document is empty (its end is then the next piece's `---`).
    last_empty: bool,
    /// Its nodes, when the fast loader read it (the others' are counted in a draw).
    nodes: usize,
    /// It holds a Kubernetes object (looked for in policy inputs only).
    objects: bool,
    /// Its flow entries ([`driftlint_yaml::flow_entries`]).
    flow: usize,
}

/// A text's pieces and its runs of them.
type PiecesAndRuns = (Vec<Range<usize>>, Vec<Range<usize>>);

/// The pieces of `text` and their runs of about `run` bytes; `None` when the text is one run,
/// or too large for one load, which refuses it before reading it.
fn pieces_and_runs(text: &str, run: usize, limits: &driftlint_yaml::Limits) -> Option<PiecesAndRuns> {
    if text.len() > limits.max_bytes {
        return None;
    }
    let pieces = driftlint_yaml::document_pieces(text);
    let runs = group(&pieces, run.max(1));
    (runs.len() >= 2).then_some((pieces, runs))
}

/// The runs of `text`, each with its pieces when it has more than one, or `None` when it is
/// one run or cutting could change what one load gives.
fn cut(text: &str, run: usize, policy_input: bool) -> Option<Vec<(Place, Vec<Place>)>> {
    let limits = driftlint_yaml::Limits::default();
    let (pieces, runs) = pieces_and_runs(text, run, &limits)?;
    // Each piece alone (as `driftlint_yaml::join_pieces` joins them, a run loads as its
    // pieces do when none but the text's last ends with a scalar root).
    let last = pieces.len() - 1;
    // The pieces together must stay within the whole load's node budget, so that one load
    // would not have stopped either. The fast loader's pieces have no aliases or merge keys:
    // their values are the loader's nodes. The others' nodes, by the loader's own count
    // (merge-folded alias copies included), are drawn from one capped draw, which stops the
    // load that would cross it. Both counts are exact, so whether the text is cut does not
    // depend on how the parallel scans interleave. (The loader's other limits are a
    // document's — aliases, depth — but for the flow entries its scanner would hold, counted
    // over the whole text before it reads: see below.)
    let drawn = driftlint_yaml::NodePool::new(0).draw_capped(limits.max_nodes);
    let drawing = driftlint_yaml::Limits { nodes: Some(drawn.clone()), ..driftlint_yaml::Limits::default() };
    let scanned: Vec<Scan> = pieces
        .par_iter()
        .enumerate()
        .map(|(i, r)| {
            let flow = driftlint_yaml::flow_entries(&text[r.clone()]);
            scan_piece(&text[r.clone()], r.start, i < last, policy_input, &drawing).map(|scan| Scan { flow, ..scan })
        })
        .collect::<Option<_>>()?;
    if scanned.iter().map(|s| s.nodes).sum::<usize>() + drawn.held() > limits.max_nodes {
        return None;
    }
    // A whole text with more flow entries than its loader takes is refused before it is read
    // (each piece has fewer): not cut, so that it is refused as one load refuses it.
    if driftlint_yaml::flow_entries_refused(scanned.iter().map(|s| s.flow).sum(), &limits) {
        return None;
    }
    if policy_input && !scanned.iter().any(|s| s.objects) {
        return None;
    }
    // Each piece's place, as a run made of it alone would have it: the documents before it,
    // where the document before it ends (an empty one ends at the next piece's `---`).
    let mut at_piece: Vec<Place> = Vec::with_capacity(pieces.len());
    let (mut first_doc, mut prev_end) = (0, 0);
    for (i, (r, scan)) in pieces.iter().zip(&scanned).enumerate() {
        let next = pieces.get(i + 1).map(|n| n.start);
        at_piece.push(Place { base: prev_end.min(r.start), piece: r.clone(), first_doc, prev_end, next, policy_input });
        first_doc += scan.documents;
        if let Some(end) = scan.last_end {
            prev_end = match next {
                Some(n) if scan.last_empty => n + 3,
                _ => end,
            };
        }
    }
    places(text, &runs, at_piece)
}

/// The runs of `text` by their pieces' places: a run's place is its first piece's, stretched
/// to its last piece's end, and a run of several pieces keeps theirs.
fn places(text: &str, runs: &[Range<usize>], at_piece: Vec<Place>) -> Option<Vec<(Place, Vec<Place>)>> {
    let mut places: Vec<(Place, Vec<Place>)> = Vec::with_capacity(runs.len());
    let mut piece = at_piece.into_iter().peekable();
    for (i, r) in runs.iter().enumerate() {
        let mut own: Vec<Place> = Vec::new();
        while let Some(p) = piece.next_if(|p| p.piece.end <= r.end) {
            own.push(p);
        }
        let first = own.first()?;
        let place = Place { piece: r.clone(), next: runs.get(i + 1).map(|n| n.start), ..first.clone() };
        if own.len() == 1 {
            own.clear();
        }
        places.push((place, own));
    }
    // A run's copy starts at its base (a document's end, so a character boundary; a text
    // where it is not is simply not cut).
    places.iter().all(|(p, _)| text.is_char_boundary(p.base)).then_some(places)
}

/// The runs of `text` as [`cut`] gives them, without loading the text first: each piece's
/// place is predicted from its text (a piece after the first starts with `---` and holds one
/// document; see [`predicted_documents`]), and its base is its own start (the text before it
/// matters only for helm's `# Source:`, which the reporting side checks). `None` when one
/// load would refuse the whole text before reading it (too large, too many flow entries), or
/// when it is one run.
///
/// This saves loading every piece twice (once to scan, once to check) where the pieces do
/// load as the whole text does, which is every stream kustomize or helm renders; the caller
/// checks each run's [`document::Loaded`] in order, and reads the text again uncut when a
/// run disagrees with its prediction.
fn cut_unverified(text: &str, run: usize) -> Option<Vec<(Place, Vec<Place>)>> {
    let limits = driftlint_yaml::Limits::default();
    let (pieces, runs) = pieces_and_runs(text, run, &limits)?;
    let flow: usize = pieces.par_iter().map(|r| driftlint_yaml::flow_entries(&text[r.clone()])).sum();
    if driftlint_yaml::flow_entries_refused(flow, &limits) {
        return None;
    }
    let mut at_piece: Vec<Place> = Vec::with_capacity(pieces.len());
    let mut first_doc = 0;
    for (i, r) in pieces.iter().enumerate() {
        let next = pieces.get(i + 1).map(|n| n.start);
        at_piece.push(Place {
            base: r.start,
            piece: r.clone(),
            first_doc,
            prev_end: r.start,
            next,
            policy_input: false,
        });
        first_doc += predicted_documents(&text[r.clone()], i == 0);
    }
    places(text, &runs, at_piece)
}

/// How many YAML documents a piece of a text holds, as far as its lines tell without loading
/// it: a piece after the first starts with a `---` line and holds that one document; the
/// first holds one when it has a line of content before any marker (not blank, no comment,
/// no directive). A piece that holds otherwise (a `...` end marker and more content, a
/// directive) is found out when its run is loaded.
fn predicted_documents(piece: &str, first: bool) -> usize {
    let content = |line: &str| {
        let line = line.trim_start();
        !line.is_empty() && !line.starts_with('#') && !line.starts_with('%')
    };
    usize::from(!first || piece.starts_with("---") || piece.lines().any(content))
}

/// The [`Scan`] of the piece `text` (starting at `start` of the whole text; `before_last`:
/// another piece follows), `None` when it has an error or ends with a scalar root before the
/// last piece. Nodes the general loader makes are counted in `drawing`'s draw.
fn scan_piece(
    text: &str,
    start: usize,
    before_last: bool,
    policy_input: bool,
    drawing: &driftlint_yaml::Limits,
) -> Option<Scan> {
    // Most pieces are plain block YAML, which the fast loader reads (with no error, no
    // warning, the full loader's values and ends) at a fraction of the cost.
    // Only a policy input needs the values (to know whether it holds an object).
    if policy_input {
        if let Some(docs) = driftlint_yaml::parse_simple_ends(text) {
            let shapes: Vec<_> = docs.iter().map(|(v, end)| (Shape::of(v), *end)).collect();
            let objects = docs.iter().any(|(v, _)| is_object(v));
            return simple_scan(&shapes, start, before_last, objects);
        }
    } else if let Some(shapes) = driftlint_yaml::scan_simple_ends(text) {
        return simple_scan(&shapes, start, before_last, false);
    }
    let stream = driftlint_yaml::parse_stream_with(text, drawing);
    // A warning (a duplicate key, a key or number JSON cannot hold) is about one
    // document's own content, which a whole load reads the same.
    if stream.error.is_some() {
        return None;
    }
    let end = stream.documents.last();
    if before_last && end.is_some_and(driftlint_yaml::ends_open) {
        return None;
    }
    Some(Scan {
        documents: stream.documents.len(),
        last_end: end.map(|d| d.range.end + start),
        last_empty: end
            .is_some_and(|d| matches!(d.root.value, driftlint_yaml::NodeValue::Null) && d.root.span.is_empty()),
        // Counted in the draw.
        nodes: 0,
        objects: policy_input && stream.documents.iter().any(|d| is_object(&d.root.to_json())),
        flow: 0,
    })
}

/// The [`Scan`] of a piece the fast loader read (the shapes of its documents, with their ends
/// in the run starting at `start`, and whether one is an object); `None` when it ends with a
/// scalar root and is not the `last` run.
fn simple_scan(docs: &[(Shape, Option<usize>)], start: usize, before_last: bool, objects: bool) -> Option<Scan> {
    let end = docs.last();
    if before_last && end.is_some_and(|(shape, _)| *shape == Shape::Scalar) {
        return None;
    }
    Some(Scan {
        documents: docs.len(),
        // An empty last document ends where its `---` does; only whether it is empty counts.
        last_end: end.map(|(_, e)| e.unwrap_or(0) + start),
        last_empty: end.is_some_and(|(_, e)| e.is_none()),
        nodes: docs.iter().map(|(shape, _)| shape.values()).sum(),
        objects,
        flow: 0,
    })
}

/// Whether a document is a Kubernetes object by itself (a `List`, whose items may be none,
/// does not count).
fn is_object(value: &serde_json::Value) -> bool {
    let named = |key: &str| value.get(key).and_then(serde_json::Value::as_str).filter(|s| !s.is_empty());
    named("apiVersion").is_some() && named("kind").is_some_and(|k| !k.ends_with("List"))
}

/// Consecutive `pieces` joined into runs of at most `target` bytes (a larger piece is a run
/// of its own).
fn group(pieces: &[Range<usize>], target: usize) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    for p in pieces {
        match runs.last_mut() {
            Some(last) if last.len() + p.len() <= target => last.end = p.end,
            _ => runs.push(p.clone()),
        }
    }
    runs
}

/// What the pre-pass keeps of the inputs it reads.
#[derive(Default)]
pub struct Early {
    /// The documents `keep` selected (definitions, the objects lookups can return), in input
    /// order, each with its source's path (the texts themselves are not kept).
    pub coll: document::Collection,
    /// §4.5's reference indexes of every object read (when asked for).
    pub index: ReferenceIndex,
    /// The kept documents left out because they would have held more than the cap.
    pub diagnostics: Vec<driftlint_core::diagnostic::Diagnostic>,
}

/// What one text or run gives the pre-pass; `None` when the node pool deferred its load.
type Part = Option<Read>;

#[derive(Default)]
struct Read {
    /// The documents kept, each with its nodes.
    kept: Vec<(document::Document, usize)>,
    index: ReferenceIndex,
    /// A run that does not load as part of the whole: its source is to be read whole.
    whole: bool,
}

/// What [`collect_holding`] looks for in a text before loading it: a backslash (a
/// double-quoted escape can spell any word) or one of some words, all searched for in one
/// pass over the text (`aho-corasick`) — or anything.
pub struct Holding {
    /// Any text may hold what is looked for.
    every: bool,
    words: Option<aho_corasick::AhoCorasick>,
}

impl Holding {
    /// The union of word sets; a `None` set: any text may hold it.
    pub fn new<'w>(sets: impl IntoIterator<Item = Option<Vec<&'w str>>>) -> Holding {
        let mut words = Vec::new();
        for set in sets {
            match set {
                Some(set) => words.extend(set),
                None => return Holding { every: true, words: None },
            }
        }
        words.retain(|w| !w.is_empty());
        if words.is_empty() {
            return Holding { every: false, words: None };
        }
        // Leftmost matching lets the crate search with its vector (Teddy) searcher; which
        // word matches is of no interest here.
        let built =
            aho_corasick::AhoCorasick::builder().match_kind(aho_corasick::MatchKind::LeftmostFirst).build(&words);
        match built {
            Ok(words) => Holding { every: false, words: Some(words) },
            // Too many words for one automaton: every text is read (what is kept is decided
            // on the loaded documents, so this costs time, never a finding).
            Err(_) => Holding { every: true, words: None },
        }
    }

    pub fn may_hold(&self, text: &str) -> bool {
        self.every || driftlint_yaml::may_escape(text) || self.words.as_ref().is_some_and(|w| w.is_match(text))
    }
}

/// Reads what the run needs before its batches from the inputs that `holding` may hold: the
/// documents `keep` selects, and with `index`, the reference indexes of every object read.
/// Of a cut source only its runs that may hold it are parsed, each run's trees dropped once
/// read: one lookup target in a large stream does not load the whole stream at once. The
/// documents are those [`document::collect`] of the sources gives (a source with a run that
/// does not load as part of the whole is parsed in one go, as its batch will be).
///
/// Bounded like the batches, whatever `--jobs` is: the texts are parsed in parallel with
/// nodes drawn from `pool` (a text the pool refuses is parsed again afterwards, in input
/// order, with a draw that is never refused), and the kept documents may hold as many nodes
/// as the pool in all, taken in input order: from the one that crosses it on, each is left
/// out with an `unsupported-yaml` error. When they would cross it, the pass is done again one
/// text at a time, so which documents are kept does not depend on how the parallel reads
/// interleave.
pub fn collect_holding(
    sources: &[Source],
    batches: &[Batch],
    opts: &document::Options,
    holding: &Holding,
    keep: impl Fn(&document::Document) -> bool + Sync,
    index: bool,
    pool: &std::sync::Arc<driftlint_yaml::NodePool>,
) -> Early {
    let cap = pool.capacity();
    // Each source that may hold, in input order, with a run of it that may (`None`: all).
    // Of a run of pieces only the pieces that may hold are parsed (one document of a few in
    // most streams). Every text or piece is searched, so on the pool (in order).
    let mut candidates: Vec<(usize, Option<&Place>)> = Vec::new();
    for b in batches {
        match &b.place {
            None => candidates.extend(b.sources.clone().map(|i| (i, None))),
            Some(place) => {
                let each = if b.pieces.is_empty() { std::slice::from_ref(place) } else { &b.pieces[..] };
                candidates.extend(each.iter().map(|p| (b.sources.start, Some(p))));
            }
        }
    }
    let picked: Vec<(usize, Option<Place>)> = candidates
        .into_par_iter()
        .filter(|&(i, place)| match place {
            None => holding.may_hold(&sources[i].text),
            Some(p) => holding.may_hold(&sources[i].text[p.piece.clone()]),
        })
        // The source holds the whole text: offsets need no base.
        .map(|(i, place)| (i, place.map(|p| Place { base: 0, ..p.clone() })))
        .collect();
    // A text or run read with `draw` (its trees dropped before the draw that counts them).
    let read = |i: usize, place: &Option<Place>, draw: std::sync::Arc<driftlint_yaml::Draw>| -> Part {
        let opts = document::Options { nodes: Some(std::sync::Arc::clone(&draw)), ..opts.clone() };
        let docs = match place {
            None => document::parse_sources(std::slice::from_ref(&sources[i]), &opts).0,
            Some(place) => match document::parse_piece(0, &sources[i], place, &opts) {
                Some((docs, _, _)) => docs,
                None if !opts.deferred() => return Some(Read { whole: true, ..Read::default() }),
                None => Vec::new(),
            },
        };
        if opts.deferred() {
            return None;
        }
        let index = if index { ReferenceIndex::new(docs.iter().map(|d| &d.object)) } else { ReferenceIndex::default() };
        let kept: Vec<(document::Document, usize)> = docs
            .into_iter()
            .filter(&keep)
            .map(|d| {
                let n = d.node.tree_size();
                (d, n)
            })
            .collect();
        Some(Read { kept, index, whole: false })
    };
    let kept_nodes = std::sync::atomic::AtomicUsize::new(0);
    let mut parts: Vec<Part> = picked
        .par_iter()
        .map(|(i, place)| {
            let part = read(*i, place, pool.draw())?;
            // Past the cap the parts are dropped: the pass is done again in order below.
            let nodes: usize = part.kept.iter().map(|(_, n)| n).sum();
            let before = kept_nodes.fetch_add(nodes, std::sync::atomic::Ordering::AcqRel);
            (before + nodes <= cap).then_some(part)
        })
        .collect();
    if kept_nodes.into_inner() > cap {
        parts.clear();
    }
    let mut out = Early::default();
    let mut held = 0;
    let mut at = 0;
    while at < picked.len() {
        // One source's texts or runs, in order; a deferred one read now, never refused.
        let i = picked[at].0;
        let end = at + picked[at..].iter().take_while(|(j, _)| *j == i).count();
        let mut reads: Vec<Read> = (at..end)
            .map(|k| match parts.get_mut(k).and_then(Option::take) {
                Some(part) => part,
                None => read(i, &picked[k].1, pool.draw_forced()).unwrap_or_default(),
            })
            .collect();
        if reads.iter().any(|r| r.whole) {
            reads = vec![read(i, &None, pool.draw_forced()).unwrap_or_default()];
        }
        at = end;
        out.coll.sources.push(Source { path: sources[i].path.clone(), text: String::new() });
        let idx = out.coll.sources.len() - 1;
        for Read { kept, index, .. } in reads {
            out.index.owners.extend(index.owners);
            out.index.subjects.extend(index.subjects);
            for (mut d, n) in kept {
                if held + n > cap {
                    let message = format!(
                        "not read as a definition or a lookup's object: those read before the checks would hold \
                         more than {cap} YAML nodes"
                    );
                    let path = sources[i].path.clone();
                    let range = Some(d.range.clone());
                    out.diagnostics.push(driftlint_core::diagnostic::Diagnostic::error(
                        driftlint_core::diagnostic::Rule::UnsupportedYaml,
                        path,
                        range,
                        message,
                    ));
                    continue;
                }
                held += n;
                d.source = idx;
                out.coll.documents.push(d);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlint_core::input::SourcePath;

    fn source(text: &str) -> Source {
        Source { path: SourcePath::Stdin, text: text.to_string() }
    }

    /// One search for the union of the gatherers' words holds exactly where one of the
    /// gatherers' own tests does, whichever gatherers a run has.
    #[test]
    fn holding_is_the_union_of_the_gatherers_tests() {
        use crate::check::{drift, may_hold_definition, pre_pass_holding};
        let texts = [
            "",
            "kind: ConfigMap\n",
            "metadata:\n  ownerReferences: []\n",
            "subjects:\n- kind: User\n",
            "kind: CustomResourceDefinition\n",
            "kind: Infrastructure\n",
            "apiVersion: admissionregistration.k8s.io/v1\n",
            "kind: Namespace\n",
            "name: \"\\x41\"\n",
            "ownerReference subject ResourceDefinitio Infrastructur Namespac\n",
        ];
        let view: &[&str] = &["Infrastructure"];
        for with_reference in [false, true] {
            for lookups in [None, Some(Vec::new()), Some(view.to_vec())] {
                for admission in [None, Some(false), Some(true)] {
                    let holding = pre_pass_holding(with_reference, lookups.clone(), admission);
                    for text in texts {
                        let view_member = match &lookups {
                            None => true,
                            Some(kinds) if kinds.is_empty() => false,
                            Some(kinds) => driftlint_yaml::may_escape(text) || kinds.iter().any(|k| text.contains(k)),
                        };
                        let expected = (with_reference && drift::may_hold_reference_keys(text))
                            || may_hold_definition(text)
                            || view_member
                            || admission.is_some_and(|p| driftlint_admission::pass::may_hold_context(text, p));
                        assert_eq!(
                            holding.may_hold(text),
                            expected,
                            "{text:?} reference {with_reference} lookups {lookups:?} admission {admission:?}"
                        );
                    }
                }
            }
        }
    }

    /// An object's document number, range and identity.
    type Shown = (usize, Range<usize>, String);

    /// The objects' [`Shown`] and the diagnostics' ranges.
    fn shown(parsed: &document::Parsed) -> (Vec<Shown>, Vec<Option<Range<usize>>>) {
        (
            parsed.0.iter().map(|d| (d.doc_index, d.range.clone(), d.identity.cr_id())).collect(),
            parsed.1.iter().map(|d| d.primary.range.clone()).collect(),
        )
    }

    #[test]
    fn runs_parse_as_the_whole_text_does() {
        let mut text = String::from("# lead\n");
        for i in 0..40 {
            text.push_str(&format!(
                "---\n# Source: c/t{i}.yaml\n# é ü\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m{i}\n"
            ));
            if i % 9 == 4 {
                text.push_str("  name: twice\n---\n---\nvalues: 1\n");
            }
        }
        let whole = source(&text);
        let opts = document::Options::default();
        let cuts = cut(&text, 200, false).expect("a clean stream is cut");
        assert!(cuts.len() > 5, "{cuts:?}");
        assert!(cuts.iter().any(|(_, pieces)| pieces.len() > 1), "runs of several pieces: {cuts:?}");
        let one = document::parse_sources_here(std::slice::from_ref(&whole), &opts);
        let helm =
            |p: &document::Parsed| p.0.iter().map(|d| d.origin.as_ref().map(|o| o.path.clone())).collect::<Vec<_>>();
        // The runs, and each run's pieces (the pre-pass reads a piece alone) with the whole
        // text as their source, load as the whole text does.
        let runs: Vec<(Place, Source)> = cuts.iter().map(|(p, _)| (p.clone(), run_source(&whole, p))).collect();
        let pieces: Vec<(Place, Source)> = cuts
            .iter()
            .flat_map(|(run, pieces)| if pieces.is_empty() { vec![run.clone()] } else { pieces.clone() })
            .map(|p| (Place { base: 0, ..p }, whole.clone()))
            .collect();
        for places in [runs, pieces] {
            let mut joined = document::Parsed::default();
            for (place, source) in &places {
                let (docs, diags, inputs) = document::parse_piece(0, source, place, &opts).expect("each piece loads");
                joined.0.extend(docs);
                joined.1.extend(diags);
                joined.2.extend(inputs);
            }
            assert_eq!(shown(&joined), shown(&one));
            assert_eq!(joined.1.len(), 8, "duplicate keys and documents that are no objects");
            assert_eq!(helm(&joined), helm(&one));
        }
    }

    /// Where a text loads as its pieces do, the places predicted without loading it are those
    /// a scan of every piece finds (but for where a run's copy starts: its own start).
    #[test]
    fn predicted_places_are_the_scanned_ones_on_a_clean_stream() {
        let mut text = String::from("# lead\n\n");
        for i in 0..30 {
            text.push_str(&format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m{i}\n"));
            if i % 7 == 3 {
                text.push_str("---\n---\n# only a comment\nvalues: 1\n");
            }
        }
        // Each run's range and first document, and its pieces'.
        type Key = (Range<usize>, usize, Vec<(Range<usize>, usize)>);
        let key = |cuts: Vec<(Place, Vec<Place>)>| -> Vec<Key> {
            cuts.into_iter()
                .map(|(run, pieces)| {
                    (run.piece, run.first_doc, pieces.into_iter().map(|p| (p.piece, p.first_doc)).collect())
                })
                .collect()
        };
        let scanned = key(cut(&text, 300, false).expect("a clean stream is cut"));
        assert!(scanned.len() > 5 && scanned.iter().any(|(_, _, pieces)| pieces.len() > 1), "{scanned:?}");
        assert_eq!(key(cut_unverified(&text, 300).expect("cut unverified")), scanned);
    }

    #[test]
    fn a_piece_holds_one_document_unless_it_is_the_first_without_content() {
        assert_eq!(predicted_documents("---\na: 1\n", false), 1);
        assert_eq!(predicted_documents("---\n", false), 1);
        assert_eq!(predicted_documents("---\n", true), 1);
        assert_eq!(predicted_documents("a: 1\n", true), 1);
        assert_eq!(predicted_documents("# a comment\n\n  # another\n", true), 0);
        assert_eq!(predicted_documents("%YAML 1.1\n", true), 0);
        assert_eq!(predicted_documents("", true), 0);
    }

    #[test]
    fn texts_a_run_could_read_otherwise_are_not_cut() {
        let clean = "kind: A\n---\nkind: B\n---\nkind: C\n";
        assert!(cut(clean, 8, false).is_some());
        // An error in a run; a scalar root that a whole load reads on past `---`; one run.
        assert!(cut("kind: A\n---\nkind: [\n---\nkind: C\n", 8, false).is_none());
        assert!(cut("---\n >\na\n---\nkind: B\n", 4, false).is_none());
        assert!(cut(clean, 1000, false).is_none());
        // A policy input without any object: its empty documents are inputs; not cut.
        assert!(cut("a: 1\n---\n---\nb: 2\n", 4, true).is_none());
        assert!(cut("apiVersion: v1\nkind: A\n---\n---\nb: 2\n", 4, true).is_some());
    }

    #[test]
    fn runs_are_scanned_against_the_loaders_count_not_their_trees() {
        // Each document merges 22 copies of one 10,000-key mapping: 460,000 nodes by the
        // loader's count (which one load of the whole text stops at), 20,000 in its tree.
        let keys: String = (0..10_000).map(|i| format!("    k{i:05}: 1\n")).collect();
        let merges = vec!["*a"; 22].join(", ");
        let doc = |n: usize| format!("kind: A\nmetadata:\n  name: m{n}\nx:\n  a: &a\n{keys}  m: {{<<: [{merges}]}}\n");
        let four = [doc(1), doc(2), doc(3), doc(4)].join("---\n");
        assert!(cut(&four, 1000, false).is_some(), "four are inside the budget");
        let five = [doc(1), doc(2), doc(3), doc(4), doc(5)].join("---\n");
        assert!(cut(&five, 1000, false).is_none(), "five are not: the text is loaded in one go");
    }

    /// A whole text with more flow indicators than one load takes is refused by that load
    /// before it reads, whatever its pieces hold: it is not cut, so it is refused as one.
    #[test]
    fn a_text_one_load_refuses_for_its_flow_entries_is_not_cut() {
        // Commas inside plain scalars count: the scanner's limit is on the text's bytes.
        let doc = |n: usize| format!("kind: A\nmetadata:\n  name: c{n}\nx: {}\n", vec!["a"; 400_000].join(","));
        let two = [doc(1), doc(2)].join("---\n");
        assert!(cut(&two, 1000, false).is_some(), "800,000 commas: within what one load takes");
        let three = [doc(1), doc(2), doc(3)].join("---\n");
        assert!(driftlint_yaml::too_many_flow_entries(&three, &driftlint_yaml::Limits::default()));
        assert!(cut(&three, 1000, false).is_none(), "1,200,000 commas: one load refuses the text");
    }
}
