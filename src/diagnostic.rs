//! The one finding model every stage produces and every emitter consumes.
//!
//! A diagnostic is a rule id, a severity, a message, a primary label (file + byte range), any
//! number of secondary labels and help notes. Byte ranges stay byte ranges here; lines and
//! columns are computed only when a report is rendered.

use std::fmt;
use std::ops::Range;

use crate::input::SourcePath;

/// Stable rule ids (kebab-case): the same id appears in every output and in suppressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    YamlSyntaxError,
    DuplicateKey,
    UnsupportedYaml,
    NotKubernetesObject,
    IoError,
}

impl Rule {
    pub fn id(self) -> &'static str {
        match self {
            Rule::YamlSyntaxError => "yaml-syntax-error",
            Rule::DuplicateKey => "duplicate-key",
            Rule::UnsupportedYaml => "unsupported-yaml",
            Rule::NotKubernetesObject => "not-kubernetes-object",
            Rule::IoError => "io-error",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Information only: never fails a run.
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A place in a source: the file and, when known, a byte range in its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub path: SourcePath,
    pub range: Option<Range<usize>>,
    pub message: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub rule: Rule,
    pub severity: Severity,
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub help: Vec<String>,
}

impl Diagnostic {
    pub fn new(
        rule: Rule,
        severity: Severity,
        path: SourcePath,
        range: Option<Range<usize>>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            rule,
            severity,
            message: message.into(),
            primary: Label { path, range, message: None },
            secondary: Vec::new(),
            help: Vec::new(),
        }
    }

    pub fn error(rule: Rule, path: SourcePath, range: Option<Range<usize>>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(rule, Severity::Error, path, range, message)
    }

    pub fn with_secondary(mut self, path: SourcePath, range: Option<Range<usize>>, message: impl Into<String>) -> Self {
        self.secondary.push(Label { path, range, message: Some(message.into()) });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help.push(help.into());
        self
    }
}
