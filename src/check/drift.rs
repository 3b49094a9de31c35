//! The drift pass: the documents compared with the reference (kube-compare's engine), as
//! located findings — value drift, missing and unexpected fields, missing and unmatched
//! objects, group rules — plus the reference's own problems and `driftlint.lock`.

use std::any::Any;

use super::CheckError;
use crate::config::Settings;
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::document::{self, Collection};
use driftlint_core::input::SourcePath;
use driftlint_core::locate::Files;
use driftlint_core::pass::{Batch, Pass, PassError, Stage};
use driftlint_reference::compare::UserOverride;
use driftlint_reference::correlate::ReferenceIndex;
use driftlint_reference::drift::correlations;
use driftlint_reference::drift::findings;
use driftlint_reference::engine::collect::Cr;
use driftlint_reference::engine::{self, Comparison, Engine, View};
use driftlint_reference::{Compiled, Location, Opened};

/// What the drift pass found.
#[derive(Default)]
pub struct Drift {
    pub diagnostics: Vec<Diagnostic>,
    /// Which templates the objects matched, for changed-file scopes.
    pub correlations: correlations::Correlations,
    pub pinned: Option<driftlint_reference::Pinned>,
}

/// The drift pass before any object is compared: the reference loaded and compiled, its own
/// problems and the lock's found, the diff config and overrides read.
pub struct Prepared {
    /// `None` when the reference failed to load or compile (its problems are findings).
    compiled: Option<Compiled>,
    overrides: Vec<UserOverride>,
    user_pairs: Vec<(String, String)>,
}

/// Loads the reference `opened` (configured as `location`) and what comparing needs; the
/// [`Drift`] holds the findings about the reference and the lock, in the order they were met.
pub fn prepare(
    settings: &Settings,
    location: &Location,
    opened: Opened,
    files: &mut Files,
) -> Result<(Prepared, Drift), CheckError> {
    let user_pairs = match &settings.diff_config {
        None => Vec::new(),
        Some(p) => match driftlint_git::location_text(&p.to_string_lossy(), &settings.git_start)? {
            Some(text) => driftlint_reference::userconfig::parse_user_config(p, &text),
            None => driftlint_reference::userconfig::load_user_config(p),
        }
        .map_err(|e| CheckError::DiffConfig { path: p.clone(), message: e.to_lines() })?
        .correlation_pairs
        .into_iter()
        .map(|p| (p.cr_id, p.template))
        .collect(),
    };
    let overrides = match &settings.overrides {
        None => Vec::new(),
        Some(p) => match driftlint_git::location_text(&p.to_string_lossy(), &settings.git_start)? {
            Some(text) => driftlint_reference::compare::parse_overrides(&text),
            None => driftlint_reference::compare::load_overrides(p),
        }
        .map_err(|e| CheckError::Overrides { path: p.clone(), message: e.to_string() })?,
    };
    if let Some(text) = opened.metadata_text() {
        files.preset(opened.path.clone(), text);
    }
    let mut diagnostics = Vec::new();
    let pinned = opened.pinned();

    // Reference. Its problems are findings at their line in metadata.yaml, and nothing can
    // be compared without it.
    let compiled = opened.load().and_then(|loaded| {
        driftlint_reference::lock::remember_files(&loaded, files);
        for w in &loaded.warnings {
            diagnostics.push(Diagnostic::new(
                Rule::InvalidReference,
                // A variant the rules table documents: what kube-compare only warns about.
                Severity::Warning,
                SourcePath::File(loaded.path.clone()),
                w.span.clone(),
                w.message.clone(),
            ));
        }
        driftlint_reference::compile::compile_owned(loaded)
    });
    if let Some(lock) = &settings.lock {
        diagnostics.extend(driftlint_reference::lock::verify_lock(
            lock,
            location,
            &opened,
            compiled.as_ref().ok(),
            files,
        )?);
    } else if let Some(config) = settings.config.as_ref().filter(|c| c.require_lock) {
        diagnostics.push(missing_lock(config, files));
    }
    let compiled = match compiled {
        Err(e) => {
            diagnostics.extend(findings::invalid_reference(&e, Severity::Error));
            None
        }
        Ok(compiled) => Some(compiled),
    };
    Ok((Prepared { compiled, overrides, user_pairs }, Drift { diagnostics, pinned, ..Drift::default() }))
}

impl Prepared {
    /// The engine that compares objects with the reference; `None` when the reference could
    /// not be compiled (then the pass reports the reference's problems only).
    pub fn engine(&self) -> Result<Option<Engine<'_>>, CheckError> {
        let Some(compiled) = &self.compiled else { return Ok(None) };
        // Findings need the two sides of differing objects only (field diffs), no texts.
        let options = engine::Options { retain: engine::Retain::Differences, ..engine::Options::default() };
        Ok(Some(Engine::new(compiled, self.overrides.clone(), &self.user_pairs, options)?))
    }
}

