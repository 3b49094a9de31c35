//! `driftlint explain`: a rule's documentation (what, why, an example, how to fix), from the
//! same text that `docs/rules.md` and the SARIF rules table are generated from.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};

use driftlint_core::diagnostic::Rule;
use driftlint_core::rules;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rule id (e.g. `value-drift`). Without one, lists every rule.
    #[arg(value_name = "RULE")]
    rule: Option<String>,
    /// Print Markdown instead of plain text.
    #[arg(long)]
    markdown: bool,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let text = match &args.rule {
        None if args.markdown => rules::rules_markdown(),
        None => list(),
        Some(id) => match Rule::from_id(id) {
            Some(rule) if args.markdown => rules::explain_markdown(rule, 1),
            Some(rule) => rules::explain_text(rule),
            None => match Rule::nearest(id) {
                Some(near) => {
                    bail!("unknown rule `{id}`: did you mean `{near}`? (`driftlint explain` lists every rule)")
                }
                None => bail!("unknown rule `{id}` (`driftlint explain` lists every rule)"),
            },
        },
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// One line per rule: id, default severity and summary.
fn list() -> String {
    let width = Rule::ALL.iter().map(|r| r.id().len()).max().unwrap_or(0);
    let mut out = String::new();
    for rule in Rule::ALL {
        let doc = rules::doc(rule);
        out.push_str(&format!("{:width$}  {:7}  {}\n", rule.id(), doc.default_severity.as_str(), doc.summary));
    }
    out.push_str("\nRun `driftlint explain RULE` for a rule's documentation.\n");
    out
}
