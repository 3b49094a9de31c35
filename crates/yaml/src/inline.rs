//! One-line pieces of block YAML that both fast loaders (`spanned` and `simple`) read alike:
//! which characters they take at all, where a plain key ends, plain and quoted scalars, the
//! comment after a value, and one-line flow sequences. Each answers `None` (or `false`) for
//! what it does not take, and the loaders then fall back to the general loader.
//!
//! It knows nothing of nodes, values or spans beyond byte offsets in a line.

use std::ops::Range;

/// An upper bound on the nodes of a text that either fast loader takes: each line holds at
/// most one scalar plus one node per `- `, `:`, `,` or `[` (the collections they open and the
/// scalars they separate). A text that might cross [`Limits::max_nodes`] goes to the general
/// loader, which counts exactly and stops with an error at the node that crosses it. `{`
/// counts too, although the fast loaders take it only in `{}` and in block scalars: the
/// general loader refuses a text with more than half [`Limits::max_nodes`] flow indicators
/// (`,` `[` `{`) before it reads it, wherever they are, so such a text is never taken.
///
/// [`Limits::max_nodes`]: crate::Limits::max_nodes
pub(crate) fn node_bound(text: &str) -> usize {
    let mark = |b: u8| matches!(b, b'\n' | b'-' | b':' | b',' | b'[' | b'{');
    let marks: usize = text.as_bytes().chunks(BLOCK).map(|block| count_in_block(block, mark)).sum();
    2 * marks + 2
}

/// The bytes [`count_in_block`] takes at most.
pub(crate) const BLOCK: usize = 64;

/// How many bytes of `block` (at most [`BLOCK`] of them) are `wanted`, counted in a byte
/// without stopping inside the block, which the compiler turns into a few vector compares
/// (a `filter().count()` over the bytes is not vectorised).
#[inline]
pub(crate) fn count_in_block(block: &[u8], wanted: impl Fn(u8) -> bool) -> usize {
    debug_assert!(block.len() <= BLOCK);
    let mut here: u8 = 0;
    for &b in block {
        here += u8::from(wanted(b));
    }
    usize::from(here)
}

/// `text.split('\n')`, the line ends found with `memchr` (`str::split`'s searcher costs several
/// times as much a line, and both fast loaders split every text they read).
pub(crate) fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', text.as_bytes()).map(Some).chain(std::iter::once(None)).map(move |end| {
        let end = end.unwrap_or(text.len());
        let line = &text[start..end];
        start = end + 1;
        line
    })
}

