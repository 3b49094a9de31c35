//! Fybrik's config-policy evaluator: `data.adminconfig.config` evaluated for one
//! `EvaluatorInput`, its decisions filtered by policy set and merged per capability into an
//! `EvaluatorOutput`, a conflict making it `Valid: false`.
//!
//! The shapes and merge rules are those of `shared/conformance/fybrik/README.md` (Fybrik's
//! seed design and first Rego evaluator): deploy require/forbid/allow, cluster lists
//! intersected (empty = conflict), module restrictions united (a key with two values =
//! conflict), policy IDs and descriptions joined with `;`, the first policySetID kept.

use std::collections::BTreeMap;

use regorus::Value as Rego;
use serde_json::{Map, Value, json};

use super::{Policies, PolicyError};

/// The query Fybrik evaluates.
pub const QUERY: &str = "data.adminconfig.config";

/// `deploy` as Kubernetes' `ConditionStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deploy {
    True,
    False,
    Unknown,
}

impl Deploy {
    pub fn as_str(self) -> &'static str {
        match self {
            Deploy::True => "True",
            Deploy::False => "False",
            Deploy::Unknown => "Unknown",
        }
    }
}

/// A decision's policy: who decided, in which policy set, why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    pub id: String,
    pub set: String,
    pub description: String,
}

/// One capability's decision (or several merged).
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub deploy: Deploy,
    /// `None`: any cluster.
    pub clusters: Option<Vec<Value>>,
    pub modules: Map<String, Value>,
    pub policy: Policy,
}

/// Why a merge failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub capability: String,
    pub reason: String,
    /// The IDs of the decisions already merged, and of the one that conflicted with them.
    pub stored_ids: Vec<String>,
    pub new_id: String,
}

/// The evaluator's result.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Decisions per capability, in order of first appearance (merged up to a conflict).
    pub decisions: Vec<(String, Decision)>,
    pub conflict: Option<Conflict>,
}

/// Evaluates the policies for `input` (an EvaluatorInput) and merges the decisions.
pub fn decide(policies: &mut Policies, input: &Value) -> Result<Outcome, PolicyError> {
    let rego_input = super::engine::to_value(input).map_err(|message| PolicyError::Data { message })?;
    let config = policies.query(QUERY, Some(rego_input))?.ok_or_else(|| PolicyError::Shape {
        message: format!("`{QUERY}` is undefined: no policy declares `config` in package `adminconfig`"),
    })?;
    let Rego::Set(elements) = &config else {
        return Err(shape(format!("`{QUERY}` must be a set of {{capability: decision}} objects")));
    };
    let workload_set = str_at(input, &["workload", "policySetID"]);
    let mut decisions: Vec<(String, Decision)> = Vec::new();
    for element in elements.iter() {
        let element = super::engine::to_json(element);
        let Value::Object(caps) = element else {
            return Err(shape(format!("a `config` element must be an object, not `{element}`")));
        };
        for (capability, raw) in caps {
            let decision = parse_decision(&capability, &raw)?;
            if !decision.policy.set.is_empty() && !workload_set.is_empty() && decision.policy.set != workload_set {
                continue;
            }
            match decisions.iter_mut().find(|(c, _)| *c == capability) {
                None => decisions.push((capability, decision)),
                Some((_, stored)) => {
                    if let Err(reason) = merge(stored, &decision) {
                        let conflict = Conflict {
                            capability,
                            reason,
                            stored_ids: split_ids(&stored.policy.id),
                            new_id: decision.policy.id.clone(),
                        };
                        return Ok(Outcome { decisions, conflict: Some(conflict) });
                    }
                }
            }
        }
    }
    Ok(Outcome { decisions, conflict: None })
}

