//! The [`View`] changes nothing: every scheduling of the engine gives what kube-compare's own
//! loop ([`Parallelism::Exact`]: every CR in the lookup list, in input order, refreshed after
//! every candidate) gives — over references that use `lookupCR(s)` in the ways that make the
//! order matter (a `set` on a looked-up map, a looked-up CR compared before and after the CRs
//! that read it, its omission, wildcards, a computed apiVersion that needs every CR), and over
//! the kube-compare corpus. The schedules: [`Engine::compare`] in parallel and sequentially,
//! [`Engine::compare_packed`], the early comparison while collecting
//! ([`Engine::compare_items`]), and `check`'s batches compared apart
//! ([`Engine::compare_batch_independent`], then [`Engine::compare_pending`] in input order
//! with a view built beforehand).

use std::fs;
use std::path::Path;

use super::*;
use crate as reference;
use crate::engine::collect::{self, StdIo};

// The one rule for finding the corpora (`$SHARED`); config's tests include it too.
#[allow(clippy::duplicate_mod)]
fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// Everything a comparison says, the winners' rendered and live texts included.
fn summary(c: &Comparison) -> Vec<String> {
    let mut out: Vec<String> = c
        .results
        .iter()
        .map(|r| {
            let cr = &c.crs[r.cr];
            let status = match &r.status {
                Status::Compared(w) => format!(
                    "compared {} differs={} merged={:?} live={:?} object={}",
                    w.template, w.outcome.differs, w.outcome.merged_yaml, w.outcome.live_yaml, cr.object
                ),
                other => format!("{other:?}"),
            };
            format!("{} {} {:?} {:?} {:?} {status}", r.cr, cr.id, r.via, r.tried, r.overrides)
        })
        .collect();
    out.push(format!("reference only {:?}, counts {:?}, warnings {:?}", c.reference_only, c.match_count, c.warnings));
    out
}

fn same(what: &str, got: &Comparison, want: &Comparison) -> Result<(), String> {
    let (got, want) = (summary(got), summary(want));
    if got.len() != want.len() {
        return Err(format!("{what}: {} results, want {}", got.len(), want.len()));
    }
    match (0..got.len()).find(|&i| got[i] != want[i]) {
        Some(i) => Err(format!("{what}: first difference at {i}:\n got {}\nwant {}", got[i], want[i])),
        None => Ok(()),
    }
}

/// Every schedule against the oracle, for the CRs under `roots`; `Err` names the first
/// difference. Returns the oracle's comparison.
fn all_schedules_agree(
    compiled: &Compiled,
    overrides: &[UserOverride],
    pairs: &[(String, String)],
    roots: &[String],
    recursive: bool,
) -> Result<Comparison, String> {
    let engine = |parallelism| {
        let options = Options { parallelism, retain: Retain::Full, ..Options::default() };
        Engine::new(compiled, overrides.to_vec(), pairs, options).map_err(|e| e.to_string())
    };
    let collected = collect::collect_crs_with(roots, recursive, &mut StdIo).map_err(|e| e.to_string())?;
    let exact = engine(Parallelism::Exact)?.compare(collected.crs.clone());
    for parallelism in [Parallelism::Auto, Parallelism::Sequential] {
        let e = engine(parallelism)?;
        same(&format!("compare {parallelism:?}"), &e.compare(collected.crs.clone()), &exact)?;
        let packed = collect::collect_packed_with(roots, recursive, &mut StdIo).map_err(|e| e.to_string())?;
        same(&format!("packed {parallelism:?}"), &e.compare_packed(packed.crs, packed.index), &exact)?;
    }
    let auto = engine(Parallelism::Auto)?;
    let early = |cr: &mut Cr| auto.compare_early(cr);
    let items = collect::collect_items_with(roots, recursive, &mut StdIo, Some(&early)).map_err(|e| e.to_string())?;
    same("early", &auto.compare_items(items), &exact)?;
    // check: batches of two compared apart (in parallel and not), then in order.
    let index = ReferenceIndex::new(collected.crs.iter().map(|c| &c.object));
    for parallel in [false, true] {
        let mut view = auto.view_with_objects(collected.crs.iter().map(|c| &c.object));
        let mut crs = Vec::new();
        let mut results = Vec::new();
        for chunk in collected.crs.chunks(2) {
            let mut c = auto.compare_batch_independent(chunk.to_vec(), &index, parallel);
            auto.compare_pending(&mut c, &mut view);
            for mut r in c.results {
                r.cr += crs.len();
                results.push(r);
            }
            crs.extend(c.crs);
        }
        let mut batched = auto.finish(crs, results, Vec::new());
        batched.reference_only = index.reference_only(&auto.metas);
        batched.match_count = exact.match_count.clone();
        same(&format!("batches parallel={parallel}"), &batched, &exact)?;
        let mut counts = vec![0usize; compiled.templates.len()];
        for r in &batched.results {
            if let Some(c) = r.compared() {
                counts[c.template] += 1;
            }
        }
        for &i in &batched.reference_only {
            counts[i] += 1;
        }
        if counts != exact.match_count {
            return Err(format!("batches parallel={parallel}: counts {counts:?}, want {:?}", exact.match_count));
        }
    }
    Ok(exact)
}

