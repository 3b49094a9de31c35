//! `.driftlint.yaml`: discovery, strict decoding from the spanned YAML tree, and the
//! effective configuration after command-line flags.
//!
//! The file is decoded by hand from [`driftlint_yaml::Node`] rather than through serde so that
//! every error — an unknown key, a wrong type, an unknown rule — names the file, line and
//! column of the offending node. [`FIELDS`] is the one description of the format: the decoder
//! rejects anything not in it, `driftlint config show` prints it, and the JSON Schema in
//! `docs/driftlint.schema.json` is generated from it ([`json_schema`]).
//!
//! [`resolve`] puts the command line's flags on top of the file's keys and gives the
//! [`Settings`] of a run; [`weakened`] says what a change to the file takes away.

pub mod resolve;
mod settings;
pub mod weakened;

pub use settings::Settings;

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use driftlint_core::confine::Refusal;
use driftlint_yaml::{LineIndex, Node, NodeValue};

use driftlint_core::diagnostic::{Rule, Severity};

/// The file name looked for in each directory.
pub const FILE_NAME: &str = ".driftlint.yaml";

/// The `$id` of the configuration's JSON Schema: where the repository serves
/// `docs/driftlint.schema.json` on its default branch, an https URL that editors (the YAML
/// language server's `$schema=` modeline, SchemaStore's catalog) can fetch. `OWNER` is the
/// placeholder README's snippets use for the repository's home.
pub const SCHEMA_ID: &str = "https://raw.githubusercontent.com/OWNER/driftlint/main/docs/driftlint.schema.json";

/// What a rule is set to in `rules:`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Off,
    On(Severity),
}

impl Level {
    pub const NAMES: [&'static str; 4] = ["off", "note", "warning", "error"];

    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "off" => Some(Level::Off),
            _ => parse_severity(s).map(Level::On),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Level::Off => "off",
            Level::On(s) => s.as_str(),
        }
    }
}

pub fn parse_severity(s: &str) -> Option<Severity> {
    match s {
        "note" => Some(Severity::Note),
        "warning" => Some(Severity::Warning),
        "error" => Some(Severity::Error),
        _ => None,
    }
}

/// One reviewer-visible suppression from `ignore:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoreEntry {
    /// A kube-compare CR id (`apps/v1_Deployment_web_frontend`) or a glob over it (`*`, `?`).
    pub object: String,
    /// A rule id, or `*` for every rule.
    pub rule: String,
    /// A JSON pointer; the entry then silences only findings about that field (or below it).
    pub field: Option<String>,
    pub reason: String,
}

/// A decoded configuration file (or the defaults). Paths are as written; [`Config::dir`]
/// is what relative ones are relative to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// The file it was read from, if any.
    pub file: Option<PathBuf>,
    /// The directory relative paths in the file are resolved against.
    pub dir: PathBuf,
    pub reference: Option<String>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub diff_config: Option<String>,
    pub overrides: Option<String>,
    pub rules: BTreeMap<Rule, Level>,
    /// Output formats (from the file: names only, never files; see [`parse_config`]).
    pub format: Option<String>,
    pub fail_level: Option<Severity>,
    pub ignore: Vec<IgnoreEntry>,
    /// Whether a missing `driftlint.lock` is a finding (`require-lock: true`).
    pub require_lock: bool,
    /// Line and column of each path-valued key's value in the file, for [`Config::confined`].
    pub positions: BTreeMap<String, (usize, usize)>,
    /// The file's text (empty without a file).
    pub text: String,
    /// Where each setting is in [`Config::text`]: a top-level key (`fail-level`), a rule
    /// (`rules.value-drift`), a list item (`exclude.GLOB`, `include.GLOB`, `ignore.N`) — from
    /// the key to the end of its value. For findings about the configuration.
    pub spans: BTreeMap<String, std::ops::Range<usize>>,
    // --- schema pass ---
    /// CRD/XRD files, directories or git locations (`schemas:`), as written.
    pub schemas: Vec<String>,
    /// `schema-mode:` (`loose` or `strict`).
    pub schema_mode: Option<driftlint_schema::Mode>,
    /// `crossplane-version:` (1 or 2), the Crossplane major version Compositions are read for.
    pub crossplane_version: Option<u8>,
    /// `kubernetes-version:`, a bundled version (`1.31`): whose built-in kinds are validated.
    pub kubernetes_version: Option<&'static str>,
    /// `builtin-schemas:`: whether Kubernetes' built-in kinds are validated (`None`: yes).
    pub builtin_schemas: Option<bool>,
    /// `schema-locations:`: kubeconform-style JSON schema directories or path templates.
    pub schema_locations: Vec<String>,
    /// `policies:`, `policy-data:`, `policy-namespaces:`, `policy-combine:`, `policy-cases:`,
    /// `policy-inputs:`, `policy-all-namespaces:`.
    pub policy: PolicyConfig,
}

