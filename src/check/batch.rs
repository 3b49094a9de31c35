//! The batch loop of `check`: the inputs are parsed and checked a batch of files at a time,
//! in input order, so that memory holds the texts and the findings but only a batch's trees.
//!
//! Two stages overlap: worker threads parse and compare whole batches (each batch on one
//! thread: no synchronisation inside a batch), while the calling thread locates the findings of
//! the batches in input order and runs the other passes over them (locating reads templates
//! and origin files through one cache, so it runs on one thread).
//! Each batch's documents index its own sources; the texts go back into the run's list once
//! its findings are made. Everything a batch reports is appended in batch order, so the
//! output does not depend on how the stages interleave.
//!
//! The trees of the batches in flight are bounded in nodes by the run's
//! [`NodePool`](driftlint_yaml::NodePool), whatever the number of threads: a batch staged
//! ahead draws its nodes from the pool as it loads them, and one that finds the pool spent is
//! dropped and *deferred* — the reporting thread stages it again itself, with a draw the pool
//! never refuses, when it is the oldest batch. What a batch reports is therefore what a
//! `--jobs 1` run reports (the per-text limits decide, never the pool); only when it is
//! loaded depends on the pool.

use std::any::Any;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use driftlint_yaml::{Draw, NodePool};

use super::pieces::{self, Batch};
use super::{CheckError, suppress};
use driftlint_core::diagnostic::Diagnostic;
use driftlint_core::document::{self, Collection};
use driftlint_core::input::{Source, SourcePath};
use driftlint_core::locate::{Files, Rendered};
use driftlint_core::pass::{Batch as PassBatch, Pass, Stage};

/// The passes as a batch sees them.
pub struct Passes<'a, 'e> {
    /// Work done on a batch ahead of its report, on the staging threads (the drift pass's
    /// comparison); handed to the pass that [`Pass::stages`].
    pub stage: &'a (dyn Stage + 'e),
    /// The passes, in the order they report each batch.
    pub passes: Vec<&'a mut (dyn Pass + 'e)>,
    /// Whether a pass reads the documents' objects after staging (the policy pass): staging
    /// may then not move them out.
    pub keep_objects: bool,
    pub files: &'a mut Files,
    pub options: &'a document::Options,
    /// Inputs whose texts are kept whatever their batch finds: those that findings made
    /// before the batches point into (definitions among the inputs that could not be loaded).
    pub keep: HashSet<SourcePath>,
    /// The run's budget of live parsed nodes.
    pub nodes: Arc<NodePool>,
    /// When the one batch holds every input at once (a combined policy input, lookups over
    /// every object): how many nodes its trees may hold. Its texts are then loaded one after
    /// the other, in input order, so that the text where the cap is crossed does not depend
    /// on timing; from the node that crosses it, a text is an `unsupported-yaml` error.
    pub whole: Option<usize>,
    /// Asked before each batch is reported: `true` stops the run with
    /// [`CheckError::Cancelled`] (an editor's check that a newer text has superseded).
    pub cancelled: &'a dyn Fn() -> bool,
}

/// What the batches found besides the passes' findings (each pass keeps its own).
#[derive(Default)]
pub struct Found {
    /// Syntax errors, warnings, documents that are no objects.
    pub parse: Vec<Diagnostic>,
    pub suppression: Vec<Diagnostic>,
    /// Ids of every object, in input order, when they are recorded (`Some`).
    pub objects: Option<Vec<String>>,
    pub annotations: suppress::Annotations,
    /// How many Kubernetes objects the batches held.
    pub documents: usize,
    /// Where the findings located in rendered documents on standard input belong (their
    /// source file and field, or which source the renderer named), by their range there:
    /// worked out while the batch's trees are held, applied to every family's findings
    /// once all are made ([`apply_rendered`]).
    pub rendered: HashMap<(usize, usize), Rendered>,
    /// How many batches staged ahead the node pool deferred (each staged again, in its
    /// turn, by the reporting thread).
    pub deferred: usize,
    /// A run of a text cut unverified ([`Batch::unverified`]) did not load as a part of the
    /// whole text: the batches stopped there, and what they found is to be dropped and the
    /// run done again with that text verified before it is cut.
    pub recut: bool,
}

