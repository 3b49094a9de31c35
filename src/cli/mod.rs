//! The command line: argument parsing, dispatch and exit codes.
//!
//! Exit codes are the same for every subcommand and output format: 0 when the run found
//! nothing at error level, 1 when it did, 2 for usage and runtime errors (printed to stderr as
//! a cause chain).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod check;
mod compare;
mod completions;
mod config;
mod explain;
mod init;
mod ls;
mod lsp;
pub mod man;
mod policy;
mod reference;
mod template;

#[derive(Debug, Parser)]
#[command(
    name = "driftlint",
    version,
    about = "Keep Kubernetes manifests true to a kube-compare reference configuration"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    global: GlobalArgs,
}

/// Flags every subcommand takes.
#[derive(Debug, clap::Args)]
pub struct GlobalArgs {
    /// Print findings and errors only: no summary line, no notes (as ruff's `-q`). The exit
    /// code is the same.
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    /// When to colour the output: `auto` colours a terminal unless `NO_COLOR` is set (and always
    /// with `CLICOLOR_FORCE`), `always` and `never` override that detection.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,
}

/// `--color` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// A terminal, unless `NO_COLOR` is set (`CLICOLOR_FORCE` forces it).
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    /// Makes the choice for every stream (`report::color_for` reads it); `auto` leaves
    /// anstream's own detection in place.
    fn apply(self) {
        match self {
            ColorWhen::Auto => {}
            ColorWhen::Always => anstream::ColorChoice::Always.write_global(),
            ColorWhen::Never => anstream::ColorChoice::Never.write_global(),
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write a commented `.driftlint.yaml` for the repository in DIR (default: the current
    /// directory), from the references, charts, kustomizations, CRDs and policies found there.
    Init(init::Args),
    /// Lint manifests against the reference: drift, missing and unmatched objects, with the
    /// manifest line and the template line that set the expectation.
    // Boxed: its flags make it several times the size of the other commands' (clippy's
    // `large_enum_variant`).
    Check(Box<check::Args>),
    /// Work with driftlint's configuration (`.driftlint.yaml`).
    #[command(subcommand)]
    Config(config::Command),
    /// List every Kubernetes object driftlint finds in the inputs, with file and line.
    Ls(ls::Args),
    /// Compare CRs with a reference, as kube-compare's offline mode does (same flags,
    /// outputs and exit codes).
    Compare(compare::Args),
    /// Pin the reference in `driftlint.lock`, or verify it is still the pinned one.
    #[command(subcommand)]
    Reference(reference::Command),
    /// Work with Go templates the way a reference renders them.
    #[command(subcommand)]
    Template(template::Command),
    /// Explain a rule: what it flags, why, an example and how to fix it.
    Explain(explain::Args),
    /// Rego policies: Fybrik config-policy decisions and ad-hoc queries.
    #[command(subcommand)]
    Policy(policy::Command),
    /// Serve the Language Server Protocol on standard input and output: `check`'s findings on
    /// the editor's unsaved manifests, hover, go-to-definition and quick fixes.
    Lsp(lsp::Args),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish) to standard output.
    Completions(completions::Args),
}

/// Output formats shared by listing commands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    #[default]
    Human,
    Json,
}

/// Inputs common to commands that read manifests.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// Files or directories to read; `-` reads standard input. Defaults to the current directory.
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Do not honour `.gitignore` / `.ignore` files while walking directories.
    #[arg(long)]
    pub no_ignore: bool,
    /// Directory that relative origin paths from stdin (kustomize `config.kubernetes.io/origin`)
    /// are resolved against. Defaults to the current directory.
    #[arg(long, value_name = "DIR")]
    pub origin_root: Option<PathBuf>,
}

/// A path named on the command line that does not exist is a usage error (exit 2), as a
/// missing reference is: a typo must not look like a run that found a problem in a file.
/// `-` (standard input) always exists. A path that exists but cannot be read stays a finding.
pub fn require_paths(paths: &[PathBuf]) -> anyhow::Result<()> {
    for path in paths.iter().filter(|p| p.as_os_str() != "-") {
        if let Err(e) = std::fs::symlink_metadata(path)
            && e.kind() == std::io::ErrorKind::NotFound
        {
            anyhow::bail!("input path {} does not exist", driftlint_core::escape::text(&path.display().to_string()));
        }
    }
    Ok(())
}

impl InputArgs {
    pub fn paths(&self) -> Vec<PathBuf> {
        if self.paths.is_empty() { vec![PathBuf::from(".")] } else { self.paths.clone() }
    }
}

/// The stack of every thread of a run ([`crate::check::STACK_SIZE`]).
pub const STACK_SIZE: usize = crate::check::STACK_SIZE;

/// `--jobs N`: the size of rayon's global pool, which every parallel step of `check` and
/// `compare` uses (without it rayon takes the available parallelism). Results are joined in
/// input order, so the value changes speed only.
fn set_jobs(jobs: Option<u16>) {
    let mut pool = rayon::ThreadPoolBuilder::new().stack_size(STACK_SIZE);
    if let Some(n) = jobs {
        pool = pool.num_threads(usize::from(n));
    }
    // Fails only when the pool already exists (not in a command-line run): keep it.
    let _ = pool.build_global();
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    cli.global.color.apply();
    // The pool is made once, before any command uses it: `--jobs` sets its size.
    set_jobs(match &cli.command {
        Command::Check(args) => args.jobs,
        Command::Compare(args) => args.jobs,
        _ => None,
    });
    let result = match cli.command {
        Command::Init(args) => init::run(&args, &cli.global),
        Command::Check(args) => check::run(&args, &cli.global),
        Command::Config(cmd) => config::run(&cmd),
        Command::Ls(args) => ls::run(&args),
        Command::Reference(cmd) => reference::run(&cmd),
        Command::Template(cmd) => template::run(cmd),
        Command::Compare(args) => compare::run(args),
        Command::Explain(args) => explain::run(&args),
        Command::Policy(cmd) => policy::run(&cmd),
        Command::Completions(args) => completions::run(&args),
        Command::Lsp(args) => lsp::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            // Errors quote file names and values from the checked repository: escaped, so
            // that none can write to the terminal or the CI log as it pleases.
            eprintln!("error: {}", driftlint_core::escape::lines(&err.to_string()));
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {}", driftlint_core::escape::lines(&cause.to_string()));
            }
            ExitCode::from(2)
        }
    }
}