// ---- Rego policies (the policy pass) -------------------------------------------------------

/// The policy keys of the file. Paths are as written (relative to the file, or git locations).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyConfig {
    pub policies: Vec<String>,
    pub data: Vec<String>,
    pub namespaces: Vec<String>,
    pub combine: Option<bool>,
    pub cases: Option<String>,
    /// `policy-inputs:` globs.
    pub inputs: Vec<String>,
    /// `policy-all-namespaces:`.
    pub all_namespaces: Option<bool>,
    /// `rego-version:` (`v0` or `v1`).
    pub rego_version: Option<driftlint_policy::engine::RegoVersion>,
}

/// The policy keys, as [`FIELDS`] entries.
const POLICY_FIELDS: [(&str, &str, &str); 8] = [
    (
        "policies",
        "strings",
        "Rego policies for the policy pass (conftest conventions): .rego files or directories (read recursively), relative to this file, or git locations.",
    ),
    (
        "policy-data",
        "strings",
        "Data documents for the policies: JSON/YAML files, or directories whose files are merged at the root of `data`.",
    ),
    ("policy-namespaces", "strings", "The Rego packages whose deny/violation/warn rules run (default: main)."),
    (
        "policy-combine",
        "boolean",
        "Evaluate the policies once over all objects (input: [{path, contents}]) instead of once per object.",
    ),
    (
        "policy-cases",
        "string",
        "A directory of Fybrik EvaluatorInputs (*.input.json/yaml, data.json/yaml, *.expected.json/yaml) replayed against the adminconfig policies.",
    ),
    (
        "policy-inputs",
        "strings",
        "gitignore-style globs, relative to this file, of inputs whose YAML/JSON documents are policy inputs even when they are no Kubernetes objects (as files named on the command line are).",
    ),
    (
        "policy-all-namespaces",
        "boolean",
        "Run the deny/violation/warn rules of every package instead of policy-namespaces (conftest --all-namespaces).",
    ),
    (
        "rego-version",
        "string",
        "The Rego syntax of the policies: v1 (OPA 1.x, the default) or v0 (OPA 0.x). `import rego.v1` works in both.",
    ),
];