/// A batch parsed and compared, waiting for its findings.
struct Staged {
    batch: Batch,
    coll: Collection,
    /// What [`Stage::stage`] made of it.
    staged: Option<Box<dyn Any + Send>>,
    /// The nodes its trees hold in the run's pool.
    nodes: Arc<Draw>,
    /// For an unverified run: what its load told (`None`: it did not load as part of the
    /// whole text).
    loaded: Option<Option<document::Loaded>>,
}

/// What the unverified runs of one text reported so far loaded: what the next run's place
/// must agree with.
#[derive(Default)]
struct Seen {
    documents: usize,
    /// Where the last document loaded ends.
    end: usize,
    nodes: usize,
}

impl Seen {
    /// Whether the run at `place` of `whole` loaded (`loaded`) as part of one load of the
    /// whole text: it loaded without an error, starts with the document after those before
    /// it, and the nodes so far stay within one load's budget. Its first document was given
    /// the text from the run's own start as the text before it, where helm's `# Source:` is
    /// read: the text between the last document and the run must hold none. Counts the run in.
    fn agrees(&mut self, place: &document::Place, loaded: Option<&document::Loaded>, whole: &Source) -> bool {
        let Some(document::Loaded { documents, last_end, nodes: Some(nodes) }) = loaded.copied() else {
            return false;
        };
        let between = whole.text.get(self.end.min(place.piece.start)..place.piece.start).unwrap_or_default();
        if place.first_doc != self.documents
            || self.nodes + nodes > driftlint_yaml::Limits::default().max_nodes
            || (whole.path == SourcePath::Stdin && between.contains("# Source:"))
        {
            return false;
        }
        self.documents += documents;
        self.nodes += nodes;
        self.end = last_end.unwrap_or(self.end);
        true
    }
}

/// What a reported batch leaves: its trees and what was staged, freed by the thread that built
/// them (see [`run`]), then (fields drop in order) the nodes they held in the pool.
struct Spent {
    _documents: Vec<document::Document>,
    _staged: Option<Box<dyn Any + Send>>,
    _nodes: Arc<Draw>,
}

