//! Unit tests for [`super`]: kube-compare's input rules on temporary trees.

use super::*;
use std::fs;

struct FakeIo(&'static str);
impl Io for FakeIo {
    fn read_stdin(&mut self) -> Result<String, String> {
        Ok(self.0.to_owned())
    }
}

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    dir
}

fn ids(c: &Collected) -> Vec<&str> {
    c.crs.iter().map(|c| c.id.as_str()).collect()
}

const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\n";

#[test]
fn walks_lexically_filters_extensions_and_recurses_only_with_r() {
    let d = tree(&[
        ("b.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n"),
        ("a.json", r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}"#),
        ("c.txt", "apiVersion: v1\nkind: Namespace\nmetadata: {name: c}\n"),
        ("sub/d.yml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: d}\n"),
    ]);
    let root = d.path().display().to_string();
    let flat = collect_crs(std::slice::from_ref(&root), false).unwrap();
    assert_eq!(ids(&flat), ["v1_Namespace_a", "v1_Namespace_b"]);
    let deep = collect_crs(std::slice::from_ref(&root), true).unwrap();
    assert_eq!(ids(&deep), ["v1_Namespace_a", "v1_Namespace_b", "v1_Namespace_d"]);
    assert_eq!(deep.crs[2].source, format!("{root}/sub/d.yml"));
    // An explicitly named file is read whatever its extension.
    let txt = collect_crs(&[format!("{root}/c.txt")], false).unwrap();
    assert_eq!(ids(&txt), ["v1_Namespace_c"]);
}

#[cfg(unix)]
#[test]
fn symlinks_are_followed_and_only_regular_files_read() {
    use std::os::unix::fs::symlink;
    let d = tree(&[
        ("real/a.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"),
        ("other/b.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n"),
    ]);
    let root = d.path();
    // A link to a directory is walked (with -R), a link to a file read, a dangling link skipped.
    symlink(root.join("other"), root.join("real/linked-dir")).unwrap();
    symlink(root.join("other/b.yaml"), root.join("real/c.yaml")).unwrap();
    symlink(root.join("missing.yaml"), root.join("real/dangling.yaml")).unwrap();
    let real = root.join("real").display().to_string();
    let got = collect_crs(std::slice::from_ref(&real), true).unwrap();
    assert_eq!(ids(&got), ["v1_Namespace_a", "v1_Namespace_b"]);
    let sources: Vec<&str> = got.crs.iter().map(|c| c.source.as_str()).collect();
    assert_eq!(sources, [format!("{real}/a.yaml"), format!("{real}/c.yaml")]);
    // Without -R the linked directory is not entered; the linked file is still read.
    let flat = collect_crs(std::slice::from_ref(&real), false).unwrap();
    assert_eq!(ids(&flat), ["v1_Namespace_a", "v1_Namespace_b"]);
    // A FIFO in a walked directory is refused with an error, never opened blocking.
    let made = std::process::Command::new("mkfifo").arg(root.join("real/pipe.yaml")).status().unwrap();
    assert!(made.success());
    let err = collect_crs(std::slice::from_ref(&real), true).unwrap_err();
    assert!(err.to_string().contains("pipe.yaml: not a regular file"), "{err}");
}

#[cfg(unix)]
#[test]
fn link_cycles_neither_loop_nor_multiply() {
    use std::os::unix::fs::symlink;
    let d = tree(&[("a/x.yaml", CM)]);
    let root = d.path();
    // Two links to the parent in every directory: 2^depth paths if links were walked blindly.
    symlink("..", root.join("a/b")).unwrap();
    symlink("..", root.join("a/c")).unwrap();
    symlink(".", root.join("a/self")).unwrap();
    let top = root.display().to_string();
    let got = collect_crs(std::slice::from_ref(&top), true).unwrap();
    assert_eq!(ids(&got), ["v1_ConfigMap_ns_a"]);
    assert_eq!(got.crs[0].source, format!("{top}/a/x.yaml"));
}

#[test]
fn lists_flatten_whatever_their_kind_and_first_id_wins() {
    let text = "kind: ConfigMap\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: x}\n  data: 1\n\
                - metadata: {name: nokind}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\n---\nnull\n";
    let got = collect_crs_with(&["-".to_owned()], false, &mut FakeIo(text)).unwrap();
    assert_eq!(ids(&got), ["v1_Namespace_x"]);
    assert_eq!(got.crs[0].object["data"], 1);
    assert_eq!(got.crs[0].source, "STDIN");
    assert_eq!(got.warnings.len(), 1);
    assert!(got.warnings[0].starts_with("Skipping type Input contains"));
}

#[test]
fn skip_warnings_have_kube_compare_text() {
    let d = tree(&[
        ("d1.json", "{\"glossary\": {\"title\": \"x\"}}"),
        ("d2.yaml", CM),
        ("d4.yaml", "kind: D\nspec:\n  replicas: 1\n    x: 10\n"),
    ]);
    let root = d.path().display().to_string();
    let got = collect_crs(std::slice::from_ref(&root), false).unwrap();
    assert_eq!(ids(&got), ["v1_ConfigMap_ns_a"]);
    assert_eq!(
        got.warnings[0],
        format!(
            "Skipping \"{root}/d1.json\": Input contains additional files from supported file extensions (json/yaml) \
             that do not contain a valid resource, error: 'Kind' is missing.\n In case this file is expected to be a \
             valid resource modify it accordingly. "
        )
    );
    assert!(got.warnings[1].starts_with(&format!("Skipping {root}/d4.yaml: Input contains")), "{}", got.warnings[1]);
    assert!(
        got.warnings[1].contains("error: : mapping values are not allowed in this context.\n"),
        "{}",
        got.warnings[1]
    );
}

#[test]
fn scalar_and_list_documents_are_fatal() {
    let d = tree(&[("b.yaml", "just a string\n"), ("c.yaml", "- 1\n"), ("d.yaml", CM)]);
    let root = d.path().display().to_string();
    let err = collect_crs(std::slice::from_ref(&root), false).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "error occurred while trying to fetch resources: [unable to decode \"{root}/b.yaml\": json: cannot \
             unmarshal string into Go value of type unstructured.detector, unable to decode \"{root}/c.yaml\": json: \
             cannot unmarshal array into Go value of type unstructured.detector]"
        )
    );
}

#[test]
fn path_errors() {
    let d = tree(&[("empty/x.txt", "")]);
    let root = d.path().display().to_string();
    let err = collect_crs(&[format!("{root}/nope"), format!("{root}/nope2")], false).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "failed to collect resources: [the path \"{root}/nope\" does not exist, the path \"{root}/nope2\" does \
             not exist]"
        )
    );
    let err = collect_crs(&[format!("{root}/empty")], false).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "failed to collect resources: error reading [{root}/empty]: recognized file extensions are [.json .yaml .yml]"
        )
    );
    let err = collect_crs(&[format!("{root}/[")], false).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("failed to collect resources: pattern \"{root}/[\" is not valid: syntax error in pattern")
    );
}

#[test]
fn globs_expand_missing_paths() {
    let d = tree(&[("a.yaml", CM), ("b.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n")]);
    let got = collect_crs(&[format!("{}/*.yaml", d.path().display())], false).unwrap();
    assert_eq!(ids(&got), ["v1_ConfigMap_ns_a", "v1_Namespace_b"]);
}

#[test]
fn cr_ids() {
    assert_eq!(cr_id(&serde_json::json!({"kind": "ConfigMap", "metadata": {"name": "x"}})), "_ConfigMap_x");
    assert_eq!(clean("./a//b/../c/"), "a/c");
}
