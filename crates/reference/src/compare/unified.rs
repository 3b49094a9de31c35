//! The `DiffOutput` text (§5.6, §5.7): what `diff -u -N TEMP/MERGED-n TEMP/LIVE-n` prints for
//! one CR, produced in process with `similar` (no temp files, no subprocess), or by running
//! the `KUBECTL_EXTERNAL_DIFF` program on real temp directories when it is set.
//!
//! `-` lines are MERGED (the reference), `+` lines are LIVE (the cluster). Identical texts give
//! an empty string, as GNU diff prints nothing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use similar::{Algorithm, TextDiff};

/// `gosimple/slug.Make` (language `en`) for a CR id: the file name of both sides (§5.6.1).
/// Non-ASCII letters, which unidecode would transliterate, become `-` here (Kubernetes names
/// are ASCII).
#[must_use]
pub fn slug(s: &str) -> String {
    // One pass over the characters: quotes dropped, dashes unified, `&`/`@` spelled out,
    // lower-cased, everything else but `[a-z0-9_-]` made `-`, runs of `-` collapsed. (Case
    // mapping per character equals the whole string's here: the only context rule, Greek
    // final sigma, maps to non-ASCII either way.)
    fn push(out: &mut String, c: char) {
        let c = if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' };
        if !(c == '-' && out.ends_with('-')) {
            out.push(c);
        }
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.trim().chars() {
        match c {
            '"' | '\'' | '\u{2019}' => {}
            '\u{2012}'..='\u{2015}' => push(&mut out, '-'),
            '&' => "and".chars().for_each(|c| push(&mut out, c)),
            '@' => "at".chars().for_each(|c| push(&mut out, c)),
            c if c.is_ascii() => push(&mut out, c.to_ascii_lowercase()),
            c => c.to_lowercase().for_each(|c| push(&mut out, c)),
        }
    }
    let trimmed = out.trim_matches(['-', '_']);
    if trimmed.len() == out.len() { out } else { trimmed.to_owned() }
}

/// kube-compare's CR id (`apiVersion_kind_namespace_name`, or without the namespace).
#[must_use]
pub fn cr_id(cr: &serde_json::Value) -> String {
    fn s(v: Option<&serde_json::Value>) -> &str {
        v.and_then(serde_json::Value::as_str).unwrap_or("")
    }
    let meta = cr.get("metadata");
    let (api, kind) = (s(cr.get("apiVersion")), s(cr.get("kind")));
    let (ns, name) = (s(meta.and_then(|m| m.get("namespace"))), s(meta.and_then(|m| m.get("name"))));
    if ns.is_empty() { format!("{api}_{kind}_{name}") } else { format!("{api}_{kind}_{ns}_{name}") }
}

/// How the two sides are diffed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum DiffProgram {
    /// GNU `diff -u -N` reproduced in process.
    #[default]
    InProcess,
    /// `KUBECTL_EXTERNAL_DIFF`: a program and its kept arguments (§1.6).
    External { program: String, args: Vec<String> },
}

impl DiffProgram {
    /// Reads `KUBECTL_EXTERNAL_DIFF` from the environment.
    #[must_use]
    pub fn from_env() -> Self {
        std::env::var("KUBECTL_EXTERNAL_DIFF")
            .ok()
            .filter(|v| !v.is_empty())
            .map_or(DiffProgram::InProcess, |v| Self::parse_external(&v))
    }

    /// kubectl's parsing: split on single spaces; the first token is the program; later
    /// tokens are kept only if they match `^[a-zA-Z0-9-=]+$`.
    #[must_use]
    pub fn parse_external(value: &str) -> Self {
        let mut tokens = value.split(' ');
        let program = tokens.next().unwrap_or_default().to_owned();
        let args = tokens
            .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'='))
            .map(str::to_owned)
            .collect();
        DiffProgram::External { program, args }
    }
}

/// Error running an external diff program; `Display` is kube-compare's text.
#[derive(Debug, thiserror::Error)]
#[error("diff exited with non-zero code: {0}")]
pub struct DiffProgramError(pub String);

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A temp-directory-like name, `$TMPDIR/<prefix><digits>`, as `os.MkdirTemp` would choose.
fn temp_name(prefix: &str) -> PathBuf {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let n = u64::from(nanos)
        ^ (u64::from(std::process::id()) << 20)
        ^ COUNTER.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9E37_79B9);
    std::env::temp_dir().join(format!("{prefix}{}", n % 10_000_000_000))
}

/// Produces `DiffOutput` for one comparison.
pub fn diff_output(
    program: &DiffProgram,
    name: &str,
    merged_yaml: &str,
    live_yaml: &str,
) -> Result<String, DiffProgramError> {
    match program {
        // GNU diff prints nothing for equal files: no names or timestamps to make.
        DiffProgram::InProcess if merged_yaml == live_yaml => Ok(String::new()),
        DiffProgram::InProcess => {
            Ok(unified_diff(&temp_name("MERGED-").join(name), &temp_name("LIVE-").join(name), merged_yaml, live_yaml))
        }
        DiffProgram::External { program, args } => run_external(program, args, name, merged_yaml, live_yaml),
    }
}

