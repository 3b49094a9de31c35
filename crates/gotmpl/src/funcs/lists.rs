//! Sprig's list functions (list.go) and their `must*` variants.
//!
//! Sprig takes `interface{}` and inspects it with reflection, so any slice type works (a
//! `[]string` from `splitList`, the `[]int` of `until`) and most results are new `[]interface{}`.
//! The non-must variants panic where the must ones return an error; text/template turns both
//! into an exec error with the same text (`Cannot push on type string`). A nil argument makes
//! `reflect.TypeOf(nil).Kind()` dereference a nil pointer: Go's runtime panic, reproduced here.
//! Equality (`has`, `without`, `uniq`) is `reflect.DeepEqual`, so a template `1` (int) never
//! equals a data `1` (int64).

use super::{Ctx, Param, Registry, to_int};
use crate::value::{FuncError, List, Type, Value};

pub(super) fn register(r: &mut Registry) {
    r.add("list", &[], Some(Param::Any), list);
    r.add("tuple", &[], Some(Param::Any), list);
    r.add("append", &[Param::Any, Param::Any], None, push);
    r.add("push", &[Param::Any, Param::Any], None, push);
    r.add("mustAppend", &[Param::Any, Param::Any], None, push);
    r.add("mustPush", &[Param::Any, Param::Any], None, push);
    r.add("prepend", &[Param::Any, Param::Any], None, prepend);
    r.add("mustPrepend", &[Param::Any, Param::Any], None, prepend);
    r.add("first", &[Param::Any], None, first);
    r.add("mustFirst", &[Param::Any], None, first);
    r.add("last", &[Param::Any], None, last);
    r.add("mustLast", &[Param::Any], None, last);
    r.add("rest", &[Param::Any], None, rest);
    r.add("mustRest", &[Param::Any], None, rest);
    r.add("initial", &[Param::Any], None, initial);
    r.add("mustInitial", &[Param::Any], None, initial);
    r.add("reverse", &[Param::Any], None, reverse);
    r.add("mustReverse", &[Param::Any], None, reverse);
    r.add("uniq", &[Param::Any], None, uniq);
    r.add("mustUniq", &[Param::Any], None, uniq);
    r.add("without", &[Param::Any], Some(Param::Any), without);
    r.add("mustWithout", &[Param::Any], Some(Param::Any), without);
    r.add("has", &[Param::Any, Param::Any], None, has);
    r.add("mustHas", &[Param::Any, Param::Any], None, has);
    r.add("slice", &[Param::Any], Some(Param::Any), slice);
    r.add("mustSlice", &[Param::Any], Some(Param::Any), slice);
    r.add("concat", &[], Some(Param::Any), concat);
    r.add("chunk", &[Param::Int(crate::value::IntKind::Int), Param::Any], None, chunk);
    r.add("mustChunk", &[Param::Int(crate::value::IntKind::Int), Param::Any], None, chunk);
    r.add("compact", &[Param::Any], None, compact);
    r.add("mustCompact", &[Param::Any], None, compact);
}

/// Go's runtime panic text for `reflect.TypeOf(nil).Kind()`.
pub(super) const NIL_DEREFERENCE: &str = "runtime error: invalid memory address or nil pointer dereference";

/// The slice behind a Sprig list argument, or Sprig's error `<what> <kind>` for a non-slice
/// (`Cannot push on type` + `string`), or the nil-pointer panic for nil.
fn as_list<'a>(v: &'a Value, what: &str) -> Result<&'a List, FuncError> {
    match v {
        Value::List(l) => Ok(l),
        Value::Nil | Value::Invalid => Err(FuncError::msg(NIL_DEREFERENCE)),
        other => Err(FuncError::msg(format!("{what} {}", other.kind_name()))),
    }
}

fn list(ctx: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    check_len(ctx, args.len())?;
    Ok(Value::list(args.to_vec()))
}

fn check_len(ctx: &Ctx<'_>, n: usize) -> Result<(), FuncError> {
    if n > ctx.limits.max_list_len {
        return Err(FuncError::Limit(format!("list longer than {} items", ctx.limits.max_list_len)));
    }
    Ok(())
}

