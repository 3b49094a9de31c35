//! The server loop: one thread reads the client's messages in order, keeps the open documents,
//! and runs the checks when a document has been quiet for the debounce interval (the runner
//! itself spreads a check over rayon's pool, as `check` does).
//!
//! Messages are taken from the connection into a local queue before a request is answered and
//! before a check starts, so that a `$/cancelRequest` still queued cancels its request, and a
//! newer change to a document postpones the check of its older text (the newest buffer wins).
//! A panic while answering a request is caught and answered as an LSP error; one during a
//! check is logged to the client and the server goes on.

use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossbeam_channel::{RecvTimeoutError, Sender};
use driftlint_core::diagnostic::SourcePath;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;

use super::convert::{self, LineIndex, Texts};
use super::documents::{Checked, Document};
use super::workspace::Workspace;
use super::{actions, hover};

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// How long a document must be quiet after a change before it is checked.
    pub debounce: Duration,
}

impl Default for Options {
    fn default() -> Self {
        // Typing speed is 5–10 keys a second: 150 ms checks on a pause, not on every key.
        Options { debounce: Duration::from_millis(150) }
    }
}

/// How the session ended.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// `shutdown` then `exit`, as the specification asks.
    Clean,
    /// `exit` without `shutdown`, or the client went away: exit code 1 (the specification).
    Abrupt,
}

/// Serves one client on `connection`: the initialize handshake, then messages until `exit`.
pub fn serve(connection: &Connection, options: Options) -> anyhow::Result<End> {
    let (id, params) = connection.initialize_start()?;
    let init: lsp::InitializeParams = serde_json::from_value(params)?;
    let result = lsp::InitializeResult {
        capabilities: capabilities(),
        server_info: Some(lsp::ServerInfo {
            name: "driftlint".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    connection.initialize_finish(id, serde_json::to_value(result)?)?;
    let mut server = Server::new(connection.sender.clone(), &init, options);
    if watches_dynamically(&init) {
        server.register_watchers();
    }
    server.run(connection)
}

fn capabilities() -> lsp::ServerCapabilities {
    lsp::ServerCapabilities {
        position_encoding: Some(lsp::PositionEncodingKind::UTF16),
        text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(lsp::TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(lsp::TextDocumentSyncKind::INCREMENTAL),
            save: Some(lsp::TextDocumentSyncSaveOptions::Supported(true)),
            ..lsp::TextDocumentSyncOptions::default()
        })),
        hover_provider: Some(lsp::HoverProviderCapability::Simple(true)),
        definition_provider: Some(lsp::OneOf::Left(true)),
        code_action_provider: Some(lsp::CodeActionProviderCapability::Options(lsp::CodeActionOptions {
            code_action_kinds: Some(vec![lsp::CodeActionKind::QUICKFIX]),
            ..lsp::CodeActionOptions::default()
        })),
        ..lsp::ServerCapabilities::default()
    }
}

fn watches_dynamically(init: &lsp::InitializeParams) -> bool {
    init.capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|w| w.dynamic_registration)
        .unwrap_or(false)
}

/// What the server keeps between messages.
struct Server {
    sender: Sender<Message>,
    options: Options,
    /// The editor's workspace folder: the root of a configuration-less workspace.
    root: PathBuf,
    /// Open documents by absolute path.
    documents: HashMap<PathBuf, Document>,
    /// Warm state by configuration file (or by `root` without one).
    workspaces: HashMap<PathBuf, Workspace>,
    /// Documents waiting for their check, and when it is due.
    due: HashMap<PathBuf, Instant>,
    /// Workspaces waiting for a whole-repository check.
    repository_due: HashSet<PathBuf>,
    /// Files outside the open documents that a repository check published findings on.
    repository_published: HashMap<PathBuf, HashSet<PathBuf>>,
    /// Configuration problems already shown (each once), and the files they were published on.
    shown: HashSet<String>,
    problem_uris: Vec<lsp::Uri>,
    queue: VecDeque<Message>,
    next_request: i32,
    shut_down: bool,
}

