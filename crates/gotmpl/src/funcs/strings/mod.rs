//! Sprig v3.3.0 string functions: case conversion, trimming, quoting, indentation, splitting,
//! joining, abbreviation, wrapping, substrings (`strings.go`, goutils, xstrings).
//!
//! Go strings are byte strings: `trunc`, `substr`, `abbrev` and `wrap` count bytes and may cut a
//! UTF-8 sequence in half. Our strings are UTF-8, so a cut sequence becomes U+FFFD (see
//! [`from_bytes`]). Go panics (negative `repeat` count, out-of-range `substr`) become
//! errors carrying Go's panic text.

mod case;

use std::collections::BTreeMap;

use super::args::{bytes_arg, from_bytes, go_quote, int_arg, str_arg, strslice, strval};
use super::{Ctx, Param, Registry};
use crate::fmt::sprint_value;
use crate::value::{FuncError, IntKind, Type, Value};

const S: Param = Param::String;
const I: Param = Param::Int(IntKind::Int);
const A: Param = Param::Any;

type R = Result<Value, FuncError>;

pub(super) fn register(r: &mut Registry) {
    r.add("hello", &[], None, |_, _| Ok(Value::str("Hello!")));
    r.add("upper", &[S], None, |_, a| Ok(Value::str(case::upper(str_arg(a, 0)))));
    r.add("lower", &[S], None, |_, a| Ok(Value::str(case::lower(str_arg(a, 0)))));
    r.add("title", &[S], None, |_, a| Ok(Value::str(case::title(str_arg(a, 0)))));
    r.add("untitle", &[S], None, |_, a| Ok(Value::str(case::untitle(str_arg(a, 0)))));
    r.add("swapcase", &[S], None, |_, a| Ok(Value::str(case::swapcase(str_arg(a, 0)))));
    r.add("initials", &[S], None, |_, a| Ok(Value::str(case::initials(str_arg(a, 0)))));
    r.add("nospace", &[S], None, |_, a| Ok(Value::str(case::nospace(str_arg(a, 0)))));
    r.add("camelcase", &[S], None, |_, a| Ok(Value::str(case::pascal(str_arg(a, 0)))));
    r.add("snakecase", &[S], None, |_, a| Ok(Value::str(case::to_lower_words(str_arg(a, 0), '_'))));
    r.add("kebabcase", &[S], None, |_, a| Ok(Value::str(case::to_lower_words(str_arg(a, 0), '-'))));
    r.add("shuffle", &[S], None, shuffle);
    // strings.TrimSpace: Unicode white space, the same set as Rust's.
    r.add("trim", &[S], None, |_, a| Ok(Value::str(str_arg(a, 0).trim())));
    // Sprig swaps Go's argument order so that `"$x$" | trimAll "$"` works.
    r.add("trimAll", &[S, S], None, trim_all);
    r.add("trimall", &[S, S], None, trim_all);
    r.add("trimPrefix", &[S, S], None, |_, a| {
        let (p, s) = (str_arg(a, 0), str_arg(a, 1));
        Ok(Value::str(s.strip_prefix(p).unwrap_or(s)))
    });
    r.add("trimSuffix", &[S, S], None, |_, a| {
        let (p, s) = (str_arg(a, 0), str_arg(a, 1));
        Ok(Value::str(s.strip_suffix(p).unwrap_or(s)))
    });
    r.add("contains", &[S, S], None, |_, a| Ok(Value::Bool(str_arg(a, 1).contains(str_arg(a, 0)))));
    r.add("hasPrefix", &[S, S], None, |_, a| Ok(Value::Bool(str_arg(a, 1).starts_with(str_arg(a, 0)))));
    r.add("hasSuffix", &[S, S], None, |_, a| Ok(Value::Bool(str_arg(a, 1).ends_with(str_arg(a, 0)))));
    r.add("repeat", &[I, S], None, |c, a| Ok(Value::str(go_repeat(c, str_arg(a, 1), int_arg(a, 0))?)));
    r.add("substr", &[I, I, S], None, substr);
    r.add("trunc", &[I, S], None, trunc);
    r.add("abbrev", &[I, S], None, |_, a| {
        let (w, s) = (int_arg(a, 0), str_arg(a, 1));
        Ok(Value::str(if w < 4 { s.to_string() } else { abbreviate(s, 0, w) }))
    });
    r.add("abbrevboth", &[I, I, S], None, |_, a| {
        let (l, w, s) = (int_arg(a, 0), int_arg(a, 1), str_arg(a, 2));
        Ok(Value::str(if w < 4 || (l > 0 && w < 7) { s.to_string() } else { abbreviate(s, l, w) }))
    });
    r.add("wrap", &[I, S], None, |c, a| Ok(Value::str(wrap(c, str_arg(a, 1), int_arg(a, 0), "\n", false)?)));
    r.add("wrapWith", &[I, S, S], None, |c, a| {
        Ok(Value::str(wrap(c, str_arg(a, 2), int_arg(a, 0), str_arg(a, 1), true)?))
    });
    r.add("quote", &[], Some(A), |_, a| {
        Ok(Value::str(a.iter().filter(|v| !is_nil(v)).map(|v| go_quote(&strval(v))).collect::<Vec<_>>().join(" ")))
    });
    r.add("squote", &[], Some(A), |_, a| {
        Ok(Value::str(
            a.iter().filter(|v| !is_nil(v)).map(|v| format!("'{}'", sprint_value(v))).collect::<Vec<_>>().join(" "),
        ))
    });
    // fmt.Sprintf("%v %v …") of the non-nil arguments.
    r.add("cat", &[], Some(A), |_, a| {
        Ok(Value::str(a.iter().filter(|v| !is_nil(v)).map(sprint_value).collect::<Vec<_>>().join(" ")))
    });
    r.add("indent", &[I, S], None, |c, a| Ok(Value::str(indent(c, int_arg(a, 0), str_arg(a, 1))?)));
    r.add("nindent", &[I, S], None, |c, a| Ok(Value::str(format!("\n{}", indent(c, int_arg(a, 0), str_arg(a, 1))?))));
    r.add("replace", &[S, S, S], None, replace);
    r.add("plural", &[S, S, I], None, |_, a| {
        Ok(Value::str(if int_arg(a, 2) == 1 { str_arg(a, 0) } else { str_arg(a, 1) }))
    });
    r.add("split", &[S, S], None, |c, a| split_map(c, go_split(str_arg(a, 1), str_arg(a, 0), -1)));
    r.add("splitn", &[S, I, S], None, |c, a| split_map(c, go_split(str_arg(a, 2), str_arg(a, 0), int_arg(a, 1))));
    r.add("splitList", &[S, S], None, |c, a| {
        let parts = go_split(str_arg(a, 1), str_arg(a, 0), -1);
        check_list(c, parts.len())?;
        Ok(Value::string_list(parts))
    });
    r.add("join", &[S, A], None, |c, a| {
        let (sep, parts) = (str_arg(a, 0), strslice(a.get(1).unwrap_or(&Value::Nil)));
        let total: u128 = parts.iter().map(|p| p.len() as u128).sum::<u128>()
            + parts.len().saturating_sub(1) as u128 * sep.len() as u128;
        check_len(c, total)?;
        Ok(Value::str(parts.join(sep)))
    });
    r.add("sortAlpha", &[A], None, sort_alpha);
    r.add("toStrings", &[A], None, |_, a| Ok(Value::string_list(strslice(a.first().unwrap_or(&Value::Nil)))));
    r.add("toString", &[A], None, |_, a| Ok(Value::str(strval(a.first().unwrap_or(&Value::Nil)))));
    // Sprig wraps strconv.Atoi and drops the error: anything unparsable is 0.
    r.add("atoi", &[S], None, |_, a| Ok(Value::int(str_arg(a, 0).parse::<i64>().unwrap_or(0))));
}

