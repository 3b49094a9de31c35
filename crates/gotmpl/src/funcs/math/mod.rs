//! Sprig's math: integer arithmetic over spf13/cast `ToInt64` (results are `int64`, Go's
//! wrapping arithmetic, a zero divisor is Go's runtime panic), float math through
//! shopspring/decimal (results are `float64`), `floor`/`ceil`/`round`, the `int`/`int64`/
//! `float64`/`toDecimal` conversions, and the integer sequences `until`, `untilStep`, `seq`.
//!
//! Parameters are declared with Sprig's Go signatures: `until(count int)` rejects a data `int64`
//! in the executor, while `add(i ...interface{})` takes anything.

mod decimal;

use super::{Ctx, Param, Registry, strval, to_float64, to_int, to_int64};
use crate::value::{FuncError, IntKind, Type, Value};
use decimal::Decimal;

const INT: Param = Param::Int(IntKind::Int);

pub(super) fn register(r: &mut Registry) {
    r.add("add", &[], Some(Param::Any), add);
    r.add("add1", &[Param::Any], None, add1);
    r.add("sub", &[Param::Any, Param::Any], None, sub);
    r.add("mul", &[Param::Any], Some(Param::Any), mul);
    r.add("div", &[Param::Any, Param::Any], None, div);
    r.add("mod", &[Param::Any, Param::Any], None, modulo);
    r.add("max", &[Param::Any], Some(Param::Any), max);
    r.add("biggest", &[Param::Any], Some(Param::Any), max);
    r.add("min", &[Param::Any], Some(Param::Any), min);
    r.add("addf", &[], Some(Param::Any), addf);
    r.add("add1f", &[Param::Any], None, add1f);
    r.add("subf", &[Param::Any], Some(Param::Any), subf);
    r.add("mulf", &[Param::Any], Some(Param::Any), mulf);
    r.add("divf", &[Param::Any], Some(Param::Any), divf);
    r.add("maxf", &[Param::Any], Some(Param::Any), maxf);
    r.add("minf", &[Param::Any], Some(Param::Any), minf);
    r.add("floor", &[Param::Any], None, floor);
    r.add("ceil", &[Param::Any], None, ceil);
    r.add("round", &[Param::Any, INT], Some(Param::Float64), round);
    r.add("int", &[Param::Any], None, int);
    r.add("int64", &[Param::Any], None, int64);
    r.add("float64", &[Param::Any], None, float64);
    r.add("toDecimal", &[Param::Any], None, to_decimal);
    r.add("until", &[INT], None, until);
    r.add("untilStep", &[INT, INT, INT], None, until_step_fn);
    r.add("seq", &[], Some(INT), seq);
}

/// Go's runtime panic for an integer division by zero, as text/template reports it.
const DIVIDE_BY_ZERO: &str = "runtime error: integer divide by zero";

fn add(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::int64(args.iter().fold(0i64, |a, b| a.wrapping_add(to_int64(b)))))
}

fn add1(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::int64(to_int64(&args[0]).wrapping_add(1)))
}

fn sub(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::int64(to_int64(&args[0]).wrapping_sub(to_int64(&args[1]))))
}

fn mul(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let first = to_int64(&args[0]);
    Ok(Value::int64(args[1..].iter().fold(first, |a, b| a.wrapping_mul(to_int64(b)))))
}

fn div(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let (a, b) = (to_int64(&args[0]), to_int64(&args[1]));
    if b == 0 {
        return Err(FuncError::msg(DIVIDE_BY_ZERO));
    }
    // Go defines MinInt64 / -1 as MinInt64 (no panic), which is what wrapping gives.
    Ok(Value::int64(a.wrapping_div(b)))
}

fn modulo(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let (a, b) = (to_int64(&args[0]), to_int64(&args[1]));
    if b == 0 {
        return Err(FuncError::msg(DIVIDE_BY_ZERO));
    }
    Ok(Value::int64(a.wrapping_rem(b)))
}

fn max(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::int64(args.iter().map(to_int64).max().unwrap_or(0)))
}

fn min(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::int64(args.iter().map(to_int64).min().unwrap_or(0)))
}

/// Sprig's `execDecimalOp`: every operand through `ToFloat64` then `decimal.NewFromFloat`,
/// folded left to right, converted back with `Float64()`.
fn decimal_fold(
    first: f64,
    rest: &[Value],
    op: fn(&Decimal, &Decimal) -> Result<Decimal, FuncError>,
) -> Result<Value, FuncError> {
    let mut acc = Decimal::from_f64(first)?;
    for v in rest {
        acc = op(&acc, &Decimal::from_f64(to_float64(v))?)?;
    }
    Ok(Value::Float(acc.to_f64()))
}

