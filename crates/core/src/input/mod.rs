//! Collecting input sources: explicit files, directory walks that honour `.gitignore` and
//! `.ignore` (the `ignore` crate, as ripgrep does), and standard input.
//!
//! This module reads bytes and decides *which* files are inputs; it does not parse YAML
//! (that is [`crate::document`]). Every read of a file a repository can name goes through
//! [`bounded`]: regular files only, never more than a limit.

mod bounded;
pub mod kustomize;
pub mod layout;

use std::path::{Path, PathBuf};

pub use bounded::{
    MAX_FILE_BYTES, Refused, read_bounded, read_bounded_to_string, read_listed_file, read_listed_file_to_string,
    read_stdin_bounded, read_stdin_bounded_to_string, utf8_message,
};

use crate::confine::{Boundary, Refusal, confine};
use crate::diagnostic::{Diagnostic, Rule};
pub use crate::source::{Source, SourcePath};

/// Which files a directory walk takes.
#[derive(Clone, Debug)]
pub struct WalkOptions {
    /// File-name globs taken during a walk (explicitly named files are always taken).
    pub include: Vec<String>,
    /// Honour `.gitignore`, `.ignore` and git's global excludes.
    pub respect_ignore_files: bool,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions { include: vec!["*.yaml".into(), "*.yml".into(), "*.json".into()], respect_ignore_files: true }
    }
}

/// The result of collecting sources: what could be read, and a diagnostic for each path that
/// could not (never silently dropped).
#[derive(Clone, Debug, Default)]
pub struct Collected {
    pub sources: Vec<Source>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads every input named by `paths`: `-` is standard input, a directory is walked, anything
/// else is read as a file whatever its extension. Directory walks are sorted by path, so
/// output is deterministic.
///
/// A named path goes through [`confine`] whole, every component: pre-commit names committed
/// files, and `ci/dirlink/x.yaml` with `ci/dirlink` a link out of the repository is refused
/// as a link named last is. The boundary is the working directory's repository; a path named
/// outside it was chosen by whoever runs driftlint, and its own repository bounds it.
pub fn load_sources(paths: &[PathBuf], opts: &WalkOptions) -> Collected {
    load(paths, opts, None)
}

/// Why a walk did not enter a directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Skip {
    /// Its name starts with a dot.
    Hidden,
    /// An ignore file (`.gitignore`, `.ignore`, git's excludes) hides it.
    Ignored,
    /// The configuration's `exclude:` (or `--exclude`) leaves its files out (judged by the
    /// caller, which applies the globs).
    Excluded,
}

impl Skip {
    fn name(self) -> &'static str {
        match self {
            Skip::Hidden => "hidden",
            Skip::Ignored => "ignored",
            Skip::Excluded => "excluded",
        }
    }
}

/// [`load_sources`], and the directories the walks passed over (hidden, or hidden by an
/// ignore file) that hold files that read like Kubernetes manifests ([`looks_like_manifest`]):
/// a repository whose manifests sit in `.deploy/` or in an ignored `build/` would otherwise
/// pass with "no problems found". Finding them costs one directory listing per directory
/// walked, and a bounded look into each directory passed over.
pub fn load_sources_noting_skipped(paths: &[PathBuf], opts: &WalkOptions) -> (Collected, Vec<(PathBuf, Skip)>) {
    let mut skipped = Vec::new();
    let collected = load(paths, opts, Some(&mut skipped));
    (collected, skipped)
}

/// How many directories [`skipped_note`] names; the others are counted.
const MAX_NAMED_SKIPPED: usize = 8;

