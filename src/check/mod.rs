//! `driftlint check`: the linter pipeline.
//!
//! inputs → documents → passes (drift against a reference: [`drift`]; schemas: [`driftlint_schema`];
//! Crossplane Compositions: [`driftlint_crossplane`]) → rule levels → suppressions → sorted
//! diagnostics.
//!
//! The pipeline returns data ([`Report`]); printing and exit codes belong to the CLI, and the
//! output formats to [`crate::report`]. A problem the user fixes by editing a checked file or
//! the reference is a diagnostic; a problem that stops the run (an unreadable diff config, a
//! git location that does not resolve) is a [`CheckError`].
//!
//! Without a reference the drift pass does not run and the schema and Composition passes are
//! the check (a kind without a schema is still flagged, so an empty check is not silent).

mod batch;
pub mod drift;
mod pieces;
pub mod suppress;
pub mod warm;

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use driftlint_admission::pass as admission;
use driftlint_core::diagnostic::Diagnostic;
use driftlint_core::document;
use driftlint_core::input::{self, Source, SourcePath, WalkOptions};
use driftlint_core::pass::Pass;
use driftlint_reference::engine;

use crate::config::{self, Settings};

/// The outcome of a check.
#[derive(Debug, Default)]
pub struct Report {
    /// Sorted by path, position and rule.
    pub diagnostics: Vec<Diagnostic>,
    /// The texts the diagnostics point into: inputs, reference files, kustomize origins.
    pub sources: Vec<Source>,
    /// Ids of the objects checked (JUnit lists one test case per object); only with
    /// [`Settings::object_ids`].
    pub objects: Vec<String>,
    /// Which templates the objects matched, for changed-file scopes (the objects' only with
    /// [`Settings::object_correlations`]).
    pub correlations: driftlint_reference::drift::correlations::Correlations,
    /// For a reference read from git: where its files are in the work tree (reports point
    /// there, since `git:REV:path` is no file a viewer can open).
    pub pinned: Option<driftlint_reference::Pinned>,
    /// The manifest files checked (paths as reported), and kustomize's patch files (checked as
    /// patches): what [`named::keep_named`] tells from the reference's, the configuration's
    /// and the policies' files.
    pub inputs: Vec<PathBuf>,
    /// What the schema pass validated, when it ran.
    pub coverage: Option<driftlint_schema::coverage::Coverage>,
}

