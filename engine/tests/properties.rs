//! Property tests: evaluation never panics and stays bounded on arbitrary
//! expressions and inputs; attribution and gang groups keep their
//! invariants on arbitrary pods and JobSets.

mod common;

use common::engine;
use proptest::prelude::*;
use serde_json::{Value, json};
use workload_lens::{ErrorCode, Limits, evaluate};

/// Small jq programs built from the pieces definitions use.
fn expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just(".".to_string()),
        "[a-c]".prop_map(|k| format!(".{k}")),
        Just(".[]?".to_string()),
        Just("length".to_string()),
        Just("keys".to_string()),
        Just("tostring".to_string()),
        Just("tojson".to_string()),
        Just("null".to_string()),
        (-5i64..50).prop_map(|n| n.to_string()),
        "[a-z]{0,4}".prop_map(|s| format!("{s:?}")),
        Just("to_entries".to_string()),
        Just("add".to_string()),
        Just("type".to_string()),
    ];
    leaf.prop_recursive(4, 32, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) | ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}), ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) // ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) + ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) * ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) == ({b})")),
            inner.clone().prop_map(|a| format!("[{a}]")),
            inner.clone().prop_map(|a| format!("{{k: ({a})}}")),
            inner.clone().prop_map(|a| format!("select({a})")),
            inner.clone().prop_map(|a| format!("map({a})?")),
            inner.clone().prop_map(|a| format!("try ({a}) catch .")),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| format!("reduce ({a}) as $x ({b}; . + $x)")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("if ({a}) then ({b}) else . end")),
        ]
    })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        "[a-z ]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-c]", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn evaluation_never_panics_and_is_bounded(e in expr(), input in json_value()) {
        let limits = Limits { max_steps: 20_000, ..Limits::default() };
        match evaluate(&e, &input, &limits) {
            Ok(outs) => prop_assert!(outs.len() <= limits.max_outputs),
            Err(err) => prop_assert!(matches!(
                err.code(),
                ErrorCode::JqRuntime | ErrorCode::JqCompile | ErrorCode::Limit
            ), "{}", err),
        }
    }

    #[test]
    fn evaluation_is_deterministic(e in expr(), input in json_value()) {
        let limits = Limits { max_steps: 20_000, ..Limits::default() };
        let a = evaluate(&e, &input, &limits).map_err(|e| (e.code(), e.limit().map(str::to_string)));
        let b = evaluate(&e, &input, &limits).map_err(|e| (e.code(), e.limit().map(str::to_string)));
        prop_assert_eq!(a, b);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let limits = Limits::default();
        let _ = evaluate(&text, &json!({}), &limits);
        let _ = workload_lens::CompiledDefinition::from_text(&text, limits);
        let _ = engine()
            .read_object(&text)
            .and_then(|o| engine().resolve(&o).map(|r| r.into_owned()));
        let _ = engine().read_objects(&text);
    }
}

fn jobset(jobs: &[(String, Option<u32>, Option<u32>)]) -> Value {
    let rj: Vec<Value> = jobs
        .iter()
        .map(|(name, replicas, parallelism)| {
            let mut spec = json!({"template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "2"}}}]}}});
            if let Some(p) = parallelism {
                spec["parallelism"] = json!(p);
            }
            let mut j = json!({"name": name, "template": {"spec": spec}});
            if let Some(r) = replicas {
                j["replicas"] = json!(r);
            }
            j
        })
        .collect();
    json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "js", "uid": "u"}, "spec": {"replicatedJobs": rj}})
}

/// A pod with the given labels.
fn pod(name: &str, labels: &[(String, String)]) -> Value {
    let labels: serde_json::Map<String, Value> =
        labels.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    common::pod(name, Value::Object(labels))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// JobSet totals are the sum of replicas x parallelism (defaults 1), and
    /// the whole-JobSet gang needs exactly that many members.
    #[test]
    fn jobset_totals_and_gang_minimum(
        jobs in prop::collection::btree_map("[a-z]{1,6}", (prop::option::of(0u32..4), prop::option::of(0u32..4)), 1..4),
        label_sets in prop::collection::vec(prop::collection::vec(("[a-z]{1,3}", "[a-z]{1,3}"), 0..3), 0..6),
    ) {
        let jobs: Vec<(String, Option<u32>, Option<u32>)> = jobs.into_iter().map(|(k, (r, p))| (k, r, p)).collect();
        let expected: u64 = jobs.iter().map(|(_, r, p)| u64::from(r.unwrap_or(1)) * u64::from(p.unwrap_or(1))).sum();
        let obj = jobset(&jobs);
        let r = engine().resolve(&obj).unwrap();
        prop_assert_eq!(r.totals.pods, expected);
        prop_assert_eq!(r.totals.resources.gpu, expected * 2);
        let def = engine().definition_for(&obj).unwrap();
        // Pods of this JobSet: one per job name with the JobSet labels.
        let mut pods: Vec<Value> = jobs
            .iter()
            .map(|(name, _, _)| pod(&format!("p-{name}"), &[
                ("jobset.sigs.k8s.io/jobset-name".into(), "js".into()),
                ("jobset.sigs.k8s.io/replicatedjob-name".into(), name.clone()),
                ("jobset.sigs.k8s.io/job-index".into(), "0".into()),
            ]))
            .collect();
        let g = def.gang_groups(&obj, &pods).unwrap();
        prop_assert_eq!(g.groups.len(), 1);
        prop_assert_eq!(g.groups[0].min_member, expected as i64);
        // Foreign pods: attribution never errors, every pod is reported once;
        // pods without the JobSet's name label are another workload's.
        let own = pods.len();
        for (i, ls) in label_sets.iter().enumerate() {
            pods.push(pod(&format!("x{i}"), ls));
        }
        let a = def.attribute_pods(Some(&obj), &pods).unwrap();
        prop_assert_eq!(a.pods.len(), pods.len());
        for (k, p) in a.pods.iter().enumerate() {
            if k < own {
                // One pod-bearing component: every pod of the JobSet lands there.
                prop_assert_eq!(p.component.as_deref(), Some("replicatedjob"));
                if let Some(i) = &p.instance {
                    prop_assert!(jobs.iter().any(|(n, _, _)| n == i));
                }
            } else {
                prop_assert_eq!(p.component.as_deref(), None);
                prop_assert_eq!(p.findings[0].code.as_str(), "other-workload");
            }
        }
        prop_assert_eq!(a.stray.len(), pods.len() - own);
        prop_assert!(a.unattributed.is_empty());
    }
}
