//! Per-case time of the hostile conformance group, Rust engine, as a
//! markdown table (docs/reliability.md). A measured report, not a test.
//! An argument keeps only the cases whose name contains it.

use std::time::Instant;
use workload_lens_conformance::{compare, expand_case, load_groups, run_expanded, suite_dir};

fn main() {
    let groups = load_groups(&suite_dir()).expect("suite loads");
    let g = groups
        .iter()
        .find(|g| g.group == "hostile")
        .expect("hostile group");
    println!("| case | outcome | ms |\n|---|---|---:|");
    let filter = std::env::args().nth(1).unwrap_or_default();
    let cases: Vec<_> = g
        .cases
        .iter()
        .filter(|c| c.name.contains(&filter))
        .collect();
    let (mut worst, mut total, mut bad) = (0f64, 0f64, 0);
    for c in cases.iter().copied() {
        // Generators are expanded before the clock starts: the time is the
        // engine's. The expanded inputs are dropped before the expectation
        // is expanded (by `compare`).
        let x = expand_case(c, g).expect("case expands");
        let t = Instant::now();
        let actual = run_expanded(&x, g).expect("case runs");
        let ms = t.elapsed().as_secs_f64() * 1e3;
        drop(x);
        let err = actual.get("error");
        let mut outcome = err
            .and_then(|e| e.get("limit").or_else(|| e.get("code")))
            .and_then(|v| v.as_str())
            .unwrap_or("result")
            .to_string();
        if let Err(d) = compare(&c.expect, &actual) {
            bad += 1;
            outcome += &format!(" (UNEXPECTED: {})", d.chars().take(80).collect::<String>());
        }
        println!("| {} | {outcome} | {ms:.1} |", c.name);
        worst = worst.max(ms);
        total += ms;
    }
    println!(
        "\n{} cases ({bad} not as expected), slowest {worst:.0} ms, total {total:.0} ms",
        cases.len()
    );
    if bad > 0 {
        std::process::exit(1);
    }
}
