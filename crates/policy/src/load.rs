//! Reading policies and data documents: `.rego` files named directly, found in directories
//! (recursively, in path order) or at a git location (`git:REV:PATH`); JSON/YAML data files,
//! a directory's merged at the root of `data`.
//!
//! Bounded: at most [`MAX_FILES`] files and [`MAX_BYTES`] bytes per load; a directory walk
//! does not follow symlinks (a policy directory in a repository cannot pull in files from
//! elsewhere), files named explicitly are read as named; every file read goes through
//! [`driftlint_core::confine`] against its location.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Module, PolicyError};
use driftlint_core::confine::{Boundary, confine};
use driftlint_git as git;

/// The most files one load reads.
pub const MAX_FILES: usize = 10_000;
/// The most bytes one load reads.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The `.rego` modules the locations name, in order (a directory's in path order).
pub fn load_modules(locations: &[String], git_start: &Path) -> Result<Vec<Module>, PolicyError> {
    let mut budget = Budget::default();
    let mut out = Vec::new();
    for written in locations {
        for (path, bytes) in read_location(written, git_start, &["rego"], &mut budget)? {
            let text = String::from_utf8(bytes)
                .map_err(|_| PolicyError::Read { path: path.clone(), message: "not UTF-8 text".into() })?;
            out.push(Module { path, text });
        }
    }
    Ok(out)
}

/// The data document the locations name: each file's document, every file of a directory
/// merged at the root. `None` when there are no locations.
pub fn load_data(locations: &[String], git_start: &Path) -> Result<Option<Value>, PolicyError> {
    if locations.is_empty() {
        return Ok(None);
    }
    let mut budget = Budget::default();
    let mut data = Value::Object(serde_json::Map::new());
    for written in locations {
        for (path, bytes) in read_location(written, git_start, &["json", "yaml", "yml"], &mut budget)? {
            let doc = parse_document(&path, &bytes)?;
            merge(&mut data, doc, &path, "")?;
        }
    }
    Ok(Some(data))
}

/// `e` with the data files named, when it is a [`PolicyError::Shadow`]: the files among
/// `locations` that set a value at its path (read again: this is the error path only).
pub fn with_data_files(e: PolicyError, locations: &[String], git_start: &Path) -> PolicyError {
    let PolicyError::Shadow { path, rule, mut files } = e else { return e };
    let mut budget = Budget::default();
    for written in locations {
        let Ok(found) = read_location(written, git_start, &["json", "yaml", "yml"], &mut budget) else { continue };
        for (file, bytes) in found {
            let Ok(doc) = parse_document(&file, &bytes) else { continue };
            if path.split('.').try_fold(&doc, |at, part| at.get(part)).is_some() {
                files.push(file);
            }
        }
    }
    PolicyError::Shadow { path, rule, files }
}

/// A JSON or YAML document (by extension; YAML with Kubernetes' scalar rules).
pub fn parse_document(path: &str, bytes: &[u8]) -> Result<Value, PolicyError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| PolicyError::Read { path: path.to_string(), message: "not UTF-8 text".into() })?;
    let fail = |message: String| PolicyError::Data { message: format!("{path}: {message}") };
    if path.ends_with(".json") {
        // Bounded by values, not bytes, like YAML (driftlint_yaml::Limits::max_nodes): `[0,0,…]`
        // is two bytes per value in the file and far more in memory. Every value but the first
        // follows a `,`, `[`, `{` or `:`, so their count bounds the values.
        let max = driftlint_yaml::Limits::default().max_nodes;
        if text.bytes().filter(|b| matches!(b, b',' | b'[' | b'{' | b':')).count() >= max {
            return Err(fail(format!("more than {max} JSON values: a limit on memory")));
        }
        return serde_json::from_str(text).map_err(|e| fail(e.to_string()));
    }
    let docs = driftlint_yaml::parse_stream(text).into_result().map_err(|e| fail(e.to_string()))?;
    match docs.as_slice() {
        [] => Ok(Value::Null),
        [one] => Ok(one.root.to_json()),
        _ => Ok(Value::Array(docs.iter().map(|d| d.root.to_json()).collect())),
    }
}

/// Merges `doc` into `into` at the root: objects key by key; anything else must be equal.
fn merge(into: &mut Value, doc: Value, path: &str, at: &str) -> Result<(), PolicyError> {
    match (into, doc) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(existing) => merge(existing, v, path, &format!("{at}/{k}"))?,
                    None => {
                        a.insert(k, v);
                    }
                }
            }
            Ok(())
        }
        (_, Value::Null) if at.is_empty() => Ok(()),
        (a, b) if *a == b => Ok(()),
        (_, _) if at.is_empty() => {
            Err(PolicyError::Data { message: format!("{path}: a data document must be an object at its root") })
        }
        _ => Err(PolicyError::Data {
            message: format!("{path}: `{at}` conflicts with the value an earlier data document gave it"),
        }),
    }
}

