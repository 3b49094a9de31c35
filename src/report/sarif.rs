//! SARIF 2.1.0 (through `serde-sarif`'s generated types) for GitHub code scanning and other
//! SARIF viewers.
//!
//! What code scanning needs, and this guarantees: one run; a rules table with the text of
//! `driftlint explain`; `results` present even when empty; artifact URIs relative to the
//! repository root with `uriBaseId` `%SRCROOT%`; 1-based lines and columns; `partialFingerprints`
//! from [`Diagnostic::fingerprint`] (rule, path, object, field — never line numbers), so an
//! alert survives edits above it; suppressed findings as `suppressions` with their
//! justification; and GitHub's limits (25,000 results, 10 MB), by dropping the least important
//! results and saying so in a closing note result.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde_sarif::sarif;

use super::{Options, SourceResolver, rank_key, sorted};
use driftlint_core::diagnostic::{Diagnostic, Label, Rule, Severity};
use driftlint_core::input::SourcePath;
use driftlint_core::rules;

const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const SRCROOT: &str = "%SRCROOT%";
/// The rule id of the note result that reports truncation (not a finding rule).
const TRUNCATED_RULE: &str = "truncated-report";

fn level(severity: Severity) -> sarif::ResultLevel {
    match severity {
        Severity::Error => sarif::ResultLevel::Error,
        Severity::Warning => sarif::ResultLevel::Warning,
        Severity::Note => sarif::ResultLevel::Note,
    }
}

fn config_level(severity: Severity) -> sarif::ReportingConfigurationLevel {
    match severity {
        Severity::Error => sarif::ReportingConfigurationLevel::Error,
        Severity::Warning => sarif::ReportingConfigurationLevel::Warning,
        Severity::Note => sarif::ReportingConfigurationLevel::Note,
    }
}

/// How paths become artifact URIs.
struct Uris<'a> {
    root: Option<PathBuf>,
    cwd: Option<PathBuf>,
    /// A reference read from git, whose files map to the work tree.
    pinned: Option<&'a driftlint_reference::Pinned>,
}

impl<'a> Uris<'a> {
    fn new(opts: &Options<'a>) -> Uris<'a> {
        let cwd = opts.cwd.map(Path::to_path_buf).or_else(|| std::env::current_dir().ok()).map(|c| normalize(&c));
        // Without a root, paths are relative to the working directory, as users gave them.
        let root = match opts.root {
            Some(r) => Some(match &cwd {
                Some(cwd) if r.is_relative() => normalize(&cwd.join(r)),
                _ => normalize(r),
            }),
            None => cwd.clone(),
        };
        Uris { root, cwd, pinned: opts.pinned }
    }

    /// A file of a reference read from git (`git:v1:reference/x.yaml`) as its work tree copy
    /// (`reference/x.yaml`), with the commit it was read at; other paths as they are.
    fn local<'p>(&self, p: &'p Path) -> (std::borrow::Cow<'p, Path>, Option<&str>) {
        if let Some(pinned) = self.pinned
            && let Some(name) = p.to_str().and_then(|s| s.strip_prefix(pinned.prefix.as_str()))
        {
            return (std::borrow::Cow::Owned(pinned.work_dir.join(name)), Some(&pinned.commit));
        }
        (std::borrow::Cow::Borrowed(p), None)
    }

    /// `path` relative to the root, when it is under it.
    fn under_root(&self, p: &Path) -> Option<PathBuf> {
        let (p, _) = self.local(p);
        let p = p.as_ref();
        let abs = match &self.cwd {
            Some(cwd) if p.is_relative() => normalize(&cwd.join(p)),
            _ => normalize(p),
        };
        abs.strip_prefix(self.root.as_ref()?).ok().map(Path::to_path_buf)
    }

