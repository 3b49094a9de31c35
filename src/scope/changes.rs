//! What changed between two states of the inputs (the base and the state being checked):
//! which files were added, modified, deleted or renamed, and per file the changed lines on
//! both sides — line diffs of the two texts with `similar` (Myers, as git diffs).
//!
//! States are given as [`Source`]s with the paths users see, so a change is looked up by the
//! path a finding points at. A deleted file paired with an added one whose text is at least
//! half the same (git's default rename threshold) is a rename: the new file is compared with
//! the old one instead of counting as entirely new.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use similar::{DiffTag, TextDiff};

use driftlint_core::input::{Source, SourcePath};

/// Lines of context around a change, as `git diff` shows them.
pub const CONTEXT_LINES: usize = 3;

/// How a file differs from the base.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Added,
    Modified,
    Deleted,
    /// Moved from this base path (and maybe edited).
    Renamed {
        from: PathBuf,
    },
}

/// One changed file. Line numbers are 1-based; ranges are half-open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    pub status: Status,
    /// Lines of the checked text that were added or modified.
    pub added: Vec<Range<usize>>,
    /// Lines of the checked text inside a diff hunk: changes with [`CONTEXT_LINES`] around.
    pub hunks: Vec<Range<usize>>,
    /// Lines of the base text that were removed or modified.
    pub removed: Vec<Range<usize>>,
}

impl FileChange {
    /// The change from `old` to `new`, line by line. Line endings do not count: a line that
    /// only went from CRLF to LF or back (a `core.autocrlf` checkout of an LF blob) is
    /// unchanged, as `git diff` shows it there.
    pub fn of(status: Status, old: &str, new: &str) -> FileChange {
        let (old, new) = (without_crlf(old), without_crlf(new));
        let diff = TextDiff::from_lines(old.as_ref(), new.as_ref());
        let one_based = |r: Range<usize>| r.start + 1..r.end + 1;
        let mut added = Vec::new();
        let mut removed = Vec::new();
        for op in diff.ops() {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            if tag == DiffTag::Equal {
                continue;
            }
            if !new_range.is_empty() {
                added.push(one_based(new_range));
            }
            if !old_range.is_empty() {
                removed.push(one_based(old_range));
            }
        }
        let hunks = diff
            .grouped_ops(CONTEXT_LINES)
            .iter()
            .filter_map(|group| {
                let first = group.first()?.new_range();
                let last = group.last()?.new_range();
                Some(one_based(first.start..last.end))
            })
            .filter(|r| !r.is_empty())
            .collect();
        FileChange { status, added, hunks, removed }
    }
}

/// `text` with CRLF line endings made LF (line numbers unchanged); no copy without a CR.
fn without_crlf(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') { text.replace("\r\n", "\n").into() } else { text.into() }
}

/// Every changed file, keyed by its path in the checked state (by its base path when deleted).
#[derive(Clone, Debug, Default)]
pub struct Changes {
    pub files: BTreeMap<PathBuf, FileChange>,
}

impl Changes {
    /// The change of a file at its checked-state path.
    pub fn get(&self, path: &Path) -> Option<&FileChange> {
        self.files.get(path)
    }

    /// The change of a file at its base path: modified and deleted files are where they were,
    /// renamed ones are found by their old path.
    pub fn by_base_path(&self, path: &Path) -> Option<&FileChange> {
        match self.files.get(path) {
            Some(c) if c.status != Status::Added && !matches!(c.status, Status::Renamed { .. }) => Some(c),
            _ => self.files.values().find(|c| matches!(&c.status, Status::Renamed { from } if from == path)),
        }
    }

