//! Kubernetes' named formats (`k8s.io/apiserver/pkg/cel/library/format.go`):
//! `format.dns1123Label()` … `format.datetime()` and `format.named(string)` give a format,
//! whose `validate(string)` is `optional.none()` for a valid string, else an optional list of
//! the reasons it is not (`!format.dns1123Label().validate(self.name).hasValue()`).
//! `format.named` of an unknown name is `optional.none()`.
//!
//! The name formats follow k8s.io/apimachinery's validation with its messages; the `uri`,
//! `uuid`, `byte`, `date` and `datetime` validators are those of kube-rs's `kube-cel`
//! (`src/functions/named_format.rs`, Apache-2.0), with Kubernetes' one message each.

use std::sync::Arc;

use cel::common::value::CowVal;
use cel::objects::{Opaque, OptionalValue};
use cel::{DeclarationError, Env, Value};

use super::{DYN, Res, bad, give, global, member, string_arg, values};
use crate::cost;

/// The formats, written once: `NAMES` (what `format.named` takes) and one constructor per
/// name (an overload is a function pointer, which cannot hold the name).
macro_rules! formats {
    ($($name:literal),* $(,)?) => {
        const NAMES: &[&str] = &[$($name),*];

        fn register_constructors(env: &mut Env) -> Result<(), DeclarationError> {
            $(global(env, concat!("format.", $name), 0, |_| give(Value::Opaque(Arc::new(Format($name)))))?;)*
            Ok(())
        }
    };
}

formats!(
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format(&'static str);

impl Opaque for Format {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.NamedFormat"
    }
}

/// The function names this module registers, for the environment's table of names.
pub fn function_names() -> impl Iterator<Item = String> {
    NAMES.iter().map(|n| format!("format.{n}")).chain(["format.named".to_string(), "validate".to_string()])
}

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    register_constructors(env)?;
    global(env, "format.named", 1, named)?;
    member(env, "validate", DYN, 1, validate)?;
    Ok(())
}

fn named<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let name = string_arg("format.named", &a[0])?;
    let found = NAMES.iter().find(|n| **n == name).map(|n| Value::Opaque(Arc::new(Format(n))));
    give(Value::Opaque(Arc::new(match found {
        Some(f) => OptionalValue::of(f),
        None => OptionalValue::none(),
    })))
}

fn validate<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let Value::Opaque(o) = &a[0] else { return Err(bad("validate", "expects a named format")) };
    let Some(Format(kind)) = o.downcast_ref::<Format>() else { return Err(bad("validate", "expects a named format")) };
    let s = string_arg("validate", &a[1])?;
    cost::charge(s.len() as u64 / 16 + 1)?;
    let errors = validate_format(kind, s);
    give(Value::Opaque(Arc::new(if errors.is_empty() {
        OptionalValue::none()
    } else {
        OptionalValue::of(Value::List(Arc::new(errors.into_iter().map(|e| Value::String(Arc::new(e))).collect())))
    })))
}

fn validate_format(kind: &str, s: &str) -> Vec<String> {
    match kind {
        "dns1123Label" => validate_dns1123_label(s),
        "dns1123Subdomain" => validate_dns1123_subdomain(s),
        "dns1035Label" => validate_dns1035_label(s),
        "dns1035LabelPrefix" => validate_dns1035_label_prefix(s),
        "dns1123LabelPrefix" => validate_dns1123_label_prefix(s),
        "dns1123SubdomainPrefix" => validate_dns1123_subdomain_prefix(s),
        "qualifiedName" => validate_qualified_name(s),
        "labelValue" => validate_label_value(s),
        // Kubernetes gives one fixed message for these (format.go); the validators decide.
        "uri" => one(validate_uri(s), &format!("parse {s:?}: invalid URI for request")),
        "uuid" => one(validate_uuid(s), "does not match the UUID format"),
        "byte" => one(validate_byte(s), "invalid base64"),
        "date" => one(validate_date(s), "invalid date"),
        "datetime" => one(validate_datetime(s), "invalid datetime"),
        _ => Vec::new(),
    }
}

// The name formats: k8s.io/apimachinery `pkg/util/validation` (IsDNS1123Label,
// IsDNS1123Subdomain, IsDNS1035Label, IsQualifiedName, IsValidLabelValue) with their messages,
// and `pkg/api/validation` for the prefixes (a trailing `-` masked, as `maskTrailingDash`).

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";

fn dns1123_subdomain_fmt() -> String {
    format!("{DNS1123_LABEL_FMT}(\\.{DNS1123_LABEL_FMT})*")
}

