//! The Crossplane pass of `driftlint check`: Compositions (`apiextensions.crossplane.io`)
//! checked like Crossplane's composition validating webhook design, in three levels.
//!
//! 1. logical ([`logical`], [`patch_rules`]): needs no schema; any error here stops the
//!    Composition's other levels (and its schema lookups), as upstream's webhook does;
//! 2. patches ([`patches`]): field paths and value types against the XR's schema (from its
//!    XRD) and the composed resource's (from its CRD);
//! 3. rendered base ([`render`]): the base with its patches applied, against the composed
//!    resource's schema.
//!
//! The mode comes from the Composition's `crossplane.io/composition-schema-aware-validation-mode`
//! annotation, else from `--schema-mode`: a missing schema is a warning (loose: only the checks
//! that need it are skipped) or an error (strict); `warn` is loose with every finding of levels
//! 2 and 3 a warning (Crossplane admits the Composition with warnings). In a `mode: Pipeline`
//! Composition, each function-patch-and-transform step's input is checked at all three levels
//! like a Resources-mode spec ([`pipeline`]); other functions' steps get a note each. Legacy
//! `spec.functions` skip level 3. Truth: `../shared/conformance/crossplane/README.md`.
//!
//! Stands on the ground (`driftlint-core`) and the schema family's registry; must not know
//! references, policies, git or the command line.

#![forbid(unsafe_code)]

pub mod fieldpath;
pub mod logical;
pub mod pass;
pub mod patch_rules;
pub mod patches;
pub mod pipeline;
pub mod problems;
pub mod render;
pub mod types;

use std::collections::HashMap;
use std::ops::Range;

use driftlint_yaml::{Node, NodeValue};

use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::document::Collection;
use driftlint_schema::{Lookup, Mode, Registry, Resolved, is_builtin_group, split_api_version};
use patches::{Avail, Schemas};

/// One finding of a Composition, before it becomes a diagnostic.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub rule: Rule,
    pub severity: Severity,
    pub span: Range<usize>,
    pub message: String,
}

/// Checks every Composition among the documents.
pub fn run(coll: &Collection, registry: &Registry, default_mode: Mode) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for doc in &coll.documents {
        let (group, _) = split_api_version(&doc.identity.api_version);
        if group != "apiextensions.crossplane.io" || doc.identity.kind != "Composition" {
            continue;
        }
        let path = &coll.sources[doc.source].path;
        for f in check_composition(&doc.node, registry, default_mode) {
            out.push(
                Diagnostic::new(f.rule, f.severity, path.clone(), Some(f.span), f.message)
                    .with_object(doc.identity.cr_id(), None),
            );
        }
    }
    out
}

