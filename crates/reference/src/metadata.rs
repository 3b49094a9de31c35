//! Decoding `metadata.yaml` text into the reference model (§2.2–§2.5, §2.7).
//!
//! The order of checks is kube-compare's: YAML → generic strict map (duplicate keys, not a
//! mapping) → version detection (§2.3) → typed strict decode with Go's type names → `fieldsToOmit`
//! processing (`omit`) → v2 component validation. Files are not touched here (`load`).

use std::ops::Range;

use driftlint_yaml::{Node, NodeValue, Warning, format_float_g, parse_stream};

use super::decode::{Ctx, DecodeError, Result as DResult};
use super::error::Problem;
use super::omit::{OmitEntry, RawFieldsToOmit};
use super::{Component, ComponentKind, Group, Part, PerField, TemplateConfig, Version};

const NOT_IN_FORMAT: &str = "Reference config isn't in correct format. error: ";

/// A template entry as decoded (no files yet).
#[derive(Debug, Clone)]
pub(crate) struct RawTemplate {
    pub path: String,
    pub description: String,
    pub config: TemplateConfig,
    pub span: Range<usize>,
    pub part: usize,
    pub component: usize,
}

/// The decoded metadata, before `fieldsToOmit` processing and file checks.
#[derive(Debug, Clone)]
pub(crate) struct Decoded {
    pub version: Version,
    pub api_version: Option<String>,
    pub parts: Vec<Part>,
    pub templates: Vec<RawTemplate>,
    pub function_files: Vec<(String, Range<usize>)>,
    pub fields_to_omit: RawFieldsToOmit,
    /// v2 component validation errors (§2.5), reported after `fieldsToOmit` processing.
    pub validation: Vec<Problem>,
}

fn format_error(e: DecodeError) -> Problem {
    Problem::new(format!("{NOT_IN_FORMAT}error unmarshaling JSON: while decoding JSON: {}", e.message), Some(e.span))
}

/// Parses and decodes the metadata text. Errors are complete kube-compare messages.
pub(crate) fn decode_metadata(text: &str) -> Result<Decoded, Vec<Problem>> {
    let stream = parse_stream(text);
    // sigs.k8s.io/yaml reads only the first document.
    if let Some(e) = stream.error.as_ref().filter(|e| e.document == 0) {
        return Err(vec![Problem::new(
            format!("{NOT_IN_FORMAT}error converting YAML to JSON: yaml: line {}: {}", e.line, e.message),
            Some(e.offset..e.offset),
        )]);
    }
    let Some(doc) = stream.documents.into_iter().next() else {
        // kube-compare dereferences a nil pointer here (§2.2); we report instead.
        return Err(vec![Problem::new(format!("{NOT_IN_FORMAT}the file is empty"), None)]);
    };
    let dups: Vec<_> = doc
        .warnings
        .iter()
        .filter_map(|w| match w {
            Warning::DuplicateKey { key, duplicate, .. } => Some((key, duplicate.clone())),
            _ => None,
        })
        .collect();
    if let Some((_, first)) = dups.first() {
        let index = driftlint_yaml::LineIndex::new(text);
        let lines: Vec<String> = dups
            .iter()
            .map(|(k, span)| {
                format!("  line {}: key \"{k}\" already set in map", index.line_column(text, span.start).line)
            })
            .collect();
        return Err(vec![Problem::new(
            format!("{NOT_IN_FORMAT}error converting YAML to JSON: yaml: unmarshal errors:\n{}", lines.join("\n")),
            Some(first.clone()),
        )]);
    }
    let root = doc.root;
    match &root.value {
        NodeValue::Mapping(_) => {}
        NodeValue::Null => {
            return Err(vec![Problem::new(format!("{NOT_IN_FORMAT}the file is empty"), Some(root.span))]);
        }
        _ => {
            let e = Ctx::strict().type_error(&root, "map[string]interface {}");
            return Err(vec![format_error(e)]);
        }
    }
    let version = detect_version(&root)?;
    let decoded = match version {
        Version::V1 => decode_v1(&root),
        Version::V2 => decode_v2(&root),
    };
    let mut decoded = decoded.map_err(|e| vec![format_error(e)])?;
    decoded.version = version;
    Ok(decoded)
}

/// §2.3: the exact key `apiVersion`, `TrimSpace(fmt.Sprint(v))`, compared case-insensitively.
fn detect_version(root: &Node) -> Result<Version, Vec<Problem>> {
    let Some((key, value)) = root.entry("apiVersion") else {
        return Ok(Version::V1);
    };
    let text = go_sprint(value);
    let text = text.trim();
    if text.eq_ignore_ascii_case("v1") {
        Ok(Version::V1)
    } else if text.eq_ignore_ascii_case("v2") {
        Ok(Version::V2)
    } else {
        Err(vec![Problem::new(
            format!("unknown reference file apiVersion: '{text}'"),
            Some(key.span.start..value.span.end),
        )])
    }
}

