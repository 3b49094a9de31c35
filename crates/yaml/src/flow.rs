//! Flow collections (`[…]`, `{…}`) as go-yaml v2 reads them, where saphyr-parser (which
//! follows YAML 1.2) reads them otherwise.
//!
//! * **Indentation.** go-yaml's scanner does not look at indentation inside a flow
//!   collection (libyaml unrolls block indents only outside flow context), so a closing `]`
//!   written at its key's column is fine (istio's `args: [` … `]`). saphyr wants every line
//!   of the collection deeper than the enclosing block and stops with "invalid indentation".
//!   The loader reads such a text again with blanks added at the start of that line, up to
//!   the column after the outermost open bracket: inside a flow collection blanks at a line's
//!   start separate tokens and nothing else (a scalar continued there drops them when it is
//!   folded), so the value is the same.
//! * **A `:` inside a plain scalar.** go-yaml v2 ends a plain scalar at `:` only before a
//!   blank; YAML 1.2 also before a flow indicator, so saphyr reads `[1.2.3.4, 001:db8::]`
//!   as a sequence holding a mapping (`001:db8:` → null). The loader notes every plain scalar
//!   in flow context that saphyr ended at such a `:` ([`colon_before_flow_indicator`]) and
//!   reads the text again with the colons of go-yaml's reading of that scalar
//!   ([`go_plain_end`]) masked ([`MASK`], one byte for one: every offset stays), taking the
//!   scalar's value from the original text.
//! * **`?` and a leading `:`.** In flow context go-yaml v2 also ends a plain scalar at any
//!   `?`, and reads a `:` that starts a token as a value indicator; either then leaves a token
//!   where none may stand, and the document is refused. saphyr reads both as part of the
//!   scalar (`[a?b]`, `[::1]`); the loader refuses them ([`go_refuses`]), and a `|` or `>`
//!   that starts one (go-yaml: "found character that cannot start any token"). A `?` that
//!   starts a plain scalar is a key indicator for go-yaml whatever follows it (`[?a]` is
//!   `[{a: null}]`): the text is read again with a blank after that `?`, which is what
//!   saphyr needs to read it so.
//!
//! Two more of go-yaml's readings are made the same way, with a byte for a byte: a tab
//! after a `:` separates like a blank (saphyr: "':' must be followed by a valid YAML
//! whitespace"), and NEL (U+0085) breaks a line, as CR LF does (YAML 1.2 took NEL out of
//! the line breaks; go-yaml's `is_break` keeps it).

/// What a masked colon reads as: a character that continues a plain scalar in any context.
pub(crate) const MASK: u8 = b'_';

/// The message saphyr-parser gives for a tab after a `:`.
pub(crate) const TAB_AFTER_COLON: &str = "':' must be followed by a valid YAML whitespace";

/// The messages saphyr-parser gives for a line indented less than it wants.
pub(crate) fn is_indentation(message: &str) -> bool {
    matches!(message, "invalid indentation" | "invalid indentation in flow construct")
}

/// Whether the plain scalar saphyr read in flow context, whose source ends at `end`, stops
/// at a `:` that go-yaml v2 would read on past: one followed by a flow indicator.
pub(crate) fn colon_before_flow_indicator(text: &str, end: usize) -> bool {
    let bytes = text.as_bytes();
    bytes.get(end) == Some(&b':') && matches!(bytes.get(end + 1), Some(b',' | b'[' | b']' | b'{' | b'}'))
}

/// Why go-yaml v2 refuses a document with `scalar`, the source text of a plain scalar saphyr
/// read in flow context, if it does.
pub(crate) fn go_refuses(scalar: &str) -> Option<&'static str> {
    if scalar.starts_with(':') {
        return Some(
            "a `:` that starts a plain scalar inside a flow collection is a value indicator for go-yaml v2 (quote the scalar)",
        );
    }
    if scalar == "?" {
        return Some("a `?` alone inside a flow collection is a key indicator for go-yaml v2 (quote the scalar)");
    }
    if scalar.starts_with(['|', '>']) {
        return Some(
            "a `|` or `>` cannot start a plain scalar inside a flow collection for go-yaml v2 (quote the scalar)",
        );
    }
    if scalar.chars().skip(1).any(|c| c == '?') {
        return Some("a `?` inside a plain scalar ends it in a flow collection for go-yaml v2 (quote the scalar)");
    }
    None
}

/// Where go-yaml v2's scanner ends the plain scalar that starts at `start` in flow context
/// (`yaml_parser_scan_plain_scalar`): before a `:` followed by a blank, a line break or the
/// end, before `,` `?` `[` `]` `{` `}`, before a `#` after a blank. Line breaks do not end it.
pub(crate) fn go_plain_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b':' if bytes.get(i + 1).is_none_or(blank) => return i,
            b',' | b'?' | b'[' | b']' | b'{' | b'}' => return i,
            b'#' if i > start && blank(&bytes[i - 1]) => return i,
            _ => i += 1,
        }
    }
    i
}

/// The value of a plain scalar read from masked text (`value`, folded from `masked`, its
/// source) with the colons back that `unmasked`, the same source before masking, has.
/// Folding drops and turns blanks and line breaks only, so the other characters of the value
/// are those of the source, in order.
pub(crate) fn unmask(value: &str, masked: &str, unmasked: &str) -> String {
    let white = |c: &char| matches!(c, ' ' | '\t' | '\r' | '\n');
    let mut colons = masked.chars().zip(unmasked.chars()).filter(|(m, _)| !white(m)).map(|(m, u)| m != u);
    value.chars().map(|c| if !white(&c) && colons.next() == Some(true) { ':' } else { c }).collect()
}

