//! Kubernetes' CEL environment for `x-kubernetes-validations`, evaluated offline.
//!
//! A rule (its `rule`, `message`, `messageExpression`, `fieldPath`, `reason`) is compiled once
//! with [`compile`] and evaluated with [`Rule::evaluate`] against the JSON value of the schema
//! level that carries it (`self`), typed by that level's schema through [`Shape`].
//!
//! The language is the `cel` crate's (parser, standard library, macros `has`, `all`, `exists`,
//! `exists_one`, `map`, `filter`, cel-go's lists extension); [`ext`] adds cel-go's strings
//! extension with bounded results and the Kubernetes libraries the crate lacks (lists, regex,
//! URLs, IPs/CIDRs, quantities). A rule that uses
//! a function neither provides is [`CompileError::Unsupported`]: not evaluated, which the
//! caller shows as a note, never as a violation. Evaluation is bounded by step budgets
//! ([`cost`]: per expression, per object and per run), never by time.
//!
//! This crate knows nothing of files, YAML or driftlint's diagnostics.

pub mod cost;
pub mod ext;
pub mod value;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cel::common::ast::{Expr, IdedExpr};
use cel::{Context, Env};

pub use cel::Value;
pub use value::{Shape, Untyped};

/// Bytes of one rule or message expression (Kubernetes bounds a rule by its estimated cost;
/// a bound on the text keeps compiling cheap whatever the rule).
pub const MAX_EXPRESSION_BYTES: usize = 16 * 1024;
/// How deeply brackets of an expression may nest (the parser recurses per level).
pub const MAX_NESTING: usize = 48;
/// Characters of an evaluated `messageExpression` shown (Kubernetes' own limit is 5000).
pub const MAX_MESSAGE_CHARS: usize = 5000;

/// What a schema level says of one rule.
#[derive(Clone, Debug, Default)]
pub struct RuleSpec<'a> {
    pub rule: &'a str,
    pub message: Option<&'a str>,
    pub message_expression: Option<&'a str>,
    pub field_path: Option<&'a str>,
    pub reason: Option<&'a str>,
}

/// Why a rule is not compiled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// The rule is wrong: Kubernetes refuses the CRD.
    #[error("{0}")]
    Invalid(String),
    /// The rule is fine but uses what this crate does not provide: not evaluated.
    #[error("{0}")]
    Unsupported(String),
    /// A transition rule (`oldSelf`): there is no old object offline.
    #[error("a transition rule (it uses `oldSelf`): there is no previous object to compare with offline")]
    Transition,
}

/// A compiled rule.
#[derive(Debug)]
pub struct Rule {
    source: String,
    program: Arc<IdedExpr>,
    message: Option<String>,
    message_program: Option<Arc<IdedExpr>>,
    pub field_path: Option<String>,
    pub reason: Option<String>,
}

/// The result of one evaluation.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Ok,
    /// The rule is false: its message (or evaluated `messageExpression`).
    Violated(String),
    /// The rule could not be evaluated on this value (a field absent without `has()`, a
    /// division by zero, a non-boolean result, an invalid argument to a library function):
    /// the API server rejects the object.
    Error(String),
    /// Operands of types no overload takes (`'a' < 1`). Kubernetes type-checks a rule against
    /// the schema when the CRD is created and refuses such a rule then, so on an object it
    /// comes from what driftlint types differently (a `date-time` string stays a string) or
    /// from an untyped level (`x-kubernetes-preserve-unknown-fields`).
    Mismatch(String),
    /// A budget ran out before the rule was evaluated to the end: not known.
    OverBudget(cost::Limit),
}

