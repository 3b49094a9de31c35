//! `load_reference`: the metadata file plus the files it names, in kube-compare's order of
//! checks (Appendix C, §2.9).
//!
//! Order: read → decode (`metadata`) → `fieldsToOmit` (`omit`) → v2 component validation →
//! per template: the pattern must match a file, the function files must exist, every
//! `fieldsToOmitRefs` entry must exist. The per-template errors are collected over all
//! templates and joined, like kube-compare's `ParseV1Templates`/`ParseV2Templates`; errors
//! of the earlier steps stop loading at once.

use std::io;
use std::path::{Path, PathBuf};

use super::decode::go_backquote;
use super::error::{LoadError, Problem};
use super::fs::{BAD_PATTERN, glob};
use super::metadata::decode_metadata;
use super::omit::{process_v1, process_v2};
use super::root::Root;
use super::{FunctionFile, Reference, SourceFile, TemplateEntry, TemplateSource, Version};

const NOT_FOUND: &str = "Reference config file not found. error: ";

/// Loads and validates a reference from its metadata file (local directory form, §2.1).
pub fn load_reference(metadata_path: &Path) -> Result<Reference, LoadError> {
    let base = metadata_path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let root = metadata_path.parent().map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf);
    let root = if root.as_os_str().is_empty() { Path::new(".").to_path_buf() } else { root };
    load_reference_in(Root::Dir(root), &base, metadata_path.to_path_buf())
}

/// Loads and validates a reference whose metadata file is `metadata` (a name inside `root`);
/// `shown` is the path diagnostics give for the metadata file.
pub fn load_reference_in(root: Root, metadata: &str, shown: PathBuf) -> Result<Reference, LoadError> {
    let metadata_path = shown.as_path();
    let bytes = root
        .read_named(metadata)
        .map_err(|e| LoadError::plain(metadata_path, format!("{NOT_FOUND}{}", go_io_error(&e, metadata))))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let fail = |problems: Vec<Problem>| LoadError::located(metadata_path, &text, problems);

    let decoded = decode_metadata(&text).map_err(fail)?;
    let processed = match decoded.version {
        Version::V1 => process_v1(decoded.fields_to_omit),
        Version::V2 => process_v2(decoded.fields_to_omit),
    }
    .map_err(fail)?;
    if !decoded.validation.is_empty() {
        return Err(fail(decoded.validation));
    }
    let fields_to_omit = processed.fields;

    // Function files are parsed into every template's set; ParseFS stops at the first
    // pattern that fails, and kube-compare reports that once per template.
    let mut function_files = Vec::new();
    let mut function_error: Option<Problem> = None;
    for (pattern, span) in decoded.function_files {
        let source = match read_pattern(&root, &pattern) {
            Ok(s) => s,
            Err(e) => {
                function_error.get_or_insert_with(|| {
                    Problem::new(
                        format!("an error occurred while parsing the template function files specified in the config. error: {e}"),
                        Some(span.clone()),
                    )
                });
                TemplateSource::default()
            }
        };
        function_files.push(FunctionFile { path: pattern, span, source });
    }

    let mut problems = Vec::new();
    let mut templates = Vec::new();
    for raw in decoded.templates {
        let mut entry = TemplateEntry {
            effective_description: effective_description(&decoded.parts, decoded.version, &raw),
            path: raw.path,
            description: raw.description,
            config: raw.config,
            omit_paths: Vec::new(),
            span: raw.span,
            part: raw.part,
            component: raw.component,
            source: TemplateSource::default(),
        };
        match read_pattern(&root, &entry.path) {
            Ok(source) => entry.source = source,
            Err(e) => {
                problems.push(Problem::new(
                    format!(
                        "an error occurred while parsing template: {} specified in the config. error: {e}",
                        entry.path
                    ),
                    Some(entry.span.clone()),
                ));
                templates.push(entry);
                continue;
            }
        }
        if let Some(p) = &function_error {
            problems.push(p.clone());
            templates.push(entry);
            continue;
        }
        match fields_to_omit.paths_for(&entry.config.fields_to_omit_refs) {
            Ok(paths) => entry.omit_paths = paths,
            Err(errors) => problems.extend(errors.into_iter().map(|m| Problem::new(m, Some(entry.span.clone())))),
        }
        templates.push(entry);
    }
    if !problems.is_empty() {
        return Err(fail(problems));
    }
    let warnings = LoadError::located(metadata_path, &text, processed.warnings).problems;
    Ok(Reference {
        path: shown,
        text,
        root,
        version: decoded.version,
        api_version: decoded.api_version,
        parts: decoded.parts,
        templates,
        function_files,
        fields_to_omit,
        warnings,
    })
}

/// §2.5: template, else component, else part description (v2); the template's own (v1).
fn effective_description(parts: &[super::Part], version: Version, t: &super::metadata::RawTemplate) -> String {
    if version == Version::V1 || !t.description.is_empty() {
        return t.description.clone();
    }
    let part = parts.get(t.part);
    let component = part.and_then(|p| p.components.get(t.component));
    match (part, component) {
        (_, Some(c)) if !c.description.is_empty() => c.description.clone(),
        (Some(p), _) => p.description.clone(),
        _ => String::new(),
    }
}

/// Go's `template.ParseFS` file collection for one pattern; the error text is Go's.
fn read_pattern(root: &Root, pattern: &str) -> Result<TemplateSource, String> {
    let found = glob(root, pattern).map_err(|_| BAD_PATTERN.to_owned())?;
    if found.is_empty() {
        return Err(format!("template: pattern matches no files: {}", go_backquote(pattern)));
    }
    let mut files = Vec::with_capacity(found.len());
    for f in found {
        let bytes = root.read(&f.name).map_err(|e| go_io_error(&e, &f.name))?;
        files.push(SourceFile { name: f.name, path: f.path, text: String::from_utf8_lossy(&bytes).into_owned() });
    }
    Ok(TemplateSource { files })
}

/// Go's `*PathError` text for a failed read of `name` (`open x: no such file or directory`).
pub(crate) fn go_io_error(e: &io::Error, name: &str) -> String {
    // A path the confinement refused keeps its text (it names the path as written).
    if let Some(refusal) = e.get_ref().and_then(|r| r.downcast_ref::<driftlint_core::confine::Refusal>()) {
        return format!("open {name}: {refusal}");
    }
    match e.kind() {
        io::ErrorKind::NotFound => format!("open {name}: no such file or directory"),
        io::ErrorKind::PermissionDenied => format!("open {name}: permission denied"),
        io::ErrorKind::IsADirectory => format!("read {name}: is a directory"),
        _ => {
            let text = e.to_string();
            let text = text.split(" (os error").next().unwrap_or(&text).to_lowercase();
            format!("open {name}: {text}")
        }
    }
}