/// Bytes replaced in a text, each by one byte: masked colons (whose scalars get their text
/// back) and go-yaml's readings of tabs and NEL (which stay).
#[derive(Debug, Default)]
pub(crate) struct Masks {
    colons: Vec<usize>,
    others: Vec<(usize, u8)>,
}

impl Masks {
    /// The masks every reading of `text` starts with: each NEL as CR LF.
    pub(crate) fn new(text: &str) -> Self {
        let mut masks = Masks::default();
        if text.contains('\u{85}') {
            for (at, _) in text.match_indices('\u{85}') {
                masks.others.extend([(at, b'\r'), (at + 1, b'\n')]);
            }
        }
        masks
    }

    pub(crate) fn has_colons(&self) -> bool {
        !self.colons.is_empty()
    }

    /// Masks the colons of go-yaml's reading of each plain scalar starting at `starts`
    /// (offsets in `text`); `false` when none is new (reading again would change nothing).
    pub(crate) fn add_scalars(&mut self, text: &str, starts: impl IntoIterator<Item = usize>) -> bool {
        let before = self.colons.len();
        for start in starts {
            let end = go_plain_end(text, start);
            let colons = text.as_bytes()[start..end].iter().enumerate().filter(|(_, b)| **b == b':');
            self.colons.extend(colons.map(|(i, _)| start + i));
        }
        self.colons.sort_unstable();
        self.colons.dedup();
        self.colons.len() > before
    }

    /// Reads the tabs between a key's `:` and `at` in `text` as blanks (saphyr reports the tab
    /// after a `:` at what follows the tabs); `false` when there are none left to replace.
    pub(crate) fn add_tab(&mut self, text: &str, at: usize) -> bool {
        let bytes = text.as_bytes();
        let blanks = bytes[..at.min(bytes.len())].iter().rev().take_while(|b| matches!(b, b' ' | b'\t')).count();
        let start = at.min(bytes.len()) - blanks;
        if start == 0 || bytes[start - 1] != b':' {
            return false;
        }
        // Only after a key on the same line: go-yaml refuses a tab after the `:` of an
        // explicit key's value (`? a` then `:\tb`), as after `-`.
        let line = &bytes[..start - 1];
        let line_start = line.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if line[line_start..].iter().all(|b| matches!(b, b' ' | b'\t')) {
            return false;
        }
        let before = self.others.len();
        for (i, &b) in bytes.iter().enumerate().skip(start).take(blanks) {
            if b == b'\t' && !self.others.iter().any(|&(o, _)| o == i) {
                self.others.push((i, b' '));
            }
        }
        self.others.len() > before
    }

    /// `text` with the tabs and NELs replaced, and the colons too when `colons`.
    pub(crate) fn apply<'t>(&self, text: &'t str, colons: bool) -> std::borrow::Cow<'t, str> {
        if self.others.is_empty() && (!colons || self.colons.is_empty()) {
            return std::borrow::Cow::Borrowed(text);
        }
        let mut bytes = text.as_bytes().to_vec();
        for &(at, b) in &self.others {
            bytes[at] = b;
        }
        if colons {
            for &at in &self.colons {
                bytes[at] = MASK;
            }
        }
        // Only whole characters were replaced, by ASCII: a tab, a `:`, NEL's two bytes.
        std::borrow::Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_plain_end_follows_go_yaml_v2() {
        fn end(t: &str) -> &str {
            &t[..go_plain_end(t, 0)]
        }
        assert_eq!(end("001:db8::]"), "001:db8::");
        assert_eq!(end("a:b: c}"), "a:b");
        assert_eq!(end("a:,b"), "a:");
        assert_eq!(end("a?b]"), "a");
        assert_eq!(end("a #b"), "a ");
        assert_eq!(end("a#b]"), "a#b");
        assert_eq!(end("a:b\n  ]"), "a:b\n  ");
        assert_eq!(end("a:b\n  c:, d"), "a:b\n  c:");
        assert_eq!(end("a:b:\n"), "a:b");
        assert_eq!(end("a::"), "a:");
        assert_eq!(unmask("a_b c_ d_e", "a_b\n  c_ d_e", "a:b\n  c: d_e"), "a:b c: d_e");
    }

    #[test]
    fn masks_keep_every_offset() {
        let text = "k: [1.2.3.4, 001:db8::, a:]\n";
        let mut masks = Masks::default();
        assert!(masks.add_scalars(text, [text.find("001").unwrap(), text.find("a:").unwrap()]));
        assert!(!masks.add_scalars(text, [text.find("001").unwrap()]));
        assert_eq!(masks.apply(text, true), "k: [1.2.3.4, 001_db8__, a_]\n");
        assert_eq!(masks.apply(text, false), text);
        let nel = "a: b\u{85}c\nd:\t \te\n";
        let mut masks = Masks::new(nel);
        assert!(masks.add_tab(nel, nel.find('e').unwrap()));
        assert!(!masks.add_tab(nel, nel.find('e').unwrap()) && !masks.add_tab(nel, nel.find('c').unwrap()));
        assert_eq!(masks.apply(nel, true), "a: b\r\nc\nd:   e\n");
        let explicit = "? a\n:\tb\n";
        assert!(!Masks::default().add_tab(explicit, explicit.find('b').unwrap()));
        assert!(go_refuses("a?b").is_some() && go_refuses("::1").is_some() && go_refuses("?a").is_none());
        assert!(go_refuses("é?").is_some() && go_refuses("é").is_none());
    }
}
