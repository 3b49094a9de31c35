//! The checks, off the message loop: one thread owns every workspace's warm state
//! ([`Workspace`]) and runs the checks the loop asks for ([`Job`]), in order, answering each
//! with a [`Done`]. The loop goes on reading the client's messages meanwhile (hover,
//! definition, cancellation, shutdown are answered while a check runs).
//!
//! A newer check of a document, or of a repository, supersedes the older one: each job is
//! sent with a flag that the next job of the same document (or repository) sets
//! ([`Checker::send`]). A superseded job waiting is not run, and a running one stops at the
//! runner's next batch (the runner asks before each), so edits do not queue behind a long
//! check; a superseded check's findings are never sent, nor are those of one that ended
//! before it saw its flag. The loop publishes a check's result only if its document is
//! still at the checked version. Shutdown stops a running check the same way, and the thread
//! with it.
//!
//! When it has been idle for a moment, the checker finds the fields each checked document's
//! templates set ([`super::fields`], for hover), stopping as soon as a job comes in.

use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use driftlint_core::diagnostic::{Diagnostic, SourcePath};
use lsp_types as lsp;

use super::convert::{self, LineIndex, Texts};
use super::documents::Checked;
use super::fields::Field;
use super::workspace::{Problem, Workspace};

/// A check the loop asks for.
pub enum Job {
    /// One document's buffer, at `version`, of the workspace `key`. `opened`: the first check
    /// since the editor opened it (a file created since the walk is looked for again).
    Document { key: PathBuf, path: PathBuf, version: i32, text: String, opened: bool },
    /// The whole repository of the workspace `key`, the open buffers (by absolute path) in
    /// place of their files.
    Repository { key: PathBuf, open: HashMap<PathBuf, String> },
    /// The client reported changes to these files (absolute paths; `None` for a URI that
    /// names no local file), created or deleted when the flag says so.
    Watched(Vec<(Option<PathBuf>, bool)>),
}

/// What a job is a check of: a newer job of the same target supersedes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Target {
    Document(PathBuf),
    Repository(PathBuf),
}

impl Job {
    fn target(&self) -> Option<Target> {
        match self {
            Job::Document { path, .. } => Some(Target::Document(path.clone())),
            Job::Repository { key, .. } => Some(Target::Repository(key.clone())),
            Job::Watched(_) => None,
        }
    }
}

/// A job as sent to the thread, with the flag the next job of its target sets.
struct Sent {
    job: Job,
    superseded: Arc<AtomicBool>,
}

/// Each target's newest job's flag (shared: the loop sets and replaces them, the thread
/// takes out a finished job's).
type Latest = Arc<Mutex<HashMap<Target, Arc<AtomicBool>>>>;

/// What a job found.
pub enum Done {
    /// A document's findings: `checked` (for hover, definition and code actions) and as LSP
    /// diagnostics; `None` for a file the configuration does not check. `context`: the
    /// buffer is one the other documents' checks read, and it changed.
    Document { path: PathBuf, version: i32, found: Option<(Checked, Vec<lsp::Diagnostic>)>, context: bool },
    /// A repository's findings on files that are neither open nor manifests (a missing object
    /// at its entry in `metadata.yaml`), by file.
    Repository { key: PathBuf, found: Vec<(PathBuf, lsp::Uri, Vec<lsp::Diagnostic>)> },
    /// The warm states were dropped (a watched file they are made of changed): every open
    /// document and repository wants checking again.
    Reloaded,
    /// The fields of a document's objects that their templates set, found after its check
    /// (at `version`), with the templates' texts by absolute path.
    Fields { path: PathBuf, version: i32, fields: Vec<Field>, texts: HashMap<PathBuf, String> },
    /// A configuration that cannot be used.
    Problem(Problem),
    /// A job panicked (its workspace is dropped, to be made again).
    Failed(String),
}