/// Functions and macros of the environment, by name, to tell an unknown function (not
/// evaluated) from a misspelt variable (an error).
const STD_FUNCTIONS: &[&str] = &[
    "size",
    "contains",
    "startsWith",
    "endsWith",
    "matches",
    "has",
    "all",
    "exists",
    "exists_one",
    "map",
    "filter",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "bool",
    "dyn",
    "type",
    "duration",
    "timestamp",
    "getFullYear",
    "getMonth",
    "getDayOfYear",
    "getDayOfMonth",
    "getDate",
    "getDayOfWeek",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
    // cel-go strings and lists extensions, as the `cel` crate has them.
    "charAt",
    "indexOf",
    "lastIndexOf",
    "join",
    "lowerAscii",
    "upperAscii",
    "trim",
    "replace",
    "split",
    "substring",
    "format",
    "reverse",
    "slice",
    "flatten",
    "distinct",
    "sort",
    "sortBy",
    "lists.range",
    "first",
    "last",
    "strings.quote",
    // Kubernetes libraries of [`ext`].
    "isSorted",
    "sum",
    "min",
    "max",
    "find",
    "findAll",
    "url",
    "isURL",
    "getScheme",
    "getHost",
    "getHostname",
    "getPort",
    "getEscapedPath",
    "getQuery",
    "ip",
    "isIP",
    "ip.isCanonical",
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
    "cidr",
    "isCIDR",
    "containsIP",
    "containsCIDR",
    "masked",
    "prefixLength",
    "quantity",
    "isQuantity",
    "sign",
    "isInteger",
    "asInteger",
    "asApproximateFloat",
    "add",
    "sub",
    "isLessThan",
    "isGreaterThan",
    "compareTo",
    "semver",
    "isSemver",
    "major",
    "minor",
    "patch",
    "sets.contains",
    "sets.equivalent",
    "sets.intersects",
    "jsonpatch.escapeKey",
    // Optional values (the `cel` crate's standard library).
    "optional.of",
    "optional.ofNonZeroValue",
    "optional.none",
    "hasValue",
    "value",
    "orValue",
    "or",
    "optMap",
    "optFlatMap",
    // cel-go's math and encoders extensions, as the `cel` crate has them.
    "math.greatest",
    "math.@max",
    "math.@min",
    "math.least",
    "math.ceil",
    "math.floor",
    "math.round",
    "math.trunc",
    "math.isInf",
    "math.isNaN",
    "math.isFinite",
    "math.abs",
    "math.sign",
    "math.bitAnd",
    "math.bitOr",
    "math.bitXor",
    "math.bitNot",
    "math.bitShiftLeft",
    "math.bitShiftRight",
    "math.sqrt",
    "base64.encode",
    "base64.decode",
];

fn env() -> &'static Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Env::stdlib();
        // The registrations are static tables: a failure is a bug caught by every test.
        env.add_extension(cel::extensions::lists).expect("lists extension");
        env.add_extension(cel::extensions::math).expect("math extension");
        env.add_extension(cel::extensions::encoders).expect("encoders extension");
        ext::register(&mut env).expect("Kubernetes libraries");
        env.add_overload(cost::STEP_FUNCTION, "__driftlint_step/1", vec![cel::common::types::INT_TYPE], cost::step)
            .expect("step function");
        env.add_overload(cost::SIZE_FUNCTION, "__driftlint_size/1", vec![cel::common::types::DYN_TYPE], cost::size)
            .expect("size function");
        Arc::new(env)
    })
}

/// Compiles `spec`.
pub fn compile(spec: &RuleSpec<'_>) -> Result<Rule, CompileError> {
    let program = compile_expression(spec.rule, "rule")?;
    let message_program = match spec.message_expression {
        Some(m) if !m.trim().is_empty() => Some(compile_expression(m, "messageExpression")?),
        _ => None,
    };
    Ok(Rule {
        source: spec.rule.to_string(),
        program,
        message: spec.message.filter(|m| !m.trim().is_empty()).map(str::to_string),
        message_program,
        field_path: spec.field_path.filter(|f| !f.is_empty()).map(str::to_string),
        reason: spec.reason.filter(|r| !r.is_empty()).map(str::to_string),
    })
}

/// What compiling `text` costs, in weighted bytes: its length and a fixed part per expression,
/// times one plus a tenth of its bracket nesting (parsing takes time with both: on the
/// development machine, 15 KB nested 40 deep took 175 ms, 15 KB of flat calls 46 ms, about
/// 2.5 µs per weighted byte either way). For the caller's bound on what a run compiles.
pub fn compile_weight(text: &str) -> usize {
    (text.len() + 64) * (10 + nesting(text).min(MAX_NESTING)) / 10
}

