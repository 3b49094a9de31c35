//! `driftlint template …`: render a template the way a reference does, run one conformance
//! case, list the template functions.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use driftlint_gotmpl::{Limits, TemplateSet, Value};

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Render TEMPLATE with a manifest as data, as a reference CR would be rendered.
    Render {
        /// The template file.
        template: PathBuf,
        /// YAML or JSON document used as data (default: an empty map, like kube-compare's
        /// load-time pre-pass).
        #[arg(long, value_name = "FILE")]
        data: Option<PathBuf>,
        /// Function files (`templateFunctionFiles`) parsed into the template's set, in order.
        #[arg(long, value_name = "FILE", num_args = 1..)]
        defines: Vec<PathBuf>,
    },
    /// Run one conformance case: a JSON case on stdin, one JSON result line on stdout.
    EvalCase,
    /// List the functions available to templates, as kube-compare's
    /// `--show-template-functions` prints them.
    Functions,
}

pub fn run(cmd: Command) -> Result<ExitCode> {
    match cmd {
        Command::Render { template, data, defines } => render(&template, data.as_deref(), &defines),
        Command::EvalCase => {
            let input = driftlint_core::input::read_stdin_bounded_to_string(driftlint_core::input::MAX_FILE_BYTES)
                .context("reading the case from stdin")?;
            println!("{}", driftlint_gotmpl::case::eval_case(&input));
            Ok(ExitCode::SUCCESS)
        }
        Command::Functions => {
            let mut out = std::io::stdout().lock();
            out.write_all(functions_listing().as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn render(template: &Path, data: Option<&Path>, defines: &[PathBuf]) -> Result<ExitCode> {
    let text = read(template)?;
    let mut files = Vec::new();
    for d in defines {
        files.push((base_name(d), read(d)?));
    }
    let data = match data {
        Some(p) => load_data(p)?,
        None => Value::map(Default::default()),
    };
    let set = match TemplateSet::parse(&base_name(template), &text, &files) {
        Ok(set) => set,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    match set.execute(&data, &Limits::default(), &[]) {
        Ok(rendered) => {
            std::io::stdout().write_all(rendered.text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// Reads a YAML or JSON document and converts it the way kube-compare hands a CR to a template.
fn load_data(path: &Path) -> Result<Value> {
    let text = read(path)?;
    let docs =
        driftlint_core::document::parse_yaml_json(&text).map_err(|e| anyhow::anyhow!("{}:{}", path.display(), e))?;
    Ok(docs.map(|j| Value::from_json(&j)).unwrap_or(Value::Nil))
}

fn read(path: &Path) -> Result<String> {
    driftlint_core::input::read_bounded_to_string(path, driftlint_core::input::MAX_FILE_BYTES)
        .with_context(|| format!("cannot read {}", path.display()))
}

fn base_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

/// kube-compare's custom functions and their help texts (spec §3.4), printed first.
const CUSTOM_HELP: &[(&str, &str)] = &[
    ("doNotMatch", "Skip matching this target against the current CR"),
    ("fromJson", "Parse the incoming string as a structured JSON object"),
    ("fromJsonArray", "Parse the incoming string as a structured JSON array"),
    ("fromYaml", "Parse the incoming string as a structured YAML object"),
    ("fromYamlArray", "Parse the incoming string as a structured YAML array"),
    ("lookupCR", "Lookup an external CR and return exactly one matching object"),
    ("lookupCRs", "Lookup an external CR and return an array of matching objects"),
    ("toJson", "Render incoming data of any type as a JSON string"),
    ("toToml", "Render incoming data of any type as a TOML document string"),
    ("toYaml", "Render incoming data of any type as a YAML document string"),
];

/// The listing in kube-compare's exact format: custom functions with help, then the Sprig
/// names actually available, comma-separated.
pub fn functions_listing() -> String {
    let mut s = String::from("Available Template Functions\n============================\n\n");
    for (name, help) in CUSTOM_HELP {
        if driftlint_gotmpl::funcs::lookup(name).is_some() {
            s.push_str(&format!("{name}:\n  {help}\n"));
        }
    }
    s.push_str(
        "\nImported from https://masterminds.github.io/sprig/\n--------------------------------------------------\n\n",
    );
    let sprig: Vec<&str> =
        driftlint_gotmpl::funcs::names().into_iter().filter(|n| !CUSTOM_HELP.iter().any(|(c, _)| c == n)).collect();
    s.push_str(&sprig.join(", "));
    s.push('\n');
    s
}
