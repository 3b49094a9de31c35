//! Throughput and memory of the comparison engine ([`driftlint_reference::engine`]).
//!
//! Generates 1k / 10k / 50k cluster CRs (Deployments of two kinds, Services, ConfigMaps,
//! about one in five with drift, plus a few kinds the reference does not know), correlates
//! them against `fixtures/bench-reference/` and compares them in process. Each size runs in a
//! child process of its own. Plain timing, no statistics framework.
//!
//! `cmp CPU s` is the CPU time (all threads) of the comparison, the figure to trust on a
//! machine shared with other jobs; `CRs/s` is over the comparison's wall time.
//!
//! `packed MB` is what the collected CRs hold between parsing and comparing (see
//! `engine::packed`). Memory is the peak resident set (`VmHWM`, `/proc/self/status`) of each phase, above the
//! resident set before the input was generated (reference and engine loaded). The peak is
//! reset between the phases through `/proc/self/clear_refs` (Linux), so "parse MB" covers the
//! generated text plus the parsed CRs and "cmp MB" the parsed CRs plus everything the engine
//! allocates. `peak/in` is the larger of the two over the input's size. Where the reset is
//! not available the compare peak is the process' peak so far.
//!
//! ```text
//! cargo bench --bench compare                       # 1k, 10k, 50k, parallel (the default)
//! cargo bench --bench compare -- --mode exact 10000 # kube-compare's loop verbatim
//! ```
//! `cargo bench --bench compare -- --emit 10000 > crs.yaml` writes the generated input instead,
//! to time `driftlint compare -r fixtures/bench-reference/metadata.yaml -f crs.yaml`.
//! Modes: `auto` (rayon), `sequential`, `exact` (sequential with the `lookupCR` view kept up
//! to date, as kube-compare does). The printed checksum covers every CR's template, whether it
//! differs, the scores computed and the diff text, so equal checksums across modes mean
//! identical results.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use driftlint_reference::engine::collect::{self, Packed};
use driftlint_reference::engine::{Engine, Options, Parallelism, Retain, Status, TriedResult};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let mut mode = "auto".to_owned();
    let mut sizes = Vec::new();
    let mut child = false;
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--mode" => {
                mode = it.next().unwrap_or_default();
                if !["auto", "sequential", "exact"].contains(&mode.as_str()) {
                    eprintln!("error: unknown mode {mode:?} (auto, sequential or exact)");
                    std::process::exit(2);
                }
            }
            "--child" => child = true,
            "--emit" => {
                // The generated input alone, for timing the binary end to end.
                let n = it.next().and_then(|n| n.parse().ok()).unwrap_or(10_000);
                print!("{}", generate(n));
                return;
            }
            n => match n.parse::<usize>() {
                Ok(n) => sizes.push(n),
                Err(_) => eprintln!("ignoring argument {n:?}"),
            },
        }
    }
    if sizes.is_empty() {
        sizes = vec![1_000, 10_000, 50_000];
    }
    if child {
        for n in sizes {
            if let Err(e) = run_one(n, &mode) {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
        return;
    }
    println!("mode {mode}, {} rayon threads", rayon::current_num_threads());
    println!(
        "{:>7} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9} {:>10} {:>10} {:>9} {:>7}  checksum",
        "CRs",
        "compared",
        "input MB",
        "packed MB",
        "parse s",
        "compare s",
        "cmp CPU s",
        "CRs/s",
        "parse MB",
        "cmp MB",
        "peak/in"
    );
    let exe = std::env::current_exe().unwrap_or_else(|_| "compare".into());
    let mut failed = Vec::new();
    for n in sizes {
        let status = Command::new(&exe).args(["--child", "--mode", &mode, &n.to_string()]).status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => {
                eprintln!("size {n} failed: {s}");
                failed.push(n);
            }
            Err(e) => {
                eprintln!("size {n} failed: cannot run {}: {e}", exe.display());
                failed.push(n);
            }
        }
    }
    // A failed size is a failed benchmark run: scripts and CI must see it in the exit code.
    if !failed.is_empty() {
        eprintln!("error: {} of the sizes failed: {failed:?}", failed.len());
        std::process::exit(1);
    }
}

