//! Go's `time.Time` as a template object, with the companion named types templates meet through
//! its methods: `time.Month` and `time.Weekday` (they print as names), `time.Duration` (prints as
//! `1h0m0s`) and `*time.Location`.
//!
//! The values themselves (an instant plus a location, calendar arithmetic, month and day
//! names) live in [`super::instant`]; this module gives them their methods, `%v` forms and
//! equality.

use std::any::Any;

use super::duration::format_duration;
use super::instant::{DAY_NAMES, GoTime, Loc, MONTH_NAMES, ZERO_TIME_UNIX};
use super::layout::{RFC3339_NANO, format};
use crate::funcs::semver::{byte_slice, want_args};
use crate::value::{FuncError, IntKind, Object, Value};

/// `time.Duration`: an `int64` count of nanoseconds that prints as `1h0m0s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GoDuration(pub i64);

/// `time.Month` (1–12) and `time.Weekday` (0–6, Sunday first): integers that print as names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CalendarName {
    Month(i64),
    Weekday(i64),
}

/// `*time.Location`, what `.Location` returns.
#[derive(Clone, Debug)]
pub struct GoLocation(Loc);

fn time_arg<'a>(name: &str, args: &'a [Value]) -> Result<&'a GoTime, FuncError> {
    want_args(name, args, 1)?;
    match &args[0] {
        Value::Object(o) => o.as_any().downcast_ref::<GoTime>(),
        _ => None,
    }
    .ok_or_else(|| FuncError::msg(format!("wrong type for value; expected time.Time; got {}", args[0].type_name())))
}

/// A `time.Duration` argument: a duration object, or an integer constant (text/template converts
/// an untyped number literal to the named integer type).
fn duration_arg(name: &str, args: &[Value]) -> Result<i64, FuncError> {
    want_args(name, args, 1)?;
    match &args[0] {
        Value::Object(o) if o.as_any().downcast_ref::<GoDuration>().is_some() => {
            Ok(o.as_any().downcast_ref::<GoDuration>().map_or(0, |d| d.0))
        }
        Value::Int(i, IntKind::Int) => Ok(*i),
        other => {
            Err(FuncError::msg(format!("wrong type for value; expected time.Duration; got {}", other.type_name())))
        }
    }
}

fn int_args(name: &str, args: &[Value], n: usize) -> Result<Vec<i64>, FuncError> {
    want_args(name, args, n)?;
    args.iter()
        .map(|a| match a {
            Value::Int(i, IntKind::Int) => Ok(*i),
            other => Err(FuncError::msg(format!("wrong type for value; expected int; got {}", other.type_name()))),
        })
        .collect()
}

const TIME_METHODS: &[&str] = &[
    "Year",
    "Month",
    "Day",
    "Hour",
    "Minute",
    "Second",
    "Nanosecond",
    "YearDay",
    "Weekday",
    "Unix",
    "UnixMilli",
    "UnixMicro",
    "UnixNano",
    "Format",
    "String",
    "UTC",
    "Local",
    "IsZero",
    "Before",
    "After",
    "Equal",
    "Compare",
    "Sub",
    "Add",
    "AddDate",
    "Location",
    "MarshalJSON",
    "MarshalText",
];

impl Object for GoTime {
    fn type_name(&self) -> &str {
        "time.Time"
    }

