//! The `regex` inline diff function (§5.5.1), kube-compare's `RegexInlineDiff`.
//!
//! The search is unanchored and only the matched part of the value is kept. Named groups are
//! substituted by descending start using offsets into the *value* while slicing the *match*,
//! a kube-compare bug that panics (exit 2) when the match does not start at 0; here those
//! cases return an error instead of panicking.

use super::Captures;
use driftlint_goregex as goregex;

/// Compiles through the per-thread cache: the same pattern is validated for every CR, and
/// [`diff`] then finds it compiled.
pub(super) fn validate(pattern: &str) -> Result<(), String> {
    goregex::compile_cached(pattern)
        .map(|_| ())
        .map_err(|e| format!("invalid regex passed to inline regex diff function: {e}"))
}

struct TopLevel {
    name: String,
    start: usize,
    end: usize,
}

pub(super) fn diff(pattern: &str, value: &str, shared: &mut Captures) -> Result<String, String> {
    let Ok(re) = goregex::compile_cached(pattern) else { return Ok(pattern.to_owned()) };
    let Some(caps) = re.re.captures(value) else { return Ok(pattern.to_owned()) };
    let mut top: Vec<TopLevel> = Vec::new();
    for (i, name) in re.names.iter().enumerate() {
        let Some(name) = name else { continue };
        // A group that did not take part has offsets -1 in Go: `crValue[-1:-1]` panics.
        let Some(m) = caps.get(i) else {
            return Err(format!(
                "inline regex diff: group {name} did not take part in the match (kube-compare panics: slice bounds out of range [:-1])"
            ));
        };
        shared.add(name, m.as_str());
        add_top_level(&mut top, name, m.start(), m.end())?;
    }
    let whole = caps.get(0).map_or(0..0, |m| m.range());
    let mut result: Vec<u8> = value.as_bytes()[whole].to_vec();
    // Go's sort.Slice by descending start (not stable; equal starts keep insertion order here).
    top.sort_by_key(|g| std::cmp::Reverse(g.start));
    for tl in &top {
        if tl.start > tl.end || tl.end > result.len() {
            return Err(format!(
                "inline regex diff: slice bounds out of range [{}:{}] (kube-compare panics when a match with named groups does not start at offset 0)",
                tl.start.min(tl.end),
                result.len()
            ));
        }
        let mut next = result[..tl.start].to_vec();
        next.extend_from_slice(shared.group_values(&tl.name).as_bytes());
        next.extend_from_slice(&result[tl.end..]);
        result = next;
    }
    let mut out = String::from_utf8_lossy(&result).into_owned();
    out.push_str(&shared.warnings());
    Ok(out)
}

/// `capturedValueIndices.addCapture`'s bookkeeping of top-level groups, including Go's
/// deletion of several indices one after the other (later indices shift).
fn add_top_level(top: &mut Vec<TopLevel>, name: &str, start: usize, end: usize) -> Result<(), String> {
    let mut add_new = true;
    let mut replaces = Vec::new();
    for (n, tl) in top.iter().enumerate() {
        if start >= tl.start && end <= tl.end {
            add_new = false;
        } else if start <= tl.start && end >= tl.end {
            replaces.push(n);
        }
    }
    if add_new || !replaces.is_empty() {
        top.push(TopLevel { name: name.to_owned(), start, end });
    }
    for i in replaces {
        if i >= top.len() {
            return Err("inline regex diff: slice bounds out of range (kube-compare panics)".to_owned());
        }
        top.remove(i);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(p: &str, v: &str) -> String {
        diff(p, v, &mut Captures::default()).unwrap()
    }

    #[test]
    fn upstream_unit_examples() {
        assert_eq!(run("He(?<simple>llo)", "Hello"), "Hello");
        assert_eq!(run("(World)", "Hello World"), "World");
        assert_eq!(
            run("(?<simple>Hello), (?<simple>World)", "Hello, World"),
            "(?<simple>=Hello), (?<simple>=Hello)\nWARNING: Capturegroup (?<simple>\u{2026}) matched multiple values: \u{ab} Hello | World \u{bb}"
        );
        let mut shared = Captures::default();
        shared.add("simple", "othermatch");
        assert_eq!(
            diff("He(?<simple>llo), World", "Hello, World", &mut shared).unwrap(),
            "He(?<simple>=othermatch), World\nWARNING: Capturegroup (?<simple>\u{2026}) matched multiple values: \u{ab} othermatch | llo \u{bb}"
        );
    }

    #[test]
    fn unanchored_no_match_and_panics() {
        assert_eq!(run("x(?<g>[a-c]+)", "xabcy"), "xabc");
        assert_eq!(run("nomatch", "value"), "nomatch");
        assert_eq!(run("(", "value"), "(");
        assert!(diff("b(?<g>c)", "abcd", &mut Captures::default()).is_err());
        assert!(diff("(?<g>q)?abc", "abc", &mut Captures::default()).is_err());
        assert!(validate("(?<x").unwrap_err().starts_with(
            "invalid regex passed to inline regex diff function: error parsing regexp: invalid named capture"
        ));
    }
}
