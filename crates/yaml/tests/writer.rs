//! `to_yaml_string` against `sigs.k8s.io/yaml.Marshal` (go-yaml v2 emitter) output, case by
//! case (kube-compare spec §5.6.3 and go-yaml v2's `emitterc.go` rules).

use driftlint_yaml::{parse_stream, to_yaml_string};
use serde_json::{Value, json};

fn y(v: &Value) -> String {
    to_yaml_string(v)
}

fn value_line(s: &str) -> String {
    let out = y(&json!({ "k": s }));
    out.strip_prefix("k: ").unwrap_or(&out).trim_end_matches('\n').to_owned()
}

#[test]
fn strings_that_would_change_type_are_double_quoted() {
    for s in [
        "true",
        "True",
        "TRUE",
        "false",
        "yes",
        "Yes",
        "y",
        "Y",
        "n",
        "on",
        "On",
        "no",
        "off",
        "null",
        "Null",
        "~",
        "",
        "0x10",
        "010",
        "0o17",
        "0b101",
        "1e3",
        "1_000",
        ".5",
        "123",
        "+1",
        "-1",
        "1.0",
        "3.",
        ".inf",
        "-.Inf",
        ".nan",
        "2024-01-01",
        "2024-01-01T00:00:00Z",
        "12:30",
        "1:2:3",
        "-12:30",
    ] {
        assert_eq!(value_line(s), format!("\"{s}\""), "{s:?}");
    }
}

#[test]
fn strings_with_indicators_are_single_quoted() {
    for (s, want) in [
        (" lead", "' lead'"),
        ("trail ", "'trail '"),
        ("a: b", "'a: b'"),
        ("a #b", "'a #b'"),
        ("#x", "'#x'"),
        ("*x", "'*x'"),
        ("&x", "'&x'"),
        ("!x", "'!x'"),
        ("@x", "'@x'"),
        ("%x", "'%x'"),
        ("`x", "'`x'"),
        ("|x", "'|x'"),
        (">x", "'>x'"),
        (",x", "',x'"),
        ("- x", "'- x'"),
        ("-", "'-'"),
        (":", "':'"),
        ("?", "'?'"),
        ("x:", "'x:'"),
        ("{x}", "'{x}'"),
        ("[x]", "'[x]'"),
        ("'q'", "'''q'''"),
        ("'", "''''"),
        ("\"dq\"", "'\"dq\"'"),
        ("---", "'---'"),
        ("...x", "'...x'"),
        (" ", "' '"),
        ("@weekly", "'@weekly'"),
    ] {
        assert_eq!(value_line(s), want, "{s:?}");
    }
}

#[test]
fn strings_that_stay_plain() {
    for s in [
        "-x",
        "?x",
        ":x",
        "x'y",
        "a#b",
        "x,y",
        "x]",
        "x}",
        "--x",
        "héllo",
        "日本語",
        "a\u{a0}b",
        "1.2.3",
        "v1.2.3",
        "inf",
        "nil",
        "<<",
        "a: ",
        "http://x:80/p?q=1#f",
        "ExecCondition=/bin/bash -c 'echo Hello World'",
        "0x",
        "1e",
        "12:60",
        "yes!",
    ] {
        if s == "a: " {
            continue; // trailing space: quoted, covered above
        }
        assert_eq!(value_line(s), s, "{s:?}");
    }
}

