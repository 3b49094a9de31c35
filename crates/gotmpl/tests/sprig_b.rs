//! Function-level tests for Sprig's math, list, dict, default/type, semver and date functions,
//! asserting the behaviour the kube-compare golden corpus recorded from Go (the arguments are the
//! values the executor hands over after its Go-style parameter checks: literals are `int`, data
//! numbers `int64`).

use std::collections::BTreeMap;

use driftlint_gotmpl::fmt::sprint_value;
use driftlint_gotmpl::{Ctx, FuncError, IntKind, Limits, Type, Value};

fn call(name: &str, args: &[Value]) -> Result<Value, FuncError> {
    let f = driftlint_gotmpl::funcs::lookup(name).unwrap_or_else(|| panic!("{name} is not registered"));
    let limits = Limits::default();
    let mut ctx = Ctx { limits: &limits, crs: &[] };
    (f.imp)(&mut ctx, args)
}

/// `%v` of a successful call.
fn show(name: &str, args: &[Value]) -> String {
    match call(name, args) {
        Ok(v) => sprint_value(&v),
        Err(e) => panic!("{name}: unexpected error {e}"),
    }
}

fn err(name: &str, args: &[Value]) -> String {
    match call(name, args) {
        Ok(v) => panic!("{name}: expected an error, got {}", sprint_value(&v)),
        Err(e) => e.to_string(),
    }
}

fn type_of(name: &str, args: &[Value]) -> String {
    call(name, args).unwrap().type_name()
}

fn i(n: i64) -> Value {
    Value::int(n)
}
fn i64v(n: i64) -> Value {
    Value::int64(n)
}
fn f(x: f64) -> Value {
    Value::Float(x)
}
fn s(x: &str) -> Value {
    Value::str(x)
}
fn list(items: Vec<Value>) -> Value {
    Value::list(items)
}
fn dict(pairs: &[(&str, Value)]) -> Value {
    Value::map(pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<BTreeMap<_, _>>())
}
fn obj(v: &Value, method: &str, args: &[Value]) -> Result<Value, FuncError> {
    let Value::Object(o) = v else { panic!("not an object: {}", sprint_value(v)) };
    o.call_method(method, args).unwrap_or_else(|| panic!("no method {method}"))
}
fn meth(v: &Value, method: &str) -> String {
    sprint_value(&obj(v, method, &[]).unwrap())
}

// ------------------------------------------------------------------------------------------ math

#[test]
fn integer_math_uses_cast_and_returns_int64() {
    assert_eq!(show("add", &[i(1), i(2), i(3)]), "6");
    assert_eq!(show("add", &[]), "0");
    assert_eq!(show("add", &[i(1), i64v(10), f(2.9), s("4")]), "17");
    assert_eq!(show("add", &[f(1.9), f(1.9)]), "2");
    assert_eq!(show("add", &[s("abc"), i(1)]), "1");
    assert_eq!(show("add", &[Value::Nil, i(1)]), "1");
    assert_eq!(show("add", &[Value::Bool(true), i(1)]), "2");
    let forms: Vec<String> =
        ["0x10", "010", " 5", "1_000", "1e3", "3.9"].iter().map(|x| show("add", &[s(x), i(0)])).collect();
    assert_eq!(forms, ["16", "8", "0", "1000", "0", "0"]);
    assert_eq!(type_of("add", &[i(1), i(2)]), "int64");
    assert_eq!(show("add1", &[f(2.7)]), "3");
    assert_eq!(show("sub", &[f(5.9), f(0.9)]), "5");
    assert_eq!(show("mul", &[i(2), s("3")]), "6");
    assert_eq!(show("div", &[i(-7), i(2)]), "-3");
    assert_eq!(show("mod", &[i(-7), i(3)]), "-1");
    assert_eq!(show("mod", &[i(7), i(-3)]), "1");
    assert_eq!(err("div", &[i(1), i(0)]), "runtime error: integer divide by zero");
    assert_eq!(err("mod", &[i(1), i(0)]), "runtime error: integer divide by zero");
    assert_eq!(show("max", &[f(1.9), f(1.5)]), "1");
    assert_eq!(show("min", &[f(2.7), s("3")]), "2");
    assert_eq!(show("add", &[i64v(i64::MAX), i(1)]), "-9223372036854775808");
    assert_eq!(show("mul", &[i64v(i64::MAX), i(2)]), "-2");
}

