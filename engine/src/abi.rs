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
//! let def = abi::bundled().unwrap().definition("jobset-x-k8s-io-jobset-v1alpha2").unwrap();
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

pub use crate::source::HostRead;
use crate::source::{
    SourceDocument, objects_of_value, parse_documents, parse_documents_bytes, read_items,
    read_value,
};
use crate::{
    Attribution, CompiledDefinition, Engine, Error, ErrorCode, GangReport, GangStructure, Gvk,
    Limits, Resolved, Status, StatusExplanation, UpdateRequest, UpdateResult, catalog,
};

/// Why a call failed: an engine error, or a bug in workload-lens (a panic
/// caught by the binding, a value that cannot be serialized), which the
/// bindings report with the code `internal`.
#[derive(Debug)]
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

/// A JSON value serialized by a binding's own language layer (Python's
/// `json.dumps`, JavaScript's `JSON.stringify`) from a caller's object, read
/// with the limits applied. Positions inside that text mean nothing to the
/// caller, so a parse error carries none; such text fails to parse only
/// when the value is not Unicode (a lone surrogate), which is a usage error.
pub fn value_from_binding_json(json: &str, limits: &Limits) -> crate::Result<Value> {
    read_value(json, limits).map_err(|mut e| {
        e.0.location.line = None;
        e.0.location.column = None;
        if e.code() == ErrorCode::Parse {
            Error::new(
                ErrorCode::Usage,
                format!("the value cannot be represented as JSON: {}", e.message()),
            )
        } else {
            e
        }
    })
}

/// An object argument of a binding: the caller's own YAML/JSON text (or
/// JSON a binding's language layer wrote), or a value the binding read
/// from its host language's own values with [`value_from_host`].
#[derive(Debug)]
pub enum Input<'a> {
    /// Text, read with [`read_value`] (one object) or [`read_items`]
    /// (objects).
    Text(&'a str),
    /// A value already read.
    Value(Value),
}

impl<'a> From<&'a str> for Input<'a> {
    fn from(text: &'a str) -> Self {
        Input::Text(text)
    }
}

impl Input<'_> {
    /// The one object it holds, within `limits` (text only: a value was
    /// checked when the binding read it).
    pub fn value(self, limits: &Limits) -> crate::Result<Value> {
        match self {
            Input::Text(t) => read_value(t, limits),
            Input::Value(v) => Ok(v),
        }
    }

    /// The objects it holds, by the rules of [`crate::source::read_objects`]
    /// (an array gives its elements, a list object its items).
    pub fn objects(self, limits: &Limits) -> crate::Result<Vec<Value>> {
        match self {
            Input::Text(t) => read_items(t, limits),
            Input::Value(v) => objects_of_value(v),
        }
    }
}

/// A value read from a binding's host language (a Python `dict`, ...) by a
/// [`serde::Deserializer`] over its values: the engine's rules for what a
/// value may be, applied as it is walked (see
/// [`crate::source::read_host_value`]), so every binding refuses the same
/// values with the same errors. A host error raised during the walk comes
/// back as [`HostRead::Host`].
pub fn value_from_host<'de, D: serde::Deserializer<'de>>(
    host: D,
    limits: &Limits,
) -> std::result::Result<Value, HostRead<D::Error>> {
    crate::source::read_host_value(host, limits)
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

/// Validate every definition of a text: the verdicts of
/// [`crate::ValidationReport`], `[{name, valid, gvk?, findings}]`.
pub fn validate(text: &str, limits_json: Option<&str>) -> Out<String> {
    let engine = empty_engine(limits(limits_json)?)?;
    to_json(&engine.validate(text)?.definitions)
}

/// Every error code, with the name of the error class the bindings give it
/// (`jq_runtime` -> `JqRuntimeError`): `[{code, class}]`. The bindings'
/// error classes are generated from (and checked against) this list.
pub fn error_codes() -> Out<String> {
    let all: Vec<Value> = ErrorCode::ALL
        .iter()
        .map(|c| json!({"code": c.as_str(), "class": error_class(*c)}))
        .collect();
    to_json(&all)
}

/// The error class name of a code: its words in upper camel case, then
/// `Error` (`no_definition` -> `NoDefinitionError`).
pub fn error_class(code: ErrorCode) -> String {
    let mut out = String::new();
    for word in code.as_str().split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out.push_str("Error");
    out
}

/// The bundled definition files: `{file name: YAML text}`.
pub fn catalog_sources() -> Out<String> {
    let m: serde_json::Map<String, Value> = catalog::FILES
        .iter()
        .map(|(f, t)| ((*f).to_string(), Value::String((*t).to_string())))
        .collect();
    to_json(&m)
}

/// An engine with the bundled catalog and the default limits, built once
/// per process (its definitions are shared `Arc`s, so cloning it is cheap).
pub fn bundled() -> crate::Result<&'static Engine> {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    if let Some(s) = ENGINE.get() {
        return Ok(s);
    }
    let engine = Engine::new()?;
    Ok(ENGINE.get_or_init(|| engine))
}

