//! Case conversions as Go, goutils v1.1.1 and xstrings v1.5 do them (`upper`, `lower`,
//! `title`, `untitle`, `swapcase`, `initials`, `nospace`, `camelcase`, `snakecase`,
//! `kebabcase`).
//!
//! Go maps case one rune at a time with Unicode's *simple* mappings (`unicode.ToUpper('ß')` is
//! `'ß'`), while Rust's `to_uppercase` applies the full mappings (`"SS"`); the helpers here keep
//! the rune when the full mapping is not a single rune. Some goutils functions walk the string
//! *byte by byte* and turn each byte into a rune, which garbles non-ASCII text; that is
//! reproduced too, since it is what templates observe.

/// `unicode.ToUpper`.
pub(super) fn to_upper(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    single(c.to_uppercase(), c)
}

/// `unicode.ToLower`.
pub(super) fn to_lower(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    if c == '\u{130}' {
        // Simple mapping of 'İ' is 'i'; the full one adds a combining dot.
        return 'i';
    }
    single(c.to_lowercase(), c)
}

/// `unicode.ToTitle`: upper case except for the Latin digraphs, which have a title form, and
/// Georgian Mkhedruli, whose title case is itself.
pub(super) fn to_title(c: char) -> char {
    match c as u32 {
        0x1C4..=0x1C6 => '\u{1C5}',
        0x1C7..=0x1C9 => '\u{1C8}',
        0x1CA..=0x1CC => '\u{1CB}',
        0x1F1..=0x1F3 => '\u{1F2}',
        0x10D0..=0x10FA | 0x10FD..=0x10FF => c,
        _ => to_upper(c),
    }
}

fn single(mut it: impl Iterator<Item = char>, orig: char) -> char {
    match (it.next(), it.next()) {
        (Some(m), None) => m,
        _ => orig,
    }
}

/// `unicode.IsUpper`.
pub(super) fn is_upper(c: char) -> bool {
    c.is_uppercase() && !is_title(c)
}

/// `unicode.IsLower`.
pub(super) fn is_lower(c: char) -> bool {
    c.is_lowercase()
}

/// `unicode.IsTitle` (general category Lt).
pub(super) fn is_title(c: char) -> bool {
    matches!(c as u32, 0x1C5 | 0x1C8 | 0x1CB | 0x1F2 | 0x1F88..=0x1F8F | 0x1F98..=0x1F9F | 0x1FA8..=0x1FAF | 0x1FBC | 0x1FCC | 0x1FFC)
}

