//! The parser: tokens → trees, following Go's `text/template/parse/parse.go`.
//!
//! One call parses one file into its tree set: the file's top-level tree (named after the
//! file) plus every `{{define}}`/`{{block}}`, with Go's rule that a second non-empty definition
//! of a name in the same file is an error while an empty one never replaces anything. Function
//! names are resolved here, as Go does (an unknown function is a parse error even in a branch
//! that never runs); variables are checked for declaration here too. Merging the trees of
//! several files is the template set's job (`lib.rs`), not this module's.

use crate::funcs;
use crate::lex::{self, Tok, Token};
use crate::node::{Arg, Branch, Builtin, Command, FuncRef, Node, Number, Pipe, Span, is_empty_tree};
use crate::strconv;

/// A parse error in Go's shape: `template: NAME:LINE: MESSAGE`.
#[derive(Clone, Debug)]
pub struct ParseError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// The trees of one file, in definition order; the file's own tree is among them.
pub type TreeSet = Vec<(String, Vec<Node>)>;

/// Nesting of parentheses and control structures beyond which parsing stops, so that hostile
/// input cannot exhaust the stack (Go has no such limit; real templates nest a few levels).
const MAX_NESTING: usize = 1000;

struct Parser<'a> {
    src: &'a str,
    name: &'a str,
    file: u32,
    toks: Vec<Token>,
    idx: usize,
    line: usize,
    line_starts: Vec<usize>,
    vars: Vec<String>,
    range_depth: usize,
    nesting: usize,
    set: TreeSet,
}

type PResult<T> = Result<T, ParseError>;

/// Parses one file named `name` (the index `file` goes into spans).
pub fn parse_file(name: &str, src: &str, file: u32) -> Result<TreeSet, ParseError> {
    let mut line_starts = vec![0];
    line_starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
    let mut p = Parser {
        src,
        name,
        file,
        toks: lex::lex(src),
        idx: 0,
        line: 1,
        line_starts,
        vars: vec!["$".into()],
        range_depth: 0,
        nesting: 0,
        set: Vec::new(),
    };
    let root = p.parse_top()?;
    p.add(name.to_string(), root)?;
    Ok(p.set)
}

/// End of an item list: `{{end}}` or `{{else}}` (with its span).
enum ListEnd {
    End(Span),
    Else(Span),
}

