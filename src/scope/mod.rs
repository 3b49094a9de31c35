//! Changed-file scopes: `driftlint check --staged` and `--base REV`, with reviewdog's
//! `--diff-filter` modes and `--new-only`.
//!
//! Findings are always computed on the whole set of inputs in the state being checked — the
//! index for `--staged` (staged contents, also of partially staged files), the work tree for
//! `--base` — so that cardinality and missing-resource findings see every object. The scope
//! decides which findings are *shown*, by one rule: **a finding the change caused is shown
//! wherever its line is.**
//!
//! * The change is the difference between the base (`HEAD` for `--staged`, the merge-base of
//!   `REV` and `HEAD` for `--base`) and the checked state, file by file and line by line
//!   ([`crate::scope::changes`]): inputs, reference files, and the other files the check reads
//!   (schemas, policies, policy data and cases, diff config, overrides, the configuration).
//!   Uncommitted edits count as part of the change with `--base`, as in `git diff REV...` plus
//!   the work tree.
//! * A finding is *new* when the base state, checked as it was ([`super::base`]: its inputs,
//!   configuration, reference, schemas and policies read from the base commit), has no finding
//!   with its [`Diagnostic::fingerprint`] (rule, path, object, field — never a line; paths of
//!   renamed files moved to their new place). A new finding is always shown: a policy deny on
//!   the object's `kind:` line, a required field deleted, drift a reference change causes on
//!   untouched lines. The base is checked only when the diff filter alone would hide a finding,
//!   so a run whose findings are all on changed lines costs one check. When the base cannot be
//!   checked at all, every finding counts as new ([`Scoped::base_error`]).
//! * The diff filter decides about the findings the base has as well: `added` (the default):
//!   the finding's line was added or modified; `diff-context`: it lies in a diff hunk (the
//!   change with 3 lines of context); `file`: anywhere in a changed file; `nofilter`:
//!   everything. A finding without a line in a changed file is shown by all modes.
//!   `--new-only` hides every finding the base has.
//! * Findings that belong to no manifest line — `missing-resource` and `cardinality-violation`,
//!   reported at their component in `metadata.yaml` — and that the base has too are shown when
//!   the change *touches their component*: an object whose lines changed correlates (now, or at
//!   the base) with a template of that component, or a file of the reference changed.
//! * `io-error` findings are always shown: an input that could not be read was not checked.
//! * What the change does to the check itself is `config-weakened`, always shown
//!   ([`crate::config::weakened`]): the configuration in effect and every other configuration file
//!   compared with the base's, the lock, policy data files added, and every manifest the base
//!   checked (or would check) that the head does not.
//!
//! Hidden findings are counted ([`Scoped::hidden_outside`], [`Scoped::hidden_existing`]) so
//! the CLI can say so; nothing disappears without a trace.

mod admission;
pub mod base;
pub mod changes;
pub mod immutable;
pub mod named;
mod weakened;

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use driftlint_yaml::LineIndex;

use self::changes::Changes;
use self::weakened::{Layout, Weakened, config_weakened};
use crate::check::{CheckError, Report};
use crate::config::Settings;
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::input::{self, Source, SourcePath, WalkOptions};
use driftlint_git::states::{Repository, ScopeError, State, strip_dot};
use driftlint_reference::drift::correlations::Correlations;

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
            DiffFilter::DiffContext => "diff-context",
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
    /// Why the base state could not be checked, when it could not: every finding is then
    /// shown as new.
    pub base_error: Option<String>,
}

