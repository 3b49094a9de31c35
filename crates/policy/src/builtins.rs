//! Our versions of the regorus built-ins that need a bound or a fixed answer, registered as
//! extensions (regorus looks extensions up before its own built-ins):
//!
//! - `numbers.range`, `numbers.range_step`: at most [`RANGE_LIMIT`] elements;
//! - `sprintf`: field widths and precisions at most [`FORMAT_WIDTH_LIMIT`]
//!   (`sprintf("%04000000000d", [1])` asks for 4 GB in one call no deadline interrupts);
//! - `array.concat`: a result of at most [`ARRAY_LIMIT`] elements (a doubling chain);
//! - `time.now_ns`: the fixed clock of `--now`, when given;
//! - `time.date`, `time.clock`, `time.weekday`, `time.format`: the time zone `Local` reads as
//!   UTC, so the machine's zone cannot change a result (OPA would use the local zone).
//!
//! A bound crossed is an evaluation error naming the built-in and the limit (never undefined:
//! `not sprintf(…)` must not turn a refused call into a pass). Everything else is delegated to
//! regorus' own implementation, whose failures are undefined as OPA's non-strict mode has them.

use regorus::Value;
use regorus::unstable::{BUILTINS, Expr, Ref, Rule, RuleHead, Source, Span};

use super::PolicyError;

/// The most elements `numbers.range` may produce.
pub const RANGE_LIMIT: i64 = 1_000_000;
/// The widest field (or longest precision) a `sprintf` verb may ask for.
pub const FORMAT_WIDTH_LIMIT: u64 = 100_000;
/// The most elements `array.concat` may return.
pub const ARRAY_LIMIT: usize = 1_000_000;

type Ext = Box<dyn regorus::Extension>;

/// Registers our built-ins; `now`: the fixed clock (ns since the epoch) for `time.now_ns`.
pub fn register(engine: &mut regorus::Engine, now: Option<i64>) -> Result<(), PolicyError> {
    let mut add = |name: &str, n: u8, ext: Ext| {
        engine.add_extension(name.to_string(), n, ext).map_err(|e| PolicyError::Data { message: e.to_string() })
    };
    add("numbers.range", 2, Box::new(|args: Vec<Value>| range_values("numbers.range", &args)))?;
    add("numbers.range_step", 3, Box::new(|args: Vec<Value>| range_values("numbers.range_step", &args)))?;
    add("sprintf", 2, Box::new(|args: Vec<Value>| sprintf(&args)))?;
    add("array.concat", 2, Box::new(|args: Vec<Value>| concat(&args)))?;
    for name in ["time.date", "time.clock", "time.weekday", "time.format"] {
        add(name, 1, Box::new(move |args: Vec<Value>| Ok(delegate(name, &utc(args)))))?;
    }
    if let Some(ns) = now {
        add("time.now_ns", 0, Box::new(move |_: Vec<Value>| Ok(Value::from(ns))))?;
    }
    Ok(())
}

/// The built-ins we register whatever the settings, with their arity (for the compile checks).
pub const OURS: [(&str, u8); 8] = [
    ("numbers.range", 2),
    ("numbers.range_step", 3),
    ("sprintf", 2),
    ("array.concat", 2),
    ("time.date", 1),
    ("time.clock", 1),
    ("time.weekday", 1),
    ("time.format", 1),
];

/// An RFC 3339 time as ns since the epoch, as `time.parse_rfc3339_ns` reads it.
pub fn parse_rfc3339_ns(text: &str) -> Option<i64> {
    delegate("time.parse_rfc3339_ns", &[Value::from(text)]).as_i64().ok()
}

