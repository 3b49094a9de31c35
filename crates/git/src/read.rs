//! Reading a directory of a commit from the object database, without a checkout: open (or
//! discover) the repository, resolve the revision to a commit, find the path, and copy the
//! directory's blobs into a [`Tree`] — bounded in file count and bytes, since a pinned
//! reference is untrusted input like any other.

use std::path::{Path, PathBuf};

use gix::objs::tree::EntryKind;

use super::Error;
use super::location::{Location, Repo};
use super::tree::{Entry, Tree};

/// The most paths a directory read from git (a reference, a schema or policy directory) may
/// hold; a larger one is refused with an error, never cut.
pub const MAX_ENTRIES: usize = 20_000;
/// The most blob bytes a reference directory may hold (references are a few hundred KiB).
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// A directory of a commit, read into memory.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The repository's path (its work tree, else its git directory).
    pub repo: PathBuf,
    /// The resolved commit, full hex.
    pub commit: String,
    /// The directory inside the repository (`""` for the root).
    pub dir: String,
    /// The file the location named inside `dir` (`metadata.yaml` when it named a directory).
    pub file: String,
    pub tree: Tree,
}

/// The repository a location designates; `start` is where `git:` locations search upwards
/// from.
pub fn open_repository(repo: &Repo, start: &Path) -> Result<gix::Repository, Error> {
    let start = if start.as_os_str().is_empty() { Path::new(".") } else { start };
    match repo {
        Repo::Discover => gix::discover(start)
            .map_err(|e| Error::NotARepository { path: start.to_path_buf(), message: first_line(&e.to_string()) }),
        Repo::Path(p) => {
            if !p.exists() {
                return Err(Error::NotARepository { path: p.clone(), message: "no such directory".into() });
            }
            gix::open(p.clone())
                .map_err(|e| Error::NotARepository { path: p.clone(), message: first_line(&e.to_string()) })
        }
    }
}

/// The commit `rev` names (tags are peeled), as full hex.
pub fn resolve_commit(repo: &gix::Repository, rev: &str) -> Result<String, Error> {
    Ok(commit_of(repo, rev)?.id.to_string())
}

fn commit_of<'r>(repo: &'r gix::Repository, rev: &str) -> Result<gix::Commit<'r>, Error> {
    let unknown = |message: String| Error::Revision { rev: rev.to_owned(), repo: repo_path(repo), message };
    let id = repo.rev_parse_single(rev).map_err(|e| unknown(causes(&e)))?;
    let object = id.object().map_err(|e| unknown(first_line(&e.to_string())))?;
    let kind = object.kind;
    object.peel_to_commit().map_err(|_| unknown(format!("names a {kind}, not a commit")))
}

/// Reads what `location` names: the directory holding the metadata file, at the resolved
/// commit. `start` is where a `git:` location looks for its repository.
pub fn load_snapshot(location: &Location, start: &Path) -> Result<Snapshot, Error> {
    let repo = open_repository(&location.repo, start)?;
    let commit = commit_of(&repo, &location.rev)?;
    let commit_hex = commit.id.to_string();
    let read_error = |message: String| Error::Read { location: location.written.clone(), message };
    let root = commit.tree().map_err(|e| read_error(first_line(&e.to_string())))?;
    let missing =
        || Error::PathNotFound { path: location.path.clone(), rev: location.rev.clone(), commit: commit_hex.clone() };
    let (dir_id, dir, file) = if location.path.is_empty() {
        (root.id, String::new(), "metadata.yaml".to_owned())
    } else {
        let entry = root
            .lookup_entry_by_path(&location.path)
            .map_err(|e| read_error(first_line(&e.to_string())))?
            .ok_or_else(missing)?;
        if entry.mode().is_tree() {
            (entry.object_id(), location.path.clone(), "metadata.yaml".to_owned())
        } else {
            let (dir, file) = match location.path.rfind('/') {
                Some(i) => (&location.path[..i], &location.path[i + 1..]),
                None => ("", location.path.as_str()),
            };
            let dir_id = if dir.is_empty() {
                root.id
            } else {
                root.lookup_entry_by_path(dir)
                    .map_err(|e| read_error(first_line(&e.to_string())))?
                    .ok_or_else(missing)?
                    .object_id()
            };
            (dir_id, dir.to_owned(), file.to_owned())
        }
    };
    let tree = read_tree(&repo, dir_id).map_err(read_error)?;
    Ok(Snapshot { repo: repo_path(&repo), commit: commit_hex, dir, file, tree })
}

