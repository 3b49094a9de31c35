//! Candidate for the conformance scorer: reads one case as JSON on stdin, prints the result.

use std::io::Read;

fn main() {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("eval_case: reading stdin: {e}");
        std::process::exit(2);
    }
    println!("{}", driftlint_gotmpl::case::eval_case(&input));
}
