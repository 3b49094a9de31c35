//! Go's reference-time layouts (`2006-01-02T15:04:05Z07:00`): `Time.Format` and
//! `time.ParseInLocation`, following time/format.go's chunking (`nextStdChunk`), padding rules
//! and parse errors (`parsing time "x" as "2006": cannot parse "x" as "2006"`).

use super::duration::time_quote;
use super::instant::{DAY_NAMES, GoTime, Loc, MONTH_NAMES, days_in, is_leap};

pub(crate) const RFC3339_NANO: &str = "2006-01-02T15:04:05.999999999Z07:00";

/// One layout element (Go's `std*` constants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Std {
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    PM,
    Pm,
    TZ,
    Iso8601TZ,
    Iso8601SecondsTZ,
    Iso8601ShortTZ,
    Iso8601ColonTZ,
    Iso8601ColonSecondsTZ,
    NumTZ,
    NumSecondsTz,
    NumShortTZ,
    NumColonTZ,
    NumColonSecondsTZ,
    /// `.000` (exact digits) with its separator and digit count.
    FracSecond0(u8, usize),
    /// `.999` (trailing zeros trimmed) with its separator and digit count.
    FracSecond9(u8, usize),
}

fn starts_with_lower(s: &[u8]) -> bool {
    s.first().is_some_and(u8::is_ascii_lowercase)
}

fn is_digit(s: &[u8], i: usize) -> bool {
    s.get(i).is_some_and(u8::is_ascii_digit)
}

/// Go's `nextStdChunk`: the text before the first layout element, the element, the rest.
fn next_std_chunk(layout: &[u8]) -> (&[u8], Option<Std>, &[u8]) {
    let at = |i: usize, s: &str| layout.len() >= i + s.len() && &layout[i..i + s.len()] == s.as_bytes();
    for i in 0..layout.len() {
        let hit = |std: Std, n: usize| Some((&layout[..i], Some(std), &layout[i + n..]));
        let found = match layout[i] {
            b'J' if at(i, "Jan") => {
                if at(i, "January") {
                    hit(Std::LongMonth, 7)
                } else if !starts_with_lower(&layout[i + 3..]) {
                    hit(Std::Month, 3)
                } else {
                    None
                }
            }
            b'M' if layout.len() >= i + 3 => {
                if at(i, "Mon") {
                    if at(i, "Monday") {
                        hit(Std::LongWeekDay, 6)
                    } else if !starts_with_lower(&layout[i + 3..]) {
                        hit(Std::WeekDay, 3)
                    } else {
                        None
                    }
                } else if at(i, "MST") {
                    hit(Std::TZ, 3)
                } else {
                    None
                }
            }
            b'0' => {
                if layout.len() >= i + 2 && (b'1'..=b'6').contains(&layout[i + 1]) {
                    let std =
                        [Std::ZeroMonth, Std::ZeroDay, Std::ZeroHour12, Std::ZeroMinute, Std::ZeroSecond, Std::Year]
                            [usize::from(layout[i + 1] - b'1')];
                    hit(std, 2)
                } else if at(i, "002") {
                    hit(Std::ZeroYearDay, 3)
                } else {
                    None
                }
            }
            b'1' => {
                if at(i, "15") {
                    hit(Std::Hour, 2)
                } else {
                    hit(Std::NumMonth, 1)
                }
            }
            b'2' => {
                if at(i, "2006") {
                    hit(Std::LongYear, 4)
                } else {
                    hit(Std::Day, 1)
                }
            }
            b'_' => {
                if layout.len() >= i + 2 && layout[i + 1] == b'2' {
                    // `_2006` is a literal underscore followed by the long year.
                    if at(i + 1, "2006") {
                        Some((&layout[..i + 1], Some(Std::LongYear), &layout[i + 5..]))
                    } else {
                        hit(Std::UnderDay, 2)
                    }
                } else if at(i, "__2") {
                    hit(Std::UnderYearDay, 3)
                } else {
                    None
                }
            }
            b'3' => hit(Std::Hour12, 1),
            b'4' => hit(Std::Minute, 1),
            b'5' => hit(Std::Second, 1),
            b'P' if at(i, "PM") => hit(Std::PM, 2),
            b'p' if at(i, "pm") => hit(Std::Pm, 2),
            b'-' => {
                if at(i, "-070000") {
                    hit(Std::NumSecondsTz, 7)
                } else if at(i, "-07:00:00") {
                    hit(Std::NumColonSecondsTZ, 9)
                } else if at(i, "-0700") {
                    hit(Std::NumTZ, 5)
                } else if at(i, "-07:00") {
                    hit(Std::NumColonTZ, 6)
                } else if at(i, "-07") {
                    hit(Std::NumShortTZ, 3)
                } else {
                    None
                }
            }
            b'Z' => {
                if at(i, "Z070000") {
                    hit(Std::Iso8601SecondsTZ, 7)
                } else if at(i, "Z07:00:00") {
                    hit(Std::Iso8601ColonSecondsTZ, 9)
                } else if at(i, "Z0700") {
                    hit(Std::Iso8601TZ, 5)
                } else if at(i, "Z07:00") {
                    hit(Std::Iso8601ColonTZ, 6)
                } else if at(i, "Z07") {
                    hit(Std::Iso8601ShortTZ, 3)
                } else {
                    None
                }
            }
            sep @ (b'.' | b',') if i + 1 < layout.len() && matches!(layout[i + 1], b'0' | b'9') => {
                let ch = layout[i + 1];
                let mut j = i + 1;
                while j < layout.len() && layout[j] == ch {
                    j += 1;
                }
                // Only a fractional second when the run of digits ends here.
                if is_digit(layout, j) {
                    None
                } else {
                    let n = j - (i + 1);
                    let std = if ch == b'0' { Std::FracSecond0(sep, n) } else { Std::FracSecond9(sep, n) };
                    Some((&layout[..i], Some(std), &layout[j..]))
                }
            }
            _ => None,
        };
        if let Some(f) = found {
            return f;
        }
    }
    (layout, None, &[])
}

