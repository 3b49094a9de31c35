//! What a change to the admission policies silences: a ValidatingAdmissionPolicy or binding
//! removed or loosened by the change is `config-weakened` at each object whose violation the
//! base's policies report and the checked state's no longer do (the policies live in the
//! repository under review, like its configuration).

use std::ops::Range;

use driftlint_admission::Object;
use driftlint_admission::pass::{is_context, may_hold_policies, object_range};
use driftlint_core::diagnostic::Diagnostic;
use driftlint_core::document::{self, Document};
use driftlint_core::input::Source;

use crate::config::Settings;

/// The `config-weakened` findings of the change from `base` to `head` (the inputs of both
/// states, paths as shown), and the head's sources they point into.
pub fn silenced(settings: &Settings, base: Vec<Source>, head: Vec<Source>) -> (Vec<Diagnostic>, Vec<Source>) {
    if !base.iter().chain(&head).any(|s| may_hold_policies(&s.text)) {
        return (Vec::new(), Vec::new());
    }
    let Ok((base, _)) = crate::check::excluded(settings, base) else { return (Vec::new(), Vec::new()) };
    let Ok((head, _)) = crate::check::excluded(settings, head) else { return (Vec::new(), Vec::new()) };
    let parameterised = base.iter().chain(&head).any(|s| s.text.contains("paramKind"));
    let options = document::Options::default();
    let (base_docs, _, _) = document::parse_sources(&base, &options);
    let (head_docs, _, _) = document::parse_sources(&head, &options);
    // An object, its source's index and the range findings about it point at (its `kind:`).
    let object = |d: &Document| (d.object.clone(), d.source, object_range(d));
    let base_ctx: Vec<_> = base_docs.iter().filter(|d| is_context(d, parameterised)).map(object).collect();
    let head_ctx: Vec<_> = head_docs.iter().filter(|d| is_context(d, parameterised)).map(object).collect();
    let targets: Vec<_> = head_docs.iter().map(object).collect();
    let (base_view, head_view, target_view) = (view(&base, &base_ctx), view(&head, &head_ctx), view(&head, &targets));
    let found = driftlint_admission::silenced(
        &base_view,
        &head_view,
        &target_view,
        &mut driftlint_cel::cost::Budget::default(),
    );
    let sources = head.into_iter().filter(|s| found.iter().any(|d| d.primary.path == s.path)).collect();
    (found, sources)
}

/// Objects (value, source index, range) as the admission crate takes them.
fn view<'a>(sources: &'a [Source], objects: &'a [(serde_json::Value, usize, Range<usize>)]) -> Vec<Object<'a>> {
    objects.iter().map(|(v, s, r)| Object { value: v, path: &sources[*s].path, range: Some(r.clone()) }).collect()
}
