//! A CRD-heavy Crossplane repository: a provider's worth of upjet-shaped
//! CustomResourceDefinitions (2,300 by default, ~25 KB each, ~58 MB in all; shaped like
//! provider-upjet-aws's `package/crds`) given with `--schemas`, and a platform repository of
//! one XRD and one Pipeline Composition composing ten of those kinds. The goal: the whole
//! check in ≤ 0.6 s and ≤ 150 MB, although only ten of the CRDs are ever used. Two layouts:
//! one file per CRD (`crds/`), and ONE file bundling them all (`crds-bundle/all.yaml`).
//!
//! Times [`driftlint::check::check`] in process for each layout and prints the process's peak
//! RSS (VmHWM, over both). With `--write DIR` it only writes the trees, for measuring the
//! binary. Measured on the shared 2-core machine (load about 6): before the schema files were
//! filtered by the kinds the inputs name, 1,500 ms and 271 MB in process (the binary: 1.9 s,
//! 254 MB); after, 67–96 ms and 75 MB (the binary: 0.33 s, 78 MB). Real provider-upjet-aws
//! CRDs (2,065 files, 102 MB) with configuration-aws-network v0.9.0: 4.2 s / 337 MB before,
//! 0.24–0.33 s / 122 MB after. That filter was per file and only above 16 MiB: the bundle
//! was parsed and compiled whole. Since each document's header is indexed and only used
//! kinds' documents are parsed at every size (`schema::index`), the binary over the tree of
//! 2,345 CRDs (59 MB; `--write`, then `/usr/bin/time -f "%e s %M KB"`, release, load about
//! 4.5): one file per CRD 0.14–0.23 s / 83 MB before, 0.19 s / 83 MB after; ONE bundled file
//! 3.0–3.2 s / 793 MB before, 0.14–0.15 s / 77 MB after.
//!
//! ```text
//! cargo bench --bench crds                  # 2300 CRDs, 3 runs
//! cargo bench --bench crds -- 500 5         # 500 CRDs, 5 runs
//! cargo bench --bench crds -- --write /tmp/crds-tree
//! /usr/bin/time -v target/release/driftlint check --isolated --schemas /tmp/crds-tree/crds /tmp/crds-tree/platform
//! /usr/bin/time -v target/release/driftlint check --isolated --schemas /tmp/crds-tree/crds-bundle /tmp/crds-tree/platform
//! ```

use std::fmt::Write as _;
use std::path::Path;

use driftlint::check;
use driftlint::config::Settings;

mod common;

use common::{ms, time};

/// Kinds the Composition composes.
const USED: usize = 10;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let numbers: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let crds = numbers.first().copied().unwrap_or(2300).max(USED);
    let runs = numbers.get(1).copied().unwrap_or(3).max(1);
    let write_to = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1));
    let temp = tempfile::tempdir().expect("a temp dir");
    let root = write_to.map_or_else(|| temp.path().to_path_buf(), std::path::PathBuf::from);
    let bytes = generate(&root, crds);
    println!("{crds} CRDs, {:.1} MB, at {}", bytes as f64 / 1e6, root.display());
    if write_to.is_some() {
        return;
    }
    for (layout, dir) in [("one file per CRD", "crds"), ("one bundled file", "crds-bundle")] {
        let settings = Settings {
            paths: vec![root.join("platform")],
            exclude_root: root.join("platform"),
            schemas: vec![root.join(dir).display().to_string()],
            ..Settings::default()
        };
        let mut findings = 0;
        let t = time(runs, || findings = check::check(&settings).expect("the check runs").diagnostics.len());
        println!(
            "check, {layout:>16}: min {:8.1} ms, median {:8.1} ms ({findings} findings, the one seeded expected)",
            ms(t.0),
            ms(t.1)
        );
    }
    if let Ok(status) = std::fs::read_to_string("/proc/self/status")
        && let Some(line) = status.lines().find(|l| l.starts_with("VmHWM"))
    {
        println!("peak RSS: {}", line.trim_start_matches("VmHWM:").trim());
    }
}

