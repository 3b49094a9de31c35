//! go-yaml v2's "natural" map-key order (`sorter.go`, kube-compare spec Appendix B).
//!
//! Every YAML Kubernetes writes sorts keys this way, so a diff of our output against
//! kube-compare's only lines up if we do too: `_x < "1" < "9" < "10" < B < Zed < a9 < a10`.

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
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (al, bl) = (is_letter(ar[i]), is_letter(br[i]));
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        // A zero after a non-zero digit run is part of a bigger number, not a leading zero.
        if ar[i] == '0' || br[i] == '0' {
            for &c in ar[..i].iter().rev() {
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
        let (ai, an) = digit_run(&ar, i, an);
        let (bi, bn) = digit_run(&br, i, bn);
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// Accumulates the digit run starting at `i` like Go does (`n*10 + (r - '0')`, wrapping).
fn digit_run(r: &[char], mut i: usize, mut n: i64) -> (usize, i64) {
    while i < r.len() && is_digit(r[i]) {
        n = n.wrapping_mul(10).wrapping_add(i64::from(u32::from(r[i])) - i64::from(b'0'));
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

/// Sorts with a merge sort that only asks `less`, so an inconsistent order (possible with
/// odd digit runs) can never make the sort panic, as `slice::sort_by` may.
pub(crate) fn sort_keys(keys: &mut Vec<&str>) {
    if keys.len() < 2 {
        return;
    }
    let mut right = keys.split_off(keys.len() / 2);
    sort_keys(keys);
    sort_keys(&mut right);
    let left = std::mem::take(keys);
    keys.reserve(left.len() + right.len());
    let (mut l, mut r) = (left.into_iter().peekable(), right.into_iter().peekable());
    while let (Some(&x), Some(&y)) = (l.peek(), r.peek()) {
        if key_less(y, x) {
            keys.push(y);
            r.next();
        } else {
            keys.push(x);
            l.next();
        }
    }
    keys.extend(l);
    keys.extend(r);
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
