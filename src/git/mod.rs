//! Everything git, through `gix` (no `git` subprocess): references pinned at a revision and
//! read from the object database, and the changed-file scopes of a commit or a pull request.

pub mod changes;
pub mod scope;
