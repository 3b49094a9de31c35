//! Level 2 of Composition validation: every field path of a patch (after PatchSet expansion),
//! connection detail and readiness check resolved in the schema of the object it reads or
//! writes, and each patch's value type followed through its transforms into its destination.
//!
//! A schema may be missing (loose mode): the checks that need it are skipped, and a missing
//! source makes the source type unknown. The environment has no schema: its paths are not
//! checked and its values have unknown type. What a patch writes into the composed resource is
//! returned for level 3.

use std::collections::HashMap;
use std::ops::Range;

use driftlint_yaml::Node;

use super::fieldpath::{self, Segment};
use super::patch_rules::patch_type;
use super::types::{self, VType};
use super::{Finding, items, text};
use driftlint_core::diagnostic::{Rule, Severity};
use driftlint_schema::Schema;

/// A schema as far as a check can use it.
#[derive(Clone, Copy, Debug)]
pub enum Avail<'a> {
    Schema(&'a Schema),
    /// No schema found: checks needing it are skipped.
    Missing,
    /// The environment: nothing to check against, types unknown.
    Unchecked,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Xr,
    Composed,
    Env,
}

/// A patch that puts a value into the composed resource.
#[derive(Clone, Debug)]
pub struct Written {
    pub path: Vec<Segment>,
    /// Where the patch says where it writes (its toFieldPath, else its fromFieldPath).
    pub to_span: Range<usize>,
    /// Whether a minimal XR has the source: `None` when not judged (environment, no XR schema).
    pub guaranteed: Option<bool>,
}

/// The schemas one resource's patches see.
#[derive(Clone, Copy)]
pub struct Schemas<'a> {
    pub xr: Avail<'a>,
    pub composed: Avail<'a>,
    /// The kinds, for messages.
    pub xr_kind: &'a str,
    pub composed_kind: &'a str,
    /// The Composition sets `writeConnectionSecretsToNamespace`: Crossplane (v1) fills in the
    /// XR's `spec.writeConnectionSecretToRef` (name from its uid, that namespace) when it is
    /// empty, so every XR has it.
    pub secret_ref_filled: bool,
}

impl<'a> Schemas<'a> {
    fn of(&self, side: Side) -> Avail<'a> {
        match side {
            Side::Xr => self.xr,
            Side::Composed => self.composed,
            Side::Env => Avail::Unchecked,
        }
    }

    fn kind(&self, side: Side) -> &'a str {
        match side {
            Side::Xr => self.xr_kind,
            Side::Composed => self.composed_kind,
            Side::Env => "the environment",
        }
    }
}

/// How many patches from PatchSets one Composition may apply in all (each PatchSet reference
/// applies the whole set to its resource). A thousand resources each using a set of a thousand
/// patches are a million patch checks and writes: past this, further PatchSet references
/// are not expanded and a `composition-skipped` warning says so.
pub const MAX_EXPANDED_PATCHES: usize = 100_000;

/// A PatchSet applied to a composed schema: (set name, the schema's address, composed kind).
type SetUse<'n> = (&'n str, usize, &'n str);

/// PatchSets expanded so far in one Composition: each set is checked once per composed schema,
/// and what it writes and finds there is kept for the next use with that schema. Crossplane
/// applies a set at every use, so its findings are reported once per use (copied, not
/// recomputed).
#[derive(Default)]
pub struct Expanded<'n> {
    /// (set name, composed schema's address, composed kind) → what the set writes and finds.
    done: HashMap<SetUse<'n>, (Vec<Written>, Vec<Finding>)>,
    /// Patches applied from sets so far, against [`MAX_EXPANDED_PATCHES`].
    applied: usize,
    /// `check_patch` calls (for tests that count work).
    pub checks: usize,
}

