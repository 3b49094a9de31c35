//! The comparison engine: every collected CR correlated and compared against a compiled
//! reference, with kube-compare's processing semantics (spec §4, §5.1, Appendix C), shared by
//! `driftlint compare` (its runner is the root crate's `kubecompare::run`) and the linter's
//! drift pass ([`crate::drift`]).
//!
//! The engine owns the loop "for each CR: candidates → per-candidate pipeline → best" and
//! nothing around it: it does not load references, read files, compute the summary (§2.4,
//! §2.5) or render reports. It reports *what happened* per CR ([`CrResult`]) and leaves
//! kube-compare's policy (which errors are fatal, what is listed as unmatched) to small
//! helpers on [`Comparison`] so the linter can turn the same facts into diagnostics.
//!
//! Parallelism: the sequential semantics matter only through
//! * in-place omission on a CR across its candidates (§5.1 step 1): a per-CR affair, so CRs
//!   are compared in parallel (rayon) and each CR's candidates in order;
//! * `lookupCR(s)` seeing the other CRs as omitted *so far* (§3.4, §10 #9): order-dependent.
//!   A lookup matches apiVersion and kind exactly, so when every call names them as constants
//!   ([`driftlint_gotmpl::TemplateSet::lookup_kinds`]) only the CRs of those kinds can ever be
//!   returned: the [`View`] holds just them (the same values kube-compare's list holds, kept
//!   and refreshed after each omission the same way), and only the CRs the view connects —
//!   its members and the CRs with a candidate that calls a lookup — are compared in input
//!   order on one thread; every other CR is independent and is compared as without lookups.
//!   A computed apiVersion or kind (or a `go-template` override that may call a lookup) makes
//!   every CR a member, as kube-compare's own loop.
//!
//! Results are collected in input order, so the output is identical either way.

pub mod collect;
pub mod cr;
pub mod glob;
pub mod packed;
mod stream;

use std::sync::Arc;

use driftlint_gotmpl::Value as GoValue;
use rayon::prelude::*;
use serde_json::Value;

use self::collect::Cr;
use self::packed::PackedCr;
use crate::Compiled;
use crate::compare::{
    self, Candidate, CompareError, DiffProgram, FieldFunc, InlineDiff, Outcome, RenderError, UserOverride, Verdict,
    godiff,
};
use crate::correlate::{Correlator, OverrideCorrelator, OverrideFields, ReferenceIndex, TemplateMeta, Via};

pub use crate::correlate::ManualError;

/// Template functions whose result depends on the other CRs (§3.4).
const LOOKUP_FUNCS: [&str; 1] = ["lookupCR"]; // also a prefix of `lookupCRs`

/// Which CRs `lookupCR(s)` can see and which templates can call them (see the module header).
#[derive(Debug, Clone, Default)]
struct Lookups {
    /// Per compiled template: its set calls `lookupCR(s)`.
    calls: Vec<bool>,
    /// Every CR may call or be seen by a lookup (`go-template` overrides that may call them).
    every: bool,
    /// The `(apiVersion, kind)` pairs a lookup can match; `None`: any.
    kinds: Option<Vec<(String, String)>>,
}

/// What `lookupCR(s)` see (§3.4): the CRs a lookup can match, in input order, as the template
/// values kube-compare's list holds — a template's `set` on a looked-up map is seen by later
/// lookups, and a CR's entry is replaced by its omitted object after each of its candidates
/// (§10 #9). Built from the members before any is compared ([`Engine::view_of`]); each member
/// then takes the next entry when it is compared, so members must be compared in input order.
#[derive(Debug, Default)]
pub struct View {
    values: Vec<GoValue>,
    /// With [`Engine::view_with_objects`]: per entry, the member's object as omitted so far
    /// (what a report's re-render looks up, without the comparisons' `set`s).
    objects: Option<Vec<Value>>,
    /// The entry of the next member to be compared.
    next: usize,
}

impl View {
    /// The values a lookup sees now.
    #[must_use]
    pub fn values(&self) -> &[GoValue] {
        &self.values
    }

    /// The entry of the member `object` about to be compared: the next one in input order
    /// (a member the pre-pass missed, which the callers' filters rule out, is added).
    fn slot(&mut self, object: &Value) -> usize {
        if self.next >= self.values.len() {
            self.values.push(GoValue::from_json(object));
            if let Some(objects) = &mut self.objects {
                objects.push(object.clone());
            }
        }
        self.next += 1;
        self.next - 1
    }

    /// Fresh values of the members as omitted so far, for a re-render that must not change
    /// the view (`None` unless built by [`Engine::view_with_objects`]).
    #[must_use]
    pub fn fresh_values(&self) -> Option<Vec<GoValue>> {
        self.objects.as_ref().map(|o| o.iter().map(GoValue::from_json).collect())
    }

    /// After member `slot`'s comparison: its object as omitted.
    fn omitted(&mut self, slot: Option<usize>, object: &Value) {
        if let (Some(objects), Some(slot)) = (&mut self.objects, slot)
            && let Some(entry) = objects.get_mut(slot)
        {
            entry.clone_from(object);
        }
    }
}

/// A CR's candidate templates and the correlator link that gave them (`None`: unmatched).
type Found = Option<(Vec<usize>, Via)>;

/// A CR whose comparison waits for the in-order pass over the [`View`]'s connected CRs, with
/// its candidates (correlation does not depend on the order).
#[derive(Debug, Clone)]
pub struct Pending {
    cr: usize,
    member: bool,
    found: Found,
}

