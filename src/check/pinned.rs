//! The reference side of a check that concerns where the reference comes from: opening it
//! (a directory, or a git location read from the object database) and verifying `driftlint.lock`
//! ([`driftlint_reference::lock`]) into `reference-changed` findings.

use std::path::Path;

use super::CheckError;
use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::input::SourcePath;
use driftlint_reference::drift::locate::Files;
use driftlint_reference::{Compiled, Location, OpenError, Opened, lock};

/// Opens the configured reference; `start` is where `git:` locations find their repository.
pub fn open_reference(location: &Location, start: &Path) -> Result<Opened, CheckError> {
    driftlint_reference::open(location, start).map_err(|e| match e {
        OpenError::NotFound(p) => CheckError::ReferenceNotFound(p),
        OpenError::Git(g) => CheckError::Git(g),
        refused @ OpenError::Refused(_) => CheckError::ReferenceRefused(refused.to_string()),
    })
}

/// Every reference file the loader read, so that findings pointing into the reference show
/// the text that was compared — for a git reference, the blob, not the work tree's copy.
pub fn remember_files(reference: &driftlint_reference::Reference, files: &mut Files) {
    files.preset(reference.path.clone(), reference.text.clone());
    let sources =
        reference.templates.iter().map(|t| &t.source).chain(reference.function_files.iter().map(|f| &f.source));
    for f in sources.flat_map(|s| &s.files) {
        files.preset(f.path.clone(), f.text.clone());
    }
}

/// `reference-changed` findings when `lock_path` pins another reference than the one
/// configured now. `compiled` is `None` when the reference is invalid (the hash is then not
/// compared; the reference's own findings say why).
pub fn verify_lock(
    lock_path: &Path,
    location: &Location,
    opened: &Opened,
    compiled: Option<&Compiled>,
    files: &mut Files,
) -> Result<Vec<Diagnostic>, CheckError> {
    let file = lock::load_lock(lock_path)?;
    let lock_dir = lock_path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let source = lock::lock_source(location, opened, lock_dir);
    let hash = compiled.map(driftlint_reference::metadata_hash);
    let files_hash = compiled.map(|c| driftlint_reference::files_hash(&c.reference));
    let now = lock::Hashes { metadata: hash.as_deref(), files: files_hash.as_deref() };
    let mismatches = lock::verify(&file, &source, opened.root.commit(), now);
    if mismatches.is_empty() {
        return Ok(Vec::new());
    }
    files.preset(file.path.clone(), file.text.clone());
    Ok(mismatches
        .into_iter()
        .map(|m| {
            Diagnostic::new(
                Rule::ReferenceChanged,
                driftlint_reference::drift::findings::default_severity(Rule::ReferenceChanged),
                SourcePath::File(file.path.clone()),
                Some(m.span),
                m.message,
            )
            .with_help(format!(
                "review the new reference, then run `driftlint reference pin` to update {}; \
                 or configure the pinned revision (a commit id) to keep checking against it",
                lock::FILE_NAME
            ))
        })
        .collect())
}

/// The `reference-changed` finding for a lock that `require-lock: true` asks for and that does
/// not exist: without it, nothing says whether the reference is the reviewed one.
pub fn missing_lock(config: &super::Config, files: &mut Files) -> Diagnostic {
    let path = config.file.clone().unwrap_or_else(|| crate::config::FILE_NAME.into());
    files.preset(path.clone(), config.text.clone());
    Diagnostic::new(
        Rule::ReferenceChanged,
        driftlint_reference::drift::findings::default_severity(Rule::ReferenceChanged),
        SourcePath::File(path),
        config.spans.get("require-lock").cloned(),
        format!("{} is missing, but the configuration requires one (`require-lock: true`)", lock::FILE_NAME),
    )
    .with_help(format!(
        "restore {0} from the base branch, or review the reference and run `driftlint reference pin` to write it",
        lock::FILE_NAME
    ))
}
