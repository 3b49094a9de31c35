//! `driftlint reference pin` and `driftlint reference verify`: record the configured reference
//! in `driftlint.lock` (location, resolved commit, kube-compare's metadata hash), and check that
//! it still is the one recorded — the check `driftlint check` also does on every run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};

use super::check::ConfigArgs;
use crate::config::resolve::reference_location;
use crate::report;
use driftlint_core::locate::Files;
use driftlint_reference::{Compiled, Location, Opened, lock};

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Write `driftlint.lock` (beside `.driftlint.yaml`, else in the working directory) with
    /// the reference's location, the commit it resolves to and its metadata hash.
    Pin(Args),
    /// Check that the reference still is the one in `driftlint.lock` (exit 1 when it is not).
    Verify(Args),
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The reference: a `metadata.yaml`, its directory, or a git location (`git:REV:PATH`,
    /// `git+file:///repo@REV:PATH`). Defaults to `reference:` in `.driftlint.yaml`.
    #[arg(long, short = 'r', value_name = "REF")]
    pub reference: Option<PathBuf>,
}

pub fn run(cmd: &Command) -> Result<ExitCode> {
    match cmd {
        Command::Pin(args) => pin(args),
        Command::Verify(args) => verify(args),
    }
}

/// The configured reference, opened, loaded and compiled (a lock is only written for a
/// reference that works).
struct Resolved {
    location: Location,
    opened: Opened,
    compiled: Compiled,
    lock_path: PathBuf,
}

fn resolve(args: &Args) -> Result<Resolved> {
    let cfg = args.config.load(Path::new("."))?;
    let location = reference_location(args.reference.as_deref(), &cfg)?
        .ok_or_else(|| anyhow!("no reference configured: pass --reference or set `reference:` in .driftlint.yaml"))?;
    let opened = driftlint_reference::open(&location, &cfg.dir)?;
    let compiled = opened
        .load()
        .and_then(driftlint_reference::compile::compile_owned)
        .map_err(|e| anyhow!("{}", e.to_lines()))
        .with_context(|| format!("the reference {} is invalid", opened.path.display()))?;
    Ok(Resolved { location, opened, compiled, lock_path: cfg.lock_path() })
}

fn pin(args: &Args) -> Result<ExitCode> {
    let r = resolve(args)?;
    let lock_dir = r.lock_path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let pinned = lock::Lock {
        source: lock::lock_source(&r.location, &r.opened, lock_dir),
        commit: r.opened.root.commit().map(str::to_owned),
        metadata_hash: driftlint_reference::metadata_hash(&r.compiled),
        files_hash: Some(driftlint_reference::files_hash(&r.compiled.reference)),
    };
    std::fs::write(&r.lock_path, lock::to_text(&pinned))
        .with_context(|| format!("cannot write {}", r.lock_path.display()))?;
    let at = pinned.commit.as_deref().map_or_else(String::new, |c| format!(" at commit {c}"));
    println!(
        "pinned reference `{}`{at} (metadata hash {}) in {}",
        pinned.source,
        pinned.metadata_hash,
        r.lock_path.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn verify(args: &Args) -> Result<ExitCode> {
    let r = resolve(args)?;
    if !r.lock_path.is_file() {
        bail!("{} does not exist: run `driftlint reference pin` first", r.lock_path.display());
    }
    let mut files = Files::default();
    let diags =
        driftlint_reference::lock::verify_lock(&r.lock_path, &r.location, &r.opened, Some(&r.compiled), &mut files)?;
    if diags.is_empty() {
        let at = r.opened.root.commit().map_or_else(String::new, |c| format!(" at commit {c}"));
        println!("reference `{}`{at} matches {}", r.location.display(), r.lock_path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let sources = files.into_sources();
    let resolver = report::SourceResolver::from_sources(&sources);
    let outputs = report::parse_outputs("human")?;
    let cwd = std::env::current_dir().ok();
    let opts = report::Options { color: true, cwd: cwd.as_deref(), root: cwd.as_deref(), ..report::Options::default() };
    report::write_outputs(&outputs, &diags, &resolver, &opts)?;
    Ok(ExitCode::from(1))
}
