//! Git locations as users write them: `git:REV:PATH` (the repository holding the configuration
//! or the working directory) and `git+file:///abs/repo@REV:PATH` (another local repository).
//!
//! The grammar, chosen so that every part is unambiguous without looking at the repository:
//! - `REV` runs to the first `:` after it starts, so it cannot contain one. Ref names cannot
//!   (git's `check-ref-format` forbids `:`), nor can object names or `HEAD~1`-style suffixes;
//!   only reflog dates (`@{10:00}`) are lost, and those make poor pins anyway.
//! - `PATH` is everything after that `:` (it may contain `:` and `@`), relative to the
//!   repository's root (like `git show REV:PATH`), naming `metadata.yaml` or its directory.
//!   Empty or `.` is the root directory.
//! - In `git+file://`, the repository path runs to the first `@`, and is percent-decoded as in
//!   a `file:` URL (write a literal `@` in it as `%40`). `REV` may then contain `@`
//!   (`main@{1}`).
//!
//! This module only parses text; [`super::read`] opens repositories.

use std::fmt;
use std::path::PathBuf;

/// The prefix of a location in the current repository.
pub const GIT_PREFIX: &str = "git:";
/// The prefix of a location in another local repository.
pub const FILE_PREFIX: &str = "git+file:";

/// Which repository a location reads from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repo {
    /// The repository found from a starting directory (the configuration file's, or the
    /// working directory), searching upwards as `git` does.
    Discover,
    /// A repository at an absolute path (work tree or git directory).
    Path(PathBuf),
}

/// A parsed git location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The text as written (kept for messages and the lock file).
    pub written: String,
    pub repo: Repo,
    /// The revision, as `git rev-parse` takes it.
    pub rev: String,
    /// The path inside the repository, `/`-separated, without `./`, empty for the root.
    pub path: String,
    /// The text before the path (`git:v1.0:`): a file `f` of the same revision is shown as
    /// `{prefix}f`.
    pub prefix: String,
}

/// A location that cannot be parsed; the message names the part that is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid git location `{written}`: {message}")]
pub struct LocationError {
    pub written: String,
    pub message: String,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

/// Whether `text` is meant as a git location (it starts with `git:` or `git+file:`). A
/// directory whose name starts so can still be named as `./git:…`.
pub fn is_location(text: &str) -> bool {
    text.starts_with(GIT_PREFIX) || text.starts_with(FILE_PREFIX)
}

/// Parses a git location; `Ok(None)` when `text` is not one (a plain path).
pub fn parse_location(text: &str) -> Result<Option<Location>, LocationError> {
    let fail = |message: String| LocationError { written: text.to_owned(), message };
    let (repo, rest) = if let Some(rest) = text.strip_prefix(GIT_PREFIX) {
        (Repo::Discover, rest)
    } else if let Some(url) = text.strip_prefix(FILE_PREFIX) {
        let Some(after) = url.strip_prefix("//") else {
            return Err(fail("expected `git+file:///absolute/path/to/repo@REV:PATH`".into()));
        };
        let Some(at) = after.find('@') else {
            return Err(fail(format!("missing `@REV` after the repository path `{after}`")));
        };
        let raw = &after[..at];
        if !raw.starts_with('/') {
            let host = raw.split('/').next().unwrap_or(raw);
            return Err(fail(format!(
                "the repository must be a local absolute path (`git+file:///path`), not host `{host}`"
            )));
        }
        let decoded = percent_decode(raw).map_err(|m| fail(format!("repository path `{raw}`: {m}")))?;
        (Repo::Path(PathBuf::from(decoded)), &after[at + 1..])
    } else {
        return Ok(None);
    };
    let Some(colon) = rest.find(':') else {
        return Err(fail(format!("missing `:PATH` after the revision `{rest}` (use `:.` for the repository root)")));
    };
    let (rev, path) = (&rest[..colon], &rest[colon + 1..]);
    if rev.is_empty() {
        return Err(fail("empty revision (write a tag, branch or commit, e.g. `git:v1.0:reference`)".into()));
    }
    if rev.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(fail(format!("revision `{rev}` contains whitespace")));
    }
    let path = normalize_path(path).map_err(|m| fail(format!("path `{path}`: {m}")))?;
    let prefix = text[..text.len() - (rest.len() - colon - 1)].to_owned();
    Ok(Some(Location { written: text.to_owned(), repo, rev: rev.to_owned(), path, prefix }))
}

