//! `driftlint policy test`: Rego unit tests, run as `opa test` runs them and `conftest verify`
//! reports them.
//!
//! - Discovery (OPA's `tester` package): in every module, in the order of their file names,
//!   each rule whose name starts with `test_` is a test and each one starting with
//!   `todo_test_` a skipped test. A test rule defined twice in one package (two bodies of
//!   `test_x`) is two tests, the second named `test_x#01`, as OPA renames them.
//! - Outcome: the rule queried with no input (tests bring theirs with `with input as …`):
//!   `true` passes; undefined, `false` or any other value fails; an evaluation error is an
//!   error (counted as a failure, with its message); a parameterised test (`test_x[name]`, an
//!   object) passes when it has cases and every case is `true`.
//! - Output: what a test `print()`s is kept with the test ([`Test::prints`]), as
//!   conftest verify keeps it with the test's result.
//! - Namespaces: with `--namespace`, only the tests of the packages selected (names or
//!   globs, as conftest's `verify --namespace`).
//!
//! Deliberate differences: OPA also fails a parameterised test whose case failed before the
//! case's name was bound (it injects a marker into the body); regorus cannot observe that, so
//! such a case is not seen and an object without any case fails. A test that errors does not
//! stop the run (conftest stops at the first error). This module knows nothing of output
//! formats (`cli::policy` prints them).

use std::collections::BTreeMap;

use regorus::Value as Rego;

use super::namespace::glob_match;
use super::{Module, Policies, PolicyError};

/// What a test gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail,
    Error,
    Skip,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Error => "error",
            Outcome::Skip => "skip",
        }
    }
}

/// One test and its outcome.
#[derive(Clone, Debug)]
pub struct Test {
    /// The package, dotted, without `data.`.
    pub package: String,
    /// The rule name as OPA reports it (`test_x`, `test_x#01` for a second definition).
    pub name: String,
    /// The `.rego` file and the line of the rule's head.
    pub path: String,
    pub line: u32,
    pub outcome: Outcome,
    /// Why it failed: the evaluation error, or what the rule gave.
    pub message: Option<String>,
    /// What the test's evaluation `print()`ed, in order, each `FILE:LINE: TEXT` (raw: escape
    /// it before showing it), as conftest verify collects them per test.
    pub prints: Vec<String>,
}

impl Test {
    /// `data.<package>.<name>`, as OPA and conftest name a test.
    pub fn query(&self) -> String {
        format!("data.{}.{}", self.package, self.name)
    }
}

/// A test rule found in the modules: package, name as queried, name as shown, module, line.
struct Found {
    package: String,
    query_name: String,
    shown: String,
    module: usize,
    line: u32,
}

/// Compiles the modules (with the data document) and runs their tests; `namespaces` (names or
/// globs) limits them to those packages. `Err`: the policies do not compile, or a namespace
/// glob is invalid.
pub fn run(
    mut modules: Vec<Module>,
    data: Option<serde_json::Value>,
    namespaces: &[String],
    options: &super::engine::Options,
) -> Result<Vec<Test>, PolicyError> {
    // OPA runs the modules in the order of their names.
    modules.sort_by(|a, b| a.path.cmp(&b.path));
    let original = modules.clone();
    let mut policies = Policies::compile(modules.clone(), data.clone(), options, super::engine::RegoVersion::V1)?;
    // conftest verify loads policies as conftest test does, with the same refusals.
    if let Some(e) = policies.conftest_problems() {
        return Err(e);
    }
    let mut found = discover(&policies);
    // A test rule defined twice is two tests: every definition after the first is renamed in
    // the text, so each is queried on its own (OPA's `rewriteDuplicateTestNames`).
    let renamed = rename_duplicates(&mut modules, &mut found);
    if renamed {
        policies = Policies::compile(modules, data, options, super::engine::RegoVersion::V1)?;
    }
    let mut tests = Vec::new();
    for f in found {
        if !namespaces.is_empty() {
            let mut selected = false;
            for pattern in namespaces {
                selected |= glob_match(pattern, &f.package)
                    .map_err(|message| PolicyError::Data { message: format!("namespace `{pattern}`: {message}") })?;
            }
            if !selected {
                continue;
            }
        }
        let path = original.get(f.module).map(|m| m.path.clone()).unwrap_or_default();
        let mut test = Test {
            package: f.package,
            name: f.shown,
            path,
            line: f.line,
            outcome: Outcome::Skip,
            message: None,
            prints: Vec::new(),
        };
        if f.query_name.starts_with("todo_test_") {
            tests.push(test);
            continue;
        }
        let query = format!("data.{}.{}", test.package, f.query_name);
        (test.outcome, test.message) = match policies.query(&query, None) {
            Err(e) => (Outcome::Error, Some(e.to_string())),
            Ok(value) => judge(value.as_ref()),
        };
        test.prints = policies.take_prints();
        tests.push(test);
    }
    Ok(tests)
}

