//! Report emitters: every output format driftlint writes for `check`, from one slice of
//! [`Diagnostic`]s and a [`SourceResolver`] that owns the texts they point into.
//!
//! The model is ruff's `ruff_db::diagnostic::render`: emitters never recompute findings, they
//! only lay them out. Byte ranges become 1-based lines and columns here, through a line index
//! built lazily per file. Ordering is deterministic everywhere: (path, line, column, rule),
//! see [`sorted`]. This module knows nothing about how findings were produced, and it does not
//! decide the exit code of a run beyond the small [`exit_code`] helper the pipeline calls.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use driftlint_core::diagnostic::{Diagnostic, Severity};

mod github;
mod human;
mod json;
mod junit;
mod markdown;
mod sarif;
mod source;

pub use github::{escape_data, escape_property, render_github};
pub use human::{render_concise, render_human, summary_line};
pub use json::{JSON_SCHEMA_VERSION, render_json};
pub use junit::render_junit;
pub use markdown::{DEFAULT_MARKDOWN_TEMPLATE, render_markdown};
pub use sarif::render_sarif;
pub use source::{Location, SourceResolver, relative_to, relativize};

/// An output format of `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// rustc-style snippets and a summary line.
    Human,
    /// One line per finding: `path:line:col: severity[rule]: message`.
    Concise,
    /// driftlint's own stable JSON schema (`docs/json-schema.md`).
    Json,
    /// SARIF 2.1.0 for code scanning.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=…::…`).
    Github,
    /// A Markdown table for `$GITHUB_STEP_SUMMARY` or a pull-request comment.
    Markdown,
    /// JUnit XML: one test case per compared object and per finding.
    Junit,
}

impl Format {
    pub const ALL: [Format; 7] =
        [Format::Human, Format::Concise, Format::Json, Format::Sarif, Format::Github, Format::Markdown, Format::Junit];

    pub fn name(self) -> &'static str {
        match self {
            Format::Human => "human",
            Format::Concise => "concise",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Github => "github",
            Format::Markdown => "markdown",
            Format::Junit => "junit",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Format, Error> {
        Format::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| Error::UnknownFormat(s.to_string()))
    }
}

/// Where one format's output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(PathBuf),
}

/// One `FMT[=FILE]` item of `--format`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    pub format: Format,
    pub destination: Destination,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("unknown output format `{0}` (expected one of: human, concise, json, sarif, github, markdown, junit)")]
    UnknownFormat(String),
    #[error("empty output format in `{0}`")]
    EmptyFormat(String),
    #[error("output format `{0}` has an empty file name after `=`")]
    EmptyFile(String),
    #[error("more than one format writes to standard output ({0} and {1}); give all but one a file with FMT=FILE")]
    StdoutTwice(Format, Format),
    #[error("{0} and {1} both write to {2}: give each output its own file")]
    FileTwice(Format, Format, PathBuf),
    #[error("markdown template: {0}")]
    Template(String),
    #[error("cannot write {format} output to {path}")]
    Write {
        format: Format,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Parses `--format`: comma-separated `FMT[=FILE]` items, e.g.
/// `human,sarif=out.sarif,markdown=$GITHUB_STEP_SUMMARY`. A format without a file writes to
/// standard output; at most one may, since two interleaved formats are useless to a reader.
pub fn parse_outputs(spec: &str) -> Result<Vec<Output>, Error> {
    let mut outputs: Vec<Output> = Vec::new();
    for item in spec.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(Error::EmptyFormat(spec.to_string()));
        }
        let (name, file) = match item.split_once('=') {
            Some((name, file)) => (name.trim(), Some(file)),
            None => (item, None),
        };
        let format: Format = name.parse()?;
        let destination = match file {
            Some("") => return Err(Error::EmptyFile(name.to_string())),
            Some(file) => Destination::File(PathBuf::from(file)),
            None => Destination::Stdout,
        };
        if let Some(prev) = outputs.iter().find(|o| o.destination == destination) {
            return Err(match destination {
                Destination::Stdout => Error::StdoutTwice(prev.format, format),
                // The second would silently replace the first.
                Destination::File(path) => Error::FileTwice(prev.format, format, path),
            });
        }
        outputs.push(Output { format, destination });
    }
    Ok(outputs)
}

/// Caps that keep outputs inside what GitHub accepts; tests lower them.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// SARIF results per run (GitHub code scanning: 25,000).
    pub sarif_results: usize,
    /// SARIF file size in bytes (GitHub: 10 MB).
    pub sarif_bytes: usize,
    /// Annotations shown per level (GitHub shows 10 errors, 10 warnings, 10 notices per step).
    pub github_per_level: usize,
    /// Markdown size in bytes (GitHub step summaries: 1 MiB).
    pub markdown_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            sarif_results: 25_000,
            // Below the 10 MB limit, leaving room for the note result and rounding.
            sarif_bytes: 10_000_000 - 64 * 1024,
            github_per_level: 10,
            // GitHub rejects step summaries over 1 MiB; keep a margin for the truncation note.
            markdown_bytes: 1024 * 1024 - 16 * 1024,
        }
    }
}