const METADATA: &str = "apiVersion: v2
parts:
  - name: p
    components:
      - name: c
        allOf:
          - path: infra.yaml
          - path: cm.yaml
          - path: marker.yaml
          - path: plain.yaml
";

/// The cluster singleton: compared too (it is a member and its own omission changes it).
const INFRA: &str = "apiVersion: config.openshift.io/v1
kind: Infrastructure
metadata:
  name: cluster
status:
  platform: {{ .status.platform }}
";

/// Reads the singleton (as omitted so far, and as marked by `marker.yaml`'s `set`), and every
/// ConfigMap of its namespace with wildcards: ConfigMaps before it are seen omitted, those
/// after it not yet.
const CM: &str = r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .metadata.name }}
  namespace: {{ .metadata.namespace }}
data:
  platform: {{ (lookupCR "config.openshift.io/v1" "Infrastructure" "" "cluster").status.platform }}
  marked: {{ (lookupCR "config.openshift.io/v1" "Infrastructure" "*" "cluster").metadata.marked | default "none" }}
  version: {{ (lookupCR "config.openshift.io/v1" "Infrastructure" "" "cluster").metadata.resourceVersion | default "omitted" }}
  peers: {{ len (lookupCRs "v1" "ConfigMap" (default "" .metadata.namespace) "*") }}
  labelled: {{ range (lookupCRs "v1" "ConfigMap" "" "") }}{{ if .metadata.labels }}{{ .metadata.name }},{{ end }}{{ end }}
"#;

/// A `set` on the looked-up singleton: later lookups see the mark.
const MARKER: &str = r#"apiVersion: v1
kind: Secret
metadata:
  name: {{ .metadata.name }}
  namespace: {{ .metadata.namespace }}
{{- $i := lookupCR "config.openshift.io/v1" "Infrastructure" "" "cluster" }}
{{- if $i.metadata }}{{ $_ := set $i.metadata "marked" "set" }}{{ end }}
type: Opaque
"#;

/// No lookups: compared independently.
const PLAIN: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .metadata.name }}
  namespace: apps
spec:
  replicas: 2
";

fn reference_dir(metadata: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "metadata.yaml", metadata);
    for (name, text) in files {
        write(dir.path(), name, text);
    }
    dir
}

fn compile(dir: &Path) -> Compiled {
    let loaded = reference::load_reference(&dir.join("metadata.yaml")).unwrap();
    reference::compile::compile_owned(loaded).unwrap()
}

fn cm(name: &str, labelled: bool) -> String {
    let labels = if labelled { "  labels:\n    tier: web\n" } else { "" };
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: apps\n{labels}  resourceVersion: \"7\"\ndata:\n  platform: BareMetal\n  marked: yes\n  peers: 4\n  labelled: x\n"
    )
}

