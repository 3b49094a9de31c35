//! Applying findings' fixes to files: which fixes are taken, the edited texts, the unified
//! diff, the atomic write. The model is ruff's `--fix`/`--diff`: findings carry their edits
//! ([`driftlint_core::diagnostic::Fix`]); this room applies them, it never decides one.
//!
//! What it guarantees, whatever the findings say:
//! * an edit applies only where the file's bytes at its range are the bytes the finding saw
//!   ([`Edit::expected`]); a file changed since keeps its text;
//! * all fixes of one file are applied in one pass over the text read once; a fix whose edits
//!   overlap one already taken is refused (the first in report order is kept); insertions at
//!   one place go in report order;
//! * no byte outside the taken edits changes;
//! * removals that would together take every entry of a mapping are not all taken
//!   ([`guard`]): the mapping would read as null;
//! * standard input, git locations, symlinks and anything but a regular file are never
//!   written; with `--staged`, a file is written only when the work tree holds exactly the
//!   staged text that was checked;
//! * a fix of an object rendered to standard input edits the source its renderer named: it is
//!   shown (`--diff`), never written, and only for a source inside the repository of the
//!   origin root;
//! * a file is replaced atomically ([`write`]): a temporary file in its directory, its
//!   permissions copied, renamed over it.
//!
//! It must not know how fixes are made, nor the report formats.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};

use driftlint_core::diagnostic::{Diagnostic, Edit, FixSafety};
use driftlint_core::source::{Source, SourcePath};

mod guard;
mod write;

pub use write::{write_all, write_atomic};

/// Threads writing files, per thread of the run's pool (`--jobs`). A write is mostly the
/// kernel's: creating the temporary file and the rename wait on the disk (reading inode
/// tables, flushing the new data, freeing the old file's blocks) about half of their time on
/// the benchmark machine's ext4, so more writers than cores overlap those waits: on the telco
/// layout's 909 written files the write phase took about half as long with four a core as
/// with one (docs/fixing.md).
pub const WRITERS: usize = 4;

/// Which fixes a run takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Take [`FixSafety::Unsafe`] fixes too (`--unsafe-fixes`).
    pub unsafe_fixes: bool,
    /// The checked texts are the staged ones (`--staged`): a file whose work-tree text is
    /// not the checked text, or whose checked text the report did not keep, gets no fix.
    /// (Without it, a file whose kept text differs from the disk gets none either.)
    pub whole_text: bool,
    /// The files will be written (`--fix`), not only shown (`--diff`). A fix of an object
    /// rendered to standard input edits its source, which no input named: it is only shown.
    pub writes: bool,
    /// Where the sources of rendered objects must be (`--origin-root`, else the working
    /// directory): their fixes are planned only for files inside the repository holding it.
    pub origin_root: Option<PathBuf>,
}

/// One file's edited text.
#[derive(Debug)]
pub struct FileFix {
    pub path: PathBuf,
    pub before: String,
    pub after: String,
    /// The edits taken, sorted by position (ranges in `before`), with their new lengths.
    pub edits: Vec<(Range<usize>, usize)>,
    /// The findings (indices) whose fixes these are.
    pub fixes: Vec<usize>,
}

/// What the fixes of a run come to.
#[derive(Debug, Default)]
pub struct Plan {
    /// The files that change.
    pub files: Vec<FileFix>,
    /// Indices (into the findings) of the findings whose fix was taken.
    pub fixed: Vec<usize>,
    /// Findings with a fix that was not taken, and why (one sentence).
    pub refused: Vec<(usize, String)>,
    /// Findings whose fix needs `--unsafe-fixes`.
    pub unsafe_left: usize,
}

/// Whether a finding's fix is taken under `opts` (a suppressed finding is never fixed).
pub fn applicable(d: &Diagnostic, opts: &Options) -> bool {
    d.suppressed.is_none()
        && d.fix.as_ref().is_some_and(|f| !f.edits.is_empty() && (opts.unsafe_fixes || f.safety == FixSafety::Safe))
}

