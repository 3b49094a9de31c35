//! The text of every rule's documentation, in `Rule::ALL` order (a uniform table).

use super::RuleDoc;
use crate::rule::{Rule, Severity};

pub(super) static DOCS: [RuleDoc; 48] = [
    RuleDoc {
        rule: Rule::ValueDrift,
        default_severity: Severity::Error,
        summary: "A field's value differs from what the reference template renders",
        what: "A field that both the manifest and the rendered reference template set, with different \
values. The primary location is the value in the manifest; a secondary location points at the \
template line that set the expectation, and the help note gives the field as a JSON pointer.",
        why: "The reference is the engineered, validated configuration. A value that drifts from it is \
the configuration the reference authors did not test, and is the most common source of clusters \
that behave differently from the validated design.",
        example_lang: "yaml",
        example: "# reference template: spec.replicas is fixed\nspec:\n  replicas: 3\n---\n# manifest\nspec:\n  replicas: 1   # value-drift: expected 3",
        fix: "Change the value in the manifest to the one the reference expects. If the reference is \
wrong or too strict, change the template (for example with a capture group or a `regex` inline \
diff function that accepts the allowed values), or suppress the finding with a reason a reviewer \
can see.",
    },
    RuleDoc {
        rule: Rule::MissingField,
        default_severity: Severity::Error,
        summary: "A field the reference expects is absent from the manifest",
        what: "A field present in the rendered reference template but absent from the manifest. The \
location is the closest enclosing field that exists in the manifest.",
        why: "A missing field usually falls back to a default that the reference was not validated \
with, or drops a setting (a toleration, a resource limit, a label) that other components rely on.",
        example_lang: "yaml",
        example: "# reference template\nmetadata:\n  labels:\n    app: router\n---\n# manifest\nmetadata:\n  labels: {}   # missing-field: /metadata/labels/app",
        fix: "Add the field with the value the reference expects. If the field is optional, mark it \
so in the reference (an `{{ if }}` around it in the template) so its absence is accepted.",
    },
    RuleDoc {
        rule: Rule::UnexpectedField,
        default_severity: Severity::Warning,
        summary: "The manifest sets a field the reference does not specify",
        what: "A field present in the manifest but not in the rendered reference template, when the \
reference does not allow unspecified fields (kube-compare's `ignore-unspecified-fields` is off \
for it).",
        why: "Extra fields change behaviour in ways the reference authors never reviewed; they are also \
how local workarounds silently accumulate in a GitOps repository.",
        example_lang: "yaml",
        example: "# reference template\nspec:\n  replicas: 3\n---\n# manifest\nspec:\n  replicas: 3\n  paused: true   # unexpected-field: /spec/paused",
        fix: "Remove the field, or add it to the reference template if it belongs to the validated \
configuration. Fields that are legitimately set by other tools (status, managed fields, \
annotations from controllers) belong in the reference's `fieldsToOmit`.",
    },
    RuleDoc {
        rule: Rule::MissingResource,
        default_severity: Severity::Error,
        summary: "A resource the reference requires is not in the inputs",
        what: "A reference template in a required component (v1 `required` components, v2 `allOf` \
groups) that no manifest matched. The location is the template's entry in `metadata.yaml`.",
        why: "A required resource that is absent means a whole piece of the validated configuration \
is not deployed: a missing operator subscription, network policy or tuning object.",
        example_lang: "yaml",
        example: "# metadata.yaml\nparts:\n  - name: networking\n    components:\n      - name: sriov\n        allOf:\n          - path: SriovOperatorConfig.yaml   # missing-resource: no manifest matches",
        fix: "Add a manifest for the resource, or check that the manifest that should match has the \
kind, apiVersion, name and namespace the template expects. Run `driftlint ls` to see what \
driftlint found in the inputs.",
    },
    RuleDoc {
        rule: Rule::UnmatchedResource,
        default_severity: Severity::Warning,
        summary: "A resource that no reference template matches",
        what: "A Kubernetes object in the inputs for which no template of the reference matches by \
apiVersion, kind, name and namespace, or through the manual correlation of the diff config.",
        why: "Such a resource is outside the validated configuration: either it is unintended, or the \
reference is incomplete, or a manual correlation is missing.",
        example_lang: "yaml",
        example: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local-tweaks   # unmatched-resource\n  namespace: openshift-monitoring",
        fix: "Remove the resource if it is not meant to be deployed, add a template for it to the \
reference, or map it to an existing template with a manual correlation in the diff config.",
    },
    RuleDoc {
        rule: Rule::CardinalityViolation,
        default_severity: Severity::Error,
        summary: "A component's group rule (oneOf, noneOf, allOrNoneOf, …) is broken",
        what: "A v2 component rule over several templates that the matched resources break: `oneOf` \
with none or several matched, `noneOf` with one matched, `allOrNoneOf` with only some matched, \
`anyOf`/`anyOneOf` with none matched.",
        why: "These rules encode choices the reference authors made (exactly one storage backend, \
never both tuned profiles); breaking them gives a combination nobody validated.",
        example_lang: "yaml",
        example: "# metadata.yaml\ncomponents:\n  - name: storage\n    oneOf:\n      - path: LocalStorage.yaml\n      - path: Odf.yaml\n# inputs contain both a LocalStorage and an Odf resource: cardinality-violation",
        fix: "Keep exactly the combination of resources the rule asks for; the message lists which \
templates matched and which did not.",
    },
    RuleDoc {
        rule: Rule::AmbiguousCorrelation,
        default_severity: Severity::Warning,
        summary: "Several reference templates match a resource equally well",
        what: "A resource that more than one template matches with the same number of differences, so \
the choice of template is a tie-break rather than a decision. When the reference has overlapping \
definitions (kube-compare's \"more than one template with same …\" warning) and a resource with \
differences was compared with the closest of several candidates, a note at the resource names \
the template used and the others, so that surprising drift can be traced to the choice.",
        why: "The comparison, and so every drift finding for that resource, depends on which template \
was chosen; a tie makes that choice fragile.",
        example_lang: "yaml",
        example: "# two templates both match kind: Namespace with any name\n# Namespace-a.yaml: metadata.name: {{ .metadata.name }}\n# Namespace-b.yaml: metadata.name: {{ .metadata.name }}",
        fix: "Make the templates distinguishable (fixed names, namespaces or labels), or pin the \
resource to one template with a manual correlation in the diff config.",
    },
    RuleDoc {
        rule: Rule::TemplateRenderError,
        default_severity: Severity::Error,
        summary: "A reference template failed to render with a manifest",
        what: "Executing a Go template of the reference with a manifest as data failed: a function \
error (`required`, `fail`), a bad index, a type mismatch, or a resource limit.",
        why: "Without a rendered template there is nothing to compare the manifest with, so its drift \
cannot be checked at all.",
        example_lang: "yaml",
        example: "# reference template\nspec:\n  size: {{ required \"spec.size is required\" .spec.size }}\n# manifest without spec.size: template-render-error",
        fix: "If the message comes from `required` or `fail`, the manifest lacks what the template \
needs: add it. Otherwise fix the template; the secondary location points at the template line.",
    },
    RuleDoc {
        rule: Rule::InvalidReference,
        default_severity: Severity::Error,
        summary: "The reference configuration itself is invalid",
        what: "A problem in the reference: `metadata.yaml` that does not parse or names missing \
templates, a template that does not parse, an invalid regex or path in the configuration.",
        why: "An invalid reference cannot be trusted to check anything; findings against it would be \
noise.",
        example_lang: "yaml",
        example: "# metadata.yaml\nparts:\n  - name: core\n    components:\n      - name: dns\n        allOf:\n          - path: DoesNotExist.yaml   # invalid-reference",
        fix: "Fix the reference at the location given. `driftlint reference lint` checks a reference \
on its own.",
    },
    RuleDoc {
        rule: Rule::YamlSyntaxError,
        default_severity: Severity::Error,
        summary: "A manifest is not valid YAML",
        what: "A YAML syntax error in an input file: bad indentation, an unclosed quote or flow \
collection, a tab used for indentation.",
        why: "A file that does not parse cannot be applied to a cluster either, and none of its \
documents can be checked.",
        example_lang: "yaml",
        example: "metadata:\n  name: router\n   namespace: ingress   # yaml-syntax-error: bad indentation",
        fix: "Correct the syntax at the location given.",
    },
    RuleDoc {
        rule: Rule::DuplicateKey,
        default_severity: Severity::Error,
        summary: "A mapping has the same key twice",
        what: "A YAML mapping in which a key appears more than once.",
        why: "Kubernetes tools disagree on duplicates: some keep the last value, some the first, some \
refuse the document. What the cluster receives then depends on the tool used.",
        example_lang: "yaml",
        example: "spec:\n  replicas: 2\n  replicas: 3   # duplicate-key",
        fix: "Keep one of the keys; the secondary location points at the first occurrence.",
    },
    RuleDoc {
        rule: Rule::UnsupportedYaml,
        default_severity: Severity::Error,
        summary: "The manifest uses a YAML feature driftlint cannot map faithfully",
        what: "YAML constructs that Kubernetes' decoder treats differently from plain data, or that \
driftlint does not support: custom tags, complex (non-scalar) mapping keys, and similar.",
        why: "driftlint would compare something other than what the API server receives, so findings \
for that document may be wrong.",
        example_lang: "yaml",
        example: "metadata:\n  labels: !custom-tag\n    app: router   # unsupported-yaml",
        fix: "Write the document as plain YAML data: no custom tags, scalar keys only.",
    },
    RuleDoc {
        rule: Rule::NotKubernetesObject,
        default_severity: Severity::Note,
        summary: "A YAML document is not a Kubernetes object and was skipped",
        what: "A document in an input file that has no `apiVersion` and `kind`, or is not a mapping \
(a values file, a kustomization, a list of strings). A mapping that has an object's parts \
(`apiVersion`, `kind`, `metadata` or `spec`) but lacks `apiVersion` or `kind` is an error: a \
manifest that lost its type, which the API server rejects.",
        why: "Such documents are skipped, never silently: the note says which ones so that a typo in \
`kind` does not hide a resource from the check.",
        example_lang: "yaml",
        example: "# values.yaml\nreplicaCount: 3   # not-kubernetes-object (note)",
        fix: "Nothing to do if the file is not a manifest; exclude it from the inputs to silence the \
note. If it is a manifest, add the missing `apiVersion` and `kind`.",
    },
    RuleDoc {
        rule: Rule::IoError,
        default_severity: Severity::Error,
        summary: "An input could not be read, or a file named on the command line is not checked",
        what: "A file or directory that could not be read: missing, permission denied, not UTF-8. \
Also a file named on the command line (as the pre-commit hook names a commit's files) that holds \
Kubernetes objects but that the check leaves out: in a hidden directory, excluded by `exclude:`, \
hidden by an ignore file or not taken by `include:` — the message says which. One note a run \
also names the directories a walk passed over that hold manifests (hidden, hidden by an \
ignore file, excluded).",
        why: "An input that was not read was not checked; reporting it keeps a run from passing by \
accident.",
        example_lang: "text",
        example: "manifests/secret.yaml: error[io-error]: cannot read manifests/secret.yaml: Permission denied",
        fix: "Make the file readable (and UTF-8), or leave it out of the inputs; for a named file \
that is not checked, move it where the check looks or change the configuration.",
    },
    RuleDoc {
        rule: Rule::InvalidSuppression,
        default_severity: Severity::Warning,
        summary: "A suppression annotation that cannot apply: no reason, or an unknown rule",
        what: "A line of a `driftlint.io/ignore` annotation that gives no reason after the rule ids, \
or that names a rule id driftlint does not have. The location is the line of the annotation's \
value. Such a line suppresses nothing (for unknown ids), or nothing at all (without a reason).",
        why: "A suppression is a reviewer-visible decision: without a reason a reviewer cannot judge \
it, and a misspelt rule id would silently leave the finding it was meant for in place (or, read \
loosely, silence something else). Reporting the line keeps both mistakes from going unnoticed.",
        example_lang: "yaml",
        example: "metadata:\n  annotations:\n    driftlint.io/ignore: \"value-drift\"   # invalid-suppression: no reason\n    # expected: \"value-drift: replicas are scaled by the HPA\"",
        fix: "Write each line as `RULE[, RULE…]: reason` (or `*: reason` for every rule), with rule \
ids from `docs/rules.md` or `driftlint explain RULE`; several suppressions go on several lines of \
the value. Suppressions in `.driftlint.yaml` (`ignore:`) are checked when the file is read: a \
missing reason or unknown rule there stops the run with the file and line.",
    },
    RuleDoc {
        rule: Rule::ReferenceChanged,
        default_severity: Severity::Error,
        summary: "The reference is no longer the one pinned in driftlint.lock",
        what: "`driftlint reference pin` recorded the reference's location, the commit a git location \
resolved to and kube-compare's metadata hash in `driftlint.lock`. The check found that the same \
location now resolves to another commit (a moved tag, a rewritten branch), that the reference's \
metadata hash or one of its files changed (an edited template or function file), or that the \
configuration names another reference than the lock. The location is the line of the lock that no \
longer holds. With `require-lock: true` in `.driftlint.yaml`, a missing lock is reported too, at \
that line.",
        why: "A check passes or fails against a reference; when the reference changes under the same \
name, the meaning of a green check changes without any change in the repository, and nobody \
reviewed it.",
        example_lang: "yaml",
        example: "# driftlint.lock\nversion: 2\nsource: git:refs/tags/reference-v4.18:reference\ncommit: 6f1c0e…   # reference-changed: now resolves to 93ab27…\nmetadata-hash: 2b9e41…\nfiles-hash: 91d0c3…",
        fix: "Find out why the reference changed. If the new reference is meant to be used, review it \
and run `driftlint reference pin` to record it (the lock's diff shows the change in review). If \
not, point `reference:` at the pinned commit (`git:6f1c0e…:reference`) or restore the tag.",
    },
    RuleDoc {
        rule: Rule::ConfigWeakened,
        default_severity: Severity::Error,
        summary: "A change to the configuration makes driftlint check less",
        what: "On `--base` and `--staged` runs, the configuration in effect is compared with the \
base's (its version of the file, else the nearest `.driftlint.yaml` above it at the base). Flagged, \
each at its line: a rule turned off or given a lower level, a raised `fail-level`, an `exclude` glob \
added, an `include` glob removed (or a narrower `include` set), an `ignore` entry added, \
`require-lock` removed, `reference` removed or changed, `overrides` or `diff-config` set or changed, \
`schema-mode` no longer strict, a `schemas`, `policies` or `policy-namespaces` entry removed, \
`policy-combine` changed, a `policy-data` entry added, `policy-cases` removed or changed. Also: any \
other `.driftlint.yaml` the change adds or edits (a new one in a subdirectory is compared with the \
base's configuration for its directory), `driftlint.lock` deleted or re-pinned, a policy data file \
added, and every manifest the base checked (or would check) that the change stops checking — hidden \
by an ignore file, excluded, no longer included, moved into a hidden directory. The level of this \
rule comes from the base's configuration, never from the changed one, and the changed file's own \
`ignore:` entries do not apply to it.",
        why: "The configuration lives in the repository it checks, so a pull request can change what \
is checked: `rules: {value-drift: off}` turns a failing check green with \"no problems found\". \
Pointing at the line that did it lets a reviewer judge that change instead of trusting the green \
check.",
        example_lang: "yaml",
        example: "# .driftlint.yaml in a pull request\nrules:\n  value-drift: off      # config-weakened: `value-drift` was error at the base\nexclude:\n  - prod/**             # config-weakened: new exclude glob",
        fix: "Review the change. When it is intended, merge it: the next runs compare with the new \
base. To let such changes pass with a visible warning, set `rules: {config-weakened: warning}` on the \
default branch.",
    },
    RuleDoc {
        rule: Rule::InvalidSchema,
        default_severity: Severity::Error,
        summary: "A CRD or XRD that cannot serve as a schema, or a broken part of its schema",
        what: "A CustomResourceDefinition or CompositeResourceDefinition (among the inputs, or given \
with `--schemas` / `schemas:`) without a group, kind or versions, or a schema in it with a keyword \
of the wrong type, a `pattern` that does not compile, or a `$ref` that loops or points nowhere. \
The location is the offending key. The broken part accepts anything; the rest of the schema and \
every other check still run. A document in a schema folder that is no definition gets a note. A \
checked file that defines a kind already defined by a configured (trusted) schema, or a kind of \
Kubernetes' built-in API groups: it is not used. An `apiextensions.crossplane.io/v2` XRD with \
`claimNames` or an unknown `scope`.",
        why: "A schema that cannot be read validates nothing: without this finding, objects of that \
kind would look valid (or would all be reported as having no schema) for a reason nobody sees.",
        example_lang: "yaml",
        example: "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nspec:   # invalid-schema: no `versions`\n  group: database.example.org\n  names: {kind: XPostgreSQLInstance, plural: xpostgresqlinstances}",
        fix: "Fix the definition as the API server would require it: a group, `names.kind`, at least \
one version with an `openAPIV3Schema`, no `$ref` (structural schemas do not allow them), patterns \
in Go RE2 syntax.",
    },
    RuleDoc {
        rule: Rule::DuplicateDefinition,
        default_severity: Severity::Warning,
        summary: "A second definition of a kind (CRD or XRD) in another file",
        what: "Two CustomResourceDefinitions or CompositeResourceDefinitions for one group and kind, \
of the same trust (both configured schemas, or both among the checked files), in two files. \
Identical ones (same versions and schemas) are a note, and the second is not compiled again. \
Different ones are a warning, and both are kept: each object of the kind is validated against the \
nearest definition — the one whose directory shares the most leading directories with the \
object's file, then the one whose directory names the file's path shares most (a release \
channel: `config/crd/standard/` serves `examples/standard/`), then the first read. `driftlint ls` \
shows which definition each object used. The location is the second definition's kind.",
        why: "Repositories keep a CRD in `crds/` and in an install bundle, in a Helm chart, or once \
per release channel. Identical copies are harmless; copies that differ mean a cluster gets \
whichever is applied last, and objects meant for one channel may not fit the other.",
        example_lang: "text",
        example: "config/crd/standard/gateways.yaml       # kind: Gateway, standard channel\n\
config/crd/experimental/gateways.yaml   # duplicate-definition: more fields than the standard one",
        fix: "Keep one copy where possible (generate the bundle from it). When both are meant (two \
channels, two versions of a chart), nothing is wrong: set `rules: {duplicate-definition: off}` or \
keep each channel's objects beside its definitions.",
    },
    RuleDoc {
        rule: Rule::SchemaUnknownField,
        default_severity: Severity::Error,
        summary: "A field that the object's schema does not define",
        what: "A key of an object (an instance manifest, or a Composition's base) that its CRD or \
XRD schema, or a built-in kind's bundled schema, does not define, where the schema neither preserves unknown fields \
(`x-kubernetes-preserve-unknown-fields`) nor allows any key (`additionalProperties`). A custom \
resource's `metadata` is not checked (the API server owns it; a built-in kind's is, against \
Kubernetes' `ObjectMeta`), and an `x-kubernetes-embedded-resource` object also \
takes `apiVersion`, `kind` and `metadata`. The location is the unknown key.",
        why: "The API server prunes unknown fields silently: a misspelt field (`engin` for `engine`) is \
dropped on apply, and the setting the author meant never takes effect.",
        example_lang: "yaml",
        example: "spec:\n  forProvider:\n    engin: postgres   # schema-unknown-field: not in RDSInstance's schema",
        fix: "Correct the field's name or place, or remove it. If the schema is outdated, give the \
current CRD with `--schemas`.",
    },
    RuleDoc {
        rule: Rule::SchemaTypeMismatch,
        default_severity: Severity::Error,
        summary: "A value of the wrong JSON type for its schema",
        what: "A value whose JSON type (after Kubernetes' YAML 1.1 scalar rules: `1.2` is a number, \
`\"1.2\"` a string, `yes` a boolean) is not the schema's `type`. An integer fits a `number`; \
`x-kubernetes-int-or-string` takes both. Its enum, pattern and bounds are then not checked. The \
location is the value's key, or the item for a list item.",
        why: "The API server rejects the object, so the apply fails (or, in a Composition's base, the \
composed resource is never created).",
        example_lang: "yaml",
        example: "spec:\n  forProvider:\n    allocatedStorage: \"20\"   # schema-type-mismatch: must be integer, not string",
        fix: "Write the value with the schema's type: unquote numbers and booleans, quote strings \
that YAML would read as numbers or booleans.",
    },
    RuleDoc {
        rule: Rule::SchemaRequiredMissing,
        default_severity: Severity::Error,
        summary: "A field the schema requires is missing from an instance",
        what: "A field listed in the schema's `required` that the object does not have, where the \
schema gives it no `default` (defaults apply before `required`, as in the API server). A missing \
object is reported once, not also for its own required fields. The location is the key of the \
mapping that lacks the field (the item for a list item, the first key for the document root). In \
a Composition's base, `composition-required-field` reports this instead.",
        why: "The API server rejects the object.",
        example_lang: "yaml",
        example: "spec:\n  forProvider:   # schema-required-missing: `region` is required\n    dbInstanceClass: db.t3.micro",
        fix: "Add the field.",
    },
    RuleDoc {
        rule: Rule::SchemaInvalidValue,
        default_severity: Severity::Error,
        summary: "A value of the right type that breaks its schema's constraints",
        what: "A value that is not in the schema's `enum`, does not match its `pattern` (Go RE2, \
unanchored unless anchored), is below `minimum` / above `maximum`, has too few or too many \
characters or items, or breaks a `format` Kubernetes checks (`date-time`, `date`, `uuid`, `ipv4`, \
`ipv6`, `cidr`, `byte`). The location is the value's key, or the item for a list item.",
        why: "The API server rejects the object.",
        example_lang: "yaml",
        example: "spec:\n  compositionUpdatePolicy: Always   # schema-invalid-value: not one of Automatic, Manual",
        fix: "Use an allowed value.",
    },
    RuleDoc {
        rule: Rule::SchemaNotFound,
        default_severity: Severity::Warning,
        summary: "No schema is known for an object's type",
        what: "An instance, a Composition's `compositeTypeRef` or a base's kind whose API group and \
kind no known CRD/XRD defines, or whose version it does not list or does not serve. A warning in \
`loose` mode (the default; checks that need the schema are skipped), an error in `strict` mode \
(`--schema-mode`, `schema-mode:`, or a Composition's \
`crossplane.io/composition-schema-aware-validation-mode` annotation). Kubernetes' built-in kinds \
have bundled schemas (see `unknown-kind` for one the chosen version lacks); the few built-in \
groups driftlint bundles none for (`metrics.k8s.io`) are not flagged in loose mode. The location \
is the `kind:` line.",
        why: "An object without a schema is not validated at all: in strict mode that is a failure, in \
loose mode a reviewer should at least know.",
        example_lang: "yaml",
        example: "apiVersion: ec2.aws.upbound.io/v1beta1\nkind: SecurityGroup   # schema-not-found: no CRD or XRD defines it",
        fix: "Give the CRD or XRD with `--schemas PATH` (files, folders or `git:REV:PATH`) or \
`schemas:` in `.driftlint.yaml`, or fix a misspelt apiVersion or kind.",
    },
    RuleDoc {
        rule: Rule::SchemaCelViolation,
        default_severity: Severity::Error,
        summary: "An object breaks a CEL rule (`x-kubernetes-validations`) of its schema",
        what: "A rule of a CRD's or XRD's schema, at any level, that is false for the object, evaluated \
offline with Kubernetes' CEL environment (`self` bound to the value at the rule's level, `has()`, the \
Kubernetes CEL libraries: strings, lists, sets, regex, URLs, IPs, quantities, semver, named formats). The message is the \
rule's `message` (or its evaluated `messageExpression`), with its `reason`. The location is the \
value's key, or the field its `fieldPath` names. A rule that fails on the object (a field absent \
without `has()`, a division by zero, an invalid argument) is an error too, since the API server \
rejects the object; operands of types no overload takes are a warning (Kubernetes type-checks \
rules when the CRD is created, so the mismatch comes from driftlint's typing, such as a \
`date-time` string kept a string). A transition rule (`oldSelf`) or one that calls a function \
driftlint does not provide is a note, once per rule per run. A rule stopped by a cost budget is \
`schema-cel-budget`.",
        why: "The API server rejects the object (`crossplane beta validate` reports it too).",
        example_lang: "yaml",
        example: "spec:   # schema-cel-violation: replicas should be in between minReplicas and maxReplicas\n  replicas: 50\n  minReplicas: 3\n  maxReplicas: 10",
        fix: "Change the object so that the rule holds; the rule's text is in the message.",
    },
    RuleDoc {
        rule: Rule::SchemaCelBudget,
        default_severity: Severity::Error,
        summary: "CEL rules of an object's schema were not evaluated to the end: a cost budget ran out",
        what: "An object whose CEL rules (`x-kubernetes-validations`) spent a cost budget, counted in \
steps, never timed: one rule's evaluation over 1,000,000 steps (Kubernetes' per-expression \
`PerCallLimit`), at the value the rule is on; or all the rules of one object, on every level and \
list item, over 10,000,000 (Kubernetes' per-object `RuntimeCELCostBudget`), or all the rules of \
the run over 20,000,000 (driftlint's own bound, so that a repository cannot stall a CI job), \
once at the object's first key, naming the rules left unevaluated and where. Once the run's \
budget is spent, every later object with rules gets this finding.",
        why: "A rule that was not evaluated may be broken: the API server rejects an object whose \
rules exceed its budgets, and a run that stopped evaluating must not read as a clean one.",
        example_lang: "text",
        example: "error[schema-cel-budget]: CEL rule `self.items.all(a, self.items.all(b, a != b || a == b))` was not evaluated to the end on `spec`: it exceeded its cost budget of 1000000 steps (Kubernetes' per-expression limit)",
        fix: "Give the lists the rule iterates over fewer items, or the rule less work per item (the \
API server would refuse the object too). When the run's budget ran out on objects that are fine \
each, check them in smaller runs.",
    },
    RuleDoc {
        rule: Rule::UnknownKind,
        default_severity: Severity::Error,
        summary: "An apiVersion and kind that the chosen Kubernetes version does not serve",
        what: "An object of one of Kubernetes' own API groups (`v1`, `apps/v1`, `networking.k8s.io/v1`, \
…) whose kind the chosen Kubernetes version (`--kubernetes-version`, `kubernetes-version:`, by \
default the newest bundled one) does not have in that apiVersion: a misspelt kind (`Servce`), a \
kind in the wrong group (`v1 Deployment`), or an API version added after the chosen release. \
The help names the closest kinds. Whatever `--schema-mode` says, since the API server rejects \
the object. The location is the `kind:` line.",
        why: "`kubectl apply` fails with `no matches for kind`, after the change was merged; a linter \
that only skips unknown types lets the typo through with a green check.",
        example_lang: "yaml",
        example: "apiVersion: v1\nkind: Servce   # unknown-kind: did you mean `v1 Service`?",
        fix: "Correct the kind or apiVersion as suggested; if the cluster runs another Kubernetes \
version, say which with `--kubernetes-version`.",
    },
    RuleDoc {
        rule: Rule::RemovedApiVersion,
        default_severity: Severity::Error,
        summary: "An apiVersion of a built-in kind that Kubernetes has removed",
        what: "An object whose apiVersion Kubernetes served once but no longer serves in the chosen \
version (`extensions/v1beta1 Ingress`, `batch/v1beta1 CronJob`, `policy/v1beta1 \
PodSecurityPolicy`): the message names the Kubernetes version that removed it and the \
apiVersion that replaces it, from the bundled versions and, for older removals, from \
Kubernetes' deprecated API migration guide. The location is the `apiVersion:` line.",
        why: "The API server rejects the object outright; upgrading a cluster past the removal breaks \
every deploy of the file.",
        example_lang: "yaml",
        example: "apiVersion: extensions/v1beta1   # removed-api-version: removed in 1.22 (use networking.k8s.io/v1)\nkind: Ingress",
        fix: "Move to the replacement apiVersion and adapt the fields that changed (Kubernetes' \
deprecation guide lists them), or remove an object that has no replacement.",
    },
    RuleDoc {
        rule: Rule::SelectorMismatch,
        default_severity: Severity::Error,
        summary: "A workload's selector that is empty or does not select its own pod template",
        what: "A Deployment's, StatefulSet's, DaemonSet's or ReplicaSet's `spec.selector` (of a built-in \
kind, validated offline) that is empty, or whose `matchLabels` and `matchExpressions` the pod \
template's `spec.template.metadata.labels` do not satisfy. Mirrors the API server's \
`ValidateDeploymentSpec` and friends (\"`selector` does not match template `labels`\"). The \
location is the `selector:` key.",
        why: "The API server rejects the object; `kubectl apply` fails at deploy time, not in review.",
        example_lang: "yaml",
        example: "spec:\n  selector:   # selector-mismatch: `app: web` not met\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: api}",
        fix: "Make the selector and the template's labels agree (the selector of an existing workload is \
immutable: change the labels).",
    },
    RuleDoc {
        rule: Rule::DuplicateName,
        default_severity: Severity::Error,
        summary: "Two containers, volumes or ports of one object with the same name",
        what: "In a pod spec (a Pod, or the template of a workload, Job or CronJob): two containers with one \
name (init and ephemeral containers included), two volumes with one name, two ports of one \
container with one name; in a Service, two ports with one name. Mirrors the API server's \
\"Duplicate value\" validations. The location is the second `name`.",
        why: "The API server rejects the object; with a merge patch the second entry would silently replace \
the first.",
        example_lang: "yaml",
        example: "containers:\n  - name: web\n    image: nginx\n  - name: web      # duplicate-name\n    image: envoy",
        fix: "Give each its own name.",
    },
    RuleDoc {
        rule: Rule::InvalidName,
        default_severity: Severity::Error,
        summary: "An object, container or port name that Kubernetes does not accept",
        what: "`metadata.name` that is not a DNS-1123 subdomain (lowercase letters, digits, `-` and `.`, at \
most 253 characters), a DNS-1035 label for a Service, a DNS-1123 label for a Namespace (RBAC \
objects, which take path-segment names, are not checked); a container name that is no DNS-1123 \
label; a container port name that is no IANA service name (at most 15 characters, a letter \
among them); a Service port name that is no DNS-1123 label. Mirrors apimachinery's \
`IsDNS1123Subdomain`, `IsDNS1035Label`, `IsDNS1123Label` and `IsValidPortName`. The location \
is the name.",
        why: "The API server rejects the object.",
        example_lang: "yaml",
        example: "metadata:\n  name: Web_Frontend   # invalid-name: not a DNS-1123 subdomain",
        fix: "Use lowercase letters, digits and `-`.",
    },
    RuleDoc {
        rule: Rule::InvalidLabel,
        default_severity: Severity::Error,
        summary: "A label or annotation key or value that Kubernetes does not accept",
        what: "A label key (`[prefix/]name`: the prefix a DNS-1123 subdomain, the name at most 63 letters, \
digits, `-`, `_`, `.`, alphanumeric at both ends) or value (empty, or like a key's name) in \
`metadata.labels`, a pod template's labels or a selector's `matchLabels`, or an annotation key \
of the wrong syntax. Mirrors apimachinery's `IsQualifiedName` and `IsValidLabelValue`. The \
location is the key or the value.",
        why: "The API server rejects the object.",
        example_lang: "yaml",
        example: "labels:\n  tier: -frontend   # invalid-label: must start with a letter or digit",
        fix: "Shorten or respell the key or value; free text belongs in an annotation's value.",
    },
    RuleDoc {
        rule: Rule::InvalidPort,
        default_severity: Severity::Error,
        summary: "A port number, protocol or Service port that Kubernetes does not accept",
        what: "A `containerPort`, `port` or `targetPort` outside 1–65535 (a `hostPort` or `nodePort` may be 0), a \
`protocol` other than `TCP`, `UDP`, `SCTP`, a named `targetPort` that is no IANA service name, \
or a Service with several ports not all named. Mirrors the API server's port validations. The \
location is the value, or the port for a missing name.",
        why: "The API server rejects the object.",
        example_lang: "yaml",
        example: "ports:\n  - containerPort: 80800   # invalid-port: not a port number",
        fix: "Use a port number in range, one of the three protocols, and name every port of a Service with \
several.",
    },
    RuleDoc {
        rule: Rule::InvalidResources,
        default_severity: Severity::Error,
        summary: "A resource request or limit that is no quantity, or a request above its limit",
        what: "In a container's `resources`, a request or limit that is not a Kubernetes quantity (`500m`, \
`1.5`, `128Mi`, `1G`, `1e3`; not `1Gb` or `one`), a negative one, or a request above the \
limit of the same resource. Mirrors `resource.ParseQuantity` and the API server's \
\"must be less than or equal to limit\". The location is the value.",
        why: "The API server rejects the object; a unit typo (`Gb`) is a common cause of failed rollouts.",
        example_lang: "yaml",
        example: "resources:\n  requests: {memory: 1Gb}   # invalid-resources: not a quantity",
        fix: "Use a quantity with a Kubernetes suffix (`Ki`, `Mi`, `Gi`, `m`, `k`, `M`, `G`) and keep each \
request at most its limit.",
    },
    RuleDoc {
        rule: Rule::ImmutableFieldChanged,
        default_severity: Severity::Error,
        summary: "A field Kubernetes makes immutable changed between the base and the checked state",
        what: "Only in a scoped run (`--base`, `--staged`): an object of the base and of the checked state \
with the same API group, kind, namespace and name whose immutable field differs. The fields are \
the API server's: `spec.selector` of a Deployment, StatefulSet, DaemonSet or ReplicaSet; a \
StatefulSet's `serviceName`, `volumeClaimTemplates` and `podManagementPolicy`; a Job's \
`spec.selector` and `spec.template`; a Service's `spec.clusterIP`; a PersistentVolumeClaim's \
`spec.storageClassName` and `spec.accessModes`; the `data`, `binaryData` (and a Secret's \
`stringData`) and `immutable` of a Secret or ConfigMap whose base has `immutable: true`. A \
field set in both states with different values, or set in the base and removed, is a change; a \
field the base left to the server (`clusterIP`, `storageClassName`, a Job's `selector`) may be set. The location \
is the field in the checked state (its parent when it was removed); the message names the \
base's value.",
        why: "The API server rejects the update (\"field is immutable\"): `kubectl apply` fails at \
deploy time and the object has to be deleted and recreated, which for a workload is downtime \
and for a volume claim can lose its data.",
        example_lang: "yaml",
        example: "kind: Deployment\nspec:\n  selector:\n    matchLabels: {app: web-v2}   # immutable-field-changed: the base has {\"app\":\"web\"}",
        fix: "Keep the field as it was, or create the object under a new name and delete the old one \
(a reviewed recreation; suppress the finding with a reason where that is the plan).",
    },
    RuleDoc {
        rule: Rule::CompositionInvalid,
        default_severity: Severity::Error,
        summary: "A logical error in a Crossplane Composition",
        what: "The first level of Crossplane's composition validation, needing no schema: resources \
all named or all anonymous (all named with functions), unique names and pipeline steps, content \
for the mode, not both `writeConnectionSecretsToNamespace` and \
`publishConnectionDetailsWithStoreConfigRef`, the fields each patch, transform, readiness check \
and environment source type needs, known type names, declared patchSet names, compiling regular \
expressions (Go RE2), field paths that parse, a known mode annotation (`warn`, `loose`, \
`strict`). In `mode: Pipeline`, the same rules inside each function-patch-and-transform step's \
`Resources` input (every resource named; an input of another kind or version is an error); under \
Crossplane 2, no `mode: Resources`. A Composition with any such error gets no schema checks. The location is the bad value's key, or the mapping (or list item) \
that lacks a field.",
        why: "Crossplane's webhook rejects the Composition, or the composition fails at run time.",
        example_lang: "yaml",
        example: "patches:\n  - type: CombineFromComposite   # composition-invalid: needs combine\n    toFieldPath: spec.forProvider.dbName",
        fix: "Add the missing field or correct the value, as the message says.",
    },
    RuleDoc {
        rule: Rule::CompositionPatchPath,
        default_severity: Severity::Error,
        summary: "A Composition field path that the schema of its object does not have",
        what: "A patch's `fromFieldPath`, `toFieldPath` (defaulting to fromFieldPath) or combine \
variable, a connection detail's `fromFieldPath` or a readiness check's `fieldPath` that does not \
exist in the schema of the object it reads or writes: the XR (from its XRD, with Crossplane's \
standard fields) or the composed resource (from its CRD, or a built-in kind's bundled schema). `metadata` name, generateName, namespace, \
uid, labels and annotations are always known; environment paths are not checked. PatchSet patches \
are checked for each resource that uses them.",
        why: "A patch to a path that does not exist is rejected or never has an effect: a wrong-case \
`allocatedstorage` silently leaves the storage at its default.",
        example_lang: "yaml",
        example: "- fromFieldPath: spec.parameters.storageGB\n  toFieldPath: spec.forProvider.allocatedstorage   # composition-patch-path",
        fix: "Correct the path against the CRD/XRD (field names are case-sensitive).",
    },
    RuleDoc {
        rule: Rule::CompositionPatchType,
        default_severity: Severity::Error,
        summary: "A patch value whose type does not fit a transform or its destination",
        what: "The type of a patch's value, followed from its source field through its transforms: \
a transform that does not accept its input type (a `map` on an integer, `math` on a string, \
`convert` between types it cannot convert), reported at the transform; or a final type that does \
not fit the destination field (an integer into a boolean), reported at `toFieldPath`. An integer \
fits a number; unknown types are not judged. `math` keeps its input's numeric type.",
        why: "Crossplane fails to apply the patch at run time, and the composed resource stays \
without the value (or is not created).",
        example_lang: "yaml",
        example: "- fromFieldPath: spec.parameters.storageGB         # integer\n  toFieldPath: spec.forProvider.publiclyAccessible  # composition-patch-type: boolean",
        fix: "Patch a field of the right type, or add a `convert` transform.",
    },
    RuleDoc {
        rule: Rule::CompositionRequiredField,
        default_severity: Severity::Error,
        summary: "A field the composed resource requires is not set by its base or any patch",
        what: "The base of a Composition resource with every patch applied, checked against the \
composed resource's CRD: a required field that is neither in the base, nor defaulted, nor written \
by a patch is an error at the deepest base mapping on its path. A required field set only by \
patches whose XR source field is not itself required is a warning at each such patch's \
`toFieldPath`: a minimal XR leaves it empty. An XR field is guaranteed when every field on its \
path is required or has a schema `default`, and the XR's `spec.writeConnectionSecretToRef` is when \
the Composition sets `writeConnectionSecretsToNamespace` (Crossplane fills it in); no warning \
either for a required field of an object the base lacks and the schema defaults (upjet's \
`providerConfigRef: {name: default}`).",
        why: "The provider's API server rejects the composed resource, so the XR never becomes ready.",
        example_lang: "yaml",
        example: "base:\n  spec:\n    forProvider:   # composition-required-field: region\n      dbInstanceClass: db.t2.small",
        fix: "Set the field in the base, or patch it from an XR field that the XRD requires.",
    },
    RuleDoc {
        rule: Rule::CompositionSkipped,
        default_severity: Severity::Note,
        summary: "Composition checks skipped because functions decide its resources",
        what: "A `mode: Pipeline` step of a function other than function-patch-and-transform \
(go-templating, KCL, auto-ready, …): the function produces resources that cannot be seen \
offline, so the step is named in a note and nothing is looked up for it (patch-and-transform \
steps are checked like Resources mode). With the legacy `spec.functions` (Crossplane 1.11 to 1.13) the functions run after the \
patches and may set any field, so the rendered-base checks (unknown fields, types, required \
fields) are skipped; patch paths and types are still checked. The location is the step's \
`step:` or `functions:`. A note never fails a run.",
        why: "A clean result should not read as \"every check passed\" when some checks could not run.",
        example_lang: "yaml",
        example: "spec:\n  mode: Pipeline\n  pipeline:\n    - step: render   # composition-skipped: not checked\n      functionRef: {name: function-go-templating}",
        fix: "Nothing to fix. Validate what the functions render with `crossplane render` piped into \
`driftlint check -`.",
    },
    RuleDoc {
        rule: Rule::PolicyDeny,
        default_severity: Severity::Error,
        summary: "A Rego deny or violation rule fired on a manifest",
        what: "A policy given with `--policy` or `policies:` has a rule named `deny`, `violation` or \
`deny_*`/`violation_*` (conftest's convention) in a checked namespace (`main` unless `--namespace` \
says otherwise), and for this object (or, with `--combine`, for all objects together) it produced a \
message. The message is the finding's text. An object message with a `field` (`spec.replicas`, or a \
JSON pointer `/spec/containers/0/image`) is shown at that key; otherwise the finding is at the \
object's `kind:` line, and a combined finding at line 1 of the first manifest file. The rule's \
declaration in the `.rego` file is shown beside it. A result exempted by a policy `exception` rule \
is reported as suppressed, with the exception as the reason.",
        why: "A reference says what each object should look like; a policy says what must hold across \
objects and environments (\"every Deployment in prod has two replicas\", \"no hostPath\"). Platform \
teams keep such rules in Rego and run them with conftest; driftlint runs the same policies \
in-process, with findings at file and line, suppressions and every output format.",
        example_lang: "text",
        example: "# policy/deployment.rego\npackage main\n\ndeny_latest_tag contains msg if {\n  c := input.spec.template.spec.containers[_]\n  endswith(c.image, \":latest\")\n  msg := {\"msg\": sprintf(\"container %s uses a :latest image\", [c.name]), \"field\": \"spec.template.spec.containers\"}\n}\n\n$ driftlint check --policy policy/ manifests/\nerror[policy-deny]: container web uses a :latest image\n  --> manifests/web.yaml:12:7",
        fix: "Change the manifest so that the rule no longer fires. If the object is a justified \
exception, say so where reviewers see it: an `exception` rule in the policy \
(`exception contains rules if { input.metadata.name == \"legacy\"; rules := [\"latest_tag\"] }`), a \
`driftlint.io/ignore: \"policy-deny: reason\"` annotation, or an `ignore:` entry in \
`.driftlint.yaml`.",
    },
    RuleDoc {
        rule: Rule::PolicyWarn,
        default_severity: Severity::Warning,
        summary: "A Rego warn rule fired on a manifest",
        what: "Like `policy-deny`, for rules named `warn` or `warn_*`: the policy's authors consider \
the message advice rather than a failure. Locations, exceptions and suppressions work the same way.",
        why: "Warnings let a platform team roll out a new rule without failing every pull request at \
once, and flag practices that are allowed but questionable.",
        example_lang: "text",
        example: "# policy/resources.rego\npackage main\n\nwarn_no_limits contains msg if {\n  c := input.spec.template.spec.containers[_]\n  not c.resources.limits\n  msg := sprintf(\"container %s has no resource limits\", [c.name])\n}\n\n$ driftlint check --policy policy/ manifests/\nwarning[policy-warn]: container web has no resource limits\n  --> manifests/web.yaml:2:1",
        fix: "Follow the advice, or suppress the finding with a reason. To make warnings fail a run, \
use `--fail-level warning`, or set `rules: {policy-warn: error}`.",
    },
    RuleDoc {
        rule: Rule::PolicyError,
        default_severity: Severity::Error,
        summary: "A Rego policy does not compile or failed while it was evaluated",
        what: "A `.rego` module does not compile, or failed while it was evaluated. Compile-time \
errors come before any input is evaluated, with OPA's class: `rego_parse_error` (the module does \
not parse as Rego v1, the default, or as v0 with `--rego-version v0`; brackets nested deeper than \
14 levels), `rego_type_error` (an undefined function, a call with the wrong number of arguments, \
a built-in outside the capabilities: by default no network, environment, clock or randomness, so \
`http.send`, `time.now_ns` without `--now`, `rand.intn`), `rego_unsafe_var_error` / a variable \
used before its definition, `rego_recursion_error` (rules that depend on themselves), \
`rego_compile_error` (with `--strict`: unused imports and `:=` locals; deprecated built-ins; a \
data file that sets a value where a rule is). At evaluation: a complete rule produced two \
different values, a rule returned an object without a string `msg`, or a limit was reached (a \
query may run 5 seconds, a run's queries 300 seconds together; `numbers.range` and \
`array.concat` may produce a million elements, a `sprintf` field 100,000 characters). The location \
is the `.rego` file and line, else the rule being evaluated. The other passes of the check still \
run. A namespace given with `--namespace` that no module declares is reported as a warning of \
this rule. Built-in errors (`to_number(\"x\")`) are not errors: as in OPA by default, the \
expression is undefined.",
        why: "A policy that cannot run checks nothing: the run must not look clean because of it.",
        example_lang: "text",
        example: "error[policy-error]: rego_type_error: undefined function no_such_function\n  --> policy/main.rego:4:1",
        fix: "Fix the policy at the line shown; `driftlint policy eval --policies DIR --input FILE \
data.main.deny` evaluates one rule with one input to try it out.",
    },
    RuleDoc {
        rule: Rule::PolicyConflict,
        default_severity: Severity::Error,
        summary: "Fybrik config policies make conflicting decisions for a scenario",
        what: "`policy-cases:` names a directory of Fybrik EvaluatorInputs (`*.input.json` or \
`*.input.yaml`, with the infrastructure data in `data.json`/`data.yaml` beside them). For one of \
them the `adminconfig` policies' decisions for a capability cannot be merged: one requires \
deploying it and another forbids it, their cluster lists have no cluster in common, or they require \
different values of one module property. Fybrik would declare the configuration invalid. The \
finding is at the `config[...]` rules that made the conflicting decisions (found by their policy \
IDs), and names the scenario.",
        why: "Fybrik refuses to deploy a workload whose config policies conflict. Replaying the \
scenarios on every change of the policies shows the conflict in the pull request that introduces \
it, not in production.",
        example_lang: "text",
        example: "error[policy-conflict]: scenario `remote-read`: `copy`: one decision requires deploying it, another forbids it (copy-remote; copy-never)\n  --> policies/adminconfig/copy.rego:14:1",
        fix: "Restrict one of the rules (a narrower condition, a `policySetID`), or change the \
decisions so that they can be merged.",
    },
    RuleDoc {
        rule: Rule::PolicyDecisionChanged,
        default_severity: Severity::Error,
        summary: "Fybrik config policies decide a scenario differently from its expected decisions",
        what: "A scenario of `policy-cases:` has an expected file beside its input (`NAME.expected.json` \
or `.yaml`: an EvaluatorOutput, or its `ConfigDecisions` alone), and the policies now decide a \
capability differently: another deploy value, other clusters or module restrictions, a capability \
decided that was not, or one no longer decided. The finding is at the expected file and names the \
capability and both decisions.",
        why: "Expected decisions are the reviewed meaning of the policies. A change of the policies \
that changes a decision must be visible in review, together with the updated expectation.",
        example_lang: "text",
        example: "error[policy-decision-changed]: scenario `local-read`: `read` was deploy True, clusters [fra01]; now deploy True, clusters [fra01, fra02]\n  --> cases/local-read.expected.json:1:1",
        fix: "If the new decision is intended, update the expected file (`driftlint policy decide \
--policies … --data … --input NAME.input.json` prints it); otherwise fix the policy.",
    },
    RuleDoc {
        rule: Rule::AdmissionViolation,
        default_severity: Severity::Error,
        summary: "A ValidatingAdmissionPolicy, through a binding, rejects, warns about or audits an object",
        what: "A `ValidatingAdmissionPolicy` and a `ValidatingAdmissionPolicyBinding` among the checked \
files (or trusted locations) that the API server would apply to the object when it is created: \
the policy's `matchConstraints` and the binding's `matchResources` select it (resource rules for \
CREATE, `excludeResourceRules`, `namespaceSelector` against the Namespace objects of the repository, \
`objectSelector`), its `matchConditions` hold, and a `validations` expression is false for it (with \
`variables`, and `params` from the repository's parameter objects). The message is the validation's \
evaluated `messageExpression`, its `message`, or `failed expression: EXPR`, with its `reason`, and \
names the policy and the binding. The severity is the binding's `validationActions`: Deny an error, \
Warn a warning, Audit a note. An expression that fails on the object (a missing field, a bad \
argument) is a finding too when the policy's `failurePolicy` is `Fail` (the default), and nothing \
with `Ignore`.",
        why: "The API server rejects the object (Deny), or warns the user applying it (Warn): in a \
GitOps repository the sync fails after the merge, not in review.",
        example_lang: "text",
        example: "error[admission-violation]: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-prod' denied request: at most 5 replicas (reason: Invalid)\n  --> apps/web.yaml:1:1",
        fix: "Change the object so that the validation holds, or the policy or binding if the rule is \
wrong; the policy and binding are named in the message.",
    },
    RuleDoc {
        rule: Rule::AdmissionUndecided,
        default_severity: Severity::Note,
        summary: "A ValidatingAdmissionPolicy binding cannot be decided offline",
        what: "A binding whose policy driftlint cannot evaluate without the cluster, reported once per \
binding and reason at the binding: an expression that asks the `authorizer` or reads \
`request.userInfo`, a parameter object (`paramRef`) or a Namespace (for `namespaceSelector` or \
`namespaceObject`) that is not in the repository, namespaced objects without `metadata.namespace` \
under a namespace selector, a `policyName` whose policy is not in the repository. Also, at the \
object, a policy whose evaluation a cost budget stopped.",
        why: "The objects it would check are not checked; saying so keeps a policy from being \
silently skipped.",
        example_lang: "text",
        example: "note[admission-undecided]: ValidatingAdmissionPolicy 'limits' with binding 'limits' cannot be decided offline: no ReplicaLimit parameter in the repository named 'prod'\n  --> policies/binding.yaml:1:1",
        fix: "Add the parameter or Namespace objects to the repository (or the trusted locations), \
set `metadata.namespace` on the objects, or accept the note.",
    },
    RuleDoc {
        rule: Rule::AdmissionInvalid,
        default_severity: Severity::Error,
        summary: "A ValidatingAdmissionPolicy expression does not compile",
        what: "A `matchConditions`, `variables`, `validations` or `messageExpression` expression of a \
ValidatingAdmissionPolicy that does not parse, names an undeclared variable, or calls a function \
driftlint's CEL environment does not provide (the message says which). Objects the policy matches \
get an `admission-violation` for it under `failurePolicy: Fail`, as the API server fails them. \
Also a checked file's copy of a policy name that the trusted schema locations define: the trusted \
definition decides and the copy is not used.",
        why: "The API server type-checks policies and fails requests on an expression that does not \
compile. A policy name is one object in a cluster, and the platform's trusted policy is the one \
installed: a copy in the change under review must not loosen it.",
        example_lang: "text",
        example: "error[admission-invalid]: ValidatingAdmissionPolicy 'limits': validation `object.spec.replicas <`: the expression does not compile: …\n  --> policies/limits.yaml:1:1",
        fix: "Fix the expression; rename or remove a copy of a trusted policy.",
    },
];
