//! Sprig's `semver` and `semverCompare` over a re-implementation of Masterminds/semver v3.3.0:
//! `NewVersion` (coercing `v4.14` to 4.14.0, keeping the original text), `Version.Compare`
//! (prerelease ordering), and `NewConstraint`/`Check` with its operators (`= != > < >= <= ~ ~>
//! ^`, x-ranges, `a - b` ranges, `,`/space for AND, `||` for OR) and its prerelease rule: a
//! prerelease version only satisfies an AND group that itself names a prerelease. The Rust
//! `semver` crate follows Cargo's rules, which differ, hence this module.
//!
//! A version is a `*semver.Version` object with the Go methods templates call (`.Major`,
//! `.Prerelease`, `.Compare`, `.IncMinor`, …); `.Inc*` return a `semver.Version` value.

use std::any::Any;
use std::cmp::Ordering;
use std::sync::LazyLock;

use regex::Regex;

use super::{Ctx, Param, Registry};
use crate::value::{FuncError, IntKind, Object, Type, Value};

pub(super) fn register(r: &mut Registry) {
    r.add("semver", &[Param::String], None, semver);
    r.add("semverCompare", &[Param::String, Param::String], None, semver_compare);
}

fn semver(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let v = Version::parse(args[0].as_str().unwrap_or_default())?;
    Ok(Value::object(v))
}

fn semver_compare(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let c = Constraints::parse(args[0].as_str().unwrap_or_default())?;
    let v = Version::parse(args[1].as_str().unwrap_or_default())?;
    Ok(Value::Bool(c.check(&v)))
}

/// Go's `\s` (RE2 is ASCII-only): Rust's `\s` is Unicode-aware, so spell the class out.
const WS: &str = r"[\t\n\f\r ]";

/// `NewVersion`'s (loose) regular expression.
static VERSION_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?",
        r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?",
        r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$"
    ))
    .expect("valid version regex")
});

/// A parsed version (Masterminds/semver `Version`). `pointer` tells a `*semver.Version` (what
/// `semver` returns) from a `semver.Version` value (what `.IncPatch` returns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    pre: String,
    metadata: String,
    original: String,
    pointer: bool,
}

const ERR_INVALID: &str = "Invalid Semantic Version";

impl Version {
    /// `semver.NewVersion`.
    pub fn parse(v: &str) -> Result<Version, FuncError> {
        let m = VERSION_RE.captures(v).ok_or_else(|| FuncError::msg(ERR_INVALID))?;
        let seg = |i: usize| -> Result<u64, FuncError> {
            match m.get(i) {
                None => Ok(0),
                Some(s) => {
                    let digits = s.as_str().trim_start_matches('.');
                    digits.parse::<u64>().map_err(|_| {
                        FuncError::msg(format!(
                            "Error parsing version segment: strconv.ParseUint: parsing \"{digits}\": value out of range"
                        ))
                    })
                }
            }
        };
        let version = Version {
            major: seg(1)?,
            minor: seg(2)?,
            patch: seg(3)?,
            pre: m.get(5).map_or("", |s| s.as_str()).to_string(),
            metadata: m.get(8).map_or("", |s| s.as_str()).to_string(),
            original: v.to_string(),
            pointer: true,
        };
        if !version.pre.is_empty() {
            validate_prerelease(&version.pre)?;
        }
        Ok(version)
    }

    /// `Version.String()`: canonical form without a `v`.
    fn canonical(&self) -> String {
        let mut s = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if !self.pre.is_empty() {
            s.push('-');
            s.push_str(&self.pre);
        }
        if !self.metadata.is_empty() {
            s.push('+');
            s.push_str(&self.metadata);
        }
        s
    }

    /// `Version.Compare`: by major, minor, patch, then prerelease (a release sorts after its
    /// prereleases); metadata is ignored.
    pub fn compare(&self, o: &Version) -> Ordering {
        self.major.cmp(&o.major).then(self.minor.cmp(&o.minor)).then(self.patch.cmp(&o.patch)).then_with(|| {
            match (self.pre.is_empty(), o.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prerelease(&self.pre, &o.pre),
            }
        })
    }

    fn original_v_prefix(&self) -> &str {
        if self.original.starts_with('v') { "v" } else { "" }
    }

    /// A `semver.Version` value derived from `self` by an `Inc*`/`Set*` method.
    fn derived(&self, f: impl FnOnce(&mut Version)) -> Version {
        let mut next = self.clone();
        f(&mut next);
        next.original = format!("{}{}", self.original_v_prefix(), next.canonical());
        next.pointer = false;
        next
    }
}