/// A check that could not run.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("reference {} does not exist", .0.display())]
    ReferenceNotFound(PathBuf),
    /// A reference directory's metadata file that leads out of it.
    #[error("{0}")]
    ReferenceRefused(String),
    #[error("invalid diff config {}: {message}", path.display())]
    DiffConfig { path: PathBuf, message: String },
    #[error("invalid overrides file {}: {message}", path.display())]
    Overrides { path: PathBuf, message: String },
    #[error("invalid exclude glob `{glob}`: {message}")]
    Exclude { glob: String, message: String },
    #[error("invalid policy-inputs glob `{glob}`: {message}")]
    PolicyInputs { glob: String, message: String },
    #[error(transparent)]
    Manual(#[from] engine::ManualError),
    #[error(transparent)]
    Git(#[from] driftlint_git::Error),
    #[error(transparent)]
    Lock(#[from] driftlint_reference::lock::LockError),
    #[error("policies: {0}")]
    Policy(#[from] driftlint_policy::PolicyError),
    /// A pass that could not go on (its message names the pass).
    #[error(transparent)]
    Pass(#[from] driftlint_core::pass::PassError),
    /// The caller asked the check to stop (`check_sources_warm`'s `cancelled`).
    #[error("the check was cancelled")]
    Cancelled,
}

/// The `metadata.yaml` a reference path names: the file itself, or `metadata.yaml` in a
/// directory.
pub fn metadata_path(reference: &Path) -> PathBuf {
    driftlint_reference::location::metadata_path(reference)
}

/// Runs the linter on the inputs `settings.paths` name.
pub fn check(settings: &Settings) -> Result<Report, CheckError> {
    // The inputs are read on a thread of their own while this one opens and compiles the
    // reference (which they do not depend on; its compiled templates stay on this thread).
    // The copy kept for a run done again (see [`run`]) is made there too: on a large stream
    // it is milliseconds of copying that would otherwise wait for both.
    let read = || -> Result<(input::Collected, Again), CheckError> {
        let collected = read_inputs(settings)?;
        prewarm_builtins(settings, &collected.sources);
        let again = Again::of(&collected);
        Ok((collected, again))
    };
    std::thread::scope(|scope| {
        // The stack every thread of the run has (the reading thread only reads, but the
        // walk's code is the same whoever runs it).
        let spawned =
            std::thread::Builder::new().name("driftlint-read".into()).stack_size(STACK_SIZE).spawn_scoped(scope, read);
        let early = Early::prepare(settings);
        let (collected, again) = match spawned {
            Ok(reading) => reading.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?,
            Err(_) => read()?,
        };
        run(settings, collected, again, None, Some(early?), &|| false)
    })
}

/// The stack of every thread that parses or evaluates what a repository brings (the main
/// work thread, see `src/main.rs`, rayon's pool, the thread reading the inputs): regorus
/// recurses once per rule a rule depends on and per generator statement, and the policy
/// checks bound those (`policy::compile::MAX_RULE_DEPTH`) to what fits here. Only the pages
/// used are committed.
pub const STACK_SIZE: usize = 64 << 20;

/// The inputs `settings` names, read from the work tree (and standard input). Named files
/// (pre-commit's form) show what they are responsible for; a walk names, in one note, the
/// directories it passed over that hold manifests.
fn read_inputs(settings: &Settings) -> Result<input::Collected, CheckError> {
    if !settings.named.is_empty() {
        return Ok(collect_inputs(settings));
    }
    let (mut collected, mut skipped) = input::load_sources_noting_skipped(&settings.paths, &walk_options(settings));
    skipped.extend(excluded_dirs(settings, &collected.sources)?);
    collected.diagnostics.extend(input::skipped_note(&skipped));
    Ok(collected)
}

/// The reference opened and compiled before a run's inputs are known (see [`check`]), with
/// the texts it put in the run's cache of files.
struct Early {
    /// Its directory, which the walk's inputs leave out.
    dir: Option<PathBuf>,
    prepared: Option<(drift::Prepared, drift::Drift)>,
    files: driftlint_core::locate::Files,
}

impl Early {
    fn prepare(settings: &Settings) -> Result<Early, CheckError> {
        let mut files = driftlint_core::locate::Files::default();
        let Some(location) = &settings.reference else { return Ok(Early { dir: None, prepared: None, files }) };
        let opened = drift::open_reference(location, &settings.git_start)?;
        let dir = opened.work_dir.as_deref().and_then(absolute);
        let prepared = drift::prepare(settings, location, opened, &mut files)?;
        Ok(Early { dir, prepared: Some(prepared), files })
    }
}

/// How directories are walked for `settings`.
pub fn walk_options(settings: &Settings) -> WalkOptions {
    let mut walk = WalkOptions { respect_ignore_files: !settings.no_ignore, ..WalkOptions::default() };
    if !settings.include.is_empty() {
        walk.include = settings.include.clone();
    }
    walk
}

/// Reads the inputs `settings.paths` name from the work tree (and standard input).
pub fn collect_inputs(settings: &Settings) -> input::Collected {
    input::load_sources(&settings.paths, &walk_options(settings))
}

/// How much input text one batch of [`check_sources`] parses at most (a batch holds at least
/// one source): the parsed trees of a batch are many times its text, and only one batch's
/// are in memory at a time (and a few batches staged ahead: see `batch::run`).
const BATCH_BYTES: usize = 8 * 1024;
/// How many sources one batch holds at most.
const BATCH_SOURCES: usize = 32;
/// About how much text one run of a cut text holds (a run is a batch: `pieces`). Larger than
/// a batch of files: a run's batch costs the same hand-offs between the staging threads and
/// the reporting one whatever it holds, and on a stream those were a tenth of the wall time
/// with runs of 8 KiB (docs/performance.md); its trees are still a small part of the memory a
/// cut text takes (the text itself is held whole).
const RUN_BYTES: usize = 32 * 1024;
/// How many parsed YAML nodes the batches staged ahead may hold together (`batch::run`):
/// twice the loader's per-text budget ([`driftlint_yaml::Limits::max_nodes`]), so that a
/// near-cap file can be staged ahead beside the one being reported, whatever `--jobs` is.
/// Also the cap on the trees of a run that holds every input at once (`batch::Passes::whole`).
const NODE_POOL: usize = 4_000_000;

/// The run's [`NODE_POOL`]; `DRIFTLINT_NODE_POOL` (hidden, for tests) sets another.
fn node_pool() -> usize {
    std::env::var("DRIFTLINT_NODE_POOL").ok().and_then(|v| v.parse().ok()).unwrap_or(NODE_POOL)
}

/// The inputs `check` takes as manifests (less the excluded ones, the reference's own files,
/// Helm charts' sources and tools' files), with the notes on those left out and the read
/// errors: what `driftlint ls` lists, so that it lists exactly what `check` checks.
pub fn manifest_inputs(
    settings: &Settings,
    collected: input::Collected,
) -> Result<driftlint_core::input::layout::Split, CheckError> {
    let opened = match &settings.reference {
        Some(location) => Some(drift::open_reference(location, &settings.git_start)?),
        None => None,
    };
    let reference_dir = opened.as_ref().and_then(|o| o.work_dir.as_deref()).and_then(absolute);
    let policy_inputs = policy_inputs(settings)?;
    let mut split = manifest_sources(settings, collected.sources, reference_dir.as_deref(), policy_inputs.as_ref())?;
    let mut diagnostics = collected.diagnostics;
    diagnostics.append(&mut split.notes);
    split.notes = diagnostics;
    Ok(split)
}

/// Runs the linter on inputs already read (from the work tree, or from a git state).
///
/// The sources are parsed and checked a batch at a time (in input order; each batch's
/// sources in parallel): every pass reports a batch's documents, then they are dropped, so
/// memory holds the texts and the findings, not every object's tree. What crosses documents
/// is gathered first from the few texts that can hold it (reference indexes, CRD/XRD
/// definitions, the objects `lookupCR(s)` can return); what needs every document at once
/// (combined policy input, lookups whose apiVersion or kind is computed) makes the whole
/// input one batch.
pub fn check_sources(settings: &Settings, collected: input::Collected) -> Result<Report, CheckError> {
    let again = Again::of(&collected);
    run(settings, collected, again, None, None, &|| false)
}

/// [`check_sources`] on passes prepared before ([`warm::Warm`], made for `settings`): the same
/// findings, without opening and compiling the reference, the schemas and the policies again.
/// One check at a time on a `Warm` (the schema pass's run-wide state is the registry's).
/// `cancelled` is asked before each batch: once it says so, the check stops with
/// [`CheckError::Cancelled`] (an editor's check that a newer text has superseded).
pub fn check_sources_warm(
    settings: &Settings,
    warm: &mut warm::Warm,
    collected: input::Collected,
    cancelled: &dyn Fn() -> bool,
) -> Result<Report, CheckError> {
    let again = Again::of(&collected);
    run(settings, collected, again, Some(warm), None, cancelled)
}

/// The inputs kept for a run done again: a large text is cut into runs before it is known to
/// load as one load of it does (saving a load of every run ahead of the checks); in the rare
/// text where a run turns out not to, the batches stop and the run is done again from its
/// inputs, with that text verified before it is cut. The inputs are kept for that only when
/// a text is large enough to cut.
struct Again(Option<input::Collected>);

impl Again {
    fn of(collected: &input::Collected) -> Again {
        Again(
            pieces::Sizes::of_run(RUN_BYTES)
                .is_some_and(|sizes| collected.sources.iter().any(|s| s.text.len() >= sizes.from))
                .then(|| collected.clone()),
        )
    }
}

/// [`check_sources`], with what `warm` holds in place of what a run prepares, or with the
/// reference prepared `early`.
fn run(
    settings: &Settings,
    collected: input::Collected,
    Again(mut again): Again,
    warm: Option<&warm::Warm>,
    mut early: Option<Early>,
    cancelled: &dyn Fn() -> bool,
) -> Result<Report, CheckError> {
    let mut inputs = (collected, again.is_some());
    loop {
        // Done again at most once: a run that cuts only verified texts always reports.
        match run_cut(settings, inputs.0, warm, early.take(), inputs.1, cancelled)? {
            Some(report) => return Ok(report),
            None => inputs = (again.take().unwrap_or_default(), false),
        }
    }
}

/// One run of the checks; `unverified`: large texts are cut before they are verified
/// ([`pieces::plan`]); `None` when a run of one did not load as part of the whole text.
fn run_cut(
    settings: &Settings,
    collected: input::Collected,
    warm: Option<&warm::Warm>,
    early: Option<Early>,
    unverified: bool,
    cancelled: &dyn Fn() -> bool,
) -> Result<Option<Report>, CheckError> {
    if warm.is_none() && early.is_none() {
        prewarm_builtins(settings, &collected.sources);
    }
    // The reference is opened first (unless it was, early): its own directory is never read
    // as manifests.
    let early = match (early, warm) {
        (Some(early), _) => Some(early),
        (None, None) => Some(Early::prepare(settings)?),
        (None, Some(_)) => None,
    };
    let reference_dir = match (warm, &early) {
        (Some(w), _) => w.reference_dir.clone(),
        (None, Some(early)) => early.dir.clone(),
        (None, None) => None,
    };
    let (early_prepared, early_files) = match early {
        Some(Early { prepared, files, .. }) => (prepared, files),
        None => (None, driftlint_core::locate::Files::default()),
    };
    let policy_inputs = policy_inputs(settings)?.map(std::sync::Arc::new);
    let driftlint_core::input::layout::Split { kept: mut sources, notes, patches, roles, shown } =
        manifest_sources(settings, collected.sources, reference_dir.as_deref(), policy_inputs.as_deref())?;
    let inputs: Vec<PathBuf> = sources
        .iter()
        .filter_map(|s| match &s.path {
            SourcePath::File(p) => Some(p.clone()),
            SourcePath::Stdin => None,
        })
        .collect();
    let options = document::Options { origin_root: settings.origin_root.clone(), policy_inputs, nodes: None };
    let mut diags = collected.diagnostics;
    diags.extend(notes);
    // Inputs that could not be read are named as the readable ones are (`x.yaml`, not `./x.yaml`).
    for d in &mut diags {
        if let SourcePath::File(p) = &mut d.primary.path {
            *p = driftlint_git::states::strip_dot(std::mem::take(p));
        }
    }
    let mut files = early_files;
    for kustomization in shown {
        if let SourcePath::File(p) = kustomization.path {
            files.preset(p, kustomization.text);
        }
    }
    if let Some(w) = warm {
        w.preset(&mut files);
    }

    // The passes, prepared: each reports a batch's documents in the loop below.
    let (prepared, found) = match early_prepared {
        Some((prepared, found)) => (Some(prepared), Some(found)),
        None => (None, warm.and_then(warm::Warm::found)),
    };
    let engine = match warm.map_or(prepared.as_ref(), |w| w.prepared.as_ref()) {
        Some(p) => p.engine()?,
        None => None,
    };
    // What crosses files is read first from the few texts that can hold it, parsed once for
    // both: §4.5's reference indexes (they cover every object of the run before any is
    // compared) and the CRD/XRD definitions among the inputs.
    // With `lookupCR(s)` in the reference, the objects they can return are read there too
    // (the view: a few kinds, in input order), so batches stay apart.
    let with_reference = engine.is_some();
    let policy_work = settings.policy.has_work();
    // A view of every object (lookups with computed kinds) is the whole input: one batch.
    let whole = (policy_work && settings.policy.combine)
        || engine.as_ref().is_some_and(|e| e.uses_lookups() && !e.view_is_sparse());
    let lookups = engine.as_ref().filter(|e| e.uses_lookups() && !whole);
    let batches = if whole {
        vec![pieces::Batch { sources: 0..sources.len(), ..pieces::Batch::default() }]
    } else {
        // A large text is cut into runs of documents, each a batch (`pieces`).
        pieces::plan(&sources, batches(&sources), &options, pieces::Sizes::of_run(RUN_BYTES), unverified)
    };
    // The configured (trusted) schemas are read before the inputs' pre-pass: the admission
    // policies they hold decide what the pre-pass gathers.
    let mut trusted = match warm {
        None => {
            // Which kinds the inputs name picks what is compiled of the configured locations
            // (a scan of every text: done only when there are locations).
            let used = if settings.schemas.is_empty() {
                None
            } else {
                driftlint_schema::load::kinds_named(sources.iter().map(|s| s.text.as_str()))
            };
            driftlint_schema::load::load_trusted(&settings.schemas, &settings.git_start, used.as_ref())?
        }
        Some(_) => driftlint_schema::load::Loaded::default(),
    };
    let trusted_policies = match warm {
        None => std::mem::take(&mut trusted.admission),
        Some(w) => w.trusted_admission.clone(),
    };
    // ValidatingAdmissionPolicies among the inputs or the configured schemas: their context
    // (policies, bindings, Namespaces, CRDs, and with `paramKind` any object as a parameter) is
    // read first.
    let admission = !trusted_policies.is_empty() || sources.iter().any(|s| admission::may_hold_policies(&s.text));
    let parameterised = admission
        && (trusted_policies.iter().any(|(v, _, _)| v["spec"].get("paramKind").is_some())
            || sources.iter().any(|s| s.text.contains("paramKind")));
    // The pre-pass and the batches draw from one pool of nodes.
    let nodes = driftlint_yaml::NodePool::new(node_pool());
    let mut early = pieces::collect_holding(
        &sources,
        &batches,
        &options,
        &pre_pass_holding(
            with_reference,
            lookups.map_or(Some(Vec::new()), |e| e.view_member_words()),
            admission.then_some(parameterised),
        ),
        |doc| {
            driftlint_schema::defines_schemas(&doc.node)
                || lookups.is_some_and(|e| e.in_view(&doc.object))
                || (admission && admission::is_context(doc, parameterised))
        },
        with_reference,
        &nodes,
    );
    let mut admission_pass = admission.then(|| {
        admission::AdmissionPass::new(
            trusted_policies,
            &early.coll,
            early.coll.documents.iter().filter(|d| admission::is_context(d, parameterised)),
        )
    });
    // Their texts are kept for them, as for the definitions' problems below.
    let early_paths: Vec<SourcePath> = early.diagnostics.iter().map(|d| d.primary.path.clone()).collect();
    diags.extend(std::mem::take(&mut early.diagnostics));
    // A warm registry, unless the run's sources define schemas it was not made with.
    let warm_registry = warm.and_then(|w| w.registry_for(&early.coll));
    let schemas = match (warm, &warm_registry) {
        (Some(w), Some(_)) => Schemas { registry: None, diagnostics: w.schema_diagnostics.clone() },
        (Some(_), None) => {
            let mut trusted = driftlint_schema::load::load_trusted(&settings.schemas, &settings.git_start, None)?;
            trusted.admission.clear();
            schema_setup(settings, trusted, &early.coll, &mut files)?
        }
        (None, _) => schema_setup(settings, trusted, &early.coll, &mut files)?,
    };
    let registry = match warm_registry {
        Some(warm) => warm,
        None => schemas.registry.as_ref().map(|(r, m)| (r, *m)),
    };
    let mut policy = match (policy_work, warm) {
        (true, None) => {
            Some(driftlint_policy::conftest::Pass::prepare(&settings.policy, &settings.git_start, &mut files)?)
        }
        (true, Some(w)) => w.policy(),
        (false, _) => None,
    };
    let view = lookups.map(|e| drift::view(e, &early.coll.documents));
    let index = early.index;
    drop(early.coll);
    let (compare, mut drift) = match found {
        Some(found) => {
            let (compare, run) = drift::start(engine.as_ref(), index, found, settings.object_correlations, view);
            (compare, Some(run))
        }
        None => (drift::start(None, index, drift::Drift::default(), false, None).0, None),
    };
    // Inputs whose texts findings made before the batches point into.
    let keep = schemas
        .diagnostics
        .iter()
        .flat_map(|d| std::iter::once(&d.primary).chain(&d.secondary))
        .map(|l| l.path.clone())
        .chain(early_paths)
        .chain(admission_pass.iter().flat_map(|p| p.policy_files().cloned()))
        .collect();
    // kustomize's patches, checked as patches of the kinds they patch (their files are no
    // manifests); their texts are kept for the findings in them.
    if let Some((registry, _)) = registry {
        for patch in &patches {
            let found = driftlint_schema::pass::patch(registry, patch);
            if !found.is_empty()
                && let SourcePath::File(p) = &patch.source.path
            {
                files.preset(p.clone(), patch.source.text.clone());
            }
            diags.extend(found);
        }
    }
    let (mut schema_pass, mut composition_pass) = match registry {
        Some((registry, mode)) => (
            Some(
                driftlint_schema::pass::SchemaPass::new(registry, mode, schemas.diagnostics)
                    .with_kustomize_sets(kustomize_sets(&roles)),
            ),
            Some(driftlint_crossplane::pass::CompositionPass::new(registry, mode)),
        ),
        None => (None, None),
    };
    // The policy and admission passes read the objects after the drift pass has staged a batch.
    let keep_objects = policy.is_some() || admission_pass.is_some();
    // The passes in the order their findings are gathered (the sort below decides the order
    // shown).
    let passes = in_order(&mut drift, &mut schema_pass, &mut composition_pass, &mut admission_pass, &mut policy);
    let mut batched = batch::Found { objects: settings.object_ids.then(Vec::new), ..batch::Found::default() };
    let batch_passes = batch::Passes {
        stage: &compare,
        keep_objects,
        passes,
        files: &mut files,
        options: &options,
        keep,
        nodes,
        // The whole input in one batch holds every tree at once: as many nodes as the pool.
        whole: whole.then(node_pool),
        cancelled,
    };
    batch::run(&mut sources, batches, batch_passes, &mut batched)?;
    if batched.recut {
        return Ok(None);
    }
    let batch::Found {
        parse: parse_diags,
        suppression: mut suppression_diags,
        objects,
        annotations,
        documents,
        rendered,
        deferred: _,
        recut: _,
    } = batched;

    diags.append(&mut summed_up_data_files(parse_diags));
    // Only for a walk (named files are what the user chose) and a run with no policy to read
    // other documents.
    if documents == 0 && !policy_work && settings.paths.iter().any(|p| p.is_dir()) {
        diags.push(no_object(&inputs, &settings.paths));
    }
    let passes = in_order(&mut drift, &mut schema_pass, &mut composition_pass, &mut admission_pass, &mut policy);
    for pass in passes {
        let mut found = pass.finish(&mut files)?;
        // The drift findings are most of a large run's (and the others often none yet): a
        // pass's findings keep their buffer, those before go in front of them when its spare
        // room holds them, rather than every finding being copied into a new one.
        if diags.len() <= found.capacity() - found.len() {
            found.splice(0..0, std::mem::take(&mut diags));
            diags = found;
        } else {
            diags.append(&mut found);
        }
    }
    let (correlations, pinned) = match drift {
        Some(run) => {
            let drift = run.into_drift();
            (drift.correlations, drift.pinned)
        }
        None => (driftlint_reference::drift::correlations::Correlations::default(), None),
    };
    let coverage = schema_pass.map(|p| p.coverage);
    diags.append(&mut suppression_diags);
    batch::apply_rendered(&mut diags, &rendered);

    suppress::apply_levels(&mut diags, &settings.rules);
    suppress::apply_suppressions(&mut diags, &annotations, &settings.ignore);
    sort(&mut diags);
    driftlint_core::diagnostic::number_occurrences(&mut diags);
    // Files whose texts were dropped (no finding points into them) leave the report: it
    // holds the texts that findings are shown in.
    sources.retain(|s| !(s.text.is_empty() && matches!(s.path, SourcePath::File(_))));
    sources.extend(files.into_sources());
    // kustomize's patch files are checked inputs too (as patches): their findings are theirs.
    let mut inputs = inputs;
    inputs.extend(patches.iter().filter(|p| p.inline.is_none()).filter_map(|p| match &p.source.path {
        SourcePath::File(path) => Some(path.clone()),
        SourcePath::Stdin => None,
    }));
    Ok(Some(Report {
        diagnostics: diags,
        sources,
        objects: objects.unwrap_or_default(),
        correlations,
        pinned,
        inputs,
        coverage,
    }))
}

/// The notes on documents that are no Kubernetes objects summed up, rather than one per
/// document (a directory of dashboards, a tree of one conformance report per directory would
/// otherwise fill the report): documents of one tool's type (`kind.x-k8s.io/v1alpha4
/// Cluster`) get one note for the run when more than one file has them; plain data and
/// fragments one note per directory with more than one such file.
fn summed_up_data_files(diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    use std::collections::BTreeMap;
    // The group a note belongs to, and what the summary says the files hold.
    let group_of = |d: &Diagnostic| -> Option<(String, String)> {
        if d.rule != driftlint_core::diagnostic::Rule::NotKubernetesObject
            || d.severity != driftlint_core::diagnostic::Severity::Note
            || d.primary.range.is_none()
        {
            return None;
        }
        let SourcePath::File(p) = &d.primary.path else { return None };
        let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
        let dir = if dir.as_os_str().is_empty() { ".".to_string() } else { dir.display().to_string() };
        // `document N is `TYPE`, what it is, not a Kubernetes object; skipped`.
        if d.message.ends_with(document::NOT_AN_OBJECT)
            && let Some(rest) = d.message.strip_prefix("document ")
            && let Some((_, why)) = rest.split_once(" is `")
        {
            let why = why.strip_suffix(document::NOT_AN_OBJECT).unwrap_or(why).trim_end_matches([',', ' ']);
            return Some((format!("type {why}"), format!("hold `{why}, not Kubernetes objects")));
        }
        if d.message.contains(document::PLAIN_DATA) || d.message.ends_with(document::NOT_AN_OBJECT) {
            return Some((
                format!("dir {dir}"),
                format!("in {dir} hold no Kubernetes object (YAML/JSON data, other tools' files, fragments)"),
            ));
        }
        None
    };
    let mut files: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for d in &diags {
        let (Some((key, _)), SourcePath::File(p)) = (group_of(d), &d.primary.path) else { continue };
        let list = files.entry(key).or_default();
        if list.last() != Some(p) {
            list.push(p.clone());
        }
    }
    let mut out = Vec::with_capacity(diags.len());
    for d in diags {
        let Some((key, says)) = group_of(&d) else {
            out.push(d);
            continue;
        };
        let Some(list) = files.get(&key) else { continue };
        if list.len() < 2 {
            out.push(d);
            continue;
        }
        let list = files.remove(&key).unwrap_or_default();
        let shown: Vec<String> = list.iter().take(5).map(|p| p.display().to_string()).collect();
        let more = if list.len() > 5 { format!(" and {} more", list.len() - 5) } else { String::new() };
        out.push(
            Diagnostic::of(
                driftlint_core::diagnostic::Rule::NotKubernetesObject,
                SourcePath::File(list[0].clone()),
                None,
                format!("{} files {says}; skipped: {}{more}", list.len(), shown.join(", ")),
            )
            .with_help("leave them out with `exclude:` to silence this note"),
        );
    }
    out
}

/// The note of a run whose inputs held no Kubernetes object (or that found no input at all):
/// "no problems found" alone would read as a clean bill. The directories the walk passed over
/// have a note of their own ([`input::skipped_note`]).
fn no_object(inputs: &[PathBuf], roots: &[PathBuf]) -> Diagnostic {
    let at = inputs.first().or_else(|| roots.iter().find(|p| p.is_dir())).cloned().unwrap_or_default();
    let message = match inputs.len() {
        0 => "no Kubernetes object found: no manifest file was found to check; nothing was validated".to_string(),
        n => format!("no Kubernetes object found in the {n} file(s) checked: nothing was validated"),
    };
    Diagnostic::of(driftlint_core::diagnostic::Rule::NotKubernetesObject, SourcePath::File(at), None, message)
        .with_help("name the directories that hold the manifests (hidden and ignored directories are not walked)")
}

/// The passes that run, in the order their findings are gathered: drift, schemas,
/// Compositions, admission policies, Rego policies.
fn in_order<'a, 'e>(
    drift: &'a mut Option<drift::Run<'e>>,
    schema: &'a mut Option<driftlint_schema::pass::SchemaPass<'e>>,
    composition: &'a mut Option<driftlint_crossplane::pass::CompositionPass<'e>>,
    admission: &'a mut Option<admission::AdmissionPass>,
    policy: &'a mut Option<driftlint_policy::conftest::Pass>,
) -> Vec<&'a mut (dyn Pass + 'e)> {
    let mut passes: Vec<&'a mut (dyn Pass + 'e)> = Vec::new();
    if let Some(pass) = drift.as_mut() {
        passes.push(pass);
    }
    if let Some(pass) = schema.as_mut() {
        passes.push(pass);
    }
    if let Some(pass) = composition.as_mut() {
        passes.push(pass);
    }
    if let Some(pass) = admission.as_mut() {
        passes.push(pass);
    }
    if let Some(pass) = policy.as_mut() {
        passes.push(pass);
    }
    passes
}

/// The ranges of `sources` checked together: consecutive sources up to [`BATCH_BYTES`] of text
/// or [`BATCH_SOURCES`] files.
fn batches(sources: &[Source]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, s) in sources.iter().enumerate() {
        if i > start && (bytes + s.text.len() > BATCH_BYTES || i - start >= BATCH_SOURCES) {
            out.push(start..i);
            (start, bytes) = (i, 0);
        }
        bytes += s.text.len();
    }
    if start < sources.len() {
        out.push(start..sources.len());
    }
    out
}

/// Which inputs' documents that are no Kubernetes objects the policy pass takes (conftest
/// evaluates any YAML or JSON document): files named on the command line (and standard input),
/// and files matched by `policy-inputs:` (gitignore syntax, relative to the configuration
/// file, as `exclude:`). `None` without a policy pass: nothing changes for the other passes.
fn policy_inputs(settings: &Settings) -> Result<Option<document::PolicyInputs>, CheckError> {
    if !settings.policy.has_work() {
        return Ok(None);
    }
    let named = settings
        .paths
        .iter()
        .chain(&settings.named)
        .filter(|p| !p.is_dir())
        .map(|p| match p.as_os_str() == "-" {
            true => SourcePath::Stdin,
            false => SourcePath::File(driftlint_git::states::strip_dot(p.clone())),
        })
        .collect();
    let root = settings.exclude_root.clone();
    let globs = if settings.policy.inputs.is_empty() {
        None
    } else {
        let mut builder = ignore::gitignore::GitignoreBuilder::new(&root);
        for g in &settings.policy.inputs {
            builder
                .add_line(None, g)
                .map_err(|e| CheckError::PolicyInputs { glob: g.clone(), message: e.to_string() })?;
        }
        let built = builder.build().map_err(|e| CheckError::PolicyInputs {
            glob: settings.policy.inputs.join(", "),
            message: e.to_string(),
        })?;
        Some(built)
    };
    Ok(Some(document::PolicyInputs { named, globs, root }))
}

/// Whether schemas beyond the built-in kinds are given: configured definitions or schema
/// locations, or definitions among the inputs.
fn schemas_configured(settings: &Settings, definitions_in_inputs: bool) -> bool {
    !settings.schemas.is_empty() || !settings.schema_locations.is_empty() || definitions_in_inputs
}

/// The schema and Composition passes' mode: as set; else, with a reference and no schemas
/// beyond the built-in kinds, [`driftlint_schema::Mode::Ignore`] — the built-in kinds are validated, and the custom
/// kinds the reference is about are not flooded with `schema-not-found`; else loose.
fn schema_mode(settings: &Settings, definitions_in_inputs: bool) -> driftlint_schema::Mode {
    match settings.schema_mode {
        Some(mode) => mode,
        None if settings.reference.is_some() && !schemas_configured(settings, definitions_in_inputs) => {
            driftlint_schema::Mode::Ignore
        }
        None => driftlint_schema::Mode::Loose,
    }
}

/// Whether the schema and Composition passes run: always, unless built-in kinds are turned
/// off and no other schema or schema mode is given (then a drift-only setup checks drift only).
fn schema_pass_runs(settings: &Settings, definitions_in_inputs: bool) -> bool {
    settings.builtin_schemas || settings.schema_mode.is_some() || schemas_configured(settings, definitions_in_inputs)
}

/// Starts compiling, on the pool, the built-in kinds that the first `PREWARM_BYTES` of the
/// inputs name, while this thread prepares the reference and reads the rest: the first batch's
/// report would otherwise compile them (a few milliseconds, on one thread) while the staging
/// threads wait for it, and a run of a few files (a pre-commit hook's) is all first batch.
/// Later kinds are compiled as their objects come. Not with one job (`--jobs 1` keeps to one
/// thread) nor when built-in kinds are not validated.
fn prewarm_builtins(settings: &Settings, sources: &[Source]) {
    if !settings.builtin_schemas || rayon::current_num_threads() <= 1 {
        return;
    }
    // A copy of the first lines of the first texts, read for kinds on the pool too.
    let mut head = String::new();
    for source in sources {
        let left = PREWARM_BYTES.saturating_sub(head.len());
        if left == 0 {
            break;
        }
        let text = source.text.as_str();
        // Whole lines only (a `\n` is a character boundary).
        let cut = match text.len() <= left {
            true => text,
            false => text.as_bytes()[..left].iter().rposition(|&b| b == b'\n').map_or("", |i| &text[..i]),
        };
        head.push_str(cut);
        head.push('\n');
    }
    let version = settings.kubernetes_version;
    rayon::spawn(move || {
        if let Some(kinds) = driftlint_schema::load::kinds_named([head.as_str()]) {
            driftlint_schema::builtin::prewarm(version, &kinds);
        }
    });
}

/// How much of the inputs' text [`prewarm_builtins`] reads for the kinds they name.
const PREWARM_BYTES: usize = 256 * 1024;

/// The schemas of the schema and Composition passes.
struct Schemas {
    /// The registry and mode, when the passes run.
    registry: Option<(driftlint_schema::Registry, driftlint_schema::Mode)>,
    /// What loading them found.
    diagnostics: Vec<Diagnostic>,
}

/// Whether a text may hold a CRD or XRD: a definition's kind (`CustomResourceDefinition`,
/// `CompositeResourceDefinition`) is in its text, or spelt with a double-quoted escape, which
/// needs a backslash.
pub(crate) fn may_hold_definition(text: &str) -> bool {
    text.contains(DEFINITION_WORD) || driftlint_yaml::may_escape(text)
}

/// The word of [`may_hold_definition`] (besides a backslash).
const DEFINITION_WORD: &str = "ResourceDefinition";

/// What the pre-pass looks for in each text: one search for the words of all of
/// [`may_hold_definition`], with a reference `drift::may_hold_reference_keys`, the lookups'
/// `view` words (`Engine::view_member_words`) and, when the admission pass runs (`Some`, with
/// parameterised policies or not), `admission::may_hold_context` — each of which also holds
/// when the text has a backslash.
fn pre_pass_holding(with_reference: bool, view: Option<Vec<&str>>, admission: Option<bool>) -> pieces::Holding {
    pieces::Holding::new([
        Some(if with_reference { drift::REFERENCE_KEY_WORDS.to_vec() } else { Vec::new() }),
        Some(vec![DEFINITION_WORD]),
        view,
        admission
            .map_or(Some(Vec::new()), |parameterised| admission::context_words(parameterised).map(<[&str]>::to_vec)),
    ])
}

/// Loads the schemas: the CRDs and XRDs among `early` (the inputs that may hold them, see
/// [`may_hold_definition`]), then the configured ones.
fn schema_setup(
    settings: &Settings,
    trusted: driftlint_schema::load::Loaded,
    early: &document::Collection,
    files: &mut driftlint_core::locate::Files,
) -> Result<Schemas, CheckError> {
    let mut loaded = trusted;
    driftlint_schema::load::add_checked(&mut loaded, early);
    if let Some(version) = settings.kubernetes_version {
        loaded.registry.set_kubernetes_version(version);
    }
    loaded.registry.set_locations(&settings.schema_locations, &settings.git_start);
    // Schema files are shown like inputs when a finding points into them.
    for source in loaded.sources {
        if let SourcePath::File(p) = source.path {
            files.preset(p, source.text);
        }
    }
    let definitions = !loaded.registry.is_empty();
    if !schema_pass_runs(settings, definitions) {
        return Ok(Schemas { registry: None, diagnostics: Vec::new() });
    }
    let mode = schema_mode(settings, definitions);
    let mut registry = loaded.registry;
    registry.builtins_off = !settings.builtin_schemas;
    registry.crossplane_version = settings.config.as_ref().and_then(|c| c.crossplane_version);
    Ok(Schemas { registry: Some((registry, mode)), diagnostics: loaded.diagnostics })
}

/// What kustomizations set on the resource files they build (those that set something).
fn kustomize_sets(
    roles: &HashMap<PathBuf, driftlint_core::input::kustomize::Role>,
) -> HashMap<PathBuf, driftlint_core::input::kustomize::Sets> {
    use driftlint_core::input::kustomize::{Role, Sets};
    roles
        .iter()
        .filter_map(|(p, r)| match r {
            Role::Resource(sets) if *sets != Sets::default() => Some((p.clone(), *sets)),
            _ => None,
        })
        .collect()
}

/// The inputs that are manifests: less `exclude:` globs, the configuration file and the
/// reference's own directory, with `./` prefixes dropped, and less Helm charts' sources and
/// tools' configuration files (the notes saying so are returned with them).
fn manifest_sources(
    settings: &Settings,
    sources: Vec<Source>,
    reference_dir: Option<&Path>,
    policy_inputs: Option<&document::PolicyInputs>,
) -> Result<driftlint_core::input::layout::Split, CheckError> {
    let excludes = Excludes::of(settings)?;
    let mut sources = not_excluded(&excludes, sources);
    // Nor are the reference's own files, when the checked paths include its directory (a
    // reference kept in the repository it pins, e.g. `reference/` beside `manifests/`).
    if let Some(reference_dir) = reference_dir {
        use rayon::prelude::*;
        // One `lstat` a file: on the pool, each worker with its own directory cache.
        let keep: Vec<bool> = sources
            .par_iter()
            .map_init(HashMap::new, |dirs, s| match &s.path {
                SourcePath::File(p) => !resolved(p, dirs).is_some_and(|p| p.starts_with(reference_dir)),
                SourcePath::Stdin => true,
            })
            .collect();
        let mut keep = keep.into_iter();
        sources.retain(|_| keep.next().unwrap_or(true));
    }
    // A walk of `.` yields `./app/x.yaml`; users read and write `app/x.yaml`.
    for s in &mut sources {
        if let SourcePath::File(p) = &mut s.path {
            *p = driftlint_git::states::strip_dot(std::mem::take(p));
        }
    }
    // A tool's file that is a policy input (named, or matched by `policy-inputs:`) is read.
    // The kustomizations above the named paths give their files roles too, and those
    // elsewhere in the repository that the run's walk would read.
    let excluded = |path: &Path| excludes.matches(path);
    let search =
        driftlint_core::input::kustomize::Search { respect_ignore_files: !settings.no_ignore, excluded: &excluded };
    Ok(driftlint_core::input::layout::split_roles_searching(
        sources,
        |path| policy_inputs.is_some_and(|p| p.takes(path)),
        &settings.paths,
        search,
    ))
}

/// The inputs less those `exclude:` and `--exclude` leave out, less driftlint's configuration
/// files, Helm charts' sources and other tools' configuration files (YAML too, but never
/// manifests: [`layout`], with a note for each chart and kind of tool file): what `check`
/// checks and `ls` lists.
pub fn excluded(settings: &Settings, sources: Vec<Source>) -> Result<(Vec<Source>, Vec<Diagnostic>), CheckError> {
    Ok(driftlint_core::input::layout::split(not_excluded(&Excludes::of(settings)?, sources), |_| false))
}

/// The inputs less those `excludes` leave out and less driftlint's configuration files.
fn not_excluded(excludes: &Excludes, mut sources: Vec<Source>) -> Vec<Source> {
    sources.retain(|s| match &s.path {
        SourcePath::File(p) => !excludes.matches(p) && p.file_name().is_none_or(|n| n != config::FILE_NAME),
        SourcePath::Stdin => true,
    });
    sources
}

/// What `exclude:` (globs rooted at the configuration's directory) and `--exclude` (rooted at
/// the working directory) leave out, their matchers built once a run.
struct Excludes {
    config: Option<ignore::gitignore::Gitignore>,
    config_root: PathBuf,
    cli: Option<ignore::gitignore::Gitignore>,
}

impl Excludes {
    fn of(settings: &Settings) -> Result<Excludes, CheckError> {
        Ok(Excludes {
            config: exclude_matcher(&settings.exclude, &settings.exclude_root)?,
            config_root: settings.exclude_root.clone(),
            cli: exclude_matcher(&settings.exclude_cli, Path::new("."))?,
        })
    }

    fn is_empty(&self) -> bool {
        self.config.is_none() && self.cli.is_none()
    }

    /// Whether either leaves `path` out (named as the walk names it).
    fn matches(&self, path: &Path) -> bool {
        self.config.as_ref().is_some_and(|m| matches_exclude(m, &self.config_root, path))
            || self.cli.as_ref().is_some_and(|m| matches_exclude(m, Path::new("."), path))
    }
}

/// [`absolute`] for an input file, resolving each directory once (`dirs`, by directory): a file
/// that is no symlink is where its directory resolves to. Thousands of files in a few hundred
/// directories cost a few hundred path resolutions and one `lstat` a file.
fn resolved(path: &Path, dirs: &mut HashMap<PathBuf, Option<PathBuf>>) -> Option<PathBuf> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else { return absolute(path) };
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return absolute(path);
    }
    let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
    let dir = dirs.entry(parent.to_path_buf()).or_insert_with(|| absolute(parent));
    dir.as_ref().map(|d| d.join(name))
}

