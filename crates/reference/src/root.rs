//! Where a reference's files are read from: a directory on disk, or a directory of a commit
//! held in memory ([`driftlint_git::Tree`]). The loader ([`super::load`]) and the glob
//! ([`super::fs`]) see only the three operations Go's `fs.FS` gives kube-compare — read a
//! file, list a directory, test a path — plus the name a file is shown under in diagnostics.
//!
//! Both kinds keep a reference inside itself: on disk, every read and every match goes through
//! [`driftlint_core::confine`] with the directory as its boundary (a match whose real path
//! leaves it is dropped, a read refused); in a git tree, a symlink whose target leaves it
//! resolves to nothing.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use driftlint_git::Tree;

/// The reference root: the metadata file's directory.
#[derive(Clone, Debug)]
pub enum Root {
    /// A directory on disk.
    Dir(PathBuf),
    /// A directory of a commit, read from a git object database.
    Git(Arc<GitRoot>),
}

/// A reference directory read from git, and how its files are named for users.
#[derive(Debug)]
pub struct GitRoot {
    pub tree: Tree,
    /// What a file name inside the tree is prefixed with for display, e.g.
    /// `git:v1.0:reference/` (names then read `git:v1.0:reference/metadata.yaml`).
    pub display_prefix: String,
    /// The commit the tree was read at, full hex.
    pub commit: String,
}

impl Root {
    /// The path diagnostics show for `name` (a `/` path inside the reference).
    pub fn display(&self, name: &str) -> PathBuf {
        match self {
            Root::Dir(dir) => dir.join(name),
            Root::Git(g) => PathBuf::from(format!("{}{name}", g.display_prefix)),
        }
    }

    /// The file's bytes (on disk: a regular file of at most [`driftlint_core::input::MAX_FILE_BYTES`],
    /// inside the reference directory once symlinks are resolved: templates and function
    /// files).
    pub fn read(&self, name: &str) -> io::Result<Vec<u8>> {
        match self {
            Root::Dir(dir) => {
                let real = confined(dir, name).map_err(io::Error::other)?;
                driftlint_core::input::read_bounded(&real, driftlint_core::input::MAX_FILE_BYTES)
            }
            Root::Git(g) => g.tree.read(name).map(<[u8]>::to_vec),
        }
    }

    /// The metadata file's bytes: the file the location named (on the command line, or in a
    /// configuration that confined it), or `metadata.yaml` of a directory, which
    /// [`super::location::open`] confined to that directory before. Bounded like [`Root::read`].
    pub fn read_named(&self, name: &str) -> io::Result<Vec<u8>> {
        match self {
            Root::Dir(dir) => {
                driftlint_core::input::read_bounded(&dir.join(name), driftlint_core::input::MAX_FILE_BYTES)
            }
            Root::Git(g) => g.tree.read(name).map(<[u8]>::to_vec),
        }
    }

    /// Whether `name` exists (a file or a directory).
    pub fn exists(&self, name: &str) -> bool {
        match self {
            Root::Dir(dir) => dir.join(name).exists(),
            Root::Git(g) => g.tree.exists(name),
        }
    }

    /// The entries of directory `dir`, sorted; `None` when it cannot be listed.
    pub fn read_dir(&self, dir: &str) -> Option<Vec<String>> {
        match self {
            Root::Dir(root) => {
                let entries = std::fs::read_dir(root.join(dir)).ok()?;
                let mut names: Vec<String> = entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect();
                names.sort();
                Some(names)
            }
            Root::Git(g) => g.tree.read_dir(dir),
        }
    }

    /// Whether `name` stays inside the reference once symlinks are resolved.
    pub fn contains(&self, name: &str) -> bool {
        match self {
            Root::Dir(root) => confined(root, name).is_ok_and(|real| real.exists()),
            Root::Git(g) => g.tree.exists(name),
        }
    }

    /// The commit a git reference was read at.
    pub fn commit(&self) -> Option<&str> {
        match self {
            Root::Dir(_) => None,
            Root::Git(g) => Some(&g.commit),
        }
    }
}

/// `name` inside the reference directory `root`, resolved for real ([`driftlint_core::confine`]
/// with the directory itself as the boundary).
fn confined(root: &Path, name: &str) -> Result<PathBuf, driftlint_core::confine::Refusal> {
    use driftlint_core::confine::{Boundary, confine};
    confine(&root.join(name), &Boundary::exactly(root))
}
