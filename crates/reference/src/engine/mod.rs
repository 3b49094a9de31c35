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
mod lookups;
pub mod packed;
mod result;
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
use lookups::{Found, Lookup, Lookups, lookup_plan};
pub use lookups::{Pending, View};
pub use result::{Compared, Comparison, CrResult, Status, Tried, TriedResult};

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