/// Everything an emitter may need besides the findings and sources.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// Colour the human output (see [`color_for`]).
    pub color: bool,
    /// Root that SARIF URIs and GitHub `file=` paths are relative to (`%SRCROOT%`), normally
    /// the repository root; defaults to `cwd`. Relative paths in diagnostics are taken
    /// relative to `cwd`.
    pub root: Option<&'a Path>,
    /// The directory relative diagnostic paths are relative to (default: the process's).
    pub cwd: Option<&'a Path>,
    /// Tool version written in SARIF, JSON and Markdown.
    pub tool_version: &'a str,
    /// A user's Markdown template (`--markdown-template FILE`), replacing the built-in one.
    pub markdown_template: Option<&'a str>,
    /// Ids of every compared object, for JUnit's per-object test cases.
    pub objects: &'a [String],
    /// A reference read from git: SARIF and GitHub annotations point at the work tree's copy
    /// of its files instead of their `git:REV:path` names.
    pub pinned: Option<&'a driftlint_reference::Pinned>,
    /// What a scoped run (`--base`, `--staged`, `--new-only`) left out, one sentence each:
    /// the Markdown summary and GitHub annotations say it too, not only standard error.
    pub scope_notes: &'a [String],
    /// The lowest severity that fails the run: JUnit test cases fail as the run does.
    pub fail_level: Severity,
    pub limits: Limits,
    /// What the schema pass validated, when it ran: the summaries count it.
    pub coverage: Option<&'a driftlint_schema::coverage::Coverage>,
    /// `--quiet`: the terminal formats (`human`, `concise`) print findings without the summary
    /// line. Machine formats are whole documents and stay so.
    pub quiet: bool,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            color: false,
            root: None,
            cwd: None,
            tool_version: env!("CARGO_PKG_VERSION"),
            markdown_template: None,
            objects: &[],
            pinned: None,
            scope_notes: &[],
            fail_level: Severity::Error,
            limits: Limits::default(),
            coverage: None,
            quiet: false,
        }
    }
}

/// Renders `diags` in `format`. The result ends with a newline unless it is empty.
pub fn render(format: Format, diags: &[Diagnostic], sources: &SourceResolver, opts: &Options) -> Result<String, Error> {
    Ok(match format {
        Format::Human => human::render_human_counted(diags, sources, opts.color, opts.coverage, !opts.quiet),
        Format::Concise => human::render_concise_counted(diags, sources, opts.coverage, !opts.quiet),
        Format::Json => render_json(diags, sources, opts),
        Format::Sarif => render_sarif(diags, sources, opts),
        Format::Github => render_github(diags, sources, opts),
        Format::Markdown => render_markdown(diags, sources, opts)?,
        Format::Junit => render_junit(opts.objects, diags, sources, opts.fail_level),
    })
}

/// Whether output written to `stream` should be coloured: anstream's detection, as cargo and
/// ruff use it — the global choice if one was set, else a terminal unless `NO_COLOR` is set,
/// and always when `CLICOLOR_FORCE` is set.
pub fn color_for<S: anstream::stream::RawStream>(stream: &S) -> bool {
    !matches!(anstream::AutoStream::choice(stream), anstream::ColorChoice::Never)
}

/// Renders every output and writes it to its destination: standard output or a file (replaced
/// whole). `human` on standard output is coloured as [`color_for`] decides, whatever
/// `opts.color` says (a `--color` flag maps to `anstream::ColorChoice::write_global`); files are
/// never coloured.
pub fn write_outputs(
    outputs: &[Output],
    diags: &[Diagnostic],
    sources: &SourceResolver,
    opts: &Options,
) -> Result<(), Error> {
    for output in outputs {
        let mut opts = opts.clone();
        opts.color = match &output.destination {
            Destination::Stdout => color_for(&std::io::stdout()),
            Destination::File(_) => false,
        };
        // The longest outputs are written as they are rendered, not held whole in memory.
        let streamed: Option<Box<Writer>> = match output.format {
            Format::Human => Some(Box::new(|out: &mut dyn Write| {
                human::write_human(
                    &mut |piece| out.write_all(piece.as_bytes()),
                    diags,
                    sources,
                    opts.color,
                    opts.coverage,
                    !opts.quiet,
                )
            })),
            Format::Json => Some(Box::new(|out: &mut dyn Write| json::write_json(out, diags, sources, &opts))),
            _ => None,
        };
        if let Some(write) = streamed {
            let (path, result) = match &output.destination {
                Destination::Stdout => (PathBuf::from("<stdout>"), stream(std::io::stdout().lock(), &*write)),
                Destination::File(path) => (path.clone(), std::fs::File::create(path).and_then(|f| stream(f, &*write))),
            };
            result.map_err(|source| Error::Write { format: output.format, path, source })?;
            continue;
        }
        let text = render(output.format, diags, sources, &opts)?;
        let (path, result) = match &output.destination {
            Destination::Stdout => {
                let mut out = std::io::stdout().lock();
                (PathBuf::from("<stdout>"), out.write_all(text.as_bytes()).and_then(|()| out.flush()))
            }
            Destination::File(path) => (path.clone(), std::fs::write(path, text.as_bytes())),
        };
        result.map_err(|source| Error::Write { format: output.format, path, source })?;
    }
    Ok(())
}

