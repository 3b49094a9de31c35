//! Bounded reads of files a repository can name: the one way driftlint reads a manifest, a
//! reference file, a configuration, a lock, an overrides or diff-config file, or standard input.
//!
//! A checked repository is untrusted, and a path in it may be a FIFO (opening it blocks until a
//! writer comes), a symlink to `/dev/zero` or `/dev/urandom` (reading never ends), a socket, a
//! directory, or simply a huge file. So a file is opened without blocking, its opened handle is
//! checked to be a regular file (symlinks are followed: the target must be one), and at most
//! `limit + 1` bytes are read, whatever the size the file claims; standard input is read
//! through the same `limit + 1` cap. The errors are [`std::io::Error`]s whose text names what
//! was wrong, so every caller keeps its own message shape (`cannot read PATH: …`,
//! kube-compare's `open PATH: …`).
//!
//! This module does not decide which files are inputs ([`super`] does) nor parse them.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The most bytes one file (or standard input) may hold: the YAML loader's own size limit
/// (`driftlint_yaml::Limits::default().max_bytes`), so nothing larger is ever read whole.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Why a bounded read refused a file; carried inside the returned [`io::Error`].
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// Not a regular file once symlinks are followed.
    #[error("not a regular file (it is {0}); only regular files are read")]
    NotRegular(&'static str),
    /// More than the limit.
    #[error("larger than the limit of {} ({limit} bytes)", human(*.limit))]
    TooLarge { limit: u64 },
}

/// Reads the file at `path` whole, when it is a regular file of at most `limit` bytes.
///
/// # Errors
/// The open or read error, or [`Refused`] (kind `InvalidInput` for a file that is not regular,
/// `FileTooLarge` for one over the limit).
pub fn read_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    // A `stat` first, so that a FIFO or device is refused before it is even opened (opening a
    // device can have effects of its own); the opened handle is checked again below, since the
    // path may have been swapped in between.
    check_type(&std::fs::metadata(path)?)?;
    read_listed_file(path, limit)
}

/// [`read_bounded`] for a path that a directory listing has just reported as a regular file
/// (not a symlink; `DirEntry::file_type`): the `stat` before opening is left out, as it would
/// only repeat what the listing said. The opened handle is still checked, so a path swapped
/// for something else in between is refused as [`read_bounded`] refuses it.
///
/// # Errors
/// As [`read_bounded`].
pub fn read_listed_file(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    check_type(&meta)?;
    if meta.len() > limit {
        return Err(too_large(limit));
    }
    read_capped(file, limit, meta.len())
}

/// [`read_bounded`] as UTF-8 text; invalid UTF-8 is an `InvalidData` error naming the offset.
///
/// # Errors
/// As [`read_bounded`], or invalid UTF-8.
pub fn read_bounded_to_string(path: &Path, limit: u64) -> io::Result<String> {
    into_text(read_bounded(path, limit)?)
}

/// [`read_listed_file`] as UTF-8 text, as [`read_bounded_to_string`].
///
/// # Errors
/// As [`read_listed_file`], or invalid UTF-8.
pub fn read_listed_file_to_string(path: &Path, limit: u64) -> io::Result<String> {
    into_text(read_listed_file(path, limit)?)
}

/// Reads standard input whole, up to `limit` bytes (a larger input is refused after `limit + 1`
/// bytes were read: `check - < /dev/zero` ends).
///
/// # Errors
/// The read error or [`Refused::TooLarge`].
pub fn read_stdin_bounded(limit: u64) -> io::Result<Vec<u8>> {
    read_capped(io::stdin().lock(), limit, stdin_file_size())
}

/// The size of standard input when it is a regular file (`< file`), else 0: the buffer is then
/// sized once instead of grown (and copied) a doubling at a time.
fn stdin_file_size() -> u64 {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let dup = io::stdin().as_fd().try_clone_to_owned().ok().map(File::from);
        dup.and_then(|f| f.metadata().ok()).filter(std::fs::Metadata::is_file).map_or(0, |m| m.len())
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// [`read_stdin_bounded`] as UTF-8 text.
///
/// # Errors
/// As [`read_stdin_bounded`], or invalid UTF-8.
pub fn read_stdin_bounded_to_string(limit: u64) -> io::Result<String> {
    into_text(read_stdin_bounded(limit)?)
}

/// Reads at most `limit + 1` bytes of `reader`; more than `limit` is refused.
fn read_capped(reader: impl Read, limit: u64, size_hint: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(size_hint.min(limit) as usize);
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(bytes)
}

fn into_text(bytes: Vec<u8>) -> io::Result<String> {
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, utf8_message(e.as_bytes(), &e)))
}

