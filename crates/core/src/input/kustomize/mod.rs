//! What a repository's kustomizations say about the files they name: kustomize reads
//! `resources:` as manifests, `patches:`/`patchesStrategicMerge:`/`patchesJson6902:` as patches
//! of those manifests, and `transformers:`/`generators:`/`validators:`/`configurations:` (and
//! the like) as its own configuration. Linted as manifests, a strategic-merge patch (`$patch:
//! delete`, a partial Deployment) and a transformer's configuration were errors on healthy
//! repositories, and a base Deployment whose selector the kustomization adds
//! (`labels: [{includeSelectors: true}]`, `commonLabels`) lacked a required field.
//!
//! A kustomization is untrusted text (docs/security.md): it is parsed with the bounded loader,
//! and every path it names goes through [`confine`] before anything is known of it; a path
//! that leaves the repository or does not exist is a finding at the kustomization's line,
//! and is never read. Nothing is read here at all: the files a kustomization names are
//! judged among the inputs the walk already read (their roles), or looked at with `stat`
//! (whether a named path exists, and is a directory).
//!
//! This module knows nothing of schemas: a patch's checking is the schema crate's.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::{Component, Path, PathBuf};

use driftlint_yaml::{Node, NodeValue, ScalarStyle};

use crate::confine::{Boundary, confine};
use crate::diagnostic::{Diagnostic, Rule};
use crate::source::{Source, SourcePath};

mod elsewhere;

use elsewhere::Limits;

/// The file names kustomize looks for in a directory, in its order.
pub const FILE_NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// How deep overlays over bases (and components) are followed when what a kustomization sets
/// is carried down to its bases' resources: deeper chains are not real layouts, and a cycle
/// stops there.
const MAX_DEPTH: usize = 32;

/// Whether `path` is a kustomization by its file name.
pub fn is_kustomization(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| FILE_NAMES.contains(&n))
}

/// How kustomize reads a file a kustomization names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A kustomization (or a `kind: Component`) itself.
    Kustomization,
    /// A manifest of `resources:` (or `bases:`), with what the kustomizations that build it
    /// set on it.
    Resource(Sets),
    /// A patch of `patches:`, `patchesStrategicMerge:` or `patchesJson6902:`.
    Patch(Form),
    /// kustomize's own configuration (transformers, generators, validators, field
    /// configurations, replacements, generators' data files): named by this kustomization.
    Configuration(PathBuf),
}

impl Role {
    /// The role as `driftlint ls` shows it.
    pub fn name(&self) -> &'static str {
        match self {
            Role::Kustomization => "kustomization",
            Role::Resource(_) => "resource",
            Role::Patch(Form::StrategicMerge) => "strategic-merge patch",
            Role::Patch(Form::Json6902) => "JSON 6902 patch",
            Role::Patch(Form::Either) => "patch",
            Role::Configuration(_) => "kustomize configuration",
        }
    }
}

/// What a kustomization sets on every resource it builds (and on its bases' resources): a
/// field it sets is not missing from the resource file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sets {
    /// Selector labels: `labels:` with `includeSelectors: true`, or `commonLabels:` (kustomize
    /// adds them to `spec.selector` and the pod template).
    pub selector: bool,
    /// `namespace:` (`metadata.namespace`).
    pub namespace: bool,
    /// `namePrefix:`/`nameSuffix:` (the name is completed).
    pub name: bool,
}

impl Sets {
    fn union(self, other: Sets) -> Sets {
        Sets {
            selector: self.selector || other.selector,
            namespace: self.namespace || other.namespace,
            name: self.name || other.name,
        }
    }

    /// Whether a required field at `pointer` (a JSON pointer) is one the kustomization sets.
    pub fn covers(&self, pointer: &str) -> bool {
        (self.selector && pointer == "/spec/selector")
            || (self.namespace && pointer == "/metadata/namespace")
            || (self.name && pointer == "/metadata/name")
    }
}

/// Which kind of patch: kustomize's `patches:` takes either, told by the content (a list of
/// operations is a JSON 6902 patch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    StrategicMerge,
    Json6902,
    Either,
}

/// The objects a patch applies to, as its kustomization selects them (`target:`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Target {
    pub group: Option<String>,
    pub version: Option<String>,
    pub kind: Option<String>,
}

/// A patch to check: a file's, or one written inline in its kustomization.
#[derive(Clone, Debug)]
pub struct Patch {
    /// The file findings point into: the patch file, or the kustomization of an inline patch.
    pub source: Source,
    pub form: Form,
    pub target: Target,
    /// The kustomization that names it.
    pub kustomization: PathBuf,
    /// An inline patch: its text, and where it stands in [`Patch::source`].
    pub inline: Option<Inline>,
}

