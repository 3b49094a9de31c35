//! kube-compare's own template functions (`pkg/compare/funcmap.go`): the Helm-like
//! `toYaml`/`fromYaml`/`fromYamlArray`/`toJson`/`fromJson`/`fromJsonArray`/`toToml`, the
//! cluster lookups `lookupCR`/`lookupCRs`, `doNotMatch`; and Sprig's JSON helpers
//! (`toPrettyJson`, `toRawJson`, `mustToJson`, `mustToPrettyJson`, `mustToRawJson`,
//! `mustFromJson`), which share the encoder.
//!
//! kube-compare's functions never fail: a marshalling error gives `""`, a parse error is put
//! *into* the result (`{"Error": msg}` or `[msg]`), so the exact Go error texts are visible in
//! rendered output. The Sprig `must*` variants and `toRawJson` do fail. `toJson`/`fromJson`
//! registered here replace Sprig's because this module registers last.

pub(super) mod json;
mod toml;
mod yaml;

use std::collections::BTreeMap;

use super::{Ctx, Param, Registry};
use crate::value::{FuncError, Type, Value};

const S: Param = Param::String;
const A: Param = Param::Any;

type R = Result<Value, FuncError>;

pub(super) fn register(r: &mut Registry) {
    r.add("toYaml", &[A], None, |_, a| Ok(Value::str(yaml::to_yaml(arg(a, 0)))));
    r.add("fromYaml", &[S], None, |_, a| Ok(yaml::from_yaml(arg_str(a, 0))));
    r.add("fromYamlArray", &[S], None, |_, a| Ok(yaml::from_yaml_array(arg_str(a, 0))));
    r.add("toJson", &[A], None, |_, a| {
        Ok(Value::str(json::marshal(arg(a, 0), json::Style::MARSHAL).unwrap_or_default()))
    });
    r.add("fromJson", &[S], None, |_, a| Ok(from_json(arg_str(a, 0))));
    r.add("fromJsonArray", &[S], None, |_, a| Ok(from_json_array(arg_str(a, 0))));
    r.add("toToml", &[A], None, to_toml);
    r.add("lookupCRs", &[S, S, S, S], None, |c, a| Ok(lookup_crs(c, a)));
    r.add("lookupCR", &[S, S, S, S], None, lookup_cr);
    r.add("doNotMatch", &[S], None, |_, a| Err(FuncError::DoNotMatch(arg_str(a, 0).to_string())));

    // Sprig v3 (`defaults.go`): the plain forms swallow errors, except toRawJson, which panics.
    r.add("toPrettyJson", &[A], None, |_, a| {
        Ok(Value::str(json::marshal(arg(a, 0), json::Style::PRETTY).unwrap_or_default()))
    });
    r.add("toRawJson", &[A], None, |_, a| must(json::marshal(arg(a, 0), json::Style::RAW)));
    r.add("mustToJson", &[A], None, |_, a| must(json::marshal(arg(a, 0), json::Style::MARSHAL)));
    r.add("mustToPrettyJson", &[A], None, |_, a| must(json::marshal(arg(a, 0), json::Style::PRETTY)));
    r.add("mustToRawJson", &[A], None, |_, a| must(json::marshal(arg(a, 0), json::Style::RAW)));
    r.add("mustFromJson", &[S], None, must_from_json);
}

/// An argument; the executor passes exactly the declared parameters, `Nil` guards the rest.
fn arg(a: &[Value], i: usize) -> &Value {
    a.get(i).unwrap_or(&Value::Nil)
}

/// A `string` parameter; the executor has already checked the type.
fn arg_str(a: &[Value], i: usize) -> &str {
    a.get(i).and_then(Value::as_str).unwrap_or("")
}

fn must(r: Result<String, String>) -> R {
    r.map(Value::str).map_err(FuncError::Msg)
}

/// `json.Unmarshal(str, &m)` with `m := map[string]any{}`: `null` makes `m` nil, any error
/// is stored under `"Error"` in whatever `m` holds by then.
fn from_json(s: &str) -> Value {
    let (m, err) = match json::unmarshal(s) {
        Err(e) => (BTreeMap::new(), Some(e)),
        Ok((Value::Nil, err)) => {
            if err.is_none() {
                return Value::nil_map();
            }
            (BTreeMap::new(), err)
        }
        Ok((Value::Map(m), err)) => (m.entries.take(), err),
        Ok((other, _)) => (BTreeMap::new(), Some(type_error(&other, "map[string]interface {}"))),
    };
    let mut m = m;
    if let Some(e) = err {
        m.insert("Error".into(), Value::str(e));
    }
    Value::map(m)
}