fn run_one(n: usize, mode: &str) -> Result<(), String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench-reference/metadata.yaml");
    let loaded = driftlint_reference::load_reference(&dir).map_err(|e| e.to_string())?;
    let compiled = driftlint_reference::compile::compile_owned(loaded).map_err(|e| e.to_string())?;
    let parallelism = match mode {
        "sequential" => Parallelism::Sequential,
        "exact" => Parallelism::Exact,
        _ => Parallelism::Auto,
    };
    let options = Options { parallelism, retain: Retain::DiffOnly, ..Options::default() };
    let engine = Engine::new(&compiled, Vec::new(), &[], options).map_err(|e| e.to_string())?;
    let base = reset_peak();

    let text = generate(n);
    let input_bytes = text.len();
    let t = Instant::now();
    let packed = parse(&text)?;
    drop(text);
    let packed_bytes: usize = packed.crs.iter().map(|c| c.packed_len() + c.id.len() + c.source.len()).sum();
    let parse_s = t.elapsed().as_secs_f64();
    let parse_peak = vm_hwm_kb().saturating_sub(base);

    reset_peak();
    let cpu = cpu_s();
    let t = Instant::now();
    let comparison = engine.compare_packed(packed.crs, packed.index);
    let compare_s = t.elapsed().as_secs_f64();
    let compare_cpu = cpu_s() - cpu;
    if let Some(e) = comparison.fatal_error() {
        return Err(e);
    }
    let compare_peak = vm_hwm_kb().saturating_sub(base);
    let mut compared = 0usize;
    let mut hash = Fnv::default();
    for r in &comparison.results {
        if let Status::Compared(c) = &r.status {
            compared += 1;
            hash.write(&c.template.to_le_bytes());
            hash.write(&[u8::from(c.outcome.differs)]);
            // Scores are computed only where several candidates compete.
            for t in &r.tried {
                if let TriedResult::Score(Some(score)) = t.result {
                    hash.write(&t.template.to_le_bytes());
                    hash.write(&score.to_le_bytes());
                }
            }
            // The first three lines (command, `---`/`+++` headers) carry temp names and times.
            for line in c.outcome.diff_output.lines().skip(3) {
                hash.write(line.as_bytes());
            }
        }
    }
    let mb = |kb: u64| kb as f64 / 1024.0;
    println!(
        "{n:>7} {compared:>9} {:>9.1} {:>9.1} {parse_s:>10.3} {compare_s:>9.3} {compare_cpu:>9.2} {:>10.0} {:>10.1} {:>9.1} {:>7.2}  {:016x}",
        input_bytes as f64 / 1_048_576.0,
        packed_bytes as f64 / 1_048_576.0,
        n as f64 / compare_s,
        mb(parse_peak),
        mb(compare_peak),
        (parse_peak.max(compare_peak) * 1024) as f64 / input_bytes as f64,
        hash.0,
    );
    Ok(())
}

/// A `/proc/self/status` field in KiB (0 where `/proc` is unavailable).
fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// CPU time (user + system) of this process so far, in seconds, from `/proc/self/stat`
/// (clock ticks, assumed 100 per second): less sensitive to other jobs than wall time.
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses and may contain spaces.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest.split_whitespace().map(|x| x.parse().unwrap_or(0)).collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    (f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0)) as f64 / 100.0
}

/// Peak resident memory (`VmHWM`) in KiB.
fn vm_hwm_kb() -> u64 {
    status_kb("VmHWM:")
}

/// Resets the peak to the current resident size (`clear_refs` 5) and returns that size
/// (`VmRSS`), the base the next phase's peak is measured from.
fn reset_peak() -> u64 {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    status_kb("VmRSS:")
}