fn is_nil(v: &Value) -> bool {
    matches!(v, Value::Nil | Value::Invalid)
}

fn check_len(c: &Ctx<'_>, len: u128) -> Result<(), FuncError> {
    if len > c.limits.max_string_len as u128 {
        return Err(FuncError::Limit(format!(
            "string of {len} bytes exceeds the limit of {} bytes",
            c.limits.max_string_len
        )));
    }
    Ok(())
}

fn check_list(c: &Ctx<'_>, len: usize) -> Result<(), FuncError> {
    if len > c.limits.max_list_len {
        return Err(FuncError::Limit(format!(
            "list of {len} items exceeds the limit of {} items",
            c.limits.max_list_len
        )));
    }
    Ok(())
}

/// Go's `strings.Repeat`, which panics on a negative count.
fn go_repeat(c: &Ctx<'_>, s: &str, n: i64) -> Result<String, FuncError> {
    if n == 0 {
        return Ok(String::new());
    }
    if n < 0 {
        return Err(FuncError::msg("strings: negative Repeat count"));
    }
    check_len(c, s.len() as u128 * n as u128)?;
    Ok(s.repeat(n as usize))
}

fn trim_all(_: &mut Ctx<'_>, a: &[Value]) -> R {
    let cut = str_arg(a, 0);
    Ok(Value::str(str_arg(a, 1).trim_matches(|c| cut.contains(c))))
}

