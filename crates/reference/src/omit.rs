//! `fieldsToOmit` (§2.6): the built-in list, `defaultOmitRef`, `items`, v2 `include` with
//! cycle detection, and the per-template resolution of `fieldsToOmitRefs`.
//!
//! Go iterates `items` in random map order; we use file order (the built-in key last unless
//! the user wrote it), which makes joined errors deterministic and, for the corpus case with
//! three cycles, equal to kube-compare's recorded output.

use std::collections::HashMap;
use std::ops::Range;

use indexmap::IndexMap;

use super::error::Problem;
use super::path::parse_path_to_key;

/// The key of the built-in list.
pub const BUILT_IN_KEY: &str = "cluster-compare-built-in";

/// The built-in paths, in kube-compare's order (§2.6).
pub const BUILT_IN_PATHS: [&str; 11] = [
    "metadata.resourceVersion",
    "metadata.uid",
    "metadata.creationTimestamp",
    "metadata.generation",
    "metadata.managedFields",
    "metadata.selfLink",
    "metadata.generateName",
    "metadata.finalizers",
    "\"kubectl.kubernetes.io/last-applied-configuration\"",
    "metadata.annotations.\"kubectl.kubernetes.io/last-applied-configuration\"",
    "status",
];

/// Upper bound on include expansions: Go's recursion is exponential on dense include graphs;
/// an untrusted reference must not be able to stall the loader.
const INCLUDE_FUEL: usize = 100_000;

/// One `items` entry as written. In v1 only `path_to_key`/`is_prefix` exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OmitEntry {
    /// `pathToKey`; `None` when neither `pathToKey` nor `isPrefix` was written (v2's nil
    /// `*ManifestPathV1`, which the hash serialisation leaves out).
    pub path_to_key: Option<String>,
    pub is_prefix: bool,
    /// v2 `include` (empty = none).
    pub include: String,
    /// The entry in `metadata.yaml` (`0..0` for built-ins).
    pub span: Range<usize>,
}

impl OmitEntry {
    fn built_in(path: &str) -> Self {
        OmitEntry { path_to_key: Some(path.to_owned()), is_prefix: false, include: String::new(), span: 0..0 }
    }
}

/// A parsed path to omit from both the CR and the rendered template (§5.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OmitPath {
    /// The text as written.
    pub path_to_key: String,
    /// The last segment is a key prefix.
    pub is_prefix: bool,
    /// The segments after CSV parsing.
    pub segments: Vec<String>,
}

/// `fieldsToOmit` after kube-compare's processing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldsToOmit {
    /// `defaultOmitRef`, defaulted to [`BUILT_IN_KEY`] when empty.
    pub default_omit_ref: String,
    /// `items` as written, with the built-in key set (replacing a user key of that name).
    pub items: IndexMap<String, Vec<OmitEntry>>,
    /// Each key's paths with includes expanded (only keys that processed without error).
    pub resolved: IndexMap<String, Vec<OmitPath>>,
}

/// `fieldsToOmit` as decoded, before processing.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawFieldsToOmit {
    pub default_omit_ref: String,
    pub default_span: Option<Range<usize>>,
    pub items: Vec<(String, Range<usize>, Vec<OmitEntry>)>,
}

/// Processing result: the model, the warning about a replaced built-in key, or errors.
pub(crate) struct Processed {
    pub fields: FieldsToOmit,
    pub warnings: Vec<Problem>,
}

fn with_built_in(raw: RawFieldsToOmit) -> Processed {
    let mut items: IndexMap<String, Vec<OmitEntry>> = IndexMap::new();
    let mut warnings = Vec::new();
    for (key, span, entries) in raw.items {
        if key == BUILT_IN_KEY {
            warnings.push(Problem::new(
                format!(
                    "fieldsToOmit.Map contains the key \"{BUILT_IN_KEY}\", this will be overwritten with default values"
                ),
                Some(span),
            ));
        }
        // A repeated key (only possible via case-different spellings) replaces the earlier one.
        items.insert(key, entries);
    }
    items.insert(BUILT_IN_KEY.to_owned(), BUILT_IN_PATHS.iter().map(|p| OmitEntry::built_in(p)).collect());
    let default_omit_ref = if raw.default_omit_ref.is_empty() { BUILT_IN_KEY.to_owned() } else { raw.default_omit_ref };
    Processed { fields: FieldsToOmit { default_omit_ref, items, resolved: IndexMap::new() }, warnings }
}

