//! A port of sergi/go-diff v1.4.0 `DiffMain(text1, text2, checklines=false)`.
//!
//! kube-compare uses go-diff twice (§5.5.2, §5.8): to split a capturegroups pattern against
//! the cluster value, and to score a candidate (the byte length of every Insert and Delete
//! segment between the MERGED and LIVE YAML texts). Both outcomes depend on go-diff's exact
//! segmentation, so this follows its algorithm step by step: rune based, common prefix and
//! suffix stripping, the "shorter text inside the longer" speedup, the half-match heuristic
//! (on, because `Diff_Timeout` is 1 s), Myers bisection with the 1 s deadline checked every
//! 16 steps, and `DiffCleanupMerge`. Line mode is never used (`checklines=false`).

use std::time::{Duration, Instant};

/// What a segment does to the first text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Delete,
    Insert,
    Equal,
}

/// One diff segment (`diffmatchpatch.Diff`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub op: Op,
    pub text: String,
}

type Runes = Vec<char>;
type RDiff = (Op, Runes);

/// go-diff's default `Diff_Timeout`.
const TIMEOUT: Duration = Duration::from_secs(1);

/// `DiffMain(text1, text2, false)` with go-diff's defaults.
#[must_use]
pub fn diff_main(text1: &str, text2: &str) -> Vec<Segment> {
    let a: Runes = text1.chars().collect();
    let b: Runes = text2.chars().collect();
    let deadline = Instant::now() + TIMEOUT;
    main_runes(&a, &b, deadline).into_iter().map(|(op, t)| Segment { op, text: t.into_iter().collect() }).collect()
}

/// kube-compare's diff score (§5.8): the byte length of every Insert and Delete segment.
#[must_use]
pub fn score(merged: &str, live: &str) -> usize {
    if merged == live {
        return 0;
    }
    let a: Runes = merged.chars().collect();
    let b: Runes = live.chars().collect();
    let deadline = Instant::now() + TIMEOUT;
    // The segments' UTF-8 byte lengths, without building their strings.
    main_runes(&a, &b, deadline)
        .iter()
        .filter(|(op, _)| *op != Op::Equal)
        .map(|(_, t)| t.iter().map(|c| c.len_utf8()).sum::<usize>())
        .sum()
}

/// A lower bound of [`score`], in one pass over the bytes: for every byte value, how many
/// more times one text has it than the other. Any diff of the two texts deletes or inserts
/// at least that many bytes of each value (equal segments pair equal characters, hence equal
/// bytes), whatever segmentation go-diff settles on, so `score(a, b) >= score_lower_bound(a, b)`.
/// A candidate whose bound exceeds another's score cannot win (§4.3).
#[must_use]
pub fn score_lower_bound(merged: &str, live: &str) -> usize {
    let mut counts = [0isize; 256];
    for &b in merged.as_bytes() {
        counts[usize::from(b)] += 1;
    }
    for &b in live.as_bytes() {
        counts[usize::from(b)] -= 1;
    }
    counts.iter().map(|c| c.unsigned_abs()).sum()
}

fn main_runes(text1: &[char], text2: &[char], deadline: Instant) -> Vec<RDiff> {
    if text1 == text2 {
        return if text1.is_empty() { Vec::new() } else { vec![(Op::Equal, text1.to_vec())] };
    }
    let pre = common_prefix(text1, text2);
    let (prefix, t1, t2) = (&text1[..pre], &text1[pre..], &text2[pre..]);
    let suf = common_suffix(t1, t2);
    let suffix = &t1[t1.len() - suf..];
    let (t1, t2) = (&t1[..t1.len() - suf], &t2[..t2.len() - suf]);
    let mut diffs = compute(t1, t2, deadline);
    if !prefix.is_empty() {
        diffs.insert(0, (Op::Equal, prefix.to_vec()));
    }
    if !suffix.is_empty() {
        diffs.push((Op::Equal, suffix.to_vec()));
    }
    cleanup_merge(diffs)
}

