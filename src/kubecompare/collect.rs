//! Collecting cluster CRs the way kube-compare's kubectl resource builder does (spec §1.7).
//!
//! This is deliberately separate from [`crate::input`]/[`crate::document`] (the linter's
//! collection): kube-compare treats *any* object with an `items` array as a list, reads only
//! `.json`/`.yaml`/`.yml` inside directories (in lexical walk order, recursing only with
//! `-R`), skips kind-less and unparsable documents with a warning, fails on scalar or list
//! documents, expands missing paths as Go globs, and keeps the first CR per id. Error and
//! warning texts are kube-compare's, word for word, because users grep them.
//!
//! The builder's two error phases are kept apart: path problems fail before anything is read
//! (`failed to collect resources: …`), decode problems after everything was read
//! (`error occurred while trying to fetch resources: …`).

use std::io::Read;
use std::path::Path;

use serde_json::Value;

use super::glob;

/// File extensions read inside directories (`resource.FileExtensions`).
const EXTENSIONS: [&str; 3] = [".json", ".yaml", ".yml"];

/// One collected cluster CR.
#[derive(Clone, Debug, PartialEq)]
pub struct Cr {
    /// `apiVersion_kind[_namespace]_name` (§ conventions).
    pub id: String,
    /// The object as JSON (Kubernetes' YAML 1.1 rules, integers kept).
    pub object: Value,
    /// Where it came from: the path as walked, `STDIN`, or the URL.
    pub source: String,
}

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
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(|e| e.to_string())?;
        Ok(s)
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
    File(String),
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
    let visits = plan(inputs, recursive)?;
    let mut reader = Reader::default();
    for visit in visits {
        match visit {
            Visit::Stdin => match io.read_stdin() {
                Ok(text) => reader.read_stream(&text, "STDIN"),
                Err(e) => reader.errors.push(format!("error parsing STDIN: {e}")),
            },
            Visit::Url(url) => match io.fetch_url(&url) {
                Ok(text) => reader.read_stream(&text, &url),
                Err(e) => reader.errors.push(e),
            },
            Visit::File(path) => match std::fs::read(&path) {
                Ok(bytes) => reader.read_stream(&String::from_utf8_lossy(&bytes), &path),
                Err(e) => reader.errors.push(format!("open {path}: {}", io_text(&e))),
            },
        }
    }
    if !reader.errors.is_empty() {
        return Err(CollectError::Fetch { message: aggregate(&reader.errors), warnings: reader.warnings });
    }
    let mut seen = std::collections::HashSet::new();
    let crs = reader.crs.into_iter().filter(|cr| seen.insert(cr.id.clone())).collect();
    Ok(Collected { crs, warnings: reader.warnings })
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
                Ok(_) => walk(Path::new(p), p, true, recursive, &mut visits),
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