    /// The URI of `path` and its base id: relative to `%SRCROOT%` when under the root, else a
    /// `file://` URI (absolute) or the path as given. A file of a reference read from git is
    /// its work tree copy, described with the commit its lines come from.
    fn artifact(&self, path: &SourcePath) -> sarif::ArtifactLocation {
        let SourcePath::File(p) = path else {
            return sarif::ArtifactLocation::builder().uri("stdin").build();
        };
        let (p, commit) = self.local(p);
        let abs = match &self.cwd {
            Some(cwd) if p.is_relative() => normalize(&cwd.join(&p)),
            _ => normalize(&p),
        };
        let mut location = if let Some(rel) = self.root.as_ref().and_then(|root| abs.strip_prefix(root).ok()) {
            sarif::ArtifactLocation::builder().uri(encode_path(rel)).uri_base_id(SRCROOT).build()
        } else if abs.is_absolute() {
            sarif::ArtifactLocation::builder().uri(format!("file://{}", encode_path(&abs))).build()
        } else {
            sarif::ArtifactLocation::builder().uri(encode_path(&p)).build()
        };
        if let Some(commit) = commit {
            let text = format!("the pinned reference's file at commit {commit}; the working tree may differ");
            location.description = Some(sarif::Message::builder().text(text).build());
        }
        location
    }

    /// `originalUriBaseIds`, so that viewers other than GitHub can find the files.
    fn base_ids(&self) -> Option<BTreeMap<String, sarif::ArtifactLocation>> {
        let root = self.root.as_ref().filter(|r| r.is_absolute())?;
        let mut uri = format!("file://{}", encode_path(root));
        if !uri.ends_with('/') {
            uri.push('/');
        }
        Some(BTreeMap::from([(SRCROOT.to_string(), sarif::ArtifactLocation::builder().uri(uri).build())]))
    }
}

/// `path` as GitHub names files in workflow commands: relative to the repository root
/// (`opts.root`) when it is under it, else as given.
pub(super) fn repo_path(path: &Path, opts: &Options) -> String {
    let rel = Uris::new(opts).under_root(path);
    rel.as_deref().unwrap_or(path).to_string_lossy().replace('\\', "/")
}

