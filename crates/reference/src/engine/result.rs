//! What the engine reports per CR ([`CrResult`]: the candidates tried, the winner, the
//! status) and per run ([`Comparison`]), with the small helpers that turn those facts into
//! kube-compare's policy (fatal errors, unmatched CRs) or the linter's findings.

use std::sync::Arc;

use super::Pending;
use super::collect::Cr;
use crate::compare::Outcome;
use crate::correlate::Via;

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
