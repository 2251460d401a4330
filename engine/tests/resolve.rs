//! Resolution: extraction, instances, scale, pod styles, resources, status,
//! and the edge cases of the reference semantics (named `edge_NN_*` after the
//! numbered catalogue of the semantics document).

mod common;

use common::{
    compile, engine, example_jobset, gpu_template as template, thing as obj, thing_def, thing_karta,
};
use serde_json::{Value, json};
use workload_lens::{CompiledDefinition, Engine, ErrorCode, Resolved, Scale};

/// A definition for `example.com/v1 Thing` with the given root fields and
/// children (YAML fragments, indented for their place).
fn def(root_extra: &str, children: &str) -> CompiledDefinition {
    thing_def(root_extra, children, "")
}

fn obj_status(spec: Value, status: Value) -> Value {
    let mut o = obj(spec);
    o["status"] = status;
    o
}

const WORKERS: &str = r#"
      - name: worker
        ownerRef: thing
        instanceIdPath: .spec.groups[].name
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.labels["group"]'}
        specDefinition:
          podTemplateSpecPath: .spec.groups[].template
        scaleDefinition:
          replicasPath: .spec.groups[].replicas
"#;

fn instance_ids(r: &Resolved, comp: &str) -> Vec<String> {
    r.component(comp)
        .map(|c| c.instances.iter().map(|i| i.id.clone()).collect())
        .unwrap_or_default()
}

#[test]
fn example_jobset_resolves_to_leader_worker_and_12_gpus() {
    let r = engine().resolve(&example_jobset()).unwrap().into_owned();
    assert_eq!(r.definition.name, "jobset-x-k8s-io-jobset-v1alpha2");
    assert_eq!(instance_ids(&r, "replicatedjob"), ["leader", "worker"]);
    let rj = r.component("replicatedjob").unwrap();
    assert_eq!(rj.instances[0].desired_replicas, 1);
    assert_eq!(rj.instances[1].desired_replicas, 2);
    assert_eq!(rj.instances[0].pod_resources.as_ref().unwrap().gpu, 4);
    assert_eq!(rj.instances[1].pod_resources.as_ref().unwrap().gpu, 4);
    assert_eq!(r.totals.pods, 3);
    assert_eq!(r.totals.resources.gpu, 12);
    assert_eq!(r.status.as_ref().unwrap().matched_statuses, ["Running"]);
    insta::assert_json_snapshot!("example_jobset", r);
}

#[test]
fn jobset_without_parallelism_defaults_to_one() {
    let o = json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"},
        "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": template(2)}}}]}});
    let r = engine().resolve(&o).unwrap();
    assert_eq!(r.totals.pods, 1);
    assert_eq!(r.totals.resources.gpu, 2);
}

#[test]
fn multi_instance_zip_and_totals() {
    let d = def("", WORKERS);
    let r = d
        .resolve(&obj(json!({"groups": [
            {"name": "a", "replicas": 2, "template": template(1)},
            {"name": "b", "replicas": 3, "template": template(2)}
        ]})))
        .unwrap()
        .into_owned();
    assert_eq!(instance_ids(&r, "worker"), ["a", "b"]);
    assert_eq!(r.totals.pods, 5);
    assert_eq!(r.totals.resources.gpu, 2 + 6);
    let w = r.component("worker").unwrap();
    assert_eq!(w.owner.as_deref(), Some("thing"));
    assert!(w.multi_instance && w.has_pod_definition);
    assert_eq!(&*r.component("thing").unwrap().children, ["worker"]);
}

#[test]
fn edge_01_map_keyed_instances_iterate_in_sorted_order() {
    let d = def(
        "",
        r#"
      - name: svc
        ownerRef: thing
        instanceIdPath: .spec.services | to_entries[] | .key
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.labels["svc"]'}
        specDefinition:
          podSpecPath: .spec.services | .[] | .podSpec
        scaleDefinition:
          replicasPath: .spec.services[] | .replicas
"#,
    );
    let spec = |g: u32| json!({"containers": [{"name": "m", "resources": {"requests": {"nvidia.com/gpu": g}}}]});
    let r = d
        .resolve(&obj(json!({"services": {
            "b": {"replicas": 1, "podSpec": spec(8)},
            "a": {"replicas": 2, "podSpec": spec(1)}
        }})))
        .unwrap()
        .into_owned();
    assert_eq!(instance_ids(&r, "svc"), ["a", "b"]);
    let s = r.component("svc").unwrap();
    assert_eq!(s.instances[0].desired_replicas, 2);
    assert_eq!(s.instances[0].pod_resources.as_ref().unwrap().gpu, 1);
    assert_eq!(s.instances[1].pod_resources.as_ref().unwrap().gpu, 8);
}

#[test]
fn edge_02_null_instance_id_is_an_error() {
    let d = def("", WORKERS);
    let e = d
        .resolve(&obj(
            json!({"groups": [{"name": "w1", "template": template(1)}, {"template": template(1)}]}),
        ))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Conversion);
    assert!(e.message().contains("empty string values [w1,]"), "{e}");
    assert_eq!(e.location().component.as_deref(), Some("worker"));
    assert_eq!(
        e.location().field.as_deref(),
        Some("spec.structureDefinition.childComponents[0].instanceIdPath")
    );
}

#[test]
fn edge_03_numeric_instance_id_is_a_conversion_error() {
    let d = def("", WORKERS);
    let e = d
        .resolve(&obj(
            json!({"groups": [{"name": 1, "template": template(1)}]}),
        ))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Conversion);
    assert!(e.message().contains("number (1)"), "{e}");
}

#[test]
fn edge_04_zero_instances() {
    let d = def("", WORKERS);
    let r = d.resolve(&obj(json!({"groups": []}))).unwrap().into_owned();
    assert!(r.component("worker").unwrap().instances.is_empty());
    assert_eq!(r.totals.pods, 0);
}

