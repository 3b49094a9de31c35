//! The binary on a repository-shaped layout: thousands of small files.
//!
//! Generates, in a temp dir, N manifest files in nested directories (about 50 files a
//! directory) and a reference. By default the reference is
//! `fixtures/bench-reference-telco/`, shaped like the telco-core reference kube-compare users
//! run: 45 templates (operator namespaces, groups and subscriptions, networking, performance,
//! scheduling, storage), a function file, and a cluster-scoped singleton
//! (`Infrastructure/cluster`) that two templates read with `lookupCR`, and telco-core's
//! monitoring ConfigMap compared with the `capturegroups` inline diff; the files hold one
//! object each, made from the templates in turn (a fifth drifted), the singleton once in the
//! middle. With `--teams` it is the team layout instead (`clusters/cK/teams/team-T/KIND/…`,
//! one file in ten holding two objects, and a reference of 34 templates: the four bench
//! templates of `fixtures/bench-reference/` once per team namespace, plus two generic ones,
//! a fifth of the objects drifted and a few Secrets no template knows). After the file
//! sizes, with the telco reference, the same objects as ONE stream on standard input
//! (`--stream N`, 10,000 by default; `--stream 0` skips it), against `cat` of the stream.
//!
//! The telco objects come in two layouts (`--layout round-robin|unique`, both by default): as
//! generated (round robin: most objects match a template), and with each copy's
//! `metadata.name` made unique (`-cI` appended), so that a template that fixes the name
//! matches no copy — a repository holding more than its reference covers, where most findings
//! are `unmatched-resource`. After the sizes, each layout's growth per file between the two
//! largest sizes (10,000 to 50,000 by default): time and peak memory a file, and how many
//! times the time grew against the input.
//!
//! With `--fixable N` (the fixture's objects only; off by default, so the layouts are otherwise
//! unchanged), one object in N — object `i` with `i % N == N - 1` — also has one value that
//! its template fixes drifted (no parameter, no condition, no inline diff function): a boolean
//! flipped, a number plus one, a string with `-drifted`. That is a `value-drift` finding with a
//! safe fix, so `check --fix` has files to write; `scripts/bench-fix.sh` measures it on
//! `--emit DIR 10000 --fixable 10`.
//!
//! With `--real DIR` the reference and objects are openshift-kni/telco-reference's instead of
//! the fixture's: DIR is a checkout (or its `telco-core/configuration`); the reference is its
//! `reference-crs-kube-compare`, the objects the documents of `reference-crs` (84 CRs, sorted
//! by path) in turn, one a file.
//!
//! Then, in ONE run so that ratios hold on a noisy machine, it runs
//! as child processes, `runs` times each, interleaved:
//!
//! - `read`: `find DIR -type f -exec cat {} +` into /dev/null (the floor: reading the files);
//! - `compare`: `driftlint compare -r REF -f DIR -R -o json` (release binary);
//! - `check`: `driftlint check DIR --isolated -r REF`;
//! - with `--jobs1`, both again with `--jobs 1`.
//!
//! Each run goes through `/usr/bin/time -f` (GNU time; `apt-get install time`), which reads
//! the child's `getrusage` on exit: user and system seconds (10 ms steps) and peak resident
//! set (max over the child and its waited-for children); the wall time is the bench's own
//! clock around it (microseconds). Printed: the minimum of each time over the runs and
//! the maximum of the peaks, the cores kept busy (CPU / wall), the ratios against `read`, and
//! whether each of the goals in docs/performance.md is met. A run that fails (exit status
//! other than 0 or 1, the drift status) makes the bench exit non-zero.
//!
//! ```text
//! cargo build --release && cargo bench --bench layout              # 1k, 10k, 50k; 3 runs
//! cargo bench --bench layout -- 10000 --runs 5 --jobs1             # one size
//! cargo bench --bench layout -- --emit /tmp/layout 10000           # write both layouts, keep them
//! cargo bench --bench layout -- --emit /tmp/fixable 10000 --fixable 10 --layout round-robin
//! cargo bench --bench layout -- --teams 10000                       # the team layout
//! cargo bench --bench layout -- --real ~/telco-reference 10000 50000 # the real reference
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Team namespaces; the reference has one set of templates per team.
const TEAMS: usize = 8;

