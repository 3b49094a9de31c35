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
//!
//! `apiextensions.crossplane.io/v2` XRDs (Crossplane 2, crossplane-runtime's `pkg/xcrd`) give
//! no claim and have a `scope`: a `Namespaced` (the default) or `Cluster` XR keeps Crossplane's
//! machinery under `spec.crossplane` (compositionRef, compositionSelector,
//! compositionRevisionRef, compositionRevisionSelector, compositionUpdatePolicy, resourceRefs)
//! and reports it under `status.crossplane`; a `LegacyCluster` XR has it directly under `spec`
//! with claimRef and writeConnectionSecretToRef, as in v1 (no environmentConfigRefs nor
//! publishConnectionDetailsTo any more). Crossplane 2 serves a v1 XRD as a `LegacyCluster`
//! one, and its conditions (of every XR and claim) take `observedGeneration`: [`derive`] gives
//! either version's schema.

use super::model::{Schema, Type};

/// XR or claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    Composite,
    Claim,
}

/// The scope of a v2 XRD's composite resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Namespaced,
    Cluster,
    LegacyCluster,
}

impl Scope {
    /// `spec.scope` as written (`None` when absent: `Namespaced`).
    pub fn parse(text: Option<&str>) -> Option<Scope> {
        match text {
            None | Some("Namespaced") => Some(Scope::Namespaced),
            Some("Cluster") => Some(Scope::Cluster),
            Some("LegacyCluster") => Some(Scope::LegacyCluster),
            Some(_) => None,
        }
    }
}

/// The full schema of a v2 XR of `scope`, from the XRD version's compiled `openAPIV3Schema`.
pub fn derive_v2(xrd_schema: &Schema, scope: Scope) -> Schema {
    let mut machinery = vec![
        ("compositionRef", name_ref()),
        ("compositionSelector", selector()),
        ("compositionRevisionRef", name_ref()),
        ("compositionRevisionSelector", selector()),
        ("compositionUpdatePolicy", Schema::string_enum(&["Automatic", "Manual"])),
        ("resourceRefs", Schema::array(resource_ref(scope != Scope::Namespaced))),
    ];
    let pending = Schema::array(pending_resource(scope != Scope::Namespaced));
    let mut spec = keep(xrd_schema.properties.get("spec"));
    let mut status = keep(xrd_schema.properties.get("status"));
    for (k, v) in standard_status(Crossplane::Two).into_iter().take(1) {
        status.properties.insert(k.to_string(), v);
    }
    if scope == Scope::LegacyCluster {
        machinery.extend([
            (
                "claimRef",
                Schema::object(
                    [("apiVersion", string()), ("kind", string()), ("namespace", string()), ("name", string())],
                    &["apiVersion", "kind", "namespace", "name"],
                ),
            ),
            (
                "writeConnectionSecretToRef",
                Schema::object([("name", string()), ("namespace", string())], &["name", "namespace"]),
            ),
        ]);
        for (k, v) in machinery {
            spec.properties.insert(k.to_string(), v);
        }
        for (k, v) in standard_status(Crossplane::Two).into_iter().skip(1) {
            status.properties.insert(k.to_string(), v);
        }
        status.properties.insert("pendingResources".into(), pending);
    } else {
        spec.properties.insert("crossplane".into(), Schema::object(machinery, &[]));
        status.properties.insert("crossplane".into(), Schema::object([("pendingResources", pending)], &[]));
    }
    composite(spec, status, xrd_schema)
}

/// A v2 `resourceRefs` item (a namespaced XR's refs name no namespace).
fn resource_ref(with_namespace: bool) -> Schema {
    let mut s = Schema::object(
        [
            ("apiVersion", string()),
            ("kind", string()),
            ("name", string()),
            ("resourceName", string()),
            ("dependsOn", Schema::array(string())),
        ],
        &["apiVersion", "kind"],
    );
    if with_namespace {
        s.properties.insert("namespace".into(), string());
    }
    s
}

/// A `pendingResources` item: what Crossplane holds back, and why.
fn pending_resource(with_namespace: bool) -> Schema {
    let requirement =
        Schema::object([("name", string()), ("resourceName", string()), ("namespace", string())], &["name"]);
    let depends = Schema::object(
        [
            ("type", Schema::string_enum(&["ComposedResource", "RequiredResource"])),
            ("name", string()),
            ("requirement", requirement),
        ],
        &[],
    );
    let mut s = Schema::object(
        [
            ("apiVersion", string()),
            ("kind", string()),
            ("name", string()),
            ("resourceName", string()),
            ("operation", Schema::string_enum(&["Create", "Delete"])),
            ("reason", string()),
            ("deadlocked", Schema::of(Type::Boolean)),
            ("dependsOn", Schema::array(depends)),
        ],
        &["apiVersion", "kind", "resourceName", "operation"],
    );
    if with_namespace {
        s.properties.insert("namespace".into(), string());
    }
    s
}

/// The full schema of an XR or claim of an `apiextensions.crossplane.io/v1` XRD, from the XRD
/// version's compiled `openAPIV3Schema`, as `crossplane` serves it. Crossplane 2 serves a v1
/// XRD as a `LegacyCluster` one (its `scope` defaults so): the XR as [`derive_v2`] gives it,
/// the claim without `publishConnectionDetailsTo` and with conditions' `observedGeneration`.
pub fn derive(xrd_schema: &Schema, flavour: Flavour, crossplane: Crossplane) -> Schema {
    if crossplane == Crossplane::Two && flavour == Flavour::Composite {
        return derive_v2(xrd_schema, Scope::LegacyCluster);
    }
    let mut spec = keep(xrd_schema.properties.get("spec"));
    for (k, v) in standard_spec(flavour) {
        if crossplane == Crossplane::Two && k == "publishConnectionDetailsTo" {
            continue;
        }
        spec.properties.insert(k.to_string(), v);
    }
    let mut status = keep(xrd_schema.properties.get("status"));
    for (k, v) in standard_status(crossplane) {
        status.properties.insert(k.to_string(), v);
    }
    composite(spec, status, xrd_schema)
}

