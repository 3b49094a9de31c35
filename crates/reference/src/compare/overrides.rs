//! User overrides (`-p`, §6.1–6.2): the file model, loading, and applying one override to a
//! rendered object. Correlating overrides with CRs is the correlator's job.
//!
//! Loading is non-strict (unknown keys ignored) with case-insensitive keys, like Go's JSON
//! decoding; every entry needs a non-empty `reason`.

use serde_json::Value;

use super::merge::merge_patch;
use super::render::normalize_numbers;

/// One entry of an overrides file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserOverride {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
    pub exact_match: String,
    pub template_path: String,
    /// `mergepatch`, `rfc6902` or `go-template` (case-sensitive, checked when applied).
    pub type_: String,
    pub patch: String,
    pub reason: String,
}

/// Loading or applying errors; `Display` is kube-compare's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverrideError {
    #[error("failed to load user overrides: {0}")]
    Load(String),
    #[error("{0}")]
    Apply(String),
}

const FIELDS: [&str; 9] =
    ["apiVersion", "kind", "name", "namespace", "exactMatch", "templatePath", "type", "patch", "reason"];

/// Reads an overrides file (`open <path>: no such file or directory` style errors).
pub fn load_overrides(path: &std::path::Path) -> Result<Vec<UserOverride>, OverrideError> {
    let text =
        driftlint_core::input::read_bounded_to_string(path, driftlint_core::input::MAX_FILE_BYTES).map_err(|e| {
            let detail = match e.kind() {
                std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
                _ => e.to_string(),
            };
            OverrideError::Load(format!("open {}: {detail}", path.display()))
        })?;
    parse_overrides(&text)
}

/// Parses an overrides file's text. Empty text means no overrides.
pub fn parse_overrides(text: &str) -> Result<Vec<UserOverride>, OverrideError> {
    let list = decode(text).map_err(OverrideError::Load)?;
    if list.iter().any(|o| o.reason.is_empty()) {
        return Err(OverrideError::Load("missing reason".to_owned()));
    }
    Ok(list)
}

fn decode(text: &str) -> Result<Vec<UserOverride>, String> {
    let stream = driftlint_yaml::parse_stream(text);
    if let Some(e) = stream.error {
        return Err(format!("error converting YAML to JSON: yaml: line {}: {}", e.line, e.message));
    }
    let value = stream.documents.first().map_or(Value::Null, |d| d.root.to_json());
    let items = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(a) => a,
        other => return Err(unmarshal_error(&other, "[]compare.UserOverride")),
    };
    items.iter().map(decode_one).collect()
}

fn unmarshal_error(v: &Value, ty: &str) -> String {
    let kind = match v {
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        _ => "object",
    };
    format!("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {kind} into Go value of type {ty}")
}

fn decode_one(v: &Value) -> Result<UserOverride, String> {
    let Value::Object(m) = v else {
        return if v.is_null() { Ok(UserOverride::default()) } else { Err(unmarshal_error(v, "compare.UserOverride")) };
    };
    let mut o = UserOverride::default();
    for (k, val) in m {
        // Go's decoder: exact name first, else a case-insensitive match.
        let Some(field) =
            FIELDS.iter().find(|f| **f == k).or_else(|| FIELDS.iter().find(|f| f.eq_ignore_ascii_case(k)))
        else {
            continue;
        };
        let s = match val {
            Value::String(s) => s.clone(),
            Value::Null => continue,
            other => {
                return Err(format!(
                    "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go struct field UserOverride.{field} of type string",
                    unmarshal_error(other, "")
                        .split("unmarshal ")
                        .nth(1)
                        .and_then(|s| s.split(' ').next())
                        .unwrap_or("value")
                ));
            }
        };
        let slot = match *field {
            "apiVersion" => &mut o.api_version,
            "kind" => &mut o.kind,
            "name" => &mut o.name,
            "namespace" => &mut o.namespace,
            "exactMatch" => &mut o.exact_match,
            "templatePath" => &mut o.template_path,
            "type" => &mut o.type_,
            "patch" => &mut o.patch,
            _ => &mut o.reason,
        };
        *slot = s;
    }
    Ok(o)
}

impl UserOverride {
    /// Whether this override applies to the candidate template `path` (§5.1 step 4).
    #[must_use]
    pub fn applies_to(&self, template_path: &str) -> bool {
        self.template_path.is_empty() || self.template_path == template_path
    }

    /// Applies the override to `rendered`. `cr` is the cluster object (after omission), the
    /// data of a `go-template` patch; `crs` are all CRs for `lookupCR(s)`.
    /// `go-template` patches run under `limits` (the run's template budget).
    pub fn apply(
        &self,
        rendered: &Value,
        cr: &Value,
        crs: &[driftlint_gotmpl::Value],
        limits: &driftlint_gotmpl::Limits,
    ) -> Result<Value, OverrideError> {
        apply_patch(&self.type_, &self.patch, rendered, cr, crs, limits, 0)
    }
}