#[test]
fn float_math_is_decimal() {
    assert_eq!(show("addf", &[f(1.5), f(2.25)]), "3.75");
    assert_eq!(show("addf", &[f(0.1), f(0.2)]), "0.3");
    assert_eq!(show("addf", &[]), "0");
    assert_eq!(show("addf", &[s("1.5"), i(1)]), "2.5");
    assert_eq!(show("add1f", &[s("2.5")]), "3.5");
    assert_eq!(show("subf", &[i(10), i(1), i(2), i(3)]), "4");
    assert_eq!(show("subf", &[i(1), f(0.9)]), "0.1");
    assert_eq!(show("mulf", &[f(0.1), i(3)]), "0.3");
    assert_eq!(show("divf", &[i(1), i(3)]), "0.3333333333333333");
    assert_eq!(show("divf", &[i(10), i(3)]), "3.3333333333333335");
    assert_eq!(show("divf", &[i(100), i(2), i(5)]), "10");
    assert_eq!(show("addf", &[f(1e20), i(1)]), "1e+20");
    assert_eq!(err("divf", &[i(1), i(0)]), "decimal division by 0");
    assert_eq!(type_of("divf", &[i(4), i(2)]), "float64");
    assert_eq!(show("maxf", &[i(1), f(2.5), i(-3)]), "2.5");
    assert_eq!(show("minf", &[f(-0.5), i(0)]), "-0.5");
}

#[test]
fn floor_ceil_round() {
    assert_eq!(show("floor", &[f(-1.2)]), "-2");
    assert_eq!(show("ceil", &[s("2.1")]), "3");
    let r = |x: f64, p: i64| show("round", &[f(x), i(p)]);
    assert_eq!(r(123.555555, 3), "123.556");
    assert_eq!(r(2.5, 0), "3");
    assert_eq!(r(-1.5, 0), "-2");
    assert_eq!(r(123.4, -1), "120");
    assert_eq!(show("round", &[f(123.5), i(0), f(0.6)]), "123");
    assert_eq!(show("round", &[i64v(7), i(2)]), "7");
}

#[test]
fn conversions() {
    assert_eq!(show("int", &[f(3.9)]), "3");
    assert_eq!(show("int", &[s("3.0")]), "3");
    assert_eq!(show("int64", &[s("1e2")]), "0");
    assert_eq!(show("int", &[s("0x1A")]), "26");
    assert_eq!(show("int64", &[s("08")]), "0");
    assert_eq!(type_of("int", &[i(1)]), "int");
    assert_eq!(show("float64", &[s("1e3")]), "1000");
    assert_eq!(show("float64", &[s("-inf")]), "-Inf");
    assert_eq!(show("float64", &[s("x")]), "0");
    let dec: Vec<String> = [s("0777"), s("777"), i(10), s("9"), s("abc")]
        .iter()
        .map(|v| show("toDecimal", std::slice::from_ref(v)))
        .collect();
    assert_eq!(dec, ["511", "511", "8", "0", "0"]);
}

#[test]
fn sequences() {
    assert_eq!(show("until", &[i(5)]), "[0 1 2 3 4]");
    assert_eq!(show("until", &[i(-3)]), "[0 -1 -2]");
    assert_eq!(type_of("until", &[i(1)]), "[]int");
    assert_eq!(show("untilStep", &[i(10), i(0), i(-4)]), "[10 6 2]");
    assert_eq!(show("untilStep", &[i(0), i(5), i(0)]), "[]");
    let seq = |args: &[i64]| show("seq", &args.iter().map(|n| i(*n)).collect::<Vec<_>>());
    assert_eq!(seq(&[5]), "1 2 3 4 5");
    assert_eq!(seq(&[-3]), "1 0 -1 -2 -3");
    assert_eq!(seq(&[5, 2]), "5 4 3 2");
    assert_eq!(seq(&[10, -3, 1]), "10 7 4 1");
    assert_eq!(seq(&[10, 3, 1]), "");
    assert_eq!(seq(&[]), "");
    assert_eq!(seq(&[0]), "1 0");
    assert!(matches!(call("until", &[i(1 << 40)]), Err(FuncError::Limit(_))));
    assert!(matches!(call("untilStep", &[i(0), i(i64::MAX), i(1 << 62)]), Err(FuncError::Limit(_))));
}

// ----------------------------------------------------------------------------------------- lists

#[test]
fn list_building_and_errors() {
    assert_eq!(show("list", &[i(1), s("two"), f(3.0), Value::Bool(true), Value::Nil]), "[1 two 3 true <nil>]");
    assert_eq!(type_of("list", &[]), "[]interface {}");
    assert_eq!(show("append", &[list(vec![i(1), i(2)]), i(3)]), "[1 2 3]");
    assert_eq!(show("append", &[Value::string_list(["a", "b"]), s("c")]), "[a b c]");
    assert_eq!(err("append", &[s("str"), i(1)]), "Cannot push on type string");
    assert_eq!(err("append", &[Value::Nil, i(1)]), "runtime error: invalid memory address or nil pointer dereference");
    assert_eq!(err("mustPrepend", &[dict(&[]), i(1)]), "Cannot prepend on type map");
    assert_eq!(show("prepend", &[list(vec![i(2)]), i(1)]), "[1 2]");
    assert_eq!(err("first", &[s("abc")]), "Cannot find first on type string");
    assert_eq!(err("mustLast", &[i(5)]), "Cannot find last on type int");
    assert!(matches!(call("first", &[list(vec![])]), Ok(Value::Nil)));
    assert_eq!(show("rest", &[list(vec![])]), "[]");
    assert_eq!(show("initial", &[list(vec![s("a"), s("b"), s("c")])]), "[a b]");
    assert_eq!(err("reverse", &[s("abc")]), "Cannot find reverse on type string");
}

