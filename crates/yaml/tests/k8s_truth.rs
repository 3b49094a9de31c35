//! Every loader against how Kubernetes reads YAML, recorded from the real reader.
//!
//! `k8s-truth/cases/*.yaml` are small YAML texts (flow collections over several lines,
//! plain scalars with `:` `#` `-` `?` in every context, indentation, block scalars, anchors
//! and merge keys, tabs, document markers, quoted escapes, YAML 1.1 scalars, duplicate keys);
//! `k8s-truth/truth.tsv` holds, for each, what `scripts/record-yaml-truth.sh` recorded:
//! the text cut into documents as apimachinery's `YAMLReader` cuts a manifest stream, each
//! through `sigs.k8s.io/yaml.YAMLToJSON` (go-yaml v2): the JSON of each document, or that it
//! was refused. Re-recording needs Go; this test does not.
//!
//! A loader agrees with a case when both refuse it (the messages differ by design), or both
//! read the same documents, compared as Kubernetes then decodes the JSON: integers that fit
//! `int64` stay integers, other numbers are `float64`; empty (`null`) documents are skipped
//! as `kubectl` skips them. driftlint keeps a document Kubernetes refuses for a null,
//! `uint64` or collection key, or for `.inf`/`.nan`, and warns instead
//! ([`Warning::UnsupportedKey`], [`Warning::NonFiniteFloat`]): such a warning counts as
//! refusing.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use driftlint_yaml::{Limits, Stream, Warning, parse_simple, parse_stream, parse_stream_general, parse_stream_plain};
use serde_json::{Number, Value};

/// Cases where driftlint reads YAML differently from Kubernetes, each with why. The test
/// fails when one of them stops differing, so the list stays true.
const EXPECTED: &[(&str, &str)] = &[
    // Kubernetes cuts a stream at lines that start with `---` (apimachinery's YAMLReader) and
    // reads each piece with go-yaml, which reads only a piece's first document; driftlint
    // reads the stream as one YAML stream, as go-yaml's decoder and saphyr do.
    ("doc-directive", "`%YAML 1.1` before `---` is a piece of its own, a directive without a document, for Kubernetes"),
    ("doc-end-then-content", "`...` then more content: Kubernetes reads the first document of the piece only"),
    ("doc-scalar-root", "content after `---` on its line: Kubernetes' cut refuses it (`--- 1`)"),
    ("doc-start-inline-content", "content after `---` on its line: Kubernetes' cut refuses it (`--- a`)"),
    ("doc-start-inline-flow", "content after `---` on its line: Kubernetes' cut refuses it (`--- {a: 1}`)"),
    (
        "dq-escape-20",
        "`\\'` in a double-quoted scalar: go-yaml reads `'`, saphyr refuses the escape; one byte less in the value than in the text, which the loader's same-length rereading cannot give",
    ),
    (
        "flow-seq-colon-multiline-scalar",
        "a plain scalar over two lines in a flow collection ending in `:` before `,`: saphyr stops (\"illegal placement of ':' indicator\") before the scalar reaches the loader, so its colons are not masked",
    ),
    ("ls-in-plain", "U+2028 breaks a line for go-yaml, not for saphyr; unlike NEL no line break has its three bytes"),
    (
        "tab-line-blank",
        "go-yaml refuses a line holding only a tab after a plain scalar (\"a tab character that violates indentation\"); saphyr reads it as blank",
    ),
];

#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    Refused,
    Read(Vec<Value>),
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/k8s-truth")
}

/// The recorded cases: name, text, Kubernetes' verdict.
fn cases() -> Vec<(String, String, Verdict)> {
    let truth = fs::read_to_string(dir().join("truth.tsv")).expect("truth.tsv");
    truth
        .lines()
        .map(|line| {
            let mut fields = line.splitn(3, '\t');
            let (name, outcome, rest) = (fields.next().unwrap(), fields.next().unwrap(), fields.next().unwrap_or(""));
            let text = fs::read_to_string(dir().join("cases").join(format!("{name}.yaml"))).expect(name);
            let verdict = match outcome {
                "ok" => {
                    let docs: Vec<Value> = serde_json::from_str(rest).unwrap_or_else(|e| panic!("{name}: {e}"));
                    Verdict::Read(docs.into_iter().filter(|d| !d.is_null()).map(decoded).collect())
                }
                "error" => Verdict::Refused,
                other => panic!("{name}: outcome {other}"),
            };
            (name.to_owned(), text, verdict)
        })
        .collect()
}

/// A JSON value as Kubernetes decodes it (`UnmarshalCaseSensitivePreserveInts`): a number
/// that fits `int64` is an integer, any other a `float64`.
fn decoded(value: Value) -> Value {
    match value {
        Value::Number(n) if n.as_i64().is_none() => {
            Number::from_f64(n.as_f64().unwrap()).map_or(Value::Null, Value::Number)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(decoded).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, decoded(v))).collect()),
        other => other,
    }
}

fn of_stream(stream: &Stream) -> Verdict {
    if stream.error.is_some() {
        return Verdict::Refused;
    }
    let refused = |w: &Warning| matches!(w, Warning::UnsupportedKey { .. } | Warning::NonFiniteFloat { .. });
    if stream.documents.iter().any(|d| d.warnings.iter().any(refused)) {
        return Verdict::Refused;
    }
    Verdict::Read(stream.documents.iter().map(|d| d.root.to_json()).filter(|v| !v.is_null()).collect())
}

fn of_values(values: Vec<Value>) -> Verdict {
    Verdict::Read(values.into_iter().filter(|v| !v.is_null()).collect())
}

/// Each loader's verdict on `text`; the fast paths only where they answer.
fn loaders(text: &str) -> Vec<(&'static str, Verdict)> {
    let limits = Limits::default();
    let mut out = vec![
        ("parse_stream", of_stream(&parse_stream(text))),
        ("general", of_stream(&parse_stream_general(text, &limits))),
    ];
    if let Some(stream) = parse_stream_plain(text, &limits) {
        out.push(("spanned", of_stream(&stream)));
    }
    if let Some(values) = parse_simple(text) {
        out.push(("simple", of_values(values)));
    }
    out
}

#[test]
fn every_loader_reads_the_recorded_cases_as_kubernetes_does() {
    let cases = cases();
    let files = fs::read_dir(dir().join("cases")).unwrap().count();
    assert_eq!(cases.len(), files, "every case file has a recorded truth");
    assert!(cases.len() >= 300, "{}", cases.len());
    let expected: BTreeMap<&str, &str> = EXPECTED.iter().copied().collect();
    let mut unexpected = Vec::new();
    let mut still_expected = Vec::new();
    let mut fast = 0;
    for (name, text, truth) in &cases {
        let verdicts = loaders(text);
        fast += usize::from(verdicts.len() > 2);
        let wrong: Vec<_> = verdicts.iter().filter(|(_, v)| v != truth).collect();
        match (wrong.is_empty(), expected.contains_key(name.as_str())) {
            (false, false) => unexpected.push(format!("{name}: Kubernetes {truth:?}; {wrong:?}\n{text:?}")),
            (true, true) => still_expected.push(name.clone()),
            _ => {}
        }
    }
    assert!(unexpected.is_empty(), "{} cases read unlike Kubernetes:\n{}", unexpected.len(), unexpected.join("\n"));
    assert!(still_expected.is_empty(), "listed as differing, but read as Kubernetes does: {still_expected:?}");
    assert!(fast >= 100, "the fast paths answered on {fast} cases");
}
