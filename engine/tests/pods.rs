//! Pod attribution, live state, and gang scheduling (edge cases 24-37 of the
//! reference semantics, named `edge_NN_*`).

mod common;

use common::{catalog_def, compile, pod, thing, thing_karta};
use serde_json::{Value, json};
use workload_lens::{CompiledDefinition, ErrorCode};

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
fn edge_24_selector_values_compare_as_strings() {
    let d = def(
        r#"
      - name: a
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.a}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["idx"]', value: "0"}
      - name: b
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.b}
        podSelector:
          componentTypeSelector: {keyPath: '.spec.priority', value: "0"}
"#,
        "",
    );
    let mut p = pod("p", json!({"idx": "0"}));
    p["spec"]["priority"] = json!(0);
    let a = d.attribute_pods(None, &[p]).unwrap();
    assert_eq!(a.pods[0].component.as_deref(), Some("a"));
    assert!(
        a.pods[0].findings.is_empty(),
        "the numeric 0 does not match \"0\""
    );
}

#[test]
fn edge_25_selector_without_value_matches_any_non_null() {
    let d = def(
        r#"
      - name: a
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.a}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["flag"] | . == "x"'}
      - name: b
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.b}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["other"]'}
"#,
        "",
    );
    let a = d
        .attribute_pods(None, &[pod("p", json!({"flag": "y"}))])
        .unwrap();
    assert_eq!(
        a.pods[0].component.as_deref(),
        Some("a"),
        "false is non-null"
    );
}

#[test]
fn edge_26_key_path_is_evaluated_whole() {
    // Deliberate difference: the reference evaluates `.a // (.b == "x")`.
    let d = def(
        r#"
      - name: a
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.a}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["a"] // .metadata.labels["b"]', value: x}
      - name: z
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.z}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["z"]'}
"#,
        "",
    );
    let a = d
        .attribute_pods(None, &[pod("p", json!({"a": "x"}))])
        .unwrap();
    assert_eq!(a.pods[0].component.as_deref(), Some("a"));
}

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

fn gang_def(member_extra: &str) -> CompiledDefinition {
    def(
        TWO_ROLES,
        &format!(
            r#"  optimizationInstructions:
    gangScheduling:
      podGroups:
        - name: job
          members:
            - componentName: thing
{member_extra}"#
        ),
    )
}

#[test]
fn edge_27_missing_group_key_is_an_error() {
    let d = gang_def("              groupByKeyPaths: ['.metadata.labels[\"job\"]']");
    let e = d
        .gang_groups(
            &thing(json!({"worker": {"template": {}}})),
            &[pod("w", json!({"role": "worker"}))],
        )
        .unwrap_err();
    assert!(e.message().contains("query result is empty <nil>"), "{e}");
    assert!(
        e.message().starts_with("failed to extract group key"),
        "{e}"
    );
}

#[test]
fn edge_28_null_filter_is_an_error() {
    let d = gang_def("              filters: ['.metadata.labels[\"x\"]']");
    let e = d
        .gang_groups(
            &thing(json!({"worker": {"template": {}}})),
            &[pod("w", json!({"role": "worker"}))],
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::JqRuntime);
    assert!(e.message().contains("failed to evaluate filters"), "{e}");
}

#[test]
fn edge_29_only_boolean_true_passes_a_filter() {
    let d = gang_def("              filters: ['.metadata.labels[\"x\"]']");
    let g = d
        .gang_groups(
            &thing(json!({"worker": {"template": {}}})),
            &[pod("w", json!({"role": "worker", "x": "yes"}))],
        )
        .unwrap();
    assert!(g.groups.is_empty());
    assert_eq!(g.pods[0].findings[0].code, "no-pod-group");
    let d = gang_def("              filters: ['.metadata.labels[\"x\"] == \"yes\"']");
    let g = d
        .gang_groups(
            &thing(json!({"worker": {"template": {}}})),
            &[pod("w", json!({"role": "worker", "x": "yes"}))],
        )
        .unwrap();
    assert_eq!(g.groups.len(), 1);
}

#[test]
fn edge_30_single_pod_bearing_component_takes_every_pod() {
    let d = def(
        r#"
      - name: agent
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.t}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["never"]'}
"#,
        "",
    );
    let a = d
        .attribute_pods(None, &[pod("p", json!({"unrelated": "1"}))])
        .unwrap();
    assert_eq!(a.pods[0].component.as_deref(), Some("agent"));
}

