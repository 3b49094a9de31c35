//! Changed-file scopes: `driftlint check --staged` and `--base REV`, with reviewdog's
//! `--diff-filter` modes and `--new-only`.
//!
//! Findings are always computed on the whole set of inputs in the state being checked — the
//! index for `--staged` (staged contents, also of partially staged files), the work tree for
//! `--base` — so that cardinality and missing-resource findings see every object. The scope
//! only decides which findings are *shown*:
//!
//! * The change is the difference between the base (`HEAD` for `--staged`, the merge-base of
//!   `REV` and `HEAD` for `--base`) and the checked state, file by file and line by line
//!   ([`crate::git::changes`]); uncommitted edits count as part of the change with `--base`, as
//!   in `git diff REV...` plus the work tree.
//! * `added` (the default): the finding's line was added or modified; `diff_context`: it lies
//!   in a diff hunk (the change with 3 lines of context); `file`: anywhere in a changed file;
//!   `nofilter`: everything. A finding without a line in a changed file is shown by all modes.
//! * Findings that belong to no manifest line — `missing-resource` and `cardinality-violation`,
//!   reported at their component in `metadata.yaml` — are shown when the change *touches their
//!   component*: an object whose lines changed correlates (now, or at the base) with a template
//!   of that component, or a file of the reference changed. Deleting the only object matching
//!   a required template therefore shows the missing resource; an unrelated edit does not.
//! * `io-error` findings are always shown: an input that could not be read was not checked.
//! * `--new-only` also checks the base state (its inputs read from git, the same reference)
//!   and hides findings whose [`Diagnostic::fingerprint`] (rule, path, object, field — never a
//!   line) is already there: drift that predates the change does not block it. Files renamed
//!   by the change keep their findings' identity.
//!
//! Hidden findings are counted ([`Scoped::hidden_outside`], [`Scoped::hidden_existing`]) so
//! the CLI can say so; nothing disappears without a trace.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use driftlint_yaml::LineIndex;

use super::{CheckError, Report, Settings};
use crate::diagnostic::{Diagnostic, Rule};
use crate::document::Collection;
use crate::git::changes::{self, Changes};
use crate::git::scope::{Repo, ScopeError, Snapshot, strip_dot};
use crate::input::{self, Collected, Source, SourcePath, WalkOptions};
use crate::kubecompare::engine::{Comparison, Status as CrStatus};
use crate::reference::Compiled;

/// Which state is checked and what it is compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The index, against `HEAD`.
    Staged,
    /// The work tree, against the merge-base of this revision and `HEAD`.
    Base(String),
}

/// Which findings of changed files are shown (reviewdog's `-filter-mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DiffFilter {
    /// On an added or modified line.
    #[default]
    Added,
    /// In a diff hunk: changed lines and 3 lines of context.
    DiffContext,
    /// Anywhere in a changed file.
    File,
    /// Everywhere, changed or not.
    NoFilter,
}

impl DiffFilter {
    /// The flag value.
    pub fn name(self) -> &'static str {
        match self {
            DiffFilter::Added => "added",
            DiffFilter::DiffContext => "diff_context",
            DiffFilter::File => "file",
            DiffFilter::NoFilter => "nofilter",
        }
    }
}

/// A scoped check's settings.
#[derive(Clone, Debug)]
pub struct Options {
    pub mode: Mode,
    pub filter: DiffFilter,
    pub new_only: bool,
}

/// The outcome of a scoped check.
#[derive(Debug)]
pub struct Scoped {
    /// The whole check, with only the findings in scope.
    pub report: Report,
    /// What the change was computed against, for messages (`HEAD`, `merge-base 1a2b3c4d5e6f of origin/main`).
    pub base: String,
    /// Files that differ from the base (inputs and reference files).
    pub changed_files: usize,
    /// Findings left out because the change does not reach them.
    pub hidden_outside: usize,
    /// Findings left out by `--new-only` because the base has them already.
    pub hidden_existing: usize,
}