fn empty_engine(limits: Limits) -> crate::Result<Engine> {
    Engine::builder().limits(limits).catalog(false).build()
}

/// A new engine: with the bundled catalog or empty, with the limits of
/// `limits_json` (`None`: the defaults; the catalog is compiled with them).
pub fn engine(bundled_catalog: bool, limits_json: Option<&str>) -> Out<Engine> {
    let limits = limits(limits_json)?;
    if !bundled_catalog {
        return Ok(empty_engine(limits)?);
    }
    if limits == Limits::default() {
        return Ok(bundled()?.clone());
    }
    // Engines with the catalog are kept for the last few sets of limits, so
    // a binding that passes its own limits on every call compiles the
    // catalog once, not per call.
    const KEPT: usize = 8;
    static CACHE: OnceLock<std::sync::Mutex<Vec<(Limits, Engine)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Ok(kept) = cache.lock()
        && let Some((_, e)) = kept.iter().find(|(l, _)| *l == limits)
    {
        return Ok(e.clone());
    }
    let engine = Engine::builder().limits(limits).build()?;
    if let Ok(mut kept) = cache.lock() {
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push((limits, engine.clone()));
    }
    Ok(engine)
}

/// Compile exactly one definition from YAML/JSON text.
pub fn compile(text: &str, limits_json: Option<&str>) -> Out<CompiledDefinition> {
    Ok(empty_engine(limits(limits_json)?)?.compile(text)?)
}

/// Compile every definition of a value that a binding serialized from its
/// caller's object (a dict, a JS object): the value is re-serialized with
/// its keys sorted (the order of `serde_json`'s map), so the same object
/// always compiles the same way, whatever order its language kept.
pub fn compile_object(json: &str, limits_json: Option<&str>) -> Out<Vec<CompiledDefinition>> {
    let (engine, text) = object_text(json, limits_json)?;
    Ok(engine.compile_all(&text)?)
}

/// An engine without catalog for the limits, and the binding's JSON with
/// its keys sorted (the text [`compile_object`] compiles).
fn object_text(json: &str, limits_json: Option<&str>) -> Out<(Engine, String)> {
    let limits = limits(limits_json)?;
    let text = to_json(&value_from_binding_json(json, &limits)?)?;
    Ok((empty_engine(limits)?, text))
}

/// Compile every definition of a YAML/JSON text.
pub fn compile_all(text: &str, limits_json: Option<&str>) -> Out<Vec<CompiledDefinition>> {
    Ok(empty_engine(limits(limits_json)?)?.compile_all(text)?)
}

/// Resolve with the definition of `engine` chosen by the object's GVK (with
/// `pods`: the live state).
pub fn engine_resolve(engine: &Engine, obj: &str, pods: Option<&str>) -> Out<String> {
    to_json(&engine_resolve_input(
        engine,
        obj.into(),
        pods.map(Input::from),
    )?)
}

/// [`engine_resolve`], for any [`Input`], the result as it is.
pub fn engine_resolve_input(
    engine: &Engine,
    obj: Input<'_>,
    pods: Option<Input<'_>>,
) -> crate::Result<Resolved> {
    let l = engine.limits();
    let obj = obj.value(l)?;
    match pods {
        None => engine.resolve(&obj),
        Some(p) => engine.resolve_with_pods(&obj, &p.objects(l)?),
    }
}

/// The definition of `engine` for an object, by its apiVersion and kind.
pub fn engine_lookup_object(engine: &Engine, obj: &str) -> Out<Arc<CompiledDefinition>> {
    engine_lookup_object_input(engine, obj.into())
}

