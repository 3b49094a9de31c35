//! `driftlint ls`: every Kubernetes object found in the inputs, with file and line — the
//! answer to "what does driftlint see?".

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use super::{InputArgs, ListFormat};
use crate::check;
use driftlint_core::diagnostic::Diagnostic;
use driftlint_core::document::{self, Collection, Document, Identity, Origin};
use driftlint_core::escape;
use driftlint_core::input::SourcePath;
use driftlint_yaml::LineIndex;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    config: super::check::ConfigArgs,
    /// Leave out inputs matching this gitignore-style glob, relative to the working directory
    /// (repeatable; besides `exclude:` of the configuration file, as `check` does).
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: ListFormat,
}

#[derive(Serialize)]
struct Listing<'a> {
    objects: Vec<ObjectEntry<'a>>,
    /// Every file a kustomization names, with the role kustomize gives it, by path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    kustomize: Vec<RoleEntry>,
    diagnostics: Vec<DiagnosticEntry<'a>>,
}

#[derive(Serialize)]
struct RoleEntry {
    file: String,
    /// `kustomization`, `resource`, `strategic-merge patch`, `JSON 6902 patch`, `patch`,
    /// `kustomize configuration`.
    role: &'static str,
    /// For a configuration file: the kustomization that names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    by: Option<String>,
}

#[derive(Serialize)]
struct ObjectEntry<'a> {
    #[serde(flatten)]
    identity: &'a Identity,
    file: String,
    line: usize,
    column: usize,
    /// 0-based YAML document index in the file.
    document: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    item: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<OriginEntry<'a>>,
    /// The schema `check` validates the object against (a definition's file, `Kubernetes X.Y
    /// built-in`), or why there is none.
    schema: String,
    /// `resource` when a kustomization names the file as one.
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
}

#[derive(Serialize)]
struct OriginEntry<'a> {
    #[serde(flatten)]
    origin: &'a Origin,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
}

#[derive(Serialize)]
struct DiagnosticEntry<'a> {
    rule: &'static str,
    severity: &'static str,
    message: &'a str,
    file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    super::require_paths(&args.input.paths)?;
    // The same inputs as `check` takes: the configuration's `include:`/`exclude:` (found as
    // `check` finds it) and `--exclude`; without paths, the configuration file's directory.
    let cfg = args.config.load(&crate::config::resolve::discovery_start(&args.input.paths))?;
    let settings = crate::config::Settings {
        reference: crate::config::resolve::reference_location(None, &cfg)?,
        git_start: cfg.dir.clone(),
        paths: if args.input.paths.is_empty() { vec![cfg.dir.clone()] } else { args.input.paths() },
        include: cfg.include.clone(),
        exclude: cfg.exclude.clone(),
        exclude_root: cfg.dir.clone(),
        exclude_cli: args.exclude.clone(),
        no_ignore: args.input.no_ignore,
        ..crate::config::Settings::default()
    };
    let collected = check::collect_inputs(&settings);
    let split = check::manifest_inputs(&settings, collected)?;
    let roles = split.roles;
    let mut collected = driftlint_core::input::Collected { sources: split.kept, diagnostics: split.notes };
    // From a subdirectory, the configuration's directory further up is listed: shown from
    // where the user stands, as `check` shows it.
    if let Ok(cwd) = std::env::current_dir() {
        crate::report::relativize(&mut collected.diagnostics, &mut collected.sources, &cwd);
    }
    let opts = document::Options { origin_root: args.input.origin_root.clone(), ..Default::default() };
    let mut collection = document::collect(collected.sources, &opts);
    collection.diagnostics.extend(collected.diagnostics);
    let lines = Lines::new(&collection);
    let registry = schemas(&cfg, &collection)?;

    let objects: Vec<ObjectEntry> = collection
        .documents
        .iter()
        .map(|d| {
            let mut entry = lines.object(&collection, d);
            let path = &collection.sources[d.source].path;
            entry.schema = registry.describe(Some(path), &d.identity.api_version, &d.identity.kind);
            if let SourcePath::File(p) = path {
                entry.role = roles.get(&driftlint_core::input::kustomize::normalise(p)).map(|r| r.name());
            }
            entry
        })
        .collect();
    // The roles of the files listed: those below the paths named (a file named alone lists
    // its own role, not those of every file its kustomizations name).
    let named: Vec<std::path::PathBuf> =
        settings.paths.iter().map(|p| driftlint_core::input::kustomize::normalise(p)).collect();
    let mut kustomize: Vec<RoleEntry> = roles
        .iter()
        .filter(|(p, _)| named.iter().any(|n| n.as_os_str().is_empty() || p.starts_with(n)))
        .map(|(p, r)| RoleEntry {
            file: p.display().to_string(),
            role: r.name(),
            by: match r {
                driftlint_core::input::kustomize::Role::Configuration(by) => Some(by.display().to_string()),
                _ => None,
            },
        })
        .collect();
    kustomize.sort_by(|a, b| a.file.cmp(&b.file));
    let diagnostics: Vec<DiagnosticEntry> =
        collection.diagnostics.iter().map(|d| lines.diagnostic(&collection, d)).collect();

    let mut out = std::io::stdout().lock();
    match args.format {
        ListFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &Listing { objects, kustomize, diagnostics })?;
            writeln!(out)?;
        }
        ListFormat::Human => {
            for o in &objects {
                let ns =
                    if o.identity.namespace.is_empty() { String::new() } else { format!("{}/", o.identity.namespace) };
                let mut line = format!(
                    "{}:{}:{}: {} {} {}{}",
                    o.file, o.line, o.column, o.identity.api_version, o.identity.kind, ns, o.identity.name
                );
                if let Some(origin) = &o.origin {
                    match (&origin.file, origin.line) {
                        (Some(f), Some(l)) => line.push_str(&format!(" (from {f}:{l})")),
                        _ => line.push_str(&format!(" (from {})", origin.origin.path)),
                    }
                }
                line.push_str(&format!(" [schema: {}]", o.schema));
                if let Some(role) = o.role {
                    line.push_str(&format!(" [kustomize: {role}]"));
                }
                // File names, names and origins come from the checked repository.
                writeln!(out, "{}", escape::text(&line))?;
            }
            for r in &kustomize {
                let by = r.by.as_ref().map_or(String::new(), |b| format!(" (named by {b})"));
                writeln!(out, "{}", escape::text(&format!("{}: kustomize {}{by}", r.file, r.role)))?;
            }
            let mut err = std::io::stderr().lock();
            for d in &diagnostics {
                let at = match (d.line, d.column) {
                    (Some(l), Some(c)) => format!("{}:{l}:{c}", d.file),
                    _ => d.file.clone(),
                };
                writeln!(err, "{}", escape::text(&format!("{at}: {}[{}]: {}", d.severity, d.rule, d.message)))?;
            }
            writeln!(out, "{} object(s) in {} source(s)", objects.len(), collection.sources.len())?;
        }
    }
    // As `check` exits on what reading found: findings at or above the fail level fail it.
    let fail_level = cfg.fail_level.unwrap_or(driftlint_core::diagnostic::Severity::Error);
    Ok(ExitCode::from(crate::report::exit_code(&collection.diagnostics, fail_level)))
}

