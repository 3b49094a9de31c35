//! kube-compare's report model (spec §7): `Output { Summary, Diffs, Warnings }`.
//!
//! Field names, casing and `omitempty` rules are kube-compare's JSON tags, including the
//! `ValidationIssuses` typo and the lower-case `patchedCRs`. [`Output::to_value`] builds the
//! JSON value in Go struct order (maps sorted, as Go's encoder does); every renderer starts from
//! the model, never from driftlint diagnostics. Deserialisation exists so tests (and tools) can
//! read a recorded `expected.json` back into the model.

pub mod json;
pub mod junit;
pub mod patches;
pub mod summary;
pub mod text;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};

/// The message of the only warning kube-compare emits (§7, reference-only matches).
pub const INFERRED_MESSAGE: &str = "Resource(s) found via ownerReferences or RBAC subjects but contents not validated";
/// The type of that warning.
pub const INFERRED_TYPE: &str = "InferredResourcesNotValidated";

/// The whole report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Output {
    #[serde(rename = "Summary")]
    pub summary: Summary,
    /// Every compared CR in processing order (only the text output sorts).
    #[serde(rename = "Diffs", default)]
    pub diffs: Vec<DiffSum>,
    /// `omitempty`: present only with reference-only matches.
    #[serde(rename = "Warnings", default)]
    pub warnings: Vec<Warning>,
}

/// `Summary` (§7). Go map keys are sorted bytewise, which `BTreeMap<String, _>` reproduces.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Summary {
    /// part → component → issue; `{}` when empty.
    #[serde(rename = "ValidationIssuses", default)]
    pub validation_issues: BTreeMap<String, BTreeMap<String, ValidationIssue>>,
    #[serde(rename = "NumMissing")]
    pub num_missing: i64,
    /// `[]` when empty (never `null`).
    #[serde(rename = "UnmatchedCRS", default)]
    pub unmatched_crs: Vec<String>,
    #[serde(rename = "NumDiffCRs")]
    pub num_diff_crs: i64,
    #[serde(rename = "TotalCRs")]
    pub total_crs: i64,
    #[serde(rename = "MetadataHash")]
    pub metadata_hash: String,
    #[serde(rename = "patchedCRs")]
    pub patched_crs: i64,
    /// `omitempty`.
    #[serde(rename = "matchedByReferenceOnly", default)]
    pub matched_by_reference_only: Vec<String>,
}

/// One component's issue. All fields are `omitempty`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct ValidationIssue {
    #[serde(rename = "Msg", default)]
    pub msg: String,
    #[serde(rename = "CRs", default)]
    pub crs: Vec<String>,
    #[serde(rename = "crMetadata", default)]
    pub cr_metadata: BTreeMap<String, CrMetadata>,
}

/// Per-template metadata inside an issue.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct CrMetadata {
    /// `omitempty`.
    #[serde(default)]
    pub description: String,
}

/// One compared CR.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct DiffSum {
    #[serde(rename = "DiffOutput", default)]
    pub diff_output: String,
    /// Shared by every CR matched to the template: one allocation per template, not per CR.
    #[serde(rename = "CorrelatedTemplate", default)]
    pub correlated_template: Arc<str>,
    #[serde(rename = "CRName", default)]
    pub cr_name: String,
    /// The `-p` argument as typed; `omitempty`.
    #[serde(rename = "Patched", default)]
    pub patched: String,
    /// `omitempty`; the JSON tag is singular.
    #[serde(rename = "OverrideReason", default)]
    pub override_reasons: Vec<String>,
    /// `omitempty`; shared like `correlated_template`.
    #[serde(default)]
    pub description: Arc<str>,
}

/// A report-level warning (§7: only `InferredResourcesNotValidated` exists).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Warning {
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub resources: Vec<String>,
}

impl Warning {
    /// The warning kube-compare adds when templates were matched by reference only (§4.5).
    #[must_use]
    pub fn inferred(resources: Vec<String>) -> Warning {
        Warning { type_: INFERRED_TYPE.to_owned(), message: INFERRED_MESSAGE.to_owned(), resources }
    }
}

fn strings(v: &[String]) -> Value {
    Value::Array(v.iter().cloned().map(Value::String).collect())
}

fn put(map: &mut Map<String, Value>, key: &str, value: Value) {
    map.insert(key.to_owned(), value);
}

