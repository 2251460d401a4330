//! The status explanation: it agrees with `resolve` on every catalog fixture,
//! says why each matcher did or did not match, and reports the error
//! resolution fails with.

mod common;

use common::{compile, engine, read_file};
use serde_json::{Value, json};
use std::path::PathBuf;
use workload_lens::{Criterion, Outcome, StatusExplanation};

fn fixtures() -> PathBuf {
    common::repo_root().join("definitions/fixtures")
}

fn fixture(slug: &str, state: &str) -> Value {
    read_file(&fixtures().join(slug).join(format!("{state}.yaml")))
}

fn explain(slug: &str, state: &str) -> (StatusExplanation, Value) {
    let obj = fixture(slug, state);
    (engine().explain_status(&obj).unwrap(), obj)
}

#[test]
fn agrees_with_resolve_on_every_catalog_fixture() {
    let mut checked = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            if !name.ends_with(".yaml") || name.ends_with(".pods.yaml") || name == "expect.yaml" {
                continue;
            }
            let obj = read_file(&f);
            let def = engine().definition_for(&obj).unwrap();
            let resolved = def.resolve(&obj).unwrap();
            let ex = def.explain_status(&obj).unwrap();
            let what = f.display();
            assert!(ex.root.error.is_none(), "{what}: {:?}", ex.root.error);
            let status = resolved.status.expect("catalog roots have a status");
            assert_eq!(ex.root.matched_statuses, status.matched_statuses, "{what}");
            assert_eq!(
                ex.root.phase.as_ref().and_then(|p| p.value.clone()),
                status.phase,
                "{what}"
            );
            assert_eq!(
                ex.root
                    .conditions
                    .as_ref()
                    .map(|c| c.items.clone())
                    .unwrap_or_default(),
                status.conditions,
                "{what}"
            );
            // A category is matched exactly when one of its matchers is, and
            // every matched category is reported.
            let matched: Vec<&str> = ex
                .root
                .categories
                .iter()
                .filter(|c| c.matched)
                .map(|c| c.status.as_str())
                .collect();
            for c in &ex.root.categories {
                let hits = c
                    .matchers
                    .iter()
                    .filter(|m| m.outcome == Outcome::Matched)
                    .count();
                assert_eq!(c.matched, hits == 1, "{what}: {}", c.key);
            }
            if matched.is_empty() {
                assert_eq!(status.matched_statuses, ["Undefined"], "{what}");
            } else {
                assert_eq!(status.matched_statuses, matched, "{what}");
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} fixtures");
}

#[test]
fn snapshots() {
    for (slug, state) in [
        ("jobset-x-k8s-io-jobset-v1alpha2", "running"),
        ("jobset-x-k8s-io-jobset-v1alpha2", "failed"),
        ("core-pod-v1", "pending"),
        ("apps-deployment-v1", "degraded"),
    ] {
        let (ex, _) = explain(slug, state);
        insta::assert_json_snapshot!(format!("{slug}__{state}"), ex);
    }
}

const DEF: &str = r#"
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: example-com-trainer-v1}
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind: {group: example.com, version: v1, kind: Trainer}
      specDefinition: {podTemplateSpecPath: .spec.template}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          running:
            - byPhase: Running
              byExpression: {expression: '.status.x | error("boom")', expectedResult: "true"}
            - byConditions: [{type: Ready, status: "True"}]
          failed:
            - byConditions: [{type: Failed}]
          completed:
            - byExpression: {expression: '.status.done', expectedResult: "true"}
"#;

fn trainer(status: Value) -> Value {
    json!({
        "apiVersion": "example.com/v1", "kind": "Trainer",
        "metadata": {"name": "t"},
        "spec": {"template": {"spec": {"containers": [{"name": "c"}]}}},
        "status": status,
    })
}

