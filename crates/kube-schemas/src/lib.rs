//! The JSON schemas of Kubernetes' built-in kinds for the Kubernetes versions driftlint
//! bundles (the newest eight minor releases), for offline validation.
//!
//! The data (`data/schemas.zlib`) is written by `scripts/gen-kube-schemas.py` from the strict
//! JSON schemas of the PyPI package kubernetes-validate; `data/manifest.json` records the
//! package version and the Kubernetes versions. Definitions are stored once across versions
//! (most of them do not change between releases) and the whole is deflated: about 90 KB in the
//! binary for eight versions.
//!
//! Nothing is decoded before it is asked for: the first lookup inflates the data and reads its
//! index; a definition is parsed the first time a kind that uses it is looked up. This crate
//! knows JSON schemas, not driftlint's schema model: the caller compiles what [`schema`]
//! returns. It also knows which API versions Kubernetes removed ([`removal`]), from the bundled
//! versions and, for removals before the oldest of them, from [`removed`]'s hand-written table.

mod removed;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

pub use removed::{Removal, removal};

/// The compressed bundle (see the module header).
const DATA: &[u8] = include_bytes!("../data/schemas.zlib");
/// Where the bundle came from: `scripts/gen-kube-schemas.py`'s record (JSON).
pub const MANIFEST: &str = include_str!("../data/manifest.json");

/// A group, version and kind (`group` is `""` for the core group).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl Gvk {
    /// The `apiVersion` of this kind (`v1` for the core group).
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.clone() } else { format!("{}/{}", self.group, self.version) }
    }
}

/// One bundled Kubernetes version: its kinds and which definition each name is.
struct Release {
    /// Kind → its definition's name.
    kinds: HashMap<Gvk, String>,
    /// Definition name → its line in the bundle.
    definitions: HashMap<String, usize>,
}

/// The bundled versions' names, oldest first, as the manifest lists them (the bundle's index
/// holds its versions in that order): known without inflating the bundle.
fn names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        #[derive(serde::Deserialize)]
        struct Manifest {
            kubernetes: Vec<String>,
        }
        serde_json::from_str::<Manifest>(MANIFEST).expect("the bundle's manifest lists its versions").kubernetes
    })
}

struct Bundle {
    /// Each version's index entry, kept as its JSON text and read into a [`Release`] on its
    /// first use: a run uses one version (and the others' kinds only for a kind that its
    /// version lacks). Kept as text, the index is one pass over its 400 KB; read whole into
    /// JSON values, it cost about twice that (a fifth of the instructions of a check of one
    /// file).
    raw: Vec<&'static serde_json::value::RawValue>,
    releases: Vec<OnceLock<Release>>,
    /// Every bundled version's API groups.
    groups: OnceLock<HashSet<String>>,
    /// The definitions' texts (one JSON document each), parsed on first use.
    lines: Vec<&'static str>,
    parsed: Mutex<HashMap<usize, Arc<Value>>>,
}

fn bundle() -> &'static Bundle {
    static BUNDLE: OnceLock<Bundle> = OnceLock::new();
    BUNDLE.get_or_init(|| {
        // The data is ours, built in: a failure here is a build defect, caught by the tests.
        let bytes = miniz_oxide::inflate::decompress_to_vec_zlib(DATA).expect("bundled Kubernetes schemas inflate");
        let text: &'static str = String::from_utf8(bytes).expect("bundled Kubernetes schemas are UTF-8").leak();
        let mut lines = text.lines();
        let index: Index<'static> =
            serde_json::from_str(lines.next().unwrap_or_default()).expect("bundle index is JSON");
        let raw = index.versions;
        let releases = raw.iter().map(|_| OnceLock::new()).collect();
        Bundle { raw, releases, groups: OnceLock::new(), lines: lines.collect(), parsed: Mutex::new(HashMap::new()) }
    })
}

/// The bundled version at `at` (an index of [`names`]), read on first use.
fn release_at(at: usize) -> &'static Release {
    let b = bundle();
    b.releases[at].get_or_init(|| release(b.raw[at]))
}

/// The API groups of every bundled version's kinds (`""` for the core group).
pub fn groups() -> &'static HashSet<String> {
    let b = bundle();
    b.groups.get_or_init(|| {
        b.raw
            .iter()
            .filter_map(|v| serde_json::from_str::<KindGroups>(v.get()).ok())
            .flat_map(|k| k.kinds)
            .map(|(group, ..)| group)
            .collect()
    })
}