impl Decoder<'_> {
    /// Decodes policy key `name`; `Ok(false)` when it is not one.
    fn policy_key(&self, config: &mut PolicyConfig, name: &str, value: &Node) -> Result<bool, ConfigError> {
        match name {
            "policies" => config.policies = self.strings(value)?,
            "policy-data" => config.data = self.strings(value)?,
            "policy-namespaces" => config.namespaces = self.strings(value)?,
            "policy-combine" | "policy-all-namespaces" => {
                let flag = match value.value {
                    NodeValue::Null => None,
                    NodeValue::Bool(b) => Some(b),
                    _ => {
                        return Err((self.invalid)(
                            value.span.start,
                            format!("expected true or false, found {}", kind(value)),
                        ));
                    }
                };
                match name {
                    "policy-combine" => config.combine = flag,
                    _ => config.all_namespaces = flag,
                }
            }
            "policy-inputs" => config.inputs = self.strings(value)?,
            "policy-cases" => config.cases = self.opt_string(value)?,
            "rego-version" => {
                config.rego_version = match self.opt_string(value)? {
                    None => None,
                    Some(v) => match driftlint_policy::engine::RegoVersion::parse(&v) {
                        Some(version) => Some(version),
                        None => {
                            return Err((self.invalid)(value.span.start, format!("expected v0 or v1, found `{v}`")));
                        }
                    },
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

impl PolicyConfig {
    fn to_yaml(&self, m: &mut serde_json::Map<String, serde_json::Value>) {
        m.insert("policies".into(), self.policies.clone().into());
        m.insert("policy-data".into(), self.data.clone().into());
        m.insert("policy-namespaces".into(), self.namespaces.clone().into());
        m.insert("policy-combine".into(), self.combine.map_or(serde_json::Value::Null, Into::into));
        m.insert("policy-cases".into(), self.cases.clone().map_or(serde_json::Value::Null, Into::into));
        m.insert("policy-inputs".into(), self.inputs.clone().into());
        m.insert("policy-all-namespaces".into(), self.all_namespaces.map_or(serde_json::Value::Null, Into::into));
        m.insert("rego-version".into(), self.rego_version.map_or(serde_json::Value::Null, |v| v.as_str().into()));
    }
}

// ---- end of Rego policies ------------------------------------------------------------------

/// The keys of the file, their JSON Schema type and what they mean.
pub const FIELDS: [(&str, &str, &str); 16] = [
    (
        "reference",
        "string",
        "The reference: a metadata.yaml file or the directory holding it, relative to this file and inside its repository, or a git location in this repository read without a checkout (git:REV:PATH, PATH from the repository root).",
    ),
    ("include", "strings", "File-name globs a directory walk takes (default: *.yaml, *.yml, *.json)."),
    ("exclude", "strings", "gitignore-style globs, relative to this file, of inputs to leave out."),
    (
        "diff-config",
        "string",
        "A kube-compare diff config (correlationSettings), relative to this file and inside its repository, or a git location in this repository.",
    ),
    (
        "overrides",
        "string",
        "A kube-compare overrides file (-p), relative to this file and inside its repository, or a git location in this repository.",
    ),
    ("rules", "rules", "Per-rule level: off, note, warning or error."),
    (
        "format",
        "string",
        "Output formats written to standard output, comma-separated (human, concise, json, sarif, github, markdown, junit); files are named on the command line only (--format FMT=FILE).",
    ),
    ("fail-level", "severity", "The lowest severity that makes the run fail (default: error)."),
    (
        "require-lock",
        "boolean",
        "Whether driftlint.lock must exist beside this file: without it, check reports reference-changed (default: false).",
    ),
    (
        "ignore",
        "ignores",
        "Suppressions: each names an object (CR id or glob), a rule, optionally a field, and a reason.",
    ),
    (
        "schemas",
        "strings",
        "CustomResourceDefinitions and Crossplane CompositeResourceDefinitions to validate against: files or directories relative to this file, or git locations (git:REV:PATH).",
    ),
    (
        "schema-mode",
        "schema-mode",
        "What a type without a schema is: loose (a warning), strict (an error) or ignore (not reported, only counted). Default: loose, or ignore when a reference is configured and no schema setting is given.",
    ),
    (
        "crossplane-version",
        "crossplane-version",
        "The Crossplane major version (1 or 2) Compositions are read for: under 2 a Composition without `mode` is a Pipeline. Default: 2 for a composite type defined by an apiextensions.crossplane.io/v2 XRD, else 1.",
    ),
    (
        "kubernetes-version",
        "kubernetes-version",
        "The Kubernetes version (MAJOR.MINOR, quoted) whose built-in kinds objects are validated against; one of the bundled versions, by default the newest.",
    ),
    (
        "builtin-schemas",
        "boolean",
        "Whether objects of Kubernetes' built-in kinds (Deployment, Service, …) are validated against the bundled schemas and the API server's rules: true (the default) or false.",
    ),
    (
        "schema-locations",
        "strings",
        "kubeconform-style JSON schema directories or path templates ({{ .ResourceKind }}{{ .KindSuffix }}.json…), relative to this file; local only, trusted.",
    ),
];

/// The keys whose values are paths read by a check: confined to the repository
/// ([`Config::confined`]).
pub const PATH_KEYS: [&str; 7] =
    ["reference", "diff-config", "overrides", "schemas", "policies", "policy-data", "policy-cases"];

const IGNORE_FIELDS: [&str; 4] = ["object", "rule", "field", "reason"];

/// A configuration that cannot be used: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("{}:{line}:{column}: {message}", path.display())]
    Invalid { path: PathBuf, line: usize, column: usize, message: String },
}

/// Finds `.driftlint.yaml` in `start` or a parent, stopping after the first directory that
/// holds `.git` (the repository root), as ruff and typos stop at their project root.
pub fn discover(start: &Path) -> Option<PathBuf> {
    let start = if start.as_os_str().is_empty() { Path::new(".") } else { start };
    let mut dir = std::path::absolute(start).ok()?;
    loop {
        let candidate = dir.join(FILE_NAME);
        // Anything by that name counts (a FIFO or a link to a device too): reading it then says
        // what is wrong, rather than the file being silently passed over.
        if std::fs::symlink_metadata(&candidate).is_ok() {
            return Some(candidate);
        }
        if dir.join(".git").exists() || !dir.pop() {
            return None;
        }
    }
}

/// Reads and decodes a configuration file.
pub fn load_config(path: &Path) -> Result<Config, ConfigError> {
    // The file comes with the checked repository: a regular file of bounded size only.
    let text = driftlint_core::input::read_bounded_to_string(path, 1 << 20)
        .map_err(|e| ConfigError::Read { path: path.to_path_buf(), message: e.to_string() })?;
    parse_config(path, &text)
}

/// Decodes a configuration text; `path` names it in errors and anchors relative paths.
pub fn parse_config(path: &Path, text: &str) -> Result<Config, ConfigError> {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
    let mut config = Config { file: Some(path.to_path_buf()), dir, text: text.to_string(), ..Config::default() };
    let invalid = |offset: usize, message: String| {
        let at = LineIndex::new(text).line_column(text, offset);
        ConfigError::Invalid { path: path.to_path_buf(), line: at.line, column: at.column, message }
    };
    let stream = driftlint_yaml::parse_stream(text);
    if let Some(e) = &stream.error {
        return Err(invalid(e.offset, format!("invalid YAML: {}", e.message)));
    }
    if let Some(w) = stream.documents.iter().flat_map(|d| &d.warnings).next() {
        return Err(invalid(w.span().start, w.message()));
    }
    if stream.documents.len() > 1 {
        return Err(invalid(stream.documents[1].range.start, "expected one YAML document".into()));
    }
    let Some(root) = stream.documents.first().map(|d| &d.root) else { return Ok(config) };
    let entries = match &root.value {
        NodeValue::Null => return Ok(config),
        NodeValue::Mapping(entries) => entries,
        _ => return Err(invalid(root.span.start, "expected a mapping of settings".into())),
    };
    let d = Decoder { invalid: &invalid };
    let index = LineIndex::new(text);
    for (key, value) in entries {
        let name = key.json_key();
        if PATH_KEYS.contains(&name.as_ref()) {
            let at = index.line_column(text, value.span.start);
            config.positions.insert(name.to_string(), (at.line, at.column));
        }
        record_spans(&mut config.spans, &name, key, value);
        match name.as_ref() {
            "reference" => config.reference = d.opt_string(value)?,
            "include" => config.include = d.strings(value)?,
            "exclude" => config.exclude = d.strings(value)?,
            "diff-config" => config.diff_config = d.opt_string(value)?,
            "overrides" => config.overrides = d.opt_string(value)?,
            "format" => {
                config.format = d.opt_string(value)?;
                // The file comes with the checked repository: it must not choose where
                // driftlint writes (`concise=/home/me/.bashrc`).
                if config.format.as_deref().is_some_and(|f| f.contains('=')) {
                    return Err(invalid(
                        value.span.start,
                        "`format:` names formats only: output files are given on the command line \
                         (--format FMT=FILE), never by the configuration of the checked repository"
                            .into(),
                    ));
                }
            }
            "markdown-template" => {
                return Err(invalid(
                    key.span.start,
                    "`markdown-template` is accepted on the command line only (--markdown-template FILE): \
                     its text goes into the published summary, and this file comes with the checked repository"
                        .into(),
                ));
            }
            "fail-level" => {
                config.fail_level = match d.opt_string(value)? {
                    None => None,
                    Some(s) => Some(parse_severity(&s).ok_or_else(|| {
                        invalid(value.span.start, format!("unknown severity `{s}` (expected note, warning or error)"))
                    })?),
                }
            }
            "rules" => config.rules = d.rules(value)?,
            "require-lock" => {
                config.require_lock = match &value.value {
                    NodeValue::Null => false,
                    NodeValue::Bool(b) => *b,
                    _ => {
                        return Err(invalid(
                            value.span.start,
                            format!("expected true or false, found {}", kind(value)),
                        ));
                    }
                }
            }
            "ignore" => config.ignore = d.ignores(value)?,
            "schemas" => config.schemas = d.strings(value)?,
            "schema-mode" => {
                config.schema_mode = match d.opt_string(value)? {
                    None => None,
                    Some(s) => Some(driftlint_schema::Mode::parse_setting(&s).ok_or_else(|| {
                        invalid(
                            value.span.start,
                            format!("unknown schema mode `{s}` (expected loose, strict or ignore)"),
                        )
                    })?),
                }
            }
            "crossplane-version" => {
                config.crossplane_version = match &value.value {
                    NodeValue::Null => None,
                    NodeValue::Int(v @ (1 | 2)) => Some(*v as u8),
                    _ => {
                        return Err(invalid(
                            value.span.start,
                            format!(
                                "unknown Crossplane version `{}` (expected 1 or 2)",
                                value.raw().or(value.as_str()).unwrap_or(kind(value))
                            ),
                        ));
                    }
                }
            }
            "schema-locations" => config.schema_locations = d.strings(value)?,
            "builtin-schemas" => {
                config.builtin_schemas = match &value.value {
                    NodeValue::Null => None,
                    NodeValue::Bool(b) => Some(*b),
                    _ => {
                        return Err(invalid(
                            value.span.start,
                            format!("expected true or false, found {}", kind(value)),
                        ));
                    }
                }
            }
            "kubernetes-version" => {
                config.kubernetes_version = match &value.value {
                    NodeValue::Null => None,
                    NodeValue::String(s) => Some(driftlint_kube_schemas::parse_version(s).ok_or_else(|| {
                        invalid(value.span.start, driftlint_schema::builtin::unknown_version_message(s))
                    })?),
                    _ => {
                        return Err(invalid(
                            value.span.start,
                            format!("expected a quoted version such as \"1.31\", found {}", kind(value)),
                        ));
                    }
                }
            }
            other if d.policy_key(&mut config.policy, other, value)? => {}
            other => {
                let known: Vec<&str> = FIELDS.iter().chain(&POLICY_FIELDS).map(|f| f.0).collect();
                let hint = nearest_key(other, &known).map(|k| format!(" (did you mean `{k}`?)")).unwrap_or_default();
                return Err(invalid(
                    key.span.start,
                    format!("unknown key `{other}`{hint} (expected one of: {})", known.join(", ")),
                ));
            }
        }
    }
    Ok(config)
}

/// The known key closest to a mistyped one (`fail_level`, `refrence`), when one is close
/// enough to suggest: Jaro-Winkler similarity, as clap's suggestions for flags and
/// [`Rule::nearest`] for rule ids; `_` is compared as `-`, the spelling of every key.
fn nearest_key<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    let key = key.trim().to_ascii_lowercase().replace('_', "-");
    known
        .iter()
        .map(|k| (strsim::jaro_winkler(&key, k), *k))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// Typed reads of nodes, failing with the node's location.
struct Decoder<'a> {
    invalid: &'a dyn Fn(usize, String) -> ConfigError,
}

impl Decoder<'_> {
    fn string(&self, node: &Node) -> Result<String, ConfigError> {
        match &node.value {
            NodeValue::String(s) => Ok(s.clone()),
            _ => Err((self.invalid)(node.span.start, format!("expected a string, found {}", kind(node)))),
        }
    }

    fn opt_string(&self, node: &Node) -> Result<Option<String>, ConfigError> {
        match node.value {
            NodeValue::Null => Ok(None),
            _ => self.string(node).map(Some),
        }
    }

    fn strings(&self, node: &Node) -> Result<Vec<String>, ConfigError> {
        match &node.value {
            NodeValue::Null => Ok(Vec::new()),
            NodeValue::Sequence(items) => items.iter().map(|i| self.string(i)).collect(),
            _ => Err((self.invalid)(node.span.start, format!("expected a list of strings, found {}", kind(node)))),
        }
    }

    fn mapping<'n>(&self, node: &'n Node) -> Result<&'n [(Node, Node)], ConfigError> {
        match &node.value {
            NodeValue::Null => Ok(&[]),
            NodeValue::Mapping(entries) => Ok(entries),
            _ => Err((self.invalid)(node.span.start, format!("expected a mapping, found {}", kind(node)))),
        }
    }

    fn rules(&self, node: &Node) -> Result<BTreeMap<Rule, Level>, ConfigError> {
        let mut out = BTreeMap::new();
        for (k, v) in self.mapping(node)? {
            let id = k.json_key();
            let rule = Rule::from_id(&id).ok_or_else(|| {
                (self.invalid)(
                    k.span.start,
                    format!("unknown rule `{id}`{} (`driftlint explain` lists every rule)", Rule::suggestion(&id)),
                )
            })?;
            // `off` is a YAML 1.1 boolean: accept `false` as off too, rather than surprise.
            let level = match &v.value {
                NodeValue::Bool(false) => Level::Off,
                NodeValue::String(s) => Level::parse(s).ok_or_else(|| {
                    (self.invalid)(
                        v.span.start,
                        format!("unknown level `{s}` (expected one of: {})", Level::NAMES.join(", ")),
                    )
                })?,
                _ => {
                    return Err((self.invalid)(
                        v.span.start,
                        format!("expected off, note, warning or error, found {}", kind(v)),
                    ));
                }
            };
            out.insert(rule, level);
        }
        Ok(out)
    }

    fn ignores(&self, node: &Node) -> Result<Vec<IgnoreEntry>, ConfigError> {
        let items = match &node.value {
            NodeValue::Null => return Ok(Vec::new()),
            NodeValue::Sequence(items) => items,
            _ => {
                return Err((self.invalid)(
                    node.span.start,
                    format!("expected a list of entries, found {}", kind(node)),
                ));
            }
        };
        let mut out = Vec::new();
        for item in items {
            let mut e = IgnoreEntry { object: String::new(), rule: String::new(), field: None, reason: String::new() };
            for (k, v) in self.mapping(item)? {
                match k.json_key().as_ref() {
                    "object" => e.object = self.string(v)?,
                    "rule" => {
                        e.rule = self.string(v)?;
                        if e.rule != "*" && Rule::from_id(&e.rule).is_none() {
                            return Err((self.invalid)(
                                v.span.start,
                                format!("unknown rule `{}`{}", e.rule, Rule::suggestion(&e.rule)),
                            ));
                        }
                    }
                    "field" => e.field = self.opt_string(v)?,
                    "reason" => e.reason = self.string(v)?,
                    other => {
                        return Err((self.invalid)(
                            k.span.start,
                            format!(
                                "unknown key `{other}` in an ignore entry (expected one of: {})",
                                IGNORE_FIELDS.join(", ")
                            ),
                        ));
                    }
                }
            }
            // A suppression a reviewer cannot understand is worse than none.
            for (name, value) in [("object", &e.object), ("rule", &e.rule), ("reason", &e.reason)] {
                if value.trim().is_empty() {
                    return Err((self.invalid)(
                        item.span.start,
                        format!("ignore entry without `{name}` (object, rule and reason are required)"),
                    ));
                }
            }
            out.push(e);
        }
        Ok(out)
    }
}

