//! Comparing one cluster CR with one reference template (kube-compare §5): everything
//! between "this CR, this template" and "diff text + score", on `serde_json::Value`s.
//!
//! [`compare_one`] runs kube-compare's per-candidate pipeline (`diffAgainstTemplate`, §5.1):
//! omit on the CR in place → render → `ignore-unspecified-fields` merge → user overrides →
//! inline diff functions → omit on the rendered object → write both sides (secrets masked) →
//! diff text (the go-diff score is [`Outcome::score`], on demand). The pieces are public for the linter and tests: [`omit_fields`],
//! [`merge_patch`], [`run_inline_diff_funcs`], [`godiff::score`], [`unified_diff`],
//! [`structured_diff`], [`create_merge_patch`].
//!
//! This module does not know how templates are compiled (the caller passes a render
//! closure), how CRs are correlated, or how results are reported.

pub mod godiff;
pub mod inline;
mod mask;
mod merge;
mod omit;
pub mod overrides;
pub mod render;
mod structured;
mod unified;

use serde_json::Value;
use std::sync::{Arc, LazyLock};

pub use inline::{Captures, FieldFunc, InlineDiff, run_inline_diff_funcs};
pub use mask::{is_secret, mask_secrets};
pub use merge::{create_merge_patch, merge_patch, patch_to_string};
pub use omit::omit_fields;
pub use overrides::{OverrideError, UserOverride, load_overrides, parse_overrides};
pub use render::{NotYaml, normalize_numbers, parse_rendered};
pub use structured::{FieldDiff, structured_diff};
pub use unified::civil_from_days;
pub use unified::{DiffProgram, DiffProgramError, cr_id, diff_output, slug, unified_diff};

use crate::OmitPath;

/// What the render closure reports when it does not produce text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderError {
    /// The template called `doNotMatch` (§4.4).
    DoNotMatch,
    /// Execution failed; the text is kube-compare's `Exec` error, e.g.
    /// `failed to constuct template: template: x.yaml:3:5: executing …`.
    Failed(String),
}

/// One candidate template, as the pipeline needs it.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// The template identifier (its `path` in `metadata.yaml`).
    pub id: &'a str,
    /// `fieldsToOmit` paths for this template (§2.6).
    pub omit: &'a [OmitPath],
    /// `config.ignore-unspecified-fields`.
    pub ignore_unspecified_fields: bool,
    /// v2 `perField` entries (unknown function names must be rejected at load, §2.7).
    pub per_field: &'a [FieldFunc],
}

/// Run-wide settings.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub diff: DiffProgram,
    /// `--show-managed-fields`: keep `metadata.managedFields` in the written sides.
    pub show_managed_fields: bool,
    /// Only the texts, [`Outcome::diff_output`] and [`Outcome::name`] are wanted: the
    /// outcome's objects are left `null`, so no copy of the CR or of the rendered object is
    /// made (large `driftlint compare` runs). The caller drops the texts once it has scored.
    pub diff_only: bool,
    /// [`Outcome::diff_output`] is not wanted, and left empty: `driftlint check` reads the
    /// objects' field differences, never the diff text (nor runs `KUBECTL_EXTERNAL_DIFF`).
    pub skip_diff_text: bool,
    /// What `go-template` overrides render under: the reference's limits, so that they draw
    /// on the run's one template budget ([`crate::compile::Compiled::limits`]).
    pub limits: driftlint_gotmpl::Limits,
}

/// The result of comparing a CR with one candidate.
#[derive(Debug, Clone)]
pub enum Verdict {
    Compared(Arc<Outcome>),
    /// The template called `doNotMatch`: not a candidate for this CR.
    DoNotMatch,
}

/// A finished comparison.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The rendered template after every step (before secret masking).
    pub merged: Value,
    /// The cluster CR after omission (before secret masking).
    pub live: Value,
    /// The MERGED file contents (masked for Secrets).
    pub merged_yaml: String,
    /// The LIVE file contents (masked for Secrets).
    pub live_yaml: String,
    /// The two files differ (go-diff score `> 0`, §5.8).
    pub differs: bool,
    /// `DiffOutput` (§5.7): unified diff text, empty when identical.
    pub diff_output: String,
    /// The slug used as file name (`<diff-name>`).
    pub name: String,
}

