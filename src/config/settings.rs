//! The settings of one run of the checker: what the configuration file and the command line
//! resolve to ([`super::resolve`]), and all the runner reads of them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use driftlint_core::diagnostic::Rule;
use driftlint_reference::Location;

use super::{Config, IgnoreEntry, Level};

/// Everything a check needs, resolved from the configuration file and the command line.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// `metadata.yaml` or the directory holding it, or a git location.
    pub reference: Option<Location>,
    /// Where `git:` locations look for their repository (the configuration file's directory).
    pub git_start: PathBuf,
    /// `driftlint.lock` to verify the reference against, when there is one.
    pub lock: Option<PathBuf>,
    /// Files and directories to check; `-` is standard input.
    pub paths: Vec<PathBuf>,
    /// File-name globs a directory walk takes (empty: the walker's defaults).
    pub include: Vec<String>,
    /// gitignore-style globs of inputs to leave out, relative to `exclude_root`.
    pub exclude: Vec<String>,
    pub exclude_root: PathBuf,
    /// `--exclude` globs of the command line (gitignore syntax, relative to the working
    /// directory), besides the file's.
    pub exclude_cli: Vec<String>,
    /// Files named on the command line when they are the reporting scope of a check of the
    /// whole repository (`crate::scope::named`): still "named" for the policy pass' inputs.
    pub named: Vec<PathBuf>,
    pub no_ignore: bool,
    /// What relative kustomize origin paths from stdin are relative to.
    pub origin_root: Option<PathBuf>,
    pub diff_config: Option<PathBuf>,
    pub overrides: Option<PathBuf>,
    pub rules: BTreeMap<Rule, Level>,
    pub ignore: Vec<IgnoreEntry>,
    /// The configuration file in effect, when there is one: scoped runs compare it with the
    /// base's (`config-weakened`), and `require-lock` findings point into it.
    pub config: Option<Config>,
    /// `--isolated`: no configuration file or lock is read, in the checked state or the base.
    pub isolated: bool,
    // --- schema pass ---
    /// CRD/XRD files, directories or git locations, as written (paths already resolved).
    pub schemas: Vec<String>,
    /// `--schema-mode` / `schema-mode:`; `None` is loose.
    pub schema_mode: Option<driftlint_schema::Mode>,
    /// `--kubernetes-version` / `kubernetes-version:`: whose built-in kinds are validated;
    /// `None` is the newest bundled version.
    pub kubernetes_version: Option<&'static str>,
    /// Whether built-in kinds are validated (`--no-builtin-schemas`, `builtin-schemas: false`
    /// turn it off).
    pub builtin_schemas: bool,
    /// `--schema-location` / `schema-locations:`: kubeconform-style JSON schema locations.
    pub schema_locations: Vec<String>,
    /// Rego policies (the policy pass) and Fybrik scenarios.
    pub policy: driftlint_policy::conftest::Settings,
    /// Record which templates each object matched (`Report::correlations`' `objects`):
    /// changed-file scopes need them; a whole-repository check does not keep them.
    pub object_correlations: bool,
    /// Record every object's id (`Report::objects`): the JUnit report lists them.
    pub object_ids: bool,
}
