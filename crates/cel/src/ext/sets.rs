//! cel-go's sets extension (`ext.Sets`, which Kubernetes' CEL environment includes):
//! `sets.contains(list, list)`, `sets.equivalent(list, list)`, `sets.intersects(list, list)`.
//!
//! Membership is CEL equality (`1 == 1.0`), as cel-go's. Each call compares every item of one
//! list with every item of the other, so it is charged the product of their lengths (cel-go's
//! cost estimate for these functions is that product too).

use cel::common::value::CowVal;
use cel::{DeclarationError, Env, Value};

use super::{Res, bad, give, global, values};
use crate::cost;

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    global(env, "sets.contains", 2, contains)?;
    global(env, "sets.equivalent", 2, equivalent)?;
    global(env, "sets.intersects", 2, intersects)?;
    Ok(())
}

fn lists(function: &str, args: &[CowVal<'_, '_>]) -> Result<(Vec<Value>, Vec<Value>), cel::ExecutionError> {
    let mut a = values(args)?.into_iter();
    let (Some(Value::List(x)), Some(Value::List(y))) = (a.next(), a.next()) else {
        return Err(bad(function, "expects two lists"));
    };
    cost::charge((x.len() as u64).saturating_mul(y.len() as u64) / 8 + 1)?;
    Ok((x.to_vec(), y.to_vec()))
}

/// Whether every item of `sub` is in `of`.
fn all_in(sub: &[Value], of: &[Value]) -> bool {
    sub.iter().all(|item| of.iter().any(|x| x == item))
}

fn contains<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let (a, b) = lists("sets.contains", &args)?;
    give(Value::Bool(all_in(&b, &a)))
}

fn equivalent<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let (a, b) = lists("sets.equivalent", &args)?;
    give(Value::Bool(all_in(&b, &a) && all_in(&a, &b)))
}

fn intersects<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let (a, b) = lists("sets.intersects", &args)?;
    give(Value::Bool(a.iter().any(|item| b.iter().any(|x| x == item))))
}