/// Bytes of expression text kept compiled per process: provider CRDs repeat the same rule
/// across versions and scopes (the AWS provider's 2,712 rules are 613 distinct texts), and
/// parsing is most of what compiling costs. The compiled trees are shared with the schemas
/// that hold them; past this many bytes of keys, new texts are compiled but not kept.
const MAX_CACHED_BYTES: usize = 16 << 20;

#[derive(Default)]
struct Cache {
    compiled: HashMap<String, Result<Arc<IdedExpr>, CompileError>>,
    bytes: usize,
}

fn compile_expression(text: &str, what: &str) -> Result<Arc<IdedExpr>, CompileError> {
    compile_declared(text, what, SELF_ONLY)
}

/// The variables of a CRD rule.
const SELF_ONLY: &[&str] = &["self"];

/// Compiles `text` in which `declared` are the variables; cached by both.
fn compile_declared(text: &str, what: &str, declared: &[&str]) -> Result<Arc<IdedExpr>, CompileError> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    // The declared names are part of the key: one text may compile in one environment only.
    let key = if declared == SELF_ONLY { text.to_string() } else { format!("{}\0{text}", declared.join(",")) };
    if let Some(hit) = cache.lock().unwrap_or_else(|e| e.into_inner()).compiled.get(&key) {
        return hit.clone().map_err(|e| reword(e, what));
    }
    let result = compile_new(text, declared).map(Arc::new);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if cache.bytes + key.len() <= MAX_CACHED_BYTES {
        cache.bytes += key.len();
        cache.compiled.insert(key, result.clone());
    }
    result.map_err(|e| reword(e, what))
}

/// Errors are cached with the word "expression"; `what` names the field they came from.
fn reword(e: CompileError, what: &str) -> CompileError {
    match e {
        CompileError::Invalid(m) => CompileError::Invalid(m.replacen("the expression", &format!("the {what}"), 1)),
        other => other,
    }
}

fn compile_new(text: &str, declared: &[&str]) -> Result<IdedExpr, CompileError> {
    let what = "expression";
    if text.trim().is_empty() {
        return Err(CompileError::Invalid(format!("the {what} is empty")));
    }
    if text.len() > MAX_EXPRESSION_BYTES {
        return Err(CompileError::Invalid(format!(
            "the {what} is {} bytes long, more than the {MAX_EXPRESSION_BYTES} allowed",
            text.len()
        )));
    }
    if nesting(text) > MAX_NESTING {
        return Err(CompileError::Invalid(format!(
            "the {what} nests brackets deeper than {MAX_NESTING} levels, or chains more than {} `&&`/`||`",
            MAX_NESTING * 8
        )));
    }
    let program = env()
        .compile(text)
        .map_err(|e| CompileError::Invalid(format!("the {what} does not compile: {}", one_line(&e.to_string()))))?;
    let refs = program.references();
    if declared == SELF_ONLY && refs.has_variable("oldSelf") {
        return Err(CompileError::Transition);
    }
    let mut expr = program.expression().clone();
    check_names(&expr, &mut Vec::new(), declared)?;
    let mut next = cost::max_id(&expr);
    cost::instrument(&mut expr, &mut next);
    Ok(expr)
}

pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The deepest nesting of brackets outside string literals.
fn nesting(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    // Long operator chains recurse in the parser too: count them as nesting.
    max.max(text.matches("&&").count().max(text.matches("||").count()) / 8)
}

/// Whether `name` is one of the named-format library's functions.
fn format_function(name: &str) -> bool {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| ext::format::function_names().collect()).iter().any(|n| n == name)
}