/// The one note of a run that passed over directories holding manifests, naming them (at most
/// [`MAX_NAMED_SKIPPED`], then "and N more") with why each was skipped. `None` when there
/// are none.
pub fn skipped_note(skipped: &[(PathBuf, Skip)]) -> Option<Diagnostic> {
    let mut skipped = skipped.to_vec();
    skipped.sort();
    skipped.dedup();
    let first = skipped.first()?.0.clone();
    let shown: Vec<String> =
        skipped.iter().take(MAX_NAMED_SKIPPED).map(|(d, why)| format!("{} ({})", d.display(), why.name())).collect();
    let more = match skipped.len().saturating_sub(MAX_NAMED_SKIPPED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(
        Diagnostic::new(
            Rule::IoError,
            crate::diagnostic::Severity::Note,
            SourcePath::File(first),
            None,
            format!(
                "{} {} holding Kubernetes manifests not checked: {}{more}",
                skipped.len(),
                if skipped.len() == 1 { "directory" } else { "directories" },
                shown.join(", ")
            ),
        )
        .with_help(format!(
            "name a directory as a path to check it (`driftlint check {}`), or take it out of the ignore file or `exclude:`",
            skipped[0].0.display()
        )),
    )
}

/// Whether a text reads like a Kubernetes manifest: a line starting `apiVersion:` and one
/// starting `kind:` (what a directory passed over is judged by: CI workflows and tools'
/// configuration in `.github/` are YAML too, and no reason for a note).
pub fn looks_like_manifest(text: &str) -> bool {
    let (mut api, mut kind) = (false, false);
    for line in text.lines() {
        api |= line.starts_with("apiVersion:");
        kind |= line.starts_with("kind:");
        if api && kind {
            return true;
        }
    }
    false
}

fn load(paths: &[PathBuf], opts: &WalkOptions, mut skipped: Option<&mut Vec<(PathBuf, Skip)>>) -> Collected {
    let mut out = Collected::default();
    let mut stdin_read = false;
    let here = Boundary::of_working_directory();
    for path in paths {
        if path.as_os_str() == "-" {
            if stdin_read {
                continue;
            }
            stdin_read = true;
            match read_stdin_bounded_to_string(MAX_FILE_BYTES) {
                Ok(text) => out.sources.push(Source { path: SourcePath::Stdin, text }),
                Err(e) => out.diagnostics.push(io_error(&SourcePath::Stdin, &e)),
            }
            continue;
        }
        let boundary = if here.holds_lexically(path) {
            here.clone()
        } else {
            let anchor = if path.is_dir() { path.as_path() } else { path.parent().unwrap_or(Path::new(".")) };
            Boundary::around(if anchor.as_os_str().is_empty() { Path::new(".") } else { anchor })
        };
        let real = match confine(path, &boundary) {
            Ok(real) => real,
            Err(refusal) => {
                out.diagnostics.push(refused(path, &refusal));
                continue;
            }
        };
        if real.is_dir() {
            walk_dir(path, opts, &boundary, &mut out, skipped.as_deref_mut());
        } else {
            read_file(path, &real, &mut out);
        }
    }
    out
}

/// The `io-error` of a path [`confine`] refused, at the path as named.
fn refused(path: &Path, refusal: &Refusal) -> Diagnostic {
    Diagnostic::error(Rule::IoError, SourcePath::File(path.to_path_buf()), None, refusal.to_string())
}

/// The include globs as the walker applies them (`None`: take every file).
pub fn include_types(include: &[String]) -> Option<ignore::types::Types> {
    if include.is_empty() {
        return None;
    }
    let mut types = ignore::types::TypesBuilder::new();
    for glob in include {
        let _ = types.add("manifest", glob);
    }
    types.select("manifest");
    types.build().ok()
}

fn walk_dir(
    dir: &Path,
    opts: &WalkOptions,
    boundary: &Boundary,
    out: &mut Collected,
    skipped: Option<&mut Vec<(PathBuf, Skip)>>,
) {
    // File types, not overrides: in the `ignore` crate an override glob would take precedence
    // over `.gitignore`, while a type selection only narrows what the ignore rules let through.
    let mut types = ignore::types::TypesBuilder::new();
    for glob in &opts.include {
        // Invalid globs are rejected when the configuration is resolved; skip them here.
        let _ = types.add("manifest", glob);
    }
    types.select("manifest");
    // The `ignore` crate reads `.gitignore`/`.ignore` files whole, whatever they are: a FIFO
    // would block the walk, a link to /dev/zero exhaust memory. They are checked first (the
    // walk root and its parents here, subdirectories before they are entered); a directory
    // with such a file is not walked, with a diagnostic naming the file.
    if opts.respect_ignore_files {
        // The root as given (for the message), then its parents.
        let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        if let Some(d) = std::iter::once(dir).chain(absolute.ancestors().skip(1)).find_map(bad_ignore_file) {
            out.diagnostics.push(d);
            return;
        }
    }
    let refused = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let refused_in_walk = std::sync::Arc::clone(&refused);
    // Directories the walk leaves out with a finding of their own (a nested repository, a bad
    // ignore file): not named again.
    let passed = std::sync::Arc::new(std::sync::Mutex::new(Vec::<PathBuf>::new()));
    let passed_in_walk = std::sync::Arc::clone(&passed);
    let noting = skipped.is_some();
    let check_ignore_files = opts.respect_ignore_files;
    let mut builder = ignore::WalkBuilder::new(dir);
    builder
        .git_ignore(opts.respect_ignore_files)
        .git_global(opts.respect_ignore_files)
        .git_exclude(opts.respect_ignore_files)
        .ignore(opts.respect_ignore_files)
        .parents(opts.respect_ignore_files)
        // `.gitignore` applies even outside a git repository (a fresh checkout, a tarball).
        .require_git(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        // Hidden files and directories (`.git/`, `.github/`, `.driftlint.yaml`) are never
        // manifests; the crate's own hidden-file rule yields to a file-type match, so filter
        // here. The walk root itself is always entered.
        .filter_entry(move |e| {
            if e.depth() == 0 {
                return true;
            }
            if e.file_name().to_string_lossy().starts_with('.') {
                return false;
            }
            // A nested repository (a git submodule, a vendored checkout) is another project:
            // not walked, as `--base`/`--staged` read none of it either; name it to check it.
            if e.file_type().is_some_and(|t| t.is_dir()) && e.path().join(".git").exists() {
                if noting {
                    passed_in_walk
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(e.path().to_path_buf());
                }
                refused_in_walk.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(Diagnostic::new(
                    Rule::IoError,
                    crate::diagnostic::Severity::Note,
                    SourcePath::File(e.path().to_path_buf()),
                    None,
                    "a nested git repository (a submodule) is not walked; name it as a path to check it",
                ));
                return false;
            }
            if check_ignore_files
                && e.file_type().is_some_and(|t| t.is_dir())
                && let Some(d) = bad_ignore_file(e.path())
            {
                if noting {
                    passed_in_walk
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(e.path().to_path_buf());
                }
                refused_in_walk.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(d);
                return false;
            }
            true
        });
    if let Ok(t) = types.build() {
        builder.types(t);
    }
    // The walk (sorted) names the files; they are then read in parallel and kept in walk
    // order. A walk error or a symlink stays where the walk met it, between the files read
    // before and after.
    let walk_root = std::fs::canonicalize(dir).ok();
    let mut pending: Vec<std::path::PathBuf> = Vec::new();
    // The directories the walk entered (with `noting`).
    let mut entered: Vec<PathBuf> = Vec::new();
    for entry in builder.build() {
        match entry {
            Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => pending.push(e.into_path()),
            Ok(e) if noting && e.file_type().is_some_and(|t| t.is_dir()) => entered.push(e.into_path()),
            Ok(e) if e.path_is_symlink() && e.depth() > 0 => {
                read_files(&std::mem::take(&mut pending), out);
                walk_symlink(e.path(), walk_root.as_deref(), boundary, out);
            }
            Ok(_) => {}
            Err(err) => {
                read_files(&std::mem::take(&mut pending), out);
                out.diagnostics.push(Diagnostic::error(
                    Rule::IoError,
                    SourcePath::File(dir.to_path_buf()),
                    None,
                    format!("cannot walk directory: {err}"),
                ));
            }
        }
    }
    read_files(&pending, out);
    out.diagnostics.extend(std::mem::take(&mut *refused.lock().unwrap_or_else(std::sync::PoisonError::into_inner)));
    if let Some(skipped) = skipped {
        let passed = std::mem::take(&mut *passed.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        skipped.extend(passed_over(&entered, passed, opts));
    }
}

/// How many entries, and how many files' first bytes, one look into a directory passed over
/// takes at most, and how deep it goes: enough to tell a directory of manifests from one of
/// CI workflows, bounded whatever the directory holds (an ignored `node_modules/`).
const PEEK_ENTRIES: usize = 2_000;
const PEEK_FILES: usize = 20;
const PEEK_BYTES: u64 = 64 * 1024;
const PEEK_DEPTH: usize = 4;

/// The directories a walk passed over that hold manifests: the children of the directories
/// it `entered` that it did not enter, less those `passed` with a finding of their own
/// (nested repositories, bad ignore files) — hidden ones (a name starting with a dot, `.git`
/// aside), and the others, which an ignore file hid.
fn passed_over(entered: &[PathBuf], passed: Vec<PathBuf>, opts: &WalkOptions) -> Vec<(PathBuf, Skip)> {
    let types = include_types(&opts.include);
    let entered_set: std::collections::HashSet<&Path> = entered.iter().map(PathBuf::as_path).collect();
    let known: std::collections::HashSet<PathBuf> = passed.into_iter().collect();
    let mut candidates: Vec<(PathBuf, Skip)> = Vec::new();
    for dir in entered {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for e in entries.flatten() {
            let path = e.path();
            if !e.file_type().is_ok_and(|t| t.is_dir())
                || e.file_name() == ".git"
                || entered_set.contains(path.as_path())
                || known.contains(&path)
            {
                continue;
            }
            if e.file_name().to_string_lossy().starts_with('.') {
                candidates.push((path, Skip::Hidden));
            } else if opts.respect_ignore_files {
                candidates.push((path, Skip::Ignored));
            }
        }
    }
    candidates.retain(|(dir, _)| holds_manifests(dir, types.as_ref()));
    candidates
        .into_iter()
        .map(|(p, why)| match p.strip_prefix(".") {
            Ok(rest) if !rest.as_os_str().is_empty() => (rest.to_path_buf(), why),
            _ => (p, why),
        })
        .collect()
}

/// Whether `dir` holds, within [`PEEK_DEPTH`] levels, a file the walk's `include` takes whose
/// first [`PEEK_BYTES`] read like a manifest; links are not followed, nested `.git`
/// directories not entered, and at most [`PEEK_ENTRIES`] entries and [`PEEK_FILES`] files are
/// looked at.
fn holds_manifests(dir: &Path, types: Option<&ignore::types::Types>) -> bool {
    let (mut entries, mut files) = (0, 0);
    let mut stack = vec![(dir.to_path_buf(), 0)];
    while let Some((at, depth)) = stack.pop() {
        let Ok(list) = std::fs::read_dir(&at) else { continue };
        let mut list: Vec<std::fs::DirEntry> = list.flatten().collect();
        list.sort_by_key(std::fs::DirEntry::file_name);
        for e in list {
            entries += 1;
            if entries > PEEK_ENTRIES || files >= PEEK_FILES {
                return false;
            }
            let Ok(t) = e.file_type() else { continue };
            let path = e.path();
            if t.is_dir() && depth < PEEK_DEPTH && e.file_name() != ".git" {
                stack.push((path, depth + 1));
            } else if t.is_file() && types.is_none_or(|ty| ty.matched(&path, false).is_whitelist()) {
                files += 1;
                let Ok(bytes) = read_bounded(&path, PEEK_BYTES).or_else(|_| read_prefix(&path)) else { continue };
                if looks_like_manifest(&String::from_utf8_lossy(&bytes)) {
                    return true;
                }
            }
        }
    }
    false
}

/// The first [`PEEK_BYTES`] of a regular file larger than that.
fn read_prefix(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut out = Vec::new();
    file.take(PEEK_BYTES).read_to_end(&mut out)?;
    Ok(out)
}

/// A symlink met by a walk: followed once when it leads to a file inside the repository that
/// the walk does not reach by itself (under the link's name); a target inside the walk is read
/// under its own name. A link out of the repository is refused ([`confine`]), a linked
/// directory is not entered (a note names its target relative to the repository); nothing is
/// skipped without a word. (The walk itself follows no link, so the files it lists lie in the
/// directory named, which was confined before it was walked.)
fn walk_symlink(link: &Path, walk_root: Option<&Path>, boundary: &Boundary, out: &mut Collected) {
    let sp = SourcePath::File(link.to_path_buf());
    let target = match confine(link, boundary) {
        Ok(t) => t,
        Err(refusal) => return out.diagnostics.push(refused(link, &refusal)),
    };
    if target.is_dir() {
        return out.diagnostics.push(Diagnostic::new(
            Rule::IoError,
            crate::diagnostic::Severity::Note,
            sp,
            None,
            format!("symlinked directory (to {}) not walked; name its target to check it", boundary.show(&target)),
        ));
    }
    if let Err(e) = std::fs::metadata(&target) {
        return out.diagnostics.push(io_error(&sp, &e)); // dangling inside the repository
    }
    if walk_root.is_some_and(|root| target.starts_with(root)) {
        return; // the walk reads it under its own name
    }
    read_file(link, &target, out);
}

/// Largest ignore file the walk reads (they are a few lines; the `ignore` crate compiles each).
const MAX_IGNORE_FILE_BYTES: u64 = 1 << 20;

/// A diagnostic when `dir` holds a `.gitignore` or `.ignore` that is not a regular file of at
/// most [`MAX_IGNORE_FILE_BYTES`] (symlinks followed); the directory is then not walked.
fn bad_ignore_file(dir: &Path) -> Option<Diagnostic> {
    [".gitignore", ".ignore"].iter().find_map(|name| {
        let path = dir.join(name);
        let meta = std::fs::symlink_metadata(&path).ok()?;
        let problem = match std::fs::metadata(&path) {
            Ok(m) if m.is_file() && m.len() <= MAX_IGNORE_FILE_BYTES => return None,
            Ok(m) if m.is_file() => bounded::Refused::TooLarge { limit: MAX_IGNORE_FILE_BYTES }.to_string(),
            Ok(m) => bounded::Refused::NotRegular(bounded::describe(&m.file_type())).to_string(),
            // A dangling link ignores nothing, as git treats it.
            Err(_) if meta.file_type().is_symlink() => return None,
            Err(e) => e.to_string(),
        };
        Some(Diagnostic::error(
            Rule::IoError,
            SourcePath::File(path.clone()),
            None,
            format!("cannot read {}: {problem}; the directory is not walked", path.display()),
        ))
    })
}

/// Reads `paths` in parallel (rayon's pool: `--jobs`), keeping their order.
/// `paths` are files a directory walk listed as regular files (not symlinks): the `stat`
/// before opening is left out (see [`read_listed_file`]).
fn read_files(paths: &[std::path::PathBuf], out: &mut Collected) {
    use rayon::prelude::*;
    let read: Vec<Result<Source, Box<Diagnostic>>> = paths.par_iter().map(|p| read_one(p, p, true)).collect();
    for r in read {
        match r {
            Ok(source) => out.sources.push(source),
            Err(d) => out.diagnostics.push(*d),
        }
    }
}

/// Reads `real` (what [`confine`] resolved `path` to) under the name `path`.
fn read_file(path: &Path, real: &Path, out: &mut Collected) {
    match read_one(path, real, false) {
        Ok(source) => out.sources.push(source),
        Err(d) => out.diagnostics.push(*d),
    }
}

/// `real` read under the name `path`; `listed`: a directory listing reported it as a regular
/// file.
fn read_one(path: &Path, real: &Path, listed: bool) -> Result<Source, Box<Diagnostic>> {
    let sp = SourcePath::File(path.to_path_buf());
    let read = if listed { read_listed_file_to_string } else { read_bounded_to_string };
    match read(real, MAX_FILE_BYTES) {
        Ok(text) => Ok(Source { path: sp, text }),
        // Kept word for word from before the bounded reader: users and tests grep it.
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            Err(Box::new(Diagnostic::error(Rule::IoError, sp, None, e.to_string())))
        }
        Err(e) => Err(Box::new(io_error(&sp, &e))),
    }
}

fn io_error(path: &SourcePath, e: &std::io::Error) -> Diagnostic {
    Diagnostic::error(Rule::IoError, path.clone(), None, format!("cannot read {}: {e}", path.display()))
}