/// Bound on `go-template` patches producing `go-template` patches.
const MAX_NESTING: usize = 16;

fn apply_patch(
    type_: &str,
    patch: &str,
    rendered: &Value,
    cr: &Value,
    crs: &[driftlint_gotmpl::Value],
    limits: &driftlint_gotmpl::Limits,
    depth: usize,
) -> Result<Value, OverrideError> {
    let err = |s: String| OverrideError::Apply(s);
    let mut out = match type_ {
        "mergepatch" => {
            let p: Value = serde_json::from_str(patch).map_err(|e| err(format!("failed to apply user patch: {e}")))?;
            merge_patch(rendered, &p)
        }
        "rfc6902" => {
            let p: json_patch::Patch =
                serde_json::from_str(patch).map_err(|e| err(format!("failed to decode user patch: {e}")))?;
            let mut doc = rendered.clone();
            json_patch::patch(&mut doc, &p).map_err(|e| err(format!("failed to apply user patch: {e}")))?;
            doc
        }
        "go-template" => {
            if depth >= MAX_NESTING {
                return Err(err("failed to execute patch template: go-template patches nested too deeply".to_owned()));
            }
            let set = driftlint_gotmpl::TemplateSet::parse::<&str, &str>("patch", patch, &[])
                .map_err(|e| err(format!("failed to parse patch as template: {e}")))?;
            let data = driftlint_gotmpl::Value::from_json(cr);
            let text = set
                .execute(&data, limits, crs)
                .map_err(|e| err(format!("failed to execute patch template: {e}")))?
                .text;
            let stream = driftlint_yaml::parse_stream(&text);
            if let Some(e) = stream.error {
                return Err(err(format!(
                    "failed to unmarshal templated patch: error converting YAML to JSON: yaml: line {}: {}",
                    e.line, e.message
                )));
            }
            let inner = stream
                .documents
                .first()
                .map_or(Ok(UserOverride::default()), |d| decode_one(&d.root.to_json()))
                .map_err(|e| err(format!("failed to unmarshal templated patch: {e}")))?;
            return apply_patch(&inner.type_, &inner.patch, rendered, cr, crs, limits, depth + 1);
        }
        other => return Err(err(format!("unknown patch type: {other}"))),
    };
    normalize_numbers(&mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn load_non_strict_case_insensitive_with_reason() {
        let text = "- APIVERSION: v1\n  kind: Namespace\n  name: ns\n  type: mergepatch\n  patch: '{\"a\":1}'\n  reason: why\n  extra: ignored\n";
        let o = parse_overrides(text).unwrap();
        assert_eq!(o[0].api_version, "v1");
        assert_eq!(o[0].reason, "why");
        assert_eq!(parse_overrides("").unwrap(), vec![]);
        assert_eq!(
            parse_overrides("- kind: X\n  type: mergepatch\n").unwrap_err().to_string(),
            "failed to load user overrides: missing reason"
        );
        assert!(
            load_overrides(std::path::Path::new("/nonexistent/x.patch"))
                .unwrap_err()
                .to_string()
                .ends_with("no such file or directory")
        );
    }

    #[test]
    fn apply_kinds() {
        let rendered = json!({"metadata": {"labels": {"a": "1", "b": "2"}}});
        let cr = json!({"metadata": {"name": "n"}});
        let o = |t: &str, p: &str| UserOverride {
            type_: t.into(),
            patch: p.into(),
            reason: "r".into(),
            ..Default::default()
        };
        assert_eq!(
            o("mergepatch", r#"{"metadata":{"labels":{"a":null}}}"#)
                .apply(&rendered, &cr, &[], &Default::default())
                .unwrap(),
            json!({"metadata": {"labels": {"b": "2"}}})
        );
        assert_eq!(
            o("rfc6902", r#"[{"op":"replace","path":"/metadata/labels/a","value":"x"}]"#)
                .apply(&rendered, &cr, &[], &Default::default())
                .unwrap(),
            json!({"metadata": {"labels": {"a": "x", "b": "2"}}})
        );
        assert!(
            o("rfc6902", r#"[{"op":"remove","path":"/nope"}]"#)
                .apply(&rendered, &cr, &[], &Default::default())
                .unwrap_err()
                .to_string()
                .starts_with("failed to apply user patch: ")
        );
        assert!(
            o("rfc6902", "nope")
                .apply(&rendered, &cr, &[], &Default::default())
                .unwrap_err()
                .to_string()
                .starts_with("failed to decode user patch: ")
        );
        let gt = o(
            "go-template",
            "type: mergepatch\npatch: '{\"metadata\":{\"labels\":{\"name\":\"{{ .metadata.name }}\"}}}'\n",
        );
        assert_eq!(gt.apply(&rendered, &cr, &[], &Default::default()).unwrap()["metadata"]["labels"]["name"], "n");
        assert_eq!(
            o("Mergepatch", "{}").apply(&rendered, &cr, &[], &Default::default()).unwrap_err().to_string(),
            "unknown patch type: Mergepatch"
        );
    }
}
