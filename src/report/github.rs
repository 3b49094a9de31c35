//! GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` annotation per
//! finding, which GitHub shows on the pull request's changed lines.
//!
//! GitHub displays at most 10 annotations of each level per step and drops the rest
//! silently, so findings are ranked (errors first, then rule order, then report order), only
//! the first `limits.github_per_level` of each level are written, and a final `::notice`
//! counts the ones left out. Suppressed findings are not annotated.

use std::fmt::Write;

use super::{Options, SourceResolver, ranked};
use driftlint_core::diagnostic::{Diagnostic, Severity};
use driftlint_core::escape;

/// Escapes a command's message, as `@actions/core`'s `escapeData` does.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a command property value, as `@actions/core`'s `escapeProperty` does.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    }
}

/// Workflow commands for `diags`; empty when there is nothing to annotate.
pub fn render_github(diags: &[Diagnostic], sources: &SourceResolver, opts: &Options) -> String {
    let cap = opts.limits.github_per_level;
    let candidates: Vec<&Diagnostic> = ranked(diags).into_iter().filter(|d| d.suppressed.is_none()).collect();
    let count = |s: Severity| candidates.iter().filter(|d| d.severity == s).count();
    let (errors, warnings, notes) = (count(Severity::Error), count(Severity::Warning), count(Severity::Note));
    let mut omitted = errors.saturating_sub(cap) + warnings.saturating_sub(cap);
    // A scoped run's note, and the closing `::notice` that counts what was left out, take
    // notice slots themselves.
    let scope = usize::from(!opts.scope_notes.is_empty());
    let closing = omitted > 0 || notes + scope > cap;
    let note_cap = cap.saturating_sub(scope + usize::from(closing));
    omitted += notes.saturating_sub(note_cap);
    let mut shown = [0usize; 3];
    let mut out = String::new();
    for d in candidates {
        let slot = &mut shown[d.severity as usize];
        if *slot < if d.severity == Severity::Note { note_cap } else { cap } {
            *slot += 1;
            annotate(&mut out, d, sources, opts);
        }
    }
    if scope > 0 {
        let _ = writeln!(out, "::notice title=driftlint::{}", escape_data(&escape::text(&opts.scope_notes.join(" "))));
    }
    if omitted > 0 {
        let text = format!(
            "{omitted} more finding{} not shown as annotations (GitHub shows {cap} per level); see the job log or the SARIF report",
            if omitted == 1 { "" } else { "s" }
        );
        let _ = writeln!(out, "::notice title=driftlint::{}", escape_data(&text));
    }
    out
}

fn annotate(out: &mut String, d: &Diagnostic, sources: &SourceResolver, opts: &Options) {
    let mut props = Vec::new();
    if let driftlint_core::input::SourcePath::File(path) = &d.primary.path {
        // GitHub matches `file` against repository paths: relative to the root, forward slashes.
        props.push(format!("file={}", escape_property(&escape::text(&super::sarif::repo_path(path, opts)))));
        if let Some(loc) = sources.location(&d.primary) {
            props.push(format!("line={}", loc.line));
            props.push(format!("col={}", loc.column));
            props.push(format!("endLine={}", loc.end_line));
            props.push(format!("endColumn={}", loc.end_column));
        }
    }
    props.push(format!("title={}", escape_property(&format!("driftlint({})", d.rule))));
    // Line breaks become `%0A` (GitHub shows a line break), every other control character a
    // visible escape.
    let mut message = escape::multiline(&d.message).into_owned();
    for help in &d.help {
        message.push_str("\nhelp: ");
        message.push_str(&escape::multiline(help));
    }
    let _ = writeln!(out, "::{} {}::{}", command(d.severity), props.join(","), escape_data(&message));
}