/// What `lookupCR(s)` see while CR `ci` is compared: the view, and the entry that holds this
/// CR when it is a member (refreshed after each candidate's omission).
struct Lookup<'v> {
    view: &'v mut Vec<GoValue>,
    slot: Option<usize>,
}

/// How CRs are scheduled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Parallelism {
    /// In parallel on rayon's current pool, unless the reference uses `lookupCR(s)`.
    #[default]
    Auto,
    /// Always one CR after the other on the calling thread.
    Sequential,
    /// kube-compare's loop verbatim: sequential, with the `lookupCR(s)` view of all CRs built
    /// and refreshed after every candidate even when no template can read it. Slow; the
    /// reference against which the other modes are checked and benchmarked.
    Exact,
}

/// What each [`Compared`] keeps of the winning [`Outcome`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Retain {
    /// The whole outcome: merged/live objects and their YAML texts (needed for
    /// [`Outcome::field_diffs`] and [`Outcome::patch_for_generate`]).
    #[default]
    Full,
    /// Only `differs` and `diff_output`; the objects become `null`, the YAML texts and the
    /// name empty as soon as the CR is done. Keeps memory near the input size for large runs.
    DiffOnly,
    /// What `check` needs: `merged` and `live` only where they differ (for
    /// [`Outcome::field_diffs`], empty where they are equal), no YAML texts and no diff text
    /// (never computed). Most objects of a repository match their template: their outcomes
    /// stop holding four copies of them.
    Differences,
}

/// Run-wide settings of the engine.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// How the two sides are diffed (`DiffProgram::from_env()` for kube-compare's
    /// `KUBECTL_EXTERNAL_DIFF`; the in-process diff spawns nothing).
    pub diff: DiffProgram,
    /// `--show-managed-fields`.
    pub show_managed_fields: bool,
    /// `-v`: long overlap warnings (§4.7).
    pub verbose: bool,
    pub parallelism: Parallelism,
    pub retain: Retain,
}

/// A reference compiled once, with its correlators and per-template settings, ready to
/// compare any number of CR sets. `Send + Sync`.
pub struct Engine<'a> {
    compiled: &'a Compiled,
    overrides: Vec<UserOverride>,
    metas: Vec<TemplateMeta>,
    correlator: Correlator,
    override_correlator: OverrideCorrelator,
    /// Per compiled template: its valid v2 `perField` functions.
    per_field: Vec<Vec<FieldFunc>>,
    options: Options,
    uses_lookups: bool,
    lookups: Lookups,
    warnings: Vec<String>,
}

/// One candidate template tried for a CR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tried {
    /// Index into [`Compiled::templates`].
    pub template: usize,
    pub result: TriedResult,
}

/// What the §5.1 pipeline gave for one candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TriedResult {
    /// Compared. The go-diff score (§5.8) is computed only where it decides the winner:
    /// `None` for a lone candidate, and for one whose [`godiff::score_lower_bound`] exceeds
    /// the winner's score (it could not have won, nor tied).
    Score(Option<usize>),
    /// The template called `doNotMatch` (§4.4).
    DoNotMatch,
    /// A pipeline error (kube-compare's text, §4.3).
    Error(String),
}

/// A CR with a winning candidate (§4.3).
#[derive(Debug, Clone)]
pub struct Compared {
    /// Index into [`Compiled::templates`] of the best candidate (lowest score, earliest on ties).
    pub template: usize,
    /// The winner's outcome (see [`Retain`]).
    pub outcome: Arc<Outcome>,
}

/// What happened to one CR (§4.8).
#[derive(Debug, Clone)]
pub enum Status {
    /// No correlator produced candidates (listed as unmatched only with `-A`, §4.6).
    Unmatched,
    /// Every candidate called `doNotMatch`: silently skipped (§4.4).
    AllDoNotMatch,
    /// A candidate error whose text kube-compare downgrades (§4.3): a skip warning, and the
    /// CR is listed as unmatched even without `-A`.
    Downgraded { warning: String },
    /// Candidate errors (joined by newlines): fatal for kube-compare (§4.3).
    Failed(String),
    /// A best candidate was found.
    Compared(Compared),
}

/// The engine's account of one CR.
#[derive(Debug, Clone)]
pub struct CrResult {
    /// Index of the CR in the input (= processing order).
    pub cr: usize,
    /// Which correlator link produced the candidates (`None`: unmatched).
    pub via: Option<Via>,
    /// Every candidate tried, in order (empty when unmatched).
    pub tried: Vec<Tried>,
    /// Indices into [`Engine::overrides`] of the `-p` overrides matched to the CR (§6.2),
    /// whether or not they apply to the winning template.
    pub overrides: Vec<usize>,
    pub status: Status,
}

impl CrResult {
    /// A CR not compared yet (its place in a collection, see [`collect::Items`]).
    #[must_use]
    pub fn placeholder(cr: usize) -> CrResult {
        CrResult { cr, via: None, tried: Vec::new(), overrides: Vec::new(), status: Status::Unmatched }
    }

    /// The winning comparison, if any.
    #[must_use]
    pub fn compared(&self) -> Option<&Compared> {
        match &self.status {
            Status::Compared(c) => Some(c),
            _ => None,
        }
    }

