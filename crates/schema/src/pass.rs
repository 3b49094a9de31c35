//! The schema pass of `driftlint check`: every document that is not a definition or a
//! Composition is an instance, validated against the schema of its apiVersion and kind, found
//! in trust order ([`Registry::resolve`]): the trusted definitions, Kubernetes' built-in kinds
//! of the chosen version, the checked definitions.
//!
//! A type without a schema is `schema-not-found` at the document's `kind:` line: a warning in
//! loose mode, an error in strict mode, not reported in ignore mode. An apiVersion/kind of a built-in API group that the
//! chosen Kubernetes version does not serve is an error whatever the mode, since the API server
//! rejects it: `removed-api-version` when Kubernetes removed it (naming the version and the
//! replacement), `unknown-kind` otherwise (with the closest kinds). A built-in group's kind
//! that driftlint does not bundle (the `metrics.k8s.io` kinds) is not flagged in loose mode.

use super::builtin::Unknown;
use super::coverage::Coverage;
use super::validate::{self, Options};
use super::{
    Lookup, Mode, Registry, Resolved, Schema, is_builtin_group, is_definition, is_package_metadata, split_api_version,
};
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::document::{Collection, Document};
use driftlint_core::input::SourcePath;

/// Validates every instance of `coll`.
pub fn run(coll: &Collection, registry: &Registry, mode: Mode) -> Vec<Diagnostic> {
    run_counted(coll, registry, mode, &mut Coverage::default())
}

/// [`run`], adding what was validated to `coverage`.
pub fn run_counted(coll: &Collection, registry: &Registry, mode: Mode, coverage: &mut Coverage) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // CEL rules noted as not evaluated (once per run each).
    let mut noted = std::collections::HashSet::new();
    // Each type is resolved once a run: its key borrows the documents' strings, so a lookup
    // allocates nothing (resolving builds owned keys for the registry's maps).
    let mut types: std::collections::HashMap<(&str, &str), Resolved<'_>> = std::collections::HashMap::new();
    for doc in &coll.documents {
        let id = &doc.identity;
        if is_definition(&id.api_version, &id.kind) || is_package_metadata(&id.api_version) {
            coverage.not_validated += 1;
            continue;
        }
        let path = &coll.sources[doc.source].path;
        let resolved = types
            .entry((id.api_version.as_str(), id.kind.as_str()))
            .or_insert_with(|| registry.resolve(&id.api_version, &id.kind))
            .clone();
        match &resolved {
            Resolved::Defined(_) | Resolved::Builtin(_) | Resolved::Located(_) => coverage.validated += 1,
            _ => *coverage.without_schema.entry(format!("{} {}", id.api_version, id.kind)).or_default() += 1,
        }
        match resolved {
            Resolved::Defined(schema) => validate(doc, path, schema, false, &mut noted, &mut out),
            Resolved::Builtin(schema) => validate(doc, path, schema, true, &mut noted, &mut out),
            Resolved::Located(schema) => validate(doc, path, &schema, true, &mut noted, &mut out),
            Resolved::UnknownBuiltin(why) => out.push(unknown(doc, path, registry.kubernetes_version(), why)),
            Resolved::LocationRefused(why) => {
                let span =
                    doc.node.entry("kind").map_or_else(|| validate::first_key_span(&doc.node), |(k, _)| k.span.clone());
                out.push(
                    Diagnostic::error(Rule::InvalidSchema, path.clone(), Some(span), why)
                        .with_object(doc.identity.cr_id(), None),
                );
            }
            Resolved::Missing(missing) => {
                let (group, _) = split_api_version(&id.api_version);
                let Some(severity) = mode.missing_severity() else { continue };
                if (mode == Mode::Loose || registry.builtins_off) && is_builtin_group(group) {
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
                out.push(not_found(doc, path, severity, what));
            }
        }
    }
    out
}

