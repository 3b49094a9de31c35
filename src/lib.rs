//! driftlint: lint Kubernetes manifests against a kube-compare reference configuration.
//!
//! The root crate is the command line and what only the command line needs; each family and
//! the ground it stands on is a crate of its own, named for what it does, and is imported
//! under that name (`driftlint_core::input`, `driftlint_reference::engine`, …):
//!
//! * [`cli`]: arguments, commands, exit codes;
//! * [`config`]: `.driftlint.yaml` — fields, decoding, discovery, the effective settings and
//!   what a change to the file weakens;
//! * [`check`]: the runner of `driftlint check` — inputs, batches, the passes, rule levels and
//!   suppressions;
//! * [`scope`]: which findings a run shows — `--staged`, `--base`, named files;
//! * [`fix`]: the findings' fixes applied to files (`--fix`), or shown as a diff (`--diff`);
//! * [`report`]: the output formats of `check`;
//! * [`lsp`]: `driftlint lsp`, the checks of `check` on an editor's unsaved buffers.

#![forbid(unsafe_code)]

pub mod check;
pub mod cli;
pub mod config;
pub mod fix;
pub mod lsp;
pub mod report;
pub mod scope;
