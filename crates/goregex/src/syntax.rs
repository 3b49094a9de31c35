//! Go RE2 syntax → Rust `regex` syntax, with Go's parse errors.
//!
//! The two dialects mostly agree, but a Go pattern must mean in Rust what it means in Go:
//! * `\d \w \s \b` are ASCII-only in Go, Unicode-aware in Rust: rewritten to explicit classes
//!   (Go's `\s` is `[\t\n\f\r ]`, without `\v`).
//! * inside `[...]`, Go treats `[` (unless `[:name:]`) and `&&`/`--`/`~~` literally, Rust
//!   starts nested classes and set operations: escaped.
//! * a `{` that is not a valid repeat is a literal in Go, an error in Rust: escaped. `\<`,
//!   `\>` are literals in Go, word boundaries in Rust. `\Q…\E` exists only in Go: expanded.
//! * Go rejects what Rust accepts: flags other than `imsU` (`(?x)`), repeat counts over 1000,
//!   stacked repetition (`a**`), escapes such as `\e` or `\h`. Those are reported with Go's
//!   message, `error parsing regexp: <code>: `<expr>``, as are the errors both reject, so
//!   that `mustRegex*` errors read like Go's.

/// A Go `regexp/syntax` error: the code text and the offending expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GoError {
    pub code: &'static str,
    pub expr: String,
}

impl std::fmt::Display for GoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

fn err(code: &'static str, expr: &str) -> GoError {
    GoError { code, expr: expr.to_string() }
}

/// Go's POSIX class names (`[:alpha:]`).
const POSIX_CLASSES: [&str; 14] = [
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word",
    "xdigit",
];

const DIGIT: &str = "0-9";
const WORD: &str = "0-9A-Za-z_";
const SPACE: &str = "\\t\\n\\f\\r ";

/// Translates a Go pattern into an equivalent Rust pattern, or returns Go's parse error.
/// Named groups become `g0`, `g1`, … in order (Go allows a name twice, Rust does not); the
/// Go names are returned in that order.
pub(crate) fn translate(pat: &str) -> Result<(String, Vec<String>), GoError> {
    let chars: Vec<(usize, char)> = pat.char_indices().collect();
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let byte = |i: usize| chars.get(i).map_or(pat.len(), |&(b, _)| b);
    let mut out = String::with_capacity(pat.len() + 16);
    let mut names = Vec::new();
    let mut i = 0;
    let mut depth = 0usize;
    // Whether the previous item can take a repetition operator, and whether it was one.
    let mut operand = false;
    let mut last_repeat: Option<usize> = None;
    while i < chars.len() {
        let c = chars[i].1;
        let start = i;
        match c {
            '\\' => {
                let Some(n) = at(i + 1) else {
                    return Err(err("trailing backslash at end of expression", ""));
                };
                i += 2;
                match n {
                    'd' => out.push_str("[0-9]"),
                    'D' => out.push_str("[^0-9]"),
                    'w' => out.push_str("[0-9A-Za-z_]"),
                    'W' => out.push_str("[^0-9A-Za-z_]"),
                    's' => out.push_str("[\\t\\n\\f\\r ]"),
                    'S' => out.push_str("[^\\t\\n\\f\\r ]"),
                    'b' => out.push_str("(?-u:\\b)"),
                    'B' => out.push_str("(?-u:\\B)"),
                    'A' | 'z' => {
                        out.push('\\');
                        out.push(n);
                    }
                    'Q' => {
                        let rest = &pat[byte(i)..];
                        let (lit, after) = match rest.find("\\E") {
                            Some(e) => (&rest[..e], byte(i) + e + 2),
                            None => (rest, pat.len()),
                        };
                        out.push_str(&regex::escape(lit));
                        i = chars.iter().position(|&(b, _)| b >= after).unwrap_or(chars.len());
                        operand = !lit.is_empty();
                        last_repeat = None;
                        continue;
                    }
                    _ => i = escape(pat, &chars, start, &mut out)?,
                }
                operand = true;
                last_repeat = None;
                continue;
            }
            '[' => {
                i = class(pat, &chars, i, &mut out)?;
                operand = true;
                last_repeat = None;
                continue;
            }
            '(' => {
                if at(i + 1) == Some('?') {
                    i = group_flags(pat, &chars, i, &mut out, &mut names)?;
                    if out.ends_with(')') {
                        // A bare flag group `(?i)`: not an operand.
                        operand = false;
                        last_repeat = None;
                        continue;
                    }
                } else {
                    out.push('(');
                    i += 1;
                }
                depth += 1;
                operand = false;
                last_repeat = None;
                continue;
            }
            ')' => {
                if depth == 0 {
                    return Err(err("unexpected )", pat));
                }
                depth -= 1;
                out.push(')');
                operand = true;
                last_repeat = None;
            }
            '|' => {
                out.push('|');
                operand = false;
                last_repeat = None;
            }
            '*' | '+' | '?' | '{' => {
                let mut j = i + 1;
                if c == '{' {
                    match repeat_count(&chars, i) {
                        None => {
                            // Not a repeat: a literal brace in Go.
                            out.push_str("\\{");
                            operand = true;
                            last_repeat = None;
                            i += 1;
                            continue;
                        }
                        Some((end, min, max)) => {
                            j = end;
                            let text = &pat[byte(i)..byte(j)];
                            if min > 1000 || max.is_some_and(|m| m > 1000 || m < min) {
                                return Err(err("invalid repeat count", text));
                            }
                        }
                    }
                }
                if at(j) == Some('?') {
                    j += 1;
                }
                let text = &pat[byte(i)..byte(j)];
                if let Some(prev) = last_repeat {
                    return Err(err("invalid nested repetition operator", &pat[byte(prev)..byte(j)]));
                }
                if !operand {
                    return Err(err("missing argument to repetition operator", text));
                }
                out.push_str(text);
                last_repeat = Some(i);
                i = j;
                continue;
            }
            '}' => {
                out.push_str("\\}");
                operand = true;
                last_repeat = None;
            }
            '^' | '$' => {
                out.push(c);
                // Go lets an empty-width assertion take a repetition operator.
                operand = true;
                last_repeat = None;
            }
            _ => {
                out.push(c);
                operand = true;
                last_repeat = None;
            }
        }
        i = start + 1;
    }
    if depth > 0 {
        return Err(err("missing closing )", pat));
    }
    Ok((out, names))
}

