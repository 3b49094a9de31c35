//! `docs/rules.md` is generated from the rule documentation in `crates/core/src/rules/text.rs`; this fails
//! when the two disagree. `DRIFTLINT_BLESS=1 cargo test --test report` regenerates the file.

use std::path::Path;

use driftlint_core::diagnostic::Rule;
use driftlint_core::rules;

#[test]
fn rules_md_is_generated() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md");
    let generated = rules::rules_markdown();
    if driftlint_test_support::rewrite_requested() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/rules.md is not what crates/core/src/rules/text.rs generates; run `DRIFTLINT_BLESS=1 cargo test --test report`"
    );
}

#[test]
fn every_rule_explains_itself() {
    for rule in Rule::ALL {
        let text = rules::explain_text(rule);
        assert!(text.starts_with(rule.id()), "{text}");
        for heading in ["What it flags", "Why it matters", "Example", "How to fix"] {
            assert!(text.contains(heading), "{rule}: no {heading}");
        }
        assert!(rules::rules_markdown().contains(&format!("## {}\n", rule.id())));
    }
}
