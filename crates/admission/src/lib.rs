//! ValidatingAdmissionPolicies and their bindings, evaluated offline against the objects of a
//! repository as the API server would evaluate them when each object is created.
//!
//! [`check`] takes the objects that define the admission context (policies, bindings,
//! parameter objects, Namespaces, CRDs: the repository's, and any from trusted locations)
//! and the objects to check, and returns findings at each object's file and range, naming
//! the policy and the binding. The semantics are k8s.io/apiserver's
//! (`pkg/admission/plugin/policy/validating`, `…/policy/generic`, `…/webhook/predicates`):
//!
//! - a binding applies its policy (`spec.policyName`) to what both the policy's
//!   `matchConstraints` and the binding's `matchResources` select: resource rules for the
//!   operation CREATE, `excludeResourceRules`, `namespaceSelector` (a namespaced object's
//!   Namespace's labels, with the `kubernetes.io/metadata.name` label the API server adds;
//!   a Namespace its own; other cluster-scoped objects always match), `objectSelector`;
//! - then `matchConditions` (all must be true; an error follows `failurePolicy`);
//! - `variables` in order, each visible to the later ones as `variables.NAME`, evaluated
//!   once per object and parameter; an error in one is an error of the expressions using it;
//! - `paramKind`/`paramRef`: the parameter objects of that kind in the repository, by name
//!   or selector, in `paramRef.namespace` or else the object's own namespace; every one is
//!   evaluated (the object must pass each); none found → undecided (they may be in the
//!   cluster);
//! - each validation: false → its `messageExpression` (a non-empty string), `message`, or
//!   `failed expression: EXPR`; an error → with `failurePolicy: Fail` (the default) a
//!   finding, with `Ignore` none;
//! - `validationActions`: Deny → error, Warn → warning, Audit → note (the most severe when
//!   several are set).
//!
//! What cannot be decided offline — `authorizer`, `request.userInfo`, a parameter or
//! Namespace not in the repository, an object without `metadata.namespace` under a
//! namespace selector, a binding whose policy is not in the repository — is reported once
//! per binding and reason ([`Rule::AdmissionUndecided`]), never silently skipped. A policy
//! expression that does not compile is [`Rule::AdmissionInvalid`] at the policy, and an
//! evaluation error for the objects it matches. Evaluation spends the caller's
//! [`cost::Budget`] (each object starts its own).

mod matching;
pub mod pass;

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use driftlint_cel::{Bindings, CompileError, EvalError, Expression, cost};
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity, SourcePath};
use serde_json::{Value as Json, json};

pub use matching::{Kinds, Request, guess_resource};

/// One object and where it is.
#[derive(Clone, Debug)]
pub struct Object<'a> {
    pub value: &'a Json,
    pub path: &'a SourcePath,
    pub range: Option<Range<usize>>,
}

const GROUP: &str = "admissionregistration.k8s.io";

fn is(o: &Json, kind: &str) -> bool {
    o["kind"].as_str() == Some(kind)
        && o["apiVersion"].as_str().is_some_and(|v| v.split_once('/').is_some_and(|(g, _)| g == GROUP))
}

/// Variables of validations and message expressions.
const VALIDATION_VARS: &[&str] =
    &["object", "oldObject", "request", "params", "namespaceObject", "authorizer", "variables"];
/// Variables of `matchConditions` (no `variables`).
const CONDITION_VARS: &[&str] = &["object", "oldObject", "request", "params", "namespaceObject", "authorizer"];

/// Weighted bytes of policy expressions one [`check`] compiles
/// ([`driftlint_cel::compile_weight`]), as the schema pass bounds CRD rules per run: past it an
/// expression is not compiled (`admission-invalid`), so a repository of policies cannot make
/// compiling take minutes.
pub const MAX_COMPILE_BYTES: usize = 1 << 20;

/// Steps charged for matching one binding to one object (its rules and selectors), so that
/// bindings × objects is bounded by the run's budget as evaluation is.
pub const MATCH_STEPS: u64 = 10;

