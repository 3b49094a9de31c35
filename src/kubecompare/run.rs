//! `driftlint compare`: kube-compare's offline run, end to end (spec Appendix C).
//!
//! Load and compile the reference, build the correlators, collect the CRs, compare every CR
//! with each of its candidate templates, keep the best, then compute the summary and render
//! the chosen format. Every piece lives elsewhere ([`crate::reference`], [`crate::correlate`],
//! [`crate::compare`], the sibling modules); this module only sequences them with
//! kube-compare's error texts and exit codes.

use std::path::Path;

use driftlint_gotmpl::Value as GoValue;
use serde_json::Value;

use super::collect::{self, Collected};
use super::output::{self, DiffSum, Output, Summary, Warning};
use super::summary::{self, ComponentRule, TemplateRef};
use crate::compare::{self, Candidate, CompareError, FieldFunc, InlineDiff, RenderError, UserOverride, Verdict};
use crate::correlate::{Correlator, OverrideCorrelator, OverrideFields, ReferenceIndex, TemplateMeta};
use crate::reference::{self, Compiled, ComponentKind, Version};

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
    pub stdout: String,
    /// Lines for stderr (warnings), printed as they were produced.
    pub stderr: Vec<String>,
    pub code: u8,
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
    let ref_path = Path::new(&opts.reference);
    if !ref_path.exists() {
        return Err(Fatal::new("\"Reference config file doesn't exist\"", &stderr));
    }
    let loaded = reference::load_reference(ref_path).map_err(|e| Fatal::new(e.to_string(), &stderr))?;
    for w in &loaded.warnings {
        warn(&mut stderr, &w.message);
    }
    let user_pairs = if opts.diff_config.is_empty() {
        Vec::new()
    } else {
        let cfg = reference::userconfig::load_user_config(Path::new(&opts.diff_config))
            .map_err(|e| Fatal::new(e.to_string(), &stderr))?;
        cfg.correlation_pairs.into_iter().map(|p| (p.cr_id, p.template)).collect()
    };
    let compiled = reference::compile::compile_owned(loaded).map_err(|e| Fatal::new(e.to_string(), &stderr))?;
    let overrides: Vec<UserOverride> = if opts.overrides.is_empty() {
        Vec::new()
    } else {
        compare::load_overrides(Path::new(&opts.overrides)).map_err(|e| Fatal::new(e.to_string(), &stderr))?
    };
    let metas = template_metas(&compiled);
    let correlator = Correlator::new(&metas, &user_pairs).map_err(|e| Fatal::new(e.to_string(), &stderr))?;
    let ids: Vec<String> = metas.iter().map(|m| m.path.clone()).collect();
    for w in correlator.group().overlap_warnings(&ids, opts.verbose) {
        warn(&mut stderr, w);
    }
    let override_fields: Vec<OverrideFields> = overrides
        .iter()
        .map(|o| OverrideFields {
            exact_match: o.exact_match.clone(),
            api_version: o.api_version.clone(),
            kind: o.kind.clone(),
            name: o.name.clone(),
            namespace: o.namespace.clone(),
        })
        .collect();
    let override_correlator = OverrideCorrelator::new(&override_fields);

    // §1.7: collect the CRs.
    let Collected { crs, warnings } = collect::collect_crs(&opts.inputs, opts.recursive).map_err(|e| {
        let mut pre = stderr.clone();
        if let collect::CollectError::Fetch { warnings, .. } = &e {
            pre.extend(warnings.iter().cloned());
        }
        Fatal::new(e.to_string(), &pre)
    })?;
    stderr.extend(warnings);
    let mut objects: Vec<Value> = crs.iter().map(|c| c.object.clone()).collect();
    // What lookupCR(s) see: the same objects, updated as omission changes them (§3.4).
    let mut lookups: Vec<GoValue> = objects.iter().map(GoValue::from_json).collect();

    // §4.5: reference-only matches count before any comparison.
    let mut match_count = vec![0usize; compiled.templates.len()];
    let index = ReferenceIndex::new(objects.iter());
    let reference_only = index.reference_only(&metas);
    for &i in &reference_only {
        match_count[i] += 1;
    }

    let options = compare::Options { diff: compare::DiffProgram::from_env(), show_managed_fields: opts.show_managed_fields };
    let per_field: Vec<Vec<FieldFunc>> = compiled
        .templates
        .iter()
        .map(|t| {
            let entry = &compiled.reference.templates[t.entry];
            entry
                .config
                .per_field
                .iter()
                .filter_map(|p| {
                    InlineDiff::from_name(&p.inline_diff_func)
                        .map(|func| FieldFunc { path_to_key: p.path_to_key.clone(), func })
                })
                .collect()
        })
        .collect();

    let mut diffs = Vec::new();
    let mut unmatched = Vec::new();
    let mut num_diff = 0i64;
    let mut patched_crs = 0i64;
    let mut new_patches = Vec::new();
    let mut errors = Vec::new();
    for (ci, cr) in crs.iter().enumerate() {
        let Some((candidates, _via)) = correlator.candidates(&objects[ci], &cr.id, Some(&index)) else {
            if opts.all_resources {
                unmatched.push(cr.id.clone());
            }
            continue;
        };
        let matched_overrides: Vec<&UserOverride> =
            override_correlator.candidates(&objects[ci], &cr.id).into_iter().map(|i| &overrides[i]).collect();
        let mut best: Option<(usize, Box<compare::Outcome>)> = None;
        let mut cr_errors = Vec::new();
        for &ti in &candidates {
            let entry = &compiled.reference.templates[compiled.templates[ti].entry];
            let candidate = Candidate {
                id: &entry.path,
                omit: &entry.omit_paths,
                ignore_unspecified_fields: entry.config.ignore_unspecified_fields,
                per_field: &per_field[ti],
            };
            let render = |data: &Value| -> Result<String, RenderError> {
                match compiled.render(ti, data, &lookups) {
                    Ok(r) => Ok(r.text),
                    Err(e) if e.kind == driftlint_gotmpl::ErrorKind::DoNotMatch => Err(RenderError::DoNotMatch),
                    Err(e) => Err(RenderError::Failed(format!("failed to constuct template: {e}"))),
                }
            };
            let verdict = compare::compare_one(&mut objects[ci], render, &candidate, &matched_overrides, &lookups, &options);
            // The CR was omitted in place: later lookups see it that way.
            lookups[ci] = GoValue::from_json(&objects[ci]);
            match verdict {
                Ok(Verdict::DoNotMatch) => {}
                Ok(Verdict::Compared(outcome)) => {
                    if best.as_ref().is_none_or(|(_, b)| outcome.score < b.score) {
                        best = Some((ti, outcome));
                    }
                }
                Err(e) => cr_errors.push(e),
            }
        }
        if !cr_errors.is_empty() {
            let text = cr_errors.iter().map(CompareError::to_string).collect::<Vec<_>>().join("\n");
            // §4.3: two error texts are downgraded to a skip warning and an unmatched CR.
            if text.contains("error parsing") || text.contains("Object 'Kind' is missing") {
                let tail = text.rsplit(':').next().unwrap_or_default();
                warn(&mut stderr, collect::skip_warning("failed", tail));
                unmatched.push(cr.id.clone());
                continue;
            }
            errors.push(text);
            continue;
        }
        let Some((ti, outcome)) = best else { continue };
        let entry = &compiled.reference.templates[compiled.templates[ti].entry];
        match_count[ti] += 1;
        if outcome.score > 0 {
            num_diff += 1;
        }
        if opts.output == "generate-patches" && opts.generate_override_for.iter().any(|p| p == &entry.path) {
            new_patches.push(new_override(&objects[ci], &entry.path, &opts.override_reason, &outcome));
        }
        let mut diff = DiffSum {
            diff_output: outcome.diff_output.clone(),
            correlated_template: entry.path.clone(),
            cr_name: cr.id.clone(),
            description: entry.effective_description.clone(),
            ..DiffSum::default()
        };
        if !matched_overrides.is_empty() {
            patched_crs += 1;
            diff.patched = opts.overrides.clone();
            diff.override_reasons =
                matched_overrides.iter().filter(|o| !o.reason.is_empty()).map(|o| o.reason.clone()).collect();
        }
        diffs.push(diff);
    }
    if !errors.is_empty() {
        return Err(Fatal::new(
            format!("error occurred while trying to process resources: {}", errors.join("\n")),
            &stderr,
        ));
    }

    let rules = component_rules(&compiled);
    let paths: Vec<&str> = compiled.templates.iter().map(|t| compiled.reference.templates[t.entry].path.as_str()).collect();
    let count_of = |path: &str| -> usize {
        paths.iter().zip(&match_count).filter(|(p, _)| **p == path).map(|(_, c)| *c).sum()
    };
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
        "json" => (output::to_json(&out), out.exit_code()),
        "yaml" => (output::to_yaml(&out), out.exit_code()),
        "junit" => (super::junit::to_junit(&out, &now_rfc3339()), out.exit_code()),
        "generate-patches" => {
            let loaded: Vec<Value> = overrides.iter().map(override_value).collect();
            (super::patches::generate_patches_yaml(&loaded, &new_patches), 0)
        }
        _ => (super::text::to_text(&out, opts.verbose), out.exit_code()),
    };
    Ok(Finished { stdout, stderr, code: code as u8 })
}

