//! cel-go's strings extension (`ext.Strings()`, which Kubernetes enables), written here rather
//! than taken from the `cel` crate so that every function that builds a string or a list
//! checks what it produces against [`crate::cost::MAX_PRODUCED`] and charges it: `replace`,
//! `join` and `format` can multiply their input, and nested calls would multiply again.
//!
//! Indices are in code points, as in cel-go. `charAt`, `indexOf`, `lastIndexOf`, `join`,
//! `lowerAscii`, `upperAscii`, `trim`, `replace`, `split`, `substring`, `reverse`, `format`
//! (verbs `%s %d %f %.Nf %e %x %X %o %b %%`).

use std::sync::Arc;

use cel::common::value::CowVal;
use cel::{DeclarationError, Env, Value};

use super::{LIST, Res, STRING, bad, give, global, member, string_arg, values};
use crate::cost;

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    member(env, "charAt", STRING, 1, char_at)?;
    member(env, "indexOf", STRING, 1, index_of)?;
    member(env, "indexOf", STRING, 2, index_of)?;
    member(env, "lastIndexOf", STRING, 1, last_index_of)?;
    member(env, "lastIndexOf", STRING, 2, last_index_of)?;
    member(env, "join", LIST, 0, join)?;
    member(env, "join", LIST, 1, join)?;
    member(env, "lowerAscii", STRING, 0, lower_ascii)?;
    member(env, "upperAscii", STRING, 0, upper_ascii)?;
    member(env, "trim", STRING, 0, trim)?;
    member(env, "replace", STRING, 2, replace)?;
    member(env, "replace", STRING, 3, replace)?;
    member(env, "split", STRING, 1, split)?;
    member(env, "split", STRING, 2, split)?;
    member(env, "substring", STRING, 1, substring)?;
    member(env, "substring", STRING, 2, substring)?;
    member(env, "reverse", STRING, 0, reverse)?;
    member(env, "format", STRING, 1, format)?;
    global(env, "strings.quote", 1, quote)?;
    Ok(())
}

fn text<'b, 'v>(function: &str, s: String) -> Res<'b, 'v> {
    cost::produce(function, s.len())?;
    give(Value::String(Arc::new(s)))
}

fn int_arg(function: &str, v: Option<&Value>) -> Result<Option<i64>, cel::ExecutionError> {
    match v {
        None => Ok(None),
        Some(Value::Int(i)) => Ok(Some(*i)),
        Some(other) => Err(bad(function, format!("expects an int, not {}", other.type_of()))),
    }
}

fn runes(function: &str, v: &Value) -> Result<Vec<char>, cel::ExecutionError> {
    let s = string_arg(function, v)?;
    cost::charge(s.len() as u64 / 8 + 1)?;
    Ok(s.chars().collect())
}

fn out_of_range(function: &str, i: i64) -> cel::ExecutionError {
    bad(function, format!("index out of range: {i}"))
}

fn char_at<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let r = runes("charAt", &a[0])?;
    let i = int_arg("charAt", a.get(1))?.unwrap_or(0);
    if i < 0 || i as usize > r.len() {
        return Err(out_of_range("charAt", i));
    }
    give(Value::String(Arc::new(r.get(i as usize).map(|c| c.to_string()).unwrap_or_default())))
}

fn find(hay: &[char], needle: &[char], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return Some(from);
    }
    (from..=hay.len().saturating_sub(needle.len()))
        .find(|&i| i + needle.len() <= hay.len() && hay[i..i + needle.len()] == *needle)
}

fn index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let hay = runes("indexOf", &a[0])?;
    let needle = runes("indexOf", &a[1])?;
    let from = int_arg("indexOf", a.get(2))?.unwrap_or(0);
    if from < 0 || from as usize > hay.len() {
        return Err(out_of_range("indexOf", from));
    }
    cost::charge((hay.len() * needle.len().max(1)) as u64 / 8 + 1)?;
    give(Value::Int(find(&hay, &needle, from as usize).map_or(-1, |i| i as i64)))
}

fn last_index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let hay = runes("lastIndexOf", &a[0])?;
    let needle = runes("lastIndexOf", &a[1])?;
    let from = match int_arg("lastIndexOf", a.get(2))? {
        None => hay.len() as i64,
        Some(i) if i < 0 || i as usize > hay.len() => return Err(out_of_range("lastIndexOf", i)),
        Some(i) => i,
    };
    if needle.is_empty() {
        return give(Value::Int(from));
    }
    cost::charge((hay.len() * needle.len()) as u64 / 8 + 1)?;
    let found =
        (0..=from as usize).rev().find(|&i| i + needle.len() <= hay.len() && hay[i..i + needle.len()] == *needle);
    give(Value::Int(found.map_or(-1, |i| i as i64)))
}

fn join<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let Value::List(items) = &a[0] else { return Err(bad("join", "expects a list")) };
    let sep = match a.get(1) {
        Some(v) => string_arg("join", v)?.to_string(),
        None => String::new(),
    };
    let mut total = sep.len() * items.len();
    let mut parts = Vec::with_capacity(items.len());
    for item in items.iter() {
        let s = string_arg("join", item)?;
        total += s.len();
        cost::produce("join", total)?;
        parts.push(s);
    }
    text("join", parts.join(&sep))
}

