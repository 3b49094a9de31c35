//! Named files as the reporting scope: `driftlint check FILE…` in a repository with a
//! configuration checks the repository as a whole (its configuration's paths) and shows what
//! the named files are responsible for — pre-commit's meaning of the file names it passes.
//!
//! A required object is "missing" only when the repository as a whole lacks it, and an object
//! that moved to another file is still there: cross-file findings need every manifest in view,
//! so the context is never narrowed to the named files. What is shown:
//!
//! * every finding located in a named file (or below a named directory);
//! * `missing-resource` and `cardinality-violation` (located in the reference) when an object
//!   of a named file matched a template of their component, or when no component can be told;
//! * `io-error` findings, and findings in files that are no manifest input (the reference, the
//!   configuration, the lock, policies): those are about the check itself;
//!
//! * findings a named file causes in other files: all of them for the configuration or the
//!   lock; the policy findings for a policy or its data; the drift findings for a reference
//!   file; the schema findings for a trusted schema file, and for a named CRD or XRD those of
//!   the objects of the kinds it defines — a commit that tightens a definition shows what it
//!   breaks, wherever that is;
//!
//! and hidden (counted, never silently): findings in other manifest files. A named file that
//! holds Kubernetes objects but is not checked (in a hidden directory, excluded, ignored, not
//! included) is an error saying why ([`unchecked`]): naming a file never passes it unchecked.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use crate::check::Report;
use crate::config::Settings;
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::input::SourcePath;

/// Rules whose findings a reference file decides.
const DRIFT_RULES: [Rule; 8] = [
    Rule::ValueDrift,
    Rule::MissingField,
    Rule::UnexpectedField,
    Rule::MissingResource,
    Rule::UnmatchedResource,
    Rule::CardinalityViolation,
    Rule::AmbiguousCorrelation,
    Rule::TemplateRenderError,
];

/// Rules whose findings a schema decides.
const SCHEMA_RULES: [Rule; 10] = [
    Rule::SchemaUnknownField,
    Rule::SchemaTypeMismatch,
    Rule::SchemaRequiredMissing,
    Rule::SchemaInvalidValue,
    Rule::SchemaNotFound,
    Rule::SchemaCelViolation,
    Rule::CompositionPatchPath,
    Rule::CompositionPatchType,
    Rule::CompositionRequiredField,
    Rule::InvalidSchema,
];

/// Rules whose findings a policy or its data decides.
const POLICY_RULES: [Rule; 5] =
    [Rule::PolicyDeny, Rule::PolicyWarn, Rule::PolicyError, Rule::PolicyConflict, Rule::PolicyDecisionChanged];

/// What the named files decide beyond their own lines.
#[derive(Debug, Default)]
pub struct Causes {
    /// The configuration or the lock is named: it decides every finding.
    pub everything: bool,
    /// Rules whose findings are shown wherever they are.
    pub rules: HashSet<Rule>,
    /// `(group, kind)` defined by a named CRD or XRD: the schema findings of their objects.
    pub kinds: HashSet<(String, String)>,
}

impl Causes {
    /// What `named` decide in the check of `settings` that gave `report`.
    pub fn of(settings: &Settings, report: &Report, named: &[PathBuf]) -> Causes {
        let mut causes = Causes::default();
        let inputs: HashSet<PathBuf> = report.inputs.iter().map(|p| lexical(p)).collect();
        for path in named {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if name == crate::config::FILE_NAME || name == "driftlint.lock" {
                causes.everything = true;
            }
            match own_input(settings, path) {
                Some(OwnInput::Reference) => causes.rules.extend(DRIFT_RULES),
                Some(OwnInput::Policy) => causes.rules.extend(POLICY_RULES),
                Some(OwnInput::Schema) => causes.rules.extend(SCHEMA_RULES),
                None if inputs.contains(&lexical(path)) => causes.kinds.extend(defined_kinds(path)),
                None => {}
            }
        }
        causes
    }
}

/// A file the check reads for itself rather than as a manifest.
enum OwnInput {
    Reference,
    Policy,
    Schema,
}

/// Whether `path` is (below) one of the check's own inputs, and which.
fn own_input(settings: &Settings, path: &Path) -> Option<OwnInput> {
    let abs = |p: &Path| std::path::absolute(p).map(|a| crate::config::normalize(&a)).ok();
    let target = abs(path)?;
    let below =
        |root: &str| !driftlint_git::is_location(root) && abs(Path::new(root)).is_some_and(|r| target.starts_with(r));
    if let Some(driftlint_reference::Location::Path(r)) = &settings.reference
        && let Some(dir) = crate::check::metadata_path(r).parent()
        && below(&dir.to_string_lossy())
    {
        return Some(OwnInput::Reference);
    }
    let policy = &settings.policy;
    if policy.policies.iter().chain(&policy.data).chain(&policy.cases).any(|p| below(p)) {
        return Some(OwnInput::Policy);
    }
    let locations = settings.schema_locations.iter().map(|l| super::base::location_root(l));
    if settings.schemas.iter().cloned().chain(locations).any(|p| below(&p)) {
        return Some(OwnInput::Schema);
    }
    None
}

