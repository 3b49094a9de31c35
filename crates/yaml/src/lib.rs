//! Spanned YAML with Kubernetes' scalar rules (go-yaml v2, YAML 1.1 flavour).
