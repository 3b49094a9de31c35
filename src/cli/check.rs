//! `driftlint check`: flags and configuration resolved into [`Settings`], the linter run,
//! outputs written, exit code decided (0 clean, 1 findings at or above the fail level,
//! 2 usage or runtime error — whatever the format).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::check;
use crate::config::{self, Config, resolve};
use crate::fix;
use crate::report;
use crate::scope::{self, named};
use driftlint_core::diagnostic::Severity;

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
    pub fix: FixArgs,
    #[command(flatten)]
    pub schema: SchemaArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// Repairs: the fixes findings carry, written or shown (docs/fixing.md).
#[derive(Debug, clap::Args)]
pub struct FixArgs {
    /// Apply the safe fixes to the files, then report what is left (the exit code is that of
    /// the findings left). Standard input, git revisions and symlinks are never written, nor
    /// the sources of objects rendered to standard input (`--diff` shows their fixes).
    #[arg(long, help_heading = "Fixes")]
    pub fix: bool,
    /// Print the fixes as a unified diff and write nothing; exit 1 when anything is fixable.
    #[arg(long, help_heading = "Fixes")]
    pub diff: bool,
    /// Apply (or show) the unsafe fixes too: a did-you-mean rename, a removal of a field the
    /// reference forbids.
    #[arg(long, help_heading = "Fixes")]
    pub unsafe_fixes: bool,
}

/// The schema pass: CRD/XRD schemas and what a type without one is.
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
    driftlint_kube_schemas::parse_version(text).ok_or_else(|| driftlint_schema::builtin::unknown_version_message(text))
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
        resolve::load(self.config.as_deref(), self.isolated, start)
    }
}

impl Args {
    /// The flags that the configuration file can also set, as [`resolve`] takes them.
    fn flags(&self) -> Result<resolve::Flags> {
        let (schema, policy) = (&self.schema, &self.policy);
        Ok(resolve::Flags {
            paths: self.paths.clone(),
            config: self.config.config.clone(),
            isolated: self.config.isolated,
            reference: self.reference.clone(),
            format: self.format.clone(),
            fail_level: self.fail_level.clone(),
            diff_config: self.diff_config.clone(),
            overrides: self.overrides.clone(),
            no_ignore: self.no_ignore,
            exclude: self.exclude.clone(),
            origin_root: self.origin_root.clone(),
            schemas: schema.schemas.clone(),
            schema_mode: schema.schema_mode.clone(),
            no_builtin_schemas: schema.no_builtin_schemas,
            kubernetes_version: schema.kubernetes_version,
            schema_locations: schema.schema_locations.clone(),
            policies: policy.policies.clone(),
            policy_data: policy.data.clone(),
            policy_namespaces: policy.namespaces.clone(),
            all_policy_namespaces: policy.all_namespaces,
            policy_combine: policy.combine,
            policy_trace: policy.trace,
            policy_engine: policy.engine.options(None)?,
        })
    }
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
    let flags = args.flags()?;
    let cfg = resolve::effective(&flags)?;
    let outputs = match cfg.format.as_deref() {
        Some(spec) => report::parse_outputs(spec).context("invalid --format")?,
        None => default_outputs(std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")),
    };
    let fail_level = cfg.fail_level.unwrap_or(Severity::Error);
    let mut settings = resolve::settings(&flags, &cfg)?;
    settings.object_ids = outputs.iter().any(|o| o.format == report::Format::Junit);
    let mut scope_notes = Vec::new();
    let named = named_scope(args, &cfg);
    if named.is_some() {
        // The repository as a whole is the context; the named paths are what is reported.
        let inside = |p: &PathBuf| named::lexical(p).starts_with(named::lexical(&cfg.dir));
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
                let causes = named::Causes::of(&settings, &report, named);
                let unchecked = named::unchecked(&settings, &report, named);
                let hidden = named::keep_named(&mut report, named, &causes);
                named::add(&mut report, unchecked);
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
                eprintln!("note: {}", driftlint_core::escape::text(note.trim_end_matches('.')));
            }
            scoped.report
        }
    };
    if args.fix.fix || args.fix.diff {
        let opts = fix::Options {
            unsafe_fixes: args.fix.unsafe_fixes,
            whole_text: args.scope.staged,
            writes: !args.fix.diff,
            origin_root: settings.origin_root.clone(),
        };
        let plan = fix::plan(&result.diagnostics, &result.sources, &opts);
        if args.fix.diff {
            return show_diff(&plan, &result.diagnostics, global);
        }
        apply_fixes(plan, &mut result, global)?;
    }
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
            driftlint_core::input::read_bounded_to_string(f, driftlint_core::input::MAX_FILE_BYTES)
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
        let file = config::discover(&resolve::discovery_start(std::slice::from_ref(path)));
        if !found.iter().any(|(f, _)| *f == file) {
            found.push((file, path));
        }
    }
    if found.len() > 1 {
        let each: Vec<String> = found
            .iter()
            .map(|(file, path)| {
                let file = file.as_deref().map_or_else(
                    || "no configuration file".to_string(),
                    |f| resolve::relative_to_cwd(f).display().to_string(),
                );
                format!("{} is under {file}", path.display())
            })
            .collect();
        anyhow::bail!(
            "the named paths are under different configurations ({}): check them in separate runs, or choose one with --config",
            driftlint_core::escape::text(&each.join("; "))
        );
    }
    Ok(())
}