fn push(ctx: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let l = as_list(&args[0], "Cannot push on type")?;
    check_len(ctx, l.items.len() + 1)?;
    let mut items = l.items.as_ref().clone();
    items.push(args[1].clone());
    Ok(Value::list(items))
}

/// `append`/`push` (and their `must` forms) and `concat` on a first list nobody else holds
/// (the executor moved it out of `$l` in `$l = append $l x`): the list grows in place instead
/// of being copied, with the same result as [`push`]/[`concat`] (a new `[]interface{}`).
/// `None` when the fast path does not apply; otherwise the result and the number of
/// elements added.
pub(crate) fn grow_in_place(
    ctx: &mut Ctx<'_>,
    name: &str,
    argv: &mut [Value],
) -> Option<Result<(Value, u64), FuncError>> {
    let concat = match name {
        "append" | "push" | "mustAppend" | "mustPush" if argv.len() == 2 => false,
        "concat" if argv.len() >= 2 => true,
        _ => return None,
    };
    let (first, rest) = argv.split_first_mut()?;
    let Value::List(l) = first else { return None };
    if std::rc::Rc::strong_count(&l.items) != 1 || std::rc::Rc::weak_count(&l.items) != 0 {
        return None;
    }
    // Every further `concat` argument must be a list; otherwise the ordinary path gives the error.
    if concat && !rest.iter().all(|v| matches!(v, Value::List(_))) {
        return None;
    }
    let added: usize =
        if concat { rest.iter().map(|v| if let Value::List(r) = v { r.items.len() } else { 0 }).sum() } else { 1 };
    if let Err(e) = check_len(ctx, l.items.len() + added) {
        return Some(Err(e));
    }
    let mut list = std::mem::replace(l, List { elem: Type::Interface, items: Default::default(), nil: true });
    let items = std::rc::Rc::make_mut(&mut list.items);
    if concat {
        for v in rest.iter() {
            if let Value::List(r) = v {
                items.extend(r.items.iter().cloned());
            }
        }
        if items.is_empty() {
            return Some(Ok((Value::nil_list(Type::Interface), 0)));
        }
    } else {
        items.push(std::mem::replace(&mut rest[0], Value::Invalid));
    }
    Some(Ok((Value::List(List { elem: Type::Interface, items: list.items, nil: false }), added as u64)))
}

fn prepend(ctx: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let l = as_list(&args[0], "Cannot prepend on type")?;
    check_len(ctx, l.items.len() + 1)?;
    let mut items = Vec::with_capacity(l.items.len() + 1);
    items.push(args[1].clone());
    items.extend(l.items.iter().cloned());
    Ok(Value::list(items))
}

/// `first`/`last` of an empty list return a nil `interface{}` (printed `<no value>`).
fn first(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let l = as_list(&args[0], "Cannot find first on type")?;
    Ok(l.items.first().cloned().unwrap_or(Value::Nil))
}

fn last(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let l = as_list(&args[0], "Cannot find last on type")?;
    Ok(l.items.last().cloned().unwrap_or(Value::Nil))
}

/// `rest`/`initial` of an empty list return a nil `[]interface{}` (printed `[]`).
fn rest(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let l = as_list(&args[0], "Cannot find rest on type")?;
    if l.items.is_empty() {
        return Ok(Value::nil_list(Type::Interface));
    }
    Ok(Value::list(l.items[1..].to_vec()))
}

fn initial(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let l = as_list(&args[0], "Cannot find initial on type")?;
    if l.items.is_empty() {
        return Ok(Value::nil_list(Type::Interface));
    }
    Ok(Value::list(l.items[..l.items.len() - 1].to_vec()))
}

fn reverse(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let l = as_list(&args[0], "Cannot find reverse on type")?;
    Ok(Value::list(l.items.iter().rev().cloned().collect()))
}

fn in_list(haystack: &[Value], needle: &Value) -> bool {
    haystack.iter().any(|h| needle.deep_equal(h))
}

fn uniq(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let l = as_list(&args[0], "Cannot find uniq on type")?;
    let mut dest: Vec<Value> = Vec::new();
    for item in l.items.iter() {
        if !in_list(&dest, item) {
            dest.push(item.clone());
        }
    }
    Ok(Value::list(dest))
}

