//! The one surface of the language bindings (Python, Node, WebAssembly)
//! over the engine's public API.
//!
//! - [`for_each_operation!`] declares every operation once: its receiver
//!   (none, a definition, a catalog), its arguments with their kinds and its
//!   result. Each binding crate expands the table into its own functions
//!   (`#[pyfunction]`s, `#[napi]`s, `#[wasm_bindgen]`s) with its own
//!   converters of each kind; [`ops`] holds the function behind each entry.
//! - [`Input`], [`Failure`] and the helpers below are the conversions every
//!   binding shares: how text and host values are read within limits, how a
//!   failure crosses (the JSON of the engine's [`Error`] plus its display
//!   text).
//!
//! Adding an operation: one entry in the table, one function in [`ops`]
//! (calling one engine function), its tests and its docs; every binding
//! picks it up.
//!
//! ```
//! use workload_lens_binding::{Failure, Input, ops};
//! let def = workload_lens_binding::bundled().unwrap()
//!     .definition("jobset-x-k8s-io-jobset-v1alpha2").unwrap().clone();
//! let object = include_str!("../../examples/jobset.yaml");
//! let resolved = ops::definition::resolve(&def, Input::Text(object), None).unwrap();
//! assert_eq!(resolved.totals.resources.gpu, 12);
//!
//! let err = ops::definition::resolve(&def, Input::Text("{"), None).unwrap_err();
//! let payload: serde_json::Value = serde_json::from_str(&Failure::from(err).payload()).unwrap();
//! assert_eq!(payload["code"], "parse");
//! assert_eq!(payload["location"]["line"], 1);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::any::Any;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde_json::{Value, json};
pub use workload_lens::ObjectsOfInputs;
use workload_lens::source::{objects_of_value, parse_documents_bytes, read_items, read_value};
use workload_lens::{CompiledDefinition, Engine, Error, ErrorCode, Limits};

pub mod ops;
mod table;

pub use workload_lens::source::HostRead;

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

/// A cluster protocol session held by a binding's handle (the receiver of
/// the `session` section): usable until `finish` spends it.
#[derive(Debug)]
pub struct Session(Option<workload_lens::ClusterSession>);

impl Session {
    /// A handle's session.
    pub fn new(session: workload_lens::ClusterSession) -> Session {
        Session(Some(session))
    }

    fn spent() -> workload_lens::Error {
        workload_lens::Error::new(
            workload_lens::ErrorCode::Usage,
            "the cluster session is finished: start another",
        )
    }

    /// The session, unless finished.
    pub fn get(&mut self) -> workload_lens::Result<&mut workload_lens::ClusterSession> {
        self.0.as_mut().ok_or_else(Session::spent)
    }

    /// The session, taken out (the handle is then spent).
    pub fn take(&mut self) -> workload_lens::Result<workload_lens::ClusterSession> {
        self.0.take().ok_or_else(Session::spent)
    }
}