impl Server {
    fn new(sender: Sender<Message>, init: &lsp::InitializeParams, options: Options) -> Server {
        #[allow(deprecated)] // `root_uri` is what clients without workspace folders send.
        let root = init
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .map(|f| f.uri.clone())
            .or_else(|| init.root_uri.clone())
            .and_then(|u| convert::path_of(&u))
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        Server {
            sender,
            options,
            root,
            documents: HashMap::new(),
            workspaces: HashMap::new(),
            due: HashMap::new(),
            repository_due: HashSet::new(),
            repository_published: HashMap::new(),
            shown: HashSet::new(),
            problem_uris: Vec::new(),
            queue: VecDeque::new(),
            next_request: 0,
            shut_down: false,
        }
    }

    fn run(&mut self, connection: &Connection) -> anyhow::Result<End> {
        loop {
            if self.queue.is_empty() && self.check_is_due() {
                self.drain(connection);
                // A change that came meanwhile is applied first and postpones its check.
                if !self.queue.iter().any(is_text_sync) {
                    self.run_due_checks();
                    continue;
                }
            }
            let message = match self.queue.pop_front() {
                Some(m) => m,
                None => match self.next_deadline() {
                    Some(at) => match connection.receiver.recv_timeout(at.saturating_duration_since(Instant::now())) {
                        Ok(m) => m,
                        Err(RecvTimeoutError::Timeout) => continue,
                        Err(RecvTimeoutError::Disconnected) => return Ok(End::Abrupt),
                    },
                    None => match connection.receiver.recv() {
                        Ok(m) => m,
                        Err(_) => return Ok(End::Abrupt),
                    },
                },
            };
            match message {
                Message::Request(req) => {
                    if req.method == lsp::request::Shutdown::METHOD {
                        // Answered here, not by `Connection::handle_shutdown`, which reads the
                        // channel for `exit` and would miss one already in our queue.
                        self.shut_down = true;
                        self.due.clear();
                        self.repository_due.clear();
                        self.send(Response::new_ok(req.id, ()).into());
                        continue;
                    }
                    if self.shut_down {
                        // The specification: after `shutdown`, requests are errors.
                        let why = "the server is shutting down".to_string();
                        self.send(Response::new_err(req.id, ErrorCode::InvalidRequest as i32, why).into());
                        continue;
                    }
                    self.drain(connection);
                    if self.cancelled_in_queue(&req.id) {
                        self.send(cancelled(req.id));
                        continue;
                    }
                    let response = respond_catching(&req, |req| self.handle_request(req));
                    self.send(response.into());
                }
                Message::Notification(n) if n.method == lsp::notification::Exit::METHOD => {
                    return Ok(if self.shut_down { End::Clean } else { End::Abrupt });
                }
                // After `shutdown`, only `exit` means anything.
                Message::Notification(_) if self.shut_down => {}
                Message::Notification(n) => {
                    let method = n.method.clone();
                    if catch_unwind(AssertUnwindSafe(|| self.handle_notification(n))).is_err() {
                        self.log(lsp::MessageType::ERROR, &format!("driftlint: internal error handling {method}"));
                    }
                }
                // Answers to our requests (the watcher registration): nothing to do.
                Message::Response(_) => {}
            }
        }
    }

    /// Moves every message already received into the queue.
    fn drain(&mut self, connection: &Connection) {
        while let Ok(m) = connection.receiver.try_recv() {
            self.queue.push_back(m);
        }
    }

    /// Whether a `$/cancelRequest` for `id` is queued (it is then taken out).
    fn cancelled_in_queue(&mut self, id: &RequestId) -> bool {
        let at =
            self.queue.iter().position(|m| matches!(m, Message::Notification(n) if cancel_id(n).as_ref() == Some(id)));
        at.map(|i| self.queue.remove(i)).is_some()
    }

    fn send(&self, message: Message) {
        // A client gone is seen by the loop when its channel closes.
        let _ = self.sender.send(message);
    }

