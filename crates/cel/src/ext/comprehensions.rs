//! cel-go's two-variable comprehensions (`ext.TwoVarComprehensions`, in Kubernetes' CEL
//! environment since 1.33): `e.all(i, v, p)`, `e.exists(i, v, p)`, `e.existsOne(i, v, p)`,
//! `e.transformList(i, v, [f,] t)`, `e.transformMap(i, v, [f,] t)` and
//! `e.transformMapEntry(i, v, [f,] t)`. Over a list, `i` is the index and `v` the item; over a
//! map, `i` is the key and `v` its value.
//!
//! The `cel` crate's interpreter runs one-variable comprehensions only, so each macro expands
//! into one: `e` is bound once, the comprehension runs over its keys (a map's keys in order,
//! or a list's indexes, from the hidden `@twoVarKeys`) and each step binds `v` to `e[i]` as
//! `cel.bind` does. The accumulators are those cel-go's expansions use: `all`/`exists` stop on
//! the first false/true with cel-go's error absorption, `existsOne` counts, the transforms
//! build a list or a map (`@twoVarInsert`/`@twoVarMerge`: a key given twice is an error, as
//! cel-go's map insertion is).

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, ListExpr, LiteralValue, MapExpr, operators};
use cel::common::value::CowVal;
use cel::objects::{Key, Map};
use cel::parser::{Macro, MacroExprHelper};
use cel::{DeclarationError, Env, IdedExpr, ParseError, Value};

use super::{Res, bad, give, global, values};
use crate::cost;

const TARGET: &str = "@__twoVarTarget";
const RESULT: &str = "@__twoVarResult";
const KEYS: &str = "@twoVarKeys";
const INSERT: &str = "@twoVarInsert";
const MERGE: &str = "@twoVarMerge";

#[derive(Clone, Copy)]
enum Kind {
    All,
    Exists,
    ExistsOne,
    TransformList,
    TransformMap,
    TransformMapEntry,
}

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    for (name, kind) in [
        ("all", Kind::All),
        ("exists", Kind::Exists),
        ("existsOne", Kind::ExistsOne),
        ("exists_one", Kind::ExistsOne),
        ("transformList", Kind::TransformList),
        ("transformMap", Kind::TransformMap),
        ("transformMapEntry", Kind::TransformMapEntry),
    ] {
        env.add_macro(Macro::receiver(name, 3, move |h, t, a| expand(kind, h, t, a)))?;
        if matches!(kind, Kind::TransformList | Kind::TransformMap | Kind::TransformMapEntry) {
            env.add_macro(Macro::receiver(name, 4, move |h, t, a| expand(kind, h, t, a)))?;
        }
    }
    global(env, KEYS, 1, keys)?;
    global(env, INSERT, 3, insert)?;
    global(env, MERGE, 2, merge)?;
    Ok(())
}

fn call(helper: &mut MacroExprHelper<'_>, name: &str, args: Vec<IdedExpr>) -> IdedExpr {
    helper.next_expr(Expr::Call(CallExpr { func_name: name.to_string(), target: None, args }))
}

fn ident(helper: &mut MacroExprHelper<'_>, name: &str) -> IdedExpr {
    helper.next_expr(Expr::Ident(name.to_string()))
}

fn literal(helper: &mut MacroExprHelper<'_>, value: LiteralValue) -> IdedExpr {
    helper.next_expr(Expr::Literal(value))
}

/// `body` with `name` bound to `init` (a comprehension over nothing, as `cel.bind` expands).
fn bind(helper: &mut MacroExprHelper<'_>, name: &str, init: IdedExpr, body: IdedExpr) -> IdedExpr {
    let range = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let cond = literal(helper, LiteralValue::Boolean(false.into()));
    let step = ident(helper, name);
    helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: range,
        iter_var: "#unused".to_string(),
        iter_var2: None,
        accu_var: name.to_string(),
        accu_init: init,
        loop_cond: cond,
        loop_step: step,
        result: body,
    })))
}