#[derive(Default)]
struct Budget {
    files: usize,
    bytes: u64,
}

impl Budget {
    fn take(&mut self, path: &str, size: u64) -> Result<(), PolicyError> {
        self.files += 1;
        self.bytes += size;
        if self.files > MAX_FILES {
            return Err(PolicyError::Read { path: path.into(), message: format!("more than {MAX_FILES} files") });
        }
        if self.bytes > MAX_BYTES {
            let mib = MAX_BYTES / (1024 * 1024);
            return Err(PolicyError::Read { path: path.into(), message: format!("more than {mib} MiB in all") });
        }
        Ok(())
    }
}

/// The files a location names with one of `exts` (a file named directly is taken whatever
/// its extension), as (display path, bytes).
fn read_location(
    written: &str,
    git_start: &Path,
    exts: &[&str],
    budget: &mut Budget,
) -> Result<Vec<(String, Vec<u8>)>, PolicyError> {
    let git_error = |e: git::Error| PolicyError::Read { path: written.to_string(), message: e.to_string() };
    if let Some(at) = git::parse_location(written).map_err(|e| git_error(e.into()))? {
        let snapshot = git::load_snapshot(&at, git_start).map_err(git_error)?;
        let prefix = at.prefix.clone();
        if snapshot.dir != at.path {
            let bytes = snapshot
                .tree
                .read(&snapshot.file)
                .map_err(|e| PolicyError::Read { path: written.to_string(), message: e.to_string() })?;
            budget.take(written, bytes.len() as u64)?;
            return Ok(vec![(written.to_string(), bytes.to_vec())]);
        }
        let mut out = Vec::new();
        for name in snapshot.tree.files() {
            if !has_ext(&name, exts) {
                continue;
            }
            if let Ok(bytes) = snapshot.tree.read(&name) {
                let shown = if at.path.is_empty() { name.clone() } else { format!("{}/{name}", at.path) };
                budget.take(&shown, bytes.len() as u64)?;
                out.push((format!("{prefix}{shown}"), bytes.to_vec()));
            }
        }
        return Ok(out);
    }
    let path = PathBuf::from(written);
    let meta = std::fs::metadata(&path)
        .map_err(|e| PolicyError::Read { path: written.to_string(), message: e.to_string() })?;
    let files = if meta.is_dir() { walk(&path, exts, budget)? } else { vec![path.clone()] };
    // The location itself was confined by the configuration that named it, or named on the
    // command line; what is read under it stays in it (the walk follows no link, so this
    // holds unless the tree changes while it is read).
    let anchor = if meta.is_dir() { path.as_path() } else { path.parent().unwrap_or(Path::new(".")) };
    let boundary =
        Boundary::around(if anchor.as_os_str().is_empty() { Path::new(".") } else { anchor }).trusting(&path);
    let mut out = Vec::new();
    for f in files {
        let shown = f.display().to_string();
        let real = confine(&f, &boundary)
            .map_err(|refusal| PolicyError::Read { path: shown.clone(), message: refusal.to_string() })?;
        let size = std::fs::metadata(&real).map(|m| m.len()).unwrap_or(0);
        budget.take(&shown, size)?;
        let bytes = driftlint_core::input::read_bounded(&real, driftlint_core::input::MAX_FILE_BYTES)
            .map_err(|e| PolicyError::Read { path: shown.clone(), message: e.to_string() })?;
        out.push((shown, bytes));
    }
    Ok(out)
}

/// The files below `dir` with one of `exts`, sorted, without following symlinks.
fn walk(dir: &Path, exts: &[&str], budget: &Budget) -> Result<Vec<PathBuf>, PolicyError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0usize;
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .map_err(|e| PolicyError::Read { path: d.display().to_string(), message: e.to_string() })?;
        for entry in entries.flatten() {
            seen += 1;
            if seen + budget.files > MAX_FILES * 10 {
                return Err(PolicyError::Read {
                    path: dir.display().to_string(),
                    message: format!("more than {} entries", MAX_FILES * 10),
                });
            }
            let Ok(kind) = entry.file_type() else { continue };
            let p = entry.path();
            if kind.is_dir() {
                stack.push(p);
            } else if kind.is_file() && has_ext(&p.to_string_lossy(), exts) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn has_ext(name: &str, exts: &[&str]) -> bool {
    Path::new(name).extension().and_then(|e| e.to_str()).is_some_and(|e| exts.contains(&e))
}