    fn notify<N: lsp::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_string(), params).into());
    }

    fn log(&self, typ: lsp::MessageType, message: &str) {
        self.notify::<lsp::notification::LogMessage>(lsp::LogMessageParams { typ, message: message.to_string() });
    }

    /// Asks the client to tell us of changes to the files a workspace's warm state is made of.
    fn register_watchers(&mut self) {
        let watchers = ["**/.driftlint.yaml", "**/driftlint.lock", "**/*.{yaml,yml,json}", "**/*.rego", "**/*.tmpl"]
            .into_iter()
            .map(|glob| lsp::FileSystemWatcher { glob_pattern: lsp::GlobPattern::String(glob.to_string()), kind: None })
            .collect();
        let options = lsp::DidChangeWatchedFilesRegistrationOptions { watchers };
        let params = lsp::RegistrationParams {
            registrations: vec![lsp::Registration {
                id: "driftlint-watched-files".to_string(),
                method: lsp::notification::DidChangeWatchedFiles::METHOD.to_string(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        self.next_request += 1;
        let id = RequestId::from(format!("driftlint-{}", self.next_request));
        self.send(Request::new(id, lsp::request::RegisterCapability::METHOD.to_string(), params).into());
    }

    fn handle_request(&mut self, req: &Request) -> Response {
        use lsp::request::{CodeActionRequest, GotoDefinition, HoverRequest};
        let id = req.id.clone();
        match req.method.as_str() {
            HoverRequest::METHOD => match parse::<lsp::HoverParams>(req) {
                Ok(p) => {
                    let at = p.text_document_position_params;
                    let answer = self
                        .document(&at.text_document.uri)
                        .and_then(|(path, doc)| hover::hover(doc, path, at.position));
                    Response::new_ok(id, answer)
                }
                Err(e) => *e,
            },
            GotoDefinition::METHOD => match parse::<lsp::GotoDefinitionParams>(req) {
                Ok(p) => {
                    let at = p.text_document_position_params;
                    let answer = self
                        .document(&at.text_document.uri)
                        .and_then(|(path, doc)| hover::definition(doc, path, at.position));
                    Response::new_ok(id, answer)
                }
                Err(e) => *e,
            },
            CodeActionRequest::METHOD => match parse::<lsp::CodeActionParams>(req) {
                Ok(p) => Response::new_ok(id, self.code_actions(&p)),
                Err(e) => *e,
            },
            _ => Response::new_err(id, ErrorCode::MethodNotFound as i32, format!("unknown request {}", req.method)),
        }
    }

    fn document(&self, uri: &lsp::Uri) -> Option<(&Path, &Document)> {
        let path = convert::path_of(uri)?;
        self.documents.get_key_value(&path).map(|(p, d)| (p.as_path(), d))
    }

    fn code_actions(&self, p: &lsp::CodeActionParams) -> Vec<lsp::CodeActionOrCommand> {
        let Some((_, doc)) = self.document(&p.text_document.uri) else { return Vec::new() };
        let Some(checked) = doc.checked_now() else { return Vec::new() };
        let texts: Texts<'_> = checked.texts.iter().map(|(p, t)| (p.clone(), t.as_str())).collect();
        let text_of = |path: &Path| match self.documents.get(path) {
            Some(d) => Some(d.text.clone()),
            None => driftlint_core::input::read_bounded_to_string(path, driftlint_core::input::MAX_FILE_BYTES).ok(),
        };
        actions::code_actions(&checked.diagnostics, &doc.text, &texts, p.range, &text_of)
    }

    fn handle_notification(&mut self, n: Notification) {
        use lsp::notification::{
            Cancel, DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
            DidSaveTextDocument,
        };
        let now = Instant::now();
        let method = n.method.clone();
        match method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp::DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD) else { return };
                let Some(path) = convert::path_of(&p.text_document.uri) else { return };
                let doc = Document {
                    uri: p.text_document.uri,
                    text: p.text_document.text,
                    version: p.text_document.version,
                    checked: None,
                };
                self.documents.insert(path.clone(), doc);
                let key = self.workspace_of(&path);
                let fresh = !self.workspaces.contains_key(&key);
                let ws = self.workspace(&key);
                // A file created since the walk: walked again to learn whether it is checked.
                if !ws.checks(&path) && path.exists() && !fresh {
                    ws.walk();
                }
                if fresh {
                    self.repository_due.insert(key);
                }
                self.due.insert(path, now);
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp::DidChangeTextDocumentParams>(DidChangeTextDocument::METHOD) else {
                    return;
                };
                let Some(path) = convert::path_of(&p.text_document.uri) else { return };
                let Some(doc) = self.documents.get_mut(&path) else { return };
                doc.apply(p.text_document.version, p.content_changes);
                self.due.insert(path, now + self.options.debounce);
            }
            DidSaveTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp::DidSaveTextDocumentParams>(DidSaveTextDocument::METHOD) else { return };
                let Some(path) = convert::path_of(&p.text_document.uri) else { return };
                let key = self.workspace_of(&path);
                self.repository_due.insert(key);
                self.due.entry(path).or_insert(now);
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp::DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD) else { return };
                let Some(path) = convert::path_of(&p.text_document.uri) else { return };
                self.documents.remove(&path);
                self.due.remove(&path);
                self.publish(p.text_document.uri, Vec::new(), None);
            }
            DidChangeWatchedFiles::METHOD => {
                let Ok(p) = n.extract::<lsp::DidChangeWatchedFilesParams>(DidChangeWatchedFiles::METHOD) else {
                    return;
                };
                // A file created or deleted (the walk's manifests), or a change to what a
                // workspace is made of (configuration, lock, reference, a CRD, a policy):
                // every warm state is rebuilt, every open document and repository checked
                // again. A manifest's own change is not: its buffer is what is checked.
                let reload = p.changes.iter().any(|c| {
                    c.typ != lsp::FileChangeType::CHANGED
                        || convert::path_of(&c.uri).is_none_or(|path| {
                            self.workspaces.is_empty() || self.workspaces.values().any(|ws| ws.is_made_of(&path))
                        })
                });
                if !reload {
                    return;
                }
                self.workspaces.clear();
                self.shown.clear();
                for uri in std::mem::take(&mut self.problem_uris) {
                    self.publish(uri, Vec::new(), None);
                }
                let paths: Vec<PathBuf> = self.documents.keys().cloned().collect();
                for path in paths {
                    let key = self.workspace_of(&path);
                    self.workspace(&key);
                    self.repository_due.insert(key);
                    self.due.insert(path, now);
                }
            }
            Cancel::METHOD => {
                // A request still queued is answered as cancelled; one answered already is done.
                if let Some(id) = cancel_id(&n) {
                    let at = self.queue.iter().position(|m| matches!(m, Message::Request(r) if r.id == id));
                    if let Some(Message::Request(req)) = at.and_then(|i| self.queue.remove(i)) {
                        self.send(cancelled(req.id));
                    }
                }
            }
            _ => {}
        }
    }

    /// The key of the workspace a file belongs to: the configuration `check` would use for
    /// it, else the editor's workspace folder.
    fn workspace_of(&self, path: &Path) -> PathBuf {
        let dir = path.parent().unwrap_or(Path::new("/"));
        crate::config::discover(dir).unwrap_or_else(|| self.root.clone())
    }

    fn workspace(&mut self, key: &Path) -> &mut Workspace {
        if !self.workspaces.contains_key(key) {
            let ws = match key.file_name().is_some_and(|n| n == crate::config::FILE_NAME) {
                true => Workspace::load(Some(key.to_path_buf()), key.parent().unwrap_or(key).to_path_buf()),
                false => Workspace::load(None, key.to_path_buf()),
            };
            if let Some(problem) = ws.problem.clone() {
                self.show_problem(&problem);
            }
            self.workspaces.insert(key.to_path_buf(), ws);
        }
        self.workspaces.get_mut(key).expect("inserted above")
    }

    /// A configuration that cannot be used: shown once, and at its line in the file.
    fn show_problem(&mut self, problem: &super::workspace::Problem) {
        if !self.shown.insert(problem.message.clone()) {
            return;
        }
        self.notify::<lsp::notification::ShowMessage>(lsp::ShowMessageParams {
            typ: lsp::MessageType::ERROR,
            message: format!("driftlint: {}", problem.message),
        });
        if let Some((path, line)) = &problem.at
            && let Some(uri) = convert::uri_of(path)
        {
            let at = lsp::Position::new(u32::try_from(line.saturating_sub(1)).unwrap_or(0), 0);
            let d = lsp::Diagnostic {
                range: lsp::Range::new(at, at),
                severity: Some(lsp::DiagnosticSeverity::ERROR),
                source: Some("driftlint".to_string()),
                message: problem.message.clone(),
                ..lsp::Diagnostic::default()
            };
            self.publish(uri.clone(), vec![d], None);
            self.problem_uris.push(uri);
        }
    }

    fn next_deadline(&self) -> Option<Instant> {
        let repository = (!self.repository_due.is_empty()).then(Instant::now);
        self.due.values().copied().chain(repository).min()
    }

    fn check_is_due(&self) -> bool {
        self.next_deadline().is_some_and(|at| at <= Instant::now())
    }

    /// Checks every document whose quiet interval has passed, then the repositories waiting.
    fn run_due_checks(&mut self) {
        let now = Instant::now();
        let ready: Vec<PathBuf> = self.due.iter().filter(|(_, at)| **at <= now).map(|(p, _)| p.clone()).collect();
        for path in ready {
            self.due.remove(&path);
            if catch_unwind(AssertUnwindSafe(|| self.check_document(&path))).is_err() {
                self.log(lsp::MessageType::ERROR, &format!("driftlint: internal error checking {}", path.display()));
            }
        }
        // Documents first: their findings are what the user is looking at.
        if self.due.values().any(|at| *at <= Instant::now()) {
            return;
        }
        for key in std::mem::take(&mut self.repository_due) {
            if catch_unwind(AssertUnwindSafe(|| self.check_repository(&key))).is_err() {
                self.log(lsp::MessageType::ERROR, "driftlint: internal error checking the repository");
            }
        }
    }

    fn check_document(&mut self, path: &Path) {
        let key = self.workspace_of(path);
        self.workspace(&key);
        let (Some(ws), Some(doc)) = (self.workspaces.get(&key), self.documents.get(path)) else { return };
        let (version, uri) = (doc.version, doc.uri.clone());
        // Not a manifest of this configuration (excluded, a chart's template, a tool's file,
        // not YAML): `check` reports nothing on it, nor do we.
        let outcome = match ws.checks(path) {
            true => Some(ws.check_document(path, &doc.text).map(|report| (report, reference_dir(ws)))),
            false => None,
        };
        let (report, reference_dir) = match outcome {
            None => return self.publish(uri, Vec::new(), Some(version)),
            Some(Err(message)) => return self.show_problem(&super::workspace::Problem { message, at: None }),
            Some(Ok(found)) => found,
        };
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
        let objects = report
            .correlations
            .objects
            .into_iter()
            .filter(|o| matches!(&o.path, SourcePath::File(p) if convert::absolute(p) == path))
            .collect();
        let checked = Checked { version, diagnostics: report.diagnostics, texts, objects, reference_dir };
        let lsp_diagnostics = {
            let index = LineIndex::new(&self.documents[path].text);
            let texts: Texts<'_> = checked.texts.iter().map(|(p, t)| (p.clone(), t.as_str())).collect();
            checked
                .diagnostics
                .iter()
                .filter(|d| d.suppressed.is_none())
                .map(|d| convert::to_lsp_diagnostic(d, &index, &texts))
                .collect()
        };
        if let Some(doc) = self.documents.get_mut(path) {
            doc.checked = Some(checked);
        }
        self.publish(uri, lsp_diagnostics, Some(version));
    }

    /// The whole repository checked, open buffers in place of their files: the findings on
    /// files that are no open document's and no manifest's (a missing object at its
    /// template's entry in `metadata.yaml`, the reference's and the configuration's own
    /// problems) are published; open documents have their own checks.
    fn check_repository(&mut self, key: &Path) {
        let open: HashMap<PathBuf, String> = self.documents.iter().map(|(p, d)| (p.clone(), d.text.clone())).collect();
        let Some(ws) = self.workspaces.get(key) else { return };
        let report = match ws.check_repository(&open) {
            Ok(r) => r,
            Err(message) => {
                let problem = super::workspace::Problem { message, at: None };
                self.show_problem(&problem);
                return;
            }
        };
        let mut by_file: HashMap<PathBuf, Vec<&driftlint_core::diagnostic::Diagnostic>> = HashMap::new();
        for d in report.diagnostics.iter().filter(|d| d.suppressed.is_none()) {
            let SourcePath::File(p) = &d.primary.path else { continue };
            let p = convert::absolute(p);
            if !self.documents.contains_key(&p) && !ws.checks(&p) {
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
        let mut published = HashSet::new();
        let mut out = Vec::new();
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
            out.push((uri, found.iter().map(|d| convert::to_lsp_diagnostic(d, &index, &texts)).collect()));
            published.insert(path);
        }
        let before = self.repository_published.insert(key.to_path_buf(), published.clone()).unwrap_or_default();
        for (uri, diagnostics) in out {
            self.publish(uri, diagnostics, None);
        }
        for stale in before.difference(&published) {
            if let Some(uri) = convert::uri_of(stale) {
                self.publish(uri, Vec::new(), None);
            }
        }
    }

    fn publish(&self, uri: lsp::Uri, diagnostics: Vec<lsp::Diagnostic>, version: Option<i32>) {
        self.notify::<lsp::notification::PublishDiagnostics>(lsp::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        });
    }
}