/// `.` and `..` removed lexically (symlinks are not resolved: the paths are the user's).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A path as a URI path: forward slashes, and percent-encoding for everything but unreserved
/// characters and the sub-delimiters that are safe in a path (`:` is encoded, since in a first
/// segment it would read as a scheme).
fn encode_path(p: &Path) -> String {
    let s = p.to_string_lossy().replace('\\', "/");
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn location(label: &Label, sources: &SourceResolver, uris: &Uris) -> sarif::Location {
    // Standard input is no artifact a viewer can open (a finding that helm's or kustomize's
    // metadata mapped back to its source file is labelled with that file): the location says
    // where in the input it is, in words, and has no physical location.
    if label.path == SourcePath::Stdin {
        let text = match sources.location(label) {
            Some(loc) => format!("standard input, line {}, column {}", loc.line, loc.column),
            None => "standard input".to_string(),
        };
        return sarif::Location::builder().message(sarif::Message::builder().text(text).build()).build();
    }
    let mut physical = sarif::PhysicalLocation::builder().artifact_location(uris.artifact(&label.path)).build();
    if let Some(loc) = sources.location(label) {
        physical.region = Some(
            sarif::Region::builder()
                .start_line(loc.line as i64)
                .start_column(loc.column as i64)
                .end_line(loc.end_line as i64)
                .end_column(loc.end_column as i64)
                .build(),
        );
    }
    sarif::Location::builder().physical_location(physical).build()
}

/// A finding's fix as SARIF `fixes[]`: one `artifactChanges` entry per file, each edit a
/// `replacements` entry whose `deletedRegion` has lines and columns as every other region
/// here, and the byte offset and length in the file as it was checked (SARIF §3.30: a
/// region may carry both). An unsafe fix says so in its description and properties.
fn sarif_fix(fix: &driftlint_core::diagnostic::Fix, sources: &SourceResolver, uris: &Uris) -> sarif::Fix {
    let mut changes: Vec<sarif::ArtifactChange> = Vec::new();
    let mut paths: Vec<&SourcePath> = Vec::new();
    for e in &fix.edits {
        let label = Label { path: e.path.clone(), range: Some(e.range.clone()), message: None };
        let mut region =
            sarif::Region::builder().byte_offset(e.range.start as i64).byte_length(e.range.len() as i64).build();
        if let Some(loc) = sources.location(&label) {
            region.start_line = Some(loc.line as i64);
            region.start_column = Some(loc.column as i64);
            region.end_line = Some(loc.end_line as i64);
            region.end_column = Some(loc.end_column as i64);
        }
        let replacement = sarif::Replacement::builder()
            .deleted_region(region)
            .inserted_content(sarif::ArtifactContent::builder().text(e.replacement.as_str()).build())
            .build();
        match paths.iter().position(|p| **p == e.path) {
            Some(i) => changes[i].replacements.push(replacement),
            None => {
                paths.push(&e.path);
                changes.push(
                    sarif::ArtifactChange::builder()
                        .artifact_location(uris.artifact(&e.path))
                        .replacements(vec![replacement])
                        .build(),
                );
            }
        }
    }
    let (safety, note) = match fix.safety {
        driftlint_core::diagnostic::FixSafety::Safe => ("safe", ""),
        driftlint_core::diagnostic::FixSafety::Unsafe => ("unsafe", " (unsafe: review before applying)"),
    };
    let mut out = sarif::Fix::builder()
        .artifact_changes(changes)
        .description(sarif::Message::builder().text(format!("{}{note}", fix.message)).build())
        .build();
    out.properties = Some(
        sarif::PropertyBag::builder()
            .additional_properties(BTreeMap::from([("safety".to_string(), serde_json::Value::from(safety))]))
            .build(),
    );
    out
}

fn descriptor(rule: Rule) -> sarif::ReportingDescriptor {
    let doc = rules::doc(rule);
    let mut descriptor = sarif::ReportingDescriptor::builder()
        .id(rule.id())
        .short_description(sarif::MultiformatMessageString::builder().text(doc.summary).build())
        .full_description(sarif::MultiformatMessageString::builder().text(doc.what.replace('\n', " ")).build())
        .help(
            sarif::MultiformatMessageString::builder()
                .text(rules::explain_text(rule))
                .markdown(rules::explain_markdown(rule, 1))
                .build(),
        )
        .default_configuration(
            sarif::ReportingConfiguration::builder().level(config_level(doc.default_severity).to_string()).build(),
        )
        .build();
    descriptor.help_uri = rules::doc_url(rule);
    descriptor
}

fn result(d: &Diagnostic, sources: &SourceResolver, uris: &Uris) -> sarif::Result {
    let rule_index = Rule::ALL.iter().position(|r| *r == d.rule).unwrap_or(0) as i64;
    let mut result = sarif::Result::builder()
        .rule_id(d.rule.id())
        .rule_index(rule_index)
        .level(level(d.severity))
        .message(sarif::Message::builder().text(d.message.as_str()).build())
        .locations(vec![location(&d.primary, sources, uris)])
        .partial_fingerprints(BTreeMap::from([("driftlint/v1".to_string(), d.fingerprint())]))
        .build();
    if !d.secondary.is_empty() {
        let related = d
            .secondary
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut loc = location(l, sources, uris);
                loc.id = Some(i as i64);
                // The label's own words, after the place on standard input when that is all
                // the location has.
                let place = loc.message.take().and_then(|m| m.text);
                let text = match (place, l.message.as_deref()) {
                    (Some(place), Some(m)) => Some(format!("{m} ({place})")),
                    (place, m) => m.map(str::to_string).or(place),
                };
                loc.message = text.map(|m| sarif::Message::builder().text(m).build());
                loc
            })
            .collect();
        result.related_locations = Some(related);
    }
    if let Some(fix) = d.fix.as_deref().filter(|f| f.edits.iter().all(|e| e.path != SourcePath::Stdin)) {
        result.fixes = Some(vec![sarif_fix(fix, sources, uris)]);
    }
    if let Some(reason) = &d.suppressed {
        result.suppressions = Some(vec![
            sarif::Suppression::builder()
                .kind(sarif::SupressionKind::InSource.to_string())
                .status(sarif::SupressionStatus::Accepted.to_string())
                .justification(reason.as_str())
                .build(),
        ]);
    }
    let mut props = BTreeMap::new();
    if let Some(object) = &d.object {
        props.insert("object".to_string(), serde_json::Value::from(object.as_str()));
    }
    if let Some(field) = &d.field {
        props.insert("field".to_string(), serde_json::Value::from(field.as_str()));
    }
    if !d.help.is_empty() {
        props.insert("help".to_string(), serde_json::Value::from(d.help.clone()));
    }
    if !props.is_empty() {
        result.properties = Some(sarif::PropertyBag::builder().additional_properties(props).build());
    }
    result
}