/// Every identifier is `self`, a comprehension's variable or a type name; every function is
/// one the environment has. An unknown variable is an error (Kubernetes: "undeclared
/// reference"); an unknown function is unsupported.
fn check_names(e: &IdedExpr, bound: &mut Vec<String>, declared: &[&str]) -> Result<(), CompileError> {
    match &e.expr {
        Expr::Ident(name) => {
            let known = declared.contains(&name.as_str())
                || bound.iter().any(|b| b == name)
                || matches!(
                    name.as_str(),
                    "int" | "uint" | "double" | "string" | "bool" | "bytes" | "list" | "map" | "null_type" | "type"
                );
            if !known {
                let names: Vec<String> = declared.iter().map(|d| format!("`{d}`")).collect();
                let only = if names.len() == 1 { "only " } else { "" };
                return Err(CompileError::Invalid(format!(
                    "undeclared reference to `{name}` ({only}{} {} bound)",
                    names.join(", "),
                    if names.len() == 1 { "is" } else { "are" }
                )));
            }
        }
        Expr::Call(c) => {
            // `ip.isCanonical(x)` parses as a call of `isCanonical` on the identifier `ip`.
            let namespaced = match c.target.as_deref() {
                Some(IdedExpr { expr: Expr::Ident(ns), .. })
                    if !bound.contains(ns) && !declared.contains(&ns.as_str()) =>
                {
                    Some(format!("{ns}.{}", c.func_name))
                }
                _ => None,
            };
            let name = namespaced.as_deref().unwrap_or(&c.func_name);
            let operator = c.func_name.starts_with(['_', '@', '!', '-']);
            if !operator && !STD_FUNCTIONS.contains(&name) && !format_function(name) {
                return Err(CompileError::Unsupported(format!(
                    "it calls `{name}`, which driftlint's CEL environment does not provide"
                )));
            }
            if let Some(t) = c.target.as_deref()
                && namespaced.is_none()
            {
                check_names(t, bound, declared)?;
            }
            for a in &c.args {
                check_names(a, bound, declared)?;
            }
        }
        Expr::Comprehension(c) => {
            check_names(&c.iter_range, bound, declared)?;
            check_names(&c.accu_init, bound, declared)?;
            let pushed = 2 + usize::from(c.iter_var2.is_some());
            bound.push(c.iter_var.clone());
            bound.push(c.accu_var.clone());
            if let Some(v) = &c.iter_var2 {
                bound.push(v.clone());
            }
            let r =
                [&c.loop_cond, &c.loop_step, &c.result].into_iter().try_for_each(|p| check_names(p, bound, declared));
            bound.truncate(bound.len() - pushed);
            r?;
        }
        Expr::List(l) => l.elements.iter().try_for_each(|x| check_names(x, bound, declared))?,
        Expr::Map(m) => {
            for entry in &m.entries {
                if let cel::common::ast::EntryExpr::MapEntry(me) = &entry.expr {
                    check_names(&me.key, bound, declared)?;
                    check_names(&me.value, bound, declared)?;
                }
            }
        }
        Expr::Select(s) => {
            // `a.b.f(…)` may name a namespaced function (`ip.isCanonical`): checked as a call.
            check_names(&s.operand, bound, declared)?;
        }
        _ => {}
    }
    Ok(())
}

/// `self` for evaluation: converted once per schema level, shared by its rules, and lent to
/// each evaluation without a copy.
pub struct Input {
    value: Box<dyn cel::common::value::Val>,
}

impl Input {
    pub fn new<S: Shape>(json: &serde_json::Value, shape: Option<&S>) -> Input {
        let value = value::to_cel(json, shape);
        // Every value `to_cel` builds has a `Val` form.
        let value = Box::<dyn cel::common::value::Val>::try_from(value)
            .unwrap_or_else(|_| Box::new(cel::common::types::CelNull));
        Input { value }
    }
}

impl cel::context::VariableResolver for Input {
    fn resolve<'b>(&'b self, variable: &str) -> Option<cel::common::value::CowVal<'b, 'b>> {
        (variable == "self").then(|| cel::common::value::CowVal::Borrowed(self.value.as_ref()))
    }
}

