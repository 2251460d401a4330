//! Definition text (YAML/JSON, any bytes) through reading, validation and
//! compilation; a compiled definition then resolves a minimal object of its
//! own kind. Every outcome must be a value: no panic, no abort, no hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use workload_lens::{CompiledDefinition, Severity};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let limits = common::fuzz_limits();
    // The bytes entry point of the bindings' `parse_bytes`: invalid UTF-8
    // is a located parse error, and what is read serializes.
    match workload_lens::source::parse_documents_bytes(data, &limits) {
        Ok(docs) => {
            let values: Vec<_> = docs.into_iter().map(|d| d.value).collect();
            serde_json::to_string(&values).expect("documents serialize");
        }
        Err(e) => common::check_error(&e),
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let engine = common::empty_engine();
    match engine.validate(text) {
        Ok(report) => {
            for d in &report.definitions {
                // A verdict is valid exactly when it has no error finding.
                let errors = d.findings.iter().any(|f| f.severity == Severity::Error);
                assert_eq!(d.valid, !errors, "{d:?}");
            }
        }
        Err(e) => common::check_error(&e),
    }
    match CompiledDefinition::from_text(text, limits) {
        Ok(def) => {
            let gvk = def.root_gvk();
            let api_version = if gvk.group.is_empty() {
                gvk.version.clone()
            } else {
                format!("{}/{}", gvk.group, gvk.version)
            };
            let obj = json!({
                "apiVersion": api_version,
                "kind": gvk.kind,
                "metadata": {"name": "x", "labels": {"a": "b"}},
                "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "c"}]}}},
            });
            let a = def.resolve(&obj);
            if let Err(e) = &a {
                common::check_error(e);
            }
            common::deterministic(&a, &def.resolve(&obj));
            if let Err(e) = def.suspend(&obj) {
                common::check_error(&e);
            }
        }
        Err(e) => common::check_error(&e),
    }
});
