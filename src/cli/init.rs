//! `driftlint init`: a first `.driftlint.yaml` for a repository, written from what is there —
//! kube-compare references (a `metadata.yaml` with `parts:`), Rego policy directories, Helm
//! charts, kustomizations, CRDs and XRDs among the manifests, and the Kubernetes version whose
//! APIs the manifests use. Every setting is commented, so the file explains itself.
//!
//! It writes that one file and nothing else, and never replaces one that exists unless
//! `--force` says so (and then only a regular file, never through a link). What it reads is
//! read as `check` reads it: regular files of bounded size, `.gitignore` honoured, hidden and
//! nested repositories left out. The text it writes is decoded by the configuration's own
//! decoder before it is written: a file `check` would refuse is never left behind.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::config;

/// Files looked at, at most: a repository larger than this gets a configuration from its first
/// files in path order (the walk is sorted), which the user edits anyway.
const MAX_FILES: usize = 50_000;
/// Bytes of one manifest read for its `apiVersion` and `kind`.
const MAX_MANIFEST_BYTES: u64 = 4 << 20;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The repository (or the directory of it) to configure; `.driftlint.yaml` is written here.
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Replace an existing `.driftlint.yaml` (a regular file only).
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: &Args, global: &super::GlobalArgs) -> Result<ExitCode> {
    let dir = &args.dir;
    if !dir.is_dir() {
        bail!("{} is not a directory", dir.display());
    }
    // `.driftlint.yaml`, not `./.driftlint.yaml`, in messages about the working directory.
    let target = if dir == Path::new(".") { PathBuf::from(config::FILE_NAME) } else { dir.join(config::FILE_NAME) };
    let existing = std::fs::symlink_metadata(&target);
    if let Ok(meta) = &existing {
        if !args.force {
            bail!("{} already exists: edit it, or run `driftlint init --force` to replace it", target.display());
        }
        if !meta.file_type().is_file() {
            bail!("{} exists and is not a regular file: not replaced, even with --force", target.display());
        }
    }
    let found = survey(dir);
    let text = render(&found);
    // The file must be one `check` accepts: decoded here by the same decoder first.
    config::parse_config(&target, &text)
        .map_err(|e| anyhow::anyhow!("driftlint init wrote a configuration driftlint refuses (a bug): {e}"))?;
    let mut open = std::fs::OpenOptions::new();
    open.write(true);
    if existing.is_ok() {
        open.truncate(true);
    } else {
        // Created here and nowhere else: a file or link that appeared since is not replaced.
        open.create_new(true);
    }
    open.open(&target)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .with_context(|| format!("cannot write {}", target.display()))?;
    if !global.quiet {
        print!("{}", next_steps(dir, &target, &found));
    }
    Ok(ExitCode::SUCCESS)
}

/// What the walk found, paths relative to the configured directory with `/` separators.
#[derive(Debug, Default)]
struct Found {
    /// Directories holding a kube-compare `metadata.yaml`.
    references: Vec<String>,
    /// Top-most directories holding `.rego` files.
    policies: Vec<String>,
    /// Directories holding a `Chart.yaml`.
    charts: Vec<String>,
    /// Directories holding a kustomization.
    kustomizations: Vec<String>,
    /// Files with CustomResourceDefinitions / Crossplane CompositeResourceDefinitions.
    crds: BTreeSet<String>,
    xrds: BTreeSet<String>,
    /// Built-in API versions and kinds the manifests use: (group, version, kind) → first file.
    builtin: BTreeMap<(String, String, String), String>,
    /// Whether the walk stopped at [`MAX_FILES`].
    truncated: bool,
}

