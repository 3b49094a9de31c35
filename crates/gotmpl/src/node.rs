//! The parse tree, as Go's `text/template/parse/node.go` defines it, with spans.
//!
//! Nodes own plain data (strings, numbers, `&'static` function entries) and never a
//! [`crate::Value`]: a parsed template set is `Send + Sync` and shared across threads. `Display`
//! gives Go's `Node.String()` forms, which Go prints in `executing "x" at <…>` error contexts.

use std::fmt;

use crate::funcs::Func;

/// Where a node came from: a byte range in one source file, with the 1-based line and Go's
/// 0-based byte column of its start (what Go's `ErrorContext` prints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Index of the source file in the template set (see `TemplateSet::file_name`).
    pub file: u32,
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub col: u32,
}

/// Go's builtin functions (`text/template/funcs.go`), except `slice`, which kube-compare's
/// function map shadows with Sprig's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    And,
    Or,
    Not,
    Call,
    Html,
    Index,
    Slice,
    Js,
    Len,
    Print,
    Printf,
    Println,
    UrlQuery,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Builtin {
    pub fn lookup(name: &str) -> Option<Builtin> {
        Some(match name {
            "and" => Builtin::And,
            "or" => Builtin::Or,
            "not" => Builtin::Not,
            "call" => Builtin::Call,
            "html" => Builtin::Html,
            "index" => Builtin::Index,
            "slice" => Builtin::Slice,
            "js" => Builtin::Js,
            "len" => Builtin::Len,
            "print" => Builtin::Print,
            "printf" => Builtin::Printf,
            "println" => Builtin::Println,
            "urlquery" => Builtin::UrlQuery,
            "eq" => Builtin::Eq,
            "ne" => Builtin::Ne,
            "lt" => Builtin::Lt,
            "le" => Builtin::Le,
            "gt" => Builtin::Gt,
            "ge" => Builtin::Ge,
            _ => return None,
        })
    }
}

/// A function name resolved at parse time (text/template rejects unknown names while parsing).
/// The function map wins over builtins, as in Go's `findFunction`.
#[derive(Clone, Copy)]
pub enum FuncRef {
    Builtin(Builtin),
    Table(&'static Func),
}

impl fmt::Debug for FuncRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FuncRef::Builtin(b) => write!(f, "Builtin({b:?})"),
            FuncRef::Table(t) => write!(f, "Table({})", t.name),
        }
    }
}

/// A number literal with every interpretation Go's `NumberNode` records.
#[derive(Clone, Debug, Default)]
pub struct Number {
    pub text: String,
    pub is_int: bool,
    pub is_uint: bool,
    pub is_float: bool,
    pub is_complex: bool,
    pub int64: i64,
    pub uint64: u64,
    pub float64: f64,
    pub complex: (f64, f64),
}

/// An operand: one word of a command.
#[derive(Clone, Debug)]
pub enum Arg {
    /// `.a.b`
    Field {
        span: Span,
        idents: Vec<String>,
    },
    /// `$x` or `$x.a.b` (the first ident includes the `$`).
    Variable {
        span: Span,
        idents: Vec<String>,
    },
    /// `(pipe).a.b`, `$x` never (that is a `Variable`).
    Chain {
        span: Span,
        node: Box<Arg>,
        fields: Vec<String>,
    },
    Ident {
        span: Span,
        name: String,
        func: FuncRef,
    },
    Dot(Span),
    Nil(Span),
    Bool(Span, bool),
    Number(Span, Box<Number>),
    /// `quoted` is the source form, `text` the value.
    Str {
        span: Span,
        quoted: String,
        text: String,
    },
    Pipe(Box<Pipe>),
}

