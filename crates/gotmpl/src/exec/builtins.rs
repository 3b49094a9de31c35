//! Go's builtin template functions (`text/template/funcs.go`): `not`, `len`, `index`, `call`,
//! the comparisons, the `print` family and the escapers. `and`/`or` short-circuit, so the
//! evaluator runs them; `slice` is shadowed by Sprig's in kube-compare's function map.
//!
//! Builtins take `reflect.Value`s: arguments arrive unconverted, a missing value as
//! [`Value::Invalid`], a nil interface as [`Value::Nil`] (Go's `indirectInterface` makes both
//! "no value" for the comparisons).

use crate::fmt::{sprint, sprintf, sprintln};
use crate::node::{Arg, Builtin};
use crate::value::{IntKind, Type, Value};

/// Go's `truth`: `isTrue` of the value inside any interface.
pub(super) fn truth(v: &Value) -> bool {
    v.truth().0
}

pub(super) fn call(b: Builtin, argv: &[Value], args: &[Arg]) -> Result<Value, String> {
    Ok(match b {
        Builtin::Not => Value::Bool(!truth(&argv[0])),
        Builtin::Len => Value::int(length(&argv[0])?),
        Builtin::Index => index(&argv[0], &argv[1..])?,
        Builtin::Eq => Value::Bool(eq(&argv[0], &argv[1..])?),
        Builtin::Ne => Value::Bool(!eq(&argv[0], &argv[1..2])?),
        Builtin::Lt => Value::Bool(lt(&argv[0], &argv[1])?),
        Builtin::Le => Value::Bool(lt(&argv[0], &argv[1])? || eq(&argv[0], &argv[1..2])?),
        Builtin::Gt => Value::Bool(!(lt(&argv[0], &argv[1])? || eq(&argv[0], &argv[1..2])?)),
        Builtin::Ge => Value::Bool(!lt(&argv[0], &argv[1])?),
        Builtin::Print => Value::str(sprint(argv)),
        Builtin::Println => Value::str(sprintln(argv)),
        Builtin::Printf => {
            let f = argv[0].as_str().unwrap_or_default();
            Value::str(sprintf(f, &argv[1..]))
        }
        Builtin::Html => Value::str(html_escape(&eval_args(argv))),
        Builtin::Js => Value::str(js_escape(&eval_args(argv))),
        Builtin::UrlQuery => Value::str(query_escape(&eval_args(argv))),
        Builtin::Call => {
            // Template data never holds Go functions, so every `call` fails as Go's would.
            let callee = args.first().map(|a| a.to_string()).unwrap_or_default();
            return Err(match &argv[0] {
                Value::Invalid | Value::Nil => "call of nil".to_string(),
                v => format!("non-function {callee} of type {}", v.type_name()),
            });
        }
        Builtin::Slice => return Err("slice is provided by the function library".into()),
        Builtin::And | Builtin::Or => unreachable!("and/or are evaluated by the executor"),
    })
}

fn length(v: &Value) -> Result<i64, String> {
    match v {
        Value::Nil => Err("len of nil pointer".into()),
        Value::Invalid => Err("reflect: call of reflect.Value.Type on zero Value".into()),
        Value::String(s) => Ok(s.go_len() as i64),
        Value::List(l) => Ok(l.items.len() as i64),
        Value::Map(m) => Ok(m.entries.borrow().len() as i64),
        Value::Object(o) if o.is_nil() => Err("len of nil pointer".into()),
        v => Err(format!("len of type {}", v.type_name())),
    }
}

/// Go's `indexArg`: an integer index checked against the length.
fn index_arg(i: &Value, len: usize) -> Result<usize, String> {
    let x = match i {
        Value::Int(x, k) if k.is_unsigned() => *x as u64 as i128,
        Value::Int(x, _) => *x as i128,
        Value::Invalid | Value::Nil => return Err("cannot index slice/array with nil".into()),
        v => return Err(format!("cannot index slice/array with type {}", v.type_name())),
    };
    if x < 0 || x > len as i128 {
        return Err(format!("index out of range: {x}"));
    }
    if x == len as i128 {
        // Go checks against the capacity and then lets reflect panic at the length.
        return Err("reflect: slice index out of range".into());
    }
    Ok(x as usize)
}

/// The zero value of a map's element type (what `index` gives for a missing key).
fn zero_of(t: &Type) -> Value {
    match t {
        Type::Interface => Value::Nil,
        Type::Bool => Value::Bool(false),
        Type::Int(k) => Value::Int(0, *k),
        Type::Float64 => Value::Float(0.0),
        Type::Complex128 => Value::Complex(0.0, 0.0),
        Type::String => Value::str(""),
        Type::Slice(e) => Value::nil_list((**e).clone()),
        Type::Map(e) => match Value::nil_map() {
            Value::Map(mut m) => {
                m.elem = (**e).clone();
                Value::Map(m)
            }
            v => v,
        },
        Type::Named(_) => Value::Nil,
    }
}

