//! `immutable-field-changed`: the fields the API server refuses to update, and which of them
//! a change to an object alters (the Kubernetes API's immutable fields of built-in kinds, and
//! the data of an immutable Secret or ConfigMap).
//!
//! A field counts as changed when both states set it to different values, or the base sets it
//! and the head removes it (`kubectl apply` then sends a null); a field the base left unset is
//! a change too, except for fields the server fills in itself (`clusterIP`,
//! `storageClassName`), whose live value the files do not know.

use std::collections::BTreeMap;

use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::document::{Document, Identity};
use driftlint_core::input::Source;
use driftlint_core::locate::{FieldDiffKind, node_range};

/// One immutable field of a kind, as a JSON pointer.
struct Field {
    pointer: &'static str,
    /// The server fills it in when the object is created without it: a head that sets a
    /// field the base did not may match the live value.
    defaulted: bool,
}

const fn f(pointer: &'static str) -> Field {
    Field { pointer, defaulted: false }
}

const fn defaulted(pointer: &'static str) -> Field {
    Field { pointer, defaulted: true }
}

const WORKLOAD: [Field; 1] = [f("/spec/selector")];
const STATEFUL_SET: [Field; 4] =
    [f("/spec/selector"), f("/spec/serviceName"), f("/spec/volumeClaimTemplates"), f("/spec/podManagementPolicy")];
const JOB: [Field; 2] = [defaulted("/spec/selector"), f("/spec/template")];
const SERVICE: [Field; 1] = [defaulted("/spec/clusterIP")];
const CLAIM: [Field; 2] = [defaulted("/spec/storageClassName"), f("/spec/accessModes")];

/// The immutable fields of a built-in `group`/`kind` (Secrets and ConfigMaps: [`data_fields`]).
fn fields(group: &str, kind: &str) -> &'static [Field] {
    match (group, kind) {
        ("apps", "Deployment" | "DaemonSet" | "ReplicaSet") => &WORKLOAD,
        ("apps", "StatefulSet") => &STATEFUL_SET,
        ("batch", "Job") => &JOB,
        ("", "Service") => &SERVICE,
        ("", "PersistentVolumeClaim") => &CLAIM,
        _ => &[],
    }
}

/// The data fields of an immutable Secret or ConfigMap.
fn data_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "Secret" => &["data", "stringData", "binaryData"],
        _ => &["data", "binaryData"],
    }
}

/// The key objects are matched by: group, kind, namespace, name.
type Key = (String, String, String, String);

fn key(id: &Identity) -> Option<Key> {
    if id.kind.is_empty() || id.name.is_empty() {
        return None;
    }
    let group = id.api_version.rsplit_once('/').map_or("", |(g, _)| g);
    Some((group.to_string(), id.kind.clone(), id.namespace.clone(), id.name.clone()))
}

/// The immutable fields that `head` changes in the objects of `base` (the documents of the
/// files that differ between two states, with their sources): each a finding at the head's
/// object, whose help names the base's object. Also which head sources the findings point into.
///
/// Objects are matched by API group (not version: `apps/v1beta2` and `apps/v1` serve one
/// stored object), kind, namespace and name; the first object of a key wins on each side.
pub fn changes(
    (base_docs, base_sources): (&[Document], &[Source]),
    (head_docs, head_sources): (&[Document], &[Source]),
) -> (Vec<Diagnostic>, Vec<bool>) {
    let mut diagnostics = Vec::new();
    let mut by_key: BTreeMap<Key, &Document> = BTreeMap::new();
    for doc in base_docs {
        if let Some(k) = key(&doc.identity) {
            by_key.entry(k).or_insert(doc);
        }
    }
    let mut used = vec![false; head_sources.len()];
    for doc in head_docs {
        let Some(k) = key(&doc.identity) else { continue };
        let Some(old) = by_key.get(&k) else { continue };
        let path = &head_sources[doc.source].path;
        let base_source = &base_sources[old.source];
        let base_line = base_source.text.get(..old.range.start).map_or(1, |t| t.matches('\n').count() + 1);
        let base_path = format!("{}:{base_line}", base_source.path.display());
        let mut found = compare(old, doc, &k);
        for (pointer, range, message) in found.drain(..) {
            let help = format!(
                "the base's object is at {base_path}; the API server rejects the update, so the object must be deleted and recreated"
            );
            diagnostics.push(
                Diagnostic::of(Rule::ImmutableFieldChanged, path.clone(), Some(range), message)
                    .with_object(doc.identity.cr_id(), Some(pointer))
                    .with_help(help),
            );
            used[doc.source] = true;
        }
    }
    (diagnostics, used)
}

/// The changed immutable fields of one object: pointer, where in the head, message.
fn compare(old: &Document, new: &Document, key: &Key) -> Vec<(String, std::ops::Range<usize>, String)> {
    let (group, kind, _, name) = key;
    let mut out = Vec::new();
    // A Secret's values are never written into a report.
    let secret = kind == "Secret";
    let mut field = |pointer: String, was: Option<&serde_json::Value>, now: Option<&serde_json::Value>| {
        let hidden = secret && !pointer.starts_with("/immutable");
        let shown = |v: &serde_json::Value| {
            if hidden { "another value (a Secret's values are not shown)".to_string() } else { shown(v) }
        };
        let (range, message) = match (was, now) {
            (Some(a), Some(b)) if a == b => return,
            (None, None) => return,
            (Some(a), Some(_)) => (
                node_range(&new.node, &pointer, FieldDiffKind::Extra),
                format!("`{}` of {kind} {name} is immutable: the base has {}", dotted(&pointer), shown(a)),
            ),
            (Some(a), None) => (
                node_range(&new.node, &pointer, FieldDiffKind::Missing),
                format!(
                    "`{}` of {kind} {name} is immutable and was removed: the base has {}",
                    dotted(&pointer),
                    shown(a)
                ),
            ),
            (None, Some(_)) => (
                node_range(&new.node, &pointer, FieldDiffKind::Extra),
                format!("`{}` of {kind} {name} is immutable: the base does not set it", dotted(&pointer)),
            ),
        };
        out.push((pointer, range, message));
    };
    for fld in fields(group, kind) {
        let (was, now) = (old.object.pointer(fld.pointer), new.object.pointer(fld.pointer));
        if was.is_none() && fld.defaulted {
            continue;
        }
        field(fld.pointer.to_string(), was, now);
    }
    if group.is_empty()
        && matches!(kind.as_str(), "Secret" | "ConfigMap")
        && old.object.get("immutable") == Some(&true.into())
    {
        field("/immutable".to_string(), old.object.get("immutable"), new.object.get("immutable"));
        for data in data_fields(kind) {
            let (was, now) = (old.object.get(*data), new.object.get(*data));
            let (Some(serde_json::Value::Object(a)), Some(serde_json::Value::Object(b))) = (was, now) else {
                // A whole map added or removed (or not a map: the schema pass says so).
                field(format!("/{data}"), was, now);
                continue;
            };
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                let pointer = format!("/{data}/{}", k.replace('~', "~0").replace('/', "~1"));
                field(pointer, a.get(k), b.get(k));
            }
        }
    }
    out
}

/// `/spec/selector` → `spec.selector`.
fn dotted(pointer: &str) -> String {
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

/// A base value for a message: compact JSON, cut at 120 characters.
fn shown(value: &serde_json::Value) -> String {
    const MAX: usize = 120;
    let text = serde_json::to_string(value).unwrap_or_default();
    if text.chars().count() <= MAX {
        format!("`{text}`")
    } else {
        format!("`{}…`", text.chars().take(MAX).collect::<String>())
    }
}
