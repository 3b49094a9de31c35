//! The effective configuration of a run: the configuration file found (or named, or none with
//! `--isolated`), the command line's flags on top of its keys, and the [`Settings`] the
//! runner gets. Paths given on the command line are relative to the working directory; paths
//! in the file are relative to the file and confined to its repository ([`Config::confined`]).
//!
//! The command line's values arrive as [`Flags`], plain data: the CLI's argument types fill
//! it, and nothing here knows how they are spelt.

use std::path::{Path, PathBuf};

use anyhow::Result;
use driftlint_reference::Location;

use super::{Config, Settings};
use crate::config;

/// What the command line says about the settings a configuration file can also hold.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    /// Files or directories to check (`-` is standard input).
    pub paths: Vec<PathBuf>,
    /// `--config`: the configuration file instead of discovering one.
    pub config: Option<PathBuf>,
    /// `--isolated`: no configuration file (nor lock) is read.
    pub isolated: bool,
    pub reference: Option<PathBuf>,
    pub format: Option<String>,
    pub fail_level: Option<String>,
    pub diff_config: Option<PathBuf>,
    pub overrides: Option<PathBuf>,
    pub no_ignore: bool,
    pub exclude: Vec<String>,
    pub origin_root: Option<PathBuf>,
    pub schemas: Vec<String>,
    pub schema_mode: Option<String>,
    pub no_builtin_schemas: bool,
    pub kubernetes_version: Option<&'static str>,
    pub schema_locations: Vec<String>,
    pub policies: Vec<String>,
    pub policy_data: Vec<String>,
    pub policy_namespaces: Vec<String>,
    pub all_policy_namespaces: bool,
    pub policy_combine: bool,
    pub policy_trace: bool,
    /// The policy engine's options from the command line; a Rego version it leaves unset is
    /// the file's `rego-version:`.
    pub policy_engine: driftlint_policy::engine::Options,
}

/// The configuration: `--config`, else `.driftlint.yaml` found walking up from `start`,
/// else the defaults (also with `--isolated`).
pub fn load(file: Option<&Path>, isolated: bool, start: &Path) -> Result<Config> {
    if isolated {
        return Ok(Config { dir: PathBuf::from("."), ..Config::default() });
    }
    let file = match file {
        Some(f) => Some(f.to_path_buf()),
        None => config::discover(start).map(|abs| relative_to_cwd(&abs)),
    };
    match file {
        Some(f) => Ok(config::load_config(&f)?),
        None => Ok(Config { dir: PathBuf::from("."), ..Config::default() }),
    }
}

/// Where configuration discovery starts: the first named path's directory, so that
/// `driftlint check some/repo` uses `some/repo/.driftlint.yaml`; else the working directory.
pub fn discovery_start(paths: &[PathBuf]) -> PathBuf {
    match paths.iter().find(|p| p.as_os_str() != "-") {
        Some(p) if p.is_dir() => p.clone(),
        Some(p) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
        None => PathBuf::from("."),
    }
}

/// `abs` relative to the working directory when it is below it, so that reported paths stay
/// short and relative (as users typed them).
pub fn relative_to_cwd(abs: &Path) -> PathBuf {
    let Ok(cwd) = std::env::current_dir() else { return abs.to_path_buf() };
    match abs.strip_prefix(&cwd) {
        Ok(rel) => rel.to_path_buf(),
        Err(_) => abs.to_path_buf(),
    }
}

/// The effective configuration: the file's settings with command-line flags on top.
pub fn effective(flags: &Flags) -> Result<Config> {
    let mut cfg = load(flags.config.as_deref(), flags.isolated, &discovery_start(&flags.paths))?;
    if let Some(r) = &flags.reference {
        cfg.reference = Some(r.display().to_string());
    }
    if let Some(f) = &flags.format {
        cfg.format = Some(f.clone());
    }
    if let Some(l) = &flags.fail_level {
        cfg.fail_level = config::parse_severity(l);
    }
    if let Some(d) = &flags.diff_config {
        cfg.diff_config = Some(d.display().to_string());
    }
    if let Some(o) = &flags.overrides {
        cfg.overrides = Some(o.display().to_string());
    }
    Ok(cfg)
}

