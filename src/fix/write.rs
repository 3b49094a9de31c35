//! Replacing a file's content atomically: readers see the old text or the new, never a part,
//! and a failure leaves the old file as it was.
//!
//! The new text goes to a temporary file created next to the target (same directory, so the
//! same filesystem: `rename` is atomic there), with the target's permissions, then renamed
//! over the target. The temporary file is created exclusively
//! (`create_new`): a name planted in the directory is never followed or overwritten.

use std::io::Write;
use std::path::Path;

/// Writes `text` to `path` atomically, keeping `path`'s permissions.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let meta = std::fs::metadata(path)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let (file, tmp) = create_temporary(dir, &name)?;
    let written = (|| {
        let mut file = file;
        file.write_all(text.as_bytes())?;
        file.set_permissions(meta.permissions())?;
        // No fsync: the rename alone makes the replacement atomic for every reader, which is
        // the guarantee; durability across a power cut is the filesystem's, as for any editor
        // or formatter's write (ruff, rustfmt, prettier do not sync either), and a sync per
        // file made `check --fix` half again as slow as `check` on a layout with many fixes.
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A new file `.NAME.driftlint-fix-PID-N` in `dir`, created exclusively.
fn create_temporary(dir: &Path, name: &str) -> std::io::Result<(std::fs::File, std::path::PathBuf)> {
    let pid = std::process::id();
    let mut attempt = 0u32;
    loop {
        let tmp = dir.join(format!(".{name}.driftlint-fix-{pid}-{attempt}"));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}