/// `unicode.IsSpace` (the same set as Rust's White_Space property).
pub(super) fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// `unicode.IsLetter` (approximated: alphabetic but not a number or combining mark).
pub(super) fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    c.is_alphabetic()
        && !c.is_numeric()
        && !matches!(c as u32, 0x300..=0x36F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// `unicode.IsNumber` (categories Nd, Nl, No).
pub(super) fn is_number(c: char) -> bool {
    c.is_numeric()
}

/// `unicode.IsPunct` (category P). Exact for ASCII (`$+<=>^`|~` are symbols, not
/// punctuation); common punctuation blocks beyond.
pub(super) fn is_punct(c: char) -> bool {
    if c.is_ascii() {
        return "!\"#%&'()*,-./:;?@[\\]_{}".contains(c);
    }
    matches!(c as u32,
        0xA1 | 0xA7 | 0xAB | 0xB6 | 0xB7 | 0xBB | 0xBF | 0x37E | 0x387 | 0x55A..=0x55F | 0x589 | 0x58A
        | 0x5BE | 0x5C0 | 0x5C3 | 0x5C6 | 0x5F3 | 0x5F4 | 0x609 | 0x60A | 0x60C | 0x60D | 0x61B
        | 0x61D..=0x61F | 0x66A..=0x66D | 0x6D4 | 0x964 | 0x965 | 0x970 | 0x2010..=0x2027
        | 0x2030..=0x2043 | 0x2045..=0x2051 | 0x2053..=0x205E | 0x207D | 0x207E | 0x208D | 0x208E
        | 0x2308..=0x230B | 0x2329 | 0x232A | 0x2768..=0x2775 | 0x27C5 | 0x27C6 | 0x27E6..=0x27EF
        | 0x2983..=0x2998 | 0x29D8..=0x29DB | 0x29FC | 0x29FD | 0x2E00..=0x2E2E | 0x2E30..=0x2E4F
        | 0x3001..=0x3003 | 0x3008..=0x3011 | 0x3014..=0x301F | 0x3030 | 0x303D | 0x30A0 | 0x30FB
        | 0xFE10..=0xFE19 | 0xFE30..=0xFE52 | 0xFE54..=0xFE61 | 0xFE63 | 0xFE68 | 0xFE6A | 0xFE6B
        | 0xFF01..=0xFF03 | 0xFF05..=0xFF0A | 0xFF0C..=0xFF0F | 0xFF1A | 0xFF1B | 0xFF1F | 0xFF20
        | 0xFF3B..=0xFF3D | 0xFF3F | 0xFF5B | 0xFF5D | 0xFF5F..=0xFF65)
}

/// `unicode.IsSpace` applied to a single byte turned into a rune, as goutils does.
fn is_space_byte(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ' | 0x85 | 0xA0)
}

/// Go's `strings.ToUpper`.
pub(super) fn upper(s: &str) -> String {
    s.chars().map(to_upper).collect()
}

/// Go's `strings.ToLower`.
pub(super) fn lower(s: &str) -> String {
    s.chars().map(to_lower).collect()
}

/// Go's deprecated `strings.Title`: the first letter after a separator is title-cased; ASCII
/// letters, digits and `_` are not separators, other non-space runes are not either.
pub(super) fn title(s: &str) -> String {
    let mut prev = ' ';
    s.chars()
        .map(|c| {
            let sep =
                if (prev as u32) <= 0x7F { !(prev.is_ascii_alphanumeric() || prev == '_') } else { is_space(prev) };
            prev = c;
            if sep { to_title(c) } else { c }
        })
        .collect()
}

/// goutils `Uncapitalize`: lower-cases the first rune of each whitespace-separated word.
pub(super) fn untitle(s: &str) -> String {
    let mut next = true;
    s.chars()
        .map(|c| {
            if is_space(c) {
                next = true;
                c
            } else if next {
                next = false;
                to_lower(c)
            } else {
                c
            }
        })
        .collect()
}

/// goutils `SwapCase`: upper/title → lower, lower → title after whitespace (or at the start),
/// otherwise upper.
pub(super) fn swapcase(s: &str) -> String {
    let mut whitespace = true;
    s.chars()
        .map(|c| {
            if is_upper(c) || is_title(c) {
                whitespace = false;
                to_lower(c)
            } else if is_lower(c) {
                if whitespace {
                    whitespace = false;
                    to_title(c)
                } else {
                    to_upper(c)
                }
            } else {
                whitespace = is_space(c);
                c
            }
        })
        .collect()
}

/// goutils `Initials`: walks *bytes*; the first byte of each word is written as the rune of
/// the same value (so a non-ASCII initial comes out as its first byte read as Latin-1).
pub(super) fn initials(s: &str) -> String {
    let mut out = String::new();
    let mut gap = true;
    for b in s.bytes() {
        if is_space_byte(b) {
            gap = true;
        } else if gap {
            out.push(char::from(b));
            gap = false;
        }
    }
    out
}

/// goutils `DeleteWhiteSpace`: also byte-wise. When nothing is removed the string comes back
/// unchanged; otherwise every kept byte is re-encoded as a Latin-1 rune, and the bytes 0x85 and
/// 0xA0 (inside UTF-8 sequences) count as white space.
pub(super) fn nospace(s: &str) -> String {
    if !s.bytes().any(is_space_byte) {
        return s.to_string();
    }
    s.bytes().filter(|b| !is_space_byte(*b)).map(char::from).collect()
}

fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || is_space(c)
}