/// [`engine_lookup_object`], for any [`Input`].
pub fn engine_lookup_object_input(engine: &Engine, obj: Input<'_>) -> Out<Arc<CompiledDefinition>> {
    let obj = obj.value(engine.limits())?;
    Ok(engine.definition_for(&obj)?.clone())
}

/// The definition of `engine` for an apiVersion and kind.
pub fn engine_lookup(
    engine: &Engine,
    api_version: &str,
    kind: &str,
) -> Option<Arc<CompiledDefinition>> {
    engine
        .lookup(&Gvk::from_api_version(api_version, kind))
        .cloned()
}

/// Resolve with the bundled catalog plus `defs` (which replace bundled
/// definitions of the same root GVK), choosing the definition by GVK.
pub fn resolve_any(
    obj: &str,
    defs: impl IntoIterator<Item = Arc<CompiledDefinition>>,
    pods: Option<&str>,
    limits_json: Option<&str>,
) -> Out<String> {
    let mut engine = engine(true, limits_json)?;
    for d in defs {
        engine.add_definition(d);
    }
    engine_resolve(&engine, obj, pods)
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
    to_json(&resolve_input(d, obj.into(), pods.map(Input::from))?)
}

/// [`resolve`], for any [`Input`], the result as it is.
pub fn resolve_input(
    d: &CompiledDefinition,
    obj: Input<'_>,
    pods: Option<Input<'_>>,
) -> crate::Result<Resolved> {
    let l = d.limits();
    let obj = obj.value(l)?;
    match pods {
        Some(p) => d.resolve_with_pods(&obj, &p.objects(l)?),
        None => d.resolve(&obj),
    }
}

/// The root status (`null` when the definition has none).
pub fn status(d: &CompiledDefinition, obj: &str) -> Out<String> {
    to_json(&status_input(d, obj.into())?)
}

/// [`status`], for any [`Input`].
pub fn status_input(d: &CompiledDefinition, obj: Input<'_>) -> crate::Result<Option<Status>> {
    d.status(&obj.value(d.limits())?)
}

/// Why the object has its status: every matcher of every category with its
/// outcome and reason.
pub fn explain_status(d: &CompiledDefinition, obj: &str) -> Out<String> {
    to_json(&explain_status_input(d, obj.into())?)
}

/// [`explain_status`], for any [`Input`].
pub fn explain_status_input(
    d: &CompiledDefinition,
    obj: Input<'_>,
) -> crate::Result<StatusExplanation> {
    d.explain_status(&obj.value(d.limits())?)
}

/// Write values through the definition's paths: `{object, patch}`.
pub fn update(d: &CompiledDefinition, obj: &str, request: &str) -> Out<String> {
    to_json(&update_input(d, obj.into(), request.into())?)
}

/// [`update`], for any [`Input`].
pub fn update_input(
    d: &CompiledDefinition,
    obj: Input<'_>,
    request: Input<'_>,
) -> crate::Result<UpdateResult> {
    let obj = obj.value(d.limits())?;
    let req: UpdateRequest = serde_json::from_value(request.value(d.limits())?)
        .map_err(|e| Error::new(ErrorCode::Usage, format!("invalid update request: {e}")))?;
    d.update(&obj, &req)
}

/// Apply the suspend actions: `{object, patch}`.
pub fn suspend(d: &CompiledDefinition, obj: &str) -> Out<String> {
    to_json(&suspend_input(d, obj.into())?)
}

/// [`suspend`], for any [`Input`].
pub fn suspend_input(d: &CompiledDefinition, obj: Input<'_>) -> crate::Result<UpdateResult> {
    d.suspend(&obj.value(d.limits())?)
}

/// Apply the resume actions: `{object, patch}`.
pub fn resume(d: &CompiledDefinition, obj: &str) -> Out<String> {
    to_json(&resume_input(d, obj.into())?)
}

/// [`resume`], for any [`Input`].
pub fn resume_input(d: &CompiledDefinition, obj: Input<'_>) -> crate::Result<UpdateResult> {
    d.resume(&obj.value(d.limits())?)
}

/// Place pods under components and instances (`obj` may be absent).
pub fn attribute_pods(d: &CompiledDefinition, obj: Option<&str>, pods: &str) -> Out<String> {
    to_json(&attribute_pods_input(d, obj.map(Input::from), pods.into())?)
}

