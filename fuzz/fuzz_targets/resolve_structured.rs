//! Resolve on arbitrary objects built by `arbitrary`: a Kubernetes-shaped
//! value (keys and quantity-like strings from the catalog's vocabulary, so
//! that definitions' paths find something) stamped with the picked catalog
//! definition's kind, plus pods, through resolve, live resolve, attribution,
//! gang groups, status and suspend.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

#[path = "common.rs"]
mod common;

const KEYS: &[&str] = &[
    "spec",
    "status",
    "metadata",
    "name",
    "labels",
    "annotations",
    "template",
    "replicas",
    "minReplicas",
    "maxReplicas",
    "parallelism",
    "completions",
    "containers",
    "initContainers",
    "resources",
    "requests",
    "limits",
    "nvidia.com/gpu",
    "cpu",
    "memory",
    "ephemeral-storage",
    "replicatedJobs",
    "replicaSpecs",
    "Worker",
    "Master",
    "Launcher",
    "workerGroupSpecs",
    "headGroupSpec",
    "services",
    "components",
    "conditions",
    "type",
    "reason",
    "phase",
    "ready",
    "restartPolicy",
    "overhead",
    "suspend",
    "size",
    "leaderWorkerTemplate",
    "workerTemplate",
    "groupName",
    "image",
    "nodeName",
    "ownerReferences",
    "uid",
    "kind",
    "apiVersion",
    "runPolicy",
    "jobs",
    "podTemplate",
    "tasks",
    "roles",
    "pipelineRef",
    "state",
    "jobStatus",
    "count",
];
const STRINGS: &[&str] = &[
    "",
    "1",
    "0",
    "-1",
    "8",
    "100m",
    "1.5",
    "64Gi",
    "1Ei",
    "8Ei",
    "1e3",
    "1e999",
    "0.000001",
    "9223372036854775807",
    "18446744073709551616",
    "NaN",
    "+1",
    "1k",
    "1Ki",
    "x",
    "True",
    "Running",
    "Failed",
    "Succeeded",
    "Pending",
    "Ready",
    "Complete",
    "Suspended",
    "worker",
    "leader",
    "Always",
    "OnFailure",
    "Never",
    "nvidia.com/gpu",
    "\u{0}",
    "\u{fffd}",
];

fn value(u: &mut Unstructured, depth: usize) -> arbitrary::Result<Value> {
    let pick = if depth >= 12 {
        u.int_in_range(0..=5)?
    } else {
        u.int_in_range(0..=8)?
    };
    Ok(match pick {
        0 => Value::Null,
        1 => Value::Bool(bool::arbitrary(u)?),
        2 => json!(u.int_in_range(-3i64..=10)?),
        3 => json!(i64::arbitrary(u)?),
        4 => serde_json::Number::from_f64(f64::arbitrary(u)?).map_or(Value::Null, Value::Number),
        5 => Value::String(if bool::arbitrary(u)? {
            u.choose(STRINGS)?.to_string()
        } else {
            String::arbitrary(u)?
        }),
        6 | 7 => {
            let n = u.int_in_range(0..=6)?;
            let mut m = Map::new();
            for _ in 0..n {
                let k = if u.ratio(7, 8)? {
                    u.choose(KEYS)?.to_string()
                } else {
                    String::arbitrary(u)?
                };
                m.insert(k, value(u, depth + 1)?);
            }
            Value::Object(m)
        }
        _ => {
            let n = u.int_in_range(0..=4)?;
            Value::Array(
                (0..n)
                    .map(|_| value(u, depth + 1))
                    .collect::<arbitrary::Result<_>>()?,
            )
        }
    })
}

fuzz_target!(
    // Compiling the catalog takes seconds under the sanitizers: do it before
    // libFuzzer starts timing inputs.
    init: {
        common::catalog();
    },
    |data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(pick), Ok(mut obj)) = (u8::arbitrary(&mut u), value(&mut u, 0)) else {
        return;
    };
    let pods: Vec<Value> = (0..u.int_in_range(0..=3).unwrap_or(0))
        .filter_map(|_| value(&mut u, 1).ok())
        .collect();
    let defs = common::catalog();
    let def = &defs[pick as usize % defs.len()];
    let gvk = def.root_gvk();
    if let Value::Object(m) = &mut obj {
        let api = if gvk.group.is_empty() { gvk.version.clone() } else { format!("{}/{}", gvk.group, gvk.version) };
        m.insert("apiVersion".into(), json!(api));
        m.insert("kind".into(), json!(gvk.kind));
        if !m.get("metadata").is_some_and(Value::is_object) || u.ratio(1, 4).unwrap_or(false) {
            m.insert("metadata".into(), json!({"name": "w", "namespace": "ns", "uid": "u"}));
        }
    }
    let a = def.resolve(&obj);
    if let Err(e) = &a {
        common::check_error(e);
    }
    common::deterministic(&a, &def.resolve(&obj));
    let results = [
        def.resolve_with_pods(&obj, &pods).map(|_| ()),
        def.attribute_pods(Some(&obj), &pods).map(|_| ()),
        def.gang_groups(&obj, &pods).map(|_| ()),
        def.status(&obj).map(|_| ()),
        def.suspend(&obj).map(|_| ()),
    ];
    for r in results {
        if let Err(e) = r {
            common::check_error(&e);
        }
    }
}
);
