//! `driftlint.lock`: the reference a repository was last checked against, so that a moved tag,
//! a rewritten branch or an edited reference directory is noticed instead of silently changing
//! what "compliant" means.
//!
//! The file is YAML, written by [`to_text`] (fixed key order, one key per line, so diffs of it
//! read well in review):
//!
//! ```yaml
//! version: 2
//! source: git:refs/tags/reference-v4.18:reference/metadata.yaml
//! commit: 6f1c…            # git locations only
//! metadata-hash: 2b9e…     # kube-compare's Metadata Hash
//! files-hash: 91d0…        # every file the reference reads (function files too)
//! ```
//!
//! Version 1 locks (no `files-hash`) are still read, and verified as far as they go; a check
//! then says that the lock does not cover the function files, until it is pinned again.
//!
//! `source` is the location as configured; a path on disk is written relative to the lock
//! file's directory (where `.driftlint.yaml` is), so it reads the same as `reference:` there.
//! [`verify`] compares a lock with what the configured reference is now; turning the
//! differences into findings is the checker's business.

use std::ops::Range;
use std::path::{Component, Path, PathBuf};

use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::input::SourcePath;
use driftlint_yaml::{LineIndex, NodeValue};

use crate::Compiled;
use driftlint_core::locate::Files;

use super::location::{Location, Opened};

/// The lock's file name, beside `.driftlint.yaml`.
pub const FILE_NAME: &str = "driftlint.lock";
/// The format version written.
pub const VERSION: i64 = 2;

const KEYS: [&str; 5] = ["version", "source", "commit", "metadata-hash", "files-hash"];

/// What a lock records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lock {
    /// The location as configured (a path relative to the lock's directory, or a git location).
    pub source: String,
    /// The commit a git location resolved to, full hex.
    pub commit: Option<String>,
    /// kube-compare's metadata hash of the reference.
    pub metadata_hash: String,
    /// [`crate::files_hash`]; `None` in a version 1 lock.
    pub files_hash: Option<String>,
}

/// A lock read from a file, with where each value is (for findings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockFile {
    pub path: PathBuf,
    pub text: String,
    pub lock: Lock,
    pub source_span: Range<usize>,
    pub commit_span: Option<Range<usize>>,
    pub hash_span: Range<usize>,
    pub files_hash_span: Option<Range<usize>>,
}

/// A lock file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LockError {
    #[error("cannot read {}: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("{}:{line}:{column}: {message}", path.display())]
    Invalid { path: PathBuf, line: usize, column: usize, message: String },
}

/// The lock's text: a header comment and the values in a fixed order (strings quoted only
/// where YAML needs it, by the same writer as every other YAML driftlint emits).
pub fn to_text(lock: &Lock) -> String {
    let scalar = |s: &str| driftlint_yaml::to_yaml_string(&serde_json::Value::from(s)).trim_end().to_owned();
    let mut out = String::from(
        "# The reference this repository is checked against, written by `driftlint reference pin`.\n\
         # `driftlint check` fails with `reference-changed` when the reference no longer matches.\n",
    );
    // A lock without `files-hash` is a version 1 lock (read, and written back, as such).
    let version = if lock.files_hash.is_some() { VERSION } else { 1 };
    out.push_str(&format!("version: {version}\nsource: {}\n", scalar(&lock.source)));
    if let Some(c) = &lock.commit {
        out.push_str(&format!("commit: {}\n", scalar(c)));
    }
    out.push_str(&format!("metadata-hash: {}\n", scalar(&lock.metadata_hash)));
    if let Some(h) = &lock.files_hash {
        out.push_str(&format!("files-hash: {}\n", scalar(h)));
    }
    out
}

/// Reads a lock file.
/// It lies beside the configuration, in the checked repository: confined to that repository.
pub fn load_lock(path: &Path) -> Result<LockFile, LockError> {
    use driftlint_core::confine::{Boundary, confine};
    let read_error = |message: String| LockError::Read { path: path.to_path_buf(), message };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let real = confine(path, &Boundary::around(dir)).map_err(|refusal| read_error(refusal.to_string()))?;
    let text = driftlint_core::input::read_bounded_to_string(&real, driftlint_core::input::MAX_FILE_BYTES)
        .map_err(|e| read_error(e.to_string()))?;
    parse_lock(path, text)
}

