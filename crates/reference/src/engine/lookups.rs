//! `lookupCR(s)`: which CRs the lookup functions can return and which templates call them
//! (the [`View`], see the engine's module header), planned once per reference.

use driftlint_gotmpl::Value as GoValue;
use serde_json::Value;

use super::Engine;
use crate::Compiled;
use crate::compare::UserOverride;
use crate::correlate::Via;

/// Template functions whose result depends on the other CRs (§3.4).
pub(super) const LOOKUP_FUNCS: [&str; 1] = ["lookupCR"]; // also a prefix of `lookupCRs`

/// Which CRs `lookupCR(s)` can see and which templates can call them (see the module header).
#[derive(Debug, Clone, Default)]
pub(super) struct Lookups {
    /// Per compiled template: its set calls `lookupCR(s)`.
    pub(super) calls: Vec<bool>,
    /// Every CR may call or be seen by a lookup (`go-template` overrides that may call them).
    pub(super) every: bool,
    /// The `(apiVersion, kind)` pairs a lookup can match; `None`: any.
    pub(super) kinds: Option<Vec<(String, String)>>,
}

/// What `lookupCR(s)` see (§3.4): the CRs a lookup can match, in input order, as the template
/// values kube-compare's list holds — a template's `set` on a looked-up map is seen by later
/// lookups, and a CR's entry is replaced by its omitted object after each of its candidates
/// (§10 #9). Built from the members before any is compared ([`Engine::view_of`]); each member
/// then takes the next entry when it is compared, so members must be compared in input order.
#[derive(Debug, Default)]
pub struct View {
    pub(super) values: Vec<GoValue>,
    /// With [`Engine::view_with_objects`]: per entry, the member's object as omitted so far
    /// (what a report's re-render looks up, without the comparisons' `set`s).
    pub(super) objects: Option<Vec<Value>>,
    /// The entry of the next member to be compared.
    pub(super) next: usize,
}

impl View {
    /// The values a lookup sees now.
    #[must_use]
    pub fn values(&self) -> &[GoValue] {
        &self.values
    }

    /// The entry of the member `object` about to be compared: the next one in input order
    /// (a member the pre-pass missed, which the callers' filters rule out, is added).
    pub(super) fn slot(&mut self, object: &Value) -> usize {
        if self.next >= self.values.len() {
            self.values.push(GoValue::from_json(object));
            if let Some(objects) = &mut self.objects {
                objects.push(object.clone());
            }
        }
        self.next += 1;
        self.next - 1
    }

    /// Fresh values of the members as omitted so far, for a re-render that must not change
    /// the view (`None` unless built by [`Engine::view_with_objects`]).
    #[must_use]
    pub fn fresh_values(&self) -> Option<Vec<GoValue>> {
        self.objects.as_ref().map(|o| o.iter().map(GoValue::from_json).collect())
    }

    /// After member `slot`'s comparison: its object as omitted.
    pub(super) fn omitted(&mut self, slot: Option<usize>, object: &Value) {
        if let (Some(objects), Some(slot)) = (&mut self.objects, slot)
            && let Some(entry) = objects.get_mut(slot)
        {
            entry.clone_from(object);
        }
    }
}

/// A CR's candidate templates and the correlator link that gave them (`None`: unmatched).
pub(super) type Found = Option<(Vec<usize>, Via)>;

/// A CR whose comparison waits for the in-order pass over the [`View`]'s connected CRs, with
/// its candidates (correlation does not depend on the order).
#[derive(Debug, Clone)]
pub struct Pending {
    pub(super) cr: usize,
    pub(super) member: bool,
    pub(super) found: Found,
}

/// What `lookupCR(s)` see while CR `ci` is compared: the view, and the entry that holds this
/// CR when it is a member (refreshed after each candidate's omission).
pub(super) struct Lookup<'v> {
    pub(super) view: &'v mut Vec<GoValue>,
    pub(super) slot: Option<usize>,
}

