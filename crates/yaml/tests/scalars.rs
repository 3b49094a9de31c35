//! go-yaml v2 plain-scalar resolution, case by case (expected values from go-yaml v2's
//! `resolve.go` semantics and kube-compare spec §5.6.4), and their JSON form in Kubernetes.

use driftlint_yaml::{Scalar, is_base60_float, parse_scalar, parse_stream};
use serde_json::json;

#[test]
fn booleans_are_yaml_1_1() {
    for s in ["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"] {
        assert_eq!(parse_scalar(s), Scalar::Bool(true), "{s}");
    }
    for s in ["n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"] {
        assert_eq!(parse_scalar(s), Scalar::Bool(false), "{s}");
    }
    for s in ["yEs", "oN", "tRUE", "truE", "nO", "Y ", "yes!"] {
        assert_eq!(parse_scalar(s), Scalar::String, "{s}");
    }
}

#[test]
fn nulls() {
    for s in ["", "~", "null", "Null", "NULL"] {
        assert_eq!(parse_scalar(s), Scalar::Null, "{s:?}");
    }
    assert_eq!(parse_scalar("nULL"), Scalar::String);
    assert_eq!(parse_scalar("none"), Scalar::String);
}

#[test]
fn integers_follow_go_base_prefixes() {
    let cases: &[(&str, i64)] = &[
        ("0", 0),
        ("12", 12),
        ("+12", 12),
        ("-12", -12),
        ("0755", 493),
        ("0o755", 493),
        ("0O17", 15),
        ("0x1F", 31),
        ("0X1f", 31),
        ("-0x10", -16),
        ("+0x10", 16),
        ("0b101", 5),
        ("-0b101", -5),
        ("1_000", 1000),
        ("0x_1F", 31),
        ("1__0", 10),
        ("00", 0),
        ("9223372036854775807", i64::MAX),
        ("-9223372036854775808", i64::MIN),
    ];
    for &(s, want) in cases {
        assert_eq!(parse_scalar(s), Scalar::Int(want), "{s}");
    }
}

#[test]
fn integers_beyond_int64() {
    assert_eq!(parse_scalar("9223372036854775808"), Scalar::Uint(9_223_372_036_854_775_808));
    assert_eq!(parse_scalar("12345678901234567890"), Scalar::Uint(12_345_678_901_234_567_890));
    // ParseUint rejects a sign, so this falls through to the float regex.
    assert_eq!(parse_scalar("+18446744073709551615"), Scalar::Float(18446744073709551615.0));
    assert_eq!(parse_scalar("18446744073709551616"), Scalar::Float(18446744073709551616.0));
    assert_eq!(parse_scalar("-9223372036854775809"), Scalar::Float(-9223372036854775809.0));
}

#[test]
fn floats_follow_the_yaml_1_1_regex() {
    let cases: &[(&str, f64)] = &[
        ("1.5", 1.5),
        ("1e3", 1000.0),
        ("1E3", 1000.0),
        ("1.0e+3", 1000.0),
        ("3.0", 3.0),
        ("-1.5", -1.5),
        (".5", 0.5),
        ("-.5", -0.5),
        ("+.5", 0.5),
        ("1.", 1.0),
        ("1_000.5", 1000.5),
        // Invalid octal falls through to the float regex.
        ("08", 8.0),
        ("09.5", 9.5),
        (".5e3", 500.0),
        ("1e-3", 0.001),
    ];
    for &(s, want) in cases {
        assert_eq!(parse_scalar(s), Scalar::Float(want), "{s}");
    }
    assert!(matches!(parse_scalar(".inf"), Scalar::Float(f) if f == f64::INFINITY));
    assert!(matches!(parse_scalar("+.INF"), Scalar::Float(f) if f == f64::INFINITY));
    assert!(matches!(parse_scalar("-.Inf"), Scalar::Float(f) if f == f64::NEG_INFINITY));
    assert!(matches!(parse_scalar(".NaN"), Scalar::Float(f) if f.is_nan()));
}

