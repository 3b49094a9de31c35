//! The terminal outputs: rustc-style snippets (`human`, via `annotate-snippets`), one line per
//! finding (`concise`), and the summary line both end with.
//!
//! Suppressed findings get no snippet (a reviewer silenced them on purpose) but are listed
//! after the others, one short entry each with the reason, so that a suppression is never
//! invisible; they are counted apart in the summary.

use std::fmt::Write;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};

use super::{Counts, SourceResolver, sorted};
use driftlint_core::diagnostic::{Diagnostic, Label, Severity};
use driftlint_core::escape;
use driftlint_core::input::SourcePath;
use driftlint_schema::coverage::Coverage;

/// Labels further apart than this many lines get a snippet each rather than one snippet with
/// everything in between (which would cost time in proportion to the gap).
const MAX_SNIPPET_LINES: usize = 40;

/// rustc-style snippets for every unsuppressed finding, then [`summary_line`].
pub fn render_human(diags: &[Diagnostic], sources: &SourceResolver, color: bool) -> String {
    render_human_counted(diags, sources, color, None, true)
}

/// [`render_human`], the summary line saying what the schema pass validated (no summary line
/// without `summary`: `--quiet`).
pub fn render_human_counted(
    diags: &[Diagnostic],
    sources: &SourceResolver,
    color: bool,
    coverage: Option<&Coverage>,
    summary: bool,
) -> String {
    let mut out = String::new();
    let written = write_human(
        &mut |piece| {
            out.push_str(piece);
            Ok(())
        },
        diags,
        sources,
        color,
        coverage,
        summary,
    );
    debug_assert!(written.is_ok(), "a String takes every piece");
    out
}

/// [`render_human`], a piece at a time into `sink` (standard output, without holding the whole
/// report in memory).
pub fn write_human(
    sink: &mut dyn FnMut(&str) -> std::io::Result<()>,
    diags: &[Diagnostic],
    sources: &SourceResolver,
    color: bool,
    coverage: Option<&Coverage>,
    summary: bool,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    let renderer = if color { Renderer::styled() } else { Renderer::plain() };
    let shown: Vec<&Diagnostic> = sorted(diags).into_iter().filter(|d| d.suppressed.is_none()).collect();
    // Snippets are rendered on the pool a chunk at a time and written in order.
    for chunk in shown.chunks(256) {
        let pieces: Vec<String> = chunk
            .par_iter()
            .map(|d| {
                let simple = if color { None } else { render_one_line(d, sources) };
                simple.unwrap_or_else(|| renderer.render(&[group(d, sources)]))
            })
            .collect();
        for piece in pieces {
            sink(&piece)?;
            sink("\n\n")?;
        }
    }
    let mut out = String::new();
    for d in sorted(diags) {
        let Some(reason) = &d.suppressed else { continue };
        out.clear();
        let _ = write!(out, "suppressed[{}]: {}\n  --> {}\n", d.rule, one_line(&d.message), position(d, sources));
        let _ = write!(out, "   = reason: {}\n\n", one_line(reason));
        sink(&out)?;
    }
    if !summary {
        return Ok(());
    }
    sink(&summary_line_counted(diags, color, coverage))?;
    sink("\n")
}

/// One line per unsuppressed finding (`path:line:col: severity[rule]: message`), then
/// [`summary_line`].
pub fn render_concise(diags: &[Diagnostic], sources: &SourceResolver) -> String {
    render_concise_counted(diags, sources, None, true)
}

/// [`render_concise`], the summary line saying what the schema pass validated (no summary
/// line without `summary`: `--quiet`).
pub fn render_concise_counted(
    diags: &[Diagnostic],
    sources: &SourceResolver,
    coverage: Option<&Coverage>,
    summary: bool,
) -> String {
    let mut out = String::new();
    let ordered = sorted(diags);
    // Suppressed findings last, each with its reason.
    for d in ordered.iter().filter(|d| d.suppressed.is_none()).chain(ordered.iter().filter(|d| d.suppressed.is_some()))
    {
        let (level, rule) = (d.severity.as_str(), d.rule);
        match &d.suppressed {
            None => {
                let _ = writeln!(out, "{}: {level}[{rule}]: {}", position(d, sources), one_line(&d.message));
            }
            Some(reason) => {
                let _ = writeln!(
                    out,
                    "{}: suppressed[{rule}]: {} (reason: {})",
                    position(d, sources),
                    one_line(&d.message),
                    one_line(reason)
                );
            }
        }
    }
    if summary {
        out.push_str(&summary_line_counted(diags, false, coverage));
        out.push('\n');
    }
    out
}

