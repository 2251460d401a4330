//! Everything the CLI reads: files and stdin, the `--limits` file, the
//! definition set (catalog plus `--definition` files) and the objects to
//! describe. The engine itself does no IO.

use std::io::Read;

use serde_json::Value;
use workload_lens::source::{SourceDocument, parse_documents};
use workload_lens::{CompiledDefinition, DefinitionSet, ErrorCode, Gvk, Limits, Origin, catalog};

use crate::failure::{EXIT_INVALID_DEFINITION, EXIT_LIMIT, Failure, coded_finding};
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

/// Read a whole file (or stdin) as UTF-8 text, reading at most
/// `maxInputBytes + 1` bytes so a huge input cannot exhaust memory.
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
    if bytes.len() > limits.max_input_bytes {
        return Err(Failure::new(
            EXIT_LIMIT,
            format!(
                "{name}: input is larger than {} bytes [limit maxInputBytes; raise it with --limits FILE]",
                limits.max_input_bytes
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        Failure::usage(format!(
            "{name}: input is not valid UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Parse YAML/JSON text into documents; errors name the input.
pub fn parse(text: &str, name: &str, limits: &Limits) -> Result<Vec<SourceDocument>, Failure> {
    parse_documents(text, limits).map_err(|e| Failure::engine(&e).context(name))
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
    let docs = parse(&text, &name, &defaults)?;
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

/// The bundled catalog, compiled with `limits` (the cached catalog when the
/// limits are the defaults).
fn catalog_set(limits: &Limits) -> Result<DefinitionSet, Failure> {
    let fail = |e: &workload_lens::Error| {
        Failure::engine(e).context("the bundled catalog could not be loaded")
    };
    if *limits == Limits::default() {
        return DefinitionSet::with_catalog().map_err(|e| fail(&e));
    }
    // A compiled definition keeps the limits it was compiled with, so the
    // catalog is compiled again for other limits.
    let mut set = DefinitionSet::new();
    for (file, text) in catalog::FILES {
        let defs = CompiledDefinition::all_from_text(text, *limits, Origin::Catalog)
            .map_err(|e| fail(&e.context(&format!("bundled definition {file}"))))?;
        for d in defs {
            set.add(d);
        }
    }
    Ok(set)
}

/// Read, validate and compile the definitions of one file.
pub fn load_definition_file(
    path: &InputPath,
    limits: &Limits,
) -> Result<Vec<CompiledDefinition>, Failure> {
    let name = path.display();
    let text = read_text(path, limits)?;
    // Malformed YAML/JSON is an input error (exit 2); anything wrong with
    // well-formed text is an invalid definition (exit 3).
    parse(&text, &name, limits)?;
    let defs = CompiledDefinition::all_from_text(&text, *limits, Origin::User).map_err(|e| {
        let f = Failure::engine(&e).context(&name);
        if e.code == ErrorCode::Parse {
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
        for w in d.warnings() {
            warn(&format!(
                "{name}: definition {}: {}",
                d.name(),
                coded_finding(w)
            ));
        }
    }
    Ok(defs)
}

/// The catalog plus every `--definition` file, in order (later definitions
/// replace earlier ones with the same root GVK).
pub fn definition_set(files: &[InputPath], limits: &Limits) -> Result<DefinitionSet, Failure> {
    let mut set = catalog_set(limits)?;
    for file in files {
        for d in load_definition_file(file, limits)? {
            set.add(d);
        }
    }
    Ok(set)
}

/// One object to describe.
#[derive(Debug)]
pub struct InputObject {
    /// The object.
    pub value: Value,
}

/// The objects of an input: every non-empty document; a list document
/// (`kind: List`, or a typed `FooList` as the API server returns it, with an
/// `items` array) gives its items. Returns the objects and whether the input
/// was a list or several documents.
pub fn objects(docs: Vec<SourceDocument>) -> (Vec<InputObject>, bool) {
    let mut several = docs.len() > 1;
    let mut out = Vec::new();
    for doc in docs {
        match list_items(doc.value) {
            Ok(items) => {
                several = true;
                out.extend(items.into_iter().map(|value| InputObject { value }));
            }
            Err(value) => out.push(InputObject { value }),
        }
    }
    (out, several)
}

/// The items of a list document (with `apiVersion`/`kind` filled in from a
/// typed list when missing), or the value back when it is not a list.
fn list_items(value: Value) -> Result<Vec<Value>, Value> {
    let Value::Object(mut obj) = value else {
        return Err(value);
    };
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or_default();
    let is_list = kind.ends_with("List") && matches!(obj.get("items"), Some(Value::Array(_)));
    if !is_list {
        return Err(Value::Object(obj));
    }
    let item_kind = kind.strip_suffix("List").unwrap_or_default().to_string();
    let api_version = obj
        .get("apiVersion")
        .and_then(Value::as_str)
        .map(str::to_string);
    let Some(Value::Array(items)) = obj.remove("items") else {
        return Ok(Vec::new());
    };
    Ok(items
        .into_iter()
        .map(|mut item| {
            // `kubectl get -o yaml` fills these in; the API server's typed
            // lists (`JobSetList`) do not.
            if let (Value::Object(o), false) = (&mut item, item_kind.is_empty()) {
                if !o.contains_key("kind") {
                    o.insert("kind".into(), Value::String(item_kind.clone()));
                }
                if let (false, Some(av)) = (o.contains_key("apiVersion"), &api_version) {
                    o.insert("apiVersion".into(), Value::String(av.clone()));
                }
            }
            item
        })
        .collect())
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
    fn typed_lists_fill_in_kind() {
        let items = list_items(json!({
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": "JobSetList",
            "items": [{"metadata": {"name": "a"}}, {"kind": "Other", "metadata": {"name": "b"}}]
        }));
        let items = items.unwrap_or_default();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0]["kind"], "JobSet");
        assert_eq!(items[0]["apiVersion"], "jobset.x-k8s.io/v1alpha2");
        assert_eq!(items[1]["kind"], "Other");
    }

    #[test]
    fn non_lists_are_kept() {
        assert!(list_items(json!({"kind": "JobSet"})).is_err());
        assert!(list_items(json!({"kind": "List", "items": "x"})).is_err());
        assert!(list_items(json!(3)).is_err());
    }

    #[test]
    fn labels() {
        assert_eq!(
            object_label(&json!({"kind": "JobSet", "metadata": {"name": "x"}}), 1),
            "JobSet/x"
        );
        assert_eq!(object_label(&json!({"kind": "JobSet"}), 2), "object 2");
    }
}