/// The `EvaluatorOutput` JSON for `outcome` (field names as Fybrik's Go structs have them).
pub fn to_output(input: &Value, outcome: &Outcome) -> Value {
    let mut decisions = Map::new();
    for (capability, d) in &outcome.decisions {
        decisions.insert(capability.clone(), decision_json(d));
    }
    json!({
        "Valid": outcome.conflict.is_none(),
        "DatasetID": str_at(input, &["request", "datasetID"]),
        "UUID": str_at(input, &["workload", "uuid"]),
        "PolicySetID": str_at(input, &["workload", "policySetID"]),
        "ConfigDecisions": decisions,
    })
}

/// One decision as JSON (`deploy`, `restrictions`, `policy`).
pub fn decision_json(d: &Decision) -> Value {
    let mut restrictions = Map::new();
    if let Some(clusters) = &d.clusters {
        restrictions.insert("clusters".into(), Value::Array(clusters.clone()));
    }
    if !d.modules.is_empty() {
        restrictions.insert("modules".into(), Value::Object(d.modules.clone()));
    }
    json!({
        "deploy": d.deploy.as_str(),
        "restrictions": restrictions,
        "policy": {"ID": d.policy.id, "policySetID": d.policy.set, "description": d.policy.description},
    })
}

/// Reads a decision, checking its shape. A `null` field counts as absent.
fn parse_decision(capability: &str, raw: &Value) -> Result<Decision, PolicyError> {
    let at = |what: &str| format!("the decision for `{capability}`: {what}");
    let Value::Object(d) = raw else { return Err(shape(at(&format!("must be an object, not `{raw}`")))) };
    let deploy = match d.get("deploy") {
        None | Some(Value::Null) => Deploy::Unknown,
        Some(Value::Bool(true)) => Deploy::True,
        Some(Value::Bool(false)) => Deploy::False,
        // Fybrik's evaluator read decisions through a YAML round-trip: it took these too.
        Some(Value::String(s)) if s == "true" => Deploy::True,
        Some(Value::String(s)) if s == "false" => Deploy::False,
        Some(Value::String(s)) if s.is_empty() => Deploy::Unknown,
        Some(other) => return Err(shape(at(&format!("`deploy` must be a boolean, not `{other}`")))),
    };
    let policy = match d.get("policy") {
        None | Some(Value::Null) => Policy::default(),
        Some(Value::Object(p)) => {
            let field = |k: &str| match p.get(k) {
                Some(Value::String(s)) => s.clone(),
                None | Some(Value::Null) => String::new(),
                Some(other) => other.to_string(),
            };
            Policy { id: field("ID"), set: field("policySetID"), description: field("description") }
        }
        Some(other) => return Err(shape(at(&format!("`policy` must be an object, not `{other}`")))),
    };
    let (mut clusters, mut modules) = (None, Map::new());
    match d.get("restrictions") {
        None | Some(Value::Null) => {}
        Some(Value::Object(r)) => {
            match r.get("clusters") {
                None | Some(Value::Null) => {}
                Some(Value::Array(list)) => clusters = Some(list.clone()),
                Some(other) => return Err(shape(at(&format!("`clusters` must be a list, not `{other}`")))),
            }
            match r.get("modules") {
                None | Some(Value::Null) => {}
                Some(Value::Object(m)) => modules = m.clone(),
                Some(other) => return Err(shape(at(&format!("`modules` must be an object, not `{other}`")))),
            }
        }
        Some(other) => return Err(shape(at(&format!("`restrictions` must be an object, not `{other}`")))),
    }
    Ok(Decision { deploy, clusters, modules, policy })
}

