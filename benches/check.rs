//! Wall time of `driftlint check` on a 200-file repository (the goal: under 100 ms, release
//! build, warm cache).
//!
//! Generates a repository in a temp dir: 200 manifest files (web and worker Deployments,
//! Services, ConfigMaps, one object per file, a few files holding two documents), about one
//! object in five with drift, a few Secrets no template matches, checked against
//! `fixtures/bench-reference/`. It then times, after two warm-up runs:
//!
//! - `in-process`: [`driftlint::check::check`] plus the human report rendered to a string
//!   (everything the command does but process start and writing to the terminal);
//! - `binary`: the release `driftlint check DIR` itself, its output discarded.
//!
//! Plain timing, no statistics framework: min and median of the runs.
//!
//! ```text
//! cargo bench --bench check            # 200 files, 15 runs each
//! cargo bench --bench check -- 1000 5  # 1000 files, 5 runs each
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use driftlint::check::{self, Settings};
use driftlint::report::{self, Format, Options, SourceResolver};

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let files = args.first().copied().unwrap_or(200);
    let runs = args.get(1).copied().unwrap_or(15).max(1);
    let dir = tempfile::tempdir().expect("a temp dir");
    let (objects, bytes) = generate(dir.path(), files);
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench-reference");
    let settings = Settings {
        reference: Some(driftlint::reference::Location::Path(reference.clone())),
        paths: vec![dir.path().to_path_buf()],
        exclude_root: dir.path().to_path_buf(),
        ..Settings::default()
    };

    let mut findings = 0;
    let in_process = time(runs, || {
        let r = check::check(&settings).expect("the check runs");
        let sources = SourceResolver::from_sources(&r.sources);
        let opts = Options { objects: &r.objects, ..Options::default() };
        let out = report::render(Format::Human, &r.diagnostics, &sources, &opts).expect("renders");
        findings = r.diagnostics.len();
        std::hint::black_box(out);
    });
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_driftlint"));
    let binary = time(runs, || {
        let out = Command::new(&exe)
            .arg("check")
            .arg(dir.path())
            .args(["--isolated", "-r"])
            .arg(&reference)
            .stdin(Stdio::null())
            .output()
            .expect("the binary runs");
        assert_eq!(
            out.status.code(),
            Some(1),
            "the generated repository has drift: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
    println!(
        "{files} files, {objects} objects, {:.1} KB, {findings} findings, {} rayon threads, {runs} runs",
        bytes as f64 / 1024.0,
        rayon::current_num_threads()
    );
    for (name, t) in [("in-process", in_process), ("binary", binary)] {
        println!("{name:>10}: min {:7.2} ms, median {:7.2} ms", ms(t.0), ms(t.1));
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// (min, median) of `runs` timed calls of `f`, after two untimed ones (warm caches).
fn time(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
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

/// Writes `files` manifest files under `dir` (in a few subdirectories, as a repository has
/// them); returns the number of objects and bytes written.
fn generate(dir: &Path, files: usize) -> (usize, usize) {
    let (mut objects, mut bytes) = (0usize, 0);
    for f in 0..files {
        let sub = dir.join(["apps", "services", "config", "workers"][f % 4]);
        std::fs::create_dir_all(&sub).expect("a directory");
        let mut text = format!("# generated manifest {f}\n");
        // One file in ten holds a second document.
        let docs = if f % 10 == 9 { 2 } else { 1 };
        for d in 0..docs {
            if d > 0 {
                text.push_str("---\n");
            }
            object(&mut text, objects);
            objects += 1;
        }
        bytes += text.len();
        std::fs::write(sub.join(format!("object-{f}.yaml")), text).expect("a file");
    }
    (objects, bytes)
}

/// Object `i` as a repository holds it (no server-side fields): the kind cycles every ten
/// objects, and every fifth cycle drifts (about one object in five).
fn object(s: &mut String, i: usize) {
    let ns = format!("team-{}", i % 7);
    let drift = (i / 10).is_multiple_of(5);
    let head = |s: &mut String, api: &str, kind: &str, name: &str| {
        let _ = write!(s, "apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: {ns}\n");
    };
    match i % 10 {
        0..=3 => {
            let name = format!("web-{i}");
            head(s, "apps/v1", "Deployment", &name);
            let replicas = if drift { 5 } else { 2 };
            let image = if drift { "registry.example.com/web:1.5" } else { "registry.example.com/web:1.4" };
            let extra = if drift && i % 10 == 1 { "      serviceAccountName: web\n" } else { "" };
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
