//! The executor's statement level: walking a tree, writing output with provenance, `if`,
//! `with`, `range`, `template`, variables, limits. Follows Go's `text/template/exec.go`.
//!
//! Expression evaluation (pipelines, arguments, fields, calls) is in `eval`, Go's builtin
//! functions in `builtins`. Errors are built where the failing node is known (`self.at`), in
//! Go's `template: FILE:LINE:COL: executing "NAME" at <NODE>: MSG` shape.

mod builtins;
mod eval;

use crate::error::{Error, ErrorKind};
use crate::fmt::sprint_value;
use crate::funcs::Limits;
use crate::node::{Arg, Branch, Command, Node, Pipe, Span};
use crate::value::{Type, Value};
use crate::{Rendered, TemplateSet};

type R<T> = Result<T, Box<Error>>;

/// What a statement asks of its enclosing `range`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Normal,
    Break,
    Continue,
}

/// The node being evaluated, for error locations (Go's `state.at`).
#[derive(Clone, Copy)]
enum At<'t> {
    None,
    Arg(&'t Arg),
    Cmd(&'t Command),
    Pipe(&'t Pipe),
    Node(&'t Node),
}

pub(crate) struct Exec<'t> {
    set: &'t TemplateSet,
    /// Name of the template being executed.
    tmpl: &'t str,
    vars: Vec<(&'t str, Value)>,
    depth: usize,
    out: String,
    /// Where each write came from; `None` when the caller wants the text only.
    prov: Option<Vec<(usize, Span)>>,
    limits: &'t Limits,
    crs: &'t [Value],
    fuel: u64,
    /// Steps taken from the run's budget and not used yet (given back at the end).
    local: u64,
    /// When execution time was last reported to the budget.
    clock: std::time::Instant,
    /// A variable being reassigned whose single read in the pipeline may take its value
    /// instead of sharing it ([`crate::node::Pipe::reassigns_sole_use`]).
    moving: Option<&'t str>,
    at: At<'t>,
    /// Whether dot is held in an `interface {}` (a range element of a data list or map); only
    /// error messages depend on it (`can't evaluate field x in type interface {}`).
    dot_iface: bool,
}

/// Stack kept free before recursing, and the size of each extra segment: deep template
/// recursion grows the stack on the heap instead of overflowing it.
const RED_ZONE: usize = 128 * 1024;
const STACK_SEGMENT: usize = 4 * 1024 * 1024;

#[allow(clippy::result_large_err)] // errors are rare; the public type stays unboxed
pub(crate) fn execute<'t>(
    set: &'t TemplateSet,
    main: usize,
    data: &Value,
    limits: &'t Limits,
    crs: &'t [Value],
    provenance: bool,
) -> Result<Rendered, Error> {
    let (name, root) = set.tree(main);
    let mut s = Exec {
        set,
        tmpl: name,
        vars: vec![("$", data.clone())],
        depth: 0,
        // Text only: below glibc's large-chunk size (1 KiB with its header), which cannot
        // come from its per-thread cache (for programs on glibc's allocator; driftlint's
        // binary uses mimalloc); most renders of a CR template fit.
        out: String::with_capacity(if provenance { 4096 } else { 1000 }),
        prov: provenance.then(|| Vec::with_capacity(128)),
        limits,
        crs,
        fuel: limits.fuel,
        local: 0,
        clock: std::time::Instant::now(),
        moving: None,
        at: At::None,
        dot_iface: false,
    };
    let result = s.walk_list(data, root);
    limits.budget.give_back(s.local, s.clock.elapsed());
    match result {
        Ok(_) => Ok(Rendered { text: s.out, provenance: s.prov.unwrap_or_default() }),
        Err(e) => Err(*e),
    }
}

impl<'t> Exec<'t> {
    /// An execution error at the current node.
    fn fail(&self, kind: ErrorKind, message: impl Into<String>) -> Box<Error> {
        let (span, context, template_pos) = match self.at {
            At::None => (None, None, false),
            At::Arg(a) => (Some(a.span()), Some(a.to_string()), false),
            At::Cmd(c) => (Some(c.span), Some(c.to_string()), false),
            At::Pipe(p) => (Some(p.span), Some(p.to_string()), false),
            At::Node(n) => (Some(n.span()), Some(n.to_string()), true),
        };
        // Go reports a template call at its name, an action at its pipeline.
        let span = match (self.at, template_pos) {
            (At::Node(Node::Template { name_span, .. }), true) => Some(*name_span),
            (At::Node(Node::Action { pipe, .. }), true) => Some(pipe.span),
            (At::Node(Node::If(b) | Node::Range(b) | Node::With(b)), true) => Some(b.pipe.span),
            _ => span,
        };
        Box::new(Error {
            kind,
            template: self.tmpl.to_string(),
            file: span.map(|s| self.set.file_name(s.file).to_string()).unwrap_or_default(),
            line: span.map_or(0, |s| s.line as usize),
            col: span.map(|s| s.col as usize),
            context,
            message: message.into(),
            span,
        })
    }

    fn errorf(&self, message: impl Into<String>) -> Box<Error> {
        self.fail(ErrorKind::Exec, message)
    }

    fn burn(&mut self) -> R<()> {
        if self.fuel == 0 {
            return Err(self.fail(ErrorKind::Limit, "template execution exceeded its step budget"));
        }
        self.fuel -= 1;
        self.spend(1)
    }

    /// Pays `steps` from the run's budget (taken from the shared counter a chunk at a time).
    fn spend(&mut self, steps: u64) -> R<()> {
        if self.local >= steps {
            self.local -= steps;
            return Ok(());
        }
        let need = steps - self.local;
        let now = std::time::Instant::now();
        let elapsed = now - std::mem::replace(&mut self.clock, now);
        match self.limits.budget.take(need, need.max(crate::budget::CHUNK), elapsed) {
            Ok(taken) => {
                self.local = self.local + taken - steps;
                Ok(())
            }
            Err(e) => Err(self.fail(ErrorKind::Limit, e.to_string())),
        }
    }

    fn write(&mut self, text: &str, span: Span) -> R<()> {
        if text.is_empty() {
            return Ok(());
        }
        if self.out.len() + text.len() > self.limits.max_output {
            return Err(self.fail(
                ErrorKind::Limit,
                format!("template output exceeds the limit of {} bytes", self.limits.max_output),
            ));
        }
        if let Some(prov) = &mut self.prov {
            prov.push((self.out.len(), span));
        }
        self.out.push_str(text);
        Ok(())
    }

    fn walk_list(&mut self, dot: &Value, list: &'t [Node]) -> R<Flow> {
        for n in list {
            let f = self.walk(dot, n)?;
            if f != Flow::Normal {
                return Ok(f);
            }
        }
        Ok(Flow::Normal)
    }

    fn walk(&mut self, dot: &Value, node: &'t Node) -> R<Flow> {
        self.burn()?;
        self.at = At::Node(node);
        match node {
            Node::Text { span, text } => self.write(text, *span)?,
            Node::Action { span, pipe } => {
                // Declarations print nothing; their variables live until the enclosing {{end}}.
                let v = self.eval_pipeline(dot, pipe)?;
                if pipe.decl.is_empty() {
                    self.at = At::Node(node);
                    match &v {
                        Value::Invalid => self.write("<no value>", *span)?,
                        Value::String(s) => self.write(s, *span)?,
                        v => self.write(&sprint_value(v), *span)?,
                    }
                }
            }
            Node::If(b) => return self.walk_if_or_with(false, dot, b),
            Node::With(b) => return self.walk_if_or_with(true, dot, b),
            Node::Range(b) => {
                return stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.walk_range(dot, b));
            }
            Node::Template { name, pipe, .. } => {
                stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.walk_template(dot, node, name, pipe.as_ref()))?;
            }
            Node::Break(_) => return Ok(Flow::Break),
            Node::Continue(_) => return Ok(Flow::Continue),
            Node::Comment(_) => {}
        }
        Ok(Flow::Normal)
    }

    fn walk_if_or_with(&mut self, with: bool, dot: &Value, b: &'t Branch) -> R<Flow> {
        let mark = self.vars.len();
        let val = self.eval_pipeline(dot, &b.pipe)?;
        let flow = stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
            if val.truth().0 {
                if with {
                    let outer = std::mem::replace(&mut self.dot_iface, false);
                    let r = self.walk_list(&val, &b.list);
                    self.dot_iface = outer;
                    r
                } else {
                    self.walk_list(dot, &b.list)
                }
            } else if let Some(e) = &b.else_list {
                self.walk_list(dot, e)
            } else {
                Ok(Flow::Normal)
            }
        });
        self.vars.truncate(mark);
        flow
    }

    fn walk_range(&mut self, dot: &Value, r: &'t Branch) -> R<Flow> {
        let mark0 = self.vars.len();
        let result = self.range_inner(dot, r);
        self.vars.truncate(mark0);
        result.map(|_| Flow::Normal)
    }

    fn range_inner(&mut self, dot: &Value, r: &'t Branch) -> R<()> {
        let val = self.eval_pipeline(dot, &r.pipe)?;
        let mark = self.vars.len();
        let outer_iface = self.dot_iface;
        self.dot_iface = matches!(&val, Value::List(l) if l.elem == Type::Interface)
            || matches!(&val, Value::Map(m) if m.elem == Type::Interface);
        let ran = self.range_over(r, &val, mark);
        self.dot_iface = outer_iface;
        if !ran? && let Some(e) = &r.else_list {
            self.walk_list(dot, e)?;
        }
        Ok(())
    }

    /// The iterations of a range; false when there were none (the else branch runs).
    fn range_over(&mut self, r: &'t Branch, val: &Value, mark: usize) -> R<bool> {
        Ok(match val {
            Value::List(l) => {
                let items = l.items.clone();
                for (i, item) in items.iter().enumerate() {
                    if self.iteration(r, mark, Value::int(i as i64), item)? {
                        break;
                    }
                }
                !items.is_empty()
            }
            Value::Int(n, k) => {
                if r.pipe.decl.len() > 1 {
                    return Err(
                        self.errorf(format!("can't use {} to iterate over more than one variable", sprint_value(val)))
                    );
                }
                let n = if k.is_unsigned() { (*n as u64).min(i64::MAX as u64) as i64 } else { *n };
                for i in 0..n.max(0) {
                    if self.iteration(r, mark, Value::Invalid, &Value::Int(i, *k))? {
                        break;
                    }
                }
                n > 0
            }
            Value::Map(m) => {
                // Go sorts the keys once, before the first iteration.
                let entries: Vec<(String, Value)> =
                    m.entries.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                for (k, v) in &entries {
                    if self.iteration(r, mark, Value::str(k), v)? {
                        break;
                    }
                }
                !entries.is_empty()
            }
            Value::Invalid => false,
            Value::Object(o) if o.is_nil() => false,
            other => return Err(self.errorf(format!("range can't iterate over {}", sprint_value(other)))),
        })
    }

    /// One range iteration; true when the body said `{{break}}`.
    fn iteration(&mut self, r: &'t Branch, mark: usize, index: Value, elem: &Value) -> R<bool> {
        self.burn()?;
        let decl = &r.pipe.decl;
        if !decl.is_empty() {
            if r.pipe.is_assign {
                let v = if decl.len() > 1 { index.clone() } else { elem.clone() };
                self.set_var(&decl[0].1, v)?;
            } else {
                let n = self.vars.len();
                self.vars[n - 1].1 = elem.clone();
            }
        }
        if decl.len() > 1 {
            if r.pipe.is_assign {
                self.set_var(&decl[1].1, elem.clone())?;
            } else {
                let n = self.vars.len();
                self.vars[n - 2].1 = index;
            }
        }
        let flow = self.walk_list(elem, &r.list);
        self.vars.truncate(mark);
        Ok(flow? == Flow::Break)
    }

    fn walk_template(&mut self, dot: &Value, node: &'t Node, name: &str, pipe: Option<&'t Pipe>) -> R<()> {
        self.at = At::Node(node);
        let Some(tree) = self.set.lookup(name) else {
            return Err(self.errorf(format!("template {name:?} not defined")));
        };
        if self.depth >= self.limits.max_depth {
            return Err(
                self.fail(ErrorKind::Limit, format!("exceeded maximum template depth ({})", self.limits.max_depth))
            );
        }
        let dot = match pipe {
            Some(p) => self.eval_pipeline(dot, p)?,
            None => Value::Invalid,
        };
        let (tname, root) = self.set.tree(tree);
        // No dynamic scoping: the callee sees only `$`, bound to its dot.
        let vars = std::mem::replace(&mut self.vars, vec![("$", dot.clone())]);
        let outer = std::mem::replace(&mut self.tmpl, tname);
        let outer_iface = std::mem::replace(&mut self.dot_iface, false);
        self.depth += 1;
        let r = self.walk_list(&dot, root);
        self.depth -= 1;
        self.dot_iface = outer_iface;
        self.tmpl = outer;
        self.vars = vars;
        r.map(|_| ())
    }

    fn var_value(&self, name: &str) -> R<Value> {
        match self.vars.iter().rev().find(|(n, _)| *n == name) {
            Some((_, v)) => Ok(v.clone()),
            None => Err(self.errorf(format!("undefined variable: {name}"))),
        }
    }

    /// The variable's value, leaving an invalid value behind (the caller reassigns it).
    fn take_var(&mut self, name: &str) -> R<Value> {
        match self.vars.iter_mut().rev().find(|(n, _)| *n == name) {
            Some(slot) => Ok(std::mem::replace(&mut slot.1, Value::Invalid)),
            None => Err(self.errorf(format!("undefined variable: {name}"))),
        }
    }

    fn set_var(&mut self, name: &str, value: Value) -> R<()> {
        match self.vars.iter_mut().rev().find(|(n, _)| *n == name) {
            Some(slot) => {
                slot.1 = value;
                Ok(())
            }
            None => Err(self.errorf(format!("undefined variable: {name}"))),
        }
    }
}
