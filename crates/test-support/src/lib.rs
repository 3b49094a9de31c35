//! What driftlint's tests share, in one place: where the shared conformance corpora are
//! (`$SHARED`, else `shared/` beside the repository root), whether the run is CI
//! (`CI=true`), whether the snapshot switch (`DRIFTLINT_BLESS=1`) asks for files to be
//! rewritten, and the fixtures many tests use ([`fixtures`]).
//!
//! Every crate's tests depend on this crate (a dev-dependency), so there is one rule for all
//! of them:
//!
//! * a test that needs a corpus is `#[ignore = "needs the shared conformance corpora
//!   (../shared); .ci/run runs it"]`, so a plain clone lists it as ignored, not passed;
//! * run with `--ignored`, it calls [`corpus`]: when the corpus is absent that prints a
//!   `SKIPPED` line (uncaptured, so it shows in the runner's output) and the test returns,
//!   except under `CI=true`, where absence fails the test;
//! * when present, the test asserts a minimum number of cases with [`assert_min_cases`], so an
//!   emptied or moved corpus fails instead of passing over nothing.

pub mod fixtures;

use std::io::Write;
use std::path::{Path, PathBuf};

/// How far up from `CARGO_MANIFEST_DIR` the repository root (the directory holding
/// `Cargo.lock`) is looked for.
const MAX_LEVELS: usize = 8;

/// The repository root: the first directory holding `Cargo.lock` above this crate (the
/// workspace root, whichever crate's tests ask).
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

/// The one switch that rewrites every generated or expected file the tests compare with
/// (snapshots, `docs/rules.md`, the configuration's JSON Schema, the manual pages, expected
/// report files): `DRIFTLINT_BLESS=1`.
pub const BLESS: &str = "DRIFTLINT_BLESS";

/// Whether [`BLESS`] asks to rewrite files: only when it is `1`. Unset, empty or `0` means
/// compare; any other value, or `1` under `CI=true`, fails loudly instead of rewriting or
/// silently comparing.
pub fn rewrite_requested() -> bool {
    let value = std::env::var(BLESS).ok();
    rewrite_decision(BLESS, value.as_deref(), in_ci()).unwrap_or_else(|e| panic!("{e}"))
}

/// [`rewrite_requested`] with its inputs given (`var` names the switch in messages).
pub fn rewrite_decision(var: &str, value: Option<&str>, ci: bool) -> Result<bool, String> {
    match value {
        None | Some("" | "0") => Ok(false),
        Some("1") if ci => Err(format!("{var}=1 under CI=true: snapshots are never rewritten in CI")),
        Some("1") => Ok(true),
        Some(other) => Err(format!("{var}={other:?}: set {var}=1 to rewrite, or leave it unset to compare")),
    }
}

/// The rules above: where the corpora are looked for and when a snapshot switch rewrites files.
#[cfg(test)]
mod tests {
    use std::ffi::OsStr;
    use std::path::Path;

    use super::{repo_root, rewrite_decision, shared_dir_from};

    #[test]
    fn snapshot_switches_rewrite_only_on_1_and_never_in_ci() {
        assert_eq!(rewrite_decision("DRIFTLINT_BLESS", None, false), Ok(false));
        assert_eq!(rewrite_decision("DRIFTLINT_BLESS", Some(""), false), Ok(false));
        assert_eq!(rewrite_decision("DRIFTLINT_BLESS", Some("0"), false), Ok(false));
        assert_eq!(rewrite_decision("DRIFTLINT_BLESS", Some("0"), true), Ok(false));
        assert_eq!(rewrite_decision("DRIFTLINT_BLESS", Some("1"), false), Ok(true));
        let ci = rewrite_decision("DRIFTLINT_BLESS", Some("1"), true).unwrap_err();
        assert!(ci.contains("DRIFTLINT_BLESS=1") && ci.contains("CI"), "{ci}");
        for odd in ["true", "yes", "2", " 1"] {
            let e = rewrite_decision("DRIFTLINT_BLESS", Some(odd), false).unwrap_err();
            assert!(e.contains("DRIFTLINT_BLESS=1"), "{odd}: {e}");
        }
    }

    #[test]
    fn the_corpora_are_found_through_shared_else_beside_the_root() {
        let root = Path::new("/src/driftlint");
        assert_eq!(shared_dir_from(None, root), Path::new("/src/shared"));
        assert_eq!(shared_dir_from(Some(OsStr::new("")), root), Path::new("/src/shared"));
        assert_eq!(shared_dir_from(Some(OsStr::new("/data/corpora")), root), Path::new("/data/corpora"));
    }

    #[test]
    fn the_root_is_the_directory_holding_cargo_lock() {
        let root = repo_root();
        assert!(root.join("Cargo.lock").is_file(), "{}", root.display());
        assert!(Path::new(env!("CARGO_MANIFEST_DIR")).starts_with(&root));
    }
}