fn range_values(name: &str, args: &[Value]) -> anyhow::Result<Value> {
    let int = |v: &Value| v.as_i64().ok().filter(|_| v.as_f64().is_ok_and(|f| f.fract() == 0.0));
    let (Some(a), Some(b)) = (args.first().and_then(int), args.get(1).and_then(int)) else {
        return Ok(Value::Undefined);
    };
    let step = match args.get(2) {
        None => 1,
        Some(v) => match int(v) {
            Some(s) if s > 0 => s,
            _ => return Ok(Value::Undefined),
        },
    };
    let count = (b.abs_diff(a) / step.unsigned_abs()).saturating_add(1);
    if count > RANGE_LIMIT as u64 {
        anyhow::bail!("{name}: {count} elements is more than the limit of {RANGE_LIMIT}");
    }
    let dir = if b >= a { step } else { -step };
    let values: Vec<Value> = (0..count as i64).map(|i| Value::from(a + i * dir)).collect();
    Ok(Value::from(values))
}

/// `sprintf` with every verb's width and precision checked first.
fn sprintf(args: &[Value]) -> anyhow::Result<Value> {
    if let Some(Value::String(format)) = args.first()
        && let Some(n) = widest_field(format)
        && n > FORMAT_WIDTH_LIMIT
    {
        anyhow::bail!("sprintf: a field width or precision of {n} is more than the limit of {FORMAT_WIDTH_LIMIT}");
    }
    if let (Some(Value::String(format)), Some(Value::Array(items))) = (args.first(), args.get(1))
        && let Some(text) = format_go(format, &items.iter().cloned().collect::<Vec<_>>())
    {
        return Ok(Value::from(text));
    }
    Ok(delegate("sprintf", args))
}

/// Go's `fmt` for the verbs policies use (`%v %s %d %f %e %g %x %X %o %b %t %q`, flags
/// `-+ 0#`, width, precision): regorus ignores flags and widths (`%-6s` gave `6s`) and
/// refuses `%6.2f`. `None` for anything else (`*`, `%[1]d`, a missing argument): regorus then
/// formats it.
fn format_go(format: &str, args: &[Value]) -> Option<String> {
    let mut out = String::new();
    let mut next = args.iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let (mut minus, mut plus, mut space, mut zero, mut sharp) = (false, false, false, false, false);
        while let Some(&f) = chars.peek() {
            match f {
                '-' => minus = true,
                '+' => plus = true,
                ' ' => space = true,
                '0' => zero = true,
                '#' => sharp = true,
                _ => break,
            }
            chars.next();
        }
        let number = |chars: &mut std::iter::Peekable<std::str::Chars>| {
            let mut n: Option<usize> = None;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d as usize));
                chars.next();
            }
            n
        };
        let width = number(&mut chars);
        let precision = if chars.peek() == Some(&'.') {
            chars.next();
            Some(number(&mut chars).unwrap_or(0))
        } else {
            None
        };
        let verb = chars.next()?;
        if verb == '%' {
            out.push('%');
            continue;
        }
        let arg = next.next()?;
        let numeric = matches!(verb, 'd' | 'f' | 'F' | 'e' | 'g' | 'x' | 'X' | 'o' | 'b');
        let mut body = match (verb, arg) {
            ('s' | 'v', Value::String(s)) => match precision {
                Some(p) => s.chars().take(p).collect(),
                None => s.to_string(),
            },
            ('v', _) => match delegate("sprintf", &[Value::from("%v"), Value::from(vec![arg.clone()])]) {
                Value::String(s) => s.to_string(),
                _ => return None,
            },
            // OPA hands Go's fmt a boolean as the string "true" (its term's text).
            ('t', Value::Bool(b)) => format!("%!t(string={b})"),
            ('q', Value::String(s)) => serde_json::to_string(s.as_ref()).ok()?,
            ('d', Value::Number(_)) => integer(arg)?.to_string(),
            ('x' | 'X' | 'o' | 'b', Value::Number(_)) => {
                let n = integer(arg)?;
                let digits = match verb {
                    'x' => format!("{:x}", n.unsigned_abs()),
                    'X' => format!("{:X}", n.unsigned_abs()),
                    'o' => format!("{:o}", n.unsigned_abs()),
                    _ => format!("{:b}", n.unsigned_abs()),
                };
                let prefix = match (sharp, verb) {
                    (true, 'x') => "0x",
                    (true, 'X') => "0X",
                    (true, 'o') => "0",
                    _ => "",
                };
                format!("{}{prefix}{digits}", if n < 0 { "-" } else { "" })
            }
            ('x', Value::String(s)) => s.bytes().map(|b| format!("{b:02x}")).collect(),
            ('f' | 'F', Value::Number(_)) => format!("{:.*}", precision.unwrap_or(6), arg.as_f64().ok()?),
            ('e', Value::Number(_)) => go_exponent(&format!("{:.*e}", precision.unwrap_or(6), arg.as_f64().ok()?)),
            ('g', Value::Number(_)) if precision.is_none() => {
                let f = arg.as_f64().ok()?;
                let exp = if f == 0.0 { 0 } else { f.abs().log10().floor() as i32 };
                if (-4..21).contains(&exp) { format!("{f}") } else { go_exponent(&format!("{f:e}")) }
            }
            _ => return None,
        };
        if numeric && !body.starts_with('-') {
            if plus {
                body.insert(0, '+');
            } else if space {
                body.insert(0, ' ');
            }
        }
        let len = body.chars().count();
        if let Some(w) = width.filter(|w| *w > len) {
            let pad = w - len;
            if minus {
                body.push_str(&" ".repeat(pad));
            } else if zero && numeric {
                let sign = usize::from(body.starts_with(['-', '+', ' ']));
                body.insert_str(sign, &"0".repeat(pad));
            } else {
                body.insert_str(0, &" ".repeat(pad));
            }
        }
        out.push_str(&body);
    }
    // Go appends the arguments a format does not use; leave that to regorus.
    if next.next().is_some() {
        return None;
    }
    Some(out)
}