/// Checks `sources` a batch (`batches`, in order, covering them) at a time.
///
/// With one worker, or one batch, each batch is staged then reported in turn (one batch is
/// staged in parallel inside). Otherwise rayon's pool (`--jobs` threads) stages whole
/// batches, each batch a task on one thread, while this thread reports them in input order;
/// this thread spawns a batch's task only while fewer than one batch a thread, and [`AHEAD`]
/// more, are staged ahead of the one being reported, so memory stays bounded and no pool
/// thread ever waits.
///
/// A run of a cut source's pieces ([`pieces`]) is staged from a copy of its own bytes; the
/// whole text stays in `sources` and is lent to the batch while it is reported, so findings
/// are located and shown against the whole text. The whole text of a file is dropped once
/// its last run is reported, when no run's findings point into it.
pub fn run(sources: &mut [Source], batches: Vec<Batch>, passes: Passes, found: &mut Found) -> Result<(), CheckError> {
    let Passes { stage: compare, mut passes, keep_objects, files, options, keep, nodes: pool, whole, cancelled } =
        passes;
    let pool = &pool;
    let keep = &keep;
    let workers = rayon::current_num_threads();
    // The last run of each cut source, and whether a run's findings pointed into it.
    let last_runs: HashSet<(usize, usize)> = batches
        .iter()
        .filter_map(|b| b.place.as_ref().filter(|p| p.next.is_none()).map(|p| (b.sources.start, p.piece.start)))
        .collect();
    let mut named_cut: HashSet<usize> = HashSet::new();
    // A batch's sources are taken (or its run's bytes copied) when it is staged, not all at
    // once: only the batches in flight hold theirs.
    let input = |sources: &mut [Source], batch: Batch| -> Input {
        let taken = match &batch.place {
            Some(place) => vec![pieces::run_source(&sources[batch.sources.start], place)],
            None => sources[batch.sources.clone()].iter_mut().map(take).collect(),
        };
        (batch, taken)
    };
    let mut seen: HashMap<usize, Seen> = HashMap::new();
    // `None`: an unverified run did not agree with the runs before it (`Found::recut`).
    let mut report_in_place = |sources: &mut [Source], mut staged: Staged| -> Result<Option<Spent>, CheckError> {
        if let (Some(place), Some(loaded)) = (&staged.batch.place, &staged.loaded) {
            let i = staged.batch.sources.start;
            if !seen.entry(i).or_default().agrees(place, loaded.as_ref(), &sources[i]) {
                return Ok(None);
            }
        }
        let cut = staged.batch.place.as_ref().map(|p| (staged.batch.sources.start, p.piece.start));
        if let Some((i, _)) = cut {
            // The whole text, lent for the report (the run's copy is dropped).
            if let Some(source) = staged.coll.sources.first_mut() {
                source.text = std::mem::take(&mut sources[i].text);
            }
        }
        let (batch, texts, named, spent) = report(staged, &mut passes, files, keep, found)?;
        match cut {
            Some((i, start)) => {
                if let Some(source) = texts.into_iter().next() {
                    sources[i].text = source.text;
                }
                if named {
                    named_cut.insert(i);
                }
                let source = &mut sources[i];
                if last_runs.contains(&(i, start))
                    && !named_cut.contains(&i)
                    && matches!(source.path, SourcePath::File(_))
                    && !keep.contains(&source.path)
                {
                    source.text = String::new();
                }
            }
            None => {
                for (slot, source) in sources[batch.sources].iter_mut().zip(texts) {
                    *slot = source;
                }
            }
        }
        Ok(Some(spent))
    };
    let stage_now = |input: Input, parallel: bool| {
        stage_forced(input, pool.draw_forced(), compare, options, keep_objects, (parallel, parallel))
    };
    if let Some(cap) = whole {
        for batch in batches {
            if cancelled() {
                return Err(CheckError::Cancelled);
            }
            let input = input(sources, batch);
            let staged =
                stage_forced(input, pool.draw_capped(cap), compare, options, keep_objects, (false, workers > 1));
            if report_in_place(sources, staged)?.is_none() {
                found.recut = true;
                break;
            }
        }
        return Ok(());
    }
    if workers <= 1 || batches.len() <= 1 {
        let parallel = workers > 1;
        for batch in batches {
            if cancelled() {
                return Err(CheckError::Cancelled);
            }
            let input = input(sources, batch);
            if report_in_place(sources, stage_now(input, parallel))?.is_none() {
                found.recut = true;
                break;
            }
        }
        return Ok(());
    }
    let count = batches.len();
    let mut batches = batches.into_iter();
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Option<usize>, std::thread::Result<Outcome>)>();
    // A reported batch's trees and staged work go back to the pool thread that built them,
    // which frees them before staging its next batch: freeing many small blocks on another
    // thread than the one that allocated them cost a quarter of this loop's CPU (mimalloc's
    // cross-thread frees and their collection).
    let spent: Vec<Mutex<Vec<Spent>>> = (0..workers).map(|_| Mutex::new(Vec::new())).collect();
    // Staging runs as tasks on rayon's pool (its threads, and their allocator arenas, exist
    // already); this thread, outside the pool, reports, and it alone decides when a batch is
    // staged: a task is spawned only while fewer than `workers + AHEAD` batches are staged
    // ahead of the one being reported. No pool thread ever waits for this thread, so the passes that
    // this thread runs (the policy pass evaluates a batch over the pool) always find the
    // pool's threads free once their staging tasks end. (Staging tasks that waited on the
    // pool's threads for the window to move deadlocked with a pass that asked the same pool
    // for work.) Likewise no task waits for the node pool: a task it refuses gives its batch
    // back (`Outcome::Deferred`), and this thread stages that batch itself in its turn.
    let mut deferred = 0;
    let mut recut = false;
    let result = rayon::in_place_scope(|scope| {
        let spent = &spent;
        let spawn = |i: usize, (batch, taken): Input| {
            let tx = tx.clone();
            scope.spawn(move |_| {
                let thread = rayon::current_thread_index().filter(|t| *t < spent.len());
                if let Some(inbox) = thread.and_then(|t| spent.get(t)) {
                    let done = inbox.lock().map(|mut s| std::mem::take(&mut *s)).unwrap_or_default();
                    drop(done);
                }
                // A panic is sent on and raised again by the reporter, which would otherwise
                // wait for this batch for ever. The receiver is gone only when the run
                // stopped at an error.
                let staged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    stage(batch, taken, compare, options, keep_objects, pool.draw())
                }));
                let _ = tx.send((i, thread, staged));
            });
        };
        let mut spawned = 0;
        while spawned < count.min(workers + AHEAD) {
            if let Some(batch) = batches.next() {
                spawn(spawned, input(sources, batch));
            }
            spawned += 1;
        }
        let mut ahead: BTreeMap<usize, (Option<usize>, Outcome)> = BTreeMap::new();
        let mut result = Ok(());
        'batches: for expected in 0..count {
            if cancelled() {
                result = Err(CheckError::Cancelled);
                break;
            }
            let (thread, outcome) = loop {
                if let Some(staged) = ahead.remove(&expected) {
                    break staged;
                }
                match rx.recv() {
                    Ok((i, thread, Ok(staged))) => {
                        ahead.insert(i, (thread, staged));
                    }
                    Ok((_, _, Err(panic))) => std::panic::resume_unwind(panic),
                    // Cannot happen while `tx` lives here.
                    Err(_) => break 'batches,
                }
            };
            // A deferred batch is staged here, now that it is the oldest: its trees are built
            // (and so freed) by this thread.
            let (thread, staged) = match outcome {
                Outcome::Staged(staged) => (thread, *staged),
                Outcome::Deferred(input) => {
                    deferred += 1;
                    (None, stage_now(input, true))
                }
            };
            // While the node pool is half spent, a reported batch is freed at once, here, rather
            // than by its thread before its next batch: its nodes go back to the pool now.
            let pressed = pool.in_use() >= pool.capacity() / 2;
            match report_in_place(sources, staged) {
                Ok(None) => {
                    recut = true;
                    break;
                }
                Ok(Some(done)) => match thread.filter(|_| !pressed).and_then(|t| spent.get(t)) {
                    Some(inbox) => {
                        if let Ok(mut s) = inbox.lock() {
                            s.push(done);
                        }
                    }
                    None => drop(done),
                },
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
            // The window moves: the next batch is staged.
            if spawned < count {
                if let Some(batch) = batches.next() {
                    spawn(spawned, input(sources, batch));
                }
                spawned += 1;
            }
        }
        drop(tx);
        result
    });
    found.deferred += deferred;
    found.recut |= recut;
    result
}

