//! The whole suite passes with the Rust engine, and its JSON bundle is current.

use std::collections::BTreeSet;
use workload_lens_conformance::{Outcome, load_groups, run_all, suite_dir, suite_json};

#[test]
fn every_case_passes_in_rust() {
    let groups = load_groups(&suite_dir()).unwrap();
    let failures: Vec<String> = run_all(&groups)
        .into_iter()
        .filter_map(|(n, o)| match o {
            Outcome::Fail(d) => Some(format!("{n}\n{d}")),
            _ => None,
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failing case(s):\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn cases_are_well_formed() {
    let groups = load_groups(&suite_dir()).unwrap();
    let mut names = BTreeSet::new();
    for g in &groups {
        assert!(
            !g.note.trim().is_empty(),
            "{}: a group needs a note",
            g.group
        );
        for c in &g.cases {
            assert!(
                names.insert(c.name.clone()),
                "duplicate case name {}",
                c.name
            );
            assert!(
                c.name.starts_with(&format!("{}/", g.group)),
                "{}: names start with the group",
                c.name
            );
            assert!(
                c.expect.get("result").is_some() ^ c.expect.get("error").is_some(),
                "{}: expect result or error",
                c.name
            );
            for (runtime, why) in &c.known_differences {
                assert!(
                    why.trim().len() > 10,
                    "{}: a known difference in {runtime} needs a written reason",
                    c.name
                );
            }
        }
    }
}

#[test]
fn suite_json_is_current() {
    let groups = load_groups(&suite_dir()).unwrap();
    let path = suite_dir().join("suite.json");
    let text = suite_json(&groups);
    if std::env::var_os("UPDATE_CONFORMANCE").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "conformance/suite.json is out of date: UPDATE_CONFORMANCE=1 cargo test -p workload-lens-conformance"
    );
}
