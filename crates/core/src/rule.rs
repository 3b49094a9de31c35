//! The rule ids and severities every finding carries: the names of the rule table
//! ([`crate::rules`]) and of every output, suppression and `driftlint explain` page.

use std::fmt;

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
    /// A second definition (CRD or XRD) of a kind, in another file.
    DuplicateDefinition,
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
    /// A CEL rule (`x-kubernetes-validations`) of the object's schema is false.
    SchemaCelViolation,
    /// CEL rules of the object's schema not evaluated to the end: a cost budget ran out.
    SchemaCelBudget,
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
    /// A field Kubernetes makes immutable changed between the base and the checked state.
    ImmutableFieldChanged,
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
    /// A ValidatingAdmissionPolicy (through a binding) rejects, warns about or audits an object.
    AdmissionViolation,
    /// A ValidatingAdmissionPolicy binding that cannot be decided offline.
    AdmissionUndecided,
    /// A ValidatingAdmissionPolicy expression that does not compile, or a checked copy of a
    /// trusted policy's name.
    AdmissionInvalid,
}

impl Rule {
    /// Every rule, in documentation order.
    pub const ALL: [Rule; 48] = [
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
        Rule::DuplicateDefinition,
        Rule::SchemaUnknownField,
        Rule::SchemaTypeMismatch,
        Rule::SchemaRequiredMissing,
        Rule::SchemaInvalidValue,
        Rule::SchemaNotFound,
        Rule::SchemaCelViolation,
        Rule::SchemaCelBudget,
        Rule::UnknownKind,
        Rule::RemovedApiVersion,
        Rule::SelectorMismatch,
        Rule::DuplicateName,
        Rule::InvalidName,
        Rule::InvalidLabel,
        Rule::InvalidPort,
        Rule::InvalidResources,
        Rule::ImmutableFieldChanged,
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
        Rule::AdmissionViolation,
        Rule::AdmissionUndecided,
        Rule::AdmissionInvalid,
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
            Rule::DuplicateDefinition => "duplicate-definition",
            Rule::SchemaUnknownField => "schema-unknown-field",
            Rule::SchemaTypeMismatch => "schema-type-mismatch",
            Rule::SchemaRequiredMissing => "schema-required-missing",
            Rule::SchemaInvalidValue => "schema-invalid-value",
            Rule::SchemaNotFound => "schema-not-found",
            Rule::SchemaCelViolation => "schema-cel-violation",
            Rule::SchemaCelBudget => "schema-cel-budget",
            Rule::UnknownKind => "unknown-kind",
            Rule::RemovedApiVersion => "removed-api-version",
            Rule::SelectorMismatch => "selector-mismatch",
            Rule::DuplicateName => "duplicate-name",
            Rule::InvalidName => "invalid-name",
            Rule::InvalidLabel => "invalid-label",
            Rule::InvalidPort => "invalid-port",
            Rule::InvalidResources => "invalid-resources",
            Rule::ImmutableFieldChanged => "immutable-field-changed",
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
            Rule::AdmissionViolation => "admission-violation",
            Rule::AdmissionUndecided => "admission-undecided",
            Rule::AdmissionInvalid => "admission-invalid",
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