fn lower_ascii<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    text("lowerAscii", string_arg("lowerAscii", &a[0])?.to_ascii_lowercase())
}

fn upper_ascii<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    text("upperAscii", string_arg("upperAscii", &a[0])?.to_ascii_uppercase())
}

fn trim<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    text("trim", string_arg("trim", &a[0])?.trim().to_string())
}

fn replace<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let s = string_arg("replace", &a[0])?;
    let old = string_arg("replace", &a[1])?;
    let new = string_arg("replace", &a[2])?;
    let n = int_arg("replace", a.get(3))?.unwrap_or(-1);
    // The result's size before building it: every match (every gap for an empty `old`).
    let matches = if old.is_empty() { s.chars().count() + 1 } else { s.matches(old).count() };
    let replaced = if n < 0 { matches } else { matches.min(n as usize) };
    let size = s.len() + replaced * new.len();
    cost::produce("replace", size)?;
    let out = if n < 0 { s.replace(old, new) } else { s.replacen(old, new, n as usize) };
    text("replace", out)
}

fn split<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let s = string_arg("split", &a[0])?;
    let sep = string_arg("split", &a[1])?;
    let n = int_arg("split", a.get(2))?.unwrap_or(-1);
    cost::charge(s.len() as u64 / 8 + 1)?;
    let parts: Vec<String> = match n {
        0 => Vec::new(),
        _ if sep.is_empty() => {
            let chars: Vec<String> = s.chars().map(|c| c.to_string()).collect();
            if n > 0 && (n as usize) < chars.len() {
                let mut head: Vec<String> = chars[..n as usize - 1].to_vec();
                head.push(chars[n as usize - 1..].concat());
                head
            } else {
                chars
            }
        }
        n if n < 0 => s.split(sep).map(str::to_string).collect(),
        n => s.splitn(n as usize, sep).map(str::to_string).collect(),
    };
    cost::produce("split", parts.len())?;
    give(Value::List(Arc::new(parts.into_iter().map(|p| Value::String(Arc::new(p))).collect())))
}

fn substring<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let r = runes("substring", &a[0])?;
    let start = int_arg("substring", a.get(1))?.unwrap_or(0);
    let end = int_arg("substring", a.get(2))?.unwrap_or(r.len() as i64);
    if start < 0 || start as usize > r.len() {
        return Err(out_of_range("substring", start));
    }
    if end < 0 || end as usize > r.len() {
        return Err(out_of_range("substring", end));
    }
    if start > end {
        return Err(bad("substring", format!("invalid substring range. start: {start}, end: {end}")));
    }
    text("substring", r[start as usize..end as usize].iter().collect())
}

fn reverse<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    text("reverse", string_arg("reverse", &a[0])?.chars().rev().collect())
}

/// `'%s is %d'.format([a, b])`: cel-go's verbs, for the values a rule's message needs.
fn format<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let f = string_arg("format", &a[0])?;
    let Value::List(items) = &a[1] else { return Err(bad("format", "expects a list of arguments")) };
    let mut out = String::new();
    let mut next = items.iter();
    let mut chars = f.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut precision = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut digits = String::new();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(*d);
                chars.next();
            }
            precision = Some(digits.parse::<usize>().map_err(|_| bad("format", "bad precision"))?.min(64));
        }
        let verb = chars.next().ok_or_else(|| bad("format", "a format string ends with %"))?;
        if verb == '%' {
            out.push('%');
            continue;
        }
        let v = next.next().ok_or_else(|| bad("format", "too few arguments for the format string"))?;
        let piece = match (verb, v) {
            ('s', _) => plain(v),
            ('d', Value::Int(i)) => i.to_string(),
            ('d', Value::UInt(u)) => u.to_string(),
            ('f', Value::Float(x)) => format!("{x:.*}", precision.unwrap_or(6)),
            ('f', Value::Int(i)) => format!("{:.*}", precision.unwrap_or(6), *i as f64),
            ('e', Value::Float(x)) => format!("{x:.*e}", precision.unwrap_or(6)),
            ('x', Value::Int(i)) => format!("{i:x}"),
            ('X', Value::Int(i)) => format!("{i:X}"),
            ('x', Value::String(s)) => s.bytes().map(|b| format!("{b:02x}")).collect(),
            ('X', Value::String(s)) => s.bytes().map(|b| format!("{b:02X}")).collect(),
            ('o', Value::Int(i)) => format!("{i:o}"),
            ('b', Value::Int(i)) => format!("{i:b}"),
            (verb, v) => return Err(bad("format", format!("%{verb} does not format a {}", v.type_of()))),
        };
        cost::produce("format", out.len() + piece.len())?;
        out.push_str(&piece);
    }
    text("format", out)
}

/// `%s` of a value, as cel-go prints it.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::List(items) => format!("[{}]", items.iter().map(plain).collect::<Vec<_>>().join(", ")),
        other => crate::show(other),
    }
}

/// cel-go's `strings.quote`: the string in double quotes, with the escapes a CEL string
/// literal reads back (`\a \b \f \n \r \t \v \\ \"`); other characters as they are.
fn quote<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let s = string_arg("strings.quote", &a[0])?;
    cost::charge(s.len() as u64 / 8 + 1)?;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    text("strings.quote", out)
}