/// Numeric prerelease identifiers must not have leading zeros.
fn validate_prerelease(p: &str) -> Result<(), FuncError> {
    for part in p.split('.') {
        if part.bytes().all(|c| c.is_ascii_digit()) {
            if part.len() > 1 && part.starts_with('0') {
                return Err(FuncError::msg("Version segment starts with 0"));
            }
        } else if !part.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-') {
            return Err(FuncError::msg("Invalid Prerelease string"));
        }
    }
    Ok(())
}

fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let (sa, sb): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    for i in 0..sa.len().max(sb.len()) {
        let d = compare_pre_part(sa.get(i).copied().unwrap_or(""), sb.get(i).copied().unwrap_or(""));
        if d != Ordering::Equal {
            return d;
        }
    }
    Ordering::Equal
}

/// Masterminds' `comparePrePart`: numbers sort before words; numbers numerically; a missing
/// part sorts first.
fn compare_pre_part(s: &str, o: &str) -> Ordering {
    if s == o {
        return Ordering::Equal;
    }
    if s.is_empty() {
        return Ordering::Less;
    }
    if o.is_empty() {
        return Ordering::Greater;
    }
    match (s.parse::<u64>(), o.parse::<u64>()) {
        (Err(_), Err(_)) => {
            if s > o {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Ok(si), Ok(oi)) => {
            if si > oi {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

fn ordering_int(o: Ordering) -> Value {
    Value::int(match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    })
}

/// Go's byte slice (`[]byte`), what `MarshalJSON`/`MarshalText` return; the JSON encoders use
/// these methods, as Go's `encoding/json` does for a `json.Marshaler`.
pub(crate) fn byte_slice(s: &str) -> Value {
    Value::typed_list(Type::Int(IntKind::Uint8), s.bytes().map(|b| Value::Int(i64::from(b), IntKind::Uint8)).collect())
}

/// Checks a method's argument count like text/template does.
pub(crate) fn want_args(name: &str, args: &[Value], n: usize) -> Result<(), FuncError> {
    if args.len() != n {
        return Err(FuncError::msg(format!("wrong number of args for {name}: want {n} got {}", args.len())));
    }
    Ok(())
}

/// The `*semver.Version` argument of `Compare`, `LessThan`, …
fn version_arg<'a>(name: &str, args: &'a [Value]) -> Result<&'a Version, FuncError> {
    want_args(name, args, 1)?;
    match &args[0] {
        Value::Object(o) => match o.as_any().downcast_ref::<Version>() {
            Some(v) if v.pointer => Ok(v),
            _ => Err(FuncError::msg(format!(
                "wrong type for value; expected *semver.Version; got {}",
                args[0].type_name()
            ))),
        },
        other => Err(FuncError::msg(format!("can't handle {} for arg of type *semver.Version", go_quote_value(other)))),
    }
}

fn go_quote_value(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => crate::fmt::sprint_value(other),
    }
}

fn string_arg<'a>(name: &str, args: &'a [Value]) -> Result<&'a str, FuncError> {
    want_args(name, args, 1)?;
    args[0]
        .as_str()
        .ok_or_else(|| FuncError::msg(format!("wrong type for value; expected string; got {}", args[0].type_name())))
}