impl Patch {
    /// The patch's own text.
    pub fn text(&self) -> &str {
        self.inline.as_ref().map_or(&self.source.text, |i| &i.text)
    }

    /// A range of [`Patch::text`] as a range of [`Patch::source`]'s text.
    pub fn map(&self, range: Range<usize>) -> Range<usize> {
        match &self.inline {
            Some(inline) => inline.map(range),
            None => range,
        }
    }
}

/// An inline patch (`patch: |` in a kustomization): its text, and where each of its lines
/// starts in the kustomization (a block scalar's lines, less their indentation), so findings
/// land on the kustomization's line.
#[derive(Clone, Debug)]
pub struct Inline {
    pub text: String,
    /// Per line of `text`: its offset in `text` and in the kustomization (empty when the
    /// lines could not be placed: a quoted or folded string).
    lines: Vec<(usize, usize)>,
    /// Where a finding goes when its line cannot be placed: the `patch:` value.
    whole: Range<usize>,
}

impl Inline {
    fn map(&self, range: Range<usize>) -> Range<usize> {
        let place = |at: usize| {
            let i = self.lines.partition_point(|(start, _)| *start <= at).checked_sub(1)?;
            let (start, src) = self.lines[i];
            Some(src + (at - start))
        };
        match (place(range.start), place(range.end.max(range.start))) {
            (Some(s), Some(e)) => s..e.max(s),
            _ => self.whole.clone(),
        }
    }
}

/// What the kustomizations among the inputs say.
#[derive(Debug, Default)]
pub struct Kustomizations {
    /// The role of each file a kustomization names (paths as the walk names them), and of the
    /// kustomizations themselves.
    pub roles: HashMap<PathBuf, Role>,
    /// For each patch file, its form and target and the kustomization that names it (the first
    /// by path when several do).
    pub patch_files: HashMap<PathBuf, (Form, Target, PathBuf)>,
    /// Inline patches.
    pub inline: Vec<Patch>,
    /// Per kustomization, the configuration files it names (for its one note), with the line
    /// of the first.
    pub configuration: BTreeMap<PathBuf, (Range<usize>, Vec<PathBuf>)>,
    /// Paths that could not be followed: outside the repository, missing, a directory without
    /// a kustomization, a kustomization that does not parse.
    pub diagnostics: Vec<Diagnostic>,
}

/// One parsed kustomization: its directory, what it sets, and the directories it builds on.
struct Parsed {
    path: PathBuf,
    sets: Sets,
    /// Kustomization directories of `resources:`/`bases:`/`components:` (normalised).
    below: Vec<PathBuf>,
    /// Resource files (normalised).
    resources: Vec<PathBuf>,
}

/// Reads the kustomizations among `sources` (those [`is_kustomization`] names): the roles of
/// the files they name. `sources` are the inputs as named by the walk.
pub fn read(sources: &[&Source]) -> Kustomizations {
    read_in(sources, &[], Files::Disk)
}

/// Where the paths a kustomization names are looked up.
#[derive(Clone, Copy)]
pub enum Files<'a> {
    /// The work tree: confined, then `stat`ed.
    Disk,
    /// A set of files (paths as the walk names them, normalised): a scoped run's state,
    /// judged from its file list alone.
    Set(&'a HashSet<PathBuf>),
}

