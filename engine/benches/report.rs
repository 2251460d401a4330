//! The figures of docs/performance.md as markdown tables, every ratio
//! measured against its baseline in the same process:
//!
//! `cargo bench -p workload-lens --bench report` (release; ~1 minute).
//!
//! Under `cargo test --benches` (no `--bench` argument) each measurement
//! runs once, as a smoke test.

use serde_json::Value;
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};
use workload_lens::{CompiledDefinition, Engine, Limits, catalog_files};

#[path = "common/workloads.rs"]
mod workloads;

/// The system allocator, counting the allocations (and reallocations) made
/// through it: a deterministic figure beside each time.
struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static ALLOC_BYTES: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        ALLOC_BYTES.fetch_add(layout.size() as u64, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        ALLOC_BYTES.fetch_add(layout.size() as u64, Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        ALLOC_BYTES.fetch_add(new_size.saturating_sub(layout.size()) as u64, Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations (including reallocations) and bytes allocated by one call
/// of `f`, made after a first call has warmed every cache.
fn allocations<T>(mut f: impl FnMut() -> T) -> (u64, u64) {
    black_box(f());
    let (n, b) = (ALLOCS.load(Relaxed), ALLOC_BYTES.load(Relaxed));
    black_box(f());
    (ALLOCS.load(Relaxed) - n, ALLOC_BYTES.load(Relaxed) - b)
}

struct Timer {
    quick: bool,
}

impl Timer {
    /// Median time of one call, over 7 samples of at least 50 ms each.
    fn time<T>(&self, mut f: impl FnMut() -> T) -> Duration {
        if self.quick {
            let t = Instant::now();
            black_box(f());
            return t.elapsed();
        }
        let t = Instant::now();
        black_box(f());
        let once = t.elapsed().max(Duration::from_nanos(20));
        let iters =
            (Duration::from_millis(50).as_nanos() / once.as_nanos()).clamp(1, 1_000_000) as u32;
        let mut samples: Vec<Duration> = (0..7)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..iters {
                    black_box(f());
                }
                t.elapsed() / iters
            })
            .collect();
        samples.sort();
        samples[3]
    }
}

/// The fastest of three samples of at least 5 ms each, in µs per call (one
/// call when quick): for the many small timings of the fixtures.
fn fastest<T>(timer: &Timer, mut f: impl FnMut() -> T) -> f64 {
    let t = Instant::now();
    black_box(f());
    let once = t.elapsed().max(Duration::from_nanos(20));
    if timer.quick {
        return once.as_secs_f64() * 1e6;
    }
    let iters = (Duration::from_millis(5).as_nanos() / once.as_nanos()).clamp(1, 100_000) as u32;
    (0..3)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                black_box(f());
            }
            t.elapsed().as_secs_f64() * 1e6 / f64::from(iters)
        })
        .fold(f64::INFINITY, f64::min)
}

