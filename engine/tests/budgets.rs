//! The whole-call budgets (docs/reliability.md): one meter of steps, memory
//! and output per call, shared by everything the call does; defaults with
//! room to spare for real workloads.

#[path = "../benches/common/workloads.rs"]
mod workloads;

use serde_json::{Value, json};
use workload_lens::{Engine, ErrorCode, Limits};

/// A tenth of the default budgets of a call.
fn tenth() -> Limits {
    let d = Limits::default();
    Limits {
        max_steps: d.max_steps / 10,
        max_memory_bytes: d.max_memory_bytes / 10,
        max_output_bytes: d.max_output_bytes / 10,
        ..d
    }
}

#[test]
fn catalog_fixtures_and_benchmark_workloads_fit_a_tenth_of_the_default_budgets() {
    let engine = Engine::builder().limits(tenth()).build().unwrap();
    let full = workloads::engine();
    let mut checked = 0;
    for obj in workloads::fixture_objects() {
        // Fixtures of failure states may not resolve at all; those that
        // resolve with the defaults must resolve with a tenth of them.
        if full.resolve(&obj).is_err() {
            continue;
        }
        let name = obj["metadata"]["name"].clone();
        engine
            .resolve(&obj)
            .unwrap_or_else(|e| panic!("{} {name}: {e}", obj["kind"]));
        engine.explain_status(&obj).unwrap();
        checked += 1;
    }
    assert!(checked > 50, "{checked} fixtures");
    for obj in [
        workloads::jobset_example(),
        workloads::milvus_large(),
        workloads::dynamo(50),
        workloads::jobset(1000),
    ] {
        engine
            .resolve(&obj)
            .unwrap_or_else(|e| panic!("{}: {e}", obj["kind"]));
    }
}

/// A definition whose every component evaluates `expr` (one output).
fn many_components(n: usize, expr: &str) -> String {
    let mut children = String::new();
    for i in 0..n {
        children.push_str(&format!(
            "      - name: c{i}\n        kind: {{group: example.com, version: v1, kind: C{i}}}\n        ownerRef: app\n        specDefinition:\n          podTemplateSpecPath: '{expr}'\n"
        ));
    }
    format!(
        "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {{name: many}}\nspec:\n  structureDefinition:\n    rootComponent:\n      name: app\n      kind: {{group: example.com, version: v1, kind: App}}\n      statusDefinition: {{statusMappings: {{}}}}\n    childComponents:\n{children}"
    )
}

fn app() -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "App", "metadata": {"name": "a", "namespace": "ns"}, "spec": {"n": 1}})
}

