//! The schema pass of `driftlint check`: every document that is not a definition or a
//! Composition is an instance, validated against the schema of its apiVersion and kind.
//!
//! A type without a schema is `schema-not-found` at the document's `kind:` line: a warning in
//! loose mode, an error in strict mode. Kubernetes' built-in kinds (and Crossplane's own API)
//! are never flagged in loose mode, since driftlint bundles no schemas for them; strict mode
//! flags them too (strict means nothing goes unvalidated: give their schemas with
//! `--schemas`, or lower the rule's level for them).

use super::validate::{self, Options};
use super::{Lookup, Mode, Registry, is_builtin_group, is_definition, is_package_metadata, split_api_version};
use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::document::{Collection, Document};

/// Validates every instance of `coll`.
pub fn run(coll: &Collection, registry: &Registry, mode: Mode) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // CEL rules noted as not evaluated (once per run each).
    let mut noted = std::collections::HashSet::new();
    for doc in &coll.documents {
        let id = &doc.identity;
        if is_definition(&id.api_version, &id.kind) || is_package_metadata(&id.api_version) {
            continue;
        }
        let path = &coll.sources[doc.source].path;
        match registry.lookup(&id.api_version, &id.kind) {
            Lookup::Found(schema) => {
                for f in validate::validate_object(&doc.node, schema, Options { required: true }) {
                    if let Some(key) = f.once
                        && !noted.insert(key)
                    {
                        continue;
                    }
                    out.push(
                        Diagnostic::new(f.rule, f.severity, path.clone(), Some(f.span), f.message)
                            .with_object(id.cr_id(), Some(f.pointer)),
                    );
                }
            }
            missing => {
                let (group, _) = split_api_version(&id.api_version);
                if mode == Mode::Loose && is_builtin_group(group) {
                    continue;
                }
                let what = match missing {
                    Lookup::NoVersion => format!(
                        "no schema for `{}` version `{}`: the CRD/XRD for {} does not serve it",
                        id.kind,
                        split_api_version(&id.api_version).1,
                        id.kind
                    ),
                    _ => format!("no schema for `{}` ({}): no CRD or XRD defines it", id.kind, id.api_version),
                };
                out.push(not_found(doc, path, mode, what));
            }
        }
    }
    out
}

/// `schema-not-found` at the `kind:` of `doc` (the document's first key without one).
fn not_found(doc: &Document, path: &driftlint_core::input::SourcePath, mode: Mode, message: String) -> Diagnostic {
    let span = doc.node.entry("kind").map_or_else(|| validate::first_key_span(&doc.node), |(k, _)| k.span.clone());
    Diagnostic::new(Rule::SchemaNotFound, mode.missing_severity(), path.clone(), Some(span), message)
        .with_object(doc.identity.cr_id(), None)
        .with_help("give its CustomResourceDefinition or CompositeResourceDefinition with --schemas or `schemas:`")
}