/// Where a top-level setting and each of its parts are, for [`Config::spans`].
fn record_spans(spans: &mut BTreeMap<String, std::ops::Range<usize>>, name: &str, key: &Node, value: &Node) {
    spans.insert(name.to_string(), key.span.start..value.span.end.max(key.span.end));
    match (&value.value, name) {
        (NodeValue::Mapping(entries), "rules") => {
            for (k, v) in entries {
                spans.insert(format!("rules.{}", k.json_key()), k.span.start..v.span.end.max(k.span.end));
            }
        }
        (NodeValue::Sequence(items), "exclude" | "include" | "schemas" | "policies" | "policy-namespaces") => {
            for item in items {
                if let NodeValue::String(glob) = &item.value {
                    spans.entry(format!("{name}.{glob}")).or_insert_with(|| item.span.clone());
                }
            }
        }
        (NodeValue::Sequence(items), "ignore") => {
            for (i, item) in items.iter().enumerate() {
                spans.insert(format!("ignore.{i}"), item.span.clone());
            }
        }
        _ => {}
    }
}

fn kind(node: &Node) -> &'static str {
    match node.value {
        NodeValue::Null => "null",
        NodeValue::Bool(_) => "a boolean",
        NodeValue::Int(_) | NodeValue::Float(_) => "a number",
        NodeValue::String(_) => "a string",
        NodeValue::Sequence(_) => "a list",
        NodeValue::Mapping(_) => "a mapping",
    }
}

