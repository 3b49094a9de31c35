//! A cheap index of schema files: the header of each document (its `apiVersion` and `kind`,
//! and for a CRD or XRD its `spec.group` and the kinds it defines, `spec.names.kind` and
//! `spec.claimNames.kind`), read line by line from the piece of the file that holds it
//! ([`driftlint_yaml::document_pieces`]) without parsing the piece. [`crate::load`] parses and
//! compiles only the pieces that define a kind the inputs use.
//!
//! The scan reads a small subset of block YAML (the way controller-gen, upjet and Crossplane
//! write definitions) and answers `None` for anything it is not sure of — a flow or JSON
//! document, an anchor, a tag, an escape, a multi-line scalar at a key it reads, a duplicate
//! key, unusual indentation — so that the caller parses the piece. Whenever it answers, the
//! full loader reads the same strings at those keys (or, for a value that is not a string
//! there, defines no kind at all).
//!
//! The scan stops at `spec.versions` once it has what it needs (controller-gen and Crossplane
//! write `versions` last): a key after it (a `claimNames` below the versions, a duplicate) is
//! not seen, which is why [`crate::load`] skips a document only when the text scan of its
//! `kind:` values agrees that it names no used kind.
//!
//! What it must not know: what a definition's schemas say (that is [`crate::compile`]).

/// What a document's first lines say it is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Header {
    pub api_version: String,
    pub kind: String,
    /// `spec.group` (empty when absent).
    pub group: String,
    /// The kinds a definition defines: `spec.names.kind`, then `spec.claimNames.kind`.
    pub defines: Vec<String>,
}

impl Header {
    /// Whether the document is a CustomResourceDefinition or CompositeResourceDefinition.
    pub fn is_definition(&self) -> bool {
        matches!(
            (self.api_version.split_once('/').map_or("", |(g, _)| g), self.kind.as_str()),
            ("apiextensions.k8s.io", "CustomResourceDefinition")
                | ("apiextensions.crossplane.io", "CompositeResourceDefinition")
        )
    }
}

/// Where the scan is: under a root key other than `spec` (skipped), in `spec`, or in
/// `spec.names`/`spec.claimNames`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Root,
    Spec,
    Names { claim: bool },
}

/// The header of the one document in `piece`, or `None` when the scan cannot be sure of it
/// (see the [module documentation](self)).
pub fn scan_header(piece: &str) -> Option<Header> {
    let (mut api_version, mut kind, mut group) = (None, None, None);
    let (mut names_kind, mut claim_kind) = (None, None);
    let (mut seen_root, mut seen_spec, mut seen_names) = (Vec::new(), Vec::new(), Vec::new());
    let mut place = Place::Root;
    let (mut spec_indent, mut names_indent) = (None::<usize>, None::<usize>);
    // After a scalar read at this indentation, no deeper line may follow (it would continue it).
    let mut after_scalar: Option<usize> = None;
    let mut started = false;
    for raw in piece.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let body = line.trim_start_matches(' ');
        let indent = line.len() - body.len();
        if body.trim_end().is_empty() {
            continue;
        }
        if body.starts_with('\t') {
            return None;
        }
        if let Some(at) = after_scalar.take()
            && indent > at
        {
            return None;
        }
        if body.starts_with('#') {
            continue;
        }
        if indent == 0 && (body.starts_with("---") || body.starts_with("...") || body.starts_with('%')) {
            // Only a bare document start, once, before any content.
            if started || strip_comment(body.trim_end()) != Some("---") {
                return None;
            }
            started = true;
            continue;
        }
        started = true;
        if indent == 0 {
            let (key, rest) = key_value(body)?;
            if seen_root.contains(&key) {
                return None;
            }
            seen_root.push(key);
            place = Place::Root;
            match key {
                "apiVersion" => api_version = Some(scalar(rest)?),
                "kind" => kind = Some(scalar(rest)?),
                "spec" if strip_comment(rest)?.is_empty() => place = Place::Spec,
                "spec" => return None,
                _ => continue,
            }
            if key != "spec" {
                after_scalar = Some(0);
            }
            continue;
        }
        let claim = match place {
            Place::Root => continue,
            Place::Spec => None,
            Place::Names { claim } => Some(claim),
        };
        // `spec`'s keys sit at the indentation of its first line, and so do the names' keys.
        let spec_at = *spec_indent.get_or_insert(indent);
        if indent < spec_at {
            return None;
        }
        let at_names = claim.is_some() && indent > spec_at && *names_indent.get_or_insert(indent) == indent;
        if claim.is_some() && indent > spec_at && names_indent.is_some_and(|n| indent < n) {
            return None;
        }
        if indent != spec_at && !at_names {
            continue;
        }
        // An indentless sequence's item belongs to the key before it.
        if body == "-" || body.starts_with("- ") {
            continue;
        }
        let (key, rest) = key_value(body)?;
        if at_names {
            if seen_names.contains(&key) {
                return None;
            }
            seen_names.push(key);
            if key == "kind" {
                *(if claim == Some(true) { &mut claim_kind } else { &mut names_kind }) = Some(scalar(rest)?);
                after_scalar = Some(indent);
            }
            continue;
        }
        if seen_spec.contains(&key) {
            return None;
        }
        seen_spec.push(key);
        place = Place::Spec;
        names_indent = None;
        seen_names.clear();
        match key {
            // The versions hold the bulk of a definition (its schemas): the header is read.
            "versions" if group.is_some() && names_kind.is_some() && api_version.is_some() && kind.is_some() => break,
            "group" => {
                group = Some(scalar(rest)?);
                after_scalar = Some(indent);
            }
            "names" | "claimNames" => {
                let claim = key == "claimNames";
                let rest = strip_comment(rest)?;
                if rest.is_empty() {
                    place = Place::Names { claim };
                } else {
                    *(if claim { &mut claim_kind } else { &mut names_kind }) = flow_kind(rest)?;
                    after_scalar = Some(indent);
                }
            }
            _ => {}
        }
    }
    let mut h = Header { api_version: api_version?, kind: kind?, ..Header::default() };
    if h.is_definition() {
        h.group = group?;
        h.defines.push(names_kind?);
        h.defines.extend(claim_kind);
    }
    Some(h)
}

