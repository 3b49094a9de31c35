//! Schemas for Kubernetes types: CustomResourceDefinitions (`apiextensions.k8s.io/v1`) and
//! Crossplane CompositeResourceDefinitions (`apiextensions.crossplane.io/v1`, giving the XR
//! and the claim), compiled once per kind and version per run into a [`Registry`]; the
//! structural validation of objects against them; and the schema pass of `driftlint check`.
//!
//! Where schemas come from (the inputs, `--schemas`, `schemas:` in the configuration) is
//! [`load`]; what the pass reports is [`pass`]. This module does not know Compositions; the
//! Crossplane pass uses the registry to look up the XR's and the composed resources' schemas.

pub mod format;
pub mod load;
pub mod model;
pub mod pass;
pub mod validate;
pub mod xrd;

use std::collections::HashMap;
use std::sync::Arc;

use driftlint_yaml::{Node, NodeValue};

use crate::diagnostic::{Diagnostic, Rule, Severity};
use crate::input::SourcePath;
pub use model::{Schema, Type};

/// What happens to a type without a schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// A warning; checks that need the schema are skipped.
    #[default]
    Loose,
    /// An error.
    Strict,
}

impl Mode {
    pub fn parse(text: &str) -> Option<Mode> {
        match text {
            "loose" => Some(Mode::Loose),
            "strict" => Some(Mode::Strict),
            _ => None,
        }
    }

    /// The severity of a missing schema in this mode.
    pub fn missing_severity(self) -> Severity {
        match self {
            Mode::Loose => Severity::Warning,
            Mode::Strict => Severity::Error,
        }
    }
}

/// One version of a kind.
#[derive(Debug)]
struct Version {
    name: String,
    served: bool,
    schema: Arc<Schema>,
}

/// The result of looking a type up.
#[derive(Debug)]
pub enum Lookup<'a> {
    Found(&'a Schema),
    /// No CRD/XRD for the group and kind.
    NoKind,
    /// The kind is known, but not this version (or the version is not served).
    NoVersion,
}

/// Every schema known to a run, by API group and kind, then version.
#[derive(Debug, Default)]
pub struct Registry {
    kinds: HashMap<(String, String), Vec<Version>>,
    /// How many `openAPIV3Schema`s were compiled (once per CRD/XRD version).
    compilations: usize,
    patterns: model::Patterns,
}

/// `(group, version)` of an apiVersion (`v1` is the core group `""`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

impl Registry {
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// How many schemas were compiled so far (each CRD or XRD version once).
    pub fn compilations(&self) -> usize {
        self.compilations
    }

    pub fn lookup(&self, api_version: &str, kind: &str) -> Lookup<'_> {
        let (group, version) = split_api_version(api_version);
        let Some(versions) = self.kinds.get(&(group.to_string(), kind.to_string())) else { return Lookup::NoKind };
        match versions.iter().find(|v| v.name == version && v.served) {
            Some(v) => Lookup::Found(&v.schema),
            None => Lookup::NoVersion,
        }
    }

    /// Adds the schemas of a document if it is a CRD or an XRD (problems become diagnostics at
    /// their place in `path`); `false` for any other document.
    pub fn add_document(&mut self, path: &SourcePath, root: &Node, out: &mut Vec<Diagnostic>) -> bool {
        let api_version = root.get("apiVersion").and_then(Node::as_str).unwrap_or_default();
        let kind = root.get("kind").and_then(Node::as_str).unwrap_or_default();
        let xrd = match (api_version, kind) {
            ("apiextensions.k8s.io/v1", "CustomResourceDefinition") => false,
            ("apiextensions.crossplane.io/v1", "CompositeResourceDefinition") => true,
            _ => return false,
        };
        let mut problem = |span: &std::ops::Range<usize>, message: String| {
            out.push(Diagnostic::error(Rule::InvalidSchema, path.clone(), Some(span.clone()), message));
        };
        let what = if xrd { "CompositeResourceDefinition" } else { "CustomResourceDefinition" };
        let Some((spec_key, spec)) = root.entry("spec") else {
            problem(&validate::first_key_span(root), format!("{what} without `spec`"));
            return true;
        };
        let text = |n: Option<&Node>| n.and_then(Node::as_str).filter(|s| !s.is_empty()).map(str::to_string);
        let group = text(spec.get("group"));
        let kind = text(spec.get("names").and_then(|n| n.get("kind")));
        let claim = if xrd { text(spec.get("claimNames").and_then(|n| n.get("kind"))) } else { None };
        let (Some(group), Some(kind)) = (group, kind) else {
            problem(&spec_key.span, format!("{what} without `spec.group` or `spec.names.kind`"));
            return true;
        };
        let versions = match spec.entry("versions") {
            Some((_, v)) if matches!(&v.value, NodeValue::Sequence(items) if !items.is_empty()) => v,
            Some((k, _)) => {
                problem(&k.span, format!("{what} `{kind}` has no versions: it gives no schema"));
                return true;
            }
            None => {
                problem(&spec_key.span, format!("{what} `{kind}` has no `versions`: it gives no schema"));
                return true;
            }
        };
        let NodeValue::Sequence(items) = &versions.value else { return true };
        let mut composite = Vec::new();
        let mut claims = Vec::new();
        for item in items {
            let Some(name) = text(item.get("name")) else {
                problem(&item.span, format!("a version of `{kind}` without `name`"));
                continue;
            };
            let served = !matches!(item.get("served").map(|s| &s.value), Some(NodeValue::Bool(false)));
            let own = item.get("schema").and_then(|s| s.get("openAPIV3Schema"));
            let compiled = match own {
                Some(node) => {
                    self.compilations += 1;
                    let (schema, problems) = model::compile_with(node, &mut self.patterns);
                    for p in problems {
                        problem(&p.span, format!("schema of `{kind}` {name}: {}", p.message));
                    }
                    schema
                }
                // A version without a schema accepts anything (Crossplane requires one for XRDs).
                None => Schema::any(),
            };
            if xrd {
                let xr = Arc::new(xrd::derive(&compiled, xrd::Flavour::Composite));
                composite.push(Version { name: name.clone(), served, schema: xr });
                if claim.is_some() {
                    let c = Arc::new(xrd::derive(&compiled, xrd::Flavour::Claim));
                    claims.push(Version { name, served, schema: c });
                }
            } else {
                composite.push(Version { name, served, schema: Arc::new(compiled) });
            }
        }
        // The first definition of a kind wins; a later duplicate is ignored.
        self.kinds.entry((group.clone(), kind)).or_insert(composite);
        if let Some(claim) = claim {
            self.kinds.entry((group, claim)).or_insert(claims);
        }
        true
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(text: &str) -> (Registry, Vec<Diagnostic>) {
        let mut r = Registry::default();
        let mut out = Vec::new();
        for d in driftlint_yaml::parse_stream(text).documents {
            r.add_document(&SourcePath::File("s.yaml".into()), &d.root, &mut out);
        }
        (r, out)
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
