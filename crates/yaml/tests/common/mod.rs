//! What the YAML crate's test and bench binaries share.

use std::path::{Path, PathBuf};

/// Every file under `dir` (recursively) whose extension is one of `extensions`, appended to
/// `out` in directory-listing order.
pub fn files_with(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_with(&path, extensions, out);
        } else if path.extension().is_some_and(|e| extensions.iter().any(|x| e == *x)) {
            out.push(path);
        }
    }
}