/// `filepath.Walk` from `root`: lexical order, sub-directories only with `-R`, extension
/// filter for everything but the root itself.
fn walk(path: &Path, shown: &str, is_root: bool, recursive: bool, out: &mut Vec<Visit>) {
    let Ok(meta) = std::fs::metadata(path) else {
        return;
    };
    if meta.is_dir() {
        if !is_root && !recursive {
            return;
        }
        let Ok(entries) = std::fs::read_dir(path) else {
            return;
        };
        let mut names: Vec<String> =
            entries.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        for n in names {
            let child = match clean(shown).as_str() {
                "." => n.clone(),
                "/" => format!("/{n}"),
                dir => format!("{dir}/{n}"),
            };
            walk(&path.join(&n), &child, false, recursive, out);
        }
        return;
    }
    if is_root || EXTENSIONS.iter().any(|e| ext(shown) == *e) {
        out.push(Visit::File(shown.to_owned()));
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

/// Decodes streams into CRs, warnings and errors, in visit order.
#[derive(Default)]
struct Reader {
    crs: Vec<Cr>,
    warnings: Vec<String>,
    errors: Vec<String>,
}

impl Reader {
    fn read_stream(&mut self, text: &str, source: &str) {
        let stream = driftlint_yaml::parse_stream(text);
        for doc in &stream.documents {
            if let Some(w) = doc.warnings.iter().find(|w| matches!(w, driftlint_yaml::Warning::UnsupportedKey { .. })) {
                // sigs.k8s.io/yaml rejects such keys while converting: an "error parsing" that
                // stops the file.
                self.parse_error(source, &w.message());
                return;
            }
            let value = doc.root.to_json();
            self.decode(value, source);
        }
        if let Some(e) = stream.error {
            let msg = format!("yaml: line {}: {}", e.line, e.message);
            self.parse_error(source, &msg);
        }
    }

    /// `error parsing <src>: error converting YAML to JSON: <msg>`, downgraded to a warning
    /// that shows the third word and the text from the last `:` (§1.7, kube-compare's
    /// "TODO: Fix this error message truncation").
    fn parse_error(&mut self, source: &str, msg: &str) {
        let err = format!("error parsing {source}: error converting YAML to JSON: {msg}");
        let tail = err.rfind(':').map_or("", |i| &err[i..]).to_owned();
        self.warnings.push(skip_warning(&word(&err, 2), &tail));
    }

    fn decode(&mut self, value: Value, source: &str) {
        let type_name = match &value {
            Value::Null => return,
            Value::Object(_) => "",
            Value::String(_) => "string",
            Value::Number(_) => "number",
            Value::Bool(_) => "bool",
            Value::Array(_) => "array",
        };
        if !type_name.is_empty() {
            self.errors.push(format!(
                "unable to decode {source:?}: json: cannot unmarshal {type_name} into Go value of type unstructured.detector"
            ));
            return;
        }
        if let Some(Value::Array(items)) = value.get("items") {
            for item in items.clone() {
                self.decode_item(item, source);
            }
            return;
        }
        if !has_kind(&value) {
            let err = format!("unable to decode {source:?}: Object 'Kind' is missing in '...'");
            self.warnings.push(skip_warning(&word(&err, 3), "'Kind' is missing"));
            return;
        }
        self.push(value, source);
    }

    /// A list item: nested lists flatten again; a kind-less item fails type lookup
    /// (`unable to get type info from the object "*unstructured.Unstructured": Object 'Kind'
    /// is missing …`), whose fourth word is `type`.
    fn decode_item(&mut self, item: Value, source: &str) {
        if let Some(Value::Array(items)) = item.get("items") {
            for i in items.clone() {
                self.decode_item(i, source);
            }
            return;
        }
        if !item.is_object() || !has_kind(&item) {
            self.warnings.push(skip_warning("type", "'Kind' is missing"));
            return;
        }
        self.push(item, source);
    }

    fn push(&mut self, object: Value, source: &str) {
        let id = cr_id(&object);
        self.crs.push(Cr { id, object, source: source.to_owned() });
    }
}

fn has_kind(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str).is_some_and(|k| !k.is_empty())
}

/// kube-compare's `extractPath`: the n-th space-separated word, or `Unknown Path`.
fn word(s: &str, n: usize) -> String {
    s.split(' ').nth(n).unwrap_or("Unknown Path").to_owned()
}

/// kube-compare's `skipInvalidResources` format.
#[must_use]
pub fn skip_warning(token: &str, error: &str) -> String {
    format!(
        "Skipping {token} Input contains additional files from supported file extensions (json/yaml) that do not \
         contain a valid resource, error: {error}.\n In case this file is expected to be a valid resource modify it \
         accordingly. "
    )
}

/// The CR id of an object (§ conventions): non-string fields count as empty.
#[must_use]
pub fn cr_id(object: &Value) -> String {
    fn s(v: Option<&Value>) -> &str {
        v.and_then(Value::as_str).unwrap_or_default()
    }
    let meta = object.get("metadata");
    let (api, kind) = (s(object.get("apiVersion")), s(object.get("kind")));
    let (ns, name) = (s(meta.and_then(|m| m.get("namespace"))), s(meta.and_then(|m| m.get("name"))));
    if ns.is_empty() { format!("{api}_{kind}_{name}") } else { format!("{api}_{kind}_{ns}_{name}") }
}

#[cfg(test)]
#[path = "collect_tests.rs"]
mod tests;