/// `path:line:col` of a finding's primary label (just the path when it has no position).
fn position(d: &Diagnostic, sources: &SourceResolver) -> String {
    match sources.location(&d.primary) {
        Some(loc) => format!("{}:{}:{}", escape::text(&d.primary.path.display()), loc.line, loc.column),
        None => escape::text(&d.primary.path.display()).into_owned(),
    }
}

/// A text on one line, whatever it holds: line breaks become spaces, and every other control
/// or bidirectional character a visible escape ([`escape::text`]).
fn one_line(text: &str) -> String {
    escape::text(&text.replace("\r\n", " ").replace(['\r', '\n'], " ")).into_owned()
}

/// `found 3 errors, 1 warning (1 suppressed)`, or `no problems found` when nothing counts.
pub fn summary_line(diags: &[Diagnostic], color: bool) -> String {
    summary_line_counted(diags, color, None)
}

/// [`summary_line`] followed by what the schema pass validated (`; 12 objects: 10 validated
/// against a schema, …`); when it validated nothing and nothing was found, not "no problems
/// found" but `3 objects, none validated: no schema for …`.
pub fn summary_line_counted(diags: &[Diagnostic], color: bool, coverage: Option<&Coverage>) -> String {
    let c = Counts::of(diags);
    let mut parts = Vec::new();
    for (n, one, many) in
        [(c.errors, "error", "errors"), (c.warnings, "warning", "warnings"), (c.notes, "note", "notes")]
    {
        if n > 0 {
            parts.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    }
    let unchecked = coverage.filter(|v| v.validated == 0 && v.objects() > 0);
    let mut line = match (parts.is_empty(), unchecked) {
        (true, Some(v)) => v.sentence(),
        (true, None) => "no problems found".to_string(),
        (false, _) => format!("found {}", parts.join(", ")),
    };
    if c.suppressed > 0 {
        let _ = write!(line, " ({} suppressed)", c.suppressed);
    }
    if let Some(v) = coverage.filter(|v| !(parts.is_empty() && unchecked.is_some()) && v.objects() > 0) {
        let _ = write!(line, "; {}", v.sentence());
    }
    if color {
        let style = if c.errors > 0 {
            anstyle::AnsiColor::BrightRed.on_default().bold()
        } else if parts.is_empty() {
            anstyle::AnsiColor::BrightGreen.on_default().bold()
        } else {
            anstyle::Style::new().bold()
        };
        line = format!("{style}{line}{style:#}");
    }
    line
}

/// The snippet of the commonest finding — one label, without text, on one short line of
/// printable ASCII; no help; a note naming the object (`unmatched-resource`, most drift
/// findings' objects) — written as annotate-snippets' plain renderer writes it; `None` for
/// any other finding, which annotate-snippets renders. On a run with a finding in most files
/// the general renderer was a third of the CPU (callgrind: 56,000 instructions a finding);
/// `tests::one_line_snippets_are_annotate_snippets_own` holds the two to the same bytes.
fn render_one_line(d: &Diagnostic, sources: &SourceResolver) -> Option<String> {
    // Printable ASCII: one column a byte, nothing escaped, nothing a terminal interprets.
    // (Folded over every byte without stopping early, which the compiler turns into vector
    // code: the texts are short and nearly always plain.)
    let plain = |s: &str| s.bytes().fold(true, |ok, b| ok & (b' '..=b'~').contains(&b));
    let object = d.object.as_deref()?;
    if !d.secondary.is_empty()
        || !d.help.is_empty()
        || d.fix.is_some()
        || d.primary.message.is_some()
        || !plain(&d.message)
        || d.message.trim_start().starts_with("::")
        || !plain(object)
    {
        return None;
    }
    let path = d.primary.path.name();
    let range = sources.clamp(&d.primary.path, d.primary.range.as_ref()?)?;
    let location = sources.location(&d.primary)?;
    let window = sources.line_at(&d.primary.path, range.start)?;
    let line = sources.text(&d.primary.path)?.get(window.clone())?;
    // A long line is cut by annotate-snippets around the label; an empty label, one that
    // runs past its line, trailing blanks are laid out by its own rules: all left to it.
    if !plain(&path)
        || location.line != location.end_line
        || range.is_empty()
        || range.start < window.start
        || range.end > window.end
        || line.len() > ONE_LINE_MAX
        || !plain(line)
        || line.ends_with(' ')
    {
        return None;
    }
    let number = location.line.to_string();
    let column = range.start - window.start;
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    // Written piece by piece (most findings of a large run take this path; `format!`'s
    // machinery was most of its cost).
    let mut out = String::with_capacity(256 + line.len() + d.message.len() + object.len() + path.len());
    // Runs of one ASCII byte are pushed a slice at a time, not a character at a time.
    const SPACES: &str = "                                                                ";
    const CARETS: &str = "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^";
    let pad = |out: &mut String, mut n: usize, run: &str| {
        while n > 0 {
            let k = n.min(run.len());
            out.push_str(&run[..k]);
            n -= k;
        }
    };
    for piece in [level, "[", d.rule.id(), "]: ", &d.message, "\n"] {
        out.push_str(piece);
    }
    pad(&mut out, number.len(), SPACES);
    for piece in ["--> ", &path, ":", &number, ":", &(column + 1).to_string(), "\n"] {
        out.push_str(piece);
    }
    pad(&mut out, number.len(), SPACES);
    for piece in [" |\n", &number, " | ", line, "\n"] {
        out.push_str(piece);
    }
    pad(&mut out, number.len(), SPACES);
    out.push_str(" | ");
    pad(&mut out, column, SPACES);
    pad(&mut out, range.len(), CARETS);
    out.push('\n');
    pad(&mut out, number.len(), SPACES);
    out.push_str(" |\n");
    pad(&mut out, number.len(), SPACES);
    out.push_str(" = note: object: ");
    out.push_str(object);
    Some(out)
}

/// The longest source line [`render_one_line`] writes itself: well inside the width at which
/// annotate-snippets starts cutting lines.
const ONE_LINE_MAX: usize = 80;

fn level(severity: Severity) -> Level<'static> {
    match severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Note => Level::NOTE,
    }
}