fn template_metas(compiled: &Compiled) -> Vec<TemplateMeta> {
    compiled
        .templates
        .iter()
        .map(|t| TemplateMeta {
            path: compiled.reference.templates[t.entry].path.clone(),
            api_version: t.fixed.api_version.clone(),
            kind: t.fixed.kind.clone(),
            name: t.fixed.name.clone(),
            namespace: t.fixed.namespace.clone(),
        })
        .collect()
}

/// Maps the reference's components onto the summary rules (§2.4, §2.5).
fn component_rules(compiled: &Compiled) -> Vec<ComponentRule> {
    let r = &compiled.reference;
    let tref = |i: usize, v2: bool| {
        let e = &r.templates[i];
        TemplateRef {
            path: e.path.clone(),
            description: if v2 { e.effective_description.clone() } else { e.description.clone() },
        }
    };
    let mut rules = Vec::new();
    for part in &r.parts {
        for comp in &part.components {
            let rule = match &comp.kind {
                ComponentKind::V1 { type_, required, .. } => {
                    summary::Rule::V1 { type_: type_.clone(), required: required.iter().map(|&i| tref(i, false)).collect() }
                }
                ComponentKind::V2 { group, templates } => summary::Rule::V2 {
                    group: map_group(*group),
                    templates: templates.iter().map(|&i| tref(i, r.version == Version::V2)).collect(),
                },
            };
            rules.push(ComponentRule { part: part.name.clone(), component: comp.name.clone(), rule });
        }
    }
    rules
}

fn map_group(g: reference::Group) -> summary::Group {
    match g {
        reference::Group::AllOf => summary::Group::AllOf,
        reference::Group::AllOrNoneOf => summary::Group::AllOrNoneOf,
        reference::Group::AnyOf => summary::Group::AnyOf,
        reference::Group::OneOf => summary::Group::OneOf,
        reference::Group::NoneOf => summary::Group::NoneOf,
        reference::Group::AnyOneOf => summary::Group::AnyOneOf,
    }
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
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}
