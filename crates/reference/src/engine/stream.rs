//! Decoding one input stream (a file, stdin or a URL body) into collection events: CRs,
//! skip warnings and decode errors, in document order, with kube-compare's texts (§1.7).
//!
//! A multi-document stream is cut at its `---` lines and the pieces are parsed in parallel,
//! each CR packed ([`super::packed`]) as soon as it is decoded, so the spanned YAML trees of a
//! large dump never exist all at once. Cutting is only an optimisation: when any piece has a
//! YAML error or warning, the whole stream is parsed again in one go, so error texts, line
//! numbers and the documents kept before an error are exactly those of a single parse.
//!
//! Each piece (or a stream that is one piece) is first offered to the fast loader
//! ([`driftlint_yaml::parse_simple`]), which reads plain block YAML straight into JSON values
//! and declines everything else; it only answers where the full loader would find no error
//! or warning and the same values, so the result does not depend on which one read it.

use rayon::prelude::*;
use serde_json::Value;

use super::CrResult;
use super::cr::{Cr, cr_id, skip_warning};
use super::packed::PackedCr;
use crate::correlate::ReferenceIndex;

/// Compares a CR as soon as it is decoded, on the thread that decoded it, or answers `None`
/// (leaving the CR untouched) when the comparison needs every CR loaded first; such CRs
/// are packed and compared afterwards. See [`super::Engine::compare_early`].
pub type Early<'a> = dyn Fn(&mut Cr) -> Option<CrResult> + Sync + 'a;

/// A collected CR: packed until it is compared, or already compared (by an [`Early`]).
#[derive(Clone, Debug)]
pub enum Item {
    Packed(PackedCr),
    /// The CR (after omission; its object `null` when the engine keeps only diffs) and its
    /// result, whose [`CrResult::cr`] is set once the CR's position is known. Not boxed: an
    /// item only travels inside an event's box.
    Compared(Cr, CrResult),
}

impl Item {
    /// The CR's id.
    #[must_use]
    pub fn id(&self) -> &str {
        match self {
            Item::Packed(cr) => &cr.id,
            Item::Compared(cr, _) => &cr.id,
        }
    }
}

/// Where a stream comes from, and what to do with its CRs.
pub(crate) struct Origin<'a> {
    /// The path as walked, `STDIN`, or the URL.
    pub source: &'a str,
    /// Compares a CR as soon as it is decoded, when that can be done before every CR is
    /// loaded (see [`Early`]).
    pub early: Option<&'a Early<'a>>,
}

/// What decoding a stream produces, in order.
pub(crate) enum Event {
    /// A CR, with its contribution to the reference indexes (§4.5).
    Cr(Box<(Item, ReferenceIndex)>),
    /// A skip warning (already in kube-compare's words).
    Warning(String),
    /// A decode error (fatal after everything was read).
    Error(String),
}

/// Decodes `text`, read from `origin.source`.
pub(crate) fn decode_stream(text: &str, origin: &Origin<'_>) -> Vec<Event> {
    let pieces: Vec<&str> = driftlint_yaml::document_pieces(text).into_iter().map(|r| &text[r]).collect();
    let last = pieces.len().saturating_sub(1);
    if pieces.len() > 1
        && let Some(events) =
            pieces.par_iter().enumerate().map(|(i, p)| decode_clean(p, origin, i == last)).collect::<Option<Vec<_>>>()
    {
        return events.into_iter().flatten().collect();
    }
    if pieces.len() == 1
        && let Some(values) = driftlint_yaml::parse_simple(text)
    {
        return decode_values(values, origin);
    }
    decode_whole(text, origin)
}

