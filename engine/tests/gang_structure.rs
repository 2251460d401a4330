//! The structure gang scheduling works on (`gang_structure`) and the subtree
//! scale of an object (`subtree_scale_of`) through the Rust API. Their
//! semantics are conformance cases (`conformance/cases/gang-structure.yaml`),
//! run by every runtime; what stays here is what the suite cannot express
//! (catalog definitions, the agreement of the two subtree-scale calls,
//! budgets of big definitions).

mod common;

use common::{catalog_def, thing_def};
use serde_json::json;
use workload_lens::{CompiledDefinition, ErrorCode, Limits};

#[test]
fn pytorch_workers_fall_back_to_the_jobs_member() {
    let d = catalog_def("kubeflow-org-pytorchjob-v1");
    let s = d.gang_structure().unwrap();
    assert_eq!(s.components, ["pytorchjob", "master", "worker"]);
    assert_eq!(s.leaves, ["master", "worker"]);
    assert_eq!(s.parents["worker"], "pytorchjob");
    assert_eq!(s.children["pytorchjob"], ["master", "worker"]);
    let c = s.candidates.unwrap();
    for component in ["pytorchjob", "master", "worker"] {
        let members: Vec<_> = c[component].iter().map(|m| m.member.as_str()).collect();
        assert_eq!(members, ["pytorchjob"], "{component}");
        assert_eq!(c[component][0].pod_group, "job");
        assert_eq!(
            c[component][0].group_by_key_paths,
            [r#".metadata.labels["training.kubeflow.org/job-name"]"#]
        );
    }
}

#[test]
fn a_definition_without_gang_scheduling_has_no_candidates() {
    let d = catalog_def("apps-deployment-v1");
    let s = d.gang_structure().unwrap();
    assert!(s.candidates.is_none());
    let v = serde_json::to_value(&s).unwrap();
    assert!(v.get("candidates").is_none(), "{v}");
    assert!(v.get("hasScaleDefinition").is_some(), "{v}");
}

#[test]
fn subtree_scale_of_an_object_is_that_of_its_resolved_structure() {
    let d = catalog_def("jobset-x-k8s-io-jobset-v1alpha2");
    let obj = common::example_jobset();
    let resolved = d.resolve(&obj).unwrap();
    for (component, instance) in [
        ("jobset", None),
        ("replicatedjob", None),
        ("replicatedjob", Some("leader")),
        ("replicatedjob", Some("worker")),
    ] {
        assert_eq!(
            d.subtree_scale_of(&obj, component, instance).unwrap(),
            d.subtree_scale(&resolved, component, instance).unwrap(),
            "{component} {instance:?}"
        );
    }
    for (component, instance) in [
        ("nope", None),
        ("replicatedjob", Some("")),
        ("replicatedjob", Some("x")),
    ] {
        let e = d.subtree_scale_of(&obj, component, instance).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Usage, "{component} {instance:?}: {e}");
    }
    assert_eq!(
        d.subtree_scale_of(&obj, "nope", Some(""))
            .unwrap_err()
            .message(),
        "instance id is empty"
    );
}

#[test]
fn subtree_scale_of_is_one_call_within_the_definitions_limits() {
    let d = thing_def(
        "      scaleDefinition: {replicasPath: .spec.replicas}\n",
        "",
        "",
    )
    .with_limits(Limits {
        max_steps: 3,
        ..Limits::default()
    });
    let e = d
        .subtree_scale_of(&common::thing(json!({"replicas": 2})), "thing", None)
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit, "{e}");
}

/// A definition whose root is the member of `groups` pod groups above
/// `children` children: each child's candidate list holds every group.
fn wide(children: usize, groups: usize) -> String {
    let mut kids = String::new();
    for i in 0..children {
        kids.push_str(&format!("      - {{name: c{i}, ownerRef: thing}}\n"));
    }
    let mut gs =
        String::from("  optimizationInstructions:\n    gangScheduling:\n      podGroups:\n");
    for i in 0..groups {
        gs.push_str(&format!(
            "        - {{name: g{i}, members: [{{componentName: thing}}]}}\n"
        ));
    }
    common::thing_karta("wide", common::THING_STATUS, &kids, &gs)
}

#[test]
fn candidate_lists_are_charged_to_the_memory_budget() {
    // 1,000 children under 5,000 groups: 5,000,000 candidate pairs (80 MB),
    // more than the default 64 MiB a call may allocate.
    let e = CompiledDefinition::from_text(&wide(1000, 5000), Limits::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit, "{e}");
    assert_eq!(e.limit(), Some("maxMemoryBytes"), "{e}");
    // The structure is charged too: every candidate written out.
    let small = CompiledDefinition::from_text(&wide(100, 100), Limits::default()).unwrap();
    assert_eq!(
        small.gang_structure().unwrap().candidates.unwrap()["c7"].len(),
        100
    );
    let tight = small.with_limits(Limits {
        max_memory_bytes: 100_000,
        ..Limits::default()
    });
    let e = tight.gang_structure().unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit, "{e}");
}

#[test]
fn compile_refuses_definitions_the_reference_would_use_unvalidated() {
    // The reference's component factory runs a definition as it is given
    // (only its tree builder, CLI and webhook validate): this one, without
    // a root status definition and with a denied builtin in a pod path,
    // would extract pods with `range`. Compiling validates, always.
    let text = r#"
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: broken}
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: example.com, version: v1, kind: Job}
      specDefinition: {podTemplateSpecPath: '.spec | range(1)'}
"#;
    let e = CompiledDefinition::from_text(text, Limits::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Validation, "{e}");
    let codes: Vec<_> = e.findings().iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["root-status-definition-missing", "jq-denied"]);
}

#[test]
fn subtree_scales_saturate_instead_of_wrapping() {
    // Three levels of 2^31 - 1: the reference's int32 product wraps; ours
    // stops at the largest 64-bit integer.
    let d = thing_def(
        "      scaleDefinition: {replicasPath: .spec.n}\n",
        "      - name: mid\n        ownerRef: thing\n        scaleDefinition: {replicasPath: .spec.n}\n      - name: leaf\n        ownerRef: mid\n        scaleDefinition: {replicasPath: .spec.n}\n",
        "",
    );
    let obj = common::thing(json!({"n": i32::MAX}));
    assert_eq!(
        d.subtree_scale_of(&obj, "mid", None).unwrap(),
        i64::from(i32::MAX) * i64::from(i32::MAX)
    );
    assert_eq!(d.subtree_scale_of(&obj, "thing", None).unwrap(), i64::MAX);
}
