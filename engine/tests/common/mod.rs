//! Helpers shared by the integration tests (`mod common;` in each file):
//! the engine with the bundled catalog, readers that panic with the
//! offending text, and builders of definitions, workloads and pods for the
//! test type `example.com/v1 Thing`.

// Each test binary uses some of the helpers.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use workload_lens::{CompiledDefinition, Engine, Limits};

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The engine with the bundled catalog and the default limits, built once
/// per test binary.
pub fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::new().expect("the catalog compiles"))
}

/// A catalog definition by name.
pub fn catalog_def(name: &str) -> Arc<CompiledDefinition> {
    engine()
        .definition(name)
        .unwrap_or_else(|| panic!("no catalog definition {name}"))
        .clone()
}

/// Exactly one object from YAML/JSON text.
#[track_caller]
pub fn read(text: &str) -> Value {
    engine()
        .read_object(text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Every object of a YAML/JSON text (documents, `List` items, array
/// elements).
#[track_caller]
pub fn read_all(text: &str) -> Vec<Value> {
    engine()
        .read_objects(text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Exactly one object from a YAML/JSON file.
#[track_caller]
pub fn read_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    engine()
        .read_object(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The example JobSet (`examples/jobset.yaml`).
pub fn example_jobset() -> Value {
    read(include_str!("../../../examples/jobset.yaml"))
}

/// The example JobSet's pods (`examples/jobset-pods.yaml`, a `List`).
pub fn example_jobset_pods() -> Vec<Value> {
    read_all(include_str!("../../../examples/jobset-pods.yaml"))
}

/// One definition compiled from YAML/JSON text with the default limits.
#[track_caller]
pub fn compile(text: &str) -> CompiledDefinition {
    CompiledDefinition::from_text(text, Limits::default())
        .unwrap_or_else(|e| panic!("the definition does not compile: {e}\n{text}"))
}

/// The status definition of [`thing_def`]'s root: the phase at
/// `.status.phase`, the conditions at `.status.conditions`, `Running` when
/// the phase is.
pub const THING_STATUS: &str = r#"      statusDefinition:
        phaseDefinition: {path: .status.phase}
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          running: [{byPhase: Running}]
"#;

/// A definition (`Karta`) for `example.com/v1 Thing`: its root component
/// `thing` with the fields `root` (YAML lines indented 6 spaces, e.g.
/// [`THING_STATUS`]), the child components `children` (list items indented
/// 6 spaces; empty for none) and the further `spec` fields `spec_extra`
/// (indented 2 spaces, e.g. `optimizationInstructions`).
pub fn thing_karta(name: &str, root: &str, children: &str, spec_extra: &str) -> String {
    let mut text = format!(
        "apiVersion: run.ai/v1alpha1\n\
         kind: Karta\n\
         metadata: {{name: {name}}}\n\
         spec:\n  \
           structureDefinition:\n    \
             rootComponent:\n      \
               name: thing\n      \
               kind: {{group: example.com, version: v1, kind: Thing}}\n"
    );
    let mut push = |part: &str| {
        text.push_str(part.trim_start_matches('\n'));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    };
    push(root);
    if children.trim().is_empty() {
        push("    childComponents: []");
    } else {
        push("    childComponents:");
        push(children);
    }
    push(spec_extra);
    text
}

/// [`thing_karta`] named `example-com-thing-v1` with [`THING_STATUS`]
/// followed by `root_extra`, compiled.
pub fn thing_def(root_extra: &str, children: &str, spec_extra: &str) -> CompiledDefinition {
    let root = format!("{THING_STATUS}{}", root_extra.trim_start_matches('\n'));
    compile(&thing_karta(
        "example-com-thing-v1",
        &root,
        children,
        spec_extra,
    ))
}

/// A `Thing` named `t` (uid `u1`, no namespace) with the given spec.
pub fn thing(spec: Value) -> Value {
    json!({
        "apiVersion": "example.com/v1",
        "kind": "Thing",
        "metadata": {"name": "t", "uid": "u1"},
        "spec": spec,
    })
}

/// A pod (no namespace) with labels and no containers.
pub fn pod(name: &str, labels: Value) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels},
        "spec": {"containers": []},
    })
}

/// A pod template whose one container asks for `gpu` GPUs.
pub fn gpu_template(gpu: u32) -> Value {
    json!({"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": gpu.to_string()}}}]}})
}
