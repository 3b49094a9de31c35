//! The fast spanned loader against the general (saphyr) loader: whenever the fast path
//! answers, its [`Stream`] must equal the general loader's (documents, ranges, every node's
//! span, style, raw text, warnings), on every YAML file of the repository, on the shared
//! corpora (an `#[ignore]`d test, run by `.ci/run`), and on mutations of them (indentation,
//! comments, quotes, duplicate keys, odd scalars, CRLF, tabs, document markers). It must also
//! answer often enough to be worth having.

use std::fs;
use std::path::PathBuf;

use driftlint_yaml::{
    ErrorKind, Limits, Stream, parse_stream, parse_stream_general, parse_stream_plain, parse_stream_with,
};

mod common;
#[path = "common/differential.rs"]
mod differential;
use differential::{corpus_yaml_files, mutations, repository_yaml_files};

/// `Stream` equality, except that NaN equals NaN (`.nan` loads as `Float(NaN)`); the
/// `Debug` text shows every field, spans included.
fn same(a: &Stream, b: &Stream) -> bool {
    a == b || format!("{a:?}") == format!("{b:?}")
}

/// Checks that both paths agree on `text`; true when the fast path answered.
fn agrees(text: &str, what: &str) -> bool {
    let limits = Limits::default();
    let general = parse_stream_general(text, &limits);
    let both = parse_stream(text);
    assert!(same(&both, &general), "{what}: parse_stream differs from the general loader:\n{both:?}\n{general:?}");
    let Some(fast) = parse_stream_plain(text, &limits) else { return false };
    assert!(
        same(&fast, &general),
        "{what}: fast path differs:\n--- text ---\n{text}\n--- fast ---\n{fast:?}\n--- general ---\n{general:?}"
    );
    true
}

fn check_files(files: &[PathBuf], mutants: usize) -> (usize, usize) {
    let mut rng = fastrand::Rng::with_seed(13);
    let (mut taken, mut mutants_taken) = (0, 0);
    for path in files {
        let Ok(text) = fs::read_to_string(path) else { continue };
        let what = path.display().to_string();
        taken += usize::from(agrees(&text, &what));
        for (n, m) in mutations(&text, &mut rng, mutants).iter().enumerate() {
            mutants_taken += usize::from(agrees(m, &format!("{what} mutation {n}")));
        }
    }
    (taken, mutants_taken)
}

