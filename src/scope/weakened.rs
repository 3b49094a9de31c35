//! The scope's side of `config-weakened`: what the change stops checking (files the base
//! checked that the head does not), and the configuration files, lock, policy data and trusted
//! schemas it adds or edits, read from the two states. What one configuration takes away from
//! another is `crate::config::weakened`'s to say.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::input::{Collected, Source, SourcePath};
use driftlint_git::states::{Repository, State, strip_dot};

use super::{ScopedError, base, every_file, shown};
use crate::config::Settings;

/// What a scoped check needs to tell which files the change stops checking.
pub(super) struct Layout<'a> {
    pub(super) repo: &'a Repository,
    pub(super) head: &'a Settings,
    pub(super) base: &'a Settings,
    pub(super) base_snapshot: &'a State,
    /// The files git tracks in the checked state (the index).
    pub(super) head_files: &'a State,
}

/// A file the base checked (or would check) and the head does not.
pub(super) struct Stopped {
    /// Where to report it: the file, or where it moved to.
    at: PathBuf,
    message: String,
}

/// At most this many files are listed one by one; the rest in one finding.
const MAX_STOPPED: usize = 50;

impl Layout<'_> {
    /// Manifests the base checked, or that the base's file selection (walk, `include`,
    /// `exclude`) would take among the head's tracked files, which the head does not check:
    /// ignored by a new ignore file, excluded, no longer included, moved into a hidden
    /// directory.
    pub(super) fn stopped_checking(
        &self,
        checked: &Collected,
        base_inputs: &Collected,
    ) -> Result<Vec<Stopped>, ScopedError> {
        let paths_of = |c: &Collected| -> Vec<PathBuf> {
            c.sources
                .iter()
                .filter_map(|s| match &s.path {
                    SourcePath::File(p) => Some(strip_dot(p.clone())),
                    SourcePath::Stdin => None,
                })
                .collect()
        };
        let reference_dir = match &self.head.reference {
            Some(driftlint_reference::Location::Path(r)) => {
                crate::check::metadata_path(r).parent().and_then(|d| self.repo.relative(d))
            }
            _ => None,
        };
        let in_reference =
            |rel: &str| reference_dir.as_deref().is_some_and(|d| d.is_empty() || rel.starts_with(&format!("{d}/")));
        let manifests = |settings: &Settings, paths: Vec<PathBuf>| -> Result<BTreeSet<String>, ScopedError> {
            Ok(crate::check::paths_not_excluded(settings, paths)?
                .iter()
                .filter(|p| p.file_name().is_none_or(|n| n != crate::config::FILE_NAME))
                .filter_map(|p| self.repo.relative(p))
                .filter(|r| !in_reference(r))
                .collect())
        };
        let head_walked: BTreeSet<String> = paths_of(checked).iter().filter_map(|p| self.repo.relative(p)).collect();
        // The kustomizations' texts of each side, by repository-relative path: they decide which
        // files are patches or kustomize's configuration rather than manifests.
        let texts = |c: &Collected| -> HashMap<String, String> {
            c.sources
                .iter()
                .filter_map(|s| match &s.path {
                    SourcePath::File(p) if driftlint_core::input::kustomize::is_kustomization(p) => {
                        Some((self.repo.relative(&strip_dot(p.clone()))?, s.text.clone()))
                    }
                    _ => None,
                })
                .collect()
        };
        let (head_texts, base_texts) = (texts(checked), texts(base_inputs));
        let head_text = |rel: &str| head_texts.get(rel).cloned();
        // Helm chart sources, tool files and the files kustomizations name as patches or as
        // their configuration are not linted as manifests ([`driftlint_core::input::layout`]):
        // judged from each side's own files, so a `Chart.yaml` the change adds over manifests,
        // or a kustomization that starts naming one as a patch, stops checking them.
        let head_claimed = driftlint_core::input::layout::claimed(&head_walked, head_text);
        let head_checked: BTreeSet<String> =
            manifests(self.head, paths_of(checked))?.difference(&head_claimed).cloned().collect();
        let base_walked: BTreeSet<String> =
            paths_of(base_inputs).iter().filter_map(|p| self.repo.relative(p)).collect();
        let base_checked: BTreeSet<String> = manifests(self.base, paths_of(base_inputs))?
            .difference(&driftlint_core::input::layout::claimed(&base_walked, |rel| base_texts.get(rel).cloned()))
            .cloned()
            .collect();
        let selected =
            self.repo.select_sources(self.head_files, &self.head.paths, &crate::check::walk_options(self.base))?;
        // Chart sources and tool files among them are not manifests under the base's rules
        // either: they are judged by the same files, so an unchanged chart stops nothing.
        let selected_paths = paths_of(&selected);
        let selected_walked: BTreeSet<String> = selected_paths.iter().filter_map(|p| self.repo.relative(p)).collect();
        let would: BTreeSet<String> = manifests(self.base, selected_paths)?
            .difference(&driftlint_core::input::layout::claimed(&selected_walked, head_text))
            .cloned()
            .collect();
        // Files new in the head, by blob: where a file the base checked went.
        let mut new_files: HashMap<driftlint_git::ObjectId, Vec<&str>> = HashMap::new();
        // And by file name, those in a hidden directory: where a file moved and edited went.
        let mut hidden_by_name: HashMap<&str, Vec<&str>> = HashMap::new();
        for (path, id) in self.head_files.files().filter(|(p, _)| self.base_snapshot.get(p).is_none()) {
            new_files.entry(id).or_default().push(path);
            if path.split('/').any(|c| c.starts_with('.')) {
                hidden_by_name.entry(path.rsplit('/').next().unwrap_or(path)).or_default().push(path);
            }
        }
        // Any file the change adds where nothing is checked: a manifest the change deletes may
        // have gone there, renamed and edited. In the walk but not checked (excluded, the
        // reference's directory, a chart's or tool's file), in a hidden directory, or passed
        // over by an ignore file; a file the walk's `include` does not take only when its text
        // reads like an object (a manifest renamed `deploy.txt`), so that a new README is none.
        let is_hidden = |p: &str| p.split('/').rev().skip(1).any(|c| c.starts_with('.'));
        let included = |p: &str| {
            let name = p.rsplit('/').next().unwrap_or(p);
            [".yaml", ".yml", ".json"].iter().any(|e| name.ends_with(e))
        };
        let looks_like_object = |id: driftlint_git::ObjectId| {
            self.repo.blob_text(id).is_ok_and(|t| t.contains("apiVersion") && t.contains("kind"))
        };
        let unchecked_new: Vec<&str> = self
            .head_files
            .files()
            .filter(|(p, _)| self.base_snapshot.get(p).is_none() && !head_checked.contains(*p))
            .filter(|(p, id)| head_walked.contains(*p) || is_hidden(p) || included(p) || looks_like_object(*id))
            .map(|(p, _)| p)
            .collect();
        let shown = |rel: &str| base::shown_path(self.repo, rel);
        let mut out: Vec<Stopped> = Vec::new();
        let mut seen = BTreeSet::new();
        // Whether the work-tree walk may pass over other files than at the base: an ignore
        // file added or changed, or other `include` globs.
        let is_ignore_file = |p: &str| matches!(p.rsplit('/').next(), Some(".gitignore" | ".ignore"));
        let walk_changed = self.head.include != self.base.include
            || self.head_files.files().any(|(p, id)| is_ignore_file(p) && self.base_snapshot.get(p) != Some(id));
        for rel in base_checked.union(&would).filter(|r| !head_checked.contains(*r)) {
            let still_there = self.head_files.get(rel).is_some() || head_walked.contains(rel);
            let (at, message) = if still_there {
                let why = if head_claimed.contains(rel) {
                    "a Helm chart's `Chart.yaml` (chart sources are not linted), its name as a tool's configuration file, or a kustomization naming it as a patch or as kustomize's own configuration now claims it"
                } else if head_walked.contains(rel) {
                    "an `exclude` glob leaves it out"
                } else if !walk_changed {
                    // Ignored at the base as well (the snapshot's selection does not read
                    // ignore files): the change did not stop checking it.
                    continue;
                } else {
                    "the walk passes it over (an ignore file such as `.gitignore` or `.ignore` hides it, or `include` does not take it)"
                };
                (shown(rel), format!("{} is not checked any more: {why}", shown(rel).display()))
            } else {
                let Some(id) = self.base_snapshot.get(rel) else { continue };
                let name = rel.rsplit('/').next().unwrap_or(rel);
                let unchecked = |t: &&&str| !head_checked.contains(**t);
                let target = new_files
                    .get(&id)
                    .and_then(|v| v.iter().find(unchecked))
                    .or_else(|| hidden_by_name.get(name).and_then(|v| v.iter().find(unchecked)))
                    .copied();
                match target {
                    Some(target) => (
                        shown(target),
                        format!(
                            "{} moved to {}, which is not checked (a hidden directory, ignored or excluded)",
                            shown(rel).display(),
                            shown(target).display()
                        ),
                    ),
                    None => {
                        let Some(first) = unchecked_new.first() else { continue };
                        let listed: Vec<String> =
                            unchecked_new.iter().take(3).map(|t| shown(t).display().to_string()).collect();
                        let more = unchecked_new.len().saturating_sub(3);
                        (
                            shown(first),
                            format!(
                                "{} was checked and is deleted, while the change adds {}{} where nothing is checked (a hidden directory, the reference's directory, a chart's or tool's file, ignored or excluded): if it moved there, it is no longer checked",
                                shown(rel).display(),
                                listed.join(", "),
                                if more > 0 { format!(" and {more} more") } else { String::new() }
                            ),
                        )
                    }
                }
            };
            if seen.insert(at.clone()) {
                out.push(Stopped { at, message });
            }
        }
        if out.len() > MAX_STOPPED {
            let rest: Vec<String> = out.drain(MAX_STOPPED..).map(|s| s.at.display().to_string()).collect();
            let at = rest.first().map(PathBuf::from).unwrap_or_default();
            out.push(Stopped {
                at,
                message: format!("{} more files are not checked any more: {}", rest.len(), rest.join(", ")),
            });
        }
        Ok(out)
    }
}

