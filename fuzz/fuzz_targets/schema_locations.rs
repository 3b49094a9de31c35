//! kubeconform-style schema locations (`schema-locations:`) with a kind, an apiVersion and the
//! location's files all from the input, as a pull request controls them: the first line is
//! `TEMPLATE-INDEX KIND APIVERSION`, the rest is the main schema file, then (after a line
//! `---`) its sibling `_defs.json`. The repository holds a symlink out (`schemas/out`, to a
//! trap schema beside the repository) and a trap schema one and two levels above `schemas/`.
//! Never a panic, never past libFuzzer's 10 s (the `$ref` and node limits), never a schema
//! read from a trap (its enum value would show), and no refusal naming a path of the machine.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use driftlint_schema::location::{Found, Locations};
use driftlint_schema::model::Schema;
use libfuzzer_sys::fuzz_target;

const TRAP: &str = "TRAP-OUTSIDE";

/// Locations a repository could configure, each with variables in a different place.
const TEMPLATES: [&str; 6] = [
    "schemas/{{ .ResourceKind }}.json",
    "schemas/{{ .ResourceKind }}{{ .ResourceKind }}/{{ .ResourceKind }}{{ .ResourceKind }}/trap.json",
    "schemas/{{ .Group }}{{ .Group }}/trap.json",
    "schemas/{{ .ResourceKind }}/trap.json",
    "schemas/.{{ .Group }}./trap.json",
    "schemas/{{.Group}}/{{.ResourceAPIVersion}}/{{.ResourceKind}}{{.KindSuffix}}.json",
];

/// The layout, made once per process under the temporary directory: `top/trap.json`,
/// `top/repo/{.git,schemas/}`, `top/outside/trap.json`, and links out of `schemas/`.
fn layout() -> &'static (PathBuf, PathBuf) {
    static LAYOUT: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    LAYOUT.get_or_init(|| {
        let top = std::env::temp_dir().join(format!("driftlint-fuzz-locations-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        let repo = top.join("repo");
        let trap = format!(r#"{{"type":"object","properties":{{"t":{{"enum":["{TRAP}"]}}}}}}"#);
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("schemas")).unwrap();
        std::fs::create_dir_all(top.join("outside")).unwrap();
        for p in [top.join("trap.json"), top.join("outside/trap.json"), top.join("outside/out.json")] {
            std::fs::write(p, &trap).unwrap();
        }
        std::os::unix::fs::symlink(top.join("outside"), repo.join("schemas/out")).unwrap();
        std::os::unix::fs::symlink(top.join("outside/trap.json"), repo.join("schemas/_trap.json")).unwrap();
        let top = top.canonicalize().unwrap();
        let repo = top.join("repo");
        (top, repo)
    })
}

fn has_trap(s: &Schema) -> bool {
    s.enumeration.iter().any(|v| v.as_str() == Some(TRAP))
        || s.properties.values().any(has_trap)
        || s.additional.as_deref().is_some_and(has_trap)
        || s.items.as_deref().is_some_and(has_trap)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let mut words = first.split(' ');
    let index: usize = words.next().and_then(|w| w.parse().ok()).unwrap_or(0) % TEMPLATES.len();
    let kind = words.next().unwrap_or("Widget");
    let api_version = words.next().unwrap_or("example.com/v1");
    let (main, defs) = rest.split_once("\n---\n").unwrap_or((rest, ""));
    let (top, repo) = layout();
    let schemas = repo.join("schemas");
    // The main file under every name a template here can reach for this kind.
    let lower = kind.to_ascii_lowercase();
    let plain = !lower.is_empty() && lower.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if plain {
        let _ = std::fs::write(schemas.join(format!("{lower}.json")), main);
    }
    let _ = std::fs::write(schemas.join("_defs.json"), defs);
    let template = format!("{}/{}", repo.display(), TEMPLATES[index]);
    let locations = Locations::new(&[template], &repo);
    let (group, version) = driftlint_schema::split_api_version(api_version);
    match locations.lookup("1.37", group, version, kind) {
        Some(Found::Schema(s)) => assert!(!has_trap(&s), "a schema from outside the repository was read"),
        Some(Found::Refused(why)) => {
            assert!(!why.contains(&top.display().to_string()), "a refusal names a path of the machine: {why}")
        }
        None => {}
    }
    if plain {
        let _ = std::fs::remove_file(schemas.join(format!("{lower}.json")));
    }
});
