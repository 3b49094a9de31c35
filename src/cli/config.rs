//! `driftlint config show`: the effective configuration as YAML — the file that was found
//! (named in a leading comment), with every default spelled out.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use super::check::ConfigArgs;
use crate::config::Level;
use crate::config::resolve::discovery_start;
use driftlint_core::diagnostic::Rule;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Print the effective configuration (YAML), defaults included.
    Show(ShowArgs),
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Discover the configuration as `driftlint check PATHS` would.
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub fn run(cmd: &Command) -> Result<ExitCode> {
    let Command::Show(args) = cmd;
    let mut cfg = args.config.load(&discovery_start(&args.paths))?;
    for rule in Rule::ALL {
        cfg.rules.entry(rule).or_insert(Level::On(rule.default_severity()));
    }
    cfg.format.get_or_insert_with(|| "human".into());
    cfg.fail_level.get_or_insert(driftlint_core::diagnostic::Severity::Error);
    if cfg.include.is_empty() {
        cfg.include = driftlint_core::input::WalkOptions::default().include;
    }
    match &cfg.file {
        Some(f) => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let shown = crate::report::relative_to(f, &cwd).unwrap_or_else(|| f.clone());
            println!("# {}", driftlint_core::escape::text(&shown.display().to_string()));
        }
        None => println!("# no configuration file: defaults"),
    }
    print!("{}", cfg.to_yaml());
    Ok(ExitCode::SUCCESS)
}
