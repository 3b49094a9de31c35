//! The policy pass of `check`: conftest's conventions for Rego over manifests, as its code
//! (`policy/engine.go`) defines them.
//!
//! - Input: each object is one `input`, and so is every other YAML/JSON document of a file
//!   that is a policy input (named on the command line or matched by `policy-inputs:`; an
//!   empty document of such a file is a `null` input); combined, one `input` of
//!   `[{path, contents}]` over every document of every file in path order.
//! - `data.conftest.file` is `{name, dir}` of the input's file, per input (`Combined` for the
//!   combined input), given to policies that mention `conftest`.
//! - Namespaces: `main` unless configured; names with `*`, `?` or `[…]` are globs over the
//!   declared packages (Go's `path.Match`, where `*` crosses dots: `main.*`); with
//!   `all_namespaces`, every package that declares a failure or warning rule.
//! - Rules: in each namespace, the rules named
//!   `^(deny|violation)(_[a-zA-Z0-9]+)*$` are failures (`policy-deny`), `^warn(_[a-zA-Z0-9]+)*$`
//!   warnings (`policy-warn`); each is queried on its own as `data.<ns>.<rule>`. A set or array
//!   gives one finding per string element, or per object element with a string `msg`.
//! - Exceptions: `data.<ns>.exception[_][_] == NAME` for the same input exempts the whole rule
//!   whose name without `deny_`/`violation_`/`warn_` is NAME; exempted results stay visible as
//!   suppressed findings.
//!
//! Deliberate differences: identical messages of one rule kind for one input are one finding
//! (a rule written as an array, or two rules, may repeat a message; a linter reports a problem
//! once); `data.conftest.file.dir` is the directory as the report shows it (relative to the
//! working directory), not an absolute path (no report shows where the checkout is, and two
//! machines agree); an object result without a string `msg` is a `policy-error` at the rule,
//! where conftest stops the whole run.
//!
//! `trace`: every query of every input is written to standard error (input, query, value,
//! exception), escaped; regorus has no evaluation trace like OPA's `--trace`.

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use regorus::Value as Rego;
use serde_json::{Value, json};

use super::engine::{self, Declared};
use super::namespace::{glob_match, is_glob};
use super::{Module, Policies, PolicyError};
pub(crate) use crate::diagnostics::{error_diagnostic, line_range};
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::document::{Collection, Document};
use driftlint_core::input::SourcePath;
use driftlint_core::locate::FieldDiffKind;
use driftlint_core::locate::{self, Files};

use crate::heads::{FAILURE, WARNING};

/// The policy settings of a check (`--policy`, `--data`, `--namespace`, `--combine`,
/// `policy-cases:`). Paths are as the user wrote them, resolved already.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub policies: Vec<String>,
    pub data: Vec<String>,
    /// Empty: `main`.
    pub namespaces: Vec<String>,
    pub combine: bool,
    /// A directory of Fybrik scenarios (`policy-cases:`).
    pub cases: Option<String>,
    /// `policy-inputs:` globs (gitignore syntax, relative to the configuration file): files
    /// whose documents are policy inputs even when they are no Kubernetes objects.
    pub inputs: Vec<String>,
    /// `--all-namespaces`: every package that declares a failure or warning rule.
    pub all_namespaces: bool,
    /// `--trace`: each query, its input and its value on standard error.
    pub trace: bool,
    /// How the policies are compiled (`--rego-version`, `--capabilities`, `--now`, `--strict`).
    pub engine: engine::Options,
}

impl Settings {
    /// Whether the pass has anything to do.
    pub fn has_work(&self) -> bool {
        !self.policies.is_empty()
    }

    fn namespaces(&self) -> Vec<String> {
        if self.namespaces.is_empty() { vec!["main".to_string()] } else { self.namespaces.clone() }
    }

