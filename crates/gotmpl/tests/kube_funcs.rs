//! kube-compare's functions and Sprig's JSON helpers, called directly (no template), with the
//! expectations of the golden corpus (`kube-compare-funcs` area).

use std::collections::BTreeMap;

use driftlint_gotmpl::fmt::sprint_value;
use driftlint_gotmpl::funcs::lookup;
use driftlint_gotmpl::{Ctx, FuncError, Limits, Value};

fn call_with(crs: &[Value], name: &str, args: &[Value]) -> Result<Value, FuncError> {
    let limits = Limits::default();
    let mut ctx = Ctx { limits: &limits, crs };
    (lookup(name).unwrap_or_else(|| panic!("{name} not registered")).imp)(&mut ctx, args)
}

fn call(name: &str, args: &[Value]) -> Result<Value, FuncError> {
    call_with(&[], name, args)
}

/// The function's result as `{{ }}` would print it (inside a container for nil checks).
fn out(name: &str, args: &[Value]) -> String {
    match call(name, args) {
        Ok(v) => sprint_value(&v),
        Err(e) => format!("ERROR {e}"),
    }
}

fn s(x: &str) -> Value {
    Value::str(x)
}

fn json(text: &str) -> Value {
    Value::from_json(&serde_json::from_str(text).expect("test JSON"))
}

fn field(v: &Value, key: &str) -> Value {
    match v {
        Value::Map(m) => m.entries.borrow().get(key).cloned().unwrap_or(Value::Invalid),
        _ => Value::Invalid,
    }
}

// ---------- toJson family ----------

