//! One configuration's warm state: the `.driftlint.yaml` found as `check` finds it
//! ([`crate::config::discover`]), the [`Settings`] resolved from it once, which files its
//! walk takes as manifests, and the texts of the CRDs/XRDs among them; and the checks run
//! with it — one document from its unsaved buffer, or the whole repository.
//!
//! Documents are checked by the same runner as `driftlint check` ([`check::check_sources`]),
//! given the buffer's text in place of the file's: rules, levels, suppressions, schemas and
//! policies are the repository's. A document's check reads what crosses files from the
//! others too — CRDs and XRDs, ValidatingAdmissionPolicies with their bindings and the
//! Namespaces they select by — so a custom resource is validated against a CRD kept beside
//! it and an admission policy applies to it, as in `check`.
//! It must not know the protocol: that is [`super::server`]'s.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use driftlint_admission::pass as admission;
use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::input::{self, MAX_FILE_BYTES, Source, SourcePath};

use crate::check::{self, Report};
use crate::config::{self, Settings, resolve};

/// A configuration that could not be used: the message, and the file and line when the
/// error names them (a key of `.driftlint.yaml`).
#[derive(Clone, Debug)]
pub struct Problem {
    pub message: String,
    pub at: Option<(PathBuf, usize)>,
}

/// The warm state of one configuration.
pub struct Workspace {
    /// The configuration file, when there is one.
    pub config_file: Option<PathBuf>,
    /// The directory it governs (the configuration's, else the editor's workspace folder).
    pub root: PathBuf,
    /// `None` when the configuration could not be resolved ([`Workspace::problem`] says why).
    pub settings: Option<Settings>,
    pub problem: Option<Problem>,
    /// The manifests the configuration checks (absolute paths).
    checked: HashSet<PathBuf>,
    /// The manifests whose objects other documents' checks need (CRDs, XRDs, admission
    /// policies and their context), as on disk: read by every document's check.
    definitions: Vec<Source>,
}

impl Workspace {
    /// Resolves the configuration `config_file` (none: the defaults, over `root`) and walks
    /// the repository once for its manifests.
    pub fn load(config_file: Option<PathBuf>, root: PathBuf) -> Workspace {
        let mut ws = Workspace {
            config_file: config_file.clone(),
            root: root.clone(),
            settings: None,
            problem: None,
            checked: HashSet::new(),
            definitions: Vec::new(),
        };
        let cfg = match &config_file {
            Some(file) => match config::load_config(file) {
                Ok(cfg) => cfg,
                Err(e) => {
                    ws.problem = Some(problem_of(&anyhow::Error::new(e)));
                    return ws;
                }
            },
            None => config::Config { dir: root, ..config::Config::default() },
        };
        ws.root.clone_from(&cfg.dir);
        match resolve::settings(&resolve::Flags::default(), &cfg) {
            Ok(mut settings) => {
                // Hover and definition read which templates each object matched.
                settings.object_correlations = true;
                ws.settings = Some(settings);
            }
            Err(e) => ws.problem = Some(problem_of(&e)),
        }
        ws.walk();
        ws
    }

    /// Reads which files are manifests and the definitions among them again (a file was
    /// created, or one never seen was opened).
    pub fn walk(&mut self) {
        let Some(settings) = &self.settings else { return };
        self.checked.clear();
        self.definitions.clear();
        let collected = check::collect_inputs(settings);
        // A reference that cannot be opened is reported by the checks; the walk alone keeps
        // every input it read.
        let sources = match check::manifest_inputs(settings, collected) {
            Ok(split) => split.kept,
            Err(_) => return,
        };
        let admission = sources.iter().any(|s| admission::may_hold_policies(&s.text));
        for source in sources {
            let SourcePath::File(path) = &source.path else { continue };
            self.checked.insert(super::convert::absolute(path));
            if check::may_hold_definition(&source.text)
                || (admission && admission::may_hold_context(&source.text, false))
            {
                self.definitions.push(source);
            }
        }
    }

    /// Whether a change to the file at `path` (absolute) changes this warm state: the
    /// configuration or the lock, the reference's files, configured schemas, schema locations,
    /// policies and their data, or a CRD/XRD among the manifests (or a file that now is one).
    /// A manifest's own change does not: its open buffer is what is checked.
    pub fn is_made_of(&self, path: &Path) -> bool {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name == config::FILE_NAME || name == "driftlint.lock" {
            return true;
        }
        if path.extension().is_some_and(|e| e == "rego" || e == "tmpl") {
            return true;
        }
        let Some(settings) = &self.settings else { return true };
        let configured = settings
            .schemas
            .iter()
            .chain(&settings.schema_locations)
            .chain(&settings.policy.policies)
            .chain(&settings.policy.data)
            .map(|p| super::convert::absolute(Path::new(p)));
        let reference = match &settings.reference {
            Some(driftlint_reference::Location::Path(p)) => {
                check::metadata_path(p).parent().map(super::convert::absolute)
            }
            _ => None,
        };
        if configured.chain(reference).any(|dir| path.starts_with(dir)) {
            return true;
        }
        let sp = SourcePath::File(path.to_path_buf());
        self.definitions.iter().any(|s| s.path == sp)
            || input::read_bounded_to_string(path, MAX_FILE_BYTES).is_ok_and(|t| check::may_hold_definition(&t))
    }

    /// Whether the configuration checks the file at `path` (absolute).
    pub fn checks(&self, path: &Path) -> bool {
        self.checked.contains(path)
    }

