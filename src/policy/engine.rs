//! The Rego engine behind every policy feature: modules compiled once into a `regorus`
//! engine, set up the way OPA runs policies by default (Rego v0 and v1 both accepted,
//! built-in errors undefined rather than fatal), bounded in time, and queried one rule at
//! a time.
//!
//! It owns the engine's settings, the index of which rules each package declares (with
//! their lines, for locations) and the translation of regorus errors into [`PolicyError`]s
//! that name the `.rego` file and line. It knows nothing of conftest or Fybrik.
//!
//! What a policy cannot do: regorus is built without `http.send` and `opa.runtime` (see
//! Cargo.toml), so no network and no environment; no built-in reads a file. A rule that loops
//! or builds huge values runs into the time limit or, first, the memory watchdog
//! ([`super::memory`]), and `numbers.range` is capped (it is the one built-in that makes a huge
//! value out of two small numbers in one call).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use regorus::Value;
use regorus::unstable::{Parser, Rule, RuleHead};

use super::PolicyError;

/// How long one query may run.
pub const TIME_LIMIT: Duration = Duration::from_secs(5);
/// The most elements `numbers.range` may produce.
pub const RANGE_LIMIT: i64 = 1_000_000;

/// A policy module: its display path and text.
#[derive(Clone, Debug)]
pub struct Module {
    pub path: String,
    pub text: String,
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
}

impl std::fmt::Debug for Policies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policies").field("modules", &self.modules.len()).finish()
    }
}

impl Policies {
    /// Parses every module (v0 syntax, or v1 when the module only parses so) and loads the
    /// data document. Errors name the module and line.
    pub fn compile(modules: Vec<Module>, data: Option<serde_json::Value>) -> Result<Policies, PolicyError> {
        let mut engine = regorus::Engine::new();
        engine.set_strict_builtin_errors(false);
        set_time_limit(&mut engine, TIME_LIMIT);
        add_capped_range(&mut engine)?;
        for m in &modules {
            add_module(&mut engine, m, &modules)?;
        }
        if let Some(data) = data {
            let value = to_value(&data).map_err(|message| PolicyError::Data { message })?;
            engine.add_data(value).map_err(|e| PolicyError::Data { message: e.to_string() })?;
        }
        let packages = index_rules(&mut engine, &modules);
        let files = modules.iter().map(|m| m.path.as_str()).collect::<Vec<_>>().join(", ");
        Ok(Policies { engine, modules, packages, files })
    }