/// The reference as configured: `--reference` as given, else `reference:` relative to the
/// configuration file (a git location is never relative to anything but its repository).
/// From the file, it must stay inside the repository ([`Config::confined`]).
pub fn reference_location(cli: Option<&Path>, cfg: &Config) -> Result<Option<Location>> {
    Ok(match (cli, &cfg.reference) {
        (Some(p), _) => Some(Location::parse(&p.to_string_lossy())?),
        (None, Some(f)) => Some(match Location::parse(f)? {
            Location::Path(_) => Location::Path(existing_reference(cfg, f, cfg.confined("reference", f)?)?),
            git => {
                cfg.confined_location("reference", f)?;
                git
            }
        }),
        (None, None) => None,
    })
}

/// `path`, the file's `reference: value`, when there is a reference there (a `metadata.yaml`
/// or a directory holding one); else a configuration error at the `reference:` line, as every
/// other mistake in the file is — the fix is an edit of that line.
fn existing_reference(cfg: &Config, value: &str, path: PathBuf) -> Result<PathBuf, config::ConfigError> {
    let Some(file) = &cfg.file else { return Ok(path) };
    let why = match std::fs::metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "does not exist",
        Ok(m) if m.is_dir() && std::fs::symlink_metadata(path.join("metadata.yaml")).is_err() => {
            "is a directory without metadata.yaml"
        }
        // Anything else (a file, an unreadable directory) is the reader's to report.
        _ => return Ok(path),
    };
    let (line, column) = cfg.positions.get("reference").copied().unwrap_or((1, 1));
    Err(config::ConfigError::Invalid {
        path: file.clone(),
        line,
        column,
        // Escaped where errors are printed (`cli::main`).
        message: format!(
            "`reference: {value}`: {} {why} (a reference is a kube-compare metadata.yaml or the directory holding it)",
            path.display()
        ),
    })
}

/// Settings for the pipeline. Paths given on the command line are relative to the working
/// directory; paths in the file are relative to the file.
pub fn settings(flags: &Flags, cfg: &Config) -> Result<Settings> {
    // A path from the file is confined to its repository ([`Config::confined`]).
    let from_cli = |key: &str, cli: &Option<PathBuf>, file: &Option<String>| -> Result<Option<PathBuf>> {
        Ok(match (cli, file) {
            (Some(p), _) => Some(p.clone()),
            (None, Some(f)) if driftlint_git::is_location(f) => {
                cfg.confined_location(key, f)?;
                Some(PathBuf::from(f))
            }
            (None, Some(f)) => Some(cfg.confined(key, f)?),
            (None, None) => None,
        })
    };
    let lock = cfg.lock_path();
    Ok(Settings {
        reference: reference_location(flags.reference.as_deref(), cfg)?,
        git_start: cfg.dir.clone(),
        // `--isolated` ignores every configuration file, the lock included.
        // Anything by that name is the lock: one that is no regular file is reported when read.
        lock: (!flags.isolated && std::fs::symlink_metadata(&lock).is_ok()).then_some(lock),
        paths: if flags.paths.is_empty() { vec![cfg.dir.clone()] } else { flags.paths.clone() },
        include: cfg.include.clone(),
        exclude: cfg.exclude.clone(),
        exclude_root: cfg.dir.clone(),
        exclude_cli: flags.exclude.clone(),
        named: Vec::new(),
        no_ignore: flags.no_ignore,
        origin_root: flags.origin_root.clone(),
        diff_config: from_cli("diff-config", &flags.diff_config, &cfg.diff_config)?,
        overrides: from_cli("overrides", &flags.overrides, &cfg.overrides)?,
        rules: cfg.rules.clone(),
        ignore: cfg.ignore.clone(),
        config: cfg.file.is_some().then(|| cfg.clone()),
        isolated: flags.isolated,
        schemas: schemas(flags, cfg)?,
        schema_mode: schema_mode(flags, cfg),
        kubernetes_version: flags.kubernetes_version.or(cfg.kubernetes_version),
        builtin_schemas: builtin_schemas(flags, cfg),
        schema_locations: schema_locations(flags, cfg)?,
        policy: policy(flags, cfg)?,
        // Scoped runs ask for them (`scope::check_scoped`).
        object_correlations: false,
        // Asked for by a JUnit report (`run`).
        object_ids: false,
    })
}

