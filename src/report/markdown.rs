//! A Markdown summary for `$GITHUB_STEP_SUMMARY` or a pull-request comment, rendered with
//! minijinja from [`DEFAULT_MARKDOWN_TEMPLATE`] or a user's template (`--markdown-template`).
//!
//! Suppressed findings are listed in a collapsed section of their own, with their reasons.
//!
//! GitHub refuses step summaries over 1 MiB, so when the table does not fit, the least
//! important rows are dropped (see [`super::rank_key`]) until it does, and the template is told
//! how many were left out (`omitted`). The context a template sees is documented on
//! [`DEFAULT_MARKDOWN_TEMPLATE`].

use minijinja::Environment;
use serde::Serialize;

use super::{Counts, Error, Options, SourceResolver, escape, rank_key, sorted, summary_line};
use crate::diagnostic::Diagnostic;

/// The built-in template. A template sees:
/// - `tool.name`, `tool.version`;
/// - `summary.errors`, `.warnings`, `.notes`, `.suppressed` (counts over all findings) and
///   `summary.line` (`found 3 errors, 1 warning (1 suppressed)`);
/// - `diagnostics`: rows with `rule`, `severity`, `message`, `file`, `line`, `column`,
///   `location` (`file:line:column`), `object`, `field`, `help` (a list), `suppressed` (the
///   reason, or none), `fingerprint`, `rule_url` (none while driftlint has no public home);
/// - `omitted`: how many rows were dropped to fit GitHub's size limit;
/// - `scope_notes`: for a scoped run, what it left out (sentences), else empty;
/// - filters `cell` (escape text for a table cell) and `code` (an inline code span for a cell).
pub const DEFAULT_MARKDOWN_TEMPLATE: &str = r#"## driftlint

{{ summary.line }}
{% if summary.errors + summary.warnings + summary.notes > 0 %}
| Severity | Rule | Location | Object | Message |
| --- | --- | --- | --- | --- |
{% for d in diagnostics if not d.suppressed -%}
| {{ d.severity }} | {% if d.rule_url %}[{{ d.rule | code }}]({{ d.rule_url }}){% else %}{{ d.rule | code }}{% endif %} | {{ d.location | code }} | {% if d.object %}{{ d.object | code }}{% endif %} | {{ d.message | cell }}{% for h in d.help %}<br>help: {{ h | cell }}{% endfor %} |
{% endfor %}
{%- endif %}
{%- if summary.suppressed > 0 %}
<details><summary>{{ summary.suppressed }} suppressed finding{{ "s" if summary.suppressed != 1 }}</summary>

| Rule | Location | Object | Message | Reason |
| --- | --- | --- | --- | --- |
{% for d in diagnostics if d.suppressed -%}
| {% if d.rule_url %}[{{ d.rule | code }}]({{ d.rule_url }}){% else %}{{ d.rule | code }}{% endif %} | {{ d.location | code }} | {% if d.object %}{{ d.object | code }}{% endif %} | {{ d.message | cell }} | {{ d.suppressed | cell }} |
{% endfor %}
</details>
{% endif %}
{%- if omitted %}
_{{ omitted }} more finding{{ "s" if omitted != 1 }} left out to stay within GitHub's summary size limit; see the SARIF or JSON report._
{% endif %}
{%- for note in scope_notes %}
_{{ note | cell }}_
{% endfor %}
"#;

#[derive(Serialize)]
struct Row<'a> {
    rule: &'static str,
    severity: &'static str,
    message: &'a str,
    file: String,
    line: Option<usize>,
    column: Option<usize>,
    location: String,
    object: Option<&'a str>,
    field: Option<&'a str>,
    help: &'a [String],
    suppressed: Option<&'a str>,
    fingerprint: String,
    /// The rule's published documentation; none while driftlint has no public home.
    rule_url: Option<String>,
}

#[derive(Serialize)]
struct Summary {
    #[serde(flatten)]
    counts: Counts,
    line: String,
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'static str,
    version: &'a str,
}