impl Output {
    /// The JSON value Go's `encoding/json` would produce, keys in struct order.
    #[must_use]
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        put(&mut m, "Summary", self.summary.to_value());
        put(&mut m, "Diffs", Value::Array(self.diffs.iter().map(DiffSum::to_value).collect()));
        if !self.warnings.is_empty() {
            put(&mut m, "Warnings", Value::Array(self.warnings.iter().map(Warning::to_value).collect()));
        }
        Value::Object(m)
    }

    /// Reads a kube-compare `-o json` report.
    ///
    /// # Errors
    /// When the value does not have the report's shape.
    pub fn from_value(value: &Value) -> Result<Output, serde_json::Error> {
        Output::deserialize(value)
    }

    /// kube-compare's exit status for a finished comparison (§1.4): 1 with diffs or any
    /// validation issue (even when `NumMissing` is 0); unmatched CRs never count.
    #[must_use]
    pub fn exit_code(&self) -> i32 {
        i32::from(self.summary.num_diff_crs != 0 || !self.summary.validation_issues.is_empty())
    }
}

impl Summary {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        let mut parts = Map::new();
        for (part, comps) in &self.validation_issues {
            let mut cm = Map::new();
            for (comp, issue) in comps {
                put(&mut cm, comp, issue.to_value());
            }
            put(&mut parts, part, Value::Object(cm));
        }
        put(&mut m, "ValidationIssuses", Value::Object(parts));
        put(&mut m, "NumMissing", self.num_missing.into());
        put(&mut m, "UnmatchedCRS", strings(&self.unmatched_crs));
        put(&mut m, "NumDiffCRs", self.num_diff_crs.into());
        put(&mut m, "TotalCRs", self.total_crs.into());
        put(&mut m, "MetadataHash", Value::String(self.metadata_hash.clone()));
        put(&mut m, "patchedCRs", self.patched_crs.into());
        if !self.matched_by_reference_only.is_empty() {
            put(&mut m, "matchedByReferenceOnly", strings(&self.matched_by_reference_only));
        }
        Value::Object(m)
    }
}

impl ValidationIssue {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        if !self.msg.is_empty() {
            put(&mut m, "Msg", Value::String(self.msg.clone()));
        }
        if !self.crs.is_empty() {
            put(&mut m, "CRs", strings(&self.crs));
        }
        if !self.cr_metadata.is_empty() {
            let mut md = Map::new();
            for (path, meta) in &self.cr_metadata {
                let mut e = Map::new();
                if !meta.description.is_empty() {
                    put(&mut e, "description", Value::String(meta.description.clone()));
                }
                put(&mut md, path, Value::Object(e));
            }
            put(&mut m, "crMetadata", Value::Object(md));
        }
        Value::Object(m)
    }
}

impl DiffSum {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        put(&mut m, "DiffOutput", Value::String(self.diff_output.clone()));
        put(&mut m, "CorrelatedTemplate", Value::String(self.correlated_template.to_string()));
        put(&mut m, "CRName", Value::String(self.cr_name.clone()));
        if !self.patched.is_empty() {
            put(&mut m, "Patched", Value::String(self.patched.clone()));
        }
        if !self.override_reasons.is_empty() {
            put(&mut m, "OverrideReason", strings(&self.override_reasons));
        }
        if !self.description.is_empty() {
            put(&mut m, "description", Value::String(self.description.to_string()));
        }
        Value::Object(m)
    }
}

impl DiffSum {
    /// [`DiffSum::to_value`] written as Go's compact JSON, without building the value.
    fn write_json(&self, out: &mut String) {
        use self::json::write_string;
        let field = |out: &mut String, key: &str, value: &str| {
            out.push_str(key);
            write_string(out, value);
        };
        field(out, "{\"DiffOutput\":", &self.diff_output);
        field(out, ",\"CorrelatedTemplate\":", &self.correlated_template);
        field(out, ",\"CRName\":", &self.cr_name);
        if !self.patched.is_empty() {
            field(out, ",\"Patched\":", &self.patched);
        }
        if !self.override_reasons.is_empty() {
            out.push_str(",\"OverrideReason\":[");
            for (i, reason) in self.override_reasons.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, reason);
            }
            out.push(']');
        }
        if !self.description.is_empty() {
            field(out, ",\"description\":", &self.description);
        }
        out.push('}');
    }
}

impl Warning {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        put(&mut m, "type", Value::String(self.type_.clone()));
        put(&mut m, "message", Value::String(self.message.clone()));
        put(&mut m, "resources", strings(&self.resources));
        Value::Object(m)
    }
}

