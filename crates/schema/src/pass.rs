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
//! that driftlint does not bundle (the `metrics.k8s.io` kinds) is not flagged in loose mode;
//! a custom resource of another `*.k8s.io` group (`gateway.networking.k8s.io`) is.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use super::builtin::Unknown;
use super::coverage::Coverage;
use super::validate::{self, Options};
use super::{
    Lookup, Mode, Registry, Resolved, Schema, is_builtin_group, is_definition, is_package_metadata, split_api_version,
};
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::document::{Collection, Document};
use driftlint_core::input::SourcePath;
use driftlint_core::input::kustomize::{Form, Patch, Sets};
use driftlint_yaml::{Node, NodeValue};

/// What the CEL rules of a run share across its batches (the pass runs once per batch, on
/// the thread that reports them, in input order): the run's cost budget, and the rules noted
/// as not evaluated, once per run each (keyed by their [`super::cel::Validation`]'s address;
/// the registry holds every schema for the run).
#[derive(Debug, Default)]
pub struct CelRun {
    pub budget: driftlint_cel::cost::Budget,
    noted: HashSet<usize>,
}

/// The schema pass over the batches of a run: its findings (after those met while the
/// registry was built), and what it validated.
pub struct SchemaPass<'r> {
    registry: &'r Registry,
    mode: Mode,
    diagnostics: Vec<Diagnostic>,
    /// What was validated so far.
    pub coverage: Coverage,
    /// What kustomizations set on the resource files they build, by path: a required field
    /// they set is not missing.
    kustomize: HashMap<PathBuf, Sets>,
    /// Each type's resolution, once a run (see [`Types`]).
    types: Types<'r>,
}

/// The schema each apiVersion and kind resolves to, for the types with one definition or none
/// (whose resolution does not depend on the object's file), looked up by borrowed strings: a
/// run of many objects of few types resolves each type once, and a lookup allocates nothing.
#[derive(Default)]
pub struct Types<'r>(HashMap<String, HashMap<String, Resolved<'r>>>);

impl<'r> Types<'r> {
    fn resolve(&mut self, registry: &'r Registry, path: &SourcePath, api_version: &str, kind: &str) -> Resolved<'r> {
        if let Some(resolved) = self.0.get(api_version).and_then(|kinds| kinds.get(kind)) {
            return resolved.clone();
        }
        if registry.has_alternatives(api_version, kind) {
            return registry.resolve_for(Some(path), api_version, kind);
        }
        let resolved = registry.resolve(api_version, kind);
        self.0.entry(api_version.to_string()).or_default().insert(kind.to_string(), resolved.clone());
        resolved
    }
}

impl<'r> SchemaPass<'r> {
    /// A pass validating against `registry` in `mode`; `found` are the findings of building
    /// the registry (definitions that could not be loaded), reported first.
    pub fn new(registry: &'r Registry, mode: Mode, found: Vec<Diagnostic>) -> Self {
        SchemaPass {
            registry,
            mode,
            diagnostics: found,
            coverage: Coverage::default(),
            kustomize: HashMap::new(),
            types: Types::default(),
        }
    }

    /// The pass, with what kustomizations set on the resource files they build (paths as the
    /// inputs name them): `schema-required-missing` of a field set so is not reported (a base
    /// Deployment without the `spec.selector` its kustomization's `commonLabels` adds).
    pub fn with_kustomize_sets(mut self, sets: HashMap<PathBuf, Sets>) -> Self {
        self.kustomize = sets;
        self
    }
}

impl driftlint_core::pass::Pass for SchemaPass<'_> {
    fn name(&self) -> &'static str {
        "schemas"
    }

    fn batch(
        &mut self,
        batch: driftlint_core::pass::Batch<'_>,
        _files: &mut driftlint_core::locate::Files,
    ) -> Result<&[Diagnostic], driftlint_core::pass::PassError> {
        let first = self.diagnostics.len();
        let mut found = run_typed(batch.coll, self.registry, self.mode, &mut self.coverage, &mut self.types);
        if !self.kustomize.is_empty() {
            found.retain(|d| {
                let SourcePath::File(p) = &d.primary.path else { return true };
                !(d.rule == Rule::SchemaRequiredMissing
                    && d.field.as_deref().is_some_and(|f| {
                        self.kustomize.get(&driftlint_core::input::kustomize::normalise(p)).is_some_and(|s| s.covers(f))
                    }))
            });
        }
        self.diagnostics.extend(found);
        Ok(&self.diagnostics[first..])
    }

    fn finish(
        &mut self,
        _files: &mut driftlint_core::locate::Files,
    ) -> Result<Vec<Diagnostic>, driftlint_core::pass::PassError> {
        Ok(std::mem::take(&mut self.diagnostics))
    }
}

