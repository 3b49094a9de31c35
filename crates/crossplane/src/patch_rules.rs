//! Level 1 for patches and transforms: the fields each patch, transform, match pattern and
//! string or math sub-type needs, known type names, declared patchSet names, regular
//! expressions that compile (Go RE2) and field paths that parse.

use std::collections::HashSet;

use driftlint_yaml::Node;

use super::problems::Problems;
use super::{items, text};

/// Where a patch is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    Resource,
    PatchSet,
    /// `spec.environment.patches`.
    Environment,
    /// A patch-and-transform input's `environment.patches`.
    PtEnvironment,
}

/// The patch types Crossplane knows.
pub const PATCH_TYPES: [&str; 9] = [
    "FromCompositeFieldPath",
    "FromEnvironmentFieldPath",
    "ToCompositeFieldPath",
    "ToEnvironmentFieldPath",
    "PatchSet",
    "CombineFromComposite",
    "CombineToComposite",
    "CombineFromEnvironment",
    "CombineToEnvironment",
];

/// The patch types between the XR and the environment: Crossplane's native environment takes
/// the first four, function-patch-and-transform all six.
const ENV_PATCH_TYPES: [&str; 6] = [
    "FromCompositeFieldPath",
    "ToCompositeFieldPath",
    "CombineFromComposite",
    "CombineToComposite",
    "FromEnvironmentFieldPath",
    "ToEnvironmentFieldPath",
];

/// A patch's type (`FromCompositeFieldPath` when omitted).
pub fn patch_type(patch: &Node) -> &str {
    text(patch, "type").unwrap_or("FromCompositeFieldPath")
}

pub fn check_patch(patch: &Node, ctx: Context, patch_sets: &HashSet<&str>, p: &mut Problems) {
    let ty = patch_type(patch);
    let type_span = patch.entry("type").map_or(patch.span.clone(), |(k, _)| k.span.clone());
    if !PATCH_TYPES.contains(&ty) {
        p.add(&type_span, format!("unknown patch type `{ty}`"));
        return;
    }
    let env_allowed: &[&str] = match ctx {
        Context::Environment => &ENV_PATCH_TYPES[..4],
        _ => &ENV_PATCH_TYPES,
    };
    if matches!(ctx, Context::Environment | Context::PtEnvironment) && !env_allowed.contains(&ty) {
        p.add(&type_span, format!("environment patches cannot be of type {ty} (only {})", env_allowed.join(", ")));
        return;
    }
    match ty {
        "PatchSet" => {
            if ctx == Context::PatchSet {
                p.add(&type_span, "a patchSet cannot use another patchSet");
                return;
            }
            match patch.entry("patchSetName") {
                None => p.add(&patch.span, "a PatchSet patch needs `patchSetName`"),
                Some((k, v)) => {
                    let name = v.as_str().unwrap_or_default();
                    if !patch_sets.contains(name) {
                        p.add(&k.span, format!("no patchSet is named `{name}`"));
                    }
                }
            }
            return;
        }
        t if t.starts_with("Combine") => {
            combine(patch, p);
        }
        _ => {
            if patch.get("fromFieldPath").is_none() {
                p.add(&patch.span, format!("a {ty} patch needs `fromFieldPath`"));
            }
            p.path(patch, "fromFieldPath");
        }
    }
    p.path(patch, "toFieldPath");
    for t in items(patch, "transforms") {
        check_transform(t, p);
    }
}

fn combine(patch: &Node, p: &mut Problems) {
    let ty = patch_type(patch);
    let Some((combine_key, combine)) = patch.entry("combine") else {
        p.add(&patch.span, format!("a {ty} patch needs `combine`"));
        return;
    };
    if patch.get("toFieldPath").is_none() {
        p.add(&patch.span, format!("a {ty} patch needs `toFieldPath`"));
    }
    let variables = items(combine, "variables");
    if variables.is_empty() {
        p.add(&combine_key.span, "`combine` needs at least one variable");
    }
    for v in variables {
        if v.get("fromFieldPath").is_none() {
            p.add(&v.span, "a combine variable needs `fromFieldPath`");
        }
        p.path(v, "fromFieldPath");
    }
    match combine.entry("strategy") {
        None => p.add(&combine_key.span, "`combine` needs `strategy`"),
        Some((k, v)) if v.as_str() != Some("string") => {
            p.add(&k.span, format!("unknown combine strategy `{}` (only `string`)", v.raw().unwrap_or_default()))
        }
        Some(_) => match combine.entry("string") {
            None => p.add(&combine_key.span, "the string strategy needs `string`"),
            Some((k, s)) if s.get("fmt").is_none() => p.add(&k.span, "the string strategy needs `string.fmt`"),
            Some(_) => {}
        },
    }
}

