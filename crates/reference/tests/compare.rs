//! Corpus-driven tests of the comparison primitives: for each kube-compare case that
//! exercises them, every CR listed in `expected.json` is compared with its recorded
//! `CorrelatedTemplate` through `compare::compare_one`, and the changed lines of our diff
//! must equal the recorded ones (as a multiset, like the conformance scorer), with a score
//! > 0 exactly when kube-compare printed a diff. Correlation is taken from the recording, so
//! > these tests isolate render → merge → overrides → inline → omit → write → diff → score.
//!
//! The corpus tests are `#[ignore]`d on a plain clone (`.ci/run` runs them); the last tests
//! need no corpus.

use std::path::{Path, PathBuf};

use driftlint_reference::compare::{
    self, Candidate, FieldFunc, InlineDiff, Options, RenderError, UserOverride, Verdict,
};
use driftlint_reference::load_reference;
use serde_json::Value;

/// The kube-compare corpus, or `None` after `driftlint_test_support::skip` when it is absent.
fn corpus(test: &str) -> Option<PathBuf> {
    driftlint_test_support::corpus(test, "kube-compare")
}

fn yaml_docs(text: &str) -> Vec<Value> {
    driftlint_yaml::parse_stream(text).documents.into_iter().map(|d| d.root.to_json()).collect()
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json") {
            out.push(p);
        }
    }
}

fn changed_lines(diff: &str) -> Vec<String> {
    let mut v: Vec<String> = diff
        .lines()
        .filter(|l| (l.starts_with('+') && !l.starts_with("+++ ")) || (l.starts_with('-') && !l.starts_with("--- ")))
        .map(str::to_owned)
        .collect();
    v.sort();
    v
}

fn matches_override(o: &UserOverride, cr: &Value, id: &str) -> bool {
    if !o.exact_match.is_empty() {
        return o.exact_match == id;
    }
    let s = |p: &str| cr.pointer(p).and_then(Value::as_str).unwrap_or("").to_owned();
    !o.kind.is_empty()
        && o.kind == s("/kind")
        && (o.api_version.is_empty() || o.api_version == s("/apiVersion"))
        && (o.name.is_empty() || o.name == s("/metadata/name"))
        && (o.namespace.is_empty() || o.namespace == s("/metadata/namespace"))
}

/// Runs every recorded comparison of `case` of `corpus`; returns how many were checked.
fn check_case(corpus: &Path, case: &str) -> usize {
    let dir = corpus.join(case);
    let meta = yaml_docs(&std::fs::read_to_string(dir.join("case.yaml")).unwrap()).remove(0);
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let reference = load_reference(&dir.join(meta["reference"].as_str().unwrap())).unwrap();
    let overrides =
        meta["overrides"].as_str().map(|p| compare::load_overrides(&dir.join(p)).unwrap()).unwrap_or_default();
    let mut files = Vec::new();
    for input in meta["inputs"].as_array().unwrap() {
        let p = dir.join(input.as_str().unwrap());
        if p.is_dir() { files_under(&p, &mut files) } else { files.push(p) }
    }
    let mut crs: Vec<Value> =
        files.iter().flat_map(|f| yaml_docs(&std::fs::read_to_string(f).unwrap())).filter(Value::is_object).collect();
    let all: Vec<driftlint_gotmpl::Value> = crs.iter().map(driftlint_gotmpl::Value::from_json).collect();
    let functions: Vec<(String, String)> = reference
        .function_files
        .iter()
        .flat_map(|f| f.source.files.iter().map(|s| (s.name.clone(), s.text.clone())))
        .collect();
    let mut checked = 0;
    for entry in expected["Diffs"].as_array().unwrap() {
        let id = entry["CRName"].as_str().unwrap();
        let Some(cr) = crs.iter_mut().find(|c| compare::cr_id(c) == id) else { continue };
        let template =
            reference.templates.iter().find(|t| t.path == entry["CorrelatedTemplate"].as_str().unwrap()).unwrap();
        let set =
            driftlint_gotmpl::TemplateSet::parse(template.base_name(), &template.source.files[0].text, &functions)
                .unwrap();
        let per_field: Vec<FieldFunc> = template
            .config
            .per_field
            .iter()
            .map(|p| FieldFunc {
                path_to_key: p.path_to_key.clone(),
                func: InlineDiff::from_name(&p.inline_diff_func).unwrap(),
            })
            .collect();
        let candidate = Candidate {
            id: &template.path,
            omit: &template.omit_paths,
            ignore_unspecified_fields: template.config.ignore_unspecified_fields,
            per_field: &per_field,
        };
        let matched: Vec<&UserOverride> = overrides.iter().filter(|o| matches_override(o, cr, id)).collect();
        let render = |data: &Value| {
            set.execute(&driftlint_gotmpl::Value::from_json(data), &driftlint_gotmpl::Limits::default(), &all)
                .map(|r| r.text)
                .map_err(|e| match e.kind {
                    driftlint_gotmpl::ErrorKind::DoNotMatch => RenderError::DoNotMatch,
                    _ => RenderError::Failed(format!("failed to constuct template: {e}")),
                })
        };
        let Verdict::Compared(outcome) =
            compare::compare_one(cr, render, &candidate, &matched, &all, &Options::default()).unwrap()
        else {
            panic!("{case}: {id} did not match")
        };
        let want = entry["DiffOutput"].as_str().unwrap();
        assert_eq!(changed_lines(&outcome.diff_output), changed_lines(want), "{case}: {id}\n{}", outcome.diff_output);
        assert_eq!(outcome.differs, !want.is_empty(), "{case}: {id} score {}", outcome.score());
        assert_eq!(outcome.score() > 0, outcome.differs, "{case}: {id}");
        if !want.is_empty() {
            let header = format!("diff -u -N {}", std::env::temp_dir().display());
            assert!(outcome.diff_output.starts_with(&header), "{}", outcome.diff_output);
            assert!(outcome.diff_output.contains(&format!("/{}\n--- ", outcome.name)));
        }
        checked += 1;
    }
    checked
}

