//! Schemas for Kubernetes types: CustomResourceDefinitions (`apiextensions.k8s.io/v1`) and
//! Crossplane CompositeResourceDefinitions (`apiextensions.crossplane.io/v1` and `v2`, giving
//! the XR and the claim), compiled once per kind and version per run into a [`Registry`]; the
//! structural validation of objects against them; and the schema pass of `driftlint check`.
//!
//! Where schemas come from (the inputs, `--schemas`, `schemas:` in the configuration) is
//! [`load`]; what the pass reports is [`pass`].
//!
//! What it must not know: Compositions (the Crossplane crate uses the registry to look up the
//! XR's and the composed resources' schemas), references, policies, the command line.

#![forbid(unsafe_code)]

pub mod builtin;
pub mod cel;
pub mod compile;
pub mod coverage;
pub mod format;
pub mod immutable;
pub mod index;
pub mod load;
pub mod location;
pub mod model;
pub mod pass;
pub mod server;
pub mod validate;
pub mod xrd;

use std::collections::HashMap;
use std::sync::Arc;

use driftlint_yaml::{Node, NodeValue};

use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::input::SourcePath;
pub use model::{Schema, Type};

/// What happens to a type without a schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// A warning; checks that need the schema are skipped.
    #[default]
    Loose,
    /// An error.
    Strict,
    /// Not reported: what has a schema is validated, a type without one is only counted in
    /// the summary (kubeconform's `-ignore-missing-schemas`). The default of a check that has
    /// a reference and no schema settings, whose custom kinds the reference is about.
    Ignore,
}

impl Mode {
    /// A mode as Crossplane's schema-aware validation annotation spells it (`loose`, `strict`).
    pub fn parse(text: &str) -> Option<Mode> {
        match text {
            "loose" => Some(Mode::Loose),
            "strict" => Some(Mode::Strict),
            _ => None,
        }
    }

    /// A mode as `--schema-mode` and `schema-mode:` take it: [`Mode::parse`]'s, and `ignore`.
    pub fn parse_setting(text: &str) -> Option<Mode> {
        match text {
            "ignore" => Some(Mode::Ignore),
            _ => Mode::parse(text),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Loose => "loose",
            Mode::Strict => "strict",
            Mode::Ignore => "ignore",
        }
    }

    /// The severity of a missing schema in this mode; `None` when it is not reported.
    pub fn missing_severity(self) -> Option<Severity> {
        match self {
            Mode::Loose => Some(Severity::Warning),
            Mode::Strict => Some(Severity::Error),
            Mode::Ignore => None,
        }
    }

    /// How strict the mode is about missing schemas (a lower rank checks less).
    pub fn rank(self) -> u8 {
        match self {
            Mode::Ignore => 0,
            Mode::Loose => 1,
            Mode::Strict => 2,
        }
    }
}

/// One version of a kind.
#[derive(Debug)]
struct Version {
    name: String,
    served: bool,
    schema: Arc<Schema>,
    /// For a v1 XRD's XR or claim: the schema Crossplane 2 serves, used under
    /// `crossplane-version: 2` (see [`xrd::derive`]).
    crossplane2: Option<Arc<Schema>>,
}

/// The result of looking a type up.
#[derive(Debug, Clone)]
pub enum Lookup<'a> {
    Found(&'a Schema),
    /// No CRD/XRD for the group and kind.
    NoKind,
    /// The kind is known, but not this version (or the version is not served).
    NoVersion,
}

/// One definition of a kind: where it came from and the versions it serves.
#[derive(Debug)]
struct Definition {
    origin: Origin,
    versions: Vec<Version>,
}

/// Where a kind's definition came from: for the messages about a second one, and for choosing
/// the nearest definition when there are several ([`nearest`]).
#[derive(Debug, Clone)]
struct Origin {
    path: SourcePath,
    /// The definition's `spec.names.kind` (or `claimNames.kind`).
    span: std::ops::Range<usize>,
    trusted: bool,
    /// A hash of the definition's `spec.versions` (values, not places): the same definition
    /// read twice (a schema directory that is also among the checked files) is no conflict.
    content: u64,
}

/// Who wrote a definition: the run's own schemas (`--schemas`, `schemas:`, read before any
/// checked file) are trusted; a CRD or XRD among the checked files is the pull request's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    Trusted,
    Checked,
}

/// Every schema known to a run, by API group and kind, then definition (in the order read:
/// trusted ones first), then version.
#[derive(Debug, Default)]
pub struct Registry {
    kinds: HashMap<(String, String), Vec<Definition>>,
    /// How many `openAPIV3Schema`s were compiled (once per CRD/XRD version).
    compilations: usize,
    patterns: compile::Patterns,
    /// XR kinds defined by an `apiextensions.crossplane.io/v2` XRD.
    v2_kinds: std::collections::HashSet<(String, String)>,
    /// The Crossplane major version the repository targets when the configuration says it
    /// (`crossplane-version:`); the Crossplane pass reads it.
    pub crossplane_version: Option<u8>,
    /// Built-in kinds turned off (`builtin-schemas: false`): their objects are not validated
    /// and not reported as without a schema.
    pub builtins_off: bool,
    /// Kubernetes' built-in kinds of the chosen version (`--kubernetes-version`), compiled on
    /// first use: after the trusted definitions, before the checked ones (which may not
    /// define a built-in group's kinds at all).
    builtins: builtin::Builtins,
    /// kubeconform-style schema directories (`--schema-location`), trusted.
    locations: location::Locations,
    /// What the schema pass's CEL rules share across the run's batches.
    cel: std::sync::Mutex<pass::CelRun>,
}

