//! kubeconform-style JSON schema directories (`--schema-location`, `schema-locations:`):
//! trusted schemas looked up by a path template per object type, local paths only.
//!
//! A location is a Go text/template with kubeconform's variables (its `registry.schemaPath`)
//! — `{{ .NormalizedKubernetesVersion }}` (`v1.37.0`), `{{ .StrictSuffix }}` (`-strict`, then
//! empty: driftlint validates strictly, and reads a directory kubeconform used without
//! `-strict` too), `{{ .ResourceKind }}` (the kind, lowercase), `{{ .KindSuffix }}`
//! (`-apps-v1`, `-v1`), `{{ .ResourceAPIVersion }}` (`v1`), `{{ .Group }}` (`apps`; for the
//! core group the version, `v1`, as kubeconform has it) — or, when it does not end in `json`,
//! a directory, which gets kubeconform's default layout (`DIR/{{ .NormalizedKubernetesVersion
//! }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json`). `default`
//! (kubeconform's preset, its remote copy of Kubernetes' schemas) stands for the bundled
//! built-in schemas and adds no location. A template that does not parse, or names another
//! variable, is refused: [`check_location`] before the run for what the person running
//! driftlint wrote (with a location that does not exist), and at each object for a location
//! that reached the run anyway. The first location with a file for a type wins. `$ref`s
//! resolve inside the file (`#/definitions/…`, `#/$defs/…`) or to a
//! sibling file (`_definitions.json#/…`, no directory part); the schema is compiled by
//! [`super::builtin`]'s JSON Schema compiler, once per type and run, within a CRD's limits
//! (`$ref`s followed, compiled nodes): one that crosses them is refused, not used cut.
//!
//! The kind and apiVersion come from the checked files, so the path is checked after they
//! are filled in: a value with other characters than letters, digits, `.` and `-` is not looked
//! up; `.` and `..` (as a value, or as a path component the filled-in template ends up with)
//! are refused; and the file, and every sibling a `$ref` reads, goes through
//! [`driftlint_core::confine`] against the repository holding the location's directory, so
//! a symlink under it (on any component) cannot lead out. A refusal is [`Found::Refused`],
//! which the schema pass reports at the object.
//!
//! A location may also be pinned at a commit, `git:REV:TEMPLATE` (the base of a scoped run
//! reads the base's location schemas so): the files below the template's fixed directory are
//! read from that commit's tree (bounded as every git snapshot is), never from the work tree.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use driftlint_core::confine::{Boundary, confine, path_segment};
use serde_json::Value;

use super::model::Schema;

/// What a location gave for a type.
#[derive(Clone, Debug)]
pub enum Found {
    /// The type's compiled schema.
    Schema(Arc<Schema>),
    /// Why the location's file for the type is not read or not used (names the path as
    /// written, relative to the repository).
    Refused(String),
}

/// A type's schema from a location, or that none has it.
type Cache = HashMap<(String, String, String), Option<Found>>;

/// One configured location: its template and where what it names must stay.
#[derive(Debug)]
struct Template {
    text: String,
    /// `text` parsed, or why it does not parse (reported at each object looked up in it: a
    /// location is never skipped silently).
    pieces: Result<Vec<Piece>, String>,
    /// The template's text before its first variable, up to the last `/`: what the person
    /// configuring it chose; only the variables come from the checked files.
    base: PathBuf,
    boundary: Boundary,
    /// For a `git:REV:` location: the text before the template (`git:REV:`), and the tree of
    /// `base` at that revision, or why it could not be read.
    git: Option<(String, Result<Arc<driftlint_git::Snapshot>, String>)>,
}

/// The configured locations and what was found in them.
#[derive(Debug, Default)]
pub struct Locations {
    templates: Vec<Template>,
    cache: Mutex<Cache>,
}

/// How many files one schema's `$ref`s may read (kubernetes-json-schema needs two).
const MAX_FILES: usize = 16;