#[test]
fn steps_are_shared_by_every_component_of_a_call() {
    // Each component's expression alone takes ~30,000 steps: far below the
    // budget one at a time, 3,000,000 for 100 components.
    let expr = "[(1,1,1,1,1,1,1,1,1,1) as $a | (1,1,1,1,1,1,1,1,1,1) as $b | (1,1,1,1,1,1,1,1,1,1) as $c | (1,1,1,1,1,1,1,1,1,1) as $d | $a] | null";
    let limits = Limits {
        max_steps: 200_000,
        ..Limits::default()
    };
    let mut one = Engine::builder()
        .limits(limits)
        .catalog(false)
        .build()
        .unwrap();
    one.add_definitions(&many_components(1, expr)).unwrap();
    one.resolve(&app()).expect("one component fits");
    let mut many = Engine::builder()
        .limits(limits)
        .catalog(false)
        .build()
        .unwrap();
    many.add_definitions(&many_components(100, expr)).unwrap();
    let e = many.resolve(&app()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert_eq!(e.limit(), Some("maxSteps"), "{e}");
    // A fresh call has the whole budget again.
    one.resolve(&app()).expect("the next call starts afresh");
}

#[test]
fn memory_is_counted_across_the_values_of_a_call() {
    // 100 distinct strings of 2 MiB each: every one is within
    // maxStringBytes, together 200 MiB. (Steps raised: with the defaults,
    // the steps of building 64 MiB run out about when the memory does.)
    let limits = Limits {
        max_steps: 100_000_000,
        ..Limits::default()
    };
    let e = workload_lens::evaluate(
        r#"[(0,1,2,3,4,5,6,7,8,9) as $i | (0,1,2,3,4,5,6,7,8,9) as $j | ("x" * 2097152) + "\($i)\($j)"] | length"#,
        &Value::Null,
        &limits,
    )
    .unwrap_err();
    assert_eq!(e.limit(), Some("maxMemoryBytes"), "{e}");
}

#[test]
fn output_bytes_are_counted_across_the_outputs_of_a_call() {
    let limits = Limits {
        max_output_bytes: 1 << 20,
        ..Limits::default()
    };
    // Ten outputs of 200 KB: each alone fits, together 2 MB do not.
    let e = workload_lens::evaluate(
        r#"("x" * 200000) as $s | (0,1,2,3,4,5,6,7,8,9) | $s"#,
        &Value::Null,
        &limits,
    )
    .unwrap_err();
    assert_eq!(e.limit(), Some("maxOutputBytes"), "{e}");
    let ok = workload_lens::evaluate(
        r#"("x" * 200000) as $s | (0,1,2,3) | $s"#,
        &Value::Null,
        &limits,
    )
    .unwrap();
    assert_eq!(ok.len(), 4);
}

/// A definition with one child whose pod template is `.spec.template`, a
/// suspend action writing `value` at every path of `paths`.
fn writer(paths: &str, value: &str) -> String {
    format!(
        "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {{name: w}}\nspec:\n  structureDefinition:\n    rootComponent:\n      name: app\n      kind: {{group: example.com, version: v1, kind: App}}\n      statusDefinition: {{statusMappings: {{}}}}\n      suspendDefinition:\n        suspendActions:\n          - path: '{paths}'\n            value: {value}\n        resumeActions:\n          - path: '.spec.suspend'\n            value: 'false'\n"
    )
}

fn suspend(def: &str, obj: &Value) -> workload_lens::Result<workload_lens::UpdateResult> {
    let mut engine = Engine::builder().catalog(false).build().unwrap();
    engine.add_definitions(def).unwrap();
    engine.suspend(obj)
}

#[test]
fn a_write_at_a_huge_index_pays_for_its_padding() {
    // A path padding an array to 300,000 elements is fine (the padding and
    // the copy of the result, a step per element each); ten padding to
    // 900,000 are 9 million slots.
    let one = suspend(&writer(".spec.a[300000]", "'1'"), &app());
    assert!(one.is_ok(), "{:?}", one.err());
    let e = suspend(
        &writer(".spec.a0[900000], .spec.a1[900000], .spec.a2[900000], .spec.a3[900000], .spec.a4[900000], .spec.a5[900000], .spec.a6[900000], .spec.a7[900000], .spec.a8[900000], .spec.a9[900000]", "'1'"),
        &app(),
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert!(
        matches!(e.limit(), Some("maxSteps" | "maxMemoryBytes")),
        "{e}"
    );
}

#[test]
fn one_large_value_written_at_many_paths_pays_for_every_copy() {
    // A 100 KB value (in the definition) written at 1,000 paths: 100 MB.
    let big = format!("'\"{}\"'", "x".repeat(100_000));
    let with = |n: usize| {
        let mut obj = app();
        obj["spec"]["list"] = json!(vec![0; n]);
        obj
    };
    let e = suspend(&writer(".spec.list[]", &big), &with(1000)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert!(
        matches!(e.limit(), Some("maxSteps" | "maxMemoryBytes")),
        "{}",
        e.code()
    );
    // Ten copies are fine.
    let ok = suspend(&writer(".spec.list[]", &big), &with(10)).unwrap();
    assert_eq!(ok.patch.len(), 10);
}

#[test]
fn a_patch_repeating_a_long_path_pays_for_every_operation() {
    // 1,000 writes under one 128 KB key: every patch operation's path
    // repeats the key (128 MB of paths).
    let key = "k".repeat(131_072);
    let mut obj = app();
    let fields: serde_json::Map<String, Value> =
        (0..1000).map(|i| (format!("f{i}"), json!(0))).collect();
    obj["spec"][&key] = Value::Object(fields);
    let def = writer(&format!(".spec[\"{key}\"][]"), "'1'");
    // The paths the action's expression outputs repeat the key too: raise
    // the output budget so that the patch is what is measured.
    let limits = Limits {
        max_expression_bytes: 1 << 20,
        max_output_bytes: 1 << 30,
        ..Limits::default()
    };
    let mut engine = Engine::builder()
        .limits(limits)
        .catalog(false)
        .build()
        .unwrap();
    engine.add_definitions(&def).unwrap();
    let e = engine.suspend(&obj).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert!(
        matches!(e.limit(), Some("maxSteps" | "maxMemoryBytes")),
        "{:?}",
        e.limit()
    );
}

/// The diff behind every patch walks unchanged members without building
/// their paths: 100,000 members (ten times a large ConfigMap-like map)
/// under four nested 256 KiB keys. Paths built as the walk went were 1 MiB
/// each, 100 GB in all, made before any budget saw them. Now only the
/// operations' paths are built, each charged to the call's memory and steps
/// before it is.
#[test]
fn the_diff_builds_only_the_paths_of_its_operations() {
    let key = |c: char| c.to_string().repeat(256 * 1024);
    let wide: serde_json::Map<String, Value> =
        (0..100_000).map(|i| (format!("f{i}"), json!(0))).collect();
    let mut deep = Value::Object(wide);
    for c in ['d', 'c', 'b', 'a'] {
        deep = json!({ key(c): deep });
    }
    let mut obj = app();
    obj["spec"]["data"] = deep;
    let r = suspend(&writer(".spec.suspend", "'true'"), &obj).unwrap();
    assert_eq!(
        serde_json::to_value(&r.patch).unwrap(),
        json!([{"op": "add", "path": "/spec/suspend", "value": true}])
    );
    // A change at the bottom: one operation, whose path repeats the four
    // keys (escaped: the first holds `/` and `~`).
    let path = ".spec.data | .[keys[0]] | .[keys[0]] | .[keys[0]] | .[keys[0]] | .f99999";
    let mut obj = obj;
    let a = key('a');
    let inner = obj["spec"]["data"]
        .as_object_mut()
        .unwrap()
        .remove(&a)
        .unwrap();
    obj["spec"]["data"][format!("/~{a}")] = inner;
    let r = suspend(&writer(path, "'1'"), &obj).unwrap();
    let want = format!(
        "/spec/data/~1~0{a}/{}/{}/{}/f99999",
        key('b'),
        key('c'),
        key('d')
    );
    assert_eq!(
        serde_json::to_value(&r.patch).unwrap(),
        json!([{"op": "replace", "path": want, "value": 1}])
    );
}

/// Documents are read one at a time: once the first documents have used
/// up the call's budget, the rest of the text is not read (a malformed
/// document at its end is never reached), and validating or loading a
/// text of many documents costs what the documents before the breach
/// cost, not the whole text's parse.
#[test]
fn documents_after_a_breach_are_not_read() {
    let doc = many_components(100, ".spec.t");
    let mut text = String::new();
    for _ in 0..200 {
        text.push_str("---\n");
        text.push_str(&doc);
    }
    text.push_str("---\n{ this is: [not yaml\n");
    let engine = Engine::new().unwrap();
    let e = engine.validate(&text).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit, "{e}");
    assert_eq!(e.limit(), Some("maxSteps"), "{e}");
    let e = workload_lens::CompiledDefinition::from_text(&text, Limits::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit, "{e}");
    // With room for every document, the malformed one is reached: the same
    // parse error as before documents were streamed.
    let roomy = Limits {
        max_steps: 1 << 40,
        max_memory_bytes: usize::MAX / 4,
        ..Limits::default()
    };
    let e = Engine::builder()
        .limits(roomy)
        .build()
        .unwrap()
        .validate(&text)
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Parse, "{e}");
    assert_eq!(e.location().document, Some(200), "{e}");
}

#[test]
fn current_labels_are_charged_for_every_pod() {
    // 20,000 current labels (read from the workload) compared with each of
    // 20,000 pods would be 4e8 comparisons: charged, they meet maxSteps.
    let def = r#"apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: current}
spec:
  podOwnership:
    currentLabelsPath: .spec.current
  structureDefinition:
    rootComponent:
      name: app
      kind: {group: example.com, version: v1, kind: App}
      statusDefinition: {statusMappings: {}}
      specDefinition: {podTemplateSpecPath: .spec.template}
"#;
    let mut engine = Engine::builder().catalog(false).build().unwrap();
    engine.add_definitions(def).unwrap();
    let current: serde_json::Map<String, Value> = (0..20_000)
        .map(|i| (format!("k{i}"), Value::String(format!("v{i}"))))
        .collect();
    let obj = json!({"apiVersion": "example.com/v1", "kind": "App",
        "metadata": {"name": "a", "namespace": "ns", "uid": "u"},
        "spec": {"template": {}, "current": current}});
    let pods: Vec<Value> = (0..20_000)
        .map(|i| {
            json!({"kind": "Pod", "metadata": {"name": format!("p{i}"), "namespace": "ns",
            "labels": {"k0": "v0"}}})
        })
        .collect();
    let def = engine.definition_for(&obj).unwrap();
    let e = def.resolve_with_pods(&obj, &pods).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert_eq!(e.limit(), Some("maxSteps"), "{e}");
}

#[test]
fn min_members_maps_are_charged_per_entry() {
    // A minMembersPath map of 50,000 entries (a Grove set has a few dozen
    // cliques) is read entry by entry against the call's steps.
    let def = r#"apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: sized}
spec:
  structureDefinition:
    rootComponent:
      name: app
      kind: {group: example.com, version: v1, kind: App}
      statusDefinition: {statusMappings: {}}
      specDefinition: {podTemplateSpecPath: .spec.template}
  optimizationInstructions:
    gangScheduling:
      podGroups:
        - name: all
          members:
            - componentName: app
              minMembersPath: .spec.sizes
"#;
    let sizes: serde_json::Map<String, Value> =
        (0..50_000).map(|i| (format!("i{i}"), json!(i))).collect();
    let obj = json!({"apiVersion": "example.com/v1", "kind": "App",
        "metadata": {"name": "a", "namespace": "ns", "uid": "u"},
        "spec": {"template": {}, "sizes": sizes}});
    let pods = vec![json!({"kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}})];
    let run = |max_steps| {
        let mut engine = Engine::builder()
            .limits(Limits {
                max_steps,
                ..Limits::default()
            })
            .catalog(false)
            .build()
            .unwrap();
        engine.add_definitions(def).unwrap();
        let d = engine.definition_for(&obj).unwrap().clone();
        d.gang_groups(&obj, &pods)
    };
    run(Limits::default().max_steps).expect("fits the default budget");
    let e = run(40_000).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert_eq!(e.limit(), Some("maxSteps"), "{e}");
}
