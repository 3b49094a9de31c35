//! Go's `time.Time` without its template face: an instant (Unix seconds and nanoseconds) in a
//! `time.Location`, the proleptic Gregorian arithmetic behind `time.Date` and the calendar
//! fields, and the month and day names. [`super::layout`] formats and parses these values;
//! [`super::time`] makes them template objects.
//!
//! Locations are UTC, `Local`, a fixed offset (what parsing `+02:00` gives) or an IANA zone
//! (jiff's bundled tz database). `Local` behaves as UTC: kube-compare's corpus runs with
//! `TZ=UTC`, and a linter's output must not depend on the machine it runs on.
//!
//! This module knows nothing of template values or the function table.

use std::rc::Rc;

pub(crate) const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
pub(crate) const DAY_NAMES: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// Seconds from 0001-01-01 (Go's zero time) to the Unix epoch.
pub(super) const ZERO_TIME_UNIX: i64 = -62_135_596_800;

/// A `time.Location`.
#[derive(Clone, Debug)]
pub(crate) enum Loc {
    Utc,
    /// `time.Local`, which is UTC here (see the module header).
    Local,
    /// `time.FixedZone(name, offset)`; the name may be empty.
    Fixed {
        name: Rc<str>,
        offset: i32,
    },
    /// A zone loaded by `time.LoadLocation`.
    Zone {
        name: Rc<str>,
        tz: jiff::tz::TimeZone,
    },
}

impl Loc {
    /// `time.LoadLocation`: "" and "UTC" are UTC, "Local" is Local, other names come from the tz
    /// database, matched exactly as Go's file lookup on Linux does (case-sensitive).
    pub(crate) fn load(name: &str) -> Option<Loc> {
        match name {
            "" | "UTC" => return Some(Loc::Utc),
            "Local" => return Some(Loc::Local),
            _ => {}
        }
        if name.contains("..") || name.starts_with('/') || name.starts_with('\\') {
            return None;
        }
        let tz = jiff::tz::TimeZone::get(name).ok()?;
        if tz.iana_name().is_some_and(|n| n != name) {
            return None;
        }
        Some(Loc::Zone { name: Rc::from(name), tz })
    }

    /// `Location.String()`.
    pub(crate) fn name(&self) -> &str {
        match self {
            Loc::Utc => "UTC",
            Loc::Local => "Local",
            Loc::Fixed { name, .. } | Loc::Zone { name, .. } => name,
        }
    }

    /// The zone abbreviation and UTC offset (seconds) in effect at `secs`.
    pub(crate) fn lookup(&self, secs: i64) -> (String, i32) {
        match self {
            Loc::Utc | Loc::Local => ("UTC".to_string(), 0),
            Loc::Fixed { name, offset } => (name.to_string(), *offset),
            Loc::Zone { tz, .. } => {
                // jiff's range is years -9999..=9999; clamp far instants to its edges.
                let ts = jiff::Timestamp::from_second(secs.clamp(-377_705_116_800, 253_402_207_200))
                    .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
                let info = tz.to_offset_info(ts);
                (info.abbreviation().to_string(), info.offset().seconds())
            }
        }
    }

