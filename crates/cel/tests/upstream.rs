//! Kubernetes' and cel-go's own library tests, translated: each case is the upstream
//! expression and its expected value (a CEL value printed as `show` prints it). Cases that
//! differ from upstream are listed in `DIFFERENCES` of each table with the reason.
//!
//! Sources (fetched at the commits named):
//! - k8s.io/apiserver `pkg/cel/library/semver_test.go` (kubernetes/kubernetes 2293553202fa)
//! - k8s.io/apiserver `pkg/cel/library/format_test.go` (kubernetes/kubernetes 03bd70195975)
//! - k8s.io/apiserver `pkg/cel/library/quantity_test.go` (kubernetes/kubernetes 16913111deb1)
//! - k8s.io/apiserver `pkg/cel/library/ip_test.go` (kubernetes/kubernetes 95f08499d652)
//! - k8s.io/apiserver `pkg/cel/library/cidr_test.go` (kubernetes/kubernetes 78fc8e44052f)
//! - cel-go `ext/sets_test.go` (google/cel-go 00042ce7bef6)
//! - cel-go `ext/encoders_test.go` (google/cel-go 2059366fe60f)
//! - cel-go `ext/math_test.go` (google/cel-go 028e53c3434e)
//! - cel-go `ext/comprehensions_test.go` (google/cel-go 40037713e3da)
//! - the bindings extension's cases of cel-cpp's and cel-java's tests (cel-spec `bindings_ext`)

mod common;

use common::value;

/// Every case gives its value; an expected value `error: X` is an evaluation error whose text
/// holds X.
fn check(table: &[(&str, &str)]) {
    let bad: Vec<String> = table
        .iter()
        .filter_map(|(e, want)| {
            let got = value(e);
            let ok = match want.strip_prefix("error: ") {
                Some(part) => got.starts_with("error: ") && got.contains(part),
                None => got == *want,
            };
            (!ok).then(|| format!("{e}: want {want}, got {got}"))
        })
        .collect();
    assert!(bad.is_empty(), "{} of {} cases differ:\n{}", bad.len(), table.len(), bad.join("\n"));
}

