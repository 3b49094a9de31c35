//! The `format` values Kubernetes checks on strings (the subset whose meaning is unambiguous):
//! `date-time` (RFC 3339), `date`, `uuid`, `ipv4`, `ipv6`, `cidr`, `byte` (standard base64).
//! Any other format is not checked, as the API server ignores formats it does not know.

/// `Some(valid)` for a format this module knows, `None` for one it does not check.
pub fn check(format: &str, s: &str) -> Option<bool> {
    Some(match format {
        "date-time" | "datetime" => is_date_time(s),
        "date" => is_date(s),
        "uuid" => is_uuid(s),
        "ipv4" => s.parse::<std::net::Ipv4Addr>().is_ok(),
        "ipv6" => s.parse::<std::net::Ipv6Addr>().is_ok(),
        "cidr" => is_cidr(s),
        "byte" => is_base64(s),
        _ => return None,
    })
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
}

/// `YYYY-MM-DD` with a real month and day.
fn is_date(s: &str) -> bool {
    let mut parts = s.split('-');
    let (Some(y), Some(m), Some(d), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let (Some(y), Some(m), Some(d)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else { return false };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// RFC 3339 `date-time`: `2024-01-02T03:04:05(.frac)(Z|±hh:mm)`, `t`/`z` in either case.
fn is_date_time(s: &str) -> bool {
    let Some(sep) = s.find(['T', 't']) else { return false };
    let (date, rest) = (&s[..sep], &s[sep + 1..]);
    if !is_date(date) || rest.len() < 8 {
        return false;
    }
    let (time, zone) = rest.split_at(8);
    let mut hms = time.split(':');
    let (Some(h), Some(m), Some(sec), None) = (hms.next(), hms.next(), hms.next(), hms.next()) else {
        return false;
    };
    let (Some(h), Some(m), Some(sec)) = (digits(h, 2), digits(m, 2), digits(sec, 2)) else { return false };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    let zone = match zone.strip_prefix('.') {
        Some(frac) => {
            let n = frac.bytes().take_while(u8::is_ascii_digit).count();
            if n == 0 {
                return false;
            }
            &frac[n..]
        }
        None => zone,
    };
    match zone {
        "Z" | "z" => true,
        _ => {
            let Some(off) = zone.strip_prefix(['+', '-']) else { return false };
            let mut hm = off.split(':');
            matches!(
                (hm.next().and_then(|h| digits(h, 2)), hm.next().and_then(|m| digits(m, 2)), hm.next()),
                (Some(h), Some(m), None) if h <= 23 && m <= 59
            )
        }
    }
}

fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_cidr(s: &str) -> bool {
    let Some((ip, bits)) = s.split_once('/') else { return false };
    let Ok(bits) = bits.parse::<u8>() else { return false };
    match ip.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(_)) => bits <= 32,
        Ok(std::net::IpAddr::V6(_)) => bits <= 128,
        Err(_) => false,
    }
}

fn is_base64(s: &str) -> bool {
    let body = s.trim_end_matches('=');
    s.len().is_multiple_of(4)
        && s.len() - body.len() <= 2
        && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn date_time_is_rfc3339() {
        for ok in ["2024-01-02T03:04:05Z", "2024-02-29t23:59:60.123+01:00", "2023-12-31T00:00:00-08:00"] {
            assert_eq!(check("date-time", ok), Some(true), "{ok}");
        }
        for bad in ["yesterday", "2024-01-02", "2024-13-02T03:04:05Z", "2023-02-29T00:00:00Z", "2024-01-02T03:04:05"] {
            assert_eq!(check("date-time", bad), Some(false), "{bad}");
        }
    }

    #[test]
    fn other_formats() {
        assert_eq!(check("uuid", "123e4567-e89b-12d3-a456-426614174000"), Some(true));
        assert_eq!(check("cidr", "10.0.0.0/33"), Some(false));
        assert_eq!(check("byte", "aGk="), Some(true));
        assert_eq!(check("email", "x"), None);
    }
}