/// A policy's expressions, compiled.
struct Policy<'a> {
    name: String,
    at: Object<'a>,
    spec: &'a Json,
    conditions: Vec<(String, Result<Expression, String>)>,
    variables: Vec<(String, Result<Expression, String>)>,
    validations: Vec<Validation>,
    fail: bool,
    /// The first reason it cannot be decided offline, whatever the object.
    undecidable: Option<String>,
    /// Read from a trusted location.
    trusted: bool,
}

struct Validation {
    expression: Result<Expression, String>,
    text: String,
    message: Option<String>,
    message_expression: Option<Result<Expression, String>>,
    reason: Option<String>,
}

fn compile(text: &str, declared: &[&str], compiled: &mut usize) -> Result<Expression, String> {
    let weight = driftlint_cel::compile_weight(text);
    if *compiled + weight > MAX_COMPILE_BYTES {
        return Err(format!(
            "not compiled: the policies' CEL would be more than {} KiB to compile (a bound against runaway definitions)",
            MAX_COMPILE_BYTES >> 10
        ));
    }
    *compiled += weight;
    Expression::compile(text, declared).map_err(|e| match e {
        CompileError::Invalid(m) | CompileError::Unsupported(m) => m,
        CompileError::Transition => "a transition expression".to_string(),
    })
}

/// What evaluating policies found, and what could not be decided.
struct Run<'a, 'b> {
    out: Vec<Diagnostic>,
    /// (binding, reason) already reported.
    undecided: BTreeSet<(String, String)>,
    budget: &'b mut cost::Budget,
    namespaces: HashMap<&'a str, &'a Json>,
    context: &'a [Object<'a>],
}

impl Run<'_, '_> {
    fn undecided(&mut self, binding: &Object<'_>, binding_name: &str, policy: &str, reason: String) {
        if self.undecided.insert((binding_name.to_string(), reason.clone())) {
            self.out.push(
                Diagnostic::of(
                    Rule::AdmissionUndecided,
                    binding.path.clone(),
                    binding.range.clone(),
                    format!(
                        "ValidatingAdmissionPolicy '{policy}' with binding '{binding_name}' cannot be decided offline: {reason}"
                    ),
                )
                .with_object(cr_id(binding.value), None),
            );
        }
    }
}

/// kube-compare's CR id of an object (as [`driftlint_core::document::Identity::cr_id`]).
fn cr_id(o: &Json) -> String {
    let s = |v: &Json| v.as_str().unwrap_or_default().to_string();
    let (api, kind, ns, name) =
        (s(&o["apiVersion"]), s(&o["kind"]), s(&o["metadata"]["namespace"]), s(&o["metadata"]["name"]));
    if ns.is_empty() { format!("{api}_{kind}_{name}") } else { format!("{api}_{kind}_{ns}_{name}") }
}

/// Evaluates every binding of `context` on every object of `targets`.
pub fn check(context: &[Object<'_>], targets: &[Object<'_>], budget: &mut cost::Budget) -> Vec<Diagnostic> {
    check_trusting(context, 0, targets, budget)
}

