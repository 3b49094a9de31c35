//! A kind defined more than once in a repository: identical copies (a chart's `crds/` and an
//! install bundle) and differing ones (two release channels). Each case is a minimal layout
//! written here.

use super::write_files as write;
use super::{findings, run_in};

/// A CRD of `Route` whose spec has `host`, and in the experimental channel also `mirror`.
fn route_crd(experimental: bool) -> String {
    let mirror = if experimental { ", mirror: {type: string}" } else { "" };
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: routes.net.example.org\nspec:\n  group: net.example.org\n  scope: Namespaced\n  names: {{kind: Route, plural: routes}}\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              properties: {{host: {{type: string}}{mirror}}}\n"
    )
}

const ROUTE_WITH_MIRROR: &str =
    "apiVersion: net.example.org/v1\nkind: Route\nmetadata:\n  name: r\nspec:\n  host: a.example.org\n  mirror: b\n";

/// Two channels: each channel's examples meet their own definition, so a field only the
/// experimental channel has is refused in a standard example and accepted in an experimental
/// one; the second definition is a `duplicate-definition` warning, not an `invalid-schema`
/// error; `ls` names the definition each object met.
#[test]
fn each_channel_s_objects_meet_their_own_definition() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("config/crd/experimental/routes.yaml", &route_crd(true)),
            ("config/crd/standard/routes.yaml", &route_crd(false)),
            ("examples/experimental/route.yaml", ROUTE_WITH_MIRROR),
            ("examples/standard/route.yaml", ROUTE_WITH_MIRROR),
        ],
    );
    let found = findings(tmp.path());
    let rules: Vec<(&str, &str, &str)> =
        found.iter().map(|(r, s, f, _)| (r.as_str(), s.as_str(), f.as_str())).collect();
    assert_eq!(
        rules,
        [
            ("duplicate-definition", "warning", "config/crd/standard/routes.yaml"),
            ("schema-unknown-field", "error", "examples/standard/route.yaml"),
        ],
        "{found:?}"
    );
    assert!(found[0].3.contains("validated against the nearest definition"), "{}", found[0].3);
    let ls = run_in(tmp.path(), &["ls", "--isolated", "."], None);
    assert!(
        ls.stdout.contains(
            "examples/standard/route.yaml:1:1: net.example.org/v1 Route r [schema: config/crd/standard/routes.yaml]"
        ),
        "{}",
        ls.stdout
    );
    assert!(ls.stdout.contains("[schema: config/crd/experimental/routes.yaml]"), "{}", ls.stdout);
}

/// The same CRD kept twice (a chart's `crds/` and a bundle): one note, no error, and objects
/// validated as with one copy.
#[test]
fn an_identical_copy_is_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("chart/crds/routes.yaml", &route_crd(false)),
            ("install/bundle.yaml", &route_crd(false)),
            ("apps/route.yaml", ROUTE_WITH_MIRROR),
        ],
    );
    let found = findings(tmp.path());
    let rules: Vec<(&str, &str, &str)> =
        found.iter().map(|(r, s, f, _)| (r.as_str(), s.as_str(), f.as_str())).collect();
    assert_eq!(
        rules,
        [("schema-unknown-field", "error", "apps/route.yaml"), ("duplicate-definition", "note", "install/bundle.yaml"),],
        "{found:?}"
    );
    assert!(found[1].3.contains("identically, as chart/crds/routes.yaml does"), "{}", found[1].3);
}
