//! Level 1 of Composition validation: the logical checks that need no schema (Crossplane's
//! `Composition.Validate`, plus the design doc's connection-secret rule and field path syntax).
//!
//! Each problem is a byte range and a message; the range follows the corpus's conventions: the
//! key holding a bad value, or for a missing field the key of the mapping that should hold it
//! (the list item's start when that mapping is an item). Patches and transforms live in
//! [`super::patch_rules`].

use std::collections::HashSet;
use std::ops::Range;

use driftlint_yaml::Node;

use super::patch_rules;
pub use super::problems::Problems;
use super::{items, key_span, text};

/// The annotation that picks a Composition's schema-aware validation mode.
pub const MODE_ANNOTATION: &str = "crossplane.io/composition-schema-aware-validation-mode";

/// Every logical problem of the Composition `root`, read for Crossplane `major` (1 or 2: under
/// 2 a Composition without `mode` is a Pipeline, and there is no Resources mode).
pub fn check(root: &Node, major: u8) -> Problems {
    let mut p = Problems::default();
    if let Some((k, v)) = root.get("metadata").and_then(|m| m.get("annotations")).and_then(|a| a.entry(MODE_ANNOTATION))
        && !matches!(v.as_str(), Some("warn" | "loose" | "strict"))
    {
        p.add(
            &k.span,
            format!("unknown validation mode `{}` (expected warn, loose or strict)", v.raw().unwrap_or_default()),
        );
    }
    let Some((spec_key, spec)) = root.entry("spec") else {
        p.add(&super::first_key(root), "a Composition needs `spec`");
        return p;
    };
    match spec.entry("compositeTypeRef") {
        None => p.add(&spec_key.span, "`spec.compositeTypeRef` is required"),
        Some((k, v)) => {
            if text(v, "apiVersion").is_none() || text(v, "kind").is_none() {
                p.add(&k.span, "`compositeTypeRef` needs `apiVersion` and `kind`");
            }
        }
    }
    let pipeline = match spec.entry("mode") {
        None => major >= 2,
        Some((k, v)) if v.as_str() == Some("Resources") && major >= 2 => {
            p.add(
                &k.span,
                "Crossplane 2 has no mode Resources (native patch and transform was removed): move the resources into a function-patch-and-transform step",
            );
            return p;
        }
        Some((_, v)) if v.as_str() == Some("Resources") => false,
        Some((_, v)) if v.as_str() == Some("Pipeline") => true,
        Some((k, v)) => {
            p.add(&k.span, format!("unknown mode `{}` (expected Resources or Pipeline)", v.raw().unwrap_or_default()));
            return p;
        }
    };
    let functions = !items(spec, "functions").is_empty();
    if pipeline {
        pipeline_steps(spec, &spec_key.span, &mut p);
    } else if items(spec, "resources").is_empty() {
        p.add(&spec_key.span, "mode Resources needs at least one entry in `spec.resources`");
    }
    resource_names(spec, pipeline || functions, &mut p);
    legacy_functions(spec, &mut p);
    if let Some(k) = key_span(spec, "writeConnectionSecretsToNamespace")
        && spec.get("publishConnectionDetailsWithStoreConfigRef").is_some()
    {
        p.add(
            &k,
            "set either `writeConnectionSecretsToNamespace` (deprecated) or `publishConnectionDetailsWithStoreConfigRef`, not both",
        );
    }
    body(spec, patch_rules::Context::Environment, &mut p);
    if pipeline {
        for step in items(spec, "pipeline") {
            match super::pipeline::classify(step) {
                super::pipeline::Step::PatchAndTransform(input) => patch_and_transform(input, &mut p),
                super::pipeline::Step::BadInput { span, message } => p.add(&span, message),
                super::pipeline::Step::Other { .. } | super::pipeline::Step::NoInput { .. } => {}
            }
        }
    }
    p
}

