//! Go's `text/template` with Sprig v3 and kube-compare's function library.
//!
//! This crate knows nothing about Kubernetes: it parses templates once, executes them many
//! times against [`Value`] data, maps rendered output back to template spans, and bounds the
//! work a hostile template can do. File names follow Go's own (`lex`, `parse`, `node`, `exec`,
//! `funcs`) so the two can be read side by side.
//!
//! A [`TemplateSet`] reproduces what kube-compare builds for one reference CR template: the
//! main template parsed first, then the reference's function files into the same set, with
//! Go's replacement rules between definitions of the same name.

#![forbid(unsafe_code)]

mod budget;
pub mod case;
mod error;
mod exec;
pub mod fmt;
pub mod funcs;
mod lex;
pub mod node;
mod parse;
mod reads;
pub mod strconv;
pub mod value;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub use budget::{Budget, DEFAULT_STEPS, DEFAULT_WALL, Exhausted};
pub use error::{Error, ErrorKind};
pub use funcs::{Ctx, Func, Limits, Param};
pub use node::Span;
pub use reads::DataPaths;
pub use value::{FuncError, GoStr, IntKind, List, Map, Object, Type, Value};

/// A parsed set of templates: immutable, `Send + Sync`, executed any number of times.
#[derive(Debug)]
pub struct TemplateSet {
    /// Source file names, indexed by [`Span::file`].
    files: Vec<String>,
    /// Every tree ever associated, in parse order; replaced ones stay (the main tree may be
    /// one of them). Function files' trees are shared by the sets parsed with one
    /// [`SharedFiles`].
    trees: Vec<NamedTree>,
    /// Current definition of each name (what `{{template "x"}}` runs).
    by_name: HashMap<String, usize>,
    /// The tree `Execute` runs: the main file's own, even if a function file later
    /// redefines the main name.
    main: usize,
}

/// A template's name and its tree.
type NamedTree = (String, Arc<[node::Node]>);

/// The trees of file `name` (index `idx` in its set), each named.
#[allow(clippy::result_large_err)]
fn parse_trees(name: &str, text: &str, idx: u32) -> Result<Vec<NamedTree>, Error> {
    let trees = parse::parse_file(name, text, idx).map_err(|e| Error::parse(&e.file, e.line, e.message))?;
    Ok(trees.into_iter().map(|(tname, root)| (tname, Arc::from(root))).collect())
}

/// Function files that many sets are parsed with ([`TemplateSet::parse_shared`]): every set
/// holds their definitions, but each file is parsed once (for each index its first file
/// takes in a set — one, when the sets' main templates are one file each) and its trees are
/// shared. kube-compare parses them into every template of a reference.
#[derive(Debug, Default)]
pub struct SharedFiles {
    files: Vec<(String, String)>,
    parsed: Mutex<HashMap<u32, Arc<ParsedFiles>>>,
}

/// The function files parsed from one first index: the files read, in order, up to the first
/// that fails, and its error.
#[derive(Debug)]
struct ParsedFiles {
    files: Vec<(String, Vec<NamedTree>)>,
    error: Option<Error>,
}

impl SharedFiles {
    /// The function files `(name, text)`, in the order they are parsed.
    #[must_use]
    pub fn new(files: Vec<(String, String)>) -> SharedFiles {
        SharedFiles { files, parsed: Mutex::default() }
    }

    /// Whether there are no function files.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The files parsed with indexes from `first` on.
    fn parsed_from(&self, first: u32) -> Arc<ParsedFiles> {
        let mut cache = self.parsed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let parsed = cache.entry(first).or_insert_with(|| {
            let mut out = ParsedFiles { files: Vec::new(), error: None };
            for (i, (name, text)) in self.files.iter().enumerate() {
                match parse_trees(name, text, first + i as u32) {
                    Ok(trees) => out.files.push((name.clone(), trees)),
                    Err(e) => {
                        out.error = Some(e);
                        break;
                    }
                }
            }
            Arc::new(out)
        });
        Arc::clone(parsed)
    }
}

/// Output of one execution.
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    pub text: String,
    /// For each write, the output offset where it starts and the template span that produced
    /// it (a text node or an action); offsets are increasing.
    pub provenance: Vec<(usize, Span)>,
}