impl Locations {
    /// `written` as given (templates or directories, or either as `git:REV:…`, found from
    /// `git_start`).
    pub fn new(written: &[String], git_start: &Path) -> Locations {
        let templates = written
            .iter()
            .filter(|w| w.as_str() != DEFAULT)
            .map(|written| {
                // `git:REV:TEMPLATE`: the template is a path in the repository at REV.
                let pinned = written
                    .strip_prefix(driftlint_git::location::GIT_PREFIX)
                    .and_then(|rest| rest.split_once(':'))
                    .map(|(rev, path)| (rev.to_string(), path));
                let w = pinned.as_ref().map_or(written.as_str(), |(_, path)| path);
                let text = full_template(w);
                let pieces = parse_template(&text);
                let base = fixed_dir(pieces.as_deref().unwrap_or_default(), &text);
                let boundary = Boundary::around(&base);
                let git = pinned.map(|(rev, _)| {
                    let prefix = format!("{}{rev}:", driftlint_git::location::GIT_PREFIX);
                    let dir = base.to_string_lossy().trim_start_matches("./").to_string();
                    let dir = if dir == "." { String::new() } else { dir };
                    let snapshot = driftlint_git::parse_location(&format!("{prefix}{dir}"))
                        .map_err(|e| e.to_string())
                        .and_then(|l| l.ok_or_else(|| "not a git location".to_string()))
                        .and_then(|l| driftlint_git::load_snapshot(&l, git_start).map_err(|e| e.to_string()))
                        .map(Arc::new);
                    (prefix, snapshot)
                });
                Template { text, pieces, base, boundary, git }
            })
            .collect();
        Locations { templates, cache: Mutex::new(HashMap::new()) }
    }

    pub fn is_empty(&self) -> bool {
        self.templates.is_empty()
    }

    /// The schema of `group/version kind` for Kubernetes `kube` (`1.37`), compiled once.
    pub fn lookup(&self, kube: &str, group: &str, version: &str, kind: &str) -> Option<Found> {
        if self.templates.is_empty() || ![group, version, kind].iter().all(|s| safe(s)) || kind.is_empty() {
            return None;
        }
        let key = (group.to_string(), version.to_string(), kind.to_string());
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = cache.get(&key) {
            return hit.clone();
        }
        let found = self.templates.iter().find_map(|t| t.lookup(kube, group, version, kind));
        cache.insert(key, found.clone());
        found
    }
}

impl Template {
    /// This location's schema for the type: `None` when it has no file for it.
    fn lookup(&self, kube: &str, group: &str, version: &str, kind: &str) -> Option<Found> {
        // The location as written, relative to the repository when it is in it.
        let shown = match &self.git {
            Some((prefix, _)) => format!("{prefix}{}", self.text),
            None => self.boundary.show(Path::new(&self.text)),
        };
        let refused = |why: String| Some(Found::Refused(format!("schema location `{shown}`: {why}")));
        let pieces = match &self.pieces {
            Ok(pieces) => pieces,
            Err(why) => return refused(format!("{why}: not used")),
        };
        for (name, value) in [("kind", kind), ("apiVersion group", group), ("apiVersion version", version)] {
            if let Err(why) = path_segment(value) {
                return refused(format!("the {name} {why}: not looked up"));
            }
        }
        // kubeconform fills `{{ .StrictSuffix }}` with `-strict` under `-strict` only; driftlint
        // always validates strictly, so the strict file is read first and the plain one (a
        // directory kubeconform used without `-strict`) when there is no strict one.
        let suffixes: &[&str] =
            if pieces.contains(&Piece::Var(Var::StrictSuffix)) { &["-strict", ""] } else { &["-strict"] };
        for strict in suffixes {
            let file = PathBuf::from(expand_pieces(pieces, &Values::new(kube, group, version, kind, strict)));
            // What the variables filled in may not step up or stay put (`.{{ .ResourceAPIVersion
            // }}.` could be `..` were it not checked above; this holds whatever a value is).
            let filled = file.strip_prefix(&self.base).unwrap_or(&file);
            if filled.components().any(|c| matches!(c, std::path::Component::ParentDir | std::path::Component::CurDir))
                || filled.to_str().is_some_and(|f| f.split('/').any(|c| c == "." || c == ".."))
            {
                return refused(format!("`{}` steps out of its directory: not looked up", self.boundary.show(&file)));
            }
            let from = match &self.git {
                Some((_, Ok(snapshot))) => From::Git(snapshot, &self.base),
                Some((_, Err(why))) => return refused(format!("cannot be read: {why}")),
                None => From::Disk(&self.boundary),
            };
            match load(&file, &from) {
                Ok(Some(s)) => return Some(Found::Schema(Arc::new(s))),
                Ok(None) => {}
                Err(why) => return refused(why),
            }
        }
        None
    }
}

