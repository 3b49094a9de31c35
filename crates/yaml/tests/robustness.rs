//! "Never a panic": a small deterministic mutation run over seed documents (the `cargo fuzz`
//! target in `fuzz/` does the same at scale). Every mutated text must load without panicking,
//! with in-bounds spans and error locations, and whatever loads must convert and write.

use driftlint_yaml::{LineIndex, parse_stream, to_yaml_string};

const SEEDS: &[&str] = &[
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: {a: b}\ndata:\n  k: |\n    multi\n    line\n",
    "- &a [1, 2, {k: 3}]\n- *a\n- &m {x: 1}\n- <<: *m\n  y: 2\n",
    "a: &x {b: 1}\nc:\n  <<: [*x, {d: 2}]\n  e: 'q''s'\n  f: \"esc\\t\\u00e9\\U0001F642\"\n",
    "---\n? complex\n: value\n--- !!map\nk: !!int 12\n...\n%YAML 1.2\n---\nx\n",
    "ключ: значение # comment\nlist:\n- é\n- 🙂: [1.5e3, .inf, 0x1F, 0o17, ~]\n",
    "a: >-\n  folded\n\n  text\nb: |2+\n   keep\n\nc: [\"\\\"\", '\\']\n",
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

const PIECES: &[&str] = &[
    ":", " ", "\n", "- ", "[", "]", "{", "}", ",", "&a ", "*a", "<<: ", "!!str ", "!!int ", "|", ">", "'", "\"", "#",
    "?", "---\n", "...\n", "\t", "é", "🙂", "\u{feff}", "  ", "\\", "%", "@", "\r\n",
];

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(chars.len() + 1);
        match rng.below(4) {
            0 if at < chars.len() => {
                chars.remove(at);
            }
            1 => chars.truncate(at),
            _ => {
                let piece = PIECES[rng.below(PIECES.len())];
                for (i, c) in piece.chars().enumerate() {
                    chars.insert((at + i).min(chars.len()), c);
                }
            }
        }
    }
    chars.into_iter().collect()
}

fn check(text: &str) {
    let stream = parse_stream(text);
    let index = LineIndex::new(text);
    if let Some(e) = &stream.error {
        assert!(e.offset <= text.len(), "{text:?}: {e:?}");
        assert!(e.line >= 1 && e.column >= 1);
        assert_eq!(index.line_column(text, e.offset).line, e.line);
    }
    for doc in &stream.documents {
        let r = &doc.range;
        assert!(r.start <= r.end && r.end <= text.len(), "{text:?}: {r:?}");
        assert!(text.is_char_boundary(doc.root.span.start) && text.is_char_boundary(doc.root.span.end));
        let json = doc.root.to_json();
        let written = to_yaml_string(&json);
        let _ = parse_stream(&written);
    }
}

#[test]
fn mutated_documents_never_panic() {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut total = 0;
    for seed in SEEDS {
        check(seed);
        let mut current = (*seed).to_owned();
        for _ in 0..1500 {
            let restart = rng.below(3) == 0;
            current = mutate(&mut rng, if restart { seed } else { &current });
            check(&current);
            total += 1;
        }
    }
    assert_eq!(total, SEEDS.len() * 1500);
}

#[test]
fn seeds_load() {
    for seed in SEEDS {
        let stream = parse_stream(seed);
        assert!(!stream.documents.is_empty(), "{seed:?}: {:?}", stream.error);
    }
}

/// Found by the `yaml_loader` fuzz target: mapping keys nested in mapping keys. Each level's
/// key text is the JSON of the level below, escaped once more, so it doubled per level (this
/// 78-byte input made gigabytes of key text). Key texts of collections are now cut.
#[test]
fn keys_nested_in_keys_stay_small() {
    let text = "?    ? ?  ? ?  ? ?  ?  ?  ? :  ? ?  ? : ?  ? ?  ? ?  ?  ?  ? :  ? ?  ? :  of p";
    let stream = parse_stream(text);
    let mut total = 0;
    for doc in &stream.documents {
        for w in &doc.warnings {
            let message = w.message();
            assert!(message.len() < 4 * driftlint_yaml::MAX_COLLECTION_KEY, "{} bytes", message.len());
            total += message.len();
        }
        assert!(doc.root.to_json().to_string().len() < 8 * driftlint_yaml::MAX_COLLECTION_KEY);
    }
    assert!(total > 0, "the collection keys are still reported");
    // Deeper still: 60 levels of `? ` load in linear time and space.
    let deep = format!("{}x\n", "? ".repeat(60));
    let stream = parse_stream(&deep);
    for doc in &stream.documents {
        assert!(doc.root.to_json().to_string().len() < 8 * driftlint_yaml::MAX_COLLECTION_KEY);
    }
}
