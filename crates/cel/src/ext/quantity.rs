//! Kubernetes' quantity library (`k8s.io/apiserver/pkg/cel/library/quantity.go`):
//! `quantity(string)`, `isQuantity(string)`, `sign`, `isInteger`, `asInteger`,
//! `asApproximateFloat`, `add`, `sub`, `isLessThan`, `isGreaterThan`, `compareTo`.
//!
//! A quantity is kept exact, as `mantissa × 10^exponent` (binary suffixes multiply the
//! mantissa), normalised so that equal amounts compare equal with `==` (`1Ki == 1024`).
//! Parsing follows `resource.ParseQuantity`: a signed decimal number, then a binary SI
//! suffix (`Ki` … `Ei`), a decimal SI suffix (`n u m "" k M G T P E`) or an exponent (`e3`).

use std::cmp::Ordering;
use std::sync::Arc;

use cel::common::value::CowVal;
use cel::objects::Opaque;
use cel::{DeclarationError, Env, Value};

use super::{DYN, Res, bad, give, global, member, string_arg, values};

/// Digits a mantissa may have: every 38-digit number fits an i128 (up to 1.7e38), which
/// Kubernetes' own tests need (`9999999999999999999999999999999999999G`, 37 digits). Past it,
/// `resource.ParseQuantity` still parses (inf.Dec); here it is an evaluation error.
const MAX_DIGITS: usize = 38;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantity {
    mantissa: i128,
    exponent: i32,
}

impl Opaque for Quantity {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.Quantity"
    }
}

impl Quantity {
    fn normalised(mut mantissa: i128, mut exponent: i32) -> Quantity {
        if mantissa == 0 {
            return Quantity { mantissa: 0, exponent: 0 };
        }
        while mantissa % 10 == 0 {
            mantissa /= 10;
            exponent += 1;
        }
        Quantity { mantissa, exponent }
    }

    fn cmp(&self, other: &Quantity) -> Ordering {
        let (a, b) = (self.mantissa, other.mantissa);
        if a.signum() != b.signum() {
            return a.signum().cmp(&b.signum());
        }
        let d = self.exponent - other.exponent;
        // Scale the one with the larger exponent; an overflow means it is the larger magnitude.
        let scaled = |m: i128, by: i32| 10i128.checked_pow(by as u32).and_then(|p| m.checked_mul(p));
        if d >= 0 {
            match scaled(a, d) {
                Some(x) => x.cmp(&b),
                None => {
                    if a > 0 {
                        Ordering::Greater
                    } else {
                        Ordering::Less
                    }
                }
            }
        } else {
            match scaled(b, -d) {
                Some(y) => a.cmp(&y),
                None => {
                    if b > 0 {
                        Ordering::Less
                    } else {
                        Ordering::Greater
                    }
                }
            }
        }
    }

    fn add(&self, other: &Quantity) -> Option<Quantity> {
        let e = self.exponent.min(other.exponent);
        let up = |q: &Quantity| 10i128.checked_pow((q.exponent - e) as u32).and_then(|p| q.mantissa.checked_mul(p));
        Some(Quantity::normalised(up(self)?.checked_add(up(other)?)?, e))
    }

    fn as_f64(&self) -> f64 {
        self.mantissa as f64 * 10f64.powi(self.exponent)
    }

    fn as_integer(&self) -> Option<i64> {
        if self.exponent < 0 {
            return None;
        }
        let v = 10i128.checked_pow(self.exponent as u32)?.checked_mul(self.mantissa)?;
        i64::try_from(v).ok()
    }
}