#[test]
fn to_json_sorts_keys_and_keeps_types() {
    let m = json(r#"{"b":1,"a":["x",2.5,true,null],"c":{}}"#);
    assert_eq!(out("toJson", &[m]), r#"{"a":["x",2.5,true,null],"b":1,"c":{}}"#);
    let v = json(r#"{"port":8080,"big":9223372036854775807,"ratio":0.5}"#);
    assert_eq!(out("toJson", &[v]), r#"{"big":9223372036854775807,"port":8080,"ratio":0.5}"#);
}

#[test]
fn to_json_scalars_and_nil() {
    assert_eq!(out("toJson", &[s("s")]), r#""s""#);
    assert_eq!(out("toJson", &[Value::int(1)]), "1");
    assert_eq!(out("toJson", &[Value::Float(1.5)]), "1.5");
    assert_eq!(out("toJson", &[Value::Nil]), "null");
    assert_eq!(out("toJson", &[Value::Invalid]), "null");
    assert_eq!(out("toJson", &[s("")]), r#""""#);
    assert_eq!(out("toJson", &[Value::Float(3.0)]), "3");
    assert_eq!(out("toJson", &[Value::Float(1e21)]), "1e+21");
    assert_eq!(out("toJson", &[Value::Float(0.000001)]), "0.000001");
    assert_eq!(out("toJson", &[Value::Float(1.0 / 3.0)]), "0.3333333333333333");
    // Swallowed error.
    assert_eq!(out("toJson", &[Value::Float(f64::NAN)]), "");
}

#[test]
fn to_json_escapes_html_and_separators() {
    assert_eq!(out("toJson", &[s("<a href=\"x\">&</a>")]), r#""\u003ca href=\"x\"\u003e\u0026\u003c/a\u003e""#);
    assert_eq!(out("toJson", &[s("héllo\n\t\u{2028}✓\u{1}")]), r#""héllo\n\t\u2028✓\u0001""#);
    assert_eq!(out("toRawJson", &[json(r#"{"h":"<a>&</a>"}"#)]), r#"{"h":"<a>&</a>"}"#);
    assert_eq!(out("mustToRawJson", &[json(r#"{"a":"<b>"}"#)]), r#"{"a":"<b>"}"#);
    assert_eq!(out("mustToJson", &[Value::list(vec![Value::int(1), s("<")])]), r#"[1,"\u003c"]"#);
}

#[test]
fn to_json_nil_collections_are_null() {
    assert_eq!(out("toJson", &[Value::list(vec![])]), "[]");
    assert_eq!(out("toJson", &[Value::nil_map()]), "null");
    assert_eq!(out("toJson", &[call("lookupCRs", &[s("v1"), s("X"), s(""), s("")]).unwrap()]), "null");
    assert_eq!(out("toJson", &[Value::string_list(["a", "b"])]), r#"["a","b"]"#);
}

#[test]
fn json_errors_of_the_must_variants() {
    assert_eq!(out("toRawJson", &[Value::Float(f64::NAN)]), "ERROR json: unsupported value: NaN");
    assert_eq!(out("mustToJson", &[Value::Float(f64::NAN)]), "ERROR json: unsupported value: NaN");
    assert_eq!(out("mustToPrettyJson", &[Value::Float(f64::INFINITY)]), "ERROR json: unsupported value: +Inf");
    assert_eq!(out("toPrettyJson", &[Value::Float(f64::NAN)]), "");
}

#[test]
fn pretty_json() {
    let m = json(r#"{"b":[1,2],"a":{"c":"<x>"}}"#);
    assert_eq!(
        out("toPrettyJson", &[m]),
        "{\n  \"a\": {\n    \"c\": \"\\u003cx\\u003e\"\n  },\n  \"b\": [\n    1,\n    2\n  ]\n}"
    );
    assert_eq!(out("toPrettyJson", &[Value::map(BTreeMap::new())]), "{}");
    assert_eq!(out("toPrettyJson", &[Value::list(vec![])]), "[]");
    assert_eq!(out("toPrettyJson", &[Value::Nil]), "null");
    assert_eq!(out("mustToPrettyJson", &[json(r#"{"a":1}"#)]), "{\n  \"a\": 1\n}");
}

// ---------- fromJson family ----------

#[test]
fn from_json_values_are_float64() {
    let m = call("fromJson", &[s(r#"{"a":1,"b":[true,null,"x"],"c":{"d":1.5}}"#)]).unwrap();
    assert_eq!(sprint_value(&field(&m, "b")), "[true <nil> x]");
    assert_eq!(field(&m, "a").type_name(), "float64");
    let m = call("fromJson", &[s(r#"{"big":12345678901,"i":7,"neg":-0.0}"#)]).unwrap();
    assert_eq!(sprint_value(&m), "map[big:1.2345678901e+10 i:7 neg:-0]");
}

#[test]
fn from_json_errors_go_into_the_map() {
    assert_eq!(
        sprint_value(&field(&call("fromJson", &[s("{bad json}")]).unwrap(), "Error")),
        "invalid character 'b' looking for beginning of object key string"
    );
    assert_eq!(
        out("fromJson", &[s("[1,2]")]),
        "map[Error:json: cannot unmarshal array into Go value of type map[string]interface {}]"
    );
    assert_eq!(out("fromJson", &[s("")]), "map[Error:unexpected end of JSON input]");
    assert_eq!(out("fromJson", &[s("{\"a\":1} x")]), "map[Error:invalid character 'x' after top-level value]");
    assert_eq!(out("fromJson", &[s("{\"a\":1,\"a\":2}")]), "map[a:2]");
    let null = call("fromJson", &[s("null")]).unwrap();
    assert_eq!(sprint_value(&null), "map[]");
    assert_eq!(out("toJson", &[null]), "null");
}

#[test]
fn from_json_array() {
    let a = call("fromJsonArray", &[s(r#"[1,"two",{"k":"v"}]"#)]).unwrap();
    assert_eq!(sprint_value(&a), "[1 two map[k:v]]");
    assert_eq!(
        out("fromJsonArray", &[s(r#"{"a":1}"#)]),
        "[json: cannot unmarshal object into Go value of type []interface {}]"
    );
    assert_eq!(out("fromJsonArray", &[s("")]), "[unexpected end of JSON input]");
    assert_eq!(out("toJson", &[call("fromJsonArray", &[s("null")]).unwrap()]), "null");
}

#[test]
fn must_from_json() {
    assert_eq!(out("mustFromJson", &[s(r#"[1,{"a":"b"}]"#)]), "[1 map[a:b]]");
    assert_eq!(out("mustFromJson", &[s(r#""str""#)]), "str");
    assert_eq!(out("mustFromJson", &[s("3")]), "3");
    assert!(matches!(call("mustFromJson", &[s("null")]), Ok(Value::Invalid)));
    assert_eq!(
        out("mustFromJson", &[s("{bad")]),
        "ERROR invalid character 'b' looking for beginning of object key string"
    );
}

#[test]
fn json_round_trip() {
    let m = json(r#"{"z":1,"a":[1.5,"x"]}"#);
    let j = call("toJson", &[m]).unwrap();
    let back = call("fromJson", &[j]).unwrap();
    assert_eq!(out("toJson", &[back]), r#"{"a":[1.5,"x"],"z":1}"#);
}

// ---------- toToml ----------

#[test]
fn to_toml() {
    let m = json(r#"{"name":"x","port":8080,"ratio":0.5,"enabled":true}"#);
    assert_eq!(out("toToml", &[m]), "enabled = true\nname = \"x\"\nport = 8080\nratio = 0.5\n");
    assert_eq!(out("toToml", &[json(r#"{"a":null,"b":1}"#)]), "b = 1\n");
    assert_eq!(out("toToml", &[json(r#"{"arr":[1,"a",true]}"#)]), "arr = [1, \"a\", true]\n");
    assert_eq!(out("toToml", &[s("str")]), "\"str\"");
    assert_eq!(out("toToml", &[Value::map(BTreeMap::new())]), "");
    assert_eq!(out("toToml", &[Value::Nil]), "ERROR reflect: call of reflect.Value.Type on zero Value");
    let m = Value::map(BTreeMap::from([("f".to_string(), Value::Float(3.0)), ("i".to_string(), Value::int(3))]));
    assert_eq!(out("toToml", &[m]), "f = 3.0\ni = 3\n");
}

// ---------- toYaml / fromYaml ----------

#[test]
fn to_yaml_basic() {
    let m = json(r#"{"b":1,"a":["x","y1"],"c":{"d":true,"e":null}}"#);
    assert_eq!(out("toYaml", &[m]), "a:\n- x\n- y1\nb: 1\nc:\n  d: true\n  e: null");
    assert_eq!(out("toYaml", &[s("s")]), "s");
    assert_eq!(out("toYaml", &[Value::Nil]), "null");
    assert_eq!(out("toYaml", &[Value::Invalid]), "null");
    assert_eq!(out("toYaml", &[s("")]), "\"\"");
    assert_eq!(out("toYaml", &[Value::Float(f64::NAN)]), "");
}

#[test]
fn to_yaml_numbers() {
    let m = json(r#"{"i":42,"neg":-7,"f":0.25,"big":9007199254740993,"huge":1.0e+21,"small":1.0e-7}"#);
    assert_eq!(out("toYaml", &[m]), "big: 9007199254740993\nf: 0.25\nhuge: 1e+21\ni: 42\nneg: -7\nsmall: 1e-07");
    assert_eq!(out("toYaml", &[Value::Float(3.0)]), "3");
    assert_eq!(out("toYaml", &[Value::Float(1e6)]), "1000000");
    assert_eq!(out("toYaml", &[Value::Float(1e21)]), "1e+21");
}

#[test]
fn from_yaml() {
    assert_eq!(out("fromYaml", &[s("a: 1\nb:\n  c: [x, y1]\nd: true")]), "map[a:1 b:map[c:[x y1]] d:true]");
    let m = call("fromYaml", &[s("i: 1\nf: 1.5\nbig: 12345678901\ne: 1e3")]).unwrap();
    assert_eq!(field(&m, "i").type_name(), "float64");
    assert_eq!(sprint_value(&field(&m, "big")), "1.2345678901e+10");
    assert_eq!(sprint_value(&field(&m, "e")), "1000");
    assert_eq!(out("fromYaml", &[s("a: yes\nb: off\nc: y\nd: \"yes\"")]), "map[a:true b:false c:true d:yes]");
    assert_eq!(
        out("fromYaml", &[s("just a string")]),
        "map[Error:error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}]"
    );
    assert_eq!(out("fromYaml", &[s("")]), "map[]");
    assert_eq!(out("fromYaml", &[s("a: null\nb: ~\nc:")]), "map[a:<nil> b:<nil> c:<nil>]");
    assert_eq!(out("fromYaml", &[s("1: one\ntrue: t\n1.5: f")]), "map[1:one 1.5:f true:t]");
    assert_eq!(out("fromYaml", &[s("a: 1\n---\nb: 2")]), "map[a:1]");
    assert_eq!(
        out("fromYaml", &[s("base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2")]),
        "map[base:map[x:1] derived:map[true:2 x:1]]"
    );
    assert_eq!(out("fromYaml", &[s("a: 1\na: 2")]), "map[a:2]");
}

#[test]
fn from_yaml_syntax_error_text() {
    assert_eq!(
        sprint_value(&field(&call("fromYaml", &[s("a: [unclosed")]).unwrap(), "Error")),
        "error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'"
    );
}

#[test]
fn from_yaml_array() {
    let a = call("fromYamlArray", &[s("- 1\n- two\n- {k: v}")]).unwrap();
    assert_eq!(sprint_value(&a), "[1 two map[k:v]]");
    assert_eq!(
        out("fromYamlArray", &[s("a: 1")]),
        "[error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object into Go value of type []interface {}]"
    );
    assert_eq!(out("fromYamlArray", &[s("")]), "[]");
    assert_eq!(out("fromYamlArray", &[s("[]")]), "[]");
}

// ---------- lookups ----------

fn crs() -> Vec<Value> {
    vec![
        json(r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"zz","namespace":"b"}}"#),
        json(r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"aa","namespace":"a"}}"#),
        json(r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mm","namespace":"b"}}"#),
        json(r#"{"apiVersion":"v1","kind":"Thing","metadata":{"name":5}}"#),
    ]
}

fn count(crs: &[Value], args: [&str; 4]) -> usize {
    match call_with(crs, "lookupCRs", &args.map(s)).unwrap() {
        Value::List(l) => l.items.len(),
        other => panic!("not a list: {other:?}"),
    }
}

#[test]
fn lookup_crs_filters() {
    let crs = crs();
    assert_eq!(count(&crs, ["v1", "ConfigMap", "", ""]), 3);
    assert_eq!(count(&crs, ["v1", "ConfigMap", "b", ""]), 2);
    assert_eq!(count(&crs, ["v1", "ConfigMap", "b", "mm"]), 1);
    assert_eq!(count(&crs, ["v1", "ConfigMap", "*", "aa"]), 1);
    assert_eq!(count(&crs, ["v1", "ConfigMap", "c", "*"]), 0);
    assert_eq!(count(&crs, ["v1", "configmap", "", ""]), 0);
    assert_eq!(count(&crs, ["*", "ConfigMap", "", ""]), 0);
    assert_eq!(count(&crs, ["v1", "Thing", "", "5"]), 0);
    assert_eq!(count(&crs, ["v1", "Thing", "", ""]), 1);
    let all = call_with(&crs, "lookupCRs", &["v1", "ConfigMap", "", ""].map(s)).unwrap();
    let names: Vec<String> = match &all {
        Value::List(l) => l.items.iter().map(|cr| sprint_value(&field(&field(cr, "metadata"), "name"))).collect(),
        _ => vec![],
    };
    assert_eq!(names, ["zz", "aa", "mm"]);
    assert_eq!(all.type_name(), "[]map[string]interface {}");
}

#[test]
fn lookup_with_no_crs() {
    let none = call("lookupCRs", &["v1", "Node", "", ""].map(s)).unwrap();
    assert_eq!(sprint_value(&none), "[]");
    assert_eq!(none.type_name(), "[]map[string]interface {}");
    let one = call("lookupCR", &["v1", "Node", "", ""].map(s)).unwrap();
    assert_eq!(sprint_value(&one), "map[]");
    assert_eq!(one.type_name(), "map[string]interface {}");
    assert!(!one.truth().0);
}

#[test]
fn lookup_cr_exactly_one_and_shared() {
    let crs = crs();
    let aa = call_with(&crs, "lookupCR", &["v1", "ConfigMap", "a", "aa"].map(s)).unwrap();
    assert_eq!(sprint_value(&field(&field(&aa, "metadata"), "name")), "aa");
    let several = call_with(&crs, "lookupCR", &["v1", "ConfigMap", "b", ""].map(s)).unwrap();
    assert_eq!(sprint_value(&several), "map[]");
    // The returned map is the CR itself: a mutation is seen by the next lookup.
    if let Value::Map(m) = &aa {
        m.entries.borrow_mut().insert("touched".into(), Value::Bool(true));
    }
    let again = call_with(&crs, "lookupCR", &["v1", "ConfigMap", "", "aa"].map(s)).unwrap();
    assert_eq!(sprint_value(&field(&again, "touched")), "true");
}

#[test]
fn do_not_match() {
    let e = call("doNotMatch", &[s("not applicable")]).unwrap_err();
    assert_eq!(e, FuncError::DoNotMatch("not applicable".into()));
    assert_eq!(e.to_string(), "Do not match: not applicable");
    assert_eq!(call("doNotMatch", &[s("")]).unwrap_err().to_string(), "Do not match: ");
}