fn is_identifier_list(s: &str) -> bool {
    s.split('.').all(|p| p.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-'))
}

const VALUE_METHODS: &[&str] = &[
    "String",
    "Major",
    "Minor",
    "Patch",
    "Prerelease",
    "Metadata",
    "IncPatch",
    "IncMinor",
    "IncMajor",
    "SetPrerelease",
    "SetMetadata",
    "MarshalJSON",
    "MarshalText",
    "Value",
];
const POINTER_METHODS: &[&str] =
    &["Original", "Compare", "LessThan", "LessThanEqual", "GreaterThan", "GreaterThanEqual", "Equal"];

impl Object for Version {
    fn type_name(&self) -> &str {
        if self.pointer { "*semver.Version" } else { "semver.Version" }
    }

    fn has_method(&self, name: &str) -> bool {
        VALUE_METHODS.contains(&name) || (self.pointer && POINTER_METHODS.contains(&name))
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, FuncError>> {
        if !self.has_method(name) {
            return None;
        }
        let no_args = || want_args(name, args, 0);
        let r = match name {
            "String" => no_args().map(|()| Value::str(self.canonical())),
            "Major" => no_args().map(|()| Value::Int(self.major as i64, IntKind::Uint64)),
            "Minor" => no_args().map(|()| Value::Int(self.minor as i64, IntKind::Uint64)),
            "Patch" => no_args().map(|()| Value::Int(self.patch as i64, IntKind::Uint64)),
            "Prerelease" => no_args().map(|()| Value::str(&self.pre)),
            "Metadata" => no_args().map(|()| Value::str(&self.metadata)),
            "Original" => no_args().map(|()| Value::str(&self.original)),
            "IncPatch" => no_args().map(|()| {
                // A prerelease increments to its release, not to the next patch.
                Value::object(self.derived(|n| {
                    if n.pre.is_empty() {
                        n.patch = n.patch.wrapping_add(1);
                    }
                    n.pre.clear();
                    n.metadata.clear();
                }))
            }),
            "IncMinor" => no_args().map(|()| {
                Value::object(self.derived(|n| {
                    n.minor = n.minor.wrapping_add(1);
                    n.patch = 0;
                    n.pre.clear();
                    n.metadata.clear();
                }))
            }),
            "IncMajor" => no_args().map(|()| {
                Value::object(self.derived(|n| {
                    n.major = n.major.wrapping_add(1);
                    n.minor = 0;
                    n.patch = 0;
                    n.pre.clear();
                    n.metadata.clear();
                }))
            }),
            "SetPrerelease" => string_arg(name, args).and_then(|p| {
                if !p.is_empty() {
                    validate_prerelease(p)?;
                }
                Ok(Value::object(self.derived(|n| n.pre = p.to_string())))
            }),
            "SetMetadata" => string_arg(name, args).and_then(|m| {
                if !m.is_empty() && !is_identifier_list(m) {
                    return Err(FuncError::msg("Invalid Metadata string"));
                }
                Ok(Value::object(self.derived(|n| n.metadata = m.to_string())))
            }),
            "MarshalJSON" => no_args().map(|()| byte_slice(&format!("\"{}\"", self.canonical()))),
            "MarshalText" => no_args().map(|()| byte_slice(&self.canonical())),
            "Value" => no_args().map(|()| Value::str(self.canonical())),
            "Compare" => version_arg(name, args).map(|o| ordering_int(self.compare(o))),
            "LessThan" => version_arg(name, args).map(|o| Value::Bool(self.compare(o).is_lt())),
            "LessThanEqual" => version_arg(name, args).map(|o| Value::Bool(self.compare(o).is_le())),
            "GreaterThan" => version_arg(name, args).map(|o| Value::Bool(self.compare(o).is_gt())),
            "GreaterThanEqual" => version_arg(name, args).map(|o| Value::Bool(self.compare(o).is_ge())),
            "Equal" => version_arg(name, args).map(|o| Value::Bool(self.compare(o).is_eq())),
            _ => return None,
        };
        Some(r)
    }

    fn display(&self) -> String {
        self.canonical()
    }

    fn go_syntax(&self) -> String {
        let body = format!(
            "semver.Version{{major:0x{:x}, minor:0x{:x}, patch:0x{:x}, pre:{:?}, metadata:{:?}, original:{:?}}}",
            self.major, self.minor, self.patch, self.pre, self.metadata, self.original
        );
        if self.pointer { format!("&{body}") } else { body }
    }

    fn deep_equal(&self, other: &dyn Object) -> bool {
        other.as_any().downcast_ref::<Version>().is_some_and(|o| o == self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

// ---------------------------------------------------------------------------------------------
// Constraints

/// Masterminds' operator alternation. The empty alternative comes second, so with
/// leftmost-first matching it wins whenever the version can follow directly.
const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";

/// A constraint version: like a version, with `x`, `X`, `*` (and, by a quirk of the class, `|`)
/// allowed in the numeric parts.
const CV: &str = concat!(
    r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?",
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?",
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
);

static CONSTRAINT_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^{WS}*({OPS}){WS}*({CV}){WS}*$")).expect("valid constraint regex"));
static RANGE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"{WS}*({CV}){WS}+-{WS}+({CV}){WS}*")).expect("valid range regex"));
static FIND_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"({OPS}){WS}*({CV})")).expect("valid find regex"));
static VALID_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"^({WS}*({OPS}){WS}*({CV}){WS}*)((?:{WS}+|,{WS}*)({OPS}){WS}*({CV}){WS}*)*$"))
        .expect("valid constraint-list regex")
});

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    TildeOrEqual,
    NotEqual,
    Greater,
    Less,
    GreaterEqual,
    LessEqual,
    Tilde,
    Caret,
}