#[test]
fn edge_05_single_instance_path_without_output_is_a_count_mismatch() {
    let d = def(
        r#"      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: '.spec.x[]'}"#,
        "",
    );
    let e = d
        .resolve(&obj(json!({"x": [], "template": template(1)})))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::CountMismatch);
    assert_eq!(
        e.message(),
        "instance ids count (1) does not match results count (0)"
    );
}

#[test]
fn edge_06_missing_replicas_field_defaults_to_one_pod() {
    let d = def(
        r#"      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: .spec.replicas}"#,
        "",
    );
    let r = d
        .resolve(&obj(json!({"template": template(1)})))
        .unwrap()
        .into_owned();
    let i = &r.components[0].instances[0];
    assert_eq!(i.scale.unwrap().replicas, None);
    assert_eq!(i.desired_replicas, 1);
}

fn replicas_of(v: Value) -> Result<Option<i32>, workload_lens::Error> {
    let d = def(
        r#"      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: .spec.replicas}"#,
        "",
    );
    d.resolve(&obj(json!({"template": template(1), "replicas": v})))
        .map(|r| r.components[0].instances[0].scale.unwrap().replicas)
}

#[test]
fn edge_07_numeric_string_replicas_are_accepted() {
    assert_eq!(replicas_of(json!("3")).unwrap(), Some(3));
    let e = replicas_of(json!("3 ")).unwrap_err();
    assert_eq!(
        e.message(),
        "replicas value \"3 \" at index 0 is not a number"
    );
}

#[test]
fn edge_08_fractional_huge_and_negative_replicas() {
    assert_eq!(
        replicas_of(json!(2.5)).unwrap_err().code(),
        ErrorCode::Conversion
    );
    assert_eq!(
        replicas_of(json!(3e10)).unwrap_err().code(),
        ErrorCode::Conversion
    );
    assert_eq!(replicas_of(json!(-1)).unwrap(), Some(-1));
    assert_eq!(replicas_of(json!(4.0)).unwrap(), Some(4));
}

#[test]
fn edge_09_empty_scale_definition_means_no_scale() {
    // Deliberate difference: the reference fails with a count mismatch.
    let d = def(
        r#"      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {}"#,
        "",
    );
    let r = d
        .resolve(&obj(json!({"template": template(1)})))
        .unwrap()
        .into_owned();
    assert_eq!(r.components[0].instances[0].scale, None);
    assert_eq!(r.totals.pods, 1);
}

#[test]
fn edge_10_fragmented_longest_list_wins() {
    let d = def(
        "",
        r#"
      - name: part
        ownerRef: thing
        instanceIdPath: '.spec.parts[].name'
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.labels["p"]'}
        specDefinition:
          fragmentedPodSpecDefinition:
            labelsPath: '.spec.parts[].labels'
            schedulerNamePath: '.spec.scheduler'
            resourcesPath: '.spec.parts[].resources'
"#,
    );
    let r = d
        .resolve(&obj(json!({"scheduler": "kai", "parts": [
            {"name": "a", "labels": {"x": "1"}, "resources": {"limits": {"nvidia.com/gpu": 2}}},
            {"name": "b", "labels": {"x": "2"}, "resources": {"requests": {"cpu": "500m"}}}
        ]})))
        .unwrap()
        .into_owned();
    let p = r.component("part").unwrap();
    let a = p.instances[0].fragments.as_ref().unwrap();
    assert_eq!(a["schedulerName"], json!("kai"));
    let b = p.instances[1].fragments.as_ref().unwrap();
    assert!(!b.contains_key("schedulerName"));
    assert_eq!(b["labels"], json!({"x": "2"}));
    assert_eq!(p.instances[0].pod_resources.as_ref().unwrap().gpu, 2);
    assert_eq!(
        p.instances[1].pod_resources.as_ref().unwrap().cpu_millis,
        500
    );
    // The assembled template carries the fragments.
    let t = p.instances[0].pod_template().unwrap();
    assert_eq!(t["spec"]["schedulerName"], json!("kai"));
    assert_eq!(t["metadata"]["labels"], json!({"x": "1"}));
    assert_eq!(t["spec"]["containers"][0]["name"], json!("main"));
}

fn status_def(mappings: &str, cond_names: &str) -> CompiledDefinition {
    let root = format!(
        r#"      specDefinition: {{podTemplateSpecPath: .spec.template}}
      statusDefinition:
        phaseDefinition: {{path: .status.phase}}
        conditionsDefinition: {{path: .status.conditions{cond_names}}}
        statusMappings:
{mappings}
"#
    );
    compile(&thing_karta("example-com-thing-v1", &root, "", ""))
}

fn matched(d: &CompiledDefinition, status: Value) -> Result<Vec<String>, workload_lens::Error> {
    d.status(&obj_status(json!({}), status)).map(|s| {
        s.map(|s| s.matched_statuses.iter().map(|x| x.to_string()).collect())
            .unwrap_or_default()
    })
}

#[test]
fn edge_11_null_phase_is_empty_and_never_matches() {
    let d = status_def("          running: [{byPhase: Running}]", "");
    let s = d
        .status(&obj_status(json!({}), json!({"phase": null})))
        .unwrap()
        .unwrap();
    assert_eq!(s.phase.as_deref(), Some(""));
    assert_eq!(s.matched_statuses, ["Undefined"]);
    let s = d.status(&obj(json!({}))).unwrap().unwrap();
    assert_eq!(s.phase.as_deref(), Some(""));
}

#[test]
fn edge_12_numeric_phase_is_an_error() {
    let d = status_def("          running: [{byPhase: Running}]", "");
    let e = d
        .status(&obj_status(json!({}), json!({"phase": 3})))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Conversion);
    assert!(e.message().contains("phase"), "{e}");
}