/// LF-only printable text: no tabs, carriage returns or other control characters, no byte
/// order mark, no characters YAML treats as line breaks or refuses (both fast loaders).
pub(crate) fn allowed_chars(text: &str) -> bool {
    let ascii_ok = |b: u8| b == b'\n' || (0x20..0x7f).contains(&b);
    // Block by block without stopping inside one, which the compiler vectorises (`all` byte by
    // byte does not): most texts are printable ASCII, settled here.
    if text.as_bytes().chunks(64).all(|block| block.iter().fold(true, |ok, &b| ok & ascii_ok(b))) {
        return true;
    }
    if text.is_ascii() {
        return false;
    }
    text.chars().all(|c| {
        if c.is_ascii() {
            ascii_ok(c as u8)
        } else {
            !matches!(c, '\u{80}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
        }
    })
}

/// The first `: ` (or final `:`) of a line: where a plain key ends (both fast loaders).
pub(crate) fn find_value_colon(b: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = b[from..].iter().position(|&c| c == b':') {
        let at = from + i;
        if matches!(b.get(at + 1), None | Some(b' ')) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Whether `text` (non-empty, trimmed) can be taken as a one-line plain scalar in block
/// context: no indicator in front (`-` only before a non-blank), no comment, not a document
/// marker. Flow brackets and commas inside are text in block context (`https://(?<h>[a-z]+)`).
/// Both fast loaders take plain scalars by this rule.
pub(crate) fn plain_ok(text: &str) -> bool {
    let b = text.as_bytes();
    let Some(&first) = b.first() else { return false };
    let first_ok = match first {
        b'-' => !matches!(b.get(1), None | Some(b' ')) && !text.starts_with("---"),
        b'.' => !text.starts_with("..."),
        b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\'' | b'"'
        | b'%' | b'@' | b'`' | b' ' => false,
        _ => true,
    };
    first_ok && !has_pair(text, b' ', b'#')
}

/// Whether byte `x` is immediately followed by byte `y` somewhere in `text` (`str::contains`
/// with a two-byte pattern sets up a substring searcher: several times slower on the short
/// texts of one line, where this is called for every line and value).
pub(crate) fn has_pair(text: &str, x: u8, y: u8) -> bool {
    find_pair(text, x, y).is_some()
}

/// Where byte `x` is first immediately followed by byte `y` in `text` (see [`has_pair`]). The
/// pair's byte other than a blank (`#`, `-`, `?`, `:`: rare in manifests' lines) is looked for
/// with `memchr`: a scan of every pair of bytes was most of the cost of reading a line's key.
pub(crate) fn find_pair(text: &str, x: u8, y: u8) -> Option<usize> {
    let b = text.as_bytes();
    if y == b' ' {
        memchr::memchr_iter(x, b).find(|&i| b.get(i + 1) == Some(&y))
    } else {
        memchr::memchr_iter(y, b.get(1..)?).find(|&i| b[i] == x)
    }
}

/// The index of the first non-blank byte of `b` from `i`.
pub(crate) fn skip_blanks(b: &[u8], i: usize) -> usize {
    i + b.get(i..).map_or(0, |r| r.iter().take_while(|&&c| c == b' ').count())
}

/// Whether `rest` (what follows a value on its line) is nothing or a comment.
pub(crate) fn comment_or_end(rest: &str) -> bool {
    rest.is_empty() || (rest.starts_with(' ') && rest.trim_start_matches(' ').starts_with('#'))
}

/// The inside of a one-line quoted scalar at the start of `text` and the index of its
/// closing quote; `None` for escapes and unterminated scalars.
pub(crate) fn quoted(text: &str, q: u8) -> Option<(&str, usize)> {
    let close = 1 + text[1..].find(q as char)?;
    let inner = &text[1..close];
    // `''` (an escaped quote) would end the scalar later; `\` starts an escape in "…".
    if text.as_bytes().get(close + 1) == Some(&q) || (q == b'"' && inner.contains('\\')) {
        return None;
    }
    Some((inner, close))
}

/// An item of a one-line flow sequence.
pub(crate) struct FlowItem<'a> {
    /// A plain item's text, or a quoted item's text between its quotes.
    pub(crate) text: &'a str,
    /// The quote of a quoted item.
    pub(crate) quote: Option<u8>,
    /// Its byte range in the text [`flow_items`] read; a quoted item's takes in the blanks
    /// after its closing quote (saphyr's span of a quoted scalar runs over them).
    pub(crate) span: Range<usize>,
}

/// A one-line flow sequence read by [`flow_items`].
pub(crate) struct FlowSequence<'a> {
    pub(crate) items: Vec<FlowItem<'a>>,
    /// A blank follows `[`. saphyr's token for `[ ` takes the blank in, and the general loader,
    /// which tells a flow collection by the bracket that ends its opening token, then spans
    /// the sequence as a block one: from its first item (the bracket when it has none) to its
    /// last item's end, not over the closing bracket and what follows it.
    pub(crate) spaced: bool,
}

impl FlowSequence<'_> {
    /// Its span as the general loader gives it, in the text [`flow_items`] read (whose line
    /// ends at `line_end`, after any blanks and comment).
    pub(crate) fn span(&self, line_end: usize) -> Range<usize> {
        match (self.spaced, self.items.first(), self.items.last()) {
            (false, _, _) => 0..line_end,
            (true, Some(first), Some(last)) => first.span.start..last.span.end,
            (true, _, _) => 0..0,
        }
    }
}

