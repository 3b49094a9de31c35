//! What the schema pass adds to `driftlint check` on a 200-file repository with 20 CRDs (the
//! goal: under 30%), and proof that each schema is compiled once per kind per run.
//!
//! Generates in a temp dir 20 CustomResourceDefinitions (`schemas/`, nested objects, arrays,
//! enums, patterns, bounds) and 200 manifest files: half custom resources of those 20 kinds
//! (one in five with a schema problem), half the Deployments, Services and ConfigMaps of
//! `fixtures/bench-reference/`. After two warm-up runs it times, in process:
//!
//! - `drift only`: [`driftlint::check::check`] with the reference (no schemas: the schema pass
//!   does not run);
//! - `drift+schemas`: the same with `--schemas schemas/`;
//! - `schemas only`: no reference, `--schemas schemas/`;
//! - `drift+built-ins`: the reference and `--kubernetes-version` (no CRDs: the schema pass
//!   validates only the built-in kinds, against the bundled schemas);
//!
//! and prints the overhead of the schema pass and of the built-in kinds alone, then loads the
//! schemas and validates every document once more, printing how many schemas were compiled for
//! how many objects. Last, the same CRDs with three CEL rules (`x-kubernetes-validations`) on
//! `spec`: loading and validating with rules, against the figures without.
//!
//! ```text
//! cargo bench --bench schema            # 200 files, 20 CRDs, 15 runs each
//! cargo bench --bench schema -- 1000 5  # 1000 files, 5 runs each
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use driftlint::check;
use driftlint::config::Settings;

const KINDS: usize = 20;

mod common;

use common::{ms, time};

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let files = args.first().copied().unwrap_or(200);
    let runs = args.get(1).copied().unwrap_or(15).max(1);
    let dir = tempfile::tempdir().expect("a temp dir");
    let schemas = dir.path().join("schemas");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&schemas).expect("a directory");
    std::fs::create_dir_all(&repo).expect("a directory");
    for k in 0..KINDS {
        std::fs::write(schemas.join(format!("crd-{k}.yaml")), crd(k)).expect("a file");
    }
    let objects = generate(&repo, files);
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench-reference");
    let base = Settings {
        reference: Some(driftlint_reference::Location::Path(reference)),
        paths: vec![repo.clone()],
        exclude_root: repo.clone(),
        ..Settings::default()
    };
    let with_schemas = Settings { schemas: vec![schemas.display().to_string()], ..base.clone() };
    let schemas_only = Settings { reference: None, ..with_schemas.clone() };
    let builtins = Settings { kubernetes_version: Some(driftlint_kube_schemas::default_version()), ..base.clone() };

    let mut counts = Vec::new();
    let mut timed = |settings: &Settings| {
        let mut n = 0;
        let t = time(runs, || n = check::check(settings).expect("the check runs").diagnostics.len());
        counts.push(n);
        t
    };
    let drift = timed(&base);
    let both = timed(&with_schemas);
    let alone = timed(&schemas_only);
    let kube = timed(&builtins);
    println!("{files} files, {objects} objects, {KINDS} CRDs, {runs} runs; findings: {counts:?}");
    for (name, t) in
        [("drift only", drift), ("drift+schemas", both), ("schemas only", alone), ("drift+built-ins", kube)]
    {
        println!("{name:>15}: min {:7.2} ms, median {:7.2} ms", ms(t.0), ms(t.1));
    }
    let overhead = (both.1.as_secs_f64() / drift.1.as_secs_f64() - 1.0) * 100.0;
    println!("schema pass overhead (medians): {overhead:+.1}%");
    let overhead = (kube.1.as_secs_f64() / drift.1.as_secs_f64() - 1.0) * 100.0;
    println!("built-in kinds alone (medians): {overhead:+.1}%");

    // Compiled once per kind: one load, every document validated.
    let collected = driftlint_core::input::load_sources(&[repo], &driftlint_core::input::WalkOptions::default());
    let coll = driftlint_core::document::collect(collected.sources, &driftlint_core::document::Options::default());
    let loaded = driftlint_schema::load::load(&[schemas.display().to_string()], &PathBuf::from("."), &coll)
        .expect("schemas load");
    let found = driftlint_schema::pass::run(&coll, &loaded.registry, driftlint_schema::Mode::Loose);
    println!(
        "{} schemas compiled for {} documents ({} findings)",
        loaded.registry.compilations(),
        coll.documents.len(),
        found.len()
    );
    assert_eq!(loaded.registry.compilations(), KINDS, "one compilation per kind");
    let load = time(runs, || {
        let l = driftlint_schema::load::load(&[schemas.display().to_string()], &PathBuf::from("."), &coll);
        std::hint::black_box(l.expect("schemas load"));
    });
    let validate = time(runs, || {
        std::hint::black_box(driftlint_schema::pass::run(&coll, &loaded.registry, driftlint_schema::Mode::Loose));
    });
    let read = time(runs, || {
        let c = driftlint_core::input::load_sources(
            std::slice::from_ref(&schemas),
            &driftlint_core::input::WalkOptions::default(),
        );
        std::hint::black_box(c);
    });
    let texts: Vec<String> = (0..KINDS).map(crd).collect();
    let parse = time(runs, || {
        for t in &texts {
            std::hint::black_box(driftlint_yaml::parse_stream(t));
        }
    });
    for (name, t) in
        [("load+compile", load), ("  of it: read", read), ("  of it: parse", parse), ("validate", validate)]
    {
        println!("{name:>14}: min {:7.2} ms, median {:7.2} ms", ms(t.0), ms(t.1));
    }

    // The same kinds with CEL rules.
    let cel = dir.path().join("schemas-cel");
    std::fs::create_dir_all(&cel).expect("a directory");
    for k in 0..KINDS {
        std::fs::write(cel.join(format!("crd-{k}.yaml")), crd_with_rules(k)).expect("a file");
    }
    let cel_arg = [cel.display().to_string()];
    let cel_loaded = driftlint_schema::load::load(&cel_arg, &PathBuf::from("."), &coll).expect("schemas load");
    let cel_found = driftlint_schema::pass::run(&coll, &cel_loaded.registry, driftlint_schema::Mode::Loose);
    let cel_load = time(runs, || {
        std::hint::black_box(driftlint_schema::load::load(&cel_arg, &PathBuf::from("."), &coll).expect("load"));
    });
    let cel_validate = time(runs, || {
        std::hint::black_box(driftlint_schema::pass::run(&coll, &cel_loaded.registry, driftlint_schema::Mode::Loose));
    });
    let custom = coll.documents.iter().filter(|d| d.identity.kind.starts_with("Widget")).count();
    println!("with 3 CEL rules per CRD ({custom} objects of those kinds, {} findings):", cel_found.len());
    for (name, t) in [("load+compile", cel_load), ("validate", cel_validate)] {
        println!("{name:>14}: min {:7.2} ms, median {:7.2} ms", ms(t.0), ms(t.1));
    }
    let per_rule = (cel_validate.0.as_secs_f64() - validate.0.as_secs_f64()).max(0.0) / (custom * 3).max(1) as f64;
    println!("CEL cost (minimums): {:.2} µs per object-rule", per_rule * 1e6);
}