    /// The namespaces to evaluate in `policies` (conftest's `--all-namespaces` and namespace
    /// globs), and a warning for each name or glob that selects no package. A glob that does
    /// not parse is an error.
    fn select(&self, policies: &Policies) -> Result<(Vec<String>, Vec<Diagnostic>), PolicyError> {
        let mut warnings = Vec::new();
        if self.all_namespaces {
            let mut out: Vec<String> = Vec::new();
            for package in package_names(policies) {
                let has_rules = policies.rules_in(&package).iter().any(|d| kind_of(&d.name).is_some());
                if has_rules && !out.contains(&package) {
                    out.push(package);
                }
            }
            return Ok((out, warnings));
        }
        let wanted = self.namespaces();
        if !wanted.iter().any(|p| is_glob(p)) {
            for ns in &wanted {
                if !policies.has_package(ns) {
                    // A policy set made for Fybrik scenarios alone need not have `main`.
                    let fybrik_only = self.namespaces.is_empty() && self.cases.is_some();
                    if !fybrik_only {
                        warnings.push(missing_namespace(policies, ns));
                    }
                }
            }
            return Ok((wanted.into_iter().filter(|ns| policies.has_package(ns)).collect(), warnings));
        }
        let packages = package_names(policies);
        let mut out: Vec<String> = Vec::new();
        for pattern in &wanted {
            let mut any = false;
            for package in &packages {
                let matched = glob_match(pattern, package)
                    .map_err(|message| PolicyError::Data { message: format!("namespace `{pattern}`: {message}") })?;
                if matched {
                    any = true;
                    if !out.contains(package) {
                        out.push(package.clone());
                    }
                }
            }
            if !any {
                warnings.push(missing_namespace(policies, pattern));
            }
        }
        // In the packages' order, as conftest filters its list of namespaces.
        out.sort_by_key(|ns| packages.iter().position(|p| p == ns));
        Ok((out, warnings))
    }
}