/// A piece's events, or `None` when it has a YAML error or a key JSON cannot hold, or (unless it is the
/// `last` piece) ends with a document whose root is a scalar, which a load of the whole
/// stream may read on past the next `---` (see [`driftlint_yaml::join_pieces`]): then the
/// whole stream is parsed at once instead.
fn decode_clean(piece: &str, origin: &Origin<'_>, last: bool) -> Option<Vec<Event>> {
    // `driftlint_yaml::ends_open` on the JSON values the fast loader gives.
    let scalar = |v: &Value| !matches!(v, Value::Null | Value::Array(_) | Value::Object(_));
    if let Some(values) = driftlint_yaml::parse_simple(piece) {
        if !last && values.last().is_some_and(scalar) {
            return None;
        }
        return Some(decode_values(values, origin));
    }
    let stream = driftlint_yaml::parse_stream(piece);
    // Of the warnings, only a key JSON cannot hold changes what is read (it stops the file);
    // a duplicate key concerns its own document, as in a whole load.
    if stream.error.is_some() || stream.documents.iter().any(|d| stopping_key(d).is_some()) {
        return None;
    }
    if !last && stream.documents.last().is_some_and(driftlint_yaml::ends_open) {
        return None;
    }
    let mut events = Vec::new();
    for doc in stream.documents {
        let value = doc.root.to_json();
        drop(doc);
        decode(value, origin, &mut events);
    }
    Some(events)
}

/// The events of documents the fast loader read (no errors, no warnings).
fn decode_values(values: Vec<Value>, origin: &Origin<'_>) -> Vec<Event> {
    let mut events = Vec::new();
    for value in values {
        decode(value, origin, &mut events);
    }
    events
}

/// The stream parsed in one go.
fn decode_whole(text: &str, origin: &Origin<'_>) -> Vec<Event> {
    let source = origin.source;
    let mut events = Vec::new();
    let stream = driftlint_yaml::parse_stream(text);
    for doc in stream.documents {
        if let Some(w) = stopping_key(&doc) {
            events.push(parse_error(source, &w.message()));
            return events;
        }
        let value = doc.root.to_json();
        drop(doc);
        decode(value, origin, &mut events);
    }
    if let Some(e) = stream.error {
        let msg = format!("yaml: line {}: {}", e.line, e.message);
        events.push(parse_error(source, &msg));
    }
    events
}

/// A key JSON cannot hold in the document: sigs.k8s.io/yaml rejects it while converting, an
/// "error parsing" that stops the file.
fn stopping_key(doc: &driftlint_yaml::Document) -> Option<&driftlint_yaml::Warning> {
    doc.warnings.iter().find(|w| matches!(w, driftlint_yaml::Warning::UnsupportedKey { .. }))
}

/// `error parsing <src>: error converting YAML to JSON: <msg>`, downgraded to a warning
/// that shows the third word and the text from the last `:` (§1.7, kube-compare's
/// "TODO: Fix this error message truncation").
fn parse_error(source: &str, msg: &str) -> Event {
    let err = format!("error parsing {source}: error converting YAML to JSON: {msg}");
    let tail = err.rfind(':').map_or("", |i| &err[i..]).to_owned();
    Event::Warning(skip_warning(&word(&err, 2), &tail))
}

fn decode(value: Value, origin: &Origin<'_>, events: &mut Vec<Event>) {
    let source = origin.source;
    let type_name = match &value {
        Value::Null => return,
        Value::Object(_) => "",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Array(_) => "array",
    };
    if !type_name.is_empty() {
        events.push(Event::Error(format!(
            "unable to decode {source:?}: json: cannot unmarshal {type_name} into Go value of type unstructured.detector"
        )));
        return;
    }
    if let Some(Value::Array(items)) = value.get("items") {
        for item in items.clone() {
            decode_item(item, origin, events);
        }
        return;
    }
    if !has_kind(&value) {
        let err = format!("unable to decode {source:?}: Object 'Kind' is missing in '...'");
        events.push(Event::Warning(skip_warning(&word(&err, 3), "'Kind' is missing")));
        return;
    }
    push(value, origin, events);
}

