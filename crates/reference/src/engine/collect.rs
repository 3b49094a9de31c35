//! Collecting cluster CRs the way kube-compare's kubectl resource builder does (spec §1.7).
//!
//! This is deliberately separate from [`driftlint_core::input`]/[`driftlint_core::document`] (the linter's
//! collection): kube-compare treats *any* object with an `items` array as a list, reads only
//! `.json`/`.yaml`/`.yml` inside directories (in lexical walk order, recursing only with
//! `-R`), skips kind-less and unparsable documents with a warning, fails on scalar or list
//! documents, expands missing paths as Go globs, and keeps the first CR per id. Error and
//! warning texts are kube-compare's, word for word, because users grep them.
//!
//! The builder's two error phases are kept apart: path problems fail before anything is read
//! (`failed to collect resources: …`), decode problems after everything was read
//! (`error occurred while trying to fetch resources: …`).

use std::collections::HashSet;
use std::path::Path;

use rayon::prelude::*;
use serde_json::Value;

use super::CrResult;
pub use super::cr::{Cr, cr_id, skip_warning};
use super::glob;
use super::packed::PackedCr;
use super::stream::{self, Event, Origin};
pub use super::stream::{Early, Item};
use crate::correlate::ReferenceIndex;

/// File extensions read inside directories (`resource.FileExtensions`).
const EXTENSIONS: [&str; 3] = [".json", ".yaml", ".yml"];

/// The result of a successful collection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Collected {
    /// De-duplicated CRs in load order.
    pub crs: Vec<Cr>,
    /// Skip warnings, as kube-compare's klog `Warningf` message (without the klog header).
    pub warnings: Vec<String>,
}

/// A fatal collection error; `Display` is kube-compare's message after `error: `.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CollectError {
    /// Path, glob or directory problems found before reading (`r.Err()`).
    #[error("failed to collect resources: {0}")]
    Builder(String),
    /// Documents that could not be decoded (`r.Infos()`); the skip warnings logged before the
    /// error are kept so they can still be printed.
    #[error("error occurred while trying to fetch resources: {message}")]
    Fetch { message: String, warnings: Vec<String> },
}

