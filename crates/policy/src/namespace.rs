//! Namespace globs: conftest's `--namespace 'main.*'` (`runner/test.go`: `hasWildcard`,
//! `filterNamespaces`), which is Go's `path.Match` over a package name. Patterns come from the
//! configuration, which the checked repository controls: matching is linear per pattern
//! element (no backtracking blow-up) and patterns are bounded in length.

/// Whether a namespace is a glob (conftest's `hasWildcard`).
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// The longest namespace glob taken (patterns come from the configuration, which the checked
/// repository controls; matching costs the pattern's length times the name's).
const MAX_GLOB: usize = 1024;

/// One element of a namespace glob.
enum Glob {
    Star,
    Any,
    Char(char),
    /// `[…]`: ranges (a single character is a range of one), negated with `^`.
    Class(Vec<(char, char)>, bool),
}

/// Go's `path.Match` over a namespace (which has no `/`, so `*` matches any run of characters,
/// dots included): `*`, `?`, `[abc]`, `[a-z]`, `[^a]`, and `\\` escaping the next character.
/// Matching is linear in the name for each pattern element, whatever the pattern.
pub fn glob_match(pattern: &str, name: &str) -> Result<bool, String> {
    if pattern.chars().count() > MAX_GLOB {
        return Err(format!("a glob longer than {MAX_GLOB} characters"));
    }
    let p = parse_glob(pattern)?;
    let n: Vec<char> = name.chars().collect();
    let matches = |g: &Glob, c: char| match g {
        Glob::Star => false,
        Glob::Any => true,
        Glob::Char(x) => *x == c,
        Glob::Class(ranges, negated) => ranges.iter().any(|(lo, hi)| *lo <= c && c <= *hi) != *negated,
    };
    // The classic wildcard walk: on a mismatch, the last `*` takes one more character.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some(Glob::Star) => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(g) if matches(g, n[ni]) => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    star = Some((sp, sn + 1));
                    pi = sp + 1;
                    ni = sn + 1;
                }
                None => return Ok(false),
            },
        }
    }
    Ok(p[pi..].iter().all(|g| matches!(g, Glob::Star)))
}

fn parse_glob(pattern: &str) -> Result<Vec<Glob>, String> {
    let p: Vec<char> = pattern.chars().collect();
    let escaped = |i: usize| p.get(i + 1).copied().ok_or_else(|| "a trailing `\\` escapes nothing".to_string());
    let mut out = Vec::new();
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '*' => out.push(Glob::Star),
            '?' => out.push(Glob::Any),
            '\\' => {
                out.push(Glob::Char(escaped(i)?));
                i += 1;
            }
            '[' => {
                i += 1;
                let negated = p.get(i) == Some(&'^');
                if negated {
                    i += 1;
                }
                let mut ranges = Vec::new();
                loop {
                    let Some(&c) = p.get(i) else { return Err("a `[` class is not closed".into()) };
                    if c == ']' && !ranges.is_empty() {
                        break;
                    }
                    // Go's `getEsc`: an unescaped `-` or `]` where a character is due is an error.
                    if c == '-' || c == ']' {
                        return Err(format!("`{c}` in a `[` class must be escaped"));
                    }
                    let lo = if c == '\\' {
                        i += 1;
                        escaped(i - 1)?
                    } else {
                        c
                    };
                    let mut hi = lo;
                    if p.get(i + 1) == Some(&'-') {
                        i += 2;
                        match p.get(i) {
                            None => return Err("a `[` class is not closed".into()),
                            Some('-' | ']') => return Err("a range in a `[` class has no end".into()),
                            Some(_) => {}
                        }
                        hi = if p[i] == '\\' {
                            i += 1;
                            escaped(i - 1)?
                        } else {
                            p[i]
                        };
                    }
                    if hi < lo {
                        return Err(format!("the range `{lo}-{hi}` is reversed"));
                    }
                    ranges.push((lo, hi));
                    i += 1;
                }
                out.push(Glob::Class(ranges, negated));
            }
            c => out.push(Glob::Char(c)),
        }
        i += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_globs_match_as_go_path_match_does() {
        let m = |p: &str, n: &str| glob_match(p, n).unwrap();
        // `*` crosses the dots of a namespace (it has no `/`).
        assert!(m("main.*", "main.a") && m("main.*", "main.a.b") && !m("main.*", "main"));
        assert!(m("*", "anything.at.all") && m("m?in", "main") && !m("m?in", "mn"));
        assert!(m("[mo]*", "main") && m("[mo]*", "other") && !m("[mo]*", "lib"));
        assert!(m("[^l]*", "main") && !m("[^l]*", "lib") && m("[a-c]x", "bx") && !m("[a-c]x", "dx"));
        assert!(m("a\\*", "a*") && !m("a\\*", "ab"));
        assert!(glob_match("main[", "main").is_err() && glob_match("main\\", "main").is_err());
        assert!(glob_match("[]a]", "a").is_err() && glob_match("[a-]", "a").is_err());
        assert!(m("[\\]a]", "]") && m("[\\-]", "-"));
        // Many stars over a long name that does not match (a backtracking matcher never ends).
        let name = "a".repeat(5000);
        let pattern = "*a".repeat(400) + "b";
        assert!(!m(&pattern, &name));
        assert!(glob_match(&"*".repeat(2000), "x").is_err());
    }
}