/// The Crossplane major version an XR's schema is derived for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crossplane {
    One,
    Two,
}

/// The XR's (or claim's) root object around its `spec` and `status`. Crossplane copies the
/// XRD root's `x-kubernetes-validations` too (`spec`'s come with it).
fn composite(spec: Schema, status: Schema, xrd_schema: &Schema) -> Schema {
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

/// The status fields of every XR and claim. Crossplane 2 (crossplane-runtime v2's
/// `CompositeResourceStatusProps`) adds a condition's `observedGeneration`.
fn standard_status(crossplane: Crossplane) -> Vec<(&'static str, Schema)> {
    let time = || Schema { format: Some("date-time".into()), ..string() };
    let mut condition = Schema::object(
        [
            ("type", string()),
            ("status", string()),
            ("reason", string()),
            ("lastTransitionTime", time()),
            ("message", string()),
        ],
        &["type", "status", "reason", "lastTransitionTime"],
    );
    if crossplane == Crossplane::Two {
        condition.properties.insert("observedGeneration".into(), Schema::of(Type::Integer));
    }
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
    fn v2_machinery_under_spec_crossplane_or_at_the_top_for_legacy() {
        let own = Schema::object(
            [("spec", Schema::object([("parameters", Schema::of(Type::Object))], &["parameters"]))],
            &[],
        );
        for scope in [Scope::Namespaced, Scope::Cluster] {
            let xr = derive_v2(&own, scope);
            let spec = &xr.properties["spec"];
            assert_eq!(spec.required, ["parameters"]);
            let machinery = &spec.properties["crossplane"];
            assert!(machinery.properties.contains_key("compositionRef"), "{scope:?}");
            assert!(!spec.properties.contains_key("compositionRef") && !spec.properties.contains_key("claimRef"));
            assert!(!spec.properties.contains_key("writeConnectionSecretToRef"));
            let refs = machinery.properties["resourceRefs"].items.as_deref().unwrap();
            assert_eq!(refs.properties.contains_key("namespace"), scope == Scope::Cluster);
            assert!(xr.properties["status"].properties["crossplane"].properties.contains_key("pendingResources"));
            assert!(!xr.properties["status"].properties.contains_key("connectionDetails"));
        }
        let legacy = derive_v2(&own, Scope::LegacyCluster);
        let spec = &legacy.properties["spec"];
        assert!(!spec.properties.contains_key("crossplane"));
        assert_eq!(spec.properties["writeConnectionSecretToRef"].required, ["name", "namespace"]);
        assert!(spec.properties.contains_key("claimRef") && !spec.properties.contains_key("environmentConfigRefs"));
        assert!(legacy.properties["status"].properties.contains_key("claimConditionTypes"));
        assert_eq!(Scope::parse(None), Some(Scope::Namespaced));
        assert_eq!(Scope::parse(Some("Namespace")), None);
    }

    #[test]
    fn adds_the_standard_fields_per_flavour() {
        let own = Schema::object(
            [("spec", Schema::object([("parameters", Schema::of(Type::Object))], &["parameters"]))],
            &[],
        );
        let xr = derive(&own, Flavour::Composite, Crossplane::One);
        assert_eq!(xr.required, ["spec"]);
        let spec = &xr.properties["spec"];
        assert_eq!(spec.required, ["parameters"]);
        assert!(spec.properties.contains_key("claimRef"));
        assert_eq!(spec.properties["writeConnectionSecretToRef"].required, ["name", "namespace"]);
        let claim = derive(&own, Flavour::Claim, Crossplane::One);
        let spec = &claim.properties["spec"];
        assert!(!spec.properties.contains_key("claimRef") && !spec.properties.contains_key("resourceRefs"));
        assert_eq!(spec.properties["writeConnectionSecretToRef"].required, ["name"]);
        assert!(claim.properties["status"].properties["conditions"].items.is_some());
    }

    /// Crossplane 2 (crossplane-runtime v2 `pkg/xcrd/schemas.go`): conditions take
    /// `observedGeneration`; a v1 XRD's XR is a LegacyCluster one, its claim has no
    /// `publishConnectionDetailsTo`.
    #[test]
    fn crossplane_2_adds_observed_generation_and_drops_what_it_removed() {
        let own = Schema::object([("spec", Schema::object([], &[]))], &[]);
        let condition = |s: &Schema| s.properties["status"].properties["conditions"].items.as_deref().unwrap().clone();
        for flavour in [Flavour::Composite, Flavour::Claim] {
            let one = derive(&own, flavour, Crossplane::One);
            assert!(!condition(&one).properties.contains_key("observedGeneration"));
            assert!(one.properties["spec"].properties.contains_key("publishConnectionDetailsTo"));
            let two = derive(&own, flavour, Crossplane::Two);
            assert_eq!(condition(&two).properties["observedGeneration"].ty, Some(Type::Integer));
            assert!(!two.properties["spec"].properties.contains_key("publishConnectionDetailsTo"), "{flavour:?}");
        }
        let xr = derive(&own, Flavour::Composite, Crossplane::Two);
        assert!(!xr.properties["spec"].properties.contains_key("environmentConfigRefs"));
        assert!(xr.properties["spec"].properties.contains_key("claimRef"));
        for scope in [Scope::Namespaced, Scope::Cluster, Scope::LegacyCluster] {
            assert!(condition(&derive_v2(&own, scope)).properties.contains_key("observedGeneration"));
        }
    }
}
