//! `driftlint check`: flags and configuration resolved into [`Settings`], the linter run,
//! outputs written, exit code decided (0 clean, 1 findings at or above the fail level,
//! 2 usage or runtime error — whatever the format).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::check::{self, Config, Settings, config, scope};
use crate::diagnostic::Severity;
use crate::reference::Location;
use crate::{git, report};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or directories to check; `-` reads standard input (helm or kustomize output).
    /// Defaults to the directory of the configuration file, else the current directory.
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The reference: a `metadata.yaml` or the directory holding it, or a git location
    /// (`git:REV:PATH`, `git+file:///repo@REV:PATH`) read without a checkout.
    #[arg(long, short = 'r', value_name = "REF")]
    pub reference: Option<PathBuf>,
    /// Output formats, comma-separated `FMT[=FILE]`: human, concise, json, sarif, github,
    /// markdown, junit (default: human, followed by github annotations when GITHUB_ACTIONS=true).
    #[arg(long, value_name = "FMT[=FILE],…")]
    pub format: Option<String>,
    /// A minijinja template for the `markdown` format instead of the built-in one (it gets
    /// `tool`, `summary`, `diagnostics`, `omitted` and `scope_notes`; docs/checking.md,
    /// "The Markdown template", documents each). Command line only: the configuration file
    /// cannot set it.
    #[arg(long, value_name = "FILE")]
    pub markdown_template: Option<PathBuf>,
    /// The lowest severity that fails the run (exit code 1).
    #[arg(long, value_name = "LEVEL", value_parser = ["note", "warning", "error"])]
    pub fail_level: Option<String>,
    /// A kube-compare diff config (`correlationSettings`) pairing objects with templates.
    #[arg(long, value_name = "FILE")]
    pub diff_config: Option<PathBuf>,
    /// A kube-compare overrides file (`-p`).
    #[arg(long, value_name = "FILE")]
    pub overrides: Option<PathBuf>,
    /// Do not honour `.gitignore` / `.ignore` files while walking directories.
    #[arg(long)]
    pub no_ignore: bool,
    /// Leave out inputs matching this gitignore-style glob, relative to the working directory
    /// (repeatable; besides `exclude:` of the configuration file). `driftlint ls` takes it too.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Threads reading, parsing and comparing files (default: the available parallelism).
    /// The output is the same for any value.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Directory that relative kustomize origin paths from stdin are resolved against.
    #[arg(long, value_name = "DIR")]
    pub origin_root: Option<PathBuf>,
    #[command(flatten)]
    pub scope: ScopeArgs,
    #[command(flatten)]
    pub schema: SchemaArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// The schema pass (issue 11): CRD/XRD schemas and what a type without one is.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// CustomResourceDefinitions and Crossplane CompositeResourceDefinitions to validate
    /// against: a file, a directory, or a git location `git:REV:PATH` (repeatable; added to
    /// `schemas:` of the configuration file).
    #[arg(long = "schemas", value_name = "PATH", help_heading = "Schemas")]
    pub schemas: Vec<String>,
    /// A type without a schema is a warning (loose), an error (strict), or not reported
    /// (ignore, kubeconform's `-ignore-missing-schemas`). Default: loose, or ignore when a
    /// reference is configured and no other schema setting is given. A Composition's
    /// `crossplane.io/composition-schema-aware-validation-mode` annotation wins.
    #[arg(long, value_name = "MODE", value_parser = ["loose", "strict", "ignore"], help_heading = "Schemas")]
    pub schema_mode: Option<String>,
    /// Do not validate Kubernetes' built-in kinds (Deployment, Service, …) against the bundled
    /// schemas and the API server's rules (they are by default). Replaces `builtin-schemas:`.
    #[arg(long, help_heading = "Schemas")]
    pub no_builtin_schemas: bool,
    /// The Kubernetes version whose built-in kinds (Deployment, Service, …) objects are
    /// validated against, offline: one of the bundled versions (MAJOR.MINOR; default: the
    /// newest). Replaces `kubernetes-version:`.
    #[arg(long, value_name = "X.Y", value_parser = parse_kubernetes_version, help_heading = "Schemas")]
    pub kubernetes_version: Option<&'static str>,
    /// A kubeconform-style directory of JSON schemas, or a path template with kubeconform's
    /// variables (`{{ .ResourceKind }}{{ .KindSuffix }}.json`…); local paths only, trusted,
    /// repeatable (added to `schema-locations:`).
    #[arg(long = "schema-location", value_name = "TEMPLATE", help_heading = "Schemas")]
    pub schema_locations: Vec<String>,
}