/// Go's `fmt.Sprint` of a decoded JSON value.
fn go_sprint(node: &Node) -> String {
    match &node.value {
        NodeValue::Null => "<nil>".to_owned(),
        NodeValue::Bool(b) => b.to_string(),
        NodeValue::Int(i) => i.to_string(),
        NodeValue::Float(f) => format_float_g(*f, false),
        NodeValue::String(s) => s.clone(),
        NodeValue::Sequence(items) => format!("[{}]", items.iter().map(go_sprint).collect::<Vec<_>>().join(" ")),
        NodeValue::Mapping(entries) => {
            let mut pairs: Vec<_> = entries.iter().map(|(k, v)| (k.json_key().into_owned(), go_sprint(v))).collect();
            pairs.sort();
            let inner: Vec<_> = pairs.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
            format!("map[{}]", inner.join(" "))
        }
    }
}

fn empty(version: Version) -> Decoded {
    Decoded {
        version,
        api_version: None,
        parts: Vec::new(),
        templates: Vec::new(),
        function_files: Vec::new(),
        fields_to_omit: RawFieldsToOmit::default(),
        validation: Vec::new(),
    }
}

fn decode_v1(root: &Node) -> DResult<Decoded> {
    let mut out = empty(Version::V1);
    let fields = ["apiVersion", "parts", "templateFunctionFiles", "fieldsToOmit"];
    Ctx::strict().object(root, "ReferenceV1", "compare.ReferenceV1", &fields, |ctx, i, _, v| {
        match i {
            0 => out.api_version = Some(ctx.string(v, "string")?),
            1 => {
                out.parts.clear();
                out.templates.clear();
                for node in ctx.array(v, "[]compare.PartV1")? {
                    part_v1(ctx, node, &mut out)?;
                }
            }
            2 => out.function_files = ctx.strings(v)?,
            _ => out.fields_to_omit = fields_to_omit(ctx, v, false)?,
        }
        Ok(())
    })?;
    Ok(out)
}

fn part_v1(ctx: &Ctx, node: &Node, out: &mut Decoded) -> DResult<()> {
    let index = out.parts.len();
    let mut part =
        Part { name: String::new(), description: String::new(), components: Vec::new(), span: node.span.clone() };
    let mut templates = Vec::new();
    ctx.object(node, "PartV1", "compare.PartV1", &["name", "components"], |ctx, i, _, v| {
        if i == 0 {
            part.name = ctx.string(v, "string")?;
            return Ok(());
        }
        part.components.clear();
        templates.clear();
        for c in ctx.array(v, "[]compare.ComponentV1")? {
            let ci = part.components.len();
            let mut comp = Component {
                name: String::new(),
                description: String::new(),
                kind: ComponentKind::V1 { type_: String::new(), required: Vec::new(), optional: Vec::new() },
                span: c.span.clone(),
            };
            let mut required = Vec::new();
            let mut optional = Vec::new();
            let fields = ["name", "type", "requiredTemplates", "optionalTemplates"];
            ctx.object(c, "ComponentV1", "compare.ComponentV1", &fields, |ctx, i, _, v| {
                match i {
                    0 => comp.name = ctx.string(v, "string")?,
                    1 => {
                        if let ComponentKind::V1 { type_, .. } = &mut comp.kind {
                            *type_ = ctx.string(v, "compare.ComponentTypeV1")?;
                        }
                    }
                    _ => {
                        let list = if i == 2 { &mut required } else { &mut optional };
                        list.clear();
                        for t in ctx.array(v, "[]*compare.ReferenceTemplateV1")? {
                            list.push(template(ctx, t, Version::V1, index, ci)?);
                        }
                    }
                }
                Ok(())
            })?;
            // Template order (§2.4): required, then optional; indices fixed up below.
            if let ComponentKind::V1 { required: r, optional: o, .. } = &mut comp.kind {
                let base = out.templates.len() + templates.len();
                *r = (base..base + required.len()).collect();
                *o = (base + required.len()..base + required.len() + optional.len()).collect();
            }
            templates.extend(required);
            templates.extend(optional);
            part.components.push(comp);
        }
        Ok(())
    })?;
    out.parts.push(part);
    out.templates.extend(templates);
    Ok(())
}