impl Rendered {
    /// The template span that produced the output byte at `offset`.
    pub fn source_of(&self, offset: usize) -> Option<Span> {
        let i = self.provenance.partition_point(|(start, _)| *start <= offset);
        i.checked_sub(1).map(|i| self.provenance[i].1)
    }
}

impl TemplateSet {
    /// Parses the main template and then each function file into one set, as kube-compare's
    /// `template.New(main).Funcs(…).ParseFS(main)` followed by `ParseFS(function files…)`.
    #[allow(clippy::result_large_err)] // errors are rare and carry their location
    pub fn parse<N: AsRef<str>, T: AsRef<str>>(
        main_name: &str,
        main_text: &str,
        function_files: &[(N, T)],
    ) -> Result<TemplateSet, Error> {
        let mut set = TemplateSet { files: Vec::new(), trees: Vec::new(), by_name: HashMap::new(), main: 0 };
        set.add_file(main_name, main_text)?;
        set.main = set.by_name[main_name];
        for (name, text) in function_files {
            set.add_file(name.as_ref(), text.as_ref())?;
        }
        Ok(set)
    }

    /// [`TemplateSet::parse`] with the main template's other files (`own_files`) and then the
    /// function files of `shared`, whose trees are parsed once for all the sets that share
    /// them. The set is the one `parse` gives for `own_files` followed by the function files.
    #[allow(clippy::result_large_err)]
    pub fn parse_shared<N: AsRef<str>, T: AsRef<str>>(
        main_name: &str,
        main_text: &str,
        own_files: &[(N, T)],
        shared: &SharedFiles,
    ) -> Result<TemplateSet, Error> {
        let mut set = TemplateSet::parse(main_name, main_text, own_files)?;
        let parsed = shared.parsed_from(set.files.len() as u32);
        for (name, trees) in &parsed.files {
            set.files.push(name.clone());
            set.associate(trees.iter().cloned());
        }
        match &parsed.error {
            Some(e) => Err(e.clone()),
            None => Ok(set),
        }
    }

    /// A set of one template without function files.
    #[allow(clippy::result_large_err)]
    pub fn parse_single(name: &str, text: &str) -> Result<TemplateSet, Error> {
        TemplateSet::parse::<&str, &str>(name, text, &[])
    }

    #[allow(clippy::result_large_err)]
    fn add_file(&mut self, name: &str, text: &str) -> Result<(), Error> {
        let idx = self.files.len() as u32;
        self.files.push(name.to_string());
        let trees = parse_trees(name, text, idx)?;
        self.associate(trees);
        Ok(())
    }

    /// Adds the trees of one file, in order.
    fn associate(&mut self, trees: impl IntoIterator<Item = NamedTree>) {
        for (tname, root) in trees {
            // Go's `associate`: an empty body never replaces an existing definition.
            if self.by_name.contains_key(&tname) && node::is_empty_tree(&root) {
                continue;
            }
            self.trees.push((tname.clone(), root));
            self.by_name.insert(tname, self.trees.len() - 1);
        }
    }

    /// Executes the main template with `data` as dot (and `$`).
    #[allow(clippy::result_large_err)]
    pub fn execute(&self, data: &Value, limits: &Limits, crs: &[Value]) -> Result<Rendered, Error> {
        exec::execute(self, self.main, data, limits, crs, true)
    }

    /// [`TemplateSet::execute`] for the text alone: no provenance is recorded (the returned
    /// [`Rendered::provenance`] is empty). Same limits, budget and errors.
    #[allow(clippy::result_large_err)]
    pub fn execute_text(&self, data: &Value, limits: &Limits, crs: &[Value]) -> Result<String, Error> {
        exec::execute(self, self.main, data, limits, crs, false).map(|r| r.text)
    }

    /// Executes the template currently defined under `name`, if any.
    #[allow(clippy::result_large_err)]
    pub fn execute_named(
        &self,
        name: &str,
        data: &Value,
        limits: &Limits,
        crs: &[Value],
    ) -> Option<Result<Rendered, Error>> {
        let idx = self.lookup(name)?;
        Some(exec::execute(self, idx, data, limits, crs, true))
    }

    /// The top-level nodes of the main file's own tree (Go's `t.Tree.Root.Nodes`): without
    /// its `{{define}}` bodies and untouched by later redefinitions of the main name.
    /// kube-compare's metadata hash is built from these nodes.
    pub fn main_tree(&self) -> &[node::Node] {
        &self.trees[self.main].1
    }