/// `schemas:` of the file (relative to it, confined to its repository) followed by
/// `--schemas` (as given).
fn schemas(flags: &Flags, cfg: &Config) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for s in &cfg.schemas {
        if driftlint_git::is_location(s) {
            cfg.confined_location("schemas", s)?;
            out.push(s.clone());
        } else {
            out.push(cfg.confined("schemas", s)?.display().to_string());
        }
    }
    out.extend(flags.schemas.iter().cloned());
    Ok(out)
}

/// `schema-locations:` of the file (relative to it, confined to its repository) followed
/// by `--schema-location`; remote ones are refused (driftlint reads no network).
fn schema_locations(flags: &Flags, cfg: &Config) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for s in &cfg.schema_locations {
        if s.starts_with("http://") || s.starts_with("https://") {
            anyhow::bail!(
                "schema location {s}: only local directories and files are read (driftlint reads no network)"
            );
        }
        let resolved = cfg.confined("schema-locations", s)?.display().to_string();
        if let (Err(why), Some(file)) = (driftlint_schema::location::check_location(&resolved), &cfg.file) {
            // Named relative to the file, as written in it.
            let why = why.replace(&format!("{}/", cfg.dir.display()), "");
            anyhow::bail!("{}: `schema-locations:` {why}", file.display());
        }
        out.push(resolved);
    }
    out.extend(flags.schema_locations.iter().cloned());
    if let Some(remote) = out.iter().find(|l| l.starts_with("http://") || l.starts_with("https://")) {
        anyhow::bail!(
            "schema location {remote}: only local directories and files are read (driftlint reads no network)"
        );
    }
    // A location that does not exist or whose template does not parse stops the run, as
    // kubeconform's does: it is never skipped for the bundled schemas.
    for location in &out {
        driftlint_schema::location::check_location(location).map_err(anyhow::Error::msg)?;
    }
    Ok(out)
}

fn schema_mode(flags: &Flags, cfg: &Config) -> Option<driftlint_schema::Mode> {
    flags.schema_mode.as_deref().and_then(driftlint_schema::Mode::parse_setting).or(cfg.schema_mode)
}

fn builtin_schemas(flags: &Flags, cfg: &Config) -> bool {
    !flags.no_builtin_schemas && cfg.builtin_schemas.unwrap_or(true)
}

/// The policy settings: flags as given, else the file's keys (relative to it and confined
/// to its repository, like every path in the configuration).
fn policy(flags: &Flags, cfg: &Config) -> Result<driftlint_policy::conftest::Settings> {
    let from_file = |key: &str, paths: &[String]| -> Result<Vec<String>> {
        let mut out = Vec::new();
        for p in paths {
            if driftlint_git::is_location(p) {
                cfg.confined_location(key, p)?;
                out.push(p.clone());
            } else {
                out.push(cfg.confined(key, p)?.display().to_string());
            }
        }
        Ok(out)
    };
    let pick = |key: &str, cli: &[String], file: &[String]| -> Result<Vec<String>> {
        if cli.is_empty() { from_file(key, file) } else { Ok(cli.to_vec()) }
    };
    Ok(driftlint_policy::conftest::Settings {
        policies: pick("policies", &flags.policies, &cfg.policy.policies)?,
        data: pick("policy-data", &flags.policy_data, &cfg.policy.data)?,
        namespaces: if flags.policy_namespaces.is_empty() {
            cfg.policy.namespaces.clone()
        } else {
            flags.policy_namespaces.clone()
        },
        combine: flags.policy_combine || cfg.policy.combine.unwrap_or(false),
        cases: match &cfg.policy.cases {
            Some(c) => from_file("policy-cases", std::slice::from_ref(c))?.pop(),
            None => None,
        },
        // Globs, relative to the configuration file like `exclude:`.
        inputs: cfg.policy.inputs.clone(),
        // `--namespace` on the command line replaces the file's whole selection.
        all_namespaces: flags.all_policy_namespaces
            || (flags.policy_namespaces.is_empty() && cfg.policy.all_namespaces.unwrap_or(false)),
        trace: flags.policy_trace,
        engine: driftlint_policy::engine::Options {
            rego_version: flags.policy_engine.rego_version.or(cfg.policy.rego_version),
            ..flags.policy_engine.clone()
        },
    })
}