/// [`attribute_pods`], for any [`Input`].
pub fn attribute_pods_input(
    d: &CompiledDefinition,
    obj: Option<Input<'_>>,
    pods: Input<'_>,
) -> crate::Result<Attribution> {
    let l = d.limits();
    let obj = obj.map(|o| o.value(l)).transpose()?;
    d.attribute_pods(obj.as_ref(), &pods.objects(l)?)
}

/// Gang-scheduling groups of the workload's pods.
pub fn gang_groups(d: &CompiledDefinition, obj: &str, pods: &str) -> Out<String> {
    to_json(&gang_groups_input(d, obj.into(), pods.into())?)
}

/// [`gang_groups`], for any [`Input`].
pub fn gang_groups_input(
    d: &CompiledDefinition,
    obj: Input<'_>,
    pods: Input<'_>,
) -> crate::Result<GangReport> {
    let l = d.limits();
    let obj = obj.value(l)?;
    d.gang_groups(&obj, &pods.objects(l)?)
}

/// The structure gang scheduling works on ([`GangStructure`]): components,
/// leaves, parents, children, `hasScaleDefinition` and, with
/// `gangScheduling`, each component's candidate members.
pub fn gang_structure(d: &CompiledDefinition) -> Out<String> {
    to_json(&gang_structure_value(d)?)
}

/// [`gang_structure`], the result as it is.
pub fn gang_structure_value(d: &CompiledDefinition) -> crate::Result<GangStructure> {
    d.gang_structure()
}

/// The subtree scale (gang minimum members) of `component` of the object,
/// of its instance `instance` when given, as JSON (a number).
pub fn subtree_scale(
    d: &CompiledDefinition,
    obj: &str,
    component: &str,
    instance: Option<&str>,
) -> Out<String> {
    to_json(&subtree_scale_input(d, obj.into(), component, instance)?)
}

/// [`subtree_scale`], for any [`Input`].
pub fn subtree_scale_input(
    d: &CompiledDefinition,
    obj: Input<'_>,
    component: &str,
    instance: Option<&str>,
) -> crate::Result<i64> {
    let obj = obj.value(d.limits())?;
    d.subtree_scale_of(&obj, component, instance)
}

/// Text a binding's caller gave as bytes (or as a string that is not
/// Unicode, passed on as UTF-8 with its lone surrogates encoded), as `&str`.
/// Bytes that are not UTF-8 are the parse error [`parse_bytes`] reports,
/// located at the first invalid byte, whatever their size (the size limit
/// applies when the text is read).
pub fn utf8(bytes: &[u8]) -> crate::Result<&str> {
    std::str::from_utf8(bytes).map_err(|_| {
        let unbounded = Limits {
            max_input_bytes: usize::MAX,
            ..Limits::default()
        };
        parse_documents_bytes(bytes, &unbounded)
            .err()
            .unwrap_or_else(|| Error::new(ErrorCode::Parse, "the input is not valid UTF-8"))
    })
}

/// [`evaluate`] with a binding's arguments as its caller gave them: the
/// expression as UTF-8 bytes (not UTF-8, e.g. a string with a lone
/// surrogate: a jq compile error) and the input as JSON the binding
/// serialized from the caller's value (read by [`value_from_binding_json`]:
/// errors carry no position in that text, a lone surrogate is a usage
/// error).
pub fn evaluate_value(
    expression: &[u8],
    input_json: &str,
    limits_json: Option<&str>,
) -> Out<String> {
    let limits = limits(limits_json)?;
    let input = value_from_binding_json(input_json, &limits)?;
    to_json(&evaluate_input(expression, &input, &limits)?)
}

/// [`evaluate_value`] on an input already read (with [`value_from_host`],
/// within the same `limits`): every output.
pub fn evaluate_input(
    expression: &[u8],
    input: &Value,
    limits: &Limits,
) -> crate::Result<Vec<Value>> {
    let expression = std::str::from_utf8(expression)
        .map_err(|_| Error::new(ErrorCode::JqCompile, "the expression is not valid Unicode"))?;
    crate::evaluate(expression, input, limits)
}

