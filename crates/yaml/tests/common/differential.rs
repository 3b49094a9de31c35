//! What the differential tests against the general loader (the spanned fast path, the
//! piece-wise load) share: the YAML files they read, and deterministic mutations of texts.

use std::path::PathBuf;

/// The repository's YAML files (`fixtures`, `tests`, `crates`), in directory-listing order.
pub fn repository_yaml_files() -> Vec<PathBuf> {
    let root = driftlint_test_support::repo_root();
    let mut files = Vec::new();
    for dir in ["fixtures", "tests", "crates"] {
        crate::common::files_with(&root.join(dir), &["yaml", "yml"], &mut files);
    }
    // Go-templated files (references' templates, charts) are YAML only once rendered: the
    // loaders' differential needs YAML, and a templated file only takes their error paths.
    files.retain(|f| std::fs::read_to_string(f).map_or(true, |t| !t.contains("{{")));
    // The recorded Kubernetes cases are edge cases of the YAML grammar, not manifests: the
    // share of files the fast paths take is about manifests, and `k8s_truth` runs every
    // loader over those cases.
    files.retain(|f| !f.components().any(|c| c.as_os_str() == "k8s-truth"));
    files
}

/// The shared corpora's YAML files, or `None` when the corpora are absent (then `test`, the
/// caller, is reported as skipped: see `driftlint_test_support::corpus`).
pub fn corpus_yaml_files(test: &str) -> Option<Vec<PathBuf>> {
    let mut files = Vec::new();
    for name in ["kube-compare", "gotemplate", "crossplane", "fybrik"] {
        let corpus = driftlint_test_support::corpus(test, name)?;
        crate::common::files_with(&corpus, &["yaml", "yml"], &mut files);
    }
    Some(files)
}

/// Lines that replace a line's value, or are inserted, by the mutations.
pub const ODD: &[&str] = &[
    "yes",
    "No",
    "~",
    "null",
    "0755",
    "0x1F",
    "1_000",
    "1e3",
    ".inf",
    "-.Inf",
    ".nan",
    "3.0",
    "18446744073709551615",
    "2024-01-01",
    "12:30:00",
    "\"\"",
    "''",
    "\"a # b\"",
    "'it''s'",
    "\"esc\\n\"",
    "{}",
    "[]",
    "[ ]",
    "{a: 1}",
    "[a, b]",
    "[a, 'b' ,\"c\"]",
    "[ a , b ] # c",
    "[a,]",
    "[a b,c]",
    "[1, .nan, ~]",
    "[a: b]",
    "[[a]]",
    "[a",
    "['a''b']",
    "[\"a,b\"]x",
    "[x,  'é']   ",
    "[-- -]",
    "[a, -]",
    "[a?, b]",
    "- x",
    "a: b",
    "a:b",
    "é ü",
    "日本",
    "---",
    "...",
    "<<",
    "&a x",
    "*a",
    "!t x",
    "!!str 1",
    "|",
    ">-",
    "%x",
    "@x",
    "`x",
    "?",
    ":",
    "-",
    "x #c",
    "x#c",
    "'q' #c",
    "\"q\"  ",
    "'q'x",
    "\"unterminated",
    "k: ",
    "{}  ",
    "[] # c",
    "{} x",
];

/// Deterministic mutations of `text`.
pub fn mutations(text: &str, rng: &mut fastrand::Rng, count: usize) -> Vec<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = Vec::with_capacity(count + 4);
    out.push(text.replace('\n', "\r\n"));
    out.push(format!("---\n{text}"));
    out.push(format!("{text}\n---\n"));
    out.push(format!("# head\n---\n{text}---\n# tail\n---\n"));
    for _ in 0..count {
        let mut l: Vec<String> = lines.iter().map(|s| (*s).to_owned()).collect();
        let i = rng.usize(..l.len());
        let odd = ODD[rng.usize(..ODD.len())];
        match rng.u8(..12) {
            0 => l[i].insert(0, ' '),
            1 => {
                if l[i].starts_with(' ') {
                    l[i].remove(0);
                }
            }
            2 => l.insert(i, format!("{}# comment", " ".repeat(rng.usize(..6)))),
            3 => l[i].push_str(" # trailing"),
            4 => {
                let dup = l[i].clone();
                l.insert(i, dup); // duplicate keys, mostly
            }
            5 | 6 => {
                if let Some(c) = l[i].find(": ") {
                    l[i].truncate(c + 2);
                    l[i].push_str(odd);
                } else if let Some(d) = l[i].find("- ") {
                    l[i].truncate(d + 2);
                    l[i].push_str(odd);
                }
            }
            7 => {
                if let Some(c) = l[i].find(": ") {
                    let (k, v) = l[i].split_at(c + 2);
                    let q = if rng.bool() { '"' } else { '\'' };
                    l[i] = format!("{k}{q}{v}{q}");
                }
            }
            8 => {
                let indent = l[i].len() - l[i].trim_start().len();
                if indent > 0 {
                    l[i].replace_range(indent - 1..indent, "\t");
                } else {
                    l[i].push('\t');
                }
            }
            9 => l.insert(i, ["---", "...", "--- x", "--- # c", "---   "][rng.usize(..5)].to_owned()),
            10 => {
                l.remove(i);
            }
            _ => {
                let indent = l[i].len() - l[i].trim_start().len();
                l.insert(i, format!("{}{odd}", " ".repeat(indent)));
            }
        }
        out.push(l.join("\n"));
    }
    out
}
