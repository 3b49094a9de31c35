//! kubeconform-style JSON schema directories (`--schema-location`, `schema-locations:`):
//! trusted schemas looked up by a path template per object type, local paths only.
//!
//! A location is a template with kubeconform's variables — `{{ .NormalizedKubernetesVersion }}`
//! (`v1.37.0`), `{{ .StrictSuffix }}` (`-strict`: driftlint validates strictly),
//! `{{ .ResourceKind }}` (the kind, lowercase), `{{ .KindSuffix }}` (`-apps-v1`, `-v1`),
//! `{{ .ResourceAPIVersion }}` (`v1`), `{{ .Group }}` (`apps`) — or a directory, which gets
//! kubeconform's default layout (`DIR/{{ .NormalizedKubernetesVersion }}-standalone{{
//! .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json`). The first location with a file
//! for a type wins. `$ref`s resolve inside the file (`#/definitions/…`, `#/$defs/…`) or to a
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
            .map(|written| {
                // `git:REV:TEMPLATE`: the template is a path in the repository at REV.
                let pinned = written
                    .strip_prefix(driftlint_git::location::GIT_PREFIX)
                    .and_then(|rest| rest.split_once(':'))
                    .map(|(rev, path)| (rev.to_string(), path));
                let w = pinned.as_ref().map_or(written.as_str(), |(_, path)| path);
                let text = if w.ends_with(".json") {
                    w.to_string()
                } else {
                    format!(
                        "{}/{{{{ .NormalizedKubernetesVersion }}}}-standalone{{{{ .StrictSuffix }}}}/{{{{ .ResourceKind }}}}{{{{ .KindSuffix }}}}.json",
                        w.trim_end_matches('/')
                    )
                };
                let fixed = &text[..text.find("{{").unwrap_or(text.len())];
                let base = match fixed.rfind('/') {
                    Some(0) => PathBuf::from("/"),
                    Some(i) => PathBuf::from(&fixed[..i]),
                    None => PathBuf::from("."),
                };
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
                Template { text, base, boundary, git }
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
        for (name, value) in [("kind", kind), ("apiVersion group", group), ("apiVersion version", version)] {
            if let Err(why) = path_segment(value) {
                return refused(format!("the {name} {why}: not looked up"));
            }
        }
        let file = PathBuf::from(expand(&self.text, kube, group, version, kind));
        // What the variables filled in may not step up or stay put (`.{{ .Group }}.` with the
        // core group is `..`).
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
            Ok(Some(s)) => Some(Found::Schema(Arc::new(s))),
            Ok(None) => None,
            Err(why) => refused(why),
        }
    }
}

fn safe(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-') && !s.contains("..")
}

/// `template` with kubeconform's variables filled in.
pub fn expand(template: &str, kube: &str, group: &str, version: &str, kind: &str) -> String {
    let first = group.split('.').next().unwrap_or_default().to_ascii_lowercase();
    let suffix = if group.is_empty() {
        format!("-{}", version.to_ascii_lowercase())
    } else {
        format!("-{first}-{}", version.to_ascii_lowercase())
    };
    let vars = [
        ("NormalizedKubernetesVersion", format!("v{kube}.0")),
        ("StrictSuffix", "-strict".to_string()),
        ("ResourceKind", kind.to_ascii_lowercase()),
        ("KindSuffix", suffix),
        ("ResourceAPIVersion", version.to_string()),
        ("Group", group.to_string()),
    ];
    let mut out = template.to_string();
    for (name, value) in vars {
        for spelling in [format!("{{{{ .{name} }}}}"), format!("{{{{.{name}}}}}")] {
            out = out.replace(&spelling, &value);
        }
    }
    out
}

/// The compiled schema in `file`, its `$ref`s followed: `Ok(None)` when there is no such file
/// or it is no JSON; `Err` when a file it reads leads out of `boundary` or the schema crosses
/// a limit.
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

/// The JSON document `name` in `dir`: `Ok(None)` when it is missing or no JSON; `Err` when it
/// leads out of the boundary.
fn read(dir: &Path, name: &str, from: &From<'_>) -> Result<Option<Arc<Value>>, String> {
    if name.contains('/') || name.contains('\\') || name.starts_with('.') {
        return Ok(None);
    }
    let path = dir.join(name);
    let boundary = match from {
        From::Disk(boundary) => boundary,
        From::Git(snapshot, base) => {
            // Paths in the tree are relative to the template's fixed directory.
            let Ok(rel) = path.strip_prefix(base) else { return Ok(None) };
            let Some(rel) = rel.to_str() else { return Ok(None) };
            let Ok(bytes) = snapshot.tree.read(rel) else { return Ok(None) };
            if bytes.len() as u64 > driftlint_core::input::MAX_FILE_BYTES {
                return Ok(None);
            }
            return Ok(serde_json::from_slice(bytes).ok().map(Arc::new));
        }
    };
    let real = confine(&path, boundary).map_err(|refusal| refusal.to_string())?;
    let Ok(text) = driftlint_core::input::read_bounded_to_string(&real, driftlint_core::input::MAX_FILE_BYTES) else {
        return Ok(None);
    };
    Ok(serde_json::from_str(&text).ok().map(Arc::new))
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
        assert_eq!(expand(t, "1.30", "apps", "v1", "Deployment"), "/s/v1.30.0-local-strict/deployment-apps-v1.json");
        assert_eq!(expand(t, "1.30", "", "v1", "Service"), "/s/v1.30.0-local-strict/service-v1.json");
        assert_eq!(
            expand(
                "{{.Group}}/{{.ResourceAPIVersion}}/{{.ResourceKind}}.json",
                "1.37",
                "rbac.authorization.k8s.io",
                "v1",
                "Role"
            ),
            "rbac.authorization.k8s.io/v1/role.json"
        );
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
