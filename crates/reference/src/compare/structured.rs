//! The structured diff for the linter: JSON pointers of what differs between MERGED and
//! LIVE after every pipeline step, lists compared by position as the text diff does (§5.2).

use serde_json::Value;

use super::render::json_eq;

use driftlint_core::locate::FieldDiffKind;

/// One differing field.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDiff {
    /// RFC 6901 pointer (`/metadata/labels/app`, `/spec/containers/0/image`).
    pub pointer: String,
    pub kind: FieldDiffKind,
    /// The reference (MERGED) value, absent for [`FieldDiffKind::Extra`].
    pub expected: Option<Value>,
    /// The cluster (LIVE) value, absent for [`FieldDiffKind::Missing`].
    pub actual: Option<Value>,
}

/// Every leaf-most difference between `merged` and `live`, in document order (MERGED's keys
/// first, then LIVE's extra keys).
#[must_use]
pub fn structured_diff(merged: &Value, live: &Value) -> Vec<FieldDiff> {
    let mut out = Vec::new();
    walk(merged, live, &mut String::new(), &mut out);
    out
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn walk(m: &Value, l: &Value, ptr: &mut String, out: &mut Vec<FieldDiff>) {
    match (m, l) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, av) in a {
                let len = ptr.len();
                ptr.push('/');
                ptr.push_str(&escape(k));
                match b.get(k) {
                    Some(bv) => walk(av, bv, ptr, out),
                    None => out.push(FieldDiff {
                        pointer: ptr.clone(),
                        kind: FieldDiffKind::Missing,
                        expected: Some(av.clone()),
                        actual: None,
                    }),
                }
                ptr.truncate(len);
            }
            for (k, bv) in b.iter().filter(|(k, _)| !a.contains_key(*k)) {
                out.push(FieldDiff {
                    pointer: format!("{ptr}/{}", escape(k)),
                    kind: FieldDiffKind::Extra,
                    expected: None,
                    actual: Some(bv.clone()),
                });
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for i in 0..a.len().max(b.len()) {
                let len = ptr.len();
                ptr.push_str(&format!("/{i}"));
                match (a.get(i), b.get(i)) {
                    (Some(av), Some(bv)) => walk(av, bv, ptr, out),
                    (Some(av), None) => out.push(FieldDiff {
                        pointer: ptr.clone(),
                        kind: FieldDiffKind::Missing,
                        expected: Some(av.clone()),
                        actual: None,
                    }),
                    (None, Some(bv)) => out.push(FieldDiff {
                        pointer: ptr.clone(),
                        kind: FieldDiffKind::Extra,
                        expected: None,
                        actual: Some(bv.clone()),
                    }),
                    (None, None) => {}
                }
                ptr.truncate(len);
            }
        }
        _ if json_eq(m, l) => {}
        _ => out.push(FieldDiff {
            pointer: ptr.clone(),
            kind: FieldDiffKind::Changed,
            expected: Some(m.clone()),
            actual: Some(l.clone()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_and_kinds() {
        let m = json!({"a": 1, "m": {"x/y": "1"}, "l": [1, 2, 3], "t": "s"});
        let l = json!({"a": 1.0, "m": {"x/y": "2", "e": true}, "l": [1, 5], "t": 1, "z": null});
        let d = structured_diff(&m, &l);
        let got: Vec<(&str, FieldDiffKind)> = d.iter().map(|f| (f.pointer.as_str(), f.kind)).collect();
        use FieldDiffKind::*;
        assert_eq!(
            got,
            [
                ("/m/x~1y", Changed),
                ("/m/e", Extra),
                ("/l/1", Changed),
                ("/l/2", Missing),
                ("/t", Changed),
                ("/z", Extra)
            ]
        );
        assert!(structured_diff(&m, &m).is_empty());
    }
}
