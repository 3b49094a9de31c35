//! Code actions from the fixes findings carry (the edits `--fix` applies): a safe fix is the
//! preferred quick fix an editor applies on its "fix" key, an unsafe one a plain quick fix the
//! user picks. Only a check of the text as it stands offers fixes, and only edits whose
//! bytes are still where the fix expects them.

use std::path::Path;

use driftlint_core::diagnostic::{Diagnostic, FixSafety};
use lsp_types as lsp;

use super::convert::{self, LineIndex, Texts};

/// The quick fixes of the findings in `findings` whose range meets `range` (in `text`, the
/// document the findings were made on).
pub fn code_actions(
    findings: &[Diagnostic],
    text: &str,
    texts: &Texts<'_>,
    range: lsp::Range,
    text_of: &dyn Fn(&Path) -> Option<String>,
) -> Vec<lsp::CodeActionOrCommand> {
    let index = LineIndex::new(text);
    let (start, end) = (index.offset(range.start), index.offset(range.end));
    let mut actions = Vec::new();
    for d in findings.iter().filter(|d| d.suppressed.is_none()) {
        let Some(fix) = &d.fix else { continue };
        let Some(r) = &d.primary.range else { continue };
        if r.start > end || r.end < start {
            continue;
        }
        let Some(edit) = convert::to_workspace_edit(fix, text_of) else { continue };
        actions.push(lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
            title: fix.message.clone(),
            kind: Some(lsp::CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![convert::to_lsp_diagnostic(d, &index, texts)]),
            edit: Some(edit),
            is_preferred: Some(fix.safety == FixSafety::Safe),
            ..lsp::CodeAction::default()
        }));
    }
    actions
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlint_core::diagnostic::{Edit, Fix, Rule, Severity, SourcePath};

    fn finding(text: &str, value: &str, safety: FixSafety, replacement: &str) -> Diagnostic {
        let at = text.find(value).unwrap();
        let mut d = Diagnostic::new(
            Rule::ValueDrift,
            Severity::Error,
            SourcePath::File("/repo/app.yaml".into()),
            Some(at..at + value.len()),
            "drift",
        );
        d.fix = Some(Box::new(Fix {
            safety,
            message: format!("set to `{replacement}`"),
            edits: vec![Edit {
                path: SourcePath::File("/repo/app.yaml".into()),
                range: at..at + value.len(),
                expected: value.into(),
                replacement: replacement.into(),
            }],
        }));
        d
    }

    #[test]
    fn safe_fixes_are_preferred_and_only_fixes_in_range_are_offered() {
        let text = "replicas: 3\nimage: x:1\nport: 80\n";
        let findings = vec![
            finding(text, "3", FixSafety::Safe, "2"),
            finding(text, "x:1", FixSafety::Unsafe, "x:2"),
            Diagnostic::new(
                Rule::ValueDrift,
                Severity::Error,
                SourcePath::File("/repo/app.yaml".into()),
                Some(25..27),
                "no fix",
            ),
        ];
        let whole = lsp::Range::new(lsp::Position::new(0, 0), lsp::Position::new(3, 0));
        let actions = code_actions(&findings, text, &Texts::new(), whole, &|_| Some(text.to_string()));
        let actions: Vec<&lsp::CodeAction> = actions
            .iter()
            .map(|a| match a {
                lsp::CodeActionOrCommand::CodeAction(a) => a,
                lsp::CodeActionOrCommand::Command(_) => panic!("a command"),
            })
            .collect();
        assert_eq!(actions.len(), 2);
        assert_eq!((actions[0].title.as_str(), actions[0].is_preferred), ("set to `2`", Some(true)));
        assert_eq!((actions[1].title.as_str(), actions[1].is_preferred), ("set to `x:2`", Some(false)));
        assert_eq!(actions[0].kind, Some(lsp::CodeActionKind::QUICKFIX));
        // The cursor on the second line's value: its finding only.
        let second = lsp::Range::new(lsp::Position::new(1, 8), lsp::Position::new(1, 8));
        let actions = code_actions(&findings, text, &Texts::new(), second, &|_| Some(text.to_string()));
        assert_eq!(actions.len(), 1);
        // A text changed since the check: no stale edit.
        let actions = code_actions(&findings, text, &Texts::new(), whole, &|_| Some("replicas: 4\n".into()));
        assert!(actions.is_empty());
    }
}
