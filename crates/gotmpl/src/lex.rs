//! The lexer: template text → tokens, as Go's `text/template/parse/lex.go` scans it.
//!
//! Go's lexer runs as a state machine in a goroutine; ours scans eagerly into a `Vec`, which the
//! parser walks with look-ahead. A lexical error becomes a final [`Tok::Error`] token, so the
//! parser reports whichever problem Go would meet first. The lexer knows the delimiters `{{ }}`,
//! trim markers (`{{- ` and ` -}}`, the space is mandatory), comments (`/* */` right after the
//! delimiter) and the token shapes inside actions. It knows nothing of the grammar.

/// Token kinds, named after Go's `itemType`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    Error,
    Bool,
    Char,
    CharConstant,
    Complex,
    Assign,
    Declare,
    Eof,
    Field,
    Identifier,
    LeftDelim,
    LeftParen,
    Number,
    Pipe,
    RawString,
    RightDelim,
    RightParen,
    Space,
    String,
    Text,
    Variable,
    // Keywords.
    Block,
    Break,
    Continue,
    Dot,
    Define,
    Else,
    End,
    If,
    Nil,
    Range,
    Template,
    With,
}

/// One token: its kind, byte range in the source and the line it starts on (1-based).
#[derive(Clone, Debug)]
pub struct Token {
    pub kind: Tok,
    pub start: usize,
    pub end: usize,
    pub line: usize,
    /// Only for [`Tok::Error`] (the message) and [`Tok::Text`] (the text after trimming).
    pub msg: Option<String>,
}

impl Token {
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start..self.end]
    }

    /// How Go's `item.String()` shows a token in "unexpected X in Y" messages.
    pub fn describe(&self, src: &str) -> String {
        let v = self.text(src);
        match self.kind {
            Tok::Eof => "EOF".into(),
            Tok::Error => self.msg.clone().unwrap_or_default(),
            Tok::LeftDelim | Tok::RightDelim => format!("{v:?}"),
            k if is_keyword(k) => format!("<{v}>"),
            _ if v.len() > 10 => format!("{:?}...", truncate(v, 10)),
            _ => format!("{v:?}"),
        }
    }
}

fn truncate(s: &str, n: usize) -> &str {
    let mut end = n.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn is_keyword(k: Tok) -> bool {
    matches!(
        k,
        Tok::Block
            | Tok::Break
            | Tok::Continue
            | Tok::Define
            | Tok::Else
            | Tok::End
            | Tok::If
            | Tok::Nil
            | Tok::Range
            | Tok::Template
            | Tok::With
    )
}

const LEFT: &str = "{{";
const RIGHT: &str = "}}";

/// Go's `isSpace`: only these four count (a Unicode space is a bad character).
pub fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_alnum(c: char) -> bool {
    c == '_' || c.is_alphabetic() || c.is_numeric()
}

fn has_left_trim(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0] == b'-' && is_space(b[1] as char)
}

fn has_right_trim(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && is_space(b[0] as char) && b[1] == b'-'
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    start: usize,
    line: usize,
    start_line: usize,
    paren_depth: i32,
    out: Vec<Token>,
}

/// Scans the whole input. The last token is always `Eof` or `Error`.
pub fn lex(src: &str) -> Vec<Token> {
    let mut l = Lexer { src, pos: 0, start: 0, line: 1, start_line: 1, paren_depth: 0, out: Vec::new() };
    l.run();
    l.out
}

impl<'a> Lexer<'a> {
    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn advance_to(&mut self, pos: usize) {
        self.line += self.src[self.pos..pos].matches('\n').count();
        self.pos = pos;
    }

    fn ignore(&mut self) {
        self.start = self.pos;
        self.start_line = self.line;
    }

    fn emit(&mut self, kind: Tok) {
        self.out.push(Token { kind, start: self.start, end: self.pos, line: self.start_line, msg: None });
        self.ignore();
    }

    fn error(&mut self, msg: impl Into<String>) {
        self.out.push(Token {
            kind: Tok::Error,
            start: self.start,
            end: self.pos,
            line: self.start_line,
            msg: Some(msg.into()),
        });
    }

    /// Runs the text/action states until EOF or an error.
    fn run(&mut self) {
        loop {
            if !self.lex_text() {
                return;
            }
            if !self.lex_action() {
                return;
            }
        }
    }

    /// Text up to the next `{{`; returns false at EOF (after emitting it).
    fn lex_text(&mut self) -> bool {
        let Some(x) = self.rest().find(LEFT) else {
            self.advance_to(self.src.len());
            if self.pos > self.start {
                self.emit(Tok::Text);
            }
            self.emit(Tok::Eof);
            return false;
        };
        let delim_at = self.pos + x;
        let mut text_end = delim_at;
        if has_left_trim(&self.src[delim_at + LEFT.len()..]) {
            text_end = self.src[..delim_at].trim_end_matches(is_space).len().max(self.start);
        }
        self.advance_to(text_end);
        if self.pos > self.start {
            self.emit(Tok::Text);
        }
        self.advance_to(delim_at);
        self.ignore();
        true
    }

