//! Updates through definition paths, suspend/resume, the JSON patch, and the
//! round-trip law (property tests).

mod common;

use common::{catalog_def, example_jobset as jobset};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use workload_lens::{CompiledDefinition, ErrorCode, PatchOp, UpdateRequest, apply_patch as apply};

fn req(v: Value) -> UpdateRequest {
    serde_json::from_value(v).unwrap()
}

fn catalog_jobset() -> std::sync::Arc<CompiledDefinition> {
    catalog_def("jobset-x-k8s-io-jobset-v1alpha2")
}

#[test]
fn pod_template_update_returns_new_object_and_minimal_patch() {
    let d = catalog_jobset();
    let obj = jobset();
    let before = obj.clone();
    let r = d.resolve(&obj).unwrap();
    let mut t = r.component("replicatedjob").unwrap().instances[1]
        .pod_template()
        .unwrap()
        .into_owned();
    t["spec"]["schedulerName"] = json!("kai-scheduler");
    let out = d
        .update(
            &obj,
            &req(json!({"components": {"replicatedjob": {"podTemplateSpecs": {"worker": t}}}})),
        )
        .unwrap();
    assert_eq!(obj, before, "the input is never mutated");
    insta::assert_json_snapshot!("jobset_worker_scheduler_patch", out.patch);
    assert_eq!(
        out.patch,
        vec![PatchOp::Add {
            path: "/spec/replicatedJobs/1/template/spec/template/spec/schedulerName".into(),
            value: json!("kai-scheduler")
        }]
    );
    assert_eq!(apply(&obj, &out.patch).unwrap(), out.object);
    let again = d.resolve(&out.object).unwrap();
    let w = &again.component("replicatedjob").unwrap().instances[1];
    assert_eq!(
        w.pod_template().unwrap()["spec"]["schedulerName"],
        json!("kai-scheduler")
    );
    // The leader was not given a value and is untouched.
    let l = &again.component("replicatedjob").unwrap().instances[0];
    assert!(
        l.pod_template().unwrap()["spec"]
            .get("schedulerName")
            .is_none()
    );
}

#[test]
fn suspend_and_resume() {
    let d = catalog_jobset();
    let s = d.suspend(&jobset()).unwrap();
    insta::assert_json_snapshot!("jobset_suspend_patch", s.patch);
    assert_eq!(
        s.patch,
        vec![PatchOp::Add {
            path: "/spec/suspend".into(),
            value: json!(true)
        }]
    );
    let r = d.resume(&s.object).unwrap();
    assert_eq!(
        r.patch,
        vec![PatchOp::Replace {
            path: "/spec/suspend".into(),
            value: json!(false)
        }]
    );
}

fn thing_def(children: &str) -> CompiledDefinition {
    common::thing_def("", children, "")
}

const PARTS: &str = r#"
      - name: part
        ownerRef: thing
        instanceIdPath: '.spec.parts[].name'
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.labels["p"]'}
        specDefinition:
          fragmentedPodSpecDefinition:
            labelsPath: '.spec.parts[].labels'
            schedulerNamePath: '.spec.parts[].scheduler'
            resourcesPath: '.spec.parts[] | {requests: .resources}'
"#;

fn thing(parts: Value) -> Value {
    let mut t = common::thing(json!({"parts": parts, "crdOnly": [1, 2]}));
    t["metadata"]["x-extra"] = json!({"keep": true});
    t
}

#[test]
fn edge_38_zip_writes_given_values_and_leaves_the_others() {
    let d = thing_def(PARTS);
    let obj = thing(json!([{"name": "a"}, {"name": "b", "labels": {"old": "1"}}]));
    let out = d
        .update(
            &obj,
            &req(json!({"components": {"part": {"fragments": {"a": {"labels": {"x": "y"}}}}}})),
        )
        .unwrap();
    assert_eq!(out.object["spec"]["parts"][0]["labels"], json!({"x": "y"}));
    // Deliberate difference: the reference writes null for b.
    assert_eq!(
        out.object["spec"]["parts"][1]["labels"],
        json!({"old": "1"})
    );
}

#[test]
fn edge_39_all_empty_values_write_nothing() {
    let d = thing_def(PARTS);
    let obj = thing(json!([{"name": "a"}, {"name": "b"}]));
    let out = d
        .update(&obj, &req(json!({"components": {"part": {"fragments": {"a": {"labels": {}}, "b": {"schedulerName": ""}}}}})))
        .unwrap();
    assert!(out.patch.is_empty());
    assert_eq!(out.object, obj);
}

