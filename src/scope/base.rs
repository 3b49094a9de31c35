//! The base state of a scoped check (`--base`, `--staged`): what the repository checked like
//! before the change, so that a finding can be called *new* — caused by the change — by its
//! line-independent fingerprint.
//!
//! The base is checked with everything of its own: its inputs (read from git), its
//! configuration (discovered in the base tree as it would be in the work tree), and every
//! file the check reads from the repository — reference, schemas, policies, policy data,
//! policy cases, diff config, overrides — read from the base commit (`git:COMMIT:PATH`), never
//! from the work tree. Only that way does a change to a policy, a schema or the reference show
//! the findings it causes: checked with the head's policies, the base would have them too.
//!
//! Settings that come from the command line stay as given (they are the run's, not the
//! change's). `driftlint.lock` is not verified at the base: its `reference-changed` findings
//! compare the lock with the head's reference location, and the lock's own changes are
//! `config-weakened` ([`crate::config::weakened`]).
//!
//! This module does not decide what is shown; [`super::scope`] does.

use std::path::{Path, PathBuf};

use driftlint_git::ObjectId;

use crate::config::{self, Config, Settings};
use driftlint_core::input::SourcePath;
use driftlint_git::states::{Repository, State};
use driftlint_reference::Location;

/// The configuration the base had for a run whose configuration file is `file` (or which
/// starts in `dir` without one): the base's version of that file, else the nearest
/// `.driftlint.yaml` above it in the base tree (up to the repository root), else the defaults.
/// A base configuration that does not parse is the defaults (the base was reviewed; its own
/// run would have stopped on it).
pub fn base_config(repo: &Repository, snapshot: &State, dir: &Path) -> Config {
    let defaults = || Config { dir: dir.to_path_buf(), ..Config::default() };
    let Some(rel) = repo.relative(dir) else { return defaults() };
    let mut at = rel;
    loop {
        let candidate =
            if at.is_empty() { config::FILE_NAME.to_string() } else { format!("{at}/{}", config::FILE_NAME) };
        if let Some(id) = snapshot.get(&candidate) {
            let shown = shown_path(repo, &candidate);
            return repo
                .blob_text(id)
                .ok()
                .and_then(|text| config::parse_config(&shown, &text).ok())
                .unwrap_or_else(defaults);
        }
        if at.is_empty() {
            return defaults();
        }
        at = at.rsplit_once('/').map_or(String::new(), |(parent, _)| parent.to_string());
    }
}

/// A repository-relative path as the work tree's paths are shown: relative to the working
/// directory when below it.
pub fn shown_path(repo: &Repository, rel: &str) -> PathBuf {
    let abs = repo.root().join(rel);
    match std::env::current_dir().ok().and_then(|cwd| cwd.canonicalize().ok()) {
        Some(cwd) => match abs.strip_prefix(&cwd) {
            Ok(p) if p.as_os_str().is_empty() => PathBuf::from("."),
            Ok(p) => p.to_path_buf(),
            Err(_) => abs,
        },
        None => abs,
    }
}

/// The settings that check the base state: `head` with the base configuration's rules,
/// suppressions and file selection, and every repository path pinned at `commit`.
/// `commit` is `None` in a repository without commits: the base is empty and has no
/// reference, schemas or policies.
pub fn base_settings(
    repo: &Repository,
    head: &Settings,
    base: &Config,
    commit: Option<ObjectId>,
    snapshot: &State,
) -> Settings {
    let mut out = head.clone();
    out.lock = None;
    if head.config.is_some() {
        out.rules = base.rules.clone();
        out.ignore = base.ignore.clone();
        out.exclude = base.exclude.clone();
        out.include = base.include.clone();
    }
    let pin = |written: &str| -> Option<String> { pin_at(repo, commit, snapshot, written) };
    out.reference = match &head.reference {
        Some(Location::Path(p)) => match repo.relative(p) {
            Some(_) => pin(&p.to_string_lossy()).and_then(|l| Location::parse(&l).ok()),
            None => head.reference.clone(),
        },
        other => other.clone(),
    };
    let pin_all = |list: &[String]| -> Vec<String> { list.iter().filter_map(|s| pin(s)).collect() };
    out.schemas = pin_all(&head.schemas);
    out.schema_locations =
        head.schema_locations.iter().filter_map(|l| pin_location(repo, commit, snapshot, l)).collect();
    out.policy.policies = pin_all(&head.policy.policies);
    out.policy.data = pin_all(&head.policy.data);
    out.policy.cases = head.policy.cases.as_deref().and_then(pin);
    out.diff_config = head.diff_config.as_ref().and_then(|p| pin(&p.to_string_lossy())).map(PathBuf::from);
    out.overrides = head.overrides.as_ref().and_then(|p| pin(&p.to_string_lossy())).map(PathBuf::from);
    out
}

