//! go-yaml v2's "natural" map-key order (`sorter.go`, kube-compare spec Appendix B).
//!
//! Every YAML Kubernetes writes sorts keys this way, so a diff of our output against
//! kube-compare's only lines up if we do too: `_x < "1" < "9" < "10" < B < Zed < a9 < a10`.
//!
//! The writer sorts every mapping it writes, so the common case is kept cheap: ASCII keys are
//! compared as bytes (no `Vec<char>`), and a set of ASCII keys whose order never hinges on a
//! digit run is put in order with a plain byte ranking (see [`sort_keys_by`]).

use std::cmp::Ordering;

/// go-yaml v2's `keyList.Less` for two string keys.
///
/// At the first differing character: two letters compare by code point; a letter sorts after
/// a non-letter; otherwise the digit runs starting there compare numerically (then by length,
/// then by code point). A key that is a prefix of the other sorts first.
///
/// Letters and digits are judged with Rust's `char::is_alphabetic` / `is_numeric`, which
/// agree with Go's `unicode.IsLetter` / `IsDigit` for ASCII and most scripts (they differ for
/// a few marks and number forms).
///
/// ```
/// use driftlint_yaml::key_less;
/// assert!(key_less("a9", "a10"));
/// assert!(key_less("_x", "1"));
/// assert!(key_less("Zed", "a9"));
/// ```
#[must_use]
pub fn key_less(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        // ASCII bytes are the characters themselves.
        less(a.as_bytes(), b.as_bytes())
    } else {
        let ar: Vec<char> = a.chars().collect();
        let br: Vec<char> = b.chars().collect();
        less(&ar, &br)
    }
}