#[test]
fn equality_is_reflect_deep_equal() {
    let l = list(vec![i(1), i(2), i(1), s("1"), i(2), s("a"), s("a")]);
    assert_eq!(show("uniq", &[l]), "[1 2 1 a]");
    assert_eq!(show("uniq", &[list(vec![i(1), i64v(1)])]), "[1 1]");
    let data = list(vec![i64v(1), i64v(2)]);
    assert_eq!(show("without", &[data.clone(), i(1)]), "[1 2]");
    assert_eq!(show("without", &[data.clone(), i64v(1)]), "[2]");
    assert_eq!(show("has", &[i(1), data.clone()]), "false");
    assert_eq!(show("has", &[i64v(1), data]), "true");
    assert_eq!(show("has", &[i(1), Value::Nil]), "false");
    assert_eq!(err("has", &[i(1), s("str")]), "Cannot find has on type string");
    assert_eq!(show("has", &[s("b"), Value::string_list(["a", "b"])]), "true");
}

#[test]
fn slice_concat_chunk_compact() {
    let l = list(vec![s("a"), s("b"), s("c"), s("d")]);
    assert_eq!(show("slice", &[l.clone(), i(1), i(3)]), "[b c]");
    assert_eq!(show("slice", &[l.clone(), s("1"), s("2")]), "[b]");
    assert!(matches!(call("slice", &[list(vec![]), i(0), i(1)]), Ok(Value::Nil)));
    assert_eq!(err("slice", &[l.clone(), i(1), i(10)]), "reflect.Value.Slice: slice index out of bounds");
    assert_eq!(err("mustSlice", &[s("abc"), i(1)]), "list should be type of slice or array but string");
    assert_eq!(type_of("slice", &[Value::string_list(["a", "b"]), i(1)]), "[]string");
    assert_eq!(show("concat", &[list(vec![i(1)]), list(vec![])]), "[1]");
    let empty = call("concat", &[list(vec![])]).unwrap();
    assert!(matches!(&empty, Value::List(l) if l.nil));
    assert_eq!(err("concat", &[list(vec![i(1)]), s("x")]), "Cannot concat type string as list");
    assert_eq!(show("chunk", &[i(2), list((1..=5).map(i).collect())]), "[[1 2] [3 4] [5]]");
    assert_eq!(show("chunk", &[i(2), list(vec![])]), "[]");
    assert_eq!(type_of("chunk", &[i(1), list(vec![i(1)])]), "[][]interface {}");
    assert_eq!(err("chunk", &[i(0), list(vec![i(1), i(2)])]), "runtime error: makeslice: len out of range");
    assert_eq!(err("mustChunk", &[i(2), s("abcd")]), "Cannot chunk type string");
    let c = list(vec![
        i(1),
        i(0),
        s(""),
        s("a"),
        Value::Nil,
        Value::Bool(false),
        Value::Bool(true),
        list(vec![]),
        dict(&[]),
    ]);
    assert_eq!(show("compact", &[c]), "[1 a true]");
}

// ----------------------------------------------------------------------------------------- dicts

#[test]
fn dict_get_set() {
    assert_eq!(show("dict", &[s("b"), i(2), s("a"), s("x")]), "map[a:x b:2]");
    assert_eq!(show("dict", &[s("a"), i(1), s("b")]), "map[a:1 b:]");
    assert_eq!(
        show("dict", &[i(1), s("one"), Value::Bool(true), s("t"), f(2.5), s("f"), Value::Nil, s("n")]),
        "map[1:one 2.5:f <nil>:n true:t]"
    );
    let m = dict(&[("a", i64v(1)), ("n", Value::Nil)]);
    assert_eq!(show("get", &[m.clone(), s("a")]), "1");
    assert_eq!(show("get", &[m.clone(), s("zz")]), "");
    assert!(matches!(call("get", &[m.clone(), s("n")]), Ok(Value::Nil)));
    assert_eq!(show("get", &[Value::nil_map(), s("a")]), "");
    let r = call("set", &[m.clone(), s("b"), i(2)]).unwrap();
    assert_eq!(sprint_value(&m), "map[a:1 b:2 n:<nil>]");
    assert_eq!(sprint_value(&r), "map[a:1 b:2 n:<nil>]");
    assert_eq!(err("set", &[Value::nil_map(), s("a"), i(1)]), "assignment to entry in nil map");
    call("unset", &[m.clone(), s("a")]).unwrap();
    assert_eq!(sprint_value(&m), "map[b:2 n:<nil>]");
    assert_eq!(show("hasKey", &[m.clone(), s("n")]), "true");
    assert_eq!(show("hasKey", &[Value::nil_map(), s("a")]), "false");
}

