//! Differential tests: the optimised writer against the old one (`reference`), on many
//! generated values built from the pieces that steer go-yaml's decisions (resolver words,
//! numbers, timestamps, indicators, quotes, breaks, non-BMP characters, long lines, long keys,
//! digit runs in keys). Seeded, so a failure reproduces.

use serde_json::{Map, Number, Value};

use super::reference;
use crate::sort::{key_less, sort_keys};
use crate::to_yaml_string;

/// Seeded choices (`fastrand`), so a failure reproduces.
struct Rng(fastrand::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }

    fn next(&mut self) -> u64 {
        self.0.u64(..)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.usize(..n.max(1))
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Pieces that change go-yaml's style decision alone or next to each other.
const PIECES: &[&str] = &[
    "a",
    "Z",
    "x",
    "name",
    "apiVersion",
    "app.kubernetes.io/name",
    "v1",
    "k8s-app",
    "web",
    "0",
    "1",
    "7",
    "10",
    "010",
    "0x",
    "0x1F",
    "0o17",
    "0b101",
    "1e3",
    "1E-3",
    "e",
    ".5",
    ".",
    "..",
    "...",
    "---",
    "--",
    "+1",
    "+",
    "-",
    "- a",
    "-1",
    "~",
    "_",
    "1_000",
    "yes",
    "Yes",
    "YES",
    "y",
    "Y",
    "n",
    "N",
    "no",
    "On",
    "on",
    "OFF",
    "off",
    "true",
    "True",
    "false",
    "FALSE",
    "null",
    "NULL",
    "Null",
    ".inf",
    "-.Inf",
    ".NaN",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10",
    "2024-02-30",
    "1:20",
    "-1:20",
    "190:20:30.15",
    "12:30",
    "<<",
    ":",
    ": ",
    "::",
    "a:b",
    "#",
    " #",
    "a#b",
    "?",
    "? ",
    "!",
    "&",
    "*",
    "|",
    ">",
    "%",
    "@",
    "`",
    ",",
    "[",
    "]",
    "{",
    "}",
    "'",
    "\"",
    "\\",
    "\\n",
    " ",
    "  ",
    "\t",
    "\n",
    "\n\n",
    "\r",
    "\r\n",
    "\u{85}",
    "\u{2028}",
    "\u{2029}",
    "\u{a0}",
    "\u{feff}",
    "é",
    "日本",
    "😀",
    "\u{10000}",
    "\u{7f}",
    "\u{0}",
    "\u{1b}",
    "\u{7}",
    "\u{fffe}",
    "\u{e000}",
    "=",
    "/",
    "$",
    "(",
    ")",
    ";",
    "^",
    "0.0.0.0",
    "500m",
    "256Mi",
    "8080",
    "image:tag",
    "http://x.example/a?b=c",
    "a,b,c",
];

/// One string: a few pieces, sometimes stretched past 80 columns with words and spaces,
/// sometimes past 128 bytes without breaks.
fn string(rng: &mut Rng) -> String {
    let mut s = String::new();
    match rng.below(14) {
        0 => {}
        1 => {
            let words = 10 + rng.below(30);
            for i in 0..words {
                if i > 0 {
                    s.push_str(if rng.below(8) == 0 { "  " } else { " " });
                }
                s.push_str(rng.pick(PIECES));
            }
        }
        // One line of quick-path words and single spaces, 1 to 150 bytes, so that values
        // end just before, at and past column 80 at every depth.
        3 => {
            let target = 1 + rng.below(150);
            while s.len() < target {
                if !s.is_empty() {
                    s.push(' ');
                }
                s.push_str(rng.pick(&["a", "web", "x-y", "app.io/name", "v1.2", "-", "Q", "k8s"]));
            }
        }
        2 => {
            while s.len() <= 130 {
                s.push_str(rng.pick(&["abc", "x-y", "a.b/c", "_", "9"]));
            }
            if rng.below(2) == 0 {
                s.push_str(rng.pick(PIECES));
            }
        }
        _ => {
            for _ in 0..1 + rng.below(4) {
                s.push_str(rng.pick(PIECES));
            }
        }
    }
    s
}

/// Keys: generated strings, and Kubernetes-like names whose order depends on digit runs.
fn key(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => string(rng),
        1 => rng.pick(&["apiVersion", "kind", "metadata", "spec", "status", "data", "name", "labels"]).to_owned(),
        _ => {
            let mut s = String::new();
            for _ in 0..1 + rng.below(3) {
                s.push_str(
                    rng.pick(&["a", "b", "B", "x", "_", "-", ".", "/", "0", "00", "1", "9", "10", "01", "é", "٣"]),
                );
            }
            s
        }
    }
}

