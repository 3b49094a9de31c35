//! `driftlint compare`: a drop-in for kube-compare's offline mode (`kubectl cluster-compare -r
//! REF -f FILES`), with its flags, outputs and exit codes (spec §1).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use driftlint_reference::run::{self, Options};

/// kube-compare's usage-error hint line (§1.3).
const USAGE_HINT: &str = "See 'cluster-compare -h' for help and examples";

#[derive(Debug, clap::Args)]
#[command(about = "Compare CRs with a kube-compare reference (offline mode of kubectl cluster-compare)")]
pub struct Args {
    /// Path to the reference metadata.yaml, or a git location (`git:REV:PATH`,
    /// `git+file:///repo@REV:PATH`; a driftlint extension).
    #[arg(short = 'r', long = "reference", default_value = "")]
    pub reference: String,
    /// Files, directories or globs with the CRs; `-` reads stdin. Repeatable and comma-separated.
    #[arg(short = 'f', long = "filename", value_delimiter = ',')]
    pub filename: Vec<String>,
    /// Walk directories given to -f recursively.
    #[arg(short = 'R', long = "recursive")]
    pub recursive: bool,
    /// Kustomization directory (not supported by driftlint: pipe `kustomize build` into `-f -`).
    #[arg(short = 'k', long = "kustomize", default_value = "")]
    pub kustomize: String,
    /// User config file (manual correlation).
    #[arg(short = 'c', long = "diff-config", default_value = "")]
    pub diff_config: String,
    /// Output format: json, yaml, junit, generate-patches; anything else gives the text report.
    #[arg(short = 'o', long = "output", default_value = "")]
    pub output: String,
    /// User overrides (patch) file.
    #[arg(short = 'p', long = "overrides", default_value = "")]
    pub overrides: String,
    /// Template paths to generate patches for (with -o generate-patches).
    #[arg(long = "generate-override-for", value_delimiter = ',')]
    pub generate_override_for: Vec<String>,
    /// Reason stored in generated patches.
    #[arg(long = "override-reason", default_value = "")]
    pub override_reason: String,
    /// Report CRs that no template matched.
    #[arg(short = 'A', long = "all-resources")]
    pub all_resources: bool,
    /// Show CRs without differences in the text report, and log progress to stderr.
    #[arg(short = 'v', long = "verbose")]
    pub verbose: bool,
    /// Keep metadata.managedFields when writing the two sides.
    #[arg(long = "show-managed-fields")]
    pub show_managed_fields: bool,
    /// Accepted for compatibility; kube-compare ignores it too.
    #[arg(long = "concurrency", default_value_t = 4)]
    pub concurrency: i64,
    /// Threads reading, parsing and comparing CRs (default: the available parallelism; a
    /// driftlint extension). The output is the same for any value.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Print the template functions and exit.
    #[arg(long = "show-template-functions")]
    pub show_template_functions: bool,
    /// Positional arguments are rejected, as kube-compare does (after the reference loads).
    #[arg(hide = true)]
    pub rest: Vec<String>,
}

/// A usage error: `error: <msg>` plus the hint line, exit 2.
pub fn usage_error(msg: &str) -> ExitCode {
    eprintln!("error: {msg}\n{USAGE_HINT}");
    ExitCode::from(2)
}

/// Any other fatal error: `error: <msg>`, exit 2.
pub fn fatal(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// Runs `driftlint compare` with kube-compare's validation order (§1.3).
pub fn run(args: Args) -> Result<ExitCode> {
    if args.show_template_functions {
        print!("{}", super::template::functions_listing());
        return Ok(ExitCode::SUCCESS);
    }
    if args.output == "generate-patches" {
        if args.generate_override_for.is_empty() {
            return Ok(usage_error(
                "Requested user override generation but no entires for which template to generate overrides for",
            ));
        }
        if args.override_reason.is_empty() {
            return Ok(usage_error("Reason required when generating overrides"));
        }
    }
    if args.reference.is_empty() {
        return Ok(usage_error("\"Reference config file is required\""));
    }
    if args.reference.starts_with("http://")
        || args.reference.starts_with("https://")
        || args.reference.starts_with("container://")
    {
        return Ok(fatal("driftlint compare reads references from local files only; download the reference first"));
    }
    if !args.rest.is_empty() {
        return Ok(usage_error(&format!("Unexpected args: [{}]", args.rest.join(" "))));
    }
    if !args.kustomize.is_empty() {
        return Ok(fatal("driftlint compare does not run kustomize: pipe `kustomize build DIR` into `-f -`"));
    }
    if args.filename.is_empty() {
        return Ok(fatal(
            "driftlint compare works offline: give the cluster CRs with -f (live cluster mode is not supported)",
        ));
    }
    let opts = Options {
        reference: args.reference,
        inputs: args.filename,
        recursive: args.recursive,
        diff_config: args.diff_config,
        overrides: args.overrides,
        output: args.output,
        generate_override_for: args.generate_override_for,
        override_reason: args.override_reason,
        all_resources: args.all_resources,
        verbose: args.verbose,
        show_managed_fields: args.show_managed_fields,
    };
    match run::run(&opts) {
        Ok(done) => {
            for line in &done.stderr {
                eprintln!("{line}");
            }
            let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            done.stdout.write_to(&mut stdout)?;
            stdout.flush()?;
            Ok(ExitCode::from(done.code))
        }
        Err(fatal_err) => {
            for line in &fatal_err.stderr {
                eprintln!("{line}");
            }
            Ok(fatal(&fatal_err.message))
        }
    }
}