impl Config {
    /// Where `driftlint.lock` is: beside the configuration file, else in the working directory.
    pub fn lock_path(&self) -> PathBuf {
        let name = driftlint_reference::lock::FILE_NAME;
        if self.dir == Path::new(".") { PathBuf::from(name) } else { self.dir.join(name) }
    }

    /// A path-valued setting of the file (`key: value`, one of [`PATH_KEYS`]), resolved against
    /// the file's directory and confined to the repository holding the file (the nearest
    /// directory upwards with `.git`, else the file's own directory): the configuration comes
    /// with the checked repository, and must not make driftlint read `/proc/self/environ`,
    /// `~/.ssh` or `.git/config` into a report. Refused: absolute paths, paths leaving the
    /// repository (`..`, or a symlink on the way), anything inside `.git`. Without a file
    /// (flags only) the value is resolved as given.
    pub fn confined(&self, key: &str, value: &str) -> Result<PathBuf, ConfigError> {
        let resolved = self.resolve(value);
        let Some(file) = &self.file else { return Ok(resolved) };
        let refuse = |why: &str| {
            let (line, column) = self.positions.get(key).copied().unwrap_or((1, 1));
            ConfigError::Invalid {
                path: file.clone(),
                line,
                column,
                message: format!(
                    "`{key}: {value}` {why}: paths in the configuration must stay inside the repository that holds \
                     it (give other files on the command line)"
                ),
            }
        };
        if Path::new(value).has_root() {
            return Err(refuse("is an absolute path"));
        }
        // Resolved for real, every component; a path that does not exist (or a template's
        // unexpanded part) is left to the reader, which confines what it opens again.
        let boundary = driftlint_core::confine::Boundary::around(&self.dir);
        match driftlint_core::confine::confine(&resolved, &boundary) {
            Ok(_) => {}
            Err(Refusal::Leaves(_)) => return Err(refuse("leaves the repository")),
            Err(Refusal::Git(_)) => return Err(refuse("is inside .git")),
            Err(Refusal::Symlink(_) | Refusal::Loop(_)) => {
                return Err(refuse("leads out of the repository through a symlink"));
            }
        }
        Ok(resolved)
    }

