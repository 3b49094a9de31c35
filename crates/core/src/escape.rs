//! The one escaping step every text output applies to what a checked repository controls:
//! file names, values, keys, field pointers, messages, suppression reasons, source lines.
//!
//! A pull request is untrusted, and the text formats end up in terminals and CI logs. There a
//! raw ESC byte moves the cursor or rewrites earlier lines, a newline starts a line that
//! GitHub Actions reads as a workflow command (`::error …`, `::add-mask::`, `::stop-commands::`),
//! a carriage return hides what came before it, and bidirectional overrides reorder what a
//! reviewer reads ("Trojan Source"). So every such character becomes a visible escape:
//!
//! * [`text`] — for one-line fields (messages, paths, reasons): C0 controls (newline, tab and
//!   carriage return included), DEL, C1 controls, the Unicode line and paragraph separators and
//!   the bidirectional formatting characters are written `\n`, `\t`, `\r`, `\x1b`, `\u{202e}`.
//! * [`source_line`] — for source text shown in snippets, where byte offsets must stay put:
//!   each such character (other than tab and the line break itself) is replaced by a visible
//!   character of the same UTF-8 length.
//!
//! The structured formats (JSON, SARIF) carry the raw values: their encoders escape control
//! characters, and their readers are programs, not terminals.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must never reach a terminal or a log raw.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}') || is_bidi(c)
}

/// The bidirectional embedding, override and isolate characters.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` on one line with every unsafe character as a visible escape (`\n`, `\x1b`, `\u{202e}`).
pub fn text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) && (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_unsafe(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Like [`text`], but line breaks (`\n`, `\r\n`) are kept: for formats that encode them
/// themselves (GitHub workflow commands write `%0A`).
pub fn multiline(s: &str) -> Cow<'_, str> {
    if !s.contains('\n') {
        return text(s);
    }
    let parts: Vec<Cow<str>> = s.split('\n').map(|l| text(l.strip_suffix('\r').unwrap_or(l))).collect();
    Cow::Owned(parts.join("\n"))
}

/// Source text for a snippet: tabs and line breaks (`\n`, and `\r` before `\n`) are kept,
/// every other unsafe character becomes a visible one of the same UTF-8 length (`?` for one
/// byte, `¿` for two, `\u{fffd}` for three), so byte offsets into the text stay valid.
pub fn source_line(s: &str) -> Cow<'_, str> {
    let keeps = |i: usize, c: char| c == '\t' || c == '\n' || (c == '\r' && s.as_bytes().get(i + 1) == Some(&b'\n'));
    if !s.char_indices().any(|(i, c)| is_unsafe(c) && !keeps(i, c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        if !is_unsafe(c) || keeps(i, c) {
            out.push(c);
            continue;
        }
        out.push(match c.len_utf8() {
            1 => '?',
            2 => '¿',
            _ => '\u{fffd}',
        });
    }
    Cow::Owned(out)
}

/// A message of several lines (an error and its causes) for standard error: each line escaped
/// as [`text`] does, the line breaks between them kept. A line that would start with `::` (a
/// workflow command, once GitHub trims its leading spaces) gets its first colon escaped.
pub fn lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        let escaped = text(line);
        let indent = escaped.len() - escaped.trim_start().len();
        if escaped[indent..].starts_with("::") {
            out.push_str(&escaped[..indent]);
            out.push_str("\\x3a");
            out.push_str(&escaped[indent + 1..]);
        } else {
            out.push_str(&escaped);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_escapes_every_control_and_bidi_character() {
        assert_eq!(text("plain: ü €"), "plain: ü €");
        assert!(matches!(text("plain"), Cow::Borrowed(_)));
        assert_eq!(text("a\nb\r\tc"), "a\\nb\\r\\tc");
        assert_eq!(text("\u{1b}[1A\u{1b}[2K"), "\\x1b[1A\\x1b[2K");
        assert_eq!(text("x\u{7f}\u{9b}y"), "x\\x7f\\x9by");
        assert_eq!(text("a\u{202e}b\u{2066}c\u{2028}"), "a\\u{202e}b\\u{2066}c\\u{2028}");
        assert_eq!(text("\0"), "\\x00");
        // Nothing a log reads as a command can start a line.
        assert!(!text("x\n::error file=a::pwned").contains('\n'));
    }

    #[test]
    fn multiline_keeps_only_line_breaks() {
        assert_eq!(multiline("a\r\nb\u{1b}\nc\rd"), "a\nb\\x1b\nc\\rd");
        assert_eq!(multiline("one\t"), "one\\t");
    }

    #[test]
    fn lines_keep_line_breaks_but_no_workflow_command() {
        assert_eq!(lines("error: x\n  caused by: y\u{1b}"), "error: x\n  caused by: y\\x1b");
        assert_eq!(
            lines("a\n  ::error file=x::pwned\r\n::add-mask::z"),
            "a\n  \\x3a:error file=x::pwned\n\\x3a:add-mask::z"
        );
    }

    #[test]
    fn source_lines_keep_their_byte_offsets() {
        for s in ["a\u{1b}[2Kb\n", "x\u{9b}y\r\n", "\u{202e}rtl\tz", "lone\rcr\n", "\u{7f}\u{0}"] {
            let out = source_line(s);
            assert_eq!(out.len(), s.len(), "{s:?} -> {out:?}");
            assert!(!out.chars().any(|c| is_unsafe(c) && c != '\n' && c != '\t' && c != '\r'), "{out:?}");
        }
        assert_eq!(source_line("a\u{1b}b\r\nc\rd"), "a?b\r\nc?d");
        assert!(matches!(source_line("a: b\r\n\tc\n"), Cow::Borrowed(_)));
    }
}
