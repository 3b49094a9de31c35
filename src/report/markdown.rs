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

use super::{Counts, Error, Options, SourceResolver, rank_key, sorted};
use driftlint_core::diagnostic::Diagnostic;
use driftlint_core::escape;

/// The built-in template. A template sees:
/// - `tool.name`, `tool.version`;
/// - `summary.errors`, `.warnings`, `.notes`, `.suppressed` (counts over all findings) and
///   `summary.line` (`found 3 errors, 1 warning (1 suppressed)`);
/// - `diagnostics`: rows with `rule`, `severity`, `message`, `file`, `line`, `column`,
///   `location` (`file:line:column`), `object`, `field`, `help` (a list), `suppressed` (the
///   reason, or none), `fingerprint`, `rule_url` (none while driftlint has no public home);
/// - `omitted`: how many rows were dropped to fit GitHub's size limit;
/// - `scope_notes`: for a scoped run, what it left out (sentences), else empty;
/// - filters `cell` (escape text for a table cell), `code` (an inline code span for a cell) and
///   `text` (`cell`, except that the text's own backtick code spans stay code spans: for
///   `message` and `help`).
///
/// Every string from the checked repository that a template prints without one of these
/// filters is escaped as `cell` does; driftlint's own (`rule`, `severity`, `rule_url`,
/// `fingerprint`, `summary.line`) are printed as they are. `scope_notes` are driftlint's
/// sentences about revisions named on the command line: the `note` filter escapes their HTML
/// and pipes and leaves their Markdown (code spans) working.
pub const DEFAULT_MARKDOWN_TEMPLATE: &str = r#"## driftlint

{{ summary.line }}
{% if summary.errors + summary.warnings + summary.notes > 0 %}
| Severity | Rule | Location | Object | Message |
| --- | --- | --- | --- | --- |
{% for d in diagnostics if not d.suppressed -%}
| {{ d.severity }} | {% if d.rule_url %}[{{ d.rule | code }}]({{ d.rule_url }}){% else %}{{ d.rule | code }}{% endif %} | {{ d.location | code }} | {% if d.object %}{{ d.object | code }}{% endif %} | {{ d.message | text }}{% for h in d.help %}<br>help: {{ h | text }}{% endfor %} |
{% endfor %}
{%- endif %}
{%- if summary.suppressed > 0 %}
<details><summary>{{ summary.suppressed }} suppressed finding{{ "s" if summary.suppressed != 1 }}</summary>

| Rule | Location | Object | Message | Reason |
| --- | --- | --- | --- | --- |
{% for d in diagnostics if d.suppressed -%}
| {% if d.rule_url %}[{{ d.rule | code }}]({{ d.rule_url }}){% else %}{{ d.rule | code }}{% endif %} | {{ d.location | code }} | {% if d.object %}{{ d.object | code }}{% endif %} | {{ d.message | text }} | {{ d.suppressed | cell }} |
{% endfor %}
</details>
{% endif %}
{%- if omitted %}
_{{ omitted }} more finding{{ "s" if omitted != 1 }} left out to stay within GitHub's summary size limit; see the SARIF or JSON report._
{% endif %}
{%- for note in scope_notes %}
_{{ note | note }}_
{% endfor %}
"#;

/// A row's fields. driftlint's own strings (rule, severity, fingerprint, rule URL) are marked
/// safe and printed as they are; everything the repository controls is escaped when printed
/// without `cell`/`code` (see [`format_value`]).
#[derive(Serialize)]
struct Row<'a> {
    rule: Safe,
    severity: Safe,
    message: &'a str,
    file: String,
    line: Option<usize>,
    column: Option<usize>,
    location: String,
    object: Option<&'a str>,
    field: Option<&'a str>,
    help: &'a [String],
    suppressed: Option<&'a str>,
    fingerprint: Safe,
    /// The rule's published documentation; none while driftlint has no public home.
    rule_url: Safe,
}

/// A string of driftlint's own, printed unescaped.
type Safe = minijinja::Value;

fn safe(s: impl Into<String>) -> Safe {
    minijinja::Value::from_safe_string(s.into())
}

#[derive(Serialize)]
struct Summary {
    #[serde(flatten)]
    counts: Counts,
    line: Safe,
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'static str,
    version: &'a str,
}