/// The directory template paths are relative to, for a reference kept as files.
fn reference_dir(ws: &Workspace) -> Option<PathBuf> {
    match ws.settings.as_ref()?.reference.as_ref()? {
        driftlint_reference::Location::Path(p) => crate::check::metadata_path(p).parent().map(convert::absolute),
        driftlint_reference::Location::Git(_) => None,
    }
}

fn is_text_sync(m: &Message) -> bool {
    use lsp::notification::{DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument};
    matches!(m, Message::Notification(n) if [DidChangeTextDocument::METHOD, DidOpenTextDocument::METHOD, DidCloseTextDocument::METHOD].contains(&n.method.as_str()))
}

fn cancel_id(n: &Notification) -> Option<RequestId> {
    if n.method != lsp::notification::Cancel::METHOD {
        return None;
    }
    let p: lsp::CancelParams = serde_json::from_value(n.params.clone()).ok()?;
    Some(match p.id {
        lsp::NumberOrString::Number(n) => RequestId::from(n),
        lsp::NumberOrString::String(s) => RequestId::from(s),
    })
}

fn cancelled(id: RequestId) -> Message {
    Response::new_err(id, ErrorCode::RequestCanceled as i32, "cancelled".to_string()).into()
}

/// A request's parameters, or the error response for ones that do not decode.
fn parse<P: serde::de::DeserializeOwned>(req: &Request) -> Result<P, Box<Response>> {
    serde_json::from_value(req.params.clone())
        .map_err(|e| Box::new(Response::new_err(req.id.clone(), ErrorCode::InvalidParams as i32, e.to_string())))
}

/// `handle`'s answer to `req`; a panic in it becomes an `InternalError` response naming the
/// request, so that the client gets an answer and the server goes on.
fn respond_catching(req: &Request, handle: impl FnOnce(&Request) -> Response) -> Response {
    match catch_unwind(AssertUnwindSafe(|| handle(req))) {
        Ok(response) => response,
        Err(payload) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Response::new_err(
                req.id.clone(),
                ErrorCode::InternalError as i32,
                format!("driftlint: internal error answering {}: {why}", req.method),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_answering_a_request_is_an_internal_error_response() {
        let req = Request::new(RequestId::from(7), "textDocument/hover".to_string(), serde_json::json!({}));
        let response = respond_catching(&req, |_| panic!("boom"));
        assert_eq!(response.id, RequestId::from(7));
        let error = response.response_result.expect_err("an error");
        assert_eq!(error.code, ErrorCode::InternalError as i32);
        assert!(error.message.contains("textDocument/hover") && error.message.contains("boom"), "{}", error.message);
        let fine = respond_catching(&req, |r| Response::new_ok(r.id.clone(), 1));
        assert!(fine.response_result.is_ok());
    }
}
