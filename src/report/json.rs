//! driftlint's own JSON output, a stable schema documented in `docs/json-schema.md`.
//!
//! Bump [`JSON_SCHEMA_VERSION`] on any change that is not a pure addition of a field.
//! Suppressed findings are included (with `suppressed` set) so that tools can audit them.

use serde::Serialize;

use super::{Counts, Location, Options, SourceResolver, sorted};
use driftlint_core::diagnostic::{Diagnostic, FixSafety, Label};

/// The `version` field of the JSON output.
pub const JSON_SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Report<'a> {
    version: u32,
    tool: Tool<'a>,
    summary: Summary,
    diagnostics: Items<'a>,
}

/// The findings in report order, made into [`Item`]s a block at a time while they are written:
/// a block's items are made in parallel (their positions and fingerprints are most of the
/// work), and only one block's are held at once.
struct Items<'a> {
    sorted: Vec<&'a Diagnostic>,
    sources: &'a SourceResolver<'a>,
}

/// Findings made into items at once.
const ITEM_BLOCK: usize = 1024;

impl Serialize for Items<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use rayon::prelude::*;
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.sorted.len()))?;
        for block in self.sorted.chunks(ITEM_BLOCK) {
            let items: Vec<Item> = block.par_iter().map(|d| item(d, self.sources)).collect();
            for item in &items {
                seq.serialize_element(item)?;
            }
        }
        seq.end()
    }
}

/// One finding as the report writes it.
fn item<'a>(d: &'a Diagnostic, sources: &SourceResolver) -> Item<'a> {
    Item {
        rule: d.rule.id(),
        severity: d.severity.as_str(),
        message: &d.message,
        span: span(&d.primary, sources),
        object: d.object.as_deref(),
        field: d.field.as_deref(),
        fingerprint: d.fingerprint(),
        labels: std::iter::once((&d.primary, true))
            .chain(d.secondary.iter().map(|l| (l, false)))
            .map(|(l, primary)| LabelItem { primary, span: span(l, sources), message: l.message.as_deref() })
            .collect(),
        help: &d.help,
        suppressed: d.suppressed.as_deref(),
        fix: d.fix.as_deref().map(|f| FixItem {
            safety: match f.safety {
                FixSafety::Safe => "safe",
                FixSafety::Unsafe => "unsafe",
            },
            message: &f.message,
            edits: f
                .edits
                .iter()
                .map(|e| {
                    let label = Label { path: e.path.clone(), range: Some(e.range.clone()), message: None };
                    let loc = sources.location(&label);
                    EditItem {
                        file: e.path.display(),
                        line: loc.map(|l| l.line),
                        column: loc.map(|l| l.column),
                        end_line: loc.map(|l| l.end_line),
                        end_column: loc.map(|l| l.end_column),
                        start: e.range.start,
                        end: e.range.end,
                        expected: &e.expected,
                        replacement: &e.replacement,
                    }
                })
                .collect(),
        }),
    }
}

/// A finding's fix: `safety` (`safe`: applied by `--fix`; `unsafe`: with `--unsafe-fixes`)
/// and its edits, each with its place as lines and columns and as byte offsets.
#[derive(Serialize)]
struct FixItem<'a> {
    safety: &'static str,
    message: &'a str,
    edits: Vec<EditItem<'a>>,
}

#[derive(Serialize)]
struct EditItem<'a> {
    file: String,
    line: Option<usize>,
    column: Option<usize>,
    end_line: Option<usize>,
    end_column: Option<usize>,
    /// Byte offsets in the file as it was checked.
    start: usize,
    end: usize,
    /// The bytes the edit replaces: it applies only where the file still holds them.
    expected: &'a str,
    replacement: &'a str,
}

/// The counts of findings, and of the objects the schema pass validated when it ran.
#[derive(Serialize)]
struct Summary {
    #[serde(flatten)]
    counts: Counts,
    #[serde(skip_serializing_if = "Option::is_none")]
    objects: Option<serde_json::Value>,
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'static str,
    version: &'a str,
}