fn shuffle(_: &mut Ctx<'_>, a: &[Value]) -> R {
    let mut runes: Vec<char> = str_arg(a, 0).chars().collect();
    // Fisher–Yates, as xstrings.Shuffle does with math/rand.
    for i in (1..runes.len()).rev() {
        let j = super::crypto::rand_below(i as u64 + 1) as usize;
        runes.swap(i, j);
    }
    Ok(Value::str(runes.into_iter().collect::<String>()))
}

/// Sprig's `substring`, with Go's slice-bounds panics.
fn substr(_: &mut Ctx<'_>, a: &[Value]) -> R {
    let (start, end) = (int_arg(a, 0), int_arg(a, 1));
    let b = bytes_arg(a, 2);
    let len = b.len() as i64;
    let oob = |m: String| Err(FuncError::msg(format!("runtime error: slice bounds out of range {m}")));
    if start < 0 {
        if end < 0 {
            return oob(format!("[:{end}]"));
        }
        if end > len {
            return oob(format!("[:{end}] with length {len}"));
        }
        return Ok(Value::go_bytes(&b[..end as usize]));
    }
    if end < 0 || end > len {
        if start > len {
            return oob(format!("[{start}:{len}]"));
        }
        return Ok(Value::go_bytes(&b[start as usize..]));
    }
    if start > end {
        return oob(format!("[{start}:{end}]"));
    }
    Ok(Value::go_bytes(&b[start as usize..end as usize]))
}

/// Sprig's `trunc`: a negative count keeps the tail; counts bytes.
fn trunc(_: &mut Ctx<'_>, a: &[Value]) -> R {
    let n = int_arg(a, 0);
    let b = bytes_arg(a, 1);
    let len = b.len() as i64;
    if n < 0 && len + n > 0 {
        return Ok(Value::go_bytes(&b[(len + n) as usize..]));
    }
    if n >= 0 && len > n {
        return Ok(Value::go_bytes(&b[..n as usize]));
    }
    Ok(a[1].clone())
}

/// goutils `AbbreviateFull` (errors, which Sprig ignores, give `""`); byte-based.
fn abbreviate(s: &str, offset: i64, width: i64) -> String {
    let b = s.as_bytes();
    let len = b.len() as i64;
    if s.is_empty() {
        return String::new();
    }
    if width < 4 {
        return String::new();
    }
    if len <= width {
        return s.to_string();
    }
    let mut offset = offset.min(len);
    if len - offset < width - 3 {
        offset = len - (width - 3);
    }
    if offset <= 4 {
        return format!("{}...", from_bytes(&b[..(width - 3) as usize]));
    }
    if width < 7 {
        return String::new();
    }
    if offset + width - 3 < len {
        let tail = from_bytes(&b[offset as usize..]);
        return format!("...{}", abbreviate(&tail, 0, width - 3));
    }
    format!("...{}", from_bytes(&b[(len - (width - 3)) as usize..]))
}

