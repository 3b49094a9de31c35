//! How long a keystroke in a 1,000-line manifest takes to reach the editor as diagnostics
//! under `driftlint lsp` (the goal: at most 50 ms, release build).
//!
//! A temporary repository holds `fixtures/repo`'s configuration and reference
//! (`fixtures/reference`) and one manifest of 1,000 lines: the web Deployment (with its drift)
//! and Service, and ConfigMaps that match the reference's settings template. The server runs
//! in-process on `lsp_server::Connection::memory()` with no debounce; each run sends one
//! `didChange` (one character typed in the Deployment's memory limit) and waits for the
//! `publishDiagnostics` of that version. The figure is the time between the two: the
//! document's whole check by `check`'s runner, the conversion, and the protocol's messages.
//!
//! ```text
//! cargo bench --bench lsp             # 1,000 lines, 30 keystrokes
//! cargo bench --bench lsp -- 5000 10  # 5,000 lines, 10 keystrokes
//! ```

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use driftlint::lsp::{Options, convert};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::json;

mod common;

use common::ms;

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let lines = args.first().copied().unwrap_or(1000);
    let runs = args.get(1).copied().unwrap_or(30).max(1);
    let dir = tempfile::tempdir().expect("a temp dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir(dir.path().join(".git")).expect(".git");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).expect("repo");
    let reference = dir.path().join("reference");
    std::fs::create_dir_all(&reference).expect("reference");
    for entry in std::fs::read_dir(root.join("fixtures/reference")).expect("fixtures/reference") {
        let entry = entry.expect("an entry");
        std::fs::copy(entry.path(), reference.join(entry.file_name())).expect("a copy");
    }
    std::fs::copy(root.join("fixtures/repo/.driftlint.yaml"), repo.join(".driftlint.yaml")).expect("config");
    let text = manifest(lines);
    let file = repo.join("web.yaml");
    std::fs::write(&file, &text).expect("the manifest");
    let uri = convert::uri_of(&file).expect("a uri");

    let (server, client) = Connection::memory();
    let thread = std::thread::Builder::new()
        .stack_size(driftlint::cli::STACK_SIZE)
        .spawn(move || driftlint::lsp::serve(&server, Options { debounce: Duration::ZERO }))
        .expect("the server thread");
    let send = |m: Message| client.sender.send(m).expect("the server listens");
    let init =
        json!({ "processId": null, "rootUri": convert::uri_of(&repo).expect("uri").as_str(), "capabilities": {} });
    send(Request::new(RequestId::from(0), "initialize".into(), init).into());
    send(Notification::new("initialized".into(), json!({})).into());
    send(
        Notification::new(
            "textDocument/didOpen".into(),
            json!({ "textDocument": { "uri": uri.as_str(), "languageId": "yaml", "version": 1, "text": text } }),
        )
        .into(),
    );
    let wait = |version: i32| -> usize {
        loop {
            match client.receiver.recv_timeout(Duration::from_secs(60)).expect("diagnostics within a minute") {
                Message::Notification(n)
                    if n.method == "textDocument/publishDiagnostics"
                        && n.params["uri"] == json!(uri.as_str())
                        && n.params["version"] == json!(version) =>
                {
                    return n.params["diagnostics"].as_array().map_or(0, Vec::len);
                }
                _ => {}
            }
        }
    };
    let findings = wait(1);
    // The memory limit's `512Mi`: one digit retyped per keystroke.
    let at = convert::LineIndex::new(&text).position(text.find("512Mi").expect("the drifting limit"));
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs + 2 {
        let version = i32::try_from(i).unwrap_or(i32::MAX) + 2;
        let digit = ["3", "5"][i % 2];
        let change = json!({
            "textDocument": { "uri": uri.as_str(), "version": version },
            "contentChanges": [{
                "range": { "start": at, "end": { "line": at.line, "character": at.character + 1 } },
                "text": digit
            }]
        });
        let t = Instant::now();
        send(Notification::new("textDocument/didChange".into(), change).into());
        wait(version);
        // Two warm-up keystrokes are not counted.
        if i >= 2 {
            times.push(t.elapsed());
        }
    }
    send(Request::new(RequestId::from(1), "shutdown".into(), json!(null)).into());
    send(Notification::new("exit".into(), json!(null)).into());
    let _ = thread.join();
    times.sort();
    // The same check without the protocol, and what each check spends before it reads a
    // document (opening and compiling the reference, loading schemas and policies): the part a
    // warm state kept between checks would save.
    let workspace = driftlint::lsp::workspace::Workspace::load(Some(repo.join(".driftlint.yaml")), repo.clone());
    let settings = workspace.settings.clone().expect("the configuration resolves");
    let (_, direct) = common::time(runs, || {
        workspace.check_document(&file, &text).expect("a check");
    });
    let (_, setup) = common::time(runs, || {
        driftlint::check::check_sources(&settings, driftlint_core::input::Collected::default()).expect("a check");
    });
    println!(
        "lsp keystroke, {} lines ({} bytes, {findings} findings on open): min {:.1} ms, median {:.1} ms, max {:.1} ms over {runs} keystrokes",
        text.lines().count(),
        text.len(),
        ms(times[0]),
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1]),
    );
    println!(
        "  of which: the document's check alone (no protocol) median {:.1} ms; a check of no document (the reference opened and compiled, schemas and policies loaded) median {:.1} ms",
        ms(direct),
        ms(setup),
    );
}

/// One manifest of about `lines` lines: the web front end (Deployment with the memory drift,
/// Service), then ConfigMaps of ten settings each, named so the reference's `settings`
/// template takes them.
fn manifest(lines: usize) -> String {
    let mut s = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/repo/app/frontend.yaml"))
        .expect("fixtures/repo/app/frontend.yaml");
    let mut i = 0;
    while s.lines().count() + 17 <= lines {
        let _ = write!(
            s,
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{i}\n  namespace: web\ndata:\n"
        );
        s.push_str("  log-level: info\n");
        for k in 0..9 {
            let _ = writeln!(s, "  key-{k}: \"value {i} {k}\"");
        }
        i += 1;
    }
    while s.lines().count() < lines {
        s.push_str("# padding\n");
    }
    s
}