/// Decodes a lock file's text; every error names the line and column.
pub fn parse_lock(path: &Path, text: String) -> Result<LockFile, LockError> {
    let invalid = |offset: usize, message: String| {
        let at = LineIndex::new(&text).line_column(&text, offset.min(text.len()));
        LockError::Invalid { path: path.to_path_buf(), line: at.line, column: at.column, message }
    };
    let stream = driftlint_yaml::parse_stream(&text);
    if let Some(e) = &stream.error {
        return Err(invalid(e.offset, format!("invalid YAML: {}", e.message)));
    }
    let Some(NodeValue::Mapping(entries)) = stream.documents.first().map(|d| &d.root.value) else {
        return Err(invalid(0, "expected a mapping with version, source and metadata-hash".into()));
    };
    let (mut version, mut source, mut commit, mut hash, mut files_hash) = (None, None, None, None, None);
    for (key, value) in entries {
        let name = key.json_key();
        let string = || match &value.value {
            NodeValue::String(s) => Ok((s.clone(), value.span.clone())),
            _ => Err(invalid(value.span.start, format!("`{name}` must be a string"))),
        };
        match name.as_ref() {
            "version" => version = Some((value.to_json(), value.span.start)),
            "source" => source = Some(string()?),
            "commit" => commit = Some(string()?),
            "metadata-hash" => hash = Some(string()?),
            "files-hash" => files_hash = Some(string()?),
            other => {
                return Err(invalid(
                    key.span.start,
                    format!("unknown key `{other}` (expected one of: {})", KEYS.join(", ")),
                ));
            }
        }
    }
    match version {
        Some((v, _)) if v == serde_json::json!(1) || v == serde_json::json!(VERSION) => {
            if v == serde_json::json!(VERSION) && files_hash.is_none() {
                return Err(invalid(0, "missing `files-hash`".into()));
            }
        }
        Some((v, at)) => {
            return Err(invalid(at, format!("unsupported lock version {v} (this driftlint writes {VERSION})")));
        }
        None => return Err(invalid(0, "missing `version`".into())),
    }
    let missing = |key: &str| invalid(0, format!("missing `{key}`"));
    let (source, source_span) = source.ok_or_else(|| missing("source"))?;
    let (metadata_hash, hash_span) = hash.ok_or_else(|| missing("metadata-hash"))?;
    let (commit, commit_span) = commit.map_or((None, None), |(c, s)| (Some(c), Some(s)));
    let (files_hash, files_hash_span) = files_hash.map_or((None, None), |(h, s)| (Some(h), Some(s)));
    Ok(LockFile {
        path: path.to_path_buf(),
        text,
        lock: Lock { source, commit, metadata_hash, files_hash },
        source_span,
        commit_span,
        hash_span,
        files_hash_span,
    })
}

/// How `location` is written in a lock kept in `lock_dir`: a git location as written, a
/// path as the metadata file relative to `lock_dir` (`/`-separated).
pub fn lock_source(location: &Location, opened: &Opened, lock_dir: &Path) -> String {
    match location {
        Location::Git(at) => at.written.clone(),
        Location::Path(_) => {
            let target = absolute(&opened.path);
            let base = absolute(lock_dir);
            relative(&target, &base).to_string_lossy().replace('\\', "/")
        }
    }
}

fn absolute(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `target` relative to `base` (both absolute and normalised), lexically.
fn relative(target: &Path, base: &Path) -> PathBuf {
    let t: Vec<_> = target.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

/// One way the configured reference differs from the lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Where in the lock file.
    pub span: Range<usize>,
    pub message: String,
}

/// The hashes of a reference as it is now; `None` when they could not be computed (an invalid
/// reference, reported on its own).
#[derive(Clone, Copy, Debug, Default)]
pub struct Hashes<'a> {
    pub metadata: Option<&'a str>,
    pub files: Option<&'a str>,
}

