//! A directory of a commit held in memory: every path below it with its blob bytes, its
//! symlink target or its subdirectory mark, and the file-system operations a reference loader
//! needs (read, list, exists) with symlinks followed the way the OS would follow them in a
//! checkout — except that a link whose target leaves the directory (absolute, or `..` above
//! it) resolves to nothing: a reference read from git cannot reach outside itself either.
//!
//! Knows nothing of gix; [`super::read`] fills it.

use std::collections::BTreeMap;
use std::io;

/// How many symlinks one lookup may follow (Linux's `MAXSYMLINKS` is 40).
const MAX_LINKS: usize = 40;

/// One path of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    File(Vec<u8>),
    /// A symlink and its target as stored in the blob.
    Link(String),
    /// A directory (a submodule is an empty one, as in a checkout without it).
    Dir,
}

/// The files of one directory of a commit, by `/`-separated path relative to it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    entries: BTreeMap<String, Entry>,
}

impl Tree {
    /// Adds a path (its parent directories must be added too, as the reader does).
    pub fn insert(&mut self, path: String, entry: Entry) {
        self.entries.insert(path, entry);
    }

    /// Number of paths held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The path `name` designates after following symlinks, if it exists inside the tree
    /// (`""` is the tree's own root).
    pub fn resolve(&self, name: &str) -> Option<String> {
        let mut pending: Vec<String> = name.split('/').rev().map(str::to_owned).collect();
        let mut current: Vec<String> = Vec::new();
        let mut links = 0;
        while let Some(part) = pending.pop() {
            match part.as_str() {
                "" | "." => continue,
                ".." => {
                    // Above the tree's root: outside the reference.
                    current.pop()?;
                    continue;
                }
                _ => current.push(part),
            }
            match self.entries.get(&current.join("/"))? {
                Entry::Link(target) => {
                    links += 1;
                    if links > MAX_LINKS || target.starts_with('/') {
                        return None;
                    }
                    current.pop();
                    pending.extend(target.split('/').rev().map(str::to_owned));
                }
                Entry::File(_) if !pending.iter().all(|p| p.is_empty() || p == ".") => return None,
                Entry::File(_) | Entry::Dir => {}
            }
        }
        Some(current.join("/"))
    }

    /// The paths of the regular files held (symlinks not followed), sorted.
    pub fn files(&self) -> Vec<String> {
        self.entries.iter().filter(|(_, e)| matches!(e, Entry::File(_))).map(|(k, _)| k.clone()).collect()
    }

    /// Whether `name` exists (following symlinks).
    pub fn exists(&self, name: &str) -> bool {
        self.resolve(name).is_some()
    }

    /// The bytes of file `name`, with the errors `open(2)` would give.
    pub fn read(&self, name: &str) -> io::Result<&[u8]> {
        let resolved = self.resolve(name).ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        match self.entries.get(&resolved) {
            Some(Entry::File(bytes)) => Ok(bytes),
            None if resolved.is_empty() => Err(io::ErrorKind::IsADirectory.into()),
            Some(Entry::Dir) => Err(io::ErrorKind::IsADirectory.into()),
            _ => Err(io::ErrorKind::NotFound.into()),
        }
    }

    /// The names in directory `dir` (following symlinks), sorted; `None` when it is not one.
    pub fn read_dir(&self, dir: &str) -> Option<Vec<String>> {
        let resolved = self.resolve(dir)?;
        if !resolved.is_empty() && self.entries.get(&resolved) != Some(&Entry::Dir) {
            return None;
        }
        let prefix = if resolved.is_empty() { String::new() } else { format!("{resolved}/") };
        let names = self
            .entries
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter_map(|(k, _)| {
                let rest = &k[prefix.len()..];
                (!rest.contains('/')).then(|| rest.to_owned())
            })
            .collect();
        Some(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Tree {
        let mut t = Tree::default();
        for (p, e) in [
            ("a.yaml", Entry::File(b"a".to_vec())),
            ("sub", Entry::Dir),
            ("sub/b.yaml", Entry::File(b"b".to_vec())),
            ("sub/up.yaml", Entry::Link("../a.yaml".into())),
            ("alias", Entry::Link("sub".into())),
            ("escape.yaml", Entry::Link("../outside.yaml".into())),
            ("abs.yaml", Entry::Link("/etc/passwd".into())),
            ("loop", Entry::Link("loop".into())),
            ("sub2", Entry::Dir),
        ] {
            t.insert(p.into(), e);
        }
        t
    }

    #[test]
    fn reads_files_and_follows_links_inside() {
        let t = tree();
        assert_eq!(t.read("a.yaml").unwrap(), b"a");
        assert_eq!(t.read("sub/up.yaml").unwrap(), b"a");
        assert_eq!(t.read("alias/b.yaml").unwrap(), b"b");
        assert_eq!(t.resolve("alias/../a.yaml").as_deref(), Some("a.yaml"));
        assert_eq!(t.read("sub").unwrap_err().kind(), io::ErrorKind::IsADirectory);
        assert!(t.exists("sub2"));
    }

    #[test]
    fn links_out_of_the_tree_resolve_to_nothing() {
        let t = tree();
        for name in ["escape.yaml", "abs.yaml", "loop", "../a.yaml", "a.yaml/x", "missing"] {
            assert!(!t.exists(name), "{name}");
            assert_eq!(t.read(name).unwrap_err().kind(), io::ErrorKind::NotFound, "{name}");
        }
    }

    #[test]
    fn lists_directories() {
        let t = tree();
        assert_eq!(t.read_dir(".").unwrap(), ["a.yaml", "abs.yaml", "alias", "escape.yaml", "loop", "sub", "sub2"]);
        assert_eq!(t.read_dir("alias").unwrap(), ["b.yaml", "up.yaml"]);
        assert_eq!(t.read_dir("sub2").unwrap(), Vec::<String>::new());
        assert_eq!(t.read_dir("a.yaml"), None);
    }
}