mod common;

use common::{INFRASTRUCTURE, copy_tree, telco_object, telco_templates};

/// Which layouts of the telco objects a run measures.
#[derive(Clone, Copy, PartialEq)]
enum Names {
    /// The objects in turn, names as they are: most match a template.
    RoundRobin,
    /// The same objects, each copy's `metadata.name` made unique (`-cI`): a template that
    /// fixes the name matches no copy, as in a repository holding more than its reference.
    Unique,
}

impl Names {
    fn label(self) -> &'static str {
        match self {
            Names::RoundRobin => "round-robin",
            Names::Unique => "unique names",
        }
    }
}

fn main() {
    let mut sizes = Vec::new();
    let mut runs = 3usize;
    let mut jobs1 = false;
    let mut teams = false;
    let mut stream = 10_000usize;
    let mut layouts = vec![Names::RoundRobin, Names::Unique];
    let mut real: Option<PathBuf> = None;
    let mut emit: Option<(PathBuf, usize)> = None;
    let mut fixable: Option<usize> = None;
    let mut it = std::env::args().skip(1).filter(|a| a != "--bench");
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = it.next().and_then(|n| n.parse().ok()).unwrap_or(3).max(1),
            "--jobs1" => jobs1 = true,
            "--teams" => teams = true,
            "--stream" => stream = it.next().and_then(|n| n.parse().ok()).unwrap_or(10_000),
            "--layout" => {
                layouts = match it.next().as_deref() {
                    Some("round-robin") => vec![Names::RoundRobin],
                    Some("unique") => vec![Names::Unique],
                    _ => vec![Names::RoundRobin, Names::Unique],
                }
            }
            "--real" => real = it.next().map(PathBuf::from),
            // One telco object in N with a value the reference fixes drifted (a safe fix):
            // what `scripts/bench-fix.sh` measures `--fix` on.
            "--fixable" => fixable = it.next().and_then(|n| n.parse().ok()).filter(|&n: &usize| n > 0),
            "--emit" => {
                // The layout alone, kept in DIR (DIR/reference, DIR/repo), for profiling.
                let dir = PathBuf::from(it.next().unwrap_or_else(|| "layout".into()));
                let n = it.next().and_then(|n| n.parse().ok()).unwrap_or(10_000);
                emit = Some((dir, n));
            }
            n => match n.parse::<usize>() {
                Ok(n) => sizes.push(n),
                Err(_) => eprintln!("ignoring argument {n:?}"),
            },
        }
    }
    let objects = match &real {
        Some(dir) => Objects::real(dir),
        None => Objects::fixture(fixable),
    };
    if let Some((dir, n)) = emit {
        if teams {
            write_reference(&dir.join("reference"));
            let (objects, bytes) = generate(&dir.join("repo"), n);
            println!("{} : {n} files, {objects} objects, {bytes} bytes", dir.display());
            return;
        }
        objects.write_reference(&dir.join("reference"));
        for names in layouts {
            // The round-robin layout keeps the names `repo` and `stream.yaml`.
            let suffix = if names == Names::Unique { "-unique" } else { "" };
            let bytes = objects.generate(&dir.join(format!("repo{suffix}")), n, names);
            std::fs::write(dir.join(format!("stream{suffix}.yaml")), objects.stream(n, names)).expect("the stream");
            println!("{}/repo{suffix} ({}): {n} files, {bytes} bytes", dir.display(), names.label());
        }
        return;
    }
    if sizes.is_empty() {
        sizes = vec![1_000, 10_000, 50_000];
    }
    if teams {
        layouts = vec![Names::RoundRobin];
    }
    // (layout, size, on standard input)
    let mut cases_of: Vec<(Names, usize, bool)> = Vec::new();
    for &names in &layouts {
        cases_of.extend(sizes.iter().map(|&n| (names, n, false)));
        if !teams && stream > 0 {
            cases_of.push((names, stream, true));
        }
    }
    let exe = release_binary();
    if !Path::new("/usr/bin/time").exists() {
        eprintln!("error: /usr/bin/time (GNU time) is needed: apt-get install time");
        std::process::exit(2);
    }
    println!("binary {}, {runs} runs each (minimum times, maximum peaks), load average {}", exe.display(), loadavg());
    if let Some(dir) = &real {
        println!("reference and objects of {}", dir.display());
    }
    let mut failed = false;
    // The files' figures by layout and size: (size, read, compare, check).
    let mut by_layout: Vec<(Names, Vec<Sized3>)> = Vec::new();
    for (names, n, on_stdin) in cases_of {
        let dir = tempfile::tempdir().expect("a temp dir");
        let reference = dir.path().join("reference");
        let repo = dir.path().join("repo");
        let stream_file = dir.path().join("stream.yaml");
        let (objects, bytes) = if teams {
            write_reference(&reference);
            generate(&repo, n)
        } else if on_stdin {
            objects.write_reference(&reference);
            let text = objects.stream(n, names);
            std::fs::write(&stream_file, &text).expect("the stream");
            (n, text.len())
        } else {
            objects.write_reference(&reference);
            (n, objects.generate(&repo, n, names))
        };
        let meta = reference.join("metadata.yaml");
        let input = if on_stdin { Path::new("-") } else { repo.as_path() };
        let read = if on_stdin {
            format!("cat '{}' > /dev/null", stream_file.display())
        } else {
            format!("find '{}' -type f -exec cat {{}} + > /dev/null", repo.display())
        };
        let mut cases: Vec<(&str, Vec<String>)> = vec![
            ("read", vec!["sh".into(), "-c".into(), read]),
            ("compare", compare_args(&exe, &meta, input, None)),
            ("check", check_args(&exe, &reference, input, None)),
        ];
        if jobs1 {
            cases.push(("compare -j1", compare_args(&exe, &meta, input, Some(1))));
            cases.push(("check -j1", check_args(&exe, &reference, input, Some(1))));
        }
        let stdin = on_stdin.then_some(stream_file.as_path());
        let mut best: Vec<Option<Usage>> = vec![None; cases.len()];
        for _ in 0..runs {
            for (i, (name, args)) in cases.iter().enumerate() {
                match measure(args, if i == 0 { None } else { stdin }) {
                    Ok(u) => best[i] = Some(best[i].map_or(u, |b| b.min(u))),
                    Err(e) => {
                        eprintln!("error: {n} files, {name}: {e}");
                        failed = true;
                    }
                }
            }
        }
        let what = if on_stdin { "one stream on stdin of" } else { "files," };
        let layout = if teams { String::new() } else { format!(" ({})", names.label()) };
        println!("\n{n} {what} {objects} objects{layout}, {:.1} MB, load average {}", bytes as f64 / 1e6, loadavg());
        println!(
            "{:>12} {:>8} {:>8} {:>8} {:>8} {:>6} {:>9} {:>8} {:>8}",
            "", "wall s", "user s", "sys s", "CPU s", "cores", "peak MB", "/read", "peak/in"
        );
        let read_wall = best[0].map(|u| u.wall);
        for ((name, _), u) in cases.iter().zip(&best) {
            let Some(u) = u else {
                println!("{name:>12} failed");
                continue;
            };
            let ratio = read_wall.map_or(f64::NAN, |r| u.wall / r.max(1e-3));
            println!(
                "{name:>12} {:8.3} {:8.3} {:8.3} {:8.3} {:6.2} {:9.1} {:7.2}x {:7.2}x",
                u.wall,
                u.user,
                u.sys,
                u.user + u.sys,
                (u.user + u.sys) / u.wall.max(1e-3),
                u.rss_kb as f64 / 1024.0,
                ratio,
                u.rss_kb as f64 * 1024.0 / bytes as f64
            );
        }
        if let (Some(r), Some(c), Some(k)) = (best[0], best[1], best[2]) {
            if !on_stdin {
                match by_layout.iter_mut().find(|(l, _)| *l == names) {
                    Some((_, sizes)) => sizes.push((n, [r, c, k])),
                    None => by_layout.push((names, vec![(n, [r, c, k])])),
                }
            }
            let verdict = |met: bool| if met { "met" } else { "NOT met" };
            let mb = |u: &Usage| u.rss_kb as f64 / 1024.0;
            // The goals (the telco reference): peak <= 3x input + 30 MB; files:
            // compare <= 1.3x read, check <= 1.8x read; the stream: check <= 1.5x compare.
            let goal_mb = (3 * bytes) as f64 / 1048576.0 + 30.0;
            let times = if on_stdin {
                format!("check <= 1.5x compare: {:.2}x {}", k.wall / c.wall, verdict(k.wall <= 1.5 * c.wall))
            } else {
                format!(
                    "compare <= 1.3x read: {:.2}x {}; check <= 1.8x read: {:.2}x {}",
                    c.wall / r.wall,
                    verdict(c.wall <= 1.3 * r.wall),
                    k.wall / r.wall,
                    verdict(k.wall <= 1.8 * r.wall)
                )
            };
            println!(
                "goals: {times}; peak <= {goal_mb:.1} MB (3x input + 30 MB): compare {:.1} {}, check {:.1} {}; \
                 peak per {}: compare {:.2} KiB, check {:.2} KiB",
                mb(&c),
                verdict(mb(&c) <= goal_mb),
                mb(&k),
                verdict(mb(&k) <= goal_mb),
                if on_stdin { "object" } else { "file" },
                c.rss_kb as f64 / n as f64,
                k.rss_kb as f64 / n as f64,
            );
        }
    }
    for (names, sizes) in &by_layout {
        print_growth(*names, sizes);
    }
    if failed {
        std::process::exit(1);
    }
}

