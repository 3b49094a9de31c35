//! The ground every driftlint check family stands on.
//!
//! What it owns, bottom up (each module uses only those above it):
//! - [`source`]: a file or standard input and its text, named as the user gave it;
//!   [`confine`]: the one test every file read on a repository's behalf passes first;
//! - [`rule`]: the rule ids and severities; [`rules`]: the rule table and its documentation;
//! - [`diagnostic`]: the one finding model (rule, severity, message, labels, help);
//! - [`input`]: which files are inputs and reading them within bounds;
//! - [`document`]: Kubernetes objects with spans, their origins and suppression annotations;
//! - [`locate`]: the node of a document a JSON pointer names, and the files read to show it;
//! - [`escape`]: text from a repository made safe for terminals, CI logs and Markdown;
//! - [`pass`]: the interface between the `check` runner and a family's pass.
//!
//! What it must not know: any check family (references and drift, schemas, Crossplane,
//! policies), git, the command line or a report format. A family crate takes documents from
//! here and gives diagnostics back, through a [`pass::Pass`].

#![forbid(unsafe_code)]

pub mod confine;
pub mod diagnostic;
pub mod document;
pub mod escape;
pub mod input;
pub mod locate;
pub mod pass;
pub mod rule;
pub mod rules;
pub mod source;