#[test]
fn says_why_not() {
    let def = compile(DEF);
    let obj = trainer(json!({"phase": "Pending", "conditions": [
        {"type": "Ready", "status": "False"},
    ], "done": 1}));
    let ex = def.explain_status(&obj).unwrap();
    assert_eq!(ex.root.matched_statuses, ["Undefined"]);
    assert_eq!(
        def.status(&obj).unwrap().unwrap().matched_statuses,
        ["Undefined"]
    );
    let running = &ex.root.categories[0];
    assert_eq!(running.key, "running");
    // The failing byPhase keeps the erroring expression from running.
    let m0 = &running.matchers[0];
    assert_eq!(m0.outcome, Outcome::NotMatched);
    assert_eq!(m0.checks[0].outcome, Outcome::NotMatched);
    assert_eq!(
        m0.checks[0].reason,
        r#"phase is "Pending", expected "Running""#
    );
    assert_eq!(m0.checks[1].outcome, Outcome::Skipped);
    let m1 = &running.matchers[1];
    assert_eq!(
        m1.checks[0].reason,
        r#"condition "Ready" has status "False", expected "True""#
    );
    let failed = &ex.root.categories[1];
    assert_eq!(failed.key, "failed");
    assert_eq!(
        failed.matchers[0].checks[0].reason,
        r#"no condition of type "Failed""#
    );
    let completed = &ex.root.categories[2];
    match &completed.matchers[0].checks[0].criterion {
        Criterion::Expression { result, .. } => assert_eq!(result.as_deref(), Some("1")),
        c => panic!("{c:?}"),
    }
    assert_eq!(
        completed.matchers[0].checks[0].reason,
        r#"the expression gave "1", expected "true""#
    );
}

#[test]
fn matched_and_skipped() {
    let def = compile(DEF);
    let obj = trainer(json!({"conditions": [
        {"type": "Ready", "status": "True"}, {"type": "Failed", "status": "True"},
    ], "done": true}));
    let ex = def.explain_status(&obj).unwrap();
    assert_eq!(ex.root.matched_statuses, ["Running", "Failed", "Completed"]);
    let running = &ex.root.categories[0];
    // `.status.phase` of an object without one is null: the empty phase.
    assert_eq!(
        running.matchers[0].checks[0].reason,
        r#"phase is "", expected "Running""#
    );
    assert_eq!(running.matchers[1].outcome, Outcome::Matched);
    let v = serde_json::to_value(&ex).unwrap();
    assert_eq!(v["component"], "trainer");
    assert_eq!(
        v["categories"][0]["matchers"][1]["checks"][0]["kind"],
        "condition"
    );
    assert_eq!(
        v["categories"][0]["matchers"][1]["checks"][0]["outcome"],
        "matched"
    );
    assert!(v.get("error").is_none());
    assert!(v.get("components").is_none());
}

#[test]
fn reports_the_error_resolve_fails_with() {
    let def = compile(DEF);
    let obj = trainer(json!({"phase": "Running", "done": true}));
    let err = def.resolve(&obj).unwrap_err();
    let ex = def.explain_status(&obj).unwrap();
    assert_eq!(ex.root.error.as_ref(), Some(&err));
    assert!(ex.root.matched_statuses.is_empty());
    let check = &ex.root.categories[0].matchers[0].checks[1];
    assert_eq!(check.outcome, Outcome::Error);
    assert_eq!(check.error.as_ref(), Some(&err));
    // The other categories are still explained.
    assert!(ex.root.categories[2].matched);
    // Not a Kubernetes object: an error, as for `status`.
    assert!(def.explain_status(&json!({"kind": "x"})).is_err());
}

#[test]
fn condition_reasons_say_what_differs() {
    // The trainer definition with mappings of conditions only.
    let head = DEF.split("        statusMappings:\n").next().unwrap();
    let def2 = format!(
        "{head}        statusMappings:
          running:
            - byConditions: [{{type: Ready, status: \"True\", reason: Up}}]
          failed:
            - byConditions: [{{type: Failed}}]
          completed:
            - byConditions: [{{type: Done, status: \"True\"}}]
"
    );
    let def = compile(&def2);
    let obj = trainer(json!({"conditions": [
        {"type": "Ready", "status": "True", "reason": "Starting"},
        {"type": "Failed"},
        {"type": "Done", "status": "True"},
    ]}));
    let ex = def.explain_status(&obj).unwrap();
    assert_eq!(ex.root.matched_statuses, ["Failed", "Completed"]);
    let reasons: Vec<(&str, Outcome, &str)> = ex
        .root
        .categories
        .iter()
        .map(|c| {
            let check = &c.matchers[0].checks[0];
            (c.key.as_str(), check.outcome, check.reason.as_str())
        })
        .collect();
    assert_eq!(
        reasons,
        [
            (
                "running",
                Outcome::NotMatched,
                r#"condition "Ready" has reason "Starting", expected "Up""#
            ),
            (
                "failed",
                Outcome::Matched,
                r#"condition "Failed" is present"#
            ),
            (
                "completed",
                Outcome::Matched,
                r#"condition "Done" has status "True""#
            ),
        ]
    );
}
