//! `config-weakened`: what a change to `.driftlint.yaml` (or the deletion of `driftlint.lock`)
//! takes away from the check, found by comparing the configuration in effect with the base's.
//!
//! The configuration lives in the repository it checks, so the change under review can change
//! what is checked. Each weakening is a finding at the line that does it, so a reviewer sees it
//! next to the green check it produced. Only scoped runs (`--base`, `--staged`) have a base to
//! compare with; [`super::scope`] calls this, and takes the rule's level from the base's
//! configuration (the one already reviewed), not from the changed file.

use std::ops::Range;
use std::path::Path;

use super::{Config, Level};
use driftlint_core::diagnostic::{Diagnostic, Rule, Severity};
use driftlint_core::input::SourcePath;

/// The globs a walk takes when `include:` is empty (the walker's defaults).
const DEFAULT_INCLUDE: [&str; 3] = ["*.yaml", "*.yml", "*.json"];

/// Every way `now` checks less than `base`, as findings in `now`'s file (severity to be set by
/// the caller). `lock_deleted` is the lock's path when the base had one and the check has none.
pub fn weakenings(base: &Config, now: &Config, lock_deleted: Option<&Path>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut flag = |span: Option<Range<usize>>, message: String| {
        let path = match &now.file {
            Some(f) => SourcePath::File(f.clone()),
            None => SourcePath::File(super::FILE_NAME.into()),
        };
        out.push(Diagnostic::new(Rule::ConfigWeakened, Severity::Warning, path, span, message));
    };
    let at = |key: &str| now.spans.get(key).cloned();

    for rule in Rule::ALL {
        let (was, is) = (level(base, rule), level(now, rule));
        if is < was {
            let what = if is == Level::Off { "turned off" } else { "lowered" };
            flag(
                at(&format!("rules.{}", rule.id())).or_else(|| at("rules")),
                format!("rule `{rule}` {what}: it is {} here, {} at the base", is.name(), was.name()),
            );
        }
    }
    let (was, is) = (base.fail_level.unwrap_or(Severity::Error), now.fail_level.unwrap_or(Severity::Error));
    if is > was {
        flag(
            at("fail-level"),
            format!(
                "`fail-level` raised to {}: findings of level {} no longer fail the run",
                is.as_str(),
                was.as_str()
            ),
        );
    }
    for glob in now.exclude.iter().filter(|g| !base.exclude.contains(g)) {
        flag(at(&format!("exclude.{glob}")).or_else(|| at("exclude")), format!("new `exclude` glob `{glob}`"));
    }
    let includes = |c: &Config| -> Vec<String> {
        if c.include.is_empty() { DEFAULT_INCLUDE.map(String::from).to_vec() } else { c.include.clone() }
    };
    let now_include = includes(now);
    for glob in includes(base).into_iter().filter(|g| !now_include.contains(g)) {
        flag(at("include"), format!("`include` no longer takes `{glob}`: such files are not checked"));
    }
    for (i, entry) in now.ignore.iter().enumerate().filter(|(_, e)| !base.ignore.contains(e)) {
        let field = entry.field.as_deref().map_or_else(String::new, |f| format!(" field `{f}`"));
        flag(
            at(&format!("ignore.{i}")).or_else(|| at("ignore")),
            format!(
                "new `ignore` entry: rule `{}` on `{}`{field} (reason: {})",
                entry.rule, entry.object, entry.reason
            ),
        );
    }
    if base.require_lock && !now.require_lock {
        flag(at("require-lock"), "`require-lock` removed: a missing driftlint.lock is no longer reported".into());
    }
    for (key, was, is) in
        [("overrides", &base.overrides, &now.overrides), ("diff-config", &base.diff_config, &now.diff_config)]
    {
        if let Some(value) = is.as_ref().filter(|v| Some(*v) != was.as_ref()) {
            flag(at(key), format!("`{key}` set to `{value}`: it changes what objects are compared with"));
        }
    }
    // Schemas and policies: fewer of them, or a laxer mode, checks less.
    // A mode written on either side: the defaults move with the reference and the schemas,
    // whose own changes are judged above and below (adding a reference checks more).
    let (was, is) = (effective_schema_mode(base), effective_schema_mode(now));
    if is.rank() < was.rank() && (base.schema_mode.is_some() || now.schema_mode.is_some()) {
        let what = match is {
            driftlint_schema::Mode::Ignore => "is not reported",
            _ => "is only a warning",
        };
        flag(
            at("schema-mode"),
            format!("`schema-mode` is {} here, {} at the base: a type without a schema {what}", is.name(), was.name()),
        );
    }
    if base.builtin_schemas.unwrap_or(true) && !now.builtin_schemas.unwrap_or(true) {
        flag(
            at("builtin-schemas"),
            "`builtin-schemas` turned off: objects of Kubernetes' built-in kinds are no longer validated".into(),
        );
    }
    // No `policy-namespaces` is conftest's default, `main`.
    let namespaces = |c: &Config| -> Vec<String> {
        if c.policy.namespaces.is_empty() { vec!["main".to_string()] } else { c.policy.namespaces.clone() }
    };
    let (base_namespaces, now_namespaces) = (namespaces(base), namespaces(now));
    for (key, was, is) in [
        ("schemas", &base.schemas, &now.schemas),
        ("policies", &base.policy.policies, &now.policy.policies),
        ("policy-namespaces", &base_namespaces, &now_namespaces),
        ("policy-inputs", &base.policy.inputs, &now.policy.inputs),
        ("policy-data", &base.policy.data, &now.policy.data),
    ] {
        for gone in was.iter().filter(|x| !is.contains(x)) {
            flag(at(key), format!("`{key}` no longer lists `{gone}`"));
        }
    }
    // Trusted schemas win over the bundled built-in kinds and the checked CRDs: one more of them
    // can replace any kind's validation with a laxer one.
    for (key, was, is) in
        [("schemas", &base.schemas, &now.schemas), ("schema-locations", &base.schema_locations, &now.schema_locations)]
    {
        for added in is.iter().filter(|x| !was.contains(x)) {
            flag(
                at(key),
                format!(
                    "`{key}` adds `{added}`: trusted schemas, which replace the built-in kinds' and the checked definitions'"
                ),
            );
        }
    }
    for gone in base.schema_locations.iter().filter(|x| !now.schema_locations.contains(x)) {
        flag(at("schema-locations"), format!("`schema-locations` no longer lists `{gone}`"));
    }
    // The version in effect: writing down the default, or dropping a value equal to it,
    // validates exactly as before.
    let version = |c: &Config| c.kubernetes_version.unwrap_or_else(driftlint_kube_schemas::default_version);
    if version(now) != version(base) {
        flag(
            at("kubernetes-version"),
            format!(
                "`kubernetes-version` changed from {} to {}: built-in kinds are validated as another release has them",
                base.kubernetes_version.map_or("the default".to_string(), |v| format!("`{v}`")),
                now.kubernetes_version.map_or("the default".to_string(), |v| format!("`{v}`"))
            ),
        );
    }
    if now.crossplane_version != base.crossplane_version {
        flag(
            at("crossplane-version"),
            "`crossplane-version` changed: Compositions are read for another Crossplane release".into(),
        );
    }
    if base.policy.all_namespaces == Some(true) && now.policy.all_namespaces != Some(true) {
        flag(
            at("policy-all-namespaces"),
            "`policy-all-namespaces` turned off: only the listed namespaces' rules run".into(),
        );
    }
    if base.policy.cases.is_some() && now.policy.cases != base.policy.cases {
        flag(
            at("policy-cases"),
            "`policy-cases` removed or changed: the policy scenarios are no longer replayed".into(),
        );
    }
    // The reference itself: without it nothing is compared; another one compares otherwise.
    if let Some(was) = &base.reference
        && now.reference.as_ref() != Some(was)
    {
        let message = match &now.reference {
            None => format!("`reference` removed (it was `{was}`): manifests are no longer compared with a reference"),
            Some(is) => {
                format!("`reference` changed from `{was}` to `{is}`: manifests are compared with another reference")
            }
        };
        flag(at("reference"), message);
    }
    if base.policy.combine.unwrap_or(false) != now.policy.combine.unwrap_or(false) {
        flag(
            at("policy-combine"),
            "`policy-combine` changed: the policies see another `input`, and rules written for the other shape no longer fire".into(),
        );
    }
    for added in now.policy.data.iter().filter(|d| !base.policy.data.contains(d)) {
        flag(
            at("policy-data"),
            format!("`policy-data` adds `{added}`: data documents can override what the policies decide"),
        );
    }
    if let Some(lock) = lock_deleted {
        out.push(Diagnostic::new(
            Rule::ConfigWeakened,
            Severity::Warning,
            SourcePath::File(lock.to_path_buf()),
            None,
            format!("{} deleted: the reference is no longer verified against the pinned one", lock.display()),
        ));
    }
    out
}

