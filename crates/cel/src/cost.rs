//! The cost bounds of rule evaluation: step budgets counted, never timed.
//!
//! Kubernetes bounds a rule by an estimated cost at CRD creation and an actual cost at run
//! time: one expression may take `PerCallLimit` (one million), and every rule evaluated on one
//! object `RuntimeCELCostBudget` (ten million) in all (k8s.io/apiserver `pkg/apis/cel/config.go`).
//! We count at run time only, since we have the object, with the same two figures ([`MAX_STEPS`],
//! [`OBJECT_STEPS`]) and a third of our own for a whole run ([`RUN_STEPS`]): a rule on a list's
//! items runs once per item and every object of the run has its own budget, so without it a
//! hostile repository multiplies the per-object budget by its object count. The caller keeps
//! what is left of the object's and the run's budgets in a [`Budget`]; one evaluation may take
//! the least of the three.
//!
//! The `cel` crate has no cost hook, so compiling instruments every comprehension (`all`,
//! `exists`, `exists_one`, `map`, `filter`) with a call to [`STEP_FUNCTION`] that charges the
//! size of its body *before* the body runs (`step(cost) ? body : null`), so that once the
//! budget is spent no further body runs, even in `all`/`exists`, which carry an error past
//! later elements. The extension functions charge what they produce (the length of a string,
//! the items of a list) and refuse to produce more than [`MAX_PRODUCED`]. Operators and
//! functions whose work grows with their operands (`==`, `+`, `in`, `<`, every library
//! function) get each operand that is not a literal passed through [`SIZE_FUNCTION`], which
//! charges the operand's size (one per scalar, list item or map entry, one per 16 bytes of a
//! string) and returns it untouched, so `self.list == self.other` inside a loop costs what
//! it compares. A regular expression is charged what compiling it may cost before it is
//! compiled, once per object ([`crate::ext::regex`]). Indexing, `size`, `has` and the logical
//! operators are charged nothing more. The evaluation's budget lives in a thread-local: one
//! evaluation runs on one thread, start to end.

use std::cell::Cell;

use cel::ExecutionError;
use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, IdedExpr, LiteralValue, operators};
use cel::common::types::CelBool;
use cel::common::value::CowVal;

/// The name `matches` calls are compiled to.
pub const MATCHES_FUNCTION: &str = "__driftlint_matches";

/// Steps one evaluation of one expression may take: Kubernetes' `PerCallLimit`.
pub const MAX_STEPS: u64 = 1_000_000;
/// Steps every expression evaluated on one object may take in all (its rules at every level,
/// on every item of its lists, and their messages): Kubernetes' `RuntimeCELCostBudget`.
pub const OBJECT_STEPS: u64 = 10_000_000;
/// Steps every expression of one run may take in all: driftlint's own bound, so that a
/// repository's objects cannot add up to minutes of CEL. A step takes 0.1–0.3 µs here (the
/// `cel` crate's interpreter is slower than cel-go, whose cost units Kubernetes sizes at
/// 0.1 µs), so this is a few seconds at most: two objects at Kubernetes' full per-object budget.
pub const RUN_STEPS: u64 = 20_000_000;
/// Code points of one string, or items of one list, an extension function may produce.
pub const MAX_PRODUCED: usize = 1 << 20;
/// What one iteration of a comprehension costs beyond its body's nodes (which count the
/// accumulator's nodes, as cel-go's cost does): more would make driftlint refuse rules that
/// Kubernetes accepts.
pub const ITERATION_STEPS: u64 = 1;
/// What a regular-expression call costs beyond a step, whatever its pattern (compiling it is
/// charged besides, once per object: [`crate::ext::regex`]).
pub const REGEX_STEPS: u64 = 100;

/// The internal function that charges an operand's size and gives it back.
pub const SIZE_FUNCTION: &str = "__driftlint_size";

