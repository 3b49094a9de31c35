//! The steps of a `mode: Pipeline` Composition, as far as driftlint can see into them.
//!
//! A step whose input is function-patch-and-transform's `Resources`
//! (`pt.fn.crossplane.io/v1beta1`) declares its resources, patchSets, environment patches,
//! readiness checks and connection details in the shape of a Resources-mode spec, so the same
//! checks apply to it (the caller hands the input node to them). The function's own input
//! validation (`validate.go` of crossplane-contrib/function-patch-and-transform) differs from
//! Crossplane's native one in three places, followed here: every resource needs a name,
//! `resources` may be empty when there are environment patches, and environment patches may
//! also be `FromEnvironmentFieldPath` (environment to XR) and `ToEnvironmentFieldPath` (XR to
//! environment).
//!
//! Steps of other functions (go-templating, KCL, auto-ready, …) make resources driftlint cannot
//! see offline: they are named in a note, never an error. A step that names
//! patch-and-transform (its function's name, or the input's API group) with an input of another
//! kind or version is a logical error: the function would fail on it. A step without input,
//! and an input with neither resources nor environment patches, fail only when the function
//! runs (Crossplane's webhook does not look into inputs): a `composition-skipped` warning each.

use driftlint_yaml::Node;

use super::{key_span, text};
use driftlint_schema::split_api_version;

/// The input's API group and the one kind and version the function reads.
pub const INPUT_GROUP: &str = "pt.fn.crossplane.io";
pub const INPUT_VERSION: &str = "v1beta1";
pub const INPUT_KIND: &str = "Resources";

/// What a pipeline step is to driftlint.
#[derive(Debug)]
pub enum Step<'n> {
    /// A function-patch-and-transform step: its input.
    PatchAndTransform(&'n Node),
    /// A patch-and-transform step whose input the function does not take: where, and why.
    BadInput { span: std::ops::Range<usize>, message: String },
    /// A patch-and-transform step without input: the function fails at run time, but
    /// Crossplane's webhook does not look into function inputs, so it is a warning.
    NoInput { span: std::ops::Range<usize>, message: String },
    /// Any other function's step.
    Other { name: &'n str, function: &'n str },
}

/// Classifies one item of `spec.pipeline`.
pub fn classify(step: &Node) -> Step<'_> {
    let name = text(step, "step").unwrap_or("(unnamed)");
    let function = step.get("functionRef").and_then(|f| text(f, "name")).unwrap_or("(unnamed)");
    let input = step.entry("input");
    let api_version = input.and_then(|(_, i)| text(i, "apiVersion")).unwrap_or_default();
    let kind = input.and_then(|(_, i)| text(i, "kind")).unwrap_or_default();
    let (group, version) = split_api_version(api_version);
    let named_pt = function.contains("patch-and-transform");
    if group != INPUT_GROUP && !named_pt {
        return Step::Other { name, function };
    }
    if let Some((_, node)) = input
        && group == INPUT_GROUP
        && version == INPUT_VERSION
        && kind == INPUT_KIND
    {
        return Step::PatchAndTransform(node);
    }
    let expected = format!("`apiVersion: {INPUT_GROUP}/{INPUT_VERSION}` and `kind: {INPUT_KIND}`");
    match input {
        None => Step::NoInput {
            span: key_span(step, "step").unwrap_or_else(|| step.span.clone()),
            message: format!(
                "pipeline step `{name}` runs function-patch-and-transform without `input`: it needs a Resources input ({expected})"
            ),
        },
        Some((key, node)) => {
            let at = node.entry("kind").or_else(|| node.entry("apiVersion")).map_or(&key.span, |(k, _)| &k.span);
            let shown = if api_version.is_empty() && kind.is_empty() {
                "an input without apiVersion and kind".to_string()
            } else {
                format!("an input of kind `{kind}` ({api_version})")
            };
            Step::BadInput {
                span: at.clone(),
                message: format!(
                    "pipeline step `{name}` gives function-patch-and-transform {shown}: it takes only {expected}"
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(text: &str) -> Node {
        driftlint_yaml::parse_stream(text).documents.remove(0).root
    }

    #[test]
    fn steps_by_function_and_input() {
        let pt = step(
            "step: a\nfunctionRef: {name: anything}\ninput: {apiVersion: pt.fn.crossplane.io/v1beta1, kind: Resources}",
        );
        assert!(matches!(classify(&pt), Step::PatchAndTransform(_)));
        let other = step(
            "step: b\nfunctionRef: {name: function-go-templating}\ninput: {apiVersion: gotemplating.fn.crossplane.io/v1beta1, kind: GoTemplate}",
        );
        assert!(matches!(classify(&other), Step::Other { name: "b", function: "function-go-templating" }));
        let no_input = step("step: c\nfunctionRef: {name: function-auto-ready}");
        assert!(matches!(classify(&no_input), Step::Other { .. }));
        let wrong_kind = step(
            "step: d\nfunctionRef: {name: function-patch-and-transform}\ninput:\n  apiVersion: pt.fn.crossplane.io/v1beta1\n  kind: Resource\n",
        );
        assert!(
            matches!(classify(&wrong_kind), Step::BadInput { message, .. } if message.contains("kind `Resource`")),
            "{:?}",
            classify(&wrong_kind)
        );
        let wrong_version =
            step("step: e\nfunctionRef: {name: f}\ninput: {apiVersion: pt.fn.crossplane.io/v1alpha9, kind: Resources}");
        assert!(matches!(classify(&wrong_version), Step::BadInput { .. }));
        let missing = step("step: f\nfunctionRef: {name: crossplane-contrib-function-patch-and-transform}");
        assert!(matches!(classify(&missing), Step::NoInput { message, .. } if message.contains("without `input`")));
    }
}