/// `{n}`, `{n,}` or `{n,m}` starting at `i`: (index after `}`, n, m). `{n,}` has no max.
fn repeat_count(chars: &[(usize, char)], i: usize) -> Option<(usize, u64, Option<u64>)> {
    let mut j = i + 1;
    let num = |j: &mut usize| -> Option<u64> {
        let s = *j;
        let mut v: u64 = 0;
        while let Some(&(_, c)) = chars.get(*j) {
            let Some(d) = c.to_digit(10) else { break };
            v = v.saturating_mul(10).saturating_add(d as u64);
            *j += 1;
        }
        (*j > s).then_some(v)
    };
    let min = num(&mut j)?;
    let max = match chars.get(j)?.1 {
        '}' => Some(min),
        ',' => {
            j += 1;
            if chars.get(j)?.1 == '}' { None } else { Some(num(&mut j)?) }
        }
        _ => return None,
    };
    if chars.get(j)?.1 != '}' {
        return None;
    }
    Some((j + 1, min, max))
}

/// An escape other than the class shorthands, outside or inside a class, starting at the
/// backslash `i`. Returns the index after it.
fn escape(pat: &str, chars: &[(usize, char)], i: usize, out: &mut String) -> Result<usize, GoError> {
    let byte = |k: usize| chars.get(k).map_or(pat.len(), |&(b, _)| b);
    let Some(&(_, n)) = chars.get(i + 1) else {
        return Err(err("trailing backslash at end of expression", ""));
    };
    let bad = |k: usize| Err(err("invalid escape sequence", &pat[byte(i)..byte(k)]));
    match n {
        '1'..='7' if !chars.get(i + 2).is_some_and(|&(_, c)| ('0'..='7').contains(&c)) => bad(i + 2),
        '0'..='7' => {
            // Octal: up to three digits.
            let mut j = i + 1;
            let mut v = 0u32;
            while j < i + 4 && chars.get(j).is_some_and(|&(_, c)| ('0'..='7').contains(&c)) {
                v = v * 8 + chars[j].1.to_digit(8).unwrap_or(0);
                j += 1;
            }
            out.push_str(&format!("\\x{{{v:x}}}"));
            Ok(j)
        }
        'x' => {
            let Some(&(_, c)) = chars.get(i + 2) else {
                return bad(i + 2);
            };
            if c == '{' {
                let mut j = i + 3;
                let mut v: u32 = 0;
                while let Some(&(_, h)) = chars.get(j) {
                    let Some(d) = h.to_digit(16) else { break };
                    v = v.saturating_mul(16).saturating_add(d);
                    j += 1;
                }
                if j == i + 3 || chars.get(j).map(|&(_, c)| c) != Some('}') || v > 0x10FFFF {
                    return bad((j + 1).min(chars.len()));
                }
                out.push_str(&pat[byte(i)..byte(j + 1)]);
                Ok(j + 1)
            } else {
                let ok = |k: usize| chars.get(k).is_some_and(|&(_, c)| c.is_ascii_hexdigit());
                if !ok(i + 2) || !ok(i + 3) {
                    return bad((i + 4).min(chars.len()));
                }
                out.push_str(&pat[byte(i)..byte(i + 4)]);
                Ok(i + 4)
            }
        }
        'a' | 'f' | 't' | 'n' | 'r' | 'v' => {
            out.push('\\');
            out.push(n);
            Ok(i + 2)
        }
        'p' | 'P' => {
            // Unicode class: \pL or \p{Name}; Go and Rust share the syntax.
            let Some(&(_, c)) = chars.get(i + 2) else {
                return bad(i + 2);
            };
            if c == '{' {
                let Some(close) = chars[i + 3..].iter().position(|&(_, c)| c == '}') else {
                    return Err(err("invalid character class range", &pat[byte(i)..]));
                };
                let j = i + 3 + close + 1;
                out.push_str(&pat[byte(i)..byte(j)]);
                Ok(j)
            } else {
                out.push_str(&pat[byte(i)..byte(i + 3)]);
                Ok(i + 3)
            }
        }
        '<' | '>' => {
            out.push(n);
            Ok(i + 2)
        }
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => {
            // Go lets any ASCII character other than a letter or digit escape itself (space
            // included); Rust only accepts escaped meta characters.
            out.push_str(&regex::escape(&c.to_string()));
            Ok(i + 2)
        }
        _ => bad(i + 2),
    }
}