/// The internal function the instrumentation calls. Not reachable from a rule's text in a way
/// that matters: calling it only spends budget.
pub const STEP_FUNCTION: &str = "__driftlint_step";

/// The budget an evaluation ran out of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The expression's own ([`MAX_STEPS`], or [`MAX_PRODUCED`] built by one function).
    Expression,
    /// The object's ([`OBJECT_STEPS`]), shared by every rule evaluated on it.
    Object,
    /// The run's ([`RUN_STEPS`]), shared by every object.
    Run,
}

impl Limit {
    /// The budget's size in steps.
    pub fn steps(self) -> u64 {
        match self {
            Limit::Expression => MAX_STEPS,
            Limit::Object => OBJECT_STEPS,
            Limit::Run => RUN_STEPS,
        }
    }
}

/// What is left of the current object's and of the run's budgets. A run has one, and starts
/// each object with [`Budget::start_object`]; every evaluation takes what it spent from both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    object: u64,
    run: u64,
    /// The current object's number (unique in the process): what is charged once per object
    /// (compiling a regular expression) is charged again for the next one.
    id: u64,
}

fn next_object() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Default for Budget {
    fn default() -> Self {
        Budget::with_run(RUN_STEPS)
    }
}

impl Budget {
    /// A run's budget of `run` steps (less than [`RUN_STEPS`] in tests).
    pub fn with_run(run: u64) -> Budget {
        Budget { object: OBJECT_STEPS, run, id: next_object() }
    }

    /// The next object's budget starts full (the run's goes on).
    pub fn start_object(&mut self) {
        self.object = OBJECT_STEPS;
        self.id = next_object();
    }

    pub(crate) fn object_id(&self) -> u64 {
        self.id
    }

    /// Steps left in the run.
    pub fn run_left(&self) -> u64 {
        self.run
    }

    /// Which budget is spent, if one is: nothing more can be evaluated on this object.
    pub fn spent(&self) -> Option<Limit> {
        if self.run == 0 {
            Some(Limit::Run)
        } else if self.object == 0 {
            Some(Limit::Object)
        } else {
            None
        }
    }

    /// What one evaluation may take, and the budget that sets it (the smallest; the
    /// expression's own on a tie, then the object's).
    pub(crate) fn call(&self) -> (u64, Limit) {
        if self.run < MAX_STEPS.min(self.object) {
            (self.run, Limit::Run)
        } else if self.object < MAX_STEPS {
            (self.object, Limit::Object)
        } else {
            (MAX_STEPS, Limit::Expression)
        }
    }

    /// Charges `steps` of work done outside an expression (matching an admission policy to
    /// an object) to the object and the run.
    pub fn spend(&mut self, steps: u64) {
        self.take(steps);
    }

    /// Takes `steps` (what one evaluation spent) from the object and the run.
    pub(crate) fn take(&mut self, steps: u64) {
        self.object = self.object.saturating_sub(steps);
        self.run = self.run.saturating_sub(steps);
    }
}

thread_local! {
    static OBJECT: Cell<u64> = const { Cell::new(0) };
    static CAP: Cell<u64> = const { Cell::new(MAX_STEPS) };
    static LEFT: Cell<u64> = const { Cell::new(MAX_STEPS) };
    static EXHAUSTED: Cell<bool> = const { Cell::new(false) };
}

/// Starts an evaluation on object `object` ([`Budget`]'s number) that may take `cap` steps.
pub fn reset(cap: u64, object: u64) {
    OBJECT.with(|o| o.set(object));
    CAP.with(|c| c.set(cap));
    LEFT.with(|l| l.set(cap));
    EXHAUSTED.with(|e| e.set(false));
}

/// The number of the object being evaluated.
pub fn object() -> u64 {
    OBJECT.with(Cell::get)
}

/// Whether the budget ran out since [`reset`].
pub fn exhausted() -> bool {
    EXHAUSTED.with(Cell::get)
}

