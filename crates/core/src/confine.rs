//! The one confinement of every file driftlint reads on a repository's behalf: manifests,
//! schemas and the files their `$ref`s name, schema locations once their variables are filled
//! in, policies, data, policy cases, references and their function files.
//!
//! A checked repository is untrusted (docs/security.md), and a path it names may lead anywhere
//! through `..` or a symlink — on any component, not only the last. [`confine`] resolves a
//! path for real, one component at a time, following every symlink as the kernel would, and
//! refuses it unless the real path stays inside its [`Boundary`]: the repository root (not its
//! `.git`, which holds the credentials `actions/checkout` persists), or a path the person
//! running driftlint named on the command line. A refusal names the path as written, relative
//! to the repository — never where a link leads, so no report carries the runner's paths or
//! tells a pull request whether a file outside exists.
//!
//! [`path_segment`] guards the values a repository puts into a path template (a kind, an
//! apiVersion): `.`, `..` and anything with a separator are refused before they are filled in.
//!
//! This module only answers questions about the file system; it opens nothing.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// How many symlinks one resolution follows (Linux's `MAXSYMLINKS`): a loop is refused.
pub const MAX_SYMLINKS: usize = 40;

/// Where files read on a repository's behalf must stay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boundary {
    /// The repository root as reached from its anchor, before symlinks (for showing paths).
    lexical: PathBuf,
    /// The repository root, resolved.
    root: PathBuf,
    /// Paths the person running driftlint named on the command line, resolved.
    trusted: Vec<PathBuf>,
}

/// Why a path was not read. The text names the path as written (relative to the repository
/// when it is inside it) and nothing of where it leads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// `..` or an absolute path leads out before any symlink is followed.
    #[error("`{0}`: leaves the repository: not read")]
    Leaves(String),
    /// A symlink on the way (any component) leads out.
    #[error("`{0}`: symlink leads out of the repository: not read")]
    Symlink(String),
    /// The path is (or leads) inside the repository's `.git`.
    #[error("`{0}`: inside .git: not read")]
    Git(String),
    /// More than [`MAX_SYMLINKS`] symlinks: a loop.
    #[error("`{0}`: more than {MAX_SYMLINKS} levels of symbolic links: not read")]
    Loop(String),
}

impl Refusal {
    /// The path as the refusal shows it.
    pub fn shown(&self) -> &str {
        match self {
            Refusal::Leaves(s) | Refusal::Symlink(s) | Refusal::Git(s) | Refusal::Loop(s) => s,
        }
    }
}

impl Boundary {
    /// The repository holding the directory `anchor` (a place the person running driftlint
    /// chose: the working directory, the configuration file's directory, a path given on the
    /// command line): the nearest directory upwards from its real location with a `.git`;
    /// outside git (a tarball), the working directory when `anchor` is below it, else `anchor`.
    pub fn around(anchor: &Path) -> Boundary {
        let lexical_anchor = lexical(anchor);
        let real_anchor = resolve(&lexical_anchor).unwrap_or_else(|_| lexical_anchor.clone());
        let root = match real_anchor.ancestors().find(|d| d.join(".git").exists()) {
            Some(r) => r.to_path_buf(),
            None => match std::env::current_dir().ok().map(|c| resolve(&c).unwrap_or(c)) {
                Some(cwd) if real_anchor.starts_with(&cwd) => cwd,
                _ => real_anchor.clone(),
            },
        };
        // The root as the anchor was written: as many levels up as the real root is.
        let up = real_anchor.components().count().saturating_sub(root.components().count());
        let lexical = lexical_anchor
            .ancestors()
            .nth(up)
            .filter(|l| resolve(l).is_ok_and(|r| r == root))
            .map_or_else(|| root.clone(), Path::to_path_buf);
        Boundary { lexical, root, trusted: Vec::new() }
    }