/// Reads each file the fixes edit and computes its fixed text; writes nothing. `checked`
/// gives the text each finding was made on (the report's sources), for
/// [`Options::whole_text`].
pub fn plan(diags: &[Diagnostic], checked: &[Source], opts: &Options) -> Plan {
    let mut plan = Plan::default();
    let mut by_file: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    for (i, d) in diags.iter().enumerate() {
        let Some(fix) = d.fix.as_deref().filter(|_| d.suppressed.is_none()) else { continue };
        if !applicable(d, opts) {
            if fix.safety == FixSafety::Unsafe {
                plan.unsafe_left += 1;
            }
            continue;
        }
        let path = &fix.edits[0].path;
        match path {
            SourcePath::File(p) if driftlint_core::locate::is_rendered(d) => {
                if let Some(why) = rendered_refusal(p, opts) {
                    plan.refused.push((i, why));
                } else {
                    by_file.entry(p.clone()).or_default().push(i);
                }
            }
            SourcePath::File(p) if fix.edits.iter().all(|e| &e.path == path) => {
                by_file.entry(p.clone()).or_default().push(i)
            }
            SourcePath::File(_) => plan.refused.push((i, "its edits span several files".into())),
            SourcePath::Stdin => plan.refused.push((i, "standard input is never written".into())),
        }
    }
    // The checked texts by path, looked up once per edited file.
    let mut checked_texts: HashMap<&Path, &Source> = HashMap::new();
    for s in checked {
        if let SourcePath::File(p) = &s.path
            && by_file.contains_key(p)
        {
            checked_texts.entry(p.as_path()).or_insert(s);
        }
    }
    for (path, fixes) in &by_file {
        let (path, fixes) = (path.clone(), fixes.clone());
        let text = match writable(&path) {
            Err(why) => {
                plan.refused.extend(fixes.into_iter().map(|i| (i, why.clone())));
                continue;
            }
            Ok(text) => text,
        };
        // The text the findings were made on, when the report kept it: a file that differs
        // from it now was changed since (or, with --staged, holds unstaged changes), and an
        // insertion (which expects no bytes) could land in the wrong place.
        let checked = checked_texts.get(path.as_path()).copied();
        let why = match checked {
            Some(s) if s.text == text => None,
            _ if opts.whole_text => Some(format!(
                "{} differs from its staged content (partially staged): stage or stash the rest first",
                path.display()
            )),
            Some(_) => Some(format!("{} changed since it was checked", path.display())),
            None => None,
        };
        if let Some(why) = why {
            plan.refused.extend(fixes.into_iter().map(|i| (i, why.clone())));
            continue;
        }
        let mut taken: Vec<&Edit> = Vec::new();
        let mut taken_fixes = Vec::new();
        for i in fixes {
            let edits = &diags[i].fix.as_deref().expect("filtered above").edits;
            if let Some(why) = edits.iter().find_map(|e| stale(e, &text)) {
                plan.refused.push((i, why));
            } else if edits.iter().enumerate().any(|(n, e)| {
                taken.iter().any(|t| overlaps(&t.range, &e.range))
                    || edits[..n].iter().any(|o| overlaps(&o.range, &e.range))
            }) {
                plan.refused.push((i, "it overlaps another fix applied in this run: run again".into()));
            } else {
                taken.extend(edits.iter());
                taken_fixes.push(i);
                plan.fixed.push(i);
            }
        }
        let emptied = guard::emptying(&text, &taken_fixes, diags);
        if !emptied.is_empty() {
            for &i in &emptied {
                plan.refused.push((i, guard::EMPTIES.into()));
            }
            taken_fixes.retain(|i| !emptied.contains(i));
            plan.fixed.retain(|i| !emptied.contains(i));
            taken = taken_fixes.iter().flat_map(|&i| diags[i].fix.as_deref().expect("taken").edits.iter()).collect();
        }
        if taken.is_empty() {
            continue;
        }
        taken.sort_by_key(|e| (e.range.start, e.range.end));
        let after = apply(&text, &taken);
        let edits = taken.iter().map(|e| (e.range.clone(), e.replacement.len())).collect();
        plan.files.push(FileFix { path, before: text, after, edits, fixes: taken_fixes });
    }
    plan.fixed.sort_unstable();
    plan.refused.sort_by_key(|(i, _)| *i);
    plan
}

/// Why the fix of an object rendered to standard input, which edits its source `path`, is
/// not planned: `--fix` writes only the files it was given (the rendered text is, and the
/// source is not, what was checked: a person applies the diff), and a source is read only
/// inside the repository of the origin root, as the origin mapping read it.
fn rendered_refusal(path: &Path, opts: &Options) -> Option<String> {
    let shown = path.display();
    if opts.writes {
        return Some(format!(
            "{shown} is the source of an object rendered to standard input, which --fix does not write: see the change with --diff and apply it (`git apply`)"
        ));
    }
    let root = opts.origin_root.clone().unwrap_or_else(|| PathBuf::from("."));
    let boundary = driftlint_core::confine::Boundary::around(&root);
    driftlint_core::confine::confine(path, &boundary).err().map(|refusal| refusal.to_string())
}

