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
    Fixture {
        name: "helm",
        args: &["-", "--origin-root", "fixtures/drift/helm"],
        stdin: Some("fixtures/drift/helm-rendered.yaml"),
    },
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
fn check(fixture: &Fixture, format: Format) -> Run {
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
    let bless = driftlint_test_support::rewrite_requested();
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
            (a, b) => {
                return format!(
                    "line {n}:\n  snapshot: {}\n  output:   {}",
                    a.unwrap_or("<end>"),
                    b.unwrap_or("<end>")
                );
            }
        }
    }
    "the texts differ only in line endings".into()
}

/// (rule, file:line, template file:line, suppressed) of every finding, from the JSON output.
fn located(fixture: &Fixture) -> Vec<(String, String, String, bool)> {
    let r = check(fixture, Format::Json);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let at = |l: &serde_json::Value| format!("{}:{}", l["file"].as_str().unwrap_or(""), l["line"]);
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            // The template line; a chart template's finding also has the rendered line on stdin.
            let secondary = d["labels"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["primary"] == false && l["message"] != "as rendered")
                .map(at)
                .unwrap_or_default();
            (d["rule"].as_str().unwrap().to_string(), at(d), secondary, !d["suppressed"].is_null())
        })
        .collect()
}

/// The seeded drift, read off the fixture files: each at its manifest line (the value, the
/// parent mapping, the key, the annotation line, the object's name) and its template line.
#[test]
fn every_seeded_drift_is_at_its_line_with_its_template_line() {
    const REF: &str = "fixtures/reference";
    // Per fixture: the files of the Deployment, Service, ConfigMap and PodDisruptionBudget, and
    // the line of the first line of each object's document in that file (minus one).
    let cases = [
        (
            "plain",
            ["plain/deployment.yaml", "plain/service.yaml", "plain/settings.yaml", "plain/budget.yaml"],
            [0, 0, 0, 0],
        ),
        ("multi-document", ["multi-document.yaml"; 4], [1, 24, 38, 50]),
        (
            "helm",
            [
                "helm/frontend/templates/deployment.yaml",
                "helm/frontend/templates/service.yaml",
                "helm/frontend/templates/settings.yaml",
                "helm/frontend/templates/pdb.yaml",
            ],
            [-1, -1, -1, -1],
        ),
        (
            "kustomize",
            [
                "kustomize/base/deployment.yaml",
                "kustomize/base/service.yaml",
                "kustomize/base/settings.yaml",
                "kustomize/base/budget.yaml",
            ],
            [-1, -1, -1, -1],
        ),
    ];
    for (name, files, offsets) in cases {
        let fixture = FIXTURES.iter().find(|f| f.name == name).unwrap();
        let file = |i: usize, line: i32| {
            let f = if files[i] == "<stdin>" { files[i].to_string() } else { format!("fixtures/drift/{}", files[i]) };
            format!("{f}:{}", line + offsets[i])
        };
        let t = |f: &str, line: i32| format!("{REF}/{f}:{line}");
        let mut want = vec![
            ("unexpected-field", file(0, 9), t("deployment.yaml", 6), false),
            ("missing-field", file(0, 19), t("deployment.yaml", 19), false),
            ("value-drift", file(0, 23), t("deployment.yaml", 23), false),
            ("value-drift", file(1, 14), t("service.yaml", 11), true),
            ("invalid-suppression", file(2, 9), String::new(), false),
            ("invalid-suppression", file(2, 10), String::new(), false),
            ("value-drift", file(2, 12), t("configmap.yaml", 7), false),
            ("unmatched-resource", file(3, 5), String::new(), false),
            ("missing-resource", format!("{REF}/metadata.yaml:8"), String::new(), false),
        ];
        let mut got = located(fixture);
        let key = |a: &(String, String, String, bool)| (a.1.clone(), a.0.clone());
        got.sort_by_key(key);
        let mut want: Vec<(String, String, String, bool)> =
            want.drain(..).map(|(r, a, b, s)| (r.to_string(), a, b, s)).collect();
        want.sort_by_key(key);
        assert_eq!(got, want, "{name}");
    }
}