fn full_match(pattern: &str, s: &str) -> bool {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<String, regex::Regex>>> = OnceLock::new();
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let re = cache
        .entry(pattern.to_string())
        .or_insert_with(|| regex::Regex::new(&format!("^(?:{pattern})$")).expect("a fixed pattern"));
    re.is_match(s)
}

/// apimachinery's `RegexError`.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut out = format!("{msg} (");
    if !examples.is_empty() {
        out.push_str("e.g. ");
        for (i, e) in examples.iter().enumerate() {
            if i > 0 {
                out.push_str(" or ");
            }
            out.push_str(&format!("'{e}', "));
        }
    }
    out.push_str(&format!("regex used for validation is '{fmt}')"));
    out
}

fn max_len(n: usize) -> String {
    format!("must be no more than {n} characters")
}

fn mask_trailing_dash(s: &str) -> String {
    if s.len() > 1 && s.ends_with('-') && s.is_char_boundary(s.len() - 2) {
        format!("{}a", &s[..s.len() - 2])
    } else {
        s.to_string()
    }
}

fn validate_dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len(63));
    }
    if !full_match(DNS1123_LABEL_FMT, s) {
        if full_match(&dns1123_subdomain_fmt(), s) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

fn validate_dns1123_subdomain(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(max_len(253));
    }
    let fmt = dns1123_subdomain_fmt();
    if !full_match(&fmt, s) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            &fmt,
            &["example.com"],
        ));
    }
    errs
}

fn validate_dns1035_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len(63));
    }
    if !full_match(DNS1035_LABEL_FMT, s) {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

fn validate_dns1123_label_prefix(s: &str) -> Vec<String> {
    validate_dns1123_label(&mask_trailing_dash(s))
}

fn validate_dns1123_subdomain_prefix(s: &str) -> Vec<String> {
    validate_dns1123_subdomain(&mask_trailing_dash(s))
}

fn validate_dns1035_label_prefix(s: &str) -> Vec<String> {
    validate_dns1035_label(&mask_trailing_dash(s))
}

const QUALIFIED_NAME_MSG: &str =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

fn validate_qualified_name(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = s.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(validate_dns1123_subdomain(prefix).into_iter().map(|m| format!("prefix part {m}")));
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len(63)));
    }
    if !full_match(QUALIFIED_NAME_FMT, name) {
        errs.push(format!(
            "name part {}",
            regex_error(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errs
}

fn validate_label_value(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len(63));
    }
    let fmt = format!("({QUALIFIED_NAME_FMT})?");
    if !full_match(&fmt, s) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            &fmt,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

fn one(errors: Vec<String>, message: &str) -> Vec<String> {
    if errors.is_empty() { errors } else { vec![message.to_string()] }
}

// -- URI --

fn validate_uri(s: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if s.is_empty() {
        errors.push("must be non-empty".to_string());
        return errors;
    }
    // Must have a scheme (letters followed by ':')
    let scheme_end = s.find(':');
    match scheme_end {
        None => {
            errors.push("must have a scheme (e.g., 'https:')".to_string());
        }
        Some(pos) => {
            let scheme = &s[..pos];
            if scheme.is_empty()
                || !scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                || !scheme.chars().all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.')
            {
                errors.push("invalid scheme".to_string());
            }
        }
    }
    errors
}

// -- UUID --

fn validate_uuid(s: &str) -> Vec<String> {
    let mut errors = Vec::new();
    // 8-4-4-4-12 hex pattern
    let parts: Vec<&str> = s.split('-').collect();
    if parts.len() != 5 {
        errors.push("must be in the form 8-4-4-4-12 (e.g., xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)".to_string());
        return errors;
    }
    let expected_lens = [8, 4, 4, 4, 12];
    let mut valid = true;
    for (part, &expected_len) in parts.iter().zip(expected_lens.iter()) {
        if part.len() != expected_len || !part.chars().all(|c| c.is_ascii_hexdigit()) {
            valid = false;
            break;
        }
    }
    if !valid {
        errors.push("must be in the form 8-4-4-4-12 (e.g., xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)".to_string());
    }
    errors
}

// -- Byte (base64) --

/// Go's `base64.StdEncoding.DecodeString`: padded, standard alphabet, trailing bits not
/// checked, line breaks skipped.
fn validate_byte(s: &str) -> Vec<String> {
    use base64::Engine as _;
    use base64::engine::{GeneralPurpose, GeneralPurposeConfig};
    const GO_STD: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
    );
    let text: String = s.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    match GO_STD.decode(text) {
        Ok(_) => Vec::new(),
        Err(_) => vec!["invalid base64".to_string()],
    }
}

// -- Date --

fn validate_date(s: &str) -> Vec<String> {
    let mut errors = Vec::new();
    // YYYY-MM-DD format
    if s.len() != 10 {
        errors.push("must be a date in YYYY-MM-DD format".to_string());
        return errors;
    }
    let bytes = s.as_bytes();
    if bytes[4] != b'-' || bytes[7] != b'-' {
        errors.push("must be a date in YYYY-MM-DD format".to_string());
        return errors;
    }
    let year_str = &s[0..4];
    let month_str = &s[5..7];
    let day_str = &s[8..10];

    let Ok(year) = year_str.parse::<u32>() else {
        errors.push("must be a date in YYYY-MM-DD format".to_string());
        return errors;
    };
    let Ok(month) = month_str.parse::<u32>() else {
        errors.push("must be a date in YYYY-MM-DD format".to_string());
        return errors;
    };
    let Ok(day) = day_str.parse::<u32>() else {
        errors.push("must be a date in YYYY-MM-DD format".to_string());
        return errors;
    };

    if !(1..=12).contains(&month) {
        errors.push("must be a valid date".to_string());
        return errors;
    }

    let max_day = days_in_month(year, month);
    if day < 1 || day > max_day {
        errors.push("must be a valid date".to_string());
    }
    errors
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 => {
            if is_leap_year(year) {
                29
            } else {
                28
            }
        }
        _ => 0,
    }
}