/// semver_test.go `TestSemver`. Not translated: `isSemver([1, 2, 3])`, a compile-time
/// type error in Kubernetes (no type checker here: an evaluation error, checked below);
/// the upstream `expectValue` of `semver("1.2.3")` is a Semver object, compared here by `==`.
#[test]
fn k8s_semver() {
    check(&[
        (r#"semver("1.2.3") == semver("1.2.3")"#, "true"),
        (r#"semver("v1.0")"#, "error: semver"),
        (r#"isSemver("1.2.3-beta.1+build.1")"#, "true"),
        (r#"isSemver("")"#, "false"),
        (r#"isSemver("v1.0.0")"#, "false"),
        (r#"isSemver(" 1.0.0")"#, "false"),
        (r#"isSemver("1. 0.0")"#, "false"),
        (r#"isSemver("1.0.0 ")"#, "false"),
        (r#"isSemver("01.01.01")"#, "false"),
        (r#"isSemver("1")"#, "false"),
        (r#"isSemver("1.1")"#, "false"),
        (r#"isSemver("", true)"#, "false"),
        (r#"isSemver(" 1.0.0", true)"#, "false"),
        (r#"isSemver("1. 0.0", true)"#, "false"),
        (r#"isSemver("1.0.0 ", true)"#, "false"),
        (r#"isSemver("v1.0.0", true)"#, "true"),
        (r#"isSemver("01.01.01", true)"#, "true"),
        (r#"isSemver("1", true)"#, "true"),
        (r#"isSemver("1.1", true)"#, "true"),
        (r#"semver("v01.01", true) == semver("1.1.0")"#, "true"),
        (r#"semver("1.2.3") == semver("1.0.0")"#, "false"),
        (r#"semver("1.0.0").isLessThan(semver("1.2.3"))"#, "true"),
        (r#"semver("1.0.0").isLessThan(semver("1.0.0"))"#, "false"),
        (r#"semver("1.2.3").isGreaterThan(semver("1.0.0"))"#, "true"),
        (r#"semver("1.0.0").isGreaterThan(semver("1.0.0"))"#, "false"),
        (r#"semver("1.2.3").compareTo(semver("1.2.3"))"#, "0"),
        (r#"semver("1.0.0").compareTo(semver("1.2.3"))"#, "-1"),
        (r#"semver("1.2.3").compareTo(semver("1.0.0"))"#, "1"),
        (r#"semver("1.2.3").major()"#, "1"),
        (r#"semver("1.2.3").minor()"#, "2"),
        (r#"semver("1.2.3").patch()"#, "3"),
        // Not upstream: the library's comparisons still take quantities.
        (r#"quantity("1Ki").isGreaterThan(quantity("1k"))"#, "true"),
    ]);
    assert!(value("isSemver([1, 2, 3])").starts_with("error: "), "a list is no version string");
}

const DNS1123_LABEL: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN: &str = r"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_LABEL: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QUALIFIED_NAME: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/// `format.X().validate(s)`: `none` when upstream expects `types.OptionalNone`, else the one
/// message upstream's `types.OptionalOf([...])` holds.
fn format_case(expr: &str, want: Option<&str>) -> Option<String> {
    let none = value(&format!("{expr} == optional.none()"));
    let got = value(&format!("{expr}.orValue(['<none>'])"));
    let expected = match want {
        None => "[\"<none>\"]".to_string(),
        Some(m) => format!("[{}]", serde_json::Value::String(m.to_string())),
    };
    let ok = got == expected && (none == "true") == want.is_none();
    (!ok).then(|| format!("{expr}: want {expected}, got {got} (== none: {none})"))
}

/// format_test.go `TestFormat`, every case including its generated ones (every name looked
/// up, compared with its constructor and with every other format).
#[test]
fn k8s_format() {
    let cases: &[(&str, Option<&str>)] = &[
        (r#"format.dns1123Label().validate("my-label-name")"#, None),
        (r#"format.dns1123Subdomain().validate("apiextensions.k8s.io")"#, None),
        (r#"format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")"#, None),
        (r#"format.dns1123LabelPrefix().validate("my-label-prefix-")"#, None),
        (r#"format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")"#, None),
        (r#"format.dns1035LabelPrefix().validate("my-label-prefix-")"#, None),
        (r#"format.uri().validate("http://example.com")"#, None),
        (r#"format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")"#, None),
        (r#"format.byte().validate("aGVsbG8=")"#, None),
        (r#"format.date().validate("2021-01-01")"#, None),
        (r#"format.datetime().validate("2021-01-01T00:00:00Z")"#, None),
        (r#"format.dns1123Label().validate("contains a space")"#, Some(DNS1123_LABEL)),
        (r#"format.dns1123Subdomain().validate("contains a space")"#, Some(DNS1123_SUBDOMAIN)),
        (r#"format.dns1035Label().validate("contains a space")"#, Some(DNS1035_LABEL)),
        (r#"format.qualifiedName().validate("contains a space")"#, Some(QUALIFIED_NAME)),
        (r#"format.dns1123LabelPrefix().validate("contains a space-")"#, Some(DNS1123_LABEL)),
        (r#"format.dns1123SubdomainPrefix().validate("contains a space-")"#, Some(DNS1123_SUBDOMAIN)),
        (r#"format.dns1035LabelPrefix().validate("contains a space-")"#, Some(DNS1035_LABEL)),
        (r#"format.dns1123Label().validate("my-label-name")"#, None),
        (r#"format.dns1123Subdomain().validate("example.com")"#, None),
        (r#"format.dns1035Label().validate("my-label-name")"#, None),
        (r#"format.qualifiedName().validate("my.name")"#, None),
        (r#"format.byte().validate("aGVsbG8=")"#, None),
        (r#"format.byte().validate("aGVsbG8")"#, Some("invalid base64")),
        (r#"format.date().validate("2020-01-01")"#, None),
        (r#"format.date().validate("2020-01-32")"#, Some("invalid date")),
        (r#"format.datetime().validate("2020-01-01T00:00:00Z")"#, None),
        (r#"format.datetime().validate("2020-01-32T00:00:00Z")"#, Some("invalid datetime")),
        (r#"format.labelValue().validate("my-cool-label-Value")"#, None),
        (r#"format.labelValue().validate("my-cool-label-Value!!\n\n!!!")"#, Some(LABEL_VALUE)),
    ];
    let mut bad: Vec<String> = cases.iter().filter_map(|(e, w)| format_case(e, *w)).collect();
    let mut table = vec![(r#"format.named("unknown").hasValue()"#.to_string(), "false".to_string())];
    let names = [
        "dns1123Label",
        "dns1123Subdomain",
        "dns1035Label",
        "qualifiedName",
        "dns1123LabelPrefix",
        "dns1123SubdomainPrefix",
        "dns1035LabelPrefix",
        "labelValue",
        "uri",
        "uuid",
        "byte",
        "date",
        "datetime",
    ];
    for l in names {
        table.push((format!(r#"format.named("{l}").hasValue()"#), "true".into()));
        table.push((format!(r#"format.named("{l}").value() == format.{l}()"#), "true".into()));
        for r in names.iter().filter(|r| **r != l) {
            table.push((format!("format.{l}() == format.{r}()"), "false".into()));
        }
    }
    bad.extend(table.iter().filter_map(|(e, want)| {
        let got = value(e);
        (got != *want).then(|| format!("{e}: want {want}, got {got}"))
    }));
    assert!(bad.is_empty(), "{} cases differ:\n{}", bad.len(), bad.join("\n"));
}

/// sets_test.go `TestSets` (every case is true upstream; the cost columns are cel-go's
/// estimates, not translated: driftlint counts its own steps). The cases with a variable `x`
/// bind it to upstream's input as a list literal.
#[test]
fn cel_go_sets() {
    let cases = [
        "sets.contains([5, 4, 3, 2, 1], [1, 2, 3])",
        "sets.contains([5, 4, 3, 2, 1], [1, 1, 1, 1, 1])",
        "sets.contains([], [])",
        "sets.contains([1], [])",
        "sets.contains([1], [1])",
        "sets.contains([1], [1, 1])",
        "sets.contains([1, 1], [1])",
        "sets.contains([2, 1], [1])",
        "sets.contains([1, 2, 3, 4], [2, 3])",
        "sets.contains([1], [1.0, 1])",
        "sets.contains([1, 2], [2u, 2.0])",
        "sets.contains([1, 2u], [2, 2.0])",
        "sets.contains([1, 2.0, 3u], [1.0, 2u, 3])",
        "sets.contains([[1], [2, 3]], [[2, 3.0]])",
        "!sets.contains([1], [2])",
        "!sets.contains([1], [1, 2])",
        "!sets.contains([1], [\"1\", 1])",
        "!sets.contains([1], [1.1, 1u])",
        "sets.equivalent([], [])",
        "sets.equivalent([1], [1])",
        "sets.equivalent([1], [1, 1])",
        "sets.equivalent([1, 1], [1])",
        "sets.equivalent([1], [1u, 1.0])",
        "sets.equivalent([1, 2, 3], [3u, 2.0, 1])",
        "sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])",
        "!sets.equivalent([2, 1], [1])",
        "!sets.equivalent([1], [1, 2])",
        "!sets.equivalent([1, 2], [2u, 2, 2.0])",
        "!sets.equivalent([1, 2], [1u, 2, 2.3])",
        "sets.intersects([1], [1])",
        "sets.intersects([1], [1, 1])",
        "sets.intersects([1, 1], [1])",
        "sets.intersects([2, 1], [1])",
        "sets.intersects([1], [1, 2])",
        "sets.intersects([1], [1.0, 2])",
        "sets.intersects([1, 2], [2u, 2, 2.0])",
        "sets.intersects([1, 2], [1u, 2, 2.3])",
        "sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])",
        "!sets.intersects([], [])",
        "!sets.intersects([1], [])",
        "!sets.intersects([1], [2])",
        "!sets.intersects([1], [\"1\", 2])",
        "!sets.intersects([1], [1.1, 2u])",
    ];
    let table: Vec<(&str, &str)> = cases.iter().map(|c| (*c, "true")).collect();
    check(&table);
}

/// The bindings extension's cases as cel-cpp's and cel-java's bindings tests list them (the
/// same five in both, from cel-spec's `bindings_ext` conformance file), with cel-java's
/// nested-binding, `map` and optional-list cases; and the error for a name that is not an
/// identifier (cel-cpp: "variable name must be a simple identifier").
#[test]
fn cel_bindings() {
    check(&[
        ("cel.bind(t, true, t)", "true"),
        ("cel.bind(msg, \"hello\", msg + msg + msg) == \"hellohellohello\"", "true"),
        ("cel.bind(t1, true, cel.bind(t2, true, t1 && t2))", "true"),
        ("cel.bind(valid_elems, [1, 2, 3], [3, 4, 5].exists(e, e in valid_elems))", "true"),
        ("cel.bind(valid_elems, [1, 2, 3], ![4, 5].exists(e, e in valid_elems))", "true"),
        ("cel.bind(x, cel.bind(x, \"a\", x + x), x + \":\" + x) == \"aa:aa\"", "true"),
        ("cel.bind(x, cel.bind(x, \"a\", x + x), cel.bind(y, x + x, y + \":\" + y)) == \"aaaa:aaaa\"", "true"),
        ("[1,2,3].map(x, cel.bind(y, x + x, [y, y])) == [[2, 2], [4, 4], [6, 6]]", "true"),
        ("cel.bind(r0, optional.none(), [?r0, ?r0]) == []", "true"),
    ]);
    assert!(value("cel.bind(bad.name, true, bad.name)").starts_with("compile error"), "a name must be an identifier");
}

/// quantity_test.go `TestQuantity`. The parse case's upstream value is a Quantity object,
/// compared here with `==`; the runtime errors are matched by the function's name (the
/// upstream messages are Go's `resource.ParseQuantity` errors, not reproduced word for word);
/// `isQuantity([1, 2, 3])` is a compile-time type error upstream, an evaluation error here.
#[test]
fn k8s_quantity() {
    check(&[
        (r#"quantity("12Mi") == quantity("12582912")"#, "true"),
        (r#"quantity("10Mo")"#, "error: quantity"),
        (r#"quantity("10Mm")"#, "error: quantity"),
        (r#"isQuantity("20")"#, "true"),
        (r#"isQuantity("20M")"#, "true"),
        (r#"isQuantity("20Mi")"#, "true"),
        (r#"isQuantity("20Mo")"#, "false"),
        (r#"isQuantity("10Mm")"#, "false"),
        (r#"quantity("200M") == quantity("200M")"#, "true"),
        (r#"quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")"#, "true"),
        (
            r#"quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")"#,
            "true",
        ),
        (r#"quantity("200M") == quantity("0.3G")"#, "false"),
        (r#"quantity("50M").isLessThan(quantity("50Mi"))"#, "true"),
        (r#"quantity("50M").isLessThan(quantity("100M"))"#, "true"),
        (r#"quantity("100M").isLessThan(quantity("50M"))"#, "false"),
        (r#"quantity("50Mi").isGreaterThan(quantity("50M"))"#, "true"),
        (r#"quantity("150Mi").isGreaterThan(quantity("100Mi"))"#, "true"),
        (r#"quantity("50M").isGreaterThan(quantity("100M"))"#, "false"),
        (r#"quantity("200M").compareTo(quantity("0.2G"))"#, "0"),
        (r#"quantity("50M").compareTo(quantity("50Mi"))"#, "-1"),
        (r#"quantity("50Mi").compareTo(quantity("50M"))"#, "1"),
        (r#"quantity("50k").add(quantity("20")) == quantity("50.02k")"#, "true"),
        (r#"quantity("50k").add(20).isLessThan(quantity("50020"))"#, "false"),
        (r#"quantity("50k").sub(quantity("20")) == quantity("49.98k")"#, "true"),
        (r#"quantity("50k").sub(20) == quantity("49980")"#, "true"),
        (r#"quantity("50k").add(20).sub(quantity("100k")).asInteger()"#, "-49980"),
        (r#"quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()"#, "20"),
        (r#"quantity("50k").asInteger()"#, "50000"),
        (r#"quantity("9999999999999999999999999999999999999G").asInteger()"#, "error: cannot convert value to integer"),
        (r#"quantity("9999999999999999999999999999999999999G").isInteger()"#, "false"),
        (r#"quantity("50").isInteger()"#, "true"),
        (r#"quantity("50.703k").asApproximateFloat()"#, "50703.0"),
    ]);
    assert!(value("isQuantity([1, 2, 3])").starts_with("error: "), "a list is no quantity string");
}

/// ip_test.go `TestIP`. The parse cases' upstream values are IP objects, compared here by
/// their string; the runtime errors are Go's `netip.ParseAddr` messages, matched here by the
/// address; `isIP(cidr(…))` is a compile-time type error upstream, an evaluation error here;
/// `type(ip(…)) == net.IP` is not translated (no type named `net.IP` here).
#[test]
fn k8s_ip() {
    check(&[
        (r#"string(ip("192.168.0.1"))"#, "\"192.168.0.1\""),
        (r#"ip("192.168.0.1.0")"#, "error: 192.168.0.1.0"),
        (r#"isIP("192.168.0.1")"#, "true"),
        (r#"isIP("192.168.0.1.0")"#, "false"),
        (r#"ip.isCanonical("127.0.0.1")"#, "true"),
        (r#"ip.isCanonical("127.0.0.1.0")"#, "error: 127.0.0.1.0"),
        (r#"ip("192.168.0.1").family()"#, "4"),
        (r#"ip("0.0.0.0").isUnspecified()"#, "true"),
        (r#"ip("127.0.0.1").isUnspecified()"#, "false"),
        (r#"ip("127.0.0.1").isLoopback()"#, "true"),
        (r#"ip("1.2.3.4").isLoopback()"#, "false"),
        (r#"ip("224.0.0.1").isLinkLocalMulticast()"#, "true"),
        (r#"ip("224.0.1.1").isLinkLocalMulticast()"#, "false"),
        (r#"ip("169.254.169.254").isLinkLocalUnicast()"#, "true"),
        (r#"ip("192.168.0.1").isLinkLocalUnicast()"#, "false"),
        (r#"ip("192.168.0.1").isGlobalUnicast()"#, "true"),
        (r#"ip("255.255.255.255").isGlobalUnicast()"#, "false"),
        (r#"string(ip("2001:db8::68"))"#, "\"2001:db8::68\""),
        (r#"ip("2001:db8:::68")"#, "error: 2001:db8:::68"),
        (r#"isIP("2001:db8::68")"#, "true"),
        (r#"isIP("2001:db8:::68")"#, "false"),
        (r#"ip.isCanonical("2001:db8::68")"#, "true"),
        (r#"ip.isCanonical("2001:DB8::68")"#, "false"),
        (r#"ip.isCanonical("2001:db8:::68")"#, "error: 2001:db8:::68"),
        (r#"ip("2001:db8::68").family()"#, "6"),
        (r#"ip("::").isUnspecified()"#, "true"),
        (r#"ip("::1").isUnspecified()"#, "false"),
        (r#"ip("::1").isLoopback()"#, "true"),
        (r#"ip("2001:db8::abcd").isLoopback()"#, "false"),
        (r#"ip("ff02::1").isLinkLocalMulticast()"#, "true"),
        (r#"ip("fd00::1").isLinkLocalMulticast()"#, "false"),
        (r#"ip("fe80::1").isLinkLocalUnicast()"#, "true"),
        (r#"ip("fd80::1").isLinkLocalUnicast()"#, "false"),
        (r#"ip("2001:db8::abcd").isGlobalUnicast()"#, "true"),
        (r#"ip("ff00::1").isGlobalUnicast()"#, "false"),
        (r#"isIP(cidr("192.168.0.0/24"))"#, "error: "),
        (r#"string(ip("192.168.0.1"))"#, "\"192.168.0.1\""),
    ]);
}

/// cidr_test.go `TestCIDR`. Object values are compared by their string, errors by the text
/// parsed (as for `k8s_ip`); `type(cidr(…)) == net.CIDR` is not translated.
#[test]
fn k8s_cidr() {
    check(&[
        (r#"string(cidr("192.168.0.0/24"))"#, "\"192.168.0.0/24\""),
        (r#"cidr("192.168.0.0/")"#, "error: 192.168.0.0/"),
        (r#"cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))"#, "true"),
        (r#"cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))"#, "false"),
        (r#"cidr("192.168.0.0/24").containsIP("192.168.0.1")"#, "true"),
        (r#"cidr("192.168.0.0/24").containsIP("192.168.1.1")"#, "false"),
        (r#"cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))"#, "true"),
        (r#"cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))"#, "false"),
        (r#"cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")"#, "true"),
        (r#"cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")"#, "false"),
        (r#"string(cidr("192.168.0.0/24").ip())"#, "\"192.168.0.0\""),
        (r#"string(cidr("192.168.0.0/24").masked())"#, "\"192.168.0.0/24\""),
        (r#"string(cidr("192.168.0.1/24").masked())"#, "\"192.168.0.0/24\""),
        (r#"cidr("192.168.0.0/24").prefixLength()"#, "24"),
        (r#"string(cidr("2001:db8::/32"))"#, "\"2001:db8::/32\""),
        (r#"cidr("2001:db8::/")"#, "error: 2001:db8::/"),
        (r#"cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))"#, "true"),
        (r#"cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))"#, "false"),
        (r#"cidr("2001:db8::/32").containsIP("2001:db8::1")"#, "true"),
        (r#"cidr("2001:db8::/32").containsIP("2001:dc8::1")"#, "false"),
        (r#"cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))"#, "true"),
        (r#"cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))"#, "false"),
        (r#"cidr("2001:db8::/32").containsCIDR("2001:db8::/33")"#, "true"),
        (r#"cidr("2001:db8::/32").containsCIDR("2001:db8::/31")"#, "false"),
        (r#"string(cidr("2001:db8::/32").ip())"#, "\"2001:db8::\""),
        (r#"string(cidr("2001:db8::/32").masked())"#, "\"2001:db8::/32\""),
        (r#"string(cidr("2001:db8:1::/32").masked())"#, "\"2001:db8::/32\""),
        (r#"cidr("2001:db8::/32").prefixLength()"#, "32"),
        (r#"string(cidr("192.168.0.0/24"))"#, "\"192.168.0.0/24\""),
    ]);
}

/// encoders_test.go `TestEncoders`: the base64 cases (the two with a wrong argument type are
/// type errors upstream, evaluation errors here). Not translated: `json.encode`, a later
/// version of the extension than the `cel` crate's.
#[test]
fn cel_go_encoders() {
    check(&[
        ("base64.decode('aGVsbG8=') == b'hello'", "true"),
        ("base64.decode('aGVsbG8') == b'hello'", "true"),
        ("base64.encode(b'hello') == 'aGVsbG8='", "true"),
    ]);
    assert!(value("base64.decode(b'aGVsbG8=') == b'hello'").starts_with("error: "));
    assert!(value("base64.encode('hello') == b'aGVsbG8='").starts_with("error: "));
}

/// math_test.go `TestMath` (every case is true upstream; the cases binding `a`, `b` and
/// `numbers` have the bound values written in; the right shifts of a negative int and the
/// `math.sqrt` cases are those of the file's later version, where cel-go made the shift
/// logical, as the `cel` crate has it) and `TestMathRuntimeErrors` (those without
/// variables; the error is matched by the function or the reason upstream names).
#[test]
fn cel_go_math() {
    check(&[
        ("math.least(-0.5) == -0.5", "true"),
        ("math.least(-1) == -1", "true"),
        ("math.least(1u) == 1u", "true"),
        ("math.least(42.0, -0.5) == -0.5", "true"),
        ("math.least(-1, 0) == -1", "true"),
        ("math.least(-1, -1) == -1", "true"),
        ("math.least(1u, 42u) == 1u", "true"),
        ("math.least(42.0, -0.5, -0.25) == -0.5", "true"),
        ("math.least(-1, 0, 1) == -1", "true"),
        ("math.least(-1, -1, -1) == -1", "true"),
        ("math.least(1u, 42u, 0u) == 0u", "true"),
        ("math.least(1, 1.0) == 1", "true"),
        ("math.least(1, -2.0) == -2.0", "true"),
        ("math.least(2, 1u) == 1u", "true"),
        ("math.least(1.5, 2) == 1.5", "true"),
        ("math.least(1.5, -2) == -2", "true"),
        ("math.least(2.5, 1u) == 1u", "true"),
        ("math.least(1u, 2) == 1u", "true"),
        ("math.least(1u, -2) == -2", "true"),
        ("math.least(2u, 2.5) == 2u", "true"),
        ("math.least(1u, dyn(42)) == 1", "true"),
        ("math.least(1u, dyn(42), dyn(0.0)) == 0u", "true"),
        ("math.least([1u, 42u, 0u]) == 0u", "true"),
        ("math.least(1, 2) == 1", "true"),
        ("math.least([-21.0, -10.5, 1.0]) == dyn(-21)", "true"),
        ("math.greatest(-0.5) == -0.5", "true"),
        ("math.greatest(-1) == -1", "true"),
        ("math.greatest(1u) == 1u", "true"),
        ("math.greatest(42.0, -0.5) == 42.0", "true"),
        ("math.greatest(-1, 0) == 0", "true"),
        ("math.greatest(-1, -1) == -1", "true"),
        ("math.greatest(1u, 42u) == 42u", "true"),
        ("math.greatest(42.0, -0.5, -0.25) == 42.0", "true"),
        ("math.greatest(-1, 0, 1) == 1", "true"),
        ("math.greatest(-1, -1, -1) == -1", "true"),
        ("math.greatest(1u, 42u, 0u) == 42u", "true"),
        ("math.greatest(1, 1.0) == 1", "true"),
        ("math.greatest(1, -2.0) == 1", "true"),
        ("math.greatest(2, 1u) == 2", "true"),
        ("math.greatest(1.5, 2) == 2", "true"),
        ("math.greatest(1.5, -2) == 1.5", "true"),
        ("math.greatest(2.5, 1u) == 2.5", "true"),
        ("math.greatest(1u, 2) == 2", "true"),
        ("math.greatest(1u, -2) == 1u", "true"),
        ("math.greatest(2u, 2.5) == 2.5", "true"),
        ("math.greatest(1u, dyn(42)) == 42.0", "true"),
        ("math.greatest(1u, dyn(0.0), 0u) == 1", "true"),
        ("math.greatest([1u, dyn(0.0), 0u]) == 1", "true"),
        ("math.greatest(1, 2) == 2", "true"),
        ("math.greatest([-21.0, -10.5, 1.0]) == dyn(1)", "true"),
        ("math.bitAnd(1, 2) == 0", "true"),
        ("math.bitAnd(1, -1) == 1", "true"),
        ("math.bitAnd(1, 3) == 1", "true"),
        ("math.bitOr(1, 2) == 3", "true"),
        ("math.bitXor(1, 3) == 2", "true"),
        ("math.bitXor(3, 5) == 6", "true"),
        ("math.bitNot(1) == -2", "true"),
        ("math.bitNot(0) == -1", "true"),
        ("math.bitNot(-1) == 0", "true"),
        ("math.bitShiftLeft(1, 2) == 4", "true"),
        ("math.bitShiftLeft(1, 200) == 0", "true"),
        ("math.bitShiftLeft(-1, 200) == 0", "true"),
        ("math.bitShiftRight(1024, 2) == 256", "true"),
        ("math.bitShiftRight(1024, 64) == 0", "true"),
        ("math.bitShiftRight(-1024, 3) == 2305843009213693824", "true"),
        ("math.bitShiftRight(-1024, 64) == 0", "true"),
        ("math.bitAnd(1u, 2u) == 0u", "true"),
        ("math.bitAnd(1u, 3u) == 1u", "true"),
        ("math.bitOr(1u, 2u) == 3u", "true"),
        ("math.bitXor(1u, 3u) == 2u", "true"),
        ("math.bitXor(3u, 5u) == 6u", "true"),
        ("math.bitNot(1u) == 18446744073709551614u", "true"),
        ("math.bitNot(0u) == 18446744073709551615u", "true"),
        ("math.bitShiftLeft(1u, 2) == 4u", "true"),
        ("math.bitShiftLeft(1u, 200) == 0u", "true"),
        ("math.bitShiftRight(1024u, 2) == 256u", "true"),
        ("math.bitShiftRight(1024u, 64) == 0u", "true"),
        ("math.isNaN(0.0/0.0)", "true"),
        ("!math.isNaN(1.0/0.0)", "true"),
        ("math.isFinite(1.0/1.5)", "true"),
        ("!math.isFinite(1.0/0.0)", "true"),
        ("math.isInf(1.0/0.0)", "true"),
        ("math.ceil(1.2) == 2.0", "true"),
        ("math.ceil(-1.2) == -1.0", "true"),
        ("math.floor(1.2) == 1.0", "true"),
        ("math.floor(-1.2) == -2.0", "true"),
        ("math.round(1.2) == 1.0", "true"),
        ("math.round(1.5) == 2.0", "true"),
        ("math.round(-1.5) == -2.0", "true"),
        ("math.isNaN(math.round(0.0/0.0))", "true"),
        ("math.round(-1.2) == -1.0", "true"),
        ("math.trunc(-1.3) == -1.0", "true"),
        ("math.trunc(1.3) == 1.0", "true"),
        ("math.sign(-42) == -1", "true"),
        ("math.sign(0) == 0", "true"),
        ("math.sign(42) == 1", "true"),
        ("math.sign(0u) == 0u", "true"),
        ("math.sign(42u) == 1u", "true"),
        ("math.sign(-0.3) == -1.0", "true"),
        ("math.sign(0.0) == 0.0", "true"),
        ("math.isNaN(math.sign(0.0/0.0))", "true"),
        ("math.sign(1.0/0.0) == 1.0", "true"),
        ("math.sign(-1.0/0.0) == -1.0", "true"),
        ("math.sign(0.3) == 1.0", "true"),
        ("math.abs(-1) == 1", "true"),
        ("math.abs(1) == 1", "true"),
        ("math.abs(-234.5) == 234.5", "true"),
        ("math.abs(234.5) == 234.5", "true"),
        ("math.sqrt(49.0) == 7.0", "true"),
        ("math.sqrt(0) == 0.0", "true"),
        ("math.sqrt(1) == 1.0", "true"),
        ("math.sqrt(25u) == 5.0", "true"),
        ("math.sqrt(82) == 9.055385138137417", "true"),
        ("math.sqrt(985.25) == 31.388692231439016", "true"),
        ("math.isNaN(math.sqrt(-15.34))", "true"),
    ]);
    check(&[
        ("math.least(dyn('string'))", "error: math.@min"),
        ("math.greatest(dyn('string'))", "error: math.@max"),
        ("math.bitShiftLeft(1, -2) == 4", "error: negative offset"),
        ("math.bitShiftLeft(1u, -2) == 0u", "error: negative offset"),
        ("math.bitShiftRight(-1024, -3) == -128", "error: negative offset"),
        ("math.bitShiftRight(1024u, -4) == 1u", "error: negative offset"),
        ("math.abs(-9223372036854775808)", "error: overflow"),
        ("math.bitOr(dyn(1.2), 1)", "error: math.bitOr"),
        ("math.bitAnd(2u, dyn(''))", "error: math.bitAnd"),
        ("math.bitXor(dyn(1), dyn(1u))", "error: math.bitXor"),
        ("math.bitNot(dyn([1]))", "error: math.bitNot"),
        ("math.isInf(dyn(1u))", "error: math.isInf"),
        ("math.sign(dyn(''))", "error: math.sign"),
        ("math.abs(dyn(''))", "error: math.abs"),
        ("math.ceil(dyn(''))", "error: math.ceil"),
        ("math.round(dyn(1))", "error: math.round"),
        ("math.trunc(dyn(1u))", "error: math.trunc"),
    ]);
}

/// comprehensions_test.go `TestTwoVarComprehensions` (every expression is true) and
/// `TestTwoVarComprehensionsRuntimeErrors`. Not translated: the static errors (a type checker's).
#[test]
fn cel_go_two_variable_comprehensions() {
    let t = |e: &'static str| (e, "true");
    check(&[
        t("[1, 2, 3, 4].all(i, v, i < 5 && v > 0)"),
        t("[1, 2, 3, 4].all(i, v, i < v)"),
        t("[1, 2, 3, 4].all(i, v, i > v) == false"),
        t(
            "cel.bind(listA, [1, 2, 3, 4], cel.bind(listB, [1, 2, 3, 4, 5], listA.all(i, v, listB[?i].hasValue() && listB[i] == v)))",
        ),
        t(
            "cel.bind(listA, [1, 2, 3, 4, 5, 6], cel.bind(listB, [1, 2, 3, 4, 5], listA.all(i, v, listB[?i].hasValue() && listB[i] == v))) == false",
        ),
        t(
            "cel.bind(l, ['hello', 'world', 'hello!', 'worlds'], l.exists(i, v, v.startsWith('hello') && l[?(i+1)].optMap(next, next.endsWith('world')).orValue(false)))",
        ),
        t(
            "cel.bind(l, ['hello', 'world', 'hello!', 'worlds'], l.existsOne(i, v, v.startsWith('hello') && l[?(i+1)].optMap(next, next.endsWith('world')).orValue(false)))",
        ),
        t(
            "cel.bind(l, ['hello', 'goodbye', 'hello!', 'goodbye'], l.exists_one(i, v, v.startsWith('hello') && l[?(i+1)].optMap(next, next == \"goodbye\").orValue(false))) == false",
        ),
        t(
            "['Hello', 'world'].transformList(i, v, \"[%d]%s\".format([i, v.lowerAscii()])) == [\"[0]hello\", \"[1]world\"]",
        ),
        t("['hello', 'world'].transformList(i, v, v.startsWith('greeting'), \"[%d]%s\".format([i, v])) == []"),
        t("[1, 2, 3].transformList(indexVar, valueVar, (indexVar * valueVar) + valueVar) == [1, 4, 9]"),
        t("[1, 2, 3].transformList(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar) == [1, 9]"),
        t("['Hello', 'world'].transformMap(i, v, [v.lowerAscii()]) == {0: ['hello'], 1: ['world']}"),
        t(
            "['world', 'Hello'].transformMap(i, v, [v.lowerAscii()]).transformList(k, v, v).flatten().sort() == ['hello', 'world']",
        ),
        t("[1, 2, 3].transformMap(indexVar, valueVar, (indexVar * valueVar) + valueVar) == {0: 1, 1: 4, 2: 9}"),
        t(
            "[1, 2, 3].transformMap(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar) == {0: 1, 2: 9}",
        ),
        t(
            "\"key1:value1 key2:value2 key3:value3\".split(\" \").transformMapEntry(i, v, cel.bind(entry, v.split(\":\"), entry.size() == 2 ? {entry[0]: entry[1]} : {})) == {'key1': 'value1', 'key2': 'value2', 'key3': 'value3'}",
        ),
        t(
            "\"key1:value1:extra key2:value2 key3\".split(\" \").transformMapEntry(i, v, cel.bind(entry, v.split(\":\"), {?entry[0]: entry[?1]})) == {'key1': 'value1', 'key2': 'value2'}",
        ),
        t("{'hello': 'world', 'hello!': 'world'}.all(k, v, k.startsWith('hello') && v == 'world')"),
        t("{'hello': 'world', 'hello!': 'worlds'}.all(k, v, k.startsWith('hello') && v.endsWith('world')) == false"),
        t("{'hello': 'world', 'hello!': 'worlds'}.exists(k, v, k.startsWith('hello') && v.endsWith('world'))"),
        t("{'hello': 'world', 'hello!': 'worlds'}.existsOne(k, v, k.startsWith('hello') && v.endsWith('world'))"),
        t("{'hello': 'world', 'hello!': 'worlds'}.exists_one(k, v, k.startsWith('hello') && v.endsWith('world'))"),
        t(
            "{'hello': 'world', 'hello!': 'wow, world'}.exists_one(k, v, k.startsWith('hello') && v.endsWith('world')) == false",
        ),
        t("{'Hello': 'world'}.transformList(k, v, \"%s=%s\".format([k.lowerAscii(), v])) == [\"hello=world\"]"),
        t("dyn({'Hello': 'world'}).transformList(k, v, \"%s=%s\".format([k.lowerAscii(), v])) == [\"hello=world\"]"),
        t("{'hello': 'world'}.transformList(k, v, k.startsWith('greeting'), \"%s=%s\".format([k, v])) == []"),
        t("{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(k, _, k).sort() == ['farewell', 'greeting']"),
        t("{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(_, v, v).sort() == ['goodbye', 'hello']"),
        t(
            "{'hello': 'world', 'goodbye': 'cruel world'}.transformMap(k, v, \"%s, %s!\".format([k, v])) == {'hello': 'hello, world!', 'goodbye': 'goodbye, cruel world!'}",
        ),
        t(
            "dyn({'hello': 'world', 'goodbye': 'cruel world'}).transformMap(k, v, \"%s, %s!\".format([k, v])) == {'hello': 'hello, world!', 'goodbye': 'goodbye, cruel world!'}",
        ),
        t(
            "{'hello': 'world', 'goodbye': 'cruel world'}.transformMap(k, v, v.startsWith('world'), \"%s, %s!\".format([k, v])) == {'hello': 'hello, world!'}",
        ),
        t(
            "{'hello': 'world', 'greetings': 'tacocat'}.transformMapEntry(k, v, {k.reverse(): v.reverse()}) == {'olleh': 'dlrow', 'sgniteerg': 'tacocat'}",
        ),
        t(
            "{'hello': 'world', 'greetings': 'tacocat'}.transformMapEntry(k, v, v.reverse() == v, {k.reverse(): v.reverse()}) == {'sgniteerg': 'tacocat'}",
        ),
        t("{'hello': 'world', 'greetings': 'tacocat'}.transformMapEntry(k, v, {}) == {}"),
        ("[1, 1].transformMapEntry(i, v, {v: i})", "error: insert failed: key 1 already exists"),
        ("[0, 0u].transformMapEntry(i, v, {v: i})", "error: insert failed: key 0 already exists"),
    ]);
}