const MULTI: &str = r#"
      - name: group
        ownerRef: thing
        instanceIdPath: '.spec.groups[].name'
        specDefinition: {podTemplateSpecPath: '.spec.groups[].template'}
        scaleDefinition: {replicasPath: '.spec.groups[].replicas'}
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.labels["g"]'}
      - name: other
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.other}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["other"]'}
"#;

#[test]
fn edge_31_multi_instance_without_instance_selector_is_a_finding() {
    let d = def(
        r#"
      - name: group
        ownerRef: thing
        instanceIdPath: '.spec.groups[].name'
        specDefinition: {podTemplateSpecPath: '.spec.groups[].template'}
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.labels["g"]'}
"#,
        "",
    );
    // Validation requires an instance selector with instanceIdPath, so the
    // runtime case cannot be built from a valid definition; a pod without
    // the instance label is the nearest: it has no instance.
    let w =
        thing(json!({"groups": [{"name": "a", "template": {}}, {"name": "b", "template": {}}]}));
    let a = d.attribute_pods(Some(&w), &[pod("p", json!({}))]).unwrap();
    assert_eq!(a.pods[0].instance, None);
    assert_eq!(a.pods[0].findings[0].code, "no-instance");
}

#[test]
fn edge_32_unknown_instance_id() {
    let d = def(MULTI, "");
    let w =
        thing(json!({"groups": [{"name": "a", "template": {}}, {"name": "b", "template": {}}]}));
    let a = d
        .attribute_pods(Some(&w), &[pod("p", json!({"g": "c"}))])
        .unwrap();
    assert_eq!(a.pods[0].component, None, "two leaves: selectors decide");
    let d = def(
        r#"
      - name: group
        ownerRef: thing
        instanceIdPath: '.spec.groups[].name'
        specDefinition: {podTemplateSpecPath: '.spec.groups[].template'}
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.labels["g"]'}
"#,
        "",
    );
    let a = d
        .attribute_pods(Some(&w), &[pod("p", json!({"g": "c"}))])
        .unwrap();
    assert_eq!(a.pods[0].findings[0].code, "unknown-instance");
    assert_eq!(
        a.pods[0].findings[0].message,
        "could not match instance id \"c\". existing instance ids [a b]"
    );
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
fn edge_33_34_parent_times_children_or_their_sum() {
    let w = thing(
        json!({"master": {"template": {}, "replicas": 1}, "worker": {"template": {}, "replicas": 4}}),
    );
    // Edge case 34: no root scale, children 4 and 1 -> 5.
    assert_eq!(subtree(&def(TWO_ROLES, ""), &w, "thing", None).unwrap(), 5);
    // Edge case 33: root 2 over children 4 and 1 -> 10.
    let scaled = compile(&thing_karta(
        "x",
        &format!(
            "{}      scaleDefinition: {{replicasPath: .spec.replicas}}",
            common::THING_STATUS
        ),
        TWO_ROLES,
        "",
    ));
    let mut w2 = w.clone();
    w2["spec"]["replicas"] = json!(2);
    assert_eq!(subtree(&scaled, &w2, "thing", None).unwrap(), 10);
}

#[test]
fn edge_35_children_without_scale_use_the_parent() {
    let d = common::thing_def(
        "",
        r#"
      - name: group
        ownerRef: thing
        scaleDefinition: {replicasPath: .spec.size}
      - name: member
        ownerRef: group
        specDefinition: {podTemplateSpecPath: .spec.template}
"#,
        "",
    );
    let w = thing(json!({"size": 3, "template": {}}));
    assert_eq!(subtree(&d, &w, "group", None).unwrap(), 3);
}

#[test]
fn edge_36_no_scales_count_leaves_and_instances() {
    let d = def(
        r#"
      - name: master
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.master}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["m"]'}
      - name: worker
        ownerRef: thing
        instanceIdPath: '.spec.workers[].name'
        specDefinition: {podTemplateSpecPath: '.spec.workers[].template'}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["w"]'}
          componentInstanceSelector: {idPath: '.metadata.labels["w"]'}
"#,
        "",
    );
    let w = thing(
        json!({"master": {}, "workers": [{"name": "a", "template": {}}, {"name": "b", "template": {}}]}),
    );
    assert_eq!(subtree(&d, &w, "thing", None).unwrap(), 3);
    assert_eq!(subtree(&d, &w, "worker", Some("a")).unwrap(), 1);
    assert_eq!(
        subtree(&d, &w, "worker", Some("zz")).unwrap_err().message(),
        "instance id zz not found"
    );
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
