//! Files of a repository that are YAML or JSON but not manifests: Helm charts' sources and
//! the configuration files of the tools around Kubernetes (kustomize, skaffold, helmfile …).
//!
//! A chart's `templates/` are Go templates that only become manifests when helm renders them
//! (`helm template CHART | driftlint check -` checks them, with `# Source:` locations), and its
//! `Chart.yaml`/`values.yaml` are helm's own; a `kustomization.yaml` is kustomize's input. Read
//! as manifests, they gave syntax errors, notes and unmatched objects on healthy repositories.
//! They are left out of every pass with one note per chart and one per kind of tool file, so
//! nothing disappears without a trace.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Rule};
use crate::input::{Source, SourcePath, kustomize};

/// Tool configuration files by file name: (names, what they are, how to check what they make).
const TOOL_FILES: &[(&[&str], &str, &str)] = &[
    (
        &["kustomization.yaml", "kustomization.yml", "Kustomization"],
        "kustomize configuration",
        "check what it builds: `kustomize build DIR | driftlint check -`",
    ),
    (&["skaffold.yaml", "skaffold.yml"], "skaffold configuration", "check the manifests it deploys"),
    (&["helmfile.yaml", "helmfile.yml"], "helmfile configuration", "check the releases it renders"),
    (
        &["package.json", "package-lock.json", "tsconfig.json", "renovate.json"],
        "JavaScript tooling configuration",
        "leave it out with `exclude:` to silence this note",
    ),
];

/// A chart's directories whose files helm installs as they are (no templating): checked as
/// manifests.
const CHART_PLAIN_DIRS: &[&str] = &["crds"];

/// The inputs sorted by what they are: manifests, patches, and the notes on what was left out.
#[derive(Debug, Default)]
pub struct Split {
    /// The manifests.
    pub kept: Vec<Source>,
    /// Notes on what was left out, and the problems of the kustomizations' paths.
    pub notes: Vec<Diagnostic>,
    /// The patches kustomizations name (their files taken out of the manifests), and those
    /// written inline: checked against their target's schema as patches.
    pub patches: Vec<kustomize::Patch>,
    /// Every file a kustomization names, by its role (paths as the inputs name them, `./`
    /// dropped): `ls` shows them, and the schema pass takes what a kustomization sets on its
    /// resources as set.
    pub roles: HashMap<PathBuf, kustomize::Role>,
    /// The kustomizations that notes point into (they are no manifests, but a finding's line
    /// is shown in them).
    pub shown: Vec<Source>,
}

/// `sources` less Helm charts' sources and tool configuration files; a note for each chart
/// and each kind of tool file left out. Sources `keep` says are kept whatever they are (a
/// policy input).
pub fn split(sources: Vec<Source>, keep: impl Fn(&SourcePath) -> bool) -> (Vec<Source>, Vec<Diagnostic>) {
    let split = split_roles(sources, keep, &[]);
    (split.kept, split.notes)
}

/// [`split`], with the files kustomizations name sorted by role: their patches taken out of
/// the manifests (and returned to be checked as patches), their configuration files left out
/// with one note per kustomization. `named` are the paths the run was given: the
/// kustomizations above them that are not among the inputs are read too
/// ([`kustomize::discover`]), so a file named alone gets the role a run at the root gives it.
pub fn split_roles(sources: Vec<Source>, keep: impl Fn(&SourcePath) -> bool, named: &[PathBuf]) -> Split {
    split_roles_searching(sources, keep, named, kustomize::Search::default())
}

