//! `driftlint policy …`: Rego policies outside `check`. `decide` is Fybrik's config-policy
//! evaluator (EvaluatorInput in, EvaluatorOutput out); `eval` answers any query, as
//! `opa eval` does.
//!
//! Exit codes: 0 with a result (a Fybrik conflict is a result), 1 when the policies fail
//! (do not parse, fail to evaluate, give the wrong shape), 2 for usage errors (a flag, a file
//! that cannot be read or parsed).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};

use crate::policy::capabilities::Capabilities;
use crate::policy::engine::{self, Options, RegoVersion};
use crate::policy::{self, Policies, PolicyError, fybrik, load};

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Evaluate Fybrik config policies (`data.adminconfig.config`) for one EvaluatorInput and
    /// print the merged decisions (the EvaluatorOutput JSON; `Valid: false` on a conflict).
    Decide {
        #[command(flatten)]
        sources: Sources,
        /// The EvaluatorInput (JSON or YAML).
        #[arg(long, value_name = "FILE")]
        input: PathBuf,
    },
    /// Evaluate a Rego query (e.g. `data.main.deny`) and print its value as JSON, like
    /// `opa eval --format json`: `{"result": [{"expressions": [{"value": …, "text": …}]}]}`,
    /// `{}` when it is undefined.
    Eval {
        #[command(flatten)]
        sources: Sources,
        /// The input document (JSON or YAML).
        #[arg(long, value_name = "FILE")]
        input: Option<PathBuf>,
        /// The query.
        #[arg(value_name = "QUERY")]
        query: String,
    },
}

/// Where policies and data come from.
#[derive(Debug, clap::Args)]
pub struct Sources {
    /// `.rego` files or directories (read recursively), or git locations `git:REV:PATH`.
    #[arg(long = "policies", visible_alias = "policy", value_name = "PATH", required = true)]
    policies: Vec<String>,
    /// Data documents (JSON/YAML files, or directories whose files are merged at the root).
    #[arg(long, value_name = "PATH")]
    data: Vec<String>,
    #[command(flatten)]
    engine: EngineArgs,
}

/// How Rego is compiled and evaluated (shared by `check` and `policy`).
#[derive(Debug, Default, clap::Args)]
pub struct EngineArgs {
    /// Read the policies as Rego `v1` (OPA 1.x: `if`/`contains` required) or `v0` (OPA 0.x);
    /// `import rego.v1` works in both [default: v1; `policy decide`: v0, as Fybrik].
    #[arg(long, value_name = "VERSION", value_parser = ["v0", "v1"], help_heading = "Policies")]
    pub rego_version: Option<String>,
    /// OPA's capabilities JSON (`{"builtins": [{"name": …}]}`): exactly the built-ins a policy may
    /// call [default: all but network, environment, clock and randomness].
    #[arg(long, value_name = "FILE", help_heading = "Policies")]
    pub capabilities: Option<PathBuf>,
    /// A fixed clock for `time.now_ns` (RFC 3339, e.g. `2024-01-01T00:00:00Z`); allows it.
    #[arg(long, value_name = "TIME", help_heading = "Policies")]
    pub now: Option<String>,
    /// OPA's strict mode: unused imports and locals, duplicate imports and deprecated built-ins
    /// are compile errors.
    #[arg(long, help_heading = "Policies")]
    pub strict: bool,
}

impl EngineArgs {
    /// The engine options: flags, else `file_version` (a configuration's `rego-version:`).
    pub fn options(&self, file_version: Option<RegoVersion>) -> Result<Options> {
        let capabilities = match &self.capabilities {
            Some(path) => Capabilities::load(path).map_err(|e| anyhow!(e))?,
            None => Capabilities::default(),
        };
        let now = match &self.now {
            Some(text) => Some(
                engine::parse_now(text)
                    .ok_or_else(|| anyhow!("--now {text:?}: not an RFC 3339 time (e.g. 2024-01-01T00:00:00Z)"))?,
            ),
            None => None,
        };
        Ok(Options {
            rego_version: self.rego_version.as_deref().and_then(RegoVersion::parse).or(file_version),
            capabilities,
            now,
            strict: self.strict,
        })
    }
}

pub fn run(cmd: &Command) -> Result<ExitCode> {
    match cmd {
        Command::Decide { sources, input } => {
            let input = read_document(input)?;
            // Fybrik's OPA read Rego v0.
            let mut policies = match compile(sources, RegoVersion::V0)? {
                Ok(p) => p,
                Err(e) => return Ok(policy_failure(&e)),
            };
            let decided = fybrik::decide(&mut policies, &input);
            policy::print::show(&policies.take_prints());
            match decided {
                Ok(outcome) => {
                    println!("{}", serde_json::to_string_pretty(&fybrik::to_output(&input, &outcome))?);
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => Ok(policy_failure(&e)),
            }
        }
        Command::Eval { sources, input, query } => {
            let input = input.as_deref().map(read_document).transpose()?;
            let mut policies = match compile(sources, RegoVersion::V1)? {
                Ok(p) => p,
                Err(e) => return Ok(policy_failure(&e)),
            };
            let input = input.map(|i| policy::engine::to_value(&i)).transpose().map_err(|e| anyhow!(e))?;
            let answer = policies.query(query, input);
            policy::print::show(&policies.take_prints());
            match answer {
                Ok(value) => {
                    let out = match value {
                        None => serde_json::json!({}),
                        Some(v) => serde_json::json!({"result": [{"expressions": [
                            {"value": policy::engine::to_json(&v), "text": query}
                        ]}]}),
                    };
                    println!("{}", serde_json::to_string_pretty(&out)?);
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => Ok(policy_failure(&e)),
            }
        }
    }
}

/// Loads and compiles the policies: `Err` for usage errors (unreadable files or data), the
/// inner `Err` for policies that fail.
fn compile(sources: &Sources, default: RegoVersion) -> Result<Result<Policies, PolicyError>> {
    let options = sources.engine.options(None)?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let modules = load::load_modules(&sources.policies, &cwd).map_err(|e| anyhow!(e))?;
    if modules.is_empty() {
        return Err(anyhow!("no `.rego` file in {}", sources.policies.join(", ")));
    }
    let data = load::load_data(&sources.data, &cwd).map_err(|e| anyhow!(e))?;
    Ok(Policies::compile(modules, data, &options, default).map_err(|e| load::with_data_files(e, &sources.data, &cwd)))
}

fn read_document(path: &Path) -> Result<serde_json::Value> {
    let bytes = crate::input::read_bounded(path, crate::input::MAX_FILE_BYTES)
        .with_context(|| format!("cannot read {}", path.display()))?;
    load::parse_document(&path.display().to_string(), &bytes).map_err(|e| anyhow!(e))
}

fn policy_failure(e: &PolicyError) -> ExitCode {
    eprintln!("error: {}", crate::report::escape::lines(&e.to_string()));
    ExitCode::from(1)
}