    /// A git location written in the file: only `git:REV:PATH`, which reads this repository's
    /// own history; `git+file://` (another repository on this machine) is for the command line.
    pub fn confined_location(&self, key: &str, value: &str) -> Result<(), ConfigError> {
        let Some(file) = &self.file else { return Ok(()) };
        if value.starts_with(driftlint_git::location::FILE_PREFIX) {
            let (line, column) = self.positions.get(key).copied().unwrap_or((1, 1));
            return Err(ConfigError::Invalid {
                path: file.clone(),
                line,
                column,
                message: format!(
                    "`{key}: {value}` reads another repository on this machine: the configuration may name git \
                     locations in its own repository only (`git:REV:PATH`); give others on the command line"
                ),
            });
        }
        Ok(())
    }

    /// A path from the file, resolved against its directory and tidied (`a/../b` → `b`).
    pub fn resolve(&self, path: &str) -> PathBuf {
        normalize(&self.dir.join(path))
    }

    /// The configuration as YAML (`driftlint config show`): every key, defaults included.
    pub fn to_yaml(&self) -> String {
        let mut m = serde_json::Map::new();
        let opt = |v: &Option<String>| v.clone().map_or(serde_json::Value::Null, serde_json::Value::String);
        m.insert("reference".into(), opt(&self.reference));
        m.insert("include".into(), self.include.clone().into());
        m.insert("exclude".into(), self.exclude.clone().into());
        m.insert("diff-config".into(), opt(&self.diff_config));
        m.insert("overrides".into(), opt(&self.overrides));
        let rules: serde_json::Map<String, serde_json::Value> =
            self.rules.iter().map(|(r, l)| (r.id().to_string(), l.name().into())).collect();
        m.insert("rules".into(), rules.into());
        m.insert("format".into(), opt(&self.format));
        m.insert("fail-level".into(), self.fail_level.map_or(serde_json::Value::Null, |s| s.as_str().into()));
        m.insert("require-lock".into(), self.require_lock.into());
        let ignore: Vec<serde_json::Value> = self
            .ignore
            .iter()
            .map(|e| {
                let mut o = serde_json::json!({"object": e.object, "rule": e.rule});
                if let Some(f) = &e.field {
                    o["field"] = f.clone().into();
                }
                o["reason"] = e.reason.clone().into();
                o
            })
            .collect();
        m.insert("ignore".into(), ignore.into());
        m.insert("schemas".into(), self.schemas.clone().into());
        let mode = self.schema_mode.map(driftlint_schema::Mode::name);
        m.insert("schema-mode".into(), mode.map_or(serde_json::Value::Null, Into::into));
        m.insert("crossplane-version".into(), self.crossplane_version.map_or(serde_json::Value::Null, Into::into));
        m.insert("kubernetes-version".into(), self.kubernetes_version.map_or(serde_json::Value::Null, Into::into));
        m.insert("builtin-schemas".into(), self.builtin_schemas.map_or(serde_json::Value::Null, Into::into));
        m.insert("schema-locations".into(), self.schema_locations.clone().into());
        self.policy.to_yaml(&mut m);
        driftlint_yaml::to_yaml_string(&serde_json::Value::Object(m))
    }
}

