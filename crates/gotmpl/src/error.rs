//! The engine's error type, displayed exactly as Go's `text/template` words it.

use crate::node::Span;

/// What failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A file did not parse (including unknown functions and undefined variables).
    Parse,
    /// `Execute` failed: a wrong argument, a function error, a nil pointer.
    Exec,
    /// A resource limit (fuel, template depth, output size) stopped execution.
    Limit,
    /// kube-compare's `doNotMatch`: the template asks not to be matched with this CR.
    DoNotMatch,
}

/// A parse or execution error with its location.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}", self.render())]
pub struct Error {
    pub kind: ErrorKind,
    /// The template being executed (`executing "x"`); for parse errors, the file.
    pub template: String,
    /// The file holding the location (Go's `ParseName`).
    pub file: String,
    /// 1-based line; 0 when unknown.
    pub line: usize,
    /// Go's 0-based byte column, for execution errors located at a node.
    pub col: Option<usize>,
    /// Go's `Node.String()` of the node being evaluated (`at <…>`).
    pub context: Option<String>,
    /// The detail, e.g. `error calling eq: incompatible types for comparison`.
    pub message: String,
    /// The node's span, when known.
    pub span: Option<Span>,
}

impl Error {
    pub(crate) fn parse(file: &str, line: usize, message: String) -> Error {
        Error {
            kind: ErrorKind::Parse,
            template: file.to_string(),
            file: file.to_string(),
            line,
            col: None,
            context: None,
            message,
            span: None,
        }
    }

    fn render(&self) -> String {
        match (self.kind, self.col, &self.context) {
            (ErrorKind::Parse, ..) => format!("template: {}:{}: {}", self.file, self.line, self.message),
            (_, Some(col), Some(ctx)) => format!(
                "template: {}:{}:{}: executing {:?} at <{}>: {}",
                self.file, self.line, col, self.template, ctx, self.message
            ),
            _ => format!("template: {}: {}", self.template, self.message),
        }
    }
}