/// Checks one resource's patches, connection details and readiness checks; returns what its
/// patches write into the composed resource.
pub fn check_resource<'n>(
    resource: &'n Node,
    patch_sets: &HashMap<&'n str, &'n Node>,
    schemas: Schemas<'n>,
    expanded: &mut Expanded<'n>,
    out: &mut Vec<Finding>,
) -> Vec<Written> {
    let mut written = Vec::new();
    let composed_key = match schemas.composed {
        Avail::Schema(s) => s as *const Schema as usize,
        Avail::Missing => 0,
        Avail::Unchecked => 1,
    };
    for patch in items(resource, "patches") {
        if patch_type(patch) != "PatchSet" {
            expanded.checks += 1;
            written.extend(check_patch(patch, false, schemas, out));
            continue;
        }
        let Some((name, set)) = text(patch, "patchSetName").and_then(|n| patch_sets.get_key_value(n)) else {
            continue;
        };
        let set_patches = items(set, "patches");
        if expanded.applied + set_patches.len() > MAX_EXPANDED_PATCHES {
            out.push(Finding {
                rule: Rule::CompositionSkipped,
                severity: Severity::Warning,
                span: patch.span.clone(),
                message: format!(
                    "PatchSet `{name}` not expanded: the Composition's PatchSet references apply more than {MAX_EXPANDED_PATCHES} patches in all (a limit on work); this resource's checks are incomplete"
                ),
            });
            continue;
        }
        expanded.applied += set_patches.len();
        let key = (*name, composed_key, schemas.composed_kind);
        if let Some((set_written, found)) = expanded.done.get(&key) {
            written.extend(set_written.iter().cloned());
            out.extend(found.iter().cloned());
            continue;
        }
        let (mut set_written, mut found) = (Vec::new(), Vec::new());
        for p in set_patches {
            expanded.checks += 1;
            set_written.extend(check_patch(p, false, schemas, &mut found));
        }
        written.extend(set_written.iter().cloned());
        out.extend(found.iter().cloned());
        expanded.done.insert(key, (set_written, found));
    }
    if let Avail::Schema(composed) = schemas.composed {
        for (list, key) in [("connectionDetails", "fromFieldPath"), ("readinessChecks", "fieldPath")] {
            for item in items(resource, list) {
                if let Some((k, v)) = item.entry(key) {
                    let path = fieldpath::parse(v.as_str().unwrap_or_default()).unwrap_or_default();
                    if let Err(why) = types::resolve(composed, &path) {
                        out.push(path_finding(&k.span, key, v, schemas.composed_kind, &why));
                    }
                }
            }
        }
    }
    written
}

/// Checks `spec.environment.patches` (between the XR and the environment).
pub fn check_environment(env: &Node, xr: Avail, xr_kind: &str, out: &mut Vec<Finding>) {
    let schemas = Schemas { xr, composed: Avail::Unchecked, xr_kind, composed_kind: "", secret_ref_filled: false };
    for patch in items(env, "patches") {
        check_patch(patch, true, schemas, out);
    }
}

fn path_finding(span: &Range<usize>, key: &str, v: &Node, kind: &str, why: &str) -> Finding {
    Finding {
        rule: Rule::CompositionPatchPath,
        severity: Severity::Error,
        span: span.clone(),
        message: format!("`{key}: {}` does not exist in {kind}: {why}", v.as_str().unwrap_or_default()),
    }
}

/// (reads, writes) of a patch type.
fn sides(ty: &str, environment: bool) -> (Side, Side) {
    match (ty, environment) {
        // function-patch-and-transform also takes these two between the XR and the
        // environment (its `ApplyEnvironmentPatch`); Crossplane's native environment does not.
        ("FromCompositeFieldPath" | "CombineFromComposite" | "ToEnvironmentFieldPath", true) => (Side::Xr, Side::Env),
        ("ToCompositeFieldPath" | "CombineToComposite" | "FromEnvironmentFieldPath", true) => (Side::Env, Side::Xr),
        ("FromCompositeFieldPath" | "CombineFromComposite", false) => (Side::Xr, Side::Composed),
        ("FromEnvironmentFieldPath" | "CombineFromEnvironment", _) => (Side::Env, Side::Composed),
        ("ToCompositeFieldPath" | "CombineToComposite", _) => (Side::Composed, Side::Xr),
        _ => (Side::Composed, Side::Env),
    }
}