/// The checker's thread and how to talk to it.
pub struct Checker {
    jobs: Option<Sender<Sent>>,
    pub done: Receiver<Done>,
    stop: Arc<AtomicBool>,
    latest: Latest,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checker {
    /// Starts the thread. `gate` (tests only): a token is taken from it before each job and
    /// before each batch of a check, so that a test holds a check "running", before it starts
    /// or between two batches, for as long as it wants; a closed gate lets everything through.
    pub fn start(gate: Option<Receiver<()>>) -> Checker {
        let (jobs, inbox) = crossbeam_channel::unbounded::<Sent>();
        let (outbox, done) = crossbeam_channel::unbounded::<Done>();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let latest = Latest::default();
        let finished = Arc::clone(&latest);
        let thread = std::thread::Builder::new()
            .name("driftlint-checks".into())
            .stack_size(STACK_SIZE)
            .spawn(move || {
                let mut worker = Worker {
                    fields_due: HashMap::new(),
                    workspaces: HashMap::new(),
                    context_owed: HashSet::new(),
                    latest: finished,
                    outbox,
                };
                worker.run(&inbox, &stopped, gate.as_ref());
            })
            .ok();
        Checker { jobs: Some(jobs), done, stop, latest, thread }
    }

    /// Sends `job`, superseding the job sent before it for the same document or repository
    /// (waiting, or running: it stops at its next batch).
    pub fn send(&self, job: Job) {
        let superseded = supersede(&self.latest, &job);
        if let Some(jobs) = &self.jobs {
            // A thread gone (it never panics out of a job) leaves nothing to do.
            let _ = jobs.send(Sent { job, superseded });
        }
    }

    /// No check is started from now on, and a running one stops at its next batch.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Stops the thread and waits for it (for the batch its check may be running).
    pub fn join(&mut self) {
        self.stop();
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Checker {
    fn drop(&mut self) {
        self.join();
    }
}

/// The checker's stack: the runner's, as on the CLI's main thread (`cli::STACK_SIZE`, which
/// this module cannot import without an import circle through `cli::lsp`; a test keeps the two
/// equal).
const STACK_SIZE: usize = 64 << 20;

/// How long the checker waits, idle, before it finds the fields of the documents checked.
const FIELDS_AFTER: std::time::Duration = std::time::Duration::from_millis(300);

/// A document checked whose fields are to be found when the checker is idle.
struct FieldsTask {
    key: PathBuf,
    path: PathBuf,
    version: i32,
    text: String,
    objects: Vec<driftlint_reference::drift::correlations::ObjectCorrelation>,
}

struct Worker {
    /// By document: the newest check's fields, to be found when no job waits.
    fields_due: HashMap<PathBuf, FieldsTask>,
    /// Warm state by configuration file (or by `root` without one).
    workspaces: HashMap<PathBuf, Workspace>,
    /// Documents whose superseded check found that the texts other documents' checks read
    /// changed: their next check's result says so ([`Done::Document`]'s `context`).
    context_owed: HashSet<PathBuf>,
    latest: Latest,
    outbox: Sender<Done>,
}

impl Worker {
    fn run(&mut self, inbox: &Receiver<Sent>, stop: &AtomicBool, gate: Option<&Receiver<()>>) {
        let mut waiting: VecDeque<Sent> = VecDeque::new();
        loop {
            if waiting.is_empty() {
                // With fields to find, a pause first: while the user types, checks come one
                // after another and the fields of each would be out of date at once.
                let next = match self.fields_due.is_empty() {
                    true => inbox.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    false => inbox.recv_timeout(FIELDS_AFTER),
                };
                match next {
                    Ok(job) => waiting.push_back(job),
                    Err(RecvTimeoutError::Disconnected) => return,
                    Err(RecvTimeoutError::Timeout) => {
                        let task = self.fields_due.keys().next().cloned().and_then(|p| self.fields_due.remove(&p));
                        if let Some(task) = task.filter(|_| !stop.load(Ordering::SeqCst)) {
                            let key = task.key.clone();
                            // A job coming in interrupts it: checks go first.
                            let busy = || !inbox.is_empty();
                            if catching(|| self.fields(task, &busy)).is_err() {
                                self.workspaces.remove(&key);
                            }
                        }
                        continue;
                    }
                }
            }
            waiting.extend(inbox.try_iter());
            let Some(Sent { job, superseded }) = waiting.pop_front() else { continue };
            // The newer job waits behind it. A document's first check is run all the same
            // for its walk (a file created since), and stops before its check.
            if superseded.load(Ordering::SeqCst) && !matches!(job, Job::Document { opened: true, .. }) {
                continue;
            }
            if let Some(gate) = gate {
                let _ = gate.recv();
            }
            if stop.load(Ordering::SeqCst) {
                return;
            }
            let key = match &job {
                Job::Document { key, .. } | Job::Repository { key, .. } => Some(key.clone()),
                Job::Watched(_) => None,
            };
            let target = job.target();
            // Superseded, or the session is ending: its findings would be dropped anyway.
            let dropped = || superseded.load(Ordering::SeqCst) || stop.load(Ordering::SeqCst);
            let cancelled = || {
                if let Some(gate) = gate {
                    let _ = gate.recv();
                }
                dropped()
            };
            if let Err(why) = catching(|| self.handle(job, &dropped, &cancelled)) {
                if let Some(key) = key {
                    self.workspaces.remove(&key);
                }
                self.send(Done::Failed(why));
            }
            // Its target's entry goes with it, unless a newer job has taken its place.
            if let Some(target) = target
                && let Ok(mut latest) = self.latest.lock()
                && latest.get(&target).is_some_and(|flag| Arc::ptr_eq(flag, &superseded))
            {
                latest.remove(&target);
            }
        }
    }

    /// The fields of a document checked, for hover ([`Done::Fields`]); when `interrupted`
    /// says so before they are all found, the task waits for the next idle time.
    fn fields(&mut self, task: FieldsTask, interrupted: &dyn Fn() -> bool) {
        let Some(ws) = self.workspaces.get(&task.key) else { return };
        let Some((fields, texts)) = ws.fields(&task.path, &task.text, &task.objects, interrupted) else {
            // A newer check of the document, if one comes, replaces the task.
            self.fields_due.entry(task.path.clone()).or_insert(task);
            return;
        };
        if !fields.is_empty() {
            self.send(Done::Fields { path: task.path, version: task.version, fields, texts });
        }
    }

    fn send(&self, done: Done) {
        // The loop gone (the session ended) leaves nobody to tell.
        let _ = self.outbox.send(done);
    }

    fn workspace(&mut self, key: &Path) -> &mut Workspace {
        if !self.workspaces.contains_key(key) {
            let ws = match key.file_name().is_some_and(|n| n == crate::config::FILE_NAME) {
                true => Workspace::load(Some(key.to_path_buf()), key.parent().unwrap_or(key).to_path_buf()),
                false => Workspace::load(None, key.to_path_buf()),
            };
            if let Some(problem) = ws.problem.clone() {
                self.send(Done::Problem(problem));
            }
            self.workspaces.insert(key.to_path_buf(), ws);
        }
        self.workspaces.get_mut(key).expect("inserted above")
    }

    /// Runs `job`; `dropped` says whether its result is no longer wanted (a newer job of its
    /// target was sent, or the session is ending), `cancelled` is what the runner asks before
    /// each batch.
    fn handle(&mut self, job: Job, dropped: &dyn Fn() -> bool, cancelled: &dyn Fn() -> bool) {
        let outbox = self.outbox.clone();
        // The loop gone (the session ended) leaves nobody to tell.
        let send = |done: Done| {
            let _ = outbox.send(done);
        };
        match job {
            Job::Document { key, path, version, text, opened } => {
                let ws = self.workspace(&key);
                // A file created since the walk: walked again to learn whether it is checked.
                if opened && !ws.checks(&path) && path.exists() {
                    ws.walk();
                }
                let context = ws.overlay(&path, &text);
                // Not a manifest of this configuration (excluded, a chart's template, a
                // tool's file, not YAML): `check` reports nothing on it, nor do we.
                let result = match ws.checks(&path) && !dropped() {
                    true => Some((reference_dir(ws), ws.check_document_until(&path, &text, cancelled))),
                    false => None,
                };
                // Superseded: nothing is sent (it would be of a text the editor no longer
                // has); whether the texts other documents' checks read changed is told with
                // the newer check's result.
                if dropped() {
                    if context {
                        self.context_owed.insert(path);
                    }
                    return;
                }
                let context = self.context_owed.remove(&path) || context;
                let Some((reference_dir, result)) = result else {
                    return send(Done::Document { path, version, found: None, context });
                };
                match result {
                    Ok(report) => {
                        let found = checked(report, &path, &text, version, reference_dir);
                        let objects = found.0.objects.clone();
                        send(Done::Document { path: path.clone(), version, found: Some(found), context });
                        // After the findings, when nothing else waits: hover on any field a
                        // template sets.
                        self.fields_due.insert(path.clone(), FieldsTask { key, path, version, text, objects });
                    }
                    Err(message) => send(Done::Problem(Problem { message, at: None })),
                }
            }
            Job::Repository { key, open } => {
                let ws = self.workspace(&key);
                let result = ws.check_repository(&open, cancelled);
                // Superseded: the newer check's findings replace these, which are not sent.
                if dropped() {
                    return;
                }
                match result {
                    Ok(report) => {
                        let found = repository_findings(ws, &report, &open);
                        send(Done::Repository { key, found });
                    }
                    Err(message) => send(Done::Problem(Problem { message, at: None })),
                }
            }
            Job::Watched(changes) => {
                // A file created or deleted (the walk's manifests), or a change to what a
                // workspace is made of (configuration, lock, reference, a CRD, a policy):
                // every warm state is dropped. A manifest's own change is not: its buffer is
                // what is checked.
                let reload = changes.iter().any(|(path, created_or_deleted)| {
                    *created_or_deleted
                        || path.as_ref().is_none_or(|path| {
                            self.workspaces.is_empty() || self.workspaces.values().any(|ws| ws.is_made_of(path))
                        })
                });
                if reload {
                    self.workspaces.clear();
                    self.fields_due.clear();
                    send(Done::Reloaded);
                }
            }
        }
    }
}

/// Runs `f`; a panic in it is caught and given as its message, so that the checker goes on
/// (the caller drops the workspace the job was on: it is made again on the next job).
fn catching(f: impl FnOnce()) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default()
    })
}