/// The input of a function-patch-and-transform step: every resource named (as with functions
/// in a Resources-mode spec), then the same checks as a Resources-mode spec.
fn patch_and_transform(input: &Node, p: &mut Problems) {
    resource_names(input, true, p);
    body(input, patch_rules::Context::PtEnvironment, p);
}

/// The patchSets, resources and environment of a Resources-mode spec or a patch-and-transform
/// input (`env` says which environment patch types are allowed).
fn body(body: &Node, env: patch_rules::Context, p: &mut Problems) {
    let patch_sets: HashSet<&str> = items(body, "patchSets").iter().filter_map(|s| text(s, "name")).collect();
    for set in items(body, "patchSets") {
        if text(set, "name").is_none() {
            p.add(&set.span, "a patchSet needs `name`");
        }
        for patch in items(set, "patches") {
            patch_rules::check_patch(patch, patch_rules::Context::PatchSet, &patch_sets, p);
        }
    }
    for resource in items(body, "resources") {
        for patch in items(resource, "patches") {
            patch_rules::check_patch(patch, patch_rules::Context::Resource, &patch_sets, p);
        }
        for check in items(resource, "readinessChecks") {
            readiness_check(check, p);
        }
        for detail in items(resource, "connectionDetails") {
            p.path(detail, "fromFieldPath");
        }
    }
    if let Some(e) = body.get("environment") {
        environment(e, env, &patch_sets, p);
    }
}

fn pipeline_steps(spec: &Node, spec_span: &Range<usize>, p: &mut Problems) {
    let steps = items(spec, "pipeline");
    if steps.is_empty() {
        p.add(spec_span, "mode Pipeline needs at least one step in `spec.pipeline`");
    }
    let mut seen = HashSet::new();
    for step in steps {
        match step.entry("step") {
            Some((k, v)) => {
                let name = v.as_str().unwrap_or_default();
                if !seen.insert(name.to_string()) {
                    p.add(&k.span, format!("pipeline step `{name}` is declared twice"));
                }
            }
            None => p.add(&step.span, "a pipeline step needs `step` (its name)"),
        }
        match step.entry("functionRef") {
            Some((k, v)) if text(v, "name").is_none() => p.add(&k.span, "`functionRef` needs `name`"),
            Some(_) => {}
            None => p.add(&step.span, "a pipeline step needs `functionRef`"),
        }
    }
}

/// All named or all anonymous (the first decides; all named with functions); unique names.
fn resource_names(spec: &Node, functions: bool, p: &mut Problems) {
    let resources = items(spec, "resources");
    let first_named = resources.first().is_some_and(|r| text(r, "name").is_some());
    let mut seen = HashSet::new();
    for (i, r) in resources.iter().enumerate() {
        let name = r.entry("name").and_then(|(k, v)| v.as_str().filter(|s| !s.is_empty()).map(|s| (k, s)));
        match name {
            None if functions => p.add(&r.span, "with functions every resource needs a `name`"),
            None if first_named && i > 0 => {
                p.add(&r.span, "an anonymous resource among named ones: every resource needs a `name`")
            }
            Some((k, _)) if !first_named && !functions && i > 0 => {
                p.add(&k.span, "a named resource after an anonymous one: name all resources or none")
            }
            Some((k, n)) if !seen.insert(n) => p.add(&k.span, format!("resource name `{n}` is used twice")),
            Some(_) => {}
            None => {}
        }
    }
}

/// Crossplane 1.11–1.13's `spec.functions`: unique names, `type: Container` with `container`.
fn legacy_functions(spec: &Node, p: &mut Problems) {
    let mut seen = HashSet::new();
    for f in items(spec, "functions") {
        match f.entry("name") {
            Some((k, v)) => {
                let name = v.as_str().unwrap_or_default();
                if !seen.insert(name.to_string()) {
                    p.add(&k.span, format!("function name `{name}` is used twice"));
                }
            }
            None => p.add(&f.span, "a function needs `name`"),
        }
        match f.entry("type") {
            None => p.add(&f.span, "a function needs `type: Container`"),
            Some((k, v)) if v.as_str() != Some("Container") => {
                p.add(&k.span, format!("unknown function type `{}` (expected Container)", v.raw().unwrap_or_default()))
            }
            Some(_) if f.get("container").is_none() => p.add(&f.span, "a Container function needs `container`"),
            Some(_) => {}
        }
    }
}