impl<'a> Parser<'a> {
    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err(ParseError { file: self.name.to_string(), line: self.line, message: msg.into() })
    }

    fn span(&self, start: usize, end: usize) -> Span {
        let line = self.line_starts.partition_point(|&s| s <= start);
        let col = start - self.line_starts[line - 1];
        Span { file: self.file, start: start as u32, end: end as u32, line: line as u32, col: col as u32 }
    }

    fn tok_span(&self, t: &Token) -> Span {
        self.span(t.start, t.end)
    }

    fn next(&mut self) -> Token {
        let t = self.toks[self.idx.min(self.toks.len() - 1)].clone();
        if self.idx < self.toks.len() {
            self.idx += 1;
        }
        self.line = t.line;
        if t.kind == Tok::Error {
            // Lexical errors surface as soon as the parser reaches them.
            self.idx = self.toks.len();
        }
        t
    }

    fn backup(&mut self) {
        self.idx -= 1;
    }

    fn peek(&self) -> &Token {
        &self.toks[self.idx.min(self.toks.len() - 1)]
    }

    fn next_non_space(&mut self) -> Token {
        loop {
            let t = self.next();
            if t.kind != Tok::Space {
                return t;
            }
        }
    }

    fn peek_non_space(&mut self) -> Token {
        let t = self.next_non_space();
        if t.kind != Tok::Error {
            self.backup();
        } else {
            self.idx = self.toks.len() - 1;
        }
        t
    }

    fn unexpected<T>(&self, t: &Token, context: &str) -> PResult<T> {
        if t.kind == Tok::Error {
            return self.err(t.msg.clone().unwrap_or_default());
        }
        self.err(format!("unexpected {} in {context}", t.describe(self.src)))
    }

    fn expect(&mut self, kind: Tok, context: &str) -> PResult<Token> {
        let t = self.next_non_space();
        if t.kind != kind {
            return self.unexpected(&t, context);
        }
        Ok(t)
    }

    /// Go's `Tree.add`: a non-empty tree may not replace a non-empty one of the same file.
    fn add(&mut self, name: String, root: Vec<Node>) -> PResult<()> {
        match self.set.iter_mut().find(|(n, _)| *n == name) {
            None => self.set.push((name, root)),
            Some((_, existing)) => {
                if is_empty_tree(existing) {
                    *existing = root;
                } else if !is_empty_tree(&root) {
                    return self.err(format!("template: multiple definition of template {name:?}"));
                }
            }
        }
        Ok(())
    }

    fn parse_top(&mut self) -> PResult<Vec<Node>> {
        let mut root = Vec::new();
        while self.peek().kind != Tok::Eof {
            if self.peek().kind == Tok::LeftDelim {
                let save = self.idx;
                let delim = self.next();
                if self.next_non_space().kind == Tok::Define {
                    self.parse_definition(delim.start)?;
                    continue;
                }
                self.idx = save;
            }
            match self.text_or_action()? {
                Ok(n) => root.push(n),
                Err(ListEnd::End(_)) => return self.err("unexpected {{end}}"),
                Err(ListEnd::Else(_)) => return self.err("unexpected {{else}}"),
            }
        }
        Ok(root)
    }

    /// Runs `f` as the parse of a fresh tree (`define` or `block` body): variables reset to
    /// `$`, not inside any range.
    fn in_new_tree<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        let vars = std::mem::replace(&mut self.vars, vec!["$".into()]);
        let depth = std::mem::replace(&mut self.range_depth, 0);
        let r = f(self);
        self.vars = vars;
        self.range_depth = depth;
        r
    }

    fn parse_definition(&mut self, _start: usize) -> PResult<()> {
        const CONTEXT: &str = "define clause";
        let t = self.next_non_space();
        if !matches!(t.kind, Tok::String | Tok::RawString) {
            return self.unexpected(&t, CONTEXT);
        }
        let name = match strconv::unquote(t.text(self.src)) {
            Ok(n) => n,
            Err(e) => return self.err(e),
        };
        self.expect(Tok::RightDelim, CONTEXT)?;
        let root = self.in_new_tree(|p| {
            let (list, end) = p.item_list()?;
            if let ListEnd::Else(_) = end {
                return p.err(format!("unexpected {{{{else}}}} in {CONTEXT}"));
            }
            Ok(list)
        })?;
        self.add(name, root)
    }

    /// Items up to `{{end}}` or `{{else}}`.
    fn item_list(&mut self) -> PResult<(Vec<Node>, ListEnd)> {
        let mut list = Vec::new();
        while self.peek_non_space().kind != Tok::Eof {
            if self.peek().kind == Tok::Error {
                let t = self.next();
                return self.unexpected(&t, "input");
            }
            match self.text_or_action()? {
                Ok(n) => list.push(n),
                Err(end) => return Ok((list, end)),
            }
        }
        self.err("unexpected EOF")
    }

    fn text_or_action(&mut self) -> PResult<Result<Node, ListEnd>> {
        let t = self.next_non_space();
        match t.kind {
            Tok::Text => Ok(Ok(Node::Text { span: self.tok_span(&t), text: t.text(self.src).to_string() })),
            Tok::LeftDelim => self.action(t.start),
            _ => self.unexpected(&t, "input"),
        }
    }

    fn action(&mut self, start: usize) -> PResult<Result<Node, ListEnd>> {
        let t = self.next_non_space();
        let node = match t.kind {
            Tok::Block => self.block_control(start)?,
            Tok::Break | Tok::Continue => {
                let is_break = t.kind == Tok::Break;
                let what = if is_break { "{{break}}" } else { "{{continue}}" };
                let end = self.next_non_space();
                if end.kind != Tok::RightDelim {
                    return self.unexpected(&end, what);
                }
                if self.range_depth == 0 {
                    return self.err(format!("{what} outside {{{{range}}}}"));
                }
                let span = self.span(start, end.end);
                if is_break { Node::Break(span) } else { Node::Continue(span) }
            }
            Tok::Else => {
                // "{{else if" and "{{else with" leave the keyword pending for the caller.
                let peek = self.peek_non_space();
                if matches!(peek.kind, Tok::If | Tok::With) {
                    return Ok(Err(ListEnd::Else(self.span(start, peek.start))));
                }
                let end = self.expect(Tok::RightDelim, "else")?;
                return Ok(Err(ListEnd::Else(self.span(start, end.end))));
            }
            Tok::End => {
                let end = self.expect(Tok::RightDelim, "end")?;
                return Ok(Err(ListEnd::End(self.span(start, end.end))));
            }
            Tok::If => Node::If(Box::new(self.control("if", start)?)),
            Tok::Range => Node::Range(Box::new(self.control("range", start)?)),
            Tok::With => Node::With(Box::new(self.control("with", start)?)),
            Tok::Template => self.template_control(start)?,
            _ => {
                self.backup();
                let pipe = self.pipeline("command", Tok::RightDelim)?;
                let end = self.toks[self.idx - 1].end;
                Node::Action { span: self.span(start, end), pipe }
            }
        };
        Ok(Ok(node))
    }

    fn nest(&mut self) -> PResult<()> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return self.err(format!("template nests more than {MAX_NESTING} levels"));
        }
        Ok(())
    }

    /// `if`, `range`, `with` after the keyword (Go's `parseControl`).
    fn control(&mut self, context: &str, start: usize) -> PResult<Branch> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.control_inner(context, start))
    }

    fn control_inner(&mut self, context: &str, start: usize) -> PResult<Branch> {
        self.nest()?;
        let nvars = self.vars.len();
        let pipe = self.pipeline(context, Tok::RightDelim)?;
        if context == "range" {
            self.range_depth += 1;
        }
        let (list, end) = self.item_list()?;
        if context == "range" {
            self.range_depth -= 1;
        }
        let mut else_list = None;
        let mut end_pos = match &end {
            ListEnd::End(s) | ListEnd::Else(s) => s.end as usize,
        };
        if let ListEnd::Else(else_span) = end {
            let chained = match (context, self.peek().kind) {
                ("if", Tok::If) => Some("if"),
                ("with", Tok::With) => Some("with"),
                _ => None,
            };
            if let Some(kw) = chained {
                // `{{else if x}}…{{end}}` is `{{else}}{{if x}}…{{end}}{{end}}`: the inner
                // control consumes the single {{end}}.
                self.next();
                let inner = self.control(kw, else_span.start as usize)?;
                end_pos = inner.span.end as usize;
                let node = if kw == "if" { Node::If(Box::new(inner)) } else { Node::With(Box::new(inner)) };
                else_list = Some(vec![node]);
            } else {
                let (list, end) = self.item_list()?;
                match end {
                    ListEnd::End(s) => end_pos = s.end as usize,
                    ListEnd::Else(_) => return self.err("expected end; found {{else}}"),
                }
                else_list = Some(list);
            }
        }
        self.vars.truncate(nvars);
        self.nesting -= 1;
        Ok(Branch { span: self.span(start, end_pos), pipe, list, else_list })
    }

    fn template_name(&mut self, context: &str) -> PResult<(Token, String)> {
        let t = self.next_non_space();
        if !matches!(t.kind, Tok::String | Tok::RawString) {
            return self.unexpected(&t, context);
        }
        match strconv::unquote(t.text(self.src)) {
            Ok(n) => Ok((t, n)),
            Err(e) => self.err(e),
        }
    }

    fn template_control(&mut self, start: usize) -> PResult<Node> {
        const CONTEXT: &str = "template clause";
        let (t, name) = self.template_name(CONTEXT)?;
        let pipe = if self.next_non_space().kind != Tok::RightDelim {
            self.backup();
            Some(self.pipeline(CONTEXT, Tok::RightDelim)?)
        } else {
            None
        };
        let end = self.toks[self.idx - 1].end;
        Ok(Node::Template { span: self.span(start, end), name_span: self.tok_span(&t), name, pipe })
    }

    /// `{{block "name" pipe}}body{{end}}`: defines `name` and calls it here.
    fn block_control(&mut self, start: usize) -> PResult<Node> {
        const CONTEXT: &str = "block clause";
        let (t, name) = self.template_name(CONTEXT)?;
        let pipe = self.pipeline(CONTEXT, Tok::RightDelim)?;
        let head_end = self.toks[self.idx - 1].end;
        let body = self.in_new_tree(|p| {
            let (list, end) = p.item_list()?;
            if let ListEnd::Else(_) = end {
                return p.err(format!("unexpected {{{{else}}}} in {CONTEXT}"));
            }
            Ok(list)
        })?;
        self.add(name.clone(), body)?;
        Ok(Node::Template { span: self.span(start, head_end), name_span: self.tok_span(&t), name, pipe: Some(pipe) })
    }

    fn pipeline(&mut self, context: &str, end: Tok) -> PResult<Pipe> {
        let first = self.peek_non_space();
        let mut pipe = Pipe { span: self.tok_span(&first), is_assign: false, decl: Vec::new(), cmds: Vec::new() };
        // Declarations: `$x :=`, `$x =`, `$i, $v :=` (range only).
        loop {
            let v = self.peek_non_space();
            if v.kind != Tok::Variable {
                break;
            }
            let save = self.idx;
            self.next_non_space();
            let after = self.peek().clone();
            let next = self.peek_non_space();
            match next.kind {
                Tok::Assign | Tok::Declare => {
                    pipe.is_assign = next.kind == Tok::Assign;
                    self.next_non_space();
                    let name = v.text(self.src).to_string();
                    pipe.decl.push((self.tok_span(&v), name.clone()));
                    self.vars.push(name);
                    break;
                }
                Tok::Char if next.text(self.src) == "," => {
                    self.next_non_space();
                    let name = v.text(self.src).to_string();
                    pipe.decl.push((self.tok_span(&v), name.clone()));
                    self.vars.push(name);
                    if context == "range" && pipe.decl.len() < 2 {
                        match self.peek_non_space().kind {
                            Tok::Variable | Tok::RightDelim | Tok::RightParen => continue,
                            _ => return self.err("range can only initialize variables"),
                        }
                    }
                    return self.err(format!("too many declarations in {context}"));
                }
                _ => {
                    let _ = after;
                    self.idx = save;
                    break;
                }
            }
        }
        loop {
            let t = self.next_non_space();
            match t.kind {
                k if k == end => {
                    if pipe.cmds.is_empty() {
                        return self.err(format!("missing value for {context}"));
                    }
                    for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
                        if matches!(
                            c.args[0],
                            Arg::Bool(..) | Arg::Dot(_) | Arg::Nil(_) | Arg::Number(..) | Arg::Str { .. }
                        ) {
                            return self.err(format!("non executable command in pipeline stage {}", i + 1));
                        }
                    }
                    pipe.span.end = t.start as u32;
                    return Ok(pipe);
                }
                Tok::Bool
                | Tok::CharConstant
                | Tok::Complex
                | Tok::Dot
                | Tok::Field
                | Tok::Identifier
                | Tok::Number
                | Tok::Nil
                | Tok::RawString
                | Tok::String
                | Tok::Variable
                | Tok::LeftParen => {
                    self.backup();
                    let c = self.command()?;
                    pipe.cmds.push(c);
                }
                _ => return self.unexpected(&t, context),
            }
        }
    }

    fn command(&mut self) -> PResult<Command> {
        let first = self.peek_non_space();
        let mut cmd = Command { span: self.tok_span(&first), args: Vec::new() };
        loop {
            self.peek_non_space();
            if let Some(op) = self.operand()? {
                cmd.args.push(op);
            }
            let t = self.next();
            match t.kind {
                Tok::Space => continue,
                Tok::RightDelim | Tok::RightParen => self.backup(),
                Tok::Pipe => {}
                _ => return self.unexpected(&t, "operand"),
            }
            cmd.span.end = t.start as u32;
            break;
        }
        if cmd.args.is_empty() {
            return self.err("empty command");
        }
        Ok(cmd)
    }

    fn operand(&mut self) -> PResult<Option<Arg>> {
        let Some(node) = self.term()? else { return Ok(None) };
        if self.peek().kind != Tok::Field {
            return Ok(Some(node));
        }
        let mut fields = Vec::new();
        let mut end = node.span().end;
        // Go positions the combined node at its first chained field (`.x` of `.a.x`), which
        // is where its error messages point; the span still ends at the last field.
        let chain_start = self.peek().start;
        while self.peek().kind == Tok::Field {
            let f = self.next();
            fields.push(f.text(self.src)[1..].to_string());
            end = f.end as u32;
        }
        let mut span = self.span(chain_start, end as usize);
        span.end = end;
        Ok(Some(match node {
            Arg::Field { mut idents, .. } => {
                idents.extend(fields);
                Arg::Field { span, idents }
            }
            Arg::Variable { mut idents, .. } => {
                idents.extend(fields);
                Arg::Variable { span, idents }
            }
            Arg::Bool(..) | Arg::Str { .. } | Arg::Number(..) | Arg::Nil(_) | Arg::Dot(_) => {
                return self.err(format!("unexpected . after term {:?}", node.to_string()));
            }
            node => Arg::Chain { span, node: Box::new(node), fields },
        }))
    }

    fn term(&mut self) -> PResult<Option<Arg>> {
        let t = self.next_non_space();
        let span = self.tok_span(&t);
        let text = t.text(self.src);
        Ok(Some(match t.kind {
            Tok::Identifier => {
                // The function map is consulted first, as Go's findFunction does.
                let func = match (funcs::lookup(text), Builtin::lookup(text)) {
                    (Some(f), _) => FuncRef::Table(f),
                    (None, Some(b)) if b != Builtin::Slice => FuncRef::Builtin(b),
                    _ => return self.err(format!("function {text:?} not defined")),
                };
                Arg::Ident { span, name: text.to_string(), func }
            }
            Tok::Dot => Arg::Dot(span),
            Tok::Nil => Arg::Nil(span),
            Tok::Variable => {
                if !self.vars.iter().any(|v| v == text) {
                    return self.err(format!("undefined variable {text:?}"));
                }
                Arg::Variable { span, idents: vec![text.to_string()] }
            }
            Tok::Field => Arg::Field { span, idents: vec![text[1..].to_string()] },
            Tok::Bool => Arg::Bool(span, text == "true"),
            Tok::CharConstant | Tok::Complex | Tok::Number => match new_number(text, t.kind) {
                Ok(n) => Arg::Number(span, Box::new(n)),
                Err(e) => return self.err(e),
            },
            Tok::LeftParen => {
                self.nest()?;
                let mut p = stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
                    self.pipeline("parenthesized pipeline", Tok::RightParen)
                })?;
                self.nesting -= 1;
                p.span.start = t.start as u32;
                p.span.end = self.toks[self.idx - 1].end as u32;
                Arg::Pipe(Box::new(p))
            }
            Tok::String | Tok::RawString => match strconv::unquote(text) {
                Ok(s) => Arg::Str { span, quoted: text.to_string(), text: s },
                Err(e) => return self.err(e),
            },
            _ => {
                self.backup();
                return Ok(None);
            }
        }))
    }
}