/// [`crd`] with three rules on `spec`: upjet's shape, a cross-field rule, a list rule.
fn crd_with_rules(k: usize) -> String {
    let rules = "              x-kubernetes-validations:\n                - rule: \"!('*' in ['*']) || has(self.region) || has(self.extra)\"\n                  message: region is a required parameter\n                - rule: self.size <= 50 || self.tier == 'large'\n                  message: sizes above 50 need tier large\n                - rule: \"!has(self.ports) || self.ports.all(p, p.port > 0 && p.port < 65536)\"\n";
    crd(k).replacen(
        "              required: [size, region]\n",
        &format!("              required: [size, region]\n{rules}"),
        1,
    )
}

/// The CRD of kind `k`: `Widget{k}` in `bench.example.org`.
fn crd(k: usize) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widget{k}s.bench.example.org\nspec:\n  group: bench.example.org\n  names: {{kind: Widget{k}, plural: widget{k}s}}\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          required: [spec]\n          properties:\n            apiVersion: {{type: string}}\n            kind: {{type: string}}\n            metadata: {{type: object}}\n            spec:\n              type: object\n              required: [size, region]\n              properties:\n                size: {{type: integer, minimum: 1, maximum: 100}}\n                region: {{type: string, pattern: '^[a-z]+-[a-z]+-[0-9]$'}}\n                tier: {{type: string, enum: [small, medium, large], default: small}}\n                labels: {{type: object, additionalProperties: {{type: string}}}}\n                ports:\n                  type: array\n                  maxItems: 8\n                  items:\n                    type: object\n                    required: [port]\n                    properties:\n                      name: {{type: string}}\n                      port: {{type: integer}}\n                      protocol: {{type: string, enum: [TCP, UDP]}}\n                extra: {{type: object, x-kubernetes-preserve-unknown-fields: true}}\n            status:\n              type: object\n              properties:\n                ready: {{type: boolean}}\n"
    )
}

/// Writes `files` manifests; returns the number of objects.
fn generate(dir: &Path, files: usize) -> usize {
    for f in 0..files {
        let mut s = format!("# generated manifest {f}\n");
        if f % 2 == 0 {
            let k = (f / 2) % KINDS;
            let bad = f % 10 == 0;
            let size = if bad { "500" } else { "10" };
            let _ = write!(
                s,
                "apiVersion: bench.example.org/v1\nkind: Widget{k}\nmetadata:\n  name: w-{f}\n  namespace: team-{}\nspec:\n  size: {size}\n  region: eu-west-1\n  labels:\n    team: t{f}\n  ports:\n    - name: http\n      port: 80\n      protocol: TCP\n    - name: https\n      port: 443\n  extra:\n    anything: [1, 2, 3]\n",
                f % 7
            );
        } else {
            let _ = write!(
                s,
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{f}\n  namespace: team-{}\ndata:\n  log-level: info\n  endpoint: https://api-{f}.example.com/api\n  feature-flags: \"a,b,c\"\n",
                f % 7
            );
        }
        std::fs::write(dir.join(format!("object-{f}.yaml")), s).expect("a file");
    }
    files
}