/// [`key_less`] over characters (`char`s, or the bytes of ASCII text).
fn less<T: Copy + Into<char>>(ar: &[T], br: &[T]) -> bool {
    let ch = |r: &[T], i: usize| -> char { r[i].into() };
    for i in 0..ar.len().min(br.len()) {
        let (a, b) = (ch(ar, i), ch(br, i));
        if a == b {
            continue;
        }
        let (al, bl) = (is_letter(a), is_letter(b));
        if al && bl {
            return a < b;
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        // A zero after a non-zero digit run is part of a bigger number, not a leading zero.
        if a == '0' || b == '0' {
            for j in (0..i).rev() {
                let c = ch(ar, j);
                if !is_digit(c) {
                    break;
                }
                if c != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let (ai, an) = digit_run(ar, i, an);
        let (bi, bn) = digit_run(br, i, bn);
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return a < b;
    }
    ar.len() < br.len()
}

/// Accumulates the digit run starting at `i` like Go does (`n*10 + (r - '0')`, wrapping).
fn digit_run<T: Copy + Into<char>>(r: &[T], mut i: usize, mut n: i64) -> (usize, i64) {
    while i < r.len() && is_digit(r[i].into()) {
        let c: char = r[i].into();
        n = n.wrapping_mul(10).wrapping_add(i64::from(u32::from(c)) - i64::from(b'0'));
        i += 1;
    }
    (i, n)
}

fn is_letter(c: char) -> bool {
    if c.is_ascii() { c.is_ascii_alphabetic() } else { c.is_alphabetic() }
}

fn is_digit(c: char) -> bool {
    if c.is_ascii() { c.is_ascii_digit() } else { c.is_numeric() }
}

/// [`key_less`] as an [`Ordering`].
#[must_use]
pub fn key_cmp(a: &str, b: &str) -> Ordering {
    if key_less(a, b) {
        Ordering::Less
    } else if key_less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// Sorts keys in [`key_less`] order, exactly as go-yaml's sort would leave them.
#[cfg(test)]
pub(crate) fn sort_keys(keys: &mut [&str]) {
    sort_keys_by(keys, |k| k);
}

/// Sorts `items` by their keys in [`key_less`] order with the result of a stable merge sort
/// that only asks `key_less` (an inconsistent order, possible with odd digit runs, can then
/// never make the sort panic, as `slice::sort_by` may).
///
/// Fast path, exact: for ASCII keys, [`rank_cmp`] is a total order, and `key_less` agrees
/// with it on two keys whenever neither character at their first difference is a digit (a
/// prefix sorts first in both; two letters, or a letter and a non-letter, or two non-letter
/// non-digits are exactly what the ranking encodes). Once the keys are in `rank_cmp` order,
/// the first difference of any two of them is at the smallest first difference of the
/// neighbours between them, and the characters there are characters of some neighbour pair's
/// first difference. So if no neighbour pair differs at a digit, `key_less` agrees with the
/// ranking on *every* pair, is a total order on these keys, and any stable sort (the merge
/// sort included) gives this very order. Otherwise the merge sort runs on the original order.
pub(crate) fn sort_keys_by<'a, T: Copy>(items: &mut [T], key: impl Fn(T) -> &'a str + Copy) {
    if items.len() < 2 {
        return;
    }
    if items.iter().all(|&t| key(t).is_ascii()) {
        if ranked_without_digit_boundaries(items, key) {
            return;
        }
        let original = items.to_vec();
        items.sort_by(|&a, &b| rank_cmp(key(a).as_bytes(), key(b).as_bytes()));
        if ranked_without_digit_boundaries(items, key) {
            return;
        }
        items.copy_from_slice(&original);
    }
    merge_sort(items, key);
}

/// The ranking of ASCII key bytes: non-letters by code point, then letters by code point.
fn rank(b: u8) -> u8 {
    if b.is_ascii_alphabetic() { b | 0x80 } else { b }
}

/// Lexicographic order of ASCII keys by [`rank`], a prefix first.
fn rank_cmp(a: &[u8], b: &[u8]) -> Ordering {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => rank(a[i]).cmp(&rank(b[i])),
        None => a.len().cmp(&b.len()),
    }
}

/// The items are in [`rank_cmp`] order (ties allowed) and no neighbours first differ at a
/// digit.
fn ranked_without_digit_boundaries<'a, T: Copy>(items: &[T], key: impl Fn(T) -> &'a str) -> bool {
    items.windows(2).all(|w| {
        let (a, b) = (key(w[0]).as_bytes(), key(w[1]).as_bytes());
        match a.iter().zip(b).position(|(x, y)| x != y) {
            Some(i) => !a[i].is_ascii_digit() && !b[i].is_ascii_digit() && rank(a[i]) < rank(b[i]),
            None => a.len() <= b.len(),
        }
    })
}

/// Stable merge sort asking only `key_less(later, earlier)`, as go-yaml's `sort.Sort` result.
fn merge_sort<'a, T: Copy>(items: &mut [T], key: impl Fn(T) -> &'a str + Copy) {
    if items.len() < 2 {
        return;
    }
    let mid = items.len() / 2;
    merge_sort(&mut items[..mid], key);
    merge_sort(&mut items[mid..], key);
    let left = items[..mid].to_vec();
    let right = items[mid..].to_vec();
    let (mut l, mut r) = (0, 0);
    for slot in items.iter_mut() {
        let take_right = l == left.len() || (r < right.len() && key_less(key(right[r]), key(left[l])));
        if take_right {
            *slot = right[r];
            r += 1;
        } else {
            *slot = left[l];
            l += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_order() {
        let mut keys = vec!["bool", "a10", "Zed", "10", "B", "a9", "9", "_x", "1", "colon"];
        sort_keys(&mut keys);
        assert_eq!(keys, ["_x", "1", "9", "10", "B", "Zed", "a9", "a10", "bool", "colon"]);
    }

    #[test]
    fn digit_runs() {
        assert!(key_less("a1", "a01")); // same number, shorter run first
        assert!(key_less("x2y", "x10y"));
        assert!(key_less("v1.2", "v1.10"));
        assert!(key_less("a", "ab"));
        assert!(!key_less("ab", "ab"));
        assert!(key_less("a-b", "a_b")); // both non-letters, no digits: code point
        assert!(key_less("100", "101"));
        assert!(key_less("10", "100"));
        assert!(key_less("a.b", "aa"));
    }
}
