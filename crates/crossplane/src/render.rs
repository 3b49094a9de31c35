//! Level 3 of Composition validation: a resource's base as it would be rendered from a minimal
//! XR, against the composed resource's schema.
//!
//! The base's own values get the instance checks (unknown fields, types, values). Required
//! fields are present when the base has them, when they have a default, or when a patch writes
//! them (or something below them); values that patches write are opaque. A required field
//! missing is an error at the deepest base mapping on its path (`base:` at the top). A
//! required field that only patches from non-guaranteed XR fields set is a warning at each such
//! patch.

use std::collections::HashSet;
use std::ops::Range;

use driftlint_yaml::{Node, NodeValue};
use indexmap::{IndexMap, IndexSet};

use super::Finding;
use super::fieldpath::Segment;
use super::patches::Written;
use driftlint_core::diagnostic::{Rule, Severity};
use driftlint_schema::validate::{self, Options};
use driftlint_schema::{Schema, Type};

/// How deep the required-field walk goes (bounded like every walk over untrusted input).
const MAX_DEPTH: usize = 128;

/// Checks the base (`base_key: base`) of a resource with what its patches write.
pub fn check_base(base_key: &Node, base: &Node, schema: &Schema, written: &[Written], out: &mut Vec<Finding>) {
    for f in validate::validate_object(base, schema, Options { required: false }, &mut Default::default()) {
        out.push(Finding { rule: f.rule, severity: Severity::Error, span: f.span, message: f.message });
    }
    let writes: Vec<(&[Segment], &Written)> = written.iter().map(|w| (w.path.as_slice(), w)).collect();
    let mut warned = HashSet::new();
    let mut walk = Walk { out, warned: &mut warned };
    walk.object(schema, Some(base), &base_key.span, &writes, "", 0);
}

struct Walk<'o> {
    out: &'o mut Vec<Finding>,
    /// Patches already warned about (by their span), so that one patch gets one warning.
    warned: &'o mut HashSet<(usize, usize)>,
}

type Writes<'w> = [(&'w [Segment], &'w Written)];