impl Rule {
    /// The rule's text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The field paths the rule (and its `messageExpression`) selects from `self` by name,
    /// `has()` tests included: `self.a.b` gives `[a, b]` (names as written, escaped). For the
    /// caller's check against the schema (Kubernetes refuses a rule naming a field the
    /// schema does not have).
    pub fn self_paths(&self) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        collect_paths(&self.program, &mut out);
        if let Some(m) = &self.message_program {
            collect_paths(m, &mut out);
        }
        out
    }

    /// Evaluates the rule with `self` bound to `input`, within what is left of `budget`
    /// (and [`cost::MAX_STEPS`] at most), taking what it spent from it. Once the object's or
    /// the run's budget is spent, nothing is evaluated.
    pub fn evaluate(&self, input: &Input, budget: &mut cost::Budget) -> Outcome {
        match run(&self.program, input, budget) {
            Err(Failure::Budget(limit)) => Outcome::OverBudget(limit),
            Err(Failure::Error(e)) => Outcome::Error(e),
            Err(Failure::Mismatch(e)) => Outcome::Mismatch(e),
            Ok(Value::Bool(true)) => Outcome::Ok,
            Ok(Value::Bool(false)) => Outcome::Violated(self.message(input, budget)),
            Ok(other) => Outcome::Error(format!("the rule gave {}, not a bool", other.type_of())),
        }
    }

    /// The message of a violation: the `messageExpression`'s string when it gives one, else
    /// `message`, else Kubernetes' default `failed rule: RULE`. The `messageExpression` spends
    /// the same budget as the rule (as Kubernetes counts it).
    fn message(&self, input: &Input, budget: &mut cost::Budget) -> String {
        if let Some(p) = &self.message_program
            && let Ok(Value::String(s)) = run(p, input, budget)
            && !s.trim().is_empty()
        {
            return s.chars().take(MAX_MESSAGE_CHARS).collect();
        }
        match &self.message {
            Some(m) => m.clone(),
            None => format!("failed rule: {}", one_line(&self.source)),
        }
    }
}

/// Why an evaluation gave no value.
enum Failure {
    Budget(cost::Limit),
    Error(String),
    Mismatch(String),
}

/// Evaluates `program` within what is left of `budget`.
fn run(
    program: &IdedExpr,
    input: &dyn cel::context::VariableResolver,
    budget: &mut cost::Budget,
) -> Result<Value, Failure> {
    if let Some(limit) = budget.spent() {
        return Err(Failure::Budget(limit));
    }
    let (cap, limit) = budget.call();
    cost::reset(cap, budget.object_id());
    let result = match cost::charge(cost::weight(program)) {
        Ok(()) => {
            let mut ctx = Context::with_env(env().clone());
            ctx.set_variable_resolver(input);
            Value::resolve(program, &ctx)
        }
        Err(e) => Err(e),
    };
    let spent = cost::spent();
    budget.take(spent);
    if cost::exhausted() {
        // A spent budget, or (with steps left) a function refusing to build more than
        // `MAX_PRODUCED`: the expression's own bound.
        return Err(Failure::Budget(if spent >= cap { limit } else { cost::Limit::Expression }));
    }
    result.map_err(|e| {
        use cel::ExecutionError as E;
        let text = one_line(&e.to_string());
        match e {
            E::NoSuchOverload(_)
            | E::UnsupportedBinaryOperator(..)
            | E::ValuesNotComparable(..)
            | E::UnexpectedType { .. }
            | E::UnsupportedTargetType { .. }
            | E::NotSupportedAsMethod { .. } => Failure::Mismatch(text),
            _ => Failure::Error(text),
        }
    })
}

/// Evaluates a bare expression with `self` bound to `json` (untyped): for tests and the
/// differential table.
pub fn eval_untyped(expression: &str, json: &serde_json::Value) -> Result<Outcome, CompileError> {
    let rule = compile(&RuleSpec { rule: expression, ..RuleSpec::default() })?;
    Ok(rule.evaluate(&Input::new::<Untyped>(json, None), &mut cost::Budget::default()))
}

/// The value of a bare expression (not necessarily a bool), as JSON-ish text: for the
/// differential table, which compares values.
pub fn value_untyped(expression: &str, json: &serde_json::Value) -> Result<Result<String, String>, CompileError> {
    let program = compile_expression(expression, "expression")?;
    let input = Input::new::<Untyped>(json, None);
    Ok(run(&program, &input, &mut cost::Budget::default()).map(|v| show(&v)).map_err(|e| match e {
        Failure::Budget(limit) => budget_text(limit),
        Failure::Error(e) | Failure::Mismatch(e) => e,
    }))
}

