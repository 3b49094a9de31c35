//! `driftlint lsp`: the server driven in-process over `lsp_server::Connection::memory()` as an
//! editor drives it (initialize, open, change, save, hover, definition, code action,
//! watched-file reload, cancel, shutdown; checks held at a gate to show the loop is not
//! blocked by them; objects other files hold for lookups and admission parameters, from disk
//! and from unsaved buffers), Neovim's own client against the binary, and the VS Code
//! extension's settings schema against the snippet of docs/editors.md.
//!
//! The repository is `fixtures/repo` with its reference (`fixtures/reference`) copied into a
//! temporary git repository: its `app/frontend.yaml` drifts from the reference (512Mi where
//! the template says 256Mi), which `driftlint check` reports too.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

use driftlint::lsp::{End, Options, convert};
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use serde_json::{Value, json};

use super::{copy_dir, root};

/// A copy of the example repository and reference in a temporary git repository.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("fixtures/repo"), &dir.path().join("repo"));
    copy_dir(&root().join("fixtures/reference"), &dir.path().join("reference"));
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    // The configuration sits in `repo/` and names `../reference`, inside the repository.
    dir
}

fn uri(path: &Path) -> lsp::Uri {
    convert::uri_of(path).unwrap()
}

/// An editor's side of a session with a server on its own thread.
struct Client {
    conn: Connection,
    server: Option<std::thread::JoinHandle<anyhow::Result<End>>>,
    next_id: i32,
    /// Server requests and notifications seen while waiting for something else.
    seen: Vec<Message>,
}

impl Client {
    /// Sends `initialize` (and what `before` adds) before the server runs, then starts it.
    fn start_with(root: &Path, before: impl FnOnce(&Connection)) -> Client {
        Client::start_gated(root, before, None)
    }

    /// [`Client::start_with`], the checker taking a token from `gate` before each check.
    fn start_gated(
        root: &Path,
        before: impl FnOnce(&Connection),
        gate: Option<crossbeam_channel::Receiver<()>>,
    ) -> Client {
        let (server, conn) = Connection::memory();
        let params = json!({
            "processId": null,
            "rootUri": uri(root).as_str(),
            "capabilities": {
                "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } },
                "textDocument": { "hover": { "contentFormat": ["markdown"] } }
            }
        });
        conn.sender.send(Request::new(RequestId::from(0), "initialize".into(), params).into()).unwrap();
        conn.sender.send(Notification::new("initialized".into(), json!({})).into()).unwrap();
        before(&conn);
        let handle = std::thread::Builder::new()
            .stack_size(driftlint::cli::STACK_SIZE)
            .spawn(move || driftlint::lsp::serve(&server, Options { debounce: Duration::from_millis(30), gate }))
            .unwrap();
        let mut client = Client { conn, server: Some(handle), next_id: 1, seen: Vec::new() };
        let init = client.response(RequestId::from(0));
        let caps = &init.response_result.unwrap()["capabilities"];
        assert_eq!(caps["textDocumentSync"]["change"], json!(2), "incremental sync: {caps}");
        assert_eq!(caps["hoverProvider"], json!(true));
        client
    }

    fn start(root: &Path) -> Client {
        Client::start_with(root, |_| {})
    }

    fn recv(&mut self) -> Message {
        self.conn.receiver.recv_timeout(Duration::from_secs(120)).expect("the server answers within two minutes")
    }

    fn response(&mut self, id: RequestId) -> Response {
        loop {
            match self.recv() {
                Message::Response(r) if r.id == id => return r,
                other => self.seen.push(other),
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Response {
        let id = RequestId::from(self.next_id);
        self.next_id += 1;
        self.conn.sender.send(Request::new(id.clone(), method.into(), params).into()).unwrap();
        self.response(id)
    }

    fn notify(&self, method: &str, params: Value) {
        self.conn.sender.send(Notification::new(method.into(), params).into()).unwrap();
    }

    /// The next diagnostics published for `uri` that satisfy `accept` (earlier ones, of texts
    /// the server had not caught up with, are passed over).
    fn diagnostics(
        &mut self,
        uri: &lsp::Uri,
        accept: impl Fn(&lsp::PublishDiagnosticsParams) -> bool,
    ) -> Vec<lsp::Diagnostic> {
        let deadline = Instant::now() + Duration::from_secs(120);
        while Instant::now() < deadline {
            match self.recv() {
                Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => {
                    let p: lsp::PublishDiagnosticsParams = serde_json::from_value(n.params).unwrap();
                    if &p.uri == uri && accept(&p) {
                        return p.diagnostics;
                    }
                }
                other => self.seen.push(other),
            }
        }
        panic!("no diagnostics for {} accepted", uri.as_str());
    }

    fn open(&self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri(path).as_str(), "languageId": "yaml", "version": 1, "text": text } }),
        );
    }

    fn change(&self, path: &Path, version: i32, range: lsp::Range, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri(path).as_str(), "version": version },
                "contentChanges": [{ "range": range, "text": text }]
            }),
        );
    }

    fn shutdown(mut self) -> End {
        let r = self.request("shutdown", json!(null));
        assert!(r.response_result.is_ok(), "{r:?}");
        self.notify("exit", json!(null));
        self.server.take().unwrap().join().unwrap().unwrap()
    }
}