/// [`read`], with `context`: kustomizations that are not inputs but decide the roles of
/// inputs ([`discover`]). They are read for the roles they give, never checked: their inline
/// patches and their own path problems are left to a run that names them (a parse error is
/// kept, since then the roles they would give are unknown).
pub fn read_in(sources: &[&Source], context: &[&Source], files: Files) -> Kustomizations {
    let mut out = Kustomizations::default();
    if sources.is_empty() && context.is_empty() {
        return out;
    }
    let here = Boundary::of_working_directory();
    let mut parsed: Vec<Parsed> = Vec::new();
    for (i, source) in sources.iter().chain(context).enumerate() {
        let SourcePath::File(path) = &source.path else { continue };
        let path = from_cwd(normalise(path));
        out.roles.insert(path.clone(), Role::Kustomization);
        let (diagnostics, inline) = (out.diagnostics.len(), out.inline.len());
        let p = read_one(&path, source, &here, files, &mut out);
        if i >= sources.len() {
            out.inline.truncate(inline);
            let kept: Vec<Diagnostic> =
                out.diagnostics.drain(diagnostics..).filter(|d| d.rule == Rule::YamlSyntaxError).collect();
            out.diagnostics.extend(kept);
        }
        if let Some(p) = p {
            parsed.push(p);
        }
    }
    // What each kustomization sets reaches its bases' and components' resources: overlays
    // complete their bases (a base Deployment whose selector only an overlay's `commonLabels`
    // adds builds right in that overlay).
    let by_dir: HashMap<PathBuf, usize> = parsed
        .iter()
        .enumerate()
        .map(|(i, p)| (p.path.parent().map(Path::to_path_buf).unwrap_or_default(), i))
        .collect();
    let mut effective: Vec<Sets> = parsed.iter().map(|p| p.sets).collect();
    for (i, p) in parsed.iter().enumerate() {
        if p.sets == Sets::default() {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(i, 0)];
        let mut seen: HashSet<usize> = HashSet::from([i]);
        while let Some((at, depth)) = stack.pop() {
            effective[at] = effective[at].union(p.sets);
            if depth >= MAX_DEPTH {
                continue;
            }
            for dir in &parsed[at].below {
                if let Some(&next) = by_dir.get(dir)
                    && seen.insert(next)
                {
                    stack.push((next, depth + 1));
                }
            }
        }
    }
    for (p, sets) in parsed.iter().zip(effective) {
        for r in &p.resources {
            let role = out.roles.entry(r.clone()).or_insert(Role::Resource(Sets::default()));
            match role {
                Role::Resource(s) => *s = s.union(sets),
                // A file that is a resource of one kustomization is a manifest, whatever
                // another makes of it.
                other => *other = Role::Resource(sets),
            }
        }
    }
    for (path, (form, ..)) in &out.patch_files {
        out.roles.entry(path.clone()).or_insert(Role::Patch(*form));
    }
    for (by, (_, files)) in &out.configuration {
        for f in files {
            out.roles.entry(f.clone()).or_insert_with(|| Role::Configuration(by.clone()));
        }
    }
    out
}

/// Reads one kustomization: its patches and configuration files into `out`, its resources
/// and what it sets returned.
fn read_one(path: &Path, source: &Source, here: &Boundary, files: Files, out: &mut Kustomizations) -> Option<Parsed> {
    let sp = SourcePath::File(path.to_path_buf());
    let stream = driftlint_yaml::parse_stream(&source.text);
    if let Some(err) = &stream.error {
        out.diagnostics.push(Diagnostic::error(
            Rule::YamlSyntaxError,
            sp,
            Some(err.offset..err.offset),
            format!("kustomization does not parse: {}; the files it names are read as manifests", err.message),
        ));
        return None;
    }
    let root = stream.documents.into_iter().map(|d| d.root).find(|r| matches!(r.value, NodeValue::Mapping(_)))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let boundary = if here.holds_lexically(path) {
        here.clone()
    } else {
        Boundary::around(if dir.as_os_str().is_empty() { Path::new(".") } else { &dir })
    };
    let mut k = Kust { path, dir: &dir, boundary: &boundary, source, files, out };
    let mut parsed =
        Parsed { path: path.to_path_buf(), sets: sets_of(&root), below: Vec::new(), resources: Vec::new() };
    for field in ["resources", "bases", "components"] {
        for (text, span) in strings(root.get(field)) {
            if remote(text) {
                continue;
            }
            match k.follow(text, &span, field) {
                Some(Named::File(p)) if field != "components" => parsed.resources.push(p),
                Some(Named::File(_)) => k.problem(
                    &span,
                    format!("component `{text}` is a file: kustomize expects a directory with a kustomization"),
                ),
                Some(Named::Dir(p)) => parsed.below.push(p),
                None => {}
            }
        }
    }
    // `patches:` takes a file (`path:`) or inline text (`patch:`) of either form, with a target
    // (a bare path string, as older kustomizations write it, is a file).
    for item in items(root.get("patches")) {
        match item.as_str() {
            Some(text) if !text.contains('\n') => k.patch_file(text, &item.span, Form::Either, Target::default()),
            Some(_) => k.inline(item, Form::Either, Target::default()),
            None => k.patch(item, Form::Either),
        }
    }
    for item in items(root.get("patchesJson6902")) {
        k.patch(item, Form::Json6902);
    }
    // `patchesStrategicMerge:` entries are file paths or inline patches.
    for item in items(root.get("patchesStrategicMerge")) {
        if let Some(text) = item.as_str() {
            if text.contains('\n') {
                k.inline(item, Form::StrategicMerge, Target::default());
            } else {
                k.patch_file(text, &item.span, Form::StrategicMerge, Target::default());
            }
        }
    }
    for field in ["transformers", "generators", "validators", "configurations"] {
        for (text, span) in strings(root.get(field)) {
            // Inline configurations (a YAML text) and remote ones name no file.
            if !text.contains('\n') && !remote(text) {
                k.configuration(text, &span, field);
            }
        }
    }
    for item in items(root.get("replacements")) {
        if let Some((_, value)) = item.entry("path")
            && let Some(text) = value.as_str()
        {
            k.configuration(text, &value.span, "replacements");
        }
    }
    if let Some((_, value)) = root.get("openapi").and_then(|o| o.entry("path"))
        && let Some(text) = value.as_str()
        && !remote(text)
    {
        k.configuration(text, &value.span, "openapi");
    }
    // A generator's files are its data (a ConfigMap's `config.yaml`), not manifests.
    for generator in ["configMapGenerator", "secretGenerator"] {
        for item in items(root.get(generator)) {
            for field in ["files", "envs"] {
                for (text, span) in strings(item.get(field)) {
                    let file = text.split_once('=').map_or(text, |(_, f)| f);
                    k.configuration(file, &span, generator);
                }
            }
            if let Some(env) = item.get("env")
                && let Some(text) = env.as_str()
            {
                k.configuration(text, &env.span, generator);
            }
        }
    }
    Some(parsed)
}