/// Merges `new` into `stored`; `Err` names the conflict (and leaves `stored` partly merged,
/// as Fybrik's evaluator does).
pub fn merge(stored: &mut Decision, new: &Decision) -> Result<(), String> {
    stored.deploy = match (stored.deploy, new.deploy) {
        (Deploy::Unknown, x) | (x, Deploy::Unknown) => x,
        (a, b) if a == b => a,
        _ => return Err("one decision requires deploying it, another forbids it".into()),
    };
    if let Some(list) = &new.clusters {
        stored.clusters = Some(match stored.clusters.take() {
            None => list.clone(),
            Some(old) => {
                let both: Vec<Value> = old.iter().filter(|c| list.contains(c)).cloned().collect();
                if both.is_empty() {
                    return Err(format!(
                        "the cluster restrictions {} and {} have no cluster in common",
                        Value::Array(old),
                        Value::Array(list.clone())
                    ));
                }
                both
            }
        });
    }
    for (k, v) in &new.modules {
        match stored.modules.get(k) {
            Some(old) if old != v => {
                return Err(format!("module restriction `{k}` is {old} in one decision and {v} in another"));
            }
            Some(_) => {}
            None => {
                stored.modules.insert(k.clone(), v.clone());
            }
        }
    }
    join(&mut stored.policy.id, &new.policy.id);
    join(&mut stored.policy.description, &new.policy.description);
    Ok(())
}

fn join(into: &mut String, part: &str) {
    if into.is_empty() {
        *into = part.to_string();
    } else {
        into.push(';');
        into.push_str(part);
    }
}

fn split_ids(ids: &str) -> Vec<String> {
    ids.split(';').filter(|s| !s.is_empty()).map(str::to_string).collect()
}

fn shape(message: String) -> PolicyError {
    PolicyError::Shape { message }
}

/// The string at `path` in `v`, `""` when missing or not a string.
fn str_at(v: &Value, path: &[&str]) -> String {
    path.iter().try_fold(v, |v, k| v.get(k)).and_then(Value::as_str).unwrap_or("").to_string()
}

/// Decisions as a map by capability (for comparing with expected results).
pub fn decisions_map(outcome: &Outcome) -> BTreeMap<String, Value> {
    outcome.decisions.iter().map(|(c, d)| (c.clone(), decision_json(d))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(deploy: Deploy, clusters: Option<&[&str]>, id: &str) -> Decision {
        Decision {
            deploy,
            clusters: clusters.map(|c| c.iter().map(|s| json!(s)).collect()),
            modules: Map::new(),
            policy: Policy { id: id.into(), ..Policy::default() },
        }
    }

    #[test]
    fn deploy_merges_and_conflicts() {
        let mut a = decision(Deploy::Unknown, None, "a");
        merge(&mut a, &decision(Deploy::True, None, "b")).unwrap();
        assert_eq!((a.deploy, a.policy.id.as_str()), (Deploy::True, "a;b"));
        assert!(merge(&mut a, &decision(Deploy::False, None, "c")).is_err());
    }

    #[test]
    fn clusters_intersect_and_empty_is_conflict() {
        let mut a = decision(Deploy::Unknown, Some(&["x", "y"]), "");
        merge(&mut a, &decision(Deploy::Unknown, None, "b")).unwrap();
        assert_eq!(a.policy.id, "b", "no `;` after an empty ID");
        merge(&mut a, &decision(Deploy::Unknown, Some(&["y", "z"]), "c")).unwrap();
        assert_eq!(a.clusters, Some(vec![json!("y")]));
        assert!(merge(&mut a, &decision(Deploy::Unknown, Some(&[]), "d")).is_err());
        let mut empty = decision(Deploy::Unknown, Some(&[]), "e");
        merge(&mut empty, &decision(Deploy::Unknown, None, "f")).unwrap();
        assert_eq!(empty.clusters, Some(vec![]));
    }

    #[test]
    fn shape_errors_name_the_field() {
        let e = parse_decision("read", &json!({"deploy": 1})).unwrap_err();
        assert!(e.to_string().contains("`deploy` must be a boolean"), "{e}");
        let e = parse_decision("read", &json!({"restrictions": {"clusters": "a"}})).unwrap_err();
        assert!(e.to_string().contains("`clusters` must be a list"), "{e}");
    }
}