/// CRs around the singleton: ConfigMaps before and after it, the marker in the middle,
/// Deployments between; the singleton carries a field omitted by default (its refresh shows).
fn inputs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/cm-1.yaml", &cm("cm-1", true));
    for i in 0..5 {
        write(
            dir.path(),
            &format!("b/d{i}.yaml"),
            &format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{i}\n  namespace: apps\nspec:\n  replicas: {}\n",
                2 + i % 2
            ),
        );
    }
    write(dir.path(), "c/cm-2.yaml", &cm("cm-2", false));
    write(
        dir.path(),
        "d/infra.yaml",
        "apiVersion: config.openshift.io/v1\nkind: Infrastructure\nmetadata:\n  name: cluster\n  resourceVersion: \"42\"\n  labels:\n    x: y\nstatus:\n  platform: BareMetal\n",
    );
    write(dir.path(), "e/cm-3.yaml", &cm("cm-3", true));
    write(
        dir.path(),
        "f/marker.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: m\n  namespace: apps\ntype: Opaque\n",
    );
    write(dir.path(), "g/cm-4.yaml", &cm("cm-4", false));
    write(
        dir.path(),
        "h/d9.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-9\n  namespace: apps\nspec:\n  replicas: 2\n",
    );
    dir
}

#[test]
fn lookups_from_the_view_equal_kube_compares_loop() {
    let reference = reference_dir(
        METADATA,
        &[("infra.yaml", INFRA), ("cm.yaml", CM), ("marker.yaml", MARKER), ("plain.yaml", PLAIN)],
    );
    let compiled = compile(reference.path());
    let inputs = inputs();
    let roots = vec![inputs.path().display().to_string()];
    let exact = all_schedules_agree(&compiled, &[], &[], &roots, true).unwrap();

    // The view holds the kinds the calls name, and only the CRs they connect wait.
    let engine = Engine::new(&compiled, Vec::new(), &[], Options::default()).unwrap();
    assert!(engine.uses_lookups());
    let kinds = engine.lookups.kinds.clone().unwrap();
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    let crs = collect::collect_crs(&roots, true).unwrap().crs;
    let members = crs.iter().filter(|c| engine.in_view(&c.object)).count();
    assert_eq!(members, 5, "four ConfigMaps and the Infrastructure");
    let pending = engine.compare_batch_independent(crs.clone(), &ReferenceIndex::default(), false).pending;
    assert_eq!(pending.len(), 6, "the members and the marker: {pending:?}");

    // What was meant to be tested happened: the order shows in the rendered texts.
    let rendered = |name: &str| {
        exact
            .compared()
            .find(|(cr, _, _)| cr.id.ends_with(name))
            .map(|(_, _, c)| c.outcome.merged_yaml.clone())
            .unwrap()
    };
    assert!(rendered("cm-1").contains("marked: none"), "{}", rendered("cm-1"));
    assert!(rendered("cm-4").contains("marked: set"), "{}", rendered("cm-4"));
    assert!(rendered("cm-1").contains("platform: BareMetal"), "{}", rendered("cm-1"));
    // The singleton's omission (§10 #9): seen before it is compared, not after.
    assert!(rendered("cm-2").contains("version: 42"), "{}", rendered("cm-2"));
    assert!(rendered("cm-3").contains("version: omitted"), "{}", rendered("cm-3"));
}

#[test]
fn a_computed_kind_falls_back_to_every_cr() {
    let dynamic = r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .metadata.name }}
  namespace: {{ .metadata.namespace }}
data:
  platform: {{ (lookupCR (printf "%s/v1" "config.openshift.io") "Infrastructure" "" "cluster").status.platform }}
  marked: {{ (lookupCR "config.openshift.io/v1" "Infrastructure" "" "cluster").metadata.marked | default "none" }}
  peers: {{ len (lookupCRs "apps/v1" "Deployment" "*" "") }}
