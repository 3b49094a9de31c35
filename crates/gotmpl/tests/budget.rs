//! The run-wide budget: shared by every execution holding the same [`Budget`] (across threads),
//! weighted for expensive functions and for what calls build, and reported as a limit error
//! naming the template and the node. Each known attack is run against a budget and must
//! end with that error; no test asserts how long anything took.

use std::time::Duration;

use driftlint_gotmpl::{Budget, ErrorKind, Limits, TemplateSet, Value};

fn set(text: &str) -> TemplateSet {
    TemplateSet::parse("cr.yaml", text, &[] as &[(&str, &str)]).unwrap()
}

fn limits(steps: u64) -> Limits {
    Limits { budget: Budget::new(steps, Duration::from_secs(3600)), ..Limits::default() }
}

fn is_budget_error(e: &driftlint_gotmpl::Error) -> bool {
    e.kind == ErrorKind::Limit && e.message.contains("the run's budget of")
}

#[test]
fn the_budget_is_shared_by_every_execution_of_a_run() {
    // Each render fits easily in the per-execution fuel; ten of them do not fit in the run.
    let s = set("{{ range until 200 }}{{ range until 200 }}{{ end }}{{ end }}done");
    let limits = limits(500_000);
    let mut ok = 0;
    let mut err = None;
    for _ in 0..10 {
        match s.execute(&Value::Invalid, &limits, &[]) {
            Ok(r) => {
                assert_eq!(r.text, "done");
                ok += 1;
            }
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    assert!((1..10).contains(&ok), "{ok} renders fitted");
    let e = err.expect("the budget ran out");
    assert!(is_budget_error(&e), "{e}");
    // The error names the template and where it stopped, as every execution error does.
    assert_eq!(e.template, "cr.yaml");
    assert!(e.to_string().starts_with("template: cr.yaml:1:"), "{e}");
    // Once spent, it stays spent: later renders fail at once.
    assert!(is_budget_error(&s.execute(&Value::Invalid, &limits, &[]).unwrap_err()));
    // A fresh budget renders again.
    assert_eq!(s.execute(&Value::Invalid, &self::limits(500_000), &[]).unwrap().text, "done");
}

#[test]
fn clones_share_the_budget_across_threads() {
    let s = set("{{ range until 1000 }}{{ end }}");
    let limits = limits(100_000);
    let failures: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let limits = limits.clone();
                let s = &s;
                scope.spawn(move || (0..100).filter(|_| s.execute(&Value::Invalid, &limits, &[]).is_err()).count())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    // 400 renders of about 2000 steps each cannot all fit in 100 000.
    assert!(failures > 300, "{failures} of 400 renders failed");
    assert!(limits.budget.remaining() < 4_096 * 4, "{}", limits.budget.remaining());
}

#[test]
fn until_and_seq_weigh_what_they_build() {
    // The per-execution fuel counts nodes: one `until 100000` is a single step of it, but the
    // budget pays for its hundred thousand elements.
    let s = set("{{ range until 1000 }}{{ $x := until 100000 }}{{ end }}");
    let e = s.execute(&Value::Invalid, &limits(10_000_000), &[]).unwrap_err();
    assert!(is_budget_error(&e), "{e}");
    assert!(e.to_string().contains("until 100000"), "the error names the node: {e}");
    let s = set("{{ range until 1000 }}{{ $x := seq 100000 }}{{ end }}");
    assert!(is_budget_error(&s.execute(&Value::Invalid, &limits(10_000_000), &[]).unwrap_err()));
}

#[test]
fn key_generation_is_refused_up_front_when_the_budget_cannot_pay() {
    // One RSA-4096 key weighs more than this whole budget: the call never starts.
    let s = set(r#"{{ genPrivateKey "rsa" }}"#);
    let e = s.execute(&Value::Invalid, &limits(50_000_000), &[]).unwrap_err();
    assert!(is_budget_error(&e), "{e}");
    assert!(e.to_string().contains("genPrivateKey"), "{e}");
    // Cheap key types stay cheap.
    let s = set(r#"{{ genPrivateKey "ed25519" | len }}"#);
    assert!(s.execute(&Value::Invalid, &limits(50_000_000), &[]).is_ok());
}

#[test]
fn password_hashing_is_weighted() {
    let s = set(r#"{{ range until 20 }}{{ bcrypt "secret" }}{{ end }}"#);
    let e = s.execute(&Value::Invalid, &limits(20_000_000), &[]).unwrap_err();
    assert!(is_budget_error(&e), "{e}");
    assert!(e.to_string().contains("bcrypt"), "{e}");
    let s = set(r#"{{ range until 20 }}{{ derivePassword 1 "long" "password" "user" "example.com" }}{{ end }}"#);
    assert!(is_budget_error(&s.execute(&Value::Invalid, &limits(20_000_000), &[]).unwrap_err()));
}

#[test]
fn append_in_a_loop_grows_the_list_in_place() {
    // `$l = append $l x` moves the old list into `append`, which grows it: 100 000 appends
    // cost about 100 000 steps of each kind, well within this small budget.
    let s = set("{{ $l := list }}{{ range until 100000 }}{{ $l = append $l . }}{{ end }}{{ len $l }} {{ last $l }}");
    assert_eq!(s.execute(&Value::Invalid, &limits(1_000_000), &[]).unwrap().text, "100000 99999");
    let s = set("{{ $l := list }}{{ range until 100000 }}{{ $l = concat $l (list . .) }}{{ end }}{{ len $l }}");
    assert_eq!(s.execute(&Value::Invalid, &limits(2_000_000), &[]).unwrap().text, "200000");
}

#[test]
fn append_to_a_shared_list_copies_and_pays_for_the_copy() {
    // `$all` keeps the list alive, so each append copies it: quadratic work, paid for.
    let s = set("{{ $l := list }}{{ range until 100000 }}{{ $all := $l }}{{ $l = append $l . }}{{ end }}");
    let e = s.execute(&Value::Invalid, &limits(5_000_000), &[]).unwrap_err();
    assert!(is_budget_error(&e), "{e}");
    let s = set("{{ $l := list }}{{ range until 100000 }}{{ $l = append $l (len $l) }}{{ end }}");
    assert!(is_budget_error(&s.execute(&Value::Invalid, &limits(5_000_000), &[]).unwrap_err()));
}

#[test]
fn moving_a_variable_never_changes_what_other_values_see() {
    let cases = [
        // Another variable shares the list: it keeps the old one.
        ("{{ $m := until 3 }}{{ $n := $m }}{{ $m = append $m 9 }}{{ $n }} {{ $m }}", "[0 1 2] [0 1 2 9]"),
        // A map holds the list.
        ("{{ $m := list 1 }}{{ $d := dict \"k\" $m }}{{ $m = append $m 2 }}{{ $d.k }} {{ $m }}", "[1] [1 2]"),
        // Two reads of the variable in the pipeline: no move.
        ("{{ $m := list 1 }}{{ $m = append $m (len $m) }}{{ $m }}", "[1 1]"),
        // The result is a []interface {} even when the list was typed.
        ("{{ $t := until 2 }}{{ $t = append $t 5 }}{{ typeOf $t }} {{ $t }}", "[]interface {} [0 1 5]"),
        // A nil list appended to is no longer nil.
        ("{{ $c := concat }}{{ $c = append $c 1 }}{{ $c }}", "[1]"),
        // Ranging over the list while appending to it iterates over the old items.
        ("{{ $l := list 1 2 }}{{ range $l }}{{ $l = append $l . }}{{ end }}{{ $l }}", "[1 2 1 2]"),
        // An error mid-pipeline still reports the ordinary way.
        ("{{ $s := \"x\" }}{{ $s = append $s 1 }}", "ERR"),
    ];
    for (t, want) in cases {
        match set(t).execute(&Value::Invalid, &Limits::default(), &[]) {
            Ok(r) => assert_eq!(r.text, want, "{t}"),
            Err(e) => {
                assert_eq!(want, "ERR", "{t}: {e}");
                assert!(e.to_string().contains("Cannot push on type string"), "{e}");
            }
        }
    }
}

#[test]
fn string_building_is_weighted() {
    let s = set(r#"{{ range until 1000 }}{{ $x := repeat 1000000 "x" }}{{ end }}"#);
    assert!(is_budget_error(&s.execute(&Value::Invalid, &limits(10_000_000), &[]).unwrap_err()));
}

#[test]
fn the_time_budget_ends_executions_too() {
    let limits = Limits { budget: Budget::new(u64::MAX / 4, Duration::ZERO), ..Limits::default() };
    let s = set("{{ range until 100000 }}{{ end }}");
    let e = s.execute(&Value::Invalid, &limits, &[]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit);
    assert!(e.message.contains("the run's time budget of 0 s"), "{e}");
}

#[test]
fn normal_templates_use_little_of_the_default_budget() {
    let s = set("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .metadata.name }}\n\
         data:\n{{- range $k, $v := .data }}\n  {{ $k }}: {{ $v | quote }}{{ end }}\n");
    let data = Value::from_json(&serde_json::json!({"metadata": {"name": "x"}, "data": {"a": "1", "b": "2"}}));
    let limits = Limits::default();
    for _ in 0..1000 {
        s.execute(&data, &limits, &[]).unwrap();
    }
    assert!(limits.budget.used() < 1_000_000, "{}", limits.budget.used());
}
