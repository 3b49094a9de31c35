//! git for the `check` runner: the changed-file scopes of a commit or a pull request
//! ([`changes`], [`scope`]). Reading git itself is the `driftlint-git` crate, re-exported here.

pub mod changes;
pub mod scope;

pub use driftlint_git::*;
