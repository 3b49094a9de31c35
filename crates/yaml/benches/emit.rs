//! Speed of [`driftlint_yaml::to_yaml_string`] on typical Kubernetes objects.
//!
//! `driftlint compare` writes every candidate pair (the rendered template and the cluster CR)
//! with it, so its cost per object matters. Plain timing, no statistics framework: each object
//! is written many times and the best of a few rounds is printed in ns per object, with the
//! output size so that a change in output shows up too.
//!
//! ```text
//! cargo bench -p driftlint-yaml --bench emit         # 5 rounds of 20,000 writes per object
//! cargo bench -p driftlint-yaml --bench emit -- 1 100 # 1 round of 100 (for callgrind)
//! ```
//!
//! On a shared machine the times are noisy; `valgrind --tool=callgrind` on the short form
//! gives stable instruction counts (divide by 3 × rounds × writes + 3).

use std::hint::black_box;
use std::time::Instant;

use driftlint_yaml::to_yaml_string;
use serde_json::{Value, json};

fn deployment(i: usize) -> Value {
    let name = format!("web-{i}");
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": "team-7",
            "labels": {"app": name, "tier": "web", "app.kubernetes.io/name": "web", "app.kubernetes.io/part-of": "shop"},
            "annotations": {"deployment.kubernetes.io/revision": "3"}
        },
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name, "tier": "web"}},
                "spec": {
                    "containers": [{
                        "name": "web",
                        "image": "registry.example.com/web:1.4",
                        "args": ["--port=8080", "--log-level=info"],
                        "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                        "resources": {
                            "limits": {"cpu": "500m", "memory": "256Mi"},
                            "requests": {"cpu": "100m", "memory": "128Mi"}
                        },
                        "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10}
                    }],
                    "tolerations": [],
                    "securityContext": {}
                }
            }
        }
    })
}

fn service(i: usize) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": format!("svc-{i}"), "namespace": "team-7"},
        "spec": {
            "type": "ClusterIP",
            "clusterIP": "10.96.0.12",
            "selector": {"app": format!("svc-{i}")},
            "ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}]
        }
    })
}

fn configmap(i: usize) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": format!("settings-{i}"), "namespace": "team-7"},
        "data": {
            "log-level": "info",
            "endpoint": format!("https://api-{i}.example.com/api"),
            "feature-flags": "a,b,c",
            "enabled": "true",
            "note": "kept by ignore-unspecified-fields",
            "config.yaml": "server:\n  port: 8080\n  host: 0.0.0.0\n",
            "description": "a rather long description of this configuration map that goes well past eighty columns and folds"
        }
    })
}

fn time(label: &str, value: &Value, rounds: usize, iters: usize) {
    let size = to_yaml_string(value).len();
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let start = Instant::now();
        for _ in 0..iters {
            black_box(to_yaml_string(black_box(value)));
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / iters as f64);
    }
    println!("{label:<12} {size:>6} {best:>10.0}");
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let rounds = args.first().copied().unwrap_or(5);
    let iters = args.get(1).copied().unwrap_or(20_000);
    println!("{:<12} {:>6} {:>10}", "object", "bytes", "ns/object");
    time("deployment", &deployment(1234), rounds, iters);
    time("service", &service(1234), rounds, iters);
    time("configmap", &configmap(1234), rounds, iters);
}
