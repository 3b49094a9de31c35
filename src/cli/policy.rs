//! `driftlint policy …`: Rego policies outside `check`. `decide` is Fybrik's config-policy
//! evaluator (EvaluatorInput in, EvaluatorOutput out); `eval` answers any query, as
//! `opa eval` does; `test` runs the policies' unit tests, as `conftest verify` does.
//!
//! Exit codes: 0 with a result (a Fybrik conflict is a result; every test passed), 1 when the
//! policies fail (do not parse, fail to evaluate, give the wrong shape, a test fails), 2 for
//! usage errors (a flag, a file that cannot be read or parsed).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};

use driftlint_core::escape;
use driftlint_policy::capabilities::Capabilities;
use driftlint_policy::engine::{self, Options, RegoVersion};
use driftlint_policy::verify::{self, Outcome};
use driftlint_policy::{Policies, PolicyError, fybrik, load};

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
    /// Run the policies' unit tests, as `conftest verify` and `opa test` do: every rule named
    /// `test_*` (`todo_test_*`: skipped), queried without input. Prints each test's outcome
    /// with its file and line; exits 1 when a test fails or errors, 0 when all pass.
    Test {
        /// `.rego` files or directories (read recursively, tests in `*_test.rego` beside the
        /// policies they test), or git locations `git:REV:PATH` [default: policy].
        #[arg(value_name = "PATH")]
        paths: Vec<String>,
        /// More policy locations (conftest's `--policy`).
        #[arg(long = "policy", short = 'p', value_name = "PATH")]
        policies: Vec<String>,
        /// Data documents (JSON/YAML files, or directories whose files are merged at the root).
        #[arg(long, short = 'd', value_name = "PATH")]
        data: Vec<String>,
        /// Only the tests of these packages: names or globs (`main.*`); repeatable.
        #[arg(long = "namespace", short = 'n', value_name = "NS")]
        namespaces: Vec<String>,
        /// Output format.
        #[arg(long, short = 'o', value_enum, default_value = "human")]
        format: TestFormat,
        #[command(flatten)]
        engine: EngineArgs,
    },
}

/// `policy test --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TestFormat {
    /// One line per test (`PASS`/`FAIL`/`ERROR`/`SKIP`, file:line, name), then a summary.
    Human,
    /// `{"tests": [{package, name, query, file, line, outcome, message}], "summary": {…}}`.
    Json,
    /// JUnit XML: a test suite per package, a test case per test.
    Junit,
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
    /// OPA's strict mode: unused imports, unused local assignments, unused function arguments
    /// and deprecated built-ins are compile errors (duplicate imports and shadowed
    /// `input`/`data` always are).
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
            driftlint_policy::print::show(&policies.take_prints());
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
            let input = input.map(|i| driftlint_policy::engine::to_value(&i)).transpose().map_err(|e| anyhow!(e))?;
            let answer = policies.query(query, input);
            driftlint_policy::print::show(&policies.take_prints());
            match answer {
                Ok(value) => {
                    let out = match value {
                        None => serde_json::json!({}),
                        Some(v) => serde_json::json!({"result": [{"expressions": [
                            {"value": driftlint_policy::engine::to_json(&v), "text": query}
                        ]}]}),
                    };
                    println!("{}", serde_json::to_string_pretty(&out)?);
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => Ok(policy_failure(&e)),
            }
        }
        Command::Test { paths, policies, data, namespaces, format, engine } => {
            test(paths, policies, data, namespaces, *format, &engine.options(None)?)
        }
    }
}