/// What an evaluation stopped by `limit` says.
pub fn budget_text(limit: cost::Limit) -> String {
    let steps = limit.steps();
    match limit {
        cost::Limit::Expression => format!(
            "it exceeded its cost budget of {steps} steps (Kubernetes' per-expression limit), or a function would have built more than {} items",
            cost::MAX_PRODUCED
        ),
        cost::Limit::Object => format!(
            "the object's cost budget of {steps} steps (Kubernetes' per-object budget, shared by all its rules) was spent"
        ),
        cost::Limit::Run => format!("the run's cost budget of {steps} steps for CEL rules (driftlint's own) was spent"),
    }
}

/// A canonical text of a value (maps with sorted keys, floats with a point).
pub fn show(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => format!("{u}u"),
        Value::Float(f) => {
            if f.fract() == 0.0 && f.is_finite() {
                format!("{f:.1}")
            } else {
                f.to_string()
            }
        }
        Value::String(s) => serde_json::Value::String(s.to_string()).to_string(),
        Value::List(l) => format!("[{}]", l.iter().map(show).collect::<Vec<_>>().join(", ")),
        Value::Map(m) => {
            let mut entries: Vec<(String, String)> =
                m.map.iter().map(|(k, v)| (show(&Value::from(k)), show(v))).collect();
            entries.sort();
            format!("{{{}}}", entries.into_iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join(", "))
        }
        other => format!("<{}>", other.type_of()),
    }
}

/// The `self.a.b…` chains of `e`, longest only.
fn collect_paths(e: &IdedExpr, out: &mut Vec<Vec<String>>) {
    fn chain(e: &IdedExpr) -> Option<Vec<String>> {
        match &e.expr {
            Expr::Ident(n) if n == "self" => Some(Vec::new()),
            Expr::Select(s) => {
                let mut c = chain(&s.operand)?;
                c.push(s.field.clone());
                Some(c)
            }
            _ => None,
        }
    }
    match &e.expr {
        Expr::Select(s) => {
            if let Some(c) = chain(e) {
                out.push(c);
            } else {
                collect_paths(&s.operand, out);
            }
        }
        Expr::Call(c) => {
            if let Some(t) = c.target.as_deref() {
                collect_paths(t, out);
            }
            c.args.iter().for_each(|a| collect_paths(a, out));
        }
        Expr::Comprehension(c) => {
            for part in [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
                collect_paths(part, out);
            }
        }
        Expr::List(l) => l.elements.iter().for_each(|x| collect_paths(x, out)),
        Expr::Map(m) => {
            for entry in &m.entries {
                if let cel::common::ast::EntryExpr::MapEntry(me) = &entry.expr {
                    collect_paths(&me.key, out);
                    collect_paths(&me.value, out);
                }
            }
        }
        _ => {}
    }
}

/// An expression over named variables (an admission policy's `object`, `params`,
/// `request`, …), evaluated to any value: for callers other than CRD rules. Compiled, cached
/// and bounded as rules are.
#[derive(Clone, Debug)]
pub struct Expression {
    source: String,
    program: Arc<IdedExpr>,
}

/// Why an [`Expression`] gave no value.
#[derive(Clone, Debug, PartialEq)]
pub enum EvalError {
    /// A budget ran out: not known.
    OverBudget(cost::Limit),
    /// An evaluation error (a missing field, a bad argument).
    Error(String),
    /// Operands of types no overload takes.
    Mismatch(String),
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalError::OverBudget(limit) => f.write_str(&budget_text(*limit)),
            EvalError::Error(e) | EvalError::Mismatch(e) => f.write_str(e),
        }
    }
}