#[test]
fn edge_40_values_for_an_undefined_path_are_an_error() {
    let d = thing_def(PARTS);
    let obj = thing(json!([{"name": "a"}]));
    let e = d
        .update(
            &obj,
            &req(
                json!({"components": {"part": {"fragments": {"a": {"annotations": {"k": "v"}}}}}}),
            ),
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Update);
    assert_eq!(
        e.message(),
        "component part does not take the annotations fragment: its fragmentedPodSpecDefinition has no annotationsPath"
    );
}

#[test]
fn edge_41_non_assignable_paths_are_a_clear_error() {
    let d = thing_def(PARTS);
    let obj = thing(json!([{"name": "a"}]));
    let e = d
        .update(&obj, &req(json!({"components": {"part": {"fragments": {"a": {"resources": {"requests": {"cpu": "1"}}}}}}})))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Update);
    assert!(e.message().contains("not an assignable path"), "{e}");
    assert_eq!(
        e.location().field.as_deref(),
        Some(
            "spec.structureDefinition.childComponents[0].specDefinition.fragmentedPodSpecDefinition.resourcesPath"
        )
    );
}

#[test]
fn edge_42_path_count_must_match_instances() {
    let d = thing_def(
        r#"
      - name: part
        ownerRef: thing
        instanceIdPath: '.spec.ids[]'
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.labels["p"]'}
        specDefinition:
          fragmentedPodSpecDefinition:
            labelsPath: '.spec.parts[].labels'
"#,
    );
    let mut obj = thing(json!([{}, {}, {}]));
    obj["spec"]["ids"] = json!(["a", "b"]);
    let e = d
        .update(
            &obj,
            &req(json!({"components": {"part": {"fragments": {"a": {"labels": {"x": "y"}}}}}})),
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::CountMismatch);
    assert!(
        e.message()
            .contains("array length mismatch: expected 3 values but got 2"),
        "{e}"
    );
}

#[test]
fn update_creates_missing_paths() {
    let d = thing_def(PARTS);
    let obj = thing(json!([{"name": "a"}]));
    let out = d
        .update(
            &obj,
            &req(json!({"components": {"part": {"fragments": {"a": {"schedulerName": "kai"}}}}})),
        )
        .unwrap();
    assert_eq!(out.object["spec"]["parts"][0]["scheduler"], json!("kai"));
    assert_eq!(out.patch.len(), 1);
}

#[test]
fn usage_errors() {
    let d = thing_def(PARTS);
    let obj = thing(json!([{"name": "a"}]));
    let e = d
        .update(&obj, &req(json!({"components": {"nope": {}}})))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage);
    let e = d
        .update(
            &obj,
            &req(json!({"components": {"part": {"fragments": {"zz": {"labels": {"a": "b"}}}}}})),
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage);
    assert_eq!(
        e.message(),
        "failed to update labels: component part has no instance \"zz\" to write fragment labels to (its instances: a)"
    );
    let e = d
        .update(
            &obj,
            &req(json!({"components": {"part": {"podSpecs": {"a": {}}}}})),
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Update);
    assert_eq!(
        e.message(),
        "component part does not take podSpecs: its definition has no specDefinition.podSpecPath; it takes fragments (its specDefinition has fragmentedPodSpecDefinition)"
    );
    let e = d.suspend(&obj).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Update);
}