fn codes(diags: &[lsp::Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .map(|d| match &d.code {
            Some(lsp::NumberOrString::String(s)) => s.clone(),
            _ => String::new(),
        })
        .collect()
}

/// What `driftlint check` in `repo` says of the file whose path ends with `file`: its
/// unsuppressed findings' (rule, line), sorted (a finding without a position is shown on the
/// first line), and the run's output for messages.
fn check_findings(repo: &Path, file: &str) -> (Vec<(String, u64)>, String) {
    let run = super::run_in(repo, &["check", "--format", "json"], None);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    let mut found: Vec<(String, u64)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"].as_str().is_some_and(|p| p.ends_with(file)) && d["suppressed"].is_null())
        .map(|d| (d["rule"].as_str().unwrap().to_string(), d["line"].as_u64().unwrap_or(1)))
        .collect();
    found.sort();
    (found, run.stdout)
}

/// The server's diagnostics as (rule, 1-based line), sorted: what [`check_findings`] gives.
fn lsp_findings(diags: &[lsp::Diagnostic]) -> Vec<(String, u64)> {
    let mut found: Vec<(String, u64)> =
        diags.iter().zip(codes(diags)).map(|(d, c)| (c, u64::from(d.range.start.line) + 1)).collect();
    found.sort();
    found
}

/// The range of the first occurrence of `needle` in `text` (ASCII, one line).
fn range_of(text: &str, needle: &str) -> lsp::Range {
    let at = text.find(needle).unwrap();
    let line = text[..at].matches('\n').count() as u32;
    let column = (at - text[..at].rfind('\n').map_or(0, |i| i + 1)) as u32;
    lsp::Range::new(lsp::Position::new(line, column), lsp::Position::new(line, column + needle.len() as u32))
}

/// The diagnostics of a document are `driftlint check`'s findings on that file, from its
/// unsaved buffer; a change re-checks it (the file on disk never changes).
#[test]
fn diagnostics_are_checks_findings_on_the_unsaved_buffer() {
    let dir = repository();
    let repo = dir.path().join("repo");
    let file = repo.join("app/frontend.yaml");
    let text = std::fs::read_to_string(&file).unwrap();

    // What `driftlint check` says of the file: (rule, line) pairs.
    let (expected, output) = check_findings(&repo, "app/frontend.yaml");
    assert!(expected.iter().any(|(r, _)| r == "value-drift"), "{output}");

    let mut client = Client::start(&dir.path().join("repo"));
    client.open(&file, &text);
    let diags = client.diagnostics(&uri(&file), |p| p.version == Some(1));
    assert_eq!(lsp_findings(&diags), expected);
    // The drift names the template line that set the expectation.
    let drift = diags.iter().find(|d| d.message.contains("512Mi")).expect("the memory drift");
    let related = drift.related_information.as_ref().expect("the template line");
    assert!(related[0].location.uri.as_str().ends_with("/reference/deployment.yaml"), "{related:?}");
    assert_eq!(related[0].location.range.start.line, 22, "{related:?}");
    assert_eq!(drift.severity, Some(lsp::DiagnosticSeverity::ERROR));

    // The value fixed in the buffer: the drift is gone; a schema error typed in is found.
    client.change(&file, 2, range_of(&text, "512Mi"), "256Mi");
    let diags = client.diagnostics(&uri(&file), |p| p.version == Some(2));
    assert!(!codes(&diags).contains(&"value-drift".to_string()), "{diags:?}");
    client.change(&file, 3, range_of(&text, "replicas: 3"), "replicas: three");
    let diags = client.diagnostics(&uri(&file), |p| p.version == Some(3));
    let schema = diags.iter().zip(codes(&diags)).find(|(_, c)| c.starts_with("schema-"));
    let (schema, _) = schema.unwrap_or_else(|| panic!("a schema finding on `replicas: three`: {diags:?}"));
    assert_eq!(schema.range.start.line, range_of(&text, "replicas: 3").start.line, "{schema:?}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "the file on disk is untouched");
    assert_eq!(client.shutdown(), End::Clean);
}

/// Hover on a drift explains the rule and names the template line; definition opens it;
/// code actions answer (with no fix known for this finding, none).
#[test]
fn hover_definition_and_code_actions_on_a_drift() {
    let dir = repository();
    let file = dir.path().join("repo/app/frontend.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut client = Client::start(&dir.path().join("repo"));
    client.open(&file, &text);
    client.diagnostics(&uri(&file), |p| p.version == Some(1) && !p.diagnostics.is_empty());
    let at = range_of(&text, "512Mi").start;
    let position = json!({ "textDocument": { "uri": uri(&file).as_str() }, "position": at });

    let hover = client.request("textDocument/hover", position.clone());
    let value = hover.response_result.unwrap()["contents"]["value"].as_str().unwrap().to_string();
    assert!(value.contains("**value-drift**"), "{value}");
    assert!(value.contains("What it flags"), "the rule's explanation: {value}");
    assert!(value.contains("deployment.yaml:23"), "the template line: {value}");

    let definition = client.request("textDocument/definition", position);
    let locations: Vec<lsp::Location> = serde_json::from_value(definition.response_result.unwrap()).unwrap();
    assert_eq!(locations.len(), 1);
    assert!(locations[0].uri.as_str().ends_with("/reference/deployment.yaml"));
    assert_eq!(locations[0].range.start.line, 22);

    // Elsewhere in the object: the template it matched.
    let name = range_of(&text, "replicas").start;
    let hover = client
        .request("textDocument/hover", json!({ "textDocument": { "uri": uri(&file).as_str() }, "position": name }));
    let value = hover.response_result.unwrap()["contents"]["value"].as_str().unwrap().to_string();
    assert!(value.contains("`deployment.yaml`"), "{value}");

    let actions = client.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": uri(&file).as_str() },
            "range": range_of(&text, "512Mi"),
            "context": { "diagnostics": [] }
        }),
    );
    // The drift's safe fix is the preferred quick fix: the value replaced in the buffer.
    let actions = actions.response_result.unwrap_or_else(|e| panic!("{e:?}"));
    let actions = actions.as_array().expect("a list of code actions");
    assert_eq!(actions.len(), 1, "{actions:?}");
    let action = &actions[0];
    assert_eq!((action["kind"].as_str(), action["isPreferred"].as_bool()), (Some("quickfix"), Some(true)));
    assert!(action["title"].as_str().is_some_and(|t| t.contains("256Mi")), "{action}");
    let edits = action["edit"]["changes"].as_object().expect("a workspace edit");
    let (edited, list) = edits.iter().next().expect("one file edited");
    assert!(edited.ends_with("/repo/app/frontend.yaml"), "{edited}");
    assert_eq!(list[0]["newText"], "256Mi");
    assert_eq!(list[0]["range"], serde_json::to_value(range_of(&text, "512Mi")).unwrap());
    // An unknown method is an error, not a hang or a crash.
    let unknown = client.request("textDocument/rename", json!({}));
    assert_eq!(unknown.response_result.unwrap_err().code, lsp_server::ErrorCode::MethodNotFound as i32);
    assert_eq!(client.shutdown(), End::Clean);
}

