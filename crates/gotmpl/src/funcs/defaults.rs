//! Sprig's defaults, flow and reflection functions (defaults.go, reflect.go): `default`,
//! `empty`, `coalesce`, `all`, `any`, `ternary`, `fail`, `typeOf`, `typeIs`, `typeIsLike`,
//! `kindOf`, `kindIs`, `deepEqual`.
//!
//! "Empty" is Sprig's `empty`, adapted from text/template's truth: the zero value of its type,
//! except that structs (a `time.Time`) are never empty. Type names are Go's `%T`, kinds are
//! `reflect.Kind` names, equality is `reflect.DeepEqual`, all through [`Value`]'s helpers.

use super::{Ctx, Param, Registry};
use crate::value::{FuncError, Value};

pub(super) fn register(r: &mut Registry) {
    r.add("default", &[Param::Any], Some(Param::Any), default);
    r.add("empty", &[Param::Any], None, empty);
    r.add("coalesce", &[], Some(Param::Any), coalesce);
    r.add("all", &[], Some(Param::Any), all);
    r.add("any", &[], Some(Param::Any), any);
    r.add("ternary", &[Param::Any, Param::Any, Param::Bool], None, ternary);
    r.add("fail", &[Param::String], None, fail);
    r.add("typeOf", &[Param::Any], None, type_of);
    r.add("typeIs", &[Param::String, Param::Any], None, type_is);
    r.add("typeIsLike", &[Param::String, Param::Any], None, type_is_like);
    r.add("kindOf", &[Param::Any], None, kind_of);
    r.add("kindIs", &[Param::String, Param::Any], None, kind_is);
    r.add("deepEqual", &[Param::Any, Param::Any], None, deep_equal);
}

/// Sprig's `empty(given)`.
pub(crate) fn is_empty(v: &Value) -> bool {
    match v {
        Value::Invalid | Value::Nil => true,
        Value::Bool(b) => !b,
        Value::Int(i, _) => *i == 0,
        Value::Float(f) => *f == 0.0,
        Value::Complex(r, i) => *r == 0.0 && *i == 0.0,
        Value::String(s) => s.is_empty(),
        Value::List(l) => l.items.is_empty(),
        Value::Map(m) => m.entries.borrow().is_empty(),
        // Pointers are empty when nil; structs never are.
        Value::Object(o) => o.is_nil(),
    }
}

/// `default d given…`: `d` when no value is given or the first given value is empty; further
/// given values are ignored.
fn default(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    match args.get(1) {
        Some(given) if !is_empty(given) => Ok(given.clone()),
        _ => Ok(args[0].clone()),
    }
}

fn empty(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::Bool(is_empty(&args[0])))
}

/// The first non-empty argument, else a nil interface (printed `<no value>`).
fn coalesce(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(args.iter().find(|v| !is_empty(v)).cloned().unwrap_or(Value::Nil))
}

fn all(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::Bool(args.iter().all(|v| !is_empty(v))))
}

fn any(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::Bool(args.iter().any(|v| !is_empty(v))))
}

fn ternary(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let cond = matches!(args[2], Value::Bool(true));
    Ok(if cond { args[0].clone() } else { args[1].clone() })
}

/// `fail msg`: an error with exactly the given text.
fn fail(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Err(FuncError::msg(args[0].as_str().unwrap_or_default()))
}

fn type_of(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::str(args[0].type_name()))
}

fn type_is(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::Bool(args[0].as_str() == Some(args[1].type_name().as_str())))
}

/// `typeIsLike T v`: `T` or `*T` (so `typeIsLike "semver.Version"` matches a `*semver.Version`).
fn type_is_like(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let target = args[0].as_str().unwrap_or_default();
    let t = args[1].type_name();
    Ok(Value::Bool(t == target || t.strip_prefix('*') == Some(target)))
}

fn kind_of(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::str(args[0].kind_name()))
}

fn kind_is(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::Bool(args[0].as_str() == Some(args[1].kind_name().as_str())))
}

fn deep_equal(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::Bool(args[0].deep_equal(&args[1])))
}
