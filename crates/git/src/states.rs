//! The states of a repository that changed-file scopes (`driftlint check --staged`,
//! `--base REV`) compare: discovering the repository, the states themselves — the index,
//! a commit's tree, the merge-base of a revision and `HEAD` — and the inputs of a state read
//! from blobs (never from the work tree).
//!
//! A [`State`] is one state as a map from repository-relative path to blob. The inputs of
//! a snapshot are selected the way a directory walk selects them in the work tree (the same
//! paths, include globs and hidden-file rule) and carry the paths the user would see from the
//! work tree, so that findings at two states compare by path. Tracked files are taken whatever
//! `.gitignore` says, as git itself does.
//!
//! This module does not know about findings; the `check` runner's scopes decide what is shown.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use gix::ObjectId;

use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::input::{Collected, Source, SourcePath, WalkOptions};

/// A scoped check that cannot run.
#[derive(Debug, thiserror::Error)]
pub enum ScopeError {
    #[error("{} is not in a git repository (--staged and --base need one): {message}", path.display())]
    NotARepository { path: PathBuf, message: String },
    #[error("the repository at {} has no work tree (--staged and --base need one)", .0.display())]
    Bare(PathBuf),
    #[error("{} is outside the git repository at {}", path.display(), root.display())]
    OutsideRepository { path: PathBuf, root: PathBuf },
    #[error(
        "cannot find the merge-base of {rev} and HEAD: the clone is shallow; fetch full history (actions/checkout `fetch-depth: 0`, or `git fetch --unshallow`)"
    )]
    Shallow { rev: String },
    #[error("unknown revision `{rev}`: {message}")]
    UnknownRevision { rev: String, message: String },
    #[error("{rev} and HEAD have no common ancestor")]
    NoMergeBase { rev: String },
    #[error("HEAD has no commit yet: --base needs one")]
    UnbornHead,
    #[error("{path} has merge conflicts in the index; resolve them first")]
    Conflict { path: String },
    #[error("git: {what}: {message}")]
    Git { what: String, message: String },
    #[error("input path {} does not exist in the work tree, the index or {base}", path.display())]
    Nowhere { path: PathBuf, base: String },
}

fn git_error(what: &str) -> impl FnOnce(gix::Error) -> ScopeError + '_ {
    move |e| ScopeError::Git { what: what.to_string(), message: e.to_string() }
}

/// One state of the repository: repository-relative path (`/`-separated) → blob.
#[derive(Clone, Debug, Default)]
pub struct State {
    entries: BTreeMap<String, ObjectId>,
    /// Symbolic links: path → the blob holding the link's target.
    links: BTreeMap<String, ObjectId>,
    /// Submodules (gitlinks), which no mode reads.
    submodules: std::collections::BTreeSet<String>,
}

impl State {
    /// The blob at a repository-relative path.
    pub fn get(&self, path: &str) -> Option<ObjectId> {
        self.entries.get(path).copied()
    }

    /// The number of files.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether a directory (a repository-relative path, without a trailing `/`) holds a file.
    pub fn has_dir(&self, path: &str) -> bool {
        holds_under(&self.entries, path)
    }

    /// Whether a repository-relative path is a file, a link or a directory here.
    pub fn holds(&self, path: &str) -> bool {
        path.is_empty()
            || self.entries.contains_key(path)
            || self.links.contains_key(path)
            || holds_under(&self.entries, path)
            || holds_under(&self.links, path)
    }

    /// Every file: repository-relative path and blob.
    pub fn files(&self) -> impl Iterator<Item = (&str, ObjectId)> {
        self.entries.iter().map(|(p, id)| (p.as_str(), *id))
    }
}

/// Whether `map` has a path below the directory `dir`.
fn holds_under(map: &BTreeMap<String, ObjectId>, dir: &str) -> bool {
    let prefix = format!("{dir}/");
    map.range(prefix.clone()..).next().is_some_and(|(f, _)| f.starts_with(&prefix))
}

/// A repository with a work tree, and the working directory that relative paths start from.
pub struct Repository {
    repo: gix::Repository,
    /// The work tree, canonical.
    root: PathBuf,
    /// The working directory, canonical.
    cwd: PathBuf,
}

impl std::fmt::Debug for Repository {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repository").field("root", &self.root).finish()
    }
}