/// Copies the tree `id` and everything below it into memory, within the bounds.
fn read_tree(repo: &gix::Repository, id: gix::ObjectId) -> Result<Tree, String> {
    let mut out = Tree::default();
    let mut bytes = 0u64;
    let mut stack: Vec<(String, gix::ObjectId)> = vec![(String::new(), id)];
    while let Some((prefix, id)) = stack.pop() {
        let tree = repo.find_tree(id).map_err(|e| first_line(&e.to_string()))?;
        for entry in tree.iter() {
            let entry = entry.map_err(|e| first_line(&e.to_string()))?;
            let name = String::from_utf8_lossy(entry.filename()).into_owned();
            let path = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            if out.len() >= MAX_ENTRIES {
                return Err(format!(
                    "the directory holds more than {MAX_ENTRIES} files and directories: refused, not read in part"
                ));
            }
            let entry_id = entry.object_id();
            let value = match entry.mode().kind() {
                EntryKind::Tree => {
                    stack.push((path.clone(), entry_id));
                    Entry::Dir
                }
                EntryKind::Commit => Entry::Dir,
                kind @ (EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Link) => {
                    let size = repo.find_header(entry_id).map_err(|e| first_line(&e.to_string()))?.size();
                    bytes += size;
                    if bytes > MAX_BYTES {
                        return Err(format!(
                            "the directory is larger than {} MiB (at `{path}`)",
                            MAX_BYTES / (1024 * 1024)
                        ));
                    }
                    let data = repo.find_blob(entry_id).map_err(|e| first_line(&e.to_string()))?.take_data();
                    if kind == EntryKind::Link {
                        Entry::Link(String::from_utf8_lossy(&data).into_owned())
                    } else {
                        Entry::File(data)
                    }
                }
            };
            out.insert(path, value);
        }
    }
    Ok(out)
}

/// The repository as users know it: its work tree, else its git directory (absolute, since
/// a discovered `.` says little in a message).
fn repo_path(repo: &gix::Repository) -> PathBuf {
    let p = repo.workdir().unwrap_or_else(|| repo.git_dir());
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// What a revision error says below gix's generic "couldn't parse revision": the causes
/// (a ref that does not exist, an ambiguous or unknown object prefix), each once.
fn causes(e: &gix::Error) -> String {
    let mut seen: Vec<String> = Vec::new();
    for cause in e.iter_errors().skip(1) {
        let text = first_line(&cause.to_string());
        if !seen.contains(&text) {
            seen.push(text);
        }
    }
    if seen.is_empty() { first_line(&e.to_string()) } else { seen.join("; ") }
}

/// gix errors can carry a chain on several lines; the first says what went wrong.
fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).to_owned()
}

/// The bytes of the file `location` names (symlinks inside the repository are followed), and
/// the commit it was read at. For diff configs and overrides given as git locations.
pub fn load_file(location: &Location, start: &Path) -> Result<(Vec<u8>, String), Error> {
    let dir_location = Location {
        path: location.path.rsplit_once('/').map_or(String::new(), |(d, _)| d.to_owned()),
        ..location.clone()
    };
    let name = location.path.rsplit('/').next().unwrap_or_default();
    let snapshot = load_snapshot(&dir_location, start)?;
    match snapshot.tree.read(name) {
        Ok(bytes) => Ok((bytes.to_vec(), snapshot.commit)),
        Err(_) => {
            Err(Error::PathNotFound { path: location.path.clone(), rev: location.rev.clone(), commit: snapshot.commit })
        }
    }
}

/// The text of a file written as a git location (`git:REV:PATH`, `git+file:///repo@REV:PATH`,
/// lossy UTF-8), read from the object database; `None` when `written` is a plain path, which
/// its own loader reads from disk. `start` is where `git:` locations find their repository.
pub fn location_text(written: &str, start: &Path) -> Result<Option<String>, Error> {
    let Some(at) = super::parse_location(written)? else { return Ok(None) };
    let (bytes, _) = load_file(&at, start)?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}