/// A named path, followed.
enum Named {
    File(PathBuf),
    /// A directory holding a kustomization.
    Dir(PathBuf),
}

/// One kustomization being read.
struct Kust<'a> {
    path: &'a Path,
    dir: &'a Path,
    boundary: &'a Boundary,
    source: &'a Source,
    files: Files<'a>,
    out: &'a mut Kustomizations,
}

impl Kust<'_> {
    fn problem(&mut self, span: &Range<usize>, message: String) {
        self.out.diagnostics.push(
            Diagnostic::error(Rule::IoError, SourcePath::File(self.path.to_path_buf()), Some(span.clone()), message)
                .with_help("`kustomize build` fails on it: correct the path"),
        );
    }

    /// A named path that is not there: `kustomize build` fails on the repository as it is,
    /// unless a step before it writes the file (Argo CD's `helm template … > all.yaml` plugin,
    /// a CI step), which is why this is a warning.
    fn missing(&mut self, span: &Range<usize>, message: String) {
        self.out.diagnostics.push(
            Diagnostic::new(
                Rule::IoError,
                crate::diagnostic::Severity::Warning,
                SourcePath::File(self.path.to_path_buf()),
                Some(span.clone()),
                message,
            )
            .with_help("`kustomize build` fails unless a step before it writes the file: correct the path, or generate it first"),
        );
    }

    /// The file or kustomization directory `text` names (relative to the kustomization), when
    /// it stays in the repository and exists; else a finding at `span`.
    fn follow(&mut self, text: &str, span: &Range<usize>, field: &str) -> Option<Named> {
        let written = self.dir.join(text);
        if let Files::Set(set) = self.files {
            let named = from_cwd(normalise(&written));
            if set.contains(&named) {
                return Some(Named::File(named));
            }
            return FILE_NAMES.iter().any(|n| set.contains(&named.join(n))).then_some(Named::Dir(named));
        }
        let real = match confine(&written, self.boundary) {
            Ok(real) => real,
            Err(refusal) => {
                self.problem(span, format!("`{field}` entry {refusal}"));
                return None;
            }
        };
        let Ok(meta) = std::fs::metadata(&real) else {
            self.missing(span, format!("`{field}` entry `{text}` does not exist"));
            return None;
        };
        let named = from_cwd(normalise(&written));
        if meta.is_dir() {
            if FILE_NAMES.iter().any(|n| std::fs::symlink_metadata(real.join(n)).is_ok_and(|m| m.is_file())) {
                return Some(Named::Dir(named));
            }
            self.problem(span, format!("`{field}` entry `{text}` is a directory without a kustomization"));
            return None;
        }
        Some(Named::File(named))
    }

    /// An item of `patches:` or `patchesJson6902:`: `path:` or inline `patch:`, and `target:`.
    fn patch(&mut self, item: &Node, form: Form) {
        let target = target_of(item.get("target"));
        if let Some((_, value)) = item.entry("path")
            && let Some(text) = value.as_str()
        {
            self.patch_file(text, &value.span, form, target);
        } else if let Some(value) = item.get("patch") {
            self.inline(value, form, target);
        }
    }

    fn patch_file(&mut self, text: &str, span: &Range<usize>, form: Form, target: Target) {
        if let Some(Named::File(p)) = self.follow(text, span, "patches") {
            self.out.patch_files.entry(p).or_insert((form, target, self.path.to_path_buf()));
        }
    }

    /// A patch written in the kustomization: checked there, its lines placed in the file.
    fn inline(&mut self, value: &Node, form: Form, target: Target) {
        let Some(text) = value.as_str() else { return };
        let lines = block_lines(&self.source.text, value, text).unwrap_or_default();
        self.out.inline.push(Patch {
            source: Source { path: SourcePath::File(self.path.to_path_buf()), text: self.source.text.clone() },
            form,
            target,
            kustomization: self.path.to_path_buf(),
            inline: Some(Inline { text: text.to_string(), lines, whole: value.span.clone() }),
        });
    }

    fn configuration(&mut self, text: &str, span: &Range<usize>, field: &str) {
        let file = match self.follow(text, span, field) {
            Some(Named::File(p)) => p,
            // A directory of configurations is a kustomization of its own, read as such.
            Some(Named::Dir(_)) | None => return,
        };
        let entry = self.out.configuration.entry(self.path.to_path_buf()).or_insert_with(|| (span.clone(), Vec::new()));
        if !entry.1.contains(&file) {
            entry.1.push(file);
        }
    }
}