#[test]
fn edge_13_conditions_must_be_arrays() {
    let d = compile(&thing_karta(
        "x",
        r#"      statusDefinition:
        conditionsDefinition: {path: '.status.conditions[]'}
        statusMappings:
          running: [{byConditions: [{type: Ready, status: "True"}]}]"#,
        "",
        "",
    ));
    let e = d
        .status(&obj_status(
            json!({}),
            json!({"conditions": [{"type": "Ready", "status": "True"}]}),
        ))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Conversion);
}

#[test]
fn edge_14_null_conditions_are_none() {
    let d = status_def("          running: [{byConditions: [{type: Ready}]}]", "");
    assert_eq!(
        matched(&d, json!({"conditions": null})).unwrap(),
        ["Undefined"]
    );
}

#[test]
fn edge_15_duplicate_condition_types_last_wins() {
    let d = status_def(
        "          running: [{byConditions: [{type: Ready, status: \"True\"}]}]",
        "",
    );
    let st = json!({"conditions": [{"type": "Ready", "status": "True"}, {"type": "Ready", "status": "False"}]});
    assert_eq!(matched(&d, st).unwrap(), ["Undefined"]);
    let st = json!({"conditions": [{"type": "Ready", "status": "False"}, {"type": "Ready", "status": "True"}]});
    assert_eq!(matched(&d, st).unwrap(), ["Running"]);
}

#[test]
fn edge_16_boolean_condition_status_counts_as_absent() {
    let d = status_def(
        "          running: [{byConditions: [{type: Ready, status: \"True\"}]}]",
        "",
    );
    assert_eq!(
        matched(
            &d,
            json!({"conditions": [{"type": "Ready", "status": true}]})
        )
        .unwrap(),
        ["Undefined"]
    );
    // Without an expected status, presence of the type is enough.
    let d = status_def("          running: [{byConditions: [{type: Ready}]}]", "");
    assert_eq!(
        matched(
            &d,
            json!({"conditions": [{"type": "Ready", "status": true}]})
        )
        .unwrap(),
        ["Running"]
    );
}

#[test]
fn edge_17_reason_needs_a_reason_field() {
    // We apply the CRD defaults, so an omitted reasonFieldName reads `reason`.
    let d = status_def(
        "          failed: [{byConditions: [{type: Ready, status: \"False\", reason: Crash}]}]",
        "",
    );
    let st = json!({"conditions": [{"type": "Ready", "status": "False", "reason": "Crash"}]});
    assert_eq!(matched(&d, st.clone()).unwrap(), ["Failed"]);
    // Pointing the reason field elsewhere means the reason is never found.
    let d = status_def(
        "          failed: [{byConditions: [{type: Ready, status: \"False\", reason: Crash}]}]",
        ", reasonFieldName: why",
    );
    assert_eq!(matched(&d, st).unwrap(), ["Undefined"]);
}

fn expr_def(expr: &str, expected: &str) -> CompiledDefinition {
    status_def(
        &format!(
            "          running: [{{byExpression: {{expression: '{expr}', expectedResult: '{expected}'}}}}]"
        ),
        "",
    )
}

#[test]
fn edge_18_null_expression_matches_null_text() {
    assert_eq!(
        matched(&expr_def(".status.nothing", "null"), json!({})).unwrap(),
        ["Running"]
    );
}

#[test]
fn edge_19_string_true_and_boolean_true_both_match() {
    assert_eq!(
        matched(&expr_def("\"true\"", "true"), json!({})).unwrap(),
        ["Running"]
    );
    assert_eq!(
        matched(&expr_def("1 == 1", "true"), json!({})).unwrap(),
        ["Running"]
    );
}

#[test]
fn edge_20_only_the_first_output_counts() {
    assert_eq!(
        matched(&expr_def("false, true", "true"), json!({})).unwrap(),
        ["Undefined"]
    );
}

#[test]
fn edge_21_no_output_is_no_match() {
    assert_eq!(
        matched(&expr_def("empty", "true"), json!({})).unwrap(),
        ["Undefined"]
    );
}

#[test]
fn edge_22_expression_error_fails_status_unless_short_circuited() {
    let e = matched(&expr_def(".status.x | tonumber", "1"), json!({"x": "abc"})).unwrap_err();
    assert_eq!(e.code(), ErrorCode::JqRuntime);
    assert!(
        e.message().starts_with("failed to evaluate byExpression"),
        "{e}"
    );
    // A failing byPhase earlier in the same matcher hides the error.
    let d = status_def(
        "          running: [{byPhase: Running, byExpression: {expression: '.status.x | tonumber', expectedResult: '1'}}]",
        "",
    );
    assert_eq!(
        matched(&d, json!({"x": "abc", "phase": "Pending"})).unwrap(),
        ["Undefined"]
    );
    // An earlier matcher of the same status that matched stops evaluation.
    let d = status_def(
        "          running: [{byPhase: Pending}, {byExpression: {expression: '.status.x | tonumber', expectedResult: '1'}}]",
        "",
    );
    assert_eq!(
        matched(&d, json!({"x": "abc", "phase": "Pending"})).unwrap(),
        ["Running"]
    );
}

#[test]
fn edge_23_nothing_matches_is_undefined() {
    let d = status_def("          running: [{byPhase: Running}]", "");
    assert_eq!(
        matched(&d, json!({"phase": "Weird"})).unwrap(),
        ["Undefined"]
    );
}

#[test]
fn statuses_come_in_reference_order_and_can_overlap() {
    let d = status_def(
        r#"          degraded: [{}]
          initializing: [{byPhase: Running}]
          running: [{byPhase: Running}]
          failed: [{byPhase: Nope}]
          resuming: [{byPhase: Running}]
          suspended: [{byConditions: [{type: Suspended, status: "True"}]}]"#,
        "",
    );
    assert_eq!(
        matched(&d, json!({"phase": "Running"})).unwrap(),
        ["Resuming", "Running", "Initializing", "Degraded"]
    );
}

