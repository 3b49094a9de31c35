//! The texts diagnostics point into, and byte range → line/column conversion.
//!
//! Emitters resolve a [`Label`]'s byte range through here and nowhere else. Each file's line
//! index is built the first time one of its locations is asked for (ruff's lazily built
//! `LineIndex`), so a run with findings in three of a thousand files indexes three.

use std::borrow::Cow;
use std::ops::Range;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use driftlint_yaml::LineIndex;

use driftlint_core::diagnostic::Label;
use driftlint_core::input::{Source, SourcePath};

/// A resolved span: 1-based lines and columns (columns count characters); the end is
/// exclusive (the column after the last character), as in SARIF regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

struct Entry<'a> {
    path: Cow<'a, SourcePath>,
    text: Cow<'a, str>,
    index: OnceLock<LineIndex>,
}

/// Source texts by path: the manifests that were checked and the reference files (templates,
/// `metadata.yaml`) that secondary labels point at.
///
/// A list sorted by the paths' bytes, searched by halves, whose entries borrow the sources'
/// paths: a run with findings in tens of thousands of files held a hash table of copied paths
/// twice the size of the entries (a quarter of the heap at the report's peak). Bytes, not
/// [`Path`]'s order, which parses components at every comparison: the paths looked up are the
/// sources' own, copied.
#[derive(Default)]
pub struct SourceResolver<'a> {
    files: Vec<Entry<'a>>,
}

impl<'a> SourceResolver<'a> {
    pub fn new() -> Self {
        SourceResolver::default()
    }

    /// A resolver over the loaded inputs, borrowing their texts.
    pub fn from_sources(sources: &'a [Source]) -> Self {
        Self::of(sources.iter())
    }

    /// [`SourceResolver::from_sources`] over only the sources that `diags` point into (a
    /// report reads no other): a run over many files keeps a small table, not one entry for
    /// each file checked.
    pub fn for_diagnostics(sources: &'a [Source], diags: &[driftlint_core::diagnostic::Diagnostic]) -> Self {
        // The paths findings point into, sorted (findings come sorted by path: one pass).
        let mut used: Vec<Key> =
            diags.iter().flat_map(|d| std::iter::once(&d.primary).chain(&d.secondary)).map(|l| key(&l.path)).collect();
        used.sort_unstable();
        used.dedup();
        Self::of(sources.iter().filter(|s| used.binary_search(&key(&s.path)).is_ok()))
    }

    /// A resolver over `sources`, borrowing their paths and texts; of two sources with one
    /// path, the later's text is kept (as [`SourceResolver::insert`] replaces).
    fn of(sources: impl Iterator<Item = &'a Source>) -> Self {
        let sources: Vec<&'a Source> = sources.collect();
        let mut files = Vec::with_capacity(sources.len());
        files.extend(sources.into_iter().map(|s| Entry {
            path: Cow::Borrowed(&s.path),
            text: Cow::Borrowed(s.text.as_str()),
            index: OnceLock::new(),
        }));
        // Inputs come in walk order, which is mostly path order already: one pass.
        files.sort_by(|a, b| key(&a.path).cmp(&key(&b.path)));
        // Of equal paths (kept in input order by the stable sort), the last one stays.
        files.dedup_by(|later, kept| {
            let same = key(&later.path) == key(&kept.path);
            if same {
                std::mem::swap(later, kept);
            }
            same
        });
        SourceResolver { files }
    }

    /// Adds (or replaces) the text of `path`.
    pub fn insert(&mut self, path: SourcePath, text: impl Into<Cow<'a, str>>) {
        let entry = Entry { path: Cow::Owned(path), text: text.into(), index: OnceLock::new() };
        match self.files.binary_search_by(|e| key(&e.path).cmp(&key(&entry.path))) {
            Ok(at) => self.files[at] = entry,
            Err(at) => self.files.insert(at, entry),
        }
    }

