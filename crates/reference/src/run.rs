//! `driftlint compare`: kube-compare's offline run, end to end (spec Appendix C).
//!
//! Load and compile the reference, build the [`Engine`] (correlators), collect the CRs,
//! let the engine compare every CR with its candidate templates, then compute the summary
//! and render the chosen format. Every piece lives elsewhere ([`crate::reference`],
//! [`super::engine`], the sibling modules); this module only sequences them with
//! kube-compare's error texts, warning order and exit codes.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate as reference;
use crate::compare::{self, UserOverride};
use crate::engine::collect;
use crate::engine::{self, Compared, Comparison, Engine, Parallelism, Retain, Status};
use crate::report::summary::{self, component_rules};
use crate::report::{self as output, DiffSum, Output, Summary, Warning};

/// What the command line asked for, already validated for usage errors.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub reference: String,
    pub inputs: Vec<String>,
    pub recursive: bool,
    pub diff_config: String,
    pub overrides: String,
    pub output: String,
    pub generate_override_for: Vec<String>,
    pub override_reason: String,
    pub all_resources: bool,
    pub verbose: bool,
    pub show_managed_fields: bool,
}

/// The end of a run: what to print and the exit code.
pub struct Finished {
    pub stdout: Stdout,
    /// Lines for stderr (warnings), printed as they were produced.
    pub stderr: Vec<String>,
    pub code: u8,
}

/// What a run prints on standard output.
pub enum Stdout {
    Text(String),
    /// `-o json`, written as it is serialized (see [`output::write_json`]).
    Json(Output),
}

impl Stdout {
    /// Writes it all to `w`.
    ///
    /// # Errors
    /// The writer's.
    pub fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        match self {
            Stdout::Text(text) => w.write_all(text.as_bytes()),
            Stdout::Json(out) => output::write_json(out, w),
        }
    }
}

/// A fatal error: kube-compare prints `error: <message>` and exits 2.
#[derive(Debug)]
pub struct Fatal {
    pub message: String,
    /// Warnings produced before the failure (still printed).
    pub stderr: Vec<String>,
}

impl Fatal {
    fn new(message: impl Into<String>, stderr: &[String]) -> Fatal {
        Fatal { message: message.into(), stderr: stderr.to_vec() }
    }
}

/// klog's warning header is not reproduced: warnings go to stderr as `W] <text>` lines would
/// only add noise; the corpus does not score stderr.
fn warn(stderr: &mut Vec<String>, msg: impl Into<String>) {
    stderr.push(format!("Warning: {}", msg.into()));
}

