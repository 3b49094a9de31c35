//! What the schema pass checked: how many objects were validated against a schema, which
//! kinds had none, and how many objects were not validated at all (definitions and
//! Compositions, checked otherwise). The reports say it, so that a clean run over objects
//! nothing could validate does not read as "no problems found".
//!
//! Counted per batch and summed; this module knows nothing of reports beyond the sentence.

use std::collections::BTreeMap;

/// Counts of one run's schema pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Objects validated against a CRD's, an XRD's or a built-in kind's schema.
    pub validated: usize,
    /// Objects whose type has no schema, by `apiVersion kind`.
    pub without_schema: BTreeMap<String, usize>,
    /// Objects the pass does not validate: definitions (CRDs, XRDs) and Compositions.
    pub not_validated: usize,
}

impl Coverage {
    pub fn add(&mut self, other: Coverage) {
        self.validated += other.validated;
        self.not_validated += other.not_validated;
        for (k, n) in other.without_schema {
            *self.without_schema.entry(k).or_default() += n;
        }
    }

    pub fn objects(&self) -> usize {
        self.validated + self.not_validated + self.without_schema.values().sum::<usize>()
    }

    /// `12 objects: 10 validated against a schema, 2 without one (example.org/v1 Widget: 2)`.
    pub fn sentence(&self) -> String {
        let objects = self.objects();
        let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let without: usize = self.without_schema.values().sum();
        let kinds = || {
            let mut shown: Vec<String> = self.without_schema.iter().take(5).map(|(k, n)| format!("{k}: {n}")).collect();
            if self.without_schema.len() > 5 {
                shown.push(format!("{} more kinds", self.without_schema.len() - 5));
            }
            shown.join(", ")
        };
        if self.validated == 0 && objects > 0 {
            let mut s = format!("{}, none validated", plural(objects, "object", "objects"));
            if without > 0 {
                s.push_str(&format!(": no schema for {}", kinds()));
            }
            return s;
        }
        let mut parts = vec![format!("{} validated against a schema", self.validated)];
        if without > 0 {
            parts.push(format!("{} without one ({})", without, kinds()));
        }
        if self.not_validated > 0 {
            parts.push(format!("{} not validated (definitions, Compositions)", self.not_validated));
        }
        format!("{}: {}", plural(objects, "object", "objects"), parts.join(", "))
    }

    /// The counts as JSON (the JSON report's `summary.objects`, SARIF's `run.properties`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "validated": self.validated,
            "without_schema": self.without_schema.values().sum::<usize>(),
            "without_schema_by_kind": self.without_schema,
            "not_validated": self.not_validated,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences() {
        let mut c = Coverage { validated: 10, ..Coverage::default() };
        c.add(Coverage {
            without_schema: [("example.org/v1 Widget".to_string(), 2)].into(),
            not_validated: 1,
            ..Coverage::default()
        });
        assert_eq!(c.objects(), 13);
        assert_eq!(
            c.sentence(),
            "13 objects: 10 validated against a schema, 2 without one (example.org/v1 Widget: 2), 1 not validated (definitions, Compositions)"
        );
        let none =
            Coverage { without_schema: [("example.org/v1 Widget".to_string(), 1)].into(), ..Coverage::default() };
        assert_eq!(none.sentence(), "1 object, none validated: no schema for example.org/v1 Widget: 1");
        assert_eq!(none.to_json()["without_schema"], 1);
    }
}