/// [`split_roles`], the kustomizations elsewhere in the repository searched for as the run
/// walks it (`search`: ignore files, `exclude:`).
pub fn split_roles_searching(
    sources: Vec<Source>,
    keep: impl Fn(&SourcePath) -> bool,
    named: &[PathBuf],
    search: kustomize::Search<'_>,
) -> Split {
    let mut charts = Charts::of(&sources);
    // A kustomization inside a Helm chart works on what the chart renders (Argo CD's
    // kustomized-helm: `helm template . > all.yaml`, then `kustomize build`): it is the
    // chart's, and names files that only exist once rendered.
    let found: Vec<&Source> = sources
        .iter()
        .filter(|s| matches!(&s.path, SourcePath::File(p) if kustomize::is_kustomization(p) && charts.chart_of(p).is_none()))
        .collect();
    let have: HashSet<PathBuf> = found
        .iter()
        .filter_map(|s| match &s.path {
            SourcePath::File(p) => Some(kustomize::normalise(p)),
            SourcePath::Stdin => None,
        })
        .collect();
    let context =
        if named.is_empty() { crate::input::Collected::default() } else { kustomize::discover(named, &have, search) };
    let context_sources: Vec<&Source> = context
        .sources
        .iter()
        .filter(|s| matches!(&s.path, SourcePath::File(p) if charts.chart_of(p).is_none()))
        .collect();
    let kustomizations = kustomize::read_in(&found, &context_sources, kustomize::Files::Disk);
    let kustomize::Kustomizations { roles, mut patch_files, inline, configuration, diagnostics } = kustomizations;
    let mut patches = Vec::new();
    // The kustomizations a finding will point into.
    let wanted: HashSet<PathBuf> = diagnostics
        .iter()
        .filter_map(|d| match &d.primary.path {
            SourcePath::File(p) => Some(p.clone()),
            SourcePath::Stdin => None,
        })
        .chain(configuration.keys().cloned())
        .collect();
    let mut shown = Vec::new();
    let mut kept = Vec::with_capacity(sources.len());
    let mut in_charts: BTreeMap<PathBuf, usize> = BTreeMap::new();
    let mut tools: BTreeMap<usize, Vec<PathBuf>> = BTreeMap::new();
    // Per kustomization, its configuration files among the inputs (those left out).
    let mut configured: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    let mut templates = Vec::new();
    for source in sources {
        let SourcePath::File(path) = &source.path else {
            kept.push(source);
            continue;
        };
        if keep(&source.path) {
            kept.push(source);
            continue;
        }
        if let Some(chart) = charts.chart_of(path) {
            *in_charts.entry(chart).or_default() += 1;
            continue;
        }
        if !roles.is_empty() {
            let named = kustomize::normalise(path);
            // A file that is a resource of one kustomization is a manifest, whatever another
            // makes of it (`read` gives the resource role first).
            match roles.get(&named) {
                Some(kustomize::Role::Patch(_)) => {
                    if let Some((form, target, by)) = patch_files.remove(&named) {
                        patches.push(kustomize::Patch { source, form, target, kustomization: by, inline: None });
                        continue;
                    }
                }
                Some(kustomize::Role::Configuration(by)) => {
                    configured.entry(by.clone()).or_default().push(path.clone());
                    continue;
                }
                _ => {}
            }
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if let Some(kind) = TOOL_FILES.iter().position(|(names, ..)| names.contains(&name)) {
            tools.entry(kind).or_default().push(path.clone());
            if !wanted.is_empty() && wanted.contains(&kustomize::normalise(path)) {
                shown.push(source);
            }
            continue;
        }
        if let Some(at) = template_text(&source.text) {
            templates.push(
                Diagnostic::of(
                    Rule::NotKubernetesObject,
                    source.path.clone(),
                    Some(at..at),
                    "unrendered template text (`{{ … }}`): a template, not a manifest; not checked",
                )
                .with_help(
                    "check what it renders: render it (helm template, jinja, envsubst, …) and pipe the output in: `… | driftlint check -`",
                ),
            );
            continue;
        }
        kept.push(source);
    }
    let mut notes = Vec::new();
    for (chart, files) in in_charts {
        let chart_yaml = chart.join("Chart.yaml");
        notes.push(
            Diagnostic::of(
                Rule::NotKubernetesObject,
                SourcePath::File(chart_yaml),
                None,
                format!(
                    "{} is a Helm chart: its {files} file(s) are helm's sources, not manifests, and were not checked",
                    display(&chart)
                ),
            )
            .with_help(format!(
                "check what it renders: `helm template {} | driftlint check -` (findings map back to the templates)",
                display(&chart)
            )),
        );
    }
    for (kind, files) in tools {
        let (_, what, how) = TOOL_FILES[kind];
        let list: Vec<String> = files.iter().take(5).map(|p| display(p)).collect();
        let more = if files.len() > 5 { format!(" and {} more", files.len() - 5) } else { String::new() };
        notes.push(
            Diagnostic::of(
                Rule::NotKubernetesObject,
                SourcePath::File(files[0].clone()),
                None,
                format!(
                    "{} file(s) of {what}, not manifests, were not checked: {}{more}",
                    files.len(),
                    list.join(", ")
                ),
            )
            .with_help(how.to_string()),
        );
    }
    for (by, (at, _)) in configuration {
        // Only the files the walk read (a generator's `.sh` or `.conf` is no input anyway).
        let Some(files) = configured.remove(&by) else { continue };
        let list: Vec<String> = files.iter().take(5).map(|p| display(p)).collect();
        let more = if files.len() > 5 { format!(" and {} more", files.len() - 5) } else { String::new() };
        notes.push(
            Diagnostic::of(
                Rule::NotKubernetesObject,
                SourcePath::File(by),
                Some(at),
                format!(
                    "{} file(s) named here are kustomize's own configuration (transformers, generators, validators, field configurations, generators' data), not manifests; not checked: {}{more}",
                    files.len(),
                    list.join(", ")
                ),
            )
            .with_help("check what the kustomization builds: `kustomize build DIR | driftlint check -`"),
        );
    }
    notes.extend(diagnostics);
    notes.extend(context.diagnostics);
    notes.extend(templates);
    // The kustomizations read for context that a note points into.
    shown.extend(
        context_sources
            .into_iter()
            .filter(|s| match &s.path {
                SourcePath::File(p) => wanted.contains(&kustomize::normalise(p)),
                SourcePath::Stdin => false,
            })
            .cloned(),
    );
    patches.extend(inline);
    Split { kept, notes, patches, roles, shown }
}

/// Where a text holds template syntax that YAML does not read as part of a string: a
/// `{{`/`{%` line of its own (`{{- if .Values.x }}`, `{% for %}`), or `{{` starting a plain
/// value or key (`name: {{ .Values.name }}`, `- {{cell}}`), which YAML reads as a flow
/// mapping. `{{` inside quotes, comments, block scalars and in the middle of a plain scalar
/// is string content (a PrometheusRule's `summary: Instance {{ $labels.instance }} down`, an
/// Argo Workflow's `"{{inputs.parameters.x}}"`).
pub fn template_text(text: &str) -> Option<usize> {
    if !text.contains("{{") && !text.contains("{%") {
        return None;
    }
    let mut offset = 0;
    // The indentation of the line that opened a block scalar, while in one.
    let mut block: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let content = body.trim_start_matches(' ');
        let indent = body.len() - content.len();
        if let Some(open) = block {
            if content.is_empty() || indent > open {
                continue;
            }
            block = None;
        }
        if content.starts_with("{{") || content.starts_with("{%") {
            return Some(at + indent);
        }
        if let Some(found) = plain_value_template(content) {
            return Some(at + indent + found);
        }
        if opens_block_scalar(content) {
            block = Some(indent);
        }
    }
    None
}