fn safe(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-') && !s.contains("..")
}

/// kubeconform's preset location (its remote copy of the Kubernetes schemas): in driftlint the
/// bundled built-in schemas, which are used anyway.
pub const DEFAULT: &str = "default";

/// A location as kubeconform completes it: one not ending in `json` is a directory in
/// kubeconform's layout.
fn full_template(written: &str) -> String {
    if written.ends_with("json") {
        written.to_string()
    } else {
        format!(
            "{}/{{{{ .NormalizedKubernetesVersion }}}}-standalone{{{{ .StrictSuffix }}}}/{{{{ .ResourceKind }}}}{{{{ .KindSuffix }}}}.json",
            written.trim_end_matches('/')
        )
    }
}

/// The directory a template's fixed text names: its text before the first variable, up to the
/// last `/` — what the person configuring it chose; only the variables come from the checked
/// files.
fn fixed_dir(pieces: &[Piece], text: &str) -> PathBuf {
    let fixed = match pieces.iter().position(|p| matches!(p, Piece::Var(_))) {
        Some(i) => pieces[..i]
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.as_str(),
                Piece::Var(_) => "",
            })
            .collect::<String>(),
        // A template that does not parse: its text before the first action.
        None if text.contains("{{") => text[..text.find("{{").unwrap_or(text.len())].to_string(),
        None => text.to_string(),
    };
    match fixed.rfind('/') {
        Some(0) => PathBuf::from("/"),
        Some(i) => PathBuf::from(&fixed[..i]),
        None => PathBuf::from("."),
    }
}

/// A location written by hand (`--schema-location`, `schema-locations:`), checked before the
/// run as kubeconform checks it when it starts: its template parses and names only
/// kubeconform's variables, and the directory it reads below exists (the file itself, for a
/// template without variables). `Err` says what is wrong, naming the location. A
/// `git:REV:TEMPLATE` location is only parsed (its tree is read with the run).
pub fn check_location(written: &str) -> Result<(), String> {
    if written == DEFAULT {
        return Ok(());
    }
    let fail = |why: String| Err(format!("schema location `{written}`: {why}"));
    let pinned = written.strip_prefix(driftlint_git::location::GIT_PREFIX).and_then(|rest| rest.split_once(':'));
    let text = full_template(pinned.map_or(written, |(_, path)| path));
    let pieces = match parse_template(&text) {
        Ok(pieces) => pieces,
        Err(why) => return fail(why),
    };
    if pinned.is_some() {
        return Ok(());
    }
    if !pieces.iter().any(|p| matches!(p, Piece::Var(_))) {
        let file = expand_pieces(&pieces, &Values::new("", "", "", "", ""));
        return match std::fs::metadata(&file) {
            Ok(m) if m.is_file() => Ok(()),
            Ok(_) => fail(format!("`{file}` is not a file")),
            Err(e) => fail(format!("file `{file}` {}", io_reason(&e))),
        };
    }
    let dir = fixed_dir(&pieces, &text);
    match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => fail(format!("`{}` is not a directory", dir.display())),
        Err(e) => fail(format!("directory `{}` {}", dir.display(), io_reason(&e))),
    }
}