/// How stdin and URLs are read; the defaults read the process' stdin and refuse URLs
/// (driftlint works offline).
pub trait Io {
    /// The whole of stdin.
    ///
    /// # Errors
    /// The read error's text.
    fn read_stdin(&mut self) -> Result<String, String> {
        let bytes = driftlint_core::input::read_stdin_bounded(driftlint_core::input::MAX_FILE_BYTES)
            .map_err(|e| e.to_string())?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The body of `url`.
    ///
    /// # Errors
    /// kube-compare's text for an unreadable URL.
    fn fetch_url(&mut self, url: &str) -> Result<String, String> {
        Err(format!("unable to read URL {url:?}, server reported not supported offline"))
    }
}

/// The default [`Io`].
pub struct StdIo;
impl Io for StdIo {}

/// Go's `utilerrors.NewAggregate(errs).Error()`.
fn aggregate(errs: &[String]) -> String {
    match errs {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// Something to read, in builder order.
enum Visit {
    Stdin,
    Url(String),
    /// A path, and whether a directory listing reported it as a regular file (not a symlink).
    File(String, bool),
}

/// Collects the CRs named by `-f` values (already split at commas), with `-R` as `recursive`.
///
/// # Errors
/// [`CollectError`] with kube-compare's text.
pub fn collect_crs(inputs: &[String], recursive: bool) -> Result<Collected, CollectError> {
    collect_crs_with(inputs, recursive, &mut StdIo)
}

/// [`collect_crs`] with explicit stdin/URL access.
///
/// # Errors
/// [`CollectError`] with kube-compare's text.
pub fn collect_crs_with(inputs: &[String], recursive: bool, io: &mut dyn Io) -> Result<Collected, CollectError> {
    let packed = collect_packed_with(inputs, recursive, io)?;
    Ok(Collected { crs: packed.crs.into_iter().map(PackedCr::unpack).collect(), warnings: packed.warnings })
}

/// The result of a successful collection, with the CRs packed until they are compared
/// (what [`super::Engine::compare_packed`] takes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Packed {
    /// De-duplicated CRs in load order.
    pub crs: Vec<PackedCr>,
    /// The ownerReference and RBAC-subject indexes of those CRs (§4.5).
    pub index: ReferenceIndex,
    /// Skip warnings, as in [`Collected::warnings`].
    pub warnings: Vec<String>,
}

/// [`collect_crs_with`], keeping the CRs packed.
///
/// # Errors
/// [`CollectError`] with kube-compare's text.
pub fn collect_packed_with(inputs: &[String], recursive: bool, io: &mut dyn Io) -> Result<Packed, CollectError> {
    Ok(collect_items_with(inputs, recursive, io, None)?.into_packed())
}

/// The result of a collection with an early comparison: what becomes the run's
/// [`Comparison`](super::Comparison) once the deferred CRs are compared
/// ([`super::Engine::compare_items`]).
#[derive(Clone, Debug, Default)]
pub struct Items {
    /// De-duplicated CRs in load order; a deferred CR's entry is empty until it is compared.
    pub crs: Vec<Cr>,
    /// Per CR, its result; a deferred CR's is a placeholder ([`Status::Unmatched`] without
    /// candidates) until it is compared.
    ///
    /// [`Status::Unmatched`]: super::Status::Unmatched
    pub results: Vec<CrResult>,
    /// The CRs not compared yet (all of them without an early comparison), packed, with
    /// their positions.
    pub deferred: Vec<(usize, PackedCr)>,
    /// The ownerReference and RBAC-subject indexes of those CRs (§4.5).
    pub index: ReferenceIndex,
    /// Skip warnings, as in [`Collected::warnings`].
    pub warnings: Vec<String>,
}

impl Items {
    /// The packed CRs of a collection without an early comparison (which holds no others).
    fn into_packed(self) -> Packed {
        Packed {
            crs: self.deferred.into_iter().map(|(_, cr)| cr).collect(),
            index: self.index,
            warnings: self.warnings,
        }
    }
}

/// Collects the CRs named by `-f` values, comparing each with `early` (when given) on the
/// thread that decoded it: reading, decoding and comparing then overlap, and a CR is
/// never packed and unpacked. The result is in load order whatever the thread timing.
///
/// # Errors
/// [`CollectError`] with kube-compare's text.
pub fn collect_items_with(
    inputs: &[String],
    recursive: bool,
    io: &mut dyn Io,
    early: Option<&Early<'_>>,
) -> Result<Items, CollectError> {
    let visits = plan(inputs, recursive)?;
    let mut reader = Reader::default();
    // A file holds one CR, most often: sized once, the lists never hold twice what they need
    // while they grow (at 50,000 files, 7 MB of the peak).
    let files = visits.iter().filter(|v| matches!(v, Visit::File(..))).count();
    reader.items.crs.reserve(files);
    reader.items.results.reserve(files);
    // The decoded batch not taken yet: it is taken while the next batch is decoded.
    let mut pending: Vec<Vec<Event>> = Vec::new();
    let mut visits = visits.into_iter().peekable();
    while let Some(visit) = visits.next() {
        match visit {
            Visit::Stdin => {
                reader.take_all(std::mem::take(&mut pending));
                match io.read_stdin() {
                    Ok(text) => reader.read_stream(&text, &Origin { source: "STDIN", early }),
                    Err(e) => reader.errors.push(format!("error parsing STDIN: {e}")),
                }
            }
            Visit::Url(url) => {
                reader.take_all(std::mem::take(&mut pending));
                match io.fetch_url(&url) {
                    Ok(text) => reader.read_stream(&text, &Origin { source: &url, early }),
                    Err(e) => reader.errors.push(e),
                }
            }
            Visit::File(path, listed) => {
                // A run of files is read and decoded in parallel, a batch at a time (the
                // texts of one batch at most exist at once); the events are taken in visit
                // order, each batch's while the next one is decoded, so the result does not
                // depend on thread timing.
                let mut batch = vec![(path, listed)];
                while batch.len() < FILE_BATCH
                    && let Some(Visit::File(..)) = visits.peek()
                {
                    if let Some(Visit::File(p, l)) = visits.next() {
                        batch.push((p, l));
                    }
                }
                let previous = std::mem::take(&mut pending);
                let (decoded, ()) = rayon::join(
                    || batch.par_iter().map(|(p, l)| decode_file(p, *l, early)).collect::<Vec<Vec<Event>>>(),
                    || reader.take_all(previous),
                );
                pending = decoded;
            }
        }
    }
    reader.take_all(pending);
    reader.finish()
}

/// Files read, decoded (and compared early) together: their events are taken while the next
/// batch is decoded. Bounds the texts in memory at once to this many files of at most
/// [`driftlint_core::input::MAX_FILE_BYTES`]; one pass over every file was no faster and held every
/// event until the end (25% more memory).
const FILE_BATCH: usize = 512;

/// The events of one file, or its read error. `listed`: a directory listing reported the
/// path as a regular file.
fn decode_file(path: &str, listed: bool, early: Option<&Early<'_>>) -> Vec<Event> {
    let read = if listed { driftlint_core::input::read_listed_file } else { driftlint_core::input::read_bounded };
    match read(Path::new(path), driftlint_core::input::MAX_FILE_BYTES) {
        Ok(bytes) => stream::decode_stream(&String::from_utf8_lossy(&bytes), &Origin { source: path, early }),
        Err(e) => vec![Event::Error(format!("open {path}: {}", io_text(&e)))],
    }
}

/// Collects the CRs of one text as if it were a file named `source` (benchmarks, tests).
///
/// # Errors
/// [`CollectError::Fetch`] for documents that cannot be decoded.
pub fn collect_text(text: &str, source: &str) -> Result<Packed, CollectError> {
    let mut reader = Reader::default();
    reader.read_stream(text, &Origin { source, early: None });
    Ok(reader.finish()?.into_packed())
}

impl Reader {
    fn finish(self) -> Result<Items, CollectError> {
        if !self.errors.is_empty() {
            return Err(CollectError::Fetch { message: aggregate(&self.errors), warnings: self.items.warnings });
        }
        Ok(self.items)
    }
}

fn io_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => e.to_string(),
    }
}