fn label_map() -> impl Strategy<Value = BTreeMap<String, String>> {
    prop::collection::btree_map("[a-z]{1,8}(/[a-z]{1,5})?", "[A-Za-z0-9._-]{0,12}", 0..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Extracting after updating returns what was written; nothing outside
    /// the written locations changes; the patch turns the old object into
    /// the new one.
    #[test]
    fn round_trip_law(
        n in 1usize..5,
        writes in prop::collection::btree_map(0usize..5, (label_map(), "[a-z-]{0,10}"), 0..5),
    ) {
        let d = thing_def(PARTS);
        let parts: Vec<Value> = (0..n).map(|i| json!({"name": format!("p{i}"), "labels": {"orig": i.to_string()}, "other": i})).collect();
        let obj = thing(json!(parts));
        let before = d.resolve(&obj).unwrap();
        let mut frags = serde_json::Map::new();
        for (i, (labels, sched)) in &writes {
            if *i < n {
                frags.insert(format!("p{i}"), json!({"labels": labels, "schedulerName": sched}));
            }
        }
        let out = d.update(&obj, &req(json!({"components": {"part": {"fragments": frags}}}))).unwrap();
        prop_assert_eq!(apply(&obj, &out.patch).unwrap(), out.object.clone());
        let after = d.resolve(&out.object).unwrap();
        let all_labels_empty = writes.iter().filter(|(i, _)| **i < n).all(|(_, (l, _))| l.is_empty());
        let all_sched_empty = writes.iter().filter(|(i, _)| **i < n).all(|(_, (_, s))| s.is_empty());
        for i in 0..n {
            let id = format!("p{i}");
            let got = after.component("part").unwrap().instances[i].fragments.clone().unwrap_or_default();
            let old = before.component("part").unwrap().instances[i].fragments.clone().unwrap_or_default();
            match writes.get(&i) {
                Some((labels, sched)) => {
                    // When any value of a field is non-empty, all given values
                    // are written, empty ones included.
                    if !all_labels_empty {
                        prop_assert_eq!(got.get("labels"), Some(&json!(labels)), "{}", id);
                    } else {
                        prop_assert_eq!(got.get("labels"), old.get("labels"), "{}", id);
                    }
                    if !all_sched_empty {
                        prop_assert_eq!(got.get("schedulerName"), Some(&json!(sched)), "{}", id);
                    } else {
                        prop_assert_eq!(got.get("schedulerName"), old.get("schedulerName"), "{}", id);
                    }
                }
                None => prop_assert_eq!(got, old),
            }
            // Fields outside the written locations are unchanged.
            prop_assert_eq!(&out.object["spec"]["parts"][i]["other"], &json!(i));
        }
        prop_assert_eq!(&out.object["spec"]["crdOnly"], &json!([1, 2]));
        prop_assert_eq!(&out.object["metadata"], &obj["metadata"]);
        for op in &out.patch {
            let path = match op { PatchOp::Add { path, .. } | PatchOp::Replace { path, .. } | PatchOp::Remove { path } => path };
            prop_assert!(path.starts_with("/spec/parts/"), "{path}");
            prop_assert!(path.contains("/labels") || path.contains("/scheduler"), "{path}");
        }
    }
}

#[test]
fn whole_object_writes_keep_the_crd_fields_beside_them() {
    let d = thing_def(
        r#"
      - name: transformer
        ownerRef: thing
        specDefinition:
          podSpecPath: .spec.transformer
          metadataPath: .spec.transformer
"#,
    );
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"},
        "spec": {"transformer": {"minReplicas": 2, "containers": [{"name": "t"}], "nodeSelector": {"a": "b"}}}});
    let r = d.resolve(&obj).unwrap();
    let mut spec = r.component("transformer").unwrap().instances[0]
        .pod_template()
        .unwrap()
        .into_owned()["spec"]
        .clone();
    spec["schedulerName"] = json!("kai");
    spec.as_object_mut().unwrap().remove("nodeSelector");
    let out = d
        .update(
            &obj,
            &req(json!({"components": {"transformer": {"podSpecs": {"": spec}}}})),
        )
        .unwrap();
    let t = &out.object["spec"]["transformer"];
    assert_eq!(t["minReplicas"], json!(2), "the CRD's own field stays");
    assert_eq!(t["schedulerName"], json!("kai"));
    assert!(
        t.get("nodeSelector").is_none(),
        "a pod spec field the caller dropped is removed"
    );
}