/// The result of a binding call.
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

    /// The JSON a binding's language layer reads: the engine's error as
    /// serialized (`code`, `message`, `location`, `limit`?, `findings`?)
    /// plus `display` (its `Display` text); for a bug, code `internal` and a
    /// message asking for a report.
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
pub fn value_from_binding_json(json: &str, limits: &Limits) -> workload_lens::Result<Value> {
    read_value(json, limits).map_err(|e| {
        let e = e.without_position();
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
    /// The objects of several inputs, already read one by one (and counted)
    /// with [`ObjectsOfInputs::add`]: a binding that takes its inputs from
    /// a stream reads them so, stopping it at the limit (see [`all_objects`]).
    Objects(ObjectsOfInputs),
}

impl<'a> From<&'a str> for Input<'a> {
    fn from(text: &'a str) -> Self {
        Input::Text(text)
    }
}

impl Input<'_> {
    /// The one object it holds, within `limits` (text only: a value was
    /// checked when the binding read it).
    pub fn value(self, limits: &Limits) -> workload_lens::Result<Value> {
        match self {
            Input::Text(t) => read_value(t, limits),
            Input::Value(v) => Ok(v),
            Input::Objects(_) => Err(Error::new(
                ErrorCode::Usage,
                "several inputs where one object is expected",
            )),
        }
    }

    /// The objects it holds, by the rules of
    /// [`workload_lens::source::read_objects`] (an array gives its
    /// elements, a list object its items).
    pub fn objects(self, limits: &Limits) -> workload_lens::Result<Vec<Value>> {
        match self {
            Input::Text(t) => read_items(t, limits),
            Input::Value(v) => objects_of_value(v),
            Input::Objects(o) => Ok(o.into_objects()),
        }
    }

    /// Add its objects to those of the inputs before it, within `limits`:
    /// each input within the input limits, all of them together within
    /// `maxClusterBytes` (see [`ObjectsOfInputs`]).
    pub fn add_to(self, read: &mut ObjectsOfInputs, limits: &Limits) -> workload_lens::Result<()> {
        match self {
            Input::Objects(o) => read.append(o, limits),
            i => read.add(i.objects(limits)?, limits),
        }
    }
}

/// The objects of several inputs (each a list text, such as one page of a
/// Kubernetes list response, or a value), in order. Each input is read
/// within the input limits (`maxInputBytes`, `maxInputNodes`, ...); their
/// objects together, each counted as its size as compact JSON, within
/// `maxClusterBytes`, as the pages of a list a cluster session keeps (a
/// `limit` error naming it past that).
pub fn all_objects(inputs: Vec<Input<'_>>, limits: &Limits) -> workload_lens::Result<Vec<Value>> {
    let mut all = ObjectsOfInputs::new();
    for i in inputs {
        i.add_to(&mut all, limits)?;
    }
    Ok(all.into_objects())
}

/// A value read from a binding's host language (a Python `dict`, ...) by a
/// [`serde::Deserializer`] over its values: the engine's rules for what a
/// value may be, applied as it is walked
/// ([`workload_lens::source::read_host_value`]), so every binding refuses
/// the same values with the same errors. A host error raised during the
/// walk comes back as [`HostRead::Host`].
pub fn value_from_host<'de, D: serde::Deserializer<'de>>(
    host: D,
    limits: &Limits,
) -> std::result::Result<Value, HostRead<D::Error>> {
    workload_lens::source::read_host_value(host, limits)
}

/// `t` as compact JSON.
pub fn to_json<T: Serialize + ?Sized>(t: &T) -> Out<String> {
    serde_json::to_string(t).map_err(|e| Failure::Internal(format!("cannot serialize: {e}")))
}

/// [`Limits`] from their camelCase JSON (`None`: the defaults; missing
/// fields take their defaults). An unknown field or a bad value is a usage
/// error naming it.
pub fn limits(json: Option<&str>) -> workload_lens::Result<Limits> {
    match json {
        None => Ok(Limits::default()),
        Some(j) => serde_json::from_str(j)
            .map_err(|e| Error::new(ErrorCode::Usage, format!("invalid limits: {e}"))),
    }
}

/// Text a binding's caller gave as bytes (or as a string that is not
/// Unicode, passed on as UTF-8 with its lone surrogates encoded), as `&str`.
/// Bytes that are not UTF-8 are the parse error `parse_bytes` reports,
/// located at the first invalid byte, whatever their size (the size limit
/// applies when the text is read).
pub fn utf8(bytes: &[u8]) -> workload_lens::Result<&str> {
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

/// An engine with the bundled catalog and the default limits, built once
/// per process (its definitions are shared `Arc`s, so cloning it is cheap).
pub fn bundled() -> workload_lens::Result<&'static Engine> {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    if let Some(s) = ENGINE.get() {
        return Ok(s);
    }
    let engine = Engine::new()?;
    Ok(ENGINE.get_or_init(|| engine))
}

/// An engine without the catalog.
pub(crate) fn empty_engine(limits: Limits) -> workload_lens::Result<Engine> {
    Engine::builder().limits(limits).catalog(false).build()
}