/// The outcome of a test rule's value (OPA's `runTest`).
fn judge(value: Option<&Rego>) -> (Outcome, Option<String>) {
    match value {
        None => (Outcome::Fail, Some("the test is undefined".into())),
        Some(Rego::Bool(true)) => (Outcome::Pass, None),
        Some(Rego::Object(cases)) => {
            let failing: Vec<String> = cases
                .iter()
                .filter(|(_, v)| **v != Rego::Bool(true))
                .map(|(k, _)| super::engine::to_json(k).to_string())
                .collect();
            if cases.is_empty() {
                (Outcome::Fail, Some("the parameterised test has no case".into()))
            } else if failing.is_empty() {
                (Outcome::Pass, None)
            } else {
                (Outcome::Fail, Some(format!("failing cases: {}", failing.join(", "))))
            }
        }
        Some(other) => (Outcome::Fail, Some(format!("the test is {}, not true", super::engine::to_json(other)))),
    }
}

/// The test rules of every package, in module order (modules sorted by path), then in the
/// order of their declarations.
fn discover(policies: &Policies) -> Vec<Found> {
    let mut out = Vec::new();
    let modules = policies.modules();
    let packages = super::conftest::package_names(policies);
    // Package of each module, from its `package` line.
    let mut per_module: BTreeMap<usize, Vec<(String, String, u32)>> = BTreeMap::new();
    for package in &packages {
        for d in policies.rules_in(package) {
            if d.name.starts_with("test_") || d.name.starts_with("todo_test_") {
                per_module.entry(d.module).or_default().push((package.clone(), d.name.clone(), d.line));
            }
        }
    }
    for (module, mut rules) in per_module {
        if module >= modules.len() {
            continue;
        }
        rules.sort_by_key(|r| r.2);
        for (package, name, line) in rules {
            out.push(Found { package, query_name: name.clone(), shown: name, module, line });
        }
    }
    out
}

/// Renames every definition of a test rule after the first in its package (in the module
/// text, at the head's line, when the head starts that line), so that each is queried alone;
/// the shown name becomes `name#NN`. Whether any was renamed.
fn rename_duplicates(modules: &mut [Module], found: &mut [Found]) -> bool {
    let mut count: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut renamed = false;
    for f in found.iter_mut() {
        let k = count.entry((f.package.clone(), f.query_name.clone())).or_insert(0);
        let nth = *k;
        *k += 1;
        if nth == 0 || f.query_name.starts_with("todo_test_") {
            continue;
        }
        let new_name = format!("{}__driftlint_{nth:02}", f.query_name);
        let Some(m) = modules.get_mut(f.module) else { continue };
        if let Some(text) = rename_head(&m.text, f.line, &f.query_name, &new_name) {
            m.text = text;
            f.shown = format!("{}#{nth:02}", f.query_name);
            f.query_name = new_name;
            renamed = true;
        }
    }
    renamed
}

/// `text` with the rule head `name` that starts line `line` renamed to `new_name`; `None`
/// when the line does not start with that name.
fn rename_head(text: &str, line: u32, name: &str, new_name: &str) -> Option<String> {
    let mut start = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line as usize {
            let indent = l.len() - l.trim_start().len();
            let rest = &l[indent..];
            let after = rest.strip_prefix(name)?;
            if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                return None;
            }
            let at = start + indent;
            return Some(format!("{}{new_name}{}", &text[..at], &text[at + name.len()..]));
        }
        start += l.len();
    }
    None
}