/// `mode: merge` (issue 19): an image change through a partial template
/// keeps the container's resources and everything else; the object keeps
/// its key order and the patch is the one change.
#[test]
fn merge_mode_changes_one_image_and_keeps_the_rest() {
    let d = catalog_jobset();
    let obj = jobset();
    let partial = json!({"spec": {"containers": [{"name": "trainer", "image": "ghcr.io/example/llama-trainer:1.5"}]}});
    let merged = d
        .update(
            &obj,
            &req(json!({"mode": "merge", "components": {"replicatedjob": {"podTemplateSpecs": {"worker": partial}}}})),
        )
        .unwrap();
    assert_eq!(
        merged.patch,
        vec![PatchOp::Replace {
            path: "/spec/replicatedJobs/1/template/spec/template/spec/containers/0/image".into(),
            value: json!("ghcr.io/example/llama-trainer:1.5")
        }]
    );
    // Key for key as the input was written (the YAML's order, not sorted),
    // with the one value changed.
    let text = serde_json::to_string(&obj).unwrap();
    assert!(
        text.starts_with(r#"{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet""#),
        "{text}"
    );
    let want = text
        .replacen("llama-trainer:1.4", "llama-trainer:1.5", 2)
        .replacen("llama-trainer:1.5", "llama-trainer:1.4", 1);
    assert_eq!(serde_json::to_string(&merged.object).unwrap(), want);
    assert_eq!(apply(&obj, &merged.patch).unwrap(), merged.object);

    // The default (replace) writes the partial template as the whole
    // template: the container loses its resources.
    let replaced = d
        .update(
            &obj,
            &req(
                json!({"components": {"replicatedjob": {"podTemplateSpecs": {"worker": partial}}}}),
            ),
        )
        .unwrap();
    assert!(
        replaced.patch.iter().any(
            |op| matches!(op, PatchOp::Remove { path } if path.ends_with("/containers/0/resources"))
        ),
        "{:?}",
        replaced.patch
    );
}

/// A Thing whose one part has a pod spec at `.spec.pod`.
const POD_SPEC_PART: &str = "
      - name: part
        ownerRef: thing
        kind: {group: example.com, version: v1, kind: Part}
        specDefinition:
          podSpecPath: .spec.pod
";

#[test]
fn merge_mode_semantics() {
    let d = thing_def(POD_SPEC_PART);
    let obj = json!({
        "apiVersion": "example.com/v1", "kind": "Thing",
        "metadata": {"name": "t", "namespace": "ns"},
        "spec": {"pod": {
            "schedulerName": "default",
            "nodeSelector": {"zone": "a", "pool": "gpu"},
            "containers": [
                {"name": "main", "image": "m:1", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
                {"name": "side", "image": "s:1"}
            ],
            "tolerations": [{"key": "gpu", "operator": "Exists"}],
            "foreign": {"kept": true}
        }}
    });
    let patch = json!({
        // null removes a key; a new key is added at the end.
        "schedulerName": null,
        "priorityClassName": "high",
        // Maps merge key by key.
        "nodeSelector": {"zone": "b", "pool": null},
        // Named lists merge by name: `main` is merged (its env too, by
        // name), `extra` is appended, `side` is kept.
        "containers": [
            {"name": "main", "image": "m:2", "env": [{"name": "B", "value": null, "valueFrom": {"fieldRef": {"fieldPath": "x"}}}, {"name": "C", "value": "3"}]},
            {"name": "extra", "image": "e:1", "args": null}
        ],
        // A list that is not named replaces the old one whole.
        "tolerations": [{"key": "tpu", "operator": "Exists"}]
    });
    let out = d
        .update(
            &obj,
            &req(json!({"mode": "merge", "components": {"part": {"podSpecs": {"": patch}}}})),
        )
        .unwrap();
    let pod = &out.object["spec"]["pod"];
    assert_eq!(
        pod,
        &json!({
            "nodeSelector": {"zone": "b"},
            "containers": [
                {"name": "main", "image": "m:2", "env": [
                    {"name": "A", "value": "1"},
                    {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "x"}}},
                    {"name": "C", "value": "3"}
                ]},
                {"name": "side", "image": "s:1"},
                {"name": "extra", "image": "e:1"}
            ],
            "tolerations": [{"key": "tpu", "operator": "Exists"}],
            "foreign": {"kept": true},
            "priorityClassName": "high"
        })
    );
    let keys: Vec<&String> = pod.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "nodeSelector",
            "containers",
            "tolerations",
            "foreign",
            "priorityClassName"
        ]
    );
    assert_eq!(apply(&obj, &out.patch).unwrap(), out.object);
    // Merging the same patch again changes nothing (merge patches are
    // idempotent).
    let again = d
        .update(
            &out.object,
            &req(json!({"mode": "merge", "components": {"part": {"podSpecs": {"": patch}}}})),
        )
        .unwrap();
    assert_eq!(again.patch, vec![]);

    // A value that is not a map replaces, as in replace mode; into a
    // missing place, a map patch is written without its nulls.
    let obj2 = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}, "spec": {}});
    let out = d
        .update(
            &obj2,
            &req(json!({"mode": "merge", "components": {"part": {"podSpecs": {"": {"a": 1, "b": null, "c": {"d": null}}}}}})),
        )
        .unwrap();
    assert_eq!(out.object["spec"]["pod"], json!({"a": 1, "c": {}}));

    // An unknown mode is a usage error of the request.
    let bad: Result<UpdateRequest, _> = serde_json::from_value(json!({"mode": "strategic"}));
    assert!(bad.is_err());
}

/// A merge patch is walked node by node within the call's budget, and
/// nesting past maxDepth is a limit error, not a deep recursion.
#[test]
fn merge_mode_is_bounded() {
    use workload_lens::Limits;
    let text = r#"
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: thing}
spec:
  structureDefinition:
    rootComponent:
      name: thing
      kind: {group: example.com, version: v1, kind: Thing}
      specDefinition:
        podSpecPath: .spec.pod
      statusDefinition:
        phaseDefinition: {path: .status.phase}
