//! The JSON-text interface of the JavaScript bindings.
//!
//! The native addon (`bindings-node`, napi) and the WebAssembly module
//! (`bindings-wasm`, wasm-bindgen) export the same raw interface, which the
//! package's JavaScript layer wraps: values cross as JSON text (the JS side
//! calls `JSON.stringify`/`JSON.parse`), the user's own YAML/JSON text
//! crosses as it is, and a failure crosses as [`Failure::payload`], the JSON
//! of the engine's [`Error`] plus its display text. Every function of that
//! interface is here, once; a binding only moves strings, bytes and
//! compiled definitions across its boundary and turns a [`Failure`] into a
//! thrown JS `Error`.
//!
//! Objects, pods and requests are read with [`read_value`] (serde_json fast
//! path, located YAML/JSON fallback, the limits applied either way); the
//! limits of a call are the camelCase JSON of [`Limits`] (`None`: the
//! defaults).
//!
//! ```
//! use workload_lens::abi;
//! let def = abi::bundled().unwrap().get("jobset-x-k8s-io-jobset-v1alpha2").unwrap();
//! let object = include_str!("../../examples/jobset.yaml");
//! let out = abi::resolve(def, object, None).unwrap();
//! let resolved: serde_json::Value = serde_json::from_str(&out).unwrap();
//! assert_eq!(resolved["totals"]["resources"]["gpu"], 12);
//!
//! let err = abi::resolve(def, "{", None).unwrap_err();
//! let payload: serde_json::Value = serde_json::from_str(&err.payload()).unwrap();
//! assert_eq!(payload["code"], "parse");
//! assert_eq!(payload["location"]["line"], 1);
//! ```

use std::any::Any;
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::{Value, json};

use crate::source::{
    SourceDocument, parse_documents, parse_documents_bytes, read_items, read_value,
};
use crate::{
    CompiledDefinition, DefinitionSet, Error, ErrorCode, Gvk, Limits, UpdateRequest, catalog,
    definition, validate,
};

/// Why a call failed: an engine error, or a bug in workload-lens (a panic
/// caught by the binding, a value that cannot be serialized), which the
/// bindings report with the code `internal`.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // errors are the cold path
pub enum Failure {
    /// The engine's error.
    Engine(Error),
    /// A bug, with what is known of it.
    Internal(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Engine(e)
    }
}

/// The result of an interface call.
pub type Out<T> = std::result::Result<T, Failure>;

impl Failure {
    /// A caught panic, from its payload.
    pub fn from_panic(payload: Box<dyn Any + Send>) -> Failure {
        let what = if let Some(s) = payload.downcast_ref::<&str>() {
            format!("panic: {s}")
        } else if let Some(s) = payload.downcast_ref::<String>() {
            format!("panic: {s}")
        } else {
            "panic".into()
        };
        Failure::Internal(what)
    }

    /// The text a user sees: the engine error's `Display`, or, for a bug, a
    /// message asking for a report.
    pub fn display(&self) -> String {
        match self {
            Failure::Engine(e) => e.to_string(),
            Failure::Internal(m) => {
                format!("internal error in workload-lens (please report it): {m}")
            }
        }
    }

    /// The JSON the JavaScript layer reads: the engine's error as serialized
    /// (`code`, `message`, `location`, `limit`?, `findings`?) plus `display`
    /// (its `Display` text); for a bug, code `internal` and a message asking
    /// for a report.
    pub fn payload(&self) -> String {
        let display = self.display();
        let engine = match self {
            Failure::Engine(e) => match serde_json::to_value(e) {
                Ok(Value::Object(m)) => Some(m),
                _ => None,
            },
            Failure::Internal(_) => None,
        };
        let v = match engine {
            Some(mut m) => {
                m.insert("display".into(), Value::String(display));
                Value::Object(m)
            }
            None => {
                json!({"code": "internal", "message": display, "display": display, "location": {}})
            }
        };
        v.to_string()
    }
}

/// `t` as compact JSON.
pub fn to_json<T: Serialize + ?Sized>(t: &T) -> Out<String> {
    serde_json::to_string(t).map_err(|e| Failure::Internal(format!("cannot serialize: {e}")))
}