/// The flag of `job`, made its target's newest; the flag of the job it replaces is set: a
/// newer check of the same document, or of the same repository, makes the older pointless.
fn supersede(latest: &Latest, job: &Job) -> Arc<AtomicBool> {
    let superseded = Arc::new(AtomicBool::new(false));
    if let Some(target) = job.target()
        && let Ok(mut latest) = latest.lock()
        && let Some(older) = latest.insert(target, Arc::clone(&superseded))
    {
        older.store(true, Ordering::SeqCst);
    }
    superseded
}

/// What a document's check keeps for hover, definition and code actions, and its findings as
/// LSP diagnostics.
fn checked(
    report: crate::check::Report,
    path: &Path,
    text: &str,
    version: i32,
    reference_dir: Option<PathBuf>,
) -> (Checked, Vec<lsp::Diagnostic>) {
    let mut texts = HashMap::new();
    for d in &report.diagnostics {
        for label in &d.secondary {
            if let SourcePath::File(p) = &label.path
                && let Some(s) = report.sources.iter().find(|s| s.path == label.path)
            {
                texts.entry(convert::absolute(p)).or_insert_with(|| s.text.clone());
            }
        }
    }
    let objects: Vec<_> = report
        .correlations
        .objects
        .into_iter()
        .filter(|o| matches!(&o.path, SourcePath::File(p) if convert::absolute(p) == path))
        .collect();
    let checked =
        Checked { version, diagnostics: report.diagnostics, texts, objects, reference_dir, fields: Vec::new() };
    let diagnostics = {
        let index = LineIndex::new(text);
        let texts: Texts<'_> = checked.texts.iter().map(|(p, t)| (p.clone(), t.as_str())).collect();
        checked
            .diagnostics
            .iter()
            .filter(|d| d.suppressed.is_none())
            .map(|d| convert::to_lsp_diagnostic(d, &index, &texts))
            .collect()
    };
    (checked, diagnostics)
}