/// The transform types Crossplane knows.
const TRANSFORM_TYPES: [&str; 5] = ["map", "match", "math", "string", "convert"];

pub fn check_transform(t: &Node, p: &mut Problems) {
    let Some((type_key, ty)) = t.entry("type") else {
        p.add(&t.span, "a transform needs `type`");
        return;
    };
    let ty = ty.as_str().unwrap_or_default();
    if !TRANSFORM_TYPES.contains(&ty) {
        p.add(&type_key.span, format!("unknown transform type `{ty}` (expected {})", TRANSFORM_TYPES.join(", ")));
        return;
    }
    let Some((key, block)) = t.entry(ty) else {
        p.add(&t.span, format!("a {ty} transform needs `{ty}`"));
        return;
    };
    let key = &key.span;
    match ty {
        "map" if !matches!(&block.value, driftlint_yaml::NodeValue::Mapping(m) if !m.is_empty()) => {
            p.add(key, "a map transform needs at least one pair")
        }
        "match" => match_transform(block, key, p),
        "math" => {
            let (sub, field) = match text(block, "type") {
                None | Some("Multiply") => ("Multiply", "multiply"),
                Some("ClampMin") => ("ClampMin", "clampMin"),
                Some("ClampMax") => ("ClampMax", "clampMax"),
                Some(other) => {
                    let span = block.entry("type").map(|(k, _)| k.span.clone()).unwrap_or(key.clone());
                    p.add(&span, format!("unknown math type `{other}`"));
                    return;
                }
            };
            if block.get(field).is_none() {
                p.add(key, format!("math type {sub} needs `{field}`"));
            }
        }
        "string" => string_transform(block, key, p),
        "convert" => match block.entry("toType") {
            None => p.add(key, "a convert transform needs `toType`"),
            Some((k, v)) => {
                let to = v.as_str().unwrap_or_default();
                if !["string", "int", "int64", "bool", "float64", "object", "array"].contains(&to) {
                    p.add(&k.span, format!("unknown convert toType `{to}`"));
                }
                if let Some((k, f)) = block.entry("format") {
                    let f = f.as_str().unwrap_or_default();
                    if !["none", "quantity", "json"].contains(&f) {
                        p.add(&k.span, format!("unknown convert format `{f}`"));
                    }
                }
            }
        },
        _ => {}
    }
}

fn match_transform(block: &Node, key: &std::ops::Range<usize>, p: &mut Problems) {
    let patterns = items(block, "patterns");
    if patterns.is_empty() {
        p.add(key, "a match transform needs at least one pattern");
    }
    for pat in patterns {
        match text(pat, "type").unwrap_or("literal") {
            "literal" => {
                if pat.get("literal").is_none() {
                    p.add(&pat.span, "a literal pattern needs `literal`");
                }
            }
            "regexp" => match pat.entry("regexp") {
                None => p.add(&pat.span, "a regexp pattern needs `regexp`"),
                Some((k, v)) => regexp(&k.span, v, p),
            },
            other => {
                let span = pat.entry("type").map_or(pat.span.clone(), |(k, _)| k.span.clone());
                p.add(&span, format!("unknown match pattern type `{other}` (expected literal or regexp)"));
            }
        }
    }
}

fn string_transform(block: &Node, key: &std::ops::Range<usize>, p: &mut Problems) {
    let sub = text(block, "type").unwrap_or("Format");
    let field = match sub {
        "Format" => "fmt",
        "Convert" => "convert",
        "TrimPrefix" | "TrimSuffix" => "trim",
        "Regexp" => "regexp",
        "Join" => "join",
        other => {
            let span = block.entry("type").map(|(k, _)| k.span.clone()).unwrap_or(key.clone());
            p.add(&span, format!("unknown string transform type `{other}`"));
            return;
        }
    };
    let Some((k, v)) = block.entry(field) else {
        p.add(key, format!("string type {sub} needs `{field}`"));
        return;
    };
    match sub {
        "Convert" => {
            let c = v.as_str().unwrap_or_default();
            if super::types::string_convert_input(c).is_none() {
                p.add(&k.span, format!("unknown string conversion `{c}`"));
            }
        }
        "Regexp" => match v.entry("match") {
            None => p.add(&k.span, "a Regexp string transform needs `regexp.match`"),
            Some((mk, mv)) => regexp(&mk.span, mv, p),
        },
        _ => {}
    }
}

fn regexp(span: &std::ops::Range<usize>, v: &Node, p: &mut Problems) {
    let pattern = v.as_str().unwrap_or_default();
    if let Err(e) = driftlint_goregex::compile(pattern) {
        p.add(span, format!("the regular expression does not compile: {e}"));
    }
}