/// A definition compiled again from its [`definition_json`], the limits of
/// its [`info`] (camelCase JSON) and its origin (`"catalog"` or `"user"`):
/// how a binding restores a definition it serialized (Python's pickling).
pub fn rebuild(definition_json: &str, limits_json: &str, origin: &str) -> Out<CompiledDefinition> {
    let origin = match origin {
        "catalog" => crate::Origin::Catalog,
        "user" => crate::Origin::User,
        "cluster" => crate::Origin::Cluster,
        o => {
            let m = format!("origin must be 'catalog', 'user' or 'cluster', not {o:?}");
            return Err(Error::new(ErrorCode::Usage, m).into());
        }
    };
    Ok(compile(definition_json, Some(limits_json))?.with_origin(origin))
}

/// Compile exactly one definition of a value a binding serialized from its
/// caller's object, read as [`compile_object`] reads it (keys sorted): a
/// binding's `compile` of an object (the JavaScript `new Definition(obj)`).
pub fn compile_one_object(json: &str, limits_json: Option<&str>) -> Out<CompiledDefinition> {
    let (engine, text) = object_text(json, limits_json)?;
    Ok(engine.compile(&text)?)
}

/// A host number (JavaScript's) as a u64 count: integral part, negative and
/// NaN as 0, beyond u64 saturated.
fn host_count(n: f64) -> u64 {
    if n.is_nan() || n <= 0.0 {
        0
    } else {
        // `as` saturates at u64::MAX and truncates the fraction.
        n as u64
    }
}

/// Bytes for people ([`crate::human::memory`]), from a host number.
pub fn human_memory(bytes: f64) -> String {
    crate::human::memory(host_count(bytes))
}

/// Millicores for people ([`crate::human::cpu`]), from a host number.
pub fn human_cpu(millis: f64) -> String {
    crate::human::cpu(host_count(millis))
}

/// Served resources from their JSON (an array of
/// [`crate::ApiResource`], camelCase).
fn served(json: &str) -> crate::Result<Vec<crate::ApiResource>> {
    serde_json::from_str(json).map_err(|e| {
        Error::new(
            ErrorCode::Usage,
            format!("the served resources must be a JSON array of {{group, version, kind, plural, ...}}: {e}"),
        )
    })
}

/// The objects of several inputs (each a list text, such as one page of a
/// Kubernetes list response, or a value), in order.
fn all_objects(inputs: Vec<Input<'_>>, limits: &Limits) -> crate::Result<Vec<Value>> {
    let mut all = Vec::new();
    for i in inputs {
        all.extend(i.objects(limits)?);
    }
    Ok(all)
}

/// [`Engine::find_type`]: the served resource (JSON) a type token names;
/// `served` is a JSON array of [`crate::ApiResource`].
pub fn engine_find_type(engine: &Engine, token: &str, served_json: &str) -> Out<String> {
    to_json(&engine.find_type(token, &served(served_json)?)?)
}

/// [`Engine::covered_types`], as a JSON array.
pub fn engine_covered_types(engine: &Engine, served_json: &str) -> Out<String> {
    to_json(&engine.covered_types(&served(served_json)?))
}

/// [`Engine::with_cluster_definitions`] over the objects of `inputs` (list
/// texts or values): the new engine and the warnings as a JSON array.
pub fn engine_with_cluster_definitions(
    engine: &Engine,
    inputs: Vec<Input<'_>>,
) -> Out<(Engine, String)> {
    let objects = all_objects(inputs, engine.limits())?;
    let (engine, warnings) = engine.with_cluster_definitions(&objects);
    Ok((engine, to_json(&warnings)?))
}

/// [`Engine::list_workloads`] over the objects of `objects` and `owners`
/// (list texts, such as the pages of list responses, or values), as a JSON
/// array of [`crate::WorkloadSummary`]; `options_json` is a
/// [`crate::ListOptions`] (camelCase; `None`: every object). Each text is read within the
/// engine's limits on its own.
pub fn engine_list_workloads(
    engine: &Engine,
    objects: Vec<Input<'_>>,
    owners: Vec<Input<'_>>,
    options_json: Option<&str>,
) -> Out<String> {
    let options: crate::ListOptions = match options_json {
        None => crate::ListOptions::default(),
        Some(j) => serde_json::from_str(j).map_err(|e| {
            Error::new(
                ErrorCode::Usage,
                format!("list options must be {{topLevelOnly, phases}}: {e}"),
            )
        })?,
    };
    let l = engine.limits();
    let objects = all_objects(objects, l)?;
    let owners = all_objects(owners, l)?;
    to_json(&engine.list_workloads(&objects, &owners, &options))
}

