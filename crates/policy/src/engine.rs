//! The Rego engine behind every policy feature: modules compiled once into a `regorus`
//! engine, set up the way OPA 1.x compiles policies ([`Options`]: Rego v1 unless v0 is asked
//! for, built-in errors undefined rather than fatal, the allowed built-ins, a fixed clock,
//! strict mode), bounded in time, and queried one rule at a time.
//!
//! It owns the engine's settings, the index of which rules each package declares (with
//! their lines, for locations), the checks made before any input is evaluated
//! ([`super::compile`]) and the translation of regorus errors into [`PolicyError`]s that name
//! the `.rego` file and line. It knows nothing of conftest or Fybrik.
//!
//! What a policy cannot do: regorus is built without `http.send` and `opa.runtime` (see
//! Cargo.toml), and the default capabilities refuse every other built-in that reads the
//! clock, randomness, the network or the environment ([`super::capabilities`]); the only
//! built-ins that read a file are conftest's `parse_config_file` and
//! `parse_combined_config_files`, confined to the repository that holds the calling policy
//! ([`super::files`]). Bounds: a module nested deeper than [`MAX_NESTING`] is refused before
//! regorus parses it ([`super::scan`]: its parser is exponential in nesting depth), compiling has a deadline
//! ([`COMPILE_LIMIT`]), each query a time limit ([`TIME_LIMIT`]) and a run a shared budget
//! ([`RUN_LIMIT`]); a rule that builds huge values runs into the memory watchdog
//! ([`super::memory`]) and the capped built-ins ([`super::builtins`]).
//!
//! `print()` output is gathered per query ([`Policies::take_prints`]), as `FILE:LINE: TEXT`,
//! for the caller to show escaped and in a deterministic order.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use regorus::Value;
use regorus::unstable::{Parser, Rule, RuleHead};

use super::PolicyError;
use super::capabilities::Capabilities;

/// How long one query may run.
pub const TIME_LIMIT: Duration = Duration::from_secs(5);
/// How long every query of one run may take together.
pub const RUN_LIMIT: Duration = Duration::from_secs(300);
/// How long parsing and checking every module may take.
pub const COMPILE_LIMIT: Duration = Duration::from_secs(10);
/// The deepest bracket nesting (`(`, `[`, `{`) a module may have.
pub const MAX_NESTING: usize = super::scan::MAX_NESTING;
/// The most elements `numbers.range` may produce.
pub const RANGE_LIMIT: i64 = super::builtins::RANGE_LIMIT;

pub use crate::module::{Module, RegoVersion};

/// How policies are compiled and evaluated (`--rego-version`, `--capabilities`, `--now`,
/// `--strict`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `None`: the command's default ([`RegoVersion::V1`]; `policy decide` and Fybrik
    /// scenarios read Rego v0, as Fybrik's OPA did).
    pub rego_version: Option<RegoVersion>,
    pub capabilities: Capabilities,
    /// `time.now_ns`, fixed (ns since the epoch).
    pub now: Option<i64>,
    /// OPA's strict mode.
    pub strict: bool,
}

impl Options {
    /// The syntax modules are read as, `default` unless the options say.
    pub fn version_or(&self, default: RegoVersion) -> RegoVersion {
        self.rego_version.unwrap_or(default)
    }
}

/// An RFC 3339 time as ns since the epoch (for `--now`).
pub fn parse_now(text: &str) -> Option<i64> {
    super::builtins::parse_rfc3339_ns(text)
}

/// A rule a module declares: the first segment of its head and the head's line.
#[derive(Clone, Debug)]
pub struct Declared {
    pub name: String,
    pub line: u32,
    /// Index into [`Policies::modules`].
    pub module: usize,
}

/// Compiled policies, ready to be queried many times with different inputs.
#[derive(Clone)]
pub struct Policies {
    engine: regorus::Engine,
    modules: Vec<Module>,
    /// Per module: its package path (`a.b`) and the rules it declares.
    packages: Vec<(String, Vec<Declared>)>,
    /// The modules' paths, for messages (the memory watchdog names them).
    files: String,
    /// The per-query limit, the run's budget, and the evaluation time spent so far (ns, shared
    /// by every copy: the budget is for the run, whatever the number of workers).
    time_limit: Duration,
    run_limit: Duration,
    spent: Arc<AtomicU64>,
    /// `print()` output of the queries since the last [`Policies::take_prints`].
    prints: Vec<String>,
}

impl std::fmt::Debug for Policies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policies").field("modules", &self.modules.len()).finish()
    }
}

