//! `driftlint lsp`: the Language Server Protocol over standard input and output, on
//! `lsp-server` and `lsp-types` (rust-analyzer's transport and types), synchronous on our own
//! threads.
//!
//! The editor's unsaved buffers are checked by `check`'s own runner with the repository's
//! configuration ([`workspace`]); findings are published as diagnostics ([`convert`]), hover
//! explains them and names the reference template line, definition opens it ([`hover`]), and
//! fixes are quick fixes ([`actions`]). [`server`] is the loop: documents ([`documents`]),
//! debounce, cancellation, shutdown; the checks run on a thread of their own
//! ([`checker`]), which keeps each workspace's prepared passes warm.
//!
//! Nothing here decides what a finding is: that is the runner's, so an editor and `driftlint
//! check` always agree.

pub mod actions;
pub mod checker;
pub mod convert;
pub mod documents;
pub mod fields;
pub mod hover;
pub mod server;
pub mod workspace;

pub use server::{End, Options, serve};