/// All findings of one Composition (`root` is its document).
pub fn check_composition(root: &Node, registry: &Registry, default_mode: Mode) -> Vec<Finding> {
    let major = crossplane_major(root, registry);
    let problems = logical::check(root, major);
    if !problems.0.is_empty() {
        return problems
            .0
            .into_iter()
            .map(|(span, message)| Finding { rule: Rule::CompositionInvalid, severity: Severity::Error, span, message })
            .collect();
    }
    let mut out = Vec::new();
    let Some(spec) = root.get("spec") else { return out };
    let annotation =
        root.get("metadata").and_then(|m| m.get("annotations")).and_then(|a| text(a, logical::MODE_ANNOTATION));
    // `warn` (Crossplane's default since 1.14): the schema-aware checks run as in loose mode
    // and their errors are only warnings (the webhook admits the Composition with warnings).
    let warn_only = annotation == Some("warn");
    let mode = annotation.and_then(Mode::parse).unwrap_or(if warn_only { Mode::Loose } else { default_mode });
    // The bodies that declare resources and patches: the spec itself, or the input of each
    // function-patch-and-transform step; other steps get a note each.
    let pipeline = match text(spec, "mode") {
        Some(mode) => mode == "Pipeline",
        None => major >= 2,
    };
    let bodies: Vec<&Node> = if pipeline {
        let mut bodies = Vec::new();
        for step in items(spec, "pipeline") {
            match pipeline::classify(step) {
                pipeline::Step::PatchAndTransform(input) => {
                    let env_patches = input.get("environment").is_some_and(|e| !items(e, "patches").is_empty());
                    if items(input, "resources").is_empty() && !env_patches {
                        out.push(Finding {
                            rule: Rule::CompositionSkipped,
                            severity: Severity::Warning,
                            span: key_span(step, "input").unwrap_or_else(|| step.span.clone()),
                            message: "the patch-and-transform input has neither `resources` nor environment patches: the function fails on it".into(),
                        });
                    }
                    bodies.push(input);
                }
                pipeline::Step::NoInput { span, message } => {
                    out.push(Finding { rule: Rule::CompositionSkipped, severity: Severity::Warning, span, message });
                }
                pipeline::Step::Other { name, function } => out.push(Finding {
                    rule: Rule::CompositionSkipped,
                    severity: Severity::Note,
                    span: key_span(step, "step").unwrap_or_else(|| step.span.clone()),
                    message: format!(
                        "pipeline step `{name}` (function `{function}`) is not checked: its function makes resources that cannot be seen offline"
                    ),
                }),
                // Reported by the logical checks.
                pipeline::Step::BadInput { .. } => {}
            }
        }
        bodies
    } else {
        vec![spec]
    };
    if bodies.is_empty() {
        return out;
    }
    let xr =
        spec.get("compositeTypeRef").map_or(Avail::Missing, |r| lookup(registry, r, mode, "composite type", &mut out));
    let xr_kind = spec.get("compositeTypeRef").and_then(|r| text(r, "kind")).unwrap_or("the XR");
    let legacy_functions = !items(spec, "functions").is_empty();
    if legacy_functions {
        out.push(skipped(
            spec,
            "functions",
            "spec.functions run after the patches and may set any field: the rendered-base checks were skipped",
        ));
    }
    let composition = Composition {
        registry,
        mode,
        xr,
        xr_kind,
        render: !legacy_functions,
        secret_ref_filled: spec.get("writeConnectionSecretsToNamespace").is_some(),
    };
    for body in bodies {
        check_body(body, &composition, &mut out);
    }
    if warn_only {
        for f in &mut out {
            if f.severity == Severity::Error {
                f.severity = Severity::Warning;
            }
        }
    }
    out
}

/// The Crossplane major version a Composition is read for: the configuration's
/// `crossplane-version:`, else 2 when its composite type is defined by an
/// `apiextensions.crossplane.io/v2` XRD (only Crossplane 2 serves those), else 1.
pub fn crossplane_major(root: &Node, registry: &Registry) -> u8 {
    if let Some(v) = registry.crossplane_version {
        return v;
    }
    let r = root.get("spec").and_then(|s| s.get("compositeTypeRef"));
    let (api_version, kind) =
        r.map_or(("", ""), |r| (text(r, "apiVersion").unwrap_or(""), text(r, "kind").unwrap_or("")));
    if registry.defined_by_v2_xrd(api_version, kind) { 2 } else { 1 }
}

/// What every body of one Composition shares.
struct Composition<'r> {
    registry: &'r Registry,
    mode: Mode,
    xr: Avail<'r>,
    xr_kind: &'r str,
    /// Whether the rendered bases are checked (not with legacy `spec.functions`).
    render: bool,
    secret_ref_filled: bool,
}