/// Steps spent since [`reset`].
pub fn spent() -> u64 {
    CAP.with(Cell::get) - LEFT.with(Cell::get)
}

/// Charges `steps`; an error once the budget is spent.
pub fn charge(steps: u64) -> Result<(), ExecutionError> {
    LEFT.with(|l| {
        let left = l.get();
        if steps > left {
            l.set(0);
            EXHAUSTED.with(|e| e.set(true));
            Err(ExecutionError::function_error("cost", "the rule exceeded its cost budget"))
        } else {
            l.set(left - steps);
            Ok(())
        }
    })
}

/// Charges for `n` produced items, refusing more than [`MAX_PRODUCED`].
pub fn produce(function: &str, n: usize) -> Result<(), ExecutionError> {
    if n > MAX_PRODUCED {
        EXHAUSTED.with(|e| e.set(true));
        return Err(ExecutionError::function_error(
            function,
            format!("would produce {n} items or characters, more than the {MAX_PRODUCED} allowed"),
        ));
    }
    charge(n as u64 / 8 + 1)
}

/// `__driftlint_step(int)`: charges its argument, then is `true`.
pub fn step<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let cost = args.first().and_then(|a| a.downcast_ref::<cel::common::types::CelInt>()).map_or(1, |i| *i.inner());
    charge(cost.max(1) as u64)?;
    Ok(CowVal::Owned(Box::new(CelBool::from(true))))
}

/// `__driftlint_size(x)`: charges the size of `x`, then is `x`.
pub fn size<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let v = args.pop().ok_or_else(|| ExecutionError::function_error(SIZE_FUNCTION, "no argument"))?;
    let cap = LEFT.with(Cell::get).saturating_add(1);
    charge(deep_size(v.as_ref(), cap))?;
    Ok(v)
}

/// The size of `v`, counted up to `cap` (the walk stops there: the charge fails anyway).
fn deep_size(v: &dyn cel::common::value::Val, cap: u64) -> u64 {
    use cel::common::types::{CelList, CelMap, CelString};
    if let Some(s) = v.downcast_ref::<CelString>() {
        return s.inner().len() as u64 / 16;
    }
    let mut total = 1u64;
    if let Some(l) = v.downcast_ref::<CelList>() {
        for item in l.inner() {
            total += 1 + deep_size(item.as_ref(), cap - total.min(cap));
            if total >= cap {
                return total;
            }
        }
    } else if let Some(m) = v.downcast_ref::<CelMap>() {
        for value in m.inner().values() {
            total += 1 + deep_size(value.as_ref(), cap - total.min(cap));
            if total >= cap {
                return total;
            }
        }
    } else {
        // A scalar: its node's weight already paid for it.
        return 0;
    }
    total
}

/// Names that prefix namespaced functions (`ip.isCanonical`).
const NAMESPACES: &[&str] =
    &["ip", "strings", "lists", "math", "sets", "base64", "format", "cel", "jsonpatch", "optional"];

/// Calls whose work does not grow with their operands (or that are charged otherwise).
fn constant_cost(name: &str) -> bool {
    matches!(
        name,
        operators::LOGICAL_AND
            | operators::LOGICAL_OR
            | operators::LOGICAL_NOT
            | operators::CONDITIONAL
            | operators::NEGATE
            | operators::INDEX
            | operators::OPT_INDEX
            | operators::OPT_SELECT
            | operators::NOT_STRICTLY_FALSE
            | "size"
            | "dyn"
            | "type"
            | "int"
            | "uint"
            | "double"
            | "bool"
            | "has"
            | STEP_FUNCTION
            | SIZE_FUNCTION
    )
}