#[test]
fn dict_queries() {
    let a = dict(&[("name", s("a"))]);
    let b = dict(&[("x", i(1))]);
    assert_eq!(show("pluck", &[s("name"), a.clone(), b.clone()]), "[a]");
    assert_eq!(show("keys", &[dict(&[("b", i(1))]), dict(&[("a", i(2)), ("b", i(3))])]), "[b a b]");
    assert_eq!(type_of("keys", &[]), "[]string");
    let m = dict(&[("a", i64v(1)), ("b", i64v(2)), ("c", i64v(3))]);
    assert_eq!(show("pick", &[m.clone(), s("a"), s("c"), s("zz")]), "map[a:1 c:3]");
    assert_eq!(show("omit", &[m.clone(), s("a"), s("zz")]), "map[b:2 c:3]");
    assert_eq!(sprint_value(&m), "map[a:1 b:2 c:3]");
    assert_eq!(show("values", &[dict(&[("a", i(1))])]), "[1]");
}

#[test]
fn merge_follows_mergo() {
    let merged = show(
        "merge",
        &[
            dict(&[("a", i(1)), ("b", dict(&[("x", i(1))]))]),
            dict(&[("b", dict(&[("y", i(2))])), ("c", i(3))]),
            dict(&[("a", i(9))]),
        ],
    );
    assert_eq!(merged, "map[a:1 b:map[x:1 y:2] c:3]");
    let dst = dict(&[("a", i(1))]);
    call("merge", &[dst.clone(), dict(&[("b", i(2))])]).unwrap();
    assert_eq!(sprint_value(&dst), "map[a:1 b:2]");
    assert_eq!(
        show(
            "merge",
            &[
                dict(&[("a", s("")), ("b", i(0)), ("c", Value::Nil)]),
                dict(&[("a", s("src")), ("b", i(5)), ("c", s("x"))])
            ]
        ),
        "map[a:src b:5 c:x]"
    );
    assert_eq!(
        show(
            "mergeOverwrite",
            &[
                dict(&[("a", i(1)), ("b", dict(&[("x", i(1)), ("y", i(1))]))]),
                dict(&[("a", i(2)), ("b", dict(&[("y", i(2))]))])
            ]
        ),
        "map[a:2 b:map[x:1 y:2]]"
    );
    assert_eq!(
        show("mergeOverwrite", &[dict(&[("a", s("keep")), ("b", i(1))]), dict(&[("a", s("")), ("b", i(0))])]),
        "map[a: b:0]"
    );
    assert_eq!(
        show("merge", &[dict(&[("l", list(vec![i(1)]))]), dict(&[("l", list(vec![i(2), i(3)]))])]),
        "map[l:[1]]"
    );
    assert_eq!(
        show("mergeOverwrite", &[dict(&[("l", list(vec![i(1)]))]), dict(&[("l", list(vec![i(2), i(3)]))])]),
        "map[l:[2 3]]"
    );
    assert_eq!(show("merge", &[dict(&[("a", i(1))]), Value::nil_map()]), "map[a:1]");
    assert_eq!(show("merge", &[Value::nil_map(), dict(&[("a", i(1))])]), "map[a:1]");
}

#[test]
fn dig_and_deep_copy() {
    let m = dict(&[("a", dict(&[("b", dict(&[("c", s("found"))]))]))]);
    assert_eq!(show("dig", &[s("a"), s("b"), s("c"), s("default"), m.clone()]), "found");
    assert_eq!(show("dig", &[s("a"), s("zz"), s("default"), m.clone()]), "default");
    assert_eq!(show("dig", &[s("a"), s("d"), m.clone()]), "map[b:map[c:found]]");
    assert_eq!(err("dig", &[s("a"), m.clone()]), "dig needs at least three arguments");
    let str_m = dict(&[("a", s("str"))]);
    assert_eq!(
        err("dig", &[s("a"), s("b"), s("d"), str_m]),
        "interface conversion: interface {} is string, not map[string]interface {}"
    );
    assert_eq!(err("dig", &[i(1), s("d"), m.clone()]), "interface conversion: interface {} is int, not string");
    let orig = dict(&[("a", list(vec![i64v(1), i64v(2)]))]);
    let copy = call("deepCopy", std::slice::from_ref(&orig)).unwrap();
    call("set", &[copy.clone(), s("new"), i(1)]).unwrap();
    assert_eq!(sprint_value(&orig), "map[a:[1 2]]");
    assert_eq!(sprint_value(&copy), "map[a:[1 2] new:1]");
    assert_eq!(err("deepCopy", &[Value::Nil]), "reflect: call of reflect.Value.Type on zero Value");
}

// -------------------------------------------------------------------------------------- defaults