/// A batch's place in the run's sources, and its sources (moved out of the run's list, or a
/// copy of a run's bytes).
type Input = (Batch, Vec<Source>);

/// A source moved out of the run's list, an empty one left in its place until it comes back.
fn take(source: &mut Source) -> Source {
    std::mem::replace(source, Source { path: SourcePath::Stdin, text: String::new() })
}

/// Batches staged ahead of the one being reported beyond one a thread: a thread that finishes
/// its batch while this thread reports a slow one starts the next instead of waiting (on the
/// 10,000-object stream −8 % wall time, on 50,000 files −3 %, the peak the same; two a thread
/// was no faster and held 1.3 MB more).
const AHEAD: usize = 1;

/// How a batch's staging task ended.
enum Outcome {
    Staged(Box<Staged>),
    /// The node pool refused the batch's nodes: what was parsed is dropped, and the batch is
    /// staged again by the reporting thread in its turn ([`stage_forced`]).
    Deferred(Input),
}

/// Stages a batch ahead, on the calling thread, drawing its nodes from `draw` (an
/// opportunistic draw): deferred when the pool refuses them.
fn stage(
    batch: Batch,
    sources: Vec<Source>,
    compare: &dyn Stage,
    options: &document::Options,
    keep_objects: bool,
    draw: Arc<Draw>,
) -> Outcome {
    let options = document::Options { nodes: Some(Arc::clone(&draw)), ..options.clone() };
    let (parsed, loaded) = parse(&batch, &sources, &options, false);
    if options.deferred() {
        // Its partial trees are dropped before the draw that counts them.
        drop((parsed, options));
        drop(draw);
        return Outcome::Deferred((batch, sources));
    }
    let staged = compared(batch, sources, parsed, compare, keep_objects, false, draw);
    Outcome::Staged(Box::new(Staged { loaded, ..staged }))
}

/// Stages a batch now, with a draw the pool never defers (forced, or capped): a batch whose
/// turn it is, as a `--jobs 1` run stages it; parsed and compared (`parallel`) over rayon's
/// pool, else on the calling thread.
fn stage_forced(
    (batch, sources): Input,
    draw: Arc<Draw>,
    compare: &dyn Stage,
    options: &document::Options,
    keep_objects: bool,
    (parse_parallel, compare_parallel): (bool, bool),
) -> Staged {
    let options = document::Options { nodes: Some(Arc::clone(&draw)), ..options.clone() };
    let (parsed, loaded) = parse(&batch, &sources, &options, parse_parallel);
    Staged { loaded, ..compared(batch, sources, parsed, compare, keep_objects, compare_parallel, draw) }
}