/// `-o json`: Go's compact encoding plus the trailing newline kube-compare adds (§7.2).
///
/// Written piece by piece (the summary, then each diff) rather than through one
/// [`serde_json::Value`] of the whole report; the bytes are the same.
#[must_use]
pub fn to_json(output: &Output) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write_json(output, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Diffs serialized per task of [`write_json`].
const JSON_CHUNK: usize = 256;

/// [`to_json`] written to `w`: the diffs are serialized on the pool a few chunks at a time and
/// written in order, so the report never exists whole in memory.
///
/// # Errors
/// The writer's.
pub fn write_json(output: &Output, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    use rayon::prelude::*;

    use self::json::write_go_json;
    let mut head = String::from("{\"Summary\":");
    write_go_json(&mut head, &output.summary.to_value());
    head.push_str(",\"Diffs\":[");
    w.write_all(head.as_bytes())?;
    let group = JSON_CHUNK * rayon::current_num_threads().max(1) * 2;
    for (g, diffs) in output.diffs.chunks(group).enumerate() {
        let texts: Vec<String> = diffs
            .par_chunks(JSON_CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut s = String::with_capacity(chunk.iter().map(|d| d.diff_output.len() + 160).sum());
                let first_chunk = g == 0 && c == 0;
                for (i, diff) in chunk.iter().enumerate() {
                    if !(first_chunk && i == 0) {
                        s.push(',');
                    }
                    diff.write_json(&mut s);
                }
                s
            })
            .collect();
        for text in texts {
            w.write_all(text.as_bytes())?;
        }
    }
    let mut tail = String::from("]");
    if !output.warnings.is_empty() {
        tail.push_str(",\"Warnings\":");
        write_go_json(&mut tail, &Value::Array(output.warnings.iter().map(Warning::to_value).collect()));
    }
    tail.push_str("}\n");
    w.write_all(tail.as_bytes())
}

/// `-o yaml`: `sigs.k8s.io/yaml.Marshal(Output)` (§7.3); ends with the encoder's newline.
#[must_use]
pub fn to_yaml(output: &Output) -> String {
    driftlint_yaml::to_yaml_string(&output.to_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_output_keeps_required_fields() {
        let o = Output::default();
        assert_eq!(
            to_json(&o),
            "{\"Summary\":{\"ValidationIssuses\":{},\"NumMissing\":0,\"UnmatchedCRS\":[],\"NumDiffCRs\":0,\
             \"TotalCRs\":0,\"MetadataHash\":\"\",\"patchedCRs\":0},\"Diffs\":[]}\n"
        );
        assert_eq!(o.exit_code(), 0);
    }

    #[test]
    fn round_trips_through_json() {
        let mut o = Output::default();
        o.summary.matched_by_reference_only = vec!["a.yaml".into()];
        o.warnings.push(Warning::inferred(vec!["a.yaml".into()]));
        o.diffs.push(DiffSum {
            cr_name: "v1_ConfigMap_x".into(),
            patched: "p".into(),
            override_reasons: vec!["r".into()],
            ..DiffSum::default()
        });
        let json = to_json(&o);
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(Output::from_value(&v).unwrap(), o);
        // Written piece by piece, the text is still the whole value's.
        assert_eq!(json, format!("{}\n", json::to_go_json(&o.to_value())));
    }

    #[test]
    fn json_written_in_chunks_is_the_whole_values() {
        for n in [0, 1, JSON_CHUNK - 1, JSON_CHUNK, JSON_CHUNK + 1, JSON_CHUNK * 9 + 7] {
            let diffs = (0..n)
                .map(|i| DiffSum {
                    diff_output: if i % 3 == 0 {
                        format!("--- a\n+++ b\n-x: <{i}> & \u{2028}\t\"q\"\n")
                    } else {
                        String::new()
                    },
                    correlated_template: format!("t{}.yaml", i % 7).into(),
                    cr_name: format!("v1_ConfigMap_ns_c{i}"),
                    patched: if i % 5 == 0 { "patches.yaml".into() } else { String::new() },
                    override_reasons: (0..i % 3).map(|r| format!("reason {r}")).collect(),
                    description: if i % 2 == 0 { format!("desc {i}").into() } else { "".into() },
                })
                .collect();
            let mut o = Output { diffs, ..Output::default() };
            if n % 2 == 1 {
                o.warnings.push(Warning::inferred(vec!["a.yaml".into()]));
            }
            let json = to_json(&o);
            assert_eq!(json, format!("{}\n", json::to_go_json(&o.to_value())), "{n} diffs");
            assert_eq!(Output::from_value(&serde_json::from_str(&json).unwrap()).unwrap(), o);
        }
    }
}
