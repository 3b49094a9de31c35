//! Kubernetes' regex library (`k8s.io/apiserver/pkg/cel/library/regex.go`): `find` and
//! `findAll` on strings, with RE2 syntax (the `regex` crate's, which is RE2's without
//! backreferences, as Go's).

use std::sync::Arc;

use cel::common::value::CowVal;
use cel::{DeclarationError, Env, Value};

use super::{Res, STRING, bad, give, member, string_arg, values};
use crate::cost;

/// The compiled size one pattern may take (the `regex` crate's own default is 10 MiB).
const MAX_COMPILED: usize = 1 << 20;

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    member(env, "find", STRING, 1, find)?;
    member(env, "findAll", STRING, 1, find_all)?;
    member(env, "findAll", STRING, 2, find_all)?;
    Ok(())
}

fn compile(function: &str, pattern: &str) -> Result<::regex::Regex, cel::ExecutionError> {
    cost::charge(cost::REGEX_STEPS + pattern.len() as u64)?;
    ::regex::RegexBuilder::new(pattern)
        .size_limit(MAX_COMPILED)
        .build()
        .map_err(|e| bad(function, format!("invalid regular expression: {e}")))
}

fn find<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let s = string_arg("find", &a[0])?;
    let re = compile("find", string_arg("find", &a[1])?)?;
    cost::charge(s.len() as u64 / 8 + 1)?;
    give(Value::String(Arc::new(re.find(s).map_or("", |m| m.as_str()).to_string())))
}

fn find_all<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let s = string_arg("findAll", &a[0])?;
    let re = compile("findAll", string_arg("findAll", &a[1])?)?;
    let limit = match a.get(2) {
        None => usize::MAX,
        Some(Value::Int(n)) if *n < 0 => usize::MAX,
        Some(Value::Int(n)) => *n as usize,
        Some(other) => return Err(bad("findAll", format!("expects an int limit, not {}", other.type_of()))),
    };
    cost::charge(s.len() as u64 / 8 + 1)?;
    let found: Vec<Value> =
        re.find_iter(s).take(limit).map(|m| Value::String(Arc::new(m.as_str().to_string()))).collect();
    cost::produce("findAll", found.len())?;
    give(Value::List(Arc::new(found)))
}