#[derive(Serialize)]
struct Item<'a> {
    rule: &'static str,
    severity: &'static str,
    message: &'a str,
    #[serde(flatten)]
    span: Span<'a>,
    object: Option<&'a str>,
    field: Option<&'a str>,
    fingerprint: String,
    labels: Vec<LabelItem<'a>>,
    help: &'a [String],
    suppressed: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<FixItem<'a>>,
}

/// `file` always; positions are null when the finding has no range or its text is unknown.
#[derive(Serialize)]
struct Span<'a> {
    file: std::borrow::Cow<'a, str>,
    line: Option<usize>,
    column: Option<usize>,
    end_line: Option<usize>,
    end_column: Option<usize>,
}

#[derive(Serialize)]
struct LabelItem<'a> {
    primary: bool,
    #[serde(flatten)]
    span: Span<'a>,
    message: Option<&'a str>,
}

fn span<'a>(label: &'a Label, sources: &SourceResolver) -> Span<'a> {
    let loc: Option<Location> = sources.location(label);
    Span {
        file: label.path.name(),
        line: loc.map(|l| l.line),
        column: loc.map(|l| l.column),
        end_line: loc.map(|l| l.end_line),
        end_column: loc.map(|l| l.end_column),
    }
}

/// The JSON document for `diags`, pretty-printed, in report order.
pub fn render_json(diags: &[Diagnostic], sources: &SourceResolver, opts: &Options) -> String {
    let mut out = Vec::new();
    // Writing plain structs of strings and numbers into memory cannot fail.
    let _ = write_json(&mut out, diags, sources, opts);
    String::from_utf8(out).unwrap_or_default()
}

/// [`render_json`] written to `out` as it is serialized (a report of tens of thousands of
/// findings is tens of megabytes).
pub fn write_json(
    out: &mut dyn std::io::Write,
    diags: &[Diagnostic],
    sources: &SourceResolver,
    opts: &Options,
) -> std::io::Result<()> {
    let report = Report {
        version: JSON_SCHEMA_VERSION,
        tool: Tool { name: "driftlint", version: opts.tool_version },
        summary: Summary { counts: Counts::of(diags), objects: opts.coverage.map(|c| c.to_json()) },
        diagnostics: Items { sorted: sorted(diags), sources },
    };
    // Through a buffer of a known type: the serializer's many small writes stay inlined copies
    // instead of calls through `dyn Write`.
    use std::io::Write as _;
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut buffered, &report)?;
    buffered.write_all(b"\n")?;
    buffered.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlint_core::diagnostic::Rule;
    use driftlint_core::input::{Source, SourcePath};

    /// Written a block at a time, the items are every finding once, in report order, each
    /// located in its own text, across block boundaries.
    #[test]
    fn items_are_written_in_report_order_across_blocks() {
        let n = ITEM_BLOCK * 2 + 7;
        let text: String = (0..n).map(|i| format!("k{i}: v\n")).collect();
        let path = SourcePath::File("a.yaml".into());
        let offsets: Vec<usize> = text.match_indices('k').map(|(at, _)| at).collect();
        // Made in reverse, so that report order is not the order given.
        let diags: Vec<Diagnostic> = (0..n)
            .rev()
            .map(|i| {
                Diagnostic::of(
                    Rule::DuplicateKey,
                    path.clone(),
                    Some(offsets[i]..offsets[i] + 2),
                    format!("finding {i}"),
                )
            })
            .collect();
        let sources = vec![Source { path, text }];
        let resolver = SourceResolver::from_sources(&sources);
        let json: serde_json::Value =
            serde_json::from_str(&render_json(&diags, &resolver, &Options::default())).unwrap();
        let items = json["diagnostics"].as_array().unwrap();
        assert_eq!(items.len(), n);
        for (i, item) in items.iter().enumerate() {
            assert_eq!(item["message"], format!("finding {i}"));
            assert_eq!(item["line"], i + 1);
            assert_eq!(item["file"], "a.yaml");
            assert_eq!(item["fingerprint"], diags[n - 1 - i].fingerprint());
        }
    }
}