/// Why a scoped check could not run.
#[derive(Debug, thiserror::Error)]
pub enum ScopedError {
    #[error(transparent)]
    Git(#[from] ScopeError),
    #[error(transparent)]
    Check(#[from] CheckError),
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
    let repo = Repository::discover(&start)?;
    let walk = crate::check::walk_options(settings);
    let head_files = repo.index_snapshot()?;
    let (base_commit, base) = match &opts.mode {
        Mode::Staged => (repo.head()?, "HEAD".to_string()),
        Mode::Base(rev) => {
            let commit = repo.merge_base(rev)?;
            (Some(commit), format!("merge-base {} of {rev}", commit.to_hex_with_len(12)))
        }
    };
    let base_snapshot = repo.tree_snapshot(base_commit)?;
    // A named path is checked where it is: absent from one state, it was added or removed
    // there. Absent from every state, it is a typo, a usage error as in an unscoped run.
    let on_disk = |p: &PathBuf| std::fs::symlink_metadata(p).is_ok();
    for path in settings.paths.iter().filter(|p| p.as_os_str() != "-" && !on_disk(p)) {
        let rel = repo
            .relative(path)
            .ok_or_else(|| ScopeError::OutsideRepository { path: path.clone(), root: repo.root().to_path_buf() })?;
        if !head_files.holds(&rel) && !base_snapshot.holds(&rel) {
            return Err(ScopeError::Nowhere { path: path.clone(), base }.into());
        }
    }
    let checked = match &opts.mode {
        Mode::Staged => repo.load_sources(&head_files, &settings.paths, &walk)?,
        // The work tree: a path it no longer has (removed, not yet staged) holds nothing.
        Mode::Base(_) => {
            let paths: Vec<PathBuf> =
                settings.paths.iter().filter(|p| p.as_os_str() == "-" || on_disk(p)).cloned().collect();
            if paths.is_empty() {
                input::Collected::default()
            } else {
                crate::check::collect_inputs(&Settings { paths, ..settings.clone() })
            }
        }
    };
    // The base is checked as it was: its configuration, its policies, schemas and reference.
    let config_dir = settings.config.as_ref().map_or_else(|| settings.git_start.clone(), |c| c.dir.clone());
    let base_config = match settings.isolated {
        true => crate::config::Config { dir: config_dir.clone(), ..crate::config::Config::default() },
        false => base::base_config(&repo, &base_snapshot, &config_dir),
    };
    let base_settings = base::base_settings(&repo, settings, &base_config, base_commit, &base_snapshot);
    let base_inputs =
        repo.load_sources(&base_snapshot, &settings.paths, &crate::check::walk_options(&base_settings))?;
    let mut change = Changes::default();
    change.add(&shown(&base_inputs.sources), &shown(&checked.sources));
    let reference_files = reference_changes(&repo, settings, &base_snapshot)?;
    let reference_changed = !reference_files.is_empty();
    change.files.extend(reference_files.files);
    // Policies, policy data, schemas and configuration files are part of the change too.
    change.files.extend(check_input_changes(&repo, settings, &base_snapshot)?.files);
    let layout = Layout {
        repo: &repo,
        head: settings,
        base: &base_settings,
        base_snapshot: &base_snapshot,
        head_files: &head_files,
    };
    // A repository without commits has no reviewed configuration that a change could weaken.
    let stopped = match base_commit {
        Some(_) => layout.stopped_checking(&checked, &base_inputs)?,
        None => Vec::new(),
    };

    // Immutable fields compared between the two states' objects (none without a base commit).
    let immutable = match base_commit {
        Some(_) => immutable::changes(settings, &base_inputs.sources, &checked.sources),
        None => immutable::Found::default(),
    };
    // What the change to the admission policies silences (none without a base commit).
    let (silenced, silenced_sources) = match base_commit {
        Some(_) => admission::silenced(settings, shown(&base_inputs.sources), shown(&checked.sources)),
        None => (Vec::new(), Vec::new()),
    };
    let mut report = crate::check::check_sources(settings, checked)?;
    let diags = std::mem::take(&mut report.diagnostics);
    let total = diags.len();
    let texts: HashMap<SourcePath, (&str, OnceCell<LineIndex>)> =
        report.sources.iter().map(|s| (s.path.clone(), (s.text.as_str(), OnceCell::new()))).collect();
    let components = &report.correlations.components;
    let touched = touched_components(&change, reference_changed, &report.correlations, None);
    let first = Filter { change: &change, mode: opts.filter, texts, touched, components };
    // The base is checked only when the filter alone would hide something: a finding is
    // hidden only when the base has it too.
    let base_report = if opts.new_only || diags.iter().any(|d| !first.shows(d)) {
        Some(crate::check::check_sources(&base_settings, base_inputs))
    } else {
        None
    };
    let base_error = match &base_report {
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let base_report = base_report.and_then(Result::ok);
    let filter = Filter {
        touched: touched_components(&change, reference_changed, &report.correlations, base_report.as_ref()),
        ..first
    };
    // `None`: every finding is new (no base was needed, or it could not be checked).
    let existing = base_report.as_ref().map(|b| base_fingerprints(&repo, base_commit, &b.diagnostics, &change));
    let is_new = |d: &Diagnostic| existing.as_ref().is_none_or(|e| !e.contains(&repository_fingerprint(&repo, d)));
    let mut shown = Vec::new();
    let (mut hidden_outside, mut hidden_existing) = (0, 0);
    for d in diags {
        // A finding the change caused is shown wherever its line is; the filter and
        // `--new-only` only decide about findings the base has as well.
        if is_new(&d) || d.rule == Rule::IoError || cannot_run(&d) {
            shown.push(d);
        } else if opts.new_only {
            hidden_existing += 1;
        } else if filter.shows(&d) {
            shown.push(d);
        } else {
            hidden_outside += 1;
        }
    }
    debug_assert_eq!(shown.len() + hidden_outside + hidden_existing, total);
    // What the change does to the configuration itself: always shown, at its level in the
    // base's configuration (the change cannot lower it), never silenced by the changed file.
    let weakened = match base_commit {
        Some(_) => config_weakened(&layout, &base_config, stopped),
        None => Weakened { diagnostics: Vec::new(), sources: Vec::new() },
    };
    shown.extend(weakened.diagnostics);
    shown.extend(immutable.diagnostics);
    if let crate::config::Level::On(severity) = base_config
        .rules
        .get(&Rule::ConfigWeakened)
        .copied()
        .unwrap_or(crate::config::Level::On(Rule::ConfigWeakened.default_severity()))
    {
        shown.extend(silenced.into_iter().map(|d| Diagnostic { severity, ..d }));
    }
    for source in weakened.sources.into_iter().chain(immutable.sources).chain(silenced_sources) {
        if !report.sources.iter().any(|s| s.path == source.path) {
            report.sources.push(source);
        }
    }
    crate::check::sort(&mut shown);
    report.diagnostics = shown;
    Ok(Scoped { report, base, changed_files: change.files.len(), hidden_outside, hidden_existing, base_error })
}

/// A finding's fingerprint with its path as the repository knows it (see
/// [`base::repository_path`]), so that findings of the head and of the base compare.
fn repository_fingerprint(repo: &Repository, d: &Diagnostic) -> String {
    let mut d = d.clone();
    d.primary.path = base::repository_path(repo, None, &d.primary.path);
    d.fingerprint()
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
fn reference_changes(repo: &Repository, settings: &Settings, base: &State) -> Result<Changes, ScopedError> {
    let mut out = Changes::default();
    // A reference pinned at a git revision does not change with the work tree.
    let Some(driftlint_reference::Location::Path(reference)) = &settings.reference else { return Ok(out) };
    let metadata = crate::check::metadata_path(reference);
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

/// The files a check reads besides its inputs and the reference — schemas, policies, policy
/// data and cases, diff config, overrides, the configuration file — as changes between the
/// base and the work tree: a finding on a line the change added to a policy is on a changed
/// line.
fn check_input_changes(repo: &Repository, settings: &Settings, base: &State) -> Result<Changes, ScopedError> {
    let mut paths: BTreeSet<PathBuf> = BTreeSet::new();
    let listed = settings
        .schemas
        .iter()
        .chain(&settings.policy.policies)
        .chain(&settings.policy.data)
        .chain(&settings.policy.cases)
        .filter(|p| !driftlint_git::is_location(p))
        .map(PathBuf::from);
    paths.extend(listed);
    paths.extend(settings.diff_config.iter().chain(&settings.overrides).cloned());
    paths.extend(settings.config.as_ref().and_then(|c| c.file.clone()));
    let mut out = Changes::default();
    for path in paths.into_iter().filter(|p| repo.relative(p).is_some()) {
        let (before, now) = every_file(repo, base, &path)?;
        out.add(&shown(&before), &shown(&now));
    }
    Ok(out)
}

/// Every file at `path` (a file or a directory) in the base snapshot and in the work tree.
fn every_file(repo: &Repository, base: &State, path: &Path) -> Result<(Vec<Source>, Vec<Source>), ScopedError> {
    let all = WalkOptions { include: Vec::new(), respect_ignore_files: false };
    let before = repo.load_sources(base, &[path.to_path_buf()], &all)?;
    let now = input::load_sources(
        &[path.to_path_buf()],
        &WalkOptions { include: vec!["*".into()], respect_ignore_files: false },
    );
    Ok((before.sources, now.sources))
}

/// Whether `d` says a pass could not run, or not for everything: a policy that does not
/// compile or fails, a reference or a definition that cannot be used. Shown in every scope, at
/// the base or not: an old failure still leaves the change unchecked.
fn cannot_run(d: &Diagnostic) -> bool {
    d.severity == Severity::Error && matches!(d.rule, Rule::PolicyError | Rule::InvalidReference | Rule::InvalidSchema)
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

/// The fingerprints of the base's findings, with paths as the repository knows them and
/// renamed files moved to their new place (a moved file's old drift is not new).
fn base_fingerprints(
    repo: &Repository,
    commit: Option<driftlint_git::ObjectId>,
    diags: &[Diagnostic],
    change: &Changes,
) -> HashSet<String> {
    let renames: HashMap<&Path, &Path> = change.renames().collect();
    diags
        .iter()
        .map(|d| {
            let mut moved = d.clone();
            if let SourcePath::File(p) = &d.primary.path
                && let Some(to) = renames.get(p.as_path())
            {
                moved.primary.path = SourcePath::File(to.to_path_buf());
            }
            moved.primary.path = base::repository_path(repo, commit, &moved.primary.path);
            moved.fingerprint()
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
