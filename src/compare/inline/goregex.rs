//! Go RE2 patterns compiled with Rust's `regex`, for the inline diff functions (§5.5).
//!
//! Only what the inline functions need is translated: named groups (`(?P<n>…)` and
//! `(?<n>…)`) are renamed to `g<index>` because Go allows duplicate names and Rust does
//! not, with the original names kept per group index (Go's `SubexpNames`); `\d \w \s \b`
//! and their negations are made ASCII-only as in Go. Everything else is passed through; the
//! two dialects agree on the syntax templates use. Errors read like Go's
//! (`error parsing regexp: <code>: `<expr>``) where the code is known.
//!
//! The Sprig functions in `driftlint-gotmpl` carry a fuller translator; it is private to that
//! crate, so this one stays deliberately small.

use regex::Regex;

/// A compiled Go pattern with Go's group names.
#[derive(Debug, Clone)]
pub struct GoRegex {
    pub re: Regex,
    /// Name of each capture group by index (index 0 = whole match, always `None`).
    pub names: Vec<Option<String>>,
}

/// Go's `regexp.QuoteMeta`.
#[must_use]
pub fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Patterns kept per thread by [`compile_cached`] before the cache starts over.
const CACHE_LIMIT: usize = 256;

thread_local! {
    static CACHE: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<Result<GoRegex, String>>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// [`compile`], remembered per thread: a template's `regex` pattern is the same for every CR
/// it is compared with, and compiling it dominated the inline step.
pub fn compile_cached(pat: &str) -> std::rc::Rc<Result<GoRegex, String>> {
    CACHE.with(|cache| {
        if let Some(hit) = cache.borrow().get(pat) {
            return hit.clone();
        }
        let compiled = std::rc::Rc::new(compile(pat));
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(pat.to_owned(), compiled.clone());
        compiled
    })
}

/// Compiles a Go pattern. The error is Go's text, `error parsing regexp: …`.
pub fn compile(pat: &str) -> Result<GoRegex, String> {
    let (rust, group_names) = translate(pat)?;
    let re = regex::RegexBuilder::new(&rust).size_limit(32 << 20).build().map_err(|e| match e {
        regex::Error::CompiledTooBig(_) => format!("error parsing regexp: expression too large: `{pat}`"),
        other => {
            let text = other.to_string();
            let detail = text.lines().last().unwrap_or("invalid pattern").trim_start_matches("error: ").to_owned();
            format!("error parsing regexp: {detail}: `{pat}`")
        }
    })?;
    // Map Rust's group names back to Go's.
    let names = re
        .capture_names()
        .map(|n| {
            n.and_then(|n| n.strip_prefix('g')).and_then(|i| i.parse::<usize>().ok()).map(|i| group_names[i].clone())
        })
        .collect();
    Ok(GoRegex { re, names })
}

/// Go's POSIX class names (`[:alpha:]`); any other name is an error in Go.
const POSIX: [&str; 14] = [
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word",
    "xdigit",
];

fn translate(pat: &str) -> Result<(String, Vec<String>), String> {
    let invalid = |expr: &str| format!("error parsing regexp: invalid named capture: `{expr}`");
    let mut out = String::with_capacity(pat.len() + 16);
    let mut names = Vec::new();
    let mut in_class = false;
    let mut class_start = false;
    let mut chars = pat.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                let Some((_, n)) = chars.next() else {
                    return Err("error parsing regexp: trailing backslash at end of expression: ``".to_owned());
                };
                let ascii = match (n, in_class) {
                    ('d', false) => Some("[0-9]"),
                    ('D', false) => Some("[^0-9]"),
                    ('w', false) => Some("[0-9A-Za-z_]"),
                    ('W', false) => Some("[^0-9A-Za-z_]"),
                    ('s', false) => Some("[\\t\\n\\f\\r ]"),
                    ('S', false) => Some("[^\\t\\n\\f\\r ]"),
                    ('b', false) => Some("(?-u:\\b)"),
                    ('B', false) => Some("(?-u:\\B)"),
                    ('d', true) => Some("0-9"),
                    ('w', true) => Some("0-9A-Za-z_"),
                    ('s', true) => Some("\\t\\n\\f\\r "),
                    _ => None,
                };
                match ascii {
                    Some(a) => out.push_str(a),
                    None => {
                        out.push('\\');
                        out.push(n);
                    }
                }
                class_start = false;
            }
            '[' if !in_class => {
                in_class = true;
                class_start = true;
                out.push('[');
                if chars.peek().is_some_and(|&(_, n)| n == '^') {
                    chars.next();
                    out.push('^');
                }
            }
            ']' if in_class && !class_start => {
                in_class = false;
                out.push(']');
            }
            '[' if in_class => {
                // `[:alpha:]` stays a POSIX class; any other `[` is a literal in Go.
                if pat[i..].starts_with("[:")
                    && let Some(end) = pat[i + 2..].find(":]")
                {
                    let name = pat[i + 2..i + 2 + end].trim_start_matches('^');
                    if !POSIX.contains(&name) {
                        return Err(format!(
                            "error parsing regexp: invalid character class range: `{}`",
                            &pat[i..i + 2 + end + 2]
                        ));
                    }
                    out.push_str(&pat[i..i + 2 + end + 2]);
                    for _ in 0..pat[i..i + 2 + end + 2].chars().count() - 1 {
                        chars.next();
                    }
                    class_start = false;
                    continue;
                }
                out.push_str("\\[");
                class_start = false;
            }
            '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
                class_start = false;
            }
            '(' if !in_class && pat[i..].starts_with("(?") => {
                let rest = &pat[i..];
                let begin = if rest.starts_with("(?P<") {
                    Some(4)
                } else if rest.starts_with("(?<") {
                    Some(3)
                } else {
                    None
                };
                if let Some(begin) = begin {
                    let Some(end) = rest.find('>') else { return Err(invalid(rest)) };
                    let name = &rest[begin..end];
                    if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
                        return Err(invalid(&rest[..=end]));
                    }
                    out.push_str(&format!("(?P<g{}>", names.len()));
                    names.push(name.to_owned());
                    while chars.peek().is_some_and(|&(j, _)| j <= i + end) {
                        chars.next();
                    }
                } else {
                    out.push('(');
                }
            }
            _ => {
                out.push(c);
                class_start = false;
            }
        }
    }
    Ok((out, names))
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
    }

    #[test]
    fn quote_meta_like_go() {
        assert_eq!(quote_meta("a.b*c [x]"), r"a\.b\*c \[x\]");
    }
}