/// `policy test`: loads the policies and data (unreadable: usage error), runs the tests and
/// prints them.
fn test(
    paths: &[String],
    more: &[String],
    data: &[String],
    namespaces: &[String],
    format: TestFormat,
    options: &Options,
) -> Result<ExitCode> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let mut locations: Vec<String> = paths.iter().chain(more).cloned().collect();
    if locations.is_empty() {
        locations.push("policy".into());
    }
    let modules = load::load_modules(&locations, &cwd).map_err(|e| anyhow!(e))?;
    if modules.is_empty() {
        return Err(anyhow!("no `.rego` file in {}", locations.join(", ")));
    }
    let data = load::load_data(data, &cwd).map_err(|e| anyhow!(e))?;
    let tests = match verify::run(modules, data, namespaces, options) {
        Ok(t) => t,
        Err(e @ PolicyError::Data { .. }) => return Err(anyhow!(e)),
        Err(e) => return Ok(policy_failure(&e)),
    };
    let text = match format {
        TestFormat::Human => render_human(&tests),
        TestFormat::Json => serde_json::to_string_pretty(&render_json(&tests))? + "\n",
        TestFormat::Junit => render_junit(&tests),
    };
    print!("{text}");
    if tests.is_empty() {
        eprintln!("note: no test found (rules named `test_*`) in {}", escape::text(&locations.join(", ")));
    }
    let (_, failed, errors, _) = verify::counts(&tests);
    Ok(if failed + errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One line per test, escaped, then conftest's summary line.
fn render_human(tests: &[verify::Test]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for t in tests {
        let outcome = match t.outcome {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Error => "ERROR",
            Outcome::Skip => "SKIP",
        };
        // conftest verify shows prints as `PRNT  FILE:LINE: TEXT`; here each test's come
        // right before its line.
        for p in &t.prints {
            let _ = writeln!(out, "PRNT  {}", driftlint_policy::print::line(p));
        }
        let _ = write!(out, "{outcome} {}:{}: {}", escape::text(&t.path), t.line, escape::text(&t.query()));
        if matches!(t.outcome, Outcome::Fail | Outcome::Error)
            && let Some(m) = &t.message
        {
            let _ = write!(out, ": {}", escape::text(m));
        }
        out.push('\n');
    }
    let (passed, failed, errors, skipped) = verify::counts(tests);
    let _ = writeln!(
        out,
        "\n{}, {} passed, {}, {}, {} skipped",
        plural(tests.len(), "test", "tests"),
        passed,
        plural(failed, "failure", "failures"),
        plural(errors, "error", "errors"),
        skipped
    );
    out
}

fn render_json(tests: &[verify::Test]) -> serde_json::Value {
    let (passed, failed, errors, skipped) = verify::counts(tests);
    let list: Vec<serde_json::Value> = tests
        .iter()
        .map(|t| {
            serde_json::json!({
                "package": t.package,
                "name": t.name,
                "query": t.query(),
                "file": t.path,
                "line": t.line,
                "outcome": t.outcome.name(),
                "message": t.message,
                "prints": t.prints,
            })
        })
        .collect();
    serde_json::json!({
        "tests": list,
        "summary": {"tests": tests.len(), "passed": passed, "failed": failed, "errors": errors, "skipped": skipped},
    })
}

/// Text for an XML attribute or element: markup characters as entities, control characters
/// (which XML 1.0 cannot hold) as visible escapes.
fn x(s: &str) -> String {
    escape::text(s).replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A JUnit document: a test suite per package (in order of appearance), a test case per test.
fn render_junit(tests: &[verify::Test]) -> String {
    use std::fmt::Write as _;
    let (_, failed, errors, skipped) = verify::counts(tests);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"driftlint policy test\" tests=\"{}\" failures=\"{failed}\" errors=\"{errors}\" skipped=\"{skipped}\">",
        tests.len()
    );
    let mut packages: Vec<&str> = Vec::new();
    for t in tests {
        if !packages.contains(&t.package.as_str()) {
            packages.push(&t.package);
        }
    }
    for package in packages {
        let suite: Vec<&verify::Test> = tests.iter().filter(|t| t.package == package).collect();
        let n = |o: Outcome| suite.iter().filter(|t| t.outcome == o).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"data.{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
            x(package),
            suite.len(),
            n(Outcome::Fail),
            n(Outcome::Error),
            n(Outcome::Skip)
        );
        for t in suite {
            let open = format!(
                "    <testcase classname=\"data.{}\" name=\"{}\" file=\"{}\" line=\"{}\"",
                x(&t.package),
                x(&t.name),
                x(&t.path),
                t.line
            );
            let at = format!("{}:{}", t.path, t.line);
            let message = t.message.clone().unwrap_or_default();
            // What the test printed: JUnit's place for a test case's output.
            let system_out = if t.prints.is_empty() {
                String::new()
            } else {
                let lines: Vec<String> = t.prints.iter().map(|p| x(&driftlint_policy::print::line(p))).collect();
                format!("\n      <system-out>{}</system-out>", lines.join("\n"))
            };
            match t.outcome {
                Outcome::Pass if system_out.is_empty() => {
                    let _ = writeln!(out, "{open}/>");
                }
                Outcome::Pass => {
                    let _ = writeln!(out, "{open}>{system_out}\n    </testcase>");
                }
                Outcome::Skip => {
                    let _ = writeln!(out, "{open}>\n      <skipped/>{system_out}\n    </testcase>");
                }
                Outcome::Fail | Outcome::Error => {
                    let tag = if t.outcome == Outcome::Fail { "failure" } else { "error" };
                    let _ = writeln!(
                        out,
                        "{open}>\n      <{tag} message=\"{}\">{}</{tag}>{system_out}\n    </testcase>",
                        x(&message),
                        x(&format!("{at}: {}: {message}", t.query()))
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
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
    let bytes = driftlint_core::input::read_bounded(path, driftlint_core::input::MAX_FILE_BYTES)
        .with_context(|| format!("cannot read {}", path.display()))?;
    load::parse_document(&path.display().to_string(), &bytes).map_err(|e| anyhow!(e))
}

fn policy_failure(e: &PolicyError) -> ExitCode {
    for e in e.errors() {
        eprintln!("error: {}", driftlint_core::escape::lines(&e.to_string()));
    }
    ExitCode::from(1)
}
