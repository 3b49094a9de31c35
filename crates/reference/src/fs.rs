//! The reference directory as Go's `os.DirFS` + `fs.Glob` sees it (§2.1, §3.1).
//!
//! kube-compare opens the metadata file's directory as an `fs.FS` and loads each template with
//! `template.ParseFS(fsys, path)`, so a template path is a glob pattern (`*`, `?`, `[...]`,
//! `\` escapes; `*` never crosses `/`), and a path that is not `fs.ValidPath` (absolute, `..`,
//! `.`, empty elements) simply matches nothing. On top of Go, a match whose real path leaves
//! the reference directory through a symlink is dropped too: references are untrusted input.
//! The directory is a [`Root`]: on disk or a tree read from git, the semantics are the same.

use std::path::PathBuf;

use super::root::Root;

/// `path.ErrBadPattern`'s text.
pub const BAD_PATTERN: &str = "syntax error in pattern";

/// Go's `fs.ValidPath`.
pub fn valid_path(name: &str) -> bool {
    if name == "." {
        return true;
    }
    !name.contains('\0') && name.split('/').all(|e| !e.is_empty() && e != "." && e != "..")
}

fn has_meta(s: &str) -> bool {
    s.contains(['*', '?', '[', '\\'])
}

/// A file found by a pattern: the slash path inside the reference and the path shown for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub name: String,
    pub path: PathBuf,
}

/// Go's `fs.Glob(os.DirFS(root), pattern)`, in Go's order (lexical per directory).
pub fn glob(root: &Root, pattern: &str) -> Result<Vec<Found>, String> {
    glob_names(root, pattern, 0).map(|names| {
        names
            .into_iter()
            .filter(|name| root.contains(name))
            .map(|name| Found { path: root.display(&name), name })
            .collect()
    })
}

fn glob_names(root: &Root, pattern: &str, depth: usize) -> Result<Vec<String>, String> {
    if depth > 10_000 || !well_formed(pattern) {
        return Err(BAD_PATTERN.to_owned());
    }
    if !has_meta(pattern) {
        return Ok(if valid_path(pattern) && root.exists(pattern) { vec![pattern.to_owned()] } else { vec![] });
    }
    let (dir, file) = match pattern.rfind('/') {
        Some(i) => (&pattern[..i], &pattern[i + 1..]),
        None => (".", pattern),
    };
    if !has_meta(dir) {
        return read_matches(root, dir, file, Vec::new());
    }
    if dir == pattern {
        return Err(BAD_PATTERN.to_owned());
    }
    let mut matches = Vec::new();
    for d in glob_names(root, dir, depth + 1)? {
        matches = read_matches(root, &d, file, matches)?;
    }
    Ok(matches)
}

fn read_matches(root: &Root, dir: &str, pattern: &str, mut out: Vec<String>) -> Result<Vec<String>, String> {
    if !valid_path(dir) {
        return Ok(out);
    }
    // I/O errors are ignored, as in Go's fs.glob.
    let Some(names) = root.read_dir(dir) else {
        return Ok(out);
    };
    for n in names {
        if matches(pattern, &n) {
            out.push(if dir == "." { n } else { format!("{dir}/{n}") });
        }
    }
    Ok(out)
}

/// Go's `path.Match(pattern, "")` succeeding: every class and escape is complete.
fn well_formed(pattern: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '\\' => {
                if i + 1 >= p.len() {
                    return false;
                }
                i += 2;
            }
            '[' => match class(&p, i + 1, None) {
                Some((_, next)) => i = next,
                None => return false,
            },
            _ => i += 1,
        }
    }
    true
}

/// Parses a class starting after `[`; with `c`, whether it matches. Returns (matched, index
/// after `]`), or `None` when malformed (Go: `]` or `-` where a character is expected).
fn class(p: &[char], mut i: usize, c: Option<char>) -> Option<(bool, usize)> {
    let negated = p.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut ranges = 0;
    loop {
        if p.get(i) == Some(&']') && ranges > 0 {
            return Some((matched != negated, i + 1));
        }
        let (lo, next) = class_char(p, i)?;
        i = next;
        let mut hi = lo;
        if p.get(i) == Some(&'-') {
            let (h, next) = class_char(p, i + 1)?;
            hi = h;
            i = next;
        }
        if let Some(c) = c {
            matched |= lo <= c && c <= hi;
        }
        ranges += 1;
    }
}