/// Walks `dir` as `check` would (sorted, `.gitignore` honoured, hidden entries and nested
/// repositories left out, links not followed) and sorts what it finds.
fn survey(dir: &Path) -> Found {
    let mut found = Found::default();
    let mut rego_dirs = BTreeSet::new();
    let mut manifests = Vec::new();
    let walk = ignore::WalkBuilder::new(dir)
        .require_git(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(|e| {
            e.depth() == 0
                || !(e.file_name().to_string_lossy().starts_with('.')
                    || (e.file_type().is_some_and(|t| t.is_dir()) && e.path().join(".git").exists()))
        })
        .build();
    for (n, entry) in walk.flatten().enumerate() {
        if n >= MAX_FILES {
            found.truncated = true;
            break;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = relative(dir, entry.path()) else { continue };
        let parent = rel.rsplit_once('/').map_or(".", |(p, _)| p).to_string();
        let name = entry.file_name().to_string_lossy();
        match name.as_ref() {
            "metadata.yaml" if is_reference(entry.path()) => found.references.push(parent),
            "Chart.yaml" => found.charts.push(parent),
            "kustomization.yaml" | "kustomization.yml" | "Kustomization" => found.kustomizations.push(parent),
            n if n.ends_with(".rego") => {
                rego_dirs.insert(parent);
            }
            n if n.ends_with(".yaml") || n.ends_with(".yml") || n.ends_with(".json") => manifests.push(rel),
            _ => {}
        }
    }
    found.policies = topmost(rego_dirs);
    // A reference's templates and a chart's templates are no manifests (a chart's `crds/` is).
    let (references, charts) = (found.references.clone(), found.charts.clone());
    let templated = |file: &str| {
        references.iter().any(|r| under(file, r))
            || charts.iter().any(|c| under(file, c) && !under(file, &join(c, "crds")))
    };
    let groups = driftlint_kube_schemas::groups();
    for rel in manifests.iter().filter(|f| !templated(f)) {
        let path = dir.join(rel);
        let Ok(text) = read(&path) else { continue };
        for doc in driftlint_yaml::parse_stream(&text).documents {
            let s = |key: &str| doc.root.get(key).and_then(|n| n.as_str()).unwrap_or_default().to_string();
            let (api_version, kind) = (s("apiVersion"), s("kind"));
            let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version.as_str()));
            match (group, kind.as_str()) {
                ("apiextensions.k8s.io", "CustomResourceDefinition") => {
                    found.crds.insert(rel.clone());
                }
                ("apiextensions.crossplane.io", "CompositeResourceDefinition") => {
                    found.xrds.insert(rel.clone());
                }
                _ => {}
            }
            // A built-in API: of a bundled version's groups, or one Kubernetes removed earlier
            // (`extensions/v1beta1`).
            let builtin = groups.contains(group)
                || driftlint_kube_schemas::removal(driftlint_kube_schemas::default_version(), group, version, &kind)
                    .is_some();
            if !version.is_empty() && !kind.is_empty() && builtin {
                found.builtin.entry((group.to_string(), version.to_string(), kind)).or_insert_with(|| rel.clone());
            }
        }
    }
    found
}

/// A file as `check` reads one: regular, bounded.
fn read(path: &Path) -> std::io::Result<String> {
    driftlint_core::input::read_bounded_to_string(path, MAX_MANIFEST_BYTES)
}

/// Whether `metadata.yaml` is a kube-compare reference's: a mapping with `parts:`.
fn is_reference(path: &Path) -> bool {
    read(path).is_ok_and(|text| {
        driftlint_yaml::parse_stream(&text).documents.first().is_some_and(|d| d.root.get("parts").is_some())
    })
}

/// `path` below `dir` as `a/b` (`/` separators); `None` for a name that is no plain UTF-8
/// text (a control character would break the comment or value it is written into).
fn relative(dir: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(dir).ok()?;
    let parts: Vec<&str> = rel.components().map(|c| c.as_os_str().to_str()).collect::<Option<_>>()?;
    let rel = parts.join("/");
    (!rel.is_empty() && !rel.chars().any(driftlint_core::escape::is_unsafe)).then_some(rel)
}