    /// The templates sharing the best score when more than one candidate has it (the
    /// linter's ambiguous correlation); empty otherwise.
    #[must_use]
    pub fn ambiguous(&self) -> Vec<usize> {
        let scores = || {
            self.tried.iter().filter_map(|t| match t.result {
                TriedResult::Score(Some(s)) => Some((t.template, s)),
                _ => None,
            })
        };
        let Some(best) = scores().map(|(_, s)| s).min() else { return Vec::new() };
        let tied: Vec<usize> = scores().filter(|&(_, s)| s == best).map(|(t, _)| t).collect();
        if tied.len() > 1 { tied } else { Vec::new() }
    }
}

/// The result of [`Engine::compare`].
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The CRs as given, after in-place omission (§5.1 step 1): what the LIVE sides and
    /// generate-patches see.
    pub crs: Vec<Cr>,
    /// One per CR, in input order (`results[i].cr == i`).
    pub results: Vec<CrResult>,
    /// Templates matched through ownerReferences/RBAC subjects only (§4.5), reference order.
    pub reference_only: Vec<usize>,
    /// Per compiled template: reference-only matches plus CRs it won (§4.3, §4.5).
    pub match_count: Vec<usize>,
    /// Skip warnings of downgraded errors, in processing order (without `Warning: `).
    pub warnings: Vec<String>,
    /// CRs left for [`Engine::compare_pending`] by [`Engine::compare_batch_independent`]
    /// (their results are placeholders, their objects untouched); empty otherwise.
    pub pending: Vec<Pending>,
}

impl Comparison {
    /// kube-compare's fatal error (§4.3): every failed CR's text, one per line; `None` when
    /// no CR failed.
    #[must_use]
    pub fn fatal_error(&self) -> Option<String> {
        let errors: Vec<&str> = self
            .results
            .iter()
            .filter_map(|r| match &r.status {
                Status::Failed(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        (!errors.is_empty()).then(|| format!("error occurred while trying to process resources: {}", errors.join("\n")))
    }

    /// `UnmatchedCRS` (§4.6): CR ids in processing order; CRs without candidates only when
    /// `all_resources` (`-A`), downgraded ones always.
    #[must_use]
    pub fn unmatched_ids(&self, all_resources: bool) -> Vec<String> {
        self.results
            .iter()
            .filter(|r| match r.status {
                Status::Unmatched => all_resources,
                Status::Downgraded { .. } => true,
                _ => false,
            })
            .map(|r| self.crs[r.cr].id.clone())
            .collect()
    }

    /// The compared CRs in processing order.
    pub fn compared(&self) -> impl Iterator<Item = (&Cr, &CrResult, &Compared)> {
        self.results.iter().filter_map(|r| r.compared().map(|c| (&self.crs[r.cr], r, c)))
    }
}

impl<'a> Engine<'a> {
    /// Builds the correlators (§4.1, §6.2) over `compiled`. `overrides` are the `-p` entries
    /// in file order; `user_pairs` the `-c` `correlationPairs` (CR id → template path).
    ///
    /// # Errors
    /// A pair naming an unknown template (§2.8).
    pub fn new(
        compiled: &'a Compiled,
        overrides: Vec<UserOverride>,
        user_pairs: &[(String, String)],
        options: Options,
    ) -> Result<Engine<'a>, ManualError> {
        let metas = template_metas(compiled);
        let correlator = Correlator::new(&metas, user_pairs)?;
        let ids: Vec<String> = metas.iter().map(|m| m.path.clone()).collect();
        let warnings = correlator.group().overlap_warnings(&ids, options.verbose);
        let override_fields: Vec<OverrideFields> = overrides
            .iter()
            .map(|o| OverrideFields {
                exact_match: o.exact_match.clone(),
                api_version: o.api_version.clone(),
                kind: o.kind.clone(),
                name: o.name.clone(),
                namespace: o.namespace.clone(),
            })
            .collect();
        let override_correlator = OverrideCorrelator::new(&override_fields);
        let per_field = compiled
            .templates
            .iter()
            .map(|t| {
                compiled.reference.templates[t.entry]
                    .config
                    .per_field
                    .iter()
                    .filter_map(|p| {
                        InlineDiff::from_name(&p.inline_diff_func)
                            .map(|func| FieldFunc { path_to_key: p.path_to_key.clone(), func })
                    })
                    .collect()
            })
            .collect();
        let lookups = lookup_plan(compiled, &overrides);
        let uses_lookups = lookups.every || lookups.calls.iter().any(|&c| c);
        Ok(Engine {
            compiled,
            overrides,
            metas,
            correlator,
            override_correlator,
            per_field,
            options,
            uses_lookups,
            lookups,
            warnings,
        })
    }

    /// The overlap warnings of §4.7 (without `Warning: `), in kube-compare's order.
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The `-p` overrides, indexed by [`CrResult::overrides`].
    #[must_use]
    pub fn overrides(&self) -> &[UserOverride] {
        &self.overrides
    }

    /// The compiled reference.
    #[must_use]
    pub fn compiled(&self) -> &'a Compiled {
        self.compiled
    }

    /// Correlation metadata per compiled template (path and fixed fields, §3.6).
    #[must_use]
    pub fn metas(&self) -> &[TemplateMeta] {
        &self.metas
    }

    /// Whether a template, function file or `go-template` override may call `lookupCR(s)`:
    /// the CRs the [`View`] connects are then compared in input order. Templates are read
    /// from their parsed trees (Go templates call functions named literally); overrides from
    /// their text, which may hold nested `go-template` patches.
    #[must_use]
    pub fn uses_lookups(&self) -> bool {
        self.uses_lookups
    }

    /// Whether the [`View`] holds only the kinds the lookups name (every call's apiVersion
    /// and kind are constants), not every CR.
    #[must_use]
    pub fn view_is_sparse(&self) -> bool {
        self.uses_lookups && !self.lookups.every && self.lookups.kinds.is_some()
    }

    /// Whether `lookupCR(s)` can ever return `object` (see [`View`]).
    #[must_use]
    pub fn in_view(&self, object: &Value) -> bool {
        if !self.uses_lookups {
            return false;
        }
        let Some(kinds) = &self.lookups.kinds else { return true };
        fn s(v: Option<&Value>) -> &str {
            v.and_then(Value::as_str).unwrap_or_default()
        }
        let (api, kind) = (s(object.get("apiVersion")), s(object.get("kind")));
        kinds.iter().any(|(a, k)| a == api && k == kind)
    }

    /// Whether a YAML text may hold a [`View`] member: it spells the kind of one (a kind can
    /// only be spelt otherwise in a double-quoted escape, which needs a backslash).
    #[must_use]
    pub fn may_hold_view_member(&self, text: &str) -> bool {
        if !self.uses_lookups {
            return false;
        }
        match &self.lookups.kinds {
            None => true,
            Some(kinds) => text.contains('\\') || kinds.iter().any(|(_, k)| text.contains(k.as_str())),
        }
    }

    /// The view of the members among `objects` (in input order), before any is compared.
    #[must_use]
    pub fn view_of<'o>(&self, objects: impl IntoIterator<Item = &'o Value>) -> View {
        let values = objects.into_iter().filter(|o| self.in_view(o)).map(GoValue::from_json).collect();
        View { values, objects: None, next: 0 }
    }