    /// Where the right delimiter starts here: `(true, trim)` when at ` -}}` or `}}`.
    fn at_right_delim(&self) -> (bool, bool) {
        let r = self.rest();
        if has_right_trim(r) && r[2..].starts_with(RIGHT) {
            return (true, true);
        }
        (r.starts_with(RIGHT), false)
    }

    /// From `{{` through the matching `}}`; returns false on error.
    fn lex_action(&mut self) -> bool {
        self.advance_to(self.pos + LEFT.len());
        let trim = has_left_trim(self.rest());
        let after = if trim { 2 } else { 0 };
        if self.rest()[after..].starts_with("/*") {
            self.advance_to(self.pos + after);
            self.ignore();
            return self.lex_comment();
        }
        self.emit(Tok::LeftDelim);
        self.advance_to(self.pos + after);
        self.ignore();
        self.paren_depth = 0;
        self.lex_inside()
    }

    fn lex_comment(&mut self) -> bool {
        self.advance_to(self.pos + 2);
        let Some(x) = self.rest().find("*/") else {
            self.error("unclosed comment");
            return false;
        };
        self.advance_to(self.pos + x + 2);
        let (delim, trim) = self.at_right_delim();
        if !delim {
            self.error("comment ends before closing delimiter");
            return false;
        }
        if trim {
            self.advance_to(self.pos + 2);
        }
        self.advance_to(self.pos + RIGHT.len());
        if trim {
            let skip = self.rest().len() - self.rest().trim_start_matches(is_space).len();
            self.advance_to(self.pos + skip);
        }
        self.ignore();
        true
    }

    fn lex_right_delim(&mut self, trim: bool) {
        if trim {
            self.advance_to(self.pos + 2);
            self.ignore();
        }
        self.advance_to(self.pos + RIGHT.len());
        self.emit(Tok::RightDelim);
        if trim {
            let skip = self.rest().len() - self.rest().trim_start_matches(is_space).len();
            self.advance_to(self.pos + skip);
            self.ignore();
        }
    }

    /// Tokens inside an action; returns false on error.
    fn lex_inside(&mut self) -> bool {
        loop {
            let (delim, trim) = self.at_right_delim();
            if delim {
                if self.paren_depth == 0 {
                    self.lex_right_delim(trim);
                    return true;
                }
                self.error("unclosed left paren");
                return false;
            }
            let Some(c) = self.next() else {
                self.error("unclosed action");
                return false;
            };
            let ok = match c {
                c if is_space(c) => {
                    // Put the space back: it may start " -}}".
                    self.pos -= 1;
                    if c == '\n' {
                        self.line -= 1;
                    }
                    self.lex_space();
                    true
                }
                '=' => {
                    self.emit(Tok::Assign);
                    true
                }
                ':' => {
                    if self.next() != Some('=') {
                        self.error("expected :=");
                        return false;
                    }
                    self.emit(Tok::Declare);
                    true
                }
                '|' => {
                    self.emit(Tok::Pipe);
                    true
                }
                '"' => self.lex_quote(),
                '`' => self.lex_raw_quote(),
                '$' => self.lex_field_or_var(Tok::Variable),
                '\'' => self.lex_char(),
                '.' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => self.lex_field_or_var(Tok::Field),
                '.' | '+' | '-' | '0'..='9' => {
                    self.pos = self.start;
                    self.lex_number()
                }
                c if is_alnum(c) => {
                    self.pos = self.start;
                    self.lex_identifier()
                }
                '(' => {
                    self.emit(Tok::LeftParen);
                    self.paren_depth += 1;
                    true
                }
                ')' => {
                    self.paren_depth -= 1;
                    if self.paren_depth < 0 {
                        self.error("unexpected right paren");
                        return false;
                    }
                    self.emit(Tok::RightParen);
                    true
                }
                c if c.is_ascii() && !c.is_ascii_control() => {
                    self.emit(Tok::Char);
                    true
                }
                c => {
                    self.error(format!("unrecognized character in action: {}", go_unicode(c)));
                    false
                }
            };
            if !ok {
                return false;
            }
        }
    }

    fn lex_space(&mut self) {
        let mut n = 0;
        while self.peek().is_some_and(is_space) {
            self.next();
            n += 1;
        }
        // A space followed by "-}}" belongs to the trim marker.
        let back = &self.src[self.pos - 1..];
        if has_right_trim(back) && back[2..].starts_with(RIGHT) {
            self.pos -= 1;
            if &self.src[self.pos..=self.pos] == "\n" {
                self.line -= 1;
            }
            if n == 1 {
                return;
            }
        }
        self.emit(Tok::Space);
    }