impl Repository {
    /// The repository holding `start` (a file or directory; relative to the working directory).
    pub fn discover(start: &Path) -> Result<Repository, ScopeError> {
        let cwd = std::env::current_dir()
            .and_then(|c| c.canonicalize())
            .map_err(|e| ScopeError::Git { what: "working directory".into(), message: e.to_string() })?;
        let abs = normalize(&cwd.join(start));
        // A path the work tree no longer has (removed by the change) is found from the nearest
        // directory above it that exists.
        let dir = abs.ancestors().find(|d| d.is_dir()).map_or_else(|| cwd.clone(), Path::to_path_buf);
        let repo = gix::discover(&dir)
            .map_err(|e| ScopeError::NotARepository { path: start.to_path_buf(), message: e.to_string() })?;
        let root = repo.workdir().ok_or_else(|| ScopeError::Bare(repo.git_dir().to_path_buf()))?;
        let root = root
            .canonicalize()
            .map_err(|e| ScopeError::Git { what: format!("work tree {}", root.display()), message: e.to_string() })?;
        Ok(Repository { repo, root, cwd })
    }

    /// The work tree.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` (relative to the working directory, or absolute) relative to the work tree,
    /// `/`-separated; `None` when it is outside.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let abs = normalize(&self.cwd.join(path));
        let rel = abs.strip_prefix(&self.root).ok()?;
        Some(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
    }

    /// The commit `HEAD` points to; `None` in a repository without commits.
    pub fn head(&self) -> Result<Option<ObjectId>, ScopeError> {
        let mut head = self.repo.head().map_err(git_error("HEAD"))?;
        if head.is_unborn() {
            return Ok(None);
        }
        Ok(Some(head.peel_to_commit().map_err(git_error("HEAD"))?.id))
    }

    /// The merge-base of `rev` and `HEAD`: where a pull request from `HEAD` into `rev` starts.
    /// A shallow clone that lacks it gets an error saying how to fetch the history.
    pub fn merge_base(&self, rev: &str) -> Result<ObjectId, ScopeError> {
        let shallow = self.repo.is_shallow().unwrap_or(false);
        let shallow_error = || ScopeError::Shallow { rev: rev.to_string() };
        let target =
            self.repo.rev_parse_single(rev).and_then(|id| id.object()).and_then(|o| o.peel_to_commit()).map(|c| c.id);
        let target = match target {
            Ok(id) => id,
            // A shallow PR checkout usually lacks the base branch altogether.
            Err(_) if shallow => return Err(shallow_error()),
            Err(e) => return Err(ScopeError::UnknownRevision { rev: rev.to_string(), message: e.to_string() }),
        };
        let head = self.head()?.ok_or(ScopeError::UnbornHead)?;
        match self.repo.merge_base(target, head) {
            Ok(Some(id)) => Ok(id.detach()),
            // The walk stopped at the shallow boundary (or a missing parent) before meeting.
            Ok(None) | Err(_) if shallow => Err(shallow_error()),
            Ok(None) => Err(ScopeError::NoMergeBase { rev: rev.to_string() }),
            Err(e) => Err(git_error("merge-base")(e)),
        }
    }

    /// The files of a commit's tree (`None`: the empty tree of a repository without commits).
    pub fn tree_snapshot(&self, commit: Option<ObjectId>) -> Result<State, ScopeError> {
        let Some(commit) = commit else { return Ok(State::default()) };
        let what = format!("tree of {}", commit.to_hex_with_len(12));
        let tree = self.repo.find_commit(commit).and_then(|c| c.tree()).map_err(git_error(&what))?;
        let files = tree.traverse().breadthfirst.files().map_err(git_error(&what))?;
        let mut snapshot = State::default();
        for e in files {
            let path = e.filepath.to_string();
            if e.mode.is_link() {
                snapshot.links.insert(path, e.oid);
            } else if e.mode.is_commit() {
                snapshot.submodules.insert(path);
            } else if e.mode.is_blob() {
                snapshot.entries.insert(path, e.oid);
            }
        }
        Ok(snapshot)
    }

