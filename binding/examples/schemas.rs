//! Prints the JSON Schemas of the engine's result types that the bindings'
//! types describe, as one JSON object `{TypeName: schema}`. Both binding
//! packages generate their types from it and their tests compare the output
//! with the committed files, so the types cannot drift from the Rust types:
//! `bindings-node/tests/types.test.mjs` compiles it to TypeScript
//! (`bindings-node/types/engine.d.ts`, json-schema-to-typescript), and
//! `bindings-python/tests/test_types.py` to Python TypedDicts
//! (`bindings-python/python/workload_lens/_engine_types.py`,
//! `bindings-python/tools/gen_types.py`).
//!
//! `cargo run -q -p workload-lens-binding --example schemas`

use serde_json::{Map, Value};

fn main() {
    let mut out = Map::new();
    out.insert("Resolved".into(), workload_lens::resolved_schema());
    out.insert("EngineError".into(), workload_lens::error_schema());
    out.insert("Diagnosis".into(), workload_lens::diagnosis_schema());
    out.insert(
        "StatusExplanation".into(),
        workload_lens::explanation_schema(),
    );
    let more = [
        (
            "Attribution",
            schemars::schema_for!(workload_lens::Attribution),
        ),
        (
            "GangReport",
            schemars::schema_for!(workload_lens::GangReport),
        ),
        (
            "GangStructure",
            schemars::schema_for!(workload_lens::GangStructure),
        ),
        (
            "UpdateResult",
            schemars::schema_for!(workload_lens::UpdateResult),
        ),
        (
            "DefinitionVerdict",
            schemars::schema_for!(workload_lens::DefinitionVerdict),
        ),
        // The live-cluster calls (Catalog.findType, coveredTypes,
        // withClusterDefinitions, listWorkloads; missingOwners, usage).
        (
            "ApiResource",
            schemars::schema_for!(workload_lens::ApiResource),
        ),
        (
            "WorkloadSummary",
            schemars::schema_for!(workload_lens::WorkloadSummary),
        ),
        (
            "ClusterDefinitionWarning",
            schemars::schema_for!(workload_lens::ClusterDefinitionWarning),
        ),
        ("Usage", schemars::schema_for!(workload_lens::Usage)),
        // sourceMap and humanAmounts (the playground's editor and cards).
        ("SourceMap", schemars::schema_for!(workload_lens::SourceMap)),
        (
            "HumanAmounts",
            schemars::schema_for!(workload_lens::HumanAmounts),
        ),
        ("OwnerKind", schemars::schema_for!(workload_lens::OwnerKind)),
    ];
    for (name, schema) in more {
        out.insert(
            name.into(),
            serde_json::to_value(schema).unwrap_or_default(),
        );
    }
    println!(
        "{}",
        serde_json::to_string_pretty(&Value::Object(out)).unwrap_or_default()
    );
}
