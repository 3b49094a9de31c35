//! The reference family: everything about a kube-compare reference configuration, from its
//! files to the drift it finds.
//!
//! - [`model`]: the reference as loaded (metadata v1/v2, parts, components, templates), with
//!   [`load`](load_reference), [`compile`], [`location`], [`lock`];
//! - [`correlate`]: which templates a CR may be compared with (spec §4);
//! - [`compare`]: one CR against one rendered template — merge, omit, diff (spec §5);
//! - [`engine`]: every CR correlated and compared, kube-compare's run semantics, and the
//!   report model of `driftlint compare` ([`engine::output`], [`engine::summary`]);
//! - [`drift`]: the linter's drift pass — the engine's results as diagnostics located at the
//!   manifest line and the template line.
//!
//! Stands on the ground (`driftlint-core`), `driftlint-git` (references pinned at a revision),
//! `driftlint-yaml` and `driftlint-gotmpl`; must not know schemas, Crossplane, policies, the
//! `check` runner's scopes, report formats or the command line. `driftlint compare`'s
//! command and its kube-compare output formats are the root crate's `kubecompare` front.
//!
#![forbid(unsafe_code)]

pub mod compare;
pub mod correlate;
pub mod drift;
pub mod engine;
pub mod report;
pub mod run;

pub mod compile;
mod decode;
mod error;
mod fs;
pub mod hash;
mod load;
pub mod location;
pub mod lock;
mod metadata;
pub mod model;
mod omit;
mod path;
pub mod root;
pub mod userconfig;

pub use compile::{Compiled, CompiledTemplate, Fixed, compile};
pub use error::{LoadError, Problem};
pub use hash::{files_hash, metadata_hash};
pub use load::{load_reference, load_reference_in};
pub use location::{Location, OpenError, Opened, Pinned, open};
pub use model::{
    Component, ComponentKind, FunctionFile, Group, Part, PerField, Reference, SourceFile, TemplateConfig,
    TemplateEntry, TemplateSource, Version,
};
pub use omit::{BUILT_IN_KEY, BUILT_IN_PATHS, FieldsToOmit, OmitEntry, OmitPath};
pub use path::parse_path_to_key;
