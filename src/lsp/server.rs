//! The server loop: one thread reads the client's messages in order, keeps the open documents,
//! answers requests, and asks the checker ([`super::checker`], a thread of its own) for a
//! document's check when it has been quiet for the debounce interval, and for a whole
//! repository's on save. The loop never waits for a check: it publishes a check's findings
//! when they arrive, if the document is still at the version checked (a newer text's check
//! is coming), and keeps them for hover, definition and code actions.
//!
//! Messages are taken from the connection into a local queue before a request is answered,
//! so that a `$/cancelRequest` still queued cancels its request. A panic while answering a
//! request is caught and answered as an LSP error; one during a check is logged to the client
//! and the server goes on.

use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Select, Sender};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;

use super::checker::{Checker, Done, Job};
use super::convert::{self, Texts};
use super::documents::Document;
use super::{actions, hover};

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// How long a document must be quiet after a change before it is checked.
    pub debounce: Duration,
    /// Tests only: the checker takes a token from this channel before each check, so that a
    /// test can hold a check "running" (a closed channel lets every check through).
    #[doc(hidden)]
    pub gate: Option<Receiver<()>>,
}

impl Default for Options {
    fn default() -> Self {
        // Typing speed is 5–10 keys a second: 150 ms checks on a pause, not on every key.
        Options { debounce: Duration::from_millis(150), gate: None }
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
    let end = server.run(connection);
    // A check still running is finished and dropped before the session ends.
    server.checker.join();
    end
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
    /// The thread that owns the workspaces' warm state and runs the checks.
    checker: Checker,
    /// The workspaces (by configuration file, or `root` without one) a check was asked of.
    known: HashSet<PathBuf>,
    /// Documents opened and not checked yet.
    opened: HashSet<PathBuf>,
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
        let checker = Checker::start(options.gate.clone());
        Server {
            sender,
            options,
            root,
            documents: HashMap::new(),
            checker,
            known: HashSet::new(),
            opened: HashSet::new(),
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
            if self.check_is_due() {
                self.ask_due_checks();
            }
            let message = match self.queue.pop_front() {
                Some(m) => m,
                None => match self.next_event(connection) {
                    Event::Message(m) => m,
                    Event::Done(done) => {
                        self.take(done);
                        continue;
                    }
                    Event::Timeout => continue,
                    Event::Disconnected => return Ok(End::Abrupt),
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
                        self.checker.stop();
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

    /// The next message from the client or result from the checker, waiting until the next
    /// check is due at most.
    fn next_event(&mut self, connection: &Connection) -> Event {
        let mut select = Select::new();
        let client = select.recv(&connection.receiver);
        let checks = select.recv(&self.checker.done);
        let op = match self.next_deadline() {
            Some(at) => match select.select_deadline(at) {
                Ok(op) => op,
                Err(_) => return Event::Timeout,
            },
            None => select.select(),
        };
        if op.index() == client {
            return op.recv(&connection.receiver).map_or(Event::Disconnected, Event::Message);
        }
        debug_assert_eq!(op.index(), checks);
        // The checker gone (never, but for a session ending) has nothing more to say.
        op.recv(&self.checker.done).map_or(Event::Timeout, Event::Done)
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
                self.opened.insert(path.clone());
                let key = self.workspace_of(&path);
                // The first file of a repository: its whole-repository findings too.
                if self.known.insert(key.clone()) {
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
                self.opened.remove(&path);
                self.publish(p.text_document.uri, Vec::new(), None);
            }
            DidChangeWatchedFiles::METHOD => {
                let Ok(p) = n.extract::<lsp::DidChangeWatchedFilesParams>(DidChangeWatchedFiles::METHOD) else {
                    return;
                };
                // Whether the change reloads a warm state is the checker's to say (it holds them).
                let changes = p
                    .changes
                    .iter()
                    .map(|c| (convert::path_of(&c.uri), c.typ != lsp::FileChangeType::CHANGED))
                    .collect();
                self.checker.send(Job::Watched(changes));
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

    /// Asks for the check of every document whose quiet interval has passed, then of the
    /// repositories waiting (documents first: their findings are what the user is looking at).
    fn ask_due_checks(&mut self) {
        let now = Instant::now();
        let ready: Vec<PathBuf> = self.due.iter().filter(|(_, at)| **at <= now).map(|(p, _)| p.clone()).collect();
        for path in ready {
            self.due.remove(&path);
            let Some(doc) = self.documents.get(&path) else { continue };
            let key = self.workspace_of(&path);
            let opened = self.opened.remove(&path);
            self.checker.send(Job::Document { key, path, version: doc.version, text: doc.text.clone(), opened });
        }
        if self.due.values().any(|at| *at <= Instant::now()) {
            return;
        }
        for key in std::mem::take(&mut self.repository_due) {
            let open = self.documents.iter().map(|(p, d)| (p.clone(), d.text.clone())).collect();
            self.checker.send(Job::Repository { key, open });
        }
    }

    /// A result from the checker.
    fn take(&mut self, done: Done) {
        match done {
            Done::Document { path, version, found, context } => {
                if context {
                    // A buffer other documents' checks read changed: they are checked again.
                    let key = self.workspace_of(&path);
                    let others: Vec<PathBuf> =
                        self.documents.keys().filter(|p| **p != path && self.workspace_of(p) == key).cloned().collect();
                    let now = Instant::now();
                    for p in others {
                        self.due.entry(p).or_insert(now);
                    }
                }
                let Some(doc) = self.documents.get_mut(&path) else { return };
                // A newer text is waiting for its own check: this one's findings are stale.
                if doc.version != version {
                    return;
                }
                let uri = doc.uri.clone();
                match found {
                    None => {
                        doc.checked = None;
                        self.publish(uri, Vec::new(), Some(version));
                    }
                    Some((checked, diagnostics)) => {
                        doc.checked = Some(checked);
                        self.publish(uri, diagnostics, Some(version));
                    }
                }
            }
            Done::Repository { key, found } => {
                let published: HashSet<PathBuf> = found.iter().map(|(p, _, _)| p.clone()).collect();
                let before = self.repository_published.insert(key, published.clone()).unwrap_or_default();
                for (_, uri, diagnostics) in found {
                    self.publish(uri, diagnostics, None);
                }
                for stale in before.difference(&published) {
                    if let Some(uri) = convert::uri_of(stale) {
                        self.publish(uri, Vec::new(), None);
                    }
                }
            }
            Done::Reloaded => {
                self.shown.clear();
                for uri in std::mem::take(&mut self.problem_uris) {
                    self.publish(uri, Vec::new(), None);
                }
                let now = Instant::now();
                let paths: Vec<PathBuf> = self.documents.keys().cloned().collect();
                for path in paths {
                    let key = self.workspace_of(&path);
                    self.repository_due.insert(key);
                    self.due.insert(path, now);
                }
            }
            Done::Fields { path, version, fields, texts } => {
                if let Some(checked) =
                    self.documents.get_mut(&path).and_then(|d| d.checked.as_mut()).filter(|c| c.version == version)
                {
                    checked.fields = fields;
                    for (p, t) in texts {
                        checked.texts.entry(p).or_insert(t);
                    }
                }
            }
            Done::Problem(problem) => self.show_problem(&problem),
            Done::Failed(why) => {
                self.log(lsp::MessageType::ERROR, &format!("driftlint: internal error checking: {why}"))
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

/// What the loop waits for.
enum Event {
    Message(Message),
    Done(Done),
    Timeout,
    Disconnected,
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