/// The watcher is registered; a changed `.driftlint.yaml` reported by the client is read again
/// and the open documents re-checked with it.
#[test]
fn a_changed_configuration_is_reloaded_on_the_watched_file_event() {
    let dir = repository();
    let repo = dir.path().join("repo");
    let file = repo.join("app/frontend.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut client = Client::start(&repo);
    client.open(&file, &text);
    let diags = client.diagnostics(&uri(&file), |p| p.version == Some(1));
    assert!(codes(&diags).contains(&"value-drift".to_string()));
    let registered = client.seen.iter().any(|m| {
        matches!(m, Message::Request(r) if r.method == "client/registerCapability"
            && r.params.to_string().contains("workspace/didChangeWatchedFiles")
            && r.params.to_string().contains(".driftlint.yaml"))
    });
    assert!(registered, "{:?}", client.seen);

    let config = repo.join(".driftlint.yaml");
    let mut cfg = std::fs::read_to_string(&config).unwrap();
    cfg = cfg.replace("rules:\n", "rules:\n  value-drift: off\n");
    std::fs::write(&config, cfg).unwrap();
    client
        .notify("workspace/didChangeWatchedFiles", json!({ "changes": [{ "uri": uri(&config).as_str(), "type": 2 }] }));
    let diags = client.diagnostics(&uri(&file), |_| true);
    assert!(!codes(&diags).contains(&"value-drift".to_string()), "{diags:?}");
    assert_eq!(client.shutdown(), End::Clean);
}

/// A file the configuration leaves out (`exclude:`) gets no diagnostics, as `check` reports
/// nothing on it; whole-repository findings land on `metadata.yaml` when a required object
/// is missing from the buffers (here: the Service deleted in the unsaved buffer, then saved).
#[test]
fn excluded_files_get_nothing_and_missing_objects_are_found_on_save() {
    let dir = repository();
    let repo = dir.path().join("repo");
    let excluded = repo.join("config/values.yaml");
    let mut client = Client::start(&repo);
    client.open(&excluded, &std::fs::read_to_string(&excluded).unwrap());
    assert!(client.diagnostics(&uri(&excluded), |_| true).is_empty());

    let file = repo.join("app/frontend.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    client.open(&file, &text);
    client.diagnostics(&uri(&file), |p| p.version == Some(1));
    let service = text.find("---").unwrap();
    let end = convert::LineIndex::new(&text).position(text.len());
    let from = convert::LineIndex::new(&text).position(service);
    client.change(&file, 2, lsp::Range::new(from, end), "");
    client.diagnostics(&uri(&file), |p| p.version == Some(2));
    client.notify("textDocument/didSave", json!({ "textDocument": { "uri": uri(&file).as_str() } }));
    let metadata = dir.path().join("reference/metadata.yaml");
    let diags = client.diagnostics(&uri(&metadata), |p| !p.diagnostics.is_empty());
    let missing = diags.iter().find(|d| codes(std::slice::from_ref(d))[0] == "missing-resource");
    let missing = missing.unwrap_or_else(|| panic!("{diags:?}"));
    assert!(missing.message.contains("service.yaml"), "{missing:?}");
    assert_eq!(client.shutdown(), End::Clean);
}

/// A request whose `$/cancelRequest` is queued behind it is answered as cancelled; `exit`
/// without `shutdown` ends the session abruptly (exit code 1).
#[test]
fn cancellation_and_exit_without_shutdown() {
    let dir = repository();
    let file = dir.path().join("repo/namespace.yaml");
    let mut client = Client::start_with(&dir.path().join("repo"), |conn| {
        let hover =
            json!({ "textDocument": { "uri": uri(&file).as_str() }, "position": { "line": 0, "character": 0 } });
        conn.sender.send(Request::new(RequestId::from(41), "textDocument/hover".into(), hover).into()).unwrap();
        conn.sender.send(Notification::new("$/cancelRequest".into(), json!({ "id": 41 })).into()).unwrap();
    });
    let r = client.response(RequestId::from(41));
    assert_eq!(r.response_result.err().map(|e| e.code), Some(lsp_server::ErrorCode::RequestCanceled as i32));
    client.notify("exit", json!(null));
    assert_eq!(client.server.take().unwrap().join().unwrap().unwrap(), End::Abrupt);
}

/// `shutdown` and `exit` sent right behind a request (read together from the channel) end the
/// session cleanly; a request after `shutdown` is an error.
#[test]
fn shutdown_and_exit_queued_behind_a_request() {
    let dir = repository();
    let file = dir.path().join("repo/namespace.yaml");
    let mut client = Client::start_with(&dir.path().join("repo"), |conn| {
        let hover =
            json!({ "textDocument": { "uri": uri(&file).as_str() }, "position": { "line": 0, "character": 0 } });
        conn.sender.send(Request::new(RequestId::from(40), "textDocument/hover".into(), hover.clone()).into()).unwrap();
        conn.sender.send(Request::new(RequestId::from(41), "shutdown".into(), json!(null)).into()).unwrap();
        conn.sender.send(Request::new(RequestId::from(42), "textDocument/hover".into(), hover).into()).unwrap();
        conn.sender.send(Notification::new("exit".into(), json!(null)).into()).unwrap();
    });
    assert!(client.response(RequestId::from(40)).response_result.is_ok());
    assert!(client.response(RequestId::from(41)).response_result.is_ok());
    let after = client.response(RequestId::from(42)).response_result.unwrap_err();
    assert_eq!(after.code, lsp_server::ErrorCode::InvalidRequest as i32);
    assert_eq!(client.server.take().unwrap().join().unwrap().unwrap(), End::Clean);
}

/// The uri helpers agree with what an editor sends for a path with spaces.
#[test]
fn file_uris_as_editors_send_them() {
    let u = lsp::Uri::from_str("file:///tmp/my%20repo/app.yaml").unwrap();
    assert_eq!(convert::path_of(&u), Some(PathBuf::from("/tmp/my repo/app.yaml")));
}

/// Neovim's own LSP client (Debian's `neovim`, headless) opens a manifest with a drift and a
/// schema error, and the diagnostics it received are read back: their lines, rules and
/// messages. Skipped without `nvim` (a failure under CI=true: `.ci/run` installs it).
#[test]
fn neovim_receives_the_drift_and_the_schema_error() {
    if std::process::Command::new("nvim").arg("--version").output().is_err() {
        driftlint_test_support::skip(
            "neovim_receives_the_drift_and_the_schema_error",
            "nvim is not installed (apt-get install neovim)",
        );
        return;
    }
    let dir = repository();
    let repo = dir.path().join("repo");
    let file = repo.join("app/frontend.yaml");
    let text = std::fs::read_to_string(&file).unwrap().replace("replicas: 3", "replicas: three");
    std::fs::write(&file, &text).unwrap();
    let out = dir.path().join("diagnostics.json");
    let mut child = std::process::Command::new("nvim")
        .args(["--headless", "--clean", "-c"])
        .arg(format!("luafile {}", root().join("tests/fixtures/lsp/nvim.lua").display()))
        .env("DRIFTLINT_BIN", env!("CARGO_BIN_EXE_driftlint"))
        .env("DRIFTLINT_FILE", &file)
        .env("DRIFTLINT_ROOT", &repo)
        .env("DRIFTLINT_OUT", &out)
        .env("DRIFTLINT_WANT", "2")
        .current_dir(&repo)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // A guard against a hung editor, not a measure: the script itself gives up after 60 s.
    let deadline = Instant::now() + Duration::from_secs(180);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("nvim did not finish");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let found: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let line_of = |needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() as u64 + 1;
    let drift = found.iter().find(|d| d["code"] == json!("value-drift"));
    let drift = drift.unwrap_or_else(|| panic!("{found:?}"));
    assert_eq!(drift["line"], json!(line_of("512Mi")), "{found:?}");
    assert!(drift["message"].as_str().unwrap().contains("512Mi"), "{found:?}");
    let schema = found.iter().find(|d| d["code"].as_str().is_some_and(|c| c.starts_with("schema-")));
    let schema = schema.unwrap_or_else(|| panic!("{found:?}"));
    assert_eq!(schema["line"], json!(line_of("three")), "{found:?}");
}

/// The checks run off the message loop: while a check is held running, a hover is answered;
/// edits made meanwhile supersede the text being checked (its findings are never published,
/// nor those of a text edited again before its check began), and the newest text's findings
/// are published once the checker is free.
#[test]
fn checks_run_off_the_loop_and_newer_edits_supersede_older_ones() {
    let dir = repository();
    let repo = dir.path().join("repo");
    let file = repo.join("app/frontend.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    let (gate, held) = crossbeam_channel::unbounded::<()>();
    let mut client = Client::start_gated(&repo, |_| {}, Some(held));
    client.open(&file, &text);
    // The checker waits at the gate with the first text; the loop answers meanwhile.
    let hover = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri(&file).as_str() }, "position": range_of(&text, "512Mi").start }),
    );
    assert!(hover.response_result.is_ok(), "{hover:?}");
    client.change(&file, 2, range_of(&text, "512Mi"), "256Mi");
    let edited = text.replacen("512Mi", "256Mi", 1);
    client.change(&file, 3, range_of(&edited, "replicas: 3"), "replicas: three");
    // A request answered after the changes: the loop has applied them (it reads messages in
    // order), so the first text's findings, when they come, are of an older version.
    let _ = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri(&file).as_str() }, "position": { "line": 0, "character": 0 } }),
    );
    drop(gate);
    let first = client.diagnostics(&uri(&file), |_| true);
    let published: Vec<Option<i32>> = client
        .seen
        .iter()
        .filter_map(|m| match m {
            Message::Notification(n)
                if n.method == "textDocument/publishDiagnostics" && n.params["uri"] == json!(uri(&file).as_str()) =>
            {
                Some(n.params["version"].as_i64().map(|v| v as i32))
            }
            _ => None,
        })
        .collect();
    assert!(published.is_empty(), "nothing published before: {published:?}");
    let codes = codes(&first);
    assert!(!codes.contains(&"value-drift".to_string()), "the first publication is of version 3: {first:?}");
    assert!(codes.iter().any(|c| c.starts_with("schema-")), "{first:?}");
    assert_eq!(client.shutdown(), End::Clean);
}