impl Engine<'_> {
    /// Whether a template, function file or `go-template` override may call `lookupCR(s)`:
    /// the CRs the [`View`] connects are then compared in input order. Templates are read
    /// from their parsed trees (Go templates call functions named literally); overrides from
    /// their text, which may hold nested `go-template` patches.
    #[must_use]
    pub fn uses_lookups(&self) -> bool {
        self.uses_lookups
    }

    /// Whether the [`View`] holds only the kinds the lookups name (every call's apiVersion
    /// and kind are constants), not every CR.
    #[must_use]
    pub fn view_is_sparse(&self) -> bool {
        self.uses_lookups && !self.lookups.every && self.lookups.kinds.is_some()
    }

    /// Whether `lookupCR(s)` can ever return `object` (see [`View`]).
    #[must_use]
    pub fn in_view(&self, object: &Value) -> bool {
        if !self.uses_lookups {
            return false;
        }
        let Some(kinds) = &self.lookups.kinds else { return true };
        fn s(v: Option<&Value>) -> &str {
            v.and_then(Value::as_str).unwrap_or_default()
        }
        let (api, kind) = (s(object.get("apiVersion")), s(object.get("kind")));
        kinds.iter().any(|(a, k)| a == api && k == kind)
    }

    /// The words (kinds) of [`Engine::may_hold_view_member`] besides a backslash: `None` when
    /// any text may hold a member, none when there is no view.
    #[must_use]
    pub fn view_member_words(&self) -> Option<Vec<&str>> {
        if !self.uses_lookups {
            return Some(Vec::new());
        }
        self.lookups.kinds.as_ref().map(|kinds| kinds.iter().map(|(_, k)| k.as_str()).collect())
    }

    /// Whether a YAML text may hold a [`View`] member: it spells the kind of one (a kind can
    /// only be spelt otherwise in a double-quoted escape, which needs a backslash).
    #[must_use]
    pub fn may_hold_view_member(&self, text: &str) -> bool {
        if !self.uses_lookups {
            return false;
        }
        match self.view_member_words() {
            None => true,
            Some(kinds) => driftlint_yaml::may_escape(text) || kinds.iter().any(|k| text.contains(k)),
        }
    }

    /// The view of the members among `objects` (in input order), before any is compared.
    #[must_use]
    pub fn view_of<'o>(&self, objects: impl IntoIterator<Item = &'o Value>) -> View {
        let values = objects.into_iter().filter(|o| self.in_view(o)).map(GoValue::from_json).collect();
        View { values, objects: None, next: 0 }
    }

    /// [`Engine::view_of`], also keeping the members' objects for [`View::fresh_values`].
    #[must_use]
    pub fn view_with_objects<'o>(&self, objects: impl IntoIterator<Item = &'o Value>) -> View {
        let objects: Vec<Value> = objects.into_iter().filter(|o| self.in_view(o)).cloned().collect();
        View { values: objects.iter().map(GoValue::from_json).collect(), objects: Some(objects), next: 0 }
    }

    /// Whether a CR with candidates `found` is connected to the view when `member`.
    pub(super) fn connected(&self, member: bool, found: &Found) -> bool {
        member
            || self.lookups.every
            || found
                .as_ref()
                .is_some_and(|(c, _)| c.iter().any(|&t| self.lookups.calls.get(t).copied().unwrap_or(true)))
    }
}

/// See [`Engine::uses_lookups`] and [`View`]. Templates are analysed on their parsed sets
/// (every tree: the entry's files and the function files); `go-template` overrides by their
/// text (their patches, and nested `go-template` patches, only exist at run time).
pub(super) fn lookup_plan(compiled: &Compiled, overrides: &[UserOverride]) -> Lookups {
    let mentions = |text: &str| LOOKUP_FUNCS.iter().any(|f| text.contains(f));
    let every =
        overrides.iter().any(|o| o.type_ == "go-template" && (mentions(&o.patch) || o.patch.contains("go-template")));
    let mut kinds: Option<Vec<(String, String)>> = if every { None } else { Some(Vec::new()) };
    let mut calls = Vec::with_capacity(compiled.templates.len());
    for t in &compiled.templates {
        match t.set.lookup_kinds() {
            Some(pairs) => {
                calls.push(!pairs.is_empty());
                if let Some(kinds) = &mut kinds {
                    for pair in pairs {
                        if !kinds.contains(&pair) {
                            kinds.push(pair);
                        }
                    }
                }
            }
            None => {
                calls.push(true);
                kinds = None;
            }
        }
    }
    Lookups { calls, every, kinds }
}
