//! Kubernetes' CEL extension libraries that the `cel` crate lacks (k8s.io/apiserver
//! `pkg/cel/library`): lists, regex, URLs, IPs and CIDRs, quantities, semver, named formats,
//! JSON patch keys; cel-go's sets, bindings (`cel.bind`) and two-variable comprehensions; and cel-go's strings extension, which the `cel`
//! crate has but without a bound on what its functions produce.
//!
//! Each function takes and gives `cel::Value`s; a wrong argument type is an evaluation error
//! naming the function, never a panic. What a function produces is charged to the rule's cost
//! budget ([`crate::cost`]).

pub mod bind;
pub mod comprehensions;
pub mod format;
pub mod ip;
pub mod jsonpatch;
pub mod lists;
pub mod quantity;
pub mod regex;
pub mod semver;
pub mod sets;
pub mod strings;
pub mod url;

use cel::common::types::{DYN_TYPE, LIST_TYPE, STRING_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError, Value};

pub type Res<'b, 'v> = Result<CowVal<'b, 'v>, ExecutionError>;

/// The arguments (the receiver first) as values.
pub fn values(args: &[CowVal<'_, '_>]) -> Result<Vec<Value>, ExecutionError> {
    args.iter().map(|a| Value::try_from(a.as_ref())).collect()
}

/// A value as a function result.
pub fn give<'b, 'v>(v: Value) -> Res<'b, 'v> {
    let boxed: Box<dyn Val> = Box::<dyn Val>::try_from(v)?;
    Ok(CowVal::Owned(boxed))
}

pub fn bad(function: &str, what: impl std::fmt::Display) -> ExecutionError {
    ExecutionError::function_error(function, what.to_string())
}

pub fn string_arg<'a>(function: &str, v: &'a Value) -> Result<&'a str, ExecutionError> {
    match v {
        Value::String(s) => Ok(s.as_str()),
        other => Err(bad(function, format!("expects a string, not {}", other.type_of()))),
    }
}

/// Registers every library of this module on `env`.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    strings::register(env)?;
    lists::register(env)?;
    regex::register(env)?;
    url::register(env)?;
    ip::register(env)?;
    quantity::register(env)?;
    semver::register(env)?;
    sets::register(env)?;
    format::register(env)?;
    jsonpatch::register(env)?;
    bind::register(env)?;
    comprehensions::register(env)?;
    Ok(())
}

/// Shorthands for the overload tables of the submodules.
pub fn member(
    env: &mut Env,
    name: &str,
    target: cel::common::types::Type,
    args: usize,
    op: cel::common::functions::Function,
) -> Result<(), DeclarationError> {
    let id = format!("{}.{name}/{args}", target.name());
    env.add_member_overload(name, &id, target, (0..args).map(|_| DYN_TYPE).collect(), op)
}

pub fn global(
    env: &mut Env,
    name: &str,
    args: usize,
    op: cel::common::functions::Function,
) -> Result<(), DeclarationError> {
    env.add_overload(name, &format!("{name}/{args}"), (0..args).map(|_| DYN_TYPE).collect(), op)
}

pub const LIST: cel::common::types::Type = LIST_TYPE;
pub const STRING: cel::common::types::Type = STRING_TYPE;
pub const DYN: cel::common::types::Type = DYN_TYPE;