fn under(file: &str, dir: &str) -> bool {
    dir == "." || file.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

fn join(dir: &str, name: &str) -> String {
    if dir == "." { name.to_string() } else { format!("{dir}/{name}") }
}

/// The directories of `dirs` that are inside no other of them.
fn topmost(dirs: BTreeSet<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for d in dirs {
        // Sorted: a parent comes before its children.
        if !out.iter().any(|p| under(&d, p)) {
            out.push(d);
        }
    }
    out
}

/// The Kubernetes version to validate against, and why.
#[derive(Debug, PartialEq, Eq)]
enum Version {
    /// The newest bundled version serves every built-in API the manifests use.
    Default(&'static str),
    /// An older one: the newest that serves them all, with the API the next one dropped.
    Older(&'static str, String),
    /// No bundled version serves them all: the default, and the first API none serves
    /// (`check` reports each such object, with its replacement).
    Unserved(&'static str, String),
}

/// The newest bundled Kubernetes version that serves every built-in API the manifests use.
fn kubernetes_version(found: &Found) -> Version {
    let versions = driftlint_kube_schemas::versions();
    let default = driftlint_kube_schemas::default_version();
    let api = |g: &str, ver: &str, k: &str| {
        if g.is_empty() { format!("{ver} {k}") } else { format!("{g}/{ver} {k}") }
    };
    let serves = |v: &str| found.builtin.keys().all(|(g, ver, k)| driftlint_kube_schemas::has_kind(v, g, ver, k));
    let Some(best) = versions.iter().rev().copied().find(|v| serves(v)) else {
        let unserved = found
            .builtin
            .iter()
            .find(|((g, ver, k), _)| versions.iter().all(|v| !driftlint_kube_schemas::has_kind(v, g, ver, k)))
            .map_or_else(String::new, |((g, ver, k), file)| format!("{file} uses {}", api(g, ver, k)));
        return Version::Unserved(default, unserved);
    };
    if best == default {
        return Version::Default(default);
    }
    // Oldest first: the next one is the version that no longer serves something.
    let newer = versions.iter().position(|v| *v == best).and_then(|i| versions.get(i + 1)).copied().unwrap_or(default);
    let why = found
        .builtin
        .iter()
        .find(|((g, ver, k), _)| !driftlint_kube_schemas::has_kind(newer, g, ver, k))
        .map_or_else(String::new, |((g, ver, k), file)| {
            format!("{file} uses {}, which Kubernetes {newer} no longer serves", api(g, ver, k))
        });
    Version::Older(best, why)
}

/// A path as a YAML value: a JSON string is a YAML double-quoted scalar.
fn quoted(path: &str) -> String {
    serde_json::Value::from(path).to_string()
}

/// Up to `n` items, then how many more.
fn listed(items: &[String], n: usize) -> String {
    let mut out = items.iter().take(n).map(String::as_str).collect::<Vec<_>>().join(", ");
    if items.len() > n {
        let _ = write!(out, " and {} more", items.len() - n);
    }
    out
}

/// The configuration file's text.
fn render(found: &Found) -> String {
    let mut out = String::new();
    let mut line = |s: &str| {
        out.push_str(s);
        out.push('\n');
    };
    line(&format!("# yaml-language-server: $schema={}", config::SCHEMA_ID));
    line("# driftlint configuration, written by `driftlint init`. Paths are relative to this file.");
    line("# Every key: docs/checking.md; `driftlint config show` prints the effective settings.");
    line("");
    match found.references.as_slice() {
        [] => {
            line("# The kube-compare reference the manifests must match (a directory with metadata.yaml,");
            line("# or git:REV:PATH). None was found here: without one, the schema and policy checks run.");
            line("# reference: path/to/reference");
        }
        [first, rest @ ..] => {
            line("# The kube-compare reference the manifests must match (its metadata.yaml lists the");
            line("# templates). Its own files are not checked as manifests.");
            line(&format!("reference: {}", quoted(first)));
            for other in rest {
                line(&format!("# another reference found: {}", quoted(other)));
            }
        }
    }
    line("");
    line("# Built-in kinds (Deployment, Service, …) are validated against this Kubernetes version's");
    line(&format!("# schemas, offline (bundled: {}).", driftlint_kube_schemas::versions().join(", ")));
    match kubernetes_version(found) {
        Version::Older(version, why) => {
            line(&format!("# Chosen from the manifests' APIs: {why}."));
            line(&format!("kubernetes-version: \"{version}\""));
        }
        Version::Default(version) => {
            line("# The manifests' APIs are all served by the default, the newest:");
            line(&format!("# kubernetes-version: \"{version}\""));
        }
        Version::Unserved(version, what) => {
            line(&format!("# No bundled version serves every API the manifests use ({what}): `check` reports"));
            line("# those objects with the apiVersion that replaces theirs. The default, the newest:");
            line(&format!("# kubernetes-version: \"{version}\""));
        }
    }
    line("");
    let crds: Vec<String> = found.crds.iter().cloned().collect();
    let xrds: Vec<String> = found.xrds.iter().cloned().collect();
    if crds.is_empty() && xrds.is_empty() {
        line("# CRDs and Crossplane XRDs among the checked files validate the objects of their kinds.");
        line("# None was found; CRDs kept elsewhere can be named here:");
        line("# schemas: [path/to/crds]");
    } else {
        line("# CRDs and Crossplane XRDs among the checked files validate the objects of their kinds,");
        line("# with nothing to configure. Found:");
        if !crds.is_empty() {
            line(&format!("#   CustomResourceDefinitions in {}", listed(&crds, 5)));
        }
        if !xrds.is_empty() {
            line(&format!("#   CompositeResourceDefinitions in {}", listed(&xrds, 5)));
        }
        line("# A kind without a schema: loose (a warning), strict (an error) or ignore (only counted);");
        line("# the default is loose, or ignore when a reference is configured and no schema setting is.");
        line("# schema-mode: strict");
    }
    line("");
    if found.policies.is_empty() {
        line("# Rego policies (conftest conventions: deny/violation/warn rules in package main):");
        line("# policies: [policy]");
    } else {
        line("# Rego policies (conftest conventions: deny/violation/warn rules in package main).");
        line("policies:");
        for p in &found.policies {
            line(&format!("  - {}", quoted(p)));
        }
    }
    if !found.charts.is_empty() || !found.kustomizations.is_empty() {
        line("");
        line("# Helm charts and kustomizations are sources, not manifests: `check` notes and skips");
        line("# them. Check what they render by piping it in:");
        for c in found.charts.iter().take(10) {
            line(&format!("#   helm template {} | driftlint check -", quoted(c)));
        }
        for k in found.kustomizations.iter().take(10) {
            line(&format!("#   kustomize build {} | driftlint check -", quoted(k)));
        }
    }
    line("");
    line("# Files or directories to leave out (gitignore globs, relative to this file):");
    line("# exclude: [vendor/]");
    line("");
    line("# The lowest severity that fails a run (note, warning, error):");
    line("fail-level: error");
    if found.truncated {
        line("");
        line(&format!("# `driftlint init` looked at the first {MAX_FILES} files only."));
    }
    out
}

/// What was written and the two commands to run next.
fn next_steps(dir: &Path, target: &Path, found: &Found) -> String {
    let mut seen = Vec::new();
    let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    match found.references.first() {
        Some(r) => seen.push(format!("reference {r}")),
        None => seen.push("no reference".to_string()),
    }
    for (n, one, many) in [
        (found.charts.len(), "Helm chart", "Helm charts"),
        (found.kustomizations.len(), "kustomization", "kustomizations"),
        (found.crds.len() + found.xrds.len(), "file of CRDs", "files of CRDs"),
        (found.policies.len(), "policy directory", "policy directories"),
    ] {
        if n > 0 {
            seen.push(count(n, one, many));
        }
    }
    let escape = |s: &str| driftlint_core::escape::text(s).into_owned();
    let mut out = format!("wrote {} ({})\n\nnext:\n", escape(&target.display().to_string()), seen.join(", "));
    if dir != Path::new(".") {
        let _ = writeln!(out, "  cd {}", escape(&dir.display().to_string()));
    }
    out.push_str("  driftlint check                      # lint the repository\n");
    out.push_str("  driftlint check --base origin/main   # in CI: what a pull request's change brings\n");
    out.push_str("pre-commit hook and GitHub Action: docs/ci.md\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topmost_keeps_outer_directories() {
        let dirs: BTreeSet<String> = ["policy", "policy/lib", "other/rego", "policyx"].map(String::from).into();
        assert_eq!(topmost(dirs), ["other/rego", "policy", "policyx"]);
    }

    #[test]
    fn the_default_version_serves_plain_apps() {
        let mut found = Found::default();
        found.builtin.insert(("apps".into(), "v1".into(), "Deployment".into()), "d.yaml".into());
        assert_eq!(kubernetes_version(&found), Version::Default(driftlint_kube_schemas::default_version()));
        // An API removed before the oldest bundled version: the default, and which API it is.
        found.builtin.insert(("extensions".into(), "v1beta1".into(), "Ingress".into()), "i.yaml".into());
        assert_eq!(
            kubernetes_version(&found),
            Version::Unserved(
                driftlint_kube_schemas::default_version(),
                "i.yaml uses extensions/v1beta1 Ingress".into()
            )
        );
    }
}
