//! Sprig's date functions (date.go): formatting with Go layouts (`date`, `dateInZone`,
//! `htmlDate`, …), parsing (`toDate`, `mustToDate`), `dateModify` with Go durations, `unixEpoch`,
//! `duration`, `durationRound`, `now` and `ago`.
//!
//! Sprig decides what a "date" argument is with a Go type switch: `time.Time`, `int`, `int32`
//! and `int64` (Unix seconds) are dates; anything else, a float64 or a numeric string included,
//! silently means *now*. The submodules hold Go's `time` pieces: [`instant`] the instant, its
//! location and calendar arithmetic, [`time`] the `time.Time` object and its companion types,
//! [`layout`] reference-time formatting and parsing, [`duration`] `Duration` text.

mod duration;
mod instant;
mod layout;
mod time;

use instant::GoTime;

use super::convert::int_of_kinds;
use super::{Ctx, Param, Registry};
use crate::value::{FuncError, IntKind, Value};
use instant::Loc;

pub(super) fn register(r: &mut Registry) {
    const TIME: Param = Param::Named("time.Time");
    r.add("date", &[Param::String, Param::Any], None, date);
    r.add("dateInZone", &[Param::String, Param::Any, Param::String], None, date_in_zone);
    r.add("date_in_zone", &[Param::String, Param::Any, Param::String], None, date_in_zone);
    r.add("htmlDate", &[Param::Any], None, html_date);
    r.add("htmlDateInZone", &[Param::Any, Param::String], None, html_date_in_zone);
    r.add("toDate", &[Param::String, Param::String], None, to_date);
    r.add("mustToDate", &[Param::String, Param::String], None, must_to_date);
    r.add("dateModify", &[Param::String, TIME], None, date_modify);
    r.add("date_modify", &[Param::String, TIME], None, date_modify);
    r.add("mustDateModify", &[Param::String, TIME], None, must_date_modify);
    r.add("must_date_modify", &[Param::String, TIME], None, must_date_modify);
    r.add("unixEpoch", &[TIME], None, unix_epoch);
    r.add("duration", &[Param::Any], None, duration);
    r.add("durationRound", &[Param::Any], None, duration_round);
    r.add("now", &[], None, now);
    r.add("ago", &[Param::Any], None, ago);
}

fn str_arg(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

fn as_time(v: &Value) -> Option<&GoTime> {
    match v {
        Value::Object(o) => o.as_any().downcast_ref::<GoTime>(),
        _ => None,
    }
}

/// Sprig's `dateInZone` type switch: a time, or `int`/`int32`/`int64` Unix seconds; anything
/// else is `time.Now()`.
fn date_value(v: &Value) -> GoTime {
    if let Some(t) = as_time(v) {
        return t.clone();
    }
    match int_of_kinds(v, &[IntKind::Int, IntKind::Int32, IntKind::Int64]) {
        Some(secs) => GoTime::new(secs, 0, Loc::Local),
        None => GoTime::now(),
    }
}

/// Formats in a zone; an unknown zone name silently means UTC, as in Sprig.
fn format_in_zone(layout: &str, date: &Value, zone: &str) -> Value {
    let loc = Loc::load(zone).unwrap_or(Loc::Utc);
    Value::str(layout::format(&date_value(date).with_loc(loc), layout))
}

fn date(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(format_in_zone(str_arg(&args[0]), &args[1], "Local"))
}

fn date_in_zone(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(format_in_zone(str_arg(&args[0]), &args[1], str_arg(&args[2])))
}

fn html_date(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(format_in_zone("2006-01-02", &args[0], "Local"))
}

fn html_date_in_zone(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(format_in_zone("2006-01-02", &args[0], str_arg(&args[1])))
}

/// `toDate layout value`: the zero time when parsing fails.
fn to_date(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let t = layout::parse_in_local(str_arg(&args[0]), str_arg(&args[1])).unwrap_or_else(|_| GoTime::zero());
    Ok(Value::object(t))
}

fn must_to_date(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let t = layout::parse_in_local(str_arg(&args[0]), str_arg(&args[1])).map_err(FuncError::Msg)?;
    Ok(Value::object(t))
}

fn time_param(v: &Value) -> Result<&GoTime, FuncError> {
    as_time(v).ok_or_else(|| FuncError::msg(format!("wrong type for value; expected time.Time; got {}", v.type_name())))
}

/// `dateModify "+36h" t`: `t` unchanged when the duration does not parse.
fn date_modify(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let t = time_param(&args[1])?;
    Ok(match duration::parse_duration(str_arg(&args[0])) {
        Ok(d) => Value::object(t.add(d)),
        Err(_) => args[1].clone(),
    })
}

fn must_date_modify(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let t = time_param(&args[1])?;
    let d = duration::parse_duration(str_arg(&args[0])).map_err(FuncError::Msg)?;
    Ok(Value::object(t.add(d)))
}

fn unix_epoch(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::str(time_param(&args[0])?.secs.to_string()))
}

