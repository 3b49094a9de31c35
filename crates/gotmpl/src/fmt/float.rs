//! Go's `strconv.FormatFloat` for the formats `fmt` uses: `%e`, `%f`, `%g` (shortest or with
//! a precision, rounding half to even on the exact binary value as Go does) and `%x` (hex
//! mantissa, `p` exponent). Kept apart from the verb logic in `fmt/mod.rs`.

/// `strconv.FormatFloat(f, 'x', prec, 64)`: `0x1.8p+01`.
pub fn format_hex_float(f: f64, prec: i32, upper: bool) -> String {
    if f.is_nan() || f.is_infinite() {
        return format_float(f, 'g', -1);
    }
    let neg = f.is_sign_negative();
    let bits = f.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i32;
    let mut mant = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        if mant != 0 {
            // Subnormal: normalise.
            exp = -1022;
            while mant & (1u64 << 52) == 0 {
                mant <<= 1;
                exp -= 1;
            }
            mant &= (1u64 << 52) - 1;
        }
    } else {
        exp -= 1023;
    }
    let zero = f == 0.0;
    let mut lead = if zero { 0u64 } else { 1 };
    // 52 fraction bits = 13 hex digits.
    let mut frac = mant;
    let mut ndig = 13i32;
    if (0..13).contains(&prec) {
        let shift = 4 * (13 - prec) as u32;
        let half = 1u64 << (shift - 1);
        let rem = frac & ((1u64 << shift) - 1);
        frac >>= shift;
        if rem > half || (rem == half && frac & 1 == 1) {
            frac += 1;
            if frac >> (4 * prec as u32) != 0 {
                frac = 0;
                lead += 1;
                if lead == 2 {
                    lead = 1;
                    exp += 1;
                }
            }
        }
        ndig = prec;
    }
    let mut digits = if ndig > 0 { format!("{:0w$x}", frac, w = ndig as usize) } else { String::new() };
    if prec < 0 {
        while digits.ends_with('0') {
            digits.pop();
        }
    } else {
        while (digits.len() as i32) < prec {
            digits.push('0');
        }
    }
    let exp = if zero { 0 } else { exp };
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    s.push_str("0x");
    s.push_str(&lead.to_string());
    if !digits.is_empty() {
        s.push('.');
        s.push_str(&digits);
    }
    s.push('p');
    s.push(if exp < 0 { '-' } else { '+' });
    s.push_str(&format!("{:02}", exp.unsigned_abs()));
    if upper { s.to_uppercase() } else { s }
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
            let mut eprec = if shortest {
                digits.len() as i32
            } else if prec == 0 {
                1
            } else {
                prec
            };
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
        assert_eq!(format_float(1.23456, 'f', 2), "1.23");
        assert_eq!(format_float(1234.5, 'e', 3), "1.234e+03");
        assert_eq!(format_float(0.5, 'f', 0), "0");
        assert_eq!(format_float(2.0, 'f', -1), "2");
    }
}

#[test]
fn hex_floats() {
    assert_eq!(format_hex_float(1.0, -1, false), "0x1p+00");
    assert_eq!(format_hex_float(3.0, -1, false), "0x1.8p+01");
    assert_eq!(format_hex_float(-0.5, 2, true), "-0X1.00P-01");
}