fn compute(text1: &[char], text2: &[char], deadline: Instant) -> Vec<RDiff> {
    if text1.is_empty() {
        return vec![(Op::Insert, text2.to_vec())];
    }
    if text2.is_empty() {
        return vec![(Op::Delete, text1.to_vec())];
    }
    let (long, short) = if text1.len() > text2.len() { (text1, text2) } else { (text2, text1) };
    if let Some(i) = index_of(long, short, 0) {
        let op = if text1.len() > text2.len() { Op::Delete } else { Op::Insert };
        return vec![(op, long[..i].to_vec()), (Op::Equal, short.to_vec()), (op, long[i + short.len()..].to_vec())];
    }
    if short.len() == 1 {
        return vec![(Op::Delete, text1.to_vec()), (Op::Insert, text2.to_vec())];
    }
    if let Some(hm) = half_match(text1, text2) {
        let mut diffs = main_runes(&hm[0], &hm[2], deadline);
        diffs.push((Op::Equal, hm[4].clone()));
        diffs.extend(main_runes(&hm[1], &hm[3], deadline));
        return diffs;
    }
    bisect(text1, text2, deadline)
}

/// `runesIndexOf`: the first index ≥ `from` where `pattern` occurs in `target`.
fn index_of(target: &[char], pattern: &[char], from: usize) -> Option<usize> {
    if from >= target.len() && !(from == 0 && pattern.is_empty()) {
        return None;
    }
    if pattern.is_empty() {
        return Some(from);
    }
    target[from..].windows(pattern.len()).position(|w| w == pattern).map(|i| i + from)
}

fn common_prefix(a: &[char], b: &[char]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &[char], b: &[char]) -> usize {
    a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count()
}

/// `diffHalfMatch`: `[text1A, text1B, text2A, text2B, common]` when the texts share a
/// substring at least half as long as the longer text.
fn half_match(text1: &[char], text2: &[char]) -> Option<[Runes; 5]> {
    let (long, short) = if text1.len() > text2.len() { (text1, text2) } else { (text2, text1) };
    if long.len() < 4 || short.len() * 2 < long.len() {
        return None;
    }
    let hm1 = half_match_i(long, short, long.len().div_ceil(4));
    let hm2 = half_match_i(long, short, long.len().div_ceil(2));
    let hm = match (hm1, hm2) {
        (None, None) => return None,
        (Some(h), None) | (None, Some(h)) => h,
        (Some(h1), Some(h2)) => {
            if h1[4].len() > h2[4].len() {
                h1
            } else {
                h2
            }
        }
    };
    if text1.len() > text2.len() {
        Some(hm)
    } else {
        let [a, b, c, d, e] = hm;
        Some([c, d, a, b, e])
    }
}

fn half_match_i(l: &[char], s: &[char], i: usize) -> Option<[Runes; 5]> {
    let seed = &l[i..i + l.len() / 4];
    let mut best: Option<(usize, [Runes; 5])> = None;
    let mut j = index_of(s, seed, 0);
    while let Some(jj) = j {
        let pre = common_prefix(&l[i..], &s[jj..]);
        let suf = common_suffix(&l[..i], &s[..jj]);
        if best.as_ref().map_or(0, |b| b.0) < pre + suf {
            best = Some((
                pre + suf,
                [
                    l[..i - suf].to_vec(),
                    l[i + pre..].to_vec(),
                    s[..jj - suf].to_vec(),
                    s[jj + pre..].to_vec(),
                    s[jj - suf..jj + pre].to_vec(),
                ],
            ));
        }
        j = index_of(s, seed, jj + 1);
    }
    let (len, hm) = best?;
    if len * 2 < l.len() { None } else { Some(hm) }
}

/// Myers' middle snake (`diffBisect`), giving up at the deadline with a Delete+Insert pair.
fn bisect(r1: &[char], r2: &[char], deadline: Instant) -> Vec<RDiff> {
    match middle_snake(r1, r2, deadline) {
        Some((x, y)) => bisect_split(r1, r2, x, y, deadline),
        None => vec![(Op::Delete, r1.to_vec()), (Op::Insert, r2.to_vec())],
    }
}

