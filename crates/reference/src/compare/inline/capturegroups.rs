//! The `capturegroups` inline diff function (§5.5.2), kube-compare's
//! `CapturegroupsInlineDiff`: literal text with embedded `(?<name>regex)` groups.
//!
//! The pattern (groups replaced by private-use placeholders) is diffed against the value with
//! go-diff; each adjacent Delete/Insert pair whose Delete side holds groups is matched as a
//! quoted regex against the Insert side, filling the shared capture map. The result is the
//! pattern with each group replaced by its captured value.

use super::Captures;
use crate::compare::godiff::{self, Op};
use driftlint_goregex::{self as goregex, quote_meta};

/// One named group found by [`capturegroup_index`] (byte offsets into the pattern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturegroupInfo {
    pub name: String,
    pub start: usize,
    pub end: usize,
}

/// `CapturegroupIndex`: the named groups of `pattern`, outermost only.
#[must_use]
pub fn capturegroup_index(pattern: &str) -> Vec<CapturegroupInfo> {
    let b = pattern.as_bytes();
    let mut result = Vec::new();
    let mut i = 0usize;
    while i < b.len() {
        let Some(idx) = pattern[i..].find("(?<") else { break };
        let start = idx + i;
        let mut name = String::new();
        i = start + 3;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 1,
                b'>' => {
                    name = String::from_utf8_lossy(&b[start + 3..i]).into_owned();
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        let (mut p_depth, mut c_depth) = (0i64, 0i64);
        while i < b.len() {
            match b[i] {
                b'\\' => i += 1,
                b'(' if c_depth == 0 => p_depth += 1,
                b')' if c_depth == 0 => p_depth -= 1,
                b'[' => c_depth += 1,
                b']' => c_depth -= 1,
                _ => {}
            }
            if p_depth < 0 {
                result.push(CapturegroupInfo { name: name.clone(), start, end: i + 1 });
                break;
            }
            i += 1;
        }
        i += 1;
    }
    result
}

/// `CapturegroupQuoteMeta`: literal text quoted, groups verbatim, with `^`/`$`/`\b` anchors
/// at the string ends and next to spaces.
#[must_use]
pub fn capturegroup_quote_meta(pattern: &str, groups: &[CapturegroupInfo]) -> String {
    let b = pattern.as_bytes();
    let mut out = String::new();
    let mut last = 0;
    for g in groups {
        if last < g.start {
            out.push_str(&quote_meta(&pattern[last..g.start]));
        }
        if g.start == 0 {
            out.push('^');
        }
        if g.start > 0 && b[g.start - 1] == b' ' {
            out.push_str("\\b");
        }
        out.push_str(&pattern[g.start..g.end]);
        if g.end == b.len() {
            out.push('$');
        }
        if g.end < b.len() && b[g.end] == b' ' {
            out.push_str("\\b");
        }
        last = g.end;
    }
    if last < b.len() {
        out.push_str(&quote_meta(&pattern[last..]));
    }
    out
}

pub(super) fn validate(pattern: &str) -> Result<(), String> {
    let errors: Vec<String> = pattern
        .split('\n')
        .enumerate()
        .filter_map(|(i, line)| {
            let groups = capturegroup_index(line);
            goregex::compile_cached(&capturegroup_quote_meta(line, &groups))
                .err()
                .map(|e| format!("line {} {e}", i + 1))
        })
        .collect();
    if errors.is_empty() { Ok(()) } else { Err(errors.join("\n")) }
}

/// The first placeholder code point (Unicode Private Use Area-A... plane 15).
const PLACEHOLDER: u32 = 0xF0000;

/// The pattern diffed against a value, its groups put back: everything of `Diff` that
/// depends on the two strings alone. `runInlineDiffFuncs` calls `Diff` twice with the same
/// strings (to fill the shared captures, then to write the result); the second call reuses
/// this instead of running go-diff again, which is most of the work.
#[derive(Debug, Clone)]
pub(super) struct Split {
    groups: Vec<CapturegroupInfo>,
    diffs: Vec<(Op, String)>,
}

pub(super) fn split(pattern: &str, value: &str) -> Split {
    let groups = capturegroup_index(pattern);
    // 1. Placeholders keep go-diff from splitting a group.
    let mut replaced = String::new();
    let mut escapes = Vec::new();
    let mut idx = 0;
    for (n, g) in groups.iter().enumerate() {
        if idx < g.start {
            replaced.push_str(&pattern[idx..g.start]);
        }
        // Past U+10FFFF Go would write U+FFFD; 65,536 groups is not a real template.
        let ph = char::from_u32(PLACEHOLDER + n as u32).unwrap_or('\u{FFFD}');
        escapes.push((ph, &pattern[g.start..g.end]));
        replaced.push(ph);
        idx = g.end;
    }
    if idx < pattern.len() {
        replaced.push_str(&pattern[idx..]);
    }
    // 2. Diff, then put the groups back.
    let diffs: Vec<(Op, String)> = godiff::diff_main(&replaced, value)
        .into_iter()
        .map(|s| {
            let mut t = String::with_capacity(s.text.len());
            for c in s.text.chars() {
                match escapes.iter().find(|(p, _)| *p == c) {
                    Some((_, full)) => t.push_str(full),
                    None => t.push(c),
                }
            }
            (s.op, t)
        })
        .collect();
    Split { groups, diffs }
}

impl Split {
    /// The rest of `Diff` for the `pattern` this was split from: the captures of every
    /// group added to `shared`, and the pattern with each group replaced by its value.
    pub(super) fn apply(&self, pattern: &str, shared: &mut Captures) -> String {
        let Split { groups, diffs } = self;
        // 3. Every adjacent Delete/Insert pair: the Delete side is the pattern.
        for w in diffs.windows(2) {
            let (del, ins) = match (&w[0], &w[1]) {
                ((Op::Delete, d), (Op::Insert, i)) | ((Op::Insert, i), (Op::Delete, d)) => (d, i),
                _ => continue,
            };
            let found = capturegroup_index(del);
            if found.is_empty() {
                continue;
            }
            // A compile error is only a warning in kube-compare (`capturegroup error: …`).
            let Ok(re) = goregex::compile_cached(&capturegroup_quote_meta(del, &found)) else { continue };
            if let Some(caps) = re.re.captures(ins) {
                for (i, name) in re.names.iter().enumerate() {
                    if let Some(name) = name {
                        shared.add(name, caps.get(i).map_or("", |m| m.as_str()));
                    }
                }
            }
        }
        // 4. Rebuild the pattern with the captured values.
        let mut out = String::new();
        let mut idx = 0;
        for g in groups {
            if idx < g.start {
                out.push_str(&pattern[idx..g.start]);
            }
            let v = shared.group_values(&g.name);
            out.push_str(if v.is_empty() { &pattern[g.start..g.end] } else { &v });
            idx = g.end;
        }
        if idx < pattern.len() {
            out.push_str(&pattern[idx..]);
        }
        out.push_str(&shared.warnings());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Diff(pattern, value, shared)` with fresh captures.
    fn run(p: &str, v: &str) -> String {
        split(p, v).apply(p, &mut Captures::default())
    }

    #[test]
    fn index_examples() {
        let names =
            |p: &str| capturegroup_index(p).into_iter().map(|g| p[g.start..g.end].to_owned()).collect::<Vec<_>>();
        assert_eq!(names("(?<tricky_group>[^)(]*)"), ["(?<tricky_group>[^)(]*)"]);
        assert_eq!(names("[text before]((?<hidden_group>.*))[text after]"), ["(?<hidden_group>.*)"]);
        assert!(names("Incomplete (?<no_end>[a-z]+").is_empty());
        assert_eq!(names("(?<a>(?<b>x))y"), ["(?<a>(?<b>x))"]);
    }

    #[test]
    fn quote_meta_example() {
        let p = "Text around a (?<g>.*) with another (?<e>.*)";
        assert_eq!(
            capturegroup_quote_meta(p, &capturegroup_index(p)),
            r"Text around a \b(?<g>.*)\b with another \b(?<e>.*)$"
        );
    }

    #[test]
    fn upstream_diff_examples() {
        assert_eq!(run("one\n(?<g1>[a-z]+)\nthree", "one\ntwo\nthree"), "one\ntwo\nthree");
        assert_eq!(run("one\n(?<g1>[a-z]+)\nthree", "one\n2two2\nthree"), "one\n(?<g1>[a-z]+)\nthree");
        assert_eq!(run("Line (?<g1>[a-z\\s]+) two (?<g2>[a-z]+)", "Line a two 42"), "Line a two (?<g2>[a-z]+)");
        assert_eq!(run("start (?<any>.*) end", "start  end"), "start (?<any>.*) end");
    }

    #[test]
    fn corpus_mismatched_capturegroups() {
        let p = "This is a big (?<test>[a-z\\s]+) block with some static (?<test>[a-z\\s]+), like this line.\n\
                 It also has a place where (?<username>[a-z0-9]+) would put in their own name. (?<username>[a-z0-9]+) would put in their (?<test>[a-z\\s]+).\n\
                 More complicated [(?<group>[^\\]]+)] are also allowed.";
        let v = "This is a big text block with some static content, like this line.\n\
                 It also has a place where exampleuser would put in their own name. exampleuser would put in their own name.\n\
                 More complicated [capture groups] are also allowed.";
        let want = "This is a big (?<test>=text) block with some static (?<test>=text), like this line.\n\
                    It also has a place where exampleuser would put in their own name. exampleuser would put in their (?<test>=text).\n\
                    More complicated [capture groups] are also allowed.\n\
                    WARNING: Capturegroup (?<test>\u{2026}) matched multiple values: \u{ab} text | content | own name \u{bb}";
        assert_eq!(run(p, v), want);
    }

    #[test]
    fn validate_errors_per_line() {
        // The corpus case ReferenceV2InlineCapturegroups__Invalid_Capturegroups.
        let p = "This is a big text block with some static content, like this line.\n\
                 It also has a place where (?<username[a-z0-9]+) would put in their own name. (?<username>[a-z0-9]+) would put in their own name.\n\
                 More complicated [(?<group>[[:_broken_capturegroup_:]]+)] are also allowed.";
        let e = validate(p).unwrap_err();
        let lines: Vec<&str> = e.lines().collect();
        assert_eq!(
            lines[0],
            "line 2 error parsing regexp: invalid named capture: `(?<username[a-z0-9]+) would put in their own name. (?<username>`"
        );
        assert_eq!(lines[1], "line 3 error parsing regexp: invalid character class range: `[:_broken_capturegroup_:]`");
        assert_eq!(lines.len(), 2);
    }
}