#[test]
fn repository_files_and_mutations() {
    let files = repository_yaml_files();
    let (taken, mutants_taken) = check_files(&files, 40);
    eprintln!("fast path took {taken} of {} repository files and {mutants_taken} mutations", files.len());
    driftlint_test_support::assert_min_cases("repository YAML files", files.len(), 40);
    assert!(taken * 2 > files.len(), "fast path took only {taken} of {} files", files.len());
    // Mutations that keep the text plain are taken too, so the comparison covers them.
    assert!(mutants_taken * 4 > files.len() * 40, "fast path took only {mutants_taken} mutations");
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn corpus_files_and_mutations() {
    let Some(files) = corpus_yaml_files("corpus_files_and_mutations") else { return };
    let (taken, mutants_taken) = check_files(&files, 5);
    eprintln!("fast path took {taken} of {} corpus files and {mutants_taken} mutations", files.len());
    driftlint_test_support::assert_min_cases("corpus YAML files", files.len(), 1360);
    assert!(taken * 2 > files.len(), "fast path took only {taken} of {} files", files.len());
}

const DEPLOYMENT: &str = "\
# A typical hand-written manifest.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web   # the name
  labels:
    app: web
    'quoted': \"value\"
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: web
        image: \"registry.example.com/web:1.4\"
        args: [\"--port=8080\"]
        env:
        -
        - name: EMPTY
          value:
        ports:
          - containerPort: 8080
            protocol: TCP
      tolerations: []
      nodeSelector: {}
---
apiVersion: v1
kind: ConfigMap
data:
  k: v
";

#[test]
fn ordinary_manifests_take_the_fast_path() {
    for text in [
        DEPLOYMENT,
        "a: [x, 'y', \"z\"]  # c\n",
        "- ['b' , \"c\"  ]\n- [x ,y]\n",
        "a: 1\n",
        "---\n",
        "- x\n- y\n",
        "x\n",
        "# only a comment\n",
        "",
    ] {
        assert!(agrees(text, text), "fast path refused {text:?}");
    }
    // Flow mappings with content and the rest of YAML go to the general loader.
    assert!(!agrees("a: {b: 1}\n", "flow mapping"));
    // Found by fuzzing: the general loader rejects `-` before `]` in a flow scalar.
    assert!(!agrees("a:  \n  [-- -]", "dash before a flow indicator"));
}

#[test]
fn merge_keys_are_the_general_loaders() {
    let text = "- <<:\n    a: 1\n    b: 1\n  a: 2\n- <<: x\n";
    assert!(parse_stream_plain(&text[..text.len() - 8], &Limits::default()).is_some());
    assert!(agrees(&text[..text.len() - 8], "merge"));
    // A merge error is the general loader's to report.
    assert!(!agrees(text, "merge error"));
    assert_eq!(parse_stream(text).error.map(|e| e.kind), Some(ErrorKind::Merge));
}

#[test]
fn warnings_are_the_general_loaders() {
    for text in ["a: 1\nb: 2\na: 3\n", "x: .nan\n~: 1\n", "- a: 1\n  \"a\" : 2\n", "a:\n  b: 1\n  b:\n"] {
        assert!(agrees(text, text), "fast path refused {text:?}");
        assert!(!parse_stream(text).documents[0].warnings.is_empty(), "{text:?}: no warning");
    }
}

#[test]
fn limits_hold_on_the_fast_path() {
    let deep: String = (0..6).map(|i| format!("{}k{i}:\n", "  ".repeat(i))).collect::<String>() + "            v: 1\n";
    let limits = Limits { max_depth: 3, ..Limits::default() };
    let error = parse_stream_with(&deep, &limits).error.expect("depth limit");
    assert_eq!(error.kind, ErrorKind::DepthLimit);
    assert!(parse_stream_plain(&deep, &limits).is_none());
    assert!(parse_stream_plain(&deep, &Limits::default()).is_some());
    let small = Limits { max_bytes: 4, ..Limits::default() };
    assert_eq!(parse_stream_with("a: 1\n", &small).error.map(|e| e.kind), Some(ErrorKind::SizeLimit));
    // Nesting past the fast path's own bound is the general loader's.
    let deeper: String = (0..150).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
    assert!(parse_stream_plain(&deeper, &Limits::default()).is_none());
    assert!(parse_stream(&deeper).error.is_none());
}

/// The general loader refuses a text with more flow indicators (`,` `[` `{`) than half its
/// node limit before reading it, even where they are only text in a block scalar: the fast
/// path must not take such a text.
#[test]
fn flow_indicators_in_block_scalars_count() {
    let limits = Limits { max_nodes: 2000, ..Limits::default() };
    let text = format!("a: |\n  {}\n", "{".repeat(1001));
    assert_eq!(parse_stream_with(&text, &limits).error.map(|e| e.kind), Some(ErrorKind::NodeLimit));
    assert!(parse_stream_plain(&text, &limits).is_none());
    let text = format!("a: |\n  {}\n", "{".repeat(999));
    assert!(agrees(&text, "fewer braces"));
}

/// A stream that differs only in one span must not compare equal (the test above relies on
/// `Stream`'s equality covering spans).
#[test]
fn equality_covers_spans() {
    let a = parse_stream("a:\n  b: 1\n");
    let mut b: Stream = a.clone();
    b.documents[0].root.span.end += 1;
    assert_ne!(a, b);
}

/// Block scalars as the general loader reads them (values, styles, spans that end after the
/// indentation read on the line that ends them), on the edge cases one at a time.
#[test]
fn block_scalars_take_the_fast_path() {
    for text in [
        "a: |\n  x\n  y\nb: 1\n",
        "a:\n  b: |\n    x\n  c: 1\n",
        "a:\n  b: |\n    x\n   \n     \n  c: 1\n",
        "a: |\n  x\n # c\nb: 1\n",
        "a: |\n  x\n  # not a comment\nb: 1\n",
        "a: |\n  x\n\n---\nb: |\n  y",
        "a: |\n  x\n  \n   \n",
        "a: |+\n  x\n  \n   \n",
        "a: |-\n  x\n\n",
        "a: |\n",
        "a: |+\n\n\nb: 1\n",
        "a: |\n\n\n  x\n",
        "a: >\n  a\n  b\n\n  c\n\n\n  d\n",
        "a: >\n  a\n   b\n  c\n",
        "a: >\n  a\n\n   b\n\n  c\n",
        "a: >-\n  x\n  y   \n  z\n",
        "- |\n  x\n\n- y\n",
        "- a: |\n    x\n  b: >+ # c\n    y\n\n\n",
        "a:\n- |\n  x\n- y\n",
        "a: |2\n   x\n",
        "a: |-2\n   x\n  y\n",
        "- a: >1\n   x\n    y\n",
        "a: |\n  x\n  ",
        "a: |+\n  ",
        "a: |\n  é # ü\n  ---\n  ...\nb:\n",
    ] {
        assert!(agrees(text, text), "fast path refused {text:?}");
    }
    for text in ["a: |\n    \n  x\n", "a: >\n   x\n\n  y\n", "a: |x\n  x\n", "a: |#c\n  x\n", "a: |0\n x\n", "|\n x\n"]
    {
        assert!(!agrees(text, text), "fast path took {text:?}");
    }
}

/// Random block scalars (headers, indentation, blank and blank-only lines, what follows
/// them) in random collections: the fast path must agree with the general loader whenever it
/// answers, and answer for most of them.
#[test]
fn generated_block_scalars_agree_with_the_general_loader() {
    let mut rng = fastrand::Rng::with_seed(24);
    let cases = 6000;
    let (mut valid, mut taken) = (0, 0);
    for _ in 0..cases {
        let text = random_block_text(&mut rng);
        valid += usize::from(parse_stream(&text).error.is_none());
        taken += usize::from(agrees(&text, &text));
    }
    eprintln!("fast path took {taken} of {cases} texts, {valid} of which the general loader reads");
    // Not vacuous: the generator is hostile (bad headers, lines indented wrongly), but of the
    // texts that are YAML, nearly all are taken.
    assert!(taken * 4 > cases && taken * 100 > valid * 95, "fast path took only {taken} of {valid} valid texts");
}

fn random_block_text(rng: &mut fastrand::Rng) -> String {
    let pick = |rng: &mut fastrand::Rng, items: &[&'static str]| items[rng.usize(..items.len())];
    let mut text = String::new();
    for _ in 0..rng.usize(1..4) {
        // One collection a document, so that documents of other kinds may follow.
        if !text.is_empty() {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("---\n");
        }
        let col = pick(rng, &["", "", "  ", "- ", "  - ", "- k: x\n  "]);
        let parent = col.rsplit('\n').next().unwrap_or_default().len();
        let lead = if col.ends_with("- ") { "" } else { "k: " };
        let header = format!(
            "{}{}{}",
            pick(rng, &["|", ">"]),
            pick(rng, &["", "", "", "-", "+", "1", "2", "-1", "2+", "", "-", "", "+-", "0"]),
            pick(rng, &["", "", "", " ", "  # c", " #c", "", "", "", "", "#c", " x"])
        );
        text.push_str(&format!("{col}{lead}{header}\n"));
        let base = parent + rng.usize(1..4);
        for _ in 0..rng.usize(0..6) {
            let line = match rng.usize(..8) {
                0 => String::new(),
                1 => " ".repeat(rng.usize(0..base + 3)),
                2 => format!("{}x y", " ".repeat(base + rng.usize(0..3))),
                3 => format!("{}# z", " ".repeat(base.saturating_sub(rng.usize(0..2)))),
                _ => format!("{}w", " ".repeat(base)),
            };
            text.push_str(&line);
            text.push('\n');
        }
        match rng.usize(..6) {
            0 => text.push_str("---\n"),
            1 => text.push_str("# end\n"),
            2 => text.push_str(&" ".repeat(rng.usize(0..base + 2))),
            3 => text.push_str(&format!("{}k2: v\n", " ".repeat(parent))),
            _ => {}
        }
        if rng.usize(..4) == 0 {
            text.pop();
        }
    }
    text
}

/// `[ ` opens a flow sequence whose general-loader span is a block one's (saphyr's opening
/// token takes the blank in): from its first item to its last item's end, or empty at the
/// bracket; the closing bracket and a comment after it are not in it, and an empty value
/// after it sits where its last scalar ended. A sequence item holding one starts at its first
/// item too, and so does its document.
#[test]
fn spaced_flow_sequences_take_the_fast_path() {
    for text in [
        "a: [ x, y ]\n",
        "a: [ x ]\nb: 1\n",
        "a: [ ]\nb: [   ]",
        "- [ x, y ]\n- z\n",
        "a: [ 'x' , \"y\" ]  # c\n",
        "a: [ x,y ]\n",
        "a: [  x  ]\n",
        "a: [x ]\n",
        "a: [ x]\n",
        "k:\n  a: [ x, y ]\n  b: 2\n",
        "a: [ x, y ] # c\n---\nb: 1\n",
        "- a: [ x ]\n  b: c\n",
        "- [ ]\n-\n",
        "- [ x ]\n-\n",
        "- [ 'x' ]  \n-\n- [ ] # c\n-\n",
        "a:\n- [ 1, 2 ]\n- [ ]\n",
        "[ x ]\n",
        "[ ]\n",
        "---\n[ 'a' ]\n",
    ] {
        assert!(agrees(text, text), "fast path refused {text:?}");
    }
}

/// After a `[ ` flow sequence the general loader starts a block scalar's span at its content
/// (found by the `yaml_differential` fuzz target): such a block scalar is left to it.
#[test]
fn a_block_scalar_after_a_spaced_flow_sequence_is_the_general_loaders() {
    for text in [
        "a:\n- [ \"q\" ]\n-\n |\nk: v\n",
        "a:\n- [ q ]\n- |\nk: v\n",
        "a:\n- [ q ]\n-\n |\n x\nk: v\n",
        ")a:\n-  -0)--\n- [ \"q\" ]  \n-\n |\nk: v #:\nk: \n-  -l\n",
    ] {
        assert!(!agrees(text, text), "fast path took {text:?}");
    }
    // Without the blank after `[`, the fast path reads it.
    assert!(agrees("a:\n- [q]\n-\n |\n x\nk: v\n", "unspaced"));
}

/// Random one-line flow sequences (blanks, quotes, comments, empty ones) in random places.
#[test]
fn generated_flow_sequences_agree_with_the_general_loader() {
    let mut rng = fastrand::Rng::with_seed(2024);
    let pick = |rng: &mut fastrand::Rng, items: &[&'static str]| items[rng.usize(..items.len())];
    let (cases, mut taken) = (4000, 0);
    for _ in 0..cases {
        let mut text = String::new();
        for _ in 0..rng.usize(1..4) {
            let mut flow = String::from("[");
            let count = rng.usize(0..4);
            for i in 0..count {
                flow.push_str(pick(&mut rng, &["", "", " ", "  "]));
                flow.push_str(pick(&mut rng, &["x", "'y'", "\"z\"", "1", "~", "a b", "-q", "é", "'a, b'", "x-"]));
                flow.push_str(pick(&mut rng, &["", "", " "]));
                if i + 1 < count {
                    flow.push(',');
                }
            }
            flow.push_str(pick(&mut rng, &["", " ", "  "]));
            flow.push(']');
            flow.push_str(pick(&mut rng, &["", "", " ", " # c", "  #"]));
            let line = match rng.usize(..5) {
                0 => format!("k{}: {flow}\n", rng.usize(..3)),
                1 => format!("- {flow}\n"),
                2 => format!("-\n  - {flow}\n"),
                3 => format!("k:\n  j: {flow}\n  -\n"),
                _ => format!("- {flow}\n-\n"),
            };
            text.push_str(&line);
            if rng.usize(..3) == 0 {
                text.push_str("---\n");
            }
        }
        taken += usize::from(agrees(&text, &text));
    }
    assert!(taken * 4 > cases, "fast path took only {taken} of {cases} texts");
}