/// `driftlint.lock` changed by the change: the reference is verified against a new pin.
pub fn repinned(lock: &Path) -> Diagnostic {
    Diagnostic::new(
        Rule::ConfigWeakened,
        Severity::Warning,
        SourcePath::File(lock.to_path_buf()),
        None,
        format!("{} re-pinned: the reference is verified against another pin than the base's", lock.display()),
    )
}

/// A trusted schema file (`schemas:`, `schema-locations:`) the change adds or edits.
pub fn trusted_schema_edited(file: &Path, what: &str) -> Diagnostic {
    Diagnostic::new(
        Rule::ConfigWeakened,
        Severity::Warning,
        SourcePath::File(file.to_path_buf()),
        None,
        format!(
            "trusted schema file {} {what}: it replaces the built-in kinds' and the checked definitions' schemas, in the base's check too",
            file.display()
        ),
    )
}

/// A policy data file the change adds (to a configured data directory).
pub fn data_added(file: &Path) -> Diagnostic {
    Diagnostic::new(
        Rule::ConfigWeakened,
        Severity::Warning,
        SourcePath::File(file.to_path_buf()),
        None,
        format!(
            "policy data file {} added: data documents are merged into `data` and can override what the policies decide",
            file.display()
        ),
    )
}

/// The schema mode `config` gives when no schema definitions are among the checked files (see
/// `check::schema_mode`): as set; else ignore with a reference and no other schema setting;
/// else loose.
fn effective_schema_mode(config: &Config) -> driftlint_schema::Mode {
    match config.schema_mode {
        Some(mode) => mode,
        None if config.reference.is_some() && config.schemas.is_empty() && config.schema_locations.is_empty() => {
            driftlint_schema::Mode::Ignore
        }
        None => driftlint_schema::Mode::Loose,
    }
}

