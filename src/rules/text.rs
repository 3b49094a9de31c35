//! The text of every rule's documentation, in `Rule::ALL` order (a uniform table).

use super::RuleDoc;
use crate::diagnostic::{Rule, Severity};

pub(super) static DOCS: [RuleDoc; 21] = [
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
        default_severity: Severity::Warning,
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
(a values file, a kustomization, a list of strings).",
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
        summary: "An input could not be read",
        what: "A file or directory that could not be read: missing, permission denied, not UTF-8.",
        why: "An input that was not read was not checked; reporting it keeps a run from passing by \
accident.",
        example_lang: "text",
        example: "manifests/secret.yaml: error[io-error]: cannot read manifests/secret.yaml: Permission denied",
        fix: "Make the file readable (and UTF-8), or leave it out of the inputs.",
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
metadata hash changed (an edited reference directory), or that the configuration names another \
reference than the lock. The location is the line of the lock that no longer holds.",
        why: "A check passes or fails against a reference; when the reference changes under the same \
name, the meaning of a green check changes without any change in the repository, and nobody \
reviewed it.",
        example_lang: "yaml",
        example: "# driftlint.lock\nversion: 1\nsource: git:refs/tags/reference-v4.18:reference\ncommit: 6f1c0e…   # reference-changed: now resolves to 93ab27…\nmetadata-hash: 2b9e41…",
        fix: "Find out why the reference changed. If the new reference is meant to be used, review it \
and run `driftlint reference pin` to record it (the lock's diff shows the change in review). If \
not, point `reference:` at the pinned commit (`git:6f1c0e…:reference`) or restore the tag.",
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
        example: "# policy/deployment.rego\npackage main\n\ndeny_latest_tag[msg] {\n  c := input.spec.template.spec.containers[_]\n  endswith(c.image, \":latest\")\n  msg := {\"msg\": sprintf(\"container %s uses a :latest image\", [c.name]), \"field\": \"spec.template.spec.containers\"}\n}\n\n$ driftlint check --policy policy/ manifests/\nerror[policy-deny]: container web uses a :latest image\n  --> manifests/web.yaml:12:7",
        fix: "Change the manifest so that the rule no longer fires. If the object is a justified \
exception, say so where reviewers see it: an `exception` rule in the policy \
(`exception[rules] { input.metadata.name == \"legacy\"; rules := [\"latest_tag\"] }`), a \
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
        example: "# policy/resources.rego\npackage main\n\nwarn_no_limits[msg] {\n  c := input.spec.template.spec.containers[_]\n  not c.resources.limits\n  msg := sprintf(\"container %s has no resource limits\", [c.name])\n}\n\n$ driftlint check --policy policy/ manifests/\nwarning[policy-warn]: container web has no resource limits\n  --> manifests/web.yaml:2:1",
        fix: "Follow the advice, or suppress the finding with a reason. To make warnings fail a run, \
use `--fail-level warning`, or set `rules: {policy-warn: error}`.",
    },
    RuleDoc {
        rule: Rule::PolicyError,
        default_severity: Severity::Error,
        summary: "A Rego policy does not compile or failed while it was evaluated",
        what: "A `.rego` module does not parse (Rego v0 and v1 syntax are both accepted), uses a \
variable nothing binds or a function that does not exist, a complete rule produced two different \
values, a rule returned an object without a string `msg`, or the evaluation ran into a limit (a \
query may run 5 seconds; `numbers.range` may produce a million elements). The location is the \
`.rego` file and line the engine names, else the rule being evaluated. The other passes of the \
check still run. A namespace given with `--namespace` that no module declares is reported as a \
warning of this rule. Built-in errors (`to_number(\"x\")`) are not errors: as in OPA by default, \
the expression is undefined.",
        why: "A policy that cannot run checks nothing: the run must not look clean because of it.",
        example_lang: "text",
        example: "error[policy-error]: use of undefined variable `level` is unsafe\n  --> policy/main.rego:4:1",
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
];