/// The one-line flow sequence of one-line scalars at the start of `text` (`[a, "b", 1]`,
/// `[ a ]`, `[]`), which only a comment may follow on its line; `None` for any other text.
/// `text` has no trailing blanks.
pub(crate) fn flow_items(text: &str) -> Option<FlowSequence<'_>> {
    let b = text.as_bytes();
    let mut items = Vec::new();
    let spaced = b.get(1) == Some(&b' ');
    let mut i = skip_blanks(b, 1);
    if b.get(i) != Some(&b']') {
        loop {
            let start = i;
            let (item, end) = match b.get(i)? {
                &q @ (b'"' | b'\'') => {
                    let (inner, close) = quoted(&text[i..], q)?;
                    let end = skip_blanks(b, i + close + 1);
                    (FlowItem { text: inner, quote: Some(q), span: start..end }, end)
                }
                _ => {
                    let len = b[i..].iter().position(|&c| matches!(c, b',' | b']'))?;
                    let value = text[i..i + len].trim_end_matches(' ');
                    // Flow context has more rules for `-`/`?` before a flow indicator
                    // (saphyr: "plain scalar cannot start with '-' followed by ,[]{}"), and
                    // go-yaml v2 ends a plain scalar at any `?` there (see `flow`).
                    let indicator =
                        value.ends_with(['-', '?']) || has_pair(value, b' ', b'-') || has_pair(value, b' ', b'?');
                    if !plain_ok(value) || indicator || value.contains([':', '#', '[', ']', '{', '}', '?']) {
                        return None;
                    }
                    (FlowItem { text: value, quote: None, span: start..start + value.len() }, i + len)
                }
            };
            items.push(item);
            match b.get(end)? {
                b',' => i = skip_blanks(b, end + 1),
                b']' => {
                    i = end;
                    break;
                }
                _ => return None,
            }
            if matches!(b.get(i), None | Some(b']' | b',')) {
                return None; // `[a, ]`, `[a,,b]`: left to the general loader.
            }
        }
    }
    comment_or_end(&text[i + 1..]).then_some(FlowSequence { items, spaced })
}

#[cfg(test)]
mod tests {
    #[test]
    fn find_pair_finds_the_first_pair_as_a_scan_of_every_two_bytes_does() {
        let slow = |t: &str, x: u8, y: u8| t.as_bytes().windows(2).position(|w| w[0] == x && w[1] == y);
        let bytes = [b' ', b'#', b':', b'-', b'a'];
        // Every text of up to six of these bytes, for each pair the loaders look for.
        let mut texts = vec![String::new()];
        for _ in 0..6 {
            let longer: Vec<String> =
                texts.iter().flat_map(|t| bytes.iter().map(move |&c| format!("{t}{}", c as char))).collect();
            texts.extend(longer);
        }
        texts.sort();
        texts.dedup();
        assert!(texts.len() > 5_000);
        for (x, y) in [(b' ', b'#'), (b':', b' '), (b' ', b'-'), (b'#', b'#')] {
            for t in &texts {
                assert_eq!(super::find_pair(t, x, y), slow(t, x, y), "{t:?} {:?}", (x as char, y as char));
            }
        }
    }

    use super::*;

    /// Lines split with `memchr` are `str::split`'s, and the bound counts each mark.
    #[test]
    fn lines_and_marks_are_counted_as_std_counts_them() {
        let mut next = crate::test_rng::numbers(3);
        let parts = ["\n", "a", "-", ":", ",", "[", "{", " ", "é", "\n\n"];
        for _ in 0..2_000 {
            let text: String = (0..next() % 200).map(|_| parts[next() % parts.len()]).collect();
            assert_eq!(split_lines(&text).collect::<Vec<_>>(), text.split('\n').collect::<Vec<_>>(), "{text:?}");
            let marks = text.bytes().filter(|b| matches!(b, b'\n' | b'-' | b':' | b',' | b'[' | b'{')).count();
            assert_eq!(node_bound(&text), 2 * marks + 2, "{text:?}");
        }
    }
}