/// The file's text when it may be written: a regular file (no symlink), no git location.
fn writable(path: &Path) -> Result<String, String> {
    let shown = path.display();
    if path.to_str().is_some_and(driftlint_git::location::is_location) {
        return Err(format!("{shown} is read from git, not a file to write"));
    }
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if meta.file_type().is_symlink() {
        return Err(format!("{shown} is a symbolic link: fix the file it points to"));
    }
    if !meta.is_file() {
        return Err(format!("{shown} is not a regular file"));
    }
    driftlint_core::input::read_bounded_to_string(path, driftlint_core::input::MAX_FILE_BYTES)
        .map_err(|e| format!("cannot read {shown}: {e}"))
}

/// Why an edit no longer fits the file, if it does not.
fn stale(e: &Edit, text: &str) -> Option<String> {
    (text.get(e.range.clone()) != Some(e.expected.as_str()))
        .then(|| format!("{} changed since it was checked", e.path.display()))
}

/// Two edits touch the same bytes, or one inserts where the other replaces. Two insertions
/// at one place do not conflict: they go in report order (two entries added to one mapping).
fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    (a.start < b.end && b.start < a.end) || (a.start == b.start && a.is_empty() != b.is_empty())
}

/// `text` with `edits` (sorted, disjoint) applied in one pass.
fn apply(text: &str, edits: &[&Edit]) -> String {
    let grow: usize = edits.iter().map(|e| e.replacement.len()).sum();
    let mut out = String::with_capacity(text.len() + grow);
    let mut at = 0;
    for e in edits {
        out.push_str(&text[at..e.range.start]);
        out.push_str(&e.replacement);
        at = e.range.end;
    }
    out.push_str(&text[at..]);
    out
}

impl FileFix {
    /// Where byte `offset` of the old text is in the new one (an offset inside a replaced
    /// range goes to the replacement's start).
    pub fn shift(&self, offset: usize) -> usize {
        let mut delta: isize = 0;
        for (range, len) in &self.edits {
            if offset < range.start || (offset == range.start && !range.is_empty()) {
                break;
            }
            if offset < range.end {
                return offset.saturating_add_signed(delta).min(range.start.saturating_add_signed(delta));
            }
            delta += *len as isize - range.len() as isize;
        }
        offset.saturating_add_signed(delta)
    }

    /// The change as a unified diff (`--- a/PATH`, `+++ b/PATH`, three lines of context); an
    /// absolute path below the working directory (a rendered object's source found through an
    /// absolute `--origin-root`) is named from there, as `git apply` and `patch -p1` expect.
    pub fn unified_diff(&self) -> String {
        let cwd = std::env::current_dir().ok();
        let path = match &cwd {
            Some(cwd) if self.path.is_absolute() => self.path.strip_prefix(cwd).unwrap_or(&self.path),
            _ => &self.path,
        };
        let name = path.to_string_lossy().replace('\\', "/");
        let diff = similar::TextDiff::from_lines(&self.before, &self.after);
        diff.unified_diff().context_radius(3).header(&format!("a/{name}"), &format!("b/{name}")).to_string()
    }
}

