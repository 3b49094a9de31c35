//! Loading a stream piece by piece ([`document_pieces`], [`join_pieces`]) against loading it
//! whole: whenever the pieces are joined, the [`Stream`] must equal the whole load's
//! (documents, ranges, every node's span, style and raw text). Over multi-document streams
//! made of the repository's YAML files, of the shared corpora (an `#[ignore]`d test, run by
//! `.ci/run`), and of mutations of them (document markers, directives, open quotes, duplicate
//! keys, …). Joining must also succeed on ordinary streams, or it would be worth nothing.

use std::fs;
use std::path::PathBuf;

use driftlint_yaml::{Stream, document_pieces, join_pieces, parse_stream};

mod common;
#[path = "common/differential.rs"]
mod differential;
use differential::{corpus_yaml_files, mutations, repository_yaml_files};

/// `Stream` equality, except that NaN equals NaN.
fn same(a: &Stream, b: &Stream) -> bool {
    a == b || format!("{a:?}") == format!("{b:?}")
}

/// Checks `text`; returns (it has several pieces, they were joined).
fn agrees(text: &str, what: &str) -> (bool, bool) {
    let pieces = document_pieces(text);
    let covered: usize = pieces.iter().map(|r| r.len()).sum();
    assert_eq!(covered, text.len(), "{what}: the pieces cover the text");
    // Runs of consecutive pieces are pieces too: one a piece, and pairs.
    let pairs: Vec<_> = pieces.chunks(2).map(|c| c[0].start..c[c.len() - 1].end).collect();
    let whole = parse_stream(text);
    let mut joined_any = false;
    for cuts in [&pieces, &pairs] {
        let streams = cuts.iter().map(|r| parse_stream(&text[r.clone()])).collect();
        let Some(joined) = join_pieces(cuts, streams) else { continue };
        joined_any = true;
        assert!(
            same(&joined, &whole),
            "{what}: joined pieces differ:\n--- text ---\n{text}\n--- joined ---\n{joined:?}\n--- whole ---\n{whole:?}"
        );
    }
    (pieces.len() > 1, joined_any)
}

/// Streams of consecutive files (as `kustomize build` or a concatenation gives them) and
/// their mutations; returns (streams with several pieces, of them joined).
fn check_streams(files: &[PathBuf], mutants: usize) -> (usize, usize) {
    let texts: Vec<String> = files.iter().filter_map(|p| fs::read_to_string(p).ok()).collect();
    let mut rng = fastrand::Rng::with_seed(29);
    let (mut multi, mut joined) = (0, 0);
    for (i, pair) in texts.chunks(3).enumerate() {
        let stream = pair.iter().map(|t| format!("---\n{t}\n")).collect::<String>();
        let what = format!("stream {i}");
        let mut tally = |(m, j): (bool, bool)| {
            multi += usize::from(m);
            joined += usize::from(m && j);
        };
        tally(agrees(&stream, &what));
        for (n, m) in mutations(&stream, &mut rng, mutants).iter().enumerate() {
            tally(agrees(m, &format!("{what} mutation {n}")));
        }
    }
    (multi, joined)
}

#[test]
fn repository_streams_and_mutations() {
    let mut files = repository_yaml_files();
    files.sort();
    driftlint_test_support::assert_min_cases("repository YAML files", files.len(), 40);
    let (multi, joined) = check_streams(&files, 40);
    eprintln!("joined {joined} of {multi} multi-piece streams");
    assert!(joined * 3 > multi, "pieces were joined for only {joined} of {multi} streams");
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn corpus_streams_and_mutations() {
    let Some(mut files) = corpus_yaml_files("corpus_streams_and_mutations") else { return };
    files.sort();
    driftlint_test_support::assert_min_cases("corpus YAML files", files.len(), 1360);
    let (multi, joined) = check_streams(&files, 3);
    eprintln!("joined {joined} of {multi} multi-piece corpus streams");
    assert!(joined * 3 > multi, "pieces were joined for only {joined} of {multi} streams");
}