/// The differences between the lock and the reference as it is now.
pub fn verify(file: &LockFile, source: &str, commit: Option<&str>, now: Hashes) -> Vec<Mismatch> {
    let hash = now.metadata;
    let pinned = &file.lock;
    if pinned.source != source {
        return vec![Mismatch {
            span: file.source_span.clone(),
            message: format!(
                "{} pins reference `{}`, but the configured reference is `{source}`",
                FILE_NAME, pinned.source
            ),
        }];
    }
    let hash_changed = hash.is_some_and(|h| h != pinned.metadata_hash);
    if pinned.commit.as_deref() != commit {
        let span = file.commit_span.clone().unwrap_or_else(|| file.source_span.clone());
        let was = pinned.commit.as_deref().unwrap_or("no commit");
        let now = commit.unwrap_or("no commit");
        let content = if hash_changed { "; its metadata hash changed too" } else { "" };
        return vec![Mismatch {
            span,
            message: format!("reference `{source}` now resolves to commit {now}, but {was} was pinned{content}"),
        }];
    }
    match (hash, now.files, &pinned.files_hash) {
        (Some(h), _, _) if hash_changed => vec![Mismatch {
            span: file.hash_span.clone(),
            message: format!(
                "reference `{source}` changed: its metadata hash is now {h}, but {} was pinned",
                pinned.metadata_hash
            ),
        }],
        (Some(_), Some(_), None) => vec![Mismatch {
            span: file.hash_span.clone(),
            message: format!(
                "{FILE_NAME} (version 1) does not cover the reference's function files, so a change to them \
                 would go unnoticed: pin it again with this driftlint"
            ),
        }],
        (_, Some(f), Some(pinned_files)) if f != pinned_files => vec![Mismatch {
            span: file.files_hash_span.clone().unwrap_or_else(|| file.hash_span.clone()),
            message: format!(
                "reference `{source}` changed: a file it reads (a template or a function file) differs from the \
                 pinned one (files hash {f}, {pinned_files} was pinned)"
            ),
        }],
        _ => Vec::new(),
    }
}

/// Every reference file the loader read, so that findings pointing into the reference show
/// the text that was compared — for a git reference, the blob, not the work tree's copy.
pub fn remember_files(reference: &crate::Reference, files: &mut Files) {
    files.preset(reference.path.clone(), reference.text.clone());
    let sources =
        reference.templates.iter().map(|t| &t.source).chain(reference.function_files.iter().map(|f| &f.source));
    for f in sources.flat_map(|s| &s.files) {
        files.preset(f.path.clone(), f.text.clone());
    }
}