/// Escapes text for one cell of a GitHub-flavoured Markdown table (control and bidirectional
/// characters as visible escapes, [`escape::text`]).
pub fn escape_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if escape::is_unsafe(c) && c != '\n' && c != '\r' {
            out.push_str(&escape::text(c.encode_utf8(&mut [0; 4])));
            continue;
        }
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' => out.push_str("<br>"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// An inline code span that survives a table cell: a longer backtick fence when the text holds
/// backticks, and `\|` for pipes (GitHub splits cells on them even inside code).
fn code(s: &str) -> String {
    let text = escape::text(&s.replace(['\r', '\n'], " ")).replace('|', "\\|");
    let fence = if text.contains('`') { "``" } else { "`" };
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// The Markdown summary of `diags`.
pub fn render_markdown(diags: &[Diagnostic], sources: &SourceResolver, opts: &Options) -> Result<String, Error> {
    let mut env = Environment::new();
    env.add_filter("cell", |s: String| escape_cell(&s));
    env.add_filter("code", |s: String| code(&s));
    let source = opts.markdown_template.unwrap_or(DEFAULT_MARKDOWN_TEMPLATE);
    env.add_template("summary.md", source).map_err(|e| Error::Template(e.to_string()))?;
    let template = env.get_template("summary.md").map_err(|e| Error::Template(e.to_string()))?;

    let summary = Summary { counts: Counts::of(diags), line: summary_line(diags, false) };
    let ordered = sorted(diags);
    let rows: Vec<Row> = ordered.iter().map(|d| row(d, sources)).collect();
    // Rows by importance, to drop the least important first while keeping report order.
    let mut by_rank: Vec<usize> = (0..ordered.len()).collect();
    by_rank.sort_by_key(|&i| rank_key(ordered[i]));
    let render = |keep: usize| -> Result<String, Error> {
        let mut kept = vec![false; rows.len()];
        for &i in by_rank.iter().take(keep) {
            kept[i] = true;
        }
        let selected: Vec<&Row> = rows.iter().zip(&kept).filter(|(_, k)| **k).map(|(r, _)| r).collect();
        let ctx = Context {
            tool: Tool { name: "driftlint", version: opts.tool_version },
            summary: &summary,
            diagnostics: selected,
            omitted: rows.len() - keep,
            scope_notes: opts.scope_notes,
        };
        template.render(minijinja::value::Serde(&ctx)).map_err(|e| Error::Template(e.to_string()))
    };
    let limit = opts.limits.markdown_bytes;
    let full = render(rows.len())?;
    if full.len() <= limit {
        return Ok(full);
    }
    // The largest number of rows that fits, by bisection (rendering is linear in the rows).
    let (mut lo, mut hi) = (0usize, rows.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if render(mid)?.len() <= limit { lo = mid } else { hi = mid - 1 }
    }
    let mut out = render(lo)?;
    if out.len() > limit {
        // Even without rows the template is too large: cut it on a character boundary.
        let mut end = limit;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    Ok(out)
}

#[derive(Serialize)]
struct Context<'a> {
    tool: Tool<'a>,
    summary: &'a Summary,
    diagnostics: Vec<&'a Row<'a>>,
    omitted: usize,
    scope_notes: &'a [String],
}

fn row<'a>(d: &'a Diagnostic, sources: &SourceResolver) -> Row<'a> {
    let loc = sources.location(&d.primary);
    let file = d.primary.path.display();
    let location = match loc {
        Some(l) => format!("{file}:{}:{}", l.line, l.column),
        None => file.clone(),
    };
    Row {
        rule: d.rule.id(),
        severity: d.severity.as_str(),
        message: &d.message,
        file,
        line: loc.map(|l| l.line),
        column: loc.map(|l| l.column),
        location,
        object: d.object.as_deref(),
        field: d.field.as_deref(),
        help: &d.help,
        suppressed: d.suppressed.as_deref(),
        fingerprint: d.fingerprint(),
        rule_url: crate::rules::doc_url(d.rule),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_code_spans_survive_tables() {
        assert_eq!(escape_cell("a|b <c> & d\r\ne"), "a\\|b &lt;c&gt; &amp; d<br>e");
        assert_eq!(code("x|y"), "`x\\|y`");
        assert_eq!(escape_cell("a\u{1b}[2K\u{202e}"), "a\\x1b[2K\\u{202e}");
        assert_eq!(code("a\u{1b}b"), "`a\\x1bb`");
        assert_eq!(code("use `kubectl`"), "`` use `kubectl` ``");
    }
}
