//! The one thing fixes that are each sound alone can break together: removals that empty a
//! mapping.
//!
//! Each `unexpected-field` removal is checked alone (the edited object loads as the original
//! without that entry, and only in a mapping that keeps another entry), but two of them in
//! one block mapping of two entries leave `labels:` with nothing under it, which YAML reads as
//! null: a silently different type. So when the removals taken in one file would take every
//! entry of a mapping, and no insertion taken in the same run adds one at that mapping's
//! indentation, the last of them (in report order) is refused: the file stays valid and of the
//! same shape, and the finding stays for a person (removing the mapping itself is theirs to
//! decide, as a one-entry mapping's removal already is).

use driftlint_core::diagnostic::{Diagnostic, Edit};
use driftlint_yaml::{Node, NodeValue};

/// Why a removal was refused.
pub const EMPTIES: &str =
    "it would remove the last entry left in its mapping, which would then read as null: remove the mapping itself";

/// Of `taken` (indices into `diags`, in report order, whose edits all apply to `text`), the
/// fixes to refuse so that no block mapping of `text` loses all its entries.
pub fn emptying(text: &str, taken: &[usize], diags: &[Diagnostic]) -> Vec<usize> {
    let edits = |i: usize| diags[i].fix.as_deref().map_or(&[][..], |f| f.edits.as_slice());
    let is_removal = |e: &Edit| !e.range.is_empty() && e.replacement.is_empty();
    let removals: Vec<(usize, &Edit)> =
        taken.iter().flat_map(|&i| edits(i).iter().filter(|e| is_removal(e)).map(move |e| (i, e))).collect();
    if removals.len() < 2 {
        return Vec::new();
    }
    let insertions: Vec<&Edit> = taken.iter().flat_map(|&i| edits(i).iter().filter(|e| e.range.is_empty())).collect();
    let stream = driftlint_yaml::parse_stream(text);
    let mut refused = Vec::new();
    for d in &stream.documents {
        visit(&d.root, text, &removals, &insertions, &mut refused);
    }
    refused.sort_unstable();
    refused.dedup();
    refused
}

fn visit(node: &Node, text: &str, removals: &[(usize, &Edit)], insertions: &[&Edit], refused: &mut Vec<usize>) {
    match &node.value {
        NodeValue::Mapping(entries) => {
            // The fix removing each entry, if one does: a removal takes an entry's lines from
            // the start of its key's line (an entry nested in a removed one is not counted
            // as removed from its own mapping: the removal is its parent's).
            let removing: Vec<Option<usize>> = entries
                .iter()
                .map(|(k, _)| {
                    let line = line_start(text, k.span.start);
                    removals.iter().find(|(_, e)| e.range.start == line).map(|(i, _)| *i)
                })
                .collect();
            if !entries.is_empty()
                && removing.iter().all(Option::is_some)
                && !gains_entry(node, entries, text, insertions)
            {
                refused.extend(removing.into_iter().flatten().max());
            }
            for (_, v) in entries {
                visit(v, text, removals, insertions, refused);
            }
        }
        NodeValue::Sequence(items) => items.iter().for_each(|i| visit(i, text, removals, insertions, refused)),
        _ => {}
    }
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1)
}

/// Whether an insertion adds an entry to this mapping: it lands between the start of its first
/// key's line and the end of its last value's line, and its text starts at the column of the
/// mapping's keys.
fn gains_entry(node: &Node, entries: &[(Node, Node)], text: &str, insertions: &[&Edit]) -> bool {
    let Some((first, _)) = entries.first() else { return false };
    let first_line = line_start(text, first.span.start);
    let column = first.span.start - first_line;
    let end = node.span.end.min(text.len());
    let line_end = if end > 0 && text.as_bytes()[end - 1] == b'\n' {
        end
    } else {
        text[end..].find('\n').map_or(text.len(), |i| end + i + 1)
    };
    insertions.iter().any(|e| {
        let body = e.replacement.trim_start_matches(['\r', '\n']);
        let indent = body.len() - body.trim_start_matches(' ').len();
        (first_line..=line_end).contains(&e.range.start) && indent == column
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlint_core::diagnostic::{Fix, FixSafety, Rule, Severity};
    use driftlint_core::source::SourcePath;

    /// A finding whose fix removes the lines of `entry` (whole lines of `text`).
    fn removal(text: &str, entry: &str) -> Diagnostic {
        let start = text.find(entry).unwrap();
        let start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let end = start + text[start..].find(entry).unwrap() + entry.len();
        let mut d =
            Diagnostic::new(Rule::UnexpectedField, Severity::Error, SourcePath::File("a.yaml".into()), None, "");
        d.fix = Some(Box::new(Fix {
            safety: FixSafety::Unsafe,
            message: String::new(),
            edits: vec![Edit {
                path: SourcePath::File("a.yaml".into()),
                range: start..end,
                expected: text[start..end].into(),
                replacement: String::new(),
            }],
        }));
        d
    }

    #[test]
    fn only_a_mapping_losing_every_entry_is_guarded() {
        let text = "a:\n  x: 1\n  y: 2\nb:\n  c:\n    d: 1\n  e: 1\n";
        // Both entries of `a`: the last in report order is refused.
        let diags = [removal(text, "  x: 1\n"), removal(text, "  y: 2\n")];
        assert_eq!(emptying(text, &[0, 1], &diags), [1]);
        // `c` (with the mapping nested in it) and `x`: no mapping is emptied; the nested
        // mapping goes with its entry.
        let diags = [removal(text, "  c:\n    d: 1\n"), removal(text, "  x: 1\n")];
        assert!(emptying(text, &[0, 1], &diags).is_empty());
    }
}
