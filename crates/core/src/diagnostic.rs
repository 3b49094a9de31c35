//! The one finding model every stage produces and every emitter consumes.
//!
//! A diagnostic is a rule id, a severity, a message, a primary label (file + byte range), any
//! number of secondary labels and help notes. Byte ranges stay byte ranges here; lines and
//! columns are computed only when a report is rendered.

use std::ops::Range;

pub use crate::rule::{Rule, Severity};
pub use crate::source::SourcePath;

/// A place in a source: the file and, when known, a byte range in its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub path: SourcePath,
    pub range: Option<Range<usize>>,
    pub message: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub rule: Rule,
    pub severity: Severity,
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub help: Vec<String>,
    /// The Kubernetes object concerned (kube-compare CR id), when there is one.
    pub object: Option<String>,
    /// The field concerned, as a JSON pointer into the object.
    pub field: Option<String>,
    /// Set when a reviewer-visible suppression (annotation or config entry) silenced the
    /// finding; the text is the reason given. Suppressed findings never fail a run.
    pub suppressed: Option<String>,
    /// How many findings before this one (in report order) share its identity: see
    /// [`Diagnostic::fingerprint`] and [`number_occurrences`].
    pub occurrence: usize,
    /// The repair, when the finding knows one exactly. Boxed: most findings have none, and
    /// the report holds every finding at once.
    pub fix: Option<Box<Fix>>,
}

/// A repair of one finding: edits applied together or not at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub safety: FixSafety,
    /// What the fix does, for people ("set `mtu` to `9000`").
    pub message: String,
    pub edits: Vec<Edit>,
}

/// Whether a fix may be applied without a person's eye.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FixSafety {
    /// The result is what the finding's source of truth demands, and nothing else changes.
    Safe,
    /// Likely right, but a guess (a did-you-mean) or a removal: applied only on request.
    Unsafe,
}

/// One replacement in one file's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub path: SourcePath,
    /// Byte range in the text the finding was made on; empty for an insertion.
    pub range: Range<usize>,
    /// The bytes found at `range` when the fix was made: an edit applies only where the file
    /// still holds them, so a file changed since is never overwritten by a stale fix.
    pub expected: String,
    pub replacement: String,
}

impl Diagnostic {
    pub fn new(
        rule: Rule,
        severity: Severity,
        path: SourcePath,
        range: Option<Range<usize>>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            rule,
            severity,
            message: message.into(),
            primary: Label { path, range, message: None },
            secondary: Vec::new(),
            help: Vec::new(),
            object: None,
            field: None,
            suppressed: None,
            occurrence: 0,
            fix: None,
        }
    }

    /// A finding with its rule's default severity ([`crate::rules::doc`]): the one table that
    /// decides defaults, which the docs, `explain` and SARIF read too.
    pub fn of(rule: Rule, path: SourcePath, range: Option<Range<usize>>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(rule, crate::rules::doc(rule).default_severity, path, range, message)
    }

    pub fn error(rule: Rule, path: SourcePath, range: Option<Range<usize>>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(rule, Severity::Error, path, range, message)
    }

    pub fn with_secondary(mut self, path: SourcePath, range: Option<Range<usize>>, message: impl Into<String>) -> Self {
        // Sized to what it holds: a run keeps every finding, most with one or two of each,
        // and a first push would reserve room for four.
        self.secondary.reserve_exact(1);
        self.secondary.push(Label { path, range, message: Some(message.into()) });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help.reserve_exact(1);
        self.help.push(help.into());
        self
    }

    pub fn with_object(mut self, object: impl Into<String>, field: Option<String>) -> Self {
        self.object = Some(object.into());
        self.field = field;
        self
    }

    /// A stable identity for "the same finding" across runs and line moves: rule, path,
    /// object and field, never line numbers (SARIF `partialFingerprints`, `--new-only`). A
    /// finding about no field (a YAML error, a duplicate key, a second bad suppression on one
    /// object) adds its message, which names no line either, so different problems stay apart.
    /// Findings that are still alike are numbered in report order ([`number_occurrences`]):
    /// the second gets `-2`, so every finding of a run has its own fingerprint.
    pub fn fingerprint(&self) -> String {
        let base = self.identity();
        if self.occurrence == 0 { base } else { format!("{base}-{}", self.occurrence + 1) }
    }

    /// The fingerprint without the occurrence number.
    fn identity(&self) -> String {
        use std::fmt::Write as _;
        let mut hex = String::with_capacity(32);
        for b in self.identity_digest() {
            let _ = write!(hex, "{b:02x}");
        }
        hex
    }

    /// What [`Diagnostic::identity`] spells in hexadecimal.
    fn identity_digest(&self) -> [u8; 16] {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        let (rule, path, object, field, message) = self.identity_parts();
        for part in [rule, &path, object, field].into_iter().chain(message) {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        let mut digest = [0u8; 16];
        digest.copy_from_slice(&h.finalize()[..16]);
        digest
    }

    /// What a finding's identity is made of: rule, path as shown, object, field, and the
    /// message when it tells findings apart.
    fn identity_parts(&self) -> IdentityParts<'_> {
        // Field findings are identified by their field: their message holds values, which may
        // change without making the finding another one. A policy rule can give one field
        // several messages, which are different findings.
        let by_message = self.field.is_none() || matches!(self.rule, Rule::PolicyDeny | Rule::PolicyWarn);
        (
            self.rule.id(),
            self.primary.path.name(),
            self.object.as_deref().unwrap_or(""),
            self.field.as_deref().unwrap_or(""),
            by_message.then_some(self.message.as_str()),
        )
    }
}