/// An I/O error in words, without the OS's error number.
fn io_reason(e: &std::io::Error) -> &'static str {
    match e.kind() {
        std::io::ErrorKind::NotFound => "does not exist",
        std::io::ErrorKind::PermissionDenied => "permission denied",
        _ => "cannot be read",
    }
}

/// A piece of a parsed location template.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Var(Var),
}

/// kubeconform's template variables (`registry.schemaPath`'s data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Var {
    NormalizedKubernetesVersion,
    StrictSuffix,
    ResourceKind,
    ResourceAPIVersion,
    Group,
    KindSuffix,
}

const VARS: [(&str, Var); 6] = [
    ("NormalizedKubernetesVersion", Var::NormalizedKubernetesVersion),
    ("StrictSuffix", Var::StrictSuffix),
    ("ResourceKind", Var::ResourceKind),
    ("ResourceAPIVersion", Var::ResourceAPIVersion),
    ("Group", Var::Group),
    ("KindSuffix", Var::KindSuffix),
];

/// `text` as Go's text/template reads it, for the one kind of action kubeconform's data
/// gives meaning to: a field of its data (`{{ .ResourceKind }}`), with the trim markers
/// (`{{- `, ` -}}`) and comments (`{{/* … */}}`) Go allows. An action that does not close, an
/// unknown field (Go's "can't evaluate field"), and any other action (a function, a pipeline,
/// `{{ . }}`) are errors.
fn parse_template(text: &str) -> Result<Vec<Piece>, String> {
    let names = || VARS.iter().map(|(n, _)| format!("`{{{{ .{n} }}}}`")).collect::<Vec<_>>().join(", ");
    let mut pieces = Vec::new();
    let mut rest = text;
    let mut trim_next = false;
    while let Some(open) = rest.find("{{") {
        let mut before = &rest[..open];
        if trim_next {
            before = before.trim_start();
        }
        let after = &rest[open + 2..];
        let (inner, trim_left) = match after.strip_prefix('-') {
            Some(a) if a.starts_with(|c: char| c.is_ascii_whitespace()) => (a, true),
            _ => (after, false),
        };
        if trim_left {
            before = before.trim_end();
        }
        if !before.is_empty() {
            pieces.push(Piece::Text(before.to_string()));
        }
        let inner_start = open + 2 + (after.len() - inner.len());
        let comment = inner.trim_start().starts_with("/*");
        let close = if comment {
            inner.find("*/").and_then(|end| inner[end..].find("}}").map(|c| end + c))
        } else {
            inner.find("}}")
        };
        let Some(close) = close else {
            return Err(format!(
                "the template does not parse: unclosed action at byte {}",
                text.len() - rest.len() + open
            ));
        };
        let mut action = &inner[..close];
        // `{{ .A {{ .B }}`: the first action never closed (Go: a bad character in it).
        if !comment && action.contains("{{") {
            return Err(format!(
                "the template does not parse: unclosed action at byte {}",
                text.len() - rest.len() + open
            ));
        }
        trim_next = false;
        if let Some(a) = action.strip_suffix('-')
            && a.ends_with(|c: char| c.is_ascii_whitespace())
        {
            action = a;
            trim_next = true;
        }
        rest = &rest[inner_start + close + 2..];
        if comment {
            continue;
        }
        let action = action.trim();
        let field = action
            .strip_prefix('.')
            .filter(|f| !f.is_empty() && f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        let Some(field) = field else {
            return Err(if action.is_empty() {
                "the template does not parse: empty action `{{ }}`".to_string()
            } else {
                format!("`{{{{ {action} }}}}`: only kubeconform's variables may be used ({})", names())
            });
        };
        match VARS.iter().find(|(n, _)| *n == field) {
            Some((_, var)) => pieces.push(Piece::Var(*var)),
            None => return Err(format!("unknown variable `{{{{ .{field} }}}}` (kubeconform's are {})", names())),
        }
    }
    let rest = if trim_next { rest.trim_start() } else { rest };
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_string()));
    }
    Ok(pieces)
}