/// What a kustomization sets on its resources.
fn sets_of(root: &Node) -> Sets {
    let non_empty = |key: &str| {
        root.get(key).is_some_and(|v| match &v.value {
            NodeValue::Mapping(m) => !m.is_empty(),
            NodeValue::String(s) => !s.is_empty(),
            _ => false,
        })
    };
    let labels_select = items(root.get("labels")).any(|l| {
        l.get("includeSelectors").is_some_and(|v| v.value == NodeValue::Bool(true))
            && l.get("pairs").is_some_and(|p| matches!(&p.value, NodeValue::Mapping(m) if !m.is_empty()))
    });
    Sets {
        selector: labels_select || non_empty("commonLabels"),
        namespace: non_empty("namespace"),
        name: non_empty("namePrefix") || non_empty("nameSuffix"),
    }
}

fn target_of(node: Option<&Node>) -> Target {
    let get = |k: &str| node.and_then(|n| n.get(k)).and_then(Node::as_str).map(str::to_string);
    Target { group: get("group"), version: get("version"), kind: get("kind") }
}

/// The items of a sequence (none for anything else).
fn items(node: Option<&Node>) -> impl Iterator<Item = &Node> {
    let items: &[Node] = match node.map(|n| &n.value) {
        Some(NodeValue::Sequence(items)) => items,
        _ => &[],
    };
    items.iter()
}

/// The string items of a sequence, with their spans.
fn strings(node: Option<&Node>) -> impl Iterator<Item = (&str, Range<usize>)> {
    items(node).filter_map(|n| n.as_str().map(|s| (s, n.span.clone())))
}

/// Whether a resource names something kustomize fetches (a git repository, a URL) rather
/// than a file of the repository.
fn remote(text: &str) -> bool {
    text.contains("://")
        || text.starts_with("git@")
        || text.starts_with("git::")
        || text.contains("?ref=")
        || ["github.com/", "gitlab.com/", "bitbucket.org/"].iter().any(|h| text.starts_with(h))
}

/// A normalised relative path that climbs above the working directory (`../kustomization.yaml`
/// naming `apps/web/x.yaml`, run from `apps/`) named as the walk names it (`web/x.yaml`) when
/// it comes back below the working directory; any other path as it is.
fn from_cwd(path: PathBuf) -> PathBuf {
    if !matches!(path.components().next(), Some(Component::ParentDir)) {
        return path;
    }
    let Ok(cwd) = std::env::current_dir() else { return path };
    let cwd = normalise(&cwd);
    match normalise(&cwd.join(&path)).strip_prefix(&cwd) {
        Ok(inside) => inside.to_path_buf(),
        Err(_) => path,
    }
}

/// How many kustomizations [`discover`] reads at most: a run on a few named files reads the
/// few that decide their roles, not a monorepo's every overlay.
const MAX_DISCOVERED: usize = 256;

