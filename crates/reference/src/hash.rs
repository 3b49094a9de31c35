//! kube-compare's metadata hash (§7.5): sha256 over the processed reference struct as
//! `sigs.k8s.io/yaml.Marshal` writes it, followed by Go `parse.Node.String()` of every
//! top-level node of each template's own tree, in reference order.
//!
//! Both halves are reproductions of Go output: the struct is rebuilt as JSON with the Go
//! structs' tags and `omitempty` rules (v1 and v2 differ), and the node forms are written by
//! [`node_string`], not by the engine's `Display` (which serves error messages).

use std::fmt::Write as _;

use driftlint_gotmpl::node::{Arg, Branch, Command, Node, Pipe};
use serde_json::{Map, Value as Json, json};
use sha2::{Digest, Sha256};

use super::compile::Compiled;
use super::{ComponentKind, FieldsToOmit, Reference, TemplateEntry, Version};

/// The hex sha256 kube-compare prints as `Metadata Hash`.
pub fn metadata_hash(compiled: &Compiled) -> String {
    let mut hasher = Sha256::new();
    hasher.update(reference_yaml(&compiled.reference).as_bytes());
    for t in &compiled.templates {
        hasher.update(tree_string(t.set.main_tree()).as_bytes());
    }
    hasher.finalize().iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The hex sha256 of every file the reference reads — `metadata.yaml`, each template file and
/// each function file — by its name inside the reference, in name order, each framed with its
/// name's and its text's lengths so that no two file sets hash alike. `driftlint.lock` records
/// it beside the metadata hash: kube-compare's hash covers only metadata and templates, and a
/// function file can change every finding.
pub fn files_hash(reference: &Reference) -> String {
    let mut files: Vec<(&str, &str)> = vec![("metadata.yaml", reference.text.as_str())];
    let sources =
        reference.templates.iter().map(|t| &t.source).chain(reference.function_files.iter().map(|f| &f.source));
    for f in sources.flat_map(|s| &s.files) {
        files.push((f.name.as_str(), f.text.as_str()));
    }
    files.sort_unstable();
    files.dedup();
    let mut hasher = Sha256::new();
    for (name, text) in files {
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update((text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    }
    hasher.finalize().iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// `sigs.k8s.io/yaml.Marshal(reference)` after processing (§7.5).
pub fn reference_yaml(reference: &Reference) -> String {
    driftlint_yaml::to_yaml_string(&reference_json(reference))
}

/// The reference as Go's `encoding/json` sees `ReferenceV1`/`ReferenceV2`.
fn reference_json(r: &Reference) -> Json {
    let mut top = Map::new();
    if let Some(v) = r.api_version.as_deref().filter(|v| !v.is_empty()) {
        top.insert("apiVersion".into(), json!(v));
    }
    let parts: Vec<Json> = r
        .parts
        .iter()
        .map(|p| {
            let mut part = Map::new();
            part.insert("name".into(), json!(p.name));
            if r.version == Version::V2 && !p.description.is_empty() {
                part.insert("description".into(), json!(p.description));
            }
            let components: Vec<Json> = p
                .components
                .iter()
                .map(|c| match &c.kind {
                    ComponentKind::V1 { type_, required, optional } => {
                        let mut comp = Map::new();
                        comp.insert("name".into(), json!(c.name));
                        if !type_.is_empty() {
                            comp.insert("type".into(), json!(type_));
                        }
                        let list = |idx: &[usize]| -> Json {
                            idx.iter().filter_map(|i| r.templates.get(*i)).map(template_v1_json).collect()
                        };
                        if !required.is_empty() {
                            comp.insert("requiredTemplates".into(), list(required));
                        }
                        if !optional.is_empty() {
                            comp.insert("optionalTemplates".into(), list(optional));
                        }
                        Json::Object(comp)
                    }
                    // The group fields embed structs with only private fields: `{}` each,
                    // whatever the component uses, and `omitempty` never drops a struct.
                    ComponentKind::V2 { .. } => {
                        let mut comp = Map::new();
                        comp.insert("name".into(), json!(c.name));
                        if !c.description.is_empty() {
                            comp.insert("description".into(), json!(c.description));
                        }
                        for key in ["oneOf", "noneOf", "allOf", "anyOf", "anyOneOf", "allOrNoneOf"] {
                            comp.insert(key.into(), json!({}));
                        }
                        Json::Object(comp)
                    }
                })
                .collect();
            part.insert("components".into(), Json::Array(components));
            Json::Object(part)
        })
        .collect();
    top.insert("parts".into(), Json::Array(parts));
    if !r.function_files.is_empty() {
        let files: Vec<Json> = r.function_files.iter().map(|f| json!(f.path)).collect();
        top.insert("templateFunctionFiles".into(), Json::Array(files));
    }
    top.insert("fieldsToOmit".into(), fields_to_omit_json(&r.fields_to_omit, r.version));
    Json::Object(top)
}

/// `ReferenceTemplateV1`: `config` is a struct, so always present.
fn template_v1_json(t: &TemplateEntry) -> Json {
    let mut config = Map::new();
    if t.config.ignore_unspecified_fields {
        config.insert("ignore-unspecified-fields".into(), json!(true));
    }
    if !t.config.fields_to_omit_refs.is_empty() {
        config.insert("fieldsToOmitRefs".into(), json!(t.config.fields_to_omit_refs));
    }
    let mut out = Map::new();
    out.insert("path".into(), json!(t.path));
    if !t.description.is_empty() {
        out.insert("description".into(), json!(t.description));
    }
    out.insert("config".into(), Json::Object(config));
    Json::Object(out)
}

/// `FieldsToOmitV1` / `FieldsToOmitV2` after `process()`.
fn fields_to_omit_json(f: &FieldsToOmit, version: Version) -> Json {
    let mut out = Map::new();
    if !f.default_omit_ref.is_empty() {
        out.insert("defaultOmitRef".into(), json!(f.default_omit_ref));
    }
    let mut items = Map::new();
    for (key, entries) in &f.items {
        let list: Vec<Json> = entries
            .iter()
            .map(|e| {
                let mut m = Map::new();
                // v1 entries are `ManifestPathV1` (pathToKey always written); v2 embeds a
                // `*ManifestPathV1` whose fields vanish when the pointer is nil.
                let path = match (version, &e.path_to_key) {
                    (Version::V1, p) => Some(p.clone().unwrap_or_default()),
                    (Version::V2, p) => p.clone(),
                };
                if let Some(p) = path {
                    m.insert("pathToKey".into(), json!(p));
                    if e.is_prefix {
                        m.insert("isPrefix".into(), json!(true));
                    }
                }
                if version == Version::V2 && !e.include.is_empty() {
                    m.insert("include".into(), json!(e.include));
                }
                Json::Object(m)
            })
            .collect();
        items.insert(key.clone(), Json::Array(list));
    }
    if !items.is_empty() {
        out.insert("items".into(), Json::Object(items));
    }
    Json::Object(out)
}

/// The concatenated `String()` of top-level nodes.
pub fn tree_string(nodes: &[Node]) -> String {
    let mut s = String::new();
    write_list(&mut s, nodes);
    s
}

/// Go's `parse.Node.String()` for one node.
pub fn node_string(node: &Node) -> String {
    let mut s = String::new();
    write_node(&mut s, node);
    s
}

fn write_list(out: &mut String, nodes: &[Node]) {
    for n in nodes {
        write_node(out, n);
    }
}

fn write_node(out: &mut String, node: &Node) {
    match node {
        // `textFormat` is `%s` outside Go's own tests: the raw (trimmed) text.
        Node::Text { text, .. } => out.push_str(text),
        Node::Action { pipe, .. } => {
            out.push_str("{{");
            write_pipe(out, pipe);
            out.push_str("}}");
        }
        Node::If(b) => write_branch(out, "if", b),
        Node::Range(b) => write_branch(out, "range", b),
        Node::With(b) => write_branch(out, "with", b),
        Node::Template { name, pipe, .. } => {
            out.push_str("{{template ");
            out.push_str(&go_quote(name));
            if let Some(p) = pipe {
                out.push(' ');
                write_pipe(out, p);
            }
            out.push_str("}}");
        }
        Node::Break(_) => out.push_str("{{break}}"),
        Node::Continue(_) => out.push_str("{{continue}}"),
        // Parsed without `ParseComments`, Go keeps no comment nodes (§3.1).
        Node::Comment(_) => {}
    }
}

fn write_branch(out: &mut String, keyword: &str, b: &Branch) {
    out.push_str("{{");
    out.push_str(keyword);
    out.push(' ');
    write_pipe(out, &b.pipe);
    out.push_str("}}");
    write_list(out, &b.list);
    // `else if` is an else list holding one `if` node, so it prints nested.
    if let Some(e) = &b.else_list {
        out.push_str("{{else}}");
        write_list(out, e);
    }
    out.push_str("{{end}}");
}

fn write_pipe(out: &mut String, p: &Pipe) {
    if !p.decl.is_empty() {
        for (i, (_, name)) in p.decl.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(name);
        }
        out.push_str(if p.is_assign { " = " } else { " := " });
    }
    for (i, c) in p.cmds.iter().enumerate() {
        if i > 0 {
            out.push_str(" | ");
        }
        write_command(out, c);
    }
}

fn write_command(out: &mut String, c: &Command) {
    for (i, a) in c.args.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_arg(out, a);
    }
}

/// An operand; a pipeline in argument or chain position is parenthesised (Go's
/// `CommandNode.writeTo` and `ChainNode.writeTo`).
fn write_arg(out: &mut String, a: &Arg) {
    match a {
        Arg::Field { idents, .. } => {
            for i in idents {
                out.push('.');
                out.push_str(i);
            }
        }
        Arg::Variable { idents, .. } => out.push_str(&idents.join(".")),
        Arg::Chain { node, fields, .. } => {
            write_arg(out, node);
            for f in fields {
                out.push('.');
                out.push_str(f);
            }
        }
        Arg::Ident { name, .. } => out.push_str(name),
        Arg::Dot(_) => out.push('.'),
        Arg::Nil(_) => out.push_str("nil"),
        Arg::Bool(_, b) => out.push_str(if *b { "true" } else { "false" }),
        Arg::Number(_, n) => out.push_str(&n.text),
        Arg::Str { quoted, .. } => out.push_str(quoted),
        Arg::Pipe(p) => {
            out.push('(');
            write_pipe(out, p);
            out.push(')');
        }
    }
}

/// Go's `strconv.Quote`: `\a\b\f\n\r\t\v`, `\\`, `\"`, `\xNN` for other control bytes and
/// invalid UTF-8, `\uNNNN`/`\UNNNNNNNN` for non-printable runes; printable runes verbatim.
pub fn go_quote(s: &str) -> String {
    driftlint_gotmpl::strconv::quote(s, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlint_gotmpl::TemplateSet;

    fn normal(src: &str) -> String {
        let no_files: &[(&str, &str)] = &[];
        let set = TemplateSet::parse("t", src, no_files).expect("parses");
        tree_string(set.main_tree())
    }

    #[test]
    fn actions_lose_inner_spaces() {
        assert_eq!(normal("a: {{ .a }}\n"), "a: {{.a}}\n");
        assert_eq!(normal("{{ $x := .a.b }}{{ $x }}"), "{{$x := .a.b}}{{$x}}");
        assert_eq!(normal("{{ range $i, $v := .l }}{{ $v }}{{ end }}"), "{{range $i, $v := .l}}{{$v}}{{end}}");
        assert_eq!(normal("{{ $x := 1 }}{{ $x = 2 }}"), "{{$x := 1}}{{$x = 2}}");
    }

    #[test]
    fn pipelines_and_nesting() {
        assert_eq!(normal("{{ .a | default \"x\" | quote }}"), "{{.a | default \"x\" | quote}}");
        assert_eq!(
            normal("{{ index (lookupCR \"v1\" \"A\" \"\" \"\") \"m\" }}"),
            "{{index (lookupCR \"v1\" \"A\" \"\" \"\") \"m\"}}"
        );
        assert_eq!(normal("{{ (.m).k }}"), "{{(.m).k}}");
        assert_eq!(normal("{{ $.x }}"), "{{$.x}}");
    }

    #[test]
    fn branches_print_else_if_nested() {
        assert_eq!(
            normal("{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}"),
            "{{if .a}}A{{else}}{{if .b}}B{{else}}C{{end}}{{end}}"
        );
        assert_eq!(normal("{{ with .a }}x{{ else }}y{{ end }}"), "{{with .a}}x{{else}}y{{end}}");
        assert_eq!(
            normal("{{ range .l }}{{ if . }}{{ break }}{{ end }}{{ continue }}{{ end }}"),
            "{{range .l}}{{if .}}{{break}}{{end}}{{continue}}{{end}}"
        );
    }

    #[test]
    fn literals_as_written() {
        assert_eq!(
            normal(r#"{{ print "s\twith\"q" `raw` 0x10 1.5e3 'a' true nil }}"#),
            r#"{{print "s\twith\"q" `raw` 0x10 1.5e3 'a' true nil}}"#
        );
    }

    #[test]
    fn defines_comments_and_blocks() {
        assert_eq!(normal("a{{ define \"d\" }}x{{ end }}b"), "ab");
        assert_eq!(normal("a{{/* c */}}b"), "ab");
        assert_eq!(normal("{{ block \"n\" . }}x{{ end }}"), "{{template \"n\" .}}");
        assert_eq!(normal("{{ template \"n\" }}"), "{{template \"n\"}}");
    }

    #[test]
    fn trim_markers_apply_to_text() {
        assert_eq!(normal("a  {{- .x -}}  b"), "a{{.x}}b");
    }

    #[test]
    fn go_quote_escapes() {
        assert_eq!(go_quote("a\"b\\c\n\u{1}é"), "\"a\\\"b\\\\c\\n\\x01é\"");
    }
}