/// One patch: its paths, then (when they all exist) its types.
fn check_patch(patch: &Node, environment: bool, schemas: Schemas, out: &mut Vec<Finding>) -> Option<Written> {
    let ty = patch_type(patch);
    let (from, to) = sides(ty, environment);
    let combine = ty.starts_with("Combine");
    // The source paths: fromFieldPath, or the combine variables.
    let sources: Vec<&Node> = if combine {
        patch.get("combine").map(|c| items(c, "variables")).unwrap_or_default().iter().collect()
    } else {
        vec![patch]
    };
    let mut valid = true;
    let mut source_type = VType::Unknown;
    let mut guaranteed = Some(true);
    for s in &sources {
        let (k, v) = s.entry("fromFieldPath")?;
        let path = fieldpath::parse(v.as_str()?).ok()?;
        match schemas.of(from) {
            Avail::Schema(schema) => match types::resolve(schema, &path) {
                Ok(t) => source_type = t,
                Err(why) => {
                    out.push(path_finding(&k.span, "fromFieldPath", v, schemas.kind(from), &why));
                    valid = false;
                }
            },
            Avail::Missing | Avail::Unchecked => source_type = VType::Unknown,
        }
        guaranteed = match (guaranteed, from, schemas.xr) {
            (Some(g), Side::Xr, Avail::Schema(xr)) => Some(g && is_guaranteed(xr, &path, schemas.secret_ref_filled)),
            _ => None,
        };
    }
    // The destination: toFieldPath, else the same path as fromFieldPath.
    let (to_key, to_value) =
        patch.entry("toFieldPath").or_else(|| (!combine).then(|| patch.entry("fromFieldPath"))?)?;
    let to_path = fieldpath::parse(to_value.as_str()?).ok()?;
    let dest_type = match schemas.of(to) {
        Avail::Schema(schema) => match types::resolve(schema, &to_path) {
            Ok(t) => Some(t),
            Err(why) => {
                out.push(path_finding(&to_key.span, "toFieldPath", to_value, schemas.kind(to), &why));
                valid = false;
                None
            }
        },
        Avail::Unchecked => Some(VType::Unknown),
        Avail::Missing => None,
    };
    if !valid {
        return None;
    }
    let written = (to == Side::Composed).then(|| Written { path: to_path, to_span: to_key.span.clone(), guaranteed });
    let Some(dest_type) = dest_type else { return written };
    let mut value = if combine { VType::Is(driftlint_schema::Type::String) } else { source_type };
    for t in items(patch, "transforms") {
        match types::transform(t, value) {
            Ok(next) => value = next,
            Err(why) => {
                out.push(Finding {
                    rule: Rule::CompositionPatchType,
                    severity: Severity::Error,
                    span: t.span.clone(),
                    message: why,
                });
                return written;
            }
        }
    }
    if !types::fits(value, dest_type) {
        out.push(Finding {
            rule: Rule::CompositionPatchType,
            severity: Severity::Error,
            span: to_key.span.clone(),
            message: format!(
                "the patch writes {} into `{}`, which is {}",
                value.name(),
                to_value.as_str().unwrap_or_default(),
                dest_type.name()
            ),
        });
    }
    written
}

