//! `driftlint completions SHELL`: a completion script for a shell, generated from the command
//! line's own definition (`clap_complete`), so that it lists every subcommand, flag and value.

use std::process::ExitCode;

use std::io::Write;

use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_complete::Shell;

#[derive(Debug, clap::Args)]
#[command(after_help = "Install, e.g.:\n  \
    bash:  driftlint completions bash > ~/.local/share/bash-completion/completions/driftlint\n  \
    zsh:   driftlint completions zsh > \"${fpath[1]}/_driftlint\"\n  \
    fish:  driftlint completions fish > ~/.config/fish/completions/driftlint.fish")]
pub struct Args {
    /// The shell the script is for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let mut cmd = super::Cli::command();
    // Into memory first: `generate` panics when its writer fails (a closed pipe), and a
    // failed write is an error like any other (exit 2).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "driftlint", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script).and_then(|()| out.flush()).context("cannot write the completion script")?;
    Ok(ExitCode::SUCCESS)
}