fn us(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us >= 100.0 {
        format!("{us:.0}")
    } else {
        format!("{us:.2}")
    }
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let timer = Timer { quick };
    let engine = workloads::engine();

    println!("### Resolve vs. parsing the same JSON (compiled definition)\n");
    println!(
        "| workload | JSON bytes | serde_json parse (µs) | resolve (µs) | resolve / parse | parse_object + resolve (µs) | allocations: parse | allocations: resolve | KiB allocated: resolve |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, obj) in [
        ("example JobSet", workloads::jobset_example()),
        (
            "example JobSet as an API server gives it",
            workloads::jobset_as_served(),
        ),
        ("large Milvus", workloads::milvus_large()),
        ("Dynamo graph, 50 services", workloads::dynamo(50)),
        ("JobSet, 1,000 replicated jobs", workloads::jobset(1000)),
    ] {
        let def = engine.definition_for(&obj).unwrap().clone();
        def.resolve(&obj).unwrap();
        let text = serde_json::to_string(&obj).unwrap();
        // The same objects for the bindings' benchmarks (bench/).
        // A relative WORKLOADS_DIR is relative to the repository root.
        if let Some(dir) = std::env::var_os("WORKLOADS_DIR") {
            let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join(dir);
            let _ = std::fs::create_dir_all(&dir);
            let file = name.replace([' ', ','], "-").to_lowercase() + ".json";
            let _ = std::fs::write(dir.join(file), &text);
        }
        let parse = timer.time(|| serde_json::from_str::<Value>(&text).unwrap());
        let resolve = timer.time(|| def.resolve(&obj).unwrap());
        let from_text = timer.time(|| {
            let v = engine.read_object(&text).unwrap();
            black_box(def.resolve(&v).unwrap());
        });
        let (parse_allocs, _) = allocations(|| serde_json::from_str::<Value>(&text).unwrap());
        let (resolve_allocs, resolve_bytes) = allocations(|| def.resolve(&obj).unwrap());
        println!(
            "| {name} | {} | {} | {} | {:.2} | {} | {parse_allocs} | {resolve_allocs} | {:.1} |",
            text.len(),
            us(parse),
            us(resolve),
            resolve.as_secs_f64() / parse.as_secs_f64(),
            us(from_text),
            resolve_bytes as f64 / 1024.0
        );
    }

    println!("\n### Resolve from text vs. reading the same text (example JobSet)\n");
    println!(
        "| text | bytes | serde parse (µs) | read_object (µs) | resolve_text (µs) | resolve_text / read_object | resolve_text / serde parse | allocations: serde parse | allocations: resolve_text |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let example = workloads::jobset_example();
    let def = engine.definition_for(&example).unwrap().clone();
    for (name, text) in [
        ("YAML", workloads::JOBSET.to_string()),
        ("JSON", serde_json::to_string_pretty(&example).unwrap()),
        (
            "JSON as an API server gives it",
            serde_json::to_string(&workloads::jobset_as_served()).unwrap(),
        ),
    ] {
        def.resolve_text(&text).unwrap();
        let serde = if name == "YAML" {
            timer.time(|| serde_saphyr::from_str::<Value>(&text).unwrap())
        } else {
            timer.time(|| serde_json::from_str::<Value>(&text).unwrap())
        };
        let read = timer.time(|| engine.read_object(&text).unwrap());
        let resolve = timer.time(|| def.resolve_text(&text).unwrap());
        let (serde_allocs, _) = if name == "YAML" {
            allocations(|| serde_saphyr::from_str::<Value>(&text).unwrap())
        } else {
            allocations(|| serde_json::from_str::<Value>(&text).unwrap())
        };
        let (text_allocs, _) = allocations(|| def.resolve_text(&text).unwrap());
        println!(
            "| {name} | {} | {} | {} | {} | {:.2} | {:.2} | {serde_allocs} | {text_allocs} |",
            text.len(),
            us(serde),
            us(read),
            us(resolve),
            resolve.as_secs_f64() / read.as_secs_f64(),
            resolve.as_secs_f64() / serde.as_secs_f64()
        );
    }

    println!("\n### Growth with object size (JobSet, more replicated jobs)\n");
    println!(
        "| size | JSON bytes | parse (µs) | resolve (µs) | resolve / parse | resolve ns per byte |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let jobset_text = catalog_files()
        .iter()
        .find(|(f, _)| f.starts_with("jobset"))
        .unwrap()
        .1;
    let def = CompiledDefinition::from_text(jobset_text, workloads::big_limits()).unwrap();
    for kib in [1usize, 4, 16, 64, 256, 1024] {
        let obj = workloads::jobset_of_size(kib * 1024);
        let text = serde_json::to_string(&obj).unwrap();
        def.resolve(&obj).unwrap();
        let parse = timer.time(|| serde_json::from_str::<Value>(&text).unwrap());
        let resolve = timer.time(|| def.resolve(&obj).unwrap());
        println!(
            "| {kib} KiB | {} | {} | {} | {:.2} | {:.1} |",
            text.len(),
            us(parse),
            us(resolve),
            resolve.as_secs_f64() / parse.as_secs_f64(),
            resolve.as_nanos() as f64 / text.len() as f64
        );
    }

    println!("\n### A batch of 10,000 mixed catalog objects (definition looked up by kind)\n");
    let objs = workloads::mixed_batch(if quick { 200 } else { 10_000 });
    let texts: Vec<String> = objs
        .iter()
        .map(|o| serde_json::to_string(o).unwrap())
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let parse = timer.time(|| {
        for t in &texts {
            black_box(serde_json::from_str::<Value>(t).unwrap());
        }
    });
    let resolve = timer.time(|| {
        for o in &objs {
            black_box(engine.resolve(o).unwrap());
        }
    });
    let n = objs.len() as f64;
    let (parse_allocs, _) = allocations(|| {
        for t in &texts {
            black_box(serde_json::from_str::<Value>(t).unwrap());
        }
    });
    let (resolve_allocs, _) = allocations(|| {
        for o in &objs {
            black_box(engine.resolve(o).unwrap());
        }
    });
    println!(
        "| objects | JSON bytes | parse, per object (µs) | resolve, per object (µs) | resolve / parse | objects per second | allocations per object: parse | allocations per object: resolve |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {bytes} | {:.2} | {:.2} | {:.2} | {:.0} | {:.0} | {:.0} |",
        objs.len(),
        parse.as_secs_f64() * 1e6 / n,
        resolve.as_secs_f64() * 1e6 / n,
        resolve.as_secs_f64() / parse.as_secs_f64(),
        n / resolve.as_secs_f64(),
        parse_allocs as f64 / n,
        resolve_allocs as f64 / n
    );

    println!("\n### The batch's costliest objects (each catalog fixture once)\n");
    println!(
        "Each fixture's resolve against its own parse, the ten whose resolve costs the most beyond twice its parse: where the batch's time goes.\n"
    );
    println!(
        "| object | JSON bytes | parse (µs) | resolve (µs) | resolve / parse | allocations: resolve |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let mut rows = Vec::new();
    let (mut all_parse, mut all_resolve) = (0.0, 0.0);
    for o in workloads::fixture_objects()
        .iter()
        .filter(|o| engine.resolve(o).is_ok())
    {
        let text = serde_json::to_string(o).unwrap();
        let parse = fastest(&timer, || serde_json::from_str::<Value>(&text).unwrap());
        let resolve = fastest(&timer, || engine.resolve(o).unwrap());
        let (allocs, _) = allocations(|| engine.resolve(o).unwrap());
        all_parse += parse;
        all_resolve += resolve;
        let label = format!(
            "{} {}",
            o["kind"].as_str().unwrap_or("?"),
            o["metadata"]["name"].as_str().unwrap_or("")
        );
        rows.push((
            resolve - 2.0 * parse,
            label,
            text.len(),
            parse,
            resolve,
            allocs,
        ));
    }
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (_, label, bytes, parse, resolve, allocs) in rows.iter().take(10) {
        println!(
            "| {label} | {bytes} | {parse:.2} | {resolve:.2} | {:.2} | {allocs} |",
            resolve / parse
        );
    }
    println!(
        "\nAll {} fixtures, once each: parse {all_parse:.0} µs, resolve {all_resolve:.0} µs, resolve / parse {:.2}.",
        rows.len(),
        all_resolve / all_parse
    );

    println!("\n### Compile time of each catalog definition\n");
    println!("| definition | text bytes | compile (µs) |");
    println!("|---|---:|---:|");
    let mut total = Duration::ZERO;
    for (file, text) in catalog_files() {
        let d = timer.time(|| CompiledDefinition::from_text(text, Limits::default()).unwrap());
        total += d;
        println!(
            "| {} | {} | {} |",
            file.trim_end_matches(".yaml"),
            text.len(),
            us(d)
        );
    }
    let whole = timer.time(|| Engine::new().unwrap());
    println!("| **sum** | | {} |", us(total));
    println!("| `Engine::new()` | | {} |", us(whole));
}