/// `shutdown` and `exit` while the checker holds a check: the session ends cleanly once the
/// checker is free (nothing is checked or published after `shutdown`).
#[test]
fn shutdown_while_a_check_runs_is_clean() {
    let dir = repository();
    let repo = dir.path().join("repo");
    let file = repo.join("app/frontend.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    let (gate, held) = crossbeam_channel::unbounded::<()>();
    let mut client = Client::start_gated(&repo, |_| {}, Some(held));
    client.open(&file, &text);
    // An opened document is due at once: the check has been asked for (and waits at the
    // gate) once a request after the opening is answered.
    let _ = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri(&file).as_str() }, "position": { "line": 0, "character": 0 } }),
    );
    let r = client.request("shutdown", json!(null));
    assert!(r.response_result.is_ok(), "{r:?}");
    client.notify("exit", json!(null));
    // The checker is let go: it starts nothing after `shutdown`, and the server ends.
    gate.send(()).unwrap();
    drop(gate);
    assert_eq!(client.server.take().unwrap().join().unwrap().unwrap(), End::Clean);
    let late = client.conn.receiver.try_iter().any(|m| matches!(&m, Message::Notification(n) if n.method == "textDocument/publishDiagnostics" && n.params["uri"] == json!(uri(&file).as_str())));
    assert!(!late, "no findings published after shutdown");
}