/// The note result that closes a truncated run.
fn truncation_note(omitted: usize, first_omitted: &Diagnostic, uris: &Uris) -> sarif::Result {
    let text = format!(
        "driftlint found {omitted} more results than shown here; they were left out to stay within \
         GitHub code scanning's limits (25,000 results, 10 MB). See the JSON or human output for all findings."
    );
    let physical =
        sarif::PhysicalLocation::builder().artifact_location(uris.artifact(&first_omitted.primary.path)).build();
    sarif::Result::builder()
        .rule_id(TRUNCATED_RULE)
        .level(sarif::ResultLevel::Note)
        .message(sarif::Message::builder().text(text).build())
        .locations(vec![sarif::Location::builder().physical_location(physical).build()])
        .build()
}

/// The SARIF log for `diags`, pretty-printed.
///
/// Each result is serialized once, as the document holds it, and spliced into the log around
/// the results (its [`Frame`]): a SARIF result in memory is many times its text, and a report
/// may hold tens of thousands. When the frame cannot be found (it always can: the fallback is
/// a guard), the whole log is serialized instead.
pub fn render_sarif(diags: &[Diagnostic], sources: &SourceResolver, opts: &Options) -> String {
    let uris = Uris::new(opts);
    let ordered = sorted(diags);
    if ordered.is_empty() {
        // `"results": []`: there is nothing to splice.
        return log(Vec::new(), false, &uris, opts);
    }
    let mut by_rank: Vec<usize> = (0..ordered.len()).collect();
    by_rank.sort_by_key(|&i| rank_key(ordered[i]));
    let (Some(plain), Some(cut)) = (Frame::new(false, &uris, opts), Frame::new(true, &uris, opts)) else {
        return render_whole(&ordered, &by_rank, sources, &uris, opts);
    };
    let texts: Vec<String> = ordered.iter().map(|d| plain.element(&result(d, sources, &uris))).collect();
    let note = |keep: usize| {
        let first_omitted = by_rank.get(keep).map_or(ordered[0], |&i| ordered[i]);
        cut.element(&truncation_note(ordered.len() - keep, first_omitted, &uris))
    };
    let kept = |keep: usize| {
        let mut kept = vec![false; ordered.len()];
        for &i in by_rank.iter().take(keep) {
            kept[i] = true;
        }
        kept
    };
    let size = |keep: usize| -> usize {
        let len: usize = by_rank.iter().take(keep).map(|&i| texts[i].len()).sum();
        if keep < ordered.len() { cut.size(len + note(keep).len(), keep + 1) } else { plain.size(len, keep) }
    };
    let keep = limit(ordered.len(), opts, size);
    let selected = texts.iter().zip(kept(keep)).filter(|(_, k)| *k).map(|(t, _)| t.clone());
    if keep < ordered.len() { cut.assemble(selected.chain([note(keep)])) } else { plain.assemble(selected) }
}

/// How many of `total` results (by rank) a log keeps: at most the results limit less one
/// (the truncation note), then the most that fit the byte limit (`size` of a log keeping that
/// many), by bisection.
fn limit(total: usize, opts: &Options, size: impl Fn(usize) -> usize) -> usize {
    let limits = opts.limits;
    let max_results = limits.sarif_results.max(1);
    let keep = if total > max_results { max_results - 1 } else { total };
    if size(keep) <= limits.sarif_bytes {
        return keep;
    }
    let (mut lo, mut hi) = (0usize, keep);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if size(mid) <= limits.sarif_bytes { lo = mid } else { hi = mid - 1 }
    }
    lo
}

/// [`render_sarif`] serializing the whole log for each size tried.
fn render_whole(
    ordered: &[&Diagnostic],
    by_rank: &[usize],
    sources: &SourceResolver,
    uris: &Uris,
    opts: &Options,
) -> String {
    let render = |keep: usize| -> String {
        let mut kept = vec![false; ordered.len()];
        for &i in by_rank.iter().take(keep) {
            kept[i] = true;
        }
        let mut selected: Vec<sarif::Result> =
            ordered.iter().zip(&kept).filter(|(_, k)| **k).map(|(d, _)| result(d, sources, uris)).collect();
        if keep < ordered.len() {
            let first_omitted = by_rank.get(keep).map_or(ordered[0], |&i| ordered[i]);
            selected.push(truncation_note(ordered.len() - keep, first_omitted, uris));
        }
        log(selected, keep < ordered.len(), uris, opts)
    };
    render(limit(ordered.len(), opts, |keep| render(keep).len()))
}

