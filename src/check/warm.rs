//! What a check prepares before it reads a document, made once and lent to many checks of one
//! configuration ([`super::check_sources_warm`]; `driftlint lsp` keeps one per workspace and
//! checks a buffer on each pause in typing): the reference opened and compiled (with its own
//! problems and the lock's verdict), the schema registry (the configured schemas and the
//! CRDs/XRDs of the repository's manifests, each compiled once, built-in kinds compiled on
//! first use and kept), the trusted admission policies, and the Rego policies compiled.
//!
//! A check on a [`Warm`] finds what [`super::check_sources`] finds on the same sources as long
//! as the files the state was made of are unchanged: its holder makes it again when one
//! changes (the server, on the editor's watched-file events). A check whose sources define a
//! schema the state was not made with builds its registry afresh, as a cold check does.

use std::collections::HashSet;
use std::ops::Range;
use std::path::PathBuf;

use driftlint_core::diagnostic::Diagnostic;
use driftlint_core::document;
use driftlint_core::input::{Source, SourcePath};
use driftlint_core::locate::Files;

use super::{CheckError, drift, may_hold_definition, schema_setup};
use crate::config::Settings;

/// The prepared passes of one configuration (see the module's header).
pub struct Warm {
    /// The reference's directory (never read as manifests).
    pub(super) reference_dir: Option<PathBuf>,
    /// The reference compiled (`None` without a reference).
    pub(super) prepared: Option<drift::Prepared>,
    /// What preparing the reference found: its problems, the lock's, the pin.
    found: Option<(Vec<Diagnostic>, Option<driftlint_reference::Pinned>)>,
    /// The registry and mode, when the schema passes run.
    pub(super) registry: Option<(driftlint_schema::Registry, driftlint_schema::Mode)>,
    /// What loading the schemas found.
    pub(super) schema_diagnostics: Vec<Diagnostic>,
    /// The files whose definitions the registry holds: a check's source among them adds none.
    definitions: HashSet<SourcePath>,
    /// ValidatingAdmissionPolicies and bindings of the configured schema locations.
    pub(super) trusted_admission: Vec<(serde_json::Value, SourcePath, Range<usize>)>,
    /// The policies compiled, never run: each check takes a fresh copy.
    policy: Option<driftlint_policy::conftest::Pass>,
    /// The texts preparing read that findings point into (the reference's files, schema
    /// files, policies): given to each check's report as a cold check reads them.
    presets: Vec<Source>,
}

impl Warm {
    /// Prepares the passes of `settings`, the repository's CRDs and XRDs read from
    /// `definitions` (manifests as the check reads them; those that hold none are passed over).
    pub fn prepare(settings: &Settings, definitions: &[Source]) -> Result<Warm, CheckError> {
        let mut files = Files::default();
        let opened = match &settings.reference {
            Some(location) => Some(drift::open_reference(location, &settings.git_start)?),
            None => None,
        };
        let reference_dir = opened.as_ref().and_then(|o| o.work_dir.as_deref()).and_then(super::absolute);
        let (prepared, found) = match (&settings.reference, opened) {
            (Some(location), Some(opened)) => {
                let (prepared, found) = drift::prepare(settings, location, opened, &mut files)?;
                (Some(prepared), Some((found.diagnostics, found.pinned)))
            }
            _ => (None, None),
        };
        // Every configured schema, whichever kinds the buffers name as they are typed.
        let mut trusted = driftlint_schema::load::load_trusted(&settings.schemas, &settings.git_start, None)?;
        let trusted_admission = std::mem::take(&mut trusted.admission);
        let sources: Vec<Source> = definitions.iter().filter(|s| may_hold_definition(&s.text)).cloned().collect();
        let options = document::Options { origin_root: settings.origin_root.clone(), ..document::Options::default() };
        let coll = document::collect(sources, &options);
        let definitions = coll
            .documents
            .iter()
            .filter(|d| driftlint_schema::defines_schemas(&d.node))
            .map(|d| coll.sources[d.source].path.clone())
            .collect();
        let schemas = schema_setup(settings, trusted, &coll, &mut files)?;
        let policy = match settings.policy.has_work() {
            true => Some(driftlint_policy::conftest::Pass::prepare(&settings.policy, &settings.git_start, &mut files)?),
            false => None,
        };
        Ok(Warm {
            reference_dir,
            prepared,
            found,
            registry: schemas.registry,
            schema_diagnostics: schemas.diagnostics,
            definitions,
            trusted_admission,
            policy,
            presets: files.into_sources(),
        })
    }

