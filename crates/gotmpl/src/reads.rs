//! What an execution can read of its data: the field paths the main template follows from
//! the data (`.a.b`, `$.a.b`), found statically, so that a caller converting large data for
//! each execution can convert only those parts ([`DataPaths::project`]).
//!
//! The data is reached only through dot and `$`. Function names are resolved at parse time and
//! functions see nothing but their arguments, so every read of the data is written in the
//! template as one of:
//! * a field chain on dot while dot is still the data (`.a.b`), or on `$` (`$.a.b`): the
//!   value at that path, *whole* (it may be printed, ranged over, passed on), is kept;
//! * dot or `$` themselves (`{{ . }}`, `toYaml $`, `{{ template "x" . }}`): the whole data.
//!
//! Inside `with` and `range` bodies dot is a value already obtained (and kept whole) or not
//! data at all, so their field chains on dot read nothing more; their `else` bodies run with
//! the outer dot. A called template sees only what its pipeline passes (its `$` is that value,
//! as in Go), which is an argument like any other. Anything unusual (an assignment to `$`)
//! counts as reading the whole data. This module does not execute anything.

use std::collections::BTreeMap;

use crate::node::{Arg, Node, Pipe};
use crate::value::Value;

/// The parts of the data an execution can read, as a tree of keys: where a path ends, the
/// whole value below is read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataPaths {
    /// The value here is read whole.
    whole: bool,
    children: BTreeMap<String, DataPaths>,
}

impl DataPaths {
    /// The read paths of the main tree `list`, or `None` when the whole data may be read.
    pub(crate) fn of(list: &[Node]) -> Option<DataPaths> {
        let mut paths = DataPaths::default();
        walk(list, true, &mut paths).then_some(paths)
    }

    fn add(&mut self, path: &[String]) {
        let mut at = self;
        for key in path {
            if at.whole {
                return;
            }
            at = at.children.entry(key.clone()).or_default();
        }
        at.whole = true;
        at.children.clear();
    }

    /// The paths, each as its keys (for tests and diagnostics), sorted.
    pub fn paths(&self) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        if self.whole {
            out.push(prefix.clone());
            return;
        }
        for (k, child) in &self.children {
            prefix.push(k.clone());
            child.collect(prefix, out);
            prefix.pop();
        }
    }

    /// `data` converted as [`Value::from_json`] does, but only as far as an execution can
    /// read it: maps on the way to a read path keep only the keys on such paths (a missing
    /// key stays missing), and the value at the end of a path, or any non-map on the way, is
    /// converted whole. Executing with the result gives what executing with the whole
    /// conversion gives.
    pub fn project(&self, data: &serde_json::Value) -> Value {
        match data {
            serde_json::Value::Object(o) if !self.whole => {
                let mut entries = BTreeMap::new();
                for (k, child) in &self.children {
                    if let Some(v) = o.get(k) {
                        entries.insert(k.clone(), child.project(v));
                    }
                }
                Value::map(entries)
            }
            _ => Value::from_json(data),
        }
    }
}

/// Records the reads of `list`; `root` says whether dot is the data there. `false` when the
/// whole data may be read.
fn walk(list: &[Node], root: bool, paths: &mut DataPaths) -> bool {
    list.iter().all(|n| match n {
        Node::Action { pipe, .. } => pipeline(pipe, root, paths),
        Node::If(b) => {
            pipeline(&b.pipe, root, paths)
                && walk(&b.list, root, paths)
                && b.else_list.as_deref().is_none_or(|e| walk(e, root, paths))
        }
        Node::With(b) | Node::Range(b) => {
            pipeline(&b.pipe, root, paths)
                && walk(&b.list, false, paths)
                && b.else_list.as_deref().is_none_or(|e| walk(e, root, paths))
        }
        Node::Template { pipe, .. } => pipe.as_ref().is_none_or(|p| pipeline(p, root, paths)),
        Node::Text { .. } | Node::Break(_) | Node::Continue(_) | Node::Comment(_) => true,
    })
}

fn pipeline(p: &Pipe, root: bool, paths: &mut DataPaths) -> bool {
    if p.decl.iter().any(|(_, name)| name == "$") {
        return false;
    }
    p.cmds.iter().all(|c| c.args.iter().all(|a| arg(a, root, paths)))
}

