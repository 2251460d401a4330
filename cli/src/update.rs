//! `workload-lens update`: write values (or suspend/resume) into a workload
//! through its definition's paths, and print the new object or the patch.

use clap::ValueEnum;
use serde_json::Value;
use workload_lens::{Limits, UpdateMode, UpdateRequest, parse_documents};

use crate::failure::Failure;
use crate::input::{self, InputPath, check_single_stdin, object_label, read_objects, read_text};
use crate::output::{self, warn};

/// What to do to the object.
#[derive(Debug, Clone)]
pub enum Action {
    /// `--values FILE`: an `UpdateRequest`; with `--merge` (true), merged
    /// into what is there (`UpdateMode::Merge`).
    Values(InputPath, bool),
    /// `--suspend`: the definition's suspend actions.
    Suspend,
    /// `--resume`: the definition's resume actions.
    Resume,
}

/// `-o` of `update`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UpdateFormat {
    /// The updated object as YAML.
    #[value(alias = "yml")]
    Yaml,
    /// The updated object as pretty JSON.
    Json,
    /// The RFC 6902 JSON Patch from the input object, as one line of JSON
    /// (for `kubectl patch --type=json -p`).
    Patch,
}

/// Run `update`; returns the text for stdout.
pub fn run(
    file: &InputPath,
    action: &Action,
    definitions: &[InputPath],
    format: UpdateFormat,
    limits: &Limits,
) -> Result<String, Failure> {
    let values = match action {
        Action::Values(p, _) => Some(p),
        Action::Suspend | Action::Resume => None,
    };
    check_single_stdin(definitions.iter().chain([file]).chain(values))?;
    let engine = input::engine(definitions, limits)?;
    // One command, one budget: every document of the input, the pods and
    // every operation share it (docs/reliability.md, whole-call budgets).
    let _call = engine.call();
    let name = file.display();
    let text = read_text(file, limits)?;
    let (mut objects, _) = read_objects(&engine, &text, &name)?;
    let obj = match objects.len() {
        0 => {
            return Err(Failure::usage(format!(
                "{name}: no Kubernetes object found in the input"
            )));
        }
        1 => objects.remove(0),
        n => {
            return Err(Failure::usage(format!(
                "{name}: update works on one object, but the input holds {n} objects"
            )));
        }
    };
    let result = match action {
        Action::Values(p, merge) => {
            let mut request = read_values(p, limits)?;
            if *merge {
                request.mode = UpdateMode::Merge;
            }
            engine.update(&obj, &request)
        }
        Action::Suspend => engine.suspend(&obj),
        Action::Resume => engine.resume(&obj),
    }
    .map_err(|e| Failure::engine(&e))?;
    if result.patch.is_empty() {
        warn(&format!(
            "{}: the update changes nothing",
            object_label(&obj, 1)
        ));
    }
    match format {
        UpdateFormat::Yaml => output::yaml(&result.object),
        UpdateFormat::Json => output::json(&result.object),
        UpdateFormat::Patch => serde_json::to_string(&result.patch)
            .map(|s| s + "\n")
            .map_err(|e| Failure::usage(format!("cannot write JSON: {e}"))),
    }
}

/// The `--values` file: one YAML/JSON map, read as an `UpdateRequest`
/// (`components.<component>.podTemplateSpecs|podSpecs|podMetadata|fragments`).
fn read_values(path: &InputPath, limits: &Limits) -> Result<UpdateRequest, Failure> {
    let name = format!("--values {}", path.display());
    let text = read_text(path, limits).map_err(|f| f.context("--values"))?;
    let docs = parse_documents(&text, limits).map_err(|e| Failure::engine(&e).context(&name))?;
    let value = match docs.as_slice() {
        [doc] => doc.value.clone(),
        [] => {
            return Err(Failure::usage(format!(
                "{name}: no values found (expected a map with 'components')"
            )));
        }
        _ => return Err(Failure::usage(format!("{name}: expected one document"))),
    };
    if !value.is_object() {
        return Err(Failure::usage(format!(
            "{name}: expected a map with 'components' (e.g. components: {{worker: {{...}}}})"
        )));
    }
    let request = serde_path_to_error::deserialize::<Value, UpdateRequest>(value).map_err(|e| {
        let message = e.inner().to_string().replace('`', "'");
        let mut path = e.path().to_string();
        if message.starts_with("unknown field") {
            // The path ends with the unknown field, which the message names.
            path = path
                .rsplit_once('.')
                .map(|(p, _)| p.to_string())
                .unwrap_or_default();
        }
        if path == "." || path.is_empty() {
            Failure::usage(format!("{name}: {message}"))
        } else {
            Failure::usage(format!("{name}: at {path}: {message}"))
        }
    })?;
    Ok(request)
}
