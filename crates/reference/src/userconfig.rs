//! The `-c` diff config (§2.8): manual correlation pairs from CR id to template identifier.
//!
//! Decoded strictly like the reference (Go type `compare.UserConfig`); every pair must name a
//! template of the reference, checked by [`UserConfig::validate`].

use std::ops::Range;
use std::path::{Path, PathBuf};

use driftlint_yaml::{NodeValue, parse_stream};

use super::Reference;
use super::decode::Ctx;
use super::error::{LoadError, Problem};
use super::load::go_io_error;

const NOT_IN_FORMAT: &str = "User config file isn't in correct format. error: ";

/// One `correlationPairs` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorrelationPair {
    /// The `_`-separated CR id (`apps/v1_Deployment_ns_name`).
    pub cr_id: String,
    /// The template identifier (its `path` in the metadata).
    pub template: String,
    pub span: Range<usize>,
}

/// A loaded user config.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserConfig {
    pub path: PathBuf,
    pub text: String,
    /// In file order; a repeated CR id keeps its last value, like a Go map.
    pub correlation_pairs: Vec<CorrelationPair>,
}

/// Reads and decodes a user config. `path` is shown in messages as given.
pub fn load_user_config(path: &Path) -> Result<UserConfig, LoadError> {
    let shown = path.display().to_string();
    let bytes = driftlint_core::input::read_bounded(path, driftlint_core::input::MAX_FILE_BYTES).map_err(|e| {
        LoadError::plain(path, format!("User Config File not found. error: {}", go_io_error(&e, &shown)))
    })?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    parse_user_config(path, &text)
}

/// Decodes user config text.
pub fn parse_user_config(path: &Path, text: &str) -> Result<UserConfig, LoadError> {
    let fail =
        |message: String, span: Option<Range<usize>>| LoadError::located(path, text, vec![Problem::new(message, span)]);
    let stream = parse_stream(text);
    if let Some(e) = stream.error.as_ref().filter(|e| e.document == 0) {
        return Err(fail(
            format!("{NOT_IN_FORMAT}error converting YAML to JSON: yaml: line {}: {}", e.line, e.message),
            Some(e.offset..e.offset),
        ));
    }
    let mut config = UserConfig { path: path.to_path_buf(), text: text.to_owned(), correlation_pairs: Vec::new() };
    let Some(doc) = stream.documents.into_iter().next() else {
        return Ok(config);
    };
    if let Some(driftlint_yaml::Warning::DuplicateKey { key, duplicate, .. }) =
        doc.warnings.iter().find(|w| matches!(w, driftlint_yaml::Warning::DuplicateKey { .. }))
    {
        let line = driftlint_yaml::LineIndex::new(text).line_column(text, duplicate.start).line;
        return Err(fail(
            format!(
                "{NOT_IN_FORMAT}error converting YAML to JSON: yaml: unmarshal errors:\n  line {line}: key \"{key}\" already set in map"
            ),
            Some(duplicate.clone()),
        ));
    }
    let root = doc.root;
    if matches!(root.value, NodeValue::Null) {
        return Ok(config);
    }
    let pairs = &mut config.correlation_pairs;
    Ctx::strict()
        .object(&root, "UserConfig", "compare.UserConfig", &["correlationSettings"], |ctx, _, _, v| {
            ctx.object(
                v,
                "CorrelationSettings",
                "compare.CorrelationSettings",
                &["manualCorrelation"],
                |ctx, _, _, v| {
                    ctx.object(
                        v,
                        "ManualCorrelation",
                        "compare.ManualCorrelation",
                        &["correlationPairs"],
                        |ctx, _, _, v| {
                            pairs.clear();
                            for (k, value) in ctx.map(v, "map[string]string")? {
                                let cr_id = k.json_key().into_owned();
                                let template = ctx.string(value, "string")?;
                                pairs.retain(|p| p.cr_id != cr_id);
                                pairs.push(CorrelationPair { cr_id, template, span: k.span.start..value.span.end });
                            }
                            Ok(())
                        },
                    )
                },
            )
        })
        .map_err(|e| {
            fail(format!("{NOT_IN_FORMAT}error unmarshaling JSON: while decoding JSON: {}", e.message), Some(e.span))
        })?;
    Ok(config)
}

impl UserConfig {
    /// Every pair must name a template of the reference (§2.8); the first that does not is
    /// the error, as kube-compare stops there.
    pub fn validate(&self, reference: &Reference) -> Result<(), LoadError> {
        for pair in &self.correlation_pairs {
            if !reference.templates.iter().any(|t| t.path == pair.template) {
                return Err(LoadError::located(
                    &self.path,
                    &self.text,
                    vec![Problem::new(
                        format!(
                            "error in template manual matching for resource: {} no template in the name of {}",
                            pair.cr_id, pair.template
                        ),
                        Some(pair.span.clone()),
                    )],
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let p = Path::new("u.yaml");
        let ok = parse_user_config(
            p,
            "correlationSettings:\n  manualCorrelation:\n    correlationPairs:\n      a_b: t.yaml\n",
        )
        .unwrap();
        assert_eq!(ok.correlation_pairs[0].cr_id, "a_b");
        assert_eq!(ok.correlation_pairs[0].template, "t.yaml");
        assert_eq!(
            parse_user_config(p, "NOT YAML").unwrap_err().to_string(),
            "User config file isn't in correct format. error: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type compare.UserConfig"
        );
        assert_eq!(
            parse_user_config(p, "foo: 1").unwrap_err().to_string(),
            "User config file isn't in correct format. error: error unmarshaling JSON: while decoding JSON: json: unknown field \"foo\""
        );
    }
}
