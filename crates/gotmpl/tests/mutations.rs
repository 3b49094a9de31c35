//! A deterministic stand-in for the fuzz targets that runs with `cargo test`: real reference
//! templates mutated with template-shaped fragments must parse or fail cleanly, and what
//! parses must execute to output or an error within limits: no panic, hang or stack overflow.

use driftlint_gotmpl::{Limits, TemplateSet, Value};

const FRAGMENTS: &[&str] = &[
    "{{",
    "}}",
    "{{-",
    "-}}",
    "(",
    ")",
    "|",
    "$x",
    "$",
    ":=",
    "=",
    ",",
    ".",
    ".a.b",
    "range",
    "if",
    "with",
    "else",
    "end",
    "break",
    "continue",
    "define \"d\"",
    "template \"d\" .",
    "block \"b\" .",
    "nil",
    "\"s\"",
    "`raw`",
    "'c'",
    "1",
    "-1",
    "0x1F",
    "1.5",
    "1i",
    "/*",
    "*/",
    " ",
    "\n",
    "index",
    "len",
    "printf \"%v\"",
    "and",
    "or",
    "not",
    "eq",
    "toYaml",
    "default",
    "list",
    "dict",
    "until 5",
    "fail \"x\"",
];

/// Seeded choices (`fastrand`), so a failure reproduces.
struct Rng(fastrand::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.usize(..n.max(1))
    }
}

fn char_floor(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate(rng: &mut Rng, seed: &str) -> String {
    let mut s = seed.to_string();
    for _ in 0..1 + rng.below(4) {
        let at = char_floor(&s, rng.below(s.len() + 1));
        match rng.below(3) {
            0 => s.insert_str(at, FRAGMENTS[rng.below(FRAGMENTS.len())]),
            1 => {
                let end = char_floor(&s, (at + rng.below(12)).min(s.len()));
                s.replace_range(at..end, "");
            }
            _ => {
                let end = char_floor(&s, (at + rng.below(40)).min(s.len()));
                let dup = s[at..end].to_string();
                s.insert_str(end, &dup);
            }
        }
    }
    s
}

#[test]
fn mutated_templates_never_panic() {
    let seeds: Vec<String> =
        [include_str!("../benches/fixtures/nncp.json"), include_str!("../benches/fixtures/performance-profile.json")]
            .iter()
            .flat_map(|j| {
                let v: serde_json::Value = serde_json::from_str(j).unwrap();
                let mut t = vec![v["template"].as_str().unwrap().to_string()];
                t.extend(v["defines"].as_array().unwrap().iter().map(|d| d.as_str().unwrap().to_string()));
                t
            })
            .chain(std::iter::once(
                "{{ range $i, $v := .l }}{{ if eq $i 1 }}{{ break }}{{ end }}{{ $v }}{{ end }}".to_string(),
            ))
            .collect();
    let data = Value::from_json(&serde_json::json!({
        "metadata": {"name": "x", "annotations": {"a": "b"}},
        "spec": {"cpu": {"isolated": "1-3"}, "nodeSelector": {"k": "v"}},
        "l": [1, 2, 3], "a": {"b": null}
    }));
    let limits = Limits {
        max_output: 1 << 16,
        max_depth: 100,
        fuel: 20_000,
        max_list_len: 10_000,
        max_string_len: 1 << 16,
        ..Limits::default()
    };
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let (mut parsed, mut executed) = (0, 0);
    // MUTATION_ITERATIONS=200000 for a longer hunt.
    let iterations: usize = std::env::var("MUTATION_ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(3000);
    for i in 0..iterations {
        let seed = &seeds[i % seeds.len()];
        let text = mutate(&mut rng, seed);
        let Ok(set) = TemplateSet::parse("main.yaml", &text, &[("defines-1.tmpl", seeds[1].as_str())]) else {
            continue;
        };
        parsed += 1;
        if set.execute(&data, &limits, &[]).is_ok() {
            executed += 1;
        }
    }
    // Most mutations break the syntax; enough must survive to exercise the executor.
    assert!(parsed > 300, "only {parsed} mutated templates parsed");
    assert!(executed > 100, "only {executed} executed");
}
