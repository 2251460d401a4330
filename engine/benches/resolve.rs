//! Divan benchmarks of the engine on realistic catalog workloads.
//!
//! `cargo bench -p workload-lens --bench resolve` (release build; a few
//! minutes). Each `resolve_*` has a `parse_*` twin that only parses the same
//! object's JSON text with serde_json, the floor a resolver cannot beat; the
//! ratios are in docs/performance.md (and printed directly by
//! `cargo bench -p workload-lens --bench report`).

use divan::{Bencher, black_box, counter::BytesCount};
use serde_json::Value;
use workload_lens::{CompiledDefinition, Engine, catalog_files};

#[path = "common/workloads.rs"]
mod workloads;

fn main() {
    divan::main();
}

fn bench_resolve(b: Bencher, obj: Value) {
    let engine = workloads::engine();
    let def = engine.definition_for(&obj).unwrap().clone();
    def.resolve(&obj).unwrap();
    let bytes = serde_json::to_string(&obj).unwrap().len();
    b.counter(BytesCount::new(bytes))
        .bench(|| def.resolve(black_box(&obj)).unwrap());
}

fn bench_parse(b: Bencher, obj: Value) {
    let text = serde_json::to_string(&obj).unwrap();
    b.counter(BytesCount::new(text.len()))
        .bench(|| serde_json::from_str::<Value>(black_box(&text)).unwrap());
}

const WORKLOADS: &[&str] = &["jobset-example", "milvus-large", "dynamo-50", "jobset-1000"];

fn workload(name: &str) -> Value {
    match name {
        "jobset-example" => workloads::jobset_example(),
        "milvus-large" => workloads::milvus_large(),
        "dynamo-50" => workloads::dynamo(50),
        "jobset-1000" => workloads::jobset(1000),
        _ => unreachable!(),
    }
}

/// Resolve with a compiled definition (the definition found once by GVK).
#[divan::bench(args = WORKLOADS)]
fn resolve(b: Bencher, name: &str) {
    bench_resolve(b, workload(name));
}

/// serde_json parse of the same object's compact JSON.
#[divan::bench(args = WORKLOADS)]
fn parse_json(b: Bencher, name: &str) {
    bench_parse(b, workload(name));
}

const SIZES_KIB: &[usize] = &[1, 4, 16, 64, 256, 1024];

/// Growth with object size: a JobSet of 1 KiB to 1 MiB (more replicated
/// jobs), with limits for trusted big objects.
#[divan::bench(args = SIZES_KIB)]
fn resolve_size_kib(b: Bencher, kib: usize) {
    let obj = workloads::jobset_of_size(kib * 1024);
    let text = catalog_files()
        .iter()
        .find(|(f, _)| f.starts_with("jobset"))
        .unwrap()
        .1;
    let def = CompiledDefinition::from_text(text, workloads::big_limits()).unwrap();
    def.resolve(&obj).unwrap();
    let bytes = serde_json::to_string(&obj).unwrap().len();
    b.counter(BytesCount::new(bytes))
        .bench(|| def.resolve(black_box(&obj)).unwrap());
}

#[divan::bench(args = SIZES_KIB)]
fn parse_json_size_kib(b: Bencher, kib: usize) {
    bench_parse(b, workloads::jobset_of_size(kib * 1024));
}

/// 10,000 mixed catalog objects, each resolved by the definition of its
/// kind (lookup included): one iteration is the whole batch.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn batch_10000_mixed(b: Bencher) {
    let engine = workloads::engine();
    let objs = workloads::mixed_batch(10_000);
    b.bench(|| {
        for o in &objs {
            black_box(engine.resolve(o).unwrap());
        }
    });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn batch_10000_mixed_parse_json(b: Bencher) {
    let texts: Vec<String> = workloads::mixed_batch(10_000)
        .iter()
        .map(|o| serde_json::to_string(o).unwrap())
        .collect();
    b.bench(|| {
        for t in &texts {
            black_box(serde_json::from_str::<Value>(t).unwrap());
        }
    });
}

fn catalog_names() -> Vec<&'static str> {
    catalog_files().iter().map(|(f, _)| *f).collect()
}

/// Compile time of each catalog definition (read, validate, compile every
/// expression).
#[divan::bench(args = catalog_names())]
fn compile(b: Bencher, file: &str) {
    let text = catalog_files().iter().find(|(f, _)| *f == file).unwrap().1;
    b.bench(|| CompiledDefinition::from_text(black_box(text), Default::default()).unwrap());
}

/// The whole catalog, as the CLI and the bindings load it at start-up (the
/// catalog is compiled once per process: later engines share it).
#[divan::bench(sample_count = 10)]
fn compile_whole_catalog() -> Engine {
    Engine::new().unwrap()
}

/// Attribute 100,000 live pods to the example JobSet's worker instance, each
/// pod on a node of its own, and resolve the workload with them (the
/// `describe --pods` path): pods are placed through maps and each
/// instance's node list is sorted once, so this is linear (89 s before,
/// when the node list was searched and re-sorted for every pod).
#[divan::bench(sample_count = 10, sample_size = 1)]
fn attribute_100k_pods_100k_nodes(b: Bencher) {
    let limits = workload_lens::Limits {
        max_memory_bytes: usize::MAX / 4,
        max_output_bytes: usize::MAX / 4,
        ..workloads::big_limits()
    };
    let engine = workloads::engine();
    let obj = workloads::jobset_example();
    let def = CompiledDefinition::from_text(
        catalog_files()
            .iter()
            .find(|(f, _)| f.starts_with("jobset"))
            .unwrap()
            .1,
        limits,
    )
    .unwrap();
    assert_eq!(engine.definition_for(&obj).unwrap().name(), def.name());
    let name = obj["metadata"]["name"].as_str().unwrap().to_string();
    let namespace = obj["metadata"]["namespace"].clone();
    let n = 100_000;
    let pods: Vec<Value> = (0..n)
        .map(|i| {
            serde_json::json!({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {
                    "name": format!("{name}-worker-{i}"),
                    "namespace": namespace,
                    "labels": {
                        "jobset.sigs.k8s.io/jobset-name": name,
                        "jobset.sigs.k8s.io/replicatedjob-name": "worker",
                        "jobset.sigs.k8s.io/job-index": (i % 2).to_string(),
                    },
                },
                "spec": {"nodeName": format!("node-{}", n - i), "containers": [{"name": "c"}]},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
            })
        })
        .collect();
    let r = def.resolve_with_pods(&obj, &pods).unwrap();
    let worker = r.component("replicatedjob").unwrap().instances[1]
        .live
        .as_ref()
        .unwrap();
    assert_eq!((worker.pods.len(), worker.nodes.len()), (n, n));
    b.bench(|| {
        def.resolve_with_pods(black_box(&obj), black_box(&pods))
            .unwrap()
    });
}