/// What [`Registry::resolve`] found for an object's type.
#[derive(Debug, Clone)]
pub enum Resolved<'a> {
    /// A CRD's or XRD's schema.
    Defined(&'a Schema),
    /// A built-in kind's bundled schema.
    Builtin(&'a Schema),
    /// A schema from a kubeconform-style location.
    Located(Arc<Schema>),
    /// A kubeconform-style location's file for the type, refused (a path the object's kind or
    /// apiVersion would move, a file leading out of the repository, a schema over the limits).
    LocationRefused(String),
    /// A built-in API group, but no kind of this version of Kubernetes.
    UnknownBuiltin(builtin::Unknown),
    /// Nothing: no definition of the kind, or not of this version.
    Missing(Lookup<'a>),
}

/// `(group, version)` of an apiVersion (`v1` is the core group `""`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

impl Registry {
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// Starts another run on this registry (a language server checks buffer after buffer on
    /// one): the CEL rules' cost budget and the rules noted once per run start afresh, as in a
    /// registry built for the run; compiled schemas are kept.
    pub fn start_run(&self) {
        *self.cel.lock().unwrap_or_else(|e| e.into_inner()) = pass::CelRun::default();
    }

    /// How many schemas were compiled so far (each CRD or XRD version once).
    pub fn compilations(&self) -> usize {
        self.compilations
    }

    /// Whether the XR kind of `api_version` and `kind` is defined by an
    /// `apiextensions.crossplane.io/v2` XRD (so Crossplane 2 serves it).
    pub fn defined_by_v2_xrd(&self, api_version: &str, kind: &str) -> bool {
        let (group, _) = split_api_version(api_version);
        self.v2_kinds.contains(&(group.to_string(), kind.to_string()))
    }

    /// Validates built-in kinds as Kubernetes `version` (a bundled one) has them.
    pub fn set_kubernetes_version(&mut self, version: &'static str) {
        self.builtins = builtin::Builtins::new(version);
    }

    /// Looks types up in kubeconform-style schema locations too (after the trusted
    /// definitions, before the built-in kinds).
    pub fn set_locations(&mut self, written: &[String], git_start: &std::path::Path) {
        self.locations = location::Locations::new(written, git_start);
    }

    /// The CEL rules' run-wide state ([`pass::CelRun`]), for the pass's current batch.
    pub fn cel_run(&self) -> std::sync::MutexGuard<'_, pass::CelRun> {
        self.cel.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The Kubernetes version whose built-in kinds are known.
    pub fn kubernetes_version(&self) -> &'static str {
        self.builtins.version()
    }

    /// The schema of an object's type in trust order: the trusted definitions, the
    /// `--schema-location` files, the checked definitions (which never hold a built-in group's
    /// kind), then Kubernetes' built-in kinds.
    pub fn resolve(&self, api_version: &str, kind: &str) -> Resolved<'_> {
        self.resolve_for(None, api_version, kind)
    }

    /// [`Registry::resolve`] for an object in `path`: where a kind has several definitions
    /// that differ, the nearest one to the object's file ([`nearest`]).
    pub fn resolve_for(&self, path: Option<&SourcePath>, api_version: &str, kind: &str) -> Resolved<'_> {
        let chosen = self.definition_for(path, api_version, kind);
        let found = self.found(chosen, api_version, kind);
        let (group, version) = split_api_version(api_version);
        // A checked definition comes after the trusted locations.
        if let Lookup::Found(s) = &found
            && chosen.is_some_and(|d| d.origin.trusted)
        {
            return Resolved::Defined(s);
        }
        match self.locations.lookup(self.kubernetes_version(), group, version, kind) {
            Some(location::Found::Schema(s)) => return Resolved::Located(s),
            Some(location::Found::Refused(why)) => return Resolved::LocationRefused(why),
            None => {}
        }
        if let Lookup::Found(s) = &found {
            return Resolved::Defined(s);
        }
        if self.builtins_off {
            return Resolved::Missing(found);
        }
        if let Some(s) = self.builtins.lookup(group, version, kind) {
            return Resolved::Builtin(s);
        }
        if matches!(found, Lookup::NoKind)
            && !kind.is_empty()
            && let Some(why) = self.builtins.unknown(group, version, kind)
        {
            return Resolved::UnknownBuiltin(why);
        }
        Resolved::Missing(found)
    }

    /// Which schema an object of this type is validated against, in words (`driftlint ls`):
    /// `Kubernetes 1.37 built-in`, `CRD in crds/widget.yaml`, or why there is none.
    pub fn describe(&self, path: Option<&SourcePath>, api_version: &str, kind: &str) -> String {
        if is_definition(api_version, kind) {
            return "none (a definition: compiled, not validated)".into();
        }
        let (group, _) = split_api_version(api_version);
        match self.resolve_for(path, api_version, kind) {
            Resolved::Defined(_) => match self.definition_for(path, api_version, kind) {
                Some(d) if d.origin.trusted => format!("{} (trusted)", d.origin.path.display()),
                Some(d) => d.origin.path.display(),
                None => "a definition".into(),
            },
            Resolved::Builtin(_) => format!("Kubernetes {} built-in", self.kubernetes_version()),
            Resolved::Located(_) => "a --schema-location file (trusted)".into(),
            Resolved::LocationRefused(why) => format!("none ({why})"),
            Resolved::UnknownBuiltin(builtin::Unknown::Removed { removed_in, .. }) => {
                format!("none (removed in Kubernetes {removed_in})")
            }
            Resolved::UnknownBuiltin(_) => format!("none (not a kind of Kubernetes {})", self.kubernetes_version()),
            Resolved::Missing(Lookup::NoVersion) => "none (its definition does not serve this version)".into(),
            Resolved::Missing(_) if self.builtins_off && is_builtin_group(group) => {
                "none (built-in kinds turned off: builtin-schemas: false)".into()
            }
            Resolved::Missing(_) => "none".into(),
        }
    }

    /// The schema of a type from its first definition that serves the version.
    pub fn lookup(&self, api_version: &str, kind: &str) -> Lookup<'_> {
        self.found(self.definition_for(None, api_version, kind), api_version, kind)
    }

    /// Whether a kind has more than one definition (which differ): the one used then depends
    /// on the object's file.
    pub fn has_alternatives(&self, api_version: &str, kind: &str) -> bool {
        let (group, _) = split_api_version(api_version);
        self.kinds.get(&(group.to_string(), kind.to_string())).is_some_and(|d| d.len() > 1)
    }

    /// The definition an object in `path` of this type is validated against: among those that
    /// serve the version, the nearest to `path` ([`nearest`]); without a path, or among equals,
    /// the first read. `None` when no definition serves the version (or none exists).
    fn definition_for(&self, path: Option<&SourcePath>, api_version: &str, kind: &str) -> Option<&Definition> {
        let (group, version) = split_api_version(api_version);
        let defs = self.kinds.get(&(group.to_string(), kind.to_string()))?;
        let serving = defs.iter().filter(|d| d.versions.iter().any(|v| v.name == version && v.served));
        match path {
            Some(SourcePath::File(p)) if defs.len() > 1 => nearest(p, serving, |d| &d.origin.path),
            _ => serving.into_iter().next(),
        }
    }

    fn found<'a>(&'a self, chosen: Option<&'a Definition>, api_version: &str, kind: &str) -> Lookup<'a> {
        let (group, version) = split_api_version(api_version);
        let Some(d) = chosen else {
            return if self.kinds.contains_key(&(group.to_string(), kind.to_string())) {
                Lookup::NoVersion
            } else {
                Lookup::NoKind
            };
        };
        match d.versions.iter().find(|v| v.name == version && v.served) {
            Some(v) => Lookup::Found(match &v.crossplane2 {
                Some(two) if self.crossplane_version == Some(2) => two,
                _ => &v.schema,
            }),
            None => Lookup::NoVersion,
        }
    }

    /// Every `(group, kind)` defined, with the versions its definitions serve (for
    /// did-you-mean suggestions).
    pub(crate) fn defined_versions(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.kinds.iter().flat_map(|((group, kind), defs)| {
            let mut names: Vec<&str> =
                defs.iter().flat_map(|d| d.versions.iter().filter(|v| v.served).map(|v| v.name.as_str())).collect();
            names.sort_unstable();
            names.dedup();
            names.into_iter().map(move |v| (group.as_str(), kind.as_str(), v))
        })
    }

    /// Adds the schemas of a document if it is a CRD or an XRD (problems become diagnostics at
    /// their place in `path`); `false` for any other document.
    ///
    /// Trusted schemas are added first (see [`load::load`]). A checked definition may not take
    /// a kind from a trusted one, nor a built-in Kubernetes kind (a pull request adding a CRD
    /// for `apps/v1 Deployment` would swap Deployments' validation for its own): that is an
    /// `invalid-schema` error naming both, and the definition is not used. A second definition
    /// of one kind, of the same trust, is a `duplicate-definition`: a note when identical (it
    /// is not compiled again), a warning when it differs (both are kept, and each object is
    /// validated against the nearest one, [`nearest`]).
    pub fn add_document(&mut self, path: &SourcePath, root: &Node, trust: Trust, out: &mut Vec<Diagnostic>) -> bool {
        let Some((xrd, v2, v1beta1)) = definition_kind(root) else { return false };
        let problem = |out: &mut Vec<Diagnostic>, span: &std::ops::Range<usize>, message: String| {
            out.push(Diagnostic::error(Rule::InvalidSchema, path.clone(), Some(span.clone()), message));
        };
        let what = if xrd { "CompositeResourceDefinition" } else { "CustomResourceDefinition" };
        if let Some(v) = root.get("apiVersion").filter(|v| v.as_str() == Some("apiextensions.crossplane.io/v1alpha1")) {
            let defines = root
                .get("spec")
                .and_then(|s| s.get("names"))
                .and_then(|n| n.get("kind"))
                .and_then(Node::as_str)
                .map_or(String::new(), |k| format!(" (`{k}`)"));
            out.push(Diagnostic::new(
                Rule::InvalidSchema,
                Severity::Warning,
                path.clone(),
                Some(v.span.clone()),
                format!(
                    "apiextensions.crossplane.io/v1alpha1 CompositeResourceDefinitions are not served since Crossplane 1.0 (an API server refuses this one): read as apiextensions.crossplane.io/v1, which has the same fields, for its composite resources and claims{defines}"
                ),
            ));
        }
        let Some((spec_key, spec)) = root.entry("spec") else {
            problem(out, &validate::first_key_span(root), format!("{what} without `spec`"));
            return true;
        };
        let text = |n: Option<&Node>| n.and_then(Node::as_str).filter(|s| !s.is_empty()).map(str::to_string);
        let group = text(spec.get("group"));
        let kind = text(spec.get("names").and_then(|n| n.get("kind")));
        let claim = if xrd && !v2 { text(spec.get("claimNames").and_then(|n| n.get("kind"))) } else { None };
        // v2: no claims (Crossplane's own validation refuses `claimNames`), and a scope.
        let mut scope = xrd::Scope::Namespaced;
        if v2 {
            if let Some((k, _)) = spec.entry("claimNames") {
                problem(
                    out,
                    &k.span,
                    "claims aren't supported in apiextensions.crossplane.io/v2: `claimNames` gives no claim (use a v1 XRD, or drop it)".into(),
                );
            }
            let written = spec.get("scope").and_then(Node::as_str);
            scope = xrd::Scope::parse(written).unwrap_or_else(|| {
                let span = spec.entry("scope").map_or(spec_key.span.clone(), |(k, _)| k.span.clone());
                problem(
                    out,
                    &span,
                    format!(
                        "unknown XRD scope `{}` (expected Namespaced, Cluster or LegacyCluster): read as Namespaced",
                        written.unwrap_or_default()
                    ),
                );
                xrd::Scope::Namespaced
            });
        }
        let (Some(group), Some(kind)) = (group, kind) else {
            problem(out, &spec_key.span, format!("{what} without `spec.group` or `spec.names.kind`"));
            return true;
        };
        let span_of = |n: Option<&Node>| n.map_or(spec_key.span.clone(), |n| n.span.clone());
        let kind_span = span_of(spec.get("names").and_then(|n| n.get("kind")));
        let claim_span = span_of(spec.get("claimNames").and_then(|n| n.get("kind")));
        let mut names = vec![(kind.clone(), kind_span)];
        if let Some(claim) = &claim {
            names.push((claim.clone(), claim_span));
        }
        // Decided before compiling: a definition that may not be used costs nothing more. Two
        // definitions are the same when their versions (names, schemas, served) are.
        let content = spec.get("versions").map_or(0, content_hash);
        let mut usable = true;
        for (name, span) in &names {
            let origin = Origin { path: path.clone(), span: span.clone(), trusted: trust == Trust::Trusted, content };
            if matches!(self.may_define(&group, name, &origin, what, out), Use::No) {
                // One finding per definition (not another for its claim).
                usable = false;
                break;
            }
        }
        if !usable {
            return true;
        }
        let shared = if v1beta1 { spec.get("validation").and_then(|v| v.get("openAPIV3Schema")) } else { None };
        // (name, served, schema) of each version.
        let mut listed: Vec<(String, bool, Option<&Node>)> = Vec::new();
        match spec.entry("versions") {
            Some((_, v)) if matches!(&v.value, NodeValue::Sequence(items) if !items.is_empty()) => {
                let NodeValue::Sequence(items) = &v.value else { return true };
                for item in items {
                    let Some(name) = text(item.get("name")) else {
                        problem(out, &item.span, format!("a version of `{kind}` without `name`"));
                        continue;
                    };
                    let served = !matches!(item.get("served").map(|s| &s.value), Some(NodeValue::Bool(false)));
                    let own = item.get("schema").and_then(|s| s.get("openAPIV3Schema"));
                    listed.push((name, served, own.or(shared)));
                }
            }
            _ if v1beta1 && text(spec.get("version")).is_some() => {
                listed.push((text(spec.get("version")).unwrap_or_default(), true, shared));
            }
            Some((k, _)) => {
                problem(out, &k.span, format!("{what} `{kind}` has no versions: it gives no schema"));
                return true;
            }
            None => {
                problem(out, &spec_key.span, format!("{what} `{kind}` has no `versions`: it gives no schema"));
                return true;
            }
        }
        let mut composite = Vec::new();
        let mut claims = Vec::new();
        for (name, served, own) in listed {
            let compiled = match own {
                Some(node) => {
                    self.compilations += 1;
                    let (schema, problems) = compile::compile_with(node, &mut self.patterns);
                    for p in problems {
                        problem(out, &p.span, format!("schema of `{kind}` {name}: {}", p.message));
                    }
                    schema
                }
                // A version without a schema accepts anything (Crossplane requires one for XRDs).
                None => Schema::any(),
            };
            if v2 {
                let schema = Arc::new(xrd::derive_v2(&compiled, scope));
                composite.push(Version { name, served, schema, crossplane2: None });
            } else if xrd {
                let both = |flavour| {
                    let one = xrd::derive(&compiled, flavour, xrd::Crossplane::One);
                    (Arc::new(one), Some(Arc::new(xrd::derive(&compiled, flavour, xrd::Crossplane::Two))))
                };
                let (schema, crossplane2) = both(xrd::Flavour::Composite);
                composite.push(Version { name: name.clone(), served, schema, crossplane2 });
                if claim.is_some() {
                    let (schema, crossplane2) = both(xrd::Flavour::Claim);
                    claims.push(Version { name, served, schema, crossplane2 });
                }
            } else {
                composite.push(Version { name, served, schema: Arc::new(compiled), crossplane2: None });
            }
        }
        // A differing duplicate is kept beside the first (`may_define` reported it): the
        // nearest one judges each object, and a version only one of them lists is found in it
        // (the API server serves whichever was applied last, so what that one would find is
        // never hidden — Crossplane's `beta validate` regression case: a CRD listing only
        // v1beta1 read before the one with the object's v1alpha1).
        for ((name, span), versions) in names.into_iter().zip([composite, claims]) {
            let key = (group.clone(), name);
            if v2 {
                self.v2_kinds.insert(key.clone());
            }
            let origin = Origin { path: path.clone(), span, trusted: trust == Trust::Trusted, content };
            self.kinds.entry(key).or_default().push(Definition { origin, versions });
        }
        true
    }

    /// Whether a definition of `group`/`kind` at `new` may be used, reporting why not (or
    /// that it repeats another) into `out`: see [`Registry::add_document`].
    fn may_define(&self, group: &str, kind: &str, new: &Origin, what: &str, out: &mut Vec<Diagnostic>) -> Use {
        let shown = if group.is_empty() { kind.to_string() } else { format!("{group}/{kind}") };
        if !new.trusted && is_builtin_kind_group(group) {
            out.push(Diagnostic::error(
                Rule::InvalidSchema,
                new.path.clone(),
                Some(new.span.clone()),
                format!(
                    "{what} redefines `{shown}`, a kind of Kubernetes' built-in API group `{}`: not used (a checked file cannot replace a built-in kind's schema)",
                    if group.is_empty() { "core" } else { group }
                ),
            ));
            return Use::No;
        }
        let Some(defs) = self.kinds.get(&(group.to_string(), kind.to_string())) else { return Use::Yes };
        let origins = || defs.iter().map(|d| &d.origin);
        // The same definition read twice (one file, or a schema directory that is also among
        // the checked files) is no duplicate.
        if origins().any(|o| o.content == new.content && (o.path == new.path || o.trusted != new.trusted)) {
            return Use::No;
        }
        if let Some(trusted) = origins().find(|o| o.trusted && !new.trusted) {
            out.push(
                Diagnostic::error(
                    Rule::InvalidSchema,
                    new.path.clone(),
                    Some(new.span.clone()),
                    format!(
                        "{what} redefines `{shown}`, already defined by the trusted schema {}: not used, the trusted one is",
                        trusted.path.display()
                    ),
                )
                .with_secondary(trusted.path.clone(), Some(trusted.span.clone()), "the trusted definition"),
            );
            return Use::No;
        }
        if let Some(same) = origins().find(|o| o.content == new.content) {
            out.push(
                Diagnostic::new(
                    Rule::DuplicateDefinition,
                    Severity::Note,
                    new.path.clone(),
                    Some(new.span.clone()),
                    format!("{what} defines `{shown}` again, identically, as {} does", same.path.display()),
                )
                .with_secondary(same.path.clone(), Some(same.span.clone()), "the same definition"),
            );
            return Use::No;
        }
        // Two different schemas for one kind: which one a cluster has depends on which is
        // applied; each object meets the nearest, so each channel's examples meet their own.
        let first = &defs[0].origin;
        let others = if defs.len() == 1 { String::new() } else { format!(" (and {} more)", defs.len() - 1) };
        out.push(
            Diagnostic::new(
                Rule::DuplicateDefinition,
                Severity::Warning,
                new.path.clone(),
                Some(new.span.clone()),
                format!(
                    "{what} defines `{shown}` again, with other versions or schemas than {}{others}: each object of the kind is validated against the nearest definition (`driftlint ls` shows which)",
                    first.path.display()
                ),
            )
            .with_secondary(first.path.clone(), Some(first.span.clone()), "another definition"),
        );
        Use::Yes
    }
}