/// `FilenameParam` + `Path` + `ExpandPathsToFileVisitors`: what will be read, or the builder
/// errors.
fn plan(inputs: &[String], recursive: bool) -> Result<Vec<Visit>, CollectError> {
    let mut visits = Vec::new();
    let mut errs: Vec<String> = Vec::new();
    for s in inputs {
        if s == "-" {
            visits.push(Visit::Stdin);
            continue;
        }
        if s.starts_with("http://") || s.starts_with("https://") {
            visits.push(Visit::Url(s.clone()));
            continue;
        }
        // `expandIfFilePattern`: only a path that does not exist is a glob.
        let matches = if Path::new(s).exists() {
            vec![s.clone()]
        } else {
            match glob::glob(s) {
                Err(e) => {
                    errs.push(format!("pattern {s:?} is not valid: {e}"));
                    continue;
                }
                Ok(m) if m.is_empty() => {
                    errs.push(format!("the path {s:?} does not exist"));
                    continue;
                }
                Ok(m) => m,
            }
        };
        for p in &matches {
            match std::fs::metadata(p) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    errs.push(format!("the path {p:?} does not exist"));
                }
                Err(e) => errs.push(format!("the path {p:?} cannot be accessed: {}", io_text(&e))),
                Ok(_) => Walk { recursive, out: &mut visits, dirs: HashSet::new() }.path(Path::new(p), p, true),
            }
        }
        if visits.is_empty() && errs.is_empty() {
            errs.push(format!(
                "error reading [{}]: recognized file extensions are [.json .yaml .yml]",
                matches.join(" ")
            ));
        }
    }
    if errs.is_empty() { Ok(visits) } else { Err(CollectError::Builder(aggregate(&errs))) }
}

/// `filepath.Walk` from one root: lexical order, sub-directories only with `-R`, extension
/// filter for everything but the root itself. Symlinks are followed, but each directory is
/// entered once per root: a repository's links cannot make the walk loop or multiply (two
/// links to `..` would otherwise give exponentially many paths).
struct Walk<'a> {
    recursive: bool,
    out: &'a mut Vec<Visit>,
    /// Directories entered, by device and inode.
    dirs: HashSet<(u64, u64)>,
}