/// [`check`], the first `trusted` objects of `context` from trusted locations (the configured
/// schema locations): a policy name they define is theirs, and a checked file's definition of
/// the same name is refused (`admission-invalid`) and never used — otherwise a pull request
/// could loosen a trusted policy by adding a copy beside its objects.
pub fn check_trusting(
    context: &[Object<'_>],
    trusted: usize,
    targets: &[Object<'_>],
    budget: &mut cost::Budget,
) -> Vec<Diagnostic> {
    let mut kinds = Kinds::default();
    let mut namespaces = HashMap::new();
    // Every definition of each policy name, in the order read.
    let mut policies: HashMap<&str, Vec<Policy<'_>>> = HashMap::new();
    let mut bindings = Vec::new();
    let mut out = Vec::new();
    let mut compiled = 0usize;
    for (i, o) in context.iter().enumerate() {
        let v = o.value;
        if v["kind"].as_str() == Some("CustomResourceDefinition") {
            kinds.learn(v);
        } else if v["kind"].as_str() == Some("Namespace") && v["apiVersion"].as_str() == Some("v1") {
            if let Some(n) = v["metadata"]["name"].as_str() {
                namespaces.insert(n, v);
            }
        } else if is(v, "ValidatingAdmissionPolicy") {
            if let Some(name) = v["metadata"]["name"].as_str() {
                let mut policy = compile_policy(name, o.clone(), &mut out, &mut compiled);
                policy.trusted = i < trusted;
                policies.entry(name).or_default().push(policy);
            }
        } else if is(v, "ValidatingAdmissionPolicyBinding") {
            // A binding defined twice with one name and spec (a copy per release channel, its
            // annotations aside) is one cluster object: evaluated once, so each violation is
            // reported once. Copies that differ are all evaluated: none hides the other's
            // findings.
            let same =
                |b: &&Object<'_>| b.value["metadata"]["name"] == v["metadata"]["name"] && b.value["spec"] == v["spec"];
            if !bindings.iter().any(|b| same(&b)) {
                bindings.push(o.clone());
            }
        }
    }
    for defined in policies.values_mut() {
        if defined.iter().any(|p| p.trusted) {
            for p in defined.iter().filter(|p| !p.trusted) {
                out.push(Diagnostic::error(
                    Rule::AdmissionInvalid,
                    p.at.path.clone(),
                    p.at.range.clone(),
                    format!(
                        "ValidatingAdmissionPolicy `{}` is defined in the trusted schema locations: this copy \
                         is not used",
                        driftlint_core::escape::text(&p.name)
                    ),
                ));
            }
            defined.retain(|p| p.trusted);
        }
    }
    let mut run = Run { out, undecided: BTreeSet::new(), budget, namespaces, context };
    let mut active = Vec::new();
    for b in &bindings {
        let binding_name = b.value["metadata"]["name"].as_str().unwrap_or_default().to_string();
        let spec = &b.value["spec"];
        let policy_name = spec["policyName"].as_str().unwrap_or_default();
        let Some(defined) = policies.get(policy_name) else {
            run.undecided(b, &binding_name, policy_name, "the policy is not in the repository".to_string());
            continue;
        };
        let mut decidable: Vec<&Policy<'_>> = Vec::new();
        for policy in defined {
            match &policy.undecidable {
                Some(reason) => run.undecided(b, &binding_name, policy_name, reason.clone()),
                None => decidable.push(policy),
            }
        }
        if !decidable.is_empty() {
            active.push((b, binding_name, decidable, severity(&spec["validationActions"])));
        }
    }
    let mut unchecked = 0usize;
    for target in targets {
        let request = kinds.request(target.value);
        if exempt(&request) || active.is_empty() {
            continue;
        }
        if run.budget.spent() == Some(cost::Limit::Run) {
            unchecked += 1;
            continue;
        }
        // One object's budget for every binding evaluated on it; its variables converted
        // once, when a first binding matches it.
        run.budget.start_object();
        let mut base = None;
        for (b, binding_name, defined, severity) in &active {
            run.budget.spend(MATCH_STEPS);
            let policy = nearest(defined, target.path);
            evaluate(&mut run, policy, b, binding_name, *severity, target, &request, &mut base);
        }
    }
    if unchecked > 0
        && let Some((b, _, _, _)) = active.first()
    {
        run.out.push(Diagnostic::of(
            Rule::AdmissionUndecided,
            b.path.clone(),
            b.range.clone(),
            format!(
                "{unchecked} objects were not checked against the ValidatingAdmissionPolicies: {}",
                driftlint_cel::budget_text(cost::Limit::Run)
            ),
        ));
    }
    run.out
}

/// Of the definitions of one policy name, the one an object at `path` meets. A name is one
/// object in a cluster: a repository that keeps a copy per release channel (gateway-api's
/// `safe-upgrades` policy in `config/crd/standard/` and `config/crd/experimental/`, which
/// differ) installs one of them beside that channel's objects, so an object is judged by the
/// definition nearest to it — the most leading directories shared with its file — as a
/// custom resource meets its nearest CRD; on a tie, the last read (a name defined once, or
/// copies side by side, behave as before).
///
/// The schema registry's `nearest` (crates/schema) differs in two ways. On a tie it takes the
/// first read: its candidates can be several configured (trusted) schemas, and the
/// configuration's order is a search path (the first location that defines a kind is used);
/// here trusted policies never meet checked copies ([`check_trusting`]), and among checked
/// copies the last read is what `kubectl apply -f` of the repository leaves in the cluster.
/// And it has a second key (a directory name shared further down: a CRD's release channel
/// serving `examples/standard/`) that this rule does not take up. Making the two one rule
/// would change which copy some objects meet in one crate or the other (objects outside both
/// copies' trees, or copies tied among checked files); none of the repositories checked so far
/// has such a case, and the tests pin each rule as it is:
/// `copies_at_the_same_distance_meet_the_last_read` (tests/api_server.rs) here,
/// `objects_meet_the_nearest_differing_definition` in the schema crate.
fn nearest<'p, 'a>(defined: &[&'p Policy<'a>], path: &SourcePath) -> &'p Policy<'a> {
    fn dir(p: &SourcePath) -> Vec<&std::ffi::OsStr> {
        match p {
            SourcePath::File(f) => f.parent().map(|d| d.iter().collect()).unwrap_or_default(),
            SourcePath::Stdin => Vec::new(),
        }
    }
    let here = dir(path);
    let shared = |p: &Policy<'_>| dir(p.at.path).iter().zip(&here).take_while(|(a, b)| a == b).count();
    defined.iter().copied().max_by_key(|p| shared(p)).unwrap_or(defined[defined.len() - 1])
}

/// What a pull request's change to the policies and bindings silences: the
/// `admission-violation` findings that the base's `context` gives on `targets` (the checked
/// state's objects) and the checked state's `context` does not — a binding removed, a policy
/// loosened, an action changed from Deny to Warn. Each is `config-weakened` at the object,
/// naming the base's policy and binding. Both evaluations spend `budget`.
pub fn silenced(
    base: &[Object<'_>],
    head: &[Object<'_>],
    targets: &[Object<'_>],
    budget: &mut cost::Budget,
) -> Vec<Diagnostic> {
    let key = |d: &Diagnostic| (d.primary.path.clone(), d.primary.range.clone(), d.message.clone(), d.severity);
    let now: std::collections::HashSet<_> =
        check(head, targets, budget).iter().filter(|d| d.rule == Rule::AdmissionViolation).map(key).collect();
    check(base, targets, budget)
        .into_iter()
        .filter(|d| d.rule == Rule::AdmissionViolation && !now.contains(&key(d)))
        .map(|d| {
            let mut out = Diagnostic::of(
                Rule::ConfigWeakened,
                d.primary.path.clone(),
                d.primary.range.clone(),
                format!(
                    "the change to the admission policies silences, at the base: {} [{}]",
                    d.message,
                    d.severity.as_str()
                ),
            );
            out.object = d.object.clone();
            out
        })
        .collect()
}

/// The admission configuration itself, which no policy applies to (apiserver's
/// `rules.IsExemptAdmissionConfigurationResource`, so that a policy cannot lock out its own
/// fix).
fn exempt(r: &Request) -> bool {
    r.group == GROUP
        && matches!(
            r.resource.as_str(),
            "validatingwebhookconfigurations"
                | "mutatingwebhookconfigurations"
                | "validatingadmissionpolicies"
                | "validatingadmissionpolicybindings"
                | "mutatingadmissionpolicies"
                | "mutatingadmissionpolicybindings"
        )
}

/// The severity of a binding's findings: its most severe action.
fn severity(actions: &Json) -> Severity {
    let actions: Vec<&str> =
        actions.as_array().map(|a| a.iter().filter_map(Json::as_str).collect()).unwrap_or_default();
    if actions.contains(&"Deny") {
        Severity::Error
    } else if actions.contains(&"Warn") {
        Severity::Warning
    } else {
        Severity::Note
    }
}

fn compile_policy<'a>(name: &str, at: Object<'a>, out: &mut Vec<Diagnostic>, compiled: &mut usize) -> Policy<'a> {
    let spec = &at.value["spec"];
    let mut invalid = Vec::new();
    let mut asks_authorizer = None;
    let mut compile_noted = |what: String, text: &str, vars: &[&str]| {
        let r = compile(text, vars, compiled);
        if let Err(e) = &r {
            // The authorizer's functions (`check`, `allowed`, …) are not in the environment:
            // such an expression is undecidable offline, not wrong.
            if text.contains("authorizer.") && !e.starts_with("not compiled") {
                asks_authorizer.get_or_insert_with(|| {
                    format!("`{}` asks the authorizer, which only the cluster has", one_line(text))
                });
            } else {
                invalid.push(format!("{what} `{}`: {e}", one_line(text)));
            }
        }
        r
    };
    let list = |v: &'a Json| v.as_array().map(Vec::as_slice).unwrap_or_default();
    let conditions = list(&spec["matchConditions"])
        .iter()
        .map(|c| {
            let n = c["name"].as_str().unwrap_or_default().to_string();
            let e = compile_noted(
                format!("matchCondition '{n}'"),
                c["expression"].as_str().unwrap_or_default(),
                CONDITION_VARS,
            );
            (n, e)
        })
        .collect();
    let variables = list(&spec["variables"])
        .iter()
        .map(|c| {
            let n = c["name"].as_str().unwrap_or_default().to_string();
            let e =
                compile_noted(format!("variable '{n}'"), c["expression"].as_str().unwrap_or_default(), VALIDATION_VARS);
            (n, e)
        })
        .collect();
    let validations = list(&spec["validations"])
        .iter()
        .map(|v| {
            let text = v["expression"].as_str().unwrap_or_default().to_string();
            Validation {
                expression: compile_noted("validation".to_string(), &text, VALIDATION_VARS),
                message: v["message"].as_str().filter(|m| !m.trim().is_empty()).map(str::to_string),
                message_expression: v["messageExpression"]
                    .as_str()
                    .filter(|m| !m.trim().is_empty())
                    .map(|m| compile_noted("messageExpression".to_string(), m, VALIDATION_VARS)),
                reason: v["reason"].as_str().map(str::to_string),
                text,
            }
        })
        .collect::<Vec<_>>();
    for e in &invalid {
        out.push(
            Diagnostic::of(
                Rule::AdmissionInvalid,
                at.path.clone(),
                at.range.clone(),
                format!("ValidatingAdmissionPolicy '{name}': {e}"),
            )
            .with_object(cr_id(at.value), None),
        );
    }
    let mut policy = Policy {
        name: name.to_string(),
        at,
        spec,
        conditions,
        variables,
        validations,
        fail: spec["failurePolicy"].as_str() != Some("Ignore"),
        undecidable: None,
        trusted: false,
    };
    policy.undecidable = asks_authorizer.or_else(|| undecidable(&policy));
    policy
}

/// Why a policy cannot be decided offline whatever the object: an expression asking the
/// authorizer, or the requesting user.
fn undecidable(p: &Policy<'_>) -> Option<String> {
    let exprs = p
        .conditions
        .iter()
        .map(|(_, e)| e)
        .chain(p.variables.iter().map(|(_, e)| e))
        .chain(p.validations.iter().flat_map(|v| std::iter::once(&v.expression).chain(v.message_expression.as_ref())))
        .filter_map(|e| e.as_ref().ok());
    for e in exprs {
        if e.uses("authorizer") {
            return Some(format!("`{}` asks the authorizer, which only the cluster has", one_line(e.source())));
        }
        if e.uses("request") && e.fields_of("request").iter().any(|f| f == "userInfo") {
            return Some(format!("`{}` reads the requesting user, which only a request has", one_line(e.source())));
        }
    }
    None
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `request` variable of a CREATE (no user: expressions reading it are undecidable; the
/// object is `object`, as in the API server's `CreateAdmissionRequest`).
fn request_json(r: &Request) -> Json {
    json!({
        "kind": {"group": r.group, "version": r.version, "kind": r.kind},
        "resource": {"group": r.group, "version": r.version, "resource": r.resource},
        "requestKind": {"group": r.group, "version": r.version, "kind": r.kind},
        "requestResource": {"group": r.group, "version": r.version, "resource": r.resource},
        "name": r.name,
        "namespace": r.namespace,
        "operation": "CREATE",
        "dryRun": false,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
    })
}

#[allow(clippy::too_many_arguments)]
fn evaluate(
    run: &mut Run<'_, '_>,
    policy: &Policy<'_>,
    binding: &Object<'_>,
    binding_name: &str,
    severity: Severity,
    target: &Object<'_>,
    request: &Request,
    base: &mut Option<Bindings>,
) {
    let bspec = &binding.value["spec"];
    let pspec = policy.spec;
    // matchConstraints, then the binding's matchResources (absent: what the policy matches).
    let constraints = &pspec["matchConstraints"];
    if constraints.is_null() {
        return;
    }
    let mut namespace_object: Option<&Json> = None;
    for (m, required) in [(constraints, true), (&bspec["matchResources"], false)] {
        if m.is_null() && !required {
            continue;
        }
        let exact = m["matchPolicy"].as_str() == Some("Exact");
        let has_rules = m["resourceRules"].as_array().is_some_and(|a| !a.is_empty());
        if (required || has_rules) && !matching::rules_match(&m["resourceRules"], request, exact) {
            return;
        }
        if matching::rules_match(&m["excludeResourceRules"], request, exact) {
            return;
        }
        if matching::selector_matches(&m["objectSelector"], &target.value["metadata"]["labels"]) != Some(true) {
            return;
        }
        let selector = &m["namespaceSelector"];
        if request.namespaced {
            if request.namespace.is_empty() {
                if !matching::selects_all(selector) {
                    run.undecided(
                        binding,
                        binding_name,
                        &policy.name,
                        "objects without `metadata.namespace` and a namespace selector: their namespace is chosen when they are applied".to_string(),
                    );
                    return;
                }
            } else {
                let ns = run.namespaces.get(request.namespace.as_str()).copied();
                namespace_object = ns;
                if !matching::selects_all(selector) {
                    let Some(ns) = ns else {
                        run.undecided(
                            binding,
                            binding_name,
                            &policy.name,
                            format!(
                                "Namespace '{}' is not in the repository, and the namespace selector needs its labels",
                                request.namespace
                            ),
                        );
                        return;
                    };
                    if matching::selector_matches(selector, &namespace_labels(ns)) != Some(true) {
                        return;
                    }
                }
            }
        } else if request.kind == "Namespace"
            && !matching::selects_all(selector)
            && matching::selector_matches(selector, &namespace_labels(target.value)) != Some(true)
        {
            return;
        }
    }
    // Parameters.
    let params: Vec<Json> = match pspec.get("paramKind").filter(|k| !k.is_null()) {
        None => vec![Json::Null],
        Some(kind) => match find_params(run.context, kind, &bspec["paramRef"], request) {
            Ok(found) if found.is_empty() => {
                if bspec["paramRef"]["parameterNotFoundAction"].as_str() == Some("Allow") {
                    // Allow: nothing to validate when no parameter exists, here or in the cluster.
                    return;
                }
                run.undecided(
                    binding,
                    binding_name,
                    &policy.name,
                    format!(
                        "no {} parameter in the repository{}",
                        kind["kind"].as_str().unwrap_or("?"),
                        describe_ref(&bspec["paramRef"], request)
                    ),
                );
                return;
            }
            Ok(found) => found.into_iter().cloned().collect(),
            Err(e) => {
                Verdict { policy, binding_name, severity, target }.fail(run, &e);
                return;
            }
        },
    };
    if namespace_object.is_none() && request.namespaced && uses_namespace(policy) {
        let reason = if request.namespace.is_empty() {
            "objects without `metadata.namespace`, and the policy reads `namespaceObject`".to_string()
        } else {
            format!(
                "Namespace '{}' is not in the repository, and the policy reads `namespaceObject`",
                request.namespace
            )
        };
        run.undecided(binding, binding_name, &policy.name, reason);
        return;
    }
    let base = base.get_or_insert_with(|| {
        let mut b = Bindings::default();
        b.json("object", target.value);
        b.json("oldObject", &Json::Null);
        b.json("request", &request_json(request));
        b.json("namespaceObject", namespace_object.unwrap_or(&Json::Null));
        b
    });
    let verdict = Verdict { policy, binding_name, severity, target };
    for param in &params {
        // Each binding and parameter replaces the last one's `params` and `variables`.
        let b = &mut *base;
        b.json("params", param);
        if !conditions_hold(run, &verdict, b) {
            continue;
        }
        let variables = evaluate_variables(run, policy, b);
        for v in &policy.validations {
            validate(run, &verdict, b, &variables, v);
        }
    }
}

fn namespace_labels(ns: &Json) -> Json {
    let mut labels = ns["metadata"]["labels"].as_object().cloned().unwrap_or_default();
    if let Some(name) = ns["metadata"]["name"].as_str() {
        labels.insert("kubernetes.io/metadata.name".to_string(), Json::String(name.to_string()));
    }
    Json::Object(labels)
}

fn uses_namespace(p: &Policy<'_>) -> bool {
    p.conditions
        .iter()
        .map(|(_, e)| e)
        .chain(p.variables.iter().map(|(_, e)| e))
        .chain(p.validations.iter().flat_map(|v| std::iter::once(&v.expression).chain(v.message_expression.as_ref())))
        .any(|e| e.as_ref().is_ok_and(|e| e.uses("namespaceObject")))
}

fn describe_ref(r: &Json, request: &Request) -> String {
    let ns = r["namespace"].as_str().map(str::to_string).unwrap_or_else(|| request.namespace.clone());
    let at = if ns.is_empty() { String::new() } else { format!(" in namespace '{ns}'") };
    match r["name"].as_str() {
        Some(n) => format!(" named '{n}'{at}"),
        None => format!(" matching the binding's selector{at}"),
    }
}

/// The parameter objects a binding's `paramRef` selects among `context`.
fn find_params<'a>(
    context: &'a [Object<'a>],
    kind: &Json,
    r: &Json,
    request: &Request,
) -> Result<Vec<&'a Json>, String> {
    if r.is_null() {
        return Err("the policy has a paramKind but the binding no paramRef".to_string());
    }
    let (api, k) = (kind["apiVersion"].as_str().unwrap_or_default(), kind["kind"].as_str().unwrap_or_default());
    let ns = r["namespace"].as_str().map(str::to_string).unwrap_or_else(|| request.namespace.clone());
    let mut found = Vec::new();
    for o in context {
        let v = o.value;
        if v["apiVersion"].as_str() != Some(api) || v["kind"].as_str() != Some(k) {
            continue;
        }
        let own_ns = v["metadata"]["namespace"].as_str().unwrap_or_default();
        if !ns.is_empty() && !own_ns.is_empty() && own_ns != ns {
            continue;
        }
        let selected = match r["name"].as_str() {
            Some(n) => v["metadata"]["name"].as_str() == Some(n),
            None => matching::selector_matches(&r["selector"], &v["metadata"]["labels"]) == Some(true),
        };
        if selected {
            found.push(v);
        }
    }
    Ok(found)
}

/// Whether every match condition holds (an error: `failurePolicy`).
fn conditions_hold(run: &mut Run<'_, '_>, verdict: &Verdict<'_>, b: &Bindings) -> bool {
    for (name, e) in &verdict.policy.conditions {
        let result = match e {
            Ok(e) => e.evaluate(b, run.budget),
            Err(m) => Err(EvalError::Error(m.clone())),
        };
        match result {
            Ok(driftlint_cel::Value::Bool(true)) => {}
            Ok(driftlint_cel::Value::Bool(false)) => return false,
            Ok(other) => {
                verdict.fail(run, &format!("matchCondition '{name}' gave {}, not a bool", other.type_of()));
                return false;
            }
            Err(EvalError::OverBudget(limit)) => {
                verdict.over_budget(run, limit);
                return false;
            }
            Err(e) => {
                verdict.fail(run, &format!("matchCondition '{name}' resulted in error: {e}"));
                return false;
            }
        }
    }
    true
}

/// Evaluates the variables in order into `variables`; the errors by name.
fn evaluate_variables(run: &mut Run<'_, '_>, policy: &Policy<'_>, b: &mut Bindings) -> HashMap<String, String> {
    let mut values = std::collections::HashMap::new();
    let mut errors: HashMap<String, String> = HashMap::new();
    for (name, e) in &policy.variables {
        b.value("variables", driftlint_cel::map_value(&values));
        let used_failed =
            e.as_ref().ok().and_then(|e| e.fields_of("variables").into_iter().find(|f| errors.contains_key(f)));
        let result = match (e, used_failed) {
            (_, Some(f)) => Err(errors[&f].clone()),
            (Ok(e), None) => e.evaluate(b, run.budget).map_err(|e| e.to_string()),
            (Err(m), None) => Err(m.clone()),
        };
        match result {
            Ok(v) => {
                values.insert(name.clone(), v);
            }
            Err(m) => {
                errors.insert(name.clone(), format!("variable '{name}': {m}"));
            }
        }
    }
    b.value("variables", driftlint_cel::map_value(&values));
    errors
}

fn validate(
    run: &mut Run<'_, '_>,
    verdict: &Verdict<'_>,
    b: &Bindings,
    variable_errors: &HashMap<String, String>,
    v: &Validation,
) {
    let text = one_line(&v.text);
    let e = match &v.expression {
        Ok(e) => e,
        Err(m) => return verdict.fail(run, &format!("expression '{text}' does not compile: {m}")),
    };
    if let Some(err) = e.fields_of("variables").iter().find_map(|f| variable_errors.get(f)) {
        return verdict.fail(run, &format!("expression '{text}' resulted in error: {err}"));
    }
    match e.evaluate(b, run.budget) {
        Ok(driftlint_cel::Value::Bool(true)) => {}
        Ok(driftlint_cel::Value::Bool(false)) => {
            let message = message(run, v, b);
            let reason = v.reason.as_deref().unwrap_or("Invalid");
            verdict.finding(run, &format!("{message} (reason: {reason})"));
        }
        Ok(other) => verdict.fail(run, &format!("expression '{text}' gave {}, not a bool", other.type_of())),
        Err(EvalError::OverBudget(limit)) => verdict.over_budget(run, limit),
        Err(err) => verdict.fail(run, &format!("expression '{text}' resulted in error: {err}")),
    }
}

/// A failed validation's message: the `messageExpression`'s non-empty string, else
/// `message`, else `failed expression: EXPR` (the API server's order).
fn message(run: &mut Run<'_, '_>, v: &Validation, b: &Bindings) -> String {
    if let Some(Ok(m)) = &v.message_expression
        && let Ok(driftlint_cel::Value::String(s)) = m.evaluate(b, run.budget)
        && !s.trim().is_empty()
    {
        return one_line(&s).chars().take(driftlint_cel::MAX_MESSAGE_CHARS).collect();
    }
    match &v.message {
        Some(m) => m.clone(),
        None => format!("failed expression: {}", one_line(&v.text)),
    }
}

/// What a policy under one binding says about one object: the findings of an evaluation.
struct Verdict<'a> {
    policy: &'a Policy<'a>,
    binding_name: &'a str,
    /// From the binding's `validationActions`.
    severity: Severity,
    target: &'a Object<'a>,
}

impl Verdict<'_> {
    /// An evaluation error: a finding with `failurePolicy: Fail`, nothing with `Ignore`.
    fn fail(&self, run: &mut Run<'_, '_>, error: &str) {
        if self.policy.fail {
            self.finding(run, &format!("{error} (failurePolicy: Fail)"));
        }
    }

    fn finding(&self, run: &mut Run<'_, '_>, message: &str) {
        let verb = match self.severity {
            Severity::Error => "denied request",
            Severity::Warning => "warns",
            Severity::Note => "audit",
        };
        let (policy, target) = (self.policy, self.target);
        run.out.push(
            Diagnostic::new(
                Rule::AdmissionViolation,
                self.severity,
                target.path.clone(),
                target.range.clone(),
                format!(
                    "ValidatingAdmissionPolicy '{}' with binding '{}' {verb}: {message}",
                    policy.name, self.binding_name
                ),
            )
            .with_secondary(policy.at.path.clone(), policy.at.range.clone(), "the policy")
            .with_object(cr_id(target.value), None),
        );
    }

    fn over_budget(&self, run: &mut Run<'_, '_>, limit: cost::Limit) {
        let target = self.target;
        run.out.push(
            Diagnostic::of(
                Rule::AdmissionUndecided,
                target.path.clone(),
                target.range.clone(),
                format!(
                    "ValidatingAdmissionPolicy '{}' with binding '{}' was not evaluated to the end: {}",
                    self.policy.name,
                    self.binding_name,
                    driftlint_cel::budget_text(limit)
                ),
            )
            .with_object(cr_id(target.value), None),
        );
    }
}
