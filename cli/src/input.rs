//! Everything the CLI reads: files and stdin, the `--limits` file, the
//! engine (catalog plus `--definition` files) and the objects to describe.
//! The engine itself does no IO; every rule about what a text holds (list
//! documents, arrays, definitions) is the engine's.

use std::io::Read;

use serde_json::Value;
use workload_lens::{CompiledDefinition, Engine, ErrorCode, Gvk, Limits, parse_documents};

use crate::failure::{EXIT_INVALID_DEFINITION, Failure, coded_finding};
use crate::output::warn;

/// A path given on the command line; `-` is stdin.
#[derive(Debug, Clone)]
pub struct InputPath(pub String);

impl InputPath {
    /// True for `-`.
    pub fn is_stdin(&self) -> bool {
        self.0 == "-"
    }

    /// How the input is named in messages.
    pub fn display(&self) -> String {
        if self.is_stdin() {
            "<stdin>".to_string()
        } else {
            self.0.clone()
        }
    }
}

/// Fail when stdin (`-`) is named more than once: it can be read only once.
pub fn check_single_stdin<'a>(
    paths: impl IntoIterator<Item = &'a InputPath>,
) -> Result<(), Failure> {
    if paths.into_iter().filter(|p| p.is_stdin()).count() > 1 {
        return Err(Failure::usage(
            "standard input (-) can be used for only one input",
        ));
    }
    Ok(())
}

/// Read a whole file (or stdin) as text. At most `maxInputBytes + 1` bytes
/// are read, so a huge input cannot exhaust memory; the engine checks them
/// (`workload_lens::read_text`): more than `maxInputBytes` is its `limit`
/// error (exit 5), bytes that are not UTF-8 its `parse` error located at
/// the first invalid byte (exit 2).
pub fn read_text(path: &InputPath, limits: &Limits) -> Result<String, Failure> {
    let name = path.display();
    let cap = u64::try_from(limits.max_input_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut bytes = Vec::new();
    let read = if path.is_stdin() {
        std::io::stdin().lock().take(cap).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(&path.0).and_then(|f| f.take(cap).read_to_end(&mut bytes))
    };
    if let Err(e) = read {
        return Err(Failure::usage(format!("cannot read {name}: {e}")));
    }
    workload_lens::read_text(&bytes, limits)
        .map(str::to_owned)
        .map_err(|e| Failure::engine(&e).context(&name))
}

/// The limits: the defaults, or those of the `--limits` file (JSON or YAML,
/// camelCase field names of `workload_lens::Limits`; missing fields keep
/// their default).
pub fn load_limits(path: Option<&InputPath>) -> Result<Limits, Failure> {
    let Some(path) = path else {
        return Ok(Limits::default());
    };
    let name = format!("--limits {}", path.display());
    let defaults = Limits::default();
    let text = read_text(path, &defaults).map_err(|f| f.context("--limits"))?;
    let docs = parse_documents(&text, &defaults).map_err(|e| Failure::engine(&e).context(&name))?;
    let value = match docs.as_slice() {
        [] => return Ok(defaults),
        [doc] => doc.value.clone(),
        _ => return Err(Failure::usage(format!("{name}: expected one document"))),
    };
    if !value.is_object() {
        return Err(Failure::usage(format!(
            "{name}: expected a map of limits (e.g. maxSteps: 100000)"
        )));
    }
    serde_json::from_value::<Limits>(value)
        .map_err(|e| Failure::usage(format!("{name}: {}", e.to_string().replace('`', "'"))))
}

/// The bundled catalog compiled with `limits`, plus every `--definition`
/// file in order (later definitions replace earlier ones with the same root
/// GVK).
pub fn engine(files: &[InputPath], limits: &Limits) -> Result<Engine, Failure> {
    let mut engine = Engine::builder()
        .limits(*limits)
        .build()
        .map_err(|e| Failure::engine(&e).context("the bundled catalog could not be loaded"))?;
    for file in files {
        add_definition_file(&mut engine, file)?;
    }
    Ok(engine)
}

/// Read the definitions of one file and add them to the engine, printing
/// their warnings.
pub fn add_definition_file(engine: &mut Engine, path: &InputPath) -> Result<(), Failure> {
    let name = path.display();
    let limits = *engine.limits();
    let text = read_text(path, &limits)?;
    let defs = engine.add_definitions(&text).map_err(|e| {
        let f = Failure::engine(&e).context(&name);
        // Malformed YAML/JSON is an input error (exit 2); well-formed text
        // that is not a definition is an invalid definition (exit 3).
        if e.code() == ErrorCode::Parse && parse_documents(&text, &limits).is_ok() {
            f.with_exit(EXIT_INVALID_DEFINITION)
        } else {
            f
        }
    })?;
    if defs.is_empty() {
        return Err(Failure::new(
            EXIT_INVALID_DEFINITION,
            format!("{name}: no definition found"),
        ));
    }
    for d in &defs {
        warn_definition(&name, d);
    }
    Ok(())
}

fn warn_definition(file: &str, d: &CompiledDefinition) {
    for w in d.warnings() {
        warn(&format!(
            "{file}: definition {}: {}",
            d.name(),
            coded_finding(w)
        ));
    }
}

/// The objects of an input, read once by the engine (documents, list
/// documents, arrays), and whether the input held a collection rather than
/// one object (several documents, a list, an array: then `describe` labels
/// each object and `-o json` prints an array, even of one).
pub fn read_objects(
    engine: &Engine,
    text: &str,
    name: &str,
) -> Result<(Vec<Value>, bool), Failure> {
    let input = engine
        .read_input(text)
        .map_err(|e| Failure::engine(&e).context(name))?;
    Ok((input.objects, input.shape.is_collection()))
}

/// `Kind/name` of an object for messages; `object <n>` (1-based position in
/// the input) when it has no kind or name.
pub fn object_label(v: &Value, n: usize) -> String {
    let s = |p: &[&str]| {
        let mut cur = v;
        for k in p {
            cur = cur.get(k)?;
        }
        cur.as_str().map(str::to_string)
    };
    let name = s(&["metadata", "name"]).or_else(|| s(&["metadata", "generateName"]));
    match (s(&["kind"]), name) {
        (Some(kind), Some(name)) => format!("{kind}/{name}"),
        _ => format!("object {n}"),
    }
}

/// The GVK of an object, for the `no_definition` report.
pub fn object_gvk(v: &Value) -> Gvk {
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default();
    Gvk::from_api_version(s("apiVersion"), s("kind"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels() {
        assert_eq!(
            object_label(&json!({"kind": "JobSet", "metadata": {"name": "x"}}), 1),
            "JobSet/x"
        );
        assert_eq!(object_label(&json!({"kind": "JobSet"}), 2), "object 2");
    }
}