fn expand(
    kind: Kind,
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
) -> Result<Option<IdedExpr>, ParseError> {
    // Only the two-variable shapes: `x.all(a, b, p)` with two identifiers first. Anything else
    // (a three-argument call of another meaning) is left to the functions.
    let names: Vec<String> =
        args.iter().take(2).filter_map(|a| if let Expr::Ident(n) = &a.expr { Some(n.clone()) } else { None }).collect();
    if names.len() != 2 {
        return Ok(None);
    }
    let Some(range_of) = target.take() else { return Ok(None) };
    let (index, item) = (names[0].clone(), names[1].clone());
    if index == item {
        return Err(helper.new_error(args[1].id, "duplicate variable name"));
    }
    let mut rest: Vec<IdedExpr> = std::mem::take(args).into_iter().skip(2).collect();
    let (filter, value) = match rest.len() {
        2 => {
            let value = rest.pop();
            (rest.pop(), value)
        }
        _ => (None, rest.pop()),
    };
    let Some(value) = value else { return Ok(None) };
    // Each use of `v` reads `target[i]`.
    let with_item = |helper: &mut MacroExprHelper<'_>, body: IdedExpr| {
        let target = ident(helper, TARGET);
        let at = ident(helper, &index);
        let read = call(helper, operators::INDEX, vec![target, at]);
        bind(helper, &item, read, body)
    };
    let result = |helper: &mut MacroExprHelper<'_>| ident(helper, RESULT);
    let (init, cond, step, out) = match kind {
        Kind::All | Kind::Exists => {
            let all = matches!(kind, Kind::All);
            let init = literal(helper, LiteralValue::Boolean(all.into()));
            let accu = result(helper);
            let cond = if all {
                call(helper, operators::NOT_STRICTLY_FALSE, vec![accu])
            } else {
                let not = call(helper, operators::LOGICAL_NOT, vec![accu]);
                call(helper, operators::NOT_STRICTLY_FALSE, vec![not])
            };
            let p = with_item(helper, value);
            let accu = result(helper);
            let op = if all { operators::LOGICAL_AND } else { operators::LOGICAL_OR };
            let step = call(helper, op, vec![accu, p]);
            (init, cond, step, result(helper))
        }
        Kind::ExistsOne => {
            let init = literal(helper, LiteralValue::Int(0.into()));
            let cond = literal(helper, LiteralValue::Boolean(true.into()));
            let p = with_item(helper, value);
            let accu = result(helper);
            let one = literal(helper, LiteralValue::Int(1.into()));
            let plus = call(helper, operators::ADD, vec![accu, one]);
            let accu = result(helper);
            let step = call(helper, operators::CONDITIONAL, vec![p, plus, accu]);
            let accu = result(helper);
            let one = literal(helper, LiteralValue::Int(1.into()));
            (init, cond, step, call(helper, operators::EQUALS, vec![accu, one]))
        }
        Kind::TransformList | Kind::TransformMap | Kind::TransformMapEntry => {
            let init = match kind {
                Kind::TransformList => helper.next_expr(Expr::List(ListExpr::new(Vec::new()))),
                _ => helper.next_expr(Expr::Map(MapExpr { entries: Vec::new() })),
            };
            let cond = literal(helper, LiteralValue::Boolean(true.into()));
            let t = with_item(helper, value);
            let accu = result(helper);
            let grown = match kind {
                Kind::TransformList => {
                    let one = helper.next_expr(Expr::List(ListExpr::new(vec![t])));
                    call(helper, operators::ADD, vec![accu, one])
                }
                Kind::TransformMap => {
                    let at = ident(helper, &index);
                    call(helper, INSERT, vec![accu, at, t])
                }
                _ => call(helper, MERGE, vec![accu, t]),
            };
            let step = match filter {
                Some(f) => {
                    let f = with_item(helper, f);
                    let accu = result(helper);
                    call(helper, operators::CONDITIONAL, vec![f, grown, accu])
                }
                None => grown,
            };
            (init, cond, step, result(helper))
        }
    };
    let target_ident = ident(helper, TARGET);
    let keys = call(helper, KEYS, vec![target_ident]);
    let loop_ = helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: keys,
        iter_var: index,
        iter_var2: None,
        accu_var: RESULT.to_string(),
        accu_init: init,
        loop_cond: cond,
        loop_step: step,
        result: out,
    })));
    Ok(Some(bind(helper, TARGET, range_of, loop_)))
}

