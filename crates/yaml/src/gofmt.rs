//! Go's float formatting (`strconv.FormatFloat` with precision -1 and `encoding/json`).
//!
//! Kubernetes never prints a float with Rust's rules: `sigs.k8s.io/yaml.Marshal` goes through
//! `encoding/json` (`1e+21`, `0.000001`) and then go-yaml's `FormatFloat(f, 'g', -1, 64)`
//! (`1e-06`, `1.2345675e+06`), and YAML float keys become `FormatFloat(f, 'g', -1, 32)`.
//! Rust's `{:e}` gives the same shortest round-trip digits; only the layout differs.

/// Shortest round-trip decimal digits of `|f|` and the decimal point position, so that
/// `|f| = 0.d1d2…dn × 10^dp` (Go's `decimalSlice`). Zero is `("0", 1)`.
fn shortest(f: f64, single: bool) -> (Vec<u8>, i32) {
    let text = if single { format!("{:e}", (f as f32).abs()) } else { format!("{:e}", f.abs()) };
    let (mantissa, exp) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    (digits, exp + 1)
}

fn push_exp(out: &mut String, exp: i32) {
    out.push(if exp < 0 { '-' } else { '+' });
    let e = exp.unsigned_abs();
    if e < 10 {
        out.push('0');
    }
    out.push_str(&e.to_string());
}

/// Go's `%e` layout with all digits: `d[.ddd]e±XX`.
fn fmt_e(out: &mut String, digits: &[u8], dp: i32) {
    out.push(char::from(digits[0]));
    if digits.len() > 1 {
        out.push('.');
        out.extend(digits[1..].iter().map(|&d| char::from(d)));
    }
    out.push('e');
    let exp = if digits == b"0" { 0 } else { dp - 1 };
    push_exp(out, exp);
}

/// Go's `%f` layout with just enough fraction digits: `ddd[.ddd]`.
fn fmt_f(out: &mut String, digits: &[u8], dp: i32) {
    let nd = digits.len() as i32;
    if dp > 0 {
        for i in 0..dp {
            out.push(if i < nd { char::from(digits[i as usize]) } else { '0' });
        }
    } else {
        out.push('0');
    }
    let frac = (nd - dp).max(0);
    if frac > 0 {
        out.push('.');
        for i in 0..frac {
            let idx = dp + i;
            out.push(if (0..nd).contains(&idx) { char::from(digits[idx as usize]) } else { '0' });
        }
    }
}

fn special(f: f64) -> Option<&'static str> {
    if f.is_nan() {
        Some("NaN")
    } else if f == f64::INFINITY {
        Some("+Inf")
    } else if f == f64::NEG_INFINITY {
        Some("-Inf")
    } else {
        None
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 64)` (or 32 when `single`): exponent form when the decimal
/// exponent is below -4 or at least 6 (`1e+06`, `1e-05`), plain digits otherwise.
#[must_use]
pub fn format_g(f: f64, single: bool) -> String {
    let g = if single { f64::from(f as f32) } else { f };
    if let Some(s) = special(g) {
        return s.to_owned();
    }
    let (digits, dp) = shortest(f, single);
    let mut out = String::new();
    if g.is_sign_negative() {
        out.push('-');
    }
    let exp = dp - 1;
    if digits != b"0" && !(-4..6).contains(&exp) {
        fmt_e(&mut out, &digits, dp);
    } else {
        fmt_f(&mut out, &digits, dp);
    }
    out
}

/// `encoding/json`'s float encoding: `%f` digits for `1e-6 <= |f| < 1e21`, exponent form
/// otherwise with `e-07` cleaned to `e-7`. Non-finite values have no JSON form; they give the
/// Go spelling (`NaN`, `+Inf`) so callers can still show something.
#[must_use]
pub fn format_json_float(f: f64) -> String {
    if let Some(s) = special(f) {
        return s.to_owned();
    }
    let abs = f.abs();
    let (digits, dp) = shortest(f, false);
    let mut out = String::new();
    if f.is_sign_negative() {
        out.push('-');
    }
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        fmt_e(&mut out, &digits, dp);
        let n = out.len();
        let b = out.as_bytes();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            out.remove(n - 2);
        }
    } else {
        fmt_f(&mut out, &digits, dp);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_matches_go() {
        for (f, want) in [
            (0.0, "0"),
            (1.0, "1"),
            (1.5, "1.5"),
            (1e6, "1e+06"),
            (123456.0, "123456"),
            (1234567.5, "1.2345675e+06"),
            (1e21, "1e+21"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (-2.5e-7, "-2.5e-07"),
            (1.2345678901234567e19, "1.2345678901234567e+19"),
            (f64::INFINITY, "+Inf"),
        ] {
            assert_eq!(format_g(f, false), want, "{f}");
        }
        assert_eq!(format_g(1.1, true), "1.1");
        assert_eq!(format_g(123456789.0, true), "1.2345679e+08");
    }

    #[test]
    fn json_format_matches_go() {
        for (f, want) in [
            (3.0, "3"),
            (1.5, "1.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1.2345678901234567e19, "12345678901234567000"),
            (-0.0, "-0"),
        ] {
            assert_eq!(format_json_float(f), want, "{f}");
        }
    }
}