/// Validates every instance of `coll`.
pub fn run(coll: &Collection, registry: &Registry, mode: Mode) -> Vec<Diagnostic> {
    run_counted(coll, registry, mode, &mut Coverage::default())
}

/// [`run`], adding what was validated to `coverage`.
pub fn run_counted(coll: &Collection, registry: &Registry, mode: Mode, coverage: &mut Coverage) -> Vec<Diagnostic> {
    run_typed(coll, registry, mode, coverage, &mut Types::default())
}

/// [`run_counted`] with the types resolved so far in the run.
fn run_typed<'r>(
    coll: &Collection,
    registry: &'r Registry,
    mode: Mode,
    coverage: &mut Coverage,
    types: &mut Types<'r>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut cel = registry.cel_run();
    let cel = &mut *cel;
    for doc in &coll.documents {
        let id = &doc.identity;
        if is_definition(&id.api_version, &id.kind) || is_package_metadata(&id.api_version) {
            coverage.not_validated += 1;
            continue;
        }
        let path = &coll.sources[doc.source].path;
        let resolved = types.resolve(registry, path, &id.api_version, &id.kind);
        match &resolved {
            Resolved::Defined(_) | Resolved::Builtin(_) | Resolved::Located(_) => coverage.validated += 1,
            _ => *coverage.without_schema.entry(format!("{} {}", id.api_version, id.kind)).or_default() += 1,
        }
        match resolved {
            Resolved::Defined(schema) => validate(doc, &coll.sources[doc.source], schema, false, cel, &mut out),
            Resolved::Builtin(schema) => validate(doc, &coll.sources[doc.source], schema, true, cel, &mut out),
            Resolved::Located(schema) => validate(doc, &coll.sources[doc.source], &schema, true, cel, &mut out),
            Resolved::UnknownBuiltin(why) => {
                let mut d = unknown(doc, path, registry, why.clone());
                if let Unknown::Removed { replacement: Some(replacement), .. } = &why {
                    match replacement_fix(doc, &coll.sources[doc.source], registry, replacement, cel) {
                        Ok(fix) => d.fix = fix,
                        Err(problems) => d = d.with_help(problems),
                    }
                }
                out.push(d);
            }
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
                if (mode == Mode::Loose || registry.builtins_off) && quiet_when_missing(group) {
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

/// The findings of a kustomize patch (a file's, or one written in its kustomization) against
/// the schema of the kind it patches: a strategic-merge patch is a partial object
/// ([`validate::validate_patch`]: field names, types and values, its directives understood,
/// no required field demanded); a JSON 6902 patch is a list of operations, each with a known
/// `op`, a `path` (and `from`) that the schema has, and a `value` of the type found there.
/// The kind is the patch's own (`apiVersion`/`kind`), else its kustomization's `target:`
/// (a target without a version takes the version served for that kind). A patch whose kind
/// has no schema is not checked: the resources of that kind are reported for it.
pub fn patch(registry: &Registry, patch: &Patch) -> Vec<Diagnostic> {
    let path = &patch.source.path;
    let stream = driftlint_yaml::parse_stream(patch.text());
    let mut out = Vec::new();
    if let Some(err) = &stream.error {
        let at = patch.map(err.offset..err.offset);
        out.push(Diagnostic::error(
            Rule::YamlSyntaxError,
            path.clone(),
            Some(at),
            format!("patch does not parse: {}", err.message),
        ));
    }
    let target = |api_version: Option<&str>, kind: Option<&str>| -> Option<(String, String)> {
        let kind = kind.or(patch.target.kind.as_deref())?.to_string();
        if let Some(av) = api_version {
            return Some((av.to_string(), kind));
        }
        let group = patch.target.group.as_deref();
        let api_version = match patch.target.version.as_deref() {
            Some(v) => match group {
                Some(g) if !g.is_empty() => format!("{g}/{v}"),
                _ => v.to_string(),
            },
            None => served_version(registry, group, &kind)?,
        };
        Some((api_version, kind))
    };
    for doc in &stream.documents {
        let root = &doc.root;
        let json6902 = match patch.form {
            Form::Json6902 => true,
            Form::StrategicMerge => false,
            Form::Either => matches!(root.value, NodeValue::Sequence(_)),
        };
        if json6902 {
            let ty = target(None, None);
            json_patch(registry, patch, root, ty, &mut out);
            continue;
        }
        if matches!(root.value, NodeValue::Null) {
            continue;
        }
        let field = |k: &str| root.get(k).and_then(|n| n.as_str());
        let Some((api_version, kind)) = target(field("apiVersion"), field("kind")) else { continue };
        let Some((schema, builtin)) = schema_of(registry, &patch.source.path, &api_version, &kind) else { continue };
        let mut findings = validate::validate_patch(root, &schema);
        if builtin
            && let Some((key, value)) = root.entry("metadata")
            && let Some(meta) = schema.properties.get("metadata")
        {
            findings.extend(validate::validate_patch_value(&key.span, value, meta, "/metadata"));
        }
        out.extend(findings.into_iter().map(|f| patch_finding(patch, &api_version, &kind, f)));
    }
    out
}

/// A schema for `api_version` `kind` (the nearest definition to the patch's file), and whether
/// it is a built-in kind's (whose `metadata` the schema describes).
fn schema_of<'r>(registry: &'r Registry, at: &SourcePath, api_version: &str, kind: &str) -> Option<(Held<'r>, bool)> {
    match registry.resolve_for(Some(at), api_version, kind) {
        Resolved::Defined(s) => Some((Held::Borrowed(s), false)),
        Resolved::Builtin(s) => Some((Held::Borrowed(s), true)),
        Resolved::Located(s) => Some((Held::Shared(s), true)),
        _ => None,
    }
}

/// A schema the registry holds, or one a location loaded.
enum Held<'r> {
    Borrowed(&'r Schema),
    Shared(std::sync::Arc<Schema>),
}

impl std::ops::Deref for Held<'_> {
    type Target = Schema;
    fn deref(&self) -> &Schema {
        match self {
            Held::Borrowed(s) => s,
            Held::Shared(s) => s,
        }
    }
}

/// The apiVersion served for `kind` (in `group`, when given) among the built-in kinds of the
/// run's Kubernetes version and the run's definitions: `v1` where several are served.
fn served_version(registry: &Registry, group: Option<&str>, kind: &str) -> Option<String> {
    let kube = registry.kubernetes_version();
    let mut builtin: Vec<String> = driftlint_kube_schemas::kinds(kube)
        .into_iter()
        .filter(|g| g.kind == kind && group.is_none_or(|want| g.group == want))
        .map(|g| g.api_version())
        .collect();
    builtin.sort_by_key(|av| !av.ends_with("/v1") && av != "v1");
    if let Some(first) = builtin.into_iter().next() {
        return Some(first);
    }
    defined_kinds_like(registry, kind)
        .into_iter()
        .filter(|(av, k)| k == kind && group.is_none_or(|want| split_api_version(av).0 == want))
        .map(|(av, _)| av)
        .next()
}

/// A finding of a patch as a diagnostic in the file that holds it.
fn patch_finding(patch: &Patch, api_version: &str, kind: &str, f: validate::Finding) -> Diagnostic {
    Diagnostic::new(f.rule, f.severity, patch.source.path.clone(), Some(patch.map(f.span)), f.message)
        .with_object(format!("patch of {api_version} {kind}"), Some(f.pointer))
        .with_help(format!(
            "checked as a kustomize patch of `{api_version} {kind}` (named by {}): fields and types, not required fields",
            patch.kustomization.display()
        ))
}

/// The operations of a JSON 6902 patch (`root`), against the schema of `ty` when known.
fn json_patch(
    registry: &Registry,
    patch: &Patch,
    root: &Node,
    ty: Option<(String, String)>,
    out: &mut Vec<Diagnostic>,
) {
    let path = &patch.source.path;
    let NodeValue::Sequence(ops) = &root.value else {
        out.push(Diagnostic::error(
            Rule::SchemaTypeMismatch,
            path.clone(),
            Some(patch.map(root.span.clone())),
            "a JSON 6902 patch is a list of operations (`- op: add`, `path:`, `value:`)",
        ));
        return;
    };
    let schema = ty.as_ref().and_then(|(av, kind)| schema_of(registry, &patch.source.path, av, kind));
    let (api_version, kind) = ty.clone().unwrap_or_default();
    for op in ops {
        let at = |n: &Node| Some(patch.map(n.span.clone()));
        let name = op.get("op").and_then(Node::as_str);
        const OPS: [&str; 6] = ["add", "remove", "replace", "move", "copy", "test"];
        match (name, op.entry("op")) {
            (Some(n), _) if OPS.contains(&n) => {}
            (_, Some((_, v))) => {
                out.push(Diagnostic::error(
                    Rule::SchemaInvalidValue,
                    path.clone(),
                    at(v),
                    format!("JSON patch `op` {} is not one of add, remove, replace, move, copy, test", v.to_json()),
                ));
                continue;
            }
            (_, None) => {
                out.push(Diagnostic::error(
                    Rule::SchemaRequiredMissing,
                    path.clone(),
                    at(op),
                    "a JSON patch operation without `op`",
                ));
                continue;
            }
        }
        let Some((schema, _)) = &schema else { continue };
        let mut value_schema = None;
        for field in ["path", "from"] {
            let Some(node) = op.get(field) else { continue };
            let Some(pointer) = node.as_str() else { continue };
            match validate::schema_at(schema, pointer) {
                Ok(found) if field == "path" => value_schema = found,
                Ok(_) => {}
                Err(i) => {
                    let tokens: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
                    let parent = format!("/{}", tokens[..i.min(tokens.len())].join("/"));
                    let what = match tokens.get(i) {
                        Some(t) if pointer.starts_with('/') => format!("no field `{t}` in {}", validate::show(&parent)),
                        _ => "a JSON pointer starts with `/`".to_string(),
                    };
                    out.push(
                        Diagnostic::error(
                            Rule::SchemaUnknownField,
                            path.clone(),
                            at(node),
                            format!("JSON patch `{field}` `{pointer}` is not in the schema of `{api_version} {kind}`: {what}"),
                        )
                        .with_object(format!("patch of {api_version} {kind}"), Some(pointer.to_string()))
                        .with_help(format!("checked as a kustomize patch (named by {})", patch.kustomization.display())),
                    );
                }
            }
        }
        if let (Some(s), Some(name), Some((key, value))) = (value_schema, name, op.entry("value"))
            && matches!(name, "add" | "replace" | "test")
        {
            let pointer = op.get("path").and_then(Node::as_str).unwrap_or_default();
            for f in validate::validate_patch_value(&key.span, value, s, pointer) {
                out.push(patch_finding(patch, &api_version, &kind, f));
            }
        }
    }
}

/// Kubernetes' own groups (and Crossplane's) whose kinds driftlint may not bundle (the
/// `metrics.k8s.io` kinds an aggregated API server serves): no `schema-not-found` in loose mode.
/// Other `*.k8s.io` groups are CRDs' (the Gateway API's `gateway.networking.k8s.io`, SIG
/// projects' `*.x-k8s.io`): the API server rejects their objects without the CRD, like any
/// other group's.
fn quiet_when_missing(group: &str) -> bool {
    const AGGREGATED: [&str; 3] = ["metrics.k8s.io", "custom.metrics.k8s.io", "external.metrics.k8s.io"];
    if group.ends_with(".k8s.io") {
        super::is_builtin_kind_group(group) || AGGREGATED.contains(&group)
    } else {
        is_builtin_group(group)
    }
}

/// The findings of `doc` against `schema`; with `builtin` (a bundled or a JSON schema, not a
/// CRD's), its `metadata` too (Kubernetes' `ObjectMeta` there) and, for a built-in group's
/// kind, what the API server rejects beyond the schema ([`super::server`]).
fn validate(
    doc: &Document,
    source: &driftlint_core::source::Source,
    schema: &Schema,
    builtin: bool,
    cel: &mut CelRun,
    out: &mut Vec<Diagnostic>,
) {
    let path = &source.path;
    let opts = Options { required: true };
    let mut findings = validate::validate_object(&doc.node, schema, opts, &mut cel.budget);
    if builtin
        && let Some((key, value)) = doc.node.entry("metadata")
        && let Some(meta) = schema.properties.get("metadata")
    {
        findings.extend(validate::validate_field(key, value, meta, "/metadata", opts, &mut cel.budget));
    }
    for f in findings {
        if let Some(key) = f.once
            && !cel.noted.insert(key)
        {
            continue;
        }
        let mut d = Diagnostic::new(f.rule, f.severity, path.clone(), Some(f.span.clone()), f.message)
            .with_object(doc.identity.cr_id(), Some(f.pointer));
        if let Some(name) = f.rename {
            d.fix = rename_fix(doc, source, &f.span, &name);
            d = d.with_help(format!("did you mean `{name}`?"));
        }
        out.push(d);
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

/// The safe fix of a `removed-api-version` finding: `apiVersion` set to the replacement, when
/// the replacement version's schema (and the API server's own checks) accept the object as it
/// is. `Err` says what the replacement refuses, for the finding's help; `Ok(None)` when there
/// is no schema to validate against or no place to write (standard input, an `apiVersion`
/// that is no plain scalar).
fn replacement_fix(
    doc: &Document,
    source: &driftlint_core::source::Source,
    registry: &Registry,
    replacement: &str,
    cel: &mut CelRun,
) -> Result<Option<Box<driftlint_core::diagnostic::Fix>>, String> {
    use driftlint_core::diagnostic::{Edit, Fix, FixSafety};
    let schema = match registry.resolve(replacement, &doc.identity.kind) {
        Resolved::Builtin(schema) | Resolved::Defined(schema) => schema,
        _ => return Ok(None),
    };
    // The run's CEL budget bounds the trial too; its once-a-run notes must not silence the
    // real ones, so they are put back.
    let noted = cel.noted.clone();
    let mut problems = Vec::new();
    validate(doc, source, schema, true, cel, &mut problems);
    cel.noted = noted;
    // The schema names its own apiVersion: the one value the fix changes.
    problems.retain(|d| d.field.as_deref() != Some("/apiVersion"));
    if !problems.is_empty() {
        let shown: Vec<String> = problems.iter().take(3).map(|d| d.message.clone()).collect();
        let more = if problems.len() > 3 { format!(" and {} more", problems.len() - 3) } else { String::new() };
        return Err(format!("`{replacement}` does not accept this object unchanged: {}{more}", shown.join("; ")));
    }
    if !fixable(doc, source) {
        return Ok(None);
    }
    let Some(node) = doc.node.get("apiVersion") else { return Ok(None) };
    let Some(style) = node.style else { return Ok(None) };
    let (from, to) = doc.lines_in(&source.text);
    if node.span.start < from || node.span.end > to {
        return Ok(None);
    }
    let value = serde_json::Value::String(replacement.to_owned());
    let Some((range, text)) = driftlint_yaml::replace_scalar(
        &source.text[from..to],
        node.span.start - from..node.span.end - from,
        style,
        &value,
    ) else {
        return Ok(None);
    };
    let range = from + range.start..from + range.end;
    let Some(old) = source.text.get(range.clone()) else { return Ok(None) };
    Ok(Some(Box::new(Fix {
        safety: FixSafety::Safe,
        message: format!("set `apiVersion` to {replacement} (its schema accepts the object unchanged)"),
        edits: vec![Edit { path: source.path.clone(), expected: old.to_owned(), range, replacement: text }],
    })))
}

/// The unsafe fix of a `schema-unknown-field` finding whose key misspells one field of the
/// schema: the key renamed, its value and place kept. Unsafe: a did-you-mean is a guess.
fn rename_fix(
    doc: &Document,
    source: &driftlint_core::source::Source,
    key: &std::ops::Range<usize>,
    name: &str,
) -> Option<Box<driftlint_core::diagnostic::Fix>> {
    use driftlint_core::diagnostic::{Edit, Fix, FixSafety};
    if !fixable(doc, source) {
        return None;
    }
    let (from, to) = doc.lines_in(&source.text);
    if key.start < from || key.end > to {
        return None;
    }
    let (range, text) = driftlint_yaml::rename_key(&source.text[from..to], key.start - from..key.end - from, name)?;
    let range = from + range.start..from + range.end;
    let old = source.text.get(range.clone())?;
    Some(Box::new(Fix {
        safety: FixSafety::Unsafe,
        message: format!("rename `{old}` to `{name}`"),
        edits: vec![Edit { path: source.path.clone(), expected: old.to_owned(), range, replacement: text }],
    }))
}

/// Whether a fix is made for `doc`: a file's document, or one rendered to standard input
/// whose source the renderer named and driftlint found (the runner moves its fix there).
fn fixable(doc: &Document, source: &driftlint_core::source::Source) -> bool {
    matches!(source.path, SourcePath::File(_)) || doc.origin.as_ref().is_some_and(|o| o.resolved.is_some())
}

/// `unknown-kind` or `removed-api-version` at the `kind:` (or `apiVersion:` for a removed
/// version) of `doc`.
fn unknown(doc: &Document, path: &SourcePath, registry: &Registry, why: Unknown) -> Diagnostic {
    let kube = registry.kubernetes_version();
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
        Unknown::NoSuchKind { mut suggestions } => {
            let (group, version) = split_api_version(&id.api_version);
            let mut message = format!("Kubernetes {kube} has no kind `{}` in `{}`", id.kind, id.api_version);
            if group.is_empty() && version != "v1" {
                message.push_str(&format!(
                    " (an apiVersion without a group is the core group's, whose only version is `v1`: a custom resource's is `group/{version}`)"
                ));
            }
            // The repository's own definitions of a kind of that name come first.
            let mut defined = defined_kinds_like(registry, &id.kind);
            defined.append(&mut suggestions);
            let suggestions = defined;
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

/// The kinds defined by the run's CRDs and XRDs whose name is `kind`'s or close to it, as
/// `(apiVersion, kind)` with each served version, the closest first.
fn defined_kinds_like(registry: &Registry, kind: &str) -> Vec<(String, String)> {
    let lower = kind.to_ascii_lowercase();
    let mut scored: Vec<(bool, f64, String, String)> = Vec::new();
    for (group, k, version) in registry.defined_versions() {
        let other = k.to_ascii_lowercase();
        let similarity = strsim::jaro_winkler(&lower, &other);
        if other != lower && similarity <= 0.85 {
            continue;
        }
        scored.push((other != lower, -similarity, format!("{group}/{version}"), k.to_string()));
    }
    scored.sort_by(|a, b| {
        (a.0, a.2.as_str(), a.3.as_str()).cmp(&(b.0, b.2.as_str(), b.3.as_str())).then(a.1.total_cmp(&b.1))
    });
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    // A kind of exactly that name is the answer; close names only without one.
    if scored.first().is_some_and(|s| !s.0) {
        scored.retain(|s| !s.0);
    }
    scored.into_iter().take(3).map(|(_, _, av, k)| (av, k)).collect()
}

/// `schema-not-found` at the `kind:` of `doc` (the document's first key without one).
fn not_found(doc: &Document, path: &SourcePath, severity: Severity, message: String) -> Diagnostic {
    let span = doc.node.entry("kind").map_or_else(|| validate::first_key_span(&doc.node), |(k, _)| k.span.clone());
    Diagnostic::new(Rule::SchemaNotFound, severity, path.clone(), Some(span), message)
        .with_object(doc.identity.cr_id(), None)
        .with_help("give its CustomResourceDefinition or CompositeResourceDefinition with --schemas or `schemas:`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Trust;
    use driftlint_cel::cost::Budget;
    use driftlint_core::diagnostic::Severity;
    use driftlint_core::document::{Options as LoadOptions, collect};
    use driftlint_core::input::Source;

    /// A CRD of kind `T` whose `spec` has a transition rule and a rule costing about a third
    /// of the per-expression budget.
    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ts.test.org\nspec:\n  group: test.org\n  names: {kind: T, plural: ts}\n  scope: Cluster\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              x-kubernetes-validations:\n                - rule: self.name == oldSelf.name\n                - rule: RULE\n              properties:\n                name: {type: string}\n";

    fn registry() -> Registry {
        let list = format!("[{}]", (0..200).map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
        let text = CRD.replace("RULE", &format!("\"{list}.all(a, {list}.all(b, a + b >= 0))\""));
        let path = SourcePath::File("crd.yaml".into());
        let coll = collect(vec![Source { path: path.clone(), text }], &LoadOptions::default());
        let mut registry = Registry::default();
        let mut found = Vec::new();
        registry.add_document(&path, &coll.documents[0].node, Trust::Trusted, &mut found);
        assert!(found.is_empty(), "{found:?}");
        registry
    }

    /// One batch of `n` objects of kind `T`.
    fn batch(n: usize) -> Collection {
        let text: String = (0..n)
            .map(|i| format!("---\napiVersion: test.org/v1\nkind: T\nmetadata:\n  name: t{i}\nspec:\n  name: t{i}\n"))
            .collect();
        collect(vec![Source { path: SourcePath::File("objects.yaml".into()), text }], &LoadOptions::default())
    }

    /// The pass runs once per batch: what a run shares outlives a batch.
    #[test]
    fn transition_rules_are_noted_once_per_run_across_batches() {
        let registry = registry();
        let notes: usize = (0..3)
            .map(|_| run(&batch(2), &registry, Mode::Loose).iter().filter(|d| d.severity == Severity::Note).count())
            .sum();
        assert_eq!(notes, 1);
    }

    #[test]
    fn the_runs_budget_outlasts_batches_and_names_what_it_left_out() {
        let registry = registry();
        let one = {
            let mut b = Budget::default();
            let found = validate::validate_object(
                &batch(1).documents[0].node,
                match registry.resolve("test.org/v1", "T") {
                    Resolved::Defined(s) => s,
                    other => panic!("{other:?}"),
                },
                Options { required: true },
                &mut b,
            );
            assert!(found.iter().all(|f| f.severity == Severity::Note), "{found:?}");
            Budget::default().run_left() - b.run_left()
        };
        // Enough for three objects' rules of the run.
        registry.cel_run().budget = Budget::with_run(one * 3);
        let budget_findings = |coll: &Collection| {
            run(coll, &registry, Mode::Loose)
                .into_iter()
                .filter(|d| d.rule == Rule::SchemaCelBudget)
                .map(|d| (d.severity, d.message))
                .collect::<Vec<_>>()
        };
        assert!(budget_findings(&batch(2)).is_empty());
        let found = budget_findings(&batch(3));
        assert_eq!(found.len(), 2, "{found:?}");
        for (severity, message) in found {
            assert_eq!(severity, Severity::Error);
            assert!(message.contains("the run's cost budget of 20000000 steps"), "{message}");
            assert!(message.contains("`[0, 1, 2, 3") && message.contains("…` on `spec`"), "{message}");
        }
    }
}
