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
        let pieces: Vec<String> = chunk.par_iter().map(|d| renderer.render(&[group(d, sources)])).collect();
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
    if let Some(object) = &d.object {
        group = group.element(Level::NOTE.message(format!("object: {}", escape::text(object))));
    }
    group
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