fn dec_add(a: &Decimal, b: &Decimal) -> Result<Decimal, FuncError> {
    Ok(a.add(b))
}
fn dec_sub(a: &Decimal, b: &Decimal) -> Result<Decimal, FuncError> {
    Ok(a.sub(b))
}
fn dec_mul(a: &Decimal, b: &Decimal) -> Result<Decimal, FuncError> {
    Ok(a.mul(b))
}
fn dec_div(a: &Decimal, b: &Decimal) -> Result<Decimal, FuncError> {
    a.div(b)
}

fn addf(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    decimal_fold(0.0, args, dec_add)
}

fn add1f(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    decimal_fold(to_float64(&args[0]), &[Value::int(1)], dec_add)
}

fn subf(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    decimal_fold(to_float64(&args[0]), &args[1..], dec_sub)
}

fn mulf(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    decimal_fold(to_float64(&args[0]), &args[1..], dec_mul)
}

fn divf(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    decimal_fold(to_float64(&args[0]), &args[1..], dec_div)
}

/// Go's `math.Max`: +Inf wins over NaN, NaN over everything else, +0 over -0.
fn go_max(x: f64, y: f64) -> f64 {
    if x == f64::INFINITY || y == f64::INFINITY {
        f64::INFINITY
    } else if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == 0.0 && x == y {
        if x.is_sign_negative() { y } else { x }
    } else if x > y {
        x
    } else {
        y
    }
}

/// Go's `math.Min`: -Inf wins over NaN, NaN over everything else, -0 over +0.
fn go_min(x: f64, y: f64) -> f64 {
    if x == f64::NEG_INFINITY || y == f64::NEG_INFINITY {
        f64::NEG_INFINITY
    } else if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == 0.0 && x == y {
        if x.is_sign_negative() { x } else { y }
    } else if x < y {
        x
    } else {
        y
    }
}

fn maxf(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let first = to_float64(&args[0]);
    Ok(Value::Float(args[1..].iter().fold(first, |a, b| go_max(a, to_float64(b)))))
}

fn minf(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let first = to_float64(&args[0]);
    Ok(Value::Float(args[1..].iter().fold(first, |a, b| go_min(a, to_float64(b)))))
}

fn floor(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::Float(to_float64(&args[0]).floor()))
}

fn ceil(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::Float(to_float64(&args[0]).ceil()))
}

/// Sprig's `round(a, p, rOpt...)`: scale by `math.Pow(10, p)`, round up when the fractional part
/// (with its sign, from `math.Modf`) reaches `rOpt` (default .5), else down, then unscale. So
/// `round -1.5 0` is -2: the fraction -0.5 is below .5, and floor(-1.5) is -2.
fn round(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let round_on = match args.get(2) {
        Some(Value::Float(f)) => *f,
        Some(Value::Int(i, _)) => *i as f64,
        _ => 0.5,
    };
    let val = to_float64(&args[0]);
    let places = match &args[1] {
        Value::Int(i, _) => *i,
        other => to_int64(other),
    };
    let pow = go_pow10(places);
    let digit = pow * val;
    let frac = digit - digit.trunc();
    let rounded = if frac >= round_on { digit.ceil() } else { digit.floor() };
    Ok(Value::Float(rounded / pow))
}

/// Go's `math.Pow(10, n)` for an integer `n`: repeated squaring on the frexp mantissa, exactly
/// as Go computes it (results differ from a libm `pow` in the last bit for large `|n|`).
fn go_pow10(n: i64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    if n == 1 {
        return 10.0;
    }
    let yi = n.unsigned_abs();
    let mut a1 = 1.0f64;
    let mut ae: i64 = 0;
    let (mut x1, mut xe) = frexp(10.0);
    let mut i = yi;
    while i != 0 {
        if !(-(1 << 12)..=(1 << 12)).contains(&xe) {
            // Catastrophic overflow: Go gives up multiplying and lets Ldexp saturate.
            ae += xe;
            break;
        }
        if i & 1 == 1 {
            a1 *= x1;
            ae += xe;
        }
        x1 *= x1;
        xe <<= 1;
        if x1 < 0.5 {
            x1 += x1;
            xe -= 1;
        }
        i >>= 1;
    }
    if n < 0 {
        a1 = 1.0 / a1;
        ae = -ae;
    }
    ldexp(a1, ae)
}

/// Go's `math.Frexp` for finite non-zero `f`: `f = frac × 2^exp` with `|frac|` in [0.5, 1).
fn frexp(f: f64) -> (f64, i64) {
    if f == 0.0 || !f.is_finite() {
        return (f, 0);
    }
    let (mut f, mut exp) = (f, 0i64);
    if f.abs() < f64::MIN_POSITIVE {
        // Normalize subnormals first.
        f *= (1u64 << 52) as f64;
        exp = -52;
    }
    let bits = f.to_bits();
    exp += ((bits >> 52) & 0x7ff) as i64 - 1022;
    let frac = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (frac, exp)
}

