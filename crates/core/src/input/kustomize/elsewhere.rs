//! Kustomizations elsewhere in a repository that decide the roles of files named on the
//! command line ([`super::discover`]'s search beyond the directories above them): a bounded
//! walk of the repository for kustomizations, and which of them reach the named paths.
//!
//! Nothing here is checked: what is found is read as context, as `discover` reads the
//! kustomizations above a named file.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use driftlint_yaml::{Node, NodeValue};

use super::{MAX_DISCOVERED, Search, from_cwd, is_kustomization, normalise, remote};
use crate::confine::{Boundary, confine};
use crate::diagnostic::{Diagnostic, Rule};
use crate::source::{Source, SourcePath};

/// How much of a repository [`elsewhere`] looks at.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    /// Directory entries the walk passes (a monorepo's, an ignored-but-present tree's).
    pub(super) entries: usize,
    /// Kustomizations it reads.
    pub(super) read: usize,
}

impl Default for Limits {
    fn default() -> Self {
        // Measured 2026-11-28 (debug build, this machine): a tree of 125,000 entries is cut at
        // 100,000 in 0.23 s for the whole run; gateway-api's 2,000 entries add about 20 ms.
        // Kustomizations are small files, read with the bounded reader.
        Limits { entries: 100_000, read: 2_048 }
    }
}

