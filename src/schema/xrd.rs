//! The schemas Crossplane derives from a CompositeResourceDefinition
//! (`apiextensions.crossplane.io/v1`): one for the composite resource (XR) and, when the XRD
//! has `claimNames`, one for the claim, per version. They follow Crossplane's `internal/xcrd`
//! (v1.14 to v1.17): the XRD's `spec` and `status` properties, plus the standard fields
//! Crossplane adds to every XR and claim; `spec` is required.
//!
//! Standard XR spec fields: compositionRef, compositionSelector, compositionRevisionRef,
//! compositionRevisionSelector, compositionUpdatePolicy, claimRef, environmentConfigRefs,
//! resourceRefs, publishConnectionDetailsTo, writeConnectionSecretToRef. Claims get
//! compositionRef, compositionSelector, compositionRevisionRef, compositionRevisionSelector,
//! compositionUpdatePolicy, compositeDeletePolicy, resourceRef, publishConnectionDetailsTo and
//! writeConnectionSecretToRef (name only). Both get status conditions, connectionDetails and
//! claimConditionTypes.

use super::model::{Schema, Type};

/// XR or claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    Composite,
    Claim,
}

/// The full schema of an XR or claim, from the XRD version's compiled `openAPIV3Schema`.
pub fn derive(xrd_schema: &Schema, flavour: Flavour) -> Schema {
    let mut spec = keep(xrd_schema.properties.get("spec"));
    for (k, v) in standard_spec(flavour) {
        spec.properties.insert(k.to_string(), v);
    }
    let mut status = keep(xrd_schema.properties.get("status"));
    for (k, v) in standard_status() {
        status.properties.insert(k.to_string(), v);
    }
    let mut root = Schema::object(
        [
            ("apiVersion", Schema::of(Type::String)),
            ("kind", Schema::of(Type::String)),
            ("metadata", Schema::of(Type::Object)),
            ("spec", spec),
            ("status", status),
        ],
        &["spec"],
    );
    // Crossplane copies the root's `x-kubernetes-validations` too (`spec`'s come with it).
    root.validations = xrd_schema.validations.clone();
    root
}

/// The XRD's own `spec`/`status` (properties and required), as an object.
fn keep(own: Option<&Schema>) -> Schema {
    let mut s = own.cloned().unwrap_or_default();
    s.ty = Some(Type::Object);
    s
}

fn string() -> Schema {
    Schema::of(Type::String)
}

fn name_ref() -> Schema {
    Schema::object([("name", string())], &["name"])
}

fn selector() -> Schema {
    Schema::object([("matchLabels", Schema::string_map())], &["matchLabels"])
}

fn typed_ref(name_required: bool) -> Schema {
    let required: &[&str] = if name_required { &["apiVersion", "kind", "name"] } else { &["apiVersion", "kind"] };
    Schema::object([("apiVersion", string()), ("kind", string()), ("name", string())], required)
}

fn standard_spec(flavour: Flavour) -> Vec<(&'static str, Schema)> {
    let publish = Schema::object(
        [
            ("name", string()),
            ("configRef", Schema::object([("name", string())], &[])),
            (
                "metadata",
                Schema::object(
                    [("labels", Schema::string_map()), ("annotations", Schema::string_map()), ("type", string())],
                    &[],
                ),
            ),
        ],
        &["name"],
    );
    let mut fields = vec![
        ("compositionRef", name_ref()),
        ("compositionSelector", selector()),
        ("compositionRevisionRef", name_ref()),
        ("compositionRevisionSelector", selector()),
        ("compositionUpdatePolicy", Schema::string_enum(&["Automatic", "Manual"])),
        ("publishConnectionDetailsTo", publish),
    ];
    match flavour {
        Flavour::Composite => fields.extend([
            (
                "claimRef",
                Schema::object(
                    [("apiVersion", string()), ("kind", string()), ("namespace", string()), ("name", string())],
                    &["apiVersion", "kind", "namespace", "name"],
                ),
            ),
            ("environmentConfigRefs", Schema::array(typed_ref(false))),
            ("resourceRefs", Schema::array(typed_ref(false))),
            (
                "writeConnectionSecretToRef",
                Schema::object([("name", string()), ("namespace", string())], &["name", "namespace"]),
            ),
        ]),
        Flavour::Claim => fields.extend([
            ("compositeDeletePolicy", Schema::string_enum(&["Background", "Foreground"])),
            ("resourceRef", typed_ref(true)),
            ("writeConnectionSecretToRef", name_ref()),
        ]),
    }
    fields
}

fn standard_status() -> Vec<(&'static str, Schema)> {
    let time = || Schema { format: Some("date-time".into()), ..string() };
    let condition = Schema::object(
        [
            ("type", string()),
            ("status", string()),
            ("reason", string()),
            ("lastTransitionTime", time()),
            ("message", string()),
        ],
        &["type", "status", "reason", "lastTransitionTime"],
    );
    vec![
        ("conditions", Schema::array(condition)),
        ("connectionDetails", Schema::object([("lastPublishedTime", time())], &[])),
        ("claimConditionTypes", Schema::array(string())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_the_standard_fields_per_flavour() {
        let own = Schema::object(
            [("spec", Schema::object([("parameters", Schema::of(Type::Object))], &["parameters"]))],
            &[],
        );
        let xr = derive(&own, Flavour::Composite);
        assert_eq!(xr.required, ["spec"]);
        let spec = &xr.properties["spec"];
        assert_eq!(spec.required, ["parameters"]);
        assert!(spec.properties.contains_key("claimRef"));
        assert_eq!(spec.properties["writeConnectionSecretToRef"].required, ["name", "namespace"]);
        let claim = derive(&own, Flavour::Claim);
        let spec = &claim.properties["spec"];
        assert!(!spec.properties.contains_key("claimRef") && !spec.properties.contains_key("resourceRefs"));
        assert_eq!(spec.properties["writeConnectionSecretToRef"].required, ["name"]);
        assert!(claim.properties["status"].properties["conditions"].items.is_some());
    }
}