/// `reference-changed` findings when `lock_path` pins another reference than the one
/// configured now. `compiled` is `None` when the reference is invalid (the hash is then not
/// compared; the reference's own findings say why).
pub fn verify_lock(
    lock_path: &Path,
    location: &Location,
    opened: &Opened,
    compiled: Option<&Compiled>,
    files: &mut Files,
) -> Result<Vec<Diagnostic>, LockError> {
    let file = load_lock(lock_path)?;
    let lock_dir = lock_path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let source = lock_source(location, opened, lock_dir);
    let hash = compiled.map(crate::metadata_hash);
    let files_hash = compiled.map(|c| crate::files_hash(&c.reference));
    let now = Hashes { metadata: hash.as_deref(), files: files_hash.as_deref() };
    let mismatches = verify(&file, &source, opened.root.commit(), now);
    if mismatches.is_empty() {
        return Ok(Vec::new());
    }
    files.preset(file.path.clone(), file.text.clone());
    Ok(mismatches
        .into_iter()
        .map(|m| {
            Diagnostic::new(
                Rule::ReferenceChanged,
                Rule::ReferenceChanged.default_severity(),
                SourcePath::File(file.path.clone()),
                Some(m.span),
                m.message,
            )
            .with_help(format!(
                "review the new reference, then run `driftlint reference pin` to update {}; \
                 or configure the pinned revision (a commit id) to keep checking against it",
                FILE_NAME
            ))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock(commit: Option<&str>) -> Lock {
        Lock {
            source: "git:v1:ref".into(),
            commit: commit.map(str::to_owned),
            metadata_hash: "ab".repeat(32),
            files_hash: Some("cd".repeat(32)),
        }
    }

    #[test]
    fn a_version_1_lock_is_written_back_as_version_1() {
        // What fuzzing found: a lock without `files-hash` was written as version 2, which
        // requires it.
        let text = "version: 1\nsource: reference/metadata.yaml\nmetadata-hash: abc\n".to_string();
        let file = parse_lock(Path::new("driftlint.lock"), text).unwrap();
        let again = parse_lock(Path::new("driftlint.lock"), to_text(&file.lock)).unwrap();
        assert_eq!(again.lock, file.lock);
    }

    #[test]
    fn writes_and_reads_back() {
        for l in [lock(Some(&"c".repeat(40))), lock(None)] {
            let text = to_text(&l);
            let file = parse_lock(Path::new("driftlint.lock"), text.clone()).unwrap();
            assert_eq!(file.lock, l);
            assert_eq!(&text[file.hash_span.clone()], l.metadata_hash);
            assert!(text.starts_with("# The reference"));
        }
        assert!(to_text(&lock(Some("c"))).contains("version: 2\nsource: git:v1:ref\ncommit: c\nmetadata-hash: "));
        // A value YAML would read as something else is quoted, and reads back the same.
        let odd = Lock {
            source: "a: #b".into(),
            commit: Some("1234".into()),
            metadata_hash: "1e10".into(),
            files_hash: Some("0x10".into()),
        };
        assert_eq!(parse_lock(Path::new("l"), to_text(&odd)).unwrap().lock, odd);
    }

    #[test]
    fn bad_locks_name_the_line() {
        let err = |t: &str| parse_lock(Path::new("d/driftlint.lock"), t.to_owned()).unwrap_err().to_string();
        assert_eq!(
            err("version: 3\nsource: x\nmetadata-hash: h\n"),
            "d/driftlint.lock:1:10: unsupported lock version 3 (this driftlint writes 2)"
        );
        assert_eq!(err("version: 1\nsource: x\n"), "d/driftlint.lock:1:1: missing `metadata-hash`");
        assert_eq!(err("version: 2\nsource: x\nmetadata-hash: h\n"), "d/driftlint.lock:1:1: missing `files-hash`");
        assert!(err("version: 1\nsrc: x\n").starts_with("d/driftlint.lock:2:1: unknown key `src`"));
        assert!(err("version: 1\nsource: [x]\n").contains("2:9: `source` must be a string"));
        assert!(err("- a\n").contains("expected a mapping"));
    }

    #[test]
    fn verification() {
        let c1 = "1a".repeat(20);
        let c2 = "2b".repeat(20);
        let file = parse_lock(Path::new("driftlint.lock"), to_text(&lock(Some(&c1)))).unwrap();
        let h = file.lock.metadata_hash.clone();
        let f = file.lock.files_hash.clone().unwrap();
        let now = |m: Option<&'static str>, f: Option<&'static str>| Hashes { metadata: m, files: f };
        let (h, f): (&'static str, &'static str) = (h.leak(), f.leak());
        assert!(verify(&file, "git:v1:ref", Some(&c1), now(Some(h), Some(f))).is_empty());
        assert!(verify(&file, "git:v1:ref", Some(&c1), now(None, None)).is_empty());
        let m = verify(&file, "git:v1:ref", Some(&c2), now(Some("x"), Some(f)));
        assert_eq!(m.len(), 1);
        assert_eq!(&file.text[m[0].span.clone()], c1);
        assert!(m[0].message.contains(&format!("now resolves to commit {c2}, but {c1} was pinned; its metadata hash")));
        let m = verify(&file, "git:v2:ref", Some(&c2), now(Some("x"), Some(f)));
        assert_eq!(&file.text[m[0].span.clone()], "git:v1:ref");
        let m = verify(&file, "git:v1:ref", Some(&c1), now(Some("x"), Some(f)));
        assert_eq!(&file.text[m[0].span.clone()], h);
        // Only a function file changed: the metadata hash is the same, the files hash is not.
        let m = verify(&file, "git:v1:ref", Some(&c1), now(Some(h), Some("y")));
        assert_eq!(m.len(), 1);
        assert_eq!(&file.text[m[0].span.clone()], f);
        assert!(m[0].message.contains("a file it reads (a template or a function file) differs"), "{}", m[0].message);
        // A version 1 lock cannot tell: it says so.
        let v1 = parse_lock(
            Path::new("driftlint.lock"),
            format!("version: 1\nsource: git:v1:ref\ncommit: {c1}\nmetadata-hash: {h}\n"),
        )
        .unwrap();
        let m = verify(&v1, "git:v1:ref", Some(&c1), now(Some(h), Some(f)));
        assert!(m[0].message.contains("(version 1) does not cover the reference's function files"), "{m:?}");
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(Path::new("/a/b/ref/metadata.yaml"), Path::new("/a/b")),
            PathBuf::from("ref/metadata.yaml")
        );
        assert_eq!(relative(Path::new("/a/ref/m.yaml"), Path::new("/a/b")), PathBuf::from("../ref/m.yaml"));
    }
}
