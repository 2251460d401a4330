//! Realistic workloads for the benchmarks, generated from the repository's
//! own example and catalog fixtures (nothing fetched).

#![allow(dead_code)]

use serde_json::{Value, json};
use workload_lens::{Engine, Limits};

pub const JOBSET: &str = include_str!("../../../examples/jobset.yaml");
const MILVUS: &str =
    include_str!("../../../definitions/fixtures/milvus-io-milvus-v1beta1/running.yaml");
const DYNAMO: &str = include_str!(
    "../../../definitions/fixtures/nvidia-com-dynamographdeployment-v1alpha1/running.yaml"
);

/// Limits for trusted, very large objects (the size-scaling runs).
pub fn big_limits() -> Limits {
    Limits {
        max_outputs: 1_000_000,
        max_instances: 1_000_000,
        max_steps: u64::MAX / 4,
        max_collection_len: 10_000_000,
        max_input_nodes: 100_000_000,
        max_input_bytes: 1 << 30,
        ..Limits::default()
    }
}

/// The engine of the bundled catalog with the default limits.
pub fn engine() -> Engine {
    Engine::new().expect("the catalog compiles")
}

/// An empty engine with [`big_limits`], to read big texts.
pub fn big_reader() -> Engine {
    Engine::builder()
        .limits(big_limits())
        .catalog(false)
        .build()
        .expect("an empty engine builds")
}

pub fn parse(text: &str) -> Value {
    big_reader().read_object(text).expect("fixture parses")
}

/// The example JobSet (1 leader + 2 worker jobs).
pub fn jobset_example() -> Value {
    parse(JOBSET)
}

/// The example JobSet as an API server gives it: with the fields the
/// server and clients keep (`managedFields` of two managers, the
/// annotation `kubectl apply` leaves, version and times), none of which a
/// definition reads.
pub fn jobset_as_served() -> Value {
    let mut v = jobset_example();
    let applied = serde_json::to_string(&v).unwrap();
    let fields = |keys: &[&str]| -> Value {
        let mut m = serde_json::Map::new();
        for k in keys {
            m.insert(format!("f:{k}"), json!({}));
        }
        Value::Object(m)
    };
    let job = json!({
        "f:name": {}, "f:replicas": {},
        "f:template": {"f:spec": {"f:completions": {}, "f:parallelism": {}, "f:template": {"f:spec": {
            "f:containers": {"k:{\"name\":\"trainer\"}": {".": {}, "f:image": {}, "f:name": {},
                "f:resources": {".": {}, "f:limits": fields(&["nvidia.com/gpu"]), "f:requests": fields(&["cpu", "memory", "nvidia.com/gpu"])}}},
            "f:restartPolicy": {}}}}}
    });
    let meta = v["metadata"].as_object_mut().unwrap();
    meta.insert("resourceVersion".into(), json!("48213377"));
    meta.insert("generation".into(), json!(1));
    meta.insert("creationTimestamp".into(), json!("2026-12-01T09:14:03Z"));
    meta.insert(
        "annotations".into(),
        json!({"kubectl.kubernetes.io/last-applied-configuration": applied}),
    );
    meta.insert(
        "managedFields".into(),
        json!([
            {"apiVersion": "jobset.x-k8s.io/v1alpha2", "fieldsType": "FieldsV1", "manager": "kubectl-client-side-apply",
             "operation": "Update", "time": "2026-12-01T09:14:03Z",
             "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}},
                          "f:spec": {".": {}, "f:replicatedJobs": {"k:{\"name\":\"leader\"}": job, "k:{\"name\":\"worker\"}": job}}}},
            {"apiVersion": "jobset.x-k8s.io/v1alpha2", "fieldsType": "FieldsV1", "manager": "jobset-controller",
             "operation": "Update", "subresource": "status", "time": "2026-12-01T09:15:41Z",
             "fieldsV1": {"f:status": {".": {}, "f:conditions": {}, "f:replicatedJobsStatus": {}}}}
        ]),
    );
    v
}

/// A JobSet with `n` replicated jobs (the example's worker job, renamed).
pub fn jobset(n: usize) -> Value {
    let mut v = jobset_example();
    let worker = v["spec"]["replicatedJobs"][1].clone();
    let jobs: Vec<Value> = (0..n)
        .map(|i| {
            let mut j = worker.clone();
            j["name"] = json!(format!("job-{i}"));
            j["replicas"] = json!(1 + i % 4);
            j
        })
        .collect();
    v["spec"]["replicatedJobs"] = json!(jobs);
    v
}