/// Starts comparing: `engine` is [`Prepared::engine`]'s, `index` the reference indexes of
/// every object of the run (§4.5, read by `pieces::collect_holding`), `found` what [`prepare`] found.
/// The [`Compare`] half compares a batch while the [`Run`] half reports the one before.
/// `object_correlations`: record which templates each object matched (see
/// [`Settings::object_correlations`]).
/// `view`: what `lookupCR(s)` see ([`view`]) when batches are compared apart; `None` when
/// the reference calls no lookup, or when the run is one batch (the view is then the batch's).
pub fn start<'e>(
    engine: Option<&'e Engine<'e>>,
    index: ReferenceIndex,
    found: Drift,
    object_correlations: bool,
    view: Option<View>,
) -> (Compare<'e>, Run<'e>) {
    let match_count = match engine {
        Some(engine) => {
            let mut counts = vec![0; engine.compiled().templates.len()];
            for i in index.reference_only(engine.metas()) {
                counts[i] += 1;
            }
            counts
        }
        None => Vec::new(),
    };
    let reference_only = engine.map(|e| index.reference_only(e.metas())).unwrap_or_default();
    let apart = view.is_some();
    let run =
        Run { engine, reference_only, match_count, warnings: Vec::new(), drift: found, object_correlations, view };
    (Compare { engine, index, apart }, run)
}

/// What `lookupCR(s)` see over the run, before any object is compared: the members among
/// `docs` (every document of the run that [`Engine::may_hold_view_member`] lets through, in
/// input order), as the comparison sees them.
pub fn view<'d>(engine: &Engine<'_>, docs: impl IntoIterator<Item = &'d document::Document>) -> View {
    let members: Vec<serde_json::Value> = docs
        .into_iter()
        .filter(|d| engine.in_view(&d.object))
        .map(|d| without_tool_annotations(d.object.clone(), d))
        .collect();
    engine.view_with_objects(&members)
}

/// Compares batches of the run's documents with the reference.
pub struct Compare<'e> {
    engine: Option<&'e Engine<'e>>,
    index: ReferenceIndex,
    /// Batches are compared apart while lookups see the run: the CRs the view connects are
    /// left to [`Run::batch`], which meets the batches in input order.
    apart: bool,
}

impl Compare<'_> {
    /// Compares the documents of `coll` (one batch of the run); `None` without a reference
    /// that compiled. With `take`, the objects move into the comparison (the documents keep
    /// `null`): no later pass of the batch reads them. With `parallel`, the objects are
    /// compared in parallel, else on the calling thread.
    pub fn batch(&self, coll: &mut Collection, take: bool, parallel: bool) -> Option<Comparison> {
        let engine = self.engine?;
        let sources = &coll.sources;
        let crs: Vec<Cr> = coll
            .documents
            .iter_mut()
            .map(|d| {
                let object = if take { std::mem::take(&mut d.object) } else { d.object.clone() };
                Cr {
                    id: d.identity.cr_id(),
                    object: without_tool_annotations(object, d),
                    source: sources[d.source].path.display(),
                }
            })
            .collect();
        Some(if self.apart {
            engine.compare_batch_independent(crs, &self.index, parallel)
        } else {
            engine.compare_batch(crs, &self.index, parallel)
        })
    }
}

/// Reports the drift pass' findings, one batch of documents at a time (see [`Run::batch`]);
/// what is kept between batches is small: findings, correlations and match counts, never the
/// objects.
pub struct Run<'e> {
    engine: Option<&'e Engine<'e>>,
    /// Templates matched by reference only (§4.5), for the summary.
    reference_only: Vec<usize>,
    /// Per compiled template: reference-only matches and the objects it won so far.
    match_count: Vec<usize>,
    warnings: Vec<String>,
    drift: Drift,
    object_correlations: bool,
    /// What lookups see, when batches are compared apart (see [`start`]).
    view: Option<View>,
}

impl Run<'_> {
    /// The findings of one batch `coll`, compared as `comparison` ([`Compare::batch`]); returns
    /// them.
    pub fn batch(
        &mut self,
        coll: &Collection,
        comparison: Option<&mut Comparison>,
        files: &mut Files,
    ) -> &[Diagnostic] {
        let first = self.drift.diagnostics.len();
        let (Some(engine), Some(comparison)) = (self.engine, comparison) else { return &[] };
        if let Some(view) = &mut self.view {
            // The CRs lookups connect, on this thread, batch after batch in input order.
            engine.compare_pending(comparison, view);
        }
        if self.object_correlations {
            let correlations = correlations::correlations(engine.compiled(), comparison, coll);
            self.drift.correlations.objects.extend(correlations.objects);
        }
        self.drift.diagnostics.extend(findings::object_findings(engine, comparison, coll, files, self.view.as_ref()));
        for (total, n) in self.match_count.iter_mut().zip(&comparison.match_count) {
            *total += n;
        }
        self.warnings.append(&mut comparison.warnings);
        &self.drift.diagnostics[first..]
    }

    /// The run's findings: the batches' and the reference's summary (missing objects,
    /// component rules), which needs every object's match; the correlations and the pin stay
    /// for [`Run::into_drift`].
    fn finish_run(&mut self) -> Vec<Diagnostic> {
        if let Some(engine) = self.engine {
            let compiled = engine.compiled();
            let totals = Comparison {
                crs: Vec::new(),
                results: Vec::new(),
                reference_only: std::mem::take(&mut self.reference_only),
                match_count: std::mem::take(&mut self.match_count),
                warnings: std::mem::take(&mut self.warnings),
                pending: Vec::new(),
            };
            self.drift.correlations.components =
                correlations::correlations(compiled, &totals, &Collection::default()).components;
            self.drift.diagnostics.extend(findings::summary_findings(compiled, &totals));
        }
        std::mem::take(&mut self.drift.diagnostics)
    }

    /// What the run keeps besides its findings: the correlations and the reference's pin.
    pub fn into_drift(self) -> Drift {
        self.drift
    }
}

