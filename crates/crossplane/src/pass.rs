//! The Composition pass over the batches of a run ([`crate::run`] per batch).

use driftlint_core::diagnostic::Diagnostic;
use driftlint_core::locate::Files;
use driftlint_core::pass::{Batch, Pass, PassError};
use driftlint_schema::{Mode, Registry};

/// Every Composition of a run checked against the run's registry.
pub struct CompositionPass<'r> {
    registry: &'r Registry,
    mode: Mode,
    diagnostics: Vec<Diagnostic>,
}

impl<'r> CompositionPass<'r> {
    /// A pass checking Compositions against `registry`; `mode` is the default schema mode (a
    /// Composition's own annotation wins).
    pub fn new(registry: &'r Registry, mode: Mode) -> Self {
        CompositionPass { registry, mode, diagnostics: Vec::new() }
    }
}

impl Pass for CompositionPass<'_> {
    fn name(&self) -> &'static str {
        "compositions"
    }

    fn batch(&mut self, batch: Batch<'_>, _files: &mut Files) -> Result<&[Diagnostic], PassError> {
        let first = self.diagnostics.len();
        let found = crate::run(batch.coll, self.registry, self.mode);
        self.diagnostics.extend(found);
        Ok(&self.diagnostics[first..])
    }

    fn finish(&mut self, _files: &mut Files) -> Result<Vec<Diagnostic>, PassError> {
        Ok(std::mem::take(&mut self.diagnostics))
    }
}