/// `x` → `__driftlint_size(x)`, unless `x` is a literal or a comprehension's accumulator
/// (which the `cel` crate's fast paths must still recognise).
fn measure(x: &mut IdedExpr, next_id: &mut u64) {
    match &x.expr {
        // A literal costs nothing more; a list or map literal's items are measured where they
        // are operands themselves (and `accu + [x]` must stay as the `cel` crate expects it).
        Expr::Literal(_) | Expr::List(_) | Expr::Map(_) => return,
        Expr::Ident(name) if name.starts_with('@') || name.starts_with("__") => return,
        // `ip.isCanonical(x)` is a call on the namespace `ip`, not on a value.
        Expr::Ident(name) if NAMESPACES.contains(&name.as_str()) => return,
        _ => {}
    }
    *next_id += 1;
    let inner = std::mem::take(x);
    *x = IdedExpr {
        id: *next_id,
        expr: Expr::Call(CallExpr { func_name: SIZE_FUNCTION.to_string(), target: None, args: vec![inner] }),
    };
}

/// The static weight of an expression: one per node, more for regular expressions.
pub fn weight(e: &IdedExpr) -> u64 {
    let own = match &e.expr {
        Expr::Call(c) if matches!(c.func_name.as_str(), "matches" | "find" | "findAll" | MATCHES_FUNCTION) => {
            REGEX_STEPS
        }
        // Literals, and the instrumentation's own calls, are free.
        Expr::Literal(_) => 0,
        Expr::Call(c) if c.func_name == SIZE_FUNCTION || c.func_name == STEP_FUNCTION => 0,
        _ => 1,
    };
    let mut total = own;
    match &e.expr {
        Expr::Call(c) => {
            total += c.target.as_deref().map_or(0, weight);
            total += c.args.iter().map(weight).sum::<u64>();
        }
        Expr::Comprehension(c) => {
            // The body is charged per iteration by its own instrumentation.
            total += weight(&c.iter_range) + weight(&c.accu_init) + weight(&c.result);
        }
        Expr::List(l) => total += l.elements.iter().map(weight).sum::<u64>(),
        Expr::Map(m) => total += m.entries.len() as u64 * 2,
        Expr::Select(s) => total += weight(&s.operand),
        _ => {}
    }
    total
}

/// Rewrites every comprehension of `e` so that each iteration charges its body first, every
/// operand whose size matters so that it is charged, and `matches` to [`MATCHES_FUNCTION`].
pub fn instrument(e: &mut IdedExpr, next_id: &mut u64) {
    match &mut e.expr {
        Expr::Call(c) => {
            if c.func_name == "matches" {
                c.func_name = MATCHES_FUNCTION.to_string();
            }
            if let Some(t) = c.target.as_deref_mut() {
                instrument(t, next_id);
            }
            c.args.iter_mut().for_each(|a| instrument(a, next_id));
            if !constant_cost(&c.func_name) {
                if let Some(t) = c.target.as_deref_mut() {
                    measure(t, next_id);
                }
                c.args.iter_mut().for_each(|a| measure(a, next_id));
            }
        }
        Expr::Comprehension(c) => {
            for part in [&mut c.iter_range, &mut c.accu_init, &mut c.loop_cond, &mut c.loop_step, &mut c.result] {
                instrument(part, next_id);
            }
            let cost = weight(&c.loop_cond) + body_weight(&c.loop_step) + ITERATION_STEPS;
            let slot = charge_slot(c);
            wrap(slot, cost, next_id);
        }
        Expr::List(l) => l.elements.iter_mut().for_each(|x| instrument(x, next_id)),
        Expr::Map(m) => {
            for entry in &mut m.entries {
                if let cel::common::ast::EntryExpr::MapEntry(me) = &mut entry.expr {
                    instrument(&mut me.key, next_id);
                    instrument(&mut me.value, next_id);
                }
            }
        }
        Expr::Select(s) => instrument(&mut s.operand, next_id),
        _ => {}
    }
}

/// The loop step's weight counting nested comprehensions as one (they charge themselves).
fn body_weight(e: &IdedExpr) -> u64 {
    weight(e)
}

