//! Rego policies (`regorus`, in-process): conftest-style rules over manifests in `check`
//! ([`conftest`]), Fybrik config-policy decisions ([`fybrik`]) and the scenarios `check`
//! replays against them ([`cases`]), Rego unit tests (`driftlint policy test`: [`verify`]),
//! on one engine set-up ([`engine`]) fed by one loader ([`load`]).
//!
//! Policies and data documents kept in a repository are untrusted: they are read only from
//! the paths given, evaluated without environment or network access (the files conftest's
//! `parse_config_file` reads stay inside the policy's repository), and bounded in
//! time and size. Every problem they have is a [`PolicyError`] naming the `.rego` file and
//! line where one is known.
//!
//! Stands on the ground (`driftlint-core`: documents, locations, diagnostics, escaping) and
//! `driftlint-git` (policies at a git location); must not know references, schemas, the
//! `check` runner's scopes or the command line.

#![forbid(unsafe_code)]

pub mod builtins;
pub mod capabilities;
pub mod cases;
pub mod compile;
pub mod conftest;
mod diagnostics;
pub mod engine;
pub mod files;
pub mod fybrik;
pub mod heads;
pub mod load;
pub mod memory;
pub mod metadata;
pub mod module;
pub mod namespace;
pub mod print;
pub mod rewrite;
pub mod scan;
pub mod tags;
pub mod verify;

pub use engine::{Module, Policies};

/// A line in a policy module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub path: String,
    pub line: u32,
}

/// Policies that cannot be used, or an evaluation that failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// A module does not parse (or, found while evaluating, does not compile).
    #[error("{}{message}", at(.location))]
    Parse { location: Option<Location>, message: String },
    /// Evaluation failed (a complete rule with two values, a failed `with`, …).
    #[error("{}{message}", at(.location))]
    Eval { location: Option<Location>, message: String },
    /// A time or size limit stopped the evaluation.
    #[error("policy evaluation stopped: {message}")]
    Limit { message: String },
    /// A data or input document that cannot be used.
    #[error("{message}")]
    Data { message: String },
    /// A file or directory that cannot be read.
    #[error("{path}: {message}")]
    Read { path: String, message: String },
    /// A result that does not have the shape the caller needs.
    #[error("{message}")]
    Shape { message: String },
    /// A data document with a value where a rule is (OPA refuses it: the data would stand in
    /// for the rule). `files`: the data files that set it, when known.
    #[error("{}: {}data may not shadow a rule", at(&Some(.rule.clone())), shadow_message(.path, .files))]
    Shadow { path: String, rule: Location, files: Vec<String> },
    /// Several problems found before any input is evaluated, each at its module line: OPA
    /// reports every compile error, not the first alone. Never empty, never nested.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Many(Vec<PolicyError>),
}

fn shadow_message(path: &str, files: &[String]) -> String {
    let by = if files.is_empty() { "the data document".to_string() } else { files.join(", ") };
    format!("rule `data.{path}` is declared here, and {by} sets a value at `{path}`: ")
}

impl PolicyError {
    /// Where in a module the problem is, when known.
    pub fn location(&self) -> Option<&Location> {
        match self {
            PolicyError::Parse { location, .. } | PolicyError::Eval { location, .. } => location.as_ref(),
            PolicyError::Shadow { rule, .. } => Some(rule),
            PolicyError::Many(errors) => errors.first().and_then(PolicyError::location),
            _ => None,
        }
    }

    /// Every problem this error stands for: the list of [`PolicyError::Many`], else itself.
    pub fn errors(&self) -> Vec<&PolicyError> {
        match self {
            PolicyError::Many(errors) => errors.iter().collect(),
            one => vec![one],
        }
    }

    /// One error for `errors` (`None` when there is none).
    pub fn from_many(mut errors: Vec<PolicyError>) -> Option<PolicyError> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(PolicyError::Many(errors)),
        }
    }

    /// The message without the location.
    pub fn message(&self) -> String {
        match self {
            PolicyError::Parse { message, .. } | PolicyError::Eval { message, .. } => message.clone(),
            PolicyError::Shadow { path, files, .. } => {
                format!("rego_compile_error: {}data may not shadow a rule", shadow_message(path, files))
            }
            PolicyError::Many(errors) => errors.iter().map(PolicyError::message).collect::<Vec<_>>().join("\n"),
            other => other.to_string(),
        }
    }
}

fn at(location: &Option<Location>) -> String {
    location.as_ref().map(|l| format!("{}:{}: ", l.path, l.line)).unwrap_or_default()
}