/// The kustomizations that decide the roles of the `named` paths (files or directories named
/// on the command line) without being among the inputs: the one in each named path's
/// directory and in every directory above it up to the repository root (never above it:
/// docs/security.md), and those their `resources:`/`bases:`/`components:` reach; then, from
/// the rest of the repository (`elsewhere`), those that name a named path or build on a
/// kustomization that does (a sibling overlay's `../../patches/x.yaml`, an overlay adding
/// `commonLabels` to a base no kustomization above reaches). So a file named alone (the
/// pre-commit hook on `base/deployment.yaml`) gets the role and the fields set that a run at
/// the root, which reads every kustomization, gives it. `have` holds the kustomizations among
/// the inputs (normalised), which are not read again. Each is confined to its repository and
/// read with the bounded reader; one that cannot be read is an `io-error` warning (the roles
/// it would give are unknown). `search` is how the run walks the repository: the search
/// elsewhere walks it alike.
pub fn discover(named: &[PathBuf], have: &HashSet<PathBuf>, search: Search<'_>) -> crate::input::Collected {
    discover_within(named, have, Limits::default(), search)
}

/// How a run walks a repository, for [`discover`]'s search of the rest of it: a kustomization
/// that a run at the root would not read (ignored, or left out by `exclude:`) gives a file
/// named alone no role either.
#[derive(Clone, Copy)]
pub struct Search<'a> {
    /// Honour `.gitignore`, `.ignore` and git's excludes (the run's `--no-ignore` does not).
    pub respect_ignore_files: bool,
    /// Whether the run leaves a path out (`exclude:`, `--exclude`), named as the walk names
    /// it (from the working directory).
    pub excluded: &'a dyn Fn(&Path) -> bool,
}

impl Default for Search<'_> {
    fn default() -> Self {
        fn none(_: &Path) -> bool {
            false
        }
        Search { respect_ignore_files: true, excluded: &none }
    }
}

fn discover_within(
    named: &[PathBuf],
    have: &HashSet<PathBuf>,
    limits: Limits,
    search: Search<'_>,
) -> crate::input::Collected {
    let mut out = crate::input::Collected::default();
    // Each repository's root (as the walk names it) with its boundary: searched once.
    let mut tops: Vec<(PathBuf, Boundary)> = Vec::new();
    let here = Boundary::of_working_directory();
    let mut seen: HashSet<PathBuf> = have.iter().filter_map(|p| p.parent().map(Path::to_path_buf)).collect();
    // Directories whose kustomization to read, with the boundary it is confined to.
    // Nearest first: the named paths' own directories and those above, then what they build on.
    let mut queue: std::collections::VecDeque<(PathBuf, Boundary)> = std::collections::VecDeque::new();
    for path in named.iter().filter(|p| p.as_os_str() != "-") {
        let start = if path.is_dir() { path.clone() } else { path.parent().map(Path::to_path_buf).unwrap_or_default() };
        let boundary = if here.holds_lexically(path) {
            here.clone()
        } else {
            Boundary::around(if start.as_os_str().is_empty() { Path::new(".") } else { &start })
        };
        let mut dir = from_cwd(normalise(&start));
        for _ in 0..MAX_DEPTH {
            queue.push_back((dir.clone(), boundary.clone()));
            let up = from_cwd(normalise(&dir.join("..")));
            if !boundary.holds_lexically(if up.as_os_str().is_empty() { Path::new(".") } else { &up }) {
                if !tops.iter().any(|(top, _)| *top == dir) {
                    tops.push((dir.clone(), boundary.clone()));
                }
                break;
            }
            dir = up;
        }
    }
    let mut read = 0;
    while let Some((dir, boundary)) = queue.pop_front() {
        if read >= MAX_DISCOVERED || !seen.insert(dir.clone()) {
            continue;
        }
        let on_disk = if dir.as_os_str().is_empty() { Path::new(".") } else { &dir };
        let Some(name) =
            FILE_NAMES.iter().find(|n| std::fs::symlink_metadata(on_disk.join(n)).is_ok_and(|m| m.is_file()))
        else {
            continue;
        };
        let path = dir.join(name);
        let text = match confine(&path, &boundary) {
            Ok(real) => crate::input::read_bounded_to_string(&real, crate::input::MAX_FILE_BYTES),
            Err(refusal) => Err(std::io::Error::other(refusal.to_string())),
        };
        read += 1;
        let text = match text {
            Ok(text) => text,
            Err(e) => {
                out.diagnostics.push(Diagnostic::new(
                    Rule::IoError,
                    crate::diagnostic::Severity::Warning,
                    SourcePath::File(path.clone()),
                    None,
                    format!("cannot read {}: {e}; the roles it gives the files it names are not known", path.display()),
                ));
                continue;
            }
        };
        // The kustomization directories it builds on decide roles too (an overlay's sets reach
        // its bases' resources).
        let stream = driftlint_yaml::parse_stream(&text);
        if let Some(root) = stream.documents.first().map(|d| &d.root) {
            for field in ["resources", "bases", "components"] {
                for (entry, _) in strings(root.get(field)).filter(|(t, _)| !remote(t)) {
                    let below = from_cwd(normalise(&dir.join(entry)));
                    let real = if below.as_os_str().is_empty() { Path::new(".") } else { &below };
                    if !seen.contains(&below) && confine(real, &boundary).is_ok_and(|r| r.is_dir()) {
                        queue.push_back((below, boundary.clone()));
                    }
                }
            }
        }
        out.sources.push(Source { path: SourcePath::File(path), text });
    }
    let seeds: Vec<(PathBuf, bool)> =
        named.iter().filter(|p| p.as_os_str() != "-").map(|p| (from_cwd(normalise(p)), p.is_dir())).collect();
    // The kustomizations known so far reach the named paths: those that build on them do too.
    let reached: HashSet<PathBuf> = have
        .iter()
        .chain(out.sources.iter().filter_map(|s| match &s.path {
            SourcePath::File(p) => Some(p),
            SourcePath::Stdin => None,
        }))
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    let room = MAX_DISCOVERED.saturating_sub(out.sources.len());
    // Only for files named alone (a pre-commit hook's, an editor's): a named directory is a
    // tree the user chose, checked with the kustomizations in and above it, and a walk of the
    // whole repository on every such run would cost as much as checking it (a directory named
    // in a tree of 250,000 files met the walk's limit, and its note, on every run).
    let files_named = seeds.iter().any(|(_, dir)| !dir);
    for (top, boundary) in tops.iter().filter(|_| files_named) {
        // A named directory that holds the whole repository: its walk read every kustomization.
        if seeds.iter().any(|(s, dir)| *dir && elsewhere::inside(top, s)) {
            continue;
        }
        let found = elsewhere::elsewhere(top, boundary, &seeds, &mut seen, &reached, limits, room, search);
        out.sources.extend(found.sources);
        out.diagnostics.extend(found.diagnostics);
    }
    out
}