fn parse(entry: &OmitEntry, path: &str) -> Result<OmitPath, Problem> {
    parse_path_to_key(path)
        .map(|segments| OmitPath { path_to_key: path.to_owned(), is_prefix: entry.is_prefix, segments })
        .map_err(|e| Problem::new(format!("failed to parse path: {e}"), Some(entry.span.clone())))
}

/// v1 processing: the default must exist (checked first, alone), then every path parses.
pub(crate) fn process_v1(raw: RawFieldsToOmit) -> Result<Processed, Vec<Problem>> {
    let default_span = raw.default_span.clone();
    let mut processed = with_built_in(raw);
    let fields = &mut processed.fields;
    if !fields.items.contains_key(&fields.default_omit_ref) {
        return Err(vec![Problem::new(
            format!("fieldsToOmit's defaultOmitRef \"{}\" not found in items", fields.default_omit_ref),
            default_span,
        )]);
    }
    let mut errors = Vec::new();
    for (key, entries) in &fields.items {
        let mut paths = Vec::new();
        for entry in entries {
            match parse(entry, entry.path_to_key.as_deref().unwrap_or("")) {
                Ok(p) => paths.push(p),
                Err(e) => errors.push(e),
            }
        }
        fields.resolved.insert(key.clone(), paths);
    }
    if errors.is_empty() { Ok(processed) } else { Err(errors) }
}

/// v2 processing: entries with `pathToKey` and/or `include`, expanded recursively.
/// The default is deliberately not checked (§2.6, observed).
pub(crate) fn process_v2(raw: RawFieldsToOmit) -> Result<Processed, Vec<Problem>> {
    let mut processed = with_built_in(raw);
    let mut expander = Expander { items: &processed.fields.items, cache: HashMap::new(), fuel: INCLUDE_FUEL };
    let mut errors = Vec::new();
    let mut resolved = IndexMap::new();
    for key in processed.fields.items.keys() {
        let (paths, errs) = expander.key(key, &[]);
        if errs.is_empty() {
            resolved.insert(key.clone(), paths);
        } else {
            errors.extend(errs);
        }
    }
    processed.fields.resolved = resolved;
    if errors.is_empty() { Ok(processed) } else { Err(errors) }
}

/// Go's `processFieldsToOmitEntries` / `FieldsToOmitV2Entry.process`, including the quirk
/// that an entry caches its result (error included) only once it produced some path.
struct Expander<'a> {
    items: &'a IndexMap<String, Vec<OmitEntry>>,
    cache: HashMap<(usize, usize), (Vec<OmitPath>, Vec<Problem>)>,
    fuel: usize,
}

impl Expander<'_> {
    fn key(&mut self, key: &str, previous: &[String]) -> (Vec<OmitPath>, Vec<Problem>) {
        let mut current = previous.to_vec();
        current.push(key.to_owned());
        let mut paths = Vec::new();
        let mut errors = Vec::new();
        // An include of a missing key is silently empty.
        let Some((key_index, _, entries)) = self.items.get_full(key) else {
            return (paths, errors);
        };
        for (i, entry) in entries.iter().enumerate() {
            let (p, e) = self.entry(key_index, i, entry, &current);
            if e.is_empty() {
                paths.extend(p);
            } else {
                errors.extend(e);
            }
        }
        (paths, errors)
    }

    fn entry(
        &mut self,
        key_index: usize,
        index: usize,
        entry: &OmitEntry,
        previous: &[String],
    ) -> (Vec<OmitPath>, Vec<Problem>) {
        if let Some(cached) = self.cache.get(&(key_index, index)) {
            return cached.clone();
        }
        let span = Some(entry.span.clone());
        if self.fuel == 0 {
            return (Vec::new(), vec![Problem::new("fieldsToOmit includes expand too far", span)]);
        }
        self.fuel -= 1;
        let path = entry.path_to_key.as_deref().unwrap_or("");
        if entry.include.is_empty() && path.is_empty() {
            return (Vec::new(), vec![Problem::new("must have either include or pathToKey", span)]);
        }
        let mut paths = Vec::new();
        let mut errors = Vec::new();
        if !path.is_empty() {
            match parse(entry, path) {
                Ok(p) => paths.push(p),
                Err(e) => errors.push(e),
            }
        }
        if !entry.include.is_empty() {
            if previous.contains(&entry.include) {
                let mut chain = previous.to_vec();
                chain.push(entry.include.clone());
                // Returned before caching, like Go.
                return (paths, vec![Problem::new(format!("circular import found {}", chain.join(" -> ")), span)]);
            }
            let (p, e) = self.key(&entry.include, previous);
            if e.is_empty() {
                paths.extend(p);
            } else {
                errors.extend(e);
            }
        }
        if !paths.is_empty() {
            self.cache.insert((key_index, index), (paths.clone(), errors.clone()));
        }
        (paths, errors)
    }
}