fn number(rng: &mut Rng) -> Number {
    match rng.below(6) {
        0 => Number::from(rng.below(100) as i64 - 50),
        1 => Number::from(rng.next() as i64),
        2 => Number::from(rng.next() | (1 << 63)),
        _ => {
            let f = match rng.below(8) {
                0 => 1e21,
                1 => 1e-7,
                2 => 3.0,
                3 => -0.0,
                4 => 0.5,
                5 => f64::from_bits(rng.next() >> 2),
                6 => (rng.below(1_000_000) as f64) * 10f64.powi(rng.below(40) as i32 - 20),
                _ => 123_456_789.0,
            };
            Number::from_f64(f).unwrap_or_else(|| Number::from(0))
        }
    }
}

fn value(rng: &mut Rng, depth: usize) -> Value {
    let leaf = depth == 0 || rng.below(3) > 0;
    if leaf {
        return match rng.below(8) {
            0 => Value::Null,
            1 => Value::Bool(rng.below(2) == 0),
            2 => Value::Number(number(rng)),
            _ => Value::String(string(rng)),
        };
    }
    if rng.below(3) == 0 {
        Value::Array((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect())
    } else {
        let mut map = Map::new();
        for _ in 0..rng.below(7) {
            map.insert(key(rng), value(rng, depth - 1));
        }
        Value::Object(map)
    }
}

#[test]
fn writer_matches_reference_on_generated_values() {
    let mut rng = Rng::new(0x5eed);
    for case in 0..40_000 {
        let v = value(&mut rng, 4);
        let (got, want) = (to_yaml_string(&v), reference::to_yaml_string(&v));
        assert_eq!(got, want, "case {case}: {v:?}");
    }
}

#[test]
fn writer_matches_reference_on_single_scalars() {
    // Every string as a value, a key, a sequence item and a nested value, one at a time, so
    // each style decision is checked on its own and not only inside big values.
    let mut rng = Rng::new(7);
    let mut strings: Vec<String> = PIECES.iter().map(|&p| p.to_owned()).collect();
    strings.extend((0..20_000).map(|_| string(&mut rng)));
    for s in strings {
        let mut inner = Map::new();
        inner.insert(s.clone(), Value::String(s.clone()));
        let v = serde_json::json!({ "k": s, &s: [s, { "n": inner }] });
        assert_eq!(to_yaml_string(&v), reference::to_yaml_string(&v), "{v:?}");
    }
}

#[test]
fn key_order_matches_reference() {
    let mut rng = Rng::new(42);
    for case in 0..30_000 {
        let keys: Vec<String> = (0..rng.below(9)).map(|_| key(&mut rng)).collect();
        for pair in keys.windows(2) {
            assert_eq!(key_less(&pair[0], &pair[1]), reference::key_less(&pair[0], &pair[1]), "{pair:?}");
        }
        let mut unique: Vec<&str> = Vec::new();
        for k in &keys {
            if !unique.contains(&k.as_str()) {
                unique.push(k);
            }
        }
        let mut got = unique.clone();
        let mut want = unique;
        sort_keys(&mut got);
        reference::sort_keys(&mut want);
        assert_eq!(got, want, "case {case}");
    }
}

#[test]
fn writer_matches_reference_deep_inside() {
    // Indentation past the writer's run of spaces, and long words and lines at every column.
    let mut rng = Rng::new(99);
    for case in 0..300 {
        let mut v = value(&mut rng, 2);
        for depth in 0..(case % 60) {
            v = if depth % 3 == 0 { Value::Array(vec![v]) } else { serde_json::json!({ key(&mut rng): v }) };
        }
        assert_eq!(to_yaml_string(&v), reference::to_yaml_string(&v), "case {case}: {v:?}");
    }
}
