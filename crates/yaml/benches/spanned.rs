//! Speed of [`driftlint_yaml::parse_stream`] with its fast path for plain block YAML against
//! the general loader alone ([`driftlint_yaml::parse_stream_general`]), in ns per manifest.
//!
//! `driftlint check` loads every manifest with spans, so this is its per-file parsing cost.
//! Plain timing, best of a few rounds; a directory argument also times every `.yaml` file
//! under it (e.g. the 10,000 manifests of `cargo bench --bench layout -- --emit DIR 10000`).
//!
//! ```text
//! cargo bench -p driftlint-yaml --bench spanned                          # built-in manifests
//! cargo bench -p driftlint-yaml --bench spanned -- /tmp/layout/repo      # and a directory
//! ```

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use driftlint_yaml::{Limits, Stream, parse_stream, parse_stream_general, parse_stream_plain};

#[path = "../tests/common/mod.rs"]
mod common;

const DEPLOYMENT: &str = "\
# web front end
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team-7
  labels:
    app: web
    app.kubernetes.io/part-of: shop
  annotations:
    deployment.kubernetes.io/revision: \"3\"
spec:
  replicas: 2  # scaled by hand
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: registry.example.com/web:1.4
          args:
            - --port=8080
            - --log-level=info
          ports:
            - containerPort: 8080
              protocol: TCP
          resources:
            limits:
              cpu: 500m
              memory: 256Mi
            requests:
              cpu: 100m
              memory: 128Mi
          readinessProbe:
            httpGet:
              path: /healthz
              port: 8080
            periodSeconds: 10
      tolerations: []
      securityContext: {}
";

const SERVICE: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: team-7
spec:
  type: ClusterIP
  selector:
    app: web
  ports:
  - name: http
    port: 80
    protocol: TCP
    targetPort: 8080
";

const CONFIGMAP: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: team-7
data:
  log-level: info
  endpoint: https://api.example.com/api
  feature-flags: \"a,b,c\"
  retries: '3'
";

/// Best time of `rounds` rounds, each loading every text `iters` times; ns per text.
fn best_ns(texts: &[String], rounds: usize, iters: usize, load: fn(&str) -> Stream) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let start = Instant::now();
        for _ in 0..iters {
            for t in texts {
                black_box(load(black_box(t)));
            }
        }
        let ns = start.elapsed().as_nanos() as f64 / (iters * texts.len()).max(1) as f64;
        best = best.min(ns);
    }
    best
}

fn general(text: &str) -> Stream {
    parse_stream_general(text, &Limits::default())
}

fn report(name: &str, texts: &[String], rounds: usize, iters: usize) {
    let taken = texts.iter().filter(|t| parse_stream_plain(t, &Limits::default()).is_some()).count();
    let old = best_ns(texts, rounds, iters, general);
    let new = best_ns(texts, rounds, iters, parse_stream);
    println!("{name:<12} {:>6} {taken:>6} {old:>12.0} {new:>12.0} {:>7.2}x", texts.len(), old / new);
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    common::files_with(dir, &["yaml", "yml"], out);
}

fn main() {
    let dirs: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    println!("{:<12} {:>6} {:>6} {:>12} {:>12} {:>8}", "input", "files", "fast", "general ns", "new ns", "speedup");
    for (name, text) in [("deployment", DEPLOYMENT), ("service", SERVICE), ("configmap", CONFIGMAP)] {
        report(name, &[text.to_owned()], 5, 20_000);
    }
    for dir in dirs {
        let mut files = Vec::new();
        yaml_files(Path::new(&dir), &mut files);
        files.sort();
        let texts: Vec<String> = files.iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect();
        report("directory", &texts, 3, 1);
    }
}