/// A path as a setting writes it, read at `commit` instead of the work tree: a path inside the
/// repository becomes `git:COMMIT:PATH` (`None` when the base has no such file or directory);
/// git locations and paths outside the repository (given on the command line) stay.
fn pin_at(repo: &Repository, commit: Option<ObjectId>, snapshot: &State, written: &str) -> Option<String> {
    if driftlint_git::is_location(written) {
        return Some(written.to_string());
    }
    let Some(rel) = repo.relative(Path::new(written)) else { return Some(written.to_string()) };
    let commit = commit?;
    let exists = rel.is_empty() || snapshot.get(&rel).is_some() || snapshot.has_dir(&rel);
    exists.then(|| format!("{}{}:{rel}", driftlint_git::location::GIT_PREFIX, commit))
}

/// The directory a schema location reads below: a template's text before its first variable,
/// up to the last `/` (`schemas/{{ .ResourceKind }}.json` → `schemas`), or the location itself.
pub fn location_root(location: &str) -> String {
    match location.find("{{") {
        Some(i) => location[..i].rsplit_once('/').map_or_else(String::new, |(dir, _)| dir.to_string()),
        None => location.trim_end_matches('/').to_string(),
    }
}

/// A schema location read at `commit` instead of the work tree: a location inside the
/// repository becomes `git:COMMIT:TEMPLATE` (`None` when the base has nothing at its
/// directory); git locations and locations outside the repository (given on the command line)
/// stay.
fn pin_location(repo: &Repository, commit: Option<ObjectId>, snapshot: &State, location: &str) -> Option<String> {
    if driftlint_git::is_location(location) {
        return Some(location.to_string());
    }
    let root = location_root(location);
    let Some(rel_root) = repo.relative(Path::new(&root)) else { return Some(location.to_string()) };
    let commit = commit?;
    let exists = rel_root.is_empty() || snapshot.get(&rel_root).is_some() || snapshot.has_dir(&rel_root);
    let rest = location.strip_prefix(&root).unwrap_or_default().trim_start_matches('/');
    let template = match (rel_root.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (false, true) => rel_root,
        (false, false) => format!("{rel_root}/{rest}"),
    };
    exists.then(|| format!("{}{}:{template}", driftlint_git::location::GIT_PREFIX, commit))
}

/// A finding's path as the repository knows it, for comparing findings of two states: a file
/// of the base read through `git:COMMIT:` is named by its path in the repository, as is a
/// work-tree file.
pub fn repository_path(repo: &Repository, commit: Option<ObjectId>, path: &SourcePath) -> SourcePath {
    let SourcePath::File(p) = path else { return path.clone() };
    let text = p.to_string_lossy();
    if let Some(commit) = commit {
        let prefix = format!("{}{}:", driftlint_git::location::GIT_PREFIX, commit);
        if let Some(rest) = text.strip_prefix(&prefix) {
            return SourcePath::File(PathBuf::from(rest));
        }
    }
    match repo.relative(p) {
        Some(rel) => SourcePath::File(PathBuf::from(rel)),
        None => path.clone(),
    }
}