fn group<'a>(d: &'a Diagnostic, sources: &'a SourceResolver) -> Group<'a> {
    let title = level(d.severity).primary_title(escape::lines(&d.message)).id(d.rule.id());
    let mut group = Group::with_title(title);
    // Labels by file, the primary's file first, files in order of first appearance.
    let labels: Vec<(&Label, bool)> =
        std::iter::once((&d.primary, true)).chain(d.secondary.iter().map(|l| (l, false))).collect();
    let mut files: Vec<&SourcePath> = Vec::new();
    for (label, _) in &labels {
        if !files.contains(&&label.path) {
            files.push(&label.path);
        }
    }
    for path in files {
        let in_file: Vec<_> = labels.iter().filter(|(l, _)| &l.path == path).copied().collect();
        for chunk in windows(&in_file, sources) {
            group = group.element(chunk);
        }
    }
    for help in &d.help {
        group = group.element(Level::HELP.message(escape::lines(help)));
    }
    if let Some(help) = fix_help(d) {
        group = group.element(Level::HELP.message(escape::lines(&help)));
    }
    if let Some(object) = &d.object {
        group = group.element(Level::NOTE.message(format!("object: {}", escape::text(object))));
    }
    group
}

/// `fixable with --fix: set …` (or `--unsafe-fixes`) for a finding that carries a fix; for a
/// finding rendered to standard input, whose fix edits its source and is only shown,
/// `fixable in the source with --diff: …`.
pub(super) fn fix_help(d: &Diagnostic) -> Option<String> {
    let fix = d.fix.as_deref().filter(|f| !f.edits.is_empty() && d.suppressed.is_none())?;
    let unsafe_fix = fix.safety == driftlint_core::diagnostic::FixSafety::Unsafe;
    let flag = match (driftlint_core::locate::is_rendered(d), unsafe_fix) {
        (false, false) => "with --fix",
        (false, true) => "with --fix --unsafe-fixes",
        (true, false) => "in the source with --diff",
        (true, true) => "in the source with --diff --unsafe-fixes",
    };
    Some(format!("fixable {flag}: {}", fix.message))
}

/// A label with its clamped range and location.
type Located<'a> = (&'a Label, bool, std::ops::Range<usize>, super::Location);