/// The findings of `doc` against `schema`; with `builtin` (a bundled or a JSON schema, not a
/// CRD's), its `metadata` too (Kubernetes' `ObjectMeta` there) and, for a built-in group's
/// kind, what the API server rejects beyond the schema ([`super::server`]).
fn validate(
    doc: &Document,
    path: &SourcePath,
    schema: &Schema,
    builtin: bool,
    noted: &mut std::collections::HashSet<usize>,
    out: &mut Vec<Diagnostic>,
) {
    let mut findings = validate::validate_object(&doc.node, schema, Options { required: true });
    if builtin
        && let Some((key, value)) = doc.node.entry("metadata")
        && let Some(meta) = schema.properties.get("metadata")
    {
        findings.extend(validate::validate_field(key, value, meta, "/metadata", Options { required: true }));
    }
    for f in findings {
        if let Some(key) = f.once
            && !noted.insert(key)
        {
            continue;
        }
        out.push(
            Diagnostic::new(f.rule, f.severity, path.clone(), Some(f.span), f.message)
                .with_object(doc.identity.cr_id(), Some(f.pointer)),
        );
    }
    let (group, _) = split_api_version(&doc.identity.api_version);
    if builtin && super::builtin::is_bundled_group(group) {
        for f in super::server::check(&doc.node, group, &doc.identity.kind) {
            out.push(
                Diagnostic::error(f.rule, path.clone(), Some(f.span), f.message)
                    .with_object(doc.identity.cr_id(), Some(f.pointer)),
            );
        }
    }
}

/// `unknown-kind` or `removed-api-version` at the `kind:` (or `apiVersion:` for a removed
/// version) of `doc`.
fn unknown(doc: &Document, path: &SourcePath, kube: &str, why: Unknown) -> Diagnostic {
    let id = &doc.identity;
    let key_span = |key: &str| doc.node.entry(key).map(|(k, _)| k.span.clone());
    let first = || validate::first_key_span(&doc.node);
    let (rule, span, message, help) = match why {
        Unknown::Removed { removed_in, replacement } => {
            let help = match &replacement {
                Some(r) => format!("use `apiVersion: {r}` (check the fields that changed between the two)"),
                None => format!("Kubernetes {kube} has no replacement for `{}`: remove the object", id.kind),
            };
            let message = format!(
                "`{} {}` was removed in Kubernetes {removed_in}{}: Kubernetes {kube} rejects it",
                id.api_version,
                id.kind,
                replacement.as_ref().map_or(String::new(), |r| format!(" (use {r})"))
            );
            (Rule::RemovedApiVersion, key_span("apiVersion").unwrap_or_else(first), message, help)
        }
        Unknown::NotYet { added_in } => (
            Rule::UnknownKind,
            key_span("kind").unwrap_or_else(first),
            format!("`{} {}` is not served by Kubernetes {kube}: it was added in {added_in}", id.api_version, id.kind),
            format!(
                "choose a newer Kubernetes version with --kubernetes-version or `kubernetes-version:` ({added_in} or later)"
            ),
        ),
        Unknown::NoSuchKind { suggestions } => {
            let message = format!("Kubernetes {kube} has no kind `{}` in `{}`", id.kind, id.api_version);
            let help = match suggestions.as_slice() {
                [] => "check the spelling of `kind` and `apiVersion` (`kubectl api-resources` lists them)".to_string(),
                some => format!(
                    "did you mean {}?",
                    some.iter().map(|(av, k)| format!("`{av} {k}`")).collect::<Vec<_>>().join(" or ")
                ),
            };
            (Rule::UnknownKind, key_span("kind").unwrap_or_else(first), message, help)
        }
    };
    Diagnostic::error(rule, path.clone(), Some(span), message).with_object(id.cr_id(), None).with_help(help)
}

/// `schema-not-found` at the `kind:` of `doc` (the document's first key without one).
fn not_found(doc: &Document, path: &SourcePath, severity: Severity, message: String) -> Diagnostic {
    let span = doc.node.entry("kind").map_or_else(|| validate::first_key_span(&doc.node), |(k, _)| k.span.clone());
    Diagnostic::new(Rule::SchemaNotFound, severity, path.clone(), Some(span), message)
        .with_object(doc.identity.cr_id(), None)
        .with_help("give its CustomResourceDefinition or CompositeResourceDefinition with --schemas or `schemas:`")
}
