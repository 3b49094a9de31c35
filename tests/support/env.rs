//! What the tests read from their environment, in one place: where the shared conformance
//! corpora are (`$SHARED`, else `shared/` beside the repository root), whether the run is CI
//! (`CI=true`), and whether a snapshot switch (`UPDATE_DOCS=1`, …) asks for files to be
//! rewritten.
//!
//! Every test binary that needs it includes this file with `#[path = …] mod …;` (the
//! `crates/*` tests and the library's unit tests too), so there is one rule for all of them:
//!
//! * a test that needs a corpus is `#[ignore = "needs the shared conformance corpora
//!   (../shared); .ci/run runs it"]`, so a plain clone lists it as ignored, not passed;
//! * run with `--ignored`, it calls [`corpus`]: when the corpus is absent that prints a
//!   `SKIPPED` line (uncaptured, so it shows in the runner's output) and the test returns,
//!   except under `CI=true`, where absence fails the test;
//! * when present, the test asserts a minimum number of cases with [`assert_min_cases`], so an
//!   emptied or moved corpus fails instead of passing over nothing.
#![allow(dead_code)] // each including binary uses part of it

use std::io::Write;
use std::path::{Path, PathBuf};

/// How far up from `CARGO_MANIFEST_DIR` the repository root (the directory holding
/// `Cargo.lock`) is looked for.
const MAX_LEVELS: usize = 8;

/// The repository root: the first directory holding `Cargo.lock` above the crate being tested.
pub fn repo_root() -> PathBuf {
    let start = Path::new(env!("CARGO_MANIFEST_DIR"));
    start
        .ancestors()
        .take(MAX_LEVELS)
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or_else(|| panic!("no Cargo.lock in {} or its parents", start.display()))
        .to_path_buf()
}

/// The shared folder: `$SHARED` when set and not empty, else `../shared` beside the root.
pub fn shared_dir() -> PathBuf {
    shared_dir_from(std::env::var_os("SHARED").as_deref(), &repo_root())
}

/// [`shared_dir`] with its inputs given (for tests of the rule).
pub fn shared_dir_from(var: Option<&std::ffi::OsStr>, root: &Path) -> PathBuf {
    match var {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => root.parent().unwrap_or(root).join("shared"),
    }
}

/// Whether this is a CI run (`CI=true`, or `CI=1`), where a missing prerequisite is a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| is_ci_value(&v))
}

fn is_ci_value(v: &str) -> bool {
    v == "true" || v == "1"
}

/// Reports that a test cannot run: under CI a panic with `why`; otherwise a `SKIPPED` line on
/// the real standard error (libtest captures only `eprintln!`, so this one is always shown).
pub fn skip(test: &str, why: &str) {
    assert!(!in_ci(), "{test}: {why} (CI=true: a missing prerequisite is a failure)");
    let line = format!("SKIPPED {test}: {why}\n");
    let _ = std::io::stderr().write_all(line.as_bytes()); // one write: not cut by other output
}

/// The corpus `conformance/<name>` of the shared folder, canonical. `None` (after [`skip`])
/// when it is not a directory.
pub fn corpus(test: &str, name: &str) -> Option<PathBuf> {
    let dir = shared_dir().join("conformance").join(name);
    match dir.canonicalize() {
        Ok(p) if p.is_dir() => Some(p),
        _ => {
            skip(test, &format!("the {name} corpus is not at {} (set SHARED to the shared folder)", dir.display()));
            None
        }
    }
}

/// Fails when fewer than `min` cases were checked: the corpus was emptied, moved or misread.
pub fn assert_min_cases(what: &str, checked: usize, min: usize) {
    assert!(checked >= min, "{what}: only {checked} cases checked, at least {min} expected");
}

/// Whether the snapshot switch `var` (e.g. `UPDATE_DOCS`) asks to rewrite files: only when it
/// is `1`. Unset, empty or `0` means compare; any other value, or `1` under `CI=true`, fails
/// loudly instead of rewriting or silently comparing.
pub fn rewrite_requested(var: &str) -> bool {
    let value = std::env::var(var).ok();
    rewrite_decision(var, value.as_deref(), in_ci()).unwrap_or_else(|e| panic!("{e}"))
}

/// [`rewrite_requested`] with its inputs given.
pub fn rewrite_decision(var: &str, value: Option<&str>, ci: bool) -> Result<bool, String> {
    match value {
        None | Some("" | "0") => Ok(false),
        Some("1") if ci => Err(format!("{var}=1 under CI=true: snapshots are never rewritten in CI")),
        Some("1") => Ok(true),
        Some(other) => Err(format!("{var}={other:?}: set {var}=1 to rewrite, or leave it unset to compare")),
    }
}