    fn entry(&self, path: &SourcePath) -> Option<&Entry<'a>> {
        let at = self.files.binary_search_by(|e| key(&e.path).cmp(&key(path))).ok()?;
        self.files.get(at)
    }

    /// The text of `path`, when it was given.
    pub fn text(&self, path: &SourcePath) -> Option<&str> {
        self.entry(path).map(|e| e.text.as_ref())
    }

    /// `range` clamped into the text of `path` and onto character boundaries, so that a
    /// range past the end of a file (a stale offset, a file changed since) never panics.
    pub fn clamp(&self, path: &SourcePath, range: &Range<usize>) -> Option<Range<usize>> {
        let text = self.text(path)?;
        let fix = |mut at: usize| {
            at = at.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        };
        let start = fix(range.start);
        Some(start..fix(range.end).max(start))
    }

    /// The location of `label`, when it has a range and its file's text is known.
    pub fn location(&self, label: &Label) -> Option<Location> {
        let range = label.range.as_ref()?;
        let entry = self.entry(&label.path)?;
        let text = entry.text.as_ref();
        let index = entry.index.get_or_init(|| LineIndex::new(text));
        let start = index.line_column(text, range.start);
        let end = index.line_column_from(text, range.start, start, range.end.max(range.start));
        Some(Location { line: start.line, column: start.column, end_line: end.line, end_column: end.column })
    }

    /// The byte range of the line of `path` that holds `offset` (a character boundary in
    /// its text), without its line terminator: [`SourceResolver::lines_range`] of that line,
    /// found from the offset itself instead of from the line's number.
    pub(crate) fn line_at(&self, path: &SourcePath, offset: usize) -> Option<Range<usize>> {
        let bytes = self.text(path)?.as_bytes();
        let before = bytes.get(..offset)?;
        // Both scans are as long as the line.
        let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut end = bytes[offset..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| offset + i);
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        Some(start..end)
    }

    /// The byte range of whole lines `first..=last` (1-based) of `path`, without the final
    /// line terminator.
    pub(crate) fn lines_range(&self, path: &SourcePath, first: usize, last: usize) -> Option<Range<usize>> {
        let entry = self.entry(path)?;
        let text = entry.text.as_ref();
        let index = entry.index.get_or_init(|| LineIndex::new(text));
        let start = index.line_range(text, first)?.start;
        let end = index.line_range(text, last)?.end;
        Some(start..end.max(start))
    }
}

/// What the resolver orders and finds paths by: standard input apart, a file by its path's
/// bytes.
type Key<'p> = (bool, &'p [u8]);

fn key(path: &SourcePath) -> Key<'_> {
    match path {
        SourcePath::File(p) => (false, p.as_os_str().as_encoded_bytes()),
        SourcePath::Stdin => (true, &[]),
    }
}