/// `./a//b/` → `a/b`; refuses absolute paths and `..` (a location cannot leave the repository).
fn normalize_path(path: &str) -> Result<String, String> {
    if path.starts_with('/') {
        return Err("must be relative to the repository root".into());
    }
    if path.contains('\0') {
        return Err("contains a NUL byte".into());
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err("must not contain `..`".into()),
            p => parts.push(p),
        }
    }
    Ok(parts.join("/"))
}

fn percent_decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
            let Some(hex) = hex else { return Err(format!("bad percent escape at byte {i}")) };
            out.push(u8::from_str_radix(hex, 16).map_err(|e| e.to_string())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "percent escapes do not decode to UTF-8".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Location {
        parse_location(s).unwrap().unwrap()
    }

    fn err(s: &str) -> String {
        parse_location(s).unwrap_err().to_string()
    }

    #[test]
    fn current_repository() {
        let l = parse("git:refs/tags/reference-v4.18:reference/metadata.yaml");
        assert_eq!(l.repo, Repo::Discover);
        assert_eq!(l.rev, "refs/tags/reference-v4.18");
        assert_eq!(l.path, "reference/metadata.yaml");
        assert_eq!(l.to_string(), "git:refs/tags/reference-v4.18:reference/metadata.yaml");
        assert_eq!(l.prefix, "git:refs/tags/reference-v4.18:");
        let l = parse("git:HEAD~1:./reference//");
        assert_eq!((l.rev.as_str(), l.path.as_str()), ("HEAD~1", "reference"));
        assert_eq!(parse("git:v1:").path, "");
        assert_eq!(parse("git:v1:.").path, "");
        // The path may hold `:`; the revision ends at the first one.
        assert_eq!(parse("git:v1:a:b/metadata.yaml").path, "a:b/metadata.yaml");
    }

    #[test]
    fn other_repository() {
        let l = parse("git+file:///srv/refs%40x/repo@main@{1}:ref");
        assert_eq!(l.repo, Repo::Path(PathBuf::from("/srv/refs@x/repo")));
        assert_eq!((l.rev.as_str(), l.path.as_str()), ("main@{1}", "ref"));
        assert_eq!(l.prefix, "git+file:///srv/refs%40x/repo@main@{1}:");
        let l = parse("git+file:///r@0123abc:metadata.yaml");
        assert_eq!(l.rev, "0123abc");
    }

    #[test]
    fn plain_paths_are_not_locations() {
        assert_eq!(parse_location("reference/metadata.yaml").unwrap(), None);
        assert_eq!(parse_location("./git:odd").unwrap(), None);
        assert!(!is_location("/abs/git:x"));
        assert!(is_location("git:x:y"));
    }

    #[test]
    fn errors_name_the_bad_part() {
        assert_eq!(
            err("git:v1"),
            "invalid git location `git:v1`: missing `:PATH` after the revision `v1` (use `:.` for the repository root)"
        );
        assert!(err("git::ref").contains("empty revision"));
        assert!(err("git:v1:/etc/passwd").contains("path `/etc/passwd`: must be relative"));
        assert!(err("git:v1:ref/../../x").contains("must not contain `..`"));
        assert!(err("git:v 1:ref").contains("revision `v 1` contains whitespace"));
        assert!(err("git+file:/repo@v1:x").contains("expected `git+file:///"));
        assert!(err("git+file:///repo:x").contains("missing `@REV` after the repository path `/repo:x`"));
        assert!(err("git+file://host/repo@v1:x").contains("not host `host`"));
        assert!(err("git+file:///r%4@v1:x").contains("repository path `/r%4`: bad percent escape"));
        assert!(err("git+file:///r@v1").contains("missing `:PATH`"));
    }
}
