//! driftlint: lint Kubernetes manifests against a kube-compare reference configuration.
//!
//! The pipeline reads as verbs over nouns: [`input`] collects sources, [`document`] turns them
//! into Kubernetes objects with spans, later stages correlate and compare them with a
//! reference, and every finding is a [`diagnostic::Diagnostic`].

#![forbid(unsafe_code)]

// The ground's modules under the names the rest of this crate uses.
pub use driftlint_core::{diagnostic, document, input, rules};
// The check families.
pub use driftlint_crossplane as crossplane;
pub use driftlint_policy as policy;
pub use driftlint_reference as reference;
pub use driftlint_reference::{compare, correlate};
pub use driftlint_schema as schema;

pub mod check;
pub mod cli;
pub mod git;
pub mod kubecompare;
pub mod report;
