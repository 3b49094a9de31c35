//! `omitFields` (§5.4): remove the `fieldsToOmit` paths from an object, in place.
//!
//! Removal walks maps only (Kubernetes' `RemoveNestedField`), so a path through a list does
//! nothing (§10 #1); the `isPrefix` parent lookup may pass list indexes, but its removals
//! then fail the same way. After each removal every ancestor on the path, deepest first, is
//! removed if it is now an empty map — which also drops empty maps that were already there.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::OmitPath;

/// Applies `paths` to `obj` (a JSON object; anything else is left alone). Returns whether
/// anything was removed (`false`: `obj` is exactly as it was).
pub fn omit_fields(obj: &mut Value, paths: &[OmitPath]) -> bool {
    // Go computes every target first (`findFieldPaths`), then removes.
    let mut targets: Vec<Cow<'_, [String]>> = Vec::with_capacity(paths.len());
    for p in paths {
        if !p.is_prefix {
            targets.push(Cow::Borrowed(&p.segments));
            continue;
        }
        let Some((prefix, parent)) = p.segments.split_last() else { continue };
        if let Some(Value::Object(m)) = lookup(obj, parent) {
            for k in m.keys().filter(|k| k.starts_with(prefix.as_str())) {
                let mut t = parent.to_vec();
                t.push(k.clone());
                targets.push(Cow::Owned(t));
            }
        }
    }
    let Value::Object(root) = obj else { return false };
    let mut changed = false;
    for t in &targets {
        changed |= remove_and_prune(root, t);
    }
    changed
}

/// Removes `path` from `map` (`unstructured.RemoveNestedField`: maps only, silently nothing
/// otherwise), then, deepest first, every map on the path that is now empty — Go's loop
/// over the ancestors, which also drops empty maps that were already there (a check through a
/// list finds nothing it could remove, as removal walks maps only). Go's loop reaches the root
/// too, where kube-compare would panic on an emptied object (§2.6); the root stays here.
/// Returns whether anything was removed. Recursion follows nested maps, so it is bounded by
/// the object's depth.
fn remove_and_prune(map: &mut Map<String, Value>, path: &[String]) -> bool {
    match path {
        [] => false,
        // shift_remove keeps the other keys' order (not visible in output, but stable).
        [last] => map.shift_remove(last).is_some(),
        [first, rest @ ..] => {
            let Some(Value::Object(child)) = map.get_mut(first) else { return false };
            let removed = remove_and_prune(child, rest);
            if child.is_empty() {
                map.shift_remove(first);
                return true;
            }
            removed
        }
    }
}

/// kube-compare's `NestedField`: maps by key, lists by decimal index.
pub(crate) fn lookup<'a>(obj: &'a Value, path: &[String]) -> Option<&'a Value> {
    let mut cur = obj;
    for seg in path {
        cur = match cur {
            Value::Object(m) => m.get(seg)?,
            Value::Array(a) => a.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_path_to_key;
    use serde_json::json;

    fn p(text: &str, is_prefix: bool) -> OmitPath {
        OmitPath { path_to_key: text.into(), is_prefix, segments: parse_path_to_key(text).unwrap() }
    }

    #[test]
    fn removes_and_cleans_up_empty_parents() {
        let mut o = json!({"kind": "X", "metadata": {"labels": {"x": "1"}}});
        assert!(omit_fields(&mut o, &[p("metadata.labels.x", false)]));
        assert_eq!(o, json!({"kind": "X"}));
        // Nothing left to remove: reported unchanged.
        assert!(!omit_fields(&mut o, &[p("metadata.labels.x", false)]));
        // Empty maps already on the path go too.
        let mut o = json!({"kind": "X", "metadata": {"name": "n", "annotations": {}}});
        // Only an empty map goes: still a change.
        assert!(omit_fields(
            &mut o,
            &[p(r#"metadata.annotations."kubectl.kubernetes.io/last-applied-configuration""#, false)]
        ));
        assert_eq!(o, json!({"kind": "X", "metadata": {"name": "n"}}));
    }

    #[test]
    fn lists_are_not_traversed() {
        let mut o = json!({"spec": {"list": [{"image": "live", "x-a": 2}]}});
        let before = o.clone();
        assert!(!omit_fields(&mut o, &[p("spec.list.0.image", false), p(r#"spec.list.0."x-""#, true)]));
        assert_eq!(o, before);
    }

    #[test]
    fn prefix_and_quoted_and_leading_dot() {
        let mut o =
            json!({"metadata": {"annotations": {"a.io/x": "1", "a.io/y": "2", "b": "3"}, "name": "n"}, "status": {}});
        omit_fields(&mut o, &[p(r#"metadata.annotations."a.io/""#, true), p(".status", false)]);
        assert_eq!(o, json!({"metadata": {"annotations": {"b": "3"}, "name": "n"}}));
    }

    /// Go's removal loop as written: remove the target, then look each ancestor up again
    /// (through lists too) and remove it when it is an empty map.
    fn omit_as_go_does(obj: &mut Value, targets: &[Vec<String>]) {
        fn remove_nested(root: &mut Map<String, Value>, path: &[String]) {
            let Some((last, parents)) = path.split_last() else { return };
            let mut cur = root;
            for seg in parents {
                match cur.get_mut(seg) {
                    Some(Value::Object(m)) => cur = m,
                    _ => return,
                }
            }
            cur.shift_remove(last);
        }
        let Value::Object(root) = obj else { return };
        for t in targets {
            remove_nested(root, t);
            for len in (1..=t.len()).rev() {
                let found = root.get(&t[0]).and_then(|v| lookup(v, &t[1..len]));
                if matches!(found, Some(Value::Object(m)) if m.is_empty()) {
                    remove_nested(root, &t[..len]);
                }
            }
        }
    }

    #[test]
    fn pruning_equals_gos_loop() {
        let objects = [
            json!({"a": {"b": {"c": 1}, "d": {}}, "e": [{"f": {}}, {}], "g": "s"}),
            json!({"a": {"b": {}}, "e": [{"f": {"x": 1}}]}),
            json!({"a": {}, "g": {"h": {"i": {}}}}),
            json!({"a": "text", "e": []}),
        ];
        let paths = ["a.b.c", "a.b", "a.d.x", "a", "e.0.f", "e.0.f.x", "g.h.i", "g.h.i.j", "g", "z.y"];
        let mut cases = 0;
        for o in &objects {
            for p1 in paths {
                for p2 in paths {
                    let targets: Vec<Vec<String>> = [p1, p2].iter().map(|t| parse_path_to_key(t).unwrap()).collect();
                    let (mut ours, mut go) = (o.clone(), o.clone());
                    let changed = omit_fields(&mut ours, &[p(p1, false), p(p2, false)]);
                    omit_as_go_does(&mut go, &targets);
                    assert_eq!(ours, go, "{o} {p1} {p2}");
                    assert_eq!(changed, ours != *o, "{o} {p1} {p2}");
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, objects.len() * paths.len() * paths.len());
    }

    #[test]
    fn empty_root_and_scalars_do_not_panic() {
        let mut o = json!({"status": {"x": 1}});
        omit_fields(&mut o, &[p("status.x", false)]);
        assert_eq!(o, json!({}));
        let mut s = json!("text");
        omit_fields(&mut s, &[p("a", false), p("a", true)]);
        assert_eq!(s, json!("text"));
    }
}