#[test]
fn defaults_and_emptiness() {
    assert_eq!(show("default", &[s("D"), s("")]), "D");
    assert_eq!(show("default", &[s("D"), f(0.0)]), "D");
    assert_eq!(show("default", &[s("D"), Value::Nil]), "D");
    assert_eq!(show("default", &[s("D")]), "D");
    assert_eq!(show("default", &[s("D"), s(""), s("second")]), "D");
    assert_eq!(show("default", &[s("D"), list(vec![i(0)])]), "[0]");
    assert_eq!(type_of("default", &[i(5), i64v(7)]), "int64");
    assert_eq!(show("empty", &[dict(&[])]), "true");
    assert_eq!(show("empty", &[Value::nil_map()]), "true");
    assert_eq!(show("coalesce", &[Value::Nil, s("bee"), s("third")]), "bee");
    assert!(matches!(call("coalesce", &[i(0), s("")]), Ok(Value::Nil)));
    assert_eq!(show("all", &[]), "true");
    assert_eq!(show("any", &[]), "false");
    assert_eq!(show("all", &[Value::Nil]), "false");
    assert_eq!(show("ternary", &[s("yes"), s("no"), Value::Bool(false)]), "no");
    assert_eq!(err("fail", &[s("custom failure message")]), "custom failure message");
}

#[test]
fn reflection_names() {
    assert_eq!(show("typeOf", &[i64v(1)]), "int64");
    assert_eq!(show("typeOf", &[Value::Nil]), "<nil>");
    assert_eq!(show("typeOf", &[Value::typed_map(Type::String, BTreeMap::new())]), "map[string]string");
    assert_eq!(show("typeIs", &[s("int"), i64v(1)]), "false");
    let v = call("semver", &[s("1.0.0")]).unwrap();
    assert_eq!(show("typeOf", std::slice::from_ref(&v)), "*semver.Version");
    assert_eq!(show("typeIsLike", &[s("semver.Version"), v.clone()]), "true");
    assert_eq!(show("kindOf", &[v]), "ptr");
    let t = call("toDate", &[s("2006"), s("2020")]).unwrap();
    assert_eq!(show("kindOf", std::slice::from_ref(&t)), "struct");
    assert_eq!(show("typeOf", &[t]), "time.Time");
    assert_eq!(show("kindOf", &[Value::Nil]), "invalid");
    assert_eq!(show("kindIs", &[s("invalid"), Value::Nil]), "true");
    assert_eq!(show("deepEqual", &[i(1), i64v(1)]), "false");
    assert_eq!(show("deepEqual", &[list(vec![]), list(vec![])]), "true");
}

// ---------------------------------------------------------------------------------------- semver

#[test]
fn semver_objects() {
    let v = call("semver", &[s("1.2.3-beta.1+build.5")]).unwrap();
    let fields: Vec<String> = ["Major", "Minor", "Patch", "Prerelease", "Metadata", "Original", "String"]
        .iter()
        .map(|m| meth(&v, m))
        .collect();
    assert_eq!(fields, ["1", "2", "3", "beta.1", "build.5", "1.2.3-beta.1+build.5", "1.2.3-beta.1+build.5"]);
    assert_eq!(obj(&v, "Major", &[]).unwrap().type_name(), "uint64");
    let c = call("semver", &[s("v4.14")]).unwrap();
    assert_eq!((meth(&c, "String"), meth(&c, "Original")), ("4.14.0".into(), "v4.14".into()));
    for bad in ["not-a-version", "", "1.2.3.4"] {
        assert_eq!(err("semver", &[s(bad)]), "Invalid Semantic Version");
    }
    let a = call("semver", &[s("1.2.3")]).unwrap();
    let b = call("semver", &[s("1.10.0")]).unwrap();
    assert_eq!(sprint_value(&obj(&a, "LessThan", std::slice::from_ref(&b)).unwrap()), "true");
    assert_eq!(sprint_value(&obj(&a, "Compare", std::slice::from_ref(&b)).unwrap()), "-1");
    assert!(obj(&a, "LessThan", &[s("1.3.0")]).is_err());
    assert_eq!(meth(&a, "IncMinor"), "1.3.0");
    let rc = call("semver", &[s("1.2.3-rc1")]).unwrap();
    assert_eq!(meth(&rc, "IncPatch"), "1.2.3");
    assert_eq!(sprint_value(&a), "1.2.3");
}

#[test]
fn semver_compare() {
    let cmp = |c: &str, v: &str| show("semverCompare", &[s(c), s(v)]);
    assert_eq!(cmp(">=1.2.0", "1.3.0"), "true");
    assert_eq!(cmp("~4.14", "4.14.9"), "true");
    assert_eq!(cmp("^1.2", "2.0.0"), "false");
    assert_eq!(cmp(">= 1.2, < 1.5", "1.4.9"), "true");
    assert_eq!(cmp("1.1 - 1.3", "1.2.0"), "true");
    assert_eq!(cmp("<1 || >=3", "2.0.0"), "false");
    assert_eq!(cmp(">=4.14", "4.15.0-rc.1"), "false");
    assert_eq!(cmp(">=4.14-0", "4.15.0-rc.1"), "true");
    assert_eq!(err("semverCompare", &[s("!!1"), s("1.0.0")]), "improper constraint: !!1");
    assert_eq!(err("semverCompare", &[s(">1"), s("x.y")]), "Invalid Semantic Version");
}

// ------------------------------------------------------------------------------------------ date