    /// The repository of the working directory ([`Boundary::around`] it).
    pub fn of_working_directory() -> Boundary {
        Boundary::around(&std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")))
    }

    /// Exactly the directory `dir` (a reference's own directory: its templates and function
    /// files may not leave it even for the rest of the repository).
    pub fn exactly(dir: &Path) -> Boundary {
        let lexical = lexical(dir);
        let root = resolve(&lexical).unwrap_or_else(|_| lexical.clone());
        Boundary { lexical, root, trusted: Vec::new() }
    }

    /// This boundary, with `path` (named on the command line) trusted wherever it leads.
    #[must_use]
    pub fn trusting(mut self, path: &Path) -> Boundary {
        let l = lexical(path);
        self.trusted.push(resolve(&l).unwrap_or(l));
        self
    }

    /// The repository root, resolved.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether `path` lies below the repository as written (before symlinks are followed).
    pub fn holds_lexically(&self, path: &Path) -> bool {
        let l = lexical(path);
        l.starts_with(&self.lexical) || l.starts_with(&self.root)
    }

    /// `path` relative to the repository when it is (lexically) inside it, else as given: how
    /// refusals and notes name a path.
    pub fn show(&self, path: &Path) -> String {
        let l = lexical(path);
        let inside = l.strip_prefix(&self.lexical).or_else(|_| l.strip_prefix(&self.root));
        match inside {
            Ok(rest) if rest.as_os_str().is_empty() => ".".to_string(),
            Ok(rest) => rest.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}

/// `path` resolved for real, refused unless it stays inside `boundary`. Returns the real path,
/// which is what the caller opens (a path that does not exist resolves as far as it exists,
/// the rest taken as written: the reader then reports it missing, which says nothing about
/// anything outside).
///
/// # Errors
/// A [`Refusal`] naming the path as written.
pub fn confine(path: &Path, boundary: &Boundary) -> Result<PathBuf, Refusal> {
    let written = lexical(path);
    let shown = || boundary.show(path);
    let real = resolve(&written).map_err(|()| Refusal::Loop(shown()))?;
    if boundary.trusted.iter().any(|t| real.starts_with(t)) {
        return Ok(real);
    }
    match real.strip_prefix(&boundary.root) {
        Ok(rest) if rest.components().any(|c| c.as_os_str() == ".git") => Err(Refusal::Git(shown())),
        Ok(_) => Ok(real),
        Err(_) if !boundary.holds_lexically(&written) => Err(Refusal::Leaves(shown())),
        Err(_) => Err(Refusal::Symlink(shown())),
    }
}

/// Refuses a value a repository puts into a path (a template variable): `.`, `..`, and
/// anything with a path separator or a NUL would move the path rather than name a file.
///
/// # Errors
/// Why, naming the value.
pub fn path_segment(value: &str) -> Result<(), String> {
    if value == "." || value == ".." {
        return Err(format!("`{value}` would name a directory, not a file"));
    }
    if value.contains(['/', '\\', '\0']) {
        return Err(format!("`{}` contains a path separator", value.escape_debug()));
    }
    Ok(())
}

/// `path` made absolute against the working directory, `.` and `..` folded without touching
/// the file system.
fn lexical(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The real path of the absolute `path`: each component in turn, every symlink followed (a
/// relative target from the link's directory), at most [`MAX_SYMLINKS`] of them. Components
/// from the first one that does not exist on are taken as written. `Err` on a loop.
fn resolve(path: &Path) -> Result<PathBuf, ()> {
    let mut out = PathBuf::new();
    let mut pending: VecDeque<OsString> = VecDeque::new();
    let mut hops = 0;
    let mut missing = false;
    let push_all = |pending: &mut VecDeque<OsString>, p: &Path, front: bool, out: &mut PathBuf| {
        let mut items = Vec::new();
        for c in p.components() {
            match c {
                Component::Prefix(_) | Component::RootDir => {
                    *out = PathBuf::from(c.as_os_str());
                    items.clear();
                }
                other => items.push(other.as_os_str().to_os_string()),
            }
        }
        if front {
            for i in items.into_iter().rev() {
                pending.push_front(i);
            }
        } else {
            pending.extend(items);
        }
    };
    push_all(&mut pending, path, false, &mut out);
    while let Some(c) = pending.pop_front() {
        if c == "." {
            continue;
        }
        if c == ".." {
            out.pop();
            continue;
        }
        let next = out.join(&c);
        if missing {
            out = next;
            continue;
        }
        match std::fs::symlink_metadata(&next) {
            Ok(m) if m.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINKS {
                    return Err(());
                }
                let Ok(target) = std::fs::read_link(&next) else { return Err(()) };
                push_all(&mut pending, &target, true, &mut out);
            }
            Ok(_) => out = next,
            Err(_) => {
                missing = true;
                out = next;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A repository (`.git`) with a file, and a directory outside it with a secret.
    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join("repo");
        let outside = t.path().join("outside");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("ci")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(repo.join("ci/a.yaml"), "a").unwrap();
        std::fs::write(outside.join("secret.yaml"), "s").unwrap();
        (t, repo, outside)
    }

    #[test]
    fn a_symlinked_directory_on_the_way_is_refused_not_only_the_last_component() {
        let (_t, repo, outside) = setup();
        symlink(&outside, repo.join("ci/dirlink")).unwrap();
        let b = Boundary::around(&repo.join("ci"));
        assert_eq!(b.root(), resolve(&repo).unwrap());
        let e = confine(&repo.join("ci/dirlink/secret.yaml"), &b).unwrap_err();
        assert_eq!(e, Refusal::Symlink("ci/dirlink/secret.yaml".into()));
        assert_eq!(e.to_string(), "`ci/dirlink/secret.yaml`: symlink leads out of the repository: not read");
        // Missing below the link: refused all the same, so existence outside is not told.
        assert!(matches!(confine(&repo.join("ci/dirlink/nope.yaml"), &b), Err(Refusal::Symlink(_))));
        assert_eq!(confine(&repo.join("ci/a.yaml"), &b).unwrap(), resolve(&repo.join("ci/a.yaml")).unwrap());
    }

    #[test]
    fn dotdot_dot_git_dangling_links_and_loops() {
        let (_t, repo, outside) = setup();
        let b = Boundary::around(&repo);
        assert_eq!(
            confine(&repo.join("ci/../../outside/secret.yaml"), &b),
            Err(Refusal::Leaves(repo.join("ci/../../outside/secret.yaml").display().to_string()))
        );
        assert_eq!(confine(&repo.join(".git/config"), &b), Err(Refusal::Git(".git/config".into())));
        symlink(".git", repo.join("g")).unwrap();
        assert_eq!(confine(&repo.join("g/config"), &b), Err(Refusal::Git("g/config".into())));
        // A dangling link out: refused whether its target exists or not.
        symlink(outside.join("nothing"), repo.join("dangling.yaml")).unwrap();
        assert_eq!(confine(&repo.join("dangling.yaml"), &b), Err(Refusal::Symlink("dangling.yaml".into())));
        symlink("loop2", repo.join("loop1")).unwrap();
        symlink("loop1", repo.join("loop2")).unwrap();
        assert_eq!(confine(&repo.join("loop1"), &b), Err(Refusal::Loop("loop1".into())));
        // A link that leaves and comes back is inside.
        symlink("../repo/ci/a.yaml", repo.join("back.yaml")).unwrap();
        assert!(confine(&repo.join("back.yaml"), &b).is_ok());
        // A missing file inside resolves to where it would be.
        assert_eq!(confine(&repo.join("ci/new.yaml"), &b).unwrap(), resolve(&repo.join("ci/new.yaml")).unwrap());
    }

    #[test]
    fn trusted_paths_and_exact_boundaries() {
        let (_t, repo, outside) = setup();
        symlink(&outside, repo.join("ci/dirlink")).unwrap();
        let b = Boundary::around(&repo).trusting(&outside);
        assert!(confine(&repo.join("ci/dirlink/secret.yaml"), &b).is_ok());
        let exact = Boundary::exactly(&repo.join("ci"));
        assert!(confine(&repo.join("ci/a.yaml"), &exact).is_ok());
        symlink("../x", repo.join("ci/up.yaml")).unwrap();
        assert_eq!(confine(&repo.join("ci/up.yaml"), &exact), Err(Refusal::Symlink("up.yaml".into())));
    }

    #[test]
    fn the_repository_is_found_from_the_anchor_s_real_location() {
        let (_t, repo, outside) = setup();
        // A link into another repository does not make that repository the boundary.
        std::fs::create_dir_all(outside.join(".git")).unwrap();
        symlink(&outside, repo.join("ci/other")).unwrap();
        let b = Boundary::around(&repo.join("ci"));
        assert!(matches!(confine(&repo.join("ci/other/secret.yaml"), &b), Err(Refusal::Symlink(_))));
    }

    #[test]
    fn template_values_that_move_the_path_are_refused() {
        for bad in [".", "..", "a/b", "a\\b", "x\0"] {
            assert!(path_segment(bad).is_err(), "{bad:?}");
        }
        for good in ["", "deployment", "apps", "v1", "a.b-c", "...x"] {
            assert!(path_segment(good).is_ok(), "{good:?}");
        }
    }
}
