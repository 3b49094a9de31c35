//! The reference a run uses, as the user named it — a `metadata.yaml` (or its directory) on
//! disk, or a git location read from the object database ([`driftlint_git::location`]) — and
//! opening it into a [`Root`] plus the name of its metadata file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::root::{GitRoot, Root};
use super::{LoadError, Reference, load_reference_in};
use driftlint_git as git;

/// Where a reference is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// `metadata.yaml`, or the directory holding it.
    Path(PathBuf),
    /// A file or directory of a commit (`git:REV:PATH`, `git+file:///repo@REV:PATH`).
    Git(git::Location),
}

impl Location {
    /// A git location when `text` is written as one, else a path as given.
    pub fn parse(text: &str) -> Result<Location, git::LocationError> {
        Ok(match git::parse_location(text)? {
            Some(at) => Location::Git(at),
            None => Location::Path(PathBuf::from(text)),
        })
    }

    /// The location as users read it.
    pub fn display(&self) -> String {
        match self {
            Location::Path(p) => p.display().to_string(),
            Location::Git(at) => at.written.clone(),
        }
    }
}

/// A reference found but not yet loaded: its files and the name of its metadata file.
#[derive(Clone, Debug)]
pub struct Opened {
    pub root: Root,
    /// The metadata file's name inside [`Opened::root`].
    pub metadata: String,
    /// The metadata file as diagnostics show it.
    pub path: PathBuf,
    /// The directory of a work tree that holds the reference's files (for a git location in a
    /// repository with a work tree, that work tree's copy): never a manifest input.
    pub work_dir: Option<PathBuf>,
}

/// A reference read from git, as reports map its files back to the repository: its files
/// are shown as `{prefix}{name}` and a copy (at the checked-out revision, which may differ)
/// is `{work_dir}/{name}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pinned {
    /// What the reference's file names start with, e.g. `git:v1:reference/`.
    pub prefix: String,
    /// The work tree directory that holds the same files.
    pub work_dir: PathBuf,
    /// The commit the files were read at, full hex.
    pub commit: String,
}

impl Opened {
    /// How the files of a reference read from git map to the work tree; `None` for a
    /// directory reference or a repository without a work tree copy of the directory.
    pub fn pinned(&self) -> Option<Pinned> {
        match &self.root {
            Root::Git(g) => Some(Pinned {
                prefix: g.display_prefix.clone(),
                work_dir: self.work_dir.clone()?,
                commit: g.commit.clone(),
            }),
            Root::Dir(_) => None,
        }
    }

    /// The metadata file's text (lossy UTF-8, as the loader reads it), if it can be read.
    pub fn metadata_text(&self) -> Option<String> {
        self.root.read_named(&self.metadata).ok().map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// Loads and validates the reference (see [`super::load_reference`]).
    pub fn load(&self) -> Result<Reference, LoadError> {
        load_reference_in(self.root.clone(), &self.metadata, self.path.clone())
    }
}

/// Why a reference could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("reference {} does not exist", .0.display())]
    NotFound(PathBuf),
    #[error(transparent)]
    Git(#[from] git::Error),
    /// A directory's `metadata.yaml` that leads out of it.
    #[error("reference {0}")]
    Refused(String),
}

/// The `metadata.yaml` a reference path names: the file itself, or `metadata.yaml` in a
/// directory.
pub fn metadata_path(reference: &Path) -> PathBuf {
    if reference.is_dir() { reference.join("metadata.yaml") } else { reference.to_path_buf() }
}

/// Finds the reference's files. `start` is where a `git:` location looks for its repository
/// (the configuration file's directory, or the working directory). A git location is read
/// into memory here, once; nothing is checked out.
pub fn open(location: &Location, start: &Path) -> Result<Opened, OpenError> {
    match location {
        Location::Path(p) => {
            let path = metadata_path(p);
            // A directory's metadata file is one of the directory's files: it may not leave it
            // (a file named directly was chosen on the command line or confined by the
            // configuration that named it).
            if path != *p {
                use driftlint_core::confine::{Boundary, confine};
                confine(&path, &Boundary::exactly(p)).map_err(|refusal| OpenError::Refused(refusal.to_string()))?;
            }
            if !path.is_file() {
                return Err(OpenError::NotFound(path));
            }
            let metadata = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
            let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
            Ok(Opened { root: Root::Dir(dir.clone()), metadata, path, work_dir: Some(dir) })
        }
        Location::Git(at) => {
            let snapshot = git::load_snapshot(at, start)?;
            let dir_prefix = if snapshot.dir.is_empty() { String::new() } else { format!("{}/", snapshot.dir) };
            let root = Root::Git(Arc::new(GitRoot {
                tree: snapshot.tree,
                display_prefix: format!("{}{dir_prefix}", at.prefix),
                commit: snapshot.commit.clone(),
            }));
            if !root.exists(&snapshot.file) {
                let shown = format!("{}{}", dir_prefix, snapshot.file);
                return Err(
                    git::Error::PathNotFound { path: shown, rev: at.rev.clone(), commit: snapshot.commit }.into()
                );
            }
            let path = root.display(&snapshot.file);
            let work_dir = Some(snapshot.repo.join(&snapshot.dir)).filter(|d| d.is_dir());
            Ok(Opened { root, metadata: snapshot.file, path, work_dir })
        }
    }
}