/// Go's `appendInt`: zero-padded to `width`, a minus sign before the padding.
fn push_int(b: &mut String, x: i64, width: usize) {
    if x < 0 {
        b.push('-');
    }
    let digits = x.unsigned_abs().to_string();
    for _ in digits.len()..width {
        b.push('0');
    }
    b.push_str(&digits);
}

/// `Time.Format(layout)`.
pub(crate) fn format(t: &GoTime, layout: &str) -> String {
    let f = t.fields();
    let mut b = String::with_capacity(layout.len() + 10);
    let mut rest = layout.as_bytes();
    loop {
        let (prefix, std, suffix) = next_std_chunk(rest);
        b.push_str(&String::from_utf8_lossy(prefix));
        let Some(std) = std else { break };
        rest = suffix;
        match std {
            Std::Year => push_int(&mut b, f.year % 100, 2),
            Std::LongYear => push_int(&mut b, f.year, 4),
            Std::Month => b.push_str(&MONTH_NAMES[(f.month - 1) as usize][..3]),
            Std::LongMonth => b.push_str(MONTH_NAMES[(f.month - 1) as usize]),
            Std::NumMonth => push_int(&mut b, f.month, 0),
            Std::ZeroMonth => push_int(&mut b, f.month, 2),
            Std::WeekDay => b.push_str(&DAY_NAMES[f.weekday as usize][..3]),
            Std::LongWeekDay => b.push_str(DAY_NAMES[f.weekday as usize]),
            Std::Day => push_int(&mut b, f.day, 0),
            Std::UnderDay => {
                if f.day < 10 {
                    b.push(' ');
                }
                push_int(&mut b, f.day, 0);
            }
            Std::ZeroDay => push_int(&mut b, f.day, 2),
            Std::UnderYearDay => {
                if f.yday < 100 {
                    b.push(' ');
                    if f.yday < 10 {
                        b.push(' ');
                    }
                }
                push_int(&mut b, f.yday, 0);
            }
            Std::ZeroYearDay => push_int(&mut b, f.yday, 3),
            Std::Hour => push_int(&mut b, f.hour, 2),
            Std::Hour12 | Std::ZeroHour12 => {
                let hr = match f.hour % 12 {
                    0 => 12,
                    h => h,
                };
                push_int(&mut b, hr, if std == Std::Hour12 { 0 } else { 2 });
            }
            Std::Minute => push_int(&mut b, f.min, 0),
            Std::ZeroMinute => push_int(&mut b, f.min, 2),
            Std::Second => push_int(&mut b, f.sec, 0),
            Std::ZeroSecond => push_int(&mut b, f.sec, 2),
            Std::PM => b.push_str(if f.hour >= 12 { "PM" } else { "AM" }),
            Std::Pm => b.push_str(if f.hour >= 12 { "pm" } else { "am" }),
            Std::Iso8601TZ
            | Std::Iso8601ColonTZ
            | Std::Iso8601SecondsTZ
            | Std::Iso8601ShortTZ
            | Std::Iso8601ColonSecondsTZ
            | Std::NumTZ
            | Std::NumColonTZ
            | Std::NumSecondsTz
            | Std::NumShortTZ
            | Std::NumColonSecondsTZ => {
                let iso = matches!(
                    std,
                    Std::Iso8601TZ
                        | Std::Iso8601ColonTZ
                        | Std::Iso8601SecondsTZ
                        | Std::Iso8601ShortTZ
                        | Std::Iso8601ColonSecondsTZ
                );
                // The Z variants print "Z" for UTC, as ISO 8601 does.
                if f.offset == 0 && iso {
                    b.push('Z');
                    continue;
                }
                let offset = i64::from(f.offset);
                let mut zone = offset / 60;
                let mut absoffset = offset;
                if zone < 0 {
                    b.push('-');
                    zone = -zone;
                    absoffset = -absoffset;
                } else {
                    b.push('+');
                }
                push_int(&mut b, zone / 60, 2);
                let colon = matches!(
                    std,
                    Std::Iso8601ColonTZ | Std::NumColonTZ | Std::Iso8601ColonSecondsTZ | Std::NumColonSecondsTZ
                );
                if colon {
                    b.push(':');
                }
                if !matches!(std, Std::NumShortTZ | Std::Iso8601ShortTZ) {
                    push_int(&mut b, zone % 60, 2);
                }
                if matches!(
                    std,
                    Std::Iso8601SecondsTZ | Std::NumSecondsTz | Std::NumColonSecondsTZ | Std::Iso8601ColonSecondsTZ
                ) {
                    if matches!(std, Std::NumColonSecondsTZ | Std::Iso8601ColonSecondsTZ) {
                        b.push(':');
                    }
                    push_int(&mut b, absoffset % 60, 2);
                }
            }
            Std::TZ => {
                if !f.zone.is_empty() {
                    b.push_str(&f.zone);
                } else {
                    // No abbreviation known: Go prints the -0700 form.
                    let mut zone = i64::from(f.offset) / 60;
                    if zone < 0 {
                        b.push('-');
                        zone = -zone;
                    } else {
                        b.push('+');
                    }
                    push_int(&mut b, zone / 60, 2);
                    push_int(&mut b, zone % 60, 2);
                }
            }
            Std::FracSecond0(sep, n) | Std::FracSecond9(sep, n) => {
                let trim = matches!(std, Std::FracSecond9(..));
                if trim && (n == 0 || f.nsec == 0) {
                    continue;
                }
                let mut digits = format!("{:09}", f.nsec);
                digits.truncate(n.min(9));
                if trim {
                    let t = digits.trim_end_matches('0');
                    if t.is_empty() {
                        continue;
                    }
                    digits = t.to_string();
                }
                b.push(char::from(sep));
                b.push_str(&digits);
            }
        }
    }
    b
}