impl Policies {
    /// Parses every module as the version `default` (unless `options` say otherwise), checks
    /// them as OPA's compiler does and loads the data document. Errors name the module and
    /// line.
    pub fn compile(
        modules: Vec<Module>,
        data: Option<serde_json::Value>,
        options: &Options,
        default: RegoVersion,
    ) -> Result<Policies, PolicyError> {
        let started = Instant::now();
        let mut engine = regorus::Engine::new();
        engine.set_strict_builtin_errors(false);
        engine.set_gather_prints(true);
        set_time_limit(&mut engine, TIME_LIMIT);
        super::builtins::register(&mut engine, options.now)?;
        // conftest's configuration built-ins read files relative to the calling policy's
        // directory: one copy per directory (a policy read from git has none).
        let mut dirs: Vec<Option<std::path::PathBuf>> = Vec::new();
        let dir_of: Vec<usize> = modules
            .iter()
            .map(|m| {
                let dir = (!m.path.starts_with("git:")).then(|| {
                    std::path::Path::new(&m.path).parent().map(std::path::Path::to_path_buf).unwrap_or_default()
                });
                dirs.iter().position(|d| *d == dir).unwrap_or_else(|| {
                    dirs.push(dir);
                    dirs.len() - 1
                })
            })
            .collect();
        super::files::register(&mut engine, &dirs)?;
        engine.set_rego_v0(options.version_or(default) == RegoVersion::V0);
        // Every module is parsed, so that each one's parse error is reported (as OPA does).
        let mut refused = Vec::new();
        for (mi, m) in modules.iter().enumerate() {
            if let Err(e) = super::scan::check(m, options.version_or(default)) {
                refused.push(e);
                continue;
            }
            let before = engine.clone();
            if let Err(e) = engine.add_policy(m.path.clone(), m.text.clone()) {
                refused.push(parse_error(&e, m, &modules));
                engine = before;
                continue;
            }
            // Valid Rego that regorus reads differently is rewritten first (lines unchanged).
            let rewritten =
                engine.get_modules().last().and_then(|added| super::rewrite::module(&m.text, added, dir_of[mi], mi));
            if let Some(text) = rewritten {
                engine = before.clone();
                if let Err(e) = engine.add_policy(m.path.clone(), text) {
                    refused.push(parse_error(&e, m, &modules));
                    engine = before;
                }
            }
            over_deadline(started, &m.path)?;
        }
        if let Some(e) = PolicyError::from_many(refused) {
            return Err(e);
        }
        let texts: Vec<(String, String)> = modules.iter().map(|m| (m.path.clone(), m.text.clone())).collect();
        let metadata = super::metadata::register(&mut engine, &texts)?;
        let tagged: Vec<(String, u8)> = (0..dirs.len())
            .flat_map(|i| super::tags::FILE_BUILTINS.iter().map(move |(b, n)| (super::tags::for_dir(b, i), *n)))
            .collect();
        let mut extensions: Vec<(&str, u8)> = super::builtins::OURS.to_vec();
        extensions.push(("parse_config", 2));
        extensions.extend(tagged.iter().map(|(name, n)| (name.as_str(), *n)));
        extensions.extend(metadata.iter().map(|name| (name.as_str(), 0)));
        let settings = super::compile::Settings {
            capabilities: &options.capabilities,
            fixed_clock: options.now.is_some(),
            strict: options.strict,
            extensions: &extensions,
        };
        let mut problems = super::compile::check(engine.get_modules(), &settings);
        problems.extend(super::heads::check(engine.get_modules()));
        problems.sort();
        let problems = problems.into_iter().map(|p| PolicyError::Parse {
            location: Some(super::Location { path: p.path, line: p.line }),
            message: p.message,
        });
        if let Some(e) = PolicyError::from_many(problems.collect()) {
            return Err(e);
        }
        if let Some(data) = &data {
            check_shadowing(&mut engine, data)?;
            let value = to_value(data).map_err(|message| PolicyError::Data { message })?;
            engine.add_data(value).map_err(|e| PolicyError::Data { message: e.to_string() })?;
        }
        over_deadline(started, "the policies")?;
        // Regorus analyses the modules (variable scheduling, safety) when it first evaluates:
        // do it now, on a query that reads nothing, so its errors come before any input.
        engine.eval_query("true".to_string(), false).map_err(|e| {
            let text = format!("{e:#}");
            let (location, message) = split_message(&text, &modules);
            PolicyError::Parse { location, message }
        })?;
        let packages = index_rules(&mut engine, &modules);
        let files = modules.iter().map(|m| m.path.as_str()).collect::<Vec<_>>().join(", ");
        Ok(Policies {
            engine,
            modules,
            packages,
            files,
            time_limit: TIME_LIMIT,
            run_limit: RUN_LIMIT,
            spent: Arc::new(AtomicU64::new(0)),
            prints: Vec::new(),
        })
    }