    /// [`Engine::view_of`], also keeping the members' objects for [`View::fresh_values`].
    #[must_use]
    pub fn view_with_objects<'o>(&self, objects: impl IntoIterator<Item = &'o Value>) -> View {
        let objects: Vec<Value> = objects.into_iter().filter(|o| self.in_view(o)).cloned().collect();
        View { values: objects.iter().map(GoValue::from_json).collect(), objects: Some(objects), next: 0 }
    }

    /// Whether a CR with candidates `found` is connected to the view when `member`.
    fn connected(&self, member: bool, found: &Found) -> bool {
        member
            || self.lookups.every
            || found
                .as_ref()
                .is_some_and(|(c, _)| c.iter().any(|&t| self.lookups.calls.get(t).copied().unwrap_or(true)))
    }

    /// Correlates and compares every CR (Appendix C's loop). Never fails: per-CR errors are
    /// in [`Status::Failed`]; [`Comparison::fatal_error`] gives kube-compare's verdict.
    #[must_use]
    pub fn compare(&self, crs: Vec<Cr>) -> Comparison {
        let index = ReferenceIndex::new(crs.iter().map(|c| &c.object));
        let reference_only = index.reference_only(&self.metas);
        self.compare_all(crs, &index, reference_only)
    }

    /// [`Engine::compare`] for one batch of a run's CRs, `index` being the reference indexes
    /// (§4.5) of every CR of the run: a run can then be parsed, compared and reported a batch
    /// at a time. Templates matched by reference only belong to the run, not to a batch: the
    /// result leaves them out (`reference_only` empty, not in `match_count`); the caller adds
    /// `index.reference_only(engine.metas())` once. With `lookupCR(s)` (see
    /// [`Engine::uses_lookups`]) the batch is the view's world: it must hold every CR, or use
    /// [`Engine::compare_batch_independent`] and [`Engine::compare_pending`].
    /// Without `parallel` the batch is compared on the calling thread (batches are then what
    /// runs in parallel).
    #[must_use]
    pub fn compare_batch(&self, mut crs: Vec<Cr>, index: &ReferenceIndex, parallel: bool) -> Comparison {
        if parallel || self.uses_lookups || self.options.parallelism == Parallelism::Exact {
            return self.compare_all(crs, index, Vec::new());
        }
        let results = crs.iter_mut().enumerate().map(|(ci, cr)| self.compare_cr(ci, cr, index, None)).collect();
        self.finish(crs, results, Vec::new())
    }

    /// [`Engine::compare_batch`] for a run whose batches are compared apart while
    /// `lookupCR(s)` need the [`View`] of the whole run: the CRs the view connects are left
    /// in [`Comparison::pending`] (placeholders, objects untouched) for
    /// [`Engine::compare_pending`], which the caller runs on the batches in input order; the
    /// others are compared now.
    #[must_use]
    pub fn compare_batch_independent(&self, mut crs: Vec<Cr>, index: &ReferenceIndex, parallel: bool) -> Comparison {
        if !self.uses_lookups {
            return self.compare_batch(crs, index, parallel);
        }
        let correlate = |cr: &Cr| {
            let found = self.correlator.candidates(&cr.object, &cr.id, Some(index));
            let member = self.in_view(&cr.object);
            (member, found)
        };
        let found: Vec<(bool, Found)> =
            if parallel { crs.par_iter().map(correlate).collect() } else { crs.iter().map(correlate).collect() };
        let mut pending = Vec::new();
        let mut independent = Vec::new();
        for ((ci, cr), (member, found)) in crs.iter_mut().enumerate().zip(found) {
            if self.connected(member, &found) {
                pending.push(Pending { cr: ci, member, found });
            } else {
                independent.push((ci, cr, found));
            }
        }
        let one = |(ci, cr, found): (usize, &mut Cr, _)| self.compare_found(ci, cr, found, None);
        let done: Vec<CrResult> = if parallel {
            independent.into_par_iter().map(one).collect()
        } else {
            independent.into_iter().map(one).collect()
        };
        let mut results: Vec<CrResult> = (0..crs.len()).map(CrResult::placeholder).collect();
        for r in done {
            let at = r.cr;
            results[at] = r;
        }
        let mut comparison = self.finish(crs, results, Vec::new());
        comparison.pending = pending;
        comparison
    }

    /// Compares the CRs [`Engine::compare_batch_independent`] left pending, in input order,
    /// with the run's `view` (see [`View`]); must be called on the batches in input order.
    pub fn compare_pending(&self, comparison: &mut Comparison, view: &mut View) {
        let pending = std::mem::take(&mut comparison.pending);
        if pending.is_empty() {
            return;
        }
        for Pending { cr: ci, member, found } in pending {
            let Some(cr) = comparison.crs.get_mut(ci) else { continue };
            let slot = member.then(|| view.slot(&cr.object));
            comparison.results[ci] = self.compare_found(ci, cr, found, Some(Lookup { view: &mut view.values, slot }));
            view.omitted(slot, &cr.object);
        }
        let (crs, results) = (std::mem::take(&mut comparison.crs), std::mem::take(&mut comparison.results));
        *comparison = self.finish(crs, results, std::mem::take(&mut comparison.reference_only));
    }

    /// [`Engine::compare`] for packed CRs (see [`self::packed`]): each CR is unpacked only
    /// while it is compared, and with [`Retain::DiffOnly`] its object is dropped right after
    /// (the returned [`Comparison::crs`] then hold `null` objects). `index` are the CRs'
    /// reference indexes (§4.5), as [`collect::Packed`] gives them. With `lookupCR(s)`, the
    /// CRs the [`View`] connects stay unpacked until they are compared in input order.
    #[must_use]
    pub fn compare_packed(&self, crs: Vec<PackedCr>, index: ReferenceIndex) -> Comparison {
        let reference_only = index.reference_only(&self.metas);
        if self.options.parallelism == Parallelism::Exact {
            return self.compare_all(crs.into_iter().map(PackedCr::unpack).collect(), &index, reference_only);
        }
        let (crs, results): (Vec<Cr>, Vec<CrResult>) =
            self.compare_deferred(crs.into_iter().enumerate().collect(), &index).into_iter().unzip();
        self.finish(crs, results, reference_only)
    }

    /// The packed CRs `deferred` (with their positions, in input order) compared, in the same
    /// order: each unpacked while it is compared, in parallel unless the mode says otherwise.
    /// With `lookupCR(s)`, the CRs the [`View`] connects wait, unpacked, for an in-order
    /// pass over them alone; the view is built from them.
    fn compare_deferred(&self, deferred: Vec<(usize, PackedCr)>, index: &ReferenceIndex) -> Vec<(Cr, CrResult)> {
        let sequential = self.options.parallelism == Parallelism::Sequential;
        if !self.uses_lookups {
            let one = |(ci, packed): (usize, PackedCr)| self.compare_unpacked(ci, packed, index);
            // Indexed parallel iterators collect in input order: identical to the loop.
            return if sequential {
                deferred.into_iter().map(one).collect()
            } else {
                deferred.into_par_iter().map(one).collect()
            };
        }
        enum Step {
            Done(Cr, CrResult),
            Wait(usize, Cr, bool, Found),
        }
        let one = |(ci, packed): (usize, PackedCr)| {
            let mut cr = packed.unpack();
            let found = self.correlator.candidates(&cr.object, &cr.id, Some(index));
            let member = self.in_view(&cr.object);
            if self.connected(member, &found) {
                return Step::Wait(ci, cr, member, found);
            }
            let result = self.compare_found(ci, &mut cr, found, None);
            self.release(&mut cr);
            Step::Done(cr, result)
        };
        let mut steps: Vec<Step> = if sequential {
            deferred.into_iter().map(one).collect()
        } else {
            deferred.into_par_iter().map(one).collect()
        };
        let mut view = self.view_of(steps.iter().filter_map(|s| match s {
            Step::Wait(_, cr, true, _) => Some(&cr.object),
            _ => None,
        }));
        for step in &mut steps {
            let Step::Wait(ci, cr, member, found) = step else { continue };
            let slot = member.then(|| view.slot(&cr.object));
            let result = self.compare_found(*ci, cr, found.take(), Some(Lookup { view: &mut view.values, slot }));
            self.release(cr);
            *step = Step::Done(
                std::mem::replace(cr, Cr { id: String::new(), object: Value::Null, source: String::new() }),
                result,
            );
        }
        steps
            .into_iter()
            .map(|s| match s {
                Step::Done(cr, r) => (cr, r),
                Step::Wait(ci, cr, ..) => (cr, CrResult::placeholder(ci)),
            })
            .collect()
    }

    /// Compares `cr` before the other CRs are loaded, when nothing about it depends on them:
    /// its candidates do not come from the reference indexes (§4.5) and no template can
    /// call `lookupCR(s)`. `None`, leaving `cr` untouched, otherwise (and in the
    /// [`Parallelism::Sequential`] and [`Parallelism::Exact`] modes). The result's
    /// [`CrResult::cr`] is 0: the caller knows the CR's position. With [`Retain::DiffOnly`] the
    /// CR's object is dropped afterwards, as [`Engine::compare_packed`] does.
    /// [`Engine::compare_items`] finishes the run.
    #[must_use]
    pub fn compare_early(&self, cr: &mut Cr) -> Option<CrResult> {
        if self.options.parallelism != Parallelism::Auto {
            return None;
        }
        let found = self.correlator.without_index(&cr.object, &cr.id).ok()?;
        if self.uses_lookups && self.connected(self.in_view(&cr.object), &found) {
            return None;
        }
        let result = self.compare_found(0, cr, found, None);
        self.release(cr);
        Some(result)
    }

    /// CR `ci`, unpacked, compared with the reference indexes `index`, then released.
    fn compare_unpacked(&self, ci: usize, packed: PackedCr, index: &ReferenceIndex) -> (Cr, CrResult) {
        let mut cr = packed.unpack();
        let result = self.compare_cr(ci, &mut cr, index, None);
        self.release(&mut cr);
        (cr, result)
    }

    /// With [`Retain::DiffOnly`], a compared CR's object is dropped.
    fn release(&self, cr: &mut Cr) {
        if self.options.retain == Retain::DiffOnly {
            cr.object = Value::Null;
        }
    }

    /// [`Engine::compare_packed`] for a collection whose CRs were compared early where they
    /// could be ([`collect::collect_items_with`] with [`Engine::compare_early`]): the others
    /// are compared now, with the complete reference indexes, in parallel unless the mode
    /// says otherwise. The same comparison as [`Engine::compare_packed`] on the same CRs.
    #[must_use]
    pub fn compare_items(&self, items: collect::Items) -> Comparison {
        let collect::Items { mut crs, mut results, deferred, index, .. } = items;
        if deferred.len() == crs.len() {
            return self.compare_packed(deferred.into_iter().map(|(_, cr)| cr).collect(), index);
        }
        let reference_only = index.reference_only(&self.metas);
        let done = self.compare_deferred(deferred, &index);
        // Into the placeholders; the CRs compared early were never copied.
        for (cr, result) in done {
            let at = result.cr;
            crs[at] = cr;
            results[at] = result;
        }
        self.finish(crs, results, reference_only)
    }

    /// `reference_only`: §4.5's reference-only matches, found before any omission.
    fn compare_all(&self, mut crs: Vec<Cr>, index: &ReferenceIndex, reference_only: Vec<usize>) -> Comparison {
        let results: Vec<CrResult> = if self.options.parallelism == Parallelism::Exact {
            // What lookupCR(s) see: all CRs, each updated as its omission changes it (§3.4).
            let mut lookups: Vec<GoValue> = crs.iter().map(|c| GoValue::from_json(&c.object)).collect();
            crs.iter_mut()
                .enumerate()
                .map(|(ci, cr)| self.compare_cr(ci, cr, index, Some(Lookup { view: &mut lookups, slot: Some(ci) })))
                .collect()
        } else if self.uses_lookups {
            let parallel = self.options.parallelism != Parallelism::Sequential;
            let comparison = self.compare_batch_independent(crs, index, parallel);
            let mut view =
                self.view_of(comparison.pending.iter().filter(|p| p.member).map(|p| &comparison.crs[p.cr].object));
            let mut comparison = comparison;
            self.compare_pending(&mut comparison, &mut view);
            return self.finish(comparison.crs, comparison.results, reference_only);
        } else if self.options.parallelism == Parallelism::Sequential {
            crs.iter_mut().enumerate().map(|(ci, cr)| self.compare_cr(ci, cr, index, None)).collect()
        } else {
            // Indexed parallel iterators collect in input order: identical to the loop above.
            crs.par_iter_mut().enumerate().map(|(ci, cr)| self.compare_cr(ci, cr, index, None)).collect()
        };
        self.finish(crs, results, reference_only)
    }

    /// Match counts (§4.3, §4.5) and downgrade warnings over the per-CR results.
    fn finish(&self, crs: Vec<Cr>, results: Vec<CrResult>, reference_only: Vec<usize>) -> Comparison {
        let mut match_count = vec![0usize; self.compiled.templates.len()];
        for &i in &reference_only {
            match_count[i] += 1;
        }
        let mut warnings = Vec::new();
        for r in &results {
            match &r.status {
                Status::Compared(c) => match_count[c.template] += 1,
                Status::Downgraded { warning } => warnings.push(warning.clone()),
                _ => {}
            }
        }
        Comparison { crs, results, reference_only, match_count, warnings, pending: Vec::new() }
    }

    /// §4.1–§4.3 and §5.1 for CR `ci`. `lookups` is `Some` in lookup mode: what
    /// `lookupCR(s)` see, with this CR's entry refreshed after each candidate's omission.
    fn compare_cr(&self, ci: usize, cr: &mut Cr, index: &ReferenceIndex, lookups: Option<Lookup<'_>>) -> CrResult {
        let found = self.correlator.candidates(&cr.object, &cr.id, Some(index));
        self.compare_found(ci, cr, found, lookups)
    }

    /// [`Engine::compare_cr`] once the candidates are known.
    fn compare_found(
        &self,
        ci: usize,
        cr: &mut Cr,
        found: Option<(Vec<usize>, Via)>,
        mut lookups: Option<Lookup<'_>>,
    ) -> CrResult {
        let Some((candidates, via)) = found else {
            return CrResult { cr: ci, via: None, tried: Vec::new(), overrides: Vec::new(), status: Status::Unmatched };
        };
        let matched = self.override_correlator.candidates(&cr.object, &cr.id);
        let matched_overrides: Vec<&UserOverride> = matched.iter().map(|&i| &self.overrides[i]).collect();
        let options = compare::Options {
            diff: self.options.diff.clone(),
            show_managed_fields: self.options.show_managed_fields,
            diff_only: self.options.retain == Retain::DiffOnly,
            skip_diff_text: self.options.retain == Retain::Differences,
            limits: self.compiled.limits().clone(),
        };
        // The candidates that compared, as (position in `tried`, template, outcome).
        let mut compared: Vec<(usize, usize, Arc<Outcome>)> = Vec::new();
        let mut tried = Vec::with_capacity(candidates.len());
        let mut errors: Vec<CompareError> = Vec::new();
        // What the candidates share: the CR's texts, and its template value while omission
        // leaves the CR unchanged and no template can change the value (§3.2's data).
        let mut memo = compare::CrMemo::default();
        let mut data: Option<GoValue> = None;
        for &ti in &candidates {
            let entry = &self.compiled.reference.templates[self.compiled.templates[ti].entry];
            let candidate = Candidate {
                id: &entry.path,
                omit: &entry.omit_paths,
                ignore_unspecified_fields: entry.config.ignore_unspecified_fields,
                per_field: &self.per_field[ti],
            };
            let seen: &[GoValue] = lookups.as_ref().map_or(&[], |l| l.view.as_slice());
            let compiled = &self.compiled.templates[ti];
            let data = &mut data;
            let render = |cr: &Value, unchanged: bool| -> Result<String, RenderError> {
                if !unchanged || compiled.mutates_data {
                    *data = None;
                }
                let rendered = if let Some(reads) = &compiled.reads {
                    // Only what the template can read of the CR is converted (its own copy).
                    self.compiled.render_text(ti, &reads.project(cr), seen)
                } else if compiled.mutates_data {
                    self.compiled.render(ti, cr, seen).map(|r| r.text)
                } else {
                    self.compiled.render_text(ti, data.get_or_insert_with(|| GoValue::from_json(cr)), seen)
                };
                match rendered {
                    Ok(text) => Ok(text),
                    Err(e) if e.kind == driftlint_gotmpl::ErrorKind::DoNotMatch => Err(RenderError::DoNotMatch),
                    Err(e) => Err(RenderError::Failed(format!("failed to constuct template: {e}"))),
                }
            };
            let verdict = compare::compare_one_memo(
                &mut cr.object,
                render,
                &candidate,
                &matched_overrides,
                seen,
                &options,
                &mut memo,
            );
            if let Some(Lookup { view, slot: Some(slot) }) = lookups.as_mut()
                && let Some(entry) = view.get_mut(*slot)
            {
                // The CR was omitted in place: later lookups see it that way (§10 #9).
                *entry = GoValue::from_json(&cr.object);
            }
            let result = match verdict {
                Ok(Verdict::DoNotMatch) => TriedResult::DoNotMatch,
                Ok(Verdict::Compared(outcome)) => {
                    compared.push((tried.len(), ti, outcome));
                    TriedResult::Score(None)
                }
                Err(e) => {
                    let text = e.to_string();
                    errors.push(e);
                    TriedResult::Error(text)
                }
            };
            tried.push(Tried { template: ti, result });
        }
        let status = if !errors.is_empty() {
            let text = errors.iter().map(CompareError::to_string).collect::<Vec<_>>().join("\n");
            // §4.3: two error texts are downgraded to a skip warning and an unmatched CR.
            if text.contains("error parsing") || text.contains("Object 'Kind' is missing") {
                let tail = text.rsplit(':').next().unwrap_or_default();
                Status::Downgraded { warning: collect::skip_warning("failed", tail) }
            } else {
                Status::Failed(text)
            }
        } else if compared.is_empty() {
            Status::AllDoNotMatch
        } else {
            let outcomes: Vec<&Outcome> = compared.iter().map(|(_, _, o)| &**o).collect();
            let (winner, scores) = best_candidate(&outcomes);
            for ((at, _, _), score) in compared.iter().zip(scores) {
                tried[*at].result = TriedResult::Score(score);
            }
            let (_, template, mut outcome) = compared.swap_remove(winner);
            match self.options.retain {
                Retain::Full => {}
                // (A shared outcome is already emptied: only an outcome of its own changes.)
                Retain::DiffOnly if !outcome.is_emptied() => {
                    let o = Arc::make_mut(&mut outcome);
                    *o = Outcome::emptied(o.differs, std::mem::take(&mut o.diff_output));
                }
                Retain::DiffOnly => {}
                Retain::Differences => {
                    let o = Arc::make_mut(&mut outcome);
                    o.merged_yaml = String::new();
                    o.live_yaml = String::new();
                    if o.merged == o.live {
                        o.merged = Value::Null;
                        o.live = Value::Null;
                    }
                }
            }
            Status::Compared(Compared { template, outcome })
        };
        CrResult { cr: ci, via: Some(via), tried, overrides: matched, status }
    }
}

