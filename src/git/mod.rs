//! Everything git, through `gix` (no `git` subprocess): references pinned at a revision and
//! read from the object database, and the changed-file scopes of a commit or a pull request.

pub mod changes;
pub mod location;
pub mod read;
pub mod scope;
pub mod tree;

use std::path::{Path, PathBuf};

pub use location::{Location, LocationError, Repo, is_location, parse_location};
pub use read::{Snapshot, load_file, load_snapshot, location_text, open_repository, resolve_commit};
pub use tree::{Entry, Tree};

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

/// Why a git location could not be read. Each names the repository, revision or path at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Location(#[from] LocationError),
    #[error("{} is not in a git repository: {message}", path.display())]
    NotARepository { path: PathBuf, message: String },
    #[error("cannot resolve revision `{rev}` in {}: {message}", repo.display())]
    Revision { rev: String, repo: PathBuf, message: String },
    #[error("path `{path}` does not exist at revision `{rev}` (commit {commit})")]
    PathNotFound { path: String, rev: String, commit: String },
    #[error("cannot read {location}: {message}")]
    Read { location: String, message: String },
}
