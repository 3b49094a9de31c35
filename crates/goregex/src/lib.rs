//! Go's regular-expression dialect over Rust's `regex`: what a pattern written for Go's
//! `regexp` package means, matches and reports when it is wrong.
//!
//! Kubernetes and the tools driftlint reproduces are written in Go, so every pattern they take
//! from a user is Go syntax: Sprig's `regex*` template functions, kube-compare's inline diff
//! functions, OpenAPI `pattern` in CRD schemas, Crossplane's `regexp` transforms. They all
//! compile through [`compile`] so that the same pattern means the same thing everywhere.
//!
//! * [`syntax`]: Go RE2 syntax translated to the `regex` crate's, with Go's error texts.
//! * [`GoRegex`]: the compiled pattern with Go's group names (`SubexpNames`).
//! * [`all_matches`] and [`expand`]: Go's match iteration and `$` expansion, which differ from
//!   Rust's at the edges.

mod syntax;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use regex::Regex;

/// The compiled-size limit of [`compile`]: the `regex` crate's own default is 10 MiB, Go has
/// none; 64 MiB keeps every pattern Go accepts in practice.
pub const DEFAULT_SIZE_LIMIT: usize = 64 << 20;

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
pub fn compile(pat: &str) -> Result<GoRegex, String> {
    compile_limited(pat, DEFAULT_SIZE_LIMIT)
}

/// [`compile`] with the regex crate's compiled-size limit set to `size_limit` bytes (a pattern
/// whose compiled program is larger fails with "expression too large"): for patterns from
/// untrusted schemas, where a few hundred bytes of pattern can ask for megabytes.
pub fn compile_limited(pat: &str, size_limit: usize) -> Result<GoRegex, String> {
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
    /// Compiled patterns: templates call the regex functions in loops with the same pattern.
    static CACHE: RefCell<HashMap<String, Result<Rc<GoRegex>, String>>> = RefCell::new(HashMap::new());
}

/// [`compile`], cached per thread (at most 256 patterns): templates and kube-compare's inline
/// diff functions use the same few patterns over and over.
pub fn compile_cached(pat: &str) -> Result<Rc<GoRegex>, String> {
    if let Some(hit) = CACHE.with(|c| c.borrow().get(pat).cloned()) {
        return hit;
    }
    let res = compile(pat).map(Rc::new);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 256 {
            c.clear();
        }
        c.insert(pat.to_string(), res.clone());
    });
    res
}

/// Go's `allMatches`: successive non-overlapping matches as byte ranges, skipping an empty
/// match that abuts the previous match; at most `n` (all when negative).
pub fn all_matches(re: &Regex, s: &str, n: i64) -> Vec<(usize, usize)> {
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

/// Go's `Regexp.expand`: appends template `t` to `out` with `$` references replaced by the
/// groups of the match in `locs` over `s`. `$$` is `$`; `$name`/`${name}` takes the longest
/// run of letters, digits and `_` (so `$1W` is the group named `1W`, which is empty); a number
/// names a group by index, a name the first group so named that took part; a malformed
/// reference leaves the `$` as text.
pub fn expand(out: &mut String, re: &GoRegex, locs: &regex::CaptureLocations, s: &str, mut t: &str) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_names_and_ascii_classes() {
        let r = compile(r"(?<a>\d+)-(?P<a>\w+)-(x)").unwrap();
        assert_eq!(r.names, vec![None, Some("a".into()), Some("a".into()), None]);
        assert!(r.re.is_match("12-ab-x"));
        assert!(!compile(r"\d").unwrap().re.is_match("٣"));
        assert!(compile(r"[[:alpha:]]+").unwrap().re.is_match("abc"));
    }

    #[test]
    fn go_errors() {
        assert_eq!(
            compile("(?<username[a-z0-9]+) x (?<username>").unwrap_err(),
            "error parsing regexp: invalid named capture: `(?<username[a-z0-9]+) x (?<username>`"
        );
        assert!(compile("(").unwrap_err().starts_with("error parsing regexp: "));
        assert_eq!(
            compile_limited(r"\w{1000}", 1 << 10).unwrap_err(),
            r"error parsing regexp: expression too large: `\w{1000}`"
        );
    }

    #[test]
    fn quote_meta_like_go() {
        assert_eq!(quote_meta("a.b*c [x]"), r"a\.b\*c \[x\]");
    }

    #[test]
    fn empty_match_after_a_match_is_skipped() {
        // Go: regexp.MustCompile("a*").FindAllStringIndex("baaac", -1) = [[0 0] [1 4] [5 5]]
        let r = compile("a*").unwrap();
        assert_eq!(all_matches(&r, "baaac", -1), vec![(0, 0), (1, 4), (5, 5)]);
        assert_eq!(all_matches(&r, "baaac", 2), vec![(0, 0), (1, 4)]);
    }

    #[test]
    fn expand_reads_names_as_go_does() {
        let r = compile(r"(?P<first>\w+) (\w+)").unwrap();
        let mut locs = r.capture_locations();
        let s = "hello world";
        r.captures_read(&mut locs, s).unwrap();
        let mut out = String::new();
        expand(&mut out, &r, &locs, s, "$2 ${first} $1W $$ ${x");
        assert_eq!(out, "world hello  $ ${x");
    }
}