/// The packages the modules declare, in module order, each once (read from each module's
/// `package` line, confirmed by the compiled policies).
pub(super) fn package_names(policies: &Policies) -> Vec<String> {
    static PACKAGE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"(?m)^[ \t]*package[ \t]+([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)")
            .expect("valid regex")
    });
    let mut out: Vec<String> = Vec::new();
    for m in policies.modules() {
        if let Some(c) = PACKAGE.captures(&m.text) {
            let name = c[1].to_string();
            if policies.has_package(&name) && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// Which kind of rule a name is, per conftest.
fn kind_of(rule: &str) -> Option<Rule> {
    if FAILURE.is_match(rule) {
        Some(Rule::PolicyDeny)
    } else if WARNING.is_match(rule) {
        Some(Rule::PolicyWarn)
    } else {
        None
    }
}

/// The name an exception names a rule by (conftest's `removeRulePrefix`).
fn exception_name(rule: &str) -> &str {
    if matches!(rule, "deny" | "violation" | "warn") {
        return "";
    }
    ["violation_", "deny_", "warn_"].iter().fold(rule, |r, p| r.strip_prefix(p).unwrap_or(r))
}

/// A namespace that has rules: its name, its rules, whether it declares exceptions.
type Namespace = (String, Vec<(String, Declared)>, bool);

/// The policy pass of one run: the policies loaded and compiled once, then evaluated over the
/// run's documents a batch at a time ([`Pass::batch`]); what it found so far, and whether a
/// limit stopped it, carry over from batch to batch.
pub struct Pass {
    settings: Settings,
    modules: Vec<Module>,
    /// `None` when the policies did not compile (that is a finding).
    policies: Option<Policies>,
    /// The namespaces that have rules, each with its rules and whether it declares exceptions.
    namespaces: Vec<Namespace>,
    out: Outcome,
    /// What preparing found (compile errors, selection warnings): each run's first findings.
    prepared: Vec<Diagnostic>,
    stopped: bool,
    /// Whether queries carry `data.conftest.file`.
    file_info: bool,
}

impl Pass {
    /// Loads and compiles the policies. Policies that cannot be read stop the run (`Err`);
    /// every other problem is a `policy-error` finding.
    pub fn prepare(settings: &Settings, git_start: &Path, files: &mut Files) -> Result<Pass, PolicyError> {
        let modules = super::load::load_modules(&settings.policies, git_start)?;
        if modules.is_empty() {
            return Err(PolicyError::Read {
                path: settings.policies.join(", "),
                message: "no `.rego` file found".into(),
            });
        }
        let data = super::load::load_data(&settings.data, git_start)?;
        for m in &modules {
            files.preset(PathBuf::from(&m.path), m.text.clone());
        }
        let mut out = Outcome::default();
        let mut namespaces = Vec::new();
        // conftest refuses, after OPA's compiler, rules that could never report (see
        // `heads`): they are compile errors here too.
        let compiled = Policies::compile(modules.clone(), data, &settings.engine, engine::RegoVersion::V1)
            .and_then(|mut p| p.conftest_problems().map_or(Ok(p), Err));
        let policies = match compiled {
            Ok(policies) => {
                let (selected, warnings) = settings.select(&policies)?;
                out.diagnostics.extend(warnings);
                for ns in selected {
                    let rules = namespace_rules(&policies, &ns);
                    let has_exceptions = policies.rules_in(&ns).iter().any(|d| d.name == "exception");
                    namespaces.push((ns, rules, has_exceptions));
                }
                Some(policies)
            }
            Err(e) => {
                let e = super::load::with_data_files(e, &settings.data, git_start);
                out.diagnostics.extend(e.errors().into_iter().map(|e| error_diagnostic(e, &modules, None)));
                None
            }
        };
        // `data.conftest.file` is given to policies that can read it (a `with` on each query
        // costs its parse).
        let file_info = modules.iter().any(|m| m.text.contains("conftest"));
        let prepared = out.diagnostics.clone();
        Ok(Pass { settings: settings.clone(), modules, policies, namespaces, out, prepared, stopped: false, file_info })
    }

    /// The pass as [`Pass::prepare`] left it, for another run over the same policies (a
    /// language server's next check): the compiled policies copied with a budget of their own,
    /// what preparing found, nothing of a run that went on since.
    #[must_use]
    pub fn for_another_run(&self) -> Pass {
        Pass {
            settings: self.settings.clone(),
            modules: self.modules.clone(),
            policies: self.policies.as_ref().map(engine::Policies::for_another_run),
            namespaces: self.namespaces.clone(),
            out: Outcome { diagnostics: self.prepared.clone(), ..Outcome::default() },
            prepared: self.prepared.clone(),
            stopped: false,
            file_info: self.file_info,
        }
    }

    /// Evaluates the conftest rules of every namespace over the documents of `coll` (with
    /// `--combine`, `coll` must hold every document of the run: they are one input); returns
    /// the findings.
    pub fn batch(&mut self, coll: &Collection, files: &mut Files) -> Result<&[Diagnostic], PolicyError> {
        let first = self.out.diagnostics.len();
        self.evaluate(coll, files)?;
        Ok(&self.out.diagnostics[first..])
    }

    fn evaluate(&mut self, coll: &Collection, files: &mut Files) -> Result<(), PolicyError> {
        let Some(policies) = self.policies.as_ref() else { return Ok(()) };
        for (ns, rules, has_exceptions) in &self.namespaces {
            if self.stopped {
                return Ok(());
            }
            let targets: Vec<Target> = if self.settings.combine {
                vec![combined_target(coll)]
            } else {
                coll.documents.iter().chain(&coll.inputs).map(Target::Object).collect()
            };
            let (file_info, trace) = (self.file_info, self.settings.trace);
            let ctxs: Vec<Ctx> = rules
                .iter()
                .map(|(rule, declared)| Ctx { ns, rule, declared, has_exceptions: *has_exceptions, trace })
                .collect();
            // Objects are evaluated in parallel, each worker with its own copy of the prepared
            // engine; the answers are reported in order. A limit stops every worker.
            let stop = AtomicBool::new(false);
            let answers: Vec<Vec<Result<Answer, PolicyError>>> = targets
                .par_iter()
                .map_init(
                    || policies.clone(),
                    |policies, target| {
                        let input = match engine::to_value(&target.input()) {
                            Ok(v) => v,
                            Err(message) => return vec![Err(PolicyError::Data { message })],
                        };
                        let with = if file_info { file_info_clause(&target.file(coll)) } else { String::new() };
                        let mut out = Vec::with_capacity(ctxs.len());
                        for ctx in &ctxs {
                            if stop.load(Ordering::Relaxed) {
                                break;
                            }
                            let answer = ask(policies, ctx, &input, &with);
                            if matches!(answer, Err(PolicyError::Limit { .. })) {
                                stop.store(true, Ordering::Relaxed);
                            }
                            out.push(answer);
                        }
                        out
                    },
                )
                .collect();
            for (target, answers) in targets.iter().zip(answers) {
                for (ctx, answer) in ctxs.iter().zip(answers) {
                    if let Err(PolicyError::Data { message }) = answer {
                        return Err(PolicyError::Data { message });
                    }
                    if self.settings.trace {
                        write_trace(target, coll, &answer);
                    }
                    if self.out.report(policies, ctx, target, answer, coll, files) == Flow::Stop {
                        self.stopped = true;
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    /// The pass' findings, with the Fybrik scenarios' (`policy-cases:`).
    pub fn finish(&mut self, files: &mut Files) -> Result<Vec<Diagnostic>, PolicyError> {
        let mut diagnostics = std::mem::take(&mut self.out.diagnostics);
        if let Some(dir) = &self.settings.cases {
            diagnostics.extend(super::cases::run(Path::new(dir), &self.modules, &self.settings.engine, files)?);
        }
        Ok(diagnostics)
    }
}

/// A warning for a namespace no module declares (conftest says nothing; nothing would run).
fn missing_namespace(policies: &Policies, ns: &str) -> Diagnostic {
    let first = policies.modules().first().map(|m| m.path.clone()).unwrap_or_default();
    Diagnostic::new(
        Rule::PolicyError,
        Severity::Warning,
        SourcePath::File(PathBuf::from(&first)),
        Some(0..0),
        format!("no policy declares package `{ns}`: its rules cannot run"),
    )
    .with_help("set the namespaces to check with `--namespace NS` (conftest's default is `main`)")
}

fn is_true(v: &Rego) -> bool {
    match v {
        Rego::Bool(b) => *b,
        Rego::Array(items) => items.iter().any(|i| *i == Rego::Bool(true)),
        _ => false,
    }
}

/// The failure and warning rules of a namespace, each once, with its first declaration.
fn namespace_rules(policies: &Policies, ns: &str) -> Vec<(String, Declared)> {
    let mut out: Vec<(String, Declared)> = Vec::new();
    for d in policies.rules_in(ns) {
        if kind_of(&d.name).is_some() && !out.iter().any(|(n, _)| *n == d.name) {
            out.push((d.name.clone(), d.clone()));
        }
    }
    out
}

/// What one evaluation is about.
enum Target<'c> {
    Object(&'c Document),
    /// Combine mode: the input, and where findings go (line 1 of the first file).
    Combined {
        input: Value,
        first: Option<SourcePath>,
    },
}

impl Target<'_> {
    fn input(&self) -> Value {
        match self {
            Target::Object(doc) => doc.object.clone(),
            Target::Combined { input, .. } => input.clone(),
        }
    }

    /// The file conftest names the input by: its path as shown, `-` for standard input,
    /// `Combined` for the combined input.
    fn file(&self, coll: &Collection) -> String {
        match self {
            Target::Object(doc) => match &coll.sources[doc.source].path {
                SourcePath::File(p) => p.display().to_string(),
                SourcePath::Stdin => "-".to_string(),
            },
            Target::Combined { .. } => "Combined".to_string(),
        }
    }

    /// Where the input is, for traces: `file:line`.
    fn shown(&self, coll: &Collection) -> String {
        match self {
            Target::Object(doc) => {
                let source = &coll.sources[doc.source];
                let line = source.text.get(..doc.range.start).map_or(0, |t| t.matches('\n').count()) + 1;
                format!("{}:{line}", source.path.display())
            }
            Target::Combined { .. } => "Combined".to_string(),
        }
    }
}

/// `data.conftest.file` for an input's file (conftest's `addFileInfo`: the base name and the
/// directory; here the directory as shown, not made absolute), as a `with` clause.
pub fn file_info(file: &str) -> Value {
    let path = Path::new(file);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| file.to_string());
    let dir = match path.parent().map(|d| d.display().to_string()) {
        Some(d) if !d.is_empty() => d,
        _ => ".".to_string(),
    };
    json!({"name": name, "dir": dir})
}

fn file_info_clause(file: &str) -> String {
    format!(" with data.conftest.file as {}", file_info(file))
}

/// One input's answer to one rule, on standard error (`--trace`), escaped.
fn write_trace(target: &Target, coll: &Collection, answer: &Result<Answer, PolicyError>) {
    use driftlint_core::escape;
    let at = target.shown(coll);
    match answer {
        Ok(a) => {
            for line in &a.trace {
                eprintln!("TRACE {}: {}", escape::text(&at), escape::text(line));
            }
        }
        Err(e) => eprintln!("TRACE {}: error: {}", escape::text(&at), escape::text(&e.to_string())),
    }
}

fn combined_target(coll: &Collection) -> Target<'_> {
    let mut docs: Vec<&Document> = coll.documents.iter().chain(&coll.inputs).collect();
    // Path order, then the order inside each file.
    docs.sort_by_key(|d| (coll.sources[d.source].path.display(), d.doc_index, d.item_index));
    let input =
        docs.iter().map(|d| json!({"path": coll.sources[d.source].path.display(), "contents": d.object})).collect();
    Target::Combined { input: Value::Array(input), first: docs.first().map(|d| coll.sources[d.source].path.clone()) }
}

struct Ctx<'a> {
    ns: &'a str,
    rule: &'a str,
    declared: &'a Declared,
    has_exceptions: bool,
    /// Record what each query gave ([`Answer::trace`]).
    trace: bool,
}

#[derive(PartialEq, Eq)]
enum Flow {
    Go,
    Stop,
}

/// (object id, rule kind, message, location).
type Seen = (String, Rule, String, Option<(usize, usize)>);

#[derive(Default)]
struct Outcome {
    diagnostics: Vec<Diagnostic>,
    /// Findings already reported for an object.
    seen: BTreeSet<Seen>,
    /// Evaluation errors already reported (once per run, not once per object).
    errors: BTreeSet<String>,
}

/// What one rule gave for one input: the exception that exempts it, its result elements,
/// what it printed.
struct Answer {
    exception: Option<String>,
    elements: Vec<Rego>,
    /// With `--trace`: each query and what it gave.
    trace: Vec<String>,
    prints: Vec<String>,
}

/// Evaluates one rule (and its exception) for one input; `with` is appended to each query
/// (`data.conftest.file`).
fn ask(policies: &mut Policies, ctx: &Ctx, input: &Rego, with: &str) -> Result<Answer, PolicyError> {
    let mut trace = Vec::new();
    let mut shown = |query: &str, v: &Option<Rego>| {
        if ctx.trace {
            let value = v.as_ref().map_or_else(|| "undefined".to_string(), |v| engine::to_json(v).to_string());
            trace.push(format!("{query} = {value}"));
        }
    };
    let exception = if ctx.has_exceptions {
        let name = exception_name(ctx.rule);
        let query = format!("data.{}.exception[_][_] == {}", ctx.ns, json!(name));
        // One result per binding of the `_`s for which the comparison holds.
        let v = policies.query(&format!("{query}{with}"), Some(input.clone()))?;
        shown(&query, &v);
        v.is_some_and(|v| is_true(&v)).then_some(name.to_string())
    } else {
        None
    };
    let query = format!("data.{}.{}", ctx.ns, ctx.rule);
    let value = policies.query(&format!("{query}{with}"), Some(input.clone()))?;
    shown(&query, &value);
    let elements = match value {
        Some(Rego::Set(s)) => s.iter().cloned().collect(),
        Some(Rego::Array(a)) => a.iter().cloned().collect(),
        _ => Vec::new(),
    };
    Ok(Answer { exception, elements, trace, prints: policies.take_prints() })
}

impl Outcome {
    /// The findings of one answer.
    fn report(
        &mut self,
        policies: &Policies,
        ctx: &Ctx,
        target: &Target,
        answer: Result<Answer, PolicyError>,
        coll: &Collection,
        files: &mut Files,
    ) -> Flow {
        let Answer { exception, elements, prints, .. } = match answer {
            Ok(a) => a,
            Err(e) => return self.error(&e, ctx, policies.modules()),
        };
        // In the order of the findings, whatever the number of jobs.
        super::print::show(&prints);
        let kind = kind_of(ctx.rule).unwrap_or(Rule::PolicyDeny);
        for element in elements {
            let (message, field) = match engine::to_json(&element) {
                Value::String(s) => (s, None),
                Value::Object(o) => match o.get("msg") {
                    Some(Value::String(s)) => (s.clone(), o.get("field").and_then(Value::as_str).map(field_pointer)),
                    _ => {
                        let e = PolicyError::Shape {
                            message: format!(
                                "`data.{}.{}` gave an object without a string `msg`: {}",
                                ctx.ns,
                                ctx.rule,
                                Value::Object(o)
                            ),
                        };
                        return self.error(&e, ctx, policies.modules());
                    }
                },
                _ => continue,
            };
            let (path, range, object) = locate(target, field.as_deref(), coll, files);
            let who = format!("{}\u{0}{}", path.display(), object.as_deref().unwrap_or(""));
            let key = (who, kind, message.clone(), range.as_ref().map(|r| (r.start, r.end)));
            if !self.seen.insert(key) {
                continue;
            }
            let severity = driftlint_core::rules::doc(kind).default_severity;
            let mut d = Diagnostic::new(kind, severity, path, range, message)
                .with_help(format!("rule `data.{}.{}`", ctx.ns, ctx.rule));
            let rego = policies.modules().get(ctx.declared.module);
            if let Some(m) = rego {
                d = d.with_secondary(
                    SourcePath::File(PathBuf::from(&m.path)),
                    Some(line_range(&m.text, ctx.declared.line)),
                    format!("rule `{}` declared here", ctx.rule),
                );
            }
            match object {
                Some(object) => d = d.with_object(object, field),
                // A document that is no Kubernetes object has no identity; its field stays.
                None => d.field = field,
            }
            if let Some(name) = &exception {
                d.suppressed = Some(format!("policy exception `data.{}.exception` names `{name}`", ctx.ns));
            }
            self.diagnostics.push(d);
        }
        Flow::Go
    }

    /// Reports an evaluation error once; a limit stops the pass.
    fn error(&mut self, e: &PolicyError, ctx: &Ctx, modules: &[Module]) -> Flow {
        if self.errors.insert(e.to_string()) {
            self.diagnostics.push(error_diagnostic(e, modules, Some((ctx.declared.module, ctx.declared.line))));
        }
        if matches!(e, PolicyError::Limit { .. }) { Flow::Stop } else { Flow::Go }
    }
}

/// Where a finding about `target` goes: the key of `field` (a JSON pointer), else the
/// object's `kind:` key; combined, line 1 of the first file. Also the object's id.
fn locate(
    target: &Target,
    field: Option<&str>,
    coll: &Collection,
    files: &mut Files,
) -> (SourcePath, Option<Range<usize>>, Option<String>) {
    match target {
        Target::Combined { first, .. } => {
            let path = first.clone().unwrap_or(SourcePath::Stdin);
            let text = coll.sources.iter().find(|s| s.path == path).map(|s| s.text.as_str()).unwrap_or("");
            (path, Some(line_range(text, 1)), None)
        }
        Target::Object(doc) if doc.identity.kind.is_empty() => {
            // A document that is no Kubernetes object: the field's key, else its first line.
            let source = &coll.sources[doc.source];
            let range = match field.filter(|f| !f.is_empty() && doc.node.pointer(f).is_some()) {
                Some(f) => locate::node_range(&doc.node, f, FieldDiffKind::Extra),
                None => first_line(&source.text, doc.node.span.start),
            };
            (source.path.clone(), Some(range), None)
        }
        Target::Object(doc) => {
            let source = &coll.sources[doc.source];
            let pointer = field.filter(|f| doc.node.pointer(f).is_some()).unwrap_or("/kind");
            let (path, range) = locate::manifest_location(doc, source, pointer, FieldDiffKind::Extra, files);
            (path, Some(range), Some(doc.identity.cr_id()))
        }
    }
}

/// The line of `text` that holds byte `at` (without its line break).
fn first_line(text: &str, at: usize) -> Range<usize> {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    start..end.max(start)
}

/// A `field` as a JSON pointer: `/a/0/b` as it is, `a.0.b` split at the dots.
pub fn field_pointer(field: &str) -> String {
    if field.starts_with('/') || field.is_empty() {
        return field.to_string();
    }
    field.split('.').map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1"))).collect()
}

impl driftlint_core::pass::Pass for Pass {
    fn name(&self) -> &'static str {
        "policies"
    }

    fn batch(
        &mut self,
        batch: driftlint_core::pass::Batch<'_>,
        files: &mut Files,
    ) -> Result<&[Diagnostic], driftlint_core::pass::PassError> {
        Pass::batch(self, batch.coll, files)
            .map_err(|e| driftlint_core::pass::PassError { pass: "policies", source: Box::new(e) })
    }

    fn finish(&mut self, files: &mut Files) -> Result<Vec<Diagnostic>, driftlint_core::pass::PassError> {
        Pass::finish(self, files).map_err(|e| driftlint_core::pass::PassError { pass: "policies", source: Box::new(e) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_info_is_the_base_name_and_the_directory_as_shown() {
        assert_eq!(file_info("sub/deep/x.yaml"), json!({"name": "x.yaml", "dir": "sub/deep"}));
        assert_eq!(file_info("x.yaml"), json!({"name": "x.yaml", "dir": "."}));
        assert_eq!(file_info("-"), json!({"name": "-", "dir": "."}));
        assert_eq!(file_info("Combined"), json!({"name": "Combined", "dir": "."}));
    }

    #[test]
    fn first_line_is_the_line_holding_the_offset() {
        let text = "a: 1\nbb: 2\n";
        assert_eq!(&text[first_line(text, 6)], "bb: 2");
        assert_eq!(&text[first_line(text, 0)], "a: 1");
        assert_eq!(first_line("", 0), 0..0);
    }
}