"#;
    let reference = reference_dir(
        METADATA,
        &[("infra.yaml", INFRA), ("cm.yaml", dynamic), ("marker.yaml", MARKER), ("plain.yaml", PLAIN)],
    );
    let compiled = compile(reference.path());
    let inputs = inputs();
    let roots = vec![inputs.path().display().to_string()];
    all_schedules_agree(&compiled, &[], &[], &roots, true).unwrap();
    let engine = Engine::new(&compiled, Vec::new(), &[], Options::default()).unwrap();
    assert!(engine.lookups.kinds.is_none());
    let crs = collect::collect_crs(&roots, true).unwrap().crs;
    assert!(crs.iter().all(|c| engine.in_view(&c.object)));
}

#[test]
fn without_a_call_nothing_waits() {
    // A mention in text is no call: every CR is independent.
    let plain =
        "# lookupCR is not called here\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .metadata.name }}\n";
    let reference = reference_dir(
        METADATA,
        &[("infra.yaml", INFRA), ("cm.yaml", plain), ("marker.yaml", PLAIN), ("plain.yaml", PLAIN)],
    );
    let compiled = compile(reference.path());
    let engine = Engine::new(&compiled, Vec::new(), &[], Options::default()).unwrap();
    assert!(!engine.uses_lookups());
    let inputs = inputs();
    all_schedules_agree(&compiled, &[], &[], &[inputs.path().display().to_string()], true).unwrap();
}

/// The kube-compare corpus: every case whose inputs collect, with its diff config and
/// overrides, gives the same comparison in every schedule as kube-compare's loop.
#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn corpus_schedules_equal_kube_compares_loop() {
    let Some(root) = driftlint_test_support::corpus("corpus_schedules_equal_kube_compares_loop", "kube-compare") else {
        return;
    };
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut names: Vec<_> = fs::read_dir(&root).unwrap().filter_map(Result::ok).map(|e| e.path()).collect();
    names.sort();
    for dir in names.into_iter().filter(|d| d.join("case.yaml").is_file()) {
        let text = fs::read_to_string(dir.join("case.yaml")).unwrap();
        let meta = driftlint_yaml::parse_stream(&text).documents[0].root.to_json();
        let s = |k: &str| meta.get(k).and_then(serde_json::Value::as_str).map(|v| dir.join(v));
        let Some(Ok(loaded)) = s("reference").map(|r| reference::load_reference(&r)) else { continue };
        let Ok(compiled) = reference::compile::compile_owned(loaded) else { continue };
        let overrides = match s("overrides") {
            Some(p) => match crate::compare::load_overrides(&p) {
                Ok(o) => o,
                Err(_) => continue,
            },
            None => Vec::new(),
        };
        let pairs: Vec<(String, String)> = match s("diffConfig") {
            Some(p) => match reference::userconfig::load_user_config(&p) {
                Ok(c) => c.correlation_pairs.into_iter().map(|p| (p.cr_id, p.template)).collect(),
                Err(_) => continue,
            },
            None => Vec::new(),
        };
        let roots: Vec<String> = meta
            .get("inputs")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(serde_json::Value::as_str)
            .filter(|i| *i != "-" && !i.starts_with("http"))
            .map(|i| dir.join(i).display().to_string())
            .collect();
        if roots.is_empty() {
            continue;
        }
        let recursive = meta.get("recursive").and_then(serde_json::Value::as_bool).unwrap_or(false);
        if collect::collect_crs(&roots, recursive).is_err() {
            continue;
        }
        match all_schedules_agree(&compiled, &overrides, &pairs, &roots, recursive) {
            Ok(_) => checked += 1,
            Err(e) if e.contains("first difference") || e.contains("results") || e.contains("counts") => {
                failures.push(format!("{}: {e}", dir.display()));
            }
            // Manual correlation errors (§2.8) and the like: kube-compare's run stops first.
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    driftlint_test_support::assert_min_cases("kube-compare cases compared in every schedule", checked, 60);
}