    fn at_terminator(&self) -> bool {
        match self.peek() {
            None => true,
            Some(c) if is_space(c) => true,
            Some('.' | ',' | '|' | ':' | ')' | '(') => true,
            _ => self.rest().starts_with(RIGHT),
        }
    }

    fn lex_identifier(&mut self) -> bool {
        while self.peek().is_some_and(is_alnum) {
            self.next();
        }
        if !self.at_terminator() {
            let c = self.peek().unwrap_or('\0');
            self.next();
            self.error(format!("bad character {}", go_unicode(c)));
            return false;
        }
        let kind = match &self.src[self.start..self.pos] {
            "block" => Tok::Block,
            "break" => Tok::Break,
            "continue" => Tok::Continue,
            "define" => Tok::Define,
            "else" => Tok::Else,
            "end" => Tok::End,
            "if" => Tok::If,
            "range" => Tok::Range,
            "nil" => Tok::Nil,
            "template" => Tok::Template,
            "with" => Tok::With,
            "true" | "false" => Tok::Bool,
            _ => Tok::Identifier,
        };
        self.emit(kind);
        true
    }

    fn lex_field_or_var(&mut self, kind: Tok) -> bool {
        if self.at_terminator() {
            self.emit(if kind == Tok::Variable { Tok::Variable } else { Tok::Dot });
            return true;
        }
        while self.peek().is_some_and(is_alnum) {
            self.next();
        }
        if !self.at_terminator() {
            let c = self.peek().unwrap_or('\0');
            self.next();
            self.error(format!("bad character {}", go_unicode(c)));
            return false;
        }
        self.emit(kind);
        true
    }

    fn lex_char(&mut self) -> bool {
        loop {
            match self.next() {
                Some('\\') => {
                    if self.next().is_some_and(|c| c != '\n') {
                        continue;
                    }
                    self.error("unterminated character constant");
                    return false;
                }
                None | Some('\n') => {
                    self.error("unterminated character constant");
                    return false;
                }
                Some('\'') => break,
                _ => {}
            }
        }
        self.emit(Tok::CharConstant);
        true
    }

    fn lex_quote(&mut self) -> bool {
        loop {
            match self.next() {
                Some('\\') => {
                    if self.next().is_some_and(|c| c != '\n') {
                        continue;
                    }
                    self.error("unterminated quoted string");
                    return false;
                }
                None | Some('\n') => {
                    self.error("unterminated quoted string");
                    return false;
                }
                Some('"') => break,
                _ => {}
            }
        }
        self.emit(Tok::String);
        true
    }

    fn lex_raw_quote(&mut self) -> bool {
        match self.rest().find('`') {
            Some(x) => {
                self.advance_to(self.pos + x + 1);
                self.emit(Tok::RawString);
                true
            }
            None => {
                self.error("unterminated raw quoted string");
                false
            }
        }
    }

    fn accept(&mut self, set: &str) -> bool {
        if self.peek().is_some_and(|c| set.contains(c)) {
            self.next();
            return true;
        }
        false
    }

    fn accept_run(&mut self, set: &str) {
        while self.accept(set) {}
    }

    /// Go's `scanNumber`: the shape only; the parser converts the text.
    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 11 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 23 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if self.peek().is_some_and(is_alnum) {
            self.next();
            return false;
        }
        true
    }

    fn lex_number(&mut self) -> bool {
        if !self.scan_number() {
            let t = format!("bad number syntax: {:?}", &self.src[self.start..self.pos]);
            self.error(t);
            return false;
        }
        if matches!(self.peek(), Some('+' | '-')) {
            if !self.scan_number() || !self.src[..self.pos].ends_with('i') {
                let t = format!("bad number syntax: {:?}", &self.src[self.start..self.pos]);
                self.error(t);
                return false;
            }
            self.emit(Tok::Complex);
            return true;
        }
        self.emit(Tok::Number);
        true
    }
}

/// Go's `%#U`: `U+002D '-'`.
pub fn go_unicode(c: char) -> String {
    if c.is_control() { format!("U+{:04X}", c as u32) } else { format!("U+{:04X} '{c}'", c as u32) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        lex(s).into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn trims_and_comments() {
        let toks = lex("a  {{- .x -}}  b");
        assert_eq!(toks[0].text("a  {{- .x -}}  b"), "a");
        assert_eq!(kinds("{{- /* c */ -}}"), vec![Tok::Eof]);
        assert_eq!(kinds("{{-3}}"), vec![Tok::LeftDelim, Tok::Number, Tok::RightDelim, Tok::Eof]);
    }

    #[test]
    fn numbers_and_errors() {
        assert_eq!(kinds("{{1+2i}}")[1], Tok::Complex);
        let t = lex("{{ 12abc }}");
        assert_eq!(t.last().unwrap().msg.as_deref(), Some("bad number syntax: \"12a\""));
        assert_eq!(kinds("{{.1}}")[1], Tok::Number);
    }
}
