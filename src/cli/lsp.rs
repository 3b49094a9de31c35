//! `driftlint lsp`: the language server on standard input and output, until the client's
//! `exit` (exit code 0 after `shutdown`, 1 without it, as the specification asks).

use std::process::ExitCode;

use anyhow::Result;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Accepted for editors that pass it (VS Code's clients do); standard input and output are
    /// the only transport.
    #[arg(long)]
    stdio: bool,
}

pub fn run(_args: &Args) -> Result<ExitCode> {
    let (connection, io_threads) = lsp_server::Connection::stdio();
    let end = crate::lsp::serve(&connection, crate::lsp::Options::default())?;
    drop(connection);
    io_threads.join()?;
    Ok(match end {
        crate::lsp::End::Clean => ExitCode::SUCCESS,
        crate::lsp::End::Abrupt => ExitCode::from(1),
    })
}