/// Whether every XR has the field at `path`: each field along it required by its parent
/// (`spec` always) or given a `default` (the API server applies it before Crossplane reads
/// the XR), no index or map key; `metadata.name` and `metadata.uid` always; the connection
/// secret reference when Crossplane fills it in (`secret_ref_filled`).
fn is_guaranteed(xr: &Schema, path: &[Segment], secret_ref_filled: bool) -> bool {
    let field = |i: usize| match path.get(i) {
        Some(Segment::Field(f)) => Some(f.as_str()),
        _ => None,
    };
    if field(0) == Some("metadata") {
        return path.len() == 2 && matches!(field(1), Some("name" | "uid"));
    }
    if secret_ref_filled
        && (field(0), field(1)) == (Some("spec"), Some("writeConnectionSecretToRef"))
        && (path.len() == 2 || (path.len() == 3 && matches!(field(2), Some("name" | "namespace"))))
    {
        return true;
    }
    let mut node = xr;
    for (i, seg) in path.iter().enumerate() {
        let Segment::Field(name) = seg else { return false };
        let required = (i == 0 && name == "spec") || node.required.iter().any(|r| r == name);
        match node.properties.get(name) {
            Some(child) if required || child.default.is_some() => node = child,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Composition of `resources` resources, each using the PatchSet `common` of `set`
    /// patches twice and having one patch of its own.
    fn composition(resources: usize, set: usize) -> String {
        let mut text = String::from("spec:\n  patchSets:\n    - name: common\n      patches:\n");
        for i in 0..set {
            text.push_str(&format!("        - {{fromFieldPath: spec.a{i}, toFieldPath: spec.b{i}}}\n"));
        }
        text.push_str("  resources:\n");
        for i in 0..resources {
            text.push_str(&format!(
                "    - name: r{i}\n      base: {{apiVersion: example.org/v1, kind: Thing}}\n      patches:\n        - {{type: PatchSet, patchSetName: common}}\n        - {{type: PatchSet, patchSetName: common}}\n        - {{fromFieldPath: spec.own, toFieldPath: spec.own}}\n"
            ));
        }
        text
    }

    /// Checks every resource of a generated Composition: the patch checks made, each finding's
    /// rule and message, and the writes returned.
    fn check_all(resources: usize, set: usize) -> (usize, Vec<(Rule, String)>, usize) {
        let root = driftlint_yaml::parse_stream(&composition(resources, set)).documents.remove(0).root;
        let spec = root.get("spec").unwrap();
        let patch_sets: HashMap<&str, &Node> =
            items(spec, "patchSets").iter().filter_map(|s| text(s, "name").map(|n| (n, s))).collect();
        let schemas = Schemas {
            xr: Avail::Missing,
            composed: Avail::Missing,
            xr_kind: "X",
            composed_kind: "Thing",
            secret_ref_filled: false,
        };
        let mut expanded = Expanded::default();
        let mut out = Vec::new();
        let mut writes = 0;
        for resource in items(spec, "resources") {
            writes += check_resource(resource, &patch_sets, schemas, &mut expanded, &mut out).len();
        }
        (expanded.checks, out.into_iter().map(|f| (f.rule, f.message)).collect(), writes)
    }

    /// (patch checks, writes returned) over every resource.
    fn work(resources: usize, set: usize) -> (usize, usize) {
        let (checks, _, writes) = check_all(resources, set);
        (checks, writes)
    }

    /// Each PatchSet is checked once per composed schema, not once per use: ten times the
    /// resources and ten times the set's patches cost about ten times the checks, not a
    /// hundred. Each use still gets the set's writes, as in Crossplane.
    #[test]
    fn patch_sets_are_checked_once_per_schema() {
        assert_eq!(work(20, 20), (20 + 20, 20 * 41));
        assert_eq!(work(200, 200), (200 + 200, 200 * 401));
    }

    #[test]
    fn expansion_beyond_the_budget_is_a_warning() {
        let set = 1_000;
        // Two uses per resource: the budget runs out two uses before the end.
        let resources = MAX_EXPANDED_PATCHES / set / 2 + 1;
        let (_, out, _) = check_all(resources, set);
        let skipped: Vec<&String> = out.iter().filter(|f| f.0 == Rule::CompositionSkipped).map(|f| &f.1).collect();
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        assert!(skipped[0].contains("more than 100000 patches"), "{}", skipped[0]);
    }
}
