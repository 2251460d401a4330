//! The committed JSON Schemas are exactly what the Rust types generate.
//! Regenerate with `UPDATE_SCHEMA=1 cargo test -p workload-lens --features schema --test schema`.
#![cfg(feature = "schema")]

use std::path::PathBuf;

fn check(file: &str, schema: serde_json::Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(file);
    let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "{file} is out of date: run UPDATE_SCHEMA=1 cargo test -p workload-lens --features schema --test schema"
    );
}

#[test]
fn resolved_schema_is_current() {
    check("resolved.schema.json", workload_lens::resolved_schema());
}

#[test]
fn explanation_schema_is_current() {
    check(
        "status-explanation.schema.json",
        workload_lens::explanation_schema(),
    );
}

#[test]
fn diagnosis_schema_is_current() {
    check("diagnosis.schema.json", workload_lens::diagnosis_schema());
}

#[test]
fn error_schema_is_current() {
    check("error.schema.json", workload_lens::error_schema());
}

#[test]
fn example_output_only_uses_schema_properties() {
    let engine = workload_lens::Engine::new().unwrap();
    let object = engine
        .read_object(include_str!("../../examples/jobset.yaml"))
        .unwrap();
    let r = engine.resolve(&object).unwrap();
    let schema = workload_lens::resolved_schema();
    let props = schema["properties"].as_object().unwrap();
    for key in r.to_json().as_object().unwrap().keys() {
        assert!(props.contains_key(key), "{key} missing from the schema");
    }
}