/// Writes `crds/`, `crds-bundle/all.yaml` (the same CRDs in one file) and `platform/` under
/// `root`; the bytes of CRDs written (once).
fn generate(root: &Path, crds: usize) -> usize {
    let dir = root.join("crds");
    std::fs::create_dir_all(&dir).expect("a directory");
    let mut bundle = String::new();
    for k in 0..crds {
        let text = crd(k);
        bundle.push_str(&text);
        std::fs::write(dir.join(format!("service{}.aws.example.io_thing{k}s.yaml", k % 40)), text).expect("a file");
    }
    std::fs::create_dir_all(root.join("crds-bundle")).expect("a directory");
    std::fs::write(root.join("crds-bundle/all.yaml"), &bundle).expect("a file");
    let bytes = bundle.len();
    drop(bundle);
    let platform = root.join("platform");
    std::fs::create_dir_all(&platform).expect("a directory");
    std::fs::write(platform.join("definition.yaml"), XRD).expect("a file");
    let mut c = String::from(COMPOSITION_HEAD);
    for u in 0..USED {
        let k = u * (crds / USED);
        let _ = write!(
            c,
            "          - name: thing{k}\n            base:\n              apiVersion: service{}.aws.example.io/v1beta1\n              kind: Thing{k}\n              spec:\n                forProvider: {{field0: a}}\n            patches:\n              - type: PatchSet\n                patchSetName: common\n              - fromFieldPath: spec.parameters.size\n                toFieldPath: spec.forProvider.{}\n",
            k % 40,
            // One seeded error: a field the CRD does not have.
            if u == 0 { "nope" } else { "count0" }
        );
    }
    std::fs::write(platform.join("composition.yaml"), c).expect("a file");
    bytes
}

const XRD: &str = "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: xplatforms.platform.example.org\nspec:\n  group: platform.example.org\n  names: {kind: XPlatform, plural: xplatforms}\n  versions:\n    - name: v1alpha1\n      served: true\n      referenceable: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              required: [parameters]\n              properties:\n                parameters:\n                  type: object\n                  required: [region, size]\n                  properties:\n                    region: {type: string}\n                    size: {type: integer}\n";

const COMPOSITION_HEAD: &str = "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xplatforms\nspec:\n  compositeTypeRef: {apiVersion: platform.example.org/v1alpha1, kind: XPlatform}\n  mode: Pipeline\n  pipeline:\n    - step: patch-and-transform\n      functionRef: {name: function-patch-and-transform}\n      input:\n        apiVersion: pt.fn.crossplane.io/v1beta1\n        kind: Resources\n        patchSets:\n          - name: common\n            patches:\n              - fromFieldPath: spec.parameters.region\n                toFieldPath: spec.forProvider.region\n        resources:\n";

/// An upjet-shaped CRD of kind `Thing{k}`: `forProvider`, `initProvider` and `atProvider` of
/// 40 described fields each, and the managed resource's standard fields.
fn crd(k: usize) -> String {
    // An object property `name` at `indent` spaces with region, tags and the 40 fields.
    let block = |name: &str, indent: usize, required: &str| {
        let p = " ".repeat(indent);
        let mut s = format!(
            "{p}{name}:\n{p}  type: object\n{required}{p}  properties:\n{p}    region:\n{p}      description: Region is the region you'd like your resource to be created in.\n{p}      type: string\n{p}    tags:\n{p}      additionalProperties: {{type: string}}\n{p}      type: object\n"
        );
        for f in 0..40 {
            let (ty, field) = match f % 4 {
                0 => ("string", format!("field{}", f / 4)),
                1 => ("number", format!("count{}", f / 4)),
                2 => ("boolean", format!("enabled{}", f / 4)),
                _ => ("string", format!("name{}", f / 4)),
            };
            let _ = write!(
                s,
                "{p}    {field}:\n{p}      description: The {field} of the thing, as the provider's API documents it; changing it replaces the resource.\n{p}      type: {ty}\n"
            );
        }
        s
    };
    format!(
        "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  annotations:\n    controller-gen.kubebuilder.io/version: v0.16.3\n  name: thing{k}s.service{g}.aws.example.io\nspec:\n  group: service{g}.aws.example.io\n  names:\n    categories: [crossplane, managed, aws]\n    kind: Thing{k}\n    listKind: Thing{k}List\n    plural: thing{k}s\n    singular: thing{k}\n  scope: Cluster\n  versions:\n  - name: v1beta1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        description: Thing{k} is the Schema for the Thing{k}s API.\n        type: object\n        properties:\n          apiVersion: {{type: string}}\n          kind: {{type: string}}\n          metadata: {{type: object}}\n          spec:\n            type: object\n            required: [forProvider]\n            properties:\n              deletionPolicy:\n                default: Delete\n                enum: [Orphan, Delete]\n                type: string\n              providerConfigRef:\n                default: {{name: default}}\n                type: object\n                required: [name]\n                properties:\n                  name: {{type: string}}\n              writeConnectionSecretToRef:\n                type: object\n                required: [name, namespace]\n                properties:\n                  name: {{type: string}}\n                  namespace: {{type: string}}\n{fp}{ip}          status:\n            type: object\n            properties:\n{ap}",
        g = k % 40,
        fp = block("forProvider", 14, "                required: [region]\n"),
        ip = block("initProvider", 14, ""),
        ap = block("atProvider", 14, ""),
    )
}