/// In one line (indentation removed), where a `{{` starts a plain value, key or sequence
/// entry outside quotes and comments.
fn plain_value_template(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut quote: Option<u8> = None;
    // Whether the position starts a value: the line's start, after `- `, `: `, `[`, `,`, `{`.
    let mut value_start = true;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'"' | b'\'' if value_start => quote = Some(b),
                b'#' if i == 0 || bytes[i - 1] == b' ' => return None,
                b'{' if value_start && bytes.get(i + 1) == Some(&b'{') && !argo_parameter(&line[i + 2..]) => {
                    return Some(i);
                }
                b'{' if bytes.get(i + 1) == Some(&b'{') && mustache_placeholder(&line[i + 2..]) => return Some(i),
                b' ' | b'\t' => {
                    i += 1;
                    continue;
                }
                b'-' if value_start && matches!(bytes.get(i + 1), Some(b' ') | None) => {
                    i += 1;
                    continue;
                }
                b':' if matches!(bytes.get(i + 1), Some(b' ') | None) => {
                    value_start = true;
                    i += 1;
                    continue;
                }
                b'[' | b',' | b'{' => {
                    value_start = true;
                    i += 1;
                    continue;
                }
                _ => {}
            },
        }
        value_start = false;
        i += 1;
    }
    None
}

/// Whether the text after `{{` is an Argo parameter (`{{args.x}}`, `{{inputs.parameters.x}}`,
/// `{{workflow.name}}`): Argo substitutes it in strings of the object itself, so unquoted it
/// is a real mistake in a manifest (YAML reads a flow mapping), not template text.
fn argo_parameter(rest: &str) -> bool {
    const ROOTS: [&str; 6] = ["args.", "inputs.", "outputs.", "workflow.", "steps.", "tasks."];
    let rest = rest.trim_start();
    ROOTS.iter().any(|r| rest.starts_with(r))
}