/// `duration secs`: a string of decimal seconds or an `int64`; everything else (an `int`
/// literal included) is 0, so `duration 95` prints `0s`.
fn duration(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let n = match &args[0] {
        Value::String(s) => super::convert::parse_go_int(s, 10).unwrap_or(0),
        Value::Int(i, IntKind::Int64) => *i,
        _ => 0,
    };
    Ok(Value::str(duration::format_duration(n.wrapping_mul(1_000_000_000))))
}

/// `durationRound`: the largest whole unit strictly below the duration (y = 365d, mo = 30d, d,
/// h, m, s), so exactly `24h` stays `24h`.
fn duration_round(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let d: i64 = match &args[0] {
        Value::String(s) => duration::parse_duration(s).unwrap_or(0),
        Value::Int(i, IntKind::Int64) => *i,
        other => match as_time(other) {
            Some(t) => since(t),
            None => 0,
        },
    };
    let u = d.unsigned_abs();
    const SECOND: u64 = 1_000_000_000;
    const MINUTE: u64 = 60 * SECOND;
    const HOUR: u64 = 60 * MINUTE;
    const DAY: u64 = 24 * HOUR;
    const MONTH: u64 = 30 * DAY;
    const YEAR: u64 = 365 * DAY;
    let text = [(YEAR, "y"), (MONTH, "mo"), (DAY, "d"), (HOUR, "h"), (MINUTE, "m"), (SECOND, "s")]
        .iter()
        .find(|(unit, _)| u > *unit)
        .map_or_else(|| "0s".to_string(), |(unit, name)| format!("{}{name}", u / unit));
    Ok(Value::str(text))
}

/// `time.Since(t)` in nanoseconds, saturating.
fn since(t: &GoTime) -> i64 {
    let now = GoTime::now();
    let d = (i128::from(now.secs) - i128::from(t.secs)) * 1_000_000_000 + i128::from(now.nsec) - i128::from(t.nsec);
    d.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

fn now(_: &mut Ctx<'_>, _: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::object(GoTime::now()))
}

/// `ago t`: time since `t` (a time, or `int`/`int64` Unix seconds), rounded to seconds.
fn ago(_: &mut Ctx<'_>, args: &[Value]) -> Result<Value, FuncError> {
    let t = match as_time(&args[0]) {
        Some(t) => t.clone(),
        None => match int_of_kinds(&args[0], &[IntKind::Int, IntKind::Int64]) {
            Some(secs) => GoTime::new(secs, 0, Loc::Local),
            None => GoTime::now(),
        },
    };
    let d = since(&t);
    // Duration.Round(time.Second): halves away from zero.
    let rounded = (i128::from(d) + if d >= 0 { 500_000_000 } else { -500_000_000 }) / 1_000_000_000 * 1_000_000_000;
    let rounded = rounded.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    Ok(Value::str(duration::format_duration(rounded)))
}
