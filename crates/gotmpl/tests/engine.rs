//! Behaviour of the public API: template sets, limits, provenance, error kinds and text.

mod common;

use common::{data, render, render_with};
use driftlint_gotmpl::{ErrorKind, Limits, TemplateSet, Value};

#[test]
fn template_set_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<TemplateSet>();
}

#[test]
fn one_parse_renders_from_many_threads() {
    let set = TemplateSet::parse("main.yaml", "name: {{ .metadata.name | upper }}", &[] as &[(&str, &str)]).unwrap();
    std::thread::scope(|s| {
        for i in 0..4 {
            let set = &set;
            s.spawn(move || {
                let d = data(&format!(r#"{{"metadata": {{"name": "cm-{i}"}}}}"#));
                let out = set.execute(&d, &Limits::default(), &[]).unwrap();
                assert_eq!(out.text, format!("name: CM-{i}"));
            });
        }
    });
}

#[test]
fn later_function_file_replaces_define_but_not_with_empty_body() {
    let out = render_with(
        r#"{{ define "x" }}main{{ end }}{{ template "x" }} {{ template "y" }}"#,
        &[r#"{{ define "x" }}file{{ end }}{{ define "y" }}y1{{ end }}"#, r#"{{ define "y" }}  {{ end }}"#],
        "{}",
    );
    assert_eq!(out.unwrap(), "file y1");
}

#[test]
fn redefined_main_runs_the_original_tree() {
    let out = render_with(
        r#"orig{{ if not . }}:{{ template "main.yaml" 1 }}{{ end }}"#,
        &[r#"{{ define "main.yaml" }}new{{ end }}"#],
        "null",
    );
    assert_eq!(out.unwrap(), "orig:new");
}

#[test]
fn function_file_text_is_a_template_named_after_the_file() {
    let out = render_with(r#"[{{ template "defines-1.tmpl" "v" }}]"#, &["file {{ . }}"], "{}");
    assert_eq!(out.unwrap(), "[file v]");
}

#[test]
fn two_defines_in_one_file_are_a_parse_error() {
    let err = render(r#"{{ define "d" }}a{{ end }}{{ define "d" }}b{{ end }}"#, "{}").unwrap_err();
    assert_eq!(err, r#"template: main.yaml:1: template: multiple definition of template "d""#);
}

#[test]
fn exec_errors_read_like_go() {
    let err = render("line1\n{{ eq 1 1.0 }}", "{}").unwrap_err();
    assert_eq!(
        err,
        r#"template: main.yaml:2:3: executing "main.yaml" at <eq 1 1.0>: error calling eq: incompatible types for comparison: int and float64"#
    );
    let err = render("{{ repeat .n \"a\" }}", r#"{"n": 2}"#).unwrap_err();
    assert!(err.ends_with("at <.n>: wrong type for value; expected int; got int64"), "{err}");
}

#[test]
fn do_not_match_has_its_own_kind() {
    let set = TemplateSet::parse("main.yaml", r#"{{ doNotMatch "not this one" }}"#, &[] as &[(&str, &str)]).unwrap();
    let err = set.execute(&Value::Invalid, &Limits::default(), &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::DoNotMatch);
    assert!(err.message.contains("Do not match: not this one"), "{}", err.message);
}

#[test]
fn infinite_recursion_stops_at_the_depth_limit() {
    let set = TemplateSet::parse(
        "main.yaml",
        r#"{{ define "loop" }}{{ if true }}{{ with . }}{{ template "loop" . }}{{ end }}{{ end }}{{ end }}{{ template "loop" 1 }}"#,
        &[] as &[(&str, &str)],
    )
    .unwrap();
    // Runs on the test thread's small stack: the executor must grow its stack, not overflow.
    let err = set.execute(&Value::Invalid, &Limits::default(), &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Limit);
    assert!(err.to_string().contains("exceeded maximum template depth (10000)"), "{err}");
}

#[test]
fn fuel_bounds_long_loops() {
    let set = TemplateSet::parse(
        "main.yaml",
        "{{ range 1000000 }}{{ range 1000000 }}{{ end }}{{ end }}",
        &[] as &[(&str, &str)],
    )
    .unwrap();
    let limits = Limits { fuel: 100_000, ..Limits::default() };
    let err = set.execute(&Value::Invalid, &limits, &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Limit);
}

#[test]
fn output_size_is_bounded() {
    let set = TemplateSet::parse("main.yaml", "{{ range 100000 }}0123456789{{ end }}", &[] as &[(&str, &str)]).unwrap();
    let limits = Limits { max_output: 1000, ..Limits::default() };
    let err = set.execute(&Value::Invalid, &limits, &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Limit);
}

#[test]
fn deeply_nested_parentheses_do_not_overflow() {
    let depth = 900;
    let t = format!("{{{{ {}1{} }}}}", "(".repeat(depth), ")".repeat(depth));
    assert_eq!(render(&t, "{}").unwrap(), "1");
    let t = format!("{{{{ {}1{} }}}}", "(".repeat(5000), ")".repeat(5000));
    assert!(render(&t, "{}").unwrap_err().contains("nests more than"));
}

#[test]
fn provenance_maps_output_back_to_template_lines() {
    let src = "kind: ConfigMap\nmetadata:\n  name: {{ .name }}\n{{- range .items }}\n  - {{ . }}\n{{- end }}\n";
    let set = TemplateSet::parse("main.yaml", src, &[] as &[(&str, &str)]).unwrap();
    let out = set.execute(&data(r#"{"name": "cm", "items": ["a", "b"]}"#), &Limits::default(), &[]).unwrap();
    assert_eq!(out.text, "kind: ConfigMap\nmetadata:\n  name: cm\n  - a\n  - b\n");
    let at = |needle: &str| out.source_of(out.text.find(needle).unwrap()).unwrap();
    assert_eq!(at("cm\n").line, 3);
    assert_eq!(&src[at("cm\n").start as usize..at("cm\n").end as usize], "{{ .name }}");
    assert_eq!(at("b\n").line, 5);
    assert_eq!(at("kind").line, 1);
    assert_eq!(set.file_name(at("b\n").file), "main.yaml");
}

#[test]
fn provenance_points_into_function_files() {
    let set = TemplateSet::parse(
        "main.yaml",
        r#"a{{ template "f" }}"#,
        &[("defines-1.tmpl", "\n{{ define \"f\" }}from-file{{ end }}")],
    )
    .unwrap();
    let out = set.execute(&Value::Invalid, &Limits::default(), &[]).unwrap();
    let span = out.source_of(1).unwrap();
    assert_eq!((set.file_name(span.file), span.line), ("defines-1.tmpl", 2));
}

#[test]
fn parse_errors_name_the_file() {
    let err = render_with("ok", &["{{ if }}{{ end }}"], "{}").unwrap_err();
    assert_eq!(err, "template: defines-1.tmpl:1: missing value for if");
}

#[test]
fn missing_and_null_values() {
    assert_eq!(
        render("{{ .a }}|{{ .a.b }}|{{ .n }}|{{ print .n }}", r#"{"n": null}"#).unwrap(),
        "<no value>|<no value>|<no value>|<nil>"
    );
    assert!(render("{{ .n.x }}", r#"{"n": null}"#).unwrap_err().contains("nil pointer evaluating interface {}.x"));
}

#[test]
fn a_map_containing_itself_prints_without_overflowing() {
    let out = render(r#"{{ $d := dict }}{{ $_ := set $d "self" $d }}{{ len (printf "%v" $d) | lt 100 }}"#, "{}");
    assert_eq!(out.unwrap(), "true");
}

/// A stand-in for `time.Time`: one method with a typed parameter, one field.
#[derive(Debug)]
struct Clock;

impl driftlint_gotmpl::Object for Clock {
    fn type_name(&self) -> &str {
        "test.Clock"
    }
    fn field(&self, name: &str) -> Option<Value> {
        (name == "Hour").then(|| Value::int(7))
    }
    fn has_method(&self, name: &str) -> bool {
        name == "Format"
    }
    fn method_params(
        &self,
        name: &str,
    ) -> Option<(&'static [driftlint_gotmpl::Param], Option<driftlint_gotmpl::Param>)> {
        (name == "Format").then_some((&[driftlint_gotmpl::Param::String][..], None))
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, driftlint_gotmpl::FuncError>> {
        (name == "Format").then(|| Ok(Value::str(format!("fmt:{}", args[0].as_str().unwrap_or("?")))))
    }
    fn display(&self) -> String {
        "clock".into()
    }
    fn deep_equal(&self, _other: &dyn driftlint_gotmpl::Object) -> bool {
        true
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[test]
fn object_methods_get_go_argument_checks() {
    let set = TemplateSet::parse(
        "main.yaml",
        r#"{{ .c.Format "x" }} {{ "y" | .c.Format }} {{ .c.Hour }} {{ .c }} {{ printf "%T" .c }}"#,
        &[] as &[(&str, &str)],
    )
    .unwrap();
    let mut m = std::collections::BTreeMap::new();
    m.insert("c".to_string(), Value::object(Clock));
    let d = Value::map(m);
    let out = set.execute(&d, &Limits::default(), &[]).unwrap();
    assert_eq!(out.text, "fmt:x fmt:y 7 clock test.Clock");
    for (t, want) in [
        (r#"{{ .c.Format 5 }}"#, "at <5>: expected string; found 5"),
        (r#"{{ .c.Format }}"#, "at <.c.Format>: wrong number of args for Format: want 1 got 0"),
        (r#"{{ .c.Hour 1 }}"#, "Hour has arguments but cannot be invoked as function"),
        (r#"{{ .c.Nope }}"#, "can't evaluate field Nope in type interface {}"),
    ] {
        let set = TemplateSet::parse("main.yaml", t, &[] as &[(&str, &str)]).unwrap();
        let err = set.execute(&d, &Limits::default(), &[]).unwrap_err().to_string();
        assert!(err.ends_with(want), "{t}: {err}");
    }
}

#[test]
fn strings_built_by_print_are_bounded() {
    let set = TemplateSet::parse(
        "main.yaml",
        r#"{{ $s := "x" }}{{ range 40 }}{{ $s = print $s $s }}{{ end }}{{ len $s }}"#,
        &[] as &[(&str, &str)],
    )
    .unwrap();
    let limits = Limits { max_string_len: 1 << 20, ..Limits::default() };
    let err = set.execute(&Value::Invalid, &limits, &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Limit);
    assert!(err.to_string().contains("error calling print: result exceeds"), "{err}");
}

#[test]
fn parse_single_is_a_set_of_one() {
    let set = TemplateSet::parse_single("main.yaml", "{{ define \"t\" }}T{{ end }}a{{ template \"t\" }}").unwrap();
    assert_eq!(set.template_names(), vec!["main.yaml", "t"]);
    assert_eq!(set.execute(&Value::Invalid, &Limits::default(), &[]).unwrap().text, "aT");
}