/// [`Limits`] from their camelCase JSON (`None`: the defaults; missing
/// fields take their defaults). An unknown field or a bad value is a usage
/// error naming it.
pub fn limits(json: Option<&str>) -> crate::Result<Limits> {
    match json {
        None => Ok(Limits::default()),
        Some(j) => serde_json::from_str(j)
            .map_err(|e| Error::new(ErrorCode::Usage, format!("invalid limits: {e}"))),
    }
}

/// The default limits, as JSON.
pub fn default_limits() -> Out<String> {
    to_json(&Limits::default())
}

/// Complete limits from camelCase JSON, as JSON.
pub fn check_limits(json: Option<&str>) -> Out<String> {
    to_json(&limits(json)?)
}

fn documents(docs: Vec<SourceDocument>) -> Out<String> {
    to_json(&docs.into_iter().map(|d| d.value).collect::<Vec<_>>())
}

/// Every document of a YAML/JSON text, as a JSON array.
pub fn parse(text: &str, limits_json: Option<&str>) -> Out<String> {
    documents(parse_documents(text, &limits(limits_json)?)?)
}

/// Like [`parse`], for bytes (invalid UTF-8 is a located parse error).
pub fn parse_bytes(bytes: &[u8], limits_json: Option<&str>) -> Out<String> {
    documents(parse_documents_bytes(bytes, &limits(limits_json)?)?)
}

/// Every output of one jq expression on an input, as a JSON array.
pub fn evaluate(expression: &str, input: &str, limits_json: Option<&str>) -> Out<String> {
    let limits = limits(limits_json)?;
    let input = read_value(input, &limits)?;
    to_json(&crate::evaluate(expression, &input, &limits)?)
}

/// Validate every definition of a text: `[{name, valid, findings}]`.
pub fn validate(text: &str, limits_json: Option<&str>) -> Out<String> {
    let limits = limits(limits_json)?;
    let loaded = definition::read_definitions(text, &limits)?;
    let all: Vec<Value> = loaded
        .iter()
        .map(|l| {
            let findings = validate::validate_loaded(l, &limits);
            json!({
                "name": l.definition.metadata.name,
                "valid": !validate::has_errors(&findings),
                "findings": findings,
            })
        })
        .collect();
    to_json(&all)
}

/// The bundled definition files: `{file name: YAML text}`.
pub fn catalog_sources() -> Out<String> {
    let m: serde_json::Map<String, Value> = catalog::FILES
        .iter()
        .map(|(f, t)| ((*f).to_string(), Value::String((*t).to_string())))
        .collect();
    to_json(&m)
}

/// The bundled catalog, built once per process (its definitions are shared
/// `Arc`s, so cloning the set is cheap).
pub fn bundled() -> crate::Result<&'static DefinitionSet> {
    static SET: OnceLock<DefinitionSet> = OnceLock::new();
    if let Some(s) = SET.get() {
        return Ok(s);
    }
    let set = DefinitionSet::with_catalog()?;
    Ok(SET.get_or_init(|| set))
}

/// Resolve with the definition of `set` chosen by the object's GVK (with
/// `pods`: the live state). `limits` bound the reading of the object; the
/// definition's own limits bound its evaluation and the pods.
pub fn resolve_in(
    set: &DefinitionSet,
    obj: &str,
    pods: Option<&str>,
    limits: &Limits,
) -> Out<String> {
    let obj = read_value(obj, limits)?;
    match pods {
        None => to_json(&set.resolve(&obj)?),
        Some(p) => {
            let d = set.lookup_object(&obj)?;
            to_json(&d.resolve_with_pods(&obj, &read_items(p, d.limits())?)?)
        }
    }
}

/// Resolve with the bundled catalog plus `defs` (which replace bundled
/// definitions of the same root GVK), choosing the definition by GVK.
pub fn resolve_any(
    obj: &str,
    defs: impl IntoIterator<Item = Arc<CompiledDefinition>>,
    pods: Option<&str>,
    limits_json: Option<&str>,
) -> Out<String> {
    let limits = limits(limits_json)?;
    let mut defs = defs.into_iter().peekable();
    if defs.peek().is_none() {
        return resolve_in(bundled()?, obj, pods, &limits);
    }
    let mut set = bundled()?.clone();
    for d in defs {
        set.add(d);
    }
    resolve_in(&set, obj, pods, &limits)
}