/// A size and its read, compare and check figures.
type Sized3 = (usize, [Usage; 3]);

/// Growth per file between the two largest sizes measured of a layout (10,000 to 50,000 by
/// default): a linear run adds the same time and memory for each file whatever the size.
fn print_growth(names: Names, sizes: &[Sized3]) {
    let mut sizes = sizes.to_vec();
    sizes.sort_by_key(|(n, _)| *n);
    let [.., (small, a), (large, b)] = sizes.as_slice() else { return };
    let files = (large - small) as f64;
    println!(
        "\ngrowth per file from {small} to {large} files ({}; the input {:.1}x):",
        names.label(),
        *large as f64 / *small as f64
    );
    for (i, name) in ["read", "compare", "check"].iter().enumerate() {
        println!(
            "{name:>12} {:8.2} us a file ({:.2}x the time), {:6.2} KiB a file",
            (b[i].wall - a[i].wall) * 1e6 / files,
            b[i].wall / a[i].wall.max(1e-3),
            (b[i].rss_kb as f64 - a[i].rss_kb as f64) / files,
        );
    }
}

fn compare_args(exe: &Path, meta: &Path, repo: &Path, jobs: Option<usize>) -> Vec<String> {
    let mut v: Vec<String> = [exe, Path::new("compare"), Path::new("-r"), meta, Path::new("-f"), repo]
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    v.extend(["-R".into(), "-o".into(), "json".into()]);
    if let Some(j) = jobs {
        v.extend(["--jobs".into(), j.to_string()]);
    }
    v
}