/// goutils `WrapCustom`: breaks at the last space within the width; long words are cut
/// (`wrapWith`) or left whole (`wrap`). Byte-based.
fn wrap(c: &Ctx<'_>, s: &str, width: i64, newline: &str, wrap_long: bool) -> Result<String, FuncError> {
    if s.is_empty() {
        return Ok(String::new());
    }
    let newline = if newline.is_empty() { "\n" } else { newline };
    let width = width.max(1) as u64 as usize;
    let b = s.as_bytes();
    let len = b.len();
    let mut offset = 0usize;
    let mut out: Vec<u8> = Vec::with_capacity(len + 8);
    while len - offset > width {
        // A long separator can multiply the text: at most one per input byte.
        check_len(c, (out.len() + len - offset) as u128)?;
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = width + offset + 1;
        match b[offset..end].iter().rposition(|&c| c == b' ') {
            Some(i) => {
                out.extend_from_slice(&b[offset..offset + i]);
                out.extend_from_slice(newline.as_bytes());
                offset += i + 1;
            }
            None if wrap_long => {
                out.extend_from_slice(&b[offset..offset + width]);
                out.extend_from_slice(newline.as_bytes());
                offset += width;
            }
            None => {
                let end = width + offset;
                match b[end..].iter().position(|&c| c == b' ') {
                    Some(i) => {
                        out.extend_from_slice(&b[offset..end + i]);
                        out.extend_from_slice(newline.as_bytes());
                        offset = end + i + 1;
                    }
                    None => {
                        out.extend_from_slice(&b[offset..]);
                        offset = len;
                    }
                }
            }
        }
    }
    out.extend_from_slice(&b[offset..]);
    check_len(c, out.len() as u128)?;
    Ok(from_bytes(&out))
}

/// Sprig's `indent`: the pad before the text and after every newline.
fn indent(c: &Ctx<'_>, n: i64, s: &str) -> Result<String, FuncError> {
    let pad = go_repeat(c, " ", n)?;
    let lines = s.bytes().filter(|&b| b == b'\n').count() as u128 + 1;
    check_len(c, s.len() as u128 + lines * pad.len() as u128)?;
    Ok(format!("{pad}{}", s.replace('\n', &format!("\n{pad}"))))
}

/// Go's `strings.Replace(s, old, new, -1)`; an empty `old` inserts `new` around every rune.
fn replace(c: &mut Ctx<'_>, a: &[Value]) -> R {
    let (old, new, s) = (str_arg(a, 0), str_arg(a, 1), str_arg(a, 2));
    if old.is_empty() {
        let runes = s.chars().count() as u128;
        check_len(c, s.len() as u128 + (runes + 1) * new.len() as u128)?;
        let mut out = String::from(new);
        for ch in s.chars() {
            out.push(ch);
            out.push_str(new);
        }
        return Ok(Value::str(out));
    }
    let hits = s.matches(old).count() as u128;
    check_len(c, s.len() as u128 + hits * new.len() as u128)?;
    Ok(Value::str(s.replace(old, new)))
}

/// Go's `strings.SplitN`: an empty separator splits into runes; `n < 0` means all parts and
/// `n == 0` none.
fn go_split(s: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    let n = if n < 0 { usize::MAX } else { n as usize };
    if sep.is_empty() {
        let mut out: Vec<String> = Vec::new();
        let mut rest = s;
        while let Some(ch) = rest.chars().next() {
            if out.len() + 1 == n {
                break;
            }
            out.push(ch.to_string());
            rest = &rest[ch.len_utf8()..];
        }
        if !rest.is_empty() {
            out.push(rest.to_string());
        }
        return out;
    }
    s.splitn(n, sep).map(str::to_string).collect()
}

/// `split`/`splitn` return `map[string]string` keyed `_0`, `_1`, …
fn split_map(c: &Ctx<'_>, parts: Vec<String>) -> R {
    check_list(c, parts.len())?;
    let m: BTreeMap<String, Value> =
        parts.into_iter().enumerate().map(|(i, p)| (format!("_{i}"), Value::str(p))).collect();
    Ok(Value::typed_map(Type::String, m))
}

/// Sprig's `sortAlpha`: slices go through `strslice` and are sorted byte-wise; any other value
/// (nil included, which prints `<nil>`) becomes a one-element list.
fn sort_alpha(_: &mut Ctx<'_>, a: &[Value]) -> R {
    let v = a.first().unwrap_or(&Value::Nil);
    let mut out = match v {
        Value::List(_) => strslice(v),
        other => vec![strval(other)],
    };
    out.sort();
    Ok(Value::string_list(out))
}