/// The level `rule` has under `config`: as set, else its default severity.
fn level(config: &Config, rule: Rule) -> Level {
    config.rules.get(&rule).copied().unwrap_or(Level::On(rule.default_severity()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_config;

    fn config(text: &str) -> Config {
        parse_config(Path::new(".driftlint.yaml"), text).unwrap()
    }

    fn lines(base: &str, now: &str) -> Vec<(usize, String)> {
        let now = config(now);
        let index = driftlint_yaml::LineIndex::new(&now.text);
        weakenings(&config(base), &now, None)
            .into_iter()
            .map(|d| (d.primary.range.map_or(0, |r| index.line_column(&now.text, r.start).line), d.message))
            .collect()
    }

    #[test]
    fn each_weakening_is_found_at_its_line() {
        let base = "rules:\n  unexpected-field: error\nexclude: [tmp/]\nrequire-lock: true\n";
        let now = "rules:\n  unexpected-field: note\n  value-drift: off\nexclude:\n  - tmp/\n  - prod/**\n\
                   fail-level: warning\nignore:\n  - {object: '*', rule: '*', reason: all good}\n\
                   overrides: o.yaml\ninclude: ['*.yaml']\n";
        let found = lines(base, now);
        let at = |line: usize, text: &str| found.iter().any(|(l, m)| *l == line && m.contains(text));
        assert!(at(2, "rule `unexpected-field` lowered: it is note here, error at the base"), "{found:?}");
        assert!(at(3, "rule `value-drift` turned off"), "{found:?}");
        assert!(at(6, "new `exclude` glob `prod/**`"), "{found:?}");
        assert!(at(9, "new `ignore` entry"), "{found:?}");
        assert!(at(10, "`overrides` set to `o.yaml`"), "{found:?}");
        assert!(at(11, "`include` no longer takes `*.yml`"), "{found:?}");
        assert!(at(0, "`require-lock` removed"), "{found:?}");
        // fail-level warning is stricter than the default error: not a weakening.
        assert!(!found.iter().any(|(_, m)| m.contains("fail-level")), "{found:?}");
        assert_eq!(found.len(), 8, "{found:?}");
    }

    #[test]
    fn stricter_or_equal_configurations_are_not_flagged() {
        assert!(lines("", "").is_empty());
        assert!(lines("rules: {value-drift: warning}\n", "rules: {value-drift: error}\nfail-level: note\n").is_empty());
        assert!(lines("exclude: [a]\nignore: [{object: x, rule: '*', reason: r}]\n", "exclude: []\n").is_empty());
        let found = lines("fail-level: warning\n", "fail-level: error\n");
        assert_eq!(
            found,
            [(1, "`fail-level` raised to error: findings of level warning no longer fail the run".into())]
        );
    }

    #[test]
    fn fewer_schemas_or_policies_and_a_laxer_mode_are_weakenings() {
        let base = "schemas: [crds, xrds]\nschema-mode: strict\npolicies: [policy]\n";
        let found = lines(base, "schemas: [crds]\nschema-mode: loose\npolicies: []\n");
        let at = |line: usize, text: &str| found.iter().any(|(l, m)| *l == line && m.contains(text));
        assert!(at(1, "`schemas` no longer lists `xrds`"), "{found:?}");
        assert!(at(2, "`schema-mode` is loose here, strict at the base"), "{found:?}");
        assert!(at(3, "`policies` no longer lists `policy`"), "{found:?}");
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(lines(base, base).is_empty());
        // With a reference and no schemas, leaving the mode out is ignore: laxer than loose.
        let found = lines("reference: r\nschema-mode: loose\n", "reference: r\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].1.contains("`schema-mode` is ignore here, loose at the base"), "{found:?}");
        assert!(lines("reference: r\n", "reference: r\nschema-mode: ignore\n").is_empty());
        assert!(lines("", "reference: r\n").is_empty());
        // Fewer policy inputs, or the namespaces narrowed back, check less too.
        let base = "policy-inputs: [compose.yaml, ci/*.yml]
policy-all-namespaces: true
";
        let found = lines(
            base,
            "policy-inputs: [compose.yaml]
policy-all-namespaces: false
",
        );
        assert_eq!(
            found,
            [
                (1, "`policy-inputs` no longer lists `ci/*.yml`".to_string()),
                (2, "`policy-all-namespaces` turned off: only the listed namespaces' rules run".to_string())
            ]
        );
        assert!(lines(base, base).is_empty());
    }

    #[test]
    fn trusted_schemas_added_and_version_changes_are_weakenings() {
        let base = "schemas: [crds]\nkubernetes-version: \"1.37\"\n";
        let found = lines(
            base,
            "schemas: [crds, permissive]\nschema-locations: [kc]\nkubernetes-version: \"1.30\"\ncrossplane-version: 2\n",
        );
        let at = |line: usize, text: &str| found.iter().any(|(l, m)| *l == line && m.contains(text));
        assert!(at(1, "`schemas` adds `permissive`"), "{found:?}");
        assert!(at(2, "`schema-locations` adds `kc`"), "{found:?}");
        assert!(at(3, "`kubernetes-version` changed from `1.37` to `1.30`"), "{found:?}");
        assert!(at(4, "`crossplane-version` changed"), "{found:?}");
        assert!(lines(base, base).is_empty());
        // Namespaces narrowed from the default `main`, and data a rule reads removed.
        let found = lines("policy-data: [data, more]\n", "policy-namespaces: [unused]\npolicy-data: [data]\n");
        let at = |line: usize, text: &str| found.iter().any(|(l, m)| *l == line && m.contains(text));
        assert!(at(1, "`policy-namespaces` no longer lists `main`"), "{found:?}");
        assert!(at(2, "`policy-data` no longer lists `more`"), "{found:?}");
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(lines("", "policy-namespaces: [main, extra]\n").is_empty());
    }

    #[test]
    fn reference_combine_and_data_changes_are_weakenings() {
        let base = "reference: reference\npolicy-data: [data]\n";
        let found = lines(base, "policy-combine: true\npolicy-data: [data, extra]\n");
        let at = |line: usize, text: &str| found.iter().any(|(l, m)| *l == line && m.contains(text));
        assert!(at(0, "`reference` removed (it was `reference`)"), "{found:?}");
        assert!(at(1, "`policy-combine` changed"), "{found:?}");
        assert!(at(2, "`policy-data` adds `extra`"), "{found:?}");
        assert_eq!(found.len(), 3, "{found:?}");
        let found = lines(base, "reference: other\npolicy-data: [data]\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].1.contains("`reference` changed from `reference` to `other`"), "{found:?}");
        // Turning combine off again is a change of what the policies see, too.
        assert_eq!(lines("policy-combine: true\n", "").len(), 1);
        assert!(lines("", "reference: r\n").is_empty());
    }

    #[test]
    fn a_deleted_lock_is_a_finding_at_its_path() {
        let d = weakenings(&config(""), &config(""), Some(Path::new("driftlint.lock")));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].primary.path, SourcePath::File("driftlint.lock".into()));
    }
}