/// After the fixes of `plan` were written: the fixed findings removed, the others' ranges in
/// the edited files moved to where their bytes now are, and the report's texts replaced.
pub fn settle(plan: &Plan, diags: &mut Vec<Diagnostic>, sources: &mut [Source]) {
    let mut i = 0;
    diags.retain(|_| {
        let keep = plan.fixed.binary_search(&i).is_err();
        i += 1;
        keep
    });
    // One lookup per label and source, not a pass over every finding per written file: a
    // run that fixes hundreds of files among thousands of findings stays linear.
    let written: HashMap<&Path, &FileFix> = plan.files.iter().map(|f| (f.path.as_path(), f)).collect();
    if written.is_empty() {
        return;
    }
    let file_of = |p: &SourcePath| match p {
        SourcePath::File(p) => written.get(p.as_path()).copied(),
        SourcePath::Stdin => None,
    };
    let shift = |file: &FileFix, r: &mut Range<usize>| {
        *r = file.shift(r.start)..file.shift(r.end).max(file.shift(r.start));
    };
    for d in diags.iter_mut() {
        for label in std::iter::once(&mut d.primary).chain(&mut d.secondary) {
            if let (Some(file), Some(r)) = (file_of(&label.path), &mut label.range) {
                shift(file, r);
            }
        }
        // A fix left for a later run keeps pointing at its bytes; `expected` still guards it.
        if let Some(fix) = &mut d.fix {
            for e in &mut fix.edits {
                if let Some(file) = file_of(&e.path) {
                    shift(file, &mut e.range);
                }
            }
        }
    }
    for s in sources.iter_mut() {
        if let Some(file) = file_of(&s.path) {
            s.text.clone_from(&file.after);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(range: Range<usize>, replacement: &str, expected: &str) -> Edit {
        Edit {
            path: SourcePath::File("a.yaml".into()),
            range,
            expected: expected.into(),
            replacement: replacement.into(),
        }
    }

    #[test]
    fn edits_apply_in_one_pass_and_offsets_follow() {
        let text = "a: 1\nb: 22\nc: 3\n";
        let (e1, e2) = (edit(3..4, "100", "1"), edit(8..10, "2", "22"));
        let after = apply(text, &[&e1, &e2]);
        assert_eq!(after, "a: 100\nb: 2\nc: 3\n");
        let f = FileFix {
            path: "a.yaml".into(),
            before: text.into(),
            after,
            edits: vec![(3..4, 3), (8..10, 1)],
            fixes: vec![0, 1],
        };
        assert_eq!(f.shift(0), 0);
        assert_eq!(f.shift(5), 7); // `b`
        assert_eq!(f.shift(9), 10); // inside `22`: the replacement's start
        assert_eq!(f.shift(11), 12); // `c`
        assert_eq!(&f.after[f.shift(11)..f.shift(11) + 1], "c");
    }

    /// A finding on `path` whose safe fix replaces `range` (holding `expected`) by `replacement`.
    fn finding(path: &Path, range: Range<usize>, expected: &str, replacement: &str) -> Diagnostic {
        use driftlint_core::diagnostic::{Fix, Rule, Severity};
        let mut d = Diagnostic::new(Rule::ValueDrift, Severity::Error, SourcePath::File(path.into()), None, "");
        d.fix = Some(Box::new(Fix {
            safety: FixSafety::Safe,
            message: String::new(),
            edits: vec![Edit {
                path: SourcePath::File(path.into()),
                range,
                expected: expected.into(),
                replacement: replacement.into(),
            }],
        }));
        d
    }

    fn options() -> Options {
        Options { unsafe_fixes: false, whole_text: false, writes: true, origin_root: None }
    }

    #[test]
    fn a_file_changed_since_its_check_is_not_fixed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, "a: 2\nb: 1\n").unwrap();
        // `b`'s value, `1` in the checked text and on the disk.
        let diags = [finding(&path, 8..9, "1", "9")];
        // The check saw other text than the disk holds now: the whole file is refused, even
        // though the edit's bytes would still match.
        let checked = [Source { path: SourcePath::File(path.clone()), text: "a: 1\nb: 1\n".into() }];
        let planned = plan(&diags, &checked, &options());
        assert!(planned.files.is_empty() && planned.fixed.is_empty());
        assert_eq!(planned.refused.len(), 1);
        assert!(planned.refused[0].1.ends_with("changed since it was checked"), "{:?}", planned.refused);
        // The same text as checked: fixed, and only the edit's bytes change.
        let checked = [Source { path: SourcePath::File(path.clone()), text: "a: 2\nb: 1\n".into() }];
        let planned = plan(&diags, &checked, &options());
        assert_eq!(planned.fixed, [0]);
        assert_eq!(planned.files[0].after, "a: 2\nb: 9\n");
    }

    #[test]
    fn stale_and_overlapping_edits_are_refused_and_the_rest_applied() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        let text = "a: 1\nb: 2\nc: 3\n";
        std::fs::write(&path, text).unwrap();
        let diags = [
            finding(&path, 3..4, "1", "10"),
            // Its bytes are not what the finding saw.
            finding(&path, 8..9, "7", "20"),
            // Overlaps the first.
            finding(&path, 3..4, "1", "11"),
            finding(&path, 13..14, "3", "30"),
        ];
        let planned = plan(&diags, &[], &options());
        assert_eq!(planned.fixed, [0, 3]);
        let refused: Vec<usize> = planned.refused.iter().map(|(i, _)| *i).collect();
        assert_eq!(refused, [1, 2]);
        assert_eq!(planned.files.len(), 1);
        assert_eq!(planned.files[0].fixes, [0, 3]);
        assert_eq!(planned.files[0].after, "a: 10\nb: 2\nc: 30\n");
        // Planning writes nothing.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn overlapping_and_same_point_insertions_conflict() {
        assert!(overlaps(&(0..3), &(2..5)));
        assert!(!overlaps(&(0..3), &(3..5)));
        assert!(!overlaps(&(3..3), &(3..3)));
        assert!(overlaps(&(3..3), &(3..5)));
        assert!(!overlaps(&(3..3), &(4..4)));
    }
}
