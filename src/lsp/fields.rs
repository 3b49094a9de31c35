//! What the reference expects of each field of a document that a template sets, for hover
//! and go-to-definition on fields without a finding: the template its object matched is
//! rendered again for the object (as the comparison rendered it, with what `lookupCR(s)` see),
//! every value of the rendering is followed back to the template bytes that wrote it (the
//! provenance the drift findings use, [`RenderedTemplate::location`]), and the manifest's
//! node at the same JSON pointer gets that line and value.
//!
//! Computed after a check's findings are published, off the message loop: a keystroke's
//! diagnostics never wait for it.

use std::ops::Range;
use std::path::{Path, PathBuf};

use driftlint_core::document;
use driftlint_core::input::{Source, SourcePath};
use driftlint_core::locate::{FieldDiffKind, Files};
use driftlint_reference::drift::correlations::ObjectCorrelation;
use driftlint_reference::drift::locate::RenderedTemplate;
use driftlint_reference::engine::Engine;
use driftlint_yaml::{Node, NodeValue};

use super::convert;

/// One field a template sets.
#[derive(Clone, Debug)]
pub struct Field {
    /// The field's value in the document (bytes of the checked text).
    pub range: Range<usize>,
    /// The JSON pointer of the field.
    pub pointer: String,
    /// What the template rendered there for this object.
    pub expected: String,
    /// Whether every byte of it is template text (the same for every object).
    pub fixed: bool,
    /// The template file (absolute) and the bytes that wrote the value.
    pub template: PathBuf,
    pub template_range: Range<usize>,
}

/// The fields of the document `text` (at `path`) that the templates its objects matched set.
/// `lookups`: the objects `lookupCR(s)` may return (the document's and the other files').
/// `interrupted` is asked between objects: `None` when it says to stop.
pub fn fields(
    engine: &Engine<'_>,
    path: &Path,
    text: &str,
    objects: &[ObjectCorrelation],
    lookups: &[serde_json::Value],
    files: &mut Files,
    interrupted: &dyn Fn() -> bool,
) -> Option<Vec<Field>> {
    let compiled = engine.compiled();
    let coll = document::collect(
        vec![Source { path: SourcePath::File(path.to_path_buf()), text: text.to_string() }],
        &document::Options::default(),
    );
    let index = driftlint_yaml::LineIndex::new(text);
    let crs: Vec<driftlint_gotmpl::Value> =
        lookups.iter().filter(|o| engine.in_view(o)).map(driftlint_gotmpl::Value::from_json).collect();
    let mut out = Vec::new();
    for doc in &coll.documents {
        if interrupted() {
            return None;
        }
        let line = index.line_column(text, doc.range.start).line;
        let Some(name) = objects.iter().find(|o| o.lines.contains(&line) && o.templates.len() == 1) else { continue };
        let Some(template) =
            (0..compiled.templates.len()).find(|&i| compiled.entry(i).is_some_and(|e| e.path == name.templates[0]))
        else {
            continue;
        };
        let Ok(rendered) = compiled.render(template, &doc.object, &crs) else { continue };
        let tree = RenderedTemplate::new(&rendered);
        // kube-compare strips `<no value>` before parsing (§3.2): the pointers are those.
        let shown = rendered.text.replace("<no value>", "");
        let Some(root) = driftlint_yaml::parse_stream(&shown).documents.into_iter().next().map(|d| d.root) else {
            continue;
        };
        let mut leaves = Vec::new();
        leaves_of(&root, &mut String::new(), &mut leaves);
        for (pointer, span) in leaves {
            let Some((_, value)) = doc.node.pointer_entry(&pointer) else { continue };
            let Some((file, template_range)) =
                tree.location(compiled, template, &pointer, FieldDiffKind::Changed, files)
            else {
                continue;
            };
            let fixed =
                tree.literal_value(compiled, template, &pointer, files).is_some_and(|(_, conditional)| !conditional);
            out.push(Field {
                range: value.span.clone(),
                pointer,
                expected: shown[span].to_string(),
                fixed,
                template: convert::absolute(&file),
                template_range,
            });
        }
    }
    Some(out)
}

/// Every scalar of `node` with its JSON pointer (below `at`) and its bytes in the rendering.
fn leaves_of(node: &Node, at: &mut String, out: &mut Vec<(String, Range<usize>)>) {
    match &node.value {
        NodeValue::Mapping(entries) => {
            for (key, value) in entries {
                let len = at.len();
                let name = match &key.value {
                    NodeValue::String(s) => s.clone(),
                    _ => continue,
                };
                at.push('/');
                at.push_str(&name.replace('~', "~0").replace('/', "~1"));
                leaves_of(value, at, out);
                at.truncate(len);
            }
        }
        NodeValue::Sequence(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                leaves_of(item, at, out);
                at.truncate(len);
            }
        }
        _ if !node.span.is_empty() => out.push((at.clone(), node.span.clone())),
        _ => {}
    }
}