/// `config-weakened` findings and the texts they point into.
pub(super) struct Weakened {
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) sources: Vec<Source>,
}

/// `config-weakened` findings: the configuration in effect compared with the base's (the
/// base's version of the file, else the nearest one above it in the base tree, else the
/// defaults); every other configuration file the change adds or edits, compared with the
/// base's configuration for its directory; `driftlint.lock` deleted or re-pinned; policy data
/// files added; and the files the change stops checking.
pub(super) fn config_weakened(
    layout: &Layout<'_>,
    base_config: &crate::config::Config,
    stopped: Vec<Stopped>,
) -> Weakened {
    let (repo, settings, base) = (layout.repo, layout.head, layout.base_snapshot);
    let mut out = Weakened { diagnostics: Vec::new(), sources: Vec::new() };
    let now = settings.config.clone().unwrap_or_default();
    let config_path = now.file.clone().unwrap_or_else(|| PathBuf::from(crate::config::FILE_NAME));
    let level = base_config
        .rules
        .get(&Rule::ConfigWeakened)
        .copied()
        .unwrap_or(crate::config::Level::On(Rule::ConfigWeakened.default_severity()));
    let crate::config::Level::On(severity) = level else { return out };
    let lock_path = now.lock_path();
    let base_lock = repo.relative(&lock_path).and_then(|rel| base.get(&rel));
    let lock_deleted = !lock_path.is_file() && base_lock.is_some();
    // `--isolated` reads no configuration file and no lock, in either state.
    let mut found = match settings.isolated {
        true => Vec::new(),
        false => crate::config::weakened::weakenings(base_config, &now, lock_deleted.then_some(lock_path.as_path())),
    };
    if !settings.isolated
        && let Some(id) = base_lock
        && let Ok(text) =
            driftlint_core::input::read_bounded_to_string(&lock_path, driftlint_core::input::MAX_FILE_BYTES)
        && repo.blob_text(id).is_ok_and(|before| before != text)
    {
        found.push(crate::config::weakened::repinned(&lock_path));
        out.sources.push(Source { path: SourcePath::File(lock_path.clone()), text });
    }
    if found.iter().any(|d| d.primary.path == SourcePath::File(config_path.clone())) && now.file.is_some() {
        out.sources.push(Source { path: SourcePath::File(config_path.clone()), text: now.text.clone() });
    }
    // Every other configuration file of the checked state that the change adds or edits.
    let effective = repo.relative(&config_path);
    for (rel, id) in layout.head_files.files().filter(|_| !settings.isolated) {
        let is_config = rel == crate::config::FILE_NAME || rel.ends_with(&format!("/{}", crate::config::FILE_NAME));
        if !is_config || Some(rel) == effective.as_deref() || base.get(rel) == Some(id) {
            continue;
        }
        let shown = base::shown_path(repo, rel);
        let Ok(text) = repo.blob_text(id) else { continue };
        let Ok(config) = crate::config::parse_config(&shown, &text) else { continue };
        let dir = shown.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let before = base::base_config(repo, base, &dir);
        let more = crate::config::weakened::weakenings(&before, &config, None);
        if !more.is_empty() {
            found.extend(more);
            out.sources.push(Source { path: SourcePath::File(shown), text });
        }
    }
    // Policy data files added: data can override what the policies decide.
    for data in settings.policy.data.iter().filter(|d| !driftlint_git::is_location(d)) {
        let path = PathBuf::from(data);
        if repo.relative(&path).is_none() {
            continue;
        }
        let Ok((before, now)) = every_file(repo, base, &path) else { continue };
        let file = |s: Source| match s.path {
            SourcePath::File(p) => Some(p),
            SourcePath::Stdin => None,
        };
        let before: BTreeSet<PathBuf> = shown(&before).into_iter().filter_map(file).collect();
        for source in shown(&now) {
            if let SourcePath::File(p) = &source.path
                && !before.contains(p)
            {
                found.push(crate::config::weakened::data_added(p));
            }
        }
    }
    // Trusted schemas the change adds or edits: they outrank the built-in kinds and the checked
    // definitions, and the base is judged with them too, so a laxer copy would hide findings.
    if !settings.isolated {
        let roots: Vec<String> = settings
            .schemas
            .iter()
            .filter(|s| !driftlint_git::is_location(s))
            .cloned()
            .chain(settings.schema_locations.iter().map(|l| base::location_root(l)))
            .filter_map(|p| repo.relative(Path::new(&p)))
            .collect();
        let under = |rel: &str| roots.iter().any(|r| r.is_empty() || rel == r || rel.starts_with(&format!("{r}/")));
        for (rel, id) in layout.head_files.files() {
            if under(rel) && base.get(rel) != Some(id) {
                let shown = base::shown_path(repo, rel);
                let what = if base.get(rel).is_some() { "changed" } else { "added" };
                found.push(crate::config::weakened::trusted_schema_edited(&shown, what));
            }
        }
    }
    for s in stopped {
        found.push(Diagnostic::new(Rule::ConfigWeakened, severity, SourcePath::File(s.at), None, s.message));
    }
    for d in &mut found {
        d.severity = severity;
    }
    out.diagnostics = found;
    out
}