/// What is wrong with text that is not UTF-8, and where: the byte, its line and column (in
/// characters) and its offset.
pub fn utf8_message(bytes: &[u8], e: &std::string::FromUtf8Error) -> String {
    let at = e.utf8_error().valid_up_to();
    let valid = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
    let line = valid.matches('\n').count() + 1;
    let column = valid.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
    let byte = bytes.get(at).map_or_else(String::new, |b| format!(" 0x{b:02x}"));
    format!("file is not valid UTF-8: byte{byte} at line {line}, column {column} (offset {at}) starts no character")
}

fn too_large(limit: u64) -> io::Error {
    io::Error::new(io::ErrorKind::FileTooLarge, Refused::TooLarge { limit })
}

fn check_type(meta: &std::fs::Metadata) -> io::Result<()> {
    let ft = meta.file_type();
    if ft.is_file() {
        return Ok(());
    }
    // A directory keeps its own kind: kube-compare's texts say `read X: is a directory`.
    let kind = if ft.is_dir() { io::ErrorKind::IsADirectory } else { io::ErrorKind::InvalidInput };
    Err(io::Error::new(kind, Refused::NotRegular(describe(&ft))))
}

/// What a non-regular file is, in words.
pub(super) fn describe(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() { "a directory" } else { "a special file" }
}

/// Opens for reading without blocking: a FIFO swapped in after the `stat` must not hang the
/// open (a reader's open blocks until a writer appears). Regular files ignore the flag.
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

fn human(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(e: &io::Error) -> &Refused {
        e.get_ref().and_then(|r| r.downcast_ref::<Refused>()).expect("a Refused error")
    }

    #[test]
    fn reads_a_regular_file_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.yaml");
        std::fs::write(&p, "abcd").unwrap();
        assert_eq!(read_bounded(&p, 4).unwrap(), b"abcd");
        let e = read_bounded(&p, 3).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert!(matches!(refused(&e), Refused::TooLarge { limit: 3 }));
        assert_eq!(e.to_string(), "larger than the limit of 3 bytes (3 bytes)");
    }

    #[test]
    fn listed_files_are_checked_once_opened() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.yaml");
        std::fs::write(&p, "abcd").unwrap();
        assert_eq!(read_listed_file(&p, 4).unwrap(), b"abcd");
        assert_eq!(read_listed_file(&p, 3).unwrap_err().kind(), io::ErrorKind::FileTooLarge);
        // Whatever the listing said, a directory or a device is refused once opened.
        assert_eq!(read_listed_file(dir.path(), 10).unwrap_err().kind(), io::ErrorKind::IsADirectory);
        #[cfg(unix)]
        {
            let e = read_listed_file(Path::new("/dev/zero"), 10).unwrap_err();
            assert!(e.to_string().contains("a character device"), "{e}");
        }
    }

    #[test]
    fn a_sparse_file_over_the_limit_is_refused_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.yaml");
        File::create(&p).unwrap().set_len(MAX_FILE_BYTES + 1).unwrap();
        let e = read_bounded(&p, MAX_FILE_BYTES).unwrap_err();
        assert_eq!(e.to_string(), "larger than the limit of 64 MiB (67108864 bytes)");
    }

    #[test]
    fn devices_directories_and_fifos_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_bounded(dir.path(), 10).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::IsADirectory);
        assert!(e.to_string().contains("a directory"), "{e}");
        #[cfg(unix)]
        {
            let link = dir.path().join("zero.yaml");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            let e = read_bounded(&link, 10).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
            assert!(e.to_string().contains("a character device"), "{e}");
            let fifo = dir.path().join("pipe.yaml");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
            assert!(made.success());
            let e = read_bounded(&fifo, 10).unwrap_err();
            assert!(e.to_string().contains("a named pipe (FIFO)"), "{e}");
        }
    }

    #[test]
    fn capped_reads_stop_one_byte_past_the_limit() {
        // An endless reader (what /dev/zero on stdin is) ends after limit + 1 bytes.
        let e = read_capped(io::repeat(0), 1000, 0).unwrap_err();
        assert!(matches!(refused(&e), Refused::TooLarge { limit: 1000 }));
        assert_eq!(read_capped(&b"xyz"[..], 3, 0).unwrap(), b"xyz");
    }

    #[test]
    fn invalid_utf8_names_the_offset() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.yaml");
        std::fs::write(&p, b"ab\xffc").unwrap();
        let e = read_bounded_to_string(&p, 10).unwrap_err();
        assert_eq!(
            e.to_string(),
            "file is not valid UTF-8: byte 0xff at line 1, column 3 (offset 2) starts no character"
        );
    }
}