/// The log around its results: the text before the first result and after the last, and the
/// indentation of a result. Found by serializing the log with one marker result.
struct Frame {
    before: String,
    after: String,
    indent: String,
}

/// The marker result's rule id: no rule has a control character in its id.
const MARKER: &str = "\u{1}driftlint-frame";

impl Frame {
    fn new(truncated: bool, uris: &Uris, opts: &Options) -> Option<Frame> {
        let marker =
            sarif::Result::builder().rule_id(MARKER).message(sarif::Message::builder().text("").build()).build();
        let doc = log(vec![marker.clone()], truncated, uris, opts);
        // The marker's keys are one level (two spaces) deeper than the marker itself.
        let key = format!("\"ruleId\": {}", serde_json::to_string(MARKER).ok()?);
        let at = doc.find(&key)?;
        let line = doc[..at].rfind('\n')? + 1;
        let indent = " ".repeat(doc[line..at].len().checked_sub(2)?);
        let text = reindent(&serde_json::to_string_pretty(&marker).ok()?, &indent);
        let pos = doc.find(&text)?;
        Some(Frame { before: doc[..pos].to_string(), after: doc[pos + text.len()..].to_string(), indent })
    }

    /// A result as the log holds it.
    fn element(&self, result: &sarif::Result) -> String {
        reindent(&serde_json::to_string_pretty(result).unwrap_or_default(), &self.indent)
    }

    /// The length of a log holding `count` elements of `len` bytes in all.
    fn size(&self, len: usize, count: usize) -> usize {
        self.before.len() + len + count.saturating_sub(1) * (2 + self.indent.len()) + self.after.len()
    }

    fn assemble(&self, elements: impl Iterator<Item = String>) -> String {
        let mut out = self.before.clone();
        for (i, e) in elements.enumerate() {
            if i > 0 {
                out.push_str(",\n");
                out.push_str(&self.indent);
            }
            out.push_str(&e);
        }
        out.push_str(&self.after);
        out
    }
}

/// A value serialized pretty at depth 0, as it reads nested at `indent`: serde_json's pretty
/// printer puts every line break before an indentation proportional to the depth, and none
/// inside strings (they are escaped).
fn reindent(text: &str, indent: &str) -> String {
    text.replace('\n', &format!("\n{indent}"))
}