/// The schemas `check` would use: the configuration's `schemas:` and `schema-locations:`
/// (trusted), the definitions among the inputs, and the built-in kinds of its
/// `kubernetes-version:`.
fn schemas(cfg: &crate::config::Config, collection: &Collection) -> Result<driftlint_schema::Registry> {
    let mut locations = Vec::new();
    for s in &cfg.schemas {
        if driftlint_git::is_location(s) {
            cfg.confined_location("schemas", s)?;
            locations.push(s.clone());
        } else {
            locations.push(cfg.confined("schemas", s)?.display().to_string());
        }
    }
    let mut loaded = driftlint_schema::load::load(&locations, &cfg.dir, collection)?;
    loaded.registry.builtins_off = !cfg.builtin_schemas.unwrap_or(true);
    if let Some(version) = cfg.kubernetes_version {
        loaded.registry.set_kubernetes_version(version);
    }
    let mut templates = Vec::new();
    for s in &cfg.schema_locations {
        templates.push(cfg.confined("schema-locations", s)?.display().to_string());
    }
    loaded.registry.set_locations(&templates, &cfg.dir);
    Ok(loaded.registry)
}

/// Line indexes of every source, built once per listing.
struct Lines {
    indexes: Vec<LineIndex>,
}

impl Lines {
    fn new(c: &Collection) -> Lines {
        Lines { indexes: c.sources.iter().map(|s| LineIndex::new(&s.text)).collect() }
    }

    fn object<'a>(&self, c: &Collection, d: &'a Document) -> ObjectEntry<'a> {
        let src = &c.sources[d.source];
        let lc = self.indexes[d.source].line_column(&src.text, d.range.start);
        let (line, column) = (lc.line, lc.column);
        let origin = d.origin.as_ref().map(|o| {
            let (file, line) = match &o.resolved {
                Some((path, range)) => {
                    let text =
                        driftlint_core::input::read_bounded_to_string(path, driftlint_core::input::MAX_FILE_BYTES)
                            .unwrap_or_default();
                    let l = LineIndex::new(&text).line_column(&text, range.start).line;
                    (Some(path.display().to_string()), Some(l))
                }
                None => (None, None),
            };
            OriginEntry { origin: o, file, line }
        });
        ObjectEntry {
            identity: &d.identity,
            file: src.path.display(),
            line,
            column,
            document: d.doc_index,
            item: d.item_index,
            origin,
            schema: String::new(),
            role: None,
        }
    }

    fn diagnostic<'a>(&self, c: &Collection, d: &'a Diagnostic) -> DiagnosticEntry<'a> {
        let pos = c
            .sources
            .iter()
            .position(|s| s.path == d.primary.path)
            .zip(d.primary.range.as_ref())
            .map(|(i, r)| self.indexes[i].line_column(&c.sources[i].text, r.start))
            .map(|lc| (lc.line, lc.column));
        DiagnosticEntry {
            rule: d.rule.id(),
            severity: d.severity.as_str(),
            message: &d.message,
            file: match &d.primary.path {
                SourcePath::File(p) => p.display().to_string(),
                SourcePath::Stdin => "<stdin>".into(),
            },
            line: pos.map(|p| p.0),
            column: pos.map(|p| p.1),
        }
    }
}
