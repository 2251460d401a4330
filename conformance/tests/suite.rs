//! The conformance suite with the Rust engine: one test per case, generated
//! by `build.rs` (case `GROUP/CASE` is the test `cases::GROUP::CASE`, `-`
//! written `_`: `cargo test -p workload-lens-conformance update::non_object`),
//! plus checks that the cases are well formed and that `suite.json` is
//! current.

use std::collections::BTreeSet;
use std::sync::OnceLock;
use workload_lens_conformance::{Group, Outcome, load_groups, suite_dir, suite_json};

mod cases {
    include!(concat!(env!("OUT_DIR"), "/cases.rs"));
}

/// The suite, loaded once per test binary.
fn groups() -> &'static [Group] {
    static GROUPS: OnceLock<Vec<Group>> = OnceLock::new();
    GROUPS.get_or_init(|| load_groups(&suite_dir()).unwrap())
}

/// The cases whose answer with the jq fast path may differ from jaq's
/// alone, and only where one of the two is a limit error: the fast path
/// spends less of a call's budget, so a case near a limit may fit with it
/// and not without (or breach elsewhere). A case added here needs that
/// reason; `the_cases_allowed_to_differ_at_a_limit_exist` keeps the names
/// current.
const DIFFER_ONLY_AT_A_LIMIT: &[&str] = &[
    // 50,000 gang groups, and many pods times selectors, under default
    // limits; a resolve of 100,000 pods on distinct nodes; a structure
    // scaled to just within the step limit.
    "gang-structure/scale-within-the-step-limit",
    "hostile/call-many-pods-times-selectors",
    "hostile/call-resolve-with-100k-pods-on-distinct-nodes",
    "hostile/call-gang-50k-groups-default-limits",
];

/// Run one case by name, with the fast path of jq evaluation and without
/// it: a known difference for Rust passes (as in `conformance run`, where
/// it is reported as skipped); the two runs give the same answer, or
/// differ only at a limit in a case of [`DIFFER_ONLY_AT_A_LIMIT`]. (The
/// whole suite run a second time with the fast path off, a case per test.)
fn check_case(name: &str) {
    let (group, case) = groups()
        .iter()
        .find_map(|g| g.cases.iter().find(|c| c.name == name).map(|c| (g, c)))
        .unwrap_or_else(|| panic!("no case {name} in conformance/cases"));
    let (outcome, runs) = workload_lens_conformance::run_one_both_ways(case, group);
    match outcome {
        Outcome::Pass => {}
        Outcome::Known(why) => println!("{name}: known difference in rust: {why}"),
        Outcome::Fail(diff) => panic!("{name}\n{diff}"),
    }
    if let Some(runs) = runs
        && runs.on != runs.off
    {
        assert!(
            runs.at_a_limit() && DIFFER_ONLY_AT_A_LIMIT.contains(&name),
            "{name}: the fast path changed the outcome\nwith it: {:?}\njaq alone: {:?}",
            runs.on,
            runs.off
        );
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

#[test]
fn the_cases_allowed_to_differ_at_a_limit_exist() {
    for name in DIFFER_ONLY_AT_A_LIMIT {
        assert!(
            groups()
                .iter()
                .any(|g| g.cases.iter().any(|c| c.name == *name)),
            "DIFFER_ONLY_AT_A_LIMIT names {name}, which is not a case"
        );
    }
}
