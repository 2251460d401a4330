//! The conformance suite with the Rust engine: one test per case, generated
//! by `build.rs` (case `GROUP/CASE` is the test `cases::GROUP::CASE`, `-`
//! written `_`: `cargo test -p workload-lens-conformance update::non_object`),
//! plus checks that the cases are well formed and that `suite.json` is
//! current.

use std::collections::BTreeSet;
use std::sync::OnceLock;
use workload_lens_conformance::{Group, Outcome, load_groups, run_one, suite_dir, suite_json};

mod cases {
    include!(concat!(env!("OUT_DIR"), "/cases.rs"));
}

/// The suite, loaded once per test binary.
fn groups() -> &'static [Group] {
    static GROUPS: OnceLock<Vec<Group>> = OnceLock::new();
    GROUPS.get_or_init(|| load_groups(&suite_dir()).unwrap())
}

/// Run one case by name; a known difference for Rust passes (as in
/// `conformance run`, where it is reported as skipped).
fn check_case(name: &str) {
    let (group, case) = groups()
        .iter()
        .find_map(|g| g.cases.iter().find(|c| c.name == name).map(|c| (g, c)))
        .unwrap_or_else(|| panic!("no case {name} in conformance/cases"));
    match run_one(case, group) {
        Outcome::Pass => {}
        Outcome::Known(why) => println!("{name}: known difference in rust: {why}"),
        Outcome::Fail(diff) => panic!("{name}\n{diff}"),
    }
}

#[test]
fn every_case_has_a_test() {
    let loaded: BTreeSet<&str> = groups()
        .iter()
        .flat_map(|g| g.cases.iter().map(|c| c.name.as_str()))
        .collect();
    let generated: BTreeSet<&str> = cases::CASES.iter().copied().collect();
    let missing: Vec<_> = loaded.difference(&generated).collect();
    let extra: Vec<_> = generated.difference(&loaded).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "conformance/build.rs's scan of cases/*.yaml disagrees with the suite: \
         without a test {missing:?}, not a case {extra:?}"
    );
}

#[test]
fn cases_are_well_formed() {
    let groups = groups();
    let mut names = BTreeSet::new();
    for g in groups {
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
    let groups = groups();
    let path = suite_dir().join("suite.json");
    let text = suite_json(groups);
    if std::env::var_os("UPDATE_CONFORMANCE").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "conformance/suite.json is out of date: UPDATE_CONFORMANCE=1 cargo test -p workload-lens-conformance"
    );
}

/// The whole suite with the native fast path of jq evaluation off: every
/// case gives the same outcome through jaq alone as with the fast path,
/// except where the outcome is a limit (the fast path spends less of the
/// call's budget, so a case near a limit may fit with it and not without:
/// such cases are counted, and must be few).
#[test]
fn the_fast_path_changes_no_outcome() {
    let mut compared = 0;
    let mut limit_bound = Vec::new();
    for g in groups() {
        for c in &g.cases {
            let Ok(case) = workload_lens_conformance::expand_case(c, g) else {
                continue;
            };
            let on = workload_lens_conformance::run_expanded(&case, g);
            let before = workload_lens::set_fast_path(false);
            let off = workload_lens_conformance::run_expanded(&case, g);
            workload_lens::set_fast_path(before);
            let is_limit = |r: &Result<serde_json::Value, String>| matches!(r, Ok(v) if v.pointer("/error/code").and_then(|c| c.as_str()) == Some("limit"));
            if is_limit(&on) || is_limit(&off) {
                if on != off {
                    limit_bound.push(c.name.clone());
                }
                continue;
            }
            assert_eq!(on, off, "{}: the fast path changed the outcome", c.name);
            compared += 1;
        }
    }
    assert!(compared > 700, "{compared} cases compared");
    assert!(
        limit_bound.len() <= 5,
        "outcomes that depend on the fast path's budget: {limit_bound:?}"
    );
    println!("{compared} cases compared; differing only at a limit: {limit_bound:?}");
}
