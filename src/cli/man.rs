//! The manual pages, generated from the command line's own definition (`clap_mangen`): one
//! page for `driftlint` and one for each subcommand (`driftlint-check.1`, …), as git and cargo
//! ship them. `docs/man/` holds them and the release archives ship that directory; a test
//! (`tests/cli/man.rs`) fails when they are stale, and `DRIFTLINT_BLESS=1` rewrites them.

use clap::CommandFactory;

/// Every page as (file name, roff text), the command's page after its subcommands'.
pub fn pages() -> Vec<(String, String)> {
    // `help` is clap's, not a command of its own: no page.
    let mut cmd = super::Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    collect(cmd, &mut out);
    out
}

fn collect(cmd: clap::Command, out: &mut Vec<(String, String)>) {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        collect(sub, out);
    }
    let man = clap_mangen::Man::new(cmd);
    let mut text = Vec::new();
    // Writing into memory does not fail.
    man.render(&mut text).expect("a page renders into memory");
    out.push((man.get_filename(), String::from_utf8_lossy(&text).into_owned()));
}
