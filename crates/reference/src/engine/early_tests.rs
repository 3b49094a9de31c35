//! Comparing CRs as they are decoded ([`Engine::compare_early`], [`Engine::compare_items`])
//! gives what comparing them after collection does ([`Engine::compare_packed`]): over several
//! file batches, with a duplicate id in a later batch, an unmatched CR, and a CR that only the
//! reference indexes of a later file can correlate.

use std::fs;
use std::path::Path;

use super::*;
use crate as reference;
use crate::engine::collect::{self, StdIo};

const METADATA: &str = "apiVersion: v2
parts:
  - name: p
    components:
      - name: apps
        allOf:
          - path: deploy.yaml
          - path: cm.yaml
";

const DEPLOY: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .metadata.name }}
  namespace: apps
spec:
  replicas: 2
";

/// Fixed fields `v1`/`ConfigMap`/`one_two` without a namespace: its metadata id is
/// `v1_ConfigMap_one_two`, which is also the id of a ConfigMap `two` in namespace `one`, a CR that no
/// field group correlates with it; only an ownerReference naming `one_two` links them (§4.5).
const CM: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: one_two
data:
  k: v
";

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn deployment(name: &str, replicas: u32) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: apps\nspec:\n  replicas: {replicas}\n"
    )
}

/// What a comparison says, without the diff texts' temporary paths and times.
fn summary(c: &Comparison) -> Vec<String> {
    let mut out: Vec<String> = c
        .results
        .iter()
        .map(|r| {
            let cr = &c.crs[r.cr];
            let status = match &r.status {
                Status::Compared(w) => {
                    let diff: Vec<&str> = w
                        .outcome
                        .diff_output
                        .lines()
                        .filter(|l| !l.starts_with("diff ") && !l.starts_with("--- ") && !l.starts_with("+++ "))
                        .collect();
                    format!("compared {} differs={} {:?} object={}", w.template, w.outcome.differs, diff, cr.object)
                }
                other => format!("{other:?}"),
            };
            format!("{} {} {} {:?} {:?} {status}", r.cr, cr.id, cr.source, r.via, r.tried)
        })
        .collect();
    out.push(format!("reference only {:?}, counts {:?}, warnings {:?}", c.reference_only, c.match_count, c.warnings));
    out
}

#[test]
fn early_comparison_equals_comparison_after_collection() {
    let reference_dir = tempfile::tempdir().unwrap();
    write(reference_dir.path(), "metadata.yaml", METADATA);
    write(reference_dir.path(), "deploy.yaml", DEPLOY);
    write(reference_dir.path(), "cm.yaml", CM);
    let loaded = reference::load_reference(&reference_dir.path().join("metadata.yaml")).unwrap();
    let compiled = reference::compile::compile_owned(loaded).unwrap();

    let inputs = tempfile::tempdir().unwrap();
    // First in walk order: the CR only an ownerReference of the last file correlates.
    write(
        inputs.path(),
        "a/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n  namespace: one\ndata:\n  k: w\n",
    );
    // More files than one read batch; one in five drifts.
    for i in 0..1100 {
        write(
            inputs.path(),
            &format!("b/d{i:04}.yaml"),
            &deployment(&format!("web-{i}"), if i % 5 == 0 { 3 } else { 2 }),
        );
    }
    // A later batch repeats web-1's id with other content: the first one stays.
    write(inputs.path(), "c/dup.yaml", &deployment("web-1", 7));
    // Unmatched, and the owner of the ConfigMap above.
    write(
        inputs.path(),
        "d/owned.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: one_two\n",
    );
    let roots = vec![inputs.path().display().to_string()];

    for retain in [Retain::DiffOnly, Retain::Full] {
        let options = Options { retain, ..Options::default() };
        let engine = Engine::new(&compiled, Vec::new(), &[], options).unwrap();
        let after = {
            let packed = collect::collect_packed_with(&roots, true, &mut StdIo).unwrap();
            engine.compare_packed(packed.crs, packed.index)
        };
        let early = |cr: &mut Cr| engine.compare_early(cr);
        let items = collect::collect_items_with(&roots, true, &mut StdIo, Some(&early)).unwrap();
        // Everything but the ConfigMap (which waits for the index) was compared early.
        let deferred: Vec<usize> = items.deferred.iter().map(|(at, _)| *at).collect();
        assert_eq!(deferred, [0], "{retain:?}");
        assert_eq!(items.crs.len(), 1 + 1100 + 1);
        let during = engine.compare_items(items);
        let (got, want) = (summary(&during), summary(&after));
        assert_eq!(got.len(), want.len(), "{retain:?}");
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            panic!("{retain:?}: first difference at result {i}:\n got {}\nwant {}", got[i], want[i]);
        }

        // What the summaries hold is what was meant to be tested.
        assert_eq!(during.results.len(), 1 + 1100 + 1);
        let cm = &during.results[0];
        assert_eq!(cm.via, Some(Via::OwnerReference), "{retain:?}");
        assert!(cm.compared().is_some_and(|c| c.outcome.differs));
        let web1 = during.results.iter().find(|r| during.crs[r.cr].id == "apps/v1_Deployment_apps_web-1").unwrap();
        assert!(during.crs[web1.cr].source.ends_with("d0001.yaml"));
        assert!(matches!(during.results.last().unwrap().status, Status::Unmatched));
        let drifted = during.results.iter().filter(|r| r.compared().is_some_and(|c| c.outcome.differs)).count();
        assert_eq!(drifted, 1 + 220);
        assert_eq!(during.crs.iter().all(|c| c.object.is_null()), retain == Retain::DiffOnly);
        // web-2 matches its template: no difference and no diff; its files are written only
        // when they are kept (`Full`), and under `DiffOnly` it holds nothing else.
        let web2 = during.results.iter().find(|r| during.crs[r.cr].id == "apps/v1_Deployment_apps_web-2").unwrap();
        let same = &web2.compared().unwrap().outcome;
        assert!(!same.differs && same.diff_output.is_empty(), "{retain:?}");
        match retain {
            Retain::Full => assert!(!same.merged_yaml.is_empty() && same.merged_yaml == same.live_yaml),
            _ => assert!(same.is_emptied()),
        }
    }
}