/// GNU `diff -u -N` output for two files: the command line, the `---`/`+++` headers with
/// modification times, and hunks with 3 lines of context; empty when the texts are equal.
#[must_use]
pub fn unified_diff(merged_path: &Path, live_path: &Path, merged: &str, live: &str) -> String {
    if merged == live {
        return String::new();
    }
    let diff = TextDiff::configure().algorithm(Algorithm::Myers).diff_lines(merged, live);
    let now = timestamp();
    let (m, l) = (merged_path.display(), live_path.display());
    let mut out = format!("diff -u -N {m} {l}\n--- {m}\t{now}\n+++ {l}\t{now}\n");
    for hunk in diff.unified_diff().context_radius(3).missing_newline_hint(true).iter_hunks() {
        // Writing to a String cannot fail.
        let _ = write!(out, "{hunk}");
    }
    // Kept until the report is written (one per drifted CR): without the growth slack.
    out.shrink_to_fit();
    out
}

/// `YYYY-MM-DD hh:mm:ss.nnnnnnnnn +0000` (UTC), GNU diff's `-u` time format.
/// (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

fn timestamp() -> String {
    let d = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:09} +0000",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_nanos()
    )
}

struct TempDir(PathBuf);

impl TempDir {
    fn create(prefix: &str) -> std::io::Result<TempDir> {
        loop {
            let p = temp_name(prefix);
            match std::fs::create_dir(&p) {
                Ok(()) => return Ok(TempDir(p)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write_side(dir: &Path, name: &str, text: &str) -> std::io::Result<()> {
    let path = dir.join(name);
    std::fs::write(&path, text)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Runs the external program on `MERGED-*` and `LIVE-*` directories (stdout captured, stderr
/// passed through). Exit 0 and 1 are accepted (§5.7).
fn run_external(
    program: &str,
    args: &[String],
    name: &str,
    merged: &str,
    live: &str,
) -> Result<String, DiffProgramError> {
    let io = |e: std::io::Error| DiffProgramError(e.to_string());
    let m = TempDir::create("MERGED-").map_err(io)?;
    let l = TempDir::create("LIVE-").map_err(io)?;
    write_side(&m.0, name, merged).map_err(io)?;
    write_side(&l.0, name, live).map_err(io)?;
    let output = Command::new(program)
        .args(args)
        .arg(&m.0)
        .arg(&l.0)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                DiffProgramError(format!("failed to run \"{program}\": executable file not found in $PATH"))
            }
            _ => DiffProgramError(format!("failed to run \"{program}\": {e}")),
        })?;
    match output.status.code() {
        Some(0 | 1) => Ok(String::from_utf8_lossy(&output.stdout).into_owned()),
        Some(c) => Err(DiffProgramError(format!("exit status {c}"))),
        None => Err(DiffProgramError("signal: killed".to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_examples() {
        assert_eq!(
            slug("rbac.authorization.k8s.io/v1_ClusterRole_kubernetes-dashboard"),
            "rbac-authorization-k8s-io-v1_clusterrole_kubernetes-dashboard"
        );
        assert_eq!(slug("v1_Namespace_openshift-storage"), "v1_namespace_openshift-storage");
        assert_eq!(slug("  _a&b@c--d_ "), "aandbatc-d");
    }

    /// The replace-and-map form of `slug`, step by step as gosimple/slug describes it.
    fn slug_in_steps(s: &str) -> String {
        let s = s
            .trim()
            .replace(['"', '\'', '\u{2019}'], "")
            .replace(['\u{2012}', '\u{2013}', '\u{2014}', '\u{2015}'], "-");
        let s = s.replace('&', "and").replace('@', "at").to_lowercase();
        let mut out = String::new();
        for c in s.chars() {
            let c = if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' };
            if !(c == '-' && out.ends_with('-')) {
                out.push(c);
            }
        }
        out.trim_matches(['-', '_']).to_owned()
    }

    #[test]
    fn slug_in_one_pass_equals_the_steps() {
        let pieces = [
            "v1", "_", "-", "--", "&", "@", "\"", "'", "\u{2019}", "\u{2013}", "\u{2015}", " ", "\t", "ÄB", "\u{212a}",
            "\u{130}", "ΣΑΣ", "é", "x.y/z", "", "A", "9",
        ];
        let mut n = 0;
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let s = format!("{a}{b}{c}");
                    assert_eq!(slug(&s), slug_in_steps(&s), "{s:?}");
                    n += 1;
                }
            }
        }
        assert_eq!(n, pieces.len().pow(3));
        // The Kelvin sign lower-cases to an ASCII `k`; the dotted capital I to `i` + a mark.
        assert_eq!(slug("\u{212a}\u{130}x"), "ki-x");
    }

    #[test]
    fn external_args_filtered() {
        assert_eq!(
            DiffProgram::parse_external("sh -c 'exit 3'"),
            DiffProgram::External { program: "sh".into(), args: vec!["-c".into()] }
        );
        assert_eq!(
            DiffProgram::parse_external("diff -y -W 150"),
            DiffProgram::External { program: "diff".into(), args: vec!["-y".into(), "-W".into(), "150".into()] }
        );
    }

    #[test]
    fn timestamp_shape() {
        let t = timestamp();
        assert_eq!(t.len(), "2024-01-01 00:00:00.000000000 +0000".len(), "{t}");
        assert!(t.starts_with("20"));
    }
}

#[cfg(test)]
mod civil_tests {
    #[test]
    fn civil_from_days_matches_the_calendar() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(super::civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(super::civil_from_days(20_413), (2025, 11, 21));
    }
}