/// Where `diffBisect` splits the texts: the point at which its forward and reverse paths
/// first overlap, in its order of search; `None` past the deadline.
///
/// The same steps as go-diff's loop (`tests::literal_middle_snake` is that loop as written),
/// made cheaper: the reverse paths read reversed copies of the texts, so that both snakes
/// are forward scans of slices, and a path's start is the larger of its two neighbours' (go-diff's
/// test picks the same x: on a tie, down from `k + 1` lands where right from `k - 1` does).
fn middle_snake(r1: &[char], r2: &[char], deadline: Instant) -> Option<(usize, usize)> {
    let (n1, n2) = (r1.len() as isize, r2.len() as isize);
    let max_d = (n1 + n2 + 1) / 2;
    let v_off = max_d;
    let v_len = 2 * max_d;
    let mut v1 = vec![-1isize; v_len as usize];
    let mut v2 = vec![-1isize; v_len as usize];
    v1[(v_off + 1) as usize] = 0;
    v2[(v_off + 1) as usize] = 0;
    let q1: Runes = r1.iter().rev().copied().collect();
    let q2: Runes = r2.iter().rev().copied().collect();
    let delta = n1 - n2;
    let front = delta % 2 != 0;
    let (mut k1start, mut k1end, mut k2start, mut k2end) = (0isize, 0isize, 0isize, 0isize);
    for d in 0..max_d {
        if d % 16 == 0 && Instant::now() > deadline {
            return None;
        }
        let mut k1 = -d + k1start;
        while k1 <= d - k1end {
            let k1_off = (v_off + k1) as usize;
            let x = path_start(&v1, k1_off, k1 == -d, k1 == d);
            let x1 = x + common_from(r1, r2, x, x - k1);
            let y1 = x1 - k1;
            v1[k1_off] = x1;
            if x1 > n1 {
                k1end += 2;
            } else if y1 > n2 {
                k1start += 2;
            } else if front {
                let k2_off = v_off + delta - k1;
                if k2_off >= 0 && k2_off < v_len && v2[k2_off as usize] != -1 {
                    let x2 = n1 - v2[k2_off as usize];
                    if x1 >= x2 {
                        return Some((x1 as usize, y1 as usize));
                    }
                }
            }
            k1 += 2;
        }
        let mut k2 = -d + k2start;
        while k2 <= d - k2end {
            let k2_off = (v_off + k2) as usize;
            let x = path_start(&v2, k2_off, k2 == -d, k2 == d);
            let x2 = x + common_from(&q1, &q2, x, x - k2);
            let y2 = x2 - k2;
            v2[k2_off] = x2;
            if x2 > n1 {
                k2end += 2;
            } else if y2 > n2 {
                k2start += 2;
            } else if !front {
                let k1_off = v_off + delta - k2;
                if k1_off >= 0 && k1_off < v_len && v1[k1_off as usize] != -1 {
                    let x1 = v1[k1_off as usize];
                    let y1 = v_off + x1 - k1_off;
                    if x1 >= n1 - x2 {
                        return Some((x1 as usize, y1 as usize));
                    }
                }
            }
            k2 += 2;
        }
    }
    None
}

/// Where a path on the diagonal at `k_off` starts: down from the diagonal above or right
/// from the one below, whichever reaches further (`lowest`/`highest`: only one of them is
/// on this round's front).
#[inline(always)]
fn path_start(v: &[isize], k_off: usize, lowest: bool, highest: bool) -> isize {
    if lowest {
        v[k_off + 1]
    } else if highest {
        v[k_off - 1] + 1
    } else {
        v[k_off + 1].max(v[k_off - 1] + 1)
    }
}

