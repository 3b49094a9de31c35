//! Tests of the fast loader: accepted and refused inputs, and a seeded generator of tricky
//! texts checked against the full loader.

use serde_json::{Value, json};

use super::{Shape, parse_simple, parse_simple_documents, parse_simple_ends, scan_simple_ends};
use crate::parse_stream;

/// What the full loader gives when it reads `text` cleanly (no error, no warning).
fn full(text: &str) -> Option<Vec<Value>> {
    let stream = parse_stream(text);
    if stream.error.is_some() || stream.documents.iter().any(|d| !d.warnings.is_empty()) {
        return None;
    }
    Some(stream.documents.iter().map(|d| d.root.to_json()).collect())
}

/// The contract: whenever the fast path answers, the full loader agrees exactly.
fn check_agrees(text: &str) -> bool {
    let Some(fast) = parse_simple(text) else {
        check_first(text);
        check_shapes(text);
        return false;
    };
    let Some(slow) = full(text) else {
        panic!("fast path accepted text the full loader refuses or warns about:\n{text}\n---- fast: {fast:?}");
    };
    assert_eq!(fast, slow, "values differ for:\n{text}");
    let (f, s): (Vec<String>, Vec<String>) =
        (fast.iter().map(Value::to_string).collect(), slow.iter().map(Value::to_string).collect());
    assert_eq!(f, s, "texts differ for:\n{text}");
    check_first(text);
    check_ends(text);
    true
}

/// `parse_simple_ends`: each document's end where the full loader's range ends, `None` for a
/// document without content (an empty root there).
fn check_ends(text: &str) {
    check_shapes(text);
    let Some(fast) = parse_simple_ends(text) else { return };
    let stream = parse_stream(text);
    assert_eq!(fast.len(), stream.documents.len(), "documents of:\n{text}");
    let shapes = scan_simple_ends(text).unwrap_or_default();
    for (((value, end), doc), (shape, _)) in fast.iter().zip(&stream.documents).zip(shapes) {
        assert_eq!(value, &doc.root.to_json());
        assert_eq!(shape.values(), doc.root.tree_size(), "values of a document of:\n{text}");
        match end {
            Some(end) => assert_eq!(*end, doc.range.end, "end of a document of:\n{text}"),
            // Its root is empty (spanning the next `---`, when one follows).
            None => assert!(
                matches!(doc.root.value, crate::NodeValue::Null)
                    && (doc.root.span.is_empty() || text[doc.root.span.clone()].starts_with("---")),
                "empty document of:\n{text}"
            ),
        }
    }
}

/// `scan_simple_ends`: the shapes of `parse_simple_ends`' values, with the same ends, and
/// `None` exactly when it is `None`.
fn check_shapes(text: &str) {
    let valued =
        parse_simple_ends(text).map(|docs| docs.iter().map(|(v, end)| (Shape::of(v), *end)).collect::<Vec<_>>());
    assert_eq!(scan_simple_ends(text), valued, "shapes of:\n{text}");
}

/// `parse_simple_documents(text, 1)`: the first document as the full loader gives it, even
/// when a later document is broken.
fn check_first(text: &str) {
    let Some(fast) = parse_simple_documents(text, 1) else { return };
    let stream = parse_stream(text);
    match (fast.first(), stream.documents.first()) {
        (None, None) => assert!(stream.error.is_none(), "error in a text the fast path saw as empty:\n{text}"),
        (Some(v), Some(d)) => {
            assert!(d.warnings.is_empty(), "warnings in a first document the fast path accepted:\n{text}");
            assert_eq!(v, &d.root.to_json(), "first document differs for:\n{text}");
            assert_eq!(v.to_string(), d.root.to_json().to_string());
        }
        (f, d) => panic!("first document mismatch for:\n{text}\nfast {f:?}\nfull {d:?}"),
    }
}

fn accepted(text: &str) -> Vec<Value> {
    assert!(check_agrees(text), "fast path refused:\n{text}");
    parse_simple(text).unwrap_or_default()
}

fn refused(text: &str) {
    assert_eq!(parse_simple(text), None, "fast path accepted:\n{text}");
}

