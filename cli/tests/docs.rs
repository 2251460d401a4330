//! Every console example of docs/cli.md, run: each `$ workload-lens ...`
//! (or `cat`, `printf ... |`) command runs in bash from the repository
//! root, with this build's `workload-lens` first on PATH, and its output
//! (stdout and stderr, as a terminal shows them) must be the lines the
//! document shows. A line `...` in the document stands for any number of
//! lines. Commands that need a cluster (`kubectl`) are skipped, and those
//! that read one (`get`, `top`, `describe TYPE/NAME`) run in `live.rs`
//! against the test API server; a lone `$ echo $?` belongs to the command
//! before it.

mod doc_examples;

use doc_examples::{examples, matches, needs_cluster, run};

#[test]
fn every_console_example_of_the_cli_guide_is_what_the_cli_prints() {
    let doc = include_str!("../../docs/cli.md");
    let all: Vec<_> = examples(doc)
        .into_iter()
        .filter(|e| !needs_cluster(e))
        .collect();
    assert!(all.len() >= 25, "{} examples", all.len());
    let failures = run("docs/cli.md", &all, &[], false);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_console_example_of_the_diagnosis_guide_is_what_the_cli_prints() {
    let doc = include_str!("../../docs/diagnosis.md");
    let all: Vec<_> = examples(doc)
        .into_iter()
        .filter(|e| !needs_cluster(e))
        .collect();
    // One example of each finding's group (docs/diagnosis.md, Examples).
    assert!(all.len() >= 10, "{} examples", all.len());
    let failures = run("docs/diagnosis.md", &all, &[], false);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_ellipsis_matches_any_run_of_lines() {
    let p = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(matches(&p(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(matches(&p(&["a", "...", "d"]), &["a", "d"]));
    assert!(matches(&p(&["a", "..."]), &["a", "b"]));
    assert!(!matches(&p(&["a", "...", "d"]), &["a", "b"]));
    assert!(!matches(&p(&["a"]), &["a", "b"]));
}