/// A document's check reads what other files hold as `check` does: the reference's `network`
/// template asks `lookupCR` for the `cluster-info` ConfigMap, kept in a file of its own, for
/// the MTU it expects (1500 when there is none). The buffer's findings are `check`'s (no drift
/// at 9000); the other file's buffer edited (1400) re-checks the open document, which now
/// drifts, with nothing saved.
#[test]
fn a_document_check_reads_lookups_from_other_files_and_their_buffers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let reference = dir.path().join("reference");
    std::fs::create_dir_all(&reference).unwrap();
    std::fs::write(
        reference.join("metadata.yaml"),
        "apiVersion: v2\nparts:\n  - name: cluster\n    components:\n      - name: network\n        allOf:\n          - path: network.yaml\n          - path: info.yaml\n",
    )
    .unwrap();
    std::fs::write(
        reference.join("network.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: network\n  namespace: default\ndata:\n  mtu: \"{{ (lookupCR \"v1\" \"ConfigMap\" \"default\" \"cluster-info\").data.mtu | default \"1500\" }}\"\n",
    )
    .unwrap();
    std::fs::write(
        reference.join("info.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-info\n  namespace: default\ndata:\n  mtu: \"{{ .data.mtu }}\"\n",
    )
    .unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join(".driftlint.yaml"), "reference: ../reference\n").unwrap();
    let info = repo.join("info.yaml");
    let info_text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-info\n  namespace: default\ndata:\n  mtu: \"9000\"\n";
    std::fs::write(&info, info_text).unwrap();
    let network = repo.join("network.yaml");
    let text = info_text.replace("cluster-info", "network");
    std::fs::write(&network, &text).unwrap();

    let run = super::run_in(&repo, &["check", "--format", "json"], None);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["diagnostics"], json!([]), "`check` finds nothing: {}", run.stdout);

    let mut client = Client::start(&repo);
    client.open(&network, &text);
    let diags = client.diagnostics(&uri(&network), |p| p.version == Some(1));
    assert!(diags.is_empty(), "the lookup reads info.yaml, as `check` does: {diags:?}");

    client.open(&info, info_text);
    client.diagnostics(&uri(&info), |p| p.version == Some(1));
    client.change(&info, 2, range_of(info_text, "9000"), "1400");
    let diags = client.diagnostics(&uri(&network), |p| p.version == Some(1) && !p.diagnostics.is_empty());
    let drift = diags.iter().zip(codes(&diags)).find(|(_, c)| c == "value-drift");
    let (drift, _) = drift.unwrap_or_else(|| panic!("the MTU the buffer of info.yaml gives is expected: {diags:?}"));
    assert!(drift.message.contains("1400"), "{drift:?}");
    assert_eq!(drift.range.start.line, range_of(&text, "9000").start.line, "{drift:?}");
    assert_eq!(client.shutdown(), End::Clean);
}