impl Arg {
    pub fn span(&self) -> Span {
        match self {
            Arg::Field { span, .. }
            | Arg::Variable { span, .. }
            | Arg::Chain { span, .. }
            | Arg::Ident { span, .. }
            | Arg::Str { span, .. } => *span,
            Arg::Dot(s) | Arg::Nil(s) | Arg::Bool(s, _) | Arg::Number(s, _) => *s,
            Arg::Pipe(p) => p.span,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Command {
    pub span: Span,
    pub args: Vec<Arg>,
}

#[derive(Clone, Debug)]
pub struct Pipe {
    pub span: Span,
    pub is_assign: bool,
    /// Declared or assigned variables, with their `$`.
    pub decl: Vec<(Span, String)>,
    pub cmds: Vec<Command>,
}

/// `if`, `range` and `with`.
#[derive(Clone, Debug)]
pub struct Branch {
    pub span: Span,
    pub pipe: Pipe,
    pub list: Vec<Node>,
    pub else_list: Option<Vec<Node>>,
}

/// A statement of a template body.
#[derive(Clone, Debug)]
pub enum Node {
    Text {
        span: Span,
        text: String,
    },
    Action {
        span: Span,
        pipe: Pipe,
    },
    If(Box<Branch>),
    Range(Box<Branch>),
    With(Box<Branch>),
    /// `span` covers the action; `name_span` the name string, where Go reports errors.
    Template {
        span: Span,
        name_span: Span,
        name: String,
        pipe: Option<Pipe>,
    },
    Break(Span),
    Continue(Span),
    Comment(Span),
}

impl Node {
    pub fn span(&self) -> Span {
        match self {
            Node::Text { span, .. } | Node::Action { span, .. } | Node::Template { span, .. } => *span,
            Node::If(b) | Node::Range(b) | Node::With(b) => b.span,
            Node::Break(s) | Node::Continue(s) | Node::Comment(s) => *s,
        }
    }
}

/// Go's `parse.IsEmptyTree`: only whitespace text and comments.
impl Pipe {
    /// Whether this is `$x = …` where the pipeline reads `$x` exactly once, as a bare variable
    /// (`append $x 1`, not `$x.a` nor `(len $x)` twice), and declares nothing inside: then the
    /// old value is dead once read and the executor may move it instead of sharing it (so
    /// `append` can grow the list in place).
    pub(crate) fn reassigns_sole_use(&self) -> Option<&str> {
        let [(_, name)] = self.decl.as_slice() else { return None };
        if !self.is_assign {
            return None;
        }
        let mut uses = 0;
        let mut clean = true;
        fn visit(args: &[Arg], name: &str, uses: &mut usize, clean: &mut bool) {
            for a in args {
                match a {
                    Arg::Variable { idents, .. } if idents[0] == name => {
                        *uses += if idents.len() == 1 { 1 } else { 2 };
                    }
                    Arg::Pipe(p) => {
                        *clean &= p.decl.is_empty();
                        p.cmds.iter().for_each(|c| visit(&c.args, name, uses, clean));
                    }
                    Arg::Chain { node, .. } => visit(std::slice::from_ref(node), name, uses, clean),
                    _ => {}
                }
            }
        }
        self.cmds.iter().for_each(|c| visit(&c.args, name, &mut uses, &mut clean));
        (uses == 1 && clean).then_some(name.as_str())
    }
}

/// Whether any action in `list` (nested bodies included) names one of the table functions
/// `names`. Function names are resolved at parse time and cannot come from data, so this is
/// every function an execution of `list` can call directly.
pub fn calls_any(list: &[Node], names: &[&str]) -> bool {
    fn in_args(args: &[Arg], names: &[&str]) -> bool {
        args.iter().any(|a| match a {
            Arg::Ident { func: FuncRef::Table(f), .. } => names.contains(&f.name),
            Arg::Pipe(p) => in_pipe(p, names),
            Arg::Chain { node, .. } => in_args(std::slice::from_ref(node), names),
            _ => false,
        })
    }
    fn in_pipe(p: &Pipe, names: &[&str]) -> bool {
        p.cmds.iter().any(|c| in_args(&c.args, names))
    }
    list.iter().any(|n| match n {
        Node::Action { pipe, .. } => in_pipe(pipe, names),
        Node::If(b) | Node::Range(b) | Node::With(b) => {
            in_pipe(&b.pipe, names)
                || calls_any(&b.list, names)
                || b.else_list.as_deref().is_some_and(|e| calls_any(e, names))
        }
        Node::Template { pipe, .. } => pipe.as_ref().is_some_and(|p| in_pipe(p, names)),
        Node::Text { .. } | Node::Break(_) | Node::Continue(_) | Node::Comment(_) => false,
    })
}

/// The calls of the table functions `names` in `list` (nested bodies included), by their
/// first two arguments: `Some` of the distinct constant `(first, second)` string pairs
/// (empty when none is called), `None` when a call's first two arguments are not both
/// non-empty string constants or a name appears anywhere but as a command's function (what
/// an analysis cannot follow). Function names are resolved at parse time, so this sees every
/// direct call (see [`calls_any`]).
pub fn constant_call_args(list: &[Node], names: &[&str]) -> Option<Vec<(String, String)>> {
    fn named(a: &Arg, names: &[&str]) -> bool {
        matches!(a, Arg::Ident { func: FuncRef::Table(f), .. } if names.contains(&f.name))
    }
    fn constant(a: Option<&Arg>) -> Option<&str> {
        match a {
            Some(Arg::Str { text, .. }) if !text.is_empty() => Some(text),
            _ => None,
        }
    }
    fn in_args(args: &[Arg], names: &[&str], out: &mut Vec<(String, String)>) -> Option<()> {
        for a in args {
            match a {
                _ if named(a, names) => return None,
                Arg::Pipe(p) => in_pipe(p, names, out)?,
                Arg::Chain { node, .. } => in_args(std::slice::from_ref(node), names, out)?,
                _ => {}
            }
        }
        Some(())
    }
    fn in_pipe(p: &Pipe, names: &[&str], out: &mut Vec<(String, String)>) -> Option<()> {
        for c in &p.cmds {
            match c.args.first() {
                Some(f) if named(f, names) => {
                    let pair = (constant(c.args.get(1))?, constant(c.args.get(2))?);
                    if !out.iter().any(|(a, k)| (a.as_str(), k.as_str()) == pair) {
                        out.push((pair.0.to_owned(), pair.1.to_owned()));
                    }
                    in_args(&c.args[1..], names, out)?;
                }
                _ => in_args(&c.args, names, out)?,
            }
        }
        Some(())
    }
    fn in_list(list: &[Node], names: &[&str], out: &mut Vec<(String, String)>) -> Option<()> {
        for n in list {
            match n {
                Node::Action { pipe, .. } => in_pipe(pipe, names, out)?,
                Node::If(b) | Node::Range(b) | Node::With(b) => {
                    in_pipe(&b.pipe, names, out)?;
                    in_list(&b.list, names, out)?;
                    if let Some(e) = b.else_list.as_deref() {
                        in_list(e, names, out)?;
                    }
                }
                Node::Template { pipe: Some(p), .. } => in_pipe(p, names, out)?,
                _ => {}
            }
        }
        Some(())
    }
    let mut out = Vec::new();
    in_list(list, names, &mut out)?;
    Some(out)
}

/// Whether the text at `at` (within one text node of `list`, as an execution's provenance
/// gives it) is output only when a condition on the data holds: inside an `if` or a `with`
/// (either branch) or a `range`'s `else`. `under`: `list` itself is such a branch.
pub fn conditional_text(list: &[Node], at: Span, under: bool) -> bool {
    let within = |span: &Span| span.file == at.file && span.start <= at.start && at.end <= span.end;
    list.iter().any(|n| match n {
        Node::Text { span, .. } => under && within(span),
        Node::If(b) | Node::With(b) => {
            within(&b.span)
                && (conditional_text(&b.list, at, true)
                    || b.else_list.as_deref().is_some_and(|l| conditional_text(l, at, true)))
        }
        Node::Range(b) => {
            within(&b.span)
                && (conditional_text(&b.list, at, under)
                    || b.else_list.as_deref().is_some_and(|l| conditional_text(l, at, true)))
        }
        _ => false,
    })
}

pub fn is_empty_tree(list: &[Node]) -> bool {
    list.iter().all(|n| match n {
        Node::Text { text, .. } => text.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\u{b}').is_empty(),
        Node::Comment(_) => true,
        _ => false,
    })
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Field { idents, .. } => {
                for i in idents {
                    write!(f, ".{i}")?;
                }
                Ok(())
            }
            Arg::Variable { idents, .. } => f.write_str(&idents.join(".")),
            Arg::Chain { node, fields, .. } => {
                match node.as_ref() {
                    Arg::Pipe(p) => write!(f, "({p})")?,
                    n => write!(f, "{n}")?,
                }
                for i in fields {
                    write!(f, ".{i}")?;
                }
                Ok(())
            }
            Arg::Ident { name, .. } => f.write_str(name),
            Arg::Dot(_) => f.write_str("."),
            Arg::Nil(_) => f.write_str("nil"),
            Arg::Bool(_, b) => write!(f, "{b}"),
            Arg::Number(_, n) => f.write_str(&n.text),
            Arg::Str { quoted, .. } => f.write_str(quoted),
            Arg::Pipe(p) => write!(f, "{p}"),
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            match a {
                Arg::Pipe(p) => write!(f, "({p})")?,
                a => write!(f, "{a}")?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.decl.is_empty() {
            let names: Vec<&str> = self.decl.iter().map(|(_, n)| n.as_str()).collect();
            write!(f, "{} {} ", names.join(", "), if self.is_assign { "=" } else { ":=" })?;
        }
        for (i, c) in self.cmds.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

fn write_list(f: &mut fmt::Formatter<'_>, list: &[Node]) -> fmt::Result {
    for n in list {
        write!(f, "{n}")?;
    }
    Ok(())
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let branch = |f: &mut fmt::Formatter<'_>, kw: &str, b: &Branch| -> fmt::Result {
            write!(f, "{{{{{kw} {}}}}}", b.pipe)?;
            write_list(f, &b.list)?;
            if let Some(e) = &b.else_list {
                f.write_str("{{else}}")?;
                write_list(f, e)?;
            }
            f.write_str("{{end}}")
        };
        match self {
            Node::Text { text, .. } => write!(f, "{text:?}"),
            Node::Action { pipe, .. } => write!(f, "{{{{{pipe}}}}}"),
            Node::If(b) => branch(f, "if", b),
            Node::Range(b) => branch(f, "range", b),
            Node::With(b) => branch(f, "with", b),
            Node::Template { name, pipe: None, .. } => write!(f, "{{{{template {name:?}}}}}"),
            Node::Template { name, pipe: Some(p), .. } => write!(f, "{{{{template {name:?} {p}}}}}"),
            Node::Break(_) => f.write_str("{{break}}"),
            Node::Continue(_) => f.write_str("{{continue}}"),
            Node::Comment(_) => f.write_str("{{/* */}}"),
        }
    }
}