fn without(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let l = as_list(&args[0], "Cannot find without on type")?;
    let omit = &args[1..];
    Ok(Value::list(l.items.iter().filter(|item| !in_list(omit, item)).cloned().collect()))
}

/// `has needle haystack`: false for a nil haystack (Sprig checks that before reflecting).
fn has(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    if matches!(args[1], Value::Nil | Value::Invalid) {
        return Ok(Value::Bool(false));
    }
    let l = as_list(&args[1], "Cannot find has on type")?;
    Ok(Value::Bool(in_list(&l.items, &args[0])))
}

/// Sprig's `slice list [start [end]]` (shadowing Go's builtin): indices through cast `ToInt`,
/// the result keeps the slice type; an empty list gives nil; bad bounds are reflect's panic.
fn slice(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let l = as_list(&args[0], "list should be type of slice or array but")?;
    let len = l.items.len();
    if len == 0 {
        return Ok(Value::Nil);
    }
    let start = args.get(1).map_or(0, to_int);
    let end = args.get(2).map_or(len as i64, to_int);
    if start < 0 || end < start || end > len as i64 {
        return Err(FuncError::msg("reflect.Value.Slice: slice index out of bounds"));
    }
    let items = l.items[start as usize..end as usize].to_vec();
    Ok(Value::List(List { elem: l.elem.clone(), items: std::rc::Rc::new(items), nil: false }))
}

/// `concat`: a nil `[]interface{}` when nothing was appended (prints `[]`).
fn concat(ctx: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let mut res: Vec<Value> = Vec::new();
    for a in args {
        let l = as_list(a, "Cannot concat type").map_err(|e| {
            if matches!(a, Value::Nil | Value::Invalid) { e } else { FuncError::msg(format!("{e} as list")) }
        })?;
        check_len(ctx, res.len() + l.items.len())?;
        res.extend(l.items.iter().cloned());
    }
    if res.is_empty() {
        return Ok(Value::nil_list(Type::Interface));
    }
    Ok(Value::list(res))
}

/// Sprig's `chunk size list` into a `[][]interface{}`. The chunk count is computed in float64
/// (`floor((len-1)/size) + 1`), so a zero or negative size makes Go's `make` panic with
/// `makeslice: len out of range` (or gives an empty result, when the count comes out as 0).
fn chunk(ctx: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let size = match &args[0] {
        Value::Int(i, _) => *i,
        other => to_int(other),
    };
    let l = as_list(&args[1], "Cannot chunk type")?;
    let len = l.items.len() as i64;
    const MAKESLICE: &str = "runtime error: makeslice: len out of range";
    let cs_f = ((len - 1) as f64 / size as f64).floor() + 1.0;
    let cs = super::convert::float_to_int64(cs_f);
    if cs < 0 {
        return Err(FuncError::msg(MAKESLICE));
    }
    check_len(ctx, cs as usize)?;
    let mut out = Vec::with_capacity(cs as usize);
    for i in 0..cs {
        let mut clen = size;
        if i == cs - 1 {
            clen = super::convert::float_to_int64((len as f64 % size as f64).floor());
            if clen == 0 {
                clen = size;
            }
        }
        if clen < 0 {
            return Err(FuncError::msg(MAKESLICE));
        }
        let mut part = Vec::new();
        for j in 0..clen {
            let ix = i.checked_mul(size).and_then(|x| x.checked_add(j));
            match ix.and_then(|ix| usize::try_from(ix).ok()).and_then(|ix| l.items.get(ix)) {
                Some(v) => part.push(v.clone()),
                None => {
                    return Err(FuncError::msg("reflect: slice index out of range"));
                }
            }
        }
        out.push(Value::list(part));
    }
    Ok(Value::typed_list(Type::slice_of(Type::Interface), out))
}

fn compact(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let l = as_list(&args[0], "Cannot compact on type")?;
    Ok(Value::list(l.items.iter().filter(|item| !super::defaults::is_empty(item)).cloned().collect()))
}
