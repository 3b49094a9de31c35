//! One configuration's warm state: the `.driftlint.yaml` found as `check` finds it
//! ([`crate::config::discover`]), the [`Settings`] resolved from it once, which files its
//! walk takes as manifests, the texts among them that other documents' checks read, and the
//! passes prepared once ([`Warm`]: the reference compiled, the schema registry with the
//! repository's CRDs/XRDs, the policies compiled); and the checks run with it — one document
//! from its unsaved buffer, or the whole repository.
//!
//! Documents are checked by the same runner as `driftlint check`
//! ([`check::check_sources_warm`]), given the buffer's text in place of the file's: rules,
//! levels, suppressions, schemas and policies are the repository's. A document's check reads
//! what crosses files from the others too, as `check` reads it: CRDs and XRDs (in the
//! registry), ValidatingAdmissionPolicies with their bindings, the Namespaces they select by
//! and, with `paramKind`, their parameters; the objects a reference's `lookupCR(s)` can
//! return. An open buffer stands in for its file in all of them: a change to a buffer that
//! holds a definition makes the prepared passes again.
//! It must not know the protocol: that is [`super::server`]'s.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use driftlint_admission::pass as admission;
use driftlint_core::diagnostic::{Diagnostic, Rule};
use driftlint_core::input::{self, MAX_FILE_BYTES, Source, SourcePath};