impl Walk<'_> {
    /// `node` is present in the rendered resource; `base` is its part of the base, if any;
    /// `anchor` is where a field missing from it is shown.
    fn object(
        &mut self,
        schema: &Schema,
        base: Option<&Node>,
        anchor: &Range<usize>,
        writes: &Writes,
        at: &str,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        match schema.ty {
            Some(Type::Array) => return self.array(schema, base, anchor, writes, at, depth),
            Some(Type::Object) | None => {}
            Some(_) => return,
        }
        // A base value of another type is a type finding already, not an object to look into.
        if base.is_some_and(|b| !matches!(b.value, NodeValue::Mapping(_))) {
            return;
        }
        // The writes by the field they start with, in one pass (a lookup per field after it:
        // linear in the writes, where filtering them per field was quadratic).
        let mut by_field: IndexMap<&str, Vec<(&[Segment], &Written)>> = IndexMap::new();
        for (p, w) in writes {
            if let Some(Segment::Field(f)) = p.first() {
                by_field.entry(f.as_str()).or_default().push((&p[1..], *w));
            }
        }
        // An object the base does not have, with a `default` (upjet's `providerConfigRef:
        // {name: default}`): when the patches into it do not fire, the API server gives it its
        // default, so a required field set only by such patches is no warning.
        let defaulted_object = base.is_none() && schema.default.is_some();
        for r in &schema.required {
            let in_base = base.and_then(|b| b.get(r)).is_some_and(|v| v.value != NodeValue::Null);
            let defaulted = schema.properties.get(r).is_some_and(|p| p.default.is_some());
            if in_base || defaulted {
                continue;
            }
            let setters: Vec<&Written> =
                by_field.get(r.as_str()).map_or_else(Vec::new, |ws| ws.iter().map(|(_, w)| *w).collect());
            // The object's default supplies the key, but only when the object is absent: the
            // API server defaults a missing field, never into a present one. Patches that may
            // not fire leave it absent or make it without the key (Crossplane 2 namespaced
            // managed resources' `providerConfigRef`, defaulting to `{kind:
            // ClusterProviderConfig, name: default}`, patched with a `name` only).
            let from_default = defaulted_object
                && schema.default.as_ref().and_then(|d| d.get(r.as_str())).is_some_and(|v| !v.is_null());
            if setters.is_empty() && from_default && writes.iter().all(|(_, w)| w.guaranteed == Some(false)) {
                let field = if at.is_empty() { r.clone() } else { format!("{at}.{r}") };
                for (_, w) in writes {
                    if self.warned.insert((w.to_span.start, w.to_span.end)) {
                        self.out.push(Finding {
                            rule: Rule::CompositionRequiredField,
                            severity: Severity::Warning,
                            span: w.to_span.clone(),
                            message: format!(
                                "required field `{field}` is set by `{at}`'s default only while no patch writes `{at}`: when this patch (from an XR field that is not required) fires, `{field}` is missing"
                            ),
                        });
                    }
                }
            } else if setters.is_empty() {
                let field = if at.is_empty() { r.clone() } else { format!("{at}.{r}") };
                let why = if from_default {
                    format!(
                        " (`{at}`'s default has it, but a patch always writes `{at}`, so the default never applies)"
                    )
                } else {
                    String::new()
                };
                self.out.push(Finding {
                    rule: Rule::CompositionRequiredField,
                    severity: Severity::Error,
                    span: anchor.clone(),
                    message: format!("required field `{field}` is set neither by the base nor by any patch{why}"),
                });
            } else if !defaulted_object && setters.iter().all(|w| w.guaranteed == Some(false)) {
                for w in setters {
                    if self.warned.insert((w.to_span.start, w.to_span.end)) {
                        let field = if at.is_empty() { r.clone() } else { format!("{at}.{r}") };
                        self.out.push(Finding {
                            rule: Rule::CompositionRequiredField,
                            severity: Severity::Warning,
                            span: w.to_span.clone(),
                            message: format!(
                                "required field `{field}` is set only from XR fields that are not required: a minimal XR leaves it empty"
                            ),
                        });
                    }
                }
            }
        }
        // Descend into every child the rendered object has: from the base, or made by a patch.
        let mut keys: IndexSet<String> = IndexSet::new();
        if let Some(NodeValue::Mapping(entries)) = base.map(|b| &b.value) {
            keys.extend(entries.iter().map(|(k, _)| k.json_key().into_owned()));
        }
        keys.extend(by_field.keys().map(|f| f.to_string()));
        let none: Vec<(&[Segment], &Written)> = Vec::new();
        for key in keys {
            // metadata belongs to the API server; a key the schema does not know is reported by
            // the value checks.
            if depth == 0 && matches!(key.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            let Some(child_schema) = schema.property(&key) else { continue };
            let child_writes = by_field.get(key.as_str()).unwrap_or(&none);
            // A patch that writes the whole value makes it opaque.
            if child_writes.iter().any(|(p, _)| p.is_empty()) {
                continue;
            }
            let entry = base.and_then(|b| b.entry(&key));
            let child_base = entry.map(|(_, v)| v).filter(|v| v.value != NodeValue::Null);
            let child_anchor = entry.map_or(anchor.clone(), |(k, _)| k.span.clone());
            let child_at = if at.is_empty() { key.clone() } else { format!("{at}.{key}") };
            if child_base.is_none() && child_writes.is_empty() {
                continue;
            }
            self.object(child_schema, child_base, &child_anchor, child_writes, &child_at, depth + 1);
        }
    }

    fn array(
        &mut self,
        schema: &Schema,
        base: Option<&Node>,
        anchor: &Range<usize>,
        writes: &Writes,
        at: &str,
        depth: usize,
    ) {
        let Some(items) = schema.items.as_deref() else { return };
        let base_items: &[Node] = match base.map(|b| &b.value) {
            Some(NodeValue::Sequence(s)) => s,
            _ => &[],
        };
        let mut by_index: IndexMap<usize, Vec<(&[Segment], &Written)>> =
            (0..base_items.len()).map(|i| (i, Vec::new())).collect();
        for (p, w) in writes {
            if let Some(Segment::Index(i)) = p.first() {
                by_index.entry(*i).or_default().push((&p[1..], *w));
            }
        }
        for (i, child_writes) in &by_index {
            if child_writes.iter().any(|(p, _)| p.is_empty()) {
                continue;
            }
            let item = base_items.get(*i);
            let item_anchor = item.map_or(anchor.clone(), |n| n.span.clone());
            self.object(items, item, &item_anchor, child_writes, &format!("{at}[{i}]"), depth + 1);
        }
    }
}