fn decode_v2(root: &Node) -> DResult<Decoded> {
    let mut out = empty(Version::V2);
    let fields = ["apiVersion", "parts", "templateFunctionFiles", "fieldsToOmit"];
    Ctx::strict().object(root, "ReferenceV2", "compare.ReferenceV2", &fields, |ctx, i, _, v| {
        match i {
            0 => out.api_version = Some(ctx.string(v, "string")?),
            1 => {
                out.parts.clear();
                out.templates.clear();
                for node in ctx.array(v, "[]*compare.PartV2")? {
                    part_v2(ctx, node, &mut out)?;
                }
            }
            2 => out.function_files = ctx.strings(v)?,
            _ => out.fields_to_omit = fields_to_omit(ctx, v, true)?,
        }
        Ok(())
    })?;
    Ok(out)
}

fn part_v2(ctx: &Ctx, node: &Node, out: &mut Decoded) -> DResult<()> {
    let index = out.parts.len();
    let mut part =
        Part { name: String::new(), description: String::new(), components: Vec::new(), span: node.span.clone() };
    // Per component: the groups written (in Group::ALL order) with their templates.
    let mut groups: Vec<Vec<(Group, Vec<RawTemplate>)>> = Vec::new();
    let mut validation = Vec::new();
    ctx.object(node, "PartV2", "compare.PartV2", &["name", "description", "components"], |ctx, i, _, v| {
        match i {
            0 => part.name = ctx.string(v, "string")?,
            1 => part.description = ctx.string(v, "string")?,
            _ => {
                part.components.clear();
                groups.clear();
                validation.clear();
                for c in ctx.array(v, "[]*compare.ComponentV2")? {
                    let ci = part.components.len();
                    let mut comp = Component {
                        name: String::new(),
                        description: String::new(),
                        kind: ComponentKind::V2 { group: Group::AllOf, templates: Vec::new() },
                        span: c.span.clone(),
                    };
                    let mut found: Vec<Option<Vec<RawTemplate>>> = vec![None; Group::ALL.len()];
                    let mut fields = vec!["name", "description"];
                    fields.extend(Group::ALL.iter().map(|g| g.key()));
                    ctx.object(c, "ComponentV2", "compare.ComponentV2", &fields, |ctx, i, _, v| {
                        match i {
                            0 => comp.name = ctx.string(v, "string")?,
                            1 => comp.description = ctx.string(v, "string")?,
                            g => {
                                let _ = ctx;
                                // The group's own UnmarshalJSON: a fresh, non-strict decode.
                                let lenient = Ctx::lenient();
                                let mut list = Vec::new();
                                for t in lenient.array(v, "[]*compare.ReferenceTemplateV2")? {
                                    list.push(template(&lenient, t, Version::V2, index, ci)?);
                                }
                                found[g - 2] = Some(list);
                            }
                        }
                        Ok(())
                    })?;
                    let written: Vec<(Group, Vec<RawTemplate>)> = Group::ALL
                        .iter()
                        .zip(found)
                        .filter_map(|(g, l)| l.filter(|l| !l.is_empty()).map(|l| (*g, l)))
                        .collect();
                    if let (ComponentKind::V2 { group, .. }, Some((g, _))) = (&mut comp.kind, written.first()) {
                        *group = *g;
                    }
                    // §2.5: errors name the component's index inside its part and list the
                    // keys in the fixed Go field order, not in file order.
                    if written.is_empty() {
                        validation.push(Problem::new(
                            format!("component {} has no templates", comp.name),
                            Some(c.span.clone()),
                        ));
                    } else if written.len() > 1 {
                        let keys: Vec<_> = written.iter().map(|(g, _)| g.key()).collect();
                        validation.push(Problem::new(
                            format!("too many keys ({}) in index {ci} of component {}", keys.join(","), comp.name),
                            Some(c.span.clone()),
                        ));
                    }
                    part.components.push(comp);
                    groups.push(written);
                }
            }
        }
        Ok(())
    })?;
    for (comp, written) in part.components.iter_mut().zip(groups) {
        let mut indices = Vec::new();
        for (_, list) in written {
            for t in list {
                indices.push(out.templates.len());
                out.templates.push(t);
            }
        }
        if let ComponentKind::V2 { templates, .. } = &mut comp.kind {
            *templates = indices;
        }
    }
    out.parts.push(part);
    out.validation.extend(validation);
    Ok(())
}

/// Decodes one template entry (`ReferenceTemplateV1` or `ReferenceTemplateV2`).
fn template(ctx: &Ctx, node: &Node, version: Version, part: usize, component: usize) -> DResult<RawTemplate> {
    let mut t = RawTemplate {
        path: String::new(),
        description: String::new(),
        config: TemplateConfig::default(),
        span: node.span.clone(),
        part,
        component,
    };
    let (name, go_type) = match version {
        Version::V1 => ("ReferenceTemplateV1", "compare.ReferenceTemplateV1"),
        Version::V2 => ("ReferenceTemplateV2", "compare.ReferenceTemplateV2"),
    };
    ctx.object(node, name, go_type, &["path", "description", "config"], |ctx, i, _, v| {
        match i {
            0 => t.path = ctx.string(v, "string")?,
            1 => t.description = ctx.string(v, "string")?,
            _ => t.config = config(ctx, v, version)?,
        }
        Ok(())
    })?;
    Ok(t)
}