use crate::check::warm::Warm;
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
    /// Each manifest's place in the walk (absolute paths): a document's check reads the
    /// files in `check`'s order, since what a lookup sees of an object depends on whether it
    /// was compared (and its fields omitted) before, as in kube-compare.
    order: HashMap<PathBuf, usize>,
    /// The manifests whose objects other documents' checks need (CRDs, XRDs, admission
    /// policies and their context, the objects lookups can return), as on disk or as their
    /// open buffer stands: read by every document's check.
    definitions: Vec<Source>,
    /// The passes prepared on [`Workspace::definitions`]; `None` until a check needs them,
    /// and again when a buffer among the definitions changes.
    warm: Option<Warm>,
    /// Whether any ValidatingAdmissionPolicy is among the manifests, and one takes parameters.
    admission: (bool, bool),
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
            order: HashMap::new(),
            definitions: Vec::new(),
            warm: None,
            admission: (false, false),
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
        self.order.clear();
        self.definitions.clear();
        self.warm = None;
        let collected = check::collect_inputs(settings);
        // A reference that cannot be opened is reported by the checks; the walk alone keeps
        // every input it read.
        let sources = match check::manifest_inputs(settings, collected) {
            Ok(split) => split.kept,
            Err(_) => return,
        };
        let admission = sources.iter().any(|s| admission::may_hold_policies(&s.text));
        let parameterised = admission && sources.iter().any(|s| s.text.contains("paramKind"));
        self.admission = (admission, parameterised);
        // The objects `lookupCR(s)` can return are known once the reference is compiled.
        let warm = Warm::prepare(settings, &sources).ok();
        let engine = warm.as_ref().and_then(|w| w.engine().ok().flatten());
        let lookups = engine.as_ref().filter(|e| e.uses_lookups());
        for source in sources {
            let SourcePath::File(path) = &source.path else { continue };
            self.order.insert(super::convert::absolute(path), self.checked.len());
            self.checked.insert(super::convert::absolute(path));
            if check::may_hold_definition(&source.text)
                || (admission && admission::may_hold_context(&source.text, parameterised))
                || lookups.is_some_and(|e| e.may_hold_view_member(&source.text))
            {
                self.definitions.push(source);
            }
        }
        drop(engine);
        self.warm = warm;
    }

    /// Puts an open buffer's text in place of its file among the texts other documents'
    /// checks read (when it is, or now may be, one of them). Returns whether they changed:
    /// then the other open documents want checking again, and when the buffer holds (or held)
    /// a definition, the prepared passes are made again at the next check.
    pub fn overlay(&mut self, path: &Path, text: &str) -> bool {
        if self.settings.is_none() || !self.checked.contains(path) {
            return false;
        }
        let at = self
            .definitions
            .iter()
            .position(|s| matches!(&s.path, SourcePath::File(p) if super::convert::absolute(p) == path));
        // A buffer over the limit a file on disk has is read by no check, as the file would be
        // refused (its own check says so).
        if text.len() as u64 > MAX_FILE_BYTES {
            let Some(i) = at else { return false };
            let was_definition = check::may_hold_definition(&self.definitions.remove(i).text);
            if was_definition {
                self.warm = None;
            }
            return true;
        }
        let (admission, parameterised) = self.admission;
        let is_context = check::may_hold_definition(text)
            || admission::may_hold_policies(text)
            || (admission && admission::may_hold_context(text, parameterised))
            || self.warm.as_ref().and_then(|w| w.engine().ok().flatten()).is_some_and(|e| e.may_hold_view_member(text));
        let definition = check::may_hold_definition(text);
        match at {
            Some(i) if self.definitions[i].text == text => false,
            Some(i) => {
                let was_definition = check::may_hold_definition(&self.definitions[i].text);
                self.definitions[i].text = text.to_string();
                if was_definition || definition || admission::may_hold_policies(text) {
                    self.warm = None;
                }
                true
            }
            None if is_context => {
                // Named as the walk names it (relative to the working directory when below it).
                let shown = std::env::current_dir()
                    .ok()
                    .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
                    .unwrap_or_else(|| path.to_path_buf());
                self.definitions.push(Source { path: SourcePath::File(shown), text: text.to_string() });
                if definition || admission::may_hold_policies(text) {
                    self.warm = None;
                    if !self.admission.0 && admission::may_hold_policies(text) {
                        self.admission.0 = true;
                    }
                }
                true
            }
            None => false,
        }
    }

    /// The passes prepared for this configuration (made now when they are not).
    fn warm(&mut self) -> Result<&mut Warm, String> {
        let Some(settings) = &self.settings else { return Err(self.problem_message()) };
        if self.warm.is_none() {
            self.warm = Some(Warm::prepare(settings, &self.definitions).map_err(|e| e.to_string())?);
        }
        self.warm.as_mut().ok_or_else(|| "no prepared passes".to_string())
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
    pub fn check_document(&mut self, path: &Path, text: &str) -> Result<Report, String> {
        self.check_document_until(path, text, &|| false)
    }

    /// [`Workspace::check_document`], `cancelled` asked before each of the check's batches:
    /// once it says so, the check stops with an error.
    pub fn check_document_until(
        &mut self,
        path: &Path,
        text: &str,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Report, String> {
        self.warm()?;
        let Some(settings) = &self.settings else { return Err(self.problem_message()) };
        let sp = SourcePath::File(path.to_path_buf());
        // The limit a file on disk has: a larger buffer is refused as the file would be.
        if text.len() as u64 > MAX_FILE_BYTES {
            let refused = input::Refused::TooLarge { limit: MAX_FILE_BYTES };
            let d = Diagnostic::error(Rule::IoError, sp, None, format!("cannot read {}: {refused}", path.display()));
            return Ok(Report { diagnostics: vec![d], ..Report::default() });
        }
        let mut sources = vec![Source { path: sp.clone(), text: text.to_string() }];
        sources.extend(
            self.definitions
                .iter()
                .filter(|s| !matches!(&s.path, SourcePath::File(p) if super::convert::absolute(p) == path))
                .cloned(),
        );
        // In the walk's order, the buffer at its file's place (a new file last).
        sources.sort_by_key(|s| match &s.path {
            SourcePath::File(p) => self.order.get(&super::convert::absolute(p)).copied().unwrap_or(usize::MAX),
            SourcePath::Stdin => usize::MAX,
        });
        let collected = input::Collected { sources, diagnostics: Vec::new() };
        let warm = self.warm.as_mut().ok_or_else(|| "no prepared passes".to_string())?;
        let mut report = check::check_sources_warm(settings, warm, collected, cancelled).map_err(|e| e.to_string())?;
        report.diagnostics.retain(|d| d.primary.path == sp && !is_run_note(d));
        Ok(report)
    }

    /// Checks the whole repository, open buffers (by absolute path) in place of their files;
    /// `cancelled` as for [`Workspace::check_document`].
    pub fn check_repository(
        &mut self,
        open: &HashMap<PathBuf, String>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Report, String> {
        self.warm()?;
        let Some(settings) = &self.settings else { return Err(self.problem_message()) };
        let mut collected = check::collect_inputs(settings);
        for source in &mut collected.sources {
            if let SourcePath::File(path) = &source.path
                && let Some(text) = open.get(&super::convert::absolute(path))
            {
                source.text.clone_from(text);
            }
        }
        let warm = self.warm.as_mut().ok_or_else(|| "no prepared passes".to_string())?;
        check::check_sources_warm(settings, warm, collected, cancelled).map_err(|e| e.to_string())
    }

    /// The fields of the document `text` (at `path`, absolute) that the templates its
    /// objects matched (`objects`, from its check) set, and those templates' texts; `None`
    /// when `interrupted` said so before they were all found.
    pub fn fields(
        &self,
        path: &Path,
        text: &str,
        objects: &[driftlint_reference::drift::correlations::ObjectCorrelation],
        interrupted: &dyn Fn() -> bool,
    ) -> Option<(Vec<super::fields::Field>, HashMap<PathBuf, String>)> {
        let Some(engine) = self.warm.as_ref().and_then(|w| w.engine().ok().flatten()) else {
            return Some((Vec::new(), HashMap::new()));
        };
        // What `lookupCR(s)` see: the objects of the other files that may be returned, and the
        // document's own.
        let lookups: Vec<serde_json::Value> = if engine.uses_lookups() {
            let mut sources = vec![Source { path: SourcePath::File(path.to_path_buf()), text: text.to_string() }];
            sources.extend(
                self.definitions
                    .iter()
                    .filter(|s| !matches!(&s.path, SourcePath::File(p) if super::convert::absolute(p) == path))
                    .filter(|s| engine.may_hold_view_member(&s.text))
                    .cloned(),
            );
            let coll = driftlint_core::document::collect(sources, &driftlint_core::document::Options::default());
            coll.documents.into_iter().map(|d| d.object).collect()
        } else {
            Vec::new()
        };
        let mut files = driftlint_core::locate::Files::default();
        let fields = super::fields::fields(&engine, path, text, objects, &lookups, &mut files, interrupted)?;
        let mut texts = HashMap::new();
        for f in &fields {
            if !texts.contains_key(&f.template)
                && let Some(t) = files.text(&f.template)
            {
                texts.insert(f.template.clone(), t.to_string());
            }
        }
        Some((fields, texts))
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

    /// A buffer over the file limit is no context of other checks (the file would be
    /// refused), and no longer counts as one when it was.
    #[test]
    fn a_buffer_over_the_file_limit_is_read_by_no_other_check() {
        let (root, mut ws) = example();
        let path = root.join("repo/namespace.yaml");
        let namespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n";
        let policy =
            "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p\n";
        assert!(ws.overlay(&path, &format!("{namespace}---\n{policy}")), "a policy in a buffer is context");
        let huge = format!("{namespace}---\n{policy}#{}\n", "x".repeat(MAX_FILE_BYTES as usize));
        assert!(ws.overlay(&path, &huge), "dropped from the context");
        assert!(!ws.definitions.iter().any(|s| s.text.len() as u64 > MAX_FILE_BYTES));
        assert!(!ws.overlay(&path, &huge), "and never read again");
    }

    #[test]
    fn a_buffer_is_checked_as_check_checks_the_file() {
        let (root, mut ws) = example();
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
