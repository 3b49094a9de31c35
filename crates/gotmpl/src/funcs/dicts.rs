//! Sprig's dictionary functions (dict.go): `dict`, `get`, `set`, `unset`, `hasKey`, `pluck`,
//! `keys`, `values`, `pick`, `omit`, `merge`/`mergeOverwrite` (dario.cat/mergo semantics),
//! `dig` and `deepCopy` (mitchellh/copystructure).
//!
//! Go maps are references: `set`, `unset` and `merge` mutate the map they are given and return
//! it, so every holder of that map (a variable, the data) sees the change. [`Map`] shares its
//! entries for exactly that reason; these functions mutate through the shared cell.

use std::collections::BTreeMap;

use super::{Ctx, Param, Registry, strval};
use crate::value::{FuncError, Map, Type, Value};

/// The functions that mutate a map they are given (and so possibly the data): `set`, `unset`
/// and the `merge` family (into their first argument).
pub(crate) const MUTATING: [&str; 6] = ["set", "unset", "merge", "mustMerge", "mergeOverwrite", "mustMergeOverwrite"];

pub(super) fn register(r: &mut Registry) {
    r.add("dict", &[], Some(Param::Any), dict);
    r.add("get", &[Param::Map, Param::String], None, get);
    r.add("set", &[Param::Map, Param::String, Param::Any], None, set);
    r.add("unset", &[Param::Map, Param::String], None, unset);
    r.add("hasKey", &[Param::Map, Param::String], None, has_key);
    r.add("pluck", &[Param::String], Some(Param::Map), pluck);
    r.add("keys", &[], Some(Param::Map), keys);
    r.add("values", &[Param::Map], None, values);
    r.add("pick", &[Param::Map], Some(Param::String), pick);
    r.add("omit", &[Param::Map], Some(Param::String), omit);
    r.add("merge", &[Param::Map], Some(Param::Map), merge);
    r.add("mustMerge", &[Param::Map], Some(Param::Map), merge);
    r.add("mergeOverwrite", &[Param::Map], Some(Param::Map), merge_overwrite);
    r.add("mustMergeOverwrite", &[Param::Map], Some(Param::Map), merge_overwrite);
    r.add("dig", &[], Some(Param::Any), dig);
    r.add("deepCopy", &[Param::Any], None, deep_copy);
    r.add("mustDeepCopy", &[Param::Any], None, deep_copy);
}

/// How deep `merge` and `deepCopy` recurse. Go has no bound (a map that contains itself, made
/// with `set`, overflows Go's stack); we stop with an error instead. Decoded data cannot nest
/// this deep anyway (the JSON and YAML readers stop at 128 levels).
const MAX_DEPTH: usize = 256;

fn map_arg(v: &Value) -> Result<&Map, FuncError> {
    match v {
        Value::Map(m) => Ok(m),
        other => Err(FuncError::msg(format!("expected map[string]interface {{}}, got {}", other.type_name()))),
    }
}