impl Stage for Compare<'_> {
    fn stage(&self, coll: &mut Collection, take: bool, parallel: bool) -> Option<Box<dyn Any + Send>> {
        self.batch(coll, take, parallel).map(|c| Box::new(c) as Box<dyn Any + Send>)
    }
}

impl Pass for Run<'_> {
    fn name(&self) -> &'static str {
        "drift"
    }

    fn stages(&self) -> bool {
        true
    }

    fn batch(&mut self, batch: Batch<'_>, files: &mut Files) -> Result<&[Diagnostic], PassError> {
        let comparison = batch.staged.and_then(|s| s.downcast_mut::<Comparison>());
        Ok(Run::batch(self, batch.coll, comparison, files))
    }

    fn finish(&mut self, _files: &mut Files) -> Result<Vec<Diagnostic>, PassError> {
        Ok(self.finish_run())
    }
}

/// Whether a YAML text may give an object a reference index key (§4.5): only objects with
/// `ownerReferences` or `subjects` do, and those keys can only be spelt without their letters
/// in a double-quoted escape (`\x..`, `\u....`), which needs a backslash. A text without
/// either name and without a backslash adds nothing to the index, so it need not be parsed to
/// build it.
pub fn may_hold_reference_keys(text: &str) -> bool {
    REFERENCE_KEY_WORDS.iter().any(|k| text.contains(k)) || driftlint_yaml::may_escape(text)
}

/// The words of [`may_hold_reference_keys`] (besides a backslash).
pub const REFERENCE_KEY_WORDS: [&str; 2] = ["ownerReferences", "subjects"];

/// The object as the reference should see it: without driftlint's own suppression
/// annotation, nor the origin annotation kustomize adds to its output — neither is part of
/// the configuration under review, so neither may show up as an unexpected field.
fn without_tool_annotations(mut object: serde_json::Value, doc: &document::Document) -> serde_json::Value {
    let kustomized = doc.origin.as_ref().is_some_and(|o| o.kind == document::OriginKind::Kustomize);
    if let Some(meta) = object.get_mut("metadata").and_then(serde_json::Value::as_object_mut)
        && let Some(annotations) = meta.get_mut("annotations").and_then(serde_json::Value::as_object_mut)
    {
        annotations.shift_remove(driftlint_core::document::SUPPRESS_ANNOTATION);
        if kustomized {
            annotations.shift_remove("config.kubernetes.io/origin");
        }
        if annotations.is_empty() {
            meta.shift_remove("annotations");
        }
    }
    object
}

/// Opens the configured reference; `start` is where `git:` locations find their repository.
pub fn open_reference(location: &Location, start: &std::path::Path) -> Result<Opened, CheckError> {
    driftlint_reference::open(location, start).map_err(|e| match e {
        driftlint_reference::OpenError::NotFound(p) => CheckError::ReferenceNotFound(p),
        driftlint_reference::OpenError::Git(g) => CheckError::Git(g),
        refused @ driftlint_reference::OpenError::Refused(_) => CheckError::ReferenceRefused(refused.to_string()),
    })
}

/// The `reference-changed` finding for a lock that `require-lock: true` asks for and that does
/// not exist: without it, nothing says whether the reference is the reviewed one.
pub fn missing_lock(config: &crate::config::Config, files: &mut Files) -> Diagnostic {
    let path = config.file.clone().unwrap_or_else(|| crate::config::FILE_NAME.into());
    files.preset(path.clone(), config.text.clone());
    Diagnostic::new(
        Rule::ReferenceChanged,
        Rule::ReferenceChanged.default_severity(),
        SourcePath::File(path),
        config.spans.get("require-lock").cloned(),
        format!(
            "{} is missing, but the configuration requires one (`require-lock: true`)",
            driftlint_reference::lock::FILE_NAME
        ),
    )
    .with_help(format!(
        "restore {0} from the base branch, or review the reference and run `driftlint reference pin` to write it",
        driftlint_reference::lock::FILE_NAME
    ))
}
