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
//! [`super::builtin`]'s JSON Schema compiler, once per type and run.
//!
//! The kind and apiVersion come from the checked files: one with other characters than
//! letters, digits, `.` and `-` is not looked up, so a manifest cannot steer the path.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::model::Schema;

/// A type's compiled schema from a location, or that none has it.
type Cache = HashMap<(String, String, String), Option<Arc<Schema>>>;

/// The configured locations and what was found in them.
#[derive(Debug, Default)]
pub struct Locations {
    templates: Vec<String>,
    cache: Mutex<Cache>,
}

/// How many files one schema's `$ref`s may read (kubernetes-json-schema needs two).
const MAX_FILES: usize = 16;

impl Locations {
    /// `written` as given (templates or directories).
    pub fn new(written: &[String]) -> Locations {
        let templates = written
            .iter()
            .map(|w| {
                if w.ends_with(".json") {
                    w.clone()
                } else {
                    format!(
                        "{}/{{{{ .NormalizedKubernetesVersion }}}}-standalone{{{{ .StrictSuffix }}}}/{{{{ .ResourceKind }}}}{{{{ .KindSuffix }}}}.json",
                        w.trim_end_matches('/')
                    )
                }
            })
            .collect();
        Locations { templates, cache: Mutex::new(HashMap::new()) }
    }

    pub fn is_empty(&self) -> bool {
        self.templates.is_empty()
    }

    /// The schema of `group/version kind` for Kubernetes `kube` (`1.37`), compiled once.
    pub fn lookup(&self, kube: &str, group: &str, version: &str, kind: &str) -> Option<Arc<Schema>> {
        if self.templates.is_empty() || ![group, version, kind].iter().all(|s| safe(s)) || kind.is_empty() {
            return None;
        }
        let key = (group.to_string(), version.to_string(), kind.to_string());
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = cache.get(&key) {
            return hit.clone();
        }
        let found = self
            .templates
            .iter()
            .find_map(|t| load(&PathBuf::from(expand(t, kube, group, version, kind))))
            .map(Arc::new);
        cache.insert(key, found.clone());
        found
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

/// The compiled schema in `file`, its `$ref`s followed; `None` when there is no such file or
/// it is no JSON.
fn load(file: &Path) -> Option<Schema> {
    let dir = file.parent()?.to_path_buf();
    let name = file.file_name()?.to_str()?.to_string();
    let mut files: HashMap<String, Arc<Value>> = HashMap::new();
    let root = read(&dir, &name)?;
    files.insert(name.clone(), root);
    // Every `$ref` target, as a definition named `file#pointer`; refs rewritten to those names.
    let mut definitions: HashMap<String, Arc<Value>> = HashMap::new();
    let mut pending = vec![(name.clone(), String::new())];
    while let Some((f, pointer)) = pending.pop() {
        let key = format!("{f}#{pointer}");
        if definitions.contains_key(&key) {
            continue;
        }
        if !files.contains_key(&f) {
            if files.len() >= MAX_FILES {
                continue;
            }
            let Some(v) = read(&dir, &f) else { continue };
            files.insert(f.clone(), v);
        }
        let Some(target) = files[&f].pointer(&pointer) else { continue };
        let rewritten = rewrite(target, &f, &mut pending);
        definitions.insert(key, Arc::new(rewritten));
    }
    let kind = driftlint_kube_schemas::KindSchema { root: format!("{name}#"), definitions };
    Some(super::builtin::compile(&kind))
}

fn read(dir: &Path, name: &str) -> Option<Arc<Value>> {
    if name.contains('/') || name.contains('\\') || name.starts_with('.') {
        return None;
    }
    let text =
        driftlint_core::input::read_bounded_to_string(&dir.join(name), driftlint_core::input::MAX_FILE_BYTES).ok()?;
    serde_json::from_str(&text).ok().map(Arc::new)
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
        let l = Locations::new(&[dir.path().display().to_string()]);
        let s = l.lookup("1.37", "example.org", "v1", "Widget").unwrap();
        assert_eq!(s.properties["size"].ty, Some(Type::Integer));
        assert_eq!(s.properties["spec"].properties["name"].ty, Some(Type::String));
        assert!(s.additional.is_none());
        assert!(l.lookup("1.37", "example.org", "v1", "Gadget").is_none());
        assert!(l.lookup("1.37", "example.org", "v1", "../../etc/passwd").is_none());
    }
}