/// A whole number as an `i64`.
fn integer(v: &Value) -> Option<i64> {
    let f = v.as_f64().ok()?;
    (f.fract() == 0.0).then_some(())?;
    v.as_i64().ok()
}

/// Rust's `1.5e3` as Go's `1.5e+03`.
fn go_exponent(rust: &str) -> String {
    match rust.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => rust.to_string(),
    }
}

/// The largest width or precision any `%` verb of `format` names (saturating).
fn widest_field(format: &str) -> Option<u64> {
    let mut widest: Option<u64> = None;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            continue;
        }
        // Flags, then width and precision digits (a `*` takes the width from the arguments,
        // which regorus does not support; it is left to fail there).
        let mut n: u64 = 0;
        while let Some(&d) = chars.peek() {
            match d {
                '0'..='9' => {
                    n = n.saturating_mul(10).saturating_add(u64::from(d as u8 - b'0'));
                    widest = Some(widest.unwrap_or(0).max(n));
                }
                '.' => n = 0,
                '+' | '-' | '#' | ' ' => {}
                _ => break,
            }
            chars.next();
        }
    }
    widest
}

fn concat(args: &[Value]) -> anyhow::Result<Value> {
    let (Some(Value::Array(a)), Some(Value::Array(b))) = (args.first(), args.get(1)) else {
        return Ok(Value::Undefined);
    };
    let total = a.len().saturating_add(b.len());
    if total > ARRAY_LIMIT {
        anyhow::bail!("array.concat: {total} elements is more than the limit of {ARRAY_LIMIT}");
    }
    let mut out = Vec::with_capacity(total);
    out.extend(a.iter().cloned());
    out.extend(b.iter().cloned());
    Ok(Value::from(out))
}

/// `[ns, "Local", …]` read as `[ns, "UTC", …]`.
fn utc(mut args: Vec<Value>) -> Vec<Value> {
    if let Some(Value::Array(items)) = args.first()
        && items.get(1).is_some_and(|tz| *tz == Value::from("Local"))
    {
        let mut items: Vec<Value> = items.iter().cloned().collect();
        items[1] = Value::from("UTC");
        args[0] = Value::from(items);
    }
    args
}

/// Calls regorus' own built-in `name` (non-strict: a failure is undefined).
fn delegate(name: &str, args: &[Value]) -> Value {
    let Some((f, _)) = BUILTINS.get(name) else { return Value::Undefined };
    CALL_SITE.with(|site| {
        let Some((span, params)) = site.as_ref() else { return Value::Undefined };
        let params = &params[..args.len().min(params.len())];
        if params.len() != args.len() {
            return Value::Undefined;
        }
        f(span, params, args, false).unwrap_or(Value::Undefined)
    })
}