#[test]
fn things_that_stay_strings() {
    for s in [
        "1e999",  // overflow: Go's ParseFloat errors, go-yaml keeps the text
        ".5e999", //
        "1.2.3",  // versions
        "0x",     //
        "0b102",  //
        "1e",     //
        "12:30",  // base 60 is not supported on input
        "1:2:3",  //
        "-",      //
        "+",      //
        ".",      //
        "..5",    //
        "._5",    //
        "inf",    // only the dotted forms
        "-inf",   //
        "nan",    //
        "0x1p-2", // hex floats are not in the regex
        "1 000",  //
        "v1",     //
        "=",      //
        "<<<",    //
        "Yes!",   //
        "infinity",
    ] {
        assert_eq!(parse_scalar(s), Scalar::String, "{s}");
    }
}

#[test]
fn timestamps_are_recognised_but_stay_strings() {
    for s in [
        "2024-01-01",
        "2024-1-2",
        "2001-12-14t21:59:43.10Z",
        "2001-12-14T21:59:43.10-05:00",
        "2001-12-14T21:59:43Z",
        "2001-12-14 21:59:43.10",
        "2001-12-14  21:59:43",
        "2024-02-29",
    ] {
        assert_eq!(parse_scalar(s), Scalar::Timestamp, "{s}");
    }
    for s in ["2023-02-29", "2024-13-01", "2024-01-32", "2024-01-01T25:00:00Z", "2024-01", "20240-01-01", "2024-01-01x"]
    {
        assert_ne!(parse_scalar(s), Scalar::Timestamp, "{s}");
    }
    let doc = &parse_stream("d: 2024-01-01\n").documents[0];
    assert_eq!(doc.root.to_json(), json!({"d": "2024-01-01"}));
}

#[test]
fn merge_key_and_base60() {
    // go-yaml's hint table has no entry for `<`, so `<<` resolves as a string.
    assert_eq!(parse_scalar("<<"), Scalar::String);
    assert!(is_base60_float("12:30"));
    assert!(is_base60_float("-1:20:30.5"));
    assert!(is_base60_float("190:20:30"));
    assert!(!is_base60_float("12:60"));
    assert!(!is_base60_float("12:"));
    assert!(!is_base60_float("a:1"));
}

/// Values as a template sees them: YAML → JSON → Kubernetes JSON decoding.
#[test]
fn json_form_follows_kubernetes() {
    let text = "\
a: 0755
b: 0o10
c: 0x10
d: 1_000
e: 1e3
f: 3.0
g: 1.5
h: ~
i: yes
j: off
k: 12345678901234567890
l: 1e21
m: '0755'
nn: \"yes\"
o: 2024-01-01
p: 12:30
q: -0.0
r: !!str 123
s: !!float 3
t: !!int \"42\"
u: .inf
";
    let stream = parse_stream(text);
    assert_eq!(stream.error, None);
    let json = stream.documents[0].root.to_json();
    assert_eq!(
        json,
        json!({
            "a": 493, "b": 8, "c": 16, "d": 1000, "e": 1000, "f": 3, "g": 1.5, "h": null,
            "i": true, "j": false, "k": 12345678901234567890.0, "l": 1e21, "m": "0755",
            "nn": "yes", "o": "2024-01-01", "p": "12:30", "q": 0, "r": "123", "s": 3, "t": 42,
            "u": null
        })
    );
    assert!(json["e"].is_i64(), "a whole float becomes int64 in Kubernetes");
    assert!(json["k"].is_f64(), "beyond int64 is float64");
    assert!(json["l"].is_f64());
}

#[test]
fn non_string_keys_become_strings() {
    let text = "1: a\ny: b\nn: c\non: d\n1.5: e\n3.0: f\n0x10: g\n~: h\n";
    let doc = &parse_stream(text).documents[0];
    let json = doc.root.to_json();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    // `y` and `on` are both true: the later one wins.
    assert_eq!(keys, ["1", "true", "false", "1.5", "3", "16", "null"]);
    assert_eq!(json["true"], "d");
    use driftlint_yaml::Warning;
    assert!(
        matches!(
            doc.warnings.as_slice(),
            [
                Warning::DuplicateKey { key, first, duplicate },
                Warning::UnsupportedKey { key: null, .. },
            ] if key == "true" && *first == (5..6) && *duplicate == (15..17) && null == "null"
        ),
        "{:?}",
        doc.warnings
    );
}

