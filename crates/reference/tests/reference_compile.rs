//! Conformance of the compiled reference against kube-compare's corpus: the metadata hash of
//! every case with an `expected.json` (§7.5, Appendix A) and the text of template load errors
//! (§2.9) of the error cases. Both need the corpus: `#[ignore]`d on a plain clone, run by
//! `.ci/run`.

use std::path::{Path, PathBuf};

use driftlint_reference::{compile, load_reference, metadata_hash};

/// Cases with an `expected.json` (and so a metadata hash), counted when this was written.
const MIN_HASHES: usize = 95;

/// Cases whose stderr is a template load error (§2.9) that load + compile must reproduce.
const TEMPLATE_ERROR_CASES: &[&str] = &[
    "ReferenceContainsTemplatesThatDontParse",
    "ReferenceContainsTemplatesThatDontExist",
    "ReferenceContainsFunctionTemplatesThatDontParse",
    "TemplateIsntYAMLAfterExecutionWithEmptyMap",
    "LookupCRs__LookupCR",
    "ReferenceV2InlineRegex__Invalid_Regex",
    "ReferenceV2PerFieldMatcherValidation__Matcher_Does_Not_exist",
    "CustomFieldsToOmitRefEntryNotFound",
];

/// The case folders of `corpus`, sorted.
fn cases(corpus: &Path) -> Vec<PathBuf> {
    let rd = std::fs::read_dir(corpus).unwrap_or_else(|e| panic!("{}: {e}", corpus.display()));
    let mut v: Vec<PathBuf> =
        rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.join("case.yaml").is_file()).collect();
    v.sort();
    v
}

/// The `reference:` of `case.yaml`.
fn reference_path(case: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(case.join("case.yaml")).ok()?;
    let doc = driftlint_yaml::parse_stream(&text).documents.into_iter().next()?;
    let json = doc.root.to_json();
    let r = json.get("reference")?.as_str()?;
    Some(case.join(r))
}

fn expected_hash(case: &Path) -> Option<String> {
    let text = std::fs::read_to_string(case.join("expected.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(v.get("Summary")?.get("MetadataHash")?.as_str()?.to_owned())
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn metadata_hashes_match_corpus() {
    let Some(corpus) = driftlint_test_support::corpus("metadata_hashes_match_corpus", "kube-compare") else { return };
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in cases(&corpus) {
        let (Some(reference), Some(want)) = (reference_path(&case), expected_hash(&case)) else {
            continue;
        };
        checked += 1;
        let name = case.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let got = load_reference(&reference).and_then(|r| compile(&r)).map(|c| metadata_hash(&c));
        match got {
            Ok(h) if h == want => {}
            Ok(h) => failures.push(format!("{name}: got {h}, want {want}")),
            Err(e) => failures.push(format!("{name}: load failed: {e}")),
        }
    }
    eprintln!("metadata hash: {}/{checked} match", checked - failures.len());
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    driftlint_test_support::assert_min_cases("metadata hashes", checked, MIN_HASHES);
}

#[test]
#[ignore = "needs the shared conformance corpora (../shared); .ci/run runs it"]
fn template_load_errors_match_corpus() {
    let Some(corpus) = driftlint_test_support::corpus("template_load_errors_match_corpus", "kube-compare") else {
        return;
    };
    let mut failures = Vec::new();
    let mut matched = 0;
    for name in TEMPLATE_ERROR_CASES {
        // Every listed case must be there: a missing one is a failure, not a skip.
        let case = corpus.join(name);
        let reference = reference_path(&case).unwrap_or_else(|| panic!("{name}: no case.yaml with a reference"));
        let stderr = std::fs::read_to_string(case.join("expected.stderr"))
            .unwrap_or_else(|e| panic!("{name}: expected.stderr: {e}"));
        let want = stderr.strip_prefix("error: ").unwrap_or(&stderr).trim_end_matches('\n');
        match load_reference(&reference).and_then(|r| compile(&r)) {
            Ok(_) => failures.push(format!("{name}: loaded without error, want:\n{want}")),
            Err(e) if e.to_string() == want => matched += 1,
            Err(e) => failures.push(format!("{name}:\n got: {e}\nwant: {want}")),
        }
    }
    eprintln!("template load errors: {matched}/{} match", TEMPLATE_ERROR_CASES.len());
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n\n"));
}