/// Whether the text after `{{` is a bare mustache placeholder (`{{cell}}`, `{{ uid }}`): in
/// the middle of a name or a label it is a value to substitute, where a PrometheusRule's text
/// uses `{{ $labels.x }}` and Go templates `{{ .X }}`.
fn mustache_placeholder(rest: &str) -> bool {
    let rest = rest.trim_start_matches(' ');
    let ident = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    ident > 0 && !rest.as_bytes()[0].is_ascii_digit() && rest[ident..].trim_start_matches(' ').starts_with("}}")
}

/// Whether a line ends by opening a block scalar (`key: |`, `- >-`, `key: |2 # c`).
fn opens_block_scalar(line: &str) -> bool {
    let code = match line.find(" #") {
        Some(cut) => &line[..cut],
        None => line,
    };
    let last = code.trim_end().rsplit([' ', '\t']).next().unwrap_or_default();
    let rest = last.strip_prefix(['|', '>']);
    rest.is_some_and(|r| r.chars().all(|c| matches!(c, '+' | '-' | '0'..='9')))
        && (code.trim_end().len() == last.len()
            || code.trim_end().ends_with(&format!(": {last}"))
            || code.trim_end().ends_with(&format!("- {last}")))
}

/// Of repository-relative paths (`/`-separated), those that [`split_roles`] would leave out,
/// judged from the set alone (a chart is a directory whose `Chart.yaml` is in the set; a
/// kustomization's text comes from `text`): scoped runs compare what the base and the head
/// leave out, so a `Chart.yaml` added by the change over existing manifests is seen as what it
/// is, a way to stop checking them — and so is a kustomization that starts naming a manifest
/// as a patch or as its own configuration. A file is judged by the role its kustomizations
/// give it, as a walk judges it, not by its name: a patch or a transformer's configuration is
/// left out whatever it is called, a resource is kept even when another kustomization
/// patches it.
pub fn claimed(
    paths: &std::collections::BTreeSet<String>,
    text: impl Fn(&str) -> Option<String>,
) -> std::collections::BTreeSet<String> {
    let charts: HashSet<&str> =
        paths.iter().filter_map(|p| p.strip_suffix("Chart.yaml")).map(|d| d.trim_end_matches('/')).collect();
    let in_chart = |p: &str| {
        let mut dir = p;
        let mut child: Option<&str> = None;
        while let Some(cut) = dir.rfind('/') {
            let (parent, name) = (&dir[..cut], &dir[cut + 1..]);
            if charts.contains(parent) {
                let plain = child.is_some() && CHART_PLAIN_DIRS.contains(&name);
                return !plain;
            }
            child = Some(name);
            dir = parent;
        }
        charts.contains("")
            && !p.split('/').next().is_some_and(|first| CHART_PLAIN_DIRS.contains(&first) && p.contains('/'))
    };
    let tool = |p: &str| {
        let name = p.rsplit('/').next().unwrap_or(p);
        TOOL_FILES.iter().any(|(names, ..)| names.contains(&name))
    };
    // The roles the set's kustomizations (not a chart's) give, their paths looked up in the set.
    let kustomizations: Vec<Source> = paths
        .iter()
        .filter(|p| kustomize::is_kustomization(Path::new(p.as_str())) && !in_chart(p))
        .filter_map(|p| Some(Source { path: SourcePath::File(PathBuf::from(p)), text: text(p)? }))
        .collect();
    let set: HashSet<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let roles = kustomize::read_in(&kustomizations.iter().collect::<Vec<_>>(), &[], kustomize::Files::Set(&set)).roles;
    let by_role = |p: &str| {
        matches!(roles.get(Path::new(p)), Some(kustomize::Role::Patch(_) | kustomize::Role::Configuration(_)))
    };
    paths.iter().filter(|p| in_chart(p) || tool(p) || by_role(p)).cloned().collect()
}

/// Whether [`split_roles`] leaves out `path` (a file named on the command line) when it is
/// named alone: a Helm chart's source (the `Chart.yaml` found above it on disk), a tool's file
/// by its name, or a file the kustomizations above it name as a patch or as their own
/// configuration ([`kustomize::discover`]).
pub fn claimed_file(path: &Path) -> bool {
    let source = Source { path: SourcePath::File(path.to_path_buf()), text: String::new() };
    split_roles(vec![source], |_| false, &[path.to_path_buf()]).kept.is_empty()
}

fn display(path: &Path) -> String {
    let s = path.display().to_string();
    match s.strip_prefix("./") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => s,
    }
}

