//! Kubernetes' CEL libraries and the environment's edges. Expected values are those of the
//! examples in Kubernetes' library documentation (k8s.io/apiserver/pkg/cel/library: lists.go,
//! regex.go, urls.go, ip.go, cidr.go, quantity.go) and of cel-go's strings extension, which
//! Kubernetes enables.

mod common;

use common::value;
use driftlint_cel::{CompileError, Outcome, cost, eval_untyped};
use serde_json::json;

fn check(table: &[(&str, &str)]) {
    let bad: Vec<String> = table
        .iter()
        .filter_map(|(e, want)| {
            let got = value(e);
            (got != *want).then(|| format!("{e}: want {want}, got {got}"))
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn lists() {
    check(&[
        ("[1, 2, 3].isSorted()", "true"),
        ("['a', 'b', 'b', 'c'].isSorted()", "true"),
        ("[2.0, 1.0].isSorted()", "false"),
        ("[1, 2, 3].sum()", "6"),
        ("[0.5, 1.5].sum()", "2.0"),
        ("[].sum()", "0"),
        ("[1, 2, 3].min()", "1"),
        ("['b', 'a', 'c'].max()", "\"c\""),
        ("[1, 2, 2, 3].indexOf(2)", "1"),
        ("[1, 2, 2, 3].lastIndexOf(2)", "2"),
        ("['a'].indexOf('z')", "-1"),
    ]);
    assert!(value("[].min()").starts_with("error"), "min of an empty list is an error");
}

#[test]
fn regex() {
    check(&[
        ("'abc 123'.find('[0-9]+')", "\"123\""),
        ("'abc 123'.find('xyz')", "\"\""),
        ("'123 abc 456'.findAll('[0-9]+')", "[\"123\", \"456\"]"),
        ("'123 abc 456'.findAll('[0-9]+', 1)", "[\"123\"]"),
        ("'abc'.matches('^[a-c]+$')", "true"),
    ]);
    assert!(value("'x'.find('(')").starts_with("error"), "a bad pattern is an evaluation error");
}

#[test]
fn urls() {
    check(&[
        ("url('https://example.com:80/').getHost()", "\"example.com:80\""),
        ("url('https://[::1]:80/').getHostname()", "\"::1\""),
        ("url('https://[::1]:80/').getPort()", "\"80\""),
        ("url('https://example.com/').getPort()", "\"\""),
        ("url('https://example.com/path').getEscapedPath()", "\"/path\""),
        ("url('/absolute-path').getScheme()", "\"\""),
        ("url('https://example.com/?k=a&k=b&j=c').getQuery()", "{\"j\": [\"c\"], \"k\": [\"a\", \"b\"]}"),
        ("isURL('https://example.com')", "true"),
        ("isURL('example.com')", "false"),
        ("isURL('https://example.com/%zz')", "false"),
    ]);
}

#[test]
fn ips_and_cidrs() {
    check(&[
        ("isIP('127.0.0.1')", "true"),
        ("isIP('::ffff:1.2.3.4')", "false"),
        ("isIP('fe80::1%eth0')", "false"),
        ("isIP('1.2.3')", "false"),
        ("ip('127.0.0.1').isLoopback()", "true"),
        ("ip('fe80::1').isLinkLocalUnicast()", "true"),
        ("ip('224.0.0.1').isLinkLocalMulticast()", "true"),
        ("ip('8.8.8.8').isGlobalUnicast()", "true"),
        ("ip('0.0.0.0').isUnspecified()", "true"),
        ("ip('::1').family()", "6"),
        ("ip('10.0.0.1') == ip('10.0.0.1')", "true"),
        ("ip.isCanonical('2001:db8::abcd')", "true"),
        ("ip.isCanonical('2001:DB8::ABCD')", "false"),
        ("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))", "true"),
        ("cidr('192.168.0.0/24').containsIP('192.168.1.1')", "false"),
        ("cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')", "true"),
        ("cidr('192.168.0.0/24').containsCIDR('192.168.0.0/16')", "false"),
        ("cidr('192.168.1.5/24').masked() == cidr('192.168.1.0/24')", "true"),
        ("cidr('192.168.0.0/24').prefixLength()", "24"),
        ("cidr('::1/128').ip().family()", "6"),
        ("isCIDR('192.168.0.0/33')", "false"),
        ("isCIDR('10.0.0.0/8')", "true"),
    ]);
}

#[test]
fn quantities() {
    check(&[
        ("quantity('50M').isGreaterThan(quantity('50Mi'))", "false"),
        ("quantity('50Mi').isGreaterThan(quantity('50M'))", "true"),
        ("quantity('1.5G').compareTo(quantity('1500M'))", "0"),
        ("quantity('1Ki') == quantity('1024')", "true"),
        ("quantity('50k').add(20).asInteger()", "50020"),
        ("quantity('50k').sub(quantity('20k')) == quantity('30k')", "true"),
        ("quantity('1.5').isInteger()", "false"),
        ("quantity('-3').sign()", "-1"),
        ("quantity('100m').asApproximateFloat()", "0.1"),
        ("quantity('1e3').asInteger()", "1000"),
        ("isQuantity('1.3Gi')", "true"),
        ("isQuantity('1.3GiB')", "false"),
        ("isQuantity('')", "false"),
    ]);
}

#[test]
fn strings() {
    check(&[
        ("'TacoCat'.lowerAscii()", "\"tacocat\""),
        ("'TacoCat'.upperAscii()", "\"TACOCAT\""),
        ("'hello world'.split(' ')", "[\"hello\", \"world\"]"),
        ("['a', 'b'].join(',')", "\"a,b\""),
        ("'abc'.charAt(1)", "\"b\""),
        ("'hello'.indexOf('l')", "2"),
        ("'hello'.lastIndexOf('l')", "3"),
        ("'hello'.substring(1, 3)", "\"el\""),
        ("' x '.trim()", "\"x\""),
        ("'a.b.c'.replace('.', '-')", "\"a-b-c\""),
        ("'%d items'.format([3])", "\"3 items\""),
    ]);
}

/// The two shapes of the AWS provider's CRDs that are not upjet's `has()` rule.
#[test]
fn durations_as_provider_crds_use_them() {
    let o = eval_untyped("duration(self) >= duration('1s')", &json!("30s")).unwrap();
    assert_eq!(o, Outcome::Ok);
    let o = eval_untyped("duration(self) >= duration('1m')", &json!("30s")).unwrap();
    assert!(matches!(o, Outcome::Violated(_)), "{o:?}");
}

#[test]
fn names_variables_and_transitions() {
    assert!(matches!(eval_untyped("foo == 1", &json!({})), Err(CompileError::Invalid(m)) if m.contains("`foo`")));
    assert!(
        matches!(eval_untyped("strings.nonesuch(self.x)", &json!({})), Err(CompileError::Unsupported(m)) if m.contains("`strings.nonesuch`"))
    );
    assert_eq!(eval_untyped("self.x == oldSelf.x", &json!({})).unwrap_err(), CompileError::Transition);
    assert!(
        matches!(eval_untyped("self.a +", &json!({})), Err(CompileError::Invalid(m)) if m.contains("does not compile"))
    );
    // Comprehension variables are bound inside, not outside.
    assert_eq!(eval_untyped("[1].all(x, x > 0)", &json!({})).unwrap(), Outcome::Ok);
    assert!(matches!(eval_untyped("[1].all(x, x > 0) && x > 0", &json!({})), Err(CompileError::Invalid(_))));
    // A non-boolean rule is an evaluation error, not a violation.
    assert!(matches!(eval_untyped("1", &json!({})).unwrap(), Outcome::Error(m) if m.contains("not a bool")));
}

#[test]
fn the_step_budget_stops_nested_comprehensions_and_is_fresh_for_each_evaluation() {
    let items: Vec<i64> = (0..300).collect();
    let input = json!({"a": items});
    // 300^3 = 27 million iterations unbounded.
    let o = eval_untyped("self.a.all(x, self.a.all(y, self.a.all(z, x + y + z >= 0)))", &input).unwrap();
    assert_eq!(o, Outcome::OverBudget(cost::Limit::Expression));
    assert_eq!(cost::spent(), cost::MAX_STEPS);
    // Quadratic is within the bound (90,000 iterations), and the budget was reset.
    assert_eq!(eval_untyped("self.a.all(x, self.a.all(y, x + y >= 0))", &input).unwrap(), Outcome::Ok);
    assert!(cost::spent() > 90_000 && cost::spent() < cost::MAX_STEPS, "{}", cost::spent());
    // `map` of `map` builds 40,000 items, charged per iteration and again as `exists`' operand.
    let small = json!({"a": (0..200).collect::<Vec<i64>>()});
    let o = eval_untyped("self.a.map(x, self.a.map(y, y)).exists(l, size(l) == 200)", &small).unwrap();
    assert_eq!(o, Outcome::Ok);
    // Operands are charged by size: comparing two 300-item lists 300 times is 180,000 more.
    let before = {
        eval_untyped("self.a.all(x, true)", &input).unwrap();
        cost::spent()
    };
    eval_untyped("self.a.all(x, self.a == self.a)", &input).unwrap();
    assert!(cost::spent() > before + 180_000, "{} vs {before}", cost::spent());
    // A string built by nested `replace` stops at the produced-size bound, whatever its text.
    let o = eval_untyped(
        "self.s.replace('', self.s).replace('', self.s).replace('', self.s).replace('', self.s).size() > 0",
        &json!({"s": "x".repeat(64)}),
    )
    .unwrap();
    assert_eq!(o, Outcome::OverBudget(cost::Limit::Expression));
}

#[test]
fn hostile_texts_are_compile_errors_without_overflowing_a_small_stack() {
    // Run on a thread with a small stack, as a worker of a pool might have.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let deep = format!("{}1{} == 1", "(".repeat(5000), ")".repeat(5000));
            assert!(matches!(eval_untyped(&deep, &json!({})), Err(CompileError::Invalid(m)) if m.contains("nests")));
            let chain = vec!["self.a"; 2000].join(" && ");
            assert!(matches!(eval_untyped(&chain, &json!({})), Err(CompileError::Invalid(_))));
            let long = format!("'{}' == ''", "x".repeat(driftlint_cel::MAX_EXPRESSION_BYTES));
            assert!(
                matches!(eval_untyped(&long, &json!({})), Err(CompileError::Invalid(m)) if m.contains("bytes long"))
            );
            // Within the limits, nesting and chains compile and run.
            let ok =
                format!("{}true{}", "(".repeat(driftlint_cel::MAX_NESTING), ")".repeat(driftlint_cel::MAX_NESTING));
            assert_eq!(eval_untyped(&ok, &json!({})).unwrap(), Outcome::Ok);
            let chain = vec!["true"; driftlint_cel::MAX_NESTING * 8].join(" && ");
            assert_eq!(eval_untyped(&chain, &json!({})).unwrap(), Outcome::Ok);
        })
        .unwrap()
        .join()
        .unwrap();
}

/// Kubernetes' escaping of property names (apiserver `cel.Escape`), as provider CRDs rely on:
/// the AWS provider's EKS PodIdentityAssociation rule reads `self.forProvider.__namespace__`.
#[test]
fn property_names_are_escaped_as_kubernetes_does() {
    use driftlint_cel::value::escape;
    assert_eq!(escape("namespace"), "__namespace__");
    assert_eq!(escape("a.b-c/d"), "a__dot__b__dash__c__slash__d");
    assert_eq!(escape("x__y"), "x__underscores__y");
    assert_eq!(escape("plain"), "plain");
    assert_eq!(escape("9lives"), "9lives");
}

/// cel-go's `lists.range`, `first`, `last` (lists extension) and `strings.quote` (strings
/// extension); cases from cel-go's ext/lists_test.go and ext/strings_test.go.
#[test]
fn lists_range_first_last_and_strings_quote() {
    for (rule, input) in [
        ("lists.range(4) == [0, 1, 2, 3]", json!({})),
        ("lists.range(0) == []", json!({})),
        ("self.l.first() == optional.of(1)", json!({"l": [1, 2, 3]})),
        ("self.l.last() == optional.of(3)", json!({"l": [1, 2, 3]})),
        ("!self.l.first().hasValue() && !self.l.last().hasValue()", json!({"l": []})),
        ("self.l.first().orValue('none') == 'a'", json!({"l": ["a"]})),
        ("strings.quote('verbatim') == '\"verbatim\"'", json!({})),
        ("strings.quote('') == '\"\"'", json!({})),
        (r#"strings.quote("first\nsecond") == "\"first\\nsecond\"""#, json!({})),
        (r#"strings.quote("bell\a") == "\"bell\\a\"""#, json!({})),
        (r#"strings.quote('"q"\\') == "\"\\\"q\\\"\\\\\"""#, json!({})),
        ("strings.quote('ta©o©αT') == '\"ta©o©αT\"'", json!({})),
    ] {
        assert_eq!(eval_untyped(rule, &input).unwrap(), Outcome::Ok, "{rule}");
    }
    assert!(matches!(
        eval_untyped("self.l.first() == optional.of(2)", &json!({"l": [1, 2]})).unwrap(),
        Outcome::Violated(_)
    ));
}

/// cel-go's two-variable comprehensions, cases after cel-go's ext/comprehensions_test.go
/// (`TestTwoVarComprehensions`): over a list the first variable is the index, over a map the key.
#[test]
fn two_variable_comprehensions() {
    for rule in [
        "[1, 2, 3, 4].all(i, v, i < 5 && v > 0)",
        "[1, 2, 3, 4].all(i, v, i < v)",
        "[1, 2, 3, 4].all(i, v, i > v) == false",
        "{'hello': 'world', 'taco': 'taco'}.all(k, v, k != v) == false",
        "{'hello': 'world', 'taco': 'taco'}.exists(k, v, k == v)",
        "[1, 2, 3, 4].exists(i, v, i == 1 && v == 2)",
        "[1, 2, 3, 4].existsOne(i, v, i == 1 || v == 2)",
        "{'hello': 'world', 'taco': 'taco'}.existsOne(k, v, k == v)",
        "[1, 2, 3, 4].exists_one(i, v, i == 1 && v == 2)",
        "[1, 2, 3].transformList(i, v, i > 0, v * 2) == [4, 6]",
        "[1, 2, 3].transformList(i, v, v * 2) == [2, 4, 6]",
        "{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(k, _, k).sort() == ['farewell', 'greeting']",
        "[1, 2, 3].transformMap(i, v, i > 0, v * 2) == {1: 4, 2: 6}",
        "[1, 2, 3].transformMap(i, v, v * 2) == {0: 2, 1: 4, 2: 6}",
        "{'greeting': 'hello'}.transformMap(k, v, v + '!') == {'greeting': 'hello!'}",
        "{'greeting': 'hello'}.transformMapEntry(k, v, {v: k}) == {'hello': 'greeting'}",
        "[1, 2].transformMapEntry(i, v, i > 0, {string(v): i}) == {'2': 1}",
        // Nested, each with its own variables.
        "[[1, 2], [3]].all(i, l, l.all(j, v, v > i))",
        // The single-variable macros are unchanged.
        "[1, 2].all(x, x > 0) && [1, 2].exists(x, x == 2) && [1].exists_one(x, x == 1)",
    ] {
        assert_eq!(eval_untyped(rule, &json!({})).unwrap(), Outcome::Ok, "{rule}");
    }
    assert_eq!(eval_untyped("self.m.all(k, v, v > 0)", &json!({"m": {"a": 1, "b": 2}})).unwrap(), Outcome::Ok);
    assert!(matches!(
        eval_untyped("self.m.all(k, v, v > 1)", &json!({"m": {"a": 1, "b": 2}})).unwrap(),
        Outcome::Violated(_)
    ));
    // A key given twice is an evaluation error, as cel-go's map insertion is.
    let o =
        eval_untyped("{'greeting': 'aloha', 'farewell': 'aloha'}.transformMapEntry(k, v, {v: k}) == {}", &json!({}));
    assert!(matches!(&o, Ok(Outcome::Error(m)) if m.contains("insert failed: key aloha already exists")), "{o:?}");
}
