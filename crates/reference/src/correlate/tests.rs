//! Unit tests for correlation, including §4.2's reproducer.

use serde_json::json;

use super::*;

fn meta(path: &str, api: Option<&str>, kind: &str, name: Option<&str>, ns: Option<&str>) -> TemplateMeta {
    TemplateMeta {
        path: path.into(),
        api_version: api.map(Into::into),
        kind: Some(kind.into()),
        name: name.map(Into::into),
        namespace: ns.map(Into::into),
    }
}

fn paths(ts: &[TemplateMeta], c: Option<(Vec<usize>, Via)>) -> Vec<String> {
    c.map(|(v, _)| v.into_iter().map(|i| ts[i].path.clone()).collect()).unwrap_or_default()
}

#[test]
fn spec_reproducer_effective_order() {
    let cr = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "foo", "namespace": "ns"}});
    let t1 = meta("t1", Some("v1"), "ConfigMap", Some("foo"), None);
    let t2 = meta("t2", None, "ConfigMap", Some("foo"), Some("ns"));
    let t3 = meta("t3", Some("v1"), "ConfigMap", None, Some("ns"));
    for (list, want) in [
        (vec![t1.clone(), t2.clone(), t3.clone()], "t1"),
        (vec![t3.clone(), t2.clone(), t1.clone()], "t1"),
        (vec![t2.clone(), t3.clone()], "t2"),
    ] {
        let c = Correlator::new(&list, &[]).unwrap();
        assert_eq!(paths(&list, c.candidates(&cr, "v1_ConfigMap_ns_foo", None)), [want]);
    }
}

#[test]
fn first_bucket_wins_without_fallback_and_buckets_keep_order() {
    let ts = vec![
        meta("a", Some("v1"), "ConfigMap", Some("x"), None),
        meta("b", Some("v1"), "ConfigMap", Some("x"), None),
        meta("c", None, "ConfigMap", None, None),
    ];
    let c = Correlator::new(&ts, &[]).unwrap();
    let cr = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
    assert_eq!(paths(&ts, c.candidates(&cr, "v1_ConfigMap_x", None)), ["a", "b"]);
    let other = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "y"}});
    assert_eq!(paths(&ts, c.candidates(&other, "v1_ConfigMap_y", None)), ["c"]);
    // Non-string fields skip a group.
    let odd = json!({"apiVersion": 1, "kind": "Secret"});
    assert!(c.candidates(&odd, "_Secret_", None).is_none());
    assert_eq!(
        c.group().overlap_warnings(&ts.iter().map(|t| t.path.clone()).collect::<Vec<_>>(), false),
        [OVERLAP_SHORT]
    );
    let verbose = c.group().overlap_warnings(&["b".into(), "a".into(), "c".into()], true);
    assert_eq!(
        verbose,
        ["More than one template with same apiVersion, metadata_name, kind. By Default for each Cluster CR that is \
          correlated to one of these templates the template with the least number of diffs will be used. To use a \
          different template for a specific CR specify it in the diff-config (-c flag) Template names are: a, b"]
    );
}

#[test]
fn manual_pairs_come_first_and_unknown_templates_fail() {
    let ts = vec![meta("a", Some("v1"), "ConfigMap", None, None), meta("b", Some("v1"), "Secret", None, None)];
    let c = Correlator::new(&ts, &[("v1_ConfigMap_x".into(), "b".into())]).unwrap();
    let cr = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
    assert_eq!(paths(&ts, c.candidates(&cr, "v1_ConfigMap_x", None)), ["b"]);
    let err = Correlator::new(&ts, &[("v1_ConfigMap_x".into(), "zz.yaml".into())]).err().unwrap();
    assert_eq!(
        err.to_string(),
        "error in template manual matching for resource: v1_ConfigMap_x no template in the name of zz.yaml"
    );
}

#[test]
fn reference_only_matches() {
    let crs = [
        json!({"kind": "Pod", "metadata": {"namespace": "ns", "ownerReferences": [
            {"apiVersion": "example.io/v1", "kind": "Owner", "name": "o"}, {"apiVersion": 1, "kind": "X", "name": "y"}]}}),
        json!({"kind": "RoleBinding", "subjects": [
            {"kind": "ServiceAccount", "name": "sa", "namespace": "ns"}, {"kind": "User", "name": "u"}]}),
    ];
    let idx = ReferenceIndex::new(crs.iter());
    let ts = vec![
        meta("owner-ns.yaml", Some("example.io/v1"), "Owner", Some("o"), Some("ns")),
        meta("owner.yaml", Some("example.io/v1"), "Owner", Some("o"), None),
        meta("sa.yaml", Some("v1"), "ServiceAccount", Some("sa"), Some("ns")),
        meta("user.yaml", Some("v1"), "User", Some("u"), None),
    ];
    assert_eq!(idx.reference_only(&ts), [0, 1, 2]);
}

#[test]
fn override_correlation_uses_declared_order() {
    // (apiVersion, namespace, kind) is declared before (apiVersion, name, kind).
    let os = vec![
        OverrideFields { api_version: "v1".into(), kind: "ConfigMap".into(), name: "foo".into(), ..Default::default() },
        OverrideFields {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            namespace: "ns".into(),
            ..Default::default()
        },
        OverrideFields { exact_match: "v1_ConfigMap_ns_bar".into(), ..Default::default() },
    ];
    let c = OverrideCorrelator::new(&os);
    let cr = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "foo", "namespace": "ns"}});
    assert_eq!(c.candidates(&cr, "v1_ConfigMap_ns_foo"), [1]);
    assert_eq!(c.candidates(&cr, "v1_ConfigMap_ns_bar"), [2]);
    let none = json!({"apiVersion": "v2", "kind": "Secret"});
    assert!(c.candidates(&none, "v2_Secret_").is_empty());
    assert_eq!(
        overrides::go_identifier(&["n", "v1", "K", "", "", "r", "mergepatch", "{}", ""]),
        "{n v1 K   r mergepatch {} }"
    );
}