/// The kustomizations in the repository whose root is `top` (not in `seen` directories) that
/// name one of `seeds` (a file, or with the flag a directory and what is in it) or a directory
/// of `reached` (kustomizations that do), directly or through others: at most `room` of them,
/// in walk order. The walk passes over what the inputs' walk of the repository passes over
/// (hidden directories, ignore files unless `search` says otherwise, nested repositories),
/// takes no kustomization the run excludes, and follows no link (a run at the root reads a
/// link to a file inside the repository under the file's own name: a linked kustomization
/// gives its directory no role there either); it stops after [`Limits::entries`] entries or
/// [`Limits::read`] kustomizations, with a note that the roles may then differ from a run at
/// the root.
#[allow(clippy::too_many_arguments)]
pub(super) fn elsewhere(
    top: &Path,
    boundary: &Boundary,
    seeds: &[(PathBuf, bool)],
    seen: &mut HashSet<PathBuf>,
    reached: &HashSet<PathBuf>,
    limits: Limits,
    room: usize,
    search: Search<'_>,
) -> crate::input::Collected {
    let mut out = crate::input::Collected::default();
    let root = if top.as_os_str().is_empty() { Path::new(".") } else { top };
    let note = |why: String| {
        Diagnostic::new(
            Rule::IoError,
            crate::diagnostic::Severity::Note,
            SourcePath::File(root.to_path_buf()),
            None,
            format!(
                "the search of {} for kustomizations naming the checked files {why}: a file a kustomization beyond them names may get another role in a run at the root",
                boundary.show(root),
            ),
        )
    };
    // The `ignore` crate reads ignore files whole, whatever they are (a FIFO blocks, a link to
    // /dev/zero never ends): as the inputs' walk does, those of the root and its parents are
    // looked at first, and a directory holding one that is no small regular file is not
    // entered (a run at the root does not walk it either, and says so).
    let respect = search.respect_ignore_files;
    let absolute = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    if let Some(bad) = std::iter::once(root)
        .chain(absolute.ancestors().skip(1))
        .filter(|_| respect)
        .find_map(crate::input::bad_ignore_file)
    {
        out.diagnostics.push(note(format!("was not made ({})", bad.message)));
        return out;
    }
    let mut walk = ignore::WalkBuilder::new(root);
    walk.git_ignore(respect)
        .git_global(respect)
        .git_exclude(respect)
        .ignore(respect)
        .parents(respect)
        .require_git(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            let dir = e.file_type().is_some_and(|t| t.is_dir());
            e.depth() == 0
                || !(e.file_name().to_string_lossy().starts_with('.')
                    || (dir && e.path().join(".git").exists())
                    || (respect && dir && crate::input::bad_ignore_file(e.path()).is_some()))
        });
    // Each kustomization read: its path, its text, and the paths its strings name.
    let mut candidates: Vec<(PathBuf, String, Vec<PathBuf>)> = Vec::new();
    let mut cut = None;
    for (passed, entry) in walk.build().enumerate() {
        if passed >= limits.entries {
            cut = Some(format!("{} entries", limits.entries));
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) || !is_kustomization(entry.path()) {
            continue;
        }
        let path = from_cwd(normalise(entry.path()));
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        if seen.contains(&dir) || (search.excluded)(&path) {
            continue;
        }
        if candidates.len() >= limits.read {
            cut = Some(format!("{} kustomizations", limits.read));
            break;
        }
        let Ok(text) = confine(&path, boundary)
            .map_err(|r| std::io::Error::other(r.to_string()))
            .and_then(|real| crate::input::read_bounded_to_string(&real, crate::input::MAX_FILE_BYTES))
        else {
            // Not read: it gives no role, as it would give none to a run that cannot read it.
            continue;
        };
        let stream = driftlint_yaml::parse_stream(&text);
        let names = stream.documents.first().map(|d| names_of(&d.root, &dir)).unwrap_or_default();
        candidates.push((path, text, names));
    }
    if let Some(cut) = cut {
        out.diagnostics.push(note(format!("stopped after {cut}")));
    }
    // Taken: those naming a seed or a directory reached; then, from each taken one's
    // directory, those that build on it (each candidate and each name looked at once).
    let mut naming: HashMap<&Path, Vec<usize>> = HashMap::new();
    let mut taken = vec![false; candidates.len()];
    let mut work = Vec::new();
    for (i, (_, _, names)) in candidates.iter().enumerate() {
        for n in names {
            naming.entry(n.as_path()).or_default().push(i);
        }
        let direct =
            names.iter().any(|n| reached.contains(n) || seeds.iter().any(|(s, dir)| n == s || (*dir && inside(n, s))));
        if direct {
            taken[i] = true;
            work.push(i);
        }
    }
    while let Some(i) = work.pop() {
        let dir = candidates[i].0.parent().unwrap_or(Path::new(""));
        for &j in naming.get(dir).map_or(&[][..], Vec::as_slice) {
            if !taken[j] {
                taken[j] = true;
                work.push(j);
            }
        }
    }
    drop(naming);
    let found = taken.iter().filter(|t| **t).count();
    if found > room {
        out.diagnostics.push(Diagnostic::new(
            Rule::IoError,
            crate::diagnostic::Severity::Note,
            SourcePath::File(root.to_path_buf()),
            None,
            format!(
                "{found} kustomizations elsewhere in {} name the checked files; the first {room} by path were read (at most {MAX_DISCOVERED} a run): the others' roles are not known here",
                boundary.show(root),
            ),
        ));
    }
    for ((path, text, _), _) in candidates.into_iter().zip(taken).filter(|(_, t)| *t).take(room) {
        seen.insert(path.parent().map(Path::to_path_buf).unwrap_or_default());
        out.sources.push(Source { path: SourcePath::File(path), text });
    }
    out
}

/// Whether `path` is `dir` or below it (both named as the walk names paths: `..` only in
/// front, so `..` is not below the working directory `` although it starts with it).
pub(super) fn inside(path: &Path, dir: &Path) -> bool {
    path.strip_prefix(dir).is_ok_and(|rest| !rest.components().any(|c| c == Component::ParentDir))
}

/// Every path a kustomization in `dir` may name: each one-line string in its document
/// (resources, patches, configurations, generators' files …), taken relative to `dir` as the
/// walk names paths. A string that names no file (a label's value) matches no named path.
fn names_of(root: &Node, dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match &node.value {
            NodeValue::String(s) if !s.contains('\n') && !remote(s) => out.push(from_cwd(normalise(&dir.join(s)))),
            NodeValue::Sequence(items) => stack.extend(items),
            NodeValue::Mapping(pairs) => stack.extend(pairs.iter().map(|(_, v)| v)),
            _ => {}
        }
    }
    out
}