/// A list item: nested lists flatten again; a kind-less item fails type lookup
/// (`unable to get type info from the object "*unstructured.Unstructured": Object 'Kind'
/// is missing …`), whose fourth word is `type`.
fn decode_item(item: Value, origin: &Origin<'_>, events: &mut Vec<Event>) {
    if let Some(Value::Array(items)) = item.get("items") {
        for i in items.clone() {
            decode_item(i, origin, events);
        }
        return;
    }
    if !item.is_object() || !has_kind(&item) {
        events.push(Event::Warning(skip_warning("type", "'Kind' is missing")));
        return;
    }
    push(item, origin, events);
}

fn push(object: Value, origin: &Origin<'_>, events: &mut Vec<Event>) {
    let refs = ReferenceIndex::new(std::iter::once(&object));
    let mut cr = Cr { id: cr_id(&object), object, source: origin.source.to_owned() };
    let item = match origin.early.and_then(|compare| compare(&mut cr)) {
        Some(result) => Item::Compared(cr, result),
        None => Item::Packed(PackedCr::pack(cr)),
    };
    events.push(Event::Cr(Box::new((item, refs))));
}

fn has_kind(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str).is_some_and(|k| !k.is_empty())
}

/// kube-compare's `extractPath`: the n-th space-separated word, or `Unknown Path`.
fn word(s: &str, n: usize) -> String {
    s.split(' ').nth(n).unwrap_or("Unknown Path").to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Origin<'static> = Origin { source: "s", early: None };

    fn ids(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                Event::Cr(b) => b.0.id().to_owned(),
                Event::Warning(w) => format!("W {w}"),
                Event::Error(e) => format!("E {e}"),
            })
            .collect()
    }

    #[test]
    fn pieces_give_what_one_parse_gives() {
        let docs = "apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\n---\nkind: B\nmetadata:\n  name: b\n  x: |\n    l1\n---\n- 1\n";
        assert_eq!(ids(&decode_stream(docs, &S)), ids(&decode_whole(docs, &S)));
        assert_eq!(ids(&decode_stream(docs, &S)).len(), 3);
        // An error in a later document: the whole stream is parsed once, keeping what came
        // before and the error's line as a single parse reports it.
        let bad = "kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata: {name: [\n---\nkind: C\n";
        let got = ids(&decode_stream(bad, &S));
        assert_eq!(got, ids(&decode_whole(bad, &S)));
        assert_eq!(got[0], "_A_a");
        assert!(got[1].starts_with("W Skipping"), "{got:?}");
        // A block scalar at a document's root: loaded whole it goes on past `---`, so the
        // stream is one scalar document, one decode error.
        let scalar = "---\n >\na\n---\nkind: B\nmetadata: {name: b}\n";
        assert_eq!(ids(&decode_stream(scalar, &S)), ids(&decode_whole(scalar, &S)));
        assert_eq!(ids(&decode_stream(scalar, &S)).len(), 1);
    }

    #[test]
    fn a_duplicate_key_is_read_in_its_piece_and_a_key_json_cannot_hold_stops_the_file() {
        // A duplicate key concerns its own document: its piece is read alone (the last value
        // wins, as in one load), so one such document does not make the stream one parse.
        let dup = "kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata:\n  name: b\n  name: c\n---\nkind: C\nmetadata: {name: d}\n";
        assert!(decode_clean("kind: B\nmetadata:\n  name: b\n  name: c\n", &S, false).is_some());
        assert_eq!(ids(&decode_stream(dup, &S)), ["_A_a", "_B_c", "_C_d"]);
        assert_eq!(ids(&decode_stream(dup, &S)), ids(&decode_whole(dup, &S)));
        // A key JSON cannot hold stops the file where it is: the stream is parsed whole.
        let complex = "kind: A\nmetadata: {name: a}\n---\nkind: B\n? [x]\n: 1\n---\nkind: C\nmetadata: {name: d}\n";
        assert!(decode_clean("kind: B\n? [x]\n: 1\n", &S, false).is_none());
        let got = ids(&decode_stream(complex, &S));
        assert_eq!(got, ids(&decode_whole(complex, &S)));
        assert_eq!(got.len(), 2, "{got:?}");
    }
}
