//! The one finding model every stage produces and every emitter consumes.
//!
//! A diagnostic is a rule id, a severity, a message, a primary label (file + byte range), any
//! number of secondary labels and help notes. Byte ranges stay byte ranges here; lines and
//! columns are computed only when a report is rendered.

use std::fmt;
use std::ops::Range;

use crate::input::SourcePath;

/// Stable rule ids (kebab-case): the same id appears in every output, in suppressions and in
/// `driftlint explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// A field's value differs from the reference.
    ValueDrift,
    /// A field the reference expects is absent from the manifest.
    MissingField,
    /// The manifest has a field the reference does not specify.
    UnexpectedField,
    /// A CR the reference requires is not in the inputs.
    MissingResource,
    /// A CR that no reference template matches.
    UnmatchedResource,
    /// A v2 group rule (`oneOf`, `noneOf`, `allOrNoneOf`, …) is broken.
    CardinalityViolation,
    /// Several templates matched a CR equally well.
    AmbiguousCorrelation,
    /// A reference template failed to render with a manifest.
    TemplateRenderError,
    /// The reference itself is invalid (metadata.yaml or a template).
    InvalidReference,
    YamlSyntaxError,
    DuplicateKey,
    UnsupportedYaml,
    NotKubernetesObject,
    IoError,
    /// A suppression (`driftlint.io/ignore` annotation) that cannot apply: no reason, or an
    /// unknown rule id.
    InvalidSuppression,
    /// The reference no longer matches the one pinned in `driftlint.lock`.
    ReferenceChanged,
    /// A Rego `deny`/`violation` rule (conftest conventions) fired on the manifests.
    PolicyDeny,
    /// A Rego `warn` rule (conftest conventions) fired on the manifests.
    PolicyWarn,
    /// A Rego policy does not compile, or failed while it was evaluated.
    PolicyError,
    /// Fybrik config policies give conflicting decisions for a scenario.
    PolicyConflict,
    /// Fybrik config policies decide a scenario differently from its expected decisions.
    PolicyDecisionChanged,
}

impl Rule {
    /// Every rule, in documentation order.
    pub const ALL: [Rule; 21] = [
        Rule::ValueDrift,
        Rule::MissingField,
        Rule::UnexpectedField,
        Rule::MissingResource,
        Rule::UnmatchedResource,
        Rule::CardinalityViolation,
        Rule::AmbiguousCorrelation,
        Rule::TemplateRenderError,
        Rule::InvalidReference,
        Rule::YamlSyntaxError,
        Rule::DuplicateKey,
        Rule::UnsupportedYaml,
        Rule::NotKubernetesObject,
        Rule::IoError,
        Rule::InvalidSuppression,
        Rule::ReferenceChanged,
        Rule::PolicyDeny,
        Rule::PolicyWarn,
        Rule::PolicyError,
        Rule::PolicyConflict,
        Rule::PolicyDecisionChanged,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::ValueDrift => "value-drift",
            Rule::MissingField => "missing-field",
            Rule::UnexpectedField => "unexpected-field",
            Rule::MissingResource => "missing-resource",
            Rule::UnmatchedResource => "unmatched-resource",
            Rule::CardinalityViolation => "cardinality-violation",
            Rule::AmbiguousCorrelation => "ambiguous-correlation",
            Rule::TemplateRenderError => "template-render-error",
            Rule::InvalidReference => "invalid-reference",
            Rule::YamlSyntaxError => "yaml-syntax-error",
            Rule::DuplicateKey => "duplicate-key",
            Rule::UnsupportedYaml => "unsupported-yaml",
            Rule::NotKubernetesObject => "not-kubernetes-object",
            Rule::IoError => "io-error",
            Rule::InvalidSuppression => "invalid-suppression",
            Rule::ReferenceChanged => "reference-changed",
            Rule::PolicyDeny => "policy-deny",
            Rule::PolicyWarn => "policy-warn",
            Rule::PolicyError => "policy-error",
            Rule::PolicyConflict => "policy-conflict",
            Rule::PolicyDecisionChanged => "policy-decision-changed",
        }
    }

    /// The rule with this id.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
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
    /// The Kubernetes object concerned (kube-compare CR id), when there is one.
    pub object: Option<String>,
    /// The field concerned, as a JSON pointer into the object.
    pub field: Option<String>,
    /// Set when a reviewer-visible suppression (annotation or config entry) silenced the
    /// finding; the text is the reason given. Suppressed findings never fail a run.
    pub suppressed: Option<String>,
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
            object: None,
            field: None,
            suppressed: None,
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

    pub fn with_object(mut self, object: impl Into<String>, field: Option<String>) -> Self {
        self.object = Some(object.into());
        self.field = field;
        self
    }

    /// A stable identity for "the same finding" across runs and line moves: rule, path,
    /// object and field, never line numbers (SARIF `partialFingerprints`, `--new-only`). A
    /// finding about no object (a YAML error, a duplicate key) adds its message, which names
    /// no line either: two different problems of one file stay apart.
    pub fn fingerprint(&self) -> String {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        // Object findings keep the identity they had before messages counted; a policy rule
        // can give one object several messages, which are different findings.
        let by_message = self.object.is_none() || matches!(self.rule, Rule::PolicyDeny | Rule::PolicyWarn);
        let message = if by_message { Some(self.message.as_str()) } else { None };
        for part in [
            self.rule.id(),
            &self.primary.path.display(),
            self.object.as_deref().unwrap_or(""),
            self.field.as_deref().unwrap_or(""),
        ]
        .into_iter()
        .chain(message)
        {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        h.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_ignore_lines_and_tell_objectless_findings_apart() {
        let at = |range: std::ops::Range<usize>, message: &str| {
            Diagnostic::new(
                Rule::DuplicateKey,
                Severity::Warning,
                SourcePath::File("a.yaml".into()),
                Some(range),
                message,
            )
        };
        assert_eq!(at(0..3, "duplicate key `a`").fingerprint(), at(40..43, "duplicate key `a`").fingerprint());
        assert_ne!(at(0..3, "duplicate key `a`").fingerprint(), at(0..3, "duplicate key `b`").fingerprint());
        // About an object, the field is the identity; the message (with values) is not.
        let drift = |message: &str| at(0..3, message).with_object("v1_ConfigMap_x", Some("/data/a".into()));
        assert_eq!(drift("is `1`").fingerprint(), drift("is `2`").fingerprint());
    }
}