/// The values of kubeconform's variables for one type.
struct Values {
    normalized_version: String,
    strict_suffix: String,
    resource_kind: String,
    resource_api_version: String,
    group: String,
    kind_suffix: String,
}

impl Values {
    /// As kubeconform's `registry.schemaPath` computes them from `apiVersion` and `kind`, for
    /// Kubernetes `kube` (`1.37`; kubeconform takes a full `1.37.0`). For the core group
    /// (`apiVersion: v1`) `Group` is the version, as kubeconform has it (it takes the text
    /// before the `/`).
    fn new(kube: &str, group: &str, version: &str, kind: &str, strict_suffix: &str) -> Values {
        let first = group.split('.').next().unwrap_or_default().to_ascii_lowercase();
        let kind_suffix = if group.is_empty() {
            format!("-{}", version.to_ascii_lowercase())
        } else {
            format!("-{first}-{}", version.to_ascii_lowercase())
        };
        Values {
            normalized_version: format!("v{kube}.0"),
            strict_suffix: strict_suffix.to_string(),
            resource_kind: kind.to_ascii_lowercase(),
            resource_api_version: version.to_string(),
            group: if group.is_empty() { version.to_string() } else { group.to_string() },
            kind_suffix,
        }
    }

    fn get(&self, var: Var) -> &str {
        match var {
            Var::NormalizedKubernetesVersion => &self.normalized_version,
            Var::StrictSuffix => &self.strict_suffix,
            Var::ResourceKind => &self.resource_kind,
            Var::ResourceAPIVersion => &self.resource_api_version,
            Var::Group => &self.group,
            Var::KindSuffix => &self.kind_suffix,
        }
    }
}

fn expand_pieces(pieces: &[Piece], values: &Values) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Text(t) => t.as_str(),
            Piece::Var(v) => values.get(*v),
        })
        .collect()
}

/// `template` with kubeconform's variables filled in (`-strict` for `{{ .StrictSuffix }}`);
/// `Err` when it does not parse.
pub fn expand(template: &str, kube: &str, group: &str, version: &str, kind: &str) -> Result<String, String> {
    Ok(expand_pieces(&parse_template(template)?, &Values::new(kube, group, version, kind, "-strict")))
}

/// The compiled schema in `file`, its `$ref`s followed: `Ok(None)` when there is no such file;
/// `Err` when a file it reads leads out of `boundary`, is no JSON, or the schema crosses a
/// limit.
fn load(file: &Path, from: &From<'_>) -> Result<Option<Schema>, String> {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name().and_then(|n| n.to_str())) else { return Ok(None) };
    let mut files: HashMap<String, Arc<Value>> = HashMap::new();
    let Some(root) = read(dir, name, from)? else { return Ok(None) };
    files.insert(name.to_string(), root);
    // Every `$ref` target, as a definition named `file#pointer`; refs rewritten to those names.
    let mut definitions: HashMap<String, Arc<Value>> = HashMap::new();
    let mut pending = vec![(name.to_string(), String::new())];
    while let Some((f, pointer)) = pending.pop() {
        let key = format!("{f}#{pointer}");
        if definitions.contains_key(&key) {
            continue;
        }
        // Each distinct target is followed at least once, so more of them than `$ref`s may be
        // followed is over the limit already (and bounds the copies made here).
        if definitions.len() > super::builtin::MAX_REF_EXPANSIONS {
            return Err(format!(
                "`{}` refers to more than {} schemas (a limit against runaway schemas): not used",
                from.show(file),
                super::builtin::MAX_REF_EXPANSIONS
            ));
        }
        if !files.contains_key(&f) {
            if files.len() >= MAX_FILES {
                continue;
            }
            let Some(v) = read(dir, &f, from)? else { continue };
            files.insert(f.clone(), v);
        }
        let Some(target) = files[&f].pointer(&pointer) else { continue };
        let rewritten = rewrite(target, &f, &mut pending);
        definitions.insert(key, Arc::new(rewritten));
    }
    let kind = driftlint_kube_schemas::KindSchema { root: format!("{name}#"), definitions };
    match super::builtin::compile_bounded(&kind) {
        (s, None) => Ok(Some(s)),
        (_, Some(limit)) => Err(format!("`{}`: {limit}: not used", from.show(file))),
    }
}

