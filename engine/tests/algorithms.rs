//! Algorithms whose size the input sets are linear (or n log n), and walks
//! whose depth the input chooses are bounded: inputs at (or above) the sizes
//! that took minutes or overflowed the stack before (issue 15). Each case
//! runs on a thread with a deadline, so a quadratic regression fails instead
//! of hanging; cases that recurse run on a 1 MiB stack (a WASM instance's).
//!
//! Release-size numbers live in the benchmarks (`benches/resolve.rs`,
//! `attribute_100k_pods_100k_nodes`).

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use workload_lens::{CompiledDefinition, ErrorCode, Limits, parse_documents};

/// Run `f` on a thread with a 1 MiB stack; fail when it takes longer than
/// `secs` (debug build) or panics.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let start = Instant::now();
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let out = f();
            let _ = tx.send(out);
        })
        .unwrap();
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(v) => {
            eprintln!("took {:?}", start.elapsed());
            v
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("did not finish within {secs} s")
        }
        Err(e) => panic!("the thread failed: {e}"),
    }
}

/// Limits for trusted big inputs: the whole-call budgets out of the way, so
/// the cases measure the algorithms.
fn big_limits() -> Limits {
    Limits {
        max_steps: u64::MAX / 4,
        max_memory_bytes: usize::MAX / 4,
        max_output_bytes: usize::MAX / 4,
        max_outputs: 1_000_000,
        max_collection_len: 10_000_000,
        max_input_nodes: 10_000_000,
        max_input_bytes: 256 << 20,
        ..Limits::default()
    }
}

const STATUS: &str = r#"{"phaseDefinition": {"path": ".status.phase"},
    "statusMappings": {"running": [{"byPhase": "Running"}]}}"#;

/// A `Karta` for `example.com/v1 Thing` with the given root fields (merged
/// into the root component), child components and further `spec` fields.
fn karta(root: Value, children: Vec<Value>, spec_extra: Value) -> String {
    let mut root_component = json!({
        "name": "thing",
        "kind": {"group": "example.com", "version": "v1", "kind": "Thing"},
        "statusDefinition": serde_json::from_str::<Value>(STATUS).unwrap(),
    });
    for (k, v) in root.as_object().cloned().unwrap_or_default() {
        root_component[k] = v;
    }
    let mut spec = json!({"structureDefinition": {
        "rootComponent": root_component,
        "childComponents": children,
    }});
    for (k, v) in spec_extra.as_object().cloned().unwrap_or_default() {
        spec[k] = v;
    }
    serde_json::to_string(&json!({
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "metadata": {"name": "example-com-thing-v1"},
        "spec": spec,
    }))
    .unwrap()
}

fn thing(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Thing",
           "metadata": {"name": "t", "namespace": "ns", "uid": "u1"}, "spec": spec})
}

fn pod(name: String, labels: Value, node: String) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "ns", "labels": labels},
           "spec": {"nodeName": node, "containers": [{"name": "c"}]},
           "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
}

// ---------------------------------------------------------------------------
// The JSON reader
// ---------------------------------------------------------------------------

#[test]
fn json_long_key_above_many_numbers_reads_in_linear_time() {
    // A 10 MB key above 400,000 numbers (12.7 MB in all): every number's
    // path used to repeat the key (4 TB of copying; 100,000 numbers took
    // 41 s in a debug build, past 150 s through the CLI).
    let text = within(60, || {
        let numbers: Vec<String> = (0..400_000).map(|i| i.to_string()).collect();
        let text = format!(
            "{{\"{}\": [{}]}}",
            "k".repeat(10_000_000),
            numbers.join(",")
        );
        let docs = parse_documents(&text, &Limits::default()).unwrap();
        let v = &docs[0].value;
        let (key, items) = v.as_object().unwrap().iter().next().unwrap();
        assert_eq!(key.len(), 10_000_000);
        assert_eq!(items.as_array().unwrap().len(), 400_000);
        // Positions are still recorded for the values below the key.
        let path = format!("[\"{key}\"][399999]");
        assert_eq!(docs[0].spans.get(&path).map(|p| p.0), Some(1));
        text.len()
    });
    assert!(text > 10_000_000);
}