fn readiness_check(check: &Node, p: &mut Problems) {
    let Some((type_key, ty)) = check.entry("type") else {
        p.add(&check.span, "a readiness check needs `type`");
        return;
    };
    let ty = ty.as_str().unwrap_or_default();
    match ty {
        "NonEmpty" | "MatchTrue" | "MatchFalse" | "None" | "MatchCondition" => {}
        "MatchString" if check.get("matchString").is_none() => {
            p.add(&check.span, "a MatchString readiness check needs `matchString`")
        }
        "MatchInteger" if check.get("matchInteger").is_none_or(|v| v.value == driftlint_yaml::NodeValue::Int(0)) => {
            p.add(&check.span, "a MatchInteger readiness check needs a non-zero `matchInteger`")
        }
        "MatchString" | "MatchInteger" => {}
        other => {
            p.add(&type_key.span, format!("unknown readiness check type `{other}`"));
            return;
        }
    }
    if !matches!(ty, "None" | "MatchCondition") && check.get("fieldPath").is_none() {
        p.add(&check.span, format!("a {ty} readiness check needs `fieldPath`"));
    }
    p.path(check, "fieldPath");
    if ty == "MatchCondition" {
        match check.entry("matchCondition") {
            None => p.add(&check.span, "a MatchCondition readiness check needs `matchCondition`"),
            Some((k, v)) if text(v, "type").is_none() || text(v, "status").is_none() => {
                p.add(&k.span, "`matchCondition` needs `type` and `status`")
            }
            Some(_) => {}
        }
    }
}

fn environment(env: &Node, ctx: patch_rules::Context, patch_sets: &HashSet<&str>, p: &mut Problems) {
    for source in items(env, "environmentConfigs") {
        let ty = match source.entry("type") {
            None => "Reference",
            Some((k, v)) => match v.as_str() {
                Some(t @ ("Reference" | "Selector")) => t,
                _ => {
                    p.add(&k.span, format!("unknown environment source type `{}`", v.raw().unwrap_or_default()));
                    continue;
                }
            },
        };
        if ty == "Reference" {
            match source.entry("ref") {
                None => p.add(&source.span, "a Reference environment source needs `ref.name`"),
                Some((k, v)) if text(v, "name").is_none() => p.add(&k.span, "`ref` needs `name`"),
                Some(_) => {}
            }
            continue;
        }
        let Some((sel_key, selector)) = source.entry("selector") else {
            p.add(&source.span, "a Selector environment source needs `selector.matchLabels`");
            continue;
        };
        if selector.get("matchLabels").is_none() {
            p.add(&sel_key.span, "`selector` needs `matchLabels`");
        }
        for m in items(selector, "matchLabels") {
            match m.entry("type").map(|(k, v)| (k, v.as_str().unwrap_or_default())) {
                None | Some((_, "FromCompositeFieldPath")) => {
                    if m.get("valueFromFieldPath").is_none() {
                        p.add(&m.span, "a FromCompositeFieldPath label matcher needs `valueFromFieldPath`");
                    }
                    p.path(m, "valueFromFieldPath");
                }
                Some((_, "Value")) if m.get("value").is_none() => p.add(&m.span, "a Value label matcher needs `value`"),
                Some((_, "Value")) => {}
                Some((k, other)) => p.add(&k.span, format!("unknown label matcher type `{other}`")),
            }
        }
    }
    for patch in items(env, "patches") {
        patch_rules::check_patch(patch, ctx, patch_sets, p);
    }
}