/// `--kubernetes-version`: a bundled version.
fn parse_kubernetes_version(text: &str) -> std::result::Result<&'static str, String> {
    driftlint_kube_schemas::parse_version(text).ok_or_else(|| crate::schema::builtin::unknown_version_message(text))
}

impl SchemaArgs {
    /// `schemas:` of the file (relative to it, confined to its repository) followed by
    /// `--schemas` (as given).
    fn schemas(&self, cfg: &Config) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for s in &cfg.schemas {
            if git::is_location(s) {
                cfg.confined_location("schemas", s)?;
                out.push(s.clone());
            } else {
                out.push(cfg.confined("schemas", s)?.display().to_string());
            }
        }
        out.extend(self.schemas.iter().cloned());
        Ok(out)
    }

    /// `schema-locations:` of the file (relative to it, confined to its repository) followed
    /// by `--schema-location`; remote ones are refused (driftlint reads no network).
    fn locations(&self, cfg: &Config) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for s in &cfg.schema_locations {
            if s.starts_with("http://") || s.starts_with("https://") {
                anyhow::bail!(
                    "schema location {s}: only local directories and files are read (driftlint reads no network)"
                );
            }
            let resolved = cfg.confined("schema-locations", s)?.display().to_string();
            if let (Err(why), Some(file)) = (crate::schema::location::check_location(&resolved), &cfg.file) {
                // Named relative to the file, as written in it.
                let why = why.replace(&format!("{}/", cfg.dir.display()), "");
                anyhow::bail!("{}: `schema-locations:` {why}", file.display());
            }
            out.push(resolved);
        }
        out.extend(self.schema_locations.iter().cloned());
        if let Some(remote) = out.iter().find(|l| l.starts_with("http://") || l.starts_with("https://")) {
            anyhow::bail!(
                "schema location {remote}: only local directories and files are read (driftlint reads no network)"
            );
        }
        // A location that does not exist or whose template does not parse stops the run, as
        // kubeconform's does: it is never skipped for the bundled schemas.
        for location in &out {
            crate::schema::location::check_location(location).map_err(anyhow::Error::msg)?;
        }
        Ok(out)
    }

    fn mode(&self, cfg: &Config) -> Option<crate::schema::Mode> {
        self.schema_mode.as_deref().and_then(crate::schema::Mode::parse_setting).or(cfg.schema_mode)
    }

    fn builtin(&self, cfg: &Config) -> bool {
        !self.no_builtin_schemas && cfg.builtin_schemas.unwrap_or(true)
    }
}

/// The policy pass: Rego rules over the manifests, with conftest's conventions.
#[derive(Debug, clap::Args)]
pub struct PolicyArgs {
    /// Rego policies: `.rego` files or directories (read recursively), or git locations
    /// `git:REV:PATH`; repeatable. Replaces `policies:`.
    #[arg(long = "policy", value_name = "PATH", help_heading = "Policies")]
    pub policies: Vec<String>,
    /// Data documents for the policies (JSON/YAML files; a directory's files are merged at the
    /// root of `data`); repeatable. Replaces `policy-data:`.
    #[arg(long = "data", value_name = "PATH", help_heading = "Policies")]
    pub data: Vec<String>,
    /// The Rego packages whose `deny`/`violation`/`warn` rules run [default: main]; repeatable.
    /// A name with `*`, `?` or `[…]` is a glob over the packages (`main.*`; `*` crosses dots).
    /// Replaces `policy-namespaces:`.
    #[arg(long = "namespace", value_name = "NS", help_heading = "Policies")]
    pub namespaces: Vec<String>,
    /// Run the rules of every package that declares `deny`/`violation`/`warn` rules, instead
    /// of `--namespace`.
    #[arg(long, conflicts_with = "namespaces", help_heading = "Policies")]
    pub all_namespaces: bool,
    /// Evaluate the policies once over every object (`input` is `[{path, contents}]`).
    #[arg(long, help_heading = "Policies")]
    pub combine: bool,
    /// Print each policy query with its input's file and line and the value it gave to
    /// standard error (escaped), to debug a rule.
    #[arg(long, help_heading = "Policies")]
    pub trace: bool,
    #[command(flatten)]
    pub engine: Box<crate::cli::policy::EngineArgs>,
}

