//! What the benches share: timing, and the generated objects a repository holds.

#![allow(dead_code)] // each bench uses its own part

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// (min, median) of `runs` timed calls of `f`, after two untimed ones (warm caches).
pub fn time(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    f();
    f();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    (times[0], times[times.len() / 2])
}

/// Whether object `i` drifts: every fifth cycle of ten.
pub fn is_drifted(i: usize) -> bool {
    (i / 10).is_multiple_of(5)
}

/// Object `i` as a repository holds it (no server-side fields), in namespace `ns`: the kind
/// cycles every ten objects, and every fifth cycle drifts (about one object in five). With
/// `service_account`, a drifting second Deployment of a cycle also sets one (a field the
/// reference does not have).
pub fn object(s: &mut String, i: usize, ns: &str, service_account: bool) {
    let drift = is_drifted(i);
    let head = |s: &mut String, api: &str, kind: &str, name: &str| {
        let _ = write!(s, "apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: {ns}\n");
    };
    match i % 10 {
        0..=3 => {
            let name = format!("web-{i}");
            head(s, "apps/v1", "Deployment", &name);
            let replicas = if drift { 5 } else { 2 };
            let image = if drift { "registry.example.com/web:1.5" } else { "registry.example.com/web:1.4" };
            let extra = if service_account && drift && i % 10 == 1 { "      serviceAccountName: web\n" } else { "" };
            let _ = write!(
                s,
                "  labels:\n    app: {name}\n    tier: web\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n        tier: web\n    spec:\n{extra}      containers:\n        - name: web\n          image: {image}\n          ports:\n            - containerPort: 8080\n              protocol: TCP\n          resources:\n            limits:\n              cpu: 500m\n              memory: 256Mi\n            requests:\n              cpu: 100m\n              memory: 128Mi\n          readinessProbe:\n            httpGet:\n              path: /healthz\n              port: 8080\n"
            );
        }
        4 => {
            let name = format!("worker-{i}");
            head(s, "apps/v1", "Deployment", &name);
            let memory = if drift { "1Gi" } else { "512Mi" };
            let _ = write!(
                s,
                "  labels:\n    app: {name}\n    tier: worker\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n        tier: worker\n    spec:\n      containers:\n        - name: worker\n          image: registry.example.com/worker:2.0\n          args:\n            - --queue=default\n          resources:\n            limits:\n              memory: {memory}\n"
            );
        }
        5..=7 => {
            let name = format!("svc-{i}");
            head(s, "v1", "Service", &name);
            let port = if drift { 8081 } else { 8080 };
            let _ = write!(
                s,
                "spec:\n  type: ClusterIP\n  selector:\n    app: {name}\n  ports:\n    - name: http\n      port: 80\n      protocol: TCP\n      targetPort: {port}\n"
            );
        }
        8 => {
            head(s, "v1", "ConfigMap", &format!("settings-{i}"));
            let level = if drift { "debug" } else { "info" };
            let _ = write!(
                s,
                "data:\n  log-level: {level}\n  endpoint: https://api-{i}.example.com/api\n  feature-flags: \"a,b,c\"\n"
            );
        }
        // Kinds the reference does not know: unmatched.
        _ => {
            head(s, "v1", "Secret", &format!("token-{i}"));
            s.push_str("type: Opaque\ndata:\n  token: c2VjcmV0\n");
        }
    }
}

/// The telco reference's templates (not the singleton), sorted by path.
pub fn telco_templates() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("the fixture").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "yaml") && !p.ends_with("metadata.yaml") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench-reference-telco"), &mut paths);
    paths.sort();
    paths
        .iter()
        .filter(|p| !p.ends_with("infrastructure.yaml"))
        .map(|p| std::fs::read_to_string(p).expect("a template"))
        .collect()
}

/// An object a telco template matches: its text with the actions filled in (lines holding
/// only an action dropped, `if A else B` as A, the name and namespace given, any other value
/// a plain string), drifted when `drift` (an extra label).
pub fn telco_object(template: &str, i: usize, drift: bool) -> String {
    let mut out = String::new();
    // The label joins the template's own labels when it has some (no duplicate key).
    let mut top = String::new();
    let has_labels = {
        let mut inside = false;
        template.lines().any(|l| {
            if !l.starts_with(' ') {
                inside = l == "metadata:";
            }
            inside && l == "  labels:"
        })
    };
    for line in template.lines() {
        if line.trim_start().starts_with("{{-") {
            continue;
        }
        let mut line = line.to_owned();
        while let Some(start) = line.find("{{") {
            let Some(len) = line[start..].find("}}") else { break };
            let action = line[start + 2..start + len].trim().to_owned();
            let (end, value) = if action.starts_with("if ") {
                // `{{ if … }}A{{ else }}B{{ end }}`: A.
                let rest = &line[start + len + 2..];
                let a_end = rest.find("{{").unwrap_or(rest.len());
                let tail_end = rest.find("{{ end }}").map_or(rest.len(), |e| e + "{{ end }}".len());
                (start + len + 2 + tail_end, rest[..a_end].to_owned())
            } else {
                let value = match action.as_str() {
                    ".metadata.name" => format!("obj-{i}"),
                    ".metadata.namespace" => format!("ns-{}", i % 7),
                    _ => format!("value-{}", i % 3),
                };
                (start + len + 2, value)
            };
            line.replace_range(start..end, &value);
        }
        // A capture group `(?<name>.*)` (an inline `capturegroups` field): what a cluster
        // holds there, different in every object.
        if let Some(start) = line.find("(?<")
            && let Some(len) = line[start..].find(">.*)")
        {
            let value = format!("{}-{:08x}", &line[start + 3..start + len], i.wrapping_mul(0x9e37_79b9));
            line.replace_range(start..start + len + ">.*)".len(), &value);
        }
        out.push_str(&line);
        out.push('\n');
        if !line.starts_with(' ') {
            top = line.clone();
        }
        if drift && line == "metadata:" && !has_labels {
            out.push_str("  labels:\n    drifted: \"true\"\n");
        } else if drift && top == "metadata:" && line == "  labels:" {
            out.push_str("    drifted: \"true\"\n");
        }
    }
    out
}

/// The singleton every lookup reads.
pub const INFRASTRUCTURE: &str = "apiVersion: config.openshift.io/v1\nkind: Infrastructure\nmetadata:\n  name: cluster\nspec:\n  platformSpec:\n    type: BareMetal\nstatus:\n  platform: BareMetal\n";

/// A copy of the directory tree `src` at `dst`.
pub fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).expect("a directory");
    for entry in std::fs::read_dir(src).expect("the fixture").flatten() {
        let to = dst.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).expect("a template");
        }
    }
}