    /// Whether an execution may change the data it is given: some template of the set (the
    /// main one, a `define`d one or a function file's) names a function that mutates a map
    /// in place (`set`, `unset`, `merge`…). When it is `false`, one data value can be
    /// executed against any number of times, by any number of such sets, and stays as it was.
    pub fn may_mutate_data(&self) -> bool {
        self.trees.iter().any(|(_, root)| node::calls_any(root, &funcs::dicts::MUTATING))
    }

    /// The constant `(apiVersion, kind)` pairs of every `lookupCR`/`lookupCRs` call in the
    /// set (every tree, so templates and function files reached through `template` or
    /// `include` too); `None` when a call's apiVersion or kind is computed (or empty), so any
    /// CR may be looked up. Empty when the set never calls them.
    pub fn lookup_kinds(&self) -> Option<Vec<(String, String)>> {
        let mut out: Vec<(String, String)> = Vec::new();
        for (_, root) in &self.trees {
            for pair in node::constant_call_args(root, &["lookupCR", "lookupCRs"])? {
                if !out.contains(&pair) {
                    out.push(pair);
                }
            }
        }
        Some(out)
    }

    /// What an execution of the main template can read of its data (see [`DataPaths`]), or
    /// `None` when it may read all of it.
    pub fn data_paths(&self) -> Option<DataPaths> {
        DataPaths::of(self.main_tree())
    }

    /// Whether the template text at `span` (a piece of a text node, as [`Rendered`]'s
    /// provenance names it) is inside an `if` or a `with` of its tree, or a `range`'s `else`:
    /// output only when a condition on the data holds, so not the same for every execution.
    pub fn text_is_conditional(&self, span: node::Span) -> bool {
        self.trees.iter().any(|(_, root)| node::conditional_text(root, span, false))
    }

    /// The name of the source file with index `file` (see [`Span::file`]).
    pub fn file_name(&self, file: u32) -> &str {
        self.files.get(file as usize).map_or("", String::as_str)
    }