/// Whether a definition is used ([`Registry::may_define`]).
enum Use {
    Yes,
    No,
}

/// Of several definitions of one kind, the one nearest to an object's file: the one whose
/// directory shares the most leading directories with the file's (so a definition in the same
/// directory, then in the nearest directory up the tree or beside it, wins); among those, the
/// one whose directory names share more names with the file's anywhere (a release channel kept
/// as `config/crd/standard/` serves `examples/standard/`); among those, the first read (the
/// configured schemas before the checked files, then path order: the configured locations are
/// a search path). The admission crate's `nearest` for policy copies takes the last read and
/// has no second key; why the two differ is said there.
pub(crate) fn nearest<'a, T>(
    file: &std::path::Path,
    candidates: impl IntoIterator<Item = &'a T>,
    path_of: impl Fn(&T) -> &SourcePath,
) -> Option<&'a T> {
    let dirs = |p: &std::path::Path| -> Vec<std::ffi::OsString> {
        p.parent().map_or_else(Vec::new, |d| d.components().map(|c| c.as_os_str().to_owned()).collect())
    };
    let mine = dirs(file);
    let score = |t: &T| -> (usize, usize) {
        let SourcePath::File(p) = path_of(t) else { return (0, 0) };
        let theirs = dirs(p);
        let prefix = mine.iter().zip(&theirs).take_while(|(a, b)| a == b).count();
        let shared = theirs[prefix..].iter().filter(|d| mine[prefix..].contains(d)).count();
        (prefix, shared)
    };
    let mut best: Option<(&T, (usize, usize))> = None;
    for c in candidates {
        let s = score(c);
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((c, s));
        }
    }
    best.map(|(c, _)| c)
}