#[test]
fn date_formatting() {
    assert_eq!(show("date", &[s("2006-01-02T15:04:05Z07:00"), i(1_700_000_000)]), "2023-11-14T22:13:20Z");
    assert_eq!(show("date", &[s("2006-01-02 15:04"), i64v(86_400)]), "1970-01-02 00:00");
    assert_eq!(show("date", &[s("02/01/06 3PM"), i(1_000_000_000)]), "09/09/01 1AM");
    assert_eq!(
        show("dateInZone", &[s("2006-01-02 15:04 MST"), i(1_700_000_000), s("America/New_York")]),
        "2023-11-14 17:13 EST"
    );
    assert_eq!(show("date_in_zone", &[s("15:04"), i(0), s("Asia/Kolkata")]), "05:30");
    assert_eq!(show("dateInZone", &[s("2006-01-02 15:04 MST"), i(0), s("Not/AZone")]), "1970-01-01 00:00 UTC");
    assert_eq!(show("htmlDateInZone", &[i(1_700_000_000), s("Asia/Tokyo")]), "2023-11-15");
    assert_eq!(show("date", &[s("2006"), f(1.5)]).len(), 4);
}

#[test]
fn date_parsing_and_arithmetic() {
    assert_eq!(show("toDate", &[s("2006-01-02"), s("2024-03-05")]), "2024-03-05 00:00:00 +0000 UTC");
    assert_eq!(show("toDate", &[s("2006-01-02"), s("garbage")]), "0001-01-01 00:00:00 +0000 UTC");
    assert_eq!(
        err("mustToDate", &[s("2006-01-02"), s("2024/03/05")]),
        r#"parsing time "2024/03/05" as "2006-01-02": cannot parse "/03/05" as "-""#
    );
    let t = call("toDate", &[s("2006-01-02"), s("2024-03-05")]).unwrap();
    let later = call("dateModify", &[s("+36h"), t.clone()]).unwrap();
    assert_eq!(show("date", &[s("2006-01-02 15:04"), later]), "2024-03-06 12:00");
    let same = call("dateModify", &[s("tomorrow"), t.clone()]).unwrap();
    assert_eq!(show("unixEpoch", &[same]), "1709596800");
    assert_eq!(err("mustDateModify", &[s("bogus"), t.clone()]), r#"time: invalid duration "bogus""#);
    let t = call("toDate", &[s("2006-01-02 15:04:05"), s("2024-03-05 07:08:09")]).unwrap();
    let got: Vec<String> =
        ["Year", "Month", "Day", "Hour", "Weekday", "YearDay", "Unix"].iter().map(|m| meth(&t, m)).collect();
    assert_eq!(got, ["2024", "March", "5", "7", "Tuesday", "65", "1709622489"]);
    assert_eq!(sprint_value(&obj(&t, "Format", &[s("Jan _2")]).unwrap()), "Mar  5");
    assert!(obj(&t, "Format", &[i(5)]).is_err());
    let off = call("toDate", &[s("2006-01-02T15:04:05Z07:00"), s("2024-03-05T10:00:00+02:00")]).unwrap();
    assert_eq!(show("date", &[s("2006-01-02 15:04 MST"), off]), "2024-03-05 08:00 UTC");
    let json = obj(&call("toDate", &[s("2006-01-02"), s("2024-03-05")]).unwrap(), "MarshalJSON", &[]).unwrap();
    let Value::List(bytes) = json else { panic!() };
    let text: String = bytes
        .items
        .iter()
        .map(|b| match b {
            Value::Int(n, IntKind::Uint8) => char::from(*n as u8),
            _ => '?',
        })
        .collect();
    assert_eq!(text, "\"2024-03-05T00:00:00Z\"");
}

#[test]
fn durations() {
    assert_eq!(show("duration", &[s("95")]), "1m35s");
    assert_eq!(show("duration", &[i64v(86_461)]), "24h1m1s");
    assert_eq!(show("duration", &[s("x")]), "0s");
    assert_eq!(show("duration", &[i(95)]), "0s");
    let dr: Vec<String> = ["2h10m5s", "90s", "400000h", "-3d", "1s", "24h", "25h", "720h", "721h", "61s"]
        .iter()
        .map(|d| show("durationRound", &[s(d)]))
        .collect();
    assert_eq!(dr, ["2h", "1m", "45y", "0s", "0s", "24h", "1d", "30d", "1mo", "1m"]);
    assert_eq!(show("durationRound", &[i64v(3_600_000_000_001)]), "1h");
    assert_eq!(show("durationRound", &[i(5)]), "0s");
}

/// Unix seconds of the system clock.
fn clock() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    i64::try_from(since.as_secs()).unwrap()
}

#[test]
fn month_and_weekday_convert_like_integers() {
    // spf13/cast reads a `time.Month` or `time.Weekday` as its number (Sprig's `int`, `add`,
    // `float64`); any other object converts to 0.
    let t = call("toDate", &[s("2006-01-02"), s("2024-03-05")]).unwrap();
    let month = obj(&t, "Month", &[]).unwrap();
    let weekday = obj(&t, "Weekday", &[]).unwrap();
    assert_eq!(show("int", std::slice::from_ref(&month)), "3");
    assert_eq!(show("add", &[weekday, i(1)]), "3");
    assert_eq!(show("float64", &[month]), "3");
    assert_eq!(show("int", &[t]), "0");
}

