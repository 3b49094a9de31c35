//! The admission pass of `driftlint check`: every object of a batch checked against the
//! ValidatingAdmissionPolicies and bindings of the run, gathered before the batches (the
//! admission context: policies, bindings, Namespaces, CRDs, and the parameter objects).

use std::collections::HashSet;
use std::ops::Range;

use driftlint_cel::cost;
use driftlint_core::diagnostic::{Diagnostic, Rule, SourcePath};
use driftlint_core::document::{Collection, Document};
use driftlint_core::locate::{FieldDiffKind, Files, node_range};
use driftlint_core::pass::{Batch, Pass, PassError};
use serde_json::Value as Json;

use crate::{Object, check_trusting};

/// Whether a text may define admission policies: only then does the pass run.
pub fn may_hold_policies(text: &str) -> bool {
    text.contains("ValidatingAdmissionPolicy")
}

/// Whether a text may hold part of the admission context. With parameterised policies
/// (`paramKind`), the parameters may be objects of any kind, so every text may.
pub fn may_hold_context(text: &str, parameterised: bool) -> bool {
    context_words(parameterised).is_none_or(|words| words.iter().any(|w| text.contains(w)))
}

/// The words a text that may hold part of the admission context has one of; `None` when
/// any text may.
pub fn context_words(parameterised: bool) -> Option<&'static [&'static str]> {
    (!parameterised).then_some(&["admissionregistration.k8s.io", "Namespace"])
}

/// Whether a document is part of the admission context (see [`may_hold_context`]).
pub fn is_context(doc: &Document, parameterised: bool) -> bool {
    parameterised
        || matches!(
            doc.identity.kind.as_str(),
            "ValidatingAdmissionPolicy" | "ValidatingAdmissionPolicyBinding" | "Namespace" | "CustomResourceDefinition"
        )
}

/// Where findings about an object point: its `kind:` line (the document's start without one).
pub fn object_range(doc: &Document) -> Range<usize> {
    node_range(&doc.node, "/kind", FieldDiffKind::Changed)
}

/// The admission context of a run, owned, and the pass over its batches.
pub struct AdmissionPass {
    context: Vec<(Json, SourcePath, Range<usize>)>,
    budget: cost::Budget,
    diagnostics: Vec<Diagnostic>,
    /// The files of the policies and bindings among `context`.
    policy_files: HashSet<SourcePath>,
    /// Findings about the policies and bindings themselves, already reported.
    reported: HashSet<(SourcePath, Option<Range<usize>>, String)>,
    /// How many of `context`'s first objects come from trusted locations.
    trusted: usize,
}

impl AdmissionPass {
    /// The pass over `trusted` (policies and bindings from the configured schema locations, as
    /// (object, file, range)) and the context documents `docs` of `coll` (the run's early
    /// documents).
    pub fn new<'d>(
        trusted: Vec<(Json, SourcePath, Range<usize>)>,
        coll: &Collection,
        docs: impl IntoIterator<Item = &'d Document>,
    ) -> Self {
        let trusted_count = trusted.len();
        let mut context = trusted;
        context
            .extend(docs.into_iter().map(|d| (d.object.clone(), coll.sources[d.source].path.clone(), object_range(d))));
        let policy_files = context
            .iter()
            .filter(|(v, _, _)| v["kind"].as_str().is_some_and(|k| k.starts_with("ValidatingAdmissionPolicy")))
            .map(|(_, p, _)| p.clone())
            .collect();
        AdmissionPass {
            context,
            budget: cost::Budget::default(),
            diagnostics: Vec::new(),
            policy_files,
            reported: HashSet::new(),
            trusted: trusted_count,
        }
    }

    /// The files of the policies and bindings: findings about them may be made with any batch,
    /// so the runner keeps their texts.
    pub fn policy_files(&self) -> impl Iterator<Item = &SourcePath> {
        self.policy_files.iter()
    }
}

impl Pass for AdmissionPass {
    fn name(&self) -> &'static str {
        "admission policies"
    }

    fn batch(&mut self, batch: Batch<'_>, _files: &mut Files) -> Result<&[Diagnostic], PassError> {
        let first = self.diagnostics.len();
        let context: Vec<Object<'_>> =
            self.context.iter().map(|(v, p, r)| Object { value: v, path: p, range: Some(r.clone()) }).collect();
        let coll = batch.coll;
        let targets: Vec<Object<'_>> = coll
            .documents
            .iter()
            .map(|d| Object { value: &d.object, path: &coll.sources[d.source].path, range: Some(object_range(d)) })
            .collect();
        // Findings about the policies and bindings themselves (an expression that does not
        // compile, a binding that cannot be decided) come with every batch: each is reported
        // once.
        let found = check_trusting(&context, self.trusted, &targets, &mut self.budget);
        for d in found {
            let about_policy = d.rule != Rule::AdmissionViolation && self.policy_files.contains(&d.primary.path);
            if about_policy
                && !self.reported.insert((d.primary.path.clone(), d.primary.range.clone(), d.message.clone()))
            {
                continue;
            }
            self.diagnostics.push(d);
        }
        Ok(&self.diagnostics[first..])
    }

    fn finish(&mut self, _files: &mut Files) -> Result<Vec<Diagnostic>, PassError> {
        Ok(std::mem::take(&mut self.diagnostics))
    }
}