/// Escapes text for one cell of a GitHub-flavoured Markdown table: control and bidirectional
/// characters as visible escapes ([`escape::text`]), `<`, `>` and `&` as HTML entities (no raw
/// HTML such as `<img onerror>`), and every ASCII punctuation character Markdown or GitHub could
/// read as syntax backslash-escaped — emphasis, links and images (`![x](…)`, `[x](javascript:…)`),
/// code spans, autolinks (`:`, `.` and `@` break `http://`, `www.` and e-mail autolinks), math
/// (`$`) and the table's own `|`. What remains renders as the text it was.
pub fn escape_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if escape::is_unsafe(c) && c != '\n' && c != '\r' {
            out.push_str(&escape::text(c.encode_utf8(&mut [0; 4])));
            continue;
        }
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' => out.push_str("<br>"),
            '\r' => {}
            c if is_markdown_syntax(c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A sentence of driftlint's for a table-less line: control characters escaped, HTML as
/// entities, pipes escaped; Markdown kept.
fn escape_note(s: &str) -> String {
    escape::text(s).replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('|', "\\|")
}

/// The ASCII punctuation a CommonMark/GFM renderer (or GitHub's extensions: autolinks, math,
/// mentions) may read as syntax inside a table cell. All of them may be backslash-escaped.
fn is_markdown_syntax(c: char) -> bool {
    matches!(
        c,
        '\\' | '`'
            | '*'
            | '_'
            | '['
            | ']'
            | '('
            | ')'
            | '!'
            | '#'
            | '+'
            | '-'
            | '.'
            | '~'
            | '{'
            | '}'
            | ':'
            | '@'
            | '$'
            | '|'
            | '='
            | '"'
            | '\''
    )
}

/// Inline code for a table cell. A CommonMark code span is used for plain text (letters,
/// digits, spaces, backticks and the punctuation of paths, locations and object names): its
/// fence is one backtick longer than the longest backtick run of the text (CommonMark's rule,
/// so that no run inside can close it), with a space inside each end when the text starts or
/// ends with a backtick or with spaces (the renderer strips one each side). Any other text
/// becomes `<code>` around the cell escaping of [`escape_cell`], which GitHub renders alike: a
/// code span cannot hold it safely, since GitHub splits table cells on `|` even inside code,
/// where a backslash before it cannot be escaped (`\\|` would end the cell, and the rest of
/// the text would be read as Markdown).
fn code(s: &str) -> String {
    let text = escape::text(&s.replace(['\r', '\n'], " ")).into_owned();
    if text.is_empty() {
        return String::new();
    }
    let plain =
        text.chars().all(|c| c.is_alphanumeric() || matches!(c, ' ' | '/' | '.' | ':' | '-' | '_' | ',' | '=' | '`'));
    if !plain {
        return format!("<code>{}</code>", escape_cell(&text));
    }
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = text.starts_with(['`', ' ']) || text.ends_with(['`', ' ']);
    let pad = if pad { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// A finding's text (a message or a help note) for a table cell: its code spans — driftlint
/// writes field paths, values and names between backticks — stay code spans ([`code`]), the
/// text between them is escaped as [`escape_cell`] escapes a cell. Spans are found as a
/// CommonMark renderer finds them: a backtick run opens one that the next run of the same
/// length closes; a run that nothing closes is literal text. A value that holds backticks
/// itself may split a span differently than the message meant, never into Markdown or HTML.
fn text_with_code(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    let mut rest = s;
    while let Some(open) = rest.find('`') {
        out.push_str(&escape_cell(&rest[..open]));
        let after = &rest[open..];
        let run = after.len() - after.trim_start_matches('`').len();
        let body = &after[run..];
        match closing_run(body, run) {
            Some(close) => {
                let mut content = body[..close].replace(['\r', '\n'], " ");
                // CommonMark strips one space each side of a span's content when both are there.
                if content.len() >= 2 && content.starts_with(' ') && content.ends_with(' ') && content.trim() != "" {
                    content = content[1..content.len() - 1].to_string();
                }
                out.push_str(&code(&content));
                rest = &body[close + run..];
            }
            None => {
                out.push_str(&escape_cell(&after[..run]));
                rest = body;
            }
        }
    }
    out.push_str(&escape_cell(rest));
    out
}

/// Where in `text` a backtick run of exactly `len` starts, if one does.
fn closing_run(text: &str, len: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
            if run == len {
                return Some(i);
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

/// Prints a value the template did not pass through `cell` or `code`: every string is escaped
/// as a table cell, so a user's template that prints `{{ d.file }}` cannot let a file name's
/// Markdown or HTML through either. The filters' results (and `| safe`) are printed as they are.
fn format_value(
    out: &mut minijinja::Output,
    _: &mut minijinja::State,
    value: &minijinja::Value,
) -> Result<(), minijinja::Error> {
    let written = match value.as_str() {
        Some(s) if !value.is_safe() => out.write_str(&escape_cell(s)),
        _ => write!(out, "{value}"),
    };
    written.map_err(|_| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, "cannot write the summary"))
}

/// The Markdown summary of `diags`.
pub fn render_markdown(diags: &[Diagnostic], sources: &SourceResolver, opts: &Options) -> Result<String, Error> {
    let mut env = Environment::new();
    env.add_filter("cell", |s: String| minijinja::Value::from_safe_string(escape_cell(&s)));
    env.add_filter("code", |s: String| minijinja::Value::from_safe_string(code(&s)));
    env.add_filter("text", |s: String| minijinja::Value::from_safe_string(text_with_code(&s)));
    env.add_filter("note", |s: String| minijinja::Value::from_safe_string(escape_note(&s)));
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Custom("markdown".into()));
    env.set_formatter(format_value);
    let source = opts.markdown_template.unwrap_or(DEFAULT_MARKDOWN_TEMPLATE);
    env.add_template("summary.md", source).map_err(|e| Error::Template(e.to_string()))?;
    let template = env.get_template("summary.md").map_err(|e| Error::Template(e.to_string()))?;

    let summary = Summary {
        counts: Counts::of(diags),
        line: safe(super::human::summary_line_counted(diags, false, opts.coverage)),
    };
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
        rule: safe(d.rule.id()),
        severity: safe(d.severity.as_str()),
        message: &d.message,
        file,
        line: loc.map(|l| l.line),
        column: loc.map(|l| l.column),
        location,
        object: d.object.as_deref(),
        field: d.field.as_deref(),
        help: &d.help,
        suppressed: d.suppressed.as_deref(),
        fingerprint: safe(d.fingerprint()),
        rule_url: driftlint_core::rules::doc_url(d.rule).map_or_else(|| minijinja::Value::from(()), safe),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_code_spans_survive_tables() {
        assert_eq!(escape_cell("a|b <c> & d\r\ne"), "a\\|b &lt;c&gt; &amp; d<br>e");
        assert_eq!(code("x|y"), "<code>x\\|y</code>");
        assert_eq!(code("web/settings"), "`web/settings`");
        assert_eq!(escape_cell("a\u{1b}[2K\u{202e}"), "a\\x1b\\[2K\\u{202e}");
        assert_eq!(code("a\u{1b}b"), "<code>a\\\\x1bb</code>");
        // Backticks in a plain text: a longer fence, padded where the text touches it.
        assert_eq!(code("use `kubectl`"), "`` use `kubectl` ``");
        assert_eq!(code("a``b"), "```a``b```");
        assert_eq!(code(" x"), "`  x `");
    }

    /// A message's code spans render as code: no backslash before their backticks.
    #[test]
    fn code_spans_of_messages_stay_code_spans() {
        assert_eq!(
            text_with_code("`/data/log-level` is `debug`, the reference expects `info`"),
            "`/data/log-level` is `debug`, the reference expects `info`"
        );
        // The text around the spans is escaped as a cell; a value that is no plain text is
        // `<code>` with its Markdown escaped.
        assert_eq!(text_with_code("`[x](y)` *and* `a|b`"), "<code>\\[x\\]\\(y\\)</code> \\*and\\* <code>a\\|b</code>");
        // A double-backtick span holding a backtick, as CommonMark reads it; a run nothing
        // closes is text.
        assert_eq!(text_with_code("``a`b`` and ` alone"), "``a`b`` and \\` alone");
        for s in HOSTILE {
            let out = text_with_code(s);
            assert!(!out.contains("<img") && !out.contains("](") && !out.contains("http://evil"), "{out}");
        }
    }

    /// What a pull request may put in a file name, a value or an object name, and what must
    /// not come out of the summary raw: HTML, images, links, autolinks, code-span breaks.
    const HOSTILE: [&str; 8] = [
        "<img src=x onerror=alert(1)>",
        "![x](http://evil.example/a.png)",
        "[x](javascript:alert(1))",
        "a`b``c```",
        "\\|![x](http://evil.example/b.png)",
        "http://evil.example www.evil.example me@evil.example",
        "<details><summary>x",
        "**bold** _it_ $x^2$ ~~s~~",
    ];

    /// The characters that open Markdown or HTML syntax, each preceded by an odd number of
    /// backslashes (escaped) or written as an entity: none is left to act as syntax.
    fn assert_inert(out: &str) {
        assert!(
            !out.contains('<')
                || out.matches('<').count()
                    == out.matches("<br>").count() + out.matches("<code>").count() + out.matches("</code>").count(),
            "raw HTML in {out:?}"
        );
        let bytes = out.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if matches!(b, b'[' | b']' | b'(' | b')' | b'!' | b'`' | b'*' | b'_' | b':' | b'$' | b'|' | b'~') {
                let backslashes = bytes[..i].iter().rev().take_while(|&&c| c == b'\\').count();
                assert!(backslashes % 2 == 1, "unescaped {:?} at {i} in {out:?}", b as char);
            }
        }
    }

    #[test]
    fn markdown_and_html_in_cells_and_code_render_as_text() {
        for s in HOSTILE {
            assert_inert(&escape_cell(s));
            let c = code(s);
            if let Some(inner) = c.strip_prefix("<code>").and_then(|c| c.strip_suffix("</code>")) {
                assert_inert(inner);
            } else {
                // A plain span: a fence longer than any backtick run inside, no pipe or backslash.
                let fence = c.len() - c.trim_start_matches('`').len();
                let inner = &c[fence..c.len() - fence];
                let longest = inner.split(|c| c != '`').map(str::len).max().unwrap_or(0);
                assert!(c.ends_with(&"`".repeat(fence)) && longest < fence && !inner.contains(['|', '\\']), "{c:?}");
            }
        }
    }

    /// Every field a template can print: unfiltered strings are escaped too, so a user's
    /// `--markdown-template` printing `{{ d.file }}` cannot pass HTML or links through.
    #[test]
    fn every_field_a_template_prints_is_escaped() {
        use driftlint_core::diagnostic::{Rule, Severity};
        use driftlint_core::input::SourcePath;
        let hostile = HOSTILE.join(" ");
        let path = SourcePath::File(HOSTILE[1].into());
        let mut d = Diagnostic::new(Rule::ValueDrift, Severity::Error, path, None, hostile.clone());
        d.object = Some(hostile.clone());
        d.field = Some(hostile.clone());
        d.help = vec![hostile.clone()];
        let sources = SourceResolver::default();
        let fields = "{% for d in diagnostics %}{{ d.message }} {{ d.file }} {{ d.location }} {{ d.object }} {{ d.field }} {{ d.help[0] }}{% endfor %}";
        for template in [DEFAULT_MARKDOWN_TEMPLATE, fields] {
            let opts = Options { markdown_template: Some(template), ..Options::default() };
            let out = render_markdown(std::slice::from_ref(&d), &sources, &opts).unwrap();
            assert!(!out.contains("<img") && !out.contains("<details><summary>x"), "{out}");
            assert!(!out.contains("](http://evil") && !out.contains("](javascript") && !out.contains("![x]("), "{out}");
            assert!(!out.contains("http://evil") && !out.contains("www.evil"), "autolink in {out}");
        }
        // The suppressed section prints the reason too.
        d.suppressed = Some(hostile.clone());
        let out = render_markdown(std::slice::from_ref(&d), &sources, &Options::default()).unwrap();
        assert!(!out.contains("<img") && !out.contains("](http://evil") && !out.contains("http://evil"), "{out}");
    }
}
