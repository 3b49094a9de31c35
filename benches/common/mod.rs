//! What the benches share: timing, and the generated objects a repository holds.

#![allow(dead_code)] // each bench uses its own part

use std::fmt::Write as _;
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
