//! `conformance`: run the conformance suite with the Rust engine, print the
//! parity table of every runtime that reported results, or help write cases.
//!
//! - `conformance run [--filter TEXT]` runs every case, prints a diff for
//!   each failure and a closing `N passed, M failed` line, and writes
//!   `target/conformance/rust.json`.
//! - `conformance table` prints cases x runtimes from `target/conformance/*.json`
//!   (each runtime's runner writes `{case name: "pass"|"fail"|"known"}`).
//! - `conformance actual NAME...` prints the outcome of cases as the Rust
//!   engine computes it (to write an expectation; review it before use).
//! - `conformance suite-json` regenerates `conformance/suite.json`.

use std::collections::BTreeMap;
use std::process::ExitCode;
use workload_lens_conformance::{
    Outcome, canonical, load_groups, run_all, run_case, suite_dir, suite_json,
};

fn results_dir() -> std::path::PathBuf {
    suite_dir().join("../target/conformance")
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = suite_dir();
    let groups = match load_groups(&dir) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match args.first().map(String::as_str) {
        Some("run") | None => {
            let filter = args
                .iter()
                .position(|a| a == "--filter")
                .and_then(|i| args.get(i + 1))
                .cloned();
            let mut results = BTreeMap::new();
            let (mut pass, mut fail, mut known) = (0, 0, 0);
            for (name, outcome) in run_all(&groups) {
                if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
                    continue;
                }
                let tag = match &outcome {
                    Outcome::Pass => {
                        pass += 1;
                        "pass"
                    }
                    Outcome::Known(_) => {
                        known += 1;
                        "known"
                    }
                    Outcome::Fail(d) => {
                        fail += 1;
                        println!("FAIL {name}\n{}", indent(d));
                        "fail"
                    }
                };
                results.insert(name, tag);
            }
            let _ = std::fs::create_dir_all(results_dir());
            let _ = std::fs::write(
                results_dir().join("rust.json"),
                serde_json::to_string_pretty(&results).unwrap_or_default(),
            );
            println!("conformance (rust): {pass} passed, {fail} failed, {known} skipped");
            if fail == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Some("table") => {
            let mut runtimes: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
            if let Ok(rd) = std::fs::read_dir(results_dir()) {
                for e in rd.flatten() {
                    let p = e.path();
                    if p.extension().is_some_and(|x| x == "json") {
                        let name = p
                            .file_stem()
                            .map(|s| s.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        if let Ok(text) = std::fs::read_to_string(&p)
                            && let Ok(m) = serde_json::from_str(&text)
                        {
                            runtimes.insert(name, m);
                        }
                    }
                }
            }
            let order = ["rust", "python", "node", "wasm-node", "wasm-chromium"];
            let mut cols: Vec<String> = order
                .iter()
                .filter(|r| runtimes.contains_key(**r))
                .map(|r| r.to_string())
                .collect();
            cols.extend(
                runtimes
                    .keys()
                    .filter(|k| !order.contains(&k.as_str()))
                    .cloned(),
            );
            println!(
                "Parity table ({} cases x {} runtime(s))",
                count(&groups),
                cols.len()
            );
            let width = groups
                .iter()
                .flat_map(|g| g.cases.iter().map(|c| c.name.len()))
                .max()
                .unwrap_or(4)
                .min(60);
            print!("{:<width$}", "case");
            for c in &cols {
                print!("  {c:<13}");
            }
            println!();
            let mut totals: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
            for g in &groups {
                for case in &g.cases {
                    let cells: Vec<&str> = cols
                        .iter()
                        .map(|r| {
                            runtimes[r]
                                .get(&case.name)
                                .map(String::as_str)
                                .unwrap_or("-")
                        })
                        .collect();
                    for (r, cell) in cols.iter().zip(&cells) {
                        *totals
                            .entry(r.as_str())
                            .or_default()
                            .entry(cell)
                            .or_default() += 1;
                    }
                    // Print only rows that are not a pass everywhere, plus known differences.
                    if cells.iter().any(|c| *c != "pass") {
                        print!("{:<width$}", case.name);
                        for c in &cells {
                            print!("  {c:<13}");
                        }
                        println!();
                        for (r, why) in &case.known_differences {
                            println!("    known difference ({r}): {why}");
                        }
                    }
                }
            }
            print!("{:<width$}", "TOTAL pass");
            for c in &cols {
                print!(
                    "  {:<13}",
                    totals
                        .get(c.as_str())
                        .and_then(|t| t.get("pass"))
                        .copied()
                        .unwrap_or(0)
                );
            }
            println!();
            ExitCode::SUCCESS
        }
        Some("actual") => {
            for name in &args[1..] {
                for g in &groups {
                    for c in g.cases.iter().filter(|c| &c.name == name) {
                        match run_case(c, g) {
                            Ok(v) => println!("{name}: {}", canonical(&v)),
                            Err(e) => println!("{name}: cannot run: {e}"),
                        }
                    }
                }
            }
            ExitCode::SUCCESS
        }
        Some("suite-json") => match std::fs::write(dir.join("suite.json"), suite_json(&groups)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Some(other) => {
            eprintln!("error: unknown command {other} (run, table, actual, suite-json)");
            ExitCode::from(2)
        }
    }
}

fn count(groups: &[workload_lens_conformance::Group]) -> usize {
    groups.iter().map(|g| g.cases.len()).sum()
}

fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