/// A repository check's findings on files that are no open document's and no manifest's (a
/// missing object at its template's entry in `metadata.yaml`, the reference's and the
/// configuration's own problems): open documents and manifests have their own checks.
fn repository_findings(
    ws: &Workspace,
    report: &crate::check::Report,
    open: &HashMap<PathBuf, String>,
) -> Vec<(PathBuf, lsp::Uri, Vec<lsp::Diagnostic>)> {
    let mut by_file: HashMap<PathBuf, Vec<&Diagnostic>> = HashMap::new();
    for d in report.diagnostics.iter().filter(|d| d.suppressed.is_none()) {
        let SourcePath::File(p) = &d.primary.path else { continue };
        let p = convert::absolute(p);
        if !open.contains_key(&p) && !ws.checks(&p) {
            by_file.entry(p).or_default().push(d);
        }
    }
    let texts: Texts<'_> = report
        .sources
        .iter()
        .filter_map(|s| match &s.path {
            SourcePath::File(p) => Some((convert::absolute(p), s.text.as_str())),
            SourcePath::Stdin => None,
        })
        .collect();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (path, found) in by_file {
        let Some(uri) = convert::uri_of(&path) else { continue };
        let disk;
        let text = match texts.get(&path) {
            Some(t) => *t,
            None => {
                disk = driftlint_core::input::read_bounded_to_string(&path, driftlint_core::input::MAX_FILE_BYTES)
                    .unwrap_or_default();
                disk.as_str()
            }
        };
        let index = LineIndex::new(text);
        if seen.insert(path.clone()) {
            out.push((path, uri, found.iter().map(|d| convert::to_lsp_diagnostic(d, &index, &texts)).collect()));
        }
    }
    out
}