#[test]
fn absent_only_when_nothing_of_the_instance_exists() {
    // A PyTorchJob-like object without its master, written as the catalog
    // writes it: the template and the count are both null when the part is
    // missing, so the master is absent and has no pods.
    let d = def(
        "",
        r#"
      - name: master
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.master.template}
        scaleDefinition:
          replicasPath: 'if .spec.master == null then null else (.spec.master.replicas // 1) end'
          minReplicasPath: .spec.master.minReplicas
          maxReplicasPath: .spec.master.maxReplicas
      - name: worker
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.worker.template}
        scaleDefinition: {replicasPath: '.spec.worker.replicas // 1'}
"#,
    );
    let r = d
        .resolve(&obj(
            json!({"worker": {"replicas": 4, "template": template(8)}}),
        ))
        .unwrap()
        .into_owned();
    let m = &r.component("master").unwrap().instances[0];
    assert!(!m.present);
    assert_eq!(m.desired_replicas, 0);
    assert_eq!(m.scale, Some(Scale::default()));
    assert_eq!(r.totals.pods, 4);
    assert_eq!(r.totals.resources.gpu, 32);
    // Any one scale path that yields a count makes it present.
    for (field, want) in [("replicas", 2), ("minReplicas", 3), ("maxReplicas", 1)] {
        let r = d
            .resolve(&obj(
                json!({"master": {field: want}, "worker": {"template": template(8)}}),
            ))
            .unwrap()
            .into_owned();
        let m = &r.component("master").unwrap().instances[0];
        assert!(m.present, "{field}");
        // `.spec.master.replicas // 1` once the master exists.
        let desired = if field == "replicas" { want } else { 1 };
        assert_eq!(m.desired_replicas, desired, "{field}");
        assert_eq!(m.pod_template(), None, "{field}");
        assert_eq!(m.pod_resources, None, "{field}");
        assert_eq!(r.totals.pods, 1 + desired, "{field}");
    }
}

#[test]
fn a_count_without_a_template_is_present() {
    // Reference-style definitions: parts that declare only a count (a Milvus
    // component, an in-cluster dependency) and a leader whose template is
    // omitted. Desired replicas are replicas, else min, else 1, as the
    // reference counts them; the reference's `// 1` on a missing part (its
    // "phantom replica") is counted too, since the count says it exists.
    let d = def(
        "",
        r#"
      - name: proxy
        ownerRef: thing
        specDefinition:
          fragmentedPodSpecDefinition:
            resourcesPath: .spec.components.proxy.resources
            imagePath: .spec.components.proxy.image
        scaleDefinition: {replicasPath: .spec.components.proxy.replicas}
      - name: broker
        ownerRef: thing
        specDefinition:
          fragmentedPodSpecDefinition:
            resourcesPath: .spec.dependencies.pulsar.broker.resources
        scaleDefinition: {minReplicasPath: .spec.dependencies.pulsar.broker.replicaCount}
      - name: leader
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.leaderTemplate}
        scaleDefinition: {replicasPath: '.spec.master.replicas // 1'}
      - name: labelled
        ownerRef: thing
        specDefinition:
          podSpecPath: .spec.labelled.spec
          metadataPath: .spec.labelled.metadata
      - name: missing
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.missing.template}
        scaleDefinition: {replicasPath: .spec.missing.replicas}
"#,
    );
    let r = d
        .resolve(&obj(json!({
            "components": {"proxy": {"replicas": 3}},
            "dependencies": {"pulsar": {"broker": {"replicaCount": 2}}},
            "labelled": {"metadata": {"labels": {"a": "b"}}},
        })))
        .unwrap()
        .into_owned();
    let got: Vec<(&str, bool, u64)> = r
        .components
        .iter()
        .filter(|c| !c.root)
        .map(|c| {
            let i = &c.instances[0];
            (&*c.name, i.present, i.desired_replicas)
        })
        .collect();
    assert_eq!(
        got,
        [
            ("proxy", true, 3),
            ("broker", true, 2),
            ("leader", true, 1),
            ("labelled", true, 1),
            ("missing", false, 0),
        ]
    );
    assert_eq!(r.totals.pods, 7);
    assert_eq!(r.totals.resources.gpu, 0);
}

