//! The rules of `tests/support/env.rs`: where the corpora are looked for and when a snapshot
//! switch rewrites files.

use std::ffi::OsStr;
use std::path::Path;

use super::support::{repo_root, rewrite_decision, shared_dir_from};

#[test]
fn snapshot_switches_rewrite_only_on_1_and_never_in_ci() {
    assert_eq!(rewrite_decision("UPDATE_DOCS", None, false), Ok(false));
    assert_eq!(rewrite_decision("UPDATE_DOCS", Some(""), false), Ok(false));
    assert_eq!(rewrite_decision("UPDATE_DOCS", Some("0"), false), Ok(false));
    assert_eq!(rewrite_decision("UPDATE_DOCS", Some("0"), true), Ok(false));
    assert_eq!(rewrite_decision("UPDATE_DOCS", Some("1"), false), Ok(true));
    let ci = rewrite_decision("UPDATE_DOCS", Some("1"), true).unwrap_err();
    assert!(ci.contains("UPDATE_DOCS=1") && ci.contains("CI"), "{ci}");
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