/// The directory template paths are relative to, for a reference kept as files.
fn reference_dir(ws: &Workspace) -> Option<PathBuf> {
    match ws.settings.as_ref()?.reference.as_ref()? {
        driftlint_reference::Location::Path(p) => crate::check::metadata_path(p).parent().map(convert::absolute),
        driftlint_reference::Location::Git(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checker_has_the_clis_stack() {
        assert_eq!(STACK_SIZE, crate::cli::STACK_SIZE);
    }

    #[test]
    fn a_panic_in_a_job_is_caught_with_its_message() {
        assert_eq!(catching(|| panic!("boom")), Err("boom".to_string()));
        assert_eq!(catching(|| panic!("{} {}", "formatted", 1)), Err("formatted 1".to_string()));
        assert_eq!(catching(|| {}), Ok(()));
    }

    /// A document's newer check supersedes its older one (whether or not the older was its
    /// first), a repository's newer check its older one; other documents' and repositories'
    /// checks and watched-file events supersede nothing and are never superseded.
    #[test]
    fn only_a_newer_check_of_the_same_document_or_repository_supersedes() {
        let doc = |path: &str, version, opened| Job::Document {
            key: PathBuf::from("/r/.driftlint.yaml"),
            path: PathBuf::from(path),
            version,
            text: String::new(),
            opened,
        };
        let repo = |key: &str| Job::Repository { key: PathBuf::from(key), open: HashMap::new() };
        let latest = Latest::default();
        let a1 = supersede(&latest, &doc("/r/a.yaml", 1, true));
        let r = supersede(&latest, &repo("/r/.driftlint.yaml"));
        let watched = supersede(&latest, &Job::Watched(Vec::new()));
        let b = supersede(&latest, &doc("/r/b.yaml", 2, false));
        let s = supersede(&latest, &repo("/s/.driftlint.yaml"));
        assert!(![&a1, &r, &watched, &b, &s].iter().any(|f| f.load(Ordering::SeqCst)));
        let a2 = supersede(&latest, &doc("/r/a.yaml", 2, false));
        assert!(a1.load(Ordering::SeqCst) && !a2.load(Ordering::SeqCst));
        let _ = supersede(&latest, &Job::Watched(Vec::new()));
        let r2 = supersede(&latest, &repo("/r/.driftlint.yaml"));
        assert!(r.load(Ordering::SeqCst) && !r2.load(Ordering::SeqCst));
        assert!(![&watched, &b, &s, &a2].iter().any(|f| f.load(Ordering::SeqCst)));
    }

    /// A document's check of `objects` ConfigMaps, each with a duplicate key (a finding of its
    /// own), in a repository of its own; written to disk as `many.yaml` at the first size.
    fn many(dir: &Path, objects: usize, version: i32, opened: bool) -> Job {
        let root = dir;
        if !root.join(".git").exists() {
            std::fs::create_dir(root.join(".git")).unwrap();
            std::fs::write(root.join(".driftlint.yaml"), "exclude: []\n").unwrap();
        }
        let text: String = (0..objects)
            .map(|i| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n  name: twice\n---\n"))
            .collect();
        let path = root.join("many.yaml");
        if !path.exists() {
            std::fs::write(&path, &text).unwrap();
        }
        Job::Document { key: root.join(".driftlint.yaml"), path, version, text, opened }
    }

    /// Starts a checker on `job`, a check of more than twelve batches (a text over the size
    /// from which a text is cut, 64 KiB, into runs of 8 KiB, each a batch), and holds it
    /// between its first and second batch: the gate's tokens are taken before the job, before
    /// the first batch and before the second, and each send on the rendezvous channel returns
    /// once the checker has taken the token.
    fn held_between_batches(job: Job) -> (Checker, crossbeam_channel::Sender<()>) {
        let Job::Document { text, .. } = &job else { unreachable!() };
        assert!(text.len() > 96 * 1024, "{}", text.len());
        let (gate, held) = crossbeam_channel::bounded::<()>(0);
        let checker = Checker::start(Some(held));
        checker.send(job);
        for _ in 0..3 {
            gate.send(()).unwrap();
        }
        (checker, gate)
    }

    /// A document's check held between two of its batches while the editor sends a newer
    /// text: it stops at its next batch (the runner asks before each) and sends nothing; the
    /// newer text is checked next and only its findings come.
    #[test]
    fn a_newer_text_stops_a_running_check_between_its_batches() {
        let dir = tempfile::tempdir().unwrap();
        let (mut checker, gate) = held_between_batches(many(dir.path(), 2000, 1, true));
        // The newer text is a single batch.
        checker.send(many(dir.path(), 2, 2, false));
        // From here: the older check's next batch (where it stops, unless it saw the newer job
        // as it took the last token), the newer job, its one batch. An older check run to its
        // end would take a token for each of its batches.
        let mut taken = 0;
        let mut versions = Vec::new();
        let found = loop {
            crossbeam_channel::select! {
                send(gate, ()) -> sent => {
                    sent.unwrap();
                    taken += 1;
                }
                recv(checker.done) -> done => match done.unwrap() {
                    Done::Document { version, found, .. } => {
                        versions.push(version);
                        if version == 2 {
                            break found.expect("a manifest").1;
                        }
                    }
                    Done::Problem(p) => panic!("{}", p.message),
                    Done::Failed(why) => panic!("{why}"),
                    _ => {}
                },
                default(std::time::Duration::from_secs(120)) => panic!("no check of the newer text"),
            }
        };
        assert_eq!(versions, [2], "the older text's check sent nothing");
        assert!(taken <= 3, "the older check stopped at its next batch, not after {taken} tokens");
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().all(|d| d.message.contains("duplicate key")), "{found:?}");
        drop(gate);
        checker.join();
    }

    /// Shutdown while a check runs: the check stops at its next batch, sends nothing, and the
    /// thread ends.
    #[test]
    fn shutdown_stops_a_running_check_between_its_batches() {
        let dir = tempfile::tempdir().unwrap();
        let (mut checker, gate) = held_between_batches(many(dir.path(), 2000, 1, true));
        checker.stop();
        let done = checker.done.clone();
        let joined = std::thread::spawn(move || checker.join());
        let mut taken = 0;
        // Until the thread ends (its end of the gate and of `done` go with it).
        loop {
            crossbeam_channel::select! {
                send(gate, ()) -> sent => match sent {
                    Ok(()) => taken += 1,
                    Err(_) => break,
                },
                recv(done) -> message => match message {
                    Err(_) => break,
                    Ok(Done::Document { version, .. }) => panic!("the check of version {version} sent its findings"),
                    Ok(_) => {}
                },
                default(std::time::Duration::from_secs(120)) => panic!("the checker did not end"),
            }
        }
        joined.join().unwrap();
        assert!(!done.try_iter().any(|d| matches!(d, Done::Document { .. })), "the check sent its findings");
        // One at most: the check may have seen `stop` as it took the last token before.
        assert!(taken <= 1, "the check stopped at its next batch, not after {taken} tokens");
    }
}
