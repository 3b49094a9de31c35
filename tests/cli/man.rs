//! The manual pages in `docs/man/` are the ones the command line generates (`clap_mangen`), so
//! that the pages the release archives ship describe the binary beside them.
//! `DRIFTLINT_BLESS=1 cargo test --test main man::` rewrites them.

use super::root;

#[test]
fn shipped_man_pages_are_current() {
    let dir = root().join("docs/man");
    let pages = driftlint::cli::man::pages();
    let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"driftlint.1") && names.contains(&"driftlint-check.1"), "{names:?}");
    assert!(names.contains(&"driftlint-init.1") && names.contains(&"driftlint-completions.1"), "{names:?}");
    if driftlint_test_support::rewrite_requested() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in &pages {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }
    let mut stale = Vec::new();
    for (name, text) in &pages {
        if std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(text.as_str()) {
            stale.push(name.clone());
        }
    }
    let mut shipped: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    shipped.retain(|n| !names.contains(&n.as_str()));
    assert!(
        stale.is_empty() && shipped.is_empty(),
        "docs/man is stale (changed or missing: {stale:?}; no longer generated: {shipped:?}): \
         run `DRIFTLINT_BLESS=1 cargo test --test main man::`"
    );
    // The page documents the flags a user looks for.
    let check = &pages.iter().find(|(n, _)| n == "driftlint-check.1").unwrap().1;
    assert!(check.contains("\\-\\-fail\\-level") && check.contains("\\-\\-quiet"), "{check}");
}