/// The snippets (or bare origins, for labels without a known range) of one file's labels.
fn windows<'a>(labels: &[(&'a Label, bool)], sources: &'a SourceResolver) -> Vec<annotate_snippets::Element<'a>> {
    let mut out: Vec<annotate_snippets::Element<'a>> = Vec::new();
    let mut located: Vec<Located> = Vec::new();
    for &(label, primary) in labels {
        match (label.range.as_ref().and_then(|r| sources.clamp(&label.path, r)), sources.location(label)) {
            (Some(range), Some(loc)) => located.push((label, primary, range, loc)),
            _ => {
                let origin = Origin::path(escape::text(&label.path.display()).into_owned());
                out.push(origin.into());
                if let Some(message) = &label.message {
                    out.push(Level::NOTE.message(escape::text(message)).into());
                }
            }
        }
    }
    located.sort_by_key(|(_, primary, _, loc)| (loc.line, !primary));
    // Split into runs of labels whose lines are close enough to share one snippet.
    let mut runs: Vec<Vec<Located>> = Vec::new();
    for item in located {
        match runs.last_mut() {
            Some(run) if item.3.end_line.saturating_sub(run[0].3.line) <= MAX_SNIPPET_LINES => run.push(item),
            _ => runs.push(vec![item]),
        }
    }
    for run in runs {
        let path = &run[0].0.path;
        let first = run.iter().map(|i| i.3.line).min().unwrap_or(1);
        let last = run.iter().map(|i| i.3.end_line).max().unwrap_or(first);
        let (Some(window), Some(text)) = (sources.lines_range(path, first, last), sources.text(path)) else {
            continue;
        };
        let source = escape::source_line(&text[window.clone()]);
        let mut snippet = Snippet::source(source).line_start(first).path(escape::text(&path.display()).into_owned());
        for (label, primary, range, _) in run {
            let kind = if primary { AnnotationKind::Primary } else { AnnotationKind::Context };
            // Offsets relative to the window; a range ending past the window's last line
            // terminator is cut at the window's end.
            let start = range.start.saturating_sub(window.start).min(window.len());
            let end = range.end.saturating_sub(window.start).min(window.len()).max(start);
            let mut annotation = kind.span(start..end);
            if let Some(message) = &label.message {
                annotation = annotation.label(escape::text(message).into_owned());
            }
            snippet = snippet.annotation(annotation);
        }
        out.push(snippet.into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlint_core::diagnostic::Rule;
    use driftlint_core::input::Source;

    /// The lines findings point at: every indentation from none to deep, short and long
    /// lines, and lines the fast path leaves to annotate-snippets (a tab, non-ASCII, trailing
    /// blanks, a control character, longer than its limit).
    fn line(i: usize) -> String {
        let indent = " ".repeat(i % 13);
        match i % 17 {
            3 => format!("{indent}name:\tvalue-{i}"),
            5 => format!("{indent}name: välue-{i}"),
            7 => format!("{indent}name: value-{i}  "),
            9 => format!("{indent}name: v\u{1b}-{i}"),
            11 => format!("{indent}name: {}", "x".repeat(60 + i % 40)),
            _ => format!("{indent}k{}: value-{i}", "e".repeat(i % 7)),
        }
    }

    /// On findings of every line-number width, column, span and severity, over lines the
    /// fast path takes and lines it leaves, `render_one_line` writes what annotate-snippets
    /// writes, or leaves the finding to it.
    #[test]
    fn one_line_snippets_are_annotate_snippets_own() {
        let lines: Vec<String> = (0..12_000).map(line).collect();
        let text = lines.join("\n") + "\n";
        let starts: Vec<usize> =
            std::iter::once(0).chain(text.match_indices('\n').map(|(at, _)| at + 1)).take(lines.len()).collect();
        let path = SourcePath::File("dir/object-1.yaml".into());
        let sources = vec![Source { path: path.clone(), text: text.clone() }];
        let resolver = SourceResolver::from_sources(&sources);
        let renderer = Renderer::plain();
        let (mut fast, mut left) = (0, 0);
        let picked = (0..lines.len()).filter(|i| *i < 40 || i % 7 == 0 || i % 997 < 3);
        for (n, i) in picked.enumerate() {
            let line = &lines[i];
            let len = line.len();
            // A span in the line (some from its start, some to its end), empty, or past it.
            let (from, to) = match n % 6 {
                0 => (len.min(i % 13), len),
                1 => (0, len.min(1)),
                2 => (len / 2, len / 2 + 1),
                3 => (len.min(3), len.min(3)),
                4 => (len.saturating_sub(2), len + 1),
                _ => (len.min(i % 13 + 1), len.min(i % 13 + 4)),
            };
            let severity = [Severity::Error, Severity::Warning, Severity::Note][n % 3];
            let rule = [Rule::UnmatchedResource, Rule::ValueDrift, Rule::DuplicateKey][n % 3];
            let message = match n % 5 {
                4 => format!("no reference template matches `obj-{i}`\nsecond line"),
                3 => format!(":: workflow-looking `{i}`"),
                _ => format!("no reference template matches ConfigMap `ns/obj-{i}`"),
            };
            let range = starts[i] + from..starts[i] + to;
            let mut d = Diagnostic::new(rule, severity, path.clone(), Some(range), message);
            match n % 11 {
                10 => d = d.with_help("pair it with one template"),
                9 => {}
                _ => d = d.with_object(format!("v1_ConfigMap_ns_obj-{i}"), None),
            }
            let expected = renderer.render(&[group(&d, &resolver)]);
            match render_one_line(&d, &resolver) {
                Some(written) => {
                    assert_eq!(written, expected, "line {i}: {line:?} {from}..{to}");
                    fast += 1;
                }
                None => left += 1,
            }
        }
        assert!(fast > 300 && left > 500, "{fast} written, {left} left to annotate-snippets");
    }
}