    /// The files of the index: what the next commit holds (staged contents).
    pub fn index_snapshot(&self) -> Result<State, ScopeError> {
        let index = self.repo.index_or_empty().map_err(git_error("index"))?;
        let mut snapshot = State::default();
        for entry in index.entries() {
            let path = entry.path(&index).to_string();
            if entry.stage_raw() != 0 {
                return Err(ScopeError::Conflict { path });
            }
            let mode = entry.mode;
            if mode == gix::index::entry::Mode::FILE || mode == gix::index::entry::Mode::FILE_EXECUTABLE {
                snapshot.entries.insert(path, entry.id);
            } else if mode == gix::index::entry::Mode::SYMLINK {
                snapshot.links.insert(path, entry.id);
            } else if mode == gix::index::entry::Mode::COMMIT {
                snapshot.submodules.insert(path);
            }
        }
        Ok(snapshot)
    }

    /// The text of a blob; `Err` with a message when it cannot be read or is not UTF-8.
    /// A blob over [`driftlint_core::input::MAX_FILE_BYTES`] is refused from its header, unread, as a
    /// work-tree file of that size is.
    pub fn blob_text(&self, id: ObjectId) -> Result<String, String> {
        let size = self.repo.find_header(id).map_err(|e| e.to_string())?.size();
        if size > driftlint_core::input::MAX_FILE_BYTES {
            return Err(
                driftlint_core::input::Refused::TooLarge { limit: driftlint_core::input::MAX_FILE_BYTES }.to_string()
            );
        }
        let blob = self.repo.find_blob(id).map_err(|e| e.to_string())?;
        String::from_utf8(blob.detach().data).map_err(|e| driftlint_core::input::utf8_message(e.as_bytes(), &e))
    }

    /// The inputs `paths` name in a snapshot, selected as a work-tree walk would select them
    /// (named files always; in directories, files matching the include globs outside hidden
    /// directories), with the paths a work-tree walk would give them. A path missing from the
    /// snapshot is a state where it does not exist yet (or any more): it yields nothing. `-`
    /// (standard input) has no state in git and is skipped: the CLI refuses it with a scope.
    pub fn load_sources(
        &self,
        snapshot: &State,
        paths: &[PathBuf],
        walk: &WalkOptions,
    ) -> Result<Collected, ScopeError> {
        self.collect(snapshot, paths, walk, true)
    }

    /// The inputs [`Repository::load_sources`] would take, with empty texts: which files a walk
    /// selects, without reading them.
    pub fn select_sources(
        &self,
        snapshot: &State,
        paths: &[PathBuf],
        walk: &WalkOptions,
    ) -> Result<Collected, ScopeError> {
        self.collect(snapshot, paths, walk, false)
    }

    fn collect(
        &self,
        snapshot: &State,
        paths: &[PathBuf],
        walk: &WalkOptions,
        read: bool,
    ) -> Result<Collected, ScopeError> {
        let types = driftlint_core::input::include_types(&walk.include);
        let mut out = Collected::default();
        for path in paths.iter().filter(|p| p.as_os_str() != "-") {
            let rel = self
                .relative(path)
                .ok_or_else(|| ScopeError::OutsideRepository { path: path.clone(), root: self.root.clone() })?;
            if let Some(id) = snapshot.get(&rel) {
                self.push_blob(path.clone(), id, read, &mut out);
                continue;
            }
            if snapshot.links.contains_key(&rel) {
                self.follow_link(snapshot, &rel, path.clone(), None, &mut out);
                continue;
            }
            let prefix = if rel.is_empty() { String::new() } else { format!("{rel}/") };
            // Files and links in path order, as a work-tree walk yields them.
            let files = snapshot.entries.range(prefix.clone()..).map(|(f, id)| (f, Some(*id)));
            let links = snapshot.links.range(prefix.clone()..).map(|(f, _)| (f, None));
            let mut entries: Vec<(&String, Option<ObjectId>)> = files
                .take_while(|(f, _)| f.starts_with(&prefix))
                .chain(links.take_while(|(f, _)| f.starts_with(&prefix)))
                .collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            for (file, id) in entries {
                let Some(rest) = file.strip_prefix(&prefix) else { continue };
                if rest.split('/').any(|c| c.starts_with('.')) {
                    continue;
                }
                if let Some(t) = &types
                    && !t.matched(rest, false).is_whitelist()
                {
                    continue;
                }
                match id {
                    Some(id) => self.push_blob(path.join(rest), id, read, &mut out),
                    None => self.follow_link(snapshot, file, path.join(rest), Some(&prefix), &mut out),
                }
            }
            for module in snapshot.submodules.range(prefix.clone()..).take_while(|m| m.starts_with(&prefix)) {
                out.diagnostics.push(Diagnostic::new(
                    Rule::IoError,
                    driftlint_core::diagnostic::Severity::Note,
                    SourcePath::File(strip_dot(path.join(&module[prefix.len()..]))),
                    None,
                    "a nested git repository (a submodule) is not walked; name it as a path to check it",
                ));
            }
        }
        Ok(out)
    }