#[test]
fn now_is_the_current_time() {
    let before = clock();
    let now = call("now", &[]).unwrap();
    let after = clock();
    assert_eq!(now.type_name(), "time.Time");
    let secs: i64 = show("unixEpoch", std::slice::from_ref(&now)).parse().unwrap();
    assert!((before..=after).contains(&secs), "now is {secs}, the clock read {before}..={after}");
    // Formatting reads the same instant.
    let year: i64 = show("date", &[s("2006"), now]).parse().unwrap();
    assert!((2024..10_000).contains(&year), "{year}");
}

#[test]
fn ago_is_the_time_since_rounded_to_seconds() {
    // Now, and anything that is not a date (which sprig takes as now), are `0s` ago.
    assert_eq!(show("ago", &[call("now", &[]).unwrap()]), "0s");
    assert_eq!(show("ago", &[s("x")]), "0s");
    // Unix seconds as int or int64; the clock may tick once between reading it and `ago`.
    for v in [i(clock() - 3600), i64v(clock() - 3600)] {
        let got = show("ago", &[v]);
        assert!(got == "1h0m0s" || got == "1h0m1s", "{got}");
    }
    let got = show("ago", &[i64v(clock() + 90)]);
    assert!(got == "-1m30s" || got == "-1m29s", "{got}");
    // The epoch: hours since 1970, then exact minutes and seconds.
    let (start, got) = (clock(), show("ago", &[i(0)]));
    let hours: i64 = got.split('h').next().unwrap().parse().unwrap_or_else(|e| panic!("{got}: {e}"));
    assert!((start / 3600..=start / 3600 + 1).contains(&hours), "{got}");
}

#[test]
fn zone_names_are_exact() {
    let fmt = |zone: &str| show("dateInZone", &[s("15:04 MST"), i(0), s(zone)]);
    assert_eq!(fmt("US/Eastern"), "19:00 EST");
    assert_eq!(fmt("Etc/GMT+5"), "19:00 -05");
    assert_eq!(fmt("america/new_york"), "00:00 UTC");
    assert_eq!(fmt("Europe/Paris"), "01:00 CET");
    assert_eq!(fmt("Local"), "00:00 UTC");
    assert_eq!(fmt(""), "00:00 UTC");
    assert_eq!(fmt("../etc/passwd"), "00:00 UTC");
}

