//! A cheap look at a module's text before regorus parses it, for what must be refused before
//! the parser runs:
//!
//! - nesting deeper than [`MAX_NESTING`] brackets, or brackets whose weighted count
//!   ([`MAX_PARSE_COST`]) says the parse would be long: regorus' parser takes time exponential
//!   in the nesting depth, and the compile deadline cannot interrupt one parse;
//! - in Rego v0, a keyword of v1 (`if`, `contains`, `in`, `every`) without the import that
//!   enables it: OPA 0.x refuses such a module, and regorus would accept it after printing a
//!   raw warning per keyword (quoting the source line) to standard error.
//!
//! Strings (`"…"`, `` `…` ``) and comments are skipped.

use super::{Location, PolicyError};
use crate::module::{Module, RegoVersion};

/// The deepest bracket nesting (`(`, `[`, `{`) a module may have.
pub const MAX_NESTING: usize = 14;
/// The most parse work a module may ask for, counted as 3^depth per bracket (regorus' parse
/// time roughly triples with each level: a chain 12 deep took 130 ms in a debug build): many
/// shallow brackets pass, a few deep chains do not.
pub const MAX_PARSE_COST: u64 = 20_000_000;

/// The longest chain of operators one expression may have at its own level plus the levels
/// around it (`1 + 1 + … `, `- - - 1`, `a == b == …`, `x in y in …`): regorus' parser, our
/// checks and its evaluator recurse once per operator, so a long chain (a few thousand, in
/// 64 KB) overflows the stack. Real expressions have a handful.
pub const MAX_CHAIN: u32 = 256;

/// A word of the module: its text, line, the character before it and the one after it
/// (spaces skipped).
struct Word<'a> {
    text: &'a str,
    line: u32,
    before: char,
    after: char,
}

/// Checks `m` as above.
pub fn check(m: &Module, version: RegoVersion) -> Result<(), PolicyError> {
    let words = scan(m)?;
    if version == RegoVersion::V0 {
        v0_keywords(m, &words)?;
    }
    Ok(())
}

fn refuse(m: &Module, line: u32, message: String) -> PolicyError {
    PolicyError::Parse { location: Some(Location { path: m.path.clone(), line }), message }
}

/// The module's words; refuses deep nesting.
fn scan(m: &Module) -> Result<Vec<Word<'_>>, PolicyError> {
    let text = m.text.as_str();
    let bytes = text.as_bytes();
    let mut words = Vec::new();
    let mut depth = 0usize;
    let mut cost = 0u64;
    let mut line = 1u32;
    let mut last = ' ';
    // Operators chained at each bracket depth; an expression ends at `,`, `;`, a bracket, or
    // a line break that neither follows nor precedes an operator.
    let mut chain = [0u32; MAX_NESTING + 2];
    let mut line_break = false;
    let mut after_operator = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            line_break |= !after_operator;
        } else if !c.is_ascii_whitespace() && c != b'#' {
            let word_in = c == b'i'
                && bytes.get(i + 1) == Some(&b'n')
                && !bytes.get(i + 2).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                && !(i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
            let operator = OPERATORS.contains(&c);
            if line_break && !operator && !word_in {
                chain[depth] = 0;
            }
            line_break = false;
            after_operator = operator || word_in;
            if operator || word_in {
                chain[depth] += 1;
                if chain[..=depth].iter().sum::<u32>() > MAX_CHAIN {
                    return Err(refuse(
                        m,
                        line,
                        format!("rego_parse_error: an expression chains more than {MAX_CHAIN} operators"),
                    ));
                }
            }
            if operator {
                last = c as char;
                i += 1;
                continue;
            }
        }
        match c {
            b',' | b';' => {
                chain[depth] = 0;
                last = c as char;
            }
            b'\n' => line += 1,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                last = '"';
            }
            b'`' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'`' {
                    line += u32::from(bytes[i] == b'\n');
                    i += 1;
                }
                last = '`';
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(refuse(
                        m,
                        line,
                        format!("rego_parse_error: nested more than {MAX_NESTING} levels deep"),
                    ));
                }
                chain[depth] = 0;
                cost = cost.saturating_add(3u64.saturating_pow(depth as u32));
                if cost > MAX_PARSE_COST {
                    return Err(refuse(
                        m,
                        line,
                        format!(
                            "rego_parse_error: the brackets nest too deeply for the parser (weighted count over {MAX_PARSE_COST}; each level of nesting weighs 3 times the one above)"
                        ),
                    ));
                }
                last = c as char;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                last = c as char;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let mut j = i;
                while j < bytes.len() && (bytes[j] == b' ' || bytes[j] == b'\t') {
                    j += 1;
                }
                let after = bytes.get(j).map_or(' ', |b| *b as char);
                words.push(Word { text: &text[start..i], line, before: last, after });
                last = 'a';
                continue;
            }
            c if c.is_ascii_digit() => {
                // A number: regorus builds it digit by digit of its exponent (`0e172000000`
                // took 55 s and 300 MB to parse), so a huge exponent is refused first.
                while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                    i += 1;
                }
                if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                    i += 1;
                    if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
                        i += 1;
                    }
                    let mut exponent: u64 = 0;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        exponent = exponent.saturating_mul(10).saturating_add(u64::from(bytes[i] - b'0'));
                        i += 1;
                    }
                    if exponent > MAX_EXPONENT {
                        return Err(refuse(
                            m,
                            line,
                            format!(
                                "rego_parse_error: a number's exponent is over {MAX_EXPONENT} (no policy needs one; it costs the parser time in proportion)"
                            ),
                        ));
                    }
                }
                last = '0';
                continue;
            }
            c if !c.is_ascii_whitespace() => last = c as char,
            _ => {}
        }
        i += 1;
    }
    Ok(words)
}