fn str_arg(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// `dict k1 v1 k2 v2 …`: keys through `strval` (so `dict 1 "x"` has the key "1"); a key without
/// a value maps to "".
fn dict(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let mut m = BTreeMap::new();
    for pair in args.chunks(2) {
        let value = pair.get(1).cloned().unwrap_or_else(|| Value::str(""));
        m.insert(strval(&pair[0]), value);
    }
    Ok(Value::map(m))
}

/// `get`: the value, or "" when the key is absent (a present `null` stays a nil interface).
fn get(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let m = map_arg(&args[0])?;
    Ok(m.entries.borrow().get(str_arg(&args[1])).cloned().unwrap_or_else(|| Value::str("")))
}

fn set(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let m = map_arg(&args[0])?;
    if m.nil {
        return Err(FuncError::msg("assignment to entry in nil map"));
    }
    m.entries.borrow_mut().insert(str_arg(&args[1]).to_string(), args[2].clone());
    Ok(args[0].clone())
}

/// `unset`: deleting from a nil map is a no-op in Go.
fn unset(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let m = map_arg(&args[0])?;
    if !m.nil {
        m.entries.borrow_mut().remove(str_arg(&args[1]));
    }
    Ok(args[0].clone())
}

fn has_key(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let m = map_arg(&args[0])?;
    Ok(Value::Bool(m.entries.borrow().contains_key(str_arg(&args[1]))))
}

fn pluck(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let key = str_arg(&args[0]);
    let mut res = Vec::new();
    for d in &args[1..] {
        if let Some(v) = map_arg(d)?.entries.borrow().get(key) {
            res.push(v.clone());
        }
    }
    Ok(Value::list(res))
}

/// `keys`: a `[]string`. Go returns map iteration order (random); we return sorted keys, which
/// is one of the orders Go may produce.
fn keys(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let mut k: Vec<String> = Vec::new();
    for d in args {
        k.extend(map_arg(d)?.entries.borrow().keys().cloned());
    }
    Ok(Value::string_list(k))
}

/// `values`: a `[]interface{}` in key order (Go's order is random).
fn values(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let m = map_arg(&args[0])?;
    Ok(Value::list(m.entries.borrow().values().cloned().collect()))
}

fn pick(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let src = map_arg(&args[0])?.entries.borrow();
    let mut res = BTreeMap::new();
    for k in &args[1..] {
        let k = str_arg(k);
        if let Some(v) = src.get(k) {
            res.insert(k.to_string(), v.clone());
        }
    }
    Ok(Value::map(res))
}

fn omit(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let src = map_arg(&args[0])?.entries.borrow();
    let drop: Vec<&str> = args[1..].iter().map(str_arg).collect();
    let res = src.iter().filter(|(k, _)| !drop.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
    Ok(Value::map(res))
}

fn merge(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    merge_all(args, false)
}

fn merge_overwrite(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    merge_all(args, true)
}

/// Sprig's `merge dst src…`: `mergo.Merge(&dst, src)` for each source in turn, returning `dst`
/// (a new map when `dst` was nil and a source was not).
fn merge_all(args: &[Value], overwrite: bool) -> Result<Value, FuncError> {
    let mut dst = args[0].clone();
    for src in &args[1..] {
        let src_map = map_arg(src)?;
        let dst_map = map_arg(&dst)?;
        if dst_map.nil && !src_map.nil {
            // mergo: `dst.Set(reflect.MakeMap(dst.Type()))` through the pointer Sprig passes.
            dst = Value::map(BTreeMap::new());
        }
        mergo_maps(map_arg(&dst)?, src_map, overwrite, 0)?;
    }
    Ok(dst)
}

/// mergo's `isEmptyValue` (dereferencing interfaces): nil, zero numbers, false, empty
/// strings/slices/maps. Structs and non-nil pointers are never empty.
fn mergo_empty(v: &Value) -> bool {
    match v {
        Value::Invalid | Value::Nil => true,
        Value::Bool(b) => !b,
        Value::Int(i, _) => *i == 0,
        Value::Float(f) => *f == 0.0,
        Value::Complex(..) => false,
        Value::String(s) => s.is_empty(),
        Value::List(l) => l.items.is_empty(),
        Value::Map(m) => m.entries.borrow().is_empty(),
        Value::Object(o) => o.is_nil(),
    }
}

/// mergo's `deepMerge` for two `map[string]interface{}` values, step by step:
///
/// * a nil source value is skipped (or copied over, with overwrite);
/// * a map source value is merged recursively into a map destination value, in place;
/// * a slice source value replaces the destination only when overwriting or when the whole
///   destination map is empty (so `merge` never appends or replaces lists that are set);
/// * then a destination value that is set is kept when the source is a slice, or both are
///   maps; otherwise the source value is stored when overwriting or when the destination value
///   is missing or empty (so `mergeOverwrite` does store "" and 0 over set values).
fn mergo_maps(dst: &Map, src: &Map, overwrite: bool, depth: usize) -> Result<(), FuncError> {
    if depth > MAX_DEPTH {
        return Err(FuncError::msg("merge: maps nested too deeply (a map contains itself?)"));
    }
    let src_entries: Vec<(String, Value)> = src.entries.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    for (key, s) in src_entries {
        let d = dst.entries.borrow().get(&key).cloned();
        match &s {
            Value::Nil | Value::Invalid => {
                if overwrite {
                    assign(dst, key, Value::Nil, &src.elem)?;
                }
                continue;
            }
            Value::Map(sm) => {
                // mergo recurses with non-addressable values: a nil destination map cannot be
                // replaced there, so it is left for the final step below.
                if let Some(Value::Map(dm)) = &d
                    && !dm.nil
                {
                    mergo_maps(dm, sm, overwrite, depth + 1)?;
                }
            }
            Value::List(sl) => {
                let dst_slice = match &d {
                    None | Some(Value::Nil) => Value::typed_list(sl.elem.clone(), Vec::new()),
                    Some(v) => v.clone(),
                };
                let dst_empty = dst.entries.borrow().is_empty();
                let new = if overwrite || dst_empty { s.clone() } else { dst_slice };
                let ty = new.type_of().unwrap_or(Type::Interface);
                assign(dst, key.clone(), new, &ty)?;
            }
            _ => {}
        }
        if let Some(dv) = &d
            && !mergo_empty(dv)
        {
            if matches!(s, Value::List(_)) {
                continue;
            }
            if matches!((&s, dv), (Value::Map(_), Value::Map(_))) {
                continue;
            }
        }
        if overwrite || d.as_ref().is_none_or(mergo_empty) {
            assign(dst, key, s, &src.elem)?;
        }
    }
    Ok(())
}

/// `reflect.Value.SetMapIndex`: a value whose static type is `ty` goes into `dst` only when
/// assignable to its element type. Only a nested typed map (a `map[string]string` from `split`)
/// can refuse, and Go panics there.
fn assign(dst: &Map, key: String, v: Value, ty: &Type) -> Result<(), FuncError> {
    if dst.elem != Type::Interface && dst.elem != *ty {
        return Err(FuncError::msg(format!(
            "reflect.Value.SetMapIndex: value of type {ty} is not assignable to type {}",
            dst.elem
        )));
    }
    dst.entries.borrow_mut().insert(key, v);
    Ok(())
}

/// Go's failed type assertion panic: `interface conversion: interface {} is T, not U`.
fn conversion_panic(v: &Value, want: &str) -> FuncError {
    let got = match v {
        Value::Nil | Value::Invalid => "nil".to_string(),
        other => other.type_name(),
    };
    FuncError::msg(format!("interface conversion: interface {{}} is {got}, not {want}"))
}

fn as_generic_map(v: &Value) -> Result<&Map, FuncError> {
    match v {
        Value::Map(m) if m.elem == Type::Interface => Ok(m),
        other => Err(conversion_panic(other, "map[string]interface {}")),
    }
}

/// `dig k1 k2 … default dict`: walks nested `map[string]interface{}` values; a missing key gives
/// the default, a non-map on the way is Go's type-assertion panic.
fn dig(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    if args.len() < 3 {
        return Err(FuncError::msg("dig needs at least three arguments"));
    }
    let mut dict = as_generic_map(&args[args.len() - 1])?.clone();
    let default = &args[args.len() - 2];
    let mut ks = Vec::with_capacity(args.len() - 2);
    for k in &args[..args.len() - 2] {
        match k {
            Value::String(s) => ks.push(s.clone()),
            other => return Err(conversion_panic(other, "string")),
        }
    }
    for (i, k) in ks.iter().enumerate() {
        let step = dict.entries.borrow().get(k.as_ref()).cloned();
        let Some(step) = step else {
            return Ok(default.clone());
        };
        if i == ks.len() - 1 {
            return Ok(step);
        }
        dict = as_generic_map(&step)?.clone();
    }
    Ok(default.clone())
}

/// copystructure's `Copy`: new maps and slices all the way down, with the same types. Nil has no
/// type to copy, which is reflect's panic.
fn deep_copy(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    if matches!(args[0], Value::Nil | Value::Invalid) {
        return Err(FuncError::msg("reflect: call of reflect.Value.Type on zero Value"));
    }
    copy_value(&args[0], 0)
}

fn copy_value(v: &Value, depth: usize) -> Result<Value, FuncError> {
    if depth > MAX_DEPTH {
        return Err(FuncError::msg("deepCopy: value nested too deeply (a map contains itself?)"));
    }
    Ok(match v {
        Value::List(l) => {
            let mut items = Vec::with_capacity(l.items.len());
            for x in l.items.iter() {
                items.push(copy_value(x, depth + 1)?);
            }
            Value::List(crate::value::List { elem: l.elem.clone(), items: std::rc::Rc::new(items), nil: l.nil })
        }
        Value::Map(m) => {
            let snapshot: Vec<(String, Value)> =
                m.entries.borrow().iter().map(|(k, x)| (k.clone(), x.clone())).collect();
            let mut entries = BTreeMap::new();
            for (k, x) in snapshot {
                entries.insert(k, copy_value(&x, depth + 1)?);
            }
            Value::Map(Map {
                elem: m.elem.clone(),
                entries: std::rc::Rc::new(std::cell::RefCell::new(entries)),
                nil: m.nil,
            })
        }
        other => other.clone(),
    })
}
