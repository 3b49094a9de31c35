//! Snapshot tests: `driftlint check` on each example of `fixtures/drift/` (plain files, a
//! multi-document file, helm- and kustomize-rendered stdin), in every output format, compared
//! with `tests/snapshots/check-<fixture>.<format>`.
//!
//! `DRIFTLINT_BLESS=1 cargo test --test main cli::check::snapshots` rewrites the snapshots;
//! review the diff before committing. Outputs are made stable here, never in the product: the
//! absolute checkout path (SARIF's `originalUriBaseIds`) becomes `$ROOT` and the tool version
//! `$VERSION`.

use super::super::{Run, root, run_in};
use driftlint::report::Format;

/// One example: a name, the inputs (`-` reads `stdin`) and extra flags.
struct Fixture {
    name: &'static str,
    args: &'static [&'static str],
    stdin: Option<&'static str>,
}

const FIXTURES: [Fixture; 4] = [
    Fixture { name: "plain", args: &["fixtures/drift/plain"], stdin: None },
    Fixture { name: "multi-document", args: &["fixtures/drift/multi-document.yaml"], stdin: None },
    Fixture { name: "helm", args: &["-"], stdin: Some("fixtures/drift/helm-rendered.yaml") },
    Fixture {
        name: "kustomize",
        args: &["-", "--origin-root", "fixtures/drift/kustomize/overlays/prod"],
        stdin: Some("fixtures/drift/kustomize-rendered.yaml"),
    },
];

fn extension(format: Format) -> &'static str {
    match format {
        Format::Human | Format::Concise | Format::Github => "txt",
        Format::Json | Format::Sarif => "json",
        Format::Markdown => "md",
        Format::Junit => "xml",
    }
}

/// Runs the check of `fixture` in `format` from the repository root.
pub(super) fn check(fixture: &Fixture, format: Format) -> Run {
    let mut args = vec!["check", "--isolated", "-r", "fixtures/reference", "--format", format.name()];
    args.extend_from_slice(fixture.args);
    let stdin = fixture.stdin.map(|p| std::fs::read_to_string(root().join(p)).unwrap());
    run_in(&root(), &args, stdin.as_deref())
}

/// What is compared: the output with the checkout path and the version replaced.
fn normalize(text: &str) -> String {
    let root = root();
    let abs = root.to_string_lossy().replace('\\', "/");
    text.replace(&abs, "$ROOT").replace(env!("CARGO_PKG_VERSION"), "$VERSION")
}

#[test]
fn every_fixture_in_every_format_matches_its_snapshot() {
    let bless = std::env::var_os("DRIFTLINT_BLESS").is_some();
    let mut failures = Vec::new();
    for fixture in &FIXTURES {
        for format in Format::ALL {
            let r = check(fixture, format);
            assert_eq!(r.code, 1, "{} {format}: {}", fixture.name, r.stderr);
            assert!(r.stderr.is_empty(), "{} {format}: {}", fixture.name, r.stderr);
            let got = normalize(&r.stdout);
            let name = format!("check-{}.{}.{}", fixture.name, format.name(), extension(format));
            let path = root().join("tests/snapshots").join(&name);
            if bless {
                std::fs::write(&path, &got).unwrap();
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(want) if want == got => {}
                Ok(want) => failures.push(format!("{name} differs:\n{}", first_difference(&want, &got))),
                Err(e) => failures.push(format!("{name}: {e} (run with DRIFTLINT_BLESS=1 to create it)")),
            }
        }
    }
    assert!(failures.is_empty(), "{}\n(DRIFTLINT_BLESS=1 rewrites the snapshots)", failures.join("\n\n"));
}

/// The first differing line of two texts, for a readable failure.
fn first_difference(want: &str, got: &str) -> String {
    let (mut w, mut g) = (want.lines(), got.lines());
    for n in 1.. {
        match (w.next(), g.next()) {
            (None, None) => break,
            (a, b) if a == b => {}
            (a, b) => return format!("line {n}:\n  snapshot: {}\n  output:   {}", a.unwrap_or("<end>"), b.unwrap_or("<end>")),
        }
    }
    "the texts differ only in line endings".into()
}