    /// A copy for another run: the same compiled policies, with a budget of its own (a copy
    /// made by `clone` shares its run's).
    #[must_use]
    pub fn for_another_run(&self) -> Policies {
        Policies { spent: Arc::new(AtomicU64::new(0)), prints: Vec::new(), ..self.clone() }
    }

    /// conftest's refusals on top of OPA's (failure and warning rules written
    /// `deny[msg] if { … }`, see [`super::heads`]), each at its module line; `None` when there
    /// is none.
    pub fn conftest_problems(&mut self) -> Option<PolicyError> {
        let problems = super::heads::conftest_if_without_contains(self.engine.get_modules());
        PolicyError::from_many(
            problems
                .into_iter()
                .map(|p| PolicyError::Parse {
                    location: Some(super::Location { path: p.path, line: p.line }),
                    message: p.message,
                })
                .collect(),
        )
    }

    /// Changes the time one query may run (default [`TIME_LIMIT`]).
    pub fn set_time_limit(&mut self, limit: Duration) {
        self.time_limit = limit;
        set_time_limit(&mut self.engine, limit);
    }

    /// Changes the time every query of the run may take together (default [`RUN_LIMIT`]), for
    /// this value and every copy made from it afterwards.
    pub fn set_run_limit(&mut self, limit: Duration) {
        self.run_limit = limit;
    }

    pub fn modules(&self) -> &[Module] {
        &self.modules
    }

    /// The rules declared in package `package` (dotted, without `data.`), in module order.
    pub fn rules_in(&self, package: &str) -> Vec<&Declared> {
        self.packages.iter().filter(|(p, _)| p == package).flat_map(|(_, rules)| rules).collect()
    }

    /// Whether any module declares package `package`.
    pub fn has_package(&self, package: &str) -> bool {
        self.packages.iter().any(|(p, _)| p == package)
    }

    /// The `print()` output of the queries since the last call, in evaluation order, each as
    /// `FILE:LINE: TEXT` (raw: escape it before showing it).
    pub fn take_prints(&mut self) -> Vec<String> {
        std::mem::take(&mut self.prints)
    }

    /// Evaluates `query` with `input` (none: no input document). `Ok(None)` is undefined;
    /// a query with several results yields the first expression of each as an array.
    pub fn query(&mut self, query: &str, input: Option<Value>) -> Result<Option<Value>, PolicyError> {
        // The run's budget: spent, the query is not evaluated; nearly spent, it gets what is left.
        let spent = Duration::from_nanos(self.spent.load(Ordering::Relaxed));
        let left = self.run_limit.saturating_sub(spent);
        if left.is_zero() {
            return Err(PolicyError::Limit {
                message: format!(
                    "the run's policy evaluation budget of {} s is spent; `{query}` and the queries after it were not evaluated",
                    self.run_limit.as_secs()
                ),
            });
        }
        let started = Instant::now();
        set_time_limit(&mut self.engine, self.time_limit.min(left));
        match input {
            Some(v) => self.engine.set_input(v),
            None => self.engine.set_input(Value::Undefined),
        }
        let engine = &mut self.engine;
        let _watched = super::memory::watch(query, &self.files);
        let outcome = catch_unwind(AssertUnwindSafe(|| engine.eval_query(query.to_string(), false)));
        let took = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.spent.fetch_add(took, Ordering::Relaxed);
        self.prints.extend(self.engine.take_prints().unwrap_or_default());
        let results = match outcome {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => return Err(self.error(&e)),
            Err(_) => return Err(PolicyError::Eval { location: None, message: "the Rego engine failed".into() }),
        };
        let mut values: Vec<Value> = results
            .result
            .into_iter()
            .filter_map(|r| r.expressions.into_iter().next().map(|e| e.value))
            .filter(|v| *v != Value::Undefined)
            .collect();
        Ok(match values.len() {
            0 => None,
            1 => values.pop(),
            _ => Some(Value::from(values)),
        })
    }

