//! kube-compare compatibility: the parts of `driftlint compare` whose behaviour is fixed by
//! kube-compare's offline mode rather than by driftlint's own design.
//!
//! * [`collect`]: the kubectl resource builder's input rules (spec §1.7), with CRs kept
//!   [`packed`] until compared.
//! * [`engine`]: correlation and comparison of every CR; [`run`] sequences a whole run.
//! * [`summary`]: validation issues and `NumMissing` for v1 components and v2 groups (§2.4, §2.5).
//! * [`output`]: the report model (§7) and its renderers ([`json`], [`text`], [`junit`],
//!   [`patches`]), byte-compatible with kube-compare.
//!
//! Correlation lives in [`crate::correlate`]; this module knows nothing about templates.

pub mod junit;
pub mod patches;
pub mod run;
pub mod text;

pub use driftlint_reference::engine;
pub use driftlint_reference::engine::{collect, glob, json, output, packed, summary};

pub use collect::{CollectError, Collected, Cr, Packed, collect_crs};
pub use junit::to_junit;
pub use output::{CrMetadata, DiffSum, Output, Summary, ValidationIssue, Warning, to_json, to_yaml};
pub use packed::PackedCr;
pub use patches::generate_patches_yaml;
pub use text::to_text;