/// [`Diagnostic::identity_parts`]: rule, path, object, field, message.
type IdentityParts<'a> = (&'static str, std::borrow::Cow<'a, str>, &'a str, &'a str, Option<&'a str>);

/// Numbers findings that share an identity, in the order given (report order): the first is
/// occurrence 0, the next 1, and so on, so fingerprints are unique in a run and unchanged by
/// edits that only move lines.
pub fn number_occurrences(diags: &mut [Diagnostic]) {
    use rayon::prelude::*;
    use std::hash::BuildHasher;
    // Findings share an identity exactly when the parts their fingerprints hash are equal.
    // The parts are counted by two 64-bit SipHashes under keys drawn for this run (a 128-bit
    // key that no input can aim a collision at), computed in parallel and kept as 16 bytes
    // each, not as text: a SHA-256 of each finding was most of this pass on runs with a
    // finding in every file.
    let keys = (std::collections::hash_map::RandomState::new(), std::collections::hash_map::RandomState::new());
    let identities: Vec<[u64; 2]> = diags
        .par_iter()
        .map(|d| {
            let parts = d.identity_parts();
            [keys.0.hash_one(&parts), keys.1.hash_one(&parts)]
        })
        .collect();
    let mut seen: std::collections::HashMap<[u64; 2], usize> = std::collections::HashMap::new();
    for (d, identity) in diags.iter_mut().zip(identities) {
        let n = seen.entry(identity).or_insert(0);
        d.occurrence = *n;
        *n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_ignore_lines_and_tell_objectless_findings_apart() {
        let at = |range: std::ops::Range<usize>, message: &str| {
            Diagnostic::new(
                Rule::DuplicateKey,
                Severity::Warning,
                SourcePath::File("a.yaml".into()),
                Some(range),
                message,
            )
        };
        assert_eq!(at(0..3, "duplicate key `a`").fingerprint(), at(40..43, "duplicate key `a`").fingerprint());
        assert_ne!(at(0..3, "duplicate key `a`").fingerprint(), at(0..3, "duplicate key `b`").fingerprint());
        // About a field, the field is the identity; the message (with values) is not.
        let drift = |message: &str| at(0..3, message).with_object("v1_ConfigMap_x", Some("/data/a".into()));
        assert_eq!(drift("is `1`").fingerprint(), drift("is `2`").fingerprint());
        // About an object without a field, the message tells findings apart.
        let object = |message: &str| at(0..3, message).with_object("v1_ConfigMap_x", None);
        assert_ne!(object("bad suppression `a`").fingerprint(), object("bad suppression `b`").fingerprint());
    }

    #[test]
    fn alike_findings_are_numbered_in_order_and_keep_their_numbers_when_lines_move() {
        let dup = |at: usize| {
            Diagnostic::new(
                Rule::DuplicateKey,
                Severity::Error,
                SourcePath::File("a.yaml".into()),
                Some(at..at + 1),
                "duplicate key `a`",
            )
        };
        let mut run = vec![dup(10), dup(50), dup(90)];
        number_occurrences(&mut run);
        let prints: Vec<String> = run.iter().map(Diagnostic::fingerprint).collect();
        let unique: std::collections::BTreeSet<&String> = prints.iter().collect();
        assert_eq!(unique.len(), 3, "{prints:?}");
        assert!(prints[1].ends_with("-2") && prints[2].ends_with("-3"), "{prints:?}");
        // An unrelated edit above them moves every line: same fingerprints.
        let mut moved = vec![dup(15), dup(55), dup(95)];
        number_occurrences(&mut moved);
        assert_eq!(moved.iter().map(Diagnostic::fingerprint).collect::<Vec<_>>(), prints);
    }
    /// Occurrences are numbered per identity, as the identities the fingerprints hash tell
    /// them apart: on findings that differ in one part at a time (rule, path, object, field,
    /// message with and without a field, policy messages), the numbers are those counted on
    /// the hexadecimal identities.
    #[test]
    fn occurrences_count_findings_by_their_fingerprint_identity() {
        let mut run = Vec::new();
        for i in 0..400usize {
            let rule = [Rule::DuplicateKey, Rule::ValueDrift, Rule::PolicyDeny][i % 3];
            let path = if i % 7 == 0 { SourcePath::Stdin } else { SourcePath::File(format!("f{}.yaml", i % 4).into()) };
            let mut d = Diagnostic::new(rule, Severity::Warning, path, Some(i..i + 1), format!("m{}", i % 5));
            if i % 2 == 0 {
                d = d.with_object(format!("v1_ConfigMap_{}", i % 3), (i % 4 == 0).then(|| "/data/a".to_owned()));
            }
            run.push(d);
        }
        let mut expected = Vec::new();
        let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for d in &run {
            let n = seen.entry(d.identity()).or_insert(0);
            expected.push(*n);
            *n += 1;
        }
        assert!(expected.iter().any(|&n| n > 2) && seen.len() > 20, "{seen:?}");
        number_occurrences(&mut run);
        assert_eq!(run.iter().map(|d| d.occurrence).collect::<Vec<_>>(), expected);
    }
}