    /// The manifests the configuration checks.
    pub fn checked(&self) -> impl Iterator<Item = &PathBuf> {
        self.checked.iter()
    }

    /// Checks the document at `path` (absolute) as its buffer `text` stands: the findings of
    /// `driftlint check` on that file, less those that need every file (a missing object,
    /// a broken group rule: [`Workspace::check_repository`] finds them).
    pub fn check_document(&self, path: &Path, text: &str) -> Result<Report, String> {
        let Some(settings) = &self.settings else { return Err(self.problem_message()) };
        let sp = SourcePath::File(path.to_path_buf());
        // The limit a file on disk has: a larger buffer is refused as the file would be.
        if text.len() as u64 > MAX_FILE_BYTES {
            let refused = input::Refused::TooLarge { limit: MAX_FILE_BYTES };
            let d = Diagnostic::error(Rule::IoError, sp, None, format!("cannot read {}: {refused}", path.display()));
            return Ok(Report { diagnostics: vec![d], ..Report::default() });
        }
        let mut sources = vec![Source { path: sp.clone(), text: text.to_string() }];
        sources.extend(self.definitions.iter().filter(|s| s.path != sp).cloned());
        let collected = input::Collected { sources, diagnostics: Vec::new() };
        let mut report = check::check_sources(settings, collected).map_err(|e| e.to_string())?;
        report.diagnostics.retain(|d| d.primary.path == sp && !is_run_note(d));
        Ok(report)
    }

    /// Checks the whole repository, open buffers (by absolute path) in place of their files.
    pub fn check_repository(&self, open: &HashMap<PathBuf, String>) -> Result<Report, String> {
        let Some(settings) = &self.settings else { return Err(self.problem_message()) };
        let mut collected = check::collect_inputs(settings);
        for source in &mut collected.sources {
            if let SourcePath::File(path) = &source.path
                && let Some(text) = open.get(&super::convert::absolute(path))
            {
                source.text.clone_from(text);
            }
        }
        check::check_sources(settings, collected).map_err(|e| e.to_string())
    }

    fn problem_message(&self) -> String {
        self.problem.as_ref().map_or_else(|| "no settings".to_string(), |p| p.message.clone())
    }
}

/// The note a run gives when none of its files held an object: about the run, not about
/// the one document a buffer check reads.
fn is_run_note(d: &Diagnostic) -> bool {
    d.rule == Rule::NotKubernetesObject && d.primary.range.is_none() && d.message.starts_with("no Kubernetes object")
}

/// A configuration error as the user sees it, with its file and line when
/// [`config::ConfigError::Invalid`] names them.
fn problem_of(e: &anyhow::Error) -> Problem {
    let at = e.chain().find_map(|c| match c.downcast_ref::<config::ConfigError>() {
        Some(config::ConfigError::Invalid { path, line, .. }) => Some((super::convert::absolute(path), *line)),
        _ => None,
    });
    let mut message = e.to_string();
    for cause in e.chain().skip(1) {
        message.push_str(": ");
        message.push_str(&cause.to_string());
    }
    Problem { message, at }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example repository (`fixtures/repo`, whose reference is `fixtures/reference`).
    fn example() -> (PathBuf, Workspace) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let ws = Workspace::load(Some(root.join("repo/.driftlint.yaml")), root.join("repo"));
        (root, ws)
    }

    #[test]
    fn the_walk_knows_which_files_are_checked() {
        let (root, ws) = example();
        assert!(ws.problem.is_none(), "{:?}", ws.problem);
        assert!(ws.checks(&root.join("repo/app/frontend.yaml")));
        // `exclude:` of the configuration, and the configuration itself.
        assert!(!ws.checks(&root.join("repo/config/values.yaml")));
        assert!(!ws.checks(&root.join("repo/.driftlint.yaml")));
    }

    #[test]
    fn only_what_the_warm_state_is_made_of_reloads_it() {
        let (root, ws) = example();
        assert!(ws.is_made_of(&root.join("repo/.driftlint.yaml")));
        assert!(ws.is_made_of(&root.join("reference/deployment.yaml")));
        assert!(ws.is_made_of(&root.join("repo/policy/deny.rego")));
        // A CRD, wherever it is: the schemas its kind is validated against.
        assert!(ws.is_made_of(&root.join("crossplane/schemas/rdsinstance.crd.yaml")));
        // A manifest's own change: its buffer is checked, nothing is reloaded.
        assert!(!ws.is_made_of(&root.join("repo/app/frontend.yaml")));
    }

    #[test]
    fn a_buffer_is_checked_as_check_checks_the_file() {
        let (root, ws) = example();
        let path = root.join("repo/app/frontend.yaml");
        let text = std::fs::read_to_string(&path).unwrap();
        let report = ws.check_document(&path, &text).unwrap();
        assert!(report.diagnostics.iter().any(|d| d.rule == Rule::ValueDrift), "{:?}", report.diagnostics);
        let fixed = ws.check_document(&path, &text.replace("512Mi", "256Mi")).unwrap();
        assert!(!fixed.diagnostics.iter().any(|d| d.rule == Rule::ValueDrift), "{:?}", fixed.diagnostics);
        // Only the document's own findings: no missing object of the reference, no other file.
        let sp = SourcePath::File(path.clone());
        assert!(report.diagnostics.iter().all(|d| d.primary.path == sp));
    }
}