/// A bracket class starting at `[` (index `i`). Returns the index after the closing `]`.
fn class(pat: &str, chars: &[(usize, char)], i: usize, out: &mut String) -> Result<usize, GoError> {
    let byte = |k: usize| chars.get(k).map_or(pat.len(), |&(b, _)| b);
    let mut j = i + 1;
    out.push('[');
    if chars.get(j).is_some_and(|&(_, c)| c == '^') {
        out.push('^');
        j += 1;
    }
    let first = j;
    let mut prev_dash = false;
    loop {
        let Some(&(_, c)) = chars.get(j) else {
            return Err(err("missing closing ]", &pat[byte(i)..]));
        };
        match c {
            ']' if j > first => {
                out.push(']');
                return Ok(j + 1);
            }
            ']' => {
                out.push_str("\\]");
                j += 1;
            }
            '[' if chars.get(j + 1).is_some_and(|&(_, c)| c == ':') => {
                // A POSIX class `[:alpha:]` (or `[:^alpha:]`): both dialects have it.
                let rest = &pat[byte(j)..];
                // The closing `:]` is looked for after the opening `[:`, as Go does (`[[:]…`
                // has none there: fuzzing found the slice that ended before it began).
                let Some(end) = rest.get(2..).and_then(|r| r.find(":]")).map(|e| e + 2) else {
                    out.push_str("\\[");
                    j += 1;
                    continue;
                };
                // Go knows these names only; any other is its error, not Rust's.
                let name = rest[2..end].strip_prefix('^').unwrap_or(&rest[2..end]);
                if !POSIX_CLASSES.contains(&name) {
                    return Err(err("invalid character class range", &rest[..end + 2]));
                }
                out.push_str(&rest[..end + 2]);
                let after = byte(j) + end + 2;
                j = chars.iter().position(|&(b, _)| b >= after).unwrap_or(chars.len());
            }
            '[' | '&' | '~' => {
                out.push('\\');
                out.push(c);
                j += 1;
            }
            '-' if prev_dash => {
                out.push_str("\\-");
                j += 1;
                prev_dash = false;
                continue;
            }
            '\\' => {
                let Some(&(_, n)) = chars.get(j + 1) else {
                    return Err(err("missing closing ]", &pat[byte(i)..]));
                };
                match n {
                    'd' => out.push_str(DIGIT),
                    'w' => out.push_str(WORD),
                    's' => out.push_str(SPACE),
                    'D' => out.push_str("[^0-9]"),
                    'W' => out.push_str("[^0-9A-Za-z_]"),
                    'S' => out.push_str("[^\\t\\n\\f\\r ]"),
                    'b' | 'B' | 'A' | 'z' | 'Q' | 'E' => {
                        return Err(err("invalid escape sequence", &pat[byte(j)..byte(j + 2)]));
                    }
                    _ => {
                        j = escape(pat, chars, j, out)?;
                        prev_dash = false;
                        continue;
                    }
                }
                j += 2;
            }
            _ => {
                out.push(c);
                j += 1;
            }
        }
        prev_dash = c == '-';
    }
}

