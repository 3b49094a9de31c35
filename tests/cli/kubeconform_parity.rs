//! driftlint against kubeconform's recorded verdicts on the same bundled schemas
//! (fixtures/kubeconform-parity, see its README): document for document, with and without
//! unknown fields counting, and each invalid document's errors at the expected lines.

use std::collections::{BTreeMap, BTreeSet};

use super::{json, root, run_in};

const SET: &str = "fixtures/kubeconform-parity";

/// The rules of what kubeconform checks: the schema's, and kinds without a schema or a type.
/// (driftlint's server-side rules, `selector-mismatch` and the like, go beyond it.)
const KUBECONFORM_RULES: [&str; 7] = [
    "schema-unknown-field",
    "schema-type-mismatch",
    "schema-required-missing",
    "schema-invalid-value",
    "unknown-kind",
    "removed-api-version",
    "not-kubernetes-object",
];

/// Per file: (rule, line) of each error.
type Errors = BTreeMap<String, Vec<(String, u64)>>;

/// Per file of one version directory: (rule, line) of each error driftlint reports of the
/// rules kubeconform has.
fn errors(version: &str) -> Errors {
    let dir = root().join(SET);
    let r = run_in(&dir, &["check", "--isolated", "--format", "json", "--kubernetes-version", version, version], None);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let mut out: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
    for d in json(&r)["diagnostics"].as_array().unwrap() {
        if d["severity"] == "error" && KUBECONFORM_RULES.contains(&d["rule"].as_str().unwrap()) {
            let file = d["file"].as_str().unwrap().to_string();
            out.entry(file).or_default().push((d["rule"].as_str().unwrap().into(), d["line"].as_u64().unwrap()));
        }
    }
    out
}

#[test]
fn driftlint_agrees_with_kubeconform_document_for_document() {
    let verdicts = std::fs::read_to_string(root().join(SET).join("verdicts.tsv")).unwrap();
    let rows: Vec<Vec<&str>> =
        verdicts.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).map(|l| l.split('\t').collect()).collect();
    assert!(rows.len() >= 30, "the set has at least 30 documents");
    let versions: BTreeSet<&str> = rows.iter().map(|r| r[1]).collect();
    let found: BTreeMap<&str, Errors> = versions.iter().map(|v| (*v, errors(v))).collect();
    let mut disagreements = Vec::new();
    let (mut valid, mut invalid, mut loose_only) = (0, 0, 0);
    for row in &rows {
        let [file, version, strict, loose, lines] = row[..] else { panic!("bad row {row:?}") };
        let errs = found[version].get(file).cloned().unwrap_or_default();
        let strict_ok = errs.is_empty();
        let loose_ok = errs.iter().all(|(rule, _)| rule == "schema-unknown-field");
        if strict_ok != (strict == "valid") || loose_ok != (loose == "valid") {
            disagreements
                .push(format!("{file}: kubeconform -strict {strict}, kubeconform {loose}; driftlint {errs:?}"));
        }
        let expected: BTreeSet<u64> = lines.split(',').filter(|l| *l != "-").map(|l| l.parse().unwrap()).collect();
        let got: BTreeSet<u64> = errs.iter().map(|(_, l)| *l).collect();
        if expected != got {
            disagreements.push(format!("{file}: errors at lines {got:?}, expected {expected:?} ({errs:?})"));
        }
        match (strict, loose) {
            ("valid", _) => valid += 1,
            (_, "valid") => loose_only += 1,
            _ => invalid += 1,
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    // The set covers each case: valid, invalid both ways, invalid only for -strict.
    assert!(valid >= 10 && invalid >= 10 && loose_only >= 3, "{valid} {invalid} {loose_only}");
}