    pub(super) fn same(&self, other: &Loc) -> bool {
        match (self, other) {
            (Loc::Utc, Loc::Utc) | (Loc::Local, Loc::Local) => true,
            (Loc::Fixed { name: a, offset: x }, Loc::Fixed { name: b, offset: y }) => a == b && x == y,
            (Loc::Zone { name: a, .. }, Loc::Zone { name: b, .. }) => a == b,
            _ => false,
        }
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (any `day`, even past the month's end,
/// counts on linearly, which is how Go normalizes `Date(2024, 1, 32, …)`).
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    // Normalize the month into 1..=12 first.
    let m0 = month - 1;
    let year = year + m0.div_euclid(12);
    let month = m0.rem_euclid(12) + 1;
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468 + (day - 1)
}

/// The (year, month, day) of a day count since 1970-01-01.
pub(crate) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z.saturating_add(719_468);
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub(crate) fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

pub(crate) fn days_in(month: i64, year: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The calendar fields of a time in its location, what `Format` needs.
pub(crate) struct Fields {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub yday: i64,
    pub weekday: i64,
    pub hour: i64,
    pub min: i64,
    pub sec: i64,
    pub nsec: i64,
    pub zone: String,
    pub offset: i32,
}

/// A Go `time.Time`.
#[derive(Clone, Debug)]
pub struct GoTime {
    pub(crate) secs: i64,
    pub(crate) nsec: u32,
    pub(crate) loc: Loc,
    /// Carries a monotonic clock reading (`time.Now()`), which `String()` shows as `m=+…`.
    pub(crate) mono: Option<f64>,
}

impl GoTime {
    pub(crate) fn new(secs: i64, nsec: u32, loc: Loc) -> GoTime {
        GoTime { secs, nsec, loc, mono: None }
    }

    /// `time.Time{}`: January 1, year 1, 00:00:00 UTC.
    pub(crate) fn zero() -> GoTime {
        GoTime::new(ZERO_TIME_UNIX, 0, Loc::Utc)
    }

    /// `time.Now()`.
    pub(crate) fn now() -> GoTime {
        use std::sync::OnceLock;
        use std::time::{Instant, SystemTime, UNIX_EPOCH};
        static START: OnceLock<Instant> = OnceLock::new();
        let start = *START.get_or_init(Instant::now);
        let (secs, nsec) = match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
            Err(_) => (0, 0),
        };
        GoTime { secs, nsec, loc: Loc::Local, mono: Some(start.elapsed().as_secs_f64()) }
    }

    /// `time.Date(year, month, day, hour, min, sec, nsec, loc)` with Go's normalization.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn date(year: i64, month: i64, day: i64, hour: i64, min: i64, sec: i64, nsec: i64, loc: Loc) -> GoTime {
        // Go wraps silently on absurd inputs; clamp them so the arithmetic stays defined.
        const BIG: i64 = 1 << 40;
        let (year, month, day) = (year.clamp(-BIG, BIG), month.clamp(-BIG, BIG), day.clamp(-BIG, BIG));
        let sec = sec.saturating_add(nsec.div_euclid(1_000_000_000));
        let nsec = nsec.rem_euclid(1_000_000_000);
        let days = days_from_civil(year, month, day);
        let local = days
            .saturating_mul(86_400)
            .saturating_add(hour.saturating_mul(3600))
            .saturating_add(min.saturating_mul(60))
            .saturating_add(sec);
        // Go: look the offset up at the local time taken as UTC, and again at the corrected
        // instant when that falls outside the first zone period.
        let (_, off1) = loc.lookup(local);
        let mut unix = local.saturating_sub(i64::from(off1));
        let (_, off2) = loc.lookup(unix);
        if off2 != off1 {
            unix = local.saturating_sub(i64::from(off2));
        }
        GoTime::new(unix, nsec as u32, loc)
    }

    pub(crate) fn with_loc(&self, loc: Loc) -> GoTime {
        GoTime { secs: self.secs, nsec: self.nsec, loc, mono: self.mono }
    }

    pub(crate) fn fields(&self) -> Fields {
        let (zone, offset) = self.loc.lookup(self.secs);
        let local = self.secs.saturating_add(i64::from(offset));
        let days = local.div_euclid(86_400);
        let rem = local.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        let yday = days - days_from_civil(year, 1, 1) + 1;
        // 1970-01-01 was a Thursday.
        let weekday = (days + 4).rem_euclid(7);
        Fields {
            year,
            month,
            day,
            yday,
            weekday,
            hour: rem / 3600,
            min: rem % 3600 / 60,
            sec: rem % 60,
            nsec: i64::from(self.nsec),
            zone,
            offset,
        }
    }

    /// Nanoseconds since the epoch, wrapping as Go's `UnixNano` does outside its range.
    pub(super) fn unix_nano(&self) -> i64 {
        self.secs.wrapping_mul(1_000_000_000).wrapping_add(i64::from(self.nsec))
    }

    fn add_nanos(&self, d: i64) -> GoTime {
        let total = i128::from(self.nsec) + i128::from(d);
        let secs = self.secs.saturating_add(total.div_euclid(1_000_000_000) as i64);
        let nsec = total.rem_euclid(1_000_000_000) as u32;
        GoTime { secs, nsec, loc: self.loc.clone(), mono: None }
    }

    /// `Time.Add(d)`.
    pub(crate) fn add(&self, d: i64) -> GoTime {
        self.add_nanos(d)
    }

    /// `Time.Sub(u)`, saturating like Go.
    pub(super) fn sub(&self, u: &GoTime) -> i64 {
        let d =
            (i128::from(self.secs) - i128::from(u.secs)) * 1_000_000_000 + i128::from(self.nsec) - i128::from(u.nsec);
        d.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }

    pub(super) fn cmp_instant(&self, o: &GoTime) -> std::cmp::Ordering {
        (self.secs, self.nsec).cmp(&(o.secs, o.nsec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for days in [-719_162, -1, 0, 1, 19_787, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(1, 1, 1) * 86_400, ZERO_TIME_UNIX);
        assert_eq!(days_from_civil(2024, 14, 1), days_from_civil(2025, 2, 1));
    }

    #[test]
    fn fields_of_a_known_instant() {
        let f = GoTime::new(1_709_622_489, 0, Loc::Local).fields();
        assert_eq!((f.year, f.month, f.day, f.hour, f.min, f.sec), (2024, 3, 5, 7, 8, 9));
        assert_eq!((f.yday, f.weekday), (65, 2));
    }

    #[test]
    fn zones_load_like_go() {
        assert!(Loc::load("America/New_York").is_some());
        assert!(Loc::load("Not/AZone").is_none());
        let (abbr, off) = Loc::load("Asia/Kolkata").unwrap().lookup(0);
        assert_eq!((abbr.as_str(), off), ("IST", 19_800));
    }
}