fn arg(a: &Arg, root: bool, paths: &mut DataPaths) -> bool {
    match a {
        Arg::Field { idents, .. } => {
            if root {
                paths.add(idents);
            }
            true
        }
        Arg::Variable { idents, .. } if idents[0] == "$" => match &idents[1..] {
            [] => false,
            rest => {
                paths.add(rest);
                true
            }
        },
        Arg::Dot(_) => !root,
        Arg::Chain { node, .. } => arg(node, root, paths),
        Arg::Pipe(p) => pipeline(p, root, paths),
        Arg::Variable { .. } | Arg::Ident { .. } | Arg::Nil(_) | Arg::Bool(..) | Arg::Number(..) | Arg::Str { .. } => {
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Limits, TemplateSet};

    fn paths(main: &str) -> Option<Vec<String>> {
        let set = TemplateSet::parse_single("main", main).unwrap();
        set.data_paths().map(|p| p.paths().iter().map(|p| p.join(".")).collect())
    }

    #[test]
    fn field_chains_on_the_data_are_its_reads() {
        assert_eq!(
            paths("{{ .metadata.name }} {{ .spec.replicas | default 2 }}").unwrap(),
            ["metadata.name", "spec.replicas"]
        );
        // A shorter path covers the longer ones, whatever the order.
        assert_eq!(paths("{{ .a.b }}{{ if .a }}{{ end }}{{ .a.c.d }}").unwrap(), ["a"]);
        assert_eq!(
            paths("{{ $.a.b }}{{ with .c }}{{ .x }}{{ $.d }}{{ else }}{{ .e }}{{ end }}").unwrap(),
            ["a.b", "c", "d", "e"]
        );
        assert_eq!(paths("{{ range $i, $v := .items }}{{ $v.name }}{{ .name }}{{ end }}").unwrap(), ["items"]);
        assert_eq!(paths("{{ template \"t\" .spec }}{{ define \"t\" }}{{ $.x }}{{ .y }}{{ end }}").unwrap(), ["spec"]);
        assert_eq!(paths("{{ (index .m \"k\").z }} {{ $x := .n }}{{ $x.o }}").unwrap(), ["m", "n"]);
        assert_eq!(paths("text only").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn the_data_itself_is_a_whole_read() {
        for main in [
            "{{ . }}",
            "{{ toYaml $ }}",
            "{{ index . \"a\" }}",
            "{{ template \"t\" . }}",
            "{{ with . }}{{ end }}",
            "{{ with .a }}{{ else }}{{ . }}{{ end }}",
            "{{ range $k, $v := . }}{{ end }}",
            "{{ (dict \"x\" .).x }}",
            "{{ $ = .a }}",
        ] {
            assert_eq!(paths(main), None, "{main}");
        }
        // Dot inside a `with` or `range` body is not the data.
        assert_eq!(paths("{{ with .a }}{{ . }}{{ toYaml . }}{{ end }}").unwrap(), ["a"]);
    }

    #[test]
    fn executing_with_the_projection_equals_executing_with_everything() {
        let data = serde_json::json!({
            "metadata": {"name": "n", "labels": {"a": "1"}, "annotations": {}},
            "spec": {"replicas": 3, "list": [{"x": 1}], "s": "text"},
            "status": {"ok": true}
        });
        let limits = Limits::default();
        for main in [
            "{{ .metadata.name }} {{ .spec.replicas }} {{ .spec.missing }} {{ .nope.deeper }}",
            "{{ range $k, $v := .metadata.labels }}{{ $k }}={{ $v }}{{ end }}{{ .metadata.labels | toYaml }}",
            "{{ if .metadata.annotations }}yes{{ else }}no{{ end }} {{ len .spec.list }} {{ .spec.s.x }}",
            "{{ with .spec }}{{ .replicas }}{{ toJson . }}{{ end }} {{ $.status.ok }} {{ .metadata.name.x }}",
        ] {
            let set = TemplateSet::parse_single("main", main).unwrap();
            let paths = set.data_paths().unwrap();
            let whole = set.execute_text(&Value::from_json(&data), &limits, &[]);
            let part = set.execute_text(&paths.project(&data), &limits, &[]);
            assert_eq!(
                whole.as_ref().map_err(ToString::to_string),
                part.as_ref().map_err(ToString::to_string),
                "{main}"
            );
        }
        // What is projected: only the read paths, each whole.
        let set = TemplateSet::parse_single("main", "{{ .metadata.name }}{{ .spec }}{{ .none.x }}").unwrap();
        let projected = set.data_paths().unwrap().project(&data);
        let expected = serde_json::json!({"metadata": {"name": "n"}, "spec": data["spec"].clone()});
        assert!(projected.deep_equal(&Value::from_json(&expected)));
    }
}
