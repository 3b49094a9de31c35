//! The drift pass: the documents compared with the reference (kube-compare's engine), as
//! located findings — value drift, missing and unexpected fields, missing and unmatched
//! objects, group rules — plus the reference's own problems and `driftlint.lock`.

use super::locate::Files;
use super::{CheckError, Settings, findings, pinned, scope, suppress};
use crate::diagnostic::{Diagnostic, Rule, Severity};
use crate::document::{self, Collection};
use crate::git;
use crate::input::SourcePath;
use crate::kubecompare::collect::Cr;
use crate::kubecompare::engine::{self, Engine};
use crate::reference::{self, Location, Opened};

/// What the drift pass found.
#[derive(Default)]
pub struct Drift {
    pub diagnostics: Vec<Diagnostic>,
    /// Which templates the objects matched, for changed-file scopes.
    pub correlations: scope::Correlations,
    pub pinned: Option<reference::Pinned>,
}

/// Compares the documents with the reference `opened` (configured as `location`).
pub fn run(
    settings: &Settings,
    location: &Location,
    opened: Opened,
    coll: &Collection,
    files: &mut Files,
) -> Result<Drift, CheckError> {
    let user_pairs = match &settings.diff_config {
        None => Vec::new(),
        Some(p) => match git::location_text(&p.to_string_lossy(), &settings.git_start)? {
            Some(text) => reference::userconfig::parse_user_config(p, &text),
            None => reference::userconfig::load_user_config(p),
        }
        .map_err(|e| CheckError::DiffConfig { path: p.clone(), message: e.to_lines() })?
        .correlation_pairs
        .into_iter()
        .map(|p| (p.cr_id, p.template))
        .collect(),
    };
    let overrides = match &settings.overrides {
        None => Vec::new(),
        Some(p) => match git::location_text(&p.to_string_lossy(), &settings.git_start)? {
            Some(text) => crate::compare::parse_overrides(&text),
            None => crate::compare::load_overrides(p),
        }
        .map_err(|e| CheckError::Overrides { path: p.clone(), message: e.to_string() })?,
    };
    if let Some(text) = opened.metadata_text() {
        files.preset(opened.path.clone(), text);
    }
    let mut out = Drift { pinned: opened.pinned(), ..Drift::default() };

    // Reference. Its problems are findings at their line in metadata.yaml, and nothing can
    // be compared without it.
    let compiled = opened.load().and_then(|loaded| {
        pinned::remember_files(&loaded, files);
        for w in &loaded.warnings {
            out.diagnostics.push(Diagnostic::new(
                Rule::InvalidReference,
                // A variant the rules table documents: what kube-compare only warns about.
                Severity::Warning,
                SourcePath::File(loaded.path.clone()),
                w.span.clone(),
                w.message.clone(),
            ));
        }
        reference::compile::compile_owned(loaded)
    });
    if let Some(lock) = &settings.lock {
        out.diagnostics.extend(pinned::verify_lock(lock, location, &opened, compiled.as_ref().ok(), files)?);
    } else if let Some(config) = settings.config.as_ref().filter(|c| c.require_lock) {
        out.diagnostics.push(pinned::missing_lock(config, files));
    }
    match compiled {
        Err(e) => out.diagnostics.extend(findings::invalid_reference(&e, Severity::Error)),
        Ok(compiled) => {
            // Findings need the two sides of differing objects only (field diffs), no texts.
            let options = engine::Options { retain: engine::Retain::Differences, ..engine::Options::default() };
            let engine = Engine::new(&compiled, overrides, &user_pairs, options)?;
            let crs: Vec<Cr> = coll
                .documents
                .iter()
                .map(|d| Cr {
                    id: d.identity.cr_id(),
                    object: without_tool_annotations(d),
                    source: coll.sources[d.source].path.display(),
                })
                .collect();
            let comparison = engine.compare(crs);
            out.correlations = scope::correlations(&compiled, &comparison, coll);
            out.diagnostics.extend(findings::object_findings(&engine, &comparison, coll, files));
            out.diagnostics.extend(findings::summary_findings(&compiled, &comparison));
        }
    }
    Ok(out)
}

/// The object as the reference should see it: without driftlint's own suppression
/// annotation, nor the origin annotation kustomize adds to its output — neither is part of
/// the configuration under review, so neither may show up as an unexpected field.
fn without_tool_annotations(doc: &document::Document) -> serde_json::Value {
    let mut object = doc.object.clone();
    let kustomized = doc.origin.as_ref().is_some_and(|o| o.kind == document::OriginKind::Kustomize);
    if let Some(meta) = object.get_mut("metadata").and_then(serde_json::Value::as_object_mut)
        && let Some(annotations) = meta.get_mut("annotations").and_then(serde_json::Value::as_object_mut)
    {
        annotations.shift_remove(suppress::ANNOTATION);
        if kustomized {
            annotations.shift_remove("config.kubernetes.io/origin");
        }
        if annotations.is_empty() {
            meta.shift_remove("annotations");
        }
    }
    object
}
