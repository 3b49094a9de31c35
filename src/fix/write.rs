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

/// The most writer threads [`write_all`] starts, whatever it is asked for.
const MAX_WRITERS: usize = 32;

/// Writes each `(path, text)` of `files` with [`write_atomic`] on up to `threads` threads; the
/// outcomes come back in the order of `files`, whatever order the writes ran in. Each file is
/// written by one thread, start to end.
pub fn write_all(files: &[(&Path, &str)], threads: usize) -> Vec<std::io::Result<()>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Writers wait on the disk, not on a core: more than a few dozen only add threads.
    let threads = threads.clamp(1, files.len().clamp(1, MAX_WRITERS));
    if threads == 1 {
        return files.iter().map(|(path, text)| write_atomic(path, text)).collect();
    }
    let next = AtomicUsize::new(0);
    let outcomes: Vec<Mutex<Option<std::io::Result<()>>>> = files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((path, text)) = files.get(i) else { break };
                    let outcome = write_atomic(path, text);
                    if let Ok(mut slot) = outcomes[i].lock() {
                        *slot = Some(outcome);
                    }
                }
            });
        }
    });
    outcomes
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err(std::io::Error::other("the writing thread stopped before this file")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_written_whatever_the_threads_with_its_own_outcome() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<std::path::PathBuf> = (0..12).map(|i| dir.path().join(format!("f{i}.yaml"))).collect();
        for p in &paths {
            std::fs::write(p, "old\n").unwrap();
        }
        // One path that cannot be written (no such file: its permissions cannot be read).
        let missing = dir.path().join("missing.yaml");
        for threads in [1, 3, 8] {
            let texts: Vec<String> = (0..paths.len()).map(|i| format!("new {i} on {threads}\n")).collect();
            let mut files: Vec<(&Path, &str)> =
                paths.iter().zip(&texts).map(|(p, t)| (p.as_path(), t.as_str())).collect();
            files.insert(5, (missing.as_path(), "never\n"));
            let outcomes = write_all(&files, threads);
            assert_eq!(outcomes.len(), files.len());
            for ((path, text), outcome) in files.iter().zip(&outcomes) {
                if *path == missing {
                    assert!(outcome.is_err());
                    assert!(!path.exists());
                } else {
                    assert!(outcome.is_ok(), "{outcome:?}");
                    assert_eq!(&std::fs::read_to_string(path).unwrap(), text);
                }
            }
        }
        // No temporary file is left behind.
        let mut names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
        names.sort();
        assert_eq!(names.len(), 12, "{names:?}");
        assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    }
}