/// Where to put the charge so that the `cel` crate's fast paths still recognise the shape:
/// a non-literal loop condition; else the guard of `c ? accu + [x] : accu` (`filter`,
/// `exists_one`); else the item of `accu + [x]` (`map`); else the right operand of
/// `accu && p` / `accu || p` (`all`, `exists`); else the whole step.
fn charge_slot(c: &mut ComprehensionExpr) -> &mut IdedExpr {
    if !matches!(c.loop_cond.expr, Expr::Literal(_)) {
        return &mut c.loop_cond;
    }
    match slot_path(c) {
        Slot::Guard => call_args(&mut c.loop_step).map(|a| &mut a[0]).expect("checked"),
        Slot::Item => match call_args(&mut c.loop_step).map(|a| &mut a[1]) {
            Some(IdedExpr { expr: Expr::List(l), .. }) => &mut l.elements[0],
            _ => unreachable!("checked"),
        },
        Slot::Right => call_args(&mut c.loop_step).map(|a| &mut a[1]).expect("checked"),
        Slot::Step => &mut c.loop_step,
    }
}

enum Slot {
    Guard,
    Item,
    Right,
    Step,
}

fn call_args(e: &mut IdedExpr) -> Option<&mut Vec<IdedExpr>> {
    match &mut e.expr {
        Expr::Call(c) => Some(&mut c.args),
        _ => None,
    }
}

fn slot_path(c: &ComprehensionExpr) -> Slot {
    let is_accu = |e: &IdedExpr| matches!(&e.expr, Expr::Ident(n) if *n == c.accu_var);
    let Expr::Call(call) = &c.loop_step.expr else { return Slot::Step };
    let name = call.func_name.as_str();
    if name == operators::CONDITIONAL && call.args.len() == 3 {
        return Slot::Guard;
    }
    if name == operators::ADD && call.args.len() == 2 && is_accu(&call.args[0]) {
        return match &call.args[1].expr {
            Expr::List(l) if !l.elements.is_empty() => Slot::Item,
            _ => Slot::Right,
        };
    }
    if (name == operators::LOGICAL_AND || name == operators::LOGICAL_OR)
        && call.args.len() == 2
        && is_accu(&call.args[0])
    {
        return Slot::Right;
    }
    Slot::Step
}

/// `x` → `__driftlint_step(cost) ? x : null`.
fn wrap(x: &mut IdedExpr, cost: u64, next_id: &mut u64) {
    let mut id = || {
        *next_id += 1;
        *next_id
    };
    let inner = std::mem::take(x);
    let tick = IdedExpr {
        id: id(),
        expr: Expr::Call(CallExpr {
            func_name: STEP_FUNCTION.to_string(),
            target: None,
            args: vec![IdedExpr {
                id: id(),
                expr: Expr::Literal(LiteralValue::Int(cel::common::types::CelInt::from(cost as i64))),
            }],
        }),
    };
    let null = IdedExpr { id: id(), expr: Expr::Literal(LiteralValue::Null) };
    *x = IdedExpr {
        id: id(),
        expr: Expr::Call(CallExpr {
            func_name: operators::CONDITIONAL.to_string(),
            target: None,
            args: vec![tick, inner, null],
        }),
    };
}

/// The largest node id of `e` (new nodes get ids above it).
pub fn max_id(e: &IdedExpr) -> u64 {
    let mut m = e.id;
    match &e.expr {
        Expr::Call(c) => {
            if let Some(t) = c.target.as_deref() {
                m = m.max(max_id(t));
            }
            for a in &c.args {
                m = m.max(max_id(a));
            }
        }
        Expr::Comprehension(c) => {
            for part in [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
                m = m.max(max_id(part));
            }
        }
        Expr::List(l) => {
            for x in &l.elements {
                m = m.max(max_id(x));
            }
        }
        Expr::Select(s) => m = m.max(max_id(&s.operand)),
        _ => {}
    }
    m
}