    /// Changes the time one query may run (default [`TIME_LIMIT`]).
    pub fn set_time_limit(&mut self, limit: Duration) {
        set_time_limit(&mut self.engine, limit);
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

    /// Evaluates `query` with `input` (none: no input document). `Ok(None)` is undefined;
    /// a query with several results yields the first expression of each as an array.
    pub fn query(&mut self, query: &str, input: Option<Value>) -> Result<Option<Value>, PolicyError> {
        match input {
            Some(v) => self.engine.set_input(v),
            None => self.engine.set_input(Value::Undefined),
        }
        let engine = &mut self.engine;
        let _watched = super::memory::watch(query, &self.files);
        let outcome = catch_unwind(AssertUnwindSafe(|| engine.eval_query(query.to_string(), false)));
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

/// Adds one module: as Rego v0 (with `future.keywords` / `rego.v1` imports honoured), else as
/// v1 when only that parses. The error reported is the v0 one unless the module reads as v1.
fn add_module(engine: &mut regorus::Engine, m: &Module, modules: &[Module]) -> Result<(), PolicyError> {
    let mut v0 = engine.clone();
    v0.set_rego_v0(true);
    let err0 = match v0.add_policy(m.path.clone(), m.text.clone()) {
        Ok(_) => {
            *engine = v0;
            return Ok(());
        }
        Err(e) => e,
    };
    let mut v1 = engine.clone();
    v1.set_rego_v0(false);
    match v1.add_policy(m.path.clone(), m.text.clone()) {
        Ok(_) => {
            *engine = v1;
            engine.set_rego_v0(true);
            Ok(())
        }
        Err(err1) => {
            let reads_v1 = m.text.split_whitespace().any(|w| w == "if" || w == "contains");
            let text = format!("{:#}", if reads_v1 { err1 } else { err0 });
            let (location, message) = split_message(&text, modules);
            Err(PolicyError::Parse {
                location: location.or_else(|| Some(super::Location { path: m.path.clone(), line: 1 })),
                message,
            })
        }
    }
}

/// `numbers.range` and `numbers.range_step` with a bound on the elements (regorus' own
/// versions allocate whatever they are asked for, in one call the time limit cannot stop).
fn add_capped_range(engine: &mut regorus::Engine) -> Result<(), PolicyError> {
    let ext = |name: &str| -> Box<dyn regorus::Extension> {
        let name = name.to_string();
        Box::new(move |args: Vec<Value>| range_values(&name, &args))
    };
    for (name, n) in [("numbers.range", 2), ("numbers.range_step", 3)] {
        engine
            .add_extension(name.to_string(), n, ext(name))
            .map_err(|e| PolicyError::Data { message: e.to_string() })?;
    }
    Ok(())
}

fn range_values(name: &str, args: &[Value]) -> anyhow::Result<Value> {
    let int = |v: &Value| v.as_i64().ok().filter(|_| v.as_f64().is_ok_and(|f| f.fract() == 0.0));
    let (Some(a), Some(b)) = (args.first().and_then(int), args.get(1).and_then(int)) else {
        return Ok(Value::Undefined);
    };
    let step = match args.get(2) {
        None => 1,
        Some(v) => match int(v) {
            Some(s) if s > 0 => s,
            _ => return Ok(Value::Undefined),
        },
    };
    let count = (b.abs_diff(a) / step.unsigned_abs()).saturating_add(1);
    if count > RANGE_LIMIT as u64 {
        anyhow::bail!("{name}: {count} elements is more than the limit of {RANGE_LIMIT}");
    }
    let dir = if b >= a { step } else { -step };
    let values: Vec<Value> = (0..count as i64).map(|i| Value::from(a + i * dir)).collect();
    Ok(Value::from(values))
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

    fn compile(text: &str) -> Result<Policies, PolicyError> {
        Policies::compile(vec![Module { path: "p.rego".into(), text: text.into() }], None)
    }

    fn eval(text: &str, query: &str) -> Result<Option<serde_json::Value>, PolicyError> {
        compile(text)?.query(query, Some(Value::new_object())).map(|v| v.map(|v| to_json(&v)))
    }

    #[test]
    fn v0_and_v1_modules_are_both_accepted() {
        assert_eq!(eval("package a\nx[1] { true }", "data.a.x").unwrap(), Some(serde_json::json!([1])));
        assert_eq!(eval("package a\nx contains 1 if true", "data.a.x").unwrap(), Some(serde_json::json!([1])));
    }

    #[test]
    fn builtin_errors_are_undefined_and_missing_rules_are_undefined() {
        assert_eq!(eval("package a\nx { to_number(\"many\") > 1 }", "data.a.x").unwrap(), None);
        assert_eq!(eval("package a\ny = 1", "data.a.x").unwrap(), None);
    }

    #[test]
    fn parse_errors_name_file_and_line() {
        let e = compile("package a\n\nx {").unwrap_err();
        assert!(matches!(e, PolicyError::Parse { .. }), "{e:?}");
        assert_eq!(e.location().map(|l| (l.path.as_str(), l.line)), Some(("p.rego", 3)), "{e}");
    }

    #[test]
    fn policies_reach_no_network_nor_environment() {
        for call in ["http.send({\"method\": \"get\", \"url\": \"http://127.0.0.1:1\"})", "opa.runtime()"] {
            let e = eval(&format!("package a\nx := {call}"), "data.a.x").unwrap_err();
            assert!(e.to_string().contains("could not find function"), "{call}: {e}");
        }
        // No built-in reads files: the only documents a policy sees are `input` and `data`.
        assert_eq!(eval("package a\nx := data.y", "data.a.x").unwrap(), None);
    }

    #[test]
    fn a_looping_policy_hits_the_time_limit() {
        let mut p =
            compile("package a\nx := count([1 | numbers.range(1, 100000)[i]; numbers.range(1, 100000)[j]])").unwrap();
        p.set_time_limit(Duration::from_millis(200));
        let started = std::time::Instant::now();
        let e = p.query("data.a.x", None).unwrap_err();
        assert!(matches!(e, PolicyError::Limit { .. }), "{e:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn numbers_range_is_capped_but_works() {
        assert_eq!(
            eval("package a\nx := numbers.range(3, 1)", "data.a.x").unwrap(),
            Some(serde_json::json!([3, 2, 1]))
        );
        assert_eq!(
            eval("package a\nx := numbers.range_step(0, 7, 3)", "data.a.x").unwrap(),
            Some(serde_json::json!([0, 3, 6]))
        );
        let e = eval("package a\nx := numbers.range(1, 1000000000000)", "data.a.x").unwrap_err();
        assert!(e.to_string().contains("more than the limit"), "{e}");
    }

    #[test]
    fn rules_are_indexed_by_package() {
        let p = compile("package main.x\ndeny_a[m] { m := 1 }\nwarn = 1").unwrap();
        let names: Vec<_> = p.rules_in("main.x").iter().map(|d| (d.name.clone(), d.line)).collect();
        assert_eq!(names, vec![("deny_a".to_string(), 2), ("warn".to_string(), 3)]);
    }
}
