//! Render timing for real reference templates: parse once, execute many times, print
//! microseconds per render. Plain timing loop (no criterion): `cargo bench -p driftlint-gotmpl`.

use std::hint::black_box;
use std::time::Instant;

use driftlint_gotmpl::{Limits, TemplateSet, Value};

struct Fixture {
    name: &'static str,
    set: TemplateSet,
    data: Value,
    output: String,
}

fn load(name: &'static str, json: &str) -> Fixture {
    let case: serde_json::Value = serde_json::from_str(json).expect("fixture JSON");
    let defines: Vec<(String, String)> = case["defines"]
        .as_array()
        .expect("defines")
        .iter()
        .enumerate()
        .map(|(i, d)| (format!("defines-{}.tmpl", i + 1), d.as_str().unwrap_or_default().to_string()))
        .collect();
    let set = TemplateSet::parse("main.yaml", case["template"].as_str().expect("template"), &defines)
        .expect("fixture parses");
    Fixture {
        name,
        set,
        data: Value::from_json(&case["data"]),
        output: case["output"].as_str().unwrap_or_default().to_string(),
    }
}

fn main() {
    let fixtures = [
        load("nodeNetworkConfigurationPolicy (53 lines)", include_str!("fixtures/nncp.json")),
        load("PerformanceProfile (90 lines)", include_str!("fixtures/performance-profile.json")),
    ];
    let limits = Limits::default();
    for f in &fixtures {
        let first = f.set.execute(&f.data, &limits, &[]).expect("fixture renders");
        assert_eq!(first.text, f.output, "{}: output differs from Go's", f.name);
        // Warm up, then time enough iterations for a stable figure.
        for _ in 0..200 {
            black_box(f.set.execute(black_box(&f.data), &limits, &[]).unwrap());
        }
        let iterations = 5_000;
        let start = Instant::now();
        for _ in 0..iterations {
            black_box(f.set.execute(black_box(&f.data), &limits, &[]).unwrap());
        }
        let per = start.elapsed().as_secs_f64() * 1e6 / iterations as f64;
        println!("{:45} {per:8.2} µs per render ({} bytes out)", f.name, first.text.len());
    }
    let parse_start = Instant::now();
    let text = include_str!("fixtures/performance-profile.json");
    for _ in 0..200 {
        black_box(load("parse", text));
    }
    println!(
        "{:45} {:8.2} µs per parse (with JSON decoding)",
        "PerformanceProfile parse",
        parse_start.elapsed().as_secs_f64() * 1e6 / 200.0
    );
}
