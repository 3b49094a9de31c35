//! How long a keystroke in a 1,000-line manifest takes to reach the editor as diagnostics
//! under `driftlint lsp` (the goal: at most 50 ms, release build).
//!
//! A temporary repository holds a configuration naming a reference and one manifest of 1,000
//! lines. By default the reference is `fixtures/bench-reference-telco/` (shaped like the
//! telco-core reference kube-compare users run: 45 templates, a function file, two templates
//! reading the `Infrastructure/cluster` singleton with `lookupCR`, see `benches/layout.rs`);
//! the manifest holds objects made from its templates in turn (a fifth drifted), and the
//! singleton is in a file of its own beside it, as a repository keeps it. With `--fixture`,
//! the reference is `fixtures/reference` and the manifest `fixtures/repo`'s web Deployment
//! (with its drift) and Service followed by ConfigMaps that the reference's settings template
//! takes. The server runs in-process on `lsp_server::Connection::memory()` with no debounce;
//! each run sends one `didChange` (one character typed into a value of the first object) and
//! waits for the `publishDiagnostics` of that version. The figure is the time between the
//! two: the document's check by `check`'s runner, the conversion, and the protocol's
//! messages.
//!
//! Then, without the protocol: the document's check on the server's warm state, the same
//! check from a cold start (`check::check_sources` opening and compiling the reference and
//! loading schemas and policies first, as every check did before the warm state), and a cold
//! check of no document (that setup alone).
//!
//! ```text
//! cargo bench --bench lsp                       # telco reference, 1,000 lines, 30 keystrokes
//! cargo bench --bench lsp -- 5000 10            # 5,000 lines, 10 keystrokes
//! cargo bench --bench lsp -- --fixture          # the example reference
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
    let fixture = std::env::args().any(|a| a == "--fixture");
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let lines = args.first().copied().unwrap_or(1000);
    let runs = args.get(1).copied().unwrap_or(30).max(1);
    let dir = tempfile::tempdir().expect("a temp dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir(dir.path().join(".git")).expect(".git");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).expect("repo");
    let reference = dir.path().join("reference");
    let (text, typed) = if fixture {
        common::copy_tree(&root.join("fixtures/reference"), &reference);
        std::fs::copy(root.join("fixtures/repo/.driftlint.yaml"), repo.join(".driftlint.yaml")).expect("config");
        // The memory limit's `512Mi`: one digit retyped per keystroke.
        (manifest(lines), "512Mi")
    } else {
        common::copy_tree(&root.join("fixtures/bench-reference-telco"), &reference);
        std::fs::write(repo.join(".driftlint.yaml"), "reference: ../reference\n").expect("config");
        std::fs::write(repo.join("infrastructure.yaml"), common::INFRASTRUCTURE).expect("the singleton");
        // The first object's drifted label: one letter retyped per keystroke.
        (telco_manifest(lines), "true")
    };
    let file = repo.join(if fixture { "web.yaml" } else { "telco.yaml" });
    std::fs::write(&file, &text).expect("the manifest");
    let uri = convert::uri_of(&file).expect("a uri");

    let (server, client) = Connection::memory();
    let thread = std::thread::Builder::new()
        .stack_size(driftlint::cli::STACK_SIZE)
        .spawn(move || driftlint::lsp::serve(&server, Options { debounce: Duration::ZERO, ..Options::default() }))
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
    let at = convert::LineIndex::new(&text).position(text.find(typed).expect("the value typed into"));
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs + 2 {
        let version = i32::try_from(i).unwrap_or(i32::MAX) + 2;
        let digit = if fixture { ["3", "5"][i % 2] } else { ["T", "t"][i % 2] };
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
    // The same check without the protocol: on the workspace's prepared passes (what the
    // server runs), from a cold start (the runner opening and compiling the reference and
    // loading schemas and policies first, as every check did before the passes were kept),
    // and a cold check of no document (that setup alone).
    let mut workspace = driftlint::lsp::workspace::Workspace::load(Some(repo.join(".driftlint.yaml")), repo.clone());
    let settings = workspace.settings.clone().expect("the configuration resolves");
    let (_, warm) = common::time(runs, || {
        workspace.check_document(&file, &text).expect("a check");
    });
    let others: Vec<driftlint_core::input::Source> = driftlint::check::collect_inputs(&settings)
        .sources
        .into_iter()
        .filter(|s| !matches!(&s.path, driftlint_core::input::SourcePath::File(p) if p.ends_with(file.file_name().expect("a name"))))
        .collect();
    let (_, cold) = common::time(runs, || {
        let mut sources = vec![driftlint_core::input::Source {
            path: driftlint_core::input::SourcePath::File(file.clone()),
            text: text.clone(),
        }];
        sources.extend(others.iter().cloned());
        let collected = driftlint_core::input::Collected { sources, diagnostics: Vec::new() };
        driftlint::check::check_sources(&settings, collected).expect("a check");
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
        "  the document's check alone (no protocol), median: on the prepared passes {:.1} ms; cold {:.1} ms; a cold check of no document (the reference opened and compiled, schemas and policies loaded) {:.1} ms",
        ms(warm),
        ms(cold),
        ms(setup),
    );
}

/// One manifest of about `lines` lines: objects made from the telco reference's templates in
/// turn, a fifth drifted (an extra label), the first among them.
fn telco_manifest(lines: usize) -> String {
    let templates = common::telco_templates();
    let mut s = String::new();
    let mut i = 0;
    while s.lines().count() < lines {
        if i > 0 {
            s.push_str("---\n");
        }
        s.push_str(&common::telco_object(&templates[i % templates.len()], i, i.is_multiple_of(5)));
        i += 1;
    }
    s
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