fn check_args(exe: &Path, reference: &Path, repo: &Path, jobs: Option<usize>) -> Vec<String> {
    let mut v = vec![exe.display().to_string(), "check".into(), repo.display().to_string(), "--isolated".into()];
    v.extend(["-r".into(), reference.display().to_string()]);
    if let Some(j) = jobs {
        v.extend(["--jobs".into(), j.to_string()]);
    }
    v
}

/// The release binary beside this bench's own target dir (`cargo bench` builds with the
/// bench profile, which is release-like, but the figures are for `cargo build --release`).
fn release_binary() -> PathBuf {
    let built = PathBuf::from(env!("CARGO_BIN_EXE_driftlint"));
    let release = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/driftlint");
    if release.exists() { release } else { built }
}

#[derive(Clone, Copy)]
struct Usage {
    wall: f64,
    user: f64,
    sys: f64,
    rss_kb: u64,
}

impl Usage {
    /// The best times over two runs, and the worst peak memory (a bound must hold every time).
    fn min(self, o: Usage) -> Usage {
        Usage {
            wall: self.wall.min(o.wall),
            user: self.user.min(o.user),
            sys: self.sys.min(o.sys),
            rss_kb: self.rss_kb.max(o.rss_kb),
        }
    }
}

/// Runs `args` under GNU time; its output (stdout) is discarded, its figures read back.
fn measure(args: &[String], stdin: Option<&Path>) -> Result<Usage, String> {
    let input = match stdin {
        Some(p) => Stdio::from(std::fs::File::open(p).map_err(|e| e.to_string())?),
        None => Stdio::null(),
    };
    let out = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    // Wall time from here (microseconds; GNU time's `%e` has 10 ms steps, as coarse as the
    // 10k read itself): it includes starting `time`, the same for every command.
    let started = std::time::Instant::now();
    let status = Command::new("/usr/bin/time")
        .args(["-f", "%e %U %S %M %x", "-o"])
        .arg(out.path())
        .args(args)
        .stdin(input)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run /usr/bin/time: {e}"))?;
    let wall = started.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(out.path()).map_err(|e| e.to_string())?;
    let last = text.lines().last().unwrap_or_default();
    let f: Vec<&str> = last.split_whitespace().collect();
    let code: i32 = f.get(4).and_then(|c| c.parse().ok()).unwrap_or(-1);
    if f.len() != 5 || !(code == 0 || code == 1) {
        return Err(format!("exit {code} ({last:?}): {}", String::from_utf8_lossy(&status.stderr).trim()));
    }
    let num = |i: usize| f[i].parse::<f64>().map_err(|e| format!("{last:?}: {e}"));
    num(0)?;
    Ok(Usage { wall, user: num(1)?, sys: num(2)?, rss_kb: num(3)? as u64 })
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// The bench reference's templates once per team (the namespace fixed, so that correlation
/// has several dozen templates to choose among), plus the generic ones for other namespaces.
fn write_reference(dir: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench-reference");
    std::fs::create_dir_all(dir).expect("a directory");
    let kinds = ["deployment-web", "deployment-worker", "service", "configmap"];
    let mut meta = String::from("apiVersion: v2\nparts:\n");
    for t in 0..TEAMS {
        let _ = write!(meta, "  - name: team-{t}\n    components:\n");
        for k in kinds {
            let text = std::fs::read_to_string(src.join(format!("{k}.yaml"))).expect("a bench template");
            let fixed = text.replace("namespace: {{ .metadata.namespace }}", &format!("namespace: team-{t}"));
            std::fs::write(dir.join(format!("{k}-team-{t}.yaml")), fixed).expect("a template");
        }
        let _ = write!(
            meta,
            "      - name: workloads\n        anyOf:\n          - path: deployment-web-team-{t}.yaml\n          - path: deployment-worker-team-{t}.yaml\n      - name: networking\n        anyOf:\n          - path: service-team-{t}.yaml\n      - name: settings\n        anyOf:\n          - path: configmap-team-{t}.yaml\n            config:\n              ignore-unspecified-fields: true\n              perField:\n                - pathToKey: data.endpoint\n                  inlineDiffFunc: regex\n"
        );
    }
    for k in ["service", "configmap"] {
        std::fs::copy(src.join(format!("{k}.yaml")), dir.join(format!("{k}.yaml"))).expect("a template");
    }
    meta.push_str("  - name: generic\n    components:\n      - name: generic\n        anyOf:\n          - path: service.yaml\n          - path: configmap.yaml\n");
    std::fs::write(dir.join("metadata.yaml"), meta).expect("metadata.yaml");
}

/// Writes `files` manifest files under `dir`, about 50 a directory, three levels deep;
/// returns the number of objects and bytes written.
fn generate(dir: &Path, files: usize) -> (usize, usize) {
    let (mut objects, mut bytes) = (0usize, 0);
    let kinds = ["deployments", "services", "config", "workers"];
    for f in 0..files {
        let leaf = f / 50;
        let sub = dir
            .join(format!("clusters/c{}", leaf % 5))
            .join(format!("team-{}", (leaf / 5) % TEAMS))
            .join(format!("{}-{}", kinds[leaf % 4], leaf / (5 * TEAMS)));
        std::fs::create_dir_all(&sub).expect("a directory");
        let mut text = format!("# generated manifest {f}\n");
        let docs = if f % 10 == 9 { 2 } else { 1 };
        for d in 0..docs {
            if d > 0 {
                text.push_str("---\n");
            }
            common::object(&mut text, objects, &format!("team-{}", objects % (TEAMS + 1)), false);
            objects += 1;
        }
        bytes += text.len();
        std::fs::write(sub.join(format!("object-{f}.yaml")), text).expect("a file");
    }
    (objects, bytes)
}

/// Object `i` of `n` of the telco layout: the singleton in the middle, else the templates in
/// turn, a fifth drifted. With `fixable` N, object `i` with `i % N == N - 1` also has one
/// value the reference fixes drifted ([`drift_fixed_value`]).
fn telco_nth(templates: &[String], fixable: Option<usize>, i: usize, n: usize) -> String {
    if i == n / 2 {
        return INFRASTRUCTURE.to_owned();
    }
    let template = &templates[i % templates.len()];
    let text = telco_object(template, i, i.is_multiple_of(5));
    match fixable {
        Some(every) if i % every == every - 1 => drift_fixed_value(template, &text, i / every),
        _ => text,
    }
}

/// `object` (made from `template` by [`telco_object`]) with one value that the template fixes
/// changed: the value of a `key: value` line or a sequence item (`- value`, `- key: value`) of
/// the template with no action, no quotes, no flow collection and no capture group, not in a
/// block scalar or a `range`, and not the object's `metadata.name` or `metadata.namespace`
/// (they choose the template). The `pick`-th such line (modulo their number) is changed: a
/// boolean flipped, an integer plus one, any other text given `-drifted`. The reference's
/// value is then fixed text, which `--fix` repairs as a safe fix. The object as it was when
/// the template has no such line (telco-core's monitoring ConfigMap, whose values are a block
/// scalar, and the mirror set, made by `range`).
fn drift_fixed_value(template: &str, object: &str, pick: usize) -> String {
    // (the line, where its value starts)
    let mut candidates: Vec<(&str, usize)> = Vec::new();
    let (mut top, mut in_range, mut block_indent) = ("", false, None::<usize>);
    for line in template.lines() {
        let indent = line.len() - line.trim_start().len();
        if let Some(b) = block_indent {
            if indent > b || line.trim().is_empty() {
                continue;
            }
            block_indent = None;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("{{- range") {
            in_range = true;
        } else if trimmed.starts_with("{{- end") {
            in_range = false;
        }
        if indent == 0 {
            top = line;
            continue;
        }
        let item = trimmed.strip_prefix("- ");
        let entry = item.unwrap_or(trimmed);
        let (key, at) = match entry.split_once(": ") {
            Some((key, _)) => (Some(key), line.len() - entry.len() + key.len() + 2),
            // `- key:` opens a mapping item: no value on this line.
            None if item.is_some() && !entry.ends_with(':') => (None, line.len() - entry.len()),
            None => continue,
        };
        let value = line[at..].trim();
        if value.starts_with(['|', '>']) {
            block_indent = Some(indent);
            continue;
        }
        let plain = !value.is_empty()
            && !value.contains("{{")
            && !value.contains("(?<")
            && !value.starts_with(['"', '\'', '{', '[', '&', '*', '!']);
        let names_object =
            top == "metadata:" && indent == 2 && item.is_none() && matches!(key, Some("name" | "namespace"));
        if plain && !in_range && !names_object {
            candidates.push((line, at));
        }
    }
    let Some(&(line, at)) = candidates.get(pick % candidates.len().max(1)) else {
        return object.to_owned();
    };
    let drifted = match line[at..].trim() {
        "true" => "false".to_owned(),
        "false" => "true".to_owned(),
        v => v.parse::<u64>().map_or_else(|_| format!("{v}-drifted"), |n| (n + 1).to_string()),
    };
    // The object holds the template's line as it is (a line without an action is copied).
    let mut out = String::with_capacity(object.len() + 8);
    let mut done = false;
    for l in object.split_inclusive('\n') {
        if !done && l.trim_end_matches('\n') == line {
            let _ = writeln!(out, "{}{drifted}", &line[..at]);
            done = true;
        } else {
            out.push_str(l);
        }
    }
    out
}

/// `text` with its `metadata.name` (a block mapping's plain or quoted scalar) followed by
/// `-cI`; as it is when it has none.
fn unique_name(text: &str, i: usize) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let (mut inside, mut done) = (false, false);
    for line in text.split_inclusive('\n') {
        if !line.starts_with(' ') && !line.starts_with('#') && !line.trim().is_empty() {
            inside = line.trim_end() == "metadata:";
        }
        if inside
            && !done
            && let Some(value) = line.strip_prefix("  name:")
        {
            let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
            let _ = writeln!(out, "  name: {value}-c{i}");
            done = true;
            continue;
        }
        out.push_str(line);
    }
    out
}

/// The objects a telco layout is made of, and its reference.
enum Objects {
    /// The bench's telco-shaped reference (`fixtures/bench-reference-telco/`) and objects
    /// made from its templates ([`telco_nth`]).
    Fixture { templates: Vec<String>, fixable: Option<usize> },
    /// A checkout of openshift-kni/telco-reference: its `telco-core/configuration/`
    /// `reference-crs-kube-compare` as the reference, the documents of `reference-crs`
    /// (sorted by path) as the objects, in turn.
    Real { reference: PathBuf, crs: Vec<String> },
}

impl Objects {
    fn fixture(fixable: Option<usize>) -> Objects {
        Objects::Fixture { templates: telco_templates(), fixable }
    }

    /// `dir` is the checkout or its `telco-core/configuration`.
    fn real(dir: &Path) -> Objects {
        let core = dir.join("telco-core/configuration");
        let dir = if core.is_dir() { core } else { dir.to_path_buf() };
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "yaml") {
                    out.push(p);
                }
            }
        }
        let mut paths = Vec::new();
        walk(&dir.join("reference-crs"), &mut paths);
        paths.sort();
        let mut crs = Vec::new();
        for p in paths {
            let text = std::fs::read_to_string(&p).expect("a reference CR");
            let mut doc = String::new();
            for line in text.split_inclusive('\n').chain(std::iter::once("---\n")) {
                if line.trim_end() == "---" {
                    // Documents that are objects only (some files hold a policy's raw text).
                    if doc.lines().any(|l| l.starts_with("kind:")) {
                        if !doc.ends_with('\n') {
                            doc.push('\n');
                        }
                        crs.push(std::mem::take(&mut doc));
                    }
                    doc.clear();
                } else {
                    doc.push_str(line);
                }
            }
        }
        assert!(!crs.is_empty(), "no reference CRs under {}", dir.join("reference-crs").display());
        Objects::Real { reference: dir.join("reference-crs-kube-compare"), crs }
    }

    fn write_reference(&self, dst: &Path) {
        match self {
            Objects::Fixture { .. } => {
                copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench-reference-telco"), dst)
            }
            Objects::Real { reference, .. } => copy_tree(reference, dst),
        }
    }

    /// Object `i` of `n`.
    fn nth(&self, i: usize, n: usize, names: Names) -> String {
        let text = match self {
            Objects::Fixture { templates, fixable } => telco_nth(templates, *fixable, i, n),
            Objects::Real { crs, .. } => crs[i % crs.len()].clone(),
        };
        match names {
            Names::RoundRobin => text,
            Names::Unique => unique_name(&text, i),
        }
    }

    /// Writes `files` one-object files under `dir`, 50 a directory; returns their bytes.
    fn generate(&self, dir: &Path, files: usize, names: Names) -> usize {
        let mut bytes = 0;
        for f in 0..files {
            let sub = dir.join(format!("cluster/part-{}", f / 50));
            if f.is_multiple_of(50) {
                std::fs::create_dir_all(&sub).expect("a directory");
            }
            let text = self.nth(f, files, names);
            bytes += text.len();
            std::fs::write(sub.join(format!("object-{f}.yaml")), text).expect("a file");
        }
        bytes
    }

    /// The same objects as one stream.
    fn stream(&self, n: usize, names: Names) -> String {
        let mut text = String::new();
        for i in 0..n {
            text.push_str("---\n");
            text.push_str(&self.nth(i, n, names));
        }
        text
    }
}