/// The files named on the command line as the reporting scope ([`named`]), when the
/// repository has a configuration file to give the context: not for standard input, the
/// scoped modes (`--staged`, `--base`: the change is their scope), `--isolated`, or a run
/// without paths. Directories keep their meaning of "check this tree" (`check manifests/`).
fn named_scope(args: &Args, cfg: &Config) -> Option<Vec<PathBuf>> {
    use crate::scope::named::lexical;
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

/// `--diff`: each file's fixes as a unified diff on standard output, nothing written; what
/// would be fixed and what not on standard error. Exit 1 when anything is fixable (ruff's
/// `--diff`), else 0.
fn show_diff(
    plan: &fix::Plan,
    diags: &[driftlint_core::diagnostic::Diagnostic],
    global: &super::GlobalArgs,
) -> Result<ExitCode> {
    use std::io::{IsTerminal as _, Write as _};
    let mut out = std::io::stdout().lock();
    // A terminal gets the repository's text with its control characters made visible; a pipe
    // gets the exact bytes, so that `git apply` or `patch` can take the diff.
    let terminal = out.is_terminal();
    for file in &plan.files {
        let diff = file.unified_diff();
        let diff = if terminal { driftlint_core::escape::lines(&diff) } else { diff };
        out.write_all(diff.as_bytes())?;
    }
    out.flush()?;
    report_refused(plan, diags, global);
    if !global.quiet {
        let n = plan.fixed.len();
        eprintln!(
            "would fix {n} {} in {} {}",
            findings(n),
            plan.files.len(),
            if plan.files.len() == 1 { "file" } else { "files" }
        );
        unsafe_note(plan);
    }
    Ok(ExitCode::from(u8::from(!plan.fixed.is_empty())))
}

/// `--fix`: the planned files written (atomically), the fixed findings taken out of the
/// report and the others' places moved to the new text.
fn apply_fixes(mut plan: fix::Plan, result: &mut check::Report, global: &super::GlobalArgs) -> Result<()> {
    let files: Vec<(&std::path::Path, &str)> =
        plan.files.iter().map(|f| (f.path.as_path(), f.after.as_str())).collect();
    let written = fix::write_all(&files, fix::WRITERS * rayon::current_num_threads());
    let mut failed = Vec::new();
    let mut outcomes = written.into_iter();
    plan.files.retain(|file| match outcomes.next().unwrap_or(Ok(())) {
        Ok(()) => true,
        Err(e) => {
            failed.push((file.fixes.clone(), format!("cannot write {}: {e}", file.path.display())));
            false
        }
    });
    for (fixes, why) in failed {
        plan.fixed.retain(|i| !fixes.contains(i));
        plan.refused.extend(fixes.into_iter().map(|i| (i, why.clone())));
    }
    report_refused(&plan, &result.diagnostics, global);
    let fixed = plan.fixed.len();
    fix::settle(&plan, &mut result.diagnostics, &mut result.sources);
    if !global.quiet {
        let left = result.diagnostics.iter().filter(|d| d.suppressed.is_none()).count();
        eprintln!(
            "fixed {fixed} {} in {} {}; {left} {} left",
            findings(fixed),
            plan.files.len(),
            if plan.files.len() == 1 { "file" } else { "files" },
            findings(left)
        );
        unsafe_note(&plan);
    }
    Ok(())
}

fn findings(n: usize) -> &'static str {
    if n == 1 { "finding" } else { "findings" }
}

/// Each fix not taken, with its finding and why, on standard error.
fn report_refused(plan: &fix::Plan, diags: &[driftlint_core::diagnostic::Diagnostic], global: &super::GlobalArgs) {
    if global.quiet {
        return;
    }
    for (i, why) in &plan.refused {
        let d = &diags[*i];
        let field = d.field.as_deref().map(|f| format!(" `{f}`")).unwrap_or_default();
        eprintln!(
            "warning: not fixed: {}{field} in {}: {}",
            d.rule.id(),
            driftlint_core::escape::text(&d.primary.path.display()),
            driftlint_core::escape::text(why)
        );
    }
}

fn unsafe_note(plan: &fix::Plan) {
    if plan.unsafe_left > 0 {
        let n = plan.unsafe_left;
        eprintln!("note: {n} more {} fixable with --unsafe-fixes", findings(n));
    }
}