    fn has_method(&self, name: &str) -> bool {
        TIME_METHODS.contains(&name)
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, FuncError>> {
        if !self.has_method(name) {
            return None;
        }
        let no_args = || want_args(name, args, 0);
        let int = |v: i64| no_args().map(|()| Value::int(v));
        let r = match name {
            "Year" => int(self.fields().year),
            "Month" => no_args().map(|()| Value::object(CalendarName::Month(self.fields().month))),
            "Day" => int(self.fields().day),
            "Hour" => int(self.fields().hour),
            "Minute" => int(self.fields().min),
            "Second" => int(self.fields().sec),
            "Nanosecond" => int(i64::from(self.nsec)),
            "YearDay" => int(self.fields().yday),
            "Weekday" => no_args().map(|()| Value::object(CalendarName::Weekday(self.fields().weekday))),
            "Unix" => no_args().map(|()| Value::int64(self.secs)),
            "UnixMilli" => no_args()
                .map(|()| Value::int64(self.secs.wrapping_mul(1000).wrapping_add(i64::from(self.nsec / 1_000_000)))),
            "UnixMicro" => no_args()
                .map(|()| Value::int64(self.secs.wrapping_mul(1_000_000).wrapping_add(i64::from(self.nsec / 1000)))),
            "UnixNano" => no_args().map(|()| Value::int64(self.unix_nano())),
            "Format" => want_args(name, args, 1).and_then(|()| match &args[0] {
                Value::String(layout) => Ok(Value::str(format(self, layout))),
                other => {
                    Err(FuncError::msg(format!("wrong type for value; expected string; got {}", other.type_name())))
                }
            }),
            "String" => no_args().map(|()| Value::str(self.string())),
            "UTC" => no_args().map(|()| Value::object(GoTime { mono: None, ..self.with_loc(Loc::Utc) })),
            "Local" => no_args().map(|()| Value::object(self.with_loc(Loc::Local))),
            "IsZero" => no_args().map(|()| Value::Bool(self.secs == ZERO_TIME_UNIX && self.nsec == 0)),
            "Before" => time_arg(name, args).map(|u| Value::Bool(self.cmp_instant(u).is_lt())),
            "After" => time_arg(name, args).map(|u| Value::Bool(self.cmp_instant(u).is_gt())),
            "Equal" => time_arg(name, args).map(|u| Value::Bool(self.cmp_instant(u).is_eq())),
            "Compare" => time_arg(name, args).map(|u| Value::int(self.cmp_instant(u) as i64)),
            "Sub" => time_arg(name, args).map(|u| Value::object(GoDuration(self.sub(u)))),
            "Add" => duration_arg(name, args).map(|d| Value::object(self.add(d))),
            "AddDate" => int_args(name, args, 3).map(|ymd| {
                let f = self.fields();
                Value::object(GoTime::date(
                    f.year.saturating_add(ymd[0]),
                    f.month.saturating_add(ymd[1]),
                    f.day.saturating_add(ymd[2]),
                    f.hour,
                    f.min,
                    f.sec,
                    f.nsec,
                    self.loc.clone(),
                ))
            }),
            "Location" => no_args().map(|()| Value::object(GoLocation(self.loc.clone()))),
            "MarshalJSON" => {
                no_args().and_then(|()| self.marshal_text("MarshalJSON").map(|s| byte_slice(&format!("\"{s}\""))))
            }
            "MarshalText" => no_args().and_then(|()| self.marshal_text("MarshalText").map(|s| byte_slice(&s))),
            _ => return None,
        };
        Some(r)
    }

    fn display(&self) -> String {
        self.string()
    }

    /// `Time.GoString()`: `time.Date(2024, time.March, 5, 0, 0, 0, 0, time.Local)`.
    fn go_syntax(&self) -> String {
        let f = self.fields();
        let loc = match &self.loc {
            Loc::Utc => "time.UTC".to_string(),
            Loc::Local => "time.Local".to_string(),
            other => format!("time.Location({})", super::duration::time_quote(other.name())),
        };
        format!(
            "time.Date({}, time.{}, {}, {}, {}, {}, {}, {loc})",
            f.year,
            MONTH_NAMES[(f.month - 1) as usize],
            f.day,
            f.hour,
            f.min,
            f.sec,
            f.nsec
        )
    }

    fn deep_equal(&self, other: &dyn Object) -> bool {
        other.as_any().downcast_ref::<GoTime>().is_some_and(|o| {
            o.secs == self.secs
                && o.nsec == self.nsec
                && o.loc.same(&self.loc)
                && o.mono.is_some() == self.mono.is_some()
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl GoTime {
    /// `Time.String()`.
    fn string(&self) -> String {
        let mut s = format(self, "2006-01-02 15:04:05.999999999 -0700 MST");
        if let Some(m) = self.mono {
            s.push_str(&format!(" m=+{m:.9}"));
        }
        s
    }

    /// RFC 3339 with nanoseconds, as `MarshalJSON`/`MarshalText` write it; Go refuses years
    /// outside 0–9999.
    fn marshal_text(&self, method: &str) -> Result<String, FuncError> {
        let year = self.fields().year;
        if !(0..=9999).contains(&year) {
            return Err(FuncError::msg(format!("Time.{method}: year outside of range [0,9999]")));
        }
        Ok(format(self, RFC3339_NANO))
    }
}

impl Object for GoDuration {
    fn type_name(&self) -> &str {
        "time.Duration"
    }
    fn has_method(&self, name: &str) -> bool {
        matches!(name, "String" | "Hours" | "Minutes" | "Seconds" | "Milliseconds" | "Microseconds" | "Nanoseconds")
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, FuncError>> {
        if !self.has_method(name) {
            return None;
        }
        if let Err(e) = want_args(name, args, 0) {
            return Some(Err(e));
        }
        let d = self.0;
        // Go splits whole and fractional parts to keep float precision.
        let split = |unit: i64| (d / unit) as f64 + (d % unit) as f64 / unit as f64;
        Some(Ok(match name {
            "String" => Value::str(format_duration(d)),
            "Hours" => Value::Float(split(3_600_000_000_000)),
            "Minutes" => Value::Float(split(60_000_000_000)),
            "Seconds" => Value::Float(split(1_000_000_000)),
            "Milliseconds" => Value::int64(d / 1_000_000),
            "Microseconds" => Value::int64(d / 1000),
            _ => Value::int64(d),
        }))
    }
    fn display(&self) -> String {
        format_duration(self.0)
    }
    fn go_syntax(&self) -> String {
        self.0.to_string()
    }
    fn deep_equal(&self, other: &dyn Object) -> bool {
        other.as_any().downcast_ref::<GoDuration>() == Some(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl CalendarName {
    fn name(&self) -> String {
        match *self {
            CalendarName::Month(m) if (1..=12).contains(&m) => MONTH_NAMES[(m - 1) as usize].to_string(),
            CalendarName::Month(m) => format!("%!Month({m})"),
            CalendarName::Weekday(d) if (0..=6).contains(&d) => DAY_NAMES[d as usize].to_string(),
            CalendarName::Weekday(d) => format!("%!Weekday({d})"),
        }
    }
}

impl Object for CalendarName {
    fn type_name(&self) -> &str {
        match self {
            CalendarName::Month(_) => "time.Month",
            CalendarName::Weekday(_) => "time.Weekday",
        }
    }
    fn has_method(&self, name: &str) -> bool {
        name == "String"
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, FuncError>> {
        (name == "String").then(|| want_args(name, args, 0).map(|()| Value::str(self.name())))
    }
    fn display(&self) -> String {
        self.name()
    }
    fn go_syntax(&self) -> String {
        match self {
            CalendarName::Month(n) | CalendarName::Weekday(n) => n.to_string(),
        }
    }
    /// Its number: spf13/cast converts a `time.Month`/`time.Weekday` like any integer.
    fn int_value(&self) -> Option<i64> {
        match self {
            CalendarName::Month(n) | CalendarName::Weekday(n) => Some(*n),
        }
    }
    fn deep_equal(&self, other: &dyn Object) -> bool {
        other.as_any().downcast_ref::<CalendarName>() == Some(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Object for GoLocation {
    fn type_name(&self) -> &str {
        "*time.Location"
    }
    fn has_method(&self, name: &str) -> bool {
        name == "String"
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, FuncError>> {
        (name == "String").then(|| want_args(name, args, 0).map(|()| Value::str(self.0.name())))
    }
    fn display(&self) -> String {
        self.0.name().to_string()
    }
    fn deep_equal(&self, other: &dyn Object) -> bool {
        other.as_any().downcast_ref::<GoLocation>().is_some_and(|o| o.0.same(&self.0))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