/// Go's `Tree.newNumber`: every interpretation of a number literal.
pub fn new_number(text: &str, kind: Tok) -> Result<Number, String> {
    let mut n = Number { text: text.to_string(), ..Number::default() };
    match kind {
        Tok::CharConstant => {
            let (piece, tail) = strconv::unquote_char(&text[1..], '\'')?;
            if tail != "'" {
                return Err(format!("malformed character constant: {text}"));
            }
            let r = match piece {
                strconv::Piece::Char(c) => c as i64,
                strconv::Piece::Byte(b) => b as i64,
            };
            n.int64 = r;
            n.uint64 = r as u64;
            n.float64 = r as f64;
            n.is_int = true;
            n.is_uint = true;
            n.is_float = true;
            return Ok(n);
        }
        Tok::Complex => {
            let split = text
                .char_indices()
                .skip(1)
                .filter(|&(i, c)| {
                    (c == '+' || c == '-') && !matches!(text.as_bytes()[i - 1], b'e' | b'E' | b'p' | b'P')
                })
                .map(|(i, _)| i)
                .last()
                .ok_or_else(|| format!("illegal number syntax: {text:?}"))?;
            let re = strconv::parse_float(&text[..split]).ok_or_else(|| format!("expected integer; found {text}"))?;
            let im = strconv::parse_float(&text[split..text.len() - 1])
                .ok_or_else(|| format!("illegal number syntax: {text:?}"))?;
            n.is_complex = true;
            n.complex = (re, im);
            simplify_complex(&mut n);
            return Ok(n);
        }
        _ => {}
    }
    if let Some(body) = text.strip_suffix('i')
        && let Some(f) = strconv::parse_float(body)
    {
        n.is_complex = true;
        n.complex = (0.0, f);
        simplify_complex(&mut n);
        return Ok(n);
    }
    let u = strconv::parse_uint(text);
    if let Some(u) = u {
        n.is_uint = true;
        n.uint64 = u;
    }
    if let Some(i) = strconv::parse_int(text) {
        n.is_int = true;
        n.int64 = i;
        if i == 0 {
            n.is_uint = true;
            n.uint64 = 0;
        }
    }
    if n.is_int {
        n.is_float = true;
        n.float64 = n.int64 as f64;
    } else if n.is_uint {
        n.is_float = true;
        n.float64 = n.uint64 as f64;
    } else if let Some(f) = strconv::parse_float(text) {
        if !text.contains(['.', 'e', 'E', 'p', 'P']) {
            return Err(format!("integer overflow: {text:?}"));
        }
        n.is_float = true;
        n.float64 = f;
        if !n.is_int && (f as i64) as f64 == f {
            n.is_int = true;
            n.int64 = f as i64;
        }
        if !n.is_uint && f >= 0.0 && (f as u64) as f64 == f {
            n.is_uint = true;
            n.uint64 = f as u64;
        }
    }
    if !n.is_int && !n.is_uint && !n.is_float {
        return Err(format!("illegal number syntax: {text:?}"));
    }
    Ok(n)
}

fn simplify_complex(n: &mut Number) {
    let (re, im) = n.complex;
    if im == 0.0 {
        n.is_float = true;
        n.float64 = re;
        if (re as i64) as f64 == re {
            n.is_int = true;
            n.int64 = re as i64;
        }
        if re >= 0.0 && (re as u64) as f64 == re {
            n.is_uint = true;
            n.uint64 = re as u64;
        }
    }
}
