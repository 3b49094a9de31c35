//! Which Kubernetes version removed an API version of a kind, and what replaces it.
//!
//! Removals between bundled versions are read off the bundle; the ones before the oldest
//! bundled version come from [`BEFORE_BUNDLE`], written from Kubernetes' deprecated API
//! migration guide (kubernetes.io/docs/reference/using-api/deprecation-guide): the API
//! versions manifests in the wild still carry. A replacement is `None` where Kubernetes has
//! none (PodSecurityPolicy gave way to the Pod Security admission, not to another kind).

use crate::{Whereabouts, find, key, whereabouts};

/// A kind's API version that Kubernetes no longer serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    /// The Kubernetes version that stopped serving it (`1.22`).
    pub removed_in: String,
    /// The apiVersion to use instead (`networking.k8s.io/v1`), if any.
    pub replacement: Option<String>,
}

/// `(apiVersion, kinds, removed in, replacement apiVersion)`.
type Entry = (&'static str, &'static [&'static str], &'static str, Option<&'static str>);

const BEFORE_BUNDLE: &[Entry] = &[
    // Initializers (alpha) were dropped in favour of mutating admission webhooks: no kind
    // replaces it.
    ("admissionregistration.k8s.io/v1alpha1", &["InitializerConfiguration"], "1.14", None),
    ("extensions/v1beta1", &["Deployment", "DaemonSet", "ReplicaSet"], "1.16", Some("apps/v1")),
    ("extensions/v1beta1", &["NetworkPolicy"], "1.16", Some("networking.k8s.io/v1")),
    ("extensions/v1beta1", &["PodSecurityPolicy"], "1.16", Some("policy/v1beta1")),
    ("extensions/v1beta1", &["Ingress"], "1.22", Some("networking.k8s.io/v1")),
    ("apps/v1beta1", &["Deployment", "StatefulSet", "ReplicaSet", "ControllerRevision"], "1.16", Some("apps/v1")),
    (
        "apps/v1beta2",
        &["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ControllerRevision"],
        "1.16",
        Some("apps/v1"),
    ),
    ("networking.k8s.io/v1beta1", &["Ingress", "IngressClass"], "1.22", Some("networking.k8s.io/v1")),
    ("apiextensions.k8s.io/v1beta1", &["CustomResourceDefinition"], "1.22", Some("apiextensions.k8s.io/v1")),
    ("apiregistration.k8s.io/v1beta1", &["APIService"], "1.22", Some("apiregistration.k8s.io/v1")),
    (
        "admissionregistration.k8s.io/v1beta1",
        &["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"],
        "1.22",
        Some("admissionregistration.k8s.io/v1"),
    ),
    (
        "rbac.authorization.k8s.io/v1beta1",
        &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
        "1.22",
        Some("rbac.authorization.k8s.io/v1"),
    ),
    ("scheduling.k8s.io/v1beta1", &["PriorityClass"], "1.22", Some("scheduling.k8s.io/v1")),
    ("coordination.k8s.io/v1beta1", &["Lease"], "1.22", Some("coordination.k8s.io/v1")),
    ("certificates.k8s.io/v1beta1", &["CertificateSigningRequest"], "1.22", Some("certificates.k8s.io/v1")),
    (
        "storage.k8s.io/v1beta1",
        &["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"],
        "1.22",
        Some("storage.k8s.io/v1"),
    ),
    ("batch/v1beta1", &["CronJob"], "1.25", Some("batch/v1")),
    ("policy/v1beta1", &["PodDisruptionBudget"], "1.25", Some("policy/v1")),
    ("policy/v1beta1", &["PodSecurityPolicy"], "1.25", None),
    ("autoscaling/v2beta1", &["HorizontalPodAutoscaler"], "1.25", Some("autoscaling/v2")),
    ("autoscaling/v2beta2", &["HorizontalPodAutoscaler"], "1.26", Some("autoscaling/v2")),
    ("discovery.k8s.io/v1beta1", &["EndpointSlice"], "1.25", Some("discovery.k8s.io/v1")),
    ("events.k8s.io/v1beta1", &["Event"], "1.25", Some("events.k8s.io/v1")),
    ("node.k8s.io/v1beta1", &["RuntimeClass"], "1.25", Some("node.k8s.io/v1")),
    (
        "flowcontrol.apiserver.k8s.io/v1beta1",
        &["FlowSchema", "PriorityLevelConfiguration"],
        "1.26",
        Some("flowcontrol.apiserver.k8s.io/v1"),
    ),
    (
        "flowcontrol.apiserver.k8s.io/v1beta2",
        &["FlowSchema", "PriorityLevelConfiguration"],
        "1.29",
        Some("flowcontrol.apiserver.k8s.io/v1"),
    ),
    ("storage.k8s.io/v1beta1", &["CSIStorageCapacity"], "1.27", Some("storage.k8s.io/v1")),
];

/// Whether Kubernetes `kube` (a bundled version) removed `group/version kind`, when, and what
/// replaces it there: `None` for a kind it serves or that never existed as far as driftlint
/// knows. The replacement is the table's, or else another API version of the same group and
/// kind that `kube` serves (the newest stable one first).
pub fn removal(kube: &str, group: &str, version: &str, kind: &str) -> Option<Removal> {
    let release = find(kube)?;
    if release.kinds.contains_key(&key(group, version, kind)) {
        return None;
    }
    let api_version = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    let listed = BEFORE_BUNDLE.iter().find(|(av, kinds, _, _)| *av == api_version && kinds.contains(&kind)).map(
        |(_, _, removed_in, replacement)| Removal {
            removed_in: removed_in.to_string(),
            replacement: replacement.map(str::to_string),
        },
    );
    if let Some(r) = listed {
        // A replacement that is itself gone by `kube` (extensions' PodSecurityPolicy) is none.
        let replacement = r.replacement.filter(|av| {
            let (g, v) = av.rsplit_once('/').unwrap_or(("", av));
            release.kinds.contains_key(&key(g, v, kind))
        });
        return Some(Removal { replacement, ..r });
    }
    // A group no bundled version serves has no bundled history (most custom resources):
    // asked for every object without a schema, so answered without the versions' tables.
    if !crate::groups().contains(group) {
        return None;
    }
    let Some(Whereabouts::Removed { removed_in, .. }) = whereabouts(kube, group, version, kind) else { return None };
    let mut others: Vec<&str> =
        release.kinds.keys().filter(|k| k.group == group && k.kind == kind).map(|k| k.version.as_str()).collect();
    // Stable before beta before alpha, then the newest number.
    others.sort_by_key(|v| {
        let stability = if v.contains("alpha") {
            2
        } else if v.contains("beta") {
            1
        } else {
            0
        };
        (stability, std::cmp::Reverse(v.to_string()))
    });
    let replacement = others.first().map(|v| if group.is_empty() { v.to_string() } else { format!("{group}/{v}") });
    Some(Removal { removed_in: removed_in.to_string(), replacement })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(removed_in: &str, replacement: Option<&str>) -> Option<Removal> {
        Some(Removal { removed_in: removed_in.into(), replacement: replacement.map(Into::into) })
    }

    #[test]
    fn well_known_removals_before_the_bundle() {
        assert_eq!(removal("1.30", "extensions", "v1beta1", "Ingress"), r("1.22", Some("networking.k8s.io/v1")));
        assert_eq!(removal("1.30", "apps", "v1beta2", "Deployment"), r("1.16", Some("apps/v1")));
        assert_eq!(removal("1.37", "batch", "v1beta1", "CronJob"), r("1.25", Some("batch/v1")));
        assert_eq!(removal("1.37", "policy", "v1beta1", "PodSecurityPolicy"), r("1.25", None));
        assert_eq!(
            removal("1.37", "admissionregistration.k8s.io", "v1alpha1", "InitializerConfiguration"),
            r("1.14", None)
        );
        // policy/v1beta1 PodSecurityPolicy does not exist any more either: no replacement.
        assert_eq!(removal("1.37", "extensions", "v1beta1", "PodSecurityPolicy"), r("1.16", None));
        assert_eq!(
            removal("1.37", "autoscaling", "v2beta2", "HorizontalPodAutoscaler"),
            r("1.26", Some("autoscaling/v2"))
        );
    }

    #[test]
    fn removals_within_the_bundle_find_their_replacement() {
        assert_eq!(
            removal("1.37", "flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema"),
            r("1.32", Some("flowcontrol.apiserver.k8s.io/v1"))
        );
        assert_eq!(removal("1.31", "flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema"), None);
        assert_eq!(removal("1.37", "apps", "v1", "Deployment"), None);
        assert_eq!(removal("1.37", "example.com", "v1", "Widget"), None);
    }
}