    /// The [`PolicyError`] for an evaluation error, located in its module when regorus says
    /// where.
    fn error(&self, e: &anyhow::Error) -> PolicyError {
        if let Some(limit) = e.downcast_ref::<regorus::LimitError>() {
            return PolicyError::Limit { message: limit.to_string() };
        }
        let text = format!("{e:#}");
        if text.contains("execution exceeded time limit") || text.contains("time limit") {
            return PolicyError::Limit { message: last_line(&text) };
        }
        let (location, message) = split_message(&text, &self.modules);
        PolicyError::Eval { location, message }
    }
}

fn set_time_limit(engine: &mut regorus::Engine, limit: Duration) {
    engine.set_execution_timer_config(regorus::utils::limits::ExecutionTimerConfig {
        limit,
        check_interval: std::num::NonZeroU32::new(64).unwrap_or(std::num::NonZeroU32::MIN),
    });
}

fn over_deadline(started: Instant, what: &str) -> Result<(), PolicyError> {
    if started.elapsed() > COMPILE_LIMIT {
        return Err(PolicyError::Limit {
            message: format!("compiling the policies took more than {} s (at {what})", COMPILE_LIMIT.as_secs()),
        });
    }
    Ok(())
}

/// A module that does not parse: the error at its line.
fn parse_error(e: &anyhow::Error, m: &Module, modules: &[Module]) -> PolicyError {
    let text = format!("{e:#}");
    let (location, message) = split_message(&text, modules);
    let location = location.or_else(|| Some(super::Location { path: m.path.clone(), line: 1 }));
    // regorus refuses a rule or a local named `input` or `data` while parsing; OPA's compiler
    // refuses them with its own words (`checkRootDocumentOverrides`).
    if let Some(name) = message.strip_suffix(" cannot be shadowed")
        && matches!(name, "input" | "data")
    {
        let line = location.as_ref().map_or(1, |l| l.line);
        let text = m.text.lines().nth(line.saturating_sub(1) as usize).unwrap_or("");
        // A rule's head starts its line; a local is assigned inside a body, indented (regorus'
        // error says which name, not which of the two it is).
        let message = if text.starts_with(name) {
            format!("rego_compile_error: rules must not shadow {name} (use a different rule name)")
        } else {
            format!("rego_compile_error: variables must not shadow {name} (use a different variable name)")
        };
        return PolicyError::Parse { location, message };
    }
    PolicyError::Parse { location, message: format!("rego_parse_error: {message}") }
}

/// A data document with a value where a rule is: OPA refuses it (the data would stand in
/// for the rule's result).
fn check_shadowing(engine: &mut regorus::Engine, data: &serde_json::Value) -> Result<(), PolicyError> {
    let packages = engine.get_policy_package_components().unwrap_or_default();
    for (i, module) in engine.get_modules().iter().enumerate() {
        let Some(pkg) = packages.get(i) else { break };
        for rule in &module.policy {
            let (refr, line) = match rule.as_ref() {
                Rule::Spec { head, span, .. } => match head {
                    RuleHead::Compr { refr, .. } | RuleHead::Set { refr, .. } | RuleHead::Func { refr, .. } => {
                        (refr, span.line)
                    }
                },
                Rule::Default { refr, span, .. } => (refr, span.line),
            };
            let Some(first) = Parser::get_path_ref_components(refr).ok().and_then(|c| c.into_iter().next()) else {
                continue;
            };
            let path: Vec<String> =
                pkg.components.iter().map(ToString::to_string).chain([first.text().to_string()]).collect();
            let mut at = data;
            let mut found = true;
            for part in &path {
                match at.get(part) {
                    Some(next) => at = next,
                    None => {
                        found = false;
                        break;
                    }
                }
            }
            if found {
                return Err(PolicyError::Shadow {
                    path: path.join("."),
                    rule: super::Location { path: module.package.span.source.get_path().to_string(), line },
                    files: Vec::new(),
                });
            }
        }
    }
    Ok(())
}