fn log(results: Vec<sarif::Result>, truncated: bool, uris: &Uris, opts: &Options) -> String {
    let mut rules_table: Vec<sarif::ReportingDescriptor> = Rule::ALL.into_iter().map(descriptor).collect();
    if truncated {
        rules_table.push(
            sarif::ReportingDescriptor::builder()
                .id(TRUNCATED_RULE)
                .short_description(
                    sarif::MultiformatMessageString::builder()
                        .text("The report was cut to fit GitHub's limits")
                        .build(),
                )
                .default_configuration(
                    sarif::ReportingConfiguration::builder()
                        .level(sarif::ReportingConfigurationLevel::Note.to_string())
                        .build(),
                )
                .build(),
        );
    }
    let mut driver = sarif::ToolComponent::builder()
        .name("driftlint")
        .version(opts.tool_version)
        .semantic_version(opts.tool_version)
        .rules(rules_table)
        .build();
    // No public home yet: no link to a repository this project does not control.
    driver.information_uri = option_env!("CARGO_PKG_REPOSITORY").filter(|r| !r.is_empty()).map(str::to_string);
    let mut run = sarif::Run::builder().tool(driver).results(results).build();
    run.original_uri_base_ids = uris.base_ids();
    run.column_kind = Some(sarif::ResultColumnKind::UnicodeCodePoints.to_string().into());
    // What the schema pass validated: driftlint's own property (`objects`), as in the JSON.
    if let Some(coverage) = opts.coverage {
        let props = std::collections::BTreeMap::from([("objects".to_string(), coverage.to_json())]);
        run.properties = Some(sarif::PropertyBag::builder().additional_properties(props).build());
    }
    let log =
        sarif::Sarif::builder().schema(SCHEMA_URI).version(sarif::Version::V2_1_0.to_string()).runs(vec![run]).build();
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Limits;

    /// Findings with everything a result can carry: positions, secondary labels, help,
    /// objects and fields, suppressions, and texts that need escaping.
    fn findings(n: usize) -> (Vec<Diagnostic>, Vec<driftlint_core::input::Source>) {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"é\u{202e}\"\ndata:\n  a: b\n".to_string();
        let sources: Vec<driftlint_core::input::Source> = (0..3)
            .map(|i| driftlint_core::input::Source {
                path: SourcePath::File(format!("dir {i}/m\"{i}.yaml").into()),
                text: text.clone(),
            })
            .collect();
        let diags = (0..n)
            .map(|i| {
                let path = sources[i % 3].path.clone();
                let severity = [Severity::Error, Severity::Warning, Severity::Note][i % 3];
                let mut d = Diagnostic::new(
                    Rule::ALL[i % Rule::ALL.len()],
                    severity,
                    path.clone(),
                    Some(i % 40..i % 40 + 5),
                    format!("finding {i}: \"quoted\"\nsecond line\t\u{1}"),
                );
                if i % 2 == 0 {
                    d = d.with_secondary(path, Some(10..12), format!("see {i}")).with_help(format!("help {i}"));
                }
                if i % 5 == 0 {
                    d = d.with_object(format!("v1_ConfigMap_n{i}"), Some("/data/a".to_string()));
                }
                if i % 7 == 0 {
                    d.suppressed = Some(format!("reason {i}"));
                }
                d
            })
            .collect();
        (diags, sources)
    }

    #[test]
    fn the_spliced_log_is_the_whole_log() {
        let (diags, texts) = findings(60);
        let sources = SourceResolver::from_sources(&texts);
        let fixed = render_sarif(&[], &sources, &Options::default()).len();
        let limits = [
            Limits::default(),
            Limits { sarif_results: 7, ..Limits::default() },
            Limits { sarif_results: 1, ..Limits::default() },
            Limits { sarif_bytes: fixed + 9_000, ..Limits::default() },
            Limits { sarif_bytes: fixed + 100, ..Limits::default() },
            Limits { sarif_bytes: 0, ..Limits::default() },
        ];
        for n in [1, 2, 3, 60] {
            for limits in limits {
                let opts = Options { limits, ..Options::default() };
                let uris = Uris::new(&opts);
                let ordered = sorted(&diags[..n]);
                let mut by_rank: Vec<usize> = (0..ordered.len()).collect();
                by_rank.sort_by_key(|&i| rank_key(ordered[i]));
                let whole = render_whole(&ordered, &by_rank, &sources, &uris, &opts);
                let spliced = render_sarif(&diags[..n], &sources, &opts);
                assert_eq!(spliced, whole, "{n} findings, {limits:?}");
                serde_json::from_str::<serde_json::Value>(&spliced).expect("valid JSON");
            }
        }
    }

    #[test]
    fn the_byte_limit_cuts_where_the_whole_log_would() {
        // Limits swept finely across the sizes of logs keeping 0..=12 results: a size computed
        // a byte off moves some cut.
        let (diags, texts) = findings(12);
        let sources = SourceResolver::from_sources(&texts);
        let full = render_sarif(&diags, &sources, &Options::default()).len();
        let fixed = render_sarif(&[], &sources, &Options::default()).len();
        for bytes in (fixed..full + 40).step_by(29) {
            let opts = Options { limits: Limits { sarif_bytes: bytes, ..Limits::default() }, ..Options::default() };
            let uris = Uris::new(&opts);
            let ordered = sorted(&diags);
            let mut by_rank: Vec<usize> = (0..ordered.len()).collect();
            by_rank.sort_by_key(|&i| rank_key(ordered[i]));
            let whole = render_whole(&ordered, &by_rank, &sources, &uris, &opts);
            assert_eq!(render_sarif(&diags, &sources, &opts), whole, "limit {bytes}");
        }
    }

    #[test]
    fn the_frame_is_found() {
        let opts = Options::default();
        let uris = Uris::new(&opts);
        for truncated in [false, true] {
            let frame = Frame::new(truncated, &uris, &opts).expect("the marker is in the log");
            assert!(frame.before.ends_with(&format!("\"results\": [\n{}", frame.indent)), "{}", frame.before);
            assert!(frame.after.starts_with(&format!("\n{}]", &frame.indent[2..])), "{}", frame.after);
        }
    }
}