/// `path` with `.` dropped and `..` taken back lexically (a kustomization's `../base/x.yaml`
/// named as the walk names `base/x.yaml`); a `..` past the start is kept.
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Where the lines of a literal block scalar (`patch: |`) start in `source`: per line of the
/// string, (offset in the string, offset in the source). `None` for other styles, whose
/// lines cannot be placed one for one.
fn block_lines(source: &str, value: &Node, text: &str) -> Option<Vec<(usize, usize)>> {
    if !matches!(value.style, Some(ScalarStyle::Literal)) {
        return None;
    }
    // The content starts on the line after the indicator (`|`, `|-`, `|2`).
    let after = source.get(value.span.start..)?.find('\n')? + value.span.start + 1;
    let body = source.get(after..value.span.end.max(after))?;
    let indent = body.lines().find(|l| !l.trim().is_empty())?.chars().take_while(|c| *c == ' ').count();
    let mut out = Vec::new();
    let (mut in_text, mut in_source) = (0, after);
    for line in text.split_inclusive('\n') {
        let src_line_len = source[in_source..].find('\n').map_or(source.len() - in_source, |n| n + 1);
        let src_line = &source[in_source..in_source + src_line_len];
        let pad = src_line.chars().take_while(|c| *c == ' ').count().min(indent);
        out.push((in_text, in_source + pad));
        in_text += line.len();
        in_source += src_line_len;
        if in_source >= source.len() {
            break;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised_as_the_walk_names_them() {
        assert_eq!(normalise(Path::new("overlays/prod/../../base/d.yaml")), PathBuf::from("base/d.yaml"));
        assert_eq!(normalise(Path::new("./a/./b.yaml")), PathBuf::from("a/b.yaml"));
        assert_eq!(normalise(Path::new("../x.yaml")), PathBuf::from("../x.yaml"));
    }

    #[test]
    fn remote_resources_are_not_files() {
        assert!(remote("https://github.com/x/y/deploy.yaml"));
        assert!(remote("github.com/kubernetes-sigs/kustomize/examples/multibases?ref=v1.0.6"));
        assert!(!remote("../base"));
    }

    #[test]
    fn an_inline_block_patch_maps_to_its_lines() {
        let source = "patches:\n- patch: |-\n    kind: Deployment\n    spec:\n      x: 1\n";
        let stream = driftlint_yaml::parse_stream(source);
        let root = &stream.documents[0].root;
        let value = root.get("patches").unwrap().pointer("/0/patch").unwrap();
        let text = value.as_str().unwrap();
        let lines = block_lines(source, value, text).unwrap();
        let inline = Inline { text: text.to_string(), lines, whole: value.span.clone() };
        let at = text.find("x: 1").unwrap();
        let mapped = inline.map(at..at + 1);
        assert_eq!(&source[mapped.start..mapped.start + 4], "x: 1");
    }

    /// A patch named only by a sibling directory's kustomization is found by the search of
    /// the repository; a search cut short by its limits reads nothing more and says so.
    #[test]
    fn the_search_for_sibling_kustomizations_is_bounded_and_says_so() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir(root.join(".git")).unwrap();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        // Walked first (sorted): directories of plain files.
        for i in 0..10 {
            write(&format!("a{i}/x.yaml"), "kind: ConfigMap\n");
        }
        write("overlays/prod/kustomization.yaml", "patches:\n  - path: ../../patches/p.yaml\n");
        write("other/kustomization.yaml", "resources:\n  - cm.yaml\n");
        write("patches/p.yaml", "kind: Deployment\n");
        let named = [root.join("patches/p.yaml")];
        let found = discover_within(&named, &HashSet::new(), Limits::default(), Search::default());
        let paths: Vec<_> = found.sources.iter().map(|s| s.path.clone()).collect();
        assert_eq!(paths, [SourcePath::File(root.join("overlays/prod/kustomization.yaml"))]);
        assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
        let cut = discover_within(&named, &HashSet::new(), Limits { entries: 12, read: 10 }, Search::default());
        assert!(cut.sources.is_empty(), "{:?}", cut.sources);
        assert_eq!(cut.diagnostics.len(), 1);
        assert!(cut.diagnostics[0].message.contains("stopped after 12 entries"), "{}", cut.diagnostics[0].message);
        let few = discover_within(&named, &HashSet::new(), Limits { entries: 100, read: 1 }, Search::default());
        assert_eq!(few.diagnostics.len(), 1, "{:?}", few.sources);
        assert!(
            few.diagnostics[0].message.contains("stopped after 1 kustomizations"),
            "{}",
            few.diagnostics[0].message
        );
    }

    /// The search reads ignore files as the inputs' walk does, so one that is no regular file
    /// (a link to /dev/zero, a FIFO) never blocks it: a directory holding one is not entered,
    /// and one at the root stops the search with a note. (The search runs on a thread of its
    /// own: a regression that blocks fails the test instead of hanging the suite.)
    #[cfg(unix)]
    #[test]
    fn the_search_for_sibling_kustomizations_reads_no_special_ignore_file() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        std::fs::create_dir(root.join(".git")).unwrap();
        for (rel, text) in [
            ("a/kustomization.yaml", "patches:\n  - path: ../patches/p.yaml\n"),
            ("overlays/prod/kustomization.yaml", "patches:\n  - path: ../../patches/p.yaml\n"),
            ("patches/p.yaml", "kind: Deployment\n"),
        ] {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        }
        std::os::unix::fs::symlink("/dev/zero", root.join("a/.gitignore")).unwrap();
        let search = |root: PathBuf| {
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _ = tx.send(discover_within(
                    &[root.join("patches/p.yaml")],
                    &HashSet::new(),
                    Limits::default(),
                    Search::default(),
                ));
            });
            rx.recv_timeout(std::time::Duration::from_secs(120)).expect("the search ends")
        };
        let found = search(root.clone());
        let paths: Vec<_> = found.sources.iter().map(|s| s.path.clone()).collect();
        assert_eq!(paths, [SourcePath::File(root.join("overlays/prod/kustomization.yaml"))]);
        assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
        let made = std::process::Command::new("mkfifo").arg(root.join(".ignore")).status().expect("mkfifo runs");
        assert!(made.success());
        let found = search(root.clone());
        assert!(found.sources.is_empty(), "{:?}", found.sources);
        assert_eq!(found.diagnostics.len(), 1);
        assert!(found.diagnostics[0].message.contains("was not made"), "{}", found.diagnostics[0].message);
        assert!(found.diagnostics[0].message.contains("named pipe"), "{}", found.diagnostics[0].message);
    }
}