/// Why a scoped check could not run.
#[derive(Debug, thiserror::Error)]
pub enum ScopedError {
    #[error(transparent)]
    Git(#[from] ScopeError),
    #[error(transparent)]
    Check(#[from] CheckError),
}

/// Which templates each compared object correlated with, and the components listing each
/// template: what tells whether a change touches a component.
#[derive(Clone, Debug, Default)]
pub struct Correlations {
    pub objects: Vec<ObjectCorrelation>,
    /// Template path → the components (`part/component`) that list it.
    pub components: BTreeMap<String, BTreeSet<String>>,
}

/// One compared object.
#[derive(Clone, Debug)]
pub struct ObjectCorrelation {
    pub path: SourcePath,
    /// The object's lines in its source (1-based, half-open).
    pub lines: Range<usize>,
    /// The template it matched; every candidate when none won (failed or declined).
    pub templates: Vec<String>,
}

/// Records the correlations of a comparison.
pub fn correlations(compiled: &Compiled, comparison: &Comparison, coll: &Collection) -> Correlations {
    let r = &compiled.reference;
    let mut components: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for part in &r.parts {
        for comp in &part.components {
            for i in comp.template_indices() {
                if let Some(t) = r.templates.get(i) {
                    components.entry(t.path.clone()).or_default().insert(format!("{}/{}", part.name, comp.name));
                }
            }
        }
    }
    let name = |t: usize| compiled.entry(t).map(|e| e.path.clone());
    // One line index per source, built when an object of it is first seen: counting newlines
    // from the start of the file for every object was quadratic in a file of many objects.
    let mut indexes: HashMap<usize, LineIndex> = HashMap::new();
    let objects = comparison
        .results
        .iter()
        .filter_map(|result| {
            let doc = coll.documents.get(result.cr)?;
            let source = coll.sources.get(doc.source)?;
            let templates: Vec<String> = match &result.status {
                CrStatus::Compared(c) => name(c.template).into_iter().collect(),
                CrStatus::Unmatched => Vec::new(),
                _ => result.tried.iter().filter_map(|t| name(t.template)).collect(),
            };
            let index = indexes.entry(doc.source).or_insert_with(|| LineIndex::new(&source.text));
            let lines = line_of(index, &source.text, doc.range.start)..line_of(index, &source.text, doc.range.end) + 1;
            Some(ObjectCorrelation { path: source.path.clone(), lines, templates })
        })
        .collect();
    Correlations { objects, components }
}

/// The 1-based line of a byte offset (clamped to the text), in logarithmic time.
fn line_of(index: &LineIndex, text: &str, offset: usize) -> usize {
    index.line_column(text, offset).line
}

/// Runs a check scoped to a change.
pub fn check_scoped(settings: &Settings, opts: &Options) -> Result<Scoped, ScopedError> {
    // Which templates the changed lines' objects matched decides the touched components.
    let settings = &Settings { object_correlations: true, ..settings.clone() };
    let start = settings.paths.iter().find(|p| p.as_os_str() != "-").cloned().unwrap_or_else(|| PathBuf::from("."));
    let repo = Repo::discover(&start)?;
    let walk = super::walk_options(settings);
    let (base_commit, checked, base) = match &opts.mode {
        Mode::Staged => {
            let index = repo.index_snapshot()?;
            (repo.head()?, repo.load_sources(&index, &settings.paths, &walk)?, "HEAD".to_string())
        }
        Mode::Base(rev) => {
            let commit = repo.merge_base(rev)?;
            let base = format!("merge-base {} of {rev}", commit.to_hex_with_len(12));
            (Some(commit), super::collect_inputs(settings), base)
        }
    };
    let base_snapshot = repo.tree_snapshot(base_commit)?;
    let base_inputs = repo.load_sources(&base_snapshot, &settings.paths, &walk)?;
    let mut change = Changes::default();
    change.add(&shown(&base_inputs.sources), &shown(&checked.sources));
    let reference_files = reference_changes(&repo, settings, &base_snapshot)?;
    let reference_changed = !reference_files.is_empty();
    change.files.extend(reference_files.files);

    let mut report = super::check_sources(settings, checked)?;
    let needs_base_correlations = opts.filter != DiffFilter::NoFilter
        && !reference_changed
        && report.diagnostics.iter().any(|d| is_component_finding(d.rule));
    let base_report = if opts.new_only {
        Some(super::check_sources(settings, base_inputs)?)
    } else if needs_base_correlations {
        // Only the changed files' old versions: what correlated there before the change.
        let Collected { sources, diagnostics } = base_inputs;
        let sources = sources.into_iter().filter(|s| in_base_change(&change, &s.path)).collect();
        Some(super::check_sources(settings, Collected { sources, diagnostics })?)
    } else {
        None
    };

    let diags = std::mem::take(&mut report.diagnostics);
    let total = diags.len();
    let filter = Filter {
        change: &change,
        mode: opts.filter,
        texts: report.sources.iter().map(|s| (s.path.clone(), (s.text.as_str(), OnceCell::new()))).collect(),
        touched: touched_components(&change, reference_changed, &report.correlations, base_report.as_ref()),
        components: &report.correlations.components,
    };
    let mut shown: Vec<Diagnostic> = diags.into_iter().filter(|d| filter.shows(d)).collect();
    let hidden_outside = total - shown.len();
    let mut hidden_existing = 0;
    if opts.new_only
        && let Some(base) = &base_report
    {
        let existing = base_fingerprints(&base.diagnostics, &change);
        let before = shown.len();
        shown.retain(|d| !existing.contains(&d.fingerprint()));
        hidden_existing = before - shown.len();
    }
    // What the change does to the configuration itself: always shown, at its level in the
    // base's configuration (the change cannot lower it), never silenced by the changed file.
    let (weakened, config_source) = config_weakened(&repo, settings, &base_snapshot);
    shown.extend(weakened);
    if let Some(source) = config_source
        && !report.sources.iter().any(|s| s.path == source.path)
    {
        report.sources.push(source);
    }
    super::sort(&mut shown);
    report.diagnostics = shown;
    Ok(Scoped { report, base, changed_files: change.files.len(), hidden_outside, hidden_existing })
}

/// Sources with the paths the pipeline shows (`./x` → `x`).
fn shown(sources: &[Source]) -> Vec<Source> {
    sources
        .iter()
        .map(|s| Source {
            path: match &s.path {
                SourcePath::File(p) => SourcePath::File(strip_dot(p.clone())),
                SourcePath::Stdin => SourcePath::Stdin,
            },
            text: s.text.clone(),
        })
        .collect()
}

/// The changes of the reference's own files, when the reference is in the repository: the
/// base's files against the work tree's (the reference every state is checked with).
fn reference_changes(repo: &Repo, settings: &Settings, base: &Snapshot) -> Result<Changes, ScopedError> {
    let mut out = Changes::default();
    // A reference pinned at a git revision does not change with the work tree.
    let Some(crate::reference::Location::Path(reference)) = &settings.reference else { return Ok(out) };
    let metadata = super::metadata_path(reference);
    let dir = match metadata.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if repo.relative(&dir).is_none() {
        return Ok(out);
    }
    let every_file = WalkOptions { include: Vec::new(), respect_ignore_files: false };
    let before = repo.load_sources(base, std::slice::from_ref(&dir), &every_file)?;
    let now = input::load_sources(
        std::slice::from_ref(&dir),
        &WalkOptions { include: vec!["*".into()], respect_ignore_files: false },
    );
    out.add(&shown(&before.sources), &shown(&now.sources));
    Ok(out)
}

/// `config-weakened` findings: the configuration in effect compared with the base's version
/// of the same file (the defaults when the base has none), and a deleted `driftlint.lock`.
/// Returns the configuration's text as a source for the reports, when there is a finding in it.
fn config_weakened(repo: &Repo, settings: &Settings, base: &Snapshot) -> (Vec<Diagnostic>, Option<Source>) {
    let now = settings.config.clone().unwrap_or_default();
    let config_path = now.file.clone().unwrap_or_else(|| PathBuf::from(super::config::FILE_NAME));
    let base_text = repo.relative(&config_path).and_then(|rel| base.get(&rel)).and_then(|id| repo.blob_text(id).ok());
    let base_config = base_text
        .and_then(|text| super::config::parse_config(&config_path, &text).ok())
        .unwrap_or_else(|| super::Config { dir: now.dir.clone(), ..super::Config::default() });
    let level = base_config
        .rules
        .get(&Rule::ConfigWeakened)
        .copied()
        .unwrap_or(super::Level::On(super::findings::default_severity(Rule::ConfigWeakened)));
    let super::Level::On(severity) = level else { return (Vec::new(), None) };
    let lock_path = now.lock_path();
    let lock_deleted = !lock_path.is_file() && repo.relative(&lock_path).is_some_and(|rel| base.get(&rel).is_some());
    let mut found = super::weakened::weakenings(&base_config, &now, lock_deleted.then_some(lock_path.as_path()));
    for d in &mut found {
        d.severity = severity;
    }
    let in_config = found.iter().any(|d| d.primary.path == SourcePath::File(config_path.clone()));
    let source = (in_config && now.file.is_some())
        .then(|| Source { path: SourcePath::File(config_path.clone()), text: now.text.clone() });
    (found, source)
}

/// Whether a source of the base state is part of the change (modified, deleted or renamed).
fn in_base_change(change: &Changes, path: &SourcePath) -> bool {
    matches!(path, SourcePath::File(p) if change.by_base_path(p).is_some())
}

/// Findings about a component rather than a line of a manifest.
fn is_component_finding(rule: Rule) -> bool {
    matches!(rule, Rule::MissingResource | Rule::CardinalityViolation)
}

/// The components (`part/component`) a change touches; `None` when it touches every one
/// (a reference file changed).
fn touched_components(
    change: &Changes,
    reference_changed: bool,
    now: &Correlations,
    base: Option<&Report>,
) -> Option<BTreeSet<String>> {
    if reference_changed {
        return None;
    }
    let mut templates: BTreeSet<&str> = BTreeSet::new();
    for o in &now.objects {
        if let SourcePath::File(p) = &o.path
            && let Some(c) = change.get(p)
            && changes::overlaps(&c.added, &o.lines)
        {
            templates.extend(o.templates.iter().map(String::as_str));
        }
    }
    for o in base.map(|b| b.correlations.objects.as_slice()).unwrap_or_default() {
        if let SourcePath::File(p) = &o.path
            && let Some(c) = change.by_base_path(p)
            && changes::overlaps(&c.removed, &o.lines)
        {
            templates.extend(o.templates.iter().map(String::as_str));
        }
    }
    Some(templates.into_iter().filter_map(|t| now.components.get(t)).flatten().cloned().collect())
}

/// The fingerprints of the base's findings, with paths of renamed files moved to their new
/// place (a moved file's old drift is not new).
fn base_fingerprints(diags: &[Diagnostic], change: &Changes) -> HashSet<String> {
    let renames: HashMap<&Path, &Path> = change.renames().collect();
    diags
        .iter()
        .map(|d| match &d.primary.path {
            SourcePath::File(p) if renames.contains_key(p.as_path()) => {
                let mut moved = d.clone();
                moved.primary.path = SourcePath::File(renames[p.as_path()].to_path_buf());
                moved.fingerprint()
            }
            _ => d.fingerprint(),
        })
        .collect()
}

/// Decides, finding by finding, what a diff filter shows.
struct Filter<'a> {
    change: &'a Changes,
    mode: DiffFilter,
    /// Each source's text and its line index, built on first use.
    texts: HashMap<SourcePath, (&'a str, OnceCell<LineIndex>)>,
    /// `None`: every component.
    touched: Option<BTreeSet<String>>,
    components: &'a BTreeMap<String, BTreeSet<String>>,
}

impl Filter<'_> {
    fn shows(&self, d: &Diagnostic) -> bool {
        if self.mode == DiffFilter::NoFilter {
            return true;
        }
        if is_component_finding(d.rule) {
            return self.touches_component(d);
        }
        // An input that could not be read was not checked at all: never out of scope.
        if d.rule == Rule::IoError {
            return true;
        }
        let SourcePath::File(path) = &d.primary.path else { return true };
        let Some(change) = self.change.get(path) else { return false };
        let line = match (&d.primary.range, self.texts.get(&d.primary.path)) {
            (Some(range), Some((text, index))) => {
                line_of(index.get_or_init(|| LineIndex::new(text)), text, range.start)
            }
            // A finding about the whole file: the file changed.
            _ => return true,
        };
        match self.mode {
            DiffFilter::Added => changes::contains(&change.added, line),
            DiffFilter::DiffContext => changes::contains(&change.hunks, line),
            DiffFilter::File | DiffFilter::NoFilter => true,
        }
    }

    /// A missing resource names its template; a cardinality violation its component.
    fn touches_component(&self, d: &Diagnostic) -> bool {
        let Some(touched) = &self.touched else { return true };
        let Some(object) = &d.object else { return true };
        match d.rule {
            Rule::MissingResource => match self.components.get(object) {
                Some(components) => components.iter().any(|c| touched.contains(c)),
                // A template no component lists cannot be told apart: show it.
                None => true,
            },
            _ => touched.contains(object),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_offsets() {
        let text = "a\nbc\nd";
        let index = LineIndex::new(text);
        assert_eq!(line_of(&index, text, 0), 1);
        assert_eq!(line_of(&index, text, 2), 2);
        assert_eq!(line_of(&index, text, 5), 3);
        assert_eq!(line_of(&index, text, 99), 3);
    }

    fn drift(path: &str, at: usize) -> Diagnostic {
        Diagnostic::error(Rule::ValueDrift, SourcePath::File(PathBuf::from(path)), Some(at..at + 1), "drift")
    }

    #[test]
    fn each_mode_on_added_context_and_far_lines() {
        let old = (1..=20).map(|i| format!("l{i}\n")).collect::<String>();
        let new = old.replace("l10\n", "L10\n");
        let mut change = Changes::default();
        let src = |t: &str| vec![Source { path: SourcePath::File(PathBuf::from("a.yaml")), text: t.to_string() }];
        change.add(&src(&old), &src(&new));
        let offset = |line: usize| new.lines().take(line - 1).map(|l| l.len() + 1).sum::<usize>();
        let components = BTreeMap::new();
        let shows = |mode, d: &Diagnostic| {
            Filter {
                change: &change,
                mode,
                texts: HashMap::from([(SourcePath::File(PathBuf::from("a.yaml")), (new.as_str(), OnceCell::new()))]),
                touched: Some(BTreeSet::new()),
                components: &components,
            }
            .shows(d)
        };
        let (on, near, far, elsewhere) =
            (drift("a.yaml", offset(10)), drift("a.yaml", offset(12)), drift("a.yaml", offset(18)), drift("b.yaml", 0));
        let modes = [DiffFilter::Added, DiffFilter::DiffContext, DiffFilter::File, DiffFilter::NoFilter];
        let row = |d: &Diagnostic| modes.map(|m| shows(m, d));
        assert_eq!(row(&on), [true, true, true, true]);
        assert_eq!(row(&near), [false, true, true, true]);
        assert_eq!(row(&far), [false, false, true, true]);
        assert_eq!(row(&elsewhere), [false, false, false, true]);
    }
}