/// Package path and declared rules of every module, in module order.
fn index_rules(engine: &mut regorus::Engine, modules: &[Module]) -> Vec<(String, Vec<Declared>)> {
    let packages = engine.get_policy_package_components().unwrap_or_default();
    let mut out: Vec<(String, Vec<Declared>)> =
        packages.into_iter().map(|p| (p.components.join("."), Vec::new())).collect();
    for (i, module) in engine.get_modules().iter().enumerate() {
        let Some(entry) = out.get_mut(i) else { break };
        let index = modules.iter().position(|m| m.path == *module.package.span.source.get_path()).unwrap_or(i);
        for rule in &module.policy {
            let (refr, line) = match rule.as_ref() {
                Rule::Spec { head, span, .. } => match head {
                    RuleHead::Compr { refr, .. } | RuleHead::Set { refr, .. } | RuleHead::Func { refr, .. } => {
                        (refr, span.line)
                    }
                },
                Rule::Default { refr, span, .. } => (refr, span.line),
            };
            if let Some(first) = Parser::get_path_ref_components(refr).ok().and_then(|c| c.into_iter().next()) {
                entry.1.push(Declared { name: first.text().to_string(), line, module: index });
            }
        }
    }
    out
}

/// JSON to a regorus value.
pub fn to_value(json: &serde_json::Value) -> Result<Value, String> {
    serde_json::from_value::<Value>(json.clone()).map_err(|e| e.to_string())
}

/// A regorus value to JSON (sets become arrays, as OPA prints them).
pub fn to_json(value: &Value) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

/// Splits a regorus error (`--> file:line:col`, a source excerpt, `error: message`) into
/// the location, when it names one of `modules`, and the message.
fn split_message(text: &str, modules: &[Module]) -> (Option<super::Location>, String) {
    let mut location = None;
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("--> ") else { continue };
        if let Some(m) = modules.iter().find(|m| rest.starts_with(&format!("{}:", m.path))) {
            let tail = &rest[m.path.len() + 1..];
            let n = tail.split(':').next().and_then(|n| n.parse::<u32>().ok()).unwrap_or(1);
            // An error at the end of the text (an unclosed body) is shown on its last line.
            let lines = u32::try_from(m.text.lines().count()).unwrap_or(u32::MAX).max(1);
            location = Some(super::Location { path: m.path.clone(), line: n.clamp(1, lines) });
            break;
        }
    }
    (location, last_line(text))
}