/// Runs a comparison.
pub fn run(opts: &Options) -> Result<Finished, Fatal> {
    let mut stderr = Vec::new();
    // §1.3 steps 4–9: reference, user config, templates, overrides, correlators.
    // A git location (`git:REV:PATH`, `git+file:///repo@REV:PATH`) is driftlint's extension:
    // the reference is read from the object database, without a checkout.
    let git_location =
        driftlint_git::parse_location(&opts.reference).map_err(|e| Fatal::new(e.to_string(), &stderr))?;
    let loaded = match git_location {
        Some(at) => reference::open(&reference::Location::Git(at), Path::new("."))
            .map_err(|e| Fatal::new(e.to_string(), &stderr))?
            .load(),
        None => {
            let ref_path = Path::new(&opts.reference);
            if !ref_path.exists() {
                return Err(Fatal::new("\"Reference config file doesn't exist\"", &stderr));
            }
            reference::load_reference(ref_path)
        }
    }
    .map_err(|e| Fatal::new(e.to_string(), &stderr))?;
    for w in &loaded.warnings {
        warn(&mut stderr, &w.message);
    }
    let user_pairs = if opts.diff_config.is_empty() {
        Vec::new()
    } else {
        let path = Path::new(&opts.diff_config);
        let cfg = match driftlint_git::location_text(&opts.diff_config, Path::new("."))
            .map_err(|e| Fatal::new(e.to_string(), &stderr))?
        {
            Some(text) => reference::userconfig::parse_user_config(path, &text),
            None => reference::userconfig::load_user_config(path),
        }
        .map_err(|e| Fatal::new(e.to_string(), &stderr))?;
        cfg.correlation_pairs.into_iter().map(|p| (p.cr_id, p.template)).collect()
    };
    let compiled = reference::compile::compile_owned(loaded).map_err(|e| Fatal::new(e.to_string(), &stderr))?;
    let overrides: Vec<UserOverride> = if opts.overrides.is_empty() {
        Vec::new()
    } else {
        match driftlint_git::location_text(&opts.overrides, Path::new("."))
            .map_err(|e| Fatal::new(e.to_string(), &stderr))?
        {
            Some(text) => compare::parse_overrides(&text),
            None => compare::load_overrides(Path::new(&opts.overrides)),
        }
        .map_err(|e| Fatal::new(e.to_string(), &stderr))?
    };
    let engine_options = engine::Options {
        diff: compare::DiffProgram::from_env(),
        show_managed_fields: opts.show_managed_fields,
        verbose: opts.verbose,
        parallelism: Parallelism::Auto,
        // Only generate-patches reads the merged/live objects of the winners (§6.3).
        retain: if opts.output == "generate-patches" && !opts.generate_override_for.is_empty() {
            Retain::Full
        } else {
            Retain::DiffOnly
        },
    };
    let engine = Engine::new(&compiled, overrides, &user_pairs, engine_options)
        .map_err(|e| Fatal::new(e.to_string(), &stderr))?;
    for w in engine.warnings() {
        warn(&mut stderr, w);
    }

    // §1.7: collect the CRs.
    // Each CR is compared as soon as it is decoded where nothing about it depends on the
    // other CRs (see `Engine::compare_early`); the others are packed until all are loaded.
    let early = |cr: &mut collect::Cr| engine.compare_early(cr);
    let mut items = collect::collect_items_with(&opts.inputs, opts.recursive, &mut collect::StdIo, Some(&early))
        .map_err(|e| {
            let mut pre = stderr.clone();
            if let collect::CollectError::Fetch { warnings, .. } = &e {
                pre.extend(warnings.iter().cloned());
            }
            Fatal::new(e.to_string(), &pre)
        })?;
    stderr.append(&mut items.warnings);

    // Appendix C's loop, then kube-compare's policy over its results.
    let comparison = engine.compare_items(items);
    for w in &comparison.warnings {
        warn(&mut stderr, w);
    }
    if let Some(message) = comparison.fatal_error() {
        return Err(Fatal::new(message, &stderr));
    }
    let unmatched = comparison.unmatched_ids(opts.all_resources);
    let mut num_diff = 0i64;
    let mut patched_crs = 0i64;
    let mut new_patches = Vec::new();
    // The results are consumed (each freed once its diff is taken) and the CRs' ids moved out
    // before the loop, so that the CRs themselves are freed before the diffs are built.
    let Comparison { crs, results, match_count, reference_only, .. } = comparison;
    if opts.output == "generate-patches" {
        for r in &results {
            let Status::Compared(Compared { template: ti, outcome }) = &r.status else { continue };
            let path = &compiled.reference.templates[compiled.templates[*ti].entry].path;
            if opts.generate_override_for.iter().any(|p| p == path) {
                new_patches.push(new_override(&crs[r.cr].object, path, &opts.override_reason, outcome));
            }
        }
    }
    let mut ids: Vec<String> = Vec::with_capacity(crs.len());
    ids.extend(crs.into_iter().map(|cr| cr.id));
    // One copy of each template's path and description, shared by its diffs.
    let names: Vec<(Arc<str>, Arc<str>)> = compiled
        .templates
        .iter()
        .map(|t| {
            let entry = &compiled.reference.templates[t.entry];
            (Arc::from(entry.path.as_str()), Arc::from(entry.effective_description.as_str()))
        })
        .collect();
    let mut diffs = Vec::with_capacity(results.iter().filter(|r| matches!(r.status, Status::Compared(_))).count());
    for mut r in results {
        let Status::Compared(Compared { template: ti, outcome }) = &mut r.status else { continue };
        if outcome.differs {
            num_diff += 1;
        }
        let (template, description) = &names[*ti];
        let mut diff = DiffSum {
            // Taken when the outcome is the CR's own, copied when it is shared (identical CRs
            // share one without a diff).
            diff_output: match Arc::get_mut(outcome) {
                Some(o) => std::mem::take(&mut o.diff_output),
                None => outcome.diff_output.clone(),
            },
            correlated_template: Arc::clone(template),
            cr_name: std::mem::take(&mut ids[r.cr]),
            description: Arc::clone(description),
            ..DiffSum::default()
        };
        if !r.overrides.is_empty() {
            patched_crs += 1;
            diff.patched = opts.overrides.clone();
            diff.override_reasons = r
                .overrides
                .iter()
                .map(|&i| &engine.overrides()[i])
                .filter(|o| !o.reason.is_empty())
                .map(|o| o.reason.clone())
                .collect();
        }
        diffs.push(diff);
    }
    drop(ids);

    let rules = component_rules(&compiled);
    let paths: Vec<&str> =
        compiled.templates.iter().map(|t| compiled.reference.templates[t.entry].path.as_str()).collect();
    let count_of =
        |path: &str| -> usize { paths.iter().zip(&match_count).filter(|(p, _)| **p == path).map(|(_, c)| *c).sum() };
    let (issues, num_missing) = summary::validation_issues(&rules, count_of);
    let matched_by_reference_only: Vec<String> = reference_only.iter().map(|&i| paths[i].to_string()).collect();
    let out = Output {
        summary: Summary {
            validation_issues: issues,
            num_missing,
            unmatched_crs: unmatched,
            num_diff_crs: num_diff,
            total_crs: match_count.iter().sum::<usize>() as i64,
            metadata_hash: reference::metadata_hash(&compiled),
            patched_crs,
            matched_by_reference_only: matched_by_reference_only.clone(),
        },
        diffs,
        warnings: if matched_by_reference_only.is_empty() {
            Vec::new()
        } else {
            vec![Warning::inferred(matched_by_reference_only)]
        },
    };
    let (stdout, code) = match opts.output.as_str() {
        "json" => {
            let code = out.exit_code();
            (Stdout::Json(out), code)
        }
        "yaml" => (Stdout::Text(output::to_yaml(&out)), out.exit_code()),
        "junit" => (Stdout::Text(crate::report::junit::to_junit(&out, &now_rfc3339())), out.exit_code()),
        "generate-patches" => {
            let loaded: Vec<Value> = engine.overrides().iter().map(override_value).collect();
            (Stdout::Text(crate::report::patches::generate_patches_yaml(&loaded, &new_patches)), 0)
        }
        _ => (Stdout::Text(crate::report::text::to_text(&out, opts.verbose)), out.exit_code()),
    };
    Ok(Finished { stdout, stderr, code: code as u8 })
}

/// A generated override (§6.3).
fn new_override(cr: &Value, template: &str, reason: &str, outcome: &compare::Outcome) -> Value {
    let s = |p: &str| Value::String(cr.pointer(p).and_then(Value::as_str).unwrap_or_default().to_string());
    serde_json::json!({
        "apiVersion": s("/apiVersion"),
        "kind": s("/kind"),
        "name": s("/metadata/name"),
        "namespace": s("/metadata/namespace"),
        "type": "mergepatch",
        "reason": reason,
        "templatePath": template,
        "patch": outcome.patch_for_generate(),
    })
}

/// A loaded override as the entry generate-patches writes back (§6.3).
fn override_value(o: &UserOverride) -> Value {
    serde_json::json!({
        "apiVersion": o.api_version, "kind": o.kind, "name": o.name, "namespace": o.namespace,
        "exactMatch": o.exact_match, "type": o.type_, "patch": o.patch, "reason": o.reason,
        "templatePath": o.template_path,
    })
}

/// RFC 3339 UTC time of now (JUnit suite timestamps).
fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    let (rem, days) = (secs.rem_euclid(86_400), secs.div_euclid(86_400));
    let (y, m, d) = crate::compare::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}