macro_rules! corpus_cases {
    ($($name:ident => $case:literal,)*) => {$(
        #[test]
        #[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
        fn $name() {
            let Some(corpus) = corpus(stringify!($name)) else { return };
            assert!(check_case(&corpus, $case) > 0, "{}: no comparison checked", $case);
        }
    )*};
}

corpus_cases! {
    ignore_unspecified_fields => "CheckIgnoreUnspecifiedFieldsConfig",
    merging_does_not_overwrite_template => "CheckMergingDoesNotOverwriteTemplateConfig",
    omitted_fields => "DiffinCustomOmittedFieldsIsntShown",
    omitted_fields_all_quoted => "DiffinCustomOmittedFieldsIsntShownAllQuoted",
    omitted_fields_leading_dot => "DiffinCustomOmittedFieldsIsntShownLeadingDot",
    omitted_fields_non_default => "DiffinCustomOmittedFieldsIsntShownNonDefault",
    omitted_fields_prefix => "DiffinCustomOmittedFieldsIsntShownPrefix",
    v2_omitted_prefix => "ReferenceV2DiffinCustomOmittedFieldsIsntShownPrefix",
    v2_omitted_basic_include => "ReferenceV2DiffinCustomOmittedFieldsIsntShown__basic_include",
    capturegroups => "ReferenceV2InlineCapturegroups",
    capturegroups_consistency => "ReferenceV2InlineCapturegroups__With_Consistency_Across_Capturegroups",
    capturegroups_consistency_regex => "ReferenceV2InlineCapturegroups__With_Consistency_Across_Capturegroups_and_Regex",
    capturegroups_with_diff => "ReferenceV2InlineCapturegroups__With_Diff",
    capturegroups_diff_across => "ReferenceV2InlineCapturegroups__With_Diff_Across_Capturegroups",
    capturegroups_diff_across_regex => "ReferenceV2InlineCapturegroups__With_Diff_Across_Capturegroups_and_Regex",
    capturegroups_diff_between => "ReferenceV2InlineCapturegroups__With_Diff_Between_Capturegroups",
    capturegroups_diff_first_line => "ReferenceV2InlineCapturegroups__With_Diff_In_First_Line",
    capturegroups_mismatched => "ReferenceV2InlineCapturegroups__With_Mismatched_Capturegroups",
    regex => "ReferenceV2InlineRegex",
    regex_with_diff => "ReferenceV2InlineRegex__With_Diff",
    regex_diff_first_line => "ReferenceV2InlineRegex__With_Diff_In_First_Line",
    user_override_input => "UserOverride__Input",
    user_override_exact => "UserOverride__Input_Exact_Match",
    user_override_go_template => "UserOverride__Input_GoTemplate",
    user_override_rfc6902 => "UserOverride__Input_rfc6902",
    secrets_and_no_diffs => "AllRequiredTemplatesExistAndThereAreNoDiffs",
    some_diffs => "SomeDiffs",
    tie_breaker => "MultitemplateTieBreaker",
    tie_breaker_field => "MultitemplateTieBreaker__Field_Mismatch",
    tie_breaker_length => "MultitemplateTieBreaker__Length_Mismatch",
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn tie_breaker_scores_prefer_the_recorded_template() {
    let Some(corpus) = corpus("tie_breaker_scores_prefer_the_recorded_template") else { return };
    // The recorded winner must have the lowest score of all same-kind candidates.
    let mut checked = 0;
    for case in [
        "MultitemplateTieBreaker",
        "MultitemplateTieBreaker__Field_Mismatch",
        "MultitemplateTieBreaker__Length_Mismatch",
    ] {
        let dir = corpus.join(case);
        let meta = yaml_docs(&std::fs::read_to_string(dir.join("case.yaml")).unwrap()).remove(0);
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
        let reference = load_reference(&dir.join(meta["reference"].as_str().unwrap())).unwrap();
        let mut files = Vec::new();
        files_under(&dir.join("resources"), &mut files);
        for entry in expected["Diffs"].as_array().unwrap() {
            let id = entry["CRName"].as_str().unwrap();
            let cr0 = files
                .iter()
                .flat_map(|f| yaml_docs(&std::fs::read_to_string(f).unwrap()))
                .find(|c| compare::cr_id(c) == id)
                .unwrap();
            let mut scores = Vec::new();
            for t in &reference.templates {
                let set =
                    driftlint_gotmpl::TemplateSet::parse::<&str, &str>(t.base_name(), &t.source.files[0].text, &[])
                        .unwrap();
                let Ok(r) = set.execute(
                    &driftlint_gotmpl::Value::from_json(&serde_json::json!({})),
                    &driftlint_gotmpl::Limits::default(),
                    &[],
                ) else {
                    continue;
                };
                let empty = compare::parse_rendered(&t.path, &r.text).unwrap_or_default();
                if empty.get("kind") != cr0.get("kind") {
                    continue;
                }
                let mut cr = cr0.clone();
                let c = Candidate {
                    id: &t.path,
                    omit: &t.omit_paths,
                    ignore_unspecified_fields: t.config.ignore_unspecified_fields,
                    per_field: &[],
                };
                let render = |d: &Value| {
                    set.execute(&driftlint_gotmpl::Value::from_json(d), &driftlint_gotmpl::Limits::default(), &[])
                        .map(|r| r.text)
                        .map_err(|e| RenderError::Failed(e.to_string()))
                };
                if let Ok(Verdict::Compared(o)) =
                    compare::compare_one(&mut cr, render, &c, &[], &[], &Options::default())
                {
                    scores.push((t.path.clone(), o.score()));
                }
            }
            let best = scores.iter().min_by_key(|(_, s)| *s).unwrap();
            assert_eq!(best.0, entry["CorrelatedTemplate"].as_str().unwrap(), "{case}: {id}: {scores:?}");
            checked += 1;
        }
    }
    driftlint_test_support::assert_min_cases("tie-breaker comparisons", checked, 3);
}

#[test]
fn generate_patch_matches_recorded_user_override_output() {
    // UserOverride__Input: `patch` for namespace.yaml (§6.3 example) starts like this.
    let merged = serde_json::json!({"metadata": {"annotations": {"workload.openshift.io/allowed": "management"}}});
    let live = serde_json::json!({"metadata": {"annotations": {"openshift.io/sa.scc.mcs": "s0:c29,c14"}}, "spec": {"finalizers": ["kubernetes"]}});
    assert_eq!(
        compare::patch_to_string(&compare::create_merge_patch(&merged, &live)),
        r#"{"metadata":{"annotations":{"openshift.io/sa.scc.mcs":"s0:c29,c14","workload.openshift.io/allowed":null}},"spec":{"finalizers":["kubernetes"]}}"#
    );
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn structured_diff_of_the_ignore_unspecified_case() {
    let Some(corpus) = corpus("structured_diff_of_the_ignore_unspecified_case") else { return };
    let dir = corpus.join("CheckIgnoreUnspecifiedFieldsConfig");
    let reference = load_reference(&dir.join("reference/metadata.yaml")).unwrap();
    let t = &reference.templates[0];
    let mut cr = yaml_docs(&std::fs::read_to_string(dir.join("resources/ns.yaml")).unwrap()).remove(0);
    let set = driftlint_gotmpl::TemplateSet::parse::<&str, &str>(t.base_name(), &t.source.files[0].text, &[]).unwrap();
    let render = |d: &Value| {
        set.execute(&driftlint_gotmpl::Value::from_json(d), &driftlint_gotmpl::Limits::default(), &[])
            .map(|r| r.text)
            .map_err(|e| RenderError::Failed(e.to_string()))
    };
    let c = Candidate { id: &t.path, omit: &t.omit_paths, ignore_unspecified_fields: true, per_field: &[] };
    let Verdict::Compared(o) = compare::compare_one(&mut cr, render, &c, &[], &[], &Options::default()).unwrap() else {
        panic!()
    };
    let got: Vec<(String, driftlint_core::locate::FieldDiffKind)> =
        o.field_diffs().into_iter().map(|f| (f.pointer, f.kind)).collect();
    assert_eq!(
        got,
        [
            (
                "/metadata/annotations/workload.openshift.io~1allowed".to_owned(),
                driftlint_core::locate::FieldDiffKind::Missing
            ),
            (
                "/metadata/labels/openshift.io~1cluster-monitoring".to_owned(),
                driftlint_core::locate::FieldDiffKind::Missing
            ),
        ]
    );
}

#[test]
fn errors_are_wrapped_like_kube_compare() {
    let mut cr = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "ns"}, "data": {"a": "b"}});
    let c = Candidate { id: "cm.yaml", omit: &[], ignore_unspecified_fields: false, per_field: &[] };
    let e = compare::compare_one(&mut cr, |_| Ok("- a\n".to_owned()), &c, &[], &[], &Options::default()).unwrap_err();
    assert!(
        e.to_string().starts_with("template injection failed: template: cm.yaml isn't a yaml file after injection."),
        "{e}"
    );
    let e =
        compare::compare_one(&mut cr, |_| Err(RenderError::Failed("boom".into())), &c, &[], &[], &Options::default())
            .unwrap_err();
    assert_eq!(e.to_string(), "template injection failed: boom");
    assert!(matches!(
        compare::compare_one(&mut cr, |_| Err(RenderError::DoNotMatch), &c, &[], &[], &Options::default()),
        Ok(Verdict::DoNotMatch)
    ));
    let pf = [FieldFunc { path_to_key: "data.a".into(), func: InlineDiff::Regex }];
    let c = Candidate { per_field: &pf, ..c };
    let e = compare::compare_one(
        &mut cr,
        |_| Ok("kind: ConfigMap\ndata:\n  a: 3\n".to_owned()),
        &c,
        &[],
        &[],
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "failed to properly run inline diff functions for v1_configmap_ns_x some diff may be incorrect: failed to acces value in template of field data.a that uses inline diff func: .data.a accessor error: 3 is of the type float64, expected string"
    );
}

#[test]
fn external_diff_program_runs_on_temp_dirs() {
    let mut cr =
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "live"}});
    let c = Candidate { id: "cm.yaml", omit: &[], ignore_unspecified_fields: false, per_field: &[] };
    let opts = Options {
        diff: compare::DiffProgram::parse_external("diff -r"),
        show_managed_fields: false,
        ..Options::default()
    };
    let Verdict::Compared(o) = compare::compare_one(
        &mut cr,
        |_| Ok("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: ref\n".into()),
        &c,
        &[],
        &[],
        &opts,
    )
    .unwrap() else {
        panic!()
    };
    assert!(o.diff_output.contains("<   a: ref") && o.diff_output.contains(">   a: live"), "{}", o.diff_output);
    let opts = Options {
        diff: compare::DiffProgram::parse_external("/nonexistent/diff"),
        show_managed_fields: false,
        ..Options::default()
    };
    let e = compare::compare_one(&mut cr, |_| Ok("kind: ConfigMap\n".into()), &c, &[], &[], &opts).unwrap_err();
    assert_eq!(
        e.to_string(),
        "diff exited with non-zero code: failed to run \"/nonexistent/diff\": executable file not found in $PATH"
    );
}
