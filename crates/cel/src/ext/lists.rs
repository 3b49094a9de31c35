//! Kubernetes' lists library (`k8s.io/apiserver/pkg/cel/library/lists.go`): `isSorted`,
//! `sum`, `min`, `max`, `indexOf`, `lastIndexOf` on lists of comparable values; and cel-go's
//! lists extension's `first()` and `last()` (version 3), an optional of the end item (the
//! `cel` crate's lists extension gives the rest of that library).

use std::cmp::Ordering;
use std::sync::Arc;

use cel::common::value::CowVal;
use cel::{DeclarationError, Env, Value};

use cel::common::ast::{CallExpr, Expr};
use cel::parser::{Macro, MacroExprHelper};
use cel::{IdedExpr, ParseError};

use super::{LIST, Res, bad, give, global, member, values};
use crate::cost;

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    member(env, "isSorted", LIST, 0, is_sorted)?;
    member(env, "sum", LIST, 0, sum)?;
    member(env, "min", LIST, 0, min)?;
    member(env, "max", LIST, 0, max)?;
    member(env, "indexOf", LIST, 1, index_of)?;
    member(env, "lastIndexOf", LIST, 1, last_index_of)?;
    member(env, "first", LIST, 0, first)?;
    member(env, "last", LIST, 0, last)?;
    // `lists.range(n)` builds `n` items from one number: the `cel` crate's own overload caps
    // `n` at a million but charges nothing, so a comprehension calling it could build billions.
    // The call is rewritten (a macro, before overloads are chosen) into one that charges them.
    env.add_macro(Macro::receiver("range", 1, range_macro))?;
    global(env, RANGE, 1, range)?;
    Ok(())
}

fn list_of(function: &str, v: &Value) -> Result<Arc<Vec<Value>>, cel::ExecutionError> {
    match v {
        Value::List(l) => {
            cost::charge(l.len() as u64 + 1)?;
            Ok(l.clone())
        }
        other => Err(bad(function, format!("expects a list, not {}", other.type_of()))),
    }
}

/// Orders two list elements of one comparable type; mixed or uncomparable types are errors
/// (Kubernetes declares these functions for `list(T)` with `T` comparable).
fn order(function: &str, a: &Value, b: &Value) -> Result<Ordering, cel::ExecutionError> {
    a.partial_cmp(b).ok_or_else(|| bad(function, format!("cannot compare {} with {}", a.type_of(), b.type_of())))
}

fn is_sorted<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let l = list_of("isSorted", &a[0])?;
    for w in l.windows(2) {
        if order("isSorted", &w[0], &w[1])? == Ordering::Greater {
            return give(Value::Bool(false));
        }
    }
    give(Value::Bool(true))
}

fn sum<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let l = list_of("sum", &a[0])?;
    // An empty list sums to the zero of its element type; untyped here, so int 0.
    let Some(first) = l.first() else { return give(Value::Int(0)) };
    let mut acc = match first {
        Value::Int(_) => Value::Int(0),
        Value::UInt(_) => Value::UInt(0),
        Value::Float(_) => Value::Float(0.0),
        other => return Err(bad("sum", format!("cannot sum a list of {}", other.type_of()))),
    };
    for x in l.iter() {
        acc = match (&acc, x) {
            (Value::Int(s), Value::Int(i)) => {
                Value::Int(s.checked_add(*i).ok_or_else(|| bad("sum", "integer overflow"))?)
            }
            (Value::UInt(s), Value::UInt(i)) => {
                Value::UInt(s.checked_add(*i).ok_or_else(|| bad("sum", "integer overflow"))?)
            }
            (Value::Float(s), Value::Float(f)) => Value::Float(s + f),
            _ => return Err(bad("sum", format!("mixed element types {} and {}", acc.type_of(), x.type_of()))),
        };
    }
    give(acc)
}

fn extreme<'b, 'v>(function: &str, args: Vec<CowVal<'b, 'v>>, want: Ordering) -> Res<'b, 'v> {
    let a = values(&args)?;
    let l = list_of(function, &a[0])?;
    let Some(mut best) = l.first().cloned() else {
        return Err(bad(function, "called on an empty list"));
    };
    for x in l.iter().skip(1) {
        if order(function, x, &best)? == want {
            best = x.clone();
        }
    }
    give(best)
}

fn min<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    extreme("min", args, Ordering::Less)
}

fn max<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    extreme("max", args, Ordering::Greater)
}

fn index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let l = list_of("indexOf", &a[0])?;
    give(Value::Int(l.iter().position(|x| *x == a[1]).map_or(-1, |i| i as i64)))
}

fn last_index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let l = list_of("lastIndexOf", &a[0])?;
    give(Value::Int(l.iter().rposition(|x| *x == a[1]).map_or(-1, |i| i as i64)))
}

/// `optional.of(list[0])`, or `optional.none()` for an empty list.
fn first<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    end(list_of("first", &a[0])?.first())
}

/// `optional.of(list[size(list) - 1])`, or `optional.none()` for an empty list.
fn last<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    end(list_of("last", &a[0])?.last())
}

fn end<'b, 'v>(item: Option<&Value>) -> Res<'b, 'v> {
    use cel::objects::OptionalValue;
    give(Value::Opaque(Arc::new(match item {
        Some(v) => OptionalValue::of(v.clone()),
        None => OptionalValue::none(),
    })))
}

const RANGE: &str = "@listsRange";
/// The most items `lists.range` gives (the `cel` crate's own limit).
const MAX_RANGE: i64 = 1_000_000;

fn range_macro(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
) -> Result<Option<IdedExpr>, ParseError> {
    if !matches!(target.as_ref().map(|t| &t.expr), Some(Expr::Ident(ns)) if ns == "lists") {
        return Ok(None);
    }
    let args = std::mem::take(args);
    Ok(Some(helper.next_expr(Expr::Call(CallExpr { func_name: RANGE.to_string(), target: None, args }))))
}

/// `[0, 1, …, n - 1]`, charged its length.
fn range<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let Value::Int(n) = a[0] else { return Err(bad("lists.range", format!("expects an int, not {}", a[0].type_of()))) };
    if n > MAX_RANGE {
        return Err(bad("lists.range", format!("size {n} exceeds maximum allowed ({MAX_RANGE})")));
    }
    let n = n.max(0);
    cost::charge(n as u64 / 8 + 1)?;
    give(Value::List(Arc::new((0..n).map(Value::Int).collect())))
}
