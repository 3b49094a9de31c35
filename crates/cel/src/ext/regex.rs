//! Regular expressions: CEL's `matches` and Kubernetes' regex library
//! (`k8s.io/apiserver/pkg/cel/library/regex.go`), `find` and `findAll` on strings, with RE2
//! syntax (the `regex` crate's, which is RE2's without backreferences, as Go's).
//!
//! Compiling a pattern can cost far more than matching it, and the pattern may come from the
//! object: a few bytes such as `\pL{500}` compile to megabytes. So a pattern is compiled
//! within growing size limits ([`TIERS`]), each charged to the rule's budget *before* it is
//! tried, and refused past the last. `matches` is the `cel` crate's own name: the compiler
//! renames its calls to [`MATCHES_FUNCTION`] (the crate's version compiles without a limit).
//!
//! A pattern's compilation is charged once per object: a rule on a list's items uses the same
//! pattern for every item (Kubernetes compiles a constant pattern once, with the rule). What
//! was compiled is kept per process too, to skip the work, but a kept pattern is charged
//! what compiling it was charged, so that what a rule may do within its budget does not
//! depend on what ran before it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cel::common::value::CowVal;
use cel::{DeclarationError, Env, Value};

use super::{Res, STRING, bad, give, global, member, string_arg, values};
use crate::cost;

pub use crate::cost::MATCHES_FUNCTION;

/// The compiled-size limits a pattern is tried within, smallest first, each with the steps
/// trying it costs (about what compiling that much takes, at the pace of evaluation steps:
/// docs/security.md gives the figures). A pattern over the last one is an error; Kubernetes
/// does not limit a pattern's size, but its static cost estimate refuses large patterns
/// applied to long strings.
pub const TIERS: [(usize, u64); 3] = [(16 << 10, 2_000), (128 << 10, 20_000), (MAX_COMPILED, 200_000)];

/// The compiled size one pattern may take (the `regex` crate's own default is 10 MiB).
pub const MAX_COMPILED: usize = 1 << 20;

/// Compiled bytes kept per process, each pattern counted at the tier it compiled within (its
/// compiled size is at most that); past them, new patterns are compiled but not kept (and
/// charged the same).
const MAX_CACHED_BYTES: usize = 64 << 20;

type Compiled = Result<Arc<::regex::Regex>, String>;

#[derive(Default)]
struct Cache {
    compiled: HashMap<String, (Compiled, u64)>,
    bytes: usize,
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

thread_local! {
    /// The patterns the object being evaluated has paid for (by its number), used without
    /// another charge. Bounded by the object's budget: each costs at least the first tier.
    static OBJECT: RefCell<(u64, HashMap<String, Compiled>)> = RefCell::new((0, HashMap::new()));
}

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    member(env, "find", STRING, 1, find)?;
    member(env, "findAll", STRING, 1, find_all)?;
    member(env, "findAll", STRING, 2, find_all)?;
    member(env, MATCHES_FUNCTION, STRING, 1, matches)?;
    global(env, MATCHES_FUNCTION, 2, matches)?;
    Ok(())
}

/// `pattern`, compiled within [`TIERS`], each tier charged before it is tried (or, when it
/// was compiled before, what compiling it was charged); free when the object paid for it.
fn compile(function: &str, pattern: &str) -> Result<Arc<::regex::Regex>, cel::ExecutionError> {
    cost::charge(pattern.len() as u64 / 16)?;
    let object = cost::object();
    let paid = OBJECT.with(|o| {
        let mut o = o.borrow_mut();
        if o.0 != object {
            *o = (object, HashMap::new());
        }
        o.1.get(pattern).cloned()
    });
    let compiled = match paid {
        Some(compiled) => compiled,
        None => {
            let compiled = charged(pattern)?;
            OBJECT.with(|o| o.borrow_mut().1.insert(pattern.to_string(), compiled.clone()));
            compiled
        }
    };
    compiled.map_err(|e| bad(function, format!("invalid regular expression: {e}")))
}

/// `pattern` compiled (or taken from the process' cache), its tiers charged.
fn charged(pattern: &str) -> Result<Compiled, cel::ExecutionError> {
    let hit = cache().lock().unwrap_or_else(|e| e.into_inner()).compiled.get(pattern).cloned();
    if let Some((compiled, steps)) = hit {
        cost::charge(steps)?;
        return Ok(compiled);
    }
    let mut steps = 0;
    let mut size = 0;
    let mut compiled = Err(format!("it compiles to more than {} KiB", MAX_COMPILED >> 10));
    for (limit, cost) in TIERS {
        cost::charge(cost)?;
        steps += cost;
        size = limit;
        match ::regex::RegexBuilder::new(pattern).size_limit(limit).build() {
            Ok(re) => {
                compiled = Ok(Arc::new(re));
                break;
            }
            Err(::regex::Error::CompiledTooBig(_)) => {}
            Err(e) => {
                compiled = Err(crate::one_line(&e.to_string()));
                break;
            }
        }
    }
    let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
    let size = pattern.len() + if compiled.is_ok() { size } else { 0 };
    if cache.bytes + size <= MAX_CACHED_BYTES {
        cache.bytes += size;
        cache.compiled.insert(pattern.to_string(), (compiled.clone(), steps));
    }
    Ok(compiled)
}

/// `s.matches(re)` and `matches(s, re)`: whether `re` matches anywhere in `s`.
fn matches<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let s = string_arg("matches", &a[0])?;
    let re = compile("matches", string_arg("matches", &a[1])?)?;
    cost::charge(s.len() as u64 / 8 + 1)?;
    give(Value::Bool(re.is_match(s)))
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