pub fn parse(s: &str) -> Result<Quantity, String> {
    let err = || {
        format!("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {s:?}")
    };
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let num_end = body.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(body.len());
    let (num, suffix) = body.split_at(num_end);
    if num.is_empty() || num.matches('.').count() > 1 || num == "." {
        return Err(err());
    }
    let (int_part, frac_part) = num.split_once('.').unwrap_or((num, ""));
    let digits = format!("{int_part}{frac_part}");
    let digits = digits.trim_start_matches('0');
    if digits.len() > MAX_DIGITS {
        return Err(format!("quantity {s:?} has too many digits"));
    }
    let mut mantissa: i128 = if digits.is_empty() { 0 } else { digits.parse().map_err(|_| err())? };
    let mut exponent = -(frac_part.len() as i32);
    let binary = |k: u32| 1024i128.checked_pow(k);
    let mul = match suffix {
        "" => None,
        "Ki" => binary(1),
        "Mi" => binary(2),
        "Gi" => binary(3),
        "Ti" => binary(4),
        "Pi" => binary(5),
        "Ei" => binary(6),
        "n" => {
            exponent -= 9;
            None
        }
        "u" => {
            exponent -= 6;
            None
        }
        "m" => {
            exponent -= 3;
            None
        }
        "k" => {
            exponent += 3;
            None
        }
        "M" => {
            exponent += 6;
            None
        }
        "G" => {
            exponent += 9;
            None
        }
        "T" => {
            exponent += 12;
            None
        }
        "P" => {
            exponent += 15;
            None
        }
        "E" => {
            exponent += 18;
            None
        }
        other => {
            let e = other.strip_prefix(['e', 'E']).ok_or_else(err)?;
            let e: i32 = e.parse().map_err(|_| err())?;
            if e.abs() > 1000 {
                return Err(err());
            }
            exponent += e;
            None
        }
    };
    if let Some(m) = mul {
        mantissa = mantissa.checked_mul(m).ok_or_else(|| format!("quantity {s:?} is too large"))?;
    }
    if negative {
        mantissa = -mantissa;
    }
    Ok(Quantity::normalised(mantissa, exponent))
}

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    global(env, "quantity", 1, quantity)?;
    global(env, "isQuantity", 1, is_quantity)?;
    member(env, "sign", DYN, 0, sign)?;
    member(env, "isInteger", DYN, 0, is_integer)?;
    member(env, "asInteger", DYN, 0, as_integer)?;
    member(env, "asApproximateFloat", DYN, 0, as_approximate_float)?;
    member(env, "add", DYN, 1, add)?;
    member(env, "sub", DYN, 1, sub)?;
    member(env, "isLessThan", DYN, 1, is_less_than)?;
    member(env, "isGreaterThan", DYN, 1, is_greater_than)?;
    member(env, "compareTo", DYN, 1, compare_to)?;
    Ok(())
}

fn this_q(function: &str, v: &Value) -> Result<Quantity, cel::ExecutionError> {
    match v {
        Value::Opaque(o) => o.downcast_ref::<Quantity>().cloned().ok_or_else(|| bad(function, "expects a quantity")),
        other => Err(bad(function, format!("expects a quantity, not {}", other.type_of()))),
    }
}

/// A quantity, or an int as one (`add`/`sub` take both).
fn q_or_int(function: &str, v: &Value) -> Result<Quantity, cel::ExecutionError> {
    match v {
        Value::Int(i) => Ok(Quantity::normalised(*i as i128, 0)),
        other => this_q(function, other),
    }
}

fn quantity<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let q = parse(string_arg("quantity", &a[0])?).map_err(|e| bad("quantity", e))?;
    give(Value::Opaque(Arc::new(q)))
}

fn is_quantity<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    give(Value::Bool(parse(string_arg("isQuantity", &a[0])?).is_ok()))
}

fn sign<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    give(Value::Int(this_q("sign", &values(&args)?[0])?.mantissa.signum() as i64))
}

fn is_integer<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    give(Value::Bool(this_q("isInteger", &values(&args)?[0])?.as_integer().is_some()))
}

fn as_integer<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let q = this_q("asInteger", &values(&args)?[0])?;
    let i = q.as_integer().ok_or_else(|| bad("asInteger", "cannot convert value to integer"))?;
    give(Value::Int(i))
}

fn as_approximate_float<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    give(Value::Float(this_q("asApproximateFloat", &values(&args)?[0])?.as_f64()))
}

fn add<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let sum = this_q("add", &a[0])?.add(&q_or_int("add", &a[1])?).ok_or_else(|| bad("add", "quantity overflow"))?;
    give(Value::Opaque(Arc::new(sum)))
}

fn sub<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let mut other = q_or_int("sub", &a[1])?;
    other.mantissa = -other.mantissa;
    let diff = this_q("sub", &a[0])?.add(&other).ok_or_else(|| bad("sub", "quantity overflow"))?;
    give(Value::Opaque(Arc::new(diff)))
}

fn is_less_than<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    give(Value::Bool(order("isLessThan", &a)? == Ordering::Less))
}

fn is_greater_than<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    give(Value::Bool(order("isGreaterThan", &a)? == Ordering::Greater))
}

fn compare_to<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    give(Value::Int(order("compareTo", &a)? as i64))
}

/// The order of receiver and argument: two quantities, or two versions (Kubernetes' semver
/// library shares these three function names, and one overload takes both).
fn order(function: &str, a: &[Value]) -> Result<Ordering, cel::ExecutionError> {
    if super::semver::is_version(&a[0]) {
        return super::semver::compare(function, &a[0], &a[1]);
    }
    Ok(this_q(function, &a[0])?.cmp(&this_q(function, &a[1])?))
}