impl FieldsToOmit {
    /// The paths for a template's `fieldsToOmitRefs` (§2.6): the concatenation of the named
    /// keys, or the default list when there are none (empty when the v2 default is unknown).
    /// Unknown refs give kube-compare's (sic) message, one per ref.
    pub fn paths_for(&self, refs: &[String]) -> Result<Vec<OmitPath>, Vec<String>> {
        if refs.is_empty() {
            return Ok(self.resolved.get(&self.default_omit_ref).cloned().unwrap_or_default());
        }
        let mut paths = Vec::new();
        let mut errors = Vec::new();
        for r in refs {
            match self.resolved.get(r) {
                Some(p) => paths.extend(p.iter().cloned()),
                None => errors.push(format!("fieldsToOmitRefs entry \"{r}\" not found it fieldsToOmit Items")),
            }
        }
        if errors.is_empty() { Ok(paths) } else { Err(errors) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: Option<&str>, include: &str) -> OmitEntry {
        OmitEntry { path_to_key: path.map(str::to_owned), is_prefix: false, include: include.to_owned(), span: 0..0 }
    }

    fn raw(default: &str, items: Vec<(&str, Vec<OmitEntry>)>) -> RawFieldsToOmit {
        RawFieldsToOmit {
            default_omit_ref: default.to_owned(),
            default_span: None,
            items: items.into_iter().map(|(k, e)| (k.to_owned(), 0..0, e)).collect(),
        }
    }

    fn messages(r: Result<Processed, Vec<Problem>>) -> Vec<String> {
        r.err().unwrap().into_iter().map(|p| p.message).collect()
    }

    #[test]
    fn cycles_report_per_key() {
        let r = raw(
            "deployment",
            vec![
                ("deployment", vec![entry(None, "deployment")]),
                ("includeMe", vec![entry(None, "includeWithDepth")]),
                ("includeWithDepth", vec![entry(None, "includeMe")]),
            ],
        );
        assert_eq!(
            messages(process_v2(r)),
            [
                "circular import found deployment -> deployment",
                "circular import found includeMe -> includeWithDepth -> includeMe",
                "circular import found includeWithDepth -> includeMe -> includeWithDepth",
            ]
        );
    }

    #[test]
    fn include_and_defaults() {
        let r = raw("a", vec![("a", vec![entry(Some("x.y"), "b")]), ("b", vec![entry(Some("z"), "missing")])]);
        let p = process_v2(r).ok().unwrap();
        let a: Vec<_> = p.fields.paths_for(&[]).unwrap().into_iter().map(|p| p.segments).collect();
        assert_eq!(a, [vec!["x", "y"], vec!["z"]]);
        assert_eq!(p.fields.paths_for(&[BUILT_IN_KEY.to_owned()]).unwrap().len(), 11);
        assert_eq!(
            p.fields.paths_for(&["nope".to_owned()]).unwrap_err(),
            ["fieldsToOmitRefs entry \"nope\" not found it fieldsToOmit Items"]
        );
        // v2 does not check the default; v1 does.
        let p = process_v2(raw("nope", vec![])).ok().unwrap();
        assert!(p.fields.paths_for(&[]).unwrap().is_empty());
        assert_eq!(
            messages(process_v1(raw("nope", vec![]))),
            ["fieldsToOmit's defaultOmitRef \"nope\" not found in items"]
        );
        assert_eq!(
            messages(process_v2(raw("", vec![("a", vec![entry(None, "")])]))),
            ["must have either include or pathToKey"]
        );
        assert_eq!(
            messages(process_v1(raw("", vec![("a", vec![entry(Some(""), "")])]))),
            ["failed to parse path: EOF"]
        );
    }

    #[test]
    fn dense_include_graph_terminates() {
        let keys: Vec<String> = (0..12).map(|i| format!("k{i}")).collect();
        let items = keys.iter().map(|k| (k.as_str(), keys.iter().map(|o| entry(None, o)).collect())).collect();
        assert!(process_v2(raw("", items)).is_err());
    }
}