    /// The engine comparing objects with the compiled reference (`None` without one).
    pub fn engine(&self) -> Result<Option<driftlint_reference::engine::Engine<'_>>, CheckError> {
        match &self.prepared {
            Some(p) => p.engine(),
            None => Ok(None),
        }
    }

    /// What preparing the reference found, for one check's drift pass.
    pub(super) fn found(&self) -> Option<drift::Drift> {
        self.found.as_ref().map(|(diagnostics, pinned)| drift::Drift {
            diagnostics: diagnostics.clone(),
            pinned: pinned.clone(),
            ..drift::Drift::default()
        })
    }

    /// The registry for a check whose early documents are `early`: the warm one, unless one of
    /// them defines a schema from a file it was not made with (then `None`: the check builds its
    /// own). Its per-run state (the CEL budget, the rules noted once) starts afresh.
    pub(super) fn registry_for(
        &self,
        early: &document::Collection,
    ) -> Option<Option<(&driftlint_schema::Registry, driftlint_schema::Mode)>> {
        let foreign = early.documents.iter().any(|d| {
            driftlint_schema::defines_schemas(&d.node) && !self.definitions.contains(&early.sources[d.source].path)
        });
        if foreign {
            return None;
        }
        if let Some((registry, _)) = &self.registry {
            registry.start_run();
        }
        Some(self.registry.as_ref().map(|(r, m)| (r, *m)))
    }

    /// The compiled policies for one check.
    pub(super) fn policy(&self) -> Option<driftlint_policy::conftest::Pass> {
        self.policy.as_ref().map(driftlint_policy::conftest::Pass::for_another_run)
    }

    /// Gives one check's `files` the texts preparing read.
    pub(super) fn preset(&self, files: &mut Files) {
        for source in &self.presets {
            if let SourcePath::File(p) = &source.path {
                files.preset(p.clone(), source.text.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check_sources, check_sources_warm, collect_inputs, manifest_inputs};
    use crate::config::{self, resolve};
    use std::path::Path;

    /// The settings of the repository at `repo` and the passes prepared for them.
    fn prepared(repo: &Path) -> (Settings, Warm, Vec<Source>) {
        let cfg = config::load_config(&repo.join(".driftlint.yaml")).unwrap();
        let settings = resolve::settings(&resolve::Flags::default(), &cfg).unwrap_or_else(|e| panic!("{e:#}"));
        let manifests = manifest_inputs(&settings, collect_inputs(&settings)).unwrap().kept;
        let warm = Warm::prepare(&settings, &manifests).unwrap();
        (settings, warm, manifests)
    }

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            if e.path().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }

    /// A repository where every prepared pass has work: the example repository and its
    /// reference, a CRD with a CEL rule and an object breaking it, a Rego policy and its
    /// data, an admission policy bound by a Namespace's label, and Deployments it judges.
    fn repository(dir: &Path) -> PathBuf {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        // The repository's root: the configuration's paths stay inside it.
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        copy(&root.join("fixtures/repo"), &dir.join("repo"));
        copy(&root.join("fixtures/reference"), &dir.join("reference"));
        copy(&root.join("fixtures/policy/conftest/policy"), &dir.join("repo/policy"));
        copy(&root.join("fixtures/policy/conftest/data"), &dir.join("repo/policy-data"));
        std::fs::remove_file(dir.join("repo/policy/combined.rego")).unwrap();
        let repo = dir.join("repo");
        let cfg = std::fs::read_to_string(repo.join(".driftlint.yaml")).unwrap();
        let cfg = cfg.replace(
            "exclude:\n",
            "policies: [policy]\npolicy-data: [policy-data]\nexclude:\n  - policy/\n  - policy-data/\n",
        );
        write(&repo, ".driftlint.yaml", &cfg);
        let crd = std::fs::read_to_string(root.join("fixtures/cel/schemas/test.yaml")).unwrap();
        write(&repo, "crds/test.yaml", &crd);
        write(
            &repo,
            "tests.yaml",
            "apiVersion: test.org/v1alpha1\nkind: Test\nmetadata:\n  name: t\nspec:\n  replicas: 9\n  minReplicas: 1\n  maxReplicas: 3\n",
        );
        write(
            &repo,
            "admission.yaml",
            "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: replica-limit\nspec:\n  matchConstraints:\n    resourceRules:\n      - apiGroups: [apps]\n        apiVersions: [v1]\n        operations: [CREATE]\n        resources: [deployments]\n  validations:\n    - expression: object.spec.replicas <= 2\n      message: at most 2 replicas\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: replica-limit\nspec:\n  policyName: replica-limit\n  validationActions: [Deny]\n  matchResources:\n    namespaceSelector:\n      matchLabels: {environment: test}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: staging\n  labels: {environment: test}\n",
        );
        // Over the admission policy's limit, and with a `:latest` image the Rego policy denies.
        write(
            &repo,
            "staging.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: staging\nspec:\n  replicas: 5\n  selector:\n    matchLabels: {app: api}\n  template:\n    metadata:\n      labels: {app: api}\n    spec:\n      containers:\n        - name: api\n          image: nginx:latest\n",
        );
        repo
    }

    /// A check on the prepared passes finds what a cold check finds, file by file, and again
    /// on a second and third run on the same state (nothing of a run carries over: the CEL and
    /// policy budgets, the notes made once per run).
    #[test]
    fn a_warm_check_finds_what_a_cold_check_finds() {
        let dir = tempfile::tempdir().unwrap();
        let (settings, mut warm, manifests) = prepared(&repository(dir.path()));
        let rules = |r: &crate::check::Report| -> Vec<String> {
            r.diagnostics.iter().map(|d| d.rule.id().to_string()).collect()
        };
        let whole = check_sources(&settings, collect_inputs(&settings)).unwrap();
        for rule in ["value-drift", "schema-cel-violation", "policy-deny", "admission-violation"] {
            assert!(rules(&whole).iter().any(|r| r == rule), "{rule} in {:?}", rules(&whole));
        }
        // The whole repository, and each file alone beside the others' definitions.
        let mut runs: Vec<Vec<Source>> = vec![collect_inputs(&settings).sources];
        for m in &manifests {
            let mut sources = vec![m.clone()];
            sources.extend(manifests.iter().filter(|s| s.path != m.path && may_hold_definition(&s.text)).cloned());
            runs.push(sources);
        }
        for sources in runs {
            let collected = || driftlint_core::input::Collected { sources: sources.clone(), diagnostics: Vec::new() };
            let cold = check_sources(&settings, collected()).unwrap();
            for _ in 0..3 {
                let hot = check_sources_warm(&settings, &mut warm, collected(), &|| false).unwrap();
                assert_eq!(
                    format!("{:?}", hot.diagnostics),
                    format!("{:?}", cold.diagnostics),
                    "{:?}",
                    sources[0].path
                );
                assert_eq!(format!("{:?}", hot.sources), format!("{:?}", cold.sources));
            }
        }
    }

    /// A check whose own sources define a schema the state was not made with builds its own
    /// registry: the buffer's CRD is the one its objects are validated against.
    #[test]
    fn a_definition_the_state_was_not_made_with_is_read_from_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let repo = repository(dir.path());
        let cfg = config::load_config(&repo.join(".driftlint.yaml")).unwrap();
        let settings = resolve::settings(&resolve::Flags::default(), &cfg).unwrap_or_else(|e| panic!("{e:#}"));
        let manifests = manifest_inputs(&settings, collect_inputs(&settings)).unwrap().kept;
        // Prepared without the CRD: the Test object has no schema then.
        let without: Vec<Source> = manifests.iter().filter(|s| !may_hold_definition(&s.text)).cloned().collect();
        let mut warm = Warm::prepare(&settings, &without).unwrap();
        let tests = manifests.iter().find(|s| s.path.display().ends_with("tests.yaml")).unwrap().clone();
        let crd = manifests.iter().find(|s| may_hold_definition(&s.text)).unwrap().clone();
        let collected =
            || driftlint_core::input::Collected { sources: vec![tests.clone(), crd.clone()], diagnostics: Vec::new() };
        let cold = check_sources(&settings, collected()).unwrap();
        let hot = check_sources_warm(&settings, &mut warm, collected(), &|| false).unwrap();
        assert!(hot.diagnostics.iter().any(|d| d.rule.id() == "schema-cel-violation"), "{:?}", hot.diagnostics);
        assert_eq!(format!("{:?}", hot.diagnostics), format!("{:?}", cold.diagnostics));
    }

    /// Each check on a warm state has the whole CEL budget of a run: what one check spent is
    /// not taken from the next. (Carried over, the budget of an editor's session would run out
    /// after some checks, and rules a cold check evaluates would be "not evaluated".)
    #[test]
    fn each_warm_check_has_the_whole_cel_budget_of_a_run() {
        let dir = tempfile::tempdir().unwrap();
        let (settings, mut warm, _) = prepared(&repository(dir.path()));
        let spent = |warm: &Warm| {
            let (registry, _) = warm.registry.as_ref().expect("a registry");
            driftlint_cel::cost::RUN_STEPS - registry.cel_run().budget.run_left()
        };
        let collected = || collect_inputs(&settings);
        let first = check_sources_warm(&settings, &mut warm, collected(), &|| false).unwrap();
        assert!(first.diagnostics.iter().any(|d| d.rule.id() == "schema-cel-violation"), "{:?}", first.diagnostics);
        let once = spent(&warm);
        assert!(once > 0, "the check evaluated CEL rules");
        for _ in 0..3 {
            let again = check_sources_warm(&settings, &mut warm, collected(), &|| false).unwrap();
            assert_eq!(spent(&warm), once, "each check spends from a whole budget");
            assert_eq!(format!("{:?}", again.diagnostics), format!("{:?}", first.diagnostics));
        }
    }
}