/// The CRs as a cluster dump would hold them: one multi-document YAML stream with the
/// server-side fields (uid, resourceVersion, status, …) that the default omissions remove.
fn generate(n: usize) -> String {
    let mut s = String::with_capacity(n * 1200);
    for i in 0..n {
        let ns = format!("team-{}", i % 37);
        let drift = i % 5 == 0;
        let common = |s: &mut String, api: &str, kind: &str, name: &str| {
            let _ = write!(
                s,
                "---\napiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: {ns}\n  uid: 6f1c{i:08x}-7a2b-4c3d-9e8f-0a1b2c3d4e5f\n  resourceVersion: \"{}\"\n  creationTimestamp: \"2024-05-01T10:00:00Z\"\n",
                100_000 + i
            );
        };
        match i % 10 {
            // Web Deployments: two candidates, the worker template declines with doNotMatch.
            0..=3 => {
                let name = format!("web-{i}");
                common(&mut s, "apps/v1", "Deployment", &name);
                let replicas = if drift { 5 } else { 2 };
                let image = if i % 20 == 0 { "registry.example.com/web:1.5" } else { "registry.example.com/web:1.4" };
                let _ = write!(
                    s,
                    "  labels:\n    app: {name}\n    tier: web\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n        tier: web\n    spec:\n      containers:\n      - name: web\n        image: {image}\n        ports:\n        - containerPort: 8080\n          protocol: TCP\n        resources:\n          limits:\n            cpu: 500m\n            memory: 256Mi\n          requests:\n            cpu: 100m\n            memory: 128Mi\n        readinessProbe:\n          httpGet:\n            path: /healthz\n            port: 8080\nstatus:\n  availableReplicas: {replicas}\n  observedGeneration: 3\n  readyReplicas: {replicas}\n  replicas: {replicas}\n"
                );
            }
            // Worker Deployments: both templates render; the worker one wins.
            4 => {
                let name = format!("worker-{i}");
                common(&mut s, "apps/v1", "Deployment", &name);
                let memory = if drift { "1Gi" } else { "512Mi" };
                let _ = write!(
                    s,
                    "  labels:\n    app: {name}\n    tier: worker\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n        tier: worker\n    spec:\n      containers:\n      - name: worker\n        image: registry.example.com/worker:2.0\n        args:\n        - --queue=default\n        resources:\n          limits:\n            memory: {memory}\nstatus:\n  replicas: 1\n"
                );
            }
            5..=7 => {
                let name = format!("svc-{i}");
                common(&mut s, "v1", "Service", &name);
                let port = if drift { 8081 } else { 8080 };
                let _ = write!(
                    s,
                    "spec:\n  type: ClusterIP\n  clusterIP: 10.96.{}.{}\n  selector:\n    app: {name}\n  ports:\n  - name: http\n    port: 80\n    protocol: TCP\n    targetPort: {port}\nstatus:\n  loadBalancer: {{}}\n",
                    (i / 256) % 256,
                    i % 256
                );
            }
            8 => {
                common(&mut s, "v1", "ConfigMap", &format!("settings-{i}"));
                let level = if drift { "debug" } else { "info" };
                let _ = write!(
                    s,
                    "data:\n  log-level: {level}\n  endpoint: https://api-{i}.example.com/api\n  feature-flags: \"a,b,c\"\n  extra-{i}: kept by ignore-unspecified-fields\n"
                );
            }
            // Kinds the reference does not know: unmatched.
            _ => {
                common(&mut s, "v1", "Secret", &format!("token-{i}"));
                s.push_str("type: Opaque\ndata:\n  token: c2VjcmV0\n");
            }
        }
    }
    s
}

/// Collects the stream as `driftlint compare` does for a file (packed CRs, reference indexes).
fn parse(text: &str) -> Result<Packed, String> {
    collect::collect_text(text, "bench").map_err(|e| e.to_string())
}

/// FNV-1a, enough to tell two runs' results apart.
struct Fnv(u64);
impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}
impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