/// `path` as a user in `cwd` reads it: below `cwd`, relative to it (`app/x.yaml`); elsewhere
/// under a common ancestor other than the file system's root, with `..` steps
/// (`../config/x.yaml`), so that a run from a subdirectory — which finds `.driftlint.yaml`
/// further up and checks the repository from there — shows no absolute paths of the machine
/// it ran on. Relative paths are kept as given (they already are relative to `cwd`), and so is
/// a path that shares nothing with `cwd` but the root. Lexical only: nothing is read.
pub fn relative_to(path: &Path, cwd: &Path) -> Option<PathBuf> {
    if !path.is_absolute() || !cwd.is_absolute() {
        return None;
    }
    let path = crate::config::normalize(path);
    let cwd = crate::config::normalize(cwd);
    if let Ok(rest) = path.strip_prefix(&cwd) {
        return Some(if rest.as_os_str().is_empty() { PathBuf::from(".") } else { rest.to_path_buf() });
    }
    let (a, b): (Vec<Component>, Vec<Component>) = (path.components().collect(), cwd.components().collect());
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    // Only the root (or a Windows prefix and root) in common: the path is outside the project.
    if a[..common].iter().all(|c| matches!(c, Component::RootDir | Component::Prefix(_))) {
        return None;
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &a[common..] {
        out.push(c);
    }
    Some(out)
}

/// Rewrites every absolute file path of a report — the findings' labels and fixes, the texts they
/// point into, together so that each label still finds its text — as [`relative_to`] `cwd`.
pub fn relativize(diags: &mut [driftlint_core::diagnostic::Diagnostic], sources: &mut [Source], cwd: &Path) {
    let fix = |p: &mut SourcePath| {
        if let SourcePath::File(path) = p
            && let Some(rel) = relative_to(path, cwd)
        {
            *path = rel;
        }
    };
    for d in diags {
        fix(&mut d.primary.path);
        for label in &mut d.secondary {
            fix(&mut label.path);
        }
        if let Some(f) = &mut d.fix {
            f.edits.iter_mut().for_each(|e| fix(&mut e.path));
        }
    }
    for s in sources {
        fix(&mut s.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::reversed_empty_ranges)] // a reversed range is one of the cases
    fn clamps_ranges_past_the_end() {
        let mut r = SourceResolver::new();
        r.insert(SourcePath::Stdin, "a: é\n");
        // 4 is inside the two-byte `é`.
        assert_eq!(r.clamp(&SourcePath::Stdin, &(4..100)), Some(3..6));
        assert_eq!(r.clamp(&SourcePath::Stdin, &(9..2)), Some(6..6));
        let label = Label { path: SourcePath::Stdin, range: Some(3..1000), message: None };
        assert_eq!(r.location(&label), Some(Location { line: 1, column: 4, end_line: 2, end_column: 1 }));
        assert_eq!(r.lines_range(&SourcePath::Stdin, 1, 1), Some(0..5));
    }

    /// The line found from an offset is the line found from its number, at every offset of
    /// a text with blank lines, CRLF and LF endings, non-ASCII text and no final line end.
    #[test]
    fn the_line_at_an_offset_is_the_line_of_its_number() {
        let text = "a: 1\r\n\nbé: ü\n\r\n  c: [1, 2]\r\nlast";
        let mut r = SourceResolver::new();
        r.insert(SourcePath::Stdin, text);
        for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o)) {
            let label = Label { path: SourcePath::Stdin, range: Some(offset..offset), message: None };
            let line = r.location(&label).map(|l| l.line).expect("a location");
            assert_eq!(
                r.line_at(&SourcePath::Stdin, offset),
                r.lines_range(&SourcePath::Stdin, line, line),
                "offset {offset}"
            );
        }
    }

    /// Sources in any order, one path given twice, paths added one at a time: each path
    /// resolves to its last text (as a table keyed by path would), the others to none.
    #[test]
    fn every_path_resolves_to_its_last_text_whatever_the_order() {
        let file = |name: &str| SourcePath::File(name.into());
        let names = ["m/b.yaml", "a.yaml", "m/a.yaml", "z.yaml", "a.yaml", "m/b/c.yaml"];
        let sources: Vec<Source> = names
            .iter()
            .enumerate()
            .map(|(i, name)| Source { path: file(name), text: format!("{i}: {name}\n") })
            .chain(std::iter::once(Source { path: SourcePath::Stdin, text: "stdin\n".into() }))
            .collect();
        let mut r = SourceResolver::from_sources(&sources);
        assert_eq!(r.text(&file("a.yaml")), Some("4: a.yaml\n"));
        assert_eq!(r.text(&file("m/b.yaml")), Some("0: m/b.yaml\n"));
        assert_eq!(r.text(&file("m/b/c.yaml")), Some("5: m/b/c.yaml\n"));
        assert_eq!(r.text(&SourcePath::Stdin), Some("stdin\n"));
        assert_eq!(r.text(&file("m")), None);
        r.insert(file("m/a.yaml"), "replaced\n");
        r.insert(file("b.yaml"), String::from("added\n"));
        assert_eq!(r.text(&file("m/a.yaml")), Some("replaced\n"));
        assert_eq!(r.text(&file("b.yaml")), Some("added\n"));
        assert_eq!(r.text(&file("z.yaml")), Some("3: z.yaml\n"));
    }

    /// The resolver for a report holds the texts its findings point into, primary and
    /// secondary, and no other.
    #[test]
    fn a_report_resolves_the_files_its_findings_point_into() {
        use driftlint_core::diagnostic::{Diagnostic, Rule};
        let file = |name: &str| SourcePath::File(name.into());
        let sources: Vec<Source> = ["a.yaml", "b.yaml", "t.yaml", "unused.yaml"]
            .into_iter()
            .map(|name| Source { path: file(name), text: format!("name: {name}\n") })
            .collect();
        let diags = vec![
            Diagnostic::of(Rule::DuplicateKey, file("a.yaml"), Some(0..4), "x"),
            Diagnostic::of(Rule::DuplicateKey, file("b.yaml"), Some(6..8), "y").with_secondary(
                file("t.yaml"),
                Some(0..4),
                "here",
            ),
        ];
        let r = SourceResolver::for_diagnostics(&sources, &diags);
        for name in ["a.yaml", "b.yaml", "t.yaml"] {
            assert_eq!(r.text(&file(name)), Some(format!("name: {name}\n").as_str()), "{name}");
        }
        assert_eq!(r.text(&file("unused.yaml")), None);
        let secondary = &diags[1].secondary[0];
        assert_eq!(r.location(secondary), Some(Location { line: 1, column: 1, end_line: 1, end_column: 5 }));
    }

    #[test]
    fn paths_are_shown_relative_to_the_working_directory() {
        let rel = |p: &str, cwd: &str| relative_to(Path::new(p), Path::new(cwd)).map(|p| p.display().to_string());
        assert_eq!(rel("/repo/app/x.yaml", "/repo/app").as_deref(), Some("x.yaml"));
        assert_eq!(rel("/repo/config/x.yaml", "/repo/app").as_deref(), Some("../config/x.yaml"));
        assert_eq!(rel("/repo/./app/../ref/t.yaml", "/repo/app/deep").as_deref(), Some("../../ref/t.yaml"));
        // Given relative, already relative to the working directory; nothing in common but `/`.
        assert_eq!(rel("app/x.yaml", "/repo"), None);
        assert_eq!(rel("/tmp/x.yaml", "/repo/app"), None);
    }
}
