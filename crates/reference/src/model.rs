//! The reference model: kube-compare's `metadata.yaml` (v1 and v2) loaded, validated and
//! resolved (§2 of the kube-compare spec).
//!
//! [`load_reference`](crate::load_reference) reads the metadata file, decodes it like kube-compare's
//! `sigs.k8s.io/yaml.UnmarshalStrict` (Go type names and all), processes `fieldsToOmit`,
//! validates v2 components, finds every template and function file inside the reference
//! directory (paths are Go `fs.Glob` patterns) and loads their text. Templates are not parsed
//! here: [`TemplateEntry::source`] is the seam for the template engine, which adds its own
//! load-time errors (§2.9: syntax, empty-map render, kind, perField checks).
//!
//! Errors are [`LoadError`](crate::LoadError)s whose `Display` is kube-compare's message, so `driftlint compare`
//! prints `error: {err}` identically, and whose parts carry metadata line and column for the
//! linter.

use std::ops::Range;
use std::path::PathBuf;

use crate::root;
use crate::{FieldsToOmit, OmitPath, Problem};

/// The metadata schema version (§2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    V1,
    V2,
}

/// A loaded reference.
#[derive(Debug, Clone)]
pub struct Reference {
    /// The metadata file.
    pub path: PathBuf,
    /// Its text (spans index into it).
    pub text: String,
    /// The reference root: the metadata file's directory, on disk or in git.
    pub root: root::Root,
    pub version: Version,
    /// `apiVersion` exactly as written, if present (the metadata hash keeps it, §7.5).
    pub api_version: Option<String>,
    pub parts: Vec<Part>,
    /// Every template entry, in kube-compare's order (per part, per component; v1 required
    /// then optional). This order drives candidate order, the hash and the output.
    pub templates: Vec<TemplateEntry>,
    /// `templateFunctionFiles`, in order.
    pub function_files: Vec<FunctionFile>,
    pub fields_to_omit: FieldsToOmit,
    /// Things kube-compare logs as warnings (a user `cluster-compare-built-in` key).
    pub warnings: Vec<Problem>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub name: String,
    /// v2 only (empty in v1).
    pub description: String,
    pub components: Vec<Component>,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    pub name: String,
    /// v2 only (empty in v1).
    pub description: String,
    pub kind: ComponentKind,
    pub span: Range<usize>,
}

/// What decides whether a component's templates are reported missing (§2.4, §2.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComponentKind {
    /// `type` is kept as written: only exactly `Required` / `Optional` mean anything.
    V1 { type_: String, required: Vec<usize>, optional: Vec<usize> },
    /// Exactly one group key (validated at load); indices into [`Reference::templates`].
    V2 { group: Group, templates: Vec<usize> },
}

impl Component {
    /// Indices of this component's templates in [`Reference::templates`], in order.
    pub fn template_indices(&self) -> Vec<usize> {
        match &self.kind {
            ComponentKind::V1 { required, optional, .. } => required.iter().chain(optional).copied().collect(),
            ComponentKind::V2 { templates, .. } => templates.clone(),
        }
    }
}

/// A v2 component group keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    OneOf,
    NoneOf,
    AllOf,
    AnyOf,
    AnyOneOf,
    AllOrNoneOf,
}

impl Group {
    /// kube-compare's field order, used in the `too many keys` message (§2.5).
    pub const ALL: [Group; 6] =
        [Group::OneOf, Group::NoneOf, Group::AllOf, Group::AnyOf, Group::AnyOneOf, Group::AllOrNoneOf];

    /// The metadata key.
    pub fn key(self) -> &'static str {
        match self {
            Group::OneOf => "oneOf",
            Group::NoneOf => "noneOf",
            Group::AllOf => "allOf",
            Group::AnyOf => "anyOf",
            Group::AnyOneOf => "anyOneOf",
            Group::AllOrNoneOf => "allOrNoneOf",
        }
    }
}

/// Per-template `config` (§2.7).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TemplateConfig {
    /// `ignore-unspecified-fields`.
    pub ignore_unspecified_fields: bool,
    /// `fieldsToOmitRefs`.
    pub fields_to_omit_refs: Vec<String>,
    /// v2 `perField`, as written (several entries for one path: the last wins at use).
    pub per_field: Vec<PerField>,
}

/// One v2 `perField` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerField {
    pub path_to_key: String,
    /// `regex` or `capturegroups` (case-sensitive; checked by the engine, §2.7).
    pub inline_diff_func: String,
    pub span: Range<usize>,
}

/// One template entry of the metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateEntry {
    /// The identifier as written (a glob pattern relative to the root).
    pub path: String,
    /// `description` as written.
    pub description: String,
    /// v2: template, else component, else part description; v1: the template's own (§2.5).
    pub effective_description: String,
    pub config: TemplateConfig,
    /// The resolved `fieldsToOmit` paths for this template (§2.6).
    pub omit_paths: Vec<OmitPath>,
    /// The entry in `metadata.yaml`.
    pub span: Range<usize>,
    /// Index of its part and of its component within the part.
    pub part: usize,
    pub component: usize,
    /// The files the pattern matched, with their text: what the template engine parses.
    pub source: TemplateSource,
}

impl TemplateEntry {
    /// Go's `path.Base(path)`: the name of the template set (§3.1).
    pub fn base_name(&self) -> &str {
        go_base(&self.path)
    }
}

/// Files matched by a template or function-file pattern, in Go's glob order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TemplateSource {
    pub files: Vec<SourceFile>,
}

/// One file of a reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The slash path inside the reference (`fs.Glob`'s match).
    pub name: String,
    /// The path shown for it: on disk, the root joined with the name; in git, the location
    /// it was read from (`git:v1.0:reference/t.yaml`).
    pub path: PathBuf,
    pub text: String,
}

/// One `templateFunctionFiles` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionFile {
    pub path: String,
    pub span: Range<usize>,
    pub source: TemplateSource,
}

/// Go's `path.Base`.
pub(crate) fn go_base(p: &str) -> &str {
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return if p.is_empty() { "." } else { "/" };
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}