fn release(v: &serde_json::value::RawValue) -> Release {
    let entry: Entry = serde_json::from_str(v.get()).expect("a bundled version's index entry");
    let kinds = entry
        .kinds
        .into_iter()
        .map(|(group, version, kind, definition)| (Gvk { group, version, kind }, definition))
        .collect();
    Release { kinds, definitions: entry.definitions }
}

/// The bundle's index (its first line): every version's entry.
#[derive(serde::Deserialize)]
struct Index<'a> {
    #[serde(borrow)]
    versions: Vec<&'a serde_json::value::RawValue>,
}

/// A version's entry: its kinds (`[group, version, kind, definition]`) and its definitions' lines.
#[derive(serde::Deserialize)]
struct Entry {
    kinds: Vec<(String, String, String, String)>,
    definitions: HashMap<String, usize>,
}

/// The groups of a version's kinds.
#[derive(serde::Deserialize)]
struct KindGroups {
    kinds: Vec<(String, serde::de::IgnoredAny, serde::de::IgnoredAny, serde::de::IgnoredAny)>,
}

/// The bundled Kubernetes versions (`1.30`, …), oldest first.
pub fn versions() -> Vec<&'static str> {
    names().iter().map(String::as_str).collect()
}

/// The newest bundled Kubernetes version, the default.
pub fn default_version() -> &'static str {
    names().last().map_or("", String::as_str)
}

/// `text` (`1.31`, `v1.31`, `1.31.4`) as a bundled version's name, or `None` when it is not
/// bundled.
pub fn parse_version(text: &str) -> Option<&'static str> {
    let text = text.trim().trim_start_matches('v');
    let mut parts = text.split('.');
    let (major, minor) = (parts.next()?, parts.next()?);
    if parts.clone().count() > 1 || parts.any(|p| p.parse::<u32>().is_err()) {
        return None;
    }
    let (major, minor) = (major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?);
    let name = format!("{major}.{minor}");
    names().iter().find(|n| **n == name).map(String::as_str)
}

fn find(kube: &str) -> Option<&'static Release> {
    names().iter().position(|n| n == kube).map(release_at)
}

/// The kinds of Kubernetes `kube` (a name from [`versions`]), sorted.
pub fn kinds(kube: &str) -> Vec<&'static Gvk> {
    let mut out: Vec<&Gvk> = find(kube).map(|r| r.kinds.keys().collect()).unwrap_or_default();
    out.sort();
    out
}

/// Whether Kubernetes `kube` has the kind.
pub fn has_kind(kube: &str, group: &str, version: &str, kind: &str) -> bool {
    find(kube).is_some_and(|r| r.kinds.contains_key(&key(group, version, kind)))
}

fn key(group: &str, version: &str, kind: &str) -> Gvk {
    Gvk { group: group.to_string(), version: version.to_string(), kind: kind.to_string() }
}

/// The schema of one kind: its definition's name and every definition it reaches (a `$ref` is
/// the bare name of another definition of the map).
#[derive(Clone, Debug)]
pub struct KindSchema {
    pub root: String,
    pub definitions: HashMap<String, Arc<Value>>,
}

/// The schema of `group/version kind` in Kubernetes `kube`, or `None` when that version has no
/// such kind. Only the definitions the kind reaches are parsed (once per process).
pub fn schema(kube: &str, group: &str, version: &str, kind: &str) -> Option<KindSchema> {
    let release = find(kube)?;
    let root = release.kinds.get(&key(group, version, kind))?.clone();
    let mut definitions = HashMap::new();
    let mut pending = vec![root.clone()];
    while let Some(name) = pending.pop() {
        if definitions.contains_key(&name) {
            continue;
        }
        let Some(&line) = release.definitions.get(&name) else { continue };
        let body = definition(line);
        collect_refs(&body, &mut pending);
        definitions.insert(name, body);
    }
    Some(KindSchema { root, definitions })
}

fn definition(line: usize) -> Arc<Value> {
    let b = bundle();
    let mut parsed = b.parsed.lock().unwrap_or_else(|e| e.into_inner());
    parsed
        .entry(line)
        .or_insert_with(|| {
            Arc::new(b.lines.get(line).and_then(|t| serde_json::from_str(t).ok()).unwrap_or(Value::Null))
        })
        .clone()
}

fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("$ref", Value::String(name)) => out.push(name.clone()),
                    _ => collect_refs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect_refs(i, out)),
        _ => {}
    }
}