#[test]
fn json_deep_chain_of_long_keys_reads_in_linear_time() {
    // 120 levels of 100 KB keys (12 MB): the path of each level used to
    // hold every key above it (0.7 GB in all).
    within(60, || {
        let depth = 120;
        let key = |d: usize| format!("{d}{}", "k".repeat(100_000));
        let mut text = String::new();
        for d in 0..depth {
            text.push_str(&format!("{{\"{}\": ", key(d)));
        }
        text.push_str("[1, 2, 3]");
        text.push_str(&"}".repeat(depth));
        let docs = parse_documents(&text, &Limits::default()).unwrap();
        let mut path = String::new();
        for d in 0..depth {
            path.push_str(&format!("[\"{}\"]", key(d)));
        }
        path.push_str("[2]");
        assert!(docs[0].spans.get(&path).is_some());
    });
}

#[test]
fn json_errors_keep_their_paths() {
    // Errors still name the full path, built only when they happen.
    let e = parse_documents(
        r#"{"a": {"b.c": [1, {"x": 1, "y": [0, 0], "x": 2}]}}"#,
        &Limits::default(),
    )
    .unwrap_err();
    assert_eq!(e.location().field.as_deref(), Some(r#"a["b.c"][1].x"#));
    assert!(
        e.message().starts_with("duplicate mapping key \"x\""),
        "{e}"
    );
    let limits = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    let e = parse_documents(r#"{"a": [{"": [[1]]}]}"#, &limits).unwrap_err();
    assert_eq!(e.limit(), Some("maxDepth"));
    assert_eq!(e.location().field.as_deref(), Some(r#"a[0][""]"#));
    let limits = Limits {
        max_input_nodes: 4,
        ..Limits::default()
    };
    let e = parse_documents(r#"{"a": {"b": [1, 2, 3]}}"#, &limits).unwrap_err();
    assert_eq!(e.limit(), Some("maxInputNodes"));
    assert_eq!(e.location().field.as_deref(), Some("a.b[1]"));
    assert_eq!(
        (e.location().line, e.location().column),
        (Some(1), Some(17))
    );
}

/// A YAML chain of `depth` mappings whose explicit keys (`? key`) are about
/// `key_len` bytes, alternating identifiers (`k0kkk…`, spelled `.k0kkk…` in
/// a path) and keys that need quoting (`1.kkk…`, spelled `["1.kkk…"]`),
/// with `tail` as the content of the innermost mapping. Returns the text and
/// the path of the innermost mapping.
fn yaml_key_chain(depth: usize, key_len: usize, tail: &str) -> (String, String) {
    let key = |d: usize| {
        if d.is_multiple_of(2) {
            format!("k{d}{}", "k".repeat(key_len))
        } else {
            format!("{d}.{}", "k".repeat(key_len))
        }
    };
    let mut text = String::new();
    let mut path = String::new();
    for d in 0..depth {
        let indent = "  ".repeat(d);
        text.push_str(&format!("{indent}? {}\n{indent}:\n", key(d)));
        if d.is_multiple_of(2) {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&key(d));
        } else {
            path.push_str(&format!("[\"{}\"]", key(d)));
        }
    }
    text.push_str(&"  ".repeat(depth));
    text.push_str(tail);
    text.push('\n');
    (text, path)
}

#[test]
fn yaml_deep_chain_of_long_keys_reads_in_linear_time() {
    // 120 levels of 100 KB explicit keys (12 MB): the path of each open
    // mapping used to hold every key above it (2.7 s and 1.5 GB of memory
    // in the release CLI).
    within(60, || {
        let depth = 120;
        let (text, path) = yaml_key_chain(depth, 100_000, "x: [1, 2, 3]");
        let docs = parse_documents(&text, &Limits::default()).unwrap();
        assert_eq!(docs.len(), 1);
        // Positions are still recorded for every level.
        let line = 2 * depth + 1;
        assert_eq!(
            docs[0].spans.get(&path),
            Some((2 * depth - 1, 2 * depth + 1))
        );
        assert_eq!(
            docs[0].spans.get(&format!("{path}.x")),
            Some((line, 2 * depth + 1))
        );
        assert_eq!(
            docs[0].spans.get(&format!("{path}.x[2]")),
            Some((line, 2 * depth + 11))
        );
        let mut value = &docs[0].value;
        for _ in 0..depth {
            let Value::Object(map) = value else {
                panic!("not a mapping")
            };
            assert_eq!(map.len(), 1);
            value = map.values().next().unwrap();
        }
        assert_eq!(value, &json!({"x": [1, 2, 3]}));
    });
}

#[test]
fn yaml_errors_deep_in_a_chain_of_long_keys_keep_their_exact_paths() {
    // The path is built only for the error, and is still the whole path.
    within(60, || {
        let depth = 120;
        let line = 2 * depth + 1;
        let (text, path) = yaml_key_chain(depth, 100_000, "x: [1, 2, {y: 1, y: 2}]");
        let e = parse_documents(&text, &Limits::default()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Parse);
        assert_eq!(
            e.message(),
            format!(
                "duplicate mapping key \"y\" (first defined at line {line}, column {})",
                2 * depth + 12
            )
        );
        // The error keeps a 512-byte preview of the field, with the length
        // of the whole path.
        let full = format!("{path}.x[2].y");
        let preview = format!("{}... ({} more bytes)", &full[..512], full.len() - 512);
        assert_eq!(e.location().field.as_deref(), Some(preview.as_str()));
        assert_eq!(
            (e.location().line, e.location().column),
            (Some(line), Some(2 * depth + 18))
        );

        // The same error, and others, deep in such a chain with keys short
        // enough for the whole path to be kept.
        let depth = 40;
        let (text, path) = yaml_key_chain(depth, 4, "x: [1, 2, {y: 1, y: 2}]");
        assert!(path.len() < 400);
        let e = parse_documents(&text, &Limits::default()).unwrap_err();
        assert_eq!(
            e.location().field.as_deref(),
            Some(format!("{path}.x[2].y").as_str())
        );
        let line = 2 * depth + 1;
        let cases = [
            (
                "x: [1, 2, {<<: 3}]",
                "the merge key '<<' needs a mapping or a sequence of mappings",
                ".x[2][\"<<\"]",
            ),
            (
                "x: [1, .inf]",
                "value .inf is not representable in JSON (infinity and NaN are not allowed)",
                ".x[1]",
            ),
            (
                "x: {a: 1, ~: 2}",
                "a null mapping key is not supported (quote the key to make it a string)",
                ".x",
            ),
            (
                "x: &a [1, *a]",
                "alias refers to an anchor that is not complete yet (recursive aliases are not supported)",
                ".x[1]",
            ),
        ];
        for (tail, message, field) in cases {
            let (text, path) = yaml_key_chain(depth, 4, tail);
            let e = parse_documents(&text, &Limits::default()).unwrap_err();
            assert_eq!(e.message(), message, "{tail}");
            let want = format!("{path}{field}");
            assert_eq!(e.location().field.as_deref(), Some(want.as_str()), "{tail}");
            assert_eq!(e.location().line, Some(line), "{tail}");
        }

        // A limit deep in the chain names the path of the value refused.
        let (text, path) = yaml_key_chain(depth, 4, "x: [1, 2, [[1]]]");
        let limits = Limits {
            max_depth: depth + 2,
            ..Limits::default()
        };
        let e = parse_documents(&text, &limits).unwrap_err();
        assert_eq!(e.limit(), Some("maxDepth"));
        assert_eq!(
            e.location().field.as_deref(),
            Some(format!("{path}.x[2]").as_str())
        );
        let (text, path) = yaml_key_chain(depth, 4, "x: [1, 2, 3]");
        let limits = Limits {
            max_input_nodes: depth + 3,
            ..Limits::default()
        };
        let e = parse_documents(&text, &limits).unwrap_err();
        assert_eq!(e.limit(), Some("maxInputNodes"));
        assert_eq!(
            e.location().field.as_deref(),
            Some(format!("{path}.x[1]").as_str())
        );
        assert_eq!(
            (e.location().line, e.location().column),
            (Some(line), Some(2 * depth + 8))
        );
    });
}

// ---------------------------------------------------------------------------
// Pod attribution
// ---------------------------------------------------------------------------

/// One pod-bearing component: every pod belongs to it.
fn single_component() -> CompiledDefinition {
    let text = karta(
        json!({"specDefinition": {"podTemplateSpecPath": ".spec.template"}}),
        vec![],
        json!({}),
    );
    CompiledDefinition::from_text(&text, big_limits()).unwrap()
}

#[test]
fn attribute_100k_pods_on_100k_distinct_nodes() {
    // The live node list of the instance was searched and re-sorted for
    // every pod: 100,000 pods on distinct nodes took 89 s in release.
    within(120, || {
        let def = single_component();
        let n = 100_000;
        // Nodes in reverse order, so a sort per pod has real work to do.
        let pods: Vec<Value> = (0..n)
            .map(|i| pod(format!("p{i}"), json!({}), format!("node-{:06}", n - i)))
            .collect();
        let obj = thing(json!({"template": {"spec": {"containers": [{"name": "c"}]}}}));
        let r = def.resolve_with_pods(&obj, &pods).unwrap();
        let live = r.components[0].instances[0].live.as_ref().unwrap();
        assert_eq!(live.pods.len(), n);
        assert_eq!(live.ready, n as u64);
        assert_eq!(live.nodes.len(), n);
        assert!(live.nodes.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(live.nodes[0], "node-000001");
        assert_eq!(r.unattributed_pods.as_deref().map(<[_]>::len), Some(0));
    });
}

#[test]
fn attribute_100k_pods_to_10k_instances() {
    // Each pod's instance id was searched in the id list (pods x ids), and
    // each attributed pod searched the instance list again.
    within(120, || {
        let ids = 10_000;
        let text = karta(
            json!({}),
            vec![json!({
                "name": "worker", "ownerRef": "thing",
                "instanceIdPath": ".spec.groups[].name",
                "podSelector": {"componentInstanceSelector": {"idPath": ".metadata.labels.group"}},
                "specDefinition": {"podTemplateSpecPath": ".spec.groups[].template"},
            })],
            json!({}),
        );
        let def = CompiledDefinition::from_text(&text, big_limits()).unwrap();
        let groups: Vec<Value> = (0..ids)
            .map(|i| json!({"name": format!("g{i}"), "template": {"spec": {"containers": [{"name": "c"}]}}}))
            .collect();
        let obj = thing(json!({"groups": groups}));
        let n = 100_000;
        let mut pods: Vec<Value> = (0..n)
            .map(|i| {
                pod(
                    format!("p{i}"),
                    json!({"group": format!("g{}", i % ids)}),
                    format!("n{}", i % 7),
                )
            })
            .collect();
        pods.push(pod("stray".into(), json!({"group": "nowhere"}), "n".into()));
        let r = def.resolve_with_pods(&obj, &pods).unwrap();
        let worker = &r.components[1];
        assert_eq!(worker.instances.len(), ids);
        for (i, inst) in worker.instances.iter().enumerate() {
            let live = inst.live.as_ref().unwrap();
            assert_eq!(live.pods.len(), n / ids, "instance {i}");
        }
        let mut nodes: Vec<String> = (3..n).step_by(ids).map(|i| format!("n{}", i % 7)).collect();
        nodes.sort();
        nodes.dedup();
        assert_eq!(worker.instances[3].live.as_ref().unwrap().nodes, nodes);
        // The stray pod's finding names the count, not all 10,000 ids.
        let stray = &r.unattributed_pods.as_ref().unwrap()[0];
        assert_eq!(stray.name, "stray");
        let m = &stray.findings[0].message;
        assert_eq!(stray.findings[0].code, "unknown-instance");
        assert!(m.len() < 400, "{m}");
        assert!(
            m.starts_with("could not match instance id \"nowhere\". existing instance ids [g0 g1 "),
            "{m}"
        );
        assert!(m.ends_with(" more]"), "{m}");
    });
}

#[test]
fn ambiguous_component_lists_are_capped() {
    let children: Vec<Value> = (0..30)
        .map(|i| {
            json!({
                "name": format!("c{i:02}"), "ownerRef": "thing",
                "specDefinition": {"podTemplateSpecPath": ".spec.template"},
                "podSelector": {"componentTypeSelector": {"matchLabels": {"app": "x"}}},
            })
        })
        .collect();
    let def =
        CompiledDefinition::from_text(&karta(json!({}), children, json!({})), Limits::default())
            .unwrap();
    let a = def
        .attribute_pods(None, &[pod("p".into(), json!({"app": "x"}), "n".into())])
        .unwrap();
    let f = &a.pods[0].findings[0];
    assert_eq!(f.code, "ambiguous-component");
    assert_eq!(
        f.message,
        "the pod matches the selectors of several components (c00, c01, c02, c03, c04, c05, c06, c07, c08, c09, and 20 more); attributed to the first"
    );
    assert_eq!(a.pods[0].component.as_deref(), Some("c00"));
}

#[test]
fn attribution_work_is_metered_per_call() {
    // Pods x selectors is engine work: with a small step budget, many pods
    // against many selectors stop with the typed limit error.
    let children: Vec<Value> = (0..50)
        .map(|i| {
            json!({
                "name": format!("c{i}"), "ownerRef": "thing",
                "specDefinition": {"podTemplateSpecPath": ".spec.template"},
                "podSelector": {"componentTypeSelector": {"matchLabels": {"app": format!("a{i}")}}},
            })
        })
        .collect();
    let limits = Limits {
        max_steps: 10_000,
        ..Limits::default()
    };
    let def =
        CompiledDefinition::from_text(&karta(json!({}), children, json!({})), limits).unwrap();
    let pods: Vec<Value> = (0..1000)
        .map(|i| pod(format!("p{i}"), json!({"app": "a49"}), "n".into()))
        .collect();
    let e = def.attribute_pods(None, &pods).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert_eq!(e.limit(), Some("maxSteps"));
    // A few pods fit.
    let a = def.attribute_pods(None, &pods[..10]).unwrap();
    assert!(a.pods.iter().all(|p| p.component.as_deref() == Some("c49")));
}

// ---------------------------------------------------------------------------
// Gang grouping
// ---------------------------------------------------------------------------

#[test]
fn gang_50k_groups_keep_first_appearance_order() {
    // Each pod searched the group list: 50,000 groups took 21 s in release.
    within(120, || {
        let text = karta(
            json!({"specDefinition": {"podTemplateSpecPath": ".spec.template"}}),
            vec![],
            json!({"optimizationInstructions": {"gangScheduling": {"podGroups": [
                {"name": "g", "members": [{"componentName": "thing",
                    "groupByKeyPaths": [".metadata.labels.group"]}]}
            ]}}}),
        );
        let def = CompiledDefinition::from_text(&text, big_limits()).unwrap();
        let obj = thing(json!({"template": {"spec": {"containers": [{"name": "c"}]}}}));
        let groups = 50_000;
        let again = 10_000;
        // A pod per group, then a second pod for the first 10,000 groups in
        // reverse: groups are in order of first appearance, not by name or
        // by last member.
        let pods: Vec<Value> = (0..groups)
            .chain((0..again).rev())
            .enumerate()
            .map(|(i, g)| {
                pod(
                    format!("p{i}"),
                    json!({"group": format!("k{g}")}),
                    "n".into(),
                )
            })
            .collect();
        let report = def.gang_groups(&obj, &pods).unwrap();
        assert_eq!(report.pods.len(), groups + again);
        assert_eq!(report.groups.len(), groups);
        for (g, group) in report.groups.iter().enumerate() {
            assert_eq!(group.name, format!("pg-u1-k{g}"));
            let mut members = vec![format!("p{g}")];
            if g < again {
                members.push(format!("p{}", groups + again - 1 - g));
            }
            assert_eq!(group.members, members);
            assert_eq!(group.min_member, 1);
        }
    });
}

#[test]
fn gang_compile_of_many_members_is_linear() {
    // Candidates were found by scanning every member for every ancestor of
    // every component (components x depth x members): 20,000 components in
    // chains 32 deep, each a member of a pod group.
    within(120, || {
        let n = 20_000;
        let owner = |i: usize| {
            if i.is_multiple_of(32) {
                "thing".to_string()
            } else {
                format!("c{}", i - 1)
            }
        };
        let children: Vec<Value> = (0..n)
            .map(|i| {
                let mut c = json!({
                    "name": format!("c{i}"),
                    "ownerRef": owner(i),
                    "podSelector": {"componentTypeSelector": {"matchLabels": {"c": format!("c{i}")}}},
                });
                if i == 6 || i == n - 1 {
                    c["specDefinition"] = json!({"podTemplateSpecPath": ".spec.template"});
                }
                c
            })
            .collect();
        let member = |i: usize| json!({"componentName": format!("c{i}")});
        let text = karta(
            json!({}),
            children,
            json!({"optimizationInstructions": {"gangScheduling": {"podGroups": [
                {"name": "even", "members": (0..n).step_by(2).map(member).collect::<Vec<_>>()},
                {"name": "odd", "members": (1..n).step_by(2).map(member).collect::<Vec<_>>()},
            ]}}}),
        );
        let def = CompiledDefinition::from_text(&text, big_limits()).unwrap();
        let obj = thing(json!({"template": {"spec": {"containers": [{"name": "c"}]}}}));
        let pods = vec![
            pod("a".into(), json!({"c": "c19999"}), "n".into()),
            pod("b".into(), json!({"c": "c6"}), "n".into()),
        ];
        let report = def.gang_groups(&obj, &pods).unwrap();
        assert_eq!(
            report.pods[0].effective_component.as_deref(),
            Some("c19999")
        );
        assert_eq!(report.pods[0].pod_group.as_deref(), Some("odd"));
        assert_eq!(report.pods[1].pod_group.as_deref(), Some("even"));
        // No group keys: one scheduler group, named after the workload.
        assert_eq!(report.groups.len(), 1);
        assert_eq!(report.groups[0].members, ["a", "b"]);
    });
}

// ---------------------------------------------------------------------------
// The component tree: owner chains
// ---------------------------------------------------------------------------

/// A definition whose components form one ownership chain `depth` levels
/// below the root (`c1` owned by the root, `c2` by `c1`, ...), listed in
/// definition order or reversed.
fn chain(depth: usize, reversed: bool) -> String {
    let mut children: Vec<Value> = (1..=depth)
        .map(|i| {
            let owner = if i == 1 {
                "thing".to_string()
            } else {
                format!("c{}", i - 1)
            };
            let mut c = json!({"name": format!("c{i}"), "ownerRef": owner});
            if i == depth {
                c["specDefinition"] = json!({"podTemplateSpecPath": ".spec.template"});
            }
            c
        })
        .collect();
    if reversed {
        children.reverse();
    }
    karta(json!({}), children, json!({}))
}

#[test]
fn deep_ownership_chains_are_refused_at_compile() {
    // 16,000 levels overflowed the stack; 10,000 gave a 1 GB, 10,000-deep
    // resolved structure. The tree may be maxDepth / 4 levels deep.
    for (depth, reversed) in [
        (16_000, false),
        (10_000, false),
        (10_000, true),
        (33, false),
    ] {
        let e = within(60, move || {
            CompiledDefinition::from_text(&chain(depth, reversed), Limits::default()).unwrap_err()
        });
        assert_eq!(e.code(), ErrorCode::Limit, "{e}");
        assert_eq!(e.limit(), Some("maxDepth"), "{e}");
        assert!(
            e.message().contains("32 levels"),
            "{depth}: {}",
            e.message()
        );
        // Located at the ownerRef of the first component too deep (the 33rd
        // level of the chain).
        let index = if reversed { depth - 33 } else { 32 };
        assert_eq!(
            e.location().field.as_deref(),
            Some(format!("spec.structureDefinition.childComponents[{index}].ownerRef").as_str()),
            "{e}"
        );
        assert_eq!(e.location().component.as_deref(), Some("c33"));
        assert!(e.location().line.is_some());
    }
}

#[test]
fn ownership_chains_within_the_bound_resolve() {
    within(60, || {
        let def = CompiledDefinition::from_text(&chain(32, true), Limits::default()).unwrap();
        let obj = thing(json!({"template": {"spec": {"containers": [{"name": "c"}]}}}));
        let r = def.resolve(&obj).unwrap();
        assert_eq!(r.components.len(), 33);
        let mut node: &workload_lens::TreeNode = &r.tree;
        for i in 1..=32 {
            assert_eq!(node.children.len(), 1);
            node = &node.children[0];
            assert_eq!(node.component, format!("c{i}"));
        }
        // The resolved JSON nests within serde_json's default recursion
        // limit (128), the tightest reader of the runtimes.
        let text = serde_json::to_string(&r).unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["tree"]["component"], "thing");
    });
}

#[test]
fn the_deepest_tree_allowed_fits_a_small_stack() {
    // maxDepth raised past its ceiling (512): trees of 128 levels, whose
    // resolved structure is serialized, compared and dropped recursively.
    within(60, || {
        let limits = Limits {
            max_depth: 100_000,
            ..Limits::default()
        };
        let e = CompiledDefinition::from_text(&chain(129, false), limits).unwrap_err();
        assert_eq!(e.limit(), Some("maxDepth"));
        assert!(e.message().contains("128 levels"), "{e}");
        let def = CompiledDefinition::from_text(&chain(128, false), limits).unwrap();
        let obj = thing(json!({"template": {"spec": {"containers": [{"name": "c"}]}}}));
        let r = def.resolve(&obj).unwrap();
        assert_eq!(r.clone(), r);
        let text = serde_json::to_string(&r.to_json()).unwrap();
        assert_eq!(text.matches("\"children\":[{").count(), 128);
        format!("{r:?}").len()
    });
}

#[test]
fn lowered_max_depth_refuses_deep_trees_before_resolving() {
    // A compiled definition evaluated with a smaller maxDepth: the tree is
    // checked before any work.
    within(60, || {
        let def = CompiledDefinition::from_text(&chain(20, false), Limits::default())
            .unwrap()
            .with_limits(Limits {
                max_depth: 16,
                ..Limits::default()
            });
        let obj = thing(json!({"template": {"spec": {"containers": [{"name": "c"}]}}}));
        let e = def.resolve(&obj).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Limit);
        assert_eq!(e.limit(), Some("maxDepth"));
        assert!(e.message().contains("4 levels"), "{e}");
        assert_eq!(
            e.location().field.as_deref(),
            Some("spec.structureDefinition.childComponents[4].ownerRef")
        );
        let e = def.resolve_with_pods(&obj, &[]).unwrap_err();
        assert_eq!(e.limit(), Some("maxDepth"));
    });
}

#[test]
fn many_components_link_in_linear_time() {
    // Owner linking searched the component list for every component: the
    // owners here are the last 100 components, so each search went through
    // the whole list.
    within(120, || {
        let n = 50_000;
        let children: Vec<Value> = (0..n)
            .map(|i| {
                let owner = if i >= n - 100 {
                    "thing".to_string()
                } else {
                    format!("c{}", n - 100 + i % 100)
                };
                json!({"name": format!("c{i}"), "ownerRef": owner})
            })
            .collect();
        let mut children = children;
        children[0]["specDefinition"] = json!({"podTemplateSpecPath": ".spec.template"});
        let text = karta(json!({}), children, json!({}));
        let def = CompiledDefinition::from_text(&text, big_limits()).unwrap();
        assert_eq!(def.component_names().len(), n + 1);
    });
}

// ---------------------------------------------------------------------------
// Bounded messages
// ---------------------------------------------------------------------------

#[test]
fn empty_instance_id_messages_are_bounded() {
    let text = karta(
        json!({}),
        vec![json!({
            "name": "worker", "ownerRef": "thing",
            "instanceIdPath": ".spec.groups[].name",
            "podSelector": {"componentInstanceSelector": {"idPath": ".metadata.labels.group"}},
            "specDefinition": {"podTemplateSpecPath": ".spec.groups[].template"},
        })],
        json!({}),
    );
    let def = CompiledDefinition::from_text(&text, big_limits()).unwrap();
    let mut groups: Vec<Value> = (0..1000)
        .map(|i| json!({"name": format!("{i}-{}", "x".repeat(1000))}))
        .collect();
    groups.push(json!({"name": ""}));
    let e = def.resolve(&thing(json!({"groups": groups}))).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Conversion);
    let m = e.message();
    assert!(m.len() < 400, "{} bytes: {m}", m.len());
    assert!(
        m.starts_with("instance id path contained empty string values [0-xxx"),
        "{m}"
    );
    assert!(m.ends_with("(1001 ids, 1 empty)"), "{m}");
    // Short lists are shown whole, as before.
    let e = def
        .resolve(&thing(json!({"groups": [{"name": "w1"}, {"name": ""}]})))
        .unwrap_err();
    assert_eq!(
        e.message(),
        "instance id path contained empty string values [w1,]"
    );
}
