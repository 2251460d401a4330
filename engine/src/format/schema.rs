//! JSON Schemas (draft 2020-12) of the engine's results, generated from the
//! Rust types (feature `schema`).

use crate::{Error, Resolved, StatusExplanation};

/// JSON Schema of the resolved structure. `docs/resolved.schema.json` is
/// this, pretty-printed.
pub fn resolved_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Resolved)).unwrap_or_default()
}

/// JSON Schema of the status explanation
/// ([`crate::CompiledDefinition::explain_status`]).
pub fn explanation_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(StatusExplanation)).unwrap_or_default()
}

/// JSON Schema of the error value every API returns.
pub fn error_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Error)).unwrap_or_default()
}

/// JSON Schema of a diagnosis (`diagnose`). `docs/diagnosis.schema.json` is
/// generated from it.
pub fn diagnosis_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(crate::Diagnosis)).unwrap_or_default()
}