fn class_char(p: &[char], i: usize) -> Option<(char, usize)> {
    match *p.get(i)? {
        '-' | ']' => None,
        '\\' => Some((*p.get(i + 1)?, i + 2)),
        c => Some((c, i + 1)),
    }
}

/// Go's `path.Match` for a well-formed pattern.
pub fn matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    match_at(&p, 0, &n, 0)
}

fn match_at(p: &[char], mut pi: usize, n: &[char], mut ni: usize) -> bool {
    while pi < p.len() {
        match p[pi] {
            '*' => {
                let rest = pi + 1;
                let mut k = ni;
                loop {
                    if match_at(p, rest, n, k) {
                        return true;
                    }
                    if k >= n.len() || n[k] == '/' {
                        return false;
                    }
                    k += 1;
                }
            }
            '?' => {
                if ni >= n.len() || n[ni] == '/' {
                    return false;
                }
                pi += 1;
                ni += 1;
            }
            '[' => {
                let Some(&c) = n.get(ni) else { return false };
                match class(p, pi + 1, Some(c)) {
                    Some((true, next)) if c != '/' => {
                        pi = next;
                        ni += 1;
                    }
                    _ => return false,
                }
            }
            '\\' => {
                if p.get(pi + 1) != n.get(ni) {
                    return false;
                }
                pi += 2;
                ni += 1;
            }
            c => {
                if n.get(ni) != Some(&c) {
                    return false;
                }
                pi += 1;
                ni += 1;
            }
        }
    }
    ni == n.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_paths() {
        assert!(valid_path("a/b.yaml"));
        for bad in ["/a", "../a", "a/../b", "./a", "a//b", "a/", ""] {
            assert!(!valid_path(bad), "{bad}");
        }
    }

    #[test]
    fn go_match() {
        assert!(matches("*.yaml", "a.yaml"));
        assert!(!matches("*.yaml", "a/b.yaml"));
        assert!(matches("a?c", "abc"));
        assert!(matches("[a-c]x", "bx"));
        assert!(!matches("[^a-c]x", "bx"));
        assert!(matches("\\*", "*"));
        assert!(!well_formed("[]"));
        assert!(!well_formed("a\\"));
        assert!(!well_formed("[a-"));
        assert!(!well_formed("[]a]"));
    }

    #[test]
    fn globbing_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        for f in ["b.yaml", "a.yaml", "sub/c.yaml", "x.txt"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let root = Root::Dir(dir.path().to_path_buf());
        let names = |p: &str| glob(&root, p).unwrap().into_iter().map(|f| f.name).collect::<Vec<_>>();
        assert_eq!(names("*.yaml"), ["a.yaml", "b.yaml"]);
        assert_eq!(names("*/*.yaml"), ["sub/c.yaml"]);
        assert_eq!(names("sub/c.yaml"), ["sub/c.yaml"]);
        assert!(names("../x.txt").is_empty());
        assert_eq!(glob(&root, "[").unwrap_err(), BAD_PATTERN);
    }

    #[test]
    fn globbing_a_git_tree() {
        use driftlint_git::{Entry, Tree};
        let mut tree = Tree::default();
        for (p, e) in [
            ("a.yaml", Entry::File(b"a".to_vec())),
            ("out.yaml", Entry::Link("../../etc/passwd".into())),
            ("in.yaml", Entry::Link("sub/c.yaml".into())),
            ("sub", Entry::Dir),
            ("sub/c.yaml", Entry::File(b"c".to_vec())),
        ] {
            tree.insert(p.into(), e);
        }
        let root = Root::Git(std::sync::Arc::new(super::super::root::GitRoot {
            tree,
            display_prefix: "git:v1:ref/".into(),
            commit: "0".repeat(40),
        }));
        let found = glob(&root, "*.yaml").unwrap();
        let names: Vec<&str> = found.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a.yaml", "in.yaml"]);
        assert_eq!(found[1].path, PathBuf::from("git:v1:ref/in.yaml"));
        assert_eq!(root.read("in.yaml").unwrap(), b"c");
        assert_eq!(names_of(&root, "*/*"), ["sub/c.yaml"]);
    }

    fn names_of(root: &Root, p: &str) -> Vec<String> {
        glob(root, p).unwrap().into_iter().map(|f| f.name).collect()
    }
}