/// How many characters `a[x..]` and `b[y..]` have in common at their start (none when
/// either is past its text).
#[inline(always)]
fn common_from(a: &[char], b: &[char], x: isize, y: isize) -> isize {
    let (Ok(x), Ok(y)) = (usize::try_from(x), usize::try_from(y)) else { return 0 };
    // Most paths have no snake: one comparison settles them.
    match (a.get(x), b.get(y)) {
        (Some(p), Some(q)) if p == q => (1 + common_prefix(&a[x + 1..], &b[y + 1..])) as isize,
        _ => 0,
    }
}

fn bisect_split(r1: &[char], r2: &[char], x: usize, y: usize, deadline: Instant) -> Vec<RDiff> {
    let mut diffs = main_runes(&r1[..x], &r2[..y], deadline);
    diffs.extend(main_runes(&r1[x..], &r2[y..], deadline));
    diffs
}

/// `DiffCleanupMerge`: merge adjacent segments of one kind, factor common prefixes and
/// suffixes out of Delete/Insert runs, then slide single edits over equalities.
fn cleanup_merge(mut diffs: Vec<RDiff>) -> Vec<RDiff> {
    diffs.push((Op::Equal, Vec::new()));
    let mut pointer = 0usize;
    let (mut count_delete, mut count_insert) = (0usize, 0usize);
    let (mut text_delete, mut text_insert): (Runes, Runes) = (Vec::new(), Vec::new());
    while pointer < diffs.len() {
        match diffs[pointer].0 {
            Op::Insert => {
                count_insert += 1;
                text_insert.extend_from_slice(&diffs[pointer].1);
                pointer += 1;
            }
            Op::Delete => {
                count_delete += 1;
                text_delete.extend_from_slice(&diffs[pointer].1);
                pointer += 1;
            }
            Op::Equal => {
                if count_delete + count_insert > 1 {
                    if count_delete != 0 && count_insert != 0 {
                        let common = common_prefix(&text_insert, &text_delete);
                        if common != 0 {
                            let x = pointer - count_delete - count_insert;
                            if x > 0 && diffs[x - 1].0 == Op::Equal {
                                diffs[x - 1].1.extend_from_slice(&text_insert[..common]);
                            } else {
                                diffs.insert(0, (Op::Equal, text_insert[..common].to_vec()));
                                pointer += 1;
                            }
                            text_insert.drain(..common);
                            text_delete.drain(..common);
                        }
                        let common = common_suffix(&text_insert, &text_delete);
                        if common != 0 {
                            let ii = text_insert.len() - common;
                            let di = text_delete.len() - common;
                            let mut t = text_insert[ii..].to_vec();
                            t.extend_from_slice(&diffs[pointer].1);
                            diffs[pointer].1 = t;
                            text_insert.truncate(ii);
                            text_delete.truncate(di);
                        }
                    }
                    let start = pointer - count_delete - count_insert;
                    let mut new = Vec::new();
                    if count_delete != 0 {
                        new.push((Op::Delete, std::mem::take(&mut text_delete)));
                    }
                    if count_insert != 0 {
                        new.push((Op::Insert, std::mem::take(&mut text_insert)));
                    }
                    let added = new.len();
                    diffs.splice(start..pointer, new);
                    pointer = start + added + 1;
                } else if pointer != 0 && diffs[pointer - 1].0 == Op::Equal {
                    let t = diffs.remove(pointer).1;
                    diffs[pointer - 1].1.extend(t);
                } else {
                    pointer += 1;
                }
                count_insert = 0;
                count_delete = 0;
                text_delete.clear();
                text_insert.clear();
            }
        }
    }
    if diffs.last().is_some_and(|d| d.1.is_empty()) {
        diffs.pop();
    }
    // Second pass: A<ins>BA</ins>C -> <ins>AB</ins>AC.
    let mut changes = false;
    let mut pointer = 1usize;
    while pointer + 1 < diffs.len() {
        if diffs[pointer - 1].0 == Op::Equal && diffs[pointer + 1].0 == Op::Equal {
            let prev = diffs[pointer - 1].1.clone();
            let next = diffs[pointer + 1].1.clone();
            let cur = &diffs[pointer].1;
            if cur.ends_with(&prev) {
                let mut t = prev.clone();
                t.extend_from_slice(&cur[..cur.len() - prev.len()]);
                diffs[pointer].1 = t;
                let mut n = prev;
                n.extend_from_slice(&next);
                diffs[pointer + 1].1 = n;
                diffs.remove(pointer - 1);
                changes = true;
            } else if cur.starts_with(&next) {
                let mut t = cur[next.len()..].to_vec();
                t.extend_from_slice(&next);
                diffs[pointer].1 = t;
                diffs[pointer - 1].1.extend_from_slice(&next);
                diffs.remove(pointer + 1);
                changes = true;
            }
        }
        pointer += 1;
    }
    if changes { cleanup_merge(diffs) } else { diffs }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(segs: &[(Op, &str)]) -> Vec<Segment> {
        segs.iter().map(|(op, t)| Segment { op: *op, text: (*t).to_owned() }).collect()
    }

    #[test]
    fn main_examples_from_go_diff_tests() {
        use Op::*;
        assert_eq!(diff_main("", ""), d(&[]));
        assert_eq!(diff_main("abc", "abc"), d(&[(Equal, "abc")]));
        assert_eq!(diff_main("abc", "ab123c"), d(&[(Equal, "ab"), (Insert, "123"), (Equal, "c")]));
        assert_eq!(diff_main("a123bc", "abc"), d(&[(Equal, "a"), (Delete, "123"), (Equal, "bc")]));
        assert_eq!(
            diff_main("abc", "a123b456c"),
            d(&[(Equal, "a"), (Insert, "123"), (Equal, "b"), (Insert, "456"), (Equal, "c")])
        );
        assert_eq!(diff_main("a", "b"), d(&[(Delete, "a"), (Insert, "b")]));
        assert_eq!(
            diff_main("Apples are a fruit.", "Bananas are also fruit."),
            d(&[(Delete, "Apple"), (Insert, "Banana"), (Equal, "s are a"), (Insert, "lso"), (Equal, " fruit.")])
        );
        assert_eq!(
            diff_main("ax\t", "\u{0680}x\u{0000}"),
            d(&[(Delete, "a"), (Insert, "\u{0680}"), (Equal, "x"), (Delete, "\t"), (Insert, "\u{0000}")])
        );
        assert_eq!(
            diff_main("1ayb2", "abxab"),
            d(&[(Delete, "1"), (Equal, "a"), (Delete, "y"), (Equal, "b"), (Delete, "2"), (Insert, "xab")])
        );
        assert_eq!(diff_main("abcy", "xaxcxabc"), d(&[(Insert, "xaxcx"), (Equal, "abc"), (Delete, "y")]));
        assert_eq!(
            diff_main("ABCDa=bcd=efghijklmnopqrsEFGHIJKLMNOefg", "a-bcd-efghijklmnopqrs"),
            d(&[
                (Delete, "ABCD"),
                (Equal, "a"),
                (Delete, "="),
                (Insert, "-"),
                (Equal, "bcd"),
                (Delete, "="),
                (Insert, "-"),
                (Equal, "efghijklmnopqrs"),
                (Delete, "EFGHIJKLMNOefg")
            ])
        );
        assert_eq!(
            diff_main("a [[Pennsylvania]] and [[New", " and [[Pennsylvania]]"),
            d(&[(Insert, " "), (Equal, "a"), (Insert, "nd"), (Equal, " [[Pennsylvania]]"), (Delete, " and [[New")])
        );
    }

    #[test]
    fn bisect_example() {
        use Op::*;
        let far = Instant::now() + Duration::from_secs(60);
        let a: Runes = "cat".chars().collect();
        let b: Runes = "map".chars().collect();
        let got: Vec<(Op, String)> =
            bisect(&a, &b, far).into_iter().map(|(o, t)| (o, t.into_iter().collect())).collect();
        let want = [(Delete, "c"), (Insert, "m"), (Equal, "a"), (Delete, "t"), (Insert, "p")];
        assert_eq!(got, want.iter().map(|(o, t)| (*o, (*t).to_owned())).collect::<Vec<_>>());
        // Past the deadline: one Delete and one Insert.
        let past = Instant::now();
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(bisect(&a, &b, past), vec![(Delete, a.clone()), (Insert, b.clone())]);
    }

    /// go-diff's `diffBisect` loop as written: where it splits, or `None` past the deadline.
    fn literal_middle_snake(r1: &[char], r2: &[char], deadline: Instant) -> Option<(usize, usize)> {
        let (n1, n2) = (r1.len() as isize, r2.len() as isize);
        let max_d = (n1 + n2 + 1) / 2;
        let v_off = max_d;
        let v_len = 2 * max_d;
        let mut v1 = vec![-1isize; v_len as usize];
        let mut v2 = vec![-1isize; v_len as usize];
        v1[(v_off + 1) as usize] = 0;
        v2[(v_off + 1) as usize] = 0;
        let delta = n1 - n2;
        let front = delta % 2 != 0;
        let (mut k1start, mut k1end, mut k2start, mut k2end) = (0isize, 0isize, 0isize, 0isize);
        for d in 0..max_d {
            if d % 16 == 0 && Instant::now() > deadline {
                break;
            }
            let mut k1 = -d + k1start;
            while k1 <= d - k1end {
                let k1_off = (v_off + k1) as usize;
                let mut x1 = if k1 == -d || (k1 != d && v1[k1_off - 1] < v1[k1_off + 1]) {
                    v1[k1_off + 1]
                } else {
                    v1[k1_off - 1] + 1
                };
                let mut y1 = x1 - k1;
                while x1 < n1 && y1 < n2 && r1[x1 as usize] == r2[y1 as usize] {
                    x1 += 1;
                    y1 += 1;
                }
                v1[k1_off] = x1;
                if x1 > n1 {
                    k1end += 2;
                } else if y1 > n2 {
                    k1start += 2;
                } else if front {
                    let k2_off = v_off + delta - k1;
                    if k2_off >= 0 && k2_off < v_len && v2[k2_off as usize] != -1 {
                        let x2 = n1 - v2[k2_off as usize];
                        if x1 >= x2 {
                            return Some((x1 as usize, y1 as usize));
                        }
                    }
                }
                k1 += 2;
            }
            let mut k2 = -d + k2start;
            while k2 <= d - k2end {
                let k2_off = (v_off + k2) as usize;
                let mut x2 = if k2 == -d || (k2 != d && v2[k2_off - 1] < v2[k2_off + 1]) {
                    v2[k2_off + 1]
                } else {
                    v2[k2_off - 1] + 1
                };
                let mut y2 = x2 - k2;
                while x2 < n1 && y2 < n2 && r1[(n1 - x2 - 1) as usize] == r2[(n2 - y2 - 1) as usize] {
                    x2 += 1;
                    y2 += 1;
                }
                v2[k2_off] = x2;
                if x2 > n1 {
                    k2end += 2;
                } else if y2 > n2 {
                    k2start += 2;
                } else if !front {
                    let k1_off = v_off + delta - k2;
                    if k1_off >= 0 && k1_off < v_len && v1[k1_off as usize] != -1 {
                        let x1 = v1[k1_off as usize];
                        let y1 = v_off + x1 - k1_off;
                        if x1 >= n1 - x2 {
                            return Some((x1 as usize, y1 as usize));
                        }
                    }
                }
                k2 += 2;
            }
        }
        None
    }

    /// A xorshift generator: the differential test's texts are the same on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n.max(1) as u64) as usize
        }

        fn text(&mut self, letters: &[char], len: usize) -> Runes {
            (0..len).map(|_| letters[self.below(letters.len())]).collect()
        }
    }

    /// Texts over a few letters (so that paths share many snakes), of every length mix.
    #[test]
    fn the_middle_snake_is_go_diffs() {
        let far = Instant::now() + Duration::from_secs(600);
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut splits = 0;
        for round in 0..3000 {
            let letters: Vec<char> = "ab\nxé".chars().take(2 + (round % 4)).collect();
            // go-diff bisects texts of two characters or more (`diffCompute` answers the rest).
            let a = {
                let len = 2 + rng.below(40);
                rng.text(&letters, len)
            };
            // Half the time the second text is an edit of the first, as real pairs are.
            let b = if round % 2 == 0 {
                let mut b = a.clone();
                for _ in 0..rng.below(6) {
                    let at = rng.below(b.len() + 1);
                    if rng.below(2) == 0 && at < b.len() {
                        b.remove(at);
                    } else {
                        b.insert(at, letters[rng.below(letters.len())]);
                    }
                }
                b
            } else {
                let len = 2 + rng.below(40);
                rng.text(&letters, len)
            };
            if b.len() < 2 {
                continue;
            }
            let want = literal_middle_snake(&a, &b, far);
            assert_eq!(middle_snake(&a, &b, far), want, "{a:?} vs {b:?}");
            splits += usize::from(want.is_some());
        }
        // Past the deadline, both give up.
        let past = Instant::now() - Duration::from_millis(1);
        let (a, b): (Runes, Runes) = ("cat".chars().collect(), "map".chars().collect());
        assert_eq!(middle_snake(&a, &b, past), None);
        assert!(splits > 2000, "{splits}");
    }

    #[test]
    fn half_match_examples() {
        let hm = |a: &str, b: &str| {
            let a: Runes = a.chars().collect();
            let b: Runes = b.chars().collect();
            half_match(&a, &b).map(|h| h.map(|r| r.into_iter().collect::<String>()))
        };
        assert_eq!(hm("1234567890", "abcdef"), None);
        assert_eq!(hm("12345", "23"), None);
        assert_eq!(hm("1234567890", "a345678z").unwrap(), ["12", "90", "a", "z", "345678"].map(String::from));
        assert_eq!(hm("a345678z", "1234567890").unwrap(), ["a", "z", "12", "90", "345678"].map(String::from));
        assert_eq!(
            hm("121231234123451234123121", "a1234123451234z").unwrap(),
            ["12123", "123121", "a", "z", "1234123451234"].map(String::from)
        );
        assert_eq!(
            hm("qHilloHelloHew", "xHelloHeHulloy").unwrap(),
            ["qHillo", "w", "x", "Hulloy", "HelloHe"].map(String::from)
        );
    }

    #[test]
    fn score_counts_bytes() {
        assert_eq!(score("a: 1\n", "a: 1\n"), 0);
        assert_eq!(score("a: é\n", "a: e\n"), 3);
        assert_eq!(score("", "abc"), 3);
    }

    #[test]
    fn lower_bound_never_exceeds_the_score() {
        let texts = [
            "",
            "a: 1\n",
            "a: é\n",
            "kind: Deployment\nspec:\n  replicas: 2\n",
            "kind: Deployment\nspec:\n  replicas: 5\n  paused: true\n",
            "metadata:\n  name: web-1\n  labels:\n    app: web\n",
            "metadata:\n  labels:\n    app: worker\n  name: worker-4\n",
            "ABCDa=bcd=efghijklmnopqrsEFGHIJKLMNOefg",
            "a-bcd-efghijklmnopqrs",
            "1ayb2",
            "abxab",
        ];
        let mut strict = 0;
        for a in texts {
            for b in texts {
                let (bound, exact) = (score_lower_bound(a, b), score(a, b));
                assert!(bound <= exact, "{a:?} vs {b:?}: bound {bound} > score {exact}");
                strict += usize::from(bound < exact);
            }
        }
        // A bound, not the score: reorderings cost nothing in the histogram.
        assert_eq!(score_lower_bound("ab\n", "ba\n"), 0);
        assert_eq!(score("ab\n", "ba\n"), 2);
        assert!(strict > 10);
        assert_eq!(score_lower_bound("a: é\n", "a: e\n"), 3);
    }
}