/// xstrings `ToPascalCase` (Sprig's `camelcase` since v3.2): words split on `-`, `_` and
/// spaces, each word's first rune upper-cased, runs of upper case after it lowered.
pub(super) fn pascal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    let mut first_upper = false;
    let mut r0 = None;
    // Leading connectors are kept.
    for c in chars.by_ref() {
        if !is_connector(c) {
            first_upper = is_upper(c);
            r0 = Some(to_upper(c));
            break;
        }
        out.push(c);
        r0 = Some(c);
    }
    let Some(mut r0) = r0 else { return out };
    if chars.peek().is_none() {
        // xstrings writes the last rune again here, even when it was a connector already
        // written above ("_" gives "__").
        out.push(r0);
        return out;
    }
    for c in chars {
        let r1 = r0;
        r0 = c;
        if is_connector(r0) && is_connector(r1) {
            out.push(r1);
            continue;
        }
        if is_connector(r1) {
            first_upper = is_upper(r0);
            r0 = to_upper(r0);
        } else {
            if first_upper {
                if is_upper(r0) {
                    r0 = to_lower(r0);
                } else {
                    first_upper = false;
                }
            }
            out.push(r1);
        }
    }
    out.push(r0);
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Word {
    Invalid,
    Number,
    Upper,
    Alphabet,
    Connector,
    Punct,
    Other,
}

/// xstrings `isAlphabet`: a letter that is not a CJK ideograph.
fn is_alphabet(c: char) -> bool {
    if !is_letter(c) {
        return false;
    }
    !matches!(c as u32, 0x4E00..=0x9FCC | 0x3400..=0x4D85 | 0x20000..=0x2B81D)
}

/// xstrings `nextWord`: the type of the next word, the word, and the rest.
fn next_word(s: &str) -> (Word, &str, &str) {
    let mut it = s.char_indices().peekable();
    let Some((_, c)) = it.next() else {
        return (Word::Invalid, "", "");
    };
    let end_while = |it: &mut std::iter::Peekable<std::str::CharIndices<'_>>, pred: &dyn Fn(char) -> bool| {
        while let Some(&(_, c)) = it.peek() {
            if !pred(c) {
                break;
            }
            it.next();
        }
        it.peek().map_or(s.len(), |&(i, _)| i)
    };
    let (wt, end) = if is_connector(c) {
        (Word::Connector, end_while(&mut it, &is_connector))
    } else if is_punct(c) {
        (Word::Punct, end_while(&mut it, &is_punct))
    } else if is_upper(c) {
        match it.peek().copied() {
            None => (Word::Upper, s.len()),
            Some((_, n)) if is_upper(n) => {
                // "HTTPStatus" splits into "HTTP" and "Status": the last upper-case rune
                // before a lower-case letter starts the next word.
                let mut last_start = 0;
                while let Some(&(i, c)) = it.peek() {
                    if !is_upper(c) {
                        break;
                    }
                    last_start = i;
                    it.next();
                }
                match it.peek() {
                    Some(&(_, c)) if is_alphabet(c) => (Word::Upper, last_start),
                    Some(&(i, _)) => (Word::Upper, i),
                    None => (Word::Upper, s.len()),
                }
            }
            Some((_, n)) if is_alphabet(n) => (Word::Upper, end_while(&mut it, &|c| is_alphabet(c) && !is_upper(c))),
            Some((i, _)) => (Word::Upper, i),
        }
    } else if is_alphabet(c) {
        (Word::Alphabet, end_while(&mut it, &|c| is_alphabet(c) && !is_upper(c)))
    } else if is_number(c) {
        (Word::Number, end_while(&mut it, &is_number))
    } else {
        (Word::Other, end_while(&mut it, &|c| !(is_connector(c) || is_alphabet(c) || is_number(c) || is_punct(c))))
    };
    (wt, &s[..end], &s[end..])
}