#[test]
fn kubernetes_manifest() {
    let text = "\
# a comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app.kubernetes.io/name: web   
  annotations: {}
spec:
  replicas: 3
  template:
    spec:
      containers:
      - name: web
        image: registry.example.com:5000/web:1.4
        args:
        - --queue=default
        -   -1
        ports:
        - containerPort: 8080
          protocol: TCP
        env: []
      -
        name: side
";
    let v = accepted(text);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["spec"]["template"]["spec"]["containers"][0]["args"], json!(["--queue=default", -1]));
    assert_eq!(v[0]["spec"]["template"]["spec"]["containers"][1], json!({"name": "side"}));
    assert_eq!(v[0]["metadata"]["labels"]["app.kubernetes.io/name"], "web");
}

#[test]
fn scalars_resolve_like_the_full_loader() {
    let v = accepted(
        "a: 0755\nb: 1_000\nc: 0x1F\nd: 1e3\ne: .5\nf: +1\ng: ~\nh: yes\ni: On\nj: 2001-12-14\nk: 1:20\nl: 3.0\n\
         m: 18446744073709551615\nnn: 1e21\no: \"0755\"\np: 'yes'\nq: ''\nr: it's\ns: a:b\nt: a#b\nu: x,y\nv: é\n",
    );
    assert_eq!(
        v[0],
        json!({"a": 493, "b": 1000, "c": 31, "d": 1000, "e": 0.5, "f": 1, "g": null, "h": true, "i": true,
               "j": "2001-12-14", "k": "1:20", "l": 3, "m": 18446744073709551615.0, "nn": 1e21, "o": "0755",
               "p": "yes", "q": "", "r": "it's", "s": "a:b", "t": "a#b", "u": "x,y", "v": "é"})
    );
}

#[test]
fn documents() {
    assert_eq!(accepted(""), Vec::<Value>::new());
    assert_eq!(accepted("# only a comment\n\n"), Vec::<Value>::new());
    assert_eq!(accepted("---\n"), vec![Value::Null]);
    assert_eq!(accepted("a: 1\n---\n---\nb: 2\n"), vec![json!({"a": 1}), Value::Null, json!({"b": 2})]);
    assert_eq!(accepted("# c\n---\n- x\n"), vec![json!(["x"])]);
    assert_eq!(accepted("hello\n"), vec![json!("hello")]);
    // The first document only: what comes after its end is not read.
    let broken = "a: 1\n---\nb: [\n";
    assert_eq!(parse_simple(broken), None);
    assert_eq!(parse_simple_documents(broken, 1), Some(vec![json!({"a": 1})]));
    check_first(broken);
    assert_eq!(parse_simple_documents("# c\n", 1), Some(vec![]));
}

#[test]
fn nesting_forms() {
    assert_eq!(
        accepted("k:\n- a\n- b: 1\n  c:\n  - d\n  e: f\nz: 1\n")[0],
        json!({"k": ["a", {"b": 1, "c": ["d"], "e": "f"}], "z": 1})
    );
    assert_eq!(accepted("-\n  - x\n-\n- w\n")[0], json!([["x"], null, "w"]));
    assert_eq!(accepted("a:\n  b\nc:\n")[0], json!({"a": "b", "c": null}));
    assert_eq!(accepted("  a: 1\n  b: 2\n")[0], json!({"a": 1, "b": 2}));
    assert_eq!(accepted("- a:\n- b\n")[0], json!([{"a": null}, "b"]));
    assert_eq!(accepted("\"q\": 1\n'r s': 2\n")[0], json!({"q": 1, "r s": 2}));
    assert_eq!(accepted("f:metadata:\n  .: {}\n")[0], json!({"f:metadata": {".": {}}}));
}

#[test]
fn comments_after_values() {
    let text = "a: 1 # one\nb: 'x # y'  # c\nc: # nothing\n  d: {}   # e\nf:\n- # null\n- \"q\" #q\n- x#y # z\n";
    assert_eq!(accepted(text)[0], json!({"a": 1, "b": "x # y", "c": {"d": {}}, "f": [null, "q", "x#y"]}));
    // A document whose last line holds a comment ends where the general loader's last value
    // does: a plain scalar before the comment, a quoted scalar or a flow sequence after it
    // (saphyr's span of those takes in the blanks and comment after them); a document whose
    // last value is empty has no end here.
    for (text, end) in [
        ("a: b # c\n", Some(4)),
        ("a: 'b'  # c\n", Some(11)),
        ("- [x] #\n", Some(7)),
        ("a: # c\n", Some(1)),
        ("'a': # c\n", Some(3)),
        ("- # c\n", None),
    ] {
        accepted(text);
        let ends = parse_simple_ends(text).map(|docs| docs[0].1);
        assert_eq!(ends, end.map(Some), "{text:?}");
        assert_eq!(scan_simple_ends(text).map(|docs| docs[0].1), end.map(Some), "{text:?}");
    }
    refused("a: 'x' y # c\n");
}