/// §2.7: `ignore-unspecified-fields`, `fieldsToOmitRefs`, and v2 `perField`.
fn config(ctx: &Ctx, node: &Node, version: Version) -> DResult<TemplateConfig> {
    let mut c = TemplateConfig::default();
    // v1 has no perField: there it is an unknown field (§2.7).
    let (struct_name, go_type, fields): (_, _, &[&str]) = match version {
        Version::V1 => (
            "ReferenceTemplateConfigV1",
            "compare.ReferenceTemplateConfigV1",
            &["ignore-unspecified-fields", "fieldsToOmitRefs"],
        ),
        Version::V2 => (
            "ReferenceTemplateConfigV2",
            "compare.ReferenceTemplateConfigV2",
            &["ignore-unspecified-fields", "fieldsToOmitRefs", "perField"],
        ),
    };
    ctx.object(node, struct_name, go_type, fields, |ctx, i, _, v| {
        match i {
            0 => c.ignore_unspecified_fields = ctx.bool(v)?,
            1 => c.fields_to_omit_refs = ctx.strings(v)?.into_iter().map(|(s, _)| s).collect(),
            _ => {
                c.per_field.clear();
                for item in ctx.array(v, "[]*compare.PerFieldConfigV2")? {
                    let mut pf = PerField {
                        path_to_key: String::new(),
                        inline_diff_func: String::new(),
                        span: item.span.clone(),
                    };
                    let f = ["pathToKey", "inlineDiffFunc"];
                    ctx.object(item, "PerFieldConfigV2", "compare.PerFieldConfigV2", &f, |ctx, i, _, v| {
                        match i {
                            0 => pf.path_to_key = ctx.string(v, "string")?,
                            _ => pf.inline_diff_func = ctx.string(v, "compare.inlineDiffType")?,
                        }
                        Ok(())
                    })?;
                    c.per_field.push(pf);
                }
            }
        }
        Ok(())
    })?;
    Ok(c)
}

/// `fieldsToOmit` (`FieldsToOmitV1` / `FieldsToOmitV2`).
fn fields_to_omit(ctx: &Ctx, node: &Node, v2: bool) -> DResult<RawFieldsToOmit> {
    let mut raw = RawFieldsToOmit::default();
    let (name, go_type, items_type, entry_name, entry_type, entry_fields): (_, _, _, _, _, &[&str]) = if v2 {
        (
            "FieldsToOmitV2",
            "*compare.FieldsToOmitV2",
            "map[string][]*compare.FieldsToOmitV2Entry",
            "FieldsToOmitV2Entry",
            "compare.FieldsToOmitV2Entry",
            &["pathToKey", "isPrefix", "include"],
        )
    } else {
        (
            "FieldsToOmitV1",
            "*compare.FieldsToOmitV1",
            "map[string][]*compare.ManifestPathV1",
            "ManifestPathV1",
            "compare.ManifestPathV1",
            &["pathToKey", "isPrefix"],
        )
    };
    let list_type = items_type.trim_start_matches("map[string]");
    ctx.object(node, name, go_type, &["defaultOmitRef", "items"], |ctx, i, _, v| {
        if i == 0 {
            raw.default_omit_ref = ctx.string(v, "string")?;
            raw.default_span = Some(v.span.clone());
            return Ok(());
        }
        raw.items.clear();
        for (k, list) in ctx.map(v, items_type)? {
            let mut entries = Vec::new();
            for e in ctx.array(list, list_type)? {
                let mut entry =
                    OmitEntry { path_to_key: None, is_prefix: false, include: String::new(), span: e.span.clone() };
                ctx.object(e, entry_name, entry_type, entry_fields, |ctx, i, _, v| {
                    match i {
                        0 => entry.path_to_key = Some(ctx.string(v, "string")?),
                        1 => {
                            entry.is_prefix = ctx.bool(v)?;
                            entry.path_to_key.get_or_insert_with(String::new);
                        }
                        _ => entry.include = ctx.string(v, "string")?,
                    }
                    Ok(())
                })?;
                entries.push(entry);
            }
            let key = k.json_key().into_owned();
            raw.items.retain(|(existing, _, _)| *existing != key);
            raw.items.push((key, k.span.clone(), entries));
        }
        Ok(())
    })?;
    Ok(raw)
}