/// The message of a regorus error: its last `error:` line, or its last non-empty line.
fn last_line(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let pick = lines.iter().rev().find(|l| l.starts_with("error: ")).or(lines.last()).copied().unwrap_or("");
    pick.strip_prefix("error: ").unwrap_or(pick).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile_with(text: &str, options: &Options) -> Result<Policies, PolicyError> {
        Policies::compile(vec![Module { path: "p.rego".into(), text: text.into() }], None, options, RegoVersion::V1)
    }

    fn compile(text: &str) -> Result<Policies, PolicyError> {
        compile_with(text, &Options::default())
    }

    fn v0() -> Options {
        Options { rego_version: Some(RegoVersion::V0), ..Options::default() }
    }

    fn eval(text: &str, query: &str) -> Result<Option<serde_json::Value>, PolicyError> {
        compile(text)?.query(query, Some(Value::new_object())).map(|v| v.map(|v| to_json(&v)))
    }

    fn compile_error(text: &str, options: &Options) -> (u32, String) {
        let e = compile_with(text, options).unwrap_err();
        (e.location().map_or(0, |l| l.line), e.message())
    }

    #[test]
    fn v1_by_default_v0_when_asked_and_rego_v1_import_in_both() {
        assert_eq!(eval("package a\nx contains 1 if true", "data.a.x").unwrap(), Some(serde_json::json!([1])));
        let (line, message) = compile_error("package a\n\nx[1] { true }", &Options::default());
        assert_eq!(line, 3, "{message}");
        let p = compile_with("package a\nx[1] { true }", &v0()).unwrap();
        assert!(p.has_package("a"));
        for options in [Options::default(), v0()] {
            let mut p = compile_with("package a\nimport rego.v1\nx contains 2 if { true }", &options).unwrap();
            assert_eq!(p.query("data.a.x", None).unwrap().map(|v| to_json(&v)), Some(serde_json::json!([2])));
        }
    }

    #[test]
    fn builtin_errors_are_undefined_and_missing_rules_are_undefined() {
        assert_eq!(eval("package a\nx if { to_number(\"many\") > 1 }", "data.a.x").unwrap(), None);
        assert_eq!(eval("package a\ny := 1", "data.a.x").unwrap(), None);
    }

    #[test]
    fn parse_errors_name_file_and_line() {
        let e = compile("package a\n\nx if {").unwrap_err();
        assert!(matches!(e, PolicyError::Parse { .. }), "{e:?}");
        assert_eq!(e.location().map(|l| (l.path.as_str(), l.line)), Some(("p.rego", 3)), "{e}");
    }

    #[test]
    fn compile_time_errors_come_before_any_input() {
        let cases = [
            ("package a\nx if { true }\n\ny if { nope(1) }", 4, "undefined function nope"),
            ("package a\nf(x) := x\ny if { f(1, 2, 3) }", 3, "arity mismatch"),
            ("package a\ny if { count(1, 2, 3) }", 2, "count: arity mismatch"),
            (
                "package a\na if b\nb if a",
                2,
                "rego_recursion_error: rule data.a.a is recursive: data.a.a -> data.a.b -> data.a.a",
            ),
            ("package a\na if a", 2, "rego_recursion_error: rule data.a.a is recursive: data.a.a -> data.a.a"),
            (
                "package a\nx := 1\na if b\nb if c\nc if { x; a }",
                3,
                "rego_recursion_error: rule data.a.a is recursive: data.a.a -> data.a.b -> data.a.c -> data.a.a",
            ),
            ("package a\nx := time.now_ns()", 2, "undefined function time.now_ns"),
            ("package a\nx := rand.intn(\"k\", 10)", 2, "not allowed by the capabilities"),
            ("package a\nx := http.send({})", 2, "undefined function http.send"),
        ];
        for (text, line, message) in cases {
            let (l, m) = compile_error(text, &Options::default());
            assert_eq!(l, line, "{text}: {m}");
            assert!(m.contains(message), "{text}: {m}");
        }
    }

    #[test]
    fn programs_opa_accepts_compile() {
        for text in [
            // A function calling itself with another arity is not recursion of the same rule,
            // nor is a local that shadows a rule name.
            "package a\nr := 1\nf(r) := r + 1\ny := f(2)",
            "package a\nimport data.lib\nx := lib.g(1)",
            "package a\ny if { split(\"a.b\", \".\", parts); count(parts) == 2 }",
            "package a\ndeny contains x if { y := {a | a := input[_]}; a := 2; x := a; count(y) >= 0 }",
            // conftest's examples/combine shape: a comprehension local declared later with `:=`.
            "package a\ndeny contains m if { names := {n | input[n]}; n := count(names); m := n }",
            "package a\ndeny contains m if { names := [x | x := input[i]; i > 0]; i := 0; m := count(names) }",
        ] {
            let mut modules = vec![Module { path: "p.rego".into(), text: text.into() }];
            modules.push(Module { path: "lib.rego".into(), text: "package lib\ng(x) := x".into() });
            Policies::compile(modules, None, &Options::default(), RegoVersion::V1)
                .unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }

    #[test]
    fn capabilities_and_a_fixed_clock_widen_the_set() {
        let now = parse_now("2024-01-02T03:04:05Z").unwrap();
        let options = Options { now: Some(now), ..Options::default() };
        let mut p = compile_with("package a\nx := time.now_ns()", &options).unwrap();
        assert_eq!(p.query("data.a.x", None).unwrap().map(|v| to_json(&v)), Some(serde_json::json!(now)));
        let caps = Capabilities::parse("c.json", br#"{"builtins": [{"name": "rand.intn"}]}"#).unwrap();
        let options = Options { capabilities: caps, ..Options::default() };
        assert!(compile_with("package a\nx := rand.intn(\"k\", 10)", &options).is_ok());
        let (_, m) = compile_error("package a\nx := count([])", &options);
        assert!(m.contains("undefined function count"), "{m}");
    }

    #[test]
    fn strict_mode_refuses_what_opa_strict_refuses() {
        let strict = Options { strict: true, ..Options::default() };
        for (text, line, message) in [
            ("package a\nimport data.x\ny := 1", 2, "import data.x unused"),
            ("package a\ny if {\n  z := 1\n  true\n}", 3, "assigned var z unused"),
        ] {
            let (l, m) = compile_error(text, &strict);
            assert_eq!(l, line, "{text}: {m}");
            assert!(m.contains(message), "{text}: {m}");
            compile(text).unwrap_or_else(|e| panic!("{text} without --strict: {e}"));
        }
        // Duplicate imports are an error in Rego v1 with or without strict mode (as in OPA 1.x).
        for options in [&strict, &Options::default()] {
            let (l, m) = compile_error("package a\nimport data.x\nimport data.x\ny := x", options);
            assert_eq!(l, 3, "{m}");
        }
        let (_, m) = compile_error("package a\ny if { re_match(\"a\", \"a\") }", &strict);
        assert!(m.contains("re_match"), "{m}");
    }

    /// Each expectation is OPA 1.x's answer for the same module (opa-golib-python-bindings
    /// 0.4.4; strict mode from OPA's `v1/ast/compile.go`, which the bindings cannot switch on).
    #[test]
    fn rule_heads_opa_refuses_are_refused_at_its_line() {
        for (text, line, message) in [
            ("package a\n\nx contains 1\nx := 2", 3, "rego_type_error: conflicting rules data.a.x found"),
            ("package a\n\nx if true\nx(y) if true", 3, "rego_type_error: conflicting rules data.a.x found"),
            ("package a\n\nf(a) := 1\nf(a, b) := 2", 3, "rego_type_error: conflicting rules data.a.f found"),
            (
                "package a\n\ndefault x := 1\ndefault x := 2",
                1,
                "rego_type_error: multiple default rules data.a.x found at p.rego:3, p.rego:4",
            ),
            (
                "package a\n\ninput := 2",
                3,
                "rego_compile_error: rules must not shadow input (use a different rule name)",
            ),
            (
                "package a\n\np if {\n\tdata := 3\n\tdata > 1\n}",
                4,
                "rego_compile_error: variables must not shadow data (use a different variable name)",
            ),
            (
                "package a\n\nf(x, input) := x",
                3,
                "rego_compile_error: args must not shadow input (use a different variable name)",
            ),
        ] {
            assert_eq!(compile_error(text, &Options::default()), (line, message.to_string()), "{text}");
        }
        // Accepted by OPA: one default with other definitions; ref heads beside a key rule;
        // `deny[msg] if` (an object, which conftest refuses but OPA does not).
        for text in [
            "package a\ndefault x := 1\nx := 2 if false",
            "package a\np[x] if { x := \"a\" }\np.y := 2",
            "package a\ndeny[msg] if { msg := \"foo\" }",
            "package a\ndefault f(_) := 1\nf(x) := 2 if x == 1",
        ] {
            compile(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }

    #[test]
    fn conftest_refuses_rules_written_if_without_contains() {
        let mut p = compile("package main\n\ndeny[msg] if {\n  msg := \"foo\"\n}\nwarn_x if true").unwrap();
        let e = p.conftest_problems().expect("refused");
        assert_eq!(e.location().map(|l| l.line), Some(3), "{e}");
        assert!(e.message().contains("'if' keyword without 'contains' keyword"), "{e}");
        for text in [
            "package main\ndeny contains msg if { msg := \"foo\" }",
            "package main\ndeny if { true }",
            "package main\nallow[x] if { x := 1 }",
        ] {
            assert!(compile(text).unwrap().conftest_problems().is_none(), "{text}");
        }
    }

    #[test]
    fn every_compile_error_is_reported() {
        let strict = Options { strict: true, ..Options::default() };
        // conftest's examples/strict-rules/policy/lenient.rego, shortened: OPA reports each.
        let text = "package main\n\nallow if {\n  a := 1\n  b := 2\n  a == 1\n}\n\nvalidate(x, y) if {\n  input.test == x\n} else := false\n\ntest(x, y) if {\n  input.a == x\n} else if {\n  input.b == y\n}";
        let e = compile_with(text, &strict).unwrap_err();
        let all: Vec<(u32, String)> =
            e.errors().iter().map(|e| (e.location().map_or(0, |l| l.line), e.message())).collect();
        assert_eq!(
            all,
            vec![
                (5, "rego_compile_error: assigned var b unused".to_string()),
                (9, "rego_compile_error: unused argument y. (hint: use _ (wildcard variable) instead)".to_string()),
            ]
        );
        // Parse errors of several modules: each one.
        let modules = vec![
            Module { path: "a.rego".into(), text: "package a\nx if {".into() },
            Module { path: "b.rego".into(), text: "package b\ny := [".into() },
        ];
        let e = Policies::compile(modules, None, &Options::default(), RegoVersion::V1).unwrap_err();
        let files: Vec<_> = e.errors().iter().filter_map(|e| e.location().map(|l| l.path.clone())).collect();
        assert_eq!(files, vec!["a.rego", "b.rego"], "{e}");
    }

    #[test]
    fn nesting_is_bounded_before_parsing() {
        let deep = format!("package a\n\nx := {}1{}", "[".repeat(MAX_NESTING + 1), "]".repeat(MAX_NESTING + 1));
        let (line, m) = compile_error(&deep, &Options::default());
        assert_eq!(line, 3);
        assert!(m.contains("nested more than") || m.contains("nest too deeply"), "{m}");
        // Brackets inside strings and comments do not count.
        let text = format!("package a\n# {}\nx := \"{}\"", "[".repeat(100), "(".repeat(100));
        compile(&text).unwrap();
    }

    #[test]
    fn data_that_shadows_a_rule_is_refused() {
        let modules =
            vec![Module { path: "p.rego".into(), text: "package main\n\ndeny_latest contains 1 if true".into() }];
        let data = serde_json::json!({"main": {"deny_latest": []}});
        let e = Policies::compile(modules.clone(), Some(data), &Options::default(), RegoVersion::V1).unwrap_err();
        assert!(matches!(&e, PolicyError::Shadow { path, .. } if path == "main.deny_latest"), "{e:?}");
        assert_eq!(e.location().map(|l| l.line), Some(3), "{e}");
        let other = serde_json::json!({"main": {"limits": 1}});
        Policies::compile(modules, Some(other), &Options::default(), RegoVersion::V1).unwrap();
    }

    #[test]
    fn prints_are_gathered_with_their_location() {
        let mut p = compile("package a\n\nx if {\n  print(\"hi\", input.n)\n}").unwrap();
        p.query("data.a.x", Some(to_value(&serde_json::json!({"n": 1})).unwrap())).unwrap();
        assert_eq!(p.take_prints(), vec!["p.rego:4: hi 1".to_string()]);
        assert!(p.take_prints().is_empty());
    }

    #[test]
    fn policies_reach_no_network_nor_environment() {
        for call in ["http.send({\"method\": \"get\", \"url\": \"http://127.0.0.1:1\"})", "opa.runtime()"] {
            let e = compile(&format!("package a\nx := {call}")).unwrap_err();
            assert!(e.to_string().contains("undefined function"), "{call}: {e}");
        }
        // Besides the confined files of conftest's built-ins (`files`), the only documents a
        // policy sees are `input` and `data`.
        assert_eq!(eval("package a\nx := data.y", "data.a.x").unwrap(), None);
    }

    #[test]
    fn a_looping_policy_hits_the_time_limit_and_the_run_budget() {
        let text = "package a\nx := count([1 | numbers.range(1, 100000)[i]; numbers.range(1, 100000)[j]])";
        let mut p = compile(text).unwrap();
        p.set_time_limit(Duration::from_millis(200));
        let started = std::time::Instant::now();
        let e = p.query("data.a.x", None).unwrap_err();
        assert!(matches!(e, PolicyError::Limit { .. }), "{e:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
        // The run's budget: the time spent by every copy counts; once spent, nothing more is
        // evaluated, in any copy.
        let mut p = compile(text).unwrap();
        p.set_time_limit(Duration::from_secs(5));
        p.set_run_limit(Duration::from_millis(300));
        let (mut a, mut b) = (p.clone(), p.clone());
        assert!(matches!(a.query("data.a.x", None), Err(PolicyError::Limit { .. })));
        // (The first query of the other copy may get the last milliseconds of the budget.)
        let _ = b.query("data.a.x", None);
        let e = b.query("data.a.x", None).unwrap_err();
        assert!(matches!(e, PolicyError::Limit { .. }) && e.to_string().contains("not evaluated"), "{e}");
    }

    #[test]
    fn capped_builtins_stop_with_an_error() {
        assert_eq!(
            eval("package a\nx := numbers.range(3, 1)", "data.a.x").unwrap(),
            Some(serde_json::json!([3, 2, 1]))
        );
        assert_eq!(
            eval("package a\nx := numbers.range_step(0, 7, 3)", "data.a.x").unwrap(),
            Some(serde_json::json!([0, 3, 6]))
        );
        for text in ["x := numbers.range(1, 1000000000000)", "x := sprintf(\"%04000000000d\", [1])"] {
            let e = eval(&format!("package a\n{text}"), "data.a.x").unwrap_err();
            assert!(e.to_string().contains("more than the limit"), "{text}: {e}");
        }
        assert_eq!(
            eval("package a\nx := sprintf(\"%05d\", [7])", "data.a.x").unwrap(),
            Some(serde_json::json!("00007"))
        );
    }

    #[test]
    fn rules_are_indexed_by_package() {
        let p = compile_with("package main.x\ndeny_a[m] { m := 1 }\nwarn = 1", &v0()).unwrap();
        let names: Vec<_> = p.rules_in("main.x").iter().map(|d| (d.name.clone(), d.line)).collect();
        assert_eq!(names, vec![("deny_a".to_string(), 2), ("warn".to_string(), 3)]);
    }
}