/// Where a location's files are read from.
enum From<'a> {
    /// The file system, within the boundary.
    Disk(&'a Boundary),
    /// A commit's tree of the template's fixed directory (`base`).
    Git(&'a driftlint_git::Snapshot, &'a Path),
}

impl From<'_> {
    /// `path` as messages name it.
    fn show(&self, path: &Path) -> String {
        match self {
            From::Disk(boundary) => boundary.show(path),
            From::Git(snapshot, _) => format!(
                "{}{}:{}",
                driftlint_git::location::GIT_PREFIX,
                &snapshot.commit[..12.min(snapshot.commit.len())],
                path.display()
            ),
        }
    }
}

/// The JSON document `name` in `dir`: `Ok(None)` when it is missing; `Err` when it leads out
/// of the boundary, cannot be read or is no JSON (kubeconform's file loader fails on such a
/// file too: it is never taken for a missing one).
fn read(dir: &Path, name: &str, from: &From<'_>) -> Result<Option<Arc<Value>>, String> {
    if name.contains('/') || name.contains('\\') || name.starts_with('.') {
        return Ok(None);
    }
    let path = dir.join(name);
    let not_json = |e: serde_json::Error| format!("`{}` is no JSON ({e}): not used", from.show(&path));
    let boundary = match from {
        From::Disk(boundary) => boundary,
        From::Git(snapshot, base) => {
            // Paths in the tree are relative to the template's fixed directory.
            let Ok(rel) = path.strip_prefix(base) else { return Ok(None) };
            let Some(rel) = rel.to_str() else { return Ok(None) };
            let Ok(bytes) = snapshot.tree.read(rel) else { return Ok(None) };
            if bytes.len() as u64 > driftlint_core::input::MAX_FILE_BYTES {
                return Err(format!(
                    "`{}` is larger than {} bytes: not used",
                    from.show(&path),
                    driftlint_core::input::MAX_FILE_BYTES
                ));
            }
            return serde_json::from_slice(bytes).map(|v| Some(Arc::new(v))).map_err(not_json);
        }
    };
    let real = confine(&path, boundary).map_err(|refusal| refusal.to_string())?;
    let text = match driftlint_core::input::read_bounded_to_string(&real, driftlint_core::input::MAX_FILE_BYTES) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("`{}` cannot be read ({e}): not used", boundary.show(&path))),
    };
    serde_json::from_str(&text).map(|v| Some(Arc::new(v))).map_err(not_json)
}