/// Where a kind missing from a bundled version went, or came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Whereabouts {
    /// Served by older bundled versions up to `last`, removed in `removed_in`.
    Removed { last: &'static str, removed_in: &'static str },
    /// Not yet served: first in bundled version `added_in`.
    Added { added_in: &'static str },
}

/// For a kind Kubernetes `kube` lacks: the bundled versions that have it.
pub fn whereabouts(kube: &str, group: &str, version: &str, kind: &str) -> Option<Whereabouts> {
    let names = names();
    let at = names.iter().position(|n| n == kube)?;
    let k = key(group, version, kind);
    let has = |i: usize| release_at(i).kinds.contains_key(&k);
    if has(at) {
        return None;
    }
    if let Some(last) = (0..at).rev().find(|i| has(*i)) {
        return Some(Whereabouts::Removed { last: &names[last], removed_in: &names[last + 1] });
    }
    (at..names.len()).find(|i| has(*i)).map(|i| Whereabouts::Added { added_in: &names[i] })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_every_versions_kinds_groups() {
        let from_kinds: HashSet<String> = versions().into_iter().flat_map(kinds).map(|k| k.group.clone()).collect();
        assert_eq!(groups(), &from_kinds);
        assert!(groups().contains("") && groups().contains("apps") && !groups().contains("extensions"));
    }

    #[test]
    fn eight_versions_newest_is_default_and_manifest_agrees() {
        let vs = versions();
        assert_eq!(vs.len(), 8, "{vs:?}");
        assert_eq!(vs[0], "1.30");
        assert_eq!(default_version(), *vs.last().unwrap());
        // The versions are the manifest's: the bundle's index holds the same, in that order.
        let manifest: Value = serde_json::from_str(MANIFEST).unwrap();
        let listed: Vec<&str> = manifest["kubernetes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(listed, vs);
        let indexed: Vec<String> = bundle()
            .raw
            .iter()
            .map(|v| serde_json::from_str::<Value>(v.get()).unwrap()["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(indexed, vs);
        assert_eq!(manifest["source"]["package"], "kubernetes-validate");
    }

    #[test]
    fn versions_parse_loosely_but_only_bundled_ones() {
        assert_eq!(parse_version("1.31"), Some("1.31"));
        assert_eq!(parse_version("v1.31.4"), Some("1.31"));
        assert_eq!(parse_version("1.29"), None);
        assert_eq!(parse_version("1"), None);
        assert_eq!(parse_version("1.31.x"), None);
        assert_eq!(parse_version("1.31.1.1"), None);
    }

    #[test]
    fn a_deployment_reaches_its_definitions_and_only_those() {
        let s = schema("1.30", "apps", "v1", "Deployment").unwrap();
        assert_eq!(s.root, "io.k8s.api.apps.v1.Deployment");
        let root = &s.definitions[&s.root];
        assert_eq!(root["properties"]["spec"]["$ref"], "io.k8s.api.apps.v1.DeploymentSpec");
        assert!(s.definitions.contains_key("io.k8s.api.core.v1.Container"));
        assert!(!s.definitions.contains_key("io.k8s.api.core.v1.Service"));
        // Strict: unknown fields are closed off.
        assert_eq!(s.definitions["io.k8s.api.core.v1.Container"]["additionalProperties"], false);
        assert!(schema("1.30", "apps", "v1", "Deploymnt").is_none());
        assert!(schema("1.29", "apps", "v1", "Deployment").is_none());
    }

    #[test]
    fn kinds_list_the_core_ones() {
        let ks = kinds(default_version());
        assert!(ks.iter().any(|k| k.kind == "Service" && k.group.is_empty() && k.api_version() == "v1"));
        assert!(ks.iter().any(|k| k.kind == "Ingress" && k.api_version() == "networking.k8s.io/v1"));
        assert!(has_kind("1.30", "batch", "v1", "CronJob"));
    }

    #[test]
    fn flowcontrol_v1beta3_is_removed_within_the_bundle() {
        // v1beta3 FlowSchema was served through 1.31 and removed in 1.32.
        assert!(has_kind("1.31", "flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema"));
        assert_eq!(
            whereabouts("1.37", "flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema"),
            Some(Whereabouts::Removed { last: "1.31", removed_in: "1.32" })
        );
        assert_eq!(whereabouts("1.37", "apps", "v1", "Deployment"), None);
    }
}