/// Writes one format's output into a destination.
type Writer<'a> = dyn Fn(&mut dyn Write) -> std::io::Result<()> + 'a;

/// Writes through a buffer into `out` what `write` writes, then flushes.
fn stream(out: impl Write, write: &Writer) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(out);
    write(&mut out)?;
    out.flush()
}

/// 0 when no unsuppressed finding is at or above `fail_level`, 1 otherwise.
pub fn exit_code(diags: &[Diagnostic], fail_level: Severity) -> u8 {
    u8::from(diags.iter().any(|d| d.suppressed.is_none() && d.severity >= fail_level))
}

/// Counts of a run's findings, as every summary reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
    /// Findings silenced by a suppression (not in the three counts above).
    pub suppressed: usize,
}

impl Counts {
    pub fn of(diags: &[Diagnostic]) -> Counts {
        let mut c = Counts::default();
        for d in diags {
            match (&d.suppressed, d.severity) {
                (Some(_), _) => c.suppressed += 1,
                (None, Severity::Error) => c.errors += 1,
                (None, Severity::Warning) => c.warnings += 1,
                (None, Severity::Note) => c.notes += 1,
            }
        }
        c
    }
}

/// `diags` in report order: path, then position (findings without a range first), then rule,
/// then severity (most severe first) and message so that equal keys still sort the same way
/// on every run.
pub fn sorted(diags: &[Diagnostic]) -> Vec<&Diagnostic> {
    let mut out: Vec<&Diagnostic> = diags.iter().collect();
    // Byte offsets order the same way as (line, column) within one file.
    out.sort_by(|a, b| {
        (&a.primary.path, a.primary.range.as_ref().map(|r| (r.start, r.end)), a.rule)
            .cmp(&(&b.primary.path, b.primary.range.as_ref().map(|r| (r.start, r.end)), b.rule))
            .then(b.severity.cmp(&a.severity))
            .then_with(|| a.message.cmp(&b.message))
            .then_with(|| a.object.cmp(&b.object))
            .then_with(|| a.field.cmp(&b.field))
    });
    out
}

/// `diags` by importance, for outputs that can show only some: unsuppressed before
/// suppressed, then errors, warnings, notes, then rule documentation order, then report order.
pub(crate) fn ranked(diags: &[Diagnostic]) -> Vec<&Diagnostic> {
    let mut out = sorted(diags);
    // A stable sort: equal keys keep report order.
    out.sort_by_key(|d| rank_key(d));
    out
}

/// The key [`ranked`] sorts by (smaller is more important).
pub(crate) fn rank_key(d: &Diagnostic) -> (bool, std::cmp::Reverse<Severity>, driftlint_core::diagnostic::Rule) {
    (d.suppressed.is_some(), std::cmp::Reverse(d.severity), d.rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_format_specs() {
        let outs = parse_outputs("human, sarif=out.sarif,markdown=/tmp/summary.md").unwrap();
        assert_eq!(
            outs,
            vec![
                Output { format: Format::Human, destination: Destination::Stdout },
                Output { format: Format::Sarif, destination: Destination::File("out.sarif".into()) },
                Output { format: Format::Markdown, destination: Destination::File("/tmp/summary.md".into()) },
            ]
        );
        // A file name may itself contain `=`.
        assert_eq!(parse_outputs("json=a=b.json").unwrap()[0].destination, Destination::File("a=b.json".into()));
    }

    #[test]
    fn rejects_bad_format_specs() {
        assert!(matches!(parse_outputs("yaml"), Err(Error::UnknownFormat(f)) if f == "yaml"));
        assert!(matches!(parse_outputs("human,,json=x"), Err(Error::EmptyFormat(_))));
        assert!(matches!(parse_outputs(""), Err(Error::EmptyFormat(_))));
        assert!(matches!(parse_outputs("sarif="), Err(Error::EmptyFile(_))));
        assert!(matches!(parse_outputs("human,json"), Err(Error::StdoutTwice(Format::Human, Format::Json))));
        assert!(matches!(
            parse_outputs("json=a.json,sarif=a.json"),
            Err(Error::FileTwice(Format::Json, Format::Sarif, p)) if p == Path::new("a.json")
        ));
        assert!(parse_outputs("json=a.json,sarif=b.json").is_ok());
    }
}
