//! The fast spanned loader against the general (saphyr) loader: whenever the fast path
//! answers, its [`Stream`] must equal the general loader's (documents, ranges, every node's
//! span, style, raw text, warnings), on every YAML file of the repository, on the shared
//! corpora (an `#[ignore]`d test, run by `.ci/run`), and on mutations of them (indentation,
//! comments, quotes, duplicate keys, odd scalars, CRLF, tabs, document markers). It must also
//! answer often enough to be worth having.

#[path = "../../../tests/support/env.rs"]
mod support;

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
    support::assert_min_cases("repository YAML files", files.len(), 40);
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
    support::assert_min_cases("corpus YAML files", files.len(), 1360);
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
    // Flow mappings with content, block scalars and the rest of YAML go to the general loader.
    assert!(!agrees("a: {b: 1}\n", "flow mapping"));
    assert!(!agrees("a: |\n  text\n", "block scalar"));
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

/// A stream that differs only in one span must not compare equal (the test above relies on
/// `Stream`'s equality covering spans).
#[test]
fn equality_covers_spans() {
    let a = parse_stream("a:\n  b: 1\n");
    let mut b: Stream = a.clone();
    b.documents[0].root.span.end += 1;
    assert_ne!(a, b);
}