thread_local! {
    /// A call site for regorus' built-ins, which want the call's span and argument
    /// expressions (only to word their errors): `f(a, b, c, d)` parsed once per thread.
    static CALL_SITE: Option<(Span, Vec<Ref<Expr>>)> = call_site();
}

fn call_site() -> Option<(Span, Vec<Ref<Expr>>)> {
    let source =
        Source::from_contents("driftlint-builtin.rego".into(), "package p\nx := f(a, b, c, d)\n".into()).ok()?;
    let mut parser = regorus::unstable::Parser::new(&source).ok()?;
    parser.enable_rego_v1().ok()?;
    let module = parser.parse().ok()?;
    let rule = module.policy.first()?;
    let Rule::Spec { head: RuleHead::Compr { assign: Some(assign), .. }, .. } = rule.as_ref() else {
        return None;
    };
    match assign.value.as_ref() {
        Expr::Call { span, params, .. } => Some((span.clone(), params.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widest_field_reads_widths_and_precisions() {
        assert_eq!(widest_field("%s and %d"), None);
        assert_eq!(widest_field("%05d %.3f"), Some(5));
        assert_eq!(widest_field("%%99999999 %-12.40s"), Some(40));
        assert_eq!(widest_field("%04000000000d"), Some(4_000_000_000));
        assert_eq!(widest_field("%99999999999999999999999999d"), Some(u64::MAX));
    }

    #[test]
    fn delegated_builtins_answer_and_local_is_utc() {
        assert_eq!(sprintf(&[Value::from("%05d"), Value::from(vec![Value::from(7)])]).unwrap(), Value::from("00007"));
        let local = Value::from(vec![Value::from(0), Value::from("Local")]);
        let utc_date = delegate("time.date", &[Value::from(vec![Value::from(0), Value::from("UTC")])]);
        assert_eq!(delegate("time.date", &utc(vec![local])), utc_date);
        assert_ne!(utc_date, Value::Undefined);
    }

    #[test]
    fn sprintf_formats_as_go_does() {
        let f = |format: &str, args: Vec<Value>| format_go(format, &args);
        assert_eq!(f("[%-6s][%6s][%.1s]", vec!["ab".into(), "ab".into(), "ab".into()]).unwrap(), "[ab    ][    ab][a]");
        assert_eq!(
            f(
                "[%05d][%+d][%-4d][%x][%#X][%o][%b]",
                vec![42.into(), 42.into(), 7.into(), 255.into(), 255.into(), 8.into(), 5.into()]
            )
            .unwrap(),
            "[00042][+42][7   ][ff][0XFF][10][101]"
        );
        assert_eq!(
            f("[%6.2f][%.3e][%g][%g]", vec![1.23456.into(), 1234.5.into(), 1.23456.into(), 1e21.into()]).unwrap(),
            "[  1.23][1.234e+03][1.23456][1e+21]"
        );
        assert_eq!(
            f("%t %q %v %%", vec![true.into(), "a\"b".into(), "s".into()]).unwrap(),
            "%!t(string=true) \"a\\\"b\" s %"
        );
        assert_eq!(f("%d", vec![]), None);
        assert_eq!(f("%d", vec![1.into(), 2.into()]), None);
    }

    #[test]
    fn capped_builtins_refuse_huge_results() {
        let e = sprintf(&[Value::from("%04000000000d"), Value::from(vec![Value::from(1)])]).unwrap_err();
        assert!(e.to_string().contains("more than the limit"), "{e}");
        let big = Value::from((0..ARRAY_LIMIT as i64).map(Value::from).collect::<Vec<_>>());
        assert!(concat(&[big.clone(), Value::from(vec![Value::from(1)])]).is_err());
        assert_eq!(
            concat(&[Value::from(vec![Value::from(1)]), Value::from(vec![Value::from(2)])]).unwrap(),
            Value::from(vec![Value::from(1), Value::from(2)])
        );
    }
}
