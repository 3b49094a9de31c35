//! One configuration's warm state: the `.driftlint.yaml` found as `check` finds it
//! ([`crate::config::discover`]), the [`Settings`] resolved from it once, which files its
//! walk takes as manifests, and the texts of the CRDs/XRDs among them; and the checks run
//! with it — one document from its unsaved buffer, or the whole repository.
//!
//! Documents are checked by the same runner as `driftlint check` ([`check::check_sources`]),
//! given the buffer's text in place of the file's: rules, levels, suppressions, schemas and
//! policies are the repository's. A document's check reads the definitions of the other
//! files too, so a custom resource is validated against a CRD kept beside it, as `check` does.
//! It must not know the protocol: that is [`super::server`]'s.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

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
    /// CRDs and XRDs among them, as on disk: read by every document's check.
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
            Ok((sources, _)) => sources,
            Err(_) => return,
        };
        for source in sources {
            let SourcePath::File(path) = &source.path else { continue };
            self.checked.insert(super::convert::absolute(path));
            if check::may_hold_definition(&source.text) {
                self.definitions.push(source);
            }
        }
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
