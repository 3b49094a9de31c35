//! The interface between the `check` runner and a check family: a pass reports the findings
//! of one batch of documents at a time, then the findings that need every batch.
//!
//! The runner reads the inputs a batch at a time and drops a batch's trees once every pass
//! has reported it, so a pass keeps between batches only what it needs to finish (findings,
//! counts, correlations), never the objects. What a pass needs before the batches (CRD/XRD
//! definitions, reference indexes, the objects `lookupCR` can return) is gathered by the
//! runner when it prepares the passes; whether a pass needs every document in one batch (a
//! combined policy input) is decided there too.
//!
//! Work that can run ahead of the report, on any thread, is a pass's *staging* (the drift
//! pass correlates and compares a batch while the batch before is reported): the runner hands
//! what was staged for a batch back to [`Pass::batch`] as [`Batch::staged`].

use std::any::Any;

use crate::diagnostic::Diagnostic;
use crate::document::Collection;
use crate::locate::Files;

/// What stops a run while a pass reports (not a finding: the run cannot go on), with the
/// pass's own message.
#[derive(Debug, thiserror::Error)]
#[error("{pass}: {source}")]
pub struct PassError {
    /// The pass's name ([`Pass::name`]).
    pub pass: &'static str,
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

/// One batch of documents as a pass sees it.
pub struct Batch<'a> {
    /// The batch's sources, documents and parse findings.
    pub coll: &'a Collection,
    /// What the pass staged for this batch ahead of the report, if it stages
    /// (see the module docs).
    pub staged: Option<&'a mut (dyn Any + Send)>,
}

/// A check family's pass over the documents of a run.
pub trait Pass {
    /// The pass's name, as messages and docs say it (`drift`, `schemas`, `compositions`,
    /// `policies`).
    fn name(&self) -> &'static str;

    /// Whether the batches hand this pass what a [`Stage`] staged for them.
    fn stages(&self) -> bool {
        false
    }

    /// Reports one batch: returns the findings about it, in the order the pass met them.
    /// `files` holds the texts findings point into besides the inputs (reference templates,
    /// origin files, policies), read once per run.
    fn batch(&mut self, batch: Batch<'_>, files: &mut Files) -> Result<&[Diagnostic], PassError>;

    /// The run's findings after the last batch: every batch's, then those that need every
    /// object (missing objects, group rules, policy scenarios).
    fn finish(&mut self, files: &mut Files) -> Result<Vec<Diagnostic>, PassError>;
}

/// A pass's work on a batch that can run ahead of the batch's report, on any thread (the drift
/// pass: correlating and comparing). What it returns is handed to the pass that
/// [`Pass::stages`], as [`Batch::staged`].
pub trait Stage: Sync {
    /// Stages the batch `coll`: `None` when there is nothing to stage. With `take`, objects may
    /// move out of the documents (no later pass of the batch reads them); with `parallel`, the
    /// work may run on rayon's pool, else on the calling thread.
    fn stage(&self, coll: &mut Collection, take: bool, parallel: bool) -> Option<Box<dyn Any + Send>>;
}
