//! Where a repository's work tree ends: plain file-system questions, nothing is opened.

use std::path::Path;

/// The work tree holding the directory `dir`: the nearest directory upwards (`dir` included)
/// with a `.git`. A plain file-system question; nothing is opened.
pub fn enclosing_work_tree(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| d.join(".git").exists())
}

/// Whether `path` lies inside `root` and not in its `.git` (both absolute and resolved): the
/// test every path a checked repository names must pass before it is read.
pub fn inside_work_tree(path: &Path, root: &Path) -> bool {
    path.strip_prefix(root).is_ok_and(|rest| !rest.components().any(|c| c.as_os_str() == ".git"))
}
