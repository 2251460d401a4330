//! Shared by the fuzz targets: limits small enough that one input runs in
//! milliseconds, and the invariants every result must keep.

#![allow(dead_code)]

use std::sync::{Arc, OnceLock};
use workload_lens::{CompiledDefinition, Engine, Error, ErrorCode, Limits};

/// The engine of the catalog compiled with [`fuzz_limits`], built once.
pub fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        Engine::builder()
            .limits(fuzz_limits())
            .build()
            .unwrap_or_else(|e| panic!("the catalog compiles: {e}"))
    })
}

/// An engine without definitions, with [`fuzz_limits`] (to read texts,
/// compile and validate definitions).
pub fn empty_engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        Engine::builder()
            .limits(fuzz_limits())
            .catalog(false)
            .build()
            .unwrap_or_else(|e| panic!("an empty engine builds: {e}"))
    })
}

/// The catalog's definitions compiled with [`fuzz_limits`] (sorted by
/// name), once.
pub fn catalog() -> &'static [Arc<CompiledDefinition>] {
    static DEFS: OnceLock<Vec<Arc<CompiledDefinition>>> = OnceLock::new();
    DEFS.get_or_init(|| engine().definitions().into_iter().cloned().collect())
}

/// Default limits scaled down so that the fuzzer spends its time on many
/// inputs rather than on a few full budgets. Every limit stays active.
pub fn fuzz_limits() -> Limits {
    Limits {
        max_input_bytes: 1 << 20,
        max_input_nodes: 100_000,
        max_steps: 20_000,
        max_string_bytes: 1 << 16,
        max_collection_len: 10_000,
        max_output_bytes: 1 << 20,
        max_outputs: 200,
        ..Limits::default()
    }
}

/// An error must be a well-formed value: a limit names its limit, and its
/// message is bounded (previews, never a dump of a huge value).
pub fn check_error(e: &Error) {
    if e.code() == ErrorCode::Limit {
        assert!(
            e.limit().is_some() || e.message().contains("overflow"),
            "limit error without a name: {e:?}"
        );
    }
    assert!(
        e.message().len() < 64 * 1024,
        "error message of {} bytes",
        e.message().len()
    );
    // Errors serialize (every binding copies them as JSON).
    serde_json::to_string(e).expect("error serializes");
}

/// Two paths give equal answers as JSON values: objects the fast path
/// passes through keep the input's key order, jaq's come out sorted.
pub fn same_values<T: serde::Serialize>(a: &Result<T, Error>, b: &Result<T, Error>) {
    let v = |r: &Result<T, Error>| match r {
        Ok(v) => serde_json::to_value(v).expect("result serializes"),
        Err(e) => serde_json::to_value(e).expect("error serializes"),
    };
    assert_eq!(v(a), v(b), "the two paths differ");
}

/// The same call twice gives the same answer (no hidden state, no clocks).
pub fn deterministic<T: serde::Serialize>(a: &Result<T, Error>, b: &Result<T, Error>) {
    let s = |r: &Result<T, Error>| match r {
        Ok(v) => serde_json::to_string(v).expect("result serializes"),
        Err(e) => serde_json::to_string(e).expect("error serializes"),
    };
    assert_eq!(s(a), s(b), "two runs differ");
}