/// `key` and the rest of a `key: rest` (or `key:`) line; a plain key of letters, digits and
/// `-_.` only.
fn key_value(body: &str) -> Option<(&str, &str)> {
    let colon = body.find(':')?;
    let (key, rest) = (&body[..colon], &body[colon + 1..]);
    if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')) {
        return None;
    }
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((key, rest.trim_start_matches(' ')))
}

/// `rest` without a trailing comment and blanks; `None` when a quote makes that uncertain.
fn strip_comment(rest: &str) -> Option<&str> {
    if rest.contains(['"', '\'']) {
        return None;
    }
    let end = if rest.starts_with('#') { 0 } else { rest.find(" #").unwrap_or(rest.len()) };
    Some(rest[..end].trim_end_matches(' '))
}

/// The string a one-line scalar value reads as: plain, or quoted without escapes or inner
/// quotes; `None` for anything else (empty, a collection, an alias, a tag, a block scalar).
fn scalar(rest: &str) -> Option<String> {
    let rest = rest.trim_end_matches(' ');
    for q in ['"', '\''] {
        if let Some(inner) = rest.strip_prefix(q) {
            let close = inner.find(q)?;
            let (value, after) = (&inner[..close], inner[close + 1..].trim_start_matches(' '));
            if value.contains('\\') || !(after.is_empty() || after.starts_with('#')) {
                return None;
            }
            return Some(value.to_string());
        }
    }
    let value = strip_comment(rest)?;
    let first = value.chars().next()?;
    if "-?:,[]{}#&*!|>%@`".contains(first) || value.contains(": ") || value.ends_with(':') {
        return None;
    }
    Some(value.to_string())
}

/// `kind` of a one-line flow mapping of plain scalars (`{kind: X, plural: xs}`): `Some(None)`
/// when it has no `kind`, `None` when the scan cannot read it.
fn flow_kind(rest: &str) -> Option<Option<String>> {
    let inner = rest.strip_prefix('{')?.strip_suffix('}')?;
    if inner.contains(['{', '}', '[', ']', '"', '\'', '&', '*', '!', '#']) {
        return None;
    }
    let mut kind = None;
    for entry in inner.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (key, value) = entry.split_once(':')?;
        if key.trim() == "kind" {
            if kind.is_some() {
                return None;
            }
            kind = Some(scalar(value.trim())?);
        }
    }
    Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRD: &str = "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition # c\nmetadata:\n  annotations:\n    a: |\n      group: fake\n  name: things.g.io\nspec:\n  group: \"g.io\"\n  names:\n    categories: [a, b]\n    kind: Thing\n    listKind: ThingList\n    plural: things\n  scope: Cluster\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        properties:\n          kind: {type: string}\n";

    #[test]
    fn reads_the_header_of_a_block_crd_and_a_flow_xrd() {
        let h = scan_header(CRD).unwrap();
        assert_eq!(
            (h.api_version.as_str(), h.kind.as_str(), h.group.as_str()),
            ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "g.io")
        );
        assert_eq!(h.defines, ["Thing"]);
        assert!(h.is_definition());
        let xrd = "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nspec:\n  claimNames:\n    kind: Net\n  group: p.org\n  names: {kind: XNet, plural: xnets}\n  versions: []\n";
        let h = scan_header(xrd).unwrap();
        assert_eq!(h.defines, ["XNet", "Net"]);
        let other = scan_header("apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n").unwrap();
        assert!(!other.is_definition());
    }

    /// Whatever the scan answers agrees with the full loader; what it cannot read is `None`.
    #[test]
    fn declines_what_it_cannot_be_sure_of() {
        let cases = [
            // A plain scalar continued on the next line.
            CRD.replace("    kind: Thing\n", "    kind: Thing\n      Other\n"),
            // An escape, a tag, an alias, a flow document, a duplicate key, a second document.
            CRD.replace("kind: Thing\n", "kind: \"Th\\x69ng\"\n"),
            CRD.replace("kind: Thing\n", "kind: !!str Thing\n"),
            CRD.replace("kind: Thing\n", "kind: *k\n"),
            "{\"apiVersion\": \"apiextensions.k8s.io/v1\", \"kind\": \"CustomResourceDefinition\"}".to_string(),
            CRD.replace("  scope: Cluster\n", "  group: other.io\n"),
            format!("--- !tag\n{}", &CRD[4..]),
            // Odd indentation, a tab, a definition without names.
            CRD.replace("    listKind: ThingList\n", "   listKind: ThingList\n"),
            CRD.replace("    plural: things\n", "\tplural: things\n"),
            CRD.replace("    kind: Thing\n", ""),
        ];
        for text in &cases {
            assert_eq!(scan_header(text), None, "{text}");
        }
        // Everything the scan reads, the full loader reads alike.
        let root = driftlint_yaml::parse_stream(CRD).documents.remove(0).root;
        let at = |path: &[&str]| path.iter().try_fold(&root, |n, k| n.get(k)).and_then(|n| n.as_str());
        assert_eq!(at(&["spec", "group"]), Some("g.io"));
        assert_eq!(at(&["spec", "names", "kind"]), Some("Thing"));
    }
}
