//! driftlint: lint Kubernetes manifests against a kube-compare reference configuration.
