//! Showing what policies `print()`: as conftest shows it, `FILE:LINE: TEXT` on standard
//! error, one line per call, never in a report or an annotation.
//!
//! A policy is untrusted, so its text is escaped as every other text output is
//! ([`driftlint_core::escape`]): control characters (newlines included) become visible escapes,
//! and a line that would start with `::` (a GitHub workflow command) has its first colon
//! escaped. Callers pass the prints in a fixed order (the order of the findings), so the
//! output is the same for every number of jobs.

use std::io::Write;

/// The line shown for one print (`FILE:LINE: TEXT`, raw).
pub fn line(print: &str) -> String {
    driftlint_core::escape::lines(&driftlint_core::escape::text(print))
}

/// Writes `prints` to standard error.
pub fn show(prints: &[String]) {
    if prints.is_empty() {
        return;
    }
    let stderr = std::io::stderr();
    let mut out = stderr.lock();
    for p in prints {
        // Standard error gone (a closed pipe) is no reason to stop checking.
        let _ = writeln!(out, "{}", line(p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_are_one_escaped_line_never_a_workflow_command() {
        assert_eq!(line("p.rego:3: hi there"), "p.rego:3: hi there");
        let shown = line("p.rego:3: x\n::error file=a::owned\x1b[31m");
        assert!(!shown.contains('\n') && !shown.contains('\x1b'), "{shown}");
        assert!(shown.contains("\\n::error") && shown.contains("\\x1b"), "{shown}");
        let shown = line("::error::x");
        assert!(!shown.starts_with("::"), "{shown}");
    }
}