#[test]
fn flow_sequences() {
    let text = "a: [x, 'y z', \"0755\", 0755, ~, yes]\nb: [] # none\nc:\n- [1,2]\n- ['#', \"a, b\"]  # c\n";
    assert_eq!(
        accepted(text)[0],
        json!({"a": ["x", "y z", "0755", 493, null, true], "b": [], "c": [[1, 2], ["#", "a, b"]]})
    );
    assert_eq!(scan_simple_ends("a: [x, [y]]\n"), None);
    // `[ ` (a blank after the bracket): the general loader ends the sequence at its last item.
    assert_eq!(accepted("a: [ x, 'y' ] # c\n")[0], json!({"a": ["x", "y"]}));
    assert_eq!(scan_simple_ends("a: [ x, y ] # c\n"), Some(vec![(Shape::Collection(5), Some(9))]));
    assert_eq!(scan_simple_ends("a: [ ]\n"), Some(vec![(Shape::Collection(3), Some(3))]));
    assert_eq!(scan_simple_ends("a: [x, y]\n"), Some(vec![(Shape::Collection(5), Some(9))]));
}

/// Past the general loader's limit on flow indicators (half its node limit), it refuses the
/// text: so does the fast path, in flow sequences and in block scalars.
#[test]
fn flow_indicators_past_the_limit() {
    let half = crate::Limits::default().max_nodes / 2;
    for text in [format!("a: [{}1]\n", "1,".repeat(half)), format!("a: |\n  {}\n", "{".repeat(half + 1))] {
        refused(&text);
        assert!(full(&text).is_none());
    }
}

#[test]
fn block_scalars() {
    let text = "a: |\n  x\n   y\n\n  # z\nb: >-\n  p\n  q\n\n  r\n\n\nc:\n- |+\n  s\n\n- >2\n   t\n";
    assert_eq!(accepted(text)[0], json!({"a": "x\n y\n\n# z\n", "b": "p q\nr", "c": ["s\n\n", " t\n"]}));
    // A document that ends with a block scalar ends where the general loader's scalar ends
    // (after its blank lines, and the indentation read on the line that ends it).
    for text in ["a: |\n  x\n\n\n---\nb: 1\n", "a: |\n  x\n # c\n", "a: >\n  x\n  ", "- |\n"] {
        accepted(text);
        assert!(parse_simple_ends(text).is_some(), "{text:?}");
    }
}

#[test]
fn refuses_what_it_does_not_know() {
    for text in [
        "a: 1\r\n",
        "a:\t1\n",
        "a # b: 1\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        // A block scalar at the root, or one the general loader refuses.
        "|\n text\n",
        "a: |0\n  text\n",
        "a: |\n    \n  text\n",
        "a: {b: 1}\n",
        "a: [1, {b: 2}]\n",
        "a: [1, .nan]\n",
        "a: [b, ]\n",
        "a: \"x\\ny\"\n",
        "a: 'it''s'\n",
        "a: b\n  c\n",
        "a: \"b\n  c\"\n",
        "a: 1\na: 2\n",
        "yes: 1\n",
        "1: a\n",
        "null: a\n",
        "<<: {}\n",
        "? a\n: b\n",
        "a: .nan\n",
        "a: -.inf\n",
        "- - x\n",
        "a: - x\n",
        "a: b: c\n",
        "a:\n  b: 1\n c: 2\n",
        "a: 1\n- b\n",
        "- a\nb: 1\n",
        "a:\n    b: 1\n  c: 2\n",
        "...\n",
        "%YAML 1.1\n---\na: 1\n",
        "--- a\n",
        "a: @x\n",
        "a : 1\n",
        "\u{feff}a: 1\n",
    ] {
        refused(text);
        check_agrees(text);
    }
    let long = format!("{}: 1\n", "k".repeat(1100));
    refused(&long);
    check_agrees(&long);
    let deep: String = (0..150).map(|i| format!("{}a:\n", " ".repeat(i))).collect();
    refused(&deep);
}

