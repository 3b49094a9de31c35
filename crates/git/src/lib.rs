//! Reading git without a `git` subprocess (through `gix`): locations written as
//! `git:REV:PATH` or `git+file:REPO#REV:PATH`, and snapshots of a tree at a revision read
//! whole from the object database, within bounds.
//!
//! What it owns: [`location`] (parsing only), [`tree`] (an in-memory tree, no gix), [`read`]
//! (opening repositories, resolving revisions, loading snapshots), [`states`] (the index, a
//! commit's tree and a merge-base as the states a scoped check compares, with the inputs read
//! from their blobs). Every `gix` call of driftlint is in this crate. What it must not know:
//! what the files it reads mean (references, schemas, policies) or which findings a change
//! caused (the `check` runner's scopes).

#![forbid(unsafe_code)]

pub mod location;
pub mod read;
pub mod states;
pub mod tree;

use std::path::PathBuf;

pub use location::{Location, LocationError, Repo, is_location, parse_location};
pub use read::{Snapshot, load_file, load_snapshot, location_text, open_repository, resolve_commit};
pub use tree::{Entry, Tree};

/// Object ids, for the callers that keep a state's blobs or a commit.
pub use gix::ObjectId;

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