#[test]
fn escapes_in_double_quotes() {
    assert_eq!(value_line("a\tb"), r#""a\tb""#);
    assert_eq!(value_line("a\x01b"), r#""a\x01b""#);
    assert_eq!(value_line("del\x7f"), r#""del\x7F""#);
    assert_eq!(value_line("a\rb"), r#""a\rb""#);
    assert_eq!(value_line("nel\u{85}"), r#""nel\N""#);
    assert_eq!(value_line("a\u{feff}b"), r#""a\uFEFFb""#);
    // go-yaml v2 treats characters outside the BMP as unprintable.
    assert_eq!(value_line("smile 🙂"), r#""smile \U0001F642""#);
    // Quotes and backslashes inside a double-quoted string.
    assert_eq!(value_line("\t\"x\"\\"), r#""\t\"x\"\\""#);
    // go-yaml's is_bom looks at the start of the value: everything gets escaped.
    assert_eq!(value_line("\u{feff}ab"), r#""\uFEFF\x61\x62""#);
}

#[test]
fn multi_line_strings_use_literal_blocks() {
    assert_eq!(y(&json!({"k": "a\nb"})), "k: |-\n  a\n  b\n");
    assert_eq!(y(&json!({"k": "a\nb\n"})), "k: |\n  a\n  b\n");
    assert_eq!(y(&json!({"k": "a\nb\n\n"})), "k: |+\n  a\n  b\n\n");
    assert_eq!(y(&json!({"k": "a\n\nb"})), "k: |-\n  a\n\n  b\n");
    assert_eq!(y(&json!({"k": " a\nb"})), "k: |2-\n   a\n  b\n");
    assert_eq!(y(&json!({"k": "\n"})), "k: |2+\n\n");
    assert_eq!(y(&json!({"k": "\na"})), "k: |2-\n\n  a\n");
    // Tabs or a line with trailing spaces force double quotes.
    assert_eq!(y(&json!({"k": "a\n\tb"})), "k: \"a\\n\\tb\"\n");
    assert_eq!(y(&json!({"k": "a \nb"})), "k: \"a \\nb\"\n");
    // Trailing space at the very end too.
    assert_eq!(y(&json!({"k": "a\nb "})), "k: \"a\\nb \"\n");
    // Indentation follows the nesting.
    assert_eq!(y(&json!({"a": {"b": "x\ny"}})), "a:\n  b: |-\n    x\n    y\n");
    assert_eq!(y(&json!(["x\ny"])), "- |-\n  x\n  y\n");
    assert_eq!(y(&json!([{"k": "x\ny"}])), "- k: |-\n    x\n    y\n");
    assert_eq!(y(&json!({"l": ["x\ny\n"]})), "l:\n- |\n  x\n  y\n");
    assert_eq!(y(&json!("x\ny")), "|-\n  x\n  y\n");
}

#[test]
fn long_strings_fold_at_80_columns() {
    let groups = ["0123456789"; 10].join(" ");
    let first = ["0123456789"; 8].join(" ");
    assert_eq!(y(&json!({"k": groups})), format!("k: {first}\n  0123456789 0123456789\n"));
    // Deeper nesting: continuation lines are indented to the value's level + 2.
    // "  b: " is 5 columns, so the break comes after the 7th group (column 81).
    let deep = y(&json!({"a": {"b": groups}}));
    let first7 = ["0123456789"; 7].join(" ");
    assert_eq!(deep, format!("a:\n  b: {first7}\n    0123456789 0123456789 0123456789\n"));
    // No spaces: never folded.
    let long = "x".repeat(200);
    assert_eq!(y(&json!({"k": long})), format!("k: {long}\n"));
    // Double-quoted strings fold too, with the space dropped at the break.
    let dq = format!("\t{}", ["0123456789"; 9].join(" "));
    assert_eq!(y(&json!({"k": dq})), format!("k: \"\\t{first7}\n  0123456789 0123456789\"\n"));
    // Simple keys (up to 128 bytes) are never folded; longer keys become complex keys,
    // which are.
    let key = ["word"; 25].join(" ");
    assert_eq!(y(&json!({ key.clone(): 1 })), format!("{key}: 1\n"));
    let key = ["word"; 30].join(" ");
    let (a, b) = (["word"; 16].join(" "), ["word"; 14].join(" "));
    assert_eq!(y(&json!({ key: 1 })), format!("? {a}\n  {b}\n: 1\n"));
    // Double spaces are not a break point in plain scalars.
    let spaced = format!("{}  tail", "y".repeat(85));
    assert_eq!(value_line(&spaced), spaced);
}

#[test]
fn single_quoted_strings_fold() {
    let text = format!("#{}", ["abcdefghi"; 10].join(" "));
    // "k: '" is 4 columns; each "abcdefghi " group is 10.
    let out = y(&json!({ "k": text }));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("k: '#abcdefghi"));
    assert!(lines[0].len() > 80 && lines[0].len() <= 90, "{}", lines[0].len());
    assert!(lines[1].starts_with("  abcdefghi") && lines[1].ends_with('\''));
}

#[test]
fn collections() {
    let v = json!({"a": {"b": [1, {"c": [], "d": {}}], "e": [[1, 2], []]}, "f": null, "g": true});
    assert_eq!(y(&v), "a:\n  b:\n  - 1\n  - c: []\n    d: {}\n  e:\n  - - 1\n    - 2\n  - []\nf: null\ng: true\n");
    let v = json!({"containers": [{"name": "a", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]});
    assert_eq!(y(&v), "containers:\n- name: a\n  ports:\n  - containerPort: 80\n    protocol: TCP\n");
    assert_eq!(y(&json!([[["x"]]])), "- - - x\n");
    assert_eq!(y(&json!([{"a": {"b": 1}}])), "- a:\n    b: 1\n");
}

#[test]
fn root_values() {
    assert_eq!(y(&json!("hello")), "hello\n");
    assert_eq!(y(&json!("true")), "\"true\"\n");
    assert_eq!(y(&json!(null)), "null\n");
    assert_eq!(y(&json!([])), "[]\n");
    assert_eq!(y(&json!({})), "{}\n");
    assert_eq!(y(&json!(3)), "3\n");
    assert_eq!(y(&json!("")), "\"\"\n");
}

#[test]
fn keys_sort_naturally_and_are_quoted_like_values() {
    let v = json!({"bool": 1, "a10": 1, "Zed": 1, "10": 1, "B": 1, "a9": 1, "9": 1, "_x": 1, "1": 1, "colon": 1});
    assert_eq!(y(&v), "_x: 1\n\"1\": 1\n\"9\": 1\n\"10\": 1\nB: 1\nZed: 1\na9: 1\na10: 1\nbool: 1\ncolon: 1\n");
    let v = json!({"": 1, "true": 2, "a b": 3, "x:": 4, "y": 5});
    assert_eq!(y(&v), "\"\": 1\na b: 3\n\"true\": 2\n'x:': 4\n\"y\": 5\n");
}

#[test]
fn complex_keys() {
    let long = "k".repeat(129);
    assert_eq!(y(&json!({ long.clone(): "v" })), format!("? {long}\n: v\n"));
    let ok = "k".repeat(128);
    assert_eq!(y(&json!({ ok.clone(): "v" })), format!("{ok}: v\n"));
    assert_eq!(y(&json!({"a\nb": 1})), "? |-\n  a\n  b\n: 1\n");
    assert_eq!(y(&json!({"a\nb": {"c": 1}})), "? |-\n  a\n  b\n: c: 1\n");
}

#[test]
fn numbers_follow_go() {
    for (v, want) in [
        (json!(1.5), "1.5"),
        (json!(3.0), "3"),
        (json!(-0.0), "0"),
        (json!(1e21), "1e+21"),
        (json!(1e20), "1e+20"),
        (json!(1e-7), "1e-07"),
        (json!(0.000001), "1e-06"),
        (json!(0.0001), "0.0001"),
        (json!(123456789.0), "123456789"),
        (json!(1234567.5), "1.2345675e+06"),
        (json!(9007199254740993_u64), "9007199254740993"),
        (json!(9007199254740993.0), "9007199254740992"),
        (json!(u64::MAX), "18446744073709551615"),
        (json!(i64::MIN), "-9223372036854775808"),
        (json!(12345678901234567890.0), "12345678901234567000"),
        (json!(-2.5), "-2.5"),
    ] {
        assert_eq!(y(&json!({ "v": v })), format!("v: {want}\n"), "{v}");
    }
}

/// Loading YAML and writing its JSON form gives the same data back.
#[test]
fn round_trip_through_the_loader() {
    let text = "b: [1, 'two', \"3\", yes, ~, 1.5]\na:\n  s: |\n    multi\n    line\n  t: '  x'\n  u: \"tab\\there\"\n";
    let json = parse_stream(text).documents[0].root.to_json();
    let written = y(&json);
    assert_eq!(
        written,
        "a:\n  s: |\n    multi\n    line\n  t: '  x'\n  u: \"tab\\there\"\nb:\n- 1\n- two\n- \"3\"\n- true\n- null\n- 1.5\n"
    );
    assert_eq!(parse_stream(&written).documents[0].root.to_json(), json);
}

/// Recorded `toYaml` outputs from the Go template corpus (`shared/conformance/gotemplate`,
/// kube-compare function map; `toYaml` is `sigs.k8s.io/yaml.Marshal` minus the final newline).
#[test]
fn gotemplate_corpus_toyaml_cases() {
    let cases = [
        (
            json!({"a": ["x", "y1"], "b": 1, "c": {"d": true, "e": null}}),
            "a:\n- x\n- y1\nb: 1\nc:\n  d: true\n  e: null",
        ),
        (
            json!([
                "yes", "no", "on", "off", "true", "123", "1.5", "null", "~", "", " lead", "a: b", "#c", "- d", "0x1F",
                "1e3", "y", "n", "0755", "@x"
            ]),
            "- \"yes\"\n- \"no\"\n- \"on\"\n- \"off\"\n- \"true\"\n- \"123\"\n- \"1.5\"\n- \"null\"\n- \"~\"\n- \"\"\n- ' lead'\n- 'a: b'\n- '#c'\n- '- d'\n- \"0x1F\"\n- \"1e3\"\n- \"y\"\n- \"n\"\n- \"0755\"\n- '@x'",
        ),
        (json!([1, "two", {"a": [1], "k": "v"}, ["x"]]), "- 1\n- two\n- a:\n  - 1\n  k: v\n- - x"),
        (
            json!({"big": 9007199254740993_i64, "f": 0.25, "huge": 1e21, "i": 42, "neg": -7, "small": 1e-7}),
            "big: 9007199254740993\nf: 0.25\nhuge: 1e+21\ni: 42\nneg: -7\nsmall: 1e-07",
        ),
        (
            json!(["héllo", "tab\there", "quote\"s", "back\\slash", "emoji ✓"]),
            "- héllo\n- \"tab\\there\"\n- quote\"s\n- back\\slash\n- emoji ✓",
        ),
        (
            json!({"k": "abcd ".repeat(30)}),
            "k: 'abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd\n  abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd '",
        ),
        (json!({"b": 1, "a": 2, "B": 3, "_": 4, "10": 5, "9": 6}), "_: 4\n\"9\": 6\n\"10\": 5\nB: 3\na: 2\nb: 1"),
        (
            json!({"app.kubernetes.io/name": "x", "with space": 1, "yes": 2, "123": 3}),
            "\"123\": 3\napp.kubernetes.io/name: x\nwith space: 1\n\"yes\": 2",
        ),
        (
            json!({"s": "line1\nline2\n", "t": "no-trailing\nnewline"}),
            "s: |\n  line1\n  line2\nt: |-\n  no-trailing\n  newline",
        ),
        (json!({"_0": "a", "_1": "b"}), "_0: a\n_1: b"),
    ];
    for (value, want) in cases {
        assert_eq!(y(&value).strip_suffix('\n'), Some(want), "{value}");
    }
}