// ---------------------------------------------------------------------------------------------
// Parsing

/// Go's `getnum`: one or two digits (exactly two when `fixed`).
fn getnum(s: &[u8], fixed: bool) -> Option<(i64, &[u8])> {
    if !is_digit(s, 0) {
        return None;
    }
    if !is_digit(s, 1) {
        if fixed {
            return None;
        }
        return Some((i64::from(s[0] - b'0'), &s[1..]));
    }
    Some((i64::from(s[0] - b'0') * 10 + i64::from(s[1] - b'0'), &s[2..]))
}

/// Go's `getnum3`: one to three digits (exactly three when `fixed`).
fn getnum3(s: &[u8], fixed: bool) -> Option<(i64, &[u8])> {
    let mut n = 0i64;
    let mut i = 0;
    while i < 3 && is_digit(s, i) {
        n = n * 10 + i64::from(s[i] - b'0');
        i += 1;
    }
    if i == 0 || fixed && i != 3 {
        return None;
    }
    Some((n, &s[i..]))
}

/// The time package's `leadingInt`.
fn leading_int(s: &[u8]) -> Option<(i64, &[u8])> {
    let mut x: i64 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        x = x.checked_mul(10)?.checked_add(i64::from(s[i] - b'0'))?;
        i += 1;
    }
    Some((x, &s[i..]))
}

