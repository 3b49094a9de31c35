//! Go's `fmt` formatting of template values: `%v` (what `{{ . }}` prints), `Sprint`,
//! `Sprintln` and `Sprintf` verbs.
//!
//! Owned by the executor work; the function library calls [`sprint_value`], [`sprint`] and
//! [`format_float`] and must not re-implement Go formatting.

use crate::value::Value;

/// `fmt.Sprint(v)` for one value: Go's `%v`.
pub fn sprint_value(v: &Value) -> String {
    let mut out = String::new();
    write_v(&mut out, v, 0);
    out
}

/// `fmt.Sprint(args...)`: operands formatted with `%v`, a space added between two operands
/// when neither is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        let is_string = matches!(a, Value::String(_));
        if i > 0 && !is_string && !matches!(args[i - 1], Value::String(_)) {
            out.push(' ');
        }
        write_v(&mut out, a, 0);
    }
    out
}

/// `fmt.Sprintln(args...)`: always a space between operands, and a final newline.
pub fn sprintln(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_v(&mut out, a, 0);
    }
    out.push('\n');
    out
}

fn write_v(out: &mut String, v: &Value, depth: usize) {
    match v {
        Value::Invalid => out.push_str(if depth == 0 { "<invalid reflect.Value>" } else { "<nil>" }),
        Value::Nil => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i, k) => {
            if k.is_unsigned() {
                out.push_str(&(*i as u64).to_string())
            } else {
                out.push_str(&i.to_string())
            }
        }
        Value::Float(f) => out.push_str(&format_float(*f, 'g', -1)),
        Value::Complex(r, i) => {
            out.push('(');
            out.push_str(&format_float(*r, 'g', -1));
            let im = format_float(*i, 'g', -1);
            if !im.starts_with(['-', '+']) {
                out.push('+');
            }
            out.push_str(&im);
            out.push_str("i)");
        }
        Value::String(s) => out.push_str(s),
        Value::List(l) => {
            out.push('[');
            for (i, item) in l.items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_v(out, item, depth + 1);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push_str("map[");
            for (i, (k, item)) in m.entries.borrow().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                write_v(out, item, depth + 1);
            }
            out.push(']');
        }
        Value::Object(o) => out.push_str(&o.display()),
    }
}

/// `strconv.FormatFloat(f, fmt, prec, 64)` for `fmt` in `e`, `E`, `f`, `g`, `G`; `prec` -1
/// means the shortest representation that reads back exactly (what `%v` uses).
pub fn format_float(f: f64, fmt: char, prec: i32) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    let neg = f.is_sign_negative();
    let a = f.abs();
    // Decimal digits and decimal-point position of |f|: value = 0.d1d2d3… × 10^dp.
    let (digits, dp) = decimal_digits(a, fmt, prec);
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    match fmt {
        'e' | 'E' => {
            let p = if prec < 0 { digits.len().saturating_sub(1) } else { prec as usize };
            push_e(&mut s, &digits, dp, p, fmt);
        }
        'f' => {
            let p = if prec < 0 { digits.len().saturating_sub(dp.max(0) as usize) } else { prec as usize };
            push_f(&mut s, &digits, dp, p);
        }
        _ => {
            // %g: Go's rule from strconv/ftoa.go.
            let shortest = prec < 0;
            let mut eprec = if shortest { digits.len() as i32 } else if prec == 0 { 1 } else { prec };
            if eprec > digits.len() as i32 && digits.len() as i32 >= dp {
                eprec = digits.len() as i32;
            }
            if shortest {
                eprec = 6;
            }
            let exp = dp - 1;
            let e = if fmt == 'G' { 'E' } else { 'e' };
            if exp < -4 || exp >= eprec {
                let p = if shortest { digits.len().saturating_sub(1) } else { (prec.max(1) - 1) as usize };
                push_e(&mut s, &digits, dp, p.min(digits.len().saturating_sub(1)), e);
            } else {
                let p = (digits.len() as i32 - dp).max(0) as usize;
                push_f(&mut s, &digits, dp, p);
            }
        }
    }
    s
}

/// Decimal digits (no leading/trailing zeros, at least "0") and the decimal point position.
fn decimal_digits(a: f64, fmt: char, prec: i32) -> (Vec<u8>, i32) {
    if a == 0.0 {
        return (vec![b'0'], 1);
    }
    let text = match (fmt, prec) {
        (_, p) if p < 0 => format!("{a:e}"),
        ('e' | 'E', p) => format!("{a:.*e}", p as usize),
        ('f', p) => {
            let t = format!("{a:.*}", p as usize);
            return digits_from_fixed(&t);
        }
        (_, p) => format!("{a:.*e}", (p.max(1) - 1) as usize),
    };
    let (mant, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    let dp = exp + 1;
    if fmt == 'g' || fmt == 'G' || prec < 0 {
        while digits.len() > 1 && digits.last() == Some(&b'0') {
            digits.pop();
        }
    }
    (digits, dp)
}

fn digits_from_fixed(t: &str) -> (Vec<u8>, i32) {
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let mut dp = int.len() as i32;
    while digits.len() > 1 && digits[0] == b'0' {
        digits.remove(0);
        dp -= 1;
    }
    (digits, dp)
}

fn push_e(s: &mut String, digits: &[u8], dp: i32, prec: usize, e: char) {
    s.push(digits[0] as char);
    if prec > 0 {
        s.push('.');
        for i in 1..=prec {
            s.push(*digits.get(i).unwrap_or(&b'0') as char);
        }
    }
    s.push(e);
    let exp = if digits == [b'0'] { 0 } else { dp - 1 };
    s.push(if exp < 0 { '-' } else { '+' });
    let ea = exp.unsigned_abs();
    if ea < 10 {
        s.push('0');
    }
    s.push_str(&ea.to_string());
}

fn push_f(s: &mut String, digits: &[u8], dp: i32, prec: usize) {
    if dp <= 0 {
        s.push('0');
    } else {
        for i in 0..dp as usize {
            s.push(*digits.get(i).unwrap_or(&b'0') as char);
        }
    }
    if prec > 0 {
        s.push('.');
        for i in 0..prec as i32 {
            let idx = dp + i;
            let c = if idx < 0 { b'0' } else { *digits.get(idx as usize).unwrap_or(&b'0') };
            s.push(c as char);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_go_v() {
        for (f, want) in [
            (1.5, "1.5"),
            (3.0, "3"),
            (1e6, "1e+06"),
            (123456.0, "123456"),
            (1234567.0, "1.234567e+06"),
            (1e21, "1e+21"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5, "-2.5"),
            (1.2345678901e10, "1.2345678901e+10"),
            (0.0, "0"),
        ] {
            assert_eq!(format_float(f, 'g', -1), want, "{f}");
        }
    }

    #[test]
    fn fixed_and_exponent_precision() {
        assert_eq!(format_float(3.14159, 'f', 2), "3.14");
        assert_eq!(format_float(1234.5, 'e', 3), "1.234e+03");
        assert_eq!(format_float(0.5, 'f', 0), "0");
        assert_eq!(format_float(2.0, 'f', -1), "2");
    }

    #[test]
    fn sprint_spacing() {
        let args = [Value::int(1), Value::int(2), Value::str("a"), Value::int(3)];
        assert_eq!(sprint(&args), "1 2a3");
    }
}
