//! Go's `time.Duration` text: `Duration.String()` (`1h2m3.5s`, `1.5ms`, `0s`) and
//! `time.ParseDuration` (units ns, us/µs/μs, ms, s, m, h; no days), with Go's error texts.

/// Nanoseconds per unit.
const SECOND: u64 = 1_000_000_000;

/// `time.Duration.String()`.
pub(crate) fn format_duration(d: i64) -> String {
    let neg = d < 0;
    let mut u = d.unsigned_abs();
    let mut out = String::new();
    if u < SECOND {
        let (prec, unit) = match u {
            0 => return "0s".to_string(),
            u if u < 1_000 => (0, "ns"),
            u if u < 1_000_000 => (3, "µs"),
            _ => (6, "ms"),
        };
        let frac = fmt_frac(&mut u, prec);
        out.push_str(&u.to_string());
        out.push_str(&frac);
        out.push_str(unit);
    } else {
        let frac = fmt_frac(&mut u, 9);
        let secs = u % 60;
        u /= 60;
        if u > 0 {
            let mins = u % 60;
            u /= 60;
            if u > 0 {
                out.push_str(&u.to_string());
                out.push('h');
            }
            out.push_str(&mins.to_string());
            out.push('m');
        }
        out.push_str(&secs.to_string());
        out.push_str(&frac);
        out.push('s');
    }
    if neg {
        out.insert(0, '-');
    }
    out
}

/// Go's `fmtFrac`: the fraction of `v / 10^prec` as ".ddd" without trailing zeros (nothing when
/// zero); leaves the integer part in `v`.
fn fmt_frac(v: &mut u64, prec: u32) -> String {
    let scale = 10u64.pow(prec);
    let frac = *v % scale;
    *v /= scale;
    if frac == 0 {
        return String::new();
    }
    let digits = format!("{frac:0width$}", width = prec as usize);
    format!(".{}", digits.trim_end_matches('0'))
}

/// The time package's `quote`: like `strconv.Quote` for ASCII, non-ASCII and control bytes as
/// `\xNN`.
pub(crate) fn time_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if (c as u32) >= 0x80 || c < ' ' {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        } else {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}

fn unit_nanos(u: &str) -> Option<u64> {
    Some(match u {
        "ns" => 1,
        "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
        "ms" => 1_000_000,
        "s" => SECOND,
        "m" => 60 * SECOND,
        "h" => 3600 * SECOND,
        _ => return None,
    })
}

/// `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or "0".
pub(crate) fn parse_duration(orig: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", time_quote(orig));
    let mut s = orig.as_bytes();
    let mut neg = false;
    if let Some(&c) = s.first()
        && (c == b'-' || c == b'+')
    {
        neg = c == b'-';
        s = &s[1..];
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    const LIMIT: u64 = 1 << 63;
    let mut d: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return Err(invalid());
        }
        // [0-9]*
        let mut v: u64 = 0;
        let mut i = 0;
        while i < s.len() && s[i].is_ascii_digit() {
            if v > LIMIT / 10 {
                return Err(invalid());
            }
            v = v * 10 + u64::from(s[i] - b'0');
            if v > LIMIT {
                return Err(invalid());
            }
            i += 1;
        }
        let pre = i > 0;
        s = &s[i..];
        // (\.[0-9]*)?
        let (mut f, mut scale, mut post) = (0u64, 1f64, false);
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let mut overflow = false;
            let mut j = 0;
            while j < s.len() && s[j].is_ascii_digit() {
                if !overflow {
                    if f > (LIMIT - 1) / 10 {
                        overflow = true;
                    } else {
                        let y = f * 10 + u64::from(s[j] - b'0');
                        if y > LIMIT {
                            overflow = true;
                        } else {
                            f = y;
                            scale *= 10.0;
                        }
                    }
                }
                j += 1;
            }
            post = j > 0;
            s = &s[j..];
        }
        if !pre && !post {
            return Err(invalid());
        }
        // The unit runs to the next digit or '.'.
        let n = s.iter().position(|c| *c == b'.' || c.is_ascii_digit()).unwrap_or(s.len());
        if n == 0 {
            return Err(format!("time: missing unit in duration {}", time_quote(orig)));
        }
        let u = String::from_utf8_lossy(&s[..n]).into_owned();
        s = &s[n..];
        let Some(unit) = unit_nanos(&u) else {
            return Err(format!("time: unknown unit {} in duration {}", time_quote(&u), time_quote(orig)));
        };
        if v > LIMIT / unit {
            return Err(invalid());
        }
        v *= unit;
        if f > 0 {
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        d += v;
        if d > LIMIT {
            return Err(invalid());
        }
    }
    if neg {
        return Ok((d as i64).wrapping_neg());
    }
    if d > LIMIT - 1 {
        return Err(invalid());
    }
    Ok(d as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_like_go() {
        assert_eq!(format_duration(0), "0s");
        assert_eq!(format_duration(95 * SECOND as i64), "1m35s");
        assert_eq!(format_duration(3600 * SECOND as i64), "1h0m0s");
        assert_eq!(format_duration(86461 * SECOND as i64), "24h1m1s");
        assert_eq!(format_duration(1_500_000), "1.5ms");
        assert_eq!(format_duration(1), "1ns");
        assert_eq!(format_duration(1_100), "1.1µs");
        assert_eq!(format_duration(-1_500_000_000), "-1.5s");
        assert_eq!(format_duration(i64::MIN), "-2562047h47m16.854775808s");
    }

    #[test]
    fn durations_parse_like_go() {
        assert_eq!(parse_duration("1h"), Ok(3600 * SECOND as i64));
        assert_eq!(parse_duration("-90m"), Ok(-5400 * SECOND as i64));
        assert_eq!(parse_duration("1.5h"), Ok(5400 * SECOND as i64));
        assert_eq!(parse_duration("2h10m5s"), Ok(7805 * SECOND as i64));
        assert_eq!(parse_duration("bogus"), Err("time: invalid duration \"bogus\"".into()));
        assert_eq!(parse_duration("3d"), Err("time: unknown unit \"d\" in duration \"3d\"".into()));
        assert_eq!(parse_duration("1"), Err("time: missing unit in duration \"1\"".into()));
        assert_eq!(parse_duration("0"), Ok(0));
        assert!(parse_duration("").is_err());
    }
}