/// The time package's `atoi`: optional sign, all digits.
fn atoi(s: &[u8]) -> Option<i64> {
    let (neg, s) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (x, rem) = leading_int(s)?;
    if !rem.is_empty() || s.is_empty() {
        return None;
    }
    Some(if neg { -x } else { x })
}

/// Go's `lookup`: a case-insensitive prefix match against a name table.
fn lookup<'a>(tab: &[&str], val: &'a [u8]) -> Option<(usize, &'a [u8])> {
    for (i, v) in tab.iter().enumerate() {
        let v = v.as_bytes();
        if val.len() >= v.len() && val[..v.len()].eq_ignore_ascii_case(v) {
            return Some((i, &val[v.len()..]));
        }
    }
    None
}

/// Go's `skip`: matches the literal layout text; a space matches any run of spaces.
fn skip<'a>(mut value: &'a [u8], mut prefix: &[u8]) -> Result<&'a [u8], &'a [u8]> {
    while let Some(&p) = prefix.first() {
        if p == b' ' {
            if value.first().is_some_and(|c| *c != b' ') {
                return Err(value);
            }
            prefix = trim_spaces(prefix);
            value = trim_spaces(value);
            continue;
        }
        if value.first() != Some(&p) {
            return Err(value);
        }
        prefix = &prefix[1..];
        value = &value[1..];
    }
    Ok(value)
}

fn trim_spaces(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|c| **c == b' ').count();
    &s[n..]
}

fn parse_nanoseconds(value: &[u8], nbytes: usize) -> Result<i64, Option<&'static str>> {
    if !matches!(value.first(), Some(b'.' | b',')) {
        return Err(None);
    }
    let nbytes = nbytes.min(10);
    let ns = atoi(&value[1..nbytes.min(value.len())]).ok_or(None)?;
    if ns < 0 {
        return Err(Some("fractional second"));
    }
    Ok(ns * 10i64.pow((10 - nbytes) as u32))
}

/// Go's `parseTimeZone`: how many bytes of `value` look like a zone abbreviation.
fn parse_time_zone(value: &[u8]) -> Option<usize> {
    if value.len() < 3 {
        return None;
    }
    if value.len() >= 4 && (&value[..4] == b"ChST" || &value[..4] == b"MeST") {
        return Some(4);
    }
    if &value[..3] == b"GMT" {
        let rest = &value[3..];
        return Some(if rest.is_empty() { 3 } else { 3 + parse_signed_offset(rest) });
    }
    if value[0] == b'+' || value[0] == b'-' {
        let n = parse_signed_offset(value);
        return (n > 0).then_some(n);
    }
    let n_upper = value.iter().take(6).take_while(|c| c.is_ascii_uppercase()).count();
    match n_upper {
        5 if value[4] == b'T' => Some(5),
        4 if value[3] == b'T' || &value[..4] == b"WITA" => Some(4),
        3 => Some(3),
        _ => None,
    }
}