/// `json.Unmarshal(str, &a)` with `a := []any{}`; an error replaces the result by `[msg]`.
fn from_json_array(s: &str) -> Value {
    match json::unmarshal(s) {
        Err(e) | Ok((_, Some(e))) => Value::list(vec![Value::str(e)]),
        Ok((Value::Nil, None)) => Value::nil_list(Type::Interface),
        Ok((v @ Value::List(_), None)) => v,
        Ok((other, None)) => Value::list(vec![Value::str(type_error(&other, "[]interface {}"))]),
    }
}

fn type_error(v: &Value, target: &str) -> String {
    format!("json: cannot unmarshal {} into Go value of type {target}", json::kind_word(v))
}

/// Sprig's `mustFromJson`: `json.Unmarshal` into `interface{}`; `null` is the nil interface.
fn must_from_json(_: &mut Ctx<'_>, a: &[Value]) -> R {
    match json::unmarshal(arg_str(a, 0)) {
        Err(e) | Ok((_, Some(e))) => Err(FuncError::Msg(e)),
        Ok((Value::Nil, None)) => Ok(Value::Invalid),
        Ok((v, None)) => Ok(v),
    }
}

fn to_toml(_: &mut Ctx<'_>, a: &[Value]) -> R {
    match toml::encode(arg(a, 0)) {
        Ok(s) => Ok(Value::str(s)),
        // kube-compare returns the error text as the function's result.
        Err(toml::TomlError::Encode(e)) => Ok(Value::str(e)),
        Err(toml::TomlError::Panic(e)) => Err(FuncError::Msg(e)),
    }
}

/// `unstructured.NestedString`: the string at `path`, or `""` when it is missing or not a
/// string (so a non-string name never matches a name filter).
fn nested_str(obj: &BTreeMap<String, Value>, path: &[&str]) -> String {
    let mut cur: Option<Value> = None;
    for (i, p) in path.iter().enumerate() {
        let next = if i == 0 {
            obj.get(*p).cloned()
        } else {
            match &cur {
                Some(Value::Map(m)) => m.entries.borrow().get(*p).cloned(),
                _ => None,
            }
        };
        cur = next;
    }
    match cur {
        Some(Value::String(s)) => s.to_string(),
        _ => String::new(),
    }
}

/// `lookupCRs(apiVersion, kind, namespace, name)`: every cluster CR with exactly that
/// apiVersion and kind, filtered by namespace and name unless they are `""` or `*`, in load
/// order. The items are the CRs' own maps, so `set` on one is seen by later lookups.
fn lookup_crs(ctx: &Ctx<'_>, a: &[Value]) -> Value {
    let (api_version, kind, namespace, name) = (arg_str(a, 0), arg_str(a, 1), arg_str(a, 2), arg_str(a, 3));
    let wildcard = |s: &str| s.is_empty() || s == "*";
    let mut matched = Vec::new();
    for cr in ctx.crs {
        let Value::Map(m) = cr else { continue };
        let obj = m.entries.borrow();
        if nested_str(&obj, &["apiVersion"]) != api_version || nested_str(&obj, &["kind"]) != kind {
            continue;
        }
        if !wildcard(namespace) && nested_str(&obj, &["metadata", "namespace"]) != namespace {
            continue;
        }
        if !wildcard(name) && nested_str(&obj, &["metadata", "name"]) != name {
            continue;
        }
        matched.push(cr.clone());
    }
    let elem = Type::map_of(Type::Interface);
    // `var matched []map[string]any`: nil when nothing matched (prints `[]`, JSON `null`).
    if matched.is_empty() { Value::nil_list(elem) } else { Value::typed_list(elem, matched) }
}

/// `lookupCR`: the single match, or a nil map (prints `map[]`) for none or several.
fn lookup_cr(ctx: &mut Ctx<'_>, a: &[Value]) -> R {
    match lookup_crs(ctx, a) {
        Value::List(l) if l.items.len() == 1 => Ok(l.items[0].clone()),
        _ => Ok(Value::nil_map()),
    }
}