/// A hash of `node`'s values (keys, scalars, structure; not spans or styles).
fn content_hash(node: &Node) -> u64 {
    use std::hash::{Hash, Hasher};
    fn walk(node: &Node, h: &mut std::collections::hash_map::DefaultHasher) {
        match &node.value {
            NodeValue::Null => 0u8.hash(h),
            NodeValue::Bool(b) => (1u8, b).hash(h),
            NodeValue::Int(i) => (2u8, i).hash(h),
            NodeValue::Float(f) => (3u8, f.to_bits()).hash(h),
            NodeValue::String(s) => (4u8, s).hash(h),
            NodeValue::Sequence(items) => {
                (5u8, items.len()).hash(h);
                items.iter().for_each(|i| walk(i, h));
            }
            NodeValue::Mapping(pairs) => {
                (6u8, pairs.len()).hash(h);
                for (k, v) in pairs {
                    walk(k, h);
                    walk(v, h);
                }
            }
        }
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    walk(node, &mut h);
    h.finish()
}

/// Kubernetes' own API groups (exactly: CRDs in other `*.k8s.io` groups, such as the Gateway
/// API's, are legitimate), whose kinds no checked CRD may redefine.
fn is_builtin_kind_group(group: &str) -> bool {
    const GROUPS: [&str; 23] = [
        "",
        "apps",
        "batch",
        "autoscaling",
        "policy",
        "extensions",
        "admissionregistration.k8s.io",
        "apiextensions.k8s.io",
        "apiregistration.k8s.io",
        "authentication.k8s.io",
        "authorization.k8s.io",
        "certificates.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "events.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "internal.apiserver.k8s.io",
        "networking.k8s.io",
        "node.k8s.io",
        "rbac.authorization.k8s.io",
        "resource.k8s.io",
        "scheduling.k8s.io",
        "storage.k8s.io",
    ];
    GROUPS.contains(&group) || builtin::is_bundled_group(group)
}

/// Kinds the schema pass never asks a schema for: the definitions themselves and
/// Compositions (checked by the Crossplane pass).
pub fn is_definition(api_version: &str, kind: &str) -> bool {
    let (group, _) = split_api_version(api_version);
    matches!(
        (group, kind),
        ("apiextensions.k8s.io", "CustomResourceDefinition")
            | ("apiextensions.crossplane.io", "CompositeResourceDefinition" | "Composition" | "CompositionRevision")
    )
}

/// API groups of package metadata: a Crossplane package's `crossplane.yaml`
/// (`meta.pkg.crossplane.io` Configuration, Provider, Function) and an Upbound project's
/// `upbound.yaml` (`meta.dev.upbound.io` Project). The package tooling reads them; no API
/// server serves them, so there is no schema to look for (in either mode).
pub fn is_package_metadata(api_version: &str) -> bool {
    matches!(split_api_version(api_version).0, "meta.pkg.crossplane.io" | "meta.dev.upbound.io")
}

/// API groups of Kubernetes' built-in kinds (and of Crossplane's own API), not flagged as
/// missing a schema in loose mode.
pub fn is_builtin_group(group: &str) -> bool {
    const GROUPS: [&str; 12] = [
        "",
        "apps",
        "batch",
        "autoscaling",
        "policy",
        "extensions",
        "apiextensions.crossplane.io",
        "pkg.crossplane.io",
        "secrets.crossplane.io",
        "ops.crossplane.io",
        "protection.crossplane.io",
        "rbac",
    ];
    GROUPS.contains(&group) || group.ends_with(".k8s.io")
}

/// Whether a document is a definition [`Registry::add_document`] reads (a CRD or an XRD).
#[must_use]
pub fn defines_schemas(root: &Node) -> bool {
    definition_kind(root).is_some()
}

/// For a CRD or XRD: (an XRD, Crossplane 2's XRD, a `v1beta1` CRD).
fn definition_kind(root: &Node) -> Option<(bool, bool, bool)> {
    let api_version = root.get("apiVersion").and_then(Node::as_str).unwrap_or_default();
    let kind = root.get("kind").and_then(Node::as_str).unwrap_or_default();
    match (api_version, kind) {
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition") => Some((false, false, false)),
        ("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition") => Some((false, false, true)),
        // Crossplane 0.x's v1alpha1 XRD has v1's fields and was derived the same way (removed
        // in Crossplane 1.0: `add_document` says so).
        ("apiextensions.crossplane.io/v1" | "apiextensions.crossplane.io/v1alpha1", "CompositeResourceDefinition") => {
            Some((true, false, false))
        }
        ("apiextensions.crossplane.io/v2", "CompositeResourceDefinition") => Some((true, true, false)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(text: &str) -> (Registry, Vec<Diagnostic>) {
        let mut r = Registry::default();
        let mut out = Vec::new();
        for d in driftlint_yaml::parse_stream(text).documents {
            r.add_document(&SourcePath::File("s.yaml".into()), &d.root, Trust::Trusted, &mut out);
        }
        (r, out)
    }

    /// Two definitions of one kind in two files: a note naming both when identical, a warning
    /// when they differ; one file read twice is silent.
    #[test]
    fn duplicate_definitions_name_both_files() {
        let crd = |size: &str| {
            format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g.io\n  names: {{kind: K}}\n  versions:\n    - {{name: v1, served: true, schema: {{openAPIV3Schema: {{type: object, properties: {{size: {{type: {size}}}}}}}}}}}\n"
            )
        };
        let add = |r: &mut Registry, file: &str, text: &str, out: &mut Vec<Diagnostic>| {
            let root = driftlint_yaml::parse_stream(text).documents.remove(0).root;
            r.add_document(&SourcePath::File(file.into()), &root, Trust::Checked, out);
        };
        let mut r = Registry::default();
        let mut out = Vec::new();
        add(&mut r, "a.yaml", &crd("integer"), &mut out);
        add(&mut r, "a.yaml", &crd("integer"), &mut out);
        assert!(out.is_empty(), "{out:?}");
        add(&mut r, "b.yaml", &crd("integer"), &mut out);
        add(&mut r, "c.yaml", &crd("string"), &mut out);
        let found: Vec<(Rule, Severity, String, String)> =
            out.iter().map(|d| (d.rule, d.severity, d.primary.path.display(), d.message.clone())).collect();
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(
            (found[0].0, found[0].1, found[0].2.as_str()),
            (Rule::DuplicateDefinition, Severity::Note, "b.yaml")
        );
        assert!(found[0].3.contains("identically, as a.yaml does"), "{}", found[0].3);
        assert_eq!(
            (found[1].0, found[1].1, found[1].2.as_str()),
            (Rule::DuplicateDefinition, Severity::Warning, "c.yaml")
        );
        assert!(found[1].3.contains("other versions or schemas than a.yaml"), "{}", found[1].3);
        assert!(out.iter().all(|d| d.secondary.len() == 1));
        // The identical copy is not compiled again; the differing one is.
        assert_eq!(r.compilations(), 2);
        // Without a file, the first read.
        let Lookup::Found(s) = r.lookup("g.io/v1", "K") else { panic!() };
        assert_eq!(s.properties["size"].ty, Some(Type::Integer));
    }

    /// Each object meets the nearest of differing definitions: the same directory, then the
    /// most leading directories shared, then a shared directory name (a release channel).
    #[test]
    fn objects_meet_the_nearest_differing_definition() {
        let crd = |size: &str| {
            format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g.io\n  names: {{kind: K}}\n  versions:\n    - {{name: v1, served: true, schema: {{openAPIV3Schema: {{type: object, properties: {{size: {{type: {size}}}}}}}}}}}\n"
            )
        };
        let mut r = Registry::default();
        let mut out = Vec::new();
        for (file, ty) in [
            ("config/crd/experimental/k.yaml", "string"),
            ("config/crd/standard/k.yaml", "integer"),
            ("apps/one/crds/k.yaml", "boolean"),
        ] {
            let root = driftlint_yaml::parse_stream(&crd(ty)).documents.remove(0).root;
            r.add_document(&SourcePath::File(file.into()), &root, Trust::Checked, &mut out);
        }
        assert_eq!(out.iter().filter(|d| d.rule == Rule::DuplicateDefinition).count(), 2, "{out:?}");
        let ty = |file: &str| {
            let path = SourcePath::File(file.into());
            let Resolved::Defined(s) = r.resolve_for(Some(&path), "g.io/v1", "K") else { panic!("{file}") };
            s.properties["size"].ty
        };
        assert_eq!(ty("examples/standard/a.yaml"), Some(Type::Integer));
        assert_eq!(ty("examples/experimental/deep/a.yaml"), Some(Type::String));
        assert_eq!(ty("apps/one/web.yaml"), Some(Type::Boolean));
        assert_eq!(ty("config/crd/standard/sample.yaml"), Some(Type::Integer));
        // Nothing in common: the first read.
        assert_eq!(ty("other/a.yaml"), Some(Type::String));
        let shown = r.describe(Some(&SourcePath::File("examples/standard/a.yaml".into())), "g.io/v1", "K");
        assert_eq!(shown, "config/crd/standard/k.yaml");
    }

    /// A trusted definition keeps its kind: a checked one of the same kind is an error and not
    /// used, whatever its place.
    #[test]
    fn a_checked_definition_never_replaces_a_trusted_one() {
        let crd = |size: &str| {
            format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g.io\n  names: {{kind: K}}\n  versions:\n    - {{name: v1, served: true, schema: {{openAPIV3Schema: {{type: object, properties: {{size: {{type: {size}}}}}}}}}}}\n"
            )
        };
        let mut r = Registry::default();
        let mut out = Vec::new();
        let root = |ty: &str| driftlint_yaml::parse_stream(&crd(ty)).documents.remove(0).root;
        r.add_document(&SourcePath::File("/schemas/k.yaml".into()), &root("integer"), Trust::Trusted, &mut out);
        r.add_document(&SourcePath::File("apps/k.yaml".into()), &root("string"), Trust::Checked, &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!((out[0].rule, out[0].severity), (Rule::InvalidSchema, Severity::Error));
        let path = SourcePath::File("apps/web.yaml".into());
        let Resolved::Defined(s) = r.resolve_for(Some(&path), "g.io/v1", "K") else { panic!() };
        assert_eq!(s.properties["size"].ty, Some(Type::Integer));
    }

    /// crossplane/cli pkg/validate/validate_test.go, `DefaultingFailureWithSchemaError`: a CRD
    /// listing only v1beta1 comes before the one with the object's v1alpha1; the second's schema
    /// still judges v1alpha1 objects, so its `spec.replicas` type error is not hidden.
    #[test]
    fn a_differing_duplicate_gives_the_versions_only_it_lists() {
        let crd = |version: &str, ty: &str| {
            format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: test.org\n  names: {{kind: Test}}\n  versions:\n    - name: {version}\n      served: true\n      schema: {{openAPIV3Schema: {{type: object, properties: {{spec: {{type: object, properties: {{replicas: {{type: {ty}}}}}}}}}}}}}\n"
            )
        };
        let (r, diags) = registry(&format!(
            "{}---\n{}---\n{}",
            crd("v1beta1", "integer"),
            crd("v1alpha1", "integer"),
            crd("v1beta1", "string")
        ));
        assert_eq!(diags.len(), 2, "{diags:?}");
        assert!(diags.iter().all(|d| d.rule == Rule::DuplicateDefinition), "{diags:?}");
        let Lookup::Found(s) = r.lookup("test.org/v1alpha1", "Test") else { panic!("v1alpha1 hidden") };
        assert_eq!(s.properties["spec"].properties["replicas"].ty, Some(Type::Integer));
        // A version both list is the first's.
        let Lookup::Found(s) = r.lookup("test.org/v1beta1", "Test") else { panic!() };
        assert_eq!(s.properties["spec"].properties["replicas"].ty, Some(Type::Integer));
    }

    /// Crossplane 0.x's `apiextensions.crossplane.io/v1alpha1` XRD (removed in Crossplane 1.0,
    /// crossplane/crossplane commit 0ea233d3) has v1's fields: its XRs are validated, and a
    /// warning says no current Crossplane serves it.
    #[test]
    fn v1alpha1_xrds_are_read_as_v1_with_a_warning() {
        let (r, diags) = registry(
            "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: CompositeResourceDefinition\nspec:\n  group: g.io\n  names: {kind: XK}\n  claimNames: {kind: K}\n  versions:\n    - {name: v1alpha1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}}}\n",
        );
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].severity, Severity::Warning);
        assert!(diags[0].message.contains("not served since Crossplane 1.0") && diags[0].message.contains("(`XK`)"));
        let Lookup::Found(s) = r.lookup("g.io/v1alpha1", "XK") else { panic!() };
        assert_eq!(s.properties["spec"].properties["size"].ty, Some(Type::Integer));
        assert!(matches!(r.lookup("g.io/v1alpha1", "K"), Lookup::Found(_)));
    }

    #[test]
    fn versions_by_api_version_and_served() {
        let (r, diags) = registry(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g.io\n  names: {kind: K}\n  versions:\n    - {name: v1, served: true, schema: {openAPIV3Schema: {type: object}}}\n    - {name: v2, served: false, schema: {openAPIV3Schema: {type: object}}}\n",
        );
        assert!(diags.is_empty());
        assert!(matches!(r.lookup("g.io/v1", "K"), Lookup::Found(_)));
        assert!(matches!(r.lookup("g.io/v2", "K"), Lookup::NoVersion));
        assert!(matches!(r.lookup("g.io/v3", "K"), Lookup::NoVersion));
        assert!(matches!(r.lookup("other.io/v1", "K"), Lookup::NoKind));
        assert_eq!(r.compilations(), 2);
    }

    #[test]
    fn v1beta1_crds_share_their_validation_across_versions() {
        let (r, diags) = registry(
            "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nspec:\n  group: g.io\n  version: v1\n  names: {kind: Old}\n  validation:\n    openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}\n---\napiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nspec:\n  group: g.io\n  names: {kind: Two}\n  versions: [{name: v1, served: true}, {name: v2, served: false}]\n  validation:\n    openAPIV3Schema: {type: object, properties: {spec: {type: string}}}\n",
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert!(
            matches!(r.lookup("g.io/v1", "Old"), Lookup::Found(s) if s.properties["spec"].properties.contains_key("size"))
        );
        assert!(
            matches!(r.lookup("g.io/v1", "Two"), Lookup::Found(s) if s.properties["spec"].ty == Some(Type::String))
        );
        assert!(matches!(r.lookup("g.io/v2", "Two"), Lookup::NoVersion));
    }

    #[test]
    fn xrd_gives_composite_and_claim_and_bad_ones_are_diagnostics() {
        let (r, diags) = registry(
            "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nspec:\n  group: g.io\n  names: {kind: XK}\n  claimNames: {kind: K}\n  versions:\n    - {name: v1, served: true, schema: {openAPIV3Schema: {type: object}}}\n---\napiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nspec:\n  group: g.io\n  names: {kind: XNone}\n",
        );
        assert!(
            matches!(r.lookup("g.io/v1", "XK"), Lookup::Found(s) if s.properties["spec"].properties.contains_key("claimRef"))
        );
        assert!(
            matches!(r.lookup("g.io/v1", "K"), Lookup::Found(s) if s.properties["spec"].properties.contains_key("resourceRef"))
        );
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].rule, Rule::InvalidSchema);
        assert!(diags[0].message.contains("no `versions`"), "{}", diags[0].message);
    }
}