/// `a/./b/../c` → `a/c` without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() { PathBuf::from(".") } else { out }
}

/// The JSON Schema of the file, generated from [`FIELDS`] (a test keeps the shipped copy in
/// `docs/driftlint.schema.json` current).
pub fn json_schema() -> serde_json::Value {
    use serde_json::json;
    let severity = json!({"enum": ["note", "warning", "error"]});
    let mut props = serde_json::Map::new();
    for (name, ty, description) in FIELDS.iter().chain(&POLICY_FIELDS).copied() {
        let mut schema = match ty {
            "string" => json!({"type": "string"}),
            "boolean" => json!({"type": "boolean"}),
            "strings" => json!({"type": "array", "items": {"type": "string"}}),
            "severity" => severity.clone(),
            "schema-mode" => json!({"enum": ["loose", "strict", "ignore"]}),
            "crossplane-version" => json!({"enum": [1, 2]}),
            "kubernetes-version" => json!({"type": "string", "enum": driftlint_kube_schemas::versions()}),
            "rules" => {
                let rules: serde_json::Map<String, serde_json::Value> = Rule::ALL
                    .iter()
                    .map(|r| (r.id().to_string(), json!({"enum": ["off", "note", "warning", "error"]})))
                    .collect();
                json!({"type": "object", "properties": rules, "additionalProperties": false})
            }
            _ => {
                let mut rule_ids: Vec<&str> = vec!["*"];
                rule_ids.extend(Rule::ALL.iter().map(|r| r.id()));
                json!({
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "object": {"type": "string", "description": "CR id (apiVersion_kind[_namespace]_name) or a glob over it."},
                            "rule": {"enum": rule_ids},
                            "field": {"type": "string", "description": "JSON pointer of the field (and everything below it)."},
                            "reason": {"type": "string", "minLength": 1},
                        },
                        "required": ["object", "rule", "reason"],
                        "additionalProperties": false,
                    }
                })
            }
        };
        schema["description"] = description.into();
        props.insert(name.to_string(), schema);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": ".driftlint.yaml",
        "type": "object",
        "properties": props,
        "additionalProperties": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_config(Path::new("dir/.driftlint.yaml"), text).unwrap_err().to_string()
    }

    #[test]
    fn kubernetes_version_is_a_quoted_bundled_version() {
        let c = parse_config(Path::new("dir/.driftlint.yaml"), "kubernetes-version: \"1.31\"\n").unwrap();
        assert_eq!(c.kubernetes_version, Some("1.31"));
        assert!(
            c.to_yaml().contains("kubernetes-version: '1.31'") || c.to_yaml().contains("kubernetes-version: \"1.31\""),
            "{}",
            c.to_yaml()
        );
        // 1.30 unquoted is the number 1.3.
        assert!(
            err("kubernetes-version: 1.30\n").contains("expected a quoted version such as \"1.31\", found a number"),
            "{}",
            err("kubernetes-version: 1.30\n")
        );
        let e = err("kubernetes-version: \"1.12\"\n");
        assert!(e.starts_with("dir/.driftlint.yaml:1:21: Kubernetes version `1.12` is not bundled"), "{e}");
    }

    #[test]
    fn decodes_every_key() {
        let text = "reference: ../ref\ninclude: ['*.yaml']\nexclude: [tmp/]\ndiff-config: dc.yaml\noverrides: o.yaml\n\
                    rules: {value-drift: warning, unexpected-field: off}\nformat: json\nfail-level: warning\n\
                    ignore:\n  - {object: 'v1_ConfigMap_*', rule: value-drift, field: /data, reason: tuned}\n";
        let c = parse_config(Path::new("dir/.driftlint.yaml"), text).unwrap();
        assert_eq!(c.resolve(c.reference.as_deref().unwrap()), PathBuf::from("ref"));
        assert_eq!(c.rules[&Rule::ValueDrift], Level::On(Severity::Warning));
        assert_eq!(c.rules[&Rule::UnexpectedField], Level::Off);
        assert_eq!(c.fail_level, Some(Severity::Warning));
        assert_eq!(c.ignore[0].field.as_deref(), Some("/data"));
        assert!(c.to_yaml().contains("value-drift: warning"));
    }

    #[test]
    fn errors_name_file_line_and_column() {
        assert_eq!(
            err("reference: r\nfoo: 1\n"),
            "dir/.driftlint.yaml:2:1: unknown key `foo` (expected one of: reference, include, exclude, diff-config, overrides, rules, format, fail-level, require-lock, ignore, schemas, schema-mode, crossplane-version, kubernetes-version, builtin-schemas, schema-locations, policies, policy-data, policy-namespaces, policy-combine, policy-cases, policy-inputs, policy-all-namespaces, rego-version)"
        );
        assert_eq!(
            err("rules:\n  value-drif: error\n"),
            "dir/.driftlint.yaml:2:3: unknown rule `value-drif` (did you mean `value-drift`?) (`driftlint explain` lists every rule)"
        );
        assert_eq!(
            err("rules:\n  value-drift: loud\n"),
            "dir/.driftlint.yaml:2:16: unknown level `loud` (expected one of: off, note, warning, error)"
        );
        assert_eq!(err("include: x\n"), "dir/.driftlint.yaml:1:10: expected a list of strings, found a string");
        assert!(
            err("ignore:\n  - {object: x, rule: value-drift}\n")
                .starts_with("dir/.driftlint.yaml:2:5: ignore entry without `reason`")
        );
        let e = err("ignore:\n  - {object: x, rule: '*', reason: r, why: 1}\n");
        assert!(e.contains("2:39: unknown key `why`"), "{e}");
        assert!(err("a: [\n").starts_with("dir/.driftlint.yaml:"));
    }

    #[test]
    fn empty_file_is_the_defaults() {
        let c = parse_config(Path::new(".driftlint.yaml"), "# nothing\n").unwrap();
        assert_eq!(c.reference, None);
        assert_eq!(c.dir, PathBuf::from("."));
    }

    #[test]
    fn normalizes_lexically() {
        assert_eq!(normalize(Path::new("fixtures/repo/../reference")), PathBuf::from("fixtures/reference"));
        assert_eq!(normalize(Path::new("./a")), PathBuf::from("a"));
        assert_eq!(normalize(Path::new("../a")), PathBuf::from("../a"));
    }
}

#[cfg(test)]
mod schema_tests {

    /// `docs/driftlint.schema.json` is generated; `DRIFTLINT_BLESS=1 cargo test` rewrites it.
    #[test]
    fn shipped_schema_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/driftlint.schema.json");
        let want = serde_json::to_string_pretty(&super::json_schema()).unwrap_or_default() + "\n";
        if driftlint_test_support::rewrite_requested() {
            std::fs::write(&path, &want).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        }
        let got = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            got == want,
            "{} is stale: run `DRIFTLINT_BLESS=1 cargo test -p driftlint --lib schema`",
            path.display()
        );
    }
}