fn index(item: &Value, indexes: &[Value]) -> Result<Value, String> {
    let mut item = match item {
        Value::Invalid | Value::Nil => return Err("index of untyped nil".into()),
        v => v.clone(),
    };
    for i in indexes {
        item = match &item {
            Value::Nil => return Err("index of nil pointer".into()),
            Value::List(l) => l.items[index_arg(i, l.items.len())?].clone(),
            Value::String(s) => Value::Int(s.as_bytes()[index_arg(i, s.len())?] as i64, IntKind::Uint8),
            Value::Map(m) => match i {
                Value::String(k) => m.entries.borrow().get(&**k).cloned().unwrap_or_else(|| zero_of(&m.elem)),
                Value::Invalid | Value::Nil => return Err("value is nil; should be of type string".into()),
                v => return Err(format!("value has type {}; should be string", v.type_name())),
            },
            Value::Object(o) if o.is_nil() => return Err("index of nil pointer".into()),
            v => return Err(format!("can't index item of type {}", v.type_name())),
        };
    }
    Ok(item)
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Kind {
    Invalid,
    Bool,
    Int,
    Uint,
    Float,
    Complex,
    String,
}

fn basic_kind(v: &Value) -> Kind {
    match v {
        Value::Bool(_) => Kind::Bool,
        Value::Int(_, k) if k.is_unsigned() => Kind::Uint,
        Value::Int(..) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::Complex(..) => Kind::Complex,
        Value::String(_) => Kind::String,
        _ => Kind::Invalid,
    }
}

fn is_nil(v: &Value) -> bool {
    match v {
        Value::Invalid | Value::Nil => true,
        Value::List(l) => l.nil,
        Value::Map(m) => m.nil,
        Value::Object(o) => o.is_nil(),
        _ => false,
    }
}

/// Go's `eq`: true when `a` equals any of `bs`; stops at the first match.
fn eq(a: &Value, bs: &[Value]) -> Result<bool, String> {
    if bs.is_empty() {
        return Err("missing argument for comparison".into());
    }
    let k1 = basic_kind(a);
    for b in bs {
        let k2 = basic_kind(b);
        let truth = if k1 != k2 {
            match (k1, k2, a, b) {
                (Kind::Int, Kind::Uint, Value::Int(x, _), Value::Int(y, _)) => *x >= 0 && *x as u64 == *y as u64,
                (Kind::Uint, Kind::Int, Value::Int(x, _), Value::Int(y, _)) => *y >= 0 && *x as u64 == *y as u64,
                _ => {
                    if !matches!(a, Value::Invalid | Value::Nil) && !matches!(b, Value::Invalid | Value::Nil) {
                        return Err(incompatible(a, b));
                    }
                    false
                }
            }
        } else {
            match (a, b) {
                (Value::Bool(x), Value::Bool(y)) => x == y,
                (Value::Int(x, _), Value::Int(y, _)) => x == y,
                (Value::Float(x), Value::Float(y)) => x == y,
                (Value::Complex(xr, xi), Value::Complex(yr, yi)) => xr == yr && xi == yi,
                (Value::String(x), Value::String(y)) => x == y,
                _ => {
                    let (a_nil, b_nil) = (is_nil(a), is_nil(b));
                    let same_kind = std::mem::discriminant(a) == std::mem::discriminant(b)
                        || matches!(a, Value::Invalid | Value::Nil)
                        || matches!(b, Value::Invalid | Value::Nil);
                    if !same_kind {
                        return Err(format!(
                            "non-comparable types {}: {}, {}: {}",
                            sprintf("%s", std::slice::from_ref(a)),
                            a.type_name(),
                            b.type_name(),
                            crate::fmt::sprint_value(b)
                        ));
                    }
                    if a_nil || b_nil {
                        a_nil == b_nil
                    } else {
                        match (a, b) {
                            (_, Value::List(_) | Value::Map(_)) => {
                                return Err(format!(
                                    "non-comparable type {}: {}",
                                    sprintf("%s", std::slice::from_ref(b)),
                                    b.type_name()
                                ));
                            }
                            // Go's == on pointers is identity; on structs (time.Time) equality.
                            (Value::Object(x), Value::Object(y)) if x.type_name().starts_with('*') => {
                                std::rc::Rc::ptr_eq(x, y)
                            }
                            _ => a.deep_equal(b),
                        }
                    }
                }
            }
        };
        if truth {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Go's `errBadComparison`, with the operand types as Go 1.24+ words it.
fn incompatible(a: &Value, b: &Value) -> String {
    format!("incompatible types for comparison: {} and {}", a.type_name(), b.type_name())
}

/// Go's `lt`.
fn lt(a: &Value, b: &Value) -> Result<bool, String> {
    let (k1, k2) = (basic_kind(a), basic_kind(b));
    if k1 == Kind::Invalid || k2 == Kind::Invalid {
        return Err("invalid type for comparison".into());
    }
    if k1 != k2 {
        return match (k1, k2, a, b) {
            (Kind::Int, Kind::Uint, Value::Int(x, _), Value::Int(y, _)) => Ok(*x < 0 || (*x as u64) < *y as u64),
            (Kind::Uint, Kind::Int, Value::Int(x, _), Value::Int(y, _)) => Ok(*y >= 0 && (*x as u64) < *y as u64),
            _ => Err(incompatible(a, b)),
        };
    }
    Ok(match (a, b) {
        (Value::Int(x, k), Value::Int(y, _)) if k.is_unsigned() => (*x as u64) < *y as u64,
        (Value::Int(x, _), Value::Int(y, _)) => x < y,
        (Value::Float(x), Value::Float(y)) => x < y,
        (Value::String(x), Value::String(y)) => x < y,
        _ => return Err("invalid type for comparison".into()),
    })
}

/// Go's `evalArgs` for the escapers: a lone string as is, else `fmt.Sprint` with missing
/// values shown as `<no value>`.
fn eval_args(argv: &[Value]) -> String {
    if let [Value::String(s)] = argv {
        return s.to_string();
    }
    let shown: Vec<Value> = argv
        .iter()
        .map(|v| if matches!(v, Value::Nil | Value::Invalid) { Value::str("<no value>") } else { v.clone() })
        .collect();
    sprint(&shown)
}

/// Go's `HTMLEscapeString`.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Go's `JSEscapeString`.
pub fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if c.is_ascii() && (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if !c.is_ascii() && !crate::strconv::is_print(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Go's `url.QueryEscape`.
pub fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