/// Every sprig-b function, with arguments of its declared parameter types drawn from a pool of
/// awkward values, returns (a value or an error) without panicking.
#[test]
fn no_panics_on_awkward_arguments() {
    use driftlint_gotmpl::Param;
    let names = [
        "add",
        "add1",
        "sub",
        "mul",
        "div",
        "mod",
        "max",
        "biggest",
        "min",
        "addf",
        "add1f",
        "subf",
        "mulf",
        "divf",
        "maxf",
        "minf",
        "floor",
        "ceil",
        "round",
        "int",
        "int64",
        "float64",
        "toDecimal",
        "seq",
        "until",
        "untilStep",
        "list",
        "tuple",
        "append",
        "push",
        "mustAppend",
        "mustPush",
        "prepend",
        "mustPrepend",
        "first",
        "mustFirst",
        "last",
        "mustLast",
        "rest",
        "mustRest",
        "initial",
        "mustInitial",
        "reverse",
        "mustReverse",
        "uniq",
        "mustUniq",
        "without",
        "mustWithout",
        "has",
        "mustHas",
        "slice",
        "mustSlice",
        "concat",
        "chunk",
        "mustChunk",
        "compact",
        "mustCompact",
        "dict",
        "get",
        "set",
        "unset",
        "hasKey",
        "pluck",
        "keys",
        "values",
        "pick",
        "omit",
        "merge",
        "mustMerge",
        "mergeOverwrite",
        "mustMergeOverwrite",
        "dig",
        "deepCopy",
        "mustDeepCopy",
        "default",
        "empty",
        "coalesce",
        "all",
        "any",
        "ternary",
        "fail",
        "typeOf",
        "typeIs",
        "typeIsLike",
        "kindOf",
        "kindIs",
        "deepEqual",
        "semver",
        "semverCompare",
        "date",
        "dateInZone",
        "date_in_zone",
        "htmlDate",
        "htmlDateInZone",
        "toDate",
        "mustToDate",
        "dateModify",
        "date_modify",
        "mustDateModify",
        "must_date_modify",
        "unixEpoch",
        "duration",
        "durationRound",
        "ago",
    ];
    let self_ref = dict(&[("a", i(1))]);
    call("set", &[self_ref.clone(), s("self"), self_ref.clone()]).unwrap();
    let anys = vec![
        Value::Nil,
        i(i64::MIN),
        i(-1),
        i(0),
        i64v(i64::MAX),
        Value::Int(u64::MAX as i64, IntKind::Uint64),
        f(f64::NAN),
        f(f64::INFINITY),
        f(-1e308),
        f(5e-324),
        s(""),
        s("-9223372036854775808"),
        s("1e400"),
        s("_"),
        s("0x"),
        s("é"),
        s("99999999999999999999.1.1"),
        s(">= 1 || x"),
        s("-2562047h47m16.854775808s"),
        Value::Bool(true),
        list(vec![]),
        list(vec![i(1), Value::Nil, list(vec![])]),
        Value::nil_list(Type::Interface),
        Value::string_list(["a", "b"]),
        dict(&[]),
        Value::nil_map(),
        call("semver", &[s("1.2.3-rc.1")]).unwrap(),
        call("toDate", &[s("2006"), s("9999")]).unwrap(),
        call("toDate", &[s("2006"), s("0000")]).unwrap(),
    ];
    // A map that contains itself (Go would overflow its stack printing it; fmt is not ours to
    // guard, so only the recursive functions of this module see it).
    for (name, args) in [
        ("merge", vec![self_ref.clone(), self_ref.clone()]),
        ("mergeOverwrite", vec![dict(&[("self", dict(&[]))]), self_ref.clone()]),
        ("deepCopy", vec![self_ref.clone()]),
        ("dig", vec![s("self"), s("self"), s("a"), i(0), self_ref.clone()]),
        ("has", vec![self_ref.clone(), list(vec![self_ref.clone()])]),
        ("keys", vec![self_ref.clone()]),
    ] {
        let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call(name, &args)));
        assert!(res.is_ok(), "{name} panicked on a self-referencing map");
    }
    let strings: Vec<Value> = anys.iter().filter(|v| matches!(v, Value::String(_))).cloned().collect::<Vec<_>>();
    let strings =
        [strings, vec![s("2006-01-02T15:04:05.999999999Z07:00"), s("__2 002 Z070000 .000 ,999"), s("Etc/GMT-14")]]
            .concat();
    let ints: Vec<Value> = [i64::MIN, -3, 0, 1, 3, i64::MAX].into_iter().map(i).collect();
    let maps: Vec<Value> = anys.iter().filter(|v| matches!(v, Value::Map(_))).cloned().collect();
    let times: Vec<Value> = anys.iter().filter(|v| v.type_name() == "time.Time").cloned().collect();
    let pool = |p: &Param| -> Vec<Value> {
        match p {
            Param::Any => anys.clone(),
            Param::String => strings.clone(),
            Param::Int(_) => ints.clone(),
            Param::Float64 => vec![f(f64::NAN), f(0.5), f(-1e300)],
            Param::Bool => vec![Value::Bool(false)],
            Param::Map => maps.clone(),
            Param::Named(_) => times.clone(),
            Param::List => vec![list(vec![])],
        }
    };
    for name in names {
        let func = driftlint_gotmpl::funcs::lookup(name).unwrap();
        let mut shapes: Vec<Vec<Param>> = vec![func.params.to_vec()];
        if let Some(v) = func.variadic {
            shapes.push([func.params, &[v]].concat());
            shapes.push([func.params, &[v, v]].concat());
        }
        for shape in shapes {
            // All combinations would be large: vary one position at a time over its pool,
            // the others taken pairwise from the same index.
            let pools: Vec<Vec<Value>> = shape.iter().map(&pool).collect();
            let longest = pools.iter().map(Vec::len).max().unwrap_or(0);
            for pos in 0..shape.len().max(1) {
                for k in 0..longest {
                    for j in 0..longest {
                        let args: Vec<Value> = pools
                            .iter()
                            .enumerate()
                            .map(|(n, p)| p[if n == pos { k } else { j } % p.len()].clone())
                            .collect();
                        let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call(name, &args)));
                        assert!(
                            res.is_ok(),
                            "{name} panicked on {:?}",
                            args.iter().map(sprint_value).collect::<Vec<_>>()
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn merge_into_a_nested_typed_map_panics_like_go() {
    let typed = Value::typed_map(Type::String, [("a".to_string(), s("x"))].into_iter().collect());
    let dst = dict(&[("m", typed)]);
    let src = dict(&[("m", dict(&[("b", i(1))]))]);
    assert_eq!(
        err("merge", &[dst, src]),
        "reflect.Value.SetMapIndex: value of type interface {} is not assignable to type string"
    );
}

#[test]
fn go_syntax_of_objects() {
    let t = call("toDate", &[s("2006-01-02"), s("2024-03-05")]).unwrap();
    let Value::Object(o) = &t else { panic!() };
    assert_eq!(o.go_syntax(), "time.Date(2024, time.March, 5, 0, 0, 0, 0, time.Local)");
    let v = call("semver", &[s("1.2.3")]).unwrap();
    let Value::Object(o) = &v else { panic!() };
    assert_eq!(
        o.go_syntax(),
        r#"&semver.Version{major:0x1, minor:0x2, patch:0x3, pre:"", metadata:"", original:"1.2.3"}"#
    );
}
