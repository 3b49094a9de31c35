//! Go's `text/template` with Sprig v3 and kube-compare's function library.
//!
//! This crate knows nothing about Kubernetes: it parses templates once, executes them many
//! times against [`Value`] data, maps rendered output back to template spans, and bounds the
//! work a hostile template can do. File names follow Go's own (`lex`, `parse`, `node`, `exec`,
//! `funcs`) so the two can be read side by side.

#![forbid(unsafe_code)]

pub mod fmt;
pub mod funcs;
pub mod value;

pub use funcs::{Ctx, Func, Limits, Param};
pub use value::{FuncError, IntKind, List, Map, Object, Type, Value};