/// The characters of Rego's operators (`:=` counts by its `=`).
const OPERATORS: &[u8] = b"+-*/%&|<>=!";

/// The largest exponent a number literal may have (`1e1000`; an f64 ends near `1e308`).
const MAX_EXPONENT: u64 = 1000;

/// Rego v0: the v1 keywords need `import future.keywords[.KW]` or `import rego.v1`.
fn v0_keywords(m: &Module, words: &[Word]) -> Result<(), PolicyError> {
    const KEYWORDS: [&str; 4] = ["if", "contains", "in", "every"];
    // Imports count from where they stand on: regorus parses in order, so a keyword before
    // `import rego.v1` (what fuzzing found) is read, and warned about, without it.
    let mut imported: Vec<&str> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if w.text == "import" {
            match (words.get(i + 1).map(|w| w.text), words.get(i + 2).map(|w| w.text), words.get(i + 3)) {
                (Some("rego"), Some("v1"), _) => imported.extend(KEYWORDS),
                (Some("future"), Some("keywords"), Some(kw)) if kw.before == '.' => imported.push(kw.text),
                (Some("future"), Some("keywords"), _) => imported.extend(KEYWORDS),
                _ => {}
            }
            continue;
        }
        if !KEYWORDS.contains(&w.text) || imported.contains(&w.text) || w.before == '.' {
            continue;
        }
        // The word as a future keyword's own name in `import future.keywords.in`.
        if i >= 2 && words[i - 1].text == "keywords" && words[i - 2].text == "future" {
            continue;
        }
        // `contains(s, t)` where an expression starts is the built-in (after a rule name it is
        // the keyword); a key `"in": …` or field `x.in` is no keyword.
        let call = w.text == "contains" && w.after == '(' && !(w.before.is_ascii_alphanumeric() || w.before == '_');
        if call || w.after == ':' && w.text != "in" {
            continue;
        }
        return Err(refuse(
            m,
            w.line,
            format!(
                "rego_parse_error: `{}` is a Rego v1 keyword: in Rego v0 it needs `import future.keywords.{}` or `import rego.v1` (or read the policies as v1: --rego-version v1)",
                w.text, w.text
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> Module {
        Module { path: "p.rego".into(), text: text.into() }
    }

    #[test]
    fn nesting_is_bounded_and_strings_and_comments_do_not_count() {
        let deep = format!("package a\n\nx := {}1{}", "[".repeat(MAX_NESTING + 1), "]".repeat(MAX_NESTING + 1));
        let e = check(&module(&deep), RegoVersion::V1).unwrap_err();
        assert_eq!(e.location().map(|l| l.line), Some(3), "{e}");
        let text = format!("package a\n# {}\nx := \"{}\"\ny := `{}`", "[".repeat(99), "(".repeat(99), "{".repeat(99));
        check(&module(&text), RegoVersion::V1).unwrap();
        // Within the depth, many deep chains are refused by their weight; many shallow ones pass.
        let chain = format!("{}1{}", "[".repeat(13), "]".repeat(13));
        let heavy = format!("package a\nx := [{}]", vec![chain; 20].join(", "));
        assert!(check(&module(&heavy), RegoVersion::V1).unwrap_err().to_string().contains("weighted count"));
        let light = format!("package a\nx := [{}]", vec!["[[[1]]]"; 5000].join(", "));
        check(&module(&light), RegoVersion::V1).unwrap();
    }

    #[test]
    fn operator_chains_are_bounded() {
        // What fuzzing found: a few thousand chained operators in 64 KB overflowed the stack
        // of regorus' parser (SIGSEGV, no diagnostic).
        let wrap = |parts: Vec<&str>| parts.chunks(100).map(|c| c.concat()).collect::<Vec<_>>().join("\n");
        for long in [
            format!("package a\nx := 1{}", wrap(vec!["+1"; 300])),
            format!("package a\nx := {}1", wrap(vec!["-"; 300])),
            format!("package a\nx if {{ 1{} }}", wrap(vec![" in [1]"; 300])),
            format!("package a\nx := [1 +\n 2 +\n ({})]", wrap(vec!["1 == "; 200]) + "1"),
        ] {
            let e = check(&module(&long), RegoVersion::V1).unwrap_err();
            assert!(e.to_string().contains("chains more than 256 operators"), "{e}");
        }
        // Statements on their own lines, or separated by `;` and `,`, are expressions of their
        // own however many there are.
        let lines = format!("package a\nx if {{\n{}}}", "  input.a == 1\n".repeat(2000));
        let semicolons = format!("package a\nx if {{ {} }}", vec!["1 == 1"; 2000].join("; "));
        let items = format!("package a\nx := [{}]", vec!["1 + 1"; 2000].join(", "));
        let near = format!("package a\nx := 1{}", wrap(vec!["+1"; 255]));
        for ok in [lines, semicolons, items, near] {
            check(&module(&ok), RegoVersion::V1).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    #[test]
    fn huge_exponents_are_refused_before_the_parser() {
        // What fuzzing found: `0e17200000` took regorus seconds (and 10 times the exponent 10
        // times as long) to parse.
        let e = check(&module("package main\n\nx := 0e17200000\n"), RegoVersion::V1).unwrap_err();
        assert!(e.to_string().contains("exponent is over 1000"), "{e}");
        assert!(
            check(&module("package main\n\nx := 1.5e300\ny := \"0e17200000\"\nz := 12\n"), RegoVersion::V1).is_ok()
        );
    }

    #[test]
    fn v0_keywords_need_their_import() {
        let e = check(&module("package a\n\nallow if { true }"), RegoVersion::V0).unwrap_err();
        assert_eq!(e.location().map(|l| l.line), Some(3), "{e}");
        assert!(e.to_string().contains("`if` is a Rego v1 keyword"), "{e}");
        for ok in [
            "package a\nimport rego.v1\nallow if { true }",
            "package a\nimport future.keywords.if\nallow if { true }",
            "package a\nimport future.keywords\nx contains 1 if { 1 in [1] }",
            "package a\nx { contains(\"abc\", \"b\") }\ny { input.in == 1; z := {\"if\": 1} }",
        ] {
            check(&module(ok), RegoVersion::V0).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        let e = check(&module("package a\nimport future.keywords.in\nx if { 1 in [1] }"), RegoVersion::V0).unwrap_err();
        assert!(e.to_string().contains("`if`"), "{e}");
        check(&module("package a\nallow if { true }"), RegoVersion::V1).unwrap();
        // An import counts from where it stands on (regorus warned, quoting the line raw, for
        // a keyword before it: what fuzzing found).
        for late in
            ["package a\nallow if { true }\nimport rego.v1", "package a\ndeny contains msg if conta1  import rego.v1"]
        {
            let e = check(&module(late), RegoVersion::V0).unwrap_err();
            assert!(e.to_string().contains("is a Rego v1 keyword"), "{late}: {e}");
        }
    }
}
