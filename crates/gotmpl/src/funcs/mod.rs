//! The function library: Sprig v3 (as kube-compare exposes it) plus kube-compare's own
//! functions, as one table of typed Go-like signatures.
//!
//! Each function declares its Go parameter types. The executor checks and converts arguments
//! exactly as text/template's `evalArg`/`validateType` do (a literal `3` fits an `int`
//! parameter, a data `int64` does not: `wrong type for value; expected int; got int64`), so an
//! implementation receives values that already match its declared parameters. Go's builtins
//! (`and`, `or`, `eq`, `index`, …) are not here: they live in the executor, because they take
//! `reflect.Value`s and short-circuit.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::budget::Budget;
use crate::value::{FuncError, Value};

mod args;
mod convert;
pub(crate) mod cost;
mod crypto;
mod date;
mod defaults;
pub(crate) mod dicts;
mod encoding;
mod kube;
pub(crate) mod lists;
mod math;
mod paths;
pub mod regex;
mod semver;
mod strings;

/// The parameter types live with the values they describe (`value` must not know the library).
pub use crate::value::Param;
pub use convert::*;
/// Go `encoding/json` string quoting (`appendString`), shared with the main crate's JSON writer.
pub use kube::json::quote_into as go_json_quote;

/// The signature of a function implementation. `args` already match the declared parameters
/// (variadic arguments follow the fixed ones).
pub type FuncImpl = fn(&mut Ctx<'_>, &[Value]) -> Result<Value, FuncError>;

/// One entry of the function table.
#[derive(Clone, Copy)]
pub struct Func {
    pub name: &'static str,
    pub params: &'static [Param],
    pub variadic: Option<Param>,
    pub imp: FuncImpl,
}

/// Bounds against hostile templates and data. Exceeding one is an error, never a hang.
///
/// All but [`Limits::budget`] are per execution; the budget is shared by clones.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Maximum bytes of rendered output.
    pub max_output: usize,
    /// Maximum nesting of `template` calls.
    pub max_depth: usize,
    /// Maximum number of evaluation steps (nodes executed, range iterations).
    pub fuel: u64,
    /// Maximum length of a list made by `until`, `untilStep`, `seq`, `list`…
    pub max_list_len: usize,
    /// Maximum length of a string made by `repeat`, `indent`, `randAlpha`…
    pub max_string_len: usize,
    /// Weighted steps and wall time shared by every execution given these limits (or a clone
    /// of them): one budget per run, whatever the number of renders.
    pub budget: Budget,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_output: 16 << 20,
            // Go's text/template allows 100000 nested template calls; we stop much earlier:
            // a recursion this deep is never a real reference.
            max_depth: 10_000,
            fuel: 50_000_000,
            max_list_len: 1_000_000,
            max_string_len: 16 << 20,
            budget: Budget::default(),
        }
    }
}

/// What a function may see of the execution: limits and kube-compare's cluster CRs (for
/// `lookupCR`/`lookupCRs`). No environment, network or file access is offered, on purpose.
pub struct Ctx<'a> {
    pub limits: &'a Limits,
    /// Cluster CRs in load order (each a `map[string]interface {}`).
    pub crs: &'a [Value],
}

/// Registers functions into a table; each library module provides one `register`.
pub struct Registry {
    map: HashMap<&'static str, Func>,
}

impl Registry {
    pub fn add(&mut self, name: &'static str, params: &'static [Param], variadic: Option<Param>, imp: FuncImpl) {
        self.map.insert(name, Func { name, params, variadic, imp });
    }
}

static TABLE: LazyLock<HashMap<&'static str, Func>> = LazyLock::new(|| {
    let mut r = Registry { map: HashMap::new() };
    strings::register(&mut r);
    regex::register(&mut r);
    encoding::register(&mut r);
    crypto::register(&mut r);
    paths::register(&mut r);
    math::register(&mut r);
    lists::register(&mut r);
    dicts::register(&mut r);
    defaults::register(&mut r);
    semver::register(&mut r);
    date::register(&mut r);
    // kube-compare's functions last: they replace Sprig's `toJson`/`fromJson`.
    kube::register(&mut r);
    r.map
});

/// Looks a library function up by name (Go builtins excluded).
pub fn lookup(name: &str) -> Option<&'static Func> {
    TABLE.get(name)
}

/// Every library function name, sorted.
pub fn names() -> Vec<&'static str> {
    let mut v: Vec<_> = TABLE.keys().copied().collect();
    v.sort_unstable();
    v
}