/// The `(group, kind)`s the CRDs and XRDs of the file at `path` define (their claims' too).
fn defined_kinds(path: &Path) -> Vec<(String, String)> {
    let Ok(text) = driftlint_core::input::read_bounded_to_string(path, driftlint_core::input::MAX_FILE_BYTES) else {
        return Vec::new();
    };
    if !text.contains("ResourceDefinition") {
        return Vec::new();
    }
    let source = driftlint_core::input::Source { path: SourcePath::File(path.to_path_buf()), text };
    let collection = driftlint_core::document::collect(vec![source], &driftlint_core::document::Options::default());
    let mut out = Vec::new();
    for doc in collection.documents.iter().filter(|d| d.identity.kind.ends_with("ResourceDefinition")) {
        let spec = doc.node.get("spec");
        let group = spec.and_then(|s| s.get("group")).and_then(|g| g.as_str()).unwrap_or_default();
        for names in ["names", "claimNames"] {
            if let Some(kind) = spec.and_then(|s| s.get(names)).and_then(|n| n.get("kind")).and_then(|k| k.as_str()) {
                out.push((group.to_string(), kind.to_string()));
            }
        }
    }
    out
}

/// The `(group, kind)` of a finding's object id (`apiVersion_Kind_…`).
fn object_kind(object: &str) -> Option<(&str, &str)> {
    let mut parts = object.splitn(3, '_');
    let (api_version, kind) = (parts.next()?, parts.next()?);
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    Some((group, kind))
}

/// Named files that hold Kubernetes objects but were not checked: an error each, saying why
/// (a Helm chart's sources and tools' files have their notes already).
pub fn unchecked(settings: &Settings, report: &Report, named: &[PathBuf]) -> Vec<Diagnostic> {
    let inputs: HashSet<PathBuf> = report.inputs.iter().map(|p| lexical(p)).collect();
    let mut out = Vec::new();
    for path in named.iter().filter(|p| p.is_file()) {
        if inputs.contains(&lexical(path)) || own_input(settings, path).is_some() {
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name == crate::config::FILE_NAME || name == "driftlint.lock" || in_chart_or_tool_file(path) {
            continue;
        }
        let Ok(text) = driftlint_core::input::read_bounded_to_string(path, driftlint_core::input::MAX_FILE_BYTES)
        else {
            continue;
        };
        let source = driftlint_core::input::Source { path: SourcePath::File(path.to_path_buf()), text };
        let collection = driftlint_core::document::collect(vec![source], &driftlint_core::document::Options::default());
        if collection.documents.is_empty() {
            continue;
        }
        let why = why_unchecked(settings, path);
        out.push(
            Diagnostic::new(
                Rule::IoError,
                Severity::Error,
                SourcePath::File(path.clone()),
                None,
                format!("{} holds Kubernetes objects but is not checked: {why}", path.display()),
            )
            .with_help(
                "move it where the check looks, or change the configuration; a file named on the command line is never passed unchecked",
            ),
        );
    }
    out
}

/// Why the walk leaves `path` out.
fn why_unchecked(settings: &Settings, path: &Path) -> &'static str {
    let root = std::path::absolute(&settings.exclude_root).map(|r| crate::config::normalize(&r)).unwrap_or_default();
    let abs = std::path::absolute(path).map(|a| crate::config::normalize(&a)).unwrap_or_default();
    let rel = abs.strip_prefix(&root).unwrap_or(&abs);
    let parent = rel.parent().unwrap_or(Path::new(""));
    if parent.components().any(|c| c.as_os_str().to_str().is_some_and(|s| s.starts_with('.') && s != "." && s != ".."))
    {
        return "it is in a hidden directory, which the walk skips";
    }
    if crate::check::paths_not_excluded(settings, vec![path.to_path_buf()]).is_ok_and(|kept| kept.is_empty()) {
        return "an `exclude` glob of the configuration leaves it out";
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let included = if settings.include.is_empty() {
        [".yaml", ".yml", ".json"].iter().any(|e| name.ends_with(e))
    } else {
        settings.include.iter().any(|g| glob_matches(g, name))
    };
    if !included {
        return "`include` does not take its name";
    }
    "an ignore file (`.gitignore`, `.ignore`) hides it from the walk"
}

/// Whether a file-name glob (`*.yaml`) matches `name`.
fn glob_matches(glob: &str, name: &str) -> bool {
    match glob.split_once('*') {
        Some((head, tail)) if !tail.contains('*') => {
            name.len() >= head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail)
        }
        _ => glob == name,
    }
}

