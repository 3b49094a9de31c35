//! Files an untrusted repository can name that are not plain files of a sane size: a FIFO (its
//! open would block), a symlink to `/dev/zero` (its read never ends), a file over the 64 MiB
//! limit (a sparse one: nothing is written), and standard input from `/dev/zero`. Every read
//! must end with a diagnostic naming the path; none may hang or read without bound.
//!
//! The runs have a watchdog: a regression that hangs fails the test (after a generous wait)
//! instead of hanging the suite. No test asserts how long a run took.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{Run, root};

/// A run that has not ended after this long is a hang (each run here takes well under a second).
const WATCHDOG: Duration = Duration::from_secs(120);

fn run_with_stdin(dir: &Path, args: &[&str], stdin: Stdio) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_driftlint"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the driftlint binary runs");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > WATCHDOG {
            child.kill().unwrap();
            panic!("driftlint {args:?} did not end: a special file blocked or was read without bound");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run(dir: &Path, args: &[&str]) -> Run {
    run_with_stdin(dir, args, Stdio::null())
}

/// A temp dir holding `pipe.yaml` (a FIFO), `zero.yaml` (a symlink to /dev/zero), `big.yaml`
/// (a sparse file one byte over the limit) and `ok.yaml` (a ConfigMap).
fn hostile_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let made = Command::new("mkfifo").arg(d.join("pipe.yaml")).status().expect("mkfifo runs");
    assert!(made.success());
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.yaml")).unwrap();
    std::fs::File::create(d.join("big.yaml")).unwrap().set_len((64 << 20) + 1).unwrap();
    std::fs::write(d.join("ok.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n").unwrap();
    dir
}

fn reference() -> String {
    root().join("fixtures/reference/metadata.yaml").display().to_string()
}

const NOT_REGULAR_FIFO: &str = "not a regular file (it is a named pipe (FIFO)); only regular files are read";
const NOT_REGULAR_DEV: &str = "not a regular file (it is a character device); only regular files are read";
const TOO_LARGE: &str = "larger than the limit of 64 MiB (67108864 bytes)";

#[test]
fn check_refuses_a_fifo_a_device_symlink_and_an_oversized_file_by_name() {
    let dir = hostile_dir();
    let r = run(dir.path(), &["check", "--reference", &reference(), "pipe.yaml", "zero.yaml", "big.yaml", "ok.yaml"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains(&format!("cannot read pipe.yaml: {NOT_REGULAR_FIFO}")), "{}", r.stdout);
    // A link out of the repository is refused before it is opened, named as written (never
    // where it leads).
    assert!(r.stdout.contains("`zero.yaml`: symlink leads out of the repository: not read"), "{}", r.stdout);
    assert!(!r.stdout.contains("/dev/zero"), "{}", r.stdout);
    assert!(r.stdout.contains(&format!("cannot read big.yaml: {TOO_LARGE}")), "{}", r.stdout);
    assert!(r.stdout.contains("--> pipe.yaml"), "the diagnostic is located at the file:\n{}", r.stdout);
}

#[test]
fn ls_refuses_them_too() {
    let dir = hostile_dir();
    let r = run(dir.path(), &["ls", "pipe.yaml", "zero.yaml", "big.yaml", "ok.yaml"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("1 object(s)") || r.stdout.contains("ok.yaml"), "{}", r.stdout);
    assert!(r.stderr.contains(NOT_REGULAR_FIFO) && r.stderr.contains(TOO_LARGE), "{}", r.stderr);
}

#[test]
fn standard_input_from_dev_zero_ends_at_the_limit() {
    let dir = hostile_dir();
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let r = run_with_stdin(dir.path(), &["check", "--reference", &reference(), "-"], Stdio::from(zero));
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains(&format!("cannot read <stdin>: {TOO_LARGE}")), "{}", r.stdout);

    let zero = std::fs::File::open("/dev/zero").unwrap();
    let r = run_with_stdin(dir.path(), &["compare", "-r", &reference(), "-f", "-"], Stdio::from(zero));
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains(&format!("error parsing STDIN: {TOO_LARGE}")), "{}", r.stderr);
}

/// Standard input from a regular file is read into a buffer sized by the file (a file over the
/// limit is refused all the same), and read whole.
#[test]
fn standard_input_from_a_file_is_read_whole_and_refused_over_the_limit() {
    let dir = hostile_dir();
    let big = std::fs::File::open(dir.path().join("big.yaml")).unwrap();
    let r = run_with_stdin(dir.path(), &["check", "--reference", &reference(), "-"], Stdio::from(big));
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains(&format!("cannot read <stdin>: {TOO_LARGE}")), "{}", r.stdout);

    let ok = std::fs::File::open(dir.path().join("ok.yaml")).unwrap();
    let r = run_with_stdin(dir.path(), &["ls", "-"], Stdio::from(ok));
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("1 object(s)"), "{}", r.stdout);
}

