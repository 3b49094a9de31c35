//! Manifests that Kubernetes reads (`sigs.k8s.io/yaml`, go-yaml v2) and a YAML 1.2 reader
//! does not: `driftlint check` reads them as Kubernetes does. Minimal reproductions of two
//! shapes found in istio's manifests: a flow sequence whose `]` sits at its key's column, and
//! an IPv6 address with `::` inside a flow sequence.

use super::run_in;

const SERVICE: &str = "apiVersion: v1
kind: Service
metadata:
  name: gateway
  namespace: istio-system
spec:
  selector:
    app: gateway
  ports:
  - name: http
    port: 80
  externalIPs: [1.2.3.4, 001:db8::]
";

const POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: proxy
  namespace: istio-system
spec:
  containers:
  - name: proxy
    image: proxyv2
    args: [
      \"proxy\", \"sidecar\",
    ]
";

#[test]
fn istio_flow_shapes_read_as_kubernetes_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("service.yaml"), SERVICE).unwrap();
    std::fs::write(dir.path().join("pod.yaml"), POD).unwrap();
    let r = run_in(dir.path(), &["check", "--isolated", "--format", "json"], None);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let out = super::json(&r);
    let diagnostics = out["diagnostics"].as_array().unwrap();
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
}