#[test]
fn float_keys_use_32_bit_formatting() {
    let doc = &parse_stream("123456789.0: a\n0.1: b\n").documents[0];
    let json = doc.root.to_json();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["1.2345679e+08", "0.1"]);
}

/// `!!binary` as go-yaml v2 decodes it (`base64.StdEncoding.DecodeString`, then the bytes as a
/// Go string, which JSON encoding makes UTF-8 byte by byte), and the error it gives.
#[test]
fn binary_scalars_decode_like_go_yaml_v2() {
    let value = |text: &str| driftlint_yaml::parse_stream(text).documents[0].root.to_json()["v"].clone();
    // "info" is valid base64 for the bytes 8a 77 e8: none but 0x77 starts a UTF-8 character.
    assert_eq!(value("v: !!binary info\n"), "\u{fffd}w\u{fffd}");
    assert_eq!(value("v: !!binary aGVsbG8=\n"), "hello");
    assert_eq!(value("v: !!binary \"aGk=\"\n"), "hi");
    // Line breaks inside the base64 text are skipped, as Go's decoder does.
    assert_eq!(value("v: !!binary |\n  aGVs\n  bG8=\n"), "hello");
    assert_eq!(value("v: !!binary 4pyTIMOgIGxhIG1vZGU=\n"), "✓ à la mode");
    // e8 80 41: Go replaces each byte of the broken sequence, Rust's lossy decoding would not.
    assert_eq!(value("v: !!binary 6IBB\n"), "\u{fffd}\u{fffd}A");
    // Non-zero trailing bits are allowed (StdEncoding is not Strict).
    assert_eq!(value("v: !!binary aGl=\n"), "hi");
    for bad in ["v: !!binary ==\n", "v: !!binary aGVsbG8\n", "v: !!binary a b\n"] {
        let err = driftlint_yaml::parse_stream(bad).error.unwrap_or_else(|| panic!("{bad:?} decoded"));
        assert_eq!(err.message, "!!binary value contains invalid base64 data", "{bad:?}");
        assert_eq!((err.line, err.column), (1, 4), "{bad:?}");
    }
    // The fast loader never answers differently: it declines tags.
    assert!(driftlint_yaml::parse_simple("v: !!binary info\n").is_none_or(|v| v[0]["v"] == "\u{fffd}w\u{fffd}"));
}

/// Every core tag go-yaml v2 resolves, on values whose untagged reading differs (floats in the
/// JSON form Kubernetes writes: `1000`, not `1000.0`).
#[test]
fn core_tags_resolve_like_go_yaml_v2() {
    let text = "a: !!str 123\nb: !!str true\nc: !!int \"0x1F\"\nd: !!float \"1e3\"\ne: !!float 7\n\
                f: !!bool \"off\"\ng: !!null \"\"\nh: !!timestamp 2001-12-14\ni: !!str ~\n";
    let json = driftlint_yaml::parse_stream(text).documents[0].root.to_json();
    assert_eq!(
        json,
        serde_json::json!({
            "a": "123", "b": "true", "c": 31, "d": 1000, "e": 7,
            "f": false, "g": null, "h": "2001-12-14", "i": "~",
        })
    );
    for (bad, message) in [
        ("v: !!int 1.5\n", "cannot decode !!float `1.5` as a !!int"),
        ("v: !!bool 1\n", "cannot decode !!int `1` as a !!bool"),
        ("v: !!null x\n", "cannot decode !!str `x` as a !!null"),
        ("v: !!timestamp nope\n", "cannot decode !!str `nope` as a !!timestamp"),
    ] {
        assert_eq!(driftlint_yaml::parse_stream(bad).error.map(|e| e.message).as_deref(), Some(message), "{bad:?}");
    }
}