/// §4.3: the candidate with the lowest go-diff score, the earliest on ties, and the scores
/// that were needed to know it. Scoring is a character diff, the costliest step of a
/// comparison, so a lone candidate is not scored at all, and the others are scored from the
/// lowest [`godiff::score_lower_bound`] up until the bound passes the best score found:
/// such a candidate scores higher than the winner, so it cannot win or tie.
fn best_candidate(outcomes: &[&Outcome]) -> (usize, Vec<Option<usize>>) {
    let mut scores = vec![None; outcomes.len()];
    if outcomes.len() < 2 {
        return (0, scores);
    }
    let bounds: Vec<usize> = outcomes.iter().map(|o| godiff::score_lower_bound(&o.merged_yaml, &o.live_yaml)).collect();
    let mut order: Vec<usize> = (0..outcomes.len()).collect();
    order.sort_by_key(|&i| (bounds[i], i));
    let mut best: Option<(usize, usize)> = None;
    for i in order {
        if best.is_some_and(|(score, _)| bounds[i] > score) {
            break;
        }
        let score = outcomes[i].score();
        scores[i] = Some(score);
        if best.is_none_or(|b| (score, i) < b) {
            best = Some((score, i));
        }
    }
    (best.map_or(0, |(_, i)| i), scores)
}