/// The Helm charts the inputs belong to: a directory is a chart when it holds `Chart.yaml`,
/// among the inputs or on disk.
struct Charts {
    /// Directories known to be charts (from the inputs, or found on disk).
    known: HashSet<PathBuf>,
    /// Directories looked up on disk: whether each holds `Chart.yaml`.
    looked: HashMap<PathBuf, bool>,
}

impl Charts {
    fn of(sources: &[Source]) -> Charts {
        let known = sources
            .iter()
            .filter_map(|s| match &s.path {
                SourcePath::File(p) if p.file_name().is_some_and(|n| n == "Chart.yaml") => {
                    Some(p.parent().map(Path::to_path_buf).unwrap_or_default())
                }
                _ => None,
            })
            .collect();
        Charts { known, looked: HashMap::new() }
    }

    /// The chart `path` lies in (not counting the plain `crds/` directory), if any.
    fn chart_of(&mut self, path: &Path) -> Option<PathBuf> {
        let mut child: Option<&Path> = None;
        let mut dir = path.parent();
        while let Some(d) = dir {
            if self.is_chart(d) {
                let plain = child
                    .and_then(|c| c.file_name())
                    .is_some_and(|n| CHART_PLAIN_DIRS.iter().any(|p| n == *p) && child != Some(path));
                return (!plain).then(|| d.to_path_buf());
            }
            child = Some(d);
            dir = d.parent();
        }
        None
    }

