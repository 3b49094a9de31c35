//! The batch loop of `check`: the inputs are parsed and checked a batch of files at a time,
//! in input order, so that memory holds the texts and the findings but only a batch's trees.
//!
//! Two stages overlap: while one batch is parsed and compared (in parallel over its files and
//! objects), the findings of the batch before are located and the other passes run over it
//! (locating reads templates and origin files through one cache, so it runs on one thread).
//! Each batch's documents index its own sources; the texts go back into the run's list once
//! its findings are made. Everything a batch reports is appended in batch order, so the
//! output does not depend on how the stages interleave.

use std::collections::HashSet;
use std::ops::Range;

use super::locate::Files;
use super::{CheckError, drift, suppress};
use crate::diagnostic::Diagnostic;
use crate::document::{self, Collection};
use crate::input::{Source, SourcePath};
use crate::kubecompare::engine::Comparison;
use crate::policy::conftest;
use crate::schema::{Mode, Registry};

/// The passes as a batch sees them.
pub struct Passes<'a, 'e> {
    pub compare: &'a drift::Compare<'e>,
    pub drift: Option<&'a mut drift::Run<'e>>,
    pub schemas: Option<&'a (Registry, Mode)>,
    pub policy: Option<&'a mut conftest::Pass>,
    pub files: &'a mut Files,
    pub options: &'a document::Options,
    /// Inputs whose texts are kept whatever their batch finds: those that findings made
    /// before the batches point into (definitions among the inputs that could not be loaded).
    pub keep: HashSet<SourcePath>,
}

/// What the batches found besides the drift pass' findings, by pass.
#[derive(Default)]
pub struct Found {
    /// Syntax errors, warnings, documents that are no objects.
    pub parse: Vec<Diagnostic>,
    pub schema: Vec<Diagnostic>,
    pub composition: Vec<Diagnostic>,
    pub suppression: Vec<Diagnostic>,
    /// Ids of every object, in input order.
    pub objects: Vec<String>,
    pub annotations: suppress::Annotations,
}

/// A batch parsed and compared, waiting for its findings.
struct Staged {
    range: Range<usize>,
    coll: Collection,
    comparison: Option<Comparison>,
}

/// Checks `sources` a batch (`batches`, in order, covering them) at a time.
pub fn run(
    sources: &mut [Source],
    batches: Vec<Range<usize>>,
    passes: Passes,
    found: &mut Found,
) -> Result<(), CheckError> {
    let Passes { compare, mut drift, schemas, mut policy, files, options, keep } = passes;
    let keep = &keep;
    let keep_objects = policy.is_some();
    let mut pending: Option<Staged> = None;
    let mut batches = batches.into_iter();
    loop {
        let next = batches.next().map(|range| {
            let taken: Vec<Source> = sources[range.clone()].iter_mut().map(take).collect();
            (range, taken)
        });
        let current = pending.take();
        if next.is_none() && current.is_none() {
            return Ok(());
        }
        let (staged, reported) = rayon::join(
            || next.map(|(range, taken)| stage(range, taken, compare, options, keep_objects)),
            || {
                current.map(|staged| {
                    report(staged, drift.as_deref_mut(), schemas, policy.as_deref_mut(), files, keep, found)
                })
            },
        );
        if let Some(reported) = reported {
            let (range, texts) = reported?;
            for (slot, source) in sources[range].iter_mut().zip(texts) {
                *slot = source;
            }
        }
        pending = staged;
    }
}

/// A source moved out of the run's list, an empty one left in its place until it comes back.
fn take(source: &mut Source) -> Source {
    std::mem::replace(source, Source { path: SourcePath::Stdin, text: String::new() })
}

/// Parses one batch and compares its objects (moved into the comparison unless the policy
/// pass, `keep_objects`, reads them after).
fn stage(
    range: Range<usize>,
    sources: Vec<Source>,
    compare: &drift::Compare,
    options: &document::Options,
    keep_objects: bool,
) -> Staged {
    let (documents, diagnostics) = document::parse_sources(&sources, 0..sources.len(), options);
    let mut coll = Collection { sources, documents, diagnostics };
    let comparison = compare.batch(&mut coll, !keep_objects);
    Staged { range, coll, comparison }
}

/// The findings of one staged batch; gives its sources back.
fn report(
    staged: Staged,
    drift: Option<&mut drift::Run>,
    schemas: Option<&(Registry, Mode)>,
    policy: Option<&mut conftest::Pass>,
    files: &mut Files,
    keep: &HashSet<SourcePath>,
    found: &mut Found,
) -> Result<(Range<usize>, Vec<Source>), CheckError> {
    let Staged { range, mut coll, comparison } = staged;
    found.objects.extend(coll.documents.iter().map(|d| d.identity.cr_id()));
    // The files this batch's findings point into (primary or secondary labels).
    let mut named: HashSet<SourcePath> = HashSet::new();
    let mut name = |diags: &[Diagnostic]| {
        for d in diags {
            named.insert(d.primary.path.clone());
            named.extend(d.secondary.iter().map(|l| l.path.clone()));
        }
    };
    name(&coll.diagnostics);
    found.parse.append(&mut coll.diagnostics);
    if let Some(drift) = drift {
        name(drift.batch(&coll, comparison, files));
    }
    if let Some((registry, mode)) = schemas {
        let (schema, composition) =
            (crate::schema::pass::run(&coll, registry, *mode), crate::crossplane::run(&coll, registry, *mode));
        name(&schema);
        name(&composition);
        found.schema.extend(schema);
        found.composition.extend(composition);
    }
    if let Some(policy) = policy {
        name(policy.batch(&coll, files)?);
    }
    let suppression = suppress::invalid_suppressions(&coll, files);
    name(&suppression);
    found.suppression.extend(suppression);
    suppress::collect_annotations(&coll.documents, &mut found.annotations);
    // A report shows lines of the files its findings point into, and only those: the text of
    // a clean file is dropped here (the source stays, empty), so a run holds the texts of the
    // files with findings, not of every file checked.
    drop(coll.documents);
    let mut sources = coll.sources;
    for source in &mut sources {
        if matches!(source.path, SourcePath::File(_)) && !named.contains(&source.path) && !keep.contains(&source.path) {
            source.text = String::new();
        }
    }
    Ok((range, sources))
}