/// Correlation metadata of every compiled template, in reference order.
fn template_metas(compiled: &Compiled) -> Vec<TemplateMeta> {
    compiled
        .templates
        .iter()
        .map(|t| TemplateMeta {
            path: compiled.reference.templates[t.entry].path.clone(),
            api_version: t.fixed.api_version.clone(),
            kind: t.fixed.kind.clone(),
            name: t.fixed.name.clone(),
            namespace: t.fixed.namespace.clone(),
        })
        .collect()
}

/// See [`Engine::uses_lookups`] and [`View`]. Templates are analysed on their parsed sets
/// (every tree: the entry's files and the function files); `go-template` overrides by their
/// text (their patches, and nested `go-template` patches, only exist at run time).
fn lookup_plan(compiled: &Compiled, overrides: &[UserOverride]) -> Lookups {
    let mentions = |text: &str| LOOKUP_FUNCS.iter().any(|f| text.contains(f));
    let every =
        overrides.iter().any(|o| o.type_ == "go-template" && (mentions(&o.patch) || o.patch.contains("go-template")));
    let mut kinds: Option<Vec<(String, String)>> = if every { None } else { Some(Vec::new()) };
    let mut calls = Vec::with_capacity(compiled.templates.len());
    for t in &compiled.templates {
        match t.set.lookup_kinds() {
            Some(pairs) => {
                calls.push(!pairs.is_empty());
                if let Some(kinds) = &mut kinds {
                    for pair in pairs {
                        if !kinds.contains(&pair) {
                            kinds.push(pair);
                        }
                    }
                }
            }
            None => {
                calls.push(true);
                kinds = None;
            }
        }
    }
    Lookups { calls, every, kinds }
}

