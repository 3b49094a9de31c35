//! cel-go's bindings extension (`ext.Bindings`, in Kubernetes' CEL environment):
//! `cel.bind(name, init, body)`, `body` with `name` bound to `init`'s value, evaluated once.
//!
//! Expanded as cel-go expands it: a comprehension over an empty list whose accumulator is
//! `name`, initialised to `init`, and whose result is `body` (no iteration, so nothing is
//! charged beyond the nodes).

use cel::common::ast::{ComprehensionExpr, Expr, ListExpr, LiteralValue};
use cel::parser::{Macro, MacroExprHelper};
use cel::{DeclarationError, Env, IdedExpr, ParseError};

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_macro(Macro::receiver("bind", 3, expand))
}

fn expand(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
) -> Result<Option<IdedExpr>, ParseError> {
    // Only `cel.bind`: any other `x.bind(…)` is left to the functions.
    if !matches!(target.as_ref().map(|t| &t.expr), Some(Expr::Ident(ns)) if ns == "cel") {
        return Ok(None);
    }
    let mut args = std::mem::take(args);
    let (body, init, name) = (args.pop(), args.pop(), args.pop());
    let (Some(body), Some(init), Some(name)) = (body, init, name) else { return Ok(None) };
    let Expr::Ident(var) = &name.expr else {
        return Err(helper.new_error(name.id, "cel.bind() variable names must be simple identifiers"));
    };
    let var = var.clone();
    let range = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let cond = helper.next_expr(Expr::Literal(LiteralValue::Boolean(false.into())));
    let step = helper.next_expr(Expr::Ident(var.clone()));
    Ok(Some(helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: range,
        iter_var: "#unused".to_string(),
        iter_var2: None,
        accu_var: var,
        accu_init: init,
        loop_cond: cond,
        loop_step: step,
        result: body,
    })))))
}