/// A map's keys in order, or a list's indexes.
fn keys<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    match &a[0] {
        Value::List(items) => {
            cost::charge(items.len() as u64 / 8 + 1)?;
            give(Value::List(Arc::new((0..items.len() as i64).map(Value::Int).collect())))
        }
        Value::Map(m) => {
            cost::charge(m.map.len() as u64 / 8 + 1)?;
            let mut keys: Vec<&Key> = m.map.keys().collect();
            keys.sort();
            give(Value::List(Arc::new(keys.into_iter().map(|k| Value::from(k.clone())).collect())))
        }
        other => Err(bad("comprehension", format!("expects a list or a map, not {}", other.type_of()))),
    }
}

fn key_of(v: &Value) -> Result<Key, cel::ExecutionError> {
    match v {
        Value::Int(i) => Ok(Key::Int(*i)),
        Value::UInt(u) => Ok(Key::Uint(*u)),
        Value::Bool(b) => Ok(Key::Bool(*b)),
        Value::String(s) => Ok(Key::String(s.clone())),
        other => Err(bad("transformMap", format!("unsupported map key type: {}", other.type_of()))),
    }
}

/// `map` with `key` set to `value`; a key already there is an error.
fn insert_into(
    function: &str,
    map: &mut HashMap<Key, Value>,
    key: Key,
    value: Value,
) -> Result<(), cel::ExecutionError> {
    // Keys compare as CEL values do: `0` and `0u` are one key.
    let twin = match &key {
        Key::Int(i) => u64::try_from(*i).ok().map(Key::Uint),
        Key::Uint(u) => i64::try_from(*u).ok().map(Key::Int),
        _ => None,
    };
    if map.contains_key(&key) || twin.is_some_and(|t| map.contains_key(&t)) {
        // cel-go prints the key as Go's `%v` does: a string without quotes, a number bare.
        let shown = match &key {
            Key::String(s) => s.to_string(),
            Key::Int(i) => i.to_string(),
            Key::Uint(u) => u.to_string(),
            Key::Bool(b) => b.to_string(),
        };
        return Err(bad(function, format!("insert failed: key {shown} already exists")));
    }
    map.insert(key, value);
    Ok(())
}

fn owned_map(function: &str, v: &Value) -> Result<HashMap<Key, Value>, cel::ExecutionError> {
    match v {
        Value::Map(m) => {
            cost::charge(m.map.len() as u64 / 8 + 1)?;
            Ok((*m.map).clone())
        }
        other => Err(bad(function, format!("expects a map, not {}", other.type_of()))),
    }
}

fn insert<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let mut map = owned_map("transformMap", &a[0])?;
    insert_into("transformMap", &mut map, key_of(&a[1])?, a[2].clone())?;
    give(Value::Map(Map { map: Arc::new(map) }))
}

fn merge<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let mut map = owned_map("transformMapEntry", &a[0])?;
    let Value::Map(entry) = &a[1] else {
        return Err(bad("transformMapEntry", format!("expects the transform to give a map, not {}", a[1].type_of())));
    };
    for (k, v) in entry.map.iter() {
        insert_into("transformMapEntry", &mut map, k.clone(), v.clone())?;
    }
    give(Value::Map(Map { map: Arc::new(map) }))
}