impl Expression {
    /// Compiles `text`, in which `declared` are the variables.
    pub fn compile(text: &str, declared: &[&str]) -> Result<Expression, CompileError> {
        Ok(Expression { source: text.to_string(), program: compile_declared(text, "expression", declared)? })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the expression names variable `name`.
    pub fn uses(&self, name: &str) -> bool {
        fn walk(e: &IdedExpr, name: &str) -> bool {
            match &e.expr {
                Expr::Ident(n) => n == name,
                Expr::Call(c) => {
                    c.target.as_deref().is_some_and(|t| walk(t, name)) || c.args.iter().any(|a| walk(a, name))
                }
                Expr::Comprehension(c) => [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result]
                    .into_iter()
                    .any(|p| walk(p, name)),
                Expr::List(l) => l.elements.iter().any(|x| walk(x, name)),
                Expr::Map(m) => m.entries.iter().any(|entry| match &entry.expr {
                    cel::common::ast::EntryExpr::MapEntry(me) => walk(&me.key, name) || walk(&me.value, name),
                    _ => false,
                }),
                Expr::Select(s) => walk(&s.operand, name),
                _ => false,
            }
        }
        walk(&self.program, name)
    }

    /// The fields selected directly on variable `name` (`variables.a` gives `a`).
    pub fn fields_of(&self, name: &str) -> Vec<String> {
        fn walk(e: &IdedExpr, name: &str, out: &mut Vec<String>) {
            match &e.expr {
                Expr::Select(s) => {
                    if matches!(&s.operand.expr, Expr::Ident(n) if n == name) {
                        out.push(s.field.clone());
                    } else {
                        walk(&s.operand, name, out);
                    }
                }
                Expr::Call(c) => {
                    if let Some(t) = c.target.as_deref() {
                        walk(t, name, out);
                    }
                    c.args.iter().for_each(|a| walk(a, name, out));
                }
                Expr::Comprehension(c) => {
                    for p in [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
                        walk(p, name, out);
                    }
                }
                Expr::List(l) => l.elements.iter().for_each(|x| walk(x, name, out)),
                Expr::Map(m) => {
                    for entry in &m.entries {
                        if let cel::common::ast::EntryExpr::MapEntry(me) = &entry.expr {
                            walk(&me.key, name, out);
                            walk(&me.value, name, out);
                        }
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(&self.program, name, &mut out);
        out
    }

    /// Evaluates the expression with `bindings`, within what is left of `budget`.
    pub fn evaluate(&self, bindings: &Bindings, budget: &mut cost::Budget) -> Result<Value, EvalError> {
        run(&self.program, bindings, budget).map_err(|e| match e {
            Failure::Budget(limit) => EvalError::OverBudget(limit),
            Failure::Error(e) => EvalError::Error(e),
            Failure::Mismatch(e) => EvalError::Mismatch(e),
        })
    }
}

/// Named values for an [`Expression`].
#[derive(Default)]
pub struct Bindings {
    values: HashMap<String, Box<dyn cel::common::value::Val>>,
}

impl Bindings {
    /// Binds `name` to a JSON value (untyped: JSON's own types).
    pub fn json(&mut self, name: &str, json: &serde_json::Value) {
        self.value(name, value::to_cel::<Untyped>(json, None));
    }

    /// Binds `name` to a CEL value.
    pub fn value(&mut self, name: &str, v: Value) {
        let v =
            Box::<dyn cel::common::value::Val>::try_from(v).unwrap_or_else(|_| Box::new(cel::common::types::CelNull));
        self.values.insert(name.to_string(), v);
    }
}

impl cel::context::VariableResolver for Bindings {
    fn resolve<'b>(&'b self, variable: &str) -> Option<cel::common::value::CowVal<'b, 'b>> {
        self.values.get(variable).map(|v| cel::common::value::CowVal::Borrowed(v.as_ref()))
    }
}

/// A CEL map of string keys (an admission policy's `variables`).
pub fn map_value(entries: &HashMap<String, Value>) -> Value {
    let map: HashMap<cel::objects::Key, Value> =
        entries.iter().map(|(k, v)| (cel::objects::Key::String(Arc::new(k.clone())), v.clone())).collect();
    Value::Map(cel::objects::Map { map: Arc::new(map) })
}
