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
    /// A change to `.driftlint.yaml` (or deleting `driftlint.lock`) that checks less.
    ConfigWeakened,
    /// A CRD or XRD that cannot serve as a schema (no versions, a `$ref` loop, a bad keyword).
    InvalidSchema,
    /// A field the object's schema does not define.
    SchemaUnknownField,
    /// A value of the wrong JSON type for its schema.
    SchemaTypeMismatch,
    /// A field the schema requires is missing.
    SchemaRequiredMissing,
    /// A value breaks enum, pattern, bounds, lengths, item counts or format.
    SchemaInvalidValue,
    /// No schema for an object's (or a Composition's) type.
    SchemaNotFound,
    /// An apiVersion/kind of a built-in API group that the chosen Kubernetes version lacks.
    UnknownKind,
    /// An apiVersion of a built-in kind that Kubernetes removed.
    RemovedApiVersion,
    /// A workload's selector that is empty or does not select its pod template.
    SelectorMismatch,
    /// Two containers, volumes or ports with one name.
    DuplicateName,
    /// An object, container or port name of the wrong syntax.
    InvalidName,
    /// A label or annotation key or value of the wrong syntax.
    InvalidLabel,
    /// A port number out of range, an unknown protocol, unnamed Service ports.
    InvalidPort,
    /// A resource request or limit that is no quantity, or a request above its limit.
    InvalidResources,
    /// A logical error in a Crossplane Composition.
    CompositionInvalid,
    /// A Composition field path that the schema of its object does not have.
    CompositionPatchPath,
    /// A Composition patch whose value type does not fit its transforms or destination.
    CompositionPatchType,
    /// A field the composed resource requires is set neither by its base nor by a patch.
    CompositionRequiredField,
    /// Checks of a Composition skipped because functions decide its resources (a note).
    CompositionSkipped,
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
    pub const ALL: [Rule; 41] = [
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
        Rule::ConfigWeakened,
        Rule::InvalidSchema,
        Rule::SchemaUnknownField,
        Rule::SchemaTypeMismatch,
        Rule::SchemaRequiredMissing,
        Rule::SchemaInvalidValue,
        Rule::SchemaNotFound,
        Rule::UnknownKind,
        Rule::RemovedApiVersion,
        Rule::SelectorMismatch,
        Rule::DuplicateName,
        Rule::InvalidName,
        Rule::InvalidLabel,
        Rule::InvalidPort,
        Rule::InvalidResources,
        Rule::CompositionInvalid,
        Rule::CompositionPatchPath,
        Rule::CompositionPatchType,
        Rule::CompositionRequiredField,
        Rule::CompositionSkipped,
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
            Rule::ConfigWeakened => "config-weakened",
            Rule::InvalidSchema => "invalid-schema",
            Rule::SchemaUnknownField => "schema-unknown-field",
            Rule::SchemaTypeMismatch => "schema-type-mismatch",
            Rule::SchemaRequiredMissing => "schema-required-missing",
            Rule::SchemaInvalidValue => "schema-invalid-value",
            Rule::SchemaNotFound => "schema-not-found",
            Rule::UnknownKind => "unknown-kind",
            Rule::RemovedApiVersion => "removed-api-version",
            Rule::SelectorMismatch => "selector-mismatch",
            Rule::DuplicateName => "duplicate-name",
            Rule::InvalidName => "invalid-name",
            Rule::InvalidLabel => "invalid-label",
            Rule::InvalidPort => "invalid-port",
            Rule::InvalidResources => "invalid-resources",
            Rule::CompositionInvalid => "composition-invalid",
            Rule::CompositionPatchPath => "composition-patch-path",
            Rule::CompositionPatchType => "composition-patch-type",
            Rule::CompositionRequiredField => "composition-required-field",
            Rule::CompositionSkipped => "composition-skipped",
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

    /// The rule whose id is closest to a mistyped `id`, when one is close enough to suggest
    /// (Jaro-Winkler similarity, as clap's suggestions for flags).
    pub fn nearest(id: &str) -> Option<Rule> {
        let id = id.trim().to_ascii_lowercase().replace('_', "-");
        Rule::ALL
            .into_iter()
            .map(|r| (strsim::jaro_winkler(&id, r.id()), r))
            .filter(|(score, _)| *score >= 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, r)| r)
    }

    /// ` (did you mean `RULE`?)` for a mistyped rule id, else nothing.
    pub fn suggestion(id: &str) -> String {
        match Rule::nearest(id) {
            Some(rule) => format!(" (did you mean `{rule}`?)"),
            None => String::new(),
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
    /// The Kubernetes object concerned (kube-compare CR id), when there is one.
    pub object: Option<String>,
    /// The field concerned, as a JSON pointer into the object.
    pub field: Option<String>,
    /// Set when a reviewer-visible suppression (annotation or config entry) silenced the
    /// finding; the text is the reason given. Suppressed findings never fail a run.
    pub suppressed: Option<String>,
    /// How many findings before this one (in report order) share its identity: see
    /// [`Diagnostic::fingerprint`] and [`number_occurrences`].
    pub occurrence: usize,
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
            occurrence: 0,
        }
    }

    /// A finding with its rule's default severity ([`crate::rules::doc`]): the one table that
    /// decides defaults, which the docs, `explain` and SARIF read too.
    pub fn of(rule: Rule, path: SourcePath, range: Option<Range<usize>>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(rule, crate::rules::doc(rule).default_severity, path, range, message)
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
    /// finding about no field (a YAML error, a duplicate key, a second bad suppression on one
    /// object) adds its message, which names no line either, so different problems stay apart.
    /// Findings that are still alike are numbered in report order ([`number_occurrences`]):
    /// the second gets `-2`, so every finding of a run has its own fingerprint.
    pub fn fingerprint(&self) -> String {
        let base = self.identity();
        if self.occurrence == 0 { base } else { format!("{base}-{}", self.occurrence + 1) }
    }

    /// The fingerprint without the occurrence number.
    fn identity(&self) -> String {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        // Field findings are identified by their field: their message holds values, which may
        // change without making the finding another one. A policy rule can give one field
        // several messages, which are different findings.
        let by_message = self.field.is_none() || matches!(self.rule, Rule::PolicyDeny | Rule::PolicyWarn);
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

/// Numbers findings that share an identity, in the order given (report order): the first is
/// occurrence 0, the next 1, and so on, so fingerprints are unique in a run and unchanged by
/// edits that only move lines.
pub fn number_occurrences(diags: &mut [Diagnostic]) {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for d in diags {
        let n = seen.entry(d.identity()).or_insert(0);
        d.occurrence = *n;
        *n += 1;
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
        // About a field, the field is the identity; the message (with values) is not.
        let drift = |message: &str| at(0..3, message).with_object("v1_ConfigMap_x", Some("/data/a".into()));
        assert_eq!(drift("is `1`").fingerprint(), drift("is `2`").fingerprint());
        // About an object without a field, the message tells findings apart.
        let object = |message: &str| at(0..3, message).with_object("v1_ConfigMap_x", None);
        assert_ne!(object("bad suppression `a`").fingerprint(), object("bad suppression `b`").fingerprint());
    }

    #[test]
    fn alike_findings_are_numbered_in_order_and_keep_their_numbers_when_lines_move() {
        let dup = |at: usize| {
            Diagnostic::new(
                Rule::DuplicateKey,
                Severity::Error,
                SourcePath::File("a.yaml".into()),
                Some(at..at + 1),
                "duplicate key `a`",
            )
        };
        let mut run = vec![dup(10), dup(50), dup(90)];
        number_occurrences(&mut run);
        let prints: Vec<String> = run.iter().map(Diagnostic::fingerprint).collect();
        let unique: std::collections::BTreeSet<&String> = prints.iter().collect();
        assert_eq!(unique.len(), 3, "{prints:?}");
        assert!(prints[1].ends_with("-2") && prints[2].ends_with("-3"), "{prints:?}");
        // An unrelated edit above them moves every line: same fingerprints.
        let mut moved = vec![dup(15), dup(55), dup(95)];
        number_occurrences(&mut moved);
        assert_eq!(moved.iter().map(Diagnostic::fingerprint).collect::<Vec<_>>(), prints);
    }
}