/// `path` made absolute with symlinks resolved (or, for a path that does not exist on disk,
/// such as a file read from the git index only, joined to the working directory).
fn absolute(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok().or_else(|| std::env::current_dir().ok().map(|cwd| cwd.join(path)))
}

/// Deterministic order: path, position, rule, then the rest so equal keys never flip.
///
/// The findings' order is found on their indices and then applied in place: a stable sort of
/// the findings themselves would take a scratch copy of them all, the largest single
/// allocation at the end of a large run.
pub fn sort(diags: &mut [Diagnostic]) {
    let mut order: Vec<usize> = (0..diags.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&diags[a], &diags[b]);
        (&a.primary.path, a.primary.range.as_ref().map(|r| (r.start, r.end)), a.rule, &a.message, &a.object, &a.field)
            .cmp(&(
                &b.primary.path,
                b.primary.range.as_ref().map(|r| (r.start, r.end)),
                b.rule,
                &b.message,
                &b.object,
                &b.field,
            ))
    });
    permute(diags, &mut order);
}

/// Puts the item at `order[i]` at `i`, for every `i`, by following the permutation's cycles
/// (each item moved once; `order` is used up).
fn permute<T>(items: &mut [T], order: &mut [usize]) {
    const DONE: usize = usize::MAX;
    for start in 0..items.len() {
        // The item that belongs at `start` is carried along its cycle by swaps.
        let mut at = start;
        while order[at] != DONE {
            let from = order[at];
            order[at] = DONE;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

/// The directories of the inputs that `exclude:` and `--exclude` leave out and that read like
/// manifests (the reference's own files, left out anyway, not counted), the topmost of each
/// tree.
fn excluded_dirs(settings: &Settings, sources: &[Source]) -> Result<Vec<(PathBuf, input::Skip)>, CheckError> {
    let excludes = Excludes::of(settings)?;
    if excludes.is_empty() {
        return Ok(Vec::new());
    }
    let reference = match &settings.reference {
        Some(driftlint_reference::Location::Path(r)) => metadata_path(r).parent().and_then(absolute),
        _ => None,
    };
    let mut dirs: Vec<PathBuf> = sources
        .iter()
        .filter_map(|s| match &s.path {
            SourcePath::File(p)
                if excludes.matches(p)
                    && !reference.as_ref().is_some_and(|r| absolute(p).is_some_and(|a| a.starts_with(r)))
                    && input::looks_like_manifest(&s.text) =>
            {
                Some(driftlint_git::states::strip_dot(p.parent().map(Path::to_path_buf).unwrap_or_default()))
            }
            _ => None,
        })
        .collect();
    dirs.sort();
    dirs.dedup();
    let topmost: Vec<PathBuf> =
        dirs.iter().filter(|d| !dirs.iter().any(|o| o != *d && d.starts_with(o))).cloned().collect();
    Ok(topmost.into_iter().map(|d| (d, input::Skip::Excluded)).collect())
}

/// The paths (as the walk names inputs) that `exclude:` of `settings` keeps.
pub(crate) fn paths_not_excluded(settings: &Settings, paths: Vec<PathBuf>) -> Result<Vec<PathBuf>, CheckError> {
    let Some(matcher) = exclude_matcher(&settings.exclude, &settings.exclude_root)? else { return Ok(paths) };
    Ok(paths.into_iter().filter(|p| !matches_exclude(&matcher, &settings.exclude_root, p)).collect())
}

/// The matcher of exclude globs; `None` without any.
fn exclude_matcher(globs: &[String], root: &Path) -> Result<Option<ignore::gitignore::Gitignore>, CheckError> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut builder = ignore::gitignore::GitignoreBuilder::new(root);
    for g in globs {
        builder.add_line(None, g).map_err(|e| CheckError::Exclude { glob: g.clone(), message: e.to_string() })?;
    }
    let matcher =
        builder.build().map_err(|e| CheckError::Exclude { glob: globs.join(", "), message: e.to_string() })?;
    Ok(Some(matcher))
}

/// Whether an exclude matcher (rooted at `root`) matches `path`.
fn matches_exclude(matcher: &ignore::gitignore::Gitignore, root: &Path, path: &Path) -> bool {
    // The matcher wants paths below its root (it asserts so): others are kept.
    let rel = path.strip_prefix(root).unwrap_or(path);
    !rel.has_root() && matcher.matched_path_or_any_parents(rel, false).is_ignore()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(len: usize) -> Source {
        Source { path: SourcePath::File(PathBuf::from("x.yaml")), text: "a".repeat(len) }
    }

    #[test]
    fn batches_cover_every_source_in_order_within_their_limits() {
        let mut sources: Vec<Source> = (0..1500).map(|i| source(i % 7 * 100)).collect();
        // A file larger than a whole batch is a batch of its own.
        sources.insert(700, source(BATCH_BYTES * 2));
        let ranges = batches(&sources);
        assert_eq!(ranges.first().map(|r| r.start), Some(0));
        assert_eq!(ranges.last().map(|r| r.end), Some(sources.len()));
        for pair in ranges.windows(2) {
            assert_eq!(pair[0].end, pair[1].start, "contiguous: {ranges:?}");
        }
        for r in &ranges {
            let bytes: usize = sources[r.clone()].iter().map(|s| s.text.len()).sum();
            assert!(!r.is_empty() && r.len() <= BATCH_SOURCES, "{r:?}");
            assert!(bytes <= BATCH_BYTES || r.len() == 1, "{r:?} holds {bytes} bytes");
        }
        assert!(ranges.contains(&(700..701)), "{ranges:?}");
        assert!(batches(&[]).is_empty());
    }

    /// Applying an order in place gives what building the list in that order gives, for
    /// orders of every cycle shape.
    #[test]
    fn an_order_is_applied_in_place_as_a_new_list_would_be() {
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for n in [0, 1, 2, 3, 5, 8, 13, 100, 1000] {
            for _ in 0..20 {
                let mut order: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    order.swap(i, next() % (i + 1));
                }
                let items: Vec<String> = (0..n).map(|i| format!("item {i}")).collect();
                let expected: Vec<String> = order.iter().map(|&i| items[i].clone()).collect();
                let mut permuted = items.clone();
                permute(&mut permuted, &mut order.clone());
                assert_eq!(permuted, expected, "{order:?}");
            }
        }
    }
}