/// The JobSet whose compact JSON is about `bytes` long.
pub fn jobset_of_size(bytes: usize) -> Value {
    let one = serde_json::to_string(&jobset(1)).unwrap().len();
    let two = serde_json::to_string(&jobset(2)).unwrap().len();
    let per_job = two - one;
    let n = (bytes.saturating_sub(one) / per_job).max(1);
    jobset(n)
}

fn env(n: usize, prefix: &str) -> Value {
    json!((0..n)
        .map(|i| json!({"name": format!("{prefix}_VAR_{i}"), "value": format!("value-{i}-{}", "x".repeat(i % 24))}))
        .collect::<Vec<_>>())
}

fn helm_values(n: usize) -> Value {
    let mut m = serde_json::Map::new();
    for i in 0..n {
        m.insert(
            format!("setting{i}"),
            json!({"enabled": i % 2 == 0, "replicas": i % 5, "image": {"repository": format!("registry.example/img{i}"), "tag": "1.2.3"}, "args": ["--a", "--b", i.to_string()]}),
        );
    }
    Value::Object(m)
}

/// A large Milvus cluster: the running fixture with realistic bulk (100 env
/// variables and tolerations per component, large in-cluster dependency
/// Helm values, a long status).
pub fn milvus_large() -> Value {
    let mut v = parse(MILVUS);
    let comps = [
        "mixCoord",
        "proxy",
        "dataNode",
        "queryNode",
        "streamingNode",
        "indexNode",
    ];
    for c in comps {
        let spec = &mut v["spec"]["components"][c];
        if !spec.is_object() {
            *spec = json!({"replicas": 2});
        }
        spec["env"] = env(100, c);
        spec["tolerations"] = json!((0..20).map(|i| json!({"key": format!("k{i}"), "operator": "Exists", "effect": "NoSchedule"})).collect::<Vec<_>>());
        spec["nodeSelector"] = json!({"pool": c, "zone": "a"});
    }
    for d in ["etcd", "storage", "msgStreamType", "pulsar"] {
        let dep = &mut v["spec"]["dependencies"][d];
        if dep.is_object() {
            dep["inCluster"]["values"]["extra"] = helm_values(150);
        }
    }
    v["status"]["conditions"] = json!((0..40).map(|i| json!({"type": format!("Cond{i}"), "status": "True", "reason": "Fine", "message": "x".repeat(80), "lastTransitionTime": "2026-01-01T00:00:00Z"})).collect::<Vec<_>>());
    v
}

/// A Dynamo graph with `n` services (alternating decode and prefill
/// workers, plus the frontend).
pub fn dynamo(n: usize) -> Value {
    let mut v = parse(DYNAMO);
    let services = v["spec"]["services"].as_object().unwrap().clone();
    let decode = services["VllmDecodeWorker"].clone();
    let prefill = services["VllmPrefillWorker"].clone();
    let mut out = serde_json::Map::new();
    out.insert("Frontend".into(), services["Frontend"].clone());
    for i in 1..n {
        let s = if i % 2 == 0 {
            prefill.clone()
        } else {
            decode.clone()
        };
        out.insert(format!("Worker{i:03}"), s);
    }
    v["spec"]["services"] = Value::Object(out);
    v
}

/// Every object of the catalog's fixtures (not the expectations or pods).
pub fn fixture_objects() -> Vec<Value> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../definitions/fixtures");
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    let reader = Engine::builder()
        .catalog(false)
        .build()
        .expect("an empty engine builds");
    let mut out = Vec::new();
    for d in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name == "expect.yaml" || name.ends_with(".pods.yaml") || !name.ends_with(".yaml") {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            if let Ok(v) = reader.read_object(&text) {
                out.push(v);
            }
        }
    }
    out
}

/// `n` mixed objects: the fixtures, round robin, each with its own name.
pub fn mixed_batch(n: usize) -> Vec<Value> {
    let engine = engine();
    let fx: Vec<Value> = fixture_objects()
        .into_iter()
        .filter(|o| engine.resolve(o).is_ok())
        .collect();
    (0..n)
        .map(|i| {
            let mut o = fx[i % fx.len()].clone();
            o["metadata"]["name"] = json!(format!("obj-{i}"));
            o
        })
        .collect()
}