fn is_leap_year(year: u32) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

// -- DateTime (RFC 3339) --

fn validate_datetime(s: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if s.is_empty() {
        errors.push("must be a valid RFC 3339 date-time".to_string());
        return errors;
    }

    // Find the 'T' or 't' separator
    let t_pos = s.find(['T', 't']);
    let Some(t_pos) = t_pos else {
        errors.push("must be a valid RFC 3339 date-time".to_string());
        return errors;
    };

    // Validate date part
    let date_part = &s[..t_pos];
    let date_errors = validate_date(date_part);
    if !date_errors.is_empty() {
        errors.push("must be a valid RFC 3339 date-time".to_string());
        return errors;
    }

    // Parse time part (after T)
    let time_part = &s[t_pos + 1..];
    if time_part.is_empty() {
        errors.push("must be a valid RFC 3339 date-time".to_string());
        return errors;
    }

    // Find timezone offset
    let (time_str, tz_str) = find_timezone(time_part);

    // Timezone is required
    if tz_str.is_empty() {
        errors.push("must have a timezone".to_string());
        return errors;
    }

    // Validate time
    if !validate_time_str(time_str) {
        errors.push("must be a valid RFC 3339 date-time".to_string());
        return errors;
    }

    // Validate timezone
    if !validate_timezone(tz_str) {
        errors.push("must be a valid RFC 3339 date-time".to_string());
    }

    errors
}

fn find_timezone(time_part: &str) -> (&str, &str) {
    // Z or z
    if let Some(pos) = time_part.rfind(['Z', 'z']) {
        return (&time_part[..pos], &time_part[pos..]);
    }
    // +HH:MM or -HH:MM — search from end, skip fractional seconds
    // Look for last '+' or '-' that is after the time digits
    for (i, ch) in time_part.char_indices().rev() {
        if (ch == '+' || ch == '-') && i >= 2 {
            return (&time_part[..i], &time_part[i..]);
        }
    }
    (time_part, "")
}

fn validate_time_str(s: &str) -> bool {
    if s.len() < 8 {
        return false;
    }
    let bytes = s.as_bytes();
    if bytes[2] != b':' || bytes[5] != b':' {
        return false;
    }
    let Ok(hour) = s[0..2].parse::<u32>() else {
        return false;
    };
    let Ok(min) = s[3..5].parse::<u32>() else {
        return false;
    };
    let Ok(sec) = s[6..8].parse::<u32>() else {
        return false;
    };
    if hour > 23 || min > 59 || sec > 60 {
        // sec=60 for leap seconds
        return false;
    }
    // Check fractional seconds if present
    if s.len() > 8 {
        if bytes[8] != b'.' {
            return false;
        }
        let frac = &s[9..];
        if frac.is_empty() || !frac.chars().all(|c| c.is_ascii_digit()) {
            return false;
        }
    }
    true
}

fn validate_timezone(tz: &str) -> bool {
    if tz == "Z" || tz == "z" {
        return true;
    }
    // +HH:MM or -HH:MM
    if tz.len() != 6 {
        return false;
    }
    let bytes = tz.as_bytes();
    if bytes[0] != b'+' && bytes[0] != b'-' {
        return false;
    }
    if bytes[3] != b':' {
        return false;
    }
    let Ok(hour) = tz[1..3].parse::<u32>() else {
        return false;
    };
    let Ok(min) = tz[4..6].parse::<u32>() else {
        return false;
    };
    hour <= 23 && min <= 59
}