#[test]
fn pod_spec_with_metadata_path() {
    let d = def(
        "",
        r#"
      - name: predictor
        ownerRef: thing
        specDefinition:
          podSpecPath: .spec.predictor
          metadataPath: '{labels: .spec.predictorLabels}'
        scaleDefinition: {minReplicasPath: .spec.predictor.minReplicas, maxReplicasPath: .spec.predictor.maxReplicas}
"#,
    );
    let r = d
        .resolve(&obj(json!({"predictorLabels": {"app": "x"}, "predictor": {"minReplicas": 2, "maxReplicas": 5,
            "containers": [{"name": "kserve", "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "8Gi"}}}]}})))
        .unwrap().into_owned();
    let p = &r.component("predictor").unwrap().instances[0];
    assert_eq!(p.desired_replicas, 2, "minReplicas when replicas is absent");
    assert_eq!(p.scale.unwrap().max_replicas, Some(5));
    assert_eq!(
        p.pod_template().unwrap()["metadata"]["labels"]["app"],
        json!("x")
    );
    assert_eq!(
        p.pod_resources.as_ref().unwrap().memory_bytes,
        8 * 1024 * 1024 * 1024
    );
    assert_eq!(r.totals.resources.gpu, 2);
}

#[test]
fn invalid_objects_are_typed_errors() {
    let d = def("", WORKERS);
    for (o, msg) in [
        (json!([]), "expected an object"),
        (
            json!({"kind": "Thing", "metadata": {"name": "x"}}),
            "missing apiVersion",
        ),
        (
            json!({"apiVersion": "example.com/v1", "metadata": {"name": "x"}}),
            "missing kind",
        ),
        (
            json!({"apiVersion": "example.com/v1", "kind": "Thing"}),
            "missing metadata.name",
        ),
    ] {
        let e = d.resolve(&o).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidObject, "{o}");
        assert!(e.message().contains(msg), "{e}");
    }
    let e = d
        .resolve(&json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}}))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NoDefinition);
}

#[test]
fn other_versions_resolve_with_a_warning() {
    let d = def("", WORKERS);
    let mut o = obj(json!({"groups": []}));
    o["apiVersion"] = json!("example.com/v2");
    let r = d.resolve(&o).unwrap();
    assert_eq!(r.warnings.len(), 1);
}

#[test]
fn no_definition_for_gvk() {
    let e = engine()
        .resolve(
            &json!({"apiVersion": "example.com/v1", "kind": "Nope", "metadata": {"name": "x"}}),
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NoDefinition);
}

#[test]
fn user_definition_overrides_catalog() {
    let mut engine = Engine::new().unwrap();
    let text = include_str!("../../definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml")
        .replace("name: jobset-x-k8s-io-jobset-v1alpha2", "name: my-jobset");
    let added = engine.add_definitions(&text).unwrap();
    let names: Vec<&str> = added.iter().map(|d| d.name()).collect();
    assert_eq!(names, ["my-jobset"]);
    let r = engine.resolve(&example_jobset()).unwrap().into_owned();
    assert_eq!(r.definition.name, "my-jobset");
    assert_eq!(r.definition.origin.as_str(), "user");
}

#[test]
fn edge_43_output_limit_counts_outputs_beyond_the_maximum() {
    // The reference fails at exactly maxOutputs; we fail only beyond it.
    let d = def(
        "",
        r#"
      - name: w
        ownerRef: thing
        instanceIdPath: '.spec.ids[]'
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.name'}
"#,
    );
    let ids = |n: usize| obj(json!({"ids": (0..n).map(|i| format!("i{i}")).collect::<Vec<_>>()}));
    assert_eq!(
        d.resolve(&ids(1000))
            .unwrap()
            .component("w")
            .unwrap()
            .instances
            .len(),
        1000
    );
    let e = d.resolve(&ids(1001)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert_eq!(e.limit(), Some("maxOutputs"));
}

#[test]
fn hostile_expressions_stop_with_limit_errors() {
    let cases = [
        ("\"x\" * 1e9", "maxStringBytes"),
        (
            "[.spec.xs[] as $a | .spec.xs[] as $b | .spec.xs[] as $c | 1] | length",
            "maxCollectionLen",
        ),
        (
            "reduce (.spec.xs[] as $a | .spec.xs[] as $b | .spec.xs[] as $c | 1) as $x (0; . + 1)",
            "maxSteps",
        ),
        ("reduce .spec.xs[] as $x (\"ab\"; . + .)", "maxStringBytes"),
        ("reduce .spec.xs[] as $x (0; [.]) | tojson", "maxDepth"),
        ("reduce .spec.xs[] as $x (2; . * .)", "maxStringBytes"),
    ];
    for (expr, limit) in cases {
        let d = expr_def(expr, "x");
        let mut o = obj_status(json!({}), json!({}));
        o["spec"] = json!({"xs": (0..300).collect::<Vec<_>>()});
        let e = d.status(&o).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Limit, "{expr}: {e}");
        assert_eq!(e.limit(), Some(limit), "{expr}: {e}");
    }
}

#[test]
fn deep_input_is_a_limit_error() {
    let d = def("", WORKERS);
    let mut v = json!(1);
    for _ in 0..200 {
        v = json!([v]);
    }
    let e = d
        .resolve(&obj(json!({"groups": [], "deep": v})))
        .unwrap_err();
    assert_eq!(e.limit(), Some("maxDepth"));
}

#[test]
fn compiled_definitions_are_reusable_across_threads() {
    let engine = std::sync::Arc::new(Engine::new().unwrap());
    let text = include_str!("../../examples/jobset.yaml");
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let engine = engine.clone();
            std::thread::spawn(move || {
                (0..20)
                    .map(|_| {
                        let o = engine.read_object(text).unwrap();
                        engine.resolve(&o).unwrap().totals.resources.gpu
                    })
                    .sum::<u64>()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 20 * 12);
    }
}

#[test]
fn pod_spec_styles_keep_only_kubernetes_fields() {
    // KServe-like: the pod spec and the metadata share an object with the
    // CRD's own fields (minReplicas, ...), which the template must not show.
    let d = def(
        "",
        r#"
      - name: transformer
        ownerRef: thing
        specDefinition:
          podSpecPath: .spec.transformer
          metadataPath: .spec.transformer
        scaleDefinition: {minReplicasPath: .spec.transformer.minReplicas}
"#,
    );
    let r = d
        .resolve(&obj(
            json!({"transformer": {"minReplicas": 2, "labels": {"a": "b"},
            "containers": [{"name": "t", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}),
        ))
        .unwrap()
        .into_owned();
    let t = r.component("transformer").unwrap().instances[0]
        .pod_template()
        .unwrap()
        .into_owned();
    assert_eq!(t["metadata"], json!({"labels": {"a": "b"}}));
    assert!(t["spec"].get("minReplicas").is_none() && t["spec"].get("labels").is_none());
    assert_eq!(t["spec"]["containers"][0]["name"], json!("t"));
}

#[test]
fn fragment_resources_go_to_the_first_container_without_a_main_one() {
    let d = def(
        "",
        r#"
      - name: svc
        ownerRef: thing
        specDefinition:
          fragmentedPodSpecDefinition:
            resourcesPath: .spec.resources
            containersPath: .spec.sidecars
"#,
    );
    let r = d
        .resolve(&obj(json!({"resources": {"limits": {"nvidia.com/gpu": 4}}, "sidecars": [{"name": "a"}, {"name": "b"}]})))
        .unwrap().into_owned();
    assert_eq!(r.totals.resources.gpu, 4);
    let t = r.component("svc").unwrap().instances[0]
        .pod_template()
        .unwrap()
        .into_owned();
    assert_eq!(t["spec"]["containers"].as_array().unwrap().len(), 2);
}

#[test]
fn engine_limits_apply_to_the_catalog_without_refusing_it() {
    use workload_lens::{Engine, Limits};
    // A tight reading limit is for the user's objects: the bundled texts
    // still compile, and evaluate with the engine's limits.
    let limits = Limits {
        max_input_bytes: 100,
        max_steps: 5_000,
        max_expression_bytes: 8,
        ..Limits::default()
    };
    let engine = Engine::builder().limits(limits).build().unwrap();
    assert!(engine.definitions().len() > 30);
    let jobset = engine
        .definition("jobset-x-k8s-io-jobset-v1alpha2")
        .unwrap();
    assert_eq!(jobset.limits().max_steps, 5_000);
    assert_eq!(jobset.limits().max_input_bytes, 100);
    let e = engine
        .read_object(include_str!("../../examples/jobset.yaml"))
        .unwrap_err();
    assert_eq!(e.limit(), Some("maxInputBytes"));
    // The user's own definitions get every limit, expression size included.
    let mut engine = engine;
    let e = engine
        .add_definitions(include_str!("../../definitions/batch-job-v1.yaml"))
        .unwrap_err();
    assert_eq!(e.limit(), Some("maxInputBytes"));
}

/// `resolve_text` reads JSON by the JSON reader's fast path and YAML by
/// the YAML reader: both resolve as the value itself does; a text that is
/// no object keeps the reader's error (the text `null` is no document, as
/// before).
#[test]
fn resolve_text_reads_json_and_yaml_as_the_value() {
    let obj = example_jobset();
    let def = engine().definition_for(&obj).expect("a JobSet definition");
    let want = serde_json::to_value(def.resolve(&obj).expect("resolves")).unwrap();
    let yaml = include_str!("../../examples/jobset.yaml");
    for text in [
        yaml.to_string(),
        serde_json::to_string(&obj).unwrap(),
        serde_json::to_string_pretty(&obj).unwrap(),
    ] {
        let got = def.resolve_text(&text).expect("resolves from text");
        assert_eq!(serde_json::to_value(got).unwrap(), want);
    }
    for text in ["null", "", "# nothing"] {
        let e = def.resolve_text(text).expect_err("no object");
        assert_eq!(e.code(), ErrorCode::Parse, "{text:?}: {e}");
    }
    // A duplicate key is refused by the strict JSON reader and reported by
    // the careful one, with its position.
    let dup = r#"{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "kind": "JobSet"}"#;
    let e = def.resolve_text(dup).expect_err("a duplicate key");
    assert_eq!(e.code(), ErrorCode::Parse, "{e}");
    assert!(e.location().line.is_some(), "{e}");
}

/// A definition compiled under generous limits and then given smaller ones
/// (`with_limits`) is held to the smaller ones' component tree depth
/// (maxDepth / 4) on every resolve: a chain at the bound resolves, one
/// level deeper is a located `limit` error naming the first component past
/// it. (The check first walks the chains without allocating and falls back
/// to the exact one only when a chain is too long.)
#[test]
fn a_chain_one_level_past_the_tree_bound_of_the_resolve_limits_is_refused() {
    let chain = |levels: usize| -> String {
        (1..=levels)
            .map(|i| {
                let owner = if i == 1 {
                    "thing".to_string()
                } else {
                    format!("c{}", i - 1)
                };
                format!("      - name: c{i}\n        ownerRef: {owner}\n")
            })
            .collect()
    };
    let wide = workload_lens::Limits {
        max_depth: 1024,
        ..workload_lens::Limits::default()
    };
    let small = workload_lens::Limits {
        max_depth: 40,
        ..workload_lens::Limits::default()
    };
    let bound = 40 / 4;
    // With `siblings` more children of the root: past 4,096 steps of the
    // first walk the linear check alone decides.
    let compiled = |levels: usize, siblings: usize| {
        let mut children = chain(levels);
        for i in 0..siblings {
            children.push_str(&format!("      - name: s{i}\n        ownerRef: thing\n"));
        }
        let text = thing_karta("example-com-thing-v1", common::THING_STATUS, &children, "");
        CompiledDefinition::from_text(&text, wide)
            .unwrap_or_else(|e| panic!("{e}"))
            .with_limits(small)
    };
    for siblings in [0, 400] {
        let r = compiled(bound, siblings)
            .resolve(&obj(json!({})))
            .unwrap()
            .into_owned();
        assert_eq!(r.components.len(), bound + 1 + siblings);
        let e = compiled(bound + 1, siblings)
            .resolve(&obj(json!({})))
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::Limit, "{e}");
        let first = format!(
            "component 'c{}' is more than {bound} levels below",
            bound + 1
        );
        assert!(e.to_string().contains(&first), "{e}");
    }
}

/// A fragmented template's containers are read where they are, in one pass:
/// a service with 10,000 containers (ten times the most a pod template is
/// expected to list, and far past any real pod) resolves within the default
/// limits, its requests summed over every container and the main container
/// put over its namesake, as the assembled template holds them.
#[test]
fn fragments_with_ten_thousand_containers_are_read_in_one_pass() {
    let n = 10_000;
    let containers: Vec<Value> = (0..n)
        .map(|i| json!({"name": format!("c{i}"), "resources": {"requests": {"cpu": "1"}}}))
        .collect();
    let graph = json!({
        "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
        "metadata": {"name": "wide", "namespace": "ml"},
        "spec": {"services": {"Worker": {"replicas": 2,
            "resources": {"requests": {"gpu": "1"}},
            "extraPodSpec": {
                "mainContainer": {"name": "c5000", "image": "main:1"},
                "containers": containers}}}}
    });
    let engine = Engine::new().unwrap();
    let r = engine.resolve(&graph).unwrap();
    let worker = &r.component("service").unwrap().instances[0];
    let per_pod = worker.pod_resources.as_ref().unwrap();
    // 9,999 containers of one CPU, and the main one (which replaced c5000)
    // with the resources fragment: one GPU, no CPU.
    assert_eq!(per_pod.cpu_millis, (n as u64 - 1) * 1000);
    assert_eq!(per_pod.gpu, 1);
    assert_eq!(r.totals.resources.gpu, 2);
    let t = worker.pod_template().unwrap();
    let listed = t["spec"]["containers"].as_array().unwrap();
    assert_eq!(listed.len(), n);
    assert_eq!(listed[5000]["image"], json!("main:1"));
    assert_eq!(
        listed[5000]["resources"],
        json!({"requests": {"nvidia.com/gpu": "1"}})
    );
}

/// A pod's requests are summed in a list kept inline for the handful of
/// names a pod asks for; a pod that names very many resources moves to a
/// map, so the sum stays n log n (under a second here; a sorted insert per
/// name would move 240 GB). 1,000 containers of 100 names each (100,000
/// distinct names, each container's own) resolve within the default
/// limits, every name kept, in order.
#[test]
fn a_pod_naming_a_hundred_thousand_resources_is_summed_in_n_log_n() {
    let (containers, names) = (1_000, 100);
    let list: Vec<Value> = (0..containers)
        .map(|c| {
            let requests: serde_json::Map<String, Value> = (0..names)
                .map(|r| {
                    (
                        format!("example.com/r{}", (c * names + r) * 7919 % 100_000),
                        json!("1"),
                    )
                })
                .collect();
            json!({"name": format!("c{c}"), "resources": {"requests": requests}})
        })
        .collect();
    let job = json!({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "wide", "namespace": "ml"},
        "spec": {"template": {"spec": {"containers": list}}}
    });
    let engine = Engine::new().unwrap();
    let r = engine.resolve(&job).unwrap();
    let extended = &r.totals.resources.extended;
    assert_eq!(extended.len(), containers * names);
    assert!(extended.values().all(|q| q.to_canonical_string() == "1"));
    let names: Vec<&String> = extended.keys().collect();
    assert!(names.windows(2).all(|w| w[0] < w[1]));
}

/// A pod template the object holds as the result keeps it is borrowed, not
/// copied; one with anything the result leaves out (a field Kubernetes does
/// not know, a null, `spec` before `metadata`, a member beside them) is
/// copied with the kept fields only, `metadata` first.
#[test]
fn templates_are_borrowed_where_the_object_holds_them_as_kept() {
    let engine = Engine::new().unwrap();
    let job = |template: Value| {
        json!({"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"name": "j", "namespace": "ml"},
               "spec": {"template": template}})
    };
    let c = json!([{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]);
    // (template, borrowed, the template the result holds)
    let cases = [
        (
            json!({"metadata": {"labels": {"a": "b"}}, "spec": {"containers": c}}),
            true,
            json!({"metadata": {"labels": {"a": "b"}}, "spec": {"containers": c}}),
        ),
        (
            json!({"spec": {"containers": c}}),
            true,
            json!({"spec": {"containers": c}}),
        ),
        (
            json!({"spec": {"containers": c}, "metadata": {"labels": {"a": "b"}}}),
            false,
            json!({"metadata": {"labels": {"a": "b"}}, "spec": {"containers": c}}),
        ),
        (
            json!({"metadata": null, "spec": {"containers": c}}),
            false,
            json!({"spec": {"containers": c}}),
        ),
        (
            json!({"metadata": {"x": 1}, "spec": {"containers": c}}),
            false,
            json!({"metadata": {}, "spec": {"containers": c}}),
        ),
        (
            json!({"metadata": {}, "spec": {"containers": c, "crdOnly": true}}),
            false,
            json!({"metadata": {}, "spec": {"containers": c}}),
        ),
        (
            json!({"spec": {"containers": c}, "status": {}}),
            false,
            json!({"spec": {"containers": c}}),
        ),
    ];
    for (template, borrowed, want) in cases {
        let obj = job(template.clone());
        let r = engine.resolve(&obj).unwrap();
        let i = &r.components[0].instances[0];
        let got = i.pod_template().unwrap();
        assert_eq!(*got, want, "{template}");
        let order = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(order(&got), order(&want), "{template}");
        assert_eq!(
            std::ptr::eq(&*got, &obj["spec"]["template"]),
            borrowed,
            "{template}"
        );
        assert_eq!(r.totals.resources.gpu, 1);
        // Serialized and owned, the same template.
        assert_eq!(
            r.to_json()["components"][0]["instances"][0]["podTemplate"],
            want
        );
        let owned = r.clone().into_owned();
        assert_eq!(
            *owned.components[0].instances[0].pod_template().unwrap(),
            want
        );
    }
}

/// A pod spec the object holds as the result keeps it (Kubernetes' fields
/// only) is borrowed, its template (`{"metadata": {}, "spec": ...}`) made
/// when read; one with a field the result leaves out is copied without it;
/// pod metadata makes the template whole, the spec's kept fields in it.
#[test]
fn pod_specs_are_borrowed_where_the_object_holds_them_as_kept() {
    let d = def(
        "",
        r#"
      - name: svc
        ownerRef: thing
        instanceIdPath: .spec.services[].name
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.labels["svc"]'}
        specDefinition:
          podSpecPath: .spec.services[].podSpec
      - name: labelled
        ownerRef: thing
        specDefinition:
          podSpecPath: .spec.labelled.spec
          metadataPath: .spec.labelled.metadata
"#,
    );
    let c = json!([{"name": "m", "resources": {"requests": {"nvidia.com/gpu": 2}}}]);
    let obj = obj(json!({
        "services": [
            {"name": "kept", "podSpec": {"containers": c, "schedulerName": "kai"}},
            {"name": "crd", "podSpec": {"containers": c, "crdOnly": 1}}
        ],
        "labelled": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": c}}
    }));
    let r = d.resolve(&obj).unwrap();
    let svc = r.component("svc").unwrap();
    let want = |spec: Value| json!({"metadata": {}, "spec": spec});
    let kept = want(json!({"containers": c, "schedulerName": "kai"}));
    assert_eq!(*svc.instances[0].pod_template().unwrap(), kept);
    assert_eq!(
        *svc.instances[1].pod_template().unwrap(),
        want(json!({"containers": c}))
    );
    for i in &svc.instances {
        assert_eq!(i.pod_resources.as_ref().unwrap().gpu, 2);
    }
    let labelled = &r.component("labelled").unwrap().instances[0];
    let with_meta = json!({"metadata": {"labels": {"a": "b"}}, "spec": {"containers": c}});
    assert_eq!(*labelled.pod_template().unwrap(), with_meta);
    assert_eq!(labelled.pod_resources.as_ref().unwrap().gpu, 2);
    // Serialized, owned and compared, the same templates however held.
    let json = r.to_json();
    assert_eq!(json["components"][1]["instances"][0]["podTemplate"], kept);
    assert_eq!(
        json["components"][2]["instances"][0]["podTemplate"],
        with_meta
    );
    let owned = r.clone().into_owned();
    assert_eq!(owned, r);
    assert_eq!(
        *owned.component("svc").unwrap().instances[0]
            .pod_template()
            .unwrap(),
        kept
    );
    assert_eq!(r.totals.resources.gpu, 6);
}

/// A fragment the object holds (the main container, its image) is borrowed,
/// not copied; one an expression makes (the resources) is the result's own.
/// The fragments serialize as the JSON object they stand for, in their
/// order, and compare the same owned.
#[test]
fn fragments_are_borrowed_from_the_object() {
    let engine = Engine::new().unwrap();
    let graph = json!({
        "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "ml"},
        "spec": {"services": {"Worker": {"replicas": 2,
            "resources": {"requests": {"gpu": "1"}},
            "extraPodSpec": {"schedulerName": "kai",
                "mainContainer": {"name": "main", "image": "vllm:0.6"}}}}}
    });
    let r = engine.resolve(&graph).unwrap();
    let worker = &r.component("service").unwrap().instances[0];
    let f = worker.fragments.as_ref().unwrap();
    let spec = &graph["spec"]["services"]["Worker"]["extraPodSpec"];
    assert!(std::ptr::eq(
        f.get("container").unwrap(),
        &spec["mainContainer"]
    ));
    assert!(std::ptr::eq(&f["image"], &spec["mainContainer"]["image"]));
    assert!(std::ptr::eq(&f["schedulerName"], &spec["schedulerName"]));
    assert_eq!(f["resources"], json!({"requests": {"nvidia.com/gpu": "1"}}));
    assert!(f.get("containers").is_none() && !f.contains_key("containers"));
    assert!(f.contains_key("image"));
    let fields: Vec<&str> = f.iter().map(|(k, _)| k).collect();
    assert_eq!(f.len(), fields.len());
    assert!(!f.is_empty());
    let json = r.to_json();
    let written = &json["components"][1]["instances"][0]["fragments"];
    assert_eq!(written, &Value::Object(f.to_map()));
    let written_order: Vec<&String> = written.as_object().unwrap().keys().collect();
    assert_eq!(written_order, fields);
    let owned = r.clone().into_owned();
    assert_eq!(owned, r);
    assert_eq!(r.totals.resources.gpu, 2);
}

/// A result's names are the definition's and the object's own: every
/// resolve of one definition shows the same tree and component names (not
/// copies made per resolve), the workload's identity is the object's
/// strings, and `into_owned` copies them, equal as before.
#[test]
fn names_are_borrowed_from_the_definition_and_the_object() {
    let engine = Engine::new().unwrap();
    let obj = engine
        .read_object(include_str!("../../examples/jobset.yaml"))
        .unwrap();
    let def = engine.definition_for(&obj).unwrap();
    let (a, b) = (def.resolve(&obj).unwrap(), def.resolve(&obj).unwrap());
    assert!(std::ptr::eq(&*a.tree, &*b.tree));
    for (x, y) in a.components.iter().zip(&b.components) {
        assert!(std::ptr::eq(&*x.name, &*y.name));
        assert!(std::ptr::eq(&*x.children, &*y.children));
        assert!(std::ptr::eq(
            x.kind.as_deref().unwrap(),
            y.kind.as_deref().unwrap()
        ));
    }
    assert!(std::ptr::eq(&*a.definition.name, def.name()));
    let meta = &obj["metadata"];
    assert!(std::ptr::eq(
        &*a.workload.name,
        meta["name"].as_str().unwrap()
    ));
    assert!(std::ptr::eq(
        &*a.workload.kind,
        obj["kind"].as_str().unwrap()
    ));
    assert_eq!(a.tree.component, "jobset");
    assert_eq!(a.tree.children[0].component, "replicatedjob");
    assert_eq!(a.components[1].owner.as_deref(), Some("jobset"));
    let owned = a.clone().into_owned();
    assert_eq!(owned, a);
    assert!(!std::ptr::eq(&*owned.tree, &*a.tree));
    assert!(!std::ptr::eq(&*owned.workload.name, &*a.workload.name));
    assert_eq!(owned.to_json(), b.to_json());
}