/// Seeded choices (`fastrand`), so a failure reproduces.
struct Rng(fastrand::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.usize(..n.max(1))
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const TRICKY_SCALARS: &[&str] = &[
    "a",
    "x y",
    "0755",
    "1_000",
    "0x1F",
    "1e3",
    ".5",
    "+1",
    "~",
    "yes",
    "On",
    "2001-12-14",
    "1:20",
    "-1",
    "--x",
    "a:b",
    "a#b",
    "a #b",
    "http://x:80/y",
    "'q'",
    "\"dq\"",
    "'it''s'",
    "\"a\\nb\"",
    "{}",
    "[]",
    "{a: 1}",
    "[1, 2]",
    "&a x",
    "*a",
    "!!str 1",
    "|",
    ">",
    "null",
    "Null",
    "true",
    "3.0",
    "1e400",
    ".inf",
    ".nan",
    "-.inf",
    "9223372036854775808",
    "18446744073709551616",
    "-0",
    "0.0",
    "0o17",
    "0b101",
    "a,b",
    "a]",
    "é",
    "\"#x\"",
    "'a: b'",
    "-",
    "- x",
    "? x",
    ": x",
    "%x",
    "@x",
    "`x",
    "a: b",
    "x:",
    "...",
    "---",
    "--- x",
    "a\"b",
    "it's",
    "'",
    "\"",
    "1.",
    "+.5",
    "1__0",
    "0x_1",
    "12:30:00",
    "190:20:30",
    "1.5e+3",
    "<<",
    "=",
    "a  b",
    "''",
    "\"\"",
    "2001-12-14t21:59:43.10-05:00",
    "0xFFFFFFFFFFFFFFFF",
    "-.5",
    "?x",
    ":x",
    "a{b",
    "a[0]",
    "x{y}z",
    "(?<h>[a-z]+)",
    "a,[b]",
    "a}",
    "a: [b]",
    "a]: b",
    "{a}b",
    "[a]b",
    "a\tb",
    "\ta",
    "x\r",
    "a\u{85}b",
    "\u{a0}x",
    "x\u{a0}",
    "\u{2028}",
    "a\u{a0}: b",
    "\u{feff}x",
    "a,",
    "x'",
    "#",
    "a\\b",
    "\"a'b\"",
    "'a\"b'",
    "y",
    "n",
    "NO",
    "0",
    "00",
    "08",
    "0.",
    "1e",
    "+",
    "-+1",
    ".",
    "..a",
    "-a: b",
    "a:  b",
];

const TRICKY_KEYS: &[&str] = &[
    "a",
    "b",
    "c",
    "key",
    "yes",
    "1",
    "null",
    "<<",
    "a:b",
    "\"q\"",
    "'s'",
    "\"y\"",
    "a b",
    "a#b",
    "-k",
    ".",
    "~",
    "on",
    "x y",
    "f:metadata",
    "k:{\"a\":1}",
    "é",
    "2001-12-14",
    "0755",
    "\"a\\\"b\"",
    "'it''s'",
    "?",
    "-",
    "a ",
    "\"\"",
    "''",
    "\"a: b\"",
    "a\"",
    "[a]",
    "{}",
    "k[0]",
    "k{a}",
    "k]",
    "k,[",
    "&x k",
    "!t k",
    "*x",
    "@k",
    "`k",
    "%k",
    ".inf",
    "k.",
    "1e3",
];

const SAFE_SCALARS: &[&str] = &[
    "[x, 'y', \"z\", 1]",
    "[a,b] # c",
    "[ x, 'y' ]",
    "[ ]  # c",
    "[]",
    "web",
    "registry.example.com/web:1.4",
    "8080",
    "0.5",
    "true",
    "--flag=x",
    "\"quoted\"",
    "'single'",
    "{}",
    "[]",
    "",
    "null",
    "2024-05-01T10:00:00Z",
    "500m",
    "a,b,c",
    "http://x/y",
    "https://(?<host>[a-z0-9.-]+)/api",
    "x[0]",
    "-3",
    "1e3",
    "0755",
    "x_y",
];

/// Text built line by line from tricky pieces at random indentations.
fn random_lines(rng: &mut Rng) -> String {
    let mut text = String::new();
    let mut indents = vec![0usize];
    for _ in 0..rng.below(12) + 1 {
        let current = *indents.last().unwrap_or(&0);
        let indent = match rng.below(8) {
            0 | 1 => current,
            2 => current + 2,
            3 => current + 1,
            4 => indents[rng.below(indents.len())],
            5 => current.saturating_sub(2),
            6 => current + 4,
            _ => 0,
        };
        indents.push(indent);
        let pad = " ".repeat(indent);
        let key = if rng.chance(3) { "k".repeat(1000 + rng.below(40)) } else { rng.pick(TRICKY_KEYS).to_owned() };
        let value = rng.pick(TRICKY_SCALARS);
        let line = match rng.below(15) {
            14 => format!("{pad}{key}: {}", rng.pick(&["|", ">-", "|+", "|2", ">1+"])),
            0..=2 => format!("{pad}{key}: {value}"),
            3 | 4 => format!("{pad}{key}:"),
            5 | 6 => format!("{pad}- {value}"),
            7 => format!("{pad}- {key}: {value}"),
            8 => format!("{pad}- {key}:"),
            9 => format!("{pad}-"),
            10 => "---".to_owned(),
            11 => format!("{pad}# {value}"),
            12 => format!("{pad}{value}"),
            _ => String::new(),
        };
        text.push_str(&line);
        if rng.chance(10) {
            text.push_str("  ");
        }
        if rng.chance(95) {
            text.push('\n');
        }
    }
    text
}

/// A well-formed nested document with random layout choices, sometimes mutated.
fn random_tree(rng: &mut Rng) -> String {
    fn mapping(rng: &mut Rng, out: &mut Vec<String>, indent: usize, first_prefix: Option<String>, depth: usize) {
        let step = 1 + rng.below(3);
        for i in 0..1 + rng.below(4) {
            let pad = match (&first_prefix, i) {
                (Some(p), 0) => p.clone(),
                _ => " ".repeat(indent),
            };
            let key =
                if rng.chance(97) { format!("k{}", rng.below(6) + i * 10) } else { rng.pick(TRICKY_KEYS).to_owned() };
            let scalars = if rng.chance(96) { SAFE_SCALARS } else { TRICKY_SCALARS };
            match if depth > 3 { 0 } else { rng.below(3) } {
                0 if rng.chance(6) => block_scalar(rng, out, format!("{pad}{key}: "), indent),
                0 => out.push(format!("{pad}{key}: {}{}", rng.pick(scalars), comment(rng)).trim_end().to_owned()),
                1 => {
                    out.push(format!("{pad}{key}:"));
                    mapping(rng, out, indent + step, None, depth + 1);
                }
                _ => {
                    out.push(format!("{pad}{key}:"));
                    let seq_indent = if rng.chance(50) { indent } else { indent + step };
                    sequence(rng, out, seq_indent, depth + 1);
                }
            }
            if rng.chance(10) {
                out.push(format!("{}# note", " ".repeat(rng.below(6))));
            }
        }
    }
    fn sequence(rng: &mut Rng, out: &mut Vec<String>, indent: usize, depth: usize) {
        let pad = " ".repeat(indent);
        for _ in 0..1 + rng.below(3) {
            let scalars = if rng.chance(96) { SAFE_SCALARS } else { TRICKY_SCALARS };
            match if depth > 3 { 0 } else { rng.below(4) } {
                0 if rng.chance(6) => block_scalar(rng, out, format!("{pad}- "), indent),
                0 => out.push(format!("{pad}- {}{}", rng.pick(scalars), comment(rng)).trim_end().to_owned()),
                1 => {
                    let gap = " ".repeat(1 + rng.below(2));
                    mapping(rng, out, indent + 1 + gap.len(), Some(format!("{pad}-{gap}")), depth + 1);
                }
                2 => {
                    out.push(format!("{pad}-"));
                    let inner = indent + 1 + rng.below(3);
                    mapping(rng, out, inner, None, depth + 1);
                }
                _ => {
                    out.push(format!("{pad}-"));
                    sequence(rng, out, indent + 2, depth + 1);
                }
            }
        }
    }
    /// Mostly nothing, sometimes a comment to write after a value.
    fn comment(rng: &mut Rng) -> &'static str {
        if rng.chance(90) { "" } else { rng.pick(&[" # c", "  #c", " #", " # a: b", " ## x # y"]) }
    }
    /// A block scalar after `lead`, in a collection at column `parent`: any header, content
    /// lines at its indentation or deeper, blank lines and lines of blanks.
    fn block_scalar(rng: &mut Rng, out: &mut Vec<String>, lead: String, parent: usize) {
        let header = format!(
            "{}{}{}",
            rng.pick(&["|", ">"]),
            rng.pick(&["", "", "", "-", "+", "2", "-1", "2+"]),
            rng.pick(&["", "", "", "", "", " ", " # c", "", "", "", "", "#c"])
        );
        out.push(format!("{lead}{header}"));
        let indent = parent + 1 + rng.below(3);
        for _ in 0..rng.below(5) {
            out.push(match rng.below(7) {
                0 => String::new(),
                1 => " ".repeat(rng.below(indent + 3)),
                2 => format!("{}more x", " ".repeat(indent + 1 + rng.below(2))),
                3 => format!("{}# text, not a comment", " ".repeat(indent)),
                4 if rng.chance(10) => format!("{}{}", " ".repeat(indent), rng.pick(TRICKY_SCALARS)),
                _ => format!("{}{}", " ".repeat(indent), rng.pick(SAFE_SCALARS)).trim_end().to_owned(),
            });
        }
    }
    let mut lines = Vec::new();
    for d in 0..1 + rng.below(2) {
        if d > 0 || rng.chance(30) {
            lines.push("---".to_owned());
        }
        if rng.chance(80) {
            mapping(rng, &mut lines, 0, None, 0);
        } else {
            sequence(rng, &mut lines, 0, 0);
        }
    }
    if rng.chance(40) && !lines.is_empty() {
        let at = rng.below(lines.len());
        match rng.below(5) {
            0 => lines[at].insert(0, ' '),
            1 => lines[at] = lines[at].trim_start().to_owned(),
            2 => lines.insert(at, lines[at].clone()),
            3 => lines[at].push_str(&format!(" {}", rng.pick(TRICKY_SCALARS))),
            _ => {
                lines.remove(at);
            }
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

#[test]
fn generated_texts_agree_with_the_full_loader() {
    // `SIMPLE_FUZZ_CASES=1000000 SIMPLE_FUZZ_SEED=7` for a longer run with other texts.
    let env = |name: &str, default: u64| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let cases = env("SIMPLE_FUZZ_CASES", 12_000) as usize;
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15 ^ env("SIMPLE_FUZZ_SEED", 0).wrapping_mul(0x2545_f491_4f6c_dd1d));
    let mut taken = [0, 0];
    // Taken texts that hold a block scalar.
    let mut blocks = 0;
    for i in 0..cases {
        let mut text = if i % 2 == 0 { random_lines(&mut rng) } else { random_tree(&mut rng) };
        if i % 7 == 0 {
            // A later document that may be broken: the first one must still come out right.
            text.push_str("---\n");
            text.push_str(&random_lines(&mut rng));
        }
        if check_agrees(&text) {
            let block = [": |", ": >", "- |", "- >"].iter().any(|h| text.contains(h));
            blocks += usize::from(block);
            taken[i % 2] += 1;
        }
    }
    // Not vacuous: a good share of the texts is within the subset (mostly the well-formed
    // trees; the line soup is meant to be hostile).
    assert!(taken[0] * 40 > cases && taken[1] * 8 > cases, "the fast path took only {taken:?} of {cases} texts");
    assert!(blocks * 40 > cases, "only {blocks} taken texts hold a block scalar");
}

/// The character check reads the text in blocks: a character it refuses is found in any block,
/// at any place in it, in ASCII text and in text with other characters.
#[test]
fn refused_characters_are_found_wherever_they_are() {
    use super::allowed_chars;
    let base: String = "key: value\n".repeat(20);
    assert!(allowed_chars(&base));
    assert!(allowed_chars(&format!("{base}name: café\n")));
    for bad in ['\t', '\r', '\u{1}', '\u{7f}'] {
        for at in [0, 1, 63, 64, 65, 127, 128, base.len() - 1] {
            let mut text = base.clone();
            text.insert(at, bad);
            assert!(!allowed_chars(&text), "{bad:?} at {at}");
            text.push('é');
            assert!(!allowed_chars(&text), "{bad:?} at {at}, with non-ASCII text");
        }
    }
    for bad in ['\u{85}', '\u{2028}', '\u{feff}'] {
        assert!(!allowed_chars(&format!("{base}x: {bad}\n")), "{bad:?}");
    }
}