impl Walk<'_> {
    fn path(&mut self, path: &Path, shown: &str, is_root: bool) {
        let Ok(meta) = std::fs::metadata(path) else {
            return;
        };
        self.typed(path, shown, meta.is_dir(), is_root, false);
    }

    /// Once the type is known: `is_dir` after following symlinks, `listed_regular` when the
    /// directory listing reported a regular file (then no `stat` is needed).
    fn typed(&mut self, path: &Path, shown: &str, is_dir: bool, is_root: bool, listed_regular: bool) {
        if !is_dir {
            if is_root || EXTENSIONS.iter().any(|e| ext(shown) == *e) {
                self.out.push(Visit::File(shown.to_owned(), listed_regular));
            }
            return;
        }
        if (!is_root && !self.recursive) || !self.first_visit(path) {
            return;
        }
        let Ok(entries) = std::fs::read_dir(path) else {
            return;
        };
        // The listing's own file types spare a `stat` per entry; only symlinks (and file
        // systems that do not report types) need one, to follow them.
        let mut names: Vec<(String, Option<std::fs::FileType>)> = entries
            .filter_map(Result::ok)
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.file_type().ok()))
            .collect();
        names.sort_by(|a, b| a.0.cmp(&b.0));
        let prefix = clean(shown);
        for (n, file_type) in names {
            let child = match prefix.as_str() {
                "." => n.clone(),
                "/" => format!("/{n}"),
                dir => format!("{dir}/{n}"),
            };
            let child_path = path.join(&n);
            match file_type {
                Some(t) if !t.is_symlink() => self.typed(&child_path, &child, t.is_dir(), false, t.is_file()),
                _ => self.path(&child_path, &child, false),
            }
        }
    }

    /// Whether the directory at `path` has not been entered yet (and now counts as entered).
    #[cfg(unix)]
    fn first_visit(&mut self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).is_ok_and(|m| self.dirs.insert((m.dev(), m.ino())))
    }

    #[cfg(not(unix))]
    fn first_visit(&mut self, _path: &Path) -> bool {
        true
    }
}

/// `filepath.Ext`: from the last `.` of the last element.
fn ext(path: &str) -> &str {
    let base = path.rsplit('/').next().unwrap_or(path);
    base.rfind('.').map_or("", |i| &base[i..])
}

/// `filepath.Clean` for the prefix `filepath.Join` builds child paths from.
fn clean(p: &str) -> String {
    let abs = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            ".." if abs => {}
            s => parts.push(s),
        }
    }
    let body = parts.join("/");
    match (abs, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".to_owned(),
        (false, false) => body,
    }
}

/// Decodes streams into packed CRs, warnings and errors, in visit order. CRs are
/// de-duplicated as they come (the first per id stays), and only kept CRs feed the
/// reference indexes.
#[derive(Default)]
struct Reader {
    items: Items,
    seen: HashSet<String>,
    errors: Vec<String>,
}

impl Reader {
    fn read_stream(&mut self, text: &str, origin: &Origin<'_>) {
        self.take(stream::decode_stream(text, origin));
    }

    fn take_all(&mut self, batches: Vec<Vec<Event>>) {
        for events in batches {
            self.take(events);
        }
    }

    fn take(&mut self, events: Vec<Event>) {
        for event in events {
            match event {
                Event::Cr(b) => {
                    let (item, refs) = *b;
                    if !self.seen.insert(item.id().to_owned()) {
                        continue;
                    }
                    let items = &mut self.items;
                    items.index.extend(refs);
                    let at = items.crs.len();
                    match item {
                        Item::Compared(cr, mut result) => {
                            result.cr = at;
                            items.crs.push(cr);
                            items.results.push(result);
                        }
                        Item::Packed(packed) => {
                            items.crs.push(Cr { id: String::new(), object: Value::Null, source: String::new() });
                            items.results.push(CrResult::placeholder(at));
                            items.deferred.push((at, packed));
                        }
                    }
                }
                Event::Warning(w) => self.items.warnings.push(w),
                Event::Error(e) => self.errors.push(e),
            }
        }
    }
}

#[cfg(test)]
#[path = "collect_tests.rs"]
mod tests;