"#;
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}, "spec": {"pod": {}}});
    // 10x the default maxDepth (128).
    let mut deep = json!(1);
    for _ in 0..1280 {
        deep = json!({ "x": deep });
    }
    let d = CompiledDefinition::from_text(text, Limits::default()).unwrap();
    let e = d
        .update(
            &obj,
            &req(json!({"mode": "merge", "components": {"thing": {"podSpecs": {"": deep}}}})),
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit, "{e}");
    // 100,000 named items against a small step budget: stopped by maxSteps.
    let items: Vec<Value> = (0..100_000)
        .map(|i| json!({"name": format!("c{i}"), "image": "x"}))
        .collect();
    let small = Limits {
        max_steps: 50_000,
        ..Limits::default()
    };
    let d = CompiledDefinition::from_text(text, small).unwrap();
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}, "spec": {"pod": {"containers": items.clone()}}});
    let e = d
        .update(&obj, &req(json!({"mode": "merge", "components": {"thing": {"podSpecs": {"": {"containers": items}}}}})))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit, "{e}");
    assert_eq!(e.limit(), Some("maxSteps"), "{e}");
}

/// Small JSON values for merge laws: maps over few keys (so that patch and
/// target share some), lists of scalars, and lists of named maps.
fn merge_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (0i64..4).prop_map(|n| json!(n)),
        "[xy]{0,2}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 4, |inner| {
        prop_oneof![
            prop::collection::vec(("[a-e]", inner.clone()), 0..5)
                .prop_map(|kv| { Value::Object(kv.into_iter().collect()) }),
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec(("[pq]", inner), 1..3).prop_map(|items| {
                Value::Array(
                    items
                        .into_iter()
                        .map(|(name, v)| json!({"name": name, "v": v}))
                        .collect(),
                )
            }),
        ]
    })
}

/// The merge rule written plainly (RFC 7396, plus named lists merged by
/// name), to check the engine's against.
fn merge_model(target: &Value, patch: &Value) -> Value {
    let named = |a: &[Value]| {
        !a.is_empty()
            && a.iter()
                .all(|x| x.get("name").is_some_and(Value::is_string))
    };
    match (target, patch) {
        (_, Value::Object(p)) => {
            let mut t = match target {
                Value::Object(t) => t.clone(),
                _ => serde_json::Map::new(),
            };
            for (k, v) in p {
                if v.is_null() {
                    t.shift_remove(k);
                } else {
                    let old = t.get(k).cloned().unwrap_or(Value::Null);
                    t.insert(k.clone(), merge_model(&old, v));
                }
            }
            Value::Object(t)
        }
        (t, Value::Array(p)) if named(p) => {
            let mut t = match t {
                Value::Array(t) if named(t) => t.clone(),
                _ => Vec::new(),
            };
            for item in p {
                match t.iter().position(|x| x["name"] == item["name"]) {
                    Some(i) => t[i] = merge_model(&t[i], item),
                    None => t.push(merge_model(&Value::Null, item)),
                }
            }
            Value::Array(t)
        }
        (_, p) => p.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Merge mode writes what the plain rule gives, keeps the order of the
    /// keys it keeps, is idempotent, and its patch turns the old object
    /// into the new one.
    #[test]
    fn merge_mode_laws(target in merge_json(), patch in prop::collection::vec(("[a-e]", merge_json()), 0..5)) {
        let patch = Value::Object(patch.into_iter().collect());
        let d = thing_def(POD_SPEC_PART);
        let obj = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}, "spec": {"pod": target}});
        let r = req(json!({"mode": "merge", "components": {"part": {"podSpecs": {"": patch}}}}));
        let out = d.update(&obj, &r).unwrap();
        let want = merge_model(&obj["spec"]["pod"], &patch);
        prop_assert_eq!(&out.object["spec"]["pod"], &want);
        prop_assert_eq!(apply(&obj, &out.patch).unwrap(), out.object.clone());
        if let (Value::Object(old), Value::Object(new)) = (&obj["spec"]["pod"], &out.object["spec"]["pod"]) {
            let kept_old: Vec<&String> = old.keys().filter(|k| new.contains_key(*k)).collect();
            let kept_new: Vec<&String> = new.keys().filter(|k| old.contains_key(*k)).collect();
            prop_assert_eq!(kept_old, kept_new);
        }
        let again = d.update(&out.object, &r).unwrap();
        prop_assert_eq!(again.patch, vec![]);
    }
}
