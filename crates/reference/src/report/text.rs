//! kube-compare's default text report (spec §7.1).
//!
//! kube-compare renders this with two Go templates (`DiffSum.String`, `Summary.String`), each
//! trimmed with `strings.TrimSpace`. The functions below produce the same bytes directly; the
//! comments name the template construct each step reproduces.

use super::{DiffSum, Output, Summary};

/// 34 asterisks and a newline (`DiffSeparator`).
pub const SEPARATOR: &str = "**********************************\n";

/// Renders the text report. `verbose` (`-v`) also shows CRs without differences.
#[must_use]
pub fn to_text(output: &Output, verbose: bool) -> String {
    // `sort.Slice` by CorrelatedTemplate+CRName. Go's sort is not stable, but equal keys mean
    // equal template and CR name, which kube-compare's de-duplication makes impossible.
    let mut diffs: Vec<&DiffSum> =
        output.diffs.iter().filter(|d| verbose || !d.diff_output.is_empty() || !d.patched.is_empty()).collect();
    diffs.sort_by_cached_key(|d| format!("{}{}", d.correlated_template, d.cr_name));
    // The diffs joined by `\n<separator>\n`, each followed by a newline, the whole between
    // separators; written into one string (a large run's report is not copied piecewise).
    let mut out = String::with_capacity(diffs.iter().map(|d| d.diff_output.len() + 160).sum::<usize>() + 512);
    if !diffs.is_empty() {
        out.push_str(SEPARATOR);
        out.push('\n');
        for (i, d) in diffs.iter().enumerate() {
            if i > 0 {
                out.push('\n');
                out.push_str(SEPARATOR);
                out.push('\n');
            }
            out.push_str(&render_diff_sum(d));
            out.push('\n');
        }
        out.push('\n');
        out.push_str(SEPARATOR);
        out.push('\n');
    }
    out.push_str(&render_summary(&output.summary));
    out.push('\n');
    out
}

/// sprig `indent`: the pad before the text and after every newline (empty lines included).
fn indent(pad: usize, text: &str) -> String {
    let pad = " ".repeat(pad);
    format!("{pad}{}", text.replace('\n', &format!("\n{pad}")))
}

/// `DiffSum.String()`, trimmed.
#[must_use]
pub fn render_diff_sum(d: &DiffSum) -> String {
    let mut s = format!("\nCluster CR: {}\nReference File: {}", d.cr_name, d.correlated_template);
    if !d.description.is_empty() {
        s.push_str("\nDescription:\n");
        s.push_str(&indent(2, &d.description));
    }
    s.push_str("\nDiff Output: ");
    s.push_str(if d.diff_output.is_empty() { "None" } else { &d.diff_output });
    if !d.patched.is_empty() {
        s.push_str("\nPatched with ");
        s.push_str(&d.patched);
        if d.override_reasons.is_empty() {
            // `{{or .OverrideReasons "<None given>"}}`: an empty slice is false.
            s.push_str("\nPatch Reasons: <None given>");
        } else {
            s.push_str("\nPatch Reasons:");
            for r in &d.override_reasons {
                s.push_str("\n- ");
                s.push_str(r);
            }
        }
    }
    s.trim().to_owned()
}

/// `Summary.String()`, trimmed.
#[must_use]
pub fn render_summary(sum: &Summary) -> String {
    let mut s = format!("\nSummary\nCRs with diffs: {}/{}", sum.num_diff_crs, sum.total_crs);
    if sum.validation_issues.is_empty() {
        s.push_str("\nNo validation issues with the cluster");
    } else {
        s.push_str(&format!("\nCRs in reference missing from the cluster: {}", sum.num_missing));
        for (part, comps) in &sum.validation_issues {
            s.push_str(&format!("\n{part}:"));
            for (comp, issue) in comps {
                s.push_str(&format!("\n  {comp}:\n    {}:", issue.msg));
                for cr in &issue.crs {
                    s.push_str(&format!("\n    - {cr}"));
                    let desc = issue.cr_metadata.get(cr).map(|m| m.description.as_str()).unwrap_or("");
                    if !desc.is_empty() {
                        // `Description:` then `nindent 8`.
                        s.push_str("\n      Description:\n");
                        s.push_str(&indent(8, desc));
                    }
                }
            }
        }
    }
    if !sum.matched_by_reference_only.is_empty() {
        s.push_str(&format!(
            "\n\nWarning: {} resource(s) found via ownerReferences or RBAC subjects but contents not validated:",
            sum.matched_by_reference_only.len()
        ));
        for t in &sum.matched_by_reference_only {
            s.push_str(&format!("\n  - {t}"));
        }
    }
    if sum.unmatched_crs.is_empty() {
        s.push_str("\nNo CRs are unmatched to reference CRs");
    } else {
        s.push_str(&format!("\nCluster CRs unmatched to reference CRs: {}\n", sum.unmatched_crs.len()));
        // kube-compare's `toYaml` (sigs.k8s.io/yaml, trailing newline trimmed): go-yaml quoting.
        let list = serde_json::Value::Array(sum.unmatched_crs.iter().cloned().map(serde_json::Value::String).collect());
        let yaml = driftlint_yaml::to_yaml_string(&list);
        s.push_str(yaml.strip_suffix('\n').unwrap_or(&yaml));
    }
    s.push_str(&format!("\nMetadata Hash: {}", sum.metadata_hash));
    if sum.patched_crs != 0 {
        s.push_str(&format!("\nCluster CRs with patches applied: {}", sum.patched_crs));
    } else {
        s.push_str("\nNo patched CRs");
    }
    s.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_blocks_starts_with_summary() {
        let out = to_text(&Output::default(), false);
        assert_eq!(
            out,
            "Summary\nCRs with diffs: 0/0\nNo validation issues with the cluster\n\
             No CRs are unmatched to reference CRs\nMetadata Hash: \nNo patched CRs\n"
        );
    }

    #[test]
    fn patched_without_diff_and_reasons() {
        let d = DiffSum {
            cr_name: "v1_Namespace_a".into(),
            correlated_template: "ns.yaml".into(),
            patched: "p.patch".into(),
            description: "line1\n\nline3".into(),
            ..DiffSum::default()
        };
        assert_eq!(
            render_diff_sum(&d),
            "Cluster CR: v1_Namespace_a\nReference File: ns.yaml\nDescription:\n  line1\n  \n  line3\n\
             Diff Output: None\nPatched with p.patch\nPatch Reasons: <None given>"
        );
    }
}