fn parse_signed_offset(value: &[u8]) -> usize {
    if !matches!(value.first(), Some(b'+' | b'-')) {
        return 0;
    }
    match leading_int(&value[1..]) {
        Some((x, rem)) if rem.len() != value.len() - 1 && x <= 12 => value.len() - rem.len(),
        _ => 0,
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `time.ParseInLocation(layout, value, time.Local)`; errors carry Go's message.
pub(crate) fn parse_in_local(layout_str: &str, value_str: &str) -> Result<GoTime, String> {
    let (alayout, avalue) = (layout_str, value_str);
    let parse_error = |layout_elem: &[u8], value_elem: &[u8]| {
        format!(
            "parsing time {} as {}: cannot parse {} as {}",
            time_quote(avalue),
            time_quote(alayout),
            time_quote(&lossy(value_elem)),
            time_quote(&lossy(layout_elem))
        )
    };
    let message_error = |msg: &str| format!("parsing time {}{msg}", time_quote(avalue));

    let mut layout = layout_str.as_bytes();
    let mut value = value_str.as_bytes();
    let (mut am_set, mut pm_set) = (false, false);
    let (mut year, mut month, mut day, mut yday) = (0i64, -1i64, -1i64, -1i64);
    let (mut hour, mut min, mut sec, mut nsec) = (0i64, 0i64, 0i64, 0i64);
    let mut z: Option<Loc> = None;
    let mut zone_offset: i64 = -1;
    let mut zone_name = String::new();

    loop {
        let (prefix, std, suffix) = next_std_chunk(layout);
        let stdstr = &layout[prefix.len()..layout.len() - suffix.len()];
        value = skip(value, prefix).map_err(|rest| parse_error(prefix, rest))?;
        let Some(std) = std else {
            if !value.is_empty() {
                return Err(message_error(&format!(": extra text: {}", time_quote(&lossy(value)))));
            }
            break;
        };
        layout = suffix;
        let hold = value;
        let mut range_err: Option<&str> = None;
        let ok: Option<()> = (|| {
            match std {
                Std::Year => {
                    if value.len() < 2 {
                        return None;
                    }
                    let p = &value[..2];
                    value = &value[2..];
                    year = atoi(p)?;
                    year += if year >= 69 { 1900 } else { 2000 };
                }
                Std::LongYear => {
                    if value.len() < 4 || !is_digit(value, 0) {
                        return None;
                    }
                    let p = &value[..4];
                    value = &value[4..];
                    year = atoi(p)?;
                }
                Std::Month | Std::LongMonth => {
                    let names: Vec<&str> = if std == Std::Month {
                        MONTH_NAMES.iter().map(|m| &m[..3]).collect()
                    } else {
                        MONTH_NAMES.to_vec()
                    };
                    let (i, rest) = lookup(&names, value)?;
                    month = i as i64 + 1;
                    value = rest;
                }
                Std::NumMonth | Std::ZeroMonth => {
                    let (m, rest) = getnum(value, std == Std::ZeroMonth)?;
                    month = m;
                    value = rest;
                    if !(1..=12).contains(&month) {
                        range_err = Some("month");
                    }
                }
                Std::WeekDay | Std::LongWeekDay => {
                    let names: Vec<&str> = if std == Std::WeekDay {
                        DAY_NAMES.iter().map(|d| &d[..3]).collect()
                    } else {
                        DAY_NAMES.to_vec()
                    };
                    value = lookup(&names, value)?.1;
                }
                Std::Day | Std::UnderDay | Std::ZeroDay => {
                    if std == Std::UnderDay && value.first() == Some(&b' ') {
                        value = &value[1..];
                    }
                    let (d, rest) = getnum(value, std == Std::ZeroDay)?;
                    day = d;
                    value = rest;
                }
                Std::UnderYearDay | Std::ZeroYearDay => {
                    for _ in 0..2 {
                        if std == Std::UnderYearDay && value.first() == Some(&b' ') {
                            value = &value[1..];
                        }
                    }
                    let (d, rest) = getnum3(value, std == Std::ZeroYearDay)?;
                    yday = d;
                    value = rest;
                }
                Std::Hour => {
                    let (h, rest) = getnum(value, false)?;
                    hour = h;
                    value = rest;
                    if !(0..24).contains(&hour) {
                        range_err = Some("hour");
                    }
                }
                Std::Hour12 | Std::ZeroHour12 => {
                    let (h, rest) = getnum(value, std == Std::ZeroHour12)?;
                    hour = h;
                    value = rest;
                    if !(0..=12).contains(&hour) {
                        range_err = Some("hour");
                    }
                }
                Std::Minute | Std::ZeroMinute => {
                    let (m, rest) = getnum(value, std == Std::ZeroMinute)?;
                    min = m;
                    value = rest;
                    if !(0..60).contains(&min) {
                        range_err = Some("minute");
                    }
                }
                Std::Second | Std::ZeroSecond => {
                    let (s, rest) = getnum(value, std == Std::ZeroSecond)?;
                    sec = s;
                    value = rest;
                    if !(0..60).contains(&sec) {
                        range_err = Some("second");
                        return Some(());
                    }
                    // A fractional second in the input without one in the layout is accepted.
                    if value.len() >= 2 && matches!(value[0], b'.' | b',') && is_digit(value, 1) {
                        let (_, next, _) = next_std_chunk(layout);
                        if matches!(next, Some(Std::FracSecond0(..) | Std::FracSecond9(..))) {
                            return Some(());
                        }
                        let mut n = 2;
                        while n < value.len() && is_digit(value, n) {
                            n += 1;
                        }
                        match parse_nanoseconds(value, n) {
                            Ok(ns) => nsec = ns,
                            Err(Some(r)) => range_err = Some(r),
                            Err(None) => return None,
                        }
                        value = &value[n..];
                    }
                }
                Std::PM | Std::Pm => {
                    if value.len() < 2 {
                        return None;
                    }
                    let p = &value[..2];
                    value = &value[2..];
                    let (pm, am): (&[u8], &[u8]) = if std == Std::PM { (b"PM", b"AM") } else { (b"pm", b"am") };
                    if p == pm {
                        pm_set = true;
                    } else if p == am {
                        am_set = true;
                    } else {
                        return None;
                    }
                }
                Std::Iso8601TZ
                | Std::Iso8601ShortTZ
                | Std::Iso8601ColonTZ
                | Std::Iso8601SecondsTZ
                | Std::Iso8601ColonSecondsTZ
                | Std::NumTZ
                | Std::NumShortTZ
                | Std::NumColonTZ
                | Std::NumSecondsTz
                | Std::NumColonSecondsTZ => {
                    let iso = matches!(
                        std,
                        Std::Iso8601TZ
                            | Std::Iso8601ShortTZ
                            | Std::Iso8601ColonTZ
                            | Std::Iso8601SecondsTZ
                            | Std::Iso8601ColonSecondsTZ
                    );
                    if iso && value.first() == Some(&b'Z') {
                        value = &value[1..];
                        z = Some(Loc::Utc);
                        return Some(());
                    }
                    let v = value;
                    let (sign, hh, mm, ss, used): (u8, &[u8], &[u8], &[u8], usize) = match std {
                        Std::Iso8601ColonTZ | Std::NumColonTZ => {
                            if v.len() < 6 || v[3] != b':' {
                                return None;
                            }
                            (v[0], &v[1..3], &v[4..6], b"00", 6)
                        }
                        Std::NumShortTZ | Std::Iso8601ShortTZ => {
                            if v.len() < 3 {
                                return None;
                            }
                            (v[0], &v[1..3], b"00", b"00", 3)
                        }
                        Std::Iso8601ColonSecondsTZ | Std::NumColonSecondsTZ => {
                            if v.len() < 9 || v[3] != b':' || v[6] != b':' {
                                return None;
                            }
                            (v[0], &v[1..3], &v[4..6], &v[7..9], 9)
                        }
                        Std::Iso8601SecondsTZ | Std::NumSecondsTz => {
                            if v.len() < 7 {
                                return None;
                            }
                            (v[0], &v[1..3], &v[3..5], &v[5..7], 7)
                        }
                        _ => {
                            if v.len() < 5 {
                                return None;
                            }
                            (v[0], &v[1..3], &v[3..5], b"00", 5)
                        }
                    };
                    value = &v[used..];
                    let hr = getnum(hh, true)?.0;
                    let mi = getnum(mm, true)?.0;
                    let se = getnum(ss, true)?.0;
                    // Go checks with > (not >=): offsets of 24h or 60m are accepted.
                    if hr > 24 {
                        range_err = Some("time zone offset hour");
                    }
                    if mi > 60 {
                        range_err = Some("time zone offset minute");
                    }
                    if se > 60 {
                        range_err = Some("time zone offset second");
                    }
                    zone_offset = (hr * 60 + mi) * 60 + se;
                    match sign {
                        b'+' => {}
                        b'-' => zone_offset = -zone_offset,
                        _ => return None,
                    }
                }
                Std::TZ => {
                    if value.len() >= 3 && &value[..3] == b"UTC" {
                        z = Some(Loc::Utc);
                        value = &value[3..];
                        return Some(());
                    }
                    let n = parse_time_zone(value)?;
                    zone_name = lossy(&value[..n]);
                    value = &value[n..];
                }
                Std::FracSecond0(_, n) => {
                    let ndigit = 1 + n;
                    if value.len() < ndigit {
                        return None;
                    }
                    match parse_nanoseconds(value, ndigit) {
                        Ok(ns) => nsec = ns,
                        Err(Some(r)) => range_err = Some(r),
                        Err(None) => return None,
                    }
                    value = &value[ndigit..];
                }
                Std::FracSecond9(..) => {
                    if value.len() < 2 || !matches!(value[0], b'.' | b',') || !value[1].is_ascii_digit() {
                        // The fractional second is optional.
                        return Some(());
                    }
                    let mut i = 0;
                    while i + 1 < value.len() && value[i + 1].is_ascii_digit() {
                        i += 1;
                    }
                    match parse_nanoseconds(value, 1 + i) {
                        Ok(ns) => nsec = ns,
                        Err(Some(r)) => range_err = Some(r),
                        Err(None) => return None,
                    }
                    value = &value[1 + i..];
                }
            }
            Some(())
        })();
        if let Some(r) = range_err {
            return Err(message_error(&format!(": {r} out of range")));
        }
        if ok.is_none() {
            return Err(parse_error(stdstr, hold));
        }
    }
    if pm_set && hour < 12 {
        hour += 12;
    } else if am_set && hour == 12 {
        hour = 0;
    }

    if yday >= 0 {
        let (mut d, mut m) = (0i64, 0i64);
        if is_leap(year) {
            if yday == 31 + 29 {
                m = 2;
                d = 29;
            } else if yday > 31 + 29 {
                yday -= 1;
            }
        }
        if !(1..=365).contains(&yday) {
            return Err(message_error(": day-of-year out of range"));
        }
        if m == 0 {
            const DAYS_BEFORE: [i64; 13] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];
            m = (yday - 1) / 31 + 1;
            if DAYS_BEFORE[m as usize] < yday {
                m += 1;
            }
            d = yday - DAYS_BEFORE[(m - 1) as usize];
        }
        if month >= 0 && month != m {
            return Err(message_error(": day-of-year does not match month"));
        }
        month = m;
        if day >= 0 && day != d {
            return Err(message_error(": day-of-year does not match day"));
        }
        day = d;
    } else {
        if month < 0 {
            month = 1;
        }
        if day < 0 {
            day = 1;
        }
    }
    if day < 1 || day > days_in(month, year) {
        return Err(message_error(": day out of range"));
    }

    if let Some(z) = z {
        return Ok(GoTime::date(year, month, day, hour, min, sec, nsec, z));
    }
    if zone_offset != -1 {
        let mut t = GoTime::date(year, month, day, hour, min, sec, nsec, Loc::Utc);
        t.secs = t.secs.saturating_sub(zone_offset);
        // Local is UTC: its offset is 0 and its abbreviation "UTC".
        if zone_offset == 0 && (zone_name.is_empty() || zone_name == "UTC") {
            return Ok(t.with_loc(Loc::Local));
        }
        return Ok(t.with_loc(Loc::Fixed { name: zone_name.into(), offset: zone_offset as i32 }));
    }
    if !zone_name.is_empty() {
        let t = GoTime::date(year, month, day, hour, min, sec, nsec, Loc::Utc);
        // Local (UTC) has no other abbreviation: Go records a fake zone, with the offset of a
        // GMT±h name and 0 otherwise, without moving the instant.
        let mut offset = 0i64;
        if zone_name.len() > 3 && zone_name.starts_with("GMT") {
            offset = atoi(&zone_name.as_bytes()[3..]).unwrap_or(0) * 3600;
        }
        return Ok(t.with_loc(Loc::Fixed { name: zone_name.into(), offset: offset as i32 }));
    }
    Ok(GoTime::date(year, month, day, hour, min, sec, nsec, Loc::Local))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> GoTime {
        GoTime::new(secs, 0, Loc::Local)
    }

    #[test]
    fn formats_like_go() {
        assert_eq!(format(&at(1_700_000_000), "2006-01-02T15:04:05Z07:00"), "2023-11-14T22:13:20Z");
        assert_eq!(format(&at(0), "Mon Jan 2 2006"), "Thu Jan 1 1970");
        assert_eq!(format(&at(1_000_000_000), "02/01/06 3PM"), "09/09/01 1AM");
        assert_eq!(format(&at(1), "2006-01-02T15:04:05.000"), "1970-01-01T00:00:01.000");
        assert_eq!(format(&at(1_709_622_489), "Jan _2"), "Mar  5");
        assert_eq!(format(&GoTime::zero(), "2006-01-02 15:04:05.999999999 -0700 MST"), "0001-01-01 00:00:00 +0000 UTC");
        let ny = Loc::load("America/New_York").unwrap();
        assert_eq!(format(&at(1_700_000_000).with_loc(ny), "2006-01-02 15:04 MST"), "2023-11-14 17:13 EST");
    }

    #[test]
    fn parses_like_go() {
        let t = parse_in_local("2006-01-02 15:04", "2024-03-05 10:30").unwrap();
        assert_eq!(t.secs, 1_709_634_600);
        let e = parse_in_local("2006-01-02", "2024/03/05").unwrap_err();
        assert_eq!(e, r#"parsing time "2024/03/05" as "2006-01-02": cannot parse "/03/05" as "-""#);
        let t = parse_in_local("2006-01-02T15:04:05Z07:00", "2024-03-05T10:00:00+02:00").unwrap();
        assert_eq!(format(&t, "15:04 -07:00"), "10:00 +02:00");
        assert_eq!(t.secs, parse_in_local("2006-01-02 15", "2024-03-05 08").unwrap().secs);
        assert!(parse_in_local("2006-01-02", "2024-02-30").unwrap_err().ends_with("day out of range"));
        assert!(parse_in_local("2006", "2024x").unwrap_err().contains("extra text"));
        let t = parse_in_local("2006-01-02 15:04:05", "2024-03-05 07:08:09.5").unwrap();
        assert_eq!(t.nsec, 500_000_000);
    }
}