/// The documents of one batch, and for an unverified run what its load told
/// ([`Staged::loaded`]).
fn parse(
    batch: &Batch,
    sources: &[Source],
    options: &document::Options,
    parallel: bool,
) -> (document::Parsed, Option<Option<document::Loaded>>) {
    if let (Some(place), true) = (&batch.place, batch.unverified) {
        let run = sources.first().and_then(|s| document::parse_run(0, s, place, options));
        return match run {
            Some((parsed, loaded)) => (parsed, Some(Some(loaded))),
            None => (document::Parsed::default(), Some(None)),
        };
    }
    // A run was checked to load as the whole text does (`pieces::plan`).
    let piece =
        batch.place.as_ref().and_then(|p| sources.first().and_then(|s| document::parse_piece(0, s, p, options)));
    let parsed = if let Some(parsed) = piece {
        parsed
    } else if parallel {
        document::parse_sources(sources, options)
    } else {
        document::parse_sources_here(sources, options)
    };
    (parsed, None)
}

/// A parsed batch, staged (the drift pass compares its objects, moved into the comparison
/// unless a later pass, `keep_objects`, reads them).
fn compared(
    batch: Batch,
    sources: Vec<Source>,
    (documents, diagnostics, inputs): document::Parsed,
    compare: &dyn Stage,
    keep_objects: bool,
    parallel: bool,
    nodes: Arc<Draw>,
) -> Staged {
    let mut coll = Collection { sources, documents, diagnostics, inputs };
    let staged = compare.stage(&mut coll, !keep_objects, parallel);
    Staged { batch, coll, staged, nodes, loaded: None }
}