    /// Reads one blob as the source `shown`, or says why it cannot.
    fn push_blob(&self, shown: PathBuf, id: ObjectId, read: bool, out: &mut Collected) {
        let sp = SourcePath::File(strip_dot(shown));
        if !read {
            out.sources.push(Source { path: sp, text: String::new() });
            return;
        }
        match self.blob_text(id) {
            Ok(text) => out.sources.push(Source { path: sp, text }),
            Err(message) => out.diagnostics.push(Diagnostic::error(
                Rule::IoError,
                sp.clone(),
                None,
                format!("cannot read {} from git: {message}", sp.display()),
            )),
        }
    }

    /// A symbolic link of a snapshot, selected as a work-tree walk selects it: a link to a file
    /// of the snapshot is read under the link's name, unless the walk (`walked`: its prefix)
    /// reaches the target by itself; a link out of the repository (or into `.git`) is refused;
    /// a dangling one or one to a directory is said so.
    fn follow_link(&self, snapshot: &State, link: &str, shown: PathBuf, walked: Option<&str>, out: &mut Collected) {
        let sp = SourcePath::File(strip_dot(shown));
        let Some(target) = snapshot.links.get(link).and_then(|id| self.blob_text(*id).ok()) else { return };
        let dir = link.rsplit_once('/').map_or("", |(d, _)| d);
        let mut parts: Vec<&str> =
            if target.starts_with('/') { Vec::new() } else { dir.split('/').filter(|p| !p.is_empty()).collect() };
        let mut escapes = target.starts_with('/');
        for c in target.split('/') {
            match c {
                "" | "." => {}
                ".." => escapes |= parts.pop().is_none(),
                c => parts.push(c),
            }
        }
        let resolved = parts.join("/");
        if escapes || parts.first() == Some(&".git") {
            // Named as written, as the work tree's walk names it: never where it leads.
            let message = driftlint_core::confine::Refusal::Symlink(sp.display().to_string()).to_string();
            out.diagnostics.push(Diagnostic::error(Rule::IoError, sp, None, message));
            return;
        }
        if walked.is_some_and(|prefix| resolved.starts_with(prefix)) && snapshot.entries.contains_key(&resolved) {
            return; // read under its own name
        }
        match snapshot.get(&resolved) {
            Some(id) => match self.blob_text(id) {
                Ok(text) => out.sources.push(Source { path: sp, text }),
                Err(message) => out.diagnostics.push(Diagnostic::error(Rule::IoError, sp, None, message)),
            },
            None => out.diagnostics.push(Diagnostic::new(
                Rule::IoError,
                driftlint_core::diagnostic::Severity::Note,
                sp,
                None,
                format!("symlink to {resolved}, which is no file of this state (a directory, or missing): not read"),
            )),
        }
    }
}

/// `./x` → `x`, as the check pipeline shows walked paths.
pub fn strip_dot(path: PathBuf) -> PathBuf {
    match path.strip_prefix(".") {
        Ok(rest) if !rest.as_os_str().is_empty() => rest.to_path_buf(),
        _ => path,
    }
}

/// `a/./b/../c` → `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_and_strip_dot() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(strip_dot(PathBuf::from("./app/x.yaml")), PathBuf::from("app/x.yaml"));
        assert_eq!(strip_dot(PathBuf::from(".")), PathBuf::from("."));
        assert_eq!(strip_dot(PathBuf::from("app")), PathBuf::from("app"));
    }

    #[test]
    fn include_globs_match_file_names_below_the_walk_root() {
        let t = driftlint_core::input::include_types(&["*.yaml".to_string()]).unwrap();
        assert!(t.matched("app/x.yaml", false).is_whitelist());
        assert!(!t.matched("app/x.txt", false).is_whitelist());
    }
}