/// The VS Code settings of docs/editors.md are valid settings of the extension they configure:
/// each key is one the extension declares (`contributes.configuration` of zsol/vscode-glspc's
/// package.json, kept in `tests/fixtures/lsp/vscode-glspc.package.json` with its commit), and
/// each value validates against that key's JSON Schema, as VS Code's settings editor checks it.
/// And the server they start is this one: the command and arguments run `driftlint lsp`.
#[test]
fn the_vscode_settings_are_the_extensions_own() {
    let docs = std::fs::read_to_string(root().join("docs/editors.md")).unwrap();
    let start = docs.find("\"glspc.server.command\"").expect("the VS Code snippet");
    let open = docs[..start].rfind("```json\n").unwrap() + "```json\n".len();
    let close = open + docs[open..].find("```").unwrap();
    let settings: Value = serde_json::from_str(&docs[open..close]).unwrap();
    let package: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/fixtures/lsp/vscode-glspc.package.json")).unwrap(),
    )
    .unwrap();
    let declared = package["configuration"]["properties"].as_object().unwrap();
    let settings = settings.as_object().unwrap();
    assert!(!settings.is_empty());
    for (key, value) in settings {
        let schema = declared.get(key).unwrap_or_else(|| panic!("`{key}` is no setting of the extension"));
        let validator = jsonschema::validator_for(schema).unwrap();
        let errors: Vec<String> = validator.iter_errors(value).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "`{key}`: {errors:?}");
    }
    assert_eq!(settings["glspc.server.command"], json!("driftlint"));
    assert_eq!(settings["glspc.server.commandArguments"], json!(["lsp"]));
    // The extension starts once VS Code has (no activation by language to configure).
    assert_eq!(package["activationEvents"], json!(["onStartupFinished"]));
}

