//! Go's `path/filepath.Glob` and `Match` (Unix rules), which kubectl's builder applies to
//! `-f` values that do not exist (spec §1.7).
//!
//! Ported on bytes, like Go: `?` and `[...]` consume one UTF-8 character, literals compare
//! bytes, `*` never crosses `/`, `\` escapes. A malformed pattern is `ErrBadPattern`
//! ("syntax error in pattern"), reported even when an earlier part already failed to match.

use std::path::Path;

/// Go's `filepath.ErrBadPattern`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("syntax error in pattern")]
pub struct BadPattern;

fn decode_rune(s: &[u8]) -> (Option<char>, usize) {
    if s.is_empty() {
        return (None, 0);
    }
    let len = match s[0] {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return (None, 1),
    };
    match s.get(..len).and_then(|b| std::str::from_utf8(b).ok()).and_then(|t| t.chars().next()) {
        Some(c) => (Some(c), len),
        None => (None, 1),
    }
}

fn scan_chunk(mut pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut star = false;
    while pattern.first() == Some(&b'*') {
        pattern = &pattern[1..];
        star = true;
    }
    let mut in_range = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    (star, &pattern[..i], &pattern[i..])
}

fn get_esc(mut chunk: &[u8]) -> Result<(u32, &[u8]), BadPattern> {
    if chunk.is_empty() || chunk[0] == b'-' || chunk[0] == b']' {
        return Err(BadPattern);
    }
    if chunk[0] == b'\\' {
        chunk = &chunk[1..];
        if chunk.is_empty() {
            return Err(BadPattern);
        }
    }
    let (r, n) = decode_rune(chunk);
    let Some(r) = r else { return Err(BadPattern) };
    let rest = &chunk[n..];
    if rest.is_empty() {
        return Err(BadPattern);
    }
    Ok((r as u32, rest))
}

/// Go's `matchChunk`: `Some(rest)` on a match.
fn match_chunk<'a>(mut chunk: &[u8], mut s: &'a [u8]) -> Result<Option<&'a [u8]>, BadPattern> {
    let mut failed = false;
    while !chunk.is_empty() {
        if !failed && s.is_empty() {
            failed = true;
        }
        match chunk[0] {
            b'[' => {
                let mut r = u32::MAX;
                if !failed {
                    let (c, n) = decode_rune(s);
                    r = c.map_or(0xFFFD, |c| c as u32);
                    s = &s[n..];
                }
                chunk = &chunk[1..];
                let negated = chunk.first() == Some(&b'^');
                if negated {
                    chunk = &chunk[1..];
                }
                let mut matched = false;
                let mut nrange = 0;
                loop {
                    if chunk.first() == Some(&b']') && nrange > 0 {
                        chunk = &chunk[1..];
                        break;
                    }
                    let (lo, rest) = get_esc(chunk)?;
                    chunk = rest;
                    let mut hi = lo;
                    if chunk[0] == b'-' {
                        let (h, rest) = get_esc(&chunk[1..])?;
                        hi = h;
                        chunk = rest;
                    }
                    if lo <= r && r <= hi {
                        matched = true;
                    }
                    nrange += 1;
                }
                if matched == negated {
                    failed = true;
                }
            }
            b'?' => {
                if !failed {
                    if s[0] == b'/' {
                        failed = true;
                    }
                    let (_, n) = decode_rune(s);
                    s = &s[n..];
                }
                chunk = &chunk[1..];
            }
            c => {
                let mut c = c;
                if c == b'\\' {
                    chunk = &chunk[1..];
                    if chunk.is_empty() {
                        return Err(BadPattern);
                    }
                    c = chunk[0];
                }
                if !failed {
                    if c != s[0] {
                        failed = true;
                    }
                    s = &s[1..];
                }
                chunk = &chunk[1..];
            }
        }
    }
    Ok(if failed { None } else { Some(s) })
}