/// A new engine (a binding's catalog): with the bundled catalog or empty,
/// with the limits of `limits_json` (`None`: the defaults; the catalog is
/// compiled with them).
pub fn engine(bundled_catalog: bool, limits_json: Option<&str>) -> workload_lens::Result<Engine> {
    let limits = limits(limits_json)?;
    if !bundled_catalog {
        return empty_engine(limits);
    }
    if limits == Limits::default() {
        return Ok(bundled()?.clone());
    }
    // Engines with the catalog are kept for the last few sets of limits, so
    // a binding that passes its own limits on every call compiles the
    // catalog once, not per call.
    const KEPT: usize = 8;
    static CACHE: OnceLock<Mutex<Vec<(Limits, Engine)>>> = OnceLock::new();
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

/// Resolve with the bundled catalog plus `defs` (which replace bundled
/// definitions of the same root GVK), choosing the definition by GVK: the
/// JavaScript `resolve` of any object.
pub fn resolve_any(
    obj: &str,
    defs: impl IntoIterator<Item = Arc<CompiledDefinition>>,
    pods: Option<&str>,
    limits_json: Option<&str>,
) -> workload_lens::Result<workload_lens::Resolved<'static>> {
    let mut engine = engine(true, limits_json)?;
    for d in defs {
        engine.add_definition(d);
    }
    ops::catalog::resolve(&engine, obj.into(), pods.map(Input::from))
}

/// [`Engine::with_cluster_definitions`] over the objects of `inputs` (list
/// texts or values): the new engine and the warnings.
pub fn with_cluster_definitions(
    engine: &Engine,
    inputs: Vec<Input<'_>>,
) -> workload_lens::Result<(Engine, Vec<workload_lens::ClusterDefinitionWarning>)> {
    let objects = all_objects(inputs, engine.limits())?;
    Ok(engine.with_cluster_definitions(&objects))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_inputs_are_bounded_together_by_max_cluster_bytes() {
        let page = r#"{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}"#;
        // Each item as compact JSON: kind and apiVersion come from the list.
        let item = r#"{"metadata":{"name":"a"},"kind":"Pod","apiVersion":"v1"}"#.len();
        let limits = Limits {
            max_cluster_bytes: 10 * item,
            ..Limits::default()
        };
        let pages = |n: usize| (0..n).map(|_| Input::Text(page)).collect::<Vec<_>>();
        // Five pages of two items: exactly the limit.
        let five = all_objects(pages(5), &limits).unwrap();
        assert_eq!(five.len(), 10);
        // A sixth goes over, each page within the input limits.
        let e = all_objects(pages(6), &limits).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Limit);
        assert_eq!(e.limit(), Some("maxClusterBytes"));
        assert!(e.message().contains("input 6 went over"), "{}", e.message());
        // Inputs read one by one beforehand give the same objects and the
        // same bound.
        let mut read = ObjectsOfInputs::new();
        for _ in 0..5 {
            Input::Text(page).add_to(&mut read, &limits).unwrap();
        }
        assert_eq!(read.bytes(), 10 * item);
        let again = all_objects(vec![Input::Objects(read.clone())], &limits).unwrap();
        assert_eq!(again, five);
        let e = all_objects(vec![Input::Objects(read), Input::Text(page)], &limits).unwrap_err();
        assert_eq!(e.limit(), Some("maxClusterBytes"));
        // A value is counted as its text is.
        let value: Value = serde_json::from_str(page).unwrap();
        let e = all_objects(
            (0..6).map(|_| Input::Value(value.clone())).collect(),
            &limits,
        );
        assert_eq!(e.unwrap_err().limit(), Some("maxClusterBytes"));
    }

    #[test]
    fn error_classes() {
        assert_eq!(error_class(ErrorCode::NoDefinition), "NoDefinitionError");
        assert_eq!(error_class(ErrorCode::JqRuntime), "JqRuntimeError");
    }
}