#[derive(Debug)]
struct Constraint {
    con: Version,
    op: Op,
    minor_dirty: bool,
    patch_dirty: bool,
    dirty: bool,
}

/// `semver.Constraints`: OR groups of AND-ed constraints, and whether each group names a
/// prerelease.
#[derive(Debug)]
pub struct Constraints {
    groups: Vec<(Vec<Constraint>, bool)>,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

impl Constraints {
    /// `semver.NewConstraint`.
    pub fn parse(c: &str) -> Result<Constraints, FuncError> {
        let c = rewrite_range(c);
        let mut groups = Vec::new();
        for part in c.split("||") {
            if !VALID_RE.is_match(part) {
                return Err(FuncError::msg(format!("improper constraint: {part}")));
            }
            let found: Vec<&str> = FIND_RE.find_iter(part).map(|m| m.as_str()).collect();
            let found = if found.is_empty() { vec![part] } else { found };
            let mut group = Vec::new();
            let mut has_pre = false;
            for s in found {
                let pc = parse_constraint(s)?;
                has_pre |= !pc.con.pre.is_empty();
                group.push(pc);
            }
            groups.push((group, has_pre));
        }
        Ok(Constraints { groups })
    }

    /// `Constraints.Check`: any OR group whose constraints all hold.
    pub fn check(&self, v: &Version) -> bool {
        self.groups.iter().any(|(group, has_pre)| group.iter().all(|c| c.check(v, *has_pre)))
    }
}

/// Rewrites `a - b` ranges into `>= a, <= b `, replacing the first occurrence of each matched
/// text as Masterminds does.
fn rewrite_range(i: &str) -> String {
    let mut o = i.to_string();
    for caps in RANGE_RE.captures_iter(i) {
        let (Some(whole), Some(a), Some(b)) = (caps.get(0), caps.get(1), caps.get(11)) else {
            continue;
        };
        let t = format!(">= {}, <= {} ", a.as_str(), b.as_str());
        o = o.replacen(whole.as_str(), &t, 1);
    }
    o
}

fn parse_constraint(c: &str) -> Result<Constraint, FuncError> {
    let parser_error = || FuncError::msg("constraint parser error");
    if c.is_empty() {
        return Ok(Constraint {
            con: Version::parse("0.0.0").map_err(|_| parser_error())?,
            op: Op::TildeOrEqual,
            minor_dirty: false,
            patch_dirty: false,
            dirty: true,
        });
    }
    let m = CONSTRAINT_RE.captures(c).ok_or_else(|| FuncError::msg(format!("improper constraint: {c}")))?;
    let g = |i: usize| m.get(i).map_or("", |s| s.as_str());
    let op = match g(1) {
        "" | "=" => Op::TildeOrEqual,
        "!=" => Op::NotEqual,
        ">" => Op::Greater,
        "<" => Op::Less,
        ">=" | "=>" => Op::GreaterEqual,
        "<=" | "=<" => Op::LessEqual,
        "~" | "~>" => Op::Tilde,
        _ => Op::Caret,
    };
    let (major, minor, patch, pre) = (g(3), g(4).trim_start_matches('.'), g(5).trim_start_matches('.'), g(6));
    let (mut ver, mut minor_dirty, mut patch_dirty, mut dirty) = (g(2).to_string(), false, false, false);
    if is_x(major) || g(3).is_empty() {
        ver = format!("0.0.0{pre}");
        dirty = true;
    } else if is_x(minor) || g(4).is_empty() {
        minor_dirty = true;
        dirty = true;
        ver = format!("{major}.0.0{pre}");
    } else if is_x(patch) || g(5).is_empty() {
        dirty = true;
        patch_dirty = true;
        ver = format!("{major}{}.0{pre}", g(4));
    }
    let con = Version::parse(&ver).map_err(|_| parser_error())?;
    Ok(Constraint { con, op, minor_dirty, patch_dirty, dirty })
}

impl Constraint {
    fn check(&self, v: &Version, include_pre: bool) -> bool {
        // Every operator first rejects a prerelease version unless the group asks for them.
        if !v.pre.is_empty() && !include_pre {
            return false;
        }
        let c = &self.con;
        match self.op {
            Op::NotEqual => {
                if self.dirty {
                    if c.major != v.major {
                        return true;
                    }
                    if c.minor != v.minor && !self.minor_dirty {
                        return true;
                    } else if self.minor_dirty {
                        return false;
                    } else if c.patch != v.patch && !self.patch_dirty {
                        return true;
                    } else if self.patch_dirty {
                        if !v.pre.is_empty() || !c.pre.is_empty() {
                            return compare_prerelease(&v.pre, &c.pre) != Ordering::Equal;
                        }
                        return false;
                    }
                }
                !v.compare(c).is_eq()
            }
            Op::Greater => {
                if !self.dirty {
                    return v.compare(c).is_gt();
                }
                if v.major > c.major {
                    true
                } else if v.major < c.major || self.minor_dirty {
                    false
                } else if self.patch_dirty {
                    v.minor > c.minor
                } else {
                    v.compare(c).is_gt()
                }
            }
            Op::Less => v.compare(c).is_lt(),
            Op::GreaterEqual => v.compare(c).is_ge(),
            Op::LessEqual => {
                if !self.dirty {
                    return v.compare(c).is_le();
                }
                if v.major > c.major { false } else { !(v.major == c.major && v.minor > c.minor && !self.minor_dirty) }
            }
            Op::Tilde => self.tilde(v),
            Op::TildeOrEqual => {
                if self.dirty {
                    self.tilde(v)
                } else {
                    v.compare(c).is_eq()
                }
            }
            Op::Caret => self.caret(v),
        }
    }

