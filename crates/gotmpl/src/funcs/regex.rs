//! Sprig v3.3.0 regular-expression functions (`regex.go`) over Go RE2 semantics.
//!
//! Patterns are Go syntax, compiled by `driftlint_goregex`. Iteration, splitting and
//! `$`-expansion follow Go's `regexp` package rather than Rust's, because they differ at the
//! edges (an empty match right after a match is skipped; `$1x` names group `1x`).
//!
//! Error behaviour is Sprig's: `regexMatch` swallows a bad pattern (false); the other non-must
//! functions call `regexp.MustCompile`, whose panic text text/template reports
//! (`regexp: Compile(`…`): error parsing regexp: …`); `mustRegex*` return the compile error.

use std::rc::Rc;

use driftlint_goregex::{GoRegex, all_matches as matches, compile_cached, expand, quote_meta};

use super::args::{go_quote, int_arg, str_arg};
use super::{Ctx, Param, Registry};
use crate::value::{FuncError, IntKind, Type, Value};

const S: Param = Param::String;
const I: Param = Param::Int(IntKind::Int);

type R = Result<Value, FuncError>;

pub(super) fn register(r: &mut Registry) {
    r.add("regexMatch", &[S, S], None, |_, a| {
        Ok(Value::Bool(compile_cached(str_arg(a, 0)).is_ok_and(|re| re.is_match(str_arg(a, 1)))))
    });
    r.add("mustRegexMatch", &[S, S], None, |_, a| Ok(Value::Bool(must(str_arg(a, 0))?.is_match(str_arg(a, 1)))));
    r.add("regexFind", &[S, S], None, |_, a| find(panicking(str_arg(a, 0))?, str_arg(a, 1)));
    r.add("mustRegexFind", &[S, S], None, |_, a| find(must(str_arg(a, 0))?, str_arg(a, 1)));
    r.add("regexFindAll", &[S, S, I], None, |c, a| {
        find_all(c, panicking(str_arg(a, 0))?, str_arg(a, 1), int_arg(a, 2))
    });
    r.add("mustRegexFindAll", &[S, S, I], None, |c, a| find_all(c, must(str_arg(a, 0))?, str_arg(a, 1), int_arg(a, 2)));
    r.add("regexReplaceAll", &[S, S, S], None, |c, a| replace(c, &*panicking(str_arg(a, 0))?, a, true));
    r.add("mustRegexReplaceAll", &[S, S, S], None, |c, a| replace(c, &*must(str_arg(a, 0))?, a, true));
    r.add("regexReplaceAllLiteral", &[S, S, S], None, |c, a| replace(c, &*panicking(str_arg(a, 0))?, a, false));
    r.add("mustRegexReplaceAllLiteral", &[S, S, S], None, |c, a| replace(c, &*must(str_arg(a, 0))?, a, false));
    r.add("regexSplit", &[S, S, I], None, |c, a| split(c, panicking(str_arg(a, 0))?, str_arg(a, 1), int_arg(a, 2)));
    r.add("mustRegexSplit", &[S, S, I], None, |c, a| split(c, must(str_arg(a, 0))?, str_arg(a, 1), int_arg(a, 2)));
    r.add("regexQuoteMeta", &[S], None, |_, a| Ok(Value::str(quote_meta(str_arg(a, 0)))));
}

fn must(pat: &str) -> Result<Rc<GoRegex>, FuncError> {
    compile_cached(pat).map_err(FuncError::Msg)
}

/// `regexp.MustCompile`: its panic message quotes the pattern with backquotes when it can.
fn panicking(pat: &str) -> Result<Rc<GoRegex>, FuncError> {
    compile_cached(pat).map_err(|e| {
        let can_backquote = !pat.chars().any(|c| c == '`' || c == '\u{FEFF}' || (c.is_control() && c != '\t'));
        let q = if can_backquote { format!("`{pat}`") } else { go_quote(pat) };
        FuncError::msg(format!("regexp: Compile({q}): {e}"))
    })
}

fn find(re: Rc<GoRegex>, s: &str) -> R {
    Ok(Value::str(re.find(s).map_or("", |m| m.as_str())))
}

/// `FindAllString`: nil (printed `[]`) when nothing matches or `n == 0`.
fn find_all(c: &Ctx<'_>, re: Rc<GoRegex>, s: &str, n: i64) -> R {
    if n == 0 {
        return Ok(Value::nil_list(Type::String));
    }
    let ms = matches(&re, s, n);
    if ms.is_empty() {
        return Ok(Value::nil_list(Type::String));
    }
    check_list(c, ms.len())?;
    Ok(Value::string_list(ms.into_iter().map(|(a, b)| &s[a..b])))
}

/// `Regexp.Split`.
fn split(c: &Ctx<'_>, re: Rc<GoRegex>, s: &str, n: i64) -> R {
    if n == 0 {
        return Ok(Value::nil_list(Type::String));
    }
    if !re.as_str().is_empty() && s.is_empty() {
        return Ok(Value::string_list([""]));
    }
    let ms = matches(&re, s, n);
    let mut parts: Vec<&str> = Vec::with_capacity(ms.len() + 1);
    let (mut beg, mut end) = (0usize, 0usize);
    for (a, b) in ms {
        if n > 0 && parts.len() as i64 == n - 1 {
            break;
        }
        end = a;
        if b != 0 {
            parts.push(&s[beg..end]);
        }
        beg = b;
    }
    if end != s.len() {
        parts.push(&s[beg..]);
    }
    check_list(c, parts.len())?;
    Ok(Value::string_list(parts))
}

/// `ReplaceAllString` (with Go's `$` expansion) or `ReplaceAllLiteralString`.
fn replace(c: &Ctx<'_>, re: &GoRegex, a: &[Value], expand_refs: bool) -> R {
    let (s, repl) = (str_arg(a, 1), str_arg(a, 2));
    let mut out = String::with_capacity(s.len());
    let mut last_end = 0usize;
    let mut pos = 0usize;
    let mut locs = re.capture_locations();
    while pos <= s.len() {
        let Some(m) = re.captures_read_at(&mut locs, s, pos) else {
            break;
        };
        let (ms, me) = (m.start(), m.end());
        out.push_str(&s[last_end..ms]);
        // No replacement for an empty match right after the previous match.
        if me > last_end || ms == 0 {
            if expand_refs {
                expand(&mut out, re, &locs, s, repl);
            } else {
                out.push_str(repl);
            }
            if out.len() > c.limits.max_string_len {
                return Err(FuncError::Limit(format!("string exceeds the limit of {} bytes", c.limits.max_string_len)));
            }
        }
        last_end = me;
        let width = s[pos..].chars().next().map_or(0, char::len_utf8);
        if pos + width > me {
            pos += width;
        } else if pos + 1 > me {
            pos += 1;
        } else {
            pos = me;
        }
    }
    out.push_str(&s[last_end..]);
    Ok(Value::str(out))
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
