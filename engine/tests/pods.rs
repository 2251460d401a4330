//! Pod attribution, live state, and gang scheduling through the Rust API.
//! The reference's edge cases 24-37 are conformance cases
//! (`conformance/cases/edge-cases.yaml`, `edge-cases/edge-NN-*`), run by every
//! runtime; what stays here is what the suite cannot express (the
//! `subtree_scale` call, the example files, finding wording).

mod common;

use common::{catalog_def, pod, thing};
use serde_json::{Value, json};
use workload_lens::CompiledDefinition;

fn example() -> (std::sync::Arc<CompiledDefinition>, Value, Vec<Value>) {
    (
        catalog_def("jobset-x-k8s-io-jobset-v1alpha2"),
        common::example_jobset(),
        common::example_jobset_pods(),
    )
}

#[test]
fn example_pods_land_under_their_roles() {
    let (d, obj, pods) = example();
    let a = d.attribute_pods(Some(&obj), &pods).unwrap();
    let got: Vec<_> = a
        .pods
        .iter()
        .map(|p| {
            (
                p.component.as_deref(),
                p.instance.as_deref(),
                p.replica_key.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (Some("replicatedjob"), Some("leader"), Some("0")),
            (Some("replicatedjob"), Some("worker"), Some("0")),
            (Some("replicatedjob"), Some("worker"), Some("1")),
        ]
    );
    assert!(a.unattributed.is_empty());
    assert_eq!(a.pods[2].phase, "Pending");
    assert_eq!(a.pods[2].reason.as_deref(), Some("Unschedulable"));
    assert_eq!(a.pods[2].node, None);
    assert_eq!(a.pods[1].resources.gpu, 4);

    let r = d.resolve_with_pods(&obj, &pods).unwrap();
    let rj = r.component("replicatedjob").unwrap();
    let leader = rj.instances[0].live.as_ref().unwrap();
    let worker = rj.instances[1].live.as_ref().unwrap();
    assert_eq!((leader.ready, leader.pods.len()), (1, 1));
    assert_eq!((worker.ready, worker.pods.len()), (1, 2));
    assert_eq!(worker.nodes, ["gpu-node-02"]);
    assert_eq!(r.unattributed_pods.as_deref(), Some(&[][..]));
    insta::assert_json_snapshot!("example_attribution", a);
}

#[test]
fn example_gang_is_the_whole_jobset() {
    let (d, obj, pods) = example();
    let g = d.gang_groups(&obj, &pods).unwrap();
    assert_eq!(g.groups.len(), 1);
    let group = &g.groups[0];
    assert_eq!(
        group.name,
        "pg-6f1c2a4e-8a8e-4c61-9d0e-2f7b5c1d9a10-llama-pretrain"
    );
    assert_eq!(group.min_member, 3);
    assert_eq!(group.members.len(), 3);
    assert_eq!(g.pods[0].effective_component.as_deref(), Some("jobset"));
    insta::assert_json_snapshot!("example_gang", g);
}

fn def(children: &str, gang: &str) -> CompiledDefinition {
    common::thing_def("", children, gang)
}

const TWO_ROLES: &str = r#"
      - name: master
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.master.template}
        scaleDefinition: {replicasPath: '.spec.master.replicas // 1'}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["role"]', value: master}
      - name: worker
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.worker.template}
        scaleDefinition: {replicasPath: '.spec.worker.replicas // 1'}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["role"]', value: worker}
"#;

#[test]
fn match_labels_and_ambiguity_are_findings() {
    let d = def(
        r#"
      - name: broker
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.a}
        podSelector:
          componentTypeSelector: {matchLabels: {app: pulsar, component: broker}}
      - name: proxy
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.b}
        podSelector:
          componentTypeSelector: {matchLabels: {app: pulsar, component: proxy}}
      - name: anyproxy
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.c}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels.component', value: proxy}
"#,
        "",
    );
    let a = d
        .attribute_pods(
            None,
            &[
                pod("b", json!({"app": "pulsar", "component": "broker"})),
                pod("p", json!({"app": "pulsar", "component": "proxy"})),
                pod("n", json!({"app": "other"})),
            ],
        )
        .unwrap();
    assert_eq!(a.pods[0].component.as_deref(), Some("broker"));
    assert_eq!(a.pods[1].component.as_deref(), Some("proxy"));
    assert_eq!(a.pods[1].findings[0].code, "ambiguous-component");
    assert_eq!(a.pods[2].component, None);
    assert_eq!(a.pods[2].findings[0].code, "no-component");
    assert_eq!(a.unattributed, ["n"]);
}

fn subtree(
    d: &CompiledDefinition,
    w: &Value,
    c: &str,
    i: Option<&str>,
) -> Result<i64, workload_lens::Error> {
    let r = d.resolve(w)?;
    d.subtree_scale(&r, c, i)
}

#[test]
fn edge_37_empty_instance_id_is_an_error() {
    let d = def(TWO_ROLES, "");
    let w = thing(json!({}));
    assert_eq!(
        subtree(&d, &w, "worker", Some("")).unwrap_err().message(),
        "instance id is empty"
    );
}

#[test]
fn pod_group_v2_with_subgroups() {
    let d = def(
        TWO_ROLES,
        r#"  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: main
        topology: {topologyName: dc, requiredTopologyLevel: rack, preferredTopologyLevel: host}
        subGroups:
          - componentName: master
          - componentName: worker
            topology: {topologyName: dc, requiredTopologyLevel: host, preferredTopologyLevel: host}
"#,
    );
    let w = thing(json!({"master": {"template": {}}, "worker": {"template": {}, "replicas": 4}}));
    let g = d
        .gang_groups(
            &w,
            &[
                pod("m", json!({"role": "master"})),
                pod("w0", json!({"role": "worker"})),
            ],
        )
        .unwrap();
    let group = &g.groups[0];
    assert_eq!(group.name, "pg-u1-main");
    assert_eq!(group.min_sub_groups, Some(2));
    assert_eq!(group.min_member, 0);
    assert_eq!(group.sub_groups[0].min_member, 1);
    assert_eq!(group.sub_groups[1].min_member, 4);
    assert_eq!(group.sub_groups[1].members, ["w0"]);
    assert_eq!(group.members, ["m", "w0"]);
}

#[test]
fn nearest_member_wins_and_ancestors_follow() {
    // master pods have their own member; worker pods fall back to the root's.
    let d = def(
        TWO_ROLES,
        r#"  optimizationInstructions:
    gangScheduling:
      podGroups:
        - name: masters
          members:
            - componentName: master
        - name: job
          members:
            - componentName: thing
              groupByKeyPaths: ['.metadata.labels["job"]']
"#,
    );
    let w = thing(json!({"master": {"template": {}}, "worker": {"template": {}, "replicas": 3}}));
    let g = d
        .gang_groups(
            &w,
            &[
                pod("m", json!({"role": "master", "job": "j"})),
                pod("w", json!({"role": "worker", "job": "j"})),
            ],
        )
        .unwrap();
    assert_eq!(g.pods[0].pod_group.as_deref(), Some("masters"));
    assert_eq!(g.pods[0].effective_component.as_deref(), Some("master"));
    assert_eq!(g.pods[1].pod_group.as_deref(), Some("job"));
    assert_eq!(g.pods[1].group_name.as_deref(), Some("pg-u1-j"));
    assert_eq!(
        g.groups
            .iter()
            .find(|x| x.pod_group == "job")
            .unwrap()
            .min_member,
        4
    );
}