/// `v` with each `$ref` replaced by the name of its target (`file#pointer`), queued in
/// `pending`.
fn rewrite(v: &Value, file: &str, pending: &mut Vec<(String, String)>) -> Value {
    match v {
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                if k == "$ref"
                    && let Value::String(r) = v
                {
                    let (f, pointer) = r.split_once('#').unwrap_or((r, ""));
                    let f = if f.is_empty() { file.to_string() } else { f.rsplit('/').next().unwrap_or(f).to_string() };
                    pending.push((f.clone(), pointer.to_string()));
                    out.insert(k.clone(), Value::String(format!("{f}#{pointer}")));
                } else {
                    out.insert(k.clone(), rewrite(v, file, pending));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| rewrite(i, file, pending)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Type;

    #[test]
    fn templates_expand_like_kubeconforms() {
        let t =
            "/s/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json";
        let x = |t: &str, g: &str, v: &str, k: &str| expand(t, "1.30", g, v, k).unwrap();
        assert_eq!(x(t, "apps", "v1", "Deployment"), "/s/v1.30.0-local-strict/deployment-apps-v1.json");
        assert_eq!(x(t, "", "v1", "Service"), "/s/v1.30.0-local-strict/service-v1.json");
        let datree = "{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json";
        assert_eq!(x(datree, "rbac.authorization.k8s.io", "v1", "Role"), "rbac.authorization.k8s.io/role_v1.json");
        // kubeconform's `Group` is the apiVersion's text before `/`: the version for the core group.
        assert_eq!(x(datree, "", "v1", "Service"), "v1/service_v1.json");
        assert_eq!(x("a/{{.KindSuffix}}", "Cert-Manager.io", "V1", "x"), "a/-cert-manager-v1");
        // Go's trim markers and comments.
        assert_eq!(x("s/ {{- .ResourceKind -}} \t.json{{/* c */}}", "", "v1", "Pod"), "s/pod.json");
        assert_eq!(x("s/{{- /* c */ -}} x", "", "v1", "Pod"), "s/x");
    }

    #[test]
    fn templates_that_kubeconform_refuses_are_errors() {
        let e = |t: &str| parse_template(t).unwrap_err();
        assert!(
            e("foo {{ .Foo }}")
                .starts_with("unknown variable `{{ .Foo }}` (kubeconform's are `{{ .NormalizedKubernetesVersion }}`"),
            "{}",
            e("foo {{ .Foo }}")
        );
        assert!(e("s/{{ .ResourceKind ").contains("unclosed action at byte 2"));
        assert!(e("s/{{ .ResourceKind }}/{{ .Kind }}.json").contains("unknown variable `{{ .Kind }}`"));
        assert!(e("s/{{ }}.json").contains("empty action"));
        assert!(e("s/{{ printf \"%s\" .Group }}.json").contains("only kubeconform's variables may be used"));
        assert!(e("s/{{ . }}.json").contains("only kubeconform's variables"));
        assert!(e("s/{{/* unclosed }}").contains("unclosed action"));
        assert!(e("s/{{ .ResourceKind/{{ .Group }}.json").contains("unclosed action at byte 2"));
        // Text outside actions is anything, as in Go (a lone `}}` too).
        assert_eq!(parse_template("a}}b").unwrap(), vec![Piece::Text("a}}b".into())]);
    }

    #[test]
    fn written_locations_are_checked_before_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        std::fs::write(dir.path().join("one.json"), "{}").unwrap();
        assert_eq!(check_location(&format!("{d}")), Ok(()));
        assert_eq!(check_location(&format!("{d}/{{{{ .ResourceKind }}}}.json")), Ok(()));
        assert_eq!(check_location(&format!("{d}/one.json")), Ok(()));
        assert_eq!(check_location("default"), Ok(()));
        assert_eq!(
            check_location(&format!("{d}/missing")),
            Err(format!("schema location `{d}/missing`: directory `{d}/missing` does not exist"))
        );
        assert_eq!(
            check_location(&format!("{d}/missing/{{{{ .ResourceKind }}}}.json")),
            Err(format!(
                "schema location `{d}/missing/{{{{ .ResourceKind }}}}.json`: directory `{d}/missing` does not exist"
            ))
        );
        assert_eq!(
            check_location(&format!("{d}/two.json")),
            Err(format!("schema location `{d}/two.json`: file `{d}/two.json` does not exist"))
        );
        assert!(
            check_location(&format!("{d}/one.json/{{{{ .Group }}}}.json")).unwrap_err().contains("is not a directory")
        );
        let unknown = check_location(&format!("{d} {{{{ .Foo }}}}")).unwrap_err();
        assert!(
            unknown.starts_with(&format!("schema location `{d} {{{{ .Foo }}}}`: unknown variable `{{{{ .Foo }}}}`")),
            "{unknown}"
        );
        // A pinned location's template is parsed; its tree is read with the run.
        assert!(check_location("git:HEAD:s/{{ .Foo }}.json").unwrap_err().contains("unknown variable"));
        assert_eq!(check_location("git:HEAD:nowhere/{{ .Group }}.json"), Ok(()));
    }

    #[test]
    fn a_template_that_does_not_parse_is_refused_at_each_lookup() {
        let dir = tempfile::tempdir().unwrap();
        let l = Locations::new(&[format!("{}/{{{{ .Foo }}}}.json", dir.path().display())], dir.path());
        let Some(Found::Refused(why)) = l.lookup("1.37", "", "v1", "Pod") else { panic!() };
        assert!(why.contains(": unknown variable `{{ .Foo }}`") && why.ends_with(": not used"), "{why}");
        // `default` (kubeconform's preset) names the bundled schemas: no location.
        assert!(Locations::new(&["default".to_string()], dir.path()).is_empty());
    }

    #[test]
    fn a_location_file_that_is_no_json_is_refused_not_taken_for_missing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pod.json"), "apiVersion: v1\n").unwrap();
        let l = Locations::new(&[format!("{}/{{{{ .ResourceKind }}}}.json", dir.path().display())], dir.path());
        let Some(Found::Refused(why)) = l.lookup("1.37", "", "v1", "Pod") else { panic!() };
        assert!(why.contains("pod.json` is no JSON") && why.ends_with(": not used"), "{why}");
        assert!(l.lookup("1.37", "", "v1", "Service").is_none());
    }

    #[test]
    fn the_plain_file_is_read_when_there_is_no_strict_one() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("v1.37.0-standalone");
        std::fs::create_dir(&plain).unwrap();
        std::fs::write(
            plain.join("widget-example-v1.json"),
            r#"{"type":"object","properties":{"a":{"type":"integer"}}}"#,
        )
        .unwrap();
        let l = Locations::new(&[dir.path().display().to_string()], dir.path());
        let Some(Found::Schema(s)) = l.lookup("1.37", "example.org", "v1", "Widget") else { panic!() };
        assert_eq!(s.properties["a"].ty, Some(Type::Integer));
        let strict = dir.path().join("v1.37.0-standalone-strict");
        std::fs::create_dir(&strict).unwrap();
        std::fs::write(
            strict.join("widget-example-v1.json"),
            r#"{"type":"object","properties":{"a":{"type":"string"}}}"#,
        )
        .unwrap();
        let l = Locations::new(&[dir.path().display().to_string()], dir.path());
        let Some(Found::Schema(s)) = l.lookup("1.37", "example.org", "v1", "Widget") else { panic!() };
        assert_eq!(s.properties["a"].ty, Some(Type::String));
    }

    #[test]
    fn schemas_load_with_refs_to_siblings_and_unsafe_names_are_not_looked_up() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("v1.37.0-standalone-strict");
        std::fs::create_dir(&d).unwrap();
        std::fs::write(
            d.join("widget-example-v1.json"),
            r##"{"type":"object","properties":{"spec":{"$ref":"_definitions.json#/definitions/Spec"},"size":{"$ref":"#/definitions/Size"}},"definitions":{"Size":{"type":"integer"}},"additionalProperties":false}"##,
        )
        .unwrap();
        std::fs::write(
            d.join("_definitions.json"),
            r##"{"definitions":{"Spec":{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":false}}}"##,
        )
        .unwrap();
        let l = Locations::new(&[dir.path().display().to_string()], dir.path());
        let Some(Found::Schema(s)) = l.lookup("1.37", "example.org", "v1", "Widget") else { panic!() };
        assert_eq!(s.properties["size"].ty, Some(Type::Integer));
        assert_eq!(s.properties["spec"].properties["name"].ty, Some(Type::String));
        assert!(s.additional.is_none());
        assert!(l.lookup("1.37", "example.org", "v1", "Gadget").is_none());
        assert!(l.lookup("1.37", "example.org", "v1", "../../etc/passwd").is_none());
    }
}
