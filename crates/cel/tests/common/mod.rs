//! What the CEL test tables share.

use driftlint_cel::value_untyped;
use serde_json::json;

/// An expression's value as the tables write it: the value shown, `error: …` for an
/// evaluation error, `compile error: …` for one that does not compile.
pub fn value(expr: &str) -> String {
    match value_untyped(expr, &json!({})) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => format!("error: {e}"),
        Err(e) => format!("compile error: {e:?}"),
    }
}