/// [`Engine::resolve_with_pods`] with the pods (and owners) of several
/// inputs (list texts such as pages, or values).
pub fn engine_resolve_pages(engine: &Engine, obj: Input<'_>, items: Vec<Input<'_>>) -> Out<String> {
    let l = engine.limits();
    let obj = obj.value(l)?;
    to_json(&engine.resolve_with_pods(&obj, &all_objects(items, l)?)?)
}

/// [`Engine::gang_groups`] with the pods (and owners) of several inputs.
pub fn engine_gang_groups_pages(
    engine: &Engine,
    obj: Input<'_>,
    items: Vec<Input<'_>>,
) -> Out<String> {
    let l = engine.limits();
    let obj = obj.value(l)?;
    to_json(&engine.gang_groups(&obj, &all_objects(items, l)?)?)
}

/// [`Engine::resolve_in_namespace`]: the object, and the items of a
/// namespace (pods and their owners; list texts such as pages, or values).
pub fn engine_resolve_in_namespace(
    engine: &Engine,
    obj: Input<'_>,
    items: Vec<Input<'_>>,
) -> Out<String> {
    let l = engine.limits();
    let obj = obj.value(l)?;
    to_json(&engine.resolve_in_namespace(&obj, &all_objects(items, l)?)?)
}

/// [`crate::usage`] of a listing (the JSON array
/// [`engine_list_workloads`] returns), as JSON.
pub fn usage(rows_json: &str) -> Out<String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Row {
        #[serde(default)]
        namespace: Option<String>,
        api_version: String,
        kind: String,
        #[serde(default)]
        pods: u64,
        #[serde(default)]
        gpus: u64,
        #[serde(default)]
        error: Option<Value>,
    }
    let rows: Vec<Row> = serde_json::from_str(rows_json).map_err(|e| {
        Error::new(
            ErrorCode::Usage,
            format!("rows must be a listing's JSON array: {e}"),
        )
    })?;
    let rows: Vec<crate::WorkloadSummary> = rows
        .into_iter()
        .map(|r| crate::WorkloadSummary {
            name: String::new(),
            namespace: r.namespace,
            uid: None,
            api_version: r.api_version,
            kind: r.kind,
            created: None,
            definition: None,
            origin: None,
            phase: None,
            statuses: Vec::new(),
            pods: r.pods,
            gpus: r.gpus,
            error: r.error.map(|_| Error::new(ErrorCode::Usage, "")),
        })
        .collect();
    to_json(&crate::usage(&rows))
}

/// [`crate::missing_owners`] of the objects of `items` (list texts or
/// values), without the owner kinds of `skip_json` (a JSON array of
/// `{apiVersion, kind}`), as a JSON array of `{apiVersion, kind}`.
pub fn missing_owners(items: Vec<Input<'_>>, skip_json: &str, limits: &Limits) -> Out<String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Kind {
        api_version: String,
        kind: String,
    }
    let skip: Vec<Kind> = serde_json::from_str(skip_json).map_err(|e| {
        Error::new(
            ErrorCode::Usage,
            format!("skip must be a JSON array of {{apiVersion, kind}}: {e}"),
        )
    })?;
    let skip: Vec<crate::OwnerKind> = skip
        .into_iter()
        .map(|k| crate::OwnerKind {
            api_version: k.api_version,
            kind: k.kind,
        })
        .collect();
    to_json(&crate::missing_owners(&all_objects(items, limits)?, &skip))
}

#[cfg(test)]
mod human_tests {
    use super::*;

    #[test]
    fn host_numbers_become_counts() {
        assert_eq!(human_memory(2e9), "1.9Gi");
        assert_eq!(human_memory(-5.0), "0");
        assert_eq!(human_memory(f64::NAN), "0");
        assert_eq!(human_memory(f64::INFINITY), "16Ei");
        assert_eq!(human_memory(1536.7), "1.5Ki");
        assert_eq!(human_cpu(26_500.0), "26.5");
        assert_eq!(human_cpu(0.9), "0");
    }
}