/// xstrings `toLower`: only upper-case and connector words are rewritten.
fn push_lower(out: &mut String, wt: Word, word: &str, connector: char) {
    if wt != Word::Upper && wt != Word::Connector {
        out.push_str(word);
        return;
    }
    for c in word.chars() {
        if is_connector(c) {
            out.push(connector);
        } else if is_upper(c) {
            out.push(to_lower(c));
        } else {
            out.push(c);
        }
    }
}

/// xstrings `camelCaseToLowerCase` (`snakecase` with `_`, `kebabcase` with `-`): words are
/// lower-cased and joined with the connector; a number sticks to the word before it unless
/// lower-case letters follow it ("Bld4Floor" → "bld4_floor", "HTTP2xx" → "http_2xx").
pub(super) fn to_lower_words(s: &str, connector: char) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    let (mut wt, mut word, mut rest) = next_word(s);
    while !rest.is_empty() {
        if wt != Word::Connector {
            push_lower(&mut out, wt, word, connector);
        }
        let prev = wt;
        let last = word;
        (wt, word, rest) = next_word(rest);
        match prev {
            Word::Number => {
                while wt == Word::Alphabet || wt == Word::Number {
                    push_lower(&mut out, wt, word, connector);
                    (wt, word, rest) = next_word(rest);
                }
                if !matches!(wt, Word::Invalid | Word::Punct | Word::Connector) {
                    out.push(connector);
                }
            }
            Word::Connector => push_lower(&mut out, prev, last, connector),
            Word::Punct => {}
            _ => {
                if wt != Word::Number {
                    if wt != Word::Connector && wt != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                if rest.is_empty() {
                    continue;
                }
                let number = word;
                (wt, word, rest) = next_word(rest);
                if wt != Word::Alphabet {
                    push_lower(&mut out, Word::Number, number, connector);
                    if wt != Word::Connector && wt != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                out.push(connector);
                push_lower(&mut out, Word::Number, number, connector);
                while wt == Word::Alphabet || wt == Word::Number {
                    push_lower(&mut out, wt, word, connector);
                    (wt, word, rest) = next_word(rest);
                }
                if !matches!(wt, Word::Invalid | Word::Connector | Word::Punct) {
                    out.push(connector);
                }
            }
        }
    }
    push_lower(&mut out, wt, word, connector);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_and_kebab_follow_xstrings() {
        for (i, want) in [
            ("HelloWorldHTTPServer", "hello_world_http_server"),
            ("already_snake", "already_snake"),
            ("with space Here", "with_space_here"),
            ("Sriov2Network", "sriov2_network"),
            ("FirstName", "first_name"),
            ("NoHTTPS", "no_https"),
            ("GO-PATH", "go_path"),
            ("http2xx", "http_2xx"),
            ("HTTP20xOK", "http_20x_ok"),
            ("Duration2m3s", "duration_2m3s"),
            ("Bld4Floor3rd", "bld4_floor_3rd"),
        ] {
            assert_eq!(to_lower_words(i, '_'), want, "{i}");
        }
        assert_eq!(to_lower_words("ptp4lConf", '-'), "ptp-4l-conf");
        assert_eq!(to_lower_words("ABCDef", '-'), "abc-def");
    }

    #[test]
    fn pascal_follows_xstrings() {
        for (i, want) in [
            ("hello_world", "HelloWorld"),
            ("http_server_id", "HttpServerId"),
            ("kebab-case-x", "KebabCaseX"),
            ("ptp4l_conf", "Ptp4lConf"),
            ("_complex__case_", "_Complex_Case_"),
            ("GOLANG_IS_GREAT", "GolangIsGreat"),
            ("some words", "SomeWords"),
            ("x", "X"),
        ] {
            assert_eq!(pascal(i), want, "{i}");
        }
    }

    #[test]
    fn title_and_swapcase() {
        assert_eq!(title("o'neil mc-donald x_y"), "O'Neil Mc-Donald X_y");
        assert_eq!(title("4g lte 5g-nr"), "4g Lte 5g-Nr");
        assert_eq!(swapcase("Hello World 123"), "hELLO wORLD 123");
        assert_eq!(upper("straße"), "STRAßE");
    }
}