// Compile-time guarantee: an engine is shared by rayon's threads.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Engine<'static>>();
    assert_send_sync::<Comparison>();
};

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(merged: &str, live: &str) -> Outcome {
        Outcome {
            merged: Value::Null,
            live: Value::Null,
            merged_yaml: merged.to_owned(),
            live_yaml: live.to_owned(),
            differs: merged != live,
            diff_output: String::new(),
            name: String::new(),
        }
    }

    /// kube-compare's rule, scoring every candidate: the first with the lowest score.
    fn first_lowest(outcomes: &[&Outcome]) -> usize {
        let scores: Vec<usize> = outcomes.iter().map(|o| o.score()).collect();
        let min = scores.iter().min().copied().unwrap_or(0);
        scores.iter().position(|&s| s == min).unwrap_or(0)
    }

    #[test]
    fn best_candidate_is_kube_compares_choice_with_fewer_scores() {
        let live = "kind: Deployment\nmetadata:\n  name: worker-4\nspec:\n  replicas: 1\n";
        let merged = [
            "kind: Deployment\nmetadata:\n  name: worker-4\nspec:\n  replicas: 2\n  paused: true\n  strategy: {}\n",
            "kind: Deployment\nmetadata:\n  name: worker-4\nspec:\n  replicas: 3\n",
            live,
            "kind: Deployment\nmetadata:\n  name: worker-4\nspec:\n  replicas: 9\n",
            "spec:\n  replicas: 1\nmetadata:\n  name: worker-4\nkind: Deployment\n",
            "",
        ];
        let all: Vec<Outcome> = merged.iter().map(|m| outcome(m, live)).collect();
        // Every ordered selection of two or three candidates.
        let n = all.len();
        let mut cases = 0;
        for a in 0..n {
            for b in 0..n {
                for c in 0..=n {
                    let mut picked = vec![&all[a], &all[b]];
                    if c < n {
                        picked.push(&all[c]);
                    }
                    let (winner, scores) = best_candidate(&picked);
                    assert_eq!(winner, first_lowest(&picked), "{a} {b} {c}");
                    assert_eq!(scores[winner], Some(picked[winner].score()));
                    // Whoever was not scored scores above the winner: no tie is hidden.
                    for (i, s) in scores.iter().enumerate() {
                        match s {
                            Some(s) => assert_eq!(*s, picked[i].score()),
                            None => assert!(picked[i].score() > picked[winner].score(), "{a} {b} {c}: {i}"),
                        }
                    }
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 6 * 6 * 7);
        // The identical candidate wins without the others being scored.
        let picked = [&all[0], &all[2], &all[1]];
        assert_eq!(best_candidate(&picked), (1, vec![None, Some(0), None]));
        // A lone candidate is never scored.
        assert_eq!(best_candidate(&[&all[0]]), (0, vec![None]));
    }
}

#[cfg(test)]
#[path = "early_tests.rs"]
mod early_tests;

#[cfg(test)]
#[path = "view_tests.rs"]
mod view_tests;