    /// Base path → checked path of every renamed file.
    pub fn renames(&self) -> impl Iterator<Item = (&Path, &Path)> {
        self.files.iter().filter_map(|(to, c)| match &c.status {
            Status::Renamed { from } => Some((from.as_path(), to.as_path())),
            _ => None,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Adds the changes between two states; files are matched by path.
    pub fn add(&mut self, base: &[Source], checked: &[Source]) {
        let texts = |sources: &[Source]| -> BTreeMap<PathBuf, String> {
            sources
                .iter()
                .filter_map(|s| match &s.path {
                    SourcePath::File(p) => Some((p.clone(), s.text.clone())),
                    SourcePath::Stdin => None,
                })
                .collect()
        };
        let mut old = texts(base);
        let new = texts(checked);
        let mut added = Vec::new();
        for (path, text) in &new {
            match old.remove(path) {
                Some(before) if before == *text => {}
                Some(before) => {
                    self.files.insert(path.clone(), FileChange::of(Status::Modified, &before, text));
                }
                None => added.push(path.clone()),
            }
        }
        // What is left of `old` was deleted; pair deletions with additions into renames.
        // Quadratic, so bounded: a change that deletes and adds hundreds of files is treated
        // as deletions and additions.
        let pairable = old.len() * added.len() <= 10_000;
        for path in added {
            let text = &new[&path];
            let from = if pairable { best_rename(&old, text) } else { None };
            let change = match from {
                Some(from) => {
                    let before = old.remove(&from).unwrap_or_default();
                    FileChange::of(Status::Renamed { from }, &before, text)
                }
                None => FileChange::of(Status::Added, "", text),
            };
            self.files.insert(path, change);
        }
        for (path, before) in old {
            self.files.insert(path, FileChange::of(Status::Deleted, &before, ""));
        }
    }
}

/// The deleted file most like `text`, when at least half of it is the same.
fn best_rename(deleted: &BTreeMap<PathBuf, String>, text: &str) -> Option<PathBuf> {
    let mut best: Option<(f32, &PathBuf)> = None;
    for (path, before) in deleted {
        let ratio = if before == text { 1.0 } else { TextDiff::from_lines(before.as_str(), text).ratio() };
        if ratio >= 0.5 && best.is_none_or(|(r, _)| ratio > r) {
            best = Some((ratio, path));
        }
    }
    best.map(|(_, p)| p.clone())
}

/// Whether a 1-based line falls in one of the ranges.
pub fn contains(ranges: &[Range<usize>], line: usize) -> bool {
    ranges.iter().any(|r| r.contains(&line))
}

/// Whether two 1-based line ranges overlap.
pub fn overlaps(ranges: &[Range<usize>], lines: &Range<usize>) -> bool {
    ranges.iter().any(|r| r.start < lines.end && lines.start < r.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(path: &str, text: &str) -> Source {
        Source { path: SourcePath::File(PathBuf::from(path)), text: text.to_string() }
    }

    #[test]
    fn added_removed_and_hunk_lines() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
        let new = "a\nb\nc\nd\ne\nF\ng\nh\ni\nj\nk\n";
        let FileChange { added, hunks, removed, .. } = FileChange::of(Status::Modified, old, new);
        assert_eq!(added, vec![6..7, 11..12]);
        assert_eq!(removed, vec![6..7]);
        // Line 6 with 3 lines around, merged with the addition at 11 (their contexts touch).
        assert_eq!(hunks, vec![3..12]);
        assert!(contains(&added, 6) && !contains(&added, 7));
        assert!(overlaps(&removed, &(1..7)) && !overlaps(&removed, &(7..9)));
    }

    #[test]
    fn line_endings_alone_are_no_change() {
        let old = "a\nb\nc\nd\n";
        let FileChange { added, removed, .. } = FileChange::of(Status::Modified, old, "a\r\nb\r\nc\r\nd\r\n");
        assert!(added.is_empty() && removed.is_empty());
        let FileChange { added, removed, .. } = FileChange::of(Status::Modified, old, "a\r\nB\r\nc\r\nd\r\n");
        assert_eq!((added.len(), added[0].clone()), (1, 2..3));
        assert_eq!((removed.len(), removed[0].clone()), (1, 2..3));
    }

    #[test]
    fn pure_deletion_has_context_but_no_added_line() {
        let FileChange { added, hunks, removed, .. } = FileChange::of(Status::Modified, "a\nb\nc\n", "a\nc\n");
        assert!(added.is_empty());
        assert_eq!(removed, vec![2..3]);
        assert_eq!(hunks, vec![1..3]);
    }

    #[test]
    fn files_added_modified_deleted_and_renamed() {
        let body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n";
        let mut c = Changes::default();
        c.add(
            &[src("same.yaml", "x\n"), src("mod.yaml", "x\ny\n"), src("gone.yaml", "z\n"), src("old/cm.yaml", body)],
            &[src("same.yaml", "x\n"), src("mod.yaml", "x\nY\n"), src("new.yaml", "n\n"), src("cm.yaml", body)],
        );
        let status = |p: &str| c.get(Path::new(p)).map(|c| c.status.clone());
        assert_eq!(status("same.yaml"), None);
        assert_eq!(status("mod.yaml"), Some(Status::Modified));
        assert_eq!(c.get(Path::new("mod.yaml")).unwrap().added, vec![2..3]);
        assert_eq!(status("new.yaml"), Some(Status::Added));
        assert_eq!(status("gone.yaml"), Some(Status::Deleted));
        assert_eq!(status("cm.yaml"), Some(Status::Renamed { from: PathBuf::from("old/cm.yaml") }));
        assert!(c.get(Path::new("cm.yaml")).unwrap().added.is_empty());
        assert_eq!(c.by_base_path(Path::new("old/cm.yaml")).unwrap().status, status("cm.yaml").unwrap());
        assert_eq!(c.renames().collect::<Vec<_>>(), vec![(Path::new("old/cm.yaml"), Path::new("cm.yaml"))]);
    }
}