    fn is_chart(&mut self, dir: &Path) -> bool {
        if self.known.contains(dir) {
            return true;
        }
        let key = dir.to_path_buf();
        if let Some(found) = self.looked.get(&key) {
            return *found;
        }
        let on_disk = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        let found = std::fs::symlink_metadata(on_disk.join("Chart.yaml")).is_ok_and(|m| m.is_file());
        self.looked.insert(key, found);
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(path: &str) -> Source {
        Source { path: SourcePath::File(PathBuf::from(path)), text: String::new() }
    }

    #[test]
    fn charts_and_tool_files_are_left_out_with_one_note_each() {
        let sources = [
            "charts/web/Chart.yaml",
            "charts/web/values.yaml",
            "charts/web/templates/deploy.yaml",
            "charts/web/crds/crd.yaml",
            "charts/web/charts/sub/Chart.yaml",
            "charts/web/charts/sub/templates/x.yaml",
            "base/kustomization.yaml",
            "overlays/prod/kustomization.yaml",
            "base/cm.yaml",
            "skaffold.yaml",
        ]
        .map(source)
        .to_vec();
        let (kept, notes) = split(sources, |_| false);
        let kept: Vec<String> = kept.iter().map(|s| s.path.display()).collect();
        assert_eq!(kept, ["charts/web/crds/crd.yaml", "base/cm.yaml"]);
        let notes: Vec<(String, String)> =
            notes.iter().map(|d| (d.primary.path.display(), d.message.clone())).collect();
        assert_eq!(
            notes,
            [
                ("charts/web/Chart.yaml".to_string(), "charts/web is a Helm chart: its 3 file(s) are helm's sources, not manifests, and were not checked".to_string()),
                ("charts/web/charts/sub/Chart.yaml".to_string(), "charts/web/charts/sub is a Helm chart: its 2 file(s) are helm's sources, not manifests, and were not checked".to_string()),
                ("base/kustomization.yaml".to_string(), "2 file(s) of kustomize configuration, not manifests, were not checked: base/kustomization.yaml, overlays/prod/kustomization.yaml".to_string()),
                ("skaffold.yaml".to_string(), "1 file(s) of skaffold configuration, not manifests, were not checked: skaffold.yaml".to_string()),
            ]
        );
    }

    #[test]
    fn template_text_is_syntax_yaml_does_not_read_as_a_string() {
        let at = |t: &str| template_text(t);
        assert_eq!(at("kind: Pod\nmetadata:\n  name: {{cell}}\n"), Some(28));
        assert_eq!(at("{{- if .Values.on }}\nkind: Pod\n"), Some(0));
        assert_eq!(at("items:\n  - {{ .x }}\n"), Some(11));
        assert_eq!(at("{% for x in y %}\n"), Some(0));
        // Strings: quoted, mid-scalar, block scalars, comments.
        assert_eq!(at("name: \"{{ .Values.name }}\"\nb: '{{x}}'\n"), None);
        assert_eq!(at("summary: Instance {{ $labels.instance }} down\n"), None);
        assert_eq!(at("msg: Value {{ .Value }} high\n"), None);
        // A bare placeholder in the middle of a name is one.
        assert_eq!(at("name: etcd-{{cell}}\n"), Some(11));
        assert_eq!(at("data:\n  t: |\n    {{ .Name }}\n    x: {{y}}\nkind: Pod\n"), None);
        assert_eq!(at("data:\n  t: |\n    {{ .Name }}\nname: {{y}}\n"), Some(35));
        assert_eq!(at("a: b # {{ not this }}\n"), None);
        assert_eq!(at("kind: Pod\n"), None);
        // Argo's own parameters, unquoted, are a mistake in the object, reported as such.
        assert_eq!(at("args:\n  - value: {{args.enabled}}\n"), None);
    }

    #[test]
    fn claimed_paths_are_judged_from_the_set() {
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<std::collections::BTreeSet<_>>();
        let paths = set(&[
            "apps/Chart.yaml",
            "apps/web.yaml",
            "apps/crds/x.yaml",
            "apps/templates/d.yaml",
            "other/cm.yaml",
            "base/kustomization.yaml",
            "Chart.yaml",
            "crds/top.yaml",
            "top.yaml",
        ]);
        assert_eq!(
            claimed(&paths, |_| None),
            set(&[
                "Chart.yaml",
                "apps/Chart.yaml",
                "apps/templates/d.yaml",
                "apps/web.yaml",
                "base/kustomization.yaml",
                "other/cm.yaml",
                "top.yaml"
            ])
        );
        assert_eq!(claimed(&set(&["apps/web.yaml", "b/kustomization.yml"]), |_| None), set(&["b/kustomization.yml"]));
    }

    #[test]
    fn claimed_paths_are_judged_by_their_kustomize_role_not_their_name() {
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<std::collections::BTreeSet<_>>();
        let paths = set(&[
            "app/kustomization.yaml",
            "app/deployment.yaml",
            "app/patch.yaml",
            "app/labels.yaml",
            "app/shared.yaml",
            "other/kustomization.yaml",
            "lone.yaml",
        ]);
        let text = |p: &str| {
            match p {
            "app/kustomization.yaml" => Some(
                "resources: [deployment.yaml, shared.yaml]\npatches:\n  - path: patch.yaml\ntransformers: [labels.yaml]\n"
                    .to_string(),
            ),
            // Another kustomization patching a resource of the first does not claim it.
            "other/kustomization.yaml" => Some("patchesStrategicMerge:\n  - ../app/shared.yaml\n".to_string()),
            _ => None,
        }
        };
        assert_eq!(
            claimed(&paths, text),
            set(&["app/kustomization.yaml", "app/labels.yaml", "app/patch.yaml", "other/kustomization.yaml"])
        );
    }

    #[test]
    fn a_resource_of_one_kustomization_stays_a_manifest_when_another_patches_it() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("a/kustomization.yaml", "resources: [x.yaml]\n"),
            ("a/x.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"),
            ("b/kustomization.yaml", "patches:\n  - path: ../a/x.yaml\n  - path: p.yaml\n"),
            ("b/p.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: {a: b}\n"),
        ];
        // The repository the kustomizations' paths are confined to.
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        let mut sources = Vec::new();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            sources.push(Source { path: SourcePath::File(path), text: text.to_string() });
        }
        let split = split_roles(sources, |_| false, &[]);
        let at = |name: &str| dir.path().join(name);
        let kept: Vec<SourcePath> = split.kept.iter().map(|s| s.path.clone()).collect();
        assert_eq!(kept, [SourcePath::File(at("a/x.yaml"))]);
        let patched: Vec<SourcePath> = split.patches.iter().map(|p| p.source.path.clone()).collect();
        assert_eq!(patched, [SourcePath::File(at("b/p.yaml"))]);
        assert!(matches!(split.roles.get(&at("a/x.yaml")), Some(kustomize::Role::Resource(_))));
        assert!(split.notes.iter().all(|d| d.severity != crate::diagnostic::Severity::Error), "{:?}", split.notes);
    }

    #[test]
    fn a_template_named_alone_is_known_by_its_chart_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("web/templates")).unwrap();
        std::fs::write(dir.path().join("web/Chart.yaml"), "apiVersion: v2\nname: web\n").unwrap();
        let t = dir.path().join("web/templates/d.yaml");
        let other = dir.path().join("plain.yaml");
        let sources = vec![
            Source { path: SourcePath::File(t), text: String::new() },
            Source { path: SourcePath::File(other.clone()), text: String::new() },
        ];
        let (kept, notes) = split(sources, |_| false);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].path, SourcePath::File(other));
        assert_eq!(notes.len(), 1);
    }
}