impl PolicyArgs {
    /// The policy settings: flags as given (relative to the working directory), else the
    /// file's keys (relative to the file; git locations as written).
    /// The policy settings: flags as given, else the file's keys (relative to it and confined
    /// to its repository, like every path in the configuration).
    fn settings(&self, cfg: &Config) -> Result<crate::policy::conftest::Settings> {
        let from_file = |key: &str, paths: &[String]| -> Result<Vec<String>> {
            let mut out = Vec::new();
            for p in paths {
                if git::is_location(p) {
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
        Ok(crate::policy::conftest::Settings {
            policies: pick("policies", &self.policies, &cfg.policy.policies)?,
            data: pick("policy-data", &self.data, &cfg.policy.data)?,
            namespaces: if self.namespaces.is_empty() {
                cfg.policy.namespaces.clone()
            } else {
                self.namespaces.clone()
            },
            combine: self.combine || cfg.policy.combine.unwrap_or(false),
            cases: match &cfg.policy.cases {
                Some(c) => from_file("policy-cases", std::slice::from_ref(c))?.pop(),
                None => None,
            },
            // Globs, relative to the configuration file like `exclude:`.
            inputs: cfg.policy.inputs.clone(),
            // `--namespace` on the command line replaces the file's whole selection.
            all_namespaces: self.all_namespaces
                || (self.namespaces.is_empty() && cfg.policy.all_namespaces.unwrap_or(false)),
            trace: self.trace,
            engine: self.engine.options(cfg.policy.rego_version)?,
        })
    }
}

/// Changed-file scopes: which findings a commit or a pull request is shown.
#[derive(Debug, clap::Args)]
#[group(id = "scope_args")]
pub struct ScopeArgs {
    /// Check the index (what `git commit` would record, also of partially staged files) and
    /// show findings of the change against HEAD.
    #[arg(long, group = "scope", help_heading = "Scope")]
    pub staged: bool,
    /// Check the work tree and show findings of the change since the merge-base of REV and
    /// HEAD (a pull request's change: `--base origin/main`).
    #[arg(long, value_name = "REV", group = "scope", help_heading = "Scope")]
    pub base: Option<String>,
    /// How findings the base has as well are shown: on added lines, in diff hunks (3 lines of
    /// context), anywhere in changed files, or all [default with a scope: added]. Findings the
    /// change causes (new by fingerprint) are shown wherever they are.
    #[arg(long, value_name = "MODE", value_enum, requires = "scope", help_heading = "Scope")]
    pub diff_filter: Option<DiffFilterArg>,
    /// Only findings that the base does not have already (by fingerprint), wherever they are;
    /// the base is HEAD with --staged, the merge-base with --base.
    #[arg(long, requires = "scope", help_heading = "Scope")]
    pub new_only: bool,
}

/// `--diff-filter` values (reviewdog's filter modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFilterArg {
    /// Findings on added or modified lines.
    Added,
    /// Findings within the diff hunks, context lines included.
    #[value(name = "diff-context", alias = "diff_context")]
    DiffContext,
    /// Findings anywhere in changed files.
    File,
    /// Every finding.
    Nofilter,
}

impl ScopeArgs {
    /// The scoped-check options, `None` without `--staged` or `--base`.
    fn options(&self) -> Option<scope::Options> {
        let mode = match (&self.base, self.staged) {
            (Some(rev), _) => scope::Mode::Base(rev.clone()),
            (None, true) => scope::Mode::Staged,
            (None, false) => return None,
        };
        let filter = match self.diff_filter {
            None | Some(DiffFilterArg::Added) => scope::DiffFilter::Added,
            Some(DiffFilterArg::DiffContext) => scope::DiffFilter::DiffContext,
            Some(DiffFilterArg::File) => scope::DiffFilter::File,
            Some(DiffFilterArg::Nofilter) => scope::DiffFilter::NoFilter,
        };
        Some(scope::Options { mode, filter, new_only: self.new_only })
    }
}

/// Which configuration file is used.
#[derive(Debug, clap::Args)]
pub struct ConfigArgs {
    /// The configuration file (instead of discovering `.driftlint.yaml`).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Ignore every configuration file.
    #[arg(long, conflicts_with = "config")]
    pub isolated: bool,
}

impl ConfigArgs {
    /// The configuration: `--config`, else `.driftlint.yaml` found walking up from `start`,
    /// else the defaults (also with `--isolated`).
    pub fn load(&self, start: &Path) -> Result<Config> {
        if self.isolated {
            return Ok(Config { dir: PathBuf::from("."), ..Config::default() });
        }
        let file = match &self.config {
            Some(f) => Some(f.clone()),
            None => config::discover(start).map(|abs| relative_to_cwd(&abs)),
        };
        match file {
            Some(f) => Ok(config::load_config(&f)?),
            None => Ok(Config { dir: PathBuf::from("."), ..Config::default() }),
        }
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
fn relative_to_cwd(abs: &Path) -> PathBuf {
    let Ok(cwd) = std::env::current_dir() else { return abs.to_path_buf() };
    match abs.strip_prefix(&cwd) {
        Ok(rel) => rel.to_path_buf(),
        Err(_) => abs.to_path_buf(),
    }
}

/// The effective configuration: the file's settings with command-line flags on top.
pub fn effective(args: &Args) -> Result<Config> {
    let mut cfg = args.config.load(&discovery_start(&args.paths))?;
    if let Some(r) = &args.reference {
        cfg.reference = Some(r.display().to_string());
    }
    if let Some(f) = &args.format {
        cfg.format = Some(f.clone());
    }
    if let Some(l) = &args.fail_level {
        cfg.fail_level = config::parse_severity(l);
    }
    if let Some(d) = &args.diff_config {
        cfg.diff_config = Some(d.display().to_string());
    }
    if let Some(o) = &args.overrides {
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
fn settings(args: &Args, cfg: &Config) -> Result<Settings> {
    // A path from the file is confined to its repository ([`Config::confined`]).
    let from_cli = |key: &str, cli: &Option<PathBuf>, file: &Option<String>| -> Result<Option<PathBuf>> {
        Ok(match (cli, file) {
            (Some(p), _) => Some(p.clone()),
            (None, Some(f)) if git::is_location(f) => {
                cfg.confined_location(key, f)?;
                Some(PathBuf::from(f))
            }
            (None, Some(f)) => Some(cfg.confined(key, f)?),
            (None, None) => None,
        })
    };
    let lock = cfg.lock_path();
    Ok(Settings {
        reference: reference_location(args.reference.as_deref(), cfg)?,
        git_start: cfg.dir.clone(),
        // `--isolated` ignores every configuration file, the lock included.
        // Anything by that name is the lock: one that is no regular file is reported when read.
        lock: (!args.config.isolated && std::fs::symlink_metadata(&lock).is_ok()).then_some(lock),
        paths: if args.paths.is_empty() { vec![cfg.dir.clone()] } else { args.paths.clone() },
        include: cfg.include.clone(),
        exclude: cfg.exclude.clone(),
        exclude_root: cfg.dir.clone(),
        exclude_cli: args.exclude.clone(),
        named: Vec::new(),
        no_ignore: args.no_ignore,
        origin_root: args.origin_root.clone(),
        diff_config: from_cli("diff-config", &args.diff_config, &cfg.diff_config)?,
        overrides: from_cli("overrides", &args.overrides, &cfg.overrides)?,
        rules: cfg.rules.clone(),
        ignore: cfg.ignore.clone(),
        config: cfg.file.is_some().then(|| cfg.clone()),
        isolated: args.config.isolated,
        schemas: args.schema.schemas(cfg)?,
        schema_mode: args.schema.mode(cfg),
        kubernetes_version: args.schema.kubernetes_version.or(cfg.kubernetes_version),
        builtin_schemas: args.schema.builtin(cfg),
        schema_locations: args.schema.locations(cfg)?,
        policy: args.policy.settings(cfg)?,
        // Scoped runs ask for them (`check::scope::check_scoped`).
        object_correlations: false,
        // Asked for by a JUnit report (`run`).
        object_ids: false,
    })
}

/// The outputs when neither `--format` nor `format:` names any: the human report, followed on
/// GitHub Actions (`GITHUB_ACTIONS=true`) by workflow-command annotations in the same log, which
/// GitHub turns into annotations on the changed files.
fn default_outputs(on_github_actions: bool) -> Vec<report::Output> {
    let mut outputs = vec![report::Output { format: report::Format::Human, destination: report::Destination::Stdout }];
    if on_github_actions {
        outputs.push(report::Output { format: report::Format::Github, destination: report::Destination::Stdout });
    }
    outputs
}

pub fn run(args: &Args, global: &super::GlobalArgs) -> Result<ExitCode> {
    // A scoped run reads its inputs from the index or a revision as well: a path missing from
    // the work tree may still be there, and the scope reports one that is nowhere.
    if !args.scope.staged && args.scope.base.is_none() {
        super::require_paths(&args.paths)?;
    }
    same_configuration(args)?;
    let cfg = effective(args)?;
    let outputs = match cfg.format.as_deref() {
        Some(spec) => report::parse_outputs(spec).context("invalid --format")?,
        None => default_outputs(std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")),
    };
    let fail_level = cfg.fail_level.unwrap_or(Severity::Error);
    let mut settings = settings(args, &cfg)?;
    settings.object_ids = outputs.iter().any(|o| o.format == report::Format::Junit);
    let mut scope_notes = Vec::new();
    let named = named_scope(args, &cfg);
    if named.is_some() {
        // The repository as a whole is the context; the named paths are what is reported.
        let inside = |p: &PathBuf| check::named::lexical(p).starts_with(check::named::lexical(&cfg.dir));
        let mut context = vec![cfg.dir.clone()];
        context.extend(args.paths.iter().filter(|p| !inside(p)).cloned());
        settings.paths = context;
        settings.named = args.paths.clone();
        settings.object_correlations = true;
    }
    let mut result = match args.scope.options() {
        None => {
            let mut report = check::check(&settings)?;
            if let Some(named) = &named {
                let causes = check::named::Causes::of(&settings, &report, named);
                let unchecked = check::named::unchecked(&settings, &report, named);
                let hidden = check::named::keep_named(&mut report, named, &causes);
                check::named::add(&mut report, unchecked);
                if hidden > 0 {
                    let note = format!(
                        "{hidden} {} in files not named here not shown (the repository was checked as a whole; run without paths to see everything).",
                        if hidden == 1 { "finding" } else { "findings" }
                    );
                    if !global.quiet {
                        eprintln!("note: {}", note.trim_end_matches('.'));
                    }
                    scope_notes.push(note);
                }
            }
            report
        }
        Some(opts) => {
            if settings.paths.iter().any(|p| p.as_os_str() == "-") {
                anyhow::bail!("standard input (`-`) has no git state: it cannot be checked with --staged or --base");
            }
            let scoped = scope::check_scoped(&settings, &opts)?;
            scope_notes = hidden_notes(&scoped, &opts);
            for note in scope_notes.iter().filter(|_| !global.quiet) {
                eprintln!("note: {}", crate::report::escape::text(note.trim_end_matches('.')));
            }
            scoped.report
        }
    };
    let cwd = std::env::current_dir().ok();
    // A run from a subdirectory checks the repository from the configuration file up there:
    // its paths are shown from where the user stands, never as the machine's absolute paths.
    if let Some(cwd) = &cwd {
        report::relativize(&mut result.diagnostics, &mut result.sources, cwd);
    }
    let sources = report::SourceResolver::for_diagnostics(&result.sources, &result.diagnostics);
    let markdown_template = match &args.markdown_template {
        None => None,
        Some(f) => Some(
            crate::input::read_bounded_to_string(f, crate::input::MAX_FILE_BYTES)
                .with_context(|| format!("cannot read the markdown template {}", f.display()))?,
        ),
    };
    let opts = report::Options {
        color: true,
        cwd: cwd.as_deref(),
        root: cwd.as_deref(),
        objects: &result.objects,
        pinned: result.pinned.as_ref(),
        scope_notes: &scope_notes,
        markdown_template: markdown_template.as_deref(),
        fail_level,
        coverage: result.coverage.as_ref(),
        quiet: global.quiet,
        ..report::Options::default()
    };
    report::write_outputs(&outputs, &result.diagnostics, &sources, &opts)?;
    Ok(ExitCode::from(report::exit_code(&result.diagnostics, fail_level)))
}

/// Files named on the command line (pre-commit's form) must share one configuration file: each
/// is checked under the configuration found from its own directory, and a `.driftlint.yaml` in a subdirectory
/// (which a change may add) must not stand in for the repository's when it names files
/// elsewhere. `--config` and `--isolated` choose one for all.
fn same_configuration(args: &Args) -> Result<()> {
    let files_only = args.paths.iter().all(|p| p.as_os_str() != "-" && !p.is_dir());
    if args.config.config.is_some() || args.config.isolated || !files_only || args.scope.options().is_some() {
        return Ok(());
    }
    let mut found: Vec<(Option<PathBuf>, &PathBuf)> = Vec::new();
    for path in args.paths.iter().filter(|p| p.as_os_str() != "-") {
        let file = config::discover(&discovery_start(std::slice::from_ref(path)));
        if !found.iter().any(|(f, _)| *f == file) {
            found.push((file, path));
        }
    }
    if found.len() > 1 {
        let each: Vec<String> = found
            .iter()
            .map(|(file, path)| {
                let file = file
                    .as_deref()
                    .map_or_else(|| "no configuration file".to_string(), |f| relative_to_cwd(f).display().to_string());
                format!("{} is under {file}", path.display())
            })
            .collect();
        anyhow::bail!(
            "the named paths are under different configurations ({}): check them in separate runs, or choose one with --config",
            crate::report::escape::text(&each.join("; "))
        );
    }
    Ok(())
}

/// The files named on the command line as the reporting scope ([`check::named`]), when the
/// repository has a configuration file to give the context: not for standard input, the
/// scoped modes (`--staged`, `--base`: the change is their scope), `--isolated`, or a run
/// without paths. Directories keep their meaning of "check this tree" (`check manifests/`).
fn named_scope(args: &Args, cfg: &Config) -> Option<Vec<PathBuf>> {
    use check::named::lexical;
    let plain = !args.paths.is_empty()
        && args.paths.iter().all(|p| p.as_os_str() != "-" && !p.is_dir())
        && !args.scope.staged
        && args.scope.base.is_none()
        && cfg.file.is_some();
    let whole = args.paths.iter().any(|p| lexical(p) == lexical(&cfg.dir));
    (plain && !whole).then(|| args.paths.clone())
}

/// What a scope left out, one sentence each, so that nothing is dropped without a trace: on
/// stderr, and in the Markdown summary and GitHub annotations.
fn hidden_notes(scoped: &scope::Scoped, opts: &scope::Options) -> Vec<String> {
    let plural = |n: usize| if n == 1 { "finding" } else { "findings" };
    let mut notes = Vec::new();
    if scoped.hidden_outside > 0 {
        let n = scoped.hidden_outside;
        notes.push(format!(
            "{n} {} outside the change against {} not shown (--diff-filter {}; `--diff-filter nofilter` shows them).",
            plural(n),
            scoped.base,
            opts.filter.name()
        ));
    }
    if let Some(error) = &scoped.base_error {
        notes.push(format!(
            "the base ({}) could not be checked, so every finding is shown as new: {error}.",
            scoped.base
        ));
    }
    if scoped.hidden_existing > 0 {
        let n = scoped.hidden_existing;
        notes.push(format!("{n} {} already present at {} not shown (--new-only).", plural(n), scoped.base));
    }
    notes
}