/// Hover on a field without a finding that the matched template sets: the value the template
/// renders for it, whether it is the template's own text or rendered from the object, and the
/// template line; definition opens that line. (`replicas` is `{{ .spec.replicas | default 2 }}`
/// at line 7 of the template, the image a fixed value at line 18.)
#[test]
fn hover_and_definition_on_any_field_a_template_sets() {
    let dir = repository();
    let file = dir.path().join("repo/app/frontend.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut client = Client::start(&dir.path().join("repo"));
    client.open(&file, &text);
    client.diagnostics(&uri(&file), |p| p.version == Some(1) && !p.diagnostics.is_empty());
    let at = |needle: &str| {
        let r = range_of(&text, needle);
        json!({ "textDocument": { "uri": uri(&file).as_str() }, "position": { "line": r.start.line, "character": r.end.character - 1 } })
    };
    // The fields come just after the findings: asked again until they are there.
    let hover_of = |client: &mut Client, needle: &str| -> String {
        for _ in 0..200 {
            let r = client.request("textDocument/hover", at(needle));
            let v = r.response_result.unwrap()["contents"]["value"].as_str().unwrap_or_default().to_string();
            if v.contains("expects") {
                return v;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("no field hover on {needle}");
    };
    let replicas = hover_of(&mut client, "replicas: 3");
    assert!(replicas.contains("expects `3`"), "{replicas}");
    assert!(replicas.contains("rendered for this object"), "{replicas}");
    assert!(replicas.contains("deployment.yaml:7"), "{replicas}");
    let image = hover_of(&mut client, "image: registry.example.com/frontend:1.4");
    assert!(image.contains("expects `registry.example.com/frontend:1.4`"), "{image}");
    assert!(image.contains("a fixed value"), "{image}");
    assert!(image.contains("deployment.yaml:18"), "{image}");
    let definition = client.request("textDocument/definition", at("replicas: 3"));
    let locations: Vec<lsp::Location> = serde_json::from_value(definition.response_result.unwrap()).unwrap();
    assert_eq!(locations.len(), 1, "{locations:?}");
    assert!(locations[0].uri.as_str().ends_with("/reference/deployment.yaml"));
    assert_eq!(locations[0].range.start.line, 6);
    assert_eq!(client.shutdown(), End::Clean);
}

/// What a lookup sees of another file's object depends, as in kube-compare, on whether that
/// object was compared (and its `status` omitted) before: a document's check reads the files
/// in `check`'s order. The telco-shaped reference's Network template reads the
/// `Infrastructure/cluster` singleton's `status.platform`; `infrastructure.yaml` comes before
/// `network.yaml`, so `check` sees it without its status and expects `false`. The buffer's
/// findings are the same.
#[test]
fn a_document_check_reads_the_other_files_in_checks_order() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    copy_dir(&root().join("fixtures/bench-reference-telco"), &dir.path().join("reference"));
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join(".driftlint.yaml"), "reference: ../reference\n").unwrap();
    std::fs::write(
        repo.join("infrastructure.yaml"),
        "apiVersion: config.openshift.io/v1\nkind: Infrastructure\nmetadata:\n  name: cluster\nspec:\n  platformSpec:\n    type: BareMetal\nstatus:\n  platform: BareMetal\n",
    )
    .unwrap();
    let network = repo.join("network.yaml");
    let text = "apiVersion: operator.openshift.io/v1\nkind: Network\nmetadata:\n  name: cluster\nspec:\n  defaultNetwork:\n    ovnKubernetesConfig:\n      gatewayConfig:\n        routingViaHost: true\n  disableNetworkDiagnostics: false\n";
    std::fs::write(&network, text).unwrap();

    // What `driftlint check` says of the file: (rule, line) pairs.
    let (expected, output) = check_findings(&repo, "network.yaml");
    assert!(expected.iter().any(|(r, _)| r == "value-drift"), "{output}");

    let mut client = Client::start(&repo);
    client.open(&network, text);
    let diags = client.diagnostics(&uri(&network), |p| p.version == Some(1));
    assert_eq!(lsp_findings(&diags), expected);
    assert_eq!(client.shutdown(), End::Clean);
}

/// A parameterised admission policy (`paramKind`) reads its parameter from another file in a
/// document's check, as `check` does; editing the parameter's unsaved buffer re-checks the
/// open document against the new value.
#[test]
fn a_document_check_reads_admission_parameters_from_other_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join(".driftlint.yaml"), "fail-level: error\n").unwrap();
    std::fs::write(
        repo.join("policy.yaml"),
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: replicalimit\nspec:\n  paramKind:\n    apiVersion: rules.example.com/v1\n    kind: ReplicaLimit\n  matchConstraints:\n    resourceRules:\n      - apiGroups: [apps]\n        apiVersions: [v1]\n        operations: [CREATE]\n        resources: [deployments]\n  validations:\n    - expression: object.spec.replicas <= params.maxReplicas\n      message: too many replicas\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: replicalimit\nspec:\n  policyName: replicalimit\n  validationActions: [Deny]\n  paramRef:\n    name: small\n    namespace: default\n",
    )
    .unwrap();
    let params = repo.join("params.yaml");
    let params_text = "apiVersion: rules.example.com/v1\nkind: ReplicaLimit\nmetadata:\n  name: small\n  namespace: default\nmaxReplicas: 3\n";
    std::fs::write(&params, params_text).unwrap();
    let app = repo.join("app.yaml");
    let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: default\nspec:\n  replicas: 5\n  selector:\n    matchLabels: {app: d}\n  template:\n    metadata:\n      labels: {app: d}\n    spec:\n      containers:\n        - name: app\n          image: nginx:1.27\n";
    std::fs::write(&app, text).unwrap();

    // What `driftlint check` says of the file: (rule, line) pairs.
    let (expected, output) = check_findings(&repo, "app.yaml");
    assert!(expected.iter().any(|(r, _)| r == "admission-violation"), "{output}");

    let mut client = Client::start(&repo);
    client.open(&app, text);
    let diags = client.diagnostics(&uri(&app), |p| p.version == Some(1));
    assert_eq!(lsp_findings(&diags), expected);

    client.open(&params, params_text);
    client.diagnostics(&uri(&params), |p| p.version == Some(1));
    client.change(&params, 2, range_of(params_text, "maxReplicas: 3"), "maxReplicas: 9");
    let diags = client.diagnostics(&uri(&app), |p| !codes(&p.diagnostics).contains(&"admission-violation".to_string()));
    assert!(!codes(&diags).contains(&"admission-violation".to_string()), "{diags:?}");
    assert_eq!(client.shutdown(), End::Clean);
}