/// Levels 2 and 3 over one body: a Resources-mode spec, or a patch-and-transform step's input
/// (`patchSets`, `environment.patches`, `resources` have the same shape in both).
fn check_body<'n>(body: &'n Node, c: &Composition<'n>, out: &mut Vec<Finding>) {
    let patch_sets: HashMap<&str, &Node> =
        items(body, "patchSets").iter().filter_map(|s| text(s, "name").map(|n| (n, s))).collect();
    if let Some(env) = body.get("environment") {
        patches::check_environment(env, c.xr, c.xr_kind, out);
    }
    let mut expanded = patches::Expanded::default();
    for resource in items(body, "resources") {
        let Some((base_key, base)) = resource.entry("base") else { continue };
        let composed = if text(base, "apiVersion").is_some() && text(base, "kind").is_some() {
            lookup(c.registry, base, c.mode, "composed resource", out)
        } else {
            Avail::Missing
        };
        let composed_kind = text(base, "kind").unwrap_or("the composed resource");
        let schemas =
            Schemas { xr: c.xr, composed, xr_kind: c.xr_kind, composed_kind, secret_ref_filled: c.secret_ref_filled };
        let written = patches::check_resource(resource, &patch_sets, schemas, &mut expanded, out);
        if let (true, Avail::Schema(schema)) = (c.render, composed) {
            render::check_base(base_key, base, schema, &written, out);
        }
    }
}

/// The schema of the type `node`'s apiVersion and kind name: a CRD's or XRD's, else the
/// bundled schema of a Kubernetes built-in kind (a composed `v1 ConfigMap` is validated as an
/// instance of it is); when there is none, `schema-not-found` at its `kind:`.
fn lookup<'r>(registry: &'r Registry, node: &Node, mode: Mode, what: &str, out: &mut Vec<Finding>) -> Avail<'r> {
    let api_version = text(node, "apiVersion").unwrap_or_default();
    let kind = text(node, "kind").unwrap_or_default();
    let found = registry.lookup(api_version, kind);
    if !matches!(found, Lookup::Found(_))
        && let Resolved::Builtin(s) = registry.resolve(api_version, kind)
    {
        return Avail::Schema(s);
    }
    let message = match found {
        Lookup::Found(s) => return Avail::Schema(s),
        // As for instances: Crossplane's own API (a composed `Usage`) and built-in kinds of
        // another Kubernetes version have no bundled schema, and loose mode does not flag them.
        _ if mode != Mode::Strict && is_builtin_group(split_api_version(api_version).0) => return Avail::Missing,
        Lookup::NoVersion => {
            format!("no schema for the {what} `{kind}` version {api_version}: its definition does not serve it")
        }
        Lookup::NoKind => format!("no schema for the {what} `{kind}` ({api_version}): no CRD or XRD defines it"),
    };
    let span = node.entry("kind").map_or(node.span.clone(), |(k, _)| k.span.clone());
    let Some(severity) = mode.missing_severity() else { return Avail::Missing };
    let message = match mode {
        Mode::Strict => message,
        Mode::Loose | Mode::Ignore => format!("{message}; the checks that need it are skipped"),
    };
    out.push(Finding { rule: Rule::SchemaNotFound, severity, span, message });
    Avail::Missing
}

/// The note that functions made some checks impossible, at `key` of `spec`.
fn skipped(spec: &Node, key: &str, message: &str) -> Finding {
    let span = key_span(spec, key).unwrap_or_else(|| spec.span.clone());
    Finding { rule: Rule::CompositionSkipped, severity: Severity::Note, span, message: message.into() }
}

/// The items of the list at `key` (empty when absent or not a list).
pub(crate) fn items<'a>(node: &'a Node, key: &str) -> &'a [Node] {
    match node.get(key).map(|v| &v.value) {
        Some(NodeValue::Sequence(items)) => items,
        _ => &[],
    }
}

/// The non-empty string at `key`.
pub(crate) fn text<'a>(node: &'a Node, key: &str) -> Option<&'a str> {
    node.get(key).and_then(Node::as_str).filter(|s| !s.is_empty())
}

/// The span of the key `key` of a mapping.
pub(crate) fn key_span(node: &Node, key: &str) -> Option<Range<usize>> {
    node.entry(key).map(|(k, _)| k.span.clone())
}

/// The first key of a mapping (the line that stands for a document).
pub(crate) fn first_key(node: &Node) -> Range<usize> {
    driftlint_schema::validate::first_key_span(node)
}
