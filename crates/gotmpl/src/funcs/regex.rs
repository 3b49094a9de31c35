//! Sprig v3.3.0 regular-expression functions (`regex.go`) over Go RE2 semantics.
//!
//! Patterns are Go syntax, translated to Rust's `regex` by [`syntax`]. Iteration, splitting and
//! `$`-expansion follow Go's `regexp` package rather than Rust's, because they differ at the
//! edges (an empty match right after a match is skipped; `$1x` names group `1x`).
//!
//! Error behaviour is Sprig's: `regexMatch` swallows a bad pattern (false); the other non-must
//! functions call `regexp.MustCompile`, whose panic text text/template reports
//! (`regexp: Compile(`…`): error parsing regexp: …`); `mustRegex*` return the compile error.

mod syntax;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use regex::Regex;

use super::args::{go_quote, int_arg, str_arg};
use super::{Ctx, Param, Registry};
use crate::value::{FuncError, IntKind, Type, Value};

const S: Param = Param::String;
const I: Param = Param::Int(IntKind::Int);

type R = Result<Value, FuncError>;

pub(super) fn register(r: &mut Registry) {
    r.add("regexMatch", &[S, S], None, |_, a| {
        Ok(Value::Bool(compile_go_regex_cached(str_arg(a, 0)).is_ok_and(|re| re.is_match(str_arg(a, 1)))))
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

/// A Go pattern compiled with Rust's `regex`, with Go's group names. It dereferences to the
/// Rust [`Regex`], whose groups are named `g0`, `g1`, … (Go allows a name twice, Rust not).
#[derive(Debug, Clone)]
pub struct GoRegex {
    pub re: Regex,
    /// Go's `SubexpNames`: the name of each group by index (0, the whole match, has none).
    pub names: Vec<Option<String>>,
}

impl std::ops::Deref for GoRegex {
    type Target = Regex;
    fn deref(&self) -> &Regex {
        &self.re
    }
}

/// Compiles a Go RE2 pattern (`regexp.Compile`): the same matches as Go (ASCII `\d \w \s
/// \b`, literal `[` and `{` where Go reads them so, `\Q…\E`, duplicate group names), or Go's
/// error text `error parsing regexp: <code>: `<expr>``.
pub fn compile_go_regex(pat: &str) -> Result<GoRegex, String> {
    compile_go_regex_limited(pat, 64 << 20)
}

/// [`compile_go_regex`] with the regex crate's compiled-size limit set to `size_limit` bytes
/// (a pattern whose compiled program is larger fails with "expression too large"): for
/// patterns from untrusted schemas, where a few hundred bytes of pattern can ask for megabytes.
pub fn compile_go_regex_limited(pat: &str, size_limit: usize) -> Result<GoRegex, String> {
    let (rust, group_names) = syntax::translate(pat).map_err(|e| e.to_string())?;
    let re = regex::RegexBuilder::new(&rust).size_limit(size_limit).build().map_err(|e| match e {
        regex::Error::CompiledTooBig(_) => format!("error parsing regexp: expression too large: `{pat}`"),
        other => format!(
            "error parsing regexp: {}: `{pat}`",
            other.to_string().lines().last().unwrap_or("invalid pattern").trim_start_matches("error: ")
        ),
    })?;
    let names = re
        .capture_names()
        .map(|n| {
            let index = n.and_then(|n| n.strip_prefix('g')).and_then(|i| i.parse::<usize>().ok());
            index.and_then(|i| group_names.get(i).cloned())
        })
        .collect();
    Ok(GoRegex { re, names })
}

thread_local! {
    /// Compiled patterns: templates call these functions in loops with the same pattern.
    static CACHE: RefCell<HashMap<String, Result<Rc<GoRegex>, String>>> = RefCell::new(HashMap::new());
}

/// [`compile_go_regex`], cached per thread: templates (and kube-compare's inline diff
/// functions) use the same few patterns over and over.
pub fn compile_go_regex_cached(pat: &str) -> Result<Rc<GoRegex>, String> {
    if let Some(hit) = CACHE.with(|c| c.borrow().get(pat).cloned()) {
        return hit;
    }
    let res = compile_go_regex(pat).map(Rc::new);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 256 {
            c.clear();
        }
        c.insert(pat.to_string(), res.clone());
    });
    res
}

fn must(pat: &str) -> Result<Rc<GoRegex>, FuncError> {
    compile_go_regex_cached(pat).map_err(FuncError::Msg)
}

/// `regexp.MustCompile`: its panic message quotes the pattern with backquotes when it can.
fn panicking(pat: &str) -> Result<Rc<GoRegex>, FuncError> {
    compile_go_regex_cached(pat).map_err(|e| {
        let can_backquote = !pat.chars().any(|c| c == '`' || c == '\u{FEFF}' || (c.is_control() && c != '\t'));
        let q = if can_backquote { format!("`{pat}`") } else { go_quote(pat) };
        FuncError::msg(format!("regexp: Compile({q}): {e}"))
    })
}

/// Go's `allMatches`: successive non-overlapping matches, skipping an empty match that abuts
/// the previous match; at most `n` (all when negative).
fn matches(re: &Regex, s: &str, n: i64) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let limit = if n < 0 { usize::MAX } else { n as usize };
    let mut pos = 0usize;
    let mut prev_end: Option<usize> = None;
    while out.len() < limit && pos <= s.len() {
        let Some(m) = re.find_at(s, pos) else { break };
        let mut accept = true;
        if m.end() == pos {
            if Some(m.start()) == prev_end {
                accept = false;
            }
            pos += s[pos..].chars().next().map_or(1, char::len_utf8);
        } else {
            pos = m.end();
        }
        prev_end = Some(m.end());
        if accept {
            out.push((m.start(), m.end()));
        }
    }
    out
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
fn replace(c: &Ctx<'_>, re: &GoRegex, a: &[Value], expand: bool) -> R {
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
            if expand {
                expand_into(&mut out, re, &locs, s, repl);
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

/// Go's `Regexp.expand`: `$$` is `$`; `$name`/`${name}` takes the longest run of letters,
/// digits and `_` (so `$1W` is the group named `1W`, which is empty); a number names a group
/// by index, a name the first group so named that took part; a malformed reference leaves the
/// `$` as text.
fn expand_into(out: &mut String, re: &GoRegex, locs: &regex::CaptureLocations, s: &str, mut t: &str) {
    let group = |i: usize| locs.get(i).map(|(a, b)| &s[a..b]);
    while let Some(d) = t.find('$') {
        out.push_str(&t[..d]);
        t = &t[d + 1..];
        if let Some(rest) = t.strip_prefix('$') {
            out.push('$');
            t = rest;
            continue;
        }
        let brace = t.starts_with('{');
        let body = if brace { &t[1..] } else { t };
        let len = body.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(body.len());
        if len == 0 || (brace && !body[len..].starts_with('}')) {
            out.push('$');
            continue;
        }
        let name = &body[..len];
        t = &body[len + usize::from(brace)..];
        let num = if name.bytes().all(|b| b.is_ascii_digit())
            && !(name.starts_with('0') && name.len() > 1)
            && name.len() <= 8
        {
            name.parse::<usize>().ok()
        } else {
            None
        };
        let text = match num {
            Some(i) => group(i),
            // Go takes the first group of that name that took part in the match.
            None => re.names.iter().enumerate().filter(|(_, n)| n.as_deref() == Some(name)).find_map(|(i, _)| group(i)),
        };
        out.push_str(text.unwrap_or(""));
    }
    out.push_str(t);
}

/// Go's `regexp.QuoteMeta`: escapes exactly `\.+*?()|[]{}^$`.
pub fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
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
