//! Crossplane field paths (`spec.forProvider.tags[0].key`,
//! `metadata.labels[crossplane.io/claim-name]`, `spec.x["a.b"]`), parsed into segments with the
//! syntax of crossplane-runtime's `fieldpath` package.
//!
//! A bracketed decimal number is an index; any other bracketed text is a field name (one level
//! of surrounding quotes removed), so keys may hold dots and slashes. `.0` is a field named
//! `0`. A leading, trailing or doubled period, `[]`, an unterminated `[`, `.[` and a `]` inside
//! a name do not parse.

use std::fmt;

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Segment {
    Field(String),
    Index(usize),
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Segment::Field(name) => f.write_str(name),
            Segment::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// Why a path does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("the path is empty")]
    Empty,
    #[error("a field name is empty at character {0} (a leading, trailing or doubled period, or `.[`)")]
    EmptyName(usize),
    #[error("`[` at character {0} is never closed")]
    Unterminated(usize),
    #[error("empty brackets `[]` at character {0}")]
    EmptyBrackets(usize),
    #[error("unexpected `]` at character {0}")]
    StrayBracket(usize),
    #[error("`{0}` must be followed by `.`, `[` or the end of the path")]
    AfterBracket(char),
}

/// Parses `path` into segments.
pub fn parse(path: &str) -> Result<Vec<Segment>, PathError> {
    if path.is_empty() {
        return Err(PathError::Empty);
    }
    let bytes = path.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // Whether a field name must come next (at the start, and after a period).
    let mut need_name = true;
    while i < bytes.len() {
        if bytes[i] == b'[' {
            if need_name && i > 0 {
                // `.[`
                return Err(PathError::EmptyName(i));
            }
            let close = path[i + 1..].find(']').map(|j| i + 1 + j).ok_or(PathError::Unterminated(i))?;
            let inner = &path[i + 1..close];
            if inner.is_empty() {
                return Err(PathError::EmptyBrackets(i));
            }
            out.push(bracketed(inner));
            i = close + 1;
            match bytes.get(i) {
                None => return Ok(out),
                Some(b'.') => {
                    i += 1;
                    need_name = true;
                    if i == bytes.len() {
                        return Err(PathError::EmptyName(i));
                    }
                }
                Some(b'[') => need_name = false,
                Some(_) => return Err(PathError::AfterBracket(']')),
            }
            continue;
        }
        let end = path[i..].find(['.', '[']).map_or(path.len(), |j| i + j);
        let name = &path[i..end];
        if name.is_empty() {
            return Err(PathError::EmptyName(i));
        }
        if let Some(j) = name.find(']') {
            return Err(PathError::StrayBracket(i + j));
        }
        out.push(Segment::Field(name.to_string()));
        i = end;
        match bytes.get(i) {
            Some(b'.') => {
                i += 1;
                need_name = true;
                if i == bytes.len() {
                    return Err(PathError::EmptyName(i));
                }
            }
            _ => need_name = false,
        }
    }
    Ok(out)
}

/// The segment for the text inside brackets: an index, else a field with quotes removed.
fn bracketed(inner: &str) -> Segment {
    if inner.bytes().all(|b| b.is_ascii_digit())
        && let Ok(i) = inner.parse()
    {
        return Segment::Index(i);
    }
    for q in ['"', '\''] {
        if inner.len() >= 2 && inner.starts_with(q) && inner.ends_with(q) {
            return Segment::Field(inner[1..inner.len() - 1].to_string());
        }
    }
    Segment::Field(inner.to_string())
}

/// `a.b[0]` again, for messages.
pub fn to_string(segments: &[Segment]) -> String {
    let mut s = String::new();
    for seg in segments {
        match seg {
            // In brackets what a bare name cannot say (empty, `.` or `[` inside); quoted when
            // the brackets alone would read it otherwise (empty, or quotes at both ends), so
            // that it parses back to the same segment.
            Segment::Field(name) if name.is_empty() || name.contains(['.', '[', ']']) => {
                if !name.is_empty() && bracketed(name) == Segment::Field(name.clone()) {
                    s.push_str(&format!("[{name}]"));
                } else {
                    s.push_str(&format!("['{name}']"));
                }
            }
            Segment::Field(name) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(name);
            }
            Segment::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str) -> Segment {
        Segment::Field(s.into())
    }

    #[test]
    fn parses_fields_indices_and_bracketed_keys() {
        assert_eq!(parse("a.b").unwrap(), [f("a"), f("b")]);
        assert_eq!(parse("a[0].c").unwrap(), [f("a"), Segment::Index(0), f("c")]);
        assert_eq!(parse("a.0").unwrap(), [f("a"), f("0")]);
        assert_eq!(
            parse("metadata.labels[crossplane.io/claim-name]").unwrap(),
            [f("metadata"), f("labels"), f("crossplane.io/claim-name")]
        );
        assert_eq!(parse("x['k.1'][\"k2\"][3]").unwrap(), [f("x"), f("k.1"), f("k2"), Segment::Index(3)]);
        assert_eq!(parse("[0].a").unwrap(), [Segment::Index(0), f("a")]);
    }

    #[test]
    fn rejects_what_crossplane_rejects() {
        for bad in [".a", "a..b", "a.", "a[]", "a[0", "a.[0]", "a]b", "a[0]b", ""] {
            assert!(parse(bad).is_err(), "{bad} should not parse");
        }
    }

    #[test]
    fn prints_back() {
        assert_eq!(to_string(&parse("a.b[2][x.y]").unwrap()), "a.b[2][x.y]");
        // What fuzzing found: an empty quoted key printed as a trailing `.`.
        for path in ["\0['']", "a['\"x.y\"']", "[''].b"] {
            let segments = parse(path).unwrap();
            assert_eq!(parse(&to_string(&segments)).unwrap(), segments, "{path}");
        }
    }
}