    /// Names of the defined templates, sorted.
    pub fn template_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.by_name.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    pub(crate) fn tree(&self, idx: usize) -> (&str, &[node::Node]) {
        let (n, root) = &self.trees[idx];
        (n, root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(main: &str, functions: &str) -> TemplateSet {
        TemplateSet::parse("main", main, &[("functions", functions)]).unwrap()
    }

    /// Each text node of `list`, depth first, with its span.
    fn texts(list: &[node::Node], out: &mut Vec<(String, Span)>) {
        for n in list {
            match n {
                node::Node::Text { span, text } => out.push((text.clone(), *span)),
                node::Node::If(b) | node::Node::Range(b) | node::Node::With(b) => {
                    texts(&b.list, out);
                    texts(b.else_list.as_deref().unwrap_or_default(), out);
                }
                _ => {}
            }
        }
    }

    /// Text is conditional inside `if` and `with` (either branch, however deep) and in a
    /// `range`'s `else`; not at the top, in a `range`'s body, or in a `define`d template
    /// that no condition wraps.
    #[test]
    fn text_under_a_condition_is_conditional() {
        let main = "top\n{{ if .a }}then{{ else }}else{{ end }}{{ range .l }}each{{ if .b }}deep{{ end }}{{ else }}none{{ end }}{{ with .c }}with{{ end }}";
        let s = set(main, "{{ define \"f\" }}defined{{ if .x }}chosen{{ end }}{{ end }}");
        let mut found = Vec::new();
        for (_, root) in &s.trees {
            texts(root, &mut found);
        }
        let verdicts: Vec<(&str, bool)> = found
            .iter()
            .map(|(text, span)| {
                // A piece inside the node, as provenance names it, is judged as the node.
                let piece = Span { start: span.start + 1, end: span.end.max(span.start + 1), ..*span };
                (text.as_str(), s.text_is_conditional(piece))
            })
            .collect();
        for (text, conditional) in [
            ("top\n", false),
            ("then", true),
            ("else", true),
            ("each", false),
            ("deep", true),
            ("none", true),
            ("with", true),
            ("defined", false),
            ("chosen", true),
        ] {
            assert!(verdicts.contains(&(text, conditional)), "{text}: {verdicts:?}");
        }
    }

    #[test]
    fn shared_function_files_give_the_sets_parse_gives_and_are_parsed_once() {
        let functions = [
            ("a.tmpl", r#"{{ define "greet" }}hi {{ . }}{{ end }}{{ define "over" }}from a{{ end }}"#),
            ("b.tmpl", r#"{{ define "over" }}from b{{ end }}{{ define "greet" }}{{ end }}"#),
        ];
        let owned: Vec<(String, String)> = functions.iter().map(|(n, t)| ((*n).to_owned(), (*t).to_owned())).collect();
        let shared = SharedFiles::new(owned);
        let limits = Limits::default();
        let data = Value::from_json(&serde_json::json!({"name": "x"}));
        // A main template alone, and one with a file of its own (the function files then
        // start at index 2: their spans name the right files).
        let mains: [(&str, &[(&str, &str)]); 2] = [
            (r#"{{ template "greet" .name }} {{ template "over" }}"#, &[]),
            (
                r#"{{ template "mine" }} {{ template "over" }} {{ template "greet" 1 }}"#,
                &[("own.tmpl", r#"{{ define "mine" }}m{{ end }}{{ define "over" }}own{{ end }}"#)],
            ),
        ];
        let mut sets = Vec::new();
        for (main, own) in mains {
            let mut all: Vec<(&str, &str)> = own.to_vec();
            all.extend(functions);
            let alone = TemplateSet::parse("main", main, &all).unwrap();
            let with = TemplateSet::parse_shared("main", main, own, &shared).unwrap();
            assert_eq!(with.template_names(), alone.template_names());
            assert_eq!(with.files, alone.files);
            let (a, b) = (alone.execute(&data, &limits, &[]).unwrap(), with.execute(&data, &limits, &[]).unwrap());
            assert_eq!(b.text, a.text);
            assert_eq!(b.provenance, a.provenance);
            sets.push(with);
        }
        assert_eq!(sets[0].execute_text(&data, &limits, &[]).unwrap(), "hi x from b");
        assert_eq!(sets[1].execute_text(&data, &limits, &[]).unwrap(), "m from b hi 1");
        // A second set with the same first index holds the same trees, not copies.
        let again =
            TemplateSet::parse_shared("main", "{{ template \"over\" }}", &[] as &[(&str, &str)], &shared).unwrap();
        let tree = |s: &TemplateSet| Arc::clone(&s.trees[s.lookup("over").unwrap()].1);
        assert!(Arc::ptr_eq(&tree(&again), &tree(&sets[0])));
        assert!(!Arc::ptr_eq(&tree(&again), &tree(&sets[1])));
        // A function file that does not parse: the error `parse` gives, for every set.
        let bad = SharedFiles::new(vec![
            ("ok.tmpl".to_owned(), "{{ define \"k\" }}k{{ end }}".to_owned()),
            ("bad.tmpl".to_owned(), "line\n{{ if }}".to_owned()),
        ]);
        for _ in 0..2 {
            let e = TemplateSet::parse_shared("main", "x", &[] as &[(&str, &str)], &bad).unwrap_err();
            let want = TemplateSet::parse(
                "main",
                "x",
                &[("ok.tmpl", "{{ define \"k\" }}k{{ end }}"), ("bad.tmpl", "line\n{{ if }}")],
            )
            .unwrap_err();
            assert_eq!((e.file.as_str(), e.line, e.to_string()), (want.file.as_str(), want.line, want.to_string()));
        }
        // The main template's own error comes first, as with `parse`.
        let e = TemplateSet::parse_shared("main", "{{ end }}", &[] as &[(&str, &str)], &bad).unwrap_err();
        assert_eq!(e.file, "main");
    }

    #[test]
    fn lookup_kinds_are_the_constant_pairs_or_none() {
        let pair = |a: &str, k: &str| (a.to_owned(), k.to_owned());
        assert_eq!(set("kind: {{ .kind }}", "").lookup_kinds(), Some(vec![]));
        // A mention in text or a comment is no call.
        assert_eq!(set("lookupCR {{/* lookupCR x */}}", "").lookup_kinds(), Some(vec![]));
        let s = set(
            r#"{{ $i := lookupCR "config.openshift.io/v1" "Infrastructure" "" "cluster" }}{{ (index (lookupCRs "v1" "ConfigMap" "*" "") 0).data }}{{ template "f" . }}"#,
            r#"{{ define "f" }}{{ if (lookupCR "config.openshift.io/v1" "Infrastructure" "" "cluster").spec }}x{{ end }}{{ "n" | lookupCR "v1" "Secret" "ns" }}{{ end }}"#,
        );
        assert_eq!(
            s.lookup_kinds(),
            Some(vec![pair("config.openshift.io/v1", "Infrastructure"), pair("v1", "ConfigMap"), pair("v1", "Secret")])
        );
        // Computed or empty apiVersion/kind: any CR may be looked up.
        assert_eq!(set(r#"{{ lookupCR .apiVersion "Infrastructure" "" "cluster" }}"#, "").lookup_kinds(), None);
        assert_eq!(set(r#"{{ lookupCRs "v1" (printf "%s" "Pod") "" "" }}"#, "").lookup_kinds(), None);
        assert_eq!(set(r#"{{ lookupCRs "" "Pod" "" "" }}"#, "").lookup_kinds(), None);
        assert_eq!(set("", r#"{{ define "g" }}{{ lookupCR "v1" $.kind "" "" }}{{ end }}"#).lookup_kinds(), None);
        // A computed name or namespace is fine: only apiVersion and kind are matched exactly.
        assert_eq!(set(r#"{{ lookupCR "v1" "Pod" .ns .name }}"#, "").lookup_kinds(), Some(vec![pair("v1", "Pod")]));
    }

    #[test]
    fn mutating_functions_are_found_wherever_they_are_named() {
        let pure =
            ["{{ .a.b }}", "{{ range .l }}{{ toYaml . }}{{ end }}", "{{ $m := dict \"x\" 1 }}{{ get $m \"x\" }}"];
        for main in pure {
            assert!(!set(main, "").may_mutate_data(), "{main}");
        }
        let mutating = [
            ("{{ set . \"a\" 1 }}", ""),
            ("{{ if .a }}{{ else }}{{ $_ := unset .a \"b\" }}{{ end }}", ""),
            ("{{ range .l }}{{ with (merge . (dict)) }}{{ end }}{{ end }}", ""),
            ("{{ (mergeOverwrite (dict) .).a }}", ""),
            ("{{ template \"t\" . }}", "{{ define \"t\" }}{{ mustMerge . (dict) }}{{ end }}"),
            // Named in a function file only: still part of the set.
            ("{{ .a }}", "{{ define \"u\" }}{{ mustMergeOverwrite . (dict) }}{{ end }}"),
        ];
        for (main, functions) in mutating {
            assert!(set(main, functions).may_mutate_data(), "{main} {functions}");
        }
    }

    #[test]
    fn data_survives_a_non_mutating_execution_and_not_a_mutating_one() {
        let json = serde_json::json!({"a": {"b": "x"}, "l": [1, 2]});
        let limits = Limits::default();
        let pure = set("{{ .a.b }}{{ range .l }}{{ . }}{{ end }}{{ toJson . }}", "");
        let data = Value::from_json(&json);
        let first = pure.execute_text(&data, &limits, &[]).unwrap();
        assert_eq!(pure.execute_text(&data, &limits, &[]).unwrap(), first);
        assert!(data.deep_equal(&Value::from_json(&json)));
        let mutating = set("{{ $_ := set .a \"b\" \"y\" }}{{ .a.b }}", "");
        assert!(mutating.may_mutate_data());
        assert_eq!(mutating.execute_text(&data, &limits, &[]).unwrap(), "y");
        assert!(!data.deep_equal(&Value::from_json(&json)), "set changed the shared data");
    }

    #[test]
    fn text_only_execution_matches_the_full_one() {
        let s = set("a: {{ .a.b }}\n{{ range .l }}- {{ . }}\n{{ end }}", "");
        let data = Value::from_json(&serde_json::json!({"a": {"b": "x"}, "l": [1, 2]}));
        let limits = Limits::default();
        let full = s.execute(&data, &limits, &[]).unwrap();
        assert!(!full.provenance.is_empty());
        assert_eq!(s.execute_text(&data, &limits, &[]).unwrap(), full.text);
    }
}