#[test]
fn compare_refuses_special_files_for_every_input_flag() {
    let dir = hostile_dir();
    let r = run(dir.path(), &["compare", "-r", &reference(), "-f", "pipe.yaml"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains(&format!("open pipe.yaml: {NOT_REGULAR_FIFO}")), "{}", r.stderr);

    let r = run(dir.path(), &["compare", "-r", "zero.yaml", "-f", "ok.yaml"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("open zero.yaml: not a regular file (it is a character device)"), "{}", r.stderr);

    for flag in ["-c", "-p"] {
        for file in ["pipe.yaml", "zero.yaml", "big.yaml"] {
            let r = run(dir.path(), &["compare", "-r", &reference(), "-f", "ok.yaml", flag, file]);
            assert_eq!(r.code, 2, "{flag} {file}: {}{}", r.stdout, r.stderr);
            assert!(r.stderr.contains(file), "{flag} {file}: {}", r.stderr);
            assert!(
                r.stderr.contains("not a regular file") || r.stderr.contains("larger than the limit"),
                "{flag} {file}: {}",
                r.stderr
            );
        }
    }
}

#[test]
fn a_reference_template_that_is_a_fifo_is_an_invalid_reference() {
    let dir = hostile_dir();
    let reference = dir.path().join("reference");
    std::fs::create_dir(&reference).unwrap();
    std::fs::write(
        reference.join("metadata.yaml"),
        "apiVersion: v2\nparts:\n- name: p\n  components:\n  - name: c\n    allOf:\n    - path: cm.yaml\n",
    )
    .unwrap();
    // (A link to /dev/zero leaves the reference and is dropped by the glob; a FIFO inside it
    // is matched and must not block the read.)
    let made = Command::new("mkfifo").arg(reference.join("cm.yaml")).status().expect("mkfifo runs");
    assert!(made.success());
    let r = run(dir.path(), &["check", "--reference", "reference/metadata.yaml", "ok.yaml"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("error[invalid-reference]"), "{}", r.stdout);
    assert!(r.stdout.contains("open cm.yaml: not a regular file (it is a named pipe (fifo))"), "{}", r.stdout);
}

#[test]
fn overrides_and_lock_files_from_the_configuration_are_bounded() {
    let dir = hostile_dir();
    // The reference on the command line (the configuration may name paths in its repository
    // only); the overrides from the configuration.
    std::fs::write(dir.path().join(".driftlint.yaml"), "overrides: zero.yaml\n").unwrap();
    let r = run(dir.path(), &["check", "--reference", &reference(), "ok.yaml"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    // Refused before it is opened: the link leads out of the repository.
    assert!(r.stderr.contains("zero.yaml") && r.stderr.contains("leads out of the repository"), "{}", r.stderr);

    // The lock is `driftlint.lock` beside the configuration; here a link to the oversized file.
    std::fs::write(dir.path().join(".driftlint.yaml"), "").unwrap();
    std::os::unix::fs::symlink("big.yaml", dir.path().join("driftlint.lock")).unwrap();
    let r = run(dir.path(), &["check", "--reference", &reference(), "ok.yaml"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("driftlint.lock") && r.stderr.contains(TOO_LARGE), "{}", r.stderr);
}

#[test]
fn ignore_files_that_are_not_regular_files_stop_the_walk_of_their_directory() {
    // The `ignore` crate reads `.gitignore`/`.ignore` whole: a FIFO blocked the walk and a
    // link to /dev/zero exhausted memory.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("tree/sub")).unwrap();
    std::fs::create_dir_all(d.join("tree/ok")).unwrap();
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
    std::fs::write(d.join("tree/sub/x.yaml"), cm).unwrap();
    std::fs::write(d.join("tree/ok/y.yaml"), cm.replace("x", "y")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("tree/sub/.gitignore")).unwrap();
    let r = run(d, &["ls", "tree"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("tree/ok/y.yaml"), "other directories are walked: {}", r.stdout);
    assert!(
        r.stderr.contains(&format!("cannot read tree/sub/.gitignore: {NOT_REGULAR_DEV}; the directory is not walked")),
        "{}",
        r.stderr
    );

    let made = Command::new("mkfifo").arg(d.join("tree/.ignore")).status().expect("mkfifo runs");
    assert!(made.success());
    let r = run(d, &["ls", "tree"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains(&format!("cannot read tree/.ignore: {NOT_REGULAR_FIFO}")), "{}", r.stderr);
    // Without ignore files (`--no-ignore`) nothing reads them.
    let r = run(d, &["ls", "--no-ignore", "tree"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("2 object(s)"), "{}", r.stdout);
}

/// A configuration file or lock that is no regular file is an error, never silently passed over.
#[test]
fn a_configuration_or_lock_that_is_no_regular_file_is_an_error() {
    let dir = hostile_dir();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join(".driftlint.yaml")).unwrap();
    let r = run(dir.path(), &["check", "--reference", &reference(), "ok.yaml"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains(".driftlint.yaml") && r.stderr.contains("not a regular file"), "{}", r.stderr);
    std::fs::remove_file(dir.path().join(".driftlint.yaml")).unwrap();
    let made = Command::new("mkfifo").arg(dir.path().join("driftlint.lock")).status().expect("mkfifo runs");
    assert!(made.success());
    let r = run(dir.path(), &["check", "--reference", &reference(), "ok.yaml"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("driftlint.lock") && r.stderr.contains("not a regular file"), "{}", r.stderr);
}