/// `(?` at index `i`: a named group `(?P<name>` / `(?<name>`, or flags `(?imsU-imsU)` /
/// `(?flags:`. Returns the index after what was consumed.
fn group_flags(
    pat: &str,
    chars: &[(usize, char)],
    i: usize,
    out: &mut String,
    names: &mut Vec<String>,
) -> Result<usize, GoError> {
    let byte = |k: usize| chars.get(k).map_or(pat.len(), |&(b, _)| b);
    let at = |k: usize| chars.get(k).map(|&(_, c)| c);
    let rest = &pat[byte(i)..];
    let named = if rest.len() > 4 && rest[2..].starts_with("P<") {
        Some(4)
    } else if rest.len() > 3 && rest[2..].starts_with('<') {
        Some(3)
    } else {
        None
    };
    if let Some(begin) = named {
        let Some(end) = rest.find('>') else {
            return Err(err("invalid named capture", rest));
        };
        let name = &rest[begin..end];
        if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
            return Err(err("invalid named capture", &rest[..end + 1]));
        }
        out.push_str(&format!("(?P<g{}>", names.len()));
        names.push(name.to_owned());
        let after = byte(i) + end + 1;
        return Ok(chars.iter().position(|&(b, _)| b >= after).unwrap_or(chars.len()));
    }
    let mut j = i + 2;
    let mut negated = false;
    let mut saw_flag = false;
    let mut flags = String::new();
    while let Some(c) = at(j) {
        j += 1;
        match c {
            'i' | 'm' | 's' | 'U' => {
                flags.push(c);
                saw_flag = true;
            }
            '-' if !negated => {
                negated = true;
                saw_flag = false;
                flags.push('-');
            }
            ':' | ')' if !negated || saw_flag => {
                out.push_str("(?");
                out.push_str(&flags);
                out.push(c);
                return Ok(j);
            }
            _ => break,
        }
    }
    Err(err("invalid or unsupported Perl syntax", &pat[byte(i)..byte(j)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_errors() {
        let e = |p: &str| translate(p).unwrap_err().to_string();
        assert_eq!(e("["), "error parsing regexp: missing closing ]: `[`");
        assert_eq!(e("("), "error parsing regexp: missing closing ): `(`");
        assert_eq!(e("*"), "error parsing regexp: missing argument to repetition operator: `*`");
        assert_eq!(e("(?"), "error parsing regexp: invalid or unsupported Perl syntax: `(?`");
        assert_eq!(e("a(?=b)"), "error parsing regexp: invalid or unsupported Perl syntax: `(?=`");
        assert_eq!(e("(a)\\1"), "error parsing regexp: invalid escape sequence: `\\1`");
        assert_eq!(e("a**"), "error parsing regexp: invalid nested repetition operator: `**`");
        assert_eq!(e("a{1001}"), "error parsing regexp: invalid repeat count: `{1001}`");
        assert_eq!(e("a)"), "error parsing regexp: unexpected ): `a)`");
        assert_eq!(e("(?x)a"), "error parsing regexp: invalid or unsupported Perl syntax: `(?x`");
    }

    #[test]
    fn rewrites() {
        assert_eq!(translate("\\d+").unwrap().0, "[0-9]+");
        assert_eq!(translate("[\\d.]").unwrap().0, "[0-9.]");
        assert_eq!(translate("a{,3}").unwrap().0, "a\\{,3\\}");
        assert_eq!(translate("[[]").unwrap().0, "[\\[]");
        assert_eq!(translate("[a&&b]").unwrap().0, "[a\\&\\&b]");
        assert_eq!(translate("\\Q.*\\E+").unwrap().0, "\\.\\*+");
        assert_eq!(
            translate("(?<d>x)(?P<d>y)").unwrap(),
            ("(?P<g0>x)(?P<g1>y)".to_owned(), vec!["d".to_owned(), "d".to_owned()])
        );
        assert_eq!(translate("[[:alpha:]]").unwrap().0, "[[:alpha:]]");
        // `:]` right after `[:` does not close it (Go looks after the `[:`); fuzzing found the
        // panic this was.
        let _ = translate("[[:]pУpL+^lph]]:a+^pL");
        // In Go `[[:]a]` is the class of `[` and `:`, then `a]`.
        assert_eq!(translate("[[:]a]").unwrap().0, "[\\[:]a]");
        assert_eq!(translate("[[:^digit:]x]").unwrap().0, "[[:^digit:]x]");
        assert_eq!(
            translate("a[[:_broken_:]]+").unwrap_err().to_string(),
            "error parsing regexp: invalid character class range: `[:_broken_:]`"
        );
        assert_eq!(translate("\\<").unwrap().0, "<");
    }
}