    fn tilde(&self, v: &Version) -> bool {
        let c = &self.con;
        if v.compare(c).is_lt() {
            return false;
        }
        // ~0.0.0 accepts everything, like >= 0.0.0.
        if c.major == 0 && c.minor == 0 && c.patch == 0 && !self.minor_dirty && !self.patch_dirty {
            return true;
        }
        if v.major != c.major {
            return false;
        }
        v.minor == c.minor || self.minor_dirty
    }

    fn caret(&self, v: &Version) -> bool {
        let c = &self.con;
        if v.compare(c).is_lt() {
            return false;
        }
        if c.major > 0 || self.minor_dirty {
            return v.major == c.major;
        }
        if c.major == 0 && v.major > 0 {
            return false;
        }
        if c.minor > 0 || self.patch_dirty {
            return v.minor == c.minor;
        }
        if c.minor == 0 && v.minor > 0 {
            return false;
        }
        c.patch == v.patch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(c: &str, v: &str) -> bool {
        Constraints::parse(c).unwrap().check(&Version::parse(v).unwrap())
    }

    #[test]
    fn versions_coerce_like_masterminds() {
        let v = Version::parse("v4.14").unwrap();
        assert_eq!(v.canonical(), "4.14.0");
        assert_eq!(v.original, "v4.14");
        assert!(Version::parse("1.2.3.4").is_err());
        assert!(Version::parse("").is_err());
        assert!(Version::parse("1.2.3-01").is_err());
        assert_eq!(Version::parse("1.2.3-beta.1+build.5").unwrap().pre, "beta.1");
    }

    #[test]
    fn constraints_follow_masterminds() {
        assert!(check(">=1.2.0", "1.3.0"));
        assert!(!check("<1.0", "1.3.0"));
        assert!(check("~4.14", "4.14.9"));
        assert!(!check("^1.2", "2.0.0"));
        assert!(check("4.14.x", "4.14.2"));
        assert!(check(">= 1.2, < 1.5", "1.4.9"));
        assert!(check("1.1 - 1.3", "1.2.0"));
        assert!(!check("<1 || >=3", "2.0.0"));
        assert!(check("<1 || >=3", "3.0.0"));
        assert!(!check("!=1.2.3", "1.2.3"));
        assert!(!check(">=4.14", "4.15.0-rc.1"));
        assert!(check(">=4.14-0", "4.15.0-rc.1"));
        assert!(check("*", "1.0.0"));
        assert!(check("^0.2.3", "0.2.9"));
        assert!(!check("^0.2.3", "0.3.0"));
        assert!(check(">1.2", "1.3.0"));
        assert!(!check(">1.2", "1.2.9"));
        assert!(check("<=1.2", "1.2.9"));
        assert!(Constraints::parse("!!1").is_err());
    }

    #[test]
    fn prerelease_ordering() {
        let v = |s: &str| Version::parse(s).unwrap();
        assert!(v("1.0.0-alpha").compare(&v("1.0.0-alpha.1")).is_lt());
        assert!(v("1.0.0-alpha.1").compare(&v("1.0.0-alpha.beta")).is_lt());
        assert!(v("1.0.0-beta.2").compare(&v("1.0.0-beta.11")).is_lt());
        assert!(v("1.0.0-rc.1").compare(&v("1.0.0")).is_lt());
    }
}
