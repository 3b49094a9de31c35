//! Kubernetes' semver library (`k8s.io/apiserver/pkg/cel/library/semverlib.go`):
//! `semver(string)`, `semver(string, bool)`, `isSemver(string)`, `isSemver(string, bool)`,
//! `major`, `minor`, `patch`, and `isGreaterThan`, `isLessThan`, `compareTo` (which the
//! quantity library shares: [`super::quantity`] hands a version to [`compare`]).
//!
//! Parsing is strict semver 2.0 (blang/semver's `Parse`: no `v`, no leading zeros, three
//! numbers); with `true` as second argument, Kubernetes' normalisation first (a `v` prefix
//! dropped, leading zeros dropped, missing minor and patch taken as 0). Ordering is semver
//! precedence: build metadata is ignored. The normalisation follows kube-rs's `kube-cel`
//! (`src/functions/semver_funcs.rs`, Apache-2.0).

use std::cmp::Ordering;
use std::sync::Arc;

use cel::common::value::CowVal;
use cel::objects::Opaque;
use cel::{DeclarationError, Env, ExecutionError, Value};

use super::{DYN, Res, bad, give, global, member, string_arg, values};

#[derive(Clone, Debug)]
pub struct Semver(semver::Version);

impl PartialEq for Semver {
    fn eq(&self, other: &Self) -> bool {
        self.0.cmp_precedence(&other.0) == Ordering::Equal
    }
}

impl Eq for Semver {}

impl Opaque for Semver {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.Semver"
    }
}

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    global(env, "semver", 1, parse_fn)?;
    global(env, "semver", 2, parse_fn)?;
    global(env, "isSemver", 1, is_semver)?;
    global(env, "isSemver", 2, is_semver)?;
    member(env, "major", DYN, 0, |a| part("major", a, |v| v.major))?;
    member(env, "minor", DYN, 0, |a| part("minor", a, |v| v.minor))?;
    member(env, "patch", DYN, 0, |a| part("patch", a, |v| v.patch))?;
    Ok(())
}

/// Kubernetes' lenient form: `v1.02` → `1.2.0`.
fn normalize(s: &str) -> String {
    let s = s.strip_prefix('v').unwrap_or(s);
    let (version, rest) = match s.find(['-', '+']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let parts: Vec<&str> = version.split('.').collect();
    if parts.len() > 3 || parts.iter().any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit())) {
        return s.to_string();
    }
    let strip = |p: &str| {
        let t = p.trim_start_matches('0');
        if t.is_empty() { "0".to_string() } else { t.to_string() }
    };
    let mut nums: Vec<String> = parts.iter().map(|p| strip(p)).collect();
    nums.resize(3, "0".to_string());
    format!("{}{rest}", nums.join("."))
}

fn parse(function: &str, args: &[Value]) -> Result<Result<semver::Version, String>, ExecutionError> {
    let s = string_arg(function, &args[0])?;
    let lenient = match args.get(1) {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(bad(function, format!("expects a bool, not {}", other.type_of()))),
    };
    let text = if lenient { normalize(s) } else { s.to_string() };
    Ok(semver::Version::parse(&text).map_err(|e| e.to_string()))
}

fn parse_fn<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let v = parse("semver", &a)?.map_err(|e| bad("semver", format!("could not parse semver: {e}")))?;
    give(Value::Opaque(Arc::new(Semver(v))))
}

fn is_semver<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    give(Value::Bool(parse("isSemver", &a)?.is_ok()))
}

fn this(function: &str, v: &Value) -> Result<Semver, ExecutionError> {
    match v {
        Value::Opaque(o) => o.downcast_ref::<Semver>().cloned().ok_or_else(|| bad(function, "expects a semver")),
        other => Err(bad(function, format!("expects a semver, not {}", other.type_of()))),
    }
}

fn part<'b, 'v>(function: &str, args: Vec<CowVal<'b, 'v>>, f: fn(&semver::Version) -> u64) -> Res<'b, 'v> {
    let a = values(&args)?;
    give(Value::Int(f(&this(function, &a[0])?.0) as i64))
}

/// Whether `v` is a version (for the comparison functions shared with quantities).
pub fn is_version(v: &Value) -> bool {
    matches!(v, Value::Opaque(o) if o.downcast_ref::<Semver>().is_some())
}

/// The precedence of two versions.
pub fn compare(function: &str, a: &Value, b: &Value) -> Result<Ordering, ExecutionError> {
    Ok(this(function, a)?.0.cmp_precedence(&this(function, b)?.0))
}