/// Whether `path` is a Helm chart's source, a tool's configuration file, or a file its
/// kustomizations name as a patch (checked as one) or as kustomize's own configuration: what
/// a walk leaves out of the manifests, judged by the file's role
/// ([`driftlint_core::input::layout::claimed_file`]), not by its name alone.
fn in_chart_or_tool_file(path: &Path) -> bool {
    driftlint_core::input::layout::claimed_file(path)
}

/// Adds `diagnostics` to `report`, in the report's order (by path, position and rule).
pub fn add(report: &mut Report, diagnostics: Vec<Diagnostic>) {
    if diagnostics.is_empty() {
        return;
    }
    report.diagnostics.extend(diagnostics);
    crate::check::sort(&mut report.diagnostics);
}

/// Keeps the findings of `report` that the `named` paths are responsible for (and those
/// `causes` decides elsewhere); returns how many were hidden.
pub fn keep_named(report: &mut Report, named: &[PathBuf], causes: &Causes) -> usize {
    if causes.everything {
        return 0;
    }
    let named: Vec<PathBuf> = named.iter().map(|p| lexical(p)).collect();
    let under = |p: &Path| {
        let p = lexical(p);
        named.iter().any(|n| n.as_os_str().is_empty() || p.starts_with(n))
    };
    let inputs: HashSet<PathBuf> = report.inputs.iter().map(|p| lexical(p)).collect();
    // The components the named files' objects belong to (through the templates they matched).
    let mut templates: BTreeSet<&str> = BTreeSet::new();
    for o in &report.correlations.objects {
        if let SourcePath::File(p) = &o.path
            && under(p)
        {
            templates.extend(o.templates.iter().map(String::as_str));
        }
    }
    let touched: BTreeSet<&str> =
        templates.iter().filter_map(|t| report.correlations.components.get(*t)).flatten().map(String::as_str).collect();
    let shows = |d: &Diagnostic| -> bool {
        if causes.rules.contains(&d.rule) {
            return true;
        }
        if SCHEMA_RULES.contains(&d.rule)
            && let Some((group, kind)) = d.object.as_deref().and_then(object_kind)
            && causes.kinds.iter().any(|(g, k)| g == group && k == kind)
        {
            return true;
        }
        match d.rule {
            Rule::IoError => return true,
            // A note that a chart's or a tool's files are not manifests: for the files named.
            Rule::NotKubernetesObject if d.severity == Severity::Note => {
                let SourcePath::File(p) = &d.primary.path else { return true };
                // A chart's note stands at its `Chart.yaml` for every file below; a tool files'
                // note at the first of them, naming the others.
                let chart = p.file_name().is_some_and(|n| n == "Chart.yaml");
                let dir = lexical(p.parent().unwrap_or(Path::new("")));
                return under(p)
                    || (chart && named.iter().any(|n| n.starts_with(&dir)))
                    || named.iter().any(|n| d.message.contains(&*n.to_string_lossy()));
            }
            Rule::MissingResource => {
                let components = d.object.as_deref().and_then(|t| report.correlations.components.get(t));
                return components.is_none_or(|cs| cs.iter().any(|c| touched.contains(c.as_str())));
            }
            Rule::CardinalityViolation => {
                return d.object.as_deref().is_none_or(|c| touched.contains(c));
            }
            _ => {}
        }
        match &d.primary.path {
            SourcePath::File(p) => under(p) || !inputs.contains(&lexical(p)),
            SourcePath::Stdin => true,
        }
    };
    let before = report.diagnostics.len();
    let kept: Vec<Diagnostic> = report.diagnostics.drain(..).filter(|d| shows(d)).collect();
    report.diagnostics = kept;
    before - report.diagnostics.len()
}

/// `./a/./b` → `a/b` (no file-system access; `..` kept).
pub(crate) fn lexical(p: &Path) -> PathBuf {
    p.components().filter(|c| !matches!(c, std::path::Component::CurDir)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_paths() {
        assert_eq!(lexical(Path::new("./a/./b.yaml")), PathBuf::from("a/b.yaml"));
        assert_eq!(lexical(Path::new(".")), PathBuf::new());
    }
}