/// Go's `filepath.Match`.
///
/// # Errors
/// [`BadPattern`] for a malformed pattern.
pub fn matches(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    let mut pattern = pattern.as_bytes();
    let mut name = name.as_bytes();
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            return Ok(!name.contains(&b'/'));
        }
        let first = match_chunk(chunk, name);
        if let Ok(Some(t)) = first
            && (t.is_empty() || !pattern.is_empty())
        {
            name = t;
            continue;
        }
        first?;
        if star {
            let mut i = 0;
            while i < name.len() && name[i] != b'/' {
                match match_chunk(chunk, &name[i + 1..])? {
                    Some(t) if pattern.is_empty() && !t.is_empty() => {}
                    Some(t) => {
                        name = t;
                        continue 'pattern;
                    }
                    None => {}
                }
                i += 1;
            }
        }
        while !pattern.is_empty() {
            let (_, chunk, rest) = scan_chunk(pattern);
            pattern = rest;
            match_chunk(chunk, b"")?;
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

fn has_meta(p: &str) -> bool {
    p.contains(['*', '?', '[', '\\'])
}

/// Go's `filepath.Join` for a glob result: `dir/name`, with `.` dropped.
fn join(dir: &str, name: &str) -> String {
    match dir {
        "." => name.to_owned(),
        d if d.ends_with('/') => format!("{d}{name}"),
        d => format!("{d}/{name}"),
    }
}

fn glob_dir(dir: &str, pattern: &str, out: &mut Vec<String>) -> Result<(), BadPattern> {
    if !Path::new(dir).is_dir() {
        return Ok(());
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let mut names: Vec<String> =
        entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    for n in names {
        if matches(pattern, &n)? {
            out.push(join(dir, &n));
        }
    }
    Ok(())
}

/// Go's `filepath.Glob`.
///
/// # Errors
/// [`BadPattern`] for a malformed pattern.
pub fn glob(pattern: &str) -> Result<Vec<String>, BadPattern> {
    glob_depth(pattern, 0)
}

fn glob_depth(pattern: &str, depth: usize) -> Result<Vec<String>, BadPattern> {
    // Go checks `depth == 10000` to stop runaway recursion; patterns cannot nest that deep here,
    // but keep the guard so a hostile argument cannot overflow the stack.
    if depth > 10_000 {
        return Err(BadPattern);
    }
    matches(pattern, "")?;
    if !has_meta(pattern) {
        return Ok(if std::fs::symlink_metadata(pattern).is_ok() { vec![pattern.to_owned()] } else { vec![] });
    }
    let (dir, file) = match pattern.rfind('/') {
        Some(i) => (&pattern[..=i], &pattern[i + 1..]),
        None => ("", pattern),
    };
    let dir = match dir {
        "" => ".",
        "/" => "/",
        d => &d[..d.len() - 1],
    };
    let mut out = Vec::new();
    if !has_meta(dir) {
        glob_dir(dir, file, &mut out)?;
        return Ok(out);
    }
    if dir == pattern {
        return Err(BadPattern);
    }
    for d in glob_depth(dir, depth + 1)? {
        glob_dir(&d, file, &mut out)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_like_go() {
        let ok = |p: &str, n: &str| matches(p, n).unwrap();
        assert!(ok("*.yaml", "a.yaml"));
        assert!(!ok("*.yaml", "d/a.yaml"));
        assert!(ok("a?c", "abc"));
        assert!(ok("[a-c]x", "bx"));
        assert!(!ok("[^a-c]x", "bx"));
        assert!(ok("a\\*", "a*"));
        assert!(ok("*", "ü"));
        assert!(ok("?", "ü"));
        assert_eq!(matches("[", "x"), Err(BadPattern));
        assert_eq!(matches("a[", "b"), Err(BadPattern));
        assert_eq!(matches("a\\", "a"), Err(BadPattern));
        assert_eq!(matches("[]a]", "a"), Err(BadPattern));
        assert_eq!(matches("x*[", "xyz"), Err(BadPattern));
    }

    #[test]
    fn glob_lists_sorted_matches() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["b.yaml", "a.yaml", "c.txt"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let p = format!("{}/*.yaml", dir.path().display());
        let got = glob(&p).unwrap();
        assert_eq!(got.len(), 2);
        assert!(got[0].ends_with("/a.yaml") && got[1].ends_with("/b.yaml"));
        assert_eq!(glob("[").unwrap_err(), BadPattern);
    }
}