/// The definition of `set` for an object, by its apiVersion and kind.
pub fn lookup_object(set: &DefinitionSet, obj: &str) -> Out<Arc<CompiledDefinition>> {
    let obj = read_value(obj, &Limits::default())?;
    Ok(set.lookup_object(&obj)?.clone())
}

/// The definition of `set` for an apiVersion and kind.
pub fn lookup(
    set: &DefinitionSet,
    api_version: &str,
    kind: &str,
) -> Option<Arc<CompiledDefinition>> {
    set.lookup(&Gvk::from_api_version(api_version, kind))
        .cloned()
}

/// `{name, origin, gvk: {group, version, kind}, components, canSuspend,
/// warnings, limits}`.
pub fn info(d: &CompiledDefinition) -> Out<String> {
    let Gvk {
        group,
        version,
        kind,
    } = d.root_gvk();
    to_json(&json!({
        "name": d.name(),
        "origin": d.origin().as_str(),
        "gvk": {"group": group, "version": version, "kind": kind},
        "components": d.component_names(),
        "canSuspend": d.can_suspend(),
        "warnings": d.warnings(),
        "limits": d.limits(),
    }))
}

/// The definition as read.
pub fn definition_json(d: &CompiledDefinition) -> Out<String> {
    to_json(d.definition())
}

/// Resolve (with `pods`: the live state).
pub fn resolve(d: &CompiledDefinition, obj: &str, pods: Option<&str>) -> Out<String> {
    let l = d.limits();
    let obj = read_value(obj, l)?;
    match pods {
        Some(p) => to_json(&d.resolve_with_pods(&obj, &read_items(p, l)?)?),
        None => to_json(&d.resolve(&obj)?),
    }
}

/// The root status (`null` when the definition has none).
pub fn status(d: &CompiledDefinition, obj: &str) -> Out<String> {
    to_json(&d.status(&read_value(obj, d.limits())?)?)
}

/// Why the object has its status: every matcher of every category with its
/// outcome and reason.
pub fn explain_status(d: &CompiledDefinition, obj: &str) -> Out<String> {
    to_json(&d.explain_status(&read_value(obj, d.limits())?)?)
}

/// Write values through the definition's paths: `{object, patch}`.
pub fn update(d: &CompiledDefinition, obj: &str, request: &str) -> Out<String> {
    let obj = read_value(obj, d.limits())?;
    let req: UpdateRequest = serde_json::from_value(read_value(request, d.limits())?)
        .map_err(|e| Error::new(ErrorCode::Usage, format!("invalid update request: {e}")))?;
    to_json(&d.update(&obj, &req)?)
}

/// Apply the suspend actions: `{object, patch}`.
pub fn suspend(d: &CompiledDefinition, obj: &str) -> Out<String> {
    to_json(&d.suspend(&read_value(obj, d.limits())?)?)
}

/// Apply the resume actions: `{object, patch}`.
pub fn resume(d: &CompiledDefinition, obj: &str) -> Out<String> {
    to_json(&d.resume(&read_value(obj, d.limits())?)?)
}

/// Place pods under components and instances (`obj` may be absent).
pub fn attribute_pods(d: &CompiledDefinition, obj: Option<&str>, pods: &str) -> Out<String> {
    let l = d.limits();
    let obj = obj.map(|o| read_value(o, l)).transpose()?;
    to_json(&d.attribute_pods(obj.as_ref(), &read_items(pods, l)?)?)
}

/// Gang-scheduling groups of the workload's pods.
pub fn gang_groups(d: &CompiledDefinition, obj: &str, pods: &str) -> Out<String> {
    let l = d.limits();
    let obj = read_value(obj, l)?;
    to_json(&d.gang_groups(&obj, &read_items(pods, l)?)?)
}