impl Outcome {
    /// An outcome holding only whether the files differ and the diff text (what
    /// `Retain::DiffOnly` keeps).
    #[must_use]
    pub fn emptied(differs: bool, diff_output: String) -> Outcome {
        let (merged_yaml, live_yaml, name) = (String::new(), String::new(), String::new());
        Outcome { merged: Value::Null, live: Value::Null, merged_yaml, live_yaml, differs, diff_output, name }
    }

    /// Whether it holds nothing but [`Outcome::emptied`] keeps.
    #[must_use]
    pub fn is_emptied(&self) -> bool {
        self.merged.is_null()
            && self.live.is_null()
            && self.merged_yaml.is_empty()
            && self.live_yaml.is_empty()
            && self.name.is_empty()
    }

    /// The go-diff score of the two files (§5.8): what kube-compare ranks candidates by.
    /// Costly (a character diff of the texts); computed on demand, because it only matters
    /// when several candidates compete, see [`godiff::score_lower_bound`].
    #[must_use]
    pub fn score(&self) -> usize {
        godiff::score(&self.merged_yaml, &self.live_yaml)
    }

    /// The `-o generate-patches` patch (§6.3): RFC 7386 merge patch from MERGED to LIVE.
    #[must_use]
    pub fn patch_for_generate(&self) -> String {
        patch_to_string(&create_merge_patch(&self.merged, &self.live))
    }

    /// JSON pointers of the differing fields (for the linter's locations).
    #[must_use]
    pub fn field_diffs(&self) -> Vec<FieldDiff> {
        structured_diff(&self.merged, &self.live)
    }
}

/// A fatal per-candidate error; `Display` is kube-compare's wrapped text (§5.1, §4.3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error("template injection failed: {0}")]
    Render(String),
    #[error("failed to properly merge the manifests for {name} some diff may be incorrect: {detail}")]
    Merge { name: String, detail: String },
    #[error("{0}")]
    Override(String),
    #[error("failed to properly run inline diff functions for {name} some diff may be incorrect: {detail}")]
    Inline { name: String, detail: String },
    #[error("{0}")]
    Diff(String),
}

/// Runs §5.1 steps 1–8 for one candidate. `cr` is omitted **in place** (kube-compare shares
/// the object between candidates and lookups, §10 #9). `overrides` are the CR's matched
/// overrides; only those that [`UserOverride::applies_to`] the candidate are used. `crs`
/// feed `lookupCR(s)` in `go-template` overrides.
pub fn compare_one(
    cr: &mut Value,
    render: impl FnOnce(&Value) -> Result<String, RenderError>,
    candidate: &Candidate<'_>,
    overrides: &[&UserOverride],
    crs: &[driftlint_gotmpl::Value],
    options: &Options,
) -> Result<Verdict, CompareError> {
    let render = |cr: &Value, _: bool| render(cr);
    compare_one_memo(cr, render, candidate, overrides, crs, options, &mut CrMemo::default())
}

/// What one CR's candidates can share: the parts of a comparison that depend on the CR
/// alone, valid while omission leaves the CR unchanged. One per CR, passed to each of its
/// candidates in turn ([`compare_one_memo`]).
#[derive(Debug, Default)]
pub struct CrMemo {
    /// A previous candidate ran with this memo.
    seen: bool,
    /// The CR's slug, while the CR is as it was when the slug was taken.
    name: Option<String>,
    /// The CR's LIVE text (when neither masking nor `managedFields` stripping applied),
    /// while the CR is as it was when the text was written.
    live_yaml: Option<String>,
}

/// [`compare_one`] for one of several candidates of the same CR, in order, with one `memo`
/// for all of them. `render` is also told whether `cr` is unchanged since the previous
/// candidate's render (so it may reuse what it derived from it); the results are those of
/// [`compare_one`].
/// The outcome of every identical CR under `diff_only`: nothing to keep but that it is.
static IDENTICAL: LazyLock<Arc<Outcome>> = LazyLock::new(|| Arc::new(Outcome::emptied(false, String::new())));