/// How many tests had each outcome: (passed, failed, errors, skipped).
pub fn counts(tests: &[Test]) -> (usize, usize, usize, usize) {
    let n = |o: Outcome| tests.iter().filter(|t| t.outcome == o).count();
    (n(Outcome::Pass), n(Outcome::Fail), n(Outcome::Error), n(Outcome::Skip))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(path: &str, text: &str) -> Module {
        Module { path: path.into(), text: text.into() }
    }

    fn outcomes(tests: &[Test]) -> Vec<(String, u32, &'static str)> {
        tests.iter().map(|t| (t.query(), t.line, t.outcome.name())).collect()
    }

    #[test]
    fn tests_pass_fail_error_and_skip_as_opa_judges_them() {
        let policy = module("p/main.rego", "package main\nimport rego.v1\ndeny contains \"no\" if input.bad\n");
        let tests = module(
            "p/main_test.rego",
            "package main\nimport rego.v1\n\
             test_denied if { count(deny) == 1 with input as {\"bad\": true} }\n\
             test_allowed if { count(deny) == 1 with input as {} }\n\
             test_undefined if { input.nothing }\n\
             test_value := 3\n\
             test_error if { conflict == 1 }\n\
             todo_test_later if { false }\n\
             conflict = 1 if { true }\n\
             conflict = 2 if { true }\n",
        );
        let out = run(vec![tests, policy], None, &[], &Default::default()).unwrap();
        let got = outcomes(&out);
        assert_eq!(
            got[..4],
            [
                ("data.main.test_denied".to_string(), 3, "pass"),
                ("data.main.test_allowed".to_string(), 4, "fail"),
                ("data.main.test_undefined".to_string(), 5, "fail"),
                ("data.main.test_value".to_string(), 6, "fail"),
            ]
        );
        assert_eq!(got[4], ("data.main.test_error".to_string(), 7, "error"));
        assert!(out[4].message.as_deref().is_some_and(|m| !m.is_empty()), "{:?}", out[4]);
        assert_eq!(got[5], ("data.main.todo_test_later".to_string(), 8, "skip"));
        assert_eq!(got.len(), 6);
        assert!(out.iter().all(|t| t.path == "p/main_test.rego"));
    }

    #[test]
    fn a_test_defined_twice_is_two_tests() {
        let m = module("t_test.rego", "package t\nimport rego.v1\ntest_x if { true }\ntest_x if { false }\n");
        let out = run(vec![m], None, &[], &Default::default()).unwrap();
        assert_eq!(
            outcomes(&out),
            [("data.t.test_x".to_string(), 3, "pass"), ("data.t.test_x#01".to_string(), 4, "fail")]
        );
    }

    #[test]
    fn namespaces_select_packages_by_name_or_glob() {
        let a = module("a_test.rego", "package main.a\nimport rego.v1\ntest_a if { true }\n");
        let b = module("b_test.rego", "package other\nimport rego.v1\ntest_b if { true }\n");
        let names = |ns: &[&str]| -> Vec<String> {
            let ns: Vec<String> = ns.iter().map(|s| s.to_string()).collect();
            run(vec![a.clone(), b.clone()], None, &ns, &Default::default()).unwrap().iter().map(Test::query).collect()
        };
        assert_eq!(names(&[]), ["data.main.a.test_a", "data.other.test_b"]);
        assert_eq!(names(&["main.*"]), ["data.main.a.test_a"]);
        assert_eq!(names(&["other"]), ["data.other.test_b"]);
        assert!(run(vec![a], None, &["[".to_string()], &Default::default()).is_err());
    }

    #[test]
    fn parameterised_tests_pass_when_every_case_is_true() {
        assert_eq!(judge(None).0, Outcome::Fail);
        assert_eq!(judge(Some(&Rego::Bool(false))).0, Outcome::Fail);
        let m = module(
            "p_test.rego",
            "package p\nimport rego.v1\ntest_cases[name] if { some name in [\"one\", \"two\"] }\n",
        );
        let out = run(vec![m], None, &[], &Default::default()).unwrap();
        assert_eq!(outcomes(&out), [("data.p.test_cases".to_string(), 3, "pass")]);
    }
}