/// The findings of one staged batch; gives its sources back, whether findings point into its
/// first source, and what is left to free.
fn report(
    staged: Staged,
    passes: &mut [&mut (dyn Pass + '_)],
    files: &mut Files,
    keep: &HashSet<SourcePath>,
    found: &mut Found,
) -> Result<(Batch, Vec<Source>, bool, Spent), CheckError> {
    let Staged { batch, mut coll, mut staged, nodes, loaded: _ } = staged;
    found.documents += coll.documents.len();
    if let Some(objects) = &mut found.objects {
        objects.extend(coll.documents.iter().map(|d| d.identity.cr_id()));
    }
    // The files this batch's findings point into (primary or secondary labels).
    let mut named: HashSet<SourcePath> = HashSet::new();
    let mut name = |diags: &[Diagnostic]| {
        for d in diags {
            named.insert(d.primary.path.clone());
            named.extend(d.secondary.iter().map(|l| l.path.clone()));
        }
    };
    // The rendered documents on standard input that name their source, in input order.
    let rendered: Vec<&document::Document> = coll
        .documents
        .iter()
        .filter(|d| d.origin.is_some() && coll.sources[d.source].path == SourcePath::Stdin)
        .collect();
    let stdin_text = rendered.first().map_or("", |d| coll.sources[d.source].text.as_str());
    let mut locate = |diags: &[Diagnostic], files: &mut Files| {
        if !rendered.is_empty() {
            locate_rendered(diags, &rendered, stdin_text, files, &mut found.rendered);
        }
    };
    name(&coll.diagnostics);
    locate(&coll.diagnostics, &mut *files);
    for pass in passes.iter_mut() {
        let staged = if pass.stages() { staged.as_deref_mut() } else { None };
        let diags = pass.batch(PassBatch { coll: &coll, staged }, files)?;
        name(diags);
        locate(diags, &mut *files);
    }
    let suppression = suppress::invalid_suppressions(&coll, files);
    name(&suppression);
    locate(&suppression, &mut *files);
    found.parse.append(&mut coll.diagnostics);
    found.suppression.extend(suppression);
    suppress::collect_annotations(&coll.documents, &mut found.annotations);
    // A report shows lines of the files its findings point into, and only those: the text of
    // a clean file is dropped here (the source stays, empty), so a run holds the texts of the
    // files with findings, not of every file checked.
    // (A cut source's whole text is dropped by the caller, after its last run.)
    let documents = coll.documents;
    let mut sources = coll.sources;
    let first_named = sources.first().is_some_and(|s| named.contains(&s.path));
    if batch.place.is_none() {
        for source in &mut sources {
            if matches!(source.path, SourcePath::File(_))
                && !named.contains(&source.path)
                && !keep.contains(&source.path)
            {
                source.text = String::new();
            }
        }
    }
    let spent = Spent { _documents: documents, _staged: staged, _nodes: nodes };
    Ok((batch, sources, first_named, spent))
}

/// Records where each finding of `diags` located on standard input inside one of `rendered`
/// (sorted by range) belongs.
fn locate_rendered(
    diags: &[Diagnostic],
    rendered: &[&document::Document],
    text: &str,
    files: &mut Files,
    into: &mut HashMap<(usize, usize), Rendered>,
) {
    for d in diags.iter().filter(|d| d.primary.path == SourcePath::Stdin) {
        let Some(range) = &d.primary.range else { continue };
        let key = (range.start, range.end);
        let i = rendered.partition_point(|doc| doc.range.end <= range.start);
        let Some(doc) = rendered.get(i).filter(|doc| doc.range.start <= range.start) else { continue };
        if let std::collections::hash_map::Entry::Vacant(e) = into.entry(key) {
            let Some(r) = driftlint_core::locate::rendered_origin(doc, range, files) else { continue };
            e.insert(r);
        }
        // A fix made on the rendered text: the same change in the source, made while the
        // rendered tree is held.
        let Some(fix) = d.fix.as_deref().filter(|f| f.edits.iter().any(|e| e.path == SourcePath::Stdin)) else {
            continue;
        };
        let Some(r) = into.get_mut(&key).filter(|r| r.source.is_some() && !r.fixes.iter().any(|(f, _)| f == fix))
        else {
            continue;
        };
        let mapped = driftlint_core::locate::rendered_fix(doc, text, fix, files);
        r.fixes.push((fix.clone(), mapped));
    }
}

/// Moves every finding located in a rendered document on standard input to its source
/// ([`Found::rendered`]), its fix with it. A fix left editing standard input goes: nothing
/// writes it, and the finding must not say it is fixable.
pub fn apply_rendered(diags: &mut [Diagnostic], rendered: &HashMap<(usize, usize), Rendered>) {
    for d in diags.iter_mut().filter(|d| d.primary.path == SourcePath::Stdin) {
        if let Some(r) = d.primary.range.as_ref().and_then(|r| rendered.get(&(r.start, r.end))) {
            r.apply(d);
        }
    }
    for d in diags.iter_mut() {
        if d.fix.as_ref().is_some_and(|f| f.edits.iter().any(|e| e.path == SourcePath::Stdin)) {
            d.fix = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::drift;
    use driftlint_reference::correlate::ReferenceIndex;

    /// The runs of a text cut unverified are taken in order only while each starts with the
    /// document after those before it, loaded without an error, keeps the nodes so far within
    /// one load's budget and, on standard input, has no helm `# Source:` in the text between
    /// it and the document before it (which its first document was not given).
    #[test]
    fn unverified_runs_agree_only_with_what_the_runs_before_them_loaded() {
        let text = "a: 1\n# Source: c/t.yaml\n---\nb: 2\n---\nc: 3\n";
        let (second, third) = (text.find("---").unwrap(), text.rfind("---").unwrap());
        let place = |start: usize, first_doc: usize| document::Place {
            base: start,
            piece: start..text.len(),
            first_doc,
            prev_end: start,
            ..document::Place::default()
        };
        let loaded = |documents: usize, last_end: usize, nodes: usize| document::Loaded {
            documents,
            last_end: Some(last_end),
            nodes: Some(nodes),
        };
        let file = Source { path: SourcePath::File("s.yaml".into()), text: text.to_string() };
        let stdin = Source { path: SourcePath::Stdin, text: text.to_string() };
        // In order, one document each: each agrees.
        let mut seen = Seen::default();
        assert!(seen.agrees(&place(0, 0), Some(&loaded(1, 4, 3)), &file));
        assert!(seen.agrees(&place(second, 1), Some(&loaded(1, second + 8, 3)), &file));
        assert!(seen.agrees(&place(third, 2), Some(&loaded(1, text.len() - 1, 3)), &file));
        // A run that did not load, or whose loader did not count its nodes.
        assert!(!Seen::default().agrees(&place(0, 0), None, &file));
        let uncounted = document::Loaded { nodes: None, ..loaded(1, 4, 3) };
        assert!(!Seen::default().agrees(&place(0, 0), Some(&uncounted), &file));
        // The first run held two documents where one was predicted.
        let mut seen = Seen::default();
        assert!(seen.agrees(&place(0, 0), Some(&loaded(2, 4, 3)), &file));
        assert!(!seen.agrees(&place(second, 1), Some(&loaded(1, second + 8, 3)), &file));
        // The runs' nodes add up past one load's budget.
        let budget = driftlint_yaml::Limits::default().max_nodes;
        let mut seen = Seen::default();
        assert!(seen.agrees(&place(0, 0), Some(&loaded(1, 4, budget - 2)), &file));
        assert!(!seen.agrees(&place(second, 1), Some(&loaded(1, second + 8, 3)), &file));
        // helm's comment after the first document and before the second run's `---`: the whole
        // load gives it to the second document, the run did not; on standard input only.
        let mut seen = Seen::default();
        assert!(seen.agrees(&place(0, 0), Some(&loaded(1, 4, 3)), &stdin));
        assert!(!seen.agrees(&place(second, 1), Some(&loaded(1, second + 8, 3)), &stdin));
    }

    /// `n` files, each an object with a duplicate key (a finding of its own) and enough nodes
    /// to draw from the pool.
    fn sources(n: usize) -> Vec<Source> {
        (0..n)
            .map(|i| Source {
                path: SourcePath::File(format!("f{i:02}.yaml").into()),
                text: format!(
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n  name: twice\ndata: {{a: [{}]}}\n",
                    vec!["1"; 300].join(", ")
                ),
            })
            .collect()
    }

    /// The parse findings of checking `sources` a file a batch on `threads` threads with a
    /// node pool of `capacity`, how many batches were deferred, and what the pool holds after.
    fn check(sources: &[Source], threads: usize, capacity: usize) -> (Vec<String>, usize, usize) {
        let threads = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
        threads.install(|| {
            let mut sources = sources.to_vec();
            let batches = (0..sources.len()).map(|i| Batch { sources: i..i + 1, ..Batch::default() }).collect();
            let (compare, _) = drift::start(None, ReferenceIndex::default(), drift::Drift::default(), false, None);
            let (mut files, options) = (Files::default(), document::Options::default());
            let pool = NodePool::new(capacity);
            let passes = Passes {
                stage: &compare,
                passes: Vec::new(),
                keep_objects: false,
                files: &mut files,
                options: &options,
                keep: HashSet::new(),
                nodes: Arc::clone(&pool),
                whole: None,
                cancelled: &|| false,
            };
            let mut found = Found::default();
            run(&mut sources, batches, passes, &mut found).expect("the batches run");
            let shown = found
                .parse
                .iter()
                .map(|d| format!("{:?} {:?} {}", d.primary.path, d.primary.range, d.message))
                .collect();
            (shown, found.deferred, pool.in_use())
        })
    }

    #[test]
    fn batches_the_pool_defers_are_staged_again_in_their_turn() {
        let sources = sources(12);
        let (serial, deferred, held) = check(&sources, 1, 0);
        assert_eq!((serial.len(), deferred, held), (12, 0, 0), "{serial:#?}");
        for (i, finding) in serial.iter().enumerate() {
            assert!(finding.contains(&format!("f{i:02}.yaml")) && finding.contains("duplicate key"), "{finding}");
        }
        // An empty pool refuses every batch staged ahead: each is deferred, then staged by
        // the reporting thread, and reports what the serial run reports, in the same order.
        let (parallel, deferred, held) = check(&sources, 4, 0);
        assert_eq!(parallel, serial);
        assert_eq!((deferred, held), (12, 0));
        // A pool with room for a few batches: whatever is deferred, the same findings.
        let (roomy, _, held) = check(&sources, 4, 2_000);
        assert_eq!((roomy, held), (serial.clone(), 0));
        let (ample, deferred, held) = check(&sources, 4, 4_000_000);
        assert_eq!((ample, deferred, held), (serial, 0, 0));
    }
}