pub fn compare_one_memo(
    cr: &mut Value,
    render: impl FnOnce(&Value, bool) -> Result<String, RenderError>,
    candidate: &Candidate<'_>,
    overrides: &[&UserOverride],
    crs: &[driftlint_gotmpl::Value],
    options: &Options,
    memo: &mut CrMemo,
) -> Result<Verdict, CompareError> {
    // The slug is taken before this candidate's omission, as kube-compare does.
    let name = memo.name.take().unwrap_or_else(|| slug(&cr_id(cr)));
    // 1. Omit on the CR, in place.
    let changed = omit_fields(cr, candidate.omit);
    let unchanged = memo.seen && !changed;
    memo.seen = true;
    if changed {
        memo.live_yaml = None;
    } else {
        memo.name = Some(name.clone());
    }
    // 2. Render and post-process (§3.2).
    let raw = match render(cr, unchanged) {
        Ok(raw) => raw,
        Err(RenderError::DoNotMatch) => return Ok(Verdict::DoNotMatch),
        Err(RenderError::Failed(e)) => return Err(CompareError::Render(e)),
    };
    let mut rendered = parse_rendered(candidate.id, &raw).map_err(|e| CompareError::Render(e.to_string()))?;
    drop(raw);
    // 3. ignore-unspecified-fields: the template is a merge patch over the CR. evanphx only
    //    fails on invalid JSON, which two decoded objects cannot be.
    if candidate.ignore_unspecified_fields {
        rendered = merge_patch(cr, &rendered);
    }
    // 4. User overrides for this template, in order.
    for o in overrides.iter().filter(|o| o.applies_to(candidate.id)) {
        rendered = o.apply(&rendered, cr, crs, &options.limits).map_err(|e| CompareError::Override(e.to_string()))?;
    }
    // 5. Inline diff functions.
    if !candidate.per_field.is_empty() {
        run_inline_diff_funcs(&mut rendered, cr, candidate.per_field)
            .map_err(|detail| CompareError::Inline { name: name.clone(), detail })?;
    }
    // 6. Omit on the rendered object.
    omit_fields(&mut rendered, candidate.omit);
    // 7. Equal objects write equal files (whatever is dropped or masked, it is dropped or
    //    masked alike): no difference and no diff text, so when the files themselves are not
    //    kept and the diff is made in process, neither is written.
    let in_process = matches!(options.diff, DiffProgram::InProcess);
    if rendered == *cr && (options.diff_only || options.skip_diff_text) && in_process {
        // The objects too: what is kept of them is where they differ (`Retain`). Without the
        // name (`diff_only` empties it), one shared outcome stands for every such CR.
        if options.diff_only {
            return Ok(Verdict::Compared(Arc::clone(&IDENTICAL)));
        }
        return Ok(Verdict::Compared(Arc::new(Outcome { name, ..Outcome::emptied(false, String::new()) })));
    }
    // 8. Write (kubectl drops managedFields unless asked, and masks Secrets) and diff. The
    //    copies are only made when one of those actually changes a side.
    let strip =
        |v: &Value| !options.show_managed_fields && v.get("metadata").and_then(|m| m.get("managedFields")).is_some();
    let (merged_yaml, live_yaml) = if is_secret(cr) || strip(&rendered) || strip(cr) {
        let (mut m, mut l) = (rendered.clone(), cr.clone());
        if !options.show_managed_fields {
            for v in [&mut m, &mut l] {
                if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
                    meta.shift_remove("managedFields");
                }
            }
        }
        mask_secrets(&mut m, &mut l);
        (driftlint_yaml::to_yaml_string(&m), driftlint_yaml::to_yaml_string(&l))
    } else {
        let live_yaml = memo.live_yaml.get_or_insert_with(|| driftlint_yaml::to_yaml_string(cr)).clone();
        (driftlint_yaml::to_yaml_string(&rendered), live_yaml)
    };
    let diff_output = if !options.skip_diff_text {
        diff_output(&options.diff, &name, &merged_yaml, &live_yaml).map_err(|e| CompareError::Diff(e.to_string()))?
    } else {
        String::new()
    };
    // 9. The score is left to the caller ([`Outcome::score`]): a lone candidate needs none.
    let differs = merged_yaml != live_yaml;
    let (merged, live) = if options.diff_only { (Value::Null, Value::Null) } else { (rendered, cr.clone()) };
    Ok(Verdict::Compared(Arc::new(Outcome { merged, live, merged_yaml, live_yaml, differs, diff_output, name })))
}