/// Go's `math.Ldexp`: `frac × 2^exp`, rounding once when the result is subnormal.
fn ldexp(frac: f64, exp: i64) -> f64 {
    if frac == 0.0 || !frac.is_finite() {
        return frac;
    }
    let (frac, e) = frexp(frac);
    let exp = exp.saturating_add(e);
    if exp > 1024 {
        return if frac < 0.0 { f64::NEG_INFINITY } else { f64::INFINITY };
    }
    if exp < -1075 {
        return if frac < 0.0 { -0.0 } else { 0.0 };
    }
    // frac in [0.5, 1): scale in two exact steps where possible, the last one rounding.
    let mut x = frac;
    let mut exp = exp;
    while exp > 0 {
        let step = exp.min(1000);
        x *= 2f64.powi(step as i32);
        exp -= step;
    }
    while exp < 0 {
        let step = (-exp).min(1000);
        x *= 2f64.powi(-(step as i32));
        exp += step;
    }
    x
}

fn int(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::int(to_int(&args[0])))
}

fn int64(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::int64(to_int64(&args[0])))
}

fn float64(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::Float(to_float64(&args[0])))
}

/// Sprig's `toDecimal`: `strconv.ParseInt(fmt.Sprint(v), 8, 64)`, 0 on error (so `toDecimal 10`
/// is 8: the number is read as octal text).
fn to_decimal(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::int64(super::convert::parse_go_int(&strval(&args[0]), 8).unwrap_or(0)))
}

fn int_arg(v: &Value) -> i64 {
    match v {
        Value::Int(i, _) => *i,
        other => to_int64(other),
    }
}

/// Sprig's `untilStep` loop, bounded by the list limit. Go's `i += step` wraps on overflow and
/// would then loop (and allocate) without end; that surfaces here as the limit error.
fn until_step(ctx: &Ctx<'_>, start: i64, stop: i64, step: i64) -> Result<Vec<i64>, FuncError> {
    let mut v = Vec::new();
    let limit = ctx.limits.max_list_len;
    let too_long = || FuncError::Limit(format!("untilStep: the list would exceed {limit} items"));
    if stop < start {
        if step >= 0 {
            return Ok(v);
        }
        let mut i = start;
        while i > stop {
            if v.len() >= limit {
                return Err(too_long());
            }
            v.push(i);
            i = i.checked_add(step).ok_or_else(too_long)?;
        }
        return Ok(v);
    }
    if step <= 0 {
        return Ok(v);
    }
    let mut i = start;
    while i < stop {
        if v.len() >= limit {
            return Err(too_long());
        }
        v.push(i);
        i = i.checked_add(step).ok_or_else(too_long)?;
    }
    Ok(v)
}

fn int_list(items: Vec<i64>) -> Value {
    Value::typed_list(Type::Int(IntKind::Int), items.into_iter().map(Value::int).collect())
}

fn until(ctx: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let count = int_arg(&args[0]);
    let step = if count < 0 { -1 } else { 1 };
    Ok(int_list(until_step(ctx, 0, count, step)?))
}

fn until_step_fn(ctx: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let (start, stop, step) = (int_arg(&args[0]), int_arg(&args[1]), int_arg(&args[2]));
    Ok(int_list(until_step(ctx, start, stop, step)?))
}

/// Sprig's `seq`, a string like the Unix `seq`: `seq 5` is `1 2 3 4 5`, `seq 2 5`, `seq 0 2 10`
/// (start, step, end). Counting down needs a negative step with three arguments; other argument
/// counts give "".
fn seq(ctx: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let p: Vec<i64> = args.iter().map(int_arg).collect();
    let items = match p.as_slice() {
        [end] => {
            let (start, end) = (1, *end);
            let inc = if end < start { -1 } else { 1 };
            until_step(ctx, start, end.wrapping_add(inc), inc)?
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            until_step(ctx, *start, end.wrapping_add(step), step)?
        }
        [start, step, end] => {
            let mut inc = 1;
            if end < start {
                inc = -1;
                if *step > 0 {
                    return Ok(Value::str(""));
                }
            }
            until_step(ctx, *start, end.wrapping_add(inc), *step)?
        }
        _ => Vec::new(),
    };
    let text: Vec<String> = items.iter().map(i64::to_string).collect();
    Ok(Value::str(text.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pow10_matches_go() {
        assert_eq!(go_pow10(3), 1000.0);
        assert_eq!(go_pow10(-1), 0.1);
        assert_eq!(go_pow10(-3), 0.001);
        assert_eq!(go_pow10(22), 1e22);
        assert_eq!(go_pow10(400), f64::INFINITY);
        assert_eq!(go_pow10(-400), 0.0);
    }

    #[test]
    fn frexp_ldexp_round_trip() {
        for f in [1.0, 10.0, 0.1, 1e300, 5e-324, -3.5] {
            let (fr, e) = frexp(f);
            assert!((0.5..1.0).contains(&fr.abs()), "{f}");
            assert_eq!(ldexp(fr, e), f);
        }
    }
}
