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

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use driftlint::check;
use driftlint::config::Settings;
use driftlint::report::{self, Format, Options, SourceResolver};

mod common;

use common::{ms, time};

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let files = args.first().copied().unwrap_or(200);
    let runs = args.get(1).copied().unwrap_or(15).max(1);
    let dir = tempfile::tempdir().expect("a temp dir");
    let (objects, bytes) = generate(dir.path(), files);
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench-reference");
    let settings = Settings {
        reference: Some(driftlint_reference::Location::Path(reference.clone())),
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
            common::object(&mut text, objects, &format!("team-{}", objects % 7), true);
            objects += 1;
        }
        bytes += text.len();
        std::fs::write(sub.join(format!("object-{f}.yaml")), text).expect("a file");
    }
    (objects, bytes)
}
